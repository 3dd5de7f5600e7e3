/* chart_stub.c: TEMPORARY stand-in for the chart modules (chart.h), so the report links and its
 * tests run before branch h/chart lands. DELETE THIS FILE WHEN h/chart MERGES: the real
 * src/chart_*.c implement the same interface.
 *
 * Each chart is a trivially small SVG built with libxml2 (so names from the bundle are escaped):
 * a root group with the id "surface1" in every chart and a clip path referenced through
 * url(#...) and xlink:href, as cairo writes them, so the page's id prefixing is exercised; a
 * rect; the title as real <text>; and a small table of numbers taken from the bundle. */
#include "chart.h"

#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <libxml/tree.h>

#include "rl_file.h"
#include "rl_json.h"
#include "rl_text.h"
#include "rl_util.h"

typedef struct {
    rl_chart *c;
    size_t cap, n; /* cells allocated and written (n_rows counts complete rows only) */
    bool oom;
} builder;

static void cell(builder *b, const char *s)
{
    if (b->oom)
        return;
    size_t n = b->n;
    if (n >= b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        char **v = realloc(b->c->cells, cap * sizeof *v);
        if (!v) {
            b->oom = true;
            return;
        }
        b->c->cells = v;
        b->cap = cap;
    }
    b->c->cells[n] = rl_strdup(s ? s : "");
    if (b->c->cells[n])
        b->n++;
    else
        b->oom = true;
}

static void cellnum(builder *b, double v)
{
    char t[64];
    rl_snprintf(t, sizeof t, "%.9g", v);
    cell(b, t);
}

static void row_end(builder *b)
{
    if (!b->oom)
        b->c->n_rows++;
}

static rl_status begin(rl_chart *c, const char *id, const char *title, const char *desc,
                       const char *const *cols, size_t n_cols)
{
    memset(c, 0, sizeof *c);
    c->id = rl_strdup(id);
    c->title = rl_strdup(title);
    c->desc = rl_strdup(desc);
    c->cols = rl_calloc(n_cols, sizeof *c->cols);
    if (!c->id || !c->title || !c->desc || !c->cols)
        return RL_EINTERNAL;
    c->n_cols = n_cols;
    for (size_t i = 0; i < n_cols; i++)
        if (!(c->cols[i] = rl_strdup(cols[i])))
            return RL_EINTERNAL;
    return RL_OK;
}

/* The SVG: <svg viewBox><g id="surface1" clip-path="url(#clip1)"><rect/><text>title</text>
 * <use xlink:href="#r1"/></g><clipPath id="clip1"><rect id="r1"/></clipPath></svg> */
static rl_status finish(builder *b, rl_error *err)
{
    rl_chart *c = b->c;
    if (b->oom) {
        for (size_t i = 0; i < b->n; i++)
            free(c->cells[i]);
        free(c->cells);
        c->cells = NULL;
        c->n_rows = 0;
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    xmlDocPtr d = xmlNewDoc(BAD_CAST "1.0");
    xmlNodePtr svg = xmlNewDocNode(d, NULL, BAD_CAST "svg", NULL);
    xmlDocSetRootElement(d, svg);
    xmlNsPtr ns = xmlNewNs(svg, BAD_CAST "http://www.w3.org/2000/svg", NULL);
    xmlSetNs(svg, ns);
    xmlNsPtr xl = xmlNewNs(svg, BAD_CAST "http://www.w3.org/1999/xlink", BAD_CAST "xlink");
    xmlNewProp(svg, BAD_CAST "width", BAD_CAST "720pt");
    xmlNewProp(svg, BAD_CAST "height", BAD_CAST "60pt");
    xmlNewProp(svg, BAD_CAST "viewBox", BAD_CAST "0 0 720 60");
    xmlNewProp(svg, BAD_CAST "version", BAD_CAST "1.1");
    xmlNodePtr defs = xmlNewChild(svg, ns, BAD_CAST "defs", NULL);
    xmlNodePtr clip = xmlNewChild(defs, ns, BAD_CAST "clipPath", NULL);
    xmlNewProp(clip, BAD_CAST "id", BAD_CAST "clip1");
    xmlNodePtr cr = xmlNewChild(clip, ns, BAD_CAST "rect", NULL);
    xmlNewProp(cr, BAD_CAST "id", BAD_CAST "r1");
    xmlNewProp(cr, BAD_CAST "width", BAD_CAST "720");
    xmlNewProp(cr, BAD_CAST "height", BAD_CAST "60");
    xmlNodePtr g = xmlNewChild(svg, ns, BAD_CAST "g", NULL);
    xmlNewProp(g, BAD_CAST "id", BAD_CAST "surface1");
    xmlNewProp(g, BAD_CAST "clip-path", BAD_CAST "url(#clip1)");
    xmlNodePtr r = xmlNewChild(g, ns, BAD_CAST "rect", NULL);
    xmlNewProp(r, BAD_CAST "x", BAD_CAST "1");
    xmlNewProp(r, BAD_CAST "y", BAD_CAST "1");
    xmlNewProp(r, BAD_CAST "width", BAD_CAST "718");
    xmlNewProp(r, BAD_CAST "height", BAD_CAST "58");
    xmlNewProp(r, BAD_CAST "style", BAD_CAST "fill:none;stroke:rgb(0%,44.7%,69.8%);stroke-width:2");
    xmlNodePtr u = xmlNewChild(g, ns, BAD_CAST "use", NULL);
    xmlNewNsProp(u, xl, BAD_CAST "href", BAD_CAST "#r1");
    xmlNewProp(u, BAD_CAST "style", BAD_CAST "fill:rgb(0%,44.7%,69.8%);fill-opacity:0.08");
    xmlNodePtr t = xmlNewChild(g, ns, BAD_CAST "text", NULL);
    xmlNewProp(t, BAD_CAST "x", BAD_CAST "12");
    xmlNewProp(t, BAD_CAST "y", BAD_CAST "36");
    xmlNewProp(t, BAD_CAST "font-family", BAD_CAST "DejaVu Sans, sans-serif");
    xmlNewProp(t, BAD_CAST "font-size", BAD_CAST "16");
    xmlNewProp(t, BAD_CAST "fill", BAD_CAST "#808080");
    char line[512];
    rl_snprintf(line, sizeof line, "%s (placeholder chart: %zu rows in the table)", c->title,
                c->n_rows);
    xmlAddChild(t, xmlNewDocText(d, BAD_CAST line));
    xmlChar *mem = NULL;
    int len = 0;
    xmlDocDumpMemoryEnc(d, &mem, &len, "UTF-8");
    xmlFreeDoc(d);
    if (!mem)
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    c->svg = rl_strdup((const char *)mem);
    c->svg_len = c->svg ? strlen(c->svg) : 0;
    xmlFree(mem);
    if (!c->svg)
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    return RL_OK;
}

static rl_status nothing(rl_chart *c, rl_error *err, const char *why)
{
    rl_chart_free(c);
    return rl_fail(err, RL_NOTHING, "%s", why);
}

static const cJSON *an_models(const cJSON *bundle)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(bundle, "analysis"),
                                            "models");
}

rl_status rl_chart_roofline(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    static const char *const cols[] = {"model", "bytes per token (bytes)", "decode (tok/s)"};
    if (begin(out, "roofline", "Decode rate against bytes per token",
              "Each model at its own best thread count: decode tokens per second (log scale) "
              "against bytes read per token (log scale).",
              cols, 3) != RL_OK) {
        rl_chart_free(out);
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    builder b = {out, 0, 0, false};
    const cJSON *m;
    cJSON_ArrayForEach(m, an_models(bundle))
    {
        bool ok = false;
        double x, y;
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "operating_point");
        if (!rl_json_get_bool(m, "ok", &ok) || !ok || !rl_json_get_num(m, "bytes_per_token", &x) ||
            !rl_json_get_num(op, "decode_tok_s", &y))
            continue;
        cell(&b, rl_json_get_str(m, "name"));
        cellnum(&b, x);
        cellnum(&b, y);
        row_end(&b);
    }
    if (out->n_rows == 0 && !b.oom)
        return nothing(out, err, "no model has a short-context decode rate");
    rl_status st = finish(&b, err);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

/* One row from the first model's first ok run: threads, decode. */
rl_status rl_chart_threads(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    static const char *const cols[] = {"model", "threads", "decode (tok/s)"};
    if (begin(out, "threads", "Decode and prefill against threads",
              "Tokens per second against the thread count, per model, at short context; the "
              "knee is marked.",
              cols, 3) != RL_OK) {
        rl_chart_free(out);
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    builder b = {out, 0, 0, false};
    const cJSON *m;
    cJSON_ArrayForEach(m, an_models(bundle))
    {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "operating_point");
        double t, y;
        if (!rl_json_get_num(op, "threads", &t) || !rl_json_get_num(op, "decode_tok_s", &y))
            continue;
        cell(&b, rl_json_get_str(m, "name"));
        cellnum(&b, t);
        cellnum(&b, y);
        row_end(&b);
        break;
    }
    if (out->n_rows == 0 && !b.oom)
        return nothing(out, err, "no thread sweep");
    rl_status st = finish(&b, err);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

rl_status rl_chart_long_context(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    static const char *const cols[] = {"model", "depth (tokens)", "decode (% of empty cache)"};
    if (begin(out, "long-context", "Decode rate as the KV cache fills",
              "Measured decode rate as a percentage of the empty-cache rate against the KV "
              "cache depth, beside the bytes-only prediction.",
              cols, 3) != RL_OK) {
        rl_chart_free(out);
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    builder b = {out, 0, 0, false};
    const cJSON *lc;
    cJSON_ArrayForEach(
        lc, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(bundle, "analysis"),
                                             "long_context"))
    {
        double d, p;
        if (!rl_json_get_num(lc, "depth", &d) ||
            !rl_json_get_num(cJSON_GetObjectItemCaseSensitive(lc, "pct_of_empty_cache"), "pct", &p))
            continue;
        cell(&b, rl_json_get_str(lc, "model"));
        cellnum(&b, d);
        cellnum(&b, p);
        row_end(&b);
        break;
    }
    if (out->n_rows == 0 && !b.oom)
        return nothing(out, err, "no long-context runs");
    rl_status st = finish(&b, err);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

rl_status rl_chart_composition(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    static const char *const cols[] = {"model", "type", "share of layer bytes (%)"};
    if (begin(out, "composition", "What each file holds",
              "Share of the repeating layers' bytes by ggml type, per model, with the type the "
              "label names.",
              cols, 3) != RL_OK) {
        rl_chart_free(out);
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    builder b = {out, 0, 0, false};
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(bundle, "models"))
    {
        const cJSON *types = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "gguf"),
                                             "composition"),
            "types");
        const cJSON *t = types ? types->child : NULL;
        if (!t || !cJSON_IsNumber(t))
            continue;
        cell(&b, rl_json_get_str(m, "name"));
        cell(&b, t->string);
        cellnum(&b, t->valuedouble);
        row_end(&b);
        break;
    }
    if (out->n_rows == 0 && !b.oom)
        return nothing(out, err, "no model's composition is known");
    rl_status st = finish(&b, err);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

rl_status rl_chart_membw(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    static const char *const cols[] = {"kernel", "threads", "best (GB/s)"};
    if (begin(out, "membw", "Memory read bandwidth by kernel and threads",
              "The ceiling microbenchmark: best read bandwidth in GB/s (1e9 bytes/s) per kernel "
              "against the thread count; the chosen ceiling is marked.",
              cols, 3) != RL_OK) {
        rl_chart_free(out);
        return rl_fail(err, RL_EINTERNAL, "chart stub: out of memory");
    }
    builder b = {out, 0, 0, false};
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(
                              cJSON_GetObjectItemCaseSensitive(bundle, "membw"), "runs"))
    {
        double t, g;
        if (!rl_json_get_num(r, "threads", &t) || !rl_json_get_num(r, "best_GBs", &g))
            continue;
        cell(&b, rl_json_get_str(r, "kernel"));
        cellnum(&b, t);
        cellnum(&b, g);
        row_end(&b);
        break;
    }
    if (out->n_rows == 0 && !b.oom)
        return nothing(out, err, "the ceiling was not measured here");
    rl_status st = finish(&b, err);
    if (st != RL_OK)
        rl_chart_free(out);
    return st;
}

void rl_chart_free(rl_chart *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->cols && i < c->n_cols; i++)
        free(c->cols[i]);
    for (size_t i = 0; c->cells && i < c->n_rows * c->n_cols; i++)
        free(c->cells[i]);
    free(c->cells);
    free(c->cols);
    free(c->id);
    free(c->title);
    free(c->desc);
    free(c->svg);
    memset(c, 0, sizeof *c);
}

static cairo_status_t png_collect(void *closure, const unsigned char *data, unsigned int len)
{
    struct {
        unsigned char *p;
        size_t len, cap;
    } *m = closure;
    if (m->len + len > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        while (cap < m->len + len)
            cap *= 2;
        unsigned char *p = realloc(m->p, cap);
        if (!p)
            return CAIRO_STATUS_NO_MEMORY;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->len, data, len);
    m->len += len;
    return CAIRO_STATUS_SUCCESS;
}

rl_status rl_chart_roofline_png(const cJSON *bundle, const char *path, rl_error *err)
{
    (void)bundle;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 240, 120);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0.447, 0.698);
    cairo_rectangle(cr, 10, 10, 220, 100);
    cairo_set_line_width(cr, 2);
    cairo_stroke(cr);
    cairo_destroy(cr);
    struct {
        unsigned char *p;
        size_t len, cap;
    } m = {0};
    cairo_status_t cs = cairo_surface_write_to_png_stream(s, png_collect, &m);
    cairo_surface_destroy(s);
    if (cs != CAIRO_STATUS_SUCCESS) {
        free(m.p);
        return rl_fail(err, RL_EINTERNAL, "chart stub: PNG: %s", cairo_status_to_string(cs));
    }
    rl_status st = rl_write_file(path, m.p, m.len, err);
    free(m.p);
    return st;
}
