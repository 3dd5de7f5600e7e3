/* SPDX-License-Identifier: MIT */
/* gguf.h: read the header, metadata and tensor table of a GGUF file (versions 2 and 3,
 * little-endian), never the tensor data.
 *
 * Every count, length and offset in the file is untrusted: counts and string lengths are
 * bounded before anything is allocated, every read is checked, and tensor offsets are checked
 * against the alignment, the data section and the file size, and for overlap. A failure is one
 * line naming the file and the problem (RL_EINPUT). Memory held is bounded by what is returned:
 * scalar arrays are skipped (only their type and length are kept), string arrays keep at most
 * GGUF_KEEP_STRINGS elements (the rest are validated and skipped).
 *
 * Ownership: rl_gguf_read* return a rl_gguf_file the caller frees with rl_gguf_free; every pointer
 * inside it (keys, strings, tensor names) is owned by that rl_gguf_file. */
#ifndef RL_GGUF_H
#define RL_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rl_error.h"

#define GGUF_MAX_DIMS 4
#define GGUF_MAX_KV 65536           /* metadata pairs */
#define GGUF_MAX_TENSORS 1000000    /* tensor infos */
#define GGUF_MAX_STRING (64u << 20) /* bytes in one string */
#define GGUF_MAX_KEY 65535          /* bytes in one key or tensor name */
#define GGUF_MAX_ARRAY (1ull << 32) /* elements in one array */
#define GGUF_KEEP_STRINGS 64        /* string-array elements kept in memory */
#define GGUF_SCAN_INTS 65536        /* integer arrays up to this length are read (max, sum) */
#define GGUF_MAX_NESTING 2          /* array levels: an array of arrays, no deeper */
#define GGUF_DEFAULT_ALIGNMENT 32

/* Metadata value types, numbered as in the GGUF specification. */
typedef enum {
    GGUF_T_UINT8 = 0,
    GGUF_T_INT8 = 1,
    GGUF_T_UINT16 = 2,
    GGUF_T_INT16 = 3,
    GGUF_T_UINT32 = 4,
    GGUF_T_INT32 = 5,
    GGUF_T_FLOAT32 = 6,
    GGUF_T_BOOL = 7,
    GGUF_T_STRING = 8,
    GGUF_T_ARRAY = 9,
    GGUF_T_UINT64 = 10,
    GGUF_T_INT64 = 11,
    GGUF_T_FLOAT64 = 12,
    GGUF_T_COUNT = 13
} rl_gguf_vtype;

typedef struct {
    char *key; /* NUL-terminated as stored; invalid UTF-8 is rejected */
    rl_gguf_vtype type;
    union {
        uint64_t u; /* UINT8/16/32/64, BOOL (0 or 1) */
        int64_t i;  /* INT8/16/32/64 */
        double f;   /* FLOAT32/64 */
        struct {
            char *s; /* NUL-terminated copy (a string with an embedded NUL is cut there) */
            uint64_t len;
        } str;
        struct {
            rl_gguf_vtype elem; /* element type (may itself be ARRAY for nested arrays) */
            uint64_t len;
            uint32_t n_kept; /* STRING arrays: first min(len, GGUF_KEEP_STRINGS) kept */
            char **strs;
            /* Integer arrays of at most GGUF_SCAN_INTS elements are read rather than skipped:
             * int_scanned is true when every element is non-negative and their sum fits in
             * uint64 (per-layer head counts). */
            bool int_scanned;
            uint64_t int_max;
            uint64_t int_sum;
        } arr;
    } v;
} rl_gguf_kv;

typedef struct {
    char *name;
    uint32_t n_dims;
    uint64_t ne[GGUF_MAX_DIMS]; /* unused dims are 1 */
    uint32_t type;              /* rl_ggml_type id */
    uint64_t offset;            /* relative to the data section */
    uint64_t n_elements;
    uint64_t n_bytes; /* 0 when !sized */
    bool sized;       /* type known and the row (ne[0]) divisible by its block size */
} rl_gguf_tensor;

typedef struct {
    char *path;
    uint32_t version;
    uint64_t file_size;
    uint64_t n_kv;
    rl_gguf_kv *kv;
    uint64_t n_tensors;
    rl_gguf_tensor *tensors;
    uint64_t alignment;   /* general.alignment or 32 */
    uint64_t data_offset; /* start of the tensor data section */
    uint64_t bytes_read;  /* header bytes consumed by the parser */
} rl_gguf_file;

/* Read path's header and tensor table. */
rl_status rl_gguf_read_file(const char *path, rl_gguf_file **out, rl_error *err);
/* The same over a memory buffer (fuzzing, tests); name is used in messages. */
rl_status rl_gguf_read_buffer(const void *data, size_t len, const char *name, rl_gguf_file **out,
                              rl_error *err);
/* The reader source: any stream positioned at the start of a GGUF whose total size is size
 * bytes (tensor offsets are checked against it). Only the header and tensor table are read,
 * sequentially apart from forward seeks over skipped arrays; a stream may deliver short reads.
 * fp is left open (the caller's). Used by rl_gguf_read_file/_buffer, the remote reader
 * (gguf_remote.h, fopencookie over an HTTP block cache) and predictions from a synth plan's
 * in-memory header. */
rl_status rl_gguf_read_stream(FILE *fp, uint64_t size, const char *name, rl_gguf_file **out,
                              rl_error *err);

/* Read-ahead for a source that fetches in requests (gguf_remote.c): while it reads, the parser
 * keeps end at its estimate of the byte where the header and tensor table end (0 until it has
 * one), from the counts announced so far and the bytes seen: the rest of the array it is in,
 * the per-token arrays that follow tokenizer.ggml.tokens (token_type, then scores for a
 * SentencePiece vocabulary or merges for a "gpt2" BPE one; for a vocabulary it knows,
 * gguf_vocab.h, what was measured of it), the metadata pairs left, the tensor table from
 * n_tensors, and a margin (gguf.c, "read-ahead estimate"). high (>= end) is how far a request
 * may reach to cover a guess that falls a little short: end for a known vocabulary, 1/16 more
 * than end expects past the position otherwise. Both are guesses from untrusted counts, never
 * past the file's size: the source must cap what it fetches on them. The header is read as by
 * rl_gguf_read_stream; ahead may be NULL. */
typedef struct {
    uint64_t end;
    uint64_t high;
} rl_gguf_ahead;
rl_status rl_gguf_read_stream_ahead(FILE *fp, uint64_t size, const char *name, rl_gguf_ahead *ahead,
                                    rl_gguf_file **out, rl_error *err);
void rl_gguf_free(rl_gguf_file *f);

const rl_gguf_kv *rl_gguf_find(const rl_gguf_file *f, const char *key);
/* Typed look-ups: true when key exists with a compatible type (any integer type for
 * rl_gguf_get_u64 if the value is non-negative; integer or float for rl_gguf_get_f64). */
bool rl_gguf_get_u64(const rl_gguf_file *f, const char *key, uint64_t *out);
bool rl_gguf_get_f64(const rl_gguf_file *f, const char *key, double *out);
const char *rl_gguf_get_str(const rl_gguf_file *f, const char *key);
const char *rl_gguf_vtype_name(rl_gguf_vtype t);

#endif
