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
 * Layout, in phases (roof_draw, as rrdtool's graph_paint): the frame (the PNG's title, axes),
 * the lines, the markers, then what must avoid them all: the points' labels (chart_pin.c: next
 * to the point, else out with a leader line), the lines' labels (along the line where that
 * touches nothing, else level beside it), and the legend (only the encodings drawn) in a
 * corner of the plot that covers nothing, else below the plot; the height is known after a
 * first, dry layout (roof_height), whose label places the drawing replays. The PNG is titled
 * with where it was measured (rl_chart_roof_title); the page's chart is not (the page is).
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
    bool png;         /* the PNG: titled with the machine */
    char head[320], sub[1536];
    double legend_flow_h;     /* the legend laid out in rows below the plot (measured) */
    rl_chart_roof_layout lay; /* what roof_draw placed */
    bool pinned;              /* the points' labels placed once (in the plot pinned_in) */
    rl_chart_rect pinned_in;
    rl_chart_pinned pins[RL_CHART_MAX_SERIES];
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

/* Append part (cleaned, at most 60 characters) to buf after " · ", unless empty or in seen. */
static void title_add(char *buf, size_t cap, const char *part, char (*seen)[256], size_t *n_seen)
{
    char c[256];
    rl_chart_clean_line(part, c, sizeof c, 60);
    if (!*c)
        return;
    for (size_t i = 0; i < *n_seen; i++)
        if (strcmp(seen[i], c) == 0)
            return;
    if (*n_seen < 8)
        memcpy(seen[(*n_seen)++], c, sizeof c);
    size_t len = strlen(buf);
    rl_snprintf(buf + len, cap - len, "%s%s", len ? " \xC2\xB7 " : "", c);
}

void rl_chart_roof_title(const cJSON *bundle, char *head, size_t hcap, char *sub, size_t scap)
{
    const cJSON *env = rl_json_get(bundle, "environment"), *lc = rl_json_get(bundle, "llama_cpp");
    const char *name = rl_json_get_str(rl_json_get(bundle, "source"), "name");
    const char *cpu = rl_json_get_str(env, "cpu");
    char seen[8][256], os[160] = "", build[160] = "";
    size_t n_seen = 0;
    rl_snprintf(head, hcap, "Decode roofline");
    *sub = '\0';
    title_add(head, hcap, name, seen, &n_seen);
    if (n_seen == 0)
        title_add(head, hcap, cpu, seen, &n_seen);
    title_add(sub, scap, cpu, seen, &n_seen);
    title_add(sub, scap, rl_json_get_str(env, "product_name"), seen, &n_seen);
    const char *o = rl_json_get_str(env, "os"), *a = rl_json_get_str(env, "arch");
    rl_snprintf(os, sizeof os, "%.60s%s%.60s", o ? o : "", o && a ? " " : "", a ? a : "");
    title_add(sub, scap, os, seen, &n_seen);
    const char *commit = rl_json_get_str(lc, "build_commit");
    int64_t bn = -1;
    if (!rl_json_get_i64(lc, "build_number", &bn) || bn < 0)
        bn = -1;
    char num[40] = "";
    if (bn >= 0)
        rl_snprintf(num, sizeof num, "%sbuild %lld%s", commit ? " (" : "", (long long)bn,
                    commit ? ")" : "");
    if (commit || bn >= 0)
        rl_snprintf(build, sizeof build, "llama.cpp %.60s%s", commit ? commit : "", num);
    title_add(sub, scap, build, seen, &n_seen);
}

static rl_status roof_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    roof *r = data;
    memset(r, 0, sizeof *r);
    r->png = kind->rules != NULL;
    if (r->png)
        rl_chart_roof_title(bundle, r->head, sizeof r->head, r->sub, sizeof r->sub);
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

/* A line of the chart: the constant bandwidth bps (bytes/s) across the plot, its style and
 * its label (above the line first, or below first). */
typedef struct {
    double bps;
    uint32_t rgb;
    double width;
    bool dashed, above_first;
    char text[64];
} roof_line;

/* The lines in the order drawn and labelled: the ceiling, the fit, the kernel roofs. */
static size_t roof_lines(const roof *r, roof_line *out)
{
    size_t n = 0;
    char num[48];
    if (r->has_ceil) {
        rl_chart_fmt_gbs(num, sizeof num, r->ceil_gbs);
        out[n] = (roof_line){r->ceil_gbs * 1e9, RL_CHART_VERMILLION, 1.6, true, true, ""};
        rl_snprintf(out[n++].text, sizeof out[0].text, "ceiling %s", num);
    }
    if (r->has_fit) {
        rl_chart_fmt_gbs(num, sizeof num, r->fit_bps / 1e9);
        out[n] = (roof_line){r->fit_bps, RL_CHART_GREY, 2, false, false, ""};
        rl_snprintf(out[n++].text, sizeof out[0].text, "fit %s", num);
    }
    for (size_t k = 0; k < r->n_kern; k++) {
        rl_chart_fmt_gbs(num, sizeof num, r->kern[k].gbs);
        out[n] = (roof_line){r->kern[k].gbs * 1e9, ROOF_KERN_RGB, 1.1, true, true, ""};
        rl_snprintf(out[n++].text, sizeof out[0].text, "%s kernel %s", r->kern[k].type, num);
    }
    return n;
}

/* The line's label along it, above or below, where it overlaps nothing placed so far. */
static void bw_label(rl_chart_canvas *cv, const rl_chart_scale *xs, const rl_chart_scale *ys,
                     const rl_chart_rect *plot, double bps, const char *text, bool above_first)
{
    double e[4];
    line_ends(xs, ys, bps, e);
    double ang = atan2(e[3] - e[1], e[2] - e[0]), deg = ang * 180 / M_PI;
    double nx = sin(ang), ny = -cos(ang); /* unit normal towards the upper side */
    static const double ts[] = {0.88, 0.12, 0.75, 0.25, 0.62, 0.38, 0.5,  0.95, 0.05,
                                0.82, 0.18, 0.69, 0.31, 0.56, 0.44, 0.91, 0.09};
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
    if (n == 0) { /* the line misses the plot: say so at its top */
        rl_chart_text(cv, text, plot->x + plot->w - 4, plot->y + RL_CHART_FS_LABEL + 2,
                      RL_CHART_FS_LABEL, true, RL_CHART_END, 0, "line-label");
        return;
    }
    /* the first spot touching nothing: exact segments, so hugging its own line (or lines
     * drawn on it) costs nothing */
    size_t best = 0;
    double best_cost = 1e300;
    for (size_t i = 0; i < n && best_cost > 0; i++) {
        rl_chart_box b = rl_chart_text_box(cv, text, spots[i].x, spots[i].y, RL_CHART_FS_LABEL,
                                           true, RL_CHART_MIDDLE, deg);
        double c = rl_chart_box_cost(cv, &b, 0, false);
        if (c < best_cost) {
            best_cost = c;
            best = i;
        }
    }
    /* none: level, pinned to a point of the line by a leader where one is free; else the
     * cheapest spot along it (crossing a line costs less than covering a text) */
    rl_chart_pin alts[sizeof ts / sizeof ts[0]];
    size_t na = 0;
    for (size_t i = 0; best_cost > 0 && i < sizeof ts / sizeof ts[0]; i++) {
        double x = e[0] + ts[i] * (e[2] - e[0]), y = e[1] + ts[i] * (e[3] - e[1]);
        if (x > plot->x && x < plot->x + plot->w && y > plot->y && y < plot->y + plot->h)
            alts[na++] = (rl_chart_pin){text, x, y, 0, true};
    }
    rl_chart_rect within = {plot->x + 2, plot->y + 2, plot->w - 4, plot->h - 4};
    rl_chart_pinned pinned;
    if (best_cost > 0 &&
        rl_chart_pin_one(cv, alts, na, RL_CHART_FS_LABEL, "line-label", &within, &pinned))
        return;
    rl_chart_text(cv, text, spots[best].x, spots[best].y, RL_CHART_FS_LABEL, true, RL_CHART_MIDDLE,
                  deg, "line-label");
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

#define ROOF_H 440.0       /* the chart without a title or a legend below the plot */
#define ROOF_TITLE_H 40.0  /* the PNG's two title lines */
#define ROOF_PLOT_TOP 14.0 /* px above the plot */
#define ROOF_PLOT_BOT 58.0 /* px below it: tick labels and the axis title */
#define ROOF_FS_TITLE 14.0
#define ROOF_LEG_PAD 5.0 /* px around the legend in the plot */
#define ROOF_LEG_ROW 18.0

/* s cut (by whole characters, "…" added) to at most maxw px, into out. */
static void fit_text(rl_chart_canvas *cv, const char *s, double size, bool bold, double maxw,
                     char *out, size_t cap)
{
    rl_snprintf(out, cap, "%s", s);
    size_t len = strlen(out);
    while (len > 0 && rl_chart_text_width(cv, out, size, bold) > maxw) {
        while (len > 0 && ((unsigned char)out[len - 1] & 0xC0) == 0x80)
            len--; /* continuation bytes of the last character */
        if (len > 0)
            len--;
        if (len + 4 > cap)
            len = cap > 4 ? cap - 4 : 0;
        memcpy(out + len, "\xE2\x80\xA6", 3);
        out[len + 3] = '\0';
    }
}

/* The PNG's title: what was measured and where (rl_chart_roof_title), cut to the width. */
static void roof_title(rl_chart_canvas *cv, roof *r)
{
    double maxw = cv->w - 32;
    fit_text(cv, r->head, ROOF_FS_TITLE, true, maxw, r->lay.head, sizeof r->lay.head);
    fit_text(cv, r->sub, RL_CHART_FS_NOTE, false, maxw, r->lay.sub, sizeof r->lay.sub);
    rl_chart_text(cv, r->lay.head, 16, 21, ROOF_FS_TITLE, true, RL_CHART_START, 0, "title");
    if (*r->lay.sub)
        rl_chart_text(cv, r->lay.sub, 16, 37, RL_CHART_FS_NOTE, false, RL_CHART_START, 0, "note");
}

/* The title (PNG), the scales and the axes. The plot is as high whatever the canvas' height:
 * a legend below it makes the canvas taller, never the plot smaller. */
static void roof_frame(rl_chart_canvas *cv, roof *r, rl_chart_rect *plot, rl_chart_scale *xs,
                       rl_chart_scale *ys)
{
    if (r->png)
        roof_title(cv, r);
    rl_chart_extent bx = rl_chart_extent_empty();
    for (size_t i = 0; i < r->n; i++) {
        rl_chart_extent_add(&bx, r->pt[i].bytes / 1e6, r->pt[i].tps);
        if (r->pt[i].has_pred)
            rl_chart_extent_add(&bx, r->pt[i].bytes / 1e6, r->pt[i].pred_tps);
    }
    double xlo = bx.xlo, xhi = bx.xhi, ylo = bx.ylo, yhi = bx.yhi;
    double top_y = ROOF_PLOT_TOP + (r->png ? ROOF_TITLE_H : 0);
    *plot = (rl_chart_rect){0, top_y, 0, ROOF_H - ROOF_PLOT_TOP - ROOF_PLOT_BOT};
    rl_chart_scale_log(xs, xlo, xhi, 1.6, 0, 1);
    /* the lines should show: the ceiling at the right edge, the fit there too */
    double top = yhi * 1.7, bot = ylo / 1.7;
    if (r->has_ceil)
        top = fmax(top, fmin(r->ceil_gbs * 1e9 / (xs->hi * 1e6) * 1.5, top * 30));
    if (r->has_fit)
        bot = fmin(bot, fmax(r->fit_bps / (xs->hi * 1e6) / 1.3, bot / 30));
    rl_chart_roofline_axes(cv, xlo, xhi, bot, top, plot, xs, ys);
}

/* The legend's entries: only the encodings this chart uses. */
static size_t roof_keys(const roof *r, rl_chart_key *keys)
{
    bool pred = false, shape[4] = {false, false, false, false};
    for (size_t i = 0; i < r->n; i++) {
        pred = pred || r->pt[i].has_pred;
        shape[shape_of(&r->pt[i])] = true;
    }
    size_t n = 0;
    const uint32_t g = RL_CHART_GREY;
    keys[n++] = (rl_chart_key){
        "measured (colour: the model)", RL_CHART_KEY_MARKER, g, RL_CHART_CIRCLE, false, true};
    if (pred)
        keys[n++] = (rl_chart_key){
            "two-roof prediction", RL_CHART_KEY_MARKER, g, RL_CHART_CIRCLE, false, false};
    if (shape[RL_CHART_DIAMOND] || shape[RL_CHART_TRIANGLE] || shape[RL_CHART_SQUARE]) {
        static const char *const what[4] = {"dense", "MoE, GPU-offloaded", "GPU-offloaded", "MoE"};
        static const rl_chart_shape order[4] = {RL_CHART_CIRCLE, RL_CHART_DIAMOND,
                                                RL_CHART_TRIANGLE, RL_CHART_SQUARE};
        for (size_t k = 0; k < 4; k++)
            if (shape[order[k]])
                keys[n++] =
                    (rl_chart_key){what[order[k]], RL_CHART_KEY_MARKER, g, order[k], false, true};
    }
    if (r->has_fit)
        keys[n++] = (rl_chart_key){"fit: effective bandwidth",
                                   RL_CHART_KEY_LINE,
                                   RL_CHART_GREY,
                                   RL_CHART_CIRCLE,
                                   false,
                                   false};
    if (r->has_ceil)
        keys[n++] = (rl_chart_key){
            "memory ceiling", RL_CHART_KEY_LINE, RL_CHART_VERMILLION, RL_CHART_CIRCLE, true, false};
    if (r->n_kern > 0)
        keys[n++] = (rl_chart_key){"kernel roof (calibration)",
                                   RL_CHART_KEY_LINE,
                                   ROOF_KERN_RGB,
                                   RL_CHART_CIRCLE,
                                   true,
                                   false};
    return n;
}

/* The legend in a corner of the plot where it touches no line and covers no marker or text
 * (bottom left, top right, bottom right, top left), else in rows below the plot. */
static void roof_legend(rl_chart_canvas *cv, roof *r, const rl_chart_rect *plot)
{
    rl_chart_key keys[RL_CHART_ROOF_KEYS];
    size_t n = roof_keys(r, keys);
    double wmax = 0;
    for (size_t i = 0; i < n; i++) {
        r->lay.keys[i] = keys[i].text;
        wmax = fmax(wmax, 25 + rl_chart_text_width(cv, keys[i].text, RL_CHART_FS_LABEL, false));
    }
    r->lay.n_keys = n;
    double bw = wmax + 2 * ROOF_LEG_PAD, bh = (double)n * ROOF_LEG_ROW + 2 * ROOF_LEG_PAD;
    double l = plot->x + 6, rt = plot->x + plot->w - 6 - bw;
    double t = plot->y + 6, b = plot->y + plot->h - 6 - bh;
    const double corner[4][2] = {{l, b}, {rt, t}, {rt, b}, {l, t}};
    for (size_t k = 0; k < 4; k++) {
        rl_chart_box box = rl_chart_box_rect(corner[k][0], corner[k][1], bw, bh);
        if (!rl_chart_box_inside(&box, plot) || !rl_chart_box_clear(cv, &box))
            continue;
        rl_chart_occupy(cv, &box);
        double x0 = corner[k][0], y0 = corner[k][1];
        const double fx[5] = {x0, x0 + bw, x0 + bw, x0, x0};
        const double fy[5] = {y0, y0, y0 + bh, y0 + bh, y0};
        rl_chart_polyline(cv, fx, fy, 5, RL_CHART_GREY, 0.6, false);
        rl_chart_legend(cv, keys, n, x0 + ROOF_LEG_PAD, y0 + ROOF_LEG_PAD, 1, true);
        r->lay.legend = (rl_chart_rect){x0, y0, bw, bh};
        r->lay.legend_inside = true;
        return;
    }
    double y0 = plot->y + plot->h + ROOF_PLOT_BOT;
    r->legend_flow_h = rl_chart_legend(cv, keys, n, plot->x, y0, plot->w, true);
    r->lay.legend = (rl_chart_rect){plot->x, y0, plot->w, r->legend_flow_h};
}

/* The phases, in order: frame (title, axes), lines, markers, then what avoids them: the
 * points' labels, the lines' labels, and last the legend where that leaves room. */
static void roof_draw(rl_chart_canvas *cv, void *ctx)
{
    roof *r = ctx;
    rl_chart_roof_layout *lay = &r->lay;
    memset(lay, 0, sizeof *lay);
    lay->w = cv->w;
    lay->h = cv->h;
    rl_chart_rect plot;
    rl_chart_scale xs, ys;
    roof_frame(cv, r, &plot, &xs, &ys);
    lay->plot = plot;
    roof_line lines[RL_CHART_ROOF_LINES];
    size_t nl = roof_lines(r, lines);
    double e[4];
    for (size_t k = 0; k < nl; k++) {
        line_ends(&xs, &ys, lines[k].bps, e);
        rl_chart_clip(cv, &plot);
        rl_chart_line(cv, e[0], e[1], e[2], e[3], lines[k].rgb, lines[k].width, lines[k].dashed);
        rl_chart_unclip(cv);
    }
    double px[RL_CHART_MAX_SERIES], py[RL_CHART_MAX_SERIES];
    for (size_t i = 0; i < r->n; i++) {
        px[i] = rl_chart_map(&xs, r->pt[i].bytes / 1e6);
        py[i] = rl_chart_map(&ys, r->pt[i].tps);
        uint32_t rgb = rl_chart_series_color(r->pt[i].series);
        rl_chart_marker(cv, shape_of(&r->pt[i]), px[i], py[i], 5, rgb, true);
        lay->marks[lay->n_marks++] = rl_chart_box_rect(px[i] - 6, py[i] - 6, 12, 12);
        if (r->pt[i].has_pred) { /* hollow: the two-roof prediction */
            double y = rl_chart_map(&ys, r->pt[i].pred_tps);
            rl_chart_marker(cv, shape_of(&r->pt[i]), px[i], y, 5, rgb, false);
            lay->marks[lay->n_marks++] = rl_chart_box_rect(px[i] - 6, y - 6, 12, 12);
        }
    }
    /* every line is an obstacle before any label is placed */
    for (size_t k = 0; k < nl; k++) {
        line_ends(&xs, &ys, lines[k].bps, e);
        rl_chart_occupy_line(cv, e[0], e[1], e[2], e[3], &plot);
        lay->lines[k] = (rl_chart_seg){e[0], e[1], e[2], e[3], RL_CHART_SEG_LINE};
        rl_chart_seg_clip(&lay->lines[k], &plot);
    }
    lay->n_lines = nl;
    rl_chart_pin pins[RL_CHART_MAX_SERIES];
    for (size_t i = 0; i < r->n; i++) {
        pins[i] = (rl_chart_pin){r->pt[i].label, px[i], py[i], 5, false};
        lay->px[i] = px[i];
        lay->py[i] = py[i];
    }
    /* placed once: the second drawing (the first decided the height) replays them */
    rl_chart_rect within = {plot.x + 2, plot.y + 2, plot.w - 4, plot.h - 4};
    if (r->pinned && memcmp(&r->pinned_in, &plot, sizeof plot) == 0) {
        rl_chart_pin_replay(cv, pins, r->n, RL_CHART_FS_LABEL, "label", r->pins, lay->pins);
    } else {
        rl_chart_pin_labels(cv, pins, r->n, RL_CHART_FS_LABEL, "label", &within, lay->pins);
        memcpy(r->pins, lay->pins, sizeof r->pins);
        r->pinned_in = plot;
        r->pinned = true;
    }
    lay->n_pts = r->n;
    for (size_t k = 0; k < nl; k++) {
        bw_label(cv, &xs, &ys, &plot, lines[k].bps, lines[k].text, lines[k].above_first);
        rl_chart_last_text_box(cv, &lay->line_labels[k]);
    }
    roof_legend(cv, r, &plot);
}

/* The height: the legend is tried in the plot by laying the chart out once (rl_chart_dry_run);
 * when it does not fit there, the canvas grows by its rows below the plot. */
static double roof_height(void *data)
{
    roof *r = data;
    double h = ROOF_H + (r->png ? ROOF_TITLE_H : 0);
    rl_chart_dry_run(RL_CHART_W, h, roof_draw, r);
    return r->lay.legend_inside ? h : ceil(h + r->legend_flow_h + 8);
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

static const rl_chart_kind roof_kind = {
    .id = "roofline",
    .title = "Decode roofline: tok/s against bytes per token",
    .what = "roofline chart",
    .size = sizeof(roof),
    .read = roof_read,
    .desc = roof_desc,
    .table = roof_table,
    .height = roof_height,
    .draw = roof_draw,
    .free = roof_free,
};

/* The PNG's: the same chart titled with the machine (rules: non-NULL marks it). */
static const bool roof_png_rule = true;
static const rl_chart_kind roof_png_kind = {
    .id = "roofline",
    .title = "Decode roofline: tok/s against bytes per token",
    .what = "roofline chart",
    .rules = &roof_png_rule,
    .size = sizeof(roof),
    .read = roof_read,
    .desc = roof_desc,
    .table = roof_table,
    .height = roof_height,
    .draw = roof_draw,
    .free = roof_free,
};

rl_status rl_chart_roofline(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&roof_kind, bundle, out, err);
}

rl_status rl_chart_roofline_png(const cJSON *bundle, const char *path, rl_error *err)
{
    return rl_chart_run_png(&roof_png_kind, bundle, path, err);
}

rl_status rl_chart_roofline_layout(const cJSON *bundle, bool png, rl_chart_roof_layout *out,
                                   rl_error *err)
{
    memset(out, 0, sizeof *out);
    const rl_chart_kind *k = png ? &roof_png_kind : &roof_kind;
    roof *r = rl_calloc(1, sizeof *r);
    if (!r)
        return rl_fail(err, RL_EINTERNAL, "roofline chart: out of memory");
    rl_status st = roof_read(k, bundle, r, err);
    if (st == RL_OK) {
        rl_chart_dry_run(RL_CHART_W, roof_height(r), roof_draw, r);
        *out = r->lay;
    }
    roof_free(r);
    free(r);
    return st;
}
