#!/usr/bin/env bash
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
bad "--threads 100000" 2 "threads.*logical" --threads 100000
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

# ---- Ctrl-C keeps what was measured and exits 130
"$RL_BIN" membw --json --threads 1 --reps 100 --membw-mb 256 >"$work/int.json" 2>"$work/int.err" &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"; rc=$?
check "SIGINT exits 130" 130 "$rc"
json_check "interrupted JSON keeps the samples measured, marked incomplete" "$work/int.json" \
  'j["complete"] is False and j["peak_read_GBs"]>0 and sum(len(r["samples_GBs"]) for r in j["runs"])>0'
expect "SIGINT message" "$(cat "$work/int.err")" "interrupted"

finish
