#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `validate`. Every shipped example bundle and report, every report fixture, and a bundle
# and report written now by `run` (fake llama-bench) and `import` are valid (exit 0, one
# "valid" line each); a bundle broken in two places exits 1 with one
# "FILE: PATH: message" line per problem naming the JSON path, then its summary; a control
# character in a path is escaped; a truncated JSON, a foreign JSON and a missing file exit 2
# with one line on stderr and nothing on stdout. Every check asserts the binary's exit status.
# Checked to fail: with cmd_validate returning RL_OK when a file has problems (the broken
# bundle: exit 0), and with the sample mean check removed (no stats.mean line).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-validate.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=validate

# ---- help and usage errors
out=$("$RL_BIN" validate --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline validate \[--json\] FILE"
bad "no input" 2 "no input: give the bundles or reports" 
bad "unknown option" 2 "unrecognized option|unknown option" --frobnicate "$RL_SRC/examples/x86-i7-12700H/bundle.json"

# ---- everything the tool shipped is valid
files=("$RL_SRC"/examples/*/bundle.json "$RL_SRC"/examples/*/report.html "$RL_SRC"/tests/fixtures/report/*.json)
for f in "${files[@]}"; do
  out=$("$RL_BIN" validate "$f" 2>&1); check "valid: ${f#"$RL_SRC"/}" 0 $?
  expect "valid line: ${f#"$RL_SRC"/}" "$out" "^$f: valid$"
done
out=$("$RL_BIN" validate "${files[@]}"); check "all at once" 0 $?
[ "$(wc -l <<<"$out")" = "${#files[@]}" ] && echo "ok   one line per file" || fail "one line per file: $out"

# ---- bundles and reports written now: run (fake llama-bench, two depths) and import
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
"$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -m "$work/b.gguf" -t 1,2 \
  --depth 0,512 -o "$work/run" >/dev/null 2>&1; check "run with the fake llama-bench" 0 $?
out=$("$RL_BIN" validate "$work/run/bundle.json" "$work/run/report.html"); check "run's bundle and report valid" 0 $?
"$RL_BIN" import "$RL_SRC/tests/fixtures/lbench/real-json.txt" -o "$work/imp.json" >/dev/null; check "import" 0 $?
out=$("$RL_BIN" validate "$work/imp.json"); check "imported bundle valid" 0 $?
expect "imported: valid line" "$out" "imp.json: valid$"

# ---- a broken bundle: a sample changed (the mean disagrees) and a duplicate model id
python3 - "$RL_SRC/examples/synth-amd-epyc/bundle.json" "$work/broken.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["models"][1]["runs"][0]["decode"]["samples"][1] *= 1.2
j["models"][2]["id"] = "m1"
j["analysis"]["models"][2]["id"] = "m1"
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
out=$("$RL_BIN" validate "$RL_SRC/examples/x86-i7-12700H/bundle.json" "$work/broken.json" 2>"$work/err"); check "broken bundle" 1 $?
expect "the mean's path" "$out" "^$work/broken.json: models\[1\]\.runs\[0\]\.decode\.stats\.mean: stats\.mean is not the mean of the samples"
expect "the duplicate id's path" "$out" "^$work/broken.json: models\[2\]\.id: duplicate model id \"m1\""
expect "the valid one still says so" "$out" "bundle.json: valid$"
expect "summary" "$out" "^$work/broken.json: [0-9]+ problems$"
[ -s "$work/err" ] && fail "broken bundle: stderr not empty: $(cat "$work/err")" || echo "ok   nothing on stderr"

# ---- a bundle with exactly one problem: exit 1, its line, "1 problem"
python3 - "$RL_SRC/examples/synth-amd-epyc/bundle.json" "$work/one.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
st = j["models"][2]["runs"][0]["prefill"]["stats"]
st["min"] *= 0.99
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
out=$("$RL_BIN" validate "$work/one.json"); check "one problem" 1 $?
expect "one problem: its path" "$out" "^$work/one.json: models\[2\]\.runs\[0\]\.prefill\.stats\.min: stats\.min is not the smallest sample"
expect "one problem: summary" "$out" "^$work/one.json: 1 problem$"
[ "$(wc -l <<<"$out")" = 2 ] && echo "ok   one problem: two lines" || fail "one problem: $out"

# a control character in a reported path (a key of the bundle) is escaped
python3 - "$work/broken.json" "$work/esc.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["models"][2]["id"] = "m3"
j["analysis"]["models"][2]["id"] = "m3"
j["models"][1]["runs"][0]["decode"]["samples"][1] /= 1.2
j["membw"]["x\x1b[31mred"] = {"GBs": 1}
j["membw"].pop("kind")
json.dump(j, open(sys.argv[2], "w"), indent=1)
PY
out=$("$RL_BIN" validate "$work/esc.json"); check "escaped bundle" 1 $?
grep -q $'\x1b' <<<"$out" && fail "raw ESC in the output" || echo "ok   no raw ESC"
expect "membw without kind" "$out" "esc.json: membw.kind: carries numbers"

# ---- unreadable or foreign input: exit 2, one line
head -c 300 "$RL_SRC/examples/synth-amd-epyc/bundle.json" >"$work/trunc.json"
crafted "$work/trunc.json" # broken on purpose: not swept by finish
bad "truncated JSON" 2 "trunc.json" "$work/trunc.json"
echo '{"hello": 1}' >"$work/foreign.json"
bad "foreign JSON" 2 "foreign.json: not a llama-roofline bundle" "$work/foreign.json"
bad "missing file" 2 "nope.json" "$work/nope.json"
# JSON two readers take two ways (found by the adversarial pass: both were "valid"): a key twice
# in one object (cJSON reads the first, Python the last) and a number beyond a double (1e400)
ex="$RL_SRC/examples/synth-amd-epyc/bundle.json"
python3 - "$ex" "$work/dupkey.json" "$work/big.json" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r'"schema_version":(\s*)2', r'"schema_version":\g<1>2, "schema_version": 99', s, count=1))
open(sys.argv[3], "w").write(re.sub(r'"peak_read_GBs":(\s*)[0-9.]+', r'"peak_read_GBs":\g<1>1e400', s, count=1))
PY
crafted "$work/dupkey.json" "$work/big.json"
bad "a key twice" 2 'dupkey.json: not valid JSON for this tool \(the key "schema_version" twice in one object\)' "$work/dupkey.json"
bad "1e400" 2 "big.json: not valid JSON for this tool \(a number too large for a double\)" "$work/big.json"
CMD=report bad "report of a key twice" 2 'dupkey.json: not valid JSON for this tool' "$work/dupkey.json" -o "$work/dup.html"
CMD=compare bad "compare of 1e400" 2 'big.json: not valid JSON for this tool' "$work/big.json" "$ex"
finish
