/* SPDX-License-Identifier: MIT */
/* test_lbench.c: unit tests for lbench.c and lbench_parse.c: discovery, the command line, the
 * output parser and feeder (real captured llama-bench output and hand-written cases), the stderr
 * summary and build identification. Fixtures: tests/fixtures/lbench/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "measure/lbench.h"
#include "base/rl_util.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static char *read_fixture(const char *name, size_t *len)
{
    const char *src = getenv("RL_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/lbench/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

static rl_status parse_str(const char *s, rl_lbench_set *set, rl_error *e)
{
    return rl_lbench_parse(s, strlen(s), set, e);
}

static bool no_control_bytes(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            return false;
    return true;
}

static void assert_close(double a, double b, double rel)
{
    if (fabs(a - b) > rel * fabs(b)) {
        fail_msg("%.9g is not within %g of %.9g", a, rel, b);
    }
}

/* The rates llama-bench printed (6 significant digits) match the recomputed ones. */
static void assert_matches_printed_ts(const rl_lbench_record *r)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(r->raw, "samples_ts");
    assert_true(cJSON_IsArray(ts));
    assert_int_equal((size_t)cJSON_GetArraySize(ts), r->n_samples);
    for (size_t i = 0; i < r->n_samples; i++)
        assert_close(r->samples_ts_recomputed[i], cJSON_GetArrayItem(ts, (int)i)->valuedouble,
                     1e-5);
}

/* ---- real output of the pinned llama-bench ------------------------------------------------ */

static void check_real_pair(const rl_lbench_set *set, int64_t depth, int64_t ngl)
{
    assert_int_equal(set->n_records, 2);
    const rl_lbench_record *p = &set->records[0], *d = &set->records[1];
    assert_int_equal(p->kind, RL_LBENCH_PREFILL);
    assert_int_equal(p->n_prompt, 16);
    assert_int_equal(p->n_gen, 0);
    assert_int_equal(d->kind, RL_LBENCH_DECODE);
    assert_int_equal(d->n_prompt, 0);
    assert_int_equal(d->n_gen, 16);
    for (int i = 0; i < 2; i++) {
        const rl_lbench_record *r = &set->records[i];
        assert_int_equal(r->n_depth, depth);
        assert_true(r->has_n_gpu_layers);
        assert_int_equal(r->n_gpu_layers, ngl);
        assert_int_equal(r->n_threads, 1);
        assert_false(r->flash_attn);
        assert_true(r->flash_attn_auto); /* 2026 builds print -1 */
        assert_string_equal(r->backends, "CPU");
        assert_false(r->backends_synthesised);
        assert_string_equal(r->build_commit, "de3ff81");
        assert_int_equal(r->build_number, 1);
        assert_int_equal(r->model_size, 3073024);
        assert_int_equal(r->model_n_params, 2885888);
        assert_string_equal(r->model_filename, "/tmp/lb-tiny.gguf");
        assert_string_equal(r->model_type, "llama ?B Q8_0");
        assert_string_equal(r->type_k, "f16");
        assert_string_equal(r->type_v, "f16");
        assert_string_equal(r->cpu_info, "AMD EPYC");
        assert_string_equal(r->gpu_info, "");
        assert_int_equal(r->n_samples, 2);
        assert_false(r->from_average);
        assert_false(r->avg_mismatch);
        assert_true(r->has_avg_ts);
        assert_close(r->rate_ts, r->avg_ts, 1e-6);
        assert_matches_printed_ts(r);
        /* unknown keys are kept verbatim */
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r->raw, "load_mode")));
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r->raw, "test_time")));
    }
}

static void test_real_jsonl(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-jsonl.txt", &n);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(t, n, &set, &e), RL_OK);
    check_real_pair(&set, 0, -1);
    assert_int_equal(set.records[0].samples_ns[0], 1721999);
    assert_close(set.records[0].samples_ts_recomputed[0], 16e9 / 1721999, 1e-12);
    assert_close(set.records[1].samples_ts_recomputed[1], 16e9 / 6952180, 1e-12);
    assert_int_equal(set.n_skipped_lines, 0);
    assert_int_equal(set.n_invalid, 0);
    assert_false(set.truncated);
    rl_lbench_set_free(&set);
    free(t);
}

static void test_real_jsonl_depth(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-jsonl-depth32.txt", &n);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(t, n, &set, &e), RL_OK);
    /* -d 32 -ngl 0: both tests carry n_depth 32; the depth tokens are not in the rate */
    check_real_pair(&set, 32, 0);
    assert_close(set.records[1].samples_ts_recomputed[0], 16e9 / 7916440, 1e-12);
    rl_lbench_set_free(&set);
    free(t);
}

static void test_real_json_array(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-json.txt", &n);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(t, n, &set, &e), RL_OK);
    check_real_pair(&set, 0, 0);
    assert_false(set.truncated);
    rl_lbench_set_free(&set);
    free(t);
}

static void test_real_json_killed(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-json-killed.txt", &n);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(t, n, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_true(set.truncated);
    assert_int_equal(set.records[0].kind, RL_LBENCH_PREFILL);
    assert_int_equal(set.records[0].n_samples, 5);
    assert_matches_printed_ts(&set.records[0]);
    rl_lbench_set_free(&set);
    free(t);
}

static void test_json_banner_and_cut_mid_object(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-json.txt", &n);
    const char *banner = "load_backend: loaded CPU backend from /usr/lib/libggml-cpu.so\n"
                         "[INFO] a bracket that is not JSON\n"
                         "warning: debug build, performance may be affected\n";
    char *text = rl_asprintf("%s%s", banner, t);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(parse_str(text, &set, &e), RL_OK);
    check_real_pair(&set, 0, 0);
    assert_int_equal(set.n_skipped_lines, 3);
    assert_false(set.truncated);
    rl_lbench_set_free(&set);

    /* cut inside the second object (llama-bench killed while printing): the first is kept */
    char *second = strstr(text, "},");
    assert_non_null(second);
    char *mid = strstr(second, "\"n_prompt\"");
    assert_non_null(mid);
    assert_int_equal(rl_lbench_parse(text, (size_t)(mid - text), &set, &e), RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_true(set.truncated);
    assert_int_equal(set.records[0].kind, RL_LBENCH_PREFILL);
    rl_lbench_set_free(&set);

    /* a string holding braces and a quote does not confuse the object scanner */
    const char *tricky = "[{\"model_type\": \"a}\\\"{]\", \"n_prompt\": 0, \"n_gen\": 4, "
                         "\"samples_ns\": [1000000000]}";
    assert_int_equal(parse_str(tricky, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_true(set.truncated);
    assert_string_equal(set.records[0].model_type, "a}\"{]");
    rl_lbench_set_free(&set);
    free(text);
    free(t);
}

static void test_jsonl_with_banner(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-jsonl.txt", &n);
    char *text = rl_asprintf("warning: asserts enabled, performance may be affected\n\n%s"
                             "main: done\r\n",
                             t);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(parse_str(text, &set, &e), RL_OK);
    check_real_pair(&set, 0, -1);
    assert_int_equal(set.n_skipped_lines, 2);
    assert_int_equal(set.n_invalid, 0);
    rl_lbench_set_free(&set);

    /* a broken line between good ones is counted as invalid, not fatal */
    char *nl = strchr(t, '\n');
    char *broken = rl_asprintf("%.*s\n{\"n_prompt\": 1,\n%s", (int)(nl - t), t, nl + 1);
    assert_int_equal(parse_str(broken, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 2);
    assert_int_equal(set.n_invalid, 1);
    assert_non_null(strstr(set.first_invalid, "not valid JSON"));
    rl_lbench_set_free(&set);
    free(broken);
    free(text);
    free(t);
}

static void test_old_records(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("old-2024.jsonl", &n);
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(t, n, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 2);
    const rl_lbench_record *a = &set.records[0], *b = &set.records[1];
    /* autumn 2024: backend booleans (kompute repeats vulkan), flash_attn as int, no n_depth */
    assert_int_equal(a->kind, RL_LBENCH_DECODE);
    assert_int_equal(a->n_depth, 0);
    assert_string_equal(a->backends, "Vulkan");
    assert_true(a->backends_synthesised);
    assert_true(a->flash_attn);
    assert_false(a->flash_attn_auto);
    assert_int_equal(a->n_gpu_layers, 99);
    assert_int_equal(a->build_number, 3945);
    assert_close(a->samples_ts_recomputed[0], 128e9 / 4400000000.0, 1e-12);
    assert_false(a->avg_mismatch);
    assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(a->raw, "kompute")));
    /* early 2024: f16_kv instead of type_k/type_v, no flash_attn, every backend false */
    assert_int_equal(b->kind, RL_LBENCH_PREFILL);
    assert_string_equal(b->backends, "CPU");
    assert_true(b->backends_synthesised);
    assert_string_equal(b->type_k, "f16");
    assert_string_equal(b->type_v, "f16");
    assert_false(b->flash_attn);
    assert_false(b->flash_attn_auto);
    assert_close(b->rate_ts, 320.0, 1e-12);
    rl_lbench_set_free(&set);
    free(t);

    /* flash_attn as a string, as true, and a -pg record (both counts: "other") */
    assert_int_equal(parse_str("{\"n_prompt\":8,\"n_gen\":8,\"flash_attn\":\"on\","
                               "\"samples_ns\":[16000000000]}\n"
                               "{\"n_prompt\":8,\"n_gen\":0,\"flash_attn\":true,\"avg_ts\":5}\n",
                               &set, &e),
                     RL_OK);
    assert_int_equal(set.n_records, 2);
    assert_int_equal(set.records[0].kind, RL_LBENCH_OTHER);
    assert_true(set.records[0].flash_attn);
    assert_close(set.records[0].samples_ts_recomputed[0], 1.0, 1e-12); /* (8+8) tokens / 16 s */
    assert_true(set.records[1].flash_attn);
    assert_string_equal(set.records[1].backends, ""); /* nothing to tell */
    assert_string_equal(rl_lbench_kind_name(set.records[0].kind), "other");
    rl_lbench_set_free(&set);
}

static void expect_refused(const char *text, size_t len, const char *needle)
{
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(text, len, &set, &e), RL_EINPUT);
    assert_int_equal(e.status, RL_EINPUT);
    assert_int_equal(set.n_records, 0);
    assert_null(set.records);
    if (!strstr(e.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
    assert_true(no_control_bytes(e.msg));
    assert_null(strchr(e.msg, '\n'));
}

static void refuse_str(const char *text, const char *needle)
{
    expect_refused(text, strlen(text), needle);
}

/* The edges: n_prompt may be exactly RL_LBENCH_MAX_TOKENS (2^24), one more is refused; an
 * avg_ts of exactly 0 beside samples is still read (has_avg_ts). */
static void test_int_and_avg_edges(void **state)
{
    (void)state;
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(parse_str("{\"n_prompt\": 16777216, \"n_gen\": 0, \"n_depth\": 16777216,"
                               " \"avg_ts\": 0, \"samples_ns\": [1000000000]}",
                               &set, &e),
                     RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_int_equal(set.records[0].n_prompt, RL_LBENCH_MAX_TOKENS);
    assert_int_equal(set.records[0].n_depth, RL_LBENCH_MAX_TOKENS);
    assert_true(set.records[0].has_avg_ts);
    assert_true(set.records[0].avg_ts == 0.0);
    rl_lbench_set_free(&set);
    refuse_str("{\"n_prompt\": 16777217, \"n_gen\": 0, \"avg_ts\": 1}",
               "n_prompt is not a whole number in range");
}

static void test_garbage(void **state)
{
    (void)state;
    expect_refused("", 0, "llama-bench produced no output");
    expect_refused(" \n\t\r\n", 5, "llama-bench produced no output");
    expect_refused(NULL, 10, "llama-bench produced no output");
    expect_refused("segmentation fault\n", 19, "\"segmentation fault\\n\"");
    expect_refused("[", 1, "began \"[\"");
    expect_refused("[]", 2, "began \"[]\"");
    expect_refused("[\n]\n", 4, "no benchmark records");
    expect_refused("{}", 2, "n_prompt is missing");
    refuse_str("[1, 2]", "no benchmark records"); /* not taken for -o json output */
    refuse_str("[{\"n_gen\": 1}, 5]", "n_prompt is missing");
    refuse_str("[ ]", "no benchmark records");
    refuse_str("{\"n_prompt\": \"16\", \"n_gen\": 0}", "n_prompt is not a whole number");
    refuse_str("{\"n_prompt\": 16.5, \"n_gen\": 0}", "n_prompt is not a whole number");
    refuse_str("{\"n_prompt\": 0, \"n_gen\": 0, \"avg_ts\": 1}", "both 0");
    refuse_str("{\"n_prompt\": 16, \"n_gen\": 0}", "neither samples_ns");
    refuse_str("{\"n_prompt\": 16, \"n_gen\": 0, \"samples_ns\": 5}", "not an array");
    refuse_str("{\"n_prompt\": 16, \"n_gen\": 0, \"samples_ns\": [1, -2]}",
               "samples_ns[1] is not a positive");
    refuse_str("{\"n_prompt\": 16, \"n_gen\": 0, \"samples_ns\": [0]}",
               "samples_ns[0] is not a positive");
    refuse_str("{\"n_prompt\": 16, \"n_gen\": 0, \"n_depth\": \"x\", \"avg_ts\": 1}",
               "n_depth is not");
    refuse_str("{\"n_prompt\": 99999999999, \"n_gen\": 0, \"avg_ts\": 1}",
               "n_prompt is not a whole number in range");
    /* binary bytes with ESC and NUL: escaped in the message, never raw */
    const char bin[] = "\x1b[31mboom\x00\x01\xff\xc3\x28 done\x7f";
    expect_refused(bin, sizeof bin - 1, "\\e[31mboom\\x00\\x01\\xff\\xc3(");
    /* only the first 80 characters are quoted */
    char longline[300];
    memset(longline, 'a', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    assert_int_equal(parse_str(longline, &set, &e), RL_EINPUT);
    char expect[90];
    memset(expect, 'a', 80);
    strcpy(expect + 80, "\";");
    assert_non_null(strstr(e.msg, expect));
    assert_null(strstr(
        e.msg,
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

/* ---- recomputed rates ---------------------------------------------------------------------- */

static rl_lbench_record one(const char *json)
{
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    if (parse_str(json, &set, &e) != RL_OK)
        fail_msg("%s: %s", json, e.msg);
    assert_int_equal(set.n_records, 1);
    rl_lbench_record r = set.records[0];
    free(set.records); /* the record itself is handed to the caller */
    return r;
}

static void test_recomputed_rates(void **state)
{
    (void)state;
    rl_lbench_record r = one("{\"n_prompt\": 0, \"n_gen\": 16, \"n_depth\": 512, \"avg_ts\": "
                             "12.000000, \"samples_ns\": [2000000000, 1000000000]}");
    assert_int_equal(r.kind, RL_LBENCH_DECODE);
    assert_int_equal(r.n_samples, 2);
    assert_true(r.samples_ts_recomputed[0] == 8.0);
    assert_true(r.samples_ts_recomputed[1] == 16.0);
    assert_true(r.rate_ts == 12.0);
    assert_true(r.median_ts == 12.0);
    assert_false(r.avg_mismatch);
    assert_false(r.from_average);
    rl_lbench_record_free(&r);

    /* prefill counts n_prompt tokens; the median of an odd count is the middle sample */
    r = one("{\"n_prompt\": 128, \"n_gen\": 0, \"samples_ns\": [1000000000, 500000000, "
            "250000000]}");
    assert_int_equal(r.kind, RL_LBENCH_PREFILL);
    assert_true(r.samples_ts_recomputed[2] == 512.0);
    assert_true(r.median_ts == 256.0);
    assert_close(r.rate_ts, (128.0 + 256.0 + 512.0) / 3, 1e-12);
    assert_false(r.has_avg_ts);
    assert_false(r.avg_mismatch); /* nothing to compare with */
    rl_lbench_record_free(&r);
}

static void test_avg_mismatch(void **state)
{
    (void)state;
    /* 12.2 is 1.67% away from the recomputed 12: flagged, both kept */
    rl_lbench_record r = one("{\"n_prompt\": 0, \"n_gen\": 16, \"avg_ts\": 12.2, "
                             "\"samples_ns\": [2000000000, 1000000000]}");
    assert_true(r.avg_mismatch);
    assert_true(r.avg_ts == 12.2);
    assert_true(r.rate_ts == 12.0);
    rl_lbench_record_free(&r);
    /* 12.1 is 0.83% away: within tolerance */
    r = one("{\"n_prompt\": 0, \"n_gen\": 16, \"avg_ts\": 12.1, "
            "\"samples_ns\": [2000000000, 1000000000]}");
    assert_false(r.avg_mismatch);
    rl_lbench_record_free(&r);
    /* 11.85 is 1.25% below */
    r = one("{\"n_prompt\": 0, \"n_gen\": 16, \"avg_ts\": 11.85, "
            "\"samples_ns\": [2000000000, 1000000000]}");
    assert_true(r.avg_mismatch);
    rl_lbench_record_free(&r);
}

static void test_from_average(void **state)
{
    (void)state;
    rl_lbench_record r = one("{\"n_prompt\": 0, \"n_gen\": 128, \"avg_ts\": 85.64, "
                             "\"stddev_ts\": 0.4}");
    assert_true(r.from_average);
    assert_int_equal(r.n_samples, 0);
    assert_null(r.samples_ns);
    assert_true(r.rate_ts == 85.64);
    assert_true(r.median_ts == 85.64);
    assert_true(r.stddev_ts == 0.4);
    rl_lbench_record_free(&r);
    r = one("{\"n_prompt\": 0, \"n_gen\": 128, \"avg_ts\": 85.64, \"samples_ns\": []}");
    assert_true(r.from_average);
    rl_lbench_record_free(&r);
    r = one("{\"n_prompt\": 0, \"n_gen\": 128, \"avg_ts\": 85.64, \"samples_ns\": null}");
    assert_true(r.from_average);
    rl_lbench_record_free(&r);
}

/* ---- bounds -------------------------------------------------------------------------------- */

static char *samples_record(size_t count)
{
    size_t cap = 64 + count * 12;
    char *s = malloc(cap);
    assert_non_null(s);
    size_t o = (size_t)snprintf(s, cap, "{\"n_prompt\": 0, \"n_gen\": 1, \"samples_ns\": [");
    for (size_t i = 0; i < count; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s1000000", i ? "," : "");
    snprintf(s + o, cap - o, "]}\n");
    return s;
}

static void test_bounds(void **state)
{
    (void)state;
    rl_lbench_set set;
    rl_error e = {RL_OK, ""};
    char *ok = samples_record(RL_LBENCH_MAX_SAMPLES);
    assert_int_equal(parse_str(ok, &set, &e), RL_OK);
    assert_int_equal(set.records[0].n_samples, RL_LBENCH_MAX_SAMPLES);
    assert_true(set.records[0].samples_ts_recomputed[9999] == 1000.0);
    rl_lbench_set_free(&set);
    char *over = samples_record(RL_LBENCH_MAX_SAMPLES + 1);
    assert_int_equal(parse_str(over, &set, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "samples_ns has more than 10000 entries"));
    /* the same inside an array */
    char *arr = rl_asprintf("[%s]", over);
    assert_int_equal(parse_str(arr, &set, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "more than 10000"));
    free(arr);

    /* a line past RL_LBENCH_MAX_LINE is dropped unparsed, in JSONL and in an array */
    size_t big = RL_LBENCH_MAX_LINE + 100;
    char *huge = malloc(big + 200);
    assert_non_null(huge);
    strcpy(huge, "{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1, \"pad\": \"");
    size_t o = strlen(huge);
    memset(huge + o, 'x', big);
    strcpy(huge + o + big, "\"}\n{\"n_prompt\": 0, \"n_gen\": 2, \"avg_ts\": 2}\n");
    assert_int_equal(parse_str(huge, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_int_equal(set.records[0].n_gen, 2);
    assert_int_equal(set.n_invalid, 1);
    assert_non_null(strstr(set.first_invalid, "longer than"));
    rl_lbench_set_free(&set);
    memmove(huge + 1, huge, strlen(huge) + 1);
    huge[0] = '[';
    char *nl = strchr(huge, '\n');
    *nl = ',';
    assert_int_equal(parse_str(huge, &set, &e), RL_OK);
    assert_int_equal(set.n_records, 1);
    assert_int_equal(set.n_invalid, 1);
    assert_true(set.truncated); /* no closing bracket */
    rl_lbench_set_free(&set);
    free(huge);

    /* record count bounded */
    const char *line = "{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1}\n";
    size_t ll = strlen(line), cnt = RL_LBENCH_MAX_RECORDS + 1;
    char *many = malloc(ll * cnt + 1);
    for (size_t i = 0; i < cnt; i++)
        memcpy(many + i * ll, line, ll);
    many[ll * cnt] = 0;
    assert_int_equal(parse_str(many, &set, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "more than 4096 records"));
    assert_int_equal(set.n_records, 0);
    many[ll * (cnt - 1)] = 0;
    assert_int_equal(parse_str(many, &set, &e), RL_OK);
    assert_int_equal(set.n_records, RL_LBENCH_MAX_RECORDS);
    rl_lbench_set_free(&set);
    free(many);

    /* deep nesting stops in cJSON, not on the stack */
    char deep[6000];
    deep[0] = '{';
    strcpy(deep + 1, "\"a\":");
    memset(deep + 5, '[', 5000);
    deep[5005] = 0;
    assert_int_equal(parse_str(deep, &set, &e), RL_EINPUT);
    free(ok);
    free(over);
}

/* ---- streaming ----------------------------------------------------------------------------- */

static void same_records(const rl_lbench_set *a, const rl_lbench_set *b)
{
    assert_int_equal(a->n_records, b->n_records);
    for (size_t i = 0; i < a->n_records; i++) {
        const rl_lbench_record *x = &a->records[i], *y = &b->records[i];
        assert_true(cJSON_Compare(x->raw, y->raw, 1));
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->n_samples, y->n_samples);
        for (size_t k = 0; k < x->n_samples; k++) {
            assert_int_equal(x->samples_ns[k], y->samples_ns[k]);
            assert_true(x->samples_ts_recomputed[k] == y->samples_ts_recomputed[k]);
        }
        assert_true(x->rate_ts == y->rate_ts);
        assert_string_equal(x->backends, y->backends);
    }
}

static void test_feeder_byte_at_a_time(void **state)
{
    (void)state;
    size_t n;
    char *t = read_fixture("real-jsonl-depth32.txt", &n);
    char *text = rl_asprintf("banner line\n%s", t);
    size_t len = strlen(text);
    rl_lbench_set whole;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_parse(text, len, &whole, &e), RL_OK);

    rl_lbench_feeder *f = rl_lbench_feeder_new();
    assert_non_null(f);
    size_t total = 0, news = 0;
    size_t first_at = 0;
    for (size_t i = 0; i < len; i++) {
        size_t k = 99;
        assert_int_equal(rl_lbench_feed(f, text + i, 1, &k, &e), RL_OK);
        if (k) {
            news++;
            if (!first_at)
                first_at = i;
            /* the record is there the moment its line ends */
            assert_int_equal(text[i], '\n');
            assert_int_equal(rl_lbench_feeder_set(f)->n_records, total + k);
        }
        total += k;
    }
    assert_int_equal(news, 2);
    assert_true(first_at < len - 10);
    size_t k = 99;
    assert_int_equal(rl_lbench_feed_finish(f, &k, &e), RL_OK);
    assert_int_equal(k, 0);
    rl_lbench_set got;
    rl_lbench_feeder_take(f, &got);
    assert_int_equal(rl_lbench_feeder_set(f)->n_records, 0);
    rl_lbench_feeder_free(f);
    same_records(&whole, &got);
    assert_int_equal(got.n_skipped_lines, 1);
    rl_lbench_set_free(&got);

    /* uneven chunks give the same */
    f = rl_lbench_feeder_new();
    for (size_t i = 0, step = 1; i < len; i += step, step = step * 3 % 17 + 1)
        assert_int_equal(rl_lbench_feed(f, text + i, i + step <= len ? step : len - i, NULL, &e),
                         RL_OK);
    assert_int_equal(rl_lbench_feed_finish(f, NULL, &e), RL_OK);
    same_records(&whole, rl_lbench_feeder_set(f));
    rl_lbench_feeder_free(f);
    rl_lbench_set_free(&whole);
    free(text);
    free(t);
}

static void test_feeder_end_of_stream(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    const char *rec = "{\"n_prompt\": 0, \"n_gen\": 4, \"avg_ts\": 3}";
    /* a complete last line without a newline is a record */
    rl_lbench_feeder *f = rl_lbench_feeder_new();
    size_t k = 9;
    assert_int_equal(rl_lbench_feed(f, rec, strlen(rec), &k, &e), RL_OK);
    assert_int_equal(k, 0);
    assert_int_equal(rl_lbench_feed_finish(f, &k, &e), RL_OK);
    assert_int_equal(k, 1);
    assert_false(rl_lbench_feeder_set(f)->truncated);
    rl_lbench_feeder_free(f);
    /* killed mid-line: earlier records kept, the set says truncated */
    f = rl_lbench_feeder_new();
    char *two = rl_asprintf("%s\n{\"n_prompt\": 0, \"n_g", rec);
    assert_int_equal(rl_lbench_feed(f, two, strlen(two), &k, &e), RL_OK);
    assert_int_equal(k, 1);
    assert_int_equal(rl_lbench_feed_finish(f, &k, &e), RL_OK);
    assert_int_equal(k, 0);
    assert_true(rl_lbench_feeder_set(f)->truncated);
    assert_int_equal(rl_lbench_feeder_set(f)->n_invalid, 0);
    rl_lbench_feeder_free(f);
    free(two);
    /* nothing at all */
    f = rl_lbench_feeder_new();
    assert_int_equal(rl_lbench_feed_finish(f, NULL, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "produced no output"));
    rl_lbench_feeder_free(f);
    /* only noise */
    f = rl_lbench_feeder_new();
    assert_int_equal(rl_lbench_feed(f, "\n  Killed\n", 10, NULL, &e), RL_OK);
    assert_int_equal(rl_lbench_feed_finish(f, NULL, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "began \"Killed\\n\""));
    rl_lbench_feeder_free(f);
    /* past the record limit the feeder refuses, and keeps refusing */
    f = rl_lbench_feeder_new();
    char line[64];
    snprintf(line, sizeof line, "%s\n", rec);
    rl_status st = RL_OK;
    for (int i = 0; i <= RL_LBENCH_MAX_RECORDS && st == RL_OK; i++)
        st = rl_lbench_feed(f, line, strlen(line), NULL, &e);
    assert_int_equal(st, RL_EINPUT);
    assert_int_equal(rl_lbench_feed(f, line, strlen(line), NULL, &e), RL_EINPUT);
    assert_int_equal(rl_lbench_feed_finish(f, NULL, &e), RL_EINPUT);
    assert_int_equal(rl_lbench_feeder_set(f)->n_records, RL_LBENCH_MAX_RECORDS);
    rl_lbench_feeder_free(f);
}

/* Mutated real output never crashes the parser (run under ASan/UBSan too). */
static void test_mutations(void **state)
{
    (void)state;
    size_t n1, n2;
    char *a = read_fixture("real-json.txt", &n1);
    char *b = read_fixture("real-jsonl.txt", &n2);
    uint32_t seed = 12345;
    for (int it = 0; it < 3000; it++) {
        const char *src = it % 2 ? a : b;
        size_t n = it % 2 ? n1 : n2;
        char *m = malloc(n);
        memcpy(m, src, n);
        for (int k = 0; k < 1 + it % 8; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            m[at] = (char)(seed >> 16);
        }
        seed = seed * 1103515245u + 12345u;
        size_t len = it % 3 ? n : (seed >> 8) % n;
        rl_lbench_set set;
        rl_error e = {RL_OK, ""};
        rl_status st = rl_lbench_parse(m, len, &set, &e);
        assert_true(st == RL_OK || st == RL_EINPUT);
        if (st == RL_EINPUT)
            assert_true(no_control_bytes(e.msg));
        rl_lbench_set_free(&set);
        free(m);
    }
    free(a);
    free(b);
}

/* ---- command line -------------------------------------------------------------------------- */

static void assert_argv(char **argv, const char *const *want)
{
    size_t i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
}

static void test_argv(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    char **argv = NULL;
    rl_lbench_params p = {"/m/q.gguf", 4, 128, 64, 5, 0, 0, NULL, 0, false};
    assert_int_equal(rl_lbench_argv("/bin/llama-bench", &p, &argv, &e), RL_OK);
    const char *const want1[] = {"/bin/llama-bench",
                                 "-m",
                                 "/m/q.gguf",
                                 "-t",
                                 "4",
                                 "-p",
                                 "128",
                                 "-n",
                                 "64",
                                 "-r",
                                 "5",
                                 "-o",
                                 "jsonl",
                                 "-ngl",
                                 "0",
                                 NULL};
    assert_argv(argv, want1);
    rl_lbench_argv_free(argv);

    const char *extra[] = {"-ctk", "q8_0", "-fa", "1"};
    rl_lbench_params q = {"m b.gguf", 16, 512, 128, 3, 8192, 99, extra, 4, false};
    assert_int_equal(rl_lbench_argv("llama-bench", &q, &argv, &e), RL_OK);
    const char *const want2[] = {"llama-bench", "-m",  "m b.gguf", "-t",   "16", "-p",
                                 "512",         "-n",  "128",      "-r",   "3",  "-o",
                                 "jsonl",       "-d",  "8192",     "-ngl", "99", "-ctk",
                                 "q8_0",        "-fa", "1",        NULL};
    assert_argv(argv, want2);
    for (char **a = argv; *a; a++) {
        assert_string_not_equal(*a, "-c");
        assert_string_not_equal(*a, "--ctx-size");
        assert_null(strstr(*a, "llama-cli"));
    }
    rl_lbench_argv_free(argv);

    /* decode only (calibrate): -p 0, the tg test alone */
    rl_lbench_params d = {"c.gguf", 2, 0, 64, 3, 0, 0, NULL, 0, true};
    assert_int_equal(rl_lbench_argv("llama-bench", &d, &argv, &e), RL_OK);
    const char *const want4[] = {"llama-bench", "-m", "c.gguf", "-t", "2",     "-p",   "0", "-n",
                                 "64",          "-r", "3",      "-o", "jsonl", "-ngl", "0", NULL};
    assert_argv(argv, want4);
    rl_lbench_argv_free(argv);

    char **v = rl_lbench_version_argv("/x/llama-bench");
    const char *const want3[] = {"/x/llama-bench", "--version", NULL};
    assert_argv(v, want3);
    rl_lbench_argv_free(v);
    rl_lbench_argv_free(NULL);
}

static void expect_argv_refused(rl_lbench_params p, const char *needle)
{
    rl_error e = {RL_OK, ""};
    char **argv = (char **)1;
    assert_int_equal(rl_lbench_argv("llama-bench", &p, &argv, &e), RL_EINPUT);
    assert_null(argv);
    if (!strstr(e.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
}

static void test_argv_refused(void **state)
{
    (void)state;
    const rl_lbench_params ok = {"m.gguf", 4, 128, 64, 5, 0, 0, NULL, 0, false};
    rl_lbench_params p = ok;
    p.n_prompt = 0;
    expect_argv_refused(p, "spuriously low generation rate");
    p.decode_only = true; /* decode only: -p 0 and a generation length */
    p.n_prompt = 128;
    expect_argv_refused(p, "decode-only llama-bench run is -p 0");
    p.n_prompt = 0;
    p.n_gen = 0;
    expect_argv_refused(p, "decode-only llama-bench run is -p 0");
    p = ok;
    p.n_prompt = -1;
    expect_argv_refused(p, "prompt length -1");
    p = ok;
    p.threads = 0;
    expect_argv_refused(p, "thread count 0");
    p = ok;
    p.reps = 0;
    expect_argv_refused(p, "repetition count 0");
    p = ok;
    p.reps = RL_LBENCH_MAX_SAMPLES + 1;
    expect_argv_refused(p, "repetition count 10001");
    p = ok;
    p.depth = -5;
    expect_argv_refused(p, "depth -5");
    p = ok;
    p.n_gen = -1;
    expect_argv_refused(p, "generation length -1");
    p = ok;
    p.n_gpu_layers = -1;
    expect_argv_refused(p, "999");
    p = ok;
    p.model = "";
    expect_argv_refused(p, "no model");
    const char *bad_extra[] = {"-ctk", "q8_0", "-o", "json"};
    p = ok;
    p.extra = bad_extra;
    p.n_extra = 4;
    expect_argv_refused(p, "-o is refused");
    const char *null_extra[] = {"-ctk", NULL};
    p.extra = null_extra;
    p.n_extra = 2;
    expect_argv_refused(p, "argument 2 is missing");
    p = ok;
    p.n_extra = RL_LBENCH_MAX_EXTRA + 1;
    p.extra = bad_extra;
    expect_argv_refused(p, "at most 64");
    /* n_gen 0 (prefill only) is allowed */
    p = ok;
    p.n_gen = 0;
    rl_error e;
    char **argv;
    assert_int_equal(rl_lbench_argv("b", &p, &argv, &e), RL_OK);
    rl_lbench_argv_free(argv);
}

/* ---- discovery ----------------------------------------------------------------------------- */

static char tmpdir[4096];

static void mkdirs(const char *path)
{
    char b[4096];
    snprintf(b, sizeof b, "%s", path);
    for (char *p = b + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(b, 0755);
            *p = '/';
        }
    mkdir(b, 0755);
}

/* Create tmpdir/rel (and its directories) with the given mode; returns the full path. */
static char *touch(const char *rel, mode_t mode)
{
    char *path = rl_asprintf("%s/%s", tmpdir, rel);
    char *dir = rl_strdup(path);
    *strrchr(dir, '/') = 0;
    mkdirs(dir);
    free(dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nexit 0\n", f);
    fclose(f);
    chmod(path, mode);
    return path;
}

static char *sub(const char *rel)
{
    return rl_asprintf("%s/%s", tmpdir, rel);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

static int find_setup(void **state)
{
    (void)state;
    const char *t = getenv("RL_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/test_lbench.%d", t ? t : "/tmp", (int)getpid());
    nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    mkdirs(tmpdir);
    return 0;
}

static int find_teardown(void **state)
{
    (void)state;
    nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}

static void expect_found(const char *explicit_path, const rl_lbench_env *env, const char *want)
{
    char *got = NULL;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_lbench_find_env(explicit_path, env, &got, &e);
    if (st != RL_OK)
        fail_msg("not found: %s", e.msg);
    assert_string_equal(got, want);
    free(got);
}

static void expect_not_found(const char *explicit_path, const rl_lbench_env *env, rl_status want,
                             const char *needle)
{
    char *got = (char *)1;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_lbench_find_env(explicit_path, env, &got, &e), want);
    assert_null(got);
    if (!strstr(e.msg, needle))
        fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
}

static void test_find_explicit(void **state)
{
    (void)state;
    char *file = touch("x/llama-bench", 0755);
    char *in_bin = touch("tree/build/bin/llama-bench", 0755);
    char *noexec = touch("ne/llama-bench", 0644);
    char *envb = touch("env/llama-bench", 0755);
    rl_lbench_env env = {envb, "/usr/bin", NULL, NULL};
    /* a file, a directory holding it, a build tree: the explicit path beats LLAMA_BENCH */
    expect_found(file, &env, file);
    char *xdir = sub("x");
    expect_found(xdir, &env, file);
    char *tree = sub("tree");
    expect_found(tree, &env, in_bin);
    /* wrong explicit paths are errors naming them, never a fall-through */
    char *missing = sub("nope/llama-bench");
    expect_not_found(missing, &env, RL_EINPUT, missing);
    expect_not_found(missing, &env, RL_EINPUT, "--llama-bench");
    char *empty = sub("empty");
    mkdirs(empty);
    expect_not_found(empty, &env, RL_EINPUT, "no executable llama-bench in it");
    expect_not_found(noexec, &env, RL_EINPUT, "is not an executable file");
    /* "~/" is the home directory */
    rl_lbench_env home = {NULL, NULL, NULL, tmpdir};
    expect_found("~/x/llama-bench", &home, file);
    /* a relative path comes back absolute */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmpdir), 0);
    expect_found("./x", &home, file);
    assert_int_equal(chdir(cwd), 0);
    free(file);
    free(in_bin);
    free(noexec);
    free(envb);
    free(xdir);
    free(tree);
    free(missing);
    free(empty);
}

static void test_find_order(void **state)
{
    (void)state;
    char *envb = touch("env/llama-bench", 0755);
    char *p1 = touch("p1/llama-bench", 0644); /* not executable: skipped */
    char *p2 = touch("p2/llama-bench", 0755);
    char *p3 = touch("p3/llama-bench", 0755);
    char *c_old = touch("cache/llama.cpp-old/build-cpu/bin/llama-bench", 0755);
    char *c_new = touch("cache/llama.cpp-new/build-cpu/bin/llama-bench", 0755);
    char *c_ok = touch("cache/llama.cpp-new/build-ok/bin/llama-bench", 0755);
    char *h = touch("home/.cache/llama-roofline/llama.cpp-p/build-x/bin/llama-bench", 0755);
    char *path = rl_asprintf("%s/p0:%s/p1:%s/p2:%s/p3", tmpdir, tmpdir, tmpdir, tmpdir);
    char *cache = sub("cache"), *home = sub("home"), *nowhere = sub("nowhere");
    /* make c_old older than c_new and c_ok the oldest of all */
    struct timeval tv[2] = {{1000000, 0}, {1000000, 0}};
    utimes(c_ok, tv);
    tv[0].tv_sec = tv[1].tv_sec = 2000000;
    utimes(c_old, tv);

    rl_lbench_env env = {envb, path, cache, home};
    expect_found(NULL, &env, envb); /* LLAMA_BENCH first */
    expect_found("", &env, envb);   /* "" is "not given" */
    env.llama_bench = "";
    expect_found(NULL, &env, p2); /* then PATH, skipping what cannot run */
    env.path = nowhere;
    /* then the cache: a build marked .built-ok beats a newer unmarked one */
    char *ok = sub("cache/llama.cpp-new/build-ok/.built-ok");
    FILE *f = fopen(ok, "w");
    fclose(f);
    expect_found(NULL, &env, c_ok);
    remove(ok);
    expect_found(NULL, &env, c_new); /* else the newest */
    /* no LLAMA_ROOFLINE_CACHE: $HOME/.cache/llama-roofline */
    env.roofline_cache = NULL;
    expect_found(NULL, &env, h);
    /* nothing anywhere */
    env.home = nowhere;
    expect_not_found(NULL, &env, RL_EMISSING, "scripts/llama-cpp.sh");
    expect_not_found(NULL, &env, RL_EMISSING, "--llama-bench PATH");
    expect_not_found(NULL, &env, RL_EMISSING, "LLAMA_BENCH");
    expect_not_found(NULL, NULL, RL_EMISSING, "scripts/llama-cpp.sh");
    /* a wrong LLAMA_BENCH is an error naming it */
    env.llama_bench = nowhere;
    expect_not_found(NULL, &env, RL_EINPUT, "LLAMA_BENCH");
    expect_not_found(NULL, &env, RL_EINPUT, nowhere);
    /* the real entry point reads the environment */
    setenv("LLAMA_BENCH", p3, 1);
    char *got = NULL;
    rl_error e;
    assert_int_equal(rl_lbench_find(NULL, &got, &e), RL_OK);
    assert_string_equal(got, p3);
    free(got);
    unsetenv("LLAMA_BENCH");
    free(envb);
    free(p1);
    free(p2);
    free(p3);
    free(c_old);
    free(c_new);
    free(c_ok);
    free(h);
    free(path);
    free(cache);
    free(home);
    free(nowhere);
    free(ok);
}

/* ---- stderr summary ------------------------------------------------------------------------ */

static void expect_summary(const char *text, const char *want)
{
    char buf[512];
    rl_lbench_stderr_summary(text, text ? strlen(text) : 0, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_stderr_summary_cases(void **state)
{
    (void)state;
    /* banners removed, the failing line kept, nothing after a newline */
    expect_summary("load_backend: loaded CPU backend from /x/libggml-cpu.so\n"
                   "register_device: registered device CPU\n"
                   "llama_model_load: error loading model: tensor data is not within bounds\n"
                   "llama_bench: error: failed to load model 'm.gguf'\n"
                   "ggml_backend: whatever\n",
                   "llama_model_load: error loading model: tensor data is not within bounds | "
                   "llama_bench: error: failed to load model 'm.gguf'");
    /* the real pinned llama-bench on a missing model */
    size_t n;
    char *t = read_fixture("real-stderr-missing-model.txt", &n);
    char buf[512];
    rl_lbench_stderr_summary(t, n, buf, sizeof buf);
    assert_string_equal(buf, "llama_bench: error: failed to load model '/tmp/nonexist.gguf'");
    free(t);
    /* no error line: the last two remaining lines; "Killed" kept */
    expect_summary("  starting\nwarming up\n\tKilled  \n", "warming up | Killed");
    /* only noise: the noise itself rather than nothing */
    expect_summary("load_backend: loaded CPU backend\nbuild: 1 (x)\n",
                   "load_backend: loaded CPU backend | build: 1 (x)");
    expect_summary("", "no error message on stderr");
    expect_summary(NULL, "no error message on stderr");
    expect_summary("\n \r\n\t\n", "no error message on stderr");
    /* a line saying something was loaded is noise too */
    expect_summary("warming up\nmodel loaded in 3 s\n", "warming up");
    /* case-insensitive preference; "loaded " lines are noise; \r splits lines */
    expect_summary("FAILED to allocate\rmodel loaded in 3 s\rdone\n", "FAILED to allocate");
    /* control characters escaped, never raw */
    expect_summary("\x1b[31merror: bad\x1b[0m\x07\n", "\\e[31merror: bad\\e[0m\\x07");
    /* UTF-8 is kept, broken UTF-8 and C1 controls escaped */
    expect_summary("error: ü \xc2\x9b \xe2\x82\n", "error: ü \\u009b \\xe2\\x82");
    /* long lines are cut with "...", and the last line still shows in a small buffer */
    char longl[2000];
    memset(longl, 'e', sizeof longl);
    memcpy(longl, "error ", 6);
    strcpy(longl + 1500, "\nerror: last\n");
    char small[64];
    rl_lbench_stderr_summary(longl, strlen(longl), small, sizeof small);
    assert_true(strlen(small) < sizeof small);
    assert_non_null(strstr(small, " | error: last"));
    assert_non_null(strstr(small, "..."));
    char big[1024];
    rl_lbench_stderr_summary(longl, strlen(longl), big, sizeof big);
    assert_int_equal(strlen(big), 240 + 3 + 3 + strlen("error: last"));
    char tiny[1];
    rl_lbench_stderr_summary("error", 5, tiny, sizeof tiny);
    assert_string_equal(tiny, "");
}

static void test_escape(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(rl_lbench_escape("a\tb\nc\r", 6, 80, b, sizeof b), 6);
    assert_string_equal(b, "a\\tb\\nc\\r");
    /* never splits an escape: 3 bytes of room hold "ab" but not "\x1b" */
    char s[5];
    assert_int_equal(rl_lbench_escape("ab\x1b", 3, 80, s, 4), 2);
    assert_string_equal(s, "ab");
    /* max_chars counts characters, not bytes */
    assert_int_equal(rl_lbench_escape("üüü", 6, 2, b, sizeof b), 4);
    assert_string_equal(b, "üü");
    /* overlong, surrogate and out-of-range sequences are escaped byte by byte */
    rl_lbench_escape("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", 9, 80, b, sizeof b);
    assert_string_equal(b, "\\xc0\\xaf\\xed\\xa0\\x80\\xf4\\x90\\x80\\x80");
    rl_lbench_escape("\xf0\x9f\x98\x80", 4, 80, b, sizeof b);
    assert_string_equal(b, "\xf0\x9f\x98\x80");
}

/* ---- build identification ------------------------------------------------------------------ */

static void test_build(void **state)
{
    (void)state;
    rl_lbench_build b;
    rl_error e = {RL_OK, ""};
    size_t n;
    char *t = read_fixture("real-version-stderr.txt", &n);
    assert_int_equal(rl_lbench_build_from_text(t, n, &b, &e), RL_OK);
    assert_int_equal(b.number, 1);
    assert_string_equal(b.commit, "de3ff81");
    assert_string_equal(b.version, "0.5.0-dev");
    free(t);
    const char *old = "usage: ./llama-bench [options]\nversion: 4154 (a5e47592)\nbuilt with cc";
    assert_int_equal(rl_lbench_build_from_text(old, strlen(old), &b, &e), RL_OK);
    assert_int_equal(b.number, 4154);
    assert_string_equal(b.commit, "a5e47592");
    assert_string_equal(b.version, "");
    const char *md = "| model | size |\n\nbuild: de3ff81 (1)\n";
    assert_int_equal(rl_lbench_build_from_text(md, strlen(md), &b, &e), RL_OK);
    assert_int_equal(b.number, 1);
    assert_string_equal(b.commit, "de3ff81");
    const char *logl = "build: 3945 (3420909d) with cc (Debian 12.2.0-14) for x86_64\n";
    assert_int_equal(rl_lbench_build_from_text(logl, strlen(logl), &b, &e), RL_OK);
    assert_int_equal(b.number, 3945);
    assert_string_equal(b.commit, "3420909d");
    const char *unk = "version: 0 (unknown)\n";
    assert_int_equal(rl_lbench_build_from_text(unk, strlen(unk), &b, &e), RL_OK);
    assert_string_equal(b.commit, "unknown");
    const char *bad[] = {"",
                         "version: \x1b[31m (build x)",
                         "version: 12 (zz)",
                         "build: (1)",
                         "version: 1.0 (build 5, commit abc",
                         "usage: llama-bench",
                         "version: 4154 (a5e47592",
                         "build: 3945 (3420909d with cc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(rl_lbench_build_from_text(bad[i], strlen(bad[i]), &b, &e), RL_EINPUT);
        assert_int_equal(b.number, 0);
        assert_string_equal(b.commit, "");
        assert_true(no_control_bytes(e.msg));
        assert_non_null(strstr(e.msg, "--version"));
    }
    assert_int_equal(rl_lbench_build_from_text(NULL, 5, &b, &e), RL_EINPUT);

    rl_lbench_record r = one("{\"n_prompt\": 0, \"n_gen\": 1, \"avg_ts\": 1, \"build_number\": "
                             "10154, \"build_commit\": \"bc5d8f9\\u001b\"}");
    rl_lbench_build_from_record(&r, &b);
    assert_int_equal(b.number, 10154);
    assert_string_equal(b.commit, "bc5d8f9\\e");
    rl_lbench_record_free(&r);
    rl_lbench_build_from_record(NULL, &b);
    assert_int_equal(b.number, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_jsonl),
        cmocka_unit_test(test_real_jsonl_depth),
        cmocka_unit_test(test_real_json_array),
        cmocka_unit_test(test_real_json_killed),
        cmocka_unit_test(test_json_banner_and_cut_mid_object),
        cmocka_unit_test(test_jsonl_with_banner),
        cmocka_unit_test(test_old_records),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_int_and_avg_edges),
        cmocka_unit_test(test_recomputed_rates),
        cmocka_unit_test(test_avg_mismatch),
        cmocka_unit_test(test_from_average),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_feeder_byte_at_a_time),
        cmocka_unit_test(test_feeder_end_of_stream),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_argv),
        cmocka_unit_test(test_argv_refused),
        cmocka_unit_test_setup_teardown(test_find_explicit, find_setup, find_teardown),
        cmocka_unit_test_setup_teardown(test_find_order, find_setup, find_teardown),
        cmocka_unit_test(test_stderr_summary_cases),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
