#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: Ctrl-C leaves no child behind. A stubborn child (a shell script that ignores SIGTERM and
# SIGINT and starts a grandchild `sleep 300`, which inherits the ignoring) stands in for
# llama-bench under `run` and for the command under `client --cmd`. One Ctrl-C, and two in
# quick succession: exit 130 within a second, and no process of the child's group is left.
# Mid-run, `client` (its second operating point under way) and `membw` (its first thread
# count) end the same way, print the exact command to run again (read back by sh as the words
# run) and keep what was measured in a file `validate` passes. Checked to fail before the fix
# (session.c and cmd_membw.c said only "run it again", without the command). Two SIGTERMs
# exit 130 too (SIG=TERM); a Ctrl-C during membw's first touch of a big set is seen at once.
# Checked to fail before the fix (base/proc.c's rl_proc_kill_all, called by main's handler
# of the second signal): after the second Ctrl-C the script and its sleep were still running,
# reparented to init, for `run` and `client --cmd` alike.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-interrupt.$$"
mkdir -p "$work"
. "$RL_SRC/tests/lib/cli.sh"
cleanup() { # whatever a failing case left: its group, then the scratch directory
  for f in "$work"/*.pgid; do [ -s "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth"

# the stubborn child: answers --version like llama-bench, then records its process group and
# its grandchild's pid and waits for a sleep nothing but SIGKILL ends
cat >"$work/stubborn" <<'SH'
#!/bin/sh
if [ "${1:-}" = --version ]; then echo "version: 0.5.0-dev (build 1, commit de3ff81)" >&2; exit 0; fi
trap '' TERM INT
sleep 300 &
echo $! >"$STUB.kid"
ps -o pgid= -p $$ | tr -d ' ' >"$STUB.pgid"
wait
SH
chmod +x "$work/stubborn"

# case NAME SIGNALS COMMAND...: run COMMAND with STUB=$work/NAME, wait for the stubborn child,
# send SIGINT SIGNALS times (0.1 s apart), then check exit 130 within the limit and that the
# child's group is empty.
case_() {
  local name=$1 nsig=$2; shift 2
  STUB="$work/$name" "$@" >/dev/null 2>"$work/$name.err" &
  local pid=$!
  for _ in $(seq 300); do [ -s "$work/$name.pgid" ] && [ -s "$work/$name.kid" ] && break; sleep 0.05; done
  local pg kid
  pg=$(cat "$work/$name.pgid" 2>/dev/null) kid=$(cat "$work/$name.kid" 2>/dev/null)
  [ -n "$pg" ] && [ -n "$kid" ] || { fail "$name: the child never started: $(cat "$work/$name.err")"; kill -KILL "$pid"; return; }
  local t0 rc ms
  t0=$(date +%s%N)
  kill -"${SIG:-INT}" "$pid"
  for _ in $(seq 2 "$nsig"); do sleep 0.1; kill -"${SIG:-INT}" "$pid" 2>/dev/null; done
  wait "$pid"; rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  check "$name: exit 130" 130 "$rc"
  [ "$ms" -lt "$lim" ] && echo "ok   $name: ended in $ms ms (limit $lim)" || fail "$name: took $ms ms (limit $lim)"
  local left=""
  for _ in $(seq 20); do # SIGKILL is delivered at once; give init a moment to reap
    left=$(for p in $(pgrep -g "$pg") "$kid"; do alive "$p" && echo "$p"; done | sort -u)
    [ -z "$left" ] && break
    sleep 0.05
  done
  [ -z "$left" ] && echo "ok   $name: nothing of group $pg is left" ||
    fail "$name: still running: $(ps -o pid=,pgid=,ppid=,stat=,args= -p "$(paste -sd, <<<"$left")" | tr '\n' ';')"
}

# alive PID: the process exists and is not a zombie (a killed grandchild reparented to a PID 1
# that does not reap, as in some containers, stays a zombie: dead, only not yet reaped)
alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "${st:0:1}" != Z ]
}

lim=$(interrupt_limit_ms)
run_args=(run --llama-bench "$work/stubborn" --peak-bw 40 -m "$work/a.gguf" -t 1)
case_ run-once 1 "$RL_BIN" "${run_args[@]}" -o "$work/o1"
case_ run-twice 2 "$RL_BIN" "${run_args[@]}" -o "$work/o2"
json_check "run-twice: the bundle is kept" "$work/o2/bundle.json" 'j["schema"].startswith("llama-roofline")'
# two SIGTERMs: exit 130 as for SIGINT (it was death by SIGTERM, status 143, and no word on
# stderr; found by the adversarial pass), and a line saying it stopped at once
SIG=TERM case_ run-term-twice 2 "$RL_BIN" "${run_args[@]}" -o "$work/o3"
expect "run-term-twice: says it stopped at once" "$(cat "$work/run-term-twice.err")" "interrupted again: stopped at once"
client_args=(client --cmd "$work/stubborn" --profile short-chat --runs 3 --warmup 0)
case_ client-once 1 "$RL_BIN" "${client_args[@]}" --json "$work/c1.json"
case_ client-twice 2 "$RL_BIN" "${client_args[@]}" --json "$work/c2.json"

# ---- mid-run: client and membw stop within a second, say the exact command to run again (sh
# reads it back as the same words), and keep what was measured in a file that validates
# (kept NAME WANT-PREFIX ARGS...: the last stderr line is WANT-PREFIX then a command line
# whose words are exactly ARGS)
kept() {
  local name=$1 want=$2; shift 2
  local line cmdline
  line=$(tail -n1 "$work/$name.err")
  [ "${line#"$want"}" != "$line" ] && echo "ok   $name: the message" ||
    fail "$name: the message: $line (want $want...)"
  cmdline=${line#"$want"}
  local -a words=()
  eval "words=($cmdline)" 2>/dev/null || fail "$name: sh cannot read the command back: $cmdline"
  if [ "$(printf '%s\0' "${words[@]}" | od -c)" = "$(printf '%s\0' llama-roofline "$@" | od -c)" ]; then
    echo "ok   $name: the re-run command is the command run"
  else
    fail "$name: the re-run command: $cmdline"
  fi
}
# timed NAME PATTERN ARGS...: run llama-roofline ARGS (progress as lines on stderr), SIGINT once
# PATTERN appears on its stderr, then exit 130 within the limit
timed() {
  local name=$1 pat=$2; shift 2
  LLAMA_ROOFLINE_PROGRESS=lines "$RL_BIN" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid=$! t0 rc ms
  for _ in $(seq 600); do grep -q -- "$pat" "$work/$name.err" && break; sleep 0.05; done
  t0=$(date +%s%N)
  kill -INT "$pid"
  wait "$pid"; rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  check "$name: exit 130" 130 "$rc"
  [ "$ms" -lt "$lim" ] && echo "ok   $name: ended in $ms ms (limit $lim)" || fail "$name: took $ms ms (limit $lim)"
}
STREAM="$(dirname "$RL_BIN")/fake-stream"
printf '{"id": "a", "prompt": "x"}\n{"id": "b", "prompt": "y"}\n' >"$work/p.jsonl"
mid=(client --cmd "$STREAM 20 one 3000 two" --prompts "$work/p.jsonl" --warmup 0 --runs 1
  --sweep-concurrency 1,2 --timeout 30 -o "$work/client mid")
# each request takes 3 s: the first point (two in a row) is over when the second begins
timed client-mid "^c=2 " "${mid[@]}"
kept client-mid "llama-roofline client: error: interrupted: kept 2 operating points in $work/client mid/bundle.json; client has no --resume: run it again to measure the rest: " "${mid[@]}"
out=$("$RL_BIN" validate "$work/client mid/bundle.json"); check "client-mid: the bundle validates ($out)" 0 $?
json_check "client-mid: the first point kept whole, the second's requests in flight not counted" "$work/client mid/bundle.json" \
  'j["status"]["state"]=="interrupted" and [p["concurrency"] for p in j["client"]["points"]]==[1, 2] and j["client"]["points"][0]["requests"]["ok"]==2 and j["client"]["points"][1]["requests"]["measured"]==0'
mb=(membw --threads 1,2 --reps 100 --membw-mb 256 -o "$work/membw mid.json")
timed membw-mid "read repetition 2/" "${mb[@]}"
kept membw-mid "llama-roofline membw: error: interrupted: kept samples at 1 of 2 thread counts in $work/membw mid.json; membw has no --resume: run it again to measure the rest: " "${mb[@]}"
out=$("$RL_BIN" validate "$work/membw mid.json"); check "membw-mid: the result validates ($out)" 0 $?
json_check "membw-mid: the samples measured kept, marked incomplete" "$work/membw mid.json" \
  'j["complete"] is False and sum(len(r["samples_GBs"]) for r in j["runs"])>0 and {r["threads"] for r in j["runs"]}=={1}'
# Ctrl-C while membw first-touches a big working set (1 GiB: seconds in a VM): the touch
# stops within the limit (it ran to its end, 2.5 s for 1 GiB and 5 s for 2 GiB here, before
# the fix; found by the adversarial pass)
timed membw-touch "mapping and first-touching" membw --threads 1 --membw-mb 1024
expect "membw-touch: nothing measured, said so" "$(tail -n1 "$work/membw-touch.err")" "interrupted; nothing was measured"
finish
