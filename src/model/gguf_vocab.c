/* SPDX-License-Identifier: MIT */
/* gguf_vocab.c: the table of known vocabularies (gguf_vocab.h), measured by
 * scripts/vocab-table.py from every models/ggml-vocab-*.gguf of the pinned llama.cpp source
 * (scripts/llama-cpp.sh, commit de3ff815ea7d); regenerate the rows with that script when the pin
 * moves. Why a table: at the end of a remote read's first 256 KiB only the first 7 to 55% of
 * the tokens are seen, and two things the rest of the header holds cannot be told from them:
 *   - merges per token: about one in 15 of the 17 BPE vocabularies, but 2.18 in Llama 3's
 *     (llama-bpe: 280,147 merges for 128,256 tokens) and 1.96 in Gemma 4's;
 *   - how much longer the later tokens are: the rest of the tokens average 0.81 to 1.24 times
 *     what the seen ones do (baichuan's later half is short CJK tokens, nomic-bert-moe's and
 *     command-r's grow on), where three headers (deepseek-llm, Llama 3, Gemma 4) end within
 *     5.6 to 7.3% below the doubling reader's next block, the most a read may move.
 * Owned by no one: static constant data. */
#include "model/gguf_vocab.h"

#include <string.h>

/* {model, pre, n_vocab, tok, merges, merge, scores, charsmap}: scripts/vocab-table.py */
static const rl_gguf_vocab table[] = {
    {"gpt2", "", 100008, 19.64, 0.997, 20.66, true, 0},               /* aquila */
    {"llama", "", 64000, 12.94, 0.000, 0.00, true, 0},                /* baichuan */
    {"bert", "bert-bge", 30522, 16.53, 0.000, 0.00, false, 0},        /* bert-bge */
    {"gpt2", "command-r", 256000, 18.80, 0.990, 19.85, false, 0},     /* command-r */
    {"gpt2", "deepseek-coder", 32256, 15.52, 0.985, 16.54, false, 0}, /* deepseek-coder */
    {"gpt2", "deepseek-llm", 102400, 17.13, 0.974, 18.10, false, 0},  /* deepseek-llm */
    {"gpt2", "falcon", 65024, 15.11, 0.996, 16.12, false, 0},         /* falcon */
    {"gemma4", "", 262144, 16.84, 1.964, 17.97, true, 0},             /* gemma-4 */
    {"gpt2", "gpt-2", 50257, 15.10, 0.995, 16.13, false, 0},          /* gpt-2 */
    {"gpt2", "", 50432, 15.12, 0.992, 16.13, false, 0},               /* gpt-neox */
    {"gpt2", "llama-bpe", 128256, 16.37, 2.184, 18.58, false, 0},     /* llama-bpe */
    {"llama", "default", 32000, 14.59, 0.000, 0.00, true, 0},         /* llama-spm */
    {"gpt2", "mpt", 50432, 15.12, 0.992, 16.13, false, 0},            /* mpt */
    {"t5", "default", 250048, 18.33, 0.000, 0.00, true, 237539},      /* nomic-bert-moe */
    {"llama", "default", 32064, 14.60, 0.000, 0.00, true, 0},         /* phi-3 */
    {"gpt2", "qwen2", 151936, 17.03, 0.996, 18.04, false, 0},         /* qwen2 */
    {"gpt2", "qwen35", 151936, 17.03, 0.996, 18.04, false, 0},        /* qwen35 */
    {"gpt2", "refact", 49216, 15.02, 0.993, 16.04, false, 0},         /* refact */
    {"gpt2", "starcoder", 49152, 15.02, 0.994, 16.04, false, 0},      /* starcoder */
};

const rl_gguf_vocab *rl_gguf_vocab_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const rl_gguf_vocab *rl_gguf_vocab_find(const char *model, const char *pre, uint64_t n_vocab)
{
    if (!model)
        return NULL;
    const rl_gguf_vocab *best = NULL;
    uint64_t best_d = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const rl_gguf_vocab *v = &table[i];
        uint64_t d = n_vocab > v->n_vocab ? n_vocab - v->n_vocab : v->n_vocab - n_vocab;
        if (strcmp(v->model, model) != 0 || strcmp(v->pre, pre ? pre : "") != 0 ||
            d > v->n_vocab / 64)
            continue;
        if (!best || d < best_d) {
            best = v;
            best_d = d;
        }
    }
    return best;
}
