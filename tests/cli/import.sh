#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `import`. The shipped example bundles and bundles imported now (both published
# roofline.json files, llama-bench -o json, -o jsonl, -o csv, -o sql and an SQLite database of
# -o sql) validate against schema/bundle.schema.json (JSON Schema 2020-12, python3-jsonschema);
# the csv and sql of a real llama-bench run give the records its -oe jsonl gave, field by
# field, whatever the file is named; a bundle exported to csv, sqlite and jsonl imports back to
# the same runs; hostile inputs (truncated, neither format, wrong types, 100k models, a CSV
# quote left open, SQL asking for ATTACH, an SQLite file without llama_bench or cut short) exit
# 2 with one line naming the file and nothing on stdout; an unwritable output exits 4. Every
# check asserts the binary's own exit status.
# Checked to fail: with the imported-rate alternative removed from the schema's rate (every
# roofline.json bundle fails validation), and with cmd_import returning RL_OK after an import
# error (every bad input: exit 0).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
python3 -c 'import jsonschema' 2>/dev/null || { echo "skip: python3-jsonschema is not installed"; exit 77; }
work="$RL_TMP/cli-import.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=import
SCHEMA="$RL_SRC/schema/bundle.schema.json"
PUB="$RL_SRC/data/published"
LB="$RL_SRC/tests/fixtures/lbench"

valid() { # description, bundle file
  local err
  if err=$(python3 - "$SCHEMA" "$2" 2>&1 <<'PY'
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
errors = sorted(Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:3]:
    print("/".join(map(str, e.absolute_path)) or "(top)", e.message[:300])
sys.exit(1 if errors else 0)
PY
  ); then echo "ok   $1"; else fail "$1: $err"; fi
}

# ---- help and usage errors
out=$("$RL_BIN" import --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline import FILE -o BUNDLE"
bad "no input" 2 "no input: give the file to import" -o "$work/x.json"
bad "no -o" 2 "-o BUNDLE is required" "$PUB/x86-i7-12700H/roofline.json"
bad "two inputs" 2 "one input file at a time" "$PUB/x86-i7-12700H/roofline.json" "$LB/real-json.txt" -o "$work/x.json"
bad "missing input" 2 "nope.json" "$work/nope.json" -o "$work/x.json"
bad "a directory as input" 2 "$work" "$work" -o "$work/x.json"
bad "unknown option" 2 "unrecognized option|unknown option" --frobnicate "$LB/real-json.txt" -o "$work/x.json"
cp "$LB/real-json.txt" "$work/same.json"
bad "input is the output" 2 "^llama-roofline import: error: -o .*same.json is the same file as the input .*same.json: choose another -o$" "$work/same.json" -o "$work/same.json"
# a record's n_threads negative, then too large: the message says what it holds
sed -n 1p "$LB/real-jsonl.txt" | sed 's/"n_threads": [0-9]*/"n_threads": -5/' >"$work/neg.jsonl"
bad "n_threads negative" 2 "neg.jsonl: record 1 has no n_threads from 1 to 4096 \\(it is missing, negative or not a whole number\\)$" "$work/neg.jsonl" -o "$work/neg.json"
sed -n 1p "$LB/real-jsonl.txt" | sed 's/"n_threads": [0-9]*/"n_threads": 5000/' >"$work/big.jsonl"
bad "n_threads too large" 2 "big.jsonl: record 1 has no n_threads from 1 to 4096 \\(it has 5000\\)$" "$work/big.jsonl" -o "$work/big.json"
cmp -s "$work/same.json" "$LB/real-json.txt" && echo "ok   input left untouched" || fail "input was changed"

# ---- the shipped examples
for ex in rpi5-cortex-a76 x86-i7-12700H; do
  valid "examples/$ex/bundle.json validates" "$RL_SRC/examples/$ex/bundle.json"
done

# ---- imported now
"$RL_BIN" import "$PUB/rpi5-cortex-a76/roofline.json" -o "$work/pi.json" --name "Pi 5" >"$work/pi.out" 2>"$work/pi.err"
check "import rpi5 roofline.json" 0 $?
valid "rpi5 bundle validates" "$work/pi.json"
json_check "rpi5: fit 10.69 GB/s, R^2 0.9800, 7 models; --name kept" "$work/pi.json" \
  'round(j["analysis"]["fit"]["bw_GBs"],2)==10.69 and round(j["analysis"]["fit"]["r2"],4)==0.98 and j["analysis"]["fit"]["n_points"]==7 and j["source"]["name"]=="Pi 5"'
expect "rpi5: the summary names the bundle" "$(cat "$work/pi.out")" "wrote $work/pi.json"
[ ! -s "$work/pi.err" ] && echo "ok   rpi5: nothing on stderr" || fail "rpi5: stderr: $(cat "$work/pi.err")"
"$RL_BIN" import "$PUB/x86-i7-12700H/roofline.json" -o "$work/x86.json" >/dev/null
check "import x86 roofline.json" 0 $?
valid "x86 bundle validates" "$work/x86.json"
json_check "x86: fit 37.65 GB/s, R^2 0.9874; rates without samples" "$work/x86.json" \
  'round(j["analysis"]["fit"]["bw_GBs"],2)==37.65 and round(j["analysis"]["fit"]["r2"],4)==0.9874 and all(r["decode"]["samples"]["available"] is False for m in j["models"] for r in m["runs"])'
"$RL_BIN" import "$LB/real-jsonl.txt" -o "$work/jsonl.json" >/dev/null
check "import llama-bench -o jsonl" 0 $?
valid "jsonl bundle validates" "$work/jsonl.json"
json_check "jsonl: format, records kept, no ceiling" "$work/jsonl.json" \
  'j["source"]["format"]=="llama-bench jsonl" and len(j["models"][0]["runs"][0]["records"])==2 and j["membw"]["available"] is False'
"$RL_BIN" import "$LB/real-json.txt" -o "$work/json.json" >/dev/null
check "import llama-bench -o json" 0 $?
valid "json bundle validates" "$work/json.json"
json_check "json: format" "$work/json.json" 'j["source"]["format"]=="llama-bench json"'

# ---- llama-bench's csv, sql and SQLite database: the records its -oe jsonl gave, field by field
same_records() { # description, bundle, twin bundle (from the run's -oe jsonl), format
  json_check "$1" "$2" "$(cat <<PY
(lambda t: j["source"]["format"]=="$4" and j["source"]["records"]==8
 and [(r["threads"],r["depth"],len(r["records"])) for r in j["models"][0]["runs"]]==[(1,0,2),(1,32,2),(2,0,2),(2,32,2)]
 and all(len(x)==41 and all(t_x.get(k)==v for k,v in x.items())
         for r,tr in zip(j["models"][0]["runs"],t["models"][0]["runs"]) for x,t_x in zip(r["records"],tr["records"]))
 and j["models"][0]["name"]=="lb-tiny.gguf")(json.load(open("$3")))
PY
)"
}
"$RL_BIN" import "$LB/real-csv-jsonl.txt" -o "$work/csv-twin.json" >/dev/null; check "import the csv run's -oe jsonl" 0 $?
"$RL_BIN" import "$LB/real-sql-jsonl.txt" -o "$work/sql-twin.json" >/dev/null; check "import the sql run's -oe jsonl" 0 $?
cp "$LB/real-csv.txt" "$work/csv-named.json" # the content decides, not the name
"$RL_BIN" import "$work/csv-named.json" -o "$work/csv.json" >/dev/null; check "import llama-bench -o csv (named .json)" 0 $?
valid "csv bundle validates" "$work/csv.json"
same_records "csv: the jsonl twin's records and runs" "$work/csv.json" "$work/csv-twin.json" "llama-bench csv"
json_check "csv: run 1's decode rate is its record's avg_ts" "$work/csv.json" 'j["models"][0]["runs"][0]["decode"]["stats"]["mean"]==1497.171632'
cp "$LB/real-sql.txt" "$work/sql-named.csv"
"$RL_BIN" import "$work/sql-named.csv" -o "$work/sql.json" >/dev/null; check "import llama-bench -o sql (named .csv)" 0 $?
valid "sql bundle validates" "$work/sql.json"
same_records "sql: the jsonl twin's records and runs" "$work/sql.json" "$work/sql-twin.json" "llama-bench sql"
# the database compare-llama-bench.py reads: llama-bench -o sql | sqlite3 FILE
if command -v sqlite3 >/dev/null; then
  sqlite3 "$work/lb.db" <"$LB/real-sql.txt"
else
  /usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.commit()' "$work/lb.db" "$LB/real-sql.txt"
fi
"$RL_BIN" import "$work/lb.db" -o "$work/db.json" >/dev/null; check "import an SQLite database of -o sql" 0 $?
valid "sqlite bundle validates" "$work/db.json"
same_records "sqlite: the jsonl twin's records and runs" "$work/db.json" "$work/sql-twin.json" "llama-bench sqlite"
# the round trip: export to each format, import back, the same runs
for f in csv sqlite jsonl; do
  "$RL_BIN" export "$work/sql-twin.json" -f $f -o "$work/rt.$f" 2>/dev/null; check "export -f $f" 0 $?
  "$RL_BIN" import "$work/rt.$f" -o "$work/rt-$f.json" >/dev/null; check "import the exported $f" 0 $?
  json_check "round trip through $f: the same runs, records and rates" "$work/rt-$f.json" "$(cat <<PY
(lambda t: [(m["path"],[(r["threads"],r["depth"],[x["avg_ts"] for x in r["records"]]) for r in m["runs"]]) for m in j["models"]]
 ==[(m["path"],[(r["threads"],r["depth"],[x["avg_ts"] for x in r["records"]]) for r in m["runs"]]) for m in t["models"]]
 and ("$f"!="jsonl" or all(r["decode"]["samples"]==q["decode"]["samples"] for r,q in zip(j["models"][0]["runs"],t["models"][0]["runs"]))))(json.load(open("$work/sql-twin.json")))
PY
)"
done

# ---- hostile input: exit 2, one line naming the file, nothing written
{ head -n 1 "$LB/real-csv.txt"; sed -n 2p "$LB/real-csv.txt" | sed 's/"$//'; } >"$work/open-quote.csv"
bad "csv: a quote left open" 2 "^llama-roofline import: error: $work/open-quote.csv: line 2, column stddev_ts: a quoted field is not closed before the end of the text$" \
  "$work/open-quote.csv" -o "$work/out.json"
{ head -n 1 "$LB/real-csv.txt"; sed -n 2p "$LB/real-csv.txt" | sed 's/"3073024"/"3,073,024"/'; } >"$work/comma.csv"
bad "csv: a number with commas" 2 "comma.csv: line 2 \(row 1\), column model_size is \"3,073,024\"; expected a whole number$" \
  "$work/comma.csv" -o "$work/out.json"
{ head -n 1 "$LB/real-csv.txt"; sed -n 2p "$LB/real-csv.txt" | sed 's/$/,"extra"/'; } >"$work/wide.csv"
bad "csv: a row longer than the header" 2 "wide.csv: line 2 \(row 1\) has 42 fields; the header has 41$" "$work/wide.csv" -o "$work/out.json"
{ echo "ATTACH DATABASE 'lb.db' AS o;"; cat "$LB/real-sql.txt"; } >"$work/attach.sql"
bad "sql: ATTACH refused" 2 "attach.sql: SQL statement 1 \(line 1: \"ATTACH DATABASE 'lb.db' AS o;\"\) asks for ATTACH lb.db, which import refuses: it runs only CREATE TABLE llama_bench and INSERT INTO llama_bench" \
  "$work/attach.sql" -o "$work/out.json"
long=$(printf 'd%.0s' $(seq 60))
{ echo "ATTACH DATABASE '$long.db' AS o;"; cat "$LB/real-sql.txt"; } >"$work/attach-long.sql"
bad "sql: ATTACH of a long name, cut with an ellipsis" 2 "attach-long.sql: SQL statement 1 \(line 1: .*\) asks for ATTACH d{48}\.\.\., which import refuses" \
  "$work/attach-long.sql" -o "$work/out.json"
{ cat "$LB/real-sql.txt"; echo "DROP TABLE llama_bench;"; } >"$work/drop.sql"
bad "sql: DROP refused" 2 "drop.sql: SQL statement 10 \(line 53: \"DROP TABLE llama_bench;\"\) asks for DELETE FROM sqlite_master, which import refuses" \
  "$work/drop.sql" -o "$work/out.json"
/usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table test_backend_ops (a)"); c.commit()' "$work/other.db"
bad "sqlite: no llama_bench table" 2 "other.db: an SQLite database without a llama_bench table, the one .llama-bench -o sql \| sqlite3 FILE. makes; its tables: test_backend_ops$" \
  "$work/other.db" -o "$work/out.json"
head -c 4096 "$work/lb.db" >"$work/cut.db"
bad "sqlite: cut short" 2 "cut.db: an SQLite database cut short: 4096 bytes where its header counts 2 pages of 4096 bytes$" \
  "$work/cut.db" -o "$work/out.json"
crafted "$work/open-quote.csv" "$work/comma.csv" "$work/wide.csv"
head -c 20000 "$PUB/x86-i7-12700H/roofline.json" >"$work/truncated.json"
bad "truncated JSON" 2 "^llama-roofline import: error: $work/truncated.json: not an importable file: expected a llama-roofline roofline.json .* not valid JSON" \
  "$work/truncated.json" -o "$work/out.json"
printf '{"hello": "world", "n": [1, 2]}\n' >"$work/neither.json"
bad "neither format" 2 "$work/neither.json: not an importable file: expected a llama-roofline roofline.json \(schema_version 1\), an fm-bench JSON report \(schemaVersion 1\) or llama-bench output" \
  "$work/neither.json" -o "$work/out.json"
python3 - "$PUB/x86-i7-12700H/roofline.json" "$work" <<'PY'
import json, sys
src, work = sys.argv[1], sys.argv[2]
d = json.load(open(src)); d["analysis"]["models"][2]["runs"][1]["threads"] = "8"
json.dump(d, open(work + "/threads-string.json", "w"))
d = json.load(open(src)); d["analysis"]["models"][1]["runs"][0]["decode_ts"] = -3.5
json.dump(d, open(work + "/negative-decode.json", "w"))
d = json.load(open(src))
d["analysis"]["models"] = [{"name": "m%d" % i, "bytes_per_token": 1000 + i, "runs": []} for i in range(100000)]
json.dump(d, open(work + "/100k-models.json", "w"))
PY
bad "threads as a string" 2 "$work/threads-string.json: analysis.models\[2\].runs\[1\].threads is a string; expected a whole number from 1 to 4096" \
  "$work/threads-string.json" -o "$work/out.json"
bad "negative decode" 2 "$work/negative-decode.json: analysis.models\[1\].runs\[0\].decode_ts is -3.5" \
  "$work/negative-decode.json" -o "$work/out.json"
/usr/bin/time -f %M -o "$work/rss" "$RL_BIN" import "$work/100k-models.json" -o "$work/out.json" >"$work/big.out" 2>"$work/big.err"
check "100k models: exit 2" 2 $?
expect "100k models: one line naming the file and the bound" "$(cat "$work/big.err")" \
  "^llama-roofline import: error: $work/100k-models.json: analysis.models must be an array of at most 1024 entries"
[ "$(wc -l <"$work/big.err")" = 1 ] && echo "ok   100k models: one line" || fail "100k models: $(cat "$work/big.err")"
rss=$(tail -1 "$work/rss" 2>/dev/null || echo 0)
[ "${rss:-0}" -lt 200000 ] && echo "ok   100k models: peak RSS ${rss} KiB" || fail "100k models: peak RSS ${rss} KiB (limit 200000)"
bad "killed llama-bench -o json" 2 "$LB/real-json-killed.txt: the llama-bench output is cut short" \
  "$LB/real-json-killed.txt" -o "$work/out.json"
[ ! -e "$work/out.json" ] && echo "ok   nothing written for refused input" || fail "a bundle was written for refused input"

# ---- an output that cannot be written: exit 4
"$RL_BIN" import "$LB/real-json.txt" -o /proc/nope/bundle.json >/dev/null 2>"$work/w.err"
check "unwritable output: exit 4" 4 $?
expect "unwritable output: names it" "$(cat "$work/w.err")" "/proc/nope/bundle.json"

finish
