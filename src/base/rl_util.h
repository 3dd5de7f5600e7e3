/* SPDX-License-Identifier: MIT */
/* rl_util.h: small helpers shared by every module: the one number rule, terminal progress,
 * checked allocation. Strings returned by rl_strdup/rl_asprintf are malloc'd and owned by
 * the caller.
 *
 * The number rule (docs/CLI.md): a whole number is plain ASCII decimal digits, nothing else
 * (no sign, no spaces, no hex, no exponent, no thousands separators); a negative whole number
 * (where an option allows one) is '-' and digits; a real number is digits with an optional
 * '.' and more digits ("13.98", "0.5"; not ".5", "5.", "1e3", "0x10", "inf"). A list is such
 * values separated by single commas, with no empty element. Parsing never depends on the
 * process locale. */
#ifndef RL_UTIL_H
#define RL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rl_error.h"

/* Parse a whole string by the number rule; false on anything else or overflow. */
bool rl_parse_u64(const char *s, uint64_t *out);
bool rl_parse_i64(const char *s, int64_t *out);
bool rl_parse_double(const char *s, double *out);

/* Option values with the range check and the one-line message ("--reps: '0' is out of range:
 * give a whole number from 1 to 100"). RL_EINPUT on failure. */
rl_status rl_opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                     rl_error *err);
rl_status rl_opt_int(const char *opt, const char *s, int min, int max, int *out, rl_error *err);
/* A real number in (min, max] when min_exclusive, else [min, max]. */
rl_status rl_opt_double(const char *opt, const char *s, double min, bool min_exclusive, double max,
                        double *out, rl_error *err);
/* A comma-separated list of whole numbers in [min, max], at most max_n of them, written to
 * out in the order given; with sort_unique sorted ascending and de-duplicated. */
rl_status rl_opt_int_list(const char *opt, const char *s, int min, int max, int *out, int max_n,
                          int *n, bool sort_unique, rl_error *err);

/* Progress on stderr. On a terminal (TERM set and not "dumb") one status line rewritten in
 * place, cut to the terminal's width, with the seconds it has been showing once that is 2 s or
 * more (rl_progress_tick redraws it while a child runs). Elsewhere (a file, a pipe, CI,
 * TERM=dumb) plain lines, at most one per RL_PROGRESS_PACE_S; LLAMA_ROOFLINE_PROGRESS=lines
 * prints every update as a line, =off nothing. Control characters in the text are escaped. */
#define RL_PROGRESS_PACE_S 10.0
void rl_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line that stays (a finished run and its rate): printed in every mode but off, above the
 * status line on a terminal. The text is the caller's own (numbers, escaped names). */
void rl_progress_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Redraw the terminal's status line with its elapsed time, at most once a second. */
void rl_progress_tick(void);
/* Cut text in place to at most width columns (a UTF-8 character is one column); its columns. */
size_t rl_progress_fit(char *text, size_t width);
/* End a progress line (clears it) if one is showing. */
void rl_progress_done(void);

/* malloc/calloc that return NULL on size overflow as well as on failure. */
void *rl_calloc(size_t n, size_t size);
/* An array of *cap elements of elem bytes at p grown to twice as many (first when *cap is 0):
 * the new block, *cap updated; NULL (p and *cap untouched) on failure or size overflow. */
void *rl_grow(void *p, size_t *cap, size_t elem, size_t first);
char *rl_strdup(const char *s);
char *rl_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
