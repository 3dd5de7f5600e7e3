/* SPDX-License-Identifier: MIT */
/* test_chart.c: unit tests for the charts (chart.h): every chart from a hand-made bundle with
 * known numbers parses as SVG with a <title> and <desc>, carries its text as real <text>
 * elements (no glyph outlines), has unique ids, and its table equals the input; hostile
 * strings come out as escaped text; renders are byte-identical; empty bundles give
 * RL_NOTHING; the PNG is a PNG. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "base/rl_json.h"
#include "render/chart/chart.h"
#include "render/chart/chart_int.h"
#include "base/rl_text.h"

/* ---- the hand-made bundle ---------------------------------------------------------------- */

#define FIT_BPS 37650056492.45081
#define CEIL_GBS 53.94467702067344

typedef struct {
    const char *id, *name, *label;
    double bytes, tps;
    int threads;
    bool moe, gpu;
} model_in;

static const model_in MODELS[] = {
    {"m1", "alpha-q4km.gguf", "Q4_K_M", 799862912, 48.23506, 8, false, false},
    {"m2", "beta.gguf", "Q8_0", 525120000, 78.581156, 4, false, false},
    {"m3", "gamma-moe.gguf", "Q4_K_M", 1923946496, 20.951367, 8, true, false},
};
#define N_MODELS 3

/* depth-0 runs: threads and decode/prefill per model */
static const int THREADS[] = {1, 4, 8};
static double decode_at(int m, int t)
{
    return 10.0 * (m + 1) + t * 1.25;
}
static double prefill_at(int m, int t)
{
    return 100.0 * (m + 1) + t * 7.5;
}

static cJSON *rate(double v, bool imported)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "kind", "measured");
    cJSON_AddStringToObject(r, "unit", "tok/s");
    if (imported) {
        cJSON_AddNumberToObject(r, "mean", v);
        cJSON *s = cJSON_AddObjectToObject(r, "samples");
        cJSON_AddFalseToObject(s, "available");
        cJSON_AddStringToObject(s, "reason", "imported: no samples");
        return r;
    }
    double s[2] = {v * 0.9, v * 1.1};
    cJSON_AddItemToObject(r, "samples", cJSON_CreateDoubleArray(s, 2));
    cJSON *st = cJSON_AddObjectToObject(r, "stats");
    cJSON_AddNumberToObject(st, "mean", v);
    return r;
}

static cJSON *run(int t, int depth, double dec, double pre, bool imported)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "threads", t);
    cJSON_AddNumberToObject(r, "depth", depth);
    cJSON_AddStringToObject(r, "status", "ok");
    cJSON_AddItemToObject(r, "decode", rate(dec, imported));
    cJSON_AddItemToObject(r, "prefill", rate(pre, imported));
    return r;
}

static void add_type(cJSON *types, const char *t, double bytes)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", t);
    cJSON_AddNumberToObject(o, "bytes", bytes);
    cJSON_AddItemToArray(types, o);
}

static void add_membw_run(cJSON *runs, const char *k, int t, double best, bool with_best)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kernel", k);
    cJSON_AddNumberToObject(o, "threads", t);
    cJSON_AddBoolToObject(o, "read_only", strcmp(k, "copy") != 0);
    if (with_best)
        cJSON_AddNumberToObject(o, "best_GBs", best);
    double s[3] = {best * 0.97, best, best * 0.99};
    cJSON_AddItemToObject(o, "samples_GBs", cJSON_CreateDoubleArray(s, 3));
    cJSON_AddItemToArray(runs, o);
}

/* names: NULL for MODELS' names; n_models models; imported: rates with "mean" only */
static cJSON *make_bundle(const char *const *names, int n_models, bool imported)
{
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "schema", "llama-roofline-bundle");
    cJSON_AddNumberToObject(b, "schema_version", 1);
    cJSON *models = cJSON_AddArrayToObject(b, "models");
    cJSON *an = cJSON_AddObjectToObject(b, "analysis");
    cJSON *am = cJSON_AddArrayToObject(an, "models");
    for (int i = 0; i < n_models; i++) {
        const model_in *mi = &MODELS[i];
        const char *name = names ? names[i] : mi->name;
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "id", mi->id);
        cJSON_AddStringToObject(m, "name", name);
        cJSON *g = cJSON_AddObjectToObject(m, "gguf");
        cJSON_AddStringToObject(g, "label", mi->label);
        cJSON_AddBoolToObject(g, "is_moe", mi->moe);
        cJSON *types = cJSON_AddArrayToObject(g, "types");
        const char *main_t = strcmp(mi->label, "Q8_0") == 0 ? "Q8_0" : "Q4_K";
        add_type(types, main_t, mi->bytes * 0.75);
        add_type(types, "Q6_K", mi->bytes * 0.2);
        add_type(types, "F32", mi->bytes * 0.05);
        cJSON *comp = cJSON_AddObjectToObject(g, "composition");
        cJSON_AddStringToObject(comp, "expected_type", main_t);
        cJSON *bpt = cJSON_AddObjectToObject(m, "bytes_per_token");
        cJSON_AddNumberToObject(bpt, "value", mi->bytes);
        cJSON_AddStringToObject(bpt, "unit", "bytes");
        cJSON *runs = cJSON_AddArrayToObject(m, "runs");
        /* a depth > 0 run first, at a thread count depth 0 did not use: not in threads */
        cJSON_AddItemToArray(runs, run(2, 512, 1, 1, imported));
        for (size_t k = 0; k < 3; k++)
            cJSON_AddItemToArray(runs, run(THREADS[k], 0, decode_at(i, THREADS[k]),
                                           prefill_at(i, THREADS[k]), imported));
        cJSON_AddItemToArray(models, m);

        cJSON *a = cJSON_CreateObject();
        cJSON_AddStringToObject(a, "id", mi->id);
        cJSON_AddStringToObject(a, "name", name);
        cJSON_AddBoolToObject(a, "is_moe", mi->moe);
        cJSON_AddBoolToObject(a, "gpu_offload", mi->gpu);
        cJSON_AddNumberToObject(a, "bytes_per_token", mi->bytes);
        cJSON *op = cJSON_AddObjectToObject(a, "operating_point");
        cJSON_AddTrueToObject(op, "available");
        cJSON_AddNumberToObject(op, "decode_tok_s", mi->tps);
        cJSON_AddNumberToObject(op, "threads", mi->threads);
        cJSON_AddItemToArray(am, a);
    }
    cJSON *fit = cJSON_AddObjectToObject(an, "fit");
    if (n_models >= 2) {
        cJSON_AddTrueToObject(fit, "available");
        cJSON_AddNumberToObject(fit, "bw_GBs", FIT_BPS / 1e9);
        cJSON_AddNumberToObject(fit, "bw_bytes_s", FIT_BPS);
    } else {
        cJSON_AddFalseToObject(fit, "available");
        cJSON_AddStringToObject(fit, "reason", "one model: a line needs two or more");
    }
    cJSON *ceil_o = cJSON_AddObjectToObject(an, "ceiling");
    cJSON_AddTrueToObject(ceil_o, "available");
    cJSON_AddNumberToObject(ceil_o, "GBs", CEIL_GBS);
    cJSON *knee = cJSON_AddObjectToObject(an, "knee");
    cJSON_AddTrueToObject(knee, "available");
    cJSON_AddNumberToObject(knee, "threads", 8);
    cJSON *lc = cJSON_AddArrayToObject(an, "long_context");
    static const int depths[] = {512, 2048, 8192};
    for (int i = 0; i < n_models && i < 2; i++)
        for (int k = 0; k < 3; k++) {
            cJSON *r = cJSON_CreateObject();
            cJSON_AddStringToObject(r, "model", MODELS[i].id);
            cJSON_AddNumberToObject(r, "threads", 8);
            cJSON_AddNumberToObject(r, "depth", depths[k]);
            cJSON_AddNumberToObject(r, "decode_tok_s", 40.0 - k * 7.5 - i);
            cJSON *pe = cJSON_AddObjectToObject(r, "pct_of_empty_cache");
            cJSON_AddTrueToObject(pe, "available");
            cJSON_AddNumberToObject(pe, "pct", 96.5 - k * 21.25 - i);
            cJSON_AddNumberToObject(pe, "empty_cache_tok_s", 41.5 - i);
            cJSON *bp = cJSON_AddObjectToObject(r, "bytes_only_prediction");
            cJSON_AddTrueToObject(bp, "available");
            cJSON_AddNumberToObject(bp, "pct", 99.25 - k * 6.5 - i);
            cJSON_AddItemToArray(lc, r);
        }
    cJSON *mb = cJSON_AddObjectToObject(b, "membw");
    cJSON_AddStringToObject(mb, "kind", "measured");
    cJSON_AddNumberToObject(mb, "peak_read_GBs", CEIL_GBS);
    cJSON_AddStringToObject(mb, "kernel", "dot");
    cJSON_AddNumberToObject(mb, "threads", 4);
    cJSON *mr = cJSON_AddArrayToObject(mb, "runs");
    for (int t = 1; t <= 4; t *= 2) {
        add_membw_run(mr, "sum", t, 10.5 * t, true);
        add_membw_run(mr, "dot", t, t == 4 ? CEIL_GBS : 13.25 * t, t != 2);
        add_membw_run(mr, "copy", t, 12.75 * t, true);
    }
    return b;
}

/* ---- SVG checks -------------------------------------------------------------------------- */

static xmlDocPtr parse(const rl_chart *c)
{
    assert_non_null(c->svg);
    assert_int_equal(strlen(c->svg), c->svg_len);
    assert_true(rl_utf8_valid(c->svg, c->svg_len));
    xmlDocPtr doc = xmlReadMemory(c->svg, (int)c->svg_len, "t.svg", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    assert_non_null(doc);
    return doc;
}

typedef struct {
    char *ids[4096];
    size_t n_ids;
    size_t n_title, n_desc, n_text, n_glyph;
    bool script;
} walk_t;

static void walk(xmlNodePtr n, walk_t *w)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *nm = (const char *)n->name;
        w->n_title += strcmp(nm, "title") == 0;
        w->n_desc += strcmp(nm, "desc") == 0;
        w->n_text += strcmp(nm, "text") == 0;
        w->n_glyph +=
            strcmp(nm, "use") == 0 || strcmp(nm, "symbol") == 0 || strcmp(nm, "glyph") == 0;
        w->script |= strcmp(nm, "script") == 0;
        xmlChar *id = xmlGetProp(n, BAD_CAST "id");
        if (id) {
            assert_true(strncmp((const char *)id, "glyph", 5) != 0);
            if (w->n_ids < 4096)
                w->ids[w->n_ids++] = (char *)id;
            else
                xmlFree(id);
        }
        walk(n->children, w);
    }
}

/* The structural checks every chart passes; returns the parsed document (caller frees). */
static xmlDocPtr check_svg(const rl_chart *c, const char *id)
{
    assert_string_equal(c->id, id);
    assert_non_null(c->title);
    assert_non_null(c->desc);
    assert_true(strlen(c->desc) > 20);
    xmlDocPtr doc = parse(c);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "svg");
    xmlChar *vb = xmlGetProp(root, BAD_CAST "viewBox");
    xmlChar *wd = xmlGetProp(root, BAD_CAST "width");
    assert_non_null(vb);
    assert_string_equal((const char *)wd, "100%");
    assert_null(xmlGetProp(root, BAD_CAST "height"));
    xmlFree(vb);
    xmlFree(wd);
    walk_t w;
    memset(&w, 0, sizeof w);
    walk(root->children, &w);
    assert_int_equal(w.n_title, 1);
    assert_int_equal(w.n_desc, 1);
    assert_true(w.n_text > 3);
    assert_int_equal(w.n_glyph, 0);
    assert_false(w.script);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "rl-%s-", id);
    for (size_t i = 0; i < w.n_ids; i++) {
        assert_true(strncmp(w.ids[i], prefix, strlen(prefix)) == 0);
        for (size_t k = 0; k < i; k++)
            assert_true(strcmp(w.ids[i], w.ids[k]) != 0);
    }
    for (size_t i = 0; i < w.n_ids; i++)
        xmlFree(w.ids[i]);
    /* title and desc come first and hold the chart's plain text */
    xmlNodePtr first = root->children;
    while (first && first->type != XML_ELEMENT_NODE)
        first = first->next;
    assert_string_equal((const char *)first->name, "title");
    xmlChar *tt = xmlNodeGetContent(first);
    assert_string_equal((const char *)tt, c->title);
    xmlFree(tt);
    /* the text group follows the page's theme */
    assert_non_null(strstr(c->svg, "fill=\"currentColor\""));
    assert_non_null(strstr(c->svg, "font-family=\"DejaVu Sans, Verdana, sans-serif\""));
    return doc;
}

static bool find_text(xmlNodePtr n, const char *want, bool exact)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (strcmp((const char *)n->name, "text") == 0) {
            xmlChar *s = xmlNodeGetContent(n);
            bool hit = s && (exact ? strcmp((const char *)s, want) == 0
                                   : strstr((const char *)s, want) != NULL);
            xmlFree(s);
            if (hit)
                return true;
        }
        if (find_text(n->children, want, exact))
            return true;
    }
    return false;
}

static bool has_text(xmlDocPtr doc, const char *want)
{
    return find_text(xmlDocGetRootElement(doc), want, false);
}

/* ---- table checks ------------------------------------------------------------------------ */

static size_t col(const rl_chart *c, const char *name)
{
    for (size_t i = 0; i < c->n_cols; i++)
        if (strcmp(c->cols[i], name) == 0)
            return i;
    fail_msg("no column '%s'", name);
    return 0;
}

static const char *cell(const rl_chart *c, size_t row, const char *colname)
{
    return c->cells[row * c->n_cols + col(c, colname)];
}

static double num(const rl_chart *c, size_t row, const char *colname)
{
    const char *s = cell(c, row, colname);
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end)
        fail_msg("cell '%s' (%s, row %zu) is not a number", s, colname, row);
    return v;
}

/* Equal to 10 significant digits (the table prints %.10g). */
static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-12;
}
#define assert_close(a, b) assert_true(close_to((a), (b)))

/* The row whose first column is key (and, when key2 is set, whose col2 is key2). */
static size_t row_of(const rl_chart *c, const char *colname, const char *key, const char *col2,
                     const char *key2)
{
    for (size_t r = 0; r < c->n_rows; r++)
        if (strcmp(cell(c, r, colname), key) == 0 && (!col2 || strcmp(cell(c, r, col2), key2) == 0))
            return r;
    fail_msg("no row %s=%s %s=%s", colname, key, col2 ? col2 : "", key2 ? key2 : "");
    return 0;
}

/* ---- the charts -------------------------------------------------------------------------- */

static void test_roofline(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "roofline");
    assert_true(has_text(doc, "fit 37.65 GB/s"));
    assert_true(has_text(doc, "ceiling 53.94 GB/s"));
    assert_true(find_text(xmlDocGetRootElement(doc), "alpha-q4km", true)); /* Q4_K_M in name */
    assert_true(find_text(xmlDocGetRootElement(doc), "beta (Q8_0)", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "gamma-moe (Q4_K_M, MoE)", true));
    assert_true(has_text(doc, "bytes per token (MB"));
    assert_true(has_text(doc, "decode (tok/s"));
    assert_non_null(strstr(c.desc, "37.65 GB/s"));
    /* the table: one row per model, then the two lines */
    assert_int_equal(c.n_rows, N_MODELS + 2);
    for (int i = 0; i < N_MODELS; i++) {
        size_t r = row_of(&c, "model", MODELS[i].name, NULL, NULL);
        assert_string_equal(cell(&c, r, "series"), "point");
        assert_close(num(&c, r, "bytes per token"), MODELS[i].bytes);
        assert_close(num(&c, r, "decode (tok/s)"), MODELS[i].tps);
        assert_close(num(&c, r, "threads"), MODELS[i].threads);
        assert_string_equal(cell(&c, r, "kind"), MODELS[i].moe ? "MoE" : "dense");
    }
    assert_close(num(&c, row_of(&c, "series", "fit line", NULL, NULL), "bandwidth (GB/s)"),
                 FIT_BPS / 1e9);
    assert_close(num(&c, row_of(&c, "series", "ceiling line", NULL, NULL), "bandwidth (GB/s)"),
                 CEIL_GBS);
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    assert_null(c.svg);
    cJSON_Delete(b);
}

static void test_roofline_one_model(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, 1, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "roofline");
    assert_false(has_text(doc, "fit "));
    assert_true(has_text(doc, "alpha-q4km"));
    assert_true(has_text(doc, "ceiling 53.94 GB/s"));
    assert_non_null(strstr(c.desc, "No fitted line"));
    assert_int_equal(c.n_rows, 2); /* the point and the ceiling */
    assert_string_equal(cell(&c, 1, "series"), "ceiling line");
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    /* no ceiling either: the point alone, no line at all */
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(b, "analysis"), "ceiling");
    assert_int_equal(rl_chart_roofline(b, &c, &e), RL_OK);
    doc = check_svg(&c, "roofline");
    assert_false(has_text(doc, "GB/s"));
    assert_int_equal(c.n_rows, 1);
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

/* Exactly two models: the fit line is drawn (mutant chart-roof-2: only from three). */
static void test_roofline_two_models(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, 2, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "roofline");
    assert_true(has_text(doc, "fit 37.65 GB/s"));
    assert_int_equal(c.n_rows, 4); /* two points, the fit and the ceiling */
    assert_close(num(&c, row_of(&c, "series", "fit line", NULL, NULL), "bandwidth (GB/s)"),
                 FIT_BPS / 1e9);
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

/* The value filter and the nice tick steps at their boundaries (chart_int.h): 0 is not drawn
 * (mutant chart-sane), the smallest positive double is; a span of 25 gets steps of 5, one of
 * 40 steps of 10 (mutant chart-nice: 5 and 10 swapped). */
static void test_sane_and_nice(void **state)
{
    (void)state;
    assert_false(rl_chart_sane(0.0));
    assert_false(rl_chart_sane(-1.0));
    assert_false(rl_chart_sane(1e15));
    assert_true(rl_chart_sane(4.9e-324));
    rl_chart_scale s;
    rl_chart_scale_lin(&s, 0, 25, true, 0, 100);
    assert_close(s.step, 5);
    assert_close(s.hi, 25);
    rl_chart_scale_lin(&s, 0, 40, true, 0, 100);
    assert_close(s.step, 10);
    assert_close(s.hi, 40);
    rl_chart_scale_lin(&s, 0, 10, true, 0, 100);
    assert_close(s.step, 2);
}

static void test_threads(void **state)
{
    (void)state;
    for (int imported = 0; imported < 2; imported++) {
        cJSON *b = make_bundle(NULL, N_MODELS, imported);
        rl_chart c;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_chart_threads(b, &c, &e), RL_OK);
        xmlDocPtr doc = check_svg(&c, "threads");
        assert_true(has_text(doc, "knee: 8 threads"));
        assert_true(has_text(doc, "Decode"));
        assert_true(has_text(doc, "Prefill"));
        assert_true(has_text(doc, "gamma-moe"));
        assert_int_equal(c.n_rows, N_MODELS * 3 + 1); /* depth-0 runs only, and the knee */
        for (int i = 0; i < N_MODELS; i++)
            for (int k = 0; k < 3; k++) {
                char t[16];
                snprintf(t, sizeof t, "%d", THREADS[k]);
                size_t r = row_of(&c, "model", MODELS[i].name, "threads", t);
                assert_close(num(&c, r, "decode (tok/s)"), decode_at(i, THREADS[k]));
                assert_close(num(&c, r, "prefill (tok/s)"), prefill_at(i, THREADS[k]));
            }
        assert_close(num(&c, row_of(&c, "model", "knee (all models)", NULL, NULL), "threads"), 8);
        xmlFreeDoc(doc);
        rl_chart_free(&c);
        cJSON_Delete(b);
    }
}

static void test_long_context(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_long_context(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "long-context");
    assert_true(has_text(doc, "alpha-q4km"));
    assert_true(has_text(doc, "beta"));
    assert_true(find_text(xmlDocGetRootElement(doc), "2k", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "8k", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "0", true));
    assert_int_equal(c.n_rows, 2 * 4); /* two models, depth 0 and three depths */
    static const int depths[] = {512, 2048, 8192};
    for (int i = 0; i < 2; i++) {
        size_t r0 = row_of(&c, "model", MODELS[i].name, "depth (tokens)", "0");
        assert_close(num(&c, r0, "measured (% of empty cache)"), 100);
        assert_close(num(&c, r0, "bytes-only prediction (%)"), 100);
        assert_close(num(&c, r0, "decode (tok/s)"), 41.5 - i);
        for (int k = 0; k < 3; k++) {
            char d[16];
            snprintf(d, sizeof d, "%d", depths[k]);
            size_t r = row_of(&c, "model", MODELS[i].name, "depth (tokens)", d);
            assert_close(num(&c, r, "measured (% of empty cache)"), 96.5 - k * 21.25 - i);
            assert_close(num(&c, r, "bytes-only prediction (%)"), 99.25 - k * 6.5 - i);
            assert_close(num(&c, r, "decode (tok/s)"), 40.0 - k * 7.5 - i);
            assert_close(num(&c, r, "threads"), 8);
        }
    }
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

static void test_composition(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_composition(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "composition");
    assert_true(find_text(xmlDocGetRootElement(doc), "Q4_K", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "Q6_K", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "beta", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "525 MB", true));
    assert_int_equal(c.n_rows, N_MODELS * 3);
    /* sorted by bytes per token: beta (525 MB), alpha (800 MB), gamma (1924 MB) */
    assert_string_equal(cell(&c, 0, "model"), "beta.gguf");
    assert_string_equal(cell(&c, 3, "model"), "alpha-q4km.gguf");
    assert_string_equal(cell(&c, 6, "model"), "gamma-moe.gguf");
    static const double share[] = {75, 20, 5};
    for (int i = 0; i < N_MODELS; i++) {
        const char *main_t = strcmp(MODELS[i].label, "Q8_0") == 0 ? "Q8_0" : "Q4_K";
        const char *types[] = {main_t, "Q6_K", "F32"};
        double sum = 0;
        for (int k = 0; k < 3; k++) {
            size_t r = row_of(&c, "model", MODELS[i].name, "type", types[k]);
            assert_close(num(&c, r, "bytes"), MODELS[i].bytes * share[k] / 100);
            assert_close(num(&c, r, "share (%)"), share[k]);
            assert_close(num(&c, r, "bytes per token"), MODELS[i].bytes);
            assert_string_equal(cell(&c, r, "label's type"), k == 0 ? "yes" : "");
            sum += num(&c, r, "share (%)");
        }
        assert_close(sum, 100);
    }
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

static void test_membw(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_membw(b, &c, &e), RL_OK);
    xmlDocPtr doc = check_svg(&c, "membw");
    assert_true(find_text(xmlDocGetRootElement(doc), "copy (excluded)", true));
    assert_true(find_text(xmlDocGetRootElement(doc), "dot", true));
    assert_true(has_text(doc, "ceiling 53.94 GB/s (dot, 4 threads)"));
    assert_int_equal(c.n_rows, 3 * 3 + 1);
    for (int t = 1; t <= 4; t *= 2) {
        char ts[16];
        snprintf(ts, sizeof ts, "%d", t);
        assert_close(num(&c, row_of(&c, "kernel", "sum", "threads", ts), "best (GB/s)"), 10.5 * t);
        /* dot at 2 threads has no best_GBs: the largest sample */
        assert_close(num(&c, row_of(&c, "kernel", "dot", "threads", ts), "best (GB/s)"),
                     t == 4 ? CEIL_GBS : 13.25 * t);
        size_t r = row_of(&c, "kernel", "copy", "threads", ts);
        assert_close(num(&c, r, "best (GB/s)"), 12.75 * t);
        assert_true(strncmp(cell(&c, r, "counts for ceiling"), "no", 2) == 0);
    }
    size_t r = row_of(&c, "kernel", "ceiling", NULL, NULL);
    assert_close(num(&c, r, "best (GB/s)"), CEIL_GBS);
    assert_close(num(&c, r, "threads"), 4);
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

/* A client ECDF draws only the samples that are times (finite, 0 or more, under 1e12 ms): of
 * -5, 10, 20, 1e13 and a string, two requests are drawn, from either form of the array. */
static void test_client_ecdf_filters(void **state)
{
    (void)state;
    static const char text[] = "{\"client\": {\"points\": [{\"concurrency\": 1, \"metrics\": "
                               "{\"ttft\": {\"samples\": [-5, 10, 20, 1e13, \"x\"]}}}, "
                               "{\"concurrency\": 2, \"metrics\": {\"ttft\": {\"samples\": "
                               "[-5, 10, 20, 30]}}}]}}";
    cJSON *b = NULL;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_json_parse_compact("t", text, sizeof text - 1, &b, &e), RL_OK);
    rl_chart c;
    assert_int_equal(rl_chart_client_ttft(b, &c, &e), RL_OK);
    xmlDocPtr doc = xmlReadMemory(c.svg, (int)c.svg_len, "c.svg", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    assert_true(has_text(doc, "concurrency 1 (2 requests)"));
    assert_true(has_text(doc, "concurrency 2 (3 requests)")); /* the compact form */
    xmlFreeDoc(doc);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

/* ---- hostile input ----------------------------------------------------------------------- */

typedef rl_status (*chart_fn)(const cJSON *, rl_chart *, rl_error *);
static const chart_fn CHARTS[] = {rl_chart_roofline, rl_chart_threads, rl_chart_long_context,
                                  rl_chart_composition, rl_chart_membw};
#define N_CHARTS 5

static void test_hostile_names(void **state)
{
    (void)state;
    const char *names[] = {"<script>alert(1)</script>", "]]><x/>&amp;", "bad\xff\xfe\x01name"};
    cJSON *b = make_bundle(names, N_MODELS, false);
    /* hostile kernel names too */
    cJSON *k0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "membw"), "runs"), 0);
    cJSON_ReplaceItemInObject(k0, "kernel", cJSON_CreateString("<b>\xc3"));
    for (int i = 0; i < N_CHARTS; i++) {
        rl_chart c;
        rl_error e = {RL_OK, ""};
        assert_int_equal(CHARTS[i](b, &c, &e), RL_OK);
        xmlDocPtr doc = parse(&c); /* also checks the bytes are UTF-8 */
        walk_t w;
        memset(&w, 0, sizeof w);
        walk(xmlDocGetRootElement(doc), &w);
        assert_false(w.script);
        for (size_t k = 0; k < w.n_ids; k++)
            xmlFree(w.ids[k]);
        assert_null(strstr(c.svg, "<script"));
        assert_null(strstr(c.svg, "<x/>"));
        if (i != 4) { /* membw shows no model names */
            assert_true(has_text(doc, "<script>alert(1)</script>"));
            assert_non_null(strstr(c.svg, "&lt;script&gt;alert(1)&lt;/script&gt;"));
            assert_true(has_text(doc, "]]><x/>&amp;"));
            if (i != 2) /* long context: only m1 and m2 have depth runs */
                assert_true(has_text(doc, "bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDname"));
        } else {
            assert_true(has_text(doc, "<b>\xEF\xBF\xBD"));
        }
        for (size_t k = 0; k < c.n_rows * c.n_cols; k++)
            assert_true(rl_utf8_valid(c.cells[k], strlen(c.cells[k])));
        assert_true(rl_utf8_valid(c.desc, strlen(c.desc)));
        xmlFreeDoc(doc);
        rl_chart_free(&c);
    }
    cJSON_Delete(b);
}

/* A long name is cut in labels, and absurd or wrongly typed numbers never crash a chart. */
static void test_hostile_numbers(void **state)
{
    (void)state;
    char longname[5000];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *names[] = {longname, "b", "c"};
    cJSON *b = make_bundle(names, N_MODELS, false);
    cJSON *am = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "analysis"), "models");
    cJSON *op = cJSON_GetObjectItem(cJSON_GetArrayItem(am, 1), "operating_point");
    cJSON_ReplaceItemInObject(op, "decode_tok_s", cJSON_CreateNumber(1e300));
    cJSON_ReplaceItemInObject(op, "threads", cJSON_CreateNumber(1e18));
    cJSON *m2 = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "models"), 2);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(m2, "bytes_per_token"), "value",
                              cJSON_CreateString("huge"));
    cJSON_ReplaceItemInObject(m2, "runs", cJSON_CreateString("not an array"));
    cJSON *lc = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "analysis"), "long_context");
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(lc, 0), "depth", cJSON_CreateNumber(-5));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(lc, 1), "depth", cJSON_CreateNumber(1e15));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(b, "membw"), "runs", cJSON_CreateNumber(3));
    cJSON *fit = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "analysis"), "fit");
    cJSON_ReplaceItemInObject(fit, "bw_bytes_s", cJSON_CreateNumber(1e200));
    for (int i = 0; i < N_CHARTS; i++) {
        rl_chart c;
        rl_error e = {RL_OK, ""};
        rl_status st = CHARTS[i](b, &c, &e);
        assert_true(st == RL_OK || st == RL_NOTHING);
        if (st == RL_OK) {
            xmlDocPtr doc = parse(&c);
            assert_null(strstr(c.svg, longname)); /* cut: never 4999 x's in a row */
            xmlFreeDoc(doc);
        }
        rl_chart_free(&c);
    }
    cJSON_Delete(b);
}

/* More models than a chart draws: the first 48 are drawn and the rest counted. */
static void test_many_models(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    cJSON *models = cJSON_GetObjectItem(b, "models");
    cJSON *am = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "analysis"), "models");
    for (int i = N_MODELS; i < 60; i++) {
        char id[16];
        snprintf(id, sizeof id, "m%d", i + 1);
        cJSON *m = cJSON_Duplicate(cJSON_GetArrayItem(models, 0), true);
        cJSON *a = cJSON_Duplicate(cJSON_GetArrayItem(am, 0), true);
        cJSON_ReplaceItemInObject(m, "id", cJSON_CreateString(id));
        cJSON_ReplaceItemInObject(a, "id", cJSON_CreateString(id));
        cJSON_AddItemToArray(models, m);
        cJSON_AddItemToArray(am, a);
    }
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline(b, &c, &e), RL_OK);
    assert_int_equal(c.n_rows, 48 + 2);
    assert_non_null(strstr(c.desc, "12 more not drawn"));
    rl_chart_free(&c);
    assert_int_equal(rl_chart_threads(b, &c, &e), RL_OK);
    assert_int_equal(c.n_rows, 48 * 3 + 1);
    assert_non_null(strstr(c.desc, "12 more not drawn"));
    rl_chart_free(&c);
    assert_int_equal(rl_chart_composition(b, &c, &e), RL_OK);
    assert_int_equal(c.n_rows, 48 * 3);
    rl_chart_free(&c);
    cJSON_Delete(b);
}

static void test_deterministic(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    for (int i = 0; i < N_CHARTS; i++) {
        rl_chart c1, c2;
        rl_error e = {RL_OK, ""};
        assert_int_equal(CHARTS[i](b, &c1, &e), RL_OK);
        assert_int_equal(CHARTS[i](b, &c2, &e), RL_OK);
        assert_int_equal(c1.svg_len, c2.svg_len);
        assert_memory_equal(c1.svg, c2.svg, c1.svg_len);
        rl_chart_free(&c1);
        rl_chart_free(&c2);
    }
    cJSON_Delete(b);
}

static void test_nothing(void **state)
{
    (void)state;
    cJSON *empty = cJSON_CreateObject();
    for (int i = 0; i < N_CHARTS; i++) {
        rl_chart c;
        memset(&c, 0x5a, sizeof c);
        rl_error e = {RL_OK, ""};
        assert_int_equal(CHARTS[i](empty, &c, &e), RL_NOTHING);
        assert_null(c.svg);
        assert_null(c.cells);
        assert_int_equal(c.n_rows, 0);
        assert_true(strlen(e.msg) > 0);
        rl_chart_free(&c);
    }
    cJSON_Delete(empty);
    /* a run with --peak-bw (no membw runs) and no depth runs */
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(b, "membw"), "runs", cJSON_CreateArray());
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(b, "analysis"), "long_context",
                              cJSON_CreateArray());
    rl_chart c;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_membw(b, &c, &e), RL_NOTHING);
    assert_non_null(strstr(e.msg, "no membw runs"));
    assert_int_equal(rl_chart_long_context(b, &c, &e), RL_NOTHING);
    assert_non_null(strstr(e.msg, "no long-context runs"));
    cJSON_Delete(b);
}

static void test_png(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/test_chart_roofline.png", tmp ? tmp : "/tmp");
    remove(path);
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline_png(b, path, &e), RL_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char magic[8];
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    remove(path);
    cJSON *empty = cJSON_CreateObject();
    assert_int_equal(rl_chart_roofline_png(empty, path, &e), RL_NOTHING);
    assert_null(fopen(path, "rb"));
    cJSON_Delete(empty);
    cJSON_Delete(b);
}

/* ---- the roofline's layout: labels, leaders, legend, title ----------------------------------
 * The checks here do their own geometry (points sampled every 0.25 px), not chart_layout.c's,
 * so a broken intersection test there cannot also blind the test. */

/* Is (x, y) in box b (rotation included)? */
static bool in_box(const rl_chart_box *b, double x, double y)
{
    double dx = x - b->cx, dy = y - b->cy;
    double u = dx * cos(b->angle) + dy * sin(b->angle);
    double v = -dx * sin(b->angle) + dy * cos(b->angle);
    return fabs(u) <= b->hw && fabs(v) <= b->hh;
}

/* Does the segment (x0, y0)-(x1, y1) touch b, its points 0.25 px apart? */
static bool seg_touches(double x0, double y0, double x1, double y1, const rl_chart_box *b)
{
    double len = hypot(x1 - x0, y1 - y0);
    size_t n = (size_t)ceil(len / 0.25) + 1;
    for (size_t i = 0; i <= n; i++) {
        double t = (double)i / (double)n;
        if (in_box(b, x0 + t * (x1 - x0), y0 + t * (y1 - y0)))
            return true;
    }
    return false;
}

/* A corner of b: k 0..3. */
static void corner(const rl_chart_box *b, int k, double *x, double *y)
{
    double su = (k == 1 || k == 2) ? 1 : -1, sv = k >= 2 ? 1 : -1;
    double c = cos(b->angle), sn = sin(b->angle);
    *x = b->cx + su * b->hw * c - sv * b->hh * sn;
    *y = b->cy + su * b->hw * sn + sv * b->hh * c;
}

/* Do two boxes overlap? An edge of one touches the other, or one holds the other's centre. */
static bool boxes_touch(const rl_chart_box *a, const rl_chart_box *b)
{
    const rl_chart_box *ab[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        if (in_box(ab[1 - s], ab[s]->cx, ab[s]->cy))
            return true;
        for (int k = 0; k < 4; k++) {
            double x0, y0, x1, y1;
            corner(ab[s], k, &x0, &y0);
            corner(ab[s], (k + 1) % 4, &x1, &y1);
            if (seg_touches(x0, y0, x1, y1, ab[1 - s]))
                return true;
        }
    }
    return false;
}

/* The distance from (x, y) to an unrotated box. */
static double dist_to(const rl_chart_box *b, double x, double y)
{
    double dx = fmax(0, fabs(x - b->cx) - b->hw), dy = fmax(0, fabs(y - b->cy) - b->hh);
    return hypot(dx, dy);
}

static rl_chart_box rect_box(const rl_chart_rect *r)
{
    return (rl_chart_box){r->x + r->w / 2, r->y + r->h / 2, r->w / 2, r->h / 2, 0, 0};
}

/* A bundle of MODELS[0] copies at the given bytes and rates (long names, or ones as short as
 * most: "Qwen2.5-7B Q4_K_M"), with the fit and ceiling of make_bundle. */
static cJSON *crowd_bundle(size_t n, const double *bytes, const double *tps, bool short_names)
{
    cJSON *b = make_bundle(NULL, 1, false);
    cJSON *models = cJSON_GetObjectItem(b, "models");
    cJSON *an = cJSON_GetObjectItem(b, "analysis");
    cJSON *am = cJSON_GetObjectItem(an, "models");
    cJSON *m0 = cJSON_DetachItemFromArray(models, 0), *a0 = cJSON_DetachItemFromArray(am, 0);
    for (size_t i = 0; i < n; i++) {
        char id[32], name[64];
        snprintf(id, sizeof id, "c%zu", i);
        if (short_names)
            snprintf(name, sizeof name, "Qwen2.5-%zuB Q4_K_M.gguf", i);
        else
            snprintf(name, sizeof name, "crowd-model-%zu-instruct.gguf", i);
        cJSON *m = cJSON_Duplicate(m0, true), *a = cJSON_Duplicate(a0, true);
        cJSON_ReplaceItemInObject(m, "id", cJSON_CreateString(id));
        cJSON_ReplaceItemInObject(m, "name", cJSON_CreateString(name));
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(m, "bytes_per_token"), "value",
                                  cJSON_CreateNumber(bytes[i]));
        cJSON_ReplaceItemInObject(a, "id", cJSON_CreateString(id));
        cJSON_ReplaceItemInObject(a, "name", cJSON_CreateString(name));
        cJSON_ReplaceItemInObject(a, "bytes_per_token", cJSON_CreateNumber(bytes[i]));
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(a, "operating_point"), "decode_tok_s",
                                  cJSON_CreateNumber(tps[i]));
        cJSON_AddItemToArray(models, m);
        cJSON_AddItemToArray(am, a);
    }
    cJSON_Delete(m0);
    cJSON_Delete(a0);
    cJSON *fit = cJSON_GetObjectItem(an, "fit");
    cJSON_DeleteItemFromObject(fit, "available");
    cJSON_DeleteItemFromObject(fit, "reason");
    cJSON_AddTrueToObject(fit, "available");
    cJSON_AddNumberToObject(fit, "bw_bytes_s", FIT_BPS);
    return b;
}

/* The crowd: five models at nearly one point on the fit line, four at another, a compute-bound
 * one in the lower left corner (where the legend would go), the rest apart below the line: 15
 * in all. */
#define N_CROWD 15
static const double CROWD_BYTES[N_CROWD] = {800e6,  803e6,  806e6,  798e6,  801e6,
                                            1900e6, 1915e6, 1890e6, 1930e6, 525e6,
                                            300e6,  3000e6, 5000e6, 1200e6, 260e6};
static const double CROWD_TPS[N_CROWD] = {48,   47.9, 48.3, 47.6, 48.1, 21, 20.8, 21.3,
                                          20.6, 55,   90,   10,   6,    25, 3.2};

/* A calibration of Q4_K, Q6_K, F32 (and Q8_0) at 8 threads: every model of make_bundle gets a
 * two-roof prediction, bound by Q4_K (alpha, gamma: kernel roof 60 GB/s) or Q8_0 (beta: 90). */
static void add_calibration(cJSON *b)
{
    cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(b, "models"))
    {
        cJSON *g = cJSON_GetObjectItem(m, "gguf");
        double bytes =
            cJSON_GetObjectItem(cJSON_GetObjectItem(m, "bytes_per_token"), "value")->valuedouble;
        cJSON_AddTrueToObject(g, "sizes_known");
        cJSON_AddTrueToObject(g, "tied_embeddings");
        cJSON_AddNumberToObject(g, "streamed_bytes", bytes);
        cJSON_AddNumberToObject(g, "n_layer", 24);
    }
    cJSON *an = cJSON_GetObjectItem(b, "analysis"), *fit = cJSON_GetObjectItem(an, "fit");
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(an, "models")) cJSON_AddTrueToObject(m, "ok");
    cJSON_AddNumberToObject(fit, "n_points", cJSON_GetArraySize(cJSON_GetObjectItem(an, "models")));
    cJSON_AddStringToObject(fit, "bytes_convention", "streamed");
    static const char *const types[] = {"Q4_K", "Q6_K", "F32", "Q8_0"};
    static const double gbs[] = {20, 25, 40, 30}, roof[] = {60, 70, 80, 90};
    cJSON *cal = cJSON_AddObjectToObject(b, "calibration");
    cJSON *set = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(cal, "sets"), set);
    cJSON_AddNumberToObject(set, "threads", 8);
    cJSON *ts = cJSON_AddArrayToObject(set, "types");
    for (int i = 0; i < 4; i++) {
        char js[512];
        snprintf(js, sizeof js,
                 "{\"type\": \"%s\", \"compute_roof\": {\"GBs\": %g}, \"points\": [{\"role\": "
                 "\"stream\", \"bytes_per_token\": {\"value\": 1e8}, \"rate\": "
                 "{\"us_per_token\": %g}}]}",
                 types[i], roof[i], 1e8 / (gbs[i] * 1e3));
        cJSON_AddItemToArray(ts, cJSON_Parse(js));
    }
}

static size_t count_leaders(const rl_chart_roof_layout *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n_pts; i++)
        n += l->pins[i].leader;
    return n;
}

/* Every promise of the layout: each point label inside the plot, touching no line (nor an
 * axis), no marker, no other label (of a point or a line); a leader exactly when the label
 * sits more than RL_CHART_LEADER_GAP px beyond its marker's edge, from that edge to the box,
 * touching no other label and no marker but those on its point; the legend inside covers no
 * point, label or line. */
static void check_layout(const rl_chart_roof_layout *l)
{
    rl_chart_box all[RL_CHART_MAX_SERIES + RL_CHART_ROOF_LINES];
    size_t n_all = 0;
    const rl_chart_rect *p = &l->plot;
    for (size_t i = 0; i < l->n_pts; i++) {
        const rl_chart_pinned *pin = &l->pins[i];
        const rl_chart_box *b = &pin->box;
        assert_true(pin->clear);
        assert_true(b->angle == 0);
        assert_true(b->cx - b->hw > floor(p->x) + 0.5 && b->cx + b->hw < p->x + p->w);
        assert_true(b->cy - b->hh > p->y && b->cy + b->hh < floor(p->y + p->h) + 0.5);
        for (size_t k = 0; k < l->n_lines; k++)
            assert_false(
                seg_touches(l->lines[k].x0, l->lines[k].y0, l->lines[k].x1, l->lines[k].y1, b));
        for (size_t k = 0; k < l->n_marks; k++)
            assert_false(boxes_touch(b, &l->marks[k]));
        double d = dist_to(b, l->px[i], l->py[i]);
        assert_int_equal(pin->leader, d > 5 + RL_CHART_LEADER_GAP);
        if (pin->leader) {
            const rl_chart_seg *s = &pin->line;
            assert_true(fabs(hypot(s->x0 - l->px[i], s->y0 - l->py[i]) - 6.5) < 1e-6);
            assert_true(dist_to(b, s->x1, s->y1) < 1e-6);
            assert_true(fabs(hypot(s->x1 - l->px[i], s->y1 - l->py[i]) - d) < 1e-6);
            for (size_t k = 0; k < l->n_pts; k++)
                if (k != i)
                    assert_false(seg_touches(s->x0, s->y0, s->x1, s->y1, &l->pins[k].box));
            for (size_t k = 0; k < l->n_marks; k++)
                if (!in_box(&l->marks[k], l->px[i], l->py[i]))
                    assert_false(seg_touches(s->x0, s->y0, s->x1, s->y1, &l->marks[k]));
        }
        all[n_all++] = *b;
    }
    for (size_t k = 0; k < l->n_lines; k++)
        all[n_all++] = l->line_labels[k];
    for (size_t i = 0; i < n_all; i++)
        for (size_t k = 0; k < i; k++)
            assert_false(boxes_touch(&all[i], &all[k]));
    if (l->legend_inside) {
        rl_chart_box g = rect_box(&l->legend);
        for (size_t i = 0; i < n_all; i++)
            assert_false(boxes_touch(&g, &all[i]));
        for (size_t k = 0; k < l->n_marks; k++)
            assert_false(boxes_touch(&g, &l->marks[k]));
        for (size_t k = 0; k < l->n_lines; k++)
            assert_false(
                seg_touches(l->lines[k].x0, l->lines[k].y0, l->lines[k].x1, l->lines[k].y1, &g));
    } else {
        assert_true(l->legend.y >= p->y + p->h);
    }
}

static void assert_keys(const rl_chart_roof_layout *l, const char *const *want, size_t n)
{
    assert_int_equal(l->n_keys, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(l->keys[i], want[i]);
}

/* The crowd, with one roof and with two: every label free, several moved out with leaders. */
static void test_roofline_crowd(void **state)
{
    (void)state;
    for (int two = 0; two < 2; two++) {
        cJSON *b = crowd_bundle(N_CROWD, CROWD_BYTES, CROWD_TPS, false);
        if (two)
            add_calibration(b);
        rl_chart_roof_layout *l = malloc(sizeof *l);
        assert_non_null(l);
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
        assert_int_equal(l->n_pts, N_CROWD);
        assert_int_equal(l->n_marks, two ? 2 * N_CROWD : N_CROWD);
        assert_int_equal(l->n_lines, two ? 3 : 2); /* ceiling, fit (and the Q4_K roof) */
        check_layout(l);
        /* the clusters' labels cannot sit beside their points (nine of them, markers on top
         * of each other): moved out with leaders; the lone compute-bound point's is beside it */
        size_t leaders = count_leaders(l);
        assert_true(leaders >= 9);
        assert_true(leaders <= N_CROWD - 3);
        assert_false(l->pins[14].leader);
        /* the legend: not in the lower left corner, where the compute-bound point is (with one
         * roof in the lower right one; with two, where the kernel roof passes, below) */
        assert_int_equal(l->legend_inside, !two);
        if (l->legend_inside)
            assert_true(l->legend.x > l->px[14] + 100);
        static const char *const one_keys[] = {"measured (colour: the model)",
                                               "fit: effective bandwidth", "memory ceiling"};
        static const char *const two_keys[] = {"measured (colour: the model)",
                                               "two-roof prediction", "fit: effective bandwidth",
                                               "memory ceiling", "kernel roof (calibration)"};
        if (two)
            assert_keys(l, two_keys, 5);
        else
            assert_keys(l, one_keys, 3);
        /* the same bundle, the same layout */
        rl_chart_roof_layout *l2 = malloc(sizeof *l2);
        assert_non_null(l2);
        assert_int_equal(rl_chart_roofline_layout(b, false, l2, &e), RL_OK);
        assert_memory_equal(l->pins, l2->pins, sizeof l->pins);
        free(l2);
        free(l);
        cJSON_Delete(b);
    }
}

/* From 1 to 30 models along the band between the lines (a fixed pseudo-random scatter): every
 * label free each time. */
static void test_roofline_many_labels(void **state)
{
    (void)state;
    double bytes[30], tps[30];
    uint32_t seed = 12345;
    for (size_t i = 0; i < 30; i++) {
        seed = seed * 1664525u + 1013904223u;
        double u = (seed >> 8) / 16777216.0;
        seed = seed * 1664525u + 1013904223u;
        double v = (seed >> 8) / 16777216.0;
        bytes[i] = 250e6 * pow(30, u); /* 250 MB to 7.5 GB */
        tps[i] = FIT_BPS / bytes[i] * (0.75 + 0.6 * v);
    }
    static const size_t counts[] = {1, 2, 5, 12, 20, 30};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        cJSON *b = crowd_bundle(counts[c], bytes, tps, true);
        rl_chart_roof_layout *l = malloc(sizeof *l);
        assert_non_null(l);
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
        assert_int_equal(l->n_pts, counts[c]);
        check_layout(l);
        free(l);
        cJSON_Delete(b);
    }
}

/* The legend lists exactly what this chart draws. */
static void test_roofline_legend(void **state)
{
    (void)state;
    rl_chart_roof_layout *l = malloc(sizeof *l);
    assert_non_null(l);
    rl_error e = {RL_OK, ""};
    cJSON *b = make_bundle(NULL, N_MODELS, false); /* gamma is MoE: the shapes are explained */
    assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
    static const char *const moe[] = {"measured (colour: the model)", "dense", "MoE",
                                      "fit: effective bandwidth", "memory ceiling"};
    assert_keys(l, moe, 5);
    check_layout(l);
    add_calibration(b);
    assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
    static const char *const two[] = {"measured (colour: the model)",
                                      "two-roof prediction",
                                      "dense",
                                      "MoE",
                                      "fit: effective bandwidth",
                                      "memory ceiling",
                                      "kernel roof (calibration)"};
    assert_keys(l, two, 7);
    assert_int_equal(l->n_lines, 4); /* the ceiling, the fit, the Q4_K and Q8_0 roofs */
    check_layout(l);
    cJSON_Delete(b);
    /* one model, no ceiling: no line, nothing but the point to explain */
    b = make_bundle(NULL, 1, false);
    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(b, "analysis"), "ceiling");
    assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
    static const char *const alone[] = {"measured (colour: the model)"};
    assert_keys(l, alone, 1);
    assert_int_equal(l->n_lines, 0);
    check_layout(l);
    cJSON_Delete(b);
    free(l);
}

/* The geometry of chart_layout.c at its edges. */
static void test_chart_geometry(void **state)
{
    (void)state;
    rl_chart_box b = rl_chart_box_rect(10, 10, 20, 10); /* x 10..30, y 10..20 */
    rl_chart_seg through = {0, 15, 40, 15, RL_CHART_SEG_LINE};
    rl_chart_seg above = {0, 9, 40, 9, RL_CHART_SEG_LINE};
    rl_chart_seg inside = {12, 12, 14, 14, RL_CHART_SEG_LINE};
    rl_chart_seg short_of = {0, 15, 9.5, 15, RL_CHART_SEG_LINE};
    rl_chart_seg diag = {0, 0, 40, 40, RL_CHART_SEG_LINE};
    rl_chart_seg corner_miss = {29, 0, 40, 11,
                                RL_CHART_SEG_LINE}; /* x - y = 29: misses (30, 10)+ */
    rl_chart_seg vertical = {20, 0, 20, 9.9, RL_CHART_SEG_LINE};
    assert_true(rl_chart_seg_hits_box(&through, &b));
    assert_false(rl_chart_seg_hits_box(&above, &b));
    assert_true(rl_chart_seg_hits_box(&inside, &b));
    assert_false(rl_chart_seg_hits_box(&short_of, &b));
    assert_true(rl_chart_seg_hits_box(&diag, &b));
    assert_false(rl_chart_seg_hits_box(&corner_miss, &b));
    assert_false(rl_chart_seg_hits_box(&vertical, &b));
    vertical.y1 = 10;
    assert_true(rl_chart_seg_hits_box(&vertical, &b)); /* touching counts */
    /* rotated 45 degrees about (20, 15): its corners reach 20 +- 7.5 sqrt 2 ... */
    rl_chart_box r = {20, 15, 10, 1, M_PI / 4, 0};
    rl_chart_seg across = {20, 0, 20, 30, RL_CHART_SEG_LINE};
    rl_chart_seg along_far = {0, 15, 40, 55, RL_CHART_SEG_LINE}; /* parallel, 14 px off */
    assert_true(rl_chart_seg_hits_box(&across, &r));
    assert_false(rl_chart_seg_hits_box(&along_far, &r));
    /* crossings: strict, touching ends are not */
    rl_chart_seg a = {0, 0, 10, 10, RL_CHART_SEG_LEADER}, c = {0, 10, 10, 0, RL_CHART_SEG_LINE};
    rl_chart_seg t = {10, 10, 20, 0, RL_CHART_SEG_LINE}, f = {0, 5, 4, 9, RL_CHART_SEG_LINE};
    rl_chart_seg g = {6, 0, 6, 4, RL_CHART_SEG_LINE}; /* its line crosses a's, the segment not */
    assert_true(rl_chart_segs_cross(&a, &c));
    assert_false(rl_chart_segs_cross(&a, &t));
    assert_false(rl_chart_segs_cross(&a, &f));
    assert_false(rl_chart_segs_cross(&a, &g));
    assert_false(rl_chart_segs_cross(&g, &a));
    /* clipping to a rect; the nearest point of a box */
    rl_chart_rect rc = {10, 10, 20, 10};
    rl_chart_seg s = through;
    assert_true(rl_chart_seg_clip(&s, &rc));
    assert_close(s.x0, 10);
    assert_close(s.x1, 30);
    assert_close(s.y0, 15);
    s = above;
    assert_false(rl_chart_seg_clip(&s, &rc));
    double qx, qy;
    assert_close(rl_chart_box_dist(&b, 40, 25, &qx, &qy), hypot(10, 5));
    assert_close(qx, 30);
    assert_close(qy, 20);
    assert_true(rl_chart_box_dist(&b, 15, 15, &qx, &qy) == 0);
}

/* The PNG's title: the machine from the bundle, cleaned; what is missing left out. */
static void test_roofline_title(void **state)
{
    (void)state;
    cJSON *b = make_bundle(NULL, N_MODELS, false);
    char head[320], sub[1536];
    rl_chart_roof_title(b, head, sizeof head, sub, sizeof sub); /* nothing known */
    assert_string_equal(head, "Decode roofline");
    assert_string_equal(sub, "");
    cJSON *env = cJSON_AddObjectToObject(b, "environment");
    cJSON_AddStringToObject(env, "os", "Linux");
    cJSON_AddStringToObject(env, "arch", "x86_64");
    cJSON_AddStringToObject(env, "cpu", "AMD EPYC 7B13 64-Core Processor");
    cJSON_AddStringToObject(env, "product_name", "Google Compute Engine");
    cJSON *lc = cJSON_AddObjectToObject(b, "llama_cpp");
    cJSON_AddStringToObject(lc, "build_commit", "abc1234");
    cJSON_AddNumberToObject(lc, "build_number", 4567);
    rl_chart_roof_title(b, head, sizeof head, sub, sizeof sub);
    assert_string_equal(head, "Decode roofline \xC2\xB7 AMD EPYC 7B13 64-Core Processor");
    assert_string_equal(sub, "Google Compute Engine \xC2\xB7 Linux x86_64 \xC2\xB7 llama.cpp "
                             "abc1234 (build 4567)");
    cJSON *src = cJSON_AddObjectToObject(b, "source");
    cJSON_AddStringToObject(src, "name", "lab box 3");
    rl_chart_roof_title(b, head, sizeof head, sub, sizeof sub);
    assert_string_equal(head, "Decode roofline \xC2\xB7 lab box 3");
    assert_string_equal(sub, "AMD EPYC 7B13 64-Core Processor \xC2\xB7 Google Compute Engine "
                             "\xC2\xB7 Linux x86_64 \xC2\xB7 llama.cpp abc1234 (build 4567)");
    /* as drawn on the PNG's canvas (the SVG has none, its plot starts higher) */
    rl_chart_roof_layout *l = malloc(sizeof *l);
    assert_non_null(l);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_chart_roofline_layout(b, true, l, &e), RL_OK);
    assert_string_equal(l->head, head);
    assert_string_equal(l->sub, sub);
    double png_top = l->plot.y, png_h = l->h;
    check_layout(l);
    assert_int_equal(rl_chart_roofline_layout(b, false, l, &e), RL_OK);
    assert_string_equal(l->head, "");
    assert_string_equal(l->sub, "");
    assert_close(png_top - l->plot.y, 40);
    assert_close(png_h - l->h, 40);
    /* no build number; control characters, runs of blanks, a bad byte; a name too long */
    cJSON_DeleteItemFromObject(lc, "build_number");
    cJSON_ReplaceItemInObject(src, "name", cJSON_CreateString("  lab\x1b[31m\tbox\n\n3 \x7f"));
    cJSON_ReplaceItemInObject(env, "product_name",
                              cJSON_CreateString("a\xC2\x85"
                                                 "b\xC2\xA0"
                                                 "c\xff"));
    char longcpu[200];
    memset(longcpu, 'W', sizeof longcpu - 1);
    longcpu[sizeof longcpu - 1] = '\0';
    cJSON_ReplaceItemInObject(env, "cpu", cJSON_CreateString(longcpu));
    rl_chart_roof_title(b, head, sizeof head, sub, sizeof sub);
    assert_string_equal(head, "Decode roofline \xC2\xB7 lab [31m box 3");
    char want[512];
    snprintf(want, sizeof want,
             "%.60s\xE2\x80\xA6 \xC2\xB7 a b\xC2\xA0"
             "c\xEF\xBF\xBD \xC2\xB7 Linux x86_64 "
             "\xC2\xB7 llama.cpp abc1234",
             longcpu);
    assert_string_equal(sub, want);
    /* drawn: cut to the width, whole characters, ending in the ellipsis */
    assert_int_equal(rl_chart_roofline_layout(b, true, l, &e), RL_OK);
    size_t n = strlen(l->sub);
    assert_true(n > 3 && n < strlen(sub));
    assert_memory_equal(l->sub + n - 3, "\xE2\x80\xA6", 3);
    assert_memory_equal(l->sub, sub, n - 3);
    assert_true(rl_utf8_valid(l->sub, n));
    for (const char *q = l->head; *q; q++)
        assert_true((unsigned char)*q >= 0x20 && *q != 0x7f);
    free(l);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roofline),
        cmocka_unit_test(test_roofline_one_model),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_long_context),
        cmocka_unit_test(test_composition),
        cmocka_unit_test(test_membw),
        cmocka_unit_test(test_client_ecdf_filters),
        cmocka_unit_test(test_hostile_names),
        cmocka_unit_test(test_hostile_numbers),
        cmocka_unit_test(test_many_models),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_nothing),
        cmocka_unit_test(test_png),
        cmocka_unit_test(test_roofline_two_models),
        cmocka_unit_test(test_sane_and_nice),
        cmocka_unit_test(test_roofline_crowd),
        cmocka_unit_test(test_roofline_many_labels),
        cmocka_unit_test(test_roofline_legend),
        cmocka_unit_test(test_chart_geometry),
        cmocka_unit_test(test_roofline_title),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    cairo_debug_reset_static_data(); /* cairo's font caches, for the leak checker */
    return rc;
}
