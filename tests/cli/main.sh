#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: top-level flags, help, and the exit codes of bad invocations.
#
# Every check asserts the binary's own exit status (and then its text); none takes grep's status
# for the binary's. Each was seen to fail once against a binary broken on purpose (a copy of the
# tree built in /tmp, never committed):
#   - main returning 1 after `help <command>` and `<command> --help`: "help synth" etc. fail
#     (the old script piped into grep -q and checked grep's status, so it still passed);
#   - main printing the unknown command without rl_tty_escape: "no raw ESC" fails;
#   - main returning 0 without a command: "no command" fails.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}"
. "$RL_SRC/tests/lib/cli.sh"

out=$("$RL_BIN" --version); check "--version" 0 $?
expect "version text" "$out" "^llama-roofline [0-9]+\.[0-9]+\.[0-9]+$"
out=$("$RL_BIN" --help); check "--help" 0 $?
for c in inspect synth membw; do
  expect "--help lists $c" "$out" "^  $c "
  text=$("$RL_BIN" help "$c"); check "help $c" 0 $?
  expect "help $c text" "$text" "^usage: llama-roofline $c"
  text=$("$RL_BIN" "$c" --help); check "$c --help" 0 $?
  expect "$c --help text" "$text" "^usage: llama-roofline $c"
done

# no command: the help on stderr, then one error line; nothing on stdout
out=$("$RL_BIN" 2>"${RL_TMP:-/tmp}/main.err.$$"); check "no command" 2 $?
err=$(cat "${RL_TMP:-/tmp}/main.err.$$"); rm -f "${RL_TMP:-/tmp}/main.err.$$"
[ -z "$out" ] && echo "ok   no command: nothing on stdout" || fail "no command: stdout: $out"
expect "no command message" "$(tail -n 1 <<<"$err")" "^llama-roofline: error: a command is required$"

# unknown command: one line, control characters escaped (no raw ESC reaches the terminal)
err=$("$RL_BIN" frobnicate 2>&1 >/dev/null); check "unknown command" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && echo "ok   unknown command: one line" || fail "unknown command: not one line: $err"
expect "unknown command message" "$err" "^llama-roofline: error: no command 'frobnicate' \(see llama-roofline --help\)$"
err=$("$RL_BIN" $'\e[31mx' 2>&1 >/dev/null); check "unknown command with ESC" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && echo "ok   unknown command with ESC: one line" || fail "unknown command with ESC: not one line: $err"
[[ $err != *$'\e'* ]] && echo "ok   unknown command with ESC: no raw ESC" || fail "unknown command with ESC: raw ESC printed"
expect "unknown command with ESC: escaped" "$err" "no command '\\\\e\[31mx'"
err=$("$RL_BIN" $'a\nb' 2>&1 >/dev/null); check "unknown command with a newline" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && echo "ok   unknown command with a newline: one line" || fail "unknown command with a newline: $err"
"$RL_BIN" help frobnicate >/dev/null 2>&1; check "help unknown" 2 $?

# standard output that cannot be written (/dev/full): exit 4 and one line naming it, for every
# command that prints a result and for --help, --version and help (main.c's one stdout check)
if [ -w /dev/full ]; then
  ex="$RL_SRC/examples/x86-i7-12700H/bundle.json"
  while IFS= read -r args; do
    # shellcheck disable=SC2086
    err=$("$RL_BIN" $args 2>&1 >/dev/full); check "$args >/dev/full" 4 $?
    [ "$(wc -l <<<"$err")" = 1 ] || fail "$args >/dev/full: not one line: $err"
    expect "$args >/dev/full message" "$err" "standard output"
  done <<EOF2
--help
--version
help run
legend
legend --json
validate $ex
inspect $RL_SRC/tests/fixtures/gguf/tiny-valid.gguf
run --help
report --markdown $ex
predict --bundle $ex synth:tiny:Q8_0
EOF2
else
  echo "ok   /dev/full: not writable here, skipped"
fi
finish
