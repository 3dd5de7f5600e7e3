/* SPDX-License-Identifier: MIT */
/* bracket.h: the memory ceiling bracketed. The ceiling is measured once, before the sweep; a
 * machine that gets busier (or quieter) during a long llama-bench sweep moves it, and every
 * utilisation figure with it. So `run` and `diagnose` take short membw probes (one thread
 * count: the one that set the ceiling; quick samples; about a second each) before the sweep,
 * between models when there are three or more, and after it, and keep every probe in
 * membw.bracket with its time. The spread is the lowest probe's distance below the highest, as
 * a share of the highest; over the limit (cmd/defaults.h RL_DEF_BRACKET_LIMIT_PCT) it is drift,
 * a warning (code "ceiling_drift") naming both numbers. The ceiling the analysis uses stays the
 * full measurement (membw.peak_read_GBs): "ceiling_used" says so.
 *
 * Ownership: the membw objects are the caller's; nothing here renders. */
#ifndef RL_CMD_BRACKET_H
#define RL_CMD_BRACKET_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"
#include "measure/sysinfo.h"

/* The drift rule (pure). gbs: n probes in the order taken. *spread_pct: (highest - lowest) /
 * highest x 100 (0 for fewer than two probes or a highest of 0). Drift when the spread is over
 * limit_pct; then text holds the warning ("the memory ceiling moved from 40.1 to 21.3 GB/s
 * during the run (47%, over the 15% limit): ..."; from the extreme taken first to the later
 * one), else text is "". */
bool rl_bracket_drift(const double *gbs, int n, double limit_pct, double *spread_pct, char *text,
                      size_t cap);

/* One probe: a quick membw measurement at the thread count and ISA that set the ceiling
 * (membw's "threads" and "isa"), appended to membw.bracket.probes as {"at", "t_s", "utc",
 * "GBs", "threads"}; t_s: seconds since the command began. RL_EINTERRUPTED (nothing appended)
 * on Ctrl-C; RL_EINTERNAL when out of memory. */
rl_status rl_bracket_probe(cJSON *membw, const char *at, double t_s, const rl_sysinfo *si,
                           rl_error *err);

/* membw.bracket's summary, recomputed from its probes: before_GBs (the first), after_GBs (the
 * last when it is an "after" probe, else null), between_GBs (the rest), spread_pct, drift,
 * limit_pct, ceiling_used and ceiling_GBs. text gets the drift warning or "". false when out
 * of memory. */
bool rl_bracket_summarize(cJSON *membw, double limit_pct, char *text, size_t cap);

/* Whether probes can be taken: membw is a measured ceiling. Otherwise, and with no_bracket,
 * membw.bracket is set to {"available": false, "reason"} where membw is an object with a kind
 * (--peak-bw: controlled), and false is returned. *oom set when out of memory. */
bool rl_bracket_start(cJSON *membw, bool no_bracket, bool *oom);

#endif
