/* html_client.h: what a report says about a bundle's `client` section (docs/BUNDLE.md): the
 * HTML section (the driver and settings, a table per operating point with every metric's kind,
 * the TTFT/TPOT distributions and throughput/goodput charts with their data, every request),
 * and the words the page, the Markdown summary and the terminal summary use for a client-only
 * bundle (headline, answer, key figures).
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

#include "render/html_doc.h"
#include "render/report_text.h"
#include "base/rl_error.h"
#include "base/rl_text.h"

/* True for a bundle with a client section and no model (`command: client`): the roofline parts
 * of a report (charts, models, long context) do not apply. */
bool rl_report_client_only(const cJSON *b);

/* Fill the page's client section (the template's element id "client", body "client-body"), or
 * remove it when the bundle has no client section; for a client-only bundle also remove the
 * roofline sections. RL_EINTERNAL when a chart fails to render or out of memory. */
rl_status rl_html_client(rl_html *h, xmlNodePtr root, const cJSON *b, rl_error *err);

/* Headline ("Streaming client: first chunk in 182 ms") and answer sentence of a client bundle. */
void rl_report_client_headline(const cJSON *b, char *buf, size_t cap);
void rl_report_client_answer(const cJSON *b, char *buf, size_t cap);
/* The key figures of a client bundle (at most RL_REPORT_MAX_FIGURES); returns how many. */
size_t rl_report_client_figures(const cJSON *b, rl_report_figure *out);
/* One Markdown table row per operating point (with its header), strings through esc. */
void rl_report_client_markdown(rl_sbuf *s, const cJSON *b, void (*esc)(rl_sbuf *, const char *));
/* The terminal summary: one line per operating point. */
void rl_report_client_print(FILE *out, const cJSON *b);

#endif
