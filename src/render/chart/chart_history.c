/* SPDX-License-Identifier: MIT */
/* chart_history.c: a history's trend chart (owner: history). See history_chart.h.
 * At most RL_CHART_MAX_SERIES series drawn; a series' line goes through every point, its
 * markers sit at every point of a short series and at the listed ones of a long one.
 * Ownership: the trend struct owns its point arrays and strings (tr_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "render/chart/history_chart.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    const rl_hist_series *s;
    char *label; /* legend: the key columns that tell the series apart */
    size_t *listed, n_listed;
} tr_series;

typedef struct {
    const rl_hist_chart_src *src;
    tr_series s[RL_CHART_MAX_SERIES];
    size_t n, skipped;
    double ymax, legend_h;
} trend;

static void tr_free(void *data)
{
    trend *d = data;
    for (size_t i = 0; i < d->n; i++) {
        free(d->s[i].label);
        free(d->s[i].listed);
    }
}

/* The key columns of s that differ from the other series' (or all of them when only one). */
static char *series_label(const rl_hist_chart_src *src, const rl_hist_series *s)
{
    rl_sbuf b = {0};
    for (size_t k = 0; k < s->row.n_keys; k++) {
        bool varies = false;
        for (size_t j = 0; j < src->n_series && !varies; j++) {
            const rl_cmp_row *o = &src->h->series[src->series[j]].row;
            varies = k < o->n_keys && strcmp(o->key_values[k], s->row.key_values[k]) != 0;
        }
        if (varies)
            rl_sbuf_printf(&b, "%s%.40s %.60s", b.len ? ", " : "", s->row.key_names[k],
                           s->row.key_values[k]);
    }
    if (b.len == 0)
        rl_sbuf_printf(&b, "%.80s", s->row.subject);
    char *t = rl_sbuf_take(&b);
    char *c = t ? rl_chart_clean(t, RL_CHART_LABEL_CHARS) : NULL;
    free(t);
    return c;
}

static rl_status tr_read(const rl_chart_kind *kind, const void *src_v, void *data, rl_error *err)
{
    const rl_hist_chart_src *src = src_v;
    trend *d = data;
    (void)kind;
    d->src = src;
    for (size_t i = 0; i < src->n_series; i++) {
        const rl_hist_series *s = &src->h->series[src->series[i]];
        if (s->n_pts == 0)
            continue;
        if (d->n == RL_CHART_MAX_SERIES) {
            d->skipped++;
            continue;
        }
        tr_series *t = &d->s[d->n++];
        t->s = s;
        t->label = series_label(src, s);
        t->listed = rl_calloc(s->n_pts, sizeof *t->listed);
        if (!t->label || !t->listed)
            return rl_fail(err, RL_EINTERNAL, "trend chart: out of memory");
        t->n_listed = rl_hist_listed(s, src->all, src->h->max_listed, t->listed);
        for (size_t k = 0; k < s->n_pts; k++)
            if (rl_chart_sane(s->pts[k].cell.mean))
                d->ymax = fmax(d->ymax, s->pts[k].cell.mean);
    }
    if (d->n == 0 || !(d->ymax > 0))
        return rl_fail(err, RL_NOTHING, "trend chart: no point to draw");
    return RL_OK;
}

static size_t tr_keys(const trend *d, rl_chart_key *keys)
{
    for (size_t i = 0; i < d->n; i++)
        keys[i] = rl_chart_series_key(d->s[i].label, i, false);
    return d->n;
}

static double tr_legend_h(rl_chart_canvas *cv, void *ctx)
{
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    size_t n = tr_keys(ctx, keys);
    return rl_chart_legend(cv, keys, n, 16, 0, RL_CHART_W - 32, false);
}

#define TR_PLOT_H 240.0

static void tr_series_draw(rl_chart_canvas *cv, const trend *d, size_t i, const rl_chart_scale *xs,
                           const rl_chart_scale *ys)
{
    const tr_series *t = &d->s[i];
    size_t n = t->s->n_pts;
    double *px = rl_calloc(n, sizeof *px), *py = rl_calloc(n, sizeof *py);
    if (!px || !py) {
        cv->failed = true;
        free(px);
        free(py);
        return;
    }
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        double v = t->s->pts[k].cell.mean;
        if (!rl_chart_sane(v))
            continue;
        px[m] = rl_chart_map(xs, (double)(t->s->pts[k].input + 1));
        py[m] = rl_chart_map(ys, v);
        m++;
    }
    uint32_t c = rl_chart_series_color(i);
    rl_chart_polyline(cv, px, py, m, c, 1.6, false);
    bool every = n <= RL_HIST_CHART_ALL_MARKERS;
    for (size_t j = 0; j < (every ? n : t->n_listed); j++) {
        const rl_hist_point *p = &t->s->pts[every ? j : t->listed[j]];
        if (!rl_chart_sane(p->cell.mean))
            continue;
        double x = rl_chart_map(xs, (double)(p->input + 1)), y = rl_chart_map(ys, p->cell.mean);
        rl_chart_marker(cv, rl_chart_series_shape(i), x, y, 3.2, c, !p->cell.disturbed);
        if (p->cell.verdict == RL_CMP_SLOWER || p->cell.verdict == RL_CMP_FASTER)
            rl_chart_marker(cv, RL_CHART_CIRCLE, x, y, 7.5,
                            p->cell.verdict == RL_CMP_SLOWER ? RL_CHART_VERMILLION : RL_CHART_GREEN,
                            false);
    }
    free(px);
    free(py);
}

static void tr_draw(rl_chart_canvas *cv, void *ctx)
{
    const trend *d = ctx;
    size_t n_in = d->src->h->n_inputs;
    rl_chart_rect plot = {0, 16, 0, TR_PLOT_H};
    rl_chart_scale xs, ys;
    rl_chart_scale_lin(&ys, 0, d->ymax * 1.05, true, plot.y + plot.h, plot.y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(&ys, &yt);
    plot.x = 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = cv->w - plot.x - 20;
    if (n_in <= 24) { /* a tick at every bundle */
        double tv[24];
        for (size_t i = 0; i < n_in; i++)
            tv[i] = (double)(i + 1);
        rl_chart_scale_pad(&xs, 1, (double)(n_in > 1 ? n_in : 2), 0.03, plot.x, plot.x + plot.w);
        rl_chart_ticks_at(tv, n_in, false, &xt);
    } else {
        rl_chart_scale_lin(&xs, 1, (double)n_in, true, plot.x, plot.x + plot.w);
        rl_chart_ticks_nice(&xs, &xt);
    }
    rl_chart_axis_y(cv, &ys, &yt, &plot, d->s[0].s->row.unit);
    rl_chart_axis_x(cv, &xs, &xt, &plot, "bundle, in time order (1 = the oldest)");
    for (size_t i = 0; i < d->n; i++)
        tr_series_draw(cv, d, i, &xs, &ys);
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    size_t n = tr_keys(d, keys);
    rl_chart_legend(cv, keys, n, 16, plot.y + plot.h + 46, cv->w - 32, true);
}

static rl_status tr_table(rl_chart *c, const void *data, rl_error *err)
{
    const trend *d = data;
    static const char *const cols[] = {"series", "bundle number", "bundle", "mean", "verdict"};
    rl_status st = rl_chart_table_cols(c, 5, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t j = 0; st == RL_OK && j < d->s[i].n_listed; j++) {
            size_t k = d->s[i].listed[j];
            const rl_hist_point *p = &d->s[i].s->pts[k];
            char num[32], mean[48];
            rl_snprintf(num, sizeof num, "%zu", p->input + 1);
            rl_chart_fmt_num(mean, sizeof mean, p->cell.mean);
            const char *row[] = {d->s[i].label, num, d->src->h->inputs[p->input].label, mean,
                                 k == 0 ? "first" : rl_cmp_verdict_word(p->cell.verdict)};
            st = rl_chart_table_row(c, row, err);
        }
    return st;
}

static char *tr_desc(const rl_chart_kind *kind, const void *data)
{
    const trend *d = data;
    (void)kind;
    char more[64] = "";
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", d->skipped);
    return rl_asprintf("The mean of each bundle in %s against its place in time order, one "
                       "line per series (%zu%s); a ring marks a step judged slower (vermillion) "
                       "or faster (green), a hollow marker a disturbed measurement. The table "
                       "lists the points the trend table lists.",
                       d->s[0].s->row.unit, d->n, more);
}

static const rl_chart_kind tr_kind = {
    .id = "trend",
    .title = "Trend",
    .what = "trend chart",
    .size = sizeof(trend),
    .read = tr_read,
    .desc = tr_desc,
    .table = tr_table,
    .top_h = 16 + TR_PLOT_H + 46,
    .legend_h = tr_legend_h,
    .bottom_h = 10,
    .draw = tr_draw,
    .free = tr_free,
};

rl_status rl_chart_history(const rl_hist_chart_src *src, rl_chart *out, rl_error *err)
{
    rl_chart_kind k = tr_kind;
    k.id = src->id;
    k.title = src->title;
    return rl_chart_run(&k, src, out, err);
}
