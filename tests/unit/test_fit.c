/* SPDX-License-Identifier: MIT */
/* test_fit.c: unit tests for fit.c, least squares through the origin over 1/bytes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"

#include "base/fit.h"

static void test_exact_recovery(void **state)
{
    (void)state;
    /* 12 GB/s over 400, 800 and 1600 MB models: y = 12e9 / bytes exactly */
    const double bytes[] = {400e6, 800e6, 1600e6};
    const double tps[] = {30.0, 15.0, 7.5};
    double res[3];
    rl_fit_result f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_fit_roofline(bytes, tps, 3, res, &f, &e), RL_OK);
    assert_int_equal(f.n_points, 3);
    assert_near(f.bw_GBs, 12.0, 1e-12);
    assert_near(f.bw_bytes_s, 12e9, 1e-3);
    assert_true(f.has_r2);
    assert_near(f.r2, 1.0, 1e-12);
    for (int i = 0; i < 3; i++)
        assert_near(res[i], 0.0, 1e-12);
}

static void test_loose_by_hand(void **state)
{
    (void)state;
    /* 30, 29, 28 tok/s over 400/800/1600 MB. x = 2.5e-9, 1.25e-9, 6.25e-10:
     * sum(xy) = 1.2875e-7, sum(x^2) = 8.203125e-18, BW = 15.695238095 GB/s;
     * residuals -9.238, 9.381, 18.190; SS_res = 504.238; SS_tot = 2; R^2 = -251.119 */
    const double bytes[] = {400e6, 800e6, 1600e6};
    const double tps[] = {30.0, 29.0, 28.0};
    double res[3];
    rl_fit_result f;
    assert_int_equal(rl_fit_roofline(bytes, tps, 3, res, &f, NULL), RL_OK);
    assert_near(f.bw_bytes_s, 1.2875e-7 / 8.203125e-18, 1e-2);
    assert_near(f.bw_GBs, 15.695238095238, 1e-9);
    assert_near(res[0], -9.238095238095, 1e-9);
    assert_near(res[1], 9.380952380952, 1e-9);
    assert_near(res[2], 18.190476190476, 1e-9);
    assert_near(f.ss_tot, 2.0, 1e-12);
    assert_near(f.ss_res, 504.238095238095, 1e-8);
    assert_near(f.r2, 1.0 - 504.238095238095 / 2.0, 1e-8);
}

static void test_one_point(void **state)
{
    (void)state;
    const double bytes[] = {500e6};
    const double tps[] = {40.0};
    rl_fit_result f;
    assert_int_equal(rl_fit_roofline(bytes, tps, 1, NULL, &f, NULL), RL_OK);
    assert_int_equal(f.n_points, 1);
    assert_near(f.bw_GBs, 20.0, 1e-12);
    assert_false(f.has_r2); /* SS_tot = 0 */
}

static void test_identical_y(void **state)
{
    (void)state;
    const double bytes[] = {300e6, 700e6, 1100e6};
    const double tps[] = {0.1, 0.1, 0.1};
    rl_fit_result f;
    assert_int_equal(rl_fit_roofline(bytes, tps, 3, NULL, &f, NULL), RL_OK);
    assert_false(f.has_r2);
    assert_near(f.ss_tot, 0.0, 0);
}

static void test_errors(void **state)
{
    (void)state;
    rl_fit_result f;
    rl_error e = {RL_OK, ""};
    const double x0[] = {0.0, 0.0};
    const double y[] = {1.0, 2.0};
    assert_int_equal(rl_fit_origin(x0, y, 2, NULL, &f, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "every x is 0"));
    assert_int_equal(rl_fit_origin(y, y, 0, NULL, &f, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "no points"));
    assert_int_equal(rl_fit_origin(NULL, y, 2, NULL, &f, &e), RL_EINPUT);
    const double xn[] = {1.0, NAN};
    assert_int_equal(rl_fit_origin(xn, y, 2, NULL, &f, &e), RL_EINPUT);
    const double b0[] = {100e6, 0.0};
    assert_int_equal(rl_fit_roofline(b0, y, 2, NULL, &f, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "point 2"));
    const double bneg[] = {-5.0};
    assert_int_equal(rl_fit_roofline(bneg, y, 1, NULL, &f, &e), RL_EINPUT);
    assert_int_equal(rl_fit_roofline(y, y, RL_FIT_MAX_POINTS + 1, NULL, &f, &e), RL_EINPUT);
}

/* exactly RL_FIT_MAX_POINTS points is still allowed: tok/s = 2e9 / bytes recovered */
static void test_max_points(void **state)
{
    (void)state;
    static double bytes[RL_FIT_MAX_POINTS], tok[RL_FIT_MAX_POINTS];
    for (size_t i = 0; i < RL_FIT_MAX_POINTS; i++) {
        bytes[i] = 1e6 * (double)(i + 1);
        tok[i] = 2e9 / bytes[i];
    }
    rl_fit_result f;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_fit_roofline(bytes, tok, RL_FIT_MAX_POINTS, NULL, &f, &e), RL_OK);
    assert_true(fabs(f.bw_bytes_s - 2e9) < 1.0);
}

/* rl_fit_line: two points exactly, three by hand, and what it refuses. */
static void test_line(void **state)
{
    (void)state;
    rl_line_fit f;
    rl_error e = {RL_OK, ""};
    /* (4e6, 200) and (16e6, 500): slope 300 / 12e6 = 2.5e-5, intercept 200 - 100 = 100 */
    const double x2[] = {4e6, 16e6}, y2[] = {200.0, 500.0};
    assert_int_equal(rl_fit_line(x2, y2, 2, &f, &e), RL_OK);
    assert_int_equal(f.n_points, 2);
    assert_near(f.slope, 2.5e-5, 1e-18);
    assert_near(f.intercept, 100.0, 1e-9);
    assert_true(f.has_r2);
    assert_near(f.r2, 1.0, 1e-12);
    /* (0, 1), (1, 3), (2, 2): mean x 1, mean y 2, sxy = 1, sxx = 2: slope 0.5, intercept 1.5;
     * residuals -0.5, 1, -0.5: SS_res 1.5, SS_tot 2, R^2 0.25 */
    const double x3[] = {0, 1, 2}, y3[] = {1, 3, 2};
    assert_int_equal(rl_fit_line(x3, y3, 3, &f, &e), RL_OK);
    assert_near(f.slope, 0.5, 1e-15);
    assert_near(f.intercept, 1.5, 1e-15);
    assert_near(f.r2, 0.25, 1e-15);
    /* equal y: a line, no R^2 */
    const double y4[] = {2, 2, 2};
    assert_int_equal(rl_fit_line(x3, y4, 3, &f, &e), RL_OK);
    assert_false(f.has_r2);
    assert_near(f.slope, 0.0, 1e-15);
    /* refused: one point, equal x, a NaN */
    assert_int_equal(rl_fit_line(x3, y3, 1, &f, &e), RL_EINPUT);
    const double xs[] = {5, 5};
    assert_int_equal(rl_fit_line(xs, y2, 2, &f, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "every x is the same"));
    const double yn[] = {1, NAN};
    assert_int_equal(rl_fit_line(x2, yn, 2, &f, &e), RL_EINPUT);
    assert_int_equal(rl_fit_line(x2, y2, 2, NULL, &e), RL_EINTERNAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_recovery), cmocka_unit_test(test_loose_by_hand),
        cmocka_unit_test(test_line),           cmocka_unit_test(test_one_point),
        cmocka_unit_test(test_identical_y),    cmocka_unit_test(test_errors),
        cmocka_unit_test(test_max_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
