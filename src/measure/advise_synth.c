/* SPDX-License-Identifier: MIT */
/* advise_synth.c: the format set `advise --measure --synth` measures: a synth F16 quantized by
 * the real llama-quantize, cached (see advise_synth.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/advise_synth.h"
#include "model/gguf_model.h"
#include "measure/lbench.h"
#include "base/proc.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/synth.h"
#include "model/synth_ladder.h"

static bool is_exec(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

rl_status rl_advise_find_quantize(const char *explicit_path, const char *bench_path, char **out,
                                  rl_error *err)
{
    *out = NULL;
    if (explicit_path && *explicit_path) {
        struct stat st;
        char *p = NULL;
        if (stat(explicit_path, &st) == 0 && S_ISDIR(st.st_mode))
            p = rl_asprintf("%s/llama-quantize", explicit_path);
        else
            p = rl_strdup(explicit_path);
        if (p && is_exec(p)) {
            *out = p;
            return RL_OK;
        }
        free(p);
        return rl_fail(err, RL_EMISSING,
                       "--llama-quantize %s: not an executable llama-quantize (give the binary or "
                       "its directory)",
                       explicit_path);
    }
    if (bench_path) {
        const char *slash = strrchr(bench_path, '/');
        char *p = slash ? rl_asprintf("%.*s/llama-quantize", (int)(slash - bench_path), bench_path)
                        : NULL;
        if (p && is_exec(p)) {
            *out = p;
            return RL_OK;
        }
        free(p);
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        char *p = n ? rl_asprintf("%.*s/llama-quantize", (int)n, path) : NULL;
        if (p && is_exec(p)) {
            *out = p;
            return RL_OK;
        }
        free(p);
        path = colon ? colon + 1 : NULL;
    }
    return rl_fail(err, RL_EMISSING,
                   "llama-quantize not found beside llama-bench nor on PATH: give "
                   "--llama-quantize PATH (scripts/llama-cpp.sh builds llama.cpp)");
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t file_key(uint64_t h, const char *path)
{
    struct stat st;
    h = fnv(h, path, strlen(path));
    if (stat(path, &st) == 0) {
        int64_t v[2] = {(int64_t)st.st_size, (int64_t)st.st_mtime};
        h = fnv(h, v, sizeof v);
    }
    return h;
}

static bool cached_ok(const char *path, const char *fmt)
{
    rl_gguf_model m;
    rl_error e;
    bool ok = rl_gguf_model_load(path, &m, &e) == RL_OK && strcasecmp(m.label, fmt) == 0;
    rl_gguf_model_free(&m);
    return ok;
}

rl_status rl_quantize_file(const char *bin, const char *src, const char *dst, const char *fmt,
                           bool pure, rl_error *err)
{
    char *tmp = rl_asprintf("%s.tmp%ld", dst, (long)getpid());
    if (!tmp)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    const char *argv[] = {
        bin, pure ? "--pure" : src, pure ? src : tmp, pure ? tmp : fmt, pure ? fmt : NULL, NULL};
    rl_proc_opts po = {0};
    po.argv = argv;
    po.timeout = 3600;
    rl_proc_result pr;
    rl_status st = rl_proc_run(&po, &pr, err);
    if (st == RL_OK && (pr.interrupted || rl_interrupted))
        st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
    if (st == RL_OK && (pr.exit_code != 0 || pr.timed_out)) {
        char *text = rl_proc_kept_text(&pr.err);
        char *otext = rl_proc_kept_text(&pr.out);
        char sum[512];
        const char *t = text && *text ? text : (otext ? otext : "");
        rl_lbench_stderr_summary(t, strlen(t), sum, sizeof sum);
        st = rl_fail(err, RL_EINPUT, "llama-quantize to %s failed (exit %d%s): %s", fmt,
                     pr.exit_code, pr.timed_out ? ", timed out" : "", sum);
        free(text);
        free(otext);
    }
    if (st != RL_EINTERNAL && st != RL_EMISSING)
        rl_proc_result_free(&pr);
    if (st == RL_OK && rename(tmp, dst) != 0)
        st = rl_fail(err, RL_EOUTPUT, "%s: cannot rename into place: %s", dst, strerror(errno));
    if (st != RL_OK)
        unlink(tmp);
    free(tmp);
    return st;
}

static rl_status quantize(const char *bin, const char *src, const char *dst, const char *fmt,
                          rl_error *err)
{
    rl_status st = rl_quantize_file(bin, src, dst, fmt, false, err);
    if (st == RL_OK && !cached_ok(dst, fmt)) {
        unlink(dst);
        st = rl_fail(err, RL_EINPUT, "%s: llama-quantize wrote a file that does not read as %s",
                     dst, fmt);
    }
    return st;
}

uint64_t rl_quantize_key(const char *quantize_bin, const char *source)
{
    uint64_t h = file_key(14695981039346656037ULL, quantize_bin);
    return source ? file_key(h, source) : h;
}

rl_status rl_advise_synth_set(const char *preset, const char *const *formats, int n_formats,
                              const char *quantize_bin, rl_advise_set *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!rl_synth_preset_find(preset))
        return rl_fail(err, RL_EINPUT, "--preset: unknown preset '%s' (valid: %s)", preset,
                       rl_synth_preset_names());
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    rl_synth_ladder lad;
    rl_status st = rl_synth_ladder_ensure(root, preset, NULL, true, &lad, err);
    rl_progress_done();
    if (st != RL_OK) {
        free(root);
        return st;
    }
    const char *f16 = lad.paths[RL_LADDER_N - 1];
    char *qdir = rl_asprintf("%s/quantized", root);
    free(root);
    st = qdir ? rl_mkdir_p(qdir, "set LLAMA_ROOFLINE_CACHE to a writable directory", err)
              : rl_fail(err, RL_EINTERNAL, "out of memory");
    uint64_t key = rl_quantize_key(quantize_bin, f16);
    for (int i = 0; st == RL_OK && i < n_formats && out->n < RL_ADV_SET_MAX; i++) {
        char *p;
        if (strcasecmp(formats[i], "F16") == 0) {
            p = rl_strdup(f16);
        } else {
            p = rl_asprintf("%s/%s-seed%d-%08llx-%s.gguf", qdir, preset, RL_LADDER_SEED,
                            (unsigned long long)(key & 0xffffffffULL), formats[i]);
            if (p && !cached_ok(p, formats[i])) {
                rl_progress("quantizing %s to %s (llama-quantize, cached for next time)", preset,
                            formats[i]);
                st = quantize(quantize_bin, f16, p, formats[i], err);
                rl_progress_done();
            }
        }
        if (!p && st == RL_OK)
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
        if (p && st == RL_OK)
            out->paths[out->n++] = p;
        else
            free(p);
        if (st == RL_OK && rl_interrupted)
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
    }
    free(qdir);
    rl_synth_ladder_free(&lad);
    if (st != RL_OK)
        rl_advise_set_free(out);
    return st;
}

void rl_advise_set_free(rl_advise_set *s)
{
    for (int i = 0; s && i < s->n; i++)
        free(s->paths[i]);
    if (s)
        memset(s, 0, sizeof *s);
}
