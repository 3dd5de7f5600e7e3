#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `report` of a client bundle (tests/fixtures/client/bundle.json, made by fixture.c through
# rl_client_point_json). The page renders (exit 0), validates, reads back to the same bytes,
# has the client section with specific values from the fixture (TTFT p50 190 ms at concurrency
# 1, 3 of 4 ok at concurrency 2, goodput 1 of 4, the failed request's error), every column's
# kind with proxy marked, the proxy caveat inline, the three client charts with their data
# tables, and none of the roofline sections or caveats; the Markdown and the terminal summary
# speak about the client; a client bundle with nothing successful still renders with reasons.
# Then headless Chromium (tests/lib/cdp-report.js) opens the page: no console error, no network
# request, chart text as SVG <text>; that part skips only when chromium or node is missing.
# Checked to fail: with the rl_html_client call removed from html_page.c (no client section:
# the value checks fail) and with rl_report_client_only always false (roofline sections show).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-report-client.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=report
fx="$RL_SRC/tests/fixtures/client/bundle.json"

"$RL_BIN" report "$fx" -o "$work/client.html" >"$work/out" 2>"$work/err"; check "report of the client fixture" 0 $?
[ -s "$work/err" ] && fail "stderr not empty: $(cat "$work/err")" || echo "ok   nothing on stderr"
out=$("$RL_BIN" validate "$work/client.html"); check "the page validates" 0 $?
"$RL_BIN" report "$work/client.html" -o "$work/again.html" >/dev/null 2>&1; check "report of the report" 0 $?
cmp -s "$work/client.html" "$work/again.html" && echo "ok   read back: same bytes" || fail "read back: bytes differ"

# the page as text, one element per line, for value checks
python3 - "$work/client.html" >"$work/text" <<'PY'
import html, re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'<script.*?</script>|<style.*?</style>', '', s, flags=re.S)
s = re.sub(r'<svg.*?</svg>', ' [svg] ', s, flags=re.S)
s = re.sub(r'<(?:/(?:td|th|p|li|dt|dd|h[1-6]|summary|figcaption)|br)[^>]*>', '\n', s)
s = html.unescape(re.sub(r'<[^>]+>', '', s))
print('\n'.join(l.strip() for l in s.splitlines() if l.strip()))
PY
page=$(cat "$work/text")
expect "headline" "$page" "^Streaming client: first chunk in 190 ms$"
expect "answer names the endpoint" "$page" "^Streaming from http://127.0.0.1:8080/v1/chat/completions, model synth-tiny: at concurrency 1 the median request saw its first chunk after 190 ms"
expect "answer counts the failure" "$page" "1 of 8 requests failed\.$"
expect "key figure TTFT" "$page" "^TTFT \(median\)$"
expect "the client section" "$page" "^Streaming client$"
expect "proxy caveat inline" "$page" "^TTFT, second-chunk time and chunk gaps are proxies"
expect "TTFT p50/p95/p99 at concurrency 1" "$page" "^190 / 204 / 205$"
expect "requests at concurrency 2" "$page" "^3 / 4 \(5\)$"
expect "goodput at concurrency 2, both ways" "$page" "^1.00 \(1 / 4 all; 1 / 3 ok\)$"
expect "failed request's error" "$page" "^failed: HTTP 500 from http://127.0.0.1:8080/v1/chat/completions: server busy$"
expect "one-delivery exclusion" "$page" "^1: the whole answer came in one delivery"
expect "CI half-width" "$page" "^190 ± 21.8$"
expect "SLOs" "$page" "TTFT at most 250 ms, TPOT at most 30.0 ms"
grep -c 'class="kind kind-proxy"' "$work/client.html" >"$work/n"
[ "$(cat "$work/n")" -ge 3 ] && echo "ok   proxy kind badges ($(cat "$work/n"))" || fail "proxy badges: $(cat "$work/n")"
for id in fig-client-ttft fig-client-tpot fig-client-throughput; do
  grep -q "id=\"$id\"" "$work/client.html" && echo "ok   chart $id" || fail "no chart $id"
done
expect "TTFT chart data: a step at 176 ms, 25%" "$page" "^176$"
expect "throughput table" "$page" "^2.988047809$"
for id in 'id="models"' 'id="long-context"' 'id="not-measured"' 'id="charts"' 'No ceiling'; do
  grep -q "$id" "$work/client.html" && fail "roofline part shown: $id" || echo "ok   no roofline part $id"
done
size=$(wc -c <"$work/client.html")
[ "$size" -lt 1000000 ] && echo "ok   page under 1 MB ($size bytes)" || fail "page is $size bytes"

# Markdown and the roofline report untouched by the client section
md=$("$RL_BIN" report "$fx" --markdown - 2>/dev/null); check "--markdown" 0 $?
expect "markdown headline" "$md" "^## llama-roofline: Streaming client: first chunk in 190 ms$"
expect "markdown row" "$md" "^\| 2 \| 3 / 4 \| 268 \| 30.5 \| 607 \| 2.99 \| 1.00 \|$"
"$RL_BIN" report "$RL_SRC/tests/fixtures/report/memory-bound.json" -o "$work/mb.html" >/dev/null 2>&1; check "roofline report" 0 $?
grep -q 'id="client"' "$work/mb.html" && fail "roofline page has a client section" || echo "ok   roofline page: no client section"

# nothing succeeded: still a page, with the reasons
python3 - "$fx" "$work/none.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for p in j["client"]["points"]:
    n = p["requests"]["measured"]
    p["requests"].update(ok=0, failed=n)
    for k in list(p["metrics"]):
        p["metrics"][k] = {"available": False, "reason": "no successful request at this operating point (%d of %d failed)" % (n, n)}
    p["window"] = {"available": False, "reason": "no successful request"}
    p["goodput"]["good"] = 0
    for r in p["records"]:
        r.update(ok=False, error="connection refused", ttft_ms=None, e2e_ms=None, tpot_ms=None)
json.dump(j, open(sys.argv[2], "w"))
PY
"$RL_BIN" report "$work/none.json" -o "$work/none.html" >/dev/null 2>"$work/err"; check "nothing successful: report" 0 $?
grep -q "Streaming client: nothing measured" "$work/none.html" && echo "ok   nothing measured headline" || fail "headline"
grep -q "No chart of the TTFT distribution: no operating point has ttft samples" "$work/none.html" &&
  echo "ok   missing chart says why" || fail "missing chart reason"
grep -q "no successful request at this operating point (4 of 4 failed)" "$work/none.html" &&
  echo "ok   unavailable reasons shown" || fail "reasons"

# hostile: wrong types, absurd and non-finite-looking numbers, markup in strings, 300 points
python3 - "$fx" "$work/hostile.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["client"]
p0, p1 = c["points"]
p0["metrics"]["ttft"]["samples"] = ["x", -5, 1e300, None, {"a": 1}, 12.5] + list(range(5000))
p0["metrics"]["tpot"] = "not an object"
p0["metrics"]["rps"] = {"kind": "measured", "unit": "req/s", "value": "fast"}
p0["concurrency"] = "<script>alert(1)</script>"
p1["records"][3]["error"] = "<img src=x onerror=alert(1)>\u001b[31mred"
p1["records"][1] = 7
p1["goodput"] = [1, 2]
c["driver"] = {"type": "http", "url": "<b>bold</b>", "model": 5}
c["points"] = [p0, p1] + [dict(p1, concurrency=k) for k in range(3, 300)]
json.dump(j, open(sys.argv[2], "w"))
PY
crafted "$work/hostile.json" "$work/hostile.html" # invalid by design: not swept by finish
"$RL_BIN" report "$work/hostile.json" -o "$work/hostile.html" >/dev/null 2>"$work/err"; check "hostile client bundle: report" 0 $?
python3 -c 'import re,sys; s=open(sys.argv[1]).read(); s=re.sub(r"<script.*?</script>", "", s, flags=re.S); sys.exit(0 if "<img" in s or "<b>" in s else 1)' \
  "$work/hostile.html" && fail "hostile markup reached the page" || echo "ok   hostile markup escaped"
grep -q '&lt;img src=x onerror=alert(1)&gt;\\e\[31mred' "$work/hostile.html" && echo "ok   hostile error shown as text" ||
  fail "hostile error not shown as escaped text"
grep -q '&lt;b&gt;bold&lt;/b&gt;' "$work/hostile.html" && echo "ok   hostile URL shown as text" || fail "hostile URL"
"$RL_BIN" validate "$work/hostile.json" >"$work/v" 2>&1; check "hostile client bundle: validate finds problems" 1 $?
expect "validate names the bad sample" "$(cat "$work/v")" "client\.points\[0\]\.metrics\.ttft\.samples: a sample is not a finite number"

# ---- headless Chromium
if command -v chromium >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
  shots=${RL_SHOTS:-$RL_TMP/report-shots}
  mkdir -p "$shots"
  cp "$work/client.html" "$work/client-fixture.html"
  timeout 120 node "$RL_SRC/tests/lib/cdp-report.js" "$(command -v chromium)" "$shots" \
    "report:$work/client-fixture.html" "report:$work/none.html" "report:$work/hostile.html" \
    >"$work/cdp" 2>&1
  rc=$?
  check "chromium: $(grep -c '^ok' "$work/cdp") checks ok, $(grep -c '^FAIL' "$work/cdp") failed" 0 $rc
  grep '^FAIL' "$work/cdp"
else
  echo "skip chromium: not installed"
fi
finish
