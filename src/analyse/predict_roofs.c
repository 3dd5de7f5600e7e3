/* SPDX-License-Identifier: MIT */
/* predict_roofs.c: predict's second model, both roofs (analyse/roofs.h): the bundle's
 * calibration set at the fitted models' thread count, a model's bytes by type through it, and
 * its JSON. The one-roof prediction (predict.c) stays beside it. */
#include "analyse/predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "model/gguf_text.h"

static const cJSON *set_at(const cJSON *sets, int threads)
{
    const cJSON *s;
    cJSON_ArrayForEach(s, sets)
    {
        if ((int)rl_json_num_or(s, "threads", 0) == threads)
            return s;
    }
    return NULL;
}

void rl_pred_roofs_from_bundle(const cJSON *b, rl_pred_fit *f)
{
    f->has_roofs = false;
    f->n_roof_types = 0;
    f->ceiling_GBs = rl_json_num_or(rl_json_get(rl_json_get(b, "analysis"), "ceiling"), "GBs", 0);
    const cJSON *sets = rl_json_get(rl_json_get(b, "calibration"), "sets");
    if (cJSON_GetArraySize(sets) == 0) {
        rl_snprintf(f->roof_why, sizeof f->roof_why,
                    "the bundle holds no calibration (llama-roofline diagnose --calibrate)");
        return;
    }
    const cJSON *set = NULL;
    for (size_t i = 0; !set && i < f->n_threads; i++)
        set = set_at(sets, f->threads[i]);
    if (!set && cJSON_GetArraySize(sets) == 1)
        set = cJSON_GetArrayItem(sets, 0);
    if (!set) {
        rl_snprintf(f->roof_why, sizeof f->roof_why,
                    "the calibration has no set at the fitted models' thread count");
        return;
    }
    f->roof_threads = (int)rl_json_num_or(set, "threads", 0);
    const cJSON *t;
    cJSON_ArrayForEach(t, rl_json_get(set, "types"))
    {
        if (f->n_roof_types < RL_ROOF_MAX_TYPES &&
            rl_roof_type_from_json(t, &f->roof_types[f->n_roof_types]))
            f->n_roof_types++;
    }
    f->has_roofs = f->n_roof_types > 0;
    if (!f->has_roofs)
        rl_snprintf(f->roof_why, sizeof f->roof_why,
                    "no type of the calibration at %d threads has a rate", f->roof_threads);
}

/* The shared tail: parts (bytes by type, summing to total) scaled to the streamed bytes (MoE:
 * only the used experts are read) through rl_roof_predict. */
static void roofs_of_parts(const rl_pred_fit *f, rl_roof_part *parts, size_t n, double total,
                           bool known, double streamed, double n_layer, rl_roof_result *r)
{
    if (!known || n == 0 || !(total > 0) || !(streamed > 0)) {
        rl_snprintf(r->why, sizeof r->why, "the model's bytes per type are unknown");
        return;
    }
    for (size_t i = 0; i < n; i++)
        parts[i].bytes *= streamed / total;
    rl_roof_predict(f->roof_types, f->n_roof_types, parts, n, n_layer, r);
}

/* false (r->why filled) when the fit has no calibration */
static bool roofs_ready(const rl_pred_fit *f, rl_roof_result *r)
{
    memset(r, 0, sizeof *r);
    if (!f->has_roofs)
        rl_snprintf(r->why, sizeof r->why, "%s", f->roof_why);
    return f->has_roofs;
}

void rl_pred_roofs_at(const cJSON *b, rl_pred_fit *f, int threads)
{
    if (!set_at(rl_json_get(rl_json_get(b, "calibration"), "sets"), threads))
        return;
    int keep[RL_PRED_MAX_THREADS];
    size_t n = f->n_threads;
    memcpy(keep, f->threads, sizeof keep);
    f->threads[0] = threads;
    f->n_threads = 1;
    rl_pred_roofs_from_bundle(b, f);
    memcpy(f->threads, keep, sizeof keep);
    f->n_threads = n;
}

void rl_pred_roofs_for(const rl_pred_fit *f, const rl_gguf_model *m, rl_roof_result *r)
{
    if (!roofs_ready(f, r))
        return;
    rl_roof_part parts[RL_ROOF_MAX_TYPES];
    size_t n = 0;
    double total = 0;
    for (uint32_t i = 0; i < m->n_types && n < RL_ROOF_MAX_TYPES; i++) {
        double b = (double)m->types[i].bytes;
        if (!m->tied_embeddings && m->types[i].type == m->embedding_type)
            b -= (double)m->embedding_bytes; /* decode reads one row of it */
        if (!(b > 0))
            continue;
        char buf[RL_GGUF_TYPE_NAME_MAX];
        rl_snprintf(parts[n].type, sizeof parts[n].type, "%s",
                    rl_gguf_type_name(m->types[i].type, buf, sizeof buf));
        parts[n].matrices = (double)m->types[i].n_matrices;
        parts[n].rows = (double)m->types[i].n_rows;
        parts[n++].bytes = b;
        total += b;
    }
    roofs_of_parts(f, parts, n, total, m->sizes_known, (double)m->streamed_bytes,
                   (double)m->n_layer, r);
}

void rl_pred_roofs_for_json(const rl_pred_fit *f, const cJSON *gguf, rl_roof_result *r)
{
    if (!roofs_ready(f, r))
        return;
    bool tied = true, known = false;
    rl_json_get_bool(gguf, "tied_embeddings", &tied);
    rl_json_get_bool(gguf, "sizes_known", &known);
    /* a bundle written before embedding_type: the embedding's bytes come off every type in
     * proportion (the scaling to streamed_bytes below) */
    const char *embd = rl_json_get_str(gguf, "embedding_type");
    double embd_bytes = rl_json_num_or(gguf, "embedding_bytes", 0);
    rl_roof_part parts[RL_ROOF_MAX_TYPES];
    size_t n = 0;
    double total = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, rl_json_get(gguf, "types"))
    {
        const char *name = rl_json_get_str(t, "type");
        double b = 0;
        if (!name || !rl_json_get_num(t, "bytes", &b) || n == RL_ROOF_MAX_TYPES) {
            known = false;
            break;
        }
        if (!tied && embd && strcmp(embd, name) == 0)
            b -= embd_bytes;
        if (!(b > 0))
            continue;
        rl_snprintf(parts[n].type, sizeof parts[n].type, "%s", name);
        parts[n].matrices = rl_json_num_or(t, "n_matrices", -1); /* older bundles: unknown */
        parts[n].rows = rl_json_num_or(t, "n_rows", -1);
        parts[n++].bytes = b;
        total += b;
    }
    roofs_of_parts(f, parts, n, total, known, rl_json_num_or(gguf, "streamed_bytes", 0),
                   rl_json_num_or(gguf, "n_layer", 0), r);
}

static cJSON *share_json(const rl_roof_share *s)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "type", s->type) && rl_json_add_num(o, "bytes", s->bytes);
    ok = ok && rl_json_add_num(o, "us", s->us) &&
         rl_json_add_num(o, "GBs", s->us > 0 ? 1e-3 * s->bytes / s->us : 0);
    ok = ok && rl_json_add_bool(o, "calibrated", s->calibrated);
    if (s->matrices >= 0)
        ok = ok && rl_json_add_num(o, "matrices", s->matrices);
    if (s->rows >= 0)
        ok = ok && rl_json_add_num(o, "rows", s->rows);
    return rl_json_kept(o, ok);
}

cJSON *rl_pred_roofs_json(const rl_roof_result *r, int threads, const char *verdict)
{
    if (!r->ok)
        return rl_json_unavailable(r->why[0] ? r->why : "no calibration");
    cJSON *o = cJSON_CreateObject(), *types = NULL;
    bool ok = o && rl_json_add_bool(o, "available", true) && rl_json_add_str(o, "kind", "derived");
    ok = ok && rl_json_add_num(o, "threads", threads) && rl_json_add_num(o, "tok_s", r->tok_s);
    ok = ok && rl_json_add_num(o, "tau_us", r->tau_us) &&
         rl_json_add_num(o, "fixed_us", r->fixed_us);
    ok = ok && rl_json_add_num(o, "kernels_GBs", r->GBs) &&
         rl_json_add_str(o, "binding", r->shares[r->binding].type) &&
         rl_json_add_str(o, "verdict", verdict);
    ok = ok && (types = cJSON_AddArrayToObject(o, "types")) != NULL;
    for (size_t i = 0; ok && i < r->n_shares; i++)
        ok = rl_json_push(types, share_json(&r->shares[i]));
    return rl_json_kept(o, ok);
}
