/* SPDX-License-Identifier: MIT */
/* test_client_sched.c: unit tests for client_sched.c: arrival times under a request rate (with
 * and without ramp-up, hand-computed), the backoff sequence, and the scheduler driven by hand
 * (no processes, synthetic clock): warm-ups first and never measured, prompt-major order, a
 * retry that keeps its slot through its backoff and counts as one sample with its attempts,
 * fail-fast, pacing, interrupted results dropped; and the command driver's bounded chunk
 * array (rl_client_result_append).
 * Checked to fail: with the warm-up result passed to the callback as a measured one, with the
 * backoff doubled from 1000 ms, and with the retry slot released during the backoff. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/client_sched.h"

#define MS 1000000LL

static void test_arrivals(void **state)
{
    (void)state;
    double t[6];
    rl_client_arrivals_ms(10, 0, 4, t); /* 100 ms apart */
    assert_true(t[0] == 0 && t[1] == 100 && t[2] == 200 && t[3] == 300);
    /* ramp 1000 ms at 10/s: S = 100, W = 400; I_i = 400 - 300 * min(1, t_(i-1) / 1000):
     * 0, 400, 400 + 400 - 120 = 680, 680 + 400 - 204 = 876, 876 + 400 - 262.8 = 1013.2, +100 */
    rl_client_arrivals_ms(10, 1000, 6, t);
    assert_true(fabs(t[1] - 400) < 1e-9 && fabs(t[2] - 680) < 1e-9 && fabs(t[3] - 876) < 1e-9);
    assert_true(fabs(t[4] - 1013.2) < 1e-9 && fabs(t[5] - 1113.2) < 1e-9);
    rl_client_arrivals_ms(0, 0, 3, t); /* no rate: all at once */
    assert_true(t[0] == 0 && t[1] == 0 && t[2] == 0);
}

static void test_backoff(void **state)
{
    (void)state;
    assert_int_equal(rl_client_backoff_ms(0), 500); /* attempt 0 counts as the first */
    assert_int_equal(rl_client_backoff_ms(1), 500);
    assert_int_equal(rl_client_backoff_ms(2), 1000);
    assert_int_equal(rl_client_backoff_ms(3), 2000);
    assert_int_equal(rl_client_backoff_ms(4), 4000);
    assert_int_equal(rl_client_backoff_ms(9), 4000);
}

static const char *const prompts[] = {"first prompt", "second prompt"};
static const size_t lens[] = {12, 13};

typedef struct {
    int warmups, results;
} counts;

static void on_result(void *ud, const rl_client_run *run, const rl_client_result *res)
{
    (void)run;
    counts *c = ud;
    if (res)
        c->results++;
    else
        c->warmups++;
}

static rl_client_plan plan(void)
{
    rl_client_plan p = {0};
    p.prompts = prompts;
    p.prompt_lens = lens;
    p.n_prompts = 2;
    p.runs = 2;
    p.timeout = 5;
    p.concurrency = 1;
    return p;
}

/* Hand a finished request back. */
static void finish(rl_client_sched *s, size_t job, bool ok, int64_t end)
{
    rl_client_result *r = rl_client_result_new(job, 1);
    assert_non_null(r);
    r->ok = ok;
    r->send_ns = end - MS;
    r->end_ns = end;
    s->done(s->ctx, r);
}

static void test_warmup_order_retry(void **state)
{
    (void)state;
    rl_client_plan p = plan();
    p.warmup = 1;
    p.retry = 1;
    counts c = {0};
    rl_client_run *run = rl_client_run_new(&p, on_result, &c);
    assert_non_null(run);
    rl_client_sched s = rl_client_run_sched(run);
    rl_client_job j;
    int64_t wake;
    /* the warm-up: the first prompt, alone */
    assert_int_equal(s.next(s.ctx, 0, &j, &wake), 1);
    assert_string_equal(j.prompt, "first prompt");
    assert_true(j.timeout == 5);
    size_t warm = j.index;
    assert_int_equal(s.next(s.ctx, 0, &j, &wake), 0);
    finish(&s, warm, true, 5 * MS);
    assert_int_equal(c.warmups, 1);
    assert_int_equal(c.results, 0);
    /* prompt 0 run 1 fails: retried after 500 ms, its slot held meanwhile */
    assert_int_equal(s.next(s.ctx, 10 * MS, &j, &wake), 1);
    size_t first = j.index;
    assert_string_equal(j.prompt, "first prompt");
    finish(&s, first, false, 20 * MS);
    assert_int_equal(c.results, 0);
    assert_int_equal(s.next(s.ctx, 30 * MS, &j, &wake), 0);
    assert_true(wake == 520 * MS);
    assert_int_equal(s.next(s.ctx, 520 * MS, &j, &wake), 1);
    assert_int_equal(j.index, first);
    finish(&s, first, true, 600 * MS);
    /* then prompt 0 run 2, prompt 1 runs 1 and 2 */
    const char *want[] = {"first prompt", "second prompt", "second prompt"};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(s.next(s.ctx, 700 * MS, &j, &wake), 1);
        assert_string_equal(j.prompt, want[k]);
        finish(&s, j.index, true, 800 * MS);
    }
    assert_int_equal(s.next(s.ctx, 900 * MS, &j, &wake), -1);
    size_t n;
    rl_client_result *const *res = rl_client_run_results(run, &n);
    assert_int_equal(n, 4);
    assert_int_equal(c.results, 4);
    rl_client_run_sort(run);
    assert_int_equal(res[0]->prompt, 0);
    assert_int_equal(res[0]->attempt, 2); /* the retried success: one sample, 2 attempts */
    assert_true(res[0]->ok);
    /* it began with its first attempt (sent at 19 ms), not its retry (599 ms) */
    assert_true(res[0]->send_ns == 599 * MS);
    assert_true(res[0]->first_send_ns == 19 * MS);
    assert_true(rl_client_result_start_ns(res[0]) == 19 * MS);
    assert_true(res[1]->first_send_ns == 0); /* never retried */
    assert_true(rl_client_result_start_ns(res[1]) == res[1]->send_ns);
    assert_int_equal(rl_client_run_number(run, 0), 1);
    assert_int_equal(rl_client_run_number(run, 1), 2);
    assert_int_equal(res[2]->prompt, 1);
    assert_int_equal(res[1]->attempt, 1);
    assert_int_equal(rl_client_run_attempts(run), 5);
    assert_int_equal(rl_client_run_failed(run), 0);
    assert_int_equal(rl_client_run_warmups_done(run), 1);
    rl_client_run_free(run);
}

static void test_fail_fast(void **state)
{
    (void)state;
    rl_client_plan p = plan();
    p.fail_fast = true;
    p.concurrency = 2;
    rl_client_run *run = rl_client_run_new(&p, NULL, NULL);
    rl_client_sched s = rl_client_run_sched(run);
    rl_client_job a, b;
    int64_t wake;
    assert_int_equal(s.next(s.ctx, 0, &a, &wake), 1);
    assert_int_equal(s.next(s.ctx, 0, &b, &wake), 1);
    finish(&s, a.index, false, 10 * MS);
    assert_true(rl_client_run_stopped(run));
    assert_int_equal(s.next(s.ctx, 11 * MS, &a, &wake), 0); /* b still in flight */
    finish(&s, b.index, true, 20 * MS);                     /* kept */
    assert_int_equal(s.next(s.ctx, 21 * MS, &a, &wake), -1);
    size_t n;
    rl_client_run_results(run, &n);
    assert_int_equal(n, 2);
    assert_int_equal(rl_client_run_failed(run), 1);
    rl_client_run_free(run);
}

static void test_rate_and_interrupt(void **state)
{
    (void)state;
    rl_client_plan p = plan();
    p.request_rate = 10;
    p.concurrency = 4;
    rl_client_run *run = rl_client_run_new(&p, NULL, NULL);
    rl_client_sched s = rl_client_run_sched(run);
    rl_client_job j;
    int64_t wake;
    int64_t t0 = 1000 * MS;
    assert_int_equal(s.next(s.ctx, t0, &j, &wake), 1);
    assert_int_equal(s.next(s.ctx, t0 + 50 * MS, &j, &wake), 0);
    assert_true(wake == t0 + 100 * MS);
    assert_int_equal(s.next(s.ctx, t0 + 100 * MS, &j, &wake), 1);
    /* an interrupted request is dropped: neither a sample nor a failure */
    rl_client_result *r = rl_client_result_new(j.index, 1);
    r->interrupted = true;
    s.done(s.ctx, r);
    size_t n;
    rl_client_run_results(run, &n);
    assert_int_equal(n, 0);
    assert_int_equal(rl_client_run_failed(run), 0);
    rl_client_run_free(run);
}

/* rl_client_result_append: reads under 1 us apart merge; past the cap every read merges */
static void test_append_bounds(void **state)
{
    (void)state;
    rl_error err;
    rl_client_result *r = rl_client_result_new(0, 1);
    assert_int_equal(rl_client_result_append(r, 1000, "ab", 2, &err), RL_OK);
    assert_int_equal(rl_client_result_append(r, 1999, "c", 1, &err), RL_OK); /* 999 ns: merged */
    assert_int_equal(rl_client_result_append(r, 3000, "d", 1, &err), RL_OK); /* 1001 ns: new */
    assert_int_equal(r->n_chunks, 2);
    assert_int_equal(r->chunks[0].bytes, 3);
    assert_true(r->chunks[0].t_ns == 1000 && r->chunks[1].t_ns == 3000);
    assert_int_equal(r->chunks_merged, 1);
    assert_int_equal(r->output_len, 4);
    assert_string_equal(r->output, "abcd");
    for (int64_t t = 10000; r->n_chunks < RL_CLIENT_CHUNKS_MAX - 1; t += 2000)
        assert_int_equal(rl_client_result_append(r, t, "x", 1, &err), RL_OK);
    size_t cap = r->chunks_cap;
    assert_int_equal(rl_client_result_append(r, INT64_MAX / 2, "yz", 2, &err), RL_OK);
    assert_int_equal(r->n_chunks, RL_CLIENT_CHUNKS_MAX - 1); /* the cap: merged */
    assert_int_equal(r->chunks_cap, cap);                    /* no growth */
    assert_int_equal(r->chunks[r->n_chunks - 1].bytes, 3);
    assert_int_equal(r->chunks_merged, 2);
    assert_int_equal(r->output_total, 4 + (RL_CLIENT_CHUNKS_MAX - 3) + 2);
    rl_client_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrivals),           cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_warmup_order_retry), cmocka_unit_test(test_fail_fast),
        cmocka_unit_test(test_rate_and_interrupt), cmocka_unit_test(test_append_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
