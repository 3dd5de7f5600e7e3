#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/test.sh: run every test of llama-roofline, as CI does.
#   1. install missing Debian packages (scripts/deps.sh)
#   2. provide the pinned llama.cpp tools (scripts/llama-cpp.sh, cached under ~/.cache)
#   3. clang-format check; no function over 120 lines; Release build with -Werror; the whole suite: unit, CLI and end-to-end tests (ctest)
#   3b. four mutants of tests/mutants.txt at random (seeded by the date), each must be killed
#   4. the same suite under an ASan+UBSan build
#   5. the GGUF reader's libFuzzer target for RL_FUZZ_SECONDS (default 60) seconds
# Environment: RL_SKIP_ASAN=1, RL_SKIP_FUZZ=1 shorten a local run (CI sets neither);
# LLAMA_CPP_DIR points at an existing llama.cpp build instead of the pinned one.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '\n== %s\n' "$*"; }

step "dependencies"
bash scripts/deps.sh

step "llama.cpp (pinned; cached)"
LLAMA_BIN_DIR=$(bash scripts/llama-cpp.sh | tail -n 1)
export LLAMA_BIN_DIR
echo "llama.cpp tools in $LLAMA_BIN_DIR"

run_suite() { # build-dir, extra cmake args...
  local dir=$1; shift
  cmake -S "$top" -B "$dir" -DRL_WERROR=ON -DRL_TESTS=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" >/dev/null
  # --no-tests=error: a tree configured without tests must fail, never pass on zero tests
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs" --timeout 1800
}

step "format (clang-format, config in .clang-format)"
clang-format --dry-run --Werror $(find src -name '*.[ch]') tests/unit/*.c tests/unit/*.h tests/fuzz/*.c
echo "formatted"

step "function length (scripts/long-functions.sh: none over 120 lines)"
bash scripts/long-functions.sh 120 5

step "release build and tests"
run_suite build/release -DCMAKE_BUILD_TYPE=Release

step "mutation sample (scripts/mutants.sh --sample 4: its own copy in build/mutants)"
bash scripts/mutants.sh --sample 4

if [ "${RL_SKIP_ASAN:-0}" != 1 ]; then
  step "ASan+UBSan build and tests"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build/asan -DCMAKE_BUILD_TYPE=Debug -DRL_SANITIZE=ON
fi

if [ "${RL_SKIP_FUZZ:-0}" != 1 ]; then
  step "fuzzing the GGUF reader for ${RL_FUZZ_SECONDS:-60} s"
  bash bench/fuzz-gguf "${RL_FUZZ_SECONDS:-60}"
fi
echo
echo "all tests passed"
