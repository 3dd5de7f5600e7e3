/* SPDX-License-Identifier: MIT */
/* calib_run.h: a calibration measured into a bundle (owner: calibrate; used by `calibrate` and
 * `diagnose --calibrate`). For each thread count and each type asked for: the type is reused
 * from the cache when its key matches (bundle/calib.h: CPU, llama.cpp build, thread count; its
 * points of the planned shapes, every run ok) unless recalibrate is set, else measured: its
 * four models made once (measure/calib_models.h, all before the first llama-bench), then
 * llama-bench -p 0 -n N -r R on each (cmd/sweep.h's rl_sweep_run_one: the machine's state
 * beside every run, --wait-quiet, --retry-disturbed), the bundle written after every record,
 * the type's values derived (rl_cal_type_finish) and the set stored in the cache after every
 * type, so an interruption keeps every finished type for the next calibration.
 *
 * Progress on stderr (rl_progress): the models being made, then "[k/N] TYPE ROLE model (SIZE) at
 * T threads, about S s left" (S from the time each role took so far); a reused type is said
 * once per thread count ("reusing the calibration of UTC for T threads: TYPES").
 *
 * Ownership: the options and the bundle are the caller's; the section is added to the bundle
 * (replacing one there). */
#ifndef RL_CALIB_RUN_H
#define RL_CALIB_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"
#include "bundle/calib.h"
#include "cmd/sweep.h"
#include "measure/quiet.h"
#include "measure/sysinfo.h"
#include "model/calib_plan.h"

#define RL_CAL_MAX_TYPES 64

typedef struct {
    const char *verb; /* in messages: "calibrate", "diagnose" */
    int threads[RL_SWEEP_MAX_LIST];
    int n_threads;
    const rl_cal_type *types[RL_CAL_MAX_TYPES]; /* measurable types asked for, report order */
    size_t n_types;
    const rl_cal_type *skipped[RL_CAL_MAX_TYPES]; /* types listed as not calibrated */
    const char *skipped_why[RL_CAL_MAX_TYPES];    /* why (borrowed) */
    size_t n_skipped;
    int n_gen, reps; /* the most tokens a run generates (fewer for a slow kernel), repetitions */
    double run_s;    /* seconds of generation a run aims at (rl_cal_tokens) */
    int passes;      /* passes over the set, 1 to RL_CAL_MAX_PASSES (rl_cal_point_choose) */
    double timeout_s;
    bool recalibrate;
    uint64_t llc;               /* cache size the shapes come from */
    const char *llc_source;     /* "detected", "--llc-mib", "default" */
    const char *llama_bench;    /* the binary (found) */
    const char *llama_quantize; /* the binary, or NULL when not found */
    const char *cache_root;     /* rl_cache_root() */
    const rl_quiet_limits *quiet;
    const char *quiet_root;
    double wait_quiet_s;
    int retry_disturbed;
} rl_calib_opts;

typedef struct {
    size_t reused, measured, not_calibrated; /* types x thread counts */
    size_t models_made;
    double make_s, measure_s; /* wall time making models, running llama-bench */
    size_t runs_ok, runs_total;
} rl_calib_stats;

/* The calibration into bundle["calibration"] (written to path after every record). key: the
 * machine and build (rl_cal_key_make). RL_EINTERRUPTED (what was measured kept, in the bundle
 * and the cache), RL_EOUTPUT (the bundle or a model cannot be written), RL_EMISSING (a type
 * needs llama-quantize and there is none), RL_EINTERNAL. */
rl_status rl_calib_measure(const rl_calib_opts *o, const rl_cal_key *key, cJSON *bundle,
                           const char *path, rl_calib_stats *stats, rl_error *err);

/* The calibration section of the cache for the key at these thread counts, every type cached
 * (source "cache"), into bundle["calibration"] when there is one; *n_types the types attached
 * (0: nothing cached, the bundle untouched). For diagnose without --calibrate. */
rl_status rl_calib_attach_cached(const char *cache_root, const rl_cal_key *key, const int *threads,
                                 int n_threads, cJSON *bundle, size_t *n_types, rl_error *err);

/* Add type t to o's list once: a measurable one to types, another to skipped with its reason. */
void rl_calib_add_type(rl_calib_opts *o, const rl_cal_type *t);
/* The types a model holds (its GGUF object, gguf_json.h: types[] and tensor_bytes), each with
 * at least 1% of its tensor bytes; a NULL gguf adds nothing. */
void rl_calib_add_types_of(rl_calib_opts *o, const cJSON *gguf);
/* o's measurable types in report order (the calib_plan table's). */
void rl_calib_order_types(rl_calib_opts *o);

/* diagnose's calibration, after its sweep (st the sweep's status; nothing is done unless it is
 * RL_OK or RL_NOTHING): with calibrate, the types of the bundle's models measured (or reused)
 * at its thread counts (quick: calibrate --quick's -n and -r) into the bundle; without, the
 * cached calibration of this CPU, build and thread counts attached when there is one (said on
 * stderr). The bundle rewritten at DIR/bundle.json. The result is st, or the calibration's
 * failure (RL_EINTERRUPTED: the bundle's status says so) when st was RL_OK. */
rl_status rl_calib_after_diagnose(cJSON *bundle, const char *out_dir, bool calibrate, bool quick,
                                  double wait_quiet_s, int retry_disturbed, rl_status st,
                                  rl_error *err);

/* The cache size the calibration models are sized from: $LLAMA_ROOFLINE_CALIB_LLC_MIB (calibrate's
 * --llc-mib for the commands that calibrate without that option; a bad value is warned about
 * as verb's and ignored), else si's detected last-level cache, else RL_CAL_LLC_DEFAULT. */
void rl_calib_llc(rl_calib_opts *o, const rl_sysinfo *si, const char *verb);

/* A calibration bundle of command (argv from rl_opt_typed): source (measured), environment
 * (si), llama_cpp (o->llama_bench's build), settings (o's threads, depth 0, n_gen, reps, no
 * GPU layers, timeout); NULL when out of memory. */
cJSON *rl_calib_bundle_new(const char *command, const rl_calib_opts *o, const rl_sysinfo *si);

/* The calibration's table on out: one block per thread count, a line per type (compute roof,
 * stream rate, fixed, per layer, where it came from), then the types not calibrated. */
void rl_calib_print(FILE *out, const cJSON *section);

#endif
