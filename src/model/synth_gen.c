/* SPDX-License-Identifier: MIT */
/* synth_gen.c: the tensor values of a synthetic model (see synth_gen.h): deterministic,
 * counter-based splitmix64 streams, so any chunking of a tensor gives the same bytes.
 * Depends on the plan (synth.h) only; nothing is allocated. */
#include "model/synth_gen.h"

#include <string.h>

#include "model/ggml_types.h"
#include "base/half.h"

/* Q8_0 and Q4_0 blocks (ggml-common.h): a 2-byte F16 scale, then 32 int8 or 32 nibbles; the
 * block length and stride are the ggml type table's. */

/* Word k of a stream: splitmix64 evaluated at counter k, so any element can be found without
 * generating the ones before it. */
static inline uint64_t word(uint64_t stream, uint64_t k)
{
    uint64_t z = stream + (k + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Block scale: amp/qmax times one of 16 factors in [0.5, 1.0], picked by 4 random bits. */
static void scale_table(float amp, float qmax, uint16_t out[16])
{
    for (int i = 0; i < 16; i++)
        out[i] = rl_half_from_f32(amp / qmax * (0.5f + (float)i / 30.0f));
}

static void gen_f32(const rl_synth_plan *p, const rl_synth_tensor *t, uint64_t first,
                    uint64_t count, float *out)
{
    switch (t->init) {
    case SYNTH_INIT_ONES:
        for (uint64_t i = 0; i < count; i++)
            out[i] = 1.0f;
        break;
    case SYNTH_INIT_ROPE_FREQS:
        for (uint64_t i = 0; i < count; i++)
            out[i] = rl_synth_rope_factor(&p->cfg, first + i);
        break;
    case SYNTH_INIT_UNIFORM: {
        const float k = t->amp / 2147483648.0f;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t e = first + i;
            uint64_t w = word(t->stream, e >> 1);
            int32_t r = (int32_t)(uint32_t)(w >> (32 * (e & 1)));
            out[i] = (float)r * k;
        }
        break;
    }
    }
}

static void gen_half(const rl_synth_plan *p, const rl_synth_tensor *t, uint64_t first,
                     uint64_t count, uint16_t *out)
{
    const uint16_t *lut = p->lut;
    uint64_t i = 0;
    /* first is a multiple of 4: whole words, then the tail */
    for (; i + 4 <= count; i += 4) {
        uint64_t w = word(t->stream, (first + i) >> 2);
        out[i] = lut[w & 0xffff];
        out[i + 1] = lut[(w >> 16) & 0xffff];
        out[i + 2] = lut[(w >> 32) & 0xffff];
        out[i + 3] = lut[w >> 48];
    }
    for (; i < count; i++) {
        uint64_t e = first + i;
        out[i] = lut[(word(t->stream, e >> 2) >> (16 * (e & 3))) & 0xffff];
    }
}

/* A block's fp16 scale from table d, chosen by the first of its words of the stream (b *
 * words_per_block), written at out; returns the index of that first word. */
static inline uint64_t block_scale(const rl_synth_tensor *t, uint64_t b, uint64_t words_per_block,
                                   const uint16_t d[16], unsigned char *out)
{
    uint64_t k = b * words_per_block;
    uint16_t s = d[word(t->stream, k) & 15];
    memcpy(out, &s, 2);
    return k;
}

static void gen_q8_0(const rl_synth_tensor *t, uint64_t first, uint64_t count, unsigned char *out)
{
    const rl_ggml_type_info *ti = rl_ggml_type_get(RL_GGML_Q8_0);
    uint16_t d[16];
    scale_table(t->amp, 127.0f, d);
    for (uint64_t b = first / ti->blck, end = (first + count) / ti->blck; b < end;
         b++, out += ti->type_size) {
        uint64_t k = block_scale(t, b, 5, d, out);
        for (int j = 0; j < 4; j++) {
            uint64_t w = word(t->stream, k + 1 + (uint64_t)j);
            /* -128 would step outside [-amp, amp]: make every 0x80 byte 0x81 (-127). The
             * bytes of v are zero exactly where w has 0x80; m has 0x80 in those bytes. */
            const uint64_t lo7 = 0x7F7F7F7F7F7F7F7Full;
            uint64_t v = w ^ 0x8080808080808080ull;
            uint64_t m = ~(((v & lo7) + lo7) | v) & ~lo7;
            w += m >> 7;
            memcpy(out + 2 + 8 * j, &w, 8);
        }
    }
}

static void gen_q4_0(const rl_synth_tensor *t, uint64_t first, uint64_t count, unsigned char *out)
{
    const rl_ggml_type_info *ti = rl_ggml_type_get(RL_GGML_Q4_0);
    uint16_t d[16];
    scale_table(t->amp, 8.0f, d);
    for (uint64_t b = first / ti->blck, end = (first + count) / ti->blck; b < end;
         b++, out += ti->type_size) {
        uint64_t k = block_scale(t, b, 3, d, out);
        uint64_t w1 = word(t->stream, k + 1), w2 = word(t->stream, k + 2);
        memcpy(out + 2, &w1, 8);
        memcpy(out + 10, &w2, 8);
    }
}

void rl_synth_generate(const rl_synth_plan *p, size_t tensor_index, uint64_t first, uint64_t count,
                       void *out)
{
    const rl_synth_tensor *t = &p->tensors[tensor_index];
    switch (t->type) {
    case RL_GGML_F32: gen_f32(p, t, first, count, out); break;
    case RL_GGML_F16:
    case RL_GGML_BF16: gen_half(p, t, first, count, out); break;
    case RL_GGML_Q8_0: gen_q8_0(t, first, count, out); break;
    case RL_GGML_Q4_0: gen_q4_0(t, first, count, out); break;
    default: break; /* rl_synth_validate admits no other type */
    }
}
