/* SPDX-License-Identifier: MIT */
/* model_paths.h: which model files a command should read, from what the user named.
 *
 * A list of paths built operand by operand: a directory stands for the *.gguf regular files in
 * it (sorted by name; of a split model "<prefix>-NNNNN-of-MMMMM.gguf" only part 00001, which
 * loads every part); anything else is kept as given, so the reader reports what is wrong with
 * it (missing, a FIFO, not GGUF); a URL (http://, https://) is kept as given and never
 * looked up on disk (gguf_remote.h reads it). Each model is listed once, in the order first met:
 * two names for the same file (a symlink, "./a.gguf" and "a.gguf", a directory and a file in it) or
 * for parts of the same split model collapse into the first one.
 *
 * A list may be capped (max): once it holds max models nothing more is added and a directory
 * walk stops there. The search of default directories (model_find.h) is a loop of add_dir
 * calls with a depth and a cap.
 *
 * Ownership: the list owns its strings; free it with rl_model_paths_free (safe on a zeroed or
 * already freed list). A zero-initialised rl_model_paths is an empty list. */
#ifndef RL_MODEL_PATHS_H
#define RL_MODEL_PATHS_H

#include <stddef.h>

#include "base/rl_error.h"

typedef struct {
    char **paths; /* n paths, in order */
    size_t n;
    size_t max; /* 0: no limit; else at most max paths (the rest are not added, no error) */
    /* private: one identity per path for de-duplication */
    char **keys;
    size_t cap;
} rl_model_paths;

/* One operand: a directory adds its models (rl_model_paths_add_dir, depth 0); any other path
 * is added as given. RL_EINPUT (list unchanged) for a directory that cannot be read,
 * RL_EINTERNAL when out of memory. */
rl_status rl_model_paths_add(rl_model_paths *l, const char *operand, rl_error *err);
/* The models in dir and, when depth > 0, in its subdirectories down to depth levels below it
 * (hidden entries are skipped; entries are visited in name order, a subdirectory where its
 * name sorts). *added (may be NULL) counts the paths this call added. RL_EINPUT when dir
 * itself cannot be opened; unreadable subdirectories are skipped. */
rl_status rl_model_paths_add_dir(rl_model_paths *l, const char *dir, unsigned depth, size_t *added,
                                 rl_error *err);
/* A path as given, unless the model it names is listed already. */
rl_status rl_model_paths_add_file(rl_model_paths *l, const char *path, rl_error *err);
void rl_model_paths_free(rl_model_paths *l);

#endif
