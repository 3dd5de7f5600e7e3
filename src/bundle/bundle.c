/* SPDX-License-Identifier: MIT */
/* bundle.c: create, check, write and analyse result bundles. See bundle.h and docs/BUNDLE.md. */
#include "bundle/bundle.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/HTMLparser.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_url.h"
#include "base/rl_util.h"
#include "base/rl_version.h"
#include "base/stats.h"

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
    for (int i = 0; ok && i < argc; i++) {
        char *a = rl_url_redact(argv[i]); /* no URL's credentials in the bundle (rl_url.h) */
        ok = a && cJSON_AddItemToArray(args, rl_json_str(a));
        free(a);
    }
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

void rl_bundle_upgrade(cJSON *b)
{
    int64_t v = 0;
    if (!rl_json_get_i64(b, "schema_version", &v) || v != 1)
        return;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, rl_json_get(rl_json_get(b, "client"), "points"))
    {
        cJSON *m;
        cJSON_ArrayForEach(m, rl_json_get(pt, "metrics"))
        {
            cJSON *sum = cJSON_GetObjectItemCaseSensitive(m, "summary");
            /* renamed where it stands, so the key order (and a report's bytes) stay */
            char *name = sum && !cJSON_GetObjectItemCaseSensitive(m, "stats") &&
                                 !(sum->type & cJSON_StringIsConst)
                             ? cJSON_malloc(sizeof "stats")
                             : NULL;
            if (name) {
                memcpy(name, "stats", sizeof "stats");
                cJSON_free(sum->string);
                sum->string = name;
            }
        }
    }
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(b, "schema_version"), 2);
}

/* The text of the page's first <script type="application/json" id="ID">, or NULL (xmlFree). */
static xmlChar *html_script(const char *text, size_t len, const char *want)
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
            if (id && type && xmlStrcmp(id, BAD_CAST want) == 0 &&
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
    return json;
}

/* A report: the text of <script type="application/json" id="bundle">, parsed. */
static rl_status bundle_from_html(const char *path, const char *text, size_t len, cJSON **out,
                                  rl_error *err)
{
    xmlChar *json = html_script(text, len, "bundle");
    if (!json)
        return rl_fail(err, RL_EINPUT,
                       "%s: an HTML file without an embedded bundle (no <script "
                       "type=\"application/json\" id=\"bundle\">); give a bundle.json or a "
                       "report written by llama-roofline",
                       path);
    rl_status st =
        rl_json_parse_compact(path, (const char *)json, strlen((const char *)json), out, err);
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

rl_status rl_bundle_load_embedded(const char *path, const char *script_id, const char *schema,
                                  cJSON **out, rl_error *err)
{
    *out = NULL;
    char *text;
    size_t len;
    rl_status st = rl_file_read_all(path, RL_BUNDLE_MAX_BYTES, &text, &len, err);
    if (st != RL_OK)
        return st;
    cJSON *j = NULL;
    if (looks_html(text, len)) {
        xmlChar *json = html_script(text, len, script_id);
        if (!json)
            st = rl_fail(err, RL_EINPUT,
                         "%s: an HTML file without embedded %s data (no <script "
                         "type=\"application/json\" id=\"%s\">)",
                         path, schema, script_id);
        else
            st = rl_json_parse(path, (const char *)json, strlen((const char *)json), &j, err);
        xmlFree(json);
    } else {
        st = rl_json_parse(path, text, len, &j, err);
    }
    free(text);
    const char *got = st == RL_OK ? rl_json_get_str(j, "schema") : NULL;
    if (st == RL_OK && (!got || strcmp(got, schema) != 0)) {
        cJSON_Delete(j);
        return rl_fail(err, RL_EINPUT, "%s: not %s data (its schema is %s)", path, schema,
                       got ? got : "missing");
    }
    if (st == RL_OK)
        *out = j;
    return st;
}

/* The head of a bundle file: at most RL_BUNDLE_HEAD bytes, enough to tell a report (HTML) from
 * JSON. */
#define RL_BUNDLE_HEAD 4096

/* A bundle file, JSON or a report, parsed: JSON streamed through the compact reader (the text
 * is never held whole), a report read whole for libxml2. */
static rl_status bundle_parse_file(const char *path, cJSON **out, rl_error *err)
{
    FILE *f;
    uint64_t size;
    rl_status st = rl_file_open_regular(path, &f, &size, err);
    if (st != RL_OK)
        return st;
    if (size > RL_BUNDLE_MAX_BYTES) {
        fclose(f);
        return rl_fail(err, RL_EINPUT, "%s: %llu bytes is more than the %zu this reads", path,
                       (unsigned long long)size, (size_t)RL_BUNDLE_MAX_BYTES);
    }
    char head[RL_BUNDLE_HEAD];
    size_t n = fread(head, 1, sizeof head, f);
    if (ferror(f)) {
        fclose(f);
        return rl_fail(err, RL_EINPUT, "%s: read failed", path);
    }
    if (!looks_html(head, n)) {
        st = rl_json_read_compact(path, f, head, n, RL_BUNDLE_MAX_BYTES, out, err);
        fclose(f);
        return st;
    }
    fclose(f);
    char *text;
    size_t len;
    st = rl_file_read_all(path, RL_BUNDLE_MAX_BYTES, &text, &len, err);
    if (st == RL_OK)
        st = bundle_from_html(path, text, len, out, err);
    free(text);
    return st;
}

rl_status rl_bundle_load(const char *path, cJSON **out, rl_error *err)
{
    cJSON *b = NULL;
    rl_status st = bundle_parse_file(path, &b, err);
    if (st != RL_OK)
        return st;
    st = rl_bundle_check(b, path, err);
    if (st != RL_OK) {
        cJSON_Delete(b);
        return st;
    }
    rl_bundle_upgrade(b);
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
