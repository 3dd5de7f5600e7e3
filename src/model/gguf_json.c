/* SPDX-License-Identifier: MIT */
/* gguf_json.c: the JSON object of one model for `inspect --json`. See gguf_json.h. Builds a
 * cJSON tree the caller owns; on any failed allocation the partial tree is deleted and NULL
 * returned. */
#include "model/gguf_json.h"

#include <stdint.h>

#include "model/ggml_types.h"
#include "model/gguf_text.h"
#include "base/rl_json.h"

#define MIB 1048576.0

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* v rounded to a multiple of unit (half away from zero), for stable short JSON numbers. */
static double round_to(double v, double unit)
{
    double r = v / unit;
    r = r < 0 ? (double)(int64_t)(r - 0.5) : (double)(int64_t)(r + 0.5);
    return r * unit;
}

static bool add_type(cJSON *o, const char *key, uint32_t type)
{
    char tn[RL_GGUF_TYPE_NAME_MAX];
    return rl_json_add_str(o, key, rl_gguf_type_name(type, tn, sizeof tn));
}

static bool add_composition(cJSON *o, const rl_gguf_model *m)
{
    if (!m->has_composition)
        return cJSON_AddNullToObject(o, "composition") != NULL;
    cJSON *c = cJSON_AddObjectToObject(o, "composition");
    if (!c)
        return false;
    bool ok = true;
    bool expected = m->expected_type >= 0;
    ok &= rl_json_add_num_or_null(c, "on_label_pct", round_to(m->on_label_pct, 0.01), expected);
    if (expected)
        ok &= add_type(c, "expected_type", (uint32_t)m->expected_type);
    else
        ok &= cJSON_AddNullToObject(c, "expected_type") != NULL;
    ok &= rl_json_add_num(c, "bits_per_weight", round_to(m->bits_per_weight, 0.0001));
    ok &= rl_json_add_u64(c, "repeating_bytes", m->layer_bytes);
    uint64_t nt = 0;
    for (uint32_t i = 0; i < m->n_layer_types; i++)
        nt += m->layer_types[i].n_tensors;
    ok &= rl_json_add_u64(c, "repeating_tensors", nt);
    cJSON *ty = cJSON_AddObjectToObject(c, "types");
    if (!ty)
        return false;
    for (uint32_t i = 0; i < m->n_layer_types; i++) {
        char tn[RL_GGUF_TYPE_NAME_MAX];
        ok &= rl_json_add_num(ty, rl_gguf_type_name(m->layer_types[i].type, tn, sizeof tn),
                              round_to(pct(m->layer_types[i].bytes, m->layer_bytes), 0.1));
    }
    return ok;
}

/* A new object appended to the array arr, or NULL (nothing appended) when out of memory. */
static cJSON *append_object(cJSON *arr)
{
    cJSON *e = cJSON_CreateObject();
    if (e && !cJSON_AddItemToArray(arr, e)) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static bool add_types(cJSON *o, const rl_gguf_model *m)
{
    cJSON *types = cJSON_AddArrayToObject(o, "types");
    if (!types)
        return false;
    for (uint32_t i = 0; i < m->n_types; i++) {
        const rl_gguf_type_bytes *t = &m->types[i];
        cJSON *e = append_object(types);
        if (!e)
            return false;
        bool ok = add_type(e, "type", t->type);
        ok &= rl_json_add_u64(e, "n_tensors", t->n_tensors);
        ok &= rl_json_add_u64_or_null(e, "bytes", t->bytes, rl_gguf_type_bytes_known(m, t));
        ok &= rl_json_add_u64(e, "elements", t->elements);
        ok &= rl_json_add_u64(e, "n_matrices", t->n_matrices);
        ok &= rl_json_add_u64(e, "n_rows", t->n_rows);
        if (!ok)
            return false;
    }
    return true;
}

static bool add_tensors(cJSON *o, const rl_gguf_model *m)
{
    cJSON *ts = cJSON_AddArrayToObject(o, "tensors");
    if (!ts)
        return false;
    for (uint32_t s = 0; m->files && s < m->n_shards; s++) {
        const rl_gguf_file *f = m->files[s];
        for (uint64_t i = 0; i < f->n_tensors; i++) {
            const rl_gguf_tensor *t = &f->tensors[i];
            cJSON *e = append_object(ts);
            if (!e)
                return false;
            bool ok = rl_json_add_str(e, "name", t->name);
            ok &= add_type(e, "type", t->type);
            cJSON *dims = cJSON_AddArrayToObject(e, "dims");
            if (!dims)
                return false;
            for (uint32_t d = 0; d < t->n_dims; d++) {
                cJSON *n = rl_json_u64(t->ne[d]);
                if (!n || !cJSON_AddItemToArray(dims, n)) {
                    cJSON_Delete(n);
                    return false;
                }
            }
            ok &= rl_json_add_u64(e, "elements", t->n_elements);
            ok &= rl_json_add_u64_or_null(e, "bytes", t->n_bytes, t->sized);
            ok &= rl_json_add_u64(e, "offset", t->offset);
            if (m->n_shards > 1)
                ok &= rl_json_add_u64(e, "shard", s + 1);
            if (!ok)
                return false;
        }
    }
    return true;
}

cJSON *rl_gguf_model_to_json(const rl_gguf_model *m, bool tensors)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool known = m->sizes_known, ok = true;
    ok &= rl_json_add_str(o, "path", m->path ? m->path : "");
    ok &= rl_json_add_str_or_null(o, "name", m->name);
    ok &= rl_json_add_str_or_null(o, "label", m->label);
    ok &= rl_json_add_str_or_null(o, "architecture", m->architecture);
    if (m->file_type >= 0)
        ok &= rl_json_add_i64(o, "file_type", m->file_type);
    else
        ok &= cJSON_AddNullToObject(o, "file_type") != NULL;
    ok &= rl_json_add_u64(o, "gguf_version", m->version);
    ok &= rl_json_add_u64(o, "n_shards", m->n_shards);
    ok &= rl_json_add_u64(o, "n_tensors", m->n_tensors);
    ok &= rl_json_add_u64(o, "n_params", m->n_params);
    ok &= rl_json_add_u64(o, "file_bytes", m->file_bytes);
    ok &= rl_json_add_u64(o, "resident_bytes", m->resident_bytes);
    ok &= cJSON_AddBoolToObject(o, "sizes_known", known) != NULL;
    ok &= rl_json_add_u64_or_null(o, "tensor_bytes", m->tensor_bytes, known);
    ok &= rl_json_add_u64_or_null(o, "streamed_bytes", m->streamed_bytes, known);
    ok &= rl_json_add_num_or_null(o, "streamed_MiB",
                                  round_to((double)m->streamed_bytes / MIB, 0.001), known);
    ok &= rl_json_add_u64_or_null(o, "embedding_bytes", m->embedding_bytes, known);
    ok &= rl_json_add_u64_or_null(o, "head_bytes", m->head_bytes, known);
    if (m->head_type != UINT32_MAX)
        ok &= add_type(o, "head_type", m->head_type);
    else
        ok &= cJSON_AddNullToObject(o, "head_type") != NULL;
    if (m->embedding_type != UINT32_MAX)
        ok &= add_type(o, "embedding_type", m->embedding_type);
    else
        ok &= cJSON_AddNullToObject(o, "embedding_type") != NULL;
    ok &= rl_json_add_num_or_null(o, "head_share_pct",
                                  round_to(pct(m->head_bytes, m->streamed_bytes), 0.01),
                                  known && m->streamed_bytes);
    ok &= cJSON_AddBoolToObject(o, "tied_embeddings", m->tied_embeddings) != NULL;
    ok &= rl_json_add_u64(o, "kv_bytes_per_token", m->kv_bytes_per_token);
    ok &= cJSON_AddBoolToObject(o, "is_moe", m->is_moe) != NULL;
    ok &= rl_json_add_u64(o, "expert_count", m->expert_count);
    ok &= rl_json_add_u64(o, "expert_used_count", m->expert_used_count);
    ok &= rl_json_add_u64_or_null(o, "expert_bytes", m->expert_bytes, known);
    ok &= rl_json_add_u64(o, "n_layer", m->n_layer);
    ok &= rl_json_add_u64(o, "n_embd", m->n_embd);
    ok &= rl_json_add_u64(o, "n_ff", m->n_ff);
    ok &= rl_json_add_u64(o, "n_head", m->n_head);
    ok &= rl_json_add_u64(o, "n_head_kv", m->n_head_kv);
    ok &= cJSON_AddBoolToObject(o, "head_count_kv_per_layer", m->head_count_kv_per_layer) != NULL;
    ok &= rl_json_add_u64(o, "head_dim", m->head_dim);
    ok &= rl_json_add_u64(o, "key_length", m->key_length);
    ok &= rl_json_add_u64(o, "value_length", m->value_length);
    ok &= rl_json_add_u64(o, "context_length", m->context_length);
    ok &= rl_json_add_u64(o, "n_vocab", m->n_vocab);
    ok &= add_composition(o, m);
    ok &= add_types(o, m);
    if (tensors)
        ok &= add_tensors(o, m);
    return rl_json_kept(o, ok);
}
