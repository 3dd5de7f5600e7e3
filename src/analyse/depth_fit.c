/* SPDX-License-Identifier: MIT */
/* depth_fit.c: the per-token time against context depth (depth_fit.h). */
#include "analyse/depth_fit.h"

#include <math.h>
#include <string.h>

#include "base/fit.h"
#include "base/rl_text.h"

void rl_depth_fit_make(const rl_depth_pt *pts, size_t n, double max_depth, rl_depth_fit *out)
{
    memset(out, 0, sizeof *out);
    double x[RL_DEPTH_FIT_MAX_POINTS], y[RL_DEPTH_FIT_MAX_POINTS];
    size_t m = 0;
    bool distinct = false;
    for (size_t i = 0; i < n && m < RL_DEPTH_FIT_MAX_POINTS; i++) {
        if (max_depth >= 0 && pts[i].depth > max_depth)
            continue;
        if (!isfinite(pts[i].tok_s) || !(pts[i].tok_s > 0) || !isfinite(pts[i].depth) ||
            pts[i].depth < 0) {
            rl_snprintf(out->why, sizeof out->why,
                        "a decode rate or depth is not a finite number > 0");
            return;
        }
        x[m] = pts[i].depth;
        y[m] = 1e6 / pts[i].tok_s;
        distinct |= m > 0 && x[m] != x[0];
        out->max_depth = m == 0 || x[m] > out->max_depth ? x[m] : out->max_depth;
        m++;
    }
    out->n_points = m;
    rl_line_fit lf;
    rl_error e;
    if (!distinct || rl_fit_line(x, y, m, &lf, &e) != RL_OK) {
        rl_snprintf(out->why, sizeof out->why, "fewer than two depths measured");
        return;
    }
    if (lf.slope < 0) {
        rl_snprintf(out->why, sizeof out->why,
                    "decode did not slow with depth (the noise is larger than the effect)");
        return;
    }
    out->ok = true;
    out->tau0_us = lf.intercept;
    out->slope_us = lf.slope;
    out->has_r2 = lf.has_r2;
    out->r2 = lf.r2;
}

double rl_depth_fit_tok_s(const rl_depth_fit *f, double depth)
{
    if (!f->ok)
        return 0;
    double tau = f->tau0_us + f->slope_us * depth;
    return tau > 0 ? 1e6 / tau : 0;
}
