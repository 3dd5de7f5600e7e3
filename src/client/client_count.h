/* SPDX-License-Identifier: MIT */
/* client_count.h: token counts for the command driver from a counter command (seed 001: `fm
 * count-tokens`; here any `--count-tokens-cmd 'CMD'`), and the counter's calibration.
 *
 * A count: CMD runs under /bin/sh -c with the text on stdin; its stdout, with leading and
 * trailing whitespace dropped, must be one whole number (digits only, at most 10^9), and it
 * must exit 0 within the timeout. Anything else is a failed count with a one-line reason; a
 * count is never estimated.
 *
 * Calibration (seed 001, as fm-bench 0.8): a counter may add constant framing tokens to every
 * text it counts. Count "a", "a a", "a a a" -> c0, c1, c2; step = c1 - c0, overhead = c0 - step.
 * The step is consistent when step >= 1, c2 - c1 == step and 0 <= overhead <= 16; only then is
 * the overhead subtracted from output and first-delivery counts (never below 0). Prompt counts
 * are kept as the counter gives them (the framing is part of what the model reads).
 * Whitespace-only text counts 0 without running the counter.
 *
 * Settling a point: after an operating point (never while requests are in flight, so counting
 * cannot delay their timestamps) every ok result gets output_tokens, the first chunk of its
 * first delivery the first delivery's tokens (its other chunks 0; client_metrics.h), and
 * prompt_tokens; token_source "counter".
 *
 * Ownership: the counter keeps a copy of its command and a cache of prompt counts; free with
 * rl_client_counter_free. */
#ifndef RL_CLIENT_COUNT_H
#define RL_CLIENT_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "client/client_driver.h"
#include "base/rl_error.h"

#define RL_CLIENT_COUNT_MAX 1000000000LL

typedef struct {
    int64_t counts[3]; /* "a", "a a", "a a a" */
    int64_t step, overhead;
    bool consistent; /* the rule above; overhead is subtracted exactly when true */
} rl_client_calibration;

/* The calibration arithmetic of three counts. */
void rl_client_calibrate(const int64_t counts[3], rl_client_calibration *cal);

/* Parse a counter's stdout (n bytes, not NUL-terminated): false with reason (at least 128
 * bytes) when it is not exactly one whole number up to RL_CLIENT_COUNT_MAX. */
bool rl_client_parse_count(const char *out, size_t n, int64_t *count, char *reason, size_t cap);

typedef struct {
    char *command;
    double timeout;
    bool available;   /* calibration counts were had */
    char reason[512]; /* why not available */
    rl_client_calibration cal;
    size_t failures;        /* later counts that failed */
    char failure[512];      /* the first one's reason */
    int64_t *prompt_counts; /* per prompt, -2 = not counted yet, -1 = failed */
    size_t n_prompts;
} rl_client_counter;

/* Count one text: RL_OK with *count, or RL_OK with *count = -1 and reason filled when the
 * counter failed; RL_EINTERRUPTED on Ctrl-C; RL_EINTERNAL out of memory. */
rl_status rl_client_count(const char *command, double timeout, const char *text, size_t len,
                          int64_t *count, char *reason, size_t cap, rl_error *err);

/* Set up a counter (command copied) and calibrate it. A failed calibration count leaves
 * available false with the reason (RL_OK). */
rl_status rl_client_counter_init(rl_client_counter *c, const char *command, double timeout,
                                 size_t n_prompts, rl_error *err);
void rl_client_counter_free(rl_client_counter *c);

/* Fill the token counts of results (see above); prompts[i] / prompt_lens[i] are the prompt
 * texts results' prompt indexes. Only counts still -1 are filled. */
rl_status rl_client_counter_settle(rl_client_counter *c, rl_client_result *const *results, size_t n,
                                   const char *const *prompts, const size_t *prompt_lens,
                                   rl_error *err);

/* The bundle's "tokens" object for a counter (c NULL: no counter; source says where counts
 * came from otherwise: "usage", "per-delta" or "none"). NULL when out of memory. */
cJSON *rl_client_tokens_json(const rl_client_counter *c, const char *source);

#endif
