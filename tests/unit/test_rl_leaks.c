/* SPDX-License-Identifier: MIT */
/* test_rl_leaks.c: the helpers that keep secrets and raw bytes out of what the tool prints and
 * writes: rl_url_redact / rl_url_shown (base/rl_url.h), the rl_tty_* writers (rl_tty_printf,
 * rl_tty_write, rl_tty_safe, rl_tty_status) and rl_sh_quote (base/rl_text.h). Each expected string
 * is written out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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
            "http://h/p?access_token=***#***&id_token=***");
    /* a fragment's bare piece may be a token by itself; its name=value pieces keep the rule */
    redacts("https://h/m.gguf#s3cr3tT0ken", "https://h/m.gguf#***");
    redacts("https://h/m.gguf#page=2&x", "https://h/m.gguf#page=2&***");
    redacts("https://h/m.gguf#", "https://h/m.gguf#");
    redacts("https://a:b@h?sig=1", "https://***@h?sig=***");
    /* a percent-encoded name is the same name to the server; path ";" parameters too */
    redacts("http://h/p?%73ig=s1&%54OKEN=t&x%5Fkey=k&%zz=v&a%=1",
            "http://h/p?%73ig=***&%54OKEN=***&x%5Fkey=***&%zz=v&a%=1");
    redacts("http://h/m.gguf;sig=s1/x?y=1", "http://h/m.gguf;sig=***?y=1");
    redacts("http://h/a;b/c", "http://h/a;b/c");
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

/* What rl_tty_write(kind) puts on a stream for the n bytes of in. */
static char *written(const char *in, size_t n, rl_tty_kind kind)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    assert_non_null(f);
    rl_tty_write(f, in, n, kind);
    fclose(f);
    return mem;
}

#define WRITES(in, kind, want)                                                                     \
    do {                                                                                           \
        char *got_ = written(in, sizeof in - 1, kind);                                             \
        assert_string_equal(got_, want);                                                           \
        free(got_);                                                                                \
    } while (0)

static void test_tty_write(void **state)
{
    (void)state;
    /* text: every control character but the newline, DEL, C1 and a lone byte escaped */
    WRITES("a\tb\nc\x1b[2J\x07\x7f\xc2\x9b\x9b\xc3\xa9\r", RL_TTY_TEXT,
           "a\\tb\nc\\e[2J\\x07\\x7f\\u009b\\x9b\xc3\xa9\\r");
    WRITES("nul\0x\x01\x1f ~", RL_TTY_TEXT, "nul\\x00x\\x01\\x1f ~");
    /* JSON: newline and tab kept as layout; the same characters as JSON escapes, a byte that
     * is not UTF-8 as U+FFFD; the text still parses, to the same string */
    WRITES("{\n\t\"k\": \"\x7f\xc2\x9b\x9b\xc3\xa9\x1b\xc2\xa0\"\n}", RL_TTY_JSON,
           "{\n\t\"k\": \"\\u007f\\u009b\\ufffd\xc3\xa9\\u001b\xc2\xa0\"\n}");
    WRITES("a\0b\r", RL_TTY_JSON, "a\\u0000b\\u000d");
    char *j = written("[\"\x7f\xc2\x85\x9b\"]", 8, RL_TTY_JSON);
    cJSON *parsed = cJSON_Parse(j);
    assert_non_null(parsed);
    assert_string_equal(cJSON_GetArrayItem(parsed, 0)->valuestring, "\x7f\xc2\x85\xef\xbf\xbd");
    cJSON_Delete(parsed);
    free(j);
    /* rl_tty_safe: the same bytes and their length; NULL is empty */
    size_t len = 99;
    char *s = rl_tty_safe("x\x1b"
                          "y",
                          3, RL_TTY_TEXT, &len);
    assert_string_equal(s, "x\\ey");
    assert_int_equal(len, 4);
    free(s);
    s = rl_tty_safe(NULL, 5, RL_TTY_JSON, &len);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
    /* rl_tty_puts is text; the progress line's \r and ESC [ K are the only raw controls */
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    assert_non_null(f);
    rl_tty_puts(f, "p\x1b\n");
    rl_tty_puts(f, NULL);
    rl_tty_status(f, "s\x9b\n");
    rl_tty_status_clear(f);
    fclose(f);
    assert_string_equal(mem, "p\\e\n\rs\\x9b\\n\x1b[K\r\x1b[K");
    free(mem);
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
        cmocka_unit_test(test_url_redact), cmocka_unit_test(test_url_loopback),
        cmocka_unit_test(test_tty_printf), cmocka_unit_test(test_tty_write),
        cmocka_unit_test(test_sh_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
