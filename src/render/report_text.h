/* SPDX-License-Identifier: MIT */
/* report_text.h: what a report says, whatever the medium (the HTML page, the Markdown
 * summary): the answer in one sentence, the key figures, and the methodology caveats that apply
 * to this bundle, each tied to the number it qualifies.
 *
 * Everything is read from the bundle as stored (its "analysis" above all: nothing is
 * recomputed, so the page says what the bundle says). The text is plain, unescaped: strings
 * from the bundle (model names, labels, paths) appear as they are, and the caller escapes
 * them for its medium (text nodes for HTML). Numbers are formatted in the C locale.
 *
 * Ownership: rl_report_caveats fills a list the caller releases with rl_report_caveats_free;
 * the other functions write into the caller's buffers. */
#ifndef RL_REPORT_TEXT_H
#define RL_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

/* Where a caveat belongs: next to the number it qualifies. */
typedef enum {
    RL_RP_TOP = 0,      /* beside the answer: the run's state, imported data */
    RL_RP_BANDWIDTH,    /* the effective bandwidth: fit, MoE, short context */
    RL_RP_CEILING,      /* the ceiling: lower bound, supplied, unstable, missing */
    RL_RP_UTIL,         /* utilisation: above 100%, GPU offload */
    RL_RP_ROOFLINE,     /* the roofline chart: bytes convention */
    RL_RP_THREADS,      /* the thread chart: compute-bound decode */
    RL_RP_LONG_CONTEXT, /* the long-context chart and table */
    RL_RP_COMPOSITION,  /* what each file holds: label against content */
    RL_RP_MEMBW,        /* the ceiling sweep */
    RL_RP_N
} rl_report_place;

typedef struct {
    const char *code; /* stable snake_case name, e.g. "ceiling_lower_bound" */
    rl_report_place place;
    char *text; /* one to three sentences */
} rl_report_caveat;

typedef struct {
    rl_report_caveat *v;
    size_t n;
} rl_report_caveats;

/* The caveats that apply to b, in reading order. RL_EINTERNAL when out of memory. */
rl_status rl_report_caveats_get(const cJSON *b, rl_report_caveats *out, rl_error *err);
void rl_report_caveats_free(rl_report_caveats *c);

/* The headline ("Decode is memory-bound") and the answer in one sentence (verdict, effective
 * GB/s, % of the ceiling, best thread count, each only when known). */
void rl_report_headline(const cJSON *b, char *buf, size_t cap);
/* When a measurement was disturbed (analysis.disturbance), the banner that goes above the
 * answer ("Measured while the machine was busy: ...; the verdict below may be wrong. Re-run
 * ..."; a client bundle's: "the latencies and rates below may be wrong") into buf and true;
 * else false and buf untouched. A quiet bundle, or one without machine state, gets no
 * banner. */
bool rl_report_disturbed(const cJSON *b, char *buf, size_t cap);
void rl_report_answer(const cJSON *b, char *buf, size_t cap);

/* A key figure: a value with its unit and its kind (measured, derived, supplied, ...). */
typedef struct {
    const char *label;
    char value[48];   /* "38.2", or "n/a" */
    const char *unit; /* "GB/s", "%", "threads", "" */
    const char *kind; /* "derived", "measured", "supplied", "unavailable" */
    char note[256];   /* how it was obtained, or why it is missing */
    int place;        /* the rl_report_place whose caveats sit beside it, or -1 */
} rl_report_figure;

#define RL_REPORT_MAX_FIGURES 6
/* The key figures of b into out (at most RL_REPORT_MAX_FIGURES); returns how many. */
size_t rl_report_figures(const cJSON *b, rl_report_figure *out);

/* Number formats shared by the page and the Markdown: rates and bandwidths with three or four
 * significant digits ("3367", "38.2", "9.87"), percentages ("82%"). */
void rl_report_fmt_num(double v, char *buf, size_t cap);

/* The analysis model entry whose "id" is id, or NULL. */
const cJSON *rl_report_an_model(const cJSON *b, const char *id);
/* A model's display name: the analysis name, else the bundle's, else its id. */
const char *rl_report_model_name(const cJSON *b, const char *id);

/* "what the label means" for a bundle model (its "gguf" object) whose label misleads (the
 * repeating layers hold under 90% of the named type), into buf; false when it does not. */
bool rl_report_label_explanation(const cJSON *model, char *buf, size_t cap);

/* The command line as one shell-quoted line ("llama-roofline run -m 'my model.gguf'"). */
char *rl_report_shell_line(const cJSON *argv, const char *argv0);

#endif
