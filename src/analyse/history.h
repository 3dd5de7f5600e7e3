/* SPDX-License-Identifier: MIT */
/* history.h: the bundles of one machine over time (owner: history; history.c loading, machine
 * and ordering, history_series.c series, steps and annotations, history_json.c JSON).
 *
 * Inputs: bundles, reports or directories of them (the walk of compare, rl_cmp_each_bundle).
 * Each bundle is read once and dropped once its rows are taken, so memory holds the rows and a
 * few facts per bundle, never every tree at once.
 *
 * Machine: a bundle's environment fingerprint (rl_hist_machine_key): CPU model, architecture,
 * logical and physical cores, NUMA nodes, and RAM (equal within RL_CMP_FACT_TOLERANCE_PCT, as
 * compare treats RAM). There is no host name in a bundle by design. The machine followed is the
 * newest bundle's (created_utc); bundles of other machines are listed (rl_hist.others) and
 * left out of every series.
 *
 * Order: created_utc (else updated_utc), then the path, ascending.
 *
 * Series: the rows compare makes of each bundle (its producers: llama-bench decode and prefill
 * per model identity, threads, depth, n_prompt and n_gen; advice rows; client operating
 * points: TTFT, E2E, TPOT, chunk gap, per-request rates, throughput, requests/s, goodput), plus
 * the memory ceiling (membw: the samples of the run of the ceiling's kernel and thread count,
 * GB/s, higher is better). A series is one row key of one group with the settings that change
 * what is measured and that compare's key leaves out (n_gpu_layers, bench_args): equal keys are
 * one series, in time order, one point per bundle that has it.
 *
 * Steps: each point after a series' first is judged against the point before it with
 * compare's rule (rl_cmp_verdict_of: Welch's t-test, p < alpha and |change| >= min effect;
 * fewer than 2 samples, no samples, a point metric: not tested). A step is suspect when either
 * side's measurement was marked disturbed (its "machine" object); a regression is a step
 * "slower" beyond PCT in the metric's bad direction, counted apart when suspect.
 *
 * Annotations: what changed between the two bundles of a step (rl_hist_fact_defs: the llama.cpp
 * build, "commit (build N)", and version, kernel, governor, transparent huge pages, repetitions,
 * llama-roofline version), as "LABEL: OLD -> NEW" joined by "; ", and "measured disturbed"
 * (with the bundle's analysis.disturbance.text when it has one) for a disturbed point.
 *
 * Listing (rl_hist_listed): the first and last point of a series, every step judged faster or
 * slower, every step with an annotation and every disturbed point, at most max_listed per
 * series (all: every point); the text, Markdown and page list these, so 1,000 bundles stay
 * readable, and say how many others they leave out. The JSON holds every point.
 *
 * Ownership: an rl_hist owns everything in it; free it with rl_hist_free. Nothing here prints,
 * except the skipping line of a directory's unreadable file (rl_cmp_each_bundle). */
#ifndef RL_HISTORY_H
#define RL_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "analyse/compare.h"
#include "base/rl_error.h"

#define RL_HIST_MAX_INPUTS 100000 /* bundles read at once */
#define RL_HIST_MAX_LISTED 120    /* points a series lists without all, by default */
#define RL_HIST_OTHERS_LISTED 20  /* bundles of other machines named (text, page); JSON: all */
#define RL_HIST_GROUP_CEILING "Memory ceiling"

/* The facts whose change annotates a step. */
#define RL_HIST_N_FACTS 7
#define RL_HIST_FACT_KERNEL 2   /* rl_hist_fact_defs[]: environment.kernel */
#define RL_HIST_FACT_GOVERNOR 3 /* environment.governor */
typedef struct {
    const char *obj, *key, *label;
} rl_hist_fact_def;
extern const rl_hist_fact_def rl_hist_fact_defs[RL_HIST_N_FACTS];

typedef struct {
    char *path, *label;
    char *created;     /* created_utc (else updated_utc), "" when neither */
    char *machine;     /* the fingerprint in words: "AMD EPYC, x86_64, 2 cores, 23.5 GiB RAM" */
    char *machine_key; /* the fingerprint without RAM (rl_hist_machine_key) */
    double ram;        /* environment.ram_bytes, NAN when unknown */
    char *build;       /* "de3ff81 (build 1)", "unknown" */
    char *facts[RL_HIST_N_FACTS];
    bool disturbed;    /* a row of it was measured disturbed */
    char *disturbance; /* analysis.disturbance.text, or NULL */
    /* the rows of the bundle, before they are put into series (freed by rl_hist_run) */
    rl_cmp_row *rows;
    size_t n_rows;
} rl_hist_input;

typedef struct {
    size_t input;     /* index into rl_hist.inputs (time order) */
    rl_cmp_cell cell; /* against the point before (verdict RL_CMP_BASELINE for the first) */
    char *changes;    /* what changed since the point before, NULL when nothing */
} rl_hist_point;

typedef struct {
    rl_cmp_row row; /* group, key, subject, metric, unit, kind, direction, key columns;
                       row.cells is NULL (the points hold them) */
    rl_hist_point *pts;
    size_t n_pts, cap_pts;
} rl_hist_series;

typedef struct {
    size_t faster, slower, noise, untested, suspect;
} rl_hist_counts;

typedef struct {
    rl_hist_input *inputs; /* the machine's bundles, in time order after rl_hist_run */
    size_t n_inputs, cap_inputs;
    rl_hist_input *others; /* other machines' bundles: left out */
    size_t n_others;
    rl_hist_series *series;
    size_t n_series, cap_series;
    size_t *slots; /* series hash table (index + 1, 0 empty), n_slots a power of two */
    size_t n_slots;
    double alpha, min_effect_pct;
    size_t max_listed; /* points a series lists without all (RL_HIST_MAX_LISTED; at least 2) */
} rl_hist;

void rl_hist_init(rl_hist *h);
void rl_hist_free(rl_hist *h);

/* Read every bundle an operand stands for (rl_cmp_each_bundle) and keep its facts and rows. */
rl_status rl_hist_add_operand(rl_hist *h, const char *operand, rl_error *err);
/* The same for one bundle already loaded (h takes it and frees it) under path. */
rl_status rl_hist_add_bundle(rl_hist *h, const char *path, cJSON *bundle, rl_error *err);

/* Choose the machine (the newest bundle's), set the others apart, order by time, build the
 * series, judge the steps and annotate them. RL_EINPUT when fewer than two bundles of the
 * machine remain (the message says how many were read and of how many machines). */
rl_status rl_hist_run(rl_hist *h, rl_error *err);

/* Internal (history_series.c, called by rl_hist_run): the inputs' rows into series, judged
 * and annotated; every input's rows are freed. */
rl_status rl_hist_build_series(rl_hist *h, rl_error *err);

/* The fingerprint of a bundle's environment without RAM into buf: "cpu|arch|logical|physical|
 * numa" (unknown fields "?"). */
void rl_hist_machine_key(const cJSON *bundle, char *buf, size_t cap);
/* Whether two inputs are the same machine: equal keys and RAM within the tolerance (both
 * unknown is equal). */
bool rl_hist_same_machine(const rl_hist_input *a, const rl_hist_input *b);
/* Order of two inputs: created, then path. */
int rl_hist_cmp_time(const rl_hist_input *a, const rl_hist_input *b);

/* The annotation of the step from input a to input b (both in h->inputs) into a new string,
 * NULL when nothing changed (and *oom false) or out of memory (*oom true). */
char *rl_hist_changes(const rl_hist *h, size_t a, size_t b, bool *oom);

/* Whether point k of series s is listed (see above): first, last, judged faster or slower, an
 * annotation, disturbed; all: every point. The cap is applied by rl_hist_n_listed. */
bool rl_hist_wanted(const rl_hist_series *s, size_t k, bool all);
/* The listed points of s in order (at most max, at least 2, without all; the last point is
 * always among them) into idx (n_pts entries); returns how many. */
size_t rl_hist_listed(const rl_hist_series *s, bool all, size_t max, size_t *idx);

rl_hist_counts rl_hist_count(const rl_hist *h);
/* Steps "slower" by strictly more than pct in the bad direction, not suspect; the suspect ones
 * into *disturbed when not NULL. */
size_t rl_hist_regressions(const rl_hist *h, double pct, size_t *disturbed);
/* Whether step k of s is such a regression (suspect or not). */
bool rl_hist_is_regression(const rl_hist_series *s, size_t k, double pct);

/* "decode (measured) qwen.gguf threads=2 depth=0" : the series in words into buf (the key
 * columns that say which row it is). */
void rl_hist_series_title(const rl_hist_series *s, char *buf, size_t cap);

/* One sentence naming the test of the steps. */
void rl_hist_test_sentence(const rl_hist *h, char *buf, size_t cap);

/* The history as JSON: {"schema": "llama-roofline-history", "schema_version": 1, "test":
 * {name, alpha, min_effect_pct}, "machine", "inputs": [{label, path, created_utc, build,
 * facts, disturbed, disturbance}], "left_out": [{label, path, created_utc, machine}],
 * "series": [{group, subject, metric, unit, kind, higher_is_better, one_value, keys, points:
 * [{input (from 1), mean, n, sd, ci95_low, ci95_high, samples, disturbed, verdict,
 * verdict_note (suspect), ratio, delta, change_pct, t, df, p, changes}]}]}. Not full (the
 * page's data, kept small): no facts, samples, ci95, ratio, delta, t or df, and "suspect":
 * true in place of verdict_note. NULL when out of memory. */
cJSON *rl_hist_to_json(const rl_hist *h, bool full);

#endif
