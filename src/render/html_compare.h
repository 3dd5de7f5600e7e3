/* SPDX-License-Identifier: MIT */
/* html_compare.h: the comparison page (owner: compare), assembled from templates/compare.xml
 * with the report's machinery: libxml2 tree (html_doc.h), the report's stylesheet and
 * Content-Security-Policy (no script runs, nothing is loaded), charts as inline SVG
 * (html_svg.h), and the data embedded as <script type="application/json" id="compare">
 * (rl_cmp_to_json, written by rl_html_json_for_script): every input's whole bundle with fewer
 * than RL_CMP_FLEET_MIN inputs, each input's summary from then on (the rows keep every
 * sample), and from RL_CMP_SUMMARY_MIN (compare.h) the fleet form, whose rows and facts are
 * summarised across the inputs like the page's sections (html_compare_fleet.h).
 *
 * Reading order: the headline (verdict counts) and the test with its thresholds; with 10 or
 * more inputs a fleet table ranked by effective bandwidth (the fit) and % of the ceiling, each
 * name linking to its input's section (#input-N); the environment and suite differences; one
 * roofline with every input (compare_chart.h); the verdict tables (arrows and words, not colour
 * alone); the long-context charts of the inputs that have them, side by side; the environment
 * table (differing facts, every fact with all_columns); one section per input.
 *
 * Deterministic: the same inputs give the same bytes. Ownership: *out is the caller's (free). */
#ifndef RL_HTML_COMPARE_H
#define RL_HTML_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "analyse/compare.h"

#define RL_CMP_FLEET_MIN 10 /* inputs from which the page leads with the fleet table */

rl_status rl_html_compare(const rl_cmp *c, bool all_columns, char **out, size_t *len,
                          rl_error *err);

#endif
