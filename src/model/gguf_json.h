/* SPDX-License-Identifier: MIT */
/* gguf_json.h: a model's facts as one JSON object, the element of `inspect --json`'s array
 * (docs/CLI.md). Sizes that cannot be known (a tensor type this build does not know) are
 * null, never guessed; integers above 2^53 (tensor offsets of huge files) are exact; a path
 * that is not UTF-8 is repaired with U+FFFD (rl_json.h).
 *
 * Ownership: the returned tree is the caller's (cJSON_Delete); the model is only read. */
#ifndef RL_GGUF_JSON_H
#define RL_GGUF_JSON_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "model/gguf_model.h"

/* The object for m; with tensors also "tensors", every tensor of every shard (from m->files).
 * NULL when out of memory. */
cJSON *rl_gguf_model_to_json(const rl_gguf_model *m, bool tensors);

#endif
