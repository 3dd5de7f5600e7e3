/* SPDX-License-Identifier: MIT */
/* analysis_depth.c: the analysis's long-context fits (analysis.h rl_an_depth_fit): for each
 * model with long-context rows, its per-token time against depth (depth_fit.h) from those rows
 * and its depth-0 rate at the same threads, the cost of a KV byte, and the fit without the
 * deepest depth checked against it. JSON: analysis.depth_fits[] (docs/BUNDLE.md).
 * Owns nothing: the fits live in the result (freed by rl_an_result_free). */
#include "analyse/analysis_depth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"

/* The model's points: its depth-0 rate (once) and every long-context row; how many. */
static size_t points_of(const rl_an_result *r, size_t first, rl_depth_pt *pts, double *kv)
{
    size_t n = 0;
    const rl_an_long_context *lc = &r->long_context[first];
    if (lc->has_pct_of_empty)
        pts[n++] = (rl_depth_pt){0, lc->empty_ts};
    *kv = 0;
    for (size_t i = first; i < r->n_long_context && n < RL_DEPTH_FIT_MAX_POINTS; i++) {
        const rl_an_long_context *row = &r->long_context[i];
        if (row->model != lc->model)
            break;
        pts[n++] = (rl_depth_pt){row->depth, row->decode_ts};
        if (row->has_prediction && row->depth > 0)
            *kv = row->kv_bytes / row->depth;
    }
    return n;
}

/* The fit without the deepest depth, predicting it: three or more distinct depths. */
static void check_deepest(rl_an_depth_fit *d, const rl_depth_pt *pts, size_t n)
{
    double deepest = d->fit.max_depth, below = -1, measured = 0;
    for (size_t i = 0; i < n; i++) {
        if (pts[i].depth < deepest && pts[i].depth > below)
            below = pts[i].depth;
        if (pts[i].depth == deepest)
            measured = pts[i].tok_s; /* the last row at that depth */
    }
    rl_depth_fit shorter;
    rl_depth_fit_make(pts, n, below, &shorter);
    double pred = rl_depth_fit_tok_s(&shorter, deepest);
    if (below < 0 || !shorter.ok || !(pred > 0) || !(measured > 0))
        return;
    d->has_check = true;
    d->check_depth = deepest;
    d->check_from_depth = below;
    d->check_predicted_ts = pred;
    d->check_measured_ts = measured;
    d->check_error_pct = 100.0 * (pred - measured) / measured;
}

rl_status rl_an_depth_fits(rl_an_result *r, rl_error *err)
{
    for (size_t i = 0; i < r->n_long_context;) {
        size_t model = r->long_context[i].model, next = i;
        while (next < r->n_long_context && r->long_context[next].model == model)
            next++;
        rl_an_depth_fit *df = realloc(r->depth_fits, (r->n_depth_fits + 1) * sizeof *df);
        if (!df)
            return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
        r->depth_fits = df;
        rl_an_depth_fit *d = &df[r->n_depth_fits++];
        memset(d, 0, sizeof *d);
        d->model = model;
        d->threads = r->long_context[i].threads;
        rl_depth_pt pts[RL_DEPTH_FIT_MAX_POINTS];
        double kv;
        size_t n = points_of(r, i, pts, &kv);
        rl_depth_fit_make(pts, n, -1, &d->fit);
        d->has_kv = d->fit.ok && kv > 0;
        d->us_per_kv_byte = d->has_kv ? d->fit.slope_us / kv : 0;
        if (d->fit.ok)
            check_deepest(d, pts, n);
        i = next;
    }
    return RL_OK;
}

static bool check_json(cJSON *o, const rl_an_depth_fit *d)
{
    if (!d->has_check)
        return rl_json_add_unavailable(o, "check",
                                       "fewer than three depths: none to leave out and predict");
    cJSON *c = cJSON_CreateObject();
    bool ok = c && rl_json_add_bool(c, "available", true) && rl_json_add_str(c, "kind", "derived");
    ok = ok && rl_json_add_num(c, "depth", d->check_depth);
    ok = ok && rl_json_add_num(c, "from_max_depth", d->check_from_depth);
    ok = ok && rl_json_add_num(c, "predicted_tok_s", d->check_predicted_ts);
    ok = ok && rl_json_add_num(c, "measured_tok_s", d->check_measured_ts);
    ok = ok && rl_json_add_num(c, "error_pct", d->check_error_pct);
    if (!ok) {
        cJSON_Delete(c);
        return false;
    }
    return rl_json_attach(o, "check", c);
}

static cJSON *one_json(const rl_an_result *r, const rl_an_depth_fit *d)
{
    const rl_depth_fit *f = &d->fit;
    cJSON *o = f->ok ? cJSON_CreateObject() : rl_json_unavailable(f->why);
    bool ok = o && rl_json_add_str(o, "model", r->models[d->model].id);
    ok = ok && rl_json_add_num(o, "threads", d->threads);
    if (ok && f->ok) {
        ok = rl_json_add_bool(o, "available", true) && rl_json_add_str(o, "kind", "derived") &&
             rl_json_add_num(o, "n_points", (double)f->n_points);
        ok = ok && rl_json_add_num(o, "max_depth", f->max_depth);
        ok = ok && rl_json_add_num(o, "tau0_us", f->tau0_us);
        ok = ok && rl_json_add_num(o, "slope_us_per_token", f->slope_us);
        ok = ok && rl_json_add_num_or_null(o, "r2", f->r2, f->has_r2);
        ok = ok && (d->has_kv ? rl_json_add_num(o, "us_per_kv_byte", d->us_per_kv_byte)
                              : rl_json_add_unavailable(o, "us_per_kv_byte",
                                                        "KV cache bytes per token unknown"));
        ok = ok && check_json(o, d);
    }
    return rl_json_kept(o, ok);
}

cJSON *rl_an_depth_fits_json(const rl_an_result *r)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < r->n_depth_fits; i++) {
        if (!rl_json_push(a, one_json(r, &r->depth_fits[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}
