#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the measured server is not "another process" (measure/quiet.h). `client --url` against
# the scripted SSE server (tests/lib/sse-server, mode busy: it spins on a CPU until each chunk)
# on 127.0.0.1 and on localhost finds it by its listening socket on the real /proc (the pid the
# shell started, "the process listening on port P"), records it in every point's
# machine.measured_server with its CPU share; --server-pid names it instead; and a point says
# why no server was counted: the command driver, a host that is not loopback, a closed port,
# a /proc copy without /proc/net (LLAMA_ROOFLINE_PROC_ROOT, honoured). --server-pid values
# are checked before anything runs (exit 2, one line). Every bundle validates.
# Checked to fail: with find_server's lookup removed from cmd/client_run.c (no pids), and with
# the loopback test inverted (127.0.0.1 named not loopback).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-server.$$"
mkdir -p "$work"
spid=
cleanup() {
  [ -n "$spid" ] && kill "$spid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=client

python3 "$RL_SRC/tests/lib/sse-server" >"$work/port" &
spid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -n1 "$work/port")
[ -n "$port" ] || { fail "the SSE server gave no port"; finish; }
python3 - "$work/busy.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(2):
        script = {"id": "b%d" % i, "mode": "busy", "chunks": [[50, "a"], [150, "b"], [250, "c"]]}
        f.write(json.dumps({"prompt": json.dumps(script)}) + "\n")
PY

# server FILE: the first point's measured_server as "pids|found_by|reason|cpu_pct"
server() {
  python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))["client"]["points"][0]["machine"]["measured_server"]
print("%s|%s|%s|%s" % (",".join(map(str, m["pids"])), m.get("found_by", ""), m.get("reason", ""),
                       m.get("cpu_pct")))' "$1" 2>&1
}
real() { env -u LLAMA_ROOFLINE_PROC_ROOT "$@"; }

# ---- found by its listening socket (the real /proc), on 127.0.0.1 and on localhost
for host in 127.0.0.1 localhost; do
  real "$RL_BIN" client --url "http://$host:$port" --prompts "$work/busy.jsonl" --warmup 0 \
    --json "$work/$host.json" >"$work/$host.out" 2>&1
  check "$host: exit 0" 0 $?
  got=$(server "$work/$host.json")
  expect "$host: the server's pid counted" "$got" \
    "^$spid\|the process listening on port $port \(/proc/net/tcp, tcp6\)\|\|"
  cpu=${got##*|}
  python3 -c "import sys; sys.exit(0 if float('$cpu') > 5 else 1)" 2>/dev/null &&
    echo "ok   $host: the server's CPU share recorded ($cpu%)" ||
    fail "$host: the server's CPU share: $got"
done
json_check "every point of the run records it" "$work/127.0.0.1.json" \
  'all(p["machine"]["measured_server"]["pids"]=='"[$spid]"' for p in j["client"]["points"])'

# ---- named with --server-pid
real "$RL_BIN" client --url "http://127.0.0.1:$port" --prompts "$work/busy.jsonl" --warmup 0 \
  --server-pid "$spid" --json "$work/named.json" >/dev/null 2>&1
check "--server-pid: exit 0" 0 $?
expect "--server-pid: that pid counted" "$(server "$work/named.json")" "^$spid\|named by --server-pid\|\|"

# ---- why none was counted
"$RL_BIN" client --url "http://127.0.0.1:$port" --prompts "$work/busy.jsonl" --warmup 0 \
  --json "$work/fake.json" >/dev/null 2>&1
check "a /proc copy: exit 0" 0 $?
expect "a /proc copy without /proc/net: why" "$(server "$work/fake.json")" \
  "^\|\|/proc/net/tcp and /proc/net/tcp6 are not readable: name the server with --server-pid PID\|"
real "$RL_BIN" client --cmd "echo hi" --warmup 0 --json "$work/cmd.json" >/dev/null 2>&1
check "--cmd: exit 0" 0 $?
expect "--cmd: why" "$(server "$work/cmd.json")" \
  "^\|\|the command driver: what the command runs counts as ours once it exits; a server it talks to is another process unless named with --server-pid\|"
closed=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
real "$RL_BIN" client --url "http://127.0.0.1:$closed" --warmup 0 --timeout 2 \
  --json "$work/closed.json" >/dev/null 2>&1
check "a closed port: exit 1 (nothing succeeded)" 1 $?
expect "a closed port: why" "$(server "$work/closed.json")" \
  "^\|\|no process of this machine listens on port $closed \(/proc/net/tcp, tcp6\)"
real "$RL_BIN" client --url "http://no-such-host.invalid:$port" --warmup 0 --timeout 2 \
  --json "$work/far.json" >/dev/null 2>&1
check "another host: exit 1" 1 $?
expect "another host: why" "$(server "$work/far.json")" \
  "^\|\|the server no-such-host.invalid is not a loopback address of this machine"

# ---- --server-pid is checked before anything runs
bad "--server-pid 0" 2 "--server-pid: '0' is not valid" --url "http://127.0.0.1:$port" --server-pid 0
bad "--server-pid x" 2 "--server-pid: 'x' is not valid" --url "http://127.0.0.1:$port" --server-pid x
bad "--server-pid absent" 2 \
  "^llama-roofline client: error: --server-pid 4242: no such process on this machine \(/proc/4242/stat\): give the pid of the server the client talks to$" \
  --url "http://127.0.0.1:$port" --server-pid 4242 --json "$work/none.json"
[ -e "$work/none.json" ] && fail "--server-pid absent: a bundle was written" ||
  echo "ok   --server-pid absent: nothing measured"
# ---- the bundles (measured_server, the client's analysis) pass the JSON schema
for f in 127.0.0.1 named fake cmd closed; do
  python3 - "$RL_SRC/schema/bundle.schema.json" "$work/$f.json" <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
  check "$f: the bundle passes the JSON schema" 0 $?
done
json_check "the client's analysis: its points counted, nothing of a run's" "$work/127.0.0.1.json" \
  'j["analysis"]["scope"]=="client" and j["analysis"]["disturbance"]["n_measurements"]==1 and "fit" not in j["analysis"]'
out=$("$RL_BIN" client --help); check "client --help" 0 $?
expect "--help: --server-pid" "$out" "--server-pid PID +the measured server.s process, 1 to 4194304: its CPU$"
finish
