/* SPDX-License-Identifier: MIT */
/* model_find.c: the default roots, the search below them, bytes over split parts and the
 * spread selection. See model_find.h. Temporary arrays are freed before each call returns. */
#include "model/model_find.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gguf_model.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static rl_status push(rl_model_roots *r, char *dir, rl_error *err)
{
    if (!dir)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    char **d = realloc(r->dirs, (r->n + 1) * sizeof *d);
    if (!d) {
        free(dir);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    r->dirs = d;
    r->dirs[r->n++] = dir;
    return RL_OK;
}

rl_status rl_model_roots_default(const char *llama_models, const char *home, rl_model_roots *out,
                                 rl_error *err)
{
    static const char *const in_home[] = {"models", ".cache/llama.cpp", ".cache/lm-studio/models",
                                          ".lmstudio/models"};
    memset(out, 0, sizeof *out);
    bool have_home = home && *home;
    rl_status st = RL_OK;
    for (const char *s = llama_models ? llama_models : ""; st == RL_OK && *s;) {
        size_t len = strcspn(s, ":");
        if (len > 0) {
            if (len >= 2 && s[0] == '~' && s[1] == '/' && have_home)
                st = push(out, rl_asprintf("%s%.*s", home, (int)(len - 1), s + 1), err);
            else
                st = push(out, rl_asprintf("%.*s", (int)len, s), err);
        }
        s += len + (s[len] == ':');
    }
    if (st == RL_OK)
        st = push(out, rl_strdup("./models"), err);
    for (size_t i = 0; st == RL_OK && have_home && i < sizeof in_home / sizeof *in_home; i++)
        st = push(out, rl_asprintf("%s/%s", home, in_home[i]), err);
    if (st == RL_OK)
        st = push(out, rl_strdup("/usr/share/llama.cpp/models"), err);
    if (st != RL_OK)
        rl_model_roots_free(out);
    return st;
}

void rl_model_roots_free(rl_model_roots *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->dirs[i]);
    free(r->dirs);
    r->dirs = NULL;
    r->n = 0;
}

char *rl_model_roots_text(const rl_model_roots *r)
{
    size_t len = 1;
    for (size_t i = 0; i < r->n; i++)
        len += strlen(r->dirs[i]) + 2;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < r->n; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, r->dirs[i]);
    }
    return s;
}

rl_status rl_model_find(const rl_model_roots *roots, unsigned depth, size_t max,
                        rl_model_paths *out, rl_error *err)
{
    out->max = max;
    struct stat *seen = rl_calloc(roots->n ? roots->n : 1, sizeof *seen);
    if (!seen)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t n_seen = 0;
    rl_status st = RL_OK;
    for (size_t i = 0; i < roots->n && st == RL_OK; i++) {
        if (max && out->n >= max)
            break;
        struct stat sb;
        if (stat(roots->dirs[i], &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        bool again = false;
        for (size_t j = 0; j < n_seen; j++)
            again |= seen[j].st_dev == sb.st_dev && seen[j].st_ino == sb.st_ino;
        if (again)
            continue;
        seen[n_seen++] = sb;
        rl_error e = {RL_OK, ""};
        rl_status s = rl_model_paths_add_dir(out, roots->dirs[i], depth, NULL, &e);
        if (s == RL_EINTERNAL) {
            *err = e;
            st = s;
        } /* a root that cannot be opened is skipped */
    }
    free(seen);
    return st;
}

uint64_t rl_model_total_bytes(const char *path)
{
    size_t plen;
    uint32_t no, count;
    struct stat sb;
    if (!rl_gguf_split_name(path, &plen, &no, &count) || count < 2 || no < 1 || no > count)
        return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    uint64_t total = 0;
    for (uint32_t i = 1; i <= count; i++) {
        char *p =
            rl_asprintf("%.*s-%05" PRIu32 "-of-%05" PRIu32 ".gguf", (int)plen, path, i, count);
        bool ok = p && stat(p, &sb) == 0;
        free(p);
        if (!ok)
            return 0;
        total += (uint64_t)sb.st_size;
    }
    return total;
}

typedef struct {
    uint64_t bytes;
    const char *path;
    size_t index;
} sized;

static int sized_cmp(const void *a, const void *b)
{
    const sized *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

/* round(num / den) with halves to even (den > 0). */
static size_t round_half_even(size_t num, size_t den)
{
    size_t q = num / den, r = num % den;
    if (2 * r > den || (2 * r == den && (q & 1)))
        q++;
    return q;
}

size_t rl_model_spread(const uint64_t *bytes, const char *const *paths, size_t n, size_t k,
                       size_t *out)
{
    if (n == 0 || k == 0)
        return 0;
    sized *v = rl_calloc(n, sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < n; i++)
        v[i] = (sized){bytes[i], paths[i], i};
    qsort(v, n, sizeof *v, sized_cmp);
    size_t m = 0;
    if (n <= k) {
        for (size_t i = 0; i < n; i++)
            out[m++] = v[i].index;
    } else if (k == 1) {
        out[m++] = v[round_half_even(n - 1, 2)].index;
    } else {
        size_t last = SIZE_MAX;
        for (size_t i = 0; i < k; i++) {
            size_t pos = round_half_even(i * (n - 1), k - 1);
            if (pos != last)
                out[m++] = v[pos].index;
            last = pos;
        }
    }
    free(v);
    return m;
}

rl_status rl_model_pick(const rl_model_paths *found, size_t k, FILE *note, size_t *out,
                        size_t *n_out, rl_error *err)
{
    *n_out = 0;
    size_t n = found->n;
    if (n == 0 || k == 0)
        return RL_OK;
    uint64_t *bytes = rl_calloc(n, sizeof *bytes);
    const char **paths = rl_calloc(n, sizeof *paths);
    size_t *map = rl_calloc(n, sizeof *map); /* candidate -> index into found */
    signed char *state = rl_calloc(n, 1);    /* per found model: 0 unknown, 1 loads, -1 not */
    size_t *sel = rl_calloc(k, sizeof *sel);
    rl_status st =
        bytes && paths && map && state && sel ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t i = 0; st == RL_OK && i < n; i++)
        bytes[i] = rl_model_total_bytes(found->paths[i]);
    size_t m = 0;
    for (bool again = true; st == RL_OK && again;) {
        again = false;
        size_t nc = 0;
        for (size_t i = 0; i < n; i++) {
            if (state[i] >= 0) {
                map[nc] = i;
                paths[nc++] = found->paths[i];
            }
        }
        uint64_t *cb = rl_calloc(nc ? nc : 1, sizeof *cb);
        if (!cb) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        for (size_t i = 0; i < nc; i++)
            cb[i] = bytes[map[i]];
        m = rl_model_spread(cb, paths, nc, k, sel);
        free(cb);
        if (nc && !m) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        for (size_t j = 0; j < m && st == RL_OK; j++) {
            size_t i = map[sel[j]];
            sel[j] = i;
            if (state[i] != 0)
                continue;
            if (rl_interrupted) {
                st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
                break;
            }
            rl_gguf_model mod;
            rl_error e = {RL_OK, ""};
            rl_status ls = rl_gguf_model_load(found->paths[i], &mod, &e);
            rl_gguf_model_free(&mod);
            if (ls == RL_EINTERNAL) {
                *err = e;
                st = ls;
            } else if (ls != RL_OK) {
                state[i] = -1;
                again = true;
                if (note) /* rl_fail escaped the message */
                    rl_tty_printf(note, "skipping %s\n", e.msg);
            } else {
                state[i] = 1;
            }
        }
    }
    if (st == RL_OK) {
        memcpy(out, sel, m * sizeof *sel);
        *n_out = m;
    }
    free(bytes);
    free(paths);
    free(map);
    free(state);
    free(sel);
    return st;
}

rl_status rl_model_search(const char *llama_models, const char *home, FILE *note,
                          rl_model_paths *picked, size_t *n_found, char **where, rl_error *err)
{
    rl_model_roots roots;
    rl_model_paths found = {0};
    size_t idx[RL_MODEL_PICK], k = 0;
    *n_found = 0;
    if (where)
        *where = NULL;
    rl_status st = rl_model_roots_default(llama_models, home, &roots, err);
    if (st == RL_OK)
        st = rl_model_find(&roots, RL_MODEL_FIND_DEPTH, RL_MODEL_FIND_MAX, &found, err);
    if (st == RL_OK)
        st = rl_model_pick(&found, RL_MODEL_PICK, note, idx, &k, err);
    for (size_t i = 0; st == RL_OK && i < k; i++)
        st = rl_model_paths_add_file(picked, found.paths[idx[i]], err);
    if (st == RL_OK && where && !(*where = rl_model_roots_text(&roots)))
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    *n_found = found.n;
    rl_model_paths_free(&found);
    rl_model_roots_free(&roots);
    return st;
}
