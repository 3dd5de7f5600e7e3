/* SPDX-License-Identifier: MIT */
/* test_stats.c: unit tests for stats.c: the t table and its computed continuation, percentiles,
 * median, and the small-sample rules. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"

#include "base/stats.h"

/* Published two-sided 95% critical values, df 1..30 (three decimals). */
static const double known_t95[30] = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

static void test_t95_table(void **state)
{
    (void)state;
    for (size_t df = 1; df <= 30; df++) {
        assert_near(rl_stats_t95(df), known_t95[df - 1], 0.0005);
        /* the table and the incomplete-beta CDF check each other */
        assert_near(rl_stats_t_tail2(rl_stats_t95(df), (double)df), 0.05, 1e-11);
    }
    assert_true(isnan(rl_stats_t95(0)));
}

static void test_t95_computed(void **state)
{
    (void)state;
    /* reference values to 1e-12 (high-precision inversion of the t CDF) */
    assert_near(rl_stats_t95(31), 2.039513446396408, 1e-9);
    assert_near(rl_stats_t95(40), 2.021075390306273, 1e-9);
    assert_near(rl_stats_t95(60), 2.000297822014260, 1e-9);
    assert_near(rl_stats_t95(120), 1.979930405082441, 1e-9);
    assert_near(rl_stats_t95(1000), 1.962339080826408, 1e-9);
    assert_near(rl_stats_t95(100000), 1.959987707534610, 1e-9);
    assert_near(rl_stats_t95(1000000), 1.959966356814107, 1e-9);
    assert_near(rl_stats_t95(1000001), 1.959966356814107, 1e-9); /* the expansion takes over */
    assert_near(rl_stats_t95(1000000000), 1.959963984540054, 1e-8);
    /* the usual three-decimal values */
    assert_near(rl_stats_t95(40), 2.021, 0.0005);
    assert_near(rl_stats_t95(60), 2.000, 0.0005);
    assert_near(rl_stats_t95(120), 1.980, 0.0005);
    assert_near(rl_stats_t95(1000), 1.962, 0.0005);
    double prev = rl_stats_t95(1);
    for (size_t df = 2; df <= 3000; df++) {
        double t = rl_stats_t95(df);
        assert_true(t < prev);
        prev = t;
    }
}

static void test_t_tail2(void **state)
{
    (void)state;
    assert_near(rl_stats_t_tail2(0.0, 5), 1.0, 0);
    assert_near(rl_stats_t_tail2(1.959966356814107, 1e6), 0.05, 1e-9);
    assert_near(rl_stats_t_tail2(1.0, 1.0), 0.5, 1e-12); /* Cauchy: P(|T| > 1) = 1/2 */
    assert_near(rl_stats_t_tail2(-12.706204736175, 1.0), 0.05, 1e-11);
    assert_true(isnan(rl_stats_t_tail2(1.0, 0.0)));
    assert_true(isnan(rl_stats_t_tail2(NAN, 3.0)));
}

static void test_summary_eight(void **state)
{
    (void)state;
    const double x[] = {9, 4, 2, 5, 4, 7, 4, 5};
    rl_stats_summary s;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_stats_summarize(x, 8, &s, &e), RL_OK);
    assert_int_equal(s.n, 8);
    assert_true(s.has_center && s.has_sd && s.has_cv && s.has_ci95);
    assert_near(s.mean, 5.0, 1e-12);
    assert_near(s.sd, sqrt(32.0 / 7.0), 1e-12);
    assert_near(s.cv, sqrt(32.0 / 7.0) / 5.0, 1e-12);
    assert_near(s.min, 2, 0);
    assert_near(s.max, 9, 0);
    assert_near(s.median, 4.5, 1e-12); /* even n: mean of the middle two */
    assert_near(s.p50, 4.5, 1e-12);
    /* sorted 2 4 4 4 5 5 7 9: p90 at rank 6.3 -> 7 + 0.3 * 2; p99 at 6.93 -> 7 + 0.93 * 2 */
    assert_near(s.p90, 7.6, 1e-12);
    assert_near(s.p95, 8.3, 1e-12); /* rank 6.65 -> 7 + 0.65 * 2 */
    assert_near(s.p99, 8.86, 1e-12);
    double half = 2.364624251593 * sqrt(32.0 / 7.0) / sqrt(8.0);
    assert_near(s.ci95_t, 2.364624251593, 1e-12);
    assert_near(s.ci95_low, 5.0 - half, 1e-9);
    assert_near(s.ci95_high, 5.0 + half, 1e-9);
    assert_near(half, 1.787487918236373, 1e-9);
}

static void test_median_odd_even(void **state)
{
    (void)state;
    rl_stats_summary s;
    const double odd[] = {3, 1, 2};
    const double even[] = {4, 1, 2, 3};
    assert_int_equal(rl_stats_summarize(odd, 3, &s, NULL), RL_OK);
    assert_near(s.median, 2.0, 0);
    assert_int_equal(rl_stats_summarize(even, 4, &s, NULL), RL_OK);
    assert_near(s.median, 2.5, 0);
    const double sorted[] = {10, 20, 30, 40, 50};
    assert_near(rl_stats_percentile_sorted(sorted, 5, 0), 10, 0);
    assert_near(rl_stats_percentile_sorted(sorted, 5, 100), 50, 0);
    assert_near(rl_stats_percentile_sorted(sorted, 5, 25), 20, 1e-12);
    assert_near(rl_stats_percentile_sorted(sorted, 5, 90), 46, 1e-12);
    assert_near(rl_stats_percentile_sorted(sorted, 5, 99), 49.6, 1e-12);
    assert_true(isnan(rl_stats_percentile_sorted(sorted, 5, 101)));
    assert_true(isnan(rl_stats_percentile_sorted(sorted, 5, -1)));
    assert_true(isnan(rl_stats_percentile_sorted(sorted, 0, 50)));
}

static void test_small_samples(void **state)
{
    (void)state;
    rl_stats_summary s;
    rl_error e = {RL_OK, ""};
    /* n = 0: nothing */
    assert_int_equal(rl_stats_summarize(NULL, 0, &s, &e), RL_OK);
    assert_false(s.has_center || s.has_sd || s.has_cv || s.has_ci95);
    cJSON *j = rl_stats_to_json(&s);
    assert_non_null(j);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "available")));
    assert_string_equal(cJSON_GetObjectItem(j, "reason")->valuestring, "no samples");
    cJSON_Delete(j);

    /* n = 1: centre but no spread, never a 0 */
    const double one[] = {42.5};
    assert_int_equal(rl_stats_summarize(one, 1, &s, &e), RL_OK);
    assert_true(s.has_center);
    assert_false(s.has_sd || s.has_cv || s.has_ci95);
    assert_near(s.mean, 42.5, 0);
    assert_near(s.median, 42.5, 0);
    assert_near(s.p90, 42.5, 0);
    assert_near(s.p99, 42.5, 0);
    j = rl_stats_to_json(&s);
    assert_non_null(j);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "available")));
    assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "derived");
    for (const char *const *k = (const char *const[]){"sd", "cv", "ci95", NULL}; *k; k++) {
        cJSON *u = cJSON_GetObjectItem(j, *k);
        assert_true(cJSON_IsObject(u));
        assert_true(cJSON_IsFalse(cJSON_GetObjectItem(u, "available")));
    }
    cJSON_Delete(j);

    /* mean 0: sd and CI but no CV */
    const double sym[] = {-1, 1};
    assert_int_equal(rl_stats_summarize(sym, 2, &s, &e), RL_OK);
    assert_true(s.has_sd && s.has_ci95);
    assert_false(s.has_cv);
    assert_near(s.ci95_t, 12.706204736175, 1e-12);
    j = rl_stats_to_json(&s);
    assert_non_null(j);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "sd")));
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(j, "cv")));
    cJSON *ci = cJSON_GetObjectItem(j, "ci95");
    assert_near(cJSON_GetObjectItem(ci, "df")->valuedouble, 1, 0);
    cJSON_Delete(j);
}

static void test_bad_input(void **state)
{
    (void)state;
    rl_stats_summary s;
    rl_error e = {RL_OK, ""};
    const double bad[] = {1, NAN, 3};
    assert_int_equal(rl_stats_summarize(bad, 3, &s, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "sample 2"));
    assert_false(s.has_center);
    assert_int_equal(rl_stats_summarize(NULL, 3, &s, &e), RL_EINPUT);
    const double inf[] = {INFINITY};
    assert_int_equal(rl_stats_summarize(inf, 1, &s, &e), RL_EINPUT);
}

static void test_large_sample(void **state)
{
    (void)state;
    size_t n = 1000000;
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)((i * 7919) % n); /* a permutation of 0..n-1 */
    rl_stats_summary s;
    assert_int_equal(rl_stats_summarize(x, n, &s, NULL), RL_OK);
    assert_near(s.median, (double)(n - 1) / 2.0, 1e-9);
    assert_near(s.p90, 0.9 * (double)(n - 1), 1e-6);
    assert_near(s.ci95_t, 1.959965, 1e-5);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t95_table),       cmocka_unit_test(test_t95_computed),
        cmocka_unit_test(test_t_tail2),         cmocka_unit_test(test_summary_eight),
        cmocka_unit_test(test_median_odd_even), cmocka_unit_test(test_small_samples),
        cmocka_unit_test(test_bad_input),       cmocka_unit_test(test_large_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
