#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the client's CI gate (--fail-on-slo PCT, --ci), labels (--tag, --note), the summary
# table and --histogram, against tests/lib/fake-stream. The gate: exit 1 with the reasons on
# one stderr line when a request failed or a point's goodput (good / all) is under PCT;
# exit 0 with "SLO gate passed" otherwise; client.gate in the bundle says the same.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-gate.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=client
FAKE="$(dirname "$RL_BIN")/fake-stream"
export LLAMA_ROOFLINE_PROGRESS=off
cat >"$work/p.jsonl" <<'P'
{"id": "good", "prompt": "good words"}
{"id": "bad", "prompt": "bad words"}
P
run() { "$RL_BIN" client --warmup 0 --runs 2 --count-tokens-cmd "$FAKE --count" "$@" >"$work/out" 2>"$work/err"; }

# goodput 0% (TTFT >= 10 ms against an SLO of 5 ms) under a 90% bar: exit 1, one line
run --cmd "$FAKE 10 'one two ' 30 'three four'" --slo-ttft-ms 5 --fail-on-slo 90 --bundle "$work/fail.json"
check "gate fails: exit 1" 1 $?
expect "gate fails: the reason on one line" "$(cat "$work/err")" "^llama-roofline client: SLO gate failed \(--fail-on-slo 90\): concurrency 1: goodput 0% < 90%$"
json_check "gate fails: client.gate" "$work/fail.json" \
  'j["client"]["gate"]=={"kind":"derived","fail_below_pct":90,"failed":0,"passed":False,"reasons":["concurrency 1: goodput 0% < 90%"]}'
# goodput 100% against an SLO of 10 s: passes
run --cmd "$FAKE 10 'one two ' 30 'three four'" --slo-ttft-ms 10000 --fail-on-slo 100 --bundle "$work/pass.json"
check "gate passes: exit 0" 0 $?
expect "gate passes: said on stderr" "$(cat "$work/err")" "^SLO gate passed \(--fail-on-slo 100\): no request failed, goodput at or above the bar at every point$"
json_check "gate passes: client.gate passed" "$work/pass.json" 'j["client"]["gate"]["passed"] is True and j["client"]["gate"]["reasons"]==[]'
# --ci without SLOs: one prompt fails (exit 3 on "bad"), the other succeeds: exit 1 on failures
run --cmd "$FAKE --fault-key bad --exit 3 10 'one two ' 30 'three four'" --prompts "$work/p.jsonl" --ci --bundle "$work/ci.json"
check "--ci with failures: exit 1" 1 $?
expect "--ci: the failures named" "$(cat "$work/err")" "SLO gate failed \(--ci\): 2 requests failed$"
json_check "--ci: no bar without SLOs, 2 failed" "$work/ci.json" 'j["client"]["gate"]["fail_below_pct"] is None and j["client"]["gate"]["failed"]==2'
run --cmd "$FAKE 10 'one two ' 30 'three four'" --ci --bundle "$work/ci-ok.json"
check "--ci, nothing failed: exit 0" 0 $?
# labels, the table and the histogram
run --cmd "$FAKE 10 'one two ' 30 'three four'" --tag nightly --tag 'gpu box' --note 'after the kernel update' \
  --histogram -o "$work/lab"
check "labels: exit 0" 0 $?
json_check "labels: tags and note in the settings" "$work/lab/bundle.json" \
  'j["client"]["settings"]["tags"]==["nightly","gpu box"] and j["client"]["settings"]["note"]=="after the kernel update"'
out=$(cat "$work/out")
expect "summary: tags" "$out" "^  tags: nightly, gpu box$"
expect "summary: table header" "$out" "^ +conc +ok/all +fail +TTFT p50 +TTFT p95 +E2E p50 +E2E p95 +TPOT p50 +decode t/s +req/s +goodput$"
expect "summary: the point's row" "$out" "^ +1 +6/6 +0 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +n/a$"
expect "histogram: its title" "$out" "^  E2E latency at concurrency 1 \(ms, 6 requests\):$"
n=$(grep -cE '^ +[0-9.]+ - [0-9.]+ +#* +[0-9]+$' "$work/out")
[ "$n" -ge 1 ] && [ "$n" -le 3 ] && echo "ok   histogram: 1 to 3 buckets for 6 samples ($n)" || fail "histogram: $n bucket rows"
sum=$(grep -E '^ +[0-9.]+ - [0-9.]+ +#* +[0-9]+$' "$work/out" | awk '{s+=$NF} END {print s}')
[ "$sum" = 6 ] && echo "ok   histogram: the buckets hold the 6 requests" || fail "histogram holds $sum"
page=$(cat "$work/lab/report.html")
expect "report shows the tags and note" "$page" "nightly, gpu box"
"$RL_BIN" compare "$work/lab/bundle.json" "$work/pass.json" -o "$work/cmp.html" >/dev/null 2>&1
check "compare of a labelled run: exit 0" 0 $?
expect "compare shows the tags" "$(cat "$work/cmp.html")" "<dd>nightly, gpu box</dd>"
expect "compare shows the note" "$(cat "$work/cmp.html")" "<dd>after the kernel update</dd>"
# bad input: exit 2, one line
bad "--fail-on-slo without an SLO" 2 "^llama-roofline client: error: --fail-on-slo gates goodput: give an SLO" --cmd true --fail-on-slo 90
bad "--fail-on-slo 0" 2 "fail-on-slo" --cmd true --slo-ttft-ms 5 --fail-on-slo 0
bad "--fail-on-slo and --ci" 2 "exclude each other" --cmd true --slo-ttft-ms 5 --fail-on-slo 90 --ci
bad "an empty --tag" 2 "^llama-roofline client: error: --tag wants 1 to 64 bytes, got 0$" --cmd true --tag ''
bad "a control character in --note" 2 "^llama-roofline client: error: --note holds a control character \(byte 2\)$" --cmd true --note "$(printf 'a\033b')"
finish
