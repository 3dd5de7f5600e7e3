#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `run` against a fake llama-bench (tests/lib/fake-llama-bench, which prints the real
# pinned llama-bench's records and then crashes, hangs, floods, ... on request). Each fault is
# recorded in its run with the reason and exit code; the bundle keeps every completed record;
# Ctrl-C exits 130 within a second and --resume finishes the rest; bad input exits 2; a missing
# llama-bench exits 3; an unwritable output directory exits 4.
# Checked to fail: with the bundle write after each record removed (Ctrl-C case loses the
# prefill record), with a timeout that did not kill the group (hang case exceeds its bound),
# and with --resume re-running finished runs (the FAKE_LOG count check).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-run.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=run
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
base=(--llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -m "$work/b.gguf" -t 1,2)

# ---- bad input
bad "no model" 2 "no model: give one or more -m" --llama-bench "$FAKE"
bad "--n-prompt 0" 2 "n-prompt 0 is refused: some llama.cpp builds report a spuriously low" -m "$work/a.gguf" --n-prompt 0
bad "--threads 1,,2" 2 "threads: '1,,2' is not a list" -m "$work/a.gguf" -t 1,,2
bad "corrupt GGUF" 2 "not a GGUF file|too small|GGUF" -m "$RL_SRC/tests/fixtures/gguf-bad/bad-magic.gguf" --llama-bench "$FAKE" --peak-bw 40 -o "$work/x"
bad "wrong --llama-bench path" 2 "nope/llama-bench" -m "$work/a.gguf" --llama-bench "$work/nope/llama-bench" --peak-bw 40 -o "$work/x"
out=$(env -u LLAMA_BENCH PATH=/usr/bin:/bin HOME="$work/nohome" LLAMA_ROOFLINE_CACHE="$work/nocache" \
  "$RL_BIN" run -m "$work/a.gguf" --peak-bw 40 -o "$work/x" 2>"$work/miss.err"); check "missing llama-bench: exit 3" 3 $?
expect "missing llama-bench: says how to get it" "$(cat "$work/miss.err")" "scripts/llama-cpp.sh"
bad "unwritable output" 4 "cannot (create|write)" "${base[@]}" -o /proc/nope/out
# --bench-arg -o is refused while the options are read: no output directory, no bundle (it
# wrote a bundle before; found by the adversarial pass)
bad "--bench-arg --output=x" 2 "extra llama-bench argument --output=x is refused" "${base[@]}" --bench-arg=--output=x -o "$work/barg"
[ ! -e "$work/barg" ] && echo "ok   --bench-arg --output=x: nothing written" || fail "--bench-arg --output=x: wrote $work/barg"

# ---- the defaults (src/cmd/defaults.h) as --help spells them, the same in run, diagnose, advise
rh=$("$RL_BIN" run --help); dh=$("$RL_BIN" diagnose --help); ah=$("$RL_BIN" advise --help)
expect "run --help: --n-prompt default 128" "$(grep -- '--n-prompt N' <<<"$rh")" "default 128"
expect "run --help: --n-gen default 128" "$(grep -- '--n-gen N' <<<"$rh")" "default 128"
expect "run --help: --repetitions default 3" "$(grep -- "--repetitions N" <<<"$rh")" "default 3;"
expect "run --help: --timeout default 3600" "$(grep -- '--timeout SEC' <<<"$rh")" "default 3600\)"
expect "diagnose --help: --repetitions default as run" "$(grep -- '--repetitions N' <<<"$dh")" "default 3;"
expect "diagnose --help: --timeout default as run" "$(grep -- '--timeout SEC' <<<"$dh")" "default 3600\)"
expect "advise --help: llama-bench defaults as run" "$ah" "defaults 128, 128, 3, 3600\)"

# ---- a clean run
"$RL_BIN" run "${base[@]}" -o "$work/ok" >"$work/ok.out" 2>"$work/ok.err"; check "clean run" 0 $?
json_check "clean: every run ok with 2 records and recomputed samples" "$work/ok/bundle.json" \
  'all(r["status"]=="ok" and len(r["records"])==2 and len(r["decode"]["samples"])==2 for m in j["models"] for r in m["runs"])'
json_check "clean: fit and controlled ceiling" "$work/ok/bundle.json" \
  'j["analysis"]["fit"]["available"] and j["analysis"]["ceiling"]["kind"]=="controlled" and j["status"]["state"]=="complete"'
expect "clean: summary names the bundle" "$(cat "$work/ok.out")" "wrote $work/ok/bundle.json"

# ---- --target-ci: more invocations in batches of --reps until the CI is tight or --max-reps
# (the fake prints 2 samples per record whatever -r says; its two samples are far apart)
bad "--max-reps below --reps" 2 "max-reps 1 is below --reps 2" "${base[@]}" --reps 2 --target-ci 5 --max-reps 1
"$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -t 1 --reps 2 --target-ci 0.1 \
  --max-reps 6 -o "$work/tci" >/dev/null 2>&1; check "--target-ci 0.1 --max-reps 6" 0 $?
json_check "--target-ci: stopped at max-reps after 3 invocations, 6 samples pooled" "$work/tci/bundle.json" \
  'j["models"][0]["runs"][0]["target_ci"]["stopped"]=="max_reps" and j["models"][0]["runs"][0]["target_ci"]["invocations"]==3 and len(j["models"][0]["runs"][0]["decode"]["samples"])==6'
"$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -t 1 --reps 2 --target-ci 50 \
  -o "$work/tci2" >/dev/null 2>&1; check "--target-ci 50" 0 $?
json_check "--target-ci 50: reached, recorded" "$work/tci2/bundle.json" \
  'j["models"][0]["runs"][0]["target_ci"]["reached"] is True and j["models"][0]["runs"][0]["target_ci"]["half_width_pct"]<=50 and j["settings"]["target_ci_pct"]==50'

# ---- faults: each recorded with its reason, the other runs survive
fault() { # mode, expected status, regex for the error
  local mode=$1 status=$2 re=$3 dir="$work/f-$1"
  FAKE_MODE=$mode FAKE_MODE_AT=2 "$RL_BIN" run "${base[@]}" --timeout 2 -o "$dir" >"$dir.out" 2>"$dir.err"
  check "$mode: exit 0 (the 1-thread runs measured)" 0 $?
  json_check "$mode: 2-thread runs are '$status'" "$dir/bundle.json" \
    "all(r['status']=='$status' for m in j['models'] for r in m['runs'] if r['threads']==2)"
  json_check "$mode: 1-thread runs ok" "$dir/bundle.json" \
    "all(r['status']=='ok' for m in j['models'] for r in m['runs'] if r['threads']==1)"
  json_check "$mode: error names the cause" "$dir/bundle.json" \
    "all(__import__('re').search(r'''$re''', r['error']) for m in j['models'] for r in m['runs'] if r['threads']==2)"
  json_check "$mode: warning recorded" "$dir/bundle.json" \
    'any(w["code"]=="llama_bench_failed" for w in j["warnings"])'
}
fault crash crashed 'killed by SIGSEGV: .*ggml_abort'
fault hang timeout 'timed out after 2 s'
fault garbage failed 'no decode record'
fault exit1 failed 'exited 1: .*failed to load model'
fault prefill-only failed 'no decode record'
json_check "crash: the prefill record printed before the crash is kept" "$work/f-crash/bundle.json" \
  'all(len(r["records"])==1 and r["prefill"]["kind"]=="measured" for m in j["models"] for r in m["runs"] if r["threads"]==2)'
if grep -q $'\e' "$work/f-garbage.err"; then fail "garbage: raw ESC reached stderr"; else echo "ok   garbage: no raw ESC on stderr"; fi

# a 100 MB flood: measured, memory bounded
FAKE_MODE=flood /usr/bin/time -f %M -o "$work/flood.rss" "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 \
  -m "$work/a.gguf" -t 1 -o "$work/flood" >/dev/null 2>&1; check "flood: exit 0" 0 $?
json_check "flood: counted and the records still parsed" "$work/flood/bundle.json" \
  'j["models"][0]["runs"][0]["stdout_bytes"]>100000000 and j["models"][0]["runs"][0]["status"]=="ok"'
rss=$(tail -1 "$work/flood.rss" 2>/dev/null || echo 0)
[ "${rss:-0}" -lt 200000 ] && echo "ok   flood: peak RSS ${rss} KiB" || fail "flood: peak RSS ${rss} KiB (limit 200000)"

# every run fails: exit 1, bundle still written
FAKE_MODE=exit1 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -t 1 -o "$work/none" >/dev/null 2>"$work/none.err"
check "no decode anywhere: exit 1" 1 $?
json_check "no decode anywhere: bundle kept" "$work/none/bundle.json" 'j["models"][0]["runs"][0]["status"]=="failed"'

# ---- Ctrl-C mid-run keeps every completed record, then --resume finishes the rest
FAKE_MODE=hang FAKE_MODE_AT=2 "$RL_BIN" run "${base[@]}" -o "$work/int" >/dev/null 2>"$work/int.err" &
pid=$!
for _ in $(seq 300); do
  python3 - "$work/int/bundle.json" 2>/dev/null <<'PY' && break
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["threads"] == 2 and len(r.get("records", [])) == 1 for r in j["models"][0]["runs"]) else 1)
PY
  sleep 0.1
done
t0=$(date +%s%N); kill -INT "$pid"; wait "$pid"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "Ctrl-C: exit 130" 130 "$rc"
lim=$(interrupt_limit_ms)
[ "$ms" -lt "$lim" ] && echo "ok   Ctrl-C honoured in $ms ms (limit $lim)" || fail "Ctrl-C took $ms ms (limit $lim)"
json_check "Ctrl-C: completed run and the partial record kept, state interrupted" "$work/int/bundle.json" \
  'j["status"]["state"]=="interrupted" and j["models"][0]["runs"][0]["status"]=="ok" and j["models"][0]["runs"][1]["status"]=="interrupted" and len(j["models"][0]["runs"][1]["records"])==1'
ls "$work/int"/.bundle.json.* >/dev/null 2>&1 && fail "Ctrl-C left a temporary file" || echo "ok   Ctrl-C left no temporary file"
"$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/int" >/dev/null 2>&1 &&
  FAKE_LOG="$work/log" "$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/int" >/dev/null 2>"$work/res.err"
check "--resume completes" 0 $?
json_check "--resume: every run ok now" "$work/int/bundle.json" \
  'j["status"]["state"]=="complete" and all(r["status"]=="ok" for m in j["models"] for r in m["runs"])'
[ ! -s "$work/log" ] && echo "ok   --resume of a complete bundle runs nothing" || fail "--resume re-ran: $(cat "$work/log")"

# a corrupt or foreign bundle is refused and left untouched
mkdir -p "$work/bad"; printf '{"schema": "something-else"' >"$work/bad/bundle.json"
cp "$work/bad/bundle.json" "$work/bad.orig"
bad "--resume corrupt bundle" 2 "bundle.json: not valid JSON" --resume --llama-bench "$FAKE" -o "$work/bad"
cmp -s "$work/bad/bundle.json" "$work/bad.orig" && echo "ok   corrupt bundle untouched" || fail "corrupt bundle changed"
printf '{"schema": "something-else"}' >"$work/bad/bundle.json"
bad "--resume foreign bundle" 2 "not a llama-roofline bundle" --resume --llama-bench "$FAKE" -o "$work/bad"

finish
