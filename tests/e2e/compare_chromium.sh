#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: comparison pages in real headless Chromium, driven by tests/lib/cdp-report.js as the
# report's pages are (tests/e2e/report_chromium.sh): the three examples compared; the hostile
# report fixture compared with the memory-bound one (its hostile strings show as text, one
# <style>, nothing runs: cdp-report.js's "compare-hostile");
# and a fleet of 12 perturbed copies of the examples, whose page leads with the ranked fleet
# table; two client bundles (one TTFT 20% slower) and a client bundle against a run bundle
# (compare_client.sh checks their contents). Each page: zero console errors, zero network requests, no dialog, one <script> (the
# comparison JSON, which parses), charts with SVG <text>, non-blank light and dark
# screenshots. The fleet table's links all point at input sections that exist, in rank order
# of effective bandwidth. Needs no llama.cpp; skips (77) only when chromium is absent and
# cannot be installed. Checked to fail: with the fleet table's anchors renamed (links to
# missing sections) and with the CSP meta removed from templates/compare.xml (CSP check).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-compare-chromium.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
shots=${RL_SHOTS:-$RL_TMP/compare-shots}
mkdir -p "$shots"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1
  fi
  command -v chromium >/dev/null 2>&1 || { echo "skip: chromium is not installed and cannot be installed"; exit 77; }
fi
command -v node >/dev/null 2>&1 || { echo "FAIL node is needed to drive chromium"; exit 1; }
ex="$RL_SRC/examples"
fx="$RL_SRC/tests/fixtures/report"

"$RL_BIN" compare "$ex"/*/bundle.json -o "$work/examples.html" >/dev/null 2>&1; check "compare the examples" 0 $?
"$RL_BIN" compare "$fx/memory-bound.json" "$fx/hostile.json" -o "$work/hostile.html" >/dev/null 2>&1; check "compare hostile" 0 $?
mkdir -p "$work/fleet"
python3 - "$work/fleet" "$ex"/*/bundle.json <<'PY'
import json, sys
out, srcs = sys.argv[1], sys.argv[2:]
for k in range(12):
    j = json.load(open(srcs[k % len(srcs)]))
    f = 0.7 + 0.05 * k
    fit = j["analysis"]["fit"]
    fit["bw_GBs"] *= f; fit["bw_bytes_s"] *= f
    j["environment"]["cpu"] = "machine %02d" % k
    json.dump(j, open("%s/m%02d.json" % (out, k), "w"))
PY
"$RL_BIN" compare "$work/fleet" -o "$work/fleet.html" >/dev/null 2>&1; check "compare a fleet of 12" 0 $?
# the streaming client: the fixture against a copy whose first point's TTFT is 20% slower (a
# client-only comparison: no roofline, each input's TTFT and throughput charts instead), and a
# client bundle against a run bundle (mixed sections: a note, the run's roofline)
cl="$RL_SRC/tests/fixtures/client/bundle.json"
python3 - "$cl" "$work/slow-client.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
m = j["client"]["points"][0]["metrics"]["ttft"]
m["samples"] = [x * 1.2 for x in m["samples"]]
json.dump(j, open(sys.argv[2], "w"))
PY
"$RL_BIN" compare "$cl" "$work/slow-client.json" -o "$work/client.html" >/dev/null 2>&1; check "compare two client bundles" 0 $?
"$RL_BIN" compare "$ex/synth-amd-epyc/bundle.json" "$cl" -o "$work/mixed.html" >/dev/null 2>&1; check "compare a run and a client bundle" 0 $?
out=$(python3 - "$work/fleet.html" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
fleet = re.search(r'<section id="fleet".*?</section>', page, re.S).group(0)
links = re.findall(r'<a href="#(input-\d+)">', fleet)
ids = set(re.findall(r'<section class="input" id="(input-\d+)"', page))
bw = [float(x) for x in re.findall(r'<td class="num">([0-9.]+)</td>\s*<td class="num">[0-9.]+</td>\s*<td class="num">[0-9]+%</td>', fleet)]
print("links", len(links), all(l in ids for l in links), len(ids))
print("ranked", len(bw), bw == sorted(bw, reverse=True))
print("first", page.find('id="fleet"') < page.find('id="warnings"'))
PY
)
expect "fleet: 12 links to existing sections" "$out" "^links 12 True 12$"
expect "fleet: ranked by effective bandwidth" "$out" "^ranked 12 True$"
expect "fleet: leads the page" "$out" "^first True$"

timeout 300 node "$RL_SRC/tests/lib/cdp-report.js" "$(command -v chromium)" "$shots" \
  "compare:$work/examples.html" "compare-hostile:$work/hostile.html" "compare:$work/fleet.html" \
  "compare:$work/client.html" "compare:$work/mixed.html"
check "chromium checks (tests/lib/cdp-report.js)" 0 $?
echo "screenshots: $shots"
finish
