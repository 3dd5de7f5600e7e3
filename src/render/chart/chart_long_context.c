/* SPDX-License-Identifier: MIT */
/* chart_long_context.c: decode with a filled KV cache, against the bytes-only prediction
 * (owner: chart).
 *
 * x = KV-cache depth in tokens on the log2-like axis (0 at the left edge, then 512, 2k, 8k
 * about evenly), y = decode rate as % of the same model's empty-cache rate (depth 0 = 100%).
 * Per model (analysis.long_context[] rows, grouped by model, colour and marker by its position
 * in models[]): the measured percentage as a solid line with points, and the bytes-only
 * prediction weights / (weights + depth x KV bytes per token) dashed in the same colour; the
 * gap is what bytes alone do not explain. Models are labelled at the right end of their
 * measured line (spread apart so they never overlap); a small key explains solid and dashed.
 *
 * Table: model, depth, threads, measured %, predicted %, decode tok/s; depth 0 rows carry the
 * 100% both lines start from. Ownership: the lc struct owns its strings (lc_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    char *label, *name, *id;
    size_t series, n;
    double depth[RL_CHART_MAX_POINTS], meas[RL_CHART_MAX_POINTS], pred[RL_CHART_MAX_POINTS];
    double tps[RL_CHART_MAX_POINTS], empty_tps;
    int64_t threads;
} lc_series; /* point 0 is depth 0 (100%); pred < 0: unavailable */

typedef struct {
    lc_series s[RL_CHART_MAX_SERIES];
    size_t n, skipped;
} lc;

static void lc_free(void *data)
{
    lc *d = data;
    for (size_t i = 0; i < d->n; i++) {
        free(d->s[i].label);
        free(d->s[i].name);
        free(d->s[i].id);
    }
}

static lc_series *series_for(lc *d, const cJSON *bundle, const char *id, rl_status *st)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->s[i].id, id) == 0)
            return &d->s[i];
    if (d->n == RL_CHART_MAX_SERIES) {
        d->skipped++;
        return NULL;
    }
    lc_series *s = &d->s[d->n++];
    memset(s, 0, sizeof *s);
    size_t series = d->n - 1;
    const cJSON *m = rl_bundle_model(bundle, id, &series);
    const char *nm = rl_json_get_str(m, "name");
    s->series = series;
    s->id = rl_strdup(id);
    s->label = rl_chart_model_label(m, id);
    s->name = rl_chart_clean(nm ? nm : id, RL_CHART_CELL_CHARS);
    s->n = 1; /* depth 0: 100% */
    s->meas[0] = s->pred[0] = 100;
    if (!s->id || !s->label || !s->name)
        *st = RL_EINTERNAL;
    return s;
}

static rl_status lc_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    lc *d = data;
    (void)kind;
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(bundle, "analysis");
    const cJSON *row;
    rl_status st = RL_OK;
    cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(an, "long_context"))
    {
        const char *id = rl_json_get_str(row, "model");
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(row, "pct_of_empty_cache");
        const cJSON *bp = cJSON_GetObjectItemCaseSensitive(row, "bytes_only_prediction");
        int64_t depth, threads = 0;
        double pct, pred = -1, tps = 0, empty = 0;
        bool avail = true;
        if (!id || !rl_json_get_i64(row, "depth", &depth) || depth < 1 || depth > 1000000000 ||
            (rl_json_get_bool(pe, "available", &avail) && !avail) ||
            !rl_json_get_num(pe, "pct", &pct) || !rl_chart_sane(pct) || pct > 1e6)
            continue;
        avail = true;
        if (!(rl_json_get_bool(bp, "available", &avail) && !avail) &&
            (!rl_json_get_num(bp, "pct", &pred) || !rl_chart_sane(pred) || pred > 1e6))
            pred = -1;
        rl_json_get_i64(row, "threads", &threads);
        if (!rl_json_get_num(row, "decode_tok_s", &tps) || !rl_chart_sane(tps))
            tps = 0;
        if (!rl_json_get_num(pe, "empty_cache_tok_s", &empty) || !rl_chart_sane(empty))
            empty = 0;
        lc_series *s = series_for(d, bundle, id, &st);
        if (st != RL_OK)
            return rl_fail(err, st, "long-context chart: out of memory");
        if (!s || s->n == RL_CHART_MAX_POINTS)
            continue;
        size_t k = 1; /* keep depth order; a depth seen before keeps its first row */
        while (k < s->n && s->depth[k] < (double)depth)
            k++;
        if (k < s->n && s->depth[k] == (double)depth)
            continue;
        size_t tail = s->n - k;
        memmove(s->depth + k + 1, s->depth + k, tail * sizeof s->depth[0]);
        memmove(s->meas + k + 1, s->meas + k, tail * sizeof s->meas[0]);
        memmove(s->pred + k + 1, s->pred + k, tail * sizeof s->pred[0]);
        memmove(s->tps + k + 1, s->tps + k, tail * sizeof s->tps[0]);
        s->depth[k] = (double)depth;
        s->meas[k] = pct;
        s->pred[k] = pred;
        s->tps[k] = tps;
        s->n++;
        if (threads > 0 && threads <= 1000000)
            s->threads = threads;
        if (empty > 0)
            s->empty_tps = s->tps[0] = empty;
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "long-context chart: no long-context runs");
    return RL_OK;
}

static double lc_label_w(rl_chart_canvas *cv, const lc *d)
{
    double w = 0;
    for (size_t i = 0; i < d->n; i++)
        w = fmax(w, rl_chart_text_width(cv, d->s[i].label, RL_CHART_FS_LABEL, false));
    return fmin(w, 190);
}

#define LC_H 400.0

static void lc_draw(rl_chart_canvas *cv, void *ctx)
{
    const lc *d = ctx;
    double dmin = 1e300, dmax = 0, ymax = 100;
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 1; k < d->s[i].n; k++) {
            dmin = fmin(dmin, d->s[i].depth[k]);
            dmax = fmax(dmax, d->s[i].depth[k]);
            ymax = fmax(ymax, fmax(d->s[i].meas[k], d->s[i].pred[k]));
        }
    rl_chart_rect plot = {0, 16, 0, LC_H - 16 - 84};
    rl_chart_scale xs, ys;
    rl_chart_scale_lin(&ys, 0, ymax * 1.04, true, plot.y + plot.h, plot.y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(&ys, &yt);
    plot.x = 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = cv->w - plot.x - 14 - lc_label_w(cv, d) - 10;
    rl_chart_scale_depth(&xs, dmax, dmin, plot.x + 8, plot.x + plot.w - 8);
    double tv[RL_CHART_MAX_TICKS];
    size_t nt = 0;
    tv[nt++] = 0;
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 1; k < d->s[i].n && nt < RL_CHART_MAX_TICKS; k++)
            tv[nt++] = d->s[i].depth[k];
    rl_chart_ticks_at(tv, nt, true, &xt);
    rl_chart_axis_y(cv, &ys, &yt, &plot, "decode, % of the empty-cache rate");
    rl_chart_axis_x(cv, &xs, &xt, &plot, "KV-cache depth (tokens, log2-like axis)");

    double ends[RL_CHART_MAX_SERIES], placed[RL_CHART_MAX_SERIES];
    for (size_t i = 0; i < d->n; i++) {
        const lc_series *s = &d->s[i];
        uint32_t c = rl_chart_series_color(s->series);
        double px[RL_CHART_MAX_POINTS], py[RL_CHART_MAX_POINTS], qx[RL_CHART_MAX_POINTS],
            qy[RL_CHART_MAX_POINTS];
        size_t nq = 0;
        for (size_t k = 0; k < s->n; k++) {
            px[k] = rl_chart_map(&xs, s->depth[k]);
            py[k] = rl_chart_map(&ys, s->meas[k]);
            if (s->pred[k] >= 0) {
                qx[nq] = px[k];
                qy[nq++] = rl_chart_map(&ys, s->pred[k]);
            }
        }
        rl_chart_polyline(cv, qx, qy, nq, c, 1.5, true);
        rl_chart_polyline(cv, px, py, s->n, c, 2, false);
        for (size_t k = 0; k < s->n; k++)
            rl_chart_marker(cv, rl_chart_series_shape(s->series), px[k], py[k], 3.5, c, true);
        ends[i] = py[s->n - 1] + 0.35 * RL_CHART_FS_LABEL;
    }
    rl_chart_spread(ends, d->n, RL_CHART_FS_LABEL + 2, plot.y + RL_CHART_FS_LABEL, plot.y + plot.h,
                    placed);
    for (size_t i = 0; i < d->n; i++)
        rl_chart_text(cv, d->s[i].label, plot.x + plot.w + 8, placed[i], RL_CHART_FS_LABEL, false,
                      RL_CHART_START, 0, "label");
    rl_chart_key keys[2] = {
        {"measured", RL_CHART_KEY_LINE, RL_CHART_GREY, RL_CHART_CIRCLE, false, true},
        {"predicted from bytes alone (weights + KV cache)", RL_CHART_KEY_LINE, RL_CHART_GREY,
         RL_CHART_CIRCLE, true, false}};
    rl_chart_legend(cv, keys, 2, plot.x, plot.y + plot.h + 48, plot.w, true);
}

static rl_status lc_table(rl_chart *c, const void *data, rl_error *err)
{
    const lc *d = data;
    static const char *const cols[] = {"model",
                                       "depth (tokens)",
                                       "threads",
                                       "measured (% of empty cache)",
                                       "bytes-only prediction (%)",
                                       "decode (tok/s)"};
    rl_status st = rl_chart_table_cols(c, 6, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t k = 0; st == RL_OK && k < d->s[i].n; k++) {
            const lc_series *s = &d->s[i];
            char dep[32], th[32] = "", me[48], pr[48] = "", tps[48] = "";
            rl_chart_fmt_num(dep, sizeof dep, s->depth[k]);
            if (s->threads)
                rl_snprintf(th, sizeof th, "%lld", (long long)s->threads);
            rl_chart_fmt_num(me, sizeof me, s->meas[k]);
            if (s->pred[k] >= 0)
                rl_chart_fmt_num(pr, sizeof pr, s->pred[k]);
            if (s->tps[k] > 0)
                rl_chart_fmt_num(tps, sizeof tps, s->tps[k]);
            const char *row[] = {s->name, dep, th, me, pr, tps};
            st = rl_chart_table_row(c, row, err);
        }
    return st;
}

static char *lc_desc(const rl_chart_kind *kind, const void *data)
{
    const lc *d = data;
    char more[64] = "";
    (void)kind;
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", d->skipped);
    return rl_asprintf(
        "Decode rate as %% of the empty-cache rate against KV-cache depth in tokens "
        "(log2-like axis, 0 at the left) for %zu model%s%s: measured solid with points, "
        "the prediction from bytes alone, weights / (weights + depth x KV bytes per "
        "token), dashed.",
        d->n, d->n == 1 ? "" : "s", more);
}

static const rl_chart_kind lc_kind = {
    .id = "long-context",
    .title = "Long context: decode as the KV cache fills",
    .what = "long-context chart",
    .size = sizeof(lc),
    .read = lc_read,
    .desc = lc_desc,
    .table = lc_table,
    .top_h = LC_H,
    .draw = lc_draw,
    .free = lc_free,
};

rl_status rl_chart_long_context(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&lc_kind, bundle, out, err);
}
