/* SPDX-License-Identifier: MIT */
/* depth_fit.h: how a model's decode slows as the context grows, fitted from its own runs at
 * two or more depths, and the rate it predicts at other depths (issue 22, part 3).
 *
 * The form. Each token decoded at depth d reads the weights once and the KV cache of the d
 * tokens before it, and attends over them: both grow linearly in d. So the per-token time is
 *   tau(d) = tau0 + slope x d   (us; tau = 1e6 / decode tok/s)
 * fitted by ordinary least squares (base/fit.h rl_fit_line) over the measured depths, depth 0
 * included when it was measured. The rate at depth D is 1e6 / (tau0 + slope x D).
 * Evidence (docs/METHOD.md "Long context"): the seed's published i7-12700H tables
 * (../shared/data/long_context_i7-12700H.csv) fitted from depths up to 8192 predict
 * Qwen2.5-0.5B Q4_K_M at 16k and 32k within +5.5% and +5.7% (published: 23% and 13% of the
 * empty-cache rate); from depths up to 2048, 8192 within +5.6% (0.5B) and +8.6% (1.5B).
 * bench/long-context prints these and the same check on this machine.
 *
 * Not a fit: fewer than two distinct depths, a rate that is not a finite number > 0, or a
 * slope below 0 (decode did not slow with depth: the noise is larger than the effect); then
 * ok is false and why says which.
 *
 * us_per_kv_byte = slope / kv_bytes_per_token: the time one more byte of KV cache costs per
 * token. predict carries it to a model of another shape (its own KV bytes per token).
 *
 * Pure arithmetic: no I/O, no allocation; every array is the caller's. */
#ifndef RL_DEPTH_FIT_H
#define RL_DEPTH_FIT_H

#include <stdbool.h>
#include <stddef.h>

#define RL_DEPTH_FIT_MAX_POINTS 64

typedef struct {
    double depth; /* tokens in the KV cache */
    double tok_s; /* decode rate there */
} rl_depth_pt;

typedef struct {
    bool ok;
    size_t n_points;  /* depths the fit used */
    double max_depth; /* the deepest of them */
    double tau0_us;   /* per-token time at depth 0 */
    double slope_us;  /* per-token time added per token of depth */
    bool has_r2;
    double r2;
    char why[160]; /* when !ok */
} rl_depth_fit;

/* Fit over the points whose depth is at most max_depth (max_depth < 0: all of them); at most
 * RL_DEPTH_FIT_MAX_POINTS are used. out is zeroed first. */
void rl_depth_fit_make(const rl_depth_pt *pts, size_t n, double max_depth, rl_depth_fit *out);

/* The predicted rate at depth (tok/s); 0 when !f->ok or the time is not > 0. */
double rl_depth_fit_tok_s(const rl_depth_fit *f, double depth);

#endif
