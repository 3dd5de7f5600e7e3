/* SPDX-License-Identifier: MIT */
/* chart_draw.c: the chart canvas: cairo primitives and the text collector (owner: chart).
 *
 * Primitives are thin cairo wrappers (as rrdtool's rrd_gfx.c: each saves and restores the
 * cairo state): lines, dashed lines, polylines, markers (circle, square, triangle, diamond),
 * bars. Axes, grid and legends are drawn from a layout (chart_layout.c) with them.
 *
 * Text is never drawn here. rl_chart_text measures a string with cairo_text_extents in DejaVu
 * Sans (metrics unhinted, so widths scale exactly with the size and match what a browser
 * lays out with the same font) on a private measuring context, and records (x, y, anchor,
 * size, weight, angle, class, string); the renderer (chart_svg.c) turns the records into SVG
 * <text> nodes, or draws them with cairo for a PNG. Every recorded text and marker marks its
 * box occupied, and rl_chart_place tries candidate spots until one is free, so labels avoid
 * each other where that is cheap. Drawn lines are also kept exactly, as segments, for the
 * labels pinned to points (chart_pin.c).
 *
 * Ownership: the canvas owns the recorded strings, the occupied and the segment lists; out of
 * memory sets cv->failed (checked by the renderer) instead of failing each call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_util.h"

/* ---- primitives ------------------------------------------------------------------------- */

static void set_rgb(cairo_t *cr, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(cr, ((rgb >> 16) & 0xFF) / 255.0, ((rgb >> 8) & 0xFF) / 255.0,
                          (rgb & 0xFF) / 255.0, alpha);
}

static void stroke_style(cairo_t *cr, uint32_t rgb, double width, bool dashed)
{
    set_rgb(cr, rgb, 1);
    cairo_set_line_width(cr, width);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    if (dashed) {
        double d[2] = {6, 4};
        cairo_set_dash(cr, d, 2, 0);
    }
}

void rl_chart_line(rl_chart_canvas *cv, double x0, double y0, double x1, double y1, uint32_t rgb,
                   double width, bool dashed)
{
    cairo_save(cv->cr);
    stroke_style(cv->cr, rgb, width, dashed);
    cairo_move_to(cv->cr, x0, y0);
    cairo_line_to(cv->cr, x1, y1);
    cairo_stroke(cv->cr);
    cairo_restore(cv->cr);
}

void rl_chart_polyline(rl_chart_canvas *cv, const double *x, const double *y, size_t n,
                       uint32_t rgb, double width, bool dashed)
{
    if (n < 2)
        return;
    cairo_save(cv->cr);
    stroke_style(cv->cr, rgb, width, dashed);
    cairo_move_to(cv->cr, x[0], y[0]);
    for (size_t i = 1; i < n; i++)
        cairo_line_to(cv->cr, x[i], y[i]);
    cairo_stroke(cv->cr);
    cairo_restore(cv->cr);
}

void rl_chart_marker(rl_chart_canvas *cv, rl_chart_shape shape, double x, double y, double r,
                     uint32_t rgb, bool filled)
{
    cairo_t *cr = cv->cr;
    cairo_save(cr);
    cairo_new_path(cr);
    switch (shape) {
    case RL_CHART_SQUARE: cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7); break;
    case RL_CHART_TRIANGLE:
        cairo_move_to(cr, x, y - r * 1.15);
        cairo_line_to(cr, x + r * 1.1, y + r * 0.8);
        cairo_line_to(cr, x - r * 1.1, y + r * 0.8);
        cairo_close_path(cr);
        break;
    case RL_CHART_DIAMOND:
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r * 1.2, y);
        cairo_line_to(cr, x, y + r * 1.2);
        cairo_line_to(cr, x - r * 1.2, y);
        cairo_close_path(cr);
        break;
    default: cairo_arc(cr, x, y, r, 0, 2 * M_PI); break;
    }
    if (filled) {
        set_rgb(cr, rgb, 1);
        cairo_fill(cr);
    } else {
        stroke_style(cr, rgb, 1.6, false);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    rl_chart_box b = rl_chart_box_rect(x - r - 1, y - r - 1, 2 * r + 2, 2 * r + 2);
    rl_chart_occupy(cv, &b);
}

void rl_chart_bar(rl_chart_canvas *cv, double x, double y, double w, double h, uint32_t rgb)
{
    if (!(w > 0) || !(h > 0))
        return;
    cairo_save(cv->cr);
    set_rgb(cv->cr, rgb, 1);
    cairo_rectangle(cv->cr, x, y, w, h);
    cairo_fill(cv->cr);
    cairo_restore(cv->cr);
}

void rl_chart_clip(rl_chart_canvas *cv, const rl_chart_rect *r)
{
    cairo_save(cv->cr);
    cairo_rectangle(cv->cr, r->x, r->y, r->w, r->h);
    cairo_clip(cv->cr);
}

void rl_chart_unclip(rl_chart_canvas *cv)
{
    cairo_restore(cv->cr);
}

/* ---- text ------------------------------------------------------------------------------- */

double rl_chart_text_width(rl_chart_canvas *cv, const char *s, double size, bool bold)
{
    cairo_text_extents_t ext;
    cairo_select_font_face(cv->mcr, RL_CHART_FONT, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cv->mcr, size);
    cairo_text_extents(cv->mcr, s, &ext);
    return isfinite(ext.x_advance) && ext.x_advance > 0 ? ext.x_advance : 0;
}

static rl_chart_box box_of(double x, double y, double w, double size, rl_chart_anchor a,
                           double angle)
{
    double f = a == RL_CHART_START ? 0 : a == RL_CHART_MIDDLE ? 0.5 : 1;
    /* DejaVu Sans: ascent ~0.76 em above the baseline, descent ~0.24 em below; 1 px air */
    double lx = w * (0.5 - f), ly = -0.26 * size;
    double t = angle * M_PI / 180, c = cos(t), s = sin(t);
    rl_chart_box b = {x + lx * c - ly * s, y + lx * s + ly * c, w / 2 + 1, 0.5 * size + 1, t, 0};
    return b;
}

rl_chart_box rl_chart_text_box(rl_chart_canvas *cv, const char *s, double x, double y, double size,
                               bool bold, rl_chart_anchor a, double angle)
{
    return box_of(x, y, rl_chart_text_width(cv, s, size, bold), size, a, angle);
}

void rl_chart_occupy(rl_chart_canvas *cv, const rl_chart_box *b)
{
    if (cv->n_occ == cv->cap_occ) {
        size_t cap = cv->cap_occ ? cv->cap_occ * 2 : 64;
        if (cap > RL_CHART_MAX_TEXTS * 4)
            return; /* enough: placement only gets less careful */
        rl_chart_box *v = realloc(cv->occupied, cap * sizeof *v);
        if (!v) {
            cv->failed = true;
            return;
        }
        cv->occupied = v;
        cv->cap_occ = cap;
    }
    cv->occupied[cv->n_occ] = *b;
    if (!(b->cost > 0))
        cv->occupied[cv->n_occ].cost = RL_CHART_COST_SOLID;
    cv->n_occ++;
}

#define SEGS_MAX 2048 /* beyond: placement only gets less careful */

void rl_chart_add_seg(rl_chart_canvas *cv, const rl_chart_seg *s, const rl_chart_rect *within)
{
    rl_chart_seg c = *s;
    if (!isfinite(c.x0) || !isfinite(c.y0) || !isfinite(c.x1) || !isfinite(c.y1) ||
        (within && !rl_chart_seg_clip(&c, within)))
        return;
    if (cv->n_segs == cv->cap_segs) {
        size_t cap = cv->cap_segs ? cv->cap_segs * 2 : 32;
        if (cap > SEGS_MAX)
            return;
        rl_chart_seg *v = realloc(cv->segs, cap * sizeof *v);
        if (!v) {
            cv->failed = true;
            return;
        }
        cv->segs = v;
        cv->cap_segs = cap;
    }
    cv->segs[cv->n_segs++] = c;
}

void rl_chart_occupy_line(rl_chart_canvas *cv, double x0, double y0, double x1, double y1,
                          const rl_chart_rect *within)
{
    rl_chart_seg s = {x0, y0, x1, y1, RL_CHART_SEG_LINE};
    rl_chart_occupy_seg(cv, &s, within);
}

void rl_chart_occupy_seg(rl_chart_canvas *cv, const rl_chart_seg *s, const rl_chart_rect *within)
{
    double x0 = s->x0, y0 = s->y0, x1 = s->x1, y1 = s->y1;
    rl_chart_add_seg(cv, s, within);
    double len = hypot(x1 - x0, y1 - y0);
    if (!isfinite(len) || len < 1)
        return;
    size_t n = (size_t)fmin(ceil(len / 12), 400);
    double ang = atan2(y1 - y0, x1 - x0), seg = len / (double)n;
    for (size_t i = 0; i < n; i++) {
        double t = (i + 0.5) / (double)n;
        rl_chart_box b = {x0 + t * (x1 - x0), y0 + t * (y1 - y0), seg / 2, 1, ang,
                          RL_CHART_COST_LINE};
        if (!within || (b.cx >= within->x && b.cx <= within->x + within->w && b.cy >= within->y &&
                        b.cy <= within->y + within->h))
            rl_chart_occupy(cv, &b);
    }
}

void rl_chart_text(rl_chart_canvas *cv, const char *s, double x, double y, double size, bool bold,
                   rl_chart_anchor a, double angle, const char *cls)
{
    if (cv->n_texts >= RL_CHART_MAX_TEXTS || !isfinite(x) || !isfinite(y))
        return;
    if (cv->n_texts == cv->cap_texts) {
        size_t cap = cv->cap_texts ? cv->cap_texts * 2 : 64;
        rl_chart_text_rec *v = realloc(cv->texts, cap * sizeof *v);
        if (!v) {
            cv->failed = true;
            return;
        }
        cv->texts = v;
        cv->cap_texts = cap;
    }
    char *c = rl_chart_clean(s, 512);
    if (!c) {
        cv->failed = true;
        return;
    }
    rl_chart_text_rec *t = &cv->texts[cv->n_texts++];
    t->s = c;
    t->x = x;
    t->y = y;
    t->size = size;
    t->angle = angle;
    t->w = rl_chart_text_width(cv, c, size, bold);
    t->anchor = a;
    t->bold = bold;
    t->cls = cls;
    rl_chart_box b = box_of(x, y, t->w, size, a, angle);
    rl_chart_occupy(cv, &b);
}

bool rl_chart_last_text_box(const rl_chart_canvas *cv, rl_chart_box *b)
{
    if (cv->n_texts == 0)
        return false;
    const rl_chart_text_rec *t = &cv->texts[cv->n_texts - 1];
    *b = box_of(t->x, t->y, t->w, t->size, t->anchor, t->angle);
    return true;
}

static double spot_cost(const rl_chart_canvas *cv, const rl_chart_box *b,
                        const rl_chart_rect *within)
{
    rl_chart_rect all = {0, 0, cv->w, cv->h};
    double cost = 0;
    if (!rl_chart_box_inside(b, &all))
        cost += 1000;
    else if (within && !rl_chart_box_inside(b, within))
        cost += 50;
    for (size_t i = 0; i < cv->n_occ; i++)
        if (rl_chart_box_overlap(b, &cv->occupied[i]))
            cost += cv->occupied[i].cost;
    return cost;
}

bool rl_chart_is_free(const rl_chart_canvas *cv, const rl_chart_box *b, const rl_chart_rect *within)
{
    return spot_cost(cv, b, within) == 0;
}

int rl_chart_place(rl_chart_canvas *cv, const char *s, double size, bool bold, const char *cls,
                   const rl_chart_spot *spots, size_t n, const rl_chart_rect *within, bool force)
{
    double w = rl_chart_text_width(cv, s, size, bold), best_cost = 1e300;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        rl_chart_box b = box_of(spots[i].x, spots[i].y, w, size, spots[i].anchor, spots[i].angle);
        double c = spot_cost(cv, &b, within);
        if (c < best_cost) {
            best_cost = c;
            best = i;
        }
        if (c == 0)
            break;
    }
    if (n == 0 || (best_cost > 0 && !force))
        return -1;
    rl_chart_text(cv, s, spots[best].x, spots[best].y, size, bold, spots[best].anchor,
                  spots[best].angle, cls);
    return (int)best;
}

size_t rl_chart_spots_around(double x, double y, double d, double size, rl_chart_spot *out)
{
    size_t n = 0;
    for (int ring = 0; ring < 2; ring++) { /* close by, then twice as far for crowded points */
        double r = ring ? 2.2 * d : d, mid = y + 0.35 * size; /* mid: centred on y */
        const rl_chart_spot s[8] = {
            {x + r, mid, RL_CHART_START, 0},
            {x - r, mid, RL_CHART_END, 0},
            {x, y - r - 2, RL_CHART_MIDDLE, 0},
            {x, y + r + 0.8 * size + 1, RL_CHART_MIDDLE, 0},
            {x + r * 0.7, y - r * 0.7, RL_CHART_START, 0},
            {x + r * 0.7, y + r * 0.7 + 0.75 * size, RL_CHART_START, 0},
            {x - r * 0.7, y - r * 0.7, RL_CHART_END, 0},
            {x - r * 0.7, y + r * 0.7 + 0.75 * size, RL_CHART_END, 0},
        };
        memcpy(out + n, s, sizeof s);
        n += 8;
    }
    return n;
}

/* ---- axes and legends ------------------------------------------------------------------- */

double rl_chart_ticks_width(rl_chart_canvas *cv, const rl_chart_ticks *t)
{
    double w = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->t[i].label)
            w = fmax(w, rl_chart_text_width(cv, t->t[i].text, RL_CHART_FS_TICK, false));
    return w;
}

static void grid_line(rl_chart_canvas *cv, double x0, double y0, double x1, double y1)
{
    cairo_save(cv->cr);
    set_rgb(cv->cr, RL_CHART_GREY, 0.3);
    cairo_set_line_width(cv->cr, 1);
    cairo_move_to(cv->cr, x0, y0);
    cairo_line_to(cv->cr, x1, y1);
    cairo_stroke(cv->cr);
    cairo_restore(cv->cr);
}

void rl_chart_axis_x(rl_chart_canvas *cv, const rl_chart_scale *s, const rl_chart_ticks *t,
                     const rl_chart_rect *plot, const char *title)
{
    double base = plot->y + plot->h, last_right = -1e9;
    for (size_t i = 0; i < t->n; i++) {
        double px = rl_chart_map(s, t->t[i].v);
        if (px < plot->x - 0.5 || px > plot->x + plot->w + 0.5)
            continue;
        double sx = floor(px) + 0.5; /* crisp 1 px lines */
        grid_line(cv, sx, plot->y, sx, base);
        if (!t->t[i].label)
            continue;
        double w = rl_chart_text_width(cv, t->t[i].text, RL_CHART_FS_TICK, false);
        if (px - w / 2 < last_right + 6)
            continue; /* would touch the previous label: grid line only */
        rl_chart_text(cv, t->t[i].text, px, base + 5 + RL_CHART_FS_TICK, RL_CHART_FS_TICK, false,
                      RL_CHART_MIDDLE, 0, "tick");
        last_right = px + w / 2;
    }
    rl_chart_line(cv, plot->x, floor(base) + 0.5, plot->x + plot->w, floor(base) + 0.5,
                  RL_CHART_GREY, 1, false);
    rl_chart_seg axis = {plot->x, floor(base) + 0.5, plot->x + plot->w, floor(base) + 0.5,
                         RL_CHART_SEG_AXIS};
    rl_chart_add_seg(cv, &axis, NULL);
    if (title)
        rl_chart_text(cv, title, plot->x + plot->w / 2, base + 22 + RL_CHART_FS_AXIS,
                      RL_CHART_FS_AXIS, false, RL_CHART_MIDDLE, 0, "axis");
}

void rl_chart_axis_y(rl_chart_canvas *cv, const rl_chart_scale *s, const rl_chart_ticks *t,
                     const rl_chart_rect *plot, const char *title)
{
    double last_top = 1e9;
    for (size_t i = 0; i < t->n; i++) {
        double py = rl_chart_map(s, t->t[i].v);
        if (py < plot->y - 0.5 || py > plot->y + plot->h + 0.5)
            continue;
        double sy = floor(py) + 0.5;
        grid_line(cv, plot->x, sy, plot->x + plot->w, sy);
        if (!t->t[i].label)
            continue;
        if (py + RL_CHART_FS_TICK * 0.5 > last_top - 2)
            continue;
        rl_chart_text(cv, t->t[i].text, plot->x - 6, py + 0.35 * RL_CHART_FS_TICK, RL_CHART_FS_TICK,
                      false, RL_CHART_END, 0, "tick");
        last_top = py - RL_CHART_FS_TICK * 0.5;
    }
    rl_chart_line(cv, floor(plot->x) + 0.5, plot->y, floor(plot->x) + 0.5, plot->y + plot->h,
                  RL_CHART_GREY, 1, false);
    rl_chart_seg axis = {floor(plot->x) + 0.5, plot->y, floor(plot->x) + 0.5, plot->y + plot->h,
                         RL_CHART_SEG_AXIS};
    rl_chart_add_seg(cv, &axis, NULL);
    if (title) {
        double tx = plot->x - 10 - rl_chart_ticks_width(cv, t) - 6;
        rl_chart_text(cv, title, tx, plot->y + plot->h / 2, RL_CHART_FS_AXIS, false,
                      RL_CHART_MIDDLE, -90, "axis");
    }
}

double rl_chart_legend(rl_chart_canvas *cv, const rl_chart_key *keys, size_t n, double x, double y,
                       double w, bool draw)
{
    const double row = 18, glyph = 20, gap = 5, sep = 16;
    double cx = x, cy = y;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        double tw = rl_chart_text_width(cv, keys[i].text, RL_CHART_FS_LABEL, false);
        double ew = glyph + gap + tw;
        if (cx > x && cx + ew > x + w) {
            cx = x;
            cy += row;
        }
        if (draw) {
            double my = cy + row / 2;
            switch (keys[i].kind) {
            case RL_CHART_KEY_LINE:
                rl_chart_line(cv, cx, my, cx + glyph, my, keys[i].rgb, 2, keys[i].dashed);
                if (keys[i].filled)
                    rl_chart_marker(cv, keys[i].shape, cx + glyph / 2, my, 3.5, keys[i].rgb, true);
                break;
            case RL_CHART_KEY_SWATCH: rl_chart_bar(cv, cx + 4, my - 6, 12, 12, keys[i].rgb); break;
            default:
                rl_chart_marker(cv, keys[i].shape, cx + glyph / 2, my, 4.5, keys[i].rgb,
                                keys[i].filled);
                break;
            }
            rl_chart_text(cv, keys[i].text, cx + glyph + gap, my + 0.35 * RL_CHART_FS_LABEL,
                          RL_CHART_FS_LABEL, false, RL_CHART_START, 0, "legend");
        }
        cx += ew + sep;
    }
    return cy + row - y;
}

void rl_chart_spread(const double *ys, size_t n, double gap, double top, double bottom, double *out)
{
    size_t idx[RL_CHART_MAX_SERIES];
    if (n > RL_CHART_MAX_SERIES)
        n = RL_CHART_MAX_SERIES;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t i = 1; i < n; i++) /* insertion sort by wanted y (stable: n is small) */
        for (size_t j = i; j > 0 && ys[idx[j]] < ys[idx[j - 1]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    double prev = -1e300;
    for (size_t k = 0; k < n; k++) {
        double y = fmax(ys[idx[k]], top);
        out[idx[k]] = fmax(y, prev + gap);
        prev = out[idx[k]];
    }
    double next = 1e300;
    for (size_t k = n; k-- > 0;) {
        out[idx[k]] = fmin(out[idx[k]], fmin(bottom, next - gap));
        next = out[idx[k]];
    }
}
