#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: `import` of the real llama-bench's tabular outputs. A synth model (tiny, Q8_0), two
# thread counts and two depths, measured once with -o csv -oe json and once with -o sql -oe json
# (the same measurements printed twice, on stdout and on stderr); the sql also piped to
# `sqlite3 FILE` (the sqlite3 program when installed, else Python's sqlite3 module), the
# database llama.cpp's scripts/compare-llama-bench.py reads. Each import gives the runs and the
# records the JSON of the same invocation gives, field by field, with each run's decode rate its
# record's avg_ts, and validates against schema/bundle.schema.json. One model: a fit through
# two tiny models (cache-bound, far from a line) can give an R^2 of -27000, whose recomputation
# by validate (absolute tolerance 1e-9) the bundle sweep of tests/lib/cli.sh then refuses.
# Needs LLAMA_BIN_DIR; exits 77 (skip) without it.
set -u
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-import-lbench.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
"$RL_BIN" synth --preset tiny --type Q8_0 --seed 7 -q -o "$work/tiny.gguf"; check "synth" 0 $?
bench() { # stdout format, stdout file, stderr file
  "$LLAMA_BIN_DIR/llama-bench" -m "$work/tiny.gguf" -t 1,2 -d 0,16 -p 8 -n 8 -r 2 -o "$1" -oe json >"$2" 2>"$3"
  check "llama-bench -o $1 -oe json" 0 $? || { tail -5 "$3"; return 1; }
}
bench csv "$work/out.csv" "$work/csv-twin.json.txt"
bench sql "$work/out.sql" "$work/sql-twin.json.txt"
if command -v sqlite3 >/dev/null; then
  sqlite3 "$work/out.db" <"$work/out.sql"; check "sqlite3 FILE <out.sql" 0 $?
else
  /usr/bin/python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.commit()' \
    "$work/out.db" "$work/out.sql"; check "python3 sqlite3 <out.sql" 0 $?
fi

valid() { # description, bundle file
  python3 - "$RL_SRC/schema/bundle.schema.json" "$2" >"$work/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
  check "$1" 0 $? || head -c 600 "$work/schema.txt"
}
# the input, its -oe json twin, the format import names
for case in "out.csv csv-twin csv" "out.sql sql-twin sql" "out.db sql-twin sqlite"; do
  set -- $case
  "$RL_BIN" import "$work/$2.json.txt" -o "$work/$2.json" >/dev/null 2>&1; check "import $2 (-oe json)" 0 $?
  "$RL_BIN" import "$work/$1" -o "$work/$1.json" >/dev/null 2>"$work/import.err"
  check "import $1" 0 $? || cat "$work/import.err"
  valid "$1: the bundle validates" "$work/$1.json"
  json_check "$1: format llama-bench $3, 8 records, 4 runs (threads 1, 2 x depths 0, 16)" "$work/$1.json" \
    "j['source']['format']=='llama-bench $3' and j['source']['records']==8 and [(r['threads'],r['depth']) for m in j['models'] for r in m['runs']]==[(1,0),(1,16),(2,0),(2,16)]"
  json_check "$1: the runs and every field of every record as the json gave them" "$work/$1.json" "$(cat <<PY
(lambda t: [(m['path'],[(r['threads'],r['depth'],r['status']) for r in m['runs']]) for m in j['models']]
 ==[(m['path'],[(r['threads'],r['depth'],r['status']) for r in m['runs']]) for m in t['models']]
 and all(len(x)==len(y)-2 and all(y[k]==v for k,v in x.items())
         for m,n in zip(j['models'],t['models']) for r,q in zip(m['runs'],n['runs'])
         for x,y in zip(r['records'],q['records'])))(json.load(open('$work/$2.json')))
PY
)"
  json_check "$1: a decode rate per run, its record's avg_ts; the model's operating point" "$work/$1.json" "$(cat <<PY
(lambda t: all(abs(r['decode']['stats']['mean']-[x for x in q['records'] if x['n_gen']>0][0]['avg_ts'])<1e-6
               for m,n in zip(j['models'],t['models']) for r,q in zip(m['runs'],n['runs']))
 and j['analysis']['models'][0]['operating_point']['threads']==t['analysis']['models'][0]['operating_point']['threads']
 and abs(j['analysis']['models'][0]['operating_point']['decode_tok_s']-t['analysis']['models'][0]['operating_point']['decode_tok_s'])<1e-6)(json.load(open('$work/$2.json')))
PY
)"
done
finish
