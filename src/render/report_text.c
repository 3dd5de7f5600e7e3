/* SPDX-License-Identifier: MIT */
/* report_text.c: the answer, the key figures and the caveats of a report. See report_text.h. */
#include "render/report_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "model/ggml_types.h"
#include "model/gguf_text.h"
#include "render/client_text.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const cJSON *analysis(const cJSON *b)
{
    return rl_json_get(b, "analysis");
}

static bool has_num(const cJSON *o, const char *key, double *v)
{
    return rl_json_get_num(o, key, v);
}

static const char *str(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = rl_json_get_str(o, key);
    return s ? s : dflt;
}

void rl_report_fmt_num(double v, char *buf, size_t cap)
{
    double a = fabs(v);
    if (!isfinite(v))
        rl_snprintf(buf, cap, "n/a");
    else if (a >= 100)
        rl_snprintf(buf, cap, "%.0f", v);
    else if (a >= 10)
        rl_snprintf(buf, cap, "%.1f", v);
    else
        rl_snprintf(buf, cap, "%.2f", v);
}

const cJSON *rl_report_an_model(const cJSON *b, const char *id)
{
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(analysis(b), "models"))
    {
        const char *mid = rl_json_get_str(m, "id");
        if (id && mid && strcmp(id, mid) == 0)
            return m;
    }
    return NULL;
}

const char *rl_report_model_name(const cJSON *b, const char *id)
{
    const char *n = rl_json_get_str(rl_report_an_model(b, id), "name");
    if (n)
        return n;
    n = rl_json_get_str(rl_bundle_model(b, id, NULL), "name");
    return n ? n : id ? id : "?";
}

/* "a, b and c" of the display names of the ids in arr (an array of model id strings). */
static void sb_names(rl_sbuf *s, const cJSON *b, const cJSON *ids)
{
    int n = cJSON_GetArraySize(ids), i = 0;
    const cJSON *id;
    cJSON_ArrayForEach(id, ids)
    {
        const char *name = cJSON_IsString(id) ? rl_report_model_name(b, id->valuestring) : "?";
        rl_sbuf_printf(s, "%s%s", i == 0 ? "" : (i == n - 1 ? " and " : ", "), name);
        i++;
    }
}

/* ---- caveats --------------------------------------------------------------------------- */

typedef struct {
    rl_report_caveats *out;
    bool oom;
} cv_ctx;

static void add(cv_ctx *c, const char *code, rl_report_place place, rl_sbuf *s)
{
    if (c->oom || s->oom || !s->p) {
        free(s->p);
        c->oom = true;
        return;
    }
    rl_report_caveat *v = realloc(c->out->v, (c->out->n + 1) * sizeof *v);
    if (!v) {
        free(s->p);
        c->oom = true;
        return;
    }
    c->out->v = v;
    v[c->out->n++] = (rl_report_caveat){code, place, s->p};
    s->p = NULL;
}

static const cJSON *warning(const cJSON *b, const char *code)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, rl_json_get(b, "warnings"))
    {
        const char *c = rl_json_get_str(w, "code");
        if (c && strcmp(c, code) == 0)
            return w;
    }
    cJSON_ArrayForEach(w, rl_json_get(analysis(b), "warnings"))
    {
        const char *c = rl_json_get_str(w, "code");
        if (c && strcmp(c, code) == 0)
            return w;
    }
    return NULL;
}

/* The caveat of warning code when the bundle has it: lead, the names of the models it applies
 * to, tail. True when it was there. */
static bool named_caveat(cv_ctx *c, const cJSON *b, const char *code, rl_report_place place,
                         const char *lead, const char *tail)
{
    const cJSON *w = warning(b, code);
    if (!w)
        return false;
    rl_sbuf s = {0};
    rl_sbuf_printf(&s, "%s", lead);
    sb_names(&s, b, rl_json_get(w, "applies_to"));
    rl_sbuf_printf(&s, "%s", tail);
    add(c, code, place, &s);
    return true;
}

static void cv_top(cv_ctx *c, const cJSON *b)
{
    const cJSON *status = rl_json_get(b, "status");
    const char *state = str(status, "state", "complete");
    if (strcmp(state, "complete") != 0) {
        rl_sbuf s = {0};
        const char *reason = rl_json_get_str(status, "reason");
        const char *how = strcmp(state, "running") == 0       ? "This run had not finished"
                          : strcmp(state, "interrupted") == 0 ? "This run was interrupted"
                          : strcmp(state, "failed") == 0      ? "This run failed"
                                                              : "This run is incomplete";
        rl_sbuf_printf(&s, "%s%s%s%s: the figures come from the runs that finished", how,
                       reason ? " (" : "", reason ? reason : "", reason ? ")" : "");
        const char *cmd = str(b, "command", "run");
        bool resumable = strcmp(cmd, "run") == 0 || strcmp(cmd, "diagnose") == 0;
        if ((strcmp(state, "running") == 0 || strcmp(state, "interrupted") == 0) &&
            !rl_report_client_only(b) && resumable)
            rl_sbuf_printf(&s, "; llama-roofline %s --resume -o DIR measures the rest.", cmd);
        else
            rl_sbuf_printf(&s, ".");
        add(c, "incomplete_run", RL_RP_TOP, &s);
    }
    const cJSON *src = rl_json_get(b, "source");
    const char *kind = rl_json_get_str(src, "kind");
    if (kind && strcmp(kind, "imported") == 0) {
        rl_sbuf s = {0};
        rl_sbuf_printf(&s,
                       "Imported data: these numbers were measured elsewhere, not by this tool on "
                       "this machine, and were converted into a bundle; the analysis is this "
                       "tool's, the measurements are not. The environment and provenance below "
                       "are what the import recorded.");
        const cJSON *it;
        cJSON_ArrayForEach(it, src)
        {
            if (cJSON_IsString(it) && it->string && strcmp(it->string, "kind") != 0)
                rl_sbuf_printf(&s, " %s: %s.", it->string, it->valuestring);
        }
        add(c, "imported", RL_RP_TOP, &s);
    }
}

static void cv_bandwidth(cv_ctx *c, const cJSON *b)
{
    const cJSON *an = analysis(b);
    const cJSON *fit = rl_json_get(an, "fit");
    int n_ok = (int)rl_json_num_or(an, "n_models_ok", 0);
    if (n_ok == 0)
        return;
    const cJSON *w;
    if (!rl_json_available(an, "fit") && n_ok == 1) {
        rl_sbuf s = {0};
        rl_sbuf_printf(&s,
                       "One model is one point, not a line: with a single model there is no fit, "
                       "so the bandwidth shown is that model's own decode bandwidth and nothing "
                       "yet shows that bytes per token predict the speed. Measure a second model "
                       "of a different size to get the fit.");
        add(c, "one_model_no_fit", RL_RP_BANDWIDTH, &s);
    }
    if ((w = warning(b, "fit_loose"))) {
        rl_sbuf s = {0};
        rl_sbuf_printf(
            &s,
            "Loose fit: R\xC2\xB2 is %.3f over %d models (below 0.90), so bytes per token "
            "alone do not predict decode speed here and decode is not cleanly "
            "bandwidth-bound. Look for partial GPU offload, a mixture-of-experts model, "
            "thermal throttling or another process using memory.",
            rl_json_num_or(fit, "r2", NAN), (int)rl_json_num_or(fit, "n_points", 0));
        add(c, "loose_fit", RL_RP_BANDWIDTH, &s);
    }
    if (!named_caveat(c, b, "moe_excluded", RL_RP_BANDWIDTH,
                      "Mixture-of-experts left out of the fit: ",
                      ". Such a model reads only its routed experts per token, far fewer bytes "
                      "than its size, so it sits above the line; it is plotted with its own "
                      "marker but does not bend the fit.") &&
        (w = warning(b, "moe_all_fitted"))) {
        rl_sbuf s = {0};
        rl_sbuf_printf(&s, "Every model is mixture-of-experts, so the fit is over them: they read "
                           "only their routed experts per token, so the bytes per token used here "
                           "(the whole model) overstate the traffic and the fitted bandwidth and "
                           "utilisation are overstated too.");
        add(c, "moe_all_fitted", RL_RP_BANDWIDTH, &s);
    }
    rl_sbuf s = {0};
    rl_sbuf_printf(&s, "Short context only: the fit, the bandwidth and the utilisation describe "
                       "decode with an almost empty KV cache (depth 0). With a long context decode "
                       "also reads the cache and does attention work over it, and slows down");
    if (cJSON_GetArraySize(rl_json_get(an, "long_context")) > 0)
        rl_sbuf_printf(&s, "; the long-context table shows by how much here.");
    else
        rl_sbuf_printf(&s, "; measure at your context length with run --depth N.");
    add(c, "short_context", RL_RP_BANDWIDTH, &s);
}

static void cv_ceiling(cv_ctx *c, const cJSON *b)
{
    const cJSON *an = analysis(b);
    const cJSON *ceil = rl_json_available(an, "ceiling");
    const cJSON *mb = rl_json_get(b, "membw");
    rl_sbuf s = {0};
    if (!ceil) {
        rl_sbuf_printf(&s,
                       "No ceiling: the memory read bandwidth was not measured (--skip-membw) or "
                       "could not be, so there is no utilisation and no verdict. Measure it with "
                       "llama-roofline membw or give one with --peak-bw GB/s.");
        add(c, "no_ceiling", RL_RP_CEILING, &s);
        return;
    }
    const char *kind = str(ceil, "kind", "measured");
    if (strcmp(kind, "controlled") == 0) {
        rl_sbuf_printf(&s, "Supplied with --peak-bw, not measured here: every utilisation and the "
                           "verdict are only as right as that figure.");
        add(c, "ceiling_supplied", RL_RP_CEILING, &s);
    } else {
        rl_sbuf_printf(&s,
                       "A measured lower bound, not the hardware's peak: it is the best of this "
                       "tool's read kernels");
        const char *k = rl_json_get_str(mb, "kernel");
        double t;
        if (k && has_num(mb, "threads", &t))
            rl_sbuf_printf(&s, " (here %s at %.0f threads)", k, t);
        rl_sbuf_printf(&s, ". llama.cpp's own kernels can stream faster, so a utilisation may pass "
                           "100%%; --peak-bw with a STREAM figure gives a tighter ceiling.");
        add(c, "ceiling_lower_bound", RL_RP_CEILING, &s);
    }
    bool unstable = false;
    if (rl_json_get_bool(ceil, "unstable", &unstable) && unstable) {
        rl_sbuf u = {0};
        rl_sbuf_printf(&u, "Unstable ceiling: the repetitions of the measurement disagreed (the "
                           "median was far below the best), which happens when something else uses "
                           "the memory. The ceiling is then probably too low and every utilisation "
                           "too high: re-run on an idle machine, or give --peak-bw.");
        add(c, "ceiling_unstable", RL_RP_CEILING, &u);
    }
}

static void cv_util(cv_ctx *c, const cJSON *b)
{
    const cJSON *w;
    if ((w = warning(b, "util_above_ceiling"))) {
        rl_sbuf s = {0};
        double mx = NAN;
        bool all_moe = true;
        const cJSON *id;
        cJSON_ArrayForEach(id, rl_json_get(w, "applies_to"))
        {
            const cJSON *am = cJSON_IsString(id) ? rl_report_an_model(b, id->valuestring) : NULL;
            double u = rl_json_num_or(rl_json_available(am, "utilisation"), "util_pct", NAN);
            bool moe = false;
            rl_json_get_bool(am, "is_moe", &moe);
            all_moe &= moe;
            if (isfinite(u) && !(u <= mx))
                mx = u;
        }
        rl_sbuf_printf(&s, "Above 100%%");
        if (isfinite(mx))
            rl_sbuf_printf(&s, " (up to %.0f%%)", mx);
        rl_sbuf_printf(&s, " for ");
        sb_names(&s, b, rl_json_get(w, "applies_to"));
        if (all_moe)
            rl_sbuf_printf(&s,
                           ": mixture-of-experts reads only its routed experts per token, so the "
                           "whole model's bytes overstate its traffic and this percentage is not a "
                           "bandwidth; it is left out of the median.");
        else
            rl_sbuf_printf(&s,
                           ": decode read faster than the ceiling, which only shows the ceiling is "
                           "a lower bound. Read every percentage as a lower bound too, not as a "
                           "measurement error.");
        add(c, "util_above_ceiling", RL_RP_UTIL, &s);
    }
    named_caveat(c, b, "gpu_offload", RL_RP_UTIL, "GPU offload on ",
                 ": the offloaded layers stream from the GPU's memory, not from system RAM, so "
                 "the RAM ceiling and the utilisation do not apply to them and they are left "
                 "out. Run with --gpu-layers 0 to measure the CPU.");
}

static void cv_roofline(cv_ctx *c, const cJSON *b)
{
    const cJSON *an = analysis(b);
    if (rl_json_num_or(an, "n_models_ok", 0) < 1)
        return;
    const char *conv = str(an, "bytes_convention", "resident");
    rl_sbuf s = {0};
    if (strcmp(conv, "streamed") == 0)
        rl_sbuf_printf(&s,
                       "Bytes per token are the streamed bytes: the tensors decode reads for every "
                       "token, from the GGUF tensor table (the token embedding is left out, as "
                       "decode reads one row of it, unless it is tied to the output head).");
    else
        rl_sbuf_printf(&s,
                       "Bytes per token are the resident bytes: llama-bench's model_size, else "
                       "the file size summed over shards. They include the token embedding, which "
                       "decode does not stream, so small models look slower per byte than they "
                       "are; the diagnose command counts only the tensors decode reads.");
    add(c, "bytes_convention", RL_RP_ROOFLINE, &s);
}

static void cv_threads(cv_ctx *c, const cJSON *b)
{
    const cJSON *v = rl_json_available(analysis(b), "verdict");
    const char *label = str(v, "label", "");
    if (strcmp(label, "compute-bound") != 0)
        return;
    rl_sbuf s = {0};
    const cJSON *ev = rl_json_get(v, "evidence");
    double swept = rl_json_num_or(ev, "swept_models", 0),
           gaining = rl_json_num_or(ev, "decode_gaining_models", 0);
    rl_sbuf_printf(&s, "Compute-bound decode: ");
    if (gaining > 0)
        rl_sbuf_printf(
            &s,
            "for %.0f of %.0f models measured at several thread counts, decode was still "
            "gaining at least 10%% from the last threads added. ",
            gaining, swept);
    else
        rl_sbuf_printf(&s,
                       "decode sits far below the ceiling while prefill scales with the threads. ");
    rl_sbuf_printf(&s,
                   "Memory-bound decode stops gaining once a few cores saturate memory; here the "
                   "cores run out first, so the percentage of the ceiling says how far the "
                   "machine is from being memory-bound, not how well llama.cpp uses memory.");
    add(c, "compute_bound", RL_RP_THREADS, &s);
}

static void cv_long_context(cv_ctx *c, const cJSON *b)
{
    const cJSON *lc = rl_json_get(analysis(b), "long_context");
    bool any_pred = false;
    const cJSON *row;
    cJSON_ArrayForEach(row, lc) any_pred |= rl_json_available(row, "bytes_only_prediction") != NULL;
    if (cJSON_GetArraySize(lc) == 0)
        return;
    rl_sbuf s = {0};
    rl_sbuf_printf(&s, "Each depth is measured at the model's operating thread count and compared "
                       "with the empty-cache rate at the same threads.");
    if (any_pred)
        rl_sbuf_printf(&s,
                       " The bytes-only prediction is weights / (weights + depth x KV bytes per "
                       "token): what decode would do if only the extra KV bytes mattered. Where "
                       "the measured rate falls below it, the rest is attention work over the "
                       "cache, which bytes per token cannot account for.");
    add(c, "long_context_method", RL_RP_LONG_CONTEXT, &s);
}

/* One caveat for every model whose label misleads: what each file holds, then once why
 * (rl_gguf_label_explanation's paragraph is "<what this file holds> A label such as ...", and
 * the part from " A label such as" is the same reasoning for every file). */
static void cv_composition(cv_ctx *c, const cJSON *b)
{
    static const char why_marker[] = " A label such as ";
    rl_sbuf s = {0};
    char *why = NULL;
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(b, "models"))
    {
        char text[RL_GGUF_EXPLANATION_MAX];
        if (!rl_report_label_explanation(m, text, sizeof text))
            continue;
        char *cut = strstr(text, why_marker);
        if (cut && !why)
            why = rl_strdup(cut + 1);
        if (cut)
            *cut = '\0';
        rl_sbuf_printf(&s, "%s%s: %s", s.len ? " " : "Label against content. ",
                       str(m, "name", str(m, "id", "?")), text);
    }
    if (!s.len) {
        free(why);
        return;
    }
    if (why)
        rl_sbuf_printf(&s, " %s", why);
    free(why);
    add(c, "label_vs_content", RL_RP_COMPOSITION, &s);
}

rl_status rl_report_caveats_get(const cJSON *b, rl_report_caveats *out, rl_error *err)
{
    out->v = NULL;
    out->n = 0;
    cv_ctx c = {out, false};
    cv_top(&c, b);
    if (!rl_report_client_only(b)) { /* the roofline's caveats */
        cv_bandwidth(&c, b);
        cv_ceiling(&c, b);
        cv_util(&c, b);
        cv_roofline(&c, b);
        cv_threads(&c, b);
        cv_long_context(&c, b);
        cv_composition(&c, b);
    }
    if (c.oom) {
        rl_report_caveats_free(out);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    return RL_OK;
}

void rl_report_caveats_free(rl_report_caveats *c)
{
    for (size_t i = 0; c && i < c->n; i++)
        free(c->v[i].text);
    if (c) {
        free(c->v);
        c->v = NULL;
        c->n = 0;
    }
}

/* ---- label against content ------------------------------------------------------------- */

bool rl_report_label_explanation(const cJSON *model, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    const cJSON *g = rl_json_get(model, "gguf");
    const cJSON *comp = rl_json_get(g, "composition");
    const char *expected = rl_json_get_str(comp, "expected_type");
    double on_label, bpw;
    uint64_t layer_bytes;
    const cJSON *types = rl_json_get(comp, "types");
    if (!expected || !rl_json_get_num(comp, "on_label_pct", &on_label) ||
        !rl_json_get_num(comp, "bits_per_weight", &bpw) ||
        !rl_json_get_u64(comp, "repeating_bytes", &layer_bytes) || layer_bytes == 0 ||
        !cJSON_IsObject(types))
        return false;
    int et = rl_ggml_type_by_name(expected);
    if (et < 0)
        return false;
    rl_gguf_type_bytes lt[64];
    uint32_t n = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, types)
    {
        int id = t->string ? rl_ggml_type_by_name(t->string) : -1;
        if (id < 0 || !cJSON_IsNumber(t) || n == sizeof lt / sizeof lt[0])
            continue;
        lt[n++] =
            (rl_gguf_type_bytes){(uint32_t)id,
                                 0,
                                 (uint64_t)llround(t->valuedouble / 100.0 * (double)layer_bytes),
                                 0,
                                 0,
                                 0};
    }
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    rl_snprintf(m.label, sizeof m.label, "%s", str(g, "label", expected));
    m.expected_type = et;
    m.on_label_pct = on_label;
    m.bits_per_weight = bpw;
    m.has_composition = true;
    m.layer_types = lt;
    m.n_layer_types = n;
    m.layer_bytes = layer_bytes;
    const char *head = rl_json_get_str(g, "head_type");
    int ht = head ? rl_ggml_type_by_name(head) : -1;
    m.head_type = ht >= 0 ? (uint32_t)ht : UINT32_MAX;
    return rl_gguf_label_explanation(&m, buf, cap);
}

/* ---- the answer ------------------------------------------------------------------------ */

bool rl_report_disturbed(const cJSON *b, char *buf, size_t cap)
{
    const cJSON *d = rl_json_available(analysis(b), "disturbance");
    bool disturbed = false;
    if (!rl_json_get_bool(d, "disturbed", &disturbed) || !disturbed)
        return false;
    rl_snprintf(buf, cap,
                "Measured while the machine was busy: %s; %s below may be wrong. Re-run on a "
                "quiet machine or with --wait-quiet 60.",
                str(d, "text", "some measurements were disturbed"),
                rl_report_client_only(b) ? "the latencies and rates" : "the verdict");
    return true;
}

/* The verdict is provisional: measured while the machine was busy (analysis.h). */
static bool provisional(const cJSON *v)
{
    bool p = false;
    return rl_json_get_bool(v, "provisional", &p) && p;
}

void rl_report_headline(const cJSON *b, char *buf, size_t cap)
{
    if (rl_report_client_only(b)) {
        rl_report_client_headline(b, buf, cap);
        return;
    }
    const cJSON *an = analysis(b);
    const cJSON *v = rl_json_available(an, "verdict");
    if (rl_json_num_or(an, "n_models_ok", 0) < 1)
        rl_snprintf(buf, cap, "Nothing measured");
    else if (v && rl_json_get_str(v, "label") && provisional(v))
        rl_snprintf(buf, cap, "Decode looks %s (measured on a busy machine)",
                    rl_json_get_str(v, "label"));
    else if (v && rl_json_get_str(v, "label"))
        rl_snprintf(buf, cap, "Decode is %s", rl_json_get_str(v, "label"));
    else
        rl_snprintf(buf, cap, "Decode measured, no verdict");
}

void rl_report_answer(const cJSON *b, char *buf, size_t cap)
{
    if (rl_report_client_only(b)) {
        rl_report_client_answer(b, buf, cap);
        return;
    }
    const cJSON *an = analysis(b);
    rl_sbuf s = {0};
    char x[32], y[32];
    if (rl_json_num_or(an, "n_models_ok", 0) < 1) {
        rl_sbuf_printf(&s,
                       "Nothing to answer yet: no model produced a short-context decode rate, so "
                       "there is no bandwidth, no utilisation and no verdict (see the runs and "
                       "warnings below).");
    } else {
        const cJSON *v = rl_json_available(an, "verdict");
        if (v && provisional(v))
            rl_sbuf_printf(&s,
                           "Decode here looks %s, but the machine was busy, so that may be "
                           "wrong: ",
                           str(v, "label", "?"));
        else if (v)
            rl_sbuf_printf(&s, "Decode here is %s: ", str(v, "label", "?"));
        else
            rl_sbuf_printf(
                &s, "No verdict (%s): ", str(rl_json_get(an, "verdict"), "reason", "unknown"));
        const cJSON *fit = rl_json_available(an, "fit");
        const cJSON *one = NULL, *m;
        cJSON_ArrayForEach(m, rl_json_get(an, "models"))
        {
            bool ok = false;
            if (rl_json_get_bool(m, "ok", &ok) && ok)
                one = m;
        }
        if (fit) {
            rl_report_fmt_num(rl_json_num_or(fit, "bw_GBs", NAN), x, sizeof x);
            rl_sbuf_printf(&s, "llama.cpp reads an effective %s GB/s (fit over %d models)", x,
                           (int)rl_json_num_or(fit, "n_points", 0));
        } else if (one && rl_json_num_or(an, "n_models_ok", 0) == 1) {
            rl_report_fmt_num(rl_json_num_or(one, "decode_bw_GBs", NAN), x, sizeof x);
            rl_report_fmt_num(
                rl_json_num_or(rl_json_get(one, "operating_point"), "decode_tok_s", NAN), y,
                sizeof y);
            rl_sbuf_printf(&s, "%s decodes %s tok/s, %s GB/s (one model, so no fit)",
                           str(one, "name", "the model"), y, x);
        } else {
            rl_sbuf_printf(&s, "no effective bandwidth (%s)",
                           str(rl_json_get(an, "fit"), "reason", "no fit"));
        }
        const cJSON *u = rl_json_available(an, "utilisation");
        const cJSON *ceil = rl_json_available(an, "ceiling");
        if (u) {
            rl_report_fmt_num(rl_json_num_or(u, "ceiling_GBs", NAN), x, sizeof x);
            rl_sbuf_printf(&s, ", the median model reaches %.0f%% of the %s GB/s ceiling",
                           rl_json_num_or(u, "median_pct", NAN), x);
        } else if (!ceil) {
            rl_sbuf_printf(&s, ", with no ceiling to compare against");
        }
        const cJSON *k = rl_json_available(an, "knee");
        double kt = rl_json_num_or(k, "threads", NAN);
        if (k)
            rl_sbuf_printf(&s, ", and %.0f %s the best rate", kt,
                           kt == 1 ? "thread already gives" : "threads already give");
        else if (one)
            rl_sbuf_printf(&s, ", at %.0f threads (the only count measured)",
                           rl_json_num_or(rl_json_get(one, "operating_point"), "threads", NAN));
        rl_sbuf_printf(&s, ".");
    }
    rl_snprintf(buf, cap, "%s", s.p && !s.oom ? s.p : "");
    free(s.p);
}

/* ---- key figures ----------------------------------------------------------------------- */

/* A figure's fixed parts: what it is, its unit and where its caveat sits (-1: none). */
static void fig_begin(rl_report_figure *f, const char *label, const char *unit, int place)
{
    memset(f, 0, sizeof *f);
    f->label = label;
    f->unit = unit;
    f->place = place;
}

/* A figure with no value: "n/a", and the analysis's reason for key (else fallback). */
static void fig_unavailable(rl_report_figure *f, const cJSON *an, const char *key,
                            const char *fallback)
{
    rl_snprintf(f->value, sizeof f->value, "n/a");
    f->kind = "unavailable";
    rl_snprintf(f->note, sizeof f->note, "%s", str(rl_json_get(an, key), "reason", fallback));
}

/* Effective bandwidth: the fit, else the one model's own rate, else why not. */
static void fig_bandwidth(const cJSON *an, rl_report_figure *f)
{
    fig_begin(f, "Effective bandwidth", "GB/s", RL_RP_BANDWIDTH);
    const cJSON *fit = rl_json_available(an, "fit");
    if (fit) {
        rl_report_fmt_num(rl_json_num_or(fit, "bw_GBs", NAN), f->value, sizeof f->value);
        f->kind = "derived";
        double r2;
        if (has_num(fit, "r2", &r2))
            rl_snprintf(f->note, sizeof f->note,
                        "Fit of decode tok/s = BW / bytes per token through the origin over %d "
                        "models, R\xC2\xB2 %.3f.",
                        (int)rl_json_num_or(fit, "n_points", 0), r2);
        else
            rl_snprintf(f->note, sizeof f->note,
                        "Fit of decode tok/s = BW / bytes per token through the origin over %d "
                        "models.",
                        (int)rl_json_num_or(fit, "n_points", 0));
    } else {
        const cJSON *m, *one = NULL;
        cJSON_ArrayForEach(m, rl_json_get(an, "models"))
        {
            bool ok = false;
            if (rl_json_get_bool(m, "ok", &ok) && ok)
                one = m;
        }
        if (one && rl_json_num_or(an, "n_models_ok", 0) == 1) {
            rl_report_fmt_num(rl_json_num_or(one, "decode_bw_GBs", NAN), f->value, sizeof f->value);
            f->kind = "derived";
            rl_snprintf(f->note, sizeof f->note,
                        "One model's decode rate x its bytes per token; not a fit.");
        } else {
            fig_unavailable(f, an, "fit", "no fit");
        }
    }
}

/* The figures that are one analysis block each: shown from the block when it is available,
 * else "n/a" with the block's reason. fill writes value, kind and note from the block. */
typedef struct {
    const char *label, *unit;
    int place;
    const char *key, *fallback; /* the analysis block, and the reason when it gives none */
    void (*fill)(const cJSON *x, rl_report_figure *f);
} fig_block;

/* Memory ceiling: measured or supplied. */
static void fill_ceiling(const cJSON *ceil, rl_report_figure *f)
{
    rl_report_fmt_num(rl_json_num_or(ceil, "GBs", NAN), f->value, sizeof f->value);
    bool ctl = strcmp(str(ceil, "kind", ""), "controlled") == 0;
    f->kind = ctl ? "supplied" : "measured";
    rl_snprintf(f->note, sizeof f->note, "%s",
                ctl ? "Given with --peak-bw." : "Best streaming read of the membw kernels.");
}

/* Share of the ceiling: the median utilisation. */
static void fill_util(const cJSON *u, rl_report_figure *f)
{
    rl_snprintf(f->value, sizeof f->value, "%.0f", rl_json_num_or(u, "median_pct", NAN));
    f->kind = "derived";
    rl_snprintf(f->note, sizeof f->note,
                "Median over %d models of decode GB/s / ceiling; range %.0f-%.0f%%.",
                (int)rl_json_num_or(u, "n_models", 0), rl_json_num_or(u, "min_pct", NAN),
                rl_json_num_or(u, "max_pct", NAN));
}

/* Best thread count: the knee. */
static void fill_knee(const cJSON *k, rl_report_figure *f)
{
    rl_snprintf(f->value, sizeof f->value, "%.0f", rl_json_num_or(k, "threads", NAN));
    f->kind = "derived";
    rl_snprintf(f->note, sizeof f->note,
                "Fewest threads within 2%% of the best decode rate (%d of %d models agree).",
                (int)rl_json_num_or(k, "votes", 0), (int)rl_json_num_or(k, "voters", 0));
}

/* The table, in the order the figures are shown (after the effective bandwidth). */
// clang-format off
static const fig_block fig_blocks[] = {
    {"Memory ceiling",       "GB/s",    RL_RP_CEILING, "ceiling",     "none",           fill_ceiling},
    {"Share of the ceiling", "%",       RL_RP_UTIL,    "utilisation", "no utilisation", fill_util},
    {"Best thread count",    "threads", -1,            "knee",        "no sweep",       fill_knee},
};
// clang-format on

static void fig_from_block(const fig_block *k, const cJSON *an, rl_report_figure *f)
{
    fig_begin(f, k->label, k->unit, k->place);
    const cJSON *x = rl_json_available(an, k->key);
    if (x)
        k->fill(x, f);
    else
        fig_unavailable(f, an, k->key, k->fallback);
}

/* Models measured: how many of the models have a decode rate. */
static void fig_models(const cJSON *an, rl_report_figure *f)
{
    fig_begin(f, "Models measured", "", -1);
    f->kind = "measured";
    rl_snprintf(f->value, sizeof f->value, "%d of %d", (int)rl_json_num_or(an, "n_models_ok", 0),
                (int)rl_json_num_or(an, "n_models", 0));
    rl_snprintf(f->note, sizeof f->note,
                "With a short-context decode rate (each at its own best "
                "thread count).");
}

/* Prefill scaling, when the sweep has it: true when f was filled. */
static bool fig_prefill(const cJSON *an, rl_report_figure *f)
{
    const cJSON *ps = rl_json_available(an, "prefill_scaling");
    if (!ps)
        return false;
    fig_begin(f, "Prefill scaling", "x", -1);
    f->kind = "derived";
    rl_snprintf(f->value, sizeof f->value, "%.2f", rl_json_num_or(ps, "median", NAN));
    rl_snprintf(f->note, sizeof f->note,
                "Best prefill over prefill at the fewest threads, median of %d models; "
                "prefill is compute-bound, so it shows what the cores add.",
                (int)rl_json_num_or(ps, "n_models", 0));
    return true;
}

size_t rl_report_figures(const cJSON *b, rl_report_figure *out)
{
    if (rl_report_client_only(b))
        return rl_report_client_figures(b, out);
    const cJSON *an = analysis(b);
    size_t n = 0;
    fig_bandwidth(an, &out[n++]);
    for (size_t i = 0; i < sizeof fig_blocks / sizeof fig_blocks[0]; i++)
        fig_from_block(&fig_blocks[i], an, &out[n++]);
    fig_models(an, &out[n++]);
    if (fig_prefill(an, &out[n]))
        n++;
    return n;
}

/* ---- command lines --------------------------------------------------------------------- */

char *rl_report_shell_line(const cJSON *argv, const char *argv0)
{
    rl_sbuf s = {0};
    if (argv0)
        rl_sbuf_printf(&s, "%s", argv0);
    const cJSON *a;
    cJSON_ArrayForEach(a, argv)
    {
        const char *v = cJSON_IsString(a) ? a->valuestring : "";
        if (s.len)
            rl_sbuf_printf(&s, " ");
        rl_sh_quote(&s, v);
    }
    if (!s.p && !s.oom)
        rl_sbuf_printf(&s, "%s", "");
    if (s.oom) {
        free(s.p);
        return NULL;
    }
    return s.p;
}
