/* SPDX-License-Identifier: MIT */
/* html_doc.c: libxml2 tree helpers for pages, safe text, the embedded JSON, serialization.
 * See html_doc.h. */
#include "render/html_doc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/xmlIO.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* ---- safe text ------------------------------------------------------------------------- */

static uint32_t decode_utf8(const unsigned char *p, size_t k)
{
    switch (k) {
    case 1: return p[0];
    case 2: return ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
    case 3: return ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    default:
        return ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
               ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    }
}

static bool noncharacter(uint32_t c)
{
    return (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

char *rl_html_safe_text(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > (SIZE_MAX - 1) / 6)
        return NULL;
    char *out = malloc(n * 6 + 1); /* "\u009f" (6) is the longest piece per input byte */
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = rl_utf8_seq(p + i, n - i);
        if (k == 0) { /* not UTF-8: U+FFFD (3 bytes for 1) */
            memcpy(out + o, REPLACEMENT, 3);
            o += 3;
            i++;
            continue;
        }
        uint32_t c = decode_utf8(p + i, k);
        if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7F) || (c >= 0xA0 && !noncharacter(c))) {
            memcpy(out + o, p + i, k);
            o += k;
        } else if (c == 0x1B) {
            memcpy(out + o, "\\e", 2);
            o += 2;
        } else if (c == '\r') {
            memcpy(out + o, "\\r", 2);
            o += 2;
        } else if (c < 0x80) {
            o += (size_t)snprintf(out + o, 5, "\\x%02x", (unsigned)c);
        } else if (c < 0xA0) {
            o += (size_t)snprintf(out + o, 7, "\\u%04x", (unsigned)c);
        } else {
            memcpy(out + o, REPLACEMENT, 3);
            o += 3;
        }
        i += k;
    }
    out[o] = '\0';
    return out;
}

/* s with every byte that is not UTF-8 replaced by U+FFFD; NULL when s is valid (no copy
 * needed) or when out of memory (*oom set). */
static char *repair_utf8(const char *s, bool *oom)
{
    size_t n = strlen(s);
    if (rl_utf8_valid(s, n))
        return NULL;
    char *out = malloc(n * 3 + 1);
    if (!out) {
        *oom = true;
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = rl_utf8_seq((const unsigned char *)s + i, n - i);
        if (k == 0) {
            memcpy(out + o, REPLACEMENT, 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

/* Recursion is bounded by cJSON's nesting limit (CJSON_NESTING_LIMIT, 1000 levels). */
bool rl_html_json_is_utf8(const cJSON *item)
{
    for (; item; item = item->next) {
        if (item->string && !rl_utf8_valid(item->string, strlen(item->string)))
            return false;
        if (cJSON_IsString(item) && item->valuestring &&
            !rl_utf8_valid(item->valuestring, strlen(item->valuestring)))
            return false;
        if (item->child && !rl_html_json_is_utf8(item->child))
            return false;
    }
    return true;
}

bool rl_html_repair_json(cJSON *item)
{
    bool oom = false;
    if (!item)
        return true;
    if (item->string && !(item->type & cJSON_StringIsConst)) {
        char *r = repair_utf8(item->string, &oom);
        if (r) {
            cJSON_free(item->string);
            item->string = r;
        }
    }
    if (cJSON_IsString(item) && item->valuestring) {
        char *r = repair_utf8(item->valuestring, &oom);
        if (r) {
            cJSON_free(item->valuestring);
            item->valuestring = r;
        }
    }
    for (cJSON *c = item->child; c && !oom; c = c->next)
        oom = !rl_html_repair_json(c);
    return !oom;
}

/* ---- the embedded JSON ----------------------------------------------------------------- */

static void sb_u16(rl_sbuf *b, unsigned v)
{
    char e[8];
    snprintf(e, sizeof e, "\\u%04x", v & 0xFFFF);
    rl_sbuf_put(b, e, 6);
}

/* JSON text made script-safe (see rl_html_json_for_script), appended to b. */
static void script_escape(rl_sbuf *b, const char *text, size_t n)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            if (p[i] == '<' && i + 1 < n && p[i + 1] == '/') {
                rl_sbuf_put(b, "<\\/", 3);
                i += 2;
            } else if (p[i] == '<' && n - i >= 4 && memcmp(p + i, "<!--", 4) == 0) {
                rl_sbuf_put(b, "\\u003c!--", 9);
                i += 4;
            } else { /* a run of plain ASCII at once */
                size_t j = i + 1;
                while (j < n && p[j] < 0x80 && p[j] != '<')
                    j++;
                rl_sbuf_put(b, (const char *)p + i, j - i);
                i = j;
            }
            continue;
        }
        /* non-ASCII only occurs inside JSON strings: write it as \u escapes */
        size_t k = rl_utf8_seq(p + i, n - i);
        uint32_t c = k ? decode_utf8(p + i, k) : 0xFFFD;
        if (c >= 0x10000) {
            c -= 0x10000;
            sb_u16(b, 0xD800 + (c >> 10));
            sb_u16(b, 0xDC00 + (c & 0x3FF));
        } else {
            sb_u16(b, c);
        }
        i += k ? k : 1;
    }
}

/* text (taken, freed with free) made safe for <script>, as rl_html_json_for_script says. */
static char *script_safe(char *text)
{
    if (!text)
        return NULL;
    rl_sbuf b = {0};
    script_escape(&b, text, strlen(text));
    free(text);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

char *rl_html_json_for_script(const cJSON *bundle)
{
    return script_safe(rl_json_print(bundle));
}

char *rl_html_json_for_script_compact(const cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    if (!t)
        return NULL;
    rl_sbuf b = {0};
    script_escape(&b, t, strlen(t));
    cJSON_free(t);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ---- tree helpers ---------------------------------------------------------------------- */

xmlNodePtr rl_html_table(rl_html *h, xmlNodePtr parent, const char *cls, const char *const *cols,
                         const bool *numeric, size_t n)
{
    xmlNodePtr wrap = rl_html_el(h, parent, "div", "table-wrap");
    xmlNodePtr t = rl_html_el(h, wrap, "table", cls);
    xmlNodePtr tr = rl_html_el(h, rl_html_el(h, t, "thead", NULL), "tr", NULL);
    for (size_t i = 0; i < n; i++) {
        xmlNodePtr th = rl_html_el_text(h, tr, "th", numeric && numeric[i] ? "num" : NULL, cols[i]);
        rl_html_attr(h, th, "scope", "col");
    }
    return rl_html_el(h, t, "tbody", NULL);
}

void rl_html_text(rl_html *h, xmlNodePtr parent, const char *s)
{
    if (!parent || !s || !*s)
        return;
    char *t = rl_html_safe_text(s);
    xmlNodePtr n = t ? xmlNewDocText(h->doc, BAD_CAST t) : NULL;
    free(t);
    if (!n || !xmlAddChild(parent, n)) {
        xmlFreeNode(n);
        h->oom = true;
    }
}

void rl_html_textf(rl_html *h, xmlNodePtr parent, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[1024];
    int w = rl_vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (w < 0) {
        h->oom = true;
        return;
    }
    if ((size_t)w < sizeof small) {
        rl_html_text(h, parent, small);
        return;
    }
    char *big = malloc((size_t)w + 1);
    if (!big) {
        h->oom = true;
        return;
    }
    va_start(ap, fmt);
    rl_vsnprintf(big, (size_t)w + 1, fmt, ap);
    va_end(ap);
    rl_html_text(h, parent, big);
    free(big);
}

void rl_html_attr(rl_html *h, xmlNodePtr node, const char *name, const char *value)
{
    if (!node)
        return;
    char *v = rl_html_safe_text(value);
    if (!v || !xmlSetProp(node, BAD_CAST name, BAD_CAST v))
        h->oom = true;
    free(v);
}

xmlNodePtr rl_html_el(rl_html *h, xmlNodePtr parent, const char *name, const char *cls)
{
    if (h->oom)
        return NULL;
    xmlNodePtr n = xmlNewDocNode(h->doc, NULL, BAD_CAST name, NULL);
    if (!n) {
        h->oom = true;
        return NULL;
    }
    if (parent && !xmlAddChild(parent, n)) {
        xmlFreeNode(n);
        h->oom = true;
        return NULL;
    }
    if (cls)
        rl_html_attr(h, n, "class", cls);
    return n;
}

xmlNodePtr rl_html_el_text(rl_html *h, xmlNodePtr parent, const char *name, const char *cls,
                           const char *text)
{
    xmlNodePtr n = rl_html_el(h, parent, name, cls);
    rl_html_text(h, n, text);
    return n;
}

xmlNodePtr rl_html_el_textf(rl_html *h, xmlNodePtr parent, const char *name, const char *cls,
                            const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return rl_html_el_text(h, parent, name, cls, buf);
}

xmlNodePtr rl_html_by_id(xmlNodePtr root, const char *id)
{
    for (xmlNodePtr n = root; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        xmlChar *v = xmlGetNoNsProp(n, BAD_CAST "id");
        bool hit = v && strcmp((const char *)v, id) == 0;
        xmlFree(v);
        if (hit)
            return n;
        xmlNodePtr in = rl_html_by_id(n->children, id);
        if (in)
            return in;
    }
    return NULL;
}

/* ---- serialization --------------------------------------------------------------------- */

rl_status rl_html_serialize(xmlDocPtr doc, char **out, size_t *len, rl_error *err)
{
    *out = NULL;
    *len = 0;
    if (!doc->intSubset && !xmlCreateIntSubset(doc, BAD_CAST "html", NULL, NULL))
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    /* no encoder: libxml2's internal UTF-8 goes out as it is */
    xmlOutputBufferPtr ob = xmlAllocOutputBuffer(NULL);
    if (!ob)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    htmlDocContentDumpFormatOutput(ob, doc, "UTF-8", 1);
    xmlOutputBufferFlush(ob);
    const xmlChar *content = xmlOutputBufferGetContent(ob);
    size_t n = xmlOutputBufferGetSize(ob);
    if (ob->error || !content) {
        xmlOutputBufferClose(ob);
        return rl_fail(err, RL_EINTERNAL, "cannot serialize the page (out of memory)");
    }
    char *text = malloc(n + 1);
    if (!text) {
        xmlOutputBufferClose(ob);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    memcpy(text, content, n);
    text[n] = '\0';
    xmlOutputBufferClose(ob);
    *out = text;
    *len = n;
    return RL_OK;
}

static rl_status embed(rl_html *h, xmlNodePtr script, char *json, const char *what, rl_error *err)
{
    if (!json || !script) {
        free(json);
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", what);
    }
    xmlNodeAddContent(script, BAD_CAST json);
    free(json);
    if (h->oom)
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", what);
    return RL_OK;
}

rl_status rl_html_embed_json(rl_html *h, xmlNodePtr script, const cJSON *j, const char *what,
                             rl_error *err)
{
    if (h->defer && script) {
        h->deferred = j;
        xmlNodeAddContent(script, BAD_CAST RL_HTML_EMBED_MARK);
        return h->oom ? rl_fail(err, RL_EINTERNAL, "%s: out of memory", what) : RL_OK;
    }
    return embed(h, script, rl_html_json_for_script(j), what, err);
}

rl_status rl_html_embed_json_compact(rl_html *h, xmlNodePtr script, const cJSON *j,
                                     const char *what, rl_error *err)
{
    return embed(h, script, rl_html_json_for_script_compact(j), what, err);
}

rl_status rl_html_embed_owned(rl_html *h, xmlNodePtr script, cJSON *j, bool compact,
                              const char *what, rl_error *err)
{
    rl_status st;
    if (!j || !rl_html_repair_json(j))
        st = rl_fail(err, RL_EINTERNAL, "%s: out of memory", what);
    else if (compact)
        st = rl_html_embed_json_compact(h, script, j, what, err);
    else
        st = embed(h, script, rl_html_json_for_script(j), what, err);
    cJSON_Delete(j);
    return st;
}

static void drop_comments(xmlNodePtr n)
{
    while (n) {
        xmlNodePtr next = n->next;
        if (n->type == XML_COMMENT_NODE || n->type == XML_PI_NODE) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        } else if (n->type == XML_ELEMENT_NODE) {
            drop_comments(n->children);
        }
        n = next;
    }
}

rl_status rl_html_load_template(rl_html *h, const unsigned char *xml, size_t len, const char *name,
                                const char *what, xmlNodePtr *root, rl_error *err)
{
    h->doc = xmlReadMemory((const char *)xml, (int)len, name, "UTF-8",
                           XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR |
                               XML_PARSE_NOWARNING);
    *root = h->doc ? xmlDocGetRootElement(h->doc) : NULL;
    if (!*root)
        return rl_fail(err, RL_EINTERNAL, "%s: the built-in template does not parse", what);
    drop_comments(h->doc->children);
    return RL_OK;
}

/* ---- writing a page with its deferred JSON ------------------------------------------- */

typedef struct {
    rl_html_put_fn put;
    void *ctx;
    rl_error *err;
    rl_status st;
} emitter;

static void emit(emitter *e, const char *data, size_t len)
{
    if (e->st == RL_OK && len)
        e->st = e->put(e->ctx, data, len, e->err);
}

/* A piece of JSON text, script-safe. */
static void emit_json_text(emitter *e, char *text)
{
    if (!text) {
        if (e->st == RL_OK)
            e->st = rl_fail(e->err, RL_EINTERNAL, "the page's JSON: out of memory");
        return;
    }
    rl_sbuf b = {0};
    script_escape(&b, text, strlen(text));
    cJSON_free(text);
    if (b.oom && e->st == RL_OK)
        e->st = rl_fail(e->err, RL_EINTERNAL, "the page's JSON: out of memory");
    emit(e, b.p, b.len);
    free(b.p);
}

/* item, its containers opened at every depth and each value printed alone, so no copy of a
 * whole section (a run's samples) is ever made; a compact array (rl_json.h) is one value. */
static void emit_json(emitter *e, const cJSON *item)
{
    bool obj = cJSON_IsObject(item), arr = cJSON_IsArray(item);
    if (!obj && !arr) {
        emit_json_text(e, cJSON_PrintUnformatted(item));
        return;
    }
    emit(e, obj ? "{" : "[", 1);
    for (const cJSON *c = item->child; c && e->st == RL_OK; c = c->next) {
        if (c != item->child)
            emit(e, ",", 1);
        if (obj) {
            cJSON *key = cJSON_CreateString(c->string ? c->string : "");
            emit_json_text(e, key ? cJSON_PrintUnformatted(key) : NULL);
            cJSON_Delete(key);
            emit(e, ":", 1);
        }
        emit_json(e, c);
    }
    emit(e, obj ? "}" : "]", 1);
}

rl_status rl_html_emit(rl_html *h, rl_html_put_fn put, void *ctx, rl_error *err)
{
    char *page;
    size_t len;
    rl_status st = rl_html_serialize(h->doc, &page, &len, err);
    if (st != RL_OK)
        return st;
    emitter e = {put, ctx, err, RL_OK};
    static const char mark[] = ">" RL_HTML_EMBED_MARK "</script>";
    char *at = h->deferred ? strstr(page, mark) : NULL;
    if (h->deferred && (!at || strstr(at + 1, mark))) {
        free(page);
        return rl_fail(err, RL_EINTERNAL, "the page's embedded JSON has no single place");
    }
    if (!at) {
        emit(&e, page, len);
    } else {
        emit(&e, page, (size_t)(at - page) + 1);
        emit_json(&e, h->deferred);
        size_t tail = (size_t)(at - page) + 1 + strlen(RL_HTML_EMBED_MARK);
        emit(&e, page + tail, len - tail);
    }
    free(page);
    return e.st;
}

static rl_status put_sbuf(void *ctx, const char *data, size_t len, rl_error *err)
{
    rl_sbuf *b = ctx;
    rl_sbuf_put(b, data, len);
    return b->oom ? rl_fail(err, RL_EINTERNAL, "the page: out of memory") : RL_OK;
}

rl_status rl_html_to_text(rl_html *h, char **out, size_t *len, rl_error *err)
{
    rl_sbuf b = {0};
    rl_status st = rl_html_emit(h, put_sbuf, &b, err);
    if (st == RL_OK && !b.p)
        rl_sbuf_put(&b, "", 0);
    if (st != RL_OK || b.oom || !b.p) {
        free(b.p);
        *out = NULL;
        *len = 0;
        return st != RL_OK ? st : rl_fail(err, RL_EINTERNAL, "the page: out of memory");
    }
    *out = b.p;
    *len = b.len;
    return RL_OK;
}

typedef struct {
    bool to_stdout;
    rl_atomic a;
} file_out;

static rl_status put_file(void *ctx, const char *data, size_t len, rl_error *err)
{
    file_out *f = ctx;
    if (f->to_stdout) { /* made terminal-safe there; a failed write is main's stdout check */
        rl_tty_write(stdout, data, len, RL_TTY_JSON);
        return RL_OK;
    }
    size_t n;
    char *safe = rl_tty_safe(data, len, RL_TTY_JSON, &n);
    if (!safe)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st = rl_atomic_write(&f->a, safe, n, err);
    free(safe);
    return st;
}

rl_status rl_html_write(rl_html *h, const char *path, rl_error *err)
{
    file_out f = {.to_stdout = strcmp(path, "-") == 0};
    if (f.to_stdout)
        return rl_html_emit(h, put_file, &f, err);
    rl_status st = rl_atomic_open(path, &f.a, err);
    if (st != RL_OK)
        return st;
    f.a.finish = true; /* results being saved: complete after Ctrl-C */
    st = rl_html_emit(h, put_file, &f, err);
    if (st == RL_OK)
        st = rl_atomic_commit(&f.a, err);
    rl_atomic_abort(&f.a);
    return st;
}
