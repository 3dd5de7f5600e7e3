/* SPDX-License-Identifier: MIT */
/* test_client_sse.c: unit tests for the incremental SSE parser (client_sse.c).
 *
 * The sample stream mixes LF, CRLF and lone CR line ends, comments, a multi-line data event,
 * an event type, an event without data, a field without a colon and data with a colon; it is
 * fed whole, at every two-piece split point, at every three-piece split of a shorter stream
 * and byte by byte, and each way must give exactly the same events.
 *
 * Checked (each break made the named tests fail, then the code was restored): forgetting a
 * CR that ended the previous feed (after_cr cleared at each feed) fails
 * test_three_piece_splits (a CRLF split there adds a blank line that dispatches an event
 * early); dropping the one-space strip after the colon fails test_whole and the split tests;
 * removing the bound check on a line still open at the end of a feed fails
 * test_oversize_line; dispatching at a blank line without data fails test_whole (an empty
 * event appears). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/client_sse.h"

/* Events collected as "type|data" records, each followed by "\n--\n". */
typedef struct {
    rl_sbuf out;
    int stop_after; /* fail the feed once this many events arrived (0: never) */
    int n;
} collector;

static rl_status on_event(void *ud, const char *event, const char *data, size_t len, rl_error *err)
{
    collector *c = ud;
    assert_int_equal(strlen(data), len); /* NUL-terminated, no NULs in these samples */
    rl_sbuf_printf(&c->out, "%s|", event);
    rl_sbuf_put(&c->out, data, len);
    rl_sbuf_put(&c->out, "\n--\n", 4);
    c->n++;
    if (c->stop_after && c->n >= c->stop_after)
        return rl_fail(err, RL_EINPUT, "stop requested");
    return RL_OK;
}

static const char sample[] = "\xEF\xBB\xBF"
                             ": a comment line\n"
                             "data: {\"a\":1}\n"
                             "\n"
                             "data:no space\r\n"
                             "\r\n"
                             "event: update\r"
                             "data: line one\r"
                             "data:  two spaces\n"
                             "id: 7\n"
                             "retry: 100\n"
                             "\r"
                             "event: ignored because no data\n"
                             "\n"
                             "data\n"
                             "\n"
                             "data: url: http://x:1/\n"
                             "unknown: field\n"
                             "\n"
                             "data: [DONE]\n"
                             "\n"
                             "data: not dispatched (no blank line)";

static const char expected[] = "message|{\"a\":1}\n--\n"
                               "message|no space\n--\n"
                               "update|line one\n two spaces\n--\n"
                               "message|\n--\n"
                               "message|url: http://x:1/\n--\n"
                               "message|[DONE]\n--\n";

/* Feed the pieces sample[cuts[k]..cuts[k+1]) and return the collected text (caller frees). */
static char *parse_cut(const char *s, size_t n, const size_t *cuts, size_t ncuts, bool *pending)
{
    collector c = {0};
    rl_sse p;
    rl_sse_init(&p, 0, on_event, &c);
    size_t at = 0;
    for (size_t k = 0; k <= ncuts; k++) {
        size_t end = k < ncuts ? cuts[k] : n;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_sse_feed(&p, s + at, end - at, &e), RL_OK);
        at = end;
    }
    *pending = rl_sse_pending(&p);
    rl_sse_free(&p);
    rl_sbuf_put(&c.out, "", 0);
    char *r = rl_sbuf_take(&c.out);
    return r ? r : strdup("");
}

static void test_whole(void **state)
{
    (void)state;
    bool pending = false;
    char *got = parse_cut(sample, sizeof sample - 1, NULL, 0, &pending);
    assert_string_equal(got, expected);
    assert_true(pending);
    free(got);
}

/* A value that is only the one space after the colon is empty; of two spaces one is kept. */
static void test_lone_space_value(void **state)
{
    (void)state;
    bool pending = true;
    const char s[] = "data: \n\ndata:  \n\n";
    char *got = parse_cut(s, sizeof s - 1, NULL, 0, &pending);
    assert_string_equal(got, "message|\n--\nmessage| \n--\n");
    assert_false(pending);
    free(got);
}

static void test_every_split(void **state)
{
    (void)state;
    size_t n = sizeof sample - 1;
    for (size_t cut = 0; cut <= n; cut++) {
        bool pending = false;
        char *got = parse_cut(sample, n, &cut, 1, &pending);
        if (strcmp(got, expected) != 0)
            fprintf(stderr, "split at %zu gave:\n%s\n", cut, got);
        assert_string_equal(got, expected);
        assert_true(pending);
        free(got);
    }
}

static void test_byte_by_byte(void **state)
{
    (void)state;
    size_t n = sizeof sample - 1;
    size_t *cuts = malloc(n * sizeof *cuts);
    assert_non_null(cuts);
    for (size_t i = 0; i < n; i++)
        cuts[i] = i;
    bool pending = false;
    char *got = parse_cut(sample, n, cuts, n, &pending);
    assert_string_equal(got, expected);
    free(got);
    free(cuts);
}

/* Every three-piece split of a short stream with a CRLF, a BOM and two events. */
static void test_three_piece_splits(void **state)
{
    (void)state;
    static const char s[] = "\xEF\xBB\xBF"
                            "data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n";
    static const char want[] = "message|a\n--\nmessage|b\nc\n--\n";
    size_t n = sizeof s - 1;
    for (size_t a = 0; a <= n; a++)
        for (size_t b = a; b <= n; b++) {
            size_t cuts[2] = {a, b};
            bool pending = true;
            char *got = parse_cut(s, n, cuts, 2, &pending);
            assert_string_equal(got, want);
            assert_false(pending);
            free(got);
        }
}

/* Without a byte order mark, bytes that only start like one are kept as text. */
static void test_partial_bom_is_text(void **state)
{
    (void)state;
    static const char s[] = "\xEF\xBB"
                            "data: x\n\n";
    bool pending = true;
    size_t cut = 1;
    char *got = parse_cut(s, sizeof s - 1, &cut, 1, &pending);
    /* the line "\xEF\xBBdata: x" is an unknown field: no event */
    assert_string_equal(got, "");
    free(got);
}

static void test_oversize_line(void **state)
{
    (void)state;
    collector c = {0};
    rl_sse p;
    rl_sse_init(&p, 16, on_event, &c);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_sse_feed(&p, "data: 123456789", 15, &e), RL_OK);
    assert_int_equal(rl_sse_feed(&p, "ab", 2, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "SSE line longer than 16 bytes"));
    /* once failed, it stays failed */
    assert_int_equal(rl_sse_feed(&p, "\n\n", 2, &e), RL_EINPUT);
    rl_sse_free(&p);

    /* a whole over-long line in one feed */
    rl_sse_init(&p, 16, on_event, &c);
    assert_int_equal(rl_sse_feed(&p, "data: 12345678901234\n", 21, &e), RL_EINPUT);
    rl_sse_free(&p);

    /* an event whose data lines add up past the bound */
    rl_sse_init(&p, 16, on_event, &c);
    assert_int_equal(rl_sse_feed(&p, "data: 12345678\ndata: 12345678\n", 30, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "SSE event data longer than 16 bytes"));
    rl_sse_free(&p);
    assert_int_equal(c.n, 0);
    free(rl_sbuf_take(&c.out));
}

static void test_callback_stops(void **state)
{
    (void)state;
    collector c = {.stop_after = 2};
    rl_sse p;
    rl_sse_init(&p, 0, on_event, &c);
    rl_error e = {RL_OK, ""};
    const char *s = "data: 1\n\ndata: 2\n\ndata: 3\n\n";
    assert_int_equal(rl_sse_feed(&p, s, strlen(s), &e), RL_EINPUT);
    assert_string_equal(e.msg, "stop requested");
    assert_int_equal(c.n, 2);
    assert_int_equal(p.events, 2);
    rl_sse_free(&p);
    free(rl_sbuf_take(&c.out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_lone_space_value),
        cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_byte_by_byte),
        cmocka_unit_test(test_three_piece_splits),
        cmocka_unit_test(test_partial_bom_is_text),
        cmocka_unit_test(test_oversize_line),
        cmocka_unit_test(test_callback_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
