#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: the report and the comparison page keep every column, at 1280 px and on paper (issue 19).
# Pages: the reports of the published i7-12700H example and of the memory-bound fixture; the
# comparison of the synth example with two copies of it (decode 20% slower, and 10% faster with
# long model file names and 0.002% more RAM), and of the three examples (no row in common:
# its tables are the warnings' and the fleet's, measured for layout only).
#  - print: each page printed to PDF by headless Chromium (--print-to-pdf, no header/footer),
#    its text read back with pdftotext -raw (in the order Chromium drew it, which is the DOM's;
#    text outside the page is dropped: a clipped column is missing text). Every model row of the
#    report's model table is found, every cell from the first number to the last column ("vs
#    fit") in order, whatever wraps; every row of the comparison's verdict tables likewise, its
#    verdict (with its p value), ratio and delta in order; the report's lower half shows no raw JSON ("{" or a raw key like
#    isa_trial_GBs) but its words ("Memory ceiling", "Trial of each instruction set").
#  - 1280 px and the print width: tests/lib/cdp-layout.js measures each table in Chromium's
#    layout (no table wider than its box, no cell past its box's edge, no sideways scroll).
# Skips (77) with a printed reason when chromium, node or pdftotext is absent.
# Checked to fail: with the previous styles (the model table printed 4 of its 10 columns; the
# verdict tables' ratio, delta and verdict off-screen at 1280 px).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-pages-print.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
for tool in chromium node pdftotext; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool is not installed (needed to print and measure the pages)"; exit 77; }
done
shots=${RL_SHOTS:-$RL_TMP/print-shots}
mkdir -p "$shots"
ex="$RL_SRC/examples"
fx="$RL_SRC/tests/fixtures/report"
synth="$ex/synth-amd-epyc/bundle.json"

"$RL_BIN" report "$ex/x86-i7-12700H/bundle.json" -o "$work/report-i7.html" >/dev/null 2>&1; check "report i7-12700H" 0 $?
"$RL_BIN" report "$synth" -o "$work/report-synth.html" >/dev/null 2>&1; check "report synth" 0 $?
"$RL_BIN" report "$fx/memory-bound.json" -o "$work/report-mb.html" >/dev/null 2>&1; check "report memory-bound" 0 $?
python3 - "$synth" "$work" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
for name, f, ram, long in (("slower", 0.8, 1.0, False), ("faster", 1.1, 1.00002, True)):
    j = json.load(open(src))
    for m in j["models"]:
        if long:
            m["path"] = "/srv/models/a-rather-long-directory/" + m["name"].replace(".gguf", "-with-a-much-longer-file-name.gguf")
            m["name"] = m["path"].rsplit("/", 1)[1]
        for r in m["runs"]:
            if (r.get("decode") or {}).get("samples"):
                r["decode"]["samples"] = [x * f for x in r["decode"]["samples"]]
    j["environment"]["ram_bytes"] = int(j["environment"]["ram_bytes"] * ram)
    json.dump(j, open("%s/%s.json" % (out, name), "w"))
PY
"$RL_BIN" compare "$synth" "$work/slower.json" "$work/faster.json" -o "$work/compare-3.html" >"$work/cmp.out" 2>&1; check "compare synth, slower, faster" 0 $?
expect "compare: the 0.002% RAM difference is not a warning" "$(cat "$work/cmp.out")" "^Summary: [1-9][0-9]* faster, [1-9][0-9]* slower"
grep -q "RAM differs" "$work/cmp.out" && fail "compare: RAM flagged: $(grep 'RAM' "$work/cmp.out")" || echo "ok   compare: RAM not flagged"
"$RL_BIN" compare "$ex"/*/bundle.json -o "$work/compare-examples.html" >/dev/null 2>&1; check "compare the examples" 0 $?

pages=(report-i7 report-synth report-mb compare-3 compare-examples)
for p in "${pages[@]}"; do
  prof="$work/profile-$p"
  mkdir -p "$prof"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$prof" --no-pdf-header-footer --print-to-pdf="$work/$p.pdf" \
    "file://$work/$p.html" >/dev/null 2>&1
  [ -s "$work/$p.pdf" ] && echo "ok   $p printed to PDF" || fail "$p: no PDF"
  pdftotext -raw "$work/$p.pdf" "$work/$p.txt"; check "$p: pdftotext" 0 $?
  cp "$work/$p.pdf" "$shots/" 2>/dev/null
done

# every row's cells, in order, on one line of the printed text
python3 - "$work" <<'PY' >"$work/rows" 2>&1
import html.parser, re, sys
work = sys.argv[1]
class Rows(html.parser.HTMLParser):
    """rows of the tables under the element with id root: [[(class, text)...]...]"""
    def __init__(self, root):
        super().__init__(); self.root = root; self.depth = 0; self.rows = []; self.cell = None; self.cls = ""
    def handle_starttag(self, tag, a):
        a = dict(a)
        if self.depth: self.depth += tag not in ("br", "meta", "img")
        elif a.get("id") == self.root: self.depth = 1
        if not self.depth: return
        if tag == "tr": self.rows.append([])
        if tag == "td": self.cell = ""; self.cls = a.get("class") or ""
    def handle_endtag(self, tag):
        if not self.depth: return
        if tag == "td" and self.cell is not None and self.rows:
            self.rows[-1].append((self.cls, " ".join(self.cell.split()))); self.cell = None
        self.depth -= 1
    def handle_data(self, d):
        if self.cell is not None: self.cell += d
def rows_of(page, root):
    p = Rows(root); p.feed(open(page, encoding="utf-8").read()); return [r for r in p.rows if r]
for page, root, pick in (("report-i7", "model-table", "num"), ("report-synth", "model-table", "num"),
                          ("report-mb", "model-table", "num"), ("compare-3", "verdict-tables", "verdict")):
    text = " ".join(open("%s/%s.txt" % (work, page), encoding="utf-8").read().split())
    rows = rows_of("%s/%s.html" % (work, page), root)
    missing = []
    for r in rows:
        if pick == "num":  # from the first number to the last column (the model name may wrap)
            i = next((k for k, (c, _) in enumerate(r) if "num" in c), None)
            cells = [t for _, t in r[i:]] if i is not None else []
        else:  # the verdict, its ratio and delta
            i = next((k for k, (c, _) in enumerate(r) if "verdict" in c), None)
            cells = [t for _, t in r[i:i + 3]] if i is not None else []
        # whitespace normalised on both sides: a cell that wraps on paper is still found
        if not cells or " ".join(cells) not in text:
            missing.append(" | ".join(cells))
    verdicts = sum(1 for r in rows for c, _ in r if "verdict" in c)
    print(page, len(rows), verdicts, len(missing), "; ".join(missing[:3]))
PY
cat "$work/rows" | sed 's/^/# /'
while read -r page n v miss rest; do
  [ "$n" -gt 0 ] && echo "ok   $page: $n rows in its table" || fail "$page: no row found"
  [ "$miss" = 0 ] && echo "ok   $page: every row printed whole ($n rows${v:+, $v verdicts})" || fail "$page: $miss rows cut on paper: $rest"
done <"$work/rows"
expect "compare-3: verdict rows" "$(grep '^compare-3 ' "$work/rows")" "^compare-3 24 24 0"
# the report's lower half in words: no JSON object, no raw key
for p in report-i7 report-synth; do
  lower=$(sed -n '/^Environment$/,$p' "$work/$p.txt")
  [ -n "$lower" ] || fail "$p: no Environment heading in the printed text"
  expect "$p: the lower half is printed" "$lower" "Memory ceiling"
  grep -qE '[{]"|_GBs|isa_trial|"[a-z_]+":' <<<"$lower" && fail "$p: raw JSON in the lower half: $(grep -E '[{]"|_GBs|isa_trial|"[a-z_]+":' <<<"$lower" | head -3)" || echo "ok   $p: no raw JSON or raw key in the lower half"
done
expect "report-synth: the ISA trial in words" "$(cat "$work/report-synth.txt")" "Trial of each instruction set"

files=()
for p in "${pages[@]}"; do files+=("$work/$p.html"); done
timeout 300 node "$RL_SRC/tests/lib/cdp-layout.js" "$(command -v chromium)" "$shots" "${files[@]}"
check "layout at 1280 px and in print (tests/lib/cdp-layout.js)" 0 $?
echo "screenshots and PDFs: $shots"
finish
