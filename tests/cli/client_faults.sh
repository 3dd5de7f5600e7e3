#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the streaming client's measurement faults of issue 20, each against a scripted fm-style
# program (tests/lib/fake-stream) and a byte-counting token counter (`wc -c`: its count is the
# text's length, so every escape byte or newline counted shows):
#   - a coloured answer: terminal control sequences (SGR colours, an OSC title) and the closing
#     newline are not text: counted 19 / 9 (answer / first delivery), not 38 / 23 with them;
#     output_bytes 20 (the text and its newline), output_raw_bytes every byte read (38);
#   - a read of colour codes alone is no chunk (no delivery, no TTFT);
#   - a single-chunk answer: its first delivery is the whole answer, counted (not "no counter
#     command"); a counter that fails its calibration is named as the reason, not its absence.
# Each check fails on the code before its fix.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-faults.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$(dirname "$RL_BIN")/fake-stream"
[ -x "$FAKE" ] || { echo "no fake-stream next to $RL_BIN"; exit 1; }
export LLAMA_ROOFLINE_PROGRESS=off
printf '{"id": "p", "prompt": "say it"}\n' >"$work/p.jsonl"

# ---- a coloured answer in two deliveries (20 ms apart), with a title and a closing newline
"$RL_BIN" client --cmd "$FAKE 10 '\x1b]0;fm\x07\x1b[1;32mThe quick' 40 ' brown fox\x1b[0m\n'" \
  --prompts "$work/p.jsonl" --runs 2 --warmup 0 --count-tokens-cmd 'wc -c' \
  --json "$work/colour.json" >/dev/null 2>"$work/colour.err"
check "coloured answer: exit 0" 0 $? || cat "$work/colour.err"
json_check "coloured: 19 tokens (the text), first delivery 9, not 38 / 23 with escapes" "$work/colour.json" \
  'all((r["output_tokens"],r["first_delivery_tokens"],r["decode_tokens"])==(19,9,10) for r in j["client"]["points"][0]["records"])'
json_check "coloured: output_bytes 20 (text + newline), output_raw_bytes 38 (every byte read)" "$work/colour.json" \
  'all((r["output_bytes"],r["output_raw_bytes"])==(20,38) for r in j["client"]["points"][0]["records"])'
json_check "coloured: 2 chunks, 2 deliveries" "$work/colour.json" \
  'all((r["chunks"],r["deliveries"])==(2,2) for r in j["client"]["points"][0]["records"])'

# ---- colour codes alone at 10 ms, the text at 60 ms: TTFT is the text's arrival
"$RL_BIN" client --cmd "$FAKE 10 '\x1b[33m' 60 'late words\x1b[0m'" --prompts "$work/p.jsonl" \
  --runs 1 --warmup 0 --count-tokens-cmd 'wc -c' --json "$work/codes.json" >/dev/null 2>&1
check "codes first: exit 0" 0 $?
json_check "codes first: one chunk, TTFT >= 60 ms (the escape-only read is not a chunk)" "$work/codes.json" \
  '(r:=j["client"]["points"][0]["records"][0]) and r["chunks"]==1 and r["ttft_ms"]>=60 and r["output_tokens"]==10'

# ---- a single-chunk answer with a calibrated counter: the first delivery is the answer
"$RL_BIN" client --cmd "$FAKE 10 'all at once'" --prompts "$work/p.jsonl" --runs 2 --warmup 0 \
  --count-tokens-cmd 'wc -c' --json "$work/one.json" >/dev/null 2>&1
check "single chunk: exit 0" 0 $?
json_check "single chunk: first-delivery tokens = output tokens = 11" "$work/one.json" \
  'all((r["output_tokens"],r["first_delivery_tokens"])==(11,11) for r in j["client"]["points"][0]["records"])'
json_check "single chunk: TPOT unavailable because of one delivery, never 'no counter command'" "$work/one.json" \
  '(t:=j["client"]["points"][0]["metrics"]["tpot"]) and t["available"]==False and "one delivery" in t["reason"] and "counter" not in t["reason"]'

# ---- a counter that fails its calibration: the reason says so
"$RL_BIN" client --cmd "$FAKE 10 'one' 30 ' two three'" --prompts "$work/p.jsonl" --runs 1 \
  --warmup 0 --count-tokens-cmd "$FAKE --count-fail" --json "$work/nocal.json" >/dev/null 2>&1
check "failing counter: exit 0" 0 $?
json_check "failing counter: TPOT's reason names the failed calibration" "$work/nocal.json" \
  '(t:=j["client"]["points"][0]["metrics"]["tpot"]) and t["available"]==False and "failed its calibration" in t["reason"]'
finish
