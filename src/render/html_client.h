/* SPDX-License-Identifier: MIT */
/* html_client.h: what a report says about a bundle's `client` section (docs/BUNDLE.md): the
 * HTML section (the driver and settings, a table per operating point with every metric's kind,
 * the TTFT/TPOT distributions and throughput/goodput charts with their data, every request),
 * and the words the page, the Markdown summary and the terminal summary use for a client-only
 * bundle (headline, answer, key figures).
 * The medium-neutral words (headline, answer, figures, the Markdown rows, the terminal lines)
 * and the bundle readers the HTML section uses are declared in client_text.h (included here)
 * and defined in client_text.c.
 *
 * Everything is read from the bundle as stored: nothing is recomputed. Strings from the bundle
 * reach the page as text nodes (html_doc.h), the terminal through rl_tty_escape, the Markdown
 * through the caller's escaper. Ownership: nothing returned is allocated; nodes belong to the
 * page's document. */
#ifndef RL_HTML_CLIENT_H
#define RL_HTML_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "render/client_text.h"
#include "render/html_doc.h"
#include "render/report_text.h"
#include "base/rl_error.h"
#include "base/rl_text.h"

/* Fill the page's client section (the template's element id "client", body "client-body"), or
 * remove it when the bundle has no client section; for a client-only bundle also remove the
 * roofline sections. RL_EINTERNAL when a chart fails to render or out of memory. */
rl_status rl_html_client(rl_html *h, xmlNodePtr root, const cJSON *b, rl_error *err);

/* The "Tags" and "Note" rows of a client run (client.settings tags / note: --tag, --note) into
 * a definition list, when it had any; the comparison page shows them per input too. */
void rl_html_client_labels(rl_html *h, xmlNodePtr dl, const cJSON *settings);

#endif
