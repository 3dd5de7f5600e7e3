/* SPDX-License-Identifier: MIT */
/* test_client_count.c: unit tests for client_count.c: the calibration arithmetic
 * (hand-computed: counts 5, 6, 7 -> step 1, overhead 4, consistent; 5, 6, 8 -> inconsistent,
 * nothing subtracted), the strict count parser, counting through real /bin/sh commands, and
 * settling a hand-made result (output and first-delivery tokens with the overhead subtracted,
 * prompt tokens kept).
 * Checked to fail: with the overhead bound 16 dropped (the 20, 21, 22 case) and with the
 * overhead subtracted from prompt counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/client_count.h"

static void test_calibrate(void **state)
{
    (void)state;
    rl_client_calibration c;
    rl_client_calibrate((int64_t[]){5, 6, 7}, &c);
    assert_true(c.step == 1 && c.overhead == 4 && c.consistent);
    rl_client_calibrate((int64_t[]){5, 6, 8}, &c);
    assert_true(c.step == 1 && !c.consistent);
    rl_client_calibrate((int64_t[]){2, 3, 4}, &c); /* fm on macOS 27.2 */
    assert_true(c.step == 1 && c.overhead == 1 && c.consistent);
    rl_client_calibrate((int64_t[]){3, 5, 7}, &c); /* two tokens per "a " */
    assert_true(c.step == 2 && c.overhead == 1 && c.consistent);
    rl_client_calibrate((int64_t[]){1, 1, 1}, &c); /* no step */
    assert_false(c.consistent);
    rl_client_calibrate((int64_t[]){17, 18, 19}, &c); /* overhead 16: the largest allowed */
    assert_true(c.step == 1 && c.overhead == 16 && c.consistent);
    rl_client_calibrate((int64_t[]){18, 19, 20}, &c); /* overhead 17: one too many */
    assert_true(c.overhead == 17 && !c.consistent);
    rl_client_calibrate((int64_t[]){20, 21, 22}, &c); /* overhead 19 > 16 */
    assert_true(c.overhead == 19 && !c.consistent);
    rl_client_calibrate((int64_t[]){1, 3, 5}, &c); /* overhead -1 */
    assert_false(c.consistent);
}

static void test_parse(void **state)
{
    (void)state;
    int64_t n;
    char why[256];
    assert_true(rl_client_parse_count("5\n", 2, &n, why, sizeof why) && n == 5);
    assert_true(rl_client_parse_count("  12 \r\n", 7, &n, why, sizeof why) && n == 12);
    assert_true(rl_client_parse_count("1000000000", 10, &n, why, sizeof why) && n == 1000000000);
    assert_false(rl_client_parse_count("1000000001", 10, &n, why, sizeof why));
    assert_false(rl_client_parse_count("Token count: 5", 14, &n, why, sizeof why));
    assert_string_equal(why, "the counter printed 'Token count: 5', not one whole number");
    assert_int_equal(n, -1);
    assert_false(rl_client_parse_count("", 0, &n, why, sizeof why));
    assert_false(rl_client_parse_count("-3", 2, &n, why, sizeof why));
    assert_false(rl_client_parse_count("1e3", 3, &n, why, sizeof why));
    assert_false(rl_client_parse_count("4 5", 3, &n, why, sizeof why));
    assert_false(rl_client_parse_count("\x1b[31m7", 6, &n, why, sizeof why));
    assert_non_null(strstr(why, "\\e[31m7")); /* escaped in the reason */
}

/* words + 1, like fm count-tokens */
#define COUNTER "awk '{n += NF} END {print n + 1}'"

static void test_count_commands(void **state)
{
    (void)state;
    int64_t n;
    char why[256] = "";
    rl_error err;
    assert_int_equal(rl_client_count("echo 7", 5, "x", 1, &n, why, sizeof why, &err), RL_OK);
    assert_int_equal(n, 7);
    assert_int_equal(rl_client_count("echo oops >&2; exit 2", 5, "x", 1, &n, why, sizeof why, &err),
                     RL_OK);
    assert_int_equal(n, -1);
    assert_string_equal(why, "the counter exited with status 2: oops");
    assert_int_equal(rl_client_count("sleep 5", 0.2, "x", 1, &n, why, sizeof why, &err), RL_OK);
    assert_int_equal(n, -1);
    assert_string_equal(why, "the counter timed out after 0.2 s");
    /* blank text: 0 without running anything (the command would fail) */
    assert_int_equal(rl_client_count("exit 1", 5, " \n", 2, &n, why, sizeof why, &err), RL_OK);
    assert_int_equal(n, 0);
}

static void test_settle(void **state)
{
    (void)state;
    rl_client_counter c;
    rl_error err;
    assert_int_equal(rl_client_counter_init(&c, COUNTER, 5, 1, &err), RL_OK);
    assert_true(c.available && c.cal.overhead == 1 && c.cal.consistent);
    /* "one two " at 0 ms, "three four five" 100 ms later: two deliveries */
    rl_client_result *r = rl_client_result_new(0, 1);
    r->ok = true;
    assert_int_equal(rl_client_result_add(r, 1000000, "one two ", 8, -1, &err), RL_OK);
    assert_int_equal(rl_client_result_add(r, 101000000, "three four five", 15, -1, &err), RL_OK);
    const char *prompts[] = {"a prompt of six words here"};
    size_t lens[] = {strlen(prompts[0])};
    assert_int_equal(rl_client_counter_settle(&c, &r, 1, prompts, lens, &err), RL_OK);
    assert_int_equal(r->output_tokens, 5);    /* 6 - 1 */
    assert_int_equal(r->chunks[0].tokens, 2); /* "one two ": 3 - 1 */
    assert_int_equal(r->chunks[1].tokens, -1);
    assert_int_equal(r->prompt_tokens, 7); /* 6 words + 1, kept as counted */
    assert_string_equal(r->token_source, "counter");
    assert_int_equal(c.failures, 0);
    rl_client_result_free(r);
    rl_client_counter_free(&c);
    /* a counter that cannot count: unavailable with the reason, results untouched */
    assert_int_equal(rl_client_counter_init(&c, "exit 64", 5, 1, &err), RL_OK);
    assert_false(c.available);
    assert_string_equal(c.reason, "counting 'a' failed: the counter exited with status 64");
    rl_client_counter_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibrate),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_count_commands),
        cmocka_unit_test(test_settle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
