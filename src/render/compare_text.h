/* SPDX-License-Identifier: MIT */
/* compare_text.h: a comparison (compare.h) as text for people: the terminal table or Markdown
 * for issue comments (owner: compare). Both say the same things in the same order: the inputs
 * and the baseline, the test and its thresholds, the verdict counts, the warnings (environment
 * and suite differences), then per group of rows a table with the key columns that vary (all
 * with all_columns), each input's value with its 95% CI (or sd, or "mean only"), ratio, delta
 * and the verdict as an arrow and words; a group with a row measured disturbed gets a
 * "disturbed" column naming the side that was (rl_cmp_fmt_disturbed). By default only rows present
 * in the baseline and the input are listed (their number is said); all_columns lists every row.
 *
 * Strings from the bundles are escaped for the medium (rl_tty_escape on the terminal, backslash
 * escapes in Markdown). Ownership: the returned text is the caller's (free); NULL when out of
 * memory. */
#ifndef RL_COMPARE_TEXT_H
#define RL_COMPARE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "analyse/compare.h"
#include "base/rl_text.h"

/* From RL_CMP_SUMMARY_MIN inputs the text lists the first RL_CMP_TEXT_INPUTS_LISTED inputs and
 * one line per row across the inputs (rl_cmp_row_summary) instead of one per cell. */
#define RL_CMP_TEXT_INPUTS_LISTED 10
char *rl_cmp_text(const rl_cmp *c, bool markdown, bool all_columns);

/* "96.74 ± 2.98" (mean and CI half-width), "16.49 (sd 5.92)", "5.25 (mean only)", a point
 * metric's value alone, or "-" into buf. */
void rl_cmp_fmt_value(const rl_cmp_cell *x, char *buf, size_t cap);
/* "x0.800", "-19.4 (-20.0%)" into buf; "" when there is no ratio. */
void rl_cmp_fmt_ratio(const rl_cmp_cell *x, char *buf, size_t cap);
void rl_cmp_fmt_delta(const rl_cmp_cell *x, char *buf, size_t cap);
/* The metric with its kind: "decode (measured)"; with its unit too when its group mixes units:
 * "TTFT (proxy, ms)"; the metric alone when the row has neither. */
void rl_cmp_fmt_metric(const rl_cmp_row *row, char *buf, size_t cap);
/* "↓ slower (p = 0.0012)" and the like. */
void rl_cmp_fmt_verdict(const rl_cmp_cell *x, char *buf, size_t cap);
/* "Disturbed: N of these were measured while the machine was busy ...: [2] loaded, other
 * processes used 88% of the CPUs during 4 of 4 llama-bench runs. ...": the line under the
 * summary when k->disturbed > 0 (terminal, Markdown and page), naming each disturbed input
 * (up to 6) with its analysis.disturbance.text, else how many of its measurements were. */
void rl_cmp_disturbed_sentence(const rl_cmp *c, const rl_cmp_counts *k, char *buf, size_t cap);
/* The "disturbed" column of row r for input i: "[2]" (this input was measured disturbed),
 * "[1] (baseline)", "[1] and [2]" (both), or "" when the cell is not suspect. */
void rl_cmp_fmt_disturbed(const rl_cmp *c, size_t r, size_t i, char *buf, size_t cap);

/* A small table of text cells (n_cols per row, row-major; the first row is the header),
 * rendered aligned on a terminal (every cell escaped, each column as wide as its widest cell,
 * two spaces between, no trailing blanks) or as a Markdown table (cells escaped). Shared by
 * compare and history. rl_cmp_table_cell copies s (NULL: ""); out of memory sets t->oom. */
typedef struct {
    char **cells;
    size_t n_cols, n, cap; /* n cells */
    bool oom;
} rl_cmp_table;
void rl_cmp_table_cell(rl_cmp_table *t, const char *s);
void rl_cmp_table_render(rl_sbuf *b, const rl_cmp_table *t, bool markdown, const char *indent);
void rl_cmp_table_free(rl_cmp_table *t);
/* One line of text: prefix, then s Markdown-escaped or terminal-escaped, then a newline. */
void rl_cmp_text_line(rl_sbuf *b, bool markdown, const char *prefix, const char *s);

#endif
