#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the stage layering of src/ (docs/ARCHITECTURE.md, scripts/check-layers.py). The tree as
# it is passes; copies of it with one planted include each fail, naming file:line: an upward
# include (base -> render), a sideways one (measure -> client), render including measure, an
# include without a stage folder, and a source file outside every stage.
set -u
: "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-layering.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
checker="$RL_SRC/scripts/check-layers.py"

out=$(python3 "$checker" "$RL_SRC"); check "the tree's includes go down the stages" 0 $?
[ -z "$out" ] || fail "the tree: $out"

plant() { # description, file (relative to src), line to append, regex the report must match
  rm -rf "$work/t"; mkdir -p "$work/t"
  cp -r "$RL_SRC/src" "$RL_SRC/docs" "$work/t/"
  printf '%s\n' "$3" >>"$work/t/src/$2"
  local n; n=$(wc -l <"$work/t/src/$2")
  out=$(python3 "$checker" "$work/t"); check "$1: fails" 1 $?
  expect "$1: names src/$2:$n" "$out" "^src/$2:$n: $4"
}
plant "upward include" base/rl_text.c '#include "render/report.h"' \
  'base \(rank 0\) includes "render/report.h" \(render, rank 5\): up'
plant "sideways include" measure/membw.c '#include "client/client_sse.h"' \
  'measure \(rank 2\) includes "client/client_sse.h" \(client, rank 2\): sideways'
plant "render including measurement" render/report.c '#include "measure/membw.h"' \
  'render never includes measure'
plant "an include without a stage" analyse/fit_dummy.h '#include "fit.h"' \
  '"fit.h" names no stage folder'
rm -rf "$work/t"; mkdir -p "$work/t"; cp -r "$RL_SRC/src" "$RL_SRC/docs" "$work/t/"
echo 'int x;' >"$work/t/src/stray.c"
out=$(python3 "$checker" "$work/t"); check "a file outside the stages: fails" 1 $?
expect "a file outside the stages: named" "$out" "^src/stray.c:1: not inside a stage folder"
sed -i '/<!-- layers:begin -->/d' "$work/t/docs/ARCHITECTURE.md"
python3 "$checker" "$work/t" >/dev/null; check "no layers table: exit 2" 2 $?
finish
