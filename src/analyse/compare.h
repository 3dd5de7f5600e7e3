/* SPDX-License-Identifier: MIT */
/* compare.h: comparing result bundles (owner: compare; files compare.c the run and the
 * environment diff, compare_load.c the inputs, compare_match.c rows and matching,
 * compare_stats.c the Welch test and verdicts, compare_json.c JSON). Inputs are bundles, reports (a
 * report carries its bundle) or directories of them; the first is the baseline unless another is
 * named. Everything compared is a ROW: one metric of one subject under one setting, with one
 * CELL per input (its samples, mean, sd, 95% CI, and against the baseline its ratio, delta and
 * verdict). Rows of different inputs are the same row when their group and match key are equal.
 *
 * Row producers. Each bundle section that has something to compare contributes rows through
 * one function of the type rl_cmp_rows_fn, listed in compare.c's producer table:
 *   rl_cmp_rows_decode   llama-bench decode and prefill rates of models[].runs[] (group
 *                        "llama-bench"; key: model identity, threads, depth, n_prompt, n_gen).
 *                        In an advise bundle the depth-0 decode rates its advice tables rank
 *                        are left to rl_cmp_rows_advice (listed once, in that group).
 *   rl_cmp_rows_client   every operating point of bundle.client (group RL_CMP_GROUP_CLIENT;
 *                        key: driver identity = command line, or endpoint URL + model; then
 *                        concurrency, request rate, prompt set = source:name, count and a hash
 *                        of the prompts' ids and texts). Distribution metrics from their
 *                        samples: TTFT (proxy), E2E (measured), TPOT (derived), chunk gap
 *                        (proxy), all lower is better; per-request decode and output tok/s
 *                        (derived), higher is better. Point metrics, one value per bundle:
 *                        output throughput, requests/s, goodput requests/s ("one value: not
 *                        tested", ratio and delta still given).
 *   rl_cmp_rows_advice   every row of bundle.advice.tables[] (group RL_CMP_GROUP_ADVICE; key:
 *                        threads, format, model identity): the decode rate with its samples.
 * A producer fills an rl_cmp_row_spec (group, key, key columns, metric, its kind, unit,
 * direction) and calls rl_cmp_add_rate or rl_cmp_add_samples; the terminal table, Markdown and
 * page show its rows, grouped by "group", with its key columns and rl_cmp_group_note.
 *
 * Model identity (rl_cmp_model_identity): the tensor-type map and size from the GGUF header
 * (gguf.types: type, tensor count and bytes of each, and gguf.tensor_bytes), so a renamed or
 * re-downloaded file still matches and two different files named alike do not; an imported
 * model whose header was never read falls back to its name and its bytes per token.
 *
 * Verdicts (rl_cmp_verdicts), from the per-repetition samples of each side:
 *   Welch's two-sided t-test: t = (mean_x - mean_b) / sqrt(s_x^2/n_x + s_b^2/n_b), df by
 *   Welch-Satterthwaite, p = P(|T_df| > |t|) (rl_stats_t_tail2). "faster" or "slower" when
 *   p < alpha (0.05) AND |change| >= min_effect (2% of the baseline mean), in the direction
 *   that is better for the metric; otherwise "within noise". Both sides without spread: p = 1
 *   when the means are equal, else 0. Fewer than two samples on a side: "one sample: not
 *   tested"; a side with no samples (imported published data: mean and sd only): "no samples:
 *   not tested". The ratio (x / baseline) and delta (x - baseline) are given in every case
 *   where both means exist.
 *   Disturbed inputs: a llama-bench run or client point whose "machine" object says
 *   disturbed (measured while other processes used the CPUs, analysis.h) marks its cell
 *   disturbed (an advice row: its model's depth-0 run at those threads); a cell is suspect when
 *   it or the baseline's cell is, and its verdict is then shown with a question mark and
 *   "disturbed" (rl_cmp_fmt_verdict), never as plain, with a "disturbed" column naming which
 *   side was (rl_cmp_fmt_disturbed). An input is disturbed when any of its cells is; its
 *   "disturbance" is the bundle's analysis.disturbance.text when it has one.
 *   --fail-on-regression counts the regressions of suspect cells apart (rl_cmp_regressions):
 *   a regression seen only there does not fail the comparison.
 *
 * Environment and suite: rl_cmp_diffs lists the facts that differ between inputs (CPU, RAM,
 * OS, kernel, llama.cpp build, governor, THP, settings, ...); the settings that define what was
 * measured (threads, depths, n_prompt, n_gen, n_gpu_layers, bench_args, bytes_convention) and
 * the set of model identities form the SUITE, whose mismatch --strict turns into exit 1.
 *
 * Ownership: an rl_cmp owns its inputs (their bundles), rows, cells and strings; free it with
 * rl_cmp_free. Nothing here prints or writes files. */
#ifndef RL_COMPARE_H
#define RL_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_CMP_MAX_INPUTS 1000    /* inputs compared at once */
#define RL_CMP_MAX_ROWS 200000    /* rows over all inputs */
#define RL_CMP_MAX_SAMPLES 100000 /* samples kept per cell */
#define RL_CMP_MAX_KEYS 6         /* key columns of a row */
#define RL_CMP_ALPHA 0.05         /* significance level of the t-test */
#define RL_CMP_MIN_EFFECT_PCT 2.0 /* smallest change called faster/slower, % of the baseline */

typedef enum {
    RL_CMP_BASELINE = 0, /* the baseline's own cell */
    RL_CMP_MISSING,      /* the row is not in this input or not in the baseline */
    RL_CMP_FASTER,
    RL_CMP_SLOWER,
    RL_CMP_NOISE,      /* within noise */
    RL_CMP_ONE_SAMPLE, /* fewer than 2 samples on a side: not tested */
    RL_CMP_NO_SAMPLES, /* a side has no samples (imported mean only): not tested */
    RL_CMP_ONE_VALUE   /* a point metric (one value per input, e.g. requests/s): not tested */
} rl_cmp_verdict;

#define RL_CMP_GROUP_DECODE "llama-bench"
#define RL_CMP_GROUP_CLIENT "Streaming client"
#define RL_CMP_GROUP_ADVICE "Quantization advice"

typedef struct {
    bool present;
    bool point;      /* a point metric's one value (the row is single) */
    double *samples; /* n values, NULL when n == 0 */
    size_t n;
    bool has_mean, has_sd, has_ci;
    double mean, sd, ci_low, ci_high;
    /* against the baseline (not set for the baseline's own cell) */
    rl_cmp_verdict verdict;
    bool has_ratio; /* both means exist */
    double ratio, delta, change_pct;
    bool tested; /* the t-test ran: t, df, p are set */
    double t, df, p;
    bool disturbed; /* this input's measurement was marked disturbed (its "machine" object) */
    bool suspect;   /* it or the baseline's was: the verdict is not stated as plain */
} rl_cmp_cell;

typedef struct {
    const char *name; /* column header, e.g. "threads" */
    const char *value;
} rl_cmp_keycol;

/* What a producer says about one row (copied by rl_cmp_add_*). */
typedef struct {
    const char *group;   /* RL_CMP_GROUP_* */
    const char *key;     /* match key: rows with equal group and key are the same row */
    const char *subject; /* shown: the model's name */
    const char *metric;  /* "decode" */
    const char *unit;    /* "tok/s" */
    const char *kind;    /* "measured", "proxy", "derived" or NULL: shown beside the metric */
    bool higher_is_better;
    bool single;    /* a point metric: one value per input, never tested */
    bool disturbed; /* this input's measurement was marked disturbed ("machine".disturbed) */
    size_t n_keys;
    rl_cmp_keycol keys[RL_CMP_MAX_KEYS]; /* shown key columns (threads, depth, ...) */
} rl_cmp_row_spec;

typedef struct {
    char *group, *key, *subject, *metric, *unit;
    char *kind; /* NULL when the producer gave none */
    bool higher_is_better;
    bool single;
    bool units_vary; /* its group's rows have more than one unit (set by rl_cmp_run) */
    size_t n_keys;
    char *key_names[RL_CMP_MAX_KEYS];
    char *key_values[RL_CMP_MAX_KEYS];
    rl_cmp_cell *cells; /* one per input */
} rl_cmp_row;

typedef struct {
    char *path;  /* the file as given or found in a directory */
    char *label; /* short and unique among the inputs: directory or file name */
    cJSON *bundle;
    bool disturbed;          /* a cell of this input was measured disturbed (set by rl_cmp_run) */
    size_t n_disturbed;      /* how many of its present cells were */
    const char *disturbance; /* the bundle's analysis.disturbance.text (borrowed), or NULL */
} rl_cmp_input;

/* One fact of the environment or the settings, per input. */
typedef struct {
    const char *section; /* "environment", "llama.cpp", "settings", "ceiling", "tool" */
    const char *label;   /* "CPU" */
    bool suite;          /* part of the suite: a difference is a suite mismatch */
    bool differs;
    char **values; /* one per input, "unknown" for null or absent */
} rl_cmp_fact;

/* Numeric facts (RAM, the memory ceiling) that differ by less than this share of the larger
 * value are the same machine (RAM totals move by a page between boots, a ceiling by its
 * noise): not a warning. True when lo..hi is within it. */
#define RL_CMP_FACT_TOLERANCE_PCT 1.0
bool rl_cmp_fact_close(double lo, double hi);

typedef struct {
    rl_cmp_input *inputs;
    size_t n_inputs, cap_inputs;
    size_t baseline;
    rl_cmp_row *rows;
    size_t n_rows, cap_rows;
    rl_cmp_fact *facts;
    size_t n_facts;
    bool suite_mismatch;
    size_t rows_not_everywhere; /* rows missing from at least one input */
    bool sections_differ;       /* the inputs hold different sections (rl_cmp_sections) */
    double alpha, min_effect_pct;
} rl_cmp;

/* A row producer: add the rows of one input's bundle. */
typedef rl_status (*rl_cmp_rows_fn)(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err);
rl_status rl_cmp_rows_decode(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err);
rl_status rl_cmp_rows_client(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err);
rl_status rl_cmp_rows_advice(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err);

/* What an input holds, in words, into buf: "llama-bench runs", "streaming client",
 * "quantization advice" joined by " + ", or "nothing to compare". */
void rl_cmp_sections(const cJSON *bundle, char *buf, size_t cap);
/* One sentence about a group's rows (what its kinds mean), or NULL. */
const char *rl_cmp_group_note(const char *group);

/* Start an empty comparison (alpha and min effect at their defaults). */
void rl_cmp_init(rl_cmp *c);
void rl_cmp_free(rl_cmp *c);

/* Add the inputs an operand stands for: a file (bundle or report) is one input; a directory
 * holding bundle.json (else report.html) is that file; any other directory stands for its
 * *.json and *.html regular files that load as bundles (sorted by name; others are skipped
 * with a line on stderr) and for each subdirectory holding bundle.json or report.html.
 * RL_EINPUT naming the operand for a missing or bad file or a directory with no bundle. */
rl_status rl_cmp_add_operand(rl_cmp *c, const char *operand, rl_error *err);
/* The walk behind rl_cmp_add_operand, for any reader of many bundles (history): fn gets each
 * bundle the operand stands for, loaded, and takes it (it frees it, whatever it returns); a
 * directory's file that does not load is skipped with "llama-roofline COMMAND: skipping ..."
 * on stderr. Stops at the first status fn returns that is not RL_OK. */
typedef rl_status (*rl_cmp_bundle_fn)(void *ctx, const char *path, cJSON *bundle, rl_error *err);
rl_status rl_cmp_each_bundle(const char *operand, const char *command, rl_cmp_bundle_fn fn,
                             void *ctx, rl_error *err);
/* Add one already loaded bundle (c takes it) under path. */
rl_status rl_cmp_add_bundle(rl_cmp *c, const char *path, cJSON *bundle, rl_error *err);

/* The baseline: "N" (1-based position) or a path equal to an input's path. RL_EINPUT when it
 * names none. */
rl_status rl_cmp_set_baseline(rl_cmp *c, const char *which, rl_error *err);

/* Free what row r owns (its strings, and its n_inputs cells with their samples; cells may be
 * NULL), not r itself. */
void rl_cmp_row_free(rl_cmp_row *r, size_t n_inputs);

/* The rows of one input: every producer of the table over its bundle (rl_cmp_run calls it for
 * each input; history for a one-input comparison per bundle). */
rl_status rl_cmp_rows_of(rl_cmp *c, size_t input, rl_error *err);

/* Build every row (the producers over every input), the verdicts and the facts. Needs at least
 * two inputs (RL_EINPUT otherwise). */
rl_status rl_cmp_run(rl_cmp *c, rl_error *err);

/* For producers: add one input's value of a row from samples (n may be 0: then mean and sd,
 * when has_mean / has_sd, are the source's figures), or from a bundle rate object ({samples,
 * stats} or {mean, sd, samples unavailable}; an unavailable rate adds nothing). */
rl_status rl_cmp_add_samples(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec,
                             const double *samples, size_t n, bool has_mean, double mean,
                             bool has_sd, double sd, rl_error *err);
rl_status rl_cmp_add_rate(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec, const cJSON *rate,
                          rl_error *err);

/* A model's identity key (see above) into buf: "types:<hash of the type map>:<tensor bytes>"
 * or "name:<name>:<bytes per token>". */
void rl_cmp_model_identity(const cJSON *model, char *buf, size_t cap);

/* The verdict of x against baseline b (both cells filled with samples or means) into x: the
 * test described above. */
void rl_cmp_verdict_of(const rl_cmp_cell *b, rl_cmp_cell *x, bool higher_is_better, double alpha,
                       double min_effect_pct);
/* Welch's t and degrees of freedom of two samples' summaries; false when both variances are 0. */
bool rl_cmp_welch(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b,
                  double *t, double *df);

/* "faster", "slower", "within noise", "one sample: not tested", "no samples: not tested",
 * "one value: not tested", "missing", "baseline"; and the arrow that goes with it ("↑", "↓",
 * "=", "?", "-", ""). */
const char *rl_cmp_verdict_word(rl_cmp_verdict v);
const char *rl_cmp_verdict_arrow(rl_cmp_verdict v);

/* One sentence naming the test and its thresholds (for the table, the Markdown and the page). */
void rl_cmp_test_sentence(const rl_cmp *c, char *buf, size_t cap);

/* Counts of verdicts over every non-baseline cell; disturbed: those of them, present in both,
 * that are suspect (measured while disturbed, this input or the baseline). */
typedef struct {
    size_t faster, slower, noise, untested, missing;
    size_t disturbed;
} rl_cmp_counts;
rl_cmp_counts rl_cmp_count(const rl_cmp *c);

/* Cells slower than the baseline by more than pct percent in the metric's bad direction
 * (verdict slower and change_pct < -pct for a rate, > pct for a latency): how many that are
 * not suspect (the count --fail-on-regression fails on); the suspect ones (this input or the
 * baseline measured disturbed) into *disturbed when it is not NULL. */
size_t rl_cmp_regressions(const rl_cmp *c, double pct, size_t *disturbed);

/* Whether a present cell of group's rows was measured disturbed (its table gets the
 * "disturbed" column). */
bool rl_cmp_group_disturbed(const rl_cmp *c, const char *group);

/* The first row of group (its key columns and unit head the group's table), or NULL; whether
 * row r is the first of its group (groups are shown in order of first appearance). */
const rl_cmp_row *rl_cmp_group_first(const rl_cmp *c, const char *group);
bool rl_cmp_group_starts(const rl_cmp *c, size_t r);
/* Whether row r is listed for input i (not the baseline): present in both, or with all in
 * either; a row present on one side only and not listed counts in *hidden. */
bool rl_cmp_listed(const rl_cmp *c, size_t r, size_t i, bool all, size_t *hidden);

/* Whether key column k of group's rows holds more than one value (the table shows it). */
bool rl_cmp_key_varies(const rl_cmp *c, const char *group, const char *name);

/* Inputs from which the page and the text summarise each row across the inputs
 * (rl_cmp_row_summary) and each fact by its distinct values (rl_cmp_fact_values) instead of
 * one line per input: a fleet of 1,000 stays readable. */
#define RL_CMP_SUMMARY_MIN 100

/* One row read across the inputs (the baseline left out): how many cells got each verdict,
 * how many of them are suspect (measured disturbed), the smallest, median and largest ratio to
 * the baseline over the cells that have one (NAN when none), and the inputs with the best and
 * the worst ratio for the metric (the largest for a rate, the smallest for a latency; the
 * earliest input on a tie; SIZE_MAX when no cell has a ratio). False when out of memory. */
typedef struct {
    size_t faster, slower, noise, untested, missing, suspect;
    size_t with_ratio;
    double ratio_min, ratio_median, ratio_max;
    size_t best, worst;
} rl_cmp_row_sum;
bool rl_cmp_row_summary(const rl_cmp *c, size_t r, rl_cmp_row_sum *s);

/* The distinct values of fact f over the inputs, the most common first (ties: the one seen
 * first), at most cap of them into out (the strings are the fact's own), how many there are
 * in all into *n_distinct. False when out of memory. */
typedef struct {
    const char *value;
    size_t count;
    size_t first; /* the first input (from 0) with this value */
} rl_cmp_value_count;
bool rl_cmp_fact_values(const rl_cmp *c, size_t f, rl_cmp_value_count *out, size_t cap,
                        size_t *n_out, size_t *n_distinct);

/* The comparison as JSON: {"schema": "llama-roofline-compare", "schema_version": 1, "form",
 * "test": {name, alpha, min_effect_pct}, "baseline": N (from 1), "inputs": [{label, path,
 * disturbed, disturbance (when disturbed and known), bundle (form "bundles") or summary}],
 * "rows": [{group, subject, metric, unit, kind (when known), one_value (true for a point
 * metric), keys: {name: value}, cells: [{mean, sd, n, ci95_low, ci95_high, samples, disturbed
 * (its own measurement), verdict, verdict_note and disturbed_inputs (suspect: the numbers,
 * from 1, of the side or sides measured disturbed), ratio, delta, change_pct, t, df, p} or
 * {present: false}]}], "facts": [{label, section, suite, differs, values}]}. A summary is the
 * bundle's tool, command, created_utc, source, environment, settings, llama_cpp and analysis
 * fit, ceiling, utilisation, verdict.
 * The "fleet" form (a page of hundreds of inputs) says what it "omitted": an input's summary
 * is its tool, command, created_utc, cpu and analysis fit, ceiling, verdict; a row has a
 * "summary" (rl_cmp_row_summary: faster, slower, noise, untested, missing, suspect,
 * with_ratio, and with a ratio ratio_min, ratio_median, ratio_max, best_input, worst_input from
 * 1) in place of its cells; a fact has "distinct" and "values_top" (at most
 * RL_CMP_FLEET_TOP_VALUES of {value, count, first_input}) in place of its values.
 * NULL when out of memory. */
typedef enum { RL_CMP_JSON_SUMMARY, RL_CMP_JSON_BUNDLES, RL_CMP_JSON_FLEET } rl_cmp_json_form;
#define RL_CMP_FLEET_TOP_VALUES 5
const char *rl_cmp_json_form_name(rl_cmp_json_form form);
cJSON *rl_cmp_to_json(const rl_cmp *c, rl_cmp_json_form form);

#endif
