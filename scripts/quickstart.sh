#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/quickstart.sh: the answer on a fresh Debian machine, in one command.
# Installs missing packages (scripts/deps.sh --main: the build's, not the tests'), builds
# llama-roofline (its own tree, build/quickstart, no tests), provides llama.cpp's llama-bench
# (scripts/llama-cpp.sh: the pinned build, cached under ~/.cache/llama-roofline; 5 to 15
# minutes on 2 cores the first time), then runs
# `llama-roofline diagnose --synth`: synthetic Qwen2.5-0.5B models at Q4_0, Q8_0 and F16
# (2.3 GB, written once into ~/.cache/llama-roofline/synth), the memory ceiling, llama-bench
# over a thread sweep, the fit, and the verdict: what limits token generation here.
#   OUT=dir (default ./out) gets bundle.json.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-./out}
bash scripts/deps.sh --main   # only what this needs; scripts/test.sh installs the test tools
# its own build tree: scripts/test.sh configures build/release with the tests
# (no man pages: this tree is run, not installed; deps.sh --main brings no help2man)
cmake -S . -B build/quickstart -DCMAKE_BUILD_TYPE=Release -DRL_TESTS=OFF -DRL_MAN=OFF >/dev/null
cmake --build build/quickstart -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
BIN=build/quickstart/llama-roofline
LLAMA_BIN_DIR=$(bash scripts/llama-cpp.sh | tail -n 1)
"$BIN" diagnose --synth --llama-bench "$LLAMA_BIN_DIR/llama-bench" -o "$OUT"
echo "the bundle (every measurement, the fit and the verdict): $OUT/bundle.json"
echo "the report to read and share (one self-contained page): $OUT/report.html"
