#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `history`. A series of six bundles of one machine (made here with python3 from the
# synth example: one day apart, a llama.cpp build each, the kernel changed at the third, one
# run marked disturbed at the sixth), with one planted 20% regression: Q8_0's decode at 2
# threads from build "d4d4d4d" (the fourth bundle) on. It is flagged there and only there, in
# the text, the Markdown, the JSON and the page; --fail-on-regression 10 exits 1 naming it on
# stderr, 30 exits 0. Another machine's bundle mixed into the directory is listed and left
# out of every series; when it is the newest, its machine is the one followed and there are
# too few bundles (exit 2). Client bundles: a TTFT +20% at the third is a regression. The page parses as HTML (every element closed, one data script
# whose JSON parses, a trend chart per metric, SVG that parses as XML). Bad inputs: no input,
# an empty directory, a file that is not a bundle, one bundle, a bad option value: exit 2
# with one line; an unwritable -o: exit 4. Every check asserts the binary's exit status.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-history.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=history
synth="$RL_SRC/examples/synth-amd-epyc/bundle.json"

# ---- the series: s/b1..b6 of one machine, x/other.json of another
python3 - "$synth" "$work" <<'PY'
import json, os, sys
src, work = sys.argv[1], sys.argv[2]
os.makedirs(work + "/s", exist_ok=True)
builds = ["a1a1a1a", "b2b2b2b", "c3c3c3c", "d4d4d4d", "e5e5e5e", "f6f6f6f"]
for i, build in enumerate(builds):
    j = json.load(open(src))
    j["created_utc"] = "2026-11-%02dT10:00:00Z" % (i + 1)
    j["llama_cpp"]["build_commit"] = build
    j["llama_cpp"]["build_number"] = 4000 + i
    if i >= 2:
        j["environment"]["kernel"] = "6.19.1-test"
    for mi, m in enumerate(j["models"]):
        for r in m["runs"]:
            f = 1 + 0.001 * i  # a drift far inside the noise
            if mi == 1 and r["threads"] == 2:
                f = 0.8 if i >= 3 else 1.0  # the planted regression: Q8_0, 2 threads, from build d4d4d4d on
            r["decode"]["samples"] = [x * f for x in r["decode"]["samples"]]
            if i == 5 and mi == 0 and r["threads"] == 1:
                r.setdefault("machine", {})["disturbed"] = True
    json.dump(j, open("%s/s/b%d.json" % (work, i + 1), "w"), indent=1)
o = json.load(open(src))
o["environment"]["cpu"] = "Other CPU 9000"
o["created_utc"] = "2026-11-03T12:00:00Z"
json.dump(o, open(work + "/s/other.json", "w"), indent=1)
o["created_utc"] = "2026-12-01T00:00:00Z"
os.makedirs(work + "/newest-other", exist_ok=True)
json.dump(o, open(work + "/newest-other/other.json", "w"), indent=1)
PY

# ---- help and bad inputs
out=$("$RL_BIN" history --help); check "--help" 0 $?
expect "--help names the rule" "$out" "Welch's"
expect "--help names --fail-on-regression" "$out" "--fail-on-regression PCT"
bad "no input" 2 "no input: give a directory of bundles"
mkdir -p "$work/empty"
bad "empty directory" 2 "empty holds no bundle or report" "$work/empty"
echo '{"hello": 1}' >"$work/not-a-bundle.json"
bad "not a bundle" 2 "not-a-bundle.json" "$work/not-a-bundle.json" "$work/s/b1.json"
bad "one bundle" 2 "history needs at least two bundles of one machine; got 1" "$work/s/b1.json"
bad "bad --fail-on-regression" 2 "fail-on-regression: 'x' is not valid" --fail-on-regression x "$work/s"
bad "--fail-on-regression above 100" 2 "fail-on-regression" --fail-on-regression 101 "$work/s"
bad "--markdown and --json" 2 "cannot both go to stdout" --markdown --json "$work/s"
bad "unwritable -o" 4 "$work/no/such/dir" -o "$work/no/such/dir/h.html" "$work/s"
bad "-o an input" 2 "same file as the input" -o "$work/s/b2.json" "$work/s"
cp "$work/s/b1.json" "$work/s/b2.json" "$work/newest-other/"
bad "the newest is another machine's" 2 "of 3 read, 1 is of the newest one's machine \(Other CPU 9000" "$work/newest-other"

# ---- the text: the regression there and only there, the other machine left out
out=$("$RL_BIN" history "$work/s" 2>"$work/err"); check "history of the directory" 0 $?
expect "header: six bundles of the machine" "$out" "^llama-roofline history: 6 bundles of AMD EPYC, x86_64, 2 cores, 23.5 GiB RAM, 2026-11-01 10:00 to 2026-11-06 10:00$"
expect "left out: a note" "$out" "^Left out: 1 bundle of another machine"
expect "left out: the file and its machine" "$out" "^  $work/s/other.json \(Other CPU 9000, x86_64"
slower=$(grep "↓ slower" <<<"$out")
[ "$(wc -l <<<"$slower")" = 1 ] && echo "ok   exactly one step slower" || fail "slower steps: $slower"
expect "the slower step: at b4, build d4d4d4d, -20%" "$slower" "^  2026-11-04 10:00  b4  +d4d4d4d \(build 4003\) +30\.[0-9] ± [0-9.]+ +-7\.[0-9]+ \(-20\.0%\) +↓ slower \(p = [0-9.e-]+\) +llama\.cpp build: c3c3c3c \(build 4002\) -> d4d4d4d \(build 4003\)$"
expect "summary: one slower" "$out" "^Summary: 13 series; 0 steps faster, 1 slower, [0-9]+ within noise, 0 not tested; [12] measured disturbed"
expect "the kernel change annotated at b3" "$out" "b3 .*kernel: 6\.18\.44-fc-v782 -> 6\.19\.1-test"
expect "the ceiling: the samples of its kernel and thread count (dot, 2 threads)" "$(grep -A2 "^membw kernel=dot threads=2, ceiling (measured) (GB/s): 6 bundles$" <<<"$out")" "b1 +a1a1a1a \(build 4000\) +73\.6 ± 2\.58$"
expect "the disturbed run annotated at b6" "$out" "b6 .*\? \[disturbed\].*measured disturbed"
grep -q "Other CPU" <<<"$(grep -v "^  $work/s/other.json" <<<"$out")" && fail "the other machine appears beyond its note" || echo "ok   the other machine only in its note"
grep -q "other" <<<"$(sed -n '/^== /,$p' <<<"$out")" && fail "the other bundle in a series" || echo "ok   the other bundle in no series"

# ---- --fail-on-regression
"$RL_BIN" history "$work/s" --fail-on-regression 10 >"$work/out" 2>"$work/err"; check "--fail-on-regression 10" 1 $?
err=$(cat "$work/err")
expect "stderr names the regression" "$err" "^llama-roofline history: regression: decode qwen2\.5-0\.5b-Q8_0-seed1\.gguf threads=2 depth=0 n_prompt=128 n_gen=128 at b4 \(llama\.cpp d4d4d4d \(build 4003\)\): -20\.0%$"
expect "stderr: the exit line" "$err" "^llama-roofline history: regression: 1 step slower than the bundle before by more than 10% \(--fail-on-regression\)$"
[ "$(grep -c "regression:" <<<"$err")" = 2 ] && echo "ok   one regression named" || fail "regressions named: $err"
"$RL_BIN" history "$work/s" --fail-on-regression 30 >/dev/null 2>"$work/err"; check "--fail-on-regression 30" 0 $?
[ ! -s "$work/err" ] && echo "ok   30: nothing on stderr" || fail "30: stderr: $(cat "$work/err")"

# ---- Markdown
out=$("$RL_BIN" history "$work/s" --markdown); check "--markdown" 0 $?
expect "markdown: heading" "$out" "^### llama-roofline history: 6 bundles of AMD EPYC"
expect "markdown: the slower row" "$out" "^\| 2026-11-04 10:00 \| b4 \| d4d4d4d \(build 4003\) \| 30\.[0-9] ± [0-9.]+ \| -7\.[0-9]+ \(-20\.0%\) \| ↓ slower \(p = [0-9.e-]+\) \| llama\.cpp build: c3c3c3c \(build 4002\) -\\\\> d4d4d4d \(build 4003\) \|$"
expect "markdown: the note of the other machine" "$out" "^- $work/s/other\.json \(Other CPU 9000"
[ "$(grep -c "↓ slower" <<<"$out")" = 1 ] && echo "ok   markdown: one slower row" || fail "markdown: slower rows"

# ---- JSON
"$RL_BIN" history "$work/s" --json >"$work/h.json"; check "--json" 0 $?
json_check "json: 6 inputs in time order, 1 left out" "$work/h.json" \
  'j["schema"]=="llama-roofline-history" and [i["label"] for i in j["inputs"]]==["b1","b2","b3","b4","b5","b6"] and [i["label"] for i in j["left_out"]]==["other"]'
json_check "json: one slower point, at input 4" "$work/h.json" \
  '[(s["subject"],s["keys"]["threads"],p["input"]) for s in j["series"] for p in s["points"] if p.get("verdict")=="slower"]==[("qwen2.5-0.5b-Q8_0-seed1.gguf","2",4)]'
json_check "json: every point with its samples" "$work/h.json" \
  'all(len(p["samples"])==p["n"] for s in j["series"] for p in s["points"])'

# ---- the page
"$RL_BIN" history "$work/s" -o "$work/h.html" >/dev/null 2>"$work/err"; check "-o page" 0 $?
expect "stderr: wrote" "$(cat "$work/err")" "^wrote $work/h.html$"
python3 - "$work/h.html" >"$work/py" 2>&1 <<'PY'
import html.parser, json, re, sys, xml.dom.minidom
page = open(sys.argv[1], encoding="utf-8").read()
VOID = {"meta", "link", "br", "img", "hr", "input", "col", "area", "base", "wbr", "source"}
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.bad = []; self.figs = []; self.slower = 0; self.left = []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag not in VOID: self.stack.append(tag)
        if tag == "figure": self.figs.append(a.get("id"))
        if tag == "tr" and a.get("data-verdict") == "slower": self.slower += 1
        if "data-left-out" in a: self.left.append(a["data-left-out"])
    def handle_startendtag(self, tag, a):
        self.handle_starttag(tag, a)
        if tag not in VOID: self.stack.pop()
    def handle_endtag(self, tag):
        if tag in VOID: return
        if not self.stack or self.stack[-1] != tag: self.bad.append(tag)
        else: self.stack.pop()
p = P(); p.feed(page)
print("balanced", not p.bad and p.stack == [], p.bad[:3])
print("figures", len(p.figs), p.figs[0] if p.figs else None)
print("slower rows", p.slower)
print("left out", p.left)
m = re.search(r'<script type="application/json" id="history">(.*?)</script>', page, re.S)
j = json.loads(m.group(1))
print("json", j["schema"], len(j["inputs"]), len(j["left_out"]))
print("scripts", len(re.findall(r"<script", page)))
svgs = re.findall(r"<svg.*?</svg>", page, re.S)
ok = 0
for s in svgs:
    xml.dom.minidom.parseString(s.replace("&nbsp;", " ")); ok += 1
print("svg", len(svgs), ok)
print("other in inputs", "Other CPU" in page.split('id="inputs"')[1].split("</section>")[0])
PY
py=$(cat "$work/py")
expect "page: every element closed" "$py" "^balanced True"
expect "page: a trend chart per metric of each subject (6 decode/prefill pairs + the ceiling)" "$py" "^figures 7 fig-trend-1$"
expect "page: the slower step in the steps table and its series table" "$py" "^slower rows 2$"
expect "page: the other machine's bundle noted" "$py" "^left out \['$work/s/other.json'\]$"
expect "page: embedded history" "$py" "^json llama-roofline-history 6 1$"
expect "page: one script (data)" "$py" "^scripts 1$"
expect "page: the SVG parses" "$py" "^svg 7 7$"
expect "page: the other machine not among the bundles" "$py" "^other in inputs False$"
grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$work/h.html" && echo "ok   page CSP" || fail "page CSP"

# ---- client bundles: the concurrency-1 point's TTFT samples x1.2 at the third (lower is
# better: a rise beyond noise is slower, +20% a regression)
python3 - "$RL_SRC/tests/fixtures/client/bundle.json" "$work/c" <<'PY'
import json, os, sys
os.makedirs(sys.argv[2], exist_ok=True)
for i in range(3):
    j = json.load(open(sys.argv[1]))
    j["created_utc"] = "2026-11-0%dT00:00:00Z" % (i + 1)
    if i == 2:
        m = j["client"]["points"][0]["metrics"]["ttft"]
        m["samples"] = [x * 1.2 for x in m["samples"]]
    json.dump(j, open("%s/c%d.json" % (sys.argv[2], i), "w"))
PY
"$RL_BIN" history "$work/c" --fail-on-regression 10 >"$work/out" 2>"$work/err"; check "client: --fail-on-regression 10" 1 $?
expect "client: the TTFT regression named" "$(cat "$work/err")" "^llama-roofline history: regression: TTFT synth-tiny .*concurrency=1 .* at c2 .*: \+20\.0%$"
[ "$(grep -c "↓ slower" "$work/out")" = 1 ] && echo "ok   client: one step slower" || fail "client: slower steps: $(grep "slower" "$work/out")"

# ---- a directory's file that is not a bundle: skipped with one line
mkdir -p "$work/mixed"
cp "$work/s/b1.json" "$work/s/b2.json" "$work/not-a-bundle.json" "$work/mixed/"
"$RL_BIN" history "$work/mixed" >"$work/out" 2>"$work/err"; check "a directory with a non-bundle" 0 $?
expect "skipped, said once" "$(cat "$work/err")" "^llama-roofline history: skipping .*not-a-bundle\.json"
[ "$(wc -l <"$work/err")" = 1 ] && echo "ok   one line on stderr" || fail "stderr: $(cat "$work/err")"
expect "the two bundles" "$(head -1 "$work/out")" "^llama-roofline history: 2 bundles of AMD EPYC"

# ---- bundle files given one by one, a report among them
"$RL_BIN" history "$work/s/b1.json" "$work/s/b2.json" "$RL_SRC/examples/synth-amd-epyc/report.html" >"$work/out"; check "files and a report" 0 $?
expect "files: three bundles" "$(cat "$work/out")" "^llama-roofline history: 3 bundles of AMD EPYC"
finish
