/* SPDX-License-Identifier: MIT */
/* model_spec.h: a model's GGUF header from the way a user names it: "synth:PRESET:TYPE" (a
 * synth preset at a synth weight type, whose header is planned in memory, nothing written:
 * synth.h), a URL (gguf_remote.h) or a local path (gguf_model.h). predict and diagnose
 * --predict read models through it.
 *
 * Ownership: the filled rl_gguf_model is the caller's (rl_gguf_model_free; zeroed on a failure
 * before anything was read, so freeing it is always safe). */
#ifndef RL_MODEL_SPEC_H
#define RL_MODEL_SPEC_H

#include <stdio.h>

#include "base/rl_error.h"
#include "model/gguf_model.h"

/* A model's header: "synth:PRESET:TYPE", a URL, or a local path (log: see
 * rl_gguf_model_open). */
rl_status rl_model_spec_load(const char *spec, FILE *log, rl_gguf_model *m, rl_error *err);
/* The header of synth PRESET at TYPE, planned in memory (no file written). */
rl_status rl_model_spec_synth(const char *preset, const char *type, rl_gguf_model *m,
                              rl_error *err);

#endif
