/* test_rl_leaks.c: the helpers that keep secrets and raw bytes out of what the tool prints and
 * writes: rl_url_redact / rl_url_shown (base/rl_url.h), rl_tty_printf and rl_sh_quote
 * (base/rl_text.h). Each expected string is written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rl_test.h"
#include "base/rl_text.h"
#include "base/rl_url.h"

static void redacts(const char *in, const char *want)
{
    char *got = rl_url_redact(in);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("rl_url_redact(%s) = %s, want %s", in ? in : "NULL", got, want);
    free(got);
}

/* The loopback hosts whose listening server the client counts as the measured work. */
static void test_url_loopback(void **state)
{
    (void)state;
    const char *yes[] = {
        "localhost",         "LocalHost", "localhost.", "api.localhost",     "127.0.0.1",
        "127.9.8.7",         "::1",       "[::1]",      "[0:0:0:0:0:0:0:1]", "::ffff:127.0.0.1",
        "[::ffff:127.0.0.2]"};
    const char *no[] = {"",
                        "example.com",
                        "localhost.example.com",
                        "mylocalhost",
                        "10.0.0.1",
                        "128.0.0.1",
                        "0.0.0.0",
                        "::",
                        "[::2]",
                        "::ffff:10.0.0.1",
                        "1.127.0.0",
                        "[::1",
                        "127.1"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!rl_url_host_is_loopback(yes[i]))
            fail_msg("'%s' is loopback", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (rl_url_host_is_loopback(no[i]))
            fail_msg("'%s' is not loopback", no[i]);
    assert_false(rl_url_host_is_loopback(NULL));
}

static void test_url_redact(void **state)
{
    (void)state;
    redacts("https://user:pass@host/path", "https://***@host/path");
    redacts("https://user@host:8080/p?x=1", "https://***@host:8080/p?x=1");
    redacts("https://h/m.gguf?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F&x=1",
            "https://h/m.gguf?X-Amz-Signature=***&X-Amz-Credential=***&x=1");
    redacts("http://h/p?sig=s1;token=t1&api_key=k&KEY=K&password=p&auth=a&plain=v",
            "http://h/p?sig=***;token=***&api_key=***&KEY=***&password=***&auth=***&plain=v");
    redacts("http://h/p?access_token=t#frag&id_token=x",
            "http://h/p?access_token=***#frag&id_token=***");
    redacts("https://a:b@h?sig=1", "https://***@h?sig=***");
    /* '@' in the path is not user information; a parameter without a value stays */
    redacts("https://h/a@b/c?token", "https://h/a@b/c?token");
    /* text around URLs, two URLs, an option joined with '=' */
    redacts("--url=http://u:p@h/v1?key=k", "--url=http://***@h/v1?key=***");
    redacts("see http://u:p@a/x and https://b/y?sig=2 too",
            "see http://***@a/x and https://b/y?sig=*** too");
    redacts("/models/plain.gguf", "/models/plain.gguf");
    redacts("", "");
    redacts(NULL, "");
    char buf[64];
    assert_string_equal(rl_url_shown("http://u:p@h/\x1b[31m?sig=\x07", buf, sizeof buf),
                        "http://***@h/\\e[31m?sig=***");
    assert_string_equal(rl_url_shown("http://u:p@h/xxxxxxxxxxxxxxxxxxxxxxxxxx", buf, 16),
                        "http://***@h/xx");
}

static char *printed(const char *arg)
{
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    assert_non_null(f);
    rl_tty_printf(f, "[%s] %d\n", arg, 7);
    fclose(f);
    return mem;
}

static void test_tty_printf(void **state)
{
    (void)state;
    char *s = printed("x\x1b]0;t\x07y\xc2\x9bz\x9b");
    assert_string_equal(s, "[x\\e]0;t\\x07y\\u009bz\\x9b] 7\n");
    free(s);
    s = printed("two\nlines\r");
    assert_string_equal(s, "[two\nlines\\r] 7\n");
    free(s);
    s = printed("UTF-8 \xc3\xa9 stays");
    assert_string_equal(s, "[UTF-8 \xc3\xa9 stays] 7\n");
    free(s);
    s = printed("");
    assert_string_equal(s, "[] 7\n");
    free(s);
}

static void quotes(const char *in, const char *want)
{
    rl_sbuf b = {0};
    rl_sh_quote(&b, in);
    char *got = rl_sbuf_take(&b);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_sh_quote(void **state)
{
    (void)state;
    quotes("plain/path-1.gguf", "plain/path-1.gguf");
    quotes("my model.gguf", "'my model.gguf'");
    quotes("it's", "'it'\\''s'");
    quotes("", "''");
    quotes(NULL, "''");
    quotes("$HOME;rm -rf `x`", "'$HOME;rm -rf `x`'");
    quotes("a'b c'", "'a'\\''b c'\\'''");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_redact),
        cmocka_unit_test(test_url_loopback),
        cmocka_unit_test(test_tty_printf),
        cmocka_unit_test(test_sh_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
