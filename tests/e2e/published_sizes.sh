#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end: a synth F16 qwen2.5-0.5b, quantized by the real llama-quantize into eight
# formats, must reproduce the published streamed sizes (within 0.2%) and the published
# composition (data/qwen2.5_format_composition.csv) in `inspect --json`.
# Quantized files are cached by the F16 file's sha256 and the llama.cpp pin, since
# llama-quantize's output depends only on those.
set -euo pipefail
[ -n "${LLAMA_BIN_DIR:-}" ] || { echo "skip: LLAMA_BIN_DIR not set"; exit 77; }
: "${RL_BIN:?}" "${RL_SRC:?}" "${RL_TMP:?}"
work="$RL_TMP/e2e-published"
cache="${LLAMA_ROOFLINE_CACHE:-$HOME/.cache/llama-roofline}/quantized"
mkdir -p "$work" "$cache"
f16="$work/qwen2.5-0.5b-F16.gguf"

"$RL_BIN" synth --preset qwen2.5-0.5b --type F16 --seed 1 -o "$f16"
key=$(sha256sum "$f16" | cut -c1-16)-$(printf %s "$LLAMA_BIN_DIR" | sha256sum | cut -c1-8)
formats=(Q4_0 Q8_0 IQ4_NL IQ4_XS Q6_K Q4_K_M Q3_K_M Q2_K)
files=()
for fmt in "${formats[@]}"; do
  out="$cache/qwen2.5-0.5b-$key-$fmt.gguf"
  if [ ! -s "$out" ]; then
    echo "quantizing to $fmt"
    "$LLAMA_BIN_DIR/llama-quantize" "$f16" "$out.tmp" "$fmt" >"$work/quantize-$fmt.log" 2>&1 || {
      tail -5 "$work/quantize-$fmt.log"; echo "FAIL: llama-quantize $fmt"; exit 1; }
    mv "$out.tmp" "$out"
  fi
  ln -sf "$out" "$work/qwen2.5-0.5b-$fmt.gguf"
  files+=("$work/qwen2.5-0.5b-$fmt.gguf")
done
rm -f "$f16"
"$RL_BIN" inspect --json "${files[@]}" >"$work/inspect.json"

python3 - "$work/inspect.json" "$RL_SRC/data/qwen2.5_format_composition.csv" <<'PY'
import csv, json, sys
got = {o["path"].rsplit("-", 1)[1][:-5]: o for o in json.load(open(sys.argv[1]))}
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["params_b"] == "0.5"]
fails = 0
def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok
for r in rows:
    fmt = r["format"]; o = got[fmt]; c = o["composition"]
    want = float(r["matrix_streamed_MiB"]); mib = o["streamed_bytes"] / 2**20
    check(abs(mib / want - 1) <= 0.002, f"{fmt}: streamed {mib:.1f} MiB, published {want} MiB")
    check(o["label"] == fmt, f"{fmt}: label {o['label']}")
    check(abs(c["on_label_pct"] - float(r["on_label_pct"])) <= 0.1,
          f"{fmt}: on-label {c['on_label_pct']:.1f}%, published {r['on_label_pct']}%")
    check(abs(c["bits_per_weight"] - float(r["bits_per_weight"])) <= 0.005,
          f"{fmt}: {c['bits_per_weight']:.3f} bits per weight, published {r['bits_per_weight']}")
    for sub in filter(None, (s.strip() for s in r["main_substitutes_of_repeating_layer_bytes"].split(";"))):
        t, pct = sub.split(); pct = float(pct.rstrip("%"))
        have = c["types"].get(t, 0.0)
        check(abs(have - pct) <= 0.5, f"{fmt}: {t} {have:.1f}% of repeating-layer bytes, published {pct:.0f}%")
print(f"{sum(1 for _ in rows)} formats checked, {fails} failures")
sys.exit(1 if fails else 0)
PY
