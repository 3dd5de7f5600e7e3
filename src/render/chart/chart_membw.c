/* SPDX-License-Identifier: MIT */
/* chart_membw.c: the memory-bandwidth sweep behind the ceiling (owner: chart).
 *
 * x = threads, y = GB/s (1e9 bytes/s) from zero, one line per kernel (membw.runs[]: kernel,
 * threads and the best repetition, best_GBs, else the largest of samples_GBs, else
 * median_GBs), labelled at its right end. copy is dashed and labelled "excluded": its writes
 * cost write-allocate traffic, so it never sets the ceiling (nor does any kernel whose
 * read_only is false). The ceiling used (analysis.ceiling.GBs, else membw.peak_read_GBs) is
 * a dashed horizontal line with its GB/s, and the run that set it (membw.kernel, .threads) is
 * ringed.
 *
 * Table: kernel, threads, best GB/s, whether it counts for the ceiling; a row for the ceiling.
 * Ownership: the mb struct owns its strings (mb_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define MB_MAX_KERNELS 12
#define MB_NAME_CHARS 16

typedef struct {
    char *name, *label;
    bool excluded;
    size_t n;
    double t[RL_CHART_MAX_POINTS], gbs[RL_CHART_MAX_POINTS];
} mb_kernel;

typedef struct {
    mb_kernel k[MB_MAX_KERNELS];
    size_t n, skipped;
    bool has_ceil, has_chosen;
    double ceil_gbs;
    char *chosen_kernel;
    int64_t chosen_threads;
} mb;

static void mb_free(void *data)
{
    mb *d = data;
    for (size_t i = 0; i < d->n; i++) {
        free(d->k[i].name);
        free(d->k[i].label);
    }
    free(d->chosen_kernel);
}

static bool run_gbs(const cJSON *run, double *out)
{
    if (rl_json_get_num(run, "best_GBs", out) && rl_chart_sane(*out))
        return true;
    double best = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(run, "samples_GBs"))
    {
        if (cJSON_IsNumber(it) && rl_chart_sane(it->valuedouble))
            best = fmax(best, it->valuedouble);
    }
    if (best > 0) {
        *out = best;
        return true;
    }
    return rl_json_get_num(run, "median_GBs", out) && rl_chart_sane(*out);
}

static rl_status mb_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    mb *d = data;
    (void)kind;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(bundle, "membw");
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(m, "runs"))
    {
        const char *kn = rl_json_get_str(run, "kernel");
        int64_t t;
        double g;
        if (!kn || !rl_json_get_i64(run, "threads", &t) || t < 1 || t > 1000000 ||
            !run_gbs(run, &g))
            continue;
        char *name = rl_chart_clean(kn, MB_NAME_CHARS);
        if (!name)
            return rl_fail(err, RL_EINTERNAL, "membw chart: out of memory");
        size_t i = 0;
        while (i < d->n && strcmp(d->k[i].name, name) != 0)
            i++;
        if (i == d->n) {
            if (d->n == MB_MAX_KERNELS) {
                free(name);
                d->skipped++;
                continue;
            }
            mb_kernel *k = &d->k[d->n++];
            memset(k, 0, sizeof *k);
            k->name = name;
            bool ro = true;
            k->excluded =
                strcmp(name, "copy") == 0 || (rl_json_get_bool(run, "read_only", &ro) && !ro);
            k->label = k->excluded ? rl_asprintf("%s (excluded)", name) : rl_strdup(name);
            if (!k->label)
                return rl_fail(err, RL_EINTERNAL, "membw chart: out of memory");
        } else {
            free(name);
        }
        mb_kernel *k = &d->k[i];
        size_t p = 0; /* thread order; a repeated thread count keeps its best */
        while (p < k->n && k->t[p] < (double)t)
            p++;
        if (p < k->n && k->t[p] == (double)t) {
            k->gbs[p] = fmax(k->gbs[p], g);
            continue;
        }
        if (k->n == RL_CHART_MAX_POINTS)
            continue;
        memmove(k->t + p + 1, k->t + p, (k->n - p) * sizeof k->t[0]);
        memmove(k->gbs + p + 1, k->gbs + p, (k->n - p) * sizeof k->gbs[0]);
        k->t[p] = (double)t;
        k->gbs[p] = g;
        k->n++;
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "membw chart: no membw runs (ceiling %s)",
                       m ? "supplied or skipped" : "not in the bundle");
    const cJSON *ceil_o = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(bundle, "analysis"), "ceiling");
    if ((rl_json_get_num(ceil_o, "GBs", &d->ceil_gbs) && rl_chart_sane(d->ceil_gbs)) ||
        (rl_json_get_num(m, "peak_read_GBs", &d->ceil_gbs) && rl_chart_sane(d->ceil_gbs)))
        d->has_ceil = true;
    const char *ck = rl_json_get_str(m, "kernel");
    if (ck && rl_json_get_i64(m, "threads", &d->chosen_threads) && d->chosen_threads >= 1) {
        if (!(d->chosen_kernel = rl_chart_clean(ck, MB_NAME_CHARS)))
            return rl_fail(err, RL_EINTERNAL, "membw chart: out of memory");
        d->has_chosen = true;
    }
    return RL_OK;
}

#define MB_H 380.0

static void mb_draw(rl_chart_canvas *cv, void *ctx)
{
    const mb *d = ctx;
    double tmin = 1e300, tmax = 0, ymax = d->has_ceil ? d->ceil_gbs : 0, lw = 0;
    double tv[RL_CHART_MAX_TICKS * 4];
    size_t nt = 0;
    for (size_t i = 0; i < d->n; i++) {
        lw = fmax(lw, rl_chart_text_width(cv, d->k[i].label, RL_CHART_FS_LABEL, false));
        for (size_t p = 0; p < d->k[i].n; p++) {
            tmin = fmin(tmin, d->k[i].t[p]);
            tmax = fmax(tmax, d->k[i].t[p]);
            ymax = fmax(ymax, d->k[i].gbs[p]);
            if (nt < sizeof tv / sizeof tv[0])
                tv[nt++] = d->k[i].t[p];
        }
    }
    rl_chart_rect plot = {0, 16, 0, MB_H - 16 - 58};
    rl_chart_scale xs, ys;
    rl_chart_scale_lin(&ys, 0, ymax * 1.08, true, plot.y + plot.h, plot.y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(&ys, &yt);
    plot.x = 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot.w = cv->w - plot.x - 14 - fmin(lw, 160) - 10;
    rl_chart_scale_pad(&xs, tmin, tmax, 0.05, plot.x, plot.x + plot.w);
    rl_chart_ticks_at(tv, nt, false, &xt);
    if (xt.n >= RL_CHART_MAX_TICKS)
        rl_chart_ticks_nice(&xs, &xt);
    rl_chart_axis_y(cv, &ys, &yt, &plot, "read bandwidth (GB/s = 10\xE2\x81\xB9 bytes/s)");
    rl_chart_axis_x(cv, &xs, &xt, &plot, "threads");

    double cy = 0;
    if (d->has_ceil) {
        cy = rl_chart_map(&ys, d->ceil_gbs);
        rl_chart_line(cv, plot.x, cy, plot.x + plot.w, cy, RL_CHART_VERMILLION, 1.6, true);
        rl_chart_occupy_line(cv, plot.x, cy, plot.x + plot.w, cy, &plot);
    }
    double ends[MB_MAX_KERNELS], placed[MB_MAX_KERNELS];
    for (size_t i = 0; i < d->n; i++) {
        const mb_kernel *k = &d->k[i];
        uint32_t c = k->excluded ? RL_CHART_GREY : rl_chart_series_color(i);
        double px[RL_CHART_MAX_POINTS], py[RL_CHART_MAX_POINTS];
        for (size_t p = 0; p < k->n; p++) {
            px[p] = rl_chart_map(&xs, k->t[p]);
            py[p] = rl_chart_map(&ys, k->gbs[p]);
        }
        rl_chart_polyline(cv, px, py, k->n, c, k->excluded ? 1.5 : 2, k->excluded);
        for (size_t p = 1; p < k->n; p++)
            rl_chart_occupy_line(cv, px[p - 1], py[p - 1], px[p], py[p], &plot);
        for (size_t p = 0; p < k->n; p++) {
            rl_chart_marker(cv, rl_chart_series_shape(i), px[p], py[p], 3.5, c, !k->excluded);
            if (d->has_chosen && strcmp(k->name, d->chosen_kernel) == 0 &&
                k->t[p] == (double)d->chosen_threads)
                rl_chart_marker(cv, RL_CHART_CIRCLE, px[p], py[p], 8, RL_CHART_VERMILLION, false);
        }
        ends[i] = py[k->n - 1] + 0.35 * RL_CHART_FS_LABEL;
    }
    rl_chart_spread(ends, d->n, RL_CHART_FS_LABEL + 2, plot.y + RL_CHART_FS_LABEL, plot.y + plot.h,
                    placed);
    for (size_t i = 0; i < d->n; i++)
        rl_chart_text(cv, d->k[i].label, plot.x + plot.w + 8, placed[i], RL_CHART_FS_LABEL, false,
                      RL_CHART_START, 0, "label");
    if (d->has_ceil) {
        char text[96], num[48];
        rl_chart_fmt_gbs(num, sizeof num, d->ceil_gbs);
        if (d->has_chosen)
            rl_snprintf(text, sizeof text, "ceiling %s (%s, %lld threads)", num, d->chosen_kernel,
                        (long long)d->chosen_threads);
        else
            rl_snprintf(text, sizeof text, "ceiling %s", num);
        /* just above or below the line, from the left edge to the right */
        rl_chart_spot spots[2 * 5];
        size_t ns = 0;
        static const double fx[] = {0, 0.5, 1, 0.25, 0.75};
        for (int side = 0; side < 2; side++)
            for (size_t i = 0; i < 5; i++) {
                double y = side == 0 ? cy - 5 : cy + 4 + 0.76 * RL_CHART_FS_LABEL;
                rl_chart_anchor a = fx[i] == 0   ? RL_CHART_START
                                    : fx[i] == 1 ? RL_CHART_END
                                                 : RL_CHART_MIDDLE;
                double x = plot.x + 6 + fx[i] * (plot.w - 12);
                spots[ns++] = (rl_chart_spot){x, y, a, 0};
            }
        rl_chart_place(cv, text, RL_CHART_FS_LABEL, true, "line-label", spots, ns, &plot, true);
    }
}

static rl_status mb_table(rl_chart *c, const void *data, rl_error *err)
{
    const mb *d = data;
    static const char *const cols[] = {"kernel", "threads", "best (GB/s)", "counts for ceiling"};
    rl_status st = rl_chart_table_cols(c, 4, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t p = 0; st == RL_OK && p < d->k[i].n; p++) {
            char t[32], g[48];
            rl_chart_fmt_num(t, sizeof t, d->k[i].t[p]);
            rl_chart_fmt_num(g, sizeof g, d->k[i].gbs[p]);
            const char *row[] = {d->k[i].name, t, g,
                                 d->k[i].excluded ? "no (writes: write-allocate traffic)" : "yes"};
            st = rl_chart_table_row(c, row, err);
        }
    if (st == RL_OK && d->has_ceil) {
        char t[32] = "", g[48];
        if (d->has_chosen)
            rl_snprintf(t, sizeof t, "%lld", (long long)d->chosen_threads);
        rl_chart_fmt_num(g, sizeof g, d->ceil_gbs);
        const char *row[] = {"ceiling", t, g, ""};
        st = rl_chart_table_row(c, row, err);
    }
    return st;
}

static char *mb_desc(const rl_chart_kind *kind, const void *data)
{
    const mb *d = data;
    char ceil_s[96] = "", num[48];
    (void)kind;
    if (d->has_ceil) {
        rl_chart_fmt_gbs(num, sizeof num, d->ceil_gbs);
        rl_snprintf(ceil_s, sizeof ceil_s, "; the dashed horizontal line is the ceiling, %s", num);
    }
    return rl_asprintf("Read bandwidth in GB/s (10^9 bytes/s) against threads, the best "
                       "repetition of each of %zu kernel%s; copy is dashed and excluded from "
                       "the ceiling (its writes add write-allocate traffic)%s.",
                       d->n, d->n == 1 ? "" : "s", ceil_s);
}

static const rl_chart_kind mb_kind = {
    .id = "membw",
    .title = "Memory ceiling: bandwidth by kernel and threads",
    .what = "membw chart",
    .size = sizeof(mb),
    .read = mb_read,
    .desc = mb_desc,
    .table = mb_table,
    .top_h = MB_H,
    .draw = mb_draw,
    .free = mb_free,
};

rl_status rl_chart_membw(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&mb_kind, bundle, out, err);
}
