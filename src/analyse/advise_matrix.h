/* SPDX-License-Identifier: MIT */
/* advise_matrix.h: the format study's measurements (data/format_matrix.csv), compiled into the
 * binary at build time (cmake/embed.cmake writes rl_asset_format_matrix_csv), read by a small
 * strict CSV reader.
 *
 * The file is our own, but the reader still trusts nothing: the header must be exactly the 19
 * known columns, every line must have exactly 19 fields (no quoting: a '"' is refused), every
 * string must fit its field, every number follows the number rule (rl_util.h) and its range,
 * at most RL_MX_MAX_ROWS rows. Empty optional columns (mJ_per_token, perplexity,
 * repack_coverage_pct) become NAN; every other column is required.
 *
 * Ownership: rl_matrix owns its rows; release with rl_matrix_free (safe on a zeroed value). */
#ifndef RL_ADVISE_MATRIX_H
#define RL_ADVISE_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"

#define RL_MX_MAX_ROWS 4096
#define RL_MX_MAX_LINE 1024
#define RL_MX_COLS 19

/* The embedded copy of data/format_matrix.csv (NUL-terminated; the length excludes it). */
extern const unsigned char rl_asset_format_matrix_csv[];
extern const size_t rl_asset_format_matrix_csv_len;

typedef struct {
    char core[32];       /* "cortex-a76" */
    char core_label[64]; /* "Arm Cortex-A76" */
    char isa[16];
    char model[64];
    char format[24];
    char normalization[24];
    char basis[24];
    char source[160];
    double params_b;
    int threads;
    double tok_s, streamed_mib, file_mib, streamed_gbs;
    double mj_per_token; /* NAN when not measured */
    double perplexity;   /* NAN when not measured */
    double on_label_pct, bits_per_weight;
    double repack_pct; /* NAN when not given */
} rl_mx_row;

typedef struct {
    rl_mx_row *rows;
    size_t n;
} rl_matrix;

/* Parse CSV text (name is used in messages). RL_EINPUT naming the line and column for anything
 * out of shape; RL_EINTERNAL when out of memory. out is zeroed first. */
rl_status rl_matrix_parse(const char *name, const char *text, size_t len, rl_matrix *out,
                          rl_error *err);
/* The embedded matrix. */
rl_status rl_matrix_builtin(rl_matrix *out, rl_error *err);
void rl_matrix_free(rl_matrix *m);

/* Distinct cores in first-appearance order: up to cap pointers into the rows' core names;
 * returns how many. */
size_t rl_matrix_cores(const rl_matrix *m, const char **out, size_t cap);
/* The first row of core, or NULL. */
const rl_mx_row *rl_matrix_core_row(const rl_matrix *m, const char *core);

#endif
