/* SPDX-License-Identifier: MIT */
/* analysis.h: the decode roofline analysis, plain structs in and plain structs out.
 *
 * Pure arithmetic on numbers llama-bench already produced: no I/O, no timing, nothing run.
 *
 * Memory: the input is borrowed and only read during rl_an_analyze. The result owns copies of
 * every string and array it holds (model ids and names, warnings, long-context rows) and must
 * be released with rl_an_free, which also leaves it zeroed. rl_an_to_json builds a new cJSON
 * tree that the caller owns (cJSON_Delete). Nothing is rounded in the structs, and JSON
 * numbers are full doubles written by cJSON (locale-independent).
 *
 * Rules (the method: decode tok/s = BW_eff / bytes_per_token):
 *   Short context is depth 0. A model's operating point is its best depth-0 decode rate over
 *   the thread counts measured ("each model at its own best thread count"); ties go to the
 *   fewer threads. Models with no depth-0 decode are reported but not analysed (ok = false).
 *   Thread knee: the smallest thread count whose depth-0 decode is within RL_AN_KNEE_TOL
 *   (2%) of the best. Loss at max threads: 100 * (1 - decode(max threads) / best), only when
 *   the highest thread count is not the best. decode_bw_GBs = decode * bytes_per_token / 1e9.
 *   Prefill: best depth-0 prefill and its thread count; scaling = best / prefill at the fewest
 *   threads that measured prefill, when those are different thread counts.
 *   Fit (fit.h): over the operating points of dense models (MoE excluded with a warning that
 *   names them; if every model is MoE all are fitted and a warning says so). Needs >= 2
 *   points: with one there is no line and a warning says so. R^2 < RL_AN_LOOSE_FIT_R2 with
 *   >= 3 points: a loose-fit warning listing the usual causes.
 *   Utilisation: 100 * decode_bw_GBs / ceiling, per model, never clamped. Not applied to a
 *   model with GPU offload (n_gpu_layers != 0 and a GPU backend: those layers stream from
 *   VRAM) nor without a ceiling; each then carries its reason. Above 100% for any model: a
 *   warning that the ceiling is a measured lower bound, so the percentages are lower bounds.
 *   Median/min/max over the dense models without offload (all MoE: over those, as for the
 *   fit).
 *   Verdict from the median utilisation: >= RL_AN_MEMORY_BOUND_PCT (70) "memory-bound",
 *   >= RL_AN_PARTLY_PCT (40) "partly memory-bound", else "not bandwidth-limited"; then the
 *   compute-bound rule below may replace it. No ceiling, or no eligible model: unavailable.
 *   Global knee: the most common knee among ok models with >= 2 thread settings (ties: the
 *   smaller). Prefill scaling: median and range of the per-model scalings.
 *   Long context: for each model, each depth > 0 measured at the operating thread count (or,
 *   when no depth run used it, at the one thread count all its depth runs share): the rate,
 *   its percentage of the depth-0 rate at the same threads, and the bytes-only prediction
 *   100 * W / (W + depth * kv_bytes_per_token), W = bytes_per_token (unavailable when the KV
 *   size is unknown). Depth runs at several thread counts, none the operating one: skipped
 *   with a warning. That per-row percentage is the only prediction made here: predicting a
 *   model's decode rate from a bundle's fit is predict.h's (analyse/predict*.c).
 *
 * Compute-bound rule. Memory-bound decode stops speeding up once a few cores saturate the
 * memory system; decode that is still gaining from the last threads added is limited by the
 * cores, not by bandwidth. A small VM (2 cores reading 20-25 GB/s through llama.cpp against a
 * measured 36-60 GB/s ceiling, 33-69%) is the case this rule exists for: there the verdict
 * from the median alone ("partly memory-bound") would be false. Over the models with a
 * utilisation that count for the median (dense, no offload), the verdict becomes
 * "compute-bound" when the median utilisation is below RL_AN_MEMORY_BOUND_PCT and
 *   (a) decode still gains: for a strict majority of those measured at >= 2 thread counts,
 *       the decode rate at the highest thread count is at least RL_AN_TOP_GAIN_PCT (10%)
 *       above the rate at the next lower thread count (10% is well above llama-bench's
 *       run-to-run noise of a few percent, and a saturated memory system gains ~0%); or
 *   (b) the median utilisation is below RL_AN_PARTLY_PCT (40) and prefill scales with threads:
 *       the median prefill scaling efficiency, scaling / (high threads / low threads), is at
 *       least RL_AN_PREFILL_EFF_MIN (0.6), i.e. the cores add throughput when work is
 *       compute-heavy while decode sits far below the ceiling.
 * Evidence (a) is the direct one; (b) alone is weaker (prefill is compute-bound everywhere)
 * and is only used where the bandwidth reading is already low. */
#ifndef RL_ANALYSIS_H
#define RL_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/fit.h"
#include "analyse/depth_fit.h"
#include "base/rl_error.h"
#include "base/stats.h"

#define RL_AN_KNEE_TOL 0.02         /* knee: within 2% of the best decode */
#define RL_AN_MEMORY_BOUND_PCT 70.0 /* median utilisation for "memory-bound" */
#define RL_AN_PARTLY_PCT 40.0       /* ... for "partly memory-bound" */
#define RL_AN_LOOSE_FIT_R2 0.90     /* below this with >= 3 points: loose fit */
#define RL_AN_LOOSE_FIT_MIN_POINTS 3
#define RL_AN_TOP_GAIN_PCT 10.0   /* decode still gaining at the top of the sweep */
#define RL_AN_PREFILL_EFF_MIN 0.6 /* prefill "scales with threads" */
#define RL_AN_OPERATING_POINT "each model at its own best thread count"

/* Noise rules (analysis_quiet.c), the one place these thresholds live (docs/BUNDLE.md and the
 * legend quote them). Per model, over the repetitions of its operating-point decode rate:
 *   CV (sd / mean) above RL_AN_NOISY_CV_PCT percent: warning "noisy" (llama-bench's
 *   run-to-run noise on a quiet machine is a few percent, well under 5%).
 *   Outliers by hyperfine's rule (src/outlier_detection.rs, after Iglewicz and Hoaglin): the
 *   modified Z-score (x - median) / MAD, MAD the median absolute deviation (a MAD of 0 counts
 *   as DBL_EPSILON), and a sample is an outlier when |score| > 1.4826 * 10, i.e. about ten
 *   standard deviations: warning "outliers". Needs RL_AN_NOISE_MIN_N samples. */
#define RL_AN_NOISY_CV_PCT 5.0
#define RL_AN_OUTLIER_SCORE (1.4826 * 10.0)
#define RL_AN_NOISE_MIN_N 2

/* Disturbance (analysis_quiet.c): each measurement's "machine" object says whether it was
 * disturbed (other processes used more than limits.other_cpu_pct of the CPUs, or steal above
 * limits.steal_pct: the measuring stage decides and records). Any disturbed measurement:
 * warning "disturbed", analysis.disturbance says what was seen, and the verdict is stated as
 * provisional ("Decode looks memory-bound, but ..."). No machine state recorded: disturbance
 * unavailable, never guessed. */
typedef enum {
    RL_AN_MEAS_LLAMA_BENCH = 0, /* one llama-bench invocation (models[].runs[]) */
    RL_AN_MEAS_MEMBW,           /* one membw run (membw.runs[]) */
    RL_AN_MEAS_CLIENT,          /* one client operating point (client.points[]) */
    RL_AN_MEAS_KINDS
} rl_an_meas_kind;

typedef struct {
    rl_an_meas_kind kind;
    bool disturbed;
    double other_cpu_pct; /* NAN when unreadable */
    double steal_pct;     /* NAN when unreadable */
    const char *why;      /* the measurer's reason, may be NULL */
} rl_an_machine;

typedef struct {
    bool available;     /* machine state was recorded for at least one measurement */
    const char *reason; /* static, when !available */
    bool disturbed;
    size_t n, n_disturbed;
    size_t n_kind[RL_AN_MEAS_KINDS], n_kind_disturbed[RL_AN_MEAS_KINDS];
    /* of the disturbed: other processes over their limit (this machine's load, which closing
     * programs cures) and steal over its limit (the host's, which nothing here cures) */
    size_t n_other_processes, n_steal;
    double other_cpu_pct_max, steal_pct_max; /* over the disturbed measurements; NAN unknown */
    char *text;   /* "other processes used 88% of the CPUs during 6 of 6 llama-bench runs" */
    char *advice; /* what to do */
} rl_an_disturbance;

typedef struct {
    bool available; /* >= RL_AN_NOISE_MIN_N samples at the operating point */
    size_t n;
    double cv_pct;   /* NAN when the mean is 0 */
    size_t outliers; /* by RL_AN_OUTLIER_SCORE */
    bool noisy;      /* cv_pct > RL_AN_NOISY_CV_PCT */
} rl_an_noise;

/* The number of samples in x[0..n-1] whose modified Z-score exceeds RL_AN_OUTLIER_SCORE
 * (hyperfine's rule above); 0 when n < 1; SIZE_MAX when out of memory. */
size_t rl_an_outliers(const double *x, size_t n);

typedef enum {
    RL_AN_CEILING_NONE = 0,   /* no ceiling: utilisation and verdict unavailable */
    RL_AN_CEILING_MEASURED,   /* measured here (membw) */
    RL_AN_CEILING_CONTROLLED, /* supplied by the user (--peak-bw) */
} rl_an_ceiling_source;

typedef struct {
    double GBs; /* 1e9 bytes/s; must be finite and > 0 unless the source is NONE */
    rl_an_ceiling_source source;
    bool unstable; /* the measurement's repetitions disagreed (membw stability rule) */
} rl_an_ceiling;

typedef enum {
    RL_AN_BYTES_RESIDENT = 0, /* llama-bench model_size, else file bytes summed over shards */
    RL_AN_BYTES_STREAMED,     /* tensor bytes decode reads per token */
} rl_an_bytes_convention;

typedef struct {
    double mean;           /* tok/s; 0 = not measured; negative or non-finite: RL_EINPUT */
    const double *samples; /* per-repetition tok/s, may be NULL */
    size_t n;              /* entries in samples (when samples is NULL: ignored) */
} rl_an_rate;

typedef struct {
    unsigned threads; /* >= 1 */
    unsigned depth;   /* tokens already in the KV cache; 0 = short context */
    rl_an_rate decode;
    rl_an_rate prefill;
} rl_an_run;

typedef struct {
    const char *id;   /* non-empty, unique within the input */
    const char *name; /* display name; NULL = the id */
    double bytes_per_token;
    bool is_moe;
    int n_gpu_layers;
    bool gpu_backend;          /* a GPU backend was present in the run */
    double kv_bytes_per_token; /* 0 = unknown */
    const rl_an_run *runs;
    size_t n_runs; /* (threads, depth) pairs must be distinct */
} rl_an_model;

typedef struct {
    rl_an_ceiling ceiling;
    rl_an_bytes_convention bytes;
    const rl_an_model *models;
    size_t n_models;
    const rl_an_machine *machine; /* one per measurement with machine state; may be NULL */
    size_t n_machine;
    double limit_other_cpu_pct, limit_steal_pct; /* the measurer's limits; 0 = not recorded */
} rl_an_input;

typedef struct {
    char *id;
    char *name;
    double bytes_per_token;
    bool is_moe;
    bool gpu_offload;
    bool ok; /* has a depth-0 decode: everything below is meaningful only then */

    double decode_ts; /* operating point */
    unsigned decode_threads;
    rl_stats_summary decode_stats; /* over that run's samples (n = 0 when none given) */
    double decode_bw_GBs;
    size_t n_thread_settings; /* depth-0 thread counts with a decode */
    unsigned knee_threads;
    unsigned max_threads;
    bool has_loss_at_max;
    double loss_at_max_pct;
    bool has_top_gain; /* >= 2 thread settings */
    double top_gain_pct;
    unsigned top_gain_from_threads;

    bool has_prefill;
    double prefill_ts;
    unsigned prefill_threads;
    bool has_prefill_scaling;
    double prefill_scaling;
    unsigned prefill_scaling_lo_threads;
    double prefill_efficiency; /* scaling / (prefill_threads / lo threads) */

    bool in_fit;
    double fit_residual_ts; /* tok/s above (+) or below (-) the fitted line */

    bool has_util;
    double util_pct;
    const char *util_reason; /* static text when !has_util */

    rl_an_noise noise; /* of the operating-point decode samples */
} rl_an_model_summary;

typedef struct {
    size_t model; /* index into rl_an_result.models */
    unsigned threads;
    unsigned depth;
    double decode_ts;
    bool has_pct_of_empty;
    double pct_of_empty;
    double empty_ts; /* the depth-0 rate at the same threads, when has_pct_of_empty */
    bool has_prediction;
    double predicted_pct;
    double kv_bytes; /* depth * kv_bytes_per_token, when has_prediction */
} rl_an_long_context;

/* A model's per-token time against depth (analyse/depth_fit.h) over its long-context rows
 * and its depth-0 rate at the same threads; check: the same fit without the deepest depth,
 * predicting it (when three or more depths were measured). */
typedef struct {
    size_t model; /* index into rl_an_result.models */
    unsigned threads;
    rl_depth_fit fit;
    bool has_kv;
    double us_per_kv_byte; /* fit.slope_us / KV bytes per token, when has_kv and fit.ok */
    bool has_check;
    double check_depth, check_from_depth, check_predicted_ts, check_measured_ts, check_error_pct;
} rl_an_depth_fit;

typedef struct {
    const char *code; /* stable snake_case id, static */
    char *text;       /* one or two plain-ASCII sentences */
    size_t *models;   /* indices into rl_an_result.models */
    size_t n_models;
} rl_an_warning;

typedef enum {
    RL_AN_VERDICT_UNAVAILABLE = 0,
    RL_AN_VERDICT_MEMORY_BOUND,
    RL_AN_VERDICT_PARTLY_MEMORY_BOUND,
    RL_AN_VERDICT_NOT_BANDWIDTH_LIMITED,
    RL_AN_VERDICT_COMPUTE_BOUND,
} rl_an_verdict_kind;

typedef struct {
    rl_an_verdict_kind kind;
    rl_an_verdict_kind from_median; /* the verdict from the median utilisation alone */
    const char *reason;             /* static text when unavailable */
    char *text;                     /* one or two plain-ASCII sentences, when available */
    size_t n_swept;                 /* models with >= 2 thread settings counted by rule (a) */
    size_t n_gaining;               /* ... of which decode still gains at the top */
    bool provisional;               /* measured while disturbed: text says "looks ..., but" */
    bool has_prefill_efficiency;
    double median_prefill_efficiency;
} rl_an_verdict;

typedef struct {
    rl_an_bytes_convention bytes;
    rl_an_ceiling ceiling;
    size_t n_models;
    size_t n_models_ok;
    rl_an_model_summary *models;

    bool has_fit;
    const char *fit_reason; /* static text when !has_fit */
    rl_fit_result fit;
    bool fit_all_moe; /* every model was MoE, so all were fitted */

    bool has_util;
    const char *util_reason; /* static text when !has_util */
    double util_min_pct, util_median_pct, util_max_pct;
    size_t n_util; /* models in the statistics */

    rl_an_verdict verdict;
    rl_an_disturbance disturbance;

    bool has_knee;
    unsigned knee_threads;
    size_t knee_votes, knee_voters;

    bool has_prefill_scaling;
    double prefill_scaling_median, prefill_scaling_min, prefill_scaling_max;
    size_t n_prefill_scaling;

    rl_an_long_context *long_context;
    size_t n_long_context;

    rl_an_depth_fit *depth_fits; /* one per model with long-context rows (analysis_depth.c) */
    size_t n_depth_fits;

    rl_an_warning *warnings;
    size_t n_warnings;
} rl_an_result;

/* Analyse in into out (zeroed first). Every model without a depth-0 decode is kept with
 * ok = false; with none at all the result has n_models_ok = 0 and a "no_decode" warning, and
 * the status is still RL_OK (the caller decides what nothing measured means). RL_EINPUT on a
 * malformed input (message names the model); RL_EINTERNAL when out of memory. On failure out
 * holds nothing to free. */
rl_status rl_an_analyze(const rl_an_input *in, rl_an_result *out, rl_error *err);

/* Release everything the result owns; safe on a zeroed result; leaves it zeroed. */
void rl_an_free(rl_an_result *r);

/* "memory-bound", "partly memory-bound", "not bandwidth-limited", "compute-bound", or
 * "unavailable". */
const char *rl_an_verdict_name(rl_an_verdict_kind k);
/* "resident" or "streamed". */
const char *rl_an_bytes_name(rl_an_bytes_convention b);

/* The result as a new cJSON object in *out (caller owns). Shape: see docs in analysis.c's
 * header; every object with numbers says "kind", anything not computed is
 * {"available": false, "reason": "..."}. RL_EINTERNAL when out of memory. */
rl_status rl_an_to_json(const rl_an_result *r, cJSON **out, rl_error *err);

/* The analysis of a client-only bundle (`client`: no models, no ceiling): the disturbance of
 * its operating points by the rules above and nothing else, as a new object in *out (caller
 * owns): {"kind": "derived", "scope": "client", "disturbance", "provisional", "warnings"}.
 * provisional is true when a point was disturbed (the client's headline numbers then say so),
 * with the warning "disturbed". RL_EINTERNAL when out of memory. */
rl_status rl_an_client_to_json(const rl_an_input *in, cJSON **out, rl_error *err);

#endif
