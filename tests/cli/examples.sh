#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the shipped examples. Each examples/*/bundle.json validates against the schema, is under
# 1 MB, and renders to its committed examples/*/report.html byte for byte (golden test: same
# bundle in, same report out; regenerate both with scripts/make-examples.sh); each report is
# under 1 MB and reads back as the same bundle.
# Checked to fail: with one byte of a committed report.html changed, and with the renderer's
# output depending on the time (a timestamp added to the page).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-examples.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
n=0
for b in "$RL_SRC"/examples/*/bundle.json; do
  d=$(dirname "$b"); name=$(basename "$d"); n=$((n+1))
  python3 - "$RL_SRC/schema/bundle.schema.json" "$b" >"$work/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
  check "$name: bundle validates against the schema" 0 $?
  [ "$(wc -c <"$b")" -lt 1000000 ] && echo "ok   $name: bundle under 1 MB" || fail "$name: bundle over 1 MB"
  "$RL_BIN" report "$b" -o "$work/$name.html" >/dev/null 2>"$work/err"; check "$name: report" 0 $?
  cmp -s "$work/$name.html" "$d/report.html" && echo "ok   $name: report.html is the committed one byte for byte" \
    || fail "$name: report.html differs from the committed one (run scripts/make-examples.sh)"
  [ "$(wc -c <"$d/report.html")" -lt 1000000 ] && echo "ok   $name: report under 1 MB" || fail "$name: report over 1 MB"
  "$RL_BIN" report "$d/report.html" -o "$work/$name.again.html" >/dev/null; check "$name: report from the report" 0 $?
  cmp -s "$work/$name.again.html" "$d/report.html" && echo "ok   $name: a report reads back as its bundle" \
    || fail "$name: re-rendering the report changed it"
done
[ "$n" -ge 2 ] && echo "ok   $n examples" || fail "only $n examples"
finish
