#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: what `cmake --install` of the test build puts under the prefix (DESTDIR into $RL_TMP):
# the binary; one man page per command of --help and the top one, each valid (man --warnings
# finds nothing), named, cross-referenced and holding its command's options; the bash and zsh
# completions where bash-completion and zsh look, completing commands, every option of each
# command's own table (and so every option its --help shows), file and directory names; an
# option added to a table completed by the next generation (cmake/completions.sh on a binary
# whose table has one more); the documentation.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-install.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
build=$(dirname "$RL_BIN")
cache="$build/CMakeCache.txt"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$cache")
[ -n "$prefix" ] || { fail "no CMAKE_INSTALL_PREFIX in $cache"; finish; }

DESTDIR="$work/dest" cmake --install "$build" >"$work/install.log" 2>&1
check "cmake --install with DESTDIR" 0 $? || cat "$work/install.log"
root="$work/dest$prefix"
# the long options an option line of a --help shows in its first column ("  -o, --output DIR")
shown() { grep -E '^ {2,4}-' | sed -E 's/^ +//; s/  .*//' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }
verbs=$("$RL_BIN" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ "$(wc -w <<<"$verbs")" -ge 15 ] || fail "the commands of --help: $verbs"

# ---- the binary
[ -x "$root/bin/llama-roofline" ] && echo "ok   bin/llama-roofline" || fail "no $root/bin/llama-roofline"
out=$("$root/bin/llama-roofline" --version); check "the installed binary runs" 0 $?
[ "$out" = "$("$RL_BIN" --version)" ] && echo "ok   the installed binary is the built one" || fail "installed --version: $out"

# ---- man pages: one per command, the top one, nothing else
man1="$root/share/man/man1"
if ! grep -q '^HELP2MAN:FILEPATH=/' "$cache"; then
  fail "this build has no man pages: help2man was not found when it was configured (scripts/deps.sh installs it)"
else
  want=$( (echo llama-roofline.1; for v in $verbs; do echo "llama-roofline-$v.1"; done) | sort)
  have=$(cd "$man1" 2>/dev/null && ls | sort)
  [ "$have" = "$want" ] && echo "ok   share/man/man1: one page per command and llama-roofline.1" ||
    fail "man1 holds: $(tr '\n' ' ' <<<"$have"), expected: $(tr '\n' ' ' <<<"$want")"
  for v in "" $verbs; do
    name=llama-roofline${v:+-$v}; page="$man1/$name.1"
    [ -f "$page" ] || continue
    upper=$(tr a-z A-Z <<<"$name")
    grep -q "^\.TH $upper \"1\" .*\"llama-roofline [0-9.]*\" \"llama-roofline Manual\"$" "$page" ||
      fail "$name.1: its .TH line: $(grep '^\.TH' "$page")"
    if [ -n "$v" ]; then
      what=$("$RL_BIN" --help | sed -n "s/^  $v  *//p")
      help=$("$RL_BIN" "$v" --help)
    else
      what="what limits LLM token generation on this machine, measured"
      help=$("$RL_BIN" --help)
    fi
    grep -qxF -- "$name \\- $what" "$page" || fail "$name.1: NAME is not '$name - $what': $(sed -n '/^\.SH NAME/{n;p}' "$page")"
    grep -q '^\.SH SYNOPSIS$' "$page" || fail "$name.1: no SYNOPSIS"
    ! grep -q '^options:$' <<<"$help" || grep -q '^\.SH OPTIONS$' "$page" || fail "$name.1: no OPTIONS"
    # every option its --help shows is in the page, as the page writes it (\-\-name)
    for o in $(shown <<<"$help"); do
      grep -qF -- "$(sed 's/-/\\-/g' <<<"$o")" "$page" || fail "$name.1: no $o"
    done
    # SEE ALSO names every other page, not itself
    grep -qE "^\.BR $name \(1\)" "$page" && fail "$name.1: SEE ALSO names itself"
    for w in "" $verbs; do
      [ "$w" = "$v" ] && continue
      grep -qxE "^\.BR llama-roofline${w:+-$w} \(1\),?$" "$page" || fail "$name.1: SEE ALSO lacks llama-roofline${w:+-$w}(1)"
    done
    if command -v man >/dev/null; then
      warn=$(man --warnings -l -Tutf8 "$page" 2>&1 >/dev/null); rc=$?
      [ $rc = 0 ] && [ -z "$warn" ] || fail "$name.1: man --warnings: exit $rc: $warn"
    fi
  done
  echo "ok   $(wc -w <<<"$verbs") command pages and the top one checked (name, synopsis, options, SEE ALSO, man --warnings)"
  if command -v man >/dev/null; then
    found=$(MANPATH="$root/share/man" man -w llama-roofline-report 2>&1)
    [ "$found" = "$man1/llama-roofline-report.1" ] && echo "ok   man -w finds llama-roofline-report under the prefix" ||
      fail "man -w llama-roofline-report: $found"
    text=$(MANPATH="$root/share/man" MANWIDTH=80 man llama-roofline-export 2>/dev/null | col -b)
    expect "man llama-roofline-export: the synopsis" "$text" '^ +llama-roofline export BUNDLE\|REPORT\.html\.\.\. -f FORMAT \[-o FILE\]$'
    expect "man llama-roofline-export: an option and its help" "$text" '^ +-f, --format FORMAT$'
    text=$(MANPATH="$root/share/man" MANWIDTH=200 man llama-roofline-report 2>/dev/null | col -b | sed -n '/^SYNOPSIS/,/^DESCRIPTION/p')
    expect "man llama-roofline-report: the usage's two lines are one synopsis" "$text" \
      '^ +llama-roofline report BUNDLE\|REPORT\.html \[-o report\.html\] \[--markdown\[=FILE\]\] \[--png FILE\]$'
  fi
fi

# ---- documentation
for d in README.md LICENSE CLI.md BUNDLE.md METHOD.md ARCHITECTURE.md FLEET.md; do
  [ -f "$root/share/doc/llama-roofline/$d" ] || fail "no share/doc/llama-roofline/$d"
done
cmp -s "$RL_SRC/docs/CLI.md" "$root/share/doc/llama-roofline/CLI.md" && echo "ok   share/doc/llama-roofline: README, LICENSE, docs/*.md" ||
  fail "share/doc/llama-roofline/CLI.md is not docs/CLI.md"

# ---- bash completion
bcomp="$root/share/bash-completion/completions/llama-roofline"
zcomp="$root/share/zsh/vendor-completions/_llama-roofline"
[ -f "$bcomp" ] && echo "ok   the bash completion installed" || fail "no $bcomp"
[ -f "$zcomp" ] && echo "ok   the zsh completion installed" || fail "no $zcomp"
# complete FILE WORD...: what the completion FILE offers for the command line WORD... (the last
# word the one being completed), one per line, sorted
complete_bash() {
  local file=$1; shift
  bash -c 'source "$1" || exit 9; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    COMPREPLY=(); _llama_roofline llama-roofline "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || exit 8
    printf "%s\n" "${COMPREPLY[@]}"' bash "$file" "$@" | sort
}
got=$(complete_bash "$bcomp" llama-roofline rep)
[ "$got" = report ] && echo "ok   bash: llama-roofline rep<TAB> is report" || fail "bash: rep<TAB>: $got"
got=$(complete_bash "$bcomp" llama-roofline run --n-)
for o in --n-prompt --n-gen --n-depth --n-gpu-layers; do
  grep -qx -- "$o" <<<"$got" || fail "bash: run --n-<TAB> lacks $o: $(tr '\n' ' ' <<<"$got")"
done
echo "ok   bash: run --n-<TAB> offers --n-prompt, --n-gen, --n-depth, --n-gpu-layers"
got=$(complete_bash "$bcomp" llama-roofline '')
[ "$got" = "$( (echo help; tr ' ' '\n' <<<"$verbs") | grep . | sort)" ] && echo "ok   bash: every command and help" ||
  fail "bash: the commands: $(tr '\n' ' ' <<<"$got")"
got=$(complete_bash "$bcomp" llama-roofline help ex)
[ "$got" = export ] && echo "ok   bash: help ex<TAB> is export" || fail "bash: help ex<TAB>: $got"
got=$(complete_bash "$bcomp" llama-roofline --v)
[ "$got" = --version ] && echo "ok   bash: --v<TAB> is --version" || fail "bash: --v<TAB>: $got"
# every command: -- offers exactly the long options of its own table (--list-options), which
# hold every option its --help shows
"$RL_BIN" --list-options >"$work/table"; check "--list-options" 0 $?
[ "$(awk '$1 == "command" && $2 != "help" { print $2 }' "$work/table")" = "$verbs" ] &&
  echo "ok   --list-options: the commands of --help, in its order" || fail "--list-options' commands: $(grep ^command "$work/table")"
for v in $verbs; do
  grep -qxF "command $v $("$RL_BIN" --help | sed -n "s/^  $v  *//p")" "$work/table" || fail "--list-options: $v's summary"
  grep -qx "option $v --help none" "$work/table" && grep -qx "option $v -h none" "$work/table" || fail "--list-options: $v has no --help, -h"
done
grep -qx 'option run -ngl required' "$work/table" && grep -qx 'option run --reps required' "$work/table" &&
  grep -qx 'option report --markdown optional' "$work/table" && grep -qx 'option inspect --json none' "$work/table" &&
  ! grep -q '^option inspect -ngl' "$work/table" && echo "ok   --list-options: kinds, aliases, llama-bench's -ngl where it applies" ||
  fail "--list-options: $(grep -E '^option (run|report|inspect) ' "$work/table" | head -50 | tr '\n' ';')"
for v in $verbs; do
  table=$(awk -v c="$v" '$1 == "option" && $2 == c && $3 ~ /^--/ { print $3 }' "$work/table" | sort)
  shown=$("$RL_BIN" "$v" --help | shown)
  got=$(complete_bash "$bcomp" llama-roofline "$v" --)
  [ -n "$table" ] && [ "$got" = "$table" ] || fail "bash: $v --<TAB>: $(tr '\n' ' ' <<<"$got"), its table: $(tr '\n' ' ' <<<"$table")"
  missing=$(comm -23 <(echo "$shown") <(echo "$got"))
  [ -z "$missing" ] || fail "bash: $v --<TAB> lacks what its --help shows: $missing"
done
echo "ok   bash: each command's --<TAB> is its option table, every option of its --help included"
# file names for operands and values, directories for a DIR value
mkdir -p "$work/f/sub dir" "$work/f/subdir2"; : >"$work/f/model a.gguf"; : >"$work/f/model-b.gguf"
got=$(complete_bash "$bcomp" llama-roofline inspect "$work/f/mod")
[ "$got" = "$(printf '%s\n' "$work/f/model a.gguf" "$work/f/model-b.gguf")" ] && echo "ok   bash: an operand completes file names (a space in one)" ||
  fail "bash: inspect FILE<TAB>: $got"
got=$(complete_bash "$bcomp" llama-roofline report "$work/f/model-b.gguf" -o "$work/f/m")
[ "$got" = "$(printf '%s\n' "$work/f/model a.gguf" "$work/f/model-b.gguf")" ] && echo "ok   bash: -o FILE completes file names" || fail "bash: report -o<TAB>: $got"
got=$(complete_bash "$bcomp" llama-roofline run -o "$work/f/")
[ "$got" = "$(printf '%s\n' "$work/f/sub dir" "$work/f/subdir2")" ] && echo "ok   bash: run -o DIR completes directories only" || fail "bash: run -o DIR<TAB>: $got"
got=$(complete_bash "$bcomp" llama-roofline run --output = "$work/f/s")
[ "$got" = "$(printf '%s\n' "$work/f/sub dir" "$work/f/subdir2")" ] && echo "ok   bash: run --output=DIR too" || fail "bash: run --output=DIR<TAB>: $got"
# where bash-completion looks: its loader finds the file under the prefix by the command's name
if [ -f /usr/share/bash-completion/bash_completion ]; then
  got=$(XDG_DATA_DIRS="$root/share" BASH_COMPLETION_USER_DIR="$work/none" bash -c '
    source /usr/share/bash-completion/bash_completion
    _completion_loader llama-roofline >/dev/null 2>&1; complete -p llama-roofline' 2>&1)
  [ "$got" = "complete -F _llama_roofline llama-roofline" ] && echo "ok   bash-completion loads it from share/bash-completion/completions" ||
    fail "bash-completion's loader: $got"
else
  fail "bash-completion is not installed (scripts/deps.sh installs it)"
fi

# ---- a freshly added option: a binary whose table has one more (and a DIR value in its help)
cat >"$work/fresh-bin" <<EOF
#!/bin/sh
if [ "\$1" = --list-options ]; then "$RL_BIN" --list-options; echo "option run --brand-new-flag required"; exit 0; fi
if [ "\$1 \$2" = "run --help" ]; then "$RL_BIN" run --help; echo "  --brand-new-flag DIR   added a moment ago"; exit 0; fi
exec "$RL_BIN" "\$@"
EOF
chmod +x "$work/fresh-bin"
bash "$RL_SRC/cmake/completions.sh" "$work/fresh-bin" "$work/fresh"; check "completions.sh on a binary with one more option" 0 $?
got=$(complete_bash "$work/fresh/llama-roofline" llama-roofline run --bra)
[ "$got" = --brand-new-flag ] && echo "ok   bash: the new option is completed" || fail "bash: run --bra<TAB>: $got"
got=$(complete_bash "$work/fresh/llama-roofline" llama-roofline run --brand-new-flag "$work/f/")
[ "$got" = "$(printf '%s\n' "$work/f/sub dir" "$work/f/subdir2")" ] && echo "ok   bash: its DIR value completes directories" || fail "bash: --brand-new-flag DIR<TAB>: $got"
grep -qF "'*--brand-new-flag=[added a moment ago]:value:_files -/'" "$work/fresh/_llama-roofline" &&
  echo "ok   zsh: the new option's spec, help and directory value" || fail "zsh: no spec for --brand-new-flag: $(grep brand "$work/fresh/_llama-roofline")"
cmp -s "$bcomp" <(bash "$RL_SRC/cmake/completions.sh" "$RL_BIN" "$work/again" && cat "$work/again/llama-roofline") &&
  echo "ok   the installed completion is what the binary's table makes now" || fail "the installed bash completion differs from a fresh generation"

# ---- zsh: the completion loads through compinit from vendor-completions, and an interactive
# zsh (zpty) completes with it
if ! command -v zsh >/dev/null; then
  fail "zsh is not installed (scripts/deps.sh installs it)"
  finish
fi
got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -d "$2"; source "$3" >/dev/null 2>&1; print -r -- ${_comps[llama-roofline]}' \
  zsh "$root/share/zsh/vendor-completions" "$work/zcompdump" "$zcomp" 2>&1)
check "zsh: compinit and the file load" 0 $?
[ "$got" = _llama-roofline ] && echo "ok   zsh: compinit binds llama-roofline to _llama-roofline" || fail "zsh: \$_comps[llama-roofline]: $got"
cat >"$work/hook.zsh" <<'EOF'
# every match a completion adds, written to $ZT_OUT; "=== tab" after each TAB
compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a __m
  builtin compadd -O __m "$@"
  (( $#__m )) && print -rl -- $__m >> $ZT_OUT
  builtin compadd "$@"
}
zt-tab() { zle complete-word; print -r -- '=== tab' >> $ZT_OUT; }
zle -N zt-tab
bindkey '^I' zt-tab
EOF
cat >"$work/drive.zsh" <<'EOF'
# zsh drive.zsh FPATHDIR HOOK OUT LINE...: types each LINE and a TAB into an interactive zsh
dir=$1 hook=$2 out=$3; shift 3
zmodload zsh/zpty || exit 3
tabs_done() { # until OUT has $1 lines "=== tab", draining the terminal meanwhile
  local i x
  for i in {1..600}; do
    [[ $(grep -c '^=== tab' $out 2>/dev/null) -ge $1 ]] && return 0
    zpty -r -t z x
    sleep 0.05
  done
  return 1
}
zpty z zsh -f -i
zpty -w z "PS1='> '; ZT_OUT=${(q)out}; fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -d ${(q)out}.dump; source ${(q)hook}"
integer n=0
for line in "$@"; do
  zpty -w z "print -r -- ${(q):-"--- $line"} >> \$ZT_OUT"
  zpty -w -n z "$line"$'\t'
  tabs_done $(( ++n )) || { print -u2 "no completion came for: $line"; zpty -d z; exit 1; }
  zpty -w z $'\C-u'
done
zpty -d z
EOF
: >"$work/zout"
timeout 120 zsh -f "$work/drive.zsh" "$root/share/zsh/vendor-completions" "$work/hook.zsh" "$work/zout" \
  'llama-roofline rep' 'llama-roofline run --n-' 'llama-roofline help ex' "llama-roofline inspect $work/f/model-" \
  "llama-roofline run -o $work/f/sub" 'llama-roofline synth --pre' 'llama-roofline hel'
check "zsh: an interactive zsh completed seven lines" 0 $?
zgot() { awk -v l="--- $1" '$0 == l { on = 1; next } /^(---|===) / { on = 0 } on' "$work/zout" | sort -u; }
[ "$(zgot 'llama-roofline rep')" = report ] && echo "ok   zsh: rep<TAB> is report" || fail "zsh: rep<TAB>: $(zgot 'llama-roofline rep')"
got=$(zgot 'llama-roofline run --n-')
for o in --n-prompt --n-gen --n-depth; do
  grep -qx -- "$o" <<<"$got" || fail "zsh: run --n-<TAB> lacks $o: $(tr '\n' ' ' <<<"$got")"
done
echo "ok   zsh: run --n-<TAB> offers --n-prompt, --n-gen, --n-depth"
[ "$(zgot 'llama-roofline help ex')" = export ] && echo "ok   zsh: help ex<TAB> is export" || fail "zsh: help ex<TAB>: $(zgot 'llama-roofline help ex')"
[ "$(zgot "llama-roofline inspect $work/f/model-")" = model-b.gguf ] && echo "ok   zsh: an operand completes a file name" ||
  fail "zsh: inspect FILE<TAB>: $(zgot "llama-roofline inspect $work/f/model-")"
[ "$(zgot "llama-roofline run -o $work/f/sub")" = "$(printf '%s\n' 'sub\ dir' subdir2)" ] && echo "ok   zsh: run -o DIR completes directories only" ||
  fail "zsh: run -o DIR<TAB>: $(zgot "llama-roofline run -o $work/f/sub")"
[ "$(zgot 'llama-roofline hel')" = help ] && echo "ok   zsh: hel<TAB> is help" || fail "zsh: hel<TAB>: $(zgot 'llama-roofline hel')"
[ "$(zgot 'llama-roofline synth --pre')" = --preset ] && echo "ok   zsh: synth --pre<TAB> is --preset" || fail "zsh: synth --pre<TAB>: $(zgot 'llama-roofline synth --pre')"
finish
