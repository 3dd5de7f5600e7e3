#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the command driver's timing accuracy (issue 10's acceptance): tests/lib/fake-stream
# writes 12 chunks 20 ms apart (busy-waited to its schedule) and logs the CLOCK_MONOTONIC time
# of every write; `client --chunks` exports every chunk's read time; tests/lib/client-accuracy.py
# pairs them: |TTFT error| and |chunk-gap error| must be under 1 ms at p99 at concurrency 1 and
# 8 (32 requests). Registered RUN_SERIAL (timing). A machine too loaded to wake a sleeping
# process within 0.5 ms (p99 of 300 1 ms sleeps, measured when the check fails) cannot show
# 1 ms accuracy: the test then skips (77) saying so, rather than pass or blame the tool.
# Checked to fail: with the spawner thread removed (spawning blocked the poll loop: c=8 errors of
# tens of ms on a loaded machine) and with chunks stamped after the callback's work.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-accuracy.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$(dirname "$RL_BIN")/fake-stream"
export LLAMA_ROOFLINE_PROGRESS=off
script="10 first"
for i in $(seq 1 11); do script="$script $((10 + 20 * i)) chunk$i"; done
noisy=0
# The 1 ms target is the product build's. An ASan+UBSan build instruments every load and store
# of the reading loop (several times slower): there the same pairing must hold within 5 ms,
# which still catches a stamp taken late or a chunk paired with the wrong write.
limit=1
if grep -q __asan_init "$RL_BIN" 2>/dev/null; then
  limit=5
  echo "note: a sanitizer build: the limit is $limit ms, not 1"
fi
# One measurement (its checks printed): 0 within the limit, 1 over it, 2 the run itself failed.
measure() { # concurrency, attempt
  local conc=$1 n=$(($1 * 4)) i
  : >"$work/p.jsonl"
  for i in $(seq 1 "$n"); do echo "{\"id\": \"q$i\", \"prompt\": \"q$i tell me\"}" >>"$work/p.jsonl"; done
  : >"$work/log"
  FAKE_STREAM_LOG="$work/log" "$RL_BIN" client --cmd "$FAKE $script" --prompts "$work/p.jsonl" \
    --concurrency "$conc" --json "$work/b.json" --chunks "$work/chunks" >/dev/null 2>"$work/err"
  check "c=$conc (attempt $2): run" 0 $? || return 2
  json_check "c=$conc (attempt $2): $n requests ok" "$work/b.json" \
    "j['client']['points'][0]['requests']['ok']==$n" || return 2
  python3 "$RL_SRC/tests/lib/client-accuracy.py" "$work/chunks" "$work/log" --limit-ms "$limit" \
    --label "c=$conc"
}
# The host moves this shared VM's scheduling from one second to the next: an attempt over the
# limit is measured again, up to 3 times. A late stamp or a wrong pairing fails every attempt.
for conc in 1 8; do
  for attempt in 1 2 3; do
    measure "$conc" "$attempt"
    rc=$?
    [ "$rc" = 1 ] || break
  done
  if [ "$rc" = 0 ]; then
    echo "ok   c=$conc: p99 within $limit ms (attempt $attempt)"
  elif [ "$rc" = 1 ]; then
    probe=$(python3 "$RL_SRC/tests/lib/client-accuracy.py" --probe)
    if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0.5 else 1)" "$probe"; then
      echo "note c=$conc: this machine oversleeps 1 ms sleeps by $probe ms at p99: too loaded to check 1 ms accuracy"
      noisy=1
    else
      fail "c=$conc: p99 over $limit ms in 3 attempts on a quiet machine (probe $probe ms)"
    fi
  fi
done
if [ "$fails" = 0 ] && [ "$noisy" = 1 ]; then
  echo "skipped: the machine is too loaded for the 1 ms check"
  exit 77
fi
finish
