#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `compare` of a fleet. From 100 inputs (RL_CMP_SUMMARY_MIN) the page, the terminal text
# and the page's embedded JSON read each row across the inputs instead of one line per cell:
# 120 copies of the synth example bundle, every decode and prefill sample scaled by its own
# factor (1.00 + 0.001 * k, a monotone ramp, so input [120] is the best) and input [37]
# slowed by 30% (the worst): the page says it summarises, each row names [120] best and [37]
# worst with "1 slower" at least, lists every input as one table row (#input-120), stays under
# 1.5 MB, and its JSON is the "fleet" form (row summaries, no cells); the text lists 10 inputs
# and "... and 110 more"; `--json` still holds every cell (120 per row). 100 inputs (the
# threshold) are summarised too; 99 get the per-cell tables and one section per input.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-compare-fleet.$$"
mkdir -p "$work/in"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=compare
python3 - "$RL_SRC/examples/synth-amd-epyc/bundle.json" "$work/in" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
base = json.load(open(src))
for k in range(120):
    j = json.loads(json.dumps(base))
    f = 0.7 if k == 36 else 1.0 + 0.001 * k
    for m in j["models"]:
        for r in m["runs"]:
            for rate in ("decode", "prefill"):
                x = r.get(rate)
                if isinstance(x, dict) and isinstance(x.get("samples"), list):
                    x["samples"] = [v * f for v in x["samples"]]
    json.dump(j, open("%s/m%03d.json" % (out, k + 1), "w"))
PY
page="$work/fleet.html"
"$RL_BIN" compare "$work"/in/m*.json -o "$page" >"$work/out.txt" 2>"$work/err.txt"
check "compare of 120 inputs" 0 $?
size=$(wc -c <"$page")
if [ "$size" -lt 1500000 ]; then echo "ok   page of 120 inputs: $size bytes"; else fail "page of 120 inputs: $size bytes, over 1.5 MB"; fi
expect "page says it summarises" "$(cat "$page")" "120 inputs: each row is summarised across them"
expect "every input a table row" "$(cat "$page")" '<tr id="input-120"'
python3 - "$page" >"$work/emb.json" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="compare">(.*?)</script>', s, re.S)
print(m.group(1) if m else "{}")
PY
json_check "embedded JSON: the fleet form" "$work/emb.json" \
  'j["form"] == "fleet" and all("cells" not in r for r in j["rows"]) and len(j["inputs"]) == 120'
json_check "decode rows: [120] best, [37] worst, 1 slower" "$work/emb.json" \
  'all(r["summary"]["best_input"] == 120 and r["summary"]["worst_input"] == 37 and r["summary"]["slower"] >= 1 for r in j["rows"] if r["metric"] == "decode")'
json_check "decode rows: smallest ratio 0.7" "$work/emb.json" \
  'all(abs(r["summary"]["ratio_min"] - 0.7) < 1e-9 for r in j["rows"] if r["metric"] == "decode")'
out=$("$RL_BIN" validate "$page"); check "validate: the fleet page" 0 $?
expect "validate: the fleet page is valid" "$out" 'fleet.html: valid$'
python3 - "$page" "$work/tampered.html" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('"faster":')
j = s.index(",", i)
open(sys.argv[2], "w").write(s[:i] + '"faster":\t999' + s[j:])
PY
crafted "$work/tampered.html"
out=$("$RL_BIN" validate "$work/tampered.html" 2>&1); check "validate: a tampered count" 1 $?
expect "validate: names the row and the count" "$out" "rows\[0\]: summary.faster is not a count from 0 to 120"
out=$(cat "$work/out.txt")
expect "text: 10 inputs, then a count" "$out" '^  \.\.\. and 110 more inputs'
expect "text: no 11th input line" "$(grep -c '^  \[11\]' "$work/out.txt")" '^0$'
expect "text: a decode row with best [120], worst [37]" "$out" 'decode \(measured\) .* x0\.700 .*\[120\] +\[37\]'
"$RL_BIN" compare "$work"/in/m*.json --json >"$work/all.json" 2>/dev/null
check "compare --json of 120 inputs" 0 $?
json_check "--json keeps every cell" "$work/all.json" \
  'j["form"] == "summary" and all(len(r["cells"]) == 120 for r in j["rows"])'

# exactly at the threshold (100 inputs): summarised; one under it (99): the per-cell page
rm "$work"/in/m10[1-9].json "$work"/in/m11*.json "$work"/in/m120.json
"$RL_BIN" compare "$work"/in/m*.json -o "$work/at.html" >/dev/null 2>&1
check "compare of 100 inputs" 0 $?
expect "100 inputs: summarised" "$(cat "$work/at.html")" "100 inputs: each row is summarised across them"
rm "$work"/in/m100.json
n=$(ls "$work"/in | wc -l)
"$RL_BIN" compare "$work"/in/m*.json -o "$work/small.html" >"$work/out2.txt" 2>&1
check "compare of $n inputs" 0 $?
small=$(cat "$work/small.html")
expect "99 inputs: one section per input" "$small" '<section class="input" id="input-99">'
if grep -q 'each row is summarised' "$work/small.html"; then fail "99 inputs: summarised"; else echo "ok   99 inputs: not summarised"; fi
expect "99 inputs: text lists the 99th" "$(cat "$work/out2.txt")" '^  \[99\] '
finish
