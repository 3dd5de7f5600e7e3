#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `predict` and `diagnose --predict` (no llama.cpp: the fake llama-bench).
#   - against the Raspberry Pi 5 example (fit 10.69 GB/s, resident bytes that were file sizes):
#     synth:qwen2.5-0.5b:Q4_0 predicts exactly bw_bytes_s / file bytes, the interval from the
#     fitted models' own effective bandwidths, depth 4096 adds 4096 x 12288 KV bytes; --preset
#     with --type gives the same objects; --markdown and text carry the numbers and caveats;
#   - no bundle recorded: one line telling to run diagnose or pass --bundle, exit 2; a bundle
#     without a fit, a bad preset, --preset without --type, nothing to predict: exit 2, one line;
#   - diagnose --predict: bundle.predictions (valid, schema too), the report's "What to expect"
#     table with the predicted row, and last-bundle recorded so predict works without --bundle;
#   - run -m URL and diagnose URL are refused in one line before anything runs; inspect of a URL
#     whose port is closed: one line naming the URL, exit 2.
# Checked to fail: with the interval taken from the fit alone (tok_s_low == tok_s) and with
# rl_pred_after_diagnose not recording the last bundle (predict without --bundle: exit 2).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-predict.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=predict
export LLAMA_ROOFLINE_CACHE="$work/cache"
PI="$RL_SRC/examples/rpi5-cortex-a76/bundle.json"

out=$("$RL_BIN" predict --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline predict \[options\] MODEL"
bad "no bundle recorded" 2 "no bundle to predict from: run \`llama-roofline diagnose\` on this machine first, or pass --bundle BUNDLE" synth:tiny:Q8_0
bad "nothing to predict" 2 "nothing to predict" --bundle "$PI"
bad "--preset without --type" 2 "--preset needs --type" --bundle "$PI" --preset tiny
bad "bad depth" 2 "--depth" --bundle "$PI" --depth 0,-1 synth:tiny:Q8_0
bad "unknown preset" 2 "no synth preset 'nope'" --bundle "$PI" synth:nope:Q8_0
bad "missing file" 2 "no-such.gguf" --bundle "$PI" "$work/no-such.gguf"

# ---- the Pi 5 fit: the numbers by hand
"$RL_BIN" predict --bundle "$PI" --json --depth 0,4096 synth:qwen2.5-0.5b:Q4_0 >"$work/p.json"
check "predict synth:qwen2.5-0.5b:Q4_0 --json" 0 $?
python3 - "$PI" "$work/p.json" <<'PY' && echo "ok   tok/s = bw / file bytes, interval, depth" || fail "Pi 5 arithmetic"
import json, sys
b, p = (json.load(open(f)) for f in sys.argv[1:])
fit = b["analysis"]["fit"]
bws = [m["decode_bw_GBs"] * 1e9 for m in b["analysis"]["models"] if m.get("in_fit")]
lo, hi = min(min(bws), fit["bw_bytes_s"]), max(max(bws), fit["bw_bytes_s"])
q = p["predictions"][0]
assert p["kind"] == "derived" and q["kind"] == "derived"
assert q["bytes_convention"] == "resident" and q["bytes_source"] == "file_bytes"
assert q["kv_bytes_per_token"] == 12288
w = q["weights_bytes"]
p0, p1 = q["points"]
assert p0["depth"] == 0 and p0["bytes_per_token"] == w
assert abs(p0["tok_s"] - fit["bw_bytes_s"] / w) < 1e-9
assert abs(p0["tok_s_low"] - lo / w) < 1e-9 and abs(p0["tok_s_high"] - hi / w) < 1e-9
assert p1["depth"] == 4096 and p1["bytes_per_token"] == w + 4096 * 12288
assert abs(p1["tok_s"] - fit["bw_bytes_s"] / (w + 4096 * 12288)) < 1e-9
assert p0["tok_s_low"] < p0["tok_s"] < p0["tok_s_high"]
assert [c["code"] for c in q["caveats"]] == ["other_format", "depth_bytes_only"], q["caveats"]
assert abs(p["fit"]["bw_GBs"] - 10.691668654986726) < 1e-12 and p["fit"]["threads"] == [2, 3, 4]
PY
"$RL_BIN" predict --bundle "$PI" --json --preset qwen2.5-0.5b --type Q4_0 --depth 4096,0 >"$work/p2.json"
check "--preset --type" 0 $?
json_check "--preset gives the same prediction" "$work/p2.json" \
  "j['predictions'] == json.load(open('$work/p.json'))['predictions']"
out=$("$RL_BIN" predict --bundle "$PI" -t 1 synth:qwen2.5-0.5b:Q4_0 synth:tiny-moe:F16); check "text, two models" 0 $?
expect "text header" "$out" "^Predicted decode \(kind: derived\) on the machine of "
expect "text row" "$out" "^ +0 +358 MB +29\.9 +28\.3 to 33\.6$"
expect "threads caveat" "$out" "caveat \(threads\): The fitted models ran best at 2, 3, 4 threads; at 1 threads"
expect "moe caveat" "$out" "caveat \(moe\): A mixture of experts with the resident convention"
expect "small-model caveat" "$out" "caveat \(below_fit_range\)"
out=$("$RL_BIN" predict --bundle "$PI" --markdown synth:qwen2.5-0.5b:Q4_0); check "--markdown" 0 $?
expect "markdown table" "$out" "^\| synth qwen2\.5-0\.5b Q4\\\\_0 \| 0 \| 358 MB \| 29\.9 \| 28\.3 to 33\.6 \| at 10\.69 GB/s: the fit over all 7 models \(no fitted model is Q4\\\\_0\) \|$"
# a model name (general.name) with a | in it: escaped, so the table keeps its six cells
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/pipe.gguf" || fail "synth pipe"
python3 - "$work/pipe.gguf" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert d.count(b"synth tiny") == 1
open(sys.argv[1], "wb").write(d.replace(b"synth tiny", b"synth|tiny"))
PY
out=$("$RL_BIN" predict --bundle "$PI" --markdown "$work/pipe.gguf"); check "--markdown, a | in the name" 0 $?
expect "markdown: the | escaped" "$out" "^\| synth\\\\\|tiny Q8\\\\_0 \| 0 \| 3\.1 MB \| "

# ---- same format first: the Pi's one fitted Q8_0 model (m7) sets a Q8_0 model's rate, its
# interval the fit's scaled to that rate; the five Q4_K_M models set a Q4_K_M's, their own
# smallest and largest bandwidth the interval (the through-origin fit restricted to them)
"$RL_BIN" predict --bundle "$PI" --json synth:qwen2.5-0.5b:Q8_0 >"$work/p8.json"
check "predict a Q8_0 on the Pi" 0 $?
python3 - "$PI" "$work/p8.json" <<'PY' && echo "ok   same-format rate: Q8_0 from the one fitted Q8_0" || fail "same-format rate"
import json, sys
b, p = (json.load(open(f)) for f in sys.argv[1:])
fit = b["analysis"]["fit"]
labels = {m["id"]: m["gguf"]["label"] for m in b["models"]}
ins = [m for m in b["analysis"]["models"] if m.get("in_fit")]
q8 = [m for m in ins if labels[m["id"]] == "Q8_0"]
assert len(q8) == 1
bw = q8[0]["decode_bw_GBs"] * 1e9
bws = [m["decode_bw_GBs"] * 1e9 for m in ins]
lo = min(min(bws), fit["bw_bytes_s"]) / fit["bw_bytes_s"] * bw
hi = max(max(bws), fit["bw_bytes_s"]) / fit["bw_bytes_s"] * bw
q = p["predictions"][0]
r = q["rate"]
assert r["source"] == "format" and r["n_models"] == 1, r
assert abs(r["bw_GBs"] * 1e9 - bw) < 1e-3 and abs(r["bw_low_GBs"] * 1e9 - lo) < 1e-3 and abs(r["bw_high_GBs"] * 1e9 - hi) < 1e-3, r
w = q["weights_bytes"]
pt = q["points"][0]
assert abs(pt["tok_s"] - bw / w) < 1e-9 and abs(pt["tok_s_low"] - lo / w) < 1e-9 and abs(pt["tok_s_high"] - hi / w) < 1e-9, pt
assert "other_format" not in [c["code"] for c in q["caveats"]], q["caveats"]
PY
out=$("$RL_BIN" predict --bundle "$PI" synth:qwen2.5-0.5b:Q8_0); check "Q8_0 text" 0 $?
expect "rate line" "$out" "^  at 10\.14 GB/s: the fitted Q8_0 model alone \(same format\), interval 9\.61 to 11\.40 GB/s$"

# ---- a bundle without a fit (one model)
python3 - "$PI" "$work/nofit.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["analysis"]["fit"] = {"available": False, "reason": "only one model: a single point, no line"}
json.dump(b, open(sys.argv[2], "w"))
PY
bad "no fit" 2 "nofit.json: the bundle has no fit to predict from \(only one model" --bundle "$work/nofit.json" synth:tiny:Q8_0

# ---- diagnose --predict (fake llama-bench), then predict from the recorded bundle
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
CMD=diagnose
bad "diagnose: bad --predict before measuring" 2 "--predict: no synth preset 'nope'" \
  --llama-bench "$FAKE" --peak-bw 40 -o "$work/x" --predict synth:nope:F16 "$work/a.gguf"
bad "diagnose refuses a URL" 2 "^llama-roofline diagnose: error: http://127.0.0.1:9/m.gguf: a model given by URL can only be inspected or predicted" \
  --llama-bench "$FAKE" -o "$work/x" "http://127.0.0.1:9/m.gguf"
CMD=run
bad "run refuses a URL" 2 "^llama-roofline run: error: -m: http://127.0.0.1:9/m.gguf: a model given by URL" \
  --llama-bench "$FAKE" -m "http://127.0.0.1:9/m.gguf"
CMD=inspect
bad "inspect: closed port" 2 "^llama-roofline inspect: error: http://127.0.0.1:9/m.gguf: cannot fetch" "http://127.0.0.1:9/m.gguf"
"$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1,2 -o "$work/diag" \
  --predict synth:qwen2.5-1.5b:Q8_0 --predict synth:tiny:F16 "$work/a.gguf" "$work/b.gguf" >/dev/null 2>"$work/diag.err"
check "diagnose --predict" 0 $?
json_check "bundle.predictions" "$work/diag/bundle.json" \
  "j['predictions']['kind'] == 'derived' and [m['model'] for m in j['predictions']['models']] == ['synth:qwen2.5-1.5b:Q8_0', 'synth:tiny:F16'] and abs(j['predictions']['fit']['bw_GBs'] - j['analysis']['fit']['bw_GBs']) < 1e-12"
"$RL_BIN" validate "$work/diag/bundle.json" "$work/diag/report.html" >/dev/null; check "validate" 0 $?
json_check "rates: the Q8_0 from the fitted Q8_0, the F16 from the fit" "$work/diag/bundle.json" \
  "[(m['rate']['source'], m['rate']['n_models']) for m in j['predictions']['models']] == [('format', 1), ('fit', 2)]"
python3 - "$work/diag/bundle.json" "$work/badrate.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["predictions"]["models"][0]["rate"]["bw_GBs"] *= 1.5
json.dump(b, open(sys.argv[2], "w"))
PY
crafted "$work/badrate.json" # invalid by design: not swept by finish
out=$("$RL_BIN" validate "$work/badrate.json" 2>&1); check "validate: a rate that is not the points' divisor" 1 $?
expect "validate names the point" "$out" "predictions\.models\[0\]\.points\[0\]\.tok_s: is not the rate's bw_GBs"
# a self-consistent prediction from the wrong bandwidth: the Q8_0 divided into the all-model fit
python3 - "$work/diag/bundle.json" "$work/wrongsrc.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
m = b["predictions"]["models"][0]
bw = b["predictions"]["fit"]["bw_GBs"]
m["rate"].update(source="fit", bw_GBs=bw, bw_low_GBs=bw * 0.9, bw_high_GBs=bw * 1.1)
for pt in m["points"]:
    pt["tok_s"] = bw * 1e9 / pt["bytes_per_token"]
    pt["tok_s_low"], pt["tok_s_high"] = pt["tok_s"] * 0.9, pt["tok_s"] * 1.1
json.dump(b, open(sys.argv[2], "w"))
PY
crafted "$work/wrongsrc.json" # invalid by design: not swept by finish
out=$("$RL_BIN" validate "$work/wrongsrc.json" 2>&1); check "validate: a rate from the wrong source" 1 $?
expect "validate names the source" "$out" "predictions\.models\[0\]\.rate\.source: is \"fit\", but the analysis's fitted models make it \"format\""
python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
  "$work/diag/bundle.json" "$RL_SRC/schema/bundle.schema.json" && echo "ok   schema" || fail "schema"
grep -q '<h2 id="h-what-to-expect">What to expect</h2>' "$work/diag/report.html" && echo "ok   report section" || fail "no What to expect"
grep -q 'predicted (diagnose --predict): synth:qwen2.5-1.5b:Q8_0' "$work/diag/report.html" && echo "ok   report: predicted row" || fail "no predicted row"
grep -q 'measured, in the fit' "$work/diag/report.html" && echo "ok   report: measured rows" || fail "no measured rows"
"$RL_BIN" report --markdown "$work/diag/bundle.json" >"$work/diag.md"; check "report --markdown" 0 $?
md_row=$(python3 - "$work/diag/bundle.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["predictions"]["models"][0]
pt = m["points"][0]
def f(v):  # the report's numbers: 3 significant figures
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
print(f"| synth qwen2\\.5-1\\.5b Q8\\\\_0 \\| {f(pt['bytes_per_token'] / 1e6)} \\| {f(pt['tok_s'])} \\| "
      f"{f(pt['tok_s_low'])} to {f(pt['tok_s_high'])} \\| {f(m['rate']['bw_GBs'])} GB/s, the fitted models of its format \\|")
PY
)
expect "report --markdown: What to expect" "$(cat "$work/diag.md")" "^\*\*What to expect\*\*"
expect "report --markdown: the predicted row" "$(cat "$work/diag.md")" "^$md_row$"
[ "$(cat "$work/cache/last-bundle")" = "$(realpath "$work/diag/bundle.json")" ] && echo "ok   last-bundle recorded" || fail "last-bundle: $(cat "$work/cache/last-bundle" 2>&1)"
"$RL_BIN" predict synth:qwen2.5-1.5b:Q8_0 --json >"$work/rec.json"; check "predict without --bundle" 0 $?
python3 - "$work/diag/bundle.json" "$work/rec.json" "$(realpath "$work/diag/bundle.json")" <<'PY' && echo "ok   predict from the recorded bundle equals diagnose's" || fail "recorded bundle prediction differs"
import json, sys
b, p = (json.load(open(f)) for f in sys.argv[1:3])
assert p["bundle"] == sys.argv[3], p["bundle"]
x, y = p["predictions"][0]["points"][0], b["predictions"]["models"][0]["points"][0]
assert x["bytes_per_token"] == y["bytes_per_token"]
assert all(abs(x[k] - y[k]) <= 1e-12 * y[k] for k in ("tok_s", "tok_s_low", "tok_s_high")), (x, y)
PY
# the recorded bundle moved away: one line naming it and what to do, exit 2
mv "$work/diag/bundle.json" "$work/diag/moved.json"
CMD=predict
bad "the recorded bundle is gone" 2 "error: the last bundle diagnose wrote here, .*diag/bundle.json, is gone: run \`llama-roofline diagnose\` again, or pass --bundle BUNDLE$" synth:tiny:Q8_0
mv "$work/diag/moved.json" "$work/diag/bundle.json"

# ---- the depth fit (issue 22, part 3): the fake's decode slows by exactly 2 us per token of
# depth, so each model's fit is tau0 + 2 x depth, its KV byte costs 2 / 2048 us (tiny: 2048 KV
# bytes per token), and predict adds 4096 x 2048 x 2 / 2048 = 8192 us to a depth-0 time
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/dq4.gguf" || fail "synth dq4"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/dq8.gguf" || fail "synth dq8"
FAKE_DEPTH_US=2 "$RL_BIN" run --llama-bench "$RL_SRC/tests/lib/fake-llama-bench" --peak-bw 40 -t 1 \
  --depth 0,512,2048 -m "$work/dq4.gguf" -m "$work/dq8.gguf" -o "$work/depth" >/dev/null 2>&1
check "run at three depths" 0 $?
json_check "analysis.depth_fits: 2 us per token, 2/2048 us per KV byte, the deepest checked" \
  "$work/depth/bundle.json" \
  'len(j["analysis"]["depth_fits"])==2 and all(abs(d["slope_us_per_token"]-2)<1e-9 and abs(d["us_per_kv_byte"]-2/2048)<1e-12 and d["n_points"]==3 and d["check"]["depth"]==2048 and d["check"]["from_max_depth"]==512 and abs(d["check"]["error_pct"])<1e-9 and abs(1e6/d["tau0_us"]-[m for m in j["analysis"]["models"] if m["id"]==d["model"]][0]["operating_point"]["decode_tok_s"])<1e-6 for d in j["analysis"]["depth_fits"])'
out=$("$RL_BIN" validate "$work/depth/bundle.json" 2>&1); check "depth bundle validates ($out)" 0 $?
python3 - "$RL_SRC/schema/bundle.schema.json" "$work/depth/bundle.json" <<'PY'
import json, sys, jsonschema
jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
PY
check "depth bundle: the JSON schema" 0 $?
# validate recomputes each depth fit from the long-context rows
python3 - "$work/depth/bundle.json" "$work/depth-bad.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
d = b["analysis"]["depth_fits"]
d[0]["slope_us_per_token"] = 2.5
d[1]["us_per_kv_byte"] = 1
d[1]["check"]["error_pct"] = 3
json.dump(b, open(sys.argv[2], "w"))
PY
crafted "$work/depth-bad.json"
out=$("$RL_BIN" validate "$work/depth-bad.json" 2>&1); check "validate: tampered depth fits" 1 $?
expect "validate: the slope" "$out" "analysis\.depth_fits\[0\]\.slope_us_per_token: not what the long-context rows give \(2\)"
expect "validate: the KV cost" "$out" "analysis\.depth_fits\[1\]\.us_per_kv_byte: not slope_us_per_token / 2048 KV bytes"
expect "validate: the check's error" "$out" "analysis\.depth_fits\[1\]\.check\.error_pct: not 100 x \(predicted - measured\) / measured \(0\)"
"$RL_BIN" predict --bundle "$work/depth/bundle.json" --json --depth 0,4096 "$work/dq4.gguf" >"$work/dp.json"
check "predict from depth fits" 0 $?
json_check "the depth fit: 1e6 / (1e6 / tok_s(0) + 8192); none at depth 0" "$work/dp.json" \
  '(lambda p: "depth_fit" not in p[0] and abs(p[1]["depth_fit"]["tok_s"]-1e6/(1e6/p[0]["tok_s"]+8192))<1e-9 and p[1]["depth_fit"]["kind"]=="derived")(j["predictions"][0]["points"]) and [c["code"] for c in j["predictions"][0]["caveats"]].count("depth_fit")==1'
out=$("$RL_BIN" predict --bundle "$work/depth/bundle.json" --depth 0,4096 "$work/dq4.gguf")
expect "text: the depth fit beside the bytes-only rate" "$out" "^ +4096 +10 MB +[0-9]+ +[0-9]+ to [0-9]+  \(depth fit: [0-9]+\)$"
"$RL_BIN" predict --bundle "$PI" --json --depth 4096 synth:tiny:Q4_0 >"$work/dp2.json"
json_check "no depth fit in the bundle: unavailable, bytes-only caveat" "$work/dp2.json" \
  'j["predictions"][0]["points"][0]["depth_fit"]["available"] is False and "depth_bytes_only" in [c["code"] for c in j["predictions"][0]["caveats"]]'
finish
