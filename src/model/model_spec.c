/* SPDX-License-Identifier: MIT */
/* model_spec.c: a model's header from a spec: "synth:PRESET:TYPE", a URL or a local path
 * (model_spec.h). */
#include "model/model_spec.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/gguf.h"
#include "model/gguf_remote.h"
#include "model/synth.h"

/* ---- models -------------------------------------------------------------------------- */

rl_status rl_model_spec_synth(const char *preset, const char *type, rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    const rl_synth_preset *pr = rl_synth_preset_find(preset);
    if (!pr)
        return rl_fail(err, RL_EINPUT, "no synth preset '%s' (one of %s)", preset,
                       rl_synth_preset_names());
    int t = rl_synth_type_by_name(type);
    if (t < 0)
        return rl_fail(err, RL_EINPUT, "synth type '%s' is not one of %s", type,
                       rl_synth_type_names());
    rl_synth_config cfg = pr->cfg;
    cfg.type = (uint32_t)t;
    rl_synth_plan *p = NULL;
    rl_status st = rl_synth_plan_build(&cfg, &p, err);
    if (st != RL_OK)
        return st;
    char *name = rl_asprintf("synth:%s:%s", pr->name, rl_synth_type_name((uint32_t)t));
    FILE *fp = name ? fmemopen(p->header, p->header_len, "rb") : NULL;
    rl_gguf_file *f = NULL;
    if (!fp)
        st = rl_fail(err, RL_EINTERNAL, "out of memory planning %s", preset);
    else
        st = rl_gguf_read_stream(fp, p->file_size, name, &f, err);
    if (fp)
        fclose(fp);
    free(name);
    rl_synth_plan_free(p);
    return st == RL_OK ? rl_gguf_model_adopt(f, m, err) : st;
}

rl_status rl_model_spec_load(const char *spec, FILE *log, rl_gguf_model *m, rl_error *err)
{
    if (strncmp(spec, "synth:", 6) == 0) {
        const char *rest = spec + 6, *colon = strchr(rest, ':');
        char preset[64];
        if (!colon || (size_t)(colon - rest) >= sizeof preset || colon == rest) {
            memset(m, 0, sizeof *m);
            char safe[256];
            return rl_fail(err, RL_EINPUT,
                           "'%s': give a synth model as synth:PRESET:TYPE (e.g. "
                           "synth:qwen2.5-1.5b:Q8_0)",
                           rl_tty_escape(spec, safe, sizeof safe));
        }
        memcpy(preset, rest, (size_t)(colon - rest));
        preset[colon - rest] = '\0';
        return rl_model_spec_synth(preset, colon + 1, m, err);
    }
    return rl_gguf_model_open(spec, log, m, err);
}
