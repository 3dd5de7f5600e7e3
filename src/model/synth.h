/* SPDX-License-Identifier: MIT */
/* synth.h: random-weight GGUF models that the real llama.cpp loads and runs: the plan.
 *
 * A preset gives the exact tensor names, shapes and metadata of a real model's canonical GGUF
 * file (or a tiny test model); a rl_synth_config is a preset plus the caller's overrides (shape,
 * weight type, tied head, seed). rl_synth_plan_build validates a config and lays the file out in
 * memory without writing anything: the tensor table (names, shapes, types, offsets, sizes) and
 * the complete header bytes (metadata with an SPM vocabulary, tensor infos). Every element
 * count, byte size, their sums and the file size are computed with checked arithmetic and
 * bounded by SYNTH_MAX_SIZE, so a plan that exists can be written (given the space).
 * rl_synth_write (synth_write.h) then streams the tensor data to disk chunk by chunk (bounded
 * memory), deterministically from the seed.
 *
 * Modules, dependencies one way: synth.c (this plan) -> synth_gen.c (the tensor values,
 * synth_gen.h) -> synth_write.c (the streaming writer, synth_write.h); half.h converts.
 *
 * Ownership: rl_synth_plan_build returns a rl_synth_plan the caller frees with rl_synth_plan_free;
 * all memory inside it (tensor table, header bytes) is owned by the plan. Presets are static. */
#ifndef RL_SYNTH_H
#define RL_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rl_error.h"

#define SYNTH_ALIGNMENT 32
#define SYNTH_N_SPECIAL 3                       /* <unk> <s> </s> */
#define SYNTH_MIN_VOCAB (SYNTH_N_SPECIAL + 256) /* specials + the 256 byte tokens */
#define SYNTH_MAX_NAME 64                       /* tensor name buffer (GGML_MAX_NAME) */

/* Amplitudes of the generated values: matrices and biases are uniform in [-amp, +amp]. */
#define SYNTH_WEIGHT_AMP 0.02f
#define SYNTH_BIAS_AMP 0.02f

/* Shape limits: the ranges of the --n-* options and of rl_synth_validate. Sizes go into GGUF
 * u32 fields (SYNTH_MAX_U32); llama.cpp holds at most 512 layers (LLAMA_MAX_LAYERS); the
 * vocabulary is part of the header, which is built in memory, so it stops at 2^22 tokens. */
#define SYNTH_MAX_U32 4294967295ull
#define SYNTH_MAX_LAYER 512
#define SYNTH_MAX_VOCAB (1ull << 22)
#define SYNTH_MAX_HEAD 1024
#define SYNTH_MAX_EXPERT 1024

/* Bound of every element count, byte size, sum of them and of the file size: ggml counts
 * elements in int64_t and files are addressed with a signed off_t. */
#define SYNTH_MAX_SIZE 9223372036854775807ull /* 2^63 - 1 */

typedef enum { SYNTH_ARCH_LLAMA, SYNTH_ARCH_QWEN2 } rl_synth_arch;

typedef struct {
    char preset[32]; /* preset it came from */
    rl_synth_arch arch;
    uint64_t n_vocab, n_embd, n_layer, n_head, n_head_kv, n_ff, n_ctx;
    uint64_t n_expert, n_expert_used; /* 0, 0 for a dense model */
    bool tied;                        /* no output.weight: the embedding is the output head */
    bool qkv_bias;                    /* attn_{q,k,v}.bias (qwen2) */
    bool rope_freqs;                  /* rope_freqs.weight: Llama 3 rope scaling factors */
    float rope_freq_base;
    float rms_eps;
    /* Llama 3 rope scaling used for rope_freqs (as convert_hf_to_gguf computes them) */
    float rope_factor, rope_low_freq, rope_high_freq;
    uint32_t rope_orig_ctx;
    uint32_t type; /* ggml type (RL_GGML_*) of the 2-D weight matrices and token_embd */
    uint64_t seed;
} rl_synth_config;

typedef struct {
    const char *name;
    const char *about;   /* one line for --list */
    rl_synth_config cfg; /* type F16, seed 0 */
} rl_synth_preset;

/* How a tensor's values are made. */
typedef enum {
    SYNTH_INIT_ONES,      /* norms: 1.0 */
    SYNTH_INIT_UNIFORM,   /* uniform in [-amp, amp] from the tensor's own PRNG stream */
    SYNTH_INIT_ROPE_FREQS /* Llama 3 rope scaling factors */
} rl_synth_init;

typedef struct {
    char name[SYNTH_MAX_NAME];
    uint32_t n_dims;
    uint64_t ne[4]; /* unused dims are 1 */
    uint32_t type;  /* ggml type id (RL_GGML_*) */
    uint64_t n_elements;
    uint64_t n_bytes; /* unpadded: n_elements / block size * type size */
    uint64_t offset;  /* relative to the data section, SYNTH_ALIGNMENT-aligned */
    rl_synth_init init;
    float amp;       /* SYNTH_INIT_UNIFORM: SYNTH_WEIGHT_AMP or SYNTH_BIAS_AMP */
    uint64_t stream; /* PRNG key: seed mixed with a hash of the name */
} rl_synth_tensor;

typedef struct {
    rl_synth_config cfg;
    rl_synth_tensor *tensors;
    size_t n_tensors;
    unsigned char *header; /* magic .. last tensor info, unpadded */
    size_t header_len;
    uint64_t data_offset; /* header_len rounded up to SYNTH_ALIGNMENT */
    uint64_t data_bytes;  /* every tensor padded to SYNTH_ALIGNMENT, the last one too */
    uint64_t file_size;   /* data_offset + data_bytes */
    uint64_t n_params;
    uint32_t file_type; /* general.file_type */
    uint16_t *lut;      /* F16/BF16 weights: 65536 values uniform in [-amp, amp] */
} rl_synth_plan;

/* Presets, in --list order. */
size_t rl_synth_preset_count(void);
const rl_synth_preset *rl_synth_preset_at(size_t i);
const rl_synth_preset *rl_synth_preset_find(const char *name);
/* "tiny, tiny-moe, ..." for messages (static storage). */
const char *rl_synth_preset_names(void);

/* Weight types accepted by --type (RL_GGML_F32, F16, BF16, Q8_0, Q4_0): the ggml type id by
 * name (case-insensitive) or -1; the name (NULL when the type is not offered); the matching
 * general.file_type. Block and type sizes come from the ggml type table (ggml_types.h). */
int rl_synth_type_by_name(const char *name);
const char *rl_synth_type_name(uint32_t type);
uint32_t rl_synth_file_type(uint32_t type);
/* "F32, F16, BF16, Q8_0, Q4_0" (static storage). */
const char *rl_synth_type_names(void);

/* Check a config: RL_EINPUT with a one-line message naming the offending value. */
rl_status rl_synth_validate(const rl_synth_config *cfg, rl_error *err);
/* Validate and lay out the file (no I/O). RL_EINPUT with a one-line message when a tensor's
 * element count or bytes, the sum of the tensors' bytes or elements, or the file size would
 * exceed SYNTH_MAX_SIZE (including any 64-bit overflow); the header is built only after. */
rl_status rl_synth_plan_build(const rl_synth_config *cfg, rl_synth_plan **out, rl_error *err);
void rl_synth_plan_free(rl_synth_plan *p);

/* Vocabulary: text of token id (NUL-terminated into buf, which must hold at least 32 bytes),
 * its llama token type (1 normal, 2 unknown, 3 control, 6 byte) and score. */
void rl_synth_vocab_token(uint64_t id, char *buf, size_t cap);
int32_t rl_synth_vocab_type(uint64_t id);
float rl_synth_vocab_score(uint64_t id);

/* Llama 3 rope scaling factor i of cfg (i < head_dim / 2). */
float rl_synth_rope_factor(const rl_synth_config *cfg, uint64_t i);

/* The planner's size arithmetic: *out = a * b (a + b); false, *out untouched, when the exact
 * result exceeds SYNTH_MAX_SIZE (64-bit overflow included). */
bool rl_synth_size_mul(uint64_t a, uint64_t b, uint64_t *out);
bool rl_synth_size_add(uint64_t a, uint64_t b, uint64_t *out);

#endif
