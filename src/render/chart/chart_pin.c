/* SPDX-License-Identifier: MIT */
/* chart_pin.c: labels pinned to points, with leader lines when they sit apart (owner: chart).
 *
 * A label is a horizontal box tried at candidate places around its point: next to it
 * (PIN_NEAR px beyond the marker's edge: right, left, above, below, then the diagonals, the
 * box's near edge or corner facing the point), further out on rings (13 to 240 px beyond the
 * edge) in 24 directions each, and last anywhere on a PIN_GRID px grid over the plot, nearest
 * first. A place is free when the box lies inside the plot, keeps PIN_AIR px from every
 * recorded segment (drawn lines, axes, leaders: tested exactly, not as the thin boxes
 * rl_chart_place counts) and overlaps no text or marker; a label placed away from its point
 * (further than RL_CHART_LEADER_GAP beyond the marker's edge: always a leader then, nearer
 * never) also needs its leader, from the marker's edge to the box's nearest point, to cross
 * no text or marker but those on its own point.
 *
 * The search runs in steps (the table steps[]), each over every label still to place in turn,
 * ring by ring, so that every label gets a short leader before any gets a long one (as
 * rrdtool lays a graph out in fixed phases before painting it): next to the point; then near
 * (up to 75 px) with leaders crossing nothing else, then crossing drawn lines; the same
 * further out; last crossing other leaders too. A label left over takes its cheapest place (a
 * segment touched costs 1, a text or marker 10; a leader's crossings half that) and is marked
 * not clear. Labels go in order of crowding (the most other points within PIN_CROWD px
 * first, then the points' order); when some are not clear the placement is tried again with
 * those first (PIN_TRIES in all) and the try with the fewest not clear is kept. The same
 * input always gives the same chart.
 *
 * The obstacles are kept in a bucket index (PIN_BUCKET px cells, one list each) so that a box
 * or a leader is tested only against what lies near it; it grows as labels are placed and is
 * cut back (with the canvas' lists, which only grow) between tries.
 *
 * Ownership: the index lives inside rl_chart_pin_labels; the texts and leaders go to the
 * canvas. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"

#define PIN_NEAR 3.0          /* px from a marker's edge to its label's box, next to it */
#define PIN_AIR 1.5           /* px kept between a label's box and a segment */
#define PIN_LEADER_W 0.8      /* px */
#define PIN_GRID 5.0          /* px between the boxes tried when no ring has a free place */
#define PIN_FAR 260.0         /* px: the farthest a grid box may be from its point */
#define PIN_CROWD 60.0        /* px: points nearer each other than this crowd it */
#define PIN_TRIES 4           /* placements tried, those not clear first in the next */
#define PIN_BUCKET 24.0       /* px: the cells of the obstacle index */
#define PIN_SECTORS 180       /* directions of the grid search's shadows (2 degrees each) */
#define PIN_LEADER_TRIES 2000 /* leaders tested per grid search at most */

static const double ring_gap[] = {13, 25, 39, 55, 75, 99, 127, 159, 195, 240};
#define PIN_RINGS (sizeof ring_gap / sizeof ring_gap[0])
/* Degrees, y downwards: right, left, above, below, the diagonals (next to the point: these
 * eight), then every 15 degrees between them (further out: all 24). */
#define PIN_DIRS 24
static const double dirs[PIN_DIRS] = {0,   180, -90,  90,  -45, 45, -135, 135, -15, 15, -165, 165,
                                      -30, 30,  -150, 150, -60, 60, -120, 120, -75, 75, -105, 105};

typedef struct {
    rl_chart_box box;
    double tx, ty; /* the text's anchor point on its baseline */
    rl_chart_anchor anchor;
    bool leader;
    rl_chart_seg line;
} cand;

/* How much a leader may cross, by step: nothing, drawn lines, drawn lines and other leaders
 * (never a text or a marker). */
typedef enum { CROSS_NONE, CROSS_LINES, CROSS_LEADERS } cross_ok;

/* ---- geometry of a candidate ---------------------------------------------------------------- */

static double clamp1(double v)
{
    return v < -1 ? -1 : v > 1 ? 1 : v;
}

/* The text position for c's box, and the leader when the box is far from the point. */
static void finish(cand *c, const rl_chart_pin *p, double w, double size)
{
    double dx = c->box.cx - p->x;
    c->anchor = dx > c->box.hw * 0.5    ? RL_CHART_START
                : dx < -c->box.hw * 0.5 ? RL_CHART_END
                                        : RL_CHART_MIDDLE;
    double f = c->anchor == RL_CHART_START ? 0 : c->anchor == RL_CHART_MIDDLE ? 0.5 : 1;
    c->tx = c->box.cx - w * (0.5 - f); /* as rl_chart_text_box places it */
    c->ty = c->box.cy + 0.26 * size;
    double qx, qy;
    double d = rl_chart_box_dist(&c->box, p->x, p->y, &qx, &qy);
    c->leader = d > p->r + RL_CHART_LEADER_GAP;
    memset(&c->line, 0, sizeof c->line);
    if (c->leader) {
        double ux = (qx - p->x) / d, uy = (qy - p->y) / d, r0 = p->r + 1.5;
        c->line = (rl_chart_seg){p->x + ux * r0, p->y + uy * r0, qx, qy, RL_CHART_SEG_LEADER};
    }
}

/* The candidate whose box is centred at (cx, cy). */
static cand cand_at(const rl_chart_pin *p, double w, double size, double cx, double cy)
{
    cand c;
    memset(&c, 0, sizeof c);
    c.box = (rl_chart_box){cx, cy, w / 2 + 1, 0.5 * size + 1, 0, 0};
    finish(&c, p, w, size);
    return c;
}

/* The place gap px beyond the marker's edge in direction deg: the box's near edge (or corner)
 * faces the point, so the box is moved by its half extents. */
static cand place_at(const rl_chart_pin *p, double w, double size, double deg, double gap)
{
    double t = deg * M_PI / 180, ux = cos(t), uy = sin(t), g = p->r + gap;
    return cand_at(p, w, size, p->x + ux * g + clamp1(2.6 * ux) * (w / 2 + 1),
                   p->y + uy * g + clamp1(2.6 * uy) * (0.5 * size + 1));
}

/* A box's half extents along x and y (its bounding rectangle). */
static void extents(const rl_chart_box *b, double *ex, double *ey)
{
    double c = b->angle == 0 ? 1 : fabs(cos(b->angle)),
           sn = b->angle == 0 ? 0 : fabs(sin(b->angle));
    *ex = b->hw * c + b->hh * sn;
    *ey = b->hw * sn + b->hh * c;
}

/* ---- what a box or a leader touches -----------------------------------------------------------
 */

static bool box_hits_seg(const rl_chart_box *air, const rl_chart_seg *s)
{
    return rl_chart_seg_hits_box(s, air);
}

static bool box_hits_solid(const rl_chart_box *b, const rl_chart_box *o)
{
    return o->cost >= RL_CHART_COST_SOLID && rl_chart_box_overlap(b, o);
}

/* Does the leader cross the solid o (a text or marker not over its own point)? */
static bool leader_hits_solid(const cand *c, const rl_chart_pin *p, const rl_chart_box *o)
{
    double qx, qy;
    return o->cost >= RL_CHART_COST_SOLID && rl_chart_seg_hits_box(&c->line, o) &&
           rl_chart_box_dist(o, p->x, p->y, &qx, &qy) > 0;
}

/* Does the leader cross segment s where ok does not allow it? */
static bool leader_hits_seg(const cand *c, const rl_chart_seg *s, cross_ok ok)
{
    bool leader = s->kind == RL_CHART_SEG_LEADER;
    return (leader ? ok < CROSS_LEADERS : ok < CROSS_LINES) && rl_chart_segs_cross(&c->line, s);
}

double rl_chart_box_cost(const rl_chart_canvas *cv, const rl_chart_box *b, double margin, bool stop)
{
    rl_chart_box air = *b;
    air.hw += margin;
    air.hh += margin;
    double cost = 0;
    for (size_t i = 0; i < cv->n_segs && !(stop && cost > 0); i++)
        if (box_hits_seg(&air, &cv->segs[i]))
            cost += RL_CHART_COST_LINE;
    for (size_t i = 0; i < cv->n_occ && !(stop && cost > 0); i++)
        if (box_hits_solid(b, &cv->occupied[i]))
            cost += RL_CHART_COST_SOLID;
    return cost;
}

bool rl_chart_box_clear(const rl_chart_canvas *cv, const rl_chart_box *b)
{
    return rl_chart_box_cost(cv, b, PIN_AIR, true) == 0;
}

/* What the leader crosses (texts and markers 10, segments by ok), all of it. */
static double leader_cost(const rl_chart_canvas *cv, const cand *c, const rl_chart_pin *p,
                          cross_ok ok)
{
    double cost = 0;
    for (size_t i = 0; i < cv->n_occ; i++)
        if (leader_hits_solid(c, p, &cv->occupied[i]))
            cost += RL_CHART_COST_SOLID;
    for (size_t i = 0; i < cv->n_segs; i++)
        if (leader_hits_seg(c, &cv->segs[i], ok))
            cost +=
                cv->segs[i].kind == RL_CHART_SEG_LEADER ? RL_CHART_COST_SOLID : RL_CHART_COST_LINE;
    return cost;
}

/* ---- the obstacle index -----------------------------------------------------------------------
 */

/* Items: the solids (texts, markers) and segments of the canvas, each in the cells its
 * bounding rectangle (a box) or its path (a segment) covers; ref >= 0 is occupied[ref], < 0
 * segs[-1 - ref]. Lists are newest first, so the newest items come off first. */
typedef struct {
    double x0, y0;
    long nx, ny;
    int32_t *head;       /* per cell: its newest item, -1: none */
    int32_t *next, *ref; /* per item */
    int32_t *cell;       /* per item */
    size_t n, cap;
    size_t n_occ, n_segs; /* what of the canvas is in */
    bool ok;              /* false: out of memory, every test goes through the canvas */
} pin_index;

static void ix_free(pin_index *ix)
{
    free(ix->head);
    free(ix->next);
    free(ix->ref);
    free(ix->cell);
    memset(ix, 0, sizeof *ix);
}

static long ix_col(const pin_index *ix, double x)
{
    double i = floor((x - ix->x0) / PIN_BUCKET);
    return i < 0 ? 0 : i >= (double)ix->nx ? ix->nx - 1 : (long)i;
}

static long ix_row(const pin_index *ix, double y)
{
    double j = floor((y - ix->y0) / PIN_BUCKET);
    return j < 0 ? 0 : j >= (double)ix->ny ? ix->ny - 1 : (long)j;
}

static void ix_push(pin_index *ix, long cell, int32_t ref)
{
    if (!ix->ok)
        return;
    int32_t h = ix->head[cell];
    if (h >= 0 && ix->ref[h] == ref)
        return; /* already the newest there */
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 1024;
        int32_t *a = realloc(ix->next, cap * sizeof *a), *b = NULL, *c = NULL;
        if (a)
            ix->next = a;
        if (a && (b = realloc(ix->ref, cap * sizeof *b)))
            ix->ref = b;
        if (b && (c = realloc(ix->cell, cap * sizeof *c)))
            ix->cell = c;
        if (!c || cap > INT32_MAX) {
            ix->ok = false;
            return;
        }
        ix->cap = cap;
    }
    ix->next[ix->n] = h;
    ix->ref[ix->n] = ref;
    ix->cell[ix->n] = (int32_t)cell;
    ix->head[cell] = (int32_t)ix->n++;
}

static void ix_rect(pin_index *ix, int32_t ref, double xa, double ya, double xb, double yb)
{
    for (long j = ix_row(ix, ya); j <= ix_row(ix, yb); j++)
        for (long i = ix_col(ix, xa); i <= ix_col(ix, xb); i++)
            ix_push(ix, j * ix->nx + i, ref);
}

/* The cells along s: those of the bounding rectangle of each half-cell step of it. */
static void ix_walk(pin_index *ix, const rl_chart_seg *s, int32_t ref)
{
    double len = hypot(s->x1 - s->x0, s->y1 - s->y0), px = s->x0, py = s->y0;
    size_t n = (size_t)fmin(ceil(len / (PIN_BUCKET / 2)), 4096) + 1;
    for (size_t k = 1; k <= n; k++) {
        double t = (double)k / (double)n;
        double x = s->x0 + t * (s->x1 - s->x0), y = s->y0 + t * (s->y1 - s->y0);
        ix_rect(ix, ref, fmin(px, x), fmin(py, y), fmax(px, x), fmax(py, y));
        px = x;
        py = y;
    }
}

/* Index what the canvas holds beyond what is in. */
static void ix_catch_up(pin_index *ix, const rl_chart_canvas *cv)
{
    double ex, ey;
    for (; ix->n_occ < cv->n_occ; ix->n_occ++) {
        const rl_chart_box *o = &cv->occupied[ix->n_occ];
        extents(o, &ex, &ey);
        if (o->cost >= RL_CHART_COST_SOLID && ix->n_occ < INT32_MAX)
            ix_rect(ix, (int32_t)ix->n_occ, o->cx - ex, o->cy - ey, o->cx + ex, o->cy + ey);
    }
    for (; ix->n_segs < cv->n_segs; ix->n_segs++)
        if (ix->n_segs < INT32_MAX)
            ix_walk(ix, &cv->segs[ix->n_segs], -1 - (int32_t)ix->n_segs);
}

static void ix_init(pin_index *ix, const rl_chart_canvas *cv)
{
    memset(ix, 0, sizeof *ix);
    ix->nx = (long)ceil(cv->w / PIN_BUCKET) + 1;
    ix->ny = (long)ceil(cv->h / PIN_BUCKET) + 1;
    if (!(cv->w > 0 && cv->h > 0) || ix->nx > 1024 || ix->ny > 1024)
        return;
    ix->head = malloc((size_t)(ix->nx * ix->ny) * sizeof *ix->head);
    if (!ix->head)
        return;
    for (long i = 0; i < ix->nx * ix->ny; i++)
        ix->head[i] = -1;
    ix->ok = true;
    ix_catch_up(ix, cv);
}

/* Back to n items and the canvas' first n_occ, n_segs obstacles (both lists only grew). */
static void ix_cut(pin_index *ix, rl_chart_canvas *cv, size_t n, size_t n_occ, size_t n_segs)
{
    for (; ix->n > n; ix->n--)
        ix->head[ix->cell[ix->n - 1]] = ix->next[ix->n - 1];
    cv->n_occ = ix->n_occ = n_occ;
    cv->n_segs = ix->n_segs = n_segs;
}

/* Does item k (by ref) stop box b (air: b with PIN_AIR)? */
static bool ix_box_item(const rl_chart_canvas *cv, int32_t ref, const rl_chart_box *b,
                        const rl_chart_box *air)
{
    return ref >= 0 ? box_hits_solid(b, &cv->occupied[ref])
                    : box_hits_seg(air, &cv->segs[-1 - ref]);
}

/* Is box b free: touching no segment (with PIN_AIR px of air), no text or marker? */
static bool box_free(const pin_index *ix, const rl_chart_canvas *cv, const rl_chart_box *b)
{
    if (!ix->ok)
        return rl_chart_box_cost(cv, b, PIN_AIR, true) == 0;
    rl_chart_box air = *b;
    air.hw += PIN_AIR;
    air.hh += PIN_AIR;
    for (long j = ix_row(ix, air.cy - air.hh); j <= ix_row(ix, air.cy + air.hh); j++)
        for (long i = ix_col(ix, air.cx - air.hw); i <= ix_col(ix, air.cx + air.hw); i++)
            for (int32_t k = ix->head[j * ix->nx + i]; k >= 0; k = ix->next[k])
                if (ix_box_item(cv, ix->ref[k], b, &air))
                    return false;
    return true;
}

/* Does c's leader cross nothing that ok does not allow? The cells along it, each once. */
static bool leader_free(const pin_index *ix, const rl_chart_canvas *cv, const cand *c,
                        const rl_chart_pin *p, cross_ok ok)
{
    if (!ix->ok)
        return leader_cost(cv, c, p, ok) == 0;
    const rl_chart_seg *s = &c->line;
    double len = hypot(s->x1 - s->x0, s->y1 - s->y0), px = s->x0, py = s->y0;
    size_t n = (size_t)fmin(ceil(len / (PIN_BUCKET / 2)), 4096) + 1;
    long recent[8] = {-1, -1, -1, -1, -1, -1, -1, -1}; /* a walk revisits only these */
    size_t r = 0;
    for (size_t step = 1; step <= n; step++) {
        double t = (double)step / (double)n;
        double x = s->x0 + t * (s->x1 - s->x0), y = s->y0 + t * (s->y1 - s->y0);
        for (long j = ix_row(ix, fmin(py, y)); j <= ix_row(ix, fmax(py, y)); j++)
            for (long i = ix_col(ix, fmin(px, x)); i <= ix_col(ix, fmax(px, x)); i++) {
                long cell = j * ix->nx + i;
                bool again = false;
                for (size_t q = 0; q < 8; q++)
                    again = again || recent[q] == cell;
                if (again)
                    continue;
                recent[r++ % 8] = cell;
                for (int32_t k = ix->head[cell]; k >= 0; k = ix->next[k]) {
                    int32_t ref = ix->ref[k];
                    if (ref >= 0 ? leader_hits_solid(c, p, &cv->occupied[ref])
                                 : leader_hits_seg(c, &cv->segs[-1 - ref], ok))
                        return false;
                }
            }
        px = x;
        py = y;
    }
    return true;
}

/* ---- the search -------------------------------------------------------------------------------
 */

typedef struct {
    rl_chart_canvas *cv;
    pin_index ix;
    const rl_chart_rect *within;
    double size;
} pin_ctx;

static bool is_free(const pin_ctx *x, const rl_chart_pin *p, const cand *c, cross_ok ok)
{
    return rl_chart_box_inside(&c->box, x->within) && box_free(&x->ix, x->cv, &c->box) &&
           !(c->leader && !leader_free(&x->ix, x->cv, c, p, ok));
}

/* The first free place on ring (0: next to the point, 8 directions; 1 on: further out, 24). */
static bool ring_free(const pin_ctx *x, const rl_chart_pin *p, double w, cross_ok ok, size_t ring,
                      cand *out)
{
    for (size_t k = 0; k < (ring == 0 ? 8u : PIN_DIRS); k++) {
        cand c = place_at(p, w, x->size, dirs[k], ring == 0 ? PIN_NEAR : ring_gap[ring - 1]);
        if (is_free(x, p, &c, ok)) {
            *out = c;
            return true;
        }
    }
    return false;
}

/* Mark in blocked (nx x ny centres from (x0, y0), PIN_GRID apart) the centres of the boxes of
 * half extents hw, hh that would overlap solid o (exactly, as rl_chart_box_overlap). */
static void block_solid(uint8_t *blocked, int32_t nx, int32_t ny, double x0, double y0, double hw,
                        double hh, const rl_chart_box *o)
{
    double ex, ey;
    extents(o, &ex, &ey);
    double i0 = ceil((o->cx - ex - hw - x0) / PIN_GRID),
           i1 = floor((o->cx + ex + hw - x0) / PIN_GRID);
    double j0 = ceil((o->cy - ey - hh - y0) / PIN_GRID),
           j1 = floor((o->cy + ey + hh - y0) / PIN_GRID);
    for (double j = fmax(j0, 0); j <= fmin(j1, ny - 1); j++)
        for (double i = fmax(i0, 0); i <= fmin(i1, nx - 1); i++) {
            rl_chart_box b = {x0 + i * PIN_GRID, y0 + j * PIN_GRID, hw, hh, 0, 0};
            if (rl_chart_box_overlap(&b, o))
                blocked[(int32_t)j * nx + (int32_t)i] = 1;
        }
}

/* The same for the boxes (with air: half extents aw, ah) that segment g would touch: in each
 * row, the centres within aw of the part of g inside the row's band. */
static void block_seg(uint8_t *blocked, int32_t nx, int32_t ny, double x0, double y0, double aw,
                      double ah, const rl_chart_seg *g)
{
    double dy = g->y1 - g->y0;
    for (int32_t j = 0; j < ny; j++) {
        double lo = y0 + j * PIN_GRID - ah, hi = y0 + j * PIN_GRID + ah, t0 = 0, t1 = 1;
        if (dy == 0) {
            if (g->y0 < lo || g->y0 > hi)
                continue;
        } else {
            double ta = (lo - g->y0) / dy, tb = (hi - g->y0) / dy;
            t0 = fmax(0, fmin(ta, tb));
            t1 = fmin(1, fmax(ta, tb));
            if (t0 > t1)
                continue;
        }
        double xa = g->x0 + t0 * (g->x1 - g->x0), xb = g->x0 + t1 * (g->x1 - g->x0);
        double i0 = ceil((fmin(xa, xb) - aw - x0) / PIN_GRID);
        double i1 = floor((fmax(xa, xb) + aw - x0) / PIN_GRID);
        for (double i = fmax(i0, 0); i <= fmin(i1, nx - 1); i++)
            blocked[j * nx + (int32_t)i] = 1;
    }
}

typedef struct {
    double d;
    int32_t i, j;
} grid_cell;

static int cell_cmp(const void *a, const void *b)
{
    const grid_cell *u = a, *v = b;
    if (u->d != v->d)
        return u->d < v->d ? -1 : 1;
    if (u->j != v->j)
        return u->j < v->j ? -1 : 1;
    return (u->i > v->i) - (u->i < v->i);
}

/* The free place nearest the point among boxes on a PIN_GRID px grid over within, at most
 * far px from it: the boxes that touch something are marked first, obstacle by obstacle;
 * the others are tried nearest first (each confirmed by the exact tests). A leader blocked at
 * distance d shadows the boxes further out in its direction (PIN_SECTORS of them), whose
 * leaders would pass the same obstacle; at most PIN_LEADER_TRIES leaders are tested. */
static bool grid_free(const pin_ctx *x, const rl_chart_pin *p, double w, cross_ok ok, double far,
                      cand *out)
{
    const rl_chart_rect *in = x->within;
    double hw = w / 2 + 1, hh = 0.5 * x->size + 1;
    double fx = floor((in->w - 2 * hw) / PIN_GRID), fy = floor((in->h - 2 * hh) / PIN_GRID);
    if (!(fx >= 0 && fy >= 0 && fx < 4096 && fy < 4096))
        return false;
    int32_t nx = (int32_t)fx + 1, ny = (int32_t)fy + 1;
    double x0 = in->x + hw, y0 = in->y + hh;
    uint8_t *blocked = calloc((size_t)nx * (size_t)ny, 1);
    grid_cell *cells = malloc((size_t)nx * (size_t)ny * sizeof *cells);
    if (!blocked || !cells) {
        free(blocked);
        free(cells);
        return false; /* placement only gets less careful */
    }
    const rl_chart_canvas *cv = x->cv;
    for (size_t k = 0; k < cv->n_occ; k++)
        if (cv->occupied[k].cost >= RL_CHART_COST_SOLID)
            block_solid(blocked, nx, ny, x0, y0, hw, hh, &cv->occupied[k]);
    for (size_t k = 0; k < cv->n_segs; k++)
        block_seg(blocked, nx, ny, x0, y0, hw + PIN_AIR, hh + PIN_AIR, &cv->segs[k]);
    size_t n = 0;
    for (int32_t j = 0; j < ny; j++)
        for (int32_t i = 0; i < nx; i++) {
            double ddx = fmax(0, fabs(x0 + i * PIN_GRID - p->x) - hw);
            double ddy = fmax(0, fabs(y0 + j * PIN_GRID - p->y) - hh);
            double d = hypot(ddx, ddy);
            if (!blocked[j * nx + i] && d <= far)
                cells[n++] = (grid_cell){d, i, j};
        }
    qsort(cells, n, sizeof *cells, cell_cmp);
    /* a leader blocked at distance d in a sector shadows the boxes beyond it there */
    double shadow[PIN_SECTORS];
    for (size_t k = 0; k < PIN_SECTORS; k++)
        shadow[k] = 1e300;
    bool found = false;
    for (size_t k = 0, tried = 0; k < n && !found && tried < PIN_LEADER_TRIES; k++) {
        cand c = cand_at(p, w, x->size, x0 + cells[k].i * PIN_GRID, y0 + cells[k].j * PIN_GRID);
        double a = atan2(c.line.y1 - p->y, c.line.x1 - p->x) / (2 * M_PI) + 0.5;
        size_t sec = (size_t)fmin(PIN_SECTORS - 1, fmax(0, floor(a * PIN_SECTORS)));
        if (c.leader && cells[k].d >= shadow[sec])
            continue;
        tried += c.leader;
        if (is_free(x, p, &c, ok)) {
            *out = c;
            found = true;
        } else if (c.leader && box_free(&x->ix, x->cv, &c.box)) {
            shadow[sec] = cells[k].d;
        }
    }
    free(blocked);
    free(cells);
    return found;
}

/* The steps of the search, in order, each over every label still to place: next to the
 * point; then near (rings up to 75 px, the grid as far) with leaders crossing nothing, then
 * crossing drawn lines; the same further out (up to PIN_FAR px); last crossing leaders too. */
typedef struct {
    cross_ok ok;
    size_t ring0, ring1; /* rings ring0..ring1 (1-based; 0: next to the point) */
    double far;          /* then the grid to this distance (0: none) */
} pin_step;
static const pin_step steps[] = {
    {CROSS_NONE, 0, 0, 0},        {CROSS_NONE, 1, 5, 75},        {CROSS_LINES, 1, 5, 75},
    {CROSS_NONE, 6, 10, PIN_FAR}, {CROSS_LINES, 6, 10, PIN_FAR}, {CROSS_LEADERS, 1, 10, PIN_FAR},
};
#define PIN_STEPS (sizeof steps / sizeof steps[0])

/* The first free place of step s: its sub-step k (a ring, then the grid). */
static bool step_free(const pin_ctx *x, const rl_chart_pin *p, double w, const pin_step *s,
                      size_t k, cand *out)
{
    size_t ring = s->ring0 + k;
    return ring <= s->ring1 ? ring_free(x, p, w, s->ok, ring, out)
                            : grid_free(x, p, w, s->ok, s->far, out);
}

static size_t step_parts(const pin_step *s)
{
    return s->ring1 - s->ring0 + 1 + (s->far > 0);
}

/* The cheapest place inside within; when there is none, the one to the right moved inside. */
static cand cheapest(const pin_ctx *x, const rl_chart_pin *p, double w)
{
    cand best;
    double best_cost = 1e300;
    for (size_t ring = 0; ring <= PIN_RINGS; ring++)
        for (size_t k = 0; k < (ring == 0 ? 8u : PIN_DIRS); k++) {
            cand c = place_at(p, w, x->size, dirs[k], ring == 0 ? PIN_NEAR : ring_gap[ring - 1]);
            if (!rl_chart_box_inside(&c.box, x->within))
                continue;
            double cost = rl_chart_box_cost(x->cv, &c.box, PIN_AIR, false) +
                          (c.leader ? 0.5 * leader_cost(x->cv, &c, p, CROSS_NONE) : 0);
            if (cost < best_cost) {
                best_cost = cost;
                best = c;
            }
        }
    if (best_cost < 1e300)
        return best;
    const rl_chart_rect *in = x->within;
    best = place_at(p, w, x->size, 0, PIN_NEAR);
    double hw = best.box.hw, hh = best.box.hh, cx = best.box.cx, cy = best.box.cy;
    double lo = in->x + hw, hi = in->x + in->w - hw;
    cx = lo <= hi ? fmax(lo, fmin(hi, cx)) : in->x + in->w / 2;
    lo = in->y + hh;
    hi = in->y + in->h - hh;
    cy = lo <= hi ? fmax(lo, fmin(hi, cy)) : in->y + in->h / 2;
    return cand_at(p, w, x->size, cx, cy);
}

/* ---- placing ----------------------------------------------------------------------------------
 */

/* Mark c occupied as committing it would (its box, its leader), nothing drawn. */
static void occupy_choice(pin_ctx *x, const cand *c)
{
    rl_chart_box b = c->box;
    b.cost = RL_CHART_COST_SOLID;
    rl_chart_occupy(x->cv, &b);
    if (c->leader)
        rl_chart_add_seg(x->cv, &c->line, NULL);
    ix_catch_up(&x->ix, x->cv);
}

static void commit(rl_chart_canvas *cv, const rl_chart_pin *p, const cand *c, double size,
                   const char *cls, bool clear, rl_chart_pinned *out)
{
    rl_chart_text(cv, p->text, c->tx, c->ty, size, p->bold, c->anchor, 0, cls);
    if (c->leader) {
        rl_chart_line(cv, c->line.x0, c->line.y0, c->line.x1, c->line.y1, RL_CHART_LEADER_RGB,
                      PIN_LEADER_W, false);
        rl_chart_occupy_seg(cv, &c->line, NULL);
    }
    out->box = c->box;
    out->leader = c->leader;
    out->line = c->line;
    out->clear = clear;
}

/* A try's choice for one label. */
typedef struct {
    cand c;
    bool clear;
} choice;

/* Place the n labels: the first n_first of order through every step, then the others; within
 * a group, each step takes the labels in order. res gets every choice; the count of labels
 * not clear is returned. The canvas' lists and the index grow (cut back by the caller). */
static size_t trial(pin_ctx *x, const rl_chart_pin *pins, const double *w, size_t n,
                    const size_t *order, size_t n_first, choice *res)
{
    bool done[RL_CHART_MAX_SERIES] = {false};
    size_t unclear = 0;
    for (int g = 0; g < 2; g++) {
        size_t lo = g == 0 ? 0 : n_first, hi = g == 0 ? n_first : n;
        for (size_t s = 0; s < PIN_STEPS; s++)
            for (size_t k = 0; k < step_parts(&steps[s]); k++)
                for (size_t o = lo; o < hi; o++) {
                    size_t i = order[o];
                    if (!done[i] && step_free(x, &pins[i], w[i], &steps[s], k, &res[i].c)) {
                        res[i].clear = done[i] = true;
                        occupy_choice(x, &res[i].c);
                    }
                }
        for (size_t o = lo; o < hi; o++) {
            size_t i = order[o];
            if (!done[i]) {
                res[i].c = cheapest(x, &pins[i], w[i]);
                res[i].clear = false;
                done[i] = true;
                occupy_choice(x, &res[i].c);
                unclear++;
            }
        }
    }
    return unclear;
}

/* The order of the first try: the most crowded first (the most other points within
 * PIN_CROWD px), then the points' order. */
static void crowd_order(const rl_chart_pin *pins, size_t n, size_t *order)
{
    size_t crowd[RL_CHART_MAX_SERIES];
    for (size_t i = 0; i < n; i++) {
        crowd[i] = 0;
        for (size_t j = 0; j < n; j++)
            crowd[i] += j != i && hypot(pins[j].x - pins[i].x, pins[j].y - pins[i].y) < PIN_CROWD;
        size_t k = i;
        for (; k > 0 && crowd[order[k - 1]] < crowd[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
}

void rl_chart_pin_labels(rl_chart_canvas *cv, const rl_chart_pin *pins, size_t n, double size,
                         const char *cls, const rl_chart_rect *within, rl_chart_pinned *out)
{
    double w[RL_CHART_MAX_SERIES];
    size_t order[RL_CHART_MAX_SERIES];
    if (n > RL_CHART_MAX_SERIES)
        n = RL_CHART_MAX_SERIES;
    for (size_t i = 0; i < n; i++)
        w[i] = rl_chart_text_width(cv, pins[i].text, size, pins[i].bold);
    crowd_order(pins, n, order);
    pin_ctx x;
    x.cv = cv;
    x.within = within;
    x.size = size;
    ix_init(&x.ix, cv);
    choice res[RL_CHART_MAX_SERIES], best[RL_CHART_MAX_SERIES];
    size_t n_occ = cv->n_occ, n_segs = cv->n_segs, n_items = x.ix.n, best_unclear = SIZE_MAX;
    size_t n_first = 0;
    for (int t = 0; t < PIN_TRIES && best_unclear > 0; t++) {
        size_t unclear = trial(&x, pins, w, n, order, n_first, res);
        ix_cut(&x.ix, cv, n_items, n_occ, n_segs);
        if (unclear < best_unclear) {
            best_unclear = unclear;
            memcpy(best, res, n * sizeof *res);
        }
        /* the next time first those not clear, then the rest of those that went first, each
         * through every step before the others */
        size_t next[RL_CHART_MAX_SERIES], m = 0;
        for (size_t o = 0; o < n; o++)
            if (!res[order[o]].clear)
                next[m++] = order[o];
        for (size_t o = 0; o < n_first; o++)
            if (res[order[o]].clear)
                next[m++] = order[o];
        size_t first = m;
        for (size_t o = n_first; o < n; o++)
            if (res[order[o]].clear)
                next[m++] = order[o];
        n_first = first;
        memcpy(order, next, n * sizeof *order);
    }
    ix_free(&x.ix);
    for (size_t i = 0; i < n; i++)
        commit(cv, &pins[i], &best[i].c, size, cls, best[i].clear, &out[i]);
}

void rl_chart_pin_replay(rl_chart_canvas *cv, const rl_chart_pin *pins, size_t n, double size,
                         const char *cls, const rl_chart_pinned *placed, rl_chart_pinned *out)
{
    if (n > RL_CHART_MAX_SERIES)
        n = RL_CHART_MAX_SERIES;
    for (size_t i = 0; i < n; i++) {
        double w = rl_chart_text_width(cv, pins[i].text, size, pins[i].bold);
        cand c = cand_at(&pins[i], w, size, placed[i].box.cx, placed[i].box.cy);
        commit(cv, &pins[i], &c, size, cls, placed[i].clear, &out[i]);
    }
}

bool rl_chart_pin_one(rl_chart_canvas *cv, const rl_chart_pin *alts, size_t n, double size,
                      const char *cls, const rl_chart_rect *within, rl_chart_pinned *out)
{
    memset(out, 0, sizeof *out);
    double w = n ? rl_chart_text_width(cv, alts[0].text, size, alts[0].bold) : 0;
    pin_ctx x;
    x.cv = cv;
    x.within = within;
    x.size = size;
    ix_init(&x.ix, cv);
    bool found = false;
    cand c;
    for (size_t s = 0; s < PIN_STEPS && !found; s++)
        for (size_t k = 0; k < step_parts(&steps[s]) && !found; k++)
            for (size_t i = 0; i < n && !found; i++)
                if (step_free(&x, &alts[i], w, &steps[s], k, &c)) {
                    commit(cv, &alts[i], &c, size, cls, true, out);
                    found = true;
                }
    ix_free(&x.ix);
    return found;
}
