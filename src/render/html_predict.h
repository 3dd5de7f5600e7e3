/* html_predict.h: the report's "what to expect" table: for each measured model the decode rate
 * the bundle's fit predicts (its bytes over the fitted bandwidth, the interval from the fitted
 * models' own effective bandwidths: predict.h) beside the rate measured, and each model given
 * with `diagnose --predict` (bundle.predictions) with its prediction and caveats. All kind
 * derived. Without a fit the section says why and shows nothing else.
 *
 * Writes into the template slot "expect-table" of root; nodes belong to h->doc; out of memory
 * is recorded in h->oom. The bundle is only read; the measured rows are computed in analyse
 * (analyse/predict_expect.h) and only formatted here. */
#ifndef RL_HTML_PREDICT_H
#define RL_HTML_PREDICT_H

#include <cjson/cJSON.h>
#include <libxml/tree.h>

#include "render/html_doc.h"

void rl_html_predict(rl_html *h, xmlNodePtr root, const cJSON *bundle);

#endif
