/* SPDX-License-Identifier: MIT */
/* html_svg.c: a chart's SVG imported into the page with its ids prefixed, and its figure.
 * See html_svg.h. */
#include "render/html_svg.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

#define SVG_NS "http://www.w3.org/2000/svg"

void rl_html_chart_prefix(const char *chart_id, char *buf, size_t cap)
{
    if (cap == 0)
        return;
    size_t o = 0;
    const char *id = chart_id && *chart_id ? chart_id : "chart";
    if (cap > 3) {
        buf[o++] = 'c';
        buf[o++] = '-';
    }
    for (const char *p = id; *p && o + 2 < cap; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        buf[o++] = ok ? c : '-';
    }
    if (o + 1 < cap)
        buf[o++] = '-';
    buf[o] = '\0';
}

/* ---- rewriting ------------------------------------------------------------------------- */

typedef struct {
    const char *prefix;
    char **ids; /* the SVG's own ids, for selectors in <style> */
    size_t n_ids, cap_ids;
    bool oom;
} import_ctx;

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == ':' || (unsigned char)c >= 0x80;
}

static bool known_id(const import_ctx *x, const char *s, size_t n)
{
    for (size_t i = 0; i < x->n_ids; i++)
        if (strlen(x->ids[i]) == n && memcmp(x->ids[i], s, n) == 0)
            return true;
    return false;
}

/* Rewrite url(#id), url("#id"), url('#id') and, with selectors, "#id" where id is one of the
 * SVG's own ids. A new string (caller frees), or NULL when out of memory. */
static char *rewrite_refs(import_ctx *x, const char *s, bool selectors)
{
    rl_sbuf b = {0};
    size_t plen = strlen(x->prefix);
    for (const char *p = s; *p;) {
        if (strncmp(p, "url(", 4) == 0) {
            const char *q = p + 4;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q == '"' || *q == '\'')
                q++;
            if (*q == '#') {
                rl_sbuf_put(&b, p, (size_t)(q - p) + 1);
                rl_sbuf_put(&b, x->prefix, plen);
                p = q + 1;
                continue;
            }
        }
        if (selectors && *p == '#' && id_char(p[1])) {
            size_t n = 1;
            while (id_char(p[n]))
                n++;
            if (known_id(x, p + 1, n - 1)) {
                rl_sbuf_put(&b, "#", 1);
                rl_sbuf_put(&b, x->prefix, plen);
                rl_sbuf_put(&b, p + 1, n - 1);
                p += n;
                continue;
            }
        }
        rl_sbuf_put(&b, p, 1);
        p++;
    }
    if (!b.p && !b.oom)
        rl_sbuf_put(&b, "", 0);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

static void collect_ids(import_ctx *x, xmlNodePtr n)
{
    for (; n && !x->oom; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        xmlChar *id = xmlGetNoNsProp(n, BAD_CAST "id");
        if (id) {
            if (x->n_ids == x->cap_ids) {
                size_t cap = x->cap_ids ? x->cap_ids * 2 : 16;
                char **v = realloc(x->ids, cap * sizeof *v);
                if (!v) {
                    xmlFree(id);
                    x->oom = true;
                    return;
                }
                x->ids = v;
                x->cap_ids = cap;
            }
            x->ids[x->n_ids] = rl_strdup((const char *)id);
            if (!x->ids[x->n_ids])
                x->oom = true;
            else
                x->n_ids++;
            xmlFree(id);
        }
        collect_ids(x, n->children);
    }
}

static bool dropped_element(const xmlChar *name)
{
    static const char *const drop[] = {"script", "foreignObject", "iframe", "object",
                                       "embed",  "audio",         "video",  "handler"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        if (xmlStrcasecmp(name, BAD_CAST drop[i]) == 0)
            return true;
    return false;
}

static void set_attr_value(import_ctx *x, xmlNodePtr n, xmlAttrPtr a, const char *v)
{
    if (!xmlSetNsProp(n, a->ns, a->name, BAD_CAST v))
        x->oom = true;
}

static void rewrite_attrs(import_ctx *x, xmlNodePtr n)
{
    for (xmlAttrPtr a = n->properties; a && !x->oom;) {
        xmlAttrPtr next = a->next;
        const char *name = (const char *)a->name;
        xmlChar *val = xmlNodeListGetString(n->doc, a->children, 1);
        const char *v = val ? (const char *)val : "";
        if ((name[0] == 'o' || name[0] == 'O') && (name[1] == 'n' || name[1] == 'N')) {
            xmlRemoveProp(a); /* event handlers */
        } else if (strcmp(name, "href") == 0 || strcmp(name, "src") == 0) {
            bool image = xmlStrcmp(n->name, BAD_CAST "image") == 0;
            if (v[0] == '#') {
                char *nv = rl_asprintf("#%s%s", x->prefix, v + 1);
                if (nv)
                    set_attr_value(x, n, a, nv);
                else
                    x->oom = true;
                free(nv);
            } else if (!(image && (strncmp(v, "data:image/png;", 15) == 0 ||
                                   strncmp(v, "data:image/jpeg;", 16) == 0))) {
                xmlRemoveProp(a); /* nothing outside the page is ever loaded */
            }
        } else if (strcmp(name, "id") == 0 && !a->ns) {
            char *nv = rl_asprintf("%s%s", x->prefix, v);
            if (nv)
                set_attr_value(x, n, a, nv);
            else
                x->oom = true;
            free(nv);
        } else if (strstr(v, "url(")) {
            char *nv = rewrite_refs(x, v, false);
            if (nv)
                set_attr_value(x, n, a, nv);
            else
                x->oom = true;
            free(nv);
        }
        xmlFree(val);
        a = next;
    }
}

static void rewrite_tree(import_ctx *x, xmlNodePtr n)
{
    while (n && !x->oom) {
        xmlNodePtr next = n->next;
        switch (n->type) {
        case XML_ELEMENT_NODE:
            if (dropped_element(n->name)) {
                xmlUnlinkNode(n);
                xmlFreeNode(n);
                break;
            }
            rewrite_attrs(x, n);
            if (xmlStrcmp(n->name, BAD_CAST "style") == 0) {
                xmlChar *css = xmlNodeGetContent(n);
                char *nv = rewrite_refs(x, css ? (const char *)css : "", true);
                xmlFree(css);
                if (!nv) {
                    x->oom = true;
                } else if (strstr(nv, "</") || strstr(nv, "<!--")) {
                    xmlUnlinkNode(n); /* written raw in the page: it must not end itself */
                    xmlFreeNode(n);
                } else {
                    xmlNodeSetContent(n, NULL);
                    xmlNodeAddContent(n, BAD_CAST nv);
                }
                free(nv);
            } else {
                rewrite_tree(x, n->children);
            }
            break;
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE: break;
        default: /* comments, processing instructions, entity references */
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
        n = next;
    }
}

/* Replace the root's <title>/<desc> with the chart's, first, with ids; aria-labelledby. */
static void label_root(import_ctx *x, xmlNodePtr root, const rl_chart *c)
{
    for (xmlNodePtr n = root->children; n;) {
        xmlNodePtr next = n->next;
        if (n->type == XML_ELEMENT_NODE && (xmlStrcmp(n->name, BAD_CAST "title") == 0 ||
                                            xmlStrcmp(n->name, BAD_CAST "desc") == 0)) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
        n = next;
    }
    char *title = rl_html_safe_text(c->title ? c->title : c->id);
    char *desc = rl_html_safe_text(c->desc);
    char *tid = rl_asprintf("%stitle", x->prefix);
    char *did = rl_asprintf("%sdesc", x->prefix);
    char *both = rl_asprintf("%stitle %sdesc", x->prefix, x->prefix);
    xmlNodePtr t = xmlNewDocNode(root->doc, root->ns, BAD_CAST "title", NULL);
    xmlNodePtr d = xmlNewDocNode(root->doc, root->ns, BAD_CAST "desc", NULL);
    if (!title || !desc || !tid || !did || !both || !t || !d) {
        x->oom = true;
        xmlFreeNode(t);
        xmlFreeNode(d);
    } else {
        xmlNodeAddContent(t, BAD_CAST title);
        xmlNodeAddContent(d, BAD_CAST desc);
        xmlSetProp(t, BAD_CAST "id", BAD_CAST tid);
        xmlSetProp(d, BAD_CAST "id", BAD_CAST did);
        if (root->children) {
            xmlAddPrevSibling(root->children, d);
            xmlAddPrevSibling(d, t);
        } else {
            xmlAddChild(root, t);
            xmlAddChild(root, d);
        }
        xmlUnsetProp(root, BAD_CAST "width");
        xmlUnsetProp(root, BAD_CAST "height");
        if (!xmlSetProp(root, BAD_CAST "role", BAD_CAST "img") ||
            !xmlSetProp(root, BAD_CAST "aria-labelledby", BAD_CAST both) ||
            !xmlSetProp(root, BAD_CAST "class", BAD_CAST "chart-svg"))
            x->oom = true;
    }
    free(title);
    free(desc);
    free(tid);
    free(did);
    free(both);
}

static bool is_number(const char *s)
{
    if (!s || !*s)
        return false;
    char *end;
    double v = strtod_l(s, &end, rl_c_locale());
    return end != s && *end == '\0' && isfinite(v);
}

static void data_table(rl_html *h, xmlNodePtr fig, const rl_chart *c)
{
    xmlNodePtr det = rl_html_el(h, fig, "details", "data");
    rl_html_el_textf(h, det, "summary", NULL, "The plotted numbers (%zu %s)", c->n_rows,
                     c->n_rows == 1 ? "row" : "rows");
    xmlNodePtr wrap = rl_html_el(h, det, "div", "table-wrap");
    xmlNodePtr table = rl_html_el(h, wrap, "table", "data-table");
    xmlNodePtr tr = rl_html_el(h, rl_html_el(h, table, "thead", NULL), "tr", NULL);
    for (size_t j = 0; j < c->n_cols; j++) {
        xmlNodePtr th = rl_html_el_text(h, tr, "th", NULL, c->cols[j]);
        rl_html_attr(h, th, "scope", "col");
    }
    xmlNodePtr tbody = rl_html_el(h, table, "tbody", NULL);
    for (size_t i = 0; i < c->n_rows && !h->oom; i++) {
        tr = rl_html_el(h, tbody, "tr", NULL);
        for (size_t j = 0; j < c->n_cols; j++) {
            const char *v = c->cells[i * c->n_cols + j];
            rl_html_el_text(h, tr, "td", is_number(v) ? "num" : NULL, v);
        }
    }
}

rl_status rl_html_add_chart(rl_html *h, xmlNodePtr parent, const rl_chart *c, xmlNodePtr *fig,
                            rl_error *err)
{
    *fig = NULL;
    const char *cid = c->id ? c->id : "chart";
    if (!c->svg || c->svg_len == 0 || c->svg_len > INT_MAX)
        return rl_fail(err, RL_EINTERNAL, "chart %s: no SVG", cid);
    xmlDocPtr sd = xmlReadMemory(c->svg, (int)c->svg_len, "chart.svg", "UTF-8",
                                 XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR |
                                     XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
    xmlNodePtr root = sd ? xmlDocGetRootElement(sd) : NULL;
    if (!root || sd->intSubset || xmlStrcmp(root->name, BAD_CAST "svg") != 0 || !root->ns ||
        xmlStrcmp(root->ns->href, BAD_CAST SVG_NS) != 0) {
        xmlFreeDoc(sd);
        return rl_fail(err, RL_EINTERNAL,
                       "chart %s: the SVG does not parse or is not an SVG document (a bug)", cid);
    }
    char prefix[96];
    rl_html_chart_prefix(cid, prefix, sizeof prefix);
    import_ctx x = {prefix, NULL, 0, 0, false};
    collect_ids(&x, root);
    rewrite_attrs(&x, root);
    rewrite_tree(&x, root->children);
    label_root(&x, root, c);
    for (size_t i = 0; i < x.n_ids; i++)
        free(x.ids[i]);
    free(x.ids);
    xmlNodePtr svg = x.oom ? NULL : xmlDocCopyNode(root, h->doc, 1);
    xmlFreeDoc(sd);
    if (!svg)
        return rl_fail(err, RL_EINTERNAL, "chart %s: out of memory", cid);

    char *fid = rl_asprintf("fig-%s", prefix + 2);
    if (fid && fid[strlen(fid) - 1] == '-')
        fid[strlen(fid) - 1] = '\0';
    xmlNodePtr f = rl_html_el(h, parent, "figure", "chart");
    rl_html_attr(h, f, "id", fid ? fid : "fig");
    free(fid);
    xmlNodePtr cap = rl_html_el(h, f, "figcaption", NULL);
    rl_html_el_text(h, cap, "span", "fig-title", c->title ? c->title : cid);
    if (c->desc && *c->desc) {
        rl_html_text(h, cap, " ");
        rl_html_el_text(h, cap, "span", "fig-desc", c->desc);
    }
    xmlNodePtr box = rl_html_el(h, f, "div", "chart-box");
    if (!box || !xmlAddChild(box, svg)) {
        xmlFreeNode(svg);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    data_table(h, f, c);
    if (h->oom)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    *fig = f;
    return RL_OK;
}

rl_status rl_html_chart_or_missing(rl_html *h, xmlNodePtr parent, xmlNodePtr missing_parent,
                                   xmlNodePtr *missing, rl_html_chart_fn fn, const cJSON *bundle,
                                   const char *what, xmlNodePtr *fig, rl_error *err)
{
    *fig = NULL;
    rl_chart c;
    rl_error e = {RL_OK, ""};
    memset(&c, 0, sizeof c);
    rl_status st = fn(bundle, &c, &e);
    if (st == RL_NOTHING) {
        if (!*missing)
            *missing = rl_html_el(h, missing_parent, "ul", "missing");
        rl_html_el_textf(h, *missing, "li", NULL, "No chart of %s: %s.", what,
                         e.msg[0] ? e.msg : "nothing to plot");
        return RL_NOTHING;
    }
    if (st != RL_OK) {
        rl_chart_free(&c);
        *err = e;
        return rl_prefix(err, "report: chart of %s", what);
    }
    st = rl_html_add_chart(h, parent, &c, fig, err);
    rl_chart_free(&c);
    return st;
}
