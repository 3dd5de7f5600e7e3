/* SPDX-License-Identifier: MIT */
/* calib_models.c: make or reuse the calibration's single-type models (calib_models.h). */
#include "measure/calib_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "measure/advise_synth.h"
#include "model/ggml_types.h"
#include "model/gguf_model.h"
#include "model/synth.h"
#include "model/synth_write.h"

void rl_cal_model_name(const rl_cal_type *t, const rl_cal_shape *s, uint64_t quantize_key,
                       const char *suffix, char *buf, size_t cap)
{
    char q[24] = "";
    if (t->make == RL_CAL_QUANTIZE)
        rl_snprintf(q, sizeof q, "-q%08llx", (unsigned long long)(quantize_key & 0xffffffffULL));
    rl_snprintf(buf, cap, "%s-L%llu-e%llu-f%llu-kv%llu-v%llu-seed%d%s%s", t->name,
                (unsigned long long)s->n_layer, (unsigned long long)s->n_embd,
                (unsigned long long)s->n_ff, (unsigned long long)s->n_head_kv,
                (unsigned long long)s->n_vocab, RL_CAL_SEED, q, suffix);
}

/* A quantized model is usable when every tensor is the type or F32 and it streams exactly the
 * bytes of the plan. */
static bool quantized_ok(const char *path, const rl_cal_type *t, uint64_t bytes)
{
    rl_gguf_model m;
    rl_error e;
    bool ok =
        rl_gguf_model_load(path, &m, &e) == RL_OK && m.sizes_known && m.streamed_bytes == bytes;
    for (uint32_t i = 0; ok && i < m.n_types; i++)
        ok = m.types[i].type == t->type || m.types[i].type == RL_GGML_F32;
    rl_gguf_model_free(&m);
    return ok;
}

/* The refusal kept beside the model by an earlier call, into out->refused; false when none. */
static bool read_refusal(const char *path, rl_cal_model *out)
{
    char *text = NULL;
    size_t len = 0;
    rl_error e;
    if (access(path, F_OK) != 0 || rl_file_read_all(path, 4096, &text, &len, &e) != RL_OK)
        return false;
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    rl_snprintf(out->refused, sizeof out->refused, "%s", len ? text : "llama-quantize refused");
    free(text);
    return true;
}

static double now_s(void)
{
    return (double)rl_proc_now_ns() / 1e9;
}

static rl_status write_synth(const rl_synth_config *cfg, const char *path, bool *made,
                             rl_error *err)
{
    rl_synth_plan *plan = NULL;
    rl_status st = rl_synth_plan_build(cfg, &plan, err);
    *made = st == RL_OK && !rl_synth_file_matches(path, plan);
    if (*made) {
        rl_synth_write_opts wo = {.progress = false, .note = NULL};
        st = rl_synth_write(plan, path, &wo, err);
    }
    rl_synth_plan_free(plan);
    return st;
}

/* The refusal written beside the model; a note that cannot be kept only costs asking again. */
static void keep_refusal(const char *path, const char *why)
{
    char line[700];
    int n = rl_snprintf(line, sizeof line, "%s\n", why);
    rl_error we;
    rl_write_file(path, line, (size_t)n, &we);
}

/* A synth F16 of the shape quantized by llama-quantize --pure into path; a refusal kept in
 * refused_path and out->refused. */
static rl_status quantize_model(const char *dir, const rl_cal_type *t, const rl_cal_shape *s,
                                const char *bin, const char *path, const char *refused_path,
                                rl_cal_model *out, rl_error *err)
{
    rl_synth_config cfg;
    rl_cal_synth_config(s, RL_GGML_F16, &cfg);
    char *src = rl_asprintf("%s/.source-%ld-%s.f16.gguf", dir, (long)getpid(), t->name);
    if (!src)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    bool made = false, refused = false;
    rl_status st = write_synth(&cfg, src, &made, err);
    if (st == RL_OK) {
        rl_error qe = {RL_OK, ""};
        st = rl_quantize_file(bin, src, path, t->ftype, true, &qe);
        refused = st == RL_EINPUT; /* refused or failed: the type is not calibrated */
        if (refused) {
            /* its words, without the line naming our temporary source file */
            char *at = strstr(qe.msg, src), *cut = NULL;
            for (char *p = qe.msg; at && (p = strstr(p, " | ")) && p < at; p += 3)
                cut = p;
            if (cut)
                *cut = '\0';
            rl_snprintf(out->refused, sizeof out->refused, "%s", qe.msg);
            keep_refusal(refused_path, out->refused);
            st = RL_OK;
        } else if (st != RL_OK) {
            *err = qe;
        }
    }
    unlink(src);
    free(src);
    if (st != RL_OK || refused)
        return st;
    if (!quantized_ok(path, t, out->bytes)) {
        unlink(path);
        rl_snprintf(out->refused, sizeof out->refused,
                    "llama-quantize --pure %s wrote tensors of other types than %s (or other "
                    "sizes than planned)",
                    t->ftype, t->name);
        keep_refusal(refused_path, out->refused);
    }
    return RL_OK;
}

rl_status rl_cal_model_ensure(const char *dir, const rl_cal_type *t, const rl_cal_shape *s,
                              const char *quantize_bin, rl_cal_model *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!rl_cal_type_measurable(t))
        return rl_fail(err, RL_EINPUT, "%s is not calibrated: %s", t ? t->name : "?",
                       t ? t->reason : "unknown type");
    if (t->make == RL_CAL_QUANTIZE && (!quantize_bin || !*quantize_bin))
        return rl_fail(err, RL_EMISSING,
                       "%s needs llama-quantize, which was not found beside llama-bench nor on "
                       "PATH: give --llama-quantize PATH",
                       t->name);
    out->bytes = rl_cal_shape_bytes(s, t->type);
    rl_status st = rl_mkdir_p(dir, "set LLAMA_ROOFLINE_CACHE to a writable directory", err);
    if (st != RL_OK)
        return st;
    uint64_t key = t->make == RL_CAL_QUANTIZE ? rl_quantize_key(quantize_bin, NULL) : 0;
    char name[256], refused_name[256];
    rl_cal_model_name(t, s, key, ".gguf", name, sizeof name);
    rl_cal_model_name(t, s, key, ".refused", refused_name, sizeof refused_name);
    char *path = rl_asprintf("%s/%s", dir, name);
    char *refused_path = rl_asprintf("%s/%s", dir, refused_name);
    if (!path || !refused_path)
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    double t0 = now_s();
    if (st == RL_OK && t->make == RL_CAL_SYNTH) {
        rl_synth_config cfg;
        rl_cal_synth_config(s, t->type, &cfg);
        st = write_synth(&cfg, path, &out->made, err);
    } else if (st == RL_OK && !read_refusal(refused_path, out) &&
               !quantized_ok(path, t, out->bytes)) {
        out->made = true;
        st = quantize_model(dir, t, s, quantize_bin, path, refused_path, out, err);
    }
    out->seconds = out->made ? now_s() - t0 : 0;
    if (st == RL_OK && !out->refused[0]) {
        out->path = path;
        path = NULL;
    }
    free(path);
    free(refused_path);
    return st;
}

void rl_cal_model_free(rl_cal_model *m)
{
    if (!m)
        return;
    free(m->path);
    m->path = NULL;
}
