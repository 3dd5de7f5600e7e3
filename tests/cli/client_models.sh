#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: several models in one client run. `--model A,B` with a {model} placeholder in --cmd (each
# name shell-quoted into the command) gives one set of operating points per model, each point
# naming its model; the summary has a model column; compare matches rows per model (alpha's
# rows against alpha's, never beta's). Bad input: exit 2, one line.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-client-models.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=client
FAKE="$(dirname "$RL_BIN")/fake-stream"
export LLAMA_ROOFLINE_PROGRESS=off
# the fake's first chunk is the model's name: the answer says which command ran
for i in 1 2; do
  "$RL_BIN" client --cmd "$FAKE 10 {model} 30 ' two words'" --model "alpha,b'eta" \
    --sweep-concurrency 1,2 --runs 1 --warmup 0 --capture-output --bundle "$work/m$i.json" \
    >"$work/out$i" 2>"$work/err$i"
  check "two models, run $i: exit 0" 0 $? || cat "$work/err$i"
done
json_check "4 points: alpha at 1 and 2, then b'eta at 1 and 2" "$work/m1.json" \
  '[(p["model"],p["concurrency"]) for p in j["client"]["points"]]==[("alpha",1),("alpha",2),("b'"'"'eta",1),("b'"'"'eta",2)]'
json_check "each model's command ran (its name, quoted, is the answer's first chunk)" "$work/m1.json" \
  'all(r["output"]==p["model"]+" two words" for p in j["client"]["points"] for r in p["records"])'
json_check "the driver lists the models" "$work/m1.json" \
  'j["client"]["driver"]["models"]==["alpha","b'"'"'eta"] and "{model}" in j["client"]["driver"]["command"]'
expect "summary: a model column" "$(cat "$work/out1")" "^  model +conc +ok/all"
expect "summary: alpha's row" "$(cat "$work/out1")" "^  alpha +1 +3/3 +0 "
out=$("$RL_BIN" validate "$work/m1.json" 2>&1); check "validate ($out)" 0 $?
"$RL_BIN" compare "$work/m1.json" "$work/m2.json" --json >"$work/cmp.json" 2>"$work/cmp.err"
check "compare of two runs: exit 0" 0 $? || cat "$work/cmp.err"
python3 - "$work/cmp.json" >"$work/cmp.txt" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = [r for r in j["rows"] if r["group"] == "Streaming client"]
subjects = sorted({r["subject"] for r in rows})
assert subjects == ["alpha", "b'eta"], subjects
per = {s: [r for r in rows if r["subject"] == s] for s in subjects}
assert len(per["alpha"]) == len(per["b'eta"]) > 0, {s: len(v) for s, v in per.items()}
assert all(r["keys"]["model"] == r["subject"] for r in rows), rows[0]["keys"]
# each row holds one model's requests from each run: 3 prompts x 1 run, never 6 (fewer for
# the pooled chunk gaps when a loaded machine delivered a request's two chunks as one)
bad = [(r["metric"], c.get("n")) for r in rows for c in r["cells"] if c.get("n") is not None and not 0 <= c["n"] <= 3]
assert all(len(r["cells"]) == 2 for r in rows) and not bad, bad
print(len(rows), "rows")
PY
rc=$?
check "compare: rows per model, each matched in both runs ($(tail -c 300 "$work/cmp.txt"))" 0 $rc
# fm: `fm models` says which are usable; pcc (unavailable, with fm's reason) and nope (not
# listed) are skipped and kept with their reasons, system is measured
ln -s "$FAKE" "$work/fm"
"$RL_BIN" client --cmd "$work/fm respond --model {model}" --model system,pcc,nope --runs 1 \
  --warmup 0 --bundle "$work/fm.json" >"$work/fm.out" 2>"$work/fm.err"
check "fm models: exit 0" 0 $? || cat "$work/fm.err"
json_check "fm models: only system measured" "$work/fm.json" '[p["model"] for p in j["client"]["points"]]==["system"]'
json_check "fm models: availability kept with fm's identity and reasons" "$work/fm.json" \
  'j["client"]["fm_models"]==[{"name":"system","available":True,"identity":"AFM 3 Core","skipped":False},{"name":"pcc","available":False,"reason":"Private Cloud Compute is not enabled. Please use the Terminal app.","skipped":True},{"name":"nope","available":False,"reason":"not listed by fm","skipped":True}]'
expect "fm models: the skipped ones said on stderr" "$(cat "$work/fm.err")" "^client: skipped, as fm reports them: pcc: Private Cloud Compute is not enabled\. Please use the Terminal app\.; nope: not listed by fm$"
bad "fm: no requested model usable" 2 "no requested model is usable right now \(pcc: Private Cloud" --cmd "$work/fm respond --model {model}" --model pcc
bad "{model} without --model" 2 "the command holds \{model\}: give --model" --cmd "echo {model}"
bad "an empty model name" 2 "--model: an empty name in 'a,,b'" --cmd "echo {model}" --model a,,b
bad "a model twice" 2 "--model names 'a' twice" --cmd "echo {model}" --model a,b,a
finish
