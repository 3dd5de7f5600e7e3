/* SPDX-License-Identifier: MIT */
/* client_sched.h: the streaming-client scheduler: what is sent when at one operating point
 * (client_driver.h's next/done side). A plan says which prompts, how often, and how: warm-ups,
 * runs, concurrency (the driver's slot count), request rate with ramp-up, retries with
 * exponential backoff, a per-request timeout, fail-fast.
 *
 * Order and timing at one operating point:
 *   1. warm-ups: `warmup` requests of the first prompt, one at a time, results discarded;
 *   2. measured requests in the order prompt 1 run 1..R, prompt 2 run 1..R, ...; with a request
 *      rate r the i-th request (i from 0) is admitted no earlier than the start of this phase
 *      plus t_i (rl_client_arrival_ms: fixed intervals, no randomness), and never more than
 *      `concurrency` are in flight;
 *   3. a failed attempt (not interrupted) is retried while attempts <= retry, after a backoff
 *      of rl_client_backoff_ms(attempt) from its end; a retry goes before new requests and takes
 *      no arrival slot; while it waits it keeps its concurrency slot (plan.concurrency); the
 *      final attempt is the one sample, with its attempt count;
 *   4. with fail_fast, the first final failure stops admitting anything; requests in flight
 *      finish and are kept.
 * Interrupted results (Ctrl-C) are dropped, not counted as failures.
 *
 * Ownership: rl_client_run_new returns a state the caller frees with rl_client_run_free; the
 * plan and its prompt strings must outlive it; results handed over by done() belong to the run
 * (rl_client_run_results) until it is freed. */
#ifndef RL_CLIENT_SCHED_H
#define RL_CLIENT_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/client_driver.h"

typedef struct {
    const char *const *prompts; /* n_prompts UTF-8 texts */
    const size_t *prompt_lens;
    const int *max_tokens; /* per prompt, 0 = default; NULL: all default */
    size_t n_prompts;      /* >= 1 */
    unsigned runs;         /* >= 1 */
    unsigned warmup;
    unsigned retry;         /* extra attempts after a failure */
    double timeout;         /* seconds per attempt, 0 = none */
    int max_tokens_default; /* 0 = leave it to the model */
    double request_rate;    /* requests/s, 0 = as fast as the slots allow */
    double ramp_up_ms;      /* 0 = none (only with a request rate) */
    bool fail_fast;
    size_t concurrency; /* the driver's slots; a retry waiting for its backoff keeps its slot,
                           as a worker that sleeps between attempts would (0: no such limit) */
} rl_client_plan;

/* Start offset (ms from the start of the measured phase) of the i-th request under a request
 * rate (as fm-bench): steady interval S = 1000 / rate, t_0 = 0, t_i = t_(i-1) + I_i with
 * I_i = W + (S - W) * min(1, t_(i-1) / ramp_up_ms), W = 4 S, when ramp_up_ms > 0 (the first
 * interval is 4 S, shrinking linearly to S by the end of the ramp), else I_i = S. Fixed
 * intervals: no Poisson process, no randomness. 0 when rate <= 0. Fills out[0..n-1]. */
void rl_client_arrivals_ms(double rate, double ramp_up_ms, size_t n, double *out);

/* Backoff before retry number `attempt` (the attempt that failed, from 1): 500 ms doubled per
 * attempt, at most 4000 ms: 500, 1000, 2000, 4000, 4000, ... */
int64_t rl_client_backoff_ms(unsigned attempt);

typedef struct rl_client_run rl_client_run;

/* Called for every final measured result as it arrives (after retries), and for each
 * finished warm-up with res NULL; must not block long (it runs inside the driver loop). */
typedef void (*rl_client_on_result)(void *ud, const rl_client_run *run,
                                    const rl_client_result *res);

/* One operating point's state. NULL when out of memory. */
rl_client_run *rl_client_run_new(const rl_client_plan *plan, rl_client_on_result cb, void *ud);
void rl_client_run_free(rl_client_run *r);

/* The callbacks for a driver (rl_client_cmd_run / rl_client_http_run). */
rl_client_sched rl_client_run_sched(rl_client_run *r);

/* Final measured results in arrival order (owned by the run), and the run number (1..runs) of
 * results[i]. */
rl_client_result *const *rl_client_run_results(const rl_client_run *r, size_t *n);
unsigned rl_client_run_number(const rl_client_run *r, size_t i);
/* Sort the results by prompt, then run (the order the bundle keeps). */
void rl_client_run_sort(rl_client_run *r);
size_t rl_client_run_failed(const rl_client_run *r); /* final failures */
size_t rl_client_run_total(const rl_client_run *r);  /* measured requests planned */
size_t rl_client_run_warmups_done(const rl_client_run *r);
bool rl_client_run_stopped(const rl_client_run *r);    /* fail-fast tripped */
size_t rl_client_run_attempts(const rl_client_run *r); /* every measured attempt started */

#endif
