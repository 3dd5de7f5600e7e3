/* SPDX-License-Identifier: MIT */
/* client_prompts.h: the streaming client's prompt sets: built-in profiles (written for this
 * tool: short-chat, long-generation, extraction, summarisation, code, and mixed = the first
 * prompt of each) and prompt files in JSON Lines.
 *
 * A prompt file has one JSON object per line: {"id": "name", "prompt": "text", "max_tokens": N}
 * where id (a non-empty string, unique in the file, at most 128 bytes; default "line-N") and
 * max_tokens (a whole number 1..1000000) are optional; blank lines are skipped. Bounds: the file
 * at most 16 MiB, 10000 prompts, a prompt at most 1 MiB and not blank. Errors are one line
 * naming the file and line number (RL_EINPUT).
 *
 * Ownership: an rl_client_prompts owns every string in it; free with rl_client_prompts_free. */
#ifndef RL_CLIENT_PROMPTS_H
#define RL_CLIENT_PROMPTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_CLIENT_PROMPTS_MAX 10000
#define RL_CLIENT_PROMPT_BYTES_MAX ((size_t)1 << 20)
#define RL_CLIENT_PROMPT_FILE_MAX ((size_t)16 << 20)

typedef struct {
    size_t n;
    char **ids;
    char **texts;
    size_t *lens;
    int *max_tokens; /* 0 = not set */
    char *source;    /* "profile" or "file" */
    char *name;      /* the profile name or the file path */
} rl_client_prompts;

/* The names of the built-in profiles, NULL-terminated. */
extern const char *const rl_client_profile_names[];

/* Load a built-in profile; RL_EINPUT naming the known profiles for an unknown name. */
rl_status rl_client_prompts_profile(const char *name, rl_client_prompts *p, rl_error *err);
/* Load a JSON Lines prompt file (see above). */
rl_status rl_client_prompts_file(const char *path, rl_client_prompts *p, rl_error *err);
/* Parse JSONL text (name used in messages); the same rules as the file. */
rl_status rl_client_prompts_parse(const char *name, const char *text, size_t len,
                                  rl_client_prompts *p, rl_error *err);
void rl_client_prompts_free(rl_client_prompts *p);

/* The bundle's "prompts" array: [{"id", "kind": "controlled", "chars", "text", "max_tokens"?}];
 * "chars" counts UTF-8 characters. NULL when out of memory. */
cJSON *rl_client_prompts_json(const rl_client_prompts *p);

#endif
