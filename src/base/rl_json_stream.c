/* SPDX-License-Identifier: MIT */
/* rl_json_stream.c: large JSON documents (bundles) read through yajl's event parser into a
 * cJSON tree, chunk by chunk, so the file's text is never held whole, with every array of
 * numbers under a sample key ("samples", "samples_ns") kept as one compact node: a cJSON_Raw
 * whose text is the array's numbers as the file wrote them, separated as
 * cJSON_PrintUnformatted separates them ("[1.5,2,3]": a report embeds its bundle so, byte for
 * byte as before; a bundle file printed formatted has the array on one line), about the size of its
 * text instead of cJSON's 64-byte node (80 with malloc's header) per number. Printing, duplicating
 * and comparing such a node is cJSON's own (a raw value); readers take its numbers with
 * rl_json_values (either form). Errors name the input and the byte, as rl_json_parse's do (issue
 * 21: report of a 150 MB bundle at most 3x its size).
 *
 * Ownership: the tree is the caller's (cJSON_Delete); a compact node's text is malloc'd and
 * freed by cJSON_Delete like any raw value. Everything else here lives for one parse. */
#include "base/rl_json.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

#define NEST_MAX 1000           /* cJSON's CJSON_NESTING_LIMIT: the same documents nest */
#define CHUNK ((size_t)1 << 16) /* bytes read and parsed at a time */
#define SEP ","                 /* cJSON_PrintUnformatted's separator in an array */
#define NUM_TEXT 64             /* a number this long is copied on the stack */

typedef struct {
    cJSON *root;
    cJSON *stack[NEST_MAX + 1]; /* open containers; stack[depth - 1] the innermost */
    int depth;
    char *key;       /* the pending object key (malloc'd), NULL between members */
    bool collect;    /* inside an array of a sample key that so far holds only numbers */
    rl_sbuf nums;    /* its text: "[" and the numbers as written, SEP between them */
    size_t n_nums;   /* numbers in it */
    bool done;       /* the top-level value is complete */
    size_t done_at;  /* the byte after it, in the whole text */
    yajl_handle h;   /* the parser (its byte count at each event) */
    size_t base;     /* bytes parsed before the current chunk */
    const char *why; /* why a callback stopped the parse (static text) */
    bool oom;
} builder;

/* strtod in the C locale (the numbers of JSON text). */
static double c_strtod(const char *s, char **end)
{
    locale_t c = rl_c_locale();
    return c ? strtod_l(s, end, c) : strtod(s, end);
}

static bool sample_key(const char *k)
{
    return k && (strcmp(k, "samples") == 0 || strcmp(k, "samples_ns") == 0);
}

static int stop(builder *b, const char *why, bool oom)
{
    if (!b->why)
        b->why = why;
    b->oom = b->oom || oom;
    return 0;
}

/* v into the innermost container (under the pending key) or as the root; 0 stops the parse. */
static int place(builder *b, cJSON *v)
{
    if (!v)
        return stop(b, "out of memory", true);
    if (b->depth == 0) {
        b->root = v;
        b->done = !(cJSON_IsArray(v) || cJSON_IsObject(v));
        if (b->done) /* a lone scalar: it ends where the parser stands */
            b->done_at = b->base + yajl_get_bytes_consumed(b->h);
        return 1;
    }
    cJSON *top = b->stack[b->depth - 1];
    bool ok = !cJSON_IsObject(top) || b->key;
    if (ok && cJSON_IsObject(top)) { /* the key handed over: v's name, freed with v */
        v->string = b->key;
        b->key = NULL;
    }
    ok = ok && cJSON_AddItemToArray(top, v);
    if (!ok) {
        cJSON_Delete(v);
        return stop(b, "out of memory", true);
    }
    return 1;
}

/* A container opened: placed, then the innermost. */
static int open_container(builder *b, cJSON *c)
{
    if (b->depth >= NEST_MAX) {
        cJSON_Delete(c);
        return stop(b, "nested deeper than 1000", false);
    }
    if (!place(b, c))
        return 0;
    b->stack[b->depth++] = c;
    return 1;
}

/* The numbers collected so far as nodes of an ordinary array (the array turned out to hold
 * something else too): its text is this file's own, numbers separated by SEP. */
static int uncollect(builder *b)
{
    b->collect = false;
    cJSON *a = cJSON_CreateArray();
    char *t = b->nums.p ? b->nums.p + 1 : NULL;
    for (size_t i = 0; a && t && i < b->n_nums; i++) {
        char *end;
        double d = c_strtod(t, &end);
        if (end == t || !cJSON_AddItemToArray(a, cJSON_CreateNumber(d))) {
            cJSON_Delete(a);
            a = NULL;
        }
        t = end + strlen(SEP);
    }
    free(b->nums.p);
    b->nums = (rl_sbuf){0};
    b->n_nums = 0;
    return a ? open_container(b, a) : stop(b, "out of memory", true);
}

static int on_start_array(void *ctx)
{
    builder *b = ctx;
    if (b->collect && !uncollect(b))
        return 0;
    if (b->depth > 0 && cJSON_IsObject(b->stack[b->depth - 1]) && sample_key(b->key)) {
        if (b->depth >= NEST_MAX)
            return stop(b, "nested deeper than 1000", false);
        b->collect = true;
        b->nums = (rl_sbuf){0};
        b->n_nums = 0;
        rl_sbuf_put(&b->nums, "[", 1);
        return b->nums.oom ? stop(b, "out of memory", true) : 1;
    }
    return open_container(b, cJSON_CreateArray());
}

static int close_container(builder *b)
{
    if (b->depth > 0)
        b->depth--;
    b->done = b->depth == 0;
    if (b->done)
        b->done_at = b->base + yajl_get_bytes_consumed(b->h);
    return 1;
}

static int on_end_array(void *ctx)
{
    builder *b = ctx;
    if (!b->collect)
        return close_container(b);
    b->collect = false;
    if (b->n_nums == 0) { /* [] stays an ordinary empty array */
        free(b->nums.p);
        b->nums = (rl_sbuf){0};
        return place(b, cJSON_CreateArray());
    }
    rl_sbuf_put(&b->nums, "]", 1);
    char *text = rl_sbuf_take(&b->nums);
    char *fit = text ? realloc(text, strlen(text) + 1) : NULL;
    if (!text)
        return stop(b, "out of memory", true);
    cJSON *raw = cJSON_CreateRaw(""); /* its text replaced by ours, freed by cJSON_Delete */
    if (!raw) {
        free(fit ? fit : text);
        return stop(b, "out of memory", true);
    }
    cJSON_free(raw->valuestring);
    raw->valuestring = fit ? fit : text;
    return place(b, raw);
}

static int on_number(void *ctx, const char *s, size_t len)
{
    builder *b = ctx;
    char small[NUM_TEXT]; /* yajl checked the grammar: digits, sign, '.', exponent */
    char *copy = len < sizeof small ? small : strndup(s, len);
    if (!copy)
        return stop(b, "out of memory", true);
    if (copy == small) {
        memcpy(small, s, len);
        small[len] = '\0';
    }
    double d = c_strtod(copy, NULL);
    if (copy != small)
        free(copy);
    if (!isfinite(d))
        return stop(b, "a number too large for a double", false);
    if (!b->collect)
        return place(b, cJSON_CreateNumber(d));
    if (b->n_nums++) /* the number's own text: read back, the very double cJSON would read */
        rl_sbuf_put(&b->nums, SEP, strlen(SEP));
    rl_sbuf_put(&b->nums, s, len);
    return b->nums.oom ? stop(b, "out of memory", true) : 1;
}

/* A value that is not a number: an array being collected becomes an ordinary one first. */
static int scalar(builder *b, cJSON *v)
{
    if (b->collect && !uncollect(b)) {
        cJSON_Delete(v);
        return 0;
    }
    return place(b, v);
}

static int on_null(void *ctx)
{
    return scalar(ctx, cJSON_CreateNull());
}

static int on_boolean(void *ctx, int v)
{
    return scalar(ctx, cJSON_CreateBool(v));
}

/* A string as cJSON keeps it: a C string, so it ends at an escaped NUL (\u0000) as cJSON's. */
static int on_string(void *ctx, const unsigned char *s, size_t len)
{
    char *copy = strndup((const char *)s, len);
    cJSON *v = copy ? cJSON_CreateNull() : NULL; /* made a string holding copy: one copy */
    if (!v) {
        free(copy);
        return stop(ctx, "out of memory", true);
    }
    v->type = cJSON_String;
    v->valuestring = copy;
    return scalar(ctx, v);
}

static int on_start_map(void *ctx)
{
    builder *b = ctx;
    if (b->collect && !uncollect(b))
        return 0;
    return open_container(b, cJSON_CreateObject());
}

static int on_map_key(void *ctx, const unsigned char *k, size_t len)
{
    builder *b = ctx;
    free(b->key);
    b->key = strndup((const char *)k, len);
    return b->key ? 1 : stop(b, "out of memory", true);
}

static int on_end_map(void *ctx)
{
    return close_container(ctx);
}

static const yajl_callbacks callbacks = {
    on_null,      on_boolean, NULL /* integer */, NULL /* double */, on_number,   on_string,
    on_start_map, on_map_key, on_end_map,         on_start_array,    on_end_array};

typedef struct {
    const char *name;
    builder b;
    yajl_handle h;
    size_t fed; /* bytes parsed before the current chunk */
} stream;

static rl_status stream_start(stream *s, const char *name, rl_error *err)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->h = s->b.h = yajl_alloc(&callbacks, NULL, &s->b);
    if (!s->h)
        return rl_json_refuse(err, name, RL_JSON_OOM, 0, NULL);
    yajl_config(s->h, yajl_dont_validate_strings, 1); /* as cJSON: bytes kept as they are */
    return RL_OK;
}

static void stream_free(stream *s)
{
    if (s->h)
        yajl_free(s->h);
    free(s->b.key);
    free(s->b.nums.p);
    cJSON_Delete(s->b.root);
    memset(s, 0, sizeof *s);
}

/* The error of a parse that stopped at byte at: a callback's reason, text after the value,
 * or a syntax error. */
static rl_status stream_error(stream *s, size_t at, rl_error *err)
{
    if (s->b.oom)
        return rl_json_refuse(err, s->name, RL_JSON_OOM, 0, NULL);
    if (s->b.why && strcmp(s->b.why, "a number too large for a double") == 0)
        return rl_json_refuse(err, s->name, RL_JSON_AMBIGUOUS, 0, s->b.why);
    return rl_json_refuse(err, s->name, s->b.done ? RL_JSON_TRAILING : RL_JSON_SYNTAX, at,
                          s->b.why);
}

static rl_status stream_feed(stream *s, const char *buf, size_t n, rl_error *err)
{
    const char *nul = memchr(buf, '\0', n);
    if (nul) /* as rl_json_parse: a NUL would end the text for cJSON */
        return rl_json_refuse(err, s->name, RL_JSON_NUL, s->fed + (size_t)(nul - buf), NULL);
    s->b.base = s->fed;
    yajl_status st = yajl_parse(s->h, (const unsigned char *)buf, n);
    if (st != yajl_status_ok) {
        size_t at = s->fed + yajl_get_bytes_consumed(s->h);
        if (s->b.done) { /* as rl_json_parse: the first byte after the value and its spaces */
            size_t i = s->b.done_at > s->fed ? s->b.done_at - s->fed : 0;
            while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
                i++;
            at = s->fed + i;
        }
        return stream_error(s, at, err);
    }
    s->fed += n;
    return RL_OK;
}

/* The end of the text: the value complete, unambiguous; *out takes the tree. */
static rl_status stream_finish(stream *s, cJSON **out, rl_error *err)
{
    if (s->fed == 0)
        return rl_json_refuse(err, s->name, RL_JSON_EMPTY, 0, NULL);
    if (yajl_complete_parse(s->h) != yajl_status_ok || !s->b.root || !s->b.done)
        return stream_error(s, s->fed, err);
    char what[128];
    bool oom = false;
    if (rl_json_ambiguous(s->b.root, what, sizeof what, &oom) || oom)
        return rl_json_refuse(err, s->name, oom ? RL_JSON_OOM : RL_JSON_AMBIGUOUS, 0, what);
    *out = s->b.root;
    s->b.root = NULL;
    return RL_OK;
}

rl_status rl_json_parse_compact(const char *name, const char *text, size_t len, cJSON **out,
                                rl_error *err)
{
    *out = NULL;
    stream s;
    rl_status st = stream_start(&s, name, err);
    for (size_t at = 0; st == RL_OK && at < len; at += CHUNK)
        st = stream_feed(&s, text + at, len - at < CHUNK ? len - at : CHUNK, err);
    if (st == RL_OK)
        st = stream_finish(&s, out, err);
    stream_free(&s);
    return st;
}

rl_status rl_json_read_compact(const char *name, FILE *f, const char *head, size_t head_len,
                               size_t max, cJSON **out, rl_error *err)
{
    *out = NULL;
    stream s;
    rl_status st = stream_start(&s, name, err);
    if (st == RL_OK && head_len)
        st = stream_feed(&s, head, head_len, err);
    char *buf = st == RL_OK ? malloc(CHUNK) : NULL;
    if (st == RL_OK && !buf)
        st = rl_json_refuse(err, name, RL_JSON_OOM, 0, NULL);
    while (st == RL_OK) {
        size_t got = fread(buf, 1, CHUNK, f);
        if (got == 0 && ferror(f))
            st = rl_fail(err, RL_EINPUT, "%s: read failed", name);
        else if (got == 0)
            break;
        else if (s.fed + got > max)
            st = rl_fail(err, RL_EINPUT, "%s: more than the %zu bytes this reads", name, max);
        else
            st = stream_feed(&s, buf, got, err);
    }
    free(buf);
    if (st == RL_OK)
        st = stream_finish(&s, out, err);
    stream_free(&s);
    return st;
}

bool rl_json_is_compact(const cJSON *x)
{
    return cJSON_IsRaw(x) && x->valuestring && x->valuestring[0] == '[';
}

bool rl_json_is_array(const cJSON *x)
{
    return cJSON_IsArray(x) || rl_json_is_compact(x);
}

size_t rl_json_array_size(const cJSON *x)
{
    if (cJSON_IsArray(x))
        return (size_t)cJSON_GetArraySize(x);
    if (!rl_json_is_compact(x) || strcmp(x->valuestring, "[]") == 0)
        return 0;
    size_t n = 1;
    for (const char *c = x->valuestring; *c; c++)
        n += *c == ',';
    return n;
}

rl_status rl_json_values(const cJSON *arr, double **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    if (!rl_json_is_array(arr))
        return RL_EINPUT;
    size_t k = rl_json_array_size(arr), i = 0;
    double *x = k ? malloc(k * sizeof *x) : NULL;
    if (k && !x)
        return RL_EINTERNAL;
    if (cJSON_IsArray(arr)) {
        for (const cJSON *c = arr->child; c && i < k; c = c->next, i++)
            x[i] = cJSON_IsNumber(c) && isfinite(c->valuedouble) ? c->valuedouble : NAN;
    } else { /* this file's own text: numbers separated by SEP, each finite */
        const char *t = arr->valuestring + 1;
        for (; i < k; i++) {
            char *end;
            x[i] = c_strtod(t, &end);
            t = end + (*end == ',' ? strlen(SEP) : 0);
        }
    }
    *v = x;
    *n = k;
    return RL_OK;
}

/* One compact node made an ordinary array in place. */
static bool expand_one(cJSON *x)
{
    double *v = NULL;
    size_t n = 0;
    if (rl_json_values(x, &v, &n) != RL_OK)
        return false;
    cJSON *head = NULL, *tail = NULL;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *c = cJSON_CreateNumber(v[i]);
        ok = c != NULL;
        if (ok && !head)
            head = c;
        else if (ok) {
            tail->next = c;
            c->prev = tail;
        }
        tail = ok ? c : tail;
    }
    free(v);
    if (!ok) {
        cJSON_Delete(head);
        return false;
    }
    if (head)
        head->prev = tail; /* cJSON's list: the first item's prev is the last */
    cJSON_free(x->valuestring);
    x->valuestring = NULL;
    x->type = cJSON_Array | (x->type & cJSON_StringIsConst);
    x->child = head;
    return true;
}

bool rl_json_expand(cJSON *root)
{
    if (rl_json_is_compact(root))
        return expand_one(root);
    for (cJSON *c = root ? root->child : NULL; c; c = c->next)
        if (!rl_json_expand(c))
            return false;
    return true;
}
