/* SPDX-License-Identifier: MIT */
/* predict_rate.c: the pure arithmetic of predict (predict.h): tok/s from a bandwidth, bytes at a
 * context depth, the fitted models kept one by one, the same-format rule (rl_pred_rate_for) and
 * its leave-one-out (rl_pred_rate_without), and the fit read from a bundle's analysis. No I/O. */
#include "analyse/predict.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/stats.h"
#include "bundle/bundle.h"

/* ---- arithmetic ---------------------------------------------------------------------- */

double rl_pred_tok_s(double bw_bytes_s, double bytes_per_token)
{
    if (!isfinite(bw_bytes_s) || !(bw_bytes_s > 0) || !isfinite(bytes_per_token) ||
        !(bytes_per_token > 0))
        return NAN;
    return bw_bytes_s / bytes_per_token;
}

double rl_pred_depth_tok_s(double tok_s0, double depth, double kv_per_token, double us_per_kv_byte)
{
    if (!isfinite(tok_s0) || !(tok_s0 > 0) || !isfinite(depth) || depth < 0 ||
        !isfinite(kv_per_token) || kv_per_token < 0 || !isfinite(us_per_kv_byte) ||
        us_per_kv_byte < 0)
        return NAN;
    return 1e6 / (1e6 / tok_s0 + depth * kv_per_token * us_per_kv_byte);
}

bool rl_pred_bytes_at_depth(uint64_t weights, uint64_t kv_per_token, uint64_t depth, uint64_t *out)
{
    if (depth != 0 && kv_per_token > UINT64_MAX / depth)
        return false;
    uint64_t kv = depth * kv_per_token;
    if (kv > UINT64_MAX - weights)
        return false;
    *out = weights + kv;
    return true;
}

/* ---- the fit ------------------------------------------------------------------------- */

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* label appears as a whole item of the ", "-separated list */
bool rl_pred_label_listed(const char *list, const char *label)
{
    size_t n = strlen(label);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, label, n) == 0)
            return true;
        p += k;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

void rl_pred_fit_add(rl_pred_fit *f, const char *label, double bytes, double bw)
{
    if (!(bytes > 0) || !isfinite(bytes) || !(bw > 0) || !isfinite(bw) ||
        f->n_fitted >= RL_PRED_MAX_FITTED)
        return;
    int format = -1;
    bool named = label && *label && strlen(label) < sizeof f->formats[0].label;
    for (size_t i = 0; named && i < f->n_formats && format < 0; i++)
        if (strcmp(f->formats[i].label, label) == 0)
            format = (int)i;
    if (named && format < 0 && f->n_formats < RL_PRED_MAX_FORMATS) {
        rl_pred_format *g = &f->formats[f->n_formats];
        memset(g, 0, sizeof *g);
        snprintf(g->label, sizeof g->label, "%s", label);
        format = (int)f->n_formats++;
    }
    if (format >= 0)
        f->formats[format].n++;
    f->fitted[f->n_fitted++] = (rl_pred_fitted){bytes, bw, format};
}

/* the index of label's format, -1 when none */
static int format_of(const rl_pred_fit *f, const char *label)
{
    for (size_t i = 0; label && *label && i < f->n_formats; i++)
        if (strcmp(f->formats[i].label, label) == 0)
            return (int)i;
    return -1;
}

#define NONE SIZE_MAX

/* The through-origin sums of some fitted models, their count and bandwidth range. */
typedef struct {
    size_t n;
    double sum_x2, sum_bw_x2; /* sums of 1/b^2 and bw/b^2 (b bytes per token, bw bytes/s) */
    double lo, hi;            /* their smallest and largest effective bandwidth, bytes/s */
} pred_sums;

/* f's fitted models of format `format` (-1: all of them), but the skip-th (NONE: none) */
static pred_sums sums_of(const rl_pred_fit *f, int format, size_t skip)
{
    pred_sums s = {0};
    for (size_t i = 0; i < f->n_fitted; i++) {
        const rl_pred_fitted *m = &f->fitted[i];
        if (i == skip || (format >= 0 && m->format != format))
            continue;
        double x2 = 1.0 / (m->bytes * m->bytes);
        if (s.n == 0 || m->bw < s.lo)
            s.lo = m->bw;
        if (s.n == 0 || m->bw > s.hi)
            s.hi = m->bw;
        s.n++;
        s.sum_x2 += x2;
        s.sum_bw_x2 += m->bw * x2;
    }
    return s;
}

/* r from a format's models s: two or more, their fit and range; one, its rate and the all-model
 * interval r holds scaled to it. False (r left alone) when s is empty. */
static bool format_rate(const pred_sums *s, rl_pred_rate *r)
{
    if (s->n == 0 || !(s->sum_x2 > 0))
        return false;
    double bw = s->sum_bw_x2 / s->sum_x2;
    if (!isfinite(bw) || !(bw > 0))
        return false;
    if (s->n >= 2) {
        r->lo = s->lo < bw ? s->lo : bw;
        r->hi = s->hi > bw ? s->hi : bw;
    } else {
        r->lo = bw * (r->lo / r->bw);
        r->hi = bw * (r->hi / r->bw);
    }
    r->bw = bw;
    r->source = "format";
    r->n_models = s->n;
    return true;
}

void rl_pred_rate_for(const rl_pred_fit *f, const char *label, rl_pred_rate *r)
{
    *r = (rl_pred_rate){f->bw_bytes_s, f->bw_lo_bytes_s, f->bw_hi_bytes_s, "fit", f->n_points};
    int g = format_of(f, label);
    if (g >= 0) {
        pred_sums s = sums_of(f, g, NONE);
        format_rate(&s, r);
    }
}

void rl_pred_rate_without(const rl_pred_fit *f, const char *label, double bytes, double bw,
                          rl_pred_rate *r)
{
    int g = format_of(f, label);
    size_t self = NONE;
    for (size_t i = 0; i < f->n_fitted && self == NONE; i++)
        if (f->fitted[i].format == g && f->fitted[i].bytes == bytes && f->fitted[i].bw == bw)
            self = i;
    if (self == NONE) {
        rl_pred_rate_for(f, label, r);
        return;
    }
    /* the fit over all the others: the bundle's fit with the model taken out */
    pred_sums all = sums_of(f, -1, self);
    double abw = all.n > 0 && all.sum_x2 > 0 ? all.sum_bw_x2 / all.sum_x2 : NAN;
    if (!isfinite(abw) || !(abw > 0)) {
        *r = (rl_pred_rate){NAN, NAN, NAN, "fit", 0};
        return;
    }
    *r =
        (rl_pred_rate){abw, all.lo < abw ? all.lo : abw, all.hi > abw ? all.hi : abw, "fit", all.n};
    if (g >= 0) {
        pred_sums s = sums_of(f, g, self);
        format_rate(&s, r);
    }
}

/* The median us_per_kv_byte of analysis.depth_fits (those that hold one). */
static void depth_cost_from(const cJSON *an, rl_pred_fit *f)
{
    double v[RL_PRED_MAX_MODELS];
    size_t n = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(an, "depth_fits"))
    {
        double c;
        if (n < RL_PRED_MAX_MODELS && rl_json_get_num(d, "us_per_kv_byte", &c) && isfinite(c) &&
            c >= 0)
            v[n++] = c;
    }
    rl_stats_summary s;
    rl_error e;
    if (n == 0 || rl_stats_summarize(v, n, &s, &e) != RL_OK || !s.has_center)
        return;
    f->has_depth_cost = true;
    f->n_depth_models = n;
    f->us_per_kv_byte = s.median;
}

rl_status rl_pred_fit_from_bundle(const cJSON *b, const char *name, rl_pred_fit *f, rl_error *err)
{
    memset(f, 0, sizeof *f);
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(b, "analysis");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(an, "fit");
    if (!rl_json_available(an, "fit")) {
        const char *why = rl_json_get_str(fit, "reason");
        return rl_fail(err, RL_EINPUT,
                       "%s: the bundle has no fit to predict from (%s); measure at least two "
                       "models of different sizes (llama-roofline diagnose)",
                       name, why ? why : "no analysis");
    }
    double bw = 0, np = 0;
    const char *conv = rl_json_get_str(fit, "bytes_convention");
    if (!rl_json_get_num(fit, "bw_bytes_s", &bw) || !isfinite(bw) || !(bw > 0) || !conv ||
        !rl_json_get_num(fit, "n_points", &np))
        return rl_fail(err, RL_EINPUT,
                       "%s: analysis.fit lacks bw_bytes_s, n_points or bytes_convention; the "
                       "bundle is damaged (llama-roofline validate %s)",
                       name, name);
    f->bw_bytes_s = bw;
    f->n_points = (size_t)np;
    f->has_r2 = rl_json_get_num(fit, "r2", &f->r2);
    f->conv = strcmp(conv, "streamed") == 0 ? RL_AN_BYTES_STREAMED : RL_AN_BYTES_RESIDENT;
    f->bw_lo_bytes_s = f->bw_hi_bytes_s = bw;
    bool first = true;
    const cJSON *am;
    cJSON_ArrayForEach(am, cJSON_GetObjectItemCaseSensitive(an, "models"))
    {
        bool in_fit = false;
        double gbs, bytes;
        if (!rl_json_get_bool(am, "in_fit", &in_fit) || !in_fit ||
            !rl_json_get_num(am, "decode_bw_GBs", &gbs) ||
            !rl_json_get_num(am, "bytes_per_token", &bytes) || !(gbs > 0) || !(bytes > 0))
            continue;
        double e = gbs * 1e9;
        if (first || e < f->bw_lo_bytes_s)
            f->bw_lo_bytes_s = e;
        if (first || e > f->bw_hi_bytes_s)
            f->bw_hi_bytes_s = e;
        if (first || bytes < f->min_bytes)
            f->min_bytes = bytes;
        if (first || bytes > f->max_bytes)
            f->max_bytes = bytes;
        first = false;
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(am, "operating_point");
        double t;
        if (rl_json_get_num(op, "threads", &t) && t >= 1 && t <= INT_MAX) {
            bool seen = false;
            for (size_t i = 0; i < f->n_threads; i++)
                seen |= f->threads[i] == (int)t;
            if (!seen && f->n_threads < RL_PRED_MAX_THREADS)
                f->threads[f->n_threads++] = (int)t;
        }
        const cJSON *bm = rl_bundle_model(b, rl_json_get_str(am, "id"), NULL);
        const char *lab = rl_json_get_str(cJSON_GetObjectItemCaseSensitive(bm, "gguf"), "label");
        size_t ll = strlen(f->labels);
        if (lab && *lab && !rl_pred_label_listed(f->labels, lab) &&
            ll + strlen(lab) + 3 < sizeof f->labels)
            snprintf(f->labels + ll, sizeof f->labels - ll, "%s%s", ll ? ", " : "", lab);
        rl_pred_fit_add(f, lab, bytes, e);
        const char *src =
            rl_json_get_str(cJSON_GetObjectItemCaseSensitive(bm, "bytes_per_token"), "source");
        if (src && strstr(src, "file size"))
            f->resident_is_file = true;
    }
    /* the line passes between its points: keep the slope inside the interval */
    if (f->bw_lo_bytes_s > bw)
        f->bw_lo_bytes_s = bw;
    if (f->bw_hi_bytes_s < bw)
        f->bw_hi_bytes_s = bw;
    qsort(f->threads, f->n_threads, sizeof f->threads[0], int_cmp);
    depth_cost_from(an, f);
    rl_pred_roofs_from_bundle(b, f);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(an, "verdict");
    const char *label = rl_json_available(an, "verdict") ? rl_json_get_str(v, "label") : NULL;
    snprintf(f->verdict, sizeof f->verdict, "%s", label ? label : "");
    return RL_OK;
}

void rl_pred_threads_list(const rl_pred_fit *f, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < f->n_threads && o < cap; i++) {
        int w = snprintf(buf + o, cap - o, "%s%d", i ? ", " : "", f->threads[i]);
        o = w > 0 ? o + (size_t)w : o;
    }
}
