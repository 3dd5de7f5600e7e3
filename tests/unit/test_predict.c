/* SPDX-License-Identifier: MIT */
/* test_predict.c: unit tests for predict.c: the arithmetic against hand-computed values, the
 * interval, KV bytes at depth, the fit read from a bundle, the per-format rate and its
 * leave-one-out (the report's measured rows), the caveats, synth models planned in memory and
 * the last-bundle record.
 * Broken on purpose once: rl_pred_tok_s returning bytes / bw made test_rpi5_by_hand fail. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rl_test.h"

#include "analyse/predict.h"
#include "analyse/predict_expect.h"
#include "bundle/bundle_last.h"
#include "model/model_spec.h"
#include "base/rl_json.h"
#include "base/rl_util.h"

static void test_rpi5_by_hand(void **state)
{
    (void)state;
    /* The Raspberry Pi 5 fit, 10.69 GB/s, and a 330.2 MiB Qwen2.5-0.5B Q4_0:
     * 10.69e9 / (330.2 * 1048576) = 10.69e9 / 346239795.2 = 30.8746 tok/s */
    assert_near(rl_pred_tok_s(10.69e9, 330.2 * 1048576.0), 30.8746, 1e-4);
    /* 12 GB/s over 400 MB: 30 tok/s exactly */
    assert_near(rl_pred_tok_s(12e9, 400e6), 30.0, 1e-12);
    assert_true(isnan(rl_pred_tok_s(12e9, 0)));
    assert_true(isnan(rl_pred_tok_s(0, 400e6)));
    assert_true(isnan(rl_pred_tok_s(NAN, 400e6)));
}

static void test_bytes_at_depth(void **state)
{
    (void)state;
    uint64_t b;
    /* Qwen2.5-0.5B: 24 layers x 2 KV heads x 64 dims x 2 (K, V) x 2 bytes = 12288 bytes/token;
     * at depth 4096: 4096 x 12288 = 50331648 bytes on top of the weights */
    assert_true(rl_pred_bytes_at_depth(346239795u, 12288, 4096, &b));
    assert_int_equal(b, 346239795u + 50331648u);
    assert_true(rl_pred_bytes_at_depth(1000, 12288, 0, &b));
    assert_int_equal(b, 1000);
    assert_false(rl_pred_bytes_at_depth(1, UINT64_MAX / 2, 3, &b));
    assert_false(rl_pred_bytes_at_depth(UINT64_MAX, 1, 1, &b));
}

/* A bundle with a fit of 12 GB/s over two models whose own effective bandwidths are 11 and
 * 13 GB/s (400 and 800 MB), at 2 and 4 threads, streamed bytes, verdict `verdict`. */
static cJSON *bundle_with_fit(const char *verdict)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"models\": [{\"id\": \"m1\", \"gguf\": {\"label\": \"Q8_0\"}, "
             "\"bytes_per_token\": {\"source\": \"GGUF tensor table\"}}, {\"id\": \"m2\", "
             "\"gguf\": {\"label\": \"Q4_0\"}}],"
             " \"analysis\": {\"fit\": {\"available\": true, \"kind\": \"derived\", "
             "\"bw_bytes_s\": 12e9, \"bw_GBs\": 12, \"r2\": 0.99, \"n_points\": 2, "
             "\"bytes_convention\": \"streamed\"},"
             " \"models\": [{\"id\": \"m1\", \"in_fit\": true, \"bytes_per_token\": 400e6, "
             "\"decode_bw_GBs\": 11, \"operating_point\": {\"threads\": 4}},"
             " {\"id\": \"m2\", \"in_fit\": true, \"bytes_per_token\": 800e6, "
             "\"decode_bw_GBs\": 13, \"operating_point\": {\"threads\": 2}},"
             " {\"id\": \"m3\", \"in_fit\": false, \"bytes_per_token\": 50e6, "
             "\"decode_bw_GBs\": 2}],"
             " \"verdict\": {\"available\": true, \"label\": \"%s\"}}}",
             verdict);
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    return b;
}

/* The depth cost is the median us_per_kv_byte of analysis.depth_fits: of 3, 1, 2 (and one
 * without it) 2; of 3, 1, 2, 10: 2.5. The rate at depth 1000 of a model at 100 tok/s with
 * 1000 KV bytes per token at 0.002 us per byte: 1e6 / (10000 + 2000) = 83.333 tok/s. */
static void test_depth_cost(void **state)
{
    (void)state;
    const char *fits[] = {
        "[{\"us_per_kv_byte\": 3}, {\"us_per_kv_byte\": 1}, {\"available\": false}, "
        "{\"us_per_kv_byte\": 2}]",
        "[{\"us_per_kv_byte\": 3}, {\"us_per_kv_byte\": 1}, {\"us_per_kv_byte\": 2}, "
        "{\"us_per_kv_byte\": 10}]",
        "[]"};
    const double want[] = {2, 2.5, 0};
    for (int i = 0; i < 3; i++) {
        cJSON *b = bundle_with_fit("memory-bound");
        cJSON_AddItemToObject(cJSON_GetObjectItem(b, "analysis"), "depth_fits",
                              cJSON_Parse(fits[i]));
        rl_pred_fit f;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
        assert_int_equal(f.has_depth_cost, i < 2);
        assert_int_equal(f.n_depth_models, i == 0 ? 3 : i == 1 ? 4 : 0);
        assert_near(f.us_per_kv_byte, want[i], 1e-12);
        cJSON_Delete(b);
    }
    assert_near(rl_pred_depth_tok_s(100, 1000, 1000, 0.002), 1e6 / 12000, 1e-9);
    assert_true(isnan(rl_pred_depth_tok_s(0, 1000, 1000, 0.002)));
    assert_true(isnan(rl_pred_depth_tok_s(100, 1000, 1000, -1)));
}

/* A model's bytes by type for the two roofs: 1 MB of Q8_0 layers and a 2 MB F16 untied
 * embedding (not read) with a calibration of Q8_0 alone at 20 GB/s and nothing fixed:
 * 1e6 / 2e4 = 50 us; the embedding read would make F16 two thirds of the bytes, uncalibrated.
 * MoE: streamed bytes below the tensors' scale every type alike. */
static void test_roof_parts(void **state)
{
    (void)state;
    static rl_pred_fit f;
    memset(&f, 0, sizeof f);
    f.has_roofs = true;
    f.roof_threads = 2;
    f.n_roof_types = 1;
    f.roof_types[0] = (rl_roof_type){.type = "Q8_0", .n_pts = 1, .pts = {{1e6, 5e-5}}};
    rl_gguf_type_bytes types[] = {{8 /* Q8_0 */, 10, 1000000, 0, 10, 5000},
                                  {1 /* F16 */, 1, 2000000, 0, 0, 0}};
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    m.types = types;
    m.n_types = 2;
    m.sizes_known = true;
    m.embedding_type = 1;
    m.embedding_bytes = 2000000;
    m.streamed_bytes = 1000000;
    m.n_layer = 4;
    rl_roof_result r;
    rl_pred_roofs_for(&f, &m, &r);
    assert_true(r.ok);
    assert_int_equal(r.n_shares, 1);
    assert_near(r.tau_us, 50, 1e-9);
    m.streamed_bytes = 500000; /* MoE: half the bytes read */
    rl_pred_roofs_for(&f, &m, &r);
    assert_near(r.tau_us, 25, 1e-9);
    /* a split stream point (4e-5 us a byte, 2 us a matrix): the model's 10 Q8_0 matrices in
     * 1 MB take 1e6 x 4e-5 + 10 x 2 = 60 us; over the MoE's 0.5 MB, 20 + 20 = 40 us */
    f.roof_types[0].pts[0].stream = true;
    f.roof_types[0].has_matrix = true;
    f.roof_types[0].limit_us_per_byte = 4e-5;
    f.roof_types[0].per_matrix_us = 2;
    rl_pred_roofs_for(&f, &m, &r);
    assert_near(r.tau_us, 40, 1e-9);
    assert_near(r.shares[0].matrices, 10, 0);
    cJSON *rj = rl_pred_roofs_json(&r, 2, "limited");
    assert_near(rl_json_num_or(cJSON_GetArrayItem(rl_json_get(rj, "types"), 0), "matrices", 0), 10,
                0);
    cJSON_Delete(rj);
    m.streamed_bytes = 1000000;
    rl_pred_roofs_for(&f, &m, &r);
    assert_near(r.tau_us, 60, 1e-9);
    /* with a row split too (3e-5 us a byte, 0.002 us a row) the rows win: 1e6 x 3e-5 + 5000 x
     * 0.002 = 40 us, and the JSON carries them */
    f.roof_types[0].has_rows = true;
    f.roof_types[0].row_limit_us_per_byte = 3e-5;
    f.roof_types[0].per_row_us = 0.002;
    rl_pred_roofs_for(&f, &m, &r);
    assert_near(r.tau_us, 40, 1e-9);
    rj = rl_pred_roofs_json(&r, 2, "limited");
    assert_near(rl_json_num_or(cJSON_GetArrayItem(rl_json_get(rj, "types"), 0), "rows", 0), 5000,
                0);
    cJSON_Delete(rj);
    f.roof_types[0].has_rows = false;
    f.has_roofs = false;
    snprintf(f.roof_why, sizeof f.roof_why, "no calibration here");
    rl_pred_roofs_for(&f, &m, &r);
    assert_false(r.ok);
    assert_string_equal(r.why, "no calibration here");
}

/* The same parts from a bundle's gguf object (the report's measured rows): Q8_0 1 MB and F16
 * 3 MB of which the untied F16 embedding is 2 MB, 2 MB streamed: Q8_0 1 MB x 5e-5 + F16 1 MB x
 * 1e-4 = 150 us. Without embedding_type (a bundle before it) the 2 MB come off both in
 * proportion: 0.5 MB x 5e-5 + 1.5 MB x 1e-4 = 175 us. */
static void test_roof_parts_json(void **state)
{
    (void)state;
    static rl_pred_fit f;
    memset(&f, 0, sizeof f);
    f.has_roofs = true;
    f.n_roof_types = 2;
    f.roof_types[0] = (rl_roof_type){.type = "Q8_0", .n_pts = 1, .pts = {{1e6, 5e-5}}};
    f.roof_types[1] = (rl_roof_type){.type = "F16", .n_pts = 1, .pts = {{1e6, 1e-4}}};
    cJSON *g = cJSON_Parse("{\"sizes_known\": true, \"tied_embeddings\": false, "
                           "\"embedding_type\": \"F16\", \"embedding_bytes\": 2000000, "
                           "\"streamed_bytes\": 2000000, \"n_layer\": 4, \"types\": ["
                           "{\"type\": \"Q8_0\", \"bytes\": 1000000},"
                           "{\"type\": \"F16\", \"bytes\": 3000000}]}");
    assert_non_null(g);
    rl_roof_result r;
    rl_pred_roofs_for_json(&f, g, &r);
    assert_true(r.ok);
    assert_int_equal(r.n_shares, 2);
    assert_near(r.tau_us, 150, 1e-9);
    assert_string_equal(r.shares[r.binding].type, "F16");
    cJSON_DeleteItemFromObject(g, "embedding_type");
    rl_pred_roofs_for_json(&f, g, &r);
    assert_near(r.tau_us, 175, 1e-9);
    cJSON_ReplaceItemInObject(g, "tied_embeddings", cJSON_CreateTrue()); /* nothing off */
    cJSON_AddStringToObject(g, "embedding_type", "F16");
    rl_pred_roofs_for_json(&f, g, &r);
    assert_near(r.tau_us, 175, 1e-9);
    /* n_matrices read (Q8_0's 10 in 1 MB at 4e-5 us a byte and 2 us a matrix: 60 us), and
     * F16 without it (a bundle before n_matrices) as measured: 60 + 1 MB x 1e-4 = 160 */
    f.roof_types[0].pts[0].stream = f.roof_types[1].pts[0].stream = true;
    f.roof_types[0].has_matrix = f.roof_types[1].has_matrix = true;
    f.roof_types[0].limit_us_per_byte = f.roof_types[1].limit_us_per_byte = 4e-5;
    f.roof_types[0].per_matrix_us = f.roof_types[1].per_matrix_us = 2;
    cJSON *q8 = cJSON_GetArrayItem(cJSON_GetObjectItem(g, "types"), 0);
    cJSON_AddNumberToObject(q8, "n_matrices", 10);
    cJSON_ReplaceItemInObject(g, "tied_embeddings", cJSON_CreateFalse());
    rl_pred_roofs_for_json(&f, g, &r);
    assert_near(r.tau_us, 160, 1e-9);
    assert_near(r.shares[1].matrices, -1, 0);
    /* n_rows read too, with a row split (3e-5 us a byte, 0.002 us a row): Q8_0 1e6 x 3e-5 +
     * 5000 x 0.002 = 40 us, F16 (neither count) as measured: 40 + 100 = 140 */
    f.roof_types[0].has_rows = f.roof_types[1].has_rows = true;
    f.roof_types[0].row_limit_us_per_byte = f.roof_types[1].row_limit_us_per_byte = 3e-5;
    f.roof_types[0].per_row_us = f.roof_types[1].per_row_us = 0.002;
    cJSON_AddNumberToObject(q8, "n_rows", 5000);
    rl_pred_roofs_for_json(&f, g, &r);
    assert_near(r.tau_us, 140, 1e-9);
    assert_near(r.shares[0].rows, 5000, 0);
    assert_near(r.shares[1].rows, -1, 0);
    /* a type without bytes: unknown */
    cJSON_AddItemToArray(cJSON_GetObjectItem(g, "types"), cJSON_Parse("{\"type\": \"F32\"}"));
    rl_pred_roofs_for_json(&f, g, &r);
    assert_false(r.ok);
    assert_string_equal(r.why, "the model's bytes per type are unknown");
    f.has_roofs = false;
    snprintf(f.roof_why, sizeof f.roof_why, "none");
    rl_pred_roofs_for_json(&f, g, &r);
    assert_false(r.ok);
    assert_string_equal(r.why, "none");
    cJSON_Delete(g);
}

/* predict -t N: the set at N when there is one; the fitted thread counts are kept. Sets at 1
 * (Q8_0 at 5e-5 us/B) and 2 (1e-4): the fit's threads are 2 and 4, so 2 by default. */
static void test_roofs_at(void **state)
{
    (void)state;
    cJSON *b = bundle_with_fit("memory-bound");
    cJSON_AddItemToObject(
        b, "calibration",
        cJSON_Parse("{\"sets\": [{\"threads\": 1, \"types\": [{\"type\": \"Q8_0\", "
                    "\"points\": [{\"role\": \"stream\", \"bytes_per_token\": {\"value\": "
                    "1e6}, \"rate\": {\"us_per_token\": 50}}]}]}, {\"threads\": 2, \"types\": "
                    "[{\"type\": \"Q8_0\", \"points\": [{\"role\": \"stream\", "
                    "\"bytes_per_token\": {\"value\": 1e6}, \"rate\": {\"us_per_token\": "
                    "100}}]}]}]}"));
    static rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
    assert_true(f.has_roofs);
    assert_int_equal(f.roof_threads, 2);
    assert_near(f.roof_types[0].pts[0].us_per_byte, 1e-4, 1e-15);
    rl_pred_roofs_at(b, &f, 1);
    assert_int_equal(f.roof_threads, 1);
    assert_near(f.roof_types[0].pts[0].us_per_byte, 5e-5, 1e-15);
    assert_int_equal(f.n_threads, 2);
    assert_int_equal(f.threads[0], 2);
    assert_int_equal(f.threads[1], 4);
    rl_pred_roofs_at(b, &f, 8); /* no set at 8: unchanged */
    assert_int_equal(f.roof_threads, 1);
    cJSON_Delete(b);
}

static void test_fit_and_interval(void **state)
{
    (void)state;
    cJSON *b = bundle_with_fit("memory-bound");
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
    assert_near(f.bw_bytes_s, 12e9, 1e-3);
    assert_near(f.bw_lo_bytes_s, 11e9, 1e-3); /* m3 is not in the fit */
    assert_near(f.bw_hi_bytes_s, 13e9, 1e-3);
    assert_near(f.min_bytes, 400e6, 1e-6);
    assert_near(f.max_bytes, 800e6, 1e-6);
    assert_int_equal(f.n_threads, 2);
    assert_int_equal(f.threads[0], 2);
    assert_int_equal(f.threads[1], 4);
    assert_int_equal(f.conv, RL_AN_BYTES_STREAMED);
    assert_string_equal(f.verdict, "memory-bound");
    assert_string_equal(f.labels, "Q8_0, Q4_0");

    /* a 600 MB model: 12e9 / 600e6 = 20 tok/s, interval 11e9 / 600e6 = 18.333 to
     * 13e9 / 600e6 = 21.667; at depth 1000 with 100 kB/token: 700 MB, 17.142857 tok/s */
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    m.sizes_known = true;
    m.streamed_bytes = 600000000;
    m.kv_bytes_per_token = 100000;
    /* no label: the all-model fit (a label's own rate: test_format_rate) */
    uint64_t depths[] = {0, 1000};
    rl_prediction p;
    assert_int_equal(rl_predict(&f, &m, "x.gguf", depths, 2, 0, &p, &e), RL_OK);
    assert_int_equal(p.n_points, 2);
    assert_true(p.points[0].available);
    assert_int_equal(p.points[0].bytes_per_token, 600000000);
    assert_near(p.points[0].tok_s, 20.0, 1e-9);
    assert_near(p.points[0].tok_s_low, 18.333333333333, 1e-9);
    assert_near(p.points[0].tok_s_high, 21.666666666667, 1e-9);
    assert_int_equal(p.points[1].bytes_per_token, 700000000);
    assert_near(p.points[1].tok_s, 12e9 / 700e6, 1e-9);
    assert_string_equal(p.bytes_key, "streamed_bytes");
    assert_string_equal(p.rate.source, "fit");
    assert_int_equal(p.rate.n_models, 2);
    /* inside the fitted range, memory-bound: only the depth caveat */
    assert_int_equal(p.n_caveats, 1);
    assert_string_equal(p.caveats[0].code, "depth_bytes_only");

    cJSON *j = rl_prediction_to_json(&p);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "derived");
    cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "points"), 0);
    assert_near(cJSON_GetObjectItem(pt, "tok_s")->valuedouble, 20.0, 1e-9);
    cJSON_Delete(j);
    rl_prediction_free(&p);
    cJSON_Delete(b);
}

/* Same format first: three fitted models, Q8_0 at 400 MB (11 GB/s) and 200 MB (10 GB/s), Q4_0
 * at 800 MB (13 GB/s), the all-model fit 12 GB/s.
 *   Q8_0: sum 1/b^2 = 1/16e16 + 1/4e16 = 0.3125e-16; sum bw/b^2 = 11e9 x 0.0625e-16 +
 *         10e9 x 0.25e-16 = 3.1875e-7; bw = 3.1875e-7 / 0.3125e-16 = 10.2e9 B/s; interval its
 *         own models, 10 to 11 GB/s. A 600 MB Q8_0: 17 tok/s (16.6667 to 18.3333).
 *   Q4_0: one model, 13 GB/s; interval the fit's 10..13 around 12 scaled: 13 x 10/12 =
 *         10.8333 to 13 x 13/12 = 14.0833 GB/s. A 1000 MB Q4_0: 13 tok/s (10.8333 to 14.0833).
 *   Q4_1: none fitted: the fit, 12 GB/s, and the other_format caveat. */
static void test_format_rate(void **state)
{
    (void)state;
    const char *text =
        "{\"models\": [{\"id\": \"a\", \"gguf\": {\"label\": \"Q8_0\"}}, {\"id\": \"b\", "
        "\"gguf\": {\"label\": \"Q4_0\"}}, {\"id\": \"c\", \"gguf\": {\"label\": \"Q8_0\"}}],"
        " \"analysis\": {\"fit\": {\"available\": true, \"bw_bytes_s\": 12e9, \"bw_GBs\": 12, "
        "\"n_points\": 3, \"bytes_convention\": \"streamed\"}, \"models\": ["
        "{\"id\": \"a\", \"in_fit\": true, \"bytes_per_token\": 400e6, \"decode_bw_GBs\": 11},"
        "{\"id\": \"b\", \"in_fit\": true, \"bytes_per_token\": 800e6, \"decode_bw_GBs\": 13},"
        "{\"id\": \"c\", \"in_fit\": true, \"bytes_per_token\": 200e6, \"decode_bw_GBs\": 10}]}}";
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
    assert_int_equal(f.n_formats, 2);

    rl_pred_rate r;
    rl_pred_rate_for(&f, "Q8_0", &r);
    assert_string_equal(r.source, "format");
    assert_int_equal(r.n_models, 2);
    assert_near(r.bw, 10.2e9, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 11e9, 1e-3);
    rl_pred_rate_for(&f, "Q4_0", &r);
    assert_int_equal(r.n_models, 1);
    assert_near(r.bw, 13e9, 1e-3);
    assert_near(r.lo, 13e9 * 10 / 12, 1e-3);
    assert_near(r.hi, 13e9 * 13 / 12, 1e-3);
    rl_pred_rate_for(&f, "Q4_1", &r);
    assert_string_equal(r.source, "fit");
    assert_near(r.bw, 12e9, 1e-3);
    rl_pred_rate_for(&f, "", &r);
    assert_string_equal(r.source, "fit");
    /* Without itself (leave-one-out), a Q8_0 format of two models: a (400 MB, 11 GB/s) leaves c
     * alone, 10 GB/s, and the interval of all the others, b and c, scaled to it. Their fit:
     * sum 1/b^2 = 1/64e16 + 1/4e16 = 17/64 x 1e-16; sum bw/b^2 = 13e9/64e16 + 10e9/4e16 =
     * 173/64 x 1e-7; 173/17 = 10.176471 GB/s, their range 10 to 13 GB/s; scaled to 10:
     * 10 x 10 x 17/173 = 9.826590 to 10 x 13 x 17/173 = 12.774566 GB/s (a's 11 plays no part:
     * before, the format kept it). */
    rl_pred_rate_without(&f, "Q8_0", 400e6, 11e9, &r);
    assert_string_equal(r.source, "format");
    assert_int_equal(r.n_models, 1);
    assert_near(r.bw, 10e9, 1e-3);
    assert_near(r.lo, 1700e9 / 173, 1e-3);
    assert_near(r.hi, 2210e9 / 173, 1e-3);
    /* c (200 MB, 10 GB/s) leaves a: 11 GB/s, scaled from a and b's fit: 1/16e16 + 1/64e16 =
     * 5/64 x 1e-16, 11e9/16e16 + 13e9/64e16 = 57/64 x 1e-7: 11.4 GB/s, range 11 to 13 */
    rl_pred_rate_without(&f, "Q8_0", 200e6, 10e9, &r);
    assert_int_equal(r.n_models, 1);
    assert_near(r.bw, 11e9, 1e-3);
    assert_near(r.lo, 11e9 * 11 / 11.4, 1e-3);
    assert_near(r.hi, 11e9 * 13 / 11.4, 1e-3);
    /* Q4_0's only model, b: the fit over the others, a and c (Q8_0's 10.2 GB/s above), their
     * range 10 to 11 GB/s, not the bundle's 12 over all three nor b's own 13 */
    rl_pred_rate_without(&f, "Q4_0", 800e6, 13e9, &r);
    assert_string_equal(r.source, "fit");
    assert_int_equal(r.n_models, 2);
    assert_near(r.bw, 10.2e9, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 11e9, 1e-3);
    /* a model that is not one of the format's fitted models is not taken out: b's numbers
     * under Q8_0 (before: subtracted from Q8_0's sums, 10.05 GB/s), a model of no fit, and an
     * unlabelled one all get rl_pred_rate_for's rate unchanged */
    rl_pred_rate_without(&f, "Q8_0", 800e6, 13e9, &r);
    assert_string_equal(r.source, "format");
    assert_int_equal(r.n_models, 2);
    assert_near(r.bw, 10.2e9, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 11e9, 1e-3);
    rl_pred_rate_without(&f, "Q8_0", 400e6, 12e9, &r); /* a's bytes, another bandwidth */
    assert_int_equal(r.n_models, 2);
    assert_near(r.bw, 10.2e9, 1e-3);
    rl_pred_rate_without(&f, "Q4_0", 900e6, 13e9, &r);
    assert_string_equal(r.source, "format");
    assert_near(r.bw, 13e9, 1e-3);
    assert_near(r.lo, 13e9 * 10 / 12, 1e-3);
    rl_pred_rate_without(&f, "", 400e6, 11e9, &r); /* a's numbers, but no label */
    assert_string_equal(r.source, "fit");
    assert_int_equal(r.n_models, 3);
    assert_near(r.bw, 12e9, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 13e9, 1e-3);

    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    m.sizes_known = true;
    m.streamed_bytes = 600000000;
    snprintf(m.label, sizeof m.label, "Q8_0");
    uint64_t d0 = 0;
    rl_prediction p;
    assert_int_equal(rl_predict(&f, &m, "q8.gguf", &d0, 1, 0, &p, &e), RL_OK);
    assert_near(p.points[0].tok_s, 17.0, 1e-9);
    assert_near(p.points[0].tok_s_low, 16.666666666667, 1e-9);
    assert_near(p.points[0].tok_s_high, 18.333333333333, 1e-9);
    assert_int_equal(p.n_caveats, 0);
    cJSON *j = rl_prediction_to_json(&p);
    cJSON *jr = cJSON_GetObjectItem(j, "rate");
    assert_string_equal(cJSON_GetObjectItem(jr, "source")->valuestring, "format");
    assert_near(cJSON_GetObjectItem(jr, "bw_GBs")->valuedouble, 10.2, 1e-12);
    assert_int_equal(cJSON_GetObjectItem(jr, "n_models")->valueint, 2);
    cJSON_Delete(j);
    rl_prediction_free(&p);

    m.streamed_bytes = 1000000000;
    snprintf(m.label, sizeof m.label, "Q4_0");
    assert_int_equal(rl_predict(&f, &m, "q4.gguf", &d0, 1, 0, &p, &e), RL_OK);
    assert_near(p.points[0].tok_s, 13.0, 1e-9);
    assert_near(p.points[0].tok_s_low, 10.833333333333, 1e-9);
    assert_near(p.points[0].tok_s_high, 14.083333333333, 1e-9);
    rl_prediction_free(&p);

    m.streamed_bytes = 600000000; /* inside the fitted range: no range caveat */
    snprintf(m.label, sizeof m.label, "Q4_1");
    assert_int_equal(rl_predict(&f, &m, "q41.gguf", &d0, 1, 0, &p, &e), RL_OK);
    assert_near(p.points[0].tok_s, 20.0, 1e-9);
    assert_int_equal(p.n_caveats, 1);
    assert_string_equal(p.caveats[0].code, "other_format");
    rl_prediction_free(&p);
    cJSON_Delete(b);
}

static bool has_caveat(const rl_prediction *p, const char *code)
{
    for (size_t i = 0; i < p->n_caveats; i++)
        if (strcmp(p->caveats[i].code, code) == 0)
            return true;
    return false;
}

static void test_caveats(void **state)
{
    (void)state;
    cJSON *b = bundle_with_fit("compute-bound");
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    m.sizes_known = true;
    m.streamed_bytes = 100000000; /* below the 400 MB smallest */
    m.is_moe = true;
    m.expert_count = 8;
    m.expert_used_count = 2;
    uint64_t depths[] = {0, 4096}; /* KV size unknown */
    rl_prediction p;
    assert_int_equal(rl_predict(&f, &m, "moe.gguf", depths, 2, 3, &p, &e), RL_OK);
    assert_true(has_caveat(&p, "compute_bound"));
    assert_true(has_caveat(&p, "below_fit_range"));
    assert_true(has_caveat(&p, "moe"));
    assert_true(has_caveat(&p, "threads")); /* 3 is neither 2 nor 4 */
    assert_true(has_caveat(&p, "kv_unknown"));
    assert_false(has_caveat(&p, "above_fit_range"));
    assert_false(has_caveat(&p, "other_format")); /* no label */
    assert_false(p.points[1].available);
    assert_near(p.points[0].tok_s, 120.0, 1e-9);
    rl_prediction_free(&p);

    m.is_moe = false;
    m.streamed_bytes = 2000000000; /* above the 800 MB largest */
    assert_int_equal(rl_predict(&f, &m, "big.gguf", depths, 1, 4, &p, &e), RL_OK);
    assert_true(has_caveat(&p, "above_fit_range"));
    assert_false(has_caveat(&p, "threads"));
    assert_false(has_caveat(&p, "moe"));
    rl_prediction_free(&p);
    snprintf(m.label, sizeof m.label, "Q4_K_M"); /* not a fitted format */
    assert_int_equal(rl_predict(&f, &m, "big.gguf", depths, 1, 4, &p, &e), RL_OK);
    assert_true(has_caveat(&p, "other_format"));
    rl_prediction_free(&p);
    snprintf(m.label, sizeof m.label, "Q4_0"); /* a fitted one */
    assert_int_equal(rl_predict(&f, &m, "big.gguf", depths, 1, 4, &p, &e), RL_OK);
    assert_false(has_caveat(&p, "other_format"));
    rl_prediction_free(&p);

    m.sizes_known = false; /* unknown bytes: no prediction */
    assert_int_equal(rl_predict(&f, &m, "odd.gguf", depths, 1, 0, &p, &e), RL_EINPUT);
    cJSON_Delete(b);
}

static void test_no_fit(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse("{\"analysis\": {\"fit\": {\"available\": false, \"reason\": "
                           "\"only one model: a single point, no line\"}}}");
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "one.json", &f, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "one.json: the bundle has no fit"));
    assert_non_null(strstr(e.msg, "single point"));
    cJSON_Delete(b);
}

static void test_resident_convention(void **state)
{
    (void)state;
    /* an imported bundle whose resident bytes were file sizes predicts from file bytes */
    cJSON *b = cJSON_Parse(
        "{\"models\": [{\"id\": \"m1\", \"bytes_per_token\": {\"source\": \"imported: GGUF "
        "file size\"}}], \"analysis\": {\"fit\": {\"available\": true, \"bw_bytes_s\": "
        "10.69e9, \"n_points\": 2, \"bytes_convention\": \"resident\"}, \"models\": [{\"id\": "
        "\"m1\", \"in_fit\": true, \"bytes_per_token\": 4e8, \"decode_bw_GBs\": 10}]}}");
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "pi.json", &f, &e), RL_OK);
    assert_int_equal(f.conv, RL_AN_BYTES_RESIDENT);
    assert_true(f.resident_is_file);
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    m.sizes_known = true;
    m.file_bytes = 346239795; /* 330.2 MiB */
    m.tensor_bytes = 340000000;
    uint64_t d0 = 0;
    rl_prediction p;
    assert_int_equal(rl_predict(&f, &m, "q.gguf", &d0, 1, 0, &p, &e), RL_OK);
    assert_string_equal(p.bytes_key, "file_bytes");
    assert_near(p.points[0].tok_s, 30.8746, 1e-4);
    /* the interval keeps the line inside it: 10 GB/s point, 10.69 GB/s fit */
    assert_near(p.points[0].tok_s_low, 10e9 / 346239795.0, 1e-9);
    assert_near(p.points[0].tok_s_high, 30.8746, 1e-4);
    rl_prediction_free(&p);
    cJSON_Delete(b);
}

static void test_synth_model_in_memory(void **state)
{
    (void)state;
    rl_gguf_model m;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_model_spec_load("synth:qwen2.5-0.5b:Q8_0", NULL, &m, &e), RL_OK);
    assert_int_equal(m.kv_bytes_per_token, 12288); /* 2 x 24 x 2 x 64 x 2 */
    assert_int_equal(m.n_layer, 24);
    assert_string_equal(m.label, "Q8_0");
    /* the cached file of the same preset streams the same bytes (tests/e2e compare them) */
    assert_true(m.streamed_bytes > 400000000 && m.streamed_bytes < 700000000);
    rl_gguf_model_free(&m);
    assert_int_equal(rl_model_spec_load("synth:nope:Q8_0", NULL, &m, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "no synth preset 'nope'"));
    assert_int_equal(rl_model_spec_load("synth:tiny:Q3_K", NULL, &m, &e), RL_EINPUT);
    assert_int_equal(rl_model_spec_load("synth:tiny", NULL, &m, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "synth:PRESET:TYPE"));
    assert_int_equal(rl_model_spec_load("synth:tiny-moe:F16", NULL, &m, &e), RL_OK);
    assert_true(m.is_moe);
    rl_gguf_model_free(&m);
}

static void test_last_bundle(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char dir[1024], bpath[1100];
    snprintf(dir, sizeof dir, "%s/predict-cache-%ld", tmp ? tmp : "/tmp", (long)getpid());
    setenv("LLAMA_ROOFLINE_CACHE", dir, 1);
    char *got = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_bundle_last(&got, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "run `llama-roofline diagnose`"));
    assert_non_null(strstr(e.msg, "--bundle"));
    snprintf(bpath, sizeof bpath, "%s.bundle.json", dir);
    FILE *fp = fopen(bpath, "w");
    assert_non_null(fp);
    fputs("{}", fp);
    fclose(fp);
    assert_int_equal(rl_bundle_remember(bpath, &e), RL_OK);
    assert_int_equal(rl_bundle_last(&got, &e), RL_OK);
    char *abs = realpath(bpath, NULL);
    assert_string_equal(got, abs);
    free(abs);
    free(got);
    unlink(bpath);
    char lb[1100];
    snprintf(lb, sizeof lb, "%s/last-bundle", dir);
    unlink(lb);
    rmdir(dir);
}

/* Give the gguf object g (a model entry's) bytes of Q8_0 alone: 4 layers, a tied embedding. */
static void q8_only(cJSON *g, double bytes)
{
    cJSON_AddItemToObject(g, "sizes_known", cJSON_CreateTrue());
    cJSON_AddItemToObject(g, "tied_embeddings", cJSON_CreateTrue());
    cJSON_AddItemToObject(g, "streamed_bytes", cJSON_CreateNumber(bytes));
    cJSON_AddItemToObject(g, "n_layer", cJSON_CreateNumber(4));
    cJSON *types = cJSON_AddArrayToObject(g, "types"), *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "type", "Q8_0");
    cJSON_AddNumberToObject(t, "bytes", bytes);
    cJSON_AddItemToArray(types, t);
}

/* The report's "what to expect" rows: m1 (Q8_0, its format's only fitted model: the fit over
 * the others, m2 alone, 13 GB/s, its interval m2's 13 to 13) 13e9 / 400e6 = 32.5 tok/s, 32.5 to
 * 32.5, measured 25: 100 (25 - 32.5) / 32.5 = -23.0769 % (before: the fit over all with m1's
 * own 11 GB/s, 30 tok/s, 27.5 to 32.5); m2 is not ok (no row); m3 (no label, not in the fit)
 * 12e9 / 50e6 = 240, 220 to 260, measured 100: -58.333 %. */
static void test_expect_rows(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(
        "{\"models\": [{\"id\": \"m1\", \"gguf\": {\"label\": \"Q8_0\"}}, {\"id\": \"m2\", "
        "\"gguf\": {\"label\": \"Q4_0\"}}], \"analysis\": {\"fit\": {\"available\": true, "
        "\"bw_bytes_s\": 12e9, \"n_points\": 2, \"bytes_convention\": \"streamed\"}, "
        "\"models\": [{\"id\": \"m1\", \"ok\": true, \"in_fit\": true, \"bytes_per_token\": "
        "400e6, \"decode_bw_GBs\": 11, \"operating_point\": {\"decode_tok_s\": 25}}, {\"id\": "
        "\"m2\", \"ok\": false, \"in_fit\": true, \"bytes_per_token\": 800e6, "
        "\"decode_bw_GBs\": 13, \"operating_point\": {\"decode_tok_s\": 16}}, {\"id\": \"m3\", "
        "\"ok\": true, \"in_fit\": false, \"bytes_per_token\": 50e6, \"operating_point\": "
        "{\"decode_tok_s\": 100}}]}}");
    assert_non_null(b);
    rl_pred_expect x;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_true(x.has_fit);
    assert_near(x.fit.bw_bytes_s, 12e9, 1e-3);
    assert_int_equal(x.n_rows, 2);
    assert_string_equal(x.rows[0].id, "m1");
    assert_true(x.rows[0].in_fit);
    assert_near(x.rows[0].bytes, 400e6, 1e-6);
    assert_near(x.rows[0].measured, 25, 1e-9);
    assert_near(x.rows[0].pred, 32.5, 1e-9);
    assert_near(x.rows[0].lo, 32.5, 1e-9);
    assert_near(x.rows[0].hi, 32.5, 1e-9);
    assert_near(x.rows[0].diff_pct, -23.0769231, 1e-6);
    assert_string_equal(x.rows[1].id, "m3");
    assert_false(x.rows[1].in_fit);
    assert_near(x.rows[1].pred, 240, 1e-9);
    assert_near(x.rows[1].lo, 220, 1e-9);
    assert_near(x.rows[1].hi, 260, 1e-9);
    assert_near(x.rows[1].diff_pct, -58.3333333, 1e-6);
    assert_false(x.rows[0].two.ok); /* no calibration: no two-roof rate */
    assert_true(isnan(x.rows[0].two_diff_pct));
    assert_int_equal(x.n_two, 0); /* nor an agreement */
    assert_true(isnan(x.two_median_pct));
    assert_string_equal(x.rows[0].verdict, "no two-roof verdict: the bundle holds no calibration "
                                           "(llama-roofline diagnose --calibrate)");
    rl_pred_expect_free(&x);
    assert_null(x.rows);

    /* a calibration of Q8_0 alone, one stream point: 5000 us for 100 MB, 5e-5 us per byte
     * (20 GB/s), no fixed cost. m1's 400 MB of Q8_0: 20000 us, 50 tok/s against 25 measured
     * (-50%); 20 GB/s is a kernel under 0.9 x the 40 GB/s ceiling. m3 has no types. */
    cJSON_AddItemToObject(
        b, "calibration",
        cJSON_Parse("{\"sets\": [{\"threads\": 2, \"types\": [{\"type\": \"Q8_0\", "
                    "\"points\": [{\"role\": \"stream\", \"bytes_per_token\": {\"value\": "
                    "100e6}, \"rate\": {\"us_per_token\": 5000}}]}]}]}"));
    cJSON_AddItemToObject(cJSON_GetObjectItem(b, "analysis"), "ceiling",
                          cJSON_Parse("{\"GBs\": 40}"));
    q8_only(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "models"), 0), "gguf"),
            400e6);
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_true(x.fit.has_roofs);
    assert_near(x.fit.ceiling_GBs, 40, 0);
    assert_true(x.rows[0].two.ok);
    assert_near(x.rows[0].two.tok_s, 50, 1e-9);
    assert_near(x.rows[0].two_diff_pct, -50, 1e-9);
    assert_string_equal(x.rows[0].verdict, "limited by the Q8_0 kernel: 20.0 of 40.0 GB/s");
    assert_false(x.rows[1].two.ok);
    assert_string_equal(x.rows[1].two.why, "the model's bytes per type are unknown");
    assert_int_equal(x.n_two, 1); /* m1 alone: its -50% is the median */
    assert_near(x.two_median_pct, -50, 1e-9);
    rl_pred_expect_free(&x);

    /* m3 given 125 MB of Q8_0 too: 6250 us, 160 tok/s against 100 measured, -37.5%: the median
     * of two, (-50 - 37.5) / 2; then m2 made ok (800 MB: 40000 us, 25 tok/s against 16, -36%):
     * the middle of -50, -37.5, -36 (neither the first row, the mean nor an end) */
    cJSON *m3 = cJSON_CreateObject();
    cJSON_AddStringToObject(m3, "id", "m3");
    q8_only(cJSON_AddObjectToObject(m3, "gguf"), 125e6);
    cJSON_AddItemToArray(cJSON_GetObjectItem(b, "models"), m3);
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_int_equal(x.n_two, 2);
    assert_near(x.rows[1].two_diff_pct, -37.5, 1e-9);
    assert_near(x.two_median_pct, -43.75, 1e-9);
    rl_pred_expect_free(&x);
    cJSON *m2a =
        cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "analysis"), "models"), 1);
    cJSON_ReplaceItemInObject(m2a, "ok", cJSON_CreateTrue());
    q8_only(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "models"), 1), "gguf"),
            800e6);
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_int_equal(x.n_rows, 3);
    assert_int_equal(x.n_two, 3);
    assert_near(x.rows[1].two_diff_pct, -36, 1e-9);
    assert_near(x.two_median_pct, -37.5, 1e-9);
    rl_pred_expect_free(&x);
    cJSON_Delete(b);

    /* no fit: no rows, not an error */
    b = cJSON_Parse("{\"analysis\": {\"fit\": {\"available\": false, \"reason\": \"one\"}}}");
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_false(x.has_fit);
    assert_int_equal(x.n_rows, 0);
    rl_pred_expect_free(&x);
    cJSON_Delete(b);
}

/* The example: three Q8_0 models in the fit, 200 MB at 10 GB/s, 400 MB at 11 and
 * 800 MB at 14 (the bundle's fit over all three: sum 1/b^2 = (25 + 6.25 + 1.5625) e-18 =
 * 32.8125e-18, sum bw/b^2 = (250 + 68.75 + 21.875) e-9 = 340.625e-9, 10.380952 GB/s).
 *   Without the 14: the two left, 10 and 11, weighted by 1/b^2 as 25 : 6.25 = 4 : 1,
 *     (4 x 10 + 11) / 5 = 10.2 GB/s, interval 10 to 11 (before: 10 to 14, the 14 kept). At
 *     800 MB: 12.75 tok/s, 12.5 to 13.75; measured 14e9 / 800e6 = 17.5 tok/s, outside (before
 *     its own bound, 17.5): 100 (17.5 - 12.75) / 12.75 = +37.2549 %.
 *   Without the 10: 11 and 14 as 6.25 : 1.5625 = 4 : 1, (4 x 11 + 14) / 5 = 11.6 GB/s,
 *     11 to 14; at 200 MB 58 tok/s, 55 to 70; measured 50, outside, -13.7931 %. */
static void test_leave_one_out(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse(
        "{\"models\": [{\"id\": \"m1\", \"gguf\": {\"label\": \"Q8_0\"}}, {\"id\": \"m2\", "
        "\"gguf\": {\"label\": \"Q8_0\"}}, {\"id\": \"m3\", \"gguf\": {\"label\": \"Q8_0\"}}], "
        "\"analysis\": {\"fit\": {\"available\": true, \"bw_bytes_s\": 10380952380.952381, "
        "\"n_points\": 3, \"bytes_convention\": \"streamed\"}, \"models\": ["
        "{\"id\": \"m1\", \"ok\": true, \"in_fit\": true, \"bytes_per_token\": 200e6, "
        "\"decode_bw_GBs\": 10, \"operating_point\": {\"decode_tok_s\": 50}},"
        "{\"id\": \"m2\", \"ok\": true, \"in_fit\": true, \"bytes_per_token\": 400e6, "
        "\"decode_bw_GBs\": 11, \"operating_point\": {\"decode_tok_s\": 27.5}},"
        "{\"id\": \"m3\", \"ok\": true, \"in_fit\": true, \"bytes_per_token\": 800e6, "
        "\"decode_bw_GBs\": 14, \"operating_point\": {\"decode_tok_s\": 17.5}}]}}");
    assert_non_null(b);
    rl_pred_fit f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_pred_fit_from_bundle(b, "b.json", &f, &e), RL_OK);
    assert_int_equal(f.n_fitted, 3);
    rl_pred_rate r;
    rl_pred_rate_without(&f, "Q8_0", 800e6, 14e9, &r);
    assert_string_equal(r.source, "format");
    assert_int_equal(r.n_models, 2);
    assert_near(r.bw, 10.2e9, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 11e9, 1e-3);
    rl_pred_rate_without(&f, "Q8_0", 200e6, 10e9, &r);
    assert_near(r.bw, 11.6e9, 1e-3);
    assert_near(r.lo, 11e9, 1e-3);
    assert_near(r.hi, 14e9, 1e-3);
    /* all three, for a model not measured: the format's own fit, 10 to 14 */
    rl_pred_rate_for(&f, "Q8_0", &r);
    assert_int_equal(r.n_models, 3);
    assert_near(r.bw, 340.625e9 / 32.8125, 1e-3);
    assert_near(r.lo, 10e9, 1e-3);
    assert_near(r.hi, 14e9, 1e-3);

    rl_pred_expect x;
    assert_int_equal(rl_pred_expect_build(b, &x, &e), RL_OK);
    assert_int_equal(x.n_rows, 3);
    const rl_pred_expect_row *w = &x.rows[2];
    assert_string_equal(w->id, "m3");
    assert_near(w->pred, 12.75, 1e-9);
    assert_near(w->lo, 12.5, 1e-9);
    assert_near(w->hi, 13.75, 1e-9);
    assert_near(w->measured, 17.5, 1e-9);
    assert_true(w->measured > w->hi); /* outside its own interval */
    assert_near(w->diff_pct, 37.2549020, 1e-6);
    w = &x.rows[0];
    assert_near(w->pred, 58, 1e-9);
    assert_near(w->lo, 55, 1e-9);
    assert_near(w->hi, 70, 1e-9);
    assert_true(w->measured < w->lo);
    assert_near(w->diff_pct, -13.7931034, 1e-6);
    rl_pred_expect_free(&x);
    cJSON_Delete(b);

    /* no other fitted model to predict it from (one model folded in by hand): NAN, 0 models */
    memset(&f, 0, sizeof f);
    f.bw_bytes_s = f.bw_lo_bytes_s = f.bw_hi_bytes_s = 12e9;
    f.n_points = 1;
    rl_pred_fit_add(&f, "Q8_0", 400e6, 12e9);
    rl_pred_fit_add(&f, "Q8_0", 0, 12e9); /* not a model: ignored */
    rl_pred_fit_add(&f, "Q8_0", 400e6, NAN);
    assert_int_equal(f.n_fitted, 1);
    assert_int_equal(f.formats[0].n, 1);
    rl_pred_rate_without(&f, "Q8_0", 400e6, 12e9, &r);
    assert_string_equal(r.source, "fit");
    assert_int_equal(r.n_models, 0);
    assert_true(isnan(r.bw) && isnan(r.lo) && isnan(r.hi));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rpi5_by_hand),
        cmocka_unit_test(test_bytes_at_depth),
        cmocka_unit_test(test_depth_cost),
        cmocka_unit_test(test_roof_parts),
        cmocka_unit_test(test_roof_parts_json),
        cmocka_unit_test(test_roofs_at),
        cmocka_unit_test(test_fit_and_interval),
        cmocka_unit_test(test_format_rate),
        cmocka_unit_test(test_caveats),
        cmocka_unit_test(test_no_fit),
        cmocka_unit_test(test_resident_convention),
        cmocka_unit_test(test_synth_model_in_memory),
        cmocka_unit_test(test_last_bundle),
        cmocka_unit_test(test_expect_rows),
        cmocka_unit_test(test_leave_one_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
