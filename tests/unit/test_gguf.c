/* SPDX-License-Identifier: MIT */
/* test_gguf.c: the GGUF reader on files built in memory by a small test-only writer: every
 * value type read back exactly, every validation error (one line, RL_EINPUT, naming the
 * file), truncation at every byte, and hostile counts that must fail before allocating.
 * Buffers are malloc'd by the writer and freed by each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "model/ggml_types.h"
#include "model/gguf.h"
#include "base/rl_text.h"

/* ---- test-only GGUF writer ----------------------------------------------------------- */

#include "gguf_testw.h"

static void w_header(wbuf *w, uint32_t version, uint64_t n_tensors, uint64_t n_kv)
{
    w_bytes(w, "GGUF", 4);
    w_u32(w, version);
    w_u64(w, n_tensors);
    w_u64(w, n_kv);
}
static void w_kv_u32(wbuf *w, const char *k, uint32_t v)
{
    w_str(w, k);
    w_u32(w, GGUF_T_UINT32);
    w_u32(w, v);
}
static void w_kv_str(wbuf *w, const char *k, const char *v)
{
    w_str(w, k);
    w_u32(w, GGUF_T_STRING);
    w_str(w, v);
}
static void w_tensor(wbuf *w, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                     uint64_t offset)
{
    w_str(w, name);
    w_u32(w, n_dims);
    for (uint32_t d = 0; d < n_dims; d++)
        w_u64(w, ne[d]);
    w_u32(w, type);
    w_u64(w, offset);
}
static void w_pad(wbuf *w, size_t align)
{
    while (w->len % align)
        w_u8(w, 0);
}
static void w_zeros(wbuf *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        w_u8(w, 0);
}

/* Parse w and expect failure: RL_EINPUT, one line, "<name>: ...", containing want. */
static void expect_fail(const wbuf *w, const char *want)
{
    rl_gguf_file *f = (rl_gguf_file *)1;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_read_buffer(w->p, w->len, "bad.gguf", &f, &err);
    if (st == RL_OK || !strstr(err.msg, want))
        fprintf(stderr, "expected '%s', got status %d: %s\n", want, (int)st, err.msg);
    assert_int_equal(st, RL_EINPUT);
    assert_null(f);
    assert_int_equal(err.status, RL_EINPUT);
    assert_true(strncmp(err.msg, "bad.gguf: ", 10) == 0);
    assert_null(strchr(err.msg, '\n'));
    assert_non_null(strstr(err.msg, want));
}

static rl_gguf_file *expect_ok(const wbuf *w)
{
    rl_gguf_file *f = NULL;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_read_buffer(w->p, w->len, "ok.gguf", &f, &err);
    if (st != RL_OK)
        fprintf(stderr, "unexpected failure: %s\n", err.msg);
    assert_int_equal(st, RL_OK);
    assert_non_null(f);
    return f;
}

/* ---- a file holding every value type --------------------------------------------------- */

#define ALL_KV 23

/* Every value type, nested arrays, a string array longer than GGUF_KEEP_STRINGS, a large u32
 * array that must be skipped, and two tensors whose data ends exactly at the end of file. */
static wbuf build_all_types(void)
{
    wbuf w = {0};
    w_header(&w, 3, 2, ALL_KV);
    w_str(&w, "t.u8"), w_u32(&w, GGUF_T_UINT8), w_u8(&w, 200);
    w_str(&w, "t.i8"), w_u32(&w, GGUF_T_INT8), w_u8(&w, (uint8_t)-5);
    w_str(&w, "t.u16"), w_u32(&w, GGUF_T_UINT16), w_u16(&w, 65000);
    w_str(&w, "t.i16"), w_u32(&w, GGUF_T_INT16), w_u16(&w, (uint16_t)-30000);
    w_kv_u32(&w, "t.u32", 4000000000u);
    w_str(&w, "t.i32"), w_u32(&w, GGUF_T_INT32), w_u32(&w, (uint32_t)-2000000000);
    float f = 1.5f;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    w_str(&w, "t.f32"), w_u32(&w, GGUF_T_FLOAT32), w_u32(&w, fb);
    w_str(&w, "t.bool"), w_u32(&w, GGUF_T_BOOL), w_u8(&w, 1);
    w_kv_str(&w, "t.str", "héllo");
    w_str(&w, "t.u64"), w_u32(&w, GGUF_T_UINT64), w_u64(&w, (1ull << 63) + 5);
    w_str(&w, "t.i64"), w_u32(&w, GGUF_T_INT64), w_u64(&w, (uint64_t) - (int64_t)(1ll << 40));
    double d = -3.25;
    uint64_t db;
    memcpy(&db, &d, 8);
    w_str(&w, "t.f64"), w_u32(&w, GGUF_T_FLOAT64), w_u64(&w, db);
    /* arrays */
    w_str(&w, "a.u32"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_UINT32), w_u64(&w, 5);
    for (uint32_t i = 1; i <= 5; i++)
        w_u32(&w, i * 2);
    w_str(&w, "a.i32neg"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_INT32), w_u64(&w, 3);
    w_u32(&w, 4), w_u32(&w, (uint32_t)-1), w_u32(&w, 8);
    w_str(&w, "a.f32"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_FLOAT32), w_u64(&w, 3);
    w_u32(&w, fb), w_u32(&w, fb), w_u32(&w, fb);
    w_str(&w, "a.big"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_UINT32), w_u64(&w, 150000);
    for (uint32_t i = 0; i < 150000; i++)
        w_u32(&w, i);
    w_str(&w, "a.str"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_STRING), w_u64(&w, 100);
    for (int i = 0; i < 100; i++) {
        char s[16];
        snprintf(s, sizeof s, "s%d", i);
        w_str(&w, s);
    }
    /* array of 2 arrays: [u8 x3], [string x2] */
    w_str(&w, "a.nested"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_ARRAY), w_u64(&w, 2);
    w_u32(&w, GGUF_T_UINT8), w_u64(&w, 3), w_u8(&w, 1), w_u8(&w, 2), w_u8(&w, 3);
    w_u32(&w, GGUF_T_STRING), w_u64(&w, 2), w_str(&w, "x"), w_str(&w, "yz");
    w_str(&w, "a.bool"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_BOOL), w_u64(&w, 2);
    w_u8(&w, 0), w_u8(&w, 1);
    w_str(&w, "a.f64"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_FLOAT64), w_u64(&w, 1),
        w_u64(&w, db);
    w_str(&w, "a.empty"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_STRING), w_u64(&w, 0);
    /* string with an embedded NUL */
    w_str(&w, "t.nul"), w_u32(&w, GGUF_T_STRING), w_strn(&w, "ab\0cd", 5);
    w_kv_u32(&w, "general.alignment", 32);
    /* tensors: 256 Q4_0 (144 bytes) at 0, then 8x4 F32 (128 bytes) at 160 */
    uint64_t ne1[1] = {256}, ne2[2] = {8, 4};
    w_tensor(&w, "blk.0.w", 1, ne1, 2, 0);
    w_tensor(&w, "norm", 2, ne2, 0, 160);
    w_pad(&w, 32);
    w_zeros(&w, 160 + 128);
    return w;
}

static void test_every_value_type(void **state)
{
    (void)state;
    wbuf w = build_all_types();
    rl_gguf_file *f = expect_ok(&w);
    assert_int_equal(f->version, 3);
    assert_int_equal(f->n_kv, ALL_KV);
    assert_int_equal(f->file_size, w.len);
    assert_string_equal(f->path, "ok.gguf");
    const rl_gguf_kv *kv;
    kv = rl_gguf_find(f, "t.u8");
    assert_int_equal(kv->type, GGUF_T_UINT8);
    assert_int_equal(kv->v.u, 200);
    kv = rl_gguf_find(f, "t.i8");
    assert_int_equal(kv->type, GGUF_T_INT8);
    assert_true(kv->v.i == -5);
    assert_true(rl_gguf_find(f, "t.u16")->v.u == 65000);
    assert_true(rl_gguf_find(f, "t.i16")->v.i == -30000);
    assert_true(rl_gguf_find(f, "t.u32")->v.u == 4000000000u);
    assert_true(rl_gguf_find(f, "t.i32")->v.i == -2000000000);
    assert_true(rl_gguf_find(f, "t.f32")->v.f == 1.5);
    kv = rl_gguf_find(f, "t.bool");
    assert_int_equal(kv->type, GGUF_T_BOOL);
    assert_int_equal(kv->v.u, 1);
    kv = rl_gguf_find(f, "t.str");
    assert_int_equal(kv->type, GGUF_T_STRING);
    assert_string_equal(kv->v.str.s, "héllo");
    assert_int_equal(kv->v.str.len, 6);
    assert_true(rl_gguf_find(f, "t.u64")->v.u == (1ull << 63) + 5);
    assert_true(rl_gguf_find(f, "t.i64")->v.i == -(1ll << 40));
    assert_true(rl_gguf_find(f, "t.f64")->v.f == -3.25);
    kv = rl_gguf_find(f, "t.nul");
    assert_string_equal(kv->v.str.s, "ab");
    assert_int_equal(kv->v.str.len, 5);

    kv = rl_gguf_find(f, "a.u32");
    assert_int_equal(kv->type, GGUF_T_ARRAY);
    assert_int_equal(kv->v.arr.elem, GGUF_T_UINT32);
    assert_int_equal(kv->v.arr.len, 5);
    assert_true(kv->v.arr.int_scanned);
    assert_int_equal(kv->v.arr.int_max, 10);
    assert_int_equal(kv->v.arr.int_sum, 30);
    kv = rl_gguf_find(f, "a.i32neg");
    assert_int_equal(kv->v.arr.elem, GGUF_T_INT32);
    assert_int_equal(kv->v.arr.len, 3);
    assert_false(kv->v.arr.int_scanned);
    kv = rl_gguf_find(f, "a.f32");
    assert_int_equal(kv->v.arr.elem, GGUF_T_FLOAT32);
    assert_int_equal(kv->v.arr.len, 3);
    assert_false(kv->v.arr.int_scanned);
    kv = rl_gguf_find(f, "a.big");
    assert_int_equal(kv->v.arr.len, 150000);
    assert_false(kv->v.arr.int_scanned); /* skipped, not read */
    kv = rl_gguf_find(f, "a.str");
    assert_int_equal(kv->v.arr.elem, GGUF_T_STRING);
    assert_int_equal(kv->v.arr.len, 100);
    assert_int_equal(kv->v.arr.n_kept, GGUF_KEEP_STRINGS);
    assert_string_equal(kv->v.arr.strs[0], "s0");
    assert_string_equal(kv->v.arr.strs[63], "s63");
    kv = rl_gguf_find(f, "a.nested");
    assert_int_equal(kv->v.arr.elem, GGUF_T_ARRAY);
    assert_int_equal(kv->v.arr.len, 2);
    assert_int_equal(kv->v.arr.n_kept, 0);
    kv = rl_gguf_find(f, "a.bool");
    assert_int_equal(kv->v.arr.elem, GGUF_T_BOOL);
    assert_int_equal(kv->v.arr.len, 2);
    kv = rl_gguf_find(f, "a.f64");
    assert_int_equal(kv->v.arr.elem, GGUF_T_FLOAT64);
    assert_int_equal(kv->v.arr.len, 1);
    kv = rl_gguf_find(f, "a.empty");
    assert_int_equal(kv->v.arr.len, 0);
    assert_int_equal(kv->v.arr.n_kept, 0);

    /* typed look-ups */
    uint64_t u;
    double dv;
    assert_true(rl_gguf_get_u64(f, "t.u8", &u) && u == 200);
    assert_true(rl_gguf_get_u64(f, "t.i16", &u) == false);
    assert_true(rl_gguf_get_u64(f, "t.i64", &u) == false);
    assert_false(rl_gguf_get_u64(f, "t.f32", &u));
    assert_false(rl_gguf_get_u64(f, "t.bool", &u));
    assert_false(rl_gguf_get_u64(f, "missing", &u));
    assert_true(rl_gguf_get_f64(f, "t.i32", &dv) && dv == -2000000000.0);
    assert_true(rl_gguf_get_f64(f, "t.f64", &dv) && dv == -3.25);
    assert_true(rl_gguf_get_f64(f, "t.u16", &dv) && dv == 65000.0);
    assert_false(rl_gguf_get_f64(f, "t.str", &dv));
    assert_string_equal(rl_gguf_get_str(f, "t.str"), "héllo");
    assert_null(rl_gguf_get_str(f, "t.u8"));
    assert_null(rl_gguf_find(f, "nope"));

    /* tensors */
    assert_int_equal(f->n_tensors, 2);
    assert_int_equal(f->alignment, 32);
    assert_int_equal(f->data_offset % 32, 0);
    assert_true(f->bytes_read <= f->data_offset && f->data_offset - f->bytes_read < 32);
    assert_int_equal(f->data_offset + 288, w.len);
    const rl_gguf_tensor *t = &f->tensors[0];
    assert_string_equal(t->name, "blk.0.w");
    assert_int_equal(t->n_dims, 1);
    assert_int_equal(t->ne[0], 256);
    assert_int_equal(t->ne[1], 1);
    assert_int_equal(t->ne[3], 1);
    assert_int_equal(t->type, 2);
    assert_int_equal(t->offset, 0);
    assert_int_equal(t->n_elements, 256);
    assert_int_equal(t->n_bytes, 144);
    assert_true(t->sized);
    t = &f->tensors[1];
    assert_string_equal(t->name, "norm");
    assert_int_equal(t->n_dims, 2);
    assert_int_equal(t->ne[1], 4);
    assert_int_equal(t->n_elements, 32);
    assert_int_equal(t->n_bytes, 128);
    assert_int_equal(t->offset, 160);
    rl_gguf_free(f);
    free(w.p);
}

static void test_vtype_names(void **state)
{
    (void)state;
    assert_string_equal(rl_gguf_vtype_name(GGUF_T_UINT8), "uint8");
    assert_string_equal(rl_gguf_vtype_name(GGUF_T_STRING), "string");
    assert_string_equal(rl_gguf_vtype_name(GGUF_T_FLOAT64), "float64");
    assert_string_equal(rl_gguf_vtype_name(GGUF_T_COUNT), "unknown");
    assert_true(rl_utf8_valid("h\xc3\xa9", 3));
    assert_false(rl_utf8_valid("\xc3\x28", 2));
    assert_false(rl_utf8_valid("\xc0\xaf", 2));         /* overlong */
    assert_false(rl_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    assert_false(rl_utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    assert_true(rl_utf8_valid("\xf0\x9f\x98\x80", 4));
}

/* Every strict prefix of a valid file must fail cleanly with RL_EINPUT. */
static void test_truncation_every_byte(void **state)
{
    (void)state;
    wbuf w = {0};
    /* a smaller file than build_all_types so the loop stays quick, still every value kind */
    w_header(&w, 3, 2, 7);
    w_kv_str(&w, "general.architecture", "llama");
    w_kv_u32(&w, "llama.block_count", 1);
    w_str(&w, "x.f64"), w_u32(&w, GGUF_T_FLOAT64), w_u64(&w, 0);
    w_str(&w, "x.arr"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_INT32), w_u64(&w, 2),
        w_u32(&w, 1), w_u32(&w, 2);
    w_str(&w, "x.strs"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_STRING), w_u64(&w, 2),
        w_str(&w, "a"), w_str(&w, "bc");
    w_str(&w, "x.nest"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_ARRAY), w_u64(&w, 1);
    w_u32(&w, GGUF_T_UINT16), w_u64(&w, 1), w_u16(&w, 7);
    w_str(&w, "x.bool"), w_u32(&w, GGUF_T_BOOL), w_u8(&w, 0);
    uint64_t ne[2] = {32, 2};
    w_tensor(&w, "a", 2, ne, 8, 0);  /* 2 Q8_0 blocks = 68 bytes */
    w_tensor(&w, "b", 1, ne, 0, 96); /* 32 F32 = 128 bytes */
    w_pad(&w, 32);
    w_zeros(&w, 96 + 128);
    rl_gguf_free(expect_ok(&w));
    for (size_t len = 0; len < w.len; len++) {
        rl_gguf_file *f = NULL;
        rl_error err = {RL_OK, ""};
        rl_status st = rl_gguf_read_buffer(w.p, len, "cut.gguf", &f, &err);
        if (st != RL_EINPUT)
            fprintf(stderr, "prefix of %zu bytes: status %d (%s)\n", len, (int)st, err.msg);
        assert_int_equal(st, RL_EINPUT);
        assert_null(f);
        assert_true(strncmp(err.msg, "cut.gguf: ", 10) == 0);
    }
    free(w.p);
}

static void test_header_errors(void **state)
{
    (void)state;
    wbuf w = {0};
    expect_fail(&w, "empty file");
    w_bytes(&w, "GG", 2);
    expect_fail(&w, "not a GGUF file");
    w.len = 0;
    w_bytes(&w, "GGML", 4), w_u32(&w, 3), w_u64(&w, 0), w_u64(&w, 0);
    expect_fail(&w, "bad magic 'GGML'");
    w.len = 0;
    w_header(&w, 1, 0, 0);
    expect_fail(&w, "version 1 is no longer supported");
    w.len = 0;
    w_header(&w, 4, 0, 0);
    expect_fail(&w, "unsupported GGUF version 4");
    w.len = 0;
    w_header(&w, 0, 0, 0);
    expect_fail(&w, "unsupported GGUF version 0");
    w.len = 0;
    w_bytes(&w, "GGUF", 4), w_bytes(&w, "\0\0\0\3", 4), w_bytes(&w, "\0\0\0\0\0\0\0\0", 8),
        w_bytes(&w, "\0\0\0\0\0\0\0\0", 8);
    expect_fail(&w, "big-endian");
    w.len = 0;
    w_bytes(&w, "GGUF", 4), w_u32(&w, 3), w_u32(&w, 0);
    expect_fail(&w, "truncated in the header");
    /* a valid empty v2 file */
    w.len = 0;
    w_header(&w, 2, 0, 0);
    rl_gguf_file *f = expect_ok(&w);
    assert_int_equal(f->version, 2);
    assert_int_equal(f->bytes_read, 24);
    assert_int_equal(f->data_offset, 32);
    rl_gguf_free(f);
    free(w.p);
}

/* Outside sanitizer builds (which reserve huge address ranges), cap the address space a little
 * above what the process uses, so that a parser allocating what a hostile count or length
 * asks for would fail with RL_EINTERNAL instead of the expected RL_EINPUT. */
#if defined(__SANITIZE_ADDRESS__)
#define RL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RL_ASAN 1
#endif
#endif

static bool cap_memory(struct rlimit *saved)
{
#ifdef RL_ASAN
    (void)saved;
    return false;
#else
    FILE *fp = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!fp)
        return false;
    int n = fscanf(fp, "%lu", &pages);
    fclose(fp);
    if (n != 1 || getrlimit(RLIMIT_AS, saved) != 0)
        return false;
    struct rlimit cap = *saved;
    cap.rlim_cur = (rlim_t)pages * 4096u + (32u << 20);
    if (saved->rlim_max != RLIM_INFINITY && cap.rlim_cur > saved->rlim_max)
        return false;
    return setrlimit(RLIMIT_AS, &cap) == 0;
#endif
}

static void test_huge_counts(void **state)
{
    (void)state;
    struct rlimit saved;
    bool capped = cap_memory(&saved);
    if (capped) { /* the cap is in force: 64 MiB cannot be had */
        void *probe = malloc(64u << 20);
        assert_null(probe);
    }
    wbuf w = {0};
    w.cap = 4096;
    w.p = malloc(w.cap);
    assert_non_null(w.p);
    /* under the limits but far beyond the file: a string of 60 MiB, an array of 2^32
     * bytes, a million tensors, 65536 metadata pairs */
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_STRING), w_u64(&w, 60u << 20), w_zeros(&w, 16);
    expect_fail(&w, "truncated in the metadata (key 1 of 1)");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_UINT8), w_u64(&w, GGUF_MAX_ARRAY);
    w_zeros(&w, 16);
    expect_fail(&w, "cannot fit");
    w.len = 0;
    w_header(&w, 3, GGUF_MAX_TENSORS, 0), w_zeros(&w, 64);
    expect_fail(&w, "more than the");
    w.len = 0;
    w_header(&w, 3, 0, GGUF_MAX_KV), w_zeros(&w, 64);
    expect_fail(&w, "more than the");
    w.len = 0;
    w_header(&w, 3, 0, 1ull << 40);
    expect_fail(&w, "implausible metadata count");
    w.len = 0;
    w_header(&w, 3, 1000000000ull, 0);
    expect_fail(&w, "implausible tensor count");
    /* within the limits but far more than the file can hold: refused before allocating */
    w.len = 0;
    w_header(&w, 3, GGUF_MAX_TENSORS, GGUF_MAX_KV);
    w_kv_u32(&w, "a", 1);
    expect_fail(&w, "more than the");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_u64(&w, 1ull << 62), w_zeros(&w, 16);
    expect_fail(&w, "implausible key length");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_u64(&w, 1000), w_bytes(&w, "abcdefghijklm", 13);
    expect_fail(&w, "truncated in the metadata (key 1 of 1)");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_STRING), w_u64(&w, 1ull << 62), w_zeros(&w, 16);
    expect_fail(&w, "implausible string length");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_UINT8), w_u64(&w, 1ull << 40);
    w_zeros(&w, 16);
    expect_fail(&w, "implausible array length");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_UINT64), w_u64(&w, 1ull << 31);
    w_zeros(&w, 16);
    expect_fail(&w, "cannot fit");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "s"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_STRING), w_u64(&w, 1ull << 31);
    w_zeros(&w, 16);
    expect_fail(&w, "cannot fit");
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_u64(&w, 1ull << 50), w_zeros(&w, 40);
    expect_fail(&w, "implausible tensor name length");
    free(w.p);
    if (capped)
        assert_int_equal(setrlimit(RLIMIT_AS, &saved), 0);
}

static void test_value_errors(void **state)
{
    (void)state;
    wbuf w = {0};
    w_header(&w, 3, 0, 1);
    w_str(&w, "k"), w_u32(&w, 13), w_u64(&w, 0);
    expect_fail(&w, "unknown value type 13 for key 'k'");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "k"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, 99), w_u64(&w, 0);
    expect_fail(&w, "unknown value type 99");
    /* three levels of arrays */
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "deep"), w_u32(&w, GGUF_T_ARRAY), w_u32(&w, GGUF_T_ARRAY), w_u64(&w, 1);
    w_u32(&w, GGUF_T_ARRAY), w_u64(&w, 1), w_u32(&w, GGUF_T_UINT8), w_u64(&w, 1), w_u8(&w, 0);
    expect_fail(&w, "nested arrays too deep");
    /* keys: invalid UTF-8, overlong, NUL inside, empty, duplicate */
    const char *badkeys[] = {"a\xc3\x28", "\xc0\xaf", "\xff"};
    for (size_t i = 0; i < 3; i++) {
        w.len = 0;
        w_header(&w, 3, 0, 1);
        w_kv_u32(&w, badkeys[i], 1);
        expect_fail(&w, "not valid UTF-8");
    }
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_strn(&w, "a\0b", 3), w_u32(&w, GGUF_T_UINT8), w_u8(&w, 0);
    expect_fail(&w, "not valid UTF-8");
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_strn(&w, "", 0), w_u32(&w, GGUF_T_UINT8), w_u8(&w, 0);
    expect_fail(&w, "empty key");
    w.len = 0;
    w_header(&w, 3, 0, 3);
    w_kv_u32(&w, "x", 1), w_kv_u32(&w, "y", 1), w_kv_str(&w, "x", "again");
    expect_fail(&w, "duplicate metadata key 'x'");
    free(w.p);
}

static void test_alignment(void **state)
{
    (void)state;
    wbuf w = {0};
    const uint32_t bad[] = {0, 3, 48};
    for (size_t i = 0; i < 3; i++) {
        w.len = 0;
        w_header(&w, 3, 0, 1);
        w_kv_u32(&w, "general.alignment", bad[i]);
        expect_fail(&w, "not a power of two");
    }
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, "general.alignment"), w_u32(&w, GGUF_T_UINT64), w_u64(&w, 32);
    expect_fail(&w, "expected uint32");
    /* a valid alignment of 64 moves the data section */
    w.len = 0;
    w_header(&w, 3, 1, 1);
    w_kv_u32(&w, "general.alignment", 64);
    uint64_t ne[1] = {16};
    w_tensor(&w, "t", 1, ne, 0, 0);
    size_t hdr = w.len;
    w_pad(&w, 64);
    w_zeros(&w, 64);
    rl_gguf_file *f = expect_ok(&w);
    assert_int_equal(f->alignment, 64);
    assert_int_equal(f->bytes_read, hdr);
    assert_int_equal(f->data_offset, (hdr + 63) / 64 * 64);
    rl_gguf_free(f);
    /* offset 32 is not a multiple of 64 */
    w.len = 0;
    w_header(&w, 3, 1, 1);
    w_kv_u32(&w, "general.alignment", 64);
    w_tensor(&w, "t", 1, ne, 0, 32);
    w_pad(&w, 64);
    w_zeros(&w, 128);
    expect_fail(&w, "not a multiple of the alignment 64");
    free(w.p);
}

/* A file of n tensors (names/types/ne given) with offsets given, data zeroed to data_len. */
static void test_tensor_errors(void **state)
{
    (void)state;
    wbuf w = {0};
    uint64_t ne[5] = {32, 1, 1, 1, 1};
    /* n_dims 0 and 5 */
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 0, ne, 0, 0);
    w_zeros(&w, 64);
    expect_fail(&w, "has 0 dimensions");
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 5, ne, 0, 0);
    w_zeros(&w, 64);
    expect_fail(&w, "has 5 dimensions");
    /* element overflow */
    w.len = 0;
    uint64_t big[3] = {1ull << 32, 1ull << 31, 4};
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "huge", 3, big, 0, 0);
    w_zeros(&w, 64);
    expect_fail(&w, "more elements than a 64-bit count");
    /* byte size overflow: 2^62 F32 elements */
    w.len = 0;
    uint64_t big2[1] = {1ull << 62};
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "huge", 1, big2, 0, 0);
    w_zeros(&w, 64);
    expect_fail(&w, "larger than a 64-bit byte count");
    /* a zero dimension is allowed (0 elements) even with a huge neighbour */
    w.len = 0;
    uint64_t zero[3] = {1ull << 40, 0, 1ull << 40};
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "empty", 3, zero, 0, 0);
    w_pad(&w, 32);
    rl_gguf_file *f = expect_ok(&w);
    assert_int_equal(f->tensors[0].n_elements, 0);
    assert_int_equal(f->tensors[0].n_bytes, 0);
    assert_true(f->tensors[0].sized);
    rl_gguf_free(f);
    /* offset past the end of the file */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 1, ne, 0, 4096);
    w_pad(&w, 32);
    w_zeros(&w, 128);
    expect_fail(&w, "extends past the end of the file");
    /* size runs past the end by one byte */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 1, ne, 0, 0);
    w_pad(&w, 32);
    w_zeros(&w, 127);
    expect_fail(&w, "extends past the end of the file");
    /* tensors but no data section at all */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 1, ne, 0, 0);
    w_u8(&w, 0);
    expect_fail(&w, "past the end of the file");
    /* misaligned */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "t", 1, ne, 0, 8);
    w_pad(&w, 32);
    w_zeros(&w, 256);
    expect_fail(&w, "not a multiple of the alignment 32");
    /* overlap: [0,128) and [96,..) after sorting; listed in reverse order */
    w.len = 0;
    w_header(&w, 3, 3, 0);
    w_tensor(&w, "c", 1, ne, 0, 256);
    w_tensor(&w, "b", 1, ne, 0, 96);
    w_tensor(&w, "a", 1, ne, 0, 0);
    w_pad(&w, 32);
    w_zeros(&w, 512);
    expect_fail(&w, "tensors 'a' and 'b' overlap");
    /* a long tensor covering a later short one */
    w.len = 0;
    uint64_t ne_long[1] = {256};
    w_header(&w, 3, 3, 0);
    w_tensor(&w, "long", 1, ne_long, 0, 0);
    w_tensor(&w, "mid", 1, ne, 0, 512);
    w_tensor(&w, "late", 1, ne, 0, 1024);
    w_pad(&w, 32);
    w_zeros(&w, 1280);
    expect_fail(&w, "tensors 'long' and 'mid' overlap");
    /* duplicate tensor names */
    w.len = 0;
    w_header(&w, 3, 2, 0);
    w_tensor(&w, "same", 1, ne, 0, 0);
    w_tensor(&w, "same", 1, ne, 0, 128);
    w_pad(&w, 32);
    w_zeros(&w, 256);
    expect_fail(&w, "duplicate tensor name 'same'");
    /* a long duplicate name is shown clipped; control characters never reach the message */
    char longname[201];
    memset(longname, 'x', 200);
    longname[200] = '\0';
    longname[3] = '\033';
    w.len = 0;
    w_header(&w, 3, 2, 0);
    w_tensor(&w, longname, 1, ne, 0, 0);
    w_tensor(&w, longname, 1, ne, 0, 128);
    w_pad(&w, 32);
    w_zeros(&w, 256);
    expect_fail(&w, "duplicate tensor name 'xxx?xxxx");
    {
        rl_gguf_file *f2;
        rl_error e2;
        assert_int_equal(rl_gguf_read_buffer(w.p, w.len, "bad.gguf", &f2, &e2), RL_EINPUT);
        assert_non_null(strstr(e2.msg, "xxx...' (tensor 2 of 2)"));
        assert_null(strchr(e2.msg, '\033'));
    }
    /* invalid UTF-8 tensor name */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "bad\xff", 1, ne, 0, 0);
    w_pad(&w, 32);
    w_zeros(&w, 128);
    expect_fail(&w, "not valid UTF-8");
    free(w.p);
}

static void test_unknown_type_unsized(void **state)
{
    (void)state;
    wbuf w = {0};
    uint64_t ne[2] = {64, 2}, ne30[1] = {30};
    w_header(&w, 3, 5, 0);
    w_tensor(&w, "removed4", 2, ne, 4, 0);
    w_tensor(&w, "removed31", 2, ne, 31, 0);
    w_tensor(&w, "future", 2, ne, 250, 32);
    w_tensor(&w, "odd", 1, ne30, 2, 64); /* 30 Q4_0 elements: not a whole block */
    w_tensor(&w, "known", 2, ne, 8, 96); /* 4 Q8_0 blocks = 136 bytes */
    w_pad(&w, 32);
    w_zeros(&w, 96 + 136);
    rl_gguf_file *f = expect_ok(&w);
    for (int i = 0; i < 4; i++) {
        assert_false(f->tensors[i].sized);
        assert_int_equal(f->tensors[i].n_bytes, 0);
    }
    assert_int_equal(f->tensors[0].n_elements, 128);
    assert_int_equal(f->tensors[2].type, 250);
    assert_int_equal(f->tensors[3].n_elements, 30);
    assert_true(f->tensors[4].sized);
    assert_int_equal(f->tensors[4].n_bytes, 136);
    rl_gguf_free(f);
    /* an unsized tensor whose offset lies past the end is still an error */
    w.len = 0;
    w_header(&w, 3, 1, 0);
    w_tensor(&w, "future", 2, ne, 250, 1 << 20);
    w_pad(&w, 32);
    w_zeros(&w, 32);
    expect_fail(&w, "extends past the end");
    free(w.p);
}

static void test_read_file(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/test_gguf_all.gguf", tmp && *tmp ? tmp : "/tmp");
    wbuf w = build_all_types();
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(w.p, 1, w.len, fp), w.len);
    fclose(fp);
    rl_gguf_file *f = NULL;
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_gguf_read_file(path, &f, &err), RL_OK);
    assert_string_equal(f->path, path);
    assert_int_equal(f->file_size, w.len);
    assert_int_equal(f->n_kv, ALL_KV);
    assert_int_equal(rl_gguf_find(f, "a.big")->v.arr.len, 150000);
    assert_string_equal(rl_gguf_find(f, "a.str")->v.arr.strs[10], "s10");
    assert_int_equal(f->tensors[1].n_bytes, 128);
    rl_gguf_free(f);
    remove(path);

    assert_int_equal(rl_gguf_read_file("/nonexistent/dir/m.gguf", &f, &err), RL_EINPUT);
    assert_null(f);
    assert_string_equal(err.msg, "/nonexistent/dir/m.gguf: no such file");
    assert_int_equal(rl_gguf_read_file(tmp && *tmp ? tmp : "/tmp", &f, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "not a regular file"));
    free(w.p);
}

/* Key names in messages: a control byte (0x1f, the last one) shown as '?', a key of exactly
 * 96 bytes (the clip limit) shown whole, one of 97 cut with "...". */
static void test_key_in_messages(void **state)
{
    (void)state;
    wbuf w = {0};
    w_header(&w, 3, 0, 1);
    w_str(&w, "k\x1fz"), w_u32(&w, 13), w_u64(&w, 0);
    expect_fail(&w, "unknown value type 13 for key 'k?z'");
    char key[98];
    memset(key, 'a', 97);
    key[96] = '\0';
    char want[128];
    snprintf(want, sizeof want, "for key '%s'", key);
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, key), w_u32(&w, 13), w_u64(&w, 0);
    expect_fail(&w, want);
    key[96] = 'a', key[97] = '\0';
    snprintf(want, sizeof want, "for key '%.96s...'", key);
    w.len = 0;
    w_header(&w, 3, 0, 1);
    w_str(&w, key), w_u32(&w, 13), w_u64(&w, 0);
    expect_fail(&w, want);
    free(w.p);
}

/* A header-only file (no tensors) whose last value ends exactly at the end of the file. */
static void test_read_to_eof(void **state)
{
    (void)state;
    wbuf w = {0};
    w_header(&w, 3, 0, 1);
    w_kv_u32(&w, "last", 7);
    rl_gguf_file *f = expect_ok(&w);
    assert_int_equal(f->n_kv, 1);
    assert_int_equal(f->bytes_read, w.len);
    rl_gguf_free(f);
    free(w.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_value_type),
        cmocka_unit_test(test_vtype_names),
        cmocka_unit_test(test_truncation_every_byte),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_huge_counts),
        cmocka_unit_test(test_value_errors),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_unknown_type_unsized),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_key_in_messages),
        cmocka_unit_test(test_read_to_eof),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
