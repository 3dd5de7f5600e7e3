/* bundle.c: create, check, write and analyse result bundles. See bundle.h and docs/BUNDLE.md. */
#include "bundle.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/HTMLparser.h>

#include "rl_file.h"
#include "rl_json.h"
#include "rl_util.h"
#include "rl_version.h"
#include "stats.h"

void rl_bundle_utc_now(char *buf, size_t cap)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

cJSON *rl_bundle_new(const char *command, int argc, char *const *argv)
{
    cJSON *b = cJSON_CreateObject();
    if (!b)
        return NULL;
    char now[32];
    rl_bundle_utc_now(now, sizeof now);
    cJSON *tool = cJSON_CreateObject();
    cJSON *args = cJSON_CreateArray();
    bool ok = tool && args;
    ok = ok && cJSON_AddStringToObject(b, "schema", RL_BUNDLE_SCHEMA);
    ok = ok && cJSON_AddNumberToObject(b, "schema_version", RL_BUNDLE_SCHEMA_VERSION);
    ok = ok && cJSON_AddStringToObject(tool, "name", "llama-roofline");
    ok = ok && cJSON_AddStringToObject(tool, "version", RL_VERSION);
    if (ok) {
        cJSON_AddItemToObject(b, "tool", tool);
        tool = NULL;
    }
    ok = ok && cJSON_AddStringToObject(b, "command", command);
    for (int i = 0; ok && i < argc; i++)
        ok = cJSON_AddItemToArray(args, rl_json_str(argv[i]));
    if (ok) {
        cJSON_AddItemToObject(b, "argv", args);
        args = NULL;
    }
    ok = ok && cJSON_AddStringToObject(b, "created_utc", now);
    ok = ok && cJSON_AddStringToObject(b, "updated_utc", now);
    cJSON_Delete(tool);
    cJSON_Delete(args);
    if (!ok) {
        cJSON_Delete(b);
        return NULL;
    }
    rl_bundle_set_status(b, "running", NULL);
    return b;
}

const cJSON *rl_bundle_model(const cJSON *b, const char *id, size_t *index)
{
    if (!id)
        return NULL;
    const cJSON *m;
    size_t i = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(b, "models"))
    {
        const char *mid = rl_json_get_str(m, "id");
        if (mid && strcmp(mid, id) == 0) {
            if (index)
                *index = i;
            return m;
        }
        i++;
    }
    return NULL;
}

void rl_bundle_set_status(cJSON *b, const char *state, const char *reason)
{
    cJSON *s = cJSON_CreateObject();
    if (!s)
        return;
    cJSON_AddStringToObject(s, "state", state);
    if (reason && *reason)
        rl_json_add_str(s, "reason", reason);
    if (cJSON_GetObjectItemCaseSensitive(b, "status"))
        cJSON_ReplaceItemInObjectCaseSensitive(b, "status", s);
    else
        cJSON_AddItemToObject(b, "status", s);
}

rl_status rl_bundle_write(cJSON *b, const char *path, rl_error *err)
{
    char now[32];
    rl_bundle_utc_now(now, sizeof now);
    cJSON *u = cJSON_CreateString(now);
    if (!u)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    if (cJSON_GetObjectItemCaseSensitive(b, "updated_utc"))
        cJSON_ReplaceItemInObjectCaseSensitive(b, "updated_utc", u);
    else
        cJSON_AddItemToObject(b, "updated_utc", u);
    return rl_json_write_file(path, b, err);
}

rl_status rl_bundle_check(const cJSON *b, const char *name, rl_error *err)
{
    const char *schema = rl_json_get_str(b, "schema");
    if (!cJSON_IsObject(b) || !schema || strcmp(schema, RL_BUNDLE_SCHEMA) != 0)
        return rl_fail(err, RL_EINPUT,
                       "%s: not a llama-roofline bundle (no \"schema\": \"%s\"); give a "
                       "bundle.json written by llama-roofline",
                       name, RL_BUNDLE_SCHEMA);
    int64_t v;
    if (!rl_json_get_i64(b, "schema_version", &v) || v < 1)
        return rl_fail(err, RL_EINPUT, "%s: the bundle has no valid schema_version", name);
    if (v > RL_BUNDLE_SCHEMA_VERSION)
        return rl_fail(err, RL_EINPUT,
                       "%s: bundle schema version %lld is newer than this llama-roofline reads "
                       "(%d); update llama-roofline",
                       name, (long long)v, RL_BUNDLE_SCHEMA_VERSION);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(b, "models")) &&
        cJSON_GetObjectItemCaseSensitive(b, "models"))
        return rl_fail(err, RL_EINPUT, "%s: \"models\" is not an array", name);
    return RL_OK;
}

/* A report: the text of <script type="application/json" id="bundle">, parsed. */
static rl_status bundle_from_html(const char *path, const char *text, size_t len, cJSON **out,
                                  rl_error *err)
{
    htmlDocPtr d = htmlReadMemory(text, (int)len, NULL, "UTF-8",
                                  HTML_PARSE_RECOVER | HTML_PARSE_NONET | HTML_PARSE_NOERROR |
                                      HTML_PARSE_NOWARNING | XML_PARSE_HUGE);
    xmlNodePtr n = d ? xmlDocGetRootElement(d) : NULL;
    xmlChar *json = NULL;
    while (n && !json) {
        if (n->type == XML_ELEMENT_NODE && xmlStrcasecmp(n->name, BAD_CAST "script") == 0) {
            xmlChar *id = xmlGetProp(n, BAD_CAST "id");
            xmlChar *type = xmlGetProp(n, BAD_CAST "type");
            if (id && type && xmlStrcmp(id, BAD_CAST "bundle") == 0 &&
                xmlStrcasecmp(type, BAD_CAST "application/json") == 0)
                json = xmlNodeGetContent(n);
            xmlFree(id);
            xmlFree(type);
        }
        /* depth-first, document order */
        if (n->children && n->type == XML_ELEMENT_NODE)
            n = n->children;
        else {
            while (n && !n->next)
                n = n->parent && n->parent->type == XML_ELEMENT_NODE ? n->parent : NULL;
            if (n)
                n = n->next;
        }
    }
    xmlFreeDoc(d);
    if (!json)
        return rl_fail(err, RL_EINPUT,
                       "%s: an HTML file without an embedded bundle (no <script "
                       "type=\"application/json\" id=\"bundle\">); give a bundle.json or a "
                       "report written by llama-roofline",
                       path);
    rl_status st = rl_json_parse(path, (const char *)json, strlen((const char *)json), out, err);
    xmlFree(json);
    if (st != RL_OK)
        rl_prefix(err, "the bundle embedded in the report");
    return st;
}

static bool looks_html(const char *text, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        i = 3; /* byte-order mark */
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    return i < len && text[i] == '<';
}

rl_status rl_bundle_load(const char *path, cJSON **out, rl_error *err)
{
    cJSON *b = NULL;
    char *text;
    size_t len;
    rl_status st = rl_file_read_all(path, RL_BUNDLE_MAX_BYTES, &text, &len, err);
    if (st != RL_OK)
        return st;
    if (looks_html(text, len))
        st = bundle_from_html(path, text, len, &b, err);
    else
        st = rl_json_parse(path, text, len, &b, err);
    free(text);
    if (st != RL_OK)
        return st;
    st = rl_bundle_check(b, path, err);
    if (st != RL_OK) {
        cJSON_Delete(b);
        return st;
    }
    *out = b;
    return RL_OK;
}

cJSON *rl_bundle_rate(const double *samples, size_t n, const char *unit, const char *reason)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (n == 0) {
        cJSON_AddFalseToObject(o, "available");
        rl_json_add_str(o, "reason", reason ? reason : "not measured");
        return o;
    }
    rl_stats_summary s;
    rl_error e;
    cJSON *arr = cJSON_CreateDoubleArray(samples, (int)n);
    if (!arr || rl_stats_summarize(samples, n, &s, &e) != RL_OK) {
        cJSON_Delete(arr);
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddStringToObject(o, "kind", "measured");
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddItemToObject(o, "samples", arr);
    cJSON *st = rl_stats_to_json(&s);
    if (!st) {
        cJSON_Delete(o);
        return NULL;
    }
    cJSON_AddItemToObject(o, "stats", st);
    return o;
}

cJSON *rl_bundle_lbench_rate(const rl_lbench_record *records, size_t n, rl_lbench_kind kind,
                             int64_t depth, const char *missing)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (records[i].kind == kind && records[i].n_depth == depth)
            total += records[i].from_average ? 1 : records[i].n_samples;
    double *x = rl_calloc(total ? total : 1, sizeof *x);
    if (!x)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const rl_lbench_record *r = &records[i];
        if (r->kind != kind || r->n_depth != depth)
            continue;
        if (r->from_average)
            x[k++] = r->rate_ts;
        else
            for (size_t j = 0; j < r->n_samples; j++)
                x[k++] = r->samples_ts_recomputed[j];
    }
    cJSON *o = rl_bundle_rate(x, k, "tok/s", missing);
    free(x);
    return o;
}

/* ---- analysis input from the tree ------------------------------------------------------ */

typedef struct {
    rl_an_model *models;
    rl_an_run **runs;
    double **samples; /* every sample array allocated, to free */
    size_t n_models, n_samples, cap_samples;
} an_build;

static const double *samples_of(an_build *ab, const cJSON *rate, size_t *n, double *mean)
{
    *n = 0;
    *mean = 0;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(rate, "samples");
    int len = cJSON_GetArraySize(arr);
    if (!cJSON_IsArray(arr) || len <= 0) {
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
    double *x = rl_calloc((size_t)len, sizeof *x);
    if (!x)
        return NULL;
    ab->samples[ab->n_samples++] = x;
    size_t k = 0;
    double sum = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (cJSON_IsNumber(it) && it->valuedouble > 0) {
            x[k++] = it->valuedouble;
            sum += it->valuedouble;
        }
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

    rl_an_result res;
    rl_status st = rl_an_analyze(&in, &res, err);
    cJSON *aj = NULL;
    if (st == RL_OK)
        st = rl_an_to_json(&res, &aj, err);
    rl_an_free(&res);
    an_build_free(&ab);
    if (st != RL_OK)
        return st;
    if (cJSON_GetObjectItemCaseSensitive(b, "analysis"))
        cJSON_ReplaceItemInObjectCaseSensitive(b, "analysis", aj);
    else
        cJSON_AddItemToObject(b, "analysis", aj);
    /* the analysis warnings are the bundle's warnings, with whatever the run added */
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
