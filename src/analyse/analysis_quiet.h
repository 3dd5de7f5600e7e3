/* SPDX-License-Identifier: MIT */
/* analysis_quiet.h: the noise and disturbance rules of the analysis (thresholds and rules in
 * analysis.h), used by analysis.c only (the run analysis and the client one). Pure arithmetic on
 * the analysis input: no I/O.
 *
 * Memory: rl_an_disturbance_of fills d->text and d->advice with strings the caller frees
 * (rl_an_free does, as part of the result). */
#ifndef RL_ANALYSIS_QUIET_H
#define RL_ANALYSIS_QUIET_H

#include "analyse/analysis.h"

/* The noise of one rate's samples (mean > 0); RL_EINTERNAL when out of memory. */
rl_status rl_an_noise_of(const rl_an_rate *rate, rl_an_noise *out, rl_error *err);

/* The disturbance summary of the input's machine states; RL_EINTERNAL when out of memory. */
rl_status rl_an_disturbance_of(const rl_an_input *in, rl_an_disturbance *d, rl_error *err);

#endif
