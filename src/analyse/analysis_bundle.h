/* SPDX-License-Identifier: MIT */
/* analysis_bundle.h: the analysis of a result bundle, run on the bundle's own tree after
 * measuring (run, diagnose) or importing (import), and that of a client bundle's operating
 * points (client): the analyse stage's entry for commands.
 *
 * Ownership: every function works on the caller's tree. */
#ifndef RL_ANALYSIS_BUNDLE_H
#define RL_ANALYSIS_BUNDLE_H

#include <cjson/cJSON.h>

#include "analyse/analysis.h"
#include "base/rl_error.h"

/* Run the analysis over the bundle's models, runs and ceiling, and store it as "analysis"
 * with its warnings copied to the top-level "warnings" (code, text, applies_to). bytes is the
 * byte convention of the command. A rate without samples (an imported one) counts with its
 * "mean"; a model's "bytes_per_token" marked "imported" is kept when of that convention. */
rl_status rl_bundle_analyze(cJSON *b, rl_an_bytes_convention bytes, rl_error *err);

/* A client-only bundle (command client): the disturbance of its operating points (the
 * "machine" of each client.points[], attempts not counted, the limits of
 * environment.machine_state) stored as "analysis" (analysis.h, rl_an_client_to_json), its
 * warning "disturbed" copied to the top-level "warnings". */
rl_status rl_bundle_analyze_client(cJSON *b, rl_error *err);

/* An imported bundle (bundle/import.h) finished: analysed with the byte convention its
 * settings name, then status "complete" (with a reason when no model has a decode rate); one
 * holding a client section and no models (an fm-bench report) as rl_bundle_analyze_client does.
 * file prefixes an RL_EINPUT message. */
rl_status rl_bundle_analyze_import(cJSON *b, const char *file, rl_error *err);

#endif
