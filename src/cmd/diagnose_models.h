/* SPDX-License-Identifier: MIT */
/* diagnose_models.h: the models `llama-roofline diagnose` measures.
 *
 * With operands: each GGUF file named and the *.gguf files directly in each directory named
 * (model_paths.h); a URL, a missing path, no model at all or one that does not load is bad
 * input (RL_EINPUT) before anything runs. Without: up to RL_MODEL_PICK models spanning the
 * sizes found in the usual places (model_find.h: $LLAMA_MODELS, ./models, ~/models, the
 * llama.cpp and LM Studio caches), announced on stderr; when none loads, or with synth, the
 * synth ladder (synth_ladder.h, cached under rl_cache_root(); LLAMA_ROOFLINE_SYNTH_PRESET
 * picks a test preset). llama-bench is looked up (RL_EMISSING) and out_dir made and checked
 * writable (RL_EOUTPUT) before the ladder is written, so a missing tool or an unwritable -o
 * costs no time.
 *
 * Ownership: the paths are added to l, which the caller frees (rl_model_paths_free), also
 * after a failure. */
#ifndef RL_DIAGNOSE_MODELS_H
#define RL_DIAGNOSE_MODELS_H

#include <stdbool.h>

#include "model/model_paths.h"
#include "base/rl_error.h"

rl_status rl_diagnose_models(int n, char **ops, bool synth, const char *llama_bench,
                             const char *out_dir, rl_model_paths *l, rl_error *err);

#endif
