/* SPDX-License-Identifier: MIT */
/* analysis.c: the decode roofline analysis (rules in analysis.h).
 *
 * Memory: rl_an_analyze allocates the result's arrays and strings (released by rl_an_free)
 * and a few scratch index arrays it frees before returning. rl_an_to_json returns a new
 * cJSON tree owned by the caller.
 *
 * JSON shape (numbers are full doubles; "kind" says how numbers were obtained; anything not
 * computed is {"available": false, "reason": "..."}):
 *   {"kind": "derived", "operating_point": "each model at its own best thread count",
 *    "bytes_convention": "resident"|"streamed",
 *    "ceiling": {"available", "kind": "measured"|"controlled", "GBs", "unstable"},
 *    "n_models", "n_models_ok",
 *    "models": [{"id", "name", "kind": "derived", "ok", "is_moe", "gpu_offload", "in_fit",
 *                "bytes_per_token", "bytes_convention",
 *                "operating_point": {"available", "kind": "measured", "decode_tok_s",
 *                                    "threads", "n_thread_settings", "samples": {stats}},
 *                "decode_bw_GBs", "knee": {..., "threads", "tolerance_pct"},
 *                "loss_at_max_threads": {..., "pct", "threads"},
 *                "decode_gain_at_top": {..., "pct", "from_threads", "to_threads"},
 *                "prefill": {..., "kind": "measured", "tok_s", "threads"},
 *                "prefill_scaling": {..., "ratio", "from_threads", "to_threads",
 *                                    "efficiency"},
 *                "utilisation": {..., "util_pct", "ceiling_GBs"},
 *                "fit_residual": {..., "tok_s"}}],
 *    "fit": {"available", "kind": "derived", "bw_GBs", "bw_bytes_s", "r2", "n_points",
 *            "models": [ids], "all_moe", "bytes_convention", "operating_point"},
 *    "utilisation": {"available", "kind": "derived", "median_pct", "min_pct", "max_pct",
 *                    "n_models", "ceiling_GBs"},
 *    "verdict": {"available", "kind": "derived", "label", "from_median_utilisation",
 *                "median_util_pct", "text", "evidence": {...}, "thresholds": {...}},
 *    "knee": {"available", "kind": "derived", "threads", "votes", "voters"},
 *    "prefill_scaling": {"available", "kind": "derived", "median", "min", "max", "n_models"},
 *    "long_context": [{"model", "kind": "measured", "threads", "depth", "decode_tok_s",
 *                      "pct_of_empty_cache": {..., "pct", "empty_cache_tok_s"},
 *                      "bytes_only_prediction": {..., "pct", "kv_bytes", "weights_bytes"}}],
 *    "depth_fits": [{"model", "threads", "kind": "derived", "tau0_us", "slope_us_per_token",
 *                    ..., "check": {...}}] (analysis_depth.h),
 *    "warnings": [{"code", "text", "applies_to": [ids]}]} */
#include "analyse/analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/analysis_depth.h"
#include "analyse/analysis_quiet.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* ---------- small growable string, plain ASCII ---------- */

/* Append s with every byte outside printable ASCII replaced by '?'. */
static void sb_ascii(rl_sbuf *b, const char *s)
{
    size_t n = strlen(s);
    rl_sbuf_reserve(b, n);
    if (b->oom)
        return;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        b->p[b->len++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    b->p[b->len] = 0;
}

/* Take the string (caller frees); NULL when out of memory. */
/* ---------- names ---------- */

const char *rl_an_verdict_name(rl_an_verdict_kind k)
{
    switch (k) {
    case RL_AN_VERDICT_MEMORY_BOUND: return "memory-bound";
    case RL_AN_VERDICT_PARTLY_MEMORY_BOUND: return "partly memory-bound";
    case RL_AN_VERDICT_NOT_BANDWIDTH_LIMITED: return "not bandwidth-limited";
    case RL_AN_VERDICT_COMPUTE_BOUND: return "compute-bound";
    case RL_AN_VERDICT_UNAVAILABLE: break;
    }
    return "unavailable";
}

const char *rl_an_bytes_name(rl_an_bytes_convention b)
{
    return b == RL_AN_BYTES_STREAMED ? "streamed" : "resident";
}

static const char *ceiling_kind(rl_an_ceiling_source s)
{
    return s == RL_AN_CEILING_CONTROLLED ? "controlled" : "measured";
}

/* ---------- freeing ---------- */

void rl_an_free(rl_an_result *r)
{
    if (r == NULL)
        return;
    if (r->models != NULL)
        for (size_t i = 0; i < r->n_models; i++) {
            free(r->models[i].id);
            free(r->models[i].name);
        }
    free(r->models);
    if (r->warnings != NULL)
        for (size_t i = 0; i < r->n_warnings; i++) {
            free(r->warnings[i].text);
            free(r->warnings[i].models);
        }
    free(r->warnings);
    free(r->long_context);
    free(r->depth_fits);
    free(r->verdict.text);
    free(r->disturbance.text);
    free(r->disturbance.advice);
    memset(r, 0, sizeof *r);
}

/* ---------- warnings ---------- */

/* Add a warning owning text (taken even on failure); models copied. */
static rl_status add_warning(rl_an_result *r, const char *code, char *text, const size_t *models,
                             size_t n_models, rl_error *err)
{
    if (text == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory writing a warning");
    rl_an_warning *w = realloc(r->warnings, (r->n_warnings + 1) * sizeof *w);
    if (w == NULL) {
        free(text);
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory adding a warning");
    }
    r->warnings = w;
    rl_an_warning *nw = &w[r->n_warnings];
    memset(nw, 0, sizeof *nw);
    nw->code = code;
    nw->text = text;
    if (n_models > 0) {
        nw->models = rl_calloc(n_models, sizeof *nw->models);
        if (nw->models == NULL) {
            free(text);
            return rl_fail(err, RL_EINTERNAL, "analysis: out of memory adding a warning");
        }
        memcpy(nw->models, models, n_models * sizeof *models);
        nw->n_models = n_models;
    }
    r->n_warnings++;
    return RL_OK;
}

/* "a, b, c" of the listed models' ids, ASCII-safe. */
static void sb_ids(rl_sbuf *b, const rl_an_result *r, const size_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            rl_sbuf_printf(b, ", ");
        sb_ascii(b, r->models[idx[i]].id);
    }
}

/* ---------- input validation ---------- */

/* Sort keys carry what they compare, so no global context is needed for qsort. */
typedef struct {
    unsigned depth, threads;
    size_t idx;
} run_key;

static int cmp_run_key(const void *a, const void *b)
{
    const run_key *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->threads != y->threads)
        return x->threads < y->threads ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

typedef struct {
    const char *id;
    size_t idx;
} id_key;

static int cmp_id_key(const void *a, const void *b)
{
    return strcmp(((const id_key *)a)->id, ((const id_key *)b)->id);
}

static rl_status check_rate(const rl_an_model *m, const rl_an_run *run, const rl_an_rate *rate,
                            const char *what, rl_error *err)
{
    if (!isfinite(rate->mean) || rate->mean < 0.0)
        return rl_fail(err, RL_EINPUT,
                       "model %s: %s rate at %u threads, depth %u is %g; it must be a finite "
                       "number >= 0 (0 = not measured)",
                       m->id, what, run->threads, run->depth, rate->mean);
    if (rate->samples != NULL)
        for (size_t i = 0; i < rate->n; i++)
            if (!isfinite(rate->samples[i]))
                return rl_fail(err, RL_EINPUT,
                               "model %s: %s sample %zu at %u threads, depth %u is not a finite "
                               "number",
                               m->id, what, i + 1, run->threads, run->depth);
    return RL_OK;
}

static rl_status check_model(const rl_an_model *m, size_t mi, rl_error *err)
{
    if (m->id == NULL || m->id[0] == 0)
        return rl_fail(err, RL_EINPUT, "model %zu has no id", mi + 1);
    if (!isfinite(m->bytes_per_token) || !(m->bytes_per_token > 0.0))
        return rl_fail(err, RL_EINPUT,
                       "model %s: bytes per token is %g; it must be a number above 0", m->id,
                       m->bytes_per_token);
    if (!isfinite(m->kv_bytes_per_token) || m->kv_bytes_per_token < 0.0)
        return rl_fail(err, RL_EINPUT,
                       "model %s: KV bytes per token is %g; it must be >= 0 (0 = unknown)", m->id,
                       m->kv_bytes_per_token);
    if (m->n_runs > 0 && m->runs == NULL)
        return rl_fail(err, RL_EINPUT, "model %s: %zu runs announced but none given", m->id,
                       m->n_runs);
    for (size_t i = 0; i < m->n_runs; i++) {
        const rl_an_run *run = &m->runs[i];
        if (run->threads == 0)
            return rl_fail(err, RL_EINPUT, "model %s: run %zu has 0 threads", m->id, i + 1);
        rl_status st = check_rate(m, run, &run->decode, "decode", err);
        if (st == RL_OK)
            st = check_rate(m, run, &run->prefill, "prefill", err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

/* ---------- per model ---------- */

/* A model's runs sorted by (depth, threads): depth-0 runs first, ascending threads. */
typedef struct {
    size_t *order;
    size_t n;
    size_t n_depth0; /* leading entries with depth 0 */
} run_order;

static rl_status order_runs(const rl_an_model *m, run_order *o, rl_error *err)
{
    memset(o, 0, sizeof *o);
    size_t n = m->n_runs ? m->n_runs : 1;
    run_key *keys = rl_calloc(n, sizeof *keys);
    o->order = rl_calloc(n, sizeof *o->order);
    if (keys == NULL || o->order == NULL) {
        free(keys);
        free(o->order);
        o->order = NULL;
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
    }
    for (size_t i = 0; i < m->n_runs; i++)
        keys[i] = (run_key){m->runs[i].depth, m->runs[i].threads, i};
    qsort(keys, m->n_runs, sizeof *keys, cmp_run_key);
    o->n = m->n_runs;
    for (size_t i = 0; i < o->n; i++) {
        if (i > 0 && keys[i].depth == keys[i - 1].depth && keys[i].threads == keys[i - 1].threads) {
            unsigned t = keys[i].threads, d = keys[i].depth;
            free(keys);
            free(o->order);
            o->order = NULL;
            return rl_fail(err, RL_EINPUT,
                           "model %s: two runs at %u threads, depth %u; merge them first", m->id, t,
                           d);
        }
        o->order[i] = keys[i].idx;
        if (keys[i].depth == 0)
            o->n_depth0 = i + 1;
    }
    free(keys);
    return RL_OK;
}

/* The depth-0 run at threads t with a decode rate, or NULL (binary search). */
static const rl_an_run *depth0_decode_at(const rl_an_model *m, const run_order *o, unsigned t)
{
    size_t lo = 0, hi = o->n_depth0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        unsigned mt = m->runs[o->order[mid]].threads;
        if (mt == t) {
            const rl_an_run *run = &m->runs[o->order[mid]];
            return run->decode.mean > 0.0 ? run : NULL;
        }
        if (mt < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static const char *const REASON_NO_DECODE = "no short-context (depth 0) decode measurement";
static const char *const REASON_GPU = "GPU offload: offloaded layers stream from VRAM, so the "
                                      "system-RAM ceiling does not apply";
static const char *const REASON_NO_CEILING =
    "no memory-bandwidth ceiling (not measured and not supplied)";

static rl_status summarize_model(const rl_an_model *m, const run_order *o, rl_an_model_summary *s,
                                 rl_error *err)
{
    s->bytes_per_token = m->bytes_per_token;
    s->is_moe = m->is_moe;
    s->gpu_offload = m->n_gpu_layers != 0 && m->gpu_backend;
    s->util_reason = REASON_NO_DECODE;

    const rl_an_run *best = NULL, *prev = NULL, *last = NULL;
    const rl_an_run *pbest = NULL, *plo = NULL;
    for (size_t i = 0; i < o->n_depth0; i++) {
        const rl_an_run *run = &m->runs[o->order[i]];
        if (run->prefill.mean > 0.0) {
            if (plo == NULL)
                plo = run;
            if (pbest == NULL || run->prefill.mean > pbest->prefill.mean)
                pbest = run;
        }
        if (!(run->decode.mean > 0.0))
            continue;
        s->n_thread_settings++;
        if (best == NULL || run->decode.mean > best->decode.mean)
            best = run;
        prev = last;
        last = run;
    }
    if (pbest != NULL) {
        s->has_prefill = true;
        s->prefill_ts = pbest->prefill.mean;
        s->prefill_threads = pbest->threads;
        if (plo != pbest) {
            s->has_prefill_scaling = true;
            s->prefill_scaling = pbest->prefill.mean / plo->prefill.mean;
            s->prefill_scaling_lo_threads = plo->threads;
            s->prefill_efficiency =
                s->prefill_scaling / ((double)pbest->threads / (double)plo->threads);
        }
    }
    if (best == NULL)
        return RL_OK;

    s->ok = true;
    s->decode_ts = best->decode.mean;
    s->decode_threads = best->threads;
    s->decode_bw_GBs = best->decode.mean * m->bytes_per_token / 1e9;
    if (best->decode.samples != NULL && best->decode.n > 0) {
        rl_status st =
            rl_stats_summarize(best->decode.samples, best->decode.n, &s->decode_stats, err);
        if (st != RL_OK)
            return rl_prefix(err, "model %s", m->id);
    }
    if (rl_an_noise_of(&best->decode, &s->noise, err) != RL_OK)
        return rl_prefix(err, "model %s", m->id);
    double floor_ts = best->decode.mean * (1.0 - RL_AN_KNEE_TOL);
    for (size_t i = 0; i < o->n_depth0; i++) {
        const rl_an_run *run = &m->runs[o->order[i]];
        if (run->decode.mean > 0.0 && run->decode.mean >= floor_ts) {
            s->knee_threads = run->threads;
            break;
        }
    }
    s->max_threads = last->threads;
    if (last != best) {
        s->has_loss_at_max = true;
        s->loss_at_max_pct = 100.0 * (1.0 - last->decode.mean / best->decode.mean);
    }
    if (prev != NULL) {
        s->has_top_gain = true;
        s->top_gain_pct = 100.0 * (last->decode.mean / prev->decode.mean - 1.0);
        s->top_gain_from_threads = prev->threads;
    }
    return RL_OK;
}

/* ---------- long context ---------- */

static rl_status long_context_rows(const rl_an_model *m, const run_order *o,
                                   const rl_an_model_summary *s, size_t mi, rl_an_result *r,
                                   size_t *skipped, size_t *n_skipped, rl_error *err)
{
    size_t first = o->n_depth0, n_deep = 0;
    unsigned only = 0;
    bool one_count = true, at_op = false;
    for (size_t i = first; i < o->n; i++) {
        const rl_an_run *run = &m->runs[o->order[i]];
        if (!(run->decode.mean > 0.0))
            continue;
        if (n_deep == 0)
            only = run->threads;
        else if (run->threads != only)
            one_count = false;
        if (s->ok && run->threads == s->decode_threads)
            at_op = true;
        n_deep++;
    }
    if (n_deep == 0)
        return RL_OK;
    unsigned t;
    if (at_op)
        t = s->decode_threads;
    else if (one_count)
        t = only;
    else {
        skipped[(*n_skipped)++] = mi;
        return RL_OK;
    }
    const rl_an_run *empty = depth0_decode_at(m, o, t);
    for (size_t i = first; i < o->n; i++) {
        const rl_an_run *run = &m->runs[o->order[i]];
        if (!(run->decode.mean > 0.0) || run->threads != t)
            continue;
        rl_an_long_context *lc =
            realloc(r->long_context, (r->n_long_context + 1) * sizeof *r->long_context);
        if (lc == NULL)
            return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
        r->long_context = lc;
        rl_an_long_context *row = &lc[r->n_long_context++];
        memset(row, 0, sizeof *row);
        row->model = mi;
        row->threads = t;
        row->depth = run->depth;
        row->decode_ts = run->decode.mean;
        if (empty != NULL) {
            row->has_pct_of_empty = true;
            row->empty_ts = empty->decode.mean;
            row->pct_of_empty = 100.0 * run->decode.mean / empty->decode.mean;
        }
        if (m->kv_bytes_per_token > 0.0) {
            row->has_prediction = true;
            row->kv_bytes = (double)run->depth * m->kv_bytes_per_token;
            row->predicted_pct = 100.0 * m->bytes_per_token / (m->bytes_per_token + row->kv_bytes);
        }
    }
    return RL_OK;
}

/* ---------- across models ---------- */

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* median, min, max of v[0..n-1] (n >= 1) */
static rl_status median_range(const double *v, size_t n, double *med, double *mn, double *mx,
                              rl_error *err)
{
    rl_stats_summary st;
    rl_status s = rl_stats_summarize(v, n, &st, err);
    if (s != RL_OK)
        return s;
    *med = st.median;
    *mn = st.min;
    *mx = st.max;
    return RL_OK;
}

typedef struct {
    size_t *idx; /* scratch index list, n_models long */
    size_t n;
} idx_list;

static rl_status do_fit(rl_an_result *r, idx_list *set, double *xs, double *ys, double *res,
                        rl_error *err)
{
    if (set->n == 0) {
        r->fit_reason = "no model has a short-context decode measurement";
        return RL_OK;
    }
    if (set->n == 1) {
        r->fit_reason = "only one model: a single point, no line";
        rl_sbuf b = {0};
        rl_sbuf_printf(&b, "Only one model (");
        sb_ids(&b, r, set->idx, 1);
        rl_sbuf_printf(&b,
                       ") has a short-context decode measurement, so the roofline slope cannot "
                       "be fitted and no line is drawn. Add a second model of a different size.");
        return add_warning(r, "fit_one_point", rl_sbuf_take(&b), set->idx, 1, err);
    }
    for (size_t i = 0; i < set->n; i++) {
        xs[i] = r->models[set->idx[i]].bytes_per_token;
        ys[i] = r->models[set->idx[i]].decode_ts;
    }
    rl_status st = rl_fit_roofline(xs, ys, set->n, res, &r->fit, err);
    if (st != RL_OK)
        return rl_prefix(err, "analysis");
    r->has_fit = true;
    for (size_t i = 0; i < set->n; i++) {
        r->models[set->idx[i]].in_fit = true;
        r->models[set->idx[i]].fit_residual_ts = res[i];
    }
    if (r->fit.has_r2 && r->fit.r2 < RL_AN_LOOSE_FIT_R2 && set->n >= RL_AN_LOOSE_FIT_MIN_POINTS) {
        rl_sbuf b = {0};
        rl_sbuf_printf(&b,
                       "The 1/bytes fit is loose (R^2 = %.3f over %zu models), so decode on this "
                       "setup is not cleanly bandwidth-bound. Usual causes: partial GPU offload, a "
                       "mixture-of-experts model, thermal throttling, or another process competing "
                       "for memory.",
                       r->fit.r2, set->n);
        return add_warning(r, "fit_loose", rl_sbuf_take(&b), set->idx, set->n, err);
    }
    return RL_OK;
}

/* "Decode is memory-bound: " or, measured while disturbed, "Decode looks memory-bound, but
 * <what was seen>, so this may be wrong: " (never a plain verdict from a disturbed run). */
static void verdict_lead(rl_sbuf *b, const rl_an_result *r, const char *label)
{
    if (r->verdict.provisional)
        rl_sbuf_printf(b, "Decode looks %s, but %s, so this may be wrong: ", label,
                       r->disturbance.text);
    else
        rl_sbuf_printf(b, "Decode is %s: ", label);
}

static void verdict_text(rl_an_result *r, bool by_gain, bool by_prefill)
{
    rl_an_verdict *v = &r->verdict;
    rl_sbuf b = {0};
    double med = r->util_median_pct, c = r->ceiling.GBs;
    v->provisional = r->disturbance.disturbed && r->disturbance.text != NULL;
    switch (v->kind) {
    case RL_AN_VERDICT_MEMORY_BOUND:
        verdict_lead(&b, r, "memory-bound");
        rl_sbuf_printf(&b,
                       "the median model reaches %.0f%% of the %.1f GB/s ceiling (short context, "
                       "%s).",
                       med, c, RL_AN_OPERATING_POINT);
        break;
    case RL_AN_VERDICT_PARTLY_MEMORY_BOUND:
        verdict_lead(&b, r, "partly memory-bound");
        rl_sbuf_printf(&b,
                       "the median model reaches %.0f%% of the %.1f GB/s ceiling (short context, "
                       "%s).",
                       med, c, RL_AN_OPERATING_POINT);
        break;
    case RL_AN_VERDICT_NOT_BANDWIDTH_LIMITED:
        verdict_lead(&b, r, "not bandwidth-limited");
        rl_sbuf_printf(&b,
                       "the median model reaches only %.0f%% of the %.1f GB/s ceiling (short "
                       "context, %s).",
                       med, c, RL_AN_OPERATING_POINT);
        break;
    case RL_AN_VERDICT_COMPUTE_BOUND:
        if (v->provisional)
            rl_sbuf_printf(&b,
                           "Decode looks compute-bound here, not memory-bound, but %s, so this "
                           "may be wrong: ",
                           r->disturbance.text);
        else
            rl_sbuf_printf(&b, "Decode looks compute-bound here, not memory-bound: ");
        rl_sbuf_printf(&b, "the median model reaches only %.0f%% of the %.1f GB/s ceiling", med, c);
        if (by_gain)
            rl_sbuf_printf(
                &b,
                " and decode still gains %.0f%% or more from the last threads added (%zu "
                "of %zu models)",
                RL_AN_TOP_GAIN_PCT, v->n_gaining, v->n_swept);
        if (by_prefill)
            rl_sbuf_printf(&b, "%s prefill scales with threads (median efficiency %.2f)",
                           by_gain ? ", and" : " while", v->median_prefill_efficiency);
        rl_sbuf_printf(&b, ". More or faster cores would likely help decode more than more memory "
                           "bandwidth.");
        break;
    case RL_AN_VERDICT_UNAVAILABLE: break;
    }
    v->text = rl_sbuf_take(&b);
}

static rl_status utilisation_and_verdict(rl_an_result *r, bool all_moe, idx_list *set, double *vals,
                                         rl_error *err)
{
    bool have_ceiling = r->ceiling.source != RL_AN_CEILING_NONE;
    size_t n_gpu = 0, n_above = 0;
    double max_util = 0.0;
    size_t *above = set->idx; /* reuse scratch for the >100% list, then the stats set */
    for (size_t i = 0; i < r->n_models; i++) {
        rl_an_model_summary *s = &r->models[i];
        if (!s->ok)
            continue;
        if (s->gpu_offload) {
            s->util_reason = REASON_GPU;
            n_gpu++;
            continue;
        }
        if (!have_ceiling) {
            s->util_reason = REASON_NO_CEILING;
            continue;
        }
        s->has_util = true;
        s->util_reason = NULL;
        s->util_pct = 100.0 * s->decode_bw_GBs / r->ceiling.GBs;
        if (s->util_pct > 100.0) {
            above[n_above++] = i;
            max_util = s->util_pct > max_util ? s->util_pct : max_util;
        }
    }
    if (n_above > 0) {
        rl_sbuf b = {0};
        rl_sbuf_printf(
            &b, "Measured decode bandwidth exceeded the microbenchmark ceiling (max %.0f%%, ",
            max_util);
        sb_ids(&b, r, above, n_above);
        rl_sbuf_printf(&b,
                       "): the ceiling is a measured lower bound, so read every utilisation as a "
                       "lower bound too. llama.cpp's kernels can stream faster than the "
                       "microbenchmark; pass --peak-bw with a STREAM figure for a tighter "
                       "ceiling.");
        rl_status st = add_warning(r, "util_above_ceiling", rl_sbuf_take(&b), above, n_above, err);
        if (st != RL_OK)
            return st;
    }

    set->n = 0;
    for (size_t i = 0; i < r->n_models; i++) {
        const rl_an_model_summary *s = &r->models[i];
        if (s->has_util && (all_moe || !s->is_moe)) {
            set->idx[set->n] = i;
            vals[set->n++] = s->util_pct;
        }
    }
    rl_an_verdict *v = &r->verdict;
    if (set->n == 0) {
        if (r->n_models_ok == 0)
            r->util_reason = REASON_NO_DECODE;
        else if (!have_ceiling)
            r->util_reason = REASON_NO_CEILING;
        else if (n_gpu > 0)
            r->util_reason = "every model with a decode measurement used GPU offload, so the "
                             "system-RAM ceiling does not apply";
        else
            r->util_reason = "no model qualifies";
        v->reason = r->util_reason;
        return RL_OK;
    }
    rl_status st =
        median_range(vals, set->n, &r->util_median_pct, &r->util_min_pct, &r->util_max_pct, err);
    if (st != RL_OK)
        return st;
    r->has_util = true;
    r->n_util = set->n;

    double med = r->util_median_pct;
    v->from_median = med >= RL_AN_MEMORY_BOUND_PCT ? RL_AN_VERDICT_MEMORY_BOUND
                     : med >= RL_AN_PARTLY_PCT     ? RL_AN_VERDICT_PARTLY_MEMORY_BOUND
                                                   : RL_AN_VERDICT_NOT_BANDWIDTH_LIMITED;
    v->kind = v->from_median;

    /* compute-bound evidence over the same models */
    size_t n_eff = 0;
    for (size_t k = 0; k < set->n; k++) {
        const rl_an_model_summary *s = &r->models[set->idx[k]];
        if (s->has_top_gain) {
            v->n_swept++;
            if (s->top_gain_pct >= RL_AN_TOP_GAIN_PCT && !s->has_loss_at_max)
                v->n_gaining++;
        }
        if (s->has_prefill_scaling)
            vals[n_eff++] = s->prefill_efficiency;
    }
    if (n_eff > 0) {
        double mn, mx;
        st = median_range(vals, n_eff, &v->median_prefill_efficiency, &mn, &mx, err);
        if (st != RL_OK)
            return st;
        v->has_prefill_efficiency = true;
    }
    bool by_gain = med < RL_AN_MEMORY_BOUND_PCT && v->n_swept > 0 && 2 * v->n_gaining > v->n_swept;
    bool by_prefill = med < RL_AN_PARTLY_PCT && v->has_prefill_efficiency &&
                      v->median_prefill_efficiency >= RL_AN_PREFILL_EFF_MIN;
    if (by_gain || by_prefill)
        v->kind = RL_AN_VERDICT_COMPUTE_BOUND;
    verdict_text(r, by_gain, by_prefill);
    if (v->text == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory writing the verdict");
    return RL_OK;
}

static rl_status knee_and_prefill(rl_an_result *r, double *vals, rl_error *err)
{
    unsigned *knees = rl_calloc(r->n_models ? r->n_models : 1, sizeof *knees);
    if (knees == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
    size_t nk = 0, np = 0;
    for (size_t i = 0; i < r->n_models; i++) {
        const rl_an_model_summary *s = &r->models[i];
        if (!s->ok)
            continue;
        if (s->n_thread_settings >= 2)
            knees[nk++] = s->knee_threads;
        if (s->has_prefill_scaling)
            vals[np++] = s->prefill_scaling;
    }
    if (nk > 0) {
        qsort(knees, nk, sizeof *knees, cmp_unsigned);
        size_t best_count = 0;
        for (size_t i = 0; i < nk;) {
            size_t j = i;
            while (j < nk && knees[j] == knees[i])
                j++;
            if (j - i > best_count) { /* strict: ties keep the smaller value */
                best_count = j - i;
                r->knee_threads = knees[i];
            }
            i = j;
        }
        r->has_knee = true;
        r->knee_votes = best_count;
        r->knee_voters = nk;
    }
    free(knees);
    if (np > 0) {
        rl_status st = median_range(vals, np, &r->prefill_scaling_median, &r->prefill_scaling_min,
                                    &r->prefill_scaling_max, err);
        if (st != RL_OK)
            return st;
        r->has_prefill_scaling = true;
        r->n_prefill_scaling = np;
    }
    return RL_OK;
}

static rl_status validate(const rl_an_input *in, rl_error *err)
{
    if (in == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: no input given");
    if (in->n_models > 0 && in->models == NULL)
        return rl_fail(err, RL_EINPUT, "analysis: %zu models announced but none given",
                       in->n_models);
    if (in->n_models > RL_FIT_MAX_POINTS)
        return rl_fail(err, RL_EINPUT, "analysis: %zu models, more than the %d supported",
                       in->n_models, RL_FIT_MAX_POINTS);
    if (in->ceiling.source != RL_AN_CEILING_NONE &&
        (!isfinite(in->ceiling.GBs) || !(in->ceiling.GBs > 0.0)))
        return rl_fail(err, RL_EINPUT, "analysis: the ceiling is %g GB/s; it must be above 0",
                       in->ceiling.GBs);
    if (in->ceiling.source != RL_AN_CEILING_NONE && in->ceiling.source != RL_AN_CEILING_MEASURED &&
        in->ceiling.source != RL_AN_CEILING_CONTROLLED)
        return rl_fail(err, RL_EINPUT, "analysis: unknown ceiling source %d",
                       (int)in->ceiling.source);
    for (size_t i = 0; i < in->n_models; i++) {
        rl_status st = check_model(&in->models[i], i, err);
        if (st != RL_OK)
            return st;
    }
    if (in->n_models > 1) {
        id_key *keys = rl_calloc(in->n_models, sizeof *keys);
        if (keys == NULL)
            return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
        for (size_t i = 0; i < in->n_models; i++)
            keys[i] = (id_key){in->models[i].id, i};
        qsort(keys, in->n_models, sizeof *keys, cmp_id_key);
        for (size_t i = 1; i < in->n_models; i++)
            if (strcmp(keys[i - 1].id, keys[i].id) == 0) {
                const char *dup = keys[i].id;
                free(keys);
                return rl_fail(err, RL_EINPUT, "analysis: two models share the id %s", dup);
            }
        free(keys);
    }
    return RL_OK;
}

/* analyze, step 1: every model's summary and long-context rows, and the warning for the
   models whose depth runs skipped the operating point (set is scratch). */
static rl_status summarize_models(const rl_an_input *in, rl_an_result *r, idx_list *set,
                                  rl_error *err)
{
    size_t *skipped = set->idx, n_skipped = 0; /* scratch: long-context skips */
    for (size_t i = 0; i < in->n_models; i++) {
        const rl_an_model *m = &in->models[i];
        rl_an_model_summary *s = &r->models[i];
        s->id = rl_strdup(m->id);
        s->name = rl_strdup(m->name ? m->name : m->id);
        if (s->id == NULL || s->name == NULL)
            return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
        run_order o;
        rl_status st = order_runs(m, &o, err);
        if (st != RL_OK)
            return st;
        st = summarize_model(m, &o, s, err);
        if (st == RL_OK)
            st = long_context_rows(m, &o, s, i, r, skipped, &n_skipped, err);
        free(o.order);
        if (st != RL_OK)
            return st;
        if (s->ok)
            r->n_models_ok++;
    }
    if (n_skipped == 0)
        return RL_OK;
    rl_sbuf b = {0};
    rl_sbuf_printf(&b, "Depth runs for ");
    sb_ids(&b, r, skipped, n_skipped);
    rl_sbuf_printf(&b, " were at several thread counts, none of them the operating point, so no "
                       "long-context row is reported for them.");
    return add_warning(r, "long_context_threads", rl_sbuf_take(&b), skipped, n_skipped, err);
}

/* Step 2: the warning for the models with runs but no depth-0 decode. */
static rl_status warn_no_short_context(rl_an_result *r, idx_list *set, rl_error *err)
{
    set->n = 0;
    for (size_t i = 0; i < r->n_models; i++)
        if (!r->models[i].ok)
            set->idx[set->n++] = i;
    if (set->n == 0)
        return RL_OK;
    rl_sbuf b = {0};
    rl_sbuf_printf(&b, "No short-context (depth 0) decode measurement for ");
    sb_ids(&b, r, set->idx, set->n);
    rl_sbuf_printf(&b, ", so the fit and the utilisation leave them out.");
    return add_warning(r, "no_short_context", rl_sbuf_take(&b), set->idx, set->n, err);
}

/* Step 3: the MoE warning (excluded, or all fitted when every model is MoE) and the fit over
   the rest; *all_moe says which. */
static rl_status moe_and_fit(rl_an_result *r, idx_list *set, double *xs, double *ys, double *res,
                             bool *all_moe, rl_error *err)
{
    size_t nm = r->n_models, n_dense = 0;
    set->n = 0;
    for (size_t i = 0; i < nm; i++) {
        const rl_an_model_summary *s = &r->models[i];
        if (s->ok && s->is_moe)
            set->idx[set->n++] = i;
        else if (s->ok)
            n_dense++;
    }
    *all_moe = n_dense == 0;
    if (set->n > 0) {
        rl_sbuf b = {0};
        rl_status st;
        if (*all_moe) {
            rl_sbuf_printf(&b, "Every model is mixture-of-experts (");
            sb_ids(&b, r, set->idx, set->n);
            rl_sbuf_printf(&b,
                           "), so all of them were fitted. Only the routed experts are read per "
                           "token, so the fitted bandwidth and the utilisation overstate what "
                           "decode actually reads.");
            r->fit_all_moe = true;
            st = add_warning(r, "moe_all_fitted", rl_sbuf_take(&b), set->idx, set->n, err);
        } else {
            rl_sbuf_printf(&b, "Excluded from the fit: ");
            sb_ids(&b, r, set->idx, set->n);
            rl_sbuf_printf(&b, " (mixture-of-experts: only the routed experts are read per token, "
                               "so bytes per token is far below the model size).");
            st = add_warning(r, "moe_excluded", rl_sbuf_take(&b), set->idx, set->n, err);
        }
        if (st != RL_OK)
            return st;
    }
    set->n = 0;
    for (size_t i = 0; i < nm; i++)
        if (r->models[i].ok && (*all_moe || !r->models[i].is_moe))
            set->idx[set->n++] = i;
    return do_fit(r, set, xs, ys, res, err);
}

/* Step 4: the warning for the models with layers offloaded to a GPU. */
static rl_status warn_gpu_offload(rl_an_result *r, idx_list *set, rl_error *err)
{
    set->n = 0;
    for (size_t i = 0; i < r->n_models; i++)
        if (r->models[i].gpu_offload)
            set->idx[set->n++] = i;
    if (set->n == 0)
        return RL_OK;
    rl_sbuf b = {0};
    rl_sbuf_printf(&b, "GPU offload on ");
    sb_ids(&b, r, set->idx, set->n);
    rl_sbuf_printf(&b, " (n_gpu_layers != 0 with a GPU backend): offloaded layers stream from "
                       "VRAM, so the system-RAM ceiling and utilisation do not apply to them. "
                       "Re-run with --gpu-layers 0 to measure the CPU.");
    return add_warning(r, "gpu_offload", rl_sbuf_take(&b), set->idx, set->n, err);
}

/* Step 5: the warning for a missing or unstable ceiling. */
static rl_status warn_ceiling(rl_an_result *r, rl_error *err)
{
    if (r->ceiling.source == RL_AN_CEILING_NONE)
        return add_warning(r, "no_ceiling",
                           rl_strdup("No memory-bandwidth ceiling is available, so utilisation "
                                     "and the verdict are unknown. Measure one with membw or "
                                     "pass --peak-bw <GB/s>."),
                           NULL, 0, err);
    if (r->ceiling.unstable)
        return add_warning(r, "ceiling_unstable",
                           rl_strdup("The ceiling measurement was unstable (its repetitions "
                                     "disagreed), so it is probably too low and every "
                                     "utilisation too high. Re-run it on an idle machine or "
                                     "pass --peak-bw <GB/s>."),
                           NULL, 0, err);
    return RL_OK;
}

/* Step 1b: the disturbance summary and its warning, then the "noisy" and "outliers" warnings
 * over the models' operating-point decode samples (set is scratch). */
static rl_status warn_disturbance_and_noise(const rl_an_input *in, rl_an_result *r, idx_list *set,
                                            rl_error *err)
{
    rl_status st = rl_an_disturbance_of(in, &r->disturbance, err);
    if (st == RL_OK && r->disturbance.disturbed) {
        rl_sbuf b = {0};
        rl_sbuf_printf(&b, "Measured while the machine was busy: ");
        sb_ascii(&b, r->disturbance.text);
        rl_sbuf_printf(&b, ", so the rates, the fit and the verdict may be wrong. ");
        sb_ascii(&b, r->disturbance.advice);
        st = add_warning(r, "disturbed", rl_sbuf_take(&b), NULL, 0, err);
    }
    for (int pass = 0; pass < 2 && st == RL_OK; pass++) {
        set->n = 0;
        for (size_t i = 0; i < r->n_models; i++) {
            const rl_an_noise *nz = &r->models[i].noise;
            if (nz->available && (pass == 0 ? nz->noisy : nz->outliers > 0))
                set->idx[set->n++] = i;
        }
        if (set->n == 0)
            continue;
        rl_sbuf b = {0};
        if (pass == 0)
            rl_sbuf_printf(&b,
                           "Noisy decode rates: the repetitions at the operating point vary "
                           "by more than %.0f%% (coefficient of variation): ",
                           RL_AN_NOISY_CV_PCT);
        else
            rl_sbuf_printf(&b,
                           "Statistical outliers were detected in the decode repetitions "
                           "(modified Z-score above %.1f, hyperfine's rule): ",
                           RL_AN_OUTLIER_SCORE);
        for (size_t k = 0; k < set->n; k++) {
            const rl_an_model_summary *m = &r->models[set->idx[k]];
            rl_sbuf_printf(&b, "%s", k ? ", " : "");
            sb_ascii(&b, m->name && *m->name ? m->name : m->id); /* as the terminal shows it */
            if (pass == 0)
                rl_sbuf_printf(&b, " %.1f%%", m->noise.cv_pct);
            else
                rl_sbuf_printf(&b, " %zu of %zu", m->noise.outliers, m->noise.n);
        }
        rl_sbuf_printf(&b, ". Consider re-running on a quiet system without interference from "
                           "other programs.");
        st = add_warning(r, pass == 0 ? "noisy" : "outliers", rl_sbuf_take(&b), set->idx, set->n,
                         err);
    }
    return st;
}

static rl_status analyze(const rl_an_input *in, rl_an_result *r, idx_list *set, double *xs,
                         double *ys, double *res, rl_error *err)
{
    size_t nm = in->n_models;
    r->bytes = in->bytes;
    r->ceiling = in->ceiling;
    r->n_models = nm;
    r->models = rl_calloc(nm ? nm : 1, sizeof *r->models);
    if (r->models == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory");

    rl_status st = summarize_models(in, r, set, err);
    if (st == RL_OK)
        st = rl_an_depth_fits(r, err);
    if (st == RL_OK)
        st = warn_disturbance_and_noise(in, r, set, err);
    if (st != RL_OK)
        return st;
    if (r->n_models_ok == 0) {
        st = add_warning(r, "no_decode",
                         rl_strdup("No model produced a short-context decode measurement, so "
                                   "there is nothing to analyse."),
                         NULL, 0, err);
        r->fit_reason = r->util_reason = r->verdict.reason = REASON_NO_DECODE;
        return st;
    }
    st = warn_no_short_context(r, set, err);
    if (st != RL_OK)
        return st;
    bool all_moe = false;
    st = moe_and_fit(r, set, xs, ys, res, &all_moe, err);
    if (st != RL_OK)
        return st;
    st = warn_gpu_offload(r, set, err);
    if (st != RL_OK)
        return st;
    st = warn_ceiling(r, err);
    if (st != RL_OK)
        return st;
    st = utilisation_and_verdict(r, all_moe, set, xs, err);
    if (st != RL_OK)
        return st;
    return knee_and_prefill(r, xs, err);
}

rl_status rl_an_analyze(const rl_an_input *in, rl_an_result *out, rl_error *err)
{
    if (out == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: no result given");
    memset(out, 0, sizeof *out);
    rl_status st = validate(in, err);
    if (st != RL_OK)
        return st;
    size_t n = in->n_models ? in->n_models : 1;
    idx_list set = {rl_calloc(n, sizeof(size_t)), 0};
    double *xs = rl_calloc(n, sizeof *xs), *ys = rl_calloc(n, sizeof *ys);
    double *res = rl_calloc(n, sizeof *res);
    if (set.idx == NULL || xs == NULL || ys == NULL || res == NULL)
        st = rl_fail(err, RL_EINTERNAL, "analysis: out of memory");
    else
        st = analyze(in, out, &set, xs, ys, res, err);
    free(set.idx);
    free(xs);
    free(ys);
    free(res);
    if (st != RL_OK)
        rl_an_free(out);
    return st;
}

/* ---------- JSON ---------- */

typedef struct {
    bool ok;
} jctx;

static cJSON *jobj(jctx *j)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        j->ok = false;
    return o;
}

static void jadd(jctx *j, cJSON *o, const char *k, cJSON *item);
static cJSON *junavail(jctx *j, const char *reason);

/* A number, or {"available": false} when it is not finite (JSON has no NaN or inf). */
static void jnum(jctx *j, cJSON *o, const char *k, double v)
{
    if (!isfinite(v)) {
        jadd(j, o, k, junavail(j, "not a finite number"));
        return;
    }
    if (j->ok && (o == NULL || cJSON_AddNumberToObject(o, k, v) == NULL))
        j->ok = false;
}

static void jstr(jctx *j, cJSON *o, const char *k, const char *v)
{
    if (j->ok && (o == NULL || cJSON_AddStringToObject(o, k, v) == NULL))
        j->ok = false;
}

static void jbool(jctx *j, cJSON *o, const char *k, bool v)
{
    if (j->ok && (o == NULL || cJSON_AddBoolToObject(o, k, v) == NULL))
        j->ok = false;
}

/* Attach item to o (object, k != NULL) or to an array (k == NULL); frees item on failure. */
static void jadd(jctx *j, cJSON *o, const char *k, cJSON *item)
{
    if (item == NULL) {
        j->ok = false;
        return;
    }
    if (!j->ok || o == NULL ||
        !(k ? cJSON_AddItemToObject(o, k, item) : cJSON_AddItemToArray(o, item))) {
        cJSON_Delete(item);
        j->ok = false;
    }
}

static cJSON *junavail(jctx *j, const char *reason)
{
    cJSON *o = jobj(j);
    jbool(j, o, "available", false);
    jstr(j, o, "reason", reason);
    return o;
}

/* {"available": true, "kind": kind} to be filled */
static cJSON *javail(jctx *j, const char *kind)
{
    cJSON *o = jobj(j);
    jbool(j, o, "available", true);
    jstr(j, o, "kind", kind);
    return o;
}

static cJSON *model_json(jctx *j, const rl_an_result *r, const rl_an_model_summary *s)
{
    cJSON *o = jobj(j);
    jstr(j, o, "id", s->id);
    jstr(j, o, "name", s->name);
    jstr(j, o, "kind", "derived");
    jbool(j, o, "ok", s->ok);
    jbool(j, o, "is_moe", s->is_moe);
    jbool(j, o, "gpu_offload", s->gpu_offload);
    jbool(j, o, "in_fit", s->in_fit);
    jnum(j, o, "bytes_per_token", s->bytes_per_token);
    jstr(j, o, "bytes_convention", rl_an_bytes_name(r->bytes));
    if (!s->ok) {
        jadd(j, o, "operating_point", junavail(j, REASON_NO_DECODE));
        jadd(j, o, "decode_bw_GBs", junavail(j, REASON_NO_DECODE));
        jadd(j, o, "knee", junavail(j, REASON_NO_DECODE));
        jadd(j, o, "loss_at_max_threads", junavail(j, REASON_NO_DECODE));
        jadd(j, o, "decode_gain_at_top", junavail(j, REASON_NO_DECODE));
    } else {
        cJSON *op = javail(j, "measured");
        jnum(j, op, "decode_tok_s", s->decode_ts);
        jnum(j, op, "threads", s->decode_threads);
        jnum(j, op, "n_thread_settings", (double)s->n_thread_settings);
        cJSON *st = rl_stats_to_json(&s->decode_stats);
        jadd(j, op, "samples", st);
        jadd(j, o, "operating_point", op);
        jnum(j, o, "decode_bw_GBs", s->decode_bw_GBs);
        cJSON *k = javail(j, "derived");
        jnum(j, k, "threads", s->knee_threads);
        jnum(j, k, "tolerance_pct", 100.0 * RL_AN_KNEE_TOL);
        jadd(j, o, "knee", k);
        if (s->has_loss_at_max) {
            cJSON *l = javail(j, "derived");
            jnum(j, l, "pct", s->loss_at_max_pct);
            jnum(j, l, "threads", s->max_threads);
            jadd(j, o, "loss_at_max_threads", l);
        } else {
            jadd(j, o, "loss_at_max_threads",
                 junavail(j, "the highest thread count measured is the best"));
        }
        if (s->has_top_gain) {
            cJSON *g = javail(j, "derived");
            jnum(j, g, "pct", s->top_gain_pct);
            jnum(j, g, "from_threads", s->top_gain_from_threads);
            jnum(j, g, "to_threads", s->max_threads);
            jadd(j, o, "decode_gain_at_top", g);
        } else {
            jadd(j, o, "decode_gain_at_top", junavail(j, "one thread setting"));
        }
    }
    if (s->has_prefill) {
        cJSON *p = javail(j, "measured");
        jnum(j, p, "tok_s", s->prefill_ts);
        jnum(j, p, "threads", s->prefill_threads);
        jadd(j, o, "prefill", p);
    } else {
        jadd(j, o, "prefill", junavail(j, "no short-context prefill measurement"));
    }
    if (s->has_prefill_scaling) {
        cJSON *p = javail(j, "derived");
        jnum(j, p, "ratio", s->prefill_scaling);
        jnum(j, p, "from_threads", s->prefill_scaling_lo_threads);
        jnum(j, p, "to_threads", s->prefill_threads);
        jnum(j, p, "efficiency", s->prefill_efficiency);
        jadd(j, o, "prefill_scaling", p);
    } else {
        jadd(j, o, "prefill_scaling",
             junavail(j, s->has_prefill ? "the fewest threads gave the best prefill"
                                        : "no short-context prefill measurement"));
    }
    if (s->has_util) {
        cJSON *u = javail(j, "derived");
        jnum(j, u, "util_pct", s->util_pct);
        jnum(j, u, "ceiling_GBs", r->ceiling.GBs);
        jadd(j, o, "utilisation", u);
    } else {
        jadd(j, o, "utilisation", junavail(j, s->util_reason ? s->util_reason : "unknown"));
    }
    if (s->in_fit) {
        cJSON *f = javail(j, "derived");
        jnum(j, f, "tok_s", s->fit_residual_ts);
        jadd(j, o, "fit_residual", f);
    } else {
        jadd(j, o, "fit_residual", junavail(j, "not in the fit"));
    }
    if (s->noise.available) {
        cJSON *nz = javail(j, "derived");
        jstr(j, nz, "rate", "decode at the operating point");
        jnum(j, nz, "n", (double)s->noise.n);
        if (isfinite(s->noise.cv_pct))
            jnum(j, nz, "cv_pct", s->noise.cv_pct);
        else
            jadd(j, nz, "cv_pct", junavail(j, "the mean is 0"));
        jnum(j, nz, "outliers", (double)s->noise.outliers);
        jbool(j, nz, "noisy", s->noise.noisy);
        jadd(j, o, "noise", nz);
    } else {
        jadd(j, o, "noise", junavail(j, "fewer than 2 decode repetitions at the operating point"));
    }
    return o;
}

static cJSON *fit_json(jctx *j, const rl_an_result *r)
{
    if (!r->has_fit)
        return junavail(j, r->fit_reason ? r->fit_reason : "not fitted");
    cJSON *o = javail(j, "derived");
    jnum(j, o, "bw_GBs", r->fit.bw_GBs);
    jnum(j, o, "bw_bytes_s", r->fit.bw_bytes_s);
    if (r->fit.has_r2)
        jnum(j, o, "r2", r->fit.r2);
    else
        jadd(j, o, "r2", junavail(j, "every model decoded at the same rate (SS_tot = 0)"));
    jnum(j, o, "n_points", (double)r->fit.n_points);
    cJSON *ids = cJSON_CreateArray();
    for (size_t i = 0; ids != NULL && i < r->n_models; i++)
        if (r->models[i].in_fit)
            jadd(j, ids, NULL, cJSON_CreateString(r->models[i].id));
    jadd(j, o, "models", ids);
    jbool(j, o, "all_moe", r->fit_all_moe);
    jstr(j, o, "bytes_convention", rl_an_bytes_name(r->bytes));
    jstr(j, o, "operating_point", RL_AN_OPERATING_POINT);
    return o;
}

static cJSON *verdict_json(jctx *j, const rl_an_result *r)
{
    const rl_an_verdict *v = &r->verdict;
    if (v->kind == RL_AN_VERDICT_UNAVAILABLE)
        return junavail(j, v->reason ? v->reason : "unknown");
    cJSON *o = javail(j, "derived");
    jstr(j, o, "label", rl_an_verdict_name(v->kind));
    jstr(j, o, "from_median_utilisation", rl_an_verdict_name(v->from_median));
    jnum(j, o, "median_util_pct", r->util_median_pct);
    jstr(j, o, "text", v->text ? v->text : "");
    jbool(j, o, "provisional", v->provisional);
    cJSON *e = jobj(j);
    jnum(j, e, "swept_models", (double)v->n_swept);
    jnum(j, e, "decode_gaining_models", (double)v->n_gaining);
    if (v->has_prefill_efficiency)
        jnum(j, e, "median_prefill_efficiency", v->median_prefill_efficiency);
    else
        jadd(j, e, "median_prefill_efficiency", junavail(j, "no model has a prefill scaling"));
    jadd(j, o, "evidence", e);
    cJSON *t = jobj(j);
    jnum(j, t, "memory_bound_pct", RL_AN_MEMORY_BOUND_PCT);
    jnum(j, t, "partly_pct", RL_AN_PARTLY_PCT);
    jnum(j, t, "decode_top_gain_pct", RL_AN_TOP_GAIN_PCT);
    jnum(j, t, "prefill_efficiency_min", RL_AN_PREFILL_EFF_MIN);
    jadd(j, o, "thresholds", t);
    return o;
}

/* {"available", "kind": "derived", "disturbed", "n_measurements", "n_disturbed",
 * "n_other_processes", "n_steal", "by_kind":
 * {"llama_bench": {"n", "disturbed"}, ...}, "other_cpu_pct_max", "steal_pct_max", "text",
 * "advice"} or {"available": false, "reason"}. */
static cJSON *disturbance_json(jctx *j, const rl_an_disturbance *d)
{
    if (!d->available)
        return junavail(j, d->reason ? d->reason : "no machine state recorded");
    static const char *const keys[RL_AN_MEAS_KINDS] = {"llama_bench", "membw", "client"};
    cJSON *o = javail(j, "derived");
    jbool(j, o, "disturbed", d->disturbed);
    jnum(j, o, "n_measurements", (double)d->n);
    jnum(j, o, "n_disturbed", (double)d->n_disturbed);
    jnum(j, o, "n_other_processes", (double)d->n_other_processes);
    jnum(j, o, "n_steal", (double)d->n_steal);
    cJSON *bk = jobj(j);
    for (int k = 0; k < RL_AN_MEAS_KINDS; k++) {
        if (d->n_kind[k] == 0)
            continue;
        cJSON *e = jobj(j);
        jnum(j, e, "n", (double)d->n_kind[k]);
        jnum(j, e, "disturbed", (double)d->n_kind_disturbed[k]);
        jadd(j, bk, keys[k], e);
    }
    jadd(j, o, "by_kind", bk);
    if (d->disturbed) {
        if (isfinite(d->other_cpu_pct_max))
            jnum(j, o, "other_cpu_pct_max", d->other_cpu_pct_max);
        if (isfinite(d->steal_pct_max))
            jnum(j, o, "steal_pct_max", d->steal_pct_max);
        jstr(j, o, "text", d->text);
        jstr(j, o, "advice", d->advice);
    }
    return o;
}

static cJSON *long_context_json(jctx *j, const rl_an_result *r, const rl_an_long_context *lc)
{
    cJSON *o = jobj(j);
    jstr(j, o, "model", r->models[lc->model].id);
    jstr(j, o, "kind", "measured");
    jnum(j, o, "threads", lc->threads);
    jnum(j, o, "depth", lc->depth);
    jnum(j, o, "decode_tok_s", lc->decode_ts);
    if (lc->has_pct_of_empty) {
        cJSON *p = javail(j, "derived");
        jnum(j, p, "pct", lc->pct_of_empty);
        jnum(j, p, "empty_cache_tok_s", lc->empty_ts);
        jadd(j, o, "pct_of_empty_cache", p);
    } else {
        jadd(j, o, "pct_of_empty_cache", junavail(j, "no depth-0 decode at the same thread count"));
    }
    if (lc->has_prediction) {
        cJSON *p = javail(j, "derived");
        jnum(j, p, "pct", lc->predicted_pct);
        jnum(j, p, "kv_bytes", lc->kv_bytes);
        jnum(j, p, "weights_bytes", r->models[lc->model].bytes_per_token);
        jadd(j, o, "bytes_only_prediction", p);
    } else {
        jadd(j, o, "bytes_only_prediction", junavail(j, "KV cache bytes per token unknown"));
    }
    return o;
}

/* [{"code", "text", "applies_to": [model ids]}] */
static cJSON *warnings_json(jctx *j, const rl_an_result *r)
{
    cJSON *ws = cJSON_CreateArray();
    if (ws == NULL)
        j->ok = false;
    for (size_t i = 0; ws != NULL && i < r->n_warnings; i++) {
        const rl_an_warning *w = &r->warnings[i];
        cJSON *wo = jobj(j);
        jstr(j, wo, "code", w->code);
        jstr(j, wo, "text", w->text);
        cJSON *ids = cJSON_CreateArray();
        for (size_t k = 0; ids != NULL && k < w->n_models; k++)
            jadd(j, ids, NULL, cJSON_CreateString(r->models[w->models[k]].id));
        jadd(j, wo, "applies_to", ids);
        jadd(j, ws, NULL, wo);
    }
    return ws;
}

rl_status rl_an_client_to_json(const rl_an_input *in, cJSON **out, rl_error *err)
{
    if (out == NULL || in == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: no input to write");
    *out = NULL;
    rl_an_result r;
    memset(&r, 0, sizeof r);
    rl_status st = rl_an_disturbance_of(in, &r.disturbance, err);
    if (st == RL_OK && r.disturbance.disturbed) {
        rl_sbuf b = {0};
        rl_sbuf_printf(&b, "Measured while the machine was busy: ");
        sb_ascii(&b, r.disturbance.text);
        rl_sbuf_printf(&b, ", so the latencies and rates may be off. ");
        sb_ascii(&b, r.disturbance.advice);
        st = add_warning(&r, "disturbed", rl_sbuf_take(&b), NULL, 0, err);
    }
    if (st != RL_OK) {
        rl_an_free(&r);
        return st;
    }
    jctx jc = {true}, *j = &jc;
    cJSON *o = jobj(j);
    jstr(j, o, "kind", "derived");
    jstr(j, o, "scope", "client");
    jadd(j, o, "disturbance", disturbance_json(j, &r.disturbance));
    jbool(j, o, "provisional", r.disturbance.disturbed);
    jadd(j, o, "warnings", warnings_json(j, &r));
    rl_an_free(&r);
    if (!jc.ok) {
        cJSON_Delete(o);
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory building JSON");
    }
    *out = o;
    return RL_OK;
}

rl_status rl_an_to_json(const rl_an_result *r, cJSON **out, rl_error *err)
{
    if (out == NULL || r == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: no result to write");
    *out = NULL;
    jctx jc = {true}, *j = &jc;
    cJSON *o = jobj(j);
    jstr(j, o, "kind", "derived");
    jstr(j, o, "operating_point", RL_AN_OPERATING_POINT);
    jstr(j, o, "bytes_convention", rl_an_bytes_name(r->bytes));
    if (r->ceiling.source == RL_AN_CEILING_NONE) {
        jadd(j, o, "ceiling", junavail(j, REASON_NO_CEILING));
    } else {
        cJSON *c = javail(j, ceiling_kind(r->ceiling.source));
        jnum(j, c, "GBs", r->ceiling.GBs);
        jbool(j, c, "unstable", r->ceiling.unstable);
        jadd(j, o, "ceiling", c);
    }
    jnum(j, o, "n_models", (double)r->n_models);
    jnum(j, o, "n_models_ok", (double)r->n_models_ok);
    cJSON *models = cJSON_CreateArray();
    for (size_t i = 0; models != NULL && i < r->n_models; i++)
        jadd(j, models, NULL, model_json(j, r, &r->models[i]));
    jadd(j, o, "models", models);
    jadd(j, o, "fit", fit_json(j, r));
    if (r->has_util) {
        cJSON *u = javail(j, "derived");
        jnum(j, u, "median_pct", r->util_median_pct);
        jnum(j, u, "min_pct", r->util_min_pct);
        jnum(j, u, "max_pct", r->util_max_pct);
        jnum(j, u, "n_models", (double)r->n_util);
        jnum(j, u, "ceiling_GBs", r->ceiling.GBs);
        jadd(j, o, "utilisation", u);
    } else {
        jadd(j, o, "utilisation", junavail(j, r->util_reason ? r->util_reason : "unknown"));
    }
    jadd(j, o, "verdict", verdict_json(j, r));
    jadd(j, o, "disturbance", disturbance_json(j, &r->disturbance));
    if (r->has_knee) {
        cJSON *k = javail(j, "derived");
        jnum(j, k, "threads", r->knee_threads);
        jnum(j, k, "votes", (double)r->knee_votes);
        jnum(j, k, "voters", (double)r->knee_voters);
        jadd(j, o, "knee", k);
    } else {
        jadd(j, o, "knee", junavail(j, "no model was measured at two or more thread counts"));
    }
    if (r->has_prefill_scaling) {
        cJSON *p = javail(j, "derived");
        jnum(j, p, "median", r->prefill_scaling_median);
        jnum(j, p, "min", r->prefill_scaling_min);
        jnum(j, p, "max", r->prefill_scaling_max);
        jnum(j, p, "n_models", (double)r->n_prefill_scaling);
        jadd(j, o, "prefill_scaling", p);
    } else {
        jadd(j, o, "prefill_scaling",
             junavail(j, "no model has prefill at two or more thread counts"));
    }
    cJSON *lcs = cJSON_CreateArray();
    for (size_t i = 0; lcs != NULL && i < r->n_long_context; i++)
        jadd(j, lcs, NULL, long_context_json(j, r, &r->long_context[i]));
    jadd(j, o, "long_context", lcs);
    jadd(j, o, "depth_fits", rl_an_depth_fits_json(r));
    jadd(j, o, "warnings", warnings_json(j, r));
    if (!jc.ok) {
        cJSON_Delete(o);
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory building JSON");
    }
    *out = o;
    return RL_OK;
}
