/* SPDX-License-Identifier: MIT */
/* test_calib.c: unit tests of the calibration's pure parts: the type table and the shapes
 * (model/calib_plan.h), the arithmetic, the section, the key and the cache (bundle/calib.h),
 * and the models' names (measure/calib_models.h). Values are computed by hand in the comments. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rl_test.h"

#include "base/rl_json.h"
#include "bundle/bundle.h"
#include "bundle/calib.h"
#include "measure/lbench.h"
#include "measure/advise_synth.h"
#include "measure/calib_models.h"
#include "model/calib_plan.h"
#include "model/ggml_types.h"
#include "model/gguf_model.h"
#include "model/synth.h"
#include "model/synth_write.h"

/* Every ggml type of the pinned build is in the table once, under its own name; each is made
 * one way, with a file type or a reason. */
static void test_types(void **state)
{
    (void)state;
    size_t known = 0;
    for (uint32_t id = 0; id < rl_ggml_type_count(); id++) {
        const rl_ggml_type_info *gi = rl_ggml_type_get(id);
        if (!gi)
            continue;
        known++;
        const rl_cal_type *t = rl_cal_type_find(id);
        assert_non_null(t);
        assert_string_equal(t->name, gi->name);
        assert_ptr_equal(rl_cal_type_by_name(gi->name), t);
    }
    assert_int_equal(rl_cal_type_count(), known);
    size_t synth = 0, quant = 0, none = 0;
    for (size_t i = 0; i < rl_cal_type_count(); i++) {
        const rl_cal_type *t = rl_cal_type_at(i);
        synth += t->make == RL_CAL_SYNTH;
        quant += t->make == RL_CAL_QUANTIZE;
        none += t->make == RL_CAL_NONE;
        if (t->make == RL_CAL_SYNTH)
            assert_non_null(rl_synth_type_name(t->type)); /* synth writes it */
        if (t->make == RL_CAL_QUANTIZE)
            assert_true(t->ftype && *t->ftype);
        if (t->make == RL_CAL_NONE)
            assert_true(t->reason && strlen(t->reason) > 20);
        assert_true(rl_cal_type_measurable(t) == (t->make != RL_CAL_NONE));
    }
    assert_int_equal(synth, 5); /* F32 F16 BF16 Q8_0 Q4_0 */
    assert_int_equal(quant, 22);
    assert_int_equal(none, 8); /* NVFP4 Q8_1 Q8_K I8 I16 I32 I64 F64 */
    assert_string_equal(rl_cal_type_at(0)->name, "F32");
    assert_string_equal(rl_cal_type_by_name("q4_k")->ftype, "Q4_K_S");
    assert_string_equal(rl_cal_type_by_name("MXFP4")->ftype, "MXFP4_MOE");
    assert_null(rl_cal_type_by_name("Q4_2"));
    assert_null(rl_cal_type_by_name(NULL));
    assert_null(rl_cal_type_at(rl_cal_type_count()));
    assert_false(rl_cal_type_measurable(NULL));
    assert_null(strstr(rl_cal_type_by_name("Q8_K")->reason, "imatrix"));
    assert_string_equal(rl_cal_role_name(RL_CAL_DEEP), "deep");
    assert_null(rl_cal_role_name(RL_CAL_N_ROLES));
    assert_int_equal(rl_cal_role_by_name("stream"), RL_CAL_STREAM);
    assert_int_equal(rl_cal_role_by_name("x"), -1);
}

/* The bytes of a shape, by hand: Q4_0 (18 bytes per 32), n_embd 256, n_ff 512, 4 layers, one
 * KV head (128 wide), 512 tokens. A layer: 2 x 256^2 + 2 x 256 x 128 + 3 x 256 x 512 = 589824
 * elements = 331776 bytes, and two F32 norms of 256 = 2048: 333824; 4 layers 1335296; the head
 * 512 x 256 / 32 x 18 = 73728 and its norm 1024. */
static void test_shape_bytes(void **state)
{
    (void)state;
    rl_cal_shape s = {4, 256, 512, 2, 1, 512};
    assert_int_equal(rl_cal_shape_bytes(&s, RL_GGML_Q4_0), 1335296 + 73728 + 1024);
    /* F16: the layer's 589824 elements are 1179648 bytes */
    assert_int_equal(rl_cal_shape_bytes(&s, RL_GGML_F16),
                     4 * (1179648 + 2048) + 512 * 256 * 2 + 1024);
    assert_int_equal(rl_cal_shape_bytes(&s, 4), 0); /* a removed id */
}

/* The plan's formula is the one the GGUF reader makes of the file synth writes. */
static void test_shape_bytes_match_file(void **state)
{
    (void)state;
    rl_cal_shape s = {4, 512, 768, 4, 1, 512};
    rl_synth_config cfg;
    rl_cal_synth_config(&s, RL_GGML_Q8_0, &cfg);
    assert_int_equal(cfg.type, RL_GGML_Q8_0);
    assert_false(cfg.tied);
    rl_synth_plan *plan = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_synth_plan_build(&cfg, &plan, &e), RL_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/calib-shape.%d.gguf", getenv("RL_TMP"), (int)getpid());
    assert_int_equal(rl_synth_write(plan, path, NULL, &e), RL_OK);
    assert_true(rl_synth_file_matches(path, plan));
    rl_gguf_model m;
    assert_int_equal(rl_gguf_model_load(path, &m, &e), RL_OK);
    assert_int_equal(m.streamed_bytes, rl_cal_shape_bytes(&s, RL_GGML_Q8_0));
    assert_int_equal(m.n_layer, 4);
    /* the matrices decode reads, as the file counts them: the Q8_0 ones but the embedding */
    assert_int_equal(m.types[0].type, RL_GGML_Q8_0);
    assert_int_equal(m.types[0].n_matrices, rl_cal_shape_matrices(&s));
    assert_int_equal(rl_cal_shape_matrices(&s), 29);
    /* and their rows: 4 x (3 x 512 + 2 x 128 + 2 x 768) + 512 */
    assert_int_equal(m.types[0].n_rows, rl_cal_shape_rows(&s));
    assert_int_equal(rl_cal_shape_rows(&s), 13824);
    rl_gguf_model_free(&m);
    rl_synth_plan_free(plan);
    unlink(path);
    /* a type synth does not write is made from an F16 of the shape */
    rl_cal_synth_config(&s, RL_GGML_Q4_K, &cfg);
    assert_int_equal(cfg.type, RL_GGML_F16);
}

/* Targets from the cache size, and the four shapes: rows multiples of 256, each of small, mid
 * and stream twice the one before at least, deep small's at 16 layers. */
static void test_plan_shapes(void **state)
{
    (void)state;
    uint64_t t[RL_CAL_N_ROLES];
    rl_cal_targets(32ull << 20, t);
    assert_int_equal(t[RL_CAL_SMALL], 4ull << 20);
    assert_int_equal(t[RL_CAL_MID], 16ull << 20);
    assert_int_equal(t[RL_CAL_STREAM], 256ull << 20);
    rl_cal_targets(0, t); /* unknown: 32 MiB */
    assert_int_equal(t[RL_CAL_SMALL], 4ull << 20);
    for (size_t i = 0; i < rl_cal_type_count(); i++) {
        const rl_cal_type *ty = rl_cal_type_at(i);
        if (!rl_cal_type_measurable(ty))
            continue;
        for (uint64_t llc = 1ull << 20; llc <= 64ull << 20; llc *= 4) {
            rl_cal_shape s[RL_CAL_N_ROLES];
            assert_true(rl_cal_plan_shapes(ty->type, llc, s));
            uint64_t b[RL_CAL_N_ROLES];
            for (int r = 0; r < RL_CAL_N_ROLES; r++) {
                b[r] = rl_cal_shape_bytes(&s[r], ty->type);
                assert_int_equal(s[r].n_embd % 256, 0);
                assert_int_equal(s[r].n_ff % 256, 0);
                assert_true(s[r].n_embd >= 256 && s[r].n_ff >= 256);
                assert_int_equal(s[r].n_head * 128, s[r].n_embd);
                assert_int_equal(s[r].n_head_kv, 1);
            }
            assert_true(b[RL_CAL_MID] >= 2 * b[RL_CAL_SMALL]);
            assert_true(b[RL_CAL_STREAM] >= 2 * b[RL_CAL_MID]);
            assert_true(b[RL_CAL_WIDE] >= 2 * b[RL_CAL_MID]);
            assert_int_equal(s[RL_CAL_WIDE].n_layer, RL_CAL_WIDE_LAYERS);
            assert_true(s[RL_CAL_WIDE].n_embd > s[RL_CAL_STREAM].n_embd || llc == 1ull << 20);
            assert_int_equal(s[RL_CAL_DEEP].n_layer, RL_CAL_DEEP_LAYERS);
            assert_int_equal(s[RL_CAL_SMALL].n_layer, RL_CAL_N_LAYER);
            assert_int_equal(s[RL_CAL_MID].n_layer, RL_CAL_N_LAYER);
            assert_int_equal(s[RL_CAL_STREAM].n_layer, RL_CAL_STREAM_LAYERS);
            assert_int_equal(s[RL_CAL_DEEP].n_embd, s[RL_CAL_SMALL].n_embd);
            assert_int_equal(s[RL_CAL_DEEP].n_ff, s[RL_CAL_SMALL].n_ff);
            if (llc == 16ull << 20 && rl_ggml_type_bpw(ty->type) < 5) { /* near the targets */
                assert_true(b[RL_CAL_SMALL] > (2ull << 20) * 6 / 10 &&
                            b[RL_CAL_SMALL] < (3ull << 20));
                assert_true(b[RL_CAL_STREAM] > (128ull << 20) * 9 / 10);
                assert_true(b[RL_CAL_STREAM] < (128ull << 20) * 11 / 10);
                assert_true(b[RL_CAL_WIDE] > (128ull << 20) * 9 / 10);
                assert_true(b[RL_CAL_WIDE] < (128ull << 20) * 11 / 10);
            }
        }
    }
    rl_cal_shape s[RL_CAL_N_ROLES];
    assert_false(rl_cal_plan_shapes(4, 32ull << 20, s));
    /* Q4_0 at 32 MiB, by the closed form: 4 MiB / 0.5625 = 7456540 elements, n_embd =
     * round256(sqrt(7456540 / 44)) = round256(411.7) = 512; n_ff = round256((7456540 - 4 x (2 x
     * 512^2 + 2 x 512 x 128) - 512 x 512) / (12 x 512)) = round256(4572956 / 6144 = 744.3) = 768 */
    assert_true(rl_cal_shape_for(RL_GGML_Q4_0, 4ull << 20, RL_CAL_N_LAYER, &s[0]));
    assert_int_equal(s[0].n_embd, 512);
    assert_int_equal(s[0].n_ff, 768);
    /* the stream model at 32 MiB: 256 MiB / 0.5625 = 477218588 elements at 16 layers: n_embd =
     * round256(sqrt(477218588 / 176) = 1646.7) = 1536; n_ff = round256((477218588 - 16 x (2 x
     * 1536^2 + 2 x 1536 x 128) - 512 x 1536) / (48 x 1536)) = round256(5352.7) = 5376 */
    assert_true(rl_cal_plan_shapes(RL_GGML_Q4_0, 32ull << 20, s));
    assert_int_equal(s[RL_CAL_STREAM].n_layer, 16);
    assert_int_equal(s[RL_CAL_STREAM].n_embd, 1536);
    assert_int_equal(s[RL_CAL_STREAM].n_ff, 5376);
}

/* A point of the arithmetic: tok/s from the per-token time in us. */
static rl_cal_pt pt(int role, double bytes, double layers, double us)
{
    rl_cal_pt p = {role, bytes, layers, 7 * layers + 1, 0, 1e6 / us, true};
    return p;
}

/* small 4e6 bytes in 200 us, mid 16e6 in 500: slope 2.5e-5 us/byte, so 40 GB/s and a fixed
 * 100 us; deep 16 layers, 16e6 bytes in 740 us: 740 - 400 = 340 us of layers, (340 - 100) /
 * 12 = 20 us a layer, base 100 - 4 x 20 = 20 us; stream 256e6 bytes in 8100 us: 256e6 / 8000
 * us = 32 GB/s at 4 layers; at 16 layers it takes 12 x 20 us more, 8340 us, and is 32 GB/s
 * once the fixed cost at its own layers (100 + 12 x 20) is subtracted. */
static void test_derive(void **state)
{
    (void)state;
    rl_cal_pt p[4] = {pt(RL_CAL_STREAM, 256e6, 4, 8100), pt(RL_CAL_SMALL, 4e6, 4, 200),
                      pt(RL_CAL_MID, 16e6, 4, 500), pt(RL_CAL_DEEP, 16e6, 16, 740)};
    rl_cal_result r;
    rl_cal_derive(p, 4, &r);
    assert_true(r.has_fit && r.has_compute && r.has_fixed && r.has_per_layer && r.has_base &&
                r.has_stream && r.fixed_subtracted);
    assert_near(r.compute_GBs, 40.0, 1e-9);
    assert_near(r.fixed_us, 100.0, 1e-9);
    assert_near(r.per_layer_us, 20.0, 1e-9);
    assert_near(r.base_us, 20.0, 1e-9);
    assert_near(r.stream_GBs, 32.0, 1e-9);
    p[0] = pt(RL_CAL_STREAM, 256e6, 16, 8340);
    rl_cal_derive(p, 4, &r);
    assert_near(r.stream_GBs, 32.0, 1e-9);
    p[0] = pt(RL_CAL_STREAM, 256e6, 4, 8100);

    /* a fixed cost below 0 (small 4e6 in 50 us, mid 16e6 in 500): intercept -100; the stream
     * rate then over the whole time: 256e6 / 8100 us = 31.6049... GB/s, not subtracted */
    p[1] = pt(RL_CAL_SMALL, 4e6, 4, 50);
    rl_cal_derive(p, 4, &r);
    assert_true(r.has_compute && !r.has_fixed && !r.has_per_layer && !r.has_base);
    assert_near(r.compute_GBs, 1e-3 / (450.0 / 12e6), 1e-9);
    assert_non_null(strstr(r.fixed_why, "-100.0 us at 0 bytes"));
    assert_non_null(strstr(r.per_layer_why, "needs the compute roof and the fixed cost"));
    assert_true(r.has_stream && !r.fixed_subtracted);
    assert_near(r.stream_GBs, 256e3 / 8100.0, 1e-9);

    /* mid no slower than small (both 500 us: a slope of exactly 0): no compute roof */
    p[1] = pt(RL_CAL_SMALL, 4e6, 4, 500);
    rl_cal_derive(p, 4, &r);
    assert_false(r.has_compute);
    assert_non_null(strstr(r.compute_why, "took no longer per token"));

    /* a failed mid run: nothing from the line, the stream over its whole time */
    p[1] = pt(RL_CAL_SMALL, 4e6, 4, 200);
    p[2].ok = false;
    rl_cal_derive(p, 4, &r);
    assert_false(r.has_fit || r.has_compute || r.has_fixed);
    assert_non_null(strstr(r.compute_why, "no decode rate from the mid model"));
    assert_near(r.stream_GBs, 256e3 / 8100.0, 1e-9);

    /* per layer below 0: deep 16e6 in 450 us gives (450 - 400 - 100) / 12 < 0 */
    p[2].ok = true;
    p[3] = pt(RL_CAL_DEEP, 16e6, 16, 450);
    rl_cal_derive(p, 4, &r);
    assert_true(r.has_fixed && !r.has_per_layer && !r.has_base);
    assert_non_null(strstr(r.per_layer_why, "-4.17 us each"));

    /* base below 0: deep 16e6 in 1000 us: (1000 - 400 - 100) / 12 = 41.67 a layer, 100 - 166.7 */
    p[3] = pt(RL_CAL_DEEP, 16e6, 16, 1000);
    rl_cal_derive(p, 4, &r);
    assert_true(r.has_per_layer && !r.has_base);
    assert_near(r.per_layer_us, 500.0 / 12.0, 1e-9);
    assert_non_null(strstr(r.base_why, "below 0"));

    /* the stream no slower than the fixed cost, and no stream run at all */
    p[0] = pt(RL_CAL_STREAM, 256e6, 4, 90);
    rl_cal_derive(p, 4, &r);
    assert_false(r.has_stream);
    assert_non_null(strstr(r.stream_why, "no more than the fixed cost"));
    rl_cal_derive(p + 1, 3, &r);
    assert_false(r.has_stream);
    assert_non_null(strstr(r.stream_why, "no decode rate from the stream model"));
    /* a deep model no deeper than small */
    p[3] = pt(RL_CAL_DEEP, 16e6, 4, 740);
    rl_cal_derive(p, 4, &r);
    assert_non_null(strstr(r.per_layer_why, "no more layers"));
}

/* Tokens per run: 1.5 s of generation over 3 repetitions, between 8 and n_gen. */
/* The per-matrix split (the line through small and mid and the deep model as in test_derive:
 * fixed 100 us at 4 layers, 20 us a layer): a machine that streams 40 GB/s (2.5e-5 us a byte)
 * and pays 20 us per matrix. stream: 16 layers (113 matrices), 256e6 bytes: 6400 + 2260 =
 * 8660 us beyond its fixed cost of 100 + 12 x 20 = 340, so 9000 us a token; wide: 4 layers (29
 * matrices), 256e6 bytes: 6400 + 580 = 6980 beyond 100, 7080 us. Back: per matrix 20 us, the
 * stream limit 40 GB/s, the stream rate 256e6 / 8660 us. */
static void test_derive_per_matrix(void **state)
{
    (void)state;
    rl_cal_pt p[5] = {pt(RL_CAL_SMALL, 4e6, 4, 200), pt(RL_CAL_MID, 16e6, 4, 500),
                      pt(RL_CAL_DEEP, 16e6, 16, 740), pt(RL_CAL_STREAM, 256e6, 16, 9000),
                      pt(RL_CAL_WIDE, 256e6, 4, 7080)};
    assert_near(p[3].n_matrices, 113, 0);
    rl_cal_result r;
    rl_cal_derive(p, 5, &r);
    assert_true(r.has_stream && r.has_per_matrix);
    assert_near(r.per_matrix_us, 20.0, 1e-9);
    assert_near(r.stream_limit_GBs, 40.0, 1e-9);
    assert_near(r.stream_GBs, 256e3 / 8660.0, 1e-9);
    /* rows unknown: no row split, and why */
    assert_false(r.has_per_row);
    assert_non_null(strstr(r.per_row_why, "no time per row"));
    /* with rows, the same times split by them: stream 40000 rows, wide 20000: 2260 - 580 us
     * over 20000 rows = 84 ns a row; 8660 - 40000 x 0.084 = 5300 us for 256e6 bytes */
    p[3].n_rows = 40000;
    p[4].n_rows = 20000;
    rl_cal_derive(p, 5, &r);
    assert_true(r.has_per_row && r.has_per_matrix);
    assert_near(r.per_row_ns, 84.0, 1e-9);
    assert_near(r.row_limit_GBs, 256e3 / 5300.0, 1e-9);
    p[3].n_rows = p[4].n_rows = 0;
    /* no per-matrix cost: wide as fast per byte as stream (6400 beyond 100): exactly 0 */
    p[3] = pt(RL_CAL_STREAM, 256e6, 16, 6740);
    p[4] = pt(RL_CAL_WIDE, 256e6, 4, 6500);
    rl_cal_derive(p, 5, &r);
    assert_true(r.has_per_matrix);
    assert_true(r.per_matrix_us == 0.0);
    assert_near(r.stream_limit_GBs, 40.0, 1e-9);
    /* wide slower per byte than stream: below 0, unavailable, the two times in the reason */
    p[4] = pt(RL_CAL_WIDE, 256e6, 4, 6600);
    rl_cal_derive(p, 5, &r);
    assert_false(r.has_per_matrix);
    assert_non_null(strstr(r.per_matrix_why, "wide model (29 matrices, 6500.0 us"));
    assert_non_null(strstr(r.per_matrix_why, "stream model (113, 6400.0 us)"));
    /* no wide run, and a failed one */
    rl_cal_derive(p, 4, &r);
    assert_false(r.has_per_matrix);
    assert_non_null(strstr(r.per_matrix_why, "no decode rate from the wide model"));
    p[4].ok = false;
    rl_cal_derive(p, 5, &r);
    assert_false(r.has_per_matrix);
    /* no stream rate: its reason */
    p[4].ok = true;
    p[3].ok = false;
    rl_cal_derive(p, 5, &r);
    assert_false(r.has_per_matrix);
    assert_non_null(strstr(r.per_matrix_why, "no decode rate from the stream model"));
}

static void test_matrix_split(void **state)
{
    (void)state;
    double c = -1, r = -1;
    /* 1000 bytes and 10 matrices in 30 us, 1000 bytes and 2 matrices in 14: r 2, c 0.01 */
    assert_true(rl_cal_matrix_split(1000, 10, 30, 1000, 2, 14, &c, &r));
    assert_near(r, 2.0, 1e-12);
    assert_near(c, 0.01, 1e-12);
    /* the same matrices per byte: no split; r below 0: none, nothing written */
    c = r = -1;
    assert_false(rl_cal_matrix_split(1000, 10, 30, 2000, 20, 60, &c, &r));
    assert_false(rl_cal_matrix_split(1000, 10, 14, 1000, 2, 30, &c, &r));
    assert_false(rl_cal_matrix_split(1000, 0, 14, 1000, 2, 30, &c, &r));
    /* a small per-matrix cost is kept, not rounded: c 0.01, r 1e-4 (10.001 and 10.0002 us) */
    assert_true(rl_cal_matrix_split(1000, 10, 10.001, 1000, 2, 10.0002, &c, &r));
    assert_near(r, 1e-4, 1e-12);
    c = r = -1;
    /* c below 0: 1000 bytes, 10 matrices in 30 and 1000 bytes, 2 in 2: r 3.5, c -0.005 */
    assert_false(rl_cal_matrix_split(1000, 10, 30, 1000, 2, 2, &c, &r));
    assert_true(c == -1 && r == -1);
}

static void test_tokens(void **state)
{
    (void)state;
    assert_int_equal(rl_cal_tokens(0, 1000000, 3, 64, 1.5), 64);      /* nothing known yet */
    assert_int_equal(rl_cal_tokens(1e-4, 1000000, 3, 64, 1.5), 64);   /* 100 us a token: 5000 */
    assert_int_equal(rl_cal_tokens(5e-5, 256000000, 3, 64, 1.5), 39); /* 12.8 ms: 39.06 */
    assert_int_equal(rl_cal_tokens(2e-3, 256000000, 3, 64, 1.5), 8); /* 0.512 s: 0.98, at least 8 */
    assert_int_equal(rl_cal_tokens(5e-5, 256000000, 3, 5, 1.5), 5);  /* n_gen under the minimum */
    assert_int_equal(rl_cal_tokens(5e-5, 256000000, 3, 17, 1.5), 17);
    /* exactly at a boundary: 1.5e6 / (1 x 1e6 x 0.0234375) = 64 */
    assert_int_equal(rl_cal_tokens(0.0234375, 1000000, 1, 64, 1.5), 64);
    assert_int_equal(rl_cal_tokens(0.1875, 1000000, 1, 64, 1.5), 8); /* exactly 8 */
    assert_int_equal(rl_cal_tokens(0.125, 1000000, 1, 64, 1.5), 12);
}

static void test_key(void **state)
{
    (void)state;
    rl_cal_key a, b, c, d;
    rl_cal_key_make("AMD EPYC", "fpu avx2", "de3ff81", &a);
    rl_cal_key_make("AMD EPYC", "fpu avx2", "de3ff81", &b);
    rl_cal_key_make("AMD EPYC", "fpu avx2 avx512f", "de3ff81", &c);
    rl_cal_key_make("AMD EPYC", "fpu avx2", "0123abc", &d);
    assert_string_equal(a.id, b.id);
    assert_int_equal(strlen(a.id), 16);
    assert_string_not_equal(a.id, c.id); /* the flags */
    assert_string_not_equal(a.flags_hash, c.flags_hash);
    assert_string_not_equal(a.id, d.id); /* the build */
    assert_string_equal(a.flags_hash, d.flags_hash);
    /* FNV-1a 64 of "" is the offset basis */
    rl_cal_key_make(NULL, NULL, "", &b);
    assert_string_equal(b.cpu, "unknown");
    assert_string_equal(b.build, "unknown");
    assert_string_equal(b.flags_hash, "cbf29ce484222325");
    cJSON *j = rl_cal_key_json(&a);
    assert_true(rl_cal_key_matches(j, &a));
    assert_false(rl_cal_key_matches(j, &c));
    assert_false(rl_cal_key_matches(j, &d));
    assert_string_equal(rl_json_get_str(j, "llama_cpp_build"), "de3ff81");
    cJSON_Delete(j);
    /* from a bundle's environment and llama_cpp */
    cJSON *bundle = cJSON_Parse("{\"environment\": {\"cpu\": \"AMD EPYC\", \"cpu_flags\": \"fpu "
                                "avx2\"}, \"llama_cpp\": {\"build_commit\": \"de3ff81\"}}");
    rl_cal_key_of_bundle(bundle, &b);
    assert_string_equal(b.id, a.id);
    cJSON_Delete(bundle);
}

/* A point with a run as the sweep leaves it: status ok, the decode rate from samples. */
static cJSON *made_point(int role, const rl_cal_shape *s, uint64_t bytes, double us, bool ok)
{
    cJSON *p = rl_cal_point_new(role, s, "/c/m.gguf", bytes, 2);
    assert_non_null(p);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(p, "run");
    cJSON_AddStringToObject(run, "status", ok ? "ok" : "failed");
    double samples[2] = {1e6 / us, 1e6 / us};
    cJSON_AddItemToObject(run, "decode", rl_bundle_rate(samples, ok ? 2 : 0, "tok/s", "none"));
    return p;
}

static cJSON *made_type(const rl_cal_shape sh[RL_CAL_N_ROLES], bool stream_ok)
{
    cJSON *t = rl_cal_type_new("Q4_0");
    cJSON *pts = cJSON_GetObjectItemCaseSensitive(t, "points");
    cJSON_AddItemToArray(pts, made_point(RL_CAL_SMALL, &sh[0], 4000000, 200, true));
    cJSON_AddItemToArray(pts, made_point(RL_CAL_MID, &sh[1], 16000000, 500, true));
    cJSON_AddItemToArray(pts, made_point(RL_CAL_DEEP, &sh[2], 16000000, 740, true));
    cJSON_AddItemToArray(pts, made_point(RL_CAL_STREAM, &sh[3], 256000000, 8340, stream_ok));
    cJSON_AddItemToArray(pts, made_point(RL_CAL_WIDE, &sh[4], 256000000, 7260, true));
    return t;
}

/* The rate from llama-bench's records: a tg record of 64 tokens whose three repetitions took
 * 12.8 ms each is 5000 tok/s, so 200 us a token; with a 4e6-byte model that is 20 GB/s. */
static void test_rate_from_records(void **state)
{
    (void)state;
    const char *text = "{\"n_prompt\": 0, \"n_gen\": 64, \"n_depth\": 0, \"n_threads\": 2, "
                       "\"avg_ts\": 5000, \"samples_ns\": [12800000, 12800000, 12800000]}";
    rl_lbench_record rec;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_record_from_json(cJSON_Parse(text), &rec, &e), RL_OK);
    rl_cal_shape s = {4, 512, 768, 4, 1, 512};
    cJSON *t = rl_cal_type_new("Q4_0");
    cJSON *p = rl_cal_point_new(RL_CAL_SMALL, &s, "/c/m.gguf", 4000000, 2);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(p, "run");
    cJSON_AddStringToObject(run, "status", "ok");
    cJSON_AddItemToObject(run, "decode",
                          rl_bundle_lbench_rate(&rec, 1, RL_LBENCH_DECODE, 0, "none"));
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(t, "points"), p);
    rl_cal_pt pts[1];
    assert_int_equal(rl_cal_points_of(t, pts, 1), 1);
    assert_true(pts[0].ok);
    assert_near(pts[0].tok_s, 5000.0, 1e-9);
    assert_true(rl_cal_type_finish(t));
    const cJSON *rate = rl_json_get(p, "rate");
    assert_near(rl_json_num_or(rate, "us_per_token", 0), 200.0, 1e-9);
    assert_near(rl_json_num_or(rate, "GBs", 0), 20.0, 1e-9);
    /* one point: no line, every value unavailable with its reason */
    assert_true(cJSON_IsFalse(rl_json_get(rl_json_get(t, "compute_roof"), "available")));
    assert_non_null(strstr(rl_json_get_str(rl_json_get(t, "compute_roof"), "reason"), "mid model"));
    rl_lbench_record_free(&rec);
    cJSON_Delete(t);
}

/* The section's type entry: points read back, the values derived into it. */
static void test_type_entry(void **state)
{
    (void)state;
    rl_cal_shape sh[RL_CAL_N_ROLES];
    assert_true(rl_cal_plan_shapes(RL_GGML_Q4_0, 32ull << 20, sh));
    cJSON *t = made_type(sh, true);
    assert_string_equal(rl_json_get_str(t, "source"), "measured");
    rl_cal_pt p[5];
    assert_int_equal(rl_cal_points_of(t, p, 5), 5);
    assert_int_equal(p[4].role, RL_CAL_WIDE);
    assert_near(p[4].n_matrices, 29, 0);
    assert_near(p[3].n_matrices, 113, 0);
    assert_int_equal(p[2].role, RL_CAL_DEEP);
    assert_near(p[2].n_layer, RL_CAL_DEEP_LAYERS, 0);
    assert_near(p[1].bytes, 16e6, 0);
    assert_near(p[0].tok_s, 5000.0, 1e-9);
    assert_int_equal(rl_cal_points_of(t, p, 2), 2);
    assert_true(rl_cal_type_finish(t));
    double v;
    assert_true(rl_json_get_num(rl_json_get(t, "compute_roof"), "GBs", &v));
    assert_near(v, 40.0, 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "fixed"), "us", &v));
    assert_near(v, 100.0, 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "per_layer"), "us", &v));
    assert_near(v, 20.0, 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "base"), "us", &v));
    assert_near(v, 20.0, 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "stream"), "GBs", &v));
    assert_near(v, 32.0, 1e-9);
    /* stream 8000 us beyond 340 (113 matrices), wide 7160 beyond 100 (29): 10 us a matrix,
     * 256e6 bytes in 8000 - 1130 = 6870 us */
    assert_true(rl_json_get_num(rl_json_get(t, "per_matrix"), "us", &v));
    assert_near(v, 10.0, 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "per_matrix"), "stream_limit_GBs", &v));
    assert_near(v, 256e3 / 6870.0, 1e-9);
    /* and by rows, from the shapes: 840 us over the rows stream has beyond wide's */
    double rs = (double)rl_cal_shape_rows(&sh[RL_CAL_STREAM]),
           rw = (double)rl_cal_shape_rows(&sh[RL_CAL_WIDE]);
    assert_near(p[3].n_rows, rs, 0);
    assert_true(rl_json_get_num(rl_json_get(t, "per_row"), "ns", &v));
    assert_near(v, 1e3 * 840 / (rs - rw), 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "per_row"), "stream_limit_GBs", &v));
    assert_near(v, 256e3 / (8000 - rs * 840 / (rs - rw)), 1e-9);
    assert_true(rl_json_get_num(rl_json_get(t, "fit"), "intercept_us", &v));
    assert_near(v, 100.0, 1e-9);
    const cJSON *r0 = rl_json_get(cJSON_GetArrayItem(rl_json_get(t, "points"), 0), "rate");
    assert_true(rl_json_get_num(r0, "us_per_token", &v));
    assert_near(v, 200.0, 1e-9);
    assert_true(rl_json_get_num(r0, "GBs", &v));
    assert_near(v, 20.0, 1e-9); /* 4e6 bytes / 200 us */
    assert_true(rl_cal_type_passes(t, sh) == 1);
    /* finishing again replaces, not duplicates */
    assert_true(rl_cal_type_finish(t));
    assert_int_equal(cJSON_GetArraySize(t), 13);
    /* another shape, a failed run, a missing role: not reusable */
    rl_cal_shape other[RL_CAL_N_ROLES];
    memcpy(other, sh, sizeof other);
    other[RL_CAL_MID].n_ff += 256;
    assert_int_equal(rl_cal_type_passes(t, other), 0);
    cJSON *bad = made_type(sh, false);
    assert_true(rl_cal_type_finish(bad));
    assert_int_equal(rl_cal_type_passes(bad, sh), 0);
    const cJSON *st = rl_json_get(bad, "stream");
    assert_true(cJSON_IsFalse(rl_json_get(st, "available")));
    assert_non_null(strstr(rl_json_get_str(st, "reason"), "stream model"));
    cJSON_Delete(cJSON_DetachItemFromArray(cJSON_GetObjectItemCaseSensitive(bad, "points"), 3));
    assert_int_equal(rl_cal_type_passes(bad, sh), 0);
    /* the set's entry by name */
    cJSON *set = cJSON_CreateObject();
    cJSON *types = cJSON_AddArrayToObject(set, "types");
    cJSON_AddItemToArray(types, t);
    assert_ptr_equal(rl_cal_set_type(set, "Q4_0"), t);
    assert_null(rl_cal_set_type(set, "Q8_0"));
    cJSON_Delete(set);
    cJSON_Delete(bad);
}

/* A later pass's run on a point: us per token; ok or the status given. */
static cJSON *pass_run(cJSON *point, int pass, double us, const char *status)
{
    cJSON *run = rl_cal_point_add_run(point, pass, 2);
    assert_non_null(run);
    cJSON_AddStringToObject(run, "status", status);
    double samples[2] = {1e6 / us, 1e6 / us};
    bool ok = strcmp(status, "ok") == 0;
    cJSON_AddItemToObject(run, "decode", rl_bundle_rate(samples, ok ? 2 : 0, "tok/s", "none"));
    return run;
}

static double run_mean(const cJSON *run)
{
    return rl_json_num_or(rl_json_get(rl_json_get(run, "decode"), "stats"), "mean", 0);
}

/* Passes: the faster run of a point is used and the others kept; an unfinished run is not a
 * pass; a type holds the fewest passes of its points; a later pass generates as many tokens. */
static void test_passes(void **state)
{
    (void)state;
    rl_cal_shape sh[RL_CAL_N_ROLES];
    assert_true(rl_cal_plan_shapes(RL_GGML_Q4_0, 32ull << 20, sh));
    cJSON *t = made_type(sh, true);
    cJSON *small = rl_cal_point_of(t, RL_CAL_SMALL);
    assert_ptr_equal(small, cJSON_GetArrayItem(rl_json_get(t, "points"), 0));
    assert_ptr_equal(rl_cal_point_of(t, RL_CAL_WIDE),
                     cJSON_GetArrayItem(rl_json_get(t, "points"), 4));
    assert_int_equal(rl_cal_point_runs(small), 1);
    assert_near(rl_json_num_or(rl_json_get(small, "run"), "pass", 0), 1, 0);
    /* pass 2 is faster (100 us a token against 200): it is used, pass 1 kept */
    cJSON *r2 = pass_run(small, 2, 100, "ok");
    assert_near(rl_json_num_or(r2, "depth", -1), 0, 0);
    assert_near(rl_json_num_or(r2, "threads", -1), 2, 0);
    assert_int_equal(rl_cal_point_runs(small), 2);
    assert_true(rl_cal_point_choose(small));
    assert_near(run_mean(rl_json_get(small, "run")), 10000, 1e-9);
    assert_near(rl_json_num_or(rl_json_get(small, "run"), "pass", 0), 2, 0);
    cJSON *others = cJSON_GetObjectItemCaseSensitive(small, "other_runs");
    assert_int_equal(cJSON_GetArraySize(others), 1);
    assert_near(rl_json_num_or(cJSON_GetArrayItem(others, 0), "pass", 0), 1, 0);
    assert_near(run_mean(cJSON_GetArrayItem(others, 0)), 5000, 1e-9);
    /* the values come from the faster: small at 100 us, mid at 500 over 12e6 more bytes */
    assert_true(rl_cal_type_finish(t));
    assert_near(rl_json_num_or(rl_json_get(t, "compute_roof"), "GBs", 0), 1e-3 * 12e6 / 400, 1e-9);
    /* pass 3 is slower: pass 2 stays; choosing again changes nothing */
    pass_run(small, 3, 400, "ok");
    assert_true(rl_cal_point_choose(small));
    assert_true(rl_cal_point_choose(small));
    assert_near(rl_json_num_or(rl_json_get(small, "run"), "pass", 0), 2, 0);
    assert_int_equal(cJSON_GetArraySize(others), 2);
    assert_near(rl_json_num_or(cJSON_GetArrayItem(others, 1), "pass", 0), 3, 0);
    /* an interrupted or running pass is not one the point holds */
    pass_run(small, 4, 50, "interrupted");
    pass_run(small, 5, 50, "running");
    assert_int_equal(rl_cal_point_runs(small), 3);
    assert_true(rl_cal_point_choose(small));
    assert_near(rl_json_num_or(rl_json_get(small, "run"), "pass", 0), 2, 0);
    /* the type holds the fewest passes of its points: 1 until every point has two */
    assert_int_equal(rl_cal_type_passes(t, sh), 1);
    for (int r = RL_CAL_MID; r < RL_CAL_N_ROLES; r++)
        pass_run(rl_cal_point_of(t, r), 2, 1e5, "failed");
    assert_int_equal(rl_cal_type_passes(t, sh), 2);
    /* a failed first pass gives way to an ok second one; none ok: the first stays */
    cJSON *bad = made_type(sh, false);
    cJSON *st = rl_cal_point_of(bad, RL_CAL_STREAM);
    pass_run(st, 2, 9000, "failed");
    assert_true(rl_cal_point_choose(st));
    assert_near(rl_json_num_or(rl_json_get(st, "run"), "pass", 0), 1, 0);
    pass_run(st, 3, 9000, "ok");
    assert_true(rl_cal_point_choose(st));
    assert_near(rl_json_num_or(rl_json_get(st, "run"), "pass", 0), 3, 0);
    assert_string_equal(
        rl_json_get_str(cJSON_GetArrayItem(rl_json_get(st, "other_runs"), 1), "status"), "failed");
    assert_int_equal(rl_cal_type_passes(bad, sh), 1);
    /* a tie (a rate read back from JSON may differ in its last bit) keeps the earlier pass */
    pass_run(st, 4, 9000 / (1 + 1e-12), "ok");
    assert_true(rl_cal_point_choose(st));
    assert_near(rl_json_num_or(rl_json_get(st, "run"), "pass", 0), 3, 0);
    cJSON *r5 = pass_run(st, 5, 9000 / (1 + 1e-6), "ok");
    assert_true(rl_cal_run_faster(r5, rl_json_get(st, "run")));
    assert_false(rl_cal_run_faster(rl_json_get(st, "run"), r5));
    assert_true(rl_cal_run_faster(r5, NULL));
    assert_false(rl_cal_run_faster(NULL, r5));
    assert_true(rl_cal_point_choose(st));
    assert_near(rl_json_num_or(rl_json_get(st, "run"), "pass", 0), 5, 0);
    /* the tokens of the run used: its first record's n_gen, bounded */
    assert_int_equal(rl_cal_point_n_gen(st), 0);
    cJSON *recs = cJSON_AddArrayToObject(cJSON_GetObjectItemCaseSensitive(st, "run"), "records");
    cJSON *rec = cJSON_CreateObject();
    cJSON_AddNumberToObject(rec, "n_gen", 48);
    cJSON_AddItemToArray(recs, rec);
    assert_int_equal(rl_cal_point_n_gen(st), 48);
    cJSON_ReplaceItemInObjectCaseSensitive(rec, "n_gen", cJSON_CreateNumber(2e6));
    assert_int_equal(rl_cal_point_n_gen(st), 0);
    cJSON_ReplaceItemInObjectCaseSensitive(rec, "n_gen", cJSON_CreateNumber(0));
    assert_int_equal(rl_cal_point_n_gen(st), 0);
    assert_null(rl_cal_point_of(cJSON_GetObjectItemCaseSensitive(bad, "fit"), RL_CAL_SMALL));
    cJSON_Delete(bad);
    cJSON_Delete(t);
}

static void test_method(void **state)
{
    (void)state;
    cJSON *m = rl_cal_method_json(32ull << 20, "detected", 64, 3, 1.5, 2);
    assert_string_equal(rl_json_get_str(m, "kind"), "controlled");
    assert_near(rl_json_num_or(m, "n_prompt", -1), 0, 0);
    assert_near(rl_json_num_or(m, "n_gen", -1), 64, 0);
    assert_near(rl_json_num_or(m, "n_layer", -1), RL_CAL_N_LAYER, 0);
    assert_near(rl_json_num_or(rl_json_get(m, "target_bytes"), "stream", -1), 256 << 20, 0);
    assert_string_equal(rl_json_get_str(m, "llc_source"), "detected");
    assert_near(rl_json_num_or(m, "run_s", -1), 1.5, 0);
    assert_near(rl_json_num_or(m, "min_n_gen", -1), 8, 0);
    assert_near(rl_json_num_or(m, "passes", -1), 2, 0);
    cJSON_Delete(m);
}

/* Stored and loaded under its key; another key, thread count, schema or a broken file is none,
 * with the reason. */
static void test_cache(void **state)
{
    (void)state;
    char root[512];
    snprintf(root, sizeof root, "%s/calib-cache.%d", getenv("RL_TMP"), (int)getpid());
    rl_cal_key k, other;
    rl_cal_key_make("CPU", "f", "b1", &k);
    rl_cal_key_make("CPU", "f", "b2", &other);
    rl_cal_shape sh[RL_CAL_N_ROLES];
    assert_true(rl_cal_plan_shapes(RL_GGML_Q4_0, 32ull << 20, sh));
    cJSON *set = cJSON_CreateObject();
    cJSON_AddNumberToObject(set, "threads", 2);
    cJSON *t = made_type(sh, true);
    assert_true(rl_cal_type_finish(t));
    cJSON_AddItemToArray(cJSON_AddArrayToObject(set, "types"), t);
    cJSON *method = rl_cal_method_json(32ull << 20, "detected", 64, 3, 1.5, 2);
    rl_error e = {RL_OK, ""};
    cJSON *got = NULL;
    char note[1024];
    /* nothing cached yet */
    assert_int_equal(rl_cal_cache_load(root, &k, 2, &got, note, sizeof note, &e), RL_OK);
    assert_null(got);
    assert_string_equal(note, "");
    assert_int_equal(rl_cal_cache_store(root, &k, method, set, &e), RL_OK);
    char *path = rl_cal_cache_path(root, &k, 2);
    char want[600];
    snprintf(want, sizeof want, "%s/calibration/%s-t2.json", root, k.id);
    assert_string_equal(path, want);
    assert_int_equal(rl_cal_cache_load(root, &k, 2, &got, note, sizeof note, &e), RL_OK);
    assert_non_null(got);
    assert_int_equal(rl_cal_type_passes(rl_cal_set_type(got, "Q4_0"), sh), 1);
    cJSON_Delete(got);
    /* another thread count: another file, none; the 2-thread file under the 1-thread name */
    assert_int_equal(rl_cal_cache_load(root, &k, 1, &got, note, sizeof note, &e), RL_OK);
    assert_null(got);
    char *p1 = rl_cal_cache_path(root, &k, 1);
    assert_int_equal(link(path, p1), 0);
    assert_int_equal(rl_cal_cache_load(root, &k, 1, &got, note, sizeof note, &e), RL_OK);
    assert_null(got);
    assert_non_null(strstr(note, "at another thread count"));
    unlink(p1);
    free(p1);
    /* another key's file in this key's place */
    cJSON *doc = NULL;
    assert_int_equal(rl_json_read_file(path, 1 << 20, &doc, &e), RL_OK);
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "key", rl_cal_key_json(&other));
    assert_int_equal(rl_json_write_file(path, doc, &e), RL_OK);
    assert_int_equal(rl_cal_cache_load(root, &k, 2, &got, note, sizeof note, &e), RL_OK);
    assert_null(got);
    assert_non_null(strstr(note, "another CPU or llama.cpp build"));
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "schema", cJSON_CreateString("x"));
    assert_int_equal(rl_json_write_file(path, doc, &e), RL_OK);
    assert_int_equal(rl_cal_cache_load(root, &k, 2, &got, note, sizeof note, &e), RL_OK);
    assert_non_null(strstr(note, "not a calibration file"));
    cJSON_Delete(doc);
    FILE *f = fopen(path, "w");
    fputs("{broken", f);
    fclose(f);
    assert_int_equal(rl_cal_cache_load(root, &k, 2, &got, note, sizeof note, &e), RL_OK);
    assert_null(got);
    assert_non_null(strstr(note, "ignoring"));
    unlink(path);
    free(path);
    cJSON_Delete(set);
    cJSON_Delete(method);
}

static void test_model_names(void **state)
{
    (void)state;
    rl_cal_shape s = {4, 512, 768, 4, 1, 512};
    char buf[256];
    rl_cal_model_name(rl_cal_type_by_name("Q4_0"), &s, 0xabcdef0123ull, ".gguf", buf, sizeof buf);
    assert_string_equal(buf, "Q4_0-L4-e512-f768-kv1-v512-seed1.gguf");
    rl_cal_model_name(rl_cal_type_by_name("Q4_K"), &s, 0xabcdef0123ull, ".refused", buf,
                      sizeof buf);
    assert_string_equal(buf, "Q4_K-L4-e512-f768-kv1-v512-seed1-qcdef0123.refused");
    rl_cal_model m;
    rl_error e = {RL_OK, ""};
    /* a type nothing makes, and one that needs llama-quantize without one */
    assert_int_equal(
        rl_cal_model_ensure("/nonexistent", rl_cal_type_by_name("Q8_K"), &s, NULL, &m, &e),
        RL_EINPUT);
    assert_non_null(strstr(e.msg, "Q8_K is not calibrated"));
    assert_int_equal(
        rl_cal_model_ensure("/nonexistent", rl_cal_type_by_name("Q4_K"), &s, NULL, &m, &e),
        RL_EMISSING);
    assert_non_null(strstr(e.msg, "--llama-quantize"));
}

/* A synth type's model: written once, reused (not written) the second time; a refusal kept
 * beside the model is read instead of asking llama-quantize. */
static void test_model_ensure(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/calib-models.%d", getenv("RL_TMP"), (int)getpid());
    rl_cal_shape s = {4, 256, 256, 2, 1, 512};
    rl_cal_model m;
    rl_error e = {RL_OK, ""};
    const rl_cal_type *q8 = rl_cal_type_by_name("Q8_0");
    assert_int_equal(rl_cal_model_ensure(dir, q8, &s, NULL, &m, &e), RL_OK);
    assert_true(m.made);
    assert_non_null(m.path);
    assert_int_equal(m.bytes, rl_cal_shape_bytes(&s, RL_GGML_Q8_0));
    char *first = strdup(m.path);
    rl_cal_model_free(&m);
    assert_int_equal(rl_cal_model_ensure(dir, q8, &s, NULL, &m, &e), RL_OK);
    assert_false(m.made);
    assert_string_equal(m.path, first);
    rl_cal_model_free(&m);
    unlink(first);
    free(first);
    /* a refusal on file: no llama-quantize is run (the binary given does not exist) */
    const rl_cal_type *iq = rl_cal_type_by_name("IQ2_XXS");
    const char *bin = "/nonexistent/llama-quantize";
    char name[256], path[800];
    rl_cal_model_name(iq, &s, rl_quantize_key(bin, NULL), ".refused", name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs("llama-quantize to IQ2_XXS failed (exit 1): this quantization requires an imatrix!\n", f);
    fclose(f);
    assert_int_equal(rl_cal_model_ensure(dir, iq, &s, bin, &m, &e), RL_OK);
    assert_null(m.path);
    assert_false(m.made);
    assert_string_equal(
        m.refused,
        "llama-quantize to IQ2_XXS failed (exit 1): this quantization requires an imatrix!");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_shape_bytes),
        cmocka_unit_test(test_shape_bytes_match_file),
        cmocka_unit_test(test_plan_shapes),
        cmocka_unit_test(test_derive),
        cmocka_unit_test(test_derive_per_matrix),
        cmocka_unit_test(test_matrix_split),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_rate_from_records),
        cmocka_unit_test(test_key),
        cmocka_unit_test(test_type_entry),
        cmocka_unit_test(test_passes),
        cmocka_unit_test(test_method),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_model_names),
        cmocka_unit_test(test_model_ensure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
