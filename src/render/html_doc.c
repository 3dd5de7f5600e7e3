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

/* text (taken) made safe for <script>, as rl_html_json_for_script says. */
static char *script_safe(char *text)
{
    if (!text)
        return NULL;
    rl_sbuf b = {0};
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            if (p[i] == '<' && i + 1 < n && p[i + 1] == '/') {
                rl_sbuf_put(&b, "<\\/", 3);
                i += 2;
            } else if (p[i] == '<' && n - i >= 4 && memcmp(p + i, "<!--", 4) == 0) {
                rl_sbuf_put(&b, "\\u003c!--", 9);
                i += 4;
            } else {
                rl_sbuf_put(&b, (const char *)p + i, 1);
                i++;
            }
            continue;
        }
        /* non-ASCII only occurs inside JSON strings: write it as \u escapes */
        size_t k = rl_utf8_seq(p + i, n - i);
        uint32_t c = k ? decode_utf8(p + i, k) : 0xFFFD;
        if (c >= 0x10000) {
            c -= 0x10000;
            sb_u16(&b, 0xD800 + (c >> 10));
            sb_u16(&b, 0xDC00 + (c & 0x3FF));
        } else {
            sb_u16(&b, c);
        }
        i += k ? k : 1;
    }
    free(text);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* ---- tree helpers ---------------------------------------------------------------------- */

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

char *rl_html_json_for_script(const cJSON *bundle)
{
    return script_safe(rl_json_print(bundle));
}

char *rl_html_json_for_script_compact(const cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    char *c = t ? rl_strdup(t) : NULL; /* freed with free() like the other */
    cJSON_free(t);
    return script_safe(c);
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
    return embed(h, script, rl_html_json_for_script(j), what, err);
}

rl_status rl_html_embed_json_compact(rl_html *h, xmlNodePtr script, const cJSON *j,
                                     const char *what, rl_error *err)
{
    return embed(h, script, rl_html_json_for_script_compact(j), what, err);
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
