/* defaults.c: rl_defaults, the default settings of the measuring verbs built from the
 * macros of defaults.h (the only place the numbers are written). */
#include "cmd/defaults.h"

const rl_defaults_t rl_defaults = {
    .n_prompt = RL_DEF_N_PROMPT,
    .n_gen = RL_DEF_N_GEN,
    .reps = RL_DEF_REPS,
    .max_reps = RL_DEF_MAX_REPS,
    .timeout_s = RL_DEF_TIMEOUT_S,
    .bracket_limit_pct = RL_DEF_BRACKET_LIMIT_PCT,
    .client_warmup = RL_DEF_CLIENT_WARMUP,
    .client_runs = RL_DEF_CLIENT_RUNS,
    .client_concurrency = RL_DEF_CLIENT_CONCURRENCY,
    .client_retry = RL_DEF_CLIENT_RETRY,
    .client_timeout_s = RL_DEF_CLIENT_TIMEOUT_S,
};
