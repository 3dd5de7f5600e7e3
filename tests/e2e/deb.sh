#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: the Debian package (debian/). The source tree's files (git ls-files, uncommitted
# changes included) are copied to $RL_TMP/deb and built there with `dpkg-buildpackage -b -us
# -uc` (the source tree is never written: its git status is the same after); lintian
# --fail-on error passes on the .deb; `dpkg -i` installs it, and the installed
# /usr/bin/llama-roofline gives the built binary's --version and its very `inspect --json` of
# a fixture; man finds llama-roofline-report; the completions are where bash-completion and
# zsh look; `dpkg -r` removes every file again. Needs root (or sudo without a password) for
# dpkg -i: skipped (77) without; the build tools are scripts/deps.sh's (debhelper, dpkg-dev,
# lintian, help2man), missing ones fail. Runs alone (RUN_SERIAL): it compiles everything once.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
. "$RL_SRC/tests/lib/cli.sh"
. "$RL_SRC/tests/lib/pkgs.sh" # SUDO, lock_retry, deb_copy, deb_build, pkg_installed
[ "$root_ok" = 1 ] || { echo "skip: installing a package needs root or sudo without a password (dpkg -i)"; exit 77; }
for t in dpkg-buildpackage dh lintian help2man; do
  command -v "$t" >/dev/null || { fail "$t is not installed (scripts/deps.sh installs it)"; finish; }
done
if pkg_installed llama-roofline; then
  fail "a llama-roofline package is installed on this machine already: this test would replace and remove it"
  finish
fi
[ ! -e /usr/bin/llama-roofline ] || { fail "/usr/bin/llama-roofline exists (not from a package): dpkg -i would replace it"; finish; }
work="$RL_TMP/deb"
rm -rf "$work"
mkdir -p "$work/src"
installed=
cleanup() {
  [ -n "$installed" ] && $SUDO dpkg -r llama-roofline >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# ---- the copy: the files git knows and the new ones it does not ignore, as they are now
before=$(git -C "$RL_SRC" status --porcelain 2>&1); check "the source tree is a git checkout" 0 $? || finish
deb_copy "$RL_SRC" "$work/src"
check "the tree copied into $work/src" 0 $?
[ -f "$work/src/debian/rules" ] && [ -f "$work/src/CMakeLists.txt" ] && [ ! -e "$work/src/build" ] &&
  echo "ok   the copy holds debian/ and CMakeLists.txt, no build tree" || fail "the copy: $(ls "$work/src")"

# ---- the build
deb=$(deb_build "$work/src")
check "dpkg-buildpackage -b -us -uc" 0 $? || { tail -n 40 "$work/build.log"; finish; }
[ -n "$deb" ] && echo "ok   built $(basename "$deb")" || { fail "no .deb in $work: $(ls "$work")"; finish; }
version=$("$RL_BIN" --version | sed 's/^llama-roofline //')
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] && echo "ok   the package's version is the binary's ($version)" ||
  fail "package version $(dpkg-deb -f "$deb" Version), binary $version"
expect "it depends on the charts' font" "$(dpkg-deb -f "$deb" Depends)" 'fonts-dejavu-core'
expect "its shared libraries found by dh_shlibdeps" "$(dpkg-deb -f "$deb" Depends)" 'libcairo2.*libcjson1|libcjson1.*libcairo2'
# the package's build tree (debhelper's obj-*): no tests, no -Werror on any compile (Debian's
# own flags hold -Werror=format-security; the project's -Werror stands alone), man pages on
obj=$(ls -d "$work"/src/obj-* 2>/dev/null | head -n 1)
grep -qx 'RL_TESTS:BOOL=OFF' "$obj/CMakeCache.txt" 2>/dev/null && grep -qx 'RL_WERROR:BOOL=OFF' "$obj/CMakeCache.txt" &&
  grep -qx 'RL_MAN:STRING=ON' "$obj/CMakeCache.txt" && echo "ok   configured with RL_TESTS=OFF RL_WERROR=OFF RL_MAN=ON" ||
  fail "the package's configuration: $(grep -E '^RL_' "$obj/CMakeCache.txt" 2>&1)"
grep -q '"command": .*membw_kernels\.c' "$obj/compile_commands.json" 2>/dev/null && ! grep -qE -- '-Werror( |")' "$obj/compile_commands.json" &&
  echo "ok   no compile with -Werror" || fail "the package compiled with -Werror (or has no compile_commands.json)"
[ ! -e "$obj/test_rl_util" ] && echo "ok   no test built" || fail "the package build built the tests"
after=$(git -C "$RL_SRC" status --porcelain 2>&1)
[ "$after" = "$before" ] && echo "ok   the source tree was not written" || fail "git status changed: $(diff <(echo "$before") <(echo "$after"))"

# ---- lintian
lint=$(lintian --fail-on error "$deb" 2>&1); rc=$?
check "lintian --fail-on error" 0 $rc || echo "$lint"
grep -E '^[EW]: ' <<<"$lint" && echo "(lintian's warnings above, allowed)"

# ---- install, use, remove
lock_retry dpkg -i "$deb" >"$work/install.log"
check "dpkg -i" 0 $? || { cat "$work/install.log"; finish; }
installed=1
out=$(/usr/bin/llama-roofline --version); check "the installed llama-roofline --version" 0 $?
[ "$out" = "$("$RL_BIN" --version)" ] && echo "ok   it is this version: $out" || fail "installed --version: $out"
fixture="$RL_SRC/tests/fixtures/gguf/tiny-valid.gguf"
/usr/bin/llama-roofline inspect --json "$fixture" >"$work/inspect.json"; check "the installed inspect --json" 0 $?
"$RL_BIN" inspect --json "$fixture" >"$work/inspect-built.json"
cmp -s "$work/inspect.json" "$work/inspect-built.json" && echo "ok   its inspect --json equals the built binary's" ||
  fail "installed and built inspect --json differ: $(diff "$work/inspect.json" "$work/inspect-built.json" | head -5)"
json_check "inspect --json: the fixture's header" "$work/inspect.json" \
  'len(j)==1 and j[0]["architecture"]=="llama" and j[0]["n_tensors"]==12 and j[0]["n_embd"]==32 and j[0]["file_bytes"]==8896'
page=$(man -w llama-roofline-report 2>&1)
[ "$page" = /usr/share/man/man1/llama-roofline-report.1.gz ] && echo "ok   man -w llama-roofline-report: $page" || fail "man -w llama-roofline-report: $page"
expect "man llama-roofline-report: the page" "$(MANWIDTH=80 man llama-roofline-report 2>/dev/null | col -b)" '^SEE ALSO$'
for f in /usr/share/bash-completion/completions/llama-roofline /usr/share/zsh/vendor-completions/_llama-roofline \
  /usr/share/doc/llama-roofline/copyright /usr/share/doc/llama-roofline/CLI.md.gz; do
  [ -f "$f" ] || fail "not installed: $f"
done
echo "ok   the completions, the copyright and the docs installed"
files=$(dpkg -L llama-roofline | while read -r f; do [ -f "$f" ] && echo "$f"; done)
lock_retry dpkg -r llama-roofline >"$work/remove.log"
check "dpkg -r llama-roofline" 0 $? || cat "$work/remove.log"
installed=
dpkg-query -W -f='${Status}' llama-roofline 2>/dev/null | grep -q "install ok installed" &&
  fail "still installed after dpkg -r" || echo "ok   the package is removed"
left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done <<<"$files")
[ -z "$left" ] && echo "ok   every file it installed is gone ($(wc -l <<<"$files") files)" || fail "left after dpkg -r: $left"
finish
