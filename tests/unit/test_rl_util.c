/* test_rl_util.c: unit tests for rl_error.c and rl_util.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rl_error.h"
#include "rl_util.h"

static void test_exit_codes(void **state)
{
    (void)state;
    assert_int_equal(rl_exit_code(RL_OK), 0);
    assert_int_equal(rl_exit_code(RL_NOTHING), 1);
    assert_int_equal(rl_exit_code(RL_EINPUT), 2);
    assert_int_equal(rl_exit_code(RL_EMISSING), 3);
    assert_int_equal(rl_exit_code(RL_EOUTPUT), 4);
    assert_int_equal(rl_exit_code(RL_EINTERNAL), 5);
    assert_int_equal(rl_exit_code(RL_EINTERRUPTED), 130);
}

static void test_fail_is_one_line(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_fail(&e, RL_EINPUT, "bad %s\nsecond\rline", "x"), RL_EINPUT);
    assert_string_equal(e.msg, "bad x second line");
    assert_int_equal(e.status, RL_EINPUT);
    assert_int_equal(rl_prefix(&e, "file %d", 7), RL_EINPUT);
    assert_string_equal(e.msg, "file 7: bad x second line");
    assert_int_equal(rl_fail(NULL, RL_EOUTPUT, "ignored"), RL_EOUTPUT);
}

static void test_prefix_truncates_safely(void **state)
{
    (void)state;
    rl_error e;
    char big[2000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rl_fail(&e, RL_EINPUT, "%s", big);
    assert_int_equal(strlen(e.msg), sizeof e.msg - 1);
    rl_prefix(&e, "%s", big);
    assert_true(strlen(e.msg) < sizeof e.msg);
}

static void test_parse_u64(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_true(rl_parse_u64("0", &v));
    assert_int_equal(v, 0);
    assert_true(rl_parse_u64("18446744073709551615", &v));
    assert_true(v == UINT64_MAX);
    assert_false(rl_parse_u64("18446744073709551616", &v));
    assert_false(rl_parse_u64("-1", &v));
    assert_false(rl_parse_u64("+1", &v));
    assert_false(rl_parse_u64("12abc", &v));
    assert_false(rl_parse_u64("", &v));
    assert_false(rl_parse_u64(" 1", &v));
    assert_false(rl_parse_u64(NULL, &v));
}

static void test_parse_double(void **state)
{
    (void)state;
    double d = 0;
    assert_true(rl_parse_double("62.5", &d));
    assert_true(d == 62.5);
    assert_true(rl_parse_double("-3e2", &d));
    assert_true(d == -300.0);
    assert_false(rl_parse_double("nan", &d));
    assert_false(rl_parse_double("inf", &d));
    assert_false(rl_parse_double("1e999", &d));
    assert_false(rl_parse_double("1,5", &d));
    assert_false(rl_parse_double("", &d));
}

static void test_calloc_overflow(void **state)
{
    (void)state;
    assert_null(rl_calloc(SIZE_MAX / 2, 4));
    void *p = rl_calloc(0, 8);
    assert_non_null(p);
    free(p);
}

static void test_write_file(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/test_rl_util.out", tmp ? tmp : "/tmp");
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_write_file(path, "hello", 5, &e), RL_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[16] = {0};
    assert_int_equal(fread(buf, 1, sizeof buf, f), 5);
    fclose(f);
    assert_string_equal(buf, "hello");
    remove(path);
    assert_int_equal(rl_write_file("/proc/no-such-dir/x", "x", 1, &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "/proc/no-such-dir/x"));
}

static void test_fmt_mib(void **state)
{
    (void)state;
    char b[32];
    rl_fmt_mib(b, sizeof b, 512ull << 20);
    assert_string_equal(b, "512 MiB");
    rl_fmt_mib(b, sizeof b, (3ull << 20) / 2);
    assert_string_equal(b, "1.5 MiB");
    rl_fmt_mib(b, sizeof b, 0);
    assert_string_equal(b, "0 MiB");
}

static void test_check_writable(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/new-file.json", tmp ? tmp : "/tmp");
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_check_writable(path, &e), RL_OK);
    assert_int_equal(rl_check_writable("relative-name.json", &e), RL_OK);
    assert_int_equal(rl_check_writable(tmp ? tmp : "/tmp", &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_int_equal(rl_check_writable("/proc/no-such-dir/x.json", &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "/proc/no-such-dir"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_fail_is_one_line),
        cmocka_unit_test(test_prefix_truncates_safely),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_parse_double),
        cmocka_unit_test(test_calloc_overflow),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_fmt_mib),
        cmocka_unit_test(test_check_writable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
