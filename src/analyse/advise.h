/* SPDX-License-Identifier: MIT */
/* advise.h: which quantization format for a core, from the format study's matrix
 * (advise_matrix.h) or from formats measured here with llama-bench (`advise --measure`).
 *
 * One advice block = one core x one thread count x one model scale; nothing is averaged across
 * cores. Rules (llama-roofline.md section 2.8; seed 000 section 8):
 *   scale: the measured scale nearest the one asked for (ties: the smaller; default: the
 *   smallest). threads: default the thread count of the single fastest row at that scale
 *   ("fastest measured"); asked for: the nearest measured (ties: fewer), "as requested" or
 *   "nearest measured to N".
 *   Rows sorted by tok/s, fastest first. Tied: within RL_ADV_TIE_PCT (5%) of the fastest
 *   (formats within a few percent are not reliably ordered). Envelope deficit: 100 x (1 -
 *   GB/s / best GB/s of the table): time lost unpacking at equal traffic; off-envelope: the
 *   worst, when >= 10%. Pareto: not beaten on both tok/s and perplexity (rows without
 *   perplexity are kept). Best quality at speed: among the tied formats with a perplexity,
 *   those within RL_ADV_PPL_TIE of the best perplexity, lowest energy (missing counts as 0),
 *   then fastest. Mislabelled: on-label share < 60%, ascending; the composition warning
 *   applies when there is any (a small model's format comparison is partly a comparison of
 *   what the quantizer substituted). Matched bytes, per thread count: rows sorted by streamed
 *   MiB, the largest group whose streamed MiB stay within 3% of its smallest (first found on
 *   ties), at least min_group formats (3 for the matrix, 2 for local files); spread = 100 x
 *   (fastest / slowest - 1). Ranking stable when the top three are the same at every thread
 *   count.
 *
 * Ownership: an rl_advice borrows the matrix it was computed from (its row pointers and
 * strings point into it): keep the matrix until the advice is no longer used. JSON builders
 * return new trees the caller frees (cJSON_Delete). */
#ifndef RL_ADVISE_H
#define RL_ADVISE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "analyse/advise_matrix.h"
#include "measure/cpu_detect.h"
#include "base/rl_error.h"

#define RL_ADV_TIE_PCT 5.0
#define RL_ADV_PPL_TIE 0.05
#define RL_ADV_MATCH_RATIO 1.03
#define RL_ADV_OFF_ENVELOPE_PCT 10.0
#define RL_ADV_ON_LABEL_CONFOUNDED 60.0
#define RL_ADV_MAX_ROWS 64
#define RL_ADV_MAX_THREADS 16
#define RL_ADV_MIN_GROUP_MATRIX 3
#define RL_ADV_MIN_GROUP_LOCAL 2

typedef struct {
    const rl_mx_row *row;
    double vs_best_pct; /* 100 x (tok/s / fastest - 1): 0 for the fastest, negative below */
    double deficit_pct; /* below the streaming envelope of the table */
    bool tied;          /* within RL_ADV_TIE_PCT of the fastest */
    bool pareto;
} rl_adv_entry;

typedef struct {
    int threads;
    const char *ranking[RL_ADV_MAX_ROWS]; /* formats, fastest first */
    int n_ranking;
    bool matched; /* a matched-byte group of at least min_group formats exists */
    const char *group[RL_ADV_MAX_ROWS];
    int n_group;
    double group_mean_mib, spread_pct;
    const char *group_fastest, *group_slowest;
} rl_adv_thread;

typedef struct {
    char core[32];
    char core_label[64]; /* the matrix's label */
    char label[64];      /* what this machine has (detection), else the matrix's label */
    rl_evidence evidence;
    char why[256];
    char model[64];
    double scale;
    int threads;
    int threads_avail[RL_ADV_MAX_THREADS];
    int n_avail;
    char thread_choice[48];
    rl_adv_entry e[RL_ADV_MAX_ROWS];
    int n;
    int best_quality;  /* index into e, -1 when no perplexity */
    int lowest_energy; /* -1 when no energy */
    int off_envelope;  /* -1 unless the worst deficit is >= 10% */
    int mislabelled[RL_ADV_MAX_ROWS];
    int n_mislabelled;
    rl_adv_thread per_thread[RL_ADV_MAX_THREADS];
    int n_per_thread;
    bool ranking_stable;
} rl_advice;

/* One block for core. scale <= 0: the smallest measured; threads <= 0: the fastest measured.
 * RL_EINPUT when the matrix has no row for core ("no measurements for core 'x'. Known: ..."). */
rl_status rl_advise_core(const rl_matrix *m, const char *core, double scale, int threads,
                         int min_group, rl_advice *out, rl_error *err);

/* The block as JSON: core, label, evidence, rows (fastest first), ranking, fastest, tied,
 * best quality, energy, off-envelope, mislabelled, per-thread rankings and matched-byte spread,
 * composition warning. */
cJSON *rl_advice_to_json(const rl_advice *a);

/* One row's numbers into x: tok_s, vs_best_pct, tied, streamed_MiB, streamed_GBs,
 * envelope_deficit_pct (shared by the --json rows and the bundle's advice rows). */
void rl_advice_entry_json(cJSON *x, const rl_adv_entry *e);

/* The composition warning of a block as one sentence into buf, or "" when it does not apply. */
void rl_advice_composition_warning(const rl_advice *a, char *buf, size_t cap);

/* The measured advice of a bundle (`advise --measure`): from every model's depth-0 runs with
 * status ok, one table per thread count (same rules, matched groups of 2 or more), each row
 * with its run's decode rate copied as the run has it (samples and stats, rl_bundle_rate), set
 * as the bundle's "advice" (kind derived). machine names the CPU. RL_NOTHING when no run
 * produced a decode rate (the section then says so, unavailable). */
rl_status rl_advise_bundle(cJSON *bundle, const char *machine, rl_error *err);
/* The same from the two-roof predictions (docs/METHOD.md "Two roofs"): each model's
 * models[].gguf through the bundle's calibration set of each thread count, no run read; the
 * advice's "basis" is "predicted" (the measured one's "measured") and each row holds its
 * "two_roof" (rl_pred_roofs_json) in place of "decode". A model without a prediction at any
 * thread count is skipped with the reason. RL_NOTHING when no model has one. */
rl_status rl_advise_bundle_predicted(cJSON *bundle, const char *machine, rl_error *err);

#endif

/* ---- for people (advise_text.c) ----------------------------------------------------------
 * Every text is built with rl_sbuf and returned malloc'd (caller frees; NULL when out of
 * memory). Strings from cpuinfo, GGUF files and bundles are escaped (rl_tty_escape) in text and
 * backslash-escaped in Markdown. */

/* The advice for this machine: the machine line, one block per core (table, tied formats,
 * quality, energy, envelope, thread stability, composition warning, matched-byte spread), or,
 * with no block, the recipe for measuring here; then what held on every core of the matrix m
 * (rl_advise_facts), the limits and the source. */
char *rl_advise_text(const rl_matrix *m, const rl_cpu_info *cpu, const rl_advice *blocks, int n,
                     bool markdown);

/* What held on every core of the matrix, at its smallest scale, each core at its fastest
 * thread count: the formats holding >= 90% and < 1% of their labelled type (sorted by name),
 * Q4_K_M's envelope deficit per core, and each core's fastest format. */
#define RL_ADV_MAX_CORES 8
typedef struct {
    double scale;
    int n_formats;
    const char *on_label[RL_ADV_MAX_ROWS]; /* >= 90% */
    int n_on_label;
    const char *none[RL_ADV_MAX_ROWS]; /* < 1% */
    int n_none;
    struct {
        const char *label;
        double q4km_deficit_pct; /* NAN when Q4_K_M was not measured */
        const char *fastest;
        int threads;
    } core[RL_ADV_MAX_CORES];
    int n_cores;
} rl_adv_facts;
void rl_advise_facts(const rl_matrix *m, rl_adv_facts *out);
/* `advise --list-cores`: every core of the matrix with its scales, thread counts and rows. */
char *rl_advise_list_cores(const rl_matrix *m);
/* The measured advice section of a bundle (rl_advise_bundle) as a report for people. */
char *rl_advise_measured_text(const cJSON *bundle, bool markdown);
/* The detection as JSON (cpu, board, isa, vendor, family, model, logical, hybrid, detail,
 * cores[] with evidence). */
cJSON *rl_cpu_info_to_json(const rl_cpu_info *cpu);

/* `advise --plan`: the formats worth comparing from an F16/BF16/F32 source. label is the
 * source's GGUF label. RL_EINPUT with the reason (an already-quantized source: requantized
 * files keep the label but not the per-tensor map) when the source is not one of those;
 * otherwise *out is the plan text (caller frees). */
#define RL_ADV_PLAN_N 7
extern const char *const rl_advise_plan_formats[RL_ADV_PLAN_N];
rl_status rl_advise_plan(const char *path, const char *label, bool markdown, char **out,
                         rl_error *err);
