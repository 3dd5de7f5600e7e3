/* SPDX-License-Identifier: MIT */
/* predict_expect.h: the rows of the report's "what to expect" table, computed from a bundle:
 * for each measured model with a short-context decode, the decode rate predict would give it
 * beside the rate measured: a fitted model from the other fitted models only, leave-one-out
 * (rl_pred_rate_without), any other from them all (rl_pred_rate_for); and, when the bundle
 * holds a calibration, the two-roof rate from its GGUF types (rl_pred_roofs_for_json: the
 * calibration is of single-type models, never of the model itself, so nothing is left out),
 * and the median of measured against two roofs over the rows, the calibration's agreement with
 * this bundle. The renderers only read these rows (render/html_predict.c).
 *
 * Ownership: rl_pred_expect owns its rows array (rl_pred_expect_free, safe on a zeroed one);
 * each row's id points into the bundle, which must outlive it. */
#ifndef RL_PREDICT_EXPECT_H
#define RL_PREDICT_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "analyse/predict.h"
#include "base/rl_error.h"

typedef struct {
    const char *id; /* analysis.models[].id (into the bundle), NULL when absent */
    bool in_fit;
    double bytes;        /* bytes per token */
    double measured;     /* decode tok/s at the operating point */
    double pred, lo, hi; /* predicted tok/s and its interval (NAN when not predictable) */
    double diff_pct;     /* 100 (measured - pred) / pred; NAN unless pred is finite and > 0 */
    rl_roof_result two;  /* both roofs from the bundle's calibration (two.ok false: two.why) */
    double two_diff_pct; /* 100 (measured - two.tok_s) / two.tok_s; NAN unless two.ok */
    char verdict[160];   /* rl_roof_verdict of two against the bundle's ceiling */
} rl_pred_expect_row;

typedef struct {
    bool has_fit; /* false: the bundle has no fit; fit and rows are empty */
    rl_pred_fit fit;
    rl_pred_expect_row *rows;
    size_t n_rows;
    /* The calibration against this bundle's own measurements: the median of the rows'
     * two_diff_pct over the n_two rows that have one (NAN when none). Beyond
     * RL_PRED_TWO_AGREE_PCT either way, the calibration was most likely measured in another
     * state of the host than these models, and every two-roof rate here carries that offset
     * (docs/METHOD.md "Interleaved"). */
    size_t n_two;
    double two_median_pct;
} rl_pred_expect;

#define RL_PRED_TWO_AGREE_PCT 10.0

/* Fill x from bundle b (only read). RL_EINTERNAL when out of memory; a bundle without a fit
 * is RL_OK with has_fit false. */
rl_status rl_pred_expect_build(const cJSON *b, rl_pred_expect *x, rl_error *err);
void rl_pred_expect_free(rl_pred_expect *x);

#endif
