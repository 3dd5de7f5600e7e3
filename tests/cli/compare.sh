#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `compare`. The two published example bundles and the measured one give a page whose one
# roofline holds 3 fitted lines (its data table has 3 "fit line" rows, one per input) and
# that lists the environment differences (CPU, OS,
# kernel...) as warnings, also on stdout; the embedded comparison JSON parses with the three
# bundles. A bundle compared with itself: every row "within noise", exit 0 under
# --fail-on-regression 10 and --strict. The same bundle with one model's decode samples (Q8_0,
# 2 threads) slowed by 20% (made here with python3): exactly that row "slower", in the table,
# the Markdown and the page; --fail-on-regression 10 exits 1, 25 exits 0. --strict on a suite
# mismatch exits 1. A directory of bundles, --baseline, --all-columns. Bad inputs: a missing
# file, a truncated JSON, one input only, an empty directory, a bad option value: exit 2 with
# one line; an unwritable -o: exit 4. Every check asserts the binary's exit status.
# Checked to fail: with rl_cmp_regressions returning 0 (the slowed bundle exits 0 under
# --fail-on-regression 10) and with the model identity made of the file name only (the
# 20%-slower row then still matches, but the renamed copy below no longer does).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-compare.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=compare
ex="$RL_SRC/examples"
synth="$ex/synth-amd-epyc/bundle.json"

# ---- help and usage errors
out=$("$RL_BIN" compare --help); check "--help" 0 $?
expect "--help names the test" "$out" "Welch's two-sided t-test"
bad "no input" 2 "no input: give two or more bundles" 
bad "one input only" 2 "compare needs at least two inputs .*got 1" "$synth"
# the count is checked before anything else: before the page's -o is tried (it would exit 4)
bad "one input, unwritable -o" 2 "compare needs at least two inputs .*got 1" -o "$work/no/such/dir/c.html" "$synth"
bad "missing file" 2 "cannot read $work/nope.json" "$synth" "$work/nope.json"
head -c 3000 "$synth" >"$work/truncated.json"
crafted "$work/truncated.json" # broken on purpose: not swept by finish
bad "truncated JSON" 2 "truncated.json" "$synth" "$work/truncated.json"
mkdir -p "$work/empty"
bad "empty directory" 2 "empty holds no bundle or report" "$synth" "$work/empty"
bad "bad --fail-on-regression" 2 "fail-on-regression: 'x' is not valid" --fail-on-regression x "$synth" "$synth"
bad "--baseline out of range" 2 "baseline: '3' is out of range" --baseline 3 "$synth" "$synth"
bad "unwritable -o" 4 "$work/no/such/dir" -o "$work/no/such/dir/c.html" "$synth" "$synth"
bad "-o a directory" 4 "$work/empty" -o "$work/empty" "$synth" "$synth"

# ---- the three examples: one roofline, three fits, environment differences
out=$("$RL_BIN" compare "$ex/rpi5-cortex-a76/bundle.json" "$ex/x86-i7-12700H/bundle.json" "$synth" \
  -o "$work/ex.html" 2>"$work/err"); check "examples compared" 0 $?
expect "stdout: CPU differs" "$out" "environment: CPU differs: \[1\] Raspberry Pi 5.*\[2\] 12th Gen Intel.*\[3\] AMD EPYC"
expect "stdout: OS differs" "$out" "environment: OS differs: \[1\] Linux; \[2\] Windows; \[3\] Linux"
expect "stdout: suite differs" "$out" "suite: Threads differs"
expect "stderr: wrote" "$(cat "$work/err")" "^wrote $work/ex.html$"
python3 - "$work/ex.html" >"$work/py" 2>&1 <<'PY'
import html.parser, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.fig = None; self.rows = []; self.facts = []; self.td = None; self.svg_paths = 0
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "figure" and a.get("id") == "fig-compare-roofline": self.fig = True
        if tag == "figure" and a.get("id") != "fig-compare-roofline" and self.fig: self.fig = False
        if self.fig and tag == "tr": self.rows.append([])
        if self.fig and tag == "td": self.td = ""
        if tag == "div" and "data-fact" in a: self.facts.append(a["data-fact"])
        if self.fig and tag == "path": self.svg_paths += 1
    def handle_endtag(self, tag):
        if tag == "td" and self.td is not None and self.rows: self.rows[-1].append(self.td); self.td = None
    def handle_data(self, d):
        if self.td is not None: self.td += d
p = P(); p.feed(page)
fits = [r for r in p.rows if r and r[0] == "fit line"]
print("fits", len(fits), sorted(r[1] for r in fits))
print("facts", ",".join(p.facts))
m = re.search(r'<script type="application/json" id="compare">(.*?)</script>', page, re.S)
j = json.loads(m.group(1))
print("json", j["schema"], len(j["inputs"]), all("models" in i["bundle"] for i in j["inputs"]), j["test"]["alpha"], j["test"]["min_effect_pct"])
print("scripts", len(re.findall(r"<script", page)))
PY
py=$(cat "$work/py")
expect "page: 3 fitted lines in the roofline's table" "$py" "^fits 3 \['\[1\]', '\[2\]', '\[3\]'\]$"
expect "page: environment differences listed" "$py" "^facts .*CPU,.*OS,Kernel"
expect "page: embedded comparison with 3 bundles" "$py" "^json llama-roofline-compare 3 True 0.05 2$"
expect "page: one script (data)" "$py" "^scripts 1$"
grep -q "Welch's two-sided t-test" "$work/ex.html" && echo "ok   page names the test" || fail "page names the test"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$work/ex.html" && echo "ok   page CSP" || fail "page CSP"

# a directory holding the example directories: one input per example bundle
n_ex=$(ls "$ex"/*/bundle.json | wc -l)
out=$("$RL_BIN" compare "$ex"); check "a directory of example directories" 0 $?
expect "directory: every example an input" "$out" "^llama-roofline compare: $n_ex inputs, baseline \[1\] rpi5-cortex-a76$"
out=$("$RL_BIN" compare "$ex" --baseline 2); check "--baseline 2" 0 $?
expect "--baseline 2 named" "$out" "baseline \[2\] synth-amd-epyc"

# ---- a bundle compared with itself (and with its report): every row within noise
out=$("$RL_BIN" compare "$synth" "$ex/synth-amd-epyc/report.html" --fail-on-regression 10 --strict); check "itself: exit 0 under --fail-on-regression 10 --strict" 0 $?
expect "itself: summary" "$out" "^Summary: 0 faster, 0 slower, 12 within noise, 0 not tested, 0 not in both the input and the baseline\.$"
n=$(grep -c "= within noise (p = 1)$" <<<"$out")
[ "$n" = 12 ] && echo "ok   itself: 12 rows, each within noise" || fail "itself: $n rows within noise: $out"

# ---- one model's decode samples (Q8_0 at 2 threads) slowed by 20%, the model renamed
python3 - "$synth" "$work/slow.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = j["models"][1]
m["name"] = "renamed-copy.gguf"  # identity is the tensor-type map and size, not the name
r = m["runs"][1]
assert r["threads"] == 2 and r["depth"] == 0
r["decode"]["samples"] = [x * 0.8 for x in r["decode"]["samples"]]
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
out=$("$RL_BIN" compare "$synth" "$work/slow.json" -o "$work/slow.html" 2>/dev/null); check "slowed: compared" 0 $?
expect "slowed: summary" "$out" "^Summary: 0 faster, 1 slower, 11 within noise"
slower=$(grep "slower (p" <<<"$out")
[ "$(wc -l <<<"$slower")" = 1 ] && echo "ok   slowed: exactly one row slower" || fail "slowed: $slower"
expect "slowed: that row" "$slower" "^  decode \(measured\) +qwen2.5-0.5b-Q8_0-seed1.gguf +2 +37.7 ± 0.93 +30.2 ± 0.74 +x0.800 +-7.54 \(-20.0%\) +↓ slower \(p = "
n=$(grep -o 'data-verdict="slower"' "$work/slow.html" | wc -l)
[ "$n" = 1 ] && echo "ok   slowed: one slower row on the page" || fail "slowed: $n slower rows on the page"
"$RL_BIN" compare "$synth" "$work/slow.json" --fail-on-regression 10 >/dev/null 2>"$work/err"; check "slowed: --fail-on-regression 10" 1 $?
expect "slowed: the regression line" "$(cat "$work/err")" "^llama-roofline compare: regression: 1 row slower than the baseline by more than 10% \(--fail-on-regression\)$"
"$RL_BIN" compare "$synth" "$work/slow.json" --fail-on-regression 25 >/dev/null; check "slowed: --fail-on-regression 25" 0 $?
out=$("$RL_BIN" compare "$synth" "$work/slow.json" --markdown); check "--markdown" 0 $?
expect "markdown: table row" "$out" "^\| decode \(measured\) \| qwen2\.5-0\.5b-Q8\\\\_0-seed1\.gguf \| 2 \| 37\.7 ± 0\.93 \| 30\.2 ± 0\.74 \| x0\.800 \| -7\.54 \(-20\.0%\) \| ↓ slower"
expect "markdown: names the test" "$out" "Welch's two-sided t-test"

# ---- --strict on a suite mismatch; --all-columns shows every key column
"$RL_BIN" compare "$synth" "$ex/rpi5-cortex-a76/bundle.json" --strict >/dev/null 2>"$work/err"; check "--strict: suite mismatch" 1 $?
expect "--strict: the line" "$(cat "$work/err")" "suite mismatch: the inputs differ in settings or models"
"$RL_BIN" compare "$synth" "$ex/rpi5-cortex-a76/bundle.json" >/dev/null; check "without --strict: exit 0" 0 $?
out=$("$RL_BIN" compare "$synth" "$work/slow.json" --all-columns); check "--all-columns" 0 $?
expect "--all-columns: depth and n_gen columns" "$out" "metric +model +threads +depth +n_prompt +n_gen"
# a model name with the cell separator: escaped in the Markdown table (mutant cmptxt-md-pipe in
# tests/mutants.txt: no other fixture has a |)
python3 - "$synth" "$work/slow.json" "$work/pipe-a.json" "$work/pipe-b.json" <<'PY'
import json, sys
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    b = json.load(open(src))
    for i, m in enumerate(b["models"]):
        m["name"] = "pipe|name-%d" % i
    json.dump(b, open(dst, "w"))
PY
out=$("$RL_BIN" compare "$work/pipe-a.json" "$work/pipe-b.json" --markdown); check "--markdown, a | in a name" 0 $?
printf '%s\n' "$out" | grep -qF 'pipe\|name-0' && echo "ok   markdown: | escaped in a cell" || fail "markdown: | not escaped: $(printf '%s\n' "$out" | grep -F 'name-0' | head -1)"
! printf '%s\n' "$out" | grep -qE 'pipe[|]name' && echo "ok   markdown: no bare | in a name" || fail "markdown: a bare | in a name"
finish
