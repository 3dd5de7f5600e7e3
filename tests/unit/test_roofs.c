/* SPDX-License-Identifier: MIT */
/* test_roofs.c: the decode model with both roofs (analyse/roofs.h), by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "rl_test.h"

#include "analyse/roofs.h"

/* A type as calibrate writes it: fixed 40 us at 4 layers (base 20 + 4 x 5), cache-resident
 * at 40 GB/s (small 1 MB: 40 + 25 us; mid 4 MB: 40 + 100 us), from DRAM at 25 GB/s (stream
 * 64 MB: 40 + 2560 us); the deep point is not on the bytes curve. */
static const char *ENTRY = "{\"type\": \"Q4_0\", \"fixed\": {\"kind\": \"derived\", \"us\": 40},"
                           " \"base\": {\"kind\": \"derived\", \"us\": 20}, \"per_layer\": "
                           "{\"kind\": \"derived\", \"us\": 5},"
                           " \"points\": ["
                           "{\"role\": \"stream\", \"bytes_per_token\": {\"value\": 64e6}, "
                           "\"rate\": {\"kind\": \"derived\", \"us_per_token\": 2600}},"
                           "{\"role\": \"small\", \"bytes_per_token\": {\"value\": 1e6}, \"rate\": "
                           "{\"kind\": \"derived\", \"us_per_token\": 65}},"
                           "{\"role\": \"deep\", \"bytes_per_token\": {\"value\": 4e6}, \"rate\": "
                           "{\"kind\": \"derived\", \"us_per_token\": 999}},"
                           "{\"role\": \"mid\", \"bytes_per_token\": {\"value\": 4e6}, \"rate\": "
                           "{\"kind\": \"derived\", \"us_per_token\": 140}}]}";

static void load(rl_roof_type *t, const char *json)
{
    cJSON *e = cJSON_Parse(json);
    assert_non_null(e);
    assert_true(rl_roof_type_from_json(e, t));
    cJSON_Delete(e);
}

static void test_type_and_curve(void **state)
{
    (void)state;
    rl_roof_type t;
    load(&t, ENTRY);
    assert_string_equal(t.type, "Q4_0");
    assert_int_equal(t.n_pts, 3);
    assert_true(t.has_fixed && t.has_layers);
    assert_near(t.pts[0].bytes, 1e6, 0);
    assert_near(t.pts[1].bytes, 4e6, 0);
    assert_near(t.pts[2].bytes, 64e6, 0);
    assert_near(t.pts[0].us_per_byte, 2.5e-5, 1e-15); /* 25 us / 1 MB: 40 GB/s */
    assert_near(t.pts[2].us_per_byte, 4e-5, 1e-15);   /* 2560 us / 64 MB: 25 GB/s */
    /* held at the ends, ln-interpolated between: 16 MB is half-way (ln 4 / ln 16) from mid
     * to stream: 2.5e-5 + 0.5 x 1.5e-5 */
    assert_near(rl_roof_us_per_byte(&t, 0.5e6, -1, -1), 2.5e-5, 1e-15);
    assert_near(rl_roof_us_per_byte(&t, 1e9, -1, -1), 4e-5, 1e-15);
    assert_near(rl_roof_us_per_byte(&t, 16e6, -1, -1), 3.25e-5, 1e-15);
    assert_near(rl_roof_us_per_byte(&t, 2e6, -1, -1), 2.5e-5, 1e-15);
}

/* A 24-layer model of 15.9 MB Q4_0 and 0.1 MB F32 (0.6%: the F32 takes Q4_0's time per
 * byte): W = 16 MB, c = 3.25e-5 us/B: 516.75 + 3.25 us of bytes; fixed 20 + 5 x 24 = 140 us;
 * tau 660 us, 1515.15 tok/s; the kernels reach 16e6 / 520 us = 30.77 GB/s. */
static void test_predict_by_hand(void **state)
{
    (void)state;
    rl_roof_type t;
    load(&t, ENTRY);
    rl_roof_part parts[] = {{"F32", 0.1e6, -1, -1}, {"Q4_0", 15.9e6, -1, -1}};
    rl_roof_result r;
    rl_roof_predict(&t, 1, parts, 2, 24, &r);
    assert_true(r.ok);
    assert_int_equal(r.n_shares, 2);
    assert_near(r.shares[1].us, 516.75, 1e-9);
    assert_near(r.shares[0].us, 3.25, 1e-9);
    assert_false(r.shares[0].calibrated);
    assert_true(r.shares[1].calibrated);
    assert_near(r.fixed_us, 140, 1e-9);
    assert_near(r.tau_us, 660, 1e-9);
    assert_near(r.tok_s, 1e6 / 660, 1e-9);
    assert_near(r.GBs, 16e6 / 520 / 1e3, 1e-9);
    assert_int_equal(r.binding, 1);

    /* a type with 9% of the bytes and no calibration: unavailable, named */
    rl_roof_part more[] = {{"Q4_0", 10e6, -1, -1}, {"Q5_K", 1e6, -1, -1}};
    rl_roof_predict(&t, 1, more, 2, 24, &r);
    assert_false(r.ok);
    assert_string_equal(r.why, "Q5_K (9% of the bytes) is not calibrated at these threads "
                               "(llama-roofline calibrate --types Q5_K)");
    rl_roof_part none[] = {{"Q5_K", 1e6, -1, -1}};
    rl_roof_predict(&t, 1, none, 1, 24, &r);
    assert_false(r.ok);
    assert_string_equal(r.why, "none of the model's types is calibrated");
}

/* Every type at one rate (20 GB/s = 2e4 bytes/us) at every size, nothing fixed (unavailable):
 * tau = W / BW, the one-roof form. 1e8 + 5e7 bytes: 7500 us, 133.33 tok/s. */
static void test_reduces_to_one_roof(void **state)
{
    (void)state;
    const char *a = "{\"type\": \"Q8_0\", \"fixed\": {\"available\": false, \"reason\": \"noisy\"},"
                    " \"points\": [{\"role\": \"small\", \"bytes_per_token\": {\"value\": 1e6}, "
                    "\"rate\": {\"kind\": \"derived\", \"us_per_token\": 50}},"
                    "{\"role\": \"stream\", \"bytes_per_token\": {\"value\": 1e9}, \"rate\": "
                    "{\"kind\": \"derived\", \"us_per_token\": 50000}},"
                    "{\"role\": \"mid\", \"bytes_per_token\": {\"value\": 1e7}, \"rate\": "
                    "{\"available\": false, \"reason\": \"failed\"}}]}";
    const char *b =
        "{\"type\": \"F16\", \"points\": [{\"role\": \"stream\", \"bytes_per_token\": {\"value\": "
        "4e8}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 20000}}]}";
    rl_roof_type t[2];
    load(&t[0], a);
    load(&t[1], b);
    assert_false(t[0].has_fixed);
    assert_int_equal(t[0].n_pts, 2); /* the failed mid point is left out */
    rl_roof_part parts[] = {{"Q8_0", 1e8, -1, -1}, {"F16", 5e7, -1, -1}};
    rl_roof_result r;
    rl_roof_predict(t, 2, parts, 2, 32, &r);
    assert_true(r.ok);
    assert_near(r.fixed_us, 0, 0);
    assert_near(r.tau_us, 1.5e8 / 2e4, 1e-9);
    assert_near(r.GBs, 20, 1e-12);
    assert_int_equal(r.binding, 0);
    cJSON *e = cJSON_Parse("{\"type\": \"Q2_K\", \"points\": []}");
    assert_false(rl_roof_type_from_json(e, &t[0]));
    cJSON_Delete(e);
}

/* No fixed cost, no base/per-layer split (the small-mid line failed): the per-layer cost from
 * mid (4 layers, 4 MB, 1000 us) and deep (16 layers, 4 MB, 1600 us): 600 us over 12 layers,
 * 50 us per layer; mid's time per byte (1000 - 200) / 4e6 = 2e-4 us, stream's (4 layers,
 * 40 MB, 10200 us) (10200 - 200) / 4e7 = 2.5e-4. A 24-layer model of 40 MB: 24 x 50 +
 * 4e7 x 2.5e-4 = 11200 us. */
static void test_layers_from_deep(void **state)
{
    (void)state;
    const char *e =
        "{\"type\": \"Q4_0\", \"fixed\": {\"available\": false, \"reason\": \"below 0\"},"
        " \"base\": {\"available\": false, \"reason\": \"x\"}, \"per_layer\": {\"available\": "
        "false, \"reason\": \"x\"},"
        " \"points\": ["
        "{\"role\": \"mid\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
        "{\"value\": 4e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 1000}},"
        "{\"role\": \"deep\", \"model\": {\"shape\": {\"n_layer\": 16}}, \"bytes_per_token\": "
        "{\"value\": 4e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 1600}},"
        "{\"role\": \"stream\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
        "{\"value\": 4e7}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 10200}}]}";
    rl_roof_type t;
    load(&t, e);
    assert_true(t.has_layers && t.layers_from_deep);
    assert_near(t.per_layer_us, 50, 1e-9);
    assert_near(t.base_us, 0, 0);
    assert_int_equal(t.n_pts, 2);
    assert_near(t.pts[0].us_per_byte, 2e-4, 1e-15);
    assert_near(t.pts[1].us_per_byte, 2.5e-4, 1e-15);
    rl_roof_part parts[] = {{"Q4_0", 4e7, -1, -1}};
    rl_roof_result r;
    rl_roof_predict(&t, 1, parts, 1, 24, &r);
    assert_true(r.ok);
    assert_near(r.fixed_us, 1200, 1e-9);
    assert_near(r.tau_us, 11200, 1e-6);
}

/* A base below 0 (fixed 40 us at 4 layers, 15 us a layer: -20): the layers still count, F =
 * -20 + 15 x 24 = 340 us at 24 layers, held at 0 at one layer (-5). The points' c are
 * unchanged (at 4 layers F is the fixed 40). */
static void test_negative_base(void **state)
{
    (void)state;
    char json[2048];
    const char *a = strstr(ENTRY, "\"base\"");
    const char *b = strstr(ENTRY, " \"points\"");
    assert_non_null(a);
    assert_non_null(b);
    snprintf(json, sizeof json,
             "%.*s\"base\": {\"available\": false, \"reason\": \"below 0\"}, "
             "\"per_layer\": {\"kind\": \"derived\", \"us\": 15},%s",
             (int)(a - ENTRY), ENTRY, b);
    rl_roof_type t;
    load(&t, json);
    assert_true(t.has_layers);
    assert_near(t.base_us, -20, 1e-12);
    assert_near(t.pts[0].us_per_byte, 2.5e-5, 1e-15);
    rl_roof_part part = {"Q4_0", 16e6, -1, -1};
    rl_roof_result r;
    rl_roof_predict(&t, 1, &part, 1, 24, &r);
    assert_true(r.ok);
    assert_near(r.fixed_us, 340, 1e-9);
    rl_roof_predict(&t, 1, &part, 1, 1, &r);
    assert_near(r.fixed_us, 0, 1e-12);
}

/* Each point less the fixed cost at its own layers: a stream point of 64 MB at 16 layers in 20
 * + 16 x 5 + 2560 us gives (2660 - 100) / 64e6 = 4e-5 us per byte (25 GB/s), not (2660 - 40) /
 * 64e6 as the 4-layer fixed cost would. */
/* The stream point split by the wide one (fixed 40 us at 4 layers: base 20, 5 a layer; mid 4
 * MB in 140 us: 2.5e-5 us a byte): a machine streaming 3e-5 us a byte and 10 us a matrix.
 * stream: 16 layers (113 matrices), 64 MB: 1920 + 1130 = 3050 us beyond its fixed 100, 3150 us
 * a token; wide: 4 layers (29 matrices), 64 MB: 1920 + 290 = 2210 beyond 40, 2250 us. */
static const char *SPLIT =
    "{\"type\": \"Q4_0\", \"fixed\": {\"kind\": \"derived\", \"us\": 40}, \"per_layer\": "
    "{\"kind\": \"derived\", \"us\": 5}, \"points\": ["
    "{\"role\": \"small\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
    "{\"value\": 1e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 65}},"
    "{\"role\": \"mid\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
    "{\"value\": 4e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 140}},"
    "{\"role\": \"wide\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
    "{\"value\": 64e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 2250}},"
    "{\"role\": \"stream\", \"model\": {\"shape\": {\"n_layer\": 16}}, \"bytes_per_token\": "
    "{\"value\": 64e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 3150}}]}";

static void test_per_matrix(void **state)
{
    (void)state;
    rl_roof_type t;
    load(&t, SPLIT);
    assert_int_equal(t.n_pts, 3); /* wide is not on the bytes curve */
    assert_true(t.has_matrix && t.pts[2].stream && !t.pts[1].stream);
    assert_near(t.limit_us_per_byte, 3e-5, 1e-15);
    assert_near(t.per_matrix_us, 10, 1e-9);
    assert_near(t.pts[2].us_per_byte, 3050 / 64e6, 1e-15);
    /* the stream model itself (113 matrices in 64 MB) is reproduced; matrices unknown: the
     * stream point as measured */
    assert_near(rl_roof_us_per_byte(&t, 64e6, 113 / 64e6, -1), 3050 / 64e6, 1e-15);
    assert_near(rl_roof_us_per_byte(&t, 1e9, -1, -1), 3050 / 64e6, 1e-15);
    /* 128 MB in 50 matrices, 12 layers: 3840 + 500 us of bytes, fixed 20 + 60: 4420 us; not
     * knowing its matrices, 128e6 x 3050 / 64e6 + 80 = 6180 */
    rl_roof_part big = {"Q4_0", 128e6, 50, -1};
    rl_roof_result r;
    rl_roof_predict(&t, 1, &big, 1, 12, &r);
    assert_true(r.ok);
    assert_near(r.tau_us, 4420, 1e-9);
    assert_near(r.shares[0].matrices, 50, 0);
    big.matrices = -1;
    rl_roof_predict(&t, 1, &big, 1, 12, &r);
    assert_near(r.tau_us, 6180, 1e-9);
    /* 16 MB in 20 matrices, half-way (ln 4 / ln 16) from mid to stream: the stream end is
     * 3e-5 + 10 x 20 / 16e6 = 4.25e-5, so 2.5e-5 + 0.5 x 1.75e-5 = 3.375e-5: 540 us of bytes */
    rl_roof_part mid = {"Q4_0", 16e6, 20, -1};
    rl_roof_predict(&t, 1, &mid, 1, 4, &r);
    assert_near(r.tau_us - r.fixed_us, 540, 1e-9);
    /* without layers in the points' shapes the split is not made */
    char json[4096];
    snprintf(json, sizeof json, "%s", SPLIT);
    for (char *q = strstr(json, "\"n_layer\""); q; q = strstr(q + 1, "\"n_layer\""))
        q[1] = 'x';
    load(&t, json);
    assert_false(t.has_matrix);
    /* a wide model slower per byte than the stream one: no split (wide 3200 us: 3160 beyond 40
     * against stream's 3050 in four times the matrices gives r below 0) */
    snprintf(json, sizeof json, "%s", SPLIT);
    char *w = strstr(json, "2250}");
    assert_non_null(w);
    memcpy(w, "3200", 4);
    load(&t, json);
    assert_false(t.has_matrix);
    assert_near(rl_roof_us_per_byte(&t, 1e9, 50 / 1e9, -1), 3050 / 64e6, 1e-15);
}

/* The same split by rows when the points' shapes are whole: a machine streaming 3e-5 us a byte
 * and 0.005 us a row. stream: 16 layers of 1024 x 3072 (one KV head, 512-token head), 152064
 * rows, 64 MB: 1920 + 760.32 us beyond its fixed 100; wide: 4 layers of 2048 x 6144, 75264 rows,
 * 64 MB: 1920 + 376.32 beyond 40. */
static const char *SPLIT_ROWS =
    "{\"type\": \"Q4_0\", \"fixed\": {\"kind\": \"derived\", \"us\": 40}, \"per_layer\": "
    "{\"kind\": \"derived\", \"us\": 5}, \"points\": ["
    "{\"role\": \"mid\", \"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": "
    "{\"value\": 4e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 140}},"
    "{\"role\": \"wide\", \"model\": {\"shape\": {\"n_layer\": 4, \"n_embd\": 2048, \"n_ff\": "
    "6144, \"n_head_kv\": 1, \"n_vocab\": 512}}, \"bytes_per_token\": {\"value\": 64e6}, "
    "\"rate\": {\"kind\": \"derived\", \"us_per_token\": 2336.32}},"
    "{\"role\": \"stream\", \"model\": {\"shape\": {\"n_layer\": 16, \"n_embd\": 1024, "
    "\"n_ff\": 3072, \"n_head_kv\": 1, \"n_vocab\": 512}}, \"bytes_per_token\": {\"value\": "
    "64e6}, \"rate\": {\"kind\": \"derived\", \"us_per_token\": 2780.32}}]}";

static void test_per_row(void **state)
{
    (void)state;
    rl_roof_type t;
    load(&t, SPLIT_ROWS);
    assert_true(t.has_rows && t.has_matrix);
    assert_near(t.row_limit_us_per_byte, 3e-5, 1e-15);
    assert_near(t.per_row_us, 0.005, 1e-12);
    /* the stream model by its rows is reproduced */
    assert_near(rl_roof_us_per_byte(&t, 64e6, 113 / 64e6, 152064 / 64e6), 2680.32 / 64e6, 1e-15);
    /* 128 MB in 50 matrices of 40000 rows, 12 layers: 3840 + 200 us, fixed 20 + 60: 4120 us;
     * rows unknown (-1): the matrix split, (128e6 x c + 50 x r) + 80 */
    rl_roof_part big = {"Q4_0", 128e6, 50, 40000};
    rl_roof_result r;
    rl_roof_predict(&t, 1, &big, 1, 12, &r);
    assert_true(r.ok);
    assert_near(r.tau_us, 4120, 1e-9);
    assert_near(r.shares[0].rows, 40000, 0);
    big.rows = -1;
    rl_roof_predict(&t, 1, &big, 1, 12, &r);
    assert_near(r.tau_us, 128e6 * t.limit_us_per_byte + 50 * t.per_matrix_us + 80, 1e-9);
    assert_true(r.tau_us > 4500);
    /* no rows at all (norms: 0 matrices, 0 rows) is known: the row split's time per byte */
    rl_roof_part two[] = {{"Q4_0", 128e6, 50, 40000}, {"F32", 1e6, 0, 0}};
    assert_near(rl_roof_us_per_byte(&t, 1e9, 0, 0), 3e-5, 1e-15);
    rl_roof_predict(&t, 1, two, 2, 12, &r);
    assert_near(r.shares[0].us, 4040, 1e-9);
    assert_near(r.shares[1].us, 30, 1e-9);
    /* a shape without n_ff: no row split, the matrix split stays */
    char json[4096];
    snprintf(json, sizeof json, "%s", SPLIT_ROWS);
    char *f = strstr(json, "\"n_ff\"");
    assert_non_null(f);
    f[1] = 'x';
    load(&t, json);
    assert_false(t.has_rows);
    assert_true(t.has_matrix);
}

static void test_point_layers(void **state)
{
    (void)state;
    const char *json =
        "{\"type\": \"Q4_0\", \"fixed\": {\"kind\": \"derived\", \"us\": 40}, \"per_layer\": "
        "{\"kind\": \"derived\", \"us\": 5}, \"points\": [{\"role\": \"small\", "
        "\"model\": {\"shape\": {\"n_layer\": 4}}, \"bytes_per_token\": {\"value\": 1e6}, "
        "\"rate\": {\"kind\": \"derived\", \"us_per_token\": 65}}, {\"role\": \"stream\", "
        "\"model\": {\"shape\": {\"n_layer\": 16}}, \"bytes_per_token\": {\"value\": 64e6}, "
        "\"rate\": {\"kind\": \"derived\", \"us_per_token\": 2660}}]}";
    rl_roof_type t;
    load(&t, json);
    assert_int_equal(t.n_pts, 2);
    assert_near(t.pts[0].us_per_byte, 2.5e-5, 1e-15);
    assert_near(t.pts[1].us_per_byte, 4e-5, 1e-15);
}

static rl_roof_result result3(double fixed, double us_a, double us_b, double us_c)
{
    rl_roof_result r = {.ok = true, .fixed_us = fixed, .n_shares = 3};
    const char *names[] = {"Q4_K", "Q6_K", "Q5_0"};
    double us[] = {us_a, us_b, us_c};
    for (size_t i = 0; i < 3; i++) {
        snprintf(r.shares[i].type, sizeof r.shares[i].type, "%s", names[i]);
        r.shares[i].bytes = 10e6; /* 10 MB each */
        r.shares[i].us = us[i];
        r.tau_us += us[i];
        r.binding = us[i] > us[r.binding] ? i : r.binding;
    }
    r.tau_us += fixed;
    return r;
}

static void test_verdict(void **state)
{
    (void)state;
    char v[160];
    /* Q4_K 400 us (50%), Q5_0 300 us: 87.5% of 800 us with both (75% reached at the second);
     * their 20 MB over 700 us: 28.57 GB/s, below 0.9 x 48.5 */
    rl_roof_result r = result3(100, 400, 100, 300);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by the Q4_K and Q5_0 kernels: 28.6 of 48.5 GB/s");
    /* one type over 75%: alone; no ceiling */
    r = result3(100, 700, 50, 50);
    rl_roof_verdict(&r, 0, v, sizeof v);
    assert_string_equal(v, "limited by the Q4_K kernel: 14.3 GB/s (no memory ceiling measured)");
    /* three needed: 300 + 250 = 550 of 800 is under 75% */
    r = result3(0, 300, 250, 250);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by the Q4_K, Q6_K and Q5_0 kernels: 37.5 of 48.5 GB/s");
    /* 10 MB in 230 us: 43.48 GB/s, below 0.9 x 48.5 = 43.65: a kernel */
    r = result3(0, 230, 10, 10);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by the Q4_K kernel: 43.5 of 48.5 GB/s");
    /* 10 MB in 220 us: 45.45 GB/s >= 43.65: memory */
    r = result3(0, 220, 10, 10);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by memory: the Q4_K weights stream at 45.5 of 48.5 GB/s");
    /* the fixed cost over half the time */
    r = result3(601, 400, 100, 100);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by the fixed per-token cost: 601 of 1201 us per token, "
                           "beyond the bytes");
    /* exactly half: not over; 400 then 100 (the first of the equal ones) reach 83%: 20 MB in
     * 500 us */
    r = result3(600, 400, 100, 100);
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "limited by the Q4_K and Q6_K kernels: 40.0 of 48.5 GB/s");
    r.ok = false;
    snprintf(r.why, sizeof r.why, "no calibration");
    rl_roof_verdict(&r, 48.5, v, sizeof v);
    assert_string_equal(v, "no two-roof verdict: no calibration");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_and_curve),
        cmocka_unit_test(test_predict_by_hand),
        cmocka_unit_test(test_reduces_to_one_roof),
        cmocka_unit_test(test_layers_from_deep),
        cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_negative_base),
        cmocka_unit_test(test_point_layers),
        cmocka_unit_test(test_per_matrix),
        cmocka_unit_test(test_per_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
