#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh: install the Debian packages that building, testing and benchmarking
# llama-roofline need. Idempotent: asks apt only for what is missing. Run as root (or via sudo).
#   scripts/deps.sh --main     what scripts/quickstart.sh needs: build llama-roofline, fetch and
#                              build the pinned llama.cpp (scripts/llama-cpp.sh), draw the charts
#   scripts/deps.sh            that and everything the test suite calls (scripts/test.sh)
#   scripts/deps.sh --bench    also what bench/ compares against (likwid on x86)
set -euo pipefail

mode=${1:-}
case "$mode" in
  ""|--main|--bench) ;;
  *) echo "usage: scripts/deps.sh [--main | --bench]" >&2; exit 2 ;;
esac

# --main: the build (CMakeLists.txt's pkg-config modules), the charts' font, and what
# scripts/llama-cpp.sh uses to fetch (npm, git; ca-certificates for the registry's https) and
# build (cmake, g++ from build-essential) the pinned llama.cpp.
main_pkgs=(build-essential cmake pkg-config
           libxml2-dev libcairo2-dev libcjson-dev libcurl4-openssl-dev libsqlite3-dev libyajl-dev
           fonts-dejavu-core                   # DejaVu: the charts' font
           git ca-certificates)
command -v npm >/dev/null 2>&1 || main_pkgs+=(npm)   # fetches the pinned llama.cpp source
# The tests, on top (each named by what calls it):
test_pkgs=(libcmocka-dev                        # tests/unit
           python3 python3-numpy python3-yaml python3-jsonschema   # tests/cli, bench/, schema checks
           clang clang-format libclang-rt-14-dev  # the fuzz build (bench/fuzz-gguf), the format check
           locales                              # the de_DE.UTF-8 locale of the locale tests
           chromium                             # the report's browser tests (tests/e2e/*chromium*)
           lighttpd                             # a local web server: tests/e2e/remote_headers.sh
           poppler-utils                        # pdftotext: tests/e2e/pages_print.sh
           python3-git python3-tabulate         # llama.cpp's compare-llama-bench.py: tests/cli/export.sh
           tmux                                 # the 40-column progress check: tests/cli/conventions.sh
           help2man man-db                      # the man pages (build) and their check: tests/cli/install.sh
           bash-completion zsh                  # the completion checks: tests/cli/install.sh
           debhelper dpkg-dev fakeroot lintian  # the Debian package: tests/e2e/deb.sh
           slurm-wlm munge                      # a one-node Slurm: tests/e2e/fleet_slurm.sh
           ansible-core)                        # the fleet playbook: tests/e2e/fleet_ansible.sh
pkgs=("${main_pkgs[@]}")
[ "$mode" = --main ] || pkgs+=("${test_pkgs[@]}")
if [ "$mode" = --bench ] && [ "$(uname -m)" = x86_64 ]; then pkgs+=(likwid); fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# The locale tests need a real locale whose decimal separator is a comma.
ensure_locale() {
  [ "$mode" = --main ] && return 0
  locale -a 2>/dev/null | grep -qi '^de_DE\.utf-\?8$' && return 0
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
if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
  echo "deps.sh: run as root to install: ${missing[*]}" >&2; exit 3
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
ensure_locale
echo "deps.sh: done" >&2
