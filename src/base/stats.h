/* SPDX-License-Identifier: MIT */
/* stats.h: summary statistics of a sample of doubles, and the Student t critical value.
 *
 * Pure arithmetic: no I/O, no timing. rl_stats_summarize copies the sample internally to sort
 * it (O(n log n)) and frees the copy before returning; the summary owns no memory.
 * rl_stats_to_json returns a new cJSON object that the caller owns.
 *
 * Definitions:
 *   mean      arithmetic mean.
 *   sd        sample standard deviation, divisor n - 1 (two-pass, about the mean).
 *   cv        sd / mean (a ratio, not a percentage); unavailable when the mean is 0.
 *   pXX       percentile by linear interpolation between closest ranks: on the sorted sample
 *             x[0..n-1], h = (n - 1) * p / 100, value = x[floor h] + (h - floor h) *
 *             (x[floor h + 1] - x[floor h]). p0 is the minimum and p100 the maximum; p50 is the
 *             median (the mean of the two middle values for an even n). Same as NumPy's
 *             default and Excel's PERCENTILE.INC.
 *   ci95      95% confidence interval of the mean: mean -/+ t95(n - 1) * sd / sqrt(n), with t95
 *             the two-sided Student t critical value.
 *
 * Small samples: n = 0 leaves everything unavailable. n = 1 gives the mean, median, min, max
 * and percentiles (all equal to the one value) but no sd, cv or ci95: one run cannot show
 * spread, so these are reported unavailable, never as 0. */
#ifndef RL_STATS_H
#define RL_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

typedef struct {
    size_t n;
    bool has_center; /* n >= 1: mean, median, min, max, p50, p90, p95, p99 */
    double mean;
    double median;
    double min;
    double max;
    double p50;
    double p90;
    double p95;
    double p99;
    bool has_sd; /* n >= 2 */
    double sd;
    bool has_cv; /* n >= 2 and mean != 0 */
    double cv;
    bool has_ci95; /* n >= 2 */
    double ci95_low;
    double ci95_high;
    double ci95_t; /* the t95(n - 1) used */
} rl_stats_summary;

/* Summarize x[0..n-1]. n = 0 (x may then be NULL) gives an all-unavailable summary and RL_OK.
 * RL_EINPUT when x is NULL with n > 0 or a value is not finite; RL_EINTERNAL when out of
 * memory. out is always zeroed first. */
rl_status rl_stats_summarize(const double *x, size_t n, rl_stats_summary *out, rl_error *err);

/* Two-sided 95% Student t critical value for df degrees of freedom: P(|T| > t) = 0.05.
 * df 1..30 come from a table (12.706, 4.303, 3.182, ..., 2.042, to 1e-12); beyond 30 the t
 * CDF is inverted by bisection on the regularized incomplete beta (accurate to 1e-9), and
 * beyond 1e6 by the Cornish-Fisher expansion about 1.959964. df = 0 returns NAN. */
double rl_stats_t95(size_t df);

/* Two-sided tail probability P(|T| > t) of Student's t with df > 0 degrees of freedom,
 * I_{df/(df+t^2)}(df/2, 1/2) by continued fraction; accurate to about 1e-12 for df up to 1e6
 * (the range rl_stats_t95 uses it for). Returns NAN for df <= 0 or a non-finite t; 1 for
 * t = 0. */
double rl_stats_t_tail2(double t, double df);

/* Percentile p (0..100) of an ascending sorted array, by the interpolation above. NAN when
 * n = 0 or p is outside 0..100. */
double rl_stats_percentile_sorted(const double *sorted, size_t n, double p);

/* {"available": true, "kind": "derived", "n", "mean", "median", "min", "max", "p50", "p90",
 * "p99", "sd", "cv", "ci95": {"low", "high", "t", "df", "level": 0.95}}, where sd, cv and ci95
 * become {"available": false, "reason": "..."} when unavailable; n = 0 gives
 * {"available": false, "reason": "no samples", "n": 0}. NULL when out of memory. */
cJSON *rl_stats_to_json(const rl_stats_summary *s);

#endif
