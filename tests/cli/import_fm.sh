#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `import` of fm-bench JSON reports (schema v1) written to the published format by
# tests/lib/fm-bench-report.py, for fm-bench 0.8.0 and 0.7.2: each becomes a client bundle
# that validate passes (and schema/bundle.schema.json, when python3-jsonschema is there),
# whose numbers are the report's (TTFT p50, the samples of its results, rps, goodputRate,
# counts), whose conventions are stated (TPOT denominator, warm-up default: 1 in 0.8.0, 0 in
# 0.7.x when the report does not state it); a report without results keeps the statistics
# without samples or records; one without token counting marks the token metrics unavailable
# with fm-bench's reason. report renders each (exit 0, the values and the conventions on the
# page); compare of a 0.8.0 and a 0.7.2 import matches TTFT and E2E but keeps TPOT, decode and
# chunk-gap rows apart and warns that the convention differs; compare of a real `client` bundle
# (the fake streaming program) and an import of a report with the same command and prompts
# matches their TTFT rows (the import's is slower). Hostile reports (truncated, wrong types,
# negative counts, huge arrays, NaN and infinite numbers, an unknown schemaVersion, long
# names, counts that do not add up) exit 2 with one line naming the file and the field, and
# write nothing. Every check asserts the binary's own exit status.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-import-fm.$$"
mkdir -p "$work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=import
page() { python3 -c 'import re,sys; t=open(sys.argv[1]).read(); t=t[:t.find("id=\"bundle\"")]; t=re.sub(r"<style.*?</style>|<svg.*?</svg>", " ", t, flags=re.S); print(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", t)))' "$1"; }
GEN="$RL_SRC/tests/lib/fm-bench-report.py"
FAKE="$(dirname "$RL_BIN")/fake-stream"
export LLAMA_ROOFLINE_PROGRESS=off
SCHEMA="$RL_SRC/schema/bundle.schema.json"
have_schema=1
python3 -c 'import jsonschema' 2>/dev/null || have_schema=

valid() { # description, bundle file: the tool's validate, and the JSON Schema when available
  local out
  out=$("$RL_BIN" validate "$2" 2>&1); check "$1: validate ($out)" 0 $?
  [ -n "$have_schema" ] || return 0
  if out=$(python3 - "$SCHEMA" "$2" 2>&1 <<'PY'
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
errors = sorted(Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:3]:
    print("/".join(map(str, e.absolute_path)) or "(top)", e.message[:300])
sys.exit(1 if errors else 0)
PY
  ); then echo "ok   $1: schema"; else fail "$1: schema: $out"; fi
}

gen() { python3 "$GEN" "$@" || fail "generator: $*"; }

# ---- 0.8.0: two models, two operating points, an SLO
gen --version 0.8.0 --models system,pcc --concurrency 1,2 --runs 2 --slo-ttft 200 -o "$work/r08.json"
"$RL_BIN" import "$work/r08.json" -o "$work/b08.json" --name "mac 0.8" >"$work/out" 2>"$work/err"
check "0.8.0: imported" 0 $? || cat "$work/err"
expect "0.8.0: the summary names the bundle" "$(cat "$work/out")" "wrote $work/b08.json"
valid "0.8.0 bundle" "$work/b08.json"
cat >"$work/same.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
# the bundle's numbers print with cJSON's 15 significant digits where those read back within
# its epsilon: the same number to 1e-12
def same(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
pts = j["client"]["points"]
assert [(p["model"], p["concurrency"]) for p in pts] == [(s["model"], s["concurrency"]) for s in r["summary"] if s["attempted"]], pts
for p, s in zip(pts, [s for s in r["summary"] if s["attempted"]]):
    m = p["metrics"]
    assert same(m["ttft"]["stats"]["p50"], s["ttft"]["p50"]), (m["ttft"]["stats"], s["ttft"])
    assert same(m["ttft"]["stats"]["p95"], s["ttft"]["p95"]) and m["ttft"]["stats"]["n"] == s["ttft"]["count"]
    assert same(m["e2e"]["stats"]["p99"], s["latency"]["p99"]) and same(m["e2e"]["stats"]["mean"], s["latency"]["avg"])
    assert same(m["e2e"]["stats"]["sd"], s["latency"]["stddev"])
    assert same(m["e2e"]["stats"]["ci95"]["low"], s["latency"]["ci95Low"])
    if "tpot" in s and s["tpot"]["count"]:
        assert same(m["tpot"]["stats"]["p50"], s["tpot"]["p50"])
    ok = [x for x in r["results"] if x["model"] == p["model"] and x["concurrency"] == p["concurrency"] and x["ok"]]
    if r["results"]:
        assert same(m["ttft"]["samples"], [x["firstTokenMs"] for x in ok]), m["ttft"]["samples"]
        assert same(m["chunk_gap"]["samples"], [g for x in ok for g in x["chunkGapsMs"]])
        assert len(p["records"]) == s["attempted"]
    assert same(m["rps"]["value"], s["rps"]), (m["rps"], s["rps"])
    assert p["requests"]["measured"] == s["attempted"] and p["requests"]["ok"] == s["successes"]
    assert p["requests"]["failed"] == s["failures"]
print("ok")
PY
out=$(python3 "$work/same.py" "$work/r08.json" "$work/b08.json" 2>&1); check "0.8.0: every point's numbers are the report's ($out)" 0 $?
json_check "0.8.0: provenance (tool, version, file, reportId, --name)" "$work/b08.json" \
  'j["command"]=="import" and j["status"]["state"]=="complete" and "reason" not in j["status"] and j["analysis"]["scope"]=="client" and j["source"]["format"]=="fm-bench report v1" and j["source"]["version"]=="0.8.0" and j["source"]["file"]=="r08.json" and j["source"]["report_id"]==json.load(open(sys.argv[1].replace("b08","r08")))["reportId"] and j["source"]["name"]=="mac 0.8"'
json_check "0.8.0: deliveries convention, TPOT over tokens after the first chunk, warm-up 1 as stated" "$work/b08.json" \
  'j["client"]["convention"]=="deliveries" and j["client"]["conventions"]["tpot"]=="generation / (output tokens - first-chunk tokens)" and j["client"]["settings"]["warmup"]==1 and "warmup_source" not in j["client"]["settings"]'
json_check "0.8.0: goodput: fraction_of_ok is goodputRate (to 1e-12), good counted over the runs" "$work/b08.json" \
  'all(abs(p["goodput"]["fraction_of_ok"]-s["goodputRate"])<1e-12 and p["goodput"]["good"]==sum(1 for x in json.load(open(sys.argv[1].replace("b08","r08")))["results"] if x["model"]==p["model"] and x["concurrency"]==p["concurrency"] and x["good"]) for p,s in zip(j["client"]["points"], json.load(open(sys.argv[1].replace("b08","r08")))["summary"]))'
json_check "0.8.0: calibrated counter, overhead 1; the models; deliveries unavailable" "$work/b08.json" \
  'j["client"]["tokens"]["calibration"]["overhead"]==1 and j["client"]["driver"]["models"]==["system","pcc"] and j["client"]["points"][0]["metrics"]["deliveries"]["reason"]=="fm-bench reports no delivery count" and j["environment"]["cpu"]=="Apple M5 Pro" and j["environment"]["os"]=="macOS 27.2"'
"$RL_BIN" report "$work/b08.json" -o "$work/b08.html" >/dev/null 2>"$work/err"; check "0.8.0: report renders" 0 $? || cat "$work/err"
p50=$(python3 -c 'import json,sys; print("%.3g" % json.load(open(sys.argv[1]))["summary"][0]["ttft"]["p50"])' "$work/r08.json")
expect "0.8.0: the page shows TTFT p50 $p50 of the first point" "$(page "$work/b08.html")" "system, 1 6 / 6 \(6\) $p50 / "
expect "0.8.0: the page states the conventions" "$(page "$work/b08.html")" "as fm-bench 0.8.0 computed them: TPOT = generation / \(output tokens - first-chunk tokens\)"

# ---- 0.7.2: no warm-up stated (its default 0), a failed run
gen --version 0.7.2 --models system --runs 2 --fail 1 --omit-warmup -o "$work/r07.json"
"$RL_BIN" import "$work/r07.json" -o "$work/b07.json" >/dev/null 2>"$work/err"; check "0.7.2: imported" 0 $? || cat "$work/err"
valid "0.7.2 bundle" "$work/b07.json"
out=$(python3 "$work/same.py" "$work/r07.json" "$work/b07.json" 2>&1); check "0.7.2: every point's numbers are the report's ($out)" 0 $?
json_check "0.7.2: its convention; warm-up 0, its version's default, said so" "$work/b07.json" \
  'j["client"]["convention"].startswith("fm-bench 0.7") and j["client"]["conventions"]["tpot"]=="generation / (output tokens - 1)" and j["client"]["conventions"]["warmup_default"]==0 and j["client"]["settings"]["warmup"]==0 and "default" in j["client"]["settings"]["warmup_source"]'
json_check "0.7.2: what 0.7 did not write is unavailable with the reason; the failure kept" "$work/b07.json" \
  '"came with 0.8.0" in j["client"]["points"][0]["metrics"]["first_delivery_tokens"]["reason"] and "came with 0.8.0" in j["client"]["points"][0]["metrics"]["stability_cv"]["reason"] and j["client"]["tokens"]["calibration"]["available"] is False and j["client"]["points"][0]["requests"]["failed"]==1 and j["client"]["points"][0]["records"][0]["error"]=="fm exited with status 1"'
"$RL_BIN" report "$work/b07.json" -o "$work/b07.html" >/dev/null 2>"$work/err"; check "0.7.2: report renders" 0 $? || cat "$work/err"
expect "0.7.2: the page states its TPOT convention" "$(page "$work/b07.html")" "as fm-bench 0.7.2 computed them: TPOT = generation / \(output tokens - 1\)"
# 0.8.0 without a stated warm-up: its default is 1
gen --version 0.8.0 --omit-warmup -o "$work/r08w.json"
"$RL_BIN" import "$work/r08w.json" -o "$work/b08w.json" >/dev/null; check "0.8.0 without warmup: imported" 0 $?
json_check "0.8.0 without warmup: 1, the default, said so" "$work/b08w.json" \
  'j["client"]["settings"]["warmup"]==1 and j["client"]["points"][0]["warmup"]==1 and "0.8.0" in j["client"]["settings"]["warmup_source"]'

# ---- compare 0.8.0 with 0.7.2: TTFT matched, TPOT kept apart, the convention said
"$RL_BIN" compare "$work/b08.json" "$work/b07.json" >"$work/cmp.txt" 2>&1; check "compare 0.8 and 0.7: exit 0" 0 $?
expect "compare 0.8 and 0.7: the convention differs" "$(cat "$work/cmp.txt")" "Client metric convention differs: \[1\] deliveries; \[2\] fm-bench 0.7"
expect "compare 0.8 and 0.7: warm-up differs" "$(cat "$work/cmp.txt")" "Client warm-up requests differs: \[1\] 1; \[2\] 0"
"$RL_BIN" compare "$work/b08.json" "$work/b07.json" --json >"$work/cmp.json" 2>/dev/null; check "compare --json" 0 $?
json_check "compare 0.8 and 0.7: TTFT and E2E of system at 1 in both, TPOT/decode/chunk gaps never" "$work/cmp.json" \
  'all(all(c.get("present", True) for c in r["cells"]) == (r["metric"] in ("TTFT","E2E latency","requests/s") and r["subject"]=="system" and r["keys"]["concurrency"]=="1") for r in j["rows"] if r["group"]=="Streaming client")'

# ---- a real client run against an import of a report with its command and prompts
"$RL_BIN" client --cmd "$FAKE 10 {model} 30 ' two words'" --model system --runs 2 --warmup 1 \
  --bundle "$work/client.json" >/dev/null 2>"$work/err"; check "client run (fake)" 0 $? || cat "$work/err"
gen --version 0.8.0 --models system --runs 2 --fm-bin "$FAKE 10 {model} 30 ' two words'" \
  --prompt-set "$work/client.json" --profile short-chat -o "$work/rc.json"
"$RL_BIN" import "$work/rc.json" -o "$work/bc.json" >/dev/null; check "import of the matching report" 0 $?
"$RL_BIN" compare "$work/client.json" "$work/bc.json" --json >"$work/cmpc.json" 2>/dev/null; check "compare client and import: exit 0" 0 $?
"$RL_BIN" compare "$work/client.json" "$work/bc.json" >"$work/cmpc.txt" 2>&1; check "compare client and import (text)" 0 $?
if grep -q "Client metric convention differs" "$work/cmpc.txt"; then fail "client and a 0.8.0 import: a convention difference reported"; else echo "ok   client and a 0.8.0 import: one convention (deliveries)"; fi
json_check "compare client and import: the TTFT row in both, the import's slower (80-250 ms vs ~10 ms)" "$work/cmpc.json" \
  '[r["cells"][1]["verdict"] for r in j["rows"] if r["group"]=="Streaming client" and r["metric"]=="TTFT" and all(c.get("present", True) for c in r["cells"])]==["slower"]'

# ---- without results: statistics kept, no samples, no records
gen --version 0.8.0 --no-results -o "$work/rn.json"
"$RL_BIN" import "$work/rn.json" -o "$work/bn.json" >/dev/null; check "no results: imported" 0 $?
valid "no-results bundle" "$work/bn.json"
json_check "no results: stats as given, samples and records unavailable" "$work/bn.json" \
  'j["client"]["points"][0]["metrics"]["ttft"]["stats"]["p50"]==json.load(open(sys.argv[1].replace("bn","rn")))["summary"][0]["ttft"]["p50"] and j["client"]["points"][0]["metrics"]["ttft"]["samples"]["available"] is False and j["client"]["points"][0]["records"]["available"] is False and j["client"]["points"][0]["window"]["available"] is False'
"$RL_BIN" report "$work/bn.json" -o "$work/bn.html" >/dev/null; check "no results: report renders" 0 $?
# ---- the minimal legacy-style document fm-bench's own tests read (section 4.6)
cat >"$work/legacy.json" <<'EOF'
{"tool": "fm-bench", "version": "0.5.2", "schemaVersion": "1", "reportId": "abcdef0123456789",
 "startedAt": "2026-06-01T10:00:00.000Z", "finishedAt": "2026-06-01T10:01:00.000Z",
 "options": {"profile": "quick", "runs": 3, "warmup": 0, "concurrency": 1, "sweepConcurrency": [],
             "stream": true, "greedy": true, "tags": [], "note": null},
 "environment": {"platform": "darwin", "arch": "arm64", "hwModel": "Mac15,3",
                 "macOS": "ProductName:\tmacOS\nProductVersion:\t26.0\nBuildVersion:\t25A"},
 "prompts": [{"id": "a", "promptTokens": 5}, {"id": "b", "promptTokens": 6}, {"id": "c", "promptTokens": 7}],
 "summary": [{"model": "system", "concurrency": 1, "available": true, "successes": 3, "failures": 0,
              "successRate": 1, "goodputRate": null, "ttft": {"p50": 210, "p95": 260},
              "latency": {"p50": 900, "p95": 1100, "cv": 0.1}, "tokensPerSecond": {"avg": 40}}],
 "results": []}
EOF
"$RL_BIN" import "$work/legacy.json" -o "$work/bl.json" >/dev/null; check "legacy minimal report: imported" 0 $?
valid "legacy bundle" "$work/bl.json"
json_check "legacy: 3 requests; partial blocks unavailable, saying what they give" "$work/bl.json" \
  'j["client"]["points"][0]["requests"]["measured"]==3 and j["client"]["points"][0]["metrics"]["ttft"]["reason"].startswith("fm-bench'"'"'s block (summary[0].ttft) gives p50, p95, not all of") and j["environment"]["os"]=="macOS 26.0"'
"$RL_BIN" report "$work/bl.json" -o "$work/bl.html" >/dev/null; check "legacy: report renders" 0 $?

# ---- without token counting, an unavailable model
gen --version 0.8.0 --no-tokens --unavailable-model pcc -o "$work/rt.json"
"$RL_BIN" import "$work/rt.json" -o "$work/bt.json" >/dev/null; check "no tokens: imported" 0 $?
valid "no-tokens bundle" "$work/bt.json"
json_check "no tokens: TPOT unavailable with fm-bench's reason; pcc skipped, not a point" "$work/bt.json" \
  'j["client"]["points"][0]["metrics"]["tpot"]["reason"]=="fm-bench: build exposes no token-counting command" and j["client"]["tokens"]["source"]=="none" and len(j["client"]["points"])==1 and [m["name"] for m in j["client"]["fm_models"] if m["skipped"]]==["pcc"]'

# ---- hostile reports: exit 2, one line naming the file and the field, nothing written
mut() { # name, python statement over r (the 0.8.0 report)
  python3 - "$work/r08.json" "$work/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(r) if not isinstance(r, str) else r)
PY
}
hostile() { # name, message regex
  bad "hostile $1" 2 "$2" "$work/$1.json" -o "$work/$1.out.json"
  [ ! -e "$work/$1.out.json" ] && echo "ok   hostile $1: nothing written" || fail "hostile $1: wrote a bundle"
}
head -c 700 "$work/r08.json" >"$work/trunc.json"
hostile trunc "^llama-roofline import: error: .*trunc.json: not an importable file: .*not valid JSON \(syntax error near byte [0-9]+: truncated\?\)$"
mut type 'r["summary"][0]["ttft"]["p50"] = "fast"'
hostile type "type.json: summary\[0\]\.ttft\.p50 is a string; expected a number from -1e\+12 to 1e\+12$"
mut neg 'r["summary"][1]["successes"] = -1'
hostile neg "neg.json: summary\[1\]\.successes is -1; expected a whole number from 0 to 200000000$"
mut sum 'r["summary"][0]["failures"] = 3'
hostile sum "sum.json: summary\[0\]\.successes \(6\) \+ failures \(3\) is not attempted \(6\)$"
mut huge 'r["prompts"] = [{"id": "p"}] * 10001'
hostile huge "huge.json: prompts has 10001 entries; expected at most 10000$"
mut nan 'r["results"][0]["durationMs"] = "NaN"'
hostile nan "nan.json: results\[0\]\.durationMs is a string; expected a number from 0 to 1e\+12$"
mut inf 'r["results"][2]["durationMs"] = 123456.789; r = json.dumps(r).replace("123456.789", "1e999")'
hostile inf "inf.json: results\[2\]\.durationMs is inf; expected a number from 0 to 1e\+12$"
mut schema 'r["schemaVersion"] = "2"'
hostile schema "schema.json: schemaVersion is \"2\"; this import reads fm-bench's report schema \"1\" \(fm-bench 0.7 and 0.8\) only$"
mut schemanum 'r["schemaVersion"] = 1'
hostile schemanum "schemanum.json: schemaVersion is 1; this import reads"
mut long 'r["summary"][0]["model"] = "m" * 300'
hostile long "long.json: summary\[0\]\.model is a string of 300 bytes; expected at most 256$"
mut nover 'del r["version"]'
hostile nover "nover.json: version is missing; expected an fm-bench version such as \"0.8.0\"$"
mut gaps 'r["results"][0]["chunkGapsMs"] = [1, -2]'
hostile gaps "gaps.json: results\[0\]\.chunkGapsMs\[1\] is -2; expected a number from 0 to 1e\+12$"
mut nosum 'del r["summary"]'
hostile nosum "nosum.json: summary is missing; expected an array of fm-bench summary rows$"
mut sweep 'r["options"]["sweepConcurrency"] = [1, 0]'
hostile sweep "sweep.json: options\.sweepConcurrency\[1\] is 0; expected a whole number from 1 to 4096$"
python3 -c 'import json; json.dump({"tool": "fm-bench", "version": "0.8.0", "summary": [{"model": "m%d" % i, "successes": 1, "failures": 0} for i in range(2000)], "results": [{"model": "m1", "ok": True}] * 2501}, open("'"$work"'/pairs.json", "w"))'
hostile pairs "pairs.json: 2000 summary rows and 2501 results are 5002000 row x run pairs; import reads at most 5000000$"
mut okmiss 'del r["results"][3]["ok"]'
hostile okmiss "okmiss.json: results\[3\]\.ok is missing; expected true or false$"

sweep_bundles
finish
