#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/check-spdx.sh [ROOT]: every source file of the tree carries the line
# `SPDX-License-Identifier: MIT` on its first line, or on its second after a `#!` line (the
# file's header comment on purpose follows it). Source files: everything under src/, tests/,
# scripts/ and bench/ (tests/fixtures: only its .c, .h, .py, .sh and .js files; its other
# files are data), CMakeLists.txt, cmake/ and .ci/. Prints one line per file that lacks it
# (its path from ROOT) and exits 1 if any does, 0 otherwise. Run by the test cli.spdx.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
missing=0
while IFS= read -r -d '' f; do
  f=${f#./}
  case "$f" in
    tests/fixtures/*.c | tests/fixtures/*.h | tests/fixtures/*.py | tests/fixtures/*.sh | tests/fixtures/*.js) ;;
    tests/fixtures/*) continue ;;
    *.pyc) continue ;;
  esac
  first=$(head -n 2 -- "$f" | tr -d '\0')
  line1=${first%%$'\n'*}
  if [[ $line1 == *"SPDX-License-Identifier: MIT"* ]]; then continue; fi
  if [[ $line1 == '#!'* ]] && [[ $(sed -n 2p <<<"$first") == *"SPDX-License-Identifier: MIT"* ]]; then continue; fi
  echo "$f: no SPDX-License-Identifier: MIT line at its top"
  missing=$((missing + 1))
done < <(find ./src ./tests ./scripts ./bench ./cmake ./.ci ./CMakeLists.txt -type f \
           -not -path '*/__pycache__/*' -print0 2>/dev/null | sort -z)
[ "$missing" -eq 0 ]
