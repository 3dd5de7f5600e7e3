/* SPDX-License-Identifier: MIT */
/* rl_json.c: cJSON helpers (exact big integers, null-or-value, UTF-8 repair, typed reads,
 * atomic JSON files). See rl_json.h. */
#include "base/rl_json.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

bool rl_json_attach(cJSON *o, const char *key, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToObject(o, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

cJSON *rl_json_kept(cJSON *o, bool ok)
{
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

bool rl_json_push(cJSON *arr, cJSON *item)
{
    if (!item)
        return false;
    if (!cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

bool rl_json_add_bool(cJSON *o, const char *key, bool v)
{
    return rl_json_attach(o, key, cJSON_CreateBool(v));
}

bool rl_json_add_null(cJSON *o, const char *key)
{
    return rl_json_attach(o, key, cJSON_CreateNull());
}

bool rl_json_add_int_array(cJSON *o, const char *key, const int *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (int i = 0; ok && i < n; i++)
        ok = rl_json_push(a, cJSON_CreateNumber(v[i]));
    if (!ok) {
        cJSON_Delete(a);
        return false;
    }
    return rl_json_attach(o, key, a);
}

cJSON *rl_json_u64(uint64_t v)
{
    if (v <= RL_JSON_MAX_EXACT)
        return cJSON_CreateNumber((double)v);
    char digits[24];
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    return cJSON_CreateRaw(digits);
}

bool rl_json_add_u64(cJSON *o, const char *key, uint64_t v)
{
    return rl_json_attach(o, key, rl_json_u64(v));
}

bool rl_json_add_i64(cJSON *o, const char *key, int64_t v)
{
    if (v >= 0)
        return rl_json_add_u64(o, key, (uint64_t)v);
    if ((uint64_t)(-(v + 1)) < RL_JSON_MAX_EXACT)
        return rl_json_attach(o, key, cJSON_CreateNumber((double)v));
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", (long long)v);
    return rl_json_attach(o, key, cJSON_CreateRaw(digits));
}

bool rl_json_add_num(cJSON *o, const char *key, double v)
{
    return rl_json_attach(o, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

bool rl_json_add_u64_or_null(cJSON *o, const char *key, uint64_t v, bool known)
{
    return known ? rl_json_add_u64(o, key, v) : rl_json_attach(o, key, cJSON_CreateNull());
}

bool rl_json_add_num_or_null(cJSON *o, const char *key, double v, bool known)
{
    return known ? rl_json_add_num(o, key, v) : rl_json_attach(o, key, cJSON_CreateNull());
}

bool rl_json_add_tristate(cJSON *o, const char *key, int v)
{
    return rl_json_attach(o, key, v < 0 ? cJSON_CreateNull() : cJSON_CreateBool(v != 0));
}

cJSON *rl_json_str(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    if (rl_utf8_valid(s, n))
        return cJSON_CreateString(s);
    if (n > (SIZE_MAX - 1) / 3)
        return NULL;
    char *fixed = malloc(n * 3 + 1); /* each bad byte becomes the 3-byte U+FFFD */
    if (!fixed)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = rl_utf8_seq(p + i, n - i);
        if (k == 0) {
            memcpy(fixed + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(fixed + o, p + i, k);
            o += k;
            i += k;
        }
    }
    fixed[o] = '\0';
    cJSON *item = cJSON_CreateString(fixed);
    free(fixed);
    return item;
}

bool rl_json_add_str(cJSON *o, const char *key, const char *s)
{
    return rl_json_attach(o, key, rl_json_str(s));
}

bool rl_json_add_str_or_null(cJSON *o, const char *key, const char *s)
{
    return s && *s ? rl_json_add_str(o, key, s) : rl_json_attach(o, key, cJSON_CreateNull());
}

cJSON *rl_json_unavailable(const char *reason)
{
    cJSON *u = cJSON_CreateObject();
    if (u && (!cJSON_AddFalseToObject(u, "available") || !rl_json_add_str(u, "reason", reason))) {
        cJSON_Delete(u);
        return NULL;
    }
    return u;
}

bool rl_json_add_unavailable(cJSON *o, const char *key, const char *reason)
{
    return rl_json_attach(o, key, rl_json_unavailable(reason));
}

const cJSON *rl_json_get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

bool rl_json_get_u64(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (cJSON_IsNumber(it)) {
        double d = it->valuedouble;
        if (!(d >= 0) || d > (double)RL_JSON_MAX_EXACT || d != floor(d))
            return false;
        *out = (uint64_t)d;
        return true;
    }
    if (cJSON_IsRaw(it) && it->valuestring)
        return rl_parse_u64(it->valuestring, out);
    return false;
}

bool rl_json_get_i64(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it))
        return false;
    double d = it->valuedouble;
    if (!(fabs(d) <= (double)RL_JSON_MAX_EXACT) || d != floor(d))
        return false;
    *out = (int64_t)d;
    return true;
}

bool rl_json_get_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
        return false;
    *out = it->valuedouble;
    return true;
}

bool rl_json_get_bool(const cJSON *o, const char *key, bool *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsBool(it))
        return false;
    *out = cJSON_IsTrue(it);
    return true;
}

const char *rl_json_get_str(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(it) ? it->valuestring : NULL;
}

double rl_json_num_or(const cJSON *o, const char *key, double dflt)
{
    double v;
    return rl_json_get_num(o, key, &v) ? v : dflt;
}

const cJSON *rl_json_available(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    bool a = false;
    return cJSON_IsObject(it) && rl_json_get_bool(it, "available", &a) && a ? it : NULL;
}

rl_status rl_json_to_stdout(const cJSON *item, rl_error *err)
{
    char *text = item ? rl_json_print(item) : NULL;
    if (!text)
        return rl_fail(err, RL_EINTERNAL, "out of memory printing the JSON");
    rl_tty_write(stdout, text, strlen(text), RL_TTY_JSON);
    free(text);
    return RL_OK;
}

char *rl_json_print(const cJSON *item)
{
    char *text = cJSON_Print(item);
    if (!text)
        return NULL;
    size_t n = strlen(text);
    char *out = realloc(text, n + 2);
    if (!out) {
        free(text);
        return NULL;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    return out;
}

rl_status rl_json_write_file(const char *path, const cJSON *item, rl_error *err)
{
    char *text = rl_json_print(item);
    if (!text)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    /* as every JSON document the tool writes: DEL and C1 in strings as their escapes */
    rl_status st = rl_write_output(path, text, strlen(text), RL_TTY_JSON, err);
    free(text);
    return st;
}

/* cJSON's allocations go through these hooks so a failed parse can tell "out of memory" from
 * "not JSON": the allocator records each failure in a flag of the calling thread (the client's
 * writer thread prints bundles while the main thread parses, and the HTTP driver may parse on
 * any thread: one thread's failure never reads as another's). cJSON_InitHooks sets cJSON's one
 * global allocator, so it is installed exactly once (pthread_once), before main runs (the
 * constructor: no thread exists yet that could be allocating while it is set) and again on
 * demand for a program without constructors; installing it later would race with a thread
 * already inside cJSON. base_malloc is malloc unless a test swaps it (rl_json_set_malloc); it
 * is atomic, so a swap is safe while other threads allocate. */
static _Atomic(void *(*)(size_t)) base_malloc = malloc;
static _Thread_local bool alloc_failed;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void *recording_malloc(size_t n)
{
    void *(*fn)(size_t) = atomic_load(&base_malloc);
    void *q = fn(n);
    if (!q)
        alloc_failed = true;
    return q;
}

static void hooks_install(void)
{
    cJSON_Hooks h = {recording_malloc, free};
    cJSON_InitHooks(&h);
}

static void install_hooks(void)
{
    pthread_once(&hooks_once, hooks_install);
}

__attribute__((constructor)) static void install_hooks_at_start(void)
{
    install_hooks();
}

void rl_json_set_malloc(void *(*fn)(size_t))
{
    install_hooks();
    atomic_store(&base_malloc, fn ? fn : malloc);
}

cJSON *rl_json_parse_raw(const char *text, size_t len, const char **end, bool *oom)
{
    install_hooks();
    alloc_failed = false;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, end, 0);
    *oom = !root && alloc_failed;
    return root;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* What no JSON the tool writes holds and a reader would take two ways: a key twice in one
 * object (cJSON reads the first, Python the last) or a number too big for a double (1e400
 * read as infinity). NULL when there is none, else what it is, in buf; *oom when out of
 * memory. cJSON limits the nesting (1000), so the recursion is bounded. */
const char *rl_json_ambiguous(const cJSON *it, char *buf, size_t cap, bool *oom)
{
    if (cJSON_IsNumber(it) && !isfinite(it->valuedouble)) {
        snprintf(buf, cap, "a number too large for a double");
        return buf;
    }
    size_t n = 0;
    for (const cJSON *c = it->child; c; c = c->next)
        n++;
    if (cJSON_IsObject(it) && n > 1) {
        const cJSON **keys = malloc(n * sizeof *keys);
        if (!keys) {
            *oom = true;
            return NULL;
        }
        size_t k = 0;
        for (const cJSON *c = it->child; c; c = c->next)
            keys[k++] = c;
        qsort(keys, n, sizeof *keys, cmp_keys);
        for (k = 1; k < n && strcmp(keys[k - 1]->string, keys[k]->string) != 0; k++)
            ;
        if (k < n)
            snprintf(buf, cap, "the key \"%.60s\" twice in one object", keys[k]->string);
        free(keys);
        if (k < n)
            return buf;
    }
    for (const cJSON *c = it->child; c; c = c->next)
        if (rl_json_ambiguous(c, buf, cap, oom) || *oom)
            return *oom ? NULL : buf;
    return NULL;
}

rl_status rl_json_refuse(rl_error *err, const char *name, rl_json_refusal why, size_t at,
                         const char *what)
{
    switch (why) {
    case RL_JSON_EMPTY: return rl_fail(err, RL_EINPUT, "%s: empty file, not JSON", name);
    case RL_JSON_NUL:
        return rl_fail(err, RL_EINPUT, "%s: not valid JSON (a NUL byte at byte %zu)", name, at);
    case RL_JSON_SYNTAX:
        return rl_fail(err, RL_EINPUT,
                       "%s: not valid JSON (syntax error near byte %zu: truncated or not JSON%s%s)",
                       name, at, what ? ": " : "", what ? what : "");
    case RL_JSON_TRAILING:
        return rl_fail(err, RL_EINPUT,
                       "%s: not valid JSON (more text after the JSON value at byte %zu: two "
                       "files joined or trailing junk)",
                       name, at);
    case RL_JSON_AMBIGUOUS:
        return rl_fail(err, RL_EINPUT, "%s: not valid JSON for this tool (%s)", name, what);
    case RL_JSON_OOM: break;
    }
    return rl_fail(err, RL_EINTERNAL, "%s: out of memory reading the JSON", name);
}

rl_status rl_json_parse(const char *name, const char *text, size_t len, cJSON **out, rl_error *err)
{
    *out = NULL;
    const char *end = NULL;
    if (len == 0)
        return rl_json_refuse(err, name, RL_JSON_EMPTY, 0, NULL);
    const char *nul = memchr(text, '\0', len);
    if (nul) /* cJSON would stop at it: the rest of the file would go unread */
        return rl_json_refuse(err, name, RL_JSON_NUL, (size_t)(nul - text), NULL);
    bool oom = false;
    cJSON *root = rl_json_parse_raw(text, len, &end, &oom);
    if (oom)
        return rl_json_refuse(err, name, RL_JSON_OOM, 0, NULL);
    size_t at = end && end >= text ? (size_t)(end - text) : 0;
    if (!root)
        return rl_json_refuse(err, name, RL_JSON_SYNTAX, at, NULL);
    while (at < len &&
           (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n'))
        at++;
    if (at < len) {
        cJSON_Delete(root);
        return rl_json_refuse(err, name, RL_JSON_TRAILING, at, NULL);
    }
    char what[128];
    if (rl_json_ambiguous(root, what, sizeof what, &oom) || oom) {
        cJSON_Delete(root);
        return rl_json_refuse(err, name, oom ? RL_JSON_OOM : RL_JSON_AMBIGUOUS, 0, what);
    }
    *out = root;
    return RL_OK;
}

rl_status rl_json_read_file(const char *path, size_t max_bytes, cJSON **out, rl_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    rl_status st = rl_file_read_all(path, max_bytes, &text, &len, err);
    if (st != RL_OK)
        return st;
    st = rl_json_parse(path, text, len, out, err);
    free(text);
    return st;
}

size_t rl_json_extent(const char *t, size_t len, size_t max_commas, size_t *commas)
{
    size_t depth = 0, n = 0;
    bool in_str = false;
    if (commas)
        *commas = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = t[i];
        if (in_str) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == ',' && commas) {
            *commas = ++n;
            if (n > max_commas)
                return 0;
        } else if (ch == '}' || ch == ']') {
            if (depth == 0)
                return 0; /* a closing bracket before any opening one */
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

const char *rl_json_describe(const cJSON *it, char *buf, size_t cap)
{
    if (!it)
        return "missing";
    if (cJSON_IsNumber(it)) {
        rl_snprintf(buf, cap, "%.17g", it->valuedouble);
        return buf;
    }
    return cJSON_IsString(it)     ? "a string"
           : cJSON_IsBool(it)     ? "a boolean"
           : rl_json_is_array(it) ? "an array"
           : cJSON_IsObject(it)   ? "an object"
           : cJSON_IsNull(it)     ? "null"
                                  : "not a JSON value";
}

rl_status rl_json_fail_at(rl_error *err, const char *file, const char *path, const char *key,
                          const cJSON *it, const char *expect)
{
    char what[48];
    return rl_fail(err, RL_EINPUT, "%s: %s%s%s is %s; expected %s", file, path,
                   *path && *key ? "." : "", key, rl_json_describe(it, what, sizeof what), expect);
}
