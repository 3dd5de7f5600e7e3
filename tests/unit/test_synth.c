/* SPDX-License-Identifier: MIT */
/* test_synth.c: unit tests of the synthetic GGUF writer (synth.h): the exact tensor tables of
 * every preset, a write -> read round trip through the project's GGUF reader (gguf.h,
 * rl_gguf_model.h) for every preset and weight type, determinism, the value ranges of every
 * weight type, the vocabulary, validation and write errors. Files go to $RL_TMP (or /tmp). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/ggml_types.h"
#include "model/gguf.h"
#include "model/gguf_model.h"
#include "base/half.h"
#include "model/synth.h"
#include "model/synth_gen.h"
#include "model/synth_write.h"
#include "cmd/cmd.h"

static char tmpdir[512];

static const char *tmp_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/test_synth-%ld-%s", tmpdir, (long)getpid(), name);
    return path;
}

/* Temporary files rl_atomic left for tmp_path(name): ".test_synth-PID-NAME.XXXXXX". */
static int count_temps(const char *name)
{
    char prefix[600];
    snprintf(prefix, sizeof prefix, ".test_synth-%ld-%s.", (long)getpid(), name);
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static rl_synth_config preset_cfg(const char *name)
{
    const rl_synth_preset *p = rl_synth_preset_find(name);
    assert_non_null(p);
    return p->cfg;
}

static rl_synth_plan *plan_of(const rl_synth_config *c)
{
    rl_synth_plan *p = NULL;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_synth_plan_build(c, &p, &err);
    if (st != RL_OK)
        fail_msg("synth_plan_build: %s", err.msg);
    return p;
}

static const rl_synth_tensor *find_tensor(const rl_synth_plan *p, const char *name)
{
    for (size_t i = 0; i < p->n_tensors; i++)
        if (strcmp(p->tensors[i].name, name) == 0)
            return &p->tensors[i];
    return NULL;
}

static void assert_shape(const rl_synth_plan *p, const char *name, uint32_t type, uint32_t n_dims,
                         uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
    const rl_synth_tensor *t = find_tensor(p, name);
    if (!t)
        fail_msg("tensor %s missing", name);
    assert_int_equal(t->type, type);
    assert_int_equal(t->n_dims, n_dims);
    assert_int_equal(t->ne[0], ne0);
    assert_int_equal(t->ne[1], ne1);
    assert_int_equal(t->ne[2], ne2);
    assert_int_equal(t->ne[3], 1);
}

static uint64_t tensor_bytes(const rl_synth_plan *p)
{
    uint64_t b = 0;
    for (size_t i = 0; i < p->n_tensors; i++)
        b += p->tensors[i].n_bytes;
    return b;
}

/* ---- the presets' tensor tables (no data written) --------------------------------------- */

/* Counts, parameters and tensor bytes at F16 as the real llama-bench reports them for these
 * files (model_n_params, model_size), and the published canonical GGUF tensor counts. */
static void test_preset_totals(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        size_t n_tensors;
        uint64_t n_params, f16_bytes;
    } want[] = {
        {"tiny", 39, 2885888, 5776384},
        {"tiny-moe", 43, 7608576, 15229952},
        {"qwen2.5-0.5b", 291, 630167424, 1260477952},
        {"qwen2.5-1.5b", 339, 1777088000, 3554465792},
        {"llama-3.2-1b", 147, 1235814432, 2471764096},
    };
    assert_int_equal(rl_synth_preset_count(), 5);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_string_equal(rl_synth_preset_at(i)->name, want[i].name);
        rl_synth_config c = preset_cfg(want[i].name);
        rl_synth_plan *p = plan_of(&c);
        assert_int_equal(p->n_tensors, want[i].n_tensors);
        assert_int_equal(p->n_params, want[i].n_params);
        assert_int_equal(tensor_bytes(p), want[i].f16_bytes);
        assert_int_equal(p->file_type, 1);
        assert_int_equal(p->data_offset % SYNTH_ALIGNMENT, 0);
        assert_true(p->data_offset >= p->header_len && p->data_offset - p->header_len < 32);
        assert_int_equal(p->file_size, p->data_offset + p->data_bytes);
        uint64_t off = 0;
        for (size_t k = 0; k < p->n_tensors; k++) {
            assert_int_equal(p->tensors[k].offset, off);
            assert_int_equal(p->tensors[k].offset % SYNTH_ALIGNMENT, 0);
            off += (p->tensors[k].n_bytes + 31) / 32 * 32;
        }
        assert_int_equal(off, p->data_bytes);
        rl_synth_plan_free(p);
    }
}

/* The canonical qwen2 block: every name and shape, in order. */
static void test_qwen_tensor_table(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("qwen2.5-0.5b");
    rl_synth_plan *p = plan_of(&c);
    const uint32_t F16 = RL_GGML_F16, F32 = RL_GGML_F32;
    assert_string_equal(p->tensors[0].name, "token_embd.weight");
    assert_shape(p, "token_embd.weight", F16, 2, 896, 151936, 1);
    assert_shape(p, "output_norm.weight", F32, 1, 896, 1, 1);
    assert_shape(p, "output.weight", F16, 2, 896, 151936, 1);
    static const char *const block[] = {
        "attn_norm.weight", "attn_q.weight",   "attn_q.bias",   "attn_k.weight",
        "attn_k.bias",      "attn_v.weight",   "attn_v.bias",   "attn_output.weight",
        "ffn_norm.weight",  "ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"};
    for (int l = 0; l < 24; l++)
        for (int k = 0; k < 12; k++) {
            char want[64];
            snprintf(want, sizeof want, "blk.%d.%s", l, block[k]);
            assert_string_equal(p->tensors[1 + 12 * l + k].name, want);
        }
    assert_shape(p, "blk.0.attn_norm.weight", F32, 1, 896, 1, 1);
    assert_shape(p, "blk.0.attn_q.weight", F16, 2, 896, 896, 1);
    assert_shape(p, "blk.0.attn_q.bias", F32, 1, 896, 1, 1);
    assert_shape(p, "blk.0.attn_k.weight", F16, 2, 896, 128, 1);
    assert_shape(p, "blk.0.attn_k.bias", F32, 1, 128, 1, 1);
    assert_shape(p, "blk.23.attn_v.weight", F16, 2, 896, 128, 1);
    assert_shape(p, "blk.23.attn_v.bias", F32, 1, 128, 1, 1);
    assert_shape(p, "blk.23.attn_output.weight", F16, 2, 896, 896, 1);
    assert_shape(p, "blk.23.ffn_gate.weight", F16, 2, 896, 4864, 1);
    assert_shape(p, "blk.23.ffn_up.weight", F16, 2, 896, 4864, 1);
    assert_shape(p, "blk.23.ffn_down.weight", F16, 2, 4864, 896, 1);
    assert_null(find_tensor(p, "blk.24.attn_norm.weight"));
    rl_synth_plan_free(p);

    c = preset_cfg("qwen2.5-1.5b");
    c.type = RL_GGML_Q8_0;
    p = plan_of(&c);
    assert_int_equal(p->file_type, 7);
    assert_shape(p, "blk.27.attn_k.weight", RL_GGML_Q8_0, 2, 1536, 256, 1);
    assert_shape(p, "blk.27.attn_k.bias", F32, 1, 256, 1, 1);
    assert_shape(p, "blk.27.ffn_down.weight", RL_GGML_Q8_0, 2, 8960, 1536, 1);
    assert_shape(p, "output.weight", RL_GGML_Q8_0, 2, 1536, 151936, 1);
    /* Q8_0: 34 bytes per 32 weights */
    assert_int_equal(find_tensor(p, "output.weight")->n_bytes, 1536ull * 151936 / 32 * 34);
    rl_synth_plan_free(p);
}

static void test_llama_tensor_table(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("llama-3.2-1b");
    rl_synth_plan *p = plan_of(&c);
    const uint32_t F16 = RL_GGML_F16, F32 = RL_GGML_F32;
    assert_true(c.tied);
    assert_null(find_tensor(p, "output.weight"));
    assert_null(find_tensor(p, "blk.0.attn_q.bias"));
    assert_shape(p, "token_embd.weight", F16, 2, 2048, 128256, 1);
    assert_shape(p, "rope_freqs.weight", F32, 1, 32, 1, 1);
    assert_shape(p, "blk.15.attn_q.weight", F16, 2, 2048, 2048, 1);
    assert_shape(p, "blk.15.attn_k.weight", F16, 2, 2048, 512, 1);
    assert_shape(p, "blk.15.attn_v.weight", F16, 2, 2048, 512, 1);
    assert_shape(p, "blk.15.attn_output.weight", F16, 2, 2048, 2048, 1);
    assert_shape(p, "blk.15.ffn_gate.weight", F16, 2, 2048, 8192, 1);
    assert_shape(p, "blk.15.ffn_down.weight", F16, 2, 8192, 2048, 1);
    assert_shape(p, "output_norm.weight", F32, 1, 2048, 1, 1);
    rl_synth_plan_free(p);

    c.tied = false; /* --untied */
    p = plan_of(&c);
    assert_int_equal(p->n_tensors, 148);
    assert_shape(p, "output.weight", F16, 2, 2048, 128256, 1);
    rl_synth_plan_free(p);

    c = preset_cfg("tiny-moe");
    p = plan_of(&c);
    assert_shape(p, "blk.3.ffn_gate_inp.weight", F32, 2, 256, 4, 1);
    assert_shape(p, "blk.3.ffn_gate_exps.weight", F16, 3, 256, 512, 4);
    assert_shape(p, "blk.3.ffn_up_exps.weight", F16, 3, 256, 512, 4);
    assert_shape(p, "blk.3.ffn_down_exps.weight", F16, 3, 512, 256, 4);
    assert_null(find_tensor(p, "blk.0.ffn_gate.weight"));
    rl_synth_plan_free(p);
}

/* The Llama 3 rope factors as convert_hf_to_gguf computes them for Llama-3.2-1B. */
static void test_rope_factors(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("llama-3.2-1b");
    assert_true(rl_synth_rope_factor(&c, 0) == 1.0f);   /* short wavelengths: unscaled */
    assert_true(rl_synth_rope_factor(&c, 31) == 32.0f); /* long wavelengths: the factor */
    float prev = 0;
    for (uint64_t i = 0; i < 32; i++) {
        float f = rl_synth_rope_factor(&c, i);
        assert_true(f >= 1.0f && f <= 32.0f && f >= prev);
        prev = f;
    }
    /* the smooth band (wavelengths between 8192/4 and 8192): i = 15, 16, 17 */
    assert_true(rl_synth_rope_factor(&c, 14) == 1.0f);
    assert_float_equal(rl_synth_rope_factor(&c, 15), 1.65133f, 1e-3);
    assert_float_equal(rl_synth_rope_factor(&c, 16), 3.29226f, 2e-3);
    assert_float_equal(rl_synth_rope_factor(&c, 17), 9.66673f, 5e-3);
    assert_true(rl_synth_rope_factor(&c, 18) == 32.0f);
}

/* ---- vocabulary ------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_vocab(void **state)
{
    (void)state;
    char t[32];
    rl_synth_vocab_token(0, t, sizeof t);
    assert_string_equal(t, "<unk>");
    rl_synth_vocab_token(1, t, sizeof t);
    assert_string_equal(t, "<s>");
    rl_synth_vocab_token(2, t, sizeof t);
    assert_string_equal(t, "</s>");
    rl_synth_vocab_token(3, t, sizeof t);
    assert_string_equal(t, "<0x00>");
    rl_synth_vocab_token(3 + 10, t, sizeof t);
    assert_string_equal(t, "<0x0A>");
    rl_synth_vocab_token(258, t, sizeof t);
    assert_string_equal(t, "<0xFF>");
    rl_synth_vocab_token(259, t, sizeof t);
    assert_string_equal(t, "\xe2\x96\x81");
    rl_synth_vocab_token(260, t, sizeof t);
    assert_string_equal(t, "!");
    rl_synth_vocab_token(259 + 94, t, sizeof t);
    assert_string_equal(t, "~");
    rl_synth_vocab_token(259 + 95, t, sizeof t);
    assert_string_equal(t, "\xe2\x96\x81"
                           "a");
    rl_synth_vocab_token(259 + 95 + 62, t, sizeof t);
    assert_string_equal(t, "\xe2\x96\x81"
                           "aa");
    rl_synth_vocab_token(259 + 95 + 62 + 1, t, sizeof t);
    assert_string_equal(t, "aa");
    rl_synth_vocab_token(259 + 95 + 62 + 2 * 676, t, sizeof t);
    assert_string_equal(t, "\xe2\x96\x81"
                           "aaa");
    assert_int_equal(rl_synth_vocab_type(0), 2);
    assert_int_equal(rl_synth_vocab_type(1), 3);
    assert_int_equal(rl_synth_vocab_type(2), 3);
    assert_int_equal(rl_synth_vocab_type(3), 6);
    assert_int_equal(rl_synth_vocab_type(258), 6);
    assert_int_equal(rl_synth_vocab_type(259), 1);
    assert_true(rl_synth_vocab_score(258) == 0.0f);
    assert_true(rl_synth_vocab_score(260) == -1.0f);

    /* every token of the largest preset vocabulary is distinct (llama.cpp requires it) */
    const size_t n = 151936;
    char **all = calloc(n, sizeof *all);
    char *pool = calloc(n, 16);
    assert_non_null(all);
    assert_non_null(pool);
    for (size_t i = 0; i < n; i++) {
        all[i] = pool + 16 * i;
        rl_synth_vocab_token(i, all[i], 16);
        assert_true(all[i][0] != '\0');
    }
    qsort(all, n, sizeof *all, cmp_str);
    for (size_t i = 1; i < n; i++)
        if (strcmp(all[i - 1], all[i]) == 0)
            fail_msg("duplicate token '%s'", all[i]);
    free(all);
    free(pool);
}

/* ---- conversions and generated values --------------------------------------------------- */

static void test_half_conversions(void **state)
{
    (void)state;
    assert_int_equal(rl_half_from_f32(1.0f), 0x3C00);
    assert_int_equal(rl_half_from_f32(-2.0f), 0xC000);
    assert_int_equal(rl_half_from_f32(0.0f), 0x0000);
    assert_int_equal(rl_half_from_f32(65504.0f), 0x7BFF);
    assert_int_equal(rl_half_from_f32(1e6f), 0x7C00);
    assert_int_equal(rl_half_from_f32(0x1.0p-24f), 0x0001); /* smallest subnormal */
    assert_int_equal(rl_half_from_f32(0.02f), 0x251F);
    assert_true(rl_half_to_f32(0x3C00) == 1.0f);
    assert_true(rl_half_to_f32(0x0001) == 0x1.0p-24f);
    assert_true(rl_half_to_f32(0xC000) == -2.0f);
    assert_int_equal(rl_half_bf16_from_f32(1.0f), 0x3F80);
    assert_int_equal(rl_half_bf16_from_f32(-0.02f), 0xBCA4);
    assert_true(rl_half_bf16_to_f32(0x3F80) == 1.0f);
    /* infinity stays infinity (0x7F80), only a NaN gets the quiet bit */
    assert_int_equal(rl_half_bf16_from_f32(INFINITY), 0x7F80);
    assert_int_equal(rl_half_bf16_from_f32(-INFINITY), 0xFF80);
    assert_int_equal(rl_half_bf16_from_f32(NAN) & 0x7FC0, 0x7FC0);
    for (uint32_t h = 0; h < 0x7C00; h++) /* every finite positive half round-trips */
        assert_int_equal(rl_half_from_f32(rl_half_to_f32((uint16_t)h)), h);
}

/* Decode a tensor's generated bytes to floats (F32/F16/BF16/Q8_0/Q4_0). */
static void decode(const rl_synth_tensor *t, const unsigned char *b, float *out)
{
    for (uint64_t e = 0; e < t->n_elements; e++) {
        switch (t->type) {
        case RL_GGML_F32: memcpy(&out[e], b + 4 * e, 4); break;
        case RL_GGML_F16: {
            uint16_t h;
            memcpy(&h, b + 2 * e, 2);
            out[e] = rl_half_to_f32(h);
            break;
        }
        case RL_GGML_BF16: {
            uint16_t h;
            memcpy(&h, b + 2 * e, 2);
            out[e] = rl_half_bf16_to_f32(h);
            break;
        }
        case RL_GGML_Q8_0: {
            const unsigned char *blk = b + 34 * (e / 32);
            uint16_t d;
            memcpy(&d, blk, 2);
            out[e] = rl_half_to_f32(d) * (float)(int8_t)blk[2 + e % 32];
            break;
        }
        case RL_GGML_Q4_0: {
            const unsigned char *blk = b + 18 * (e / 32);
            uint16_t d;
            memcpy(&d, blk, 2);
            unsigned j = (unsigned)(e % 32);
            int q = j < 16 ? (blk[2 + j] & 15) : (blk[2 + j - 16] >> 4);
            out[e] = rl_half_to_f32(d) * (float)(q - 8);
            break;
        }
        default: fail_msg("type %u", t->type);
        }
    }
}

static void test_value_ranges(void **state)
{
    (void)state;
    const uint32_t types[] = {RL_GGML_F32, RL_GGML_F16, RL_GGML_BF16, RL_GGML_Q8_0, RL_GGML_Q4_0};
    for (size_t ti = 0; ti < 5; ti++) {
        rl_synth_config c = preset_cfg("tiny");
        c.type = types[ti];
        rl_synth_plan *p = plan_of(&c);
        for (size_t k = 0; k < p->n_tensors; k++) {
            const rl_synth_tensor *t = &p->tensors[k];
            unsigned char *b = malloc(t->n_bytes);
            float *v = malloc(t->n_elements * sizeof *v);
            assert_non_null(b);
            assert_non_null(v);
            rl_synth_generate(p, k, 0, t->n_elements, b);
            if (t->type == RL_GGML_Q8_0 || t->type == RL_GGML_Q4_0) {
                size_t bs = t->type == RL_GGML_Q8_0 ? 34 : 18;
                float qmax = t->type == RL_GGML_Q8_0 ? 127.0f : 8.0f;
                for (uint64_t blk = 0; blk < t->n_elements / 32; blk++) {
                    uint16_t d;
                    memcpy(&d, b + bs * blk, 2);
                    float s = rl_half_to_f32(d);
                    /* scales are finite, positive, amp/qmax * [0.5, 1] */
                    assert_true(isfinite(s));
                    assert_true(s >= 0.499f * t->amp / qmax && s <= 1.001f * t->amp / qmax);
                    if (t->type == RL_GGML_Q8_0)
                        for (int j = 0; j < 32; j++)
                            assert_true(b[bs * blk + 2 + j] != 0x80);
                }
            }
            decode(t, b, v);
            double sum = 0, sq = 0;
            for (uint64_t e = 0; e < t->n_elements; e++) {
                assert_true(isfinite(v[e]));
                if (t->init == SYNTH_INIT_ONES)
                    assert_true(v[e] == 1.0f);
                else
                    assert_true(fabsf(v[e]) <= t->amp * 1.001f);
                sum += v[e];
                sq += (double)v[e] * v[e];
            }
            if (t->init == SYNTH_INIT_UNIFORM && t->n_elements >= 65536) {
                double mean = sum / (double)t->n_elements;
                double rms = sqrt(sq / (double)t->n_elements);
                /* uniform in [-a, a]: rms a/sqrt(3); the quant types a little less */
                assert_true(fabs(mean) < 0.05 * t->amp);
                assert_true(rms > 0.3 * t->amp && rms < 0.6 * t->amp);
            }
            free(b);
            free(v);
        }
        rl_synth_plan_free(p);
    }
}

/* Chunk boundaries do not change the values: a tensor generated whole equals it generated in
 * pieces starting at multiples of SYNTH_CHUNK_ALIGN. */
static void test_chunking(void **state)
{
    (void)state;
    const uint32_t types[] = {RL_GGML_F32, RL_GGML_F16, RL_GGML_Q8_0, RL_GGML_Q4_0};
    for (size_t ti = 0; ti < 4; ti++) {
        rl_synth_config c = preset_cfg("tiny");
        c.type = types[ti];
        rl_synth_plan *p = plan_of(&c);
        const rl_synth_tensor *t = find_tensor(p, "blk.1.ffn_down.weight");
        size_t k = (size_t)(t - p->tensors);
        unsigned char *whole = malloc(t->n_bytes), *parts = malloc(t->n_bytes);
        assert_non_null(whole);
        assert_non_null(parts);
        rl_synth_generate(p, k, 0, t->n_elements, whole);
        uint64_t cut = 32 * 777;
        uint64_t cut_bytes = t->n_bytes / t->n_elements * cut;
        if (t->type == RL_GGML_Q8_0)
            cut_bytes = cut / 32 * 34;
        else if (t->type == RL_GGML_Q4_0)
            cut_bytes = cut / 32 * 18;
        rl_synth_generate(p, k, 0, cut, parts);
        rl_synth_generate(p, k, cut, t->n_elements - cut, parts + cut_bytes);
        assert_memory_equal(whole, parts, t->n_bytes);
        free(whole);
        free(parts);
        rl_synth_plan_free(p);
    }
}

/* ---- round trip through the reader ------------------------------------------------------ */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void round_trip(const rl_synth_config *c)
{
    rl_synth_plan *p = plan_of(c);
    const char *path = tmp_path("rt.gguf");
    rl_error err = {RL_OK, ""};
    rl_status st = rl_synth_write(p, path, NULL, &err);
    if (st != RL_OK)
        fail_msg("synth_write: %s", err.msg);
    assert_int_equal(count_temps("rt.gguf"), 0); /* renamed away */

    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal((uint64_t)sb.st_size, p->file_size);

    rl_gguf_file *f = NULL;
    st = rl_gguf_read_file(path, &f, &err);
    if (st != RL_OK)
        fail_msg("gguf_read_file %s/%s: %s", c->preset, rl_synth_type_name(c->type), err.msg);
    assert_int_equal(f->version, 3);
    assert_int_equal(f->alignment, 32);
    assert_int_equal(f->data_offset, p->data_offset);
    assert_int_equal(f->file_size, p->file_size);
    assert_int_equal(f->n_tensors, p->n_tensors);
    for (size_t i = 0; i < p->n_tensors; i++) {
        const rl_gguf_tensor *g = &f->tensors[i];
        const rl_synth_tensor *t = &p->tensors[i];
        assert_string_equal(g->name, t->name);
        assert_int_equal(g->n_dims, t->n_dims);
        for (int d = 0; d < 4; d++)
            assert_int_equal(g->ne[d], t->ne[d]);
        assert_int_equal(g->type, t->type);
        assert_int_equal(g->offset, t->offset);
        assert_int_equal(g->offset % 32, 0);
        assert_true(g->sized);
        assert_int_equal(g->n_bytes, t->n_bytes);
        assert_int_equal(g->n_elements, t->n_elements);
    }
    /* the file ends exactly after the last tensor, padded to the alignment like ggml does */
    const rl_gguf_tensor *last = &f->tensors[f->n_tensors - 1];
    assert_int_equal(f->file_size, f->data_offset + (last->offset + last->n_bytes + 31) / 32 * 32);

    uint64_t u = 0;
    assert_true(rl_gguf_get_u64(f, "general.file_type", &u));
    assert_int_equal(u, rl_synth_file_type(c->type));
    assert_true(rl_gguf_get_u64(f, "general.alignment", &u));
    assert_int_equal(u, 32);
    const char *arch = c->arch == SYNTH_ARCH_QWEN2 ? "qwen2" : "llama";
    assert_string_equal(rl_gguf_get_str(f, "general.architecture"), arch);
    char key[128], name[64];
    snprintf(name, sizeof name, "synth %s", c->preset);
    assert_string_equal(rl_gguf_get_str(f, "general.name"), name);
    assert_string_equal(rl_gguf_get_str(f, "tokenizer.ggml.model"), "llama");
    snprintf(key, sizeof key, "%s.block_count", arch);
    assert_true(rl_gguf_get_u64(f, key, &u));
    assert_int_equal(u, c->n_layer);
    snprintf(key, sizeof key, "%s.attention.head_count_kv", arch);
    assert_true(rl_gguf_get_u64(f, key, &u));
    assert_int_equal(u, c->n_head_kv);
    double d = 0;
    snprintf(key, sizeof key, "%s.rope.freq_base", arch);
    assert_true(rl_gguf_get_f64(f, key, &d));
    assert_true(d == (double)c->rope_freq_base);
    const rl_gguf_kv *tok = rl_gguf_find(f, "tokenizer.ggml.tokens");
    assert_non_null(tok);
    assert_int_equal(tok->type, GGUF_T_ARRAY);
    assert_int_equal(tok->v.arr.elem, GGUF_T_STRING);
    assert_int_equal(tok->v.arr.len, c->n_vocab);
    for (uint32_t i = 0; i < tok->v.arr.n_kept; i++) {
        char t[32];
        rl_synth_vocab_token(i, t, sizeof t);
        assert_string_equal(tok->v.arr.strs[i], t);
    }
    const rl_gguf_kv *sc = rl_gguf_find(f, "tokenizer.ggml.scores");
    assert_non_null(sc);
    assert_int_equal(sc->v.arr.elem, GGUF_T_FLOAT32);
    assert_int_equal(sc->v.arr.len, c->n_vocab);
    const rl_gguf_kv *ty = rl_gguf_find(f, "tokenizer.ggml.token_type");
    assert_non_null(ty);
    assert_int_equal(ty->v.arr.elem, GGUF_T_INT32);
    assert_int_equal(ty->v.arr.len, c->n_vocab);
    rl_gguf_free(f);

    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    st = rl_gguf_model_load(path, &m, &err);
    if (st != RL_OK)
        fail_msg("gguf_model_load: %s", err.msg);
    assert_string_equal(m.architecture, arch);
    assert_int_equal(m.file_type, rl_synth_file_type(c->type));
    assert_int_equal(m.n_layer, c->n_layer);
    assert_int_equal(m.n_embd, c->n_embd);
    assert_int_equal(m.n_ff, c->n_ff);
    assert_int_equal(m.n_head, c->n_head);
    assert_int_equal(m.n_head_kv, c->n_head_kv);
    assert_int_equal(m.n_vocab, c->n_vocab);
    assert_int_equal(m.context_length, c->n_ctx);
    assert_int_equal(m.expert_count, c->n_expert);
    assert_int_equal(m.expert_used_count, c->n_expert_used);
    assert_int_equal(m.is_moe, c->n_expert > 0);
    assert_int_equal(m.tied_embeddings, c->tied);
    assert_int_equal(m.n_tensors, p->n_tensors);
    assert_int_equal(m.n_params, p->n_params);
    assert_int_equal(m.file_bytes, p->file_size);
    assert_int_equal(m.tensor_bytes, tensor_bytes(p));
    rl_gguf_model_free(&m);

    /* the data on disk is what rl_synth_generate makes */
    size_t len = 0;
    unsigned char *bytes = slurp(path, &len);
    assert_int_equal(len, p->file_size);
    assert_memory_equal(bytes, p->header, p->header_len);
    for (size_t i = 0; i < p->n_tensors; i += 7) {
        const rl_synth_tensor *t = &p->tensors[i];
        unsigned char *want = malloc(t->n_bytes);
        assert_non_null(want);
        rl_synth_generate(p, i, 0, t->n_elements, want);
        assert_memory_equal(bytes + p->data_offset + t->offset, want, t->n_bytes);
        free(want);
    }
    free(bytes);
    unlink(path);
    rl_synth_plan_free(p);
}

/* Every preset and every type; the big presets shrunk (1 layer, a 1024-token vocabulary) to
 * keep the test fast; their full tables are checked above. */
static void test_round_trip_all(void **state)
{
    (void)state;
    const uint32_t types[] = {RL_GGML_F32, RL_GGML_F16, RL_GGML_BF16, RL_GGML_Q8_0, RL_GGML_Q4_0};
    for (size_t i = 0; i < rl_synth_preset_count(); i++) {
        for (size_t k = 0; k < 5; k++) {
            rl_synth_config c = rl_synth_preset_at(i)->cfg;
            c.type = types[k];
            c.seed = 42;
            if (c.n_vocab > 4096) {
                c.n_layer = 1;
                c.n_vocab = 1024;
                if (c.n_ff > 1024)
                    c.n_ff = 1024;
            }
            round_trip(&c);
        }
    }
    /* and the overrides: tied tiny, an 8-expert tiny-moe, a dense tiny-moe */
    rl_synth_config c = preset_cfg("tiny");
    c.tied = true;
    round_trip(&c);
    c = preset_cfg("tiny-moe");
    c.n_expert = 8;
    c.n_expert_used = 3;
    round_trip(&c);
    c.n_expert = 0;
    c.n_expert_used = 0;
    round_trip(&c);
}

static void test_determinism(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("tiny");
    c.type = RL_GGML_Q4_0;
    c.seed = 7;
    rl_error err = {RL_OK, ""};
    char a[1100], b[1100];
    snprintf(a, sizeof a, "%s", tmp_path("det-a.gguf"));
    snprintf(b, sizeof b, "%s", tmp_path("det-b.gguf"));
    rl_synth_plan *p = plan_of(&c);
    assert_int_equal(rl_synth_write(p, a, NULL, &err), RL_OK);
    rl_synth_plan_free(p);
    p = plan_of(&c);
    assert_int_equal(rl_synth_write(p, b, NULL, &err), RL_OK);
    size_t la, lb;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(x, y, la);
    free(y);
    rl_synth_plan_free(p);

    c.seed = 8;
    p = plan_of(&c);
    assert_int_equal(rl_synth_write(p, b, NULL, &err), RL_OK);
    y = slurp(b, &lb);
    assert_int_equal(la, lb);                  /* same layout */
    assert_memory_equal(x, y, p->data_offset); /* same header */
    const rl_synth_tensor *t = find_tensor(p, "blk.0.attn_q.weight");
    assert_memory_not_equal(x + p->data_offset + t->offset, y + p->data_offset + t->offset,
                            t->n_bytes); /* other weights */
    free(x);
    free(y);
    rl_synth_plan_free(p);
    unlink(a);
    unlink(b);
}

/* ---- validation and errors -------------------------------------------------------------- */

static void expect_invalid(const rl_synth_config *c, const char *needle)
{
    rl_error err = {RL_OK, ""};
    rl_synth_plan *p = (rl_synth_plan *)1;
    assert_int_equal(rl_synth_plan_build(c, &p, &err), RL_EINPUT);
    assert_null(p);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    assert_null(strchr(err.msg, '\n'));
}

static void test_validation(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("qwen2.5-0.5b");
    c.n_head = 16; /* 896 / 16 = 56 ok; 16 % 2 ok */
    rl_synth_plan *p = plan_of(&c);
    rl_synth_plan_free(p);

    c = preset_cfg("qwen2.5-0.5b");
    c.n_head = 13;
    expect_invalid(&c, "--n-embd 896 is not divisible by --n-head 13");
    c = preset_cfg("tiny");
    c.n_head_kv = 3;
    expect_invalid(&c, "--n-head 8 is not a multiple of --n-head-kv 3");
    c = preset_cfg("tiny");
    c.n_head_kv = 16;
    expect_invalid(&c, "--n-head-kv 16");
    c = preset_cfg("tiny");
    c.n_embd = 200;
    c.n_head = 8; /* head size 25: odd */
    expect_invalid(&c, "must be even");
    c = preset_cfg("tiny");
    c.n_embd = 0;
    expect_invalid(&c, "--n-embd 0 is out of range");
    c = preset_cfg("tiny");
    c.n_layer = 513;
    expect_invalid(&c, "--n-layer 513 is out of range (1 to 512)");
    c = preset_cfg("tiny");
    c.n_vocab = 100;
    expect_invalid(&c, "--n-vocab 100 is out of range (259 to");
    c = preset_cfg("tiny");
    c.type = RL_GGML_Q4_0;
    c.n_embd = 48;
    c.n_head = 2;
    c.n_head_kv = 2;
    expect_invalid(&c, "--type Q4_0 needs --n-embd divisible by 32 (got 48)");
    c = preset_cfg("tiny");
    c.type = RL_GGML_Q8_0;
    c.n_ff = 100;
    expect_invalid(&c, "--type Q8_0 needs --n-ff divisible by 32 (got 100)");
    c = preset_cfg("tiny");
    c.type = 12; /* Q4_K: not offered */
    expect_invalid(&c, "weight type 12");
    c = preset_cfg("tiny-moe");
    c.n_expert_used = 5;
    expect_invalid(&c, "--n-expert-used 5 must be 1 to --n-expert 4");
    c = preset_cfg("tiny");
    c.n_expert_used = 2;
    expect_invalid(&c, "--n-expert-used 2 needs --n-expert");
    c = preset_cfg("qwen2.5-0.5b");
    c.n_expert = 4;
    c.n_expert_used = 2;
    expect_invalid(&c, "experts need a llama-architecture preset");

    assert_null(rl_synth_preset_find("qwen2.5-7b"));
    assert_int_equal(rl_synth_type_by_name("q4_0"), RL_GGML_Q4_0);
    assert_int_equal(rl_synth_type_by_name("BF16"), RL_GGML_BF16);
    assert_int_equal(rl_synth_type_by_name("Q4_K"), -1);
    assert_int_equal(rl_synth_file_type(RL_GGML_F32), 0);
    assert_int_equal(rl_synth_file_type(RL_GGML_F16), 1);
    assert_int_equal(rl_synth_file_type(RL_GGML_Q4_0), 2);
    assert_int_equal(rl_synth_file_type(RL_GGML_Q8_0), 7);
    assert_int_equal(rl_synth_file_type(RL_GGML_BF16), 32);
}

static void test_write_errors(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("tiny");
    rl_synth_plan *p = plan_of(&c);
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_synth_write(p, "/proc/nonexistent/x.gguf", NULL, &err), RL_EOUTPUT);
    assert_non_null(strstr(err.msg, "/proc/nonexistent/x.gguf"));
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(rl_synth_write(p, "/dev/full", NULL, &err), RL_EOUTPUT);
        assert_non_null(strstr(err.msg, "/dev/full"));
        assert_non_null(strstr(err.msg, strerror(ENOSPC)));
    }
    assert_int_equal(rl_synth_write(p, tmpdir, NULL, &err), RL_EOUTPUT);
    assert_non_null(strstr(err.msg, "directory"));
    /* /dev/null is written straight through */
    assert_int_equal(rl_synth_write(p, "/dev/null", NULL, &err), RL_OK);
    rl_synth_plan_free(p);
}

/* ---- sizes: checked arithmetic, exact messages --------------------------------------- */

static void test_size_arithmetic(void **state)
{
    (void)state;
    uint64_t r = 7;
    assert_true(rl_synth_size_mul(0, UINT64_MAX, &r));
    assert_int_equal(r, 0);
    assert_true(rl_synth_size_mul(3037000499ull, 3037000499ull, &r)); /* floor(sqrt(2^63)) */
    assert_int_equal(r, 9223372030926249001ull);
    r = 7;
    assert_false(rl_synth_size_mul(1ull << 32, 1ull << 31, &r)); /* 2^63: past the bound */
    assert_false(rl_synth_size_mul(UINT64_MAX, 2, &r));          /* wraps 64 bits */
    assert_false(rl_synth_size_mul(1ull << 40, 1ull << 40, &r));
    assert_int_equal(r, 7); /* untouched on failure */
    assert_true(rl_synth_size_add(SYNTH_MAX_SIZE, 0, &r));
    assert_int_equal(r, SYNTH_MAX_SIZE);
    assert_false(rl_synth_size_add(SYNTH_MAX_SIZE, 1, &r));
    assert_false(rl_synth_size_add(UINT64_MAX, 1, &r)); /* wraps to 0 */
    assert_int_equal(r, SYNTH_MAX_SIZE);
}

static void expect_too_big(const rl_synth_config *c, const char *msg)
{
    rl_error err = {RL_OK, ""};
    rl_synth_plan *p = (rl_synth_plan *)1;
    assert_int_equal(rl_synth_plan_build(c, &p, &err), RL_EINPUT);
    assert_null(p);
    assert_string_equal(err.msg, msg);
}

static void test_size_overflow(void **state)
{
    (void)state;
    /* a tensor's elements wrap 64 bits: 2^23 x (2^32 - 32) x 2^10 */
    rl_synth_config c = preset_cfg("tiny-moe");
    c.n_embd = 1ull << 23;
    c.n_ff = 4294967264ull;
    c.n_expert = 1024;
    expect_too_big(&c, "tensor blk.0.ffn_gate_exps.weight (8388608 x 4294967264 x 1024) would "
                       "hold more than 2^63 - 1 elements: make the shape smaller");
    /* ... fit 64 bits but pass 2^63 - 1: (2^32 - 256)^2 */
    c = preset_cfg("tiny");
    c.n_embd = 4294967040ull;
    expect_too_big(&c, "tensor blk.0.attn_q.weight (4294967040 x 4294967040) would hold more "
                       "than 2^63 - 1 elements: make the shape smaller");
    /* a tensor's bytes: 2^62 F32 elements wrap 64 bits, 2^62 F16 ones make exactly 2^63 */
    c = preset_cfg("tiny");
    c.n_embd = 1ull << 31;
    c.type = RL_GGML_F32;
    expect_too_big(&c, "tensor blk.0.attn_q.weight (2147483648 x 2147483648, F32) would take "
                       "more than 2^63 - 1 bytes: make the shape smaller");
    c.type = RL_GGML_F16;
    expect_too_big(&c, "tensor blk.0.attn_q.weight (2147483648 x 2147483648, F16) would take "
                       "more than 2^63 - 1 bytes: make the shape smaller");
    /* the sum of the bytes: every tensor fits, layer 0 takes 3 x 2^61, blk.1.attn_q one more */
    c = preset_cfg("tiny");
    c.n_embd = 1ull << 30;
    c.n_layer = 2;
    expect_too_big(&c, "the tensors up to blk.1.attn_q.weight would take more than 2^63 - 1 "
                       "bytes: make the shape smaller");
    c.n_layer = 3; /* the running sum would wrap 64 bits further on: the same first failure */
    expect_too_big(&c, "the tensors up to blk.1.attn_q.weight would take more than 2^63 - 1 "
                       "bytes: make the shape smaller");
    /* the sum of the elements: Q4_0 stores 2^63 elements in fewer bytes */
    c = preset_cfg("tiny");
    c.n_embd = 1ull << 31;
    c.type = RL_GGML_Q4_0;
    expect_too_big(&c, "the tensors up to blk.0.attn_v.weight would hold more than 2^63 - 1 "
                       "parameters: make the shape smaller");
    /* the largest shapes the options allow still plan (205 TiB): the disk decides */
    c = preset_cfg("tiny");
    c.n_embd = 65536;
    c.n_ff = 1u << 20;
    c.n_layer = 512;
    rl_synth_plan *p = plan_of(&c);
    assert_true(p->file_size > 200ull << 40 && p->file_size < 210ull << 40);
    rl_synth_plan_free(p);
}

static void test_space_check(void **state)
{
    (void)state;
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_synth_space_check("/m/x.gguf", 1000, 1000, &err), RL_OK);
    assert_int_equal(rl_synth_space_check("/m/x.gguf", 225500000000000ull, 1000000000, &err),
                     RL_EOUTPUT);
    assert_string_equal(err.msg, "cannot write /m/x.gguf: the model needs 225.50 TB "
                                 "(225500000000000 bytes) but its file system has 1.00 GB "
                                 "(1000000000 bytes) free (free some space, choose another path "
                                 "or a smaller model)");
    assert_int_equal(rl_synth_space_check("x.gguf", 1001, 1000, &err), RL_EOUTPUT);
    assert_string_equal(err.msg, "cannot write x.gguf: the model needs 1.0 kB (1001 bytes) but its "
                                 "file system has 1.0 kB (1000 bytes) free (free some space, "
                                 "choose another path or a smaller model)");
}

/* A plan far larger than the disk is refused before a byte is written; an interrupt before
 * the write leaves nothing either. */
static void test_write_refused(void **state)
{
    (void)state;
    rl_synth_config c = preset_cfg("tiny");
    c.n_embd = 65536;
    c.n_ff = 1u << 20;
    c.n_layer = 512;
    rl_synth_plan *p = plan_of(&c);
    const char *path = tmp_path("huge.gguf");
    rl_error err = {RL_OK, ""};
    char want[1200];
    snprintf(want, sizeof want,
             "cannot write %s: the model needs 224.30 TB (224300909500160 bytes) but its file "
             "system has ",
             path);
    assert_int_equal(rl_synth_write(p, path, NULL, &err), RL_EOUTPUT);
    if (strncmp(err.msg, want, strlen(want)) != 0 ||
        !strstr(err.msg, " free (free some space, choose another path or a smaller model)"))
        fail_msg("message: %s", err.msg);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(count_temps("huge.gguf"), 0);
    rl_synth_plan_free(p);

    c = preset_cfg("tiny");
    p = plan_of(&c);
    path = tmp_path("int.gguf");
    rl_interrupted = 1;
    assert_int_equal(rl_synth_write(p, path, NULL, &err), RL_EINTERRUPTED);
    rl_interrupted = 0;
    snprintf(want, sizeof want, "interrupted while writing %s", path);
    assert_string_equal(err.msg, want);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(count_temps("int.gguf"), 0);
    rl_synth_plan_free(p);
}

/* The command answers -h/--help itself (main's transitional --help block is not reached from
 * here), and a value "-h" is a value. */
static void test_command_help(void **state)
{
    (void)state;
    const char *out = tmp_path("help.txt");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    char *argv1[] = {"synth", "--preset", "nope", "--help", NULL}; /* preset fails first */
    char *argv2[] = {"synth", "-q", "-h", "--frob", NULL};
    rl_error err = {RL_OK, ""};
    rl_status st1 = rl_cmd_synth.run(4, argv1, &err);
    rl_status st2 = rl_cmd_synth.run(4, argv2, &err);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(st1, RL_EINPUT);
    assert_int_equal(st2, RL_OK);
    size_t len = 0;
    unsigned char *text = slurp(out, &len);
    text[len] = '\0';
    assert_non_null(strstr((char *)text, "usage: llama-roofline synth --preset NAME"));
    assert_non_null(strstr((char *)text, "exit codes:"));
    free(text);
    unlink(out);

    char *argv3[] = {"synth", "--preset", "tiny", "-q", "-o", "-h", "--seed", "+5", NULL};
    assert_int_equal(rl_cmd_synth.run(8, argv3, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--seed: '+5' is not valid: give a whole number from 0 to "
                                 "18446744073709551615");

    /* -o -h writes a file named -h (in a directory of its own) */
    char dir[1100], cwd[4096];
    snprintf(dir, sizeof dir, "%s", tmp_path("dash-h"));
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    char *argv4[] = {"synth", "--preset", "tiny", "-q", "-o", "-h", NULL};
    rl_status st4 = rl_cmd_synth.run(6, argv4, &err);
    struct stat sb;
    int found = stat("-h", &sb);
    unlink("-h");
    assert_int_equal(chdir(cwd), 0);
    rmdir(dir);
    assert_int_equal(st4, RL_OK);
    assert_int_equal(found, 0);
    assert_int_equal((uint64_t)sb.st_size, 5800224);
}

int main(void)
{
    const char *t = getenv("RL_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s", t && *t ? t : "/tmp");
    mkdir(tmpdir, 0777);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_totals),
        cmocka_unit_test(test_qwen_tensor_table),
        cmocka_unit_test(test_llama_tensor_table),
        cmocka_unit_test(test_rope_factors),
        cmocka_unit_test(test_vocab),
        cmocka_unit_test(test_half_conversions),
        cmocka_unit_test(test_value_ranges),
        cmocka_unit_test(test_chunking),
        cmocka_unit_test(test_round_trip_all),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_size_arithmetic),
        cmocka_unit_test(test_size_overflow),
        cmocka_unit_test(test_space_check),
        cmocka_unit_test(test_write_refused),
        cmocka_unit_test(test_command_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
