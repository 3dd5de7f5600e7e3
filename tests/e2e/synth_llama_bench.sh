#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: synth models load and run in the real llama.cpp.
#   1. llama-bench -p 16 -n 16 -r 1 -o json on tiny and tiny-moe at F16, Q8_0 and Q4_0 and on
#      qwen2.5-0.5b at Q4_0: a prompt record and a decode record (n_gen 16) with avg_ts > 0,
#      and the model type llama.cpp reports (architecture and weight type).
#   2. llama-server on tiny: /tokenize splits a prompt into the synth vocabulary's pieces
#      (with the <0x0A> byte token for a newline) and /completion generates 8 tokens.
# Needs LLAMA_BIN_DIR (llama-bench, llama-server); exits 77 (skip) without it.
set -euo pipefail
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-synth-bench.$$"
mkdir -p "$work"
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fails=0

bench() { # preset type expected-model-type-regex
  local preset=$1 type=$2 want=$3 f="$work/$1-$2.gguf" rc=0
  "$RL_BIN" synth --preset "$preset" --type "$type" --seed 3 -q -o "$f"
  "$LLAMA_BIN_DIR/llama-bench" -m "$f" -p 16 -n 16 -r 1 -o json >"$work/bench.json" 2>"$work/bench.err" || rc=$?
  if [ "$rc" != 0 ]; then
    tail -5 "$work/bench.err"; echo "FAIL llama-bench $preset $type: exit $rc"; fails=$((fails+1)); rm -f "$f"; return
  fi
  if python3 - "$work/bench.json" "$want" "$preset $type" <<'PY'; then :; else fails=$((fails+1)); fi
import json, re, sys
recs = json.load(open(sys.argv[1])); want = sys.argv[2]; what = sys.argv[3]
gen = [r for r in recs if r["n_gen"] == 16 and r["n_prompt"] == 0]
pp = [r for r in recs if r["n_prompt"] == 16 and r["n_gen"] == 0]
ok = len(gen) == 1 and len(pp) == 1 and gen[0]["avg_ts"] > 0 and pp[0]["avg_ts"] > 0 \
     and all(re.fullmatch(want, r["model_type"]) for r in recs)
print(("ok   " if ok else "FAIL ") + f"llama-bench {what}: " +
      ", ".join(f'{r["model_type"]} pp{r["n_prompt"]} tg{r["n_gen"]} {r["avg_ts"]:.1f} t/s' for r in recs))
sys.exit(0 if ok else 1)
PY
  rm -f "$f"
}

for type in F16 Q8_0 Q4_0; do
  bench tiny "$type" "llama \?B $type"
  bench tiny-moe "$type" "llama \?B $type"
done
bench qwen2.5-0.5b Q4_0 "qwen2 1B Q4_0"

# llama-server: tokenize and generate with the synth vocabulary
if [ -x "$LLAMA_BIN_DIR/llama-server" ]; then
  "$RL_BIN" synth --preset tiny -q -o "$work/tiny.gguf"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$LLAMA_BIN_DIR/llama-server" -m "$work/tiny.gguf" --host 127.0.0.1 --port "$port" -c 256 -t 2 \
    >"$work/server.log" 2>&1 &
  server_pid=$!
  if python3 - "$port" <<'PY'; then echo "ok   llama-server tokenizes and generates"; else tail -5 "$work/server.log"; echo "FAIL llama-server"; fails=$((fails+1)); fi
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def call(path, body=None):
    req = urllib.request.Request(base + path, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)
for _ in range(120):
    try:
        if call("/health").get("status") == "ok":
            break
    except Exception:
        pass
    time.sleep(0.5)
else:
    sys.exit("server did not become healthy")
toks = call("/tokenize", {"content": "hello world\nThe cat", "with_pieces": True})["tokens"]
pieces = [t["piece"] for t in toks]
ids = [t["id"] for t in toks]
print("  tokens:", list(zip(ids, pieces)))
# "\n" is the byte token <0x0A> (id 3 + 10); "lo" and "at" are two-letter pieces
assert 13 in ids and "".join(pieces) == " hello world\nThe cat", pieces
assert all(i < 1024 for i in ids)
out = call("/completion", {"prompt": "hello world", "n_predict": 8, "temperature": 0})
print("  completion:", repr(out["content"]), out["tokens_predicted"], "tokens")
assert out["tokens_predicted"] == 8 or out.get("stop_type") == "eos", out
PY
fi

echo "$fails failed"
[ "$fails" = 0 ]
