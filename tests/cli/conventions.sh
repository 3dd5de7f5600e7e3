#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the conventions of issue 19 (docs/CLI.md "One meaning per flag"): the flag table against
# every command's --help; llama-bench's -p -n -r -d -ngl and the three ways to give -m; the
# did-you-mean and ambiguity messages; -o of the wrong kind and llama-bench's format names;
# --json on every command that prints a result; progress as plain lines off a terminal and
# under TERM=dumb, and one row at 40 columns in tmux.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-conventions.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
STREAM="$(dirname "$RL_BIN")/fake-stream"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
fb=(--llama-bench "$FAKE" --peak-bw 40 -t 1)

# ---- the per-command table of docs/CLI.md against each command's --help: a command with an
# -o in the table has "-o, --output" in its help and one with "none" has not; the same for
# --json; and every command of the binary's table has its row and a section
rows=$(sed -n '/^| command | `-o` names | `--json` prints |$/,/^$/p' "$RL_SRC/docs/CLI.md" | tail -n +3)
[ "$(wc -l <<<"$rows")" -ge 14 ] && echo "ok   the table has a row per command" || fail "table rows: $rows"
verbs=$("$RL_BIN" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ "$(wc -w <<<"$verbs")" -ge 14 ] || fail "verbs from --help: $verbs"
for v in $verbs; do
  row=$(grep -E "^\| $v \|" <<<"$rows")
  [ -n "$row" ] || { fail "$v: no row in docs/CLI.md's flag table"; continue; }
  grep -q "^### \`$v" "$RL_SRC/docs/CLI.md" || fail "$v: no section in docs/CLI.md"
  o_doc=$(cut -d'|' -f3 <<<"$row"); j_doc=$(cut -d'|' -f4 <<<"$row")
  h=$("$RL_BIN" "$v" --help)
  has_o=no; grep -Eq -- '^  -o, --output ' <<<"$h" && has_o=yes
  has_j=no; grep -Eq -- '^  --json( |$)' <<<"$h" && has_j=yes
  doc_o=yes; grep -Eq '^ *none' <<<"$o_doc" && doc_o=no
  doc_j=yes; grep -Eq '^ *none' <<<"$j_doc" && doc_j=no
  [ "$has_o" = "$doc_o" ] && echo "ok   $v: -o as the table says ($has_o)" || fail "$v: -o in --help: $has_o, in the table: $doc_o"
  [ "$has_j" = "$doc_j" ] && echo "ok   $v: --json as the table says ($has_j)" || fail "$v: --json in --help: $has_j, in the table: $doc_j"
  case "$o_doc" in
    *directory*) grep -Eq -- '-o, --output DIR' <<<"$h" || fail "$v: the table says a directory, --help does not say DIR" ;;
    *file*) grep -Eq -- '-o, --output (FILE|OUT|PATH|BUNDLE)' <<<"$h" || fail "$v: the table says a file, --help does not" ;;
  esac
done

# ---- llama-bench's names, and the three ways of giving models
"$RL_BIN" run "${fb[@]}" -p 64 -n 16 -r 1 -ngl 0 -d 0,8 -m "$work/a.gguf" -m "$work/b.gguf" -o "$work/lb" >/dev/null 2>&1
check "run -p 64 -n 16 -r 1 -ngl 0 -d 0,8 -m a -m b" 0 $?
json_check "llama-bench's names: the settings they set" "$work/lb/bundle.json" \
  'j["settings"]["n_prompt"]==64 and j["settings"]["n_gen"]==16 and j["settings"]["reps"]==1 and j["settings"]["depths"]==[0,8] and len(j["models"])==2'
json_check "llama-bench's names: passed on to llama-bench" "$work/lb/bundle.json" \
  '" ".join(j["models"][0]["runs"][0]["argv"][1:]).find("-p 64 -n 16 -r 1")>=0'
"$RL_BIN" run "${fb[@]}" -p64 --repetitions=2 --n-depth 0 -m "$work/a.gguf" -o "$work/glued" >/dev/null 2>&1
check "run -p64 --repetitions=2 --n-depth 0" 0 $?
json_check "-p64 glued, the long names" "$work/glued/bundle.json" 'j["settings"]["n_prompt"]==64 and j["settings"]["reps"]==2'
"$RL_BIN" run "${fb[@]}" -m "$work/a.gguf" "$work/b.gguf" -o "$work/glob" >/dev/null 2>&1; check "run -m a b" 0 $?
json_check "run -m a b: two models" "$work/glob/bundle.json" '[m["name"] for m in j["models"]]==["a.gguf","b.gguf"]'
"$RL_BIN" run "${fb[@]}" -m "$work/a.gguf,$work/b.gguf" -o "$work/comma" >/dev/null 2>&1; check "run -m a,b" 0 $?
json_check "run -m a,b: two models, argv kept as typed" "$work/comma/bundle.json" \
  'len(j["models"])==2 and any("," in w for w in j["argv"])'
cp "$work/a.gguf" "$work/c,d.gguf"
"$RL_BIN" run "${fb[@]}" -m "$work/c,d.gguf" -o "$work/commafile" >/dev/null 2>&1; check "run -m c,d.gguf (a file)" 0 $?
json_check "a file whose name has a comma is not split" "$work/commafile/bundle.json" '[m["name"] for m in j["models"]]==["c,d.gguf"]'
"$RL_BIN" run "${fb[@]}" -m "$work/a.gguf" --bench-arg -ngl --bench-arg 0 -o "$work/barg" >/dev/null 2>&1
check "--bench-arg -ngl: a value" 0 $?
json_check "--bench-arg -ngl stays a value" "$work/barg/bundle.json" 'j["settings"]["bench_args"]==["-ngl","0"] and j["settings"]["n_gpu_layers"]==0'
"$RL_BIN" calibrate --help | grep -Eq -- '^  -r, --repetitions N' && echo "ok   calibrate -r" || fail "calibrate --help: no -r"
"$RL_BIN" predict --help | grep -Eq -- '^  -d, --n-depth LIST' && echo "ok   predict -d" || fail "predict --help: no -d"

# ---- did-you-mean, ambiguity
CMD=run
bad "a near option" 2 "unknown option '--gpu-layerz' \(did you mean '--gpu-layers'\? see llama-roofline run --help\)$" --gpu-layerz 3
bad "a far option: no guess" 2 "^llama-roofline run: error: unknown option '--zzzzzzzz' \(see llama-roofline run --help\)$" --zzzzzzzz
bad "an ambiguous abbreviation" 2 "option '--re' is ambiguous: it begins --repetitions, --reps, --resume, --retry-disturbed" --re 3
bad "an abbreviation of one option's two names is not ambiguous" 2 "no model" --rep 2
CMD=diagnose; bad "diagnose --qiuck" 2 "did you mean '--quick'\?" --qiuck
out=$("$RL_BIN" rn 2>&1); check "a mistyped command" 2 $?
expect "a mistyped command: did you mean" "$out" "^llama-roofline: error: no command 'rn' \(did you mean 'run'\? see llama-roofline --help\)$"
out=$("$RL_BIN" help reprot 2>&1); check "help reprot" 2 $?
expect "help reprot: did you mean" "$out" "did you mean 'report'\?"
out=$("$RL_BIN" zzzzzz 2>&1); expect "a far command: no guess" "$out" "^llama-roofline: error: no command 'zzzzzz' \(see llama-roofline --help\)$"

# ---- -o: the wrong kind, llama-bench's format names (nothing made)
: >"$work/afile"; mkdir -p "$work/adir"
CMD=run; bad "run -o FILE" 4 "-o .*afile is a file: run's -o names a directory" "${fb[@]}" -m "$work/a.gguf" -o "$work/afile"
(cd "$work" && "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m a.gguf -o md >"$work/md.out" 2>"$work/md.err"); check "run -o md" 2 $?
expect "run -o md: says what -o is" "$(cat "$work/md.err")" "^llama-roofline run: error: -o md: run's -o names a directory, not an output format as llama-bench's -o does .* give ./md"
[ ! -e "$work/md" ] && echo "ok   run -o md: no directory md made" || fail "run -o md made $work/md"
(cd "$work" && "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -t 1 -m a.gguf -o ./md >/dev/null 2>&1); check "run -o ./md: a directory of that name" 0 $?
CMD=report; bad "report -o DIR" 4 "-o .*adir is a directory: report's -o names a file" "$work/lb/bundle.json" -o "$work/adir"
CMD=import; bad "import -o csv" 2 "import's -o names a file, not an output format" "$work/lb/bundle.json" -o csv
CMD=calibrate; bad "calibrate -o FILE" 4 "calibrate's -o names a directory" -o "$work/afile"
CMD=compare; bad "compare -o DIR" 4 "compare's -o names a file" "$work/lb" "$work/glob" -o "$work/adir"

# ---- --json: the result on stdout, the "wrote" lines on stderr
"$RL_BIN" run "${fb[@]}" -m "$work/a.gguf" -o "$work/rj" --json >"$work/rj.out" 2>"$work/rj.err"; check "run --json" 0 $?
json_check "run --json: the bundle on stdout" "$work/rj.out" 'j["schema"]=="llama-roofline-bundle" and j["command"]=="run"'
expect "run --json: wrote on stderr" "$(cat "$work/rj.err")" "wrote .*rj/bundle.json"
"$RL_BIN" diagnose "${fb[@]}" "$work/a.gguf" "$work/b.gguf" -o "$work/dj" --json >"$work/dj.out" 2>/dev/null; check "diagnose --json" 0 $?
json_check "diagnose --json: the bundle" "$work/dj.out" 'j["command"]=="diagnose" and j["analysis"]["fit"]["available"]'
"$RL_BIN" validate --json "$work/lb/bundle.json" "$work/lb/report.html" >"$work/vj.out"; check "validate --json" 0 $?
json_check "validate --json: one entry per file, valid" "$work/vj.out" 'len(j)==2 and all(e["valid"] and e["problems"]==[] for e in j) and j[0]["file"].endswith("bundle.json")'
python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); b["models"][0]["runs"][0]["decode"]["stats"]["mean"]=1.5; json.dump(b,open(sys.argv[2],"w"))' \
  "$work/lb/bundle.json" "$work/broken.json"
"$RL_BIN" validate --json "$work/broken.json" >"$work/vb.out"; check "validate --json of a broken bundle" 1 $?
json_check "validate --json: the problem, its path" "$work/vb.out" 'not j[0]["valid"] and any(p["path"].startswith("models[0].runs[0].decode.stats") for p in j[0]["problems"])'
"$RL_BIN" compare --json "$work/lb" "$work/glob" >"$work/cj.out" 2>/dev/null; check "compare --json" 0 $?
json_check "compare --json: inputs and rows" "$work/cj.out" 'len(j["inputs"])==2 and len(j["rows"])>0'
CMD=compare; bad "compare --json --markdown" 2 "cannot both go to stdout" --json --markdown "$work/lb" "$work/glob"
"$RL_BIN" client --cmd "$STREAM 1 'one two'" --runs 1 --warmup 0 -o "$work/clj" --json >"$work/clj.out" 2>/dev/null; check "client --json" 0 $?
json_check "client --json: the bundle on stdout" "$work/clj.out" 'j["command"]=="client"'
[ -f "$work/clj/bundle.json" ] && echo "ok   client --json: -o DIR written too" || fail "client --json: no $work/clj/bundle.json"
"$RL_BIN" client --cmd "$STREAM 1 'one two'" --runs 1 --warmup 0 --bundle "$work/clb.json" >/dev/null 2>&1; check "client --bundle FILE" 0 $?
json_check "client --bundle FILE: the bundle there" "$work/clb.json" 'j["command"]=="client"'
"$RL_BIN" client --cmd "$STREAM 1 'one two'" --runs 1 --warmup 0 --json="$work/cle.json" >/dev/null 2>&1; check "client --json=FILE (the old spelling)" 0 $?
json_check "client --json=FILE: the bundle there" "$work/cle.json" 'j["command"]=="client"'
"$RL_BIN" calibrate --help | grep -q -- '--json' && echo "ok   calibrate has --json" || fail "calibrate: no --json"

# ---- progress: plain lines when stderr is a file, one line per finished run, no ETA before
# one is known, no escape sequence; TERM=dumb on a terminal the same
FAKE_SLEEP=0.2 "$RL_BIN" run "${fb[@]}" -t 1,2 -m "$work/a.gguf" "$work/b.gguf" -o "$work/pg" >/dev/null 2>"$work/pg.err"
check "run, stderr a file" 0 $?
pg=$(cat "$work/pg.err")
expect "a line per finished run, with its rate, GB/s and share" "$pg" '^\[1/4\] a\.gguf t=1 depth 0: decode [0-9.]+ tok/s, [0-9.]+ GB/s \([0-9]+% of the 40\.0 GB/s ceiling\); prefill [0-9.]+ tok/s$'
[ "$(grep -c '^\[[1-4]/4\] .*: decode ' <<<"$pg")" = 4 ] && echo "ok   four finished lines" || fail "finished lines: $pg"
[ "$(grep -c '^\[[1-4]/4\] [^:]*$' <<<"$pg")" = 1 ] && echo "ok   paced: one status line in a run under 10 s" ||
  fail "not paced: $pg"
grep -q $'\e\|\r' "$work/pg.err" && fail "stderr a file: an escape or CR: $(cat -A "$work/pg.err" | head -5)" || echo "ok   stderr a file: no ESC, no CR"
grep -q 's left' <<<"$(head -n 1 "$work/pg.err")" && fail "an ETA before any run: $(head -n 1 "$work/pg.err")" || echo "ok   no ETA before a run finished"
grep -q 'measuring the memory read ceiling' "$work/pg.err" && fail "--peak-bw: said it measures the ceiling" || echo "ok   --peak-bw: no 'measuring the ceiling'"
if command -v script >/dev/null; then
  TERM=dumb script -qc "'$RL_BIN' run --llama-bench '$FAKE' --peak-bw 40 -t 1 -m '$work/a.gguf' -o '$work/dumb'" /dev/null >"$work/dumb.tty" 2>&1
  grep -q $'\e' "$work/dumb.tty" && fail "TERM=dumb: an escape sequence: $(cat -A "$work/dumb.tty" | head -3)" || echo "ok   TERM=dumb on a terminal: no escape sequence"
  expect "TERM=dumb: the finished line" "$(cat "$work/dumb.tty")" '\[1/1\] a\.gguf t=1 depth 0: decode'
else
  echo "skip TERM=dumb on a terminal: no script(1)"
fi
if command -v tmux >/dev/null; then
  sock="$work/tmux.sock"
  tmux -S "$sock" new-session -d -x 40 -y 20 "env TERM=xterm FAKE_SLEEP=4 '$RL_BIN' run --llama-bench '$FAKE' --peak-bw 40 -t 1,2 -m '$work/a.gguf' -o '$work/narrow-with-a-long-name' >/dev/null; sleep 30" 2>/dev/null
  sleep 7 # the first run done (4 s), the second showing for 3 s
  tmux -S "$sock" capture-pane -p >"$work/pane1" 2>/dev/null
  tmux -S "$sock" kill-server 2>/dev/null
  lines=$(grep -c . "$work/pane1")
  [ "$lines" = 0 ] && fail "tmux: an empty pane" || echo "ok   tmux: the pane shows progress ($lines non-empty rows)"
  awk 'length > 40 { bad=1 } END { exit bad }' "$work/pane1" && echo "ok   tmux 40 columns: no row over 40" || fail "tmux: a row over 40: $(cat "$work/pane1")"
  status=$(grep . "$work/pane1" | tail -n 1)
  expect "tmux: the status line, cut to 39 columns, keeps its clock" "$status" '^\[2/2\] a\.gguf +t=2 .*  \([0-9] s\)$'
  [ "${#status}" -le 39 ] && echo "ok   tmux: the status fits in one row" || fail "tmux: status ${#status} columns: $status"
  expect "tmux: the finished line above it" "$(cat "$work/pane1")" '^\[1/2\] a\.gguf t=1 depth 0: decode'
else
  echo "skip tmux at 40 columns: no tmux"
fi
finish
