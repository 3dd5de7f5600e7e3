/* SPDX-License-Identifier: MIT */
/* diagnose_models.c: which models `llama-roofline diagnose` measures: the operands (files
 * and directories), else the usual places, else (or with --synth) the synth ladder, with
 * llama-bench and the output directory checked before the ladder is written. See
 * diagnose_models.h. */
#include "cmd/diagnose_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/gguf_model.h"
#include "model/gguf_remote.h"
#include "measure/lbench.h"
#include "model/model_find.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "cmd/sweep.h"
#include "model/synth_ladder.h"

/* The operands, expanded: a missing or unreadable one is bad input, and so is no model. */
static rl_status from_operands(int n, char **ops, rl_model_paths *l, rl_error *err)
{
    for (int i = 0; i < n; i++) {
        struct stat sb;
        if (rl_remote_refuse_url(NULL, ops[i], err) != RL_OK)
            return RL_EINPUT;
        if (stat(ops[i], &sb) != 0)
            return rl_fail(err, RL_EINPUT,
                           "%s: no such file or directory (give GGUF files or directories "
                           "holding them)",
                           ops[i]);
        rl_status st = rl_model_paths_add(l, ops[i], err);
        if (st != RL_OK)
            return st;
    }
    if (l->n == 0)
        return rl_fail(err, RL_EINPUT,
                       "no GGUF model in the %s given (*.gguf files directly in it)",
                       n == 1 ? "directory" : "directories");
    if (l->n > RL_SWEEP_MAX_MODELS)
        return rl_fail(err, RL_EINPUT, "%zu models: give at most %d", l->n, RL_SWEEP_MAX_MODELS);
    rl_status st = RL_OK;
    for (size_t i = 0; st == RL_OK && i < l->n; i++) { /* a bad one: exit 2 before anything */
        rl_gguf_model m;
        st = rl_gguf_model_load(l->paths[i], &m, err);
        rl_gguf_model_free(&m);
    }
    return st;
}

/* The usual places: up to RL_MODEL_PICK spanning the sizes found. *none when nothing loads. */
static rl_status search(rl_model_paths *l, bool *none, rl_error *err)
{
    size_t n_found = 0;
    char *where = NULL, safe[2048];
    rl_status st =
        rl_model_search(getenv("LLAMA_MODELS"), getenv("HOME"), stderr, l, &n_found, &where, err);
    *none = st == RL_OK && l->n == 0;
    if (*none)
        rl_tty_printf(stderr,
                      "diagnose: %s GGUF model in %s (two levels deep); measuring the synthetic "
                      "ladder instead (as --synth)\n",
                      n_found ? "no loadable" : "no", rl_tty_escape(where, safe, sizeof safe));
    else if (st == RL_OK) {
        rl_tty_printf(stderr, "diagnose: found %zu model%s, using %zu:", n_found,
                      n_found == 1 ? "" : "s", l->n);
        for (size_t i = 0; i < l->n; i++) {
            const char *b = strrchr(l->paths[i], '/');
            rl_tty_printf(stderr, "%s %s", i ? "," : "",
                          rl_tty_escape(b ? b + 1 : l->paths[i], safe, 256));
        }
        rl_tty_puts(stderr, "\n");
    }
    free(where);
    return st;
}

static rl_status synth_ladder(rl_model_paths *l, rl_error *err)
{
    const char *override = getenv("LLAMA_ROOFLINE_SYNTH_PRESET");
    if (override && *override)
        rl_tty_printf(stderr, "diagnose: LLAMA_ROOFLINE_SYNTH_PRESET is set: a test ladder, whose "
                              "models may fit in the CPU caches (unset it for a real answer)\n");
    char *cache = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    rl_synth_ladder lad;
    rl_status st = rl_synth_ladder_ensure(cache, override, stderr, true, &lad, err);
    free(cache);
    for (int i = 0; st == RL_OK && i < RL_LADDER_N; i++)
        st = rl_model_paths_add_file(l, lad.paths[i], err);
    if (st == RL_OK) {
        char safe[1024];
        bool any = lad.written[0] || lad.written[1] || lad.written[2];
        rl_tty_printf(stderr, "diagnose: synthetic ladder %s at Q4_0, Q8_0, F16 in %s (%s)\n",
                      lad.preset, rl_tty_escape(lad.dir, safe, sizeof safe),
                      any ? "written; reused next time" : "reused");
    }
    rl_synth_ladder_free(&lad);
    return st;
}

rl_status rl_diagnose_models(int n, char **ops, bool synth, const char *llama_bench,
                             const char *out_dir, rl_model_paths *l, rl_error *err)
{
    bool none = false;
    rl_status st = RL_OK;
    if (n > 0)
        st = from_operands(n, ops, l, err);
    else if (!synth)
        st = search(l, &none, err);
    char *bin = NULL, *path = rl_asprintf("%s/bundle.json", out_dir);
    if (st == RL_OK && !path)
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    if (st == RL_OK)
        st = rl_lbench_find(llama_bench, &bin, err);
    if (st == RL_OK)
        st = rl_mkdir_p(out_dir, "choose a writable -o directory", err);
    if (st == RL_OK) /* before the ladder is written: the sweep takes it again */
        st = rl_output_lock(path, out_dir, "choose another -o", err);
    if (st == RL_OK)
        st = rl_check_writable(path, err);
    if (st == RL_OK && (synth || none))
        st = synth_ladder(l, err);
    free(bin);
    free(path);
    return st;
}
