/* SPDX-License-Identifier: MIT */
/* predict.c: one prediction (predict.h): a model's bytes per token at each depth divided by the
 * rate rl_pred_rate_for picks, and the caveats that apply. See predict.h for the method, the
 * interval and the caveats; predict_rate.c holds the arithmetic, predict_json.c the JSON. */
#include "analyse/predict.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_url.h"
#include "base/rl_util.h"

/* ---- predictions --------------------------------------------------------------------- */

static rl_status add_caveat(rl_prediction *p, const char *code, rl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static rl_status add_caveat(rl_prediction *p, const char *code, rl_error *err, const char *fmt, ...)
{
    if (p->n_caveats >= RL_PRED_MAX_CAVEATS)
        return RL_OK;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *t = rl_strdup(buf);
    if (!t)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    p->caveats[p->n_caveats++] = (rl_pred_caveat){code, t};
    return RL_OK;
}

static rl_status caveats_for(const rl_pred_fit *f, const rl_gguf_model *m, rl_prediction *p,
                             bool deep, int threads, rl_error *err)
{
    char a[32], b[32];
    rl_status st = RL_OK;
    if (strcmp(f->verdict, "compute-bound") == 0 ||
        strcmp(f->verdict, "not bandwidth-limited") == 0)
        st = add_caveat(p, "compute_bound", err,
                        "The bundle's verdict is %s: decode on this machine was not set by memory "
                        "bandwidth alone, so the line describes the models measured and a model "
                        "of another size may fall off it (small ones below it).",
                        f->verdict);
    double w = (double)p->weights_bytes;
    if (st == RL_OK && f->min_bytes > 0 && w < f->min_bytes) {
        rl_fmt_mb(a, sizeof a, (uint64_t)f->min_bytes);
        st = add_caveat(p, "below_fit_range", err,
                        "Smaller than every fitted model (the smallest streams %s per token): "
                        "small models are often limited by the cores and per-token overheads, so "
                        "read the prediction as an upper bound.",
                        a);
    }
    if (st == RL_OK && f->max_bytes > 0 && w > f->max_bytes) {
        rl_fmt_mb(a, sizeof a, (uint64_t)f->max_bytes);
        st = add_caveat(p, "above_fit_range", err,
                        "Larger than every fitted model (the largest streams %s per token): the "
                        "line is extrapolated.",
                        a);
    }
    if (st == RL_OK && m->is_moe)
        st = f->conv == RL_AN_BYTES_STREAMED
                 ? add_caveat(p, "moe", err,
                              "A mixture of experts: the bytes count %" PRIu64 " of %" PRIu64
                              " experts per token (the expert tensors scaled); which experts "
                              "are read changes per token, so the rate varies around this.",
                              m->expert_used_count, m->expert_count)
                 : add_caveat(p, "moe", err,
                              "A mixture of experts with the resident convention: every expert "
                              "is counted, but decode reads only %" PRIu64 " of %" PRIu64
                              " per token, so the prediction is a lower bound.",
                              m->expert_used_count, m->expert_count);
    if (st == RL_OK && threads > 0) {
        bool in = false;
        for (size_t i = 0; i < f->n_threads; i++)
            in |= f->threads[i] == threads;
        rl_pred_threads_list(f, b, sizeof b);
        if (!in && f->n_threads)
            st = add_caveat(p, "threads", err,
                            "The fitted models ran best at %s thread%s; at %d threads decode can "
                            "be slower (too few threads to saturate memory) or lose a little (too "
                            "many).",
                            b, f->n_threads == 1 && f->threads[0] == 1 ? "" : "s", threads);
    }
    if (st == RL_OK && f->has_r2 && f->r2 < RL_PRED_LOOSE_R2 &&
        f->n_points >= RL_AN_LOOSE_FIT_MIN_POINTS) {
        rl_snprintf(a, sizeof a, "%.3f", f->r2);
        st = add_caveat(p, "loose_fit", err,
                        "The fit is loose (R^2 = %s): decode on this machine is not set by bytes "
                        "alone, so the interval is wide for a reason.",
                        a);
    }
    if (st == RL_OK && f->labels[0] && p->label[0] && !rl_pred_label_listed(f->labels, p->label))
        st = add_caveat(p, "other_format", err,
                        "None of the fitted models is %s (fitted: %s): formats cost different "
                        "compute per byte (K-quants more than Q4_0, Q8_0 or F16), which shows "
                        "where decode is not purely memory-bound, e.g. at few threads.",
                        p->label, f->labels);
    if (st == RL_OK && deep && p->kv_bytes_per_token > 0 && f->has_depth_cost)
        st = add_caveat(p, "depth_fit", err,
                        "Depths above 0 are predicted from how per-token time grew with depth "
                        "on %zu measured model%s of the bundle (%.3g us per KV byte); the "
                        "bytes-only rate beside it counts the KV cache's bytes alone.",
                        f->n_depth_models, f->n_depth_models == 1 ? "" : "s", f->us_per_kv_byte);
    else if (st == RL_OK && deep && p->kv_bytes_per_token > 0)
        st = add_caveat(p, "depth_bytes_only", err,
                        "Depths above 0 add only the KV cache's bytes (f16 K and V); attention "
                        "also costs compute, so measured decode at depth usually falls faster.");
    if (st == RL_OK && deep && p->kv_bytes_per_token == 0)
        st = add_caveat(p, "kv_unknown", err,
                        "The model's KV-cache size per token is unknown (its metadata lacks the "
                        "attention shape), so only short context is predicted.");
    return st;
}

rl_status rl_predict(const rl_pred_fit *f, const rl_gguf_model *m, const char *spec,
                     const uint64_t *depths, size_t n_depths, int threads, rl_prediction *p,
                     rl_error *err)
{
    memset(p, 0, sizeof *p);
    char safe[512];
    if (n_depths == 0 || n_depths > RL_PRED_MAX_DEPTHS)
        return rl_fail(err, RL_EINPUT, "give 1 to %d depths", RL_PRED_MAX_DEPTHS);
    p->model = rl_url_redact(spec); /* a URL's credentials never reach a bundle */
    if (!p->model)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    p->conv = f->conv;
    p->is_moe = m->is_moe;
    p->kv_bytes_per_token = m->kv_bytes_per_token;
    snprintf(p->label, sizeof p->label, "%s", m->label);
    const char *base = strrchr(m->path ? m->path : p->model, '/');
    base = base ? base + 1 : (m->path ? m->path : p->model);
    snprintf(p->name, sizeof p->name, "%s%s%s", m->name[0] ? m->name : base, m->label[0] ? " " : "",
             m->label);
    if (f->conv == RL_AN_BYTES_STREAMED) {
        p->bytes_key = "streamed_bytes";
        p->weights_bytes = m->streamed_bytes;
    } else if (f->resident_is_file) {
        p->bytes_key = "file_bytes";
        p->weights_bytes = m->file_bytes;
    } else {
        p->bytes_key = "tensor_bytes";
        p->weights_bytes = m->tensor_bytes;
    }
    if ((!m->sizes_known && strcmp(p->bytes_key, "file_bytes") != 0) || p->weights_bytes == 0) {
        rl_prediction_free(p);
        return rl_fail(err, RL_EINPUT,
                       "%s: its bytes per token are unknown (a tensor type this build does not "
                       "know); no prediction",
                       rl_url_shown(spec, safe, sizeof safe));
    }
    rl_pred_rate_for(f, p->label, &p->rate);
    bool deep = false;
    for (size_t i = 0; i < n_depths; i++) {
        rl_pred_point *pt = &p->points[p->n_points++];
        pt->depth = depths[i];
        deep |= depths[i] > 0;
        if (depths[i] > 0 && m->kv_bytes_per_token == 0)
            continue; /* unavailable */
        if (!rl_pred_bytes_at_depth(p->weights_bytes, m->kv_bytes_per_token, depths[i],
                                    &pt->bytes_per_token))
            continue;
        double bytes = (double)pt->bytes_per_token;
        pt->available = true;
        pt->tok_s = rl_pred_tok_s(p->rate.bw, bytes);
        pt->tok_s_low = rl_pred_tok_s(p->rate.lo, bytes);
        pt->tok_s_high = rl_pred_tok_s(p->rate.hi, bytes);
        if (depths[i] > 0 && f->has_depth_cost) {
            double t0 = rl_pred_tok_s(p->rate.bw, (double)p->weights_bytes);
            pt->depth_fit_tok_s = rl_pred_depth_tok_s(
                t0, (double)depths[i], (double)m->kv_bytes_per_token, f->us_per_kv_byte);
            pt->has_depth_fit = isfinite(pt->depth_fit_tok_s);
        }
    }
    rl_pred_roofs_for(f, m, &p->roof);
    p->roof_threads = f->roof_threads;
    rl_roof_verdict(&p->roof, f->ceiling_GBs, p->roof_verdict, sizeof p->roof_verdict);
    rl_status st = caveats_for(f, m, p, deep, threads, err);
    if (st != RL_OK)
        rl_prediction_free(p);
    return st;
}

void rl_prediction_free(rl_prediction *p)
{
    if (!p)
        return;
    free(p->model);
    for (size_t i = 0; i < p->n_caveats; i++)
        free(p->caveats[i].text);
    memset(p, 0, sizeof *p);
}
