/* SPDX-License-Identifier: MIT */
/* analysis_depth.h: the analysis's long-context fits, one per model with long-context rows
 * (analysis.h rl_an_depth_fit; the form is analyse/depth_fit.h). Called by rl_analyse after the
 * long-context rows; the JSON is analysis.depth_fits (docs/BUNDLE.md). */
#ifndef RL_ANALYSIS_DEPTH_H
#define RL_ANALYSIS_DEPTH_H

#include <cjson/cJSON.h>

#include "analyse/analysis.h"

/* Fill r->depth_fits from r->long_context (rows grouped by model, as rl_analyse makes them).
 * RL_EINTERNAL when out of memory. */
rl_status rl_an_depth_fits(rl_an_result *r, rl_error *err);

/* analysis.depth_fits: [{model, threads, kind derived, n_points, max_depth, tau0_us,
 * slope_us_per_token, r2, us_per_kv_byte, check: {depth, from_max_depth, predicted_tok_s,
 * measured_tok_s, error_pct}}], a fit that does not hold {available: false, reason, model,
 * threads}; NULL when out of memory. */
cJSON *rl_an_depth_fits_json(const rl_an_result *r);

#endif
