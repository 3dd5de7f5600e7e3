/* rl_test.h: helpers shared by the cmocka unit tests in tests/unit (owned by the tests).
 * Include after <cmocka.h>. */
#ifndef RL_TEST_H
#define RL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* |a - b| <= tol */
#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* $RL_SRC/rel into buf (the tests run with RL_SRC set to the source tree) */
static inline const char *rl_test_src_path(char *buf, size_t cap, const char *rel)
{
    const char *src = getenv("RL_SRC");
    assert_non_null(src);
    snprintf(buf, cap, "%s/%s", src, rel);
    return buf;
}

#endif
