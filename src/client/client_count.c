/* SPDX-License-Identifier: MIT */
/* client_count.c: token counts from a counter command and its calibration (client_count.h).
 * Ownership as in the header. */
#include "client/client_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_metrics.h"
#include "base/proc.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

void rl_client_calibrate(const int64_t counts[3], rl_client_calibration *cal)
{
    memset(cal, 0, sizeof *cal);
    memcpy(cal->counts, counts, sizeof cal->counts);
    cal->step = counts[1] - counts[0];
    cal->overhead = counts[0] - cal->step;
    cal->consistent = counts[0] >= 0 && cal->step >= 1 && counts[2] - counts[1] == cal->step &&
                      cal->overhead >= 0 && cal->overhead <= 16;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool rl_client_parse_count(const char *out, size_t n, int64_t *count, char *reason, size_t cap)
{
    size_t a = 0, b = n;
    while (a < b && is_ws(out[a]))
        a++;
    while (b > a && is_ws(out[b - 1]))
        b--;
    char num[24];
    uint64_t v = 0;
    bool ok = b > a && b - a < sizeof num;
    if (ok) {
        memcpy(num, out + a, b - a);
        num[b - a] = '\0';
        ok = rl_parse_u64(num, &v) && v <= (uint64_t)RL_CLIENT_COUNT_MAX;
    }
    if (ok) {
        *count = (int64_t)v;
        return true;
    }
    char shown[80];
    rl_tty_escape_n(out + a, b - a > 40 ? 40 : b - a, shown, sizeof shown);
    rl_snprintf(reason, cap, "the counter printed '%s%s', not one whole number", shown,
                b - a > 40 ? "..." : "");
    *count = -1;
    return false;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_ws(s[i]))
            return false;
    return true;
}

rl_status rl_client_count(const char *command, double timeout, const char *text, size_t len,
                          int64_t *count, char *reason, size_t cap, rl_error *err)
{
    *count = -1;
    if (blank(text, len)) {
        *count = 0;
        return RL_OK;
    }
    const char *argv[] = {"/bin/sh", "-c", command, NULL};
    rl_proc_opts o = {0};
    o.argv = argv;
    o.stdin_data = text;
    o.stdin_len = len;
    o.timeout = timeout;
    o.keep_head = 256;
    o.keep_tail = 0;
    rl_proc_result pr;
    rl_error e;
    rl_status st = rl_proc_run(&o, &pr, &e);
    if (st == RL_EINTERRUPTED) {
        rl_proc_result_free(&pr);
        return rl_fail(err, RL_EINTERRUPTED, "interrupted while counting tokens");
    }
    if (st != RL_OK) {
        rl_snprintf(reason, cap, "the counter could not start: %s", e.msg);
        return RL_OK;
    }
    if (pr.timed_out) {
        rl_snprintf(reason, cap, "the counter timed out after %g s", timeout);
    } else if (pr.exit_code != 0) {
        char line[160] = "";
        if (pr.err.head_len) {
            size_t k = 0;
            while (k < pr.err.head_len && k < 100 && pr.err.head[k] != '\n')
                k++;
            rl_tty_escape_n(pr.err.head, k, line, sizeof line);
        }
        if (pr.term_signal)
            rl_snprintf(reason, cap, "the counter was killed by signal %d", pr.term_signal);
        else
            rl_snprintf(reason, cap, "the counter exited with status %d%s%s", pr.exit_code,
                        line[0] ? ": " : "", line);
    } else if (pr.out.truncated) {
        rl_snprintf(reason, cap, "the counter printed more than one number");
    } else {
        rl_client_parse_count(pr.out.head ? pr.out.head : "", pr.out.head_len, count, reason, cap);
    }
    rl_proc_result_free(&pr);
    return RL_OK;
}

rl_status rl_client_counter_init(rl_client_counter *c, const char *command, double timeout,
                                 size_t n_prompts, rl_error *err)
{
    memset(c, 0, sizeof *c);
    c->command = rl_strdup(command);
    c->timeout = timeout;
    c->n_prompts = n_prompts;
    c->prompt_counts = rl_calloc(n_prompts ? n_prompts : 1, sizeof *c->prompt_counts);
    if (!c->command || !c->prompt_counts)
        return rl_fail(err, RL_EINTERNAL, "out of memory setting up the token counter");
    for (size_t i = 0; i < n_prompts; i++)
        c->prompt_counts[i] = -2;
    static const char *const probe[3] = {"a", "a a", "a a a"};
    int64_t counts[3];
    for (int i = 0; i < 3; i++) {
        char reason[400] = "";
        rl_status st = rl_client_count(command, timeout, probe[i], strlen(probe[i]), &counts[i],
                                       reason, sizeof reason, err);
        if (st != RL_OK)
            return st;
        if (counts[i] < 0) {
            rl_snprintf(c->reason, sizeof c->reason, "counting '%s' failed: %s", probe[i], reason);
            return RL_OK;
        }
    }
    rl_client_calibrate(counts, &c->cal);
    c->available = true;
    return RL_OK;
}

void rl_client_counter_free(rl_client_counter *c)
{
    if (!c)
        return;
    free(c->command);
    free(c->prompt_counts);
    memset(c, 0, sizeof *c);
}

static void note_failure(rl_client_counter *c, const char *reason)
{
    if (c->failures++ == 0)
        rl_snprintf(c->failure, sizeof c->failure, "%s", reason);
}

/* Count text with the calibration applied; -1 when the counter failed. */
static rl_status count_corrected(rl_client_counter *c, const char *text, size_t len, bool correct,
                                 int64_t *out, rl_error *err)
{
    char reason[400] = "";
    while (correct && len > 0 && is_ws(text[len - 1]))
        len--; /* an answer's closing newline is layout, not a token of it */
    rl_status st =
        rl_client_count(c->command, c->timeout, text, len, out, reason, sizeof reason, err);
    if (st != RL_OK)
        return st;
    if (*out < 0) {
        note_failure(c, reason);
        return RL_OK;
    }
    if (correct && c->cal.consistent && !blank(text, len))
        *out = *out > c->cal.overhead ? *out - c->cal.overhead : 0;
    return RL_OK;
}

/* A result's prompt count, from the per-prompt cache. */
static rl_status settle_prompt(rl_client_counter *c, rl_client_result *r,
                               const char *const *prompts, const size_t *prompt_lens, rl_error *err)
{
    if (r->prompt >= c->n_prompts || r->prompt_tokens >= 0)
        return RL_OK;
    int64_t *pc = &c->prompt_counts[r->prompt];
    rl_status st = RL_OK;
    if (*pc == -2)
        st = count_corrected(c, prompts[r->prompt], prompt_lens[r->prompt], false, pc, err);
    r->prompt_tokens = *pc;
    if (*pc < 0)
        r->count_failed |= RL_CLIENT_NOCOUNT_PROMPT;
    return st;
}

/* The first delivery's tokens on its first chunk (its other chunks 0). An answer that came in
 * one delivery is all first delivery: its output count, counted once. */
static rl_status settle_first(rl_client_counter *c, rl_client_result *r, rl_error *err)
{
    uint64_t bytes = 0;
    size_t k = rl_client_first_delivery(r, &bytes);
    int64_t ft = -1;
    rl_status st = RL_OK;
    if (k >= r->n_chunks)
        ft = r->output_tokens;
    else if (bytes <= r->output_len)
        st = count_corrected(c, r->output, (size_t)bytes, true, &ft, err);
    if (ft < 0) {
        r->count_failed |= RL_CLIENT_NOCOUNT_FIRST;
        return st;
    }
    r->chunks[0].tokens = ft > INT32_MAX ? INT32_MAX : (int32_t)ft;
    for (size_t j = 1; j < k && j < r->n_chunks; j++)
        r->chunks[j].tokens = 0;
    return st;
}

rl_status rl_client_counter_settle(rl_client_counter *c, rl_client_result *const *results, size_t n,
                                   const char *const *prompts, const size_t *prompt_lens,
                                   rl_error *err)
{
    for (size_t i = 0; i < n; i++) {
        rl_client_result *r = results[i];
        if (!c->available) { /* the true reason for every count left unknown */
            r->count_failed |= RL_CLIENT_NOCOUNT_CALIB;
            continue;
        }
        rl_status st = settle_prompt(c, r, prompts, prompt_lens, err);
        if (st == RL_OK && r->ok && r->output_tokens < 0) {
            if (r->output_total > r->output_len) {
                note_failure(c, "an answer longer than the kept 1 MiB cannot be counted");
                r->count_failed |= RL_CLIENT_NOCOUNT_LONG;
            } else {
                st = count_corrected(c, r->output ? r->output : "", r->output_len, true,
                                     &r->output_tokens, err);
                if (r->output_tokens >= 0)
                    r->token_source = "counter";
                else
                    r->count_failed |= RL_CLIENT_NOCOUNT_OUTPUT;
            }
        }
        if (st == RL_OK && r->ok && r->output_tokens >= 0 && r->n_chunks > 0 &&
            r->chunks[0].tokens < 0)
            st = settle_first(c, r, err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

cJSON *rl_client_tokens_json(const rl_client_counter *c, const char *source)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    bool ok = true;
    if (!c) {
        ok = rl_json_add_str(t, "source", source ? source : "none") &&
             rl_json_add_unavailable(
                 t, "calibration",
                 source && strcmp(source, "none") != 0
                     ? "the transport gives token counts; no counter command to calibrate"
                     : "no counter command (--count-tokens-cmd) and no token counts from the "
                       "transport: token metrics are unavailable");
    } else if (!c->available) {
        char why[600];
        rl_snprintf(why, sizeof why, "the counter command failed: %s", c->reason);
        ok = rl_json_add_str(t, "source", "none") && rl_json_add_unavailable(t, "calibration", why);
    } else {
        cJSON *cal = cJSON_CreateObject(), *counts = cJSON_CreateObject();
        ok = cal && counts && rl_json_add_str(cal, "kind", "measured") &&
             rl_json_add_i64(counts, "a", c->cal.counts[0]) &&
             rl_json_add_i64(counts, "a a", c->cal.counts[1]) &&
             rl_json_add_i64(counts, "a a a", c->cal.counts[2]);
        if (ok) {
            cJSON_AddItemToObject(cal, "counts", counts);
            counts = NULL;
        }
        ok = ok && rl_json_add_i64(cal, "step", c->cal.step) &&
             rl_json_add_i64(cal, "overhead", c->cal.overhead) &&
             cJSON_AddBoolToObject(cal, "consistent", c->cal.consistent) &&
             cJSON_AddBoolToObject(cal, "subtracted", c->cal.consistent);
        cJSON_Delete(counts);
        ok = ok && rl_json_add_str(t, "source", "counter");
        if (ok)
            ok = rl_json_attach(t, "calibration", cal); /* frees cal on failure */
        else
            cJSON_Delete(cal);
        if (ok && c->failures) {
            cJSON *f = cJSON_CreateObject();
            ok = f && rl_json_add_str(f, "kind", "measured") &&
                 rl_json_add_u64(f, "count", c->failures) &&
                 rl_json_add_str(f, "first", c->failure) && rl_json_attach(t, "count_failures", f);
        }
    }
    if (!ok) {
        cJSON_Delete(t);
        return NULL;
    }
    return t;
}
