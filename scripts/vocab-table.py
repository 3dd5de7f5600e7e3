#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/vocab-table.py: measure real GGUF vocabularies for the read-ahead estimate's table of
known vocabularies (src/model/gguf_vocab.c) (python3 standard library only).

Reads each GGUF given (by default every models/ggml-vocab-*.gguf of the pinned llama.cpp source,
scripts/llama-cpp.sh --source-dir) and prints, one C initialiser a file, what the remote reader
cannot see in its first block: tokenizer.ggml.model and .pre (the key; "" when absent), the
token count, the mean bytes of a token string over the whole array (its 8-byte length and text),
merges per token and the mean bytes of a merge string, whether tokenizer.ggml.scores is there and
the bytes of tokenizer.ggml.precompiled_charsmap. Paste the rows into gguf_vocab.c.
  --profile: print instead, per file, the mean text bytes of the tokens in each sixteenth of the
  array (the token-length profile the unit tests' synthetic vocabularies follow).
usage: scripts/vocab-table.py [--profile] [FILE.gguf ...]
"""
import glob
import os
import struct
import subprocess
import sys

SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STR, ARR = 8, 9


def read_vocab(path):
    """the tokenizer's keys: model, pre, token lengths, merge lengths, scores, charsmap bytes"""
    d = open(path, "rb").read()
    if d[:4] != b"GGUF":
        sys.exit(f"{path}: not a GGUF file")
    n_kv = struct.unpack_from("<Q", d, 16)[0]
    p = 24
    out = {"model": "", "pre": "", "tokens": [], "merges": [], "scores": False, "charsmap": 0}

    def string(p):
        n = struct.unpack_from("<Q", d, p)[0]
        return p + 8 + n, d[p + 8:p + 8 + n]

    def value(p, t):
        if t == STR:
            return string(p)
        if t == ARR:
            et, n = struct.unpack_from("<IQ", d, p)
            p += 12
            if et == STR:
                lens = []
                for _ in range(n):
                    q, s = string(p)
                    lens.append(len(s))
                    p = q
                return p, lens
            if et == ARR:
                sys.exit(f"{path}: nested arrays are not measured")
            return p + n * SCALAR[et], n * SCALAR[et]
        return p + SCALAR[t], None

    for _ in range(n_kv):
        p, key = string(p)
        t = struct.unpack_from("<I", d, p)[0]
        p, v = value(p + 4, t)
        key = key.decode()
        if key == "tokenizer.ggml.model":
            out["model"] = v.decode()
        elif key == "tokenizer.ggml.pre":
            out["pre"] = v.decode()
        elif key == "tokenizer.ggml.tokens":
            out["tokens"] = v
        elif key == "tokenizer.ggml.merges":
            out["merges"] = v
        elif key == "tokenizer.ggml.scores":
            out["scores"] = True
        elif key == "tokenizer.ggml.precompiled_charsmap":
            out["charsmap"] = v
    return out


def main():
    args = sys.argv[1:]
    profile = "--profile" in args
    files = [a for a in args if a != "--profile"]
    if not files:
        here = os.path.dirname(os.path.abspath(__file__))
        src = subprocess.run(["bash", os.path.join(here, "llama-cpp.sh"), "--source-dir"],
                             capture_output=True, text=True).stdout.strip().splitlines()
        files = sorted(glob.glob(os.path.join(src[-1] if src else "", "models", "ggml-vocab-*.gguf")))
        if not files:
            sys.exit("vocab-table.py: no llama.cpp source (scripts/llama-cpp.sh --source-dir); "
                     "give the GGUF files")
    for f in files:
        v = read_vocab(f)
        toks, merges, n = v["tokens"], v["merges"], len(v["tokens"])
        name = os.path.basename(f)
        stem = name[len("ggml-vocab-"):-len(".gguf")] if name.startswith("ggml-vocab-") else name
        if not n:
            print(f"/* {name}: no tokenizer.ggml.tokens */")
            continue
        if profile:
            parts = [toks[n * k // 16:n * (k + 1) // 16] for k in range(16)]
            print(f"{name}: " + ", ".join(f"{sum(x) / len(x):.1f}" for x in parts))
            continue
        tok = 8 + sum(toks) / n
        per = len(merges) / n
        merge = 8 + sum(merges) / len(merges) if merges else 0.0
        print(f'    {{"{v["model"]}", "{v["pre"]}", {n}, {tok:.2f}, {per:.3f}, {merge:.2f}, '
              f'{"true" if v["scores"] else "false"}, {v["charsmap"]}}}, /* {stem} */')


if __name__ == "__main__":
    main()
