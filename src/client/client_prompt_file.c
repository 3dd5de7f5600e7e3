/* SPDX-License-Identifier: MIT */
/* client_prompt_file.c: prompt files (client_prompts.h): the format told by the content (a
 * JSON document, JSON Lines or plain text), JSON read through cJSON, plain text by lines or
 * by paragraphs; every error one line naming the file and the line or item. Ownership as in
 * the header. */
#include "client/client_prompts.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_space(s[i]))
            return false;
    return true;
}

/* The 1-based line of byte at. */
static size_t line_of(const char *text, size_t at)
{
    size_t line = 1;
    for (size_t i = 0; i < at; i++)
        line += text[i] == '\n';
    return line;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* One JSON prompt: where names it in messages ("f.jsonl:3", "f.json: item 3"); strings: a
 * bare string is a prompt (a JSON document's item); def_id: the id when it names none. */
static rl_status add_item(const char *where, const cJSON *it, bool strings, const char *def_id,
                          rl_client_prompts *p, rl_error *err)
{
    if (p->n >= RL_CLIENT_PROMPTS_MAX)
        return rl_fail(err, RL_EINPUT, "%s: more than %d prompts: split the file", where,
                       RL_CLIENT_PROMPTS_MAX);
    const cJSON *pr = it, *id = NULL, *mt = NULL;
    const char *idkey = "id";
    if (!strings || !cJSON_IsString(it)) {
        if (!cJSON_IsObject(it))
            return rl_fail(err, RL_EINPUT,
                           strings ? "%s: not a string or an object"
                                   : "%s: not a JSON object: give {\"id\": ..., \"prompt\": ...} "
                                     "per line",
                           where);
        pr = member(it, "prompt") ? member(it, "prompt") : member(it, "text");
        id = member(it, "id");
        if (!id && (id = member(it, "name")) != NULL)
            idkey = "name";
        mt = member(it, "max_tokens");
    }
    rl_status st = RL_OK;
    size_t plen = cJSON_IsString(pr) ? strlen(pr->valuestring) : 0;
    if (!cJSON_IsString(pr))
        st = rl_fail(err, RL_EINPUT, "%s: \"prompt\" (or \"text\") is missing or not a string",
                     where);
    else if (plen > RL_CLIENT_PROMPT_BYTES_MAX)
        st = rl_fail(err, RL_EINPUT, "%s: the prompt is longer than 1 MiB", where);
    else if (blank(pr->valuestring, plen))
        st = rl_fail(err, RL_EINPUT, "%s: the prompt is empty", where);
    else if (!rl_utf8_valid(pr->valuestring, plen))
        st = rl_fail(err, RL_EINPUT, "%s: the prompt is not valid UTF-8", where);
    else if (id && (!cJSON_IsString(id) || !id->valuestring[0] ||
                    strlen(id->valuestring) > RL_CLIENT_PROMPT_ID_MAX ||
                    !rl_utf8_valid(id->valuestring, strlen(id->valuestring))))
        st = rl_fail(err, RL_EINPUT,
                     "%s: \"%s\" must be a non-empty UTF-8 string of at most %d bytes", where,
                     idkey, RL_CLIENT_PROMPT_ID_MAX);
    else if (mt && (!cJSON_IsNumber(mt) || mt->valuedouble != (double)(int)mt->valuedouble ||
                    mt->valuedouble < 1 || mt->valuedouble > 1000000))
        st = rl_fail(err, RL_EINPUT, "%s: \"max_tokens\" must be a whole number from 1 to 1000000",
                     where);
    if (st != RL_OK)
        return st;
    const char *ids = id ? id->valuestring : def_id;
    if (rl_client_prompts_has_id(p, ids)) {
        char sid[300];
        return rl_fail(err, RL_EINPUT, "%s: the id '%s' is used twice: ids must be unique", where,
                       rl_tty_escape(ids, sid, sizeof sid));
    }
    if (!rl_client_prompts_add(p, ids, pr->valuestring, plen, mt ? (int)mt->valuedouble : 0))
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory keeping the prompt", where);
    return RL_OK;
}

/* ---- JSON documents */

/* The whole text as one JSON document (rl_json_parse); a syntax error or trailing text names
 * its line: "f.json:4: not valid JSON (...)". detail gets the message after the file's name
 * ("line 4: not valid JSON (...)"); *holds_prompts: it failed, yet is one object with a
 * "prompts" member (a key twice, a number too large). */
static rl_status parse_document(const char *safe, const char *text, size_t len, cJSON **root,
                                char *detail, size_t cap, bool *holds_prompts, rl_error *err)
{
    rl_status st = rl_json_parse(safe, text, len, root, err);
    detail[0] = '\0';
    *holds_prompts = false;
    if (st != RL_EINPUT || !err)
        return st;
    bool oom = false;
    const char *end = NULL;
    cJSON *r = rl_json_parse_raw(text, len, &end, &oom);
    size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    bool whole = false; /* it parsed: the error is the text after it, or on no line (a key twice) */
    if (r) {
        while (at < len && is_space(text[at]))
            at++;
        whole = at >= len;
        *holds_prompts = whole && member(r, "prompts") != NULL;
    }
    if (!r && blank(text + at, len - at)) /* cut short: the last line with text */
        while (at > 0 && is_space(text[at - 1]))
            at--;
    cJSON_Delete(r);
    size_t k = strlen(safe);
    const char *rest =
        strncmp(err->msg, safe, k) == 0 && err->msg[k] == ':' ? err->msg + k + 1 : err->msg;
    while (*rest == ' ')
        rest++;
    if (oom || whole) {
        rl_snprintf(detail, cap, "%s", rest);
        return st;
    }
    size_t line = line_of(text, at);
    rl_snprintf(detail, cap, "line %zu: %s", line, rest);
    char msg[sizeof err->msg];
    rl_snprintf(msg, sizeof msg, "%s:%zu: %s", safe, line, rest);
    return rl_fail(err, RL_EINPUT, "%s", msg);
}

/* The prompts of a document: an array, or an object's "prompts" array. */
static rl_status add_document(const char *safe, const cJSON *root, rl_client_prompts *p,
                              rl_error *err)
{
    const cJSON *arr = cJSON_IsArray(root) ? root : member(root, "prompts");
    if (!cJSON_IsArray(arr))
        return rl_fail(err, RL_EINPUT, "%s: \"prompts\" must be an array of prompts", safe);
    size_t i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char where[300], def_id[32];
        i++;
        rl_snprintf(where, sizeof where, "%s: item %zu", safe, i);
        rl_snprintf(def_id, sizeof def_id, "file-%zu", i);
        rl_status st = add_item(where, it, true, def_id, p, err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

/* ---- JSON Lines */

/* One line (n bytes, NUL-terminated); *unparsed: the line is not JSON at all. */
static rl_status parse_line(const char *safe, size_t lineno, const char *line, size_t n,
                            rl_client_prompts *p, bool *unparsed, rl_error *err)
{
    char where[300];
    rl_snprintf(where, sizeof where, "%s:%zu", safe, lineno);
    bool oom = false;
    const char *end = NULL;
    cJSON *o = rl_json_parse_raw(line, n, &end, &oom);
    if (oom)
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory reading the prompt", where);
    *unparsed = o == NULL;
    if (o && end && (size_t)(end - line) <= n && !blank(end, n - (size_t)(end - line))) {
        cJSON_Delete(o); /* text after the object: a second object on the line is not dropped */
        o = NULL;
    }
    if (!o)
        return rl_fail(err, RL_EINPUT,
                       "%s: not a JSON object: give {\"id\": ..., \"prompt\": ...} per line",
                       where);
    char def_id[32]; /* add_item says when it is JSON but no object */
    rl_snprintf(def_id, sizeof def_id, "line-%zu", lineno);
    rl_status st = add_item(where, o, false, def_id, p, err);
    cJSON_Delete(o);
    return st;
}

/* Every non-blank line; *bad: the line that failed, *unparsed: it was not JSON at all. */
static rl_status parse_jsonl(const char *safe, const char *text, size_t len, rl_client_prompts *p,
                             size_t *bad, bool *unparsed, rl_error *err)
{
    rl_status st = RL_OK;
    size_t lineno = 0;
    for (size_t a = 0; a < len && st == RL_OK;) {
        const char *nl = memchr(text + a, '\n', len - a);
        size_t e = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (!blank(text + a, e - a)) {
            char *line = malloc(e - a + 1);
            if (!line)
                return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
            memcpy(line, text + a, e - a);
            line[e - a] = '\0';
            st = parse_line(safe, lineno, line, e - a, p, unparsed, err);
            free(line);
            *bad = lineno;
        }
        a = e + 1;
    }
    return st;
}

/* A file starting with '{': one document holding "prompts", else JSON Lines. When the first
 * line is not JSON at all and the whole file is no document either, both are said. */
static rl_status parse_object_file(const char *safe, const char *text, size_t len, size_t first,
                                   rl_client_prompts *p, const char **format, rl_error *err)
{
    cJSON *root = NULL;
    rl_error doc_err = {0};
    char detail[sizeof doc_err.msg];
    bool holds_prompts;
    rl_status doc =
        parse_document(safe, text, len, &root, detail, sizeof detail, &holds_prompts, &doc_err);
    if (doc == RL_EINTERNAL || holds_prompts)
        return rl_fail(err, doc, "%s", doc_err.msg);
    if (doc == RL_OK && member(root, "prompts")) {
        *format = "json";
        rl_status st = add_document(safe, root, p, err);
        cJSON_Delete(root);
        return st;
    }
    cJSON_Delete(root);
    *format = "jsonl";
    size_t bad = 0;
    bool unparsed = false;
    rl_status st = parse_jsonl(safe, text, len, p, &bad, &unparsed, err);
    if (st == RL_EINPUT && unparsed && bad == line_of(text, first) && doc == RL_EINPUT)
        return rl_fail(err, RL_EINPUT,
                       "%s: neither JSON Lines (line %zu is not a JSON object) nor one JSON "
                       "document: %s",
                       safe, bad, detail);
    return st;
}

/* ---- plain text */

/* A text prompt s[0..n) (from line lineno): its ends trimmed, each CR before an LF dropped. */
static rl_status add_text(const char *safe, size_t lineno, const char *id, const char *s, size_t n,
                          rl_client_prompts *p, rl_error *err)
{
    while (n > 0 && is_space(*s)) {
        s++;
        n--;
    }
    while (n > 0 && is_space(s[n - 1]))
        n--;
    if (p->n >= RL_CLIENT_PROMPTS_MAX)
        return rl_fail(err, RL_EINPUT, "%s:%zu: more than %d prompts: split the file", safe, lineno,
                       RL_CLIENT_PROMPTS_MAX);
    char *t = malloc(n + 1);
    if (!t)
        return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n'))
            t[m++] = s[i];
    rl_status st = RL_OK;
    if (m > RL_CLIENT_PROMPT_BYTES_MAX)
        st = rl_fail(err, RL_EINPUT, "%s:%zu: the prompt is longer than 1 MiB", safe, lineno);
    else if (!rl_client_prompts_add(p, id, t, m, 0))
        st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    free(t);
    return st;
}

/* Blocks (runs of non-blank lines); *multi: one has two or more lines. Every non-blank line is
 * checked to be UTF-8. */
static rl_status text_shape(const char *safe, const char *text, size_t len, size_t *blocks,
                            bool *multi, rl_error *err)
{
    size_t run = 0, lineno = 0;
    *blocks = 0;
    *multi = false;
    for (size_t a = 0; a < len;) {
        const char *nl = memchr(text + a, '\n', len - a);
        size_t e = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (blank(text + a, e - a)) {
            run = 0;
        } else {
            if (!rl_utf8_valid(text + a, e - a))
                return rl_fail(err, RL_EINPUT, "%s:%zu: not valid UTF-8", safe, lineno);
            if (run == 0)
                (*blocks)++;
            else
                *multi = true;
            run++;
        }
        a = e + 1;
    }
    return RL_OK;
}

/* One prompt per line (line-<N>), or per paragraph (para-<k>) when the file has two or more
 * blocks and one of them has two or more lines. */
static rl_status parse_text(const char *safe, const char *text, size_t len, rl_client_prompts *p,
                            const char **format, rl_error *err)
{
    size_t blocks;
    bool multi;
    rl_status st = text_shape(safe, text, len, &blocks, &multi, err);
    if (st != RL_OK)
        return st;
    bool paras = blocks >= 2 && multi;
    *format = paras ? "paragraphs" : "lines";
    size_t lineno = 0, k = 0, start = 0, start_line = 0, stop = 0;
    bool open = false; /* a paragraph from start (line start_line) to stop */
    for (size_t a = 0; a <= len && st == RL_OK;) {
        const char *nl = a < len ? memchr(text + a, '\n', len - a) : NULL;
        size_t e = nl ? (size_t)(nl - text) : len;
        lineno++;
        bool is_blank = blank(text + a, e - a);
        char id[48];
        if (!paras && !is_blank) {
            rl_snprintf(id, sizeof id, "line-%zu", lineno);
            st = add_text(safe, lineno, id, text + a, e - a, p, err);
        } else if (!is_blank) {
            if (!open) {
                start = a;
                start_line = lineno;
            }
            open = true;
            stop = e;
        }
        if (paras && open && (is_blank || e == len)) {
            rl_snprintf(id, sizeof id, "para-%zu", ++k);
            st = add_text(safe, start_line, id, text + start, stop - start, p, err);
            open = false;
        }
        if (e == len)
            break;
        a = e + 1;
    }
    return st;
}

/* ---- the file */

rl_status rl_client_prompts_parse(const char *name, const char *text, size_t len,
                                  rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    char safe[256];
    rl_tty_escape(name, safe, sizeof safe);
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) { /* a byte order mark */
        text += 3;
        len -= 3;
    }
    const char *nul = memchr(text, '\0', len);
    if (nul)
        return rl_fail(err, RL_EINPUT, "%s:%zu: a NUL byte: a prompt file is text", safe,
                       line_of(text, (size_t)(nul - text)));
    size_t first = 0;
    while (first < len && is_space(text[first]))
        first++;
    const char *format = NULL;
    rl_status st = RL_OK;
    if (first == len) {
        st = rl_fail(err, RL_EINPUT, "%s holds no prompt", safe);
    } else if (text[first] == '[') {
        cJSON *root = NULL;
        char detail[sizeof err->msg];
        bool holds_prompts;
        format = "json";
        st = parse_document(safe, text, len, &root, detail, sizeof detail, &holds_prompts, err);
        if (st == RL_OK)
            st = add_document(safe, root, p, err);
        cJSON_Delete(root);
    } else if (text[first] == '{') {
        st = parse_object_file(safe, text, len, first, p, &format, err);
    } else {
        st = parse_text(safe, text, len, p, &format, err);
    }
    if (st == RL_OK && p->n == 0)
        st = rl_fail(err, RL_EINPUT, "%s holds no prompt", safe);
    if (st == RL_OK && !(p->source = rl_strdup("file")))
        st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    if (st == RL_OK && !(p->name = rl_strdup(name)))
        st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    p->format = format;
    if (st != RL_OK)
        rl_client_prompts_free(p);
    return st;
}

rl_status rl_client_prompts_file(const char *path, rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    char *data = NULL;
    size_t len = 0;
    rl_status st = rl_file_read_all(path, RL_CLIENT_PROMPT_FILE_MAX, &data, &len, err);
    if (st != RL_OK)
        return rl_prefix(err, "--prompts");
    st = rl_client_prompts_parse(path, data, len, p, err);
    free(data);
    return st;
}
