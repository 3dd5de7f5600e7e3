/* SPDX-License-Identifier: MIT */
/* chart_int.h: the chart module's internals, shared by src/chart_*.c only (owner: chart).
 *
 * Four layers, as rrdtool keeps rrd_graph.c (layout) apart from rrd_gfx.c (drawing):
 *   chart_data.c    reading a bundle that may be hostile: rates, look-ups, bounded clean text;
 *                   the rl_chart table and rl_chart_free
 *   chart_layout.c  scales (linear, log10, the log2-like depth axis), "nice" ticks and their
 *                   labels, oriented boxes and the overlap test used to place labels
 *   chart_draw.c    the canvas: cairo primitives (lines, dashes, markers, bars), axes and
 *                   legends, and the text collector that measures strings with cairo (DejaVu
 *                   Sans) and records them for later
 *   chart_pin.c     labels pinned to points: placed where they cross no drawn line, label or
 *                   marker, next to the point or further out joined to it by a leader line
 *   chart_svg.c     rendering a draw callback to SVG (cairo never draws text there: the
 *                   collected strings become <text> nodes through libxml2) or to PNG (cairo
 *                   draws the collected strings itself)
 * and one file per chart (chart_roofline.c, chart_threads.c, chart_long_context.c,
 * chart_composition.c, chart_membw.c).
 *
 * Ownership: a canvas owns its recorded strings and obstacle list (freed by the renderer);
 * strings returned by rl_chart_clean are malloc'd and owned by the caller. Coordinates are
 * CSS pixels in a viewBox RL_CHART_W wide, y downwards. */
#ifndef RL_CHART_INT_H
#define RL_CHART_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>
#include <cjson/cJSON.h>

#include "render/chart/chart.h"
#include "base/rl_error.h"

/* ---- limits: a hostile bundle can hold anything; charts draw at most this much ---------- */
#define RL_CHART_W 720.0
#define RL_CHART_MAX_SERIES 48       /* models or kernels drawn in one chart */
#define RL_CHART_MAX_POINTS 64       /* points in one series (thread counts, depths) */
#define RL_CHART_MAX_TYPES 24        /* ggml types in one composition bar */
#define RL_CHART_MAX_TEXTS 4096      /* <text> nodes in one chart */
#define RL_CHART_LABEL_CHARS 40      /* characters of a name in a chart label (then "…") */
#define RL_CHART_CELL_CHARS 256      /* characters of a name in the data table */
#define RL_CHART_MAX_SVG (16u << 20) /* bytes of cairo output accepted */
#define RL_CHART_FONT "DejaVu Sans"
#define RL_CHART_FONT_STACK "DejaVu Sans, Verdana, sans-serif"

/* Text sizes (px). */
#define RL_CHART_FS_TICK 11.0
#define RL_CHART_FS_AXIS 12.0
#define RL_CHART_FS_LABEL 11.0
#define RL_CHART_FS_NOTE 11.0

/* ---- colours: Okabe-Ito without black (invisible on dark pages) ------------------------- */
#define RL_CHART_ORANGE 0xE69F00u
#define RL_CHART_SKY 0x56B4E9u
#define RL_CHART_GREEN 0x009E73u
#define RL_CHART_YELLOW 0xF0E442u
#define RL_CHART_BLUE 0x0072B2u
#define RL_CHART_VERMILLION 0xD55E00u
#define RL_CHART_PURPLE 0xCC79A7u
#define RL_CHART_GREY 0x8C8C8Cu /* axes, grid, neutral reference lines: mid grey */

/* Series colour i (cycles; vermillion is kept for ceilings). */
uint32_t rl_chart_series_color(size_t i);

/* ---- chart_data.c: reading the bundle ------------------------------------------------- */

/* A positive finite number small enough to scale and print (0 < v < 1e15). */
bool rl_chart_sane(double v);
/* A rate object's value: stats.mean, else "mean" (imported rates without samples), else the
 * mean of the positive numbers in "samples"; false unless the result is sane. */
bool rl_chart_rate(const cJSON *rate, double *out);
/* One analysis.models[] entry as a roofline point: its models[] entry (*model, NULL when the id
 * is unknown; *index as rl_bundle_model), the operating point's decode tok/s, the bytes
 * per token (the model's bytes_per_token.value, else the entry's own) and threads (0 when
 * missing or negative). False, with nothing to plot, unless tok/s and bytes are sane. */
bool rl_chart_analysis_point(const cJSON *bundle, const cJSON *am, size_t *index,
                             const cJSON **model, double *tps, double *bytes, int64_t *threads);

/* s (may be NULL: "") as text safe for an XML text node: bytes that are not UTF-8 and
 * characters XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF) become U+FFFD, and more than
 * max_chars characters end in "…". NULL only when out of memory. */
char *rl_chart_clean(const char *s, size_t max_chars);
/* s (may be NULL: "") as one line of plain text into buf: control characters (C0, DEL, C1)
 * and runs of spaces become one space, leading and trailing ones go; bytes that are not UTF-8
 * and U+FFFE, U+FFFF become U+FFFD; more than max_chars characters end in "…". Never more
 * than cap - 1 bytes. */
void rl_chart_clean_line(const char *s, char *buf, size_t cap, size_t max_chars);
/* A model's display name for labels: models[].name without ".gguf" (else the id), cleaned
 * and cut at RL_CHART_LABEL_CHARS. NULL only when out of memory. */
char *rl_chart_model_label(const cJSON *model, const char *fallback);

/* Numbers for tables (full precision, C locale): "%.10g"; integers exactly. */
void rl_chart_fmt_num(char *buf, size_t cap, double v);
/* "37.65 GB/s". */
void rl_chart_fmt_gbs(char *buf, size_t cap, double gbs);

/* The table: set the columns once, then add rows of n_cols cells (copied, cleaned). */
rl_status rl_chart_table_cols(rl_chart *c, size_t n, const char *const *cols, rl_error *err);
rl_status rl_chart_table_row(rl_chart *c, const char *const *cells, rl_error *err);
/* id, title and desc (copied). */
rl_status rl_chart_set_text(rl_chart *c, const char *id, const char *title, const char *desc,
                            rl_error *err);

/* ---- chart_layout.c: geometry ---------------------------------------------------------- */

typedef struct {
    double x, y, w, h;
} rl_chart_rect;

/* An oriented box: centre, half extents, rotation (radians); as an occupied region, cost is
 * what overlapping it costs a label (0: RL_CHART_COST_SOLID). */
typedef struct {
    double cx, cy, hw, hh, angle;
    double cost;
} rl_chart_box;
#define RL_CHART_COST_SOLID 10.0 /* a text or a marker */
#define RL_CHART_COST_LINE 1.0   /* a piece of a drawn line: crossing it is a lesser evil */

bool rl_chart_box_overlap(const rl_chart_box *a, const rl_chart_box *b);
bool rl_chart_box_inside(const rl_chart_box *b, const rl_chart_rect *r);
rl_chart_box rl_chart_box_rect(double x, double y, double w, double h);

/* A drawn straight line as an obstacle for labels: a data line (a roof, a bandwidth line), an
 * axis, or a leader line joining a label to its point. */
typedef enum { RL_CHART_SEG_LINE, RL_CHART_SEG_AXIS, RL_CHART_SEG_LEADER } rl_chart_seg_kind;
typedef struct {
    double x0, y0, x1, y1;
    rl_chart_seg_kind kind;
} rl_chart_seg;

/* Does segment s touch box b (its closed area, rotation included)? */
bool rl_chart_seg_hits_box(const rl_chart_seg *s, const rl_chart_box *b);
/* Do segments a and b cross (each has the other's ends strictly on both sides; touching ends
 * and collinear overlap are not crossings)? */
bool rl_chart_segs_cross(const rl_chart_seg *a, const rl_chart_seg *b);
/* s cut to the part inside r; false when nothing of it is inside. */
bool rl_chart_seg_clip(rl_chart_seg *s, const rl_chart_rect *r);
/* The distance from (x, y) to box b (0 inside it) and the point of b nearest (x, y). */
double rl_chart_box_dist(const rl_chart_box *b, double x, double y, double *qx, double *qy);

typedef enum { RL_CHART_LIN, RL_CHART_LOG, RL_CHART_DEPTH } rl_chart_scale_kind;

typedef struct {
    rl_chart_scale_kind kind;
    double lo, hi; /* data domain (LOG: > 0; DEPTH: lo = 0) */
    double p0, p1; /* pixels that lo and hi map to */
    double unit;   /* DEPTH: the smallest positive depth: x = log2(1 + d / unit) */
    double step;   /* LIN: the tick step */
} rl_chart_scale;

/* Linear over [lo, hi] widened to nice tick bounds (from zero when from_zero and lo >= 0). */
void rl_chart_scale_lin(rl_chart_scale *s, double lo, double hi, bool from_zero, double p0,
                        double p1);
/* Linear over [lo, hi] exactly, widened by frac of the span on each side (a single value: +-1). */
void rl_chart_scale_pad(rl_chart_scale *s, double lo, double hi, double frac, double p0, double p1);
/* log10 over [lo, hi] (both > 0; widened by pad as a factor on each side). */
void rl_chart_scale_log(rl_chart_scale *s, double lo, double hi, double pad, double p0, double p1);
/* Depth: 0 at p0, the largest depth at p1, log2-like in between. */
void rl_chart_scale_depth(rl_chart_scale *s, double max_depth, double unit, double p0, double p1);
double rl_chart_map(const rl_chart_scale *s, double v);

#define RL_CHART_MAX_TICKS 32
typedef struct {
    double v;
    bool label; /* false: grid line only */
    char text[24];
} rl_chart_tick;
typedef struct {
    rl_chart_tick t[RL_CHART_MAX_TICKS];
    size_t n;
} rl_chart_ticks;

/* Readable ticks: linear 1/2/5 x 10^k steps; log10 1-2-5 (or 1-3, or decades) per decade;
 * depth at the given values. Labels are compact numbers ("0.5", "20", "1500", "20k", "2M"). */
void rl_chart_ticks_nice(const rl_chart_scale *s, rl_chart_ticks *out);
/* Ticks at the given values (sorted, duplicates dropped, at most RL_CHART_MAX_TICKS);
 * depth_style labels 2048 as "2k". */
void rl_chart_ticks_at(const double *v, size_t n, bool depth_style, rl_chart_ticks *out);
/* A compact tick label: v / div with suffix ("k", "M" or ""), at most 4 significant digits. */
void rl_chart_fmt_tick(char *buf, size_t cap, double v, double div, const char *suffix);

/* ---- chart_draw.c: the canvas ---------------------------------------------------------- */

typedef enum { RL_CHART_START, RL_CHART_MIDDLE, RL_CHART_END } rl_chart_anchor;

typedef struct {
    char *s;      /* cleaned UTF-8 */
    double x, y;  /* anchor point on the baseline */
    double size;  /* px */
    double angle; /* degrees, rotation about (x, y) (SVG's rotate) */
    double w;     /* measured advance width */
    rl_chart_anchor anchor;
    bool bold;
    const char *cls; /* a static class name: "tick", "axis", "label", "note", "legend" */
} rl_chart_text_rec;

typedef struct {
    cairo_t *cr;  /* the target: an SVG or image surface */
    cairo_t *mcr; /* measuring: a 1x1 image surface, DejaVu Sans, metrics unhinted */
    double w, h;
    rl_chart_text_rec *texts;
    size_t n_texts, cap_texts;
    rl_chart_box *occupied; /* texts and markers placed so far, for label placement */
    size_t n_occ, cap_occ;
    rl_chart_seg *segs; /* lines, axes and leaders drawn so far, exactly (rl_chart_pin_labels) */
    size_t n_segs, cap_segs;
    bool failed; /* out of memory while recording */
} rl_chart_canvas;

typedef enum {
    RL_CHART_CIRCLE,
    RL_CHART_SQUARE,
    RL_CHART_TRIANGLE,
    RL_CHART_DIAMOND
} rl_chart_shape;

/* Marker shape for series i (cycles of 4 against 6 colours: 12 distinct pairs). */
rl_chart_shape rl_chart_series_shape(size_t i);

void rl_chart_line(rl_chart_canvas *cv, double x0, double y0, double x1, double y1, uint32_t rgb,
                   double width, bool dashed);
void rl_chart_polyline(rl_chart_canvas *cv, const double *x, const double *y, size_t n,
                       uint32_t rgb, double width, bool dashed);
/* A marker of radius r; registered as occupied so labels avoid it. */
void rl_chart_marker(rl_chart_canvas *cv, rl_chart_shape shape, double x, double y, double r,
                     uint32_t rgb, bool filled);
void rl_chart_bar(rl_chart_canvas *cv, double x, double y, double w, double h, uint32_t rgb);
void rl_chart_clip(rl_chart_canvas *cv, const rl_chart_rect *r);
void rl_chart_unclip(rl_chart_canvas *cv);

/* Advance width of s in px. */
double rl_chart_text_width(rl_chart_canvas *cv, const char *s, double size, bool bold);
/* The box s would occupy drawn at (x, y) with this anchor and angle (degrees). */
rl_chart_box rl_chart_text_box(rl_chart_canvas *cv, const char *s, double x, double y, double size,
                               bool bold, rl_chart_anchor a, double angle);
/* Record a text (copied, cleaned) and mark its box occupied. */
void rl_chart_text(rl_chart_canvas *cv, const char *s, double x, double y, double size, bool bold,
                   rl_chart_anchor a, double angle, const char *cls);
void rl_chart_occupy(rl_chart_canvas *cv, const rl_chart_box *b);
/* Mark a drawn line occupied (as a chain of thin boxes; only the part inside within), and
 * record it as a segment of kind RL_CHART_SEG_LINE. */
void rl_chart_occupy_line(rl_chart_canvas *cv, double x0, double y0, double x1, double y1,
                          const rl_chart_rect *within);
/* The same for a segment of any kind. */
void rl_chart_occupy_seg(rl_chart_canvas *cv, const rl_chart_seg *s, const rl_chart_rect *within);
/* Record a segment only (cut to within when set): seen by rl_chart_pin_labels, not by the
 * costs of rl_chart_place. The axes record theirs. */
void rl_chart_add_seg(rl_chart_canvas *cv, const rl_chart_seg *s, const rl_chart_rect *within);
/* The box of the text recorded last; false when there is none. */
bool rl_chart_last_text_box(const rl_chart_canvas *cv, rl_chart_box *b);
/* True when b lies inside within and overlaps nothing occupied. */
bool rl_chart_is_free(const rl_chart_canvas *cv, const rl_chart_box *b,
                      const rl_chart_rect *within);

/* A candidate position for a label. */
typedef struct {
    double x, y;
    rl_chart_anchor anchor;
    double angle;
} rl_chart_spot;
/* Place s at the first free spot; when none is free and force, at the cheapest one (fewest
 * lines crossed, then texts and markers overlapped, then leaving within, never the canvas);
 * else not at all. Returns the index of the spot used, or -1. */
int rl_chart_place(rl_chart_canvas *cv, const char *s, double size, bool bold, const char *cls,
                   const rl_chart_spot *spots, size_t n, const rl_chart_rect *within, bool force);
/* Spots around a point at distance d: right, left, above, below, the four diagonals; then the
 * same at 2.2 d (16 in all: out must hold RL_CHART_SPOTS_AROUND). */
#define RL_CHART_SPOTS_AROUND 16
size_t rl_chart_spots_around(double x, double y, double d, double size, rl_chart_spot *out);

/* ---- chart_pin.c: labels pinned to points ------------------------------------------------ */

/* A point to label: its text (bold or not), its centre and its marker's radius. */
typedef struct {
    const char *text;
    double x, y, r;
    bool bold;
} rl_chart_pin;
/* Where its label went: box (angle 0); leader true when the label sits further than
 * RL_CHART_LEADER_GAP px beyond the marker's edge, joined to it by line (from the marker's
 * edge to the box's nearest point); clear false when no place crossed nothing and the
 * cheapest was taken. */
typedef struct {
    rl_chart_box box;
    bool leader, clear;
    rl_chart_seg line;
} rl_chart_pinned;
#define RL_CHART_LEADER_GAP 8.0
#define RL_CHART_LEADER_RGB RL_CHART_GREY
/* Label the n points (at most RL_CHART_MAX_SERIES), each inside within, touching no segment
 * recorded so far (lines, axes, leaders) and overlapping no text or marker: next to its point
 * (right, left, above, below, the diagonals) where that is free, else further out (rings of
 * 24 directions, then a grid over within) joined to it by a leader line that crosses no text
 * or marker (nor, where it can, a line or another leader); the cheapest place, clear false,
 * when nothing is free. Crowded points first; tried again with the labels left without a
 * free place first (chart_pin.c says how). Records the texts, draws and records the leaders;
 * out gets n results. Deterministic. */
void rl_chart_pin_labels(rl_chart_canvas *cv, const rl_chart_pin *pins, size_t n, double size,
                         const char *cls, const rl_chart_rect *within, rl_chart_pinned *out);
/* The labels placed again where placed says (an earlier rl_chart_pin_labels of the same pins
 * on a canvas laid out the same way): the same texts and leaders, without the search. */
void rl_chart_pin_replay(rl_chart_canvas *cv, const rl_chart_pin *pins, size_t n, double size,
                         const char *cls, const rl_chart_pinned *placed, rl_chart_pinned *out);
/* One label pinned to the first of n alternative points (the same text) with a free place,
 * taking the passes of rl_chart_pin_labels across all of them in turn; false, nothing placed,
 * when no place is free. */
bool rl_chart_pin_one(rl_chart_canvas *cv, const rl_chart_pin *alts, size_t n, double size,
                      const char *cls, const rl_chart_rect *within, rl_chart_pinned *out);
/* What box b touches: each recorded segment within margin px of it costs RL_CHART_COST_LINE,
 * each text or marker it overlaps RL_CHART_COST_SOLID (the thin boxes of lines are not
 * counted: the segments stand for them exactly); stop: return at the first. */
double rl_chart_box_cost(const rl_chart_canvas *cv, const rl_chart_box *b, double margin,
                         bool stop);
/* True when b keeps the pinned labels' air (1.5 px) from every recorded segment and overlaps
 * no text or marker: what a free place for a pinned label is, without the plot bounds. */
bool rl_chart_box_clear(const rl_chart_canvas *cv, const rl_chart_box *b);

/* Axes: grid lines across the plot, tick labels outside it, the axis title centred; the axis
 * line is recorded as a segment (RL_CHART_SEG_AXIS). */
void rl_chart_axis_x(rl_chart_canvas *cv, const rl_chart_scale *s, const rl_chart_ticks *t,
                     const rl_chart_rect *plot, const char *title);
void rl_chart_axis_y(rl_chart_canvas *cv, const rl_chart_scale *s, const rl_chart_ticks *t,
                     const rl_chart_rect *plot, const char *title);
/* The widest tick label of t in px. */
double rl_chart_ticks_width(rl_chart_canvas *cv, const rl_chart_ticks *t);

/* Legend entries laid out in rows from (x, y) within width w; returns the height used. An
 * entry shows a marker or a line sample (dashed) or a swatch, then its text. */
typedef enum { RL_CHART_KEY_MARKER, RL_CHART_KEY_LINE, RL_CHART_KEY_SWATCH } rl_chart_key_kind;
typedef struct {
    const char *text;
    rl_chart_key_kind kind;
    uint32_t rgb;
    rl_chart_shape shape;
    bool dashed;
    bool filled;
} rl_chart_key;
double rl_chart_legend(rl_chart_canvas *cv, const rl_chart_key *keys, size_t n, double x, double y,
                       double w, bool draw);
/* The legend entry of series i drawn as a line (solid or dashed) in its colour and marker. */
rl_chart_key rl_chart_series_key(const char *text, size_t i, bool dashed);

/* Stack labels at the right end of lines: ys[] are the wanted baselines (ends of lines),
 * spread apart to at least gap px and kept within [top, bottom]; out[] gets the positions. */
void rl_chart_spread(const double *ys, size_t n, double gap, double top, double bottom,
                     double *out);

/* ---- chart_svg.c: rendering ------------------------------------------------------------ */

typedef void (*rl_chart_draw_fn)(rl_chart_canvas *cv, void *ctx);

/* Draw onto an SVG surface w x h, move the recorded texts into <text> nodes, add <title> and
 * <desc> (from c->title and c->desc, set before), rename every id to "rl-<c->id>-<letters><n>"
 * (stable, unique per chart), set viewBox and width 100%, and store the document in c->svg. */
rl_status rl_chart_render_svg(rl_chart *c, double w, double h, rl_chart_draw_fn draw, void *ctx,
                              rl_error *err);
/* Run fn on a throwaway canvas (measuring only, nothing kept) and return what it returns: for
 * layout that must be known before the surface is made, e.g. the height of a legend. */
double rl_chart_measure(double (*fn)(rl_chart_canvas *cv, void *ctx), void *ctx);
/* Run draw on a throwaway canvas w x h (an image surface of 1 x 1: nothing kept), for layout
 * decided by drawing, e.g. whether a legend fits inside the plot. */
void rl_chart_dry_run(double w, double h, rl_chart_draw_fn draw, void *ctx);
/* Draw onto a white image surface at scale 2 with cairo drawing the texts, and write the PNG
 * to path (rl_write_file). */
rl_status rl_chart_render_png(const char *path, double w, double h, rl_chart_draw_fn draw,
                              void *ctx, rl_error *err);

/* ---- chart_roofline.c: the roofline's axes, shared with the comparison's (chart_compare.c) -- */

/* Log y over [ybot, ytop] (tok/s) from plot->y down plot->h, then plot->x and plot->w from the
 * y tick labels' width, log x over [xlo, xhi] (MB, widened x1.6 each side); grid, ticks and
 * both axis titles drawn. */
void rl_chart_roofline_axes(rl_chart_canvas *cv, double xlo, double xhi, double ybot, double ytop,
                            rl_chart_rect *plot, rl_chart_scale *xs, rl_chart_scale *ys);
/* The extent of a roofline's points: x in MB, y in tok/s. Empty: lo 1e300, hi 0. */
typedef struct {
    double xlo, xhi, ylo, yhi;
} rl_chart_extent;
rl_chart_extent rl_chart_extent_empty(void);
void rl_chart_extent_add(rl_chart_extent *b, double x, double y);

/* The decode roofline as laid out (chart_roofline.c), for tests: what each phase placed. */
#define RL_CHART_ROOF_LINES 6 /* the ceiling, the fit, up to 4 kernel roofs */
#define RL_CHART_ROOF_KEYS 10
typedef struct {
    double w, h; /* the canvas */
    rl_chart_rect plot;
    size_t n_pts; /* points, in analysis.models[] order */
    double px[RL_CHART_MAX_SERIES], py[RL_CHART_MAX_SERIES]; /* their centres */
    rl_chart_pinned pins[RL_CHART_MAX_SERIES];               /* their labels */
    rl_chart_box marks[2 * RL_CHART_MAX_SERIES]; /* markers: filled and hollow, as occupied */
    size_t n_marks;
    rl_chart_seg lines[RL_CHART_ROOF_LINES];       /* ceiling, fit, kernel roofs: in the plot */
    rl_chart_box line_labels[RL_CHART_ROOF_LINES]; /* their labels, in the same order */
    size_t n_lines;
    const char *keys[RL_CHART_ROOF_KEYS]; /* the legend's entries (static text) */
    size_t n_keys;
    rl_chart_rect legend;      /* its box */
    bool legend_inside;        /* in a corner of the plot; else in rows below it */
    char head[320], sub[1536]; /* the title lines as drawn: the PNG's only ("" in the SVG) */
} rl_chart_roof_layout;
/* The roofline of bundle laid out as rl_chart_roofline (png false) or rl_chart_roofline_png
 * (png true) draws it; nothing rendered. Statuses as rl_chart_roofline. */
rl_status rl_chart_roofline_layout(const cJSON *bundle, bool png, rl_chart_roof_layout *out,
                                   rl_error *err);
/* The PNG's title lines from the bundle, each part cleaned (rl_chart_clean_line, at most 60
 * characters) and left out when missing or empty or said already: head "Decode roofline ·
 * <source.name, else environment.cpu>"; sub, joined by " · ", environment.cpu,
 * environment.product_name, "<os> <arch>", "llama.cpp <build_commit> (build <build_number>)";
 * "" when none. */
void rl_chart_roof_title(const cJSON *bundle, char *head, size_t hcap, char *sub, size_t scap);

/* ---- chart_kind.c: the entry skeleton every chart shares ----------------------------------- */

/* A chart kind: what one chart file tells the driver. The driver zeroes a data struct of size
 * bytes, reads src into it (a bundle, or the comparison for compare-roofline), sets id, title
 * and the desc sentence, fills the table, and renders draw at width RL_CHART_W and height(d). */
typedef struct rl_chart_kind rl_chart_kind;
struct rl_chart_kind {
    const char *id, *title;
    const char *what;  /* names the chart in "<what>: out of memory" */
    const void *rules; /* the kind's own parameters (metric, axis title...), or NULL */
    size_t size;       /* bytes of the data struct */
    /* RL_OK; RL_NOTHING (err says why) when src has nothing to draw; other statuses on failure
     * (what was read so far is still freed by free). */
    rl_status (*read)(const rl_chart_kind *k, const void *src, void *d, rl_error *err);
    char *(*desc)(const rl_chart_kind *k, const void *d); /* malloc'd; NULL: out of memory */
    rl_status (*table)(rl_chart *c, const void *d, rl_error *err);
    /* The height in px: height(d) when set (it may keep layout it measured in d for draw),
     * else ceil(top_h + the legend's measured height + bottom_h) (legend_h NULL: none). */
    double (*height)(void *d);
    double top_h, bottom_h;
    double (*legend_h)(rl_chart_canvas *cv, void *d);
    rl_chart_draw_fn draw;
    void (*free)(void *d); /* what d owns (not d itself); NULL: nothing */
};

/* The chart.h contract for kind k read from src: out filled, or zeroed on any failure. */
rl_status rl_chart_run(const rl_chart_kind *k, const void *src, rl_chart *out, rl_error *err);
/* The same chart as a PNG file at path (rl_chart_render_png); no table, no texts kept. */
rl_status rl_chart_run_png(const rl_chart_kind *k, const void *src, const char *path,
                           rl_error *err);

/* ---- chart_client.c: the streaming client's charts, from client.points[] ------------------ */

/* TTFT and TPOT distributions (an ECDF per operating point) and throughput and goodput against
 * concurrency; RL_NOTHING (err says why) when no point has the data. Same contract as chart.h. */
rl_status rl_chart_client_ttft(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_client_tpot(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_client_throughput(const cJSON *bundle, rl_chart *out, rl_error *err);

#endif
