/* SPDX-License-Identifier: MIT */
/* synth_ladder.c: plan the ladder, keep the cached rungs that match their plan, check the free
 * space for the rest and write them. See synth_ladder.h. Plans and read buffers are freed
 * before the call returns; the paths go to the caller in rl_synth_ladder. */
#include "model/synth_ladder.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/ggml_types.h"
#include "model/gguf_model.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/synth.h"
#include "model/synth_write.h"

static const uint32_t ladder_types[RL_LADDER_N] = {RL_GGML_Q4_0, RL_GGML_Q8_0, RL_GGML_F16};

/* The free space of dir's file system; false when unknown. */
static bool dir_free_space(const char *dir, uint64_t *avail)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = rl_free_space(fd, avail);
    close(fd);
    return ok;
}

rl_status rl_synth_ladder_ensure(const char *cache_root, const char *preset_override, FILE *note,
                                 bool progress, rl_synth_ladder *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = preset_override && *preset_override ? preset_override : RL_LADDER_PRESET;
    const rl_synth_preset *pr = rl_synth_preset_find(name);
    if (!pr)
        return rl_fail(err, RL_EINPUT,
                       "LLAMA_ROOFLINE_SYNTH_PRESET: unknown preset '%s' (valid: %s; unset it for "
                       "the default ladder)",
                       name, rl_synth_preset_names());
    if (!cache_root)
        return rl_fail(err, RL_EOUTPUT,
                       "no place for the synthetic models: set HOME or LLAMA_ROOFLINE_CACHE to a "
                       "writable directory");
    out->preset = pr->name;
    out->dir = rl_asprintf("%s/synth", cache_root);
    if (!out->dir)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st = rl_mkdir_p(out->dir, "set LLAMA_ROOFLINE_CACHE to a writable directory", err);

    rl_synth_plan *plans[RL_LADDER_N] = {NULL};
    uint64_t need = 0;
    for (int i = 0; st == RL_OK && i < RL_LADDER_N; i++) {
        rl_synth_config cfg = pr->cfg;
        cfg.type = ladder_types[i];
        cfg.seed = RL_LADDER_SEED;
        st = rl_synth_plan_build(&cfg, &plans[i], err);
        if (st != RL_OK)
            break;
        out->paths[i] = rl_asprintf("%s/%s-%s-seed%d.gguf", out->dir, pr->name,
                                    rl_synth_type_name(cfg.type), RL_LADDER_SEED);
        if (!out->paths[i]) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        out->file_bytes[i] = plans[i]->file_size;
        out->written[i] = !rl_synth_file_matches(out->paths[i], plans[i]);
        if (out->written[i])
            need += plans[i]->file_size;
        if (rl_interrupted)
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
    }
    uint64_t avail;
    if (st == RL_OK && need > 0 && dir_free_space(out->dir, &avail) && need > avail) {
        char n[32], f[32];
        rl_fmt_size(n, sizeof n, need);
        rl_fmt_size(f, sizeof f, avail);
        st = rl_fail(err, RL_EOUTPUT,
                     "cannot write the synthetic models to %s: they need %s (%llu bytes) but its "
                     "file system has %s (%llu bytes) free (free some space, or set "
                     "LLAMA_ROOFLINE_CACHE to a directory with room)",
                     out->dir, n, (unsigned long long)need, f, (unsigned long long)avail);
    }
    rl_synth_write_opts wo = {.progress = progress, .note = note};
    for (int i = 0; st == RL_OK && i < RL_LADDER_N; i++)
        if (out->written[i])
            st = rl_synth_write(plans[i], out->paths[i], &wo, err);
    for (int i = 0; i < RL_LADDER_N; i++)
        rl_synth_plan_free(plans[i]);
    if (st != RL_OK)
        rl_synth_ladder_free(out);
    return st;
}

void rl_synth_ladder_free(rl_synth_ladder *l)
{
    if (!l)
        return;
    free(l->dir);
    for (int i = 0; i < RL_LADDER_N; i++)
        free(l->paths[i]);
    memset(l, 0, sizeof *l);
}
