#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CLI: `inspect` on every corrupt fixture (exit 2, one stderr line naming the file and the
# problem), on the valid fixtures (exact JSON numbers), --tensors, directories, missing files,
# FIFOs, mixed good and bad arguments, option syntax, hostile names and metadata (nothing
# reaches the terminal raw), an unwritable stdout, and --help.
#
# Every check looks at the exit status of llama-roofline itself (captured in $rc right after
# it ran, never the status of a grep or pipe after it) and prints exactly one "ok" or "FAIL"
# line of its own; a loop prints its "ok" only when nothing in it failed.
# How the checks were shown to fail: the script was run against binaries broken on purpose,
# one at a time, and every check failed under at least one of them (all 86 "ok" lines were
# matched against the FAIL lines of these runs):
#   - RL_BIN=/bin/true and RL_BIN=/bin/false (every exit status and most output checks);
#   - run() returning RL_OK although a model failed (inspect exits 0 on a corrupt file);
#   - gguf_text printing the path, general.name and tensor names raw (no rl_tty_escape), and
#     rl_fail not escaping (the hostile-name checks on stdout and on stderr);
#   - gguf_json writing the path as raw text (the JSON control-byte check);
#   - rl_file_open_regular opening without O_NONBLOCK (the FIFO check got rc 124);
#   - model_paths without de-duplication, and without sorting a directory;
#   - gguf_json with a key renamed (n_tensors);
#   - the label explanation printed whatever the on-label share;
#   - the usage printed to stdout on an unknown option;
#   - no check of stdout at the end (exit 0 on /dev/full).
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
BAD="$RL_SRC/tests/fixtures/gguf-bad"
OK="$RL_SRC/tests/fixtures/gguf"
HOSTILE="$RL_SRC/tests/fixtures/gguf-hostile"
T="$RL_TMP/inspect.$$"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
. "$RL_SRC/tests/lib/cli.sh"

# run ARG...: llama-roofline inspect ARG...; stdout in $T/out and $out, stderr in $T/err and
# $err, the exit status in $rc.
run() {
  "$RL_BIN" inspect "$@" >"$T/out" 2>"$T/err"
  rc=$?
  out=$(cat "$T/out")
  err=$(cat "$T/err")
}
has() { # description, text, fixed string the text must hold
  case "$2" in *"$3"*) echo "ok   $1" ;; *) fail "$1: no '$3' in: $(head -c 600 <<<"$2")" ;; esac
}
lacks() { # description, text, fixed string the text must not hold
  case "$2" in *"$3"*) fail "$1: '$3' found in: $(head -c 600 <<<"$2")" ;; *) echo "ok   $1" ;; esac
}
lines() { # description, text, expected number of lines
  local n=0
  [ -z "$2" ] || n=$(wc -l <<<"$2")
  [ "$n" = "$3" ] && echo "ok   $1" || fail "$1: $n lines, expected $3: $(head -c 600 <<<"$2")"
}
pycheck() { # description, args...: the Python script on stdin must exit 0
  local what=$1; shift
  python3 - "$@" >"$T/py" 2>&1
  local prc=$?
  [ "$prc" = 0 ] && echo "ok   $what" || fail "$what: $(tail -n 5 "$T/py")"
}
no_raw_controls() { # description, file...: no ESC, BEL, DEL or C1 control (UTF-8 C2 80..9F)
  local n
  n=$(cat "${@:2}" | LC_ALL=C grep -c -e $'\e' -e $'\a' -e $'\x7f' -e $'\xc2[\x80-\x9f]')
  [ "$n" = 0 ] && echo "ok   $1" || fail "$1: $n lines hold a raw control character"
}

# --- every corrupt fixture -------------------------------------------------------------
n=0
before=$fails
while IFS=$'\t' read -r name want; do
  [ -n "$name" ] || continue
  n=$((n+1))
  run "$BAD/$name"
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
  [ "$(wc -l <"$T/err")" = 1 ] || fail "$name: not one stderr line: $err"
  case "$err" in *"$BAD/$name: "*) ;; *) fail "$name: stderr does not name the file: $err" ;; esac
  case "$err" in *"$want"*) ;; *) fail "$name: stderr lacks '$want': $err" ;; esac
  [ -s "$T/out" ] && fail "$name: printed to stdout: $(head -c 200 "$T/out")"
  # with --json the array is still printed, empty
  run --json "$BAD/$name"
  [ "$rc" = 2 ] || fail "$name --json: exit $rc, expected 2"
  [ "$(tr -d ' \n\t' <"$T/out")" = "[]" ] || fail "$name --json: output '$out'"
done <"$BAD/EXPECTED"
[ "$n" -ge 16 ] || fail "only $n corrupt fixtures listed"
# every fixture file is listed in EXPECTED
for f in "$BAD"/*.gguf; do
  grep -q "^$(basename "$f")"$'\t' "$BAD/EXPECTED" || fail "$(basename "$f") missing from EXPECTED"
done
[ "$fails" = "$before" ] && echo "ok   $n corrupt fixtures rejected with the expected message"

# --- valid fixtures: exact JSON numbers ------------------------------------------------
run --json "$OK/tiny-valid.gguf" "$OK/tiny-tied.gguf" "$OK/tiny-moe.gguf"
check "inspect --json on the valid fixtures" 0 "$rc"
cp "$T/out" "$T/ok.json"
pycheck "valid fixture numbers" "$T/ok.json" "$OK/EXPECTED.json" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
bad = []
def eq(name, key, have, want):
    if have != want:
        bad.append("%s %s: %r, expected %r" % (name, key, have, want))
assert isinstance(got, list) and len(got) == 3, got
by = {o["path"].rsplit("/", 1)[-1]: o for o in got}
for name, e in exp.items():
    o = by[name]
    for k in ("file_bytes", "tensor_bytes", "streamed_bytes", "tied_embeddings", "n_tensors", "n_params"):
        eq(name, k, o[k], e[k])
    eq(name, "resident_bytes", o["resident_bytes"], e["file_bytes"])
    eq(name, "repeating_bytes", o["composition"]["repeating_bytes"], e["repeating_bytes"])
    eq(name, "bits_per_weight", o["composition"]["bits_per_weight"], e["bits_per_weight"])
    eq(name, "streamed_MiB", o["streamed_MiB"], round(e["streamed_bytes"] / 1048576, 3))
    eq(name, "n_shards", o["n_shards"], 1)
    eq(name, "sizes_known", o["sizes_known"], True)
    for k in ("path", "label", "architecture", "n_tensors", "n_params", "file_bytes", "resident_bytes",
              "streamed_bytes", "streamed_MiB", "kv_bytes_per_token", "tied_embeddings", "expert_count",
              "expert_used_count", "n_layer", "n_embd", "n_head", "n_head_kv", "head_dim",
              "context_length", "n_shards", "composition", "types"):
        if k not in o:
            bad.append("%s: no key %s" % (name, k))
v = by["tiny-valid.gguf"]
for k, want in (("label", "Q4_K_M"), ("architecture", "llama"), ("file_type", 15), ("n_layer", 1),
                ("n_embd", 32), ("n_head", 4), ("n_head_kv", 2), ("head_dim", 8),
                ("context_length", 128), ("kv_bytes_per_token", 64), ("n_vocab", 32),
                ("head_type", "Q8_0"), ("head_bytes", 1088), ("embedding_bytes", 1088),
                ("head_share_pct", 17.35), ("expert_count", 0), ("is_moe", False), ("name", "tiny untied")):
    eq("tiny-valid", k, v[k], want)
c = v["composition"]
eq("tiny-valid", "expected_type", c["expected_type"], "Q4_K")
eq("tiny-valid", "on_label_pct", c["on_label_pct"], 0.0)
eq("tiny-valid", "composition.types", c["types"], {"Q5_0": 66.0, "Q8_0": 34.0})
eq("tiny-valid", "types", v["types"], [
    {"type": "Q8_0", "n_tensors": 4, "bytes": 3808, "elements": 3584, "n_matrices": 3,
     "n_rows": 16 + 32 + 32},
    {"type": "Q5_0", "n_tensors": 5, "bytes": 3168, "elements": 4608, "n_matrices": 5,
     "n_rows": 32 + 16 + 32 + 32 + 32},
    {"type": "F32", "n_tensors": 3, "bytes": 384, "elements": 96, "n_matrices": 0, "n_rows": 0}])
t = by["tiny-tied.gguf"]
for k, want in (("label", "Q8_0"), ("architecture", "qwen2"), ("tied_embeddings", True),
                ("head_bytes", 1088), ("head_type", "Q8_0"), ("kv_bytes_per_token", 32),
                ("n_head_kv", 1), ("head_dim", 8), ("context_length", 256)):
    eq("tiny-tied", k, t[k], want)
eq("tiny-tied", "on_label_pct", t["composition"]["on_label_pct"], 100.0)
m = by["tiny-moe.gguf"]
for k, want in (("is_moe", True), ("expert_count", 4), ("expert_used_count", 2), ("expert_bytes", 6528),
                ("key_length", 16), ("value_length", 8), ("head_dim", 16),
                ("kv_bytes_per_token", 1 * 2 * (16 + 8) * 2)):
    eq("tiny-moe", k, m[k], want)
for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
EOF

# --- human output ----------------------------------------------------------------------
run "$OK/tiny-valid.gguf"
check "inspect (text)" 0 "$rc"
for want in "label       : Q4_K_M   architecture: llama" "0% Q4_K in the repeating layers, 6.25 bits per weight" \
            "Q5_0 66%, Q8_0 34%" "12 tensors" "64 bytes per token" "WHAT THE LABEL MEANS HERE" \
            "no Q4_K" "TENSOR TYPES"; do
  has "text output: $want" "$out" "$want"
done
run "$OK/tiny-tied.gguf"
check "inspect tied (text)" 0 "$rc"
has "tied model noted as tied" "$out" "(tied to the embedding)"
lacks "no label explanation when on label" "$out" "WHAT THE LABEL MEANS HERE"
run "$OK/tiny-moe.gguf"
check "inspect moe (text)" 0 "$rc"
has "MoE line" "$out" "2 of 4 used per token"

# a tensor type this build does not know: per-token bytes not computable, never guessed
run "$OK/tiny-unknown-type.gguf"
check "unknown type (text)" 0 "$rc"
has "unknown type: per-token line" "$out" "per token   : not computable"
expect "unknown type: type table row" "$out" "^    type250 +1 +\? +\?$"
run --json "$OK/tiny-unknown-type.gguf"
check "unknown type (json)" 0 "$rc"
pycheck "unknown type: sizes are null" "$T/out" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))[0]
for k in ("streamed_bytes", "streamed_MiB", "tensor_bytes", "head_bytes", "composition"):
    assert o[k] is None, (k, o[k])
assert o["sizes_known"] is False
assert o["types"] == [{"type": "Q8_0", "n_tensors": 2, "bytes": 2176, "elements": 2048, "n_matrices": 1,
                       "n_rows": 32},
                      {"type": "type250", "n_tensors": 1, "bytes": None, "elements": 1024, "n_matrices": 1,
                       "n_rows": 32}], o["types"]
EOF

# --- --tensors -------------------------------------------------------------------------
run --tensors "$OK/tiny-valid.gguf"
check "--tensors (text)" 0 "$rc"
has "--tensors: EVERY TENSOR section" "$out" "EVERY TENSOR"
expect "--tensors: ffn_down row" "$out" "  blk\.0\.ffn_down\.weight +Q8_0 +32x32 +0\.001 MB"
rows=$(grep -cE '^  [a-z0-9_.]+ +(Q8_0|Q5_0|F32) +[0-9x]+ +[0-9.]+ MB$' "$T/out")
[ "$rows" = 12 ] && echo "ok   --tensors: 12 tensor rows" || fail "--tensors: $rows tensor rows, expected 12"
run --json --tensors "$OK/tiny-tied.gguf"
check "--json --tensors" 0 "$rc"
pycheck "--json --tensors: every tensor" "$T/out" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))[0]
ts = o["tensors"]
assert len(ts) == 14, len(ts)
q = [t for t in ts if t["name"] == "blk.0.attn_k.weight"][0]
assert q == {"name": "blk.0.attn_k.weight", "type": "Q8_0", "dims": [32, 16], "elements": 512,
             "bytes": 544, "offset": q["offset"]}, q
assert q["offset"] % 64 == 0
assert sum(t["bytes"] for t in ts) == o["tensor_bytes"] == 8256
EOF

# --- option syntax: options and operands mixed, --, bad options ---------------------------
run "$OK/tiny-valid.gguf" --json --tensors
check "options after the operand" 0 "$rc"
pycheck "options after the operand: JSON with tensors" "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a) == 1 and len(a[0]["tensors"]) == 12, a
EOF
run --json -- --help
check "-- ends the options: --help is a file" 2 "$rc"
has "-- ends the options: message" "$err" "--help: no such file"
run --bogus "$OK/tiny-valid.gguf"
check "unknown option" 2 "$rc"
has "unknown option: message" "$err" "unknown option '--bogus' (see llama-roofline inspect --help)"
lines "unknown option: nothing on stdout" "$out" 0
run --json=yes "$OK/tiny-valid.gguf"
check "a value for --json" 2 "$rc"
has "a value for --json: message" "$err" "option '--json' takes no value"

# --- directories, missing files, mixed arguments ---------------------------------------
run --json "$OK"
check "inspect DIR" 0 "$rc"
pycheck "inspect DIR: sorted, split model once" "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
names = [o["path"].rsplit("/", 1)[-1] for o in a]
assert names == ["tiny-moe.gguf", "tiny-tied.gguf", "tiny-unknown-type.gguf", "tiny-valid.gguf"], names
EOF
run --json "$OK/tiny-valid.gguf" "$OK/tiny-valid.gguf" "$OK/./tiny-valid.gguf" "$OK"
check "a model named twice" 0 "$rc"
pycheck "a model named twice is reported once, first where first named" "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
names = [o["path"].rsplit("/", 1)[-1] for o in a]
assert names == ["tiny-valid.gguf", "tiny-moe.gguf", "tiny-tied.gguf", "tiny-unknown-type.gguf"], names
EOF
run "$T/nope.gguf"
check "missing file" 2 "$rc"
lines "missing file: one line" "$err" 1
has "missing file: message" "$err" "$T/nope.gguf: no such file"
mkdir -p "$T/empty"
run "$T/empty"
check "empty directory" 2 "$rc"
has "empty directory: message" "$err" "nothing to inspect: $T/empty matched no .gguf files"
run
check "no argument" 2 "$rc"
has "no argument: message" "$err" "nothing to inspect: give one or more GGUF files"
run --json "$OK/tiny-valid.gguf" "$BAD/bad-magic.gguf" "$T/nope.gguf"
check "mixed good and bad" 2 "$rc"
pycheck "mixed: the good file is in the array" "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
assert [o["label"] for o in a] == ["Q4_K_M"], a
EOF
lines "mixed: one error line per bad file" "$err" 2
has "mixed: bad-magic message" "$err" "bad-magic.gguf: not a GGUF file"
has "mixed: missing-file message" "$err" "nope.gguf: no such file"
# a split model: a directory lists only its first part, which loads every part
run --json --tensors "$OK/split"
check "inspect split DIR" 0 "$rc"
pycheck "split model: summed over its parts" "$T/out" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a) == 1, a
o = a[0]
assert o["path"].endswith("/tiny-split-00001-of-00002.gguf"), o["path"]
want = {"n_shards": 2, "file_bytes": 7648 + 1440, "resident_bytes": 9088, "n_tensors": 12,
        "tensor_bytes": 7360, "streamed_bytes": 6272, "label": "Q4_K_M", "tied_embeddings": False}
for k, v in want.items():
    assert o[k] == v, (k, o[k], v)
assert [t["shard"] for t in o["tensors"]] == [1] * 10 + [2] * 2
EOF
cp "$OK/split/tiny-split-00001-of-00002.gguf" "$T/"
run "$T/tiny-split-00001-of-00002.gguf"
check "missing split part" 2 "$rc"
lines "missing split part: one line" "$err" 1
has "missing split part: message" "$err" "missing shard 2 of 2"

# --- a FIFO never blocks --------------------------------------------------------------------
mkfifo "$T/f.gguf"
timeout 5 "$RL_BIN" inspect "$T/f.gguf" >"$T/out" 2>"$T/err"
rc=$?
err=$(cat "$T/err")
check "FIFO: exit 2 at once (124 would be the timeout)" 2 "$rc"
lines "FIFO: one line" "$err" 1
has "FIFO: names the file" "$err" "$T/f.gguf: "
has "FIFO: says why" "$err" "not a regular file"
mkdir "$T/fifodir"
mkfifo "$T/fifodir/g.gguf"
timeout 5 "$RL_BIN" inspect "$T/fifodir" >"$T/out" 2>"$T/err"
rc=$?
check "FIFO in a directory: skipped, nothing to inspect" 2 "$rc"
has "FIFO in a directory: message" "$(cat "$T/err")" "matched no .gguf files"

# --- hostile names and metadata never reach the terminal raw ---------------------------
evil=$'bad\e]0;pwned\a'
cp "$OK/tiny-valid.gguf" "$T/$evil.gguf"
run --tensors "$T/$evil.gguf"
check "hostile file name (text)" 0 "$rc"
no_raw_controls "hostile file name: no raw control bytes in the report" "$T/out" "$T/err"
has "hostile file name: shown escaped" "$out" '\e]0;pwned\x07.gguf  -  tiny untied'
run --json "$T/$evil.gguf"
check "hostile file name (json)" 0 "$rc"
no_raw_controls "hostile file name: no raw control bytes in JSON" "$T/out" "$T/err"
pycheck "hostile file name: JSON keeps the name exactly" "$T/out" "$T/$evil.gguf" <<'EOF'
import json, sys
assert json.load(open(sys.argv[1]))[0]["path"] == sys.argv[2]
EOF
cp "$BAD/bad-magic.gguf" "$T/$evil-broken.gguf"
run "$T/$evil-broken.gguf" "$T/$evil-missing.gguf"
check "hostile file names in errors" 2 "$rc"
no_raw_controls "hostile file names in errors: no raw control bytes" "$T/out" "$T/err"
has "hostile file names in errors: shown escaped" "$err" '\e]0;pwned\x07-broken.gguf: not a GGUF file'
has "hostile file names in errors: missing one escaped" "$err" '\e]0;pwned\x07-missing.gguf: no such file'
run --tensors "$HOSTILE/hostile-name.gguf"
check "hostile metadata (text)" 0 "$rc"
no_raw_controls "hostile metadata: no raw control bytes in the report" "$T/out" "$T/err"
has "hostile metadata: general.name escaped" "$out" 'red\u009b2J\u0085end'
has "hostile metadata: tensor name escaped" "$out" 'blk.0.attn_q\e[2J\u009b2J.weight'

# --- a report that cannot be written ---------------------------------------------------
"$RL_BIN" inspect "$OK/tiny-valid.gguf" >/dev/full 2>"$T/err"
rc=$?
check "stdout full (/dev/full): exit 4" 4 "$rc"
has "stdout full: message" "$(cat "$T/err")" "standard output could not be written"

# --- help ------------------------------------------------------------------------------
run --help
check "inspect --help" 0 "$rc"
for want in "usage: llama-roofline inspect" "--json" "--tensors" "exit codes" "example"; do
  has "--help: $want" "$out" "$want"
done

finish
