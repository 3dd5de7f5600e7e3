/* SPDX-License-Identifier: MIT */
/* advise_run.h: what `llama-roofline advise` runs once cmd_advise.c has parsed its options
 * into rl_advise_opts: the --plan commands, the matrix ranking (or --list-cores) for the cores
 * detected here, or the --measure sweep and its advice (bundle, report and text).
 *
 * Ownership: the options' strings and arrays belong to the caller and must outlive the call;
 * nothing the functions allocate outlives them. Output goes to o->out ("-" or NULL: stdout). */
#ifndef RL_ADVISE_RUN_H
#define RL_ADVISE_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"
#include "cmd/sweep.h"

typedef struct {
    const char *core;           /* --core: a matrix core instead of detecting */
    const char *cpuinfo;        /* --cpuinfo: a saved /proc/cpuinfo */
    const char *plan;           /* --plan: the F16/BF16 source */
    const char *out;            /* -o: text, JSON or Markdown to this file */
    const char *preset;         /* --preset for --synth (NULL: RL_ADV_SYNTH_PRESET) */
    const char *llama_bench;    /* --llama-bench */
    const char *llama_quantize; /* --llama-quantize */
    const char *dir;            /* --dir: where --measure writes bundle.json and the report */
    bool list, json, md, synth;
    bool predict; /* --predict (with --measure): rank from the calibration, measure no file */
    int threads[RL_SWEEP_MAX_LIST], n_threads;
    double scale;              /* --scale, 0: the smallest measured */
    const char *const *models; /* -m files (--measure) */
    size_t n_models;
    const char *const *formats; /* --formats (NULL: the plan's default formats) */
    int n_formats;
    int n_prompt, n_gen, reps;
    double timeout;
    const rl_quiet_limits *quiet; /* --measure: the disturbed limits (NULL: the defaults) */
    double wait_quiet_s;          /* --wait-quiet */
    int retry_disturbed;          /* --retry-disturbed */
} rl_advise_opts;

/* --plan: the llama-quantize commands worth running from o->plan; RL_EINPUT for a source that
 * does not load or is already quantized. */
rl_status rl_advise_run_plan(const rl_advise_opts *o, rl_error *err);
/* The ranking for the cores detected (or o->core), as text, Markdown or JSON; with o->list
 * the matrix's cores. RL_EINPUT for an unknown --core. */
rl_status rl_advise_run_rank(const rl_advise_opts *o, rl_error *err);
/* --measure: sweep the files (o->models, or with o->synth a synth F16 quantized by the real
 * llama-quantize into o->formats), add the measured advice to the bundle, write the bundle
 * and the report into o->dir and print the advice. The sweep's failure or interruption
 * comes first, then a write failure, then the advice's own. */
rl_status rl_advise_run_measure(const rl_advise_opts *o, rl_error *err);
/* --measure --predict: the same files, not measured: the types they hold calibrated (cached
 * and reused, cmd/calib_run.h) at o's thread counts, each file's two-roof prediction ranked by
 * the same rules (rl_advise_bundle_predicted), the bundle (the calibration, the files' GGUF
 * tables, the advice) and the report into o->dir, the advice printed. */
rl_status rl_advise_run_predict(const rl_advise_opts *o, rl_error *err);

#endif
