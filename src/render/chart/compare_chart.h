/* SPDX-License-Identifier: MIT */
/* compare_chart.h: the comparison's roofline, every input on one chart (owner: compare; drawn
 * by src/chart_compare.c with the chart module's internals, chart_int.h).
 *
 * x = bytes per token (MB, log), y = decode tok/s at each model's operating point (log), as in
 * the report's roofline. Each input has its own colour (Okabe-Ito, rl_chart_series_color) AND
 * marker shape (rl_chart_series_shape), its points, and its fitted line tok/s = BW / bytes
 * (analysis.fit) solid in its colour; with at most 6 inputs, their ceilings dashed in the same
 * colour. The legend names each input in words ("[1] label: fit 25.6 GB/s, ceiling 76.3
 * GB/s"; "no fit", or "no llama-bench runs" for a client bundle), so no colour has to be
 * told apart. Table: a row per point (input, model, bytes per
 * token, tok/s, threads) and per line ("fit line" / "ceiling line", input, GB/s).
 *
 * Ownership: out is filled as every rl_chart (free with rl_chart_free). */
#ifndef RL_COMPARE_CHART_H
#define RL_COMPARE_CHART_H

#include "render/chart/chart.h"
#include "analyse/compare.h"

/* RL_OK and out filled; RL_NOTHING when no input has an operating point. */
rl_status rl_chart_compare_roofline(const rl_cmp *c, rl_chart *out, rl_error *err);

#endif
