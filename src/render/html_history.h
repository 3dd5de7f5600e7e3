/* SPDX-License-Identifier: MIT */
/* html_history.h: the history page (owner: history), assembled from templates/history.xml with
 * the comparison page's machinery: libxml2 tree (html_doc.h), the report's and the
 * comparison's stylesheets and Content-Security-Policy (no script runs, nothing is loaded),
 * trend charts as inline SVG (history_chart.h through html_svg.h), and the history embedded
 * as <script type="application/json" id="history"> (rl_hist_to_json not full, printed without
 * layout: rl_html_embed_json_compact).
 *
 * Reading order: the headline (bundles, machine, span, steps beyond noise) and the test; the
 * bundles of other machines left out; every step beyond noise in one table; per group, per
 * subject and metric a trend chart and a table per series of its listed points
 * (rl_hist_listed: 1,000 bundles stay a readable page of a few MB); the bundles in time order
 * (when, label, llama.cpp build, kernel, governor, disturbed).
 *
 * Deterministic: the same inputs give the same bytes. Ownership: *out is the caller's. */
#ifndef RL_HTML_HISTORY_H
#define RL_HTML_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "analyse/history.h"

rl_status rl_html_history(const rl_hist *h, bool all, char **out, size_t *len, rl_error *err);

#endif
