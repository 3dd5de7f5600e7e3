/* SPDX-License-Identifier: MIT */
/* test_cmd_inspect.c: the inspect command's own option handling, called directly (main.c
 * still answers --help for it until its transitional block goes, so the CLI tests cannot
 * reach this): -h/--help anywhere print the usage and succeed, a value after -- is a file,
 * bad options fail with one line. Standard output is captured in a file under $RL_TMP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/cmd.h"

/* Run inspect with the given words (argv[0] "inspect" is added); its stdout into *out. */
static rl_status run_inspect(char **out, rl_error *err, int n, ...)
{
    char *argv[16] = {"inspect"};
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < 14; i++)
        argv[i + 1] = va_arg(ap, char *);
    va_end(ap);

    const char *t = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/cmd-inspect-%ld.out", t && *t ? t : "/tmp", (long)getpid());
    fflush(stdout);
    int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    assert_int_equal(dup2(fd, 1), 1);
    close(fd);
    *err = (rl_error){RL_OK, ""};
    rl_status st = rl_cmd_inspect.run(n + 1, argv, err);
    fflush(stdout);
    assert_int_equal(dup2(saved, 1), 1);
    close(saved);

    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[65536];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = '\0';
    fclose(f);
    remove(path);
    *out = buf;
    return st;
}

static void test_help(void **state)
{
    (void)state;
    char *out;
    rl_error err;
    assert_int_equal(run_inspect(&out, &err, 1, "--help"), RL_OK);
    assert_string_equal(out, rl_cmd_inspect.usage);
    assert_int_equal(run_inspect(&out, &err, 1, "-h"), RL_OK);
    assert_string_equal(out, rl_cmd_inspect.usage);
    /* after other options and operands, even ones that do not exist: nothing is read */
    assert_int_equal(run_inspect(&out, &err, 3, "--json", "/no/such.gguf", "-h"), RL_OK);
    assert_string_equal(out, rl_cmd_inspect.usage);
    assert_string_equal(err.msg, "");
}

static void test_bad_options(void **state)
{
    (void)state;
    char *out;
    rl_error err;
    assert_int_equal(run_inspect(&out, &err, 2, "--bogus", "x.gguf"), RL_EINPUT);
    assert_string_equal(err.msg, "unknown option '--bogus' (see llama-roofline inspect --help)");
    assert_string_equal(out, "");
    assert_int_equal(run_inspect(&out, &err, 2, "--json=yes", "x.gguf"), RL_EINPUT);
    assert_string_equal(err.msg,
                        "option '--json' takes no value (see llama-roofline inspect --help)");
    assert_int_equal(run_inspect(&out, &err, 1, "-x"), RL_EINPUT);
    assert_string_equal(err.msg, "unknown option '-x' (see llama-roofline inspect --help)");
    assert_int_equal(run_inspect(&out, &err, 1, "--json"), RL_EINPUT);
    assert_non_null(strstr(err.msg, "nothing to inspect: give one or more GGUF files"));
    assert_string_equal(out, "");
}

static void test_double_dash(void **state)
{
    (void)state;
    char *out;
    rl_error err;
    /* after --, "--help" is a file name, and a missing one */
    assert_int_equal(run_inspect(&out, &err, 3, "--json", "--", "--help"), RL_EINPUT);
    assert_string_equal(err.msg, "--help: no such file");
    assert_string_equal(out, "[]\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_double_dash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
