/* SPDX-License-Identifier: MIT */
/* test_depth_fit.c: the per-token time against depth (analyse/depth_fit.h), by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "rl_test.h"

#include "analyse/depth_fit.h"

/* Two points: the line through them. 100 tok/s at 0 (10000 us), 50 at 1000 (20000 us):
 * 10 us per token of depth; at 3000: 40000 us, 25 tok/s. */
static void test_two_points(void **state)
{
    (void)state;
    rl_depth_pt p[] = {{0, 100}, {1000, 50}};
    rl_depth_fit f;
    rl_depth_fit_make(p, 2, -1, &f);
    assert_true(f.ok);
    assert_int_equal(f.n_points, 2);
    assert_near(f.tau0_us, 10000, 1e-9);
    assert_near(f.slope_us, 10, 1e-12);
    assert_near(f.max_depth, 1000, 0);
    assert_near(rl_depth_fit_tok_s(&f, 3000), 25, 1e-12);
    assert_near(rl_depth_fit_tok_s(&f, 0), 100, 1e-12);
}

/* Three points, least squares: (0, 10000), (1000, 20000), (2000, 36000) us. Mean depth 1000,
 * mean time 22000; Sxy = 26e6, Sxx = 2e6: slope 13, intercept 9000; residuals 1000, -2000,
 * 1000: SS_res 6e6 of SS_tot 344e6, R^2 = 1 - 6/344. */
static void test_least_squares(void **state)
{
    (void)state;
    rl_depth_pt p[] = {{1000, 50}, {0, 100}, {2000, 1e6 / 36000}, {4000, 1}};
    rl_depth_fit f;
    rl_depth_fit_make(p, 4, 2000, &f); /* 4000 is past max_depth: left out */
    assert_true(f.ok);
    assert_int_equal(f.n_points, 3);
    assert_near(f.slope_us, 13, 1e-9);
    assert_near(f.tau0_us, 9000, 1e-6);
    assert_true(f.has_r2);
    assert_near(f.r2, 1 - 6.0 / 344, 1e-12);
    assert_near(f.max_depth, 2000, 0);
    assert_near(rl_depth_fit_tok_s(&f, 1000), 1e6 / 22000, 1e-9);
}

static void test_not_a_fit(void **state)
{
    (void)state;
    rl_depth_fit f;
    rl_depth_pt one[] = {{512, 80}, {512, 81}};
    rl_depth_fit_make(one, 2, -1, &f);
    assert_false(f.ok);
    assert_string_equal(f.why, "fewer than two depths measured");
    assert_near(rl_depth_fit_tok_s(&f, 100), 0, 0);
    rl_depth_pt faster[] = {{0, 80}, {2048, 81}};
    rl_depth_fit_make(faster, 2, -1, &f);
    assert_false(f.ok);
    assert_string_equal(f.why,
                        "decode did not slow with depth (the noise is larger than the effect)");
    rl_depth_pt bad[] = {{0, 80}, {2048, NAN}};
    rl_depth_fit_make(bad, 2, -1, &f);
    assert_false(f.ok);
    assert_string_equal(f.why, "a decode rate or depth is not a finite number > 0");
    rl_depth_pt zero[] = {{0, 80}, {2048, 0}};
    rl_depth_fit_make(zero, 2, -1, &f);
    assert_false(f.ok);
    /* max_depth leaves one depth */
    rl_depth_pt cut[] = {{0, 80}, {2048, 40}};
    rl_depth_fit_make(cut, 2, 1000, &f);
    assert_false(f.ok);
    assert_int_equal(f.n_points, 1);
    /* a flat line is a fit: slope 0 */
    rl_depth_pt flat[] = {{0, 80}, {2048, 80}};
    rl_depth_fit_make(flat, 2, -1, &f);
    assert_true(f.ok);
    assert_near(f.slope_us, 0, 1e-12);
    assert_near(rl_depth_fit_tok_s(&f, 1e6), 80, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_points),
        cmocka_unit_test(test_least_squares),
        cmocka_unit_test(test_not_a_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
