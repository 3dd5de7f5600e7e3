#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: history pages in real headless Chromium, driven by tests/lib/cdp-report.js as the
# comparison pages are (tests/e2e/compare_chromium.sh): a series of five bundles of the synth
# example with a 20% decode regression planted at the fourth and another machine's bundle
# mixed in (tests/cli/history.sh checks the contents), and a history of two copies of the
# hostile report fixture (its model names, CPU and llama.cpp build are markup: they show as
# text, one <style>, nothing runs: "history-hostile"). Each page: zero console errors, zero
# network requests, no dialog, one <script> (the history JSON, which parses), trend charts
# with SVG <text>, non-blank light and dark screenshots. Needs no llama.cpp; skips (77) only
# when chromium is absent and cannot be installed.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-history-chromium.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
shots=${RL_SHOTS:-$RL_TMP/history-shots}
mkdir -p "$shots"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1
  fi
  command -v chromium >/dev/null 2>&1 || { echo "skip: chromium is not installed and cannot be installed"; exit 77; }
fi
command -v node >/dev/null 2>&1 || { echo "FAIL node is needed to drive chromium"; exit 1; }

mkdir -p "$work/s" "$work/h"
python3 - "$RL_SRC/examples/synth-amd-epyc/bundle.json" "$work/s" <<'PY'
import json, sys
src, out = sys.argv[1], sys.argv[2]
for i in range(5):
    j = json.load(open(src))
    j["created_utc"] = "2026-11-%02dT10:00:00Z" % (i + 1)
    j["llama_cpp"]["build_commit"] = "%07x" % (0xb000 + i)
    for r in j["models"][1]["runs"]:
        r["decode"]["samples"] = [x * (0.8 if i >= 3 else 1.0) for x in r["decode"]["samples"]]
    json.dump(j, open("%s/b%d.json" % (out, i + 1), "w"))
j = json.load(open(src))
j["environment"]["cpu"] = "Other CPU"
j["created_utc"] = "2026-11-02T12:00:00Z"
json.dump(j, open(out + "/other.json", "w"))
PY
"$RL_BIN" history "$work/s" -o "$work/series.html" >/dev/null 2>&1; check "history of a series" 0 $?
fx="$RL_SRC/tests/fixtures/report/hostile.json"
sed 's/"created_utc": *"[^"]*"/"created_utc": "2026-11-01T00:00:00Z"/' "$fx" >"$work/h/h1.json"
sed 's/"created_utc": *"[^"]*"/"created_utc": "2026-11-02T00:00:00Z"/' "$fx" >"$work/h/h2.json"
"$RL_BIN" history "$work/h" -o "$work/hostile.html" >/dev/null 2>&1; check "history of the hostile bundle" 0 $?

timeout 300 node "$RL_SRC/tests/lib/cdp-report.js" "$(command -v chromium)" "$shots" \
  "history:$work/series.html" "history-hostile:$work/hostile.html"
check "chromium checks (tests/lib/cdp-report.js)" 0 $?
echo "screenshots: $shots"
finish
