/* SPDX-License-Identifier: MIT */
/* html_compare_fleet.h: the comparison page's pieces shared by every size (an input's link,
 * a table with its head) and the three sections a page of RL_CMP_SUMMARY_MIN (compare.h) or more
 * inputs shows summarised instead of cell by cell, so that a fleet of 1,000 machines stays a
 * page of a few MB a browser opens (owner: compare, with html_compare.c):
 *   verdicts     one line per row across the inputs: how many faster, slower, within noise,
 *                not tested, the ratios' minimum, median and maximum, the best and the worst
 *                input (rl_cmp_row_summary);
 *   environment  one line per differing fact: how many distinct values, the most common with
 *                their counts (rl_cmp_fact_values);
 *   inputs       one table row per input (anchor #input-N), not a section each.
 * Every cell stays in `compare --json`; the page says so. Strings reach the page only through
 * html_doc.h. */
#ifndef RL_HTML_COMPARE_FLEET_H
#define RL_HTML_COMPARE_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "analyse/compare.h"
#include "render/html_doc.h"

/* "[N] label" linking to #input-N, into parent. */
void rl_html_cmp_input_link(rl_html *h, xmlNodePtr parent, const rl_cmp *c, size_t i);
/* rl_html_table with the columns from n_num_from on numeric (at most RL_CMP_MAX_KEYS + 16). */
xmlNodePtr rl_html_cmp_table(rl_html *h, xmlNodePtr parent, const char *const *cols, size_t n,
                             size_t n_num_from);
/* An input's effective bandwidth (the fit, NAN without one) and memory ceiling (NAN). */
void rl_html_cmp_input_figures(const cJSON *bundle, double *bw, double *ceil);

/* The summarised sections, into their hosts; all_columns lists every row and fact. */
void rl_html_cmp_fleet_verdicts(rl_html *h, xmlNodePtr host, const rl_cmp *c, bool all_columns);
void rl_html_cmp_fleet_environment(rl_html *h, xmlNodePtr host, const rl_cmp *c, bool all_columns);
void rl_html_cmp_fleet_inputs(rl_html *h, xmlNodePtr host, const rl_cmp *c);

#endif
