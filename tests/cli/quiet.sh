#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the machine's state during every measurement (measure/quiet, docs/BUNDLE.md "machine").
# --wait-quiet and --retry-disturbed parse in run, diagnose, membw, advise --measure and
# client, and a bad value (-1, "x", an exponent, above the maximum) is exit 2 with one line;
# --help prints them with the documented limits. A run with the fake llama-bench and a short
# ceiling writes "machine" beside each llama-bench run and each membw run and the summary in
# environment.machine_state, and the bundle passes validate and the JSON schema; membw --json
# carries "machine" in every run. A client point records its machine too. Whether a run is
# disturbed depends on the machine the test runs on, so only the shape and the ranges are
# checked here (the rules themselves: tests/unit/test_quiet.c on a fake /proc).
# On fake /proc copies the test makes busy itself: --retry-disturbed measures a disturbed run
# again and keeps the first try in "attempts" (and with no retry left the run stays disturbed,
# the verdict provisional); Ctrl-C while --wait-quiet waits exits 130 within a second with the
# resume command and a bundle that validates (mutants sweep-retry-count, quiet-wait-int).
# Checked to fail: with the "machine" attach removed from sweep.c (the run's machine check)
# and from membw.c's run_json (the membw checks).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-quiet.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
STREAM="$(dirname "$RL_BIN")/fake-stream"

# ---- the options in every measuring command: help, bad values
for c in run diagnose membw advise client; do
  out=$("$RL_BIN" $c --help); check "$c --help" 0 $?
  expect "$c --help: --wait-quiet" "$out" "--wait-quiet SEC +wait before each measurement"
  expect "$c --help: --retry-disturbed" "$out" "--retry-disturbed N +measure a disturbed one again"
  expect "$c --help: the limits" "$out" "disturbed: other processes used over 25% of the"
  expect "$c --help: steal limit" "$out" "CPUs, or steal was over 5% of the time"
done
for c in run diagnose membw advise client; do
  CMD=$c
  extra=()
  [ "$c" = advise ] && extra=(--measure)
  bad "$c --wait-quiet -1" 2 "^llama-roofline $c: .*--wait-quiet" "${extra[@]}" --wait-quiet -1
  bad "$c --wait-quiet x" 2 "--wait-quiet: 'x'" "${extra[@]}" --wait-quiet x
  bad "$c --wait-quiet 1e3" 2 "--wait-quiet: '1e3'" "${extra[@]}" --wait-quiet 1e3
  bad "$c --wait-quiet huge" 2 "--wait-quiet: '86401' is not valid: give a decimal number from 0 and at most 86400" "${extra[@]}" --wait-quiet 86401
  bad "$c --retry-disturbed -1" 2 "--retry-disturbed: '-1'" "${extra[@]}" --retry-disturbed -1
  bad "$c --retry-disturbed x" 2 "--retry-disturbed: 'x'" "${extra[@]}" --retry-disturbed x
  bad "$c --retry-disturbed huge" 2 "--retry-disturbed: '99999999999999999999'" "${extra[@]}" \
    --retry-disturbed 99999999999999999999
  bad "$c --retry-disturbed 21" 2 "--retry-disturbed: '21' is not valid: give a whole number from 0 to 20" "${extra[@]}" \
    --retry-disturbed 21
done
CMD=advise
bad "advise: --wait-quiet without --measure" 2 "--wait-quiet and --retry-disturbed go with --measure" \
  --wait-quiet 5

# ---- run: "machine" beside each llama-bench run and each membw run, the summary, valid
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" run --llama-bench "$FAKE" --quick-membw -m "$work/a.gguf" -t 1 -o "$work/run" \
  --wait-quiet 0 --retry-disturbed 0 >/dev/null 2>"$work/run.err"
check "run --quick-membw --wait-quiet 0 --retry-disturbed 0" 0 $?
B="$work/run/bundle.json"
# the fields of one machine object: kinds, ranges, types, why empty exactly when quiet
M='(lambda m: m["kind"]=="measured" and m["interval_s"]>=0 and m["cpus"]>=1 and all(m[k] is None or 0<=m[k]<=100 for k in ("other_cpu_pct","steal_pct","psi_cpu_some_pct")) and isinstance(m["disturbed"], bool) and (m["why"]!="")==m["disturbed"] and set(m)=={"kind","interval_s","cpus","other_cpu_pct","steal_pct","psi_cpu_some_pct","procs_running_max","freq_mhz_min","freq_mhz_max","throttle_events","disturbed","why"})'
json_check "run: the llama-bench run has its machine" "$B" \
  "$M(j[\"models\"][0][\"runs\"][0][\"machine\"])"
json_check "run: every membw run has its machine" "$B" \
  "len(j[\"membw\"][\"runs\"])>0 and all($M(r[\"machine\"]) for r in j[\"membw\"][\"runs\"])"
json_check "run: environment.machine_state counts them" "$B" \
  'j["environment"]["machine_state"]["kind"]=="measured" and j["environment"]["machine_state"]["measurements"]==len(j["membw"]["runs"])+1 and 0<=j["environment"]["machine_state"]["disturbed"]<=j["environment"]["machine_state"]["measurements"] and j["environment"]["machine_state"]["limits"]=={"other_cpu_pct":25,"steal_pct":5}'
out=$("$RL_BIN" validate "$B" 2>&1); check "run bundle validates ($out)" 0 $?
python3 - "$RL_SRC/schema/bundle.schema.json" "$B" >"$work/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
rc=$?
check "run bundle validates against the schema ($(tail -c 300 "$work/schema.txt"))" 0 $rc

# ---- validate refuses a machine object out of range
python3 - "$B" "$work/badm.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["models"][0]["runs"][0]["machine"]["other_cpu_pct"] = 140
b["models"][0]["runs"][0]["machine"]["disturbed"] = "yes"
json.dump(b, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/badm.json" 2>&1); check "validate: a bad machine object" 1 $?
expect "validate names other_cpu_pct" "$out" "models\[0\]\.runs\[0\]\.machine\.other_cpu_pct: not null or a percentage from 0 to 100"
expect "validate names disturbed" "$out" "models\[0\]\.runs\[0\]\.machine\.disturbed: missing or not true/false"

# ---- membw --json: every run has its machine, the summary beside the environment
"$RL_BIN" membw --quick --threads 1 --reps 1 --wait-quiet 0 --json >"$work/membw.json" 2>/dev/null
check "membw --quick --json" 0 $?
json_check "membw: every run has its machine" "$work/membw.json" \
  "len(j[\"runs\"])==4 and all($M(r[\"machine\"]) for r in j[\"runs\"]) and j[\"env\"][\"machine_state\"][\"measurements\"]==4"

# ---- client: the point records its machine
printf '{"id": "a", "prompt": "x"}\n' >"$work/p.jsonl"
"$RL_BIN" client --cmd "$STREAM 10 'one two'" --prompts "$work/p.jsonl" --warmup 0 \
  --wait-quiet 0 --retry-disturbed 0 --json "$work/client.json" >/dev/null 2>&1
check "client --wait-quiet 0" 0 $?
# (a client point also says which server was counted: none for the command driver)
json_check "client: the point has its machine, the summary counts it" "$work/client.json" \
  "(lambda m: $M({k: v for k, v in m.items() if k != \"measured_server\"}) and m[\"measured_server\"][\"pids\"]==[] and m[\"measured_server\"][\"reason\"].startswith(\"the command driver\"))(j[\"client\"][\"points\"][0][\"machine\"]) and j[\"environment\"][\"machine_state\"][\"measurements\"]==1"
out=$("$RL_BIN" validate "$work/client.json" 2>&1); check "client bundle validates ($out)" 0 $?

# ---- --retry-disturbed: a disturbed run is measured again, the first try kept in "attempts".
# Own copy of the fixed /proc: the fake llama-bench's first run adds 100000 busy ticks to it
# (FAKE_BUSY_RUNS=1), so that run reads as disturbed and the second as quiet.
fresh_proc() { # dir: a fixed /proc copy of our own
  mkdir -p "$1/proc/self" && cp "$LLAMA_ROOFLINE_PROC_ROOT/proc/stat" "$1/proc/stat" &&
    cp "$LLAMA_ROOFLINE_PROC_ROOT/proc/self/stat" "$1/proc/self/stat"
}
fresh_proc "$work/p1"
LLAMA_ROOFLINE_PROC_ROOT="$work/p1" FAKE_BUSY_RUNS=1 "$RL_BIN" run --llama-bench "$FAKE" \
  --quick-membw --no-bracket -m "$work/a.gguf" -t 1 -o "$work/retry" --retry-disturbed 2 \
  >/dev/null 2>"$work/retry.err"
check "run --retry-disturbed 2 after one disturbed try" 0 $?
expect "retry: the second try is announced" "$(cat "$work/retry.err")" \
  "t=1 depth 0 was disturbed \(other processes used 100% of the CPUs\): measuring it again \(1 of 2\)"
json_check "retry: one attempt kept, disturbed; the run itself quiet and ok" "$work/retry/bundle.json" \
    '(lambda r: r["status"]=="ok" and r["machine"]["disturbed"] is False and len(r["attempts"])==1 and r["attempts"][0]["machine"]["disturbed"] is True and r["attempts"][0]["machine"]["other_cpu_pct"]==100)(j["models"][0]["runs"][0])'
json_check "retry: the kept run is what the analysis reads: not disturbed" "$work/retry/bundle.json" \
  'j["analysis"]["disturbance"]["disturbed"] is False and j["environment"]["machine_state"]["disturbed"]==0'
# with no retry left, the disturbed run stays and the bundle says so
fresh_proc "$work/p2"
LLAMA_ROOFLINE_PROC_ROOT="$work/p2" FAKE_BUSY_RUNS=5 "$RL_BIN" run --llama-bench "$FAKE" \
  --quick-membw --no-bracket -m "$work/a.gguf" -t 1 -o "$work/retry2" --retry-disturbed 1 \
  >"$work/retry2.out" 2>"$work/retry2.err"
check "run --retry-disturbed 1, disturbed twice" 0 $?
json_check "retry 1: one attempt, the run still disturbed, analysis says so" "$work/retry2/bundle.json" \
  '(lambda r: len(r["attempts"])==1 and r["machine"]["disturbed"] is True)(j["models"][0]["runs"][0]) and j["analysis"]["disturbance"]["n_other_processes"]==1 and j["analysis"]["verdict"]["provisional"] is True'
expect "retry 1: the terminal says DISTURBED" "$(cat "$work/retry2.out")" "DISTURBED"

# ---- Ctrl-C while --wait-quiet waits: exit 130 within a second, what was measured kept, and
# the exact resume command. A loop keeps the fake /proc busy so the wait never ends by itself.
fresh_proc "$work/p3"
( while :; do awk '$1 == "cpu" { $2 += 100000 } { print }' "$work/p3/proc/stat" >"$work/p3/st" &&
    mv "$work/p3/st" "$work/p3/proc/stat"; sleep 0.1; done ) &
busy=$!
LLAMA_ROOFLINE_PROC_ROOT="$work/p3" LLAMA_ROOFLINE_PROGRESS=lines "$RL_BIN" run --llama-bench "$FAKE" \
  --quick-membw --no-bracket -m "$work/a.gguf" -t 1 -o "$work/wq" --wait-quiet 60 \
  >"$work/wq.out" 2>"$work/wq.err" &
pid=$!
for _ in $(seq 100); do grep -q "waiting for a quiet machine" "$work/wq.err" 2>/dev/null && break; sleep 0.1; done
sleep 1
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"; rc=$?
t1=$(date +%s%N)
kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null
check "Ctrl-C during --wait-quiet: exit 130" 130 "$rc"
ms=$(( (t1 - t0) / 1000000 ))
if [ "$ms" -le 1000 ]; then echo "ok   Ctrl-C during --wait-quiet ended in $ms ms"; else
  fail "Ctrl-C during --wait-quiet took $ms ms (limit 1000; load $(cut -d' ' -f1-3 /proc/loadavg)); its stderr:"
  sed 's/^/     /' "$work/wq.err"; fi
expect "Ctrl-C during --wait-quiet: the wait was shown" "$(cat "$work/wq.err")" \
  "waiting for a quiet machine: other processes use 100% of the CPUs"
expect "Ctrl-C during --wait-quiet: the resume command" "$(cat "$work/wq.err")" \
  "interrupted: kept 0 of 1 runs in .*wq/bundle.json; resume with: llama-roofline run --resume .* -o [^ ]*wq$"
out=$("$RL_BIN" validate "$work/wq/bundle.json" 2>&1); check "Ctrl-C during --wait-quiet: the bundle validates ($out)" 0 $?

finish
