/* SPDX-License-Identifier: MIT */
/* validate.h: semantic checks of a result bundle (docs/BUNDLE.md), beyond its JSON Schema.
 *
 * rl_validate walks a parsed bundle and lists every problem it finds, each with the JSON path
 * of the offending value (`models[1].runs[0].decode.stats.mean`; the top level itself is "")
 * and a one-line message. The checks (docs/CLI.md, `validate`):
 *   - top level: required keys and their types, schema name and version (rl_bundle_check),
 *     timestamps YYYY-MM-DDTHH:MM:SSZ, status.state one of the states;
 *   - kinds: every object carrying numbers has "kind" in {measured, proxy, derived, controlled}
 *     (or sits inside one that has), or is {"available": false, "reason": non-empty}; the
 *     verbatim and descriptive sections (environment, llama_cpp, tool, source, status, gguf,
 *     records, imported, argv) and the run objects themselves are not metrics and are skipped;
 *   - rates (runs[].decode/prefill): unit "tok/s"; samples positive and finite; stats.n equals
 *     the number of samples, stats.mean/min/max agree with them (relative 1e-9), stats.sd is the
 *     sample standard deviation (relative 1e-9) when n >= 2 and unavailable when n = 1,
 *     ci95.low <= mean <= ci95.high; an imported rate without samples has a positive mean;
 *   - runs: threads >= 1, depth >= 0, a known status; status ok has an available decode rate;
 *     every llama-bench record has n_threads and n_depth equal to the run's, and an ok run with
 *     records has a decode record (n_gen > 0); a rate's sample count equals the samples_ns
 *     values of its records (decode: n_gen > 0, n_prompt 0; prefill the reverse) at the run's
 *     depth, a record without samples_ns counting once;
 *   - models: ids non-empty and unique; bytes_per_token positive, unit "bytes";
 *   - analysis: kind derived; fit recomputed from analysis.models[] with in_fit true
 *     (x = 1 / bytes_per_token, y = operating_point.decode_tok_s; BW = sum(x y) / sum(x^2))
 *     against bw_bytes_s (relative 1e-9), bw_GBs = bw_bytes_s / 1e9, n_points = the number of
 *     fitted models, r2 recomputed (absolute 1e-9); every analysis model refers to a model;
 *     decode_bw_GBs = bytes_per_token * decode_tok_s / 1e9 and utilisation util_pct =
 *     100 * decode_bw_GBs / ceiling_GBs (relative 1e-9), ceiling_GBs the analysis ceiling;
 *   - advice (advise --measure): kind derived; rows fastest first, each naming a model, its
 *     decode a valid rate with stats.mean = tok_s, streamed_GBs = tok_s x streamed_MiB x 2^20 /
 *     1e9, vs_best_pct and tied (within 5%) recomputed; ranking and fastest follow the rows;
 *   - membw.bracket (run, diagnose): kind measured; probes non-empty, each "at" before,
 *     between or after, t_s >= 0, GBs > 0; before_GBs the first probe, spread_pct = (highest
 *     - lowest) / highest x 100 (relative 1e-9), limit_pct in (0, 100], drift = spread_pct >
 *     limit_pct;
 *   - warnings (top level, run_warnings, analysis.warnings): code [a-z0-9_]+, non-empty text,
 *     applies_to a list of existing model ids.
 *   - analysis.disturbance (not of a bundle still running): n_measurements, n_disturbed,
 *     by_kind and disturbed recounted from the machine objects of the llama-bench runs, membw
 *     runs and client points; a client analysis (scope "client", no fit needed) provisional
 *     exactly when disturbed; a client point's machine.measured_server has pids with found_by,
 *     or none and a reason;
 *   - calibration (bundle/calib.h): kind derived, the key's four strings, every type not
 *     calibrated a ggml type with a reason; sets in ascending thread order, each type once,
 *     measurable, source measured or cache; each point's role known and once, its bytes an
 *     integer >= 1, its run a valid run (as above) at the set's thread count, its machine
 *     state; every derived value (compute_roof.GBs, fixed.us, per_layer.us, base.us,
 *     stream.GBs, each point's rate) recomputed from the points (rl_cal_type_finish; relative
 *     1e-9), unavailable exactly where the recomputation is;
 *   - client (docs/BUNDLE.md): settings and token calibration kinds; per point requests
 *     ok + failed = measured, attempts >= measured, one record per measured request, goodput
 *     good <= ok; every metric has the legend's kind and unit or is unavailable with a reason,
 *     a summary's n, mean, min and max agree with its samples, no distribution but the pooled
 *     chunk gaps has more values than ok requests.
 *
 * Ownership: the problem list owns its strings; free it with rl_validate_problems_free. */
#ifndef RL_VALIDATE_H
#define RL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

typedef struct {
    char *path; /* JSON path, "" for the top level */
    char *msg;  /* one line, no trailing newline */
} rl_validate_problem;

typedef struct {
    rl_validate_problem *items;
    size_t n;
    size_t cap;
    bool oom; /* set when a problem could not be stored */
} rl_validate_problems;

/* Check bundle and append every problem to out (zero it first: {0}). RL_OK when the checks ran
 * (out->n == 0 means valid); RL_EINTERNAL when out of memory. */
rl_status rl_validate(const cJSON *bundle, rl_validate_problems *out);
/* Check a standalone membw result (`membw --json`, `membw -o FILE`: not a bundle, the object
 * a bundle holds as "membw") and append every problem to out: kind measured or controlled,
 * peak_read_GBs above 0, complete a boolean (measured), every run's kernel, threads (>= 1),
 * samples_GBs (at least one, each above 0) and machine (as a bundle's), and
 * env.machine_state's measurements and disturbed recounted from the runs' machine objects.
 * RL_OK when the checks ran; RL_EINTERNAL when out of memory. */
rl_status rl_validate_membw(const cJSON *membw, rl_validate_problems *out);
/* Check a comparison's JSON (compare --json, or the "compare" data of a comparison page;
 * compare.h): schema_version 1, form one of bundles, summary, fleet; the test's alpha in (0, 1)
 * and min_effect_pct >= 0; 2 to RL_CMP_MAX_INPUTS inputs each with label, path and disturbed
 * (a bundle in the bundles form), the baseline one of them; every row's group, subject,
 * metric, unit and string keys; outside the fleet form one cell per input, each present cell
 * with a finite mean, n (0 to RL_CMP_MAX_SAMPLES) samples whose mean it is (relative 1e-9), a
 * known verdict but on the baseline's (which has none), ratio = mean / the baseline's mean
 * (relative 1e-9), a p-value in [0, 1] behind faster and slower; in the fleet form each row's
 * summary counts adding up to the other inputs, ratio_min <= ratio_median <= ratio_max and
 * the best and worst an input; one value per input for each fact (the fleet form: distinct
 * and values_top fitting the inputs). RL_OK when the checks ran; RL_EINTERNAL out of memory. */
rl_status rl_validate_compare(const cJSON *compare, rl_validate_problems *out);
/* Append one problem (for the checks of other documents); out->oom when it cannot. */
void rl_validate_add(rl_validate_problems *out, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Free the strings and the array; out is zeroed. */
void rl_validate_problems_free(rl_validate_problems *out);
/* The first problem whose path is exactly path, or NULL. */
const rl_validate_problem *rl_validate_find(const rl_validate_problems *p, const char *path);

#endif
