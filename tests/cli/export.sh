#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `export`: a bundle's verbatim llama-bench records in llama-bench's JSONL, CSV and SQLite
# formats; the values as llama-bench's own printers write them; the pinned llama.cpp's
# scripts/compare-llama-bench.py reads each (Debian's python3 with python3-git and
# python3-tabulate; skipped with a printed reason without them or the pinned source); bad
# input, a bundle with no records, sqlite to stdout, an output that is an input.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-export.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=export
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -t 1,2 -m "$work/a.gguf" -o "$work/r" >/dev/null 2>&1 || fail "run"
B="$work/r/bundle.json"
# a second build of the same runs, 10% faster: what compare-llama-bench.py compares
python3 -c 'import json,sys
b=json.load(open(sys.argv[1]))
for m in b["models"]:
  for r in m["runs"]:
    for rec in r["records"]: rec["build_commit"]="abc1234"; rec["avg_ts"]*=1.1
json.dump(b,open(sys.argv[2],"w"))' "$B" "$work/b2.json"
crafted "$work/b2.json"

# ---- bad input
bad "no format" 2 "-f FORMAT is required" "$B"
bad "an unknown format" 2 "-f md: give jsonl, csv or sqlite" "$B" -f md
bad "no input" 2 "no input" -f csv
bad "sqlite to stdout" 2 "-f sqlite writes a database file: give -o FILE" "$B" -f sqlite
bad "the output is the input" 2 "same file as the input" "$B" -f csv -o "$B"
"$RL_BIN" legend --json >"$work/notabundle.json"
bad "not a bundle" 2 "notabundle.json" "$work/notabundle.json" -f csv
python3 -c 'import json,sys
b=json.load(open(sys.argv[1]))
for m in b["models"]:
  for r in m["runs"]: r["records"]=[]
json.dump(b,open(sys.argv[2],"w"))' "$B" "$work/norec.json"
crafted "$work/norec.json"
bad "a bundle with no llama-bench records" 2 "norec.json has no llama-bench records .*nothing to export" "$work/norec.json" -f jsonl
bad "the second of two has none" 2 "norec.json has no llama-bench records" "$B" "$work/norec.json" -f csv -o "$work/none.csv"
[ ! -e "$work/none.csv" ] && echo "ok   nothing written when an input has no records" || fail "wrote $work/none.csv"

# ---- the three formats
"$RL_BIN" export "$B" -f jsonl >"$work/a.jsonl"; check "jsonl to stdout" 0 $?
[ "$(wc -l <"$work/a.jsonl")" = 4 ] && echo "ok   jsonl: 4 records (2 runs x prefill, decode)" || fail "jsonl lines: $(wc -l <"$work/a.jsonl")"
python3 -c 'import json,sys
b=json.load(open(sys.argv[1])); want=[rec for m in b["models"] for r in m["runs"] for rec in r["records"]]
got=[json.loads(l) for l in open(sys.argv[2])]
sys.exit(0 if got==want else 1)' "$B" "$work/a.jsonl" && echo "ok   jsonl: the records verbatim" || fail "jsonl differs from the bundle's records"
"$RL_BIN" export "$B" -f csv -o "$work/a.csv" 2>"$work/csv.err"; check "csv to a file" 0 $?
expect "csv: says what it wrote" "$(cat "$work/csv.err")" "^wrote 4 llama-bench records to .*a.csv$"
expect "csv: llama-bench's header (its fields, its order, no samples)" "$(head -n 1 "$work/a.csv")" \
  '^build_commit,build_number,cpu_info,.*,test_time,avg_ns,stddev_ns,avg_ts,stddev_ts$'
python3 -c 'import csv,json,sys
b=json.load(open(sys.argv[1])); rec=b["models"][0]["runs"][0]["records"][0]
row=next(csv.DictReader(open(sys.argv[2])))
ok = row["avg_ts"]=="%f" % rec["avg_ts"] and row["cpu_strict"]==("1" if rec["cpu_strict"] else "0") and row["n_threads"]==str(rec["n_threads"]) and row["model_filename"]==rec["model_filename"] and "samples_ns" not in row
sys.exit(0 if ok else 1)' "$B" "$work/a.csv" && echo "ok   csv: values as llama-bench writes them (%f rates, 1/0 booleans)" || fail "csv values: $(sed -n 2p "$work/a.csv")"
grep -q '^"de3ff81","1",' "$work/a.csv" && echo "ok   csv: every value quoted" || fail "csv quoting: $(sed -n 2p "$work/a.csv")"
"$RL_BIN" export "$B" "$work/b2.json" -f sqlite -o "$work/a.db" 2>/dev/null; check "sqlite of two bundles" 0 $?
got=$(python3 -c 'import sqlite3,sys
c=sqlite3.connect(sys.argv[1])
print(c.execute("select count(*), count(distinct build_commit) from llama_bench").fetchone(),
      c.execute("select typeof(avg_ts), typeof(n_threads), typeof(cpu_strict), typeof(cpu_info) from llama_bench limit 1").fetchone())' "$work/a.db")
expect "sqlite: 8 rows of 2 builds, llama-bench's column types" "$got" "^\(8, 2\) \('real', 'integer', 'integer', 'text'\)$"
ls "$work"/a.db.tmp.* >/dev/null 2>&1 && fail "sqlite: a temporary file left" || echo "ok   sqlite: no temporary file left"
ln -s "$work/target.db" "$work/link.db"
"$RL_BIN" export "$B" -f sqlite -o "$work/link.db" >/dev/null 2>&1
[ ! -e "$work/target.db" ] && echo "ok   sqlite: a symbolic link at -o is not followed" || fail "sqlite followed the link"

# ---- compare-llama-bench.py of the pinned llama.cpp reads every format
script=$(ls -d "${HOME:-/nonexistent}"/.cache/llama-roofline/llama.cpp-*/src/scripts/compare-llama-bench.py 2>/dev/null | head -n 1)
py=/usr/bin/python3
if [ -z "$script" ]; then
  echo "skip compare-llama-bench.py: the pinned llama.cpp source is not in ~/.cache/llama-roofline"
elif ! "$py" -c 'import git, tabulate' 2>/dev/null; then
  echo "skip compare-llama-bench.py: Debian's python3-git and python3-tabulate are not installed"
else
  "$RL_BIN" export "$B" "$work/b2.json" -f jsonl -o "$work/two.jsonl" 2>/dev/null
  "$RL_BIN" export "$B" "$work/b2.json" -f csv -o "$work/two.csv" 2>/dev/null
  for f in a.db two.jsonl two.csv; do
    out=$(cd "$work" && "$py" "$script" -t llama-bench -i "$work/$f" -b de3ff81 -c abc1234 2>&1); check "compare-llama-bench.py -i $f" 0 $?
    expect "compare-llama-bench.py $f: the decode row and its speedup" "$out" '\| +1 \| tg16 +\| +3367\.39 \| +3704\.13 \| +1\.10 \|'
    expect "compare-llama-bench.py $f: the prefill row" "$out" '\| +2 \| pp16 +\| +10273\.89 \| +11301\.28 \| +1\.10 \|'
  done
fi
finish
