#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/long-functions.sh [LIMIT] [N]: the N (default 15) longest functions in src/, longest
# first, as "lines file:line name"; exits 1 when any is longer than LIMIT (default 120) lines.
# A function is counted from its first signature line to its closing brace (the tree is
# clang-formatted: a definition's braces stand alone at column 0, .clang-format's Linux style).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-120}
most=${2:-15}
find src -name '*.c' | sort | xargs awk -v limit="$limit" '
  FNR == 1 { sig = 0; inside = 0 }
  !inside && /^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = FNR; name = $0 }
  !inside && /^\{$/ && sig { inside = 1; start = sig; next }
  inside && /^\}/ {
    n = FNR - start + 1
    sub(/\(.*/, "", name); k = split(name, w, /[ *]+/)
    printf "%d %s:%d %s\n", n, FILENAME, start, w[k]
    inside = 0; sig = 0
  }
  !inside && /^$/ { sig = 0 }
' | sort -rn >"${TMPDIR:-/tmp}/long-functions.$$"
head -n "$most" "${TMPDIR:-/tmp}/long-functions.$$"
over=$(awk -v limit="$limit" '$1 > limit' "${TMPDIR:-/tmp}/long-functions.$$" | wc -l)
total=$(wc -l <"${TMPDIR:-/tmp}/long-functions.$$")
rm -f "${TMPDIR:-/tmp}/long-functions.$$"
echo "$total functions; $over longer than $limit lines"
[ "$over" = 0 ]
