/* SPDX-License-Identifier: MIT */
/* test_compare.c: compare.h's arithmetic and matching, with hand-computed values.
 *   - Welch's t and df of two 5-sample sets: A = 10..14 (mean 12, variance 2.5), B = 12..20 step
 *     2 (mean 16, variance 10): se^2 = 2.5/5 + 10/5 = 2.5, t = 4 / sqrt(2.5) = 2.5298221281,
 *     df = 2.5^2 / (0.5^2/4 + 2^2/4) = 6.25 / 1.0625 = 5.8823529412, two-sided p = 0.0454646
 *     (numerical integration of the t density): faster (p < 0.05, +33.3%);
 *   - a significant but small change (+1%, p far below 0.05) is within noise (min effect 2%);
 *   - samples * 0.8 is slower by 20%; one sample or none is not tested; identical samples
 *     are within noise with p = 1;
 *   - matching: two models with the same tensor-type map and size but other names are the same
 *     row; another tensor size is another row; imported models without a header match by name;
 *     rows carry threads, depth, n_prompt, n_gen; the suite differs when settings differ;
 *   - --fail-on-regression's rule: slower by more than PCT.
 *   - client rows (test_client_rows) and advice rows (test_advice_rows): the values are given
 *     beside each test;
 *   - a side measured disturbed (test_disturbed_rows): its cells suspect, the input named, the
 *     JSON's disturbed_inputs, and its -20% regression counted apart from the clean ones.
 *   - the environment warnings (test_env_warnings): sizes in GiB, 3 significant digits, 1%
 *     tolerance, models by file name.
 * Checked to fail: with the min-effect test removed (the +1% case becomes "faster") and with
 * the identity built from the name only (the renamed model no longer matches), and with the
 * advice's decode runs listed under llama-bench too (test_advice_rows: 3 rows, not 2). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyse/compare.h"
#include "analyse/validate.h"

static rl_cmp_cell cell_of(const double *x, size_t n)
{
    rl_cmp c;
    rl_cmp_init(&c);
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", cJSON_CreateObject(), &err), RL_OK);
    rl_cmp_row_spec spec = {.group = "g",
                            .key = "k",
                            .subject = "s",
                            .metric = "m",
                            .unit = "tok/s",
                            .higher_is_better = true};
    assert_int_equal(rl_cmp_add_samples(&c, 0, &spec, x, n, false, 0, false, 0, &err), RL_OK);
    rl_cmp_cell out = c.rows[0].cells[0];
    double *copy = NULL;
    if (n) {
        copy = malloc(n * sizeof *copy);
        memcpy(copy, out.samples, n * sizeof *copy);
    }
    out.samples = copy;
    rl_cmp_free(&c);
    return out;
}

static void test_welch(void **state)
{
    (void)state;
    double t, df;
    assert_true(rl_cmp_welch(12, sqrt(2.5), 5, 16, sqrt(10), 5, &t, &df));
    assert_float_equal(t, 2.5298221281347035, 1e-12);
    assert_float_equal(df, 5.882352941176471, 1e-12);
    assert_false(rl_cmp_welch(5, 0, 3, 5, 0, 3, &t, &df));
    assert_float_equal(t, 0, 0);
}

static void test_verdicts(void **state)
{
    (void)state;
    const double a[] = {10, 11, 12, 13, 14}, b[] = {12, 14, 16, 18, 20};
    rl_cmp_cell ca = cell_of(a, 5), cb = cell_of(b, 5);
    assert_float_equal(ca.mean, 12, 1e-12);
    assert_float_equal(ca.sd, sqrt(2.5), 1e-12);
    rl_cmp_verdict_of(&ca, &cb, true, 0.05, 2.0);
    assert_true(cb.tested);
    assert_float_equal(cb.t, 2.5298221281347035, 1e-9);
    assert_float_equal(cb.df, 5.882352941176471, 1e-9);
    assert_float_equal(cb.p, 0.04546461897, 1e-6);
    assert_int_equal(cb.verdict, RL_CMP_FASTER);
    assert_float_equal(cb.ratio, 16.0 / 12.0, 1e-12);
    assert_float_equal(cb.delta, 4, 1e-12);
    assert_float_equal(cb.change_pct, 100.0 / 3.0, 1e-9);
    /* lower is better (a latency): the same change is "slower" */
    rl_cmp_verdict_of(&ca, &cb, false, 0.05, 2.0);
    assert_int_equal(cb.verdict, RL_CMP_SLOWER);
    /* at alpha 0.01 the same data is within noise */
    rl_cmp_verdict_of(&ca, &cb, true, 0.01, 2.0);
    assert_int_equal(cb.verdict, RL_CMP_NOISE);

    /* +1%: highly significant, but below the 2% minimum effect */
    const double s[] = {100, 100.1, 99.9, 100.05, 99.95},
                 s1[] = {101, 101.1, 100.9, 101.05, 100.95};
    rl_cmp_cell cs = cell_of(s, 5), cs1 = cell_of(s1, 5);
    rl_cmp_verdict_of(&cs, &cs1, true, 0.05, 2.0);
    assert_true(cs1.p < 1e-6);
    assert_int_equal(cs1.verdict, RL_CMP_NOISE);
    assert_float_equal(cs1.change_pct, 1.0, 1e-9);

    /* exactly +2% (means 50 and 51, both exact in binary): "at least 2%" counts it as faster
     * (mutant cmp-min-effect: >= made >) */
    const double e0[] = {50, 50.5, 49.5, 50.25, 49.75}, e2[] = {51, 51.5, 50.5, 51.25, 50.75};
    rl_cmp_cell ce0 = cell_of(e0, 5), ce2 = cell_of(e2, 5);
    rl_cmp_verdict_of(&ce0, &ce2, true, 0.05, 2.0);
    assert_true(ce2.change_pct == 2.0);
    assert_true(ce2.p < 0.05);
    assert_int_equal(ce2.verdict, RL_CMP_FASTER);
    free(ce0.samples);
    free(ce2.samples);

    /* 20% slower */
    double slow[5];
    for (size_t i = 0; i < 5; i++)
        slow[i] = s[i] * 0.8;
    rl_cmp_cell csl = cell_of(slow, 5);
    rl_cmp_verdict_of(&cs, &csl, true, 0.05, 2.0);
    assert_int_equal(csl.verdict, RL_CMP_SLOWER);
    assert_float_equal(csl.change_pct, -20.0, 1e-9);

    /* identical: p = 1 */
    rl_cmp_cell same = cell_of(s, 5);
    rl_cmp_verdict_of(&cs, &same, true, 0.05, 2.0);
    assert_int_equal(same.verdict, RL_CMP_NOISE);
    assert_float_equal(same.p, 1, 1e-12);

    /* one sample; no samples (an imported mean) */
    rl_cmp_cell one = cell_of(s, 1);
    rl_cmp_verdict_of(&cs, &one, true, 0.05, 2.0);
    assert_int_equal(one.verdict, RL_CMP_ONE_SAMPLE);
    assert_false(one.tested);
    rl_cmp_cell none = {.present = true, .has_mean = true, .mean = 50};
    rl_cmp_verdict_of(&cs, &none, true, 0.05, 2.0);
    assert_int_equal(none.verdict, RL_CMP_NO_SAMPLES);
    assert_float_equal(none.ratio, 0.5, 1e-12);
    rl_cmp_cell absent = {0};
    rl_cmp_verdict_of(&cs, &absent, true, 0.05, 2.0);
    assert_int_equal(absent.verdict, RL_CMP_MISSING);
    assert_string_equal(rl_cmp_verdict_word(RL_CMP_NO_SAMPLES), "no samples: not tested");
    assert_string_equal(rl_cmp_verdict_word(RL_CMP_ONE_SAMPLE), "one sample: not tested");
    free(ca.samples);
    free(cb.samples);
    free(cs.samples);
    free(cs1.samples);
    free(csl.samples);
    free(same.samples);
    free(one.samples);
}

/* A bundle with one model: its name, tensor bytes (0: imported, no header), and one run at 2
 * threads, depth 0, with decode samples scaled by f. */
static cJSON *bundle(const char *name, unsigned tensor_bytes, double f, int n_gen)
{
    char text[2048];
    char gguf[512];
    if (tensor_bytes)
        snprintf(gguf, sizeof gguf,
                 "{\"tensor_bytes\": %u, \"types\": [{\"type\": \"Q4_0\", \"n_tensors\": 170, "
                 "\"bytes\": 1000}, {\"type\": \"F32\", \"n_tensors\": 121, \"bytes\": 20}]}",
                 tensor_bytes);
    else
        snprintf(gguf, sizeof gguf, "{\"types\": {\"available\": false, \"reason\": \"x\"}}");
    snprintf(text, sizeof text,
             "{\"settings\": {\"threads\": [2], \"depths\": [0], \"n_prompt\": 128, \"n_gen\": %d},"
             " \"models\": [{\"id\": \"m1\", \"name\": \"%s\", \"gguf\": %s,"
             " \"bytes_per_token\": {\"value\": 1020},"
             " \"runs\": [{\"threads\": 2, \"depth\": 0, \"status\": \"ok\","
             " \"decode\": {\"samples\": [%g, %g, %g]}}]}]}",
             n_gen, name, gguf, 100 * f, 101 * f, 99 * f);
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    return b;
}

static void test_matching(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "x/a/bundle.json", bundle("a.gguf", 1020, 1, 128), &err),
                     RL_OK);
    assert_int_equal(
        rl_cmp_add_bundle(&c, "y/b.json", bundle("renamed.gguf", 1020, 0.8, 128), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "z/c.json", bundle("a.gguf", 2040, 1, 128), &err),
                     RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_string_equal(c.inputs[0].label, "a");
    assert_string_equal(c.inputs[1].label, "b");
    /* the renamed model (same type map and size) is the same row; the bigger one is another */
    assert_int_equal(c.n_rows, 2);
    const rl_cmp_row *r = &c.rows[0];
    assert_string_equal(r->metric, "decode");
    assert_true(r->cells[0].present && r->cells[1].present && !r->cells[2].present);
    assert_int_equal(r->cells[1].verdict, RL_CMP_SLOWER);
    assert_int_equal(r->cells[2].verdict, RL_CMP_MISSING);
    assert_true(c.rows[1].cells[2].present && !c.rows[1].cells[0].present);
    assert_int_equal(r->n_keys, 4);
    assert_string_equal(r->key_names[0], "threads");
    assert_string_equal(r->key_values[0], "2");
    assert_string_equal(r->key_values[3], "128");
    assert_int_equal(rl_cmp_regressions(&c, 10, NULL), 1);
    assert_int_equal(rl_cmp_regressions(&c, 20, NULL), 0); /* exactly 20%: not more than 20 */
    assert_true(c.suite_mismatch);                         /* the model sets differ */
    assert_int_equal(c.rows_not_everywhere, 2);
    rl_cmp_counts k = rl_cmp_count(&c);
    assert_int_equal(k.slower, 1);
    assert_int_equal(k.missing, 3);
    rl_cmp_free(&c);

    /* imported: no header, matched by name; another n_gen is another row */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", bundle("q.gguf", 0, 1, 128), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", bundle("q.gguf", 0, 1, 128), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "c.json", bundle("q.gguf", 0, 1, 64), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_string_equal(c.inputs[1].label, "a (2)");
    assert_int_equal(c.n_rows, 2);
    assert_int_equal(c.rows[0].cells[1].verdict, RL_CMP_NOISE);
    assert_int_equal(c.rows[0].cells[2].verdict, RL_CMP_MISSING);
    assert_true(c.suite_mismatch); /* n_gen differs */
    assert_int_equal(rl_cmp_set_baseline(&c, "2", &err), RL_OK);
    assert_int_equal(c.baseline, 1);
    assert_int_equal(rl_cmp_set_baseline(&c, "c.json", &err), RL_OK);
    assert_int_equal(c.baseline, 2);
    assert_int_equal(rl_cmp_set_baseline(&c, "4", &err), RL_EINPUT);
    rl_cmp_free(&c);

    /* one input only */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", bundle("q.gguf", 0, 1, 128), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_EINPUT);
    rl_cmp_free(&c);
}

/* A fleet read row by row (rl_cmp_row_summary) and fact by fact (rl_cmp_fact_values): inputs
 * scaled 1 (baseline), 0.8, 1.25, 1.0 and 1.1, and one with another tensor size (missing from
 * the row). Ratios 0.8, 1.25, 1.0, 1.1: min 0.8, median (1.0 + 1.1) / 2 = 1.05, max 1.25; best
 * [3] (1.25, a rate), worst [2]; 2 faster (1.25 and 1.1: 10% is over the 2% effect), 1 slower,
 * 1 within noise (identical samples), 1 missing. The CPU fact "a" x3, "b" x2, "c" x1: three
 * distinct values, "a" first (its first input 0), cut to two by cap. */
static void test_fleet_summary(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    static const double f[] = {1, 0.8, 1.25, 1.0, 1.1, 1};
    static const char *const cpu[] = {"a", "b", "a", "c", "b", "a"};
    for (size_t i = 0; i < 6; i++) {
        cJSON *b = bundle("a.gguf", i == 5 ? 2040 : 1020, f[i], 128);
        cJSON *env = cJSON_AddObjectToObject(b, "environment");
        cJSON_AddStringToObject(env, "cpu", cpu[i]);
        char path[32];
        snprintf(path, sizeof path, "in%zu.json", i);
        assert_int_equal(rl_cmp_add_bundle(&c, path, b, &err), RL_OK);
    }
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    rl_cmp_row_sum s;
    assert_true(rl_cmp_row_summary(&c, 0, &s));
    assert_int_equal(s.faster, 2);
    assert_int_equal(s.slower, 1);
    assert_int_equal(s.noise, 1);
    assert_int_equal(s.missing, 1);
    assert_int_equal(s.untested, 0);
    assert_int_equal(s.with_ratio, 4);
    assert_float_equal(s.ratio_min, 0.8, 1e-12);
    assert_float_equal(s.ratio_median, 1.05, 1e-12);
    assert_float_equal(s.ratio_max, 1.25, 1e-12);
    assert_int_equal(s.best, 2);
    assert_int_equal(s.worst, 1);
    /* for a latency the best is the smallest ratio */
    c.rows[0].higher_is_better = false;
    assert_true(rl_cmp_row_summary(&c, 0, &s));
    assert_int_equal(s.best, 1);
    assert_int_equal(s.worst, 2);
    c.rows[0].higher_is_better = true;
    size_t f_cpu = SIZE_MAX;
    for (size_t k = 0; k < c.n_facts; k++)
        if (strcmp(c.facts[k].label, "CPU") == 0)
            f_cpu = k;
    assert_true(f_cpu != SIZE_MAX);
    rl_cmp_value_count top[2];
    size_t n, distinct;
    assert_true(rl_cmp_fact_values(&c, f_cpu, top, 2, &n, &distinct));
    assert_int_equal(distinct, 3);
    assert_int_equal(n, 2);
    assert_string_equal(top[0].value, "a");
    assert_int_equal(top[0].count, 3);
    assert_int_equal(top[0].first, 0);
    assert_string_equal(top[1].value, "b");
    assert_int_equal(top[1].count, 2);
    assert_int_equal(top[1].first, 1);
    /* the fleet form of the JSON: a row's summary, a fact's top values, no cells */
    cJSON *j = rl_cmp_to_json(&c, RL_CMP_JSON_FLEET);
    assert_non_null(j);
    const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0);
    assert_null(cJSON_GetObjectItem(row, "cells"));
    const cJSON *sum = cJSON_GetObjectItem(row, "summary");
    assert_int_equal(cJSON_GetObjectItem(sum, "faster")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(sum, "best_input")->valueint, 3);
    assert_float_equal(cJSON_GetObjectItem(sum, "ratio_median")->valuedouble, 1.05, 1e-12);
    assert_string_equal(cJSON_GetObjectItem(j, "form")->valuestring, "fleet");
    const cJSON *fa = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "facts"), (int)f_cpu);
    assert_int_equal(cJSON_GetObjectItem(fa, "distinct")->valueint, 3);
    assert_null(cJSON_GetObjectItem(fa, "values"));
    const cJSON *in = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 3);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(in, "summary"), "cpu")->valuestring,
                        "c");
    cJSON_Delete(j);
    rl_cmp_free(&c);
}

/* rl_validate_compare on the JSON compare writes (every form: no problem) and on tampered
 * copies: each problem at its path. */
static size_t problems_of(const cJSON *j, const char *path)
{
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate_compare(j, &p), RL_OK);
    size_t n = p.n;
    if (path)
        assert_non_null(rl_validate_find(&p, path));
    rl_validate_problems_free(&p);
    return n;
}

static void test_validate_json(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    static const double f[] = {1, 0.8, 1.25};
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(rl_cmp_add_bundle(&c, "x.json", bundle("a.gguf", 1020, f[i], 128), &err),
                         RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    for (int form = RL_CMP_JSON_SUMMARY; form <= RL_CMP_JSON_FLEET; form++) {
        cJSON *j = rl_cmp_to_json(&c, (rl_cmp_json_form)form);
        assert_int_equal(problems_of(j, NULL), 0);
        cJSON_Delete(j);
    }
    cJSON *j = rl_cmp_to_json(&c, RL_CMP_JSON_SUMMARY);
    cJSON *cell = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0), "cells"), 1);
    cJSON_SetNumberValue(cJSON_GetObjectItem(cell, "mean"), 90); /* samples say 80 */
    assert_int_equal(problems_of(j, "rows[0].cells[1]"), 2);     /* its mean and its ratio */
    cJSON_SetNumberValue(cJSON_GetObjectItem(cell, "mean"), 80);
    cJSON_SetNumberValue(cJSON_GetObjectItem(cell, "ratio"), 0.9);
    assert_int_equal(problems_of(j, "rows[0].cells[1]"), 1);
    cJSON_SetNumberValue(cJSON_GetObjectItem(cell, "ratio"), 0.8);
    cJSON_ReplaceItemInObject(cell, "verdict", cJSON_CreateString("quicker"));
    assert_int_equal(problems_of(j, "rows[0].cells[1]"), 1);
    cJSON_ReplaceItemInObject(cell, "verdict", cJSON_CreateString("slower"));
    assert_int_equal(problems_of(j, NULL), 0);
    cJSON_SetNumberValue(cJSON_GetObjectItem(j, "baseline"), 4);
    assert_int_equal(problems_of(j, "baseline"), 1);
    cJSON_SetNumberValue(cJSON_GetObjectItem(j, "baseline"), 1);
    cJSON_DeleteItemFromArray(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0), "cells"), 2);
    assert_int_equal(problems_of(j, "rows[0]"), 1);
    cJSON_Delete(j);
    j = rl_cmp_to_json(&c, RL_CMP_JSON_FLEET);
    cJSON *sum =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0), "summary");
    cJSON_SetNumberValue(cJSON_GetObjectItem(sum, "noise"), 1); /* 1 + 1 + 1: not 2 others */
    assert_int_equal(problems_of(j, "rows[0]"), 1);
    cJSON_SetNumberValue(cJSON_GetObjectItem(sum, "noise"), 0);
    cJSON_SetNumberValue(cJSON_GetObjectItem(sum, "ratio_min"), 2);
    assert_int_equal(problems_of(j, "rows[0]"), 1);
    cJSON_Delete(j);
    rl_cmp_free(&c);
}

static void test_identity(void **state)
{
    (void)state;
    char a[320], b[320];
    cJSON *x = bundle("one.gguf", 1020, 1, 128), *y = bundle("two.gguf", 1020, 1, 128);
    rl_cmp_model_identity(cJSON_GetArrayItem(cJSON_GetObjectItem(x, "models"), 0), a, sizeof a);
    rl_cmp_model_identity(cJSON_GetArrayItem(cJSON_GetObjectItem(y, "models"), 0), b, sizeof b);
    assert_string_equal(a, b);
    assert_memory_equal(a, "types:", 6);
    cJSON_Delete(x);
    cJSON_Delete(y);
    x = bundle("one.gguf", 0, 1, 128);
    rl_cmp_model_identity(cJSON_GetArrayItem(cJSON_GetObjectItem(x, "models"), 0), a, sizeof a);
    assert_string_equal(a, "name:one.gguf:1020");
    cJSON_Delete(x);
}

/* A client bundle: one HTTP driver, a prompt set of 2 (the first prompt's text given), one
 * closed-loop point at concurrency 1 whose TTFT samples are scaled by f and whose requests/s
 * is rps. */
static cJSON *client_bundle(double f, double rps, const char *prompt_text)
{
    char text[4096];
    snprintf(
        text, sizeof text,
        "{\"environment\": {\"cpu\": \"x\"}, \"client\": {"
        "\"driver\": {\"type\": \"http\", \"url\": \"http://h:1/v1/chat/completions\","
        " \"model\": \"m\"},"
        " \"settings\": {\"max_tokens\": 64, \"prompts\": {\"source\": \"profile\","
        " \"name\": \"p\", \"n\": 2}},"
        " \"prompts\": [{\"id\": \"p1\", \"text\": \"%s\"}, {\"id\": \"p2\", \"text\": \"b\"}],"
        " \"points\": [{\"concurrency\": 1, \"request_rate\": null, \"metrics\": {"
        " \"ttft\": {\"kind\": \"proxy\", \"unit\": \"ms\", \"samples\": [%g, %g, %g, %g, %g]},"
        " \"tpot\": {\"available\": false, \"reason\": \"no token counts\"},"
        " \"chunk_gap\": {\"kind\": \"proxy\", \"unit\": \"ms\", \"samples\": {\"available\":"
        " false, \"reason\": \"too many\"}, \"stats\": {\"n\": 200000, \"mean\": 20, \"sd\": 2}},"
        " \"output_tok_s\": {\"kind\": \"derived\", \"unit\": \"tok/s\", \"samples\": [30, 31, "
        "29]},"
        " \"rps\": {\"kind\": \"measured\", \"unit\": \"req/s\", \"value\": %g}},"
        " \"goodput\": {\"rps\": {\"kind\": \"derived\", \"unit\": \"req/s\", \"value\": 1}}}]}}",
        prompt_text, 100 * f, 101 * f, 99 * f, 100.5 * f, 99.5 * f, rps);
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    return b;
}

static const rl_cmp_row *row_named(const rl_cmp *c, const char *group, const char *metric,
                                   size_t nth)
{
    for (size_t r = 0; r < c->n_rows; r++)
        if (strcmp(c->rows[r].group, group) == 0 && strcmp(c->rows[r].metric, metric) == 0 &&
            nth-- == 0)
            return &c->rows[r];
    return NULL;
}

/* Client rows. TTFT 100, 101, 99, 100.5, 99.5: mean 100, variance 2.5 / 4 = 0.625; x1.2: mean
 * 120, variance 0.9; Welch t = 20 / sqrt(0.625/5 + 0.9/5) = 20 / sqrt(0.305) = 36.2143, p far
 * below 0.05; +20% of a lower-is-better metric: slower, a regression beyond 10%. requests/s 2
 * against 1.5: ratio 0.75, one value: not tested (and no regression). chunk_gap without its
 * samples: the summary's mean 20, "no samples". tpot unavailable: no row. Another prompt text
 * is another prompt set: no row in common. */
static void test_client_rows(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", client_bundle(1, 2, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json", client_bundle(1.2, 1.5, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "c.json", client_bundle(1, 2, "other"), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_int_equal(c.n_rows, 10); /* 5 metrics x 2 prompt sets */
    const rl_cmp_row *ttft = row_named(&c, RL_CMP_GROUP_CLIENT, "TTFT", 0);
    assert_non_null(ttft);
    assert_false(ttft->higher_is_better);
    assert_string_equal(ttft->kind, "proxy");
    assert_string_equal(ttft->unit, "ms");
    assert_string_equal(ttft->subject, "m");
    assert_int_equal(ttft->n_keys, 4);
    assert_string_equal(ttft->key_values[0], "http://h:1/v1/chat/completions");
    assert_string_equal(ttft->key_values[1], "1");
    assert_string_equal(ttft->key_values[2], "closed loop");
    assert_string_equal(ttft->key_values[3], "profile:p (2)");
    assert_true(ttft->units_vary);
    const rl_cmp_cell *x = &ttft->cells[1];
    assert_int_equal(x->verdict, RL_CMP_SLOWER);
    assert_float_equal(x->mean, 120, 1e-9);
    assert_float_equal(x->ratio, 1.2, 1e-9);
    assert_float_equal(x->delta, 20, 1e-9);
    assert_float_equal(x->t, 36.21429841700741, 1e-6);
    assert_false(ttft->cells[2].present); /* another prompt text */
    const rl_cmp_row *rps = row_named(&c, RL_CMP_GROUP_CLIENT, "requests/s", 0);
    assert_non_null(rps);
    assert_true(rps->single);
    assert_int_equal(rps->cells[1].verdict, RL_CMP_ONE_VALUE);
    assert_float_equal(rps->cells[1].ratio, 0.75, 1e-12);
    assert_string_equal(rl_cmp_verdict_word(RL_CMP_ONE_VALUE), "one value: not tested");
    const rl_cmp_row *gap = row_named(&c, RL_CMP_GROUP_CLIENT, "chunk gap", 0);
    assert_non_null(gap);
    assert_int_equal(gap->cells[1].verdict, RL_CMP_NO_SAMPLES);
    assert_float_equal(gap->cells[0].mean, 20, 0);
    assert_null(row_named(&c, RL_CMP_GROUP_CLIENT, "TPOT", 0));
    const rl_cmp_row *gp = row_named(&c, RL_CMP_GROUP_CLIENT, "goodput", 0);
    assert_non_null(gp);
    assert_string_equal(gp->kind, "derived");
    assert_int_equal(rl_cmp_regressions(&c, 10, NULL), 1);
    assert_int_equal(rl_cmp_regressions(&c, 20, NULL), 0);
    assert_false(c.sections_differ);
    char sec[128];
    rl_cmp_sections(c.inputs[0].bundle, sec, sizeof sec);
    assert_string_equal(sec, "streaming client");
    rl_cmp_free(&c);

    /* times of 0 (an answer already there) are samples of a client distribution: kept */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "z.json", client_bundle(0, 2, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", client_bundle(1, 2, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    const rl_cmp_row *zt = row_named(&c, RL_CMP_GROUP_CLIENT, "TTFT", 0);
    assert_non_null(zt);
    assert_true(zt->cells[0].present);
    assert_int_equal(zt->cells[0].n, 5);
    assert_float_equal(zt->cells[0].mean, 0, 0);
    rl_cmp_free(&c);

    /* a client bundle against a run bundle: a note, no suite difference from the run's
     * settings (they do not apply to a client bundle) */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "run.json", bundle("a.gguf", 1020, 1, 128), &err),
                     RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "cl.json", client_bundle(1, 2, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_true(c.sections_differ);
    assert_false(c.suite_mismatch);
    for (size_t f = 0; f < c.n_facts; f++)
        if (strcmp(c.facts[f].label, "Threads") == 0) {
            assert_false(c.facts[f].differs);
            assert_string_equal(c.facts[f].values[1], "n/a");
        }
    assert_int_equal(rl_cmp_regressions(&c, 10, NULL), 0);
    rl_cmp_free(&c);

    /* the command driver: the command line is the subject, "command" the driver column; the
     * same point of an HTTP run is another row */
    cJSON *cmd = client_bundle(1, 2, "a");
    cJSON *drv = cJSON_GetObjectItem(cJSON_GetObjectItem(cmd, "client"), "driver");
    cJSON_ReplaceItemInObject(drv, "type", cJSON_CreateString("command"));
    cJSON_AddStringToObject(drv, "command", "fm respond");
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "http.json", client_bundle(1, 2, "a"), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "cmd.json", cmd, &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_int_equal(c.n_rows, 10);
    const rl_cmp_row *t2 = row_named(&c, RL_CMP_GROUP_CLIENT, "TTFT", 1);
    assert_non_null(t2);
    assert_string_equal(t2->subject, "fm respond");
    assert_string_equal(t2->key_values[0], "command");
    assert_true(t2->cells[1].present && !t2->cells[0].present);
    cJSON *j = rl_cmp_to_json(&c, RL_CMP_JSON_SUMMARY);
    assert_non_null(j);
    cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0);
    assert_string_equal(cJSON_GetObjectItem(r0, "kind")->valuestring, "proxy");
    cJSON_Delete(j);
    rl_cmp_free(&c);
}

/* An advise bundle: model m1 with one run at 2 threads (decode and prefill) and the advice
 * table that ranks its decode. The decode is listed once, in the advice group; prefill stays
 * under llama-bench. Decode 100, 101, 99 against x0.8: mean 80, -20%: slower. */
static cJSON *advise_bundle(double f)
{
    char text[2048];
    snprintf(
        text, sizeof text,
        "{\"command\": \"advise\", \"models\": [{\"id\": \"m1\", \"name\": \"a.gguf\","
        " \"gguf\": {\"tensor_bytes\": 1020, \"types\": [{\"type\": \"Q4_0\", \"n_tensors\": 1,"
        " \"bytes\": 1020}]}, \"runs\": [{\"threads\": 2, \"depth\": 0, \"status\": \"ok\","
        " \"decode\": {\"samples\": [%g, %g, %g]}, \"prefill\": {\"samples\": [500, 510, 490]}}]}],"
        " \"advice\": {\"tables\": [{\"threads\": 2, \"rows\": [{\"model_id\": \"m1\","
        " \"name\": \"a.gguf\", \"format\": \"Q4_0\", \"decode\": {\"samples\": [%g, %g, "
        "%g]}}]}]}}",
        100.0, 101.0, 99.0, 100 * f, 101 * f, 99 * f);
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    return b;
}

static void test_advice_rows(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", advise_bundle(1), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json", advise_bundle(0.8), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_int_equal(c.n_rows, 2);
    assert_null(row_named(&c, RL_CMP_GROUP_DECODE, "decode", 0));
    const rl_cmp_row *pre = row_named(&c, RL_CMP_GROUP_DECODE, "prefill", 0);
    assert_non_null(pre);
    assert_int_equal(pre->cells[1].verdict, RL_CMP_NOISE);
    const rl_cmp_row *d = row_named(&c, RL_CMP_GROUP_ADVICE, "decode", 0);
    assert_non_null(d);
    assert_string_equal(d->key_names[0], "threads");
    assert_string_equal(d->key_values[0], "2");
    assert_string_equal(d->key_names[1], "format");
    assert_string_equal(d->key_values[1], "Q4_0");
    assert_int_equal(d->cells[1].verdict, RL_CMP_SLOWER);
    assert_float_equal(d->cells[1].mean, 80, 1e-9);
    assert_float_equal(d->cells[1].change_pct, -20, 1e-9);
    assert_int_equal(rl_cmp_regressions(&c, 10, NULL), 1);
    char sec[128];
    rl_cmp_sections(c.inputs[0].bundle, sec, sizeof sec);
    assert_string_equal(sec, "llama-bench runs + quantization advice");
    rl_cmp_free(&c);
}

/* Every run of b marked measured disturbed (its "machine" object, docs/BUNDLE.md), and the
 * analysis' sentence about it. */
static cJSON *disturb(cJSON *b)
{
    cJSON *m, *r;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "models"))
    {
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(m, "runs"))
        {
            cJSON *mc = cJSON_AddObjectToObject(r, "machine");
            cJSON_AddBoolToObject(mc, "disturbed", true);
        }
    }
    cJSON *d = cJSON_AddObjectToObject(cJSON_AddObjectToObject(b, "analysis"), "disturbance");
    cJSON_AddStringToObject(d, "text", "other processes used 88% of the CPUs during 1 of 1 runs");
    return b;
}

/* A disturbed side: the cell is suspect, the input names it, the JSON says which side, and a
 * 20% regression is counted apart from the clean ones (--fail-on-regression). The advice row
 * takes its model's run's machine state. */
static void test_disturbed_rows(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", bundle("a.gguf", 1020, 1, 128), &err), RL_OK);
    assert_int_equal(
        rl_cmp_add_bundle(&c, "b.json", disturb(bundle("a.gguf", 1020, 0.8, 128)), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    assert_int_equal(c.n_rows, 1);
    assert_int_equal(c.rows[0].cells[1].verdict, RL_CMP_SLOWER);
    assert_true(c.rows[0].cells[1].suspect);
    assert_false(c.inputs[0].disturbed);
    assert_true(c.inputs[1].disturbed);
    assert_int_equal(c.inputs[1].n_disturbed, 1);
    assert_string_equal(c.inputs[1].disturbance,
                        "other processes used 88% of the CPUs during 1 of 1 runs");
    assert_true(rl_cmp_group_disturbed(&c, RL_CMP_GROUP_DECODE));
    size_t d = 99;
    assert_int_equal(rl_cmp_regressions(&c, 10, &d), 0);
    assert_int_equal(d, 1);
    assert_int_equal(rl_cmp_regressions(&c, 20, &d), 0); /* exactly 20%: not more than 20 */
    assert_int_equal(d, 0);
    cJSON *j = rl_cmp_to_json(&c, RL_CMP_JSON_SUMMARY);
    assert_non_null(j);
    cJSON *cell = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0), "cells"), 1);
    cJSON *di = cJSON_GetObjectItem(cell, "disturbed_inputs");
    assert_int_equal(cJSON_GetArraySize(di), 1);
    assert_int_equal(cJSON_GetArrayItem(di, 0)->valueint, 2);
    cJSON *in1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(in1, "disturbed")));
    assert_true(cJSON_IsFalse(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "inputs"), 0), "disturbed")));
    cJSON_Delete(j);
    rl_cmp_free(&c);

    /* a disturbed baseline: both sides named, in order baseline then input */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", disturb(bundle("a.gguf", 1020, 1, 128)), &err),
                     RL_OK);
    assert_int_equal(
        rl_cmp_add_bundle(&c, "b.json", disturb(bundle("a.gguf", 1020, 0.8, 128)), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    j = rl_cmp_to_json(&c, RL_CMP_JSON_SUMMARY);
    cell = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "rows"), 0), "cells"), 1);
    di = cJSON_GetObjectItem(cell, "disturbed_inputs");
    assert_int_equal(cJSON_GetArraySize(di), 2);
    assert_int_equal(cJSON_GetArrayItem(di, 0)->valueint, 1);
    assert_int_equal(cJSON_GetArrayItem(di, 1)->valueint, 2);
    cJSON_Delete(j);
    rl_cmp_free(&c);

    /* advice rows: disturbed through their model's run at those threads */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", advise_bundle(1), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json", disturb(advise_bundle(0.8)), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    const rl_cmp_row *adv = row_named(&c, RL_CMP_GROUP_ADVICE, "decode", 0);
    assert_non_null(adv);
    assert_true(adv->cells[1].disturbed && adv->cells[1].suspect);
    assert_false(adv->cells[0].disturbed);
    assert_int_equal(rl_cmp_regressions(&c, 10, &d), 0);
    assert_int_equal(d, 1);
    rl_cmp_free(&c);
}

/* The environment warnings: RAM in GiB and the ceiling to 3 significant digits (never raw
 * bytes or 13 digits), numbers within 1% of each other not a difference, a number against an
 * unknown one is; models named by file name (the path's last part, Windows or POSIX), not by
 * id. */
static const rl_cmp_fact *fact_named(const rl_cmp *c, const char *label)
{
    for (size_t f = 0; f < c->n_facts; f++)
        if (strcmp(c->facts[f].label, label) == 0)
            return &c->facts[f];
    fail_msg("no fact %s", label);
    return NULL;
}

static cJSON *env_bundle(double ram, double ceiling, const char *path)
{
    cJSON *b = bundle("a.gguf", 1020, 1, 128);
    cJSON *env = cJSON_AddObjectToObject(b, "environment");
    if (isfinite(ram))
        cJSON_AddNumberToObject(env, "ram_bytes", ram);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(b, "membw"), "peak_read_GBs", ceiling);
    cJSON *m = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "models"), 0);
    if (path)
        cJSON_AddStringToObject(m, "path", path);
    return b;
}

static void test_env_warnings(void **state)
{
    (void)state;
    rl_cmp c;
    rl_error err = {RL_OK, ""};
    /* 0.002% more RAM, a ceiling 0.5% higher: the same machine */
    rl_cmp_init(&c);
    assert_int_equal(
        rl_cmp_add_bundle(&c, "a.json",
                          env_bundle(34014814208.0, 53.9446770206734, "C:\\llm\\models\\q4.gguf"),
                          &err),
        RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json",
                                       env_bundle(34015494504.0, 54.2, "/home/u/models/q4.gguf"),
                                       &err),
                     RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    const rl_cmp_fact *ram = fact_named(&c, "RAM");
    assert_false(ram->differs);
    assert_string_equal(ram->values[0], "31.7 GiB");
    const rl_cmp_fact *ceil = fact_named(&c, "Memory ceiling (GB/s)");
    assert_false(ceil->differs);
    assert_string_equal(ceil->values[0], "53.9");
    assert_string_equal(ceil->values[1], "54.2");
    const rl_cmp_fact *models = fact_named(&c, "Models (identity: tensor types and sizes)");
    assert_false(models->differs);
    assert_string_equal(models->values[0], "1 model: q4.gguf");
    assert_string_equal(models->values[1], "1 model: q4.gguf");
    rl_cmp_free(&c);

    /* 2 GB against 23.5 GiB, a ceiling 1.2% higher, RAM unknown in a third: each differs */
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", env_bundle(2e9, 50, NULL), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json", env_bundle(25276026880.0, 50.6, NULL), &err),
                     RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    ram = fact_named(&c, "RAM");
    assert_true(ram->differs);
    assert_string_equal(ram->values[0], "1.86 GiB");
    assert_string_equal(ram->values[1], "23.5 GiB");
    assert_true(fact_named(&c, "Memory ceiling (GB/s)")->differs);
    /* no path: the model's name */
    assert_string_equal(fact_named(&c, "Models (identity: tensor types and sizes)")->values[0],
                        "1 model: a.gguf");
    rl_cmp_free(&c);
    rl_cmp_init(&c);
    assert_int_equal(rl_cmp_add_bundle(&c, "a.json", env_bundle(2e9, 50, NULL), &err), RL_OK);
    assert_int_equal(rl_cmp_add_bundle(&c, "b.json", env_bundle(NAN, 50, NULL), &err), RL_OK);
    assert_int_equal(rl_cmp_run(&c, &err), RL_OK);
    ram = fact_named(&c, "RAM");
    assert_true(ram->differs);
    assert_string_equal(ram->values[1], "unknown");
    assert_false(fact_named(&c, "Memory ceiling (GB/s)")->differs);
    rl_cmp_free(&c);
    /* the tolerance's edges */
    assert_true(rl_cmp_fact_close(100, 101));
    assert_false(rl_cmp_fact_close(100, 101.1));
    assert_true(rl_cmp_fact_close(0, 0));
    assert_true(rl_cmp_fact_close(-100, -99.5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),          cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_matching),       cmocka_unit_test(test_identity),
        cmocka_unit_test(test_client_rows),    cmocka_unit_test(test_advice_rows),
        cmocka_unit_test(test_disturbed_rows), cmocka_unit_test(test_env_warnings),
        cmocka_unit_test(test_fleet_summary),  cmocka_unit_test(test_validate_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
