#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh: install the Debian packages that building, testing and benchmarking
# llama-roofline need. Idempotent: asks apt only for what is missing. Run as root (or via sudo).
#   scripts/deps.sh            build + test dependencies
#   scripts/deps.sh --bench    also what bench/ compares against (likwid on x86)
set -euo pipefail

pkgs=(build-essential cmake pkg-config git ca-certificates python3 python3-numpy python3-yaml
      libxml2-dev libcairo2-dev libcjson-dev libcmocka-dev libcurl4-openssl-dev libsqlite3-dev clang clang-format libclang-rt-14-dev locales python3-jsonschema
      chromium fonts-dejavu-core   # chromium: the report's browser test; DejaVu: the charts' font
      lighttpd)                    # a local web server for the remote GGUF header test
command -v npm >/dev/null 2>&1 || pkgs+=(npm)     # fetches the pinned llama.cpp source
if [ "${1:-}" = "--bench" ] && [ "$(uname -m)" = x86_64 ]; then pkgs+=(likwid); fi

# The locale tests need a real locale whose decimal separator is a comma.
ensure_locale() {
  locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$' && return 0
  local SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "deps.sh: generating the de_DE.UTF-8 locale (for the locale tests)" >&2
  $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  ensure_locale
  echo "deps.sh: all packages present" >&2
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: run as root to install: ${missing[*]}" >&2; exit 3; }
  SUDO=sudo
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
ensure_locale
echo "deps.sh: done" >&2
