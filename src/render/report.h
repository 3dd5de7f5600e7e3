/* report.h: a bundle's report for people: the self-contained HTML page (html_page.h) and a
 * short Markdown summary for places where HTML cannot go (the answer, the key figures, the
 * per-model table and the caveats that apply), written atomically.
 *
 * Both are deterministic functions of the bundle (and of this build): the same bundle gives
 * the same bytes. Strings from the bundle are escaped for each medium (text nodes in HTML,
 * backslash escapes in Markdown).
 *
 * Ownership: the returned texts are the caller's (free); the bundle is only read. */
#ifndef RL_REPORT_H
#define RL_REPORT_H

#include <stddef.h>

#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_REPORT_FILE "report.html"

rl_status rl_report_html(const cJSON *bundle, char **out, size_t *len, rl_error *err);
rl_status rl_report_markdown(const cJSON *bundle, char **out, size_t *len, rl_error *err);

/* Render and write to path atomically ("-" = stdout). RL_EOUTPUT naming path when it cannot be
 * written, RL_EINTERNAL when rendering fails. */
rl_status rl_report_write_html(const cJSON *bundle, const char *path, rl_error *err);
rl_status rl_report_write_markdown(const cJSON *bundle, const char *path, rl_error *err);

/* "DIR/report.html" for a file "DIR/NAME" ("report.html" for a bare "NAME"); caller frees,
 * NULL when out of memory. */
char *rl_report_path_beside(const char *file);

/* The text summary for people: the answer first (verdict, effective GB/s, % of the ceiling,
 * best threads), then one line per model, the warnings, and the bundle path. */
void rl_report_print_summary(FILE *out, const cJSON *bundle, const char *bundle_path);

#endif
