#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: `diagnose --synth --quick` against the real llama-bench on the real ladder
# (qwen2.5-0.5b at Q4_0, Q8_0 and F16: 2.3 GB in ${LLAMA_ROOFLINE_CACHE:-~/.cache/llama-roofline}
# /synth, written on the first run and reused after, as a user's first diagnose would). The
# bundle validates against schema/bundle.schema.json (python3-jsonschema), says command
# "diagnose" and bytes "streamed" from the GGUF tensor table, and holds a fit over 3 points
# spanning at least 3x in bytes per token; the answer comes first on stdout. Needs
# LLAMA_BIN_DIR; exits 77 (skip) without it.
# Checked to fail: with the ladder's F16 rung replaced by a second Q8_0 in synth_ladder.c (the
# ladder, 3x and 3-point checks fail).
set -u
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-diagnose.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
unset LLAMA_ROOFLINE_SYNTH_PRESET
"$RL_BIN" diagnose --synth --quick --llama-bench "$LLAMA_BIN_DIR/llama-bench" -o "$work/out" \
  >"$work/out.txt" 2>"$work/err.txt"
check "diagnose --synth --quick exits 0" 0 $?
[ "$fails" = 0 ] || cat "$work/err.txt"
python3 - "$RL_SRC/schema/bundle.schema.json" "$work/out/bundle.json" >"$work/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
PY
check "bundle validates against the schema" 0 $?
[ -s "$work/schema.txt" ] && cat "$work/schema.txt"
B="$work/out/bundle.json"
json_check "command diagnose, complete, quick settings" "$B" \
  'j["command"]=="diagnose" and j["status"]["state"]=="complete" and j["settings"]["n_gen"]==64 and j["settings"]["reps"]==1'
json_check "the ladder: qwen2.5-0.5b at Q4_0, Q8_0, F16, every run ok" "$B" \
  '[m["name"] for m in j["models"]]==["qwen2.5-0.5b-Q4_0-seed1.gguf","qwen2.5-0.5b-Q8_0-seed1.gguf","qwen2.5-0.5b-F16-seed1.gguf"] and all(r["status"]=="ok" for m in j["models"] for r in m["runs"])'
json_check "streamed bytes from the GGUF tensor table, >= 3x from the first rung to the last" "$B" \
  'all(m["bytes_per_token"]["convention"]=="streamed" and m["bytes_per_token"]["source"].startswith("GGUF tensor table") for m in j["models"]) and j["models"][2]["bytes_per_token"]["value"]>=3*j["models"][0]["bytes_per_token"]["value"]'
json_check "a fit over 3 points, a measured ceiling, a verdict" "$B" \
  'j["analysis"]["fit"]["n_points"]==3 and j["analysis"]["fit"]["bw_GBs"]>0 and j["membw"]["kind"]=="measured" and j["analysis"]["verdict"].get("label")'
expect "the answer comes first" "$(sed -n 2p "$work/out.txt")" "^answer: "
expect "the bundle and report paths come last" "$(tail -2 "$work/out.txt" | tr '\n' '|')" "^wrote $work/out/bundle.json\|wrote $work/out/report.html\|$"
finish
