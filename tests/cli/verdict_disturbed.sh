#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: no plain verdict from a disturbed measurement (analysis.disturbance, docs/BUNDLE.md).
# A run with the fake llama-bench, its runs given "machine" objects by hand (python3) and
# re-analysed by `run --resume` (nothing left to measure): quiet objects (other processes 3%,
# disturbed false) leave the terminal, page and Markdown as a plain run's; loaded ones (88%,
# disturbed true) put "Measured while the machine was busy: ..." first in the terminal summary
# and the Markdown and as a banner above the headline of the page, state the verdict as
# "looks ...", set analysis.verdict.provisional and the warning "disturbed", and validate.
# `compare` of the quiet and the loaded bundle marks every row "? [disturbed]" in the table and
# the Markdown, data-disturbed and "disturbed": true on the page; quiet against quiet marks
# none, and a disturbed baseline marks the rows of a quiet input. New feature: every check on a loaded bundle failed before it (plain verdict, no banner).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-verdict-disturbed.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"

# machine DIR PCT DISTURBED: every run of DIR's bundle gets a machine object; resume re-analyses
machine() {
  python3 - "$1/bundle.json" "$2" "$3" <<'PY' || fail "machine objects into $1"
import json, sys
p, pct, dist = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "true"
b = json.load(open(p))
for m in b["models"]:
    for r in m["runs"]:
        r["machine"] = {"kind": "measured", "interval_s": 3.0, "cpus": 2, "other_cpu_pct": pct,
                        "steal_pct": 0.0, "psi_cpu_some_pct": None, "procs_running_max": 3,
                        "freq_mhz_min": None, "freq_mhz_max": None, "throttle_events": None,
                        "disturbed": dist,
                        "why": "other processes used %.0f%% of the CPUs" % pct if dist else ""}
b["status"] = {"state": "interrupted"}
json.dump(b, open(p, "w"))
PY
  "$RL_BIN" run --resume --llama-bench "$FAKE" -o "$1" >"$1.out" 2>"$1.err"
}
for d in quiet loaded; do
  "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -m "$work/b.gguf" -t 1,2 \
    -o "$work/$d" >/dev/null 2>&1; check "$d: run with the fake llama-bench" 0 $?
done
machine "$work/quiet" 3 false; check "quiet: resume re-analyses" 0 $?
machine "$work/loaded" 88 true; check "loaded: resume re-analyses" 0 $?
banner="Measured while the machine was busy: other processes used 88% of the CPUs during 4 of 4 llama-bench runs; the verdict below may be wrong. Re-run on a quiet machine or with --wait-quiet 60."

# ---- quiet: as a plain run
q=$(cat "$work/quiet.out")
[ "$(sed -n 2p "$work/quiet.out")" = "answer: not bandwidth-limited" ] && echo "ok   quiet: plain answer line" \
  || fail "quiet: answer line: $(sed -n 2p "$work/quiet.out")"
grep -q DISTURBED <<<"$q" && fail "quiet: marked disturbed: $q" || echo "ok   quiet: terminal not marked"
grep -q 'id="disturbed"' "$work/quiet/report.html" && fail "quiet: page has a banner" || echo "ok   quiet: page not marked"
json_check "quiet: disturbance counted, not disturbed" "$work/quiet/bundle.json" \
  'j["analysis"]["disturbance"]["disturbed"] is False and j["analysis"]["disturbance"]["n_measurements"] == 4 and not j["analysis"]["verdict"]["provisional"] and "disturbed" not in [w["code"] for w in j["warnings"]]'
md=$("$RL_BIN" report "$work/quiet/bundle.json" --markdown); check "quiet: markdown" 0 $?
expect "quiet: markdown starts with the headline" "$(head -1 <<<"$md")" '^## llama-roofline: Decode is not bandwidth-limited$'

# ---- loaded: never a plain verdict
[ "$(sed -n 2p "$work/loaded.out")" = "DISTURBED: $banner" ] && echo "ok   loaded: first line says what was seen and what to do" \
  || fail "loaded: first line: $(sed -n 2p "$work/loaded.out")"
[ "$(sed -n 3p "$work/loaded.out")" = "answer: looks not bandwidth-limited" ] && echo "ok   loaded: answer is provisional" \
  || fail "loaded: answer line: $(sed -n 3p "$work/loaded.out")"
expect "loaded: verdict sentence provisional" "$(sed -n 4p "$work/loaded.out")" \
  '^  Decode looks not bandwidth-limited, but other processes used 88% of the CPUs during 4 of 4 llama-bench runs, so this may be wrong: the median model'
json_check "loaded: bundle says disturbed" "$work/loaded/bundle.json" \
  'j["analysis"]["disturbance"]["text"] == "other processes used 88% of the CPUs during 4 of 4 llama-bench runs" and j["analysis"]["verdict"]["provisional"] is True and "disturbed" in [w["code"] for w in j["warnings"]]'
py=$(python3 - "$work/loaded/report.html" <<'PY'
import sys
p = open(sys.argv[1]).read()
b, h = p.find('<p class="warning disturbed" id="disturbed" role="alert">'), p.find('<h1 id="headline">')
print("banner-above" if 0 <= b < h else "no-banner", p[h:p.find("</h1>", h)])
PY
)
expect "loaded: page banner above the headline, headline provisional" "$py" \
  '^banner-above <h1 id="headline">Decode looks not bandwidth-limited \(measured on a busy machine\)$'
grep -qF "$banner" "$work/loaded/report.html" && echo "ok   loaded: banner text" || fail "loaded: banner text missing"
md=$("$RL_BIN" report "$work/loaded/bundle.json" --markdown); check "loaded: markdown" 0 $?
expect "loaded: markdown starts with the banner" "$(head -1 <<<"$md")" '^> \*\*Disturbed:\*\* Measured while the machine was busy: other processes used 88% of the CPUs during 4 of 4'
"$RL_BIN" validate "$work/loaded/bundle.json" >/dev/null 2>&1; check "loaded: bundle validates" 0 $?

# ---- compare: rows of disturbed inputs are marked
out=$("$RL_BIN" compare "$work/quiet/bundle.json" "$work/loaded/bundle.json" -o "$work/c.html" 2>"$work/err"); check "compare quiet loaded" 0 $?
[ "$(grep -cF 'noise? [disturbed] (p' <<<"$out")" = 8 ] && echo "ok   compare: 8 rows marked" || fail "compare: rows marked: $out"
expect "compare: the disturbed line" "$out" '^Disturbed: 8 of these were measured while the machine was busy'
py=$(python3 - "$work/c.html" <<'PY'
import json, re, sys
p = open(sys.argv[1]).read()
j = json.loads(re.search(r'<script type="application/json" id="compare">(.*?)</script>', p, re.S).group(1))
cells = [r["cells"][1] for r in j["rows"]]
print(p.count('data-disturbed="true"'), sum(1 for c in cells if c.get("disturbed") and "verdict_note" in c))
PY
)
expect "compare: page rows and JSON cells marked" "$py" '^8 8$'
md=$("$RL_BIN" compare "$work/quiet/bundle.json" "$work/loaded/bundle.json" --markdown); check "compare --markdown" 0 $?
[ "$(grep -cF 'noise? \[disturbed\] (p' <<<"$md")" = 8 ] && echo "ok   compare markdown: 8 rows marked" || fail "compare markdown: $md"
out=$("$RL_BIN" compare "$work/loaded/bundle.json" "$work/quiet/bundle.json"); check "compare loaded quiet" 0 $?
[ "$(grep -cF 'noise? [disturbed] (p' <<<"$out")" = 8 ] && echo "ok   compare: a disturbed baseline marks its rows" \
  || fail "compare loaded baseline: $out"
out=$("$RL_BIN" compare "$work/quiet/bundle.json" "$work/quiet/bundle.json"); check "compare quiet quiet" 0 $?
grep -qE '\[disturbed\]|^Disturbed' <<<"$out" && fail "compare quiet: marked: $out" || echo "ok   compare quiet: nothing marked"
finish
