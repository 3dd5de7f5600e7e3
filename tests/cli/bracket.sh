#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: the ceiling's bracket and the interrupted end, against the fake llama-bench
# (tests/lib/fake-llama-bench). `run` of three models takes probes before, between and after
# the sweep into membw.bracket (validated); --no-bracket and --peak-bw take none and say so.
# Ctrl-C of `run`, `diagnose` and `advise --measure` exits 130 within a second, prints no answer block, names what
# was kept and the exact resume command (which then completes the run), the bundle validates,
# the report's interrupted banner stands above the headline.
# Before this change an interrupted run printed the summary's "answer:" block and only
# "error: interrupted": the no-answer and message checks failed (also the mutant
# session-interrupted-summary in tests/mutants.txt).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/cli-bracket.$$"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
. "$RL_SRC/tests/lib/cli.sh"
FAKE="$RL_SRC/tests/lib/fake-llama-bench"
for t in Q8_0 Q4_0 F16; do
  "$RL_BIN" synth --preset tiny --type $t -q -o "$work/$t.gguf" || fail "synth $t"
done
models=(-m "$work/Q8_0.gguf" -m "$work/Q4_0.gguf" -m "$work/F16.gguf")

# ---- three models: before, two between, after; the summary recomputes; validate agrees
"$RL_BIN" run --llama-bench "$FAKE" --quick-membw "${models[@]}" -t 1 -o "$work/b3" >"$work/b3.out" 2>&1
check "run, 3 models, bracketed: exit 0" 0 $?
json_check "bracket: probes before, between, between, after, in time order" "$work/b3/bundle.json" \
  '[p["at"] for p in j["membw"]["bracket"]["probes"]]==["before","between","between","after"] and all(a["t_s"]<b["t_s"] for a,b in zip(j["membw"]["bracket"]["probes"], j["membw"]["bracket"]["probes"][1:]))'
json_check "bracket: summary fields" "$work/b3/bundle.json" \
  'all(k in j["membw"]["bracket"] for k in ("before_GBs","after_GBs","between_GBs","spread_pct","drift","limit_pct","ceiling_used")) and j["membw"]["bracket"]["limit_pct"]==15 and j["membw"]["bracket"]["ceiling_used"]=="peak" and j["membw"]["bracket"]["before_GBs"]==j["membw"]["bracket"]["probes"][0]["GBs"] and j["membw"]["bracket"]["after_GBs"]==j["membw"]["bracket"]["probes"][3]["GBs"] and len(j["membw"]["bracket"]["between_GBs"])==2'
json_check "bracket: drift exactly when the spread is over the limit, with its warning" "$work/b3/bundle.json" \
  'j["membw"]["bracket"]["drift"]==(j["membw"]["bracket"]["spread_pct"]>15) and j["membw"]["bracket"]["drift"]==any(w["code"]=="ceiling_drift" and "the memory ceiling moved from" in w["text"] for w in j["warnings"])'
out=$("$RL_BIN" validate "$work/b3/bundle.json" 2>&1); check "bracketed bundle validates" 0 $?
# a tampered probe is caught by validate
python3 - "$work/b3/bundle.json" "$work/tampered.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
# half the lowest probe: a new lowest, so the recomputed spread differs whatever a loaded
# machine measured (half of the first probe was no new lowest when another dipped below it)
pr = j["membw"]["bracket"]["probes"]
pr[1]["GBs"] = min(p["GBs"] for p in pr) * 0.5
json.dump(j, open(sys.argv[2], "w"))
PY
out=$("$RL_BIN" validate "$work/tampered.json" 2>&1); check "a probe halved: validate exit 1 (invalid)" 1 $?
expect "a probe halved: the spread is named" "$out" "membw.bracket.spread_pct"

# ---- no probes: --no-bracket, --peak-bw, --skip-membw (each says why)
"$RL_BIN" run --llama-bench "$FAKE" --quick-membw --no-bracket "${models[@]}" -t 1 -o "$work/nb" >/dev/null 2>&1
check "--no-bracket: exit 0" 0 $?
json_check "--no-bracket: no probes, the reason" "$work/nb/bundle.json" \
  'j["membw"]["bracket"]=={"available": False, "reason": "not measured: --no-bracket"}'
"$RL_BIN" run --llama-bench "$FAKE" --peak-bw 40 "${models[@]}" -t 1 -o "$work/pk" >/dev/null 2>&1
json_check "--peak-bw: no probes, the reason" "$work/pk/bundle.json" \
  'j["membw"]["bracket"]["available"] is False and "--peak-bw" in j["membw"]["bracket"]["reason"]'
"$RL_BIN" run --llama-bench "$FAKE" --skip-membw "${models[@]}" -t 1 -o "$work/sk" >/dev/null 2>&1
json_check "--skip-membw: the reason says no probes" "$work/sk/bundle.json" \
  '"no probes" in j["membw"]["reason"]'
h=$("$RL_BIN" run --help); expect "run --help: --no-bracket and its limit" "$h" "--no-bracket .*|apart are a ceiling_drift warning"
h=$("$RL_BIN" diagnose --help); expect "diagnose --help: --no-bracket" "$h" "--no-bracket"

# ---- Ctrl-C: exit 130 in time, no answer block, what is kept and the exact resume command
interrupt() { # what, dir, command args...
  local what=$1 dir=$2; shift 2
  FAKE_MODE=hang FAKE_MODE_AT=2 "$RL_BIN" "$@" >"$work/$what.out" 2>"$work/$what.err" &
  local pid=$!
  for _ in $(seq 300); do
    python3 - "$dir/bundle.json" 2>/dev/null <<'PY' && break
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["threads"] == 2 and len(r.get("records", [])) == 1 for r in j["models"][0]["runs"]) else 1)
PY
    sleep 0.1
  done
  local t0 rc ms lim
  t0=$(date +%s%N); kill -INT "$pid"; wait "$pid"; rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  check "$what Ctrl-C: exit 130" 130 "$rc"
  lim=$(interrupt_limit_ms)
  [ "$ms" -lt "$lim" ] && echo "ok   $what Ctrl-C honoured in $ms ms (limit $lim)" || fail "$what Ctrl-C took $ms ms (limit $lim)"
  grep -q "answer" "$work/$what.out" "$work/$what.err" && fail "$what Ctrl-C: an answer block: $(cat "$work/$what.out")" || echo "ok   $what Ctrl-C: no answer block"
  json_check "$what Ctrl-C: status interrupted" "$dir/bundle.json" 'j["status"]["state"]=="interrupted"'
  "$RL_BIN" validate "$dir/bundle.json" >/dev/null 2>&1; check "$what Ctrl-C: the bundle validates" 0 $?
}
interrupt run "$work/int" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/Q8_0.gguf" -m "$work/Q4_0.gguf" -t 1,2 -o "$work/int"
want="llama-roofline run: error: interrupted: kept 1 of 4 runs in $work/int/bundle.json; resume with: llama-roofline run --resume --llama-bench $FAKE -o $work/int"
[ "$(tail -n 1 "$work/run.err")" = "$want" ] && echo "ok   run Ctrl-C: the message and the exact resume command" || fail "run Ctrl-C message: $(cat "$work/run.err") (wanted: $want)"
python3 - "$work/int/report.html" <<'PY' && echo "ok   run Ctrl-C: the report's interrupted banner is above the headline" || fail "run Ctrl-C: no interrupted banner above the headline"
import sys
s = open(sys.argv[1]).read()
i, h = s.find('data-banner="interrupted"'), s.find('id="headline"')
sys.exit(0 if 0 <= i < h else 1)
PY
cmd=$(sed -n 's/.*resume with: llama-roofline //p' "$work/run.err")
eval "\"\$RL_BIN\" $cmd" >"$work/resumed.out" 2>&1; check "the printed resume command completes the run" 0 $?
json_check "resumed: every run ok" "$work/int/bundle.json" \
  'j["status"]["state"]=="complete" and all(r["status"]=="ok" for m in j["models"] for r in m["runs"])'
interrupt diagnose "$work/dint" diagnose --llama-bench "$FAKE" --peak-bw 40 -t 1,2 -o "$work/dint" "$work/Q8_0.gguf" "$work/Q4_0.gguf"
expect "diagnose Ctrl-C: the diagnose resume command" "$(cat "$work/diagnose.err")" \
  "interrupted: kept 1 of 4 runs in .*/dint/bundle.json; resume with: llama-roofline diagnose --resume --llama-bench .* -o .*/dint$"
interrupt advise "$work/aint" advise --measure --llama-bench "$FAKE" -m "$work/Q8_0.gguf" -m "$work/Q4_0.gguf" -t 1,2 --dir "$work/aint"
expect "advise --measure Ctrl-C: what is kept, no resume to offer" "$(cat "$work/advise.err")" \
  "interrupted: kept 1 of 4 runs in .*/aint/bundle.json; advise has no --resume: run it again to measure the rest$"
grep -q "measured on this machine" "$work/advise.out" && fail "advise --measure Ctrl-C: the advice printed as if complete" || echo "ok   advise --measure Ctrl-C: no advice printed"
# a directory that needs quoting is quoted for sh
mkdir -p "$work/sp"
interrupt quoted "$work/sp/a b" run --llama-bench "$FAKE" --peak-bw 40 -m "$work/Q8_0.gguf" -t 1,2 -o "$work/sp/a b"
expect "Ctrl-C: a directory with a space is quoted" "$(cat "$work/quoted.err")" "-o '$work/sp/a b'$"

finish
