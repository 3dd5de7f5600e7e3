#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `client`'s prompts (docs/CLI.md "Prompts") against tests/lib/fake-stream: --prompt TEXT
# repeated (ids custom-1, custom-2, sent in that order), prompt files told by their content and
# never their extension (a JSON array in a .txt file, text lines in a .json file, paragraphs),
# a file's prompts before the --prompt ones (custom-<k> numbered on), fm-bench's profile names
# accepted and recorded beside ours (settings.prompts.requested) and said on the report's
# Prompts line, every bundle valid against validate and the JSON Schema; the errors exit 2
# with exactly one line on stderr.
# Checked to fail: with --prompt parsed as an abbreviation of --prompts (no such file), and
# with the inline ids numbered from 1 after a file (custom-1 in place of custom-4).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-prompts.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=client
FAKE="$(dirname "$RL_BIN")/fake-stream"
[ -x "$FAKE" ] || { echo "no fake-stream next to $RL_BIN"; exit 1; }
export LLAMA_ROOFLINE_PROGRESS=off
once=(--warmup 0 --runs 1)
schema_ok() { # description, bundle: valid against schema/bundle.schema.json
  local out
  out=$(python3 - "$RL_SRC/schema/bundle.schema.json" "$2" 2>&1 <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
  ) && echo "ok   $1" || fail "$1: $out"
}

# ---- --prompt twice: two prompts, custom-1 and custom-2, sent in that order
FAKE_STREAM_LOG="$work/inline.log" "$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" \
  --prompt hi --prompt 'two words' -o "$work/inline" >"$work/out" 2>"$work/err"
check "--prompt hi --prompt 'two words'" 0 $? || cat "$work/err"
B="$work/inline/bundle.json"
json_check "inline: 2 prompts measured, ids custom-1 custom-2" "$B" \
  '[(p["id"], p["text"]) for p in j["client"]["prompts"]]==[("custom-1","hi"),("custom-2","two words")] and j["client"]["points"][0]["requests"]["measured"]==2 and [r["prompt"] for r in j["client"]["points"][0]["records"]]==["custom-1","custom-2"]'
json_check "inline: settings.prompts" "$B" \
  'j["client"]["settings"]["prompts"]=={"source":"inline","name":"--prompt","n":2,"inline":2}'
keys=$(cut -d' ' -f1 "$work/inline.log" | uniq | tr '\n' ' ')
[ "$keys" = "hi two " ] && echo "ok   inline: the command read hi, then two words" || fail "inline: prompts sent: $keys"
schema_ok "inline: the bundle against the schema" "$B"

# ---- a JSON array in a .txt file: JSON by its first byte, not its name
cat >"$work/array.txt" <<'EOF'
[
  "alpha beta",
  {"name": "named", "text": "gamma"},
  {"id": "x3", "prompt": "delta", "max_tokens": 9}
]
EOF
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --prompts "$work/array.txt" \
  -o "$work/array" >"$work/out" 2>"$work/err"
check "--prompts array.txt (a JSON array)" 0 $? || cat "$work/err"
B="$work/array/bundle.json"
json_check "array: ids file-1 named x3, texts, max_tokens 9" "$B" \
  '[(p["id"], p["text"], p.get("max_tokens")) for p in j["client"]["prompts"]]==[("file-1","alpha beta",None),("named","gamma",None),("x3","delta",9)] and j["client"]["points"][0]["requests"]["measured"]==3'
json_check "array: settings.prompts, format json" "$B" \
  'j["client"]["settings"]["prompts"]=={"source":"file","name":"'"$work/array.txt"'","n":3,"format":"json"}'
schema_ok "array: the bundle against the schema" "$B"

# ---- text lines in a .json file, then two --prompt: numbered on after the file's
printf 'first question\n\n  second question  \n\nthird question\n' >"$work/lines.json"
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --prompts "$work/lines.json" \
  --prompt 'inline one' --prompt 'inline two' -o "$work/lines" >"$work/out" 2>"$work/err"
check "--prompts lines.json (text) --prompt x2" 0 $? || cat "$work/err"
B="$work/lines/bundle.json"
json_check "lines: ids line-1 line-3 line-5, then custom-4 custom-5" "$B" \
  '[(p["id"], p["text"]) for p in j["client"]["prompts"]]==[("line-1","first question"),("line-3","second question"),("line-5","third question"),("custom-4","inline one"),("custom-5","inline two")] and j["client"]["points"][0]["requests"]["measured"]==5'
json_check "lines: settings.prompts file+inline" "$B" \
  'j["client"]["settings"]["prompts"]=={"source":"file+inline","name":"'"$work/lines.json"'","n":5,"format":"lines","inline":2}'
schema_ok "lines: the bundle against the schema" "$B"
grep -qF "<dd>5 from file+inline $work/lines.json (lines), then 2 from --prompt</dd>" "$work/lines/report.html" &&
  echo "ok   lines: the report says file, format and --prompt" || fail "lines: report: $(grep -A1 'Prompts</dt>' "$work/lines/report.html")"

# ---- paragraphs: blank lines part blocks, one of several lines
printf 'Summarise this:\nthe cat sat\non the mat.\n\nName three colours.\n' >"$work/paras.md"
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --prompts "$work/paras.md" \
  --bundle "$work/paras.json" >"$work/out" 2>"$work/err"
check "--prompts paras.md (paragraphs)" 0 $? || cat "$work/err"
json_check "paragraphs: para-1 (three lines joined), para-2" "$work/paras.json" \
  '[(p["id"], p["text"]) for p in j["client"]["prompts"]]==[("para-1","Summarise this:\nthe cat sat\non the mat."),("para-2","Name three colours.")] and j["client"]["settings"]["prompts"]["format"]=="paragraphs" and j["client"]["points"][0]["requests"]["measured"]==2'

# ---- fm-bench's profile names: accepted, mapped onto ours, recorded
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --profile interactive \
  -o "$work/interactive" >"$work/out" 2>"$work/err"
check "--profile interactive" 0 $? || cat "$work/err"
B="$work/interactive/bundle.json"
json_check "interactive: short-chat's 3 prompts, requested interactive" "$B" \
  'j["client"]["settings"]["prompts"]=={"source":"profile","name":"short-chat","n":3,"requested":"interactive"} and [p["id"] for p in j["client"]["prompts"]]==["short-chat-1","short-chat-2","short-chat-3"] and j["client"]["points"][0]["requests"]["measured"]==3'
schema_ok "interactive: the bundle against the schema" "$B"
grep -qF "<dd>3 from profile short-chat, for fm-bench's profile interactive</dd>" "$work/interactive/report.html" &&
  echo "ok   interactive: the report names both profiles" || fail "interactive: report: $(grep -A1 'Prompts</dt>' "$work/interactive/report.html")"
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --profile quick \
  --bundle "$work/quick.json" >"$work/out" 2>"$work/err"
check "--profile quick" 0 $? || cat "$work/err"
json_check "quick: the first short-chat prompt alone" "$work/quick.json" \
  'j["client"]["settings"]["prompts"]=={"source":"profile","name":"short-chat","n":1,"requested":"quick"} and [p["id"] for p in j["client"]["prompts"]]==["short-chat-1"]'
"$RL_BIN" client --cmd "$FAKE 5 'one two'" "${once[@]}" --profile code \
  --bundle "$work/code.json" >"$work/out" 2>"$work/err"
check "--profile code (ours)" 0 $?
json_check "code: no requested name" "$work/code.json" \
  'j["client"]["settings"]["prompts"]=={"source":"profile","name":"code","n":2}'

# ---- errors: exit 2, one line
x=(--cmd "$FAKE 5 x" -o "$work/x")
bad "--prompt with --profile" 2 "^llama-roofline client: error: --profile and --prompt exclude each other: a profile is used only when no prompt is given$" "${x[@]}" --prompt hi --profile interactive
bad "--profile with --prompts" 2 "error: --profile and --prompts exclude each other$" "${x[@]}" --prompts "$work/array.txt" --profile mixed
bad "an empty --prompt" 2 "error: --prompt 2: the prompt is empty$" "${x[@]}" --prompt ok --prompt '  '
bad "unknown profile: both sets named" 2 "unknown profile 'nope': give short-chat, long-generation, extraction, summarisation, code or mixed, or one of fm-bench's quick, standard, interactive, throughput, client, stress, reasoning, coding or creative" "${x[@]}" --profile nope
many=(); for i in $(seq 1001); do many+=(--prompt "p$i"); done
bad "1001 --prompt" 2 "error: --prompt: more than 1000: put them in a file \(--prompts\)$" "${x[@]}" "${many[@]}"
printf '[\n  "a",\n  "b"\n' >"$work/cut.json"
bad "unterminated JSON names the line" 2 "cut.json:3: not valid JSON \(syntax error" "${x[@]}" --prompts "$work/cut.json"
printf '["a", 3]\n' >"$work/item.json"
bad "a non-string item names the item" 2 "item.json: item 2: not a string or an object$" "${x[@]}" --prompts "$work/item.json"
printf '{"prompts": ["a", {"id": "file-1", "prompt": "b"}]}\n' >"$work/dup.json"
bad "a duplicate id" 2 "dup.json: item 2: the id 'file-1' is used twice: ids must be unique$" "${x[@]}" --prompts "$work/dup.json"
printf 'fine\nnot \377 utf-8\n' >"$work/bad.txt"
bad "invalid UTF-8 in a text file" 2 "bad.txt:2: not valid UTF-8$" "${x[@]}" --prompts "$work/bad.txt"
printf 'fine\n\nwith a \000 NUL\n' >"$work/nul.txt"
bad "a NUL byte" 2 "nul.txt:3: a NUL byte: a prompt file is text$" "${x[@]}" --prompts "$work/nul.txt"
printf '{"id": "custom-2", "prompt": "a"}\n' >"$work/clash.jsonl"
bad "an inline id a file already has" 2 "error: --prompt 1: its id 'custom-2' is already a prompt file's: rename that one$" "${x[@]}" --prompts "$work/clash.jsonl" --prompt b
[ ! -e "$work/x" ] && echo "ok   errors: nothing written" || fail "errors: $work/x was written"

finish
