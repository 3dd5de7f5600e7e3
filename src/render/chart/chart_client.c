/* SPDX-License-Identifier: MIT */
/* chart_client.c: the streaming client's charts, from a bundle's client.points[] (owner:
 * client-metrics; drawn with the chart module's layers, chart_int.h).
 *
 *   client-ttft   TTFT distribution per operating point as an ECDF (x: ms, y: share of the
 *                 successful requests at or below x), one step line per concurrency; TTFT is a
 *                 proxy (the first chunk, which may carry several tokens): said in the caption.
 *   client-tpot   the same for TPOT (derived: generation time over the tokens after the first
 *                 delivery).
 *   client-throughput  against concurrency: requests/s (measured) and goodput requests/s
 *                 (derived, dashed) on the left, output token throughput and token-weighted
 *                 decode rate (derived) on the right.
 * An ECDF with more samples than RL_CC_STEPS - 1 is drawn through its percentiles 0..100 (101
 * steps), so the chart and its table stay bounded; the table lists every plotted step.
 *
 * The bundle may be hostile: counts are capped (RL_CHART_MAX_SERIES points, RL_CC_MAX_SAMPLES
 * samples read per point), numbers must be finite and in range. Ownership: everything is
 * freed before returning; the rl_chart owns its strings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

#define RL_CC_STEPS 101
#define RL_CC_MAX_SAMPLES 1000000
#define CC_PLOT_H 260.0

/* The concurrency of a point, 0 when missing or absurd. */
static int64_t point_conc(const cJSON *pt)
{
    int64_t c = 0;
    if (!rl_json_get_i64(pt, "concurrency", &c) || c < 1 || c > 1000000)
        return 0;
    return c;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- ECDF charts --------------------------------------------------------------------- */

typedef struct {
    int64_t conc;
    size_t series, n_samples, n;               /* steps drawn */
    double x[RL_CC_STEPS], share[RL_CC_STEPS]; /* share in % */
} ecdf_series;

typedef struct {
    ecdf_series s[RL_CHART_MAX_SERIES];
    size_t n, skipped;
    double xmax;
    const char *xlabel;
} ecdf;

/* The parameters of one distribution chart (rl_chart_kind.rules). */
typedef struct {
    const char *metric; /* client.points[].<metric> */
    const char *what;   /* the desc's first sentence */
    const char *xlabel; /* the x axis title and the table's second column */
} ecdf_rules;

static rl_status ecdf_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    const ecdf_rules *rules = kind->rules;
    const char *metric = rules->metric;
    ecdf *d = data;
    d->xlabel = rules->xlabel;
    const cJSON *pt;
    size_t idx = 0;
    cJSON_ArrayForEach(pt, rl_json_get(rl_json_get(bundle, "client"), "points"))
    {
        size_t series = idx++;
        int64_t conc = point_conc(pt);
        const cJSON *smp = rl_json_get(rl_json_get(rl_json_get(pt, "metrics"), metric), "samples");
        if (conc == 0 || rl_json_array_size(smp) < 1)
            continue;
        if (d->n == RL_CHART_MAX_SERIES) {
            d->skipped++;
            continue;
        }
        double *v = NULL;
        size_t n = 0, k = 0;
        if (rl_json_values(smp, &v, &n) != RL_OK)
            return rl_fail(err, RL_EINTERNAL, "client chart: out of memory");
        for (size_t i = 0; i < n && k < RL_CC_MAX_SAMPLES; i++)
            if (isfinite(v[i]) && v[i] >= 0 && v[i] < 1e12)
                v[k++] = v[i];
        if (k == 0) {
            free(v);
            continue;
        }
        qsort(v, k, sizeof *v, cmp_d);
        ecdf_series *s = &d->s[d->n++];
        memset(s, 0, sizeof *s);
        s->conc = conc;
        s->series = series;
        s->n_samples = k;
        if (k < RL_CC_STEPS) {
            for (size_t i = 0; i < k; i++) {
                s->x[i] = v[i];
                s->share[i] = 100.0 * (double)(i + 1) / (double)k;
            }
            s->n = k;
        } else {
            for (size_t i = 0; i < RL_CC_STEPS; i++) {
                s->x[i] = rl_stats_percentile_sorted(v, k, (double)i);
                s->share[i] = (double)i;
            }
            s->n = RL_CC_STEPS;
        }
        d->xmax = fmax(d->xmax, v[k - 1]);
        free(v);
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "no operating point has %s samples", metric);
    return RL_OK;
}

static size_t ecdf_keys(const ecdf *d, rl_chart_key *keys, char (*text)[48])
{
    for (size_t i = 0; i < d->n; i++) {
        rl_snprintf(text[i], sizeof text[i], "concurrency %lld (%zu request%s)",
                    (long long)d->s[i].conc, d->s[i].n_samples, d->s[i].n_samples == 1 ? "" : "s");
        keys[i] = rl_chart_series_key(text[i], d->s[i].series, false);
    }
    return d->n;
}

static double ecdf_legend_h(rl_chart_canvas *cv, void *ctx)
{
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    char text[RL_CHART_MAX_SERIES][48];
    size_t n = ecdf_keys(ctx, keys, text);
    return rl_chart_legend(cv, keys, n, 16, 0, RL_CHART_W - 32, false);
}

static void ecdf_draw(rl_chart_canvas *cv, void *ctx)
{
    const ecdf *d = ctx;
    rl_chart_rect plot = {0, 16, 0, CC_PLOT_H};
    rl_chart_scale ys, xs;
    rl_chart_scale_lin(&ys, 0, 100, true, plot.y + plot.h, plot.y);
    const double yv[] = {0, 25, 50, 75, 90, 100};
    rl_chart_ticks yt, xt;
    rl_chart_ticks_at(yv, sizeof yv / sizeof yv[0], false, &yt);
    plot.x = 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = cv->w - plot.x - 20;
    rl_chart_scale_lin(&xs, 0, d->xmax > 0 ? d->xmax * 1.05 : 1, true, plot.x, plot.x + plot.w);
    rl_chart_ticks_nice(&xs, &xt);
    rl_chart_axis_y(cv, &ys, &yt, &plot, "% of requests at or below");
    rl_chart_axis_x(cv, &xs, &xt, &plot, d->xlabel);
    rl_chart_clip(cv, &plot);
    for (size_t i = 0; i < d->n; i++) {
        const ecdf_series *s = &d->s[i];
        double px[2 * RL_CC_STEPS + 1], py[2 * RL_CC_STEPS + 1];
        size_t m = 0;
        double prev = 0;
        px[m] = rl_chart_map(&xs, s->x[0]);
        py[m++] = rl_chart_map(&ys, 0);
        for (size_t k = 0; k < s->n; k++) {
            double x = rl_chart_map(&xs, s->x[k]);
            if (k > 0) {
                px[m] = x;
                py[m++] = rl_chart_map(&ys, prev);
            }
            px[m] = x;
            py[m++] = rl_chart_map(&ys, s->share[k]);
            prev = s->share[k];
        }
        uint32_t c = rl_chart_series_color(s->series);
        rl_chart_polyline(cv, px, py, m, c, 1.8, false);
        /* the median: a marker where the line crosses 50% */
        for (size_t k = 0; k < s->n; k++)
            if (s->share[k] >= 50) {
                rl_chart_marker(cv, rl_chart_series_shape(s->series), rl_chart_map(&xs, s->x[k]),
                                rl_chart_map(&ys, 50), 3.5, c, true);
                break;
            }
    }
    rl_chart_unclip(cv);
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    char text[RL_CHART_MAX_SERIES][48];
    size_t n = ecdf_keys(d, keys, text);
    rl_chart_legend(cv, keys, n, 16, 16 + CC_PLOT_H + 46, cv->w - 32, true);
}

static char *ecdf_desc(const rl_chart_kind *kind, const void *data)
{
    const ecdf *d = data;
    const ecdf_rules *rules = kind->rules;
    char more[64] = "";
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", d->skipped);
    return rl_asprintf("%s For each concurrency%s, the share of successful requests "
                       "(y) whose value is at or below x; the marker sits at the median. "
                       "Above %d requests the line runs through the percentiles 0 to 100.",
                       rules->what, more, RL_CC_STEPS - 1);
}

static rl_status ecdf_table(rl_chart *out, const void *data, rl_error *err)
{
    const ecdf *d = data;
    char c2[64];
    rl_snprintf(c2, sizeof c2, "%s", d->xlabel);
    const char *cols[] = {"concurrency", c2, "% of requests at or below"};
    rl_status st = rl_chart_table_cols(out, 3, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t k = 0; st == RL_OK && k < d->s[i].n; k++) {
            char a[32], b[48], c[48];
            rl_snprintf(a, sizeof a, "%lld", (long long)d->s[i].conc);
            rl_chart_fmt_num(b, sizeof b, d->s[i].x[k]);
            rl_chart_fmt_num(c, sizeof c, d->s[i].share[k]);
            const char *row[] = {a, b, c};
            st = rl_chart_table_row(out, row, err);
        }
    return st;
}

static const ecdf_rules ttft_rules = {
    "ttft",
    "TTFT in ms: send to the first streamed chunk. A proxy: a chunk may carry several tokens, "
    "and the time includes start-up and queueing.",
    "TTFT (ms, proxy)"};
static const ecdf_rules tpot_rules = {
    "tpot",
    "TPOT in ms (derived): the time from the first delivery to the last over the tokens that "
    "arrived after the first delivery.",
    "TPOT (ms per token)"};

/* The two distributions differ only in their id, title and rules. */
#define ECDF_KIND(ID, TITLE, RULES)                                                                \
    {                                                                                              \
        .id = ID, .title = TITLE, .what = "client chart", .rules = RULES, .size = sizeof(ecdf),    \
        .read = ecdf_read, .desc = ecdf_desc, .table = ecdf_table, .top_h = 16 + CC_PLOT_H + 46,   \
        .legend_h = ecdf_legend_h, .bottom_h = 10, .draw = ecdf_draw,                              \
    }
static const rl_chart_kind ttft_kind =
    ECDF_KIND("client-ttft", "Time to first token (proxy)", &ttft_rules);
static const rl_chart_kind tpot_kind =
    ECDF_KIND("client-tpot", "Time per output token", &tpot_rules);

rl_status rl_chart_client_ttft(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&ttft_kind, bundle, out, err);
}

rl_status rl_chart_client_tpot(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&tpot_kind, bundle, out, err);
}

/* ---- throughput and goodput against concurrency ------------------------------------------ */

enum { TP_RPS, TP_GOOD, TP_OUT, TP_DEC, TP_N };

typedef struct {
    size_t n, skipped;
    double conc[RL_CHART_MAX_SERIES];
    double v[TP_N][RL_CHART_MAX_SERIES]; /* NAN: not available */
} tput;

static const struct {
    const char *name;
    const char *kind;
    bool dashed;
} tp_lines[TP_N] = {
    {"requests/s (measured)", "measured", false},
    {"goodput requests/s (derived)", "derived", true},
    {"output tok/s (derived)", "derived", false},
    {"decode tok/s, token-weighted (derived)", "derived", true},
};

static double point_value(const cJSON *o)
{
    double v;
    if (!cJSON_IsObject(o) || cJSON_IsFalse(rl_json_get(o, "available")) ||
        !rl_json_get_num(o, "value", &v) || !isfinite(v) || v < 0 || v > 1e12)
        return NAN;
    return v;
}

static rl_status tput_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    tput *d = data;
    (void)kind;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, rl_json_get(rl_json_get(bundle, "client"), "points"))
    {
        int64_t conc = point_conc(pt);
        if (conc == 0)
            continue;
        if (d->n == RL_CHART_MAX_SERIES) {
            d->skipped++;
            continue;
        }
        const cJSON *m = rl_json_get(pt, "metrics");
        size_t i = d->n;
        d->conc[i] = (double)conc;
        d->v[TP_RPS][i] = point_value(rl_json_get(m, "rps"));
        d->v[TP_GOOD][i] = point_value(rl_json_get(rl_json_get(pt, "goodput"), "rps"));
        d->v[TP_OUT][i] = point_value(rl_json_get(m, "output_throughput"));
        d->v[TP_DEC][i] = point_value(rl_json_get(m, "decode_throughput"));
        bool any = false;
        for (int k = 0; k < TP_N; k++)
            any |= isfinite(d->v[k][i]);
        if (any)
            d->n++;
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "no operating point has a throughput");
    return RL_OK;
}

static size_t tp_keys(rl_chart_key *keys)
{
    for (int k = 0; k < TP_N; k++)
        keys[k] = rl_chart_series_key(tp_lines[k].name, (size_t)k, tp_lines[k].dashed);
    return TP_N;
}

static double tp_legend_h(rl_chart_canvas *cv, void *ctx)
{
    (void)ctx;
    rl_chart_key keys[TP_N];
    size_t n = tp_keys(keys);
    return rl_chart_legend(cv, keys, n, 16, 0, RL_CHART_W - 32, false);
}

static void tp_panel(rl_chart_canvas *cv, const tput *d, int first, const char *heading,
                     const char *unit, double x0, double w)
{
    double ymax = 0;
    for (int k = first; k < first + 2; k++)
        for (size_t i = 0; i < d->n; i++)
            if (isfinite(d->v[k][i]))
                ymax = fmax(ymax, d->v[k][i]);
    rl_chart_rect plot = {0, 30, 0, CC_PLOT_H};
    rl_chart_scale xs, ys;
    rl_chart_scale_lin(&ys, 0, ymax > 0 ? ymax * 1.05 : 1, true, plot.y + plot.h, plot.y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(&ys, &yt);
    plot.x = x0 + 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = x0 + w - plot.x;
    rl_chart_text(cv, heading, plot.x, 18, RL_CHART_FS_AXIS, true, RL_CHART_START, 0, "heading");
    double cmin = 1e300, cmax = 0;
    for (size_t i = 0; i < d->n; i++) {
        cmin = fmin(cmin, d->conc[i]);
        cmax = fmax(cmax, d->conc[i]);
    }
    rl_chart_scale_pad(&xs, cmin, cmax, 0.08, plot.x, plot.x + plot.w);
    rl_chart_ticks_at(d->conc, d->n, false, &xt);
    if (xt.n >= RL_CHART_MAX_TICKS)
        rl_chart_ticks_nice(&xs, &xt);
    rl_chart_axis_y(cv, &ys, &yt, &plot, unit);
    rl_chart_axis_x(cv, &xs, &xt, &plot, "concurrency");
    if (ymax <= 0) {
        rl_chart_text(cv, "not available", plot.x + plot.w / 2, plot.y + plot.h / 2,
                      RL_CHART_FS_NOTE, false, RL_CHART_MIDDLE, 0, "note");
        return;
    }
    for (int k = first; k < first + 2; k++) {
        double px[RL_CHART_MAX_SERIES], py[RL_CHART_MAX_SERIES];
        size_t n = 0;
        for (size_t i = 0; i < d->n; i++)
            if (isfinite(d->v[k][i])) {
                px[n] = rl_chart_map(&xs, d->conc[i]);
                py[n] = rl_chart_map(&ys, d->v[k][i]);
                n++;
            }
        uint32_t c = rl_chart_series_color((size_t)k);
        rl_chart_polyline(cv, px, py, n, c, 1.8, tp_lines[k].dashed);
        for (size_t i = 0; i < n; i++)
            rl_chart_marker(cv, rl_chart_series_shape((size_t)k), px[i], py[i], 3.5, c, true);
    }
}

static void tp_draw(rl_chart_canvas *cv, void *ctx)
{
    const tput *d = ctx;
    double half = cv->w / 2;
    tp_panel(cv, d, TP_RPS, "Requests", "req/s", 0, half - 14);
    tp_panel(cv, d, TP_OUT, "Tokens", "tok/s", half + 2, half - 18);
    rl_chart_key keys[TP_N];
    size_t n = tp_keys(keys);
    rl_chart_legend(cv, keys, n, 16, 30 + CC_PLOT_H + 50, cv->w - 32, true);
}

static char *tp_desc(const rl_chart_kind *kind, const void *data)
{
    const tput *d = data;
    char more[64] = "";
    (void)kind;
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more points not drawn)", d->skipped);
    return rl_asprintf(
        "Against the concurrency (controlled)%s: successful requests per second "
        "(measured) and goodput, the requests meeting every SLO per second (derived, "
        "dashed), on the left; output tokens per second over the measured window and "
        "the token-weighted decode rate (both derived) on the right. A missing point "
        "is a value the bundle marks unavailable.",
        more);
}

static rl_status tp_table(rl_chart *out, const void *data, rl_error *err)
{
    const tput *d = data;
    const char *cols[] = {"concurrency", "requests/s (measured)", "goodput req/s (derived)",
                          "output tok/s (derived)", "decode tok/s token-weighted (derived)"};
    rl_status st = rl_chart_table_cols(out, 5, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++) {
        char cell[TP_N + 1][48];
        rl_chart_fmt_num(cell[0], sizeof cell[0], d->conc[i]);
        for (int k = 0; k < TP_N; k++) {
            if (isfinite(d->v[k][i]))
                rl_chart_fmt_num(cell[k + 1], sizeof cell[k + 1], d->v[k][i]);
            else
                rl_snprintf(cell[k + 1], sizeof cell[k + 1], "n/a");
        }
        const char *row[] = {cell[0], cell[1], cell[2], cell[3], cell[4]};
        st = rl_chart_table_row(out, row, err);
    }
    return st;
}

static const rl_chart_kind tp_kind = {
    .id = "client-throughput",
    .title = "Throughput and goodput by concurrency",
    .what = "client chart",
    .size = sizeof(tput),
    .read = tput_read,
    .desc = tp_desc,
    .table = tp_table,
    .top_h = 30 + CC_PLOT_H + 50,
    .legend_h = tp_legend_h,
    .bottom_h = 10,
    .draw = tp_draw,
};

rl_status rl_chart_client_throughput(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&tp_kind, bundle, out, err);
}
