#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the GGUF test fixtures (python3 standard library only).

tests/fixtures/gguf-bad/   small corrupt or hostile files, each under 4 KB, and EXPECTED:
                           one line per file, "<file name><TAB><substring of the error>".
tests/fixtures/gguf/       small valid models with known numbers (tiny-valid.gguf untied,
                           tiny-tied.gguf tied, tiny-moe.gguf mixture of experts,
                           tiny-unknown-type.gguf with a tensor type id 250) and
                           EXPECTED.json with the values `inspect --json` must report;
                           split/ holds tiny-valid cut into two parts (-0000N-of-00002).
tests/fixtures/gguf-hostile/ small valid models whose strings attack a terminal:
                           hostile-name.gguf has escape sequences (OSC title, CSI), BEL and
                           C1 controls (U+009B CSI, U+0085 NEL) in general.name and in a
                           tensor name; printers must escape them.

The output is deterministic: run it again after changing it and commit what it writes.
usage: scripts/make-bad-gguf.py [REPO_ROOT]
"""
import json
import os
import struct
import sys

# GGUF metadata value types
U8, I8, U16, I16, U32, I32, F32V, BOOL, STR, ARR, U64, I64, F64V = range(13)
# ggml tensor types used here: id -> (block, bytes per block)
F32, F16, Q4_0, Q5_0, Q8_0 = 0, 1, 2, 6, 8
BLOCK = {F32: (1, 4), F16: (1, 2), Q4_0: (32, 18), Q5_0: (32, 22), Q8_0: (32, 34)}


def u8(v): return struct.pack("<B", v)
def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)
def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return u64(len(b)) + b


def header(n_tensors, n_kv, version=3, magic=b"GGUF"):
    return magic + u32(version) + u64(n_tensors) + u64(n_kv)


def kv_u32(key, v): return gstr(key) + u32(U32) + u32(v)
def kv_str(key, v): return gstr(key) + u32(STR) + gstr(v)


def kv_arr_str(key, items):
    return gstr(key) + u32(ARR) + u32(STR) + u64(len(items)) + b"".join(gstr(s) for s in items)


def tensor_info(name, dims, ttype, offset, n_dims=None):
    n = len(dims) if n_dims is None else n_dims
    return gstr(name) + u32(n) + b"".join(u64(d) for d in dims) + u32(ttype) + u64(offset)


UNKNOWN_TYPE = 250      # no ggml type has this id: readers must not guess its size
UNKNOWN_RESERVED = 256  # bytes the fixtures reserve for such a tensor's data


def tensor_bytes(dims, ttype):
    if ttype not in BLOCK:
        return UNKNOWN_RESERVED
    n = 1
    for d in dims:
        n *= d
    blk, size = BLOCK[ttype]
    return n // blk * size


def pad(b, align=32):
    return b + b"\0" * ((-len(b)) % align)


def model(kvs, tensors, align=32):
    """A complete file: tensors = [(name, dims, type)] packed at the alignment; the last
    tensor ends the file exactly."""
    table, offs, off = b"", [], 0
    for name, dims, ttype in tensors:
        offs.append(off)
        table += tensor_info(name, dims, ttype, off)
        off += tensor_bytes(dims, ttype)
        off += (-off) % align
    head = pad(header(len(tensors), len(kvs)) + b"".join(kvs) + table, align)
    data = bytearray()
    for (name, dims, ttype), o in zip(tensors, offs):
        data += b"\0" * (o - len(data))
        # a recognisable, deterministic pattern rather than zeros
        data += bytes((i * 7 + len(name)) & 0xFF for i in range(tensor_bytes(dims, ttype)))
    return head + bytes(data)


# ---- corrupt and hostile files ---------------------------------------------------------

def bad_files():
    ok_kv = kv_str("general.architecture", "llama")
    one = [("blk.0.w", [32, 2], F32)]  # 256 bytes
    f = {}
    f["empty.gguf"] = (b"", "empty file")
    f["short.gguf"] = (b"GGU", "too short for the magic")
    f["bad-magic.gguf"] = (header(0, 0, magic=b"GGML"), "bad magic 'GGML'")
    f["version1.gguf"] = (header(0, 0, version=1), "version 1 is no longer supported")
    f["version4.gguf"] = (header(0, 0, version=4), "unsupported GGUF version 4")
    f["big-endian.gguf"] = (b"GGUF" + struct.pack(">I", 3) + struct.pack(">Q", 0) * 2,
                            "big-endian")
    f["truncated-header.gguf"] = (b"GGUF" + u32(3) + u32(0), "truncated in the header")
    f["truncated-kv.gguf"] = ((header(0, 2) + ok_kv + kv_str("general.name", "cut here"))[:-4],
                              "truncated in the metadata (key 2 of 2)")
    f["huge-kv-count.gguf"] = (header(0, 1 << 40) + ok_kv, "implausible metadata count")
    f["kv-count-exceeds-file.gguf"] = (header(0, 60000) + ok_kv, "more than the")
    f["huge-string-length.gguf"] = (header(0, 1) + gstr("k") + u32(STR) + u64(1 << 62) + b"x" * 16,
                                    "implausible string length")
    f["huge-key-length.gguf"] = (header(0, 1) + u64(1 << 62) + b"x" * 16, "implausible key length")
    f["unknown-value-type.gguf"] = (header(0, 1) + gstr("k") + u32(13) + u64(0),
                                    "unknown value type 13")
    f["unknown-array-type.gguf"] = (header(0, 1) + gstr("k") + u32(ARR) + u32(77) + u64(0),
                                    "unknown value type 77")
    deep = gstr("deep") + u32(ARR) + u32(ARR) + u64(1) + u32(ARR) + u64(1) + u32(U8) + u64(1) + u8(0)
    f["nested-arrays-too-deep.gguf"] = (header(0, 1) + deep, "nested arrays too deep")
    f["huge-array-length.gguf"] = (header(0, 1) + gstr("a") + u32(ARR) + u32(U8) + u64(1 << 40)
                                   + b"\0" * 16, "implausible array length")
    f["array-cannot-fit.gguf"] = (header(0, 1) + gstr("a") + u32(ARR) + u32(U64) + u64(1 << 30)
                                  + b"\0" * 16, "cannot fit")
    f["string-array-cannot-fit.gguf"] = (header(0, 1) + gstr("a") + u32(ARR) + u32(STR)
                                         + u64(1 << 31) + b"\0" * 16, "cannot fit")
    f["invalid-utf8-key.gguf"] = (header(0, 1) + gstr(b"gen\xc3\x28ral") + u32(U8) + u8(0),
                                  "not valid UTF-8")
    f["overlong-utf8-key.gguf"] = (header(0, 1) + gstr(b"\xc0\xaf") + u32(U8) + u8(0),
                                   "not valid UTF-8")
    f["empty-key.gguf"] = (header(0, 1) + gstr("") + u32(U8) + u8(0), "empty key")
    f["duplicate-key.gguf"] = (header(0, 2) + kv_u32("llama.block_count", 1)
                               + kv_u32("llama.block_count", 2), "duplicate metadata key")
    f["huge-tensor-count.gguf"] = (header(1000000000, 0), "implausible tensor count")
    f["tensor-count-exceeds-file.gguf"] = (header(500000, 0) + b"\0" * 64, "more than the")
    f["huge-tensor-name.gguf"] = (header(1, 0) + u64(1 << 50) + b"\0" * 40,
                                  "implausible tensor name length")
    f["ndims-0.gguf"] = (pad(header(1, 0) + tensor_info("t", [], F32, 0, n_dims=0)) + b"\0" * 64,
                         "has 0 dimensions")
    f["ndims-9.gguf"] = (pad(header(1, 0) + tensor_info("t", [2] * 9, F32, 0)) + b"\0" * 64,
                         "has 9 dimensions")
    f["element-overflow.gguf"] = (pad(header(1, 0) + tensor_info("t", [1 << 32, 1 << 31, 4], F32, 0))
                                  + b"\0" * 64, "more elements than a 64-bit count")
    f["byte-size-overflow.gguf"] = (pad(header(1, 0) + tensor_info("t", [1 << 62], F32, 0))
                                    + b"\0" * 64, "larger than a 64-bit byte count")
    table = (tensor_info("a", [2, 2, 2, 1], F32, 0) + tensor_info("b", [2, 2, 2, 1], F32, 32)
             + tensor_info("c", [2, 2, 2, 1], F32, 64))
    f["truncated-tensor-table.gguf"] = (header(3, 0) + table[:102],
                                        "truncated in the tensor table (tensor 2 of 3)")
    f["offset-past-eof.gguf"] = (pad(header(1, 0) + tensor_info("t", [32], F32, 1 << 40))
                                 + b"\0" * 128, "extends past the end of the file")
    f["truncated-data.gguf"] = (pad(header(1, 1) + ok_kv + tensor_info("t", [32, 8], F32, 0))
                                + b"\0" * 1000, "extends past the end of the file")
    f["data-past-eof.gguf"] = (header(1, 0) + tensor_info("t", [32], F32, 0),
                               "past the end of the file")
    f["overlapping-tensors.gguf"] = (pad(header(2, 0) + tensor_info("a", [32], F32, 0)
                                         + tensor_info("b", [32], F32, 96)) + b"\0" * 256,
                                     "tensors 'a' and 'b' overlap")
    f["misaligned-offset.gguf"] = (pad(header(1, 0) + tensor_info("t", [8], F32, 8)) + b"\0" * 64,
                                   "not a multiple of the alignment 32")
    f["alignment-0.gguf"] = (header(0, 1) + kv_u32("general.alignment", 0), "not a power of two")
    f["alignment-3.gguf"] = (header(0, 1) + kv_u32("general.alignment", 3), "not a power of two")
    f["alignment-wrong-type.gguf"] = (header(0, 1) + gstr("general.alignment") + u32(U64) + u64(32),
                                      "expected uint32")
    f["duplicate-tensor-name.gguf"] = (pad(header(2, 0) + tensor_info("same", [8], F32, 0)
                                           + tensor_info("same", [8], F32, 32)) + b"\0" * 64,
                                       "duplicate tensor name 'same'")
    f["invalid-utf8-tensor-name.gguf"] = (pad(header(1, 0) + tensor_info(b"w\xff", [8], F32, 0))
                                          + b"\0" * 32, "not valid UTF-8")
    return f


# ---- valid models ----------------------------------------------------------------------

def llama_layer(i, ff_type=Q5_0):
    p = "blk.%d." % i
    return [
        (p + "attn_norm.weight", [32], F32),
        (p + "attn_q.weight", [32, 32], Q5_0),
        (p + "attn_k.weight", [32, 16], Q5_0),
        (p + "attn_v.weight", [32, 16], Q8_0),
        (p + "attn_output.weight", [32, 32], Q5_0),
        (p + "ffn_norm.weight", [32], F32),
        (p + "ffn_gate.weight", [32, 32], ff_type),
        (p + "ffn_up.weight", [32, 32], ff_type),
        (p + "ffn_down.weight", [32, 32], Q8_0),
    ]


def tokens(n):
    return ["<t%d>" % i for i in range(n)]


def valid_files():
    out = {}
    # Untied, labelled Q4_K_M, but no tensor row divides by 256: no Q4_K at all.
    kvs = [
        kv_str("general.architecture", "llama"),
        kv_str("general.name", "tiny untied"),
        kv_u32("general.file_type", 15),
        kv_u32("llama.block_count", 1),
        kv_u32("llama.context_length", 128),
        kv_u32("llama.embedding_length", 32),
        kv_u32("llama.feed_forward_length", 32),
        kv_u32("llama.attention.head_count", 4),
        kv_u32("llama.attention.head_count_kv", 2),
        kv_arr_str("tokenizer.ggml.tokens", tokens(32)),
    ]
    tensors = ([("token_embd.weight", [32, 32], Q8_0)] + llama_layer(0)
               + [("output_norm.weight", [32], F32), ("output.weight", [32, 32], Q8_0)])
    out["tiny-valid.gguf"] = (model(kvs, tensors), tensors)
    # The same model split in two parts as gguf-split writes it (metadata in the first).
    def split_kvs(no):
        return [gstr("split.no") + u32(U16) + struct.pack("<H", no),
                gstr("split.count") + u32(U16) + struct.pack("<H", 2),
                gstr("split.tensors.count") + u32(I32) + struct.pack("<i", len(tensors))]
    out["split/tiny-split-00001-of-00002.gguf"] = (model(kvs + split_kvs(0), tensors[:10]),
                                                   tensors[:10])
    out["split/tiny-split-00002-of-00002.gguf"] = (model(split_kvs(1), tensors[10:]), tensors[10:])

    # Tied (no output.weight), labelled Q8_0 and entirely Q8_0 in its layers; alignment 64.
    kvs = [
        kv_str("general.architecture", "qwen2"),
        kv_str("general.name", "tiny tied"),
        kv_u32("general.alignment", 64),
        kv_u32("general.file_type", 7),
        kv_u32("qwen2.block_count", 1),
        kv_u32("qwen2.context_length", 256),
        kv_u32("qwen2.embedding_length", 32),
        kv_u32("qwen2.feed_forward_length", 32),
        kv_u32("qwen2.attention.head_count", 4),
        kv_u32("qwen2.attention.head_count_kv", 1),
    ]
    p = "blk.0."
    tensors = [
        ("token_embd.weight", [32, 32], Q8_0),
        (p + "attn_norm.weight", [32], F32),
        (p + "attn_q.weight", [32, 32], Q8_0),
        (p + "attn_q.bias", [32], F32),
        (p + "attn_k.weight", [32, 16], Q8_0),
        (p + "attn_k.bias", [16], F32),
        (p + "attn_v.weight", [32, 16], Q8_0),
        (p + "attn_v.bias", [16], F32),
        (p + "attn_output.weight", [32, 32], Q8_0),
        (p + "ffn_norm.weight", [32], F32),
        (p + "ffn_gate.weight", [32, 32], Q8_0),
        (p + "ffn_up.weight", [32, 32], Q8_0),
        (p + "ffn_down.weight", [32, 32], Q8_0),
        ("output_norm.weight", [32], F32),
    ]
    out["tiny-tied.gguf"] = (model(kvs, tensors, align=64), tensors)

    # Mixture of experts: 4 experts, 2 used per token.
    kvs = [
        kv_str("general.architecture", "qwen3moe"),
        kv_str("general.name", "tiny moe"),
        kv_u32("general.file_type", 7),
        kv_u32("qwen3moe.block_count", 1),
        kv_u32("qwen3moe.context_length", 512),
        kv_u32("qwen3moe.embedding_length", 32),
        kv_u32("qwen3moe.expert_count", 4),
        kv_u32("qwen3moe.expert_used_count", 2),
        kv_u32("qwen3moe.attention.head_count", 4),
        kv_u32("qwen3moe.attention.head_count_kv", 2),
        kv_u32("qwen3moe.attention.key_length", 16),
        kv_u32("qwen3moe.attention.value_length", 8),
    ]
    tensors = [
        ("token_embd.weight", [32, 32], Q8_0),
        (p + "attn_norm.weight", [32], F32),
        (p + "attn_q.weight", [32, 32], Q8_0),
        (p + "attn_k.weight", [32, 16], Q8_0),
        (p + "attn_v.weight", [32, 16], Q8_0),
        (p + "attn_output.weight", [32, 32], Q8_0),
        (p + "ffn_norm.weight", [32], F32),
        (p + "ffn_gate_inp.weight", [32, 4], F32),
        (p + "ffn_gate_exps.weight", [32, 16, 4], Q8_0),
        (p + "ffn_up_exps.weight", [32, 16, 4], Q8_0),
        (p + "ffn_down_exps.weight", [32, 16, 4], Q8_0),
        ("output_norm.weight", [32], F32),
        ("output.weight", [32, 32], Q8_0),
    ]
    out["tiny-moe.gguf"] = (model(kvs, tensors), tensors)

    # A tensor of a type id this build does not know: its size is unknown, so the per-token
    # bytes cannot be computed (and must not be guessed).
    kvs = [kv_str("general.architecture", "llama"), kv_u32("general.file_type", 7)]
    tensors = [
        ("token_embd.weight", [32, 32], Q8_0),
        (p + "ffn_up.weight", [32, 32], UNKNOWN_TYPE),
        ("output.weight", [32, 32], Q8_0),
    ]
    out["tiny-unknown-type.gguf"] = (model(kvs, tensors), None)
    return out


def hostile_files():
    """Valid models whose metadata and tensor names hold terminal control sequences."""
    kvs = [
        kv_str("general.architecture", "llama"),
        kv_str("general.name", "evil\x1b]0;pwned\x07\x1b[31m red\u009b2J\u0085end"),
        kv_u32("general.file_type", 7),
        kv_u32("llama.block_count", 1),
    ]
    tensors = [
        ("token_embd.weight", [32, 4], Q8_0),
        ("blk.0.attn_q\x1b[2J\u009b2J.weight", [32, 1], Q8_0),
        ("output.weight", [32, 4], Q8_0),
    ]
    return {"hostile-name.gguf": model(kvs, tensors)}


def expected_numbers(data, tensors, used=None, count=None):
    """What inspect --json must report for a valid fixture (computed independently here)."""
    by = {name: tensor_bytes(d, t) for name, d, t in tensors}
    total = sum(by.values())
    embd = by.get("token_embd.weight", 0)
    tied = "output.weight" not in by
    streamed = total if tied else total - embd
    if used:
        exp = sum(b for n, b in by.items() if "_exps" in n)
        streamed = streamed - exp + (exp * used * 2 + count) // (2 * count)
    layer = [(n, d, t) for n, d, t in tensors if n.startswith("blk.") and t not in (F32, F16)]
    lb = sum(tensor_bytes(d, t) for n, d, t in layer)
    le = 0
    for n, d, t in layer:
        e = 1
        for x in d:
            e *= x
        le += e
    params = 0
    for n, d, t in tensors:
        e = 1
        for x in d:
            e *= x
        params += e
    return {"file_bytes": len(data), "tensor_bytes": total, "streamed_bytes": streamed,
            "tied_embeddings": tied, "n_tensors": len(tensors), "n_params": params,
            "repeating_bytes": lb, "bits_per_weight": round(8 * lb / le, 4) if le else None}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    bad_dir = os.path.join(root, "tests", "fixtures", "gguf-bad")
    ok_dir = os.path.join(root, "tests", "fixtures", "gguf")
    os.makedirs(bad_dir, exist_ok=True)
    os.makedirs(ok_dir, exist_ok=True)
    lines = []
    for name, (data, want) in sorted(bad_files().items()):
        assert len(data) < 4096, name
        with open(os.path.join(bad_dir, name), "wb") as fh:
            fh.write(data)
        lines.append("%s\t%s\n" % (name, want))
    with open(os.path.join(bad_dir, "EXPECTED"), "w") as fh:
        fh.writelines(lines)
    expected = {}
    models = valid_files()
    os.makedirs(os.path.join(ok_dir, "split"), exist_ok=True)
    for name, (data, tensors) in sorted(models.items()):
        with open(os.path.join(ok_dir, name), "wb") as fh:
            fh.write(data)
        if name.startswith("split/") or tensors is None:
            continue
        moe = name == "tiny-moe.gguf"
        expected[name] = expected_numbers(data, tensors, 2 if moe else None, 4 if moe else None)
    with open(os.path.join(ok_dir, "EXPECTED.json"), "w") as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
        fh.write("\n")
    hostile_dir = os.path.join(root, "tests", "fixtures", "gguf-hostile")
    os.makedirs(hostile_dir, exist_ok=True)
    hostile = hostile_files()
    for name, data in sorted(hostile.items()):
        assert len(data) < 4096, name
        with open(os.path.join(hostile_dir, name), "wb") as fh:
            fh.write(data)
    print("wrote %d corrupt files to %s, %d valid files to %s and %d hostile files to %s"
          % (len(lines), bad_dir, len(models), ok_dir, len(hostile), hostile_dir))


if __name__ == "__main__":
    main()
