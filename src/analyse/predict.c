/* predict.c: decode tok/s of a model on a measured machine, from the bundle's fit and the
 * model's header. See predict.h for the method, the interval and the caveats. */
#include "analyse/predict.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "model/gguf_remote.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/synth.h"

/* ---- arithmetic ---------------------------------------------------------------------- */

double rl_pred_tok_s(double bw_bytes_s, double bytes_per_token)
{
    if (!isfinite(bw_bytes_s) || !(bw_bytes_s > 0) || !isfinite(bytes_per_token) ||
        !(bytes_per_token > 0))
        return NAN;
    return bw_bytes_s / bytes_per_token;
}

bool rl_pred_bytes_at_depth(uint64_t weights, uint64_t kv_per_token, uint64_t depth, uint64_t *out)
{
    if (depth != 0 && kv_per_token > UINT64_MAX / depth)
        return false;
    uint64_t kv = depth * kv_per_token;
    if (kv > UINT64_MAX - weights)
        return false;
    *out = weights + kv;
    return true;
}

/* ---- the fit ------------------------------------------------------------------------- */

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* label appears as a whole item of the ", "-separated list */
static bool label_listed(const char *list, const char *label)
{
    size_t n = strlen(label);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, label, n) == 0)
            return true;
        p += k;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

void rl_pred_fit_add_format(rl_pred_fit *f, const char *label, double bytes, double bw)
{
    if (!label || !*label || strlen(label) >= sizeof f->formats[0].label || !(bytes > 0) ||
        !isfinite(bytes) || !(bw > 0) || !isfinite(bw))
        return;
    rl_pred_format *g = NULL;
    for (size_t i = 0; i < f->n_formats && !g; i++)
        if (strcmp(f->formats[i].label, label) == 0)
            g = &f->formats[i];
    if (!g) {
        if (f->n_formats >= RL_PRED_MAX_FORMATS)
            return;
        g = &f->formats[f->n_formats++];
        memset(g, 0, sizeof *g);
        snprintf(g->label, sizeof g->label, "%s", label);
        g->lo = g->hi = bw;
    }
    double x2 = 1.0 / (bytes * bytes);
    g->n++;
    g->sum_x2 += x2;
    g->sum_bw_x2 += bw * x2;
    if (bw < g->lo)
        g->lo = bw;
    if (bw > g->hi)
        g->hi = bw;
}

static const rl_pred_format *format_of(const rl_pred_fit *f, const char *label)
{
    for (size_t i = 0; label && *label && i < f->n_formats; i++)
        if (strcmp(f->formats[i].label, label) == 0)
            return &f->formats[i];
    return NULL;
}

/* r from a format's sums (n models left after any removal); false leaves r alone */
static bool format_rate(const rl_pred_fit *f, const rl_pred_format *g, size_t n, double sum_x2,
                        double sum_bw_x2, rl_pred_rate *r)
{
    if (n == 0 || !(sum_x2 > 0))
        return false;
    double bw = sum_bw_x2 / sum_x2;
    if (!isfinite(bw) || !(bw > 0))
        return false;
    r->bw = bw;
    r->source = "format";
    r->n_models = n;
    if (n >= 2) {
        r->lo = g->lo < bw ? g->lo : bw;
        r->hi = g->hi > bw ? g->hi : bw;
    } else {
        r->lo = bw * (f->bw_lo_bytes_s / f->bw_bytes_s);
        r->hi = bw * (f->bw_hi_bytes_s / f->bw_bytes_s);
    }
    return true;
}

void rl_pred_rate_for(const rl_pred_fit *f, const char *label, rl_pred_rate *r)
{
    *r = (rl_pred_rate){f->bw_bytes_s, f->bw_lo_bytes_s, f->bw_hi_bytes_s, "fit", f->n_points};
    const rl_pred_format *g = format_of(f, label);
    if (g)
        format_rate(f, g, g->n, g->sum_x2, g->sum_bw_x2, r);
}

void rl_pred_rate_without(const rl_pred_fit *f, const char *label, double bytes, double bw,
                          rl_pred_rate *r)
{
    *r = (rl_pred_rate){f->bw_bytes_s, f->bw_lo_bytes_s, f->bw_hi_bytes_s, "fit", f->n_points};
    const rl_pred_format *g = format_of(f, label);
    if (!g || g->n < 2 || !(bytes > 0) || !isfinite(bytes) || !(bw > 0) || !isfinite(bw))
        return;
    double x2 = 1.0 / (bytes * bytes);
    format_rate(f, g, g->n - 1, g->sum_x2 - x2, g->sum_bw_x2 - bw * x2, r);
}

rl_status rl_pred_fit_from_bundle(const cJSON *b, const char *name, rl_pred_fit *f, rl_error *err)
{
    memset(f, 0, sizeof *f);
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(b, "analysis");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(an, "fit");
    if (!rl_json_available(an, "fit")) {
        const char *why = rl_json_get_str(fit, "reason");
        return rl_fail(err, RL_EINPUT,
                       "%s: the bundle has no fit to predict from (%s); measure at least two "
                       "models of different sizes (llama-roofline diagnose)",
                       name, why ? why : "no analysis");
    }
    double bw = 0, np = 0;
    const char *conv = rl_json_get_str(fit, "bytes_convention");
    if (!rl_json_get_num(fit, "bw_bytes_s", &bw) || !isfinite(bw) || !(bw > 0) || !conv ||
        !rl_json_get_num(fit, "n_points", &np))
        return rl_fail(err, RL_EINPUT,
                       "%s: analysis.fit lacks bw_bytes_s, n_points or bytes_convention; the "
                       "bundle is damaged (llama-roofline validate %s)",
                       name, name);
    f->bw_bytes_s = bw;
    f->n_points = (size_t)np;
    f->has_r2 = rl_json_get_num(fit, "r2", &f->r2);
    f->conv = strcmp(conv, "streamed") == 0 ? RL_AN_BYTES_STREAMED : RL_AN_BYTES_RESIDENT;
    f->bw_lo_bytes_s = f->bw_hi_bytes_s = bw;
    bool first = true;
    const cJSON *am;
    cJSON_ArrayForEach(am, cJSON_GetObjectItemCaseSensitive(an, "models"))
    {
        bool in_fit = false;
        double gbs, bytes;
        if (!rl_json_get_bool(am, "in_fit", &in_fit) || !in_fit ||
            !rl_json_get_num(am, "decode_bw_GBs", &gbs) ||
            !rl_json_get_num(am, "bytes_per_token", &bytes) || !(gbs > 0) || !(bytes > 0))
            continue;
        double e = gbs * 1e9;
        if (first || e < f->bw_lo_bytes_s)
            f->bw_lo_bytes_s = e;
        if (first || e > f->bw_hi_bytes_s)
            f->bw_hi_bytes_s = e;
        if (first || bytes < f->min_bytes)
            f->min_bytes = bytes;
        if (first || bytes > f->max_bytes)
            f->max_bytes = bytes;
        first = false;
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(am, "operating_point");
        double t;
        if (rl_json_get_num(op, "threads", &t) && t >= 1 && t <= INT_MAX) {
            bool seen = false;
            for (size_t i = 0; i < f->n_threads; i++)
                seen |= f->threads[i] == (int)t;
            if (!seen && f->n_threads < RL_PRED_MAX_THREADS)
                f->threads[f->n_threads++] = (int)t;
        }
        const cJSON *bm = rl_bundle_model(b, rl_json_get_str(am, "id"), NULL);
        const char *lab = rl_json_get_str(cJSON_GetObjectItemCaseSensitive(bm, "gguf"), "label");
        size_t ll = strlen(f->labels);
        if (lab && *lab && !label_listed(f->labels, lab) && ll + strlen(lab) + 3 < sizeof f->labels)
            snprintf(f->labels + ll, sizeof f->labels - ll, "%s%s", ll ? ", " : "", lab);
        rl_pred_fit_add_format(f, lab, bytes, e);
        const char *src =
            rl_json_get_str(cJSON_GetObjectItemCaseSensitive(bm, "bytes_per_token"), "source");
        if (src && strstr(src, "file size"))
            f->resident_is_file = true;
    }
    /* the line passes between its points: keep the slope inside the interval */
    if (f->bw_lo_bytes_s > bw)
        f->bw_lo_bytes_s = bw;
    if (f->bw_hi_bytes_s < bw)
        f->bw_hi_bytes_s = bw;
    qsort(f->threads, f->n_threads, sizeof f->threads[0], int_cmp);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(an, "verdict");
    const char *label = rl_json_available(an, "verdict") ? rl_json_get_str(v, "label") : NULL;
    snprintf(f->verdict, sizeof f->verdict, "%s", label ? label : "");
    return RL_OK;
}

/* ---- the default bundle -------------------------------------------------------------- */

static char *last_bundle_file(void)
{
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *p = root ? rl_asprintf("%s/last-bundle", root) : NULL;
    free(root);
    return p;
}

rl_status rl_pred_default_bundle(char **path, rl_error *err)
{
    *path = NULL;
    char *file = last_bundle_file();
    if (!file)
        return rl_fail(err, RL_EINPUT,
                       "no bundle given and no cache directory known ($HOME unset): pass "
                       "--bundle BUNDLE");
    char *text = NULL;
    size_t len = 0;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_file_read_all(file, 8192, &text, &len, &e);
    free(file);
    if (st == RL_OK) {
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            text[--len] = '\0';
        if (len == 0 || strlen(text) != len) {
            free(text);
            st = RL_EINPUT;
        }
    }
    if (st != RL_OK)
        return rl_fail(err, RL_EINPUT,
                       "no bundle to predict from: run `llama-roofline diagnose` on this machine "
                       "first, or pass --bundle BUNDLE");
    *path = text;
    return RL_OK;
}

rl_status rl_pred_remember_bundle(const char *bundle_path, rl_error *err)
{
    char *abs = realpath(bundle_path, NULL);
    if (!abs)
        return rl_fail(err, RL_EOUTPUT, "%s: cannot resolve the bundle's path: %s", bundle_path,
                       strerror(errno));
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *file = last_bundle_file();
    rl_status st = root && file ? rl_mkdir_p(root, "set LLAMA_ROOFLINE_CACHE", err)
                                : rl_fail(err, RL_EOUTPUT, "no cache directory ($HOME unset)");
    char *line = st == RL_OK ? rl_asprintf("%s\n", abs) : NULL;
    if (st == RL_OK)
        st = line ? rl_write_file(file, line, strlen(line), err)
                  : rl_fail(err, RL_EINTERNAL, "out of memory");
    free(line);
    free(file);
    free(root);
    free(abs);
    return st;
}

/* ---- models -------------------------------------------------------------------------- */

rl_status rl_pred_synth_model(const char *preset, const char *type, rl_gguf_model *m, rl_error *err)
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

rl_status rl_pred_load_model(const char *spec, FILE *log, rl_gguf_model *m, rl_error *err)
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
        return rl_pred_synth_model(preset, colon + 1, m, err);
    }
    return rl_gguf_model_open(spec, log, m, err);
}

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

static void threads_list(const rl_pred_fit *f, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < f->n_threads && o < cap; i++) {
        int w = snprintf(buf + o, cap - o, "%s%d", i ? ", " : "", f->threads[i]);
        o = w > 0 ? o + (size_t)w : o;
    }
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
        threads_list(f, b, sizeof b);
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
    if (st == RL_OK && f->labels[0] && p->label[0] && !label_listed(f->labels, p->label))
        st = add_caveat(p, "other_format", err,
                        "None of the fitted models is %s (fitted: %s): formats cost different "
                        "compute per byte (K-quants more than Q4_0, Q8_0 or F16), which shows "
                        "where decode is not purely memory-bound, e.g. at few threads.",
                        p->label, f->labels);
    if (st == RL_OK && deep && p->kv_bytes_per_token > 0)
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
    p->model = rl_strdup(spec);
    if (!p->model)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    p->conv = f->conv;
    p->is_moe = m->is_moe;
    p->kv_bytes_per_token = m->kv_bytes_per_token;
    snprintf(p->label, sizeof p->label, "%s", m->label);
    const char *base = strrchr(m->path ? m->path : spec, '/');
    base = base ? base + 1 : (m->path ? m->path : spec);
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
                       rl_tty_escape(spec, safe, sizeof safe));
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
    }
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

/* ---- JSON ---------------------------------------------------------------------------- */

cJSON *rl_pred_fit_to_json(const rl_pred_fit *f)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "kind", "derived") &&
              rl_json_add_num(o, "bw_GBs", f->bw_bytes_s / 1e9) &&
              rl_json_add_num(o, "bw_low_GBs", f->bw_lo_bytes_s / 1e9) &&
              rl_json_add_num(o, "bw_high_GBs", f->bw_hi_bytes_s / 1e9) &&
              rl_json_add_u64(o, "n_points", f->n_points) &&
              rl_json_add_num_or_null(o, "r2", f->r2, f->has_r2) &&
              rl_json_add_str(o, "bytes_convention",
                              f->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident") &&
              rl_json_attach(o, "threads", cJSON_CreateIntArray(f->threads, (int)f->n_threads)) &&
              rl_json_add_str_or_null(o, "verdict", f->verdict[0] ? f->verdict : NULL) &&
              rl_json_add_str(o, "interval", RL_PRED_INTERVAL);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *point_json(const rl_pred_point *pt)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_u64(o, "depth", pt->depth);
    if (ok && !pt->available)
        ok = cJSON_AddFalseToObject(o, "available") &&
             rl_json_add_str(o, "reason", "the model's KV-cache size per token is unknown");
    else if (ok)
        ok = rl_json_add_u64(o, "bytes_per_token", pt->bytes_per_token) &&
             rl_json_add_num(o, "tok_s", pt->tok_s) &&
             rl_json_add_num(o, "tok_s_low", pt->tok_s_low) &&
             rl_json_add_num(o, "tok_s_high", pt->tok_s_high);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *rate_json(const rl_pred_rate *r)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "source", r->source) &&
              rl_json_add_u64(o, "n_models", r->n_models) &&
              rl_json_add_num(o, "bw_GBs", r->bw / 1e9) &&
              rl_json_add_num(o, "bw_low_GBs", r->lo / 1e9) &&
              rl_json_add_num(o, "bw_high_GBs", r->hi / 1e9);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *rl_prediction_to_json(const rl_prediction *p)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = rl_json_add_str(o, "kind", "derived") && rl_json_add_str(o, "model", p->model) &&
              rl_json_add_str(o, "name", p->name) &&
              rl_json_add_str_or_null(o, "label", p->label[0] ? p->label : NULL) &&
              rl_json_add_str(o, "bytes_convention",
                              p->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident") &&
              rl_json_add_str(o, "bytes_source", p->bytes_key) &&
              rl_json_add_u64(o, "weights_bytes", p->weights_bytes) &&
              rl_json_add_u64_or_null(o, "kv_bytes_per_token", p->kv_bytes_per_token,
                                      p->kv_bytes_per_token > 0) &&
              cJSON_AddBoolToObject(o, "is_moe", p->is_moe) &&
              rl_json_attach(o, "rate", rate_json(&p->rate));
    cJSON *pts = ok ? cJSON_AddArrayToObject(o, "points") : NULL;
    cJSON *cav = pts ? cJSON_AddArrayToObject(o, "caveats") : NULL;
    ok = ok && pts && cav;
    for (size_t i = 0; ok && i < p->n_points; i++) {
        cJSON *x = point_json(&p->points[i]);
        ok = x && cJSON_AddItemToArray(pts, x);
        if (!ok)
            cJSON_Delete(x);
    }
    for (size_t i = 0; ok && i < p->n_caveats; i++) {
        cJSON *c = cJSON_CreateObject();
        ok = c && rl_json_add_str(c, "code", p->caveats[i].code) &&
             rl_json_add_str(c, "text", p->caveats[i].text) && cJSON_AddItemToArray(cav, c);
        if (!ok)
            cJSON_Delete(c);
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- for people ---------------------------------------------------------------------- */

static void fmt_rate(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else
        rl_snprintf(buf, cap, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
}

static void fit_line(const rl_pred_fit *f, char *buf, size_t cap)
{
    char thr[64];
    threads_list(f, thr, sizeof thr);
    rl_snprintf(buf, cap,
                "fit %.2f GB/s over %zu models (%s bytes, best threads: %s); interval %.2f to "
                "%.2f GB/s, %s",
                f->bw_bytes_s / 1e9, f->n_points,
                f->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident", thr[0] ? thr : "?",
                f->bw_lo_bytes_s / 1e9, f->bw_hi_bytes_s / 1e9, RL_PRED_INTERVAL);
}

/* Where a prediction's bandwidth came from. */
static void rate_line(const rl_prediction *q, char *buf, size_t cap)
{
    const rl_pred_rate *r = &q->rate;
    if (strcmp(r->source, "format") == 0)
        rl_snprintf(buf, cap,
                    "at %.2f GB/s: the fitted %s model%s alone (same format), interval %.2f to "
                    "%.2f GB/s",
                    r->bw / 1e9, q->label, r->n_models == 1 ? "" : "s", r->lo / 1e9, r->hi / 1e9);
    else
        rl_snprintf(buf, cap, "at %.2f GB/s: the fit over all %zu models (no fitted model is %s)",
                    r->bw / 1e9, r->n_models, q->label[0] ? q->label : "of its format");
}

/* A predicted point's bytes per token, tok/s and interval ends as text. */
typedef struct {
    char bytes[32], rate[32], low[32], high[32];
} pt_text;

static void point_text(const rl_pred_point *pt, pt_text *t)
{
    rl_fmt_mb(t->bytes, sizeof t->bytes, pt->bytes_per_token);
    fmt_rate(t->rate, sizeof t->rate, pt->tok_s);
    fmt_rate(t->low, sizeof t->low, pt->tok_s_low);
    fmt_rate(t->high, sizeof t->high, pt->tok_s_high);
}

void rl_prediction_print(FILE *out, const rl_pred_fit *f, const char *bundle,
                         const rl_prediction *p, size_t n)
{
    char line[512], safe[1024];
    fit_line(f, line, sizeof line);
    fprintf(out, "Predicted decode (kind: derived) on the machine of %s\n  %s\n",
            rl_tty_escape(bundle, safe, sizeof safe), line);
    if (f->verdict[0])
        fprintf(out, "  verdict there: %s\n", f->verdict);
    for (size_t i = 0; i < n; i++) {
        const rl_prediction *q = &p[i];
        char wb[32];
        rl_fmt_mb(wb, sizeof wb, q->weights_bytes);
        fprintf(out, "\n%s\n  %s, %s per token (%s)\n", rl_tty_escape(q->name, safe, sizeof safe),
                rl_tty_escape(q->model, line, 256), wb, q->bytes_key);
        rate_line(q, line, sizeof line);
        fprintf(out, "  %s\n", line);
        fprintf(out, "  %8s  %14s  %10s  %s\n", "depth", "bytes/token", "tok/s", "interval");
        for (size_t k = 0; k < q->n_points; k++) {
            const rl_pred_point *pt = &q->points[k];
            if (!pt->available) {
                fprintf(out, "  %8" PRIu64 "  %14s  %10s  %s\n", pt->depth, "?", "n/a",
                        "KV size unknown");
                continue;
            }
            pt_text t;
            point_text(pt, &t);
            fprintf(out, "  %8" PRIu64 "  %14s  %10s  %s to %s\n", pt->depth, t.bytes, t.rate,
                    t.low, t.high);
        }
        for (size_t k = 0; k < q->n_caveats; k++)
            fprintf(out, "  caveat (%s): %s\n", q->caveats[k].code, q->caveats[k].text);
    }
}

/* s escaped for Markdown (rl_md_escape) onto out. */
static void md_text(FILE *out, const char *s)
{
    rl_sbuf t = {0};
    rl_md_escape(&t, s);
    if (t.p)
        fputs(t.p, out);
    free(t.p);
}

void rl_prediction_markdown(FILE *out, const rl_pred_fit *f, const char *bundle,
                            const rl_prediction *p, size_t n)
{
    char line[512];
    fit_line(f, line, sizeof line);
    fputs("## Predicted decode (derived)\n\nOn the machine of `", out);
    md_text(out, bundle);
    fprintf(out, "`: %s.\n\n", line);
    fputs("| model | depth | bytes/token | predicted tok/s | interval | bandwidth from |\n"
          "|---|--:|--:|--:|--:|---|\n",
          out);
    for (size_t i = 0; i < n; i++) {
        char from[256];
        rate_line(&p[i], from, sizeof from);
        for (size_t k = 0; k < p[i].n_points; k++) {
            const rl_pred_point *pt = &p[i].points[k];
            fputs("| ", out);
            md_text(out, p[i].name);
            if (!pt->available) {
                fprintf(out, " | %" PRIu64 " | unknown | n/a | n/a | ", pt->depth);
            } else {
                pt_text t;
                point_text(pt, &t);
                fprintf(out, " | %" PRIu64 " | %s | %s | %s to %s | ", pt->depth, t.bytes, t.rate,
                        t.low, t.high);
            }
            md_text(out, from);
            fputs(" |\n", out);
        }
    }
    bool any = false;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].n_caveats; k++) {
            if (!any)
                fputs("\nCaveats:\n\n", out);
            any = true;
            fputs("- ", out);
            md_text(out, p[i].name);
            fprintf(out, " (%s): ", p[i].caveats[k].code);
            md_text(out, p[i].caveats[k].text);
            fputc('\n', out);
        }
}

/* ---- diagnose --predict ------------------------------------------------------------- */

rl_status rl_pred_check_models(const char *const *specs, size_t n, rl_error *err)
{
    if (n > RL_PRED_MAX_MODELS)
        return rl_fail(err, RL_EINPUT, "--predict: at most %d models", RL_PRED_MAX_MODELS);
    rl_status st = RL_OK;
    for (size_t i = 0; i < n && st == RL_OK; i++) {
        rl_gguf_model m;
        st = rl_pred_load_model(specs[i], NULL, &m, err);
        rl_gguf_model_free(&m);
        if (st != RL_OK)
            rl_prefix(err, "--predict");
    }
    return st;
}

rl_status rl_pred_bundle_add(cJSON *bundle, const char *const *specs, size_t n, rl_error *err)
{
    if (n == 0)
        return RL_OK;
    cJSON_DeleteItemFromObjectCaseSensitive(bundle, "predictions");
    rl_pred_fit f;
    rl_error fe = {RL_OK, ""};
    if (rl_pred_fit_from_bundle(bundle, "bundle", &f, &fe) != RL_OK) {
        const char *why = strchr(fe.msg, '(');
        return rl_json_add_unavailable(bundle, "predictions",
                                       why ? "the bundle has no fit (see analysis.fit)" : "no fit")
                   ? RL_OK
                   : rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "kind", "derived") &&
              rl_json_attach(o, "fit", rl_pred_fit_to_json(&f));
    cJSON *arr = ok ? cJSON_AddArrayToObject(o, "models") : NULL;
    ok = ok && arr;
    rl_status st = ok ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    uint64_t depth0 = 0;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        rl_gguf_model m;
        rl_prediction p;
        st = rl_pred_load_model(specs[i], stderr, &m, err);
        if (st == RL_OK)
            st = rl_predict(&f, &m, specs[i], &depth0, 1, 0, &p, err);
        rl_gguf_model_free(&m);
        if (st != RL_OK)
            break;
        cJSON *x = rl_prediction_to_json(&p);
        rl_prediction_free(&p);
        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
        }
    }
    if (st != RL_OK) {
        cJSON_Delete(o);
        return st;
    }
    return rl_json_attach(bundle, "predictions", o) ? RL_OK
                                                    : rl_fail(err, RL_EINTERNAL, "out of memory");
}

rl_status rl_pred_after_diagnose(cJSON *bundle, const char *out_dir, const char *const *specs,
                                 size_t n, rl_status st, rl_error *err)
{
    char *path = rl_asprintf("%s/bundle.json", out_dir);
    if (!path)
        return st == RL_OK ? rl_fail(err, RL_EINTERNAL, "out of memory") : st;
    if (st == RL_OK && n > 0) {
        st = rl_pred_bundle_add(bundle, specs, n, err);
        if (st == RL_OK)
            st = rl_bundle_write(bundle, path, err);
    }
    rl_error e = {RL_OK, ""};
    if (rl_pred_remember_bundle(path, &e) != RL_OK)
        fprintf(stderr, "diagnose: note: not recorded as the last bundle for predict: %s\n", e.msg);
    free(path);
    return st;
}
