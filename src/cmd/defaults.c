/* SPDX-License-Identifier: MIT */
/* defaults.c: rl_defaults, the default settings of the measuring verbs built from the
 * macros of defaults.h (the only place the numbers are written), and the parser of the two
 * quiet-machine options every measuring command takes. */
#include "cmd/defaults.h"

#include "base/rl_util.h"

const rl_defaults_t rl_defaults = {
    .n_prompt = RL_DEF_N_PROMPT,
    .n_gen = RL_DEF_N_GEN,
    .reps = RL_DEF_REPS,
    .max_reps = RL_DEF_MAX_REPS,
    .cal_n_gen = RL_DEF_CAL_N_GEN,
    .cal_reps = RL_DEF_CAL_REPS,
    .cal_quick_n_gen = RL_DEF_CAL_QUICK_N_GEN,
    .cal_quick_reps = RL_DEF_CAL_QUICK_REPS,
    .cal_run_s = RL_DEF_CAL_RUN_S,
    .cal_passes = RL_DEF_CAL_PASSES,
    .timeout_s = RL_DEF_TIMEOUT_S,
    .bracket_limit_pct = RL_DEF_BRACKET_LIMIT_PCT,
    .client_warmup = RL_DEF_CLIENT_WARMUP,
    .client_runs = RL_DEF_CLIENT_RUNS,
    .client_concurrency = RL_DEF_CLIENT_CONCURRENCY,
    .client_retry = RL_DEF_CLIENT_RETRY,
    .client_timeout_s = RL_DEF_CLIENT_TIMEOUT_S,
    .quiet = {RL_DEF_QUIET_OTHER_CPU_PCT, RL_DEF_QUIET_STEAL_PCT},
    .wait_quiet_s = RL_DEF_WAIT_QUIET_S,
    .retry_disturbed = RL_DEF_RETRY_DISTURBED,
};

bool rl_defaults_quiet_opt(int c, const char *arg, double *wait_s, int *retry, rl_status *st,
                           rl_error *err)
{
    if (c == RL_OPT_WAIT_QUIET)
        *st = rl_opt_double("--wait-quiet", arg, 0, false, RL_DEF_MAX_WAIT_QUIET_S, wait_s, err);
    else if (c == RL_OPT_RETRY_DISTURBED)
        *st = rl_opt_int("--retry-disturbed", arg, 0, RL_DEF_MAX_RETRY_DISTURBED, retry, err);
    else
        return false;
    return true;
}
