/* SPDX-License-Identifier: MIT */
/* chart_compare.c: every input's roofline on one chart (owner: compare). See compare_chart.h.
 * Reads each bundle as chart_roofline.c does (hostile input: every number checked, at most
 * RL_CHART_MAX_SERIES inputs and RL_CHART_MAX_SERIES points per input drawn).
 * Ownership: the cmp_roof struct owns its strings (cr_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "render/chart/compare_chart.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define CR_MAX_POINTS 4096  /* points over every input */
#define CR_CEILINGS_UP_TO 6 /* inputs whose ceilings are drawn */

typedef struct {
    size_t input;
    double bytes, tps;
    int64_t threads;
    char *name;
} cr_pt;

typedef struct {
    char *key;   /* legend text */
    char *label; /* input label, cleaned */
    bool has_fit, has_ceil;
    double fit_bps, ceil_gbs;
} cr_in;

typedef struct {
    cr_pt *pt;
    size_t n;
    cr_in in[RL_CHART_MAX_SERIES];
    size_t n_in, skipped;
    double legend_h;
} cmp_roof;

static void cr_free(cmp_roof *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->pt[i].name);
    free(r->pt);
    for (size_t i = 0; i < r->n_in; i++) {
        free(r->in[i].key);
        free(r->in[i].label);
    }
}

static rl_status cr_read_input(cmp_roof *r, size_t i, const rl_cmp_input *input, rl_error *err)
{
    const cJSON *b = input->bundle;
    const cJSON *an = rl_json_get(b, "analysis");
    cr_in *ci = &r->in[i];
    ci->label = rl_chart_clean(input->label, RL_CHART_LABEL_CHARS);
    if (!ci->label)
        return rl_fail(err, RL_EINTERNAL, "comparison roofline: out of memory");
    const cJSON *am;
    cJSON_ArrayForEach(am, rl_json_get(an, "models"))
    {
        if (r->n == CR_MAX_POINTS)
            break;
        const cJSON *model;
        double tps, bytes;
        int64_t threads;
        if (!rl_chart_analysis_point(b, am, NULL, &model, &tps, &bytes, &threads))
            continue;
        cr_pt *p = &r->pt[r->n];
        memset(p, 0, sizeof *p);
        p->input = i;
        p->bytes = bytes;
        p->tps = tps;
        p->threads = threads;
        const char *id = rl_json_get_str(am, "id");
        const char *nm = rl_json_get_str(model, "name");
        p->name = rl_chart_clean(nm ? nm : id, RL_CHART_CELL_CHARS);
        r->n++;
        if (!p->name)
            return rl_fail(err, RL_EINTERNAL, "comparison roofline: out of memory");
    }
    const cJSON *fit = rl_json_get(an, "fit");
    bool avail = false;
    double v = 0;
    if (rl_json_get_bool(fit, "available", &avail) && avail &&
        rl_json_get_num(fit, "bw_bytes_s", &v) && rl_chart_sane(v)) {
        ci->has_fit = true;
        ci->fit_bps = v;
    }
    if (rl_json_get_num(rl_json_get(an, "ceiling"), "GBs", &v) && rl_chart_sane(v)) {
        ci->has_ceil = true;
        ci->ceil_gbs = v;
    }
    char fit_s[48] = "", ceil_s[48] = "";
    if (ci->has_fit)
        rl_chart_fmt_gbs(fit_s, sizeof fit_s, ci->fit_bps / 1e9);
    if (ci->has_ceil)
        rl_chart_fmt_gbs(ceil_s, sizeof ceil_s, ci->ceil_gbs);
    bool runs = cJSON_GetArraySize(rl_json_get(b, "models")) > 0;
    ci->key = rl_asprintf("[%zu] %s: %s%s%s%s", i + 1, ci->label,
                          ci->has_fit ? "fit "
                          : runs      ? "no fit"
                                      : "no llama-bench runs",
                          fit_s, ci->has_ceil ? ", ceiling " : "", ceil_s);
    if (!ci->key)
        return rl_fail(err, RL_EINTERNAL, "comparison roofline: out of memory");
    return RL_OK;
}

static void cr_keys(const cmp_roof *r, rl_chart_key *keys)
{
    for (size_t i = 0; i < r->n_in; i++)
        keys[i] = rl_chart_series_key(r->in[i].key, i, false);
}

static double cr_legend_height(rl_chart_canvas *cv, void *ctx)
{
    const cmp_roof *r = ctx;
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    cr_keys(r, keys);
    return rl_chart_legend(cv, keys, r->n_in, 10, 0, cv->w - 20, false);
}

static void cr_line(rl_chart_canvas *cv, const rl_chart_scale *xs, const rl_chart_scale *ys,
                    const rl_chart_rect *plot, double bps, uint32_t rgb, bool dashed)
{
    rl_chart_clip(cv, plot);
    rl_chart_line(cv, rl_chart_map(xs, xs->lo), rl_chart_map(ys, bps / (xs->lo * 1e6)),
                  rl_chart_map(xs, xs->hi), rl_chart_map(ys, bps / (xs->hi * 1e6)), rgb,
                  dashed ? 1.4 : 2, dashed);
    rl_chart_unclip(cv);
}

static void cr_draw(rl_chart_canvas *cv, void *ctx)
{
    const cmp_roof *r = ctx;
    rl_chart_extent bx = rl_chart_extent_empty();
    for (size_t i = 0; i < r->n; i++)
        rl_chart_extent_add(&bx, r->pt[i].bytes / 1e6, r->pt[i].tps);
    double xlo = bx.xlo, xhi = bx.xhi, ylo = bx.ylo, yhi = bx.yhi;
    rl_chart_rect plot = {0, 14, 0, cv->h - 14 - 58 - r->legend_h - 8};
    rl_chart_scale xs, ys;
    rl_chart_roofline_axes(cv, xlo, xhi, ylo / 1.7, yhi * 1.7, &plot, &xs, &ys);
    for (size_t i = 0; i < r->n_in; i++) {
        uint32_t col = rl_chart_series_color(i);
        if (r->in[i].has_ceil && r->n_in <= CR_CEILINGS_UP_TO)
            cr_line(cv, &xs, &ys, &plot, r->in[i].ceil_gbs * 1e9, col, true);
        if (r->in[i].has_fit)
            cr_line(cv, &xs, &ys, &plot, r->in[i].fit_bps, col, false);
    }
    for (size_t i = 0; i < r->n; i++)
        rl_chart_marker(cv, rl_chart_series_shape(r->pt[i].input),
                        rl_chart_map(&xs, r->pt[i].bytes / 1e6), rl_chart_map(&ys, r->pt[i].tps),
                        4.5, rl_chart_series_color(r->pt[i].input), true);
    rl_chart_key keys[RL_CHART_MAX_SERIES];
    cr_keys(r, keys);
    rl_chart_legend(cv, keys, r->n_in, 10, plot.y + plot.h + 58, cv->w - 20, true);
}

static rl_status cr_table(rl_chart *c, const cmp_roof *r, rl_error *err)
{
    static const char *const cols[] = {"series",          "input",          "model",
                                       "bytes per token", "decode (tok/s)", "threads",
                                       "bandwidth (GB/s)"};
    rl_status st = rl_chart_table_cols(c, 7, cols, err);
    for (size_t i = 0; st == RL_OK && i < r->n; i++) {
        char in[24], mb[48], tps[48], th[24] = "";
        rl_snprintf(in, sizeof in, "[%zu]", r->pt[i].input + 1);
        rl_chart_fmt_num(mb, sizeof mb, r->pt[i].bytes);
        rl_chart_fmt_num(tps, sizeof tps, r->pt[i].tps);
        if (r->pt[i].threads)
            rl_snprintf(th, sizeof th, "%lld", (long long)r->pt[i].threads);
        const char *row[] = {"point", in, r->pt[i].name, mb, tps, th, ""};
        st = rl_chart_table_row(c, row, err);
    }
    for (size_t i = 0; st == RL_OK && i < r->n_in; i++) {
        char in[24], gbs[48];
        rl_snprintf(in, sizeof in, "[%zu]", i + 1);
        if (r->in[i].has_fit) {
            rl_chart_fmt_num(gbs, sizeof gbs, r->in[i].fit_bps / 1e9);
            const char *row[] = {"fit line", in, "", "", "", "", gbs};
            st = rl_chart_table_row(c, row, err);
        }
        if (st == RL_OK && r->in[i].has_ceil) {
            rl_chart_fmt_num(gbs, sizeof gbs, r->in[i].ceil_gbs);
            const char *row[] = {"ceiling line", in, "", "", "", "", gbs};
            st = rl_chart_table_row(c, row, err);
        }
    }
    return st;
}

rl_status rl_chart_compare_roofline(const rl_cmp *c, rl_chart *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    cmp_roof *r = rl_calloc(1, sizeof *r);
    if (!r || !(r->pt = rl_calloc(CR_MAX_POINTS, sizeof *r->pt))) {
        free(r);
        return rl_fail(err, RL_EINTERNAL, "comparison roofline: out of memory");
    }
    rl_status st = RL_OK;
    for (size_t i = 0; st == RL_OK && i < c->n_inputs; i++) {
        if (r->n_in == RL_CHART_MAX_SERIES) {
            r->skipped++;
            continue;
        }
        st = cr_read_input(r, i, &c->inputs[i], err);
        r->n_in++;
    }
    if (st == RL_OK && r->n == 0)
        st = rl_fail(err, RL_NOTHING, "no input has a decode operating point");
    char *desc = NULL;
    if (st == RL_OK) {
        size_t fits = 0;
        for (size_t i = 0; i < r->n_in; i++)
            fits += r->in[i].has_fit;
        char more[80] = "";
        if (r->skipped)
            rl_snprintf(more, sizeof more, " (%zu more inputs not drawn)", r->skipped);
        desc = rl_asprintf(
            "Decode tok/s against bytes per token (MB, 10^6 bytes), log-log: %zu points of %zu "
            "inputs%s, each model at its best thread count, with %zu fitted lines tok/s = BW / "
            "bytes (solid)%s. Each input has its own colour and marker, named in the legend.",
            r->n, r->n_in, more, fits,
            r->n_in <= CR_CEILINGS_UP_TO ? " and the memory ceilings (dashed, same colour)" : "");
        st = desc ? rl_chart_set_text(out, "compare-roofline",
                                      "Every input on one roofline: tok/s against bytes per token",
                                      desc, err)
                  : rl_fail(err, RL_EINTERNAL, "comparison roofline: out of memory");
    }
    if (st == RL_OK)
        st = cr_table(out, r, err);
    if (st == RL_OK) {
        r->legend_h = rl_chart_measure(cr_legend_height, r);
        st = rl_chart_render_svg(out, RL_CHART_W, 440 + r->legend_h + 8, cr_draw, r, err);
    }
    free(desc);
    cr_free(r);
    free(r);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}
