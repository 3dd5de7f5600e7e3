/* SPDX-License-Identifier: MIT */
/* client_sched.c: the streaming-client scheduler of one operating point (client_sched.h).
 * Job indexes: 0..n_jobs-1 are the measured requests (prompt-major: index = prompt * runs +
 * run - 1), n_jobs.. are the warm-ups. Ownership as in the header. */
#include "client/client_sched.h"

#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/rl_util.h"

#define NS_PER_MS 1000000LL

void rl_client_arrivals_ms(double rate, double ramp_up_ms, size_t n, double *out)
{
    if (n == 0)
        return;
    if (rate <= 0) {
        for (size_t i = 0; i < n; i++)
            out[i] = 0;
        return;
    }
    double s = 1000.0 / rate, w = 4 * s, t = 0;
    out[0] = 0;
    for (size_t i = 1; i < n; i++) {
        double f = 1;
        if (ramp_up_ms > 0) {
            f = t / ramp_up_ms;
            if (f > 1)
                f = 1;
        }
        t += w + (s - w) * f;
        out[i] = t;
    }
}

int64_t rl_client_backoff_ms(unsigned attempt)
{
    if (attempt == 0)
        attempt = 1;
    if (attempt >= 4)
        return 4000;
    return 500LL << (attempt - 1);
}

typedef struct {
    unsigned attempt; /* of the attempt now running or due */
    bool in_flight;
    bool retry_due; /* waiting for its backoff */
    int64_t due_ns;
    int64_t first_send_ns; /* the first attempt's send, 0 before it ended */
} job_state;

struct rl_client_run {
    const rl_client_plan *plan;
    rl_client_on_result cb;
    void *ud;
    size_t n_jobs;
    job_state *jobs;    /* n_jobs + warmup */
    double *arrival_ms; /* n_jobs */
    size_t next_new;    /* next measured job never started */
    size_t retries_pending;
    size_t in_flight;
    unsigned warm_started, warm_done;
    bool measuring;
    int64_t phase_start_ns;
    bool stopped;
    size_t failed, attempts;
    rl_client_result **results;
    unsigned *run_of;
    size_t n_results;
};

rl_client_run *rl_client_run_new(const rl_client_plan *plan, rl_client_on_result cb, void *ud)
{
    if (plan->n_prompts == 0 || plan->runs == 0 || plan->n_prompts > SIZE_MAX / 2 / plan->runs)
        return NULL;
    rl_client_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->plan = plan;
    r->cb = cb;
    r->ud = ud;
    r->n_jobs = plan->n_prompts * plan->runs;
    r->jobs = rl_calloc(r->n_jobs + plan->warmup, sizeof *r->jobs);
    r->arrival_ms = rl_calloc(r->n_jobs, sizeof *r->arrival_ms);
    r->results = rl_calloc(r->n_jobs, sizeof *r->results);
    r->run_of = rl_calloc(r->n_jobs, sizeof *r->run_of);
    if (!r->jobs || !r->arrival_ms || !r->results || !r->run_of) {
        rl_client_run_free(r);
        return NULL;
    }
    rl_client_arrivals_ms(plan->request_rate, plan->ramp_up_ms, r->n_jobs, r->arrival_ms);
    return r;
}

void rl_client_run_free(rl_client_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_results; i++)
        rl_client_result_free(r->results[i]);
    free(r->results);
    free(r->run_of);
    free(r->jobs);
    free(r->arrival_ms);
    free(r);
}

static void fill_job(const rl_client_run *r, size_t index, size_t prompt, rl_client_job *job)
{
    const rl_client_plan *p = r->plan;
    job->index = index;
    job->prompt = p->prompts[prompt];
    job->prompt_len = p->prompt_lens[prompt];
    job->max_tokens =
        p->max_tokens && p->max_tokens[prompt] > 0 ? p->max_tokens[prompt] : p->max_tokens_default;
    job->timeout = p->timeout;
}

static int take(rl_client_run *r, size_t index, size_t prompt, rl_client_job *job)
{
    job_state *js = &r->jobs[index];
    js->in_flight = true;
    if (js->attempt == 0)
        js->attempt = 1;
    r->in_flight++;
    fill_job(r, index, prompt, job);
    return 1;
}

static int sched_next(void *ctx, int64_t now, rl_client_job *job, int64_t *wake)
{
    rl_client_run *r = ctx;
    const rl_client_plan *p = r->plan;
    *wake = now + 100 * NS_PER_MS;
    if (r->stopped)
        return r->in_flight ? 0 : -1;
    /* warm-ups: one at a time, first prompt */
    if (!r->measuring) {
        if (r->warm_started < p->warmup) {
            if (r->in_flight)
                return 0;
            size_t idx = r->n_jobs + r->warm_started++;
            return take(r, idx, 0, job);
        }
        if (r->in_flight)
            return 0;
        r->measuring = true;
        r->phase_start_ns = now;
    }
    /* due retries first */
    int64_t next_due = INT64_MAX;
    if (r->retries_pending) {
        for (size_t i = 0; i < r->n_jobs; i++) {
            job_state *js = &r->jobs[i];
            if (!js->retry_due)
                continue;
            if (js->due_ns <= now) {
                js->retry_due = false;
                r->retries_pending--;
                r->attempts++;
                return take(r, i, i / p->runs, job);
            }
            if (js->due_ns < next_due)
                next_due = js->due_ns;
        }
    }
    if (p->concurrency && r->in_flight + r->retries_pending >= p->concurrency) {
        *wake = next_due != INT64_MAX ? next_due : *wake;
        return 0; /* every slot is busy or held by a retry in backoff */
    }
    if (r->next_new < r->n_jobs) {
        size_t i = r->next_new;
        int64_t due = r->phase_start_ns + (int64_t)(r->arrival_ms[i] * NS_PER_MS);
        if (due <= now) {
            r->next_new++;
            r->attempts++;
            return take(r, i, i / p->runs, job);
        }
        if (due < next_due)
            next_due = due;
    }
    if (next_due != INT64_MAX) {
        *wake = next_due;
        return 0;
    }
    return r->in_flight ? 0 : -1;
}

static void sched_done(void *ctx, rl_client_result *res)
{
    rl_client_run *r = ctx;
    const rl_client_plan *p = r->plan;
    size_t idx = res->job;
    if (idx >= r->n_jobs + p->warmup || !r->jobs[idx].in_flight) {
        rl_client_result_free(res); /* not ours: a driver bug; keep going */
        return;
    }
    job_state *js = &r->jobs[idx];
    js->in_flight = false;
    r->in_flight--;
    if (idx >= r->n_jobs) { /* a warm-up: discarded */
        r->warm_done++;
        rl_client_result_free(res);
        if (r->cb)
            r->cb(r->ud, r, NULL);
        return;
    }
    if (res->interrupted) {
        rl_client_result_free(res);
        return;
    }
    res->prompt = idx / p->runs;
    res->attempt = js->attempt;
    if (js->first_send_ns == 0)
        js->first_send_ns = res->send_ns;
    else
        res->first_send_ns = js->first_send_ns;
    if (!res->ok && js->attempt <= p->retry && !r->stopped) {
        int64_t end = res->end_ns ? res->end_ns : rl_proc_now_ns();
        js->due_ns = end + rl_client_backoff_ms(js->attempt) * NS_PER_MS;
        js->attempt++;
        js->retry_due = true;
        r->retries_pending++;
        rl_client_result_free(res);
        return;
    }
    r->results[r->n_results] = res;
    r->run_of[r->n_results] = (unsigned)(idx % p->runs) + 1;
    r->n_results++;
    if (!res->ok) {
        r->failed++;
        if (p->fail_fast)
            r->stopped = true;
    }
    if (r->cb)
        r->cb(r->ud, r, res);
}

rl_client_sched rl_client_run_sched(rl_client_run *r)
{
    return (rl_client_sched){r, sched_next, sched_done, NULL};
}

rl_client_result *const *rl_client_run_results(const rl_client_run *r, size_t *n)
{
    *n = r->n_results;
    return r->results;
}

unsigned rl_client_run_number(const rl_client_run *r, size_t i)
{
    return i < r->n_results ? r->run_of[i] : 0;
}

void rl_client_run_sort(rl_client_run *r)
{
    /* insertion sort: results are few (bounded by prompts x runs) and mostly in order */
    for (size_t i = 1; i < r->n_results; i++) {
        rl_client_result *x = r->results[i];
        unsigned run = r->run_of[i];
        size_t j = i;
        while (j > 0 && (r->results[j - 1]->prompt > x->prompt ||
                         (r->results[j - 1]->prompt == x->prompt && r->run_of[j - 1] > run))) {
            r->results[j] = r->results[j - 1];
            r->run_of[j] = r->run_of[j - 1];
            j--;
        }
        r->results[j] = x;
        r->run_of[j] = run;
    }
}

size_t rl_client_run_failed(const rl_client_run *r)
{
    return r->failed;
}

size_t rl_client_run_total(const rl_client_run *r)
{
    return r->n_jobs;
}

size_t rl_client_run_warmups_done(const rl_client_run *r)
{
    return r->warm_done;
}

bool rl_client_run_stopped(const rl_client_run *r)
{
    return r->stopped;
}

size_t rl_client_run_attempts(const rl_client_run *r)
{
    return r->attempts;
}
