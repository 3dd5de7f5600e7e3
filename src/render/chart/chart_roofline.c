/* SPDX-License-Identifier: MIT */
/* chart_roofline.c: the decode roofline, log-log (owner: chart).
 *
 * x = bytes per token (MB = 1e6 bytes: models[].bytes_per_token.value, else the analysis'
 * figure), y = decode tok/s at each model's operating point (analysis.models[].
 * operating_point: its best depth-0 rate and thread count). A constant bandwidth is a
 * diagonal tok/s = BW / bytes: the fitted one (analysis.fit.bw_bytes_s) is solid, the ceiling
 * (analysis.ceiling.GBs) dashed, each labelled with its GB/s along the line; the vertical gap
 * between them is the utilisation. Points are labelled directly with the model's name and
 * format; MoE points are diamonds, GPU-offloaded ones triangles (both: squares), and the label
 * says "MoE" / "GPU". With fewer than two points or no fit there is no fitted line, and the
 * description says why.
 * With a calibration (analyse/predict_expect.h, docs/METHOD.md "Two roofs"): each model's
 * two-roof prediction is a hollow marker of its shape and colour at its bytes, and the kernel
 * roof (calibration compute_roof.GBs: the rate its kernel consumes cache-resident weights) of
 * each type that binds some model, up to ROOF_MAX_KERN, is a thin dark dashed line labelled
 * "Q4_0 kernel 43.1 GB/s".
 *
 * Table: one row per point (model, bytes per token exactly as the bundle has them, tok/s,
 * threads, kind), one per prediction and one per line (GB/s).
 * Ownership: the roof struct owns its strings (roof_free). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "analyse/predict_expect.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    char *label; /* "name (Q8_0, MoE)" */
    char *name;  /* as in the bundle, for the table */
    double bytes, tps;
    int64_t threads;
    size_t series; /* position in models[]: colour */
    bool moe, gpu;
    const char *id; /* analysis.models[].id, into the bundle (read only) */
    bool has_pred;  /* the two-roof prediction, from the calibration */
    double pred_tps;
} roof_pt;

#define ROOF_MAX_KERN 4
#define ROOF_KERN_RGB 0x505050u

typedef struct {
    char type[16];
    double gbs; /* calibration compute_roof.GBs */
} roof_kern;

typedef struct {
    roof_pt pt[RL_CHART_MAX_SERIES];
    size_t n, skipped;
    bool has_fit, has_ceil;
    double fit_bps, ceil_gbs;
    const char *no_fit; /* why there is no fitted line */
    roof_kern kern[ROOF_MAX_KERN];
    size_t n_kern;
    int kern_threads; /* the calibration set's thread count */
} roof;

static void roof_free(void *data)
{
    roof *r = data;
    for (size_t i = 0; i < r->n; i++) {
        free(r->pt[i].label);
        free(r->pt[i].name);
    }
    memset(r, 0, sizeof *r);
}

/* Does hay contain needle, ignoring case, '_' and '-' ("q4km" holds "Q4_K_M")? */
static bool contains_loose(const char *hay, const char *needle)
{
    char a[256], b[64];
    size_t na = 0, nb = 0;
    for (const char *p = hay; *p && na < sizeof a - 1; p++)
        if (*p != '_' && *p != '-')
            a[na++] = (char)tolower((unsigned char)*p);
    for (const char *p = needle; *p && nb < sizeof b - 1; p++)
        if (*p != '_' && *p != '-')
            b[nb++] = (char)tolower((unsigned char)*p);
    a[na] = b[nb] = '\0';
    return nb == 0 || strstr(a, b) != NULL;
}

static rl_status point_label(roof_pt *p, const cJSON *model, const char *id)
{
    char *base = rl_chart_model_label(model, id);
    if (!base)
        return RL_EINTERNAL;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(model, "gguf");
    char *fmt = rl_chart_clean(rl_json_get_str(g, "label"), 16);
    if (!fmt) {
        free(base);
        return RL_EINTERNAL;
    }
    char extra[96] = "";
    size_t k = 0;
    if (*fmt && !contains_loose(base, fmt))
        k += (size_t)rl_snprintf(extra + k, sizeof extra - k, "%s", fmt);
    if (p->moe)
        k += (size_t)rl_snprintf(extra + k, sizeof extra - k, "%sMoE", k ? ", " : "");
    if (p->gpu && k < sizeof extra)
        rl_snprintf(extra + k, sizeof extra - k, "%sGPU", k ? ", " : "");
    p->label = *extra ? rl_asprintf("%s (%s)", base, extra) : rl_strdup(base);
    free(base);
    free(fmt);
    return p->label ? RL_OK : RL_EINTERNAL;
}

/* The compute roof of type in the calibration set at threads; 0 when it has none. */
static double kern_gbs(const cJSON *bundle, int threads, const char *type)
{
    const cJSON *s, *t;
    cJSON_ArrayForEach(s, rl_json_get(rl_json_get(bundle, "calibration"), "sets"))
    {
        if ((int)rl_json_num_or(s, "threads", 0) != threads)
            continue;
        cJSON_ArrayForEach(t, rl_json_get(s, "types"))
        {
            const char *name = rl_json_get_str(t, "type");
            double g = rl_json_num_or(rl_json_get(t, "compute_roof"), "GBs", 0);
            if (name && strcmp(name, type) == 0 && rl_chart_sane(g))
                return g;
        }
    }
    return 0;
}

/* The binding type of a prediction among the kernel roofs (added once, while there is room). */
static void kern_add(const cJSON *bundle, roof *r, const char *type)
{
    for (size_t k = 0; k < r->n_kern; k++)
        if (strcmp(r->kern[k].type, type) == 0)
            return;
    double g = kern_gbs(bundle, r->kern_threads, type);
    if (r->n_kern == ROOF_MAX_KERN || !(g > 0))
        return;
    rl_snprintf(r->kern[r->n_kern].type, sizeof r->kern[r->n_kern].type, "%s", type);
    r->kern[r->n_kern++].gbs = g;
}

/* The two-roof predictions of the points and the kernel roofs that bind them. */
static rl_status roof_read_two(const cJSON *bundle, roof *r, rl_error *err)
{
    rl_pred_expect x;
    if (rl_pred_expect_build(bundle, &x, err) != RL_OK)
        return rl_fail(err, RL_EINTERNAL, "roofline chart: out of memory");
    if (x.has_fit && x.fit.has_roofs) {
        r->kern_threads = x.fit.roof_threads;
        for (size_t i = 0; i < r->n; i++)
            for (size_t k = 0; k < x.n_rows; k++) {
                const rl_roof_result *two = &x.rows[k].two;
                if (!r->pt[i].id || !x.rows[k].id || strcmp(r->pt[i].id, x.rows[k].id) != 0 ||
                    !two->ok || !rl_chart_sane(two->tok_s))
                    continue;
                r->pt[i].has_pred = true;
                r->pt[i].pred_tps = two->tok_s;
                kern_add(bundle, r, two->shares[two->binding].type);
                break;
            }
    }
    rl_pred_expect_free(&x);
    return RL_OK;
}

static rl_status roof_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    roof *r = data;
    (void)kind;
    memset(r, 0, sizeof *r);
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(bundle, "analysis");
    const cJSON *am;
    cJSON_ArrayForEach(am, cJSON_GetObjectItemCaseSensitive(an, "models"))
    {
        if (r->n == RL_CHART_MAX_SERIES) { /* no look-ups past the cap: O(models) in all */
            r->skipped++;
            continue;
        }
        size_t series = r->n;
        const cJSON *model;
        double tps, bytes;
        int64_t threads;
        if (!rl_chart_analysis_point(bundle, am, &series, &model, &tps, &bytes, &threads))
            continue;
        roof_pt *p = &r->pt[r->n];
        memset(p, 0, sizeof *p);
        p->tps = tps;
        p->bytes = bytes;
        p->series = series;
        p->threads = threads;
        bool b = false;
        if (rl_json_get_bool(am, "is_moe", &b) && b)
            p->moe = true;
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(model, "gguf");
        if (rl_json_get_bool(g, "is_moe", &b) && b)
            p->moe = true;
        if (rl_json_get_bool(am, "gpu_offload", &b) && b)
            p->gpu = true;
        const char *id = rl_json_get_str(am, "id");
        p->id = id;
        const char *nm = rl_json_get_str(model, "name");
        if (!nm)
            nm = rl_json_get_str(am, "name");
        p->name = rl_chart_clean(nm ? nm : id, RL_CHART_CELL_CHARS);
        r->n++;
        if (!p->name || point_label(p, model ? model : am, id) != RL_OK)
            return rl_fail(err, RL_EINTERNAL, "roofline chart: out of memory");
    }
    if (r->n == 0)
        return rl_fail(err, RL_NOTHING, "roofline chart: no model has a decode operating point");

    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(an, "fit");
    bool avail = false;
    double bps = 0;
    r->no_fit = rl_json_get_str(fit, "reason");
    if (rl_json_get_bool(fit, "available", &avail) && avail &&
        rl_json_get_num(fit, "bw_bytes_s", &bps) && rl_chart_sane(bps) && r->n >= 2) {
        r->has_fit = true;
        r->fit_bps = bps;
    } else if (r->n < 2) {
        r->no_fit = "a line needs at least two models";
    } else if (!r->no_fit) {
        r->no_fit = "the analysis has no fit";
    }
    const cJSON *ceil_o = cJSON_GetObjectItemCaseSensitive(an, "ceiling");
    double gbs = 0;
    if (rl_json_get_num(ceil_o, "GBs", &gbs) && rl_chart_sane(gbs)) {
        r->has_ceil = true;
        r->ceil_gbs = gbs;
    }
    return roof_read_two(bundle, r, err);
}

static rl_chart_shape shape_of(const roof_pt *p)
{
    return p->moe && p->gpu ? RL_CHART_SQUARE
           : p->moe         ? RL_CHART_DIAMOND
           : p->gpu         ? RL_CHART_TRIANGLE
                            : RL_CHART_CIRCLE;
}

static const char *kind_of(const roof_pt *p)
{
    return p->moe && p->gpu ? "MoE, GPU" : p->moe ? "MoE" : p->gpu ? "GPU" : "dense";
}

/* The line tok/s = bps / bytes across the plot: its ends in pixels. */
static void line_ends(const rl_chart_scale *xs, const rl_chart_scale *ys, double bps, double *e)
{
    e[0] = rl_chart_map(xs, xs->lo);
    e[1] = rl_chart_map(ys, bps / (xs->lo * 1e6));
    e[2] = rl_chart_map(xs, xs->hi);
    e[3] = rl_chart_map(ys, bps / (xs->hi * 1e6));
}

static void bw_line(rl_chart_canvas *cv, const rl_chart_scale *xs, const rl_chart_scale *ys,
                    const rl_chart_rect *plot, double bps, uint32_t rgb, bool dashed)
{
    double e[4];
    line_ends(xs, ys, bps, e);
    rl_chart_clip(cv, plot);
    rl_chart_line(cv, e[0], e[1], e[2], e[3], rgb, dashed ? 1.6 : 2, dashed);
    rl_chart_unclip(cv);
}

static void bw_occupy(rl_chart_canvas *cv, const rl_chart_scale *xs, const rl_chart_scale *ys,
                      const rl_chart_rect *plot, double bps)
{
    double e[4];
    line_ends(xs, ys, bps, e);
    rl_chart_occupy_line(cv, e[0], e[1], e[2], e[3], plot);
}

/* The line's label along it, above or below, where it overlaps nothing placed so far. */
static void bw_label(rl_chart_canvas *cv, const rl_chart_scale *xs, const rl_chart_scale *ys,
                     const rl_chart_rect *plot, double bps, const char *text, bool above_first)
{
    double e[4];
    line_ends(xs, ys, bps, e);
    double ang = atan2(e[3] - e[1], e[2] - e[0]), deg = ang * 180 / M_PI;
    double nx = sin(ang), ny = -cos(ang); /* unit normal towards the upper side */
    static const double ts[] = {0.88, 0.12, 0.75, 0.25, 0.62, 0.38, 0.5, 0.95, 0.05};
    rl_chart_spot spots[2 * sizeof ts / sizeof ts[0]];
    size_t n = 0;
    for (int side = 0; side < 2; side++) {
        bool above = (side == 0) == above_first;
        double off = above ? 4 : -(4 + 0.76 * RL_CHART_FS_LABEL);
        for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
            double x = e[0] + ts[i] * (e[2] - e[0]) + off * nx;
            double y = e[1] + ts[i] * (e[3] - e[1]) + off * ny;
            rl_chart_box b =
                rl_chart_text_box(cv, text, x, y, RL_CHART_FS_LABEL, true, RL_CHART_MIDDLE, deg);
            if (rl_chart_box_inside(&b, plot))
                spots[n++] = (rl_chart_spot){x, y, RL_CHART_MIDDLE, deg};
        }
    }
    if (n == 0) /* the line misses the plot: say so at its top */
        rl_chart_text(cv, text, plot->x + plot->w - 4, plot->y + RL_CHART_FS_LABEL + 2,
                      RL_CHART_FS_LABEL, true, RL_CHART_END, 0, "line-label");
    else
        rl_chart_place(cv, text, RL_CHART_FS_LABEL, true, "line-label", spots, n, plot, true);
}

rl_chart_extent rl_chart_extent_empty(void)
{
    return (rl_chart_extent){1e300, 0, 1e300, 0};
}

void rl_chart_extent_add(rl_chart_extent *b, double x, double y)
{
    b->xlo = fmin(b->xlo, x);
    b->xhi = fmax(b->xhi, x);
    b->ylo = fmin(b->ylo, y);
    b->yhi = fmax(b->yhi, y);
}

void rl_chart_roofline_axes(rl_chart_canvas *cv, double xlo, double xhi, double ybot, double ytop,
                            rl_chart_rect *plot, rl_chart_scale *xs, rl_chart_scale *ys)
{
    rl_chart_scale_log(ys, ybot, ytop, 1, plot->y + plot->h, plot->y);
    rl_chart_ticks yt, xt;
    rl_chart_ticks_nice(ys, &yt);
    plot->x = 10 + RL_CHART_FS_AXIS + 8 + rl_chart_ticks_width(cv, &yt) + 8;
    plot->w = cv->w - plot->x - 16;
    rl_chart_scale_log(xs, xlo, xhi, 1.6, plot->x, plot->x + plot->w);
    rl_chart_ticks_nice(xs, &xt);
    rl_chart_axis_y(cv, ys, &yt, plot, "decode (tok/s, log scale)");
    rl_chart_axis_x(cv, xs, &xt, plot, "bytes per token (MB = 10\xE2\x81\xB6 bytes, log scale)");
}

static void roof_draw(rl_chart_canvas *cv, void *ctx)
{
    const roof *r = ctx;
    rl_chart_extent bx = rl_chart_extent_empty();
    for (size_t i = 0; i < r->n; i++) {
        rl_chart_extent_add(&bx, r->pt[i].bytes / 1e6, r->pt[i].tps);
        if (r->pt[i].has_pred)
            rl_chart_extent_add(&bx, r->pt[i].bytes / 1e6, r->pt[i].pred_tps);
    }
    double xlo = bx.xlo, xhi = bx.xhi, ylo = bx.ylo, yhi = bx.yhi;
    rl_chart_rect plot = {0, 14, 0, cv->h - 14 - 58};
    rl_chart_scale xs, ys;
    rl_chart_scale_log(&xs, xlo, xhi, 1.6, 0, 1);
    /* the lines should show: the ceiling at the right edge, the fit there too */
    double top = yhi * 1.7, bot = ylo / 1.7;
    if (r->has_ceil)
        top = fmax(top, fmin(r->ceil_gbs * 1e9 / (xs.hi * 1e6) * 1.5, top * 30));
    if (r->has_fit)
        bot = fmin(bot, fmax(r->fit_bps / (xs.hi * 1e6) / 1.3, bot / 30));
    rl_chart_roofline_axes(cv, xlo, xhi, bot, top, &plot, &xs, &ys);

    if (r->has_ceil)
        bw_line(cv, &xs, &ys, &plot, r->ceil_gbs * 1e9, RL_CHART_VERMILLION, true);
    if (r->has_fit)
        bw_line(cv, &xs, &ys, &plot, r->fit_bps, RL_CHART_GREY, false);
    for (size_t k = 0; k < r->n_kern; k++) {
        double e[4];
        line_ends(&xs, &ys, r->kern[k].gbs * 1e9, e);
        rl_chart_clip(cv, &plot);
        rl_chart_line(cv, e[0], e[1], e[2], e[3], ROOF_KERN_RGB, 1.1, true);
        rl_chart_unclip(cv);
    }
    double px[RL_CHART_MAX_SERIES], py[RL_CHART_MAX_SERIES];
    for (size_t i = 0; i < r->n; i++) {
        px[i] = rl_chart_map(&xs, r->pt[i].bytes / 1e6);
        py[i] = rl_chart_map(&ys, r->pt[i].tps);
        rl_chart_marker(cv, shape_of(&r->pt[i]), px[i], py[i], 5,
                        rl_chart_series_color(r->pt[i].series), true);
        if (r->pt[i].has_pred) /* hollow: the two-roof prediction */
            rl_chart_marker(cv, shape_of(&r->pt[i]), px[i], rl_chart_map(&ys, r->pt[i].pred_tps), 5,
                            rl_chart_series_color(r->pt[i].series), false);
    }
    /* labels avoid crossing the lines where they can */
    if (r->has_ceil)
        bw_occupy(cv, &xs, &ys, &plot, r->ceil_gbs * 1e9);
    if (r->has_fit)
        bw_occupy(cv, &xs, &ys, &plot, r->fit_bps);
    char text[64], num[48];
    if (r->has_ceil) {
        rl_chart_fmt_gbs(num, sizeof num, r->ceil_gbs);
        rl_snprintf(text, sizeof text, "ceiling %s", num);
        bw_label(cv, &xs, &ys, &plot, r->ceil_gbs * 1e9, text, true);
    }
    if (r->has_fit) {
        rl_chart_fmt_gbs(num, sizeof num, r->fit_bps / 1e9);
        rl_snprintf(text, sizeof text, "fit %s", num);
        bw_label(cv, &xs, &ys, &plot, r->fit_bps, text, false);
    }
    for (size_t k = 0; k < r->n_kern; k++) {
        rl_chart_fmt_gbs(num, sizeof num, r->kern[k].gbs);
        rl_snprintf(text, sizeof text, "%s kernel %s", r->kern[k].type, num);
        bw_label(cv, &xs, &ys, &plot, r->kern[k].gbs * 1e9, text, true);
    }
    for (size_t i = 0; i < r->n; i++) {
        rl_chart_spot spots[RL_CHART_SPOTS_AROUND];
        size_t ns = rl_chart_spots_around(px[i], py[i], 9, RL_CHART_FS_LABEL, spots);
        rl_chart_place(cv, r->pt[i].label, RL_CHART_FS_LABEL, false, "label", spots, ns, &plot,
                       true);
    }
}

static rl_status roof_table(rl_chart *c, const void *data, rl_error *err)
{
    const roof *r = data;
    static const char *const cols[] = {"series",  "model", "bytes per token", "decode (tok/s)",
                                       "threads", "kind",  "bandwidth (GB/s)"};
    rl_status st = rl_chart_table_cols(c, 7, cols, err);
    for (size_t i = 0; st == RL_OK && i < r->n; i++) {
        char mb[48], tps[48], th[24];
        rl_chart_fmt_num(mb, sizeof mb, r->pt[i].bytes); /* exact, as the bundle has it */
        rl_chart_fmt_num(tps, sizeof tps, r->pt[i].tps);
        rl_snprintf(th, sizeof th, "%lld", (long long)r->pt[i].threads);
        const char *row[] = {
            "point", r->pt[i].name, mb, tps, r->pt[i].threads ? th : "", kind_of(&r->pt[i]), ""};
        st = rl_chart_table_row(c, row, err);
    }
    for (size_t i = 0; st == RL_OK && i < r->n; i++) {
        if (!r->pt[i].has_pred)
            continue;
        char mb[48], tps[48], th[24];
        rl_chart_fmt_num(mb, sizeof mb, r->pt[i].bytes);
        rl_chart_fmt_num(tps, sizeof tps, r->pt[i].pred_tps);
        rl_snprintf(th, sizeof th, "%d", r->kern_threads);
        const char *row[] = {"two-roof prediction", r->pt[i].name, mb, tps, th, "derived", ""};
        st = rl_chart_table_row(c, row, err);
    }
    char gbs[48];
    for (size_t k = 0; st == RL_OK && k < r->n_kern; k++) {
        char what[48];
        rl_chart_fmt_num(gbs, sizeof gbs, r->kern[k].gbs);
        rl_snprintf(what, sizeof what, "%s kernel roof", r->kern[k].type);
        const char *row[] = {what, "", "", "", "", "compute roof", gbs};
        st = rl_chart_table_row(c, row, err);
    }
    if (st == RL_OK && r->has_fit) {
        rl_chart_fmt_num(gbs, sizeof gbs, r->fit_bps / 1e9);
        const char *row[] = {"fit line", "", "", "", "", "fit", gbs};
        st = rl_chart_table_row(c, row, err);
    }
    if (st == RL_OK && r->has_ceil) {
        rl_chart_fmt_num(gbs, sizeof gbs, r->ceil_gbs);
        const char *row[] = {"ceiling line", "", "", "", "", "ceiling", gbs};
        st = rl_chart_table_row(c, row, err);
    }
    return st;
}

/* " Hollow markers are ...; the thin dark dashed lines ..." or "" without predictions. */
static void kern_desc(const roof *r, char *buf, size_t cap)
{
    size_t n_pred = 0, k = 0;
    for (size_t i = 0; i < r->n; i++)
        n_pred += r->pt[i].has_pred;
    if (n_pred == 0)
        return;
    k += (size_t)rl_snprintf(buf, cap,
                             " Hollow markers are the two-roof predictions from the calibration "
                             "at %d thread%s",
                             r->kern_threads, r->kern_threads == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_kern && k < cap; i++) {
        char num[48];
        rl_chart_fmt_gbs(num, sizeof num, r->kern[i].gbs);
        k += (size_t)rl_snprintf(
            buf + k, cap - k, "%s%s %s",
            i == 0
                ? "; the thin dark dashed lines are the kernel roofs of the types that bind them: "
                : ", ",
            r->kern[i].type, num);
    }
    if (k < cap)
        rl_snprintf(buf + k, cap - k, ".");
}

/* One or two sentences: what is plotted, and the lines (or why there is none). */
static char *roof_desc(const rl_chart_kind *kind, const void *data)
{
    const roof *r = data;
    char lines[200], more[64] = "", fit[48], ceil_s[48];
    size_t moe = 0, gpu = 0;
    (void)kind;
    for (size_t i = 0; i < r->n; i++) {
        moe += r->pt[i].moe;
        gpu += r->pt[i].gpu;
    }
    if (r->has_fit)
        rl_chart_fmt_gbs(fit, sizeof fit, r->fit_bps / 1e9);
    if (r->has_ceil)
        rl_chart_fmt_gbs(ceil_s, sizeof ceil_s, r->ceil_gbs);
    if (r->has_fit && r->has_ceil)
        rl_snprintf(lines, sizeof lines,
                    "The solid line is the fit, tok/s = %s / bytes, the dashed one the memory "
                    "ceiling, %s.",
                    fit, ceil_s);
    else if (r->has_fit)
        rl_snprintf(lines, sizeof lines,
                    "The solid line is the fit, tok/s = %s / bytes; no memory ceiling is known.",
                    fit);
    else
        rl_snprintf(lines, sizeof lines, "No fitted line (%s)%s%s.",
                    r->no_fit ? r->no_fit : "no fit",
                    r->has_ceil ? "; the dashed line is the "
                                  "memory ceiling, "
                                : "",
                    r->has_ceil ? ceil_s : "");
    if (r->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", r->skipped);
    char two[320] = "";
    kern_desc(r, two, sizeof two);
    return rl_asprintf("Decode tok/s against bytes per token (MB, 10^6 bytes), log-log, for %zu "
                       "model%s%s at their best thread counts%s%s%s. %s%s",
                       r->n, r->n == 1 ? "" : "s", more,
                       moe || gpu ? "; circles are dense models" : "", moe ? ", diamonds MoE" : "",
                       gpu ? ", triangles GPU-offloaded" : "", lines, two);
}

#define ROOF_H 440.0

static const rl_chart_kind roof_kind = {
    .id = "roofline",
    .title = "Decode roofline: tok/s against bytes per token",
    .what = "roofline chart",
    .size = sizeof(roof),
    .read = roof_read,
    .desc = roof_desc,
    .table = roof_table,
    .top_h = ROOF_H,
    .draw = roof_draw,
    .free = roof_free,
};

rl_status rl_chart_roofline(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&roof_kind, bundle, out, err);
}

rl_status rl_chart_roofline_png(const cJSON *bundle, const char *path, rl_error *err)
{
    return rl_chart_run_png(&roof_kind, bundle, path, err);
}
