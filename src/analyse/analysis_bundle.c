/* SPDX-License-Identifier: MIT */
/* analysis_bundle.c: the analysis of a bundle's own tree: its models, runs and ceiling read
 * into the analysis input, the result stored back as "analysis" and "warnings" (see
 * analysis_bundle.h). The only writer of a bundle's analysis section. */
#include "analyse/analysis_bundle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_util.h"
#include "bundle/bundle.h"

/* ---- analysis input from the tree ------------------------------------------------------ */

typedef struct {
    rl_an_model *models;
    rl_an_run **runs;
    double **samples; /* every sample array allocated, to free */
    size_t n_models, n_samples, cap_samples;
    rl_an_machine *machine; /* the "machine" objects beside the measurements */
    size_t n_machine, cap_machine;
} an_build;

/* A measurement's "machine" object of kind "measured" (see docs/BUNDLE.md), read into the
 * list; anything else (absent, unavailable) is skipped. false when out of memory. */
static bool machine_of(an_build *ab, const cJSON *parent, rl_an_meas_kind kind)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(parent, "machine");
    const char *k = rl_json_get_str(m, "kind");
    if (!k || strcmp(k, "measured") != 0)
        return true;
    if (ab->n_machine == ab->cap_machine) {
        size_t cap = ab->cap_machine ? ab->cap_machine * 2 : 16;
        rl_an_machine *v = realloc(ab->machine, cap * sizeof *v);
        if (!v)
            return false;
        ab->machine = v;
        ab->cap_machine = cap;
    }
    rl_an_machine *e = &ab->machine[ab->n_machine++];
    e->kind = kind;
    e->disturbed = false;
    rl_json_get_bool(m, "disturbed", &e->disturbed);
    e->other_cpu_pct = rl_json_num_or(m, "other_cpu_pct", NAN);
    e->steal_pct = rl_json_num_or(m, "steal_pct", NAN);
    e->why = rl_json_get_str(m, "why");
    return true;
}

/* Every measurement's machine state, and the measurer's limits from
 * environment.machine_state.limits. false when out of memory. */
static bool machines_of(an_build *ab, const cJSON *b, rl_an_input *in)
{
    const cJSON *it, *run;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(b, "models"))
    {
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(it, "runs"))
        {
            if (!machine_of(ab, run, RL_AN_MEAS_LLAMA_BENCH))
                return false;
        }
    }
    cJSON_ArrayForEach(it, rl_json_get(rl_json_get(b, "membw"), "runs"))
    {
        if (!machine_of(ab, it, RL_AN_MEAS_MEMBW))
            return false;
    }
    cJSON_ArrayForEach(it, rl_json_get(rl_json_get(b, "client"), "points"))
    {
        if (!machine_of(ab, it, RL_AN_MEAS_CLIENT))
            return false;
    }
    const cJSON *lim =
        rl_json_get(rl_json_get(rl_json_get(b, "environment"), "machine_state"), "limits");
    in->limit_other_cpu_pct = rl_json_num_or(lim, "other_cpu_pct", 0);
    in->limit_steal_pct = rl_json_num_or(lim, "steal_pct", 0);
    in->machine = ab->machine;
    in->n_machine = ab->n_machine;
    return true;
}

static const double *samples_of(an_build *ab, const cJSON *rate, size_t *n, double *mean)
{
    *n = 0;
    *mean = 0;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rate, "samples");
    if (rl_json_array_size(arr) == 0) {
        /* an imported rate: the source's mean without its samples */
        double m;
        if (rl_json_get_num(rate, "mean", &m) && m > 0)
            *mean = m;
        return NULL;
    }
    if (ab->n_samples == ab->cap_samples) {
        size_t cap = ab->cap_samples ? ab->cap_samples * 2 : 16;
        double **v = realloc(ab->samples, cap * sizeof *v);
        if (!v)
            return NULL;
        ab->samples = v;
        ab->cap_samples = cap;
    }
    double *x = NULL;
    size_t len = 0, k = 0;
    if (rl_json_values(arr, &x, &len) != RL_OK)
        return NULL;
    ab->samples[ab->n_samples++] = x;
    double sum = 0;
    for (size_t i = 0; i < len; i++)
        if (x[i] > 0) { /* NAN (not a number) fails */
            x[k++] = x[i];
            sum += x[i];
        }
    *n = k;
    *mean = k ? sum / (double)k : 0;
    return x;
}

static void an_build_free(an_build *ab)
{
    for (size_t i = 0; i < ab->n_models; i++)
        free(ab->runs ? ab->runs[i] : NULL);
    for (size_t i = 0; i < ab->n_samples; i++)
        free(ab->samples[i]);
    free(ab->samples);
    free(ab->machine);
    free(ab->runs);
    free(ab->models);
}

/* The bytes per token of a model under the convention, recorded in the model as
 * "bytes_per_token": {"value", "convention", "source", "kind"}. 0 when unknown. A value an
 * import took from its source ("imported": true) is kept as it is when it is of the
 * convention asked for: there are no records or GGUF header to derive it from. */
static double model_bytes(cJSON *m, rl_an_bytes_convention conv)
{
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(m, "gguf");
    const cJSON *prev = cJSON_GetObjectItemCaseSensitive(m, "bytes_per_token");
    const char *pconv = rl_json_get_str(prev, "convention");
    uint64_t v = 0;
    const char *source = NULL;
    bool known = false;
    if (rl_json_get_bool(prev, "imported", &known) && known && pconv &&
        strcmp(pconv, rl_an_bytes_name(conv)) == 0 && rl_json_get_u64(prev, "value", &v) && v > 0)
        return (double)v;
    v = 0;
    known = false;
    if (conv == RL_AN_BYTES_STREAMED && rl_json_get_bool(g, "sizes_known", &known) && known &&
        rl_json_get_u64(g, "streamed_bytes", &v) && v > 0) {
        source = "GGUF tensor table: the tensors decode reads per token";
    } else {
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(m, "runs"))
        {
            const cJSON *rec;
            cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(run, "records"))
            {
                if (!v && rl_json_get_u64(rec, "model_size", &v) && v > 0)
                    source = "llama-bench model_size";
            }
        }
        if (!v && rl_json_get_u64(g, "file_bytes", &v) && v > 0)
            source = "file size on disk, summed over shards";
        conv = RL_AN_BYTES_RESIDENT;
    }
    cJSON *o = cJSON_CreateObject();
    if (o) {
        if (v) {
            rl_json_add_u64(o, "value", v);
            cJSON_AddStringToObject(o, "unit", "bytes");
            cJSON_AddStringToObject(o, "convention", rl_an_bytes_name(conv));
            cJSON_AddStringToObject(o, "source", source);
            cJSON_AddStringToObject(o, "kind", "measured");
        } else {
            cJSON_AddFalseToObject(o, "available");
            cJSON_AddStringToObject(o, "reason", "neither llama-bench nor the file gave a size");
        }
        if (cJSON_GetObjectItemCaseSensitive(m, "bytes_per_token"))
            cJSON_ReplaceItemInObjectCaseSensitive(m, "bytes_per_token", o);
        else
            cJSON_AddItemToObject(m, "bytes_per_token", o);
    }
    return (double)v;
}

/* A GPU backend named by the model's llama-bench records, or for an imported model without
 * records by its source object ("imported"), which keeps llama-bench's gpu_info. */
static bool gpu_backend_of(const cJSON *m)
{
    const char *imported =
        rl_json_get_str(cJSON_GetObjectItemCaseSensitive(m, "imported"), "gpu_info");
    if (imported && *imported)
        return true;
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(m, "runs"))
    {
        const cJSON *rec;
        cJSON_ArrayForEach(rec, cJSON_GetObjectItemCaseSensitive(run, "records"))
        {
            const char *gi = rl_json_get_str(rec, "gpu_info");
            if (gi && *gi)
                return true;
        }
    }
    return false;
}

static rl_status store_analysis(cJSON *b, cJSON *aj, rl_error *err);

rl_status rl_bundle_analyze(cJSON *b, rl_an_bytes_convention conv, rl_error *err)
{
    cJSON *models = cJSON_GetObjectItemCaseSensitive(b, "models");
    size_t nm = (size_t)cJSON_GetArraySize(models);
    an_build ab = {0};
    ab.models = rl_calloc(nm ? nm : 1, sizeof *ab.models);
    ab.runs = rl_calloc(nm ? nm : 1, sizeof *ab.runs);
    if (!ab.models || !ab.runs) {
        an_build_free(&ab);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    ab.n_models = nm;

    rl_an_input in = {0};
    const cJSON *mb = cJSON_GetObjectItemCaseSensitive(b, "membw");
    const char *kind = rl_json_get_str(mb, "kind");
    double peak = 0;
    if (kind && rl_json_get_num(mb, "peak_read_GBs", &peak) && peak > 0) {
        in.ceiling.GBs = peak;
        in.ceiling.source =
            strcmp(kind, "controlled") == 0 ? RL_AN_CEILING_CONTROLLED : RL_AN_CEILING_MEASURED;
        rl_json_get_bool(mb, "unstable", &in.ceiling.unstable);
    }
    in.bytes = conv;
    int ngl = 0;
    int64_t v64;
    if (rl_json_get_i64(cJSON_GetObjectItemCaseSensitive(b, "settings"), "n_gpu_layers", &v64))
        ngl = (int)v64;

    size_t k = 0;
    cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        rl_an_model *am = &ab.models[k];
        am->id = rl_json_get_str(m, "id");
        am->name = rl_json_get_str(m, "name");
        am->bytes_per_token = model_bytes(m, conv);
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(m, "gguf");
        rl_json_get_bool(g, "is_moe", &am->is_moe);
        uint64_t kv = 0;
        if (rl_json_get_u64(g, "kv_bytes_per_token", &kv))
            am->kv_bytes_per_token = (double)kv;
        am->n_gpu_layers = ngl;
        am->gpu_backend = gpu_backend_of(m);
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m, "runs");
        size_t nr = (size_t)cJSON_GetArraySize(runs);
        rl_an_run *ar = rl_calloc(nr ? nr : 1, sizeof *ar);
        if (!ar) {
            an_build_free(&ab);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        ab.runs[k] = ar;
        size_t j = 0;
        const cJSON *run;
        cJSON_ArrayForEach(run, runs)
        {
            const char *state = rl_json_get_str(run, "status");
            int64_t t, d;
            if (!state || strcmp(state, "ok") != 0 || !rl_json_get_i64(run, "threads", &t) ||
                !rl_json_get_i64(run, "depth", &d) || t < 1 || d < 0)
                continue;
            ar[j].threads = (unsigned)t;
            ar[j].depth = (unsigned)d;
            ar[j].decode.samples = samples_of(&ab, cJSON_GetObjectItemCaseSensitive(run, "decode"),
                                              &ar[j].decode.n, &ar[j].decode.mean);
            ar[j].prefill.samples =
                samples_of(&ab, cJSON_GetObjectItemCaseSensitive(run, "prefill"), &ar[j].prefill.n,
                           &ar[j].prefill.mean);
            j++;
        }
        am->runs = ar;
        am->n_runs = j;
        if (!am->id) {
            an_build_free(&ab);
            return rl_fail(err, RL_EINPUT, "bundle: model %zu has no id", k);
        }
        k++;
    }
    in.models = ab.models;
    in.n_models = nm;
    if (!machines_of(&ab, b, &in)) {
        an_build_free(&ab);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }

    rl_an_result res;
    rl_status st = rl_an_analyze(&in, &res, err);
    cJSON *aj = NULL;
    if (st == RL_OK)
        st = rl_an_to_json(&res, &aj, err);
    rl_an_free(&res);
    an_build_free(&ab);
    if (st != RL_OK)
        return st;
    /* the analysis warnings are the bundle's warnings, with whatever the run added */
    return store_analysis(b, aj, err);
}

/* Store aj as b's "analysis" and its warnings, with the run's own (run_warnings), as b's
 * "warnings" (aj owned by b from here). */
static rl_status store_analysis(cJSON *b, cJSON *aj, rl_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(b, "analysis"))
        cJSON_ReplaceItemInObjectCaseSensitive(b, "analysis", aj);
    else
        cJSON_AddItemToObject(b, "analysis", aj);
    cJSON *w = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(aj, "warnings"), 1);
    cJSON *extra = cJSON_GetObjectItemCaseSensitive(b, "run_warnings");
    if (w && cJSON_IsArray(extra)) {
        const cJSON *it;
        cJSON_ArrayForEach(it, extra) cJSON_AddItemToArray(w, cJSON_Duplicate(it, 1));
    }
    if (!w)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    if (cJSON_GetObjectItemCaseSensitive(b, "warnings"))
        cJSON_ReplaceItemInObjectCaseSensitive(b, "warnings", w);
    else
        cJSON_AddItemToObject(b, "warnings", w);
    return RL_OK;
}

rl_status rl_bundle_analyze_client(cJSON *b, rl_error *err)
{
    an_build ab = {0};
    rl_an_input in = {0};
    if (!machines_of(&ab, b, &in)) {
        an_build_free(&ab);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    cJSON *aj = NULL;
    rl_status st = rl_an_client_to_json(&in, &aj, err);
    an_build_free(&ab);
    return st == RL_OK ? store_analysis(b, aj, err) : st;
}

rl_status rl_bundle_analyze_import(cJSON *b, const char *file, rl_error *err)
{
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(b, "client")) &&
        !cJSON_GetObjectItemCaseSensitive(b, "models")) { /* an fm-bench report */
        rl_status cs = rl_bundle_analyze_client(b, err);
        if (cs == RL_OK)
            rl_bundle_set_status(b, "complete", NULL);
        return cs;
    }
    const char *conv =
        rl_json_get_str(cJSON_GetObjectItemCaseSensitive(b, "settings"), "bytes_convention");
    rl_status st = rl_bundle_analyze(
        b, conv && strcmp(conv, "streamed") == 0 ? RL_AN_BYTES_STREAMED : RL_AN_BYTES_RESIDENT,
        err);
    if (st == RL_EINPUT)
        rl_prefix(err, "%s", file);
    if (st != RL_OK)
        return st;
    int64_t ok_models = 0;
    rl_json_get_i64(cJSON_GetObjectItemCaseSensitive(b, "analysis"), "n_models_ok", &ok_models);
    rl_bundle_set_status(b, "complete", ok_models ? NULL : "no model has a decode rate");
    return RL_OK;
}
