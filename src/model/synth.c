/* SPDX-License-Identifier: MIT */
/* synth.c: presets, validation, the tensor table with its checked sizes, the SPM vocabulary and
 * the GGUF header of a synthetic model: the plan (see synth.h). The values are made in
 * synth_gen.c and the file is written by synth_write.c, which both depend on this, never the
 * other way round.
 *
 * Ownership: rl_synth_plan_build returns a plan the caller frees with rl_synth_plan_free; presets
 * and the name lists are static. */
#include "model/synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/ggml_types.h"
#include "base/half.h"
#include "base/rl_util.h"

/* ---- presets ---------------------------------------------------------------------------- */

static const rl_synth_preset presets[] = {
    {"tiny",
     "llama-architecture test model, a few MB",
     {.preset = "tiny",
      .arch = SYNTH_ARCH_LLAMA,
      .n_vocab = 1024,
      .n_embd = 256,
      .n_layer = 4,
      .n_head = 8,
      .n_head_kv = 4,
      .n_ff = 512,
      .n_ctx = 2048,
      .tied = false,
      .qkv_bias = false,
      .rope_freqs = false,
      .rope_freq_base = 10000.0f,
      .rms_eps = 1e-5f,
      .type = RL_GGML_F16}},
    {"tiny-moe",
     "llama-architecture Mixtral-style MoE test model, 4 experts, 2 used",
     {.preset = "tiny-moe",
      .arch = SYNTH_ARCH_LLAMA,
      .n_vocab = 1024,
      .n_embd = 256,
      .n_layer = 4,
      .n_head = 8,
      .n_head_kv = 4,
      .n_ff = 512,
      .n_ctx = 2048,
      .n_expert = 4,
      .n_expert_used = 2,
      .tied = false,
      .qkv_bias = false,
      .rope_freqs = false,
      .rope_freq_base = 10000.0f,
      .rms_eps = 1e-5f,
      .type = RL_GGML_F16}},
    {"qwen2.5-0.5b",
     "Qwen2.5-0.5B shapes (qwen2, q/k/v biases, untied output.weight)",
     {.preset = "qwen2.5-0.5b",
      .arch = SYNTH_ARCH_QWEN2,
      .n_vocab = 151936,
      .n_embd = 896,
      .n_layer = 24,
      .n_head = 14,
      .n_head_kv = 2,
      .n_ff = 4864,
      .n_ctx = 32768,
      .tied = false,
      .qkv_bias = true,
      .rope_freqs = false,
      .rope_freq_base = 1000000.0f,
      .rms_eps = 1e-6f,
      .type = RL_GGML_F16}},
    {"qwen2.5-1.5b",
     "Qwen2.5-1.5B shapes (qwen2, q/k/v biases, untied output.weight)",
     {.preset = "qwen2.5-1.5b",
      .arch = SYNTH_ARCH_QWEN2,
      .n_vocab = 151936,
      .n_embd = 1536,
      .n_layer = 28,
      .n_head = 12,
      .n_head_kv = 2,
      .n_ff = 8960,
      .n_ctx = 32768,
      .tied = false,
      .qkv_bias = true,
      .rope_freqs = false,
      .rope_freq_base = 1000000.0f,
      .rms_eps = 1e-6f,
      .type = RL_GGML_F16}},
    {"llama-3.2-1b",
     "Llama-3.2-1B shapes (llama, tied embeddings, llama3 rope_freqs)",
     {.preset = "llama-3.2-1b",
      .arch = SYNTH_ARCH_LLAMA,
      .n_vocab = 128256,
      .n_embd = 2048,
      .n_layer = 16,
      .n_head = 32,
      .n_head_kv = 8,
      .n_ff = 8192,
      .n_ctx = 131072,
      .tied = true,
      .qkv_bias = false,
      .rope_freqs = true,
      .rope_freq_base = 500000.0f,
      .rms_eps = 1e-5f,
      .rope_factor = 32.0f,
      .rope_low_freq = 1.0f,
      .rope_high_freq = 4.0f,
      .rope_orig_ctx = 8192,
      .type = RL_GGML_F16}},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

size_t rl_synth_preset_count(void)
{
    return N_PRESETS;
}

const rl_synth_preset *rl_synth_preset_at(size_t i)
{
    return i < N_PRESETS ? &presets[i] : NULL;
}

const rl_synth_preset *rl_synth_preset_find(const char *name)
{
    for (size_t i = 0; name && i < N_PRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

const char *rl_synth_preset_names(void)
{
    return "tiny, tiny-moe, qwen2.5-0.5b, qwen2.5-1.5b, llama-3.2-1b";
}

/* ---- weight types ----------------------------------------------------------------------- */

/* The types --type offers, in rl_synth_type_names order; names, block and type sizes come
 * from the ggml type table, general.file_type from llama's file_type labels. */
static const uint32_t wtypes[] = {RL_GGML_F32, RL_GGML_F16, RL_GGML_BF16, RL_GGML_Q8_0,
                                  RL_GGML_Q4_0};
#define N_WTYPES (sizeof wtypes / sizeof wtypes[0])

static bool offered(uint32_t type)
{
    for (size_t i = 0; i < N_WTYPES; i++)
        if (wtypes[i] == type)
            return true;
    return false;
}

int rl_synth_type_by_name(const char *name)
{
    int t = rl_ggml_type_by_name(name);
    return t >= 0 && offered((uint32_t)t) ? t : -1;
}

const char *rl_synth_type_name(uint32_t type)
{
    return offered(type) ? rl_ggml_type_get(type)->name : NULL;
}

uint32_t rl_synth_file_type(uint32_t type)
{
    int ft = offered(type) ? rl_ftype_by_label(rl_ggml_type_get(type)->name) : -1;
    return ft < 0 ? 0 : (uint32_t)ft;
}

const char *rl_synth_type_names(void)
{
    return "F32, F16, BF16, Q8_0, Q4_0";
}

/* ---- checked sizes ---------------------------------------------------------------------- */

bool rl_synth_size_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r) || r > SYNTH_MAX_SIZE)
        return false;
    *out = r;
    return true;
}

bool rl_synth_size_add(uint64_t a, uint64_t b, uint64_t *out)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > SYNTH_MAX_SIZE)
        return false;
    *out = r;
    return true;
}

/* ---- validation ------------------------------------------------------------------------- */

static rl_status check_range(const char *flag, uint64_t v, uint64_t lo, uint64_t hi, rl_error *err)
{
    if (v < lo || v > hi)
        return rl_fail(err, RL_EINPUT, "%s %llu is out of range (%llu to %llu)", flag,
                       (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
    return RL_OK;
}

rl_status rl_synth_validate(const rl_synth_config *c, rl_error *err)
{
    rl_status st;
    if ((st = check_range("--n-vocab", c->n_vocab, SYNTH_MIN_VOCAB, SYNTH_MAX_VOCAB, err)) ||
        (st = check_range("--n-embd", c->n_embd, 1, SYNTH_MAX_U32, err)) ||
        (st = check_range("--n-layer", c->n_layer, 1, SYNTH_MAX_LAYER, err)) ||
        (st = check_range("--n-head", c->n_head, 1, SYNTH_MAX_HEAD, err)) ||
        (st = check_range("--n-head-kv", c->n_head_kv, 1, SYNTH_MAX_HEAD, err)) ||
        (st = check_range("--n-ff", c->n_ff, 1, SYNTH_MAX_U32, err)) ||
        (st = check_range("--n-ctx", c->n_ctx, 1, SYNTH_MAX_U32, err)))
        return st;
    if (c->n_embd % c->n_head != 0)
        return rl_fail(err, RL_EINPUT, "--n-embd %llu is not divisible by --n-head %llu",
                       (unsigned long long)c->n_embd, (unsigned long long)c->n_head);
    if ((c->n_embd / c->n_head) % 2 != 0)
        return rl_fail(err, RL_EINPUT,
                       "head size %llu (--n-embd / --n-head) must be even for rotary embeddings",
                       (unsigned long long)(c->n_embd / c->n_head));
    if (c->n_head_kv > c->n_head || c->n_head % c->n_head_kv != 0)
        return rl_fail(err, RL_EINPUT, "--n-head %llu is not a multiple of --n-head-kv %llu",
                       (unsigned long long)c->n_head, (unsigned long long)c->n_head_kv);
    if (c->n_expert == 0) {
        if (c->n_expert_used != 0)
            return rl_fail(err, RL_EINPUT,
                           "--n-expert-used %llu needs --n-expert (this model has no experts)",
                           (unsigned long long)c->n_expert_used);
    } else {
        if (c->arch != SYNTH_ARCH_LLAMA)
            return rl_fail(err, RL_EINPUT,
                           "experts need a llama-architecture preset (tiny, tiny-moe, "
                           "llama-3.2-1b), not %s",
                           c->preset);
        if ((st = check_range("--n-expert", c->n_expert, 2, SYNTH_MAX_EXPERT, err)))
            return st;
        if (c->n_expert_used < 1 || c->n_expert_used > c->n_expert)
            return rl_fail(err, RL_EINPUT, "--n-expert-used %llu must be 1 to --n-expert %llu",
                           (unsigned long long)c->n_expert_used, (unsigned long long)c->n_expert);
    }
    if (!rl_synth_type_name(c->type))
        return rl_fail(err, RL_EINPUT, "weight type %u is not one of %s", c->type,
                       rl_synth_type_names());
    uint64_t blck = rl_ggml_type_get(c->type)->blck;
    if (blck > 1) {
        if (c->n_embd % blck != 0)
            return rl_fail(err, RL_EINPUT, "--type %s needs --n-embd divisible by %llu (got %llu)",
                           rl_synth_type_name(c->type), (unsigned long long)blck,
                           (unsigned long long)c->n_embd);
        if (c->n_ff % blck != 0)
            return rl_fail(err, RL_EINPUT, "--type %s needs --n-ff divisible by %llu (got %llu)",
                           rl_synth_type_name(c->type), (unsigned long long)blck,
                           (unsigned long long)c->n_ff);
    }
    if (!(c->rope_freq_base > 0.0f) || !(c->rms_eps > 0.0f))
        return rl_fail(err, RL_EINPUT, "rope frequency base and norm epsilon must be positive");
    return RL_OK;
}

/* ---- vocabulary ------------------------------------------------------------------------- */

#define SPM_SPACE "\xe2\x96\x81" /* U+2581, SentencePiece's word-start marker */
#define N_TIER0 95               /* "▁" and the printable ASCII characters 0x21..0x7E */
#define N_TIER1 62               /* "▁" + a letter or digit */
static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

void rl_synth_vocab_token(uint64_t id, char *buf, size_t cap)
{
    static const char *const special[SYNTH_N_SPECIAL] = {"<unk>", "<s>", "</s>"};
    if (id < SYNTH_N_SPECIAL) {
        snprintf(buf, cap, "%s", special[id]);
        return;
    }
    if (id < SYNTH_MIN_VOCAB) {
        snprintf(buf, cap, "<0x%02X>", (unsigned)(id - SYNTH_N_SPECIAL));
        return;
    }
    uint64_t k = id - SYNTH_MIN_VOCAB;
    if (k < N_TIER0) {
        if (k == 0)
            snprintf(buf, cap, "%s", SPM_SPACE);
        else
            snprintf(buf, cap, "%c", (char)(0x20 + k));
        return;
    }
    k -= N_TIER0;
    if (k < N_TIER1) {
        snprintf(buf, cap, SPM_SPACE "%c", alnum[k]);
        return;
    }
    k -= N_TIER1;
    /* Then every lowercase word of length 2, 3, ... in order, each with and without "▁". */
    uint64_t n = 26 * 26;
    unsigned len = 2;
    while (k >= 2 * n) {
        k -= 2 * n;
        n *= 26;
        len++;
    }
    char word[16];
    uint64_t w = k / 2;
    for (unsigned i = 0; i < len; i++) {
        word[len - 1 - i] = (char)('a' + w % 26);
        w /= 26;
    }
    word[len] = '\0';
    snprintf(buf, cap, "%s%s", (k % 2 == 0) ? SPM_SPACE : "", word);
}

int32_t rl_synth_vocab_type(uint64_t id)
{
    if (id == 0)
        return 2; /* LLAMA_TOKEN_TYPE_UNKNOWN */
    if (id < SYNTH_N_SPECIAL)
        return 3; /* CONTROL */
    if (id < SYNTH_MIN_VOCAB)
        return 6; /* BYTE */
    return 1;     /* NORMAL */
}

float rl_synth_vocab_score(uint64_t id)
{
    return id < SYNTH_MIN_VOCAB ? 0.0f : -(float)(id - SYNTH_MIN_VOCAB);
}

/* ---- rope factors ----------------------------------------------------------------------- */

float rl_synth_rope_factor(const rl_synth_config *c, uint64_t i)
{
    /* convert_hf_to_gguf's llama3 rope_freqs, in float32 like its torch code. */
    const float dim = (float)(c->n_embd / c->n_head);
    const float freq = 1.0f / powf(c->rope_freq_base, (float)(2 * i) / dim);
    const float wavelen = 2.0f * (float)M_PI / freq;
    const float old_ctx = (float)c->rope_orig_ctx;
    const float low_wavelen = old_ctx / c->rope_low_freq;
    const float high_wavelen = old_ctx / c->rope_high_freq;
    if (wavelen < high_wavelen)
        return 1.0f;
    if (wavelen > low_wavelen)
        return c->rope_factor;
    const float smooth =
        (old_ctx / wavelen - c->rope_low_freq) / (c->rope_high_freq - c->rope_low_freq);
    return 1.0f / ((1.0f - smooth) / c->rope_factor + smooth);
}

/* ---- header bytes ----------------------------------------------------------------------- */

typedef struct {
    unsigned char *p;
    size_t len, cap;
    bool oom;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

/* GGUF is little-endian; so is every platform this builds on (checked at compile time). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "synth writes little-endian GGUF by memcpy: port put_* for big-endian hosts"
#endif

static void put_u32(buf *b, uint32_t v)
{
    put(b, &v, 4);
}
static void put_i32(buf *b, int32_t v)
{
    put(b, &v, 4);
}
static void put_u64(buf *b, uint64_t v)
{
    put(b, &v, 8);
}
static void put_f32(buf *b, float v)
{
    put(b, &v, 4);
}
static void put_str(buf *b, const char *s)
{
    size_t n = strlen(s);
    put_u64(b, n);
    put(b, s, n);
}

enum { V_U32 = 4, V_I32 = 5, V_F32 = 6, V_BOOL = 7, V_STR = 8, V_ARR = 9 };

static void kv_u32(buf *b, const char *key, uint32_t v)
{
    put_str(b, key);
    put_u32(b, V_U32);
    put_u32(b, v);
}
static void kv_f32(buf *b, const char *key, float v)
{
    put_str(b, key);
    put_u32(b, V_F32);
    put_f32(b, v);
}
static void kv_bool(buf *b, const char *key, bool v)
{
    unsigned char c = v ? 1 : 0;
    put_str(b, key);
    put_u32(b, V_BOOL);
    put(b, &c, 1);
}
static void kv_str(buf *b, const char *key, const char *v)
{
    put_str(b, key);
    put_u32(b, V_STR);
    put_str(b, v);
}
static void kv_arr(buf *b, const char *key, uint32_t elem, uint64_t n)
{
    put_str(b, key);
    put_u32(b, V_ARR);
    put_u32(b, elem);
    put_u64(b, n);
}

/* Writes the metadata; returns the number of pairs. */
static uint64_t put_metadata(buf *b, const rl_synth_plan *p)
{
    const rl_synth_config *c = &p->cfg;
    const char *arch = c->arch == SYNTH_ARCH_QWEN2 ? "qwen2" : "llama";
    const uint32_t head_dim = (uint32_t)(c->n_embd / c->n_head);
    char key[96], name[96];
    uint64_t n = 0;
#define ARCH_KEY(suffix) (snprintf(key, sizeof key, "%s." suffix, arch), key)

    kv_str(b, "general.architecture", arch), n++;
    kv_str(b, "general.type", "model"), n++;
    snprintf(name, sizeof name, "synth %s", c->preset);
    kv_str(b, "general.name", name), n++;
    kv_u32(b, "general.file_type", p->file_type), n++;
    kv_u32(b, "general.quantization_version", 2), n++;
    kv_u32(b, "general.alignment", SYNTH_ALIGNMENT), n++;

    kv_u32(b, ARCH_KEY("block_count"), (uint32_t)c->n_layer), n++;
    kv_u32(b, ARCH_KEY("context_length"), (uint32_t)c->n_ctx), n++;
    kv_u32(b, ARCH_KEY("embedding_length"), (uint32_t)c->n_embd), n++;
    kv_u32(b, ARCH_KEY("feed_forward_length"), (uint32_t)c->n_ff), n++;
    kv_u32(b, ARCH_KEY("attention.head_count"), (uint32_t)c->n_head), n++;
    kv_u32(b, ARCH_KEY("attention.head_count_kv"), (uint32_t)c->n_head_kv), n++;
    kv_f32(b, ARCH_KEY("rope.freq_base"), c->rope_freq_base), n++;
    kv_f32(b, ARCH_KEY("attention.layer_norm_rms_epsilon"), c->rms_eps), n++;
    if (c->arch == SYNTH_ARCH_LLAMA) {
        if (c->n_expert > 0) {
            kv_u32(b, ARCH_KEY("expert_count"), (uint32_t)c->n_expert), n++;
            kv_u32(b, ARCH_KEY("expert_used_count"), (uint32_t)c->n_expert_used), n++;
        }
        kv_u32(b, ARCH_KEY("attention.key_length"), head_dim), n++;
        kv_u32(b, ARCH_KEY("attention.value_length"), head_dim), n++;
        kv_u32(b, ARCH_KEY("vocab_size"), (uint32_t)c->n_vocab), n++;
        kv_u32(b, ARCH_KEY("rope.dimension_count"), head_dim), n++;
    }
#undef ARCH_KEY

    kv_str(b, "tokenizer.ggml.model", "llama"), n++;
    kv_arr(b, "tokenizer.ggml.tokens", V_STR, c->n_vocab), n++;
    char tok[32];
    for (uint64_t i = 0; i < c->n_vocab; i++) {
        rl_synth_vocab_token(i, tok, sizeof tok);
        put_str(b, tok);
    }
    kv_arr(b, "tokenizer.ggml.scores", V_F32, c->n_vocab), n++;
    for (uint64_t i = 0; i < c->n_vocab; i++)
        put_f32(b, rl_synth_vocab_score(i));
    kv_arr(b, "tokenizer.ggml.token_type", V_I32, c->n_vocab), n++;
    for (uint64_t i = 0; i < c->n_vocab; i++)
        put_i32(b, rl_synth_vocab_type(i));
    kv_u32(b, "tokenizer.ggml.bos_token_id", 1), n++;
    kv_u32(b, "tokenizer.ggml.eos_token_id", 2), n++;
    kv_u32(b, "tokenizer.ggml.unknown_token_id", 0), n++;
    kv_bool(b, "tokenizer.ggml.add_bos_token", true), n++;
    kv_bool(b, "tokenizer.ggml.add_eos_token", false), n++;
    return n;
}

/* ---- tensor table ----------------------------------------------------------------------- */

typedef struct {
    rl_synth_tensor *t;
    size_t n, cap;
    rl_status st; /* the first failure: RL_EINPUT (a size out of bounds) or RL_EINTERNAL */
    rl_error *err;
} table;

/* "A x B x C" of a shape, for messages. */
static const char *dims_text(const uint64_t *ne, uint32_t n_dims, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t d = 0; d < n_dims && len < cap; d++)
        len += (size_t)snprintf(out + len, cap - len, "%s%llu", d ? " x " : "",
                                (unsigned long long)ne[d]);
    return out;
}

static void add_tensor(table *tb, const rl_synth_config *c, const char *name, uint32_t type,
                       rl_synth_init init, uint32_t n_dims, uint64_t ne0, uint64_t ne1,
                       uint64_t ne2)
{
    if (tb->st != RL_OK)
        return;
    if (tb->n == tb->cap) {
        rl_synth_tensor *q = rl_grow(tb->t, &tb->cap, sizeof *q, 64);
        if (!q) {
            tb->st = rl_fail(tb->err, RL_EINTERNAL, "out of memory");
            return;
        }
        tb->t = q;
    }
    rl_synth_tensor *t = &tb->t[tb->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n_dims;
    t->ne[0] = ne0;
    t->ne[1] = n_dims > 1 ? ne1 : 1;
    t->ne[2] = n_dims > 2 ? ne2 : 1;
    t->ne[3] = 1;
    t->type = type;
    const rl_ggml_type_info *ti = rl_ggml_type_get(type);
    char dims[96];
    uint64_t n_el, n_blocks, n_bytes;
    if (!rl_synth_size_mul(t->ne[0], t->ne[1], &n_el) ||
        !rl_synth_size_mul(n_el, t->ne[2], &n_el)) {
        tb->st = rl_fail(tb->err, RL_EINPUT,
                         "tensor %s (%s) would hold more than 2^63 - 1 elements: make the shape "
                         "smaller",
                         name, dims_text(t->ne, n_dims, dims, sizeof dims));
        return;
    }
    if (t->ne[0] % ti->blck != 0) {
        tb->st = rl_fail(tb->err, RL_EINTERNAL, "tensor %s: row of %llu is not whole %s blocks",
                         name, (unsigned long long)t->ne[0], ti->name);
        return;
    }
    n_blocks = n_el / ti->blck;
    if (!rl_synth_size_mul(n_blocks, ti->type_size, &n_bytes)) {
        tb->st = rl_fail(tb->err, RL_EINPUT,
                         "tensor %s (%s, %s) would take more than 2^63 - 1 bytes: make the shape "
                         "smaller",
                         name, dims_text(t->ne, n_dims, dims, sizeof dims), ti->name);
        return;
    }
    t->n_elements = n_el;
    t->n_bytes = n_bytes;
    t->init = init;
    t->amp = init == SYNTH_INIT_UNIFORM
                 ? (type == RL_GGML_F32 && n_dims == 1 ? SYNTH_BIAS_AMP : SYNTH_WEIGHT_AMP)
                 : 0.0f;
    /* The stream key: the seed mixed with FNV-1a of the name (splitmix64 finaliser). */
    uint64_t h = 1469598103934665603ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    uint64_t z = c->seed ^ h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    t->stream = z ^ (z >> 31);
}

static void build_tensors(table *tb, const rl_synth_config *c)
{
    const uint32_t w = c->type, f32 = RL_GGML_F32;
    const uint64_t hd = c->n_embd / c->n_head;
    const uint64_t n_q = hd * c->n_head, n_kv = hd * c->n_head_kv;
    char nm[SYNTH_MAX_NAME];

    add_tensor(tb, c, "token_embd.weight", w, SYNTH_INIT_UNIFORM, 2, c->n_embd, c->n_vocab, 0);
    if (c->rope_freqs)
        add_tensor(tb, c, "rope_freqs.weight", f32, SYNTH_INIT_ROPE_FREQS, 1, hd / 2, 0, 0);
    for (uint64_t i = 0; i < c->n_layer; i++) {
#define BLK(suffix) (snprintf(nm, sizeof nm, "blk.%llu." suffix, (unsigned long long)i), nm)
        add_tensor(tb, c, BLK("attn_norm.weight"), f32, SYNTH_INIT_ONES, 1, c->n_embd, 0, 0);
        add_tensor(tb, c, BLK("attn_q.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_embd, n_q, 0);
        if (c->qkv_bias)
            add_tensor(tb, c, BLK("attn_q.bias"), f32, SYNTH_INIT_UNIFORM, 1, n_q, 0, 0);
        add_tensor(tb, c, BLK("attn_k.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_embd, n_kv, 0);
        if (c->qkv_bias)
            add_tensor(tb, c, BLK("attn_k.bias"), f32, SYNTH_INIT_UNIFORM, 1, n_kv, 0, 0);
        add_tensor(tb, c, BLK("attn_v.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_embd, n_kv, 0);
        if (c->qkv_bias)
            add_tensor(tb, c, BLK("attn_v.bias"), f32, SYNTH_INIT_UNIFORM, 1, n_kv, 0, 0);
        add_tensor(tb, c, BLK("attn_output.weight"), w, SYNTH_INIT_UNIFORM, 2, n_q, c->n_embd, 0);
        add_tensor(tb, c, BLK("ffn_norm.weight"), f32, SYNTH_INIT_ONES, 1, c->n_embd, 0, 0);
        if (c->n_expert == 0) {
            add_tensor(tb, c, BLK("ffn_gate.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_embd, c->n_ff,
                       0);
            add_tensor(tb, c, BLK("ffn_up.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_embd, c->n_ff,
                       0);
            add_tensor(tb, c, BLK("ffn_down.weight"), w, SYNTH_INIT_UNIFORM, 2, c->n_ff, c->n_embd,
                       0);
        } else {
            /* The router stays F32, as convert_hf_to_gguf and llama-quantize keep it. */
            add_tensor(tb, c, BLK("ffn_gate_inp.weight"), f32, SYNTH_INIT_UNIFORM, 2, c->n_embd,
                       c->n_expert, 0);
            add_tensor(tb, c, BLK("ffn_gate_exps.weight"), w, SYNTH_INIT_UNIFORM, 3, c->n_embd,
                       c->n_ff, c->n_expert);
            add_tensor(tb, c, BLK("ffn_up_exps.weight"), w, SYNTH_INIT_UNIFORM, 3, c->n_embd,
                       c->n_ff, c->n_expert);
            add_tensor(tb, c, BLK("ffn_down_exps.weight"), w, SYNTH_INIT_UNIFORM, 3, c->n_ff,
                       c->n_embd, c->n_expert);
        }
#undef BLK
    }
    add_tensor(tb, c, "output_norm.weight", f32, SYNTH_INIT_ONES, 1, c->n_embd, 0, 0);
    if (!c->tied)
        add_tensor(tb, c, "output.weight", w, SYNTH_INIT_UNIFORM, 2, c->n_embd, c->n_vocab, 0);
}

static uint64_t pad_to(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

rl_status rl_synth_plan_build(const rl_synth_config *cfg, rl_synth_plan **out, rl_error *err)
{
    *out = NULL;
    rl_status st = rl_synth_validate(cfg, err);
    if (st)
        return st;
    rl_synth_plan *p = calloc(1, sizeof *p);
    if (!p)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    p->cfg = *cfg;
    p->file_type = rl_synth_file_type(cfg->type);

    table tb = {.err = err};
    build_tensors(&tb, cfg);
    p->tensors = tb.t;
    p->n_tensors = tb.n;
    if (tb.st != RL_OK) {
        rl_synth_plan_free(p);
        return tb.st;
    }
    /* Offsets and sums, each step checked: every tensor is below SYNTH_MAX_SIZE, so padding it
     * cannot wrap, but the running totals can pass the bound. */
    uint64_t off = 0;
    for (size_t i = 0; i < p->n_tensors; i++) {
        rl_synth_tensor *t = &p->tensors[i];
        t->offset = off;
        const char *what = NULL;
        if (!rl_synth_size_add(off, pad_to(t->n_bytes, SYNTH_ALIGNMENT), &off))
            what = "take more than 2^63 - 1 bytes";
        else if (!rl_synth_size_add(p->n_params, t->n_elements, &p->n_params))
            what = "hold more than 2^63 - 1 parameters";
        if (what) {
            rl_fail(err, RL_EINPUT, "the tensors up to %s would %s: make the shape smaller",
                    t->name, what);
            rl_synth_plan_free(p);
            return RL_EINPUT;
        }
    }
    p->data_bytes = off;

    /* Metadata first into its own buffer (its pair count goes in the fixed header). */
    buf meta = {0};
    uint64_t n_kv = put_metadata(&meta, p);
    buf h = {0};
    put(&h, "GGUF", 4);
    put_u32(&h, 3);
    put_u64(&h, p->n_tensors);
    put_u64(&h, n_kv);
    put(&h, meta.p, meta.len);
    free(meta.p);
    for (size_t i = 0; i < p->n_tensors; i++) {
        const rl_synth_tensor *t = &p->tensors[i];
        put_str(&h, t->name);
        put_u32(&h, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++)
            put_u64(&h, t->ne[d]);
        put_u32(&h, t->type);
        put_u64(&h, t->offset);
    }
    p->header = h.p;
    p->header_len = h.len;
    if (meta.oom || h.oom) {
        rl_synth_plan_free(p);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    p->data_offset = pad_to(p->header_len, SYNTH_ALIGNMENT);
    if (!rl_synth_size_add(p->data_offset, p->data_bytes, &p->file_size)) {
        rl_fail(err, RL_EINPUT,
                "the file (a %llu-byte header and %llu bytes of tensors) would take more than "
                "2^63 - 1 bytes: make the shape smaller",
                (unsigned long long)p->data_offset, (unsigned long long)p->data_bytes);
        rl_synth_plan_free(p);
        return RL_EINPUT;
    }

    if (cfg->type == RL_GGML_F16 || cfg->type == RL_GGML_BF16) {
        p->lut = malloc(65536 * sizeof *p->lut);
        if (!p->lut) {
            rl_synth_plan_free(p);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        for (uint32_t i = 0; i < 65536; i++) {
            float v = SYNTH_WEIGHT_AMP * (((float)i + 0.5f) / 32768.0f - 1.0f);
            p->lut[i] = cfg->type == RL_GGML_F16 ? rl_half_from_f32(v) : rl_half_bf16_from_f32(v);
        }
    }
    *out = p;
    return RL_OK;
}

void rl_synth_plan_free(rl_synth_plan *p)
{
    if (!p)
        return;
    free(p->tensors);
    free(p->header);
    free(p->lut);
    free(p);
}
