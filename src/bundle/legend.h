/* SPDX-License-Identifier: MIT */
/* legend.h: the metric legend, one static table of every metric a bundle can hold: where it
 * sits (a JSON path pattern, "[]" standing for every element of an array), its unit, its kind
 * (measured / proxy / derived / controlled, docs/BUNDLE.md) and a one-line definition.
 *
 * The single source for `llama-roofline legend` (text, JSON, Markdown), for the "Metrics"
 * section of docs/BUNDLE.md (which tests/cli/legend.sh keeps equal to `legend --markdown`)
 * and for the set of kinds `validate` accepts. Everything here is static: nothing allocates. */
#ifndef RL_LEGEND_H
#define RL_LEGEND_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *path; /* e.g. "models[].runs[].decode" */
    const char *name; /* short name for people */
    const char *unit; /* "tok/s", "GB/s", "%", "bytes", ... ("1" when dimensionless) */
    const char *kind; /* one of rl_legend_kind(0..3) */
    bool optional;    /* the key is absent from some bundles (an import, --peak-bw, no depth > 0);
                         otherwise always present, perhaps as {"available": false, "reason"} */
    const char *definition; /* one line, no '|' */
} rl_legend_row;

size_t rl_legend_count(void);
/* Row i (0 <= i < rl_legend_count()), or NULL past the end. */
const rl_legend_row *rl_legend_at(size_t i);

/* The four kinds, in this order: measured, proxy, derived, controlled. */
#define RL_LEGEND_N_KINDS 4
/* Kind i (0..3), or NULL past the end. */
const char *rl_legend_kind(size_t i);
/* True when k is one of the four kinds. */
bool rl_legend_kind_known(const char *k);

#endif
