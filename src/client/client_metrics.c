/* SPDX-License-Identifier: MIT */
/* client_metrics.c: seed 001's client-side metrics of one operating point (client_metrics.h).
 *
 * Per request (ok requests only; a failed one gives no latency or token sample):
 *   deliveries   chunks less than RL_CLIENT_DELIVERY_GAP_NS after the previous chunk join its
 *                delivery; a delivery's time is its first chunk's arrival.
 *   ttft_ms      first chunk - send (proxy: a chunk, not a token).
 *   e2e_ms       end - send.
 *   generation   last delivery - first delivery, only with >= 2 deliveries (one delivery
 *                cannot separate prefill from decode).
 *   first_delivery_tokens  sum of the tokens of the first delivery's chunks when every one is
 *                known (HTTP per-delta counts, or the counter's count the scheduler stored).
 *   decode_tokens output - min(first-delivery, output), only when >= 2 and generation > 0.
 *   tpot_ms      generation / decode_tokens; decode_tok_s = decode_tokens / generation s.
 *   second_chunk the first gap between deliveries; chunk gaps all of them.
 *   prefill_tok_s prompt tokens / ttft s (proxy); output_tok_s output tokens / e2e s.
 * Per point: window = first send (a retried request's first attempt) to last end of the ok
 * requests; rps = ok / window;
 * output and total token throughput over the window (every ok request must have its counts);
 * decode_throughput = sum decode tokens / sum generation time (token-weighted); goodput
 * against the SLOs (a failed request or an SLO metric it lacks is not good); repeatability
 * (share of the most common output hash per prompt with >= 2 ok runs, averaged); stability
 * CV (E2E CV per prompt with >= 2 ok runs, averaged).
 *
 * Every chunk is visited a constant number of times (O(n) in chunks); sorting is over requests
 * and pooled gap samples only. Ownership: everything returned is the caller's. */
#include "client/client_metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

#define NS_PER_MS 1e6

/* ---- per-request arithmetic ----------------------------------------------------------- */

size_t rl_client_first_delivery(const rl_client_result *r, uint64_t *bytes)
{
    uint64_t b = 0;
    size_t n = 0;
    if (r != NULL && r->chunks != NULL) {
        for (n = 0; n < r->n_chunks; n++) {
            if (n > 0 && r->chunks[n].t_ns - r->chunks[n - 1].t_ns >= RL_CLIENT_DELIVERY_GAP_NS)
                break;
            b += r->chunks[n].bytes;
        }
    }
    if (bytes != NULL)
        *bytes = b;
    return n;
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, unsigned char c)
{
    return (h ^ c) * FNV_PRIME;
}

void rl_client_output_hash(const char *text, size_t len, uint64_t total, char hex[17])
{
    uint64_t h = FNV_OFFSET;
    bool started = false, pending_space = false;
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; s != NULL && i < len; i++) {
        unsigned char c = s[i];
        if (c == 0x1b && i + 1 < len && s[i + 1] == '[') { /* CSI: skip it whole */
            size_t j = i + 2;
            while (j < len && s[j] >= 0x30 && s[j] <= 0x3f)
                j++;
            while (j < len && s[j] >= 0x20 && s[j] <= 0x2f)
                j++;
            if (j < len && s[j] >= 0x40 && s[j] <= 0x7e)
                j++;
            i = j - 1;
            continue;
        }
        if (is_space(c)) {
            pending_space = started;
            continue;
        }
        if (pending_space)
            h = fnv(h, ' ');
        pending_space = false;
        started = true;
        h = fnv(h, c);
    }
    if (total > len) {
        char tail[32];
        int n = rl_snprintf(tail, sizeof tail, ":%llu", (unsigned long long)total);
        for (int i = 0; i < n; i++)
            h = fnv(h, (unsigned char)tail[i]);
    }
    rl_snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

/* Why a per-request value is missing; a few fixed reasons, counted per metric. */
enum {
    W_NONE = 0,
    W_FAILED,
    W_NO_CHUNK,
    W_ONE_DELIVERY,
    W_NO_OUTPUT_TOKENS,
    W_NO_FIRST_TOKENS,
    W_FEW_DECODE_TOKENS,
    W_ZERO_GENERATION,
    W_NO_PROMPT_TOKENS,
    W_ZERO_TTFT,
    W_ZERO_E2E,
    W_COUNTER_CALIB,
    W_COUNTER_OUTPUT,
    W_COUNTER_FIRST,
    W_COUNTER_PROMPT,
    W_COUNTER_LONG,
    W_N
};

static const char *const why_text[W_N] = {
    "",
    "the request failed",
    "no output chunk arrived",
    "the whole answer came in one delivery, so prefill and decode cannot be separated",
    "output tokens unknown (no usage from the server, no per-delta counts, no counter command)",
    ("first-delivery tokens unknown (no per-delta counts and no counter command to count the "
     "first delivery's text)"),
    "fewer than 2 tokens arrived after the first delivery",
    "the generation window is 0 ms",
    "prompt tokens unknown (no usage from the server and no counter command)",
    "TTFT is 0 ms",
    "E2E is 0 ms",
    "the counter command (--count-tokens-cmd) failed its calibration, so nothing was counted",
    "the counter command failed on the answer's text",
    "the counter command failed on the first delivery's text",
    "the counter command failed on the prompt",
    "the answer is longer than the 1 MiB kept, so the counter could not count it",
};

/* The true reason a token count is missing: what the counter reported for this result
 * (client_count.c), else that no source of counts existed. which: the W_NO_*_TOKENS code. */
static int why_tokens(const rl_client_result *r, int which)
{
    unsigned f = r->count_failed;
    if (f & RL_CLIENT_NOCOUNT_CALIB)
        return W_COUNTER_CALIB;
    if (which == W_NO_PROMPT_TOKENS)
        return f & RL_CLIENT_NOCOUNT_PROMPT ? W_COUNTER_PROMPT : which;
    if (f & RL_CLIENT_NOCOUNT_LONG)
        return W_COUNTER_LONG;
    if (f & RL_CLIENT_NOCOUNT_OUTPUT) /* the first delivery is counted only after the answer */
        return W_COUNTER_OUTPUT;
    if (which == W_NO_FIRST_TOKENS && (f & RL_CLIENT_NOCOUNT_FIRST))
        return W_COUNTER_FIRST;
    return which;
}

typedef struct {
    bool ok;
    size_t prompt, run;
    size_t chunks, deliveries;
    double elapsed_ms; /* end - send, failed requests too */
    double ttft_ms, e2e_ms, gen_ms, second_ms;
    int64_t first_tokens, decode_tokens;
    double tpot_ms, decode_tok_s, output_tok_s, prefill_tok_s;
    int w_ttft, w_gen, w_tpot, w_prefill, w_out_rate, w_first;
    int good; /* -1 no SLO, 0, 1 */
    char hash[17];
} req_t;

/* One pass over the chunks: deliveries, their gaps (appended to gaps when not NULL, up to
 * gaps_cap, counted in *n_gaps), the second-chunk time and the last delivery's time. */
static void walk_chunks(const rl_client_result *r, req_t *q, double *gaps, size_t gaps_cap,
                        size_t *n_gaps, double *second_ms, int64_t *last_start)
{
    int64_t start = 0, prev = 0;
    size_t deliveries = 0;
    for (size_t i = 0; i < r->n_chunks; i++) {
        int64_t t = r->chunks[i].t_ns;
        if (i == 0) {
            start = t;
            deliveries = 1;
        } else if (t - prev >= RL_CLIENT_DELIVERY_GAP_NS) {
            double g = (double)(t - start) / NS_PER_MS;
            if (g < 0)
                g = 0;
            if (deliveries == 1)
                *second_ms = g;
            if (gaps != NULL && *n_gaps < gaps_cap)
                gaps[*n_gaps] = g;
            (*n_gaps)++;
            start = t;
            deliveries++;
        }
        prev = t;
    }
    q->deliveries = deliveries;
    *last_start = start;
}

/* Everything about one request; the gaps of an ok one go to gaps (see walk_chunks). */
static void request(const rl_client_result *r, req_t *q, const rl_client_slo *slo, bool slo_set,
                    double *gaps, size_t gaps_cap, size_t *n_gaps)
{
    q->ok = r->ok;
    q->chunks = r->n_chunks;
    q->elapsed_ms = (double)(r->end_ns - r->send_ns) / NS_PER_MS;
    q->ttft_ms = q->e2e_ms = q->gen_ms = q->second_ms = NAN;
    q->tpot_ms = q->decode_tok_s = q->output_tok_s = q->prefill_tok_s = NAN;
    q->first_tokens = q->decode_tokens = -1;
    q->good = slo_set ? 0 : -1;
    q->hash[0] = '\0';
    size_t dummy = 0;
    int64_t last = 0;
    walk_chunks(r, q, r->ok ? gaps : NULL, gaps_cap, r->ok ? n_gaps : &dummy, &q->second_ms, &last);
    if (q->deliveries >= 2) {
        q->gen_ms = (double)(last - r->chunks[0].t_ns) / NS_PER_MS;
        if (q->gen_ms < 0)
            q->gen_ms = 0;
    }
    if (!r->ok) {
        q->gen_ms = q->second_ms = NAN;
        q->w_ttft = q->w_gen = q->w_tpot = q->w_prefill = q->w_out_rate = q->w_first = W_FAILED;
        return;
    }
    q->e2e_ms = q->elapsed_ms < 0 ? 0 : q->elapsed_ms;
    rl_client_output_hash(r->output, r->output_len, r->output_total, q->hash);
    if (r->output_tokens < 0)
        q->w_out_rate = why_tokens(r, W_NO_OUTPUT_TOKENS);
    else if (q->e2e_ms <= 0)
        q->w_out_rate = W_ZERO_E2E;
    else
        q->output_tok_s = (double)r->output_tokens / (q->e2e_ms / 1e3);

    if (r->n_chunks == 0 || r->chunks == NULL) {
        q->w_ttft = q->w_gen = q->w_tpot = q->w_prefill = q->w_first = W_NO_CHUNK;
    } else {
        double ttft = (double)(r->chunks[0].t_ns - r->send_ns) / NS_PER_MS;
        q->ttft_ms = ttft < 0 ? 0 : ttft;
        if (r->prompt_tokens < 0)
            q->w_prefill = why_tokens(r, W_NO_PROMPT_TOKENS);
        else if (q->ttft_ms <= 0)
            q->w_prefill = W_ZERO_TTFT;
        else
            q->prefill_tok_s = (double)r->prompt_tokens / (q->ttft_ms / 1e3);

        /* first-delivery tokens: every chunk of the first delivery must carry its count */
        size_t nf = rl_client_first_delivery(r, NULL);
        int64_t ft = 0;
        for (size_t i = 0; i < nf && ft >= 0; i++)
            ft = r->chunks[i].tokens < 0 ? -1 : ft + r->chunks[i].tokens;
        q->first_tokens = ft;
        q->w_first = ft < 0 ? why_tokens(r, W_NO_FIRST_TOKENS) : W_NONE;
    }

    /* generation, TPOT and decode need >= 2 deliveries, counts and >= 2 decode tokens */
    if (q->deliveries >= 2) {
        if (r->output_tokens < 0)
            q->w_tpot = why_tokens(r, W_NO_OUTPUT_TOKENS);
        else if (q->first_tokens < 0)
            q->w_tpot = why_tokens(r, W_NO_FIRST_TOKENS);
        else {
            int64_t first = q->first_tokens < r->output_tokens ? q->first_tokens : r->output_tokens;
            int64_t dec = r->output_tokens - first;
            if (dec < 2)
                q->w_tpot = W_FEW_DECODE_TOKENS;
            else if (q->gen_ms <= 0)
                q->w_tpot = W_ZERO_GENERATION;
            else {
                q->decode_tokens = dec;
                q->tpot_ms = q->gen_ms / (double)dec;
                q->decode_tok_s = (double)dec / (q->gen_ms / 1e3);
            }
        }
    } else if (r->n_chunks > 0) {
        q->w_gen = q->w_tpot = W_ONE_DELIVERY;
    }

    if (slo_set) {
        q->good = rl_client_slo_misses(slo, q->ttft_ms, q->tpot_ms, q->e2e_ms) == 0 ? 1 : 0;
    }
}

unsigned rl_client_slo_misses(const rl_client_slo *slo, double ttft_ms, double tpot_ms,
                              double e2e_ms)
{
    unsigned miss = 0;
    if (slo->ttft_ms > 0 && !(isfinite(ttft_ms) && ttft_ms <= slo->ttft_ms))
        miss |= RL_SLO_TTFT;
    if (slo->tpot_ms > 0 && !(isfinite(tpot_ms) && tpot_ms <= slo->tpot_ms))
        miss |= RL_SLO_TPOT;
    if (slo->e2e_ms > 0 && !(isfinite(e2e_ms) && e2e_ms <= slo->e2e_ms))
        miss |= RL_SLO_E2E;
    return miss;
}

/* ---- JSON pieces ------------------------------------------------------------------------ */

typedef struct {
    size_t n[W_N];
} tally_t;

static void tally_add(tally_t *t, int w)
{
    if (w > W_NONE && w < W_N)
        t->n[w]++;
}

/* The most common reason (ties: the first), and how many it covers; W_NONE when none. */
static int tally_top(const tally_t *t, size_t *count)
{
    int best = W_NONE;
    size_t bn = 0;
    for (int w = 1; w < W_N; w++)
        if (t->n[w] > bn) {
            bn = t->n[w];
            best = w;
        }
    *count = bn;
    return best;
}

static size_t tally_total(const tally_t *t)
{
    size_t s = 0;
    for (int w = 1; w < W_N; w++)
        s += t->n[w];
    return s;
}

static cJSON *unavailable_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cJSON *unavailable_fmt(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return rl_json_unavailable(buf);
}

/* Why nothing is there: the point-wide reason when set, else the commonest per-request one. */
static cJSON *no_samples(const char *point_reason, const tally_t *t)
{
    if (point_reason != NULL)
        return rl_json_unavailable(point_reason);
    size_t c = 0;
    int w = t != NULL ? tally_top(t, &c) : W_NONE;
    if (w == W_NONE)
        return rl_json_unavailable("no successful request gave a value");
    size_t all = tally_total(t);
    return unavailable_fmt("no successful request gave a value: %s (%zu of %zu)", why_text[w], c,
                           all);
}

/* {"kind", "unit", "samples", "stats"} over x[0..n) (samples_kept of them written; fewer
 * than n means too many to keep), or unavailable. excluded: ok requests without a value. */
static cJSON *dist(const char *kind, const char *unit, const double *x, size_t n,
                   size_t samples_kept, const char *point_reason, const tally_t *t, rl_error *err,
                   bool *fail)
{
    if (n == 0)
        return no_samples(point_reason, t);
    rl_stats_summary s;
    if (rl_stats_summarize(x, n, &s, err) != RL_OK) {
        *fail = true;
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    bool ok = cJSON_AddStringToObject(o, "kind", kind) && cJSON_AddStringToObject(o, "unit", unit);
    if (ok && samples_kept >= n) {
        cJSON *a = cJSON_AddArrayToObject(o, "samples");
        ok = a != NULL;
        for (size_t i = 0; ok && i < n; i++) {
            cJSON *v = cJSON_CreateNumber(x[i]);
            ok = v != NULL && cJSON_AddItemToArray(a, v);
        }
    } else if (ok) {
        cJSON *u = unavailable_fmt("%zu values, more than the %d kept; the summary covers every "
                                   "one",
                                   n, RL_CLIENT_GAP_SAMPLES_MAX);
        ok = rl_json_attach(o, "samples", u);
    }
    ok = ok && rl_json_attach(o, "stats", rl_stats_to_json(&s));
    if (ok && t != NULL) {
        size_t c = 0;
        int w = tally_top(t, &c);
        if (w != W_NONE) {
            cJSON *e = cJSON_CreateObject();
            ok = e != NULL && rl_json_attach(o, "excluded", e) &&
                 rl_json_add_u64(e, "n", tally_total(t)) &&
                 rl_json_add_str(e, "reason", why_text[w]);
        }
    }
    return rl_json_kept(o, ok);
}

/* {"kind", "unit", "value"} plus the caller's extra keys, or NULL when out of memory. */
static cJSON *scalar(const char *kind, const char *unit, double v)
{
    cJSON *o = cJSON_CreateObject();
    if (o != NULL &&
        !(cJSON_AddStringToObject(o, "kind", kind) && cJSON_AddStringToObject(o, "unit", unit) &&
          rl_json_add_num(o, "value", v))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add_num_or_null(cJSON *o, const char *k, double v)
{
    return rl_json_add_num_or_null(o, k, v, isfinite(v));
}

static bool add_count_or_null(cJSON *o, const char *k, int64_t v)
{
    return v >= 0 ? rl_json_add_i64(o, k, v) : cJSON_AddNullToObject(o, k) != NULL;
}

static const char *prompt_id(const rl_client_point *p, size_t i)
{
    return p->prompt_ids != NULL && i < p->n_prompts ? p->prompt_ids[i] : NULL;
}

static cJSON *record(const rl_client_point *p, const rl_client_result *r, const req_t *q)
{
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    bool ok =
        rl_json_add_str_or_null(o, "prompt", prompt_id(p, q->prompt)) &&
        rl_json_add_u64(o, "run", q->run) && rl_json_add_u64(o, "attempts", r->attempt) &&
        cJSON_AddBoolToObject(o, "ok", r->ok) &&
        (r->ok ? cJSON_AddNullToObject(o, "error") != NULL
               : rl_json_add_str(o, "error",
                                 r->error != NULL && r->error[0] ? r->error
                                                                 : "failed (no reason given)"));
    ok = ok && cJSON_AddBoolToObject(o, "timed_out", r->timed_out) &&
         cJSON_AddBoolToObject(o, "interrupted", r->interrupted) &&
         rl_json_add_num(o, "send_ms", (double)(r->send_ns - p->start_ns) / NS_PER_MS) &&
         rl_json_add_num(o, "first_send_ms",
                         (double)(rl_client_result_start_ns(r) - p->start_ns) / NS_PER_MS) &&
         rl_json_add_num(o, "elapsed_ms", q->elapsed_ms) &&
         add_num_or_null(o, "ttft_ms", q->ttft_ms) && add_num_or_null(o, "e2e_ms", q->e2e_ms) &&
         add_num_or_null(o, "generation_ms", q->gen_ms) &&
         add_num_or_null(o, "second_chunk_ms", q->second_ms) &&
         rl_json_add_u64(o, "chunks", q->chunks) &&
         rl_json_add_u64(o, "deliveries", q->deliveries) &&
         rl_json_add_u64(o, "output_bytes", r->output_total) &&
         rl_json_add_u64(o, "output_raw_bytes",
                         r->raw_total > r->output_total ? r->raw_total : r->output_total) &&
         add_count_or_null(o, "prompt_tokens", r->prompt_tokens) &&
         add_count_or_null(o, "output_tokens", r->ok ? r->output_tokens : -1) &&
         add_count_or_null(o, "first_delivery_tokens", q->first_tokens) &&
         add_count_or_null(o, "decode_tokens", q->decode_tokens) &&
         add_num_or_null(o, "tpot_ms", q->tpot_ms) &&
         add_num_or_null(o, "decode_tok_s", q->decode_tok_s) &&
         add_num_or_null(o, "output_tok_s", q->output_tok_s) &&
         add_num_or_null(o, "prefill_tok_s", q->prefill_tok_s) &&
         rl_json_add_str_or_null(o, "token_source", r->token_source) &&
         (r->http_status > 0 ? rl_json_add_i64(o, "http_status", r->http_status)
                             : cJSON_AddNullToObject(o, "http_status") != NULL) &&
         (r->exit_code >= 0 ? rl_json_add_i64(o, "exit_code", r->exit_code)
                            : cJSON_AddNullToObject(o, "exit_code") != NULL) &&
         rl_json_add_tristate(o, "good", q->good) &&
         rl_json_add_str_or_null(o, "output_hash", q->hash[0] ? q->hash : NULL);
    return rl_json_kept(o, ok);
}

/* ---- per-prompt grouping: repeatability and stability CV --------------------------------- */

typedef struct {
    size_t prompt;
    const char *hash;
    double e2e;
} pr_t;

static int pr_cmp(const void *a, const void *b)
{
    const pr_t *x = a, *y = b;
    if (x->prompt != y->prompt)
        return x->prompt < y->prompt ? -1 : 1;
    return strcmp(x->hash, y->hash);
}

/* Repeatability and stability CV from the ok requests (sorted by prompt, then hash). */
static bool per_prompt(const rl_client_point *p, pr_t *v, size_t n, cJSON *metrics,
                       const char *point_reason, rl_error *err, bool *fail)
{
    qsort(v, n, sizeof *v, pr_cmp);
    double rep_sum = 0, cv_sum = 0;
    size_t rep_n = 0, cv_n = 0;
    double *e = malloc((n ? n : 1) * sizeof *e);
    cJSON *list = cJSON_CreateArray();
    if (e == NULL || list == NULL) {
        free(e);
        cJSON_Delete(list);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n;) {
        size_t j = i, best = 0;
        while (j < n && v[j].prompt == v[i].prompt) {
            size_t k = j;
            while (k < n && v[k].prompt == v[i].prompt && strcmp(v[k].hash, v[j].hash) == 0)
                k++;
            if (k - j > best)
                best = k - j;
            j = k;
        }
        size_t g = j - i;
        if (g >= 2) {
            rep_sum += (double)best / (double)g;
            rep_n++;
            for (size_t k = 0; k < g; k++)
                e[k] = v[i + k].e2e;
            rl_stats_summary s;
            if (rl_stats_summarize(e, g, &s, err) != RL_OK) {
                *fail = true;
                ok = false;
                break;
            }
            cJSON *o = cJSON_CreateObject();
            ok = o != NULL && cJSON_AddItemToArray(list, o) &&
                 rl_json_add_str_or_null(o, "prompt", prompt_id(p, v[i].prompt)) &&
                 rl_json_add_u64(o, "n", g) &&
                 rl_json_add_num(o, "repeatability", (double)best / (double)g);
            if (ok && s.has_cv) {
                ok = rl_json_add_num(o, "e2e_cv", s.cv);
                cv_sum += s.cv;
                cv_n++;
            } else if (ok) {
                ok = rl_json_add_unavailable(o, "e2e_cv", "the mean E2E is 0");
            }
        }
        i = j;
    }
    free(e);
    if (!ok) {
        cJSON_Delete(list);
        return false;
    }
    const char *few = "no prompt has 2 successful runs at this operating point (give --runs 2 "
                      "or more)";
    cJSON *rep, *cv;
    if (rep_n > 0) {
        rep = scalar("derived", "1", rep_sum / (double)rep_n);
        ok = rep != NULL && rl_json_add_u64(rep, "prompts", rep_n);
    } else {
        rep = rl_json_unavailable(point_reason != NULL ? point_reason : few);
    }
    if (cv_n > 0) {
        cv = scalar("derived", "1", cv_sum / (double)cv_n);
        ok = ok && cv != NULL && rl_json_add_u64(cv, "prompts", cv_n);
        ok = ok && rl_json_attach(cv, "per_prompt", list);
        list = NULL;
    } else {
        cv = rl_json_unavailable(point_reason != NULL ? point_reason : few);
    }
    cJSON_Delete(list);
    ok = rl_json_attach(metrics, "repeatability", rep) && ok;
    ok = rl_json_attach(metrics, "stability_cv", cv) && ok;
    return ok;
}

/* ---- the point -------------------------------------------------------------------------- */

typedef struct {
    double *ttft, *e2e, *gen, *tpot, *second, *prefill, *out_rate, *dec_rate, *ptok, *otok, *ftok,
        *deliv, *gaps;
    size_t n_ttft, n_e2e, n_gen, n_tpot, n_second, n_prefill, n_out_rate, n_dec_rate, n_ptok,
        n_otok, n_ftok, n_deliv, n_gaps, gaps_kept;
} arrays_t;

static void arrays_free(arrays_t *a)
{
    double **all[] = {&a->ttft,    &a->e2e,      &a->gen,      &a->tpot, &a->second,
                      &a->prefill, &a->out_rate, &a->dec_rate, &a->ptok, &a->otok,
                      &a->ftok,    &a->deliv,    &a->gaps};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        free(*all[i]);
        *all[i] = NULL;
    }
}

static bool arrays_alloc(arrays_t *a, size_t n, size_t gaps)
{
    size_t m = n ? n : 1;
    double **all[] = {&a->ttft,     &a->e2e,      &a->gen,  &a->tpot, &a->second, &a->prefill,
                      &a->out_rate, &a->dec_rate, &a->ptok, &a->otok, &a->ftok,   &a->deliv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if ((*all[i] = rl_calloc(m, sizeof(double))) == NULL)
            return false;
    a->gaps = rl_calloc(gaps ? gaps : 1, sizeof(double));
    return a->gaps != NULL;
}

static bool add_window(cJSON *o, const char *key, int64_t from, int64_t to, const char *what)
{
    cJSON *w = scalar("measured", "ms", (double)(to - from) / NS_PER_MS);
    return w != NULL && rl_json_add_str(w, "span", what) && rl_json_attach(o, key, w);
}

static cJSON *slo_json(const rl_client_slo *slo)
{
    cJSON *o = cJSON_CreateObject();
    if (o != NULL && !(rl_json_add_num_or_null(o, "ttft_ms", slo->ttft_ms, slo->ttft_ms > 0) &&
                       rl_json_add_num_or_null(o, "tpot_ms", slo->tpot_ms, slo->tpot_ms > 0) &&
                       rl_json_add_num_or_null(o, "e2e_ms", slo->e2e_ms, slo->e2e_ms > 0))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The state of one point's computation, shared by its steps. */
typedef struct {
    const rl_client_point *p;
    const rl_client_slo *slo;
    rl_error *err;
    bool slo_set, fail;
    size_t n;
    req_t *q;
    pr_t *pr;
    size_t *runs;
    arrays_t a;
    size_t n_ok, attempts, total_gaps, gaps_cap;
    int64_t win_from, win_to;
    double win_s;
    double dec_tokens, dec_ms, sum_out, sum_prompt;
    size_t out_known, prompt_known, n_good, n_pr;
    size_t slo_fail_failed, slo_fail_ttft, slo_fail_tpot, slo_fail_e2e;
    tally_t t_ttft, t_gen, t_tpot, t_pre, t_out, t_first, t_ptok, t_otok;
    char none[160];
    const char *point_reason;
} point_t;

/* Pass 1: validate, count pooled gaps (bounded by chunks, which the drivers bounded). */
static bool point_validate(point_t *c)
{
    const rl_client_point *p = c->p;
    for (size_t i = 0; i < c->n; i++) {
        const rl_client_result *r = p->results[i];
        if (r == NULL || (r->n_chunks > 0 && r->chunks == NULL)) {
            rl_fail(c->err, RL_EINTERNAL, "client metrics: result %zu is empty", i);
            c->fail = true;
            return false;
        }
        if (p->n_prompts > 0 && r->prompt >= p->n_prompts) {
            rl_fail(c->err, RL_EINTERNAL, "client metrics: result %zu names prompt %zu of %zu", i,
                    r->prompt, p->n_prompts);
            c->fail = true;
            return false;
        }
        c->attempts += r->attempt ? r->attempt : 1;
        if (!r->ok)
            continue;
        int64_t start = rl_client_result_start_ns(r);
        if (c->n_ok == 0 || start < c->win_from)
            c->win_from = start;
        if (c->n_ok == 0 || r->end_ns > c->win_to)
            c->win_to = r->end_ns;
        c->n_ok++;
        for (size_t k = 1; k < r->n_chunks; k++)
            if (r->chunks[k].t_ns - r->chunks[k - 1].t_ns >= RL_CLIENT_DELIVERY_GAP_NS)
                c->total_gaps++;
    }
    return true;
}

/* One ok request's samples into the distributions, their tallies and the sums. */
static void point_samples(point_t *c, const rl_client_result *r, const req_t *x)
{
    arrays_t *a = &c->a;
    a->e2e[a->n_e2e++] = x->e2e_ms;
    a->deliv[a->n_deliv++] = (double)x->deliveries;
    if (isfinite(x->ttft_ms))
        a->ttft[a->n_ttft++] = x->ttft_ms;
    else
        tally_add(&c->t_ttft, x->w_ttft);
    if (isfinite(x->gen_ms))
        a->gen[a->n_gen++] = x->gen_ms;
    else
        tally_add(&c->t_gen, x->w_gen);
    if (isfinite(x->second_ms))
        a->second[a->n_second++] = x->second_ms;
    if (isfinite(x->tpot_ms)) {
        a->tpot[a->n_tpot++] = x->tpot_ms;
        a->dec_rate[a->n_dec_rate++] = x->decode_tok_s;
        c->dec_tokens += (double)x->decode_tokens;
        c->dec_ms += x->gen_ms;
    } else {
        tally_add(&c->t_tpot, x->w_tpot);
    }
    if (isfinite(x->prefill_tok_s))
        a->prefill[a->n_prefill++] = x->prefill_tok_s;
    else
        tally_add(&c->t_pre, x->w_prefill);
    if (isfinite(x->output_tok_s))
        a->out_rate[a->n_out_rate++] = x->output_tok_s;
    else
        tally_add(&c->t_out, x->w_out_rate);
    if (x->first_tokens >= 0)
        a->ftok[a->n_ftok++] = (double)x->first_tokens;
    else
        tally_add(&c->t_first, x->w_first);
    if (r->prompt_tokens >= 0) {
        a->ptok[a->n_ptok++] = (double)r->prompt_tokens;
        c->sum_prompt += (double)r->prompt_tokens;
        c->prompt_known++;
    } else {
        tally_add(&c->t_ptok, why_tokens(r, W_NO_PROMPT_TOKENS));
    }
    if (r->output_tokens >= 0) {
        a->otok[a->n_otok++] = (double)r->output_tokens;
        c->sum_out += (double)r->output_tokens;
        c->out_known++;
    } else {
        tally_add(&c->t_otok, why_tokens(r, W_NO_OUTPUT_TOKENS));
    }
}

/* Pass 2: per request, the SLO tally and the samples of every distribution. */
static void point_tally(point_t *c)
{
    const rl_client_point *p = c->p;
    const rl_client_slo *slo = c->slo;
    for (size_t i = 0; i < c->n; i++) {
        const rl_client_result *r = p->results[i];
        req_t *x = &c->q[i];
        x->prompt = r->prompt;
        x->run = p->n_prompts > 0 ? ++c->runs[r->prompt] : i + 1;
        request(r, x, slo, c->slo_set, c->gaps_cap ? c->a.gaps : NULL, c->gaps_cap, &c->a.n_gaps);
        if (c->slo_set) {
            if (x->good == 1)
                c->n_good++;
            if (!r->ok)
                c->slo_fail_failed++;
            else {
                unsigned miss = rl_client_slo_misses(slo, x->ttft_ms, x->tpot_ms, x->e2e_ms);
                c->slo_fail_ttft += (miss & RL_SLO_TTFT) != 0;
                c->slo_fail_tpot += (miss & RL_SLO_TPOT) != 0;
                c->slo_fail_e2e += (miss & RL_SLO_E2E) != 0;
            }
        }
        if (!r->ok)
            continue;
        point_samples(c, r, x);
        c->pr[c->n_pr++] = (pr_t){r->prompt, c->q[i].hash, x->e2e_ms};
    }
    c->a.gaps_kept = c->gaps_cap ? c->a.n_gaps : 0;
}

/* The reason every metric of a point without a successful request is unavailable. */
static void point_set_reason(point_t *c)
{
    if (c->n_ok != 0)
        return;
    if (c->n == 0)
        rl_snprintf(c->none, sizeof c->none, "no request was measured at this operating point");
    else
        rl_snprintf(c->none, sizeof c->none,
                    "no successful request at this operating point (%zu of %zu failed)", c->n,
                    c->n);
    c->point_reason = c->none;
}

/* The point's settings, request counts, wall and window. */
static bool point_header(point_t *c, cJSON *root)
{
    const rl_client_point *p = c->p;
    size_t n = c->n, n_ok = c->n_ok;
    bool ok = rl_json_add_u64(root, "concurrency", p->concurrency) &&
              rl_json_add_num_or_null(root, "request_rate", p->request_rate, p->request_rate > 0) &&
              rl_json_add_num_or_null(root, "ramp_up_ms", p->ramp_up_ms, p->ramp_up_ms > 0) &&
              rl_json_add_u64(root, "warmup", p->warmup);
    cJSON *req = ok ? cJSON_CreateObject() : NULL;
    ok = ok && rl_json_attach(root, "requests", req) &&
         cJSON_AddStringToObject(req, "kind", "measured") && rl_json_add_u64(req, "measured", n) &&
         rl_json_add_u64(req, "ok", n_ok) && rl_json_add_u64(req, "failed", n - n_ok) &&
         rl_json_add_u64(req, "attempts", c->attempts);
    if (ok && n > 0) {
        cJSON *sr = scalar("measured", "1", (double)n_ok / (double)n);
        ok = rl_json_attach(req, "success_rate", sr);
    } else if (ok) {
        ok = rl_json_add_unavailable(req, "success_rate", "no request was measured");
    }
    if (ok && p->end_ns > p->start_ns)
        ok = add_window(
            root, "wall", p->start_ns, p->end_ns,
            "first send (a retried request's first attempt) to last end of every measured "
            "request");
    else if (ok)
        ok = rl_json_add_unavailable(root, "wall", "the scheduler gave no wall-clock span");
    if (ok && n_ok > 0 && c->win_to > c->win_from) {
        ok = add_window(
            root, "window", c->win_from, c->win_to,
            "first send (a retried request's first attempt) to last end of the successful "
            "requests");
        c->win_s = (double)(c->win_to - c->win_from) / 1e9;
    } else if (ok) {
        ok = rl_json_add_unavailable(root, "window",
                                     c->point_reason ? c->point_reason
                                                     : "the successful requests span 0 ms");
    }
    return ok;
}

/* Every distribution of the point into metrics m. */
static bool point_distributions(point_t *c, cJSON *m)
{
    const arrays_t *a = &c->a;
    const char *point_reason = c->point_reason;
    rl_error *err = c->err;
    bool ok = true;
#define DIST(key, kind, unit, arr, cnt, kept, tally)                                               \
    do {                                                                                           \
        if (ok) {                                                                                  \
            cJSON *d_ = dist(kind, unit, arr, cnt, kept, point_reason, tally, err, &c->fail);      \
            ok = !c->fail && rl_json_attach(m, key, d_);                                           \
        }                                                                                          \
    } while (0)
    DIST("ttft", "proxy", "ms", a->ttft, a->n_ttft, a->n_ttft, &c->t_ttft);
    DIST("e2e", "measured", "ms", a->e2e, a->n_e2e, a->n_e2e, NULL);
    DIST("deliveries", "derived", "count", a->deliv, a->n_deliv, a->n_deliv, NULL);
    DIST("generation", "derived", "ms", a->gen, a->n_gen, a->n_gen, &c->t_gen);
    DIST("tpot", "derived", "ms", a->tpot, a->n_tpot, a->n_tpot, &c->t_tpot);
    DIST("second_chunk", "proxy", "ms", a->second, a->n_second, a->n_second, &c->t_gen);
    if (ok && c->total_gaps > 0 && c->gaps_cap == 0) {
        /* too many gaps to keep: one more pass collects them all for the summary only */
        double *g = rl_calloc(c->total_gaps, sizeof *g);
        size_t ng = 0;
        double sec = 0;
        int64_t last = 0;
        ok = g != NULL;
        for (size_t i = 0; ok && i < c->n; i++) {
            const rl_client_result *r = c->p->results[i];
            req_t tmp = {0};
            if (r->ok)
                walk_chunks(r, &tmp, g, c->total_gaps, &ng, &sec, &last);
        }
        DIST("chunk_gap", "proxy", "ms", g, ng, 0, NULL);
        free(g);
    } else {
        DIST("chunk_gap", "proxy", "ms", a->gaps, a->n_gaps, a->gaps_kept,
             a->n_gaps == 0 && c->n_ok > 0 ? &c->t_gen : NULL);
    }
    DIST("prompt_tokens", "measured", "tokens", a->ptok, a->n_ptok, a->n_ptok, &c->t_ptok);
    DIST("output_tokens", "measured", "tokens", a->otok, a->n_otok, a->n_otok, &c->t_otok);
    DIST("first_delivery_tokens", "measured", "tokens", a->ftok, a->n_ftok, a->n_ftok, &c->t_first);
    DIST("prefill_tok_s", "proxy", "tok/s", a->prefill, a->n_prefill, a->n_prefill, &c->t_pre);
    DIST("output_tok_s", "derived", "tok/s", a->out_rate, a->n_out_rate, a->n_out_rate, &c->t_out);
    DIST("decode_tok_s", "derived", "tok/s", a->dec_rate, a->n_dec_rate, a->n_dec_rate, &c->t_tpot);
#undef DIST
    return ok;
}

/* The point-wide rates into metrics m. */
static bool point_rates(point_t *c, cJSON *m)
{
    const char *point_reason = c->point_reason;
    double win_s = c->win_s;
    size_t n_ok = c->n_ok, out_known = c->out_known, prompt_known = c->prompt_known;
    bool ok = true;
    {
        cJSON *v;
        if (c->a.n_dec_rate > 0 && c->dec_ms > 0) {
            v = scalar("derived", "tok/s", c->dec_tokens / (c->dec_ms / 1e3));
            ok = v != NULL && rl_json_add_num(v, "decode_tokens", c->dec_tokens) &&
                 rl_json_add_num(v, "generation_ms", c->dec_ms);
        } else {
            v = no_samples(point_reason, &c->t_tpot);
        }
        ok = ok && rl_json_attach(m, "decode_throughput", v);
    }
    if (ok) {
        cJSON *v;
        if (!isfinite(win_s))
            v = rl_json_unavailable(point_reason ? point_reason
                                                 : "the successful requests span 0 ms");
        else if (out_known < n_ok)
            v = unavailable_fmt("output tokens unknown for %zu of %zu successful requests",
                                n_ok - out_known, n_ok);
        else
            v = scalar("derived", "tok/s", c->sum_out / win_s);
        ok = rl_json_attach(m, "output_throughput", v);
    }
    if (ok) {
        cJSON *v;
        if (!isfinite(win_s))
            v = rl_json_unavailable(point_reason ? point_reason
                                                 : "the successful requests span 0 ms");
        else if (out_known < n_ok || prompt_known < n_ok)
            v = unavailable_fmt("prompt or output tokens unknown for %zu of %zu successful "
                                "requests",
                                n_ok - (out_known < prompt_known ? out_known : prompt_known), n_ok);
        else
            v = scalar("derived", "tok/s", (c->sum_out + c->sum_prompt) / win_s);
        ok = rl_json_attach(m, "total_throughput", v);
    }
    if (ok) {
        cJSON *v = isfinite(win_s)
                       ? scalar("measured", "req/s", (double)n_ok / win_s)
                       : rl_json_unavailable(point_reason ? point_reason
                                                          : "the successful requests span 0 ms");
        ok = rl_json_attach(m, "rps", v);
    }
    return ok;
}

/* Goodput against the SLOs, or why there is none. */
static bool point_goodput(const point_t *c, cJSON *root)
{
    size_t n = c->n, n_good = c->n_good;
    if (!c->slo_set)
        return rl_json_add_unavailable(root, "goodput",
                                       "no SLO set (give --slo-ttft-ms, --slo-tpot-ms or "
                                       "--slo-e2e-ms)");
    cJSON *g = cJSON_CreateObject(), *nb = NULL;
    bool ok = rl_json_attach(root, "goodput", g) && cJSON_AddStringToObject(g, "kind", "derived") &&
              rl_json_attach(g, "slo", slo_json(c->slo)) && rl_json_add_u64(g, "requests", n) &&
              rl_json_add_u64(g, "good", n_good) &&
              rl_json_add_num_or_null(g, "fraction", n ? (double)n_good / (double)n : 0, n > 0) &&
              rl_json_add_u64(g, "ok", c->n_ok) &&
              rl_json_add_num_or_null(g, "fraction_of_ok",
                                      c->n_ok ? (double)n_good / (double)c->n_ok : 0, c->n_ok > 0);
    nb = ok ? cJSON_CreateObject() : NULL;
    ok = ok && rl_json_attach(g, "not_good", nb) &&
         rl_json_add_u64(nb, "failed", c->slo_fail_failed) &&
         rl_json_add_u64(nb, "ttft", c->slo_fail_ttft) &&
         rl_json_add_u64(nb, "tpot", c->slo_fail_tpot) &&
         rl_json_add_u64(nb, "e2e", c->slo_fail_e2e);
    if (ok) {
        cJSON *v = isfinite(c->win_s)
                       ? scalar("derived", "req/s", (double)n_good / c->win_s)
                       : rl_json_unavailable(c->point_reason ? c->point_reason
                                                             : "the successful requests span 0 ms");
        ok = rl_json_attach(g, "rps", v);
    }
    return ok;
}

/* One record per request. */
static bool point_records(const point_t *c, cJSON *root)
{
    cJSON *recs = cJSON_CreateArray();
    bool ok = rl_json_attach(root, "records", recs);
    for (size_t i = 0; ok && i < c->n; i++) {
        cJSON *o = record(c->p, c->p->results[i], &c->q[i]);
        ok = o != NULL && cJSON_AddItemToArray(recs, o);
    }
    return ok;
}

/* The steps, in order: validate, tally the requests, the header, the distributions, the
 * rates, per-prompt, goodput, the records. */
static cJSON *point_assemble(point_t *c)
{
    bool ok = c->q != NULL && c->pr != NULL && c->runs != NULL;
    ok = ok && point_validate(c);
    c->gaps_cap = c->total_gaps < RL_CLIENT_GAP_SAMPLES_MAX ? c->total_gaps : 0;
    ok = ok && arrays_alloc(&c->a, c->n, c->gaps_cap ? c->gaps_cap : (c->total_gaps ? 1 : 0));
    if (ok)
        point_tally(c);
    if (ok)
        point_set_reason(c);
    cJSON *root = ok ? cJSON_CreateObject() : NULL;
    ok = root != NULL && point_header(c, root);
    cJSON *m = ok ? cJSON_CreateObject() : NULL;
    ok = ok && rl_json_attach(root, "metrics", m);
    ok = ok && point_distributions(c, m);
    ok = ok && point_rates(c, m);
    ok = ok && per_prompt(c->p, c->pr, c->n_pr, m, c->point_reason, c->err, &c->fail);
    ok = ok && point_goodput(c, root);
    ok = ok && point_records(c, root);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

cJSON *rl_client_point_json(const rl_client_point *p, const rl_client_slo *slo, rl_error *err)
{
    static const rl_client_slo no_slo = {0, 0, 0};
    if (slo == NULL)
        slo = &no_slo;
    if (p == NULL || (p->n_results > 0 && p->results == NULL))
        return rl_fail(err, RL_EINTERNAL, "client metrics: no results given"), NULL;
    size_t n = p->n_results;
    point_t c = {.p = p, .slo = slo, .err = err, .n = n, .win_s = NAN};
    c.slo_set = slo->ttft_ms > 0 || slo->tpot_ms > 0 || slo->e2e_ms > 0;
    c.q = rl_calloc(n ? n : 1, sizeof *c.q);
    c.pr = rl_calloc(n ? n : 1, sizeof *c.pr);
    c.runs = rl_calloc(p->n_prompts ? p->n_prompts : 1, sizeof *c.runs);
    cJSON *root = point_assemble(&c);
    arrays_free(&c.a);
    free(c.q);
    free(c.pr);
    free(c.runs);
    if (root == NULL && !c.fail)
        rl_fail(err, RL_EINTERNAL, "out of memory computing the client metrics");
    return root;
}

/* ---- the CI gate ---------------------------------------------------------------------- */

/* One reason into the array and the joined line. */
static void gate_reason(cJSON *reasons, char *buf, size_t cap, size_t *len, const char *r)
{
    cJSON_AddItemToArray(reasons, cJSON_CreateString(r));
    if (*len < cap)
        *len += (size_t)rl_snprintf(buf + *len, cap - *len, "%s%s", *len ? "; " : "", r);
}

cJSON *rl_client_gate_json(const cJSON *points, double pct, char *buf, size_t cap)
{
    uint64_t failed = 0;
    size_t len = 0;
    char r[160];
    cJSON *gate = cJSON_CreateObject(), *reasons = cJSON_CreateArray();
    buf[0] = '\0';
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points)
    {
        uint64_t f = 0;
        rl_json_get_u64(rl_json_get(pt, "requests"), "failed", &f);
        failed += f;
    }
    if (failed > 0) {
        rl_snprintf(r, sizeof r, "%llu request%s failed", (unsigned long long)failed,
                    failed == 1 ? "" : "s");
        gate_reason(reasons, buf, cap, &len, r);
    }
    cJSON_ArrayForEach(pt, points)
    {
        double fr = rl_json_num_or(rl_json_get(pt, "goodput"), "fraction", NAN);
        if (pct <= 0 || !isfinite(fr) || fr * 100 >= pct)
            continue;
        rl_snprintf(r, sizeof r, "concurrency %.0f: goodput %.3g%% < %.3g%%",
                    rl_json_num_or(pt, "concurrency", NAN), fr * 100, pct);
        gate_reason(reasons, buf, cap, &len, r);
    }
    bool ok = gate && rl_json_add_str(gate, "kind", "derived") &&
              rl_json_add_num_or_null(gate, "fail_below_pct", pct, pct > 0) &&
              rl_json_add_u64(gate, "failed", failed) &&
              cJSON_AddBoolToObject(gate, "passed", buf[0] == '\0');
    if (!ok || !rl_json_attach(gate, "reasons", reasons)) { /* attach frees reasons */
        if (!ok)
            cJSON_Delete(reasons);
        cJSON_Delete(gate);
        rl_snprintf(buf, cap, "out of memory judging the gate");
        return NULL;
    }
    return gate;
}
