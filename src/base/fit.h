/* SPDX-License-Identifier: MIT */
/* fit.h: least squares through the origin, the decode roofline tok/s = BW / bytes_per_token,
 * and the one straight-line fit with an intercept (rl_fit_line).
 *
 * Pure arithmetic: no I/O, no allocation. The caller owns every array; residuals, when asked
 * for, are written into a caller buffer of n doubles.
 *
 * Model: y = BW * x with x = 1 / bytes_per_token and y = tok/s, so BW is in bytes/s.
 *   BW     = sum(x * y) / sum(x * x)
 *   R^2    = 1 - SS_res / SS_tot, SS_res = sum((y - BW * x)^2), SS_tot = sum((y - mean(y))^2):
 *            R^2 is taken about the mean of y, as for a regression with an intercept, so a
 *            line through the origin can score below 0 when it fits worse than the mean.
 *            Unavailable when SS_tot = 0 (every y equal).
 *   residual_i = y_i - BW * x_i (tok/s).
 * One point gives BW = y / x exactly and no R^2; whether one point is a "fit" is the caller's
 * call (the analysis says there is no line). */
#ifndef RL_FIT_H
#define RL_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"

typedef struct {
    size_t n_points;
    double bw_bytes_s; /* the slope, bytes/s */
    double bw_GBs;     /* bw_bytes_s / 1e9 */
    bool has_r2;       /* false when SS_tot = 0 */
    double r2;
    double ss_res;
    double ss_tot;
} rl_fit_result;

/* Fit y = b * x over n >= 1 points. residuals may be NULL, else receives n values.
 * RL_EINPUT for n = 0, NULL arrays, a non-finite value, or sum(x^2) = 0. out is zeroed first. */
rl_status rl_fit_origin(const double *x, const double *y, size_t n, double *residuals,
                        rl_fit_result *out, rl_error *err);

/* The roofline form: x_i = 1 / bytes_per_token[i], y_i = tok_s[i]. RL_EINPUT as above and when
 * a bytes_per_token is not a finite number > 0 or n exceeds RL_FIT_MAX_POINTS. */
#define RL_FIT_MAX_POINTS 4096
rl_status rl_fit_roofline(const double *bytes_per_token, const double *tok_s, size_t n,
                          double *residuals, rl_fit_result *out, rl_error *err);

/* Ordinary least squares with an intercept, y = intercept + slope * x (the calibration's
 * per-token time against bytes, bundle/calib.h):
 *   slope = sum((x - mean x)(y - mean y)) / sum((x - mean x)^2), intercept = mean y - slope *
 *   mean x, R^2 = 1 - SS_res / SS_tot about the mean of y (unavailable when every y is equal).
 * Two points give the line through both. RL_EINPUT for fewer than 2 points, NULL arrays, a
 * non-finite value, or every x equal. out is zeroed first. */
typedef struct {
    size_t n_points;
    double slope, intercept;
    bool has_r2;
    double r2;
} rl_line_fit;
rl_status rl_fit_line(const double *x, const double *y, size_t n, rl_line_fit *out, rl_error *err);

#endif
