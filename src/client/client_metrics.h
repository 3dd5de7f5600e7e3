/* SPDX-License-Identifier: MIT */
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

#include "client/client_driver.h"
#include "base/rl_error.h"

/* Chunks that arrive less than this apart are one delivery (seed 001). */
#define RL_CLIENT_DELIVERY_GAP_NS 5000000LL

/* Service-level objectives for goodput; a value <= 0 is not set. */
typedef struct {
    double ttft_ms;
    double tpot_ms;
    double e2e_ms;
} rl_client_slo;

/* The limits of slo a request misses: a bit per limit, 0 when it meets them all. A limit <= 0
 * is not set and never missed; a set limit is met when the value is finite and at most the
 * limit (a request exactly at the limit meets it); an unknown (non-finite) value misses it. */
enum { RL_SLO_TTFT = 1u, RL_SLO_TPOT = 2u, RL_SLO_E2E = 4u };
unsigned rl_client_slo_misses(const rl_client_slo *slo, double ttft_ms, double tpot_ms,
                              double e2e_ms);

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
 * kind, each as {"kind", "unit", "samples": [...], "stats": rl_stats_to_json (p50/p90/p99,
 * mean, ci95)} or {"available": false, "reason"}; per-request records (one object per
 * request: prompt id, attempts, ok/error, ttft, e2e, chunk and delivery counts, tokens,
 * normalised output hash); goodput against slo. NULL with err filled on failure. */
cJSON *rl_client_point_json(const rl_client_point *p, const rl_client_slo *slo, rl_error *err);

/* The CI gate (client --fail-on-slo PCT / --ci) over finished points (rl_client_point_json
 * objects): it fails when any request failed, or, with pct > 0, when a point's goodput
 * fraction (good / all requests) * 100 is under pct. Its reasons, "; "-joined, into buf (""
 * when it passes); returns {kind: derived, fail_below_pct (null when pct <= 0), failed,
 * passed, reasons: [...]}, NULL when out of memory (buf then says so). */
cJSON *rl_client_gate_json(const cJSON *points, double pct, char *buf, size_t cap);

/* Pooled chunk gaps kept as samples per operating point; beyond this the statistics still
 * cover every gap but "samples" is {"available": false, "reason"} (the bundle stays small). */
#define RL_CLIENT_GAP_SAMPLES_MAX 100000

/* The first delivery of a result: the number of leading chunks that arrived less than
 * RL_CLIENT_DELIVERY_GAP_NS after the chunk before them (0 when there is no chunk), and in
 * *bytes (may be NULL) their bytes, i.e. the first *bytes bytes of the output are its text.
 * For a counter command (seed 001 counts the first delivery's text): the scheduler stores that
 * count in the delivery's first chunk's tokens and 0 in its other chunks; rl_client_point_json
 * takes the first-delivery tokens as the sum of those chunks' tokens when none is -1. O(n). */
size_t rl_client_first_delivery(const rl_client_result *r, uint64_t *bytes);

/* The normalised output hash of seed 001: ANSI CSI sequences (ESC '[' parameters
 * intermediates final byte) removed, every run of ASCII whitespace (space, \t, \n, \v, \f,
 * \r) made one space, leading and trailing whitespace dropped; then FNV-1a 64 of those bytes,
 * and when only part of the output was kept (total > len) the decimal total after a ':'. Writes
 * 16 lowercase hex digits and a NUL to hex[17]. */
void rl_client_output_hash(const char *text, size_t len, uint64_t total, char hex[17]);

#endif
