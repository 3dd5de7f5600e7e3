/* SPDX-License-Identifier: MIT */
/* html_predict.c: the "what to expect" table of the report, formatted from the rows it is given
 * (nothing is computed here). See html_predict.h. */
#include "render/html_predict.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "analyse/predict_expect.h"
#include "render/report_text.h"
#include "base/rl_json.h"
#include "base/rl_text.h"

static void td(rl_html *h, xmlNodePtr tr, const char *cls, const char *text)
{
    rl_html_el_text(h, tr, "td", cls, text);
}

/* "12.3 (11.0 to 13.4)" */
static void rate_cell(rl_html *h, xmlNodePtr tr, double v, double lo, double hi)
{
    char a[32], b[32], c[32];
    rl_report_fmt_num(v, a, sizeof a);
    rl_report_fmt_num(lo, b, sizeof b);
    rl_report_fmt_num(hi, c, sizeof c);
    rl_html_el_textf(h, tr, "td", "num", "%s (%s to %s)", a, b, c);
}

static void mb_cell(rl_html *h, xmlNodePtr tr, double bytes)
{
    char a[32];
    rl_report_fmt_num(bytes / 1e6, a, sizeof a);
    td(h, tr, "num", a);
}

/* The id in b of the model whose id in orig is the string id, found by the pointer (the rows'
 * ids point into orig, the bundle they were built from; b is its repaired copy, of the same
 * shape, whose names the page shows); id itself when not found. */
static const char *id_in(const cJSON *orig, const cJSON *b, const char *id)
{
    const cJSON *om = rl_json_get(rl_json_get(orig, "analysis"), "models");
    const cJSON *bm = rl_json_get(rl_json_get(b, "analysis"), "models");
    for (const cJSON *o = om ? om->child : NULL, *c = bm ? bm->child : NULL; o && c;
         o = o->next, c = c->next)
        if (id && rl_json_get_str(o, "id") == id)
            return rl_json_get_str(c, "id");
    return id;
}

/* Two-roof tok/s, measured against it, and the verdict (rl_roof_verdict: the binding roof and
 * by how much); n/a cells saying why. */
static void two_cells(rl_html *h, xmlNodePtr tr, const rl_roof_result *two, double diff_pct,
                      const char *verdict)
{
    if (!two->ok) {
        td(h, tr, "num", "n/a");
        td(h, tr, "num", "");
        td(h, tr, "missing", two->why[0] ? two->why : "no calibration");
        return;
    }
    char a[32];
    rl_report_fmt_num(two->tok_s, a, sizeof a);
    td(h, tr, "num", a);
    rl_snprintf(a, sizeof a, "%+.1f%%", diff_pct);
    td(h, tr, "num", isfinite(diff_pct) ? a : "");
    td(h, tr, "verdict", verdict);
}

/* One row per measured model with a short-context decode (analyse/predict_expect.h). */
static void measured_rows(rl_html *h, xmlNodePtr tb, const cJSON *orig, const cJSON *b,
                          const rl_pred_expect *x)
{
    for (size_t i = 0; i < x->n_rows; i++) {
        const rl_pred_expect_row *r = &x->rows[i];
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        td(h, tr, NULL, rl_report_model_name(b, id_in(orig, b, r->id)));
        td(h, tr, NULL, r->in_fit ? "measured, in the fit" : "measured, not in the fit");
        mb_cell(h, tr, r->bytes);
        rate_cell(h, tr, r->pred, r->lo, r->hi);
        char a[32];
        rl_report_fmt_num(r->measured, a, sizeof a);
        td(h, tr, "num", a);
        rl_snprintf(a, sizeof a, "%+.1f%%", r->diff_pct);
        td(h, tr, "num", isfinite(r->diff_pct) ? a : "n/a");
        if (x->fit.has_roofs)
            two_cells(h, tr, &r->two, r->two_diff_pct, r->verdict);
    }
}

/* The two-roof cells of a stored prediction (predictions.models[].two_roof). */
static void stored_two_cells(rl_html *h, xmlNodePtr tr, const cJSON *two)
{
    double v;
    const char *verdict = rl_json_get_str(two, "verdict");
    const char *binding = rl_json_get_str(two, "binding");
    if (!rl_json_get_num(two, "tok_s", &v)) {
        const char *why = rl_json_get_str(two, "reason");
        td(h, tr, "num", "n/a");
        td(h, tr, "num", "");
        td(h, tr, "missing", why ? why : "not predicted (a bundle before two roofs)");
        return;
    }
    char a[32];
    rl_report_fmt_num(v, a, sizeof a);
    td(h, tr, "num", a);
    td(h, tr, "num", "");
    if (verdict) /* a prediction stored before the verdict: its binding type */
        td(h, tr, "verdict", verdict);
    else
        rl_html_el_textf(h, tr, "td", "verdict", "the %s kernel takes the most time",
                         binding ? binding : "?");
}

/* One row per bundle.predictions model, its caveats listed after the table. */
static void predicted_rows(rl_html *h, xmlNodePtr tb, const cJSON *preds, bool roofs)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(preds, "models"))
    {
        const cJSON *pt = cJSON_GetArrayItem(rl_json_get(m, "points"), 0);
        double v, lo, hi, bytes;
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        td(h, tr, NULL, rl_json_get_str(m, "name") ? rl_json_get_str(m, "name") : "?");
        rl_html_el_textf(h, tr, "td", NULL, "predicted (diagnose --predict): %s",
                         rl_json_get_str(m, "model") ? rl_json_get_str(m, "model") : "?");
        if (rl_json_get_num(pt, "bytes_per_token", &bytes) && rl_json_get_num(pt, "tok_s", &v) &&
            rl_json_get_num(pt, "tok_s_low", &lo) && rl_json_get_num(pt, "tok_s_high", &hi)) {
            mb_cell(h, tr, bytes);
            rate_cell(h, tr, v, lo, hi);
        } else {
            td(h, tr, "num", "n/a");
            td(h, tr, "num", "n/a");
        }
        td(h, tr, "missing", "not measured");
        td(h, tr, "num", "");
        if (roofs)
            stored_two_cells(h, tr, rl_json_get(m, "two_roof"));
    }
}

static void caveat_list(rl_html *h, xmlNodePtr host, const cJSON *preds)
{
    xmlNodePtr ul = NULL;
    const cJSON *m, *c;
    cJSON_ArrayForEach(m, rl_json_get(preds, "models"))
    {
        cJSON_ArrayForEach(c, rl_json_get(m, "caveats"))
        {
            if (!ul)
                ul = rl_html_el(h, host, "ul", "caveats");
            xmlNodePtr li = rl_html_el(h, ul, "li", "caveat");
            rl_html_textf(h, li, "%s: %s",
                          rl_json_get_str(m, "name") ? rl_json_get_str(m, "name") : "?",
                          rl_json_get_str(c, "text") ? rl_json_get_str(c, "text") : "");
            rl_html_attr(h, li, "data-caveat",
                         rl_json_get_str(c, "code") ? rl_json_get_str(c, "code") : "");
        }
    }
}

/* What the two-roof columns are (docs/METHOD.md "Two roofs"). */
static void roofs_lead(rl_html *h, xmlNodePtr host, const rl_pred_fit *f)
{
    xmlNodePtr p = rl_html_el(h, host, "p", "lead");
    rl_html_textf(h, p,
                  "Two roofs: per-token time = the fixed cost + each type's bytes at its "
                  "kernel's measured time per byte for a model of this size, from the "
                  "calibration at %d threads (single-type synthetic models, never these "
                  "models): the kernel's compute roof where the weights fit the cache, its "
                  "streaming rate where they do not. The binding roof is the type with the "
                  "largest share of the time, at its bytes over its time. Also ",
                  f->roof_threads);
    rl_html_el_text(h, p, "span", "kind kind-derived", "derived");
    rl_html_text(h, p, "; the measured rates are at each model's best thread count.");
}

/* The calibration against this bundle's measured models, under the table: a caveat beside the
 * two-roof rates when their median is off by more than RL_PRED_TWO_AGREE_PCT (the host was
 * most likely in another state when the calibration was measured). */
static void roofs_agreement(rl_html *h, xmlNodePtr host, const rl_pred_expect *x)
{
    if (!x->fit.has_roofs || x->n_two == 0 || !isfinite(x->two_median_pct))
        return;
    char med[32];
    rl_snprintf(med, sizeof med, "%+.1f%%", x->two_median_pct);
    bool off = fabs(x->two_median_pct) > RL_PRED_TWO_AGREE_PCT, one = x->n_two == 1;
    xmlNodePtr p = rl_html_el(h, host, "p", off ? "caveat" : "lead");
    rl_html_attr(h, p, "data-caveat", off ? "calibration_offset" : "calibration_agrees");
    rl_html_textf(h, p,
                  "The calibration against this bundle: the %zu measured model%s run%s a median "
                  "of %s against %s two-roof rate%s (within %.0f%% %s). ",
                  x->n_two, one ? "" : "s", one ? "s" : "", med, one ? "its" : "their",
                  one ? "" : "s", RL_PRED_TWO_AGREE_PCT, off ? "is not met" : "is met");
    if (off)
        rl_html_text(h, p,
                     "The calibration was most likely measured while this host ran at another "
                     "speed (a shared VM's memory bandwidth can move by 2 x within minutes), so "
                     "every two-roof rate here carries that offset: llama-roofline calibrate "
                     "--recalibrate right before measuring puts both in the same state.");
    else
        rl_html_text(h, p, "The calibration and these measurements saw the host alike.");
}

void rl_html_predict(rl_html *h, xmlNodePtr root, const cJSON *orig, const cJSON *b,
                     const rl_pred_expect *x)
{
    xmlNodePtr host = rl_html_by_id(root, "expect-table");
    if (!host)
        return;
    if (!x || !x->has_fit) {
        const char *why = rl_json_get_str(rl_json_get(rl_json_get(b, "analysis"), "fit"), "reason");
        rl_html_el_textf(h, host, "p", "missing",
                         "Nothing to predict from: the bundle has no fit (%s). Two or more "
                         "models of different sizes give one.",
                         why ? why : "no analysis");
        return;
    }
    const rl_pred_fit *f = &x->fit;
    char bw[32], lo[32], hi[32];
    rl_report_fmt_num(f->bw_bytes_s / 1e9, bw, sizeof bw);
    rl_report_fmt_num(f->bw_lo_bytes_s / 1e9, lo, sizeof lo);
    rl_report_fmt_num(f->bw_hi_bytes_s / 1e9, hi, sizeof hi);
    xmlNodePtr lead = rl_html_el(h, host, "p", "lead");
    rl_html_textf(h, lead,
                  "Predicted decode = bandwidth / bytes per token (%s): the bandwidth is the "
                  "fit over the measured models of the same format where there are any "
                  "(formats whose kernels cost more compute run slower per byte), else the fit "
                  "over all, %s GB/s. Interval: the fitted models' own effective bandwidths, %s "
                  "to %s GB/s (a format's own when it has two or more). A measured model of the "
                  "fit is predicted without itself (leave-one-out): from the other models of its "
                  "format, or from the fit over the other models when it is its format's only "
                  "one, its interval theirs alone, so its measured rate may fall outside. "
                  "Predictions are ",
                  f->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident", bw, lo, hi);
    rl_html_el_text(h, lead, "span", "kind kind-derived", "derived");
    rl_html_text(h, lead, "; measured rates are at each model's best thread count.");
    if (f->has_roofs)
        roofs_lead(h, host, f);
    const char *cols[] = {"Model",
                          "Source",
                          "Bytes per token (MB)",
                          "Predicted tok/s",
                          "Measured tok/s",
                          "Measured vs predicted",
                          "Two roofs tok/s",
                          "Measured vs two roofs",
                          "Which roof binds"};
    static const bool numeric[] = {false, false, true, true, true, true, true, true, false};
    xmlNodePtr tb = rl_html_table(h, host, NULL, cols, numeric, f->has_roofs ? 9 : 6);
    measured_rows(h, tb, orig, b, x);
    roofs_agreement(h, host, x);
    const cJSON *preds = rl_json_get(b, "predictions"); /* {"kind": "derived", "fit", "models"} */
    predicted_rows(h, tb, preds, f->has_roofs);
    caveat_list(h, host, preds);
    if (!rl_json_get(b, "predictions"))
        rl_html_el_text(h, host, "p", "missing",
                        "No other model was predicted: diagnose --predict MODEL (a GGUF, a URL "
                        "or synth:PRESET:TYPE) adds rows here; llama-roofline predict does it "
                        "at any time from this bundle.");
}
