/* SPDX-License-Identifier: MIT */
/* html_advice.h: the report's section for measured quantization advice (`advise --measure`
 * bundles, their "advice" section; docs/BUNDLE.md). One table per thread count, fastest format
 * first, with the decode rate and its 95% interval, the streamed bytes and GB/s, the share below
 * the streaming envelope, what the file really holds (on-label share, bits per weight), the
 * tied formats, the matched-byte spread and the composition warning.
 *
 * Called once by html_page.c: the template's placeholder (id "advice") is replaced by the
 * section, or removed when the bundle holds no advice. Strings from the bundle reach the page
 * only as text nodes (html_doc.h). Nodes belong to the page's document. */
#ifndef RL_HTML_ADVICE_H
#define RL_HTML_ADVICE_H

#include <cjson/cJSON.h>
#include <libxml/tree.h>

#include "render/html_doc.h"

void rl_html_advice(rl_html *h, xmlNodePtr root, const cJSON *bundle);

#endif
