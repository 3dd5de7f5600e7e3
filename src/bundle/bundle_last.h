/* SPDX-License-Identifier: MIT */
/* bundle_last.h: the last bundle `diagnose` wrote. diagnose records the absolute path of each
 * bundle it writes in rl_cache_root()/last-bundle (one line; $LLAMA_ROOFLINE_CACHE, else under
 * $HOME); predict without --bundle reads it.
 *
 * Ownership: rl_bundle_last's path is the caller's (free). */
#ifndef RL_BUNDLE_LAST_H
#define RL_BUNDLE_LAST_H

#include "base/rl_error.h"

/* The bundle predict uses by default: the path in rl_cache_root()/last-bundle (caller frees).
 * RL_EINPUT telling to run diagnose or pass --bundle when there is none. */
rl_status rl_bundle_last(char **path, rl_error *err);
/* Record bundle_path (made absolute) as the last bundle; a failure is returned, callers
 * treat it as a warning. */
rl_status rl_bundle_remember(const char *bundle_path, rl_error *err);

#endif
