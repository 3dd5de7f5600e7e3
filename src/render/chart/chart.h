/* SPDX-License-Identifier: MIT */
/* chart.h: the report's charts, drawn with cairo onto in-memory SVG surfaces (owner: chart).
 *
 * Layout (axes, ticks, scales, label placement) is computed apart from drawing (as rrdtool's
 * rrd_graph.c is apart from rrd_gfx.c); cairo draws the geometry (lines, markers, bars) and the
 * labels are added afterwards as real SVG <text> elements (libxml2) at the coordinates the
 * layout measured with cairo, so chart text is selectable, searchable and read aloud. Palette:
 * Okabe-Ito on a transparent background, neutral grey axes, readable on light and dark pages;
 * markers and words as well as colour. Deterministic: the same bundle gives the same bytes
 * (font for measuring: DejaVu Sans from Debian fonts-dejavu-core).
 *
 * Ownership: every rl_chart filled here owns its strings; free with rl_chart_free. */
#ifndef RL_CHART_H
#define RL_CHART_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

typedef struct {
    char *id;    /* "roofline", "threads", "long-context", "composition", "membw" */
    char *title; /* plain text, for the figure caption and the SVG <title> */
    char *desc;  /* plain text, one or two sentences, for <desc> (what is plotted, units) */
    char *svg;   /* a complete standalone SVG document, UTF-8 XML text, NUL-terminated */
    size_t svg_len;
    /* The plotted numbers as a table (the page shows it beside the chart): n_cols headers with
     * units, n_rows rows, cells row-major; numbers formatted in the C locale exactly as plotted
     * (full precision needed to check the chart against the bundle: use %.6g or better). */
    size_t n_cols, n_rows;
    char **cols;
    char **cells;
} rl_chart;

/* One chart from a bundle: RL_OK and out filled; RL_NOTHING (out zeroed, err says why, e.g.
 * "no long-context runs") when the bundle has no data for it; other statuses on failure. */
rl_status rl_chart_roofline(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_threads(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_long_context(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_composition(const cJSON *bundle, rl_chart *out, rl_error *err);
rl_status rl_chart_membw(const cJSON *bundle, rl_chart *out, rl_error *err);
void rl_chart_free(rl_chart *c);

/* The roofline chart as a PNG file (for `report --png`), written atomically. */
rl_status rl_chart_roofline_png(const cJSON *bundle, const char *path, rl_error *err);

#endif
