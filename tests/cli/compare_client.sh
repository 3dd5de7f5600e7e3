#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `compare` on the streaming client's and the measured advice's sections.
#   - The client fixture (tests/fixtures/client/bundle.json) compared with itself: 12 sampled
#     rows within noise, 6 one-value rows (throughput, requests/s, goodput) "one value: not
#     tested", exit 0 under --fail-on-regression 10; the group is "Streaming client", TTFT is
#     shown as a proxy.
#   - The same fixture with the concurrency-1 point's TTFT samples x1.2 (made here with
#     python3): exactly that row "slower" (+20.0%), in the table, the Markdown and the page;
#     --fail-on-regression 10 exits 1, 25 exits 0.
#   - An `advise --measure` bundle (the fake llama-bench) with tight decode samples set here,
#     compared with itself: every "Quantization advice" row within noise, its decode rows not
#     listed again under llama-bench; the Q4_0 row at 2 threads x0.8: exactly that row slower,
#     --fail-on-regression 10 exits 1.
#   - A client-only input against a run bundle: a note that the sections differ, exit 0; the
#     page says why it has no roofline instead of drawing an empty one.
# Every check asserts the binary's exit status.
# Checked to fail: with the client producer's direction flipped to higher-is-better for TTFT
# (the +20% row becomes "faster" and --fail-on-regression 10 exits 0), and with the advice
# producer removed from compare.c's table (no "Quantization advice" group).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-compare-client.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=compare
cl="$RL_SRC/tests/fixtures/client/bundle.json"
run="$RL_SRC/examples/synth-amd-epyc/bundle.json"

# ---- the client fixture against itself
out=$("$RL_BIN" compare "$cl" "$cl" --fail-on-regression 10); check "client itself: exit 0 under --fail-on-regression 10" 0 $?
expect "client itself: summary" "$out" "^Summary: 0 faster, 0 slower, 12 within noise, 6 not tested, 0 not in both"
expect "client itself: the group" "$out" "^Streaming client:$"
expect "client itself: TTFT is a proxy" "$out" "^  TTFT \(proxy, ms\) +synth-tiny +1 +190 ± 21.8 +190 ± 21.8 +x1.000 +0.00 \(\+0.0%\) += within noise \(p = 1\)$"
expect "client itself: goodput one value" "$out" "^  goodput \(derived, req/s\) +synth-tiny +2 +1.00 +1.00 +x1.000 +0.00 \(\+0.0%\) +\? one value: not tested$"
expect "client itself: the kinds said" "$out" "TTFT is a proxy"
n=$(grep -c "one value: not tested" <<<"$out")
[ "$n" = 6 ] && echo "ok   client itself: 6 one-value rows" || fail "client itself: $n one-value rows"

# ---- one point's TTFT samples slowed by 20%
python3 - "$cl" "$work/slow-ttft.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["client"]["points"][0]
assert p["concurrency"] == 1
m = p["metrics"]["ttft"]
m["samples"] = [x * 1.2 for x in m["samples"]]
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
out=$("$RL_BIN" compare "$cl" "$work/slow-ttft.json" -o "$work/client.html" 2>/dev/null); check "client TTFT +20%: compared" 0 $?
expect "client TTFT +20%: summary" "$out" "^Summary: 0 faster, 1 slower, 11 within noise, 6 not tested"
slower=$(grep "slower (p" <<<"$out")
[ "$(wc -l <<<"$slower")" = 1 ] && echo "ok   client TTFT +20%: exactly one row slower" || fail "client TTFT +20%: $slower"
expect "client TTFT +20%: that row" "$slower" "^  TTFT \(proxy, ms\) +synth-tiny +1 +190 ± 21.8 +229 ± 26.2 +x1.200 +\+38.1 \(\+20.0%\) +↓ slower \(p = 0.013\)$"
"$RL_BIN" compare "$cl" "$work/slow-ttft.json" --fail-on-regression 10 >/dev/null 2>"$work/err"; check "client TTFT +20%: --fail-on-regression 10" 1 $?
expect "client TTFT +20%: the regression line" "$(cat "$work/err")" "regression: 1 row slower than the baseline by more than 10%"
"$RL_BIN" compare "$cl" "$work/slow-ttft.json" --fail-on-regression 25 >/dev/null; check "client TTFT +20%: --fail-on-regression 25" 0 $?
out=$("$RL_BIN" compare "$cl" "$work/slow-ttft.json" --markdown); check "client --markdown" 0 $?
expect "client markdown: group" "$out" "^\*\*Streaming client\*\*$"
expect "client markdown: row" "$out" "^\| TTFT \(proxy, ms\) \| synth-tiny \| 1 \| 190 ± 21\.8 \| 229 ± 26\.2 \| x1\.200 \| \+38\.1 \(\+20\.0%\) \| ↓ slower"
python3 - "$work/client.html" >"$work/py" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
print("slower", len(re.findall(r'<tr data-verdict="slower" data-kind="proxy">', page)))
print("group", 'data-group="Streaming client"' in page)
print("figs", sorted(re.findall(r'<figure[^>]* id="(fig-[a-z0-9-]+)"', page)))
print("noroof", "No roofline: no input holds llama-bench runs" in page)
j = json.loads(re.search(r'<script type="application/json" id="compare">(.*?)</script>', page, re.S).group(1))
rows = [r for r in j["rows"] if r["group"] == "Streaming client"]
print("json", len(rows), sum(1 for r in rows if r["cells"][1]["verdict"] == "slower"))
PY
py=$(cat "$work/py")
expect "client page: one slower row, kind proxy" "$py" "^slower 1$"
expect "client page: the group" "$py" "^group True$"
expect "client page: TTFT and throughput charts per input" "$py" "^figs \['fig-client-throughput-1', 'fig-client-throughput-2', 'fig-client-ttft-1', 'fig-client-ttft-2'\]$"
expect "client page: a note instead of an empty roofline" "$py" "^noroof True$"
expect "client page: embedded rows" "$py" "^json 18 1$"

# ---- advice: an advise --measure bundle (fake llama-bench) with tight samples
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
"$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/a.gguf" -m "$work/b.gguf" -t 1,2 \
  --dir "$work/adv" >/dev/null 2>&1; check "advise --measure (fake)" 0 $?
python3 - "$work/adv/bundle.json" "$work/adv-base.json" "$work/adv-slow.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
tight = [100.0, 101.0, 99.0, 100.5, 99.5]
for t in j["advice"]["tables"]:
    for r in t["rows"]:
        r["decode"]["samples"] = list(tight)
json.dump(j, open(sys.argv[2], "w"), indent=1)
n = 0
for t in j["advice"]["tables"]:
    for r in t["rows"]:
        if t["threads"] == 2 and r["format"] == "Q4_0":
            r["decode"]["samples"] = [x * 0.8 for x in tight]; n += 1
assert n == 1
json.dump(j, open(sys.argv[3], "w"), indent=1)
PY
out=$("$RL_BIN" compare "$work/adv-base.json" "$work/adv-base.json" --fail-on-regression 10); check "advice itself: exit 0 under --fail-on-regression 10" 0 $?
expect "advice itself: the group" "$out" "^Quantization advice:$"
expect "advice itself: summary (4 advice + 4 prefill rows)" "$out" "^Summary: 0 faster, 0 slower, 8 within noise, 0 not tested"
expect "advice itself: a row" "$out" "^  decode \(measured\) +b.gguf +2 +Q4_0 +100 ± 0.98 +100 ± 0.98 +x1.000"
dec=$(grep -c "^  decode " <<<"$out")
[ "$dec" = 4 ] && echo "ok   advice itself: decode listed once (4 rows, none under llama-bench)" || fail "advice itself: $dec decode rows"
out=$("$RL_BIN" compare "$work/adv-base.json" "$work/adv-slow.json"); check "advice Q4_0 -20%: compared" 0 $?
slower=$(grep "slower (p" <<<"$out")
[ "$(wc -l <<<"$slower")" = 1 ] && echo "ok   advice Q4_0 -20%: exactly one row slower" || fail "advice -20%: $slower"
expect "advice Q4_0 -20%: that row" "$slower" "^  decode \(measured\) +b.gguf +2 +Q4_0 +100 ± 0.98 +80.0 ± 0.79 +x0.800 +-20.0 \(-20.0%\) +↓ slower"
"$RL_BIN" compare "$work/adv-base.json" "$work/adv-slow.json" --fail-on-regression 10 >/dev/null 2>&1; check "advice -20%: --fail-on-regression 10" 1 $?

# ---- mixed: a client bundle against a run bundle
out=$("$RL_BIN" compare "$run" "$cl" -o "$work/mixed.html" 2>/dev/null); check "client vs run: exit 0" 0 $?
expect "client vs run: the note" "$out" "note: the inputs hold different sections \(\[1\] llama-bench runs; \[2\] streaming client\)"
grep -q "Threads differs" <<<"$out" && fail "client vs run: settings of the run called a difference" || echo "ok   client vs run: run settings not compared with a client bundle"
grep -q 'data-note="sections"' "$work/mixed.html" && echo "ok   client vs run: the note on the page" || fail "client vs run: no note on the page"
"$RL_BIN" compare "$cl" "$run" --fail-on-regression 10 >/dev/null 2>&1; check "client vs run: --fail-on-regression 10 exit 0" 0 $?
finish
