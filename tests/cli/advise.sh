#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `advise`. --list-cores lists the three matrix cores with their scales, threads and rows;
# --core gives one forced block with the pinned table; --cpuinfo with the saved texts
# (tests/fixtures/cpuinfo) gives one block for a Raspberry Pi 5 (exact), two for an Alder Lake
# laptop (P and E), EXTRAPOLATED for an A720, and for an AMD Zen part the recipe and no table;
# --json has {tool, detection, advice[]} with one block per core and its ranking fastest first
# (and advice [] plus a recipe on unknown silicon); --markdown; -o FILE writes the output
# there; --plan on a synth F16 prints one llama-quantize command per format, on a quantized
# file exits 2 with the reason; --measure with fewer than two files exits 2; with the fake
# llama-bench it writes a bundle `validate` accepts (and refuses once its advice is broken)
# and a report with the advice section; Ctrl-C during --measure exits 130 with the bundle
# (state interrupted, the advice from what was measured) and the report written; bad --core,
# bad --threads, a --threads list without --measure, --json with --markdown exit 2 with one
# line on stderr. --measure --predict ranks the two-roof predictions from a calibration of the
# files' types (each rate by hand from the fake's kernels), measures no file, writes a bundle
# validate accepts (and refuses once a prediction is changed) and reuses the cached
# calibration the second time. Checked to fail: with rl_evidence_text's "EXTRAPOLATED" removed (the A720
# check) and with the ranking sort reversed (the --json fastest-first check).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-advise.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=advise
fx="$RL_SRC/tests/fixtures/cpuinfo"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"

# ---- help and usage errors
out=$("$RL_BIN" advise --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline advise"
bad "bad --core" 2 "no measurements for core 'zen9'. Known: cortex-a76, golden-cove, gracemont" --core zen9
bad "--threads 0" 2 "^llama-roofline advise: error: --threads: '0'" --threads 0
bad "--threads x" 2 "--threads: 'x'" --threads x
bad "--threads list without --measure" 2 "give one thread count" --threads 2,4
bad "--scale 0" 2 "--scale" --scale 0
bad "--json with --markdown" 2 "exclude each other" --json --markdown
bad "an operand" 2 "advise takes no operands" foo
bad "unknown option" 2 "unknown option '--frobnicate'" --frobnicate
bad "missing --cpuinfo file" 2 "--cpuinfo $work/nope: cannot be read" --cpuinfo "$work/nope"
# a kernel pseudo-file says 0 bytes in stat but has content: --cpuinfo /proc/cpuinfo reads it
# (it was "the file is empty", exit 2, found by the adversarial pass)
if [ -r /proc/cpuinfo ] && grep -q '^processor' /proc/cpuinfo; then
  out=$("$RL_BIN" advise --cpuinfo /proc/cpuinfo --json 2>"$work/pc.err"); check "--cpuinfo /proc/cpuinfo: exit 0" 0 $?
  expect "--cpuinfo /proc/cpuinfo: a detection" "$out" '"detection"'
fi

# ---- --list-cores
out=$("$RL_BIN" advise --list-cores); check "--list-cores" 0 $?
expect "header" "$out" "^cores with measurements in this build:$"
expect "cortex-a76" "$out" "^  cortex-a76 +Arm Cortex-A76 +scales \[0.5, 1.5\], threads \[2, 3, 4\], 34 rows$"
expect "golden-cove" "$out" "^  golden-cove +Intel Golden Cove \(P-core\) +scales \[0.5, 1.5\], threads \[2, 4, 6\], 36 rows$"
expect "gracemont" "$out" "^  gracemont +Intel Gracemont \(E-core\) +scales \[0.5, 1.5\], threads \[2, 4\], 28 rows$"

# ---- --core: one forced block, the pinned A76 table
out=$("$RL_BIN" advise --core cortex-a76 --cpuinfo "$fx/ryzen-5800x.txt"); check "--core cortex-a76" 0 $?
expect "forced evidence" "$out" "Evidence: you named this core, so it may not be the one in this"
expect "block title" "$out" "ARM CORTEX-A76, 2 THREADS, 0.5B CLASS"
expect "Q4_0 first" "$out" "^    Q4_0 +34\.7 +best +330\.2 +12\.0 +- +100% +4\.50 +21\.71 +142  <$"
expect "IQ4_XS tied" "$out" "^    IQ4_XS +34\.2 +-1%= "
expect "quality pick" "$out" "Best quality without giving up speed: IQ4_XS"
expect "composition warning" "$out" "Read this table knowing what is in the files"
expect "matched bytes" "$(tr -s '\n ' '  ' <<<"$out")" "worth 4% at 2 threads, 3% at 3 threads, 3% at 4 threads"
out=$("$RL_BIN" advise --core golden-cove --threads 2 --scale 0.5); check "--core golden-cove --threads 2" 0 $?
expect "2 threads as requested" "$out" "Threads: 2 \(as requested; measured at 2, 4, 6\)"
expect "25% spread" "$(tr -s '\n ' '  ' <<<"$out")" "worth 25% at 2 threads, 6% at 4 threads, 11% at 6 threads"
out=$("$RL_BIN" advise --core cortex-a76 --threads 16 --scale 7); check "--threads 16 --scale 7" 0 $?
expect "nearest threads, 1.5B" "$out" "2 THREADS, 1.5B CLASS|4 THREADS, 1.5B CLASS"
expect "nearest measured" "$out" "nearest measured to 16"

# ---- detection from saved cpuinfo texts
out=$("$RL_BIN" advise --cpuinfo "$fx/rpi5.txt"); check "Raspberry Pi 5" 0 $?
expect "pi5 exact" "$out" "Evidence: measured on this machine"
expect "pi5 one block" "$(grep -c 'THREADS, 0.5B CLASS' <<<"$out")" "^1$"
out=$("$RL_BIN" advise --cpuinfo "$fx/i7-12700H.txt"); check "Alder Lake laptop" 0 $?
expect "two blocks" "$(grep -c 'THREADS, 0.5B CLASS' <<<"$out")" "^2$"
expect "P-core block" "$out" "INTEL GOLDEN COVE \(P-CORE\), 6 THREADS"
expect "E-core block" "$out" "INTEL GRACEMONT \(E-CORE\), 4 THREADS"
out=$("$RL_BIN" advise --cpuinfo "$fx/a720.txt"); check "Cortex-A720" 0 $?
expect "extrapolated" "$out" "EXTRAPOLATED from a related core"
out=$("$RL_BIN" advise --cpuinfo "$fx/ryzen-5800x.txt"); check "AMD Zen 3" 0 $?
expect "recipe" "$out" "NO MEASUREMENT FOR THIS SILICON"
expect "recipe command" "$out" "llama-roofline advise --measure --synth"
grep -q "Fastest:" <<<"$out" && fail "unknown silicon printed a table" || echo "ok   no table for unknown silicon"
LC_ALL=C grep -q '[^ -~]' <<<"$out" && fail "text is not ASCII" || echo "ok   text is ASCII"
expect "cross-core facts" "$(tr -s '\n ' '  ' <<<"$out")" "only 3 contain the type their name claims.*Arm Cortex-A76 16%; Intel Golden Cove \(P-core\) 18%; Intel Gracemont \(E-core\) 30%"

# ---- --json
"$RL_BIN" advise --cpuinfo "$fx/i7-12700H.txt" --json >"$work/adl.json"; check "--json" 0 $?
json_check "json shape" "$work/adl.json" 'set(j) >= {"tool","detection","advice"} and len(j["advice"]) == 2'
json_check "json cores" "$work/adl.json" '[a["core"] for a in j["advice"]] == ["golden-cove","gracemont"]'
json_check "json ranking fastest first" "$work/adl.json" \
  'all([r["format"] for r in a["rows"]] == a["ranking"] and a["rows"] == sorted(a["rows"], key=lambda r: -r["tok_s"]) for a in j["advice"])'
json_check "json P-core fastest Q4_0, E-core IQ4_NL" "$work/adl.json" \
  'j["advice"][0]["fastest"] == "Q4_0" and j["advice"][1]["fastest"] == "IQ4_NL"'
json_check "json detection hybrid" "$work/adl.json" 'j["detection"]["hybrid"] is True and j["detection"]["model"] == 154'
"$RL_BIN" advise --cpuinfo "$fx/ryzen-5800x.txt" --json >"$work/amd.json"; check "--json unknown" 0 $?
json_check "json unknown: no advice, a recipe" "$work/amd.json" 'j["advice"] == [] and len(j["recipe"]["commands"]) == 3'
"$RL_BIN" advise --core gracemont --json -o "$work/out.json" >"$work/stdout"; check "--json -o FILE" 0 $?
[ -s "$work/stdout" ] && fail "-o FILE also printed to stdout" || echo "ok   -o FILE: nothing on stdout"
json_check "-o FILE holds the JSON" "$work/out.json" 'j["advice"][0]["core"] == "gracemont" and j["advice"][0]["evidence"] == "forced"'

# ---- --markdown
out=$("$RL_BIN" advise --cpuinfo "$fx/rpi5.txt" --markdown); check "--markdown" 0 $?
expect "md title" "$out" "^# Which quantization format to run$"
expect "md block" "$out" "^## Arm Cortex-A76 \(Raspberry Pi 5\), 2 threads, 0.5B class$"
expect "md table" "$out" "^\| \*\*Q4_0\*\* \| 34\.7 \| best \| 330\.2 \|"

# ---- --plan
"$RL_BIN" synth --preset tiny --type F16 -q -o "$work/tiny-f16.gguf" || fail "synth F16"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/tiny-q4.gguf" || fail "synth Q4_0"
out=$("$RL_BIN" advise --plan "$work/tiny-f16.gguf"); check "--plan F16" 0 $?
expect "plan source" "$out" "Source: $work/tiny-f16.gguf, which reports itself as F16"
for f in Q4_0 IQ4_NL IQ4_XS Q3_K_M Q4_K_M Q6_K Q8_0; do
  expect "plan $f" "$out" "llama-quantize $work/tiny-f16.gguf $work/tiny-$f.gguf $f$"
done
expect "plan measure" "$out" "llama-roofline advise --measure -m $work/tiny-Q4_0.gguf"
bad "--plan on a quantized file" 2 "reports itself as Q4_0, already quantized: the wrong starting point.*--allow-requantize.*38%" --plan "$work/tiny-q4.gguf"
bad "--plan on a missing file" 2 "--plan: point it at the F16 or BF16 GGUF" --plan "$work/none.gguf"

# ---- --measure with the fake llama-bench
bad "--measure, one file" 2 "at least two files to compare. One file has no ranking" --measure --llama-bench "$FAKE" -m "$work/tiny-q4.gguf"
bad "--measure, no file" 2 "--measure needs files" --measure --llama-bench "$FAKE"
bad "-m without --measure" 2 "go with --measure" -m "$work/tiny-q4.gguf"
"$RL_BIN" synth --preset tiny --type Q4_0 --seed 2 -q -o "$work/tiny-q4b.gguf" || fail "synth Q4_0 seed 2"
out=$("$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/tiny-q4.gguf" -m "$work/tiny-q4b.gguf" \
  -m "$work/tiny-f16.gguf" -t 1,2 --dir "$work/m" 2>"$work/err"); check "--measure (fake)" 0 $?
expect "measured header" "$out" "measured on this machine"
expect "same bytes" "$out" "Same bytes: "
expect "bundle path" "$out" "bundle: $work/m/bundle.json"
"$RL_BIN" validate "$work/m/bundle.json" >/dev/null; check "measured bundle validates" 0 $?
json_check "bundle advice" "$work/m/bundle.json" \
  'j["command"] == "advise" and j["advice"]["kind"] == "derived" and [t["threads"] for t in j["advice"]["tables"]] == [1, 2]'
json_check "rows carry the run's decode rate" "$work/m/bundle.json" \
  'all(r["decode"]["kind"] == "measured" and len(r["decode"]["samples"]) >= 1 for t in j["advice"]["tables"] for r in t["rows"])'
grep -q 'id="advice"' "$work/m/report.html" && echo "ok   report has the advice section" || fail "no advice section in the report"
python3 - "$work/m/bundle.json" "$work/broken.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["advice"]["tables"][0]["rows"]
r[0]["tok_s"] *= 2          # no longer the run's mean
r[1]["model_id"] = "m99"    # names no model
json.dump(j, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/broken.json"); check "broken advice: validate exit 1" 1 $?
expect "validate: tok_s vs decode mean" "$out" "advice\.tables\[0\]\.rows\[0\]\.tok_s: is not decode\.stats\.mean"
expect "validate: unknown model id" "$out" "advice\.tables\[0\]\.rows\[1\]\.model_id: names no model"
"$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/tiny-q4.gguf" -m "$work/tiny-f16.gguf" \
  -t 1 --dir "$work/m2" --json >"$work/m2.json" 2>/dev/null; check "--measure --json" 0 $?
json_check "--measure --json: advice[] with a ranking" "$work/m2.json" \
  'len(j["advice"]) == 1 and j["advice"][0]["ranking"] and j["advice"][0]["tables"][0]["matched_bytes"]["available"] is False'
FAKE_MODE=exit1 "$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/tiny-q4.gguf" \
  -m "$work/tiny-f16.gguf" -t 1 --dir "$work/m3" >/dev/null 2>&1; check "--measure, nothing decoded: exit 1" 1 $?
"$RL_BIN" validate "$work/m3/bundle.json" >/dev/null; check "nothing-decoded bundle validates" 0 $?

# ---- --measure --predict: calibrate the files' types with the fake (FAKE_CALIB: every type
# 40 GB/s in cache, 10 MB of it, 20 us base + 5 us per layer), rank the two-roof predictions:
# each tiny file (under 10 MB) takes exactly 20 + 5 x n_layer + bytes / 40000 us per token
bad "--predict without --measure" 2 "--predict goes with --measure" --predict
export LLAMA_ROOFLINE_CALIB_LLC_MIB=2 RL_BIN
FAKE_CALIB=20:5:40:25:10000000 "$RL_BIN" advise --measure --predict --llama-bench "$FAKE" \
  -m "$work/tiny-q4.gguf" -m "$work/tiny-f16.gguf" -t 1 --dir "$work/p" >"$work/p.out" 2>"$work/p.err"
check "--predict (fake)" 0 $?
expect "--predict: header" "$(cat "$work/p.out")" "predicted for this machine from its calibration"
expect "--predict: the caveat" "$(cat "$work/p.out")" "Predicted, not measured"
expect "--predict: the plan" "$(cat "$work/p.err")" "^advise: predicting 2 files from a calibration of the 2 types they hold at 1 thread count"
expect "--predict: calibrated" "$(cat "$work/p.err")" "^advise: calibration: 2 measured, 0 reused"
json_check "--predict: basis, ranking, each rate by hand" "$work/p/bundle.json" \
  'j["advice"]["basis"] == "predicted" and j["advice"]["ranking"] == ["Q4_0", "F16"] and all(abs(r["tok_s"] * (20 + 5 * m["gguf"]["n_layer"] + m["gguf"]["streamed_bytes"] / 40000) / 1e6 - 1) < 0.005 and r["two_roof"]["tok_s"] == r["tok_s"] and "decode" not in r for r in j["advice"]["tables"][0]["rows"] for m in j["models"] if m["id"] == r["model_id"]) and all(m["runs"] == [] for m in j["models"])'
"$RL_BIN" validate "$work/p/bundle.json" >/dev/null; check "--predict bundle validates" 0 $?
grep -q "Which quantization format, predicted from the calibration" "$work/p/report.html" &&
  echo "ok   --predict: the report says predicted" || fail "--predict: report heading"
python3 - "$work/p/bundle.json" "$work/p-bad.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["advice"]["tables"][0]["rows"]:
    r["tok_s"] *= 1.1
    r["two_roof"]["tok_s"] *= 1.1
json.dump(j, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/p-bad.json" 2>&1); check "--predict: a changed prediction refused" 1 $?
expect "--predict: what the calibration gives" "$out" "two_roof.tok_s: is not what the calibration gives the model"
FAKE_CALIB=20:5:40:25:10000000 "$RL_BIN" advise --measure --predict --llama-bench "$FAKE" \
  -m "$work/tiny-q4.gguf" -m "$work/tiny-f16.gguf" -t 1 --dir "$work/p2" >/dev/null 2>"$work/p2.err"
check "--predict again" 0 $?
expect "--predict again: the calibration reused" "$(cat "$work/p2.err")" "^advise: calibration: 0 measured, 2 reused"
unset LLAMA_ROOFLINE_CALIB_LLC_MIB

# ---- Ctrl-C during --measure keeps what was measured, with its advice and report
FAKE_MODE=hang FAKE_MODE_AT=2 "$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/tiny-q4.gguf" \
  -m "$work/tiny-f16.gguf" -t 1,2 --dir "$work/int" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
  python3 - "$work/int/bundle.json" 2>/dev/null <<'PY' && break
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["threads"] == 2 and len(r.get("records", [])) == 1 for r in j["models"][0]["runs"]) else 1)
PY
  sleep 0.1
done
kill -INT "$pid"; wait "$pid"; check "Ctrl-C: exit 130" 130 $?
json_check "Ctrl-C: state interrupted, the 1-thread table kept" "$work/int/bundle.json" \
  'j["status"]["state"] == "interrupted" and [t["threads"] for t in j["advice"]["tables"]] == [1] and j["advice"]["tables"][0]["rows"][0]["model_id"] == "m1"'
"$RL_BIN" validate "$work/int/bundle.json" >/dev/null; check "Ctrl-C: bundle validates" 0 $?
[ -s "$work/int/report.html" ] && echo "ok   Ctrl-C: report written" || fail "Ctrl-C: no report"
finish
