#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: `client --cmd` (the command driver) against a real model: llama-server (from
# LLAMA_BIN_DIR) serves a `synth --preset tiny` model on 127.0.0.1 with --parallel 2, and
# tests/lib/stream-completion.py is the streaming command (prompt on stdin, /completion with
# "stream": true, pieces to stdout) and, with --count, the token counter (/tokenize). Checks:
# `--sweep-concurrency 1,2 --runs 2` gives two points of 6 ok requests each with TTFT below
# E2E, the counter calibrates (a, a a, a a a -> a consistent step) and counts every answer,
# report.html and --csv are written. Exits 77 (skip) without LLAMA_BIN_DIR.
# Checked to fail: with the counter pointed at a wrong port (calibration unavailable).
set -u
[ -n "${LLAMA_BIN_DIR:-}" ] && [ -x "$LLAMA_BIN_DIR/llama-server" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-client-cmd.$$"
mkdir -p "$work"
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
export LLAMA_ROOFLINE_PROGRESS=off
"$RL_BIN" synth --preset tiny -q -o "$work/tiny.gguf" || { fail "synth"; finish; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$LLAMA_BIN_DIR/llama-server" -m "$work/tiny.gguf" --host 127.0.0.1 --port "$port" -c 1024 -t 2 \
  --parallel 2 >"$work/server.log" 2>&1 &
server_pid=$!
python3 - "$port" <<'PY' || { tail -5 "$work/server.log"; fail "llama-server did not become healthy"; finish; }
import json, sys, time, urllib.request
for _ in range(240):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s/health" % sys.argv[1], timeout=2) as r:
            if json.load(r).get("status") == "ok":
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.25)
sys.exit(1)
PY
H="python3 $RL_SRC/tests/lib/stream-completion.py $port"
"$RL_BIN" client --cmd "$H" --count-tokens-cmd "$H --count" --sweep-concurrency 1,2 --runs 2 \
  --timeout 120 -o "$work/out" --csv "$work/out.csv" >"$work/out.txt" 2>"$work/err.txt"
check "client --sweep-concurrency 1,2 against llama-server" 0 $?
B="$work/out/bundle.json"
json_check "two points of 6 ok requests" "$B" \
  '[(p["concurrency"], p["requests"]["ok"], p["requests"]["measured"]) for p in j["client"]["points"]]==[(1,6,6),(2,6,6)]'
json_check "TTFT > 0 and below E2E for every request" "$B" \
  'all(0 < r["ttft_ms"] <= r["e2e_ms"] for p in j["client"]["points"] for r in p["records"])'
json_check "the /tokenize counter calibrates consistently" "$B" \
  'j["client"]["tokens"]["source"]=="counter" and j["client"]["tokens"]["calibration"]["consistent"] is True and j["client"]["tokens"]["calibration"]["step"]>=1'
json_check "every answer and prompt counted" "$B" \
  'all(r["output_tokens"] is not None and r["output_tokens"]>0 and r["prompt_tokens"]>0 for p in j["client"]["points"] for r in p["records"])'
[ -s "$work/out/report.html" ] && echo "ok   report.html written" || fail "no report.html"
[ "$(wc -l <"$work/out.csv")" = 13 ] && echo "ok   csv: 12 rows" || fail "csv rows: $(wc -l <"$work/out.csv")"
expect "summary per point" "$(cat "$work/out.txt")" "^ +2 +6/6 +0 "
finish
