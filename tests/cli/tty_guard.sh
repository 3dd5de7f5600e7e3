#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: one terminal path (issue 18): nothing in src/ prints to stdout or stderr but through
# base/rl_text.h (scripts/check-tty.py). The tree as it is passes; copies of it with one planted
# print each fail, naming file:line: fprintf to stderr, printf, fputs to stdout, putchar, a
# multi-line fwrite, vfprintf in a header, perror, write(STDOUT_FILENO), rl_write_all to fd 2.
# A print in a comment or a string literal, a snprintf, base/rl_text.c's own prints and the
# commented allowlist entry (rl_file.c's write of the made-safe document) are not violations;
# another fd-1 write in rl_file.c is, and so is the allowlisted line in another file.
set -u
: "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-tty-guard.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
checker="$RL_SRC/scripts/check-tty.py"

out=$(python3 "$checker" "$RL_SRC"); check "the tree prints only through base/rl_text.h" 0 $?
[ -z "$out" ] || fail "the tree: $out"

copy() { rm -rf "$work/t"; mkdir -p "$work/t"; cp -r "$RL_SRC/src" "$work/t/"; }
plant() { # description, file (relative to src), text to append, regex the report must match
  copy
  printf '%s\n' "$3" >>"$work/t/src/$2"
  local n; n=$(wc -l <"$work/t/src/$2")
  out=$(python3 "$checker" "$work/t"); check "$1: fails" 1 $?
  expect "$1: names src/$2:$n" "$out" "^src/$2:$n: $4"
  [ "$(wc -l <<<"$out")" = 1 ] || fail "$1: more than the one line: $out"
}
plant "fprintf to stderr" cmd/cmd_inspect.c 'static void x(void) { fprintf(stderr, "%s", "a"); }' \
  'fprintf prints directly: print through base/rl_text.h'
plant "printf" render/report.c 'static void x(void) { printf("raw\n"); }' 'printf prints directly'
plant "fputs to stdout" model/gguf_text.c 'static void x(const char *s) { fputs(s, stdout); }' \
  'fputs prints directly'
plant "putchar" measure/membw_text.c 'static void x(void) { putchar(10); }' 'putchar prints directly'
plant "vfprintf in a header" base/rl_util.h \
  'static inline void x(const char *f, va_list ap) { vfprintf (stderr, f, ap); }' \
  'vfprintf prints directly'
plant "perror" main.c 'static void x(void) { perror("x"); }' 'perror prints directly'
plant "write to STDOUT_FILENO" base/rl_util.c \
  'static void x(void) { (void)write(STDOUT_FILENO, "a", 1); }' 'write to descriptor STDOUT_FILENO'
plant "rl_write_all to fd 2" cmd/cmd_compare.c \
  'static void x(rl_error *e) { rl_write_all(2, "a", 1, "e", false, e); }' \
  'rl_write_all to descriptor 2'
plant "the allowlisted call, elsewhere in rl_file.c" base/rl_file.c \
  'static void x(rl_error *e) { rl_write_all(STDOUT_FILENO, "a", 1, "o", false, e); }' \
  'rl_write_all to descriptor STDOUT_FILENO'
plant "the allowlisted line, in another file" cmd/cmd_report.c \
  'static void x(char *safe, size_t n, rl_error *e) { rl_write_all(STDOUT_FILENO, safe, n, "o", false, e); }' \
  'rl_write_all to descriptor STDOUT_FILENO'

# a multi-line call is named at the line of its name
copy
printf '%s\n' 'static void x(const char *s)' '{' '    fwrite(s, 1,' '           2, stdout);' '}' \
  >>"$work/t/src/client/client_csv.c"
n=$(($(wc -l <"$work/t/src/client/client_csv.c") - 2))
out=$(python3 "$checker" "$work/t"); check "a multi-line fwrite: fails" 1 $?
expect "a multi-line fwrite: names its first line" "$out" "^src/client/client_csv.c:$n: fwrite prints"

# not violations: comments, strings, snprintf, rl_text.c itself, a printf format attribute
copy
cat >>"$work/t/src/cmd/cmd_synth.c" <<'EOF'
/* printf("in a comment"); fputs(s, stdout); */
// fprintf(stderr, "a line comment");
static const char not_code[] = "printf(\"x\") and fputs(s, stdout) in a \"string\"";
static char ch = '"'; /* a quote character does not open a string: printf( */
static void not_a_print(char *b) { snprintf(b, 4, "%s", "x"); rl_tty_printf(stdout, "y"); }
void attributed(const char *f, ...) __attribute__((format(printf, 1, 2)));
EOF
echo 'static void own(void) { fputs("a", stdout); }' >>"$work/t/src/base/rl_text.c"
out=$(python3 "$checker" "$work/t"); check "comments, strings, snprintf, rl_text.c: pass" 0 $?
[ -z "$out" ] || fail "comments, strings, snprintf, rl_text.c: $out"

mkdir -p "$work/empty"
python3 "$checker" "$work/empty" >/dev/null; check "no src/: exit 2" 2 $?
finish
