#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/check-presets.sh: the real llama-bench runs every synth preset.
# For each preset (all of them, including the multi-GB ones CI leaves out) and each type given
# (default F16), synthesize it, run `llama-bench -p 16 -n 16 -r 1 -o json`, and check for a
# prompt and a decode record with avg_ts > 0. Models are written to a temporary directory
# and deleted one by one.
#   scripts/check-presets.sh [TYPE ...]        e.g. scripts/check-presets.sh F16 Q4_0
# Env: RL_BIN (default build/release/llama-roofline), LLAMA_BIN_DIR (default: scripts/llama-cpp.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RL_BIN:-build/release/llama-roofline}
[ -x "$BIN" ] || { echo "check-presets: build llama-roofline first (bash scripts/quickstart.sh)" >&2; exit 3; }
LLAMA_BIN_DIR=${LLAMA_BIN_DIR:-$(bash scripts/llama-cpp.sh | tail -n 1)}
types=("$@"); [ ${#types[@]} -gt 0 ] || types=(F16)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
presets=$("$BIN" synth --list | awk 'NR>1 && $3 ~ /^[0-9]+$/ {print $1}')
fails=0
for p in $presets; do
  for t in "${types[@]}"; do
    f="$work/$p-$t.gguf"
    "$BIN" synth --preset "$p" --type "$t" --seed 1 -q -o "$f"
    if "$LLAMA_BIN_DIR/llama-bench" -m "$f" -p 16 -n 16 -r 1 -o json >"$work/out.json" 2>"$work/err.log" &&
       python3 - "$work/out.json" "$p $t" <<'PY'; then :; else tail -3 "$work/err.log"; echo "FAIL $p $t"; fails=$((fails+1)); fi
import json, sys
recs = json.load(open(sys.argv[1]))
pp = [r for r in recs if r["n_prompt"] == 16 and r["n_gen"] == 0]
tg = [r for r in recs if r["n_gen"] == 16 and r["n_prompt"] == 0]
ok = len(pp) == 1 and len(tg) == 1 and pp[0]["avg_ts"] > 0 and tg[0]["avg_ts"] > 0
print(("ok   " if ok else "FAIL ") + f"{sys.argv[2]:<22} {recs[0]['model_type']:<22} "
      f"pp16 {pp[0]['avg_ts'] if pp else 0:9.1f} t/s   tg16 {tg[0]['avg_ts'] if tg else 0:8.2f} t/s")
sys.exit(0 if ok else 1)
PY
    rm -f "$f"
  done
done
echo "$fails failed"
[ "$fails" = 0 ]
