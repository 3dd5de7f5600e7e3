/* SPDX-License-Identifier: MIT */
/* predict_expect.c: the "what to expect" rows of a bundle (predict_expect.h). No I/O. */
#include "analyse/predict_expect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_error.h"
#include "base/rl_json.h"
#include "base/stats.h"
#include "bundle/bundle.h"

/* One measured model's row; false when it has no short-context decode. A fitted model is
 * predicted without itself (leave-one-out, rl_pred_rate_without): the other models of its
 * format, or the fit over the other models when it is its format's only one; its interval is
 * theirs alone. */
static bool expect_row(const cJSON *b, const rl_pred_fit *f, const cJSON *m, rl_pred_expect_row *r)
{
    bool ok = false;
    double bytes, meas;
    if (!rl_json_get_bool(m, "ok", &ok) || !ok || !rl_json_get_num(m, "bytes_per_token", &bytes) ||
        !rl_json_get_num(rl_json_get(m, "operating_point"), "decode_tok_s", &meas))
        return false;
    const char *id = rl_json_get_str(m, "id");
    const cJSON *gguf = rl_json_get(rl_bundle_model(b, id, NULL), "gguf");
    const char *label = rl_json_get_str(gguf, "label");
    bool fitted = false;
    double gbs = 0;
    rl_pred_rate rate;
    rl_json_get_bool(m, "in_fit", &fitted);
    if (fitted && rl_json_get_num(m, "decode_bw_GBs", &gbs))
        rl_pred_rate_without(f, label, bytes, gbs * 1e9, &rate);
    else
        rl_pred_rate_for(f, label, &rate);
    double pred = rl_pred_tok_s(rate.bw, bytes);
    *r = (rl_pred_expect_row){
        .id = id,
        .in_fit = fitted,
        .bytes = bytes,
        .measured = meas,
        .pred = pred,
        .lo = rl_pred_tok_s(rate.lo, bytes),
        .hi = rl_pred_tok_s(rate.hi, bytes),
        .diff_pct = isfinite(pred) && pred > 0 ? 100.0 * (meas - pred) / pred : NAN,
        .two_diff_pct = NAN,
    };
    rl_pred_roofs_for_json(f, gguf, &r->two);
    rl_roof_verdict(&r->two, f->ceiling_GBs, r->verdict, sizeof r->verdict);
    if (r->two.ok && r->two.tok_s > 0)
        r->two_diff_pct = 100.0 * (meas - r->two.tok_s) / r->two.tok_s;
    return true;
}

/* x->two_median_pct over the rows with a two-roof difference (rows already filled): the one
 * median of base/stats.h. */
static rl_status two_median(rl_pred_expect *x, rl_error *err)
{
    x->two_median_pct = NAN;
    double *v = malloc((x->n_rows ? x->n_rows : 1) * sizeof *v);
    if (!v)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < x->n_rows; i++)
        if (isfinite(x->rows[i].two_diff_pct))
            v[n++] = x->rows[i].two_diff_pct;
    x->n_two = n;
    rl_stats_summary s;
    rl_status st = RL_OK;
    if (n > 0 && (st = rl_stats_summarize(v, n, &s, err)) == RL_OK)
        x->two_median_pct = s.median;
    free(v);
    return st;
}

rl_status rl_pred_expect_build(const cJSON *b, rl_pred_expect *x, rl_error *err)
{
    memset(x, 0, sizeof *x);
    x->two_median_pct = NAN;
    rl_error e = {RL_OK, ""};
    if (rl_pred_fit_from_bundle(b, "this bundle", &x->fit, &e) != RL_OK) {
        memset(&x->fit, 0, sizeof x->fit);
        return RL_OK;
    }
    x->has_fit = true;
    const cJSON *models = rl_json_get(rl_json_get(b, "analysis"), "models");
    int n = cJSON_GetArraySize(models);
    if (n <= 0)
        return RL_OK;
    x->rows = calloc((size_t)n, sizeof *x->rows);
    if (!x->rows)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    const cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        if (expect_row(b, &x->fit, m, &x->rows[x->n_rows]))
            x->n_rows++;
    }
    return two_median(x, err);
}

void rl_pred_expect_free(rl_pred_expect *x)
{
    free(x->rows);
    memset(x, 0, sizeof *x);
}
