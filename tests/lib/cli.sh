# SPDX-License-Identifier: MIT
# tests/lib/cli.sh: helpers shared by the CLI test scripts (sourced, not run by ctest).
# Each helper prints "ok   <what>" or "FAIL <what>: <why>" and counts failures in $fails;
# a script ends with `finish`, which prints "<n> failed" and exits non-zero if any did.
fails=0
# The machine's state (measure/quiet.c) is read from a fixed copy of /proc: every measurement a
# CLI test makes reads as quiet, so what a test expects does not depend on the load of the
# machine running the suite. A test of disturbance itself unsets it (or sets its own root).
if [ -z "${LLAMA_ROOFLINE_PROC_ROOT+set}" ] && [ -n "${RL_TMP:-}" ]; then
  LLAMA_ROOFLINE_PROC_ROOT="$RL_TMP/quiet-proc.$$"
  mkdir -p "$LLAMA_ROOFLINE_PROC_ROOT/proc/self"
  cp /proc/stat "$LLAMA_ROOFLINE_PROC_ROOT/proc/stat"
  cp /proc/self/stat "$LLAMA_ROOFLINE_PROC_ROOT/proc/self/stat"
  export LLAMA_ROOFLINE_PROC_ROOT
fi
# A CLI test never touches the user's cache (~/.cache/llama-roofline: the last diagnose
# bundle predict reads, the remote header cache, synth ladders): each script gets its own,
# removed by finish; a script that needs a particular one sets LLAMA_ROOFLINE_CACHE itself.
# End-to-end tests (RL_KIND=e2e) keep the real one: they reuse its big synth ladder.
rl_own_cache= rl_user_last="${HOME:-/nonexistent}/.cache/llama-roofline/last-bundle"
rl_user_last_was=$(cat "$rl_user_last" 2>/dev/null)
if [ "${RL_KIND:-cli}" = cli ] && [ -n "${RL_TMP:-}" ]; then
  rl_own_cache="$RL_TMP/cache.$$"
  export LLAMA_ROOFLINE_CACHE="$rl_own_cache"
fi
fail() { echo "FAIL $*"; fails=$((fails+1)); }
check() { # description, expected exit code, actual exit code; returns 1 when it failed
  if [ "$2" = "$3" ]; then echo "ok   $1"; else fail "$1: exit $3, expected $2"; return 1; fi
}
expect() { # description, text, extended regex the text must match
  if grep -Eq -- "$3" <<<"$2"; then echo "ok   $1"; else fail "$1: got: $2"; fi
}
json_check() { # description, JSON file, python expression over j that must be true
  local err
  if err=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$2" "$3" 2>&1); then
    echo "ok   $1"
  else
    fail "$1: $3 on $(head -c 400 "$2") $err"
    return 1
  fi
}
bad() { # description, expected rc, regex for the message, args to `llama-roofline $CMD`...
  # A bad invocation: the exit code, nothing on stdout, exactly one line on stderr, the message.
  # Needs $CMD (the subcommand) and $work (a scratch directory) set by the script.
  local what=$1 rc=$2 re=$3; shift 3
  local out err got
  out=$("$RL_BIN" "${CMD:?}" "$@" 2>"${work:?}/err"); got=$?
  err=$(cat "$work/err")
  check "$what" "$rc" "$got"
  [ -z "$out" ] || fail "$what: stdout not empty: $out"
  [ "$(wc -l <"$work/err")" = 1 ] || fail "$what: not one line: $err"
  expect "$what message" "$err" "$re"
}
interrupt_limit_ms() { # how long a Ctrl-C may take: the product's promise is one second;
  # an ASan+UBSan build (every load and store instrumented, its report writing several times
  # slower: ~0.4 s for run's interrupt path on a quiet 2-core VM, 1.15 s once seen under
  # ctest -j2 next to other sanitizer tests) is held to two
  if grep -q __asan_init "$RL_BIN" 2>/dev/null; then echo 2000; else echo 1000; fi
}
crafted=() # files the tool wrote that a test then broke on purpose (cut short, joined), or
# reports of such a bundle: the sweep below skips them
crafted() { crafted+=("$@"); }
sweep_bundles() { # every bundle and report the tool wrote under $work must pass validate:
  # nothing the tool writes may fail its own validate (issue 18). The tool's bundles are
  # known by cJSON's layout ("schema":<TAB>, which Python's json never writes: the tests'
  # hand-made bundles are skipped), its membw results (membw --json, -o) by their
  # "peak_read_GBs":<TAB> at the top level, its reports by their embedded bundle, its
  # comparisons (compare --json, compare -o pages) by their schema or embedded "compare".
  [ -n "${work:-}" ] && [ -d "$work" ] || return 0
  local f out n=0 c skip
  while IFS= read -r -d '' f; do
    skip=
    for c in "${crafted[@]}"; do [ "$c" -ef "$f" ] && skip=1; done
    [ -n "$skip" ] && continue
    case "$f" in
      *.html) grep -q -e 'type="application/json" id="bundle"' -e 'type="application/json" id="compare"' "$f" 2>/dev/null || continue ;;
      *) grep -q -e $'"schema":\t"llama-roofline-bundle"' -e $'"schema":\t"llama-roofline-compare"' -e $'^\t"peak_read_GBs":\t' "$f" 2>/dev/null ||
           continue ;;
    esac
    n=$((n+1))
    out=$("$RL_BIN" validate "$f" 2>&1) ||
      fail "a bundle the tool wrote fails validate: ${f#"$work"/}: $(head -c 800 <<<"$out")"
  done < <(find "$work" -type f \( -name '*.json' -o -name '*.html' \) -print0)
  echo "ok   $n written bundles and reports swept through validate"
}
finish() {
  sweep_bundles
  [ -n "$rl_own_cache" ] && rm -rf "$rl_own_cache"
  # (this CLI test changed it; an end-to-end test's diagnose keeps the real cache, ladder and all)
  if [ -n "$rl_own_cache" ] && [ "$(cat "$rl_user_last" 2>/dev/null)" != "$rl_user_last_was" ] &&
    grep -qF "$RL_TMP" "$rl_user_last" 2>/dev/null; then
    fail "the user's $rl_user_last names a test's bundle: a test wrote the real cache"
  fi
  echo "$fails failed"
  [ "$fails" = 0 ]
  exit
}
