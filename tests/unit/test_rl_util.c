/* SPDX-License-Identifier: MIT */
/* test_rl_util.c: unit tests for the shared helpers: rl_error.c, rl_util.c (the number rule and
 * option values), rl_text.c (formatters, terminal escaping, the locale), rl_file.c (atomic
 * writes, regular-file reads), rl_json.c and rl_opt.c (getopt's messages, the option loop).
 * Each group was checked once against a deliberately broken helper (accepting "+3", dropping
 * the uselocale call, writing to "<path>.tmp", printing u64 through a double) and failed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <locale.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/rl_error.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

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
    assert_string_equal(e.msg, "bad x\\nsecond\\rline");
    assert_int_equal(e.status, RL_EINPUT);
    assert_int_equal(rl_prefix(&e, "file %d", 7), RL_EINPUT);
    assert_string_equal(e.msg, "file 7: bad x\\nsecond\\rline");
    /* a hostile file name never reaches the terminal raw */
    rl_fail(&e, RL_EINPUT, "%s: no such file", "bad\x1b]0;pwned\a.gguf");
    assert_string_equal(e.msg, "bad\\e]0;pwned\\x07.gguf: no such file");
    rl_prefix(&e, "%s", "x\x9by");
    assert_string_equal(e.msg, "x\\x9by: bad\\e]0;pwned\\x07.gguf: no such file");
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
    assert_true(rl_parse_double("13", &d));
    assert_true(d == 13.0);
    assert_true(rl_parse_double("0.5", &d));
    assert_true(d == 0.5);
    /* the number rule: plain decimal only */
    assert_false(rl_parse_double("-3e2", &d));
    assert_false(rl_parse_double("1e308", &d));
    assert_false(rl_parse_double("0x10", &d));
    assert_false(rl_parse_double(" 12", &d));
    assert_false(rl_parse_double("12 ", &d));
    assert_false(rl_parse_double("+3", &d));
    assert_false(rl_parse_double(".5", &d));
    assert_false(rl_parse_double("5.", &d));
    assert_false(rl_parse_double("1.2.3", &d));
    assert_false(rl_parse_double("nan", &d));
    assert_false(rl_parse_double("inf", &d));
    assert_false(rl_parse_double("1e999", &d));
    assert_false(rl_parse_double("1,5", &d));
    assert_false(rl_parse_double("", &d));
}

static void test_parse_i64(void **state)
{
    (void)state;
    int64_t v = 0;
    assert_true(rl_parse_i64("-1", &v));
    assert_true(v == -1);
    assert_true(rl_parse_i64("-9223372036854775808", &v));
    assert_true(v == INT64_MIN);
    assert_false(rl_parse_i64("9223372036854775808", &v));
    assert_false(rl_parse_i64("+1", &v));
    assert_false(rl_parse_i64("-", &v));
    assert_false(rl_parse_i64("--1", &v));
    /* "-0" is no negative number: refused, like "+0" (failed before the fix: accepted as 0, so
     * --depth -0 and --gpu-layers -0 went through) */
    assert_false(rl_parse_i64("-0", &v));
    assert_false(rl_parse_i64("-00", &v));
    rl_error e = {RL_OK, ""};
    int n = 7;
    assert_int_equal(rl_opt_int("--depth", "-0", 0, 10, &n, &e), RL_EINPUT);
    assert_string_equal(e.msg, "--depth: '-0' is not valid: give a whole number from 0 to 10");
    assert_int_equal(n, 7);
}

static void test_opt_values(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    int v = 0;
    assert_int_equal(rl_opt_int("--reps", "3", 1, 100, &v, &e), RL_OK);
    assert_int_equal(v, 3);
    assert_int_equal(rl_opt_int("--reps", "0", 1, 100, &v, &e), RL_EINPUT);
    assert_string_equal(e.msg, "--reps: '0' is not valid: give a whole number from 1 to 100");
    assert_int_equal(rl_opt_int("--reps", "+3", 1, 100, &v, &e), RL_EINPUT);
    double d = 0;
    assert_int_equal(rl_opt_double("--peak-bw", "13.98", 0, true, 1e5, &d, &e), RL_OK);
    assert_true(d == 13.98);
    assert_int_equal(rl_opt_double("--peak-bw", "0", 0, true, 1e5, &d, &e), RL_EINPUT);
    assert_int_equal(rl_opt_double("--peak-bw", "1e308", 0, true, 1e5, &d, &e), RL_EINPUT);
    assert_int_equal(rl_opt_double("--peak-bw", "200000", 0, true, 1e5, &d, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "--peak-bw: '200000' is not valid"));
    uint64_t u = 0;
    assert_int_equal(rl_opt_u64("--seed", "18446744073709551615", 0, UINT64_MAX, &u, &e), RL_OK);
    assert_true(u == UINT64_MAX);
}

static void test_opt_int_list(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    int out[8], n = -1;
    assert_int_equal(rl_opt_int_list("-t", "4,1,2,4", 1, 8, out, 8, &n, true, &e), RL_OK);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 4);
    assert_int_equal(rl_opt_int_list("-t", "4,1", 1, 8, out, 8, &n, false, &e), RL_OK);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 4);
    const char *bad[] = {"1,,2", ",1", "1,", "", "1, 2", "0", "9", "a", "1;2", "-1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(rl_opt_int_list("-t", bad[i], 1, 8, out, 8, &n, true, &e), RL_EINPUT);
        assert_int_equal(n, 0);
    }
    assert_int_equal(rl_opt_int_list("-t", "1,2,3", 1, 8, out, 2, &n, true, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "at most 2"));
}

/* Did-you-mean: the distance (a swap is one edit, case ignored) and the nearest word. */
static void test_nearest(void **state)
{
    (void)state;
    assert_int_equal(rl_edit_distance("reps", "reps"), 0);
    assert_int_equal(rl_edit_distance("qiuck", "quick"), 1); /* a swap */
    assert_int_equal(rl_edit_distance("RUN", "run"), 0);
    assert_int_equal(rl_edit_distance("rn", "run"), 1);
    assert_int_equal(rl_edit_distance("", "abc"), 3);
    assert_int_equal(rl_edit_distance("kitten", "sitting"), 3);
    const char *verbs[] = {"run", "report", "inspect", "import"};
    assert_int_equal(rl_nearest_word("rn", verbs, 4), 0);
    assert_int_equal(rl_nearest_word("reprot", verbs, 4), 1);
    assert_int_equal(rl_nearest_word("zzzzzz", verbs, 4), -1);
    assert_int_equal(rl_nearest_word("xyn", verbs, 4), -1); /* 2 edits from run: over 1 */
    assert_int_equal(rl_nearest_word("imprt", verbs, 4), 3);
    const char *tie[] = {"abcd", "abce"};
    assert_int_equal(rl_nearest_word("abcf", tie, 2), -1); /* one edit from both: no guess */
    /* the limit: len/3 edits (at least 1): 6 letters allow 2, not 3 */
    const char *one[] = {"threads"};
    assert_int_equal(rl_nearest_word("thrads", one, 1), 0);
    assert_int_equal(rl_nearest_word("thrdx", one, 1), -1);
}

/* The unknown-option messages: did-you-mean, ambiguous, llama-bench's -ngl and -p rewritten
 * only where the command has the long option, a value that reads "-ngl" left alone. */
static void test_opt_messages(void **state)
{
    (void)state;
    static const struct option lo[] = {{"repetitions", required_argument, NULL, 'r'},
                                       {"reps", required_argument, NULL, 'r'},
                                       {"resume", no_argument, NULL, 'R'},
                                       {"n-gpu-layers", required_argument, NULL, 'g'},
                                       {"n-prompt", required_argument, NULL, 'p'},
                                       {"bench-arg", required_argument, NULL, 'b'},
                                       {NULL, 0, NULL, 0}};
    rl_error e = {RL_OK, ""};
    char a0[] = "run", a1[] = "--resme";
    char *v1[] = {a0, a1, NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, v1, "o:", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg,
                        "unknown option '--resme' (did you mean '--resume'? see llama-roofline "
                        "run --help)");
    char a2[] = "--re";
    char *v2[] = {a0, a2, NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, v2, "o:", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "option '--re' is ambiguous: it begins --repetitions, --reps, "
                               "--resume (see llama-roofline run --help)");
    static const struct option ng[] = {{"n-gen", required_argument, NULL, 'n'},
                                       {"n-prompt", required_argument, NULL, 'p'},
                                       {NULL, 0, NULL, 0}};
    char n1[] = "--n-", n2[] = "3"; /* two options that take a value, of different meanings */
    char *vn[] = {a0, n1, n2, NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(3, vn, "o:", ng, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "option '--n-' is ambiguous: it begins --n-gen, --n-prompt (see "
                               "llama-roofline run --help)");
    char a3[] = "--rep", a4[] = "2"; /* two names of one option: not ambiguous */
    char *v3[] = {a0, a3, a4, NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(3, v3, "o:", lo, &e), 'r');
    assert_string_equal(optarg, "2");
    char b1[] = "-ngl", b2[] = "9", b3[] = "--bench-arg", b4[] = "-ngl", b5[] = "-p64", b6[] = "-o",
         b7[] = "-ngl";
    char *v4[] = {a0, b1, b2, b3, b4, b5, b6, b7, NULL};
    rl_opt_dash_aliases(8, v4, "o:", lo);
    assert_string_equal(v4[1], "--n-gpu-layers");
    assert_string_equal(v4[3], "--bench-arg");
    assert_string_equal(v4[4], "-ngl"); /* --bench-arg's value */
    assert_string_equal(v4[5], "--n-prompt=64");
    assert_string_equal(v4[7], "-ngl"); /* -o's value */
    char c1[] = "-p", c2[] = "1";
    char *v5[] = {a0, c1, c2, NULL};
    rl_opt_dash_aliases(3, v5, "p:o:", lo); /* the command's own -p wins */
    assert_string_equal(v5[1], "-p");
    static const struct option none[] = {{"out", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
    char d1[] = "-ngl";
    char *v6[] = {a0, d1, NULL};
    rl_opt_dash_aliases(2, v6, "o:", none); /* no --n-gpu-layers here: left as typed */
    assert_string_equal(v6[1], "-ngl");
}

/* The progress line cut to the terminal's width: columns are characters, not bytes. */
static void test_progress_fit(void **state)
{
    (void)state;
    char a[] = "[1/2] model.gguf t=2";
    assert_int_equal(rl_progress_fit(a, 10), 10);
    assert_string_equal(a, "[1/2] mode");
    char b[] = "short";
    assert_int_equal(rl_progress_fit(b, 10), 5);
    assert_string_equal(b, "short");
    char c[] = "\xc3\xa9t\xc3\xa9 mod\xc3\xa8le"; /* "été modèle": 10 characters, 13 bytes */
    assert_int_equal(rl_progress_fit(c, 4), 4);
    assert_string_equal(c, "\xc3\xa9t\xc3\xa9 ");
    char d[] = "abc";
    assert_int_equal(rl_progress_fit(d, 0), 0);
    assert_string_equal(d, "");
}

/* getopt_long through rl_getopt: both value syntaxes, mixed operands, "-h" as a value. */
static void test_getopt(void **state)
{
    (void)state;
    static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    char *argv1[] = {"verb", "a.gguf", "--out=x", "--json", "-o", "-h", "b.gguf", NULL};
    rl_error e = {RL_OK, ""};
    rl_opt_begin();
    int c, saw_h = 0, saw_j = 0;
    const char *out = NULL;
    while ((c = rl_getopt(7, argv1, "o:jh", lo, &e)) != -1) {
        assert_true(c != RL_OPT_ERROR);
        if (c == 'o')
            out = optarg;
        saw_h += c == 'h';
        saw_j += c == 'j';
    }
    assert_string_equal(out, "-h");
    assert_int_equal(saw_h, 0);
    assert_int_equal(saw_j, 1);
    assert_int_equal(7 - optind, 2);
    assert_string_equal(argv1[optind], "a.gguf");

    char *argv2[] = {"verb", "--bogus", NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, argv2, "o:jh", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "unknown option '--bogus' (see llama-roofline verb --help)");
    char *argv3[] = {"verb", "--out", NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, argv3, "o:jh", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "option '--out' needs a value (see llama-roofline verb --help)");
    char *argv4[] = {"verb", "-x", NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, argv4, "o:jh", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "unknown option '-x' (see llama-roofline verb --help)");
    char *argv5[] = {"verb", "--json=1", NULL};
    rl_opt_begin();
    assert_int_equal(rl_getopt(2, argv5, "o:jh", lo, &e), RL_OPT_ERROR);
    assert_string_equal(e.msg, "option '--json' takes no value (see llama-roofline verb --help)");
}

/* rl_opt_each's fn for the tests: records each option in the log (its value after ':') and
 * fails on 'x' with an RL_EOUTPUT the loop must hand back. */
typedef struct {
    char log[128];
    int calls;
} opt_log;

static rl_status log_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    opt_log *l = ctx;
    l->calls++;
    size_t n = strlen(l->log);
    snprintf(l->log + n, sizeof l->log - n, "%c:%s;", c, arg ? arg : "-");
    if (c == 'x')
        return rl_fail(err, RL_EOUTPUT, "x refused");
    return RL_OK;
}

/* rl_opt_each: every option but -h to fn in order, operands left at optind; -h stops before
 * later options; rl_getopt's errors are RL_EINPUT; fn's failure stops the loop.
 * (Break it: hand -h to fn too and the --help case logs "o:y;h:-;j:-;".) */
static void test_opt_each(void **state)
{
    (void)state;
    static const struct option lo[] = {{"out", required_argument, NULL, 'o'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    rl_error e = {RL_OK, ""};
    opt_log l = {"", 0};
    bool help = false;
    char *argv1[] = {"verb", "a.gguf", "--out=x", "--json", "-o", "-h", "b.gguf", NULL};
    assert_int_equal(rl_opt_each(7, argv1, "o:jxh", lo, log_opt, &l, &help, &e), RL_OK);
    assert_false(help);
    assert_string_equal(l.log, "o:x;j:-;o:-h;");
    assert_int_equal(optind, 5);
    assert_string_equal(argv1[5], "a.gguf");
    assert_string_equal(argv1[6], "b.gguf");
    assert_int_equal(e.status, RL_OK);

    /* --help stops the loop: the later --json does not reach fn */
    opt_log l2 = {"", 0};
    char *argv2[] = {"verb", "-o", "y", "--help", "--json", NULL};
    assert_int_equal(rl_opt_each(5, argv2, "o:jxh", lo, log_opt, &l2, &help, &e), RL_OK);
    assert_true(help);
    assert_string_equal(l2.log, "o:y;");
    assert_int_equal(l2.calls, 1);

    /* an unknown option: RL_EINPUT with rl_getopt's message, fn not called */
    opt_log l3 = {"", 0};
    help = false;
    char *argv3[] = {"verb", "--bogus", "--json", NULL};
    assert_int_equal(rl_opt_each(3, argv3, "o:jxh", lo, log_opt, &l3, &help, &e), RL_EINPUT);
    assert_int_equal(e.status, RL_EINPUT);
    assert_string_equal(e.msg, "unknown option '--bogus' (see llama-roofline verb --help)");
    assert_int_equal(l3.calls, 0);
    assert_false(help);

    /* a missing value: RL_EINPUT, after the options before it went to fn */
    opt_log l4 = {"", 0};
    char *argv4[] = {"verb", "--json", "--out", NULL};
    assert_int_equal(rl_opt_each(3, argv4, "o:jxh", lo, log_opt, &l4, &help, &e), RL_EINPUT);
    assert_string_equal(e.msg, "option '--out' needs a value (see llama-roofline verb --help)");
    assert_string_equal(l4.log, "j:-;");

    /* fn's failure is returned as it is and stops the loop (no -h seen after it) */
    opt_log l5 = {"", 0};
    rl_error e5 = {RL_OK, ""};
    char *argv5[] = {"verb", "-j", "-x", "-h", "-j", NULL};
    assert_int_equal(rl_opt_each(5, argv5, "o:jxh", lo, log_opt, &l5, &help, &e5), RL_EOUTPUT);
    assert_int_equal(e5.status, RL_EOUTPUT);
    assert_string_equal(e5.msg, "x refused");
    assert_string_equal(l5.log, "j:-;x:-;");
    assert_false(help);

    /* a second parse starts afresh; "--" ends the options */
    opt_log l6 = {"", 0};
    char *argv6[] = {"verb", "--", "-j", NULL};
    assert_int_equal(rl_opt_each(3, argv6, "o:jxh", lo, log_opt, &l6, &help, &e), RL_OK);
    assert_int_equal(l6.calls, 0);
    assert_int_equal(optind, 2);
    assert_string_equal(argv6[optind], "-j");
}

/* The hidden --list-options: a capture reads no option and keeps the tables; the table
 * printed names every spelling with its kind, a freshly added option among them, and the
 * llama-bench dash names the command really accepts (not -n without --n-gen, not -p where the
 * command has its own -p). */
static void test_opt_capture(void **state)
{
    (void)state;
    static const struct option lo[] = {{"fresh-flag", required_argument, NULL, 'f'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"markdown", optional_argument, NULL, 'k'},
                                       {"n-gpu-layers", required_argument, NULL, 'g'},
                                       {"n-prompt", required_argument, NULL, 'P'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    const char *so = NULL;
    const struct option *lp = NULL;
    assert_false(rl_opt_captured(&so, &lp)); /* no capture begun */
    rl_error e = {RL_OK, ""};
    opt_log l = {"", 0};
    bool help = false;
    char a0[] = "verb", a1[] = "-ngl", a2[] = "3", a3[] = "--json";
    char *argv1[] = {a0, a1, a2, a3, NULL};
    rl_opt_capture_begin();
    assert_false(rl_opt_captured(&so, &lp)); /* begun, but no rl_opt_each ran: and ended */
    rl_opt_capture_begin();
    assert_int_equal(rl_opt_each(4, argv1, "o:jx::h", lo, log_opt, &l, &help, &e), RL_EINPUT);
    assert_int_equal(l.calls, 0);
    assert_false(help);
    assert_string_equal(argv1[1], "-ngl"); /* not even the dash names rewritten */
    assert_true(rl_opt_captured(&so, &lp));
    assert_ptr_equal(lp, lo);
    assert_string_equal(so, "o:jx::h");
    assert_false(rl_opt_captured(&so, &lp)); /* the capture has ended */
    assert_null(lp);
    assert_int_equal(rl_opt_each(4, argv1, "o:jx::h", lo, log_opt, &l, &help, &e), RL_OK);
    assert_string_equal(l.log, "g:3;j:-;"); /* parsing as before */

    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    rl_opt_print_table(out, "verb", "o:jx::h", lo);
    rl_opt_print_table(out, "own", "p:", lo); /* its own -p: no -p for --n-prompt */
    fclose(out);
    assert_string_equal(text, "option verb --fresh-flag required\n"
                              "option verb --json none\n"
                              "option verb --markdown optional\n"
                              "option verb --n-gpu-layers required\n"
                              "option verb --n-prompt required\n"
                              "option verb --help none\n"
                              "option verb -o required\n"
                              "option verb -j none\n"
                              "option verb -x optional\n"
                              "option verb -h none\n"
                              "option verb -ngl required\n"
                              "option verb -p required\n"
                              "option own --fresh-flag required\n"
                              "option own --json none\n"
                              "option own --markdown optional\n"
                              "option own --n-gpu-layers required\n"
                              "option own --n-prompt required\n"
                              "option own --help none\n"
                              "option own -p required\n"
                              "option own -ngl required\n");
    free(text);
}

static void test_calloc_overflow(void **state)
{
    (void)state;
    assert_null(rl_calloc(SIZE_MAX / 2, 4));
    void *p = rl_calloc(0, 8);
    assert_non_null(p);
    free(p);
}

/* rl_grow: first size, then doubling; on overflow NULL with the array and its capacity kept
 * (break it: drop the *cap > SIZE_MAX / 2 check and the last case fails). */
static void test_grow(void **state)
{
    (void)state;
    size_t cap = 0;
    int *a = rl_grow(NULL, &cap, sizeof *a, 4);
    assert_non_null(a);
    assert_int_equal(cap, 4);
    for (int i = 0; i < 4; i++)
        a[i] = i + 1;
    int *b = rl_grow(a, &cap, sizeof *b, 4);
    assert_non_null(b);
    assert_int_equal(cap, 8);
    assert_int_equal(b[3], 4);
    size_t big = SIZE_MAX / 2 + 2; /* doubled, it would wrap to 2 */
    assert_null(rl_grow(b, &big, 1, 4));
    assert_true(big == SIZE_MAX / 2 + 2);
    size_t huge = SIZE_MAX / 8;
    assert_null(rl_grow(b, &huge, 8, 4));
    assert_true(huge == SIZE_MAX / 8);
    free(b);
}

static const char *tmpdir(void)
{
    const char *t = getenv("RL_TMP");
    return t && *t ? t : "/tmp";
}

/* Files in dir whose name starts with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_write_file(void **state)
{
    (void)state;
    char dir[4096], path[4200], stranger[4300];
    snprintf(dir, sizeof dir, "%s/atomic-%ld", tmpdir(), (long)getpid());
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/out.json", dir);
    /* a stranger's file with the old convention's name is never touched */
    snprintf(stranger, sizeof stranger, "%s.tmp", path);
    FILE *s = fopen(stranger, "wb");
    assert_non_null(s);
    fputs("mine", s);
    fclose(s);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_write_file(path, "hello", 5, &e), RL_OK);
    assert_int_equal(rl_write_file(path, "world!", 6, &e), RL_OK); /* replaces */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char buf[16] = {0};
    assert_int_equal(fread(buf, 1, sizeof buf, f), 6);
    fclose(f);
    assert_string_equal(buf, "world!");
    assert_int_equal(rl_write_output(path, "output", 6, RL_TTY_TEXT, &e),
                     RL_OK); /* not "-": the file */
    f = fopen(path, "rb");
    assert_non_null(f);
    memset(buf, 0, sizeof buf);
    assert_int_equal(fread(buf, 1, sizeof buf, f), 6);
    fclose(f);
    assert_string_equal(buf, "output");
    f = fopen(stranger, "rb");
    assert_non_null(f);
    memset(buf, 0, sizeof buf);
    assert_int_equal(fread(buf, 1, sizeof buf, f), 4);
    fclose(f);
    assert_int_equal(count_prefixed(dir, ".out.json."), 0); /* no temp left behind */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0077 & ~022, 0066 & ~022 & (sb.st_mode & 0077));

    /* an abort removes the temporary file; after Ctrl-C bulk writes stop, while a result file
     * (rl_write_file) is still saved */
    rl_atomic a;
    assert_int_equal(rl_atomic_open(path, &a, &e), RL_OK);
    assert_int_equal(count_prefixed(dir, ".out.json."), 1);
    rl_interrupted = 1;
    assert_int_equal(rl_atomic_write(&a, "x", 1, &e), RL_EINTERRUPTED);
    assert_int_equal(rl_write_file(path, "saved", 5, &e), RL_OK);
    rl_interrupted = 0;
    rl_atomic_abort(&a);
    rl_atomic_abort(&a); /* twice is safe */
    assert_int_equal(count_prefixed(dir, ".out.json."), 0);
    /* the signal path unlinks registered temporary files */
    assert_int_equal(rl_atomic_open(path, &a, &e), RL_OK);
    rl_file_cleanup_signal();
    assert_int_equal(count_prefixed(dir, ".out.json."), 0);
    rl_atomic_abort(&a);

    assert_int_equal(rl_write_file(dir, "x", 1, &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_int_equal(rl_write_file("/proc/no-such-dir/x", "x", 1, &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "/proc/no-such-dir/x"));
    /* a character device is written in place */
    assert_int_equal(rl_write_file("/dev/null", "x", 1, &e), RL_OK);
    remove(stranger);
    remove(path);
    rmdir(dir);
}

static bool not_txt(const char *name, void *ctx)
{
    (*(int *)ctx)++;
    size_t n = strlen(name);
    return !(n >= 4 && strcmp(name + n - 4, ".txt") == 0);
}

static void test_dir_list(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/dirlist-%ld", tmpdir(), (long)getpid());
    assert_int_equal(mkdir(dir, 0777), 0);
    const char *files[] = {"b.gguf", "a.txt", ".hidden", "C", "a.gguf", "sub"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (i == 5) {
            assert_int_equal(mkdir(path, 0777), 0);
        } else {
            FILE *f = fopen(path, "wb");
            assert_non_null(f);
            fclose(f);
        }
    }
    rl_error e = {RL_OK, ""};
    char **names;
    size_t n;
    /* sorted by strcmp, hidden names left out */
    assert_int_equal(rl_dir_list(dir, NULL, NULL, 100, &names, &n, &e), RL_OK);
    assert_int_equal(n, 5);
    assert_string_equal(names[0], "C");
    assert_string_equal(names[1], "a.gguf");
    assert_string_equal(names[2], "a.txt");
    assert_string_equal(names[3], "b.gguf");
    assert_string_equal(names[4], "sub");
    rl_dir_names_free(names, n);
    /* the filter sees every visible name; the bound counts the kept ones */
    int calls = 0;
    assert_int_equal(rl_dir_list(dir, not_txt, &calls, 4, &names, &n, &e), RL_OK);
    assert_int_equal(calls, 5);
    assert_int_equal(n, 4);
    assert_string_equal(names[2], "b.gguf");
    rl_dir_names_free(names, n);
    assert_int_equal(rl_dir_list(dir, not_txt, &calls, 3, &names, &n, &e), RL_EINPUT);
    assert_null(names);
    assert_int_equal(n, 0);
    assert_non_null(strstr(e.msg, "holds more than 3 entries"));
    /* an empty listing and a missing directory */
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(rl_dir_list(path, NULL, NULL, 0, &names, &n, &e), RL_OK);
    assert_int_equal(n, 0);
    rl_dir_names_free(names, n);
    snprintf(path, sizeof path, "%s/missing", dir);
    assert_int_equal(rl_dir_list(path, NULL, NULL, 100, &names, &n, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "cannot open directory"));
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (i == 5)
            rmdir(path);
        else
            remove(path);
    }
    rmdir(dir);
}

static void test_check_writable(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/new-file.json", tmpdir());
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_check_writable(path, &e), RL_OK);
    assert_int_equal(rl_check_writable("relative-name.json", &e), RL_OK);
    assert_int_equal(rl_check_writable(tmpdir(), &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_int_equal(rl_check_writable("/proc/no-such-dir/x.json", &e), RL_EOUTPUT);
    assert_non_null(strstr(e.msg, "/proc/no-such-dir"));
}

static void test_open_regular(void **state)
{
    (void)state;
    char fifo[4096];
    snprintf(fifo, sizeof fifo, "%s/fifo-%ld", tmpdir(), (long)getpid());
    assert_int_equal(mkfifo(fifo, 0600), 0);
    FILE *f = NULL;
    uint64_t size = 0;
    rl_error e = {RL_OK, ""};
    /* returns at once: nothing blocks on a FIFO nobody writes */
    assert_int_equal(rl_file_open_regular(fifo, &f, &size, &e), RL_EINPUT);
    assert_null(f);
    assert_non_null(strstr(e.msg, "is a pipe (FIFO), not a regular file"));
    unlink(fifo);
    assert_int_equal(rl_file_open_regular("/dev/null", &f, &size, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "is a device"));
    assert_int_equal(rl_file_open_regular(tmpdir(), &f, &size, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_int_equal(rl_file_open_regular("/nonexistent/x", &f, &size, &e), RL_EINPUT);
    assert_string_equal(e.msg, "/nonexistent/x: no such file");
}

static void test_formatters(void **state)
{
    (void)state;
    char b[32];
    rl_fmt_mib(b, sizeof b, 512ull << 20);
    assert_string_equal(b, "512 MiB");
    rl_fmt_mib(b, sizeof b, (3ull << 20) / 2);
    assert_string_equal(b, "1.500 MiB");
    rl_fmt_mib(b, sizeof b, 346242048ull);
    assert_string_equal(b, "330.2 MiB");
    rl_fmt_mib(b, sizeof b, 0);
    assert_string_equal(b, "0 MiB");
    rl_fmt_mb(b, sizeof b, 491000000ull);
    assert_string_equal(b, "491 MB");
    rl_fmt_mb(b, sizeof b, 9500000ull);
    assert_string_equal(b, "9.5 MB");
    rl_fmt_mb(b, sizeof b, 123000ull);
    assert_string_equal(b, "0.123 MB");
    rl_fmt_size(b, sizeof b, 999);
    assert_string_equal(b, "999 bytes");
    rl_fmt_size(b, sizeof b, 1500);
    assert_string_equal(b, "1.5 kB");
    rl_fmt_size(b, sizeof b, 1234567890ull);
    assert_string_equal(b, "1.23 GB");
    rl_fmt_count(b, sizeof b, 2900000);
    assert_string_equal(b, "2.90 M");
    rl_fmt_count(b, sizeof b, 494032768);
    assert_string_equal(b, "494.03 M");
    rl_fmt_count(b, sizeof b, 12);
    assert_string_equal(b, "12");
    /* the unit boundaries themselves: 1000 bytes is kB, exactly 1e9 is B */
    rl_fmt_size(b, sizeof b, 1000);
    assert_string_equal(b, "1.0 kB");
    rl_fmt_count(b, sizeof b, 1000000000ull);
    assert_string_equal(b, "1.00 B");
    rl_fmt_count(b, sizeof b, 999999999ull);
    assert_string_equal(b, "1000.00 M");
}

/* 3 significant digits, and bytes in the IEC unit that fits (compare's warnings, the report's
 * lower half) */
static void test_fmt_sig3_iec(void **state)
{
    (void)state;
    char b[32];
    const struct {
        double v;
        const char *want;
    } sig[] = {{53.9446770206734, "53.9"},
               {13.98, "14.0"},
               {76.339, "76.3"},
               {0.0123456, "0.0123"},
               {1234.6, "1235"},
               {999.6, "1000"},
               {9.996, "10.0"},
               {-2.5, "-2.50"},
               {0, "0"},
               {100, "100"},
               {NAN, "n/a"},
               {0.5, "0.500"}};
    for (size_t i = 0; i < sizeof sig / sizeof sig[0]; i++) {
        rl_fmt_sig3(b, sizeof b, sig[i].v);
        assert_string_equal(b, sig[i].want);
    }
    const struct {
        uint64_t v;
        const char *want;
    } iec[] = {{1023, "1023 bytes"},         {1024, "1.00 KiB"},          {512ull << 20, "512 MiB"},
               {34014814208ull, "31.7 GiB"}, {2000000000ull, "1.86 GiB"}, {1ull << 40, "1.00 TiB"},
               {25276026880ull, "23.5 GiB"}, {1048575, "1024 KiB"}};
    for (size_t i = 0; i < sizeof iec / sizeof iec[0]; i++) {
        rl_fmt_iec(b, sizeof b, iec[i].v);
        assert_string_equal(b, iec[i].want);
    }
}

static void test_utf8_seq(void **state)
{
    (void)state;
    const unsigned char e_acute[] = {0xC3, 0xA9, 0};
    const unsigned char euro[] = {0xE2, 0x82, 0xAC, 0};
    assert_int_equal(rl_utf8_seq(e_acute, 2), 2);
    assert_int_equal(rl_utf8_seq(euro, 3), 3);
    /* a valid continuation lies just past n: the sequence is still truncated */
    assert_int_equal(rl_utf8_seq(e_acute, 1), 0);
    assert_int_equal(rl_utf8_seq(euro, 2), 0);
}

static void test_tty_escape(void **state)
{
    (void)state;
    char b[128];
    assert_string_equal(rl_tty_escape("plain caf\xc3\xa9", b, sizeof b), "plain caf\xc3\xa9");
    assert_string_equal(rl_tty_escape("a\x1b[2Jb\x07", b, sizeof b), "a\\e[2Jb\\x07");
    assert_string_equal(rl_tty_escape("t\tn\nr\rdel\x7f", b, sizeof b), "t\\tn\\nr\\rdel\\x7f");
    /* C1 control CSI (U+009B) in UTF-8, and a lone 0x9b byte (not UTF-8) */
    assert_string_equal(rl_tty_escape("x\xc2\x9b"
                                      "y\x9bz",
                                      b, sizeof b),
                        "x\\u009by\\x9bz");
    assert_string_equal(rl_tty_escape_n("a\0b", 3, b, sizeof b), "a\\x00b");
    /* cut at a character boundary, never inside an escape */
    char small[5];
    assert_string_equal(rl_tty_escape("ab\x1b"
                                      "cd",
                                      small, sizeof small),
                        "ab\\e");
    char *d = rl_tty_escape_dup("\x01\x02");
    assert_string_equal(d, "\\x01\\x02");
    free(d);
    assert_true(rl_utf8_valid("h\xc3\xa9", 3));
    assert_false(rl_utf8_valid("\xc3\x28", 2));
    assert_false(rl_utf8_valid("\xc0\xaf", 2));
    assert_false(rl_utf8_valid("\xed\xa0\x80", 3));
    assert_false(rl_utf8_valid("\xf4\x90\x80\x80", 4));
    assert_true(rl_utf8_valid("\xf0\x9f\x98\x80", 4));
}

/* Under a real locale whose decimal separator is a comma (generated by scripts/deps.sh), the
 * number rule still reads "13.98" and every formatter still prints a dot. */
static void test_locale_proof(void **state)
{
    (void)state;
    if (!setlocale(LC_ALL, "de_DE.UTF-8"))
        fail_msg("locale de_DE.UTF-8 is missing: run scripts/deps.sh (it generates it)");
    char probe[16];
    snprintf(probe, sizeof probe, "%.2f", 13.98);
    assert_string_equal(probe, "13,98"); /* the locale really is in force */
    double d = 0;
    assert_true(rl_parse_double("13.98", &d));
    assert_true(d == 13.98);
    assert_false(rl_parse_double("13,98", &d));
    char b[32];
    rl_fmt_mib(b, sizeof b, 346242048ull);
    assert_string_equal(b, "330.2 MiB");
    rl_snprintf(b, sizeof b, "%.2f GB/s", 13.98);
    assert_string_equal(b, "13.98 GB/s");
    rl_error e;
    rl_fail(&e, RL_EINPUT, "%.1f", 2.5);
    assert_string_equal(e.msg, "2.5");
    cJSON *o = cJSON_CreateObject();
    rl_json_add_num(o, "x", 13.98);
    char *t = cJSON_PrintUnformatted(o);
    assert_string_equal(t, "{\"x\":13.98}");
    free(t);
    cJSON_Delete(o);
    /* main's set-up: the environment's locale, number formatting pinned to C */
    setenv("LC_ALL", "de_DE.UTF-8", 1);
    rl_locale_init();
    snprintf(probe, sizeof probe, "%.2f", 13.98);
    assert_string_equal(probe, "13.98");
    uselocale(LC_GLOBAL_LOCALE);
    setlocale(LC_ALL, "C");
}

static void test_json_helpers(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    assert_true(rl_json_add_u64(o, "small", 42));
    assert_true(rl_json_add_u64(o, "exact", 9007199254740993ull)); /* 2^53 + 1 */
    assert_true(rl_json_add_u64(o, "max", UINT64_MAX));
    assert_true(rl_json_add_i64(o, "neg", -5));
    assert_true(rl_json_add_num(o, "nan", 0.0 / 0.0));
    assert_true(rl_json_add_u64_or_null(o, "unk", 7, false));
    assert_true(rl_json_add_tristate(o, "tri", -1));
    assert_true(rl_json_add_str_or_null(o, "empty", ""));
    assert_true(rl_json_add_str(o, "bad",
                                "a\xff"
                                "b"));
    assert_true(rl_json_add_unavailable(o, "r2", "only one model"));
    char *t = cJSON_PrintUnformatted(o);
    assert_string_equal(t, "{\"small\":42,\"exact\":9007199254740993,\"max\":18446744073709551615,"
                           "\"neg\":-5,\"nan\":null,\"unk\":null,\"tri\":null,\"empty\":null,"
                           "\"bad\":\"a\xef\xbf\xbd"
                           "b\",\"r2\":{\"available\":false,"
                           "\"reason\":\"only one model\"}}");
    free(t);
    uint64_t u = 0;
    assert_true(rl_json_get_u64(o, "exact", &u));
    assert_true(u == 9007199254740993ull);
    assert_true(rl_json_get_u64(o, "small", &u));
    assert_true(u == 42);
    assert_false(rl_json_get_u64(o, "neg", &u));
    assert_false(rl_json_get_u64(o, "bad", &u));
    assert_null(rl_json_get_str(o, "small"));
    assert_string_equal(rl_json_get_str(o, "bad"), "a\xef\xbf\xbd"
                                                   "b");
    /* rl_json_get: untyped, case-sensitive, NULL-safe. */
    assert_true(cJSON_IsNumber(rl_json_get(o, "small")));
    assert_int_equal(rl_json_get(o, "small")->valueint, 42);
    assert_true(cJSON_IsObject(rl_json_get(o, "r2")));
    assert_string_equal(rl_json_get(rl_json_get(o, "r2"), "reason")->valuestring, "only one model");
    assert_null(rl_json_get(o, "SMALL"));
    assert_null(rl_json_get(o, "missing"));
    assert_null(rl_json_get(NULL, "small"));
    assert_null(rl_json_get(rl_json_get(o, "missing"), "reason"));
    cJSON_Delete(o);

    char path[4096];
    snprintf(path, sizeof path, "%s/json-%ld.json", tmpdir(), (long)getpid());
    FILE *f = fopen(path, "wb");
    fputs("{\"a\": [1, 2", f);
    fclose(f);
    cJSON *root = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_read_file(path, 1 << 20, &root, &e), RL_EINPUT);
    assert_null(root);
    assert_non_null(strstr(e.msg, "not valid JSON"));
    remove(path);
}

static void *no_memory(size_t n)
{
    (void)n;
    return NULL;
}

/* rl_json_parse takes one JSON value and nothing else: text after it (two bundles joined,
 * junk) and a NUL byte (cJSON would stop reading there) are refused with the byte offset;
 * out of memory is RL_EINTERNAL, never "not valid JSON". Each case failed before the fix
 * (accepted, or RL_EINPUT "not valid JSON" for the allocator that always fails). */
static void test_json_parse_strict(void **state)
{
    (void)state;
    cJSON *root = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_parse("a", "{\"x\": 1}\n \t", 11, &root, &e), RL_OK);
    assert_non_null(root);
    cJSON_Delete(root);
    assert_int_equal(rl_json_parse("b", "{}{}", 4, &root, &e), RL_EINPUT);
    assert_null(root);
    assert_string_equal(e.msg, "b: not valid JSON (more text after the JSON value at byte 2: two "
                               "files joined or trailing junk)");
    assert_int_equal(rl_json_parse("c", "{} x", 4, &root, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "at byte 3"));
    assert_int_equal(rl_json_parse("d", "{\"s\": \"a\0b\"}", 12, &root, &e), RL_EINPUT);
    assert_string_equal(e.msg, "d: not valid JSON (a NUL byte at byte 8)");
    rl_json_set_malloc(no_memory);
    rl_status st = rl_json_parse("e", "{\"a\": [1, \"b\"]}", 15, &root, &e);
    rl_json_set_malloc(NULL);
    assert_int_equal(st, RL_EINTERNAL);
    assert_null(root);
    assert_string_equal(e.msg, "e: out of memory reading the JSON");
    /* a syntax error with memory to spare is still bad input */
    assert_int_equal(rl_json_parse("f", "{\"a\": }", 7, &root, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "f: not valid JSON (syntax error near byte"));
}

/* The out-of-memory flag of rl_json_parse_raw is the calling thread's own. Thread B parses bad
 * JSON (its allocations succeed: a syntax error) while thread A's allocations fail; the
 * allocator orders them: B's first allocation waits until A's parse has failed for lack of
 * memory, so a flag shared by the threads would be set when B's parse ends. B must read "bad
 * JSON", A "out of memory". */
static _Thread_local bool thread_starves;
static sem_t b_started, a_failed;
static _Thread_local bool b_waited;

static void *per_thread_malloc(size_t n)
{
    if (thread_starves)
        return NULL;
    if (!b_waited) {
        b_waited = true;
        sem_post(&b_started);
        sem_wait(&a_failed);
    }
    return malloc(n);
}

static void *starving_parser(void *arg)
{
    bool *oom = arg;
    thread_starves = true;
    sem_wait(&b_started);
    cJSON *j = rl_json_parse_raw("{\"a\": [1, 2]}", 13, NULL, oom);
    cJSON_Delete(j);
    sem_post(&a_failed);
    return NULL;
}

static void test_json_oom_per_thread(void **state)
{
    (void)state;
    sem_init(&b_started, 0, 0);
    sem_init(&a_failed, 0, 0);
    b_waited = false;
    bool a_oom = false, b_oom = true;
    rl_json_set_malloc(per_thread_malloc);
    pthread_t a;
    assert_int_equal(pthread_create(&a, NULL, starving_parser, &a_oom), 0);
    cJSON *j = rl_json_parse_raw("{\"a\": [1, 2], \"b\": }", 20, NULL, &b_oom);
    pthread_join(a, NULL);
    rl_json_set_malloc(NULL);
    assert_null(j);
    assert_true(a_oom);  /* A: out of memory */
    assert_false(b_oom); /* B: a syntax error, not A's failure */
    /* and the strict parse on this thread, with memory again: bad input, exit 2 */
    cJSON *root = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_parse("g", "{\"b\": }", 7, &root, &e), RL_EINPUT);
    sem_destroy(&b_started);
    sem_destroy(&a_failed);
}

/* The builders: bool, null, int array (empty from NULL), push; each false with the item freed
 * when there is nothing to attach. */
static void test_json_builders(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    const int v[] = {1, -2, 64};
    assert_true(rl_json_add_bool(o, "t", true));
    assert_true(rl_json_add_bool(o, "f", false));
    assert_true(rl_json_add_null(o, "n"));
    assert_true(rl_json_add_int_array(o, "a", v, 3));
    assert_true(rl_json_add_int_array(o, "e", NULL, 0));
    cJSON *arr = cJSON_AddArrayToObject(o, "p");
    assert_true(rl_json_push(arr, cJSON_CreateString("x")));
    assert_true(rl_json_push(arr, cJSON_CreateNumber(0.0 / 0.0)));
    assert_false(rl_json_push(arr, NULL));
    assert_false(rl_json_attach(o, "missing", NULL));
    assert_false(rl_json_push(NULL, cJSON_CreateString("freed"))); /* freed: no leak */
    char *t = cJSON_PrintUnformatted(o);
    assert_string_equal(t, "{\"t\":true,\"f\":false,\"n\":null,\"a\":[1,-2,64],\"e\":[],"
                           "\"p\":[\"x\",null]}");
    free(t);
    cJSON_Delete(o);
}

static void test_json_extent(void **state)
{
    (void)state;
    const char *nested = "{\"a\": [1, {\"b\": [2, 3]}], \"c\": {}} trailing";
    assert_int_equal(rl_json_extent(nested, strlen(nested), 0, NULL), strlen(nested) - 9);
    const char *arr = "[[], [[]]],";
    assert_int_equal(rl_json_extent(arr, strlen(arr), 0, NULL), 10);
    /* brackets and escaped quotes inside strings do not count */
    const char *str = "{\"k\": \"}]{[\\\"}\", \"e\": \"\\\\\"}x";
    assert_int_equal(rl_json_extent(str, strlen(str), 0, NULL), strlen(str) - 1);
    /* unterminated: the object, a string, an escape at the very end */
    assert_int_equal(rl_json_extent("{\"a\": [1, 2]", 12, 0, NULL), 0);
    assert_int_equal(rl_json_extent("{\"a}", 5, 0, NULL), 0);
    assert_int_equal(rl_json_extent("{\"\\", 3, 0, NULL), 0);
    assert_int_equal(rl_json_extent("}", 1, 0, NULL), 0);
    /* len bounds the scan */
    assert_int_equal(rl_json_extent("{}", 1, 0, NULL), 0);
    /* commas outside strings, bounded */
    const char *c = "{\"a\": \",,\", \"b\": [1, 2, 3]}";
    size_t n = 99;
    assert_int_equal(rl_json_extent(c, strlen(c), 10, &n), strlen(c));
    assert_int_equal(n, 3);
    assert_int_equal(rl_json_extent(c, strlen(c), 3, &n), strlen(c));
    assert_int_equal(n, 3);
    assert_int_equal(rl_json_extent(c, strlen(c), 2, &n), 0);
    assert_int_equal(n, 3);
}

static void test_md_escape(void **state)
{
    (void)state;
    rl_sbuf b = {0};
    rl_md_escape(&b, "a|b\\c*d_e`f[g]h<i>j~k&l#m");
    rl_md_escape(&b, " x\ny\x1bz\xc2\x9bw\xff.-(){}!+");
    rl_md_escape(&b, NULL);
    char *t = rl_sbuf_take(&b);
    assert_string_equal(t, "a\\|b\\\\c\\*d\\_e\\`f\\[g\\]h\\<i\\>j\\~k\\&l\\#m"
                           " x y z w\xef\xbf\xbd.-(){}!+");
    free(t);
}

/* Strip s whole, or split at every position (the state carries a sequence across calls). */
static void strip_check(const char *in, const char *want)
{
    size_t n = strlen(in);
    char out[512];
    rl_term_strip st = {0};
    size_t o = rl_term_strip_run(&st, in, n, out);
    out[o] = '\0';
    assert_string_equal(out, want);
    for (size_t cut = 1; cut < n; cut++) {
        rl_term_strip s2 = {0};
        size_t a = rl_term_strip_run(&s2, in, cut, out);
        a += rl_term_strip_run(&s2, in + cut, n - cut, out + a);
        out[a] = '\0';
        if (strcmp(out, want) != 0)
            fail_msg("split at %zu: '%s', want '%s'", cut, out, want);
    }
}

static void test_term_strip(void **state)
{
    (void)state;
    strip_check("\x1b[1;32mHello\x1b[0m world\n", "Hello world\n");    /* SGR colours */
    strip_check("\x1b]0;title\x07text", "text");                       /* OSC, BEL */
    strip_check("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\.", "link."); /* OSC 8, ST */
    strip_check("a\x1b(Bb\x1b"
                "7c\x1b[?25ld",
                "abcd"); /* nF, ESC 7, CSI ? */
    strip_check("ding\x07"
                "dong",
                "dingdong");                       /* lone BEL */
    strip_check("\x1bPq#0;1\x1b\\after", "after"); /* DCS */
    strip_check("x\x1b[31\nm", "x\nm");            /* a control byte ends a CSI and stays text */
    strip_check("\xc3\xa9t\xc3\xa9 \x1b[2K\rok", "\xc3\xa9t\xc3\xa9 \rok"); /* UTF-8 kept */
    /* an OSC never ended is given up after RL_TERM_STRING_MAX bytes: what follows is text */
    static char big[RL_TERM_STRING_MAX + 64];
    memcpy(big, "\x1b]", 2);
    memset(big + 2, 'z', RL_TERM_STRING_MAX);
    memcpy(big + 2 + RL_TERM_STRING_MAX, "tail", 5);
    char out[sizeof big];
    rl_term_strip st = {0};
    size_t o = rl_term_strip_run(&st, big, strlen(big), out);
    out[o] = '\0';
    assert_string_equal(out, "ail"); /* the byte past the bound is dropped with the string */
    /* in place */
    char buf[] = "\x1b[7mX\x1b[m";
    rl_term_strip s3 = {0};
    assert_int_equal(rl_term_strip_run(&s3, buf, strlen(buf), buf), 1);
    assert_int_equal(buf[0], 'X');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_fail_is_one_line),
        cmocka_unit_test(test_prefix_truncates_safely),
        cmocka_unit_test(test_parse_u64),
        cmocka_unit_test(test_parse_double),
        cmocka_unit_test(test_parse_i64),
        cmocka_unit_test(test_opt_values),
        cmocka_unit_test(test_opt_int_list),
        cmocka_unit_test(test_getopt),
        cmocka_unit_test(test_opt_each),
        cmocka_unit_test(test_opt_capture),
        cmocka_unit_test(test_calloc_overflow),
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_dir_list),
        cmocka_unit_test(test_check_writable),
        cmocka_unit_test(test_open_regular),
        cmocka_unit_test(test_formatters),
        cmocka_unit_test(test_fmt_sig3_iec),
        cmocka_unit_test(test_utf8_seq),
        cmocka_unit_test(test_tty_escape),
        cmocka_unit_test(test_locale_proof),
        cmocka_unit_test(test_json_helpers),
        cmocka_unit_test(test_json_builders),
        cmocka_unit_test(test_json_extent),
        cmocka_unit_test(test_json_parse_strict),
        cmocka_unit_test(test_json_oom_per_thread),
        cmocka_unit_test(test_md_escape),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_term_strip),
        cmocka_unit_test(test_opt_messages),
        cmocka_unit_test(test_progress_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
