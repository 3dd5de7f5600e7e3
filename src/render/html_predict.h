/* SPDX-License-Identifier: MIT */
/* html_predict.h: the report's "what to expect" table: for each measured model the decode rate
 * the bundle's fit predicts (its bytes over the fitted bandwidth, the interval from the fitted
 * models' own effective bandwidths: predict.h) beside the rate measured, and each model given
 * with `diagnose --predict` (bundle.predictions) with its prediction and caveats. All kind
 * derived. Without a fit the section says why and shows nothing else.
 *
 * Writes into the template slot "expect-table" of root; nodes belong to h->doc; out of memory
 * is recorded in h->oom. The bundles and x are only read: the measured rows are computed before
 * rendering (rl_pred_expect_build, analyse/predict_expect.h, by the command layer) and only
 * formatted here. orig is the bundle x was built from (its ids point into it), b the page's
 * repaired copy of orig (html_doc.h), whose strings are shown; x NULL (not computed) or without
 * a fit: the section says there is nothing to predict from. */
#ifndef RL_HTML_PREDICT_H
#define RL_HTML_PREDICT_H

#include <cjson/cJSON.h>
#include <libxml/tree.h>

#include "analyse/predict_expect.h"
#include "render/html_doc.h"

void rl_html_predict(rl_html *h, xmlNodePtr root, const cJSON *orig, const cJSON *b,
                     const rl_pred_expect *x);

#endif
