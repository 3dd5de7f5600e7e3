/* SPDX-License-Identifier: MIT */
/* chart_threads.c: the thread sweep, decode and prefill side by side (owner: chart).
 *
 * x = threads, y = tok/s from zero, two panels because prefill runs 5-10x faster than decode
 * and one scale would flatten decode. One line per model (its depth-0 runs with status ok;
 * rates as the analysis reads them, chart_data.c), colour and marker by its position in
 * models[], named in a legend below (direct labels at the line ends would need a margin in
 * both panels). The knee (analysis.knee: the most common per-model knee, the fewest threads
 * within 2% of the best decode) is a dashed vertical line in the decode panel with a short
 * label.
 *
 * Table: model, threads, decode, prefill per point; a last row for the knee.
 * Ownership: the thr struct owns its strings (thr_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    char *label, *name;
    size_t series, n;
    double t[RL_CHART_MAX_POINTS], dec[RL_CHART_MAX_POINTS], pre[RL_CHART_MAX_POINTS];
} thr_series; /* dec/pre 0: not measured */

typedef struct {
    thr_series s[RL_CHART_MAX_SERIES];
    size_t n, skipped;
    bool has_knee;
    int64_t knee;
} thr;

static void thr_free(void *data)
{
    thr *d = data;
    for (size_t i = 0; i < d->n; i++) {
        free(d->s[i].label);
        free(d->s[i].name);
    }
}

/* Add the point (t, dec, pre) in thread order; a thread count seen before keeps its first
 * run. */
static void add_point(thr_series *s, double t, double dec, double pre)
{
    size_t k = 0;
    while (k < s->n && s->t[k] < t)
        k++;
    if ((k < s->n && s->t[k] == t) || s->n == RL_CHART_MAX_POINTS)
        return;
    memmove(s->t + k + 1, s->t + k, (s->n - k) * sizeof s->t[0]);
    memmove(s->dec + k + 1, s->dec + k, (s->n - k) * sizeof s->dec[0]);
    memmove(s->pre + k + 1, s->pre + k, (s->n - k) * sizeof s->pre[0]);
    s->t[k] = t;
    s->dec[k] = dec;
    s->pre[k] = pre;
    s->n++;
}

static rl_status thr_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    thr *d = data;
    (void)kind;
    const cJSON *m;
    size_t idx = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(bundle, "models"))
    {
        size_t series = idx++;
        if (d->n == RL_CHART_MAX_SERIES) {
            d->skipped++; /* counted without looking: a model past the cap is not read */
            continue;
        }
        thr_series tmp = {0};
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(m, "runs"))
        {
            const char *st = rl_json_get_str(run, "status");
            int64_t t, dep = 0;
            if ((st && strcmp(st, "ok") != 0) || !rl_json_get_i64(run, "threads", &t) || t < 1 ||
                t > 1000000 || (rl_json_get_i64(run, "depth", &dep) && dep != 0))
                continue;
            double dec = 0, pre = 0;
            bool hd = rl_chart_rate(cJSON_GetObjectItemCaseSensitive(run, "decode"), &dec);
            bool hp = rl_chart_rate(cJSON_GetObjectItemCaseSensitive(run, "prefill"), &pre);
            if (hd || hp)
                add_point(&tmp, (double)t, hd ? dec : 0, hp ? pre : 0);
        }
        if (tmp.n == 0)
            continue;
        thr_series *s = &d->s[d->n++];
        *s = tmp;
        s->series = series;
        const char *id = rl_json_get_str(m, "id");
        const char *nm = rl_json_get_str(m, "name");
        s->label = rl_chart_model_label(m, id ? id : "?");
        s->name = rl_chart_clean(nm ? nm : id, RL_CHART_CELL_CHARS);
        if (!s->label || !s->name)
            return rl_fail(err, RL_EINTERNAL, "threads chart: out of memory");
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "threads chart: no depth-0 run has a rate");
    const cJSON *knee = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(bundle, "analysis"), "knee");
    bool avail = false;
    if (rl_json_get_bool(knee, "available", &avail) && avail &&
        rl_json_get_i64(knee, "threads", &d->knee) && d->knee >= 1 && d->knee <= 1000000)
        d->has_knee = true;
    return RL_OK;
}

static size_t thr_keys(const thr *d, rl_chart_key *keys)
{
    for (size_t i = 0; i < d->n; i++) {
        keys[i] = rl_chart_series_key(d->s[i].label, d->s[i].series, false);
    }
    return d->n;
}

static double thr_legend_h(rl_chart_canvas *cv, void *ctx)
{
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    size_t n = thr_keys(ctx, keys);
    return rl_chart_legend(cv, keys, n, 16, 0, RL_CHART_W - 32, false);
}

#define THR_PLOT_H 270.0

static void panel(rl_chart_canvas *cv, const thr *d, bool decode, double x0, double w)
{
    double tmin = 1e300, tmax = 0, ymax = 0;
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->s[i].n; k++) {
            double y = decode ? d->s[i].dec[k] : d->s[i].pre[k];
            if (y <= 0)
                continue;
            tmin = fmin(tmin, d->s[i].t[k]);
            tmax = fmax(tmax, d->s[i].t[k]);
            ymax = fmax(ymax, y);
        }
    rl_chart_rect plot = {0, 30, 0, THR_PLOT_H};
    rl_chart_scale xs, ys;
    rl_chart_scale_lin(&ys, 0, ymax > 0 ? ymax * 1.05 : 1, true, plot.y + plot.h, plot.y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(&ys, &yt);
    plot.x = x0 + 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = x0 + w - plot.x;
    rl_chart_text(cv, decode ? "Decode" : "Prefill", plot.x, 18, RL_CHART_FS_AXIS, true,
                  RL_CHART_START, 0, "heading");
    if (ymax <= 0) {
        rl_chart_text(cv, "not measured", plot.x + plot.w / 2, plot.y + plot.h / 2,
                      RL_CHART_FS_NOTE, false, RL_CHART_MIDDLE, 0, "note");
        return;
    }
    rl_chart_scale_pad(&xs, tmin, tmax, 0.06, plot.x, plot.x + plot.w);
    double tv[RL_CHART_MAX_TICKS * 4];
    size_t nt = 0;
    for (size_t i = 0; i < d->n && nt < sizeof tv / sizeof tv[0]; i++)
        for (size_t k = 0; k < d->s[i].n && nt < sizeof tv / sizeof tv[0]; k++)
            tv[nt++] = d->s[i].t[k];
    rl_chart_ticks_at(tv, nt, false, &xt);
    if (xt.n >= RL_CHART_MAX_TICKS) /* too many thread counts: regular ticks instead */
        rl_chart_ticks_nice(&xs, &xt);
    rl_chart_axis_y(cv, &ys, &yt, &plot, "tok/s");
    rl_chart_axis_x(cv, &xs, &xt, &plot, "threads");

    if (decode && d->has_knee) {
        double kx = rl_chart_map(&xs, (double)d->knee);
        if (kx >= plot.x && kx <= plot.x + plot.w) {
            rl_chart_line(cv, kx, plot.y, kx, plot.y + plot.h, RL_CHART_GREY, 1.2, true);
            rl_chart_occupy_line(cv, kx, plot.y, kx, plot.y + plot.h, &plot);
        }
    }
    for (size_t i = 0; i < d->n; i++) {
        const thr_series *s = &d->s[i];
        double px[RL_CHART_MAX_POINTS], py[RL_CHART_MAX_POINTS];
        size_t n = 0;
        for (size_t k = 0; k < s->n; k++) {
            double y = decode ? s->dec[k] : s->pre[k];
            if (y <= 0)
                continue;
            px[n] = rl_chart_map(&xs, s->t[k]);
            py[n] = rl_chart_map(&ys, y);
            n++;
        }
        uint32_t c = rl_chart_series_color(s->series);
        rl_chart_polyline(cv, px, py, n, c, 1.8, false);
        for (size_t k = 0; k < n; k++)
            rl_chart_marker(cv, rl_chart_series_shape(s->series), px[k], py[k], 3.5, c, true);
    }
    if (decode && d->has_knee) {
        double kx = rl_chart_map(&xs, (double)d->knee);
        char text[64];
        rl_snprintf(text, sizeof text, "knee: %lld thread%s", (long long)d->knee,
                    d->knee == 1 ? "" : "s");
        rl_chart_spot spots[] = {{kx + 4, plot.y + 12, RL_CHART_START, 0},
                                 {kx - 4, plot.y + 12, RL_CHART_END, 0},
                                 {kx + 4, plot.y + plot.h - 6, RL_CHART_START, 0},
                                 {kx - 4, plot.y + plot.h - 6, RL_CHART_END, 0}};
        rl_chart_place(cv, text, RL_CHART_FS_LABEL, false, "label", spots, 4, &plot, true);
    }
}

static void thr_draw(rl_chart_canvas *cv, void *ctx)
{
    const thr *d = ctx;
    double half = cv->w / 2;
    panel(cv, d, true, 0, half - 14);
    panel(cv, d, false, half + 2, half - 18);
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    size_t n = thr_keys(d, keys);
    rl_chart_legend(cv, keys, n, 16, 30 + THR_PLOT_H + 50, cv->w - 32, true);
}

static rl_status thr_table(rl_chart *c, const void *data, rl_error *err)
{
    const thr *d = data;
    static const char *const cols[] = {"model", "threads", "decode (tok/s)", "prefill (tok/s)"};
    rl_status st = rl_chart_table_cols(c, 4, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t k = 0; st == RL_OK && k < d->s[i].n; k++) {
            char t[32], dec[48] = "", pre[48] = "";
            rl_chart_fmt_num(t, sizeof t, d->s[i].t[k]);
            if (d->s[i].dec[k] > 0)
                rl_chart_fmt_num(dec, sizeof dec, d->s[i].dec[k]);
            if (d->s[i].pre[k] > 0)
                rl_chart_fmt_num(pre, sizeof pre, d->s[i].pre[k]);
            const char *row[] = {d->s[i].name, t, dec, pre};
            st = rl_chart_table_row(c, row, err);
        }
    if (st == RL_OK && d->has_knee) {
        char t[32];
        rl_snprintf(t, sizeof t, "%lld", (long long)d->knee);
        const char *row[] = {"knee (all models)", t, "", ""};
        st = rl_chart_table_row(c, row, err);
    }
    return st;
}

static char *thr_desc(const rl_chart_kind *kind, const void *data)
{
    const thr *d = data;
    char knee[96] = "", more[64] = "";
    (void)kind;
    if (d->has_knee)
        rl_snprintf(knee, sizeof knee,
                    "; the dashed line marks the knee at %lld thread%s (the fewest within "
                    "2%% of the best decode)",
                    (long long)d->knee, d->knee == 1 ? "" : "s");
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", d->skipped);
    return rl_asprintf("Decode (left) and prefill (right) rate in tok/s against the thread "
                       "count, at depth 0, for %zu model%s%s%s.",
                       d->n, d->n == 1 ? "" : "s", more, knee);
}

static const rl_chart_kind thr_kind = {
    .id = "threads",
    .title = "Thread sweep: decode and prefill",
    .what = "threads chart",
    .size = sizeof(thr),
    .read = thr_read,
    .desc = thr_desc,
    .table = thr_table,
    .top_h = 30 + THR_PLOT_H + 50,
    .legend_h = thr_legend_h,
    .bottom_h = 10,
    .draw = thr_draw,
    .free = thr_free,
};

rl_status rl_chart_threads(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&thr_kind, bundle, out, err);
}
