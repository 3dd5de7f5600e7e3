/* SPDX-License-Identifier: MIT */
/* html_doc.h: building an HTML page as a libxml2 tree, never as concatenated strings.
 *
 * Every string reaches the page as a text node (or an attribute value set through libxml2),
 * so the serializer escapes it; nothing from a bundle is ever parsed as markup. Text is first
 * made safe for a page (rl_html_safe_text): bytes that are not UTF-8 become U+FFFD, control
 * characters become visible escapes (\e, \x07, \u009b) as on the terminal, and the code points
 * XML forbids (U+FFFE, U+FFFF and the other non-characters) become U+FFFD.
 *
 * Out of memory: the helpers record it in the context (h->oom) and return NULL; callers check
 * h->oom once at the end. Nodes belong to h->doc.
 *
 * Serialization (rl_html_serialize) is libxml2's HTML serializer: "<!DOCTYPE html>", void
 * elements without end tags, every other element closed explicitly (so inlined SVG parses the
 * same in a browser), the text of <script> and <style> written raw (the caller guarantees it
 * cannot close its element: see rl_html_json_for_script). Output is deterministic. */
#ifndef RL_HTML_DOC_H
#define RL_HTML_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>
#include <libxml/tree.h>

#include "base/rl_error.h"

typedef struct {
    xmlDocPtr doc;
    bool oom;
    /* Set before rl_html_embed_json to stream the embedded JSON when the page is written
     * (rl_html_emit) instead of holding it in the tree: the page of a bundle of hundreds of MB
     * then never holds its JSON text more than one piece at a time. */
    bool defer;
    const cJSON *deferred; /* the JSON rl_html_emit writes in place of RL_HTML_EMBED_MARK */
} rl_html;

/* The text a deferred <script> holds until rl_html_emit writes the JSON in its place. */
#define RL_HTML_EMBED_MARK "@@llama-roofline-embedded-json@@"

/* A new element (no namespace) appended to parent (or unattached when parent is NULL), with
 * class cls when not NULL. */
xmlNodePtr rl_html_el(rl_html *h, xmlNodePtr parent, const char *name, const char *cls);
/* The same with a text child. */
xmlNodePtr rl_html_el_text(rl_html *h, xmlNodePtr parent, const char *name, const char *cls,
                           const char *text);
xmlNodePtr rl_html_el_textf(rl_html *h, xmlNodePtr parent, const char *name, const char *cls,
                            const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Set an attribute (value made safe like text). */
void rl_html_attr(rl_html *h, xmlNodePtr node, const char *name, const char *value);
/* Append text (made safe) to parent; NULL or "" appends nothing. */
void rl_html_text(rl_html *h, xmlNodePtr parent, const char *s);
/* Formatted text in the C locale. */
void rl_html_textf(rl_html *h, xmlNodePtr parent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A table in a scrolling wrapper (div.table-wrap) under parent, of class cls (NULL: none),
 * with a head row of the n column heads cols (scope col; numeric[i] marks column i "num",
 * right-aligned; numeric NULL: none); its tbody. The one way a page makes a table. */
xmlNodePtr rl_html_table(rl_html *h, xmlNodePtr parent, const char *cls, const char *const *cols,
                         const bool *numeric, size_t n);

/* The element with this id attribute, or NULL. */
xmlNodePtr rl_html_by_id(xmlNodePtr root, const char *id);

/* s made safe for a page (see above): a new string the caller frees, NULL when out of memory.
 * NULL s gives "". */
char *rl_html_safe_text(const char *s);

/* Replace every string value and key of the tree that is not UTF-8 by its repair (each bad
 * byte becomes U+FFFD). False when out of memory. */
bool rl_html_repair_json(cJSON *item);
/* Whether every string value and key of item and of the items after it (its siblings) is
 * UTF-8 already: rl_html_repair_json would change nothing (a page need not copy the tree). */
bool rl_html_json_is_utf8(const cJSON *item);

/* The JSON text of a bundle for <script type="application/json">: printed like bundle.json
 * (rl_json_print), with every non-ASCII character written as a \u escape (so the text is
 * ASCII whatever the bundle holds), every "</" as "<\/" and every "<!--" as "\u003c!--", so
 * it can neither end its element nor change how the HTML tokenizer reads it. JSON.parse
 * gives back the same tree. Caller frees; NULL when out of memory. */
char *rl_html_json_for_script(const cJSON *bundle);
/* The same printed without layout (no newlines or tabs between tokens): for large data
 * (the history page). Caller frees; NULL when out of memory. */
char *rl_html_json_for_script_compact(const cJSON *j);
/* Parse a built-in page template (name for messages, e.g. "report.xml"; no network) into
 * h->doc with comments and processing instructions removed, its root element in *root.
 * RL_EINTERNAL "WHAT: the built-in template does not parse" (h->doc may still need
 * xmlFreeDoc, which the caller always calls). */
rl_status rl_html_load_template(rl_html *h, const unsigned char *xml, size_t len, const char *name,
                                const char *what, xmlNodePtr *root, rl_error *err);
/* Put rl_html_json_for_script(j) into the <script> element script (with h->defer, the marker
 * instead, j kept in h->deferred: j must outlive the write), then check h->oom:
 * RL_EINTERNAL "WHAT: out of memory" when the text or the element is missing or h ran out. */
rl_status rl_html_embed_json(rl_html *h, xmlNodePtr script, const cJSON *j, const char *what,
                             rl_error *err);

/* The same with rl_html_json_for_script_compact. */
rl_status rl_html_embed_json_compact(rl_html *h, xmlNodePtr script, const cJSON *j,
                                     const char *what, rl_error *err);
/* A page's own data, made for it and taken here: j's strings repaired (rl_html_repair_json),
 * embedded as rl_html_embed_json (not deferred) or, compact, rl_html_embed_json_compact, then
 * deleted. RL_EINTERNAL "WHAT: out of memory" when j is NULL or anything runs out. */
rl_status rl_html_embed_owned(rl_html *h, xmlNodePtr script, cJSON *j, bool compact,
                              const char *what, rl_error *err);

/* The document as HTML text (UTF-8, "<!DOCTYPE html>" first). Caller frees *out. */
rl_status rl_html_serialize(xmlDocPtr doc, char **out, size_t *len, rl_error *err);

/* Where rl_html_emit writes a page, piece by piece. */
typedef rl_status (*rl_html_put_fn)(void *ctx, const char *data, size_t len, rl_error *err);
/* The document serialized (rl_html_serialize) with a deferred JSON (h->defer) written where
 * its script's marker stands, top-level members and their members one by one, each made
 * script-safe as rl_html_json_for_script makes the whole (without its layout: JSON.parse gives
 * the same tree); RL_EINTERNAL when the marker is not in the page exactly once. */
rl_status rl_html_emit(rl_html *h, rl_html_put_fn put, void *ctx, rl_error *err);
/* rl_html_emit into memory (*out the caller's; the bytes rl_html_write writes to a file, but
 * for the terminal safety rl_write_output gives a file). */
rl_status rl_html_to_text(rl_html *h, char **out, size_t *len, rl_error *err);
/* rl_html_emit to path as rl_write_output writes an RL_TTY_JSON document ("-" standard
 * output; a file atomically, never through a symbolic link), each piece made terminal-safe. */
rl_status rl_html_write(rl_html *h, const char *path, rl_error *err);

#endif
