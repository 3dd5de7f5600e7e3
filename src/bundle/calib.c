/* SPDX-License-Identifier: MIT */
/* calib.c: the calibration's arithmetic, its section's JSON, its key and its cache (calib.h). */
#include "bundle/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"
#include "bundle/bundle.h"

/* ---- the arithmetic ----------------------------------------------------------------------- */

static const rl_cal_pt *find_pt(const rl_cal_pt *pts, size_t n, int role)
{
    for (size_t i = 0; i < n; i++)
        if (pts[i].role == role)
            return &pts[i];
    return NULL;
}

static bool usable(const rl_cal_pt *p)
{
    return p && p->ok && p->tok_s > 0 && isfinite(p->tok_s) && p->bytes > 0;
}

static double tau_us(const rl_cal_pt *p)
{
    return 1e6 / p->tok_s;
}

/* The compute roof and the fixed cost from the line through small and mid. */
static void derive_line(const rl_cal_pt *s, const rl_cal_pt *m, rl_cal_result *o)
{
    if (!usable(s) || !usable(m)) {
        rl_snprintf(o->compute_why, sizeof o->compute_why,
                    "no decode rate from the %s model (see its run)", usable(s) ? "mid" : "small");
        rl_snprintf(o->fixed_why, sizeof o->fixed_why, "%s", o->compute_why);
        return;
    }
    double x[2] = {s->bytes, m->bytes}, y[2] = {tau_us(s), tau_us(m)};
    rl_error e;
    o->has_fit = rl_fit_line(x, y, 2, &o->fit, &e) == RL_OK;
    if (!o->has_fit) {
        rl_snprintf(o->compute_why, sizeof o->compute_why, "%s", e.msg);
        rl_snprintf(o->fixed_why, sizeof o->fixed_why, "%s", e.msg);
        return;
    }
    o->has_compute = o->fit.slope > 0;
    if (o->has_compute)
        o->compute_GBs = 1e-3 / o->fit.slope;
    else
        rl_snprintf(o->compute_why, sizeof o->compute_why,
                    "the mid model (%.0f bytes) took no longer per token than the small one "
                    "(%.0f bytes): too noisy to tell; measure again on a quiet machine",
                    m->bytes, s->bytes);
    o->has_fixed = o->fit.intercept >= 0;
    if (o->has_fixed)
        o->fixed_us = o->fit.intercept;
    else
        rl_snprintf(o->fixed_why, sizeof o->fixed_why,
                    "the line through the small and mid models gives %.1f us at 0 bytes, below "
                    "0: too noisy to tell; measure again on a quiet machine",
                    o->fit.intercept);
}

/* What a layer costs beyond its bytes, from the deep model, and the cost of none. */
static void derive_layers(const rl_cal_pt *s, const rl_cal_pt *d, rl_cal_result *o)
{
    if (!usable(d)) {
        rl_snprintf(o->per_layer_why, sizeof o->per_layer_why,
                    "no decode rate from the deep model (see its run)");
    } else if (!o->has_compute || !o->has_fixed) {
        rl_snprintf(o->per_layer_why, sizeof o->per_layer_why,
                    "needs the compute roof and the fixed cost: %s",
                    o->has_compute ? o->fixed_why : o->compute_why);
    } else if (!(d->n_layer > s->n_layer)) {
        rl_snprintf(o->per_layer_why, sizeof o->per_layer_why,
                    "the deep model has no more layers than the small one");
    } else {
        double fixed_deep = tau_us(d) - d->bytes * o->fit.slope;
        double v = (fixed_deep - o->fixed_us) / (d->n_layer - s->n_layer);
        o->has_per_layer = v >= 0;
        if (o->has_per_layer)
            o->per_layer_us = v;
        else
            rl_snprintf(o->per_layer_why, sizeof o->per_layer_why,
                        "the deep model's layers cost %.2f us each beyond their bytes, below "
                        "0: too noisy to tell; measure again on a quiet machine",
                        v);
    }
    if (!o->has_per_layer) {
        rl_snprintf(o->base_why, sizeof o->base_why, "needs the per-layer cost: %s",
                    o->per_layer_why);
        return;
    }
    double b = o->fixed_us - o->per_layer_us * s->n_layer;
    o->has_base = b >= 0;
    if (o->has_base)
        o->base_us = b;
    else
        rl_snprintf(o->base_why, sizeof o->base_why,
                    "the fixed cost less its layers' is %.1f us, below 0: too noisy to tell", b);
}

/* A streamed point's time less the fixed cost at its own layers: the small model's fixed cost
 * plus the per-layer cost of the layers it has beyond small's (only the fixed cost without a
 * per-layer one; 0 without either). */
static double beyond_fixed(const rl_cal_pt *p, const rl_cal_pt *s, const rl_cal_result *o)
{
    double fixed = o->has_fixed ? o->fixed_us : 0.0;
    if (o->has_fixed && o->has_per_layer && s && p->n_layer > s->n_layer)
        fixed += o->per_layer_us * (p->n_layer - s->n_layer);
    return tau_us(p) - fixed;
}

static void derive_stream(const rl_cal_pt *st, const rl_cal_pt *s, rl_cal_result *o)
{
    if (!usable(st)) {
        rl_snprintf(o->stream_why, sizeof o->stream_why,
                    "no decode rate from the stream model (see its run)");
        return;
    }
    o->fixed_subtracted = o->has_fixed;
    double t = beyond_fixed(st, s, o);
    o->has_stream = t > 0;
    if (o->has_stream)
        o->stream_GBs = 1e-3 * st->bytes / t;
    else
        rl_snprintf(o->stream_why, sizeof o->stream_why,
                    "the stream model took %.1f us per token, no more than the fixed cost "
                    "(%.1f us)",
                    tau_us(st), o->fixed_us);
}

/* The stream and wide models (the same bytes in 4 times fewer matrices, half as many rows)
 * split into a time per byte (stream_limit: the rate with no per-item cost) and a time per
 * item: per matrix (na, nb their matrices) or per row (their rows). false with why filled. */
static bool split_items(const rl_cal_pt *st, const rl_cal_pt *w, const rl_cal_pt *s,
                        const rl_cal_result *o, bool rows, double *c, double *r, char *why,
                        size_t cap)
{
    if (!o->has_stream || !usable(w)) {
        rl_snprintf(why, cap, "%s",
                    o->has_stream ? "no decode rate from the wide model (see its run)"
                                  : o->stream_why);
        return false;
    }
    double ts = beyond_fixed(st, s, o), tw = beyond_fixed(w, s, o);
    double na = rows ? st->n_rows : st->n_matrices, nb = rows ? w->n_rows : w->n_matrices;
    const char *item = rows ? "row" : "matrix";
    if (rl_cal_matrix_split(st->bytes, na, ts, w->bytes, nb, tw, c, r))
        return true;
    rl_snprintf(why, cap,
                "the wide model (%.0f %s, %.1f us per token beyond the fixed cost) and the "
                "stream model (%.0f, %.1f us) give no time per %s at or above 0: too noisy to "
                "tell; measure again on a quiet machine",
                nb, rows ? "rows" : "matrices", tw, na, ts, item);
    return false;
}

static void derive_per_matrix(const rl_cal_pt *st, const rl_cal_pt *w, const rl_cal_pt *s,
                              rl_cal_result *o)
{
    double c = 0, r = 0;
    o->has_per_matrix =
        split_items(st, w, s, o, false, &c, &r, o->per_matrix_why, sizeof o->per_matrix_why);
    if (o->has_per_matrix) {
        o->per_matrix_us = r;
        o->stream_limit_GBs = 1e-3 / c;
    }
    double cr = 0, rr = 0;
    o->has_per_row =
        split_items(st, w, s, o, true, &cr, &rr, o->per_row_why, sizeof o->per_row_why);
    if (o->has_per_row) {
        o->per_row_ns = 1e3 * rr;
        o->row_limit_GBs = 1e-3 / cr;
    }
}

void rl_cal_derive(const rl_cal_pt *pts, size_t n, rl_cal_result *out)
{
    memset(out, 0, sizeof *out);
    const rl_cal_pt *s = find_pt(pts, n, RL_CAL_SMALL), *m = find_pt(pts, n, RL_CAL_MID);
    derive_line(s, m, out);
    derive_layers(s, find_pt(pts, n, RL_CAL_DEEP), out);
    derive_stream(find_pt(pts, n, RL_CAL_STREAM), s, out);
    derive_per_matrix(find_pt(pts, n, RL_CAL_STREAM), find_pt(pts, n, RL_CAL_WIDE), s, out);
}

int rl_cal_tokens(double us_per_byte, uint64_t bytes, int reps, int n_gen, double run_s)
{
    if (!(us_per_byte > 0) || bytes == 0 || reps < 1 || n_gen <= RL_CAL_MIN_N_GEN)
        return n_gen;
    double n = floor(run_s * 1e6 / ((double)reps * (double)bytes * us_per_byte));
    return n >= n_gen ? n_gen : n <= RL_CAL_MIN_N_GEN ? RL_CAL_MIN_N_GEN : (int)n;
}

/* ---- the key ------------------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h;
}

void rl_cal_key_make(const char *cpu, const char *flags, const char *build, rl_cal_key *out)
{
    memset(out, 0, sizeof *out);
    rl_snprintf(out->cpu, sizeof out->cpu, "%s", cpu && *cpu ? cpu : "unknown");
    rl_snprintf(out->build, sizeof out->build, "%s", build && *build ? build : "unknown");
    uint64_t basis = 14695981039346656037ull;
    uint64_t fh = fnv(basis, flags ? flags : "");
    rl_snprintf(out->flags_hash, sizeof out->flags_hash, "%016llx", (unsigned long long)fh);
    uint64_t h =
        fnv(fnv(fnv(fnv(fnv(basis, out->cpu), "\n"), flags ? flags : ""), "\n"), out->build);
    rl_snprintf(out->id, sizeof out->id, "%016llx", (unsigned long long)h);
}

cJSON *rl_cal_key_json(const rl_cal_key *k)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "cpu", k->cpu);
    ok = ok && rl_json_add_str(o, "cpu_flags_fnv1a64", k->flags_hash);
    ok = ok && rl_json_add_str(o, "llama_cpp_build", k->build);
    ok = ok && rl_json_add_str(o, "id", k->id);
    return rl_json_kept(o, ok);
}

static bool str_is(const cJSON *j, const char *key, const char *want)
{
    const char *s = rl_json_get_str(j, key);
    return s && strcmp(s, want) == 0;
}

bool rl_cal_key_matches(const cJSON *j, const rl_cal_key *k)
{
    return str_is(j, "cpu", k->cpu) && str_is(j, "cpu_flags_fnv1a64", k->flags_hash) &&
           str_is(j, "llama_cpp_build", k->build) && str_is(j, "id", k->id);
}

void rl_cal_key_of_bundle(const cJSON *bundle, rl_cal_key *out)
{
    const cJSON *env = rl_json_get(bundle, "environment");
    rl_cal_key_make(rl_json_get_str(env, "cpu"), rl_json_get_str(env, "cpu_flags"),
                    rl_json_get_str(rl_json_get(bundle, "llama_cpp"), "build_commit"), out);
}

/* ---- the section -------------------------------------------------------------------------- */

cJSON *rl_cal_method_json(uint64_t llc, const char *llc_source, int n_gen, int reps, double run_s,
                          int passes)
{
    uint64_t t[RL_CAL_N_ROLES];
    rl_cal_targets(llc, t);
    cJSON *o = cJSON_CreateObject(), *tg = NULL;
    bool ok = o && rl_json_add_str(o, "kind", "controlled");
    ok = ok && rl_json_add_num(o, "n_prompt", 0) && rl_json_add_num(o, "n_gen", n_gen);
    ok = ok && rl_json_add_num(o, "reps", reps) && rl_json_add_num(o, "passes", passes);
    ok = ok && rl_json_add_num(o, "min_n_gen", RL_CAL_MIN_N_GEN) &&
         rl_json_add_num(o, "run_s", run_s);
    ok = ok && rl_json_add_num(o, "n_layer", RL_CAL_N_LAYER);
    ok = ok && rl_json_add_num(o, "deep_layers", RL_CAL_DEEP_LAYERS);
    ok = ok && rl_json_add_num(o, "stream_layers", RL_CAL_STREAM_LAYERS);
    ok = ok && rl_json_add_num(o, "wide_layers", RL_CAL_WIDE_LAYERS);
    ok = ok && rl_json_add_num(o, "head_dim", RL_CAL_HEAD_DIM);
    ok = ok && rl_json_add_num(o, "n_head_kv", RL_CAL_N_HEAD_KV);
    ok = ok && rl_json_add_num(o, "n_vocab", RL_CAL_VOCAB) &&
         rl_json_add_num(o, "seed", RL_CAL_SEED);
    ok = ok && rl_json_add_u64(o, "llc_bytes", llc ? llc : RL_CAL_LLC_DEFAULT);
    ok = ok && rl_json_add_str(o, "llc_source", llc_source);
    ok = ok && (tg = cJSON_AddObjectToObject(o, "target_bytes")) != NULL;
    for (int r = 0; ok && r < RL_CAL_N_ROLES; r++)
        ok = rl_json_add_u64(tg, rl_cal_role_name(r), t[r]);
    ok = ok && rl_json_add_str(o, "model",
                               "per-token time = fixed + bytes / compute roof over the "
                               "cache-resident models; stream rate = bytes / (time - fixed); "
                               "stream and wide: time - fixed = bytes / stream limit + "
                               "rows x per row (and matrices x per matrix); each point the "
                               "faster of its passes' runs");
    return rl_json_kept(o, ok);
}

static cJSON *shape_json(const rl_cal_shape *s)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "kind", "controlled");
    ok = ok && rl_json_add_u64(o, "n_layer", s->n_layer) && rl_json_add_u64(o, "n_embd", s->n_embd);
    ok = ok && rl_json_add_u64(o, "n_ff", s->n_ff) && rl_json_add_u64(o, "n_head", s->n_head);
    ok = ok && rl_json_add_u64(o, "n_head_kv", s->n_head_kv);
    ok = ok && rl_json_add_u64(o, "n_vocab", s->n_vocab);
    return rl_json_kept(o, ok);
}

static bool shape_from(const cJSON *j, rl_cal_shape *s)
{
    return rl_json_get_u64(j, "n_layer", &s->n_layer) && rl_json_get_u64(j, "n_embd", &s->n_embd) &&
           rl_json_get_u64(j, "n_ff", &s->n_ff) && rl_json_get_u64(j, "n_head", &s->n_head) &&
           rl_json_get_u64(j, "n_head_kv", &s->n_head_kv) &&
           rl_json_get_u64(j, "n_vocab", &s->n_vocab);
}

cJSON *rl_cal_point_new(int role, const rl_cal_shape *s, const char *path, uint64_t bytes,
                        int threads)
{
    cJSON *p = cJSON_CreateObject(), *m = NULL, *b = NULL, *run = NULL;
    const char *base = path ? strrchr(path, '/') : NULL;
    bool ok = p && rl_json_add_str(p, "role", rl_cal_role_name(role));
    ok = ok && (m = cJSON_AddObjectToObject(p, "model")) != NULL;
    ok = ok && rl_json_add_str(m, "name", base ? base + 1 : (path ? path : ""));
    ok = ok && rl_json_add_str(m, "path", path ? path : "");
    ok = ok && rl_json_attach(m, "shape", shape_json(s));
    ok = ok && (b = cJSON_AddObjectToObject(p, "bytes_per_token")) != NULL;
    ok = ok && rl_json_add_str(b, "kind", "measured") && rl_json_add_u64(b, "value", bytes);
    ok = ok && rl_json_add_str(b, "unit", "bytes") &&
         rl_json_add_str(b, "source", "GGUF tensor table, streamed convention");
    ok = ok && (run = cJSON_AddObjectToObject(p, "run")) != NULL;
    ok = ok && rl_json_add_num(run, "threads", threads) && rl_json_add_num(run, "depth", 0);
    ok = ok && rl_json_add_num(run, "pass", 1);
    if (!ok) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

cJSON *rl_cal_type_new(const char *type_name)
{
    char utc[32];
    rl_bundle_utc_now(utc, sizeof utc);
    cJSON *t = cJSON_CreateObject();
    bool ok = t && rl_json_add_str(t, "type", type_name) && rl_json_add_str(t, "kind", "derived");
    ok = ok && rl_json_add_str(t, "source", "measured") && rl_json_add_str(t, "measured_utc", utc);
    ok = ok && cJSON_AddArrayToObject(t, "points") != NULL;
    if (!ok) {
        cJSON_Delete(t);
        return NULL;
    }
    return t;
}

bool rl_cal_run_rate(const cJSON *run, double *tok_s)
{
    const char *st = rl_json_get_str(run, "status");
    const cJSON *stats = rl_json_get(rl_json_get(run, "decode"), "stats");
    return st && strcmp(st, "ok") == 0 && rl_json_get_num(stats, "mean", tok_s) && *tok_s > 0;
}

size_t rl_cal_points_of(const cJSON *type_entry, rl_cal_pt *pts, size_t cap)
{
    size_t n = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, rl_json_get(type_entry, "points"))
    {
        if (n >= cap)
            break;
        rl_cal_pt *q = &pts[n];
        memset(q, 0, sizeof *q);
        q->role = rl_cal_role_by_name(rl_json_get_str(p, "role"));
        rl_json_get_num(rl_json_get(p, "bytes_per_token"), "value", &q->bytes);
        const cJSON *shape = rl_json_get(rl_json_get(p, "model"), "shape");
        uint64_t layers = 0;
        rl_json_get_u64(shape, "n_layer", &layers);
        q->n_layer = (double)layers;
        rl_cal_shape sh;
        bool known = shape_from(shape, &sh);
        q->n_matrices = known ? (double)rl_cal_shape_matrices(&sh) : 0;
        q->n_rows = known ? (double)rl_cal_shape_rows(&sh) : 0;
        q->ok = q->role >= 0 && rl_cal_run_rate(rl_json_get(p, "run"), &q->tok_s);
        n++;
    }
    return n;
}

/* key: {kind derived, name: value[, more]} or unavailable(why) */
static bool put_value(cJSON *t, const char *key, bool has, const char *name, double v,
                      const char *why)
{
    cJSON *o = has ? cJSON_CreateObject() : rl_json_unavailable(why);
    bool ok = o != NULL;
    if (ok && has)
        ok = rl_json_add_str(o, "kind", "derived") && rl_json_add_num(o, name, v);
    if (!ok) {
        cJSON_Delete(o);
        return false;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(t, key);
    return rl_json_attach(t, key, o);
}

static bool put_fit(cJSON *t, const rl_cal_result *r)
{
    cJSON *o = r->has_fit ? cJSON_CreateObject() : rl_json_unavailable(r->compute_why);
    bool ok = o != NULL;
    if (ok && r->has_fit) {
        ok = rl_json_add_str(o, "kind", "derived") && rl_json_add_num(o, "n_points", 2);
        ok = ok && rl_json_add_num(o, "intercept_us", r->fit.intercept);
        ok = ok && rl_json_add_num(o, "slope_us_per_byte", r->fit.slope);
    }
    if (!ok) {
        cJSON_Delete(o);
        return false;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(t, "fit");
    return rl_json_attach(t, "fit", o);
}

/* Each point's per-token time and effective bandwidth. */
static bool put_point_rates(cJSON *t, const rl_cal_pt *pts, size_t n)
{
    size_t i = 0;
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
    {
        if (i >= n)
            break;
        const rl_cal_pt *q = &pts[i++];
        cJSON *o = usable(q) ? cJSON_CreateObject()
                             : rl_json_unavailable("no decode rate from this model's run");
        bool ok = o != NULL;
        if (ok && usable(q)) {
            ok = rl_json_add_str(o, "kind", "derived") &&
                 rl_json_add_num(o, "us_per_token", tau_us(q));
            ok = ok && rl_json_add_num(o, "GBs", 1e-3 * q->bytes / tau_us(q));
        }
        if (!ok) {
            cJSON_Delete(o);
            return false;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(p, "rate");
        if (!rl_json_attach(p, "rate", o))
            return false;
    }
    return true;
}

bool rl_cal_type_finish(cJSON *t)
{
    rl_cal_pt pts[RL_CAL_MAX_POINTS];
    size_t n = rl_cal_points_of(t, pts, RL_CAL_MAX_POINTS);
    rl_cal_result r;
    rl_cal_derive(pts, n, &r);
    bool ok = put_point_rates(t, pts, n) && put_fit(t, &r);
    ok = ok && put_value(t, "compute_roof", r.has_compute, "GBs", r.compute_GBs, r.compute_why);
    ok = ok && put_value(t, "fixed", r.has_fixed, "us", r.fixed_us, r.fixed_why);
    ok = ok && put_value(t, "per_layer", r.has_per_layer, "us", r.per_layer_us, r.per_layer_why);
    ok = ok && put_value(t, "base", r.has_base, "us", r.base_us, r.base_why);
    ok = ok && put_value(t, "stream", r.has_stream, "GBs", r.stream_GBs, r.stream_why);
    ok =
        ok && put_value(t, "per_matrix", r.has_per_matrix, "us", r.per_matrix_us, r.per_matrix_why);
    cJSON *pm = cJSON_GetObjectItemCaseSensitive(t, "per_matrix");
    if (ok && r.has_per_matrix)
        ok = rl_json_add_num(pm, "stream_limit_GBs", r.stream_limit_GBs);
    ok = ok && put_value(t, "per_row", r.has_per_row, "ns", r.per_row_ns, r.per_row_why);
    cJSON *pr = cJSON_GetObjectItemCaseSensitive(t, "per_row");
    if (ok && r.has_per_row)
        ok = rl_json_add_num(pr, "stream_limit_GBs", r.row_limit_GBs);
    cJSON *sv = cJSON_GetObjectItemCaseSensitive(t, "stream");
    if (ok && r.has_stream)
        ok = rl_json_add_bool(sv, "fixed_subtracted", r.fixed_subtracted);
    cJSON *fx = cJSON_GetObjectItemCaseSensitive(t, "fixed");
    if (ok && r.has_fixed)
        ok = rl_json_add_num(fx, "n_layer", RL_CAL_N_LAYER);
    return ok;
}

int rl_cal_type_passes(const cJSON *t, const rl_cal_shape shapes[RL_CAL_N_ROLES])
{
    bool seen[RL_CAL_N_ROLES] = {false};
    int fewest = RL_CAL_MAX_PASSES;
    const cJSON *p;
    cJSON_ArrayForEach(p, rl_json_get(t, "points"))
    {
        int role = rl_cal_role_by_name(rl_json_get_str(p, "role"));
        rl_cal_shape s;
        double tok_s;
        if (role < 0 || !shape_from(rl_json_get(rl_json_get(p, "model"), "shape"), &s) ||
            memcmp(&s, &shapes[role], sizeof s) != 0 ||
            !rl_cal_run_rate(rl_json_get(p, "run"), &tok_s))
            return 0;
        seen[role] = true;
        int n = rl_cal_point_runs(p);
        fewest = n < fewest ? n : fewest;
    }
    for (int r = 0; r < RL_CAL_N_ROLES; r++)
        if (!seen[r])
            return 0;
    return fewest;
}

cJSON *rl_cal_point_of(const cJSON *t, int role)
{
    cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
    {
        if (rl_cal_role_by_name(rl_json_get_str(p, "role")) == role)
            return p;
    }
    return NULL;
}

/* ---- passes ------------------------------------------------------------------------------- */

int rl_cal_point_runs(const cJSON *point)
{
    int n = 1;
    const cJSON *r;
    cJSON_ArrayForEach(r, rl_json_get(point, "other_runs"))
    {
        const char *st = rl_json_get_str(r, "status");
        n += st && strcmp(st, "running") != 0 && strcmp(st, "interrupted") != 0;
    }
    return n;
}

cJSON *rl_cal_point_add_run(cJSON *point, int pass, int threads)
{
    cJSON *others = cJSON_GetObjectItemCaseSensitive(point, "other_runs");
    if (!others && !(others = cJSON_AddArrayToObject(point, "other_runs")))
        return NULL;
    cJSON *run = cJSON_CreateObject();
    bool ok = run && rl_json_add_num(run, "threads", threads) && rl_json_add_num(run, "depth", 0);
    ok = ok && rl_json_add_num(run, "pass", pass);
    if (!ok || !rl_json_push(others, run)) {
        cJSON_Delete(run);
        return NULL;
    }
    return run;
}

bool rl_cal_run_faster(const cJSON *a, const cJSON *b)
{
    double ra, rb;
    if (!rl_cal_run_rate(a, &ra))
        return false;
    return !rl_cal_run_rate(b, &rb) || ra > rb * (1 + RL_CAL_TIE);
}

bool rl_cal_point_choose(cJSON *point)
{
    cJSON *used = cJSON_GetObjectItemCaseSensitive(point, "run");
    cJSON *others = cJSON_GetObjectItemCaseSensitive(point, "other_runs"), *best = used, *r;
    cJSON_ArrayForEach(r, others)
    {
        if (rl_cal_run_faster(r, best))
            best = r;
    }
    if (!used || best == used)
        return true;
    /* swapped as copies: cJSON's replace frees what it replaces */
    cJSON *to_run = cJSON_Duplicate(best, 1), *to_others = cJSON_Duplicate(used, 1);
    if (!to_run || !to_others) {
        cJSON_Delete(to_run);
        cJSON_Delete(to_others);
        return false;
    }
    if (!cJSON_ReplaceItemInObjectCaseSensitive(point, "run", to_run)) {
        cJSON_Delete(to_run);
        cJSON_Delete(to_others);
        return false;
    }
    cJSON_ReplaceItemViaPointer(others, best, to_others);
    return true;
}

int rl_cal_point_n_gen(const cJSON *point)
{
    const cJSON *recs = rl_json_get(rl_json_get(point, "run"), "records");
    double n = 0;
    if (!rl_json_get_num(cJSON_GetArrayItem(recs, 0), "n_gen", &n) || !(n >= 1) || n > 1e6)
        return 0;
    return (int)n;
}

cJSON *rl_cal_set_type(const cJSON *set, const char *type_name)
{
    cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(set, "types"))
    {
        const char *n = rl_json_get_str(t, "type");
        if (n && type_name && strcmp(n, type_name) == 0)
            return t;
    }
    return NULL;
}

/* ---- the cache ---------------------------------------------------------------------------- */

char *rl_cal_cache_path(const char *root, const rl_cal_key *k, int threads)
{
    return rl_asprintf("%s/calibration/%s-t%d.json", root, k->id, threads);
}

rl_status rl_cal_cache_load(const char *root, const rl_cal_key *k, int threads, cJSON **set,
                            char *note, size_t note_cap, rl_error *err)
{
    *set = NULL;
    if (note && note_cap)
        note[0] = '\0';
    char *path = rl_cal_cache_path(root, k, threads);
    if (!path)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    cJSON *doc = NULL;
    rl_error e;
    if (access(path, F_OK) != 0) {
        free(path);
        return RL_OK;
    }
    const char *why = NULL;
    if (rl_json_read_file(path, RL_BUNDLE_MAX_BYTES, &doc, &e) != RL_OK)
        why = e.msg;
    else if (!str_is(doc, "schema", RL_CAL_SCHEMA))
        why = "not a calibration file";
    else if (rl_json_num_or(doc, "schema_version", 0) != RL_CAL_SCHEMA_VERSION)
        why = "another version of the calibration file";
    else if (!rl_cal_key_matches(rl_json_get(doc, "key"), k))
        why = "a calibration of another CPU or llama.cpp build";
    else if (rl_json_num_or(rl_json_get(doc, "set"), "threads", 0) != threads)
        why = "a calibration at another thread count";
    if (why && note)
        rl_snprintf(note, note_cap, "ignoring %s: %s", path, why);
    if (!why) {
        *set = cJSON_DetachItemFromObjectCaseSensitive(doc, "set");
        if (!*set)
            why = "no set";
    }
    cJSON_Delete(doc);
    free(path);
    return RL_OK;
}

rl_status rl_cal_cache_store(const char *root, const rl_cal_key *k, const cJSON *method,
                             const cJSON *set, rl_error *err)
{
    double threads = rl_json_num_or(set, "threads", 0);
    char *dir = rl_asprintf("%s/calibration", root);
    char *path = rl_cal_cache_path(root, k, (int)threads);
    char utc[32];
    rl_bundle_utc_now(utc, sizeof utc);
    cJSON *doc = cJSON_CreateObject(), *tool = NULL;
    bool ok = dir && path && doc && rl_json_add_str(doc, "schema", RL_CAL_SCHEMA);
    ok = ok && rl_json_add_num(doc, "schema_version", RL_CAL_SCHEMA_VERSION);
    ok = ok && (tool = cJSON_AddObjectToObject(doc, "tool")) != NULL;
    ok = ok && rl_json_add_str(tool, "name", "llama-roofline") &&
         rl_json_add_str(tool, "version", RL_VERSION);
    ok = ok && rl_json_add_str(doc, "updated_utc", utc);
    ok = ok && rl_json_attach(doc, "key", rl_cal_key_json(k));
    ok = ok && rl_json_attach(doc, "method", cJSON_Duplicate(method, 1));
    ok = ok && rl_json_attach(doc, "set", cJSON_Duplicate(set, 1));
    rl_status st = ok ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    if (st == RL_OK)
        st = rl_mkdir_p(dir, "set LLAMA_ROOFLINE_CACHE to a writable directory", err);
    if (st == RL_OK)
        st = rl_json_write_file(path, doc, err);
    cJSON_Delete(doc);
    free(dir);
    free(path);
    return st;
}
