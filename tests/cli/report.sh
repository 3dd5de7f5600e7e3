#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `report`. A bundle and the report made from it give the same page byte for byte; the
# page goes beside the input by default, to -o FILE or to stdout with -o -; --markdown and --png
# (a whole PNG, as wide and high as the titled chart);
# bad inputs (truncated JSON, a foreign JSON, an HTML page without an embedded bundle, a missing
# file, no or two operands, an unknown option, -o naming the bundle) exit 2 with one line and
# nothing on stdout; an output that cannot be written exits 4; `run` writes report.html beside
# bundle.json, the same page `report` makes from that bundle.
# Checked to fail: with the embedded JSON's "</" left unescaped (the page read back is another
# bundle: the same-bytes check fails) and with -o ignored (the -o checks fail).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-report.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
CMD=report
fx="$RL_SRC/tests/fixtures/report"
cp "$fx/memory-bound.json" "$work/bundle.json"

# ---- from a bundle, from a report
out=$("$RL_BIN" report "$work/bundle.json" 2>"$work/err"); check "bundle -> beside it" 0 $?
expect "prints the path" "$out" "^wrote $work/report.html$"
[ -s "$work/report.html" ] && echo "ok   report.html written" || fail "report.html missing"
"$RL_BIN" report "$work/report.html" -o "$work/again.html" >/dev/null 2>&1; check "report -> report" 0 $?
cmp -s "$work/report.html" "$work/again.html" && echo "ok   from the report: same bytes" || fail "from the report: bytes differ"
cp "$work/report.html" "$work/copy.html"
"$RL_BIN" report "$work/copy.html" >/dev/null 2>&1; check "report in place" 0 $?
cmp -s "$work/report.html" "$work/copy.html" && echo "ok   re-rendered in place: same bytes" || fail "in place: bytes differ"
cp "$work/report.html" "$work/COPY.HTML"
"$RL_BIN" report "$work/COPY.HTML" -o "$work/COPY.HTML" >/dev/null 2>&1; check "report X.HTML -o X.HTML (the suffix in any case)" 0 $?
cmp -s "$work/report.html" "$work/COPY.HTML" && echo "ok   .HTML re-rendered in place: same bytes" || fail ".HTML in place: bytes differ"
"$RL_BIN" report "$work/bundle.json" -o - >"$work/stdout.html" 2>"$work/err"; check "-o -" 0 $?
cmp -s "$work/report.html" "$work/stdout.html" && echo "ok   -o -: the page on stdout" || fail "-o -: differs"
"$RL_BIN" report "$fx/hostile.json" -o "$work/h1.html" >/dev/null 2>&1; check "hostile bundle" 0 $?
"$RL_BIN" report "$work/h1.html" -o "$work/h2.html" >/dev/null 2>&1; check "hostile report read back" 0 $?
cmp -s "$work/h1.html" "$work/h2.html" && echo "ok   hostile: same bytes from the report" || fail "hostile: bytes differ"
"$RL_BIN" report "$fx/one-model.json" -o "$work/one.html" >/dev/null 2>&1; check "one model, no ceiling" 0 $?
size=$(wc -c <"$work/report.html")
[ "$size" -lt 1000000 ] && echo "ok   page under 1 MB ($size bytes)" || fail "page is $size bytes"

# ---- Markdown and PNG
md=$("$RL_BIN" report "$work/bundle.json" --markdown 2>"$work/err"); check "--markdown to stdout" 0 $?
expect "markdown: the answer" "$md" "^## llama-roofline: Decode is memory-bound"
expect "markdown: the model table" "$md" "^\| Model \| Bytes/token"
expect "markdown: caveats" "$md" "Caveats that apply"
[ ! -e "$work/md-only.html" ] || fail "markdown wrote a page"
"$RL_BIN" report --markdown "$work/s.md" "$work/bundle.json" >"$work/out" 2>&1; check "--markdown FILE BUNDLE" 0 $?
cmp -s "$work/s.md" <(printf '%s\n' "$md") && echo "ok   --markdown FILE: the same text" || fail "--markdown FILE differs"
"$RL_BIN" report "$work/bundle.json" --markdown="$work/t.md" --png "$work/r.png" -o "$work/p.html" >"$work/out" 2>&1
check "--markdown=FILE --png FILE -o FILE" 0 $?
cmp -s "$work/s.md" "$work/t.md" && echo "ok   --markdown=FILE" || fail "--markdown=FILE differs"
[ "$(head -c 8 "$work/r.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && echo "ok   --png: a PNG" || fail "--png: not a PNG"
# the PNG: a whole PNG (every chunk's CRC right, IEND last), 2 x 720 px wide, and as high as the
# chart with its title band (2 x (440 + 40) px at least: the machine named above the plot)
png=$(python3 - "$work/r.png" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
i, kinds = 8, []
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4]); k = d[i + 4:i + 8]; body = d[i + 8:i + 8 + n]
    assert struct.unpack(">I", d[i + 8 + n:i + 12 + n])[0] == zlib.crc32(k + body), k
    kinds.append(k); i += 12 + n
assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
w, h = struct.unpack(">II", d[16:24])
print(w, h)
PY
)
[ "${png% *}" = 1440 ] && [ "${png#* }" -ge 960 ] && echo "ok   --png: a whole PNG, 1440 x ${png#* }, titled" || fail "--png: not a whole titled PNG ($png)"
cmp -s "$work/p.html" "$work/report.html" && echo "ok   -o with --markdown: the page too" || fail "-o page differs"
expect "says what it wrote" "$(cat "$work/out")" "wrote $work/t.md"

# ---- bad input: exit 2, one line, nothing on stdout
head -c 2000 "$work/bundle.json" >"$work/trunc.json"
crafted "$work/trunc.json" # broken on purpose: not swept by finish
echo '{"schema": "something-else", "x": 1}' >"$work/foreign.json"
printf '<!DOCTYPE html><html><body><p>no bundle here</p></body></html>\n' >"$work/plain.html"
sed -E 's/"schema_version": [0-9]+/"schema_version": 99/' "$work/bundle.json" >"$work/newer.json"
crafted "$work/newer.json" # broken on purpose: not swept by finish
bad "truncated JSON" 2 "trunc.json: not valid JSON" "$work/trunc.json" -o "$work/x.html"
bad "foreign JSON" 2 "not a llama-roofline bundle" "$work/foreign.json" -o "$work/x.html"
bad "HTML without a bundle" 2 "HTML file without an embedded bundle" "$work/plain.html" -o "$work/x.html"
bad "newer schema" 2 "newer than this llama-roofline reads" "$work/newer.json" -o "$work/x.html"
bad "missing file" 2 "nope.json" "$work/nope.json" -o "$work/x.html"
bad "no operand" 2 "no input" -o "$work/x.html"
bad "two operands" 2 "unexpected" "$work/bundle.json" "$work/report.html"
bad "unknown option" 2 "unknown option '--frobnicate'" --frobnicate "$work/bundle.json"
bad "-o an empty path" 4 "error: cannot write an empty path: give a file name$" "$work/bundle.json" -o ""
mkdir -p "$work/outdir"
bad "-o a directory" 4 "error: -o .*outdir is a directory: report's -o names a file; give a file name$" "$work/bundle.json" -o "$work/outdir"
bad "-o names the bundle" 2 "error: -o .*bundle.json is the same file as the input .*bundle.json: choose another -o$" "$work/bundle.json" -o "$work/bundle.json"
[ ! -e "$work/x.html" ] && echo "ok   nothing written on bad input" || fail "x.html written"
cmp -s "$work/bundle.json" "$fx/memory-bound.json" && echo "ok   bundle untouched" || fail "bundle changed"

# ---- unwritable outputs: exit 4
bad "unwritable -o" 4 "/proc/nope" "$work/bundle.json" -o /proc/nope/report.html
bad "unwritable --png" 4 "/proc/nope" "$work/bundle.json" --png /proc/nope/r.png
bad "unwritable --markdown" 4 "/proc/nope" "$work/bundle.json" --markdown=/proc/nope/s.md

# ---- run writes report.html beside bundle.json
"$RL_BIN" synth --preset tiny --type Q8_0 -q -o "$work/a.gguf" || fail "synth"
"$RL_BIN" run --llama-bench "$RL_SRC/tests/lib/fake-llama-bench" --peak-bw 40 -m "$work/a.gguf" -t 1 \
  -o "$work/run" >"$work/run.out" 2>&1; check "run" 0 $?
expect "run prints the report's path" "$(cat "$work/run.out")" "^wrote $work/run/report.html$"
"$RL_BIN" report "$work/run/bundle.json" -o "$work/run-again.html" >/dev/null 2>&1; check "report of run's bundle" 0 $?
cmp -s "$work/run/report.html" "$work/run-again.html" && echo "ok   run's page = report's page" || fail "run's page differs"
# a model name with a | (and the other inline characters): escaped in the Markdown summary
# (mutant report-md-pipe in tests/mutants.txt: no other fixture has a |)
python3 - "$fx/memory-bound.json" "$work/pipe.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
for i, m in enumerate(b["models"]):
    m["name"] = "pipe|name-%d" % i
json.dump(b, open(sys.argv[2], "w"))
PY
md=$("$RL_BIN" report "$work/pipe.json" --markdown 2>"$work/err"); check "--markdown, a | in a name" 0 $?
printf '%s\n' "$md" | grep -qF 'pipe\|name-0' && echo "ok   markdown: | escaped in a model name" || fail "markdown: | not escaped"
! printf '%s\n' "$md" | grep -qE 'pipe[|]name' && echo "ok   markdown: no bare | in a name" || fail "markdown: a bare | in a name"
finish
