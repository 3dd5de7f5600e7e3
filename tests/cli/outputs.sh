#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: outputs never clobber inputs, never follow a symbolic link, and one output is written by
# one process at a time (issue 18, "nothing lost").
#  - An output that is an input (same path, a hard link, a path through a symlink) or another
#    output of the same command: exit 2, one line, before anything is written; the input is
#    byte-identical afterwards (cmp).
#  - An output path that is a symbolic link (to a file, or dangling): exit 4, one line, and the
#    link's target is untouched (nothing created, truncated or replaced).
#  - A second process writing an output directory (or a -o file) that another holds: exit 4,
#    "DIR is being written by another llama-roofline (pid N); wait for it or choose another
#    -o", nothing measured (the fake llama-bench never started); the first run's bundle intact.
#  - Every other input a command reads (diagnose --predict, --llama-bench, a resumed bundle's
#    model paths, advise's -m, --cpuinfo, --llama-quantize, client --fm-help-cmd) against every
#    output: exit 2, one line, nothing written (no output directory made, nothing measured).
# Checked to fail before the fix (the binary of the commit before it): every case here but
# import's and report's -o/input ones (those refused already) exited 0 and overwrote the
# input, followed the --chunks link, or ran beside the other process.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-outputs.$$"
mkdir -p "$work"
bg=
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
STREAM="$(dirname "$RL_BIN")/fake-stream"
[ -x "$STREAM" ] || { echo "no fake-stream next to $RL_BIN"; exit 1; }
E="^llama-roofline [a-z]+: error: "

intact() { # what, file, its saved copy
  if cmp -s "$2" "$3"; then echo "ok   $1: input byte-identical"; else fail "$1: input changed"; fi
}

# ---- an output that is an input, or another output
A="$work/a.json"; B="$work/b.json"
cp "$RL_SRC/examples/rpi5-cortex-a76/bundle.json" "$A"
cp "$RL_SRC/examples/synth-amd-epyc/bundle.json" "$B"
cp "$B" "$work/b.saved"
ln "$B" "$work/b-hard.json"
ln -s b.json "$work/b-link.json"
CMD=compare
bad "compare A B -o B" 2 "${E}-o $B is the same file as the input $B: choose another -o$" "$A" "$B" -o "$B"
intact "compare -o B" "$B" "$work/b.saved"
bad "compare A B -o hard link of B" 2 "${E}-o $work/b-hard.json is the same file as the input $B: choose another -o$" "$A" "$B" -o "$work/b-hard.json"
bad "compare A B -o symlink to B" 2 "${E}-o $work/b-link.json is the same file as the input $B" "$A" "$B" -o "$work/b-link.json"
intact "compare -o links" "$B" "$work/b.saved"
mkdir "$work/cdir"; cp "$B" "$work/cdir/bundle.json"
bad "compare A DIR -o DIR/bundle.json" 2 "${E}-o $work/cdir/bundle.json is the same file as the input $work/cdir/bundle.json" "$A" "$work/cdir" -o "$work/cdir/bundle.json"
intact "compare -o DIR/bundle.json" "$work/cdir/bundle.json" "$work/b.saved"

C="$work/client.json"
cp "$RL_SRC/tests/fixtures/client/bundle.json" "$C"; cp "$C" "$work/c.saved"
CMD=client
bad "client --from B --csv B" 2 "${E}--csv $C is the same file as the input $C: choose another --csv$" --from "$C" --csv "$C"
intact "client --from B --csv B" "$C" "$work/c.saved"
bad "client --json F --csv F (new)" 2 "${E}--bundle $work/f.json and --csv $work/f.json are the same file: choose another --csv$" --cmd "$STREAM 1 x" --bundle "$work/f.json" --csv "$work/f.json"
[ -e "$work/f.json" ] && fail "--json F --csv F wrote F" || echo "ok   --json F --csv F: nothing written"
bad "client --json F --csv F (existing)" 2 "${E}--bundle $C and --csv $C are the same file" --cmd "$STREAM 1 x" --json "$C" --csv "$C"
intact "client --json F --csv F" "$C" "$work/c.saved"
bad "client --json F --chunks F" 2 "${E}--bundle $C and --chunks $C are the same file: choose another --chunks$" --cmd "$STREAM 1 x" --json "$C" --chunks "$C"
bad "client -o DIR --csv DIR/bundle.json" 2 "${E}-o $work/cd/bundle.json and --csv $work/cd/bundle.json are the same file" --cmd "$STREAM 1 x" -o "$work/cd" --csv "$work/cd/bundle.json"
printf '{"id": "p", "prompt": "hello"}\n' >"$work/p.jsonl"; cp "$work/p.jsonl" "$work/p.saved"
bad "client --prompts P --csv P" 2 "${E}--csv $work/p.jsonl is the same file as the input $work/p.jsonl" --cmd "$STREAM 1 x" --prompts "$work/p.jsonl" -o "$work/pd" --csv "$work/p.jsonl"
intact "client --prompts P" "$work/p.jsonl" "$work/p.saved"

CMD=import
bad "import F -o hard link of F" 2 "${E}-o $work/b-hard.json is the same file as the input $B: choose another -o$" "$B" -o "$work/b-hard.json"
intact "import -o hard link" "$B" "$work/b.saved"

CMD=report
bad "report B --markdown B" 2 "${E}--markdown $B is the same file as the input $B: choose another --markdown$" "$B" --markdown "$B"
bad "report B --png B" 2 "${E}--png $B is the same file as the input $B: choose another --png$" "$B" --png "$B"
intact "report --markdown/--png B" "$B" "$work/b.saved"
bad "report B -o X --markdown X" 2 "${E}--markdown $work/x.html and -o $work/x.html are the same file: choose another -o$" "$B" -o "$work/x.html" --markdown "$work/x.html"
[ -e "$work/x.html" ] && fail "report -o X --markdown X wrote X" || echo "ok   report -o X --markdown X: nothing written"

CMD=advise
cp "$RL_SRC/tests/fixtures/cpuinfo/rpi5.txt" "$work/cpu.txt"; cp "$work/cpu.txt" "$work/cpu.saved"
bad "advise --cpuinfo F -o F" 2 "${E}-o $work/cpu.txt is the same file as the input $work/cpu.txt: choose another -o$" --cpuinfo "$work/cpu.txt" -o "$work/cpu.txt"
intact "advise --cpuinfo F -o F" "$work/cpu.txt" "$work/cpu.saved"

"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/m.gguf" || fail "synth m"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/n.gguf" || fail "synth n"
mkdir "$work/md"; cp "$work/m.gguf" "$work/md/bundle.json"; cp "$work/m.gguf" "$work/m.saved"
CMD=run
bad "run -m DIR/bundle.json -o DIR" 2 "${E}-o $work/md/bundle.json is the same file as the input $work/md/bundle.json: choose another -o$" --llama-bench "$FAKE" --peak-bw 40 -m "$work/md/bundle.json" -m "$work/n.gguf" -t 1 -o "$work/md"
intact "run -m DIR/bundle.json" "$work/md/bundle.json" "$work/m.saved"

# ---- every other input of a command against its outputs: exit 2 before anything is written
# (diagnose --predict, run and diagnose --llama-bench, a resumed bundle's model paths, advise's
# -m, --cpuinfo, --llama-quantize and -o against --dir, client --fm-help-cmd)
nothing() { # what, directory that must hold only the given names
  local d=$1; shift
  local got; got=$(cd "$d" && ls -A | sort | tr '\n' ' ')
  [ "$got" = "$* " ] && echo "ok   $d: nothing written beside $*" || fail "$d holds: $got"
}
mkdir "$work/dp"; cp "$work/m.gguf" "$work/dp/bundle.json"; cp "$work/m.gguf" "$work/dp/report.html"
CMD=diagnose
FAKE_LOG="$work/dlog" bad "diagnose --predict DIR/bundle.json -o DIR" 2 "${E}-o $work/dp/bundle.json is the same file as the input $work/dp/bundle.json: choose another -o$" \
  --llama-bench "$FAKE" --peak-bw 40 -t 1 -o "$work/dp" --predict "$work/dp/bundle.json" "$work/n.gguf"
FAKE_LOG="$work/dlog" bad "diagnose --predict DIR/report.html -o DIR" 2 "${E}-o $work/dp/report.html is the same file as the input $work/dp/report.html: choose another -o$" \
  --llama-bench "$FAKE" --peak-bw 40 -t 1 -o "$work/dp" --predict "$work/dp/report.html" "$work/n.gguf"
FAKE_LOG="$work/dlog" bad "diagnose --resume --predict DIR/report.html" 2 "${E}-o $work/dp/report.html is the same file as the input" \
  --resume --llama-bench "$FAKE" -o "$work/dp" --predict "$work/dp/report.html"
intact "diagnose --predict DIR/bundle.json" "$work/dp/bundle.json" "$work/m.saved"
intact "diagnose --predict DIR/report.html" "$work/dp/report.html" "$work/m.saved"
[ -e "$work/dlog" ] && fail "diagnose --predict: llama-bench ran" || echo "ok   diagnose --predict: nothing measured"
nothing "$work/dp" bundle.json report.html
mkdir "$work/lb"; cp "$FAKE" "$work/lb/bundle.json"; cp "$FAKE" "$work/lb.saved"
# (diagnose says its plan on stderr first: the error is the last line)
"$RL_BIN" diagnose --llama-bench "$work/lb/bundle.json" --peak-bw 40 -t 1 -o "$work/lb" "$work/m.gguf" >"$work/out" 2>"$work/err"
check "diagnose --llama-bench DIR/bundle.json -o DIR" 2 $?
[ -s "$work/out" ] && fail "diagnose --llama-bench: stdout: $(cat "$work/out")"
expect "diagnose --llama-bench DIR/bundle.json: the line" "$(tail -1 "$work/err")" "${E}-o $work/lb/bundle.json is the same file as the input .*/lb/bundle.json: choose another -o$"
CMD=run
bad "run --llama-bench DIR/bundle.json -o DIR" 2 "${E}-o $work/lb/bundle.json is the same file as the input .*/lb/bundle.json: choose another -o$" \
  --llama-bench "$work/lb/bundle.json" --peak-bw 40 -m "$work/m.gguf" -t 1 -o "$work/lb"
intact "--llama-bench DIR/bundle.json" "$work/lb/bundle.json" "$work/lb.saved"
nothing "$work/lb" bundle.json
# a bundle to resume whose model is its own report.html (crafted)
FAKE_MODE=exit1 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/m.gguf" -t 1 -o "$work/rr" >/dev/null 2>&1
cp "$work/m.gguf" "$work/rr/report.html"
python3 - "$work/rr/bundle.json" "$work/rr/report.html" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["models"][0]["path"] = sys.argv[2]
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
cp "$work/rr/bundle.json" "$work/rr.saved"; crafted "$work/rr/bundle.json"
FAKE_LOG="$work/rlog" bad "run --resume, a model of the bundle is DIR/report.html" 2 "${E}-o $work/rr/report.html is the same file as the input $work/rr/report.html: choose another -o$" \
  --resume --llama-bench "$FAKE" -o "$work/rr"
intact "run --resume: the bundle" "$work/rr/bundle.json" "$work/rr.saved"
intact "run --resume: the model" "$work/rr/report.html" "$work/m.saved"
[ -e "$work/rlog" ] && fail "run --resume: llama-bench ran" || echo "ok   run --resume: nothing measured"
CMD=advise
bad "advise --measure -m F -o F" 2 "${E}-o $work/m.gguf is the same file as the input $work/m.gguf: choose another -o$" \
  --measure --llama-bench "$FAKE" -m "$work/m.gguf" -m "$work/n.gguf" --threads 1 --dir "$work/ad" -o "$work/m.gguf"
intact "advise --measure -m F -o F" "$work/m.gguf" "$work/m.saved"
bad "advise --measure --dir NEW -o NEW/bundle.json" 2 "${E}--dir $work/ad/bundle.json and -o $work/ad/bundle.json are the same file: choose another -o$" \
  --measure --llama-bench "$FAKE" -m "$work/m.gguf" -m "$work/n.gguf" --threads 1 --dir "$work/ad" -o "$work/ad/bundle.json"
bad "advise --measure --dir NEW -o NEW//./report.html" 2 "${E}--dir $work/ad/report.html and -o $work/ad//./report.html are the same file: choose another -o$" \
  --measure --llama-bench "$FAKE" -m "$work/m.gguf" -m "$work/n.gguf" --threads 1 --dir "$work/ad" -o "$work/ad//./report.html"
[ -e "$work/ad" ] && fail "advise: --dir created" || echo "ok   advise: nothing written (--dir not created)"
bad "advise --measure --cpuinfo DIR/bundle.json --dir DIR" 2 "${E}--dir $work/dp/bundle.json is the same file as the input $work/dp/bundle.json: choose another --dir$" \
  --measure --llama-bench "$FAKE" -m "$work/m.gguf" -m "$work/n.gguf" --threads 1 --cpuinfo "$work/dp/bundle.json" --dir "$work/dp"
bad "advise --llama-quantize F -o F" 2 "${E}-o $work/cpu.txt is the same file as the input $work/cpu.txt: choose another -o$" \
  --measure --synth --llama-bench "$FAKE" --llama-quantize "$work/cpu.txt" -o "$work/cpu.txt"
intact "advise --cpuinfo/--llama-quantize" "$work/dp/bundle.json" "$work/m.saved"
intact "advise --llama-quantize F -o F" "$work/cpu.txt" "$work/cpu.saved"
CMD=client
bad "client --fm-help-cmd F --json F" 2 "${E}--bundle $work/cpu.txt is the same file as the input $work/cpu.txt: choose another --bundle$" \
  --cmd "$STREAM 1 x" --fm-help-cmd "$work/cpu.txt" --json "$work/cpu.txt"
intact "client --fm-help-cmd F --json F" "$work/cpu.txt" "$work/cpu.saved"

# ---- no output follows a symbolic link
echo "precious" >"$work/target"; cp "$work/target" "$work/target.saved"
ln -s target "$work/ln"
ln -s nowhere "$work/dangling"
L="cannot write $work/ln: it is a symbolic link \(remove it or choose another path\)$"
CMD=client
bad "client --chunks LINK" 4 "${E}$L" --cmd "$STREAM 1 x" --json "$work/cj.json" --chunks "$work/ln"
bad "client --json LINK" 4 "${E}$L" --cmd "$STREAM 1 x" --json "$work/ln"
bad "client --from B --csv LINK" 4 "${E}$L" --from "$C" --csv "$work/ln"
bad "client --chunks DANGLING" 4 "${E}cannot write $work/dangling: it is a symbolic link" --cmd "$STREAM 1 x" --json "$work/cj.json" --chunks "$work/dangling"
[ -e "$work/nowhere" ] && fail "--chunks created the dangling link's target" || echo "ok   --chunks DANGLING: target not created"
CMD=compare; bad "compare -o LINK" 4 "${E}$L" "$A" "$B" -o "$work/ln"
CMD=report; bad "report -o LINK" 4 "${E}$L" "$B" -o "$work/ln"
CMD=import; bad "import -o LINK" 4 "${E}$L" "$RL_SRC/tests/fixtures/lbench/real-jsonl.txt" -o "$work/ln"
CMD=synth; bad "synth -o LINK" 4 "${E}$L" --preset tiny --type Q8_0 -q -o "$work/ln"
CMD=advise; bad "advise -o LINK" 4 "${E}$L" --cpuinfo "$work/cpu.txt" -o "$work/ln"
CMD=membw; bad "membw -o LINK" 4 "${E}$L" --peak-bw 40 -o "$work/ln"
mkdir "$work/rd"; ln -s ../target "$work/rd/bundle.json"
CMD=run; bad "run -o DIR with DIR/bundle.json a link" 4 "${E}cannot write $work/rd/bundle.json: it is a symbolic link" --llama-bench "$FAKE" --peak-bw 40 -m "$work/m.gguf" -t 1 -o "$work/rd"
intact "every symlink case" "$work/target" "$work/target.saved"
"$RL_BIN" client --cmd "$STREAM 1 x" --json "$work/cj.json" --chunks /dev/stdout 2>/dev/null | cat >"$work/chunks.out"
check "client --chunks /dev/stdout (a link to a pipe) still works" 0 "${PIPESTATUS[0]}"
expect "--chunks /dev/stdout: the chunk lines" "$(cat "$work/chunks.out")" '"chunks": \[\['

# ---- one writer per output
# a run that hangs in its second llama-bench invocation holds the directory
FAKE_MODE=hang FAKE_MODE_AT=2 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/m.gguf" -m "$work/n.gguf" -t 1,2 -o "$work/held" >/dev/null 2>&1 &
bg=$!
for _ in $(seq 300); do [ -e "$work/held/bundle.json" ] && break; sleep 0.1; done
cp "$work/held/bundle.json" "$work/held.saved"
busy="${E}$work/held is being written by another llama-roofline \(pid $bg\); wait for it or choose another"
CMD=run; FAKE_LOG="$work/second.log" bad "run -o DIR held by another run" 4 "$busy -o$" --llama-bench "$FAKE" --peak-bw 40 -m "$work/m.gguf" -m "$work/n.gguf" -t 1 -o "$work/held"
[ -e "$work/second.log" ] && fail "the second run started llama-bench" || echo "ok   the second run measured nothing"
FAKE_LOG="$work/second.log" bad "run --resume DIR held by another run" 4 "$busy -o$" --resume --llama-bench "$FAKE" -o "$work/held"
CMD=diagnose; FAKE_LOG="$work/second.log" bad "diagnose -o DIR held by a run" 4 "$busy -o$" --llama-bench "$FAKE" --peak-bw 40 -t 1 -o "$work/held" "$work/m.gguf"
CMD=advise; FAKE_LOG="$work/second.log" bad "advise --measure --dir DIR held by a run" 4 "$busy --dir$" --measure --llama-bench "$FAKE" -m "$work/m.gguf" -m "$work/n.gguf" --threads 1 --dir "$work/held"
CMD=client; bad "client -o DIR held by a run" 4 "$busy -o$" --cmd "$STREAM 1 x" -o "$work/held"
[ -e "$work/second.log" ] && fail "a second command started llama-bench" || echo "ok   no second command measured"
kill -INT "$bg"; wait "$bg"; check "the holder still ends as interrupted" 130 $?; bg=
json_check "the holder's bundle kept its records" "$work/held/bundle.json" 'j["models"][0]["runs"][0]["status"]=="ok"'
[ -e "$work/held/.bundle.json.lock" ] && fail "the lock file stayed" || echo "ok   the lock file is removed at exit"
"$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/held" >/dev/null 2>&1; check "free again once the holder ended" 0 $?

# a lock held by another process (one python process, so killing it frees the lock) on a -o
# file, with a process id in it
echo 4242 >"$work/.mem.json.lock"
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(30)' \
  "$work/.mem.json.lock" "$work/held.flag" </dev/null >/dev/null 2>&1 &
bg=$!
for _ in $(seq 100); do [ -e "$work/held.flag" ] && break; sleep 0.1; done
if [ -e "$work/held.flag" ]; then
  CMD=membw; bad "membw -o FILE locked" 4 "${E}$work/mem.json is being written by another llama-roofline \(pid 4242\); wait for it or choose another -o$" --peak-bw 40 -o "$work/mem.json"
  [ -e "$work/mem.json" ] && fail "membw wrote a locked -o" || echo "ok   membw: nothing written"
  CMD=client; bad "client --json FILE locked" 4 "${E}$work/mem.json is being written by another llama-roofline \(pid 4242\); wait for it or choose another --bundle$" --cmd "$STREAM 1 x" --json "$work/mem.json"
  kill "$bg"; wait "$bg" 2>/dev/null; bg=
  # a stale lock file (its process gone) is no obstacle
  "$RL_BIN" membw --peak-bw 40 -o "$work/mem.json" >/dev/null 2>&1; check "membw: a stale lock file is no obstacle" 0 $?
  [ -e "$work/.mem.json.lock" ] && fail "membw left its lock file" || echo "ok   membw removed its lock file"
else
  fail "the lock holder did not start"
fi
finish
