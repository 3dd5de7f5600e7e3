/* SPDX-License-Identifier: MIT */
/* client_text.h: the words every medium (page, Markdown, terminal) says about a client-only
 * bundle: whether it is one, its headline and answer, its key figures, its Markdown rows and
 * its terminal lines (owner: render), and the bundle readers the HTML section (html_client.c)
 * shares with them. Medium-neutral: report_text.c reads this, never an html_* header. Defined
 * in client_text.c.
 *
 * Everything is read from the bundle as stored; bundle strings reach the terminal through
 * rl_tty_escape and the Markdown through the caller's escaper. Nothing returned is allocated. */
#ifndef RL_CLIENT_TEXT_H
#define RL_CLIENT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "render/report_text.h"
#include "base/rl_text.h"

/* Operating points shown in tables and lines, at most. */
#define RL_REPORT_CLIENT_MAX_POINTS 64

/* ---- bundle readers ---- */

/* client.points, NULL unless an array. */
const cJSON *rl_report_client_points(const cJSON *b);
/* A metric object not marked "available": false. */
bool rl_report_client_available(const cJSON *m);
/* A summary statistic (stats.K) of a distribution metric, NAN when unavailable. */
double rl_report_client_stat(const cJSON *m, const char *k);
/* A point metric's value, NAN when unavailable. */
double rl_report_client_value(const cJSON *m);
/* v as report text (rl_report_fmt_num), "n/a" when not finite. */
void rl_report_client_num(double v, char *buf, size_t cap);
/* A point's concurrency, NAN when absent. */
double rl_report_client_conc(const cJSON *pt);

/* ---- words ---- */

/* True for a bundle with a client section and no model (`command: client`): the roofline parts
 * of a report (charts, models, long context) do not apply. */
bool rl_report_client_only(const cJSON *b);

/* True when the client bundle's numbers are provisional (analysis.provisional: an operating
 * point was measured while the machine was busy), with "2 of 3 operating points were measured
 * while the machine was busy" into buf (when cap > 0). */
bool rl_report_client_provisional(const cJSON *b, char *buf, size_t cap);
/* Headline ("Streaming client: first chunk in 182 ms", "... (provisional: a busy machine)") and
 * answer sentence ("Provisional, 2 of 3 operating points were ...: ...") of a client bundle. */
void rl_report_client_headline(const cJSON *b, char *buf, size_t cap);
void rl_report_client_answer(const cJSON *b, char *buf, size_t cap);
/* The key figures of a client bundle (at most RL_REPORT_MAX_FIGURES); returns how many. */
size_t rl_report_client_figures(const cJSON *b, rl_report_figure *out);
/* One Markdown table row per operating point (with its header), strings through esc. */
void rl_report_client_markdown(rl_sbuf *s, const cJSON *b, void (*esc)(rl_sbuf *, const char *));
/* The terminal summary: the answer, then rl_report_client_table. */
void rl_report_client_print(FILE *out, const cJSON *b);
/* One row per operating point: concurrency, ok/all, failures, TTFT and E2E p50/p95, TPOT p50,
 * decode tok/s (token-weighted), requests/s, goodput (good / all requests). */
void rl_report_client_table(FILE *out, const cJSON *b);
/* Per point, the E2E samples in up to 20 equal-width buckets (min to max; ceil(sqrt(n))
 * of them), each a row "lo - hi  ####  count" with bars scaled to 40 characters. */
void rl_report_client_histogram(FILE *out, const cJSON *b);

#endif
