#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `validate` on client bundles (docs/BUNDLE.md "client"). The client fixture is valid (exit
# 0), against the JSON Schema too; one broken copy per check exits 1 with the problem's JSON
# path: a summary whose mean disagrees with its samples, requests that do not add up, fewer
# attempts than requests, a record missing, a metric without a kind, a unit the legend does not
# give, an unavailable metric without a reason, more good requests than ok ones, a
# distribution with more values than ok requests. Every check asserts the binary's exit status.
# Checked to fail: with the check_client call removed from rl_validate (every broken copy
# exits 0) and with the ok + failed comparison inverted (the fixture is then invalid).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-validate-client.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=validate
fx="$RL_SRC/tests/fixtures/client/bundle.json"

out=$("$RL_BIN" validate "$fx" 2>&1); check "client fixture valid" 0 $?
expect "valid line" "$out" "^$fx: valid$"
out=$(python3 - "$RL_SRC/schema/bundle.schema.json" "$fx" 2>&1 <<'PY'
import json, sys
import jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
print("schema ok")
PY
); check "client fixture valid against the schema ($out)" 0 $?

# break(name, python statements over j, expected path regex, expected message regex)
broken() {
  python3 - "$fx" "$work/$1.json" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p0, p1 = j["client"]["points"]
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
  local out
  out=$("$RL_BIN" validate "$work/$1.json" 2>"$work/err"); check "$1: exit 1" 1 $?
  expect "$1: path and message" "$out" "^$work/$1.json: $3: $4"
  [ -s "$work/err" ] && fail "$1: stderr not empty: $(cat "$work/err")" || true
}
broken mean 'p0["metrics"]["ttft"]["samples"][1] += 7' \
  'client\.points\[0\]\.metrics\.ttft\.stats\.mean' "stats.mean is not the mean of the samples"
broken counts 'p1["requests"]["failed"] = 2' \
  'client\.points\[1\]\.requests' "ok \(3\) \+ failed \(2\) is not measured \(4\)"
broken attempts 'p1["requests"]["attempts"] = 3' \
  'client\.points\[1\]\.requests\.attempts' "fewer attempts \(3\) than measured requests \(4\)"
broken records 'p0["records"].pop()' \
  'client\.points\[0\]\.records' "3 records for 4 measured requests"
broken nokind 'del p0["metrics"]["tpot"]["kind"]' \
  'client\.points\[0\]\.metrics\.tpot\.kind' "a client metric needs a kind"
broken unit 'p1["metrics"]["e2e"]["unit"] = "s"' \
  'client\.points\[1\]\.metrics\.e2e\.unit' 'unit "s", the legend says "ms"'
broken kind 'p1["metrics"]["ttft"]["kind"] = "measured"' \
  'client\.points\[1\]\.metrics\.ttft\.kind' 'kind "measured", the legend says "proxy"'
broken reason 'p0["metrics"]["rps"] = {"available": False}' \
  'client\.points\[0\]\.metrics\.rps\.reason' "unavailable without a reason"
broken good 'p1["goodput"]["good"] = 4' \
  'client\.points\[1\]\.goodput\.good' "more good requests \(4\) than ok \(3\)"
broken toomany 'p1["metrics"]["e2e"]["samples"].append(600.0); p1["metrics"]["e2e"]["stats"]["n"] = 4' \
  'client\.points\[1\]\.metrics\.e2e\.stats\.n' "4 values from 3 ok requests"
# schema_version 1 (the client's statistics block was "summary"): read and upgraded, so it is
# valid and renders to the very page and Markdown of the version 2 fixture
v1="$RL_SRC/tests/fixtures/client/bundle-v1.json"
out=$("$RL_BIN" validate "$v1" 2>&1); check "version 1 client bundle valid ($out)" 0 $?
"$RL_BIN" report "$v1" -o "$work/v1.html" >/dev/null; check "version 1: report" 0 $?
"$RL_BIN" report "$fx" -o "$work/v2.html" >/dev/null; check "version 2: report" 0 $?
cmp -s "$work/v1.html" "$work/v2.html" && echo "ok   version 1 and 2 pages identical" ||
  fail "version 1 and 2 pages differ"
grep -q '"stats":' "$work/v1.html" && ! grep -q '"summary":' "$work/v1.html" &&
  echo "ok   version 1 page embeds stats, not summary" || fail "version 1 page: not upgraded"
finish
