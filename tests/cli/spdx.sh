#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the licence line of every source file (scripts/check-spdx.sh). The tree as it is passes;
# copies of a small tree with a file planted each fail naming that file (a C file, a
# bench script without an extension, a fixture script, a line too far down), and the
# files that carry it where it belongs, or are fixture data, pass.
set -u
: "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-spdx.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
checker="$RL_SRC/scripts/check-spdx.sh"

out=$(bash "$checker" "$RL_SRC"); check "every source file of the tree has its SPDX line" 0 $?
[ -z "$out" ] && echo "ok   the tree: nothing reported" || fail "the tree: $out"
[ -f "$RL_SRC/LICENSE" ] && grep -q '^Copyright (c) 2026 the llama-roofline authors$' "$RL_SRC/LICENSE" &&
  grep -q '^MIT License$' "$RL_SRC/LICENSE" && echo "ok   LICENSE: MIT, the authors' line" ||
  fail "LICENSE missing or not MIT with the authors' copyright line"

fresh() { # a small tree whose files all carry the line where it belongs
  rm -rf "$work/t"; mkdir -p "$work/t/src/base" "$work/t/tests/fixtures/x" "$work/t/scripts" "$work/t/bench"
  printf '/* SPDX-License-Identifier: MIT */\n/* a.c: purpose */\n' >"$work/t/src/base/a.c"
  printf '#!/usr/bin/env bash\n# SPDX-License-Identifier: MIT\n# s.sh: purpose\n' >"$work/t/scripts/s.sh"
  printf '# SPDX-License-Identifier: MIT\ncmake_minimum_required(VERSION 3.18)\n' >"$work/t/CMakeLists.txt"
  printf '{"data": 1}\n' >"$work/t/tests/fixtures/x/data.json"
  printf 'GGUF\0\0\0' >"$work/t/tests/fixtures/x/m.gguf"
}
fresh
out=$(bash "$checker" "$work/t"); check "a small tree with every line in place" 0 $?
[ -z "$out" ] && echo "ok   a small tree: fixture data not reported" || fail "a small tree: $out"

plant() { # description, file (relative to the tree), its text
  fresh
  printf '%b' "$3" >"$work/t/$2"
  out=$(bash "$checker" "$work/t"); check "$1: fails" 1 $?
  [ "$(wc -l <<<"$out")" = 1 ] || fail "$1: not one line: $out"
  expect "$1: names $2" "$out" "^$2: no SPDX-License-Identifier: MIT line at its top$"
}
plant "a C file without it" src/base/b.h '/* b.h: purpose */\n#pragma once\n'
plant "a bench script without an extension" bench/speed '#!/usr/bin/env bash\n# speed: purpose\n'
plant "a fixture script" tests/fixtures/x/make.sh '#!/bin/sh\necho hi\n'
plant "the line below the header comment" scripts/late.py \
  '#!/usr/bin/env python3\n"""late.py: purpose"""\n# SPDX-License-Identifier: MIT\n'
plant "another licence" CMakeLists.txt '# SPDX-License-Identifier: GPL-2.0\n'
finish
