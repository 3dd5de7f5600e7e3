#!/usr/bin/env bash
# scripts/quickstart.sh: the main job as it stands, on a fresh Debian machine.
# Installs missing packages, builds llama-roofline, synthesizes a small model, inspects it
# (what a GGUF file really holds and what decode streams per token) and measures this
# machine's memory read ceiling.
#   OUT=dir (default ./out) holds the model and the JSON results.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}
bash scripts/deps.sh
# its own build tree: scripts/test.sh configures build/release with the tests
cmake -S . -B build/quickstart -DCMAKE_BUILD_TYPE=Release -DRL_TESTS=OFF >/dev/null
cmake --build build/quickstart -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
BIN=build/quickstart/llama-roofline
mkdir -p "$OUT"
"$BIN" synth --preset qwen2.5-0.5b --type Q4_0 --seed 1 -o "$OUT/qwen2.5-0.5b-Q4_0.gguf"
"$BIN" inspect "$OUT/qwen2.5-0.5b-Q4_0.gguf"
"$BIN" inspect --json "$OUT/qwen2.5-0.5b-Q4_0.gguf" >"$OUT/inspect.json"
"$BIN" membw -o "$OUT/membw.json"
echo "wrote $OUT/inspect.json and $OUT/membw.json"
