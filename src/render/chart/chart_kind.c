/* SPDX-License-Identifier: MIT */
/* chart_kind.c: the one entry skeleton every chart runs (owner: chart).
 *
 * Each chart file describes itself in an rl_chart_kind (chart_int.h): its id and title, how to
 * read its data, the sentence for <desc>, its table, its height and its drawing. The drivers
 * here do the rest the same way for all of them, as rrdtool keeps its presentation rules in
 * tables: a zeroed data struct, read (RL_NOTHING passes through), <title>/<desc>, the table,
 * the SVG (or the PNG), then the data's strings freed and, on failure, the chart too.
 *
 * Ownership: the data struct lives only inside a driver call; out is filled as every rl_chart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_util.h"

static void *kind_data(const rl_chart_kind *k, rl_error *err)
{
    void *d = rl_calloc(1, k->size);
    if (!d)
        rl_fail(err, RL_EINTERNAL, "%s: out of memory", k->what);
    return d;
}

static void kind_free(const rl_chart_kind *k, void *d)
{
    if (k->free)
        k->free(d);
    free(d);
}

/* The chart's height in px: the kind's own rule, else its paddings around the legend. */
static double kind_height(const rl_chart_kind *k, void *d)
{
    if (k->height)
        return k->height(d);
    return ceil(k->top_h + (k->legend_h ? rl_chart_measure(k->legend_h, d) : 0) + k->bottom_h);
}

rl_status rl_chart_run(const rl_chart_kind *k, const void *src, rl_chart *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    void *d = kind_data(k, err);
    if (!d)
        return RL_EINTERNAL;
    rl_status st = k->read(k, src, d, err);
    if (st == RL_OK) {
        char *desc = k->desc(k, d);
        st = desc ? rl_chart_set_text(out, k->id, k->title, desc, err)
                  : rl_fail(err, RL_EINTERNAL, "%s: out of memory", k->what);
        free(desc);
    }
    if (st == RL_OK)
        st = k->table(out, d, err);
    if (st == RL_OK)
        st = rl_chart_render_svg(out, RL_CHART_W, kind_height(k, d), k->draw, d, err);
    kind_free(k, d);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

rl_status rl_chart_run_png(const rl_chart_kind *k, const void *src, const char *path, rl_error *err)
{
    void *d = kind_data(k, err);
    if (!d)
        return RL_EINTERNAL;
    rl_status st = k->read(k, src, d, err);
    if (st == RL_OK)
        st = rl_chart_render_png(path, RL_CHART_W, kind_height(k, d), k->draw, d, err);
    kind_free(k, d);
    return st;
}
