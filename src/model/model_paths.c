/* SPDX-License-Identifier: MIT */
/* model_paths.c: expand files and directories into the list of model paths to read. See
 * model_paths.h. Directory listings are collected, sorted and then added; everything
 * allocated for a listing is freed before the call returns. */
#include "model/model_paths.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "model/gguf_model.h"
#include "model/gguf_remote.h"
#include "base/rl_file.h"
#include "base/rl_util.h"

/* The identity of the model a path names: the file's device and inode (of part 1 for a split
 * model), or the path itself (part 1's name for a split model) when it cannot be stat'ed. */
static char *model_key(const char *path)
{
    size_t plen;
    uint32_t no, count;
    char *first = NULL;
    if (rl_gguf_split_name(path, &plen, &no, &count) && count > 1 && no >= 1 && no <= count) {
        first = rl_asprintf("%.*s-00001-of-%05" PRIu32 ".gguf", (int)plen, path, count);
        if (!first)
            return NULL;
    }
    const char *p = first ? first : path;
    struct stat sb;
    char *key = !rl_is_url(p) && stat(p, &sb) == 0
                    ? rl_asprintf("id:%ju:%ju", (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino)
                    : rl_asprintf("name:%s", p);
    free(first);
    return key;
}

static rl_status grow(rl_model_paths *l, rl_error *err)
{
    if (l->n < l->cap)
        return RL_OK;
    size_t cap = l->cap ? l->cap * 2 : 16;
    char **p = l->paths, **k = l->keys;
    if (cap > SIZE_MAX / sizeof *p)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    p = realloc(p, cap * sizeof *p);
    if (!p)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    l->paths = p;
    k = realloc(k, cap * sizeof *k);
    if (!k)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    l->keys = k;
    l->cap = cap;
    return RL_OK;
}

/* Add path unless its model is listed; *added is set to whether it was. */
static rl_status add_file(rl_model_paths *l, const char *path, bool *added, rl_error *err)
{
    *added = false;
    char *key = model_key(path);
    if (!key)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->keys[i], key) == 0) {
            free(key);
            return RL_OK;
        }
    }
    if (l->max && l->n >= l->max) {
        free(key);
        return RL_OK; /* full */
    }
    char *copy = rl_strdup(path);
    if (!copy || grow(l, err) != RL_OK) {
        free(key);
        free(copy);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    l->paths[l->n] = copy;
    l->keys[l->n] = key;
    l->n++;
    *added = true;
    return RL_OK;
}

rl_status rl_model_paths_add_file(rl_model_paths *l, const char *path, rl_error *err)
{
    bool added;
    return add_file(l, path, &added, err);
}

static bool ends_with_gguf(const char *s)
{
    size_t n = strlen(s);
    return n > 5 && strcasecmp(s + n - 5, ".gguf") == 0;
}

typedef struct {
    char *path;
    bool is_dir;
} entry;

static void free_entries(entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

/* A name worth a stat: a .gguf file, or any name when subdirectories are wanted. */
static bool name_wanted(const char *name, void *ctx)
{
    return ends_with_gguf(name) || *(const unsigned *)ctx > 0;
}

/* dir's model files and (when depth > 0) subdirectories, sorted by name. */
static rl_status list_dir(const char *dir, unsigned depth, entry **out, size_t *n_out,
                          rl_error *err)
{
    *out = NULL;
    *n_out = 0;
    char **names;
    size_t n_names;
    rl_status st = rl_dir_list(dir, name_wanted, &depth, SIZE_MAX, &names, &n_names, err);
    if (st == RL_EINPUT)
        return rl_fail(err, RL_EINPUT, "%s: cannot open the directory", dir);
    if (st != RL_OK)
        return st;
    size_t dl = strlen(dir);
    const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
    entry *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < n_names; i++) {
        const char *name = names[i];
        bool maybe_model = ends_with_gguf(name);
        size_t plen;
        uint32_t no, count;
        if (maybe_model && rl_gguf_split_name(name, &plen, &no, &count) && no != 1)
            maybe_model = false; /* a later part: part 1 stands for the model */
        char *p = rl_asprintf("%s%s%s", dir, sep, name);
        if (!p) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        struct stat sb;
        bool is_dir = false, keep = false;
        if (stat(p, &sb) == 0) {
            is_dir = S_ISDIR(sb.st_mode);
            keep = is_dir ? depth > 0 : maybe_model && S_ISREG(sb.st_mode);
        }
        if (!keep) {
            free(p);
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            entry *nv = nc <= SIZE_MAX / sizeof *nv ? realloc(v, nc * sizeof *nv) : NULL;
            if (!nv) {
                free(p);
                st = rl_fail(err, RL_EINTERNAL, "out of memory");
                break;
            }
            v = nv;
            cap = nc;
        }
        v[n++] = (entry){p, is_dir};
    }
    rl_dir_names_free(names, n_names);
    if (st != RL_OK) {
        free_entries(v, n);
        return st;
    }
    *out = v;
    *n_out = n;
    return RL_OK;
}

rl_status rl_model_paths_add_dir(rl_model_paths *l, const char *dir, unsigned depth, size_t *added,
                                 rl_error *err)
{
    size_t count = 0;
    if (added)
        *added = 0;
    entry *v;
    size_t n;
    rl_status st = list_dir(dir, depth, &v, &n, err);
    if (st != RL_OK)
        return st;
    for (size_t i = 0; i < n && st == RL_OK && !(l->max && l->n >= l->max); i++) {
        if (v[i].is_dir) {
            size_t sub = 0;
            rl_error e = {RL_OK, ""};
            rl_status s = rl_model_paths_add_dir(l, v[i].path, depth - 1, &sub, &e);
            if (s == RL_EINTERNAL) {
                *err = e;
                st = s;
            }
            count += sub; /* an unreadable subdirectory is skipped */
        } else {
            bool one;
            st = add_file(l, v[i].path, &one, err);
            count += one;
        }
    }
    free_entries(v, n);
    if (added)
        *added = count;
    return st;
}

rl_status rl_model_paths_add(rl_model_paths *l, const char *operand, rl_error *err)
{
    if (rl_is_url(operand)) /* a model over HTTP (gguf_remote.h): kept as given */
        return rl_model_paths_add_file(l, operand, err);
    struct stat sb;
    if (stat(operand, &sb) == 0 && S_ISDIR(sb.st_mode))
        return rl_model_paths_add_dir(l, operand, 0, NULL, err);
    return rl_model_paths_add_file(l, operand, err);
}

void rl_model_paths_free(rl_model_paths *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->paths[i]);
        free(l->keys[i]);
    }
    free(l->paths);
    free(l->keys);
    l->paths = l->keys = NULL;
    l->n = l->cap = 0;
}
