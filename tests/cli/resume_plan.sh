#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: --resume and the options given with it (issue 18). `run --resume -o DIR -t 1,4` used to
# take the bundle's settings silently. Now a setting option that differs from the bundle's
# plan is exit 2 with one line naming the option, its value, the bundle's, and what to do; the
# bundle is byte-identical (cmp, mtime) and no llama-bench started. Options equal to the plan
# are accepted (and the resume runs). What the bundle planned and the command line did not
# repeat is the bundle's: --bench-arg values and the bytes convention (diagnose --file-bytes)
# used to be the command line's defaults on a resume.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-resume-plan.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
E="^llama-roofline [a-z]+: error: "
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
cp "$work/a.gguf" "$work/c.gguf"

# a run that measured nothing (every llama-bench exits 1): the bundle to resume
FAKE_MODE=exit1 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -m "$work/b.gguf" \
  -t 1,2 --bench-arg=--mmap --bench-arg=0 -o "$work/r" >/dev/null 2>&1
check "run to resume: exit 1 (nothing decoded)" 1 $?
cp -p "$work/r/bundle.json" "$work/r.orig"; cp -p "$work/r.orig" "$work/r.saved"
untouched() { # description
  cmp -s "$work/r/bundle.json" "$work/r.orig" &&
    [ "$(stat -c %y "$work/r/bundle.json")" = "$(stat -c %y "$work/r.orig")" ] &&
    echo "ok   $1: bundle byte-identical, mtime kept" || fail "$1: the bundle changed"
  [ ! -s "$work/log" ] && echo "ok   $1: no llama-bench started" || fail "$1: llama-bench ran: $(cat "$work/log")"
  cp -p "$work/r.orig" "$work/r/bundle.json"
  rm -f "$work/log"
}
refused() { # description, regex after "error: ", options given with --resume...
  local what=$1 re=$2; shift 2
  FAKE_LOG="$work/log" bad "$what" 2 "${E}$re" --resume --llama-bench "$FAKE" -o "$work/r" "$@"
  untouched "$what"
}
CMD=run
D="$work/r"
tail=": drop %s to resume it with its own plan, or start a new bundle with another -o$"
# shellcheck disable=SC2059
refused "-t 1,4" "--threads 1,4 does not match the bundle in $D, planned with threads \[1,2\]$(printf "$tail" --threads)" -t 1,4
refused "--threads 1" "--threads 1 does not match the bundle in $D, planned with threads \[1,2\]: drop --threads" --threads 1
refused "--depth 0,512" "--depth 0,512 does not match the bundle in $D, planned with depths \[0\]: drop --depth" --depth 0,512
refused "--reps 5" "--reps 5 does not match the bundle in $D, planned with reps 3: drop --reps" --reps 5
refused "--n-prompt 64" "--n-prompt 64 does not match the bundle in $D, planned with n_prompt 128: drop --n-prompt" --n-prompt 64
refused "--n-gen 64" "--n-gen 64 does not match the bundle in $D, planned with n_gen 128: drop --n-gen" --n-gen 64
refused "--gpu-layers 1" "--gpu-layers 1 does not match the bundle in $D, planned with n_gpu_layers 0: drop --gpu-layers" --gpu-layers 1
refused "--bench-arg -fa" "--bench-arg \(bench_args \[\"-fa\"\]\) does not match the bundle in $D, planned with bench_args \[\"--mmap\",\"0\"\]: drop --bench-arg" --bench-arg=-fa
refused "--timeout 10" "--timeout 10 does not match the bundle in $D, planned with timeout_s 3600: drop --timeout" --timeout 10
refused "--target-ci 5" "--target-ci 5 does not match the bundle in $D, planned with target_ci_pct none: drop --target-ci" --target-ci 5
refused "--peak-bw 41" "--peak-bw 41 does not match the bundle in $D, planned with ceiling --peak-bw 40: drop --peak-bw" --peak-bw 41
refused "--skip-membw" "--skip-membw does not match the bundle in $D, planned with ceiling --peak-bw 40: drop --skip-membw" --skip-membw
refused "-m one model of two" "-m \($work/a.gguf\) does not match the bundle in $D, planned with models $work/a.gguf, $work/b.gguf: drop -m" -m "$work/a.gguf"
refused "-m another file" "-m \($work/a.gguf, $work/c.gguf\) does not match the bundle in $D, planned with models" -m "$work/a.gguf" -m "$work/c.gguf"
refused "-m one model twice" "-m \($work/a.gguf, $work/a.gguf\) does not match" -m "$work/a.gguf" -m "$work/a.gguf"
# a model file replaced by another of a different size: not the model the bundle measured
cp "$work/b.gguf" "$work/a.saved.gguf"; cp "$work/a.gguf" "$work/a.keep"; cp "$work/b.gguf" "$work/a.gguf"
refused "a model file replaced" "$work/r/bundle.json: models\\[0\\].path $work/a.gguf holds $(stat -c %s "$work/b.gguf") bytes, not the $(stat -c %s "$work/a.keep") of the model this bundle measured: put that model back, or start a new bundle with another -o \\(the bundle is left as it is\\)$"
cp "$work/a.keep" "$work/a.gguf"; rm -f "$work/a.saved.gguf" "$work/a.keep"
# a measured ceiling (crafted in place of the --peak-bw one): --quick-membw must match how
python3 - "$work/r/bundle.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["membw"] = {"kind": "measured", "peak_read_GBs": 40.0, "quick": False}
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
cp -p "$work/r/bundle.json" "$work/r.measured"; crafted "$work/r.measured"; cp -p "$work/r.measured" "$work/r.orig"
refused "--quick-membw on a full ceiling" "--quick-membw does not match the bundle in $D, planned with ceiling measured: drop --quick-membw" --quick-membw
refused "--peak-bw 40 on a measured ceiling" "--peak-bw 40 does not match the bundle in $D, planned with ceiling measured: drop --peak-bw" --peak-bw 40
cp -p "$work/r.saved" "$work/r.orig"; cp -p "$work/r.saved" "$work/r/bundle.json"
refused "--quick-membw on a --peak-bw ceiling (no effect): accepted, then --reps 4 refused" "--reps 4 does not match" --quick-membw --reps 4
refused "an equal option beside a differing one" "--reps 4 does not match the bundle in $D, planned with reps 3" -t 2,1 --reps 4
# hand-edited bundles the resume refused only after rewriting the bundle (found by the
# adversarial pass): a bench arg llama-roofline cannot pass, two models with one id
edit() { # python statement over j, applied to a copy of r.saved that becomes the bundle
  python3 - "$work/r.saved" "$work/r/bundle.json" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
  cp -p "$work/r/bundle.json" "$work/r.orig"; crafted "$work/r.orig"
}
edit 'j["settings"]["bench_args"] = ["--mmap", "-o", "json"]'
refused "bundle bench_args with -o" "$work/r/bundle.json: settings.bench_args\\[1\\] -o is refused \\(llama-roofline chooses the output format\\): not resumed \\(the bundle is left as it is\\)$"
edit 'j["models"][1]["id"] = j["models"][0]["id"]'
refused "bundle models sharing an id" "$work/r/bundle.json: models\\[1\\].id is also an earlier model's: not resumed \\(the bundle is left as it is\\)$"
cp -p "$work/r.saved" "$work/r.orig"; cp -p "$work/r.saved" "$work/r/bundle.json"

# equal to the plan: accepted, and the resume measures the rest with the bundle's bench args
FAKE_LOG="$work/log" "$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/r" -t 2,1 --depth 0 --reps 3 \
  --n-prompt 128 --n-gen 128 --gpu-layers 0 --timeout 3600 --peak-bw 40 --bench-arg=--mmap --bench-arg=0 \
  -m "$work/b.gguf" -m "$work/a.gguf" >"$work/out" 2>&1
check "options equal to the plan: resumed" 0 $?
[ "$(wc -l <"$work/log")" = 4 ] && echo "ok   equal options: the 4 runs measured" || fail "equal options: runs: $(cat "$work/log")"
json_check "resumed with the bundle's bench args" "$work/r/bundle.json" \
  'all(r["status"] == "ok" and r["argv"][-2:] == ["--mmap", "0"] for m in j["models"] for r in m["runs"])'
cp -p "$work/r.orig" "$work/r/bundle.json"
"$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/r" >/dev/null 2>&1; check "resume with no option" 0 $?
json_check "no option: the bundle's bench args kept" "$work/r/bundle.json" \
  'all(r["argv"][-2:] == ["--mmap", "0"] for m in j["models"] for r in m["runs"])'

# the bundle's timeout is the resume's (a hang ends after its 1 s, not the 3600 s default) and
# --max-reps equal to a --target-ci bundle's is accepted
FAKE_MODE=exit1 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -t 1 --timeout 1 \
  --target-ci 5 --max-reps 6 -o "$work/t" >/dev/null 2>&1
check "a run with --timeout 1 --target-ci 5 --max-reps 6 to resume" 1 $?
cp -p "$work/t/bundle.json" "$work/t.orig"
FAKE_MODE=hang timeout 60 "$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/t" --max-reps 6 >/dev/null 2>&1
check "resumed with the bundle's 1 s timeout and an equal --max-reps: ends (exit 1, the run timed out)" 1 $?
json_check "the resumed run timed out after the bundle's 1 s" "$work/t/bundle.json" \
  'j["models"][0]["runs"][0]["status"] == "timeout" and j["models"][0]["runs"][0]["elapsed_s"] < 30'
cp -p "$work/t.orig" "$work/t/bundle.json"; rm -f "$work/log"
FAKE_LOG="$work/log" bad "--max-reps 7 on a --max-reps 6 bundle" 2 "${E}--max-reps 7 does not match the bundle in $work/t, planned with max_reps 6: drop --max-reps" \
  --resume --llama-bench "$FAKE" -o "$work/t" --max-reps 7
[ ! -s "$work/log" ] && echo "ok   --max-reps 7: no llama-bench started" || fail "--max-reps 7: llama-bench ran"

# ---- diagnose --resume: the same rule
rm -f "$work/log"
FAKE_MODE=exit1 "$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1 --file-bytes -o "$work/d" \
  "$work/a.gguf" "$work/b.gguf" >/dev/null 2>&1
check "diagnose to resume: exit 1" 1 $?
cp -p "$work/d/bundle.json" "$work/d.orig"
CMD=diagnose
D="$work/d"
drefused() { # description, regex after "error: ", options...
  local what=$1 re=$2; shift 2
  FAKE_LOG="$work/log" bad "$what" 2 "${E}$re" --resume --llama-bench "$FAKE" -o "$work/d" "$@"
  cmp -s "$work/d/bundle.json" "$work/d.orig" && echo "ok   $what: bundle byte-identical" || fail "$what: the bundle changed"
  [ ! -s "$work/log" ] && echo "ok   $what: no llama-bench started" || fail "$what: llama-bench ran"
  cp -p "$work/d.orig" "$work/d/bundle.json"; rm -f "$work/log"
}
drefused "diagnose -t 1,2" "--threads 1,2 does not match the bundle in $D, planned with threads \[1\]: drop --threads to resume it with its own plan, or start a new bundle with another -o$" -t 1,2
drefused "diagnose --quick" "--quick \(n_gen 64\) does not match the bundle in $D, planned with n_gen 128: drop --quick" --quick
drefused "diagnose --reps 1" "--reps 1 does not match the bundle in $D, planned with reps 3: drop --reps" --reps 1
drefused "diagnose --timeout 5" "--timeout 5 does not match the bundle in $D, planned with timeout_s 3600: drop --timeout" --timeout 5
drefused "diagnose --skip-membw" "--skip-membw does not match the bundle in $D, planned with ceiling --peak-bw 40: drop --skip-membw" --skip-membw
"$RL_BIN" diagnose --resume --llama-bench "$FAKE" -o "$work/d" -t 1 --file-bytes --reps 3 --peak-bw 40 >/dev/null 2>&1
check "diagnose: options equal to the plan accepted" 0 $?
cp -p "$work/d.orig" "$work/d/bundle.json"
"$RL_BIN" diagnose --resume --llama-bench "$FAKE" -o "$work/d" >/dev/null 2>&1; check "diagnose: resume with no option" 0 $?
json_check "diagnose: the bundle's bytes convention kept (resident, not diagnose's streamed default)" "$work/d/bundle.json" \
  'j["settings"]["bytes_convention"] == "resident" and j["analysis"]["fit"]["bytes_convention"] == "resident" and all(m["bytes_per_token"]["convention"] == "resident" for m in j["models"])'
# a streamed bundle refuses --file-bytes; a quick one accepts --quick
FAKE_MODE=exit1 "$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1 --quick -o "$work/d" \
  "$work/a.gguf" "$work/b.gguf" >/dev/null 2>&1
cp -p "$work/d/bundle.json" "$work/d.orig"
drefused "diagnose --file-bytes on a streamed bundle" "--file-bytes \(bytes_convention \"resident\"\) does not match the bundle in $D, planned with bytes_convention \"streamed\": drop --file-bytes" --file-bytes
"$RL_BIN" diagnose --resume --quick --llama-bench "$FAKE" -o "$work/d" >/dev/null 2>&1
check "diagnose: --quick on a quick bundle accepted" 0 $?
finish
