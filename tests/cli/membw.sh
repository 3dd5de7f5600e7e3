#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `membw` (owner: membw). A quick measured run gives valid JSON with the required keys and
# a positive ceiling; --peak-bw records a controlled ceiling; bad values exit 2 with one line on
# stderr and nothing on stdout; an unwritable -o exits 4; Ctrl-C exits 130 keeping a partial
# result. No bandwidth value is asserted beyond "> 0".
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-membw.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=membw

# ---- help
out=$("$RL_BIN" membw --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline membw"
expect "--help names --peak-bw" "$out" "--peak-bw"

# ---- bad input: exit 2, one line
bad "--membw-mb 0" 2 "membw-mb" --membw-mb 0
bad "--membw-mb -5" 2 "membw-mb" --membw-mb -5
bad "--membw-mb abc" 2 "membw-mb.*abc" --membw-mb abc
bad "--membw-mb 99999999" 2 "membw-mb.*RAM" --membw-mb 99999999
bad "--membw-mb=1.5" 2 "membw-mb" --membw-mb=1.5
bad "--membw-mb without value" 2 "needs a value" --membw-mb
bad "--reps 0" 2 "reps" --reps 0
bad "--threads 0" 2 "threads" --threads 0
bad "--threads 100000" 2 "threads: '100000' is not valid: give a whole number from 1 to [0-9]+$" --threads 100000
# the number rule (docs/CLI.md): plain decimal only, every list element present
bad "--threads 1,,2" 2 "threads: '1,,2' is not a list" --threads 1,,2
bad "--threads 1," 2 "threads: '1,' is not a list" --threads 1,
bad "--reps +3" 2 "reps: '\+3' is not valid" --reps +3
bad "--reps ' 12'" 2 "reps: ' 12' is not valid" --reps " 12"
bad "--peak-bw 0x10" 2 "peak-bw: '0x10' is not valid" --peak-bw 0x10
bad "--peak-bw 1e308" 2 "peak-bw: '1e308' is not valid" --peak-bw 1e308
bad "--peak-bw ' 12'" 2 "peak-bw: ' 12' is not valid" --peak-bw " 12"
bad "--peak-bw=13,98" 2 "peak-bw: '13,98' is not valid" --peak-bw=13,98
bad "--json=1" 2 "option '--json' takes no value" --json=1
bad "operand" 2 "membw takes no file or word 'extra'" extra
bad "-o without value" 2 "option '-o' needs a value" -o
bad "--peak-bw 0" 2 "peak-bw" --peak-bw 0
bad "--peak-bw -3" 2 "peak-bw" --peak-bw -3
bad "--peak-bw nan" 2 "peak-bw" --peak-bw nan
bad "--isa bogus" 2 "isa" --isa bogus
bad "unknown option" 2 "unknown option" --frobnicate
bad "unwritable -o" 4 "cannot write" --peak-bw 40 -o /nonexistent-dir/x/membw.json

# ---- controlled ceiling
"$RL_BIN" membw --peak-bw 40 --json >"$work/ctl.json"; check "--peak-bw 40 --json" 0 $?
json_check "controlled kind and value" "$work/ctl.json" \
  'j["kind"]=="controlled" and j["peak_read_GBs"]==40 and j["runs"]==[] and j["unstable"] is False'
json_check "controlled records the environment" "$work/ctl.json" '"env" in j and "cpu" in j["env"]'
out=$("$RL_BIN" membw --peak-bw 40); check "--peak-bw 40 (text)" 0 $?
expect "controlled text" "$out" "40\.00 GB/s.*controlled"
"$RL_BIN" membw --peak-bw 13.98 -o "$work/out.json" >/dev/null; check "-o" 0 $?
json_check "-o writes the JSON" "$work/out.json" 'j["peak_read_GBs"]==13.98'
"$RL_BIN" membw --peak-bw=13.98 --output="$work/eq.json" >/dev/null; check "--flag=value" 0 $?
json_check "--output=PATH writes the JSON" "$work/eq.json" 'j["peak_read_GBs"]==13.98'
# "-h" as an option's value is a value (a file named -h), not a request for help
(cd "$work" && "$RL_BIN" membw --peak-bw 40 -o -h >/dev/null); check "-o -h" 0 $?
json_check "-o -h wrote a file named -h" "$work/-h" 'j["peak_read_GBs"]==40'
ls "$work"/.*.json.* >/dev/null 2>&1 && fail "a temporary file was left behind" || echo "ok   no temporary file left"

# ---- numbers never depend on the locale: under de_DE.UTF-8 (comma decimal separator, made by
# scripts/deps.sh) "13.98" parses and every number prints with a dot. Checked to fail when
# main's rl_locale_init stops pinning the C locale.
if locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$'; then
  out=$(LC_ALL=de_DE.UTF-8 "$RL_BIN" membw --peak-bw 13.98); check "de_DE: --peak-bw 13.98" 0 $?
  expect "de_DE: text prints a dot" "$out" "13\.98 GB/s"
  LC_ALL=de_DE.UTF-8 "$RL_BIN" membw --peak-bw 13.98 --json >"$work/de.json"; check "de_DE --json" 0 $?
  json_check "de_DE: JSON number" "$work/de.json" 'j["peak_read_GBs"]==13.98'
else
  fail "locale de_DE.UTF-8 missing: run scripts/deps.sh"
fi

# ---- a quick measurement
"$RL_BIN" membw --quick --json >"$work/quick.json" 2>"$work/quick.err"; rc=$?
check "--quick --json" 0 "$rc"
json_check "quick JSON has the required keys" "$work/quick.json" \
  'all(k in j for k in ("peak_read_GBs","kernel","threads","working_set_bytes","unstable","runs","isa","single_thread_GBs","copy_GBs","median_GBs","stability","env","kind","units"))'
json_check "quick ceiling > 0, measured, read-only kernel" "$work/quick.json" \
  'j["peak_read_GBs"]>0 and j["kind"]=="measured" and j["kernel"] in ("sum","xor","dot") and j["threads"]>=1 and j["working_set_bytes"]>=64*2**20'
json_check "every run keeps every repetition" "$work/quick.json" \
  'len(j["runs"])>=4 and all(len(r["samples_GBs"])==j["reps"] for r in j["runs"]) and any(r["kernel"]=="copy" for r in j["runs"])'
json_check "quick flagged, complete" "$work/quick.json" 'j["quick"] is True and j["complete"] is True'

# ---- an allocation failure falls back to a smaller working set and says so. An address-space
# limit makes the 1024 MiB mapping fail for real. ASan reserves terabytes of shadow memory and
# cannot start under such a limit, so the sanitizer build skips this one check.
(ulimit -v 900000; exec "$RL_BIN" membw --quick --membw-mb 1024 --threads 1 --json) \
  >"$work/fb.json" 2>"$work/fb.err"; rc=$?
if grep -q AddressSanitizer "$work/fb.err"; then
  echo "skip allocation fallback under ASan"
else
  check "allocation failure falls back" 0 "$rc"
  json_check "fallback halves the set and records why" "$work/fb.json" \
    'j["working_set_bytes"]==512*2**20 and j["requested_working_set_bytes"]==1024*2**20 and "fell back to 512 MiB" in j["working_set_fallback"]'
  expect "fallback said on stderr" "$(cat "$work/fb.err")" "fell back to 512 MiB"
fi

# ---- Ctrl-C keeps what was measured and exits 130 within a second. The signal is sent once the
# first repetition has finished (progress as plain lines on stderr says "repetition 2/"), so the
# check does not depend on how fast this machine or a sanitizer build is.
LLAMA_ROOFLINE_PROGRESS=lines "$RL_BIN" membw --json --threads 1 --reps 100 --membw-mb 256 \
  >"$work/int.json" 2>"$work/int.err" &
pid=$!
for _ in $(seq 600); do grep -q "read repetition 2/" "$work/int.err" && break; sleep 0.1; done
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "SIGINT exits 130" 130 "$rc"
lim=$(interrupt_limit_ms)
[ "$ms" -lt "$lim" ] && echo "ok   SIGINT honoured in $ms ms (limit $lim)" || fail "SIGINT took $ms ms (limit $lim)"
json_check "interrupted JSON keeps the samples measured, marked incomplete" "$work/int.json" \
  'j["complete"] is False and j["peak_read_GBs"]>0 and sum(len(r["samples_GBs"]) for r in j["runs"])>0'
expect "SIGINT message" "$(cat "$work/int.err")" "interrupted"

finish
