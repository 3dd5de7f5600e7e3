#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: `advise --measure --synth` with the real llama-bench and llama-quantize (LLAMA_BIN_DIR;
# exit 77 without it). The smallest preset that every format quantizes (tiny: 256-wide, so
# k-quants need no substitution) is written as F16 and quantized to Q4_0 and Q8_0 (cached
# under $LLAMA_ROOFLINE_CACHE/quantized), then measured with -p 8 -n 16 -r 2 at 1 and 2
# threads. Checks: exit 0; the measured table (one per thread count, all three formats, the
# bundle's rows fastest first with positive rates); the quantized files are cached and reused
# (the second run quantizes nothing); the bundle passes `validate`; the report's advice
# section renders in headless Chromium: tests/lib/cdp-report.js (no console error, no network
# request, non-blank screenshots, one data script) and the rendered DOM (chromium --dump-dom)
# holds the section with one table per thread count and a row per format.
# Checked to fail: with the F16 entry dropped from the synth set (two formats, not three) and
# with html_advice's call removed from html_page.c (no advice section in the DOM).
set -u
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-advise.$$"
mkdir -p "$work" "$work/shots"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"

args=(advise --measure --synth --preset tiny --formats Q4_0,Q8_0,F16 -t 1,2 --n-prompt 8
  --n-gen 16 --reps 2 --llama-bench "$LLAMA_BIN_DIR" --dir "$work/out")
"$RL_BIN" "${args[@]}" >"$work/out.txt" 2>"$work/err"; check "advise --measure --synth" 0 $?
cat "$work/out.txt"
out=$(cat "$work/out.txt")
expect "1-thread table" "$out" "^  1 THREAD$"
expect "2-thread table" "$out" "^  2 THREADS$"
for f in Q4_0 Q8_0 F16; do
  [ "$(grep -cE "^    [^ ]+ +$f +[0-9]+\.[0-9]+ " <<<"$out")" = 2 ] && echo "ok   $f in both tables" \
    || fail "$f is not in both tables"
done
b="$work/out/bundle.json"
"$RL_BIN" validate "$b"; check "bundle validates" 0 $?
json_check "advice: three formats per table, fastest first, measured rates" "$b" \
  'j["command"] == "advise" and all(len(t["rows"]) == 3 and sorted(r["format"] for r in t["rows"]) == ["F16","Q4_0","Q8_0"] and [r["tok_s"] for r in t["rows"]] == sorted((r["tok_s"] for r in t["rows"]), reverse=True) and all(r["tok_s"] > 0 and r["decode"]["kind"] == "measured" and len(r["decode"]["samples"]) == 2 for r in t["rows"]) for t in j["advice"]["tables"]) and [t["threads"] for t in j["advice"]["tables"]] == [1, 2]'
json_check "streamed bytes: F16 > Q8_0 > Q4_0" "$b" \
  '(lambda m: m["F16"] > m["Q8_0"] > m["Q4_0"])({r["format"]: r["streamed_MiB"] for r in j["advice"]["tables"][0]["rows"]})'

# the second run reuses the cached quantized files
"$RL_BIN" "${args[@]}" --dir "$work/out2" >/dev/null 2>"$work/err2"; check "second run" 0 $?
grep -q "quantizing" "$work/err2" && fail "the second run quantized again" || echo "ok   quantized files reused"

# the report in headless Chromium
r="$work/out/report.html"
grep -q 'id="advice"' "$r" && echo "ok   report has the advice section" || fail "no advice section"
if ! command -v chromium >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  fail "chromium and node are needed for the report check (tests/e2e/report_chromium.sh installs chromium)"
else
  timeout 300 node "$RL_SRC/tests/lib/cdp-report.js" "$(command -v chromium)" "$work/shots" "report:$r"
  check "chromium checks (tests/lib/cdp-report.js)" 0 $?
  timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --dump-dom "file://$r" >"$work/dom.html" 2>/dev/null
  check "chromium --dump-dom" 0 $?
  python3 - "$work/dom.html" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.depth = 0; s.tables = 0; s.rows = 0; s.h3 = []; s.in_h3 = False; s.cells = []
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("id") == "advice": s.depth = 1
        elif s.depth and tag == "section": s.depth += 1
        if not s.depth: return
        if tag == "table": s.tables += 1
        if tag == "tr": s.rows += 1
        if tag == "h3": s.in_h3 = True; s.h3.append("")
    def handle_endtag(s, tag):
        if s.depth and tag == "section": s.depth -= 1
        if tag == "h3": s.in_h3 = False
    def handle_data(s, d):
        if s.depth and s.in_h3: s.h3[-1] += d
        if s.depth: s.cells.append(d.strip())
p = P(); p.feed(open(sys.argv[1]).read())
ok = p.tables == 2 and p.rows == 2 * 4 and p.h3 == ["1 thread", "2 threads"] and all(f in p.cells for f in ("Q4_0", "Q8_0", "F16"))
print(("ok   " if ok else "FAIL ") + "rendered advice section: %d tables, %d rows, headings %s" % (p.tables, p.rows, p.h3))
sys.exit(0 if ok else 1)
PY
  check "advice section in the rendered DOM" 0 $?
fi
finish
