#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: GGUF headers over HTTP (gguf_remote.c) against real servers started here as this
# script's own processes on 127.0.0.1 (never system services): Debian's lighttpd serving a
# synth Qwen2.5-0.5B Q8_0 (673 MB; the cached one when present, else written here) and the
# split fixture; python3 -m http.server (which ignores Range); and tests/lib/bad-http-server.py
# (a server that drips its header, drips its body, floods past the range, or never ends its
# header).
#   - inspect --json URL equals inspect --json of the local file, "path" aside, while fetching
#     under 2% of the file in at most 2 requests: the tool's own counter on stderr and
#     lighttpd's access log (bytes sent) both say so; a redirect is followed; a split model by
#     URL equals its local parts.
#   - the header cache: a second read revalidates by ETag (304) and fetches 0 bytes.
#   - 404, a server without Range support: one line naming the URL, exit 2, transfer bounded.
#   - dripping or endless servers: exit 2 with one line within bounded time and memory
#     (LLAMA_ROOFLINE_HTTP_TIMEOUT=3, max RSS from /usr/bin/time).
#   - predict URL gives the same prediction as the local file.
# Needs no llama.cpp: runs whenever lighttpd is installed (scripts/deps.sh), else skips (77).
# Checked to fail: with the doubling removed from ensure() (blocks of 256 KiB: 12 requests, the
# request-count check fails; since the read sizing, at most 2 requests: with the estimate
# ignored, 5), and with check_response accepting any 200 (the http.server case: no "does not
# answer range requests" line).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
command -v lighttpd >/dev/null || { echo "skip: lighttpd not installed (scripts/deps.sh)"; exit 77; }
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time missing"; exit 77; }
work="$RL_TMP/e2e-remote.$$"
mkdir -p "$work/www/r" "$work/cache"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
export LLAMA_ROOFLINE_CACHE="$work/cache"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { # port: wait until something listens there (at most 10 s)
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
strip_path() { python3 -c '
import json,sys
def s(x):
    if isinstance(x,dict): return {k:s(v) for k,v in x.items() if k!="path"}
    if isinstance(x,list): return [s(v) for v in x]
    return x
print(json.dumps(s(json.load(open(sys.argv[1]))),sort_keys=True))' "$1"; }

# ---- the model served
cached="${HOME:-/nonexistent}/.cache/llama-roofline/synth/qwen2.5-0.5b-Q8_0-seed1.gguf"
if [ -f "$cached" ]; then
  ln -s "$cached" "$work/www/m.gguf"
else
  "$RL_BIN" synth --preset qwen2.5-0.5b --type Q8_0 --seed 1 -q -o "$work/www/m.gguf" || fail "synth"
fi
cp "$RL_SRC"/tests/fixtures/gguf/split/tiny-split-0000*-of-00002.gguf "$work/www/"
size=$(stat -L -c %s "$work/www/m.gguf")

# ---- lighttpd: the test's own process, config in the temp dir
port=$(free_port)
cat >"$work/lighttpd.conf" <<EOF
server.document-root = "$work/www"
server.bind = "127.0.0.1"
server.port = $port
server.modules = ("mod_accesslog", "mod_redirect")
server.errorlog = "$work/lighttpd-error.log"
server.follow-symlink = "enable"
accesslog.filename = "$work/access.log"
accesslog.format = "%s %b %U"
url.redirect = ("^/r/(.*)\$" => "/\$1")
mimetype.assign = (".gguf" => "application/octet-stream")
EOF
lighttpd -D -f "$work/lighttpd.conf" >"$work/lighttpd.out" 2>&1 &
lt_pid=$!; pids+=("$lt_pid")
wait_port "$port" || { fail "lighttpd did not start: $(cat "$work/lighttpd.out" "$work/lighttpd-error.log" 2>/dev/null)"; finish; }
base="http://127.0.0.1:$port"

"$RL_BIN" inspect --json "$work/www/m.gguf" >"$work/local.json"; check "inspect local" 0 $?
"$RL_BIN" inspect --json "$base/m.gguf" >"$work/remote.json" 2>"$work/remote.err"; check "inspect --json URL" 0 $?
[ "$(strip_path "$work/local.json")" = "$(strip_path "$work/remote.json")" ] \
  && echo "ok   URL JSON equals the local file's, path aside" || fail "URL JSON differs: $(diff <(strip_path "$work/local.json") <(strip_path "$work/remote.json") | head -5)"
json_check "path is the URL" "$work/remote.json" "j[0]['path'] == '$base/m.gguf'"
err=$(cat "$work/remote.err")
expect "counter line" "$err" "^remote: $base/m.gguf: fetched [0-9]+ of $size bytes \([0-9.]+%\) in [0-9]+ requests?$"
fetched=$(sed -nE 's/.*fetched ([0-9]+) of.*/\1/p' <<<"$err")
requests=$(sed -nE 's/.* in ([0-9]+) requests?.*/\1/p' <<<"$err")
awk -v f="${fetched:-0}" -v s="$size" 'BEGIN {exit !(f > 0 && f < 0.02 * s)}' \
  && echo "ok   fetched $fetched of $size bytes: $(awk -v f="$fetched" -v s="$size" 'BEGIN {printf "%.3f", 100 * f / s}')% < 2%" \
  || fail "fetched $fetched of $size bytes, not under 2%"
[ "${requests:-99}" -le 2 ] && echo "ok   $requests requests (the first block, then the parser's estimate)" || fail "$requests requests, not at most 2"

# a redirect (301 from /r/m.gguf to /m.gguf) is followed
"$RL_BIN" inspect --json "$base/r/m.gguf" >"$work/redir.json" 2>/dev/null; check "inspect through a redirect" 0 $?
[ "$(strip_path "$work/local.json")" = "$(strip_path "$work/redir.json")" ] \
  && echo "ok   redirected JSON equals the local file's" || fail "redirected JSON differs"

# the header cache: the same URL again revalidates with If-None-Match and fetches nothing
n_cache=$(ls "$work/cache/headers" | wc -l)
[ "$n_cache" -ge 1 ] && echo "ok   header cache written ($n_cache entries)" || fail "no header cache entry"
"$RL_BIN" inspect --json "$base/m.gguf" >"$work/again.json" 2>"$work/again.err"; check "inspect again" 0 $?
expect "revalidated from the cache" "$(cat "$work/again.err")" "fetched 0 of $size bytes .* in 1 request, header cache revalidated$"
cmp -s "$work/remote.json" "$work/again.json" && echo "ok   cached JSON identical" || fail "cached JSON differs"

# a split model by URL: every part's header fetched, equal to the local parts
"$RL_BIN" inspect --json "$RL_SRC/tests/fixtures/gguf/split/tiny-split-00001-of-00002.gguf" >"$work/split-local.json"
"$RL_BIN" inspect --json "$base/tiny-split-00001-of-00002.gguf" >"$work/split-remote.json" 2>/dev/null; check "inspect split URL" 0 $?
[ "$(strip_path "$work/split-local.json")" = "$(strip_path "$work/split-remote.json")" ] \
  && echo "ok   split model by URL equals the local parts" || fail "split JSON differs"
json_check "two shards" "$work/split-remote.json" "j[0]['n_shards'] == 2"

# 404: one line naming the URL and the status, exit 2
CMD=inspect
bad "404" 2 "^llama-roofline inspect: error: $base/missing.gguf: HTTP 404 from the server" "$base/missing.gguf"

# predict by URL equals predict of the local file (a bundle with a fit from the examples)
B="$RL_SRC/examples/synth-amd-epyc/bundle.json"
"$RL_BIN" predict --bundle "$B" --json "$work/www/m.gguf" >"$work/p-local.json"; check "predict local" 0 $?
"$RL_BIN" predict --bundle "$B" --json "$base/m.gguf" >"$work/p-remote.json" 2>/dev/null; check "predict URL" 0 $?
python3 - "$work/p-local.json" "$work/p-remote.json" <<'PY' && echo "ok   predict URL equals predict local" || fail "predict URL differs"
import json, sys
a, b = (json.load(open(f))["predictions"][0] for f in sys.argv[1:])
sys.exit(0 if a["points"] == b["points"] and a["weights_bytes"] == b["weights_bytes"] else 1)
PY

# run refuses a URL in one line
CMD=run
bad "run refuses a URL" 2 "a model given by URL can only be inspected or predicted" -m "$base/m.gguf"
CMD=inspect

# lighttpd's own count of bytes sent (stopped first so its access log is flushed)
kill "$lt_pid"; wait "$lt_pid" 2>/dev/null
sent=$(awk '$3=="/m.gguf" && $2 ~ /^[0-9]+$/ {s+=$2} END {print s+0}' "$work/access.log")
n_m=$(awk '$3=="/m.gguf"' "$work/access.log" | wc -l)
# three reads of /m.gguf (plain, after the redirect, predict) and one revalidation (304)
awk -v f="$sent" -v s="$size" 'BEGIN {exit !(f > 0 && f < 3 * 0.02 * s)}' \
  && echo "ok   lighttpd sent $sent bytes for $n_m requests of /m.gguf over three reads: under 2% of $size each" \
  || fail "lighttpd sent $sent bytes ($n_m requests): $(head -20 "$work/access.log")"
grep -q "^304 " "$work/access.log" && echo "ok   lighttpd answered 304 to the revalidation" || fail "no 304 in the access log"

# ---- python3 -m http.server ignores Range: stopped at the first response
pport=$(free_port)
(cd "$work/www" && exec python3 -m http.server "$pport" --bind 127.0.0.1) >"$work/py.log" 2>&1 &
pids+=("$!")
wait_port "$pport" || fail "http.server did not start"
t0=$EPOCHREALTIME
bad "server without Range" 2 "^llama-roofline inspect: error: http://127.0.0.1:$pport/m.gguf: the server does not answer range requests \(it sent 200 with the whole $size-byte file\); the transfer was stopped at its first [0-9]+ bytes" "http://127.0.0.1:$pport/m.gguf"
got=$(sed -nE 's/.*stopped at its first ([0-9]+) bytes.*/\1/p' "$work/err")
[ -n "$got" ] && [ "$got" -le 1048576 ] && echo "ok   stopped after $got bytes" || fail "not stopped early: $got"
el=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}')
awk -v e="$el" 'BEGIN {exit !(e < 5)}' && echo "ok   refused in $el s" || fail "took $el s"

# ---- misbehaving servers: bounded time and memory
export LLAMA_ROOFLINE_HTTP_TIMEOUT=3
for mode in drip-header drip-body flood endless-header; do
  python3 "$RL_SRC/tests/lib/bad-http-server.py" "$mode" "$work/port.$mode" &
  pids+=("$!")
  for _ in $(seq 50); do [ -s "$work/port.$mode" ] && break; sleep 0.1; done
  url="http://127.0.0.1:$(cat "$work/port.$mode")/m.gguf"
  t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$work/rss.$mode" "$RL_BIN" inspect --json "$url" >"$work/out.$mode" 2>"$work/err.$mode"
  rc=$?
  el=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.2f", b - a}')
  rss=$(tail -1 "$work/rss.$mode")
  check "$mode: exit 2" 2 "$rc"
  [ "$(wc -l <"$work/err.$mode")" = 1 ] && echo "ok   $mode: one line: $(cat "$work/err.$mode")" || fail "$mode: not one line: $(cat "$work/err.$mode")"
  case $mode in
    drip-*) expect "$mode: timed out" "$(cat "$work/err.$mode")" "no complete answer in time" ;;
    flood) expect "$mode: stopped" "$(cat "$work/err.$mode")" "sent more than the [0-9]+ bytes asked for" ;;
    endless-header) expect "$mode: refused" "$(cat "$work/err.$mode")" "cannot fetch|no complete answer in time" ;;
  esac
  awk -v e="$el" 'BEGIN {exit !(e < 15)}' && echo "ok   $mode: ended in $el s" || fail "$mode: took $el s"
  [ "$rss" -lt 131072 ] && echo "ok   $mode: max RSS $rss KiB" || fail "$mode: max RSS $rss KiB"
done
unset LLAMA_ROOFLINE_HTTP_TIMEOUT
finish
