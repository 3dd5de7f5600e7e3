/* SPDX-License-Identifier: MIT */
/* sweep.h: the measurement behind `run`: the memory ceiling, then llama-bench over every model
 * x thread count x KV depth, each invocation's records saved into the bundle the moment they
 * arrive. Measurement and recording only: the analysis is the command's next phase
 * (rl_session_sweep in cmd/session.h runs measure -> analyse -> close), and nothing here renders.
 *
 * One llama-bench invocation per (model, threads, depth), with `-o jsonl`: its stdout is
 * parsed line by line as it arrives (lbench feeder) and the bundle is rewritten atomically after
 * every record, so Ctrl-C, a crash or a power cut loses nothing measured. A failed invocation
 * (crash, hang past the timeout, garbage, non-zero exit, no decode record) is recorded in its
 * run with the reason and the sweep goes on. Rates are recomputed from samples_ns.
 * --target-ci: after the first invocation, more invocations of --reps repetitions each until
 * the decode CI half-width falls under the target or --max-reps is reached; the samples are
 * pooled and the run's "target_ci" says which happened.
 * The ceiling is bracketed (cmd/bracket.h): a short probe before the sweep, between models when
 * there are three or more, and after it, kept in membw.bracket; drift over the limit is a
 * "ceiling_drift" run warning.
 * Inputs against outputs: before anything is written (and after llama-bench is found), the
 * models (-m, or a resumed bundle's models[].path) and the llama-bench binary are checked
 * against out_dir/bundle.json and out_dir/report.html (rl_check_outputs): one of them
 * is RL_EINPUT, "-o DIR/bundle.json is the same file as the input ...".
 * Each run records the machine's state over its invocations ("machine", measure/quiet.h);
 * --wait-quiet waits for a quiet machine before each run, --retry-disturbed measures a
 * disturbed run again, the earlier tries kept in the run's "attempts".
 * --resume: the bundle in the output directory is read back (refused, untouched, when it is not
 * a run bundle), its settings (threads, depths, n_prompt, n_gen, reps, n_gpu_layers, bench_args,
 * timeout_s, target_ci_pct, max_reps, bytes_convention) and models are used, and runs already
 * "ok" are skipped. A setting option the command line gave (opts.given) must equal the bundle's
 * plan: the same settings.KEY, the same ceiling once the bundle has one (--peak-bw: a controlled
 * ceiling of that value; --skip-membw: skipped; a quick option: a measured ceiling measured
 * quick, nothing to check beside a controlled one), the same model files (-m, by device and inode,
 * in any order); else RL_EINPUT, one line naming the option, its value and the bundle's, and what
 * to do (drop the option, or start a new bundle with another -o), the bundle left untouched.
 *
 * Ownership: rl_sweep_measure leaves the bundle tree in state->bundle (caller frees with
 * cJSON_Delete) even on failure when one was started, and the path in state->path (freed by
 * rl_sweep_state_free); the options are borrowed. */
#ifndef RL_SWEEP_H
#define RL_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "analyse/analysis.h"
#include "base/rl_error.h"
#include "measure/quiet.h"

#define RL_SWEEP_MAX_LIST 16
#define RL_SWEEP_MAX_MODELS 64

/* A setting option the command line gave, checked against a resumed bundle's plan. */
typedef struct {
    const char *flag; /* as the user knows it: "--threads", "--quick" */
    const char *arg;  /* its value as given, or NULL for a flag (then the key's value is shown) */
    const char *key;  /* what it sets: a settings key ("threads", "n_gen", "bytes_convention"),
                         RL_SWEEP_KEY_CEILING or RL_SWEEP_KEY_MODELS */
} rl_sweep_given;

#define RL_SWEEP_KEY_CEILING "ceiling" /* --peak-bw, --skip-membw, --quick-membw, --quick */
#define RL_SWEEP_KEY_MODELS "models"   /* -m */
#define RL_SWEEP_MAX_GIVEN 32

typedef struct {
    const char *command; /* "run" */
    int argc;            /* the command line, recorded in the bundle */
    char *const *argv;
    const char *const *models; /* GGUF paths (ignored with resume) */
    size_t n_models;
    int threads[RL_SWEEP_MAX_LIST];
    int n_threads; /* 0: the default sweep */
    int depths[RL_SWEEP_MAX_LIST];
    int n_depths; /* 0: {0} */
    int n_prompt, n_gen, reps, n_gpu_layers;
    const char *const *bench_args;
    size_t n_bench_args;
    bool decode_only;        /* -p 0: the tg test alone (calibrate; n_prompt is then 0) */
    double timeout_s;        /* per llama-bench invocation */
    double target_ci_pct;    /* > 0: more repetitions until the decode CI half-width is under it */
    int max_reps;            /* with target_ci_pct: at most this many repetitions per run */
    double peak_bw;          /* > 0: controlled ceiling */
    bool skip_membw;         /* no ceiling */
    bool quick_membw;        /* membw --quick */
    bool no_bracket;         /* no ceiling probes around the sweep (cmd/bracket.h) */
    const char *llama_bench; /* --llama-bench or NULL */
    const char *out_dir;
    bool resume;
    rl_an_bytes_convention bytes;
    /* the machine's state during each measurement (measure/quiet.h) */
    const rl_quiet_limits *quiet; /* NULL: the defaults */
    const char *quiet_root;       /* NULL or "": the real /proc and /sys */
    double wait_quiet_s;          /* --wait-quiet: > 0 waits for a quiet machine first */
    int retry_disturbed;          /* --retry-disturbed: re-measurements of a disturbed run */
    /* with resume: the setting options given, each refused unless it equals the plan */
    const rl_sweep_given *given;
    size_t n_given;
} rl_sweep_opts;

/* Record that flag (with arg, NULL for a flag) set key: appended to given[*n] when there is
 * room (RL_SWEEP_MAX_GIVEN; a repeated option is recorded once, its last value kept). */
void rl_sweep_give(rl_sweep_given *given, size_t *n, const char *flag, const char *arg,
                   const char *key);

/* What one sweep leaves for the phases after it. */
typedef struct {
    cJSON *bundle;                /* the bundle tree being recorded, or NULL */
    char *path;                   /* out_dir/bundle.json */
    int64_t t_start;              /* when the sweep began, for the overhead record */
    double membw_cpu;             /* CPU seconds the ceiling took */
    const rl_quiet_limits *quiet; /* the options' limits, for environment.machine_state */
    rl_an_bytes_convention bytes; /* the analysis' convention: the options', or the resumed
                                     bundle's settings.bytes_convention */
} rl_sweep_state;

/* Everything above, recorded into state->bundle and written to out_dir/bundle.json after every
 * record. RL_EMISSING when llama-bench is missing, RL_EINTERRUPTED (bundle kept) on Ctrl-C. */
rl_status rl_sweep_measure(const rl_sweep_opts *o, rl_sweep_state *state, rl_error *err);

/* The last record, after the analysis: the tool's overhead and the bundle's status (st is the
 * status so far), then the final write. RL_NOTHING when no model produced a decode rate (the
 * analysis's n_models_ok is 0). */
rl_status rl_sweep_close(rl_sweep_state *state, rl_status st, rl_error *err);

/* One run: llama-bench on model at t threads and depth d into run (an object of bundle's tree,
 * its records saved and bundle written to path after every one), as the sweep measures each
 * of its runs: --wait-quiet first, the run's "machine" state, --target-ci's extra repetitions,
 * --retry-disturbed's attempts (the fields of o used: command, n_prompt, n_gen, reps,
 * decode_only, n_gpu_layers, bench_args, timeout_s, target_ci_pct, max_reps, quiet,
 * quiet_root, wait_quiet_s, retry_disturbed). RL_EINTERRUPTED on Ctrl-C (the run's status
 * "interrupted"), RL_EOUTPUT when the bundle cannot be written, RL_EMISSING when the binary
 * vanished; a failed llama-bench is RL_OK with the run's status and error saying why. */
rl_status rl_sweep_run_one(const char *bin, const rl_sweep_opts *o, const char *model, int t, int d,
                           cJSON *run, cJSON *bundle, const char *path, rl_error *err);

/* The bundle's llama_cpp entry for the llama-bench at bin: its path and the build `llama-bench
 * --version` prints (commit, number, version), or the build unavailable with the reason. NULL
 * when out of memory. */
cJSON *rl_sweep_build_json(const char *bin);
/* A bundle's models[] entry for the GGUF at path: id "m<index + 1>", path, name (its base
 * name), gguf (gguf_json.h, no tensors) and an empty runs[]; NULL with err filled when the file
 * does not load or memory runs out. */
cJSON *rl_sweep_model_json(const char *path, size_t index, rl_error *err);

/* Frees state->path; the bundle stays the caller's. */
void rl_sweep_state_free(rl_sweep_state *state);

#endif
