/* SPDX-License-Identifier: MIT */
/* test_advise.c: the advice tables derived from the shipped matrix (data/format_matrix.csv,
 * embedded) for each of its cores, pinned to the expected values of llama-roofline.md section
 * 2.8 ("Re-derived advise tables"), plus the strict CSV reader's refusals and the measured
 * (bundle) advice. Checked to fail: with RL_ADV_TIE_PCT set to 3 (the IQ4_XS quality pick moves)
 * and with the matched-byte ratio set to 1.05 (the Golden Cove spread changes). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"

#include "analyse/advise.h"
#include "analyse/advise_matrix.h"
#include "bundle/bundle.h"
#include "base/rl_json.h"

static rl_matrix mx;

static int setup(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    return rl_matrix_builtin(&mx, &e) == RL_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rl_matrix_free(&mx);
    return 0;
}

static const rl_adv_thread *at(const rl_advice *a, int t)
{
    for (int i = 0; i < a->n_per_thread; i++)
        if (a->per_thread[i].threads == t)
            return &a->per_thread[i];
    fail_msg("no thread count %d", t);
    return NULL;
}

static int idx(const rl_advice *a, const char *fmt)
{
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->e[i].row->format, fmt) == 0)
            return i;
    fail_msg("no format %s", fmt);
    return -1;
}

static void test_matrix_shape(void **state)
{
    (void)state;
    assert_int_equal(mx.n, 98);
    const char *cores[8];
    assert_int_equal(rl_matrix_cores(&mx, cores, 8), 3);
    assert_string_equal(cores[0], "cortex-a76");
    assert_string_equal(cores[1], "golden-cove");
    assert_string_equal(cores[2], "gracemont");
    size_t per[3] = {0};
    for (size_t i = 0; i < mx.n; i++)
        for (int c = 0; c < 3; c++)
            per[c] += strcmp(mx.rows[i].core, cores[c]) == 0;
    assert_int_equal(per[0], 34);
    assert_int_equal(per[1], 36);
    assert_int_equal(per[2], 28);
    for (size_t i = 0; i < mx.n; i++) {
        const rl_mx_row *r = &mx.rows[i];
        assert_true(r->on_label_pct >= 0 && r->on_label_pct <= 100);
        assert_true(r->bits_per_weight > 1 && r->bits_per_weight < 33);
        assert_string_equal(r->normalization, "streamed_bytes");
        assert_true(strncmp(r->source, "paper16-format-tax/data/", 24) == 0);
        /* streamed_GBs = tok/s x streamed MiB x 2^20 / 1e9, rounded to 3 decimals */
        assert_near(r->streamed_gbs, r->tok_s * r->streamed_mib * 1048576 / 1e9,
                    1e-3 * r->streamed_gbs + 1e-3);
    }
    /* the small-model fallback: at 0.5B Q3_K_M and Q2_K hold none of their type */
    for (size_t i = 0; i < mx.n; i++) {
        const rl_mx_row *r = &mx.rows[i];
        if (r->params_b == 0.5 && (!strcmp(r->format, "Q3_K_M") || !strcmp(r->format, "Q2_K")))
            assert_true(r->on_label_pct == 0.0);
        if (r->params_b == 0.5 && !strcmp(r->format, "Q4_K_M"))
            assert_true(r->on_label_pct < 15 && r->bits_per_weight > 5.4);
        if (r->params_b == 1.5 && !strcmp(r->format, "Q4_K_M"))
            assert_true(r->on_label_pct > 75);
    }
}

static void test_a76_05b(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 0, 0, 3, &a, &e), RL_OK);
    assert_near(a.scale, 0.5, 0);
    assert_int_equal(a.threads, 2);
    assert_string_equal(a.thread_choice, "fastest measured");
    assert_int_equal(a.n_avail, 3);
    assert_int_equal(a.threads_avail[0], 2);
    assert_int_equal(a.threads_avail[2], 4);
    static const char *const order[] = {"Q4_0", "IQ4_XS", "IQ4_NL", "Q3_K_M",
                                        "Q2_K", "Q4_K_M", "Q6_K",   "Q8_0"};
    static const double tok[] = {34.661, 34.234, 34.231, 33.347, 31.797, 25.675, 23.394, 22.225};
    static const int deficit[] = {0, 1, 1, 3, 12, 16, 3, 3};
    assert_int_equal(a.n, 8);
    for (int i = 0; i < 8; i++) {
        assert_string_equal(a.e[i].row->format, order[i]);
        assert_near(a.e[i].row->tok_s, tok[i], 0);
        assert_int_equal((int)lround(a.e[i].deficit_pct), deficit[i]);
    }
    /* tied: within 5% of 34.661 (>= 32.93) */
    assert_true(a.e[3].tied);
    assert_false(a.e[4].tied);
    assert_string_equal(a.e[a.best_quality].row->format, "IQ4_XS");
    assert_string_equal(a.e[a.lowest_energy].row->format, "Q4_0");
    assert_near(a.e[a.lowest_energy].row->mj_per_token, 141.51, 0);
    assert_string_equal(a.e[a.off_envelope].row->format, "Q4_K_M");
    assert_near(a.e[a.off_envelope].deficit_pct, 16.2, 0.05);
    /* mislabelled ascending: Q3_K_M 0, Q2_K 0, Q4_K_M 11.9, IQ4_XS 24.2, Q6_K 24.2 */
    static const char *const mis[] = {"Q3_K_M", "Q2_K", "Q4_K_M", "IQ4_XS", "Q6_K"};
    assert_int_equal(a.n_mislabelled, 5);
    for (int i = 0; i < 5; i++)
        assert_string_equal(a.e[a.mislabelled[i]].row->format, mis[i]);
    char warn[768];
    rl_advice_composition_warning(&a, warn, sizeof warn);
    assert_non_null(strstr(warn, "Read this table knowing what is in the files"));
    assert_non_null(strstr(warn, "Q3_K_M is 0%"));
    /* matched bytes: IQ4_XS, Q4_0, IQ4_NL, Q3_K_M at ~331 MiB */
    const rl_adv_thread *t2 = at(&a, 2);
    assert_true(t2->matched);
    assert_int_equal(t2->n_group, 4);
    assert_string_equal(t2->group[0], "IQ4_XS");
    assert_string_equal(t2->group[3], "Q3_K_M");
    assert_int_equal((int)lround(t2->group_mean_mib), 331);
    assert_near(t2->spread_pct, 3.94, 0.005);
    assert_near(at(&a, 3)->spread_pct, 2.80, 0.005);
    assert_near(at(&a, 4)->spread_pct, 3.03, 0.005);
    assert_string_equal(at(&a, 2)->ranking[0], "Q4_0");
    assert_string_equal(at(&a, 3)->ranking[0], "Q4_0");
    assert_string_equal(at(&a, 4)->ranking[0], "Q2_K");
    assert_false(a.ranking_stable);
    /* Pareto: IQ4_NL and Q4_K_M are not beaten on both; Q2_K is (by Q4_0) */
    assert_true(a.e[idx(&a, "IQ4_NL")].pareto);
    assert_true(a.e[idx(&a, "Q4_0")].pareto);
    assert_true(a.e[idx(&a, "Q4_K_M")].pareto);
    assert_false(a.e[idx(&a, "Q2_K")].pareto);
}

static void test_a76_threads_and_scale(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 0, 3, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 3);
    assert_string_equal(a.thread_choice, "as requested");
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 0, 16, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 4);
    assert_string_equal(a.thread_choice, "nearest measured to 16");
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 7.0, 0, 3, &a, &e), RL_OK);
    assert_near(a.scale, 1.5, 0);
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 0.6, 0, 3, &a, &e), RL_OK);
    assert_near(a.scale, 0.5, 0);
    /* 1.5B: best op t=2 IQ4_XS 13.324; t=4 winner Q3_K_M; no matched group; only Q3_K_M
     * mislabelled */
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 1.5, 0, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 2);
    assert_string_equal(a.e[0].row->format, "IQ4_XS");
    assert_near(a.e[0].row->tok_s, 13.324, 0);
    assert_string_equal(at(&a, 4)->ranking[0], "Q3_K_M");
    assert_false(at(&a, 2)->matched);
    assert_false(at(&a, 4)->matched);
    assert_int_equal(a.n_mislabelled, 1);
    assert_string_equal(a.e[a.mislabelled[0]].row->format, "Q3_K_M");
    assert_int_equal(a.best_quality, -1); /* no perplexity at 1.5B */
}

static void test_golden_cove(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "golden-cove", 0, 0, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 6);
    assert_string_equal(a.e[0].row->format, "Q4_0");
    assert_near(a.e[0].row->tok_s, 111.422, 0);
    assert_near(at(&a, 2)->spread_pct, 24.65, 0.005);
    assert_int_equal((int)lround(at(&a, 2)->spread_pct), 25);
    assert_near(at(&a, 4)->spread_pct, 5.93, 0.005);
    assert_near(at(&a, 6)->spread_pct, 11.13, 0.005);
    for (int t = 2; t <= 6; t += 2) {
        const rl_adv_thread *pt = at(&a, t);
        assert_true(pt->n_group >= 3);
    }
    /* off-envelope at t=6: Q2_K 19.2% (Q4_K_M 17.5%) */
    assert_string_equal(a.e[a.off_envelope].row->format, "Q2_K");
    assert_near(a.e[a.off_envelope].deficit_pct, 19.2, 0.05);
    assert_near(a.e[idx(&a, "Q4_K_M")].deficit_pct, 17.5, 0.05);
    assert_true(a.ranking_stable);
    for (int t = 2; t <= 6; t += 2) {
        assert_string_equal(at(&a, t)->ranking[0], "Q4_0");
        assert_string_equal(at(&a, t)->ranking[1], "IQ4_NL");
        assert_string_equal(at(&a, t)->ranking[2], "Q2_K");
    }
    assert_int_equal(a.lowest_energy, -1);
    assert_int_equal(rl_advise_core(&mx, "golden-cove", 0, 2, 3, &a, &e), RL_OK);
    assert_string_equal(a.e[a.off_envelope].row->format, "Q4_K_M");
    assert_near(a.e[a.off_envelope].deficit_pct, 27.8, 0.05);
    /* 0.5B Q4_K_M below the envelope at the core's fastest thread count: 18% (cross-core fact) */
    assert_int_equal(rl_advise_core(&mx, "golden-cove", 1.5, 0, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 6);
    assert_string_equal(a.e[0].row->format, "Q4_0");
    assert_near(a.e[0].row->tok_s, 42.234, 0);
}

static void test_gracemont(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "gracemont", 0, 0, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 4);
    static const char *const order[] = {"IQ4_NL", "IQ4_XS", "Q3_K_M", "Q2_K",
                                        "Q4_0",   "Q8_0",   "Q4_K_M", "Q6_K"};
    for (int i = 0; i < 8; i++)
        assert_string_equal(a.e[i].row->format, order[i]);
    assert_near(a.e[0].row->tok_s, 43.556, 0);
    assert_int_equal((int)lround(a.e[idx(&a, "IQ4_XS")].vs_best_pct), -16);
    assert_int_equal((int)lround(a.e[idx(&a, "Q4_K_M")].vs_best_pct), -33);
    assert_int_equal((int)lround(a.e[idx(&a, "Q4_K_M")].deficit_pct), 30);
    assert_int_equal((int)lround(a.e[idx(&a, "Q6_K")].deficit_pct), 13);
    assert_int_equal((int)lround(a.e[idx(&a, "IQ4_NL")].deficit_pct), 7);
    assert_near(a.e[idx(&a, "Q8_0")].deficit_pct, 0, 0);
    assert_string_equal(a.e[a.off_envelope].row->format, "Q4_K_M");
    assert_near(a.e[a.off_envelope].deficit_pct, 29.8, 0.05);
    /* Pareto: IQ4_NL and Q8_0 only */
    for (int i = 0; i < a.n; i++) {
        bool want = !strcmp(a.e[i].row->format, "IQ4_NL") || !strcmp(a.e[i].row->format, "Q8_0");
        assert_int_equal(a.e[i].pareto, want);
    }
    assert_near(at(&a, 2)->spread_pct, 8.91, 0.005);
    assert_near(at(&a, 4)->spread_pct, 24.19, 0.005);
    assert_string_equal(at(&a, 2)->ranking[0], "Q3_K_M");
    assert_false(a.ranking_stable);
    /* 1.5B: Q4_K_M wins on the E-core */
    assert_int_equal(rl_advise_core(&mx, "gracemont", 1.5, 0, 3, &a, &e), RL_OK);
    assert_int_equal(a.threads, 4);
    assert_string_equal(a.e[0].row->format, "Q4_K_M");
    assert_near(a.e[0].row->tok_s, 14.742, 0);
}

static void test_unknown_core(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "zen4", 0, 0, 3, &a, &e), RL_EINPUT);
    assert_string_equal(e.msg, "no measurements for core 'zen4'. Known: cortex-a76, golden-cove, "
                               "gracemont (see advise --list-cores)");
}

static void test_json(void **state)
{
    (void)state;
    rl_advice a;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_core(&mx, "cortex-a76", 0, 0, 3, &a, &e), RL_OK);
    cJSON *j = rl_advice_to_json(&a);
    assert_non_null(j);
    assert_string_equal(rl_json_get_str(j, "core"), "cortex-a76");
    assert_string_equal(rl_json_get_str(j, "fastest"), "Q4_0");
    assert_string_equal(rl_json_get_str(j, "best_quality_at_speed"), "IQ4_XS");
    cJSON *rk = cJSON_GetObjectItemCaseSensitive(j, "ranking");
    assert_int_equal(cJSON_GetArraySize(rk), 8);
    assert_string_equal(cJSON_GetArrayItem(rk, 0)->valuestring, "Q4_0");
    assert_string_equal(cJSON_GetArrayItem(rk, 7)->valuestring, "Q8_0");
    cJSON_Delete(j);
}

/* The cross-core facts (llama-roofline.md section 2.8, facts 1, 2 and 6). */
static void test_facts(void **state)
{
    (void)state;
    rl_adv_facts f;
    rl_advise_facts(&mx, &f);
    assert_near(f.scale, 0.5, 0);
    assert_int_equal(f.n_formats, 8);
    assert_int_equal(f.n_on_label, 3);
    assert_string_equal(f.on_label[0], "IQ4_NL");
    assert_string_equal(f.on_label[1], "Q4_0");
    assert_string_equal(f.on_label[2], "Q8_0");
    assert_int_equal(f.n_none, 2);
    assert_string_equal(f.none[0], "Q2_K");
    assert_string_equal(f.none[1], "Q3_K_M");
    assert_int_equal(f.n_cores, 3);
    static const int deficit[] = {16, 18, 30}, threads[] = {2, 6, 4};
    static const char *const fastest[] = {"Q4_0", "Q4_0", "IQ4_NL"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal((int)lround(f.core[i].q4km_deficit_pct), deficit[i]);
        assert_int_equal(f.core[i].threads, threads[i]);
        assert_string_equal(f.core[i].fastest, fastest[i]);
    }
    assert_string_equal(f.core[1].label, "Intel Golden Cove (P-core)");
}

static void test_csv_strict(void **state)
{
    (void)state;
    rl_matrix m;
    rl_error e = {RL_OK, ""};
    const char *hdr = "core,core_label,isa,model,params_b,threads,format,tok_s,streamed_MiB,"
                      "file_MiB,streamed_GBs,mJ_per_token,perplexity,on_label_pct,"
                      "bits_per_weight,repack_coverage_pct,normalization,basis,source\n";
    char buf[2048];
    snprintf(buf, sizeof buf, "%sa,A,x,m,0.5,2,Q4_0,1.5,330.2,408.9,0.5,,,100.0,4.5,,s,m,src\n",
             hdr);
    assert_int_equal(rl_matrix_parse("t", buf, strlen(buf), &m, &e), RL_OK);
    assert_int_equal(m.n, 1);
    assert_true(isnan(m.rows[0].perplexity));
    rl_matrix_free(&m);
    /* a field too many, a bad number, a missing required value, a quote, a bad header */
    static const char *const bad[] = {
        "a,A,x,m,0.5,2,Q4_0,1.5,330.2,408.9,0.5,,,100.0,4.5,,s,m,src,extra\n",
        "a,A,x,m,0.5,2,Q4_0,1e3,330.2,408.9,0.5,,,100.0,4.5,,s,m,src\n",
        "a,A,x,m,0.5,2,Q4_0,,330.2,408.9,0.5,,,100.0,4.5,,s,m,src\n",
        "a,A,x,m,0.5,2.5,Q4_0,1.5,330.2,408.9,0.5,,,100.0,4.5,,s,m,src\n",
        "a,A,x,m,0.5,2,Q4_0,1.5,330.2,408.9,0.5,,,101,4.5,,s,m,src\n",
        "\"a\",A,x,m,0.5,2,Q4_0,1.5,330.2,408.9,0.5,,,100.0,4.5,,s,m,src\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%s", hdr, bad[i]);
        assert_int_equal(rl_matrix_parse("t", buf, strlen(buf), &m, &e), RL_EINPUT);
        assert_null(m.rows);
    }
    assert_int_equal(rl_matrix_parse("t", hdr, strlen(hdr), &m, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "no rows"));
    const char *h2 = "core,label\n";
    assert_int_equal(rl_matrix_parse("t", h2, strlen(h2), &m, &e), RL_EINPUT);
    assert_int_equal(rl_matrix_parse("t", "", 0, &m, &e), RL_EINPUT);
}

/* A model entry with one ok run per thread count, as `run` writes them. */
static cJSON *model(const char *id, const char *label, double mib, double on_label,
                    const double *tok, const int *threads, int n)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "id", id);
    char name[64];
    snprintf(name, sizeof name, "x-%s.gguf", label);
    cJSON_AddStringToObject(m, "name", name);
    cJSON *g = cJSON_AddObjectToObject(m, "gguf");
    cJSON_AddStringToObject(g, "label", label);
    cJSON_AddNumberToObject(g, "streamed_MiB", mib);
    cJSON_AddNumberToObject(g, "file_bytes", mib * 1.2 * 1048576);
    cJSON *c = cJSON_AddObjectToObject(g, "composition");
    cJSON_AddNumberToObject(c, "on_label_pct", on_label);
    cJSON_AddNumberToObject(c, "bits_per_weight", 4.5);
    cJSON *runs = cJSON_AddArrayToObject(m, "runs");
    for (int i = 0; i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "threads", threads[i]);
        cJSON_AddNumberToObject(r, "depth", 0);
        cJSON_AddStringToObject(r, "status", "ok");
        double s[2] = {tok[i] * 0.99, tok[i] * 1.01};
        cJSON_AddItemToObject(r, "decode", rl_bundle_rate(s, 2, "tok/s", "none"));
        cJSON_AddItemToArray(runs, r);
    }
    return m;
}

static void test_measured_bundle(void **state)
{
    (void)state;
    /* 100 vs 90 tok/s at 330/331 MiB: same bytes, 11% spread; 660 MiB far away */
    cJSON *b = rl_bundle_new("advise", 0, NULL);
    cJSON *ms = cJSON_AddArrayToObject(b, "models");
    const int th[] = {1, 2};
    const double ta[] = {50, 100}, tb[] = {45, 90}, tc[] = {30, 60};
    cJSON_AddItemToArray(ms, model("m1", "Q4_0", 330, 100, ta, th, 2));
    cJSON_AddItemToArray(ms, model("m2", "IQ4_XS", 331, 24.2, tb, th, 2));
    cJSON_AddItemToArray(ms, model("m3", "Q8_0", 660, 100, tc, th, 2));
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_advise_bundle(b, "Test CPU", &e), RL_OK);
    const cJSON *adv = cJSON_GetObjectItemCaseSensitive(b, "advice");
    assert_string_equal(rl_json_get_str(adv, "kind"), "derived");
    assert_string_equal(rl_json_get_str(adv, "fastest"), "Q4_0");
    int64_t bt = 0;
    assert_true(rl_json_get_i64(adv, "best_threads", &bt));
    assert_int_equal(bt, 2);
    const cJSON *tables = cJSON_GetObjectItemCaseSensitive(adv, "tables");
    assert_int_equal(cJSON_GetArraySize(tables), 2);
    const cJSON *t2 = cJSON_GetArrayItem(tables, 1);
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(t2, "matched_bytes");
    double spread = 0;
    assert_true(rl_json_get_num(mb, "spread_pct", &spread));
    assert_int_equal((int)lround(spread), 11);
    const cJSON *row0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t2, "rows"), 0);
    assert_string_equal(rl_json_get_str(row0, "model_id"), "m1");
    const cJSON *dec = cJSON_GetObjectItemCaseSensitive(row0, "decode");
    assert_string_equal(rl_json_get_str(dec, "kind"), "measured");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(dec, "samples")), 2);
    double gbs = 0;
    assert_true(rl_json_get_num(row0, "streamed_GBs", &gbs));
    assert_near(gbs, 100 * 330 * 1048576.0 / 1e9, 1e-9);
    /* the IQ4_XS file is 24% on-label: the composition warning applies */
    assert_non_null(rl_json_get_str(t2, "composition_warning"));
    cJSON_Delete(b);

    /* 330 vs 660 MiB only: no matched group, a size comparison */
    b = rl_bundle_new("advise", 0, NULL);
    ms = cJSON_AddArrayToObject(b, "models");
    cJSON_AddItemToArray(ms, model("m1", "Q4_0", 330, 100, ta, th, 1));
    cJSON_AddItemToArray(ms, model("m2", "Q8_0", 660, 100, tc, th, 1));
    assert_int_equal(rl_advise_bundle(b, "Test CPU", &e), RL_OK);
    adv = cJSON_GetObjectItemCaseSensitive(b, "advice");
    t2 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(adv, "tables"), 0);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(t2, "matched_bytes"), "available")));
    cJSON_Delete(b);

    /* 300 and 309 MiB: exactly the match ratio 1.03 apart, still one group (mutant
     * advise-match); 300 and 310 MiB are not */
    for (int k = 0; k < 2; k++) {
        b = rl_bundle_new("advise", 0, NULL);
        ms = cJSON_AddArrayToObject(b, "models");
        cJSON_AddItemToArray(ms, model("m1", "Q4_0", 300, 100, ta, th, 1));
        cJSON_AddItemToArray(ms, model("m2", "IQ4_XS", k ? 310 : 309, 100, tb, th, 1));
        assert_int_equal(rl_advise_bundle(b, "Test CPU", &e), RL_OK);
        adv = cJSON_GetObjectItemCaseSensitive(b, "advice");
        t2 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(adv, "tables"), 0);
        mb = cJSON_GetObjectItemCaseSensitive(t2, "matched_bytes");
        assert_int_equal(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(mb, "available")), k);
        cJSON_Delete(b);
    }

    /* the winner changes with threads: the text says so, with "Same bytes:" */
    b = rl_bundle_new("advise", 0, NULL);
    ms = cJSON_AddArrayToObject(b, "models");
    const double td[] = {60, 90};
    cJSON_AddItemToArray(ms, model("m1", "Q4_0", 330, 100, ta, th, 2));
    cJSON_AddItemToArray(ms, model("m2", "IQ4_XS", 331, 24.2, td, th, 2));
    assert_int_equal(rl_advise_bundle(b, "Test CPU", &e), RL_OK);
    char *text = rl_advise_measured_text(b, true); /* Markdown: not wrapped */
    assert_non_null(text);
    assert_non_null(strstr(text, "(1 thread: IQ4_XS, 2 threads: Q4_0), so set -t"));
    assert_non_null(strstr(text, "Same bytes: IQ4_XS and Q4_0"));
    assert_null(strstr(text, "SIZE COMPARISON"));
    free(text);
    cJSON_Delete(b);

    /* nothing decoded */
    b = rl_bundle_new("advise", 0, NULL);
    cJSON_AddArrayToObject(b, "models");
    assert_int_equal(rl_advise_bundle(b, "Test CPU", &e), RL_NOTHING);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_shape),
        cmocka_unit_test(test_a76_05b),
        cmocka_unit_test(test_a76_threads_and_scale),
        cmocka_unit_test(test_golden_cove),
        cmocka_unit_test(test_gracemont),
        cmocka_unit_test(test_unknown_core),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_csv_strict),
        cmocka_unit_test(test_measured_bundle),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
