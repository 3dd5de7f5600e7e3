#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e: the report in real headless Chromium (Debian `chromium`), driven through the DevTools
# protocol over a pipe by tests/lib/cdp-report.js (node, no npm package). For each report (the
# fixtures; examples/*/bundle.json too, once they exist): zero console errors, zero network
# requests, no dialog, a non-blank screenshot in light and dark, chart text found as SVG <text>,
# one <script> (the JSON data block, which parses). The hostile bundle's strings show as text
# and no script runs. A copy of a report with markup injected on purpose (as if escaping had
# failed) shows the Content-Security-Policy stopping the script and the request.
# Screenshots are kept in $RL_SHOTS (default $RL_TMP/report-shots) for a person to look at.
# Skips (77) only when chromium is absent and cannot be installed (not root, or apt fails).
# Checked to fail: with the CSP meta removed from the template (the injected script runs: a
# dialog opens) and with the page's </script> escaping disabled (the hostile page runs nothing
# but its data block breaks: more than one <script>).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-report-chromium.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
shots=${RL_SHOTS:-$RL_TMP/report-shots}
mkdir -p "$shots"

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (Debian package)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null 2>&1; }
  fi
  command -v chromium >/dev/null 2>&1 || { echo "skip: chromium is not installed and cannot be installed"; exit 77; }
fi
command -v node >/dev/null 2>&1 || { echo "FAIL node is needed to drive chromium"; exit 1; }

pages=()
fx="$RL_SRC/tests/fixtures/report"
for b in "$fx/memory-bound.json" "$fx/one-model.json" "$RL_SRC"/examples/*/bundle.json; do
  [ -f "$b" ] || continue
  name=$(basename "$(dirname "$b")")
  [ "$name" = report ] && name=$(basename "$b" .json)
  "$RL_BIN" report "$b" -o "$work/$name.html" >/dev/null 2>"$work/err"; check "report $name" 0 $?
  pages+=("report:$work/$name.html")
done
"$RL_BIN" report "$fx/hostile.json" -o "$work/hostile.html" >/dev/null 2>&1; check "report hostile" 0 $?
pages+=("hostile:$work/hostile.html")
# the CSP control: markup injected after <body>, as if escaping had failed
sed 's|<body>|<body><script>window.__pwned = 1; alert("csp")</script><img src="http://127.0.0.1:9/x.png">|' \
  "$work/memory-bound.html" >"$work/injected.html"
grep -q '__pwned' "$work/injected.html" && echo "ok   injected page made" || fail "injection not made"
pages+=("csp:$work/injected.html")

timeout 300 node "$RL_SRC/tests/lib/cdp-report.js" "$(command -v chromium)" "$shots" "${pages[@]}"
check "chromium checks (tests/lib/cdp-report.js)" 0 $?
echo "screenshots: $shots"
finish
