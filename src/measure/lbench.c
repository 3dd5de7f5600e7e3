/* SPDX-License-Identifier: MIT */
/* lbench.c: finding llama-bench, its command line, escaping its text, summarising its stderr and
 * reading its build from --version text. The output parser is in lbench_parse.c. See lbench.h
 * for ownership: paths and argv returned here are malloc'd and owned by the caller. */
#include "measure/lbench.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define LB_NAME "llama-bench"
#define LB_MAX_DIR_ENTRIES 1000 /* entries read per cache directory level */

/* ---- text helpers ------------------------------------------------------------------------- */

size_t rl_lbench_escape(const char *s, size_t len, size_t max_chars, char *buf, size_t cap)
{
    /* The project's one escaping rule (rl_tty_escape_n), applied a character at a time so the
     * output never splits an escape and the count of input bytes consumed is exact. */
    if (!buf || cap == 0)
        return 0;
    size_t o = 0, i = 0, chars = 0;
    const unsigned char *u = (const unsigned char *)s;
    while (s && i < len && chars < max_chars) {
        size_t in = rl_utf8_seq(u + i, len - i);
        if (in == 0)
            in = 1;
        char tmp[32];
        rl_tty_escape_n(s + i, in, tmp, sizeof tmp);
        size_t outn = strlen(tmp);
        if (o + outn >= cap)
            break;
        memcpy(buf + o, tmp, outn);
        o += outn;
        i += in;
        chars++;
    }
    buf[o] = '\0';
    return i;
}

/* ---- stderr summary ----------------------------------------------------------------------- */

typedef struct {
    const char *p;
    size_t n;
} lb_span;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static bool has_prefix(lb_span l, const char *pre)
{
    size_t k = strlen(pre);
    return l.n >= k && memcmp(l.p, pre, k) == 0;
}

static bool contains(lb_span l, const char *needle, bool fold)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= l.n; i++) {
        size_t j = 0;
        while (j < k) {
            char a = l.p[i + j];
            if (fold && a >= 'A' && a <= 'Z')
                a = (char)(a - 'A' + 'a');
            if (a != needle[j])
                break;
            j++;
        }
        if (j == k)
            return true;
    }
    return false;
}

static bool is_noise(lb_span l)
{
    static const char *const prefixes[] = {"load_backend:",  "load_tensors:", "ggml_",
                                           "build:",         "main:",         "register_backend",
                                           "register_device"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(l, prefixes[i]))
            return true;
    return contains(l, "loaded ", false);
}

/* Keep the last two spans seen. */
static void keep_last(lb_span last[2], int *n, lb_span l)
{
    if (*n == 2) {
        last[0] = last[1];
        last[1] = l;
    } else {
        last[(*n)++] = l;
    }
}

/* Append one line (escaped, at most max_chars characters, "..." when cut) at buf+*o. */
static void append_line(char *buf, size_t cap, size_t *o, lb_span l, size_t max_chars)
{
    if (*o + 4 >= cap)
        return;
    /* keep room for the "..." that marks a cut line */
    size_t used = rl_lbench_escape(l.p, l.n, max_chars, buf + *o, cap - *o - 3);
    *o += strlen(buf + *o);
    if (used < l.n) {
        memcpy(buf + *o, "...", 4);
        *o += 3;
    }
}

void rl_lbench_stderr_summary(const char *text, size_t len, char *buf, size_t cap)
{
    if (!buf || cap == 0)
        return;
    lb_span pref[2], rest[2], all[2];
    int np = 0, nr = 0, na = 0;
    size_t i = 0;
    while (text && i < len) {
        size_t s = i;
        while (i < len && text[i] != '\n' && text[i] != '\r')
            i++;
        lb_span l = {text + s, i - s};
        i++; /* past the line break */
        while (l.n && is_space(l.p[0])) {
            l.p++;
            l.n--;
        }
        while (l.n && is_space(l.p[l.n - 1]))
            l.n--;
        if (l.n == 0)
            continue;
        keep_last(all, &na, l);
        if (is_noise(l))
            continue;
        keep_last(rest, &nr, l);
        if (contains(l, "error", true) || contains(l, "failed", true))
            keep_last(pref, &np, l);
    }
    lb_span *pick = np ? pref : nr ? rest : all;
    int n = np ? np : nr ? nr : na;
    if (n == 0) {
        snprintf(buf, cap, "no error message on stderr");
        return;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (int k = 0; k < n; k++) {
        if (k > 0 && o + 3 < cap) {
            memcpy(buf + o, " | ", 4);
            o += 3;
        }
        /* the first of two lines may use at most half the buffer, so the last one shows */
        size_t room = (n == 2 && k == 0) ? cap / 2 : cap;
        if (room > o)
            append_line(buf, room, &o, pick[k], 240);
    }
}

/* ---- discovery ---------------------------------------------------------------------------- */

static bool is_exec_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* An absolute copy of path (relative paths are taken from the current directory). */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return rl_strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return rl_strdup(path);
    const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
    return rl_asprintf("%s/%s", cwd, rel);
}

static rl_status oom(rl_error *err)
{
    return rl_fail(err, RL_EINTERNAL, "out of memory while looking for llama-bench");
}

/* A path the user named (--llama-bench or $LLAMA_BENCH): a binary, or a directory holding one
 * directly, in bin/ or in build/bin/. label names where it came from in messages. */
static rl_status resolve_named(const char *arg, const char *home, const char *label,
                               char **path_out, rl_error *err)
{
    char *p = (arg[0] == '~' && arg[1] == '/' && home && *home)
                  ? rl_asprintf("%s/%s", home, arg + 2)
                  : rl_strdup(arg);
    if (!p)
        return oom(err);
    struct stat st;
    if (stat(p, &st) != 0) {
        free(p);
        return rl_fail(err, RL_EINPUT,
                       "%s %s does not exist; give the llama-bench binary or the directory "
                       "holding it",
                       label, arg);
    }
    if (S_ISDIR(st.st_mode)) {
        static const char *const subs[] = {"", "bin/", "build/bin/"};
        for (size_t i = 0; i < 3; i++) {
            char *c = rl_asprintf("%s/%s" LB_NAME, p, subs[i]);
            if (!c) {
                free(p);
                return oom(err);
            }
            if (is_exec_file(c)) {
                free(p);
                *path_out = absolute(c);
                free(c);
                return *path_out ? RL_OK : oom(err);
            }
            free(c);
        }
        free(p);
        return rl_fail(err, RL_EINPUT,
                       "%s %s: no executable llama-bench in it, in bin/ or in build/bin/; give "
                       "the binary itself",
                       label, arg);
    }
    if (!is_exec_file(p)) {
        free(p);
        return rl_fail(err, RL_EINPUT,
                       "%s %s is not an executable file; chmod +x it or give "
                       "another llama-bench",
                       label, arg);
    }
    *path_out = absolute(p);
    free(p);
    return *path_out ? RL_OK : oom(err);
}

static char *search_path(const char *path)
{
    const char *s = path;
    while (s) {
        const char *colon = strchr(s, ':');
        size_t n = colon ? (size_t)(colon - s) : strlen(s);
        char *c = n == 0 ? rl_strdup("./" LB_NAME) : rl_asprintf("%.*s/" LB_NAME, (int)n, s);
        if (c && n < PATH_MAX && is_exec_file(c)) {
            char *a = absolute(c);
            free(c);
            return a;
        }
        free(c);
        s = colon ? colon + 1 : NULL;
    }
    return NULL;
}

/* The best cache build: ROOT/llama.cpp-X/build-Y/bin/llama-bench, a build marked .built-ok
 * first, then the newest binary, then the smallest path (deterministic). */
static char *search_cache(const char *root)
{
    DIR *d = opendir(root);
    if (!d)
        return NULL;
    char *best = NULL;
    bool best_ok = false;
    struct timespec best_t = {0, 0};
    struct dirent *e;
    for (int n1 = 0; (e = readdir(d)) && n1 < LB_MAX_DIR_ENTRIES; n1++) {
        if (strncmp(e->d_name, "llama.cpp-", 10) != 0)
            continue;
        char *src = rl_asprintf("%s/%s", root, e->d_name);
        DIR *d2 = src ? opendir(src) : NULL;
        struct dirent *b;
        for (int n2 = 0; d2 && (b = readdir(d2)) && n2 < LB_MAX_DIR_ENTRIES; n2++) {
            if (strncmp(b->d_name, "build-", 6) != 0)
                continue;
            char *bin = rl_asprintf("%s/%s/bin/" LB_NAME, src, b->d_name);
            char *ok = rl_asprintf("%s/%s/.built-ok", src, b->d_name);
            struct stat st, so;
            if (bin && ok && is_exec_file(bin) && stat(bin, &st) == 0) {
                bool built_ok = stat(ok, &so) == 0;
                int newer = st.st_mtim.tv_sec != best_t.tv_sec
                                ? (st.st_mtim.tv_sec > best_t.tv_sec ? 1 : -1)
                                : (st.st_mtim.tv_nsec > best_t.tv_nsec   ? 1
                                   : st.st_mtim.tv_nsec < best_t.tv_nsec ? -1
                                                                         : 0);
                bool better =
                    !best || (built_ok && !best_ok) ||
                    (built_ok == best_ok && (newer > 0 || (newer == 0 && strcmp(bin, best) < 0)));
                if (better) {
                    free(best);
                    best = bin;
                    bin = NULL;
                    best_ok = built_ok;
                    best_t = st.st_mtim;
                }
            }
            free(bin);
            free(ok);
        }
        if (d2)
            closedir(d2);
        free(src);
    }
    closedir(d);
    return best;
}

rl_status rl_lbench_find_env(const char *explicit_path, const rl_lbench_env *env, char **path_out,
                             rl_error *err)
{
    static const rl_lbench_env none = {NULL, NULL, NULL, NULL};
    if (!path_out)
        return rl_fail(err, RL_EINTERNAL, "rl_lbench_find: no output pointer");
    *path_out = NULL;
    if (!env)
        env = &none;
    if (explicit_path && *explicit_path)
        return resolve_named(explicit_path, env->home, "--llama-bench", path_out, err);
    if (env->llama_bench && *env->llama_bench)
        return resolve_named(env->llama_bench, env->home, "LLAMA_BENCH", path_out, err);
    if (env->path && *env->path) {
        *path_out = search_path(env->path);
        if (*path_out)
            return RL_OK;
    }
    char *root = rl_cache_root(env->roofline_cache, env->home);
    if (root) {
        *path_out = search_cache(root);
        if (*path_out) {
            free(root);
            return RL_OK;
        }
    }
    rl_fail(err, RL_EMISSING,
            "llama-bench not found (looked at LLAMA_BENCH, PATH and %s/llama.cpp-*/build-*/bin); "
            "run `bash scripts/llama-cpp.sh` to build the pinned one, or pass --llama-bench "
            "PATH, or set LLAMA_BENCH",
            root ? root : "$HOME/.cache/llama-roofline");
    free(root);
    return RL_EMISSING;
}

rl_status rl_lbench_find(const char *explicit_path, char **path_out, rl_error *err)
{
    rl_lbench_env env = {getenv("LLAMA_BENCH"), getenv("PATH"), getenv("LLAMA_ROOFLINE_CACHE"),
                         getenv("HOME")};
    return rl_lbench_find_env(explicit_path, &env, path_out, err);
}

/* ---- command line ------------------------------------------------------------------------- */

void rl_lbench_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

static rl_status check_range(const char *what, int v, int lo, int hi, const char *why,
                             rl_error *err)
{
    if (v >= lo && v <= hi)
        return RL_OK;
    return rl_fail(err, RL_EINPUT, "llama-bench %s %d is out of range %d..%d%s", what, v, lo, hi,
                   why);
}

rl_status rl_lbench_check_extra(const char *a, rl_error *err)
{
    if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strncmp(a, "--output=", 9))
        return rl_fail(err, RL_EINPUT,
                       "extra llama-bench argument %s is refused: the output format is "
                       "chosen by llama-roofline (jsonl)",
                       a);
    return RL_OK;
}

rl_status rl_lbench_argv(const char *bin, const rl_lbench_params *p, char ***argv_out,
                         rl_error *err)
{
    if (!argv_out)
        return rl_fail(err, RL_EINTERNAL, "rl_lbench_argv: no output pointer");
    *argv_out = NULL;
    if (!bin || !*bin || !p)
        return rl_fail(err, RL_EINPUT, "llama-bench command line: no binary given");
    if (!p->model || !*p->model)
        return rl_fail(err, RL_EINPUT, "llama-bench command line: no model given");
    if (p->decode_only && (p->n_prompt != 0 || p->n_gen < 1))
        return rl_fail(err, RL_EINPUT,
                       "a decode-only llama-bench run is -p 0 with at least 1 generated token");
    if (p->n_prompt == 0 && !p->decode_only)
        return rl_fail(err, RL_EINPUT,
                       "a prompt length of 0 (-p 0) is refused: some llama.cpp builds report a "
                       "spuriously low generation rate without a prompt; use a prompt of at "
                       "least 1 token (128 by default)");
    rl_status st;
    if ((st = check_range("thread count", p->threads, 1, 65536, "", err)) ||
        (st = check_range("prompt length", p->n_prompt, p->decode_only ? 0 : 1,
                          RL_LBENCH_MAX_TOKENS, "", err)) ||
        (st = check_range("generation length", p->n_gen, 0, RL_LBENCH_MAX_TOKENS, "", err)) ||
        (st = check_range("repetition count", p->reps, 1, RL_LBENCH_MAX_SAMPLES, "", err)) ||
        (st = check_range("depth", p->depth, 0, RL_LBENCH_MAX_TOKENS, "", err)) ||
        (st = check_range("GPU layer count", p->n_gpu_layers, 0, INT_MAX,
                          " (give a large number such as 999 for all layers)", err)))
        return st;
    if (p->n_extra > RL_LBENCH_MAX_EXTRA)
        return rl_fail(err, RL_EINPUT, "%zu extra llama-bench arguments: at most %d are accepted",
                       p->n_extra, RL_LBENCH_MAX_EXTRA);
    for (size_t i = 0; i < p->n_extra; i++) {
        const char *a = p->extra ? p->extra[i] : NULL;
        if (!a)
            return rl_fail(err, RL_EINPUT, "extra llama-bench argument %zu is missing", i + 1);
        st = rl_lbench_check_extra(a, err);
        if (st != RL_OK)
            return st;
    }
    size_t n = 1 + 2 * 5 + 2 + (p->depth > 0 ? 2 : 0) + 2 + p->n_extra + 1;
    char **argv = rl_calloc(n, sizeof *argv);
    if (!argv)
        return rl_fail(err, RL_EINTERNAL, "out of memory building the llama-bench command line");
    size_t k = 0;
    bool ok = true;
#define PUSH(s)                                                                                    \
    do {                                                                                           \
        if (!(argv[k++] = rl_strdup(s)))                                                           \
            ok = false;                                                                            \
    } while (0)
#define PUSH_INT(v)                                                                                \
    do {                                                                                           \
        char num[16];                                                                              \
        snprintf(num, sizeof num, "%d", (v));                                                      \
        PUSH(num);                                                                                 \
    } while (0)
    PUSH(bin);
    PUSH("-m");
    PUSH(p->model);
    PUSH("-t");
    PUSH_INT(p->threads);
    PUSH("-p");
    PUSH_INT(p->n_prompt);
    PUSH("-n");
    PUSH_INT(p->n_gen);
    PUSH("-r");
    PUSH_INT(p->reps);
    PUSH("-o");
    PUSH("jsonl");
    if (p->depth > 0) {
        PUSH("-d");
        PUSH_INT(p->depth);
    }
    PUSH("-ngl");
    PUSH_INT(p->n_gpu_layers);
    for (size_t i = 0; i < p->n_extra; i++)
        PUSH(p->extra[i]);
#undef PUSH
#undef PUSH_INT
    argv[k] = NULL;
    if (!ok) {
        for (size_t i = 0; i < k; i++)
            free(argv[i]);
        free(argv);
        return rl_fail(err, RL_EINTERNAL, "out of memory building the llama-bench command line");
    }
    *argv_out = argv;
    return RL_OK;
}

char **rl_lbench_version_argv(const char *bin)
{
    if (!bin)
        return NULL;
    char **argv = rl_calloc(3, sizeof *argv);
    if (!argv)
        return NULL;
    argv[0] = rl_strdup(bin);
    argv[1] = rl_strdup("--version");
    if (!argv[0] || !argv[1]) {
        free(argv[0]);
        free(argv[1]);
        free(argv);
        return NULL;
    }
    return argv;
}

/* ---- build identification ----------------------------------------------------------------- */

void rl_lbench_build_from_record(const rl_lbench_record *r, rl_lbench_build *out)
{
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    out->number = r->build_number > 0 ? r->build_number : 0;
    if (r->build_commit)
        rl_lbench_escape(r->build_commit, strlen(r->build_commit), sizeof out->commit - 1,
                         out->commit, sizeof out->commit);
}

/* Read an unsigned decimal at *p (at most 18 digits); advances *p. */
static bool read_num(const char **p, const char *end, int64_t *v)
{
    const char *s = *p;
    int64_t x = 0;
    int digits = 0;
    while (s < end && *s >= '0' && *s <= '9' && digits < 18) {
        x = x * 10 + (*s - '0');
        s++;
        digits++;
    }
    if (!digits || (s < end && *s >= '0' && *s <= '9'))
        return false;
    *v = x;
    *p = s;
    return true;
}

/* Read a commit id: hex digits, or the word "unknown"; copied into out. */
static bool read_commit(const char **p, const char *end, char *out, size_t cap)
{
    const char *s = *p;
    if ((size_t)(end - s) >= 7 && !memcmp(s, "unknown", 7)) {
        s += 7;
    } else {
        while (s < end &&
               ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
            s++;
    }
    size_t n = (size_t)(s - *p);
    if (n == 0 || n >= cap)
        return false;
    memcpy(out, *p, n);
    out[n] = '\0';
    *p = s;
    return true;
}

static bool lit(const char **p, const char *end, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(end - *p) < k || memcmp(*p, w, k) != 0)
        return false;
    *p += k;
    return true;
}

static void skip_spaces(const char **p, const char *end)
{
    while (*p < end && **p == ' ')
        (*p)++;
}

/* "N (HASH)" at p: fills t's number and commit, true when the whole form is there. */
static bool num_then_commit(const char *p, const char *end, rl_lbench_build *t)
{
    if (!read_num(&p, end, &t->number))
        return false;
    skip_spaces(&p, end);
    return lit(&p, end, "(") && read_commit(&p, end, t->commit, sizeof t->commit) &&
           lit(&p, end, ")");
}

/* One line against the three known forms. */
static bool build_from_line(const char *s, const char *end, rl_lbench_build *b)
{
    rl_lbench_build t;
    memset(&t, 0, sizeof t);
    const char *p = s;
    skip_spaces(&p, end);
    if (lit(&p, end, "version:")) {
        skip_spaces(&p, end);
        /* "version: N (HASH)" */
        if (num_then_commit(p, end, &t)) {
            *b = t;
            return true;
        }
        /* "version: V (build N, commit HASH)" */
        const char *v = p;
        while (p < end && *p != ' ' && *p != '(')
            p++;
        size_t vn = (size_t)(p - v);
        if (vn == 0 || vn >= sizeof t.version)
            return false;
        memcpy(t.version, v, vn);
        skip_spaces(&p, end);
        if (lit(&p, end, "(build ") && read_num(&p, end, &t.number) && lit(&p, end, ", commit ") &&
            read_commit(&p, end, t.commit, sizeof t.commit) && lit(&p, end, ")")) {
            for (char *c = t.version; *c; c++)
                if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7E)
                    *c = '?';
            *b = t;
            return true;
        }
        return false;
    }
    if (lit(&p, end, "build:")) {
        skip_spaces(&p, end);
        /* "build: N (HASH) with ..." (common log line) */
        if (num_then_commit(p, end, &t)) {
            *b = t;
            return true;
        }
        /* "build: HASH (N)" (llama-bench's markdown footer) */
        t.number = 0;
        if (read_commit(&p, end, t.commit, sizeof t.commit)) {
            skip_spaces(&p, end);
            if (lit(&p, end, "(") && read_num(&p, end, &t.number) && lit(&p, end, ")")) {
                *b = t;
                return true;
            }
        }
    }
    return false;
}

rl_status rl_lbench_build_from_text(const char *text, size_t len, rl_lbench_build *out,
                                    rl_error *err)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (text && i < len) {
        size_t s = i;
        while (i < len && text[i] != '\n' && text[i] != '\r')
            i++;
        if (build_from_line(text + s, text + i, out))
            return RL_OK;
        i++;
    }
    char head[100];
    rl_lbench_escape(text, text ? len : 0, 80, head, sizeof head);
    memset(out, 0, sizeof *out);
    return rl_fail(err, RL_EINPUT,
                   "llama-bench --version printed no \"version: ...\" line (got \"%s\"); its "
                   "build will be taken from the benchmark records instead",
                   head);
}
