#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `diagnose` against the fake llama-bench (tests/lib/fake-llama-bench), with HOME,
# LLAMA_ROOFLINE_CACHE and the working directory in a scratch directory, so nothing touches
# the real cache or the user's models. The synth ladder is the tiny preset
# (LLAMA_ROOFLINE_SYNTH_PRESET=tiny, the documented test override): the fake llama-bench does
# not load models, and 2.3 GB of qwen2.5-0.5b would only slow the test down.
#   no models anywhere -> the synth ladder, written once into the cache and reused (mtimes
#   unchanged); the usual places and $LLAMA_MODELS searched, three spanning the sizes picked;
#   explicit GGUF and directory operands; the bundle says command "diagnose", bytes
#   "streamed" from the GGUF tensor table; --quick's settings; bad input exits 2 (a missing
#   file, an empty directory, --n-prompt, bad numbers, contradictions), a missing llama-bench
#   3 and an unwritable -o 4, both before any model is written.
# Checked to fail: with the ladder always rewritten (reuse check), with the spread taking the
# first three found (discovery picks), with bytes RL_AN_BYTES_RESIDENT in cmd_diagnose.c
# (bundle convention), and with llama-bench looked up after the ladder (exit 3 case leaves
# files in the cache).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-diagnose.$$"
mkdir -p "$work/home" "$work/cwd"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=diagnose
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
cd "$work/cwd" || exit 1
export HOME="$work/home" LLAMA_ROOFLINE_CACHE="$work/cache" LLAMA_ROOFLINE_SYNTH_PRESET=tiny
export LLAMA_ROOFLINE_PROGRESS=lines
unset LLAMA_MODELS LLAMA_BENCH
base=(--llama-bench "$FAKE" --peak-bw 40)
S="$work/cache/synth"

# ---- bad input: one line, nothing on stdout, nothing written to the cache
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
mkdir -p "$work/empty"
bad "missing file" 2 "nope.gguf: no such file or directory" "${base[@]}" -o "$work/x" "$work/a.gguf" "$work/nope.gguf"
bad "directory without models" 2 "no GGUF model in the directory given" "${base[@]}" -o "$work/x" "$work/empty"
bad "--n-prompt is not an option of diagnose" 2 "unknown option '--n-prompt'" --n-prompt 5
bad "--reps 0" 2 "reps: '0' is not valid: give a whole number from 1 to 1000" --reps 0
bad "--threads 1,,2" 2 "threads: '1,,2' is not" -t 1,,2
bad "--timeout 1e3" 2 "timeout: '1e3' is not" --timeout 1e3
bad "--peak-bw with --skip-membw" 2 "contradict" --peak-bw 40 --skip-membw
bad "--synth with a model" 2 "synth measures the synthetic ladder: give no models" --synth "$work/a.gguf"
bad "--resume with --synth" 2 "resume takes the models from the bundle" --resume --synth
bad "corrupt GGUF" 2 "bad-magic.gguf: .*GGUF" "${base[@]}" -o "$work/x" "$RL_SRC/tests/fixtures/gguf-bad/bad-magic.gguf"
out=$(env PATH=/usr/bin:/bin "$RL_BIN" diagnose --synth -o "$work/x" 2>"$work/miss.err"); check "missing llama-bench: exit 3" 3 $?
expect "missing llama-bench: says how to get it" "$(cat "$work/miss.err")" "scripts/llama-cpp.sh"
bad "unwritable -o" 4 "cannot create /proc/nope" --llama-bench "$FAKE" --synth -o /proc/nope/out
[ ! -e "$S" ] && echo "ok   nothing written to the cache by the failures" || fail "the cache was written: $(ls "$S")"
"$RL_BIN" diagnose --help >"$work/help.txt"; check "--help: exit 0" 0 $?
expect "--help names the roots" "$(cat "$work/help.txt")" "lm-studio/models"

# ---- no models anywhere: the synth ladder, then reused
"$RL_BIN" diagnose "${base[@]}" -o "$work/s1" >"$work/s1.out" 2>"$work/s1.err"; check "no models: exit 0" 0 $?
expect "no models: says it falls back to the ladder" "$(cat "$work/s1.err")" "no GGUF model in \./models, $work/home/models, .*; measuring the synthetic ladder instead"
expect "no models: ladder written" "$(cat "$work/s1.err")" "synthetic ladder tiny at Q4_0, Q8_0, F16 in $S \(written"
expect "the answer comes first on stdout" "$(sed -n 2p "$work/s1.out")" "^answer: "
expect "the bundle and report paths come last" "$(tail -2 "$work/s1.out" | tr '\n' '|')" "^wrote $work/s1/bundle.json\|wrote $work/s1/report.html\|$"
[ -s "$work/s1/report.html" ] && echo "ok   diagnose wrote report.html" || fail "diagnose wrote no report.html"
ls "$S"/tiny-Q4_0-seed1.gguf "$S"/tiny-Q8_0-seed1.gguf "$S"/tiny-F16-seed1.gguf >/dev/null; check "ladder files named by preset, type and seed" 0 $?
B="$work/s1/bundle.json"
json_check "bundle: command diagnose, complete" "$B" 'j["command"]=="diagnose" and j["status"]["state"]=="complete"'
json_check "bundle: bytes streamed, from the GGUF tensor table" "$B" \
  'j["settings"]["bytes_convention"]=="streamed" and j["analysis"]["fit"]["bytes_convention"]=="streamed" and all(m["bytes_per_token"]["convention"]=="streamed" and m["bytes_per_token"]["source"].startswith("GGUF tensor table") and m["bytes_per_token"]["value"]==m["gguf"]["streamed_bytes"] for m in j["models"])'
json_check "bundle: the ladder, 3 models, >= 3x in bytes per token, a fit over 3 points" "$B" \
  '[m["name"] for m in j["models"]]==["tiny-Q4_0-seed1.gguf","tiny-Q8_0-seed1.gguf","tiny-F16-seed1.gguf"] and j["models"][2]["bytes_per_token"]["value"]>=3*j["models"][0]["bytes_per_token"]["value"] and j["analysis"]["fit"]["n_points"]==3'
json_check "bundle: defaults -p 128 -n 128, 3 reps, -ngl 0" "$B" \
  'j["settings"]["n_prompt"]==128 and j["settings"]["n_gen"]==128 and j["settings"]["reps"]==3 and j["settings"]["n_gpu_layers"]==0'
stamp() { stat -c '%n %Y.%y %s %i' "$S"/*.gguf; }
before=$(stamp)
"$RL_BIN" diagnose --synth "${base[@]}" -o "$work/s2" >/dev/null 2>"$work/s2.err"; check "second run: exit 0" 0 $?
expect "second run: ladder reused" "$(cat "$work/s2.err")" "synthetic ladder tiny .* \(reused\)"
[ "$before" = "$(stamp)" ] && echo "ok   second run: ladder files untouched" || fail "ladder files changed: $before / $(stamp)"
grep -q "synth: writing" "$work/s2.err" && fail "second run wrote a model" || echo "ok   second run wrote nothing"
truncate -s 1000 "$S/tiny-Q8_0-seed1.gguf"
"$RL_BIN" diagnose --synth "${base[@]}" -o "$work/s3" >/dev/null 2>"$work/s3.err"; check "damaged rung: exit 0" 0 $?
expect "damaged rung: written again" "$(grep 'synth: writing' "$work/s3.err" | head -1)" "tiny-Q8_0-seed1.gguf"
[ "$(grep -c 'planned' "$work/s3.err")" = 1 ] && echo "ok   damaged rung: only that one" || fail "damaged rung: $(cat "$work/s3.err")"

# ---- --quick: the first two default thread counts, -n 64, 1 repetition, quick ceiling
"$RL_BIN" diagnose --synth --quick --llama-bench "$FAKE" -o "$work/q" >/dev/null 2>"$work/q.err"; check "--quick: exit 0" 0 $?
json_check "--quick: -n 64, 1 rep, at most 2 thread counts starting at 1, a measured ceiling" "$work/q/bundle.json" \
  'j["settings"]["n_gen"]==64 and j["settings"]["reps"]==1 and 1<=len(j["settings"]["threads"])<=2 and j["settings"]["threads"][0]==1 and j["membw"]["kind"]=="measured"'
"$RL_BIN" diagnose --synth --quick --reps 2 -t 1 --file-bytes --gpu-layers 0 "${base[@]}" -o "$work/q2" >/dev/null 2>&1; check "--quick --reps 2 -t 1 --file-bytes: exit 0" 0 $?
json_check "--reps and -t win over --quick; --file-bytes counts resident bytes" "$work/q2/bundle.json" \
  'j["settings"]["reps"]==2 and j["settings"]["threads"]==[1] and j["settings"]["bytes_convention"]=="resident" and j["models"][0]["bytes_per_token"]["convention"]=="resident"'

# ---- the usual places: ~/models two levels deep and $LLAMA_MODELS; the spread picks three
mkdir -p "$HOME/models/org/repo" "$HOME/models/1/2/3" "$work/lm" "$HOME/models/.hidden"
cp "$S/tiny-Q4_0-seed1.gguf" "$HOME/models/org/repo/small.gguf"
cp "$S/tiny-Q8_0-seed1.gguf" "$HOME/models/mid.gguf"
cp "$S/tiny-F16-seed1.gguf" "$HOME/models/1/2/3/too-deep.gguf"
cp "$S/tiny-F16-seed1.gguf" "$HOME/models/.hidden/hidden.gguf"
cp "$S/tiny-F16-seed1.gguf" "$work/lm/big.gguf"
"$RL_BIN" synth --preset tiny --type F32 -q -o "$work/lm/huge.gguf"
LLAMA_MODELS="$work/nowhere:$work/lm" "$RL_BIN" diagnose "${base[@]}" -o "$work/d" >/dev/null 2>"$work/d.err"
check "search: exit 0" 0 $?
expect "search: found 4 (not too-deep, not hidden), using positions 0, 2 (1.5 to even) and 3" "$(cat "$work/d.err")" \
  "found 4 models, using 3: small.gguf, big.gguf, huge.gguf"
json_check "search: those three measured" "$work/d/bundle.json" '[m["name"] for m in j["models"]]==["small.gguf","big.gguf","huge.gguf"]'

# ---- operands: files in the order given, and a directory's models
"$RL_BIN" diagnose "${base[@]}" -o "$work/f" "$work/a.gguf" "$work/b.gguf" >/dev/null 2>&1; check "two files: exit 0" 0 $?
json_check "two files: measured as given, a fit" "$work/f/bundle.json" \
  '[m["name"] for m in j["models"]]==["a.gguf","b.gguf"] and j["analysis"]["fit"]["n_points"]==2'
"$RL_BIN" diagnose "${base[@]}" -o "$work/dir" "$work/lm" >/dev/null 2>&1; check "a directory: exit 0" 0 $?
json_check "a directory: its two models" "$work/dir/bundle.json" '[m["name"] for m in j["models"]]==["big.gguf","huge.gguf"]'

# ---- nothing decodes: exit 1, bundle kept; --resume continues a diagnose bundle
FAKE_MODE=exit1 "$RL_BIN" diagnose "${base[@]}" -t 1 -o "$work/none" "$work/a.gguf" >/dev/null 2>&1; check "no decode: exit 1" 1 $?
json_check "no decode: bundle kept" "$work/none/bundle.json" 'j["models"][0]["runs"][0]["status"]=="failed"'
"$RL_BIN" diagnose --resume --llama-bench "$FAKE" -o "$work/none" >/dev/null 2>&1; check "--resume: exit 0" 0 $?
json_check "--resume: now measured" "$work/none/bundle.json" 'j["models"][0]["runs"][0]["status"]=="ok" and j["command"]=="diagnose"'
"$RL_BIN" run "${base[@]}" -t 1 -m "$work/a.gguf" -o "$work/rb" >/dev/null 2>&1; check "a run bundle: exit 0" 0 $?
bad "--resume of a run bundle" 2 "a bundle of .run., not of .diagnose." --resume --llama-bench "$FAKE" -o "$work/rb"
finish
