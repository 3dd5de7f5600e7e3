/* SPDX-License-Identifier: MIT */
/* predict.h: what decode rate a model would reach on a measured machine, before running it.
 *
 * The method (seed 000): decode tok/s = BW_eff / bytes_per_token. BW_eff is the bundle's fit
 * (analysis.fit.bw_bytes_s, over each fitted model at its own best thread count); the bytes
 * are the model's, counted by the convention that fit used (analysis.fit.bytes_convention):
 *   streamed: the tensors decode reads per token (gguf_model.h streamed_bytes: repeating
 *             layers, final norm, output head, the embedding only when tied, MoE experts
 *             scaled by expert_used_count / expert_count);
 *   resident: llama-bench's model_size, i.e. the sum of the tensor sizes (tensor_bytes); for
 *             a fit whose resident bytes were file sizes (an imported bundle) the file size.
 * At context depth d the KV cache read per token is added (as analysis.c's long-context
 * bytes-only prediction): bytes(d) = W + d * kv_bytes_per_token (f16 K and V).
 *
 * Depth fit: when the bundle's analysis holds depth fits (analysis.depth_fits, from models
 * measured at two or more depths: analyse/depth_fit.h), each depth > 0 is also predicted from
 * the measured growth of per-token time: the median time a KV byte adds per token over those
 * models, times this model's KV bytes at that depth, added to its depth-0 time. That counts
 * attention's compute as well as its bytes, so it is the rate to read; the bytes-only rate is
 * kept beside it.
 *
 * Interval: [BW_lo / bytes, BW_hi / bytes], BW_lo and BW_hi the smallest and largest
 * effective bandwidth among the fitted models themselves (their decode_bw_GBs: measured
 * decode x bytes). The spread of the machine's own models around the line is the spread a
 * new model can be expected in; it is not a statistical confidence interval.
 *
 * Same format first: where decode is not purely memory-bound (few cores), each format's
 * kernel sets its own effective bandwidth (measured on a 2-vCPU EPYC VM at 2 threads:
 * Q4_0 24-30 GB/s, Q8_0 25-30, F16 31-43, Q4_1 15-19, Q4_K_M 19-22; each quantized format at
 * the same rate at 0.5B and 1.5B: the rate follows the format more than the size). So when
 * fitted models share the predicted model's label, BW is the through-origin fit over those
 * models alone (sum bw_i/b_i^2 / sum 1/b_i^2, i.e. the same least squares as the fit,
 * restricted), its interval their own smallest and largest effective bandwidth (one model:
 * the all-model interval scaled to its rate). Any other model gets the all-model fit and the
 * other_format caveat. rl_pred_rate_for decides.
 *
 * Leave-one-out: a measured model of the fit is checked against the rate it would have been
 * predicted at without itself (rl_pred_rate_without): the same rule over the other fitted
 * models only. Its format's others (two or more: their fit and their own smallest and largest
 * bandwidth; one: its bandwidth, the interval of all the others scaled to it), or, when it is
 * its format's only one, the through-origin fit over all the others (the bundle's fit with
 * the model taken out) and their smallest and largest bandwidth. Nothing of the model itself
 * is in its rate or its interval, so its measured rate can fall outside.
 *
 * Every prediction is kind "derived" and carries the caveats that apply:
 *   compute_bound     the bundle's verdict is compute-bound or not bandwidth-limited
 *   below_fit_range   fewer bytes than the smallest fitted model (small models are often
 *                     limited by the cores or per-token overheads: an upper bound)
 *   above_fit_range   more bytes than the largest fitted model (extrapolated)
 *   moe               a mixture of experts (active-expert bytes, routing varies; or, with the
 *                     resident convention, every expert counted: a lower bound)
 *   threads           --threads other than the fitted models' best thread counts
 *   loose_fit         the fit's R^2 is below 0.90 over 3 or more models
 *   depth_bytes_only  depths > 0: attention compute is not counted, decode falls faster
 *   kv_unknown        depths > 0 asked but the model's KV size is unknown
 *   other_format      the model's label is none of the fitted models' labels (formats cost
 *                     different compute per byte: K-quants more than Q4_0, Q8_0 or F16)
 *
 * Models: a local GGUF path, a URL, or "synth:PRESET:TYPE" (model/model_spec.h).
 *
 * Default bundle: `diagnose` records the absolute path of each bundle it writes
 * (bundle/bundle_last.h); predict without --bundle reads it. Model specs are read by
 * model/model_spec.h; the text and Markdown of a prediction are render/predict_text.h.
 *
 * Files: predict_rate.c (the arithmetic and the fit, no I/O), predict.c (one prediction and its
 * caveats), predict_json.c (JSON), predict_bundle.c (diagnose --predict).
 *
 * Ownership: rl_pred_fit is plain data (no pointers). rl_prediction owns its strings (free
 * with rl_prediction_free, safe on a zeroed one). JSON builders return trees the caller
 * frees (cJSON_Delete); NULL when out of memory. */
#ifndef RL_PREDICT_H
#define RL_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "analyse/analysis.h"
#include "analyse/roofs.h"
#include "model/gguf_model.h"
#include "base/rl_error.h"

#define RL_PRED_MAX_DEPTHS 16
#define RL_PRED_MAX_DEPTH 16777216 /* tokens */
#define RL_PRED_MAX_THREADS 64     /* distinct thread counts kept from the fit */
#define RL_PRED_MAX_CAVEATS 12
#define RL_PRED_MAX_MODELS 64
#define RL_PRED_MAX_FORMATS 16
#define RL_PRED_MAX_FITTED 1024 /* fitted models kept one by one (RL_IMPORT_MAX_MODELS) */
#define RL_PRED_LOOSE_R2 RL_AN_LOOSE_FIT_R2
#define RL_PRED_INTERVAL "the smallest and largest effective bandwidth of the fitted models"

/* One fitted model, as folded in by rl_pred_fit_add: the per-format and leave-one-out rates
 * are computed from these. */
typedef struct {
    double bytes; /* bytes per token */
    double bw;    /* effective bandwidth, bytes/s */
    int format;   /* index in rl_pred_fit.formats; -1: no label, or past RL_PRED_MAX_FORMATS */
} rl_pred_fitted;

/* A GGUF label of the fitted models (its models: those of rl_pred_fit.fitted[] naming it). */
typedef struct {
    char label[32];
    size_t n; /* its fitted models */
} rl_pred_format;

typedef struct {
    double bw_bytes_s;                   /* the fit's slope */
    double bw_lo_bytes_s, bw_hi_bytes_s; /* the fitted models' own effective bandwidths */
    size_t n_points;
    bool has_r2;
    double r2;
    rl_an_bytes_convention conv;
    bool resident_is_file;            /* the resident bytes were file sizes */
    double min_bytes, max_bytes;      /* bytes per token of the fitted models */
    int threads[RL_PRED_MAX_THREADS]; /* the fitted models' operating thread counts, sorted */
    size_t n_threads;
    char verdict[48]; /* analysis.verdict.label, "" when unavailable */
    char labels[128]; /* the fitted models' GGUF labels, ", "-separated ("" when unknown) */
    rl_pred_format formats[RL_PRED_MAX_FORMATS];
    size_t n_formats;
    rl_pred_fitted fitted[RL_PRED_MAX_FITTED]; /* past RL_PRED_MAX_FITTED: in the fit only */
    size_t n_fitted;
    /* analysis.depth_fits: the median time one KV byte adds per token over the models whose
     * depth runs gave one (analyse/depth_fit.h) */
    bool has_depth_cost;
    double us_per_kv_byte;
    size_t n_depth_models;
    /* calibration.sets[]: the set at the fitted models' thread count (predict_roofs.c) */
    bool has_roofs;
    int roof_threads;
    char roof_why[160]; /* when !has_roofs */
    rl_roof_type roof_types[RL_ROOF_MAX_TYPES];
    size_t n_roof_types;
    double ceiling_GBs; /* analysis.ceiling.GBs, for the two-roof verdict; 0: unknown */
} rl_pred_fit;

/* The bandwidth one prediction divides by. */
typedef struct {
    double bw, lo, hi;  /* bytes/s */
    const char *source; /* static: "format" (fitted models of its label) or "fit" (all) */
    size_t n_models;    /* fitted models behind bw */
} rl_pred_rate;

typedef struct {
    const char *code; /* static */
    char *text;
} rl_pred_caveat;

typedef struct {
    uint64_t depth;
    bool available; /* false: the KV size is unknown (depth > 0) */
    uint64_t bytes_per_token;
    double tok_s, tok_s_low, tok_s_high;
    /* depth > 0 with the bundle's depth cost and the model's KV size: 1e6 / (tau0 + depth x
     * kv_bytes_per_token x us_per_kv_byte), tau0 = 1e6 / the depth-0 rate (rl_pred_depth_tok_s) */
    bool has_depth_fit;
    double depth_fit_tok_s;
} rl_pred_point;

typedef struct {
    char *model;           /* as given */
    char name[160];        /* general.name or the file's base name, then the label */
    char label[32];        /* "Q8_0", "" if none */
    const char *bytes_key; /* static: "streamed_bytes", "tensor_bytes" or "file_bytes" */
    uint64_t weights_bytes;
    uint64_t kv_bytes_per_token; /* 0: unknown */
    bool is_moe;
    rl_an_bytes_convention conv;
    rl_pred_rate rate;
    rl_pred_point points[RL_PRED_MAX_DEPTHS];
    size_t n_points;
    rl_pred_caveat caveats[RL_PRED_MAX_CAVEATS];
    size_t n_caveats;
    rl_roof_result roof;    /* depth 0 from the calibration (analyse/roofs.h); roof.why if not */
    int roof_threads;       /* the calibration's thread count */
    char roof_verdict[160]; /* rl_roof_verdict of roof against the fit's ceiling */
} rl_prediction;

/* ---- the arithmetic (unit-tested with hand-computed values) ------------------------- */

/* bw_bytes_s / bytes_per_token; NAN unless both are finite and > 0. */
double rl_pred_tok_s(double bw_bytes_s, double bytes_per_token);
/* The rate at depth from the depth-0 rate tok_s0 and the time a KV byte adds per token:
 * 1e6 / (1e6 / tok_s0 + depth x kv_per_token x us_per_kv_byte); NAN unless tok_s0 > 0 and
 * the rest finite and >= 0. */
double rl_pred_depth_tok_s(double tok_s0, double depth, double kv_per_token, double us_per_kv_byte);
/* weights + depth * kv_per_token; false on 64-bit overflow. */
bool rl_pred_bytes_at_depth(uint64_t weights, uint64_t kv_per_token, uint64_t depth, uint64_t *out);

/* ---- the fit of a bundle ------------------------------------------------------------ */

/* The rate for a model of GGUF label `label` ("" or NULL: unknown): the fitted models of that
 * label when there are any, else the all-model fit (see the method above). */
void rl_pred_rate_for(const rl_pred_fit *f, const char *label, rl_pred_rate *r);
/* The rate a measured model of the fit would have been predicted at without itself (the
 * leave-one-out rule above): label, bytes and bw (bytes/s) are the model's own, exactly as
 * folded in by rl_pred_fit_add. Every number of r comes from the other fitted models only;
 * source "fit" is the fit over all the others (n_models of them); no other fitted model: bw,
 * lo and hi NAN. A model that is not one of f's fitted models (of that label) is not taken
 * out: r is rl_pred_rate_for's. The report's measured rows use it, so their
 * measured-vs-predicted column is never a model predicting itself. */
void rl_pred_rate_without(const rl_pred_fit *f, const char *label, double bytes, double bw,
                          rl_pred_rate *r);
/* Fold one fitted model (label, "" or NULL when unknown; bytes per token; effective
 * bandwidth in bytes/s) into f->fitted and its label's format; labels past
 * RL_PRED_MAX_FORMATS are left to the all-model fit. Bytes or bw not finite and > 0: ignored. */
void rl_pred_fit_add(rl_pred_fit *f, const char *label, double bytes, double bw);

/* The fit, its interval, convention, thread counts and verdict from a bundle's analysis.
 * RL_EINPUT naming the bundle when it has no fit (with the reason the bundle gives). */
rl_status rl_pred_fit_from_bundle(const cJSON *b, const char *name, rl_pred_fit *f, rl_error *err);

/* The two-roof model's inputs (predict_roofs.c): the bundle's calibration set at the thread
 * count of the fitted models (the first of f->threads with a set; a bundle with one set uses it
 * whatever its threads) into f->roof_types, or f->roof_why. */
void rl_pred_roofs_from_bundle(const cJSON *b, rl_pred_fit *f);
/* predict -t N: the calibration set at exactly threads instead, when the bundle has one (else
 * f is left as it is: the threads caveat says the fit ran at others). */
void rl_pred_roofs_at(const cJSON *b, rl_pred_fit *f, int threads);
/* m's streamed bytes by ggml type (an untied embedding left out; MoE: scaled to
 * streamed_bytes) through rl_roof_predict into r; r->why says why not. */
void rl_pred_roofs_for(const rl_pred_fit *f, const rl_gguf_model *m, rl_roof_result *r);
/* The same from a bundle's models[].gguf object (its types[], embedding_type, embedding_bytes,
 * tied_embeddings, streamed_bytes, n_layer): the report's rows of measured models. */
void rl_pred_roofs_for_json(const rl_pred_fit *f, const cJSON *gguf, rl_roof_result *r);
/* {"available", "kind", "threads", "tok_s", "tau_us", "fixed_us", "kernels_GBs", "binding",
 *  "verdict",
 *  "types": [{"type", "bytes", "us", "GBs", "calibrated"}]} or unavailable; NULL: no memory. */
cJSON *rl_pred_roofs_json(const rl_roof_result *r, int threads, const char *verdict);

/* Whether label is one of list's ", "-separated labels (rl_pred_fit.labels). */
bool rl_pred_label_listed(const char *list, const char *label);
/* The fitted models' thread counts as "2, 4" (empty when none) in buf. */
void rl_pred_threads_list(const rl_pred_fit *f, char *buf, size_t cap);

/* ---- models and predictions -------------------------------------------------------- */

/* Predict m (given as spec) at the depths (n_depths >= 1; 0 = short context). threads: the
 * thread count the user will run at, 0 when not said. */
rl_status rl_predict(const rl_pred_fit *f, const rl_gguf_model *m, const char *spec,
                     const uint64_t *depths, size_t n_depths, int threads, rl_prediction *p,
                     rl_error *err);
void rl_prediction_free(rl_prediction *p);

/* {"kind": "derived", "bw_GBs", "bw_low_GBs", "bw_high_GBs", "n_points", "r2",
 *  "bytes_convention", "threads", "verdict", "interval"} */
cJSON *rl_pred_fit_to_json(const rl_pred_fit *f);
/* {"kind": "derived", "model", "name", "label", "bytes_convention", "weights_bytes",
 *  "kv_bytes_per_token", "is_moe", "rate": {"source": "format" | "fit", "n_models",
 *  "bw_GBs", "bw_low_GBs", "bw_high_GBs"}, "points": [{"depth", "bytes_per_token", "tok_s",
 *  "tok_s_low", "tok_s_high"} or {"depth", "available": false, "reason"}], "caveats":
 *  [{"code", "text"}]} */
cJSON *rl_prediction_to_json(const rl_prediction *p);

/* diagnose --predict: check each spec loads (before anything is measured). */
rl_status rl_pred_check_models(const char *const *specs, size_t n, rl_error *err);
/* diagnose --predict: bundle.predictions = {"kind": "derived", "fit", "models": [...]} at
 * depth 0 from the bundle's own fit, or {"available": false, "reason"} without a fit. */
rl_status rl_pred_bundle_add(cJSON *bundle, const char *const *specs, size_t n, rl_error *err);

/* diagnose, once its sweep returned st with a bundle: with specs, add the predictions and
 * rewrite out_dir/bundle.json (only when st is RL_OK); then record the bundle as the last one
 * (a failure there is a note on stderr). Returns st, or the predictions' failure. */
rl_status rl_pred_after_diagnose(cJSON *bundle, const char *out_dir, const char *const *specs,
                                 size_t n, rl_status st, rl_error *err);

#endif
