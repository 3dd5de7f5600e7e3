/* SPDX-License-Identifier: MIT */
/* chart_layout.c: chart geometry without drawing: scales, readable ticks, boxes (owner: chart).
 *
 * Scales map data to pixels: linear (widened to whole tick steps of 1, 2 or 5 x 10^k, as
 * rrdtool's calc_horizontal_grid picks sensible steps), log10 (ticks 1-2-5, 1-3 or whole
 * decades per decade by span) and the depth axis x = log2(1 + depth / smallest depth), which
 * puts 0 at the left edge and spaces 512, 2k, 8k roughly evenly. Tick labels are compact
 * numbers in the C locale ("0.5", "1500", "20k"); units go in the axis title.
 *
 * Boxes are oriented rectangles so rotated labels (along a roofline diagonal) can be tested
 * for overlap exactly (separating axis test); segments (drawn lines) are tested against boxes
 * exactly (Liang-Barsky clipping in the box's frame) and against each other (orientation
 * signs). Nothing here allocates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_text.h"

/* ---- boxes ------------------------------------------------------------------------------ */

rl_chart_box rl_chart_box_rect(double x, double y, double w, double h)
{
    rl_chart_box b = {x + w / 2, y + h / 2, fabs(w) / 2, fabs(h) / 2, 0, 0};
    return b;
}

/* Half the extent of box b projected on the unit axis (ux, uy). */
static double project(const rl_chart_box *b, double ux, double uy)
{
    double c = b->angle == 0 ? 1 : cos(b->angle), s = b->angle == 0 ? 0 : sin(b->angle);
    return b->hw * fabs(c * ux + s * uy) + b->hh * fabs(-s * ux + c * uy);
}

bool rl_chart_box_overlap(const rl_chart_box *a, const rl_chart_box *b)
{
    const rl_chart_box *bx[2] = {a, b};
    double dx = b->cx - a->cx, dy = b->cy - a->cy;
    for (int i = 0; i < 2; i++) {
        double c = bx[i]->angle == 0 ? 1 : cos(bx[i]->angle);
        double s = bx[i]->angle == 0 ? 0 : sin(bx[i]->angle);
        double axes[2][2] = {{c, s}, {-s, c}};
        for (int k = 0; k < 2; k++) {
            double ux = axes[k][0], uy = axes[k][1];
            if (fabs(dx * ux + dy * uy) >= project(a, ux, uy) + project(b, ux, uy))
                return false;
        }
    }
    return true;
}

bool rl_chart_box_inside(const rl_chart_box *b, const rl_chart_rect *r)
{
    double ex = project(b, 1, 0), ey = project(b, 0, 1);
    return b->cx - ex >= r->x && b->cx + ex <= r->x + r->w && b->cy - ey >= r->y &&
           b->cy + ey <= r->y + r->h;
}

/* ---- segments --------------------------------------------------------------------------- */

/* Liang-Barsky: the part t0..t1 (within 0..1) of (x, y) + t (dx, dy) inside [xl, xh] x [yl, yh];
 * false when none. Touching the border counts as inside. */
static bool clip_t(double x, double y, double dx, double dy, const double lim[4], double *t0,
                   double *t1)
{
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x - lim[0], lim[1] - x, y - lim[2], lim[3] - y};
    *t0 = 0;
    *t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false; /* parallel to this border and outside it */
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > *t1)
                return false;
            if (t > *t0)
                *t0 = t;
        } else {
            if (t < *t0)
                return false;
            if (t < *t1)
                *t1 = t;
        }
    }
    return *t0 <= *t1;
}

bool rl_chart_seg_hits_box(const rl_chart_seg *s, const rl_chart_box *b)
{
    /* in the box's own frame the box is [-hw, hw] x [-hh, hh] */
    double c = b->angle == 0 ? 1 : cos(b->angle), sn = b->angle == 0 ? 0 : sin(b->angle);
    double ax = s->x0 - b->cx, ay = s->y0 - b->cy, bx = s->x1 - b->cx, by = s->y1 - b->cy;
    double u0 = ax * c + ay * sn, v0 = -ax * sn + ay * c;
    double u1 = bx * c + by * sn, v1 = -bx * sn + by * c;
    const double lim[4] = {-b->hw, b->hw, -b->hh, b->hh};
    double t0, t1;
    return clip_t(u0, v0, u1 - u0, v1 - v0, lim, &t0, &t1);
}

bool rl_chart_seg_clip(rl_chart_seg *s, const rl_chart_rect *r)
{
    double dx = s->x1 - s->x0, dy = s->y1 - s->y0, t0, t1;
    const double lim[4] = {r->x, r->x + r->w, r->y, r->y + r->h};
    if (!clip_t(s->x0, s->y0, dx, dy, lim, &t0, &t1))
        return false;
    double x0 = s->x0;
    double y0 = s->y0;
    s->x0 = x0 + t0 * dx;
    s->y0 = y0 + t0 * dy;
    s->x1 = x0 + t1 * dx;
    s->y1 = y0 + t1 * dy;
    return true;
}

/* Which side of the line a -> b the point c is on (the cross product's sign and size). */
static double orient(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static bool apart(double d1, double d2)
{
    return (d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0);
}

bool rl_chart_segs_cross(const rl_chart_seg *a, const rl_chart_seg *b)
{
    double d1 = orient(b->x0, b->y0, b->x1, b->y1, a->x0, a->y0);
    double d2 = orient(b->x0, b->y0, b->x1, b->y1, a->x1, a->y1);
    double d3 = orient(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0);
    double d4 = orient(a->x0, a->y0, a->x1, a->y1, b->x1, b->y1);
    return apart(d1, d2) && apart(d3, d4);
}

double rl_chart_box_dist(const rl_chart_box *b, double x, double y, double *qx, double *qy)
{
    double c = b->angle == 0 ? 1 : cos(b->angle), sn = b->angle == 0 ? 0 : sin(b->angle);
    double dx = x - b->cx, dy = y - b->cy;
    double u = dx * c + dy * sn, v = -dx * sn + dy * c;
    double cu = fmax(-b->hw, fmin(b->hw, u)), cv = fmax(-b->hh, fmin(b->hh, v));
    *qx = b->cx + cu * c - cv * sn;
    *qy = b->cy + cu * sn + cv * c;
    return hypot(u - cu, v - cv);
}

/* ---- scales ----------------------------------------------------------------------------- */

/* The nice step (1, 2 or 5 x 10^k) nearest x (so a span gets about 4 to 7 ticks). */
static double nice_step(double x)
{
    if (!(x > 0) || !isfinite(x))
        return 1;
    double e = floor(log10(x));
    double p = pow(10, e);
    double f = x / p;
    return (f <= 1.4 ? 1 : f <= 2.8 ? 2 : f <= 7 ? 5 : 10) * p;
}

void rl_chart_scale_lin(rl_chart_scale *s, double lo, double hi, bool from_zero, double p0,
                        double p1)
{
    if (!isfinite(lo) || !isfinite(hi) || hi < lo)
        lo = 0, hi = 1;
    if (from_zero && lo >= 0)
        lo = 0;
    if (hi - lo < fabs(hi) * 1e-9 || hi == lo) {
        double d = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
        hi += d;
        if (!(from_zero && lo == 0))
            lo -= d;
    }
    double step = nice_step((hi - lo) / 5);
    memset(s, 0, sizeof *s);
    s->kind = RL_CHART_LIN;
    s->lo = floor(lo / step + 1e-9) * step;
    s->hi = ceil(hi / step - 1e-9) * step;
    if (s->hi <= s->lo)
        s->hi = s->lo + step;
    s->step = step;
    s->p0 = p0;
    s->p1 = p1;
}

void rl_chart_scale_pad(rl_chart_scale *s, double lo, double hi, double frac, double p0, double p1)
{
    if (!isfinite(lo) || !isfinite(hi) || hi < lo)
        lo = 0, hi = 1;
    double d = hi > lo ? (hi - lo) * frac : 1;
    memset(s, 0, sizeof *s);
    s->kind = RL_CHART_LIN;
    s->lo = lo - d;
    s->hi = hi + d;
    s->step = nice_step((s->hi - s->lo) / 5);
    s->p0 = p0;
    s->p1 = p1;
}

void rl_chart_scale_log(rl_chart_scale *s, double lo, double hi, double pad, double p0, double p1)
{
    if (!rl_chart_sane(lo) || !rl_chart_sane(hi) || hi < lo)
        lo = 1, hi = 10;
    if (!(pad >= 1))
        pad = 1;
    lo /= pad;
    hi *= pad;
    if (hi / lo < 1.5) { /* a single point, or all alike: show a factor of ~2 around them */
        double m = sqrt(lo * hi);
        lo = m / 1.5;
        hi = m * 1.5;
    }
    memset(s, 0, sizeof *s);
    s->kind = RL_CHART_LOG;
    s->lo = lo;
    s->hi = hi;
    s->p0 = p0;
    s->p1 = p1;
}

void rl_chart_scale_depth(rl_chart_scale *s, double max_depth, double unit, double p0, double p1)
{
    memset(s, 0, sizeof *s);
    s->kind = RL_CHART_DEPTH;
    s->unit = rl_chart_sane(unit) ? unit : 1;
    s->lo = 0;
    s->hi = rl_chart_sane(max_depth) && max_depth >= s->unit ? max_depth : s->unit;
    s->p0 = p0;
    s->p1 = p1;
}

static double depth_f(const rl_chart_scale *s, double d)
{
    return log2(1 + (d > 0 ? d : 0) / s->unit);
}

double rl_chart_map(const rl_chart_scale *s, double v)
{
    double t;
    switch (s->kind) {
    case RL_CHART_LOG:
        t = (log10(v > 0 ? v : s->lo) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
        break;
    case RL_CHART_DEPTH: t = depth_f(s, v) / depth_f(s, s->hi); break;
    default: t = (v - s->lo) / (s->hi - s->lo); break;
    }
    if (!isfinite(t))
        t = 0;
    /* keep far-off values a bounded distance outside (they are clipped when drawn) */
    if (t < -10)
        t = -10;
    if (t > 10)
        t = 10;
    return s->p0 + t * (s->p1 - s->p0);
}

/* ---- ticks ------------------------------------------------------------------------------ */

void rl_chart_fmt_tick(char *buf, size_t cap, double v, double div, const char *suffix)
{
    double x = v / div;
    if (fabs(x) < 1e-12)
        x = 0;
    rl_snprintf(buf, cap, "%.4g%s", x, x == 0 ? "" : suffix);
}

static void add_tick(rl_chart_ticks *out, double v, bool label)
{
    if (out->n < RL_CHART_MAX_TICKS) {
        out->t[out->n].v = v;
        out->t[out->n].label = label;
        out->t[out->n].text[0] = '\0';
        out->n++;
    }
}

/* Compact labels: thousands as "k" and millions as "M" once the largest tick needs it (on a
 * linear axis all ticks share the suffix; on a log axis each tick picks its own). */
static void label_ticks(rl_chart_ticks *out, bool shared)
{
    double top = 0;
    for (size_t i = 0; i < out->n; i++)
        top = fmax(top, fabs(out->t[i].v));
    for (size_t i = 0; i < out->n; i++) {
        double v = out->t[i].v, ref = shared ? top : fabs(v);
        double div = 1;
        const char *suf = "";
        if (ref >= 1e7)
            div = 1e6, suf = "M";
        else if (ref >= 1e4)
            div = 1e3, suf = "k";
        rl_chart_fmt_tick(out->t[i].text, sizeof out->t[i].text, v, div, suf);
    }
}

void rl_chart_ticks_nice(const rl_chart_scale *s, rl_chart_ticks *out)
{
    out->n = 0;
    if (s->kind == RL_CHART_LIN) {
        double step = s->step > 0 ? s->step : nice_step((s->hi - s->lo) / 5);
        for (int k = 0; k < RL_CHART_MAX_TICKS; k++) {
            double v = s->lo + k * step;
            if (v > s->hi + step * 1e-6)
                break;
            if (fabs(v) < step * 1e-9)
                v = 0;
            add_tick(out, v, true);
        }
        label_ticks(out, true);
        return;
    }
    if (s->kind == RL_CHART_LOG) {
        double span = log10(s->hi / s->lo);
        static const double m125[] = {1, 2, 5}, m13[] = {1, 3}, m1[] = {1},
                            mfine[] = {1, 1.5, 2, 3, 4, 5, 7};
        const double *m = span < 0.8 ? mfine : span <= 2.5 ? m125 : span <= 4 ? m13 : m1;
        size_t nm = span < 0.8 ? 7 : span <= 2.5 ? 3 : span <= 4 ? 2 : 1;
        int d0 = (int)floor(log10(s->lo)), d1 = (int)ceil(log10(s->hi));
        int every = 1 + (d1 - d0) / 10; /* absurd ranges: at most ~10 decades labelled */
        for (int d = d0; d <= d1; d += every) {
            double p = pow(10, d);
            for (size_t i = 0; i < nm; i++) {
                double v = m[i] * p;
                if (v >= s->lo * 0.9999 && v <= s->hi * 1.0001)
                    add_tick(out, v, true);
            }
        }
        label_ticks(out, false);
        return;
    }
    double v[2] = {0, s->hi};
    rl_chart_ticks_at(v, 2, true, out);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rl_chart_ticks_at(const double *v, size_t n, bool depth_style, rl_chart_ticks *out)
{
    double tmp[RL_CHART_MAX_TICKS * 4];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof tmp / sizeof tmp[0]; i++)
        if (isfinite(v[i]))
            tmp[k++] = v[i];
    qsort(tmp, k, sizeof tmp[0], cmp_double);
    out->n = 0;
    for (size_t i = 0; i < k; i++)
        if (i == 0 || tmp[i] != tmp[i - 1])
            add_tick(out, tmp[i], true);
    if (!depth_style) {
        label_ticks(out, false);
        return;
    }
    for (size_t i = 0; i < out->n; i++) {
        double d = out->t[i].v;
        if (d >= 1024 && fmod(d, 1024) == 0)
            rl_chart_fmt_tick(out->t[i].text, sizeof out->t[i].text, d, 1024, "k");
        else if (d >= 1e6)
            rl_chart_fmt_tick(out->t[i].text, sizeof out->t[i].text, d, 1e6, "M");
        else
            rl_snprintf(out->t[i].text, sizeof out->t[i].text, "%.0f", d);
    }
}
