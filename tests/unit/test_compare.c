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
 * Checked to fail: with the min-effect test removed (the +1% case becomes "faster") and with
 * the identity built from the name only (the renamed model no longer matches). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"

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
    assert_int_equal(rl_cmp_regressions(&c, 10), 1);
    assert_int_equal(rl_cmp_regressions(&c, 20), 0); /* exactly 20%: not more than 20 */
    assert_true(c.suite_mismatch);                   /* the model sets differ */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
