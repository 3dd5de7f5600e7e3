/* SPDX-License-Identifier: MIT */
/* gguf_testw.h: a test-only byte writer for building GGUF files in memory (little-endian
 * integers, length-prefixed strings) and, on top of it, a model builder (mbuild: metadata and
 * a tensor table, finished into a whole file with zeroed data). Included by the GGUF unit
 * tests after <cmocka.h>; the buffer in a wbuf is malloc'd and owned by the test, which frees
 * w.p. */
#ifndef RL_GGUF_TESTW_H
#define RL_GGUF_TESTW_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ggml_types.h"
#include "model/gguf.h"
#include "model/gguf_model.h"

typedef struct {
    unsigned char *p;
    size_t len, cap;
} wbuf;

__attribute__((unused)) static void w_bytes(wbuf *w, const void *d, size_t n)
{
    if (w->len + n > w->cap) {
        w->cap = (w->len + n) * 2 + 64;
        w->p = realloc(w->p, w->cap);
        assert_non_null(w->p);
    }
    if (n)
        memcpy(w->p + w->len, d, n);
    w->len += n;
}

__attribute__((unused)) static void w_le(wbuf *w, uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    w_bytes(w, b, n);
}
#define w_u8(w, v) w_le(w, (uint64_t)(v), 1)
#define w_u16(w, v) w_le(w, (uint64_t)(v), 2)
#define w_u32(w, v) w_le(w, (uint64_t)(v), 4)
#define w_u64(w, v) w_le(w, (uint64_t)(v), 8)

__attribute__((unused)) static void w_strn(wbuf *w, const char *s, size_t n)
{
    w_u64(w, n);
    w_bytes(w, s, n);
}

__attribute__((unused)) static void w_str(wbuf *w, const char *s)
{
    w_strn(w, s, strlen(s));
}

/* ---- model builder ------------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint32_t type;
    uint32_t n_dims;
    uint64_t ne[4];
} tdesc;

typedef struct {
    wbuf kv;
    uint64_t n_kv;
    tdesc t[32];
    int n_t;
} mbuild;

__attribute__((unused)) static void mb_u32(mbuild *b, const char *k, uint32_t v)
{
    w_str(&b->kv, k);
    w_le(&b->kv, GGUF_T_UINT32, 4);
    w_le(&b->kv, v, 4);
    b->n_kv++;
}

__attribute__((unused)) static void mb_str(mbuild *b, const char *k, const char *v)
{
    w_str(&b->kv, k);
    w_le(&b->kv, GGUF_T_STRING, 4);
    w_str(&b->kv, v);
    b->n_kv++;
}

__attribute__((unused)) static void mb_arr_u32(mbuild *b, const char *k, const uint32_t *v,
                                               uint64_t n)
{
    w_str(&b->kv, k);
    w_le(&b->kv, GGUF_T_ARRAY, 4);
    w_le(&b->kv, GGUF_T_UINT32, 4);
    w_le(&b->kv, n, 8);
    for (uint64_t i = 0; i < n; i++)
        w_le(&b->kv, v[i], 4);
    b->n_kv++;
}

__attribute__((unused)) static void mb_tokens(mbuild *b, uint64_t n)
{
    w_str(&b->kv, "tokenizer.ggml.tokens");
    w_le(&b->kv, GGUF_T_ARRAY, 4);
    w_le(&b->kv, GGUF_T_STRING, 4);
    w_le(&b->kv, n, 8);
    for (uint64_t i = 0; i < n; i++)
        w_str(&b->kv, "t");
    b->n_kv++;
}

__attribute__((unused)) static void mb_tensor3(mbuild *b, const char *name, uint32_t type,
                                               uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
    assert_true(b->n_t < 32);
    b->t[b->n_t++] = (tdesc){name, type, ne2 > 1 ? 3 : ne1 > 1 ? 2 : 1, {ne0, ne1, ne2, 1}};
}

__attribute__((unused)) static void mb_tensor(mbuild *b, const char *name, uint32_t type,
                                              uint64_t ne0, uint64_t ne1)
{
    mb_tensor3(b, name, type, ne0, ne1, 1);
}

__attribute__((unused)) static uint64_t tensor_size(const tdesc *t)
{
    const rl_ggml_type_info *ti = rl_ggml_type_get(t->type);
    uint64_t n = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
    return ti ? n / ti->blck * ti->type_size : 0;
}

/* Header, metadata, tensor table (offsets packed at 32-byte alignment), zeroed data. */
__attribute__((unused)) static wbuf mb_finish(mbuild *b)
{
    wbuf w = {0};
    w_bytes(&w, "GGUF", 4);
    w_le(&w, 3, 4);
    w_le(&w, (uint64_t)b->n_t, 8);
    w_le(&w, b->n_kv, 8);
    w_bytes(&w, b->kv.p, b->kv.len);
    uint64_t off = 0;
    for (int i = 0; i < b->n_t; i++) {
        const tdesc *t = &b->t[i];
        w_str(&w, t->name);
        w_le(&w, t->n_dims, 4);
        for (uint32_t d = 0; d < t->n_dims; d++)
            w_le(&w, t->ne[d], 8);
        w_le(&w, t->type, 4);
        w_le(&w, off, 8);
        off += (tensor_size(t) + 31) / 32 * 32;
    }
    size_t start = (w.len + 31) / 32 * 32;
    size_t total = start + (size_t)off;
    if (w.cap < total) {
        w.p = realloc(w.p, total);
        assert_non_null(w.p);
        w.cap = total;
    }
    memset(w.p + w.len, 0, total - w.len);
    w.len = total;
    free(b->kv.p);
    memset(b, 0, sizeof *b);
    return w;
}

/* Finish b, read it as a file called name and adopt it into m (which then owns the parsed
 * file); the byte buffer is freed. Returns the file's length. */
__attribute__((unused)) static size_t mb_load(mbuild *b, const char *name, rl_gguf_model *m)
{
    wbuf w = mb_finish(b);
    rl_gguf_file *f = NULL;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_read_buffer(w.p, w.len, name, &f, &err);
    if (st == RL_OK)
        st = rl_gguf_model_adopt(f, m, &err);
    if (st != RL_OK)
        fprintf(stderr, "mb_load %s: %s\n", name, err.msg);
    assert_int_equal(st, RL_OK);
    free(w.p);
    return w.len;
}

#endif
