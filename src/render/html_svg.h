/* SPDX-License-Identifier: MIT */
/* html_svg.h: one chart (chart.h) as a <figure> of the page.
 *
 * The chart's SVG is parsed with libxml2 (no network, no entity expansion; a DOCTYPE is
 * refused) and imported into the page's tree:
 *   - every id gets the chart's prefix ("c-roofline-" for the chart "roofline"), and every
 *     reference to one is rewritten: href and xlink:href="#id", url(#id) in any attribute and
 *     in <style> text, and "#id" selectors in <style> text; so ids never collide between charts
 *     (cairo writes "surface1" and "glyph0-1" in every SVG);
 *   - anything active is dropped (script, foreignObject, on* attributes, links that are not
 *     "#..."), comments and processing instructions too: defence in depth behind the page's
 *     Content-Security-Policy;
 *   - the root loses width/height (CSS sizes it, viewBox kept) and gains role="img",
 *     <title>/<desc> from the chart and aria-labelledby pointing at them.
 * The figure is <figure class="chart" id="fig-ID"> with a <figcaption> (title, description),
 * the SVG, and a folded <details> data table of the plotted numbers (chart cols and cells, as
 * text nodes; numeric cells get class "num"). */
#ifndef RL_HTML_SVG_H
#define RL_HTML_SVG_H

#include "render/chart/chart.h"
#include "render/html_doc.h"

/* Append the chart's figure to parent and return it (*fig). RL_EINTERNAL when the SVG does not
 * parse or is not an SVG (a bug of the chart module) or out of memory. */
rl_status rl_html_add_chart(rl_html *h, xmlNodePtr parent, const rl_chart *c, xmlNodePtr *fig,
                            rl_error *err);

/* A chart maker of chart.h (rl_chart_roofline, rl_chart_client_ttft, ...). */
typedef rl_status (*rl_html_chart_fn)(const cJSON *bundle, rl_chart *c, rl_error *err);
/* Make one chart of bundle with fn and append its figure to parent (*fig). When the chart has
 * nothing to plot (RL_NOTHING) an item "No chart of WHAT: why." goes into the list *missing
 * (a <ul class="missing"> made in missing_parent the first time) and RL_NOTHING is returned
 * with *fig NULL; other failures of the chart are prefixed "report: chart of WHAT". */
rl_status rl_html_chart_or_missing(rl_html *h, xmlNodePtr parent, xmlNodePtr missing_parent,
                                   xmlNodePtr *missing, rl_html_chart_fn fn, const cJSON *bundle,
                                   const char *what, xmlNodePtr *fig, rl_error *err);

/* The id prefix of a chart id: "c-" + the id with every character outside [a-z0-9-] as '-' +
 * "-", into buf. */
void rl_html_chart_prefix(const char *chart_id, char *buf, size_t cap);

#endif
