/* defaults.h: the default settings of the measuring verbs, written once (llama-bench's
 * cmd_params_defaults habit). The parsers of run, diagnose, advise and client initialise their
 * options from rl_defaults, and their usage texts spell the same numbers through the macros
 * with RL_DEF_STR, so --help can never disagree with what is used. */
#ifndef RL_CMD_DEFAULTS_H
#define RL_CMD_DEFAULTS_H

/* the llama-bench sweep (run, diagnose, advise) */
#define RL_DEF_N_PROMPT 128   /* prompt tokens */
#define RL_DEF_N_GEN 128      /* generated tokens */
#define RL_DEF_REPS 3         /* repetitions per llama-bench test */
#define RL_DEF_MAX_REPS 30    /* run --target-ci: at most this many repetitions */
#define RL_DEF_TIMEOUT_S 3600 /* seconds per llama-bench invocation */
/* run, diagnose: the ceiling's bracketing probes (cmd/bracket.h) may differ by this much (the
 * lowest below the highest, % of the highest) before it is a "ceiling_drift" warning */
#define RL_DEF_BRACKET_LIMIT_PCT 15

/* the client */
#define RL_DEF_CLIENT_WARMUP 1      /* unmeasured requests before each point */
#define RL_DEF_CLIENT_RUNS 1        /* passes over the prompt set */
#define RL_DEF_CLIENT_CONCURRENCY 1 /* requests in flight */
#define RL_DEF_CLIENT_RETRY 0       /* retries of a failed request */
#define RL_DEF_CLIENT_TIMEOUT_S 60  /* seconds per request attempt */

/* A macro's value as a string literal: "default " RL_DEF_STR(RL_DEF_N_PROMPT). */
#define RL_DEF_STR_(x) #x
#define RL_DEF_STR(x) RL_DEF_STR_(x)

typedef struct {
    int n_prompt, n_gen, reps, max_reps;
    double timeout_s;
    double bracket_limit_pct;
    int client_warmup, client_runs, client_concurrency, client_retry;
    double client_timeout_s;
} rl_defaults_t;

extern const rl_defaults_t rl_defaults;

#endif
