/* SPDX-License-Identifier: MIT */
/* advise_bundle.c: the measured advice of an `advise --measure` bundle (rl_advise_bundle in
 * advise.h): the bundle's depth-0 runs become matrix rows of one core ("this machine") and go
 * through the same rules as the study's matrix, one table per thread count. The predicted
 * advice (`advise --measure --predict`) does the same with each model's two-roof prediction
 * (analyse/predict.h, rl_pred_roofs_for_json) at each thread count of the calibration. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/advise.h"
#include "analyse/predict.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define LOCAL_CORE "this-machine"
#define MIB 1048576.0

/* The depth-0 run of model at t threads with status ok and a decode mean, or NULL. */
static const cJSON *ok_run(const cJSON *model, int t, double *mean)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rl_json_get(model, "runs"))
    {
        int64_t rt, rd;
        const char *s = rl_json_get_str(r, "status");
        if (!rl_json_get_i64(r, "threads", &rt) || !rl_json_get_i64(r, "depth", &rd) || rd != 0 ||
            (t > 0 && rt != t) || !s || strcmp(s, "ok") != 0)
            continue;
        const cJSON *st = rl_json_get(rl_json_get(r, "decode"), "stats");
        if (rl_json_get_num(st, "mean", mean) && *mean > 0 && isfinite(*mean))
            return r;
    }
    return NULL;
}

static const cJSON *model_by_id(const cJSON *models, const char *id)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        const char *mid = rl_json_get_str(m, "id");
        if (mid && strcmp(mid, id) == 0)
            return m;
    }
    return NULL;
}

static void add_skip(cJSON *skipped, const char *id, const char *reason)
{
    cJSON *s = cJSON_CreateObject();
    if (!s)
        return;
    rl_json_add_str(s, "model_id", id);
    rl_json_add_str(s, "reason", reason);
    cJSON_AddItemToArray(skipped, s);
}

/* One local matrix row's inputs. */
typedef struct {
    const char *machine, *name, *fmt, *id;
    const cJSON *gguf;
    int threads;
    double tok_s, mib, file_bytes;
} row_src;

static void fill_row(rl_mx_row *x, const row_src *s, const char *basis)
{
    const cJSON *comp = rl_json_get(s->gguf, "composition");
    double on_label = NAN, bpw = NAN;
    rl_json_get_num(comp, "on_label_pct", &on_label);
    rl_json_get_num(comp, "bits_per_weight", &bpw);
    rl_snprintf(x->core, sizeof x->core, LOCAL_CORE);
    rl_snprintf(x->core_label, sizeof x->core_label, "%s", s->machine);
    rl_snprintf(x->model, sizeof x->model, "%s", s->name);
    rl_snprintf(x->format, sizeof x->format, "%s", s->fmt);
    rl_snprintf(x->normalization, sizeof x->normalization, "streamed_bytes");
    rl_snprintf(x->basis, sizeof x->basis, "%s", basis);
    rl_snprintf(x->source, sizeof x->source, "%s", s->id);
    x->params_b = 1; /* one table over every file, whatever its size */
    x->threads = s->threads;
    x->tok_s = s->tok_s;
    x->streamed_mib = s->mib;
    x->file_mib = s->file_bytes / MIB;
    x->streamed_gbs = s->tok_s * s->mib * MIB / 1e9;
    x->mj_per_token = x->perplexity = x->repack_pct = NAN;
    x->on_label_pct = on_label;
    x->bits_per_weight = bpw;
}

/* Where the rows' rates come from: the models' depth-0 runs ("measured"), or the two-roof
 * prediction of each model at each thread count of the calibration ("predicted"). */
typedef struct {
    const cJSON *bundle;
    const char *basis;
    bool predicted;
} rows_from;

/* The two-roof prediction of a model's gguf at t threads, t the threads of one of the bundle's
 * calibration sets (that set); false with r->why filled when there is none. */
static bool predicted_at(const cJSON *bundle, const cJSON *gguf, int t, rl_roof_result *r)
{
    static rl_pred_fit f; /* large; one caller at a time (no threads here) */
    memset(&f, 0, sizeof f);
    f.threads[0] = t;
    f.n_threads = 1;
    rl_pred_roofs_from_bundle(bundle, &f); /* t is a set's own: its set is found */
    rl_pred_roofs_for_json(&f, gguf, r);
    return r->ok;
}

/* A model's rate at t threads from src; false (why filled when predicted) when it has none. */
static bool rate_of(const rows_from *src, const cJSON *m, int t, double *tok_s, char *why,
                    size_t cap)
{
    if (!src->predicted)
        return ok_run(m, t, tok_s) != NULL;
    rl_roof_result r;
    if (!predicted_at(src->bundle, rl_json_get(m, "gguf"), t, &r)) {
        rl_snprintf(why, cap, "no two-roof prediction at %d threads: %s", t, r.why);
        return false;
    }
    *tok_s = r.tok_s;
    return true;
}

/* Fill the local matrix from the bundle's models. */
static rl_status local_rows(const rows_from *src, const char *machine, rl_matrix *mx,
                            cJSON *skipped, rl_error *err)
{
    const cJSON *models = rl_json_get(src->bundle, "models");
    const cJSON *sets = rl_json_get(rl_json_get(src->bundle, "calibration"), "sets");
    size_t cap = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        cap += (size_t)cJSON_GetArraySize(src->predicted ? sets : rl_json_get(m, "runs"));
    }
    if (cap > RL_MX_MAX_ROWS)
        return rl_fail(err, RL_EINPUT, "the bundle holds more than %d runs", RL_MX_MAX_ROWS);
    mx->rows = rl_calloc(cap ? cap : 1, sizeof *mx->rows);
    if (!mx->rows)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    int n_models = 0;
    cJSON_ArrayForEach(m, models)
    {
        const char *id = rl_json_get_str(m, "id");
        const char *name = rl_json_get_str(m, "name");
        const cJSON *g = rl_json_get(m, "gguf");
        double mib = 0, file_bytes = 0;
        if (!id || !name)
            continue;
        double mean;
        char why[300] = "";
        if (!src->predicted && !ok_run(m, 0, &mean)) {
            add_skip(skipped, id, "no depth-0 run produced a decode rate");
            continue;
        }
        if (!rl_json_get_num(g, "streamed_MiB", &mib) || !(mib > 0)) {
            add_skip(skipped, id,
                     "its streamed bytes per token are unknown (a tensor type this build does "
                     "not know)");
            continue;
        }
        rl_json_get_num(g, "file_bytes", &file_bytes);
        if (++n_models > RL_ADV_MAX_ROWS) {
            add_skip(skipped, id, "more files than one table holds");
            continue;
        }
        /* the format: the GGUF label, or the file's stem when there is none or it repeats */
        char fmt[sizeof mx->rows[0].format];
        const char *label = rl_json_get_str(g, "label");
        rl_snprintf(fmt, sizeof fmt, "%s", label && *label ? label : name);
        for (size_t i = 0; i < mx->n; i++)
            if (strcmp(mx->rows[i].format, fmt) == 0 && strcmp(mx->rows[i].source, id) != 0) {
                rl_snprintf(fmt, sizeof fmt, "%s", name);
                break;
            }
        size_t before = mx->n;
        const cJSON *r, *over = src->predicted ? sets : rl_json_get(m, "runs");
        cJSON_ArrayForEach(r, over)
        {
            int64_t t;
            if (!rl_json_get_i64(r, "threads", &t) || t < 1 || t > 4096 || mx->n >= cap)
                continue;
            if (src->predicted ? !rate_of(src, m, (int)t, &mean, why, sizeof why)
                               : ok_run(m, (int)t, &mean) != r)
                continue;
            fill_row(&mx->rows[mx->n++],
                     &(row_src){machine, name, fmt, id, g, (int)t, mean, mib, file_bytes},
                     src->basis);
        }
        if (src->predicted && mx->n == before)
            add_skip(skipped, id, why[0] ? why : "the bundle holds no calibration");
    }
    return RL_OK;
}

static cJSON *row_json(const rl_adv_entry *e, const rows_from *src)
{
    const rl_mx_row *r = e->row;
    const cJSON *m = model_by_id(rl_json_get(src->bundle, "models"), r->source);
    double mean;
    const cJSON *run = m && !src->predicted ? ok_run(m, r->threads, &mean) : NULL;
    cJSON *x = cJSON_CreateObject();
    if (!x)
        return NULL;
    rl_json_add_str(x, "model_id", r->source);
    rl_json_add_str(x, "name", m ? rl_json_get_str(m, "name") : r->model);
    rl_json_add_str(x, "format", r->format);
    const cJSON *dec = run ? rl_json_get(run, "decode") : NULL;
    if (dec)
        cJSON_AddItemToObject(x, "decode", cJSON_Duplicate(dec, 1));
    rl_roof_result two;
    if (src->predicted && m && predicted_at(src->bundle, rl_json_get(m, "gguf"), r->threads, &two))
        rl_json_attach(x, "two_roof", rl_pred_roofs_json(&two, r->threads, ""));
    rl_advice_entry_json(x, e);
    if (isnan(r->on_label_pct))
        rl_json_add_unavailable(x, "on_label_pct", "the label names no ggml type");
    else
        rl_json_add_num(x, "on_label_pct", r->on_label_pct);
    if (isnan(r->bits_per_weight))
        rl_json_add_unavailable(x, "bits_per_weight", "no quantized repeating layers");
    else
        rl_json_add_num(x, "bits_per_weight", r->bits_per_weight);
    return x;
}

static cJSON *table_json(const rl_advice *a, const rows_from *src)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    cJSON_AddNumberToObject(t, "threads", a->threads);
    cJSON *rows = cJSON_AddArrayToObject(t, "rows");
    cJSON *ranking = cJSON_AddArrayToObject(t, "ranking");
    cJSON *tied = cJSON_AddArrayToObject(t, "tied_with_fastest");
    for (int i = 0; rows && i < a->n; i++) {
        cJSON_AddItemToArray(rows, row_json(&a->e[i], src));
        cJSON_AddItemToArray(ranking, rl_json_str(a->e[i].row->format));
        if (a->e[i].tied)
            cJSON_AddItemToArray(tied, rl_json_str(a->e[i].row->format));
    }
    rl_json_add_str(t, "fastest", a->n ? a->e[0].row->format : "");
    const rl_adv_thread *pt = NULL;
    for (int i = 0; i < a->n_per_thread; i++)
        if (a->per_thread[i].threads == a->threads)
            pt = &a->per_thread[i];
    if (pt && pt->matched) {
        cJSON *g = cJSON_AddObjectToObject(t, "matched_bytes");
        cJSON *f = cJSON_AddArrayToObject(g, "formats");
        for (int i = 0; f && i < pt->n_group; i++)
            cJSON_AddItemToArray(f, rl_json_str(pt->group[i]));
        rl_json_add_num(g, "mean_streamed_MiB", pt->group_mean_mib);
        rl_json_add_num(g, "spread_pct", pt->spread_pct);
        rl_json_add_str(g, "fastest", pt->group_fastest);
        rl_json_add_str(g, "slowest", pt->group_slowest);
    } else {
        rl_json_add_unavailable(t, "matched_bytes",
                                "no two files stream within 3% of the same bytes: this is a "
                                "size comparison, not a format comparison");
    }
    if (a->off_envelope >= 0) {
        cJSON *oe = cJSON_AddObjectToObject(t, "off_envelope");
        rl_json_add_str(oe, "format", a->e[a->off_envelope].row->format);
        rl_json_add_num(oe, "deficit_pct", a->e[a->off_envelope].deficit_pct);
    }
    char warn[768];
    rl_advice_composition_warning(a, warn, sizeof warn);
    rl_json_add_str_or_null(t, "composition_warning", warn[0] ? warn : NULL);
    return t;
}

static rl_status advise_from(cJSON *bundle, const char *machine, const rows_from *src,
                             rl_error *err)
{
    rl_matrix mx = {0};
    cJSON *adv = cJSON_CreateObject();
    cJSON *skipped = cJSON_CreateArray();
    if (!adv || !skipped) {
        cJSON_Delete(adv);
        cJSON_Delete(skipped);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    rl_status st =
        local_rows(src, machine && *machine ? machine : "this machine", &mx, skipped, err);
    cJSON_AddStringToObject(adv, "kind", "derived");
    rl_json_add_str(adv, "basis", src->basis);
    rl_json_add_str(adv, "machine", machine && *machine ? machine : "unknown CPU");
    rl_json_add_str(adv, "evidence", rl_evidence_name(RL_EV_EXACT));
    rl_json_add_str(adv, "confidence",
                    src->predicted ? "predicted from this machine's calibration (two roofs); "
                                     "no file measured"
                                   : rl_evidence_text(RL_EV_EXACT));
    cJSON *rules = cJSON_AddObjectToObject(adv, "rules");
    if (rules) {
        cJSON_AddStringToObject(rules, "kind", "controlled");
        cJSON_AddNumberToObject(rules, "tie_pct", RL_ADV_TIE_PCT);
        cJSON_AddNumberToObject(rules, "matched_bytes_pct", 100.0 * (RL_ADV_MATCH_RATIO - 1.0));
        cJSON_AddNumberToObject(rules, "min_matched_formats", RL_ADV_MIN_GROUP_LOCAL);
        cJSON_AddNumberToObject(rules, "off_envelope_pct", RL_ADV_OFF_ENVELOPE_PCT);
        cJSON_AddNumberToObject(rules, "on_label_confounded_pct", RL_ADV_ON_LABEL_CONFOUNDED);
    }
    bool any = st == RL_OK && mx.n > 0;
    if (any) {
        rl_advice best;
        rl_error e;
        st = rl_advise_core(&mx, LOCAL_CORE, 1, 0, RL_ADV_MIN_GROUP_LOCAL, &best, err);
        cJSON *tables = cJSON_AddArrayToObject(adv, "tables");
        for (int i = 0; st == RL_OK && tables && i < best.n_avail; i++) {
            rl_advice a;
            if (rl_advise_core(&mx, LOCAL_CORE, 1, best.threads_avail[i], RL_ADV_MIN_GROUP_LOCAL,
                               &a, &e) == RL_OK)
                cJSON_AddItemToArray(tables, table_json(&a, src));
        }
        if (st == RL_OK) {
            cJSON_AddNumberToObject(adv, "best_threads", best.threads);
            cJSON *rk = cJSON_AddArrayToObject(adv, "ranking");
            for (int i = 0; rk && i < best.n; i++)
                cJSON_AddItemToArray(rk, rl_json_str(best.e[i].row->format));
            rl_json_add_str(adv, "fastest", best.e[0].row->format);
            cJSON_AddBoolToObject(adv, "ranking_stable_across_threads", best.ranking_stable);
        }
    } else if (st == RL_OK) {
        rl_json_add_unavailable(adv, "tables",
                                src->predicted ? "no file has a two-roof prediction"
                                               : "no file produced a decode rate");
    }
    cJSON_AddItemToObject(adv, "skipped", skipped);
    rl_matrix_free(&mx);
    if (cJSON_GetObjectItemCaseSensitive(bundle, "advice"))
        cJSON_ReplaceItemInObjectCaseSensitive(bundle, "advice", adv);
    else
        cJSON_AddItemToObject(bundle, "advice", adv);
    if (st == RL_OK && !any)
        st = rl_fail(err, RL_NOTHING,
                     src->predicted
                         ? "nothing predicted: no file's types are calibrated (see the skipped "
                           "reasons in the bundle's advice)"
                         : "nothing decoded: check that these files load with your llama-bench");
    return st;
}

rl_status rl_advise_bundle(cJSON *bundle, const char *machine, rl_error *err)
{
    return advise_from(bundle, machine, &(rows_from){bundle, "measured", false}, err);
}

rl_status rl_advise_bundle_predicted(cJSON *bundle, const char *machine, rl_error *err)
{
    return advise_from(bundle, machine, &(rows_from){bundle, "predicted", true}, err);
}
