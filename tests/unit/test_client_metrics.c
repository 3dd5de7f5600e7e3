/* SPDX-License-Identifier: MIT */
/* test_client_metrics.c: unit tests for client_metrics.c with hand-computed values: results
 * are built by hand (chunk times in ns from a send at 0) and every number below was worked out
 * on paper from seed 001's rules (the comment beside each says how). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"

#include "client/client_metrics.h"
#include "render/client_text.h"
#include "render/html_client.h"
#include "base/rl_json.h"

#include "../fixtures/client/fixture.c"

#define MS 1000000LL

/* A result: sent at send_ms, chunks at t_ms[i] carrying tok[i] tokens (NULL: unknown), ended at
 * end_ms; counts -1 when unknown. */
static rl_client_result *mk(size_t prompt, double send_ms, double end_ms, const double *t_ms,
                            const int *tok, size_t n, int64_t ptok, int64_t otok, const char *out)
{
    rl_client_result *r = rl_client_result_new(0, 1);
    assert_non_null(r);
    rl_error err;
    r->prompt = prompt;
    r->ok = true;
    r->send_ns = (int64_t)(send_ms * MS);
    r->end_ns = (int64_t)(end_ms * MS);
    for (size_t i = 0; i < n; i++) {
        const char *text = (i == 0 && out != NULL) ? out : "x";
        assert_int_equal(rl_client_result_add(r, (int64_t)(t_ms[i] * MS), text, strlen(text),
                                              tok ? tok[i] : -1, &err),
                         RL_OK);
    }
    r->prompt_tokens = ptok;
    r->output_tokens = otok;
    r->token_source = otok >= 0 ? "per-delta" : NULL;
    return r;
}

static rl_client_result *failed(size_t prompt, double send_ms, double end_ms, const char *why)
{
    rl_client_result *r = mk(prompt, send_ms, end_ms, NULL, NULL, 0, -1, -1, NULL);
    r->ok = false;
    r->error = strdup(why);
    r->attempt = 3;
    return r;
}

static const char *ids[] = {"p1", "p2"};

static cJSON *point(rl_client_result **r, size_t n, const rl_client_slo *slo, size_t conc)
{
    rl_client_point p = {0};
    p.concurrency = conc;
    p.results = (const rl_client_result *const *)r;
    p.n_results = n;
    p.prompt_ids = ids;
    p.n_prompts = 2;
    p.start_ns = 0;
    p.end_ns = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i]->end_ns > p.end_ns)
            p.end_ns = r[i]->end_ns;
    rl_error err = {0};
    cJSON *j = rl_client_point_json(&p, slo, &err);
    assert_non_null(j);
    for (size_t i = 0; i < n; i++)
        rl_client_result_free(r[i]);
    return j;
}

static const cJSON *get(const cJSON *o, const char *path)
{
    char buf[256];
    strncpy(buf, path, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    for (char *k = strtok(buf, "."); k != NULL && o != NULL; k = strtok(NULL, "."))
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k))
                             : cJSON_GetObjectItemCaseSensitive(o, k);
    return o;
}

static double num(const cJSON *o, const char *path)
{
    const cJSON *v = get(o, path);
    if (!cJSON_IsNumber(v))
        fail_msg("%s is not a number", path);
    return v->valuedouble;
}

static void assert_unavailable(const cJSON *o, const char *path, const char *reason_part)
{
    const cJSON *v = get(o, path);
    assert_non_null(v);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(v, "available")));
    const char *r = cJSON_GetStringValue(cJSON_GetObjectItem(v, "reason"));
    assert_non_null(r);
    if (strstr(r, reason_part) == NULL)
        fail_msg("%s: reason '%s' lacks '%s'", path, r, reason_part);
}

static const cJSON *rec(const cJSON *j, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(j, "records"), i);
}

/* chunks at 100, 102, 110, 111 ms: 102 is 2 ms after 100 (grouped), 110 is 8 ms after 102 (a
 * new delivery), 111 is 1 ms after 110 (grouped): 2 deliveries starting at 100 and 110. */
static void test_deliveries(void **state)
{
    (void)state;
    double t[] = {100, 102, 110, 111};
    int tok[] = {1, 1, 1, 1};
    rl_client_result *r[] = {mk(0, 0, 120, t, tok, 4, 5, 4, "a")};
    uint64_t fb = 0;
    assert_int_equal(rl_client_first_delivery(r[0], &fb), 2);
    assert_int_equal(fb, 2); /* "a" and "x": the first 2 bytes of the output */
    cJSON *j = point(r, 1, NULL, 1);
    const cJSON *x = rec(j, 0);
    assert_int_equal((int)num(x, "chunks"), 4);
    assert_int_equal((int)num(x, "deliveries"), 2);
    assert_near(num(x, "ttft_ms"), 100, 1e-9);
    assert_near(num(x, "e2e_ms"), 120, 1e-9);
    assert_near(num(x, "generation_ms"), 10, 1e-9);   /* 110 - 100 */
    assert_near(num(x, "second_chunk_ms"), 10, 1e-9); /* delivery starts, not chunks */
    assert_int_equal((int)num(x, "first_delivery_tokens"), 2);
    /* 4 output - 2 in the first delivery = 2 decode tokens over 10 ms */
    assert_int_equal((int)num(x, "decode_tokens"), 2);
    assert_near(num(x, "tpot_ms"), 5, 1e-9);
    assert_near(num(x, "prefill_tok_s"), 50, 1e-9); /* 5 tokens / 0.1 s */
    assert_near(num(j, "metrics.deliveries.stats.mean"), 2, 0);
    assert_near(num(j, "metrics.chunk_gap.stats.mean"), 10, 1e-9);
    assert_string_equal(cJSON_GetStringValue(get(j, "metrics.ttft.kind")), "proxy");
    assert_string_equal(cJSON_GetStringValue(get(j, "metrics.e2e.kind")), "measured");
    assert_string_equal(cJSON_GetStringValue(get(j, "metrics.tpot.kind")), "derived");
    assert_string_equal(cJSON_GetStringValue(get(j, "metrics.tpot.unit")), "ms");
    cJSON_Delete(j);

    /* 4.5 ms apart is the same delivery; exactly 5 ms apart is a new one */
    double t2[] = {10, 14.5, 19.5};
    rl_client_result *r2 = mk(0, 0, 30, t2, NULL, 3, -1, -1, NULL);
    assert_int_equal(rl_client_first_delivery(r2, NULL), 2);
    rl_client_result_free(r2);
}

/* E2E 1100 ms, TTFT 100 ms, deliveries at 100, 600, 1100, 21 output tokens of which 1 in the
 * first delivery: generation 1000 ms over 20 tokens -> TPOT 50 ms, decode 20 tok/s, output
 * 21 / 1.1 s = 19.0909 tok/s. */
static void test_tpot(void **state)
{
    (void)state;
    double t[] = {100, 600, 1100};
    int tok[] = {1, 10, 10};
    rl_client_result *r[] = {mk(0, 0, 1100, t, tok, 3, 40, 21, NULL)};
    cJSON *j = point(r, 1, NULL, 1);
    const cJSON *x = rec(j, 0);
    assert_near(num(x, "generation_ms"), 1000, 1e-9);
    assert_near(num(x, "tpot_ms"), 50, 1e-9);
    assert_near(num(x, "decode_tok_s"), 20, 1e-9);
    assert_near(num(x, "output_tok_s"), 21 / 1.1, 1e-9);
    assert_near(num(x, "prefill_tok_s"), 400, 1e-9); /* 40 / 0.1 s */
    assert_near(num(j, "metrics.tpot.samples.0"), 50, 1e-9);
    assert_near(num(j, "metrics.decode_throughput.value"), 20, 1e-9);
    /* one ok request over a 1.1 s window */
    assert_near(num(j, "metrics.rps.value"), 1 / 1.1, 1e-9);
    assert_near(num(j, "metrics.output_throughput.value"), 21 / 1.1, 1e-9);
    assert_near(num(j, "metrics.total_throughput.value"), 61 / 1.1, 1e-9);
    assert_near(num(j, "window.value"), 1100, 1e-9);
    cJSON_Delete(j);
}

/* TPOT's availability rules, one request each. */
static void test_tpot_rules(void **state)
{
    (void)state;
    double one[] = {100, 101};   /* one delivery */
    double two[] = {100, 200};   /* two deliveries */
    int tok_few[] = {5, 1};      /* 6 output, 5 first -> 1 decode token */
    int tok_unknown[] = {-1, 3}; /* first delivery uncounted */
    rl_client_result *r[] = {
        mk(0, 0, 150, one, NULL, 2, 5, 10, NULL),
        mk(0, 0, 250, two, tok_few, 2, 5, 6, NULL),
        mk(0, 0, 250, two, tok_unknown, 2, 5, 10, NULL),
        mk(0, 0, 250, two, NULL, 2, -1, -1, NULL),
    };
    cJSON *j = point(r, 4, NULL, 1);
    for (int i = 0; i < 4; i++)
        assert_true(cJSON_IsNull(get(rec(j, i), "tpot_ms")));
    assert_true(cJSON_IsNull(get(rec(j, 0), "generation_ms"))); /* one delivery: no window */
    assert_near(num(rec(j, 1), "generation_ms"), 100, 1e-9);
    assert_unavailable(j, "metrics.tpot", "no successful request gave a value");
    /* the counts: one of each reason, the first listed wins a tie */
    assert_unavailable(j, "metrics.tpot", "one delivery");
    assert_unavailable(j, "metrics.decode_throughput", "(1 of 4)");
    /* output tokens unknown for one request: no throughput rather than an undercount */
    assert_unavailable(j, "metrics.output_throughput", "unknown for 1 of 4");
    /* generation exists for 3 of 4: the 4th is excluded with its reason */
    assert_int_equal((int)num(j, "metrics.generation.stats.n"), 3);
    assert_int_equal((int)num(j, "metrics.generation.excluded.n"), 1);
    cJSON_Delete(j);
}

/* SLO TTFT 150 ms, TPOT 60 ms: A (TTFT 100, TPOT 50) good; B TTFT 200 not good; C one
 * delivery, so no TPOT: not good (an unavailable SLO metric is never good); D failed. Window:
 * 0 to 1300 ms of the ok ones -> goodput 1 / 1.3 s. */
static void test_slo_misses(void **state)
{
    (void)state;
    const rl_client_slo none = {0, 0, 0}, neg = {-1, -1, -1};
    assert_int_equal(rl_client_slo_misses(&none, NAN, INFINITY, 1e9), 0);
    assert_int_equal(rl_client_slo_misses(&neg, NAN, NAN, NAN), 0);
    const rl_client_slo s = {100, 20, 1000};
    /* each limit: below, exactly at (met), just above (missed), unknown (missed) */
    assert_int_equal(rl_client_slo_misses(&s, 99.9, 19.9, 999.9), 0);
    assert_int_equal(rl_client_slo_misses(&s, 100, 20, 1000), 0);
    assert_int_equal(rl_client_slo_misses(&s, 100.001, 20, 1000), RL_SLO_TTFT);
    assert_int_equal(rl_client_slo_misses(&s, 100, 20.001, 1000), RL_SLO_TPOT);
    assert_int_equal(rl_client_slo_misses(&s, 100, 20, 1000.001), RL_SLO_E2E);
    assert_int_equal(rl_client_slo_misses(&s, NAN, INFINITY, NAN),
                     RL_SLO_TTFT | RL_SLO_TPOT | RL_SLO_E2E);
    /* only the limits that are set count */
    const rl_client_slo t = {0, 20, 0};
    assert_int_equal(rl_client_slo_misses(&t, NAN, 20, NAN), 0);
    assert_int_equal(rl_client_slo_misses(&t, 1, 21, 1), RL_SLO_TPOT);
}

/* One request, one retry: the first attempt was sent at 0 ms and failed, the retry was sent
 * at 549 ms (after its backoff) and ended at 616 ms. The request took 616 ms of real time:
 * rps = 1 / 0.616 s = 1.623, not 1 / 0.067 s = 14.9 (the retry alone). */
static void test_retry_window(void **state)
{
    (void)state;
    double t[] = {560, 590, 610};
    int tok[] = {1, 5, 5};
    rl_client_result *r[] = {mk(0, 549, 616, t, tok, 3, 10, 11, NULL)};
    r[0]->first_send_ns = 1; /* 1 ns: 0 would mean "never retried" */
    r[0]->attempt = 2;
    cJSON *j = point(r, 1, NULL, 1);
    assert_near(num(j, "window.value"), 616 - 1e-6, 1e-9);
    assert_near(num(j, "metrics.rps.value"), 1000.0 / (616 - 1e-6), 1e-9);
    assert_near(num(j, "records.0.first_send_ms"), 1e-6, 1e-12);
    assert_near(num(j, "records.0.send_ms"), 549, 1e-9);
    assert_near(num(j, "records.0.e2e_ms"), 67, 1e-9); /* the latency is the final attempt's */
    cJSON_Delete(j);
}

/* The CI gate on hand-made points: goodput 0.5 at concurrency 1, 1.0 at concurrency 2. */
static void test_gate(void **state)
{
    (void)state;
    cJSON *pts = cJSON_Parse("[{\"concurrency\": 1, \"requests\": {\"failed\": 0}, "
                             "\"goodput\": {\"fraction\": 0.5}}, {\"concurrency\": 2, "
                             "\"requests\": {\"failed\": 0}, \"goodput\": {\"fraction\": 1}}]");
    assert_non_null(pts);
    char buf[256];
    cJSON *g = rl_client_gate_json(pts, 50, buf, sizeof buf); /* exactly at the bar: passes */
    assert_non_null(g);
    assert_string_equal(buf, "");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(g, "passed")));
    cJSON_Delete(g);
    g = rl_client_gate_json(pts, 50.5, buf, sizeof buf); /* just above: fails at c=1 only */
    assert_string_equal(buf, "concurrency 1: goodput 50% < 50.5%");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(g, "passed")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "reasons")), 1);
    cJSON_Delete(g);
    cJSON_SetNumberValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(pts, 1), "requests"), "failed"),
        1);
    g = rl_client_gate_json(pts, 0, buf, sizeof buf); /* --ci without SLOs: failures only */
    assert_string_equal(buf, "1 request failed");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(g, "fail_below_pct")));
    assert_int_equal((int)num(g, "failed"), 1);
    cJSON_Delete(g);
    cJSON_Delete(pts);
}

static void test_goodput(void **state)
{
    (void)state;
    double ta[] = {100, 600, 1100};
    double tb[] = {200, 700, 1300};
    double tc[] = {100};
    int tok[] = {1, 10, 10};
    rl_client_result *r[] = {
        mk(0, 0, 1100, ta, tok, 3, 10, 21, NULL),
        mk(1, 0, 1300, tb, tok, 3, 10, 21, NULL),
        mk(0, 0, 120, tc, tok, 1, 10, 1, NULL),
        failed(1, 0, 50, "HTTP 500"),
    };
    rl_client_slo slo = {.ttft_ms = 150, .tpot_ms = 60, .e2e_ms = 0};
    cJSON *j = point(r, 4, &slo, 2);
    assert_int_equal((int)num(j, "goodput.good"), 1);
    assert_int_equal((int)num(j, "goodput.requests"), 4);
    assert_near(num(j, "goodput.fraction"), 0.25, 1e-12); /* good / all requests */
    assert_int_equal((int)num(j, "goodput.ok"), 3);
    assert_near(num(j, "goodput.fraction_of_ok"), 1.0 / 3, 1e-12); /* good / successful */
    assert_int_equal((int)num(j, "goodput.not_good.failed"), 1);
    assert_int_equal((int)num(j, "goodput.not_good.ttft"), 1);
    assert_int_equal((int)num(j, "goodput.not_good.tpot"), 1);
    assert_int_equal((int)num(j, "goodput.not_good.e2e"), 0);
    assert_near(num(j, "goodput.rps.value"), 1 / 1.3, 1e-9);
    assert_near(num(j, "goodput.slo.ttft_ms"), 150, 0);
    assert_true(cJSON_IsNull(get(j, "goodput.slo.e2e_ms")));
    assert_true(cJSON_IsTrue(get(rec(j, 0), "good")));
    assert_true(cJSON_IsFalse(get(rec(j, 2), "good")));
    assert_true(cJSON_IsFalse(get(rec(j, 3), "good")));
    /* requests add up; the failed one gives no latency sample */
    assert_int_equal((int)num(j, "requests.measured"), 4);
    assert_int_equal((int)num(j, "requests.ok"), 3);
    assert_int_equal((int)num(j, "requests.failed"), 1);
    assert_int_equal((int)num(j, "requests.attempts"), 6); /* 1 + 1 + 1 + 3 */
    assert_int_equal((int)num(j, "metrics.e2e.stats.n"), 3);
    assert_near(num(j, "requests.success_rate.value"), 0.75, 1e-12);
    assert_string_equal(cJSON_GetStringValue(get(rec(j, 3), "error")), "HTTP 500");
    assert_true(cJSON_IsNull(get(rec(j, 3), "e2e_ms")));
    assert_near(num(rec(j, 3), "elapsed_ms"), 50, 1e-9);
    assert_int_equal((int)num(j, "concurrency"), 2);
    cJSON_Delete(j);

    /* E2E SLO only, 1100 ms: A (e2e 1100, at the limit) and C (120) good, B (1300) not, D
     * failed (mutant client-e2e-slo in tests/mutants.txt: the comparison inverted) */
    rl_client_result *re[] = {
        mk(0, 0, 1100, ta, tok, 3, 10, 21, NULL),
        mk(1, 0, 1300, tb, tok, 3, 10, 21, NULL),
        mk(0, 0, 120, tc, tok, 1, 10, 1, NULL),
        failed(1, 0, 50, "HTTP 500"),
    };
    rl_client_slo slo_e2e = {.ttft_ms = 0, .tpot_ms = 0, .e2e_ms = 1100};
    j = point(re, 4, &slo_e2e, 2);
    assert_int_equal((int)num(j, "goodput.good"), 2);
    assert_int_equal((int)num(j, "goodput.not_good.e2e"), 1);
    assert_int_equal((int)num(j, "goodput.not_good.ttft"), 0);
    assert_int_equal((int)num(j, "goodput.not_good.failed"), 1);
    assert_near(num(j, "goodput.slo.e2e_ms"), 1100, 0);
    assert_true(cJSON_IsTrue(get(rec(j, 0), "good")));
    assert_true(cJSON_IsFalse(get(rec(j, 1), "good")));
    assert_true(cJSON_IsTrue(get(rec(j, 2), "good")));
    cJSON_Delete(j);

    /* TTFT SLO only, 200 ms: B's TTFT is exactly 200 ms, at the limit, so good
     * (mutant client-ttft-slo: < for <=) */
    rl_client_result *rt[] = {
        mk(0, 0, 1100, ta, tok, 3, 10, 21, NULL),
        mk(1, 0, 1300, tb, tok, 3, 10, 21, NULL),
        mk(0, 0, 120, tc, tok, 1, 10, 1, NULL),
        failed(1, 0, 50, "HTTP 500"),
    };
    rl_client_slo slo_ttft = {.ttft_ms = 200, .tpot_ms = 0, .e2e_ms = 0};
    j = point(rt, 4, &slo_ttft, 2);
    assert_int_equal((int)num(j, "goodput.good"), 3);
    assert_int_equal((int)num(j, "goodput.not_good.ttft"), 0);
    assert_true(cJSON_IsTrue(get(rec(j, 1), "good")));
    cJSON_Delete(j);

    /* no SLO: goodput unavailable with the flags to give */
    double t1[] = {100};
    rl_client_result *r1[] = {mk(0, 0, 120, t1, NULL, 1, -1, -1, NULL)};
    j = point(r1, 1, NULL, 1);
    assert_unavailable(j, "goodput", "--slo-ttft-ms");
    assert_true(cJSON_IsNull(get(rec(j, 0), "good")));
    cJSON_Delete(j);
}

/* E2E 100, 110, 120, 130, 140 ms: mean 120, sd sqrt(1000/4) = 15.8114, CI half-width
 * t(4) 2.776 x 15.8114 / sqrt 5 = 19.63 -> [100.37, 139.63]. */
static void test_ci(void **state)
{
    (void)state;
    double t[] = {50};
    rl_client_result *r[5];
    for (int i = 0; i < 5; i++)
        r[i] = mk(0, 0, 100 + 10 * i, t, NULL, 1, -1, -1, NULL);
    cJSON *j = point(r, 5, NULL, 1);
    assert_near(num(j, "metrics.e2e.stats.mean"), 120, 1e-9);
    assert_near(num(j, "metrics.e2e.stats.sd"), 15.8113883, 1e-6);
    assert_near(num(j, "metrics.e2e.stats.ci95.t"), 2.776, 0.0005);
    assert_near(num(j, "metrics.e2e.stats.ci95.df"), 4, 0);
    assert_near(num(j, "metrics.e2e.stats.ci95.low"), 100.37, 0.01);
    assert_near(num(j, "metrics.e2e.stats.ci95.high"), 139.63, 0.01);
    assert_near(num(j, "metrics.e2e.stats.p50"), 120, 1e-9);
    assert_near(num(j, "metrics.e2e.stats.p90"), 136, 1e-9); /* 130 + 0.6 x 10 */
    assert_int_equal(cJSON_GetArraySize(get(j, "metrics.e2e.samples")), 5);
    /* one prompt, 5 runs: stability CV is that prompt's CV 15.8114 / 120 */
    assert_near(num(j, "metrics.stability_cv.value"), 15.8113883 / 120, 1e-8);
    cJSON_Delete(j);
}

/* One ok request: the centre is there, the spread is not. */
static void test_one_sample(void **state)
{
    (void)state;
    double t[] = {50};
    rl_client_result *r[] = {mk(0, 0, 100, t, NULL, 1, -1, -1, NULL)};
    cJSON *j = point(r, 1, NULL, 1);
    assert_near(num(j, "metrics.e2e.stats.mean"), 100, 0);
    assert_near(num(j, "metrics.e2e.stats.p99"), 100, 0);
    assert_true(cJSON_IsFalse(get(j, "metrics.e2e.stats.sd.available")));
    assert_true(cJSON_IsFalse(get(j, "metrics.e2e.stats.ci95.available")));
    assert_unavailable(j, "metrics.stability_cv", "2 successful runs");
    assert_unavailable(j, "metrics.repeatability", "2 successful runs");
    /* no token counts anywhere */
    assert_unavailable(j, "metrics.output_tokens", "output tokens unknown");
    assert_unavailable(j, "metrics.prefill_tok_s", "prompt tokens unknown");
    cJSON_Delete(j);
}

/* Nothing succeeded: every metric unavailable with the reason, the counts still there. */
static void test_zero_ok(void **state)
{
    (void)state;
    rl_client_result *r[] = {failed(0, 0, 10, "connection refused"),
                             failed(1, 0, 20, "connection refused")};
    cJSON *j = point(r, 2, NULL, 1);
    const char *all[] = {"ttft",
                         "e2e",
                         "deliveries",
                         "generation",
                         "tpot",
                         "second_chunk",
                         "chunk_gap",
                         "prompt_tokens",
                         "output_tokens",
                         "first_delivery_tokens",
                         "prefill_tok_s",
                         "output_tok_s",
                         "decode_tok_s",
                         "decode_throughput",
                         "output_throughput",
                         "total_throughput",
                         "rps",
                         "repeatability",
                         "stability_cv"};
    char path[64];
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        snprintf(path, sizeof path, "metrics.%s", all[i]);
        assert_unavailable(j, path, "no successful request at this operating point (2 of 2");
    }
    assert_unavailable(j, "window", "no successful request");
    assert_int_equal((int)num(j, "requests.ok"), 0);
    assert_int_equal((int)num(j, "requests.failed"), 2);
    assert_near(num(j, "requests.success_rate.value"), 0, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "records")), 2);
    cJSON_Delete(j);
}

/* The normalised hash: ANSI colour and whitespace runs do not matter, text does; repeatability
 * is the mean over prompts of the commonest hash's share: p1 A A B -> 2/3, p2 A A -> 1; mean
 * 5/6. */
static void test_hash_repeatability(void **state)
{
    (void)state;
    char h1[17], h2[17], h3[17], h4[17];
    const char *a = "  Hello \x1b[1;31mworld\x1b[0m\n\n";
    const char *b = "Hello\tworld";
    rl_client_output_hash(a, strlen(a), strlen(a), h1);
    rl_client_output_hash(b, strlen(b), strlen(b), h2);
    assert_string_equal(h1, h2);
    assert_int_equal(strlen(h1), 16);
    rl_client_output_hash("Hello world!", 12, 12, h3);
    assert_string_not_equal(h1, h3);
    /* a kept prefix of a longer answer is not the short answer */
    rl_client_output_hash(b, strlen(b), 5000, h4);
    assert_string_not_equal(h2, h4);
    /* FNV-1a 64 of "a" is af63dc4c8601ec8c */
    rl_client_output_hash(" a ", 3, 3, h4);
    assert_string_equal(h4, "af63dc4c8601ec8c");

    double t[] = {10};
    rl_client_result *r[] = {
        mk(0, 0, 100, t, NULL, 1, -1, -1, "same answer"),
        mk(0, 0, 300, t, NULL, 1, -1, -1, "same   answer\n"),
        mk(0, 0, 200, t, NULL, 1, -1, -1, "other answer"),
        mk(1, 0, 100, t, NULL, 1, -1, -1, "x"),
        mk(1, 0, 100, t, NULL, 1, -1, -1, "x"),
    };
    cJSON *j = point(r, 5, NULL, 1);
    assert_near(num(j, "metrics.repeatability.value"), 5.0 / 6.0, 1e-12);
    assert_int_equal((int)num(j, "metrics.repeatability.prompts"), 2);
    /* stability CV: p1 E2E 100, 300, 200 -> sd 100, mean 200, CV 0.5; p2 100, 100 -> 0; mean
     * 0.25 (the pooled E2E CV is something else) */
    assert_near(num(j, "metrics.stability_cv.value"), 0.25, 1e-12);
    assert_string_equal(cJSON_GetStringValue(get(rec(j, 1), "prompt")), "p1");
    assert_int_equal((int)num(rec(j, 1), "run"), 2);
    assert_int_equal((int)num(rec(j, 4), "run"), 2);
    assert_string_equal(cJSON_GetStringValue(get(rec(j, 0), "output_hash")),
                        cJSON_GetStringValue(get(rec(j, 1), "output_hash")));
    cJSON_Delete(j);
}

/* Token-weighted decode: (4 decode tokens, 20 ms) and (200, 4000 ms): per-request rates 200
 * and 50 tok/s (mean 125) but decode_throughput 204 / 4.02 s = 50.746. */
static void test_decode_weighted(void **state)
{
    (void)state;
    double ta[] = {100, 120};
    double tb[] = {100, 4100};
    int toka[] = {1, 4};
    int tokb[] = {1, 200};
    rl_client_result *r[] = {mk(0, 0, 130, ta, toka, 2, -1, 5, NULL),
                             mk(1, 0, 4200, tb, tokb, 2, -1, 201, NULL)};
    cJSON *j = point(r, 2, NULL, 1);
    assert_near(num(j, "metrics.decode_tok_s.stats.mean"), 125, 1e-9);
    assert_near(num(j, "metrics.decode_throughput.value"), 204 / 4.02, 1e-9);
    cJSON_Delete(j);
}

/* 150000 chunks 5 ms apart: 149999 gaps, more than the samples kept; the summary still covers
 * every one (mean 5 ms); 2 million chunks 1 ms apart are one delivery. */
static void test_many_chunks(void **state)
{
    (void)state;
    rl_error err;
    rl_client_result *r[2];
    r[0] = rl_client_result_new(0, 1);
    r[1] = rl_client_result_new(1, 1);
    assert_non_null(r[0]);
    assert_non_null(r[1]);
    for (int64_t i = 0; i < 150000; i++)
        assert_int_equal(rl_client_result_add(r[0], 100 * MS + i * 5 * MS, NULL, 1, 1, &err),
                         RL_OK);
    for (int64_t i = 0; i < 2000000; i++)
        assert_int_equal(rl_client_result_add(r[1], 100 * MS + i * MS / 2, NULL, 1, 1, &err),
                         RL_OK);
    for (int i = 0; i < 2; i++) {
        r[i]->ok = true;
        r[i]->prompt = (size_t)i;
        r[i]->end_ns = r[i]->chunks[r[i]->n_chunks - 1].t_ns + MS;
        r[i]->output_tokens = (int64_t)r[i]->n_chunks;
    }
    cJSON *j = point(r, 2, NULL, 1);
    assert_unavailable(j, "metrics.chunk_gap.samples", "149999 values, more than the 100000 kept");
    assert_int_equal((int)num(j, "metrics.chunk_gap.stats.n"), 149999);
    assert_near(num(j, "metrics.chunk_gap.stats.mean"), 5, 1e-9);
    assert_int_equal((int)num(rec(j, 0), "deliveries"), 150000);
    assert_int_equal((int)num(rec(j, 1), "deliveries"), 1);
    assert_int_equal((int)num(rec(j, 1), "chunks"), 2000000);
    cJSON_Delete(j);
}

/* No results at all: a valid object saying so. */
static void test_empty(void **state)
{
    (void)state;
    rl_client_point p = {0};
    p.concurrency = 4;
    rl_error err = {0};
    cJSON *j = rl_client_point_json(&p, NULL, &err);
    assert_non_null(j);
    assert_unavailable(j, "metrics.ttft", "no request was measured");
    assert_unavailable(j, "requests.success_rate", "no request was measured");
    cJSON_Delete(j);
    /* a result naming a prompt that does not exist is refused */
    double t[] = {10};
    rl_client_result *r = mk(5, 0, 20, t, NULL, 1, -1, -1, NULL);
    const rl_client_result *rr[] = {r};
    p.results = rr;
    p.n_results = 1;
    p.prompt_ids = ids;
    p.n_prompts = 2;
    assert_null(rl_client_point_json(&p, NULL, &err));
    assert_non_null(strstr(err.msg, "prompt 5 of 2"));
    rl_client_result_free(r);
}

/* tests/fixtures/client/bundle.json is exactly what fixture.c makes through
 * rl_client_point_json (RL_CLIENT_FIXTURE_WRITE=PATH writes it instead). */
static void test_fixture(void **state)
{
    (void)state;
    rl_error err = {0};
    cJSON *b = client_fixture_bundle(&err);
    assert_non_null(b);
    const char *w = getenv("RL_CLIENT_FIXTURE_WRITE");
    if (w != NULL && *w) {
        assert_int_equal(rl_json_write_file(w, b, &err), RL_OK);
    } else {
        const char *src = getenv("RL_SRC");
        assert_non_null(src);
        char path[4096];
        snprintf(path, sizeof path, "%s/tests/fixtures/client/bundle.json", src);
        cJSON *f = NULL;
        assert_int_equal(rl_json_read_file(path, 1 << 20, &f, &err), RL_OK);
        if (!cJSON_Compare(b, f, 1))
            fail_msg("%s differs from fixture.c's output: run tests/fixtures/client/regen.sh",
                     path);
        cJSON_Delete(f);
    }
    /* the terminal summary of a client bundle: the answer, one line per point; then the
     * histogram: concurrency 1's E2E 496, 581, 503, 592 ms in ceil(sqrt(4)) = 2 buckets of 48 ms */
    FILE *f = tmpfile();
    assert_non_null(f);
    rl_report_client_print(f, b);
    rl_report_client_histogram(f, b);
    char text[4096] = "";
    rewind(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = '\0';
    fclose(f);
    assert_non_null(
        strstr(text, "answer: Streaming from http://127.0.0.1:8080/v1/chat/completions"));
    assert_non_null(strstr(text, "1 of 8 requests failed."));
    assert_non_null(strstr(text,
                           "  E2E latency at concurrency 1 (ms, 4 requests):\n"
                           "        496 - 544       ######################################## 2\n"
                           "        544 - 592       ######################################## 2\n"));
    /* conc 2: 3 of 4 ok, 1 failed, TTFT p50 268 p95 317, E2E p50 607 p95 809, TPOT p50 30.5,
     * decode 32.4 tok/s, 2.99 req/s, goodput 1 of 4 */
    assert_non_null(strstr(text, "      2       3/4     1       268       317       607       809  "
                                 "    30.5       32.4    2.99      25%"));
    /* the story holds: 4 + 4 requests, one failure at concurrency 2 */
    const cJSON *pts = get(b, "client.points");
    assert_int_equal(cJSON_GetArraySize(pts), 2);
    assert_int_equal((int)num(cJSON_GetArrayItem(pts, 1), "requests.failed"), 1);
    assert_int_equal((int)num(cJSON_GetArrayItem(pts, 0), "requests.failed"), 0);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deliveries),
        cmocka_unit_test(test_tpot),
        cmocka_unit_test(test_tpot_rules),
        cmocka_unit_test(test_slo_misses),
        cmocka_unit_test(test_goodput),
        cmocka_unit_test(test_retry_window),
        cmocka_unit_test(test_gate),
        cmocka_unit_test(test_ci),
        cmocka_unit_test(test_one_sample),
        cmocka_unit_test(test_zero_ok),
        cmocka_unit_test(test_hash_repeatability),
        cmocka_unit_test(test_decode_weighted),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_fixture),
        cmocka_unit_test(test_many_chunks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
