#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: the Slurm fleet recipe (examples/fleet/slurm/, docs/FLEET.md) on a one-node
# Slurm cluster this test starts itself: munged with a key made here, slurmctld and slurmd on
# localhost (free ports, state, spool, logs and pid files under $RL_TMP; SLURM_CONF names the
# test's slurm.conf, /etc/slurm is never read). submit.sh queues an array of two exclusive
# tasks (they run one after the other on the one node) and the gather job after them
# (afterok); each task runs `run` on two tiny synth models (the real llama-bench of
# $LLAMA_BIN_DIR when set, else tests/lib/fake-llama-bench) into runs/NODE.JOB_TASK
# (RL_FLEET_NAME=host-task); the page fleet.html holds exactly those two inputs, labelled by
# node and task, their llama-bench rows in both, a fitted line per input; fleet.md names both.
# Then the default naming (by node only): two more tasks on the one node give runs/NODE and
# runs/NODE.JOB_TASK, the second never overwriting the first. cons_tres would run two one-CPU
# tasks side by side: each task's OverSubscribe=NO shows --exclusive kept them apart. A
# measurement that fails: both tasks FAILED, the page job CANCELLED (afterok,
# --kill-on-invalid-dep), no page. submit.sh with N 0 exits 2.
# Every daemon is stopped by pid at the end (EXIT trap); each wait is bounded (node idle 60 s,
# jobs 300 s). Needs root (slurmd runs jobs as their user) and Debian's slurm-wlm and munge
# (scripts/deps.sh; installed here when missing): skipped (77) only when they cannot be.
# Runs alone (RUN_SERIAL): it starts daemons, and the jobs take the whole node.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
. "$RL_SRC/tests/lib/cli.sh"
. "$RL_SRC/tests/lib/pkgs.sh"
[ "$(id -u)" = 0 ] || { echo "skip: slurmd runs jobs as their user: this test needs root"; exit 77; }
need_pkgs slurm-wlm munge || { echo "skip: $pkgs_why"; exit 77; }
for t in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$t" >/dev/null || { fail "$t is not on PATH after installing slurm-wlm and munge"; finish; }
done
d="$RL_TMP/e2e-fleet-slurm.$$"
work="$d" # finish's sweep: every bundle and report the jobs wrote passes validate
rm -rf "$d"
mkdir -p "$d/munge/key" "$d/munge/run" "$d/slurm/state" "$d/slurm/spool" "$d/models"
chmod 755 "$d" "$d/munge" "$d/munge/run"; chmod 700 "$d/munge/key" # munged checks them
# munged wants every directory above its socket searchable by all; a checkout may sit under
# a private one (mktemp -d is 0700), so the socket and pid file live in their own under /tmp
mrun=$(mktemp -d /tmp/rl-munge.XXXXXX) && chmod 755 "$mrun" || { fail "cannot make a directory under /tmp for munged's socket"; finish; }
sock="$mrun/munge.sock"
pids=() jobs=()
cleanup() {
  local p
  [ ${#jobs[@]} -gt 0 ] && scancel "${jobs[@]}" 2>/dev/null
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$p" 2>/dev/null
  done
  [ -f "$mrun/munged.pid" ] && kill "$(cat "$mrun/munged.pid")" 2>/dev/null
  rm -rf "$d" "$mrun"
}
trap cleanup EXIT
logs() { local f; for f in "$d"/slurm/*.log "$d"/munge/key/munged.log "$d"/fleet*/logs/*; do
  [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done; }

# ---- munge, with its own key and socket
head -c 1024 /dev/urandom >"$d/munge/key/munge.key" && chmod 400 "$d/munge/key/munge.key"
munged --key-file="$d/munge/key/munge.key" --socket="$sock" --pid-file="$mrun/munged.pid" \
  --log-file="$d/munge/key/munged.log" --seed-file="$d/munge/key/munged.seed"
check "munged started on $sock" 0 $? || { logs; finish; }
expect "munge: a credential round trip" "$(munge -S "$sock" -s x | unmunge -S "$sock" 2>&1)" '^STATUS: +Success'

# ---- slurm.conf: this node, free ports, everything under $d
node=$(hostname -s)
read -r ctl_port d_port < <(python3 -c '
import socket; s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]; print(*[x.getsockname()[1] for x in s])')
hw=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
expect "slurmd -C: this node's CPUs and memory" "$hw" '^CPUs=[0-9]+ .*RealMemory=[0-9]+'
conf="$d/slurm/slurm.conf"
cat >"$conf" <<EOF
ClusterName=rlfleet
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/slurm/state
SlurmdSpoolDir=$d/slurm/spool
SlurmctldPidFile=$d/slurm/slurmctld.pid
SlurmdPidFile=$d/slurm/slurmd.pid
SlurmctldLogFile=$d/slurm/slurmctld.log
SlurmdLogFile=$d/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=fleet Nodes=$node Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF="$conf"

# ---- the daemons, in the foreground of background jobs (their pids are ours to stop)
slurmctld -D -c -f "$conf" >"$d/slurm/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -f "$conf" -N "$node" >"$d/slurm/slurmd.out" 2>&1 & pids+=($!)
state=
for _ in $(seq 120); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] && echo "ok   the node $node is idle in sinfo" || { fail "the node is not idle after 60 s: '$state'"; logs; finish; }

# ---- the measurement each task makes: cheap, but a real run of the tool
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$d/models/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$d/models/b.gguf" || fail "synth b"
if [ -n "${LLAMA_BIN_DIR:-}" ]; then
  bench=(--llama-bench "$LLAMA_BIN_DIR/llama-bench" -p 16 -n 16 -r 2); echo "the tasks run the real llama-bench"
else
  bench=(--llama-bench "$RL_SRC/tests/lib/fake-llama-bench"); echo "LLAMA_BIN_DIR not set: the tasks run tests/lib/fake-llama-bench"
fi
export RL_FLEET_BIN="$RL_BIN"
export RL_FLEET_MEASURE="run ${bench[*]} -m $d/models/a.gguf -m $d/models/b.gguf -t 1 --peak-bw 40"
submit="$RL_SRC/examples/fleet/slurm/submit.sh"

wait_jobs() { # array-id page-id: both done within 300 s; their states (one line per job or task)
  local left
  for _ in $(seq 600); do
    left=$(squeue -h -j "$1,$2" -o %i 2>/dev/null)
    [ -z "$left" ] && break
    sleep 0.5
  done
  [ -z "$left" ] || { fail "jobs still queued or running after 300 s: $left"; logs; return 1; }
  scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | tr -s ' '
  scontrol -o show job "$2" | grep -o 'JobState=[A-Z_]*'
}

# ---- named by node and task
out=$(RL_FLEET_NAME=host-task bash "$submit" "$d/fleet" 2 --time=10 2>"$d/submit.err"); check "submit.sh $d/fleet 2" 0 $? || cat "$d/submit.err"
array=$(sed -n 1p <<<"$out") page=$(sed -n 2p <<<"$out"); jobs=("$array" "$page")
[[ $array =~ ^[0-9]+$ && $page =~ ^[0-9]+$ ]] && echo "ok   two job ids: $array, $page" || { fail "submit.sh printed: $out"; finish; }
expect "the page job depends on the array" "$(scontrol -o show job "$page")" "Dependency=afterok:${array}_\*|JobState=(COMPLETED|RUNNING)"
states=$(wait_jobs "$array" "$page")
expect "both array tasks completed" "$states" "^ ?2 JobState=COMPLETED$"
expect "the page job completed" "$(tail -n 1 <<<"$states")" "^JobState=COMPLETED$"
# cons_tres would put two one-CPU tasks side by side on this node: --exclusive keeps them apart
expect "each task had the node to itself (--exclusive)" "$(scontrol -o show job "$array" | grep -o 'OverSubscribe=[A-Z]*' | sort | uniq -c | tr -s ' ')" \
  "^ ?2 OverSubscribe=NO$"
runs=$(ls "$d/fleet/runs" 2>&1 | tr '\n' ' ')
[ "$runs" = "$node.${array}_0 $node.${array}_1 " ] && echo "ok   runs/: $runs" || { fail "runs/: $runs"; logs; }
expect "task 1's log names its node and directory" "$(cat "$d/fleet/logs/rl-fleet-${array}_1.out" 2>&1)" \
  "^rl-fleet: task ${array}_1 on $node: .* -o $d/fleet/runs/$node.${array}_1$"
python3 - "$d/fleet/fleet.html" "$node.${array}_0" "$node.${array}_1" >"$d/py" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
j = json.loads(re.search(r'<script type="application/json" id="compare">(.*?)</script>', page, re.S).group(1))
print("inputs", [i["label"] for i in j["inputs"]] == sys.argv[2:], len(j["inputs"]))
bench = [r for r in j["rows"] if r["group"] == "llama-bench"]
print("rows", len(bench), all(len(r["cells"]) == 2 and all(c.get("present", True) and c["n"] >= 1 for c in r["cells"]) for r in bench))
print("runs", all(len(i["bundle"]["models"]) == 2 and i["bundle"]["settings"]["threads"] == [1] for i in j["inputs"]))
print("fits", len(re.findall(r"<td>fit line</td>", page)))
PY
py=$(cat "$d/py")
expect "the page: the two runs, labelled by node and task" "$py" "^inputs True 2$"
expect "the page: 4 llama-bench rows (2 models x decode, prefill), present in both" "$py" "^rows 4 True$"
expect "the page: each input's bundle, its two models at 1 thread" "$py" "^runs True$"
expect "the page: a fitted line per input" "$py" "^fits 2$"
md_label() { sed 's/[][_]/\\&/g' <<<"$1"; } # as the Markdown escapes it: \[2\] vm.1\_1
grep -qF -- "- $(md_label "[1] $node.${array}_0"): " "$d/fleet/fleet.md" && grep -qF -- "- $(md_label "[2] $node.${array}_1"): " "$d/fleet/fleet.md" &&
  echo "ok   fleet.md: both inputs" || fail "fleet.md: $(head -n 5 "$d/fleet/fleet.md" 2>&1)"

# ---- named by node only: the second task on the one node takes NODE.JOB_TASK
out=$(bash "$submit" "$d/fleet2" 2 --time=10 2>"$d/submit.err"); check "submit.sh $d/fleet2 2 (named by node)" 0 $? || cat "$d/submit.err"
array=$(sed -n 1p <<<"$out") page=$(sed -n 2p <<<"$out"); jobs=("$array" "$page")
states=$(wait_jobs "$array" "$page")
expect "named by node: every job completed" "$states" "^ ?2 JobState=COMPLETED$"
runs=$(ls "$d/fleet2/runs" 2>&1 | tr '\n' ' ')
[[ $runs =~ ^$node\ $node\.${array}_[01]\ $ ]] && echo "ok   runs/: $runs" || { fail "runs/ named by node: $runs"; logs; }
[ -f "$d/fleet2/runs/$node/bundle.json" ] && [ -f "$d/fleet2/fleet.html" ] && echo "ok   the first bundle kept, the page built" ||
  fail "named by node: $(ls -R "$d/fleet2")"

# ---- a task that fails: the page job never runs (afterok), and is removed from the queue
out=$(RL_FLEET_MEASURE="run --no-such-option" bash "$submit" "$d/fleet3" 2 --time=10 2>"$d/submit.err"); check "submit.sh $d/fleet3 2 (a failing measurement)" 0 $? || cat "$d/submit.err"
array=$(sed -n 1p <<<"$out") page=$(sed -n 2p <<<"$out"); jobs=("$array" "$page")
states=$(wait_jobs "$array" "$page")
expect "a failing measurement: both tasks failed" "$states" "^ ?2 JobState=FAILED$"
expect "a failing measurement: the page job cancelled, never run" "$(tail -n 1 <<<"$states")" "^JobState=CANCELLED$"
[ ! -e "$d/fleet3/fleet.html" ] && echo "ok   a failing measurement: no page" || fail "a failing measurement: a page was built"

# ---- bad usage
bash "$submit" "$d/fleet4" 0 >/dev/null 2>"$d/err"; check "submit.sh with N 0" 2 $?
expect "submit.sh with N 0: the usage" "$(cat "$d/err")" '^usage: submit.sh FLEET_DIR N'
finish
