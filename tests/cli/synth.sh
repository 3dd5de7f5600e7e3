#!/usr/bin/env bash
# CLI: `synth --list`, a tiny model written and re-read, determinism by seed, and the exit
# codes and one-line messages of bad invocations (2 bad input, 4 unwritable output).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-synth.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=synth

out=$("$RL_BIN" synth --list); check "--list" 0 $?
for p in tiny tiny-moe qwen2.5-0.5b qwen2.5-1.5b llama-3.2-1b; do
  expect "--list shows $p" "$out" "^$p "
done
expect "--list qwen2.5-0.5b shape" "$out" "^qwen2.5-0.5b +qwen2 +24 +896 +14 +2 +4864 +151936 +- +untied +630.2M +1.26 GB"
expect "--list llama-3.2-1b shape" "$out" "^llama-3.2-1b +llama +16 +2048 +32 +8 +8192 +128256 +- +tied +1.24B +2.47 GB"
expect "--list tiny-moe experts" "$out" "^tiny-moe +llama +4 +256 +8 +4 +512 +1024 +2/4 "

out=$("$RL_BIN" synth --preset tiny -o "$work/tiny.gguf"); check "synth tiny" 0 $?
expect "summary line" "$out" "^wrote $work/tiny.gguf: synth tiny, F16, 39 tensors, 2.9M params, 5.8 MB \(5800224 bytes\), seed 0$"
[ "$(stat -c %s "$work/tiny.gguf")" = 5800224 ] && echo "ok   tiny size" || { echo "FAIL tiny size"; fails=$((fails+1)); }
ls -A "$work" | grep -q '^\.tiny\.gguf\.' && { echo "FAIL temp file left"; fails=$((fails+1)); } || echo "ok   no temp file left"
head -c 4 "$work/tiny.gguf" | grep -q GGUF && echo "ok   GGUF magic" || { echo "FAIL magic"; fails=$((fails+1)); }

"$RL_BIN" synth --preset tiny -q -o "$work/again.gguf"; check "synth tiny -q" 0 $?
cmp -s "$work/tiny.gguf" "$work/again.gguf" && echo "ok   same seed, same bytes" || { echo "FAIL not deterministic"; fails=$((fails+1)); }
"$RL_BIN" synth --preset tiny --seed 9 -q -o "$work/seed9.gguf"; check "synth --seed 9" 0 $?
cmp -s "$work/tiny.gguf" "$work/seed9.gguf" && { echo "FAIL seed ignored"; fails=$((fails+1)); } || echo "ok   other seed, other bytes"
out=$("$RL_BIN" synth --preset=tiny-moe --type=q4_0 --n-layer=2 --tied -o "$work/moe.gguf"); check "--flag=value forms" 0 $?
expect "tiny-moe Q4_0 summary" "$out" "synth tiny-moe, Q4_0, 22 tensors"
out=$("$RL_BIN" synth --preset tiny --n-expert 4 -o "$work/moe2.gguf"); check "--n-expert on tiny" 0 $?
expect "tiny + experts" "$out" "synth tiny, F16, 43 tensors, 7.6M params"

# the reader sees what was written (when inspect is built)
if "$RL_BIN" inspect --json "$work/moe.gguf" >"$work/inspect.json" 2>/dev/null; then
  python3 - "$work/inspect.json" <<'PY' && echo "ok   inspect reads the synth" || { echo "FAIL inspect"; fails=$((fails+1)); }
import json, sys
d = json.load(open(sys.argv[1]))
o = d[0] if isinstance(d, list) else d
s = json.dumps(o)
assert '"llama"' in s and "synth tiny-moe" in s, s[:300]
PY
fi

bad "unknown preset" 2 "unknown preset 'nope' \(valid: tiny, tiny-moe, qwen2.5-0.5b, qwen2.5-1.5b, llama-3.2-1b\)" --preset nope -o "$work/x.gguf"
bad "unknown type" 2 "unknown --type 'Q5_K' \(valid: F32, F16, BF16, Q8_0, Q4_0\)" --preset tiny --type Q5_K -o "$work/x.gguf"
bad "missing -o" 2 "-o OUT.gguf is required" --preset tiny
bad "missing --preset" 2 "--preset is required" -o "$work/x.gguf"
bad "unknown option" 2 "unknown option '--frob'" --preset tiny --frob -o "$work/x.gguf"
bad "value missing" 2 "--n-layer needs a value" --preset tiny -o "$work/x.gguf" --n-layer
bad "not a number" 2 "--n-layer: expected a whole number, got '2x'" --preset tiny --n-layer 2x -o "$work/x.gguf"
bad "negative seed" 2 "--seed: expected a whole number, got '-1'" --preset tiny --seed -1 -o "$work/x.gguf"
bad "n_embd vs n_head" 2 "--n-embd 256 is not divisible by --n-head 7" --preset tiny --n-head 7 -o "$work/x.gguf"
bad "n_head vs n_head_kv" 2 "--n-head 8 is not a multiple of --n-head-kv 3" --preset tiny --n-head-kv 3 -o "$work/x.gguf"
bad "zero layers" 2 "--n-layer 0 is out of range \(1 to 512\)" --preset tiny --n-layer 0 -o "$work/x.gguf"
bad "small vocab" 2 "--n-vocab 10 is out of range" --preset tiny --n-vocab 10 -o "$work/x.gguf"
bad "quant block" 2 "--type Q4_0 needs --n-ff divisible by 32 \(got 100\)" --preset tiny --type Q4_0 --n-ff 100 -o "$work/x.gguf"
bad "experts on qwen2" 2 "experts need a llama-architecture preset" --preset qwen2.5-0.5b --n-expert 4 -o "$work/x.gguf"
bad "too many used experts" 2 "--n-expert-used 5 must be 1 to --n-expert 4" --preset tiny-moe --n-expert-used 5 -o "$work/x.gguf"
bad "unwritable path" 4 "cannot write /proc/nonexistent/x.gguf: No such file or directory" --preset tiny -o /proc/nonexistent/x.gguf
bad "output is a directory" 4 "cannot write $work: it is a directory" --preset tiny -o "$work"
if [ -w /dev/full ]; then
  bad "disk full" 4 "cannot write /dev/full: No space left on device" --preset tiny -q -o /dev/full
fi
ls "$work"/x.gguf* >/dev/null 2>&1 && { echo "FAIL a failed run left a file"; fails=$((fails+1)); } || echo "ok   failed runs leave no file"

"$RL_BIN" synth --help | grep -q "exit codes"; check "synth --help" 0 $?
finish
