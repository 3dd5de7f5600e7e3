/* SPDX-License-Identifier: MIT */
/* import_fm.h: an fm-bench JSON report (schema v1, written by fm-bench 0.7.x and 0.8.x; the
 * format of /work/shared/reference/fm-bench.md section 4.6) made into a client bundle
 * (import.h, input (d)): the `client` section `client` writes, one point per summary row
 * (model x concurrency; each point names its model), each metric of the row with its kind and
 * fm-bench's own statistics as given (count, mean, min, max, p50, p90, p95, p99, sd, cv, ci95),
 * its samples taken from the report's per-run results when they reproduce those statistics,
 * and one record per run. What fm-bench does not record (deliveries, the per-request send
 * times within a retry, a machine state) is unavailable with the reason; so is a metric fm-bench
 * itself marks unavailable (its reason kept) or that its version did not write.
 *
 * The conventions that differ between versions are stated in client.conventions and
 * client.convention: before 0.8.0 TPOT was generation / (output tokens - 1) over raw stdout
 * chunks, the generation window ran to process exit, output counts included fm's framing
 * overhead and the warm-up default was 0; from 0.8.0 (and in `client`) TPOT is generation /
 * (output tokens - first-chunk tokens) over deliveries (chunks < 5 ms apart joined), and the
 * warm-up default is 1. compare keeps rows of the convention-bound metrics apart when the
 * conventions differ. A warm-up fm-bench does not state is its version's default, said so.
 *
 * Every value is untrusted: types and ranges are checked, every array and string is bounded,
 * and an error is RL_EINPUT with one line naming the file and the field (summary[2].ttft.p50).
 * Ownership: root is borrowed; on success the sections are added to the bundle b (which the
 * caller owns and frees on failure too). Nothing here prints or writes a file. */
#ifndef RL_IMPORT_FM_H
#define RL_IMPORT_FM_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_IMPORT_FORMAT_FM_BENCH "fm-bench report v1"

#define RL_IMPORT_FM_MAX_POINTS 4096     /* summary rows */
#define RL_IMPORT_FM_MAX_RESULTS 200000  /* per-run results */
#define RL_IMPORT_FM_MAX_PROMPTS 10000   /* prompts */
#define RL_IMPORT_FM_MAX_NAME 256        /* bytes of a model name, prompt id, tag, ... */
#define RL_IMPORT_FM_MAX_TEXT (1u << 20) /* bytes of a prompt, an output, an error, a note */
#define RL_IMPORT_FM_MAX_GAPS 100000     /* chunk gaps kept as samples (as `client` keeps) */
#define RL_IMPORT_FM_MAX_PAIRS 5000000   /* summary rows x results: each row reads every result */
#define RL_IMPORT_FM_CONVENTION_08 "deliveries" /* 0.8.0 and later, and `client` */
#define RL_IMPORT_FM_CONVENTION_07 "fm-bench 0.7 (raw chunks; TPOT over output tokens - 1)"

/* Whether the JSON document is an fm-bench report: "tool" is "fm-bench", or it has no "tool"
 * but fm-bench's "schemaVersion" and "summary". */
bool rl_import_fm_is(const cJSON *root);

/* Map the report root (read from file, named in messages) into b: source, environment,
 * client. */
rl_status rl_import_fm(const cJSON *root, const char *file, cJSON *b, rl_error *err);

#endif
