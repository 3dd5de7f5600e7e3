/* SPDX-License-Identifier: MIT */
/* history_text.h: a history (analyse/history.h) as terminal text or Markdown (owner: history).
 *
 * Reading order: the machine and the time span; the bundles of other machines left out, one
 * line each; the test sentence; the step counts and the regressions beyond fail_pct (when
 * fail_set); then a table per series, grouped as compare groups rows: when, bundle, llama.cpp
 * build, value (mean ± 95% CI half-width), change against the point before, verdict, what
 * changed. A series lists its rl_hist_listed points and says how many others (within noise,
 * nothing changed) it leaves out. Terminal text is escaped, Markdown cells are escaped (the
 * tables of compare_text.h). Ownership: the string returned is the caller's (NULL: out of
 * memory). */
#ifndef RL_HISTORY_TEXT_H
#define RL_HISTORY_TEXT_H

#include <stdbool.h>

#include "analyse/history.h"

char *rl_hist_text(const rl_hist *h, bool markdown, bool all, bool fail_set, double fail_pct);

/* "2026-11-02 14:03" from created_utc (its date and minutes), or the text as given. */
void rl_hist_fmt_when(const char *created, char *buf, size_t cap);

#endif
