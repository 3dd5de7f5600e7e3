#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `synth --list`, a tiny model written and re-read by inspect, determinism by seed, the
# option syntax (rl_opt and the number rule), the size rules (sizes past 2^63 - 1 are bad input,
# exit 2; a plan larger than the free space is refused before writing, exit 4), interrupts
# (SIGINT/SIGTERM end a write into a FIFO nobody reads, and a file write, within a second with
# exit 130 and no file left), a failed write (exit 4, no file left), and the exit codes and
# one-line messages of bad invocations.
#
# Every check asserts the binary's own exit status. Each was seen to fail once against a
# binary broken on purpose (a copy of the tree built in /tmp, never committed):
#   - synth writing "GGUX" as the magic: "inspect reads the synth" and "GGUF magic" fail
#     (inspect exits 2; the old script skipped its check then and still said "0 failed");
#   - rl_synth_write skipping rl_synth_space_check: the 205 TiB plan starts writing and
#     "205 TiB plan" fails (ulimit -f and timeout bound the damage);
#   - write_stream blocking SIGINT/SIGTERM in the writing thread too: the FIFO and file
#     interrupt checks fail (the watchdog kills the hung synth: exit 137);
#   - rl_synth_write returning without rl_atomic_abort on failure: "no temp file" checks fail;
#   - --seed parsed with strtoull: "--seed +5" exits 0 and fails.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-synth.$$"
mkdir -p "$work"
watchdog=
trap '[ -n "$watchdog" ] && kill "$watchdog" 2>/dev/null; rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=synth

no_temp() { # description, target base name: no ".NAME.XXXXXX" left in $work
  local left
  left=$(cd "$work" && ls -A | grep -F ".$2." | grep -v '^[^.]')
  [ -z "$left" ] && echo "ok   $1" || fail "$1: left $left"
}

# ---- --list and a tiny model
out=$("$RL_BIN" synth --list); check "--list" 0 $?
for p in tiny tiny-moe qwen2.5-0.5b qwen2.5-1.5b llama-3.2-1b; do
  expect "--list shows $p" "$out" "^$p "
done
expect "--list qwen2.5-0.5b shape" "$out" "^qwen2.5-0.5b +qwen2 +24 +896 +14 +2 +4864 +151936 +- +untied +630.17 M +1.26 GB"
expect "--list llama-3.2-1b shape" "$out" "^llama-3.2-1b +llama +16 +2048 +32 +8 +8192 +128256 +- +tied +1.24 B +2.47 GB"
expect "--list tiny-moe experts" "$out" "^tiny-moe +llama +4 +256 +8 +4 +512 +1024 +2/4 "

out=$("$RL_BIN" synth --preset tiny -o "$work/tiny.gguf" 2>"$work/err"); check "synth tiny" 0 $?
expect "summary line" "$out" "^wrote $work/tiny.gguf: synth tiny, F16, 39 tensors, 2.89 M params, 5.8 MB \(5800224 bytes\), seed 0$"
expect "planned size on stderr" "$(cat "$work/err")" "^synth: writing $work/tiny.gguf: 5.8 MB \(5800224 bytes\) planned; [0-9.]+ [kMGT]?B free$"
[ "$(stat -c %s "$work/tiny.gguf")" = 5800224 ] && echo "ok   tiny size" || fail "tiny size"
no_temp "no temp file left" tiny.gguf
[ "$(head -c 4 "$work/tiny.gguf")" = GGUF ] && echo "ok   GGUF magic" || fail "GGUF magic"

out=$("$RL_BIN" synth --preset tiny -q -o "$work/again.gguf" 2>&1); check "synth tiny -q" 0 $?
[ -z "$out" ] && echo "ok   -q prints nothing" || fail "-q printed: $out"
cmp -s "$work/tiny.gguf" "$work/again.gguf" && echo "ok   same seed, same bytes" || fail "not deterministic"
"$RL_BIN" synth --preset tiny --seed 9 -q -o "$work/seed9.gguf"; check "synth --seed 9" 0 $?
cmp -s "$work/tiny.gguf" "$work/seed9.gguf" && fail "seed ignored" || echo "ok   other seed, other bytes"
out=$("$RL_BIN" synth --preset=tiny-moe --type=q4_0 --n-layer=2 --tied -o "$work/moe.gguf" 2>/dev/null); check "--flag=value forms" 0 $?
expect "tiny-moe Q4_0 summary" "$out" "synth tiny-moe, Q4_0, 22 tensors"
out=$("$RL_BIN" synth --preset tiny --n-expert 4 -o "$work/moe2.gguf" 2>/dev/null); check "--n-expert on tiny" 0 $?
expect "tiny + experts" "$out" "synth tiny, F16, 43 tensors, 7.61 M params"

# the reader sees what was written: inspect's own exit status is asserted
"$RL_BIN" inspect --json "$work/moe.gguf" >"$work/inspect.json"; check "inspect reads the synth" 0 $?
json_check "inspect sees the synth's shape" "$work/inspect.json" \
  'j[0]["name"]=="synth tiny-moe" and j[0]["architecture"]=="llama" and j[0]["label"]=="Q4_0" and j[0]["n_tensors"]==22 and j[0]["expert_count"]==4 and j[0]["tied_embeddings"] is True'

# pipes and devices are written directly; a summary does not go into the data on stdout
"$RL_BIN" synth --preset tiny -o /dev/stdout 2>"$work/err" | cmp -s - "$work/tiny.gguf"
rc=("${PIPESTATUS[@]}"); check "-o /dev/stdout into a pipe" 0 "${rc[0]}"; check "-o /dev/stdout bytes" 0 "${rc[1]}"
expect "-o /dev/stdout: summary on stderr" "$(cat "$work/err")" "^wrote /dev/stdout: synth tiny"
"$RL_BIN" synth --preset tiny -q -o /dev/null; check "-o /dev/null" 0 $?

# ---- option syntax: getopt_long forms and the number rule (docs/CLI.md)
"$RL_BIN" synth --preset tiny --seed=5 -q -o "$work/s5a.gguf"; check "--seed=5" 0 $?
"$RL_BIN" synth -q --seed 5 -o"$work/s5b.gguf" --preset tiny; check "--seed 5, -oFILE, options in any order" 0 $?
cmp -s "$work/s5a.gguf" "$work/s5b.gguf" && echo "ok   --seed=5 is --seed 5" || fail "--seed=5 differs from --seed 5"
bad "--seed +5" 2 "^llama-roofline synth: error: --seed: '\+5' is not valid: give a whole number from 0 to 18446744073709551615$" --preset tiny --seed +5 -o "$work/x.gguf"
bad "--seed -1" 2 "^llama-roofline synth: error: --seed: '-1' is not valid: give a whole number from 0 to 18446744073709551615$" --preset tiny --seed -1 -o "$work/x.gguf"
bad "--seed ' 5'" 2 "--seed: ' 5' is not valid" --preset tiny --seed " 5" -o "$work/x.gguf"
bad "--seed 2^64" 2 "--seed: '18446744073709551616' is not valid" --preset tiny --seed 18446744073709551616 -o "$work/x.gguf"
bad "--n-layer 1,,2" 2 "^llama-roofline synth: error: --n-layer: '1,,2' is not valid: give a whole number from 1 to 512$" --preset tiny --n-layer 1,,2 -o "$work/x.gguf"
bad "--n-layer 2x" 2 "--n-layer: '2x' is not valid: give a whole number from 1 to 512$" --preset tiny --n-layer 2x -o "$work/x.gguf"
bad "--n-embd 0x100" 2 "--n-embd: '0x100' is not valid: give a whole number from 1 to 4294967295$" --preset tiny --n-embd 0x100 -o "$work/x.gguf"
bad "--n-ff=" 2 "--n-ff: '' is not valid" --preset tiny --n-ff= -o "$work/x.gguf"
bad "--n-layer 0" 2 "--n-layer: '0' is not valid: give a whole number from 1 to 512$" --preset tiny --n-layer 0 -o "$work/x.gguf"
bad "--n-vocab 10" 2 "--n-vocab: '10' is not valid: give a whole number from 259 to 4194304$" --preset tiny --n-vocab 10 -o "$work/x.gguf"
bad "unknown option" 2 "^llama-roofline synth: error: unknown option '--frob' \(see llama-roofline synth --help\)$" --preset tiny --frob -o "$work/x.gguf"
bad "unknown short option" 2 "unknown option '-x' \(see llama-roofline synth --help\)$" --preset tiny -x -o "$work/x.gguf"
bad "missing value" 2 "^llama-roofline synth: error: option '--n-layer' needs a value \(see llama-roofline synth --help\)$" --preset tiny -o "$work/x.gguf" --n-layer
bad "-o without value" 2 "option '-o' needs a value" --preset tiny -o
bad "--tied=1" 2 "option '--tied' takes no value" --preset tiny --tied=1 -o "$work/x.gguf"
bad "an operand" 2 "synth takes no file or word 'extra'" --preset tiny -o "$work/x.gguf" extra
bad "empty -o" 2 "--output needs a file path" --preset tiny -o ""
# "-h" as a value is a value: a file named -h. main.c's TRANSITIONAL block answers a bare "-h"
# anywhere in argv before synth parses (until it is removed at merge); synth's own handling of
# `-o -h` is checked by test_synth (test_command_help) meanwhile. -o-h and --output=-h reach
# synth now.
for form in "-o-h" "--output=-h"; do
  rm -f "$work/-h"
  (cd "$work" && "$RL_BIN" synth --preset tiny -q "$form"); check "$form" 0 $?
  [ "$(head -c 4 "$work/-h" 2>/dev/null)" = GGUF ] && echo "ok   $form wrote a file named -h" || fail "$form wrote no file named -h"
done
if grep -q 'TRANSITIONAL: inspect and synth' "$RL_SRC/src/main.c"; then
  echo "skip -o -h: main.c still answers -h for synth (TRANSITIONAL block)"
else
  rm -f "$work/-h"
  out=$(cd "$work" && "$RL_BIN" synth --preset tiny -q -o -h); check "-o -h" 0 $?
  [ -z "$out" ] && [ "$(head -c 4 "$work/-h" 2>/dev/null)" = GGUF ] && echo "ok   -o -h wrote a file named -h" || fail "-o -h wrote no file named -h: $out"
fi
out=$("$RL_BIN" synth --preset tiny -h); check "-h among options" 0 $?
expect "-h prints the usage" "$out" "^usage: llama-roofline synth"
out=$("$RL_BIN" synth --help); check "synth --help" 0 $?
expect "--help names the exit codes" "$out" "^exit codes: 0 written, 2 bad input"

# ---- bad input: exit 2, one line
bad "unknown preset" 2 "unknown preset 'nope' \(valid: tiny, tiny-moe, qwen2.5-0.5b, qwen2.5-1.5b, llama-3.2-1b\)" --preset nope -o "$work/x.gguf"
bad "unknown type" 2 "unknown --type 'Q5_K' \(valid: F32, F16, BF16, Q8_0, Q4_0\)" --preset tiny --type Q5_K -o "$work/x.gguf"
bad "missing -o" 2 "-o OUT.gguf is required" --preset tiny
bad "missing --preset" 2 "--preset is required" -o "$work/x.gguf"
bad "n_embd vs n_head" 2 "--n-embd 256 is not divisible by --n-head 7" --preset tiny --n-head 7 -o "$work/x.gguf"
bad "n_head vs n_head_kv" 2 "--n-head 8 is not a multiple of --n-head-kv 3" --preset tiny --n-head-kv 3 -o "$work/x.gguf"
bad "quant block" 2 "--type Q4_0 needs --n-ff divisible by 32 \(got 100\)" --preset tiny --type Q4_0 --n-ff 100 -o "$work/x.gguf"
bad "experts on qwen2" 2 "experts need a llama-architecture preset" --preset qwen2.5-0.5b --n-expert 4 -o "$work/x.gguf"
bad "one expert" 2 "--n-expert 1 is out of range \(2 to 1024\)" --preset tiny --n-expert 1 -o "$work/x.gguf"
bad "too many used experts" 2 "--n-expert-used 5 must be 1 to --n-expert 4" --preset tiny-moe --n-expert-used 5 -o "$work/x.gguf"

# ---- sizes. Past 2^63 - 1 (ggml's int64 counts, off_t) is bad input: exit 2.
bad "sizes past 2^63 - 1" 2 "^llama-roofline synth: error: tensor blk.0.attn_q.weight \(4294967040 x 4294967040\) would hold more than 2\^63 - 1 elements: make the shape smaller$" --preset tiny --n-embd 4294967040 -o "$work/x.gguf"
bad "64-bit overflow" 2 "^llama-roofline synth: error: tensor blk.0.ffn_gate_exps.weight \(8388608 x 4294967264 x 1024\) would hold more than 2\^63 - 1 elements: make the shape smaller$" --preset tiny-moe --n-embd 8388608 --n-ff 4294967264 --n-expert 1024 -o "$work/x.gguf"
# A plan that fits 64 bits but not the disk (~205 TiB) is an output problem: exit 4, one line,
# before a byte is written. ulimit -f and timeout bound a broken binary.
(ulimit -f 100000; exec timeout 60 "$RL_BIN" synth --preset tiny --n-embd 65536 --n-ff 1048576 \
  --n-layer 512 --n-vocab 4194304 -o "$work/huge.gguf") >"$work/out" 2>"$work/err"
check "205 TiB plan" 4 $?
[ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ] && echo "ok   205 TiB plan: one line" || fail "205 TiB plan output: $(cat "$work/out" "$work/err")"
expect "205 TiB plan message" "$(cat "$work/err")" "^llama-roofline synth: error: cannot write $work/huge.gguf: the model needs 225.40 TB \(225400246054784 bytes\) but its file system has [0-9.]+ [kMGT]?B \([0-9]+ bytes\) free \(free some space, choose another path or a smaller model\)$"
[ ! -e "$work/huge.gguf" ] && echo "ok   205 TiB plan: no file" || fail "205 TiB plan: a file was written"
no_temp "205 TiB plan: no temp file" huge.gguf

# ---- outputs that cannot be written: exit 4, one line, nothing left
bad "unwritable path" 4 "cannot write /proc/nonexistent/x.gguf: No such file or directory" --preset tiny -o /proc/nonexistent/x.gguf
bad "output is a directory" 4 "-o $work is a directory: synth's -o names a file; give a file name" --preset tiny -o "$work"
bad "output is an empty path" 2 "--output needs a file path" --preset tiny -o ""
if [ -w /dev/full ]; then
  bad "disk full" 4 "cannot write /dev/full: No space left on device" --preset tiny -q -o /dev/full
fi
# a write that fails midway (file size limit: EFBIG, with SIGXFSZ ignored)
(trap '' XFSZ; ulimit -f 1000; exec "$RL_BIN" synth --preset tiny -q -o "$work/capped.gguf") >"$work/out" 2>"$work/err"
check "failed write" 4 $?
[ "$(wc -l <"$work/err")" = 1 ] && [ ! -s "$work/out" ] && echo "ok   failed write: one line" || fail "failed write output: $(cat "$work/out" "$work/err")"
expect "failed write message" "$(cat "$work/err")" "^llama-roofline synth: error: cannot write $work/capped.gguf: File too large"
[ ! -e "$work/capped.gguf" ] && echo "ok   failed write: no file" || fail "failed write: a file was left"
no_temp "failed write: no temp file" capped.gguf
ls "$work"/x.gguf* >/dev/null 2>&1 && fail "a failed run left a file" || echo "ok   failed runs leave no file"
no_temp "failed runs leave no temp file" x.gguf

# ---- interrupts: exit 130 within a second, nothing left. A watchdog kills a synth that does not
# stop (exit 137), so a broken binary fails the check instead of hanging the suite.
stop_in_time() { # description, signal, pid, expected message regex
  local what=$1 sig=$2 pid=$3 re=$4 t0 rc ms
  # the watchdog ends by itself within 0.1 s of the synth
  (for _ in $(seq 100); do sleep 0.1; kill -0 "$pid" 2>/dev/null || exit 0; done; kill -KILL "$pid") &
  watchdog=$!
  t0=$(date +%s%N)
  kill "-$sig" "$pid"
  wait "$pid"; rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  wait "$watchdog" 2>/dev/null; watchdog=
  check "$what: exit" 130 "$rc"
  lim=$(interrupt_limit_ms)
  [ "$ms" -lt "$lim" ] && echo "ok   $what: stopped in $ms ms (limit $lim)" || fail "$what: took $ms ms (limit $lim)"
  expect "$what: message" "$(cat "$work/int.err")" "$re"
}

# (a) a FIFO whose reader opened it and never reads: synth blocks in write()
for sig in INT TERM; do
  fifo="$work/fifo.$sig"
  mkfifo "$fifo"
  sleep 100 <"$fifo" & reader=$!
  "$RL_BIN" synth --preset tiny -q -o "$fifo" 2>"$work/int.err" & pid=$!
  for _ in $(seq 200); do [[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *pipe_write* ]] && break; sleep 0.025; done
  [[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *pipe_write* ]] || echo "note: cannot see synth blocked in pipe_write; signalling anyway"
  stop_in_time "FIFO nobody reads, SIG$sig" "$sig" "$pid" "^llama-roofline synth: error: interrupted while writing $fifo$"
  kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
done

# (b) Ctrl-C while a large model is being written to a file: sent once the temporary file
# .big.gguf.XXXXXX exists and has grown past 16 MiB
"$RL_BIN" synth --preset qwen2.5-1.5b -q -o "$work/big.gguf" 2>"$work/int.err" & pid=$!
tmpf=
for _ in $(seq 1000); do
  tmpf=$(cd "$work" && ls -A | grep '^\.big\.gguf\.' | head -1)
  [ -n "$tmpf" ] && [ "$(stat -c %s "$work/$tmpf" 2>/dev/null || echo 0)" -gt 16777216 ] && break
  sleep 0.01
done
[ -n "$tmpf" ] && echo "ok   file write: temp file $tmpf grew" || fail "file write: no temp file seen"
stop_in_time "file write, SIGINT" INT "$pid" "^llama-roofline synth: error: interrupted while writing $work/big.gguf$"
[ ! -e "$work/big.gguf" ] && echo "ok   file write, SIGINT: no target file" || fail "file write, SIGINT: target file written"
no_temp "file write, SIGINT: no temp file" big.gguf

finish
