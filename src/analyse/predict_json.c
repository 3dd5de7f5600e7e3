/* SPDX-License-Identifier: MIT */
/* predict_json.c: a bundle's fit and a prediction as JSON (predict.h). */
#include "analyse/predict.h"

#include <math.h>
#include <string.h>

#include "base/rl_json.h"

/* ---- JSON ---------------------------------------------------------------------------- */

cJSON *rl_pred_fit_to_json(const rl_pred_fit *f)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "kind", "derived") &&
              rl_json_add_num(o, "bw_GBs", f->bw_bytes_s / 1e9) &&
              rl_json_add_num(o, "bw_low_GBs", f->bw_lo_bytes_s / 1e9) &&
              rl_json_add_num(o, "bw_high_GBs", f->bw_hi_bytes_s / 1e9) &&
              rl_json_add_u64(o, "n_points", f->n_points) &&
              rl_json_add_num_or_null(o, "r2", f->r2, f->has_r2) &&
              rl_json_add_str(o, "bytes_convention",
                              f->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident") &&
              rl_json_attach(o, "threads", cJSON_CreateIntArray(f->threads, (int)f->n_threads)) &&
              rl_json_add_str_or_null(o, "verdict", f->verdict[0] ? f->verdict : NULL) &&
              rl_json_add_str(o, "interval", RL_PRED_INTERVAL);
    return rl_json_kept(o, ok);
}

static cJSON *point_json(const rl_pred_point *pt)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_u64(o, "depth", pt->depth);
    if (ok && !pt->available)
        ok = cJSON_AddFalseToObject(o, "available") &&
             rl_json_add_str(o, "reason", "the model's KV-cache size per token is unknown");
    else if (ok)
        ok = rl_json_add_u64(o, "bytes_per_token", pt->bytes_per_token) &&
             rl_json_add_num(o, "tok_s", pt->tok_s) &&
             rl_json_add_num(o, "tok_s_low", pt->tok_s_low) &&
             rl_json_add_num(o, "tok_s_high", pt->tok_s_high);
    if (ok && pt->available && pt->depth > 0) {
        cJSON *d = pt->has_depth_fit ? cJSON_CreateObject()
                                     : rl_json_unavailable("no depth fit in the bundle (measure "
                                                           "two or more depths: run --depth)");
        bool dok = d && (!pt->has_depth_fit || (rl_json_add_str(d, "kind", "derived") &&
                                                rl_json_add_num(d, "tok_s", pt->depth_fit_tok_s)));
        if (!dok)
            cJSON_Delete(d);
        ok = dok && rl_json_attach(o, "depth_fit", d);
    }
    return rl_json_kept(o, ok);
}

static cJSON *rate_json(const rl_pred_rate *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "source", r->source) &&
              rl_json_add_u64(o, "n_models", r->n_models) &&
              rl_json_add_num(o, "bw_GBs", r->bw / 1e9) &&
              rl_json_add_num(o, "bw_low_GBs", r->lo / 1e9) &&
              rl_json_add_num(o, "bw_high_GBs", r->hi / 1e9);
    return rl_json_kept(o, ok);
}

cJSON *rl_prediction_to_json(const rl_prediction *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = rl_json_add_str(o, "kind", "derived") && rl_json_add_str(o, "model", p->model) &&
              rl_json_add_str(o, "name", p->name) &&
              rl_json_add_str_or_null(o, "label", p->label[0] ? p->label : NULL) &&
              rl_json_add_str(o, "bytes_convention",
                              p->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident") &&
              rl_json_add_str(o, "bytes_source", p->bytes_key) &&
              rl_json_add_u64(o, "weights_bytes", p->weights_bytes) &&
              rl_json_add_u64_or_null(o, "kv_bytes_per_token", p->kv_bytes_per_token,
                                      p->kv_bytes_per_token > 0) &&
              cJSON_AddBoolToObject(o, "is_moe", p->is_moe) &&
              rl_json_attach(o, "rate", rate_json(&p->rate)) &&
              rl_json_attach(o, "two_roof",
                             rl_pred_roofs_json(&p->roof, p->roof_threads, p->roof_verdict));
    cJSON *pts = ok ? cJSON_AddArrayToObject(o, "points") : NULL;
    cJSON *cav = pts ? cJSON_AddArrayToObject(o, "caveats") : NULL;
    ok = ok && pts && cav;
    for (size_t i = 0; ok && i < p->n_points; i++) {
        cJSON *x = point_json(&p->points[i]);
        ok = x && cJSON_AddItemToArray(pts, x);
        if (!ok)
            cJSON_Delete(x);
    }
    for (size_t i = 0; ok && i < p->n_caveats; i++) {
        cJSON *c = cJSON_CreateObject();
        ok = c && rl_json_add_str(c, "code", p->caveats[i].code) &&
             rl_json_add_str(c, "text", p->caveats[i].text) && cJSON_AddItemToArray(cav, c);
        if (!ok)
            cJSON_Delete(c);
    }
    return rl_json_kept(o, ok);
}
