#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `client --url` names each way a server can fail, in one line naming the host (never the
# URL's credentials), in the bundle's records and the summary's "first failure" line; nothing
# succeeded, so exit 1. The servers are tests/lib/raw-http-server.py (one per mode).
# Checked to fail before the fix (client/client_http.c's transport_error and the HTTP/0.9
# check in on_write): a silent server, an HTTP/0.9 answer and a bad status line were all
# "cannot connect to URL: <libcurl's words>", a flood of 100 Continue was "HTTP 100: (empty
# body)", a refused connection and DNS named the whole URL.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-http-errors.$$"
mkdir -p "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
SERVER="$RL_SRC/tests/lib/raw-http-server.py"

start() { # MODE: start a server, wait for its port file
  python3 "$SERVER" "$1" "$work/port.$1" &
  pids+=($!)
}
port() { # MODE: its port, once it listens
  for _ in $(seq 200); do [ -s "$work/port.$1" ] && break; sleep 0.05; done
  cat "$work/port.$1"
}
for m in silent continue-flood http09 bad-status empty truncated plain full; do start "$m"; done

# case NAME URL MESSAGE [EXTRA OPTIONS]: every request's error is MESSAGE exactly (a regex
# when it starts with ~), the summary's first failure says it, and the exit code is 1
case_() {
  local name=$1 url=$2 want=$3; shift 3
  "$RL_BIN" client --url "$url" --warmup 0 --timeout 1 --concurrency 3 --json "$work/$name.json" "$@" \
    >"$work/$name.out" 2>"$work/$name.err"
  check "$name: exit 1" 1 $?
  local got
  got=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
print("\n".join(sorted(set(r["error"] for r in j["client"]["points"][0]["records"]))))' \
    "$work/$name.json" 2>&1)
  if [ "${want:0:1}" = "~" ]; then
    expect "$name: the message" "$got" "^${want:1}\$"
  else
    [ "$got" = "$want" ] && echo "ok   $name: the message" || fail "$name: got: $got"
  fi
  local first
  first=$(sed -n 's/^  concurrency [0-9]*, first failure: //p' "$work/$name.out")
  [ "$first" = "$got" ] && echo "ok   $name: the summary says it" || fail "$name: summary: $first"
  grep -q "s3cr3t" "$work/$name.out" "$work/$name.err" "$work/$name.json" &&
    fail "$name: the password is shown" || echo "ok   $name: no credentials shown"
}

h="127.0.0.1"
p=$(port silent)
case_ silent "http://u:s3cr3t@$h:$p" "no response from $h:$p within 1 s"
json_check "silent: timed out, no status" "$work/silent.json" \
  'all(r["timed_out"] and r["http_status"] is None for r in j["client"]["points"][0]["records"])'
p=$(port full)
case_ connect-timeout "http://u:s3cr3t@$h:$p" "cannot connect to $h:$p within 1 s"
p=$(port continue-flood)
case_ continue-flood "http://u:s3cr3t@$h:$p" \
  "protocol error: $h:$p sent interim HTTP 100 responses and never a final status"
p=$(port http09)
case_ http09 "http://u:s3cr3t@$h:$p" \
  "not an HTTP response from $h:$p (no status line): data: {\"choices\": []}"
p=$(port bad-status)
case_ bad-status "http://u:s3cr3t@$h:$p" "~protocol error: $h:$p sent a malformed HTTP status line \(.+\)"
p=$(port empty)
case_ empty "http://u:s3cr3t@$h:$p" "$h:$p closed the connection without a response"
p=$(port truncated)
case_ truncated "http://u:s3cr3t@$h:$p" "~the stream from $h:$p broke off: .+"
p=$(port plain)
case_ tls "https://u:s3cr3t@$h:$p" "~TLS with $h:$p failed: .+"
case_ dns "http://u:s3cr3t@no-such-host.invalid:8080" \
  "cannot resolve host no-such-host.invalid (DNS): check the host name in the URL"
# a closed port: bind one, note it, close it
p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
case_ refused "http://u:s3cr3t@$h:$p" "cannot connect to $h:$p: Connection refused"
finish
