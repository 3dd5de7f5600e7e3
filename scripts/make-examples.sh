#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/make-examples.sh: regenerate the example bundles, examples/*/bundle.json, from the
# published results in data/published/*/roofline.json with `llama-roofline import`, and every
# example's report.html (also examples/synth-*/, measured here by `diagnose --synth`; their
# bundles are kept as measured) with `llama-roofline report`, plus the roofline PNG the README
# shows. tests/cli/examples.sh checks that each committed report.html is exactly what
# `report` renders from its bundle. Run it
# whenever the bundle format or the importer changes: the examples are never edited by hand,
# and tests/unit/test_import.c fails until they equal what import produces now (everything
# but the timestamps). Each bundle must stay under 1 MB.
#   scripts/make-examples.sh
# Env: RL_BIN (default build/release/llama-roofline)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${RL_BIN:-build/release/llama-roofline}
[ -x "$BIN" ] || { echo "make-examples: build llama-roofline first (bash scripts/quickstart.sh)" >&2; exit 3; }
make_one() { # example directory, --name label
  local dir=$1 name=$2 out="examples/$1/bundle.json"
  # the command recorded in the bundle and quoted in examples/$dir/README.md: keep them equal
  "$BIN" import "data/published/$dir/roofline.json" -o "$out" --name "$name" >/dev/null
  local size
  size=$(wc -c <"$out")
  [ "$size" -lt 1000000 ] || { echo "make-examples: $out is $size bytes (limit 1 MB)" >&2; exit 1; }
  echo "wrote $out ($size bytes)"
}
make_one rpi5-cortex-a76 "Raspberry Pi 5"
make_one x86-i7-12700H "Intel i7-12700H"
for b in examples/*/bundle.json; do
  d=$(dirname "$b")
  "$BIN" report "$b" -o "$d/report.html" >/dev/null
  size=$(wc -c <"$d/report.html")
  [ "$size" -lt 1000000 ] || { echo "make-examples: $d/report.html is $size bytes (limit 1 MB)" >&2; exit 1; }
  echo "wrote $d/report.html ($size bytes)"
done
"$BIN" report examples/x86-i7-12700H/bundle.json --png examples/x86-i7-12700H/roofline.png >/dev/null
echo "wrote examples/x86-i7-12700H/roofline.png"
