#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: nothing leaked (issue 18, part 2).
#   - Credentials in URLs (user:pass@ and signed query parameters, base/rl_url.h): given to
#     predict, inspect, diagnose --predict and client --url, neither stderr nor stdout nor the
#     bundle nor the report nor the header cache (LLAMA_ROOFLINE_CACHE/headers) holds the
#     password or a signature's value; the server (tests/lib/range-http-server.py) still got
#     the whole URL, and a second read still revalidates the cache entry.
#   - no raw BEL/ESC/C1 byte reaches the terminal (rl_tty_printf): predict's verdict line from
#     a hostile bundle, run's per-run failure line from a llama-bench whose stderr holds them.
#     client --csv - escapes a bundle's text cells (client_csv.h).
#   - advise --plan prints llama-quantize and advise --measure lines quoted for sh
#     (rl_sh_quote): run through sh, a path with a space, a quote and a $ arrives whole.
# Checked to fail before the fix (src/ stashed, this script kept): the password and signature
# were on stderr ("remote: URL: fetched"), in the cache entry's JSON line, in the bundle's
# argv and predictions, in the report, and in the inspect error line; advise --plan's lines
# split the path at the space; predict printed the bundle's verdict raw; client --csv - the
# cells raw. (run's failure line
# was already escaped: it guards the move to rl_tty_printf.)
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-leaks.$$"
mkdir -p "$work/www" "$work/home"
srv=
cleanup() {
  [ -n "$srv" ] && kill "$srv" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
. "$RL_SRC/tests/lib/cli.sh"
export HOME="$work/home" LLAMA_ROOFLINE_CACHE="$work/cache" LLAMA_ROOFLINE_SYNTH_PRESET=tiny
export LLAMA_ROOFLINE_PROGRESS=lines
unset LLAMA_MODELS LLAMA_BENCH
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
PI="$RL_SRC/examples/rpi5-cortex-a76/bundle.json"
SECRETS='hunter2|deadbeefsig|AKIASECRET|tok123'
clean() { # description, files...: none holds a secret
  local what=$1; shift
  local hit
  hit=$(grep -rEal -- "$SECRETS" "$@" 2>/dev/null)
  [ -z "$hit" ] && echo "ok   $what: no secret" || fail "$what: a secret in $hit: $(grep -rEaho -- ".{0,30}($SECRETS)" "$@" | head -3 | tr "\n" " ")"
}

# ---- a range server with the model
cp "$RL_SRC/tests/fixtures/gguf/tiny-valid.gguf" "$work/www/m.gguf"
python3 "$RL_SRC/tests/lib/range-http-server.py" "$work/www" "$work/port" "$work/access.log" &
srv=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
Q='X-Amz-Signature=deadbeefsig&X-Amz-Credential=AKIASECRET&x=1'
U="http://alice:hunter2@127.0.0.1:$port/m.gguf?$Q"
SHOWN="http://\*\*\*@127.0.0.1:$port/m.gguf\?X-Amz-Signature=\*\*\*&X-Amz-Credential=\*\*\*&x=1"

"$RL_BIN" predict --bundle "$PI" "$U" >"$work/p.out" 2>"$work/p.err"; check "predict URL: exit 0" 0 $?
expect "predict URL: stderr names the URL redacted" "$(cat "$work/p.err")" "^remote: $SHOWN: fetched"
expect "predict URL: stdout names the URL redacted" "$(cat "$work/p.out")" "$SHOWN, "
clean "predict URL: stdout, stderr, cache" "$work/p.out" "$work/p.err" "$work/cache"
ls "$work/cache/headers/"*.ggufh >/dev/null 2>&1 && echo "ok   the header was cached" || fail "no cache entry"
grep -q "GET /m.gguf?$Q " "$work/access.log" && echo "ok   the server got the whole URL" || fail "server log: $(cat "$work/access.log")"
"$RL_BIN" predict --bundle "$PI" --json "$U" >"$work/p.json" 2>"$work/p2.err"; check "predict --json URL again: exit 0" 0 $?
expect "the cache entry is still found" "$(cat "$work/p2.err")" "header cache revalidated"
clean "predict --json" "$work/p.json" "$work/p2.err"
"$RL_BIN" predict --bundle "$PI" --markdown "$U" >"$work/p.md" 2>/dev/null; check "predict --markdown URL: exit 0" 0 $?
clean "predict --markdown" "$work/p.md"

# errors: a closed port, a URL given to a command that runs models
"$RL_BIN" inspect "http://alice:hunter2@127.0.0.1:1/m.gguf?$Q" >"$work/i.out" 2>"$work/i.err"; check "inspect closed port: exit 2" 2 $?
expect "inspect closed port: one line naming the URL redacted" "$(cat "$work/i.err")" "error: http://\*\*\*@127.0.0.1:1/m.gguf\?X-Amz-Signature=\*\*\*&X-Amz-Credential=\*\*\*&x=1: cannot fetch"
clean "inspect closed port" "$work/i.out" "$work/i.err"
"$RL_BIN" run --llama-bench "$FAKE" -o "$work/r" -m "$U" >"$work/r.out" 2>"$work/r.err"; check "run -m URL: exit 2" 2 $?
clean "run -m URL refused" "$work/r.out" "$work/r.err"

# diagnose --predict URL: the bundle, the report, the terminal
"$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 --quick --synth -o "$work/d" --predict "$U" \
  >"$work/d.out" 2>"$work/d.err"; check "diagnose --predict URL: exit 0" 0 $?
json_check "diagnose --predict URL: the prediction names the URL redacted" "$work/d/bundle.json" \
  "j['predictions']['models'][0]['model'] == 'http://***@127.0.0.1:$port/m.gguf?X-Amz-Signature=***&X-Amz-Credential=***&x=1'"
json_check "diagnose --predict URL: argv redacted" "$work/d/bundle.json" \
  "j['argv'][-1].startswith('http://***@127.0.0.1:')"
clean "diagnose --predict URL: bundle, report, terminal" "$work/d/bundle.json" "$work/d/report.html" "$work/d.out" "$work/d.err"
"$RL_BIN" validate "$work/d/bundle.json" >/dev/null; check "the bundle validates" 0 $?

# client --url: an endpoint that does not answer
CU="http://alice:hunter2@127.0.0.1:1/v1?sig=deadbeefsig&token=tok123"
"$RL_BIN" client --url "$CU" -o "$work/c" >"$work/c.out" 2>"$work/c.err"; check "client --url closed port: exit 1" 1 $?
clean "client --url: bundle, report, terminal" "$work/c/bundle.json" "$work/c/report.html" "$work/c.out" "$work/c.err"
"$RL_BIN" client --url "ftp://alice:hunter2@h/v1?sig=deadbeefsig" -o "$work/c2" >"$work/c2.out" 2>"$work/c2.err"; check "client --url ftp: exit 2" 2 $?
expect "client --url ftp: names the URL redacted" "$(cat "$work/c2.err")" "URL 'ftp://\*\*\*@h/v1\?sig=\*\*\*' is not http or https"
clean "client --url ftp" "$work/c2.out" "$work/c2.err"
# a --cmd child that fails naming a URL with credentials, and a --cmd that holds one: the
# bundle, report, CSV and terminal carry them redacted (the answer it streams is its own)
"$RL_BIN" client --cmd 'echo "fetch failed: http://alice:hunter2@h/v1?sig=deadbeefsig&token=tok123" >&2; exit 3' \
  -o "$work/c3" --csv "$work/c3.csv" >"$work/c3.out" 2>"$work/c3.err"; check "client --cmd failing with a URL: exit 1" 1 $?
clean "client --cmd: a child's error line with a URL" "$work/c3/bundle.json" "$work/c3/report.html" "$work/c3.csv" "$work/c3.out" "$work/c3.err"
"$RL_BIN" validate "$work/c3/bundle.json" >/dev/null; check "client --cmd failing: the bundle validates" 0 $?
# said before anything starts: one line, no live line, no output directory
[ "$(wc -l <"$work/c2.err")" = 1 ] && [ ! -e "$work/c2" ] && echo "ok   client --url ftp: one line, nothing written" ||
  fail "client --url ftp: not one line or wrote $work/c2: $(cat "$work/c2.err")"

# ---- advise --plan: the command lines paste into sh (a path with a space and a quote)
mkdir -p "$work/my dir" "$work/bin"
src="$work/my dir/it's a \$HOME model-f16.gguf"
"$RL_BIN" synth --preset tiny --type F16 -q -o "$src" || fail "synth F16"
out=$("$RL_BIN" advise --plan "$src"); check "advise --plan: exit 0" 0 $?
printf '#!/bin/sh\nfor a in "$@"; do printf "<%%s>\\n" "$a"; done\n' >"$work/bin/llama-quantize"
chmod +x "$work/bin/llama-quantize"
line=$(grep -m1 '^    llama-quantize ' <<<"$out")
got=$(PATH="$work/bin:$PATH" sh -c "$line" | tr '\n' '|')
want="<$src>|<$work/my dir/it's a \$HOME model-Q4_0.gguf>|<Q4_0>|"
[ "$got" = "$want" ] && echo "ok   advise --plan: the llama-quantize line run by sh gives the paths" || fail "advise --plan: sh got $got, want $want (line: $line)"
expect "advise --plan: quoted for sh" "$line" "^    llama-quantize '$work/my dir/it'\\\\''s a \\\$HOME model-f16.gguf' "
mline=$(grep -m1 'llama-roofline advise --measure' <<<"$out")
got=$(eval "set -- ${mline#*--measure}"; printf '%s|' "$2")
[ "$got" = "$work/my dir/it's a \$HOME model-Q4_0.gguf|" ] && echo "ok   advise --plan: the measure line's -m paths are words" || fail "advise --plan: measure -m got $got"

# ---- no raw ESC/BEL/C1 on the terminal: a bundle's verdict (predict), llama-bench's stderr (run)
raw() { # description, files...: no BEL, ESC, C1 (UTF-8 C2 80..9F) or raw 0x9b byte
  if LC_ALL=C grep -qaP '[\x07\x1b\x9b]|\xc2[\x80-\x9f]' "${@:2}"; then
    fail "$1: a raw control byte: $(cat -v "${@:2}" | grep -a 'M-\|\^\[\|\^G' | head -2)"
  else echo "ok   $1: no raw control byte"; fi
}
python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
j['analysis']['verdict']['label']='memory\x1b]0;pwned\x07-bound\u009b'
json.dump(j,open(sys.argv[2],'w'))" "$PI" "$work/hostile.json"
"$RL_BIN" predict --bundle "$work/hostile.json" synth:tiny:Q8_0 >"$work/hp.out" 2>"$work/hp.err"; check "predict, hostile verdict: exit 0" 0 $?
expect "predict: the verdict escaped" "$(cat "$work/hp.out")" 'verdict there: memory\\e\]0;pwned\\x07-bound\\u009b$'
raw "predict, hostile verdict" "$work/hp.out" "$work/hp.err"
printf '#!/bin/sh\n[ "${1:-}" = --version ] && { echo "version: 0.5.0-dev (build 1, commit de3ff81)" >&2; exit 0; }\nprintf "llama_bench: error: \\033]0;pwned\\007 \\302\\233 \\233 end\\n" >&2\nexit 1\n' >"$work/bin/bad-bench"
chmod +x "$work/bin/bad-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth Q8_0"
"$RL_BIN" run --llama-bench "$work/bin/bad-bench" -t 1 -o "$work/run" -m "$work/a.gguf" >"$work/run.out" 2>"$work/run.err"; check "run, llama-bench failing with escapes: exit 1" 1 $?
expect "run: the failure line escaped" "$(cat "$work/run.err")" 'a.gguf t=1 depth 0: llama-bench exited 1: llama_bench: error: \\e\]0;pwned\\x07 \\u009b \\x9b end$'
raw "run, llama-bench's stderr" "$work/run.out" "$work/run.err"

# ---- client --csv -: a bundle's text cells (here the error of a hostile saved bundle) escaped
printf '#!/bin/sh\necho boom >&2\nexit 3\n' >"$work/bin/badcmd"
chmod +x "$work/bin/badcmd"
"$RL_BIN" client --cmd "$work/bin/badcmd" --json "$work/cl.json" >/dev/null 2>&1; check "client --cmd failing: exit 1" 1 $?
python3 -c "
import json,sys; j=json.load(open(sys.argv[1]))
for p in j['client']['points']:
    for r in p['records']: r['error']='boom \x1b]0;pwned\x07 \u009b end'
json.dump(j,open(sys.argv[1],'w'))" "$work/cl.json"
"$RL_BIN" client --from "$work/cl.json" --csv - >"$work/csv.out" 2>"$work/csv.err"; check "client --from --csv -: exit 0" 0 $?
expect "client --csv -: the cell escaped" "$(sed -n 2p "$work/csv.out")" ',false,boom \\e\]0;pwned\\x07 \\u009b end,'
raw "client --csv -" "$work/csv.out" "$work/csv.err"

finish
