/* SPDX-License-Identifier: MIT */
/* export.h: a bundle's verbatim llama-bench records written in llama-bench's own output
 * formats, so llama.cpp's tooling (scripts/compare-llama-bench.py) reads them:
 *   JSONL   each record as llama-bench's -o jsonl wrote it (the stored object, one a line);
 *   CSV     llama-bench's -o csv: a header of the records' fields (their order, without the
 *           sample arrays), every value quoted, '"' doubled, booleans 1/0, avg_ts and
 *           stddev_ts with six decimals as std::to_string writes them;
 *   SQLite  a database file with llama-bench's -o sql table, llama_bench, its column types
 *           (TEXT, INTEGER, REAL: llama-bench's get_field_type) and a row per record.
 * The records come from every run of every model (models[].runs[].records[]: those the
 * analysis used; a disturbed run's earlier attempts are left out): nothing else is written,
 * nothing invented. The caller
 * owns the bundles; text goes to an rl_sbuf, the database to a file made beside path and
 * renamed over it (a symbolic link at path is replaced, never followed). */
#ifndef RL_EXPORT_H
#define RL_EXPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/rl_error.h"
#include "base/rl_text.h"

typedef enum { RL_EXPORT_JSONL, RL_EXPORT_CSV, RL_EXPORT_SQLITE } rl_export_fmt;

/* "jsonl", "csv", "sqlite" (also "sql", "db"); false for another name. */
bool rl_export_fmt_parse(const char *name, rl_export_fmt *fmt);

/* The records of the n bundles, in order, into recs (borrowed pointers, at most max); their
 * count in *n_recs. RL_EINPUT naming the bundle when one has none ("a.json has no llama-bench
 * records (an imported table or a client bundle): nothing to export"). */
rl_status rl_export_collect(const cJSON *const *bundles, const char *const *names, size_t n,
                            const cJSON **recs, size_t max, size_t *n_recs, rl_error *err);

/* JSONL or CSV of the records into out. RL_EINTERNAL when out of memory. */
rl_status rl_export_text(const cJSON *const *recs, size_t n, rl_export_fmt fmt, rl_sbuf *out,
                         rl_error *err);

/* The SQLite database of the records at path. RL_EOUTPUT when it cannot be written. */
rl_status rl_export_sqlite(const cJSON *const *recs, size_t n, const char *path, rl_error *err);

#endif
