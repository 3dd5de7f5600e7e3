/* SPDX-License-Identifier: MIT */
/* client_run.h: the measuring session of `llama-roofline client` (seed 001): the parsed
 * options in, a client bundle (and optionally a report, CSV, chunk times and a text summary)
 * out. cmd_client.c parses the flags into rl_client_opts and calls rl_client_run_session.
 *
 * Ownership: the options' strings belong to the caller and must outlive the call; the session
 * copies the struct, never writes to the caller's, and frees everything it allocates before
 * it returns. */
#ifndef RL_CLIENT_RUN_H
#define RL_CLIENT_RUN_H

#include <stdbool.h>

#include "client/client_metrics.h"
#include "client/client_prompts.h"
#include "base/rl_error.h"
#include "measure/quiet.h"

#define RL_CLIENT_MAX_POINTS 64 /* operating points of one session (--sweep-concurrency) */
#define RL_CLIENT_MAX_TAGS 32   /* --tag, repeated */
#define RL_CLIENT_MAX_MODELS 16 /* --model A,B,...: one set of points each */
#define RL_CLIENT_TAG_MAX 64    /* bytes of one tag */
#define RL_CLIENT_NOTE_MAX 1024 /* bytes of --note */

/* The options of `llama-roofline client`, as docs/CLI.md and its usage text describe them.
 * NULL strings and zero numbers mean "not given"; n_conc 0 means concurrency 1. */
typedef struct {
    const char *cmd, *url, *model, *api, *key_env, *count_cmd, *fm_help;
    const char *profile, *prompts_file, *out_dir, *json, *csv, *chunks, *from;
    int conc[RL_CLIENT_MAX_POINTS], n_conc;
    double rate, ramp, timeout;
    rl_client_slo slo;
    int warmup, runs, retry, max_tokens;
    bool fail_fast, capture;
    bool json_stdout;                     /* --json: the bundle on stdout in place of the summary */
    const char *tags[RL_CLIENT_MAX_TAGS]; /* --tag NAME, kept in client.settings.tags */
    int n_tags;
    const char *note;   /* --note TEXT, client.settings.note */
    double fail_on_slo; /* --fail-on-slo PCT (--ci: 100): > 0 gates the exit status */
    bool ci;            /* --ci: the gate, and failures alone without SLOs */
    bool histogram;     /* --histogram: an E2E histogram per point in the summary */
    /* the machine's state during each point (measure/quiet.h) */
    const rl_quiet_limits *quiet; /* NULL: the defaults */
    double wait_quiet_s;          /* --wait-quiet: > 0 waits for a quiet machine first */
    int retry_disturbed;          /* --retry-disturbed: re-measurements of a disturbed point */
    int server_pid; /* --server-pid: the measured server's process (0: looked up, see below) */
    const char *prompt[RL_CLIENT_INLINE_MAX]; /* --prompt TEXT, in the order given */
    int n_prompt;
} rl_client_opts;

/* Measure every operating point of o and write its outputs; with o->from, measure nothing and
 * write o->csv from that bundle. Returns RL_OK when at least one request succeeded, RL_NOTHING
 * when none did, --fail-fast stopped the run, or the gate failed (--fail-on-slo / --ci: a
 * request failed, or a point's goodput is under the percentage; client.gate says why), RL_EMISSING
 * when the shell could not run the command for any request, RL_EINTERRUPTED on Ctrl-C (the bundle
 * keeps what was measured), and the status of the first input, output or internal error otherwise.
 */
rl_status rl_client_run_session(const rl_client_opts *o, rl_error *err);

#endif
