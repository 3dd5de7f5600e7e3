/* SPDX-License-Identifier: MIT */
/* test_rl_json_stream.c: unit tests for the streaming bundle reader (rl_json_stream.c): every
 * document reads as rl_json_parse reads it (the same tree once compact arrays are expanded,
 * the same refusals and messages), sample arrays of numbers are compact with the numbers'
 * own text, an array that turns out mixed is an ordinary one, chunk boundaries and the byte
 * offsets across them, the nesting limit, out of memory, and rl_json_values / _expand /
 * _array_size on both forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/rl_error.h"
#include "base/rl_json.h"

/* text read both ways: plain equals compact once expanded; the compact tree returned */
static cJSON *both(const char *text)
{
    cJSON *plain = NULL, *compact = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_parse("p", text, strlen(text), &plain, &e), RL_OK);
    assert_int_equal(rl_json_parse_compact("c", text, strlen(text), &compact, &e), RL_OK);
    cJSON *expanded = cJSON_Duplicate(compact, 1);
    assert_non_null(expanded);
    assert_true(rl_json_expand(expanded));
    assert_true(cJSON_Compare(plain, expanded, true));
    cJSON_Delete(plain);
    cJSON_Delete(expanded);
    return compact;
}

static const char *sample_text(const cJSON *root, const char *key)
{
    const cJSON *x = rl_json_get(rl_json_get(root, "r"), key);
    assert_true(rl_json_is_compact(x));
    return x->valuestring;
}

/* A rate's samples and a record's samples_ns are compact, their numbers as written; other
 * arrays of numbers, empty ones and mixed ones are ordinary. */
static void test_compact_forms(void **state)
{
    (void)state;
    cJSON *c = both("{\"r\": {\"samples\": [1.5, 2,\n 3e2, -0.25], \"samples_ns\": "
                    "[477431451,424484863], \"other\": [1, 2], \"empty\": {\"samples\": []}, "
                    "\"mixed\": {\"samples\": [1, \"x\", 2]}, \"deep\": {\"samples\": [[1], 2]}, "
                    "\"late\": {\"samples\": [1, 2, null]}}}");
    assert_string_equal(sample_text(c, "samples"), "[1.5,2,3e2,-0.25]");
    assert_string_equal(sample_text(c, "samples_ns"), "[477431451,424484863]");
    const cJSON *r = rl_json_get(c, "r");
    assert_true(cJSON_IsArray(rl_json_get(r, "other")));
    assert_true(cJSON_IsArray(rl_json_get(rl_json_get(r, "empty"), "samples")));
    assert_true(cJSON_IsArray(rl_json_get(rl_json_get(r, "mixed"), "samples")));
    assert_int_equal(cJSON_GetArraySize(rl_json_get(rl_json_get(r, "mixed"), "samples")), 3);
    assert_true(cJSON_IsArray(rl_json_get(rl_json_get(r, "deep"), "samples")));
    assert_int_equal(cJSON_GetArraySize(rl_json_get(rl_json_get(r, "late"), "samples")), 3);
    /* printed, the compact array is its text: the unformatted page's bytes */
    char *t = cJSON_PrintUnformatted(rl_json_get(r, "samples"));
    assert_string_equal(t, "[1.5,2,3e2,-0.25]");
    cJSON_free(t);
    cJSON_Delete(c);
}

/* Documents of every kind read the same both ways. */
static void test_same_tree(void **state)
{
    (void)state;
    static const char *docs[] = {
        "{}",
        "[]",
        "42",
        "\"s\"",
        "{\"a\": [true, false, null, 0, -1, 1e-3, 12345678901234567890, \"\\u00e9\\n\"]}",
        "{\"samples\": [0.1, 0.2, 0.30000000000000004], \"x\": {\"samples_ns\": [1]}}",
        "[{\"samples\": [1, 2]}, {\"samples\": {\"n\": 3}}, {\"samples\": \"no\"}]",
        "{\"samples\": [1, {\"a\": 2}, 3], \"samples_ns\": [4, [5], 6], \"n\": [7]}",
        "{\"s\": \"a\\u0000b\", \"k\\u00e9y\": 1, \"samples\": [1e308, -1e-308, 5E+2]}",
        " \n\t{\"a\": 1} \n",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        cJSON_Delete(both(docs[i]));
}

/* The refusals of rl_json_parse, word for word. */
static void refused(const char *text, size_t len, const char *want_part)
{
    cJSON *a = NULL, *b = NULL;
    rl_error e1 = {RL_OK, ""}, e2 = {RL_OK, ""};
    rl_status s1 = rl_json_parse("x.json", text, len, &a, &e1);
    rl_status s2 = rl_json_parse_compact("x.json", text, len, &b, &e2);
    assert_int_equal(s1, RL_EINPUT);
    assert_int_equal(s2, RL_EINPUT);
    assert_null(a);
    assert_null(b);
    if (!strstr(e2.msg, want_part))
        print_message("got: %s\nplain: %s\n", e2.msg, e1.msg);
    assert_non_null(strstr(e2.msg, want_part));
    if (!strstr(want_part, "syntax error")) /* yajl and cJSON stop at other bytes */
        assert_string_equal(e2.msg, e1.msg);
    else
        assert_non_null(strstr(e1.msg, want_part));
}

static void test_refusals(void **state)
{
    (void)state;
    refused("", 0, "x.json: empty file, not JSON");
    refused("{}{}", 4, "(more text after the JSON value at byte 2: two files joined");
    refused("{} x", 4, "at byte 3");
    refused("42 x", 4, "at byte 3");
    refused("\"s\"  }", 6, "at byte 5");
    refused("{\"s\": \"a\0b\"}", 12, "x.json: not valid JSON (a NUL byte at byte 8)");
    refused("{\"a\": }", 7, "x.json: not valid JSON (syntax error near byte");
    refused("{\"a\": [1, 2", 11, "syntax error near byte");
    refused("{\"a\": 1, \"a\": 2}", 16, "(the key \"a\" twice in one object)");
    refused("{\"a\": 1e400}", 12, "not valid JSON for this tool (a number too large for a double)");
    refused("{\"samples\": [1, 1e400]}", 23, "(a number too large for a double)");
    refused("   ", 3, "syntax error near byte");
}

/* cJSON's nesting limit: 1000 arrays deep read, 1001 refused, both ways. */
static void test_nesting(void **state)
{
    (void)state;
    for (int depth = 1000; depth <= 1001; depth++) {
        char *t = malloc((size_t)depth * 2 + 1);
        assert_non_null(t);
        memset(t, '[', (size_t)depth);
        memset(t + depth, ']', (size_t)depth);
        t[depth * 2] = '\0';
        cJSON *a = NULL, *b = NULL;
        rl_error e = {RL_OK, ""};
        rl_status want = depth == 1000 ? RL_OK : RL_EINPUT;
        assert_int_equal(rl_json_parse("n", t, strlen(t), &a, &e), want);
        assert_int_equal(rl_json_parse_compact("n", t, strlen(t), &b, &e), want);
        if (want == RL_OK)
            assert_true(cJSON_Compare(a, b, true));
        cJSON_Delete(a);
        cJSON_Delete(b);
        free(t);
    }
}

/* A document over several chunks (1 MiB each) read from a FILE after a head: one sample
 * array across the chunk boundaries, every number kept; a NUL past the first chunk named at
 * its byte in the file; more than max bytes refused. */
static void test_chunks(void **state)
{
    (void)state;
    size_t n = 300000; /* about 2.4 MB of numbers */
    size_t cap = n * 12 + 64, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len, "{\"samples\": [");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s%zu.5", i ? ", " : "", i);
    len += (size_t)snprintf(t + len, cap - len, "], \"z\": 1}");
    FILE *f = fmemopen(t + 7, len - 7, "r");
    assert_non_null(f);
    cJSON *c = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_read_compact("big", f, t, 7, len, &c, &e), RL_OK);
    fclose(f);
    const cJSON *s = rl_json_get(c, "samples");
    assert_true(rl_json_is_compact(s));
    assert_int_equal(rl_json_array_size(s), n);
    double *v = NULL;
    size_t got = 0;
    assert_int_equal(rl_json_values(s, &v, &got), RL_OK);
    assert_int_equal(got, n);
    assert_true(v[0] == 0.5 && v[1] == 1.5 && v[n - 1] == (double)(n - 1) + 0.5);
    free(v);
    assert_true(cJSON_IsNumber(rl_json_get(c, "z")));
    cJSON_Delete(c);

    size_t at = 1500000; /* inside the second chunk, in a number: made a NUL */
    t[at] = '\0';
    f = fmemopen(t, len, "r");
    assert_int_equal(rl_json_read_compact("big", f, NULL, 0, len, &c, &e), RL_EINPUT);
    fclose(f);
    char want[96];
    snprintf(want, sizeof want, "big: not valid JSON (a NUL byte at byte %zu)", at);
    assert_string_equal(e.msg, want);
    t[at] = '1';

    f = fmemopen(t, len, "r");
    assert_int_equal(rl_json_read_compact("big", f, NULL, 0, len - 1, &c, &e), RL_EINPUT);
    fclose(f);
    assert_non_null(strstr(e.msg, "big: more than the"));
    assert_null(c);
    free(t);
}

static void *no_memory(size_t n)
{
    (void)n;
    return NULL;
}

/* Out of memory is RL_EINTERNAL, never "not valid JSON", and leaves nothing. */
static void test_out_of_memory(void **state)
{
    (void)state;
    cJSON *c = NULL;
    rl_error e = {RL_OK, ""};
    rl_json_set_malloc(no_memory);
    rl_status st = rl_json_parse_compact("m", "{\"samples\": [1, 2]}", 19, &c, &e);
    rl_json_set_malloc(NULL);
    assert_int_equal(st, RL_EINTERNAL);
    assert_null(c);
    assert_string_equal(e.msg, "m: out of memory reading the JSON");
}

/* rl_json_values, _array_size, _is_array, _describe on both forms and on what is not an
 * array. */
static void test_values(void **state)
{
    (void)state;
    cJSON *c = both("{\"r\": {\"samples\": [3, 1.25], \"plain\": [1, \"x\", true, 2.5]}}");
    const cJSON *r = rl_json_get(c, "r");
    const cJSON *s = rl_json_get(r, "samples"), *p = rl_json_get(r, "plain");
    double *v = NULL;
    size_t n = 0;
    assert_int_equal(rl_json_values(s, &v, &n), RL_OK);
    assert_int_equal(n, 2);
    assert_true(v[0] == 3 && v[1] == 1.25);
    free(v);
    assert_int_equal(rl_json_values(p, &v, &n), RL_OK);
    assert_int_equal(n, 4);
    assert_true(v[0] == 1 && isnan(v[1]) && isnan(v[2]) && v[3] == 2.5);
    free(v);
    assert_int_equal(rl_json_values(r, &v, &n), RL_EINPUT);
    assert_null(v);
    assert_int_equal(n, 0);
    assert_int_equal(rl_json_values(NULL, &v, &n), RL_EINPUT);
    assert_int_equal(rl_json_array_size(s), 2);
    assert_int_equal(rl_json_array_size(p), 4);
    assert_int_equal(rl_json_array_size(r), 0);
    assert_true(rl_json_is_array(s) && rl_json_is_array(p) && !rl_json_is_array(r));
    assert_false(rl_json_is_compact(p));
    char buf[32];
    assert_string_equal(rl_json_describe(s, buf, sizeof buf), "an array");
    /* a raw number (rl_json_u64 above 2^53) is not a compact array */
    cJSON *big = rl_json_u64(18446744073709551615ull);
    assert_false(rl_json_is_compact(big));
    assert_false(rl_json_is_array(big));
    cJSON_Delete(big);
    /* expanded in place: an ordinary array of the same numbers, its neighbours untouched */
    assert_true(rl_json_expand(c));
    s = rl_json_get(r, "samples");
    assert_true(cJSON_IsArray(s));
    assert_int_equal(cJSON_GetArraySize(s), 2);
    assert_true(cJSON_GetArrayItem(s, 1)->valuedouble == 1.25);
    assert_true(cJSON_GetArrayItem(s, 1)->next == NULL);
    assert_true(s->child->prev == cJSON_GetArrayItem(s, 1));
    assert_ptr_equal(rl_json_get(r, "plain"), p);
    cJSON_Delete(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_forms), cmocka_unit_test(test_same_tree),
        cmocka_unit_test(test_refusals),      cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_chunks),        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
