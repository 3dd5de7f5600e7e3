#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `client --cmd` against tests/lib/fake-stream (a scripted streaming program; see its
# header). Checks specific values: request counts, per-request ttft/e2e bounds from the script,
# token counts through a calibrated counter (the fake counter says words + 1, so the overhead 1
# is subtracted from answers, not from prompts), retries with attempts and backoff, request-rate
# spacing, sweep points, warm-ups never measured, CSV rows, prompt files, fm detection. Faults,
# each a recorded failure with its reason while the other requests' samples survive and the
# bundle is written: a child that never exits (timeout), one that prints 100 MB (bounded RSS),
# exit 3, a failing counter (tokens unavailable with the reason), a missing program (every
# request fails with shell status 127: exit 3, documented), Ctrl-C mid-run (exit 130 within a
# second, the bundle keeps the finished requests), --fail-fast, bad flags (exit 2, one line).
# Checked to fail: with the overhead subtracted from prompt counts too (prompt_tokens check),
# with the backoff removed (retry timing check), with warm-up results passed to the metrics
# (the pid-count check), and with the bundle written only at the end (Ctrl-C check).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=client
FAKE="$(dirname "$RL_BIN")/fake-stream"
[ -x "$FAKE" ] || { echo "no fake-stream next to $RL_BIN"; exit 1; }
export LLAMA_ROOFLINE_PROGRESS=off
COUNT="$FAKE --count"
# prompts whose first words the fake keys its faults on
cat >"$work/p.jsonl" <<'EOF'
{"id": "good", "prompt": "good two words"}

{"id": "bad", "prompt": "bad one", "max_tokens": 7}
{"prompt": "third prompt here"}
EOF

# ---- help and bad input
out=$("$RL_BIN" client --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline client \(--cmd 'COMMAND' \| --url URL\)"
bad "unknown option" 2 "unknown option '--frobnicate'" --frobnicate
bad "nothing to measure" 2 "nothing to measure: give --cmd" -o "$work/x"
bad "--cmd and --url" 2 "exclude each other" --cmd true --url http://127.0.0.1:1
bad "--concurrency 0" 2 "concurrency: '0' is not valid: give a whole number from 1 to 1024" --cmd true --concurrency 0
bad "--sweep-concurrency 1,,2" 2 "sweep-concurrency" --cmd true --sweep-concurrency 1,,2
bad "--ramp-up-ms without a rate" 2 "give --request-rate" --cmd true --ramp-up-ms 100
bad "unknown profile" 2 "unknown profile 'nope'" --cmd true --profile nope -o "$work/x"
bad "an operand" 2 "client takes no operand 'extra'" --cmd true extra
bad "--model with --cmd without {model}" 2 "--model with --cmd needs {model} in the command" --cmd true --model m
bad "--timeout 0" 2 "timeout" --cmd true --timeout 0
printf '{"id": "a", "prompt": "x"}\n{"id": "a", "prompt": "y"}\n' >"$work/dup.jsonl"
bad "duplicate prompt id names the line" 2 "dup.jsonl:2: the id 'a' is used twice" --cmd true --prompts "$work/dup.jsonl" -o "$work/x"
printf '{"id": "a", "prompt": "x"}\n\nnot json\n' >"$work/bad.jsonl"
bad "bad prompt line" 2 "bad.jsonl:3: not a JSON object" --cmd true --prompts "$work/bad.jsonl" -o "$work/x"
printf '{"id": "a", "prompt": "x", "max_tokens": 0}\n' >"$work/mt.jsonl"
bad "bad max_tokens" 2 "mt.jsonl:1: \"max_tokens\" must be a whole number" --cmd true --prompts "$work/mt.jsonl" -o "$work/x"
bad "unwritable output" 4 "cannot|not writable|Permission|No such" --cmd true -o /proc/nope/out
bad "--api-key-env unset" 2 "RL_NO_SUCH_KEY is not set" --url http://127.0.0.1:1 --api-key-env RL_NO_SUCH_KEY

# ---- a clean run: 3 prompts x 2 runs, chunks at 40 and 120 ms after the prompt arrived
"$RL_BIN" client --cmd "$FAKE 40 'one two ' 120 'three four five'" --prompts "$work/p.jsonl" \
  --runs 2 --count-tokens-cmd "$COUNT" -o "$work/ok" --csv "$work/ok.csv" \
  --chunks "$work/ok.chunks" --capture-output >"$work/ok.out" 2>"$work/ok.err"
check "clean run" 0 $?
B="$work/ok/bundle.json"
json_check "clean: command bundle, one point, 6 measured, 6 ok, 0 failed, 6 attempts" "$B" \
  'j["command"]=="client" and j["status"]["state"]=="complete" and len(j["client"]["points"])==1 and {k: v for k, v in j["client"]["points"][0]["requests"].items() if k in ("measured", "ok", "failed", "attempts")}=={"measured":6,"ok":6,"failed":0,"attempts":6}'
json_check "clean: driver and settings" "$B" \
  'j["client"]["driver"]["type"]=="command" and j["client"]["settings"]["kind"]=="controlled" and j["client"]["settings"]["warmup"]==1 and j["client"]["settings"]["runs"]==2 and j["client"]["settings"]["concurrency"]==[1] and j["client"]["settings"]["prompts"]=={"source":"file","name":"'"$work/p.jsonl"'","n":3,"format":"jsonl"}'
json_check "clean: prompts with ids, chars, max_tokens" "$B" \
  '[p["id"] for p in j["client"]["prompts"]]==["good","bad","line-4"] and j["client"]["prompts"][0]["chars"]==14 and j["client"]["prompts"][1]["max_tokens"]==7'
json_check "clean: ttft >= 40 ms and e2e >= 120 ms, both under 5 s" "$B" \
  'all(r["ok"] and 40<=r["ttft_ms"]<5000 and 120<=r["e2e_ms"]<5000 and r["ttft_ms"]<r["e2e_ms"] and r["attempts"]==1 for r in j["client"]["points"][0]["records"])'
json_check "clean: calibration a,a a,a a a = 2,3,4: step 1, overhead 1, subtracted" "$B" \
  'j["client"]["tokens"]=={"source":"counter","calibration":{"kind":"measured","counts":{"a":2,"a a":3,"a a a":4},"step":1,"overhead":1,"consistent":True,"subtracted":True}}'
json_check "clean: 5 output tokens (overhead subtracted), prompt tokens words+1 (kept)" "$B" \
  '[(r["prompt"],r["run"],r["output_tokens"],r["prompt_tokens"]) for r in j["client"]["points"][0]["records"]]==[("good",1,5,4),("good",2,5,4),("bad",1,5,3),("bad",2,5,3),("line-4",1,5,4),("line-4",2,5,4)]'
json_check "clean: --capture-output keeps the answers" "$B" \
  'all(r["output"]=="one two three four five" for r in j["client"]["points"][0]["records"])'
rows=$(wc -l <"$work/ok.csv")
[ "$rows" = 7 ] && echo "ok   csv: header + 6 rows" || fail "csv has $rows lines"
expect "csv header" "$(head -1 "$work/ok.csv")" "^concurrency,request_rate,prompt,run,attempts,ok,error,ttft_ms,e2e_ms,chunks,deliveries,prompt_tokens,output_tokens,tpot_ms,decode_tok_s,output_hash$"
expect "csv row" "$(sed -n 2p "$work/ok.csv")" "^1,,good,1,1,true,,[0-9.]+,[0-9.]+,2,2,4,5,"
out=$("$RL_BIN" client --cmd "$FAKE 1 x" --profile short-chat --json "$work/dash.json" --csv - 2>/dev/null)
check "--csv -" 0 $?
[ "$(wc -l <<<"$out")" = 4 ] && [ "$(head -1 <<<"$out" | cut -c1-20)" = "concurrency,request_" ] &&
  echo "ok   --csv -: stdout holds only the CSV (the summary goes to stderr)" || fail "--csv - stdout: $out"
"$RL_BIN" client --from "$B" --csv "$work/from.csv"; check "--from BUNDLE --csv" 0 $?
cmp -s "$work/ok.csv" "$work/from.csv" && echo "ok   --from gives the same CSV" || fail "--from CSV differs"
python3 - "$work/ok.chunks" <<'PY' && echo "ok   --chunks: 6 requests, chunks 40 and 120 ms after send or later" || fail "--chunks content"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert len(rs) == 6, rs
two = 0
for r in rs:
    c = r["chunks"]
    assert sum(b for t, b in c) == 23 and c[0][0] - r["send_ns"] >= 40e6, r
    if len(c) == 2:  # (a starved reader may get both writes in one read)
        assert c[0][1] == 8 and c[1][0] - r["send_ns"] >= 120e6, r
        two += 1
assert two >= 3, rs
PY
expect "summary on stdout: the table row" "$(cat "$work/ok.out")" "^ +1 +6/6 +0 +[0-9.]+ "
expect "summary names the bundle" "$(cat "$work/ok.out")" "wrote $work/ok/bundle.json"
[ -s "$work/ok/report.html" ] && echo "ok   -o writes report.html" || fail "no report.html"

# ---- warm-ups are run but never measured: one extra process per point
: >"$work/wlog"
FAKE_STREAM_LOG="$work/wlog" "$RL_BIN" client --cmd "$FAKE 5 hi" --prompts "$work/p.jsonl" \
  --warmup 2 --sweep-concurrency 1,2 --json "$work/w.json" >/dev/null 2>&1
check "warm-up + sweep run" 0 $?
pids=$(awk '{print $2}' "$work/wlog" | sort -u | wc -l)
[ "$pids" = 10 ] && echo "ok   2 points x (3 measured + 2 warm-ups) = 10 processes" || fail "$pids processes"
json_check "sweep: points at concurrency 1 and 2, 3 measured each" "$work/w.json" \
  '[(p["concurrency"],p["requests"]["measured"]) for p in j["client"]["points"]]==[(1,3),(2,3)] and j["client"]["settings"]["concurrency"]==[1,2]'
json_check "no counter: tokens unavailable with the reason" "$work/w.json" \
  'j["client"]["tokens"]["source"]=="none" and "no counter command" in j["client"]["tokens"]["calibration"]["reason"] and j["client"]["tokens"]["calibration"]["available"] is False'

# ---- request rate: 6 requests at 5/s: request i is admitted 200 i ms after the first (fixed
# intervals); send_ns is the spawn, which a loaded machine delays by up to tens of ms, so
# request i is sent no earlier than 200 i - 50 ms after the first and the 5 gaps span >= 950 ms
"$RL_BIN" client --cmd "$FAKE 1 x" --profile short-chat --runs 2 --concurrency 4 --warmup 0 \
  --request-rate 5 --json "$work/rate.json" --chunks "$work/rate.chunks" >/dev/null 2>&1
check "--request-rate 5" 0 $?
python3 - "$work/rate.chunks" <<'PY' && echo "ok   request i sent >= 200 i - 50 ms after the first" || fail "request-rate spacing"
import json, sys
s = sorted(json.loads(l)["send_ns"] for l in open(sys.argv[1]))
assert len(s) == 6, s
assert all(s[i] - s[0] >= (200 * i - 50) * 1e6 for i in range(6)), [(x - s[0]) / 1e6 for x in s]
assert s[5] - s[0] >= 950e6, [(x - s[0]) / 1e6 for x in s]
assert s[5] - s[0] < 3000e6, s
PY
json_check "request_rate recorded" "$work/rate.json" \
  'j["client"]["settings"]["request_rate"]==5 and j["client"]["points"][0]["request_rate"]==5'

# ---- retry with backoff: the first attempt of each request fails, the second succeeds
flaky="n=\$(cat $work/tries 2>/dev/null || echo 0); echo \$((n+1)) >$work/tries; if [ \$((n % 2)) = 0 ]; then echo 'Error: flaky' >&2; exit 1; fi; exec $FAKE 5 fine"
start=$(date +%s%N)
"$RL_BIN" client --cmd "$flaky" --profile short-chat --retry 2 --warmup 0 --json "$work/retry.json" >/dev/null 2>&1
check "--retry 2" 0 $?
ms=$((($(date +%s%N) - start) / 1000000))
json_check "retry: 3 requests ok, each after 2 attempts, 6 attempts in all" "$work/retry.json" \
  '{k: v for k, v in j["client"]["points"][0]["requests"].items() if k in ("measured", "ok", "failed", "attempts")}=={"measured":3,"ok":3,"failed":0,"attempts":6} and all(r["attempts"]==2 and r["ok"] for r in j["client"]["points"][0]["records"])'
[ "$ms" -ge 1500 ] && echo "ok   3 backoffs of 500 ms ($ms ms)" || fail "retry took $ms ms: no backoff?"
# the failed attempts and their backoff are time the requests took: the window and the wall
# start at the first attempt (>= 3 x 500 ms), and rps is over that window
json_check "retry: window and wall from the first attempt, rps over it" "$work/retry.json" \
  '(p:=j["client"]["points"][0]) and p["window"]["value"]>=1500 and p["wall"]["value"]>=1500 and abs(p["metrics"]["rps"]["value"]*p["window"]["value"]/1000-3)<1e-6 and all(r["first_send_ms"]<r["send_ms"]-490 for r in p["records"])'

# ---- faults: the prompt "bad" misbehaves, "good" and the third survive
fault() { # name, fake options, timeout, regex for the error
  local name=$1 opts=$2 to=$3 re=$4
  "$RL_BIN" client --cmd "$FAKE --fault-key bad $opts 10 'ok then ' 30 done" --prompts "$work/p.jsonl" \
    --timeout "$to" --count-tokens-cmd "$COUNT" --json "$work/$name.json" >"$work/$name.out" 2>&1
  check "$name: exit 0 (the others measured)" 0 $?
  json_check "$name: 3 measured, 2 ok, 1 failed" "$work/$name.json" \
    'j["client"]["points"][0]["requests"]["measured"]==3 and j["client"]["points"][0]["requests"]["ok"]==2 and j["client"]["points"][0]["requests"]["failed"]==1'
  json_check "$name: the failure says why" "$work/$name.json" \
    '[r for r in j["client"]["points"][0]["records"] if r["prompt"]=="bad"][0]["ok"] is False and __import__("re").search(r"'"$re"'", [r for r in j["client"]["points"][0]["records"] if r["prompt"]=="bad"][0]["error"])'
  json_check "$name: the others keep their samples" "$work/$name.json" \
    'all(r["ok"] and r["ttft_ms"]>=10 and r["output_tokens"]==3 for r in j["client"]["points"][0]["records"] if r["prompt"]!="bad")'
}
fault exit3 "--exit 3" 10 "^exit 3: Error: The model failed"
fault hang "--never-exit" 3 "^timed out after 3 s"
/usr/bin/time -f "%M" -o "$work/rss" true 2>/dev/null || true
if [ -s "$work/rss" ]; then
  /usr/bin/time -f "%M" -o "$work/rss" "$RL_BIN" client --cmd "$FAKE --fault-key bad --flood 100 10 'ok then ' 30 done" \
    --prompts "$work/p.jsonl" --timeout 60 --json "$work/flood.json" >/dev/null 2>&1
  check "flood: exit 0" 0 $?
  rss=$(tail -1 "$work/rss")
  [ "$rss" -lt 150000 ] && echo "ok   100 MB of output: max RSS $rss kB" || fail "flood RSS $rss kB"
  json_check "flood: recorded ok, all 3 measured" "$work/flood.json" \
    '{k: v for k, v in j["client"]["points"][0]["requests"].items() if k in ("measured", "ok", "failed", "attempts")}=={"measured":3,"ok":3,"failed":0,"attempts":3} and [r for r in j["client"]["points"][0]["records"] if r["prompt"]=="bad"][0]["e2e_ms"]>0'
else
  echo "skip flood RSS check: no /usr/bin/time"
fi

# ---- a failing counter: tokens unavailable with the reason, samples still recorded
"$RL_BIN" client --cmd "$FAKE 10 hi" --prompts "$work/p.jsonl" --count-tokens-cmd "$FAKE --count-fail" \
  --json "$work/cf.json" >"$work/cf.out" 2>&1
check "failing counter: exit 0" 0 $?
json_check "failing counter: source none, the reason names the status" "$work/cf.json" \
  'j["client"]["tokens"]["source"]=="none" and j["client"]["tokens"]["calibration"]["available"] is False and "exited with status 64" in j["client"]["tokens"]["calibration"]["reason"]'
json_check "failing counter: 3 ok samples without tokens" "$work/cf.json" \
  'all(r["ok"] and r["ttft_ms"]>0 and r["output_tokens"] is None for r in j["client"]["points"][0]["records"]) and len(j["client"]["points"][0]["records"])==3'
expect "failing counter: the summary says why" "$(cat "$work/cf.out")" "tokens: unavailable: the counter command failed"

# ---- a missing program: every request fails with status 127 -> exit 3, bundle written
"$RL_BIN" client --cmd /nonexistent/prog --profile short-chat --json "$work/miss.json" >"$work/miss.out" 2>"$work/miss.err"
check "missing program: exit 3" 3 $?
expect "missing program: message" "$(cat "$work/miss.err")" "shell could not run the command"
json_check "missing program: 3 failures recorded with the shell's reason" "$work/miss.json" \
  'j["client"]["points"][0]["requests"]["failed"]==3 and all(r["error"].startswith("exit 127") for r in j["client"]["points"][0]["records"])'

# ---- every request failing (not a missing program): exit 1, bundle written
"$RL_BIN" client --cmd "$FAKE --exit 3" --profile short-chat --json "$work/allfail.json" >/dev/null 2>"$work/allfail.err"
check "all failed: exit 1" 1 $?
expect "all failed: message" "$(cat "$work/allfail.err")" "no request succeeded"

# ---- --fail-fast: stops admitting at the first failure, exit 1, bundle written
: >"$work/fflog"
FAKE_STREAM_LOG="$work/fflog" "$RL_BIN" client --cmd "$FAKE --echo-prompt --exit 3" --profile short-chat \
  --runs 3 --warmup 0 --fail-fast --json "$work/ff.json" >/dev/null 2>"$work/ff.err"
check "--fail-fast: exit 1" 1 $?
expect "--fail-fast: message" "$(cat "$work/ff.err")" "fail-fast: stopped at the first failed request"
json_check "--fail-fast: one request measured, state stopped" "$work/ff.json" \
  'j["client"]["points"][0]["requests"]["measured"]==1 and j["status"]["state"]=="failed" and "fail-fast" in j["status"]["reason"]'
[ "$(wc -l <"$work/fflog")" = 1 ] && echo "ok   --fail-fast: one process ran" || fail "--fail-fast ran $(wc -l <"$work/fflog")"

# ---- Ctrl-C mid-run: exit 130 within a second, the finished requests are in the bundle
"$RL_BIN" client --cmd "$FAKE 10 a 300 b" --profile short-chat --runs 20 --warmup 0 \
  --json "$work/int.json" >/dev/null 2>"$work/int.err" &
pid=$!
sleep 2
t0=$(date +%s%N)
kill -INT "$pid"
wait "$pid"; rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "Ctrl-C: exit 130" 130 "$rc"
lim=$(interrupt_limit_ms)
[ "$ms" -lt "$lim" ] && echo "ok   Ctrl-C: ended in $ms ms (limit $lim)" || fail "Ctrl-C took $ms ms (limit $lim)"
json_check "Ctrl-C: interrupted, finished requests kept" "$work/int.json" \
  'j["status"]["state"]=="interrupted" and 1<=j["client"]["points"][0]["requests"]["measured"]<60 and all(r["ok"] for r in j["client"]["points"][0]["records"])'

# ---- fm: capabilities from its help text, its count-tokens as the counter
ln -s "$FAKE" "$work/fm"
"$RL_BIN" client --cmd "$work/fm respond" --profile short-chat --json "$work/fm.json" >/dev/null 2>&1
check "fm respond" 0 $?
json_check "fm: capabilities read from the help text" "$work/fm.json" \
  'j["client"]["capabilities"]["ok"] and j["client"]["capabilities"]["commands"]==["chat","count-tokens","models","respond","serve"] and j["client"]["capabilities"]["features"]["token_count_command"]=="count-tokens" and j["client"]["capabilities"]["features"]["streaming"] is True and j["client"]["capabilities"]["warnings"]==[]'
json_check "fm: count-tokens calibrated, 8 output tokens" "$work/fm.json" \
  'j["client"]["tokens"]["calibration"]["overhead"]==1 and all(r["output_tokens"]==8 for r in j["client"]["points"][0]["records"])'

# ---- a URL holding credentials and a key: the bundle, its argv and the summary show the endpoint
# without them (checked to fail with the driver's url written as typed)
"$RL_BIN" client --url 'http://user:pw@127.0.0.1:1/v1/chat/completions?key=SECRET#frag' --warmup 0 \
  --json "$work/cred.json" >"$work/cred.out" 2>"$work/cred.err"
check "--url to a closed port: nothing succeeded" 1 $?
json_check "--url: the bundle names the endpoint without credentials" "$work/cred.json" \
  'j["client"]["driver"]["url"] == "http://127.0.0.1:1/v1/chat/completions" and "http://127.0.0.1:1/v1/chat/completions" in j["argv"]'
if grep -q 'SECRET\|pw@' "$work/cred.json" "$work/cred.out" "$work/cred.err"; then
  fail "--url: the key or the password reached the bundle or the terminal"
else
  echo "ok   --url: the key and the password reach neither the bundle nor the terminal"
fi
finish
