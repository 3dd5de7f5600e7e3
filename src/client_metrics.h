/* client_metrics.h: seed 001's client-side metrics of one operating point, computed from the
 * timestamped results the drivers return (client_driver.h), and the bundle's "client" section
 * built from them (docs/BUNDLE.md). Pure arithmetic over its inputs: no I/O, no clock.
 *
 * Input: every measured request of an operating point (warm-ups are never passed in); a
 * retried request appears once, as its final attempt (attempts = result->attempt). Token
 * counts: result->prompt_tokens / output_tokens as the scheduler settled them (from the
 * transport or the calibrated counter command), -1 when unknown; token_source names where
 * they came from. Failed requests (ok false) count in requests/errors and are not good for
 * goodput; they give no latency samples.
 *
 * Ownership: the returned cJSON trees are the caller's; inputs are only read. */
#ifndef RL_CLIENT_METRICS_H
#define RL_CLIENT_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "client_driver.h"
#include "rl_error.h"

/* Chunks that arrive less than this apart are one delivery (seed 001). */
#define RL_CLIENT_DELIVERY_GAP_NS 5000000LL

/* Service-level objectives for goodput; a value <= 0 is not set. */
typedef struct {
    double ttft_ms;
    double tpot_ms;
    double e2e_ms;
} rl_client_slo;

/* One operating point as measured. */
typedef struct {
    size_t concurrency;       /* requests in flight (controlled) */
    double request_rate;      /* requests/s of the arrival schedule, 0 = closed loop */
    double ramp_up_ms;        /* 0 = none */
    int64_t start_ns, end_ns; /* first send to last end of the measured requests (wall) */
    const rl_client_result *const *results; /* n_results measured requests */
    size_t n_results;
    const char *const *prompt_ids; /* n_prompts ids; result->prompt indexes this */
    size_t n_prompts;
    size_t warmup; /* warm-up requests run before (not in results) */
} rl_client_point;

/* The JSON of one operating point: the controlled settings, every metric of seed 001 with its
 * kind, each as {"kind", "unit", "samples": [...], "summary": rl_stats_to_json (p50/p90/p99,
 * mean, ci95)} or {"available": false, "reason"}; per-request records (one object per
 * request: prompt id, attempts, ok/error, ttft, e2e, chunk and delivery counts, tokens,
 * normalised output hash); goodput against slo. NULL with err filled on failure. */
cJSON *rl_client_point_json(const rl_client_point *p, const rl_client_slo *slo, rl_error *err);

#endif
