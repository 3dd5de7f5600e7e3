#!/usr/bin/env bash
# CLI: top-level flags, help, and the exit codes of bad invocations.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}"
. "$RL_SRC/tests/lib/cli.sh"
out=$("$RL_BIN" --version); check "--version" 0 $?
[[ $out =~ ^llama-roofline\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL version text: $out"; fails=$((fails+1)); }
out=$("$RL_BIN" --help); check "--help" 0 $?
for c in inspect synth membw; do
  grep -q "^  $c " <<<"$out" || { echo "FAIL --help does not list $c"; fails=$((fails+1)); }
  "$RL_BIN" help "$c" | grep -q "usage: llama-roofline $c"; check "help $c" 0 $?
  "$RL_BIN" "$c" --help | grep -q "usage: llama-roofline $c"; check "$c --help" 0 $?
done
err=$("$RL_BIN" 2>&1 >/dev/null); check "no command" 2 $?
grep -q "a command is required" <<<"$err" || { echo "FAIL no-command message"; fails=$((fails+1)); }
err=$("$RL_BIN" frobnicate 2>&1 >/dev/null); check "unknown command" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && grep -q "frobnicate" <<<"$err" || { echo "FAIL unknown-command message: $err"; fails=$((fails+1)); }
"$RL_BIN" help frobnicate >/dev/null 2>&1; check "help unknown" 2 $?
finish
