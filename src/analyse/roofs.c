/* SPDX-License-Identifier: MIT */
/* roofs.c: the decode model with both roofs (roofs.h). */
#include "analyse/roofs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "model/calib_plan.h"

/* ---- a calibrated type ------------------------------------------------------------------ */

static bool derived_num(const cJSON *entry, const char *key, const char *name, double *v)
{
    const cJSON *o = rl_json_get(entry, key);
    bool off = false;
    return o && !(rl_json_get_bool(o, "available", &off) && !off) && rl_json_get_num(o, name, v) &&
           isfinite(*v);
}

/* One point of the entry: its role, bytes, layers and measured time per token. */
typedef struct {
    const char *role;
    double bytes, layers, us;
    double rows; /* its matrices' rows (rl_cal_shape_rows), 0 when its shape is incomplete */
} raw_pt;

static bool role_is(const raw_pt *r, const char *role)
{
    return strcmp(r->role, role) == 0;
}

/* The rows of a calibration model's shape (rl_cal_shape_rows); 0 when a dimension is missing
 * or above 1e7 (a hostile file: the product then stays far inside 64 bits). */
static double rows_of(const cJSON *shape)
{
    static const char *const dims[] = {"n_layer", "n_embd", "n_ff", "n_head_kv", "n_vocab"};
    double v[5];
    for (size_t i = 0; i < 5; i++)
        if (!rl_json_get_num(shape, dims[i], &v[i]) || !(v[i] >= 1) || !(v[i] <= 1e7))
            return 0;
    rl_cal_shape s = {(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2], 0,
                      (uint64_t)v[3], (uint64_t)v[4]};
    return (double)rl_cal_shape_rows(&s);
}

static size_t raw_points(const cJSON *entry, raw_pt *raw, size_t cap)
{
    size_t n = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, rl_json_get(entry, "points"))
    {
        raw_pt r = {rl_json_get_str(p, "role"), 0, 0, 0, 0};
        if (n >= cap || !r.role ||
            !rl_json_get_num(rl_json_get(p, "bytes_per_token"), "value", &r.bytes) ||
            !derived_num(p, "rate", "us_per_token", &r.us) || !(r.bytes > 0) || !(r.us > 0))
            continue;
        const cJSON *sh = rl_json_get(rl_json_get(p, "model"), "shape");
        r.layers = rl_json_num_or(sh, "n_layer", 0);
        r.rows = rows_of(sh);
        raw[n++] = r;
    }
    return n;
}

/* No fixed-cost split from the calibration (its small-mid line failed, e.g. the small model
 * ran faster per byte than the mid one: a cache level between them): the per-layer cost from
 * the mid and deep models, nearly equal bytes at 4 and 16 layers, as the 2 x 2 solution of
 * tau = layers x per_layer + bytes x c with no base (it is folded into the layers). */
static void layers_from_deep(rl_roof_type *t, const raw_pt *raw, size_t n)
{
    const raw_pt *mid = NULL, *deep = NULL;
    for (size_t i = 0; i < n; i++) {
        mid = role_is(&raw[i], "mid") ? &raw[i] : mid;
        deep = role_is(&raw[i], "deep") ? &raw[i] : deep;
    }
    if (!mid || !deep)
        return;
    double det = deep->layers * mid->bytes - mid->layers * deep->bytes;
    double pl = det != 0 ? (deep->us * mid->bytes - mid->us * deep->bytes) / det : -1;
    if (!(pl >= 0) || !isfinite(pl))
        return;
    t->has_layers = true;
    t->base_us = 0;
    t->per_layer_us = pl;
    t->layers_from_deep = true;
}

/* The fixed cost of a model of n_layer layers: base + per layer x n_layer (held at 0 or more),
 * else the 4-layer fixed cost, else 0. */
static double fixed_of(const rl_roof_type *t, double n_layer)
{
    return t->has_layers ? fmax(0, t->base_us + t->per_layer_us * n_layer)
                         : (t->has_fixed ? t->fixed_us : 0);
}

/* The time that is not the bytes' at a calibration point of layers layers: fixed_of its own
 * layers, or (layers unknown) the 4-layer fixed cost. */
static double fixed_at(const rl_roof_type *t, double layers)
{
    return layers > 0 ? fixed_of(t, layers) : (t->has_fixed ? t->fixed_us : 0);
}

static double matrices_of(double layers)
{
    rl_cal_shape s = {.n_layer = layers > 0 ? (uint64_t)layers : 0};
    return (double)rl_cal_shape_matrices(&s);
}

/* The stream and wide points' times beyond the fixed cost, split into a time per byte and one
 * per matrix (rl_cal_matrix_split). */
static void split_matrices(rl_roof_type *t, const raw_pt *raw, size_t n)
{
    const raw_pt *st = NULL, *w = NULL;
    for (size_t i = 0; i < n; i++) {
        st = role_is(&raw[i], "stream") ? &raw[i] : st;
        w = role_is(&raw[i], "wide") ? &raw[i] : w;
    }
    if (!st || !w || !(st->layers > 0) || !(w->layers > 0))
        return;
    double us_st = st->us - fixed_at(t, st->layers), us_w = w->us - fixed_at(t, w->layers);
    t->has_matrix =
        rl_cal_matrix_split(st->bytes, matrices_of(st->layers), us_st, w->bytes,
                            matrices_of(w->layers), us_w, &t->limit_us_per_byte, &t->per_matrix_us);
    t->has_rows = st->rows > 0 && w->rows > 0 &&
                  rl_cal_matrix_split(st->bytes, st->rows, us_st, w->bytes, w->rows, us_w,
                                      &t->row_limit_us_per_byte, &t->per_row_us);
}

bool rl_roof_type_from_json(const cJSON *entry, rl_roof_type *out)
{
    memset(out, 0, sizeof *out);
    const char *name = rl_json_get_str(entry, "type");
    snprintf(out->type, sizeof out->type, "%s", name ? name : "");
    out->has_fixed = derived_num(entry, "fixed", "us", &out->fixed_us) && out->fixed_us >= 0;
    /* the per-layer cost with the fixed cost, even when the base they leave is below 0 (the
     * calibration then says base unavailable: too noisy to tell); fixed_of clamps at 0 */
    double layer;
    out->has_layers = out->has_fixed && derived_num(entry, "per_layer", "us", &layer) && layer >= 0;
    out->per_layer_us = out->has_layers ? layer : 0;
    out->base_us = out->has_layers ? out->fixed_us - RL_CAL_N_LAYER * layer : 0;
    raw_pt raw[8];
    size_t n = raw_points(entry, raw, 8);
    if (!out->has_layers && !out->has_fixed)
        layers_from_deep(out, raw, n);
    for (size_t i = 0; i < n; i++) {
        double f = fixed_at(out, raw[i].layers);
        if (role_is(&raw[i], "deep") || role_is(&raw[i], "wide") || out->n_pts >= RL_ROOF_MAX_PTS ||
            !(raw[i].us > f))
            continue;
        size_t k = out->n_pts++;
        while (k > 0 && out->pts[k - 1].bytes > raw[i].bytes) { /* insertion by bytes */
            out->pts[k] = out->pts[k - 1];
            k--;
        }
        out->pts[k] =
            (rl_roof_pt){raw[i].bytes, (raw[i].us - f) / raw[i].bytes, role_is(&raw[i], "stream")};
    }
    split_matrices(out, raw, n);
    return out->n_pts > 0;
}

/* A point's time per byte: the stream point's for a model of rpb rows per byte when the time
 * per row is known, else of mpb matrices per byte when the time per matrix is, else as
 * measured. */
static double pt_value(const rl_roof_type *t, const rl_roof_pt *p, double mpb, double rpb)
{
    if (p->stream && t->has_rows && rpb >= 0)
        return t->row_limit_us_per_byte + t->per_row_us * rpb;
    return p->stream && t->has_matrix && mpb >= 0 ? t->limit_us_per_byte + t->per_matrix_us * mpb
                                                  : p->us_per_byte;
}

double rl_roof_us_per_byte(const rl_roof_type *t, double w, double mpb, double rpb)
{
    if (t->n_pts == 0 || !(w > 0))
        return NAN;
    const rl_roof_pt *p = t->pts;
    if (w <= p[0].bytes)
        return pt_value(t, &p[0], mpb, rpb);
    for (size_t i = 1; i < t->n_pts; i++)
        if (w <= p[i].bytes) {
            double x = log(w / p[i - 1].bytes) / log(p[i].bytes / p[i - 1].bytes);
            double a = pt_value(t, &p[i - 1], mpb, rpb);
            return a + x * (pt_value(t, &p[i], mpb, rpb) - a);
        }
    return pt_value(t, &p[t->n_pts - 1], mpb, rpb);
}

/* ---- a model ------------------------------------------------------------------------------ */

static double mats_per_byte(const rl_roof_part *p)
{
    return p->matrices >= 0 && p->bytes > 0 ? p->matrices / p->bytes : -1;
}

static double rows_per_byte(const rl_roof_part *p)
{
    return p->rows >= 0 && p->bytes > 0 ? p->rows / p->bytes : -1;
}

static const rl_roof_type *find_type(const rl_roof_type *types, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(types[i].type, name) == 0 && types[i].n_pts > 0)
            return &types[i];
    return NULL;
}

void rl_roof_predict(const rl_roof_type *types, size_t n_types, const rl_roof_part *parts,
                     size_t n_parts, double n_layer, rl_roof_result *out)
{
    memset(out, 0, sizeof *out);
    double w = 0;
    const rl_roof_type *largest = NULL;
    double largest_bytes = 0;
    for (size_t i = 0; i < n_parts; i++) {
        const rl_roof_type *t = find_type(types, n_types, parts[i].type);
        w += parts[i].bytes > 0 ? parts[i].bytes : 0;
        if (t && parts[i].bytes > largest_bytes) {
            largest = t;
            largest_bytes = parts[i].bytes;
        }
    }
    if (n_parts > RL_ROOF_MAX_TYPES || !(w > 0) || !largest) {
        rl_snprintf(out->why, sizeof out->why, "%s",
                    !(w > 0)  ? "the model's bytes per type are unknown"
                    : largest ? "too many types"
                              : "none of the model's types is calibrated");
        return;
    }
    for (size_t i = 0; i < n_parts; i++) {
        if (!(parts[i].bytes > 0))
            continue;
        const rl_roof_type *t = find_type(types, n_types, parts[i].type);
        if (!t && 100.0 * parts[i].bytes / w > RL_ROOF_UNCAL_PCT) {
            rl_snprintf(out->why, sizeof out->why,
                        "%s (%.0f%% of the bytes) is not calibrated at these threads "
                        "(llama-roofline calibrate --types %s)",
                        parts[i].type, 100.0 * parts[i].bytes / w, parts[i].type);
            return;
        }
        const rl_roof_type *use = t ? t : largest;
        rl_roof_share *s = &out->shares[out->n_shares];
        snprintf(s->type, sizeof s->type, "%s", parts[i].type);
        s->bytes = parts[i].bytes;
        s->matrices = parts[i].matrices;
        s->rows = parts[i].rows;
        s->us = parts[i].bytes *
                rl_roof_us_per_byte(use, w, mats_per_byte(&parts[i]), rows_per_byte(&parts[i]));
        s->calibrated = t != NULL;
        out->fixed_us += parts[i].bytes / w * fixed_of(use, n_layer);
        out->tau_us += s->us;
        if (s->us > out->shares[out->binding].us)
            out->binding = out->n_shares;
        out->n_shares++;
    }
    double bytes_us = out->tau_us;
    out->tau_us += out->fixed_us;
    out->ok = out->tau_us > 0 && isfinite(out->tau_us);
    out->tok_s = out->ok ? 1e6 / out->tau_us : 0;
    out->GBs = bytes_us > 0 ? 1e-3 * w / bytes_us : 0;
    if (!out->ok)
        rl_snprintf(out->why, sizeof out->why, "the calibration gives no time per token");
}

/* ---- the verdict -------------------------------------------------------------------------- */

/* The shares in descending time, the first ones covering RL_ROOF_VERDICT_PCT of the weights'
 * time (at most RL_ROOF_VERDICT_MAX); their count. */
static size_t verdict_types(const rl_roof_result *r, size_t idx[RL_ROOF_VERDICT_MAX])
{
    double total = r->tau_us - r->fixed_us, covered = 0;
    bool used[RL_ROOF_MAX_TYPES] = {false};
    size_t n = 0;
    while (n < RL_ROOF_VERDICT_MAX && covered < RL_ROOF_VERDICT_PCT / 100.0 * total) {
        size_t best = r->n_shares;
        for (size_t i = 0; i < r->n_shares; i++)
            if (!used[i] && (best == r->n_shares || r->shares[i].us > r->shares[best].us))
                best = i;
        if (best == r->n_shares)
            break;
        used[best] = true;
        idx[n++] = best;
        covered += r->shares[best].us;
    }
    return n;
}

void rl_roof_verdict(const rl_roof_result *r, double ceiling_GBs, char *buf, size_t cap)
{
    if (!r->ok) {
        rl_snprintf(buf, cap, "no two-roof verdict: %s", r->why[0] ? r->why : "no calibration");
        return;
    }
    if (r->fixed_us > 0.5 * r->tau_us) {
        rl_snprintf(buf, cap,
                    "limited by the fixed per-token cost: %.0f of %.0f us per token, beyond "
                    "the bytes",
                    r->fixed_us, r->tau_us);
        return;
    }
    size_t idx[RL_ROOF_VERDICT_MAX], n = verdict_types(r, idx);
    double bytes = 0, us = 0;
    char names[96] = "";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bytes += r->shares[idx[i]].bytes;
        us += r->shares[idx[i]].us;
        const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
        k += (size_t)rl_snprintf(names + k, sizeof names - k, "%s%s", sep, r->shares[idx[i]].type);
    }
    double gbs = us > 0 ? 1e-3 * bytes / us : 0;
    const char *kern = n == 1 ? "kernel" : "kernels";
    if (!(ceiling_GBs > 0))
        rl_snprintf(buf, cap, "limited by the %s %s: %.1f GB/s (no memory ceiling measured)", names,
                    kern, gbs);
    else if (gbs >= RL_ROOF_MEMORY_FRAC * ceiling_GBs)
        rl_snprintf(buf, cap, "limited by memory: the %s weights stream at %.1f of %.1f GB/s",
                    names, gbs, ceiling_GBs);
    else
        rl_snprintf(buf, cap, "limited by the %s %s: %.1f of %.1f GB/s", names, kern, gbs,
                    ceiling_GBs);
}
