/* SPDX-License-Identifier: MIT */
/* fit.c: least squares through the origin for the decode roofline (see fit.h).
 *
 * Memory: nothing is allocated; the roofline form converts bytes to 1/bytes in a bounded
 * stack buffer (RL_FIT_MAX_POINTS). */
#include "base/fit.h"

#include <math.h>
#include <string.h>

rl_status rl_fit_origin(const double *x, const double *y, size_t n, double *residuals,
                        rl_fit_result *out, rl_error *err)
{
    if (out == NULL)
        return rl_fail(err, RL_EINTERNAL, "fit: no output given");
    memset(out, 0, sizeof *out);
    if (n == 0)
        return rl_fail(err, RL_EINPUT, "fit: no points to fit");
    if (x == NULL || y == NULL)
        return rl_fail(err, RL_EINPUT, "fit: %zu points announced but no values given", n);
    double sxy = 0.0, sxx = 0.0, sy = 0.0, ymin = y[0], ymax = y[0];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return rl_fail(err, RL_EINPUT, "fit: point %zu is not a pair of finite numbers", i + 1);
        sxy += x[i] * y[i];
        sxx += x[i] * x[i];
        sy += y[i];
        ymin = y[i] < ymin ? y[i] : ymin;
        ymax = y[i] > ymax ? y[i] : ymax;
    }
    if (sxx == 0.0)
        return rl_fail(err, RL_EINPUT, "fit: every x is 0, so no slope can be fitted");
    double b = sxy / sxx, ymean = sy / (double)n, ss_res = 0.0, ss_tot = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - b * x[i], d = y[i] - ymean;
        if (residuals != NULL)
            residuals[i] = r;
        ss_res += r * r;
        ss_tot += d * d;
    }
    out->n_points = n;
    out->bw_bytes_s = b;
    out->bw_GBs = b / 1e9;
    out->ss_res = ss_res;
    /* identical y: SS_tot is 0 by definition, whatever rounding left in the sum */
    out->ss_tot = ymin == ymax ? 0.0 : ss_tot;
    out->has_r2 = out->ss_tot > 0.0;
    out->r2 = out->has_r2 ? 1.0 - ss_res / out->ss_tot : NAN;
    return RL_OK;
}

rl_status rl_fit_roofline(const double *bytes_per_token, const double *tok_s, size_t n,
                          double *residuals, rl_fit_result *out, rl_error *err)
{
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (n > RL_FIT_MAX_POINTS)
        return rl_fail(err, RL_EINPUT, "fit: %zu points, more than the %d supported", n,
                       RL_FIT_MAX_POINTS);
    if (n > 0 && bytes_per_token == NULL)
        return rl_fail(err, RL_EINPUT, "fit: %zu points announced but no sizes given", n);
    double x[RL_FIT_MAX_POINTS];
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(bytes_per_token[i]) || !(bytes_per_token[i] > 0.0))
            return rl_fail(err, RL_EINPUT,
                           "fit: point %zu has bytes per token %g; it must be a number above 0",
                           i + 1, bytes_per_token[i]);
        x[i] = 1.0 / bytes_per_token[i];
    }
    return rl_fit_origin(x, tok_s, n, residuals, out, err);
}

rl_status rl_fit_line(const double *x, const double *y, size_t n, rl_line_fit *out, rl_error *err)
{
    if (out == NULL)
        return rl_fail(err, RL_EINTERNAL, "fit: no output given");
    memset(out, 0, sizeof *out);
    if (n < 2 || x == NULL || y == NULL)
        return rl_fail(err, RL_EINPUT, "line fit: %zu points; a slope needs at least 2", n);
    double sx = 0.0, sy = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            return rl_fail(err, RL_EINPUT, "line fit: point %zu is not a pair of finite numbers",
                           i + 1);
        sx += x[i];
        sy += y[i];
    }
    double mx = sx / (double)n, my = sy / (double)n, sxx = 0.0, sxy = 0.0, syy = 0.0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (!(sxx > 0.0))
        return rl_fail(err, RL_EINPUT, "line fit: every x is the same, so no slope can be fitted");
    out->n_points = n;
    out->slope = sxy / sxx;
    out->intercept = my - out->slope * mx;
    double ss_res = 0.0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (out->intercept + out->slope * x[i]);
        ss_res += r * r;
    }
    out->has_r2 = syy > 0.0;
    out->r2 = out->has_r2 ? 1.0 - ss_res / syy : NAN;
    return RL_OK;
}
