#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: compare and a side measured disturbed (issue 18). Crafted from the synth-amd-epyc
# example with python3: one run (Q8_0, 2 threads) slowed by 20% on a quiet machine ("slow"),
# the same run slowed and marked disturbed by its "machine" object with the analysis' sentence
# ("slowd"), and both that and a second, quiet, slowed run (Q4_0, 2 threads: "both").
#  - the table, the Markdown and the page get a "disturbed" column that names the side ([2],
#    or "[1] (baseline)" when the baseline is the disturbed one), the summary's Disturbed line
#    names the input and what was seen, the page's JSON has inputs[].disturbed/disturbance and
#    the cell's disturbed_inputs; a quiet comparison has no such column;
#  - --fail-on-regression 10: the clean regression exits 1; the same regression in a disturbed
#    row exits 0 with the line "1 regression beyond 10% in a disturbed row, not counted:
#    re-measure on a quiet machine"; with one of each, exit 1 for the clean one and the line
#    says "1 more regression".
# Checked to fail before the change: the disturbed regression exited 1 and no column existed.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-compare-disturbed.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
base="$RL_SRC/examples/synth-amd-epyc/bundle.json"
python3 - "$base" "$work" <<'PY' || fail "crafting the bundles"
import copy, json, sys
j = json.load(open(sys.argv[1]))
def slowed(name, runs):
    b = copy.deepcopy(j)
    for mi, ri, dist in runs:
        r = b["models"][mi]["runs"][ri]
        assert r["threads"] == 2 and r["depth"] == 0
        r["decode"]["samples"] = [x * 0.8 for x in r["decode"]["samples"]]
        if dist:
            r["machine"] = {"kind": "measured", "interval_s": 3.0, "cpus": 2,
                            "other_cpu_pct": 88.0, "steal_pct": 0.0, "psi_cpu_some_pct": None,
                            "procs_running_max": 3, "freq_mhz_min": None, "freq_mhz_max": None,
                            "throttle_events": None, "disturbed": True,
                            "why": "other processes used 88% of the CPUs"}
            b["analysis"]["disturbance"] = {
                "kind": "derived", "disturbed": True, "n_measurements": 6, "n_disturbed": 1,
                "text": "other processes used 88% of the CPUs during 1 of 6 llama-bench runs"}
    json.dump(b, open("%s/%s.json" % (sys.argv[2], name), "w"), indent=1)
slowed("slow", [(1, 1, False)])
slowed("slowd", [(1, 1, True)])
slowed("both", [(1, 1, True), (0, 1, False)])
PY
S="$work/slow.json"; D="$work/slowd.json"; BOTH="$work/both.json"
note="^llama-roofline compare: 1 regression beyond 10% in a disturbed row, not counted: re-measure on a quiet machine$"

# ---- --fail-on-regression: a clean regression fails, a disturbed one is said, not counted
"$RL_BIN" compare "$base" "$S" --fail-on-regression 10 >/dev/null 2>"$work/err"; check "clean regression: --fail-on-regression 10" 1 $?
expect "clean regression: the line" "$(cat "$work/err")" "^llama-roofline compare: regression: 1 row slower than the baseline by more than 10% \(--fail-on-regression\)$"
[ "$(wc -l <"$work/err")" = 1 ] && echo "ok   clean regression: one line" || fail "clean regression: $(cat "$work/err")"
out=$("$RL_BIN" compare "$base" "$D" --fail-on-regression 10 2>"$work/err"); check "disturbed regression: --fail-on-regression 10 passes" 0 $?
expect "disturbed regression: the line says why" "$(cat "$work/err")" "$note"
[ "$(wc -l <"$work/err")" = 1 ] && echo "ok   disturbed regression: one line" || fail "disturbed regression: $(cat "$work/err")"
"$RL_BIN" compare "$base" "$D" --fail-on-regression 25 >/dev/null 2>"$work/err"; check "disturbed regression: under 25% nothing to say" 0 $?
[ -s "$work/err" ] && fail "disturbed regression under 25%: $(cat "$work/err")" || echo "ok   disturbed regression under 25%: stderr empty"
"$RL_BIN" compare "$base" "$D" >/dev/null 2>"$work/err"; check "disturbed: without --fail-on-regression" 0 $?
[ -s "$work/err" ] && fail "disturbed without the flag: $(cat "$work/err")" || echo "ok   disturbed without the flag: stderr empty"
"$RL_BIN" compare "$base" "$BOTH" --fail-on-regression 10 >/dev/null 2>"$work/err"; check "one clean, one disturbed: fails on the clean one" 1 $?
expect "one of each: the disturbed one said" "$(sed -n 1p "$work/err")" "^llama-roofline compare: 1 more regression beyond 10% in a disturbed row, not counted: re-measure on a quiet machine$"
expect "one of each: one row counted" "$(sed -n 2p "$work/err")" "^llama-roofline compare: regression: 1 row slower than the baseline by more than 10%"
"$RL_BIN" compare "$D" "$base" --fail-on-regression 10 >/dev/null 2>"$work/err"; check "disturbed baseline: the faster row is no regression" 0 $?

# ---- the disturbed column and the note naming the input
expect "table: the column" "$out" "^  metric +model +threads +baseline \[1\] \(tok/s\) +value \[2\] +ratio +delta +verdict +disturbed$"
expect "table: the row names input 2" "$out" "^  decode \(measured\) +qwen2.5-0.5b-Q8_0-seed1.gguf +2 +37.7 ± 0.93 +30.2 ± 0.74 +x0.800 +-7.54 \(-20.0%\) +↓ slower\? \[disturbed\] \(p = [0-9.e-]+\) +\[2\]$"
[ "$(grep -c ' \[2\]$' <<<"$out")" = 2 ] && echo "ok   table: 2 rows (the run's decode and prefill) marked" || fail "table: marked rows: $out"
expect "table: quiet rows end at the verdict" "$out" "^  decode \(measured\) +qwen2.5-0.5b-Q4_0-seed1.gguf +1 .*= within noise \(p = 1\)$"
expect "table: the note names the input" "$out" "^Disturbed: 2 of these were measured while the machine was busy .*: \[2\] slowd, other processes used 88% of the CPUs during 1 of 6 llama-bench runs\. Their verdicts may be wrong\."
md=$("$RL_BIN" compare "$base" "$D" --markdown); check "markdown" 0 $?
expect "markdown: the column" "$md" "^\| metric \| model \| threads \| baseline \\\\\[1\\\\\] \(tok/s\) \| value \\\\\[2\\\\\] \| ratio \| delta \| verdict \| disturbed \|$"
expect "markdown: the row" "$md" "^\| decode \(measured\) \| qwen2\.5-0\.5b-Q8\\\\_0-seed1\.gguf \| 2 \|.*\| \\\\\[2\\\\\] \|$"
expect "markdown: the note" "$md" "^Disturbed: 2 of these .*\\\\\[2\\\\\] slowd, other processes used 88%"
out=$("$RL_BIN" compare "$D" "$base"); check "disturbed baseline" 0 $?
expect "disturbed baseline: named as the baseline" "$out" "^  decode \(measured\) +qwen2.5-0.5b-Q8_0-seed1.gguf +2 .* \[1\] \(baseline\)$"
expect "disturbed baseline: the note" "$out" "\[1\] slowd \(the baseline\), other processes used 88%"
out=$("$RL_BIN" compare "$D" "$D"); check "disturbed against itself" 0 $?
expect "both sides: both named" "$out" "^  decode \(measured\) +qwen2.5-0.5b-Q8_0-seed1.gguf +2 .* \[1\] and \[2\]$"
out=$("$RL_BIN" compare "$base" "$S"); check "quiet comparison" 0 $?
grep -qE ' disturbed$|^Disturbed|\[disturbed\]' <<<"$out" && fail "quiet: a disturbed column or note: $out" || echo "ok   quiet: no disturbed column, no note"

# ---- the page: column, cell and the embedded JSON
"$RL_BIN" compare "$base" "$D" -o "$work/c.html" >/dev/null 2>&1; check "page" 0 $?
py=$(python3 - "$work/c.html" <<'PY'
import json, re, sys
p = open(sys.argv[1]).read()
j = json.loads(re.search(r'<script type="application/json" id="compare">(.*?)</script>', p, re.S).group(1))
marked = [r["cells"][1].get("disturbed_inputs") for r in j["rows"] if "disturbed_inputs" in r["cells"][1]]
ins = j["inputs"]
print(p.count('>Disturbed</th>'), p.count('<td class="disturbed">[2]</td>'), marked,
      ins[0]["disturbed"], ins[1]["disturbed"], ins[1].get("disturbance"),
      "[2] slowd, other processes used 88%" in p)
PY
)
expect "page: column, 2 cells, JSON sides and inputs, the note" "$py" \
  "^1 2 \[\[2\], \[2\]\] False True other processes used 88% of the CPUs during 1 of 6 llama-bench runs True$"
finish
