/* SPDX-License-Identifier: MIT */
/* history_chart.h: a history's trend chart, one metric of one subject (owner: history; drawn
 * by chart_history.c with the chart module's internals, chart_int.h).
 *
 * x = the bundle's place in time order (1 = the oldest of the machine's bundles), y = the
 * metric's mean in its unit, from zero. One line per series (the key variants: threads,
 * depth, concurrency...), colour and marker shape per series and named in the legend below;
 * a series with at most RL_HIST_CHART_ALL_MARKERS points has a marker at each, longer ones at
 * their listed points only (rl_hist_listed), so 1,000 bundles draw as lines. A step judged
 * slower or faster gets a larger ring around its marker; the arrows are in the table.
 * Table: series, bundle number, bundle, mean, verdict, for the listed points.
 *
 * Ownership: out is filled as every rl_chart (free with rl_chart_free). */
#ifndef RL_HISTORY_CHART_H
#define RL_HISTORY_CHART_H

#include "render/chart/chart.h"
#include "analyse/history.h"

#define RL_HIST_CHART_ALL_MARKERS 60

typedef struct {
    const rl_hist *h;
    const size_t *series; /* indices into h->series: one metric of one subject */
    size_t n_series;
    const char *id;    /* chart id, unique on the page ("trend-3") */
    const char *title; /* "decode of qwen.gguf (tok/s)" */
    bool all;          /* every point listed (--all-steps) */
} rl_hist_chart_src;

/* RL_OK and out filled; RL_NOTHING when no series has a point. */
rl_status rl_chart_history(const rl_hist_chart_src *src, rl_chart *out, rl_error *err);

#endif
