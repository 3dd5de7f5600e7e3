/* SPDX-License-Identifier: MIT */
/* gguf_vocab.h: the vocabularies the remote reader's read-ahead estimate knows (gguf.c,
 * "read-ahead estimate"): what llama.cpp's real vocabulary files hold after the first block a
 * remote read fetches, measured once so that a header whose tokenizer matches one is sized from
 * the measurement instead of from its first tokens. Static data only; nothing is allocated. */
#ifndef RL_GGUF_VOCAB_H
#define RL_GGUF_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *model; /* tokenizer.ggml.model */
    const char *pre;   /* tokenizer.ggml.pre; "" when the file has none */
    uint32_t n_vocab;  /* tokenizer.ggml.tokens' count */
    double tok;        /* bytes per token string (8-byte length and text), whole-array mean */
    double merges;     /* tokenizer.ggml.merges per token; 0: no merges */
    double merge;      /* bytes per merge string, mean */
    bool scores;       /* tokenizer.ggml.scores is there */
    uint32_t charsmap; /* bytes of tokenizer.ggml.precompiled_charsmap; 0: none */
} rl_gguf_vocab;

/* The known vocabulary of this tokenizer model and pre-tokenizer (NULL or "" when the file
 * has none) with a token count within 1/64 of n_vocab (the nearest when several are); NULL
 * when none matches. */
const rl_gguf_vocab *rl_gguf_vocab_find(const char *model, const char *pre, uint64_t n_vocab);

/* The table, for tests: *n rows. */
const rl_gguf_vocab *rl_gguf_vocab_table(size_t *n);

#endif
