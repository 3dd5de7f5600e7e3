/* SPDX-License-Identifier: MIT */
/* defaults.h: the default settings of the measuring verbs, written once (llama-bench's
 * cmd_params_defaults habit). The parsers of run, diagnose, advise and client initialise their
 * options from rl_defaults, and their usage texts spell the same numbers through the macros
 * with RL_DEF_STR, so --help can never disagree with what is used. */
#ifndef RL_CMD_DEFAULTS_H
#define RL_CMD_DEFAULTS_H

#include <stdbool.h>

#include "base/rl_error.h"
#include "measure/quiet.h"

/* the llama-bench sweep (run, diagnose, advise) */
#define RL_DEF_N_PROMPT 128   /* prompt tokens */
#define RL_DEF_N_GEN 128      /* generated tokens */
#define RL_DEF_REPS 3         /* repetitions per llama-bench test */
#define RL_DEF_MAX_REPS 30    /* run --target-ci: at most this many repetitions */
#define RL_DEF_TIMEOUT_S 3600 /* seconds per llama-bench invocation */
/* run, diagnose: the ceiling's bracketing probes (cmd/bracket.h) may differ by this much (the
 * lowest below the highest, % of the highest) before it is a "ceiling_drift" warning */
#define RL_DEF_BRACKET_LIMIT_PCT 15

/* calibrate (cmd/calib_run.h): llama-bench -p 0 -n N -r R on each calibration model */
#define RL_DEF_CAL_N_GEN 64       /* generated tokens per repetition */
#define RL_DEF_CAL_REPS 3         /* repetitions per run */
#define RL_DEF_CAL_QUICK_N_GEN 32 /* --quick */
#define RL_DEF_CAL_QUICK_REPS 2
#define RL_DEF_CAL_RUN_S                                                                           \
    1.5 /* seconds of generation a run aims at: fewer tokens for a slow kernel */
/* passes over the whole set, each point's faster run used (bundle/calib.h; at most
 * RL_CAL_MAX_PASSES) */
#define RL_DEF_CAL_PASSES 2

/* the client */
#define RL_DEF_CLIENT_WARMUP 1      /* unmeasured requests before each point */
#define RL_DEF_CLIENT_RUNS 1        /* passes over the prompt set */
#define RL_DEF_CLIENT_CONCURRENCY 1 /* requests in flight */
#define RL_DEF_CLIENT_RETRY 0       /* retries of a failed request */
#define RL_DEF_CLIENT_TIMEOUT_S 60  /* seconds per request attempt */

/* a quiet machine (measure/quiet.h): the limits of a disturbed measurement, the waits */
#define RL_DEF_QUIET_OTHER_CPU_PCT RL_QUIET_OTHER_CPU_PCT /* other processes' share of the CPUs */
#define RL_DEF_QUIET_STEAL_PCT RL_QUIET_STEAL_PCT         /* the hypervisor's share */
#define RL_DEF_WAIT_QUIET_S 0         /* --wait-quiet: seconds to wait before each measurement */
#define RL_DEF_MAX_WAIT_QUIET_S 86400 /* --wait-quiet upper bound */
#define RL_DEF_RETRY_DISTURBED 0      /* --retry-disturbed: re-measurements of a disturbed one */
#define RL_DEF_MAX_RETRY_DISTURBED 20 /* --retry-disturbed upper bound */

/* the client's measured server (measure/quiet.h): --server-pid names it, whole number 1 to
 * Linux's PID_MAX_LIMIT; without it a loopback --url's listening process is looked up */
#define RL_DEF_MAX_SERVER_PID 4194304

/* history: the points a series lists (text, Markdown, page) without --all-steps */
#define RL_DEF_HISTORY_LISTED 120

/* A macro's value as a string literal: "default " RL_DEF_STR(RL_DEF_N_PROMPT). */
#define RL_DEF_STR_(x) #x
#define RL_DEF_STR(x) RL_DEF_STR_(x)

/* --wait-quiet and --retry-disturbed in a usage text: P1 and P2 pad the two option names to
 * the text's column, IND indents its continuation lines to that column. */
#define RL_DEF_QUIET_HELP(P1, P2, IND)                                                                   \
    "  --wait-quiet SEC" P1 "wait before each measurement until the machine is\n" IND                    \
    "quiet, at most SEC s (0 to " RL_DEF_STR(RL_DEF_MAX_WAIT_QUIET_S) ", default " RL_DEF_STR(           \
        RL_DEF_WAIT_QUIET_S) ")\n"                                                                       \
                             "  --retry-disturbed N" P2                                                  \
                             "measure a disturbed one again, up to N times (0 to\n" IND                  \
                             RL_DEF_STR(RL_DEF_MAX_RETRY_DISTURBED) ", default " RL_DEF_STR(             \
                                 RL_DEF_RETRY_DISTURBED) "); the bundle keeps every attempt\n" IND       \
                                                         "disturbed: other processes used "              \
                                                         "over " RL_DEF_STR(                             \
                                                             RL_DEF_QUIET_OTHER_CPU_PCT) "% of "         \
                                                                                         "the"           \
                                                                                         "\n" IND        \
                                                                                         "CPUs, "        \
                                                                                         "or "           \
                                                                                         "steal "        \
                                                                                         "was "          \
                                                                                         "over"          \
                                                                                         " " RL_DEF_STR( \
                                                                                             RL_DEF_QUIET_STEAL_PCT) "% of the time\n"

/* --server-pid in the client's usage text: P pads the option name to the text's column, IND
 * indents its continuation lines to that column. */
// clang-format off
#define RL_DEF_SERVER_PID_HELP(P, IND)                                                             \
    "  --server-pid PID" P "the measured server's process, 1 to " RL_DEF_STR(RL_DEF_MAX_SERVER_PID) \
    ": its CPU\n" IND "time is the work measured, not other processes'\n"                          \
    IND "(default: for a loopback --url, the process listening\n"                                 \
    IND "on its port; none for --cmd, whose children count as\n"                                  \
    IND "ours once they exit)\n"
// clang-format on

/* The two options' getopt values and table entries, shared by the measuring commands. */
#define RL_OPT_WAIT_QUIET 1000
#define RL_OPT_RETRY_DISTURBED 1001
#define RL_DEF_QUIET_LONGOPTS                                                                      \
    {"wait-quiet", required_argument, NULL, RL_OPT_WAIT_QUIET},                                    \
    {                                                                                              \
        "retry-disturbed", required_argument, NULL, RL_OPT_RETRY_DISTURBED                         \
    }

typedef struct {
    int n_prompt, n_gen, reps, max_reps;
    int cal_n_gen, cal_reps, cal_quick_n_gen, cal_quick_reps;
    double cal_run_s;
    int cal_passes;
    double timeout_s;
    double bracket_limit_pct;
    int client_warmup, client_runs, client_concurrency, client_retry;
    double client_timeout_s;
    rl_quiet_limits quiet; /* the disturbed limits */
    double wait_quiet_s;
    int retry_disturbed;
} rl_defaults_t;

extern const rl_defaults_t rl_defaults;

/* c is RL_OPT_WAIT_QUIET or RL_OPT_RETRY_DISTURBED: its value (the number rule, in range)
 * into *wait_s or *retry, *st RL_OK or RL_EINPUT with err filled; true. Any other c: false,
 * nothing touched. */
bool rl_defaults_quiet_opt(int c, const char *arg, double *wait_s, int *retry, rl_status *st,
                           rl_error *err);

#endif
