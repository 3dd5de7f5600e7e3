/* SPDX-License-Identifier: MIT */
/* compare_load.c: the comparison's inputs: bundles, reports and directories of them, and the
 * baseline (compare.h). The only file I/O of compare. */
#include "analyse/compare.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* ---- inputs ---------------------------------------------------------------------------- */

/* "DIR" for ".../DIR/bundle.json" or ".../DIR/report.html", else the file name without its
 * extension. */
static char *label_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash && slash > path &&
        (strcmp(base, "bundle.json") == 0 || strcmp(base, "report.html") == 0)) {
        const char *start = slash - 1;
        while (start > path && start[-1] != '/')
            start--;
        if (slash - start > 0 && !(slash - start == 1 && *start == '.'))
            return rl_asprintf("%.*s", (int)(slash - start), start);
    }
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    return rl_asprintf("%.*s", (int)n, base);
}

rl_status rl_cmp_add_bundle(rl_cmp *c, const char *path, cJSON *bundle, rl_error *err)
{
    if (c->n_inputs == RL_CMP_MAX_INPUTS) {
        cJSON_Delete(bundle);
        return rl_fail(err, RL_EINPUT, "more than %d inputs: compare fewer at once",
                       RL_CMP_MAX_INPUTS);
    }
    if (c->n_inputs == c->cap_inputs) {
        size_t cap = c->cap_inputs ? c->cap_inputs * 2 : 8;
        rl_cmp_input *p = realloc(c->inputs, cap * sizeof *p);
        if (!p) {
            cJSON_Delete(bundle);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        c->inputs = p;
        c->cap_inputs = cap;
    }
    rl_cmp_input *in = &c->inputs[c->n_inputs];
    in->path = rl_strdup(path);
    in->label = label_of(path);
    in->bundle = bundle;
    c->n_inputs++;
    if (!in->path || !in->label)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    /* labels stay unique: a repeated one gets " (2)", " (3)" ... */
    size_t same = 0;
    for (size_t i = 0; i + 1 < c->n_inputs; i++)
        if (strncmp(c->inputs[i].label, in->label, strlen(in->label)) == 0 &&
            (c->inputs[i].label[strlen(in->label)] == '\0' ||
             strncmp(c->inputs[i].label + strlen(in->label), " (", 2) == 0))
            same++;
    if (same) {
        char *l = rl_asprintf("%s (%zu)", in->label, same + 1);
        if (!l)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        free(in->label);
        in->label = l;
    }
    return RL_OK;
}

/* One operand walk: each bundle loaded goes to fn (which takes it); skipped files are said on
 * stderr as "llama-roofline COMMAND: skipping ...". */
typedef struct {
    const char *command;
    rl_cmp_bundle_fn fn;
    void *ctx;
} walk;

static rl_status add_file(const walk *w, const char *path, rl_error *err)
{
    cJSON *b = NULL;
    rl_status st = rl_bundle_load(path, &b, err);
    if (st != RL_OK)
        return st;
    return w->fn(w->ctx, path, b, err);
}

static bool is_regular(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The file a directory stands for when it holds one: bundle.json, else report.html. */
static char *dir_main_file(const char *dir)
{
    static const char *const names[] = {"bundle.json", "report.html"};
    for (size_t i = 0; i < 2; i++) {
        char *p = rl_asprintf("%s/%s", dir, names[i]);
        if (!p || is_regular(p))
            return p;
        free(p);
    }
    return NULL;
}

static rl_status add_dir(const walk *w, const char *dir, rl_error *err)
{
    char *main_file = dir_main_file(dir);
    if (main_file) {
        rl_status st = add_file(w, main_file, err);
        free(main_file);
        return st;
    }
    char **names;
    size_t n;
    rl_status st = rl_dir_list(dir, NULL, NULL, 100000, &names, &n, err);
    size_t found = 0;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        char *p = rl_asprintf("%s/%s", dir, names[i]);
        if (!p) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            char *f = dir_main_file(p);
            if (f) {
                st = add_file(w, f, err);
                found++;
            }
            free(f);
        } else if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
                   (ends_with(names[i], ".json") || ends_with(names[i], ".html"))) {
            rl_error e2 = {RL_OK, ""};
            rl_status s2 = add_file(w, p, &e2);
            if (s2 == RL_EINPUT) {
                char safe[1200];
                rl_tty_printf(stderr, "llama-roofline %s: skipping %s\n", w->command,
                              rl_tty_escape(e2.msg, safe, sizeof safe));
            } else if (s2 != RL_OK) {
                *err = e2;
                st = s2;
            } else {
                found++;
            }
        }
        free(p);
    }
    rl_dir_names_free(names, n);
    if (st == RL_OK && found == 0)
        st = rl_fail(err, RL_EINPUT,
                     "%s holds no bundle or report (give bundle.json or report.html files, or "
                     "directories of them)",
                     dir);
    return st;
}

rl_status rl_cmp_each_bundle(const char *operand, const char *command, rl_cmp_bundle_fn fn,
                             void *ctx, rl_error *err)
{
    walk w = {command, fn, ctx};
    struct stat sb;
    if (stat(operand, &sb) != 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", operand, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return add_dir(&w, operand, err);
    return add_file(&w, operand, err);
}

static rl_status take_bundle(void *ctx, const char *path, cJSON *bundle, rl_error *err)
{
    return rl_cmp_add_bundle(ctx, path, bundle, err);
}

rl_status rl_cmp_add_operand(rl_cmp *c, const char *operand, rl_error *err)
{
    return rl_cmp_each_bundle(operand, "compare", take_bundle, c, err);
}

rl_status rl_cmp_set_baseline(rl_cmp *c, const char *which, rl_error *err)
{
    uint64_t n;
    if (rl_parse_u64(which, &n)) {
        if (n < 1 || n > c->n_inputs)
            return rl_fail(err, RL_EINPUT,
                           "--baseline: '%s' is out of range: give an input number from 1 to %zu "
                           "or an input's path",
                           which, c->n_inputs);
        c->baseline = (size_t)(n - 1);
        return RL_OK;
    }
    for (size_t i = 0; i < c->n_inputs; i++)
        if (strcmp(c->inputs[i].path, which) == 0) {
            c->baseline = i;
            return RL_OK;
        }
    char safe[512];
    return rl_fail(err, RL_EINPUT,
                   "--baseline: '%s' is neither an input number nor the path of an input",
                   rl_tty_escape(which, safe, sizeof safe));
}
