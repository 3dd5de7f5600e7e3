/* SPDX-License-Identifier: MIT */
/* test_html.c: the HTML report, parsed back with libxml2's HTML parser.
 *   - every chart figure: its inlined SVG parses as XML on its own, keeps its chart text as
 *     <text>, and its data table equals the chart's cols/cells exactly; every number in a table
 *     is a number of the bundle (to the printed precision); the roofline table holds each
 *     measured model's operating point;
 *   - no id appears twice in a page (cairo-like ids repeat in every chart: "surface1", "clip1");
 *   - the embedded JSON is ASCII with no "</" and no "<!--", parses back to the bundle exactly
 *     (cJSON_Compare), and rl_bundle_load reads the report into the same tree, which renders to
 *     the same bytes;
 *   - the hostile bundle (tests/fixtures/report/hostile.json: script tags, attribute breakouts,
 *     "]]>", "</script>", "<!--<script>", escape sequences, bytes that are not UTF-8): one
 *     <script> element in the page (the data block), no <img>, no on* attribute, no <style>
 *     outside the head, the strings found as text, the page valid UTF-8;
 *   - the pieces: safe text, the script-safe JSON, an SVG with active content and references.
 * Fixtures: RL_SRC/tests/fixtures/report; scratch files under RL_TMP. Everything is freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "analyse/analysis_bundle.h"
#include "analyse/predict_expect.h"
#include "bundle/bundle.h"
#include "render/chart/chart.h"
#include "render/html_doc.h"
#include "render/html_facts.h"
#include "render/html_svg.h"
#include "render/report.h"
#include "render/report_text.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"

static cJSON *fixture(const char *name)
{
    const char *src = getenv("RL_SRC");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/report/%s", src, name);
    cJSON *b = NULL;
    rl_error err;
    rl_status st = rl_bundle_load(path, &b, &err);
    if (st != RL_OK)
        fail_msg("%s: %s", path, err.msg);
    return b;
}

static char *render_x(const cJSON *b, const rl_report_extra *x, size_t *len)
{
    char *page = NULL;
    rl_error err;
    rl_status st = rl_report_html(b, x, &page, len, &err);
    if (st != RL_OK)
        fail_msg("render: %s", err.msg);
    assert_int_equal(strlen(page), *len);
    return page;
}

/* The page as the commands make it: the expectation rows computed first (cmd/session.c). */
static char *render(const cJSON *b, size_t *len)
{
    rl_pred_expect x;
    rl_error err;
    assert_int_equal(rl_pred_expect_build(b, &x, &err), RL_OK);
    rl_report_extra extra = {.expect = &x};
    char *page = render_x(b, &extra, len);
    rl_pred_expect_free(&x);
    return page;
}

static htmlDocPtr parse_page(const char *page, size_t len)
{
    htmlDocPtr d = htmlReadMemory(page, (int)len, NULL, "UTF-8",
                                  HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
    assert_non_null(d);
    return d;
}

/* ---- walking the DOM ------------------------------------------------------------------- */

typedef void (*visit_fn)(xmlNodePtr n, void *ctx);

static void walk(xmlNodePtr n, visit_fn f, void *ctx)
{
    for (; n; n = n->next) {
        if (n->type == XML_ELEMENT_NODE)
            f(n, ctx);
        walk(n->children, f, ctx);
    }
}

static bool named(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && xmlStrcasecmp(n->name, BAD_CAST name) == 0;
}

typedef struct {
    const char *name;
    xmlNodePtr found[2048];
    size_t n;
} find_ctx;

static void find_visit(xmlNodePtr n, void *ctx)
{
    find_ctx *f = ctx;
    if (named(n, f->name) && f->n < 2048)
        f->found[f->n++] = n;
}

static size_t find_all(xmlNodePtr root, const char *name, find_ctx *f)
{
    f->name = name;
    f->n = 0;
    walk(root, find_visit, f);
    return f->n;
}

static xmlNodePtr first(xmlNodePtr root, const char *name)
{
    find_ctx f;
    return find_all(root, name, &f) ? f.found[0] : NULL;
}

/* ---- ids ------------------------------------------------------------------------------- */

typedef struct {
    char *ids[4096];
    size_t n;
    int dups;
} id_ctx;

static void id_visit(xmlNodePtr n, void *ctx)
{
    id_ctx *c = ctx;
    xmlChar *id = xmlGetProp(n, BAD_CAST "id");
    if (!id)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->ids[i], (const char *)id) == 0) {
            print_message("duplicate id: %s\n", (const char *)id);
            c->dups++;
        }
    if (c->n < 4096)
        c->ids[c->n++] = strdup((const char *)id);
    xmlFree(id);
}

static void assert_unique_ids(htmlDocPtr d)
{
    id_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    walk(xmlDocGetRootElement(d), id_visit, c);
    int dups = c->dups;
    size_t n = c->n;
    for (size_t i = 0; i < c->n; i++)
        free(c->ids[i]);
    free(c);
    assert_int_equal(dups, 0);
    assert_true(n > 20);
}

/* ---- the bundle's numbers -------------------------------------------------------------- */

typedef struct {
    double *v;
    size_t n, cap;
} nums;

static void collect_numbers(const cJSON *it, nums *ns)
{
    for (; it; it = it->next) {
        if (cJSON_IsNumber(it)) {
            if (ns->n == ns->cap) {
                ns->cap = ns->cap ? ns->cap * 2 : 1024;
                ns->v = realloc(ns->v, ns->cap * sizeof *ns->v);
                assert_non_null(ns->v);
            }
            ns->v[ns->n++] = it->valuedouble;
        }
        collect_numbers(it->child, ns);
    }
}

static bool parse_number(const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return false;
    *v = strtod_l(s, &end, rl_c_locale());
    return end != s && *end == '\0' && isfinite(*v);
}

/* A number printed with at least 6 significant digits equals one of the bundle's. */
static bool in_bundle(const nums *ns, double x)
{
    for (size_t i = 0; i < ns->n; i++) {
        double y = ns->v[i];
        if (x == y || fabs(x - y) <= 5e-6 * fmax(fabs(x), fabs(y)))
            return true;
    }
    return false;
}

static char *text_of(xmlNodePtr n)
{
    xmlChar *t = xmlNodeGetContent(n);
    char *s = strdup(t ? (const char *)t : "");
    xmlFree(t);
    return s;
}

/* ---- charts ---------------------------------------------------------------------------- */

typedef rl_status (*chart_fn)(const cJSON *, rl_chart *, rl_error *);

static xmlNodePtr figure_by_id(htmlDocPtr d, const char *id)
{
    find_ctx f;
    find_all(xmlDocGetRootElement(d), "figure", &f);
    for (size_t i = 0; i < f.n; i++) {
        xmlChar *fid = xmlGetProp(f.found[i], BAD_CAST "id");
        bool hit = fid && strcmp((const char *)fid, id) == 0;
        xmlFree(fid);
        if (hit)
            return f.found[i];
    }
    return NULL;
}

/* The <svg ...>...</svg> of the figure, cut from the page text and parsed as XML. */
static void svg_parses_alone(const char *page, const char *prefix)
{
    char needle[128];
    snprintf(needle, sizeof needle, "aria-labelledby=\"%stitle", prefix);
    const char *at = strstr(page, needle);
    assert_non_null(at);
    const char *start = at;
    while (start > page && strncmp(start, "<svg", 4) != 0)
        start--;
    const char *end = strstr(at, "</svg>");
    assert_non_null(end);
    end += 6;
    xmlDocPtr sd = xmlReadMemory(start, (int)(end - start), "inline.svg", "UTF-8",
                                 XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    assert_non_null(sd);
    xmlNodePtr root = xmlDocGetRootElement(sd);
    assert_string_equal((const char *)root->name, "svg");
    assert_non_null(root->ns);
    assert_string_equal((const char *)root->ns->href, "http://www.w3.org/2000/svg");
    assert_non_null(first(root, "text")); /* chart text is real <text> */
    xmlFreeDoc(sd);
}

static void check_charts(const cJSON *b, const char *page, htmlDocPtr d, size_t *n_charts)
{
    static const chart_fn fns[] = {rl_chart_roofline, rl_chart_threads, rl_chart_long_context,
                                   rl_chart_composition, rl_chart_membw};
    nums ns = {0};
    collect_numbers(b, &ns);
    *n_charts = 0;
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        rl_chart c;
        rl_error err;
        memset(&c, 0, sizeof c);
        rl_status st = fns[k](b, &c, &err);
        if (st == RL_NOTHING)
            continue;
        assert_int_equal(st, RL_OK);
        (*n_charts)++;
        char prefix[96], fid[128];
        rl_html_chart_prefix(c.id, prefix, sizeof prefix);
        snprintf(fid, sizeof fid, "fig-%s", c.id);
        xmlNodePtr fig = figure_by_id(d, fid);
        if (!fig)
            fail_msg("no figure %s", fid);
        assert_non_null(first(fig, "figcaption"));
        xmlNodePtr svg = first(fig, "svg");
        assert_non_null(svg);
        svg_parses_alone(page, prefix);
        /* the data table: headers and cells exactly as the chart gave them */
        xmlNodePtr table = first(first(fig, "details"), "table");
        assert_non_null(table);
        find_ctx th, td;
        assert_int_equal(find_all(table, "th", &th), c.n_cols);
        for (size_t j = 0; j < c.n_cols; j++) {
            char *t = text_of(th.found[j]);
            char *want = rl_html_safe_text(c.cols[j]);
            assert_string_equal(t, want);
            free(want);
            free(t);
        }
        assert_int_equal(find_all(table, "td", &td), c.n_rows * c.n_cols);
        for (size_t i = 0; i < td.n; i++) {
            char *t = text_of(td.found[i]);
            char *want = rl_html_safe_text(c.cells[i]); /* controls shown as \e, \x07 */
            assert_string_equal(t, want);
            free(want);
            double x;
            /* a share column is derived (100 x bytes / the model's total; test_chart checks
             * it against the bytes); every other number is the bundle's own */
            bool derived = strncmp(c.cols[i % c.n_cols], "share", 5) == 0;
            if (!derived && parse_number(t, &x) && !in_bundle(&ns, x))
                fail_msg("chart %s: table number %s is not in the bundle", c.id, t);
            free(t);
        }
        if (strcmp(c.id, "roofline") == 0) {
            /* every measured model's operating point is a row */
            const cJSON *m;
            cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(
                                      cJSON_GetObjectItemCaseSensitive(b, "analysis"), "models"))
            {
                const cJSON *ok = cJSON_GetObjectItemCaseSensitive(m, "ok");
                if (!cJSON_IsTrue(ok))
                    continue;
                double want =
                    cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(m, "operating_point"), "decode_tok_s")
                        ->valuedouble;
                bool found = false;
                for (size_t i = 0; i < c.n_rows * c.n_cols; i++) {
                    double x;
                    if (parse_number(c.cells[i], &x) && fabs(x - want) <= 5e-6 * want)
                        found = true;
                }
                assert_true(found);
            }
        }
        rl_chart_free(&c);
    }
    free(ns.v);
}

/* ---- the embedded bundle --------------------------------------------------------------- */

static char *embedded_json(htmlDocPtr d)
{
    find_ctx f;
    find_all(xmlDocGetRootElement(d), "script", &f);
    assert_int_equal(f.n, 1);
    xmlChar *id = xmlGetProp(f.found[0], BAD_CAST "id");
    xmlChar *type = xmlGetProp(f.found[0], BAD_CAST "type");
    assert_string_equal((const char *)id, "bundle");
    assert_string_equal((const char *)type, "application/json");
    xmlFree(id);
    xmlFree(type);
    return text_of(f.found[0]);
}

static void check_roundtrip(const cJSON *b, const char *page, size_t len, htmlDocPtr d,
                            const char *name)
{
    char *json = embedded_json(d);
    for (const char *p = json; *p; p++)
        assert_true((unsigned char)*p < 0x80);
    assert_null(strstr(json, "</"));
    assert_null(strstr(json, "<!--"));
    cJSON *back = cJSON_Parse(json);
    assert_non_null(back);
    cJSON *want = cJSON_Duplicate(b, 1);
    assert_true(rl_json_expand(want)); /* a loaded bundle's samples are compact (rl_json.h) */
    assert_true(rl_html_repair_json(want));
    assert_true(cJSON_Compare(back, want, true));
    cJSON_Delete(back);
    cJSON_Delete(want);
    free(json);

    /* the report is a bundle too: read back, it renders to the same bytes */
    const char *tmp = getenv("RL_TMP");
    assert_non_null(tmp);
    char path[4096];
    snprintf(path, sizeof path, "%s/test_html.%d.%s.html", tmp, (int)getpid(), name);
    rl_error err;
    assert_int_equal(rl_write_file(path, page, len, &err), RL_OK);
    cJSON *again = NULL;
    if (rl_bundle_load(path, &again, &err) != RL_OK)
        fail_msg("%s", err.msg);
    size_t len2;
    char *page2 = render(again, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(page2, page, len);
    free(page2);
    cJSON_Delete(again);
    unlink(path);
}

static void check_page(const char *fixture_name, size_t min_charts)
{
    cJSON *b = fixture(fixture_name);
    size_t len;
    char *page = render(b, &len);
    assert_true(rl_utf8_valid(page, len));
    htmlDocPtr d = parse_page(page, len);
    size_t n_charts;
    check_charts(b, page, d, &n_charts);
    assert_true(n_charts >= min_charts);
    assert_unique_ids(d);
    check_roundtrip(b, page, len, d, fixture_name);
    /* deterministic */
    size_t len2;
    char *page2 = render(b, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(page, page2, len);
    /* nothing of the source tree leaks in */
    assert_null(strstr(page, getenv("RL_SRC")));
    free(page2);
    xmlFreeDoc(d);
    free(page);
    cJSON_Delete(b);
}

static void test_page_memory_bound(void **state)
{
    (void)state;
    check_page("memory-bound.json", 4);
}

static void test_page_one_model(void **state)
{
    (void)state;
    check_page("one-model.json", 1);
}

/* ---- hostile strings ------------------------------------------------------------------- */

typedef struct {
    int on_attrs, imgs, styles_in_body, scripts;
    bool in_body;
} hostile_ctx;

static void hostile_visit(xmlNodePtr n, void *ctx)
{
    hostile_ctx *h = ctx;
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (xmlStrncasecmp(a->name, BAD_CAST "on", 2) == 0)
            h->on_attrs++;
    if (named(n, "img"))
        h->imgs++;
    if (named(n, "script"))
        h->scripts++;
    if (named(n, "style")) {
        xmlNodePtr p = n->parent;
        while (p && !named(p, "head"))
            p = p->parent;
        if (!p)
            h->styles_in_body++;
    }
}

static bool text_contains(xmlNodePtr root, const char *needle)
{
    xmlChar *t = xmlNodeGetContent(root);
    bool hit = t && strstr((const char *)t, needle);
    xmlFree(t);
    return hit;
}

static void test_hostile(void **state)
{
    (void)state;
    cJSON *b = fixture("hostile.json");
    size_t len;
    char *page = render(b, &len);
    assert_true(rl_utf8_valid(page, len));
    htmlDocPtr d = parse_page(page, len);
    hostile_ctx h = {0};
    walk(xmlDocGetRootElement(d), hostile_visit, &h);
    assert_int_equal(h.scripts, 1);
    assert_int_equal(h.imgs, 0);
    assert_int_equal(h.on_attrs, 0);
    assert_int_equal(h.styles_in_body, 0);
    /* the strings are there, as text, outside the embedded bundle */
    xmlNodePtr main = first(xmlDocGetRootElement(d), "main");
    assert_non_null(main);
    assert_true(text_contains(main, "<script>alert(1)</script>"));
    assert_true(text_contains(main, "\"><img src=x onerror=alert(1)>"));
    assert_true(text_contains(main, "]]>"));
    assert_true(text_contains(main, "</script><style>*{display:none}</style>"));
    assert_true(text_contains(main, "<!--<script>"));
    assert_true(text_contains(main, "\xEF\xBF\xBD\xEF\xBF\xBD"
                                    "bad\xEF\xBF\xBD"));
    assert_true(text_contains(main, "\\e[31mred\\e[0m")); /* escape sequences made visible */
    assert_true(text_contains(main, "<b><script>alert(1)</script></b>")); /* a key */
    xmlNodePtr header = first(xmlDocGetRootElement(d), "header");
    assert_true(text_contains(header, "</p><script>alert(4)</script>"));
    /* the title and headline hold no markup either */
    assert_unique_ids(d);
    check_roundtrip(b, page, len, d, "hostile");
    size_t n_charts;
    check_charts(b, page, d, &n_charts);
    xmlFreeDoc(d);
    free(page);
    cJSON_Delete(b);
}

/* ---- pieces ---------------------------------------------------------------------------- */

static void test_safe_text(void **state)
{
    (void)state;
    char *s = rl_html_safe_text("a\x1b[1m\x07\tb\n\xC2\x9B"
                                "c\xFF\xEF\xBF\xBE.");
    assert_string_equal(s, "a\\e[1m\\x07\tb\n\\u009bc\xEF\xBF\xBD\xEF\xBF\xBD.");
    free(s);
    /* the ends of the ranges: U+FDD0 and U+FDEF are noncharacters (mutant html-nonchar), U+FDCF
     * and U+FDF0 are not; U+009F is the last C1 control (mutant html-c1), U+00A0 is text */
    s = rl_html_safe_text("\xEF\xB7\x90|\xEF\xB7\xAF|\xEF\xB7\x8F|\xEF\xB7\xB0|\xC2\x9F|\xC2\xA0|");
    assert_string_equal(s, "\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xB7\x8F|\xEF\xB7\xB0|\\u009f|\xC2\xA0|");
    free(s);
    s = rl_html_safe_text(NULL);
    assert_string_equal(s, "");
    free(s);
}

static void test_json_for_script(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "a", "</script><!--<script> caf\xC3\xA9 \xF0\x9F\x98\x80");
    char *t = rl_html_json_for_script(o);
    assert_non_null(t);
    assert_non_null(strstr(t, "<\\/script>"));
    assert_non_null(strstr(t, "\\u003c!--<script>"));
    assert_non_null(strstr(t, "caf\\u00e9 \\ud83d\\ude00"));
    assert_null(strstr(t, "</"));
    cJSON *back = cJSON_Parse(t);
    assert_true(cJSON_Compare(back, o, true));
    cJSON_Delete(back);
    cJSON_Delete(o);
    free(t);
}

/* A deferred embed (h.defer): the page holds the marker until rl_html_emit streams the JSON
 * in its place, members down to depth 3 one by one: the text parses back to the same tree
 * (nested 5 deep, a "</script>" and non-ASCII in it), nothing but ASCII and no "</" inside
 * the script; a page with the marker twice (a second deferred script) is refused. */
static void test_deferred_embed(void **state)
{
    (void)state;
    cJSON *o = cJSON_Parse("{\"a\": {\"b\": {\"c\": {\"d\": {\"e\": [1, 2.5, \"</script>\"]}}}},"
                           " \"k\\\"ey\": \"caf\xC3\xA9 <!--\", \"n\": [], \"o\": {}}");
    assert_non_null(o);
    rl_html h = {.doc = xmlNewDoc(BAD_CAST "1.0"), .defer = true};
    xmlNodePtr body = xmlNewDocNode(h.doc, NULL, BAD_CAST "body", NULL);
    xmlDocSetRootElement(h.doc, body);
    xmlNodePtr script = rl_html_el(&h, body, "script", NULL);
    rl_html_attr(&h, script, "id", "x");
    rl_error err;
    assert_int_equal(rl_html_embed_json(&h, script, o, "test", &err), RL_OK);
    assert_ptr_equal(h.deferred, o);
    char *out;
    size_t len;
    assert_int_equal(rl_html_to_text(&h, &out, &len, &err), RL_OK);
    assert_int_equal(strlen(out), len);
    assert_null(strstr(out, RL_HTML_EMBED_MARK));
    char *start = strstr(out, "<script id=\"x\">");
    assert_non_null(start);
    start += strlen("<script id=\"x\">");
    char *end = strstr(start, "</script>");
    assert_non_null(end);
    *end = '\0';
    for (const char *c = start; *c; c++)
        assert_true((unsigned char)*c < 0x80);
    assert_null(strstr(start, "</"));
    cJSON *back = cJSON_Parse(start);
    assert_true(cJSON_Compare(back, o, true));
    cJSON_Delete(back);
    free(out);
    /* a second deferred script: the marker is there twice */
    xmlNodePtr two = rl_html_el(&h, body, "script", NULL);
    assert_int_equal(rl_html_embed_json(&h, two, o, "test", &err), RL_OK);
    assert_int_equal(rl_html_to_text(&h, &out, &len, &err), RL_EINTERNAL);
    assert_null(out);
    xmlFreeDoc(h.doc);
    cJSON_Delete(o);
}

static void test_svg_import(void **state)
{
    (void)state;
    static const char svg[] =
        "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
        "xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"100pt\" height=\"50pt\" "
        "viewBox=\"0 0 100 50\" onload=\"alert(1)\"><title>old</title>"
        "<style>#a { fill: url(#g); } .x { stroke: #E69F00 }</style>"
        "<defs><linearGradient id=\"g\"/><symbol id=\"a\"><path d=\"M0 0\"/></symbol></defs>"
        "<!-- comment --><script>alert(2)</script><foreignObject><p>x</p></foreignObject>"
        "<g id=\"surface1\" clip-path=\"url(#a)\" style=\"fill:url( '#g')\">"
        "<use xlink:href=\"#a\"/><use href=\"#a\"/><a xlink:href=\"javascript:alert(3)\">"
        "<text>GB/s</text></a><image href=\"http://example.com/x.png\"/></g></svg>";
    rl_chart c = {.id = "road map",
                  .title = "T <b>",
                  .desc = "D",
                  .svg = (char *)svg,
                  .svg_len = sizeof svg - 1};
    char *cols[] = {"x (GB/s)", "name"};
    char *cells[] = {"1.5", "<i>"};
    c.cols = cols;
    c.cells = cells;
    c.n_cols = 2;
    c.n_rows = 1;
    rl_html h = {.doc = xmlNewDoc(BAD_CAST "1.0")};
    xmlNodePtr body = xmlNewDocNode(h.doc, NULL, BAD_CAST "body", NULL);
    xmlDocSetRootElement(h.doc, body);
    xmlNodePtr fig;
    rl_error err;
    assert_int_equal(rl_html_add_chart(&h, body, &c, &fig, &err), RL_OK);
    char *out;
    size_t len;
    assert_int_equal(rl_html_serialize(h.doc, &out, &len, &err), RL_OK);
    assert_non_null(strstr(out, "id=\"fig-road-map\""));
    assert_non_null(strstr(out, "<title id=\"c-road-map-title\">T &lt;b&gt;</title>"));
    assert_non_null(strstr(out, "#c-road-map-a { fill: url(#c-road-map-g); }"));
    assert_non_null(strstr(out, "stroke: #E69F00"));
    assert_non_null(strstr(out, "id=\"c-road-map-surface1\" clip-path=\"url(#c-road-map-a)\""));
    assert_non_null(strstr(out, "fill:url( '#c-road-map-g')"));
    assert_non_null(strstr(out, "xlink:href=\"#c-road-map-a\""));
    assert_non_null(strstr(out, "<use href=\"#c-road-map-a\">"));
    assert_null(strstr(out, "onload"));
    assert_null(strstr(out, "alert"));
    assert_null(strstr(out, "<script"));
    assert_null(strstr(out, "foreignObject"));
    assert_null(strstr(out, "comment"));
    assert_null(strstr(out, "example.com"));
    assert_null(strstr(out, ">old<"));
    assert_null(strstr(out, "width=\"100pt\""));
    assert_non_null(strstr(out, "<td>&lt;i&gt;</td>"));
    assert_non_null(strstr(out, "<td class=\"num\">1.5</td>"));
    free(out);
    xmlFreeDoc(h.doc);

    /* a DOCTYPE (entities) or something that is not SVG is refused */
    static const char dtd[] = "<!DOCTYPE svg [<!ENTITY e \"x\">]><svg "
                              "xmlns=\"http://www.w3.org/2000/svg\">&e;</svg>";
    c.svg = (char *)dtd;
    c.svg_len = sizeof dtd - 1;
    h.doc = xmlNewDoc(BAD_CAST "1.0");
    body = xmlNewDocNode(h.doc, NULL, BAD_CAST "body", NULL);
    xmlDocSetRootElement(h.doc, body);
    assert_int_equal(rl_html_add_chart(&h, body, &c, &fig, &err), RL_EINTERNAL);
    c.svg = "<html/>";
    c.svg_len = 7;
    assert_int_equal(rl_html_add_chart(&h, body, &c, &fig, &err), RL_EINTERNAL);
    xmlFreeDoc(h.doc);
}

static void test_markdown(void **state)
{
    (void)state;
    cJSON *b = fixture("hostile.json");
    char *md;
    size_t len;
    rl_error err;
    assert_int_equal(rl_report_markdown(b, &md, &len, &err), RL_OK);
    assert_true(rl_utf8_valid(md, len));
    assert_null(strstr(md, "<script>"));
    assert_non_null(strstr(md, "\\<script\\>alert(1)\\</script\\>"));
    assert_null(strstr(md, "\x1b"));
    assert_non_null(strstr(md, "## llama-roofline: Decode is memory-bound"));
    assert_non_null(strstr(md, "| Effective bandwidth | 30.2 GB/s | derived |"));
    free(md);
    cJSON_Delete(b);
}

/* The client fixture (tests/fixtures/client) with a machine object on each of its two points,
 * the first disturbed when busy, analysed as `client` does at its end. */
static cJSON *client_with_machines(bool busy)
{
    const char *src = getenv("RL_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/client/bundle.json", src ? src : ".");
    cJSON *b = NULL;
    rl_error err;
    if (rl_bundle_load(path, &b, &err) != RL_OK)
        fail_msg("%s: %s", path, err.msg);
    cJSON *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, rl_json_get(rl_json_get(b, "client"), "points"))
    {
        bool d = busy && i++ == 0;
        cJSON *m = cJSON_Parse(d ? "{\"kind\": \"measured\", \"interval_s\": 2, \"cpus\": 2, "
                                   "\"other_cpu_pct\": 83, \"steal_pct\": 0, \"disturbed\": true, "
                                   "\"why\": \"other processes used 83% of the CPUs\"}"
                                 : "{\"kind\": \"measured\", \"interval_s\": 2, \"cpus\": 2, "
                                   "\"other_cpu_pct\": 2, \"steal_pct\": 0, \"disturbed\": false, "
                                   "\"why\": \"\"}");
        assert_non_null(m);
        cJSON_AddItemToObject((cJSON *)pt, "machine", m);
    }
    assert_int_equal(rl_bundle_analyze_client(b, &err), RL_OK);
    return b;
}

/* A client bundle measured while the machine was busy is marked in every medium: the banner
 * (page above its headline, Markdown note, terminal DISTURBED line) says "the latencies and
 * rates", the headline and answer say provisional, every key figure with a number too; a quiet
 * one is marked nowhere. */
static void test_client_disturbed(void **state)
{
    (void)state;
    cJSON *b = client_with_machines(true);
    char line[2048];
    assert_true(rl_report_disturbed(b, line, sizeof line));
    assert_string_equal(line, "Measured while the machine was busy: other processes used 83% of "
                              "the CPUs during 1 of 2 client points; the latencies and rates below "
                              "may be wrong. Re-run on a quiet machine or with --wait-quiet 60.");
    rl_report_headline(b, line, sizeof line);
    assert_non_null(strstr(line, "Streaming client: first chunk in "));
    assert_non_null(strstr(line, " ms (provisional: a busy machine)"));
    rl_report_answer(b, line, sizeof line);
    assert_int_equal(strncmp(line,
                             "Provisional, 1 of 2 operating points were measured while the "
                             "machine was busy, so these numbers may be off. Streaming from ",
                             123),
                     0);
    rl_report_figure f[RL_REPORT_MAX_FIGURES];
    size_t nf = rl_report_figures(b, f);
    assert_true(nf >= 3);
    for (size_t i = 0; i < nf; i++)
        if (strcmp(f[i].value, "n/a") != 0 &&
            !strstr(f[i].note, "Provisional: measured on a busy machine."))
            fail_msg("figure %s: %s", f[i].label, f[i].note);
    char *md;
    size_t len;
    rl_error err;
    assert_int_equal(rl_report_markdown(b, &md, &len, &err), RL_OK);
    assert_int_equal(strncmp(md, "> **Disturbed:** Measured while the machine was busy", 52), 0);
    free(md);
    char *page = render(b, &len);
    const char *ban = strstr(page, "id=\"disturbed\""), *h1 = strstr(page, "<h1");
    assert_non_null(ban);
    assert_non_null(h1);
    assert_true(ban < h1);
    free(page);
    char *txt = NULL;
    size_t tlen = 0;
    FILE *out = open_memstream(&txt, &tlen);
    rl_report_print_summary(out, b, "b.json");
    fclose(out);
    assert_int_equal(strncmp(txt, "\nDISTURBED: Measured while the machine was busy", 47), 0);
    free(txt);
    cJSON_Delete(b);

    b = client_with_machines(false);
    assert_false(rl_report_disturbed(b, line, sizeof line));
    rl_report_headline(b, line, sizeof line);
    assert_null(strstr(line, "provisional"));
    rl_report_answer(b, line, sizeof line);
    assert_null(strstr(line, "Provisional"));
    nf = rl_report_figures(b, f);
    for (size_t i = 0; i < nf; i++)
        assert_null(strstr(f[i].note, "Provisional"));
    page = render(b, &len);
    assert_null(strstr(page, "id=\"disturbed\""));
    free(page);
    cJSON_Delete(b);
}

static void test_load_html_errors(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/test_html.%d.nobundle.html", tmp, (int)getpid());
    static const char page[] = "<!DOCTYPE html><html><body><script type=\"application/json\" "
                               "id=\"other\">{}</script><p>hi</p></body></html>";
    rl_error err;
    assert_int_equal(rl_write_file(path, page, sizeof page - 1, &err), RL_OK);
    cJSON *b = NULL;
    assert_int_equal(rl_bundle_load(path, &b, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "without an embedded bundle"));
    static const char bad[] = "<html><script type=\"application/json\" id=\"bundle\">{\"schema\": "
                              "</script></html>";
    assert_int_equal(rl_write_file(path, bad, sizeof bad - 1, &err), RL_OK);
    assert_int_equal(rl_bundle_load(path, &b, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "not valid JSON"));
    static const char foreign[] = "<html><script type=\"application/json\" id=\"bundle\">"
                                  "{\"schema\": \"other\"}</script></html>";
    assert_int_equal(rl_write_file(path, foreign, sizeof foreign - 1, &err), RL_OK);
    assert_int_equal(rl_bundle_load(path, &b, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "not a llama-roofline bundle"));
    assert_null(b);
    unlink(path);
}

/* A bundle with nothing but its identity (a run that died before measuring) still renders. */
static void test_minimal_bundle(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse("{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 1, "
                           "\"status\": {\"state\": \"failed\", \"reason\": \"x\"}}");
    assert_non_null(b);
    size_t len;
    char *page = render(b, &len);
    htmlDocPtr d = parse_page(page, len);
    assert_true(text_contains(xmlDocGetRootElement(d), "Nothing measured"));
    assert_true(text_contains(xmlDocGetRootElement(d), "This run failed (x)"));
    xmlFreeDoc(d);
    free(page);
    char *md;
    rl_error err;
    assert_int_equal(rl_report_markdown(b, &md, &len, &err), RL_OK);
    free(md);
    cJSON_Delete(b);
}

/* A _bytes fact of 0 is a size like any other: "0 bytes", not a bare "0" (mutant html-bytes);
 * 1024 is "1.00 KiB" (the shared IEC formatter). */
static void test_zero_bytes_fact(void **state)
{
    (void)state;
    cJSON *b = fixture("one-model.json");
    cJSON *env = cJSON_GetObjectItemCaseSensitive(b, "environment");
    assert_true(
        cJSON_ReplaceItemInObjectCaseSensitive(env, "ram_available_bytes", cJSON_CreateNumber(0)));
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(env, "ram_bytes", cJSON_CreateNumber(1024)));
    size_t len;
    char *page = render(b, &len);
    htmlDocPtr d = parse_page(page, len);
    assert_true(text_contains(xmlDocGetRootElement(d), "0 bytes"));
    assert_true(text_contains(xmlDocGetRootElement(d), "1.00 KiB"));
    xmlFreeDoc(d);
    free(page);
    cJSON_Delete(b);
}

/* The lower half's presentation rules (html_facts.c): labels in English with their unit, a key
 * without a rule as its words and unit suffix, numbers to 3 digits with units; a membw object
 * renders with no raw key and no JSON: the ISA trial inline, a sweep by threads as a table. */
static void test_fact_rules(void **state)
{
    (void)state;
    char b[160];
    rl_html_fact_label("isa_trial_GBs", b, sizeof b);
    assert_string_equal(b, "Trial of each instruction set (GB/s)");
    rl_html_fact_label("ram_bytes", b, sizeof b);
    assert_string_equal(b, "RAM");
    rl_html_fact_label("fancy_new_GBs", b, sizeof b);
    assert_string_equal(b, "Fancy new (GB/s)");
    rl_html_fact_label("warmup_s", b, sizeof b);
    assert_string_equal(b, "Warmup (s)");
    rl_html_fact_label("level", b, sizeof b);
    assert_string_equal(b, "Level");
    rl_html_fact_number("median_GBs", 73.953, b, sizeof b);
    assert_string_equal(b, "74.0 GB/s");
    rl_html_fact_number("working_set_bytes", 536870912, b, sizeof b);
    assert_string_equal(b, "512 MiB");
    rl_html_fact_number("elapsed_s", 5.3412, b, sizeof b);
    assert_string_equal(b, "5.34 s");
    rl_html_fact_number("reps", 7, b, sizeof b);
    assert_string_equal(b, "7");
    rl_html_fact_number("target_ci_pct", 2.5, b, sizeof b);
    assert_string_equal(b, "2.50%");
    rl_html_fact_number("stability", 0.96871, b, sizeof b);
    assert_string_equal(b, "0.969");

    cJSON *mb =
        cJSON_Parse("{\"peak_read_GBs\": 76.339, \"isa_trial_GBs\": {\"avx2\": 42.653,"
                    " \"avx512\": 60.342}, \"bw_eff_bytes_s\": 37650056492.45,"
                    " \"by_threads\": {\"1\": {\"sum\": 10.3, \"dot\": 19.877}},"
                    " \"caches\": [{\"level\": 1, \"type\": \"Data\", \"size_bytes\": 49152}],"
                    " \"thread_counts\": [1, 2], \"imported\": {\"os_release\": \"11\"}}");
    assert_non_null(mb);
    rl_html h = {.doc = xmlNewDoc((const xmlChar *)"1.0")};
    xmlNodePtr root = xmlNewNode(NULL, (const xmlChar *)"div");
    xmlDocSetRootElement(h.doc, root);
    rl_html_facts(&h, root, mb, NULL);
    assert_false(h.oom);
    xmlBufferPtr buf = xmlBufferCreate();
    xmlNodeDump(buf, h.doc, root, 0, 0);
    const char *out = (const char *)xmlBufferContent(buf);
    assert_non_null(strstr(out, "<dt>Ceiling</dt><dd>76.3 GB/s</dd>"));
    assert_non_null(strstr(out, "<dt>Trial of each instruction set (GB/s)</dt><dd>avx2 42.7; "
                                "avx512 60.3</dd>"));
    assert_non_null(strstr(out, "<th>Sum</th>"));
    assert_non_null(strstr(out, "<td class=\"num\">19.9</td>"));
    assert_non_null(strstr(out, "<td>Data</td><td class=\"num\">48.0 KiB</td>"));
    assert_non_null(strstr(out, "<dt>Thread counts</dt><dd>1, 2</dd>"));
    assert_non_null(strstr(out, "<dt>OS release</dt><dd>11</dd>"));
    assert_null(strstr(out, "bw_eff"));
    assert_null(strstr(out, "Bw eff"));
    assert_null(strstr(out, "_GBs"));
    assert_null(strstr(out, "{"));
    xmlBufferFree(buf);
    xmlFreeDoc(h.doc);
    cJSON_Delete(mb);
}

/* A key figure with nothing to show says why: the analysis's reason, else the figure's own
 * fallback (mutant fig-block-reason). */
static void test_figure_reasons(void **state)
{
    (void)state;
    cJSON *b = cJSON_Parse("{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 2, "
                           "\"analysis\": {\"n_models\": 0, \"n_models_ok\": 0, "
                           "\"knee\": {\"available\": false}, \"utilisation\": "
                           "{\"available\": false, \"reason\": \"no ceiling measured\"}}}");
    assert_non_null(b);
    rl_report_figure f[RL_REPORT_MAX_FIGURES];
    size_t n = rl_report_figures(b, f);
    assert_int_equal(n, 5);
    assert_string_equal(f[1].label, "Memory ceiling");
    assert_string_equal(f[1].value, "n/a");
    assert_string_equal(f[1].kind, "unavailable");
    assert_string_equal(f[1].note, "none");
    assert_string_equal(f[2].label, "Share of the ceiling");
    assert_string_equal(f[2].note, "no ceiling measured");
    assert_string_equal(f[3].label, "Best thread count");
    assert_string_equal(f[3].note, "no sweep");
    assert_int_equal(f[3].place, -1);
    cJSON_Delete(b);
}

/* The caveat codes of a bundle, space-separated (at most cap bytes). */
static void caveat_codes(const char *json, char *buf, size_t cap)
{
    cJSON *b = cJSON_Parse(json);
    assert_non_null(b);
    rl_report_caveats cv;
    rl_error err;
    assert_int_equal(rl_report_caveats_get(b, &cv, &err), RL_OK);
    buf[0] = 0;
    for (size_t i = 0; i < cv.n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i ? " " : "", cv.v[i].code);
    rl_report_caveats_free(&cv);
    cJSON_Delete(b);
}

/* MoE caveats: left out of the fit, or (when every model is MoE) fitted over; one, never both
 * (mutant caveat-moe-else). */
static void test_moe_caveats(void **state)
{
    (void)state;
    char codes[256];
    caveat_codes("{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 2, \"analysis\": "
                 "{\"n_models_ok\": 2}, \"warnings\": [{\"code\": \"moe_all_fitted\"}]}",
                 codes, sizeof codes);
    assert_non_null(strstr(codes, "moe_all_fitted"));
    assert_null(strstr(codes, "moe_excluded"));
    caveat_codes(
        "{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 2, \"analysis\": "
        "{\"n_models_ok\": 2}, \"warnings\": [{\"code\": \"moe_excluded\", \"applies_to\": []}, "
        "{\"code\": \"moe_all_fitted\"}]}",
        codes, sizeof codes);
    assert_non_null(strstr(codes, "moe_excluded"));
    assert_null(strstr(codes, "moe_all_fitted"));
}

/* ---- the "what to expect" table: formatted from the rows given, never computed ---------- */

static void expect_visit(xmlNodePtr n, void *ctx)
{
    xmlNodePtr *host = ctx;
    xmlChar *id = xmlGetProp(n, BAD_CAST "id");
    if (!*host && id && xmlStrcmp(id, BAD_CAST "expect-table") == 0)
        *host = n;
    xmlFree(id);
}

/* The text of the page's "what to expect" section (caller frees). */
static char *expect_text(const cJSON *b, const rl_report_extra *x)
{
    size_t len;
    char *page = render_x(b, x, &len);
    htmlDocPtr d = parse_page(page, len);
    free(page);
    xmlNodePtr host = NULL;
    walk(xmlDocGetRootElement(d), expect_visit, &host);
    assert_non_null(host);
    xmlChar *t = xmlNodeGetContent(host);
    char *out = strdup((const char *)t);
    xmlFree(t);
    xmlFreeDoc(d);
    return out;
}

/* Not computed (NULL) reads as no fit, though the bundle has one. */
static void test_expect_not_computed(void **state)
{
    (void)state;
    cJSON *b = fixture("memory-bound.json");
    char *t = expect_text(b, NULL);
    assert_non_null(strstr(t, "Nothing to predict from"));
    assert_null(strstr(t, "Predicted decode"));
    free(t);
    rl_report_extra none = {0};
    t = expect_text(b, &none);
    assert_non_null(strstr(t, "Nothing to predict from"));
    free(t);
    cJSON_Delete(b);
}

/* The rows handed over are the rows shown, whatever the bundle would give. */
static void test_expect_rows_given(void **state)
{
    (void)state;
    cJSON *b = fixture("memory-bound.json");
    const cJSON *m0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "analysis"), "models"),
        0);
    const char *name = cJSON_GetObjectItemCaseSensitive(m0, "name")->valuestring;
    rl_pred_expect_row row = {
        .id = cJSON_GetObjectItemCaseSensitive(m0, "id")->valuestring,
        .in_fit = false,
        .bytes = 4321e6,
        .measured = 98.7,
        .pred = 12.5,
        .lo = 11.25,
        .hi = 13.75,
        .diff_pct = 689.6,
    };
    rl_pred_expect x = {.has_fit = true, .rows = &row, .n_rows = 1};
    x.fit.conv = RL_AN_BYTES_STREAMED;
    x.fit.bw_bytes_s = 77.7e9;
    x.fit.bw_lo_bytes_s = 66.6e9;
    x.fit.bw_hi_bytes_s = 88.8e9;
    rl_report_extra extra = {.expect = &x};
    char *t = expect_text(b, &extra);
    assert_non_null(strstr(t, "(streamed)"));
    assert_non_null(strstr(t, "77.7 GB/s"));
    assert_non_null(strstr(t, "66.6 to 88.8 GB/s"));
    assert_non_null(strstr(t, name));
    assert_non_null(strstr(t, "measured, not in the fit"));
    assert_non_null(strstr(t, "4321"));
    assert_non_null(strstr(t, "12.5 (11.2 to 13.8)"));
    assert_non_null(strstr(t, "98.7"));
    assert_non_null(strstr(t, "+689.6%"));
    assert_null(strstr(t, "measured, in the fit")); /* the bundle's own rows are not computed */
    free(t);
    cJSON_Delete(b);
}

/* The calibration against the bundle's measured models, under the table (html_predict.c
 * roofs_agreement): within RL_PRED_TWO_AGREE_PCT (10%, either way) a plain line; beyond it the
 * caveat that the calibration saw the host in another state; nothing without a two-roof row. */
static void test_expect_roofs_agreement(void **state)
{
    (void)state;
    cJSON *b = fixture("memory-bound.json");
    const cJSON *m0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "analysis"), "models"),
        0);
    rl_pred_expect_row row = {.id = cJSON_GetObjectItemCaseSensitive(m0, "id")->valuestring,
                              .bytes = 400e6,
                              .measured = 20,
                              .pred = 21,
                              .lo = 20,
                              .hi = 22,
                              .diff_pct = -4.8,
                              .two_diff_pct = NAN};
    rl_pred_expect x = {.has_fit = true, .rows = &row, .n_rows = 1};
    x.fit.has_roofs = true;
    x.fit.roof_threads = 2;
    x.fit.bw_bytes_s = x.fit.bw_lo_bytes_s = x.fit.bw_hi_bytes_s = 8e9;
    rl_report_extra extra = {.expect = &x};
    static const struct {
        size_t n;
        double median;
        const char *want; /* NULL: no line */
        bool off;
    } cases[] = {
        {3, 4.04,
         "the 3 measured models run a median of +4.0% against their two-roof rates "
         "(within 10% is met). The calibration and these measurements saw the host alike.",
         false},
        {1, -10.0,
         "the 1 measured model runs a median of -10.0% against its two-roof rate "
         "(within 10% is met)",
         false},
        {2, -10.05,
         "the 2 measured models run a median of -10.1% against their two-roof rates "
         "(within 10% is not met). The calibration was most likely measured while "
         "this host ran at another speed",
         true},
        {2, 52.7, "a median of +52.7%", true},
        {0, NAN, NULL, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        x.n_two = cases[i].n;
        x.two_median_pct = cases[i].median;
        char *t = expect_text(b, &extra);
        if (cases[i].want)
            assert_non_null(strstr(t, cases[i].want));
        else
            assert_null(strstr(t, "The calibration against this bundle"));
        assert_true((strstr(t, "most likely measured") != NULL) == cases[i].off);
        free(t);
    }
    x.fit.has_roofs = false; /* no calibration: no line, whatever the numbers */
    x.n_two = 2;
    x.two_median_pct = 52.7;
    char *t = expect_text(b, &extra);
    assert_null(strstr(t, "The calibration against this bundle"));
    free(t);
    cJSON_Delete(b);
}

/* The rows' ids point into the bundle as given; the page shows its repaired copy. A model whose
 * id is not UTF-8 still gets its own name, not its raw id. */
static void test_expect_id_not_utf8(void **state)
{
    (void)state;
    cJSON *b = fixture("memory-bound.json");
    cJSON *m0 = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b, "analysis"), "models"),
        0);
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(m0, "id", cJSON_CreateString("id\xFF")));
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(m0, "name", cJSON_CreateString("the-one")));
    rl_pred_expect x;
    rl_error err;
    assert_int_equal(rl_pred_expect_build(b, &x, &err), RL_OK);
    assert_true(x.has_fit && x.n_rows > 0);
    rl_report_extra extra = {.expect = &x};
    char *t = expect_text(b, &extra);
    assert_non_null(strstr(t, "the-one"));
    assert_null(strstr(t, "id\xEF\xBF\xBD")); /* the repaired id, shown as a name */
    free(t);
    rl_pred_expect_free(&x);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_memory_bound),
        cmocka_unit_test(test_page_one_model),
        cmocka_unit_test(test_zero_bytes_fact),
        cmocka_unit_test(test_fact_rules),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_safe_text),
        cmocka_unit_test(test_json_for_script),
        cmocka_unit_test(test_deferred_embed),
        cmocka_unit_test(test_svg_import),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_load_html_errors),
        cmocka_unit_test(test_minimal_bundle),
        cmocka_unit_test(test_expect_not_computed),
        cmocka_unit_test(test_expect_rows_given),
        cmocka_unit_test(test_expect_id_not_utf8),
        cmocka_unit_test(test_expect_roofs_agreement),
        cmocka_unit_test(test_figure_reasons),
        cmocka_unit_test(test_moe_caveats),
        cmocka_unit_test(test_client_disturbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
