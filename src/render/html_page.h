/* SPDX-License-Identifier: MIT */
/* html_page.h: the HTML report of a bundle, assembled from templates/report.xml (compiled in,
 * report_assets.h) through libxml2's tree API.
 *
 * Reading order: the answer in one sentence and the run's state; the key figures with units,
 * kinds and their caveats; the charts (chart.h), each with its data table and its caveats; the
 * per-model table; the warnings; the long-context table; what is not measured; environment and
 * provenance (exact commands, llama.cpp build, settings, every invocation). The bundle is
 * embedded as <script type="application/json" id="bundle"> (rl_html_json_for_script), with
 * strings that are not UTF-8 repaired first, so a report read back gives the same page.
 *
 * Deterministic: the page depends only on the bundle and this build (no clock, no host, no
 * path of the source tree) and on what was computed from it beforehand (x, report.h: rendering
 * computes nothing). Allocates the page (caller frees); the bundle and x are only read. */
#ifndef RL_HTML_PAGE_H
#define RL_HTML_PAGE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"
#include "render/report.h"

/* The page as UTF-8 HTML in *out (caller frees), its length in *len. RL_EINTERNAL when out of
 * memory or when a chart module fails; a chart with nothing to draw is only noted. */
rl_status rl_html_page(const cJSON *bundle, const rl_report_extra *x, char **out, size_t *len,
                       rl_error *err);
/* The same page written to path as rl_html_write writes it ("-" standard output, a file
 * atomically), its embedded bundle streamed piece by piece: the page of a large bundle is
 * never held whole in memory. */
rl_status rl_html_page_write(const cJSON *bundle, const rl_report_extra *x, const char *path,
                             rl_error *err);

#endif
