/* SPDX-License-Identifier: MIT */
/* gguf_model.h: the facts of a model that the roofline needs, computed from its GGUF tensor
 * table and metadata (all shards of a multi-part file summed): architecture, shapes, KV-cache
 * bytes per token, and the two byte conventions of the method (seed 000 section 4):
 *   resident bytes = file bytes on disk, summed across shards;
 *   streamed bytes per token = repeating layers + final norm + output head; the token
 *   embedding only when tied (no output.weight); for MoE, expert tensors (names containing
 *   "_exps") scaled by expert_used_count / expert_count.
 * and the composition of the repeating layers (what a format label really holds).
 *
 * Ownership: rl_gguf_model_load and rl_gguf_model_adopt fill a caller-provided rl_gguf_model
 * that owns everything inside it: the path, the type arrays and the parsed files it was built
 * from (files[0..n_shards), so a listing of every tensor needs no second parse).
 * rl_gguf_model_free releases all of it and is safe on a zeroed or failed model. */
#ifndef RL_GGUF_MODEL_H
#define RL_GGUF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/gguf.h"

#define GGUF_MODEL_MAX_SHARDS 1024

/* Bytes per ggml type over some set of tensors. */
typedef struct {
    uint32_t type;
    uint64_t n_tensors;
    uint64_t bytes;
    uint64_t elements;
    /* matrices decode reads per token (types only; 0 in layer_types): the tensors of two or
     * more dimensions that stream (not an untied token_embd), an expert tensor (name holding
     * "_exps") counted as expert_used_count matrices */
    uint64_t n_matrices;
    /* the rows of those matrices (ne[1], an expert tensor's times its used experts): one dot
     * product each per token (types only; 0 in layer_types) */
    uint64_t n_rows;
} rl_gguf_type_bytes;

typedef struct {
    char *path;        /* as given (first shard) */
    uint32_t n_shards; /* 1 for a single file */
    uint32_t version;
    char architecture[64];
    char name[128];    /* general.name or "" */
    char label[32];    /* from general.file_type ("Q4_K_M"), else from the filename, else "" */
    int64_t file_type; /* general.file_type, -1 when absent */

    uint64_t n_tensors;
    uint64_t n_params; /* sum of tensor elements */
    uint64_t n_layer, n_embd, n_ff, n_head, n_head_kv, head_dim, key_length, value_length;
    uint64_t context_length, n_vocab, expert_count, expert_used_count;
    bool is_moe;          /* expert_count > 0 */
    bool tied_embeddings; /* no output.weight: the embedding is the output projection */

    /* false when any tensor has a type this build does not know (then the byte counts
     * below that depend on tensor sizes are 0 and must be reported unavailable). */
    bool sizes_known;
    uint64_t file_bytes;         /* on-disk size, summed over shards */
    uint64_t resident_bytes;     /* = file_bytes (convention "run") */
    uint64_t tensor_bytes;       /* sum of all tensor sizes */
    uint64_t streamed_bytes;     /* convention "diagnose" */
    uint64_t embedding_bytes;    /* token_embd.weight */
    uint32_t embedding_type;     /* ggml type of token_embd.weight, UINT32_MAX if none */
    uint64_t head_bytes;         /* output.weight, or the embedding when tied */
    uint64_t expert_bytes;       /* all expert tensors, unscaled */
    uint32_t head_type;          /* ggml type of the output head, UINT32_MAX if none */
    uint64_t kv_bytes_per_token; /* 2 * n_layer * n_head_kv * head_dim * 2 (f16 K and V) */
    /* attention.head_count_kv was a per-layer array: n_head_kv is its largest entry and
     * kv_bytes_per_token sums the layers (sum(n_head_kv[l]) * (key_length + value_length) * 2). */
    bool head_count_kv_per_layer;

    /* every type across the file, bytes descending */
    rl_gguf_type_bytes *types;
    uint32_t n_types;
    /* composition of the repeating layers (blk.*, excluding F32/F16/BF16/F64) */
    rl_gguf_type_bytes *layer_types;
    uint32_t n_layer_types;
    uint64_t layer_bytes, layer_elements;
    int expected_type;      /* ggml type the label names (Q4_K_M -> Q4_K), -1 if none */
    double on_label_pct;    /* 100 * bytes of expected_type / layer_bytes */
    double bits_per_weight; /* 8 * layer_bytes / layer_elements */
    bool has_composition;

    /* The parsed shards, in part order (files[0] holds the metadata); n_shards of them. */
    rl_gguf_file **files;
} rl_gguf_model;

/* Load path (and its sibling shards when the name is -0000N-of-0000M.gguf). */
rl_status rl_gguf_model_load(const char *path, rl_gguf_model *m, rl_error *err);
/* Fill m from one already-read file (no shards; m->path is f->path) and take f: from then on
 * it belongs to m (freed by rl_gguf_model_free), or is freed here at once when this fails. */
rl_status rl_gguf_model_adopt(rl_gguf_file *f, rl_gguf_model *m, rl_error *err);
/* Fill m from the count parsed shards of one model, in part order (files[0] holds the
 * metadata; each files[i]->path names the shard in messages), after checking split.no and
 * split.count against the order; path is the model as given. Takes files (the malloc'd array
 * and every file in it): they belong to m from then on, or are freed here when this fails.
 * The remote reader (gguf_remote.h) builds split models with it. */
rl_status rl_gguf_model_adopt_parts(rl_gguf_file **files, uint32_t count, const char *path,
                                    rl_gguf_model *m, rl_error *err);
/* The end of reading count shards: when read_st (how reading them went) is not RL_OK, frees
 * every file read so far (files[i] NULL for the rest) and the array and returns read_st;
 * otherwise rl_gguf_model_adopt_parts. */
rl_status rl_gguf_model_adopt_read(rl_status read_st, rl_gguf_file **files, uint32_t count,
                                   const char *path, rl_gguf_model *m, rl_error *err);
void rl_gguf_model_free(rl_gguf_model *m);
/* Recognise a multi-part name "<prefix>-NNNNN-of-MMMMM.gguf" (five digits each, as llama.cpp's
 * gguf-split writes them): *prefix_len is the length of <prefix> within path, *no and *count
 * the numbers. False for any other name. Part i's path is "%.*s-%05u-of-%05u.gguf". */
bool rl_gguf_split_name(const char *path, size_t *prefix_len, uint32_t *no, uint32_t *count);

#endif
