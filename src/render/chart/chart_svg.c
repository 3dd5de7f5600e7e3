/* SPDX-License-Identifier: MIT */
/* chart_svg.c: rendering a chart's draw callback to an SVG document or a PNG file (owner: chart).
 *
 * SVG: cairo draws the geometry onto cairo_svg_surface_create_for_stream, whose bytes go into
 * a growing buffer (rrdtool's render-to-memory pattern), pinned to SVG 1.1. cairo never draws
 * text there (cairo 1.16 would write glyph outlines as <symbol id="glyph0-1"> and <use>:
 * unselectable, and the ids collide between charts on one page). The buffer is parsed with
 * libxml2 and then:
 *   - any <symbol>/<use> (glyph outlines) is dropped, as a safety net;
 *   - every id is renamed in document order to "rl-<chart id>-<letters><n>" (cairo's surface1
 *     and clip1 repeat in every chart, and 1.16 numbers surfaces process-wide, so the same
 *     chart would not give the same bytes twice) and url(#...) and href="#..." follow;
 *   - <title> and <desc> come first, referenced by aria-labelledby, with role="img";
 *   - the recorded texts become <text> nodes in one group with the font stack
 *     RL_CHART_FONT_STACK and fill="currentColor" (so they follow the page's theme); their
 *     content is added as text nodes, which libxml2 escapes: text from the bundle never
 *     becomes markup;
 *   - width="100%" replaces cairo's width/height in pt; the viewBox stays.
 * The same bundle gives the same bytes (cairo's ids and numbers, libxml2's serializer).
 *
 * PNG: the same draw callback on a white image surface at scale 2, the recorded texts drawn by
 * cairo in dark grey, encoded with cairo_surface_write_to_png_stream into memory and written
 * atomically with rl_write_file.
 *
 * Ownership: the SVG text is malloc'd into c->svg (freed by rl_chart_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-svg.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "render/chart/chart_int.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    unsigned char *d;
    size_t n, cap;
} membuf;

static cairo_status_t membuf_write(void *closure, const unsigned char *data, unsigned int len)
{
    membuf *b = closure;
    if (len > RL_CHART_MAX_SVG || b->n > RL_CHART_MAX_SVG - len)
        return CAIRO_STATUS_WRITE_ERROR;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->n + len)
            cap *= 2;
        unsigned char *d = realloc(b->d, cap);
        if (!d)
            return CAIRO_STATUS_NO_MEMORY;
        b->d = d;
        b->cap = cap;
    }
    memcpy(b->d + b->n, data, len);
    b->n += len;
    return CAIRO_STATUS_SUCCESS;
}

/* The canvas around a target context: a private measuring context with DejaVu Sans and
 * unhinted metrics, so measured widths do not depend on the target. */
static bool canvas_open(rl_chart_canvas *cv, cairo_t *cr, double w, double h)
{
    memset(cv, 0, sizeof *cv);
    cv->cr = cr;
    cv->w = w;
    cv->h = h;
    cairo_surface_t *ms = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cv->mcr = cairo_create(ms);
    cairo_surface_destroy(ms);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_set_font_options(cv->mcr, fo);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    return cairo_status(cv->mcr) == CAIRO_STATUS_SUCCESS;
}

static void canvas_close(rl_chart_canvas *cv)
{
    for (size_t i = 0; i < cv->n_texts; i++)
        free(cv->texts[i].s);
    free(cv->texts);
    free(cv->occupied);
    free(cv->segs);
    if (cv->mcr)
        cairo_destroy(cv->mcr);
    memset(cv, 0, sizeof *cv);
}

/* ---- SVG post-processing ---------------------------------------------------------------- */

static const char *anchor_name(rl_chart_anchor a)
{
    return a == RL_CHART_MIDDLE ? "middle" : a == RL_CHART_END ? "end" : NULL;
}

/* Ids: cairo's are not stable (1.16 numbers surfaces from a process-wide counter: surface1
 * in one chart, surface7 in the next render) and repeat between charts (clip1). Every id is
 * renamed, in document order, to <prefix><its letters><n> (rl-roofline-clip2), and the
 * references (href="#...", url(#...)) follow through this map. */
typedef struct {
    char **from, **to;
    size_t n, cap;
    unsigned next;
    bool oom;
} idmap;

static void idmap_free(idmap *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->from[i]);
        free(m->to[i]);
    }
    free(m->from);
    free(m->to);
}

static const char *idmap_get(const idmap *m, const char *from, size_t len)
{
    for (size_t i = 0; i < m->n; i++)
        if (strlen(m->from[i]) == len && memcmp(m->from[i], from, len) == 0)
            return m->to[i];
    return NULL;
}

static void idmap_add(idmap *m, const char *from, const char *prefix)
{
    if (idmap_get(m, from, strlen(from)))
        return;
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        char **f = realloc(m->from, cap * sizeof *f);
        if (f)
            m->from = f;
        char **t = f ? realloc(m->to, cap * sizeof *t) : NULL;
        if (!f || !t) {
            m->oom = true;
            return;
        }
        m->to = t;
        m->cap = cap;
    }
    size_t letters = 0;
    while (letters < 24 && ((from[letters] >= 'a' && from[letters] <= 'z') ||
                            (from[letters] >= 'A' && from[letters] <= 'Z')))
        letters++;
    char *f = rl_strdup(from);
    char *t = rl_asprintf("%s%.*s%u", prefix, (int)letters, from, ++m->next);
    if (!f || !t) {
        free(f);
        free(t);
        m->oom = true;
        return;
    }
    m->from[m->n] = f;
    m->to[m->n++] = t;
}

/* Drop glyph outlines (<symbol>, <use>, cairo's <g id="glyph0-1">) and collect the ids. */
static void collect_ids(xmlNodePtr node, idmap *m, const char *prefix)
{
    for (xmlNodePtr n = node->children, next; n; n = next) {
        next = n->next;
        if (n->type != XML_ELEMENT_NODE)
            continue;
        xmlChar *id = xmlGetProp(n, BAD_CAST "id");
        if (xmlStrEqual(n->name, BAD_CAST "symbol") || xmlStrEqual(n->name, BAD_CAST "use") ||
            (id && strncmp((const char *)id, "glyph", 5) == 0)) {
            xmlFree(id);
            xmlUnlinkNode(n);
            xmlFreeNode(n);
            continue;
        }
        if (id)
            idmap_add(m, (const char *)id, prefix);
        xmlFree(id);
        collect_ids(n, m, prefix);
    }
}

/* value with every url(#x) of a known x renamed; NULL when nothing changes (or on OOM). */
static char *rename_urls(const char *value, const idmap *m, bool *oom)
{
    if (!strstr(value, "url(#"))
        return NULL;
    size_t cap = strlen(value) + 1, len = 0;
    for (size_t i = 0; i < m->n; i++)
        cap += strlen(m->to[i]); /* more than any value's renaming can need */
    char *out = malloc(cap);
    if (!out) {
        *oom = true;
        return NULL;
    }
    const char *p = value;
    for (const char *q = strstr(p, "url(#"); q; q = strstr(p, "url(#")) {
        q += 5;
        size_t idlen = strcspn(q, ")");
        const char *to = idmap_get(m, q, idlen);
        memcpy(out + len, p, (size_t)(q - p));
        len += (size_t)(q - p);
        if (to) {
            memcpy(out + len, to, strlen(to));
            len += strlen(to);
            p = q + idlen;
        } else {
            p = q;
        }
    }
    strcpy(out + len, p);
    return out;
}

static bool rename_ids(xmlNodePtr node, const idmap *m)
{
    for (xmlNodePtr n = node->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        for (xmlAttrPtr a = n->properties; a; a = a->next) {
            xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
            if (!v)
                return false;
            const char *to = NULL;
            char *nv = NULL;
            bool oom = false;
            if (xmlStrEqual(a->name, BAD_CAST "id"))
                to = idmap_get(m, (const char *)v, strlen((const char *)v));
            else if (xmlStrEqual(a->name, BAD_CAST "href") && v[0] == '#' &&
                     (to = idmap_get(m, (const char *)v + 1, strlen((const char *)v + 1))))
                to = nv = rl_asprintf("#%s", to), oom = !nv;
            else
                to = nv = rename_urls((const char *)v, m, &oom);
            xmlFree(v);
            bool ok = !oom && (!to || xmlSetNsProp(n, a->ns, a->name, BAD_CAST to));
            free(nv);
            if (!ok)
                return false;
        }
        if (!rename_ids(n, m))
            return false;
    }
    return true;
}

static bool fix_tree(xmlNodePtr root, const char *prefix)
{
    idmap m = {0};
    collect_ids(root, &m, prefix);
    bool ok = !m.oom && rename_ids(root, &m);
    idmap_free(&m);
    return ok;
}

static xmlNodePtr text_elem(xmlDocPtr doc, xmlNsPtr ns, const char *name, const char *text)
{
    xmlNodePtr n = xmlNewDocNode(doc, ns, BAD_CAST name, NULL);
    if (!n)
        return NULL;
    xmlNodePtr t = xmlNewDocText(doc, BAD_CAST text); /* literal: escaped when serialized */
    if (!t || !xmlAddChild(n, t)) {
        xmlFreeNode(t);
        xmlFreeNode(n);
        return NULL;
    }
    return n;
}

static bool set_num(xmlNodePtr n, const char *attr, double v)
{
    char buf[48];
    rl_snprintf(buf, sizeof buf, "%.2f", v);
    return xmlSetProp(n, BAD_CAST attr, BAD_CAST buf) != NULL;
}

static bool add_texts(xmlDocPtr doc, xmlNodePtr root, const rl_chart_canvas *cv, const char *prefix)
{
    xmlNodePtr g = xmlNewDocNode(doc, root->ns, BAD_CAST "g", NULL);
    if (!g || !xmlAddChild(root, g)) {
        xmlFreeNode(g);
        return false;
    }
    char id[160];
    rl_snprintf(id, sizeof id, "%stext", prefix);
    if (!xmlSetProp(g, BAD_CAST "id", BAD_CAST id) ||
        !xmlSetProp(g, BAD_CAST "font-family", BAD_CAST RL_CHART_FONT_STACK) ||
        !xmlSetProp(g, BAD_CAST "fill", BAD_CAST "currentColor"))
        return false;
    for (size_t i = 0; i < cv->n_texts; i++) {
        const rl_chart_text_rec *t = &cv->texts[i];
        xmlNodePtr n = text_elem(doc, root->ns, "text", t->s);
        if (!n || !xmlAddChild(g, n)) {
            xmlFreeNode(n);
            return false;
        }
        char buf[160];
        bool ok = set_num(n, "x", t->x) && set_num(n, "y", t->y);
        rl_snprintf(buf, sizeof buf, "%.4g", t->size);
        ok = ok && xmlSetProp(n, BAD_CAST "font-size", BAD_CAST buf);
        if (ok && anchor_name(t->anchor))
            ok = xmlSetProp(n, BAD_CAST "text-anchor", BAD_CAST anchor_name(t->anchor));
        if (ok && t->bold)
            ok = xmlSetProp(n, BAD_CAST "font-weight", BAD_CAST "bold");
        if (ok && t->cls) {
            rl_snprintf(buf, sizeof buf, "rl-%s", t->cls);
            ok = xmlSetProp(n, BAD_CAST "class", BAD_CAST buf);
        }
        if (ok && t->angle != 0) {
            rl_snprintf(buf, sizeof buf, "rotate(%.2f %.2f %.2f)", t->angle, t->x, t->y);
            ok = xmlSetProp(n, BAD_CAST "transform", BAD_CAST buf);
        }
        if (!ok)
            return false;
    }
    return true;
}

static rl_status postprocess(rl_chart *c, const membuf *b, const rl_chart_canvas *cv, double w,
                             double h, rl_error *err)
{
    if (b->n > (size_t)INT32_MAX)
        return rl_fail(err, RL_EINTERNAL, "chart %s: SVG too large", c->id);
    xmlDocPtr doc = xmlReadMemory((const char *)b->d, (int)b->n, "chart.svg", "UTF-8",
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        return rl_fail(err, RL_EINTERNAL, "chart %s: cairo's SVG does not parse", c->id);
    rl_status st = RL_EINTERNAL;
    char prefix[96], tid[128], did[128], buf[256];
    rl_snprintf(prefix, sizeof prefix, "rl-%s-", c->id);
    rl_snprintf(tid, sizeof tid, "%stitle", prefix);
    rl_snprintf(did, sizeof did, "%sdesc", prefix);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!root || !xmlStrEqual(root->name, BAD_CAST "svg") || !fix_tree(root, prefix))
        goto out;
    xmlUnsetProp(root, BAD_CAST "height");
    rl_snprintf(buf, sizeof buf, "0 0 %.0f %.0f", w, h);
    char labelled[300];
    rl_snprintf(labelled, sizeof labelled, "%s %s", tid, did);
    if (!xmlSetProp(root, BAD_CAST "width", BAD_CAST "100%") ||
        !xmlSetProp(root, BAD_CAST "viewBox", BAD_CAST buf) ||
        !xmlSetProp(root, BAD_CAST "role", BAD_CAST "img") ||
        !xmlSetProp(root, BAD_CAST "aria-labelledby", BAD_CAST labelled) ||
        !xmlSetProp(root, BAD_CAST "class", BAD_CAST "rl-chart"))
        goto out;
    xmlNodePtr title = text_elem(doc, root->ns, "title", c->title);
    xmlNodePtr desc = text_elem(doc, root->ns, "desc", c->desc);
    if (!title || !desc) {
        xmlFreeNode(title);
        xmlFreeNode(desc);
        goto out;
    }
    xmlSetProp(title, BAD_CAST "id", BAD_CAST tid);
    xmlSetProp(desc, BAD_CAST "id", BAD_CAST did);
    if (root->children) {
        xmlAddPrevSibling(root->children, title);
    } else {
        xmlAddChild(root, title);
    }
    xmlAddNextSibling(title, desc);
    if (!add_texts(doc, root, cv, prefix))
        goto out;
    xmlChar *mem = NULL;
    int size = 0;
    xmlDocDumpMemoryEnc(doc, &mem, &size, "UTF-8");
    if (!mem || size <= 0) {
        xmlFree(mem);
        goto out;
    }
    c->svg = malloc((size_t)size + 1);
    if (c->svg) {
        memcpy(c->svg, mem, (size_t)size);
        c->svg[size] = '\0';
        c->svg_len = (size_t)size;
        st = RL_OK;
    }
    xmlFree(mem);
out:
    xmlFreeDoc(doc);
    if (st != RL_OK)
        return rl_fail(err, st, "chart %s: out of memory building the SVG", c->id);
    return RL_OK;
}

rl_status rl_chart_render_svg(rl_chart *c, double w, double h, rl_chart_draw_fn draw, void *ctx,
                              rl_error *err)
{
    membuf b = {0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(membuf_write, &b, w, h);
    cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
    cairo_t *cr = cairo_create(s);
    rl_chart_canvas cv;
    bool ok = canvas_open(&cv, cr, w, h);
    if (ok)
        draw(&cv, ctx);
    ok = ok && !cv.failed && cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    cairo_surface_finish(s);
    ok = ok && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(s);
    rl_status st =
        ok ? postprocess(c, &b, &cv, w, h, err)
           : rl_fail(err, RL_EINTERNAL, "chart %s: drawing failed (out of memory?)", c->id);
    canvas_close(&cv);
    free(b.d);
    return st;
}

double rl_chart_measure(double (*fn)(rl_chart_canvas *cv, void *ctx), void *ctx)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_surface_destroy(s);
    rl_chart_canvas cv;
    double v = 0;
    if (canvas_open(&cv, cr, RL_CHART_W, 1))
        v = fn(&cv, ctx);
    canvas_close(&cv);
    cairo_destroy(cr);
    return isfinite(v) ? v : 0;
}

void rl_chart_dry_run(double w, double h, rl_chart_draw_fn draw, void *ctx)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(s);
    cairo_surface_destroy(s);
    rl_chart_canvas cv;
    if (canvas_open(&cv, cr, w, h))
        draw(&cv, ctx);
    canvas_close(&cv);
    cairo_destroy(cr);
}

/* ---- PNG -------------------------------------------------------------------------------- */

static void draw_texts(rl_chart_canvas *cv)
{
    cairo_t *cr = cv->cr;
    for (size_t i = 0; i < cv->n_texts; i++) {
        const rl_chart_text_rec *t = &cv->texts[i];
        double f = t->anchor == RL_CHART_START ? 0 : t->anchor == RL_CHART_MIDDLE ? 0.5 : 1;
        cairo_save(cr);
        cairo_select_font_face(cr, RL_CHART_FONT, CAIRO_FONT_SLANT_NORMAL,
                               t->bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_font_size(cr, t->size);
        cairo_set_source_rgb(cr, 0.13, 0.13, 0.13);
        cairo_translate(cr, t->x, t->y);
        cairo_rotate(cr, t->angle * M_PI / 180);
        cairo_move_to(cr, -t->w * f, 0);
        cairo_show_text(cr, t->s);
        cairo_restore(cr);
    }
}

rl_status rl_chart_render_png(const char *path, double w, double h, rl_chart_draw_fn draw,
                              void *ctx, rl_error *err)
{
    const double scale = 2;
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w * scale), (int)ceil(h * scale));
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, scale, scale);
    rl_chart_canvas cv;
    bool ok = canvas_open(&cv, cr, w, h);
    if (ok) {
        draw(&cv, ctx);
        draw_texts(&cv);
    }
    ok = ok && !cv.failed && cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    canvas_close(&cv);
    cairo_destroy(cr);
    membuf b = {0};
    if (ok)
        ok = cairo_surface_write_to_png_stream(s, membuf_write, &b) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(s);
    rl_status st = ok ? rl_write_file(path, b.d, b.n, err)
                      : rl_fail(err, RL_EINTERNAL, "%s: drawing the PNG failed", path);
    free(b.d);
    return st;
}
