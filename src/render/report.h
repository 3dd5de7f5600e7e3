/* SPDX-License-Identifier: MIT */
/* report.h: a bundle's report for people: the self-contained HTML page (html_page.h) and a
 * short Markdown summary for places where HTML cannot go (the answer, the key figures, the
 * per-model table and the caveats that apply), written atomically.
 *
 * Both are deterministic functions of the bundle (and of this build): the same bundle gives
 * the same bytes. Strings from the bundle are escaped for each medium (text nodes in HTML,
 * backslash escapes in Markdown).
 *
 * Rendering computes nothing: what the analysis works out for the page alone (not stored in the
 * bundle) is computed before, by the caller, and handed over in an rl_report_extra.
 *
 * Ownership: the returned texts are the caller's (free); the bundle and the extra are only
 * read. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stddef.h>

#include <stdio.h>

#include <cjson/cJSON.h>

#include "analyse/predict_expect.h"
#include "base/rl_error.h"

#define RL_REPORT_FILE "report.html"

/* The page's inputs computed from the bundle before rendering (borrowed, only read). */
typedef struct {
    /* the "what to expect" rows: rl_pred_expect_build on this same bundle (the rows' ids point
     * into it); NULL = not computed: the section says there is nothing to predict from */
    const rl_pred_expect *expect;
} rl_report_extra;

/* x may be NULL (nothing computed). */
rl_status rl_report_html(const cJSON *bundle, const rl_report_extra *x, char **out, size_t *len,
                         rl_error *err);
rl_status rl_report_markdown(const cJSON *bundle, char **out, size_t *len, rl_error *err);

/* Render and write to path atomically ("-" = stdout). RL_EOUTPUT naming path when it cannot be
 * written, RL_EINTERNAL when rendering fails. */
rl_status rl_report_write_html(const cJSON *bundle, const rl_report_extra *x, const char *path,
                               rl_error *err);
rl_status rl_report_write_markdown(const cJSON *bundle, const char *path, rl_error *err);

/* "DIR/report.html" for a file "DIR/NAME" ("report.html" for a bare "NAME"); caller frees,
 * NULL when out of memory. */
char *rl_report_path_beside(const char *file);

/* The text summary for people: the answer first (verdict, effective GB/s, % of the ceiling,
 * best threads), then one line per model, the warnings, and the bundle path. */
void rl_report_print_summary(FILE *out, const cJSON *bundle, const char *bundle_path);

#endif
