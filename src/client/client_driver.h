/* SPDX-License-Identifier: MIT */
/* client_driver.h: the contract between the streaming-client scheduler (client_sched, which
 * decides what is sent when: warm-up, concurrency, request rate, ramp-up, retries) and the two
 * transports that send one request and timestamp what comes back: the command driver
 * (client_cmd.c, a child process through proc.h) and the HTTP driver (client_http.c, an
 * OpenAI-compatible SSE endpoint through libcurl's multi interface).
 *
 * A driver runs one event loop over up to `concurrency` requests in flight. Whenever a slot is
 * free it asks the scheduler for the next job (next()); when a request ends, however it ends,
 * it hands the filled result to done(). It returns when next() says the work is over and no
 * request is in flight, or on interrupt.
 *
 * Clock: every timestamp is CLOCK_MONOTONIC in ns (rl_proc_now_ns), absolute, so results from
 * either driver, the scheduler and a test's scripted peer compare directly. A chunk is stamped
 * right after the read that returned it (command: read() on the pipe; HTTP: the libcurl write
 * callback), before any parsing.
 *
 * Interrupts: a driver notices rl_interrupted within 100 ms, stops every request in flight
 * (each one reported through done() with ok = false, error "interrupted", interrupted = true)
 * and returns RL_EINTERRUPTED. Everything done() received stays with the scheduler.
 *
 * Ownership: the driver owns a result while the request runs and gives it to done(), which
 * takes it (the scheduler frees it with rl_client_result_free). Job strings are the
 * scheduler's and stay valid until done() returns for that job. */
#ifndef RL_CLIENT_DRIVER_H
#define RL_CLIENT_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rl_error.h"
#include "base/rl_text.h"

/* One read of the response, timestamped on arrival. */
typedef struct {
    int64_t t_ns;   /* CLOCK_MONOTONIC when the bytes were read */
    uint32_t bytes; /* bytes of output text in this chunk (command: the stdout bytes left after
                       terminal control sequences are dropped, so a read of colour codes alone
                       is no chunk; HTTP: the
                       UTF-8 bytes of the content deltas the read completed) */
    int32_t tokens; /* tokens the transport attributes to this chunk (HTTP per-delta counting),
                       -1 when unknown */
} rl_client_chunk;

/* What one request produced. Counts are -1 when unknown; the scheduler fills the token counts
 * a counter command gives. */
typedef struct {
    size_t job;              /* rl_client_job.index */
    size_t prompt;           /* the prompt's index (rl_client_point.prompt_ids); set by the
                                scheduler, 0 from rl_client_result_new */
    unsigned attempt;        /* 1 for the first try */
    bool ok;                 /* a complete answer arrived */
    bool interrupted;        /* stopped by Ctrl-C */
    bool timed_out;          /* stopped by the per-request timeout */
    char *error;             /* one line, why it failed (ok false), malloc'd or NULL */
    int64_t send_ns;         /* request written (command: spawn; HTTP: curl handle added) */
    int64_t first_send_ns;   /* the first attempt's send_ns when this result is a retry (set by
                                the scheduler), 0 otherwise: the request's real start */
    int64_t end_ns;          /* last byte or failure */
    rl_client_chunk *chunks; /* in arrival order, malloc'd; chunks with bytes == 0 (SSE
                                keep-alives, role-only deltas) are not recorded */
    size_t n_chunks;
    size_t chunks_cap;
    char *output; /* the answer text (first RL_CLIENT_OUTPUT_MAX bytes), malloc'd */
    size_t output_len;
    uint64_t output_total;    /* every byte of answer text, kept or not */
    uint64_t raw_total;       /* command driver: every byte read from stdout, terminal control
                                 sequences included (output_total is what is left without
                                 them: rl_term_strip_run); HTTP: equal to output_total */
    rl_term_strip term;       /* command driver: the filter's state across reads */
    unsigned count_failed;    /* RL_CLIENT_NOCOUNT_* bits: why a counter left a count unknown
                                 (client_count.c), so each missing value gives its true reason */
    int64_t prompt_tokens;    /* from the transport (HTTP usage) or -1 */
    int64_t output_tokens;    /* from the transport (HTTP usage, or the sum of per-delta counts
                                 when every chunk has one) or -1 */
    const char *token_source; /* static string: "usage", "per-delta", or NULL */
    int http_status;          /* HTTP status, 0 for the command driver or when none arrived */
    int exit_code;            /* command driver: the child's exit code, -1 when killed/unknown */
    uint64_t chunks_merged;   /* added by client-core: reads folded into the previous chunk
                                 (rl_client_result_append) */
} rl_client_result;

#define RL_CLIENT_OUTPUT_MAX ((size_t)1 << 20) /* answer bytes kept per request */

/* rl_client_result.count_failed: a counter was configured, and ... */
#define RL_CLIENT_NOCOUNT_CALIB 1u  /* ... it failed its calibration: nothing was counted */
#define RL_CLIENT_NOCOUNT_OUTPUT 2u /* ... it failed on the answer's text */
#define RL_CLIENT_NOCOUNT_FIRST 4u  /* ... it failed on the first delivery's text */
#define RL_CLIENT_NOCOUNT_PROMPT 8u /* ... it failed on the prompt */
#define RL_CLIENT_NOCOUNT_LONG 16u  /* ... the answer exceeds RL_CLIENT_OUTPUT_MAX: not counted */

/* What to send. */
typedef struct {
    size_t index;       /* the scheduler's id for this job */
    const char *prompt; /* UTF-8 */
    size_t prompt_len;
    int max_tokens; /* 0: leave it to the model/server */
    double timeout; /* seconds for this attempt, 0 = none */
} rl_client_job;

/* The scheduler's side. */
typedef struct {
    void *ctx;
    /* Fill *job with the next request to start now and return 1; return 0 when none is due
     * yet (*wake_ns: the CLOCK_MONOTONIC time to ask again, e.g. the next arrival of a
     * request-rate schedule or a retry's backoff); return -1 when nothing more will come. */
    int (*next)(void *ctx, int64_t now_ns, rl_client_job *job, int64_t *wake_ns);
    /* A request ended; the scheduler takes res (its pointer and everything it owns). */
    void (*done)(void *ctx, rl_client_result *res);
    /* Optional: a chunk arrived for job (for a live table); must not block. */
    void (*progress)(void *ctx, size_t job, const rl_client_chunk *chunk);
} rl_client_sched;

/* The command driver: cfg->command runs under /bin/sh -c, the prompt on its stdin, the answer
 * read from its stdout (stderr kept bounded for the error line). A non-zero exit, a signal or
 * a timeout is a failed result with its reason. */
typedef struct {
    const char *command;
    size_t concurrency; /* >= 1 */
} rl_client_cmd_cfg;
rl_status rl_client_cmd_run(const rl_client_cmd_cfg *cfg, const rl_client_sched *s, rl_error *err);

/* The HTTP driver: POST a streaming request ("stream": true, "stream_options":
 * {"include_usage": true}) to an OpenAI-compatible endpoint and read its SSE answer. */
typedef enum { RL_CLIENT_API_CHAT = 0, RL_CLIENT_API_COMPLETIONS = 1 } rl_client_api;
typedef struct {
    const char *url;     /* the endpoint, or a base URL the driver completes (documented there) */
    const char *model;   /* "model" of the request body, NULL to leave it out */
    const char *api_key; /* sent as a Bearer token; never logged, printed or stored */
    rl_client_api api;
    size_t concurrency;     /* >= 1 */
    double connect_timeout; /* seconds, 0 = libcurl's default */
} rl_client_http_cfg;
rl_status rl_client_http_run(const rl_client_http_cfg *cfg, const rl_client_sched *s,
                             rl_error *err);

/* Bounds of rl_client_result_append: reads closer than RL_CLIENT_MERGE_NS to the previous
 * one, and every read once RL_CLIENT_CHUNKS_MAX - 1 chunks are held, join the previous chunk. */
#define RL_CLIENT_MERGE_NS 1000LL
#define RL_CLIENT_CHUNKS_MAX ((size_t)1 << 18)

/* Free what a result owns and the result itself; NULL is a no-op. */
void rl_client_result_free(rl_client_result *res);
/* A new zeroed result for job/attempt with every count at -1; NULL when out of memory. */
rl_client_result *rl_client_result_new(size_t job, unsigned attempt);
/* When the request really began: its first attempt's send (failed attempts and backoff are part
 * of the time it took), send_ns when it was not retried. */
int64_t rl_client_result_start_ns(const rl_client_result *r);
/* Append a chunk (amortised growth) and, when text is given, its bytes to the kept output.
 * RL_EINTERNAL when out of memory. */
rl_status rl_client_result_add(rl_client_result *res, int64_t t_ns, const char *text, size_t len,
                               int32_t tokens, rl_error *err);
/* rl_client_result_add with a bounded chunk array (added by client-core, used by the command
 * driver): a read that arrives less than RL_CLIENT_MERGE_NS after the previous chunk, or when
 * RL_CLIENT_CHUNKS_MAX - 1 chunks are already held, adds its bytes to the previous chunk (which
 * keeps its time; chunks_merged counts it) instead of starting a new one, so a flood of tiny
 * reads costs bounded memory. The text is kept as rl_client_result_add keeps it. */
rl_status rl_client_result_append(rl_client_result *res, int64_t t_ns, const char *text, size_t len,
                                  rl_error *err);

#endif
