/* SPDX-License-Identifier: MIT */
/* compare_match.c: rows and their matching across inputs (compare.h): a row per metric, subject
 * and setting, matched by group and key (model identity for models), and the row producers of
 * llama-bench, advice and client sections. */
#include "analyse/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

/* ---- rows ------------------------------------------------------------------------------ */

static rl_cmp_row *find_row(rl_cmp *c, const rl_cmp_row_spec *s)
{
    for (size_t i = c->n_rows; i-- > 0;)
        if (strcmp(c->rows[i].key, s->key) == 0 && strcmp(c->rows[i].group, s->group) == 0)
            return &c->rows[i];
    return NULL;
}

static rl_status new_row(rl_cmp *c, const rl_cmp_row_spec *s, rl_cmp_row **out, rl_error *err)
{
    if (c->n_rows == RL_CMP_MAX_ROWS)
        return rl_fail(err, RL_EINPUT, "more than %d rows to compare: compare fewer inputs",
                       RL_CMP_MAX_ROWS);
    if (c->n_rows == c->cap_rows) {
        rl_cmp_row *p = rl_grow(c->rows, &c->cap_rows, sizeof *p, 64);
        if (!p)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        c->rows = p;
    }
    rl_cmp_row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->group = rl_strdup(s->group);
    r->key = rl_strdup(s->key);
    r->subject = rl_strdup(s->subject ? s->subject : "");
    r->metric = rl_strdup(s->metric);
    r->unit = rl_strdup(s->unit ? s->unit : "");
    r->kind = s->kind ? rl_strdup(s->kind) : NULL;
    r->higher_is_better = s->higher_is_better;
    r->single = s->single;
    r->cells = rl_calloc(c->n_inputs, sizeof *r->cells);
    bool ok = r->group && r->key && r->subject && r->metric && r->unit && r->cells &&
              (r->kind || !s->kind);
    for (size_t k = 0; k < s->n_keys && k < RL_CMP_MAX_KEYS; k++) {
        r->key_names[k] = rl_strdup(s->keys[k].name);
        r->key_values[k] = rl_strdup(s->keys[k].value ? s->keys[k].value : "");
        r->n_keys = k + 1;
        ok = ok && r->key_names[k] && r->key_values[k];
    }
    if (!ok)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    *out = r;
    return RL_OK;
}

/* The measurement's "machine" object (docs/BUNDLE.md) says it was disturbed. */
static bool disturbed(const cJSON *measurement)
{
    bool d = false;
    return rl_json_get_bool(rl_json_get(measurement, "machine"), "disturbed", &d) && d;
}

rl_status rl_cmp_add_samples(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec,
                             const double *samples, size_t n, bool has_mean, double mean,
                             bool has_sd, double sd, rl_error *err)
{
    if (input >= c->n_inputs)
        return rl_fail(err, RL_EINTERNAL, "compare: no input %zu", input);
    rl_cmp_row *r = find_row(c, spec);
    if (!r) {
        rl_status st = new_row(c, spec, &r, err);
        if (st != RL_OK)
            return st;
    }
    rl_cmp_cell *cell = &r->cells[input];
    if (cell->present) /* the same row twice in one bundle: the first counts */
        return RL_OK;
    if (n > RL_CMP_MAX_SAMPLES)
        n = RL_CMP_MAX_SAMPLES;
    cell->point = spec->single;
    cell->disturbed = spec->disturbed;
    if (n > 0) {
        rl_stats_summary s;
        if (rl_stats_summarize(samples, n, &s, err) != RL_OK)
            return RL_OK; /* a non-finite sample: the row stays absent for this input */
        cell->samples = rl_calloc(n, sizeof *cell->samples);
        if (!cell->samples)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        memcpy(cell->samples, samples, n * sizeof *samples);
        cell->n = n;
        cell->has_mean = true;
        cell->mean = s.mean;
        cell->has_sd = s.has_sd;
        cell->sd = s.sd;
        cell->has_ci = s.has_ci95;
        cell->ci_low = s.ci95_low;
        cell->ci_high = s.ci95_high;
    } else {
        cell->has_mean = has_mean && isfinite(mean);
        cell->mean = mean;
        cell->has_sd = has_sd && isfinite(sd) && sd >= 0;
        cell->sd = sd;
    }
    cell->present = cell->has_mean;
    return RL_OK;
}

/* The finite numbers of a JSON array of either form (rl_json_values; above 0, or from 0 with
 * zero_ok; others skipped; at most RL_CMP_MAX_SAMPLES) as one input's samples of a row;
 * nothing when none is left. */
static rl_status add_array(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec, const cJSON *arr,
                           bool zero_ok, rl_error *err)
{
    double *x = NULL;
    size_t len = 0, k = 0;
    if (rl_json_values(arr, &x, &len) == RL_EINTERNAL)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t i = 0; i < len && k < RL_CMP_MAX_SAMPLES; i++)
        if (isfinite(x[i]) && (x[i] > 0 || (zero_ok && x[i] == 0)))
            x[k++] = x[i];
    rl_status st =
        k > 0 ? rl_cmp_add_samples(c, input, spec, x, k, false, 0, false, 0, err) : RL_OK;
    free(x);
    return st;
}

rl_status rl_cmp_add_rate(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec, const cJSON *rate,
                          rl_error *err)
{
    bool avail = true;
    if (!cJSON_IsObject(rate) || (rl_json_get_bool(rate, "available", &avail) && !avail))
        return RL_OK;
    const cJSON *arr = rl_json_get(rate, "samples");
    if (rl_json_array_size(arr) > 0)
        return add_array(c, input, spec, arr, false, err);
    double mean = 0, sd = 0;
    bool has_mean = rl_json_get_num(rate, "mean", &mean) && mean > 0;
    bool has_sd = rl_json_get_num(rate, "sd", &sd);
    if (!has_mean)
        return RL_OK;
    return rl_cmp_add_samples(c, input, spec, NULL, 0, true, mean, has_sd, sd, err);
}

/* FNV-1a, 64 bits: a short stable digest of the type map. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

typedef struct {
    char text[160];
} type_entry;

static int cmp_types(const void *a, const void *b)
{
    return strcmp(((const type_entry *)a)->text, ((const type_entry *)b)->text);
}

static bool json_u64(const cJSON *o, const char *key, uint64_t *out)
{
    if (rl_json_get_u64(o, key, out))
        return true;
    double v;
    if (rl_json_get_num(o, key, &v) && v >= 0 && v < 1.8e19) {
        *out = (uint64_t)v;
        return true;
    }
    return false;
}

void rl_cmp_model_identity(const cJSON *model, char *buf, size_t cap)
{
    const cJSON *g = rl_json_get(model, "gguf");
    const cJSON *types = rl_json_get(g, "types");
    uint64_t tensor_bytes = 0;
    int nt = cJSON_IsArray(types) ? cJSON_GetArraySize(types) : 0;
    if (nt > 0 && nt <= 64 && json_u64(g, "tensor_bytes", &tensor_bytes)) {
        type_entry e[64];
        size_t n = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, types)
        {
            uint64_t nten = 0, bytes = 0;
            json_u64(t, "n_tensors", &nten);
            json_u64(t, "bytes", &bytes);
            const char *name = rl_json_get_str(t, "type");
            rl_snprintf(e[n].text, sizeof e[n].text, "%.64s:%llu:%llu", name ? name : "?",
                        (unsigned long long)nten, (unsigned long long)bytes);
            n++;
        }
        qsort(e, n, sizeof e[0], cmp_types);
        uint64_t h = 14695981039346656037ull;
        for (size_t i = 0; i < n; i++) {
            h = fnv(h, e[i].text);
            h = fnv(h, ";");
        }
        rl_snprintf(buf, cap, "types:%016llx:%llu", (unsigned long long)h,
                    (unsigned long long)tensor_bytes);
        return;
    }
    const char *name = rl_json_get_str(model, "name");
    uint64_t bpt = 0;
    json_u64(rl_json_get(model, "bytes_per_token"), "value", &bpt);
    rl_snprintf(buf, cap, "name:%.200s:%llu", name ? name : "?", (unsigned long long)bpt);
}

/* Whether bundle.advice ranks model id's decode at th threads (its rows come from the depth-0
 * runs: rl_cmp_rows_advice lists them). */
static bool advice_covers(const cJSON *bundle, const char *id, double th)
{
    const cJSON *t;
    if (!id)
        return false;
    cJSON_ArrayForEach(t, rl_json_get(rl_json_get(bundle, "advice"), "tables"))
    {
        double tt;
        if (!rl_json_get_num(t, "threads", &tt) || tt != th)
            continue;
        const cJSON *row;
        cJSON_ArrayForEach(row, rl_json_get(t, "rows"))
        {
            const char *mid = rl_json_get_str(row, "model_id");
            if (mid && strcmp(mid, id) == 0)
                return true;
        }
    }
    return false;
}

rl_status rl_cmp_rows_decode(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *settings = rl_json_get(bundle, "settings");
    double np = NAN, ng = NAN;
    rl_json_get_num(settings, "n_prompt", &np);
    rl_json_get_num(settings, "n_gen", &ng);
    char s_np[32], s_ng[32];
    rl_snprintf(s_np, sizeof s_np, isfinite(np) ? "%.0f" : "?", np);
    rl_snprintf(s_ng, sizeof s_ng, isfinite(ng) ? "%.0f" : "?", ng);
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(bundle, "models"))
    {
        char ident[320];
        rl_cmp_model_identity(m, ident, sizeof ident);
        const char *name = rl_json_get_str(m, "name");
        const cJSON *r;
        cJSON_ArrayForEach(r, rl_json_get(m, "runs"))
        {
            const char *status = rl_json_get_str(r, "status");
            double th, dp;
            if (!status || strcmp(status, "ok") != 0 || !rl_json_get_num(r, "threads", &th) ||
                !rl_json_get_num(r, "depth", &dp) || !isfinite(th) || !isfinite(dp))
                continue;
            char s_th[32], s_dp[32];
            rl_snprintf(s_th, sizeof s_th, "%.0f", th);
            rl_snprintf(s_dp, sizeof s_dp, "%.0f", dp);
            static const char *const metrics[] = {"decode", "prefill"};
            bool advised = dp == 0 && advice_covers(bundle, rl_json_get_str(m, "id"), th);
            for (size_t k = advised ? 1 : 0; k < 2; k++) {
                char key[512];
                rl_snprintf(key, sizeof key, "%s|%s|t=%s|d=%s|p=%s|g=%s", metrics[k], ident, s_th,
                            s_dp, s_np, s_ng);
                rl_cmp_row_spec spec = {
                    .group = RL_CMP_GROUP_DECODE,
                    .key = key,
                    .subject = name ? name : "?",
                    .metric = metrics[k],
                    .unit = "tok/s",
                    .kind = "measured",
                    .higher_is_better = true,
                    .disturbed = disturbed(r),
                    .n_keys = 4,
                    .keys = {
                        {"threads", s_th}, {"depth", s_dp}, {"n_prompt", s_np}, {"n_gen", s_ng}}};
                rl_status st = rl_cmp_add_rate(c, input, &spec, rl_json_get(r, metrics[k]), err);
                if (st != RL_OK)
                    return st;
            }
        }
    }
    return RL_OK;
}

/* An advice row's measurement: its model's depth-0 run at threads th was disturbed. */
static bool advice_disturbed(const cJSON *model, double th)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rl_json_get(model, "runs"))
    {
        double t, d;
        if (rl_json_get_num(r, "threads", &t) && rl_json_get_num(r, "depth", &d) && t == th &&
            d == 0)
            return disturbed(r);
    }
    return false;
}

rl_status rl_cmp_rows_advice(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, rl_json_get(rl_json_get(bundle, "advice"), "tables"))
    {
        double th;
        if (!rl_json_get_num(t, "threads", &th) || !isfinite(th))
            continue;
        char s_th[32];
        rl_snprintf(s_th, sizeof s_th, "%.0f", th);
        const cJSON *row;
        cJSON_ArrayForEach(row, rl_json_get(t, "rows"))
        {
            const char *id = rl_json_get_str(row, "model_id");
            const char *format = rl_json_get_str(row, "format");
            const char *name = rl_json_get_str(row, "name");
            const cJSON *model = NULL, *m;
            cJSON_ArrayForEach(m, rl_json_get(bundle, "models"))
            {
                const char *mid = rl_json_get_str(m, "id");
                if (!model && id && mid && strcmp(id, mid) == 0)
                    model = m;
            }
            char ident[320], key[512];
            if (model)
                rl_cmp_model_identity(model, ident, sizeof ident);
            else
                rl_snprintf(ident, sizeof ident, "name:%.200s", name ? name : "?");
            rl_snprintf(key, sizeof key, "decode|%s|t=%s|f=%.100s", ident, s_th,
                        format ? format : "?");
            rl_cmp_row_spec spec = {.group = RL_CMP_GROUP_ADVICE,
                                    .key = key,
                                    .subject = name ? name : "?",
                                    .metric = "decode",
                                    .unit = "tok/s",
                                    .kind = "measured",
                                    .higher_is_better = true,
                                    .disturbed = advice_disturbed(model, th),
                                    .n_keys = 2,
                                    .keys = {{"threads", s_th}, {"format", format ? format : "?"}}};
            rl_status st = rl_cmp_add_rate(c, input, &spec, rl_json_get(row, "decode"), err);
            if (st != RL_OK)
                return st;
        }
    }
    return RL_OK;
}

/* ---- the streaming client ---------------------------------------------------------------- */

typedef struct {
    const char *name, *label, *unit, *kind; /* kind: the legend's, when the bundle gives none */
    bool higher_is_better, single;
    bool conventional; /* computed differently under another client.convention */
} client_metric;

static const client_metric client_metrics[] = {
    {"ttft", "TTFT", "ms", "proxy", false, false, false},
    {"e2e", "E2E latency", "ms", "measured", false, false, false},
    {"tpot", "TPOT", "ms", "derived", false, false, true},
    {"chunk_gap", "chunk gap", "ms", "proxy", false, false, true},
    {"decode_tok_s", "decode rate per request", "tok/s", "derived", true, false, true},
    {"output_tok_s", "output rate per request", "tok/s", "derived", true, false, true},
    {"output_throughput", "output throughput", "tok/s", "derived", true, true, true},
    {"rps", "requests/s", "req/s", "measured", true, true, false},
    {"goodput.rps", "goodput", "req/s", "derived", true, true, false},
};

/* The bundle's metric convention (an fm-bench import states it; client's own is deliveries). */
static const char *convention_of(const cJSON *cl)
{
    const char *v = rl_json_get_str(cl, "convention");
    return v ? v : "deliveries";
}

/* The kind a metric object states, when it is one of the four; else dflt. */
static const char *kind_of(const cJSON *o, const char *dflt)
{
    static const char *const kinds[] = {"measured", "proxy", "derived", "controlled"};
    const char *k = rl_json_get_str(o, "kind");
    for (size_t i = 0; k && i < 4; i++)
        if (strcmp(k, kinds[i]) == 0)
            return kinds[i];
    return dflt;
}

/* One client metric of one point: a distribution's samples (finite, >= 0; with its samples
 * unavailable, the summary's mean and sd: not tested), or a point metric's value. */
static rl_status client_add(rl_cmp *c, size_t input, rl_cmp_row_spec *spec, const cJSON *o,
                            rl_error *err)
{
    bool avail = true;
    if (!cJSON_IsObject(o) || (rl_json_get_bool(o, "available", &avail) && !avail))
        return RL_OK;
    double v;
    if (spec->single) {
        if (!rl_json_get_num(o, "value", &v) || !isfinite(v) || v < 0)
            return RL_OK;
        return rl_cmp_add_samples(c, input, spec, &v, 1, false, 0, false, 0, err);
    }
    const cJSON *arr = rl_json_get(o, "samples");
    if (rl_json_array_size(arr) > 0)
        return add_array(c, input, spec, arr, true, err);
    const cJSON *sum = rl_json_get(o, "stats");
    double sd = 0;
    if (!rl_json_get_num(sum, "mean", &v) || !isfinite(v) || v < 0)
        return RL_OK;
    bool has_sd = rl_json_get_num(sum, "sd", &sd);
    return rl_cmp_add_samples(c, input, spec, NULL, 0, true, v, has_sd, sd, err);
}

rl_status rl_cmp_rows_client(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *cl = rl_json_get(bundle, "client");
    if (!cJSON_IsObject(cl))
        return RL_OK;
    const cJSON *drv = rl_json_get(cl, "driver");
    const char *type = rl_json_get_str(drv, "type");
    const char *cmd = rl_json_get_str(drv, "command"), *url = rl_json_get_str(drv, "url");
    const char *model = rl_json_get_str(drv, "model");
    char ident[600], subject[300], where[300];
    if (type && strcmp(type, "command") == 0) {
        rl_snprintf(ident, sizeof ident, "cmd:%.500s", cmd ? cmd : "?");
        rl_snprintf(subject, sizeof subject, "%.280s", cmd ? cmd : "?");
        rl_snprintf(where, sizeof where, "command");
    } else {
        rl_snprintf(ident, sizeof ident, "http:%.400s|%.190s", url ? url : "?", model ? model : "");
        rl_snprintf(subject, sizeof subject, "%.280s", model ? model : (url ? url : "?"));
        rl_snprintf(where, sizeof where, "%.280s", url ? url : "?");
    }
    /* the prompt set: its name and size shown, its ids and texts hashed into the key */
    const cJSON *ps = rl_json_get(rl_json_get(cl, "settings"), "prompts");
    const char *psrc = rl_json_get_str(ps, "source"), *pname = rl_json_get_str(ps, "name");
    double pn = NAN;
    rl_json_get_num(ps, "n", &pn);
    char prompts[200];
    rl_snprintf(prompts, sizeof prompts, isfinite(pn) ? "%.80s:%.80s (%.0f)" : "%.80s:%.80s",
                psrc ? psrc : "?", pname ? pname : "?", pn);
    uint64_t h = 14695981039346656037ull;
    const cJSON *pr;
    cJSON_ArrayForEach(pr, rl_json_get(cl, "prompts"))
    {
        const char *pid = rl_json_get_str(pr, "id"), *text = rl_json_get_str(pr, "text");
        h = fnv(fnv(fnv(h, pid ? pid : ""), "\x1f"), text ? text : "");
        h = fnv(h, "\x1e");
    }
    const cJSON *pt;
    cJSON_ArrayForEach(pt, rl_json_get(cl, "points"))
    {
        double conc = NAN, rate = NAN;
        rl_json_get_num(pt, "concurrency", &conc);
        /* a run over several models (client --model A,B): each point names its model, which
         * is part of what a row is */
        const char *pmodel = rl_json_get_str(pt, "model");
        char pident[1100], psubject[300];
        rl_snprintf(pident, sizeof pident, "%s|model=%.190s", ident, pmodel ? pmodel : "");
        rl_snprintf(psubject, sizeof psubject, "%.280s", pmodel ? pmodel : subject);
        rl_json_get_num(pt, "request_rate", &rate);
        char s_conc[32], s_rate[32];
        rl_snprintf(s_conc, sizeof s_conc, isfinite(conc) ? "%.0f" : "?", conc);
        if (isfinite(rate))
            rl_snprintf(s_rate, sizeof s_rate, "%g", rate);
        else
            rl_snprintf(s_rate, sizeof s_rate, "closed loop");
        for (size_t k = 0; k < sizeof client_metrics / sizeof client_metrics[0]; k++) {
            const client_metric *cm = &client_metrics[k];
            const cJSON *o = strcmp(cm->name, "goodput.rps") == 0
                                 ? rl_json_get(rl_json_get(pt, "goodput"), "rps")
                                 : rl_json_get(rl_json_get(pt, "metrics"), cm->name);
            /* a metric computed under another convention is another row: never mixed */
            const char *conv = convention_of(cl);
            bool other = cm->conventional && strcmp(conv, "deliveries") != 0;
            char key[1700];
            rl_snprintf(key, sizeof key, "%s|%s|c=%s|r=%s|p=%s|%016llx%s%.180s", cm->name,
                        pmodel ? pident : ident, s_conc, s_rate, prompts, (unsigned long long)h,
                        other ? "|conv=" : "", other ? conv : "");
            rl_cmp_row_spec spec = {.group = RL_CMP_GROUP_CLIENT,
                                    .key = key,
                                    .subject = psubject,
                                    .metric = cm->label,
                                    .unit = cm->unit,
                                    .kind = kind_of(o, cm->kind),
                                    .higher_is_better = cm->higher_is_better,
                                    .single = cm->single,
                                    .disturbed = disturbed(pt),
                                    .n_keys = pmodel ? 5 : 4,
                                    .keys = {{"driver", where},
                                             {"concurrency", s_conc},
                                             {"request rate", s_rate},
                                             {"prompts", prompts},
                                             {"model", pmodel ? pmodel : ""}}};
            rl_status st = client_add(c, input, &spec, o, err);
            if (st != RL_OK)
                return st;
        }
    }
    return RL_OK;
}

void rl_cmp_sections(const cJSON *bundle, char *buf, size_t cap)
{
    rl_sbuf s = {0};
    bool runs = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(bundle, "models")) runs =
        runs || cJSON_GetArraySize(rl_json_get(m, "runs")) > 0;
    if (runs)
        rl_sbuf_printf(&s, "llama-bench runs");
    if (cJSON_IsObject(rl_json_get(bundle, "advice")))
        rl_sbuf_printf(&s, "%squantization advice", s.len ? " + " : "");
    if (cJSON_IsObject(rl_json_get(bundle, "client")))
        rl_sbuf_printf(&s, "%sstreaming client", s.len ? " + " : "");
    char *t = rl_sbuf_take(&s);
    rl_snprintf(buf, cap, "%s", t && *t ? t : "nothing to compare");
    free(t);
}

const char *rl_cmp_group_note(const char *group)
{
    if (strcmp(group, RL_CMP_GROUP_CLIENT) == 0)
        return "Client-side latencies are lower-is-better: a rise beyond noise is \"slower\". "
               "TTFT is a proxy (send to the first streamed chunk, which may carry several "
               "tokens); chunk gaps are a proxy too (gaps between deliveries); TPOT and the "
               "per-request rates are derived. Throughput, requests/s and goodput are one value "
               "per operating point: ratio and delta, no test.";
    if (strcmp(group, RL_CMP_GROUP_ADVICE) == 0)
        return "The decode rates `advise --measure` ranked, per thread count and format (the "
               "same llama-bench runs, listed here and not again under llama-bench).";
    return NULL;
}
