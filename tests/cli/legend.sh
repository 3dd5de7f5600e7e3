#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `legend`. docs/BUNDLE.md's Metrics section (between <!-- legend:begin --> and
# <!-- legend:end -->) is byte for byte `legend --markdown`, so the docs cannot drift from
# src/legend.c; `--json` parses, has every field, every kind is one of the four and every path
# is unique; every path marked always exists in every example bundle, and every path (optional
# ones included) exists in an example, in a bundle `run` writes now with a depth above 0, in
# one `advise --measure` writes, in one `diagnose --predict` writes or in one `calibrate`
# writes (so no row names a key
# nothing writes; bundles only other commands make, such as the client fixture, are listed in
# $extra); the text table has a header and one line per row; a bad option, an operand and
# --json with --markdown exit 2 with one line on stderr. Checked to fail: with a row's path
# misspelt in src/legend.c (the path check) and with docs/BUNDLE.md edited by hand (the
# byte-for-byte check).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-legend.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=legend

# ---- help and usage errors
out=$("$RL_BIN" legend --help); check "--help" 0 $?
expect "--help text" "$out" "usage: llama-roofline legend \[--json \| --markdown\]"
bad "unknown option" 2 "unknown option '--frobnicate'" --frobnicate
bad "an operand" 2 "legend takes no operands" bundle.json
bad "--json with --markdown" 2 "exclude each other" --json --markdown

# ---- the docs hold exactly the --markdown output
"$RL_BIN" legend --markdown >"$work/md"; check "--markdown" 0 $?
sed -n '/^<!-- legend:begin -->$/,/^<!-- legend:end -->$/p' "$RL_SRC/docs/BUNDLE.md" |
  sed '1d;$d' >"$work/doc"
[ "$(grep -c '^<!-- legend:begin -->$' "$RL_SRC/docs/BUNDLE.md")" = 1 ] &&
  [ "$(grep -c '^<!-- legend:end -->$' "$RL_SRC/docs/BUNDLE.md")" = 1 ] &&
  echo "ok   one pair of markers" || fail "docs/BUNDLE.md: not exactly one pair of legend markers"
if cmp -s "$work/md" "$work/doc"; then
  echo "ok   docs/BUNDLE.md Metrics == legend --markdown"
else
  fail "docs/BUNDLE.md Metrics differs from legend --markdown: $(diff "$work/doc" "$work/md" | head -20)"
fi

# ---- --json: parses, fields, kinds, unique paths, same rows as the Markdown
"$RL_BIN" legend --json >"$work/legend.json"; check "--json" 0 $?
json_check "--json is a non-empty array" "$work/legend.json" 'isinstance(j, list) and len(j) > 0'
json_check "every row has its fields" "$work/legend.json" \
  'all(set(r) == {"path","name","unit","kind","optional","definition"} and all(isinstance(r[k], str) and r[k] and "|" not in r[k] and "\n" not in r[k] for k in ("path","name","unit","kind","definition")) and isinstance(r["optional"], bool) for r in j)'
json_check "every kind is one of the four" "$work/legend.json" \
  'all(r["kind"] in ("measured","proxy","derived","controlled") for r in j)'
json_check "paths unique" "$work/legend.json" 'len({r["path"] for r in j}) == len(j)'
rows=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/legend.json")
[ "$(wc -l <"$work/md")" = $((rows + 2)) ] && echo "ok   markdown: header + one line per row" ||
  fail "markdown has $(wc -l <"$work/md") lines for $rows rows"

# ---- text: a header and one aligned line per row
out=$("$RL_BIN" legend); check "text" 0 $?
expect "text header" "$out" "^PATH +UNIT +KIND +PRESENT +DEFINITION$"
[ "$(wc -l <<<"$out")" = $((rows + 1)) ] && echo "ok   text: one line per row" ||
  fail "text has $(wc -l <<<"$out") lines for $rows rows"
expect "text row" "$out" "^models\[\]\.runs\[\]\.decode +tok/s +measured +always +decode rate: "

# ---- paths exist: always-rows in every example, every row somewhere
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth a"
"$RL_BIN" synth --preset tiny --type Q4_0 -q -o "$work/b.gguf" || fail "synth b"
FAKE_DEPTH_US=2 "$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/a.gguf" -m "$work/b.gguf" -t 1,2 \
  --depth 0,512,2048 -o "$work/run" >/dev/null 2>&1; check "run with the fake llama-bench" 0 $?
# advice rows exist only in advise bundles: two files streaming the same bytes and one more
"$RL_BIN" synth --preset tiny --type Q4_0 --seed 2 -q -o "$work/c.gguf" || fail "synth c"
"$RL_BIN" advise --measure --llama-bench "$FAKE" -m "$work/a.gguf" -m "$work/b.gguf" \
  -m "$work/c.gguf" -t 1 --dir "$work/advise" >/dev/null 2>&1; check "advise --measure (fake)" 0 $?
# diagnose --predict writes bundle.predictions (its own cache root: last-bundle stays alone)
LLAMA_ROOFLINE_CACHE="$work/cache" "$RL_BIN" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1,2 \
  --predict synth:tiny:Q8_0 -o "$work/diag" "$work/a.gguf" "$work/b.gguf" >/dev/null 2>&1
check "diagnose --predict with the fake llama-bench" 0 $?
# calibrate writes bundle.calibration (the fake's rates follow each model's bytes, layers and, from
# DRAM, its matrices: 2 us each, so the per-matrix split is there)
FAKE_CALIB=20:5:40:25:10000000:2 LLAMA_ROOFLINE_CACHE="$work/cache" "$RL_BIN" calibrate \
  --llama-bench "$FAKE" --types Q4_0 -t 1 --llc-mib 2 -o "$work/cal" >/dev/null 2>&1
check "calibrate with the fake llama-bench" 0 $?
# without --llc-mib: the cache probe of the detected LLC (calibration.method.cache_probe)
FAKE_CALIB=20:5:40:25:10000000 LLAMA_ROOFLINE_CACHE="$work/cache-probe" "$RL_BIN" calibrate \
  --llama-bench "$FAKE" --types Q8_0 -t 1 -o "$work/cal-probe" >/dev/null 2>&1
check "calibrate with the cache probe" 0 $?
# advise --measure --predict: predicted advice rows (two_roof), from the cached Q4_0 and Q8_0
FAKE_CALIB=20:5:40:25:10000000 LLAMA_ROOFLINE_CACHE="$work/cache" LLAMA_ROOFLINE_CALIB_LLC_MIB=2 \
  "$RL_BIN" advise --measure --predict --llama-bench "$FAKE" -m "$work/a.gguf" -m "$work/b.gguf" \
  -t 1 --dir "$work/advise-p" >/dev/null 2>&1; check "advise --measure --predict (fake)" 0 $?
# a disturbed run (analysis.disturbance's fields): the run's runs given loaded "machine"
# objects by hand, re-analysed by --resume
cp -r "$work/run" "$work/dist"
python3 - "$work/dist/bundle.json" <<'PY' || fail "machine objects"
import json, sys
b = json.load(open(sys.argv[1]))
for m in b["models"]:
    for r in m["runs"]:
        r["machine"] = {"kind": "measured", "interval_s": 2.0, "cpus": 2, "other_cpu_pct": 88.0,
                        "steal_pct": 0.0, "disturbed": True,
                        "why": "other processes used 88% of the CPUs"}
b["status"] = {"state": "interrupted"}
json.dump(b, open(sys.argv[1], "w"))
PY
"$RL_BIN" run --resume --llama-bench "$FAKE" -o "$work/dist" >/dev/null 2>&1; check "resume a disturbed run" 0 $?
# a client bundle with its analysis and a measured server (this test's shell, named; the
# real /proc, where its stat is)
env -u LLAMA_ROOFLINE_PROC_ROOT "$RL_BIN" client --cmd "$(dirname "$RL_BIN")/fake-stream 5 hi" \
  --warmup 0 --server-pid $$ --json "$work/client.json" >/dev/null 2>&1
check "client --server-pid (this shell)" 0 $?
# Bundles of commands `run` cannot make (their paths count as existing): a ':' list.
# (tests/fixtures/bracket: a `run` of three models with the bracketing probes, as
# tests/cli/bracket.sh makes; the run above gives --peak-bw and takes none)
extra="$RL_SRC/tests/fixtures/client/bundle.json:$RL_SRC/tests/fixtures/bracket/bundle.json:$work/advise/bundle.json:$work/diag/bundle.json:$work/dist/bundle.json:$work/client.json:$work/cal/bundle.json:$work/cal-probe/bundle.json:$work/advise-p/bundle.json"
out=$(RL_LEGEND_EXTRA="$extra" python3 - "$work/legend.json" "$work/run/bundle.json" "$RL_SRC"/examples/*/bundle.json <<'PY'
import json, os, sys
legend = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
extra = [json.load(open(p)) for p in os.environ["RL_LEGEND_EXTRA"].split(":") if p]
examples = {p: json.load(open(p)) for p in sys.argv[3:]}
def exists(o, parts):
    if not parts:
        return True
    p = parts[0]
    arr = p.endswith("[]")
    k = p[:-2] if arr else p
    if not isinstance(o, dict) or k not in o:
        return False
    v = o[k]
    if arr:
        return isinstance(v, list) and any(exists(e, parts[1:]) for e in v)
    return exists(v, parts[1:])
bad = 0
for r in legend:
    parts = r["path"].split(".")
    if not r["optional"]:
        for p, b in examples.items():
            if not exists(b, parts):
                print("always-row %s missing from %s" % (r["path"], p)); bad += 1
    if not any(exists(b, parts) for b in list(examples.values()) + [run] + extra):
        print("%s exists in no example and not in a run, client, advise, diagnose --predict or calibrate bundle" % r["path"]); bad += 1
print("%d examples, %d rows, %d bad" % (len(examples), len(legend), bad))
sys.exit(1 if bad else 0)
PY
); check "every legend path exists ($out)" 0 $?

finish
