/* SPDX-License-Identifier: MIT */
/* import.h: results measured elsewhere turned into a result bundle (bundle.h), so the report,
 * compare and every other reader of bundles work on them too.
 *
 * Four kinds of input, told apart by their content, never by the file name:
 *   (a) the results JSON of the published llama-roofline (Python, "roofline.json",
 *       schema_version 1): its machine, ceiling, models and their runs. A run there keeps only
 *       the mean rate and its standard deviation, so the bundle's rates carry "mean" and "sd"
 *       with the samples marked unavailable; bytes per token are exactly the ones that file
 *       used; its ceiling is "measured" when its source says so and "controlled" otherwise.
 *   (b) raw llama-bench output, `-o json` (an array) or `-o jsonl` (an object per line): its
 *       records grouped by (model_filename, n_threads, n_depth) into one model per file and
 *       one run per group, each run keeping its records verbatim and its rates recomputed
 *       from samples_ns; no ceiling.
 *   (c) llama-bench's tables (import_lbench.h): `-o csv` (a header row of its field names),
 *       `-o sql` (the SQL text, run under an authorizer that allows only CREATE TABLE
 *       llama_bench and INSERT INTO llama_bench) and an SQLite database holding its
 *       llama_bench table (the 16-byte SQLite header; opened read-only from the bytes read).
 *       Each row becomes the record `-o json` would have printed, typed as llama-bench types
 *       each field, and from there on it is (b): the same grouping, rates and analysis. These
 *       tables keep no samples, so a record's rate is its avg_ts, one sample.
 *   (d) an fm-bench JSON report (import_fm.h: "tool" "fm-bench", schemaVersion "1"): a client
 *       bundle, the section `client` writes, one point per summary row, fm-bench's statistics
 *       as given and its conventions (0.7.x or 0.8.0) stated; no models, no ceiling.
 * Everything else is RL_EINPUT with one line naming the file and what was expected. Every
 * byte of the input is untrusted: the size, the number of models and of runs are bounded,
 * every value read is type- and range-checked (the message names the key, or the line, row
 * and column of a table), and the whole file must be UTF-8 without NUL bytes (an SQLite
 * database aside). Keys the bundle has no place for are kept under
 * "imported" next to what was made of them (the source's top level under source.imported,
 * each model's object under models[].imported, each run's under runs[].imported).
 * docs/BUNDLE.md (imported bundles) and docs/CLI.md (`import`) describe the result.
 *
 * The analysis is then run over the bundle (rl_bundle_analyze) with the byte convention of
 * the source: resident for llama-bench output and for the published results. source.format
 * names the input: one of the RL_IMPORT_FORMAT_* below.
 *
 * Ownership: the options are borrowed; *out is a new bundle the caller frees with
 * cJSON_Delete (NULL on failure). Nothing here prints or writes a file. */
#ifndef RL_IMPORT_H
#define RL_IMPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_IMPORT_MAX_BYTES (64u << 20) /* largest input file read */
#define RL_IMPORT_MAX_MODELS 1024       /* models in one input */
#define RL_IMPORT_MAX_RUNS 1024         /* runs of one model in a roofline.json */
#define RL_IMPORT_MAX_THREADS 4096      /* a run's thread count, as `run --threads` allows */

#define RL_IMPORT_FORMAT_ROOFLINE "llama-roofline roofline.json v1"
#define RL_IMPORT_FORMAT_LBENCH_JSON "llama-bench json"
#define RL_IMPORT_FORMAT_LBENCH_JSONL "llama-bench jsonl"
#define RL_IMPORT_FORMAT_LBENCH_CSV "llama-bench csv"
#define RL_IMPORT_FORMAT_LBENCH_SQL "llama-bench sql"
#define RL_IMPORT_FORMAT_LBENCH_SQLITE "llama-bench sqlite"
/* (d): RL_IMPORT_FORMAT_FM_BENCH, import_fm.h */

/* Where the published results come from (data/SOURCES.md), stored as source.attribution of
 * a bundle imported from a roofline.json. */
#define RL_IMPORT_ROOFLINE_ATTRIBUTION                                                             \
    "llama-roofline by M. N. Jacob, MIT licence, "                                                 \
    "https://github.com/manunicholasjacob/llama-roofline; cite as llama-roofline v0.2.0, "         \
    "doi:10.5281/zenodo.21842493 (concept DOI). The Raspberry Pi 5 results come from the "         \
    "format study behind it, doi:10.5281/zenodo.21938812."

typedef struct {
    const char *name; /* --name: a label stored as source.name; NULL for none */
    int argc;         /* the command line recorded in the bundle (argv[0] is "import") */
    char *const *argv;
} rl_import_opts;

/* Read path (a regular file of at most RL_IMPORT_MAX_BYTES) and import it: the models, runs,
 * ceiling and settings (bytes_convention among them), status "running" until the analyse stage
 * finishes it (analyse/analysis_bundle.h: rl_bundle_analyze_import). The file is
 * named in source.file by its base name and in every message as given. */
rl_status rl_import_file(const char *path, const rl_import_opts *o, cJSON **out, rl_error *err);

/* The same on text already read (len bytes; text[len] need not be NUL). file names the input
 * in messages and its base name goes to source.file. */
rl_status rl_import_text(const char *text, size_t len, const char *file, const rl_import_opts *o,
                         cJSON **out, rl_error *err);

#endif
