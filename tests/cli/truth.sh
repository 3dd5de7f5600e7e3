#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: exit codes, --resume and validate tell the truth (issue 18, "Deliver, part 2").
#   exit codes: predict on a directory without models and advise --cpuinfo on an empty file
#   exit 2 (were 0); "-0" is refused like "+0" (was 0 for --depth and --gpu-layers).
#   --resume: a resume refused before measuring (no llama-bench, settings out of range, a model
#   path with control bytes or not a regular file) exits 2 or 3 with one line naming the field
#   and leaves bundle.json byte-identical, mtime included, and starts no llama-bench (was:
#   rewritten with status "failed"; settings out of range silently replaced).
#   validate: two bundles joined, trailing junk, a NUL inside a string exit 2 (were "valid");
#   bw_GBs = 1e308 and records' samples_ns slowed 25% under unchanged samples exit 1 (were
#   "valid": the tolerance overflowed; samples were only counted).
#   Written bundles: import of prefill-only llama-bench output, and run given records at other
#   threads or depth than asked (fake llama-bench), write bundles validate accepts (were
#   rejected: status "ok" without decode; records of another thread count kept).
# Each case was run against the binary before its fix and failed there.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-truth.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
EX="$RL_SRC/examples/x86-i7-12700H/bundle.json"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"

# ---- exit codes
mkdir -p "$work/empty"
CMD=predict
bad "predict: a directory without models" 2 \
  "^llama-roofline predict: error: .*/empty: a directory with no \.gguf files in it \(give a model file or a directory that holds some\)$" \
  --bundle "$EX" "$work/empty"
CMD=advise
: >"$work/cpuinfo"
bad "advise --cpuinfo: an empty file" 2 \
  "^llama-roofline advise: error: --cpuinfo .*/cpuinfo: the file is empty: give a saved /proc/cpuinfo text$" \
  --cpuinfo "$work/cpuinfo"
printf 'hello\nworld: 1\n' >"$work/notcpuinfo"
bad "advise --cpuinfo: a file that is not a cpuinfo" 2 \
  "^llama-roofline advise: error: --cpuinfo .*/notcpuinfo: no \"processor\" entry in it, so it is not a /proc/cpuinfo text: give a saved /proc/cpuinfo$" \
  --cpuinfo "$work/notcpuinfo"
CMD=run
for v in -0 +0 0x10 " 5" "5 "; do
  v=${v/+/\\+} # a literal + in the regex
  bad "run --depth '$v' refused" 2 "^llama-roofline run: error: --depth: '$v' is not valid: give a whole number from 0 to 16777216$" \
    --depth "${v/\\+/+}" -m "$work/a.gguf" --llama-bench "$FAKE" -o "$work/never"
  bad "run --reps '$v' refused" 2 "^llama-roofline run: error: --reps: '$v' is not valid: give a whole number from 1 to 1000$" \
    --reps "${v/\\+/+}" -m "$work/a.gguf" --llama-bench "$FAKE" -o "$work/never"
done
bad "run --gpu-layers -0 refused" 2 "--gpu-layers: '-0' is not valid: give a whole number from 0 to 100000$" \
  --gpu-layers -0 -m "$work/a.gguf" --llama-bench "$FAKE" -o "$work/never"
[ -e "$work/never" ] && fail "a refused option created the output directory" || echo "ok   nothing written"

# ---- --resume refused before measuring: the bundle byte-identical, no llama-bench started
FAKE_MODE=exit1 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -t 1 -o "$work/r" >/dev/null 2>&1
check "an unfinished run to resume: exit 1" 1 $?
cp -p "$work/r/bundle.json" "$work/r.orig"
untouched() { # description
  cmp -s "$work/r/bundle.json" "$work/r.orig" &&
    [ "$(stat -c %y "$work/r/bundle.json")" = "$(stat -c %y "$work/r.orig")" ] &&
    echo "ok   $1: bundle byte-identical, mtime kept" || fail "$1: the bundle changed"
  [ ! -s "$work/log" ] && echo "ok   $1: no llama-bench started" || fail "$1: llama-bench ran: $(cat "$work/log")"
  cp -p "$work/r.orig" "$work/r/bundle.json"
}
bad "--resume without llama-bench" 2 "nope/llama-bench" --resume --llama-bench "$work/nope/llama-bench" -o "$work/r"
untouched "--resume without llama-bench"
out=$(env -u LLAMA_BENCH HOME="$work/home" PATH=/usr/bin:/bin "$RL_BIN" run --resume -o "$work/r" 2>"$work/err"); check "--resume, llama-bench not found: exit 3" 3 $?
untouched "--resume, llama-bench not found"
edit() { # python statement over j (the bundle), written back in place
  python3 - "$work/r/bundle.json" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
  cp -p "$work/r/bundle.json" "$work/r.orig"
  crafted "$work/r.orig"
}
resume_bad() { # description, python edit, regex for the one-line error
  edit "$2"
  FAKE_LOG="$work/log" bad "$1" 2 "$3" --resume --llama-bench "$FAKE" -o "$work/r"
  untouched "$1"
}
pristine=$(cat "$work/r.orig")
resume_bad "--resume: threads 0 in the bundle" 'j["settings"]["threads"]=[1,0]' \
  "^llama-roofline run: error: .*/r/bundle.json: settings.threads\[1\] is not a whole number from 1 to 4096: not resumed \(the bundle is left as it is\)$"
resume_bad "--resume: no thread list" 'j["settings"]["threads"]=[]' \
  "settings.threads is not a list of 1 to 16 whole numbers: not resumed"
resume_bad "--resume: reps out of range" 'j["settings"]["threads"]=[1]; j["settings"]["reps"]=5000' \
  "settings.reps is not a whole number from 1 to 1000: not resumed"
resume_bad "--resume: n_gen not a number" 'j["settings"]["reps"]=3; j["settings"]["n_gen"]="many"' \
  "settings.n_gen is not a whole number from 1 to 16777216: not resumed"
resume_bad "--resume: a model path with control bytes" \
  'j["settings"]["n_gen"]=128; j["models"][0]["path"]=j["models"][0]["path"]+"\n\u001b[31m"' \
  "^llama-roofline run: error: .*/r/bundle.json: models\[0\]\.path is a name with control characters: not resumed \(the bundle is left as it is\)$"
resume_bad "--resume: a model path that is a directory" 'j["models"][0]["path"]=sys.argv[1].rsplit("/",2)[0]' \
  "models\[0\]\.path is not a regular file that exists: not resumed"
printf '%s' "$pristine" >"$work/r/bundle.json"
python3 - "$work/r/bundle.json" "$work/a.gguf" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["models"][0]["path"] = sys.argv[2]
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
"$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/r" >/dev/null 2>&1; check "--resume of the repaired bundle: exit 0" 0 $?
CMD=diagnose
"$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1 -o "$work/d" "$work/a.gguf" >/dev/null 2>&1
check "diagnose to resume: exit 0" 0 $?
cp -p "$work/d/bundle.json" "$work/d.orig"
bad "diagnose --resume without llama-bench" 2 "nope/llama-bench" --resume --llama-bench "$work/nope/llama-bench" -o "$work/d"
cmp -s "$work/d/bundle.json" "$work/d.orig" && echo "ok   diagnose: bundle byte-identical" || fail "diagnose: the bundle changed"

# ---- validate refuses what is not one bundle, and re-derives what it checks
CMD=validate
cat "$EX" "$EX" >"$work/two.json"
bad "validate: two bundles joined" 2 \
  "^llama-roofline validate: error: .*/two.json: not valid JSON \(more text after the JSON value at byte [0-9]+: two files joined or trailing junk\)$" \
  "$work/two.json"
{ cat "$EX"; echo '} junk'; } >"$work/junk.json"
bad "validate: trailing junk" 2 "junk.json: not valid JSON \(more text after the JSON value" "$work/junk.json"
python3 - "$EX" "$work/nul.json" <<'PY'
import sys
t = open(sys.argv[1], "rb").read()
i = t.index(b'"import"') + 3
open(sys.argv[2], "wb").write(t[:i] + b"\x00" + t[i:])
PY
bad "validate: a NUL inside a string" 2 "nul.json: not valid JSON \(a NUL byte at byte [0-9]+\)$" "$work/nul.json"
python3 - "$EX" "$work/huge.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["analysis"]["fit"]["bw_GBs"] = 1e308
json.dump(j, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/huge.json" 2>&1); check "validate: bw_GBs 1e308" 1 $?
expect "validate: bw_GBs 1e308 named" "$out" "huge.json: analysis.fit.bw_GBs: bw_GBs is not bw_bytes_s / 1e9"
python3 - "$work/r/bundle.json" "$work/slow.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for rec in j["models"][0]["runs"][0]["records"]:
    rec["samples_ns"] = [int(v * 1.25) for v in rec["samples_ns"]]
json.dump(j, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/slow.json" 2>&1); check "validate: samples_ns slowed 25%" 1 $?
expect "validate: slowed samples named" "$out" \
  "slow.json: models\[0\]\.runs\[0\]\.decode\.samples\[0\]: 2 samples are not re-derived from the decode records' samples_ns"
expect "validate: slowed prefill named" "$out" "runs\[0\]\.prefill\.samples\[0\]: 2 samples are not re-derived"
crafted "$work/two.json" "$work/junk.json" "$work/nul.json" "$work/huge.json" "$work/slow.json"

# ---- what the tool writes passes its own validate (finish sweeps every bundle under $work)
head -1 "$RL_SRC/tests/fixtures/lbench/real-jsonl.txt" >"$work/prefill.jsonl"
"$RL_BIN" import "$work/prefill.jsonl" -o "$work/prefill.json" >/dev/null 2>&1; check "import prefill-only" 0 $?
json_check "import prefill-only: the run failed, not ok" "$work/prefill.json" \
  'j["models"][0]["runs"][0]["status"]=="failed" and "prefill only" in j["models"][0]["runs"][0]["error"]'
for mode in wrong-threads wrong-depth; do
  FAKE_MODE=$mode FAKE_MODE_AT=2 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" \
    -t 1,2 -o "$work/$mode" >/dev/null 2>"$work/$mode.err"
  check "$mode: exit 0 (the 1-thread run measured)" 0 $?
  json_check "$mode: the 2-thread run failed, its records not kept" "$work/$mode/bundle.json" \
    "all(r['status']=='failed' and r['records']==[] and 'not the 2 threads and depth 0 asked' in r['error'] for r in j['models'][0]['runs'] if r['threads']==2)"
  expect "$mode: said on stderr" "$(cat "$work/$mode.err")" "t=2 depth 0: llama-bench printed no decode record: its records are at n_threads [0-9]+, n_depth [0-9]+, not the 2 threads and depth 0 asked \(not kept\)$"
done

finish
