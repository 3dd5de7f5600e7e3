/* SPDX-License-Identifier: MIT */
/* model_find.h: models nobody named. `diagnose` without operands searches the usual places for
 * GGUF files and picks a few that span the size range, so one fit covers small to large.
 *
 * Roots, in this order: each directory of $LLAMA_MODELS (split on ':', empty entries skipped,
 * a leading "~/" expanded), ./models, ~/models, ~/.cache/llama.cpp, ~/.cache/lm-studio/models,
 * ~/.lmstudio/models, /usr/share/llama.cpp/models. Each root that is a directory is searched
 * down to RL_MODEL_FIND_DEPTH directory levels below it (root/a/b/x.gguf is found,
 * root/a/b/c/x.gguf is not), dot-directories and dot-files skipped, only part 00001 of a split
 * model (model_paths.h), each model once (a root met twice is searched once), and the search
 * stops when RL_MODEL_FIND_MAX models are found. Every root contributes until then.
 *
 * Spread selection: sorted by bytes on disk (all parts of a split model; ties by path), the
 * models at positions round(i * (n - 1) / (k - 1)) for i = 0 .. k-1 (halves rounded to even,
 * as the published tool does), each once, smallest first. Sizes 100, 200, 300, 4000, 50000
 * give 100, 300, 50000.
 *
 * Ownership: rl_model_roots owns its strings (rl_model_roots_free, safe on a zeroed or freed
 * value); rl_model_find fills the caller's rl_model_paths; strings returned are malloc'd and
 * owned by the caller. */
#ifndef RL_MODEL_FIND_H
#define RL_MODEL_FIND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model_paths.h"
#include "base/rl_error.h"

#define RL_MODEL_FIND_DEPTH 2 /* directory levels searched below each root */
#define RL_MODEL_FIND_MAX 200 /* the search stops at this many models */
#define RL_MODEL_PICK 3       /* models diagnose measures out of those found */

typedef struct {
    char **dirs;
    size_t n;
} rl_model_roots;

/* The default roots for $LLAMA_MODELS = llama_models and $HOME = home, either NULL or empty
 * when unset (the roots built on it are then left out). RL_EINTERNAL when out of memory. */
rl_status rl_model_roots_default(const char *llama_models, const char *home, rl_model_roots *out,
                                 rl_error *err);
void rl_model_roots_free(rl_model_roots *r);
/* "dir1, dir2, ..." for messages (caller frees; NULL when out of memory). */
char *rl_model_roots_text(const rl_model_roots *r);

/* Search roots (a root that is not a directory is skipped) down to depth levels below each,
 * adding at most max models to out (0: no limit; out->max is set to it). RL_EINTERNAL when out
 * of memory; unreadable directories are skipped. */
rl_status rl_model_find(const rl_model_roots *roots, unsigned depth, size_t max,
                        rl_model_paths *out, rl_error *err);

/* Bytes on disk of the model path names: its size, or for a part of a split model the sum of
 * all its parts; 0 when it (or a part) cannot be stat'ed. */
uint64_t rl_model_total_bytes(const char *path);

/* Spread selection of up to k (>= 1) of n models with the given bytes (paths break ties):
 * writes the chosen indices to out (room for k), smallest first; returns how many (n when
 * n <= k). k == 1 takes the middle one. */
size_t rl_model_spread(const uint64_t *bytes, const char *const *paths, size_t n, size_t k,
                       size_t *out);

/* Spread selection over found, among the models that load (rl_gguf_model_load): a pick that
 * does not is named in one line on note (may be NULL) and the selection is made again
 * without it. Writes up to k indices into found->paths to out, smallest first, and their
 * count to *n_out (0 when none loads). RL_EINTERNAL when out of memory; RL_EINTERRUPTED. */
rl_status rl_model_pick(const rl_model_paths *found, size_t k, FILE *note, size_t *out,
                        size_t *n_out, rl_error *err);

/* The whole search of diagnose: the default roots for $LLAMA_MODELS = llama_models and $HOME =
 * home, the search (RL_MODEL_FIND_DEPTH, RL_MODEL_FIND_MAX) and the pick of RL_MODEL_PICK
 * (notes on note). Adds the picks to picked, smallest first; *n_found is how many models
 * were found; *where (may be NULL) gets the roots as text (caller frees). */
rl_status rl_model_search(const char *llama_models, const char *home, FILE *note,
                          rl_model_paths *picked, size_t *n_found, char **where, rl_error *err);

#endif
