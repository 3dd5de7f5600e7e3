#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: `run` against the real llama-bench on a synth ladder (tiny at F16, Q8_0, Q4_0:
# about 3.5x apart in bytes per token), two thread counts and two KV depths, quick ceiling.
# The bundle validates against schema/bundle.schema.json (python3-jsonschema) and holds every
# run with its raw records and recomputed samples, the fit, the knee, the utilisation and the
# long-context table. Needs LLAMA_BIN_DIR; exits 77 (skip) without it.
set -u
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-run.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
models=()
for t in F16 Q8_0 Q4_0; do
  "$RL_BIN" synth --preset tiny --type "$t" --seed 5 -q -o "$work/tiny-$t.gguf"; check "synth $t" 0 $?
  models+=(-m "$work/tiny-$t.gguf")
done
"$RL_BIN" run "${models[@]}" -t 1,2 --depth 0,256 --n-prompt 32 --n-gen 32 --reps 2 --quick-membw \
  --llama-bench "$LLAMA_BIN_DIR/llama-bench" -o "$work/out" >"$work/out.txt" 2>"$work/err.txt"
check "run exits 0" 0 $?
python3 - "$RL_SRC/schema/bundle.schema.json" "$work/out/bundle.json" >"$work/schema.txt" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
PY
check "bundle validates against the schema" 0 $?
[ -s "$work/schema.txt" ] && cat "$work/schema.txt"
B="$work/out/bundle.json"
json_check "12 runs, all ok, each with its prefill and decode record" "$B" \
  'sum(len(m["runs"]) for m in j["models"])==12 and all(r["status"]=="ok" and len(r["records"])==2 for m in j["models"] for r in m["runs"])'
json_check "rates recomputed from samples_ns, 2 samples each" "$B" \
  'all(len(r["decode"]["samples"])==2 and r["decode"]["kind"]=="measured" for m in j["models"] for r in m["runs"])'
json_check "the fit: 3 points, resident bytes, llama-bench model_size" "$B" \
  'j["analysis"]["fit"]["n_points"]==3 and j["analysis"]["fit"]["bw_GBs"]>0 and j["analysis"]["fit"]["bytes_convention"]=="resident" and all(m["bytes_per_token"]["source"]=="llama-bench model_size" for m in j["models"])'
json_check "knee and utilisation per model" "$B" \
  'all(m["knee"]["available"] and m["utilisation"]["available"] for m in j["analysis"]["models"])'
json_check "long-context table: every model at depth 256" "$B" \
  'sorted(r["model"] for r in j["analysis"]["long_context"])==["m1","m2","m3"] and all(r["depth"]==256 and r["bytes_only_prediction"]["available"] for r in j["analysis"]["long_context"])'
json_check "measured ceiling, llama.cpp build, environment" "$B" \
  'j["membw"]["kind"]=="measured" and j["llama_cpp"]["build_commit"] and j["environment"]["cpu"] is not None'
expect "the summary gives the answer first" "$(head -3 "$work/out.txt")" "^answer: "
finish
