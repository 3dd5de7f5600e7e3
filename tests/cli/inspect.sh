#!/usr/bin/env bash
# CLI: `inspect` on every corrupt fixture (exit 2, one stderr line naming the file and the
# problem), on the valid fixtures (exact JSON numbers), --tensors, directories, missing files,
# mixed good and bad arguments, and --help.
set -u
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
BAD="$RL_SRC/tests/fixtures/gguf-bad"
OK="$RL_SRC/tests/fixtures/gguf"
T="$RL_TMP/inspect.$$"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
. "$RL_SRC/tests/lib/cli.sh"

# --- every corrupt fixture -------------------------------------------------------------
n=0
while IFS=$'\t' read -r name want; do
  [ -n "$name" ] || continue
  n=$((n+1))
  "$RL_BIN" inspect "$BAD/$name" >"$T/out" 2>"$T/err"
  rc=$?
  [ "$rc" = 2 ] || fail "$name: exit $rc, expected 2"
  lines=$(wc -l <"$T/err")
  [ "$lines" = 1 ] || fail "$name: $lines stderr lines, expected 1: $(cat "$T/err")"
  grep -qF -- "$BAD/$name: " "$T/err" || fail "$name: stderr does not name the file: $(cat "$T/err")"
  grep -qF -- "$want" "$T/err" || fail "$name: stderr lacks '$want': $(cat "$T/err")"
  [ -s "$T/out" ] && fail "$name: printed to stdout: $(head -c 200 "$T/out")"
  # with --json the array is still printed, empty
  out=$("$RL_BIN" inspect --json "$BAD/$name" 2>/dev/null); rc=$?
  [ "$rc" = 2 ] && [ "$(tr -d ' \n\t' <<<"$out")" = "[]" ] || fail "$name --json: exit $rc, output '$out'"
done <"$BAD/EXPECTED"
[ "$n" -ge 16 ] || fail "only $n corrupt fixtures listed"
echo "ok   $n corrupt fixtures rejected with the expected message"
# every fixture file is listed in EXPECTED
for f in "$BAD"/*.gguf; do
  grep -q "^$(basename "$f")"$'\t' "$BAD/EXPECTED" || fail "$(basename "$f") missing from EXPECTED"
done

# --- valid fixtures: exact JSON numbers ------------------------------------------------
"$RL_BIN" inspect --json "$OK/tiny-valid.gguf" "$OK/tiny-tied.gguf" "$OK/tiny-moe.gguf" >"$T/ok.json"
check "inspect --json on the valid fixtures" 0 $?
python3 - "$T/ok.json" "$OK/EXPECTED.json" <<'EOF' || fails=$((fails+1))
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
    {"type": "Q8_0", "n_tensors": 4, "bytes": 3808, "elements": 3584},
    {"type": "Q5_0", "n_tensors": 5, "bytes": 3168, "elements": 4608},
    {"type": "F32", "n_tensors": 3, "bytes": 384, "elements": 96}])
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
echo "ok   valid fixture numbers checked"

# --- human output ----------------------------------------------------------------------
out=$("$RL_BIN" inspect "$OK/tiny-valid.gguf"); check "inspect (text)" 0 $?
for want in "label       : Q4_K_M   architecture: llama" "0% Q4_K in the repeating layers, 6.25 bits per weight" \
            "Q5_0 66%, Q8_0 34%" "12 tensors" "64 bytes per token" "WHAT THE LABEL MEANS HERE" \
            "no Q4_K" "TENSOR TYPES"; do
  grep -qF -- "$want" <<<"$out" || fail "text output lacks '$want'"
done
out=$("$RL_BIN" inspect "$OK/tiny-tied.gguf"); check "inspect tied (text)" 0 $?
grep -qF "(tied to the embedding)" <<<"$out" || fail "tied model not noted as tied"
grep -qF "WHAT THE LABEL MEANS HERE" <<<"$out" && fail "explanation printed although on label"
out=$("$RL_BIN" inspect "$OK/tiny-moe.gguf"); check "inspect moe (text)" 0 $?
grep -qF "2 of 4 used per token" <<<"$out" || fail "MoE line missing"

# a tensor type this build does not know: per-token bytes not computable, never guessed
out=$("$RL_BIN" inspect "$OK/tiny-unknown-type.gguf"); check "unknown type (text)" 0 $?
grep -qF "per token   : not computable" <<<"$out" || fail "unknown type: per-token line"
grep -qE "^    type250 +1 +\? +\?$" <<<"$out" || fail "unknown type: type table row"
out=$("$RL_BIN" inspect --json "$OK/tiny-unknown-type.gguf"); check "unknown type (json)" 0 $?
python3 - "$out" <<'EOF' || fails=$((fails+1))
import json, sys
o = json.loads(sys.argv[1])[0]
for k in ("streamed_bytes", "streamed_MiB", "tensor_bytes", "head_bytes", "composition"):
    assert o[k] is None, (k, o[k])
assert o["sizes_known"] is False
assert o["types"] == [{"type": "Q8_0", "n_tensors": 2, "bytes": 2176, "elements": 2048},
                      {"type": "type250", "n_tensors": 1, "bytes": None, "elements": 1024}], o["types"]
EOF

# --- --tensors -------------------------------------------------------------------------
out=$("$RL_BIN" inspect --tensors "$OK/tiny-valid.gguf"); check "--tensors (text)" 0 $?
grep -qF "EVERY TENSOR" <<<"$out" || fail "--tensors: no EVERY TENSOR section"
grep -qE "^  blk\.0\.ffn_down\.weight +Q8_0 +32x32 +0\.001 MB$" <<<"$out" || fail "--tensors: ffn_down row"
[ "$(grep -cE '^  [a-z0-9_.]+ +(Q8_0|Q5_0|F32) +[0-9x]+ +[0-9.]+ MB$' <<<"$out")" = 12 ] || fail "--tensors: not 12 tensor rows"
"$RL_BIN" inspect --json --tensors "$OK/tiny-tied.gguf" >"$T/t.json"; check "--json --tensors" 0 $?
python3 - "$T/t.json" <<'EOF' || fails=$((fails+1))
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
echo "ok   --tensors checked"

# --- directories, missing files, mixed arguments ---------------------------------------
out=$("$RL_BIN" inspect --json "$OK"); check "inspect DIR" 0 $?
python3 -c 'import json,sys; a=json.loads(sys.argv[1]); names=[o["path"].rsplit("/",1)[-1] for o in a]; assert names==["tiny-moe.gguf","tiny-tied.gguf","tiny-unknown-type.gguf","tiny-valid.gguf"], names' "$out" \
  || fail "directory listing: $out"
err=$("$RL_BIN" inspect "$T/nope.gguf" 2>&1 >/dev/null); check "missing file" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && grep -qF "$T/nope.gguf: no such file" <<<"$err" || fail "missing-file message: $err"
mkdir -p "$T/empty"
err=$("$RL_BIN" inspect "$T/empty" 2>&1 >/dev/null); check "empty directory" 2 $?
grep -qF "nothing to inspect" <<<"$err" || fail "empty-directory message: $err"
err=$("$RL_BIN" inspect 2>&1 >/dev/null); check "no argument" 2 $?
grep -qF "nothing to inspect" <<<"$err" || fail "no-argument message: $err"
err=$("$RL_BIN" inspect --bogus "$OK/tiny-valid.gguf" 2>&1 >/dev/null); check "unknown option" 2 $?
grep -qF "unknown option '--bogus'" <<<"$err" || fail "unknown-option message: $err"
out=$("$RL_BIN" inspect --json "$OK/tiny-valid.gguf" "$BAD/bad-magic.gguf" "$T/nope.gguf" 2>"$T/err"); check "mixed good and bad" 2 $?
python3 -c 'import json,sys; a=json.loads(sys.argv[1]); assert [o["label"] for o in a]==["Q4_K_M"], a' "$out" || fail "mixed: good file not in the array"
[ "$(wc -l <"$T/err")" = 2 ] || fail "mixed: expected 2 error lines: $(cat "$T/err")"
grep -qF "bad-magic.gguf: not a GGUF file" "$T/err" && grep -qF "nope.gguf: no such file" "$T/err" || fail "mixed: messages: $(cat "$T/err")"
# a split model: a directory lists only its first part, which loads every part
out=$("$RL_BIN" inspect --json --tensors "$OK/split"); check "inspect split DIR" 0 $?
python3 - "$out" <<'EOF' || fails=$((fails+1))
import json, sys
a = json.loads(sys.argv[1])
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
err=$("$RL_BIN" inspect "$T/tiny-split-00001-of-00002.gguf" 2>&1 >/dev/null); check "missing split part" 2 $?
[ "$(wc -l <<<"$err")" = 1 ] && grep -qF "missing shard 2 of 2" <<<"$err" || fail "missing-part message: $err"

# --- help ------------------------------------------------------------------------------
out=$("$RL_BIN" inspect --help); check "inspect --help" 0 $?
for want in "usage: llama-roofline inspect" "--json" "--tensors" "exit codes" "example"; do
  grep -qF -- "$want" <<<"$out" || fail "--help lacks '$want'"
done

finish
