/* SPDX-License-Identifier: MIT */
/* calib.h: the calibration section of a bundle (docs/BUNDLE.md `calibration`) and its cache
 * (owner: calibrate). What each ggml type's kernel does on this machine, from llama-bench runs
 * on the single-type models of model/calib_plan.h:
 *
 *   per-token time tau = 1e6 / decode tok/s (us), the run's mean rate;
 *   small and mid (RL_CAL_N_LAYER layers, cache-resident): the line tau = fixed + bytes x slope
 *     through them (rl_fit_line), so
 *       compute roof = 1e-3 / slope GB/s (bytes per us / 1000), when slope > 0;
 *       fixed        = the intercept, us per token at RL_CAL_N_LAYER layers, when >= 0;
 *   deep (small's width, RL_CAL_DEEP_LAYERS layers, cache-resident):
 *       per_layer    = (tau_deep - bytes_deep x slope - fixed) / (deep layers - layers), us,
 *                      when >= 0 (what a layer costs beyond its bytes: graph and thread sync);
 *       base         = fixed - per_layer x RL_CAL_N_LAYER, when >= 0;
 *   stream (8 x LLC, from DRAM):
 *       stream rate  = 1e-3 x bytes_stream / (tau_stream - fixed) GB/s, the fixed cost taken
 *                      as 0 when it is unavailable (then "fixed_subtracted": false);
 *   wide (stream's bytes at RL_CAL_WIDE_LAYERS layers: a quarter as many matrices, each four
 *     times larger), with stream, each time less the fixed cost at its own layers:
 *       t = bytes / stream limit + matrices x per_matrix, solved for both
 *       (rl_cal_matrix_split): per_matrix us (what each streamed matrix costs beyond its
 *       bytes: the prefetchers and threads starting again) and stream_limit_GBs, when both
 *       are >= 0; per_row the same split by the matrices' rows (rl_cal_shape_rows): ns per
 *       row (each one dot product) and its stream_limit_GBs, the decode model's form
 *       (analyse/roofs.h).
 * Each value is {"kind": "derived", ...} or {"available": false, "reason"} saying which point
 * was missing or why the arithmetic does not hold (a slope <= 0: too noisy to tell).
 *
 * The key a calibration is kept and reused under: the CPU (environment cpu model and its flags
 * line, FNV-1a 64 of "cpu\nflags"), the llama.cpp build (llama-bench --version's commit) and the
 * thread count. The cache: one file per key, CACHE/calibration/<hash>-t<threads>.json, holding
 * the key, the method and one set (every type measured under it, each with its points and runs);
 * a later calibration under the same key reuses a type whose points have the planned shapes and
 * whose runs all succeeded, and adds what it measures.
 *
 * Ownership: every function returning cJSON returns a new tree the caller owns (NULL when out
 * of memory); the others work on the caller's trees. */
#ifndef RL_CALIB_H
#define RL_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/fit.h"
#include "base/rl_error.h"
#include "model/calib_plan.h"

#define RL_CAL_SCHEMA "llama-roofline-calibration"
#define RL_CAL_SCHEMA_VERSION 1
#define RL_CAL_MAX_POINTS RL_CAL_N_ROLES

/* ---- the arithmetic ----------------------------------------------------------------------- */

typedef struct {
    int role;          /* rl_cal_role */
    double bytes;      /* streamed per token */
    double n_layer;    /* layers of its model */
    double n_matrices; /* matrices of its model (rl_cal_shape_matrices; 0 when unknown) */
    double n_rows;     /* their rows (rl_cal_shape_rows; 0 when unknown) */
    double tok_s;      /* the run's mean decode rate */
    bool ok;           /* the run succeeded with a decode rate > 0 */
} rl_cal_pt;

typedef struct {
    bool has_fit;
    rl_line_fit fit; /* tau (us) against bytes over the cache-resident points */
    bool has_compute, has_fixed, has_per_layer, has_base, has_stream, fixed_subtracted;
    bool has_per_matrix, has_per_row;
    double compute_GBs, fixed_us, per_layer_us, base_us, stream_GBs;
    double per_matrix_us, stream_limit_GBs;
    double per_row_ns, row_limit_GBs; /* the same split by rows (the decode model's form) */
    char compute_why[200], fixed_why[200], per_layer_why[200], base_why[200], stream_why[200];
    char per_matrix_why[240], per_row_why[240];
} rl_cal_result;

/* The type's values from its points (any order, at most one per role; others ignored). */
void rl_cal_derive(const rl_cal_pt *pts, size_t n, rl_cal_result *out);

/* Tokens for a run of bytes per token, so that its reps repetitions generate for about run_s
 * seconds at us_per_byte (the previous point's time per token over its bytes; <= 0: unknown),
 * between RL_CAL_MIN_N_GEN and n_gen (n_gen when unknown, or when n_gen is below the minimum):
 * a slow kernel (Q2_0 at 0.5 GB/s) does not spend a minute on one model. */
#define RL_CAL_MIN_N_GEN 8
int rl_cal_tokens(double us_per_byte, uint64_t bytes, int reps, int n_gen, double run_s);

/* ---- the key ------------------------------------------------------------------------------ */

typedef struct {
    char cpu[256];
    char flags_hash[17]; /* FNV-1a 64 of the flags line, 16 hex digits */
    char build[64];      /* llama.cpp commit, or "unknown" */
    char id[17];         /* FNV-1a 64 of cpu, flags and build: the cache file's stem */
} rl_cal_key;

/* cpu, flags, build: NULL or "" when unknown ("unknown" is kept). */
void rl_cal_key_make(const char *cpu, const char *flags, const char *build, rl_cal_key *out);
/* {"cpu", "cpu_flags_fnv1a64", "llama_cpp_build", "id"}; NULL when out of memory. */
cJSON *rl_cal_key_json(const rl_cal_key *k);
/* True when j holds exactly k's fields. */
bool rl_cal_key_matches(const cJSON *j, const rl_cal_key *k);
/* The key of a bundle: environment.cpu, environment.cpu_flags, llama_cpp.build_commit. */
void rl_cal_key_of_bundle(const cJSON *bundle, rl_cal_key *out);

/* ---- the section -------------------------------------------------------------------------- */

/* calibration.method (kind controlled): the shapes' constants, n_gen (the most tokens a run
 * generates), min_n_gen and run_s (rl_cal_tokens), reps, passes (rl_cal_point_choose), the
 * cache size the targets come from and where it came from ("detected", "--llc-mib",
 * "default"), the targets. */
cJSON *rl_cal_method_json(uint64_t llc, const char *llc_source, int n_gen, int reps, double run_s,
                          int passes);
/* A new point: {"role", "model": {name, path, shape (kind controlled)}, "bytes_per_token":
 * {kind measured, value, unit, source}, "run": {threads, depth 0, pass 1}} (the run is the sweep's
 * to fill: rl_sweep_run_one). */
cJSON *rl_cal_point_new(int role, const rl_cal_shape *s, const char *path, uint64_t bytes,
                        int threads);
/* A new type entry {"type", "kind": derived, "source": "measured", "measured_utc", "points": []}.
 */
cJSON *rl_cal_type_new(const char *type_name);
/* The points of a type entry as rl_cal_derive takes them; how many (at most cap). */
size_t rl_cal_points_of(const cJSON *type_entry, rl_cal_pt *pts, size_t cap);
/* The derived values of a type entry from its points: "fit", "compute_roof", "fixed",
 * "per_layer", "base", "stream", "per_matrix" (with "stream_limit_GBs") and each point's "rate"
 * ({kind derived, us_per_token, GBs}), replacing what is there. false when out of memory. */
bool rl_cal_type_finish(cJSON *type_entry);
/* The passes a cached type holds: when every planned role of the entry has a point whose shape
 * is shapes[role] and whose run is ok, the fewest runs any of its points has (rl_cal_point_runs;
 * a type with fewer than the calibration's passes is measured only in the passes it lacks);
 * else 0, a type measured again from the start. */
int rl_cal_type_passes(const cJSON *type_entry, const rl_cal_shape shapes[RL_CAL_N_ROLES]);
/* The entry's point of that role, or NULL. */
cJSON *rl_cal_point_of(const cJSON *type_entry, int role);

/* ---- passes ------------------------------------------------------------------------------- */

/* A calibration measures every point in passes (method.passes, at most RL_CAL_MAX_PASSES), each
 * pass over the whole set after the one before, so a point's runs are minutes apart on the full
 * set. A point's "run" is the one its values come from: of its runs with a decode rate, the one
 * with the highest mean ("the faster"); "other_runs" keeps the rest, each a run as the sweep
 * writes it, with "pass" (1-based) on every run. A point with no run that has a rate keeps its
 * first pass's run. This host moves whole llama-bench runs by 20 to 30% for seconds at a time
 * (docs/METHOD.md "Two passes"); the recipes the model is checked against are measured by the
 * same rule. */
#define RL_CAL_MAX_PASSES 5
/* The point's runs that finished: 1 (its run) + its other_runs whose status is neither running
 * nor interrupted (an interrupted pass is measured again by the next calibration). */
int rl_cal_point_runs(const cJSON *point);
/* A new run {threads, depth 0, pass} appended to the point's other_runs, for the sweep to fill;
 * NULL when out of memory. The point's other_runs is made when it has none. */
cJSON *rl_cal_point_add_run(cJSON *point, int pass, int threads);
/* The run's mean decode rate into *tok_s, when its status is ok and it has one above 0. */
bool rl_cal_run_rate(const cJSON *run, double *tok_s);
/* Rates closer than this (relative) are a tie, kept by the earlier pass: a rate read back from
 * JSON may differ from the one computed in its last bit. */
#define RL_CAL_TIE 1e-9
/* True when run a has a decode rate (status ok, mean > 0) and b has none, or a's exceeds b's by
 * more than RL_CAL_TIE. */
bool rl_cal_run_faster(const cJSON *a, const cJSON *b);
/* The rule applied: the faster run becomes "run" and the one it replaces goes to other_runs
 * (in its place). false when out of memory (the point unchanged). */
bool rl_cal_point_choose(cJSON *point);
/* The tokens a point's run generated (its first record's n_gen), 0 when it has none: a later
 * pass generates as many. */
int rl_cal_point_n_gen(const cJSON *point);
/* The set's type entry named type_name, or NULL. */
cJSON *rl_cal_set_type(const cJSON *set, const char *type_name);

/* ---- the cache ---------------------------------------------------------------------------- */

/* root/calibration/<id>-t<threads>.json (caller frees); NULL when out of memory. */
char *rl_cal_cache_path(const char *root, const rl_cal_key *k, int threads);
/* The cached set for the key and thread count into *set (NULL when there is none, or the file
 * is another key's, another schema's or unreadable: then *note says why, when note is given).
 * Never fails but for RL_EINTERNAL (out of memory). */
rl_status rl_cal_cache_load(const char *root, const rl_cal_key *k, int threads, cJSON **set,
                            char *note, size_t note_cap, rl_error *err);
/* Store the set (a copy) under the key, with the method, atomically. RL_EOUTPUT naming the
 * file when it cannot be written. */
rl_status rl_cal_cache_store(const char *root, const rl_cal_key *k, const cJSON *method,
                             const cJSON *set, rl_error *err);

#endif
