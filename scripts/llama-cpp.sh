#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/llama-cpp.sh: provide llama-bench, llama-quantize and llama-server (CPU build).
#
# Order of preference:
#   1. $LLAMA_CPP_DIR: a directory holding the three binaries (or a build tree with bin/).
#   2. all three already on PATH.
#   3. a build from pinned llama.cpp source, cached under
#      ${LLAMA_ROOFLINE_CACHE:-$HOME/.cache/llama-roofline}/llama.cpp-<pin>/.
#
# The only llama.cpp source the package registries here deliver is the git bundle that the
# npm package node-llama-cpp ships at llama/gitRelease.bundle, so the pin is that package's
# version plus the commit the bundle must contain.
#
# Prints the directory holding the binaries on stdout (last line); progress goes to stderr.
# Usage: scripts/llama-cpp.sh [--print-dir] [--source-dir]
#   --source-dir  print the pinned source directory (for gguf-py) instead, building nothing.
set -euo pipefail

NLC_VERSION=3.22.1
LLAMA_COMMIT=de3ff815ea7d559ee917f063901b8986f038abc6
PIN="nlc${NLC_VERSION}-${LLAMA_COMMIT:0:12}"
CACHE=${LLAMA_ROOFLINE_CACHE:-$HOME/.cache/llama-roofline}
ROOT="$CACHE/llama.cpp-$PIN"
SRC="$ROOT/src"
# Build configuration, part of the cache key. On x86 the build is native except for AMX:
# with AMX compiled in, the pinned llama.cpp segfaults in ggml_backend_amx_mul_mat while
# processing a prompt on quantized models (seen on a Xeon with amx_int8; upstream
# ggml-org/llama.cpp#20824), which would break every quantized llama-bench run.
BUILD_FLAGS=""
if [ "$(uname -m)" = x86_64 ]; then BUILD_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"; fi
BUILD_ID=cpu-native$( [ -n "$BUILD_FLAGS" ] && echo -noamx )
BUILD="$ROOT/build-$BUILD_ID"
BIN="$BUILD/bin"
TOOLS=(llama-bench llama-quantize llama-server)

say() { printf 'llama-cpp.sh: %s\n' "$*" >&2; }

have_all() {
  local d=$1 t
  for t in "${TOOLS[@]}"; do [ -x "$d/$t" ] || return 1; done
  return 0
}

fetch_source() {
  if [ -f "$SRC/.pinned-ok" ]; then return 0; fi
  command -v npm >/dev/null || { say "npm is needed to fetch the pinned llama.cpp source (apt-get install npm)"; exit 3; }
  command -v git >/dev/null || { say "git is needed (apt-get install git)"; exit 3; }
  local tmp; tmp=$(mktemp -d)
  say "fetching node-llama-cpp@$NLC_VERSION (carries llama.cpp as a git bundle)"
  (cd "$tmp" && npm pack --silent "node-llama-cpp@$NLC_VERSION" >/dev/null)
  tar -xzf "$tmp"/node-llama-cpp-"$NLC_VERSION".tgz -C "$tmp" package/llama/gitRelease.bundle
  rm -rf "$SRC"; mkdir -p "$ROOT"
  git clone -q "$tmp/package/llama/gitRelease.bundle" "$SRC" 2>/dev/null || git clone -q "$tmp/package/llama/gitRelease.bundle" "$SRC"
  (cd "$SRC" && git -c advice.detachedHead=false checkout -q "$LLAMA_COMMIT") || {
    say "the bundle in node-llama-cpp@$NLC_VERSION does not hold commit $LLAMA_COMMIT"; exit 3; }
  rm -rf "$tmp"
  touch "$SRC/.pinned-ok"
}

build() {
  command -v cmake >/dev/null || { say "cmake is needed (apt-get install cmake)"; exit 3; }
  local jobs; jobs=$(nproc 2>/dev/null || echo 2)
  say "building llama.cpp $LLAMA_COMMIT ($BUILD_ID) in $BUILD: about 5 to 9 minutes on 2 cores"
  cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_C_FLAGS="$BUILD_FLAGS" -DCMAKE_CXX_FLAGS="$BUILD_FLAGS" \
    -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DGGML_NATIVE=ON -DGGML_OPENMP=ON >"$BUILD.configure.log" 2>&1 || {
      say "cmake configure failed; see $BUILD.configure.log"; exit 3; }
  cmake --build "$BUILD" -j "$jobs" --target "${TOOLS[@]}" >"$BUILD.build.log" 2>&1 || {
      say "build failed; see $BUILD.build.log"; exit 3; }
  have_all "$BIN" || { say "build finished but binaries are missing in $BIN"; exit 3; }
  echo "$PIN $BUILD_ID" >"$BUILD/.built-ok"
}

if [ "${1:-}" = "--source-dir" ]; then
  fetch_source
  echo "$SRC"
  exit 0
fi

if [ -n "${LLAMA_CPP_DIR:-}" ]; then
  for d in "$LLAMA_CPP_DIR" "$LLAMA_CPP_DIR/bin" "$LLAMA_CPP_DIR/build/bin"; do
    if have_all "$d"; then echo "$d"; exit 0; fi
  done
  say "LLAMA_CPP_DIR=$LLAMA_CPP_DIR does not hold ${TOOLS[*]}"; exit 3
fi

if command -v llama-bench >/dev/null && command -v llama-quantize >/dev/null && command -v llama-server >/dev/null \
   && [ "${LLAMA_ROOFLINE_FORCE_PINNED:-0}" != 1 ]; then
  dirname "$(command -v llama-bench)"; exit 0
fi

if [ -f "$BUILD/.built-ok" ] && have_all "$BIN"; then echo "$BIN"; exit 0; fi

mkdir -p "$ROOT"
exec 9>"$ROOT/.lock"
flock 9
if [ -f "$BUILD/.built-ok" ] && have_all "$BIN"; then echo "$BIN"; exit 0; fi
fetch_source
build
echo "$BIN"
