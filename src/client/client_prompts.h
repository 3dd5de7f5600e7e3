/* SPDX-License-Identifier: MIT */
/* client_prompts.h: the streaming client's prompt sets: built-in profiles (written for this
 * tool: short-chat, long-generation, extraction, summarisation, code, and mixed = the first
 * prompt of each; fm-bench's nine profile names are accepted and mapped onto these, its texts
 * are not ours to copy), prompt files in three formats told apart by their content, and
 * prompts given on the command line (--prompt TEXT).
 *
 * The list (fm-bench's order): the file's prompts first, then each --prompt with the id
 * custom-<k>, k its 1-based place in the whole list (numbering goes on after the file's); a
 * profile only when neither is given (--profile with either is refused).
 *
 * A prompt file is read by its content, never its extension: after an optional UTF-8 byte
 * order mark, the first byte that is not white space decides:
 *   '['       one JSON document: an array of prompts;
 *   '{'       one JSON document when the whole file parses as one object holding "prompts"
 *             (an array of prompts), else JSON Lines (one object per non-blank line);
 *   otherwise plain text.
 * A JSON item is a string (id file-<i>, i its 1-based place in the array) or an object: id
 * from "id", else "name" (default file-<i>; in JSON Lines line-<N>, N the line number), text
 * from "prompt", else "text" (the first key present must be a string), optional "max_tokens"
 * (a whole number 1..1000000); other keys are ignored. JSON texts are kept as written.
 * Plain text: the lines split on LF (a CR before it dropped); a line of spaces, tabs and CRs
 * alone is blank; a block is a run of non-blank lines. When the file has two or more blocks
 * and one of them has two or more lines, each block is one prompt (its lines joined with LF,
 * id para-<k>, k counting blocks); otherwise each non-blank line is one (id line-<N>, N its
 * line number). A text prompt, and a --prompt, loses its leading and trailing spaces, tabs,
 * CRs and LFs.
 * Bounds: the file at most 16 MiB and free of NUL bytes, 10000 prompts in all, 1000 --prompt,
 * a prompt at most 1 MiB, valid UTF-8 and not blank; ids at most 128 bytes, non-empty, UTF-8,
 * unique in the list. Errors are one line naming the file and line (p.jsonl:3: ...), the
 * item (p.json: item 3: ...) or the --prompt (--prompt 2: ...); RL_EINPUT.
 *
 * Ownership: an rl_client_prompts owns every string in it (format excepted: a literal); free
 * with rl_client_prompts_free. */
#ifndef RL_CLIENT_PROMPTS_H
#define RL_CLIENT_PROMPTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_CLIENT_PROMPTS_MAX 10000
#define RL_CLIENT_INLINE_MAX 1000
#define RL_CLIENT_PROMPT_BYTES_MAX ((size_t)1 << 20)
#define RL_CLIENT_PROMPT_FILE_MAX ((size_t)16 << 20)
#define RL_CLIENT_PROMPT_ID_MAX 128

typedef struct {
    size_t n, cap;
    char **ids;
    char **texts;
    size_t *lens;
    int *max_tokens;    /* 0 = not set */
    char *source;       /* "profile", "file", "inline" or "file+inline" */
    char *name;         /* the profile's name (ours), the file's path, or "--prompt" */
    char *requested;    /* the fm-bench profile name asked for (name is ours); else NULL */
    const char *format; /* a file's: "jsonl", "json", "lines", "paragraphs"; else NULL */
    size_t n_inline;    /* the --prompt prompts, the last n_inline of the list */
} rl_client_prompts;

/* Where the prompts come from: the options of `client`. */
typedef struct {
    const char *file;         /* --prompts FILE, or NULL */
    const char *const *texts; /* --prompt TEXT, in the order given */
    size_t n_texts;           /* at most RL_CLIENT_INLINE_MAX */
    const char *profile;      /* --profile NAME, or NULL: short-chat when nothing is given */
} rl_client_prompt_spec;

/* The names of the built-in profiles, NULL-terminated. */
extern const char *const rl_client_profile_names[];
/* fm-bench's profile names and the built-in profile each maps onto (first: only that many of
 * its prompts, 0 = all); terminated by a NULL name. */
typedef struct {
    const char *name, *profile;
    size_t first;
} rl_client_profile_alias;
extern const rl_client_profile_alias rl_client_fm_bench_profiles[];

/* The prompt list of s (see above). */
rl_status rl_client_prompts_load(const rl_client_prompt_spec *s, rl_client_prompts *p,
                                 rl_error *err);
/* Load a built-in profile, or an fm-bench name mapped onto one (quick: the first short-chat
 * prompt alone); RL_EINPUT naming both sets of names for an unknown one. */
rl_status rl_client_prompts_profile(const char *name, rl_client_prompts *p, rl_error *err);
/* Load a prompt file (see above). */
rl_status rl_client_prompts_file(const char *path, rl_client_prompts *p, rl_error *err);
/* Parse a prompt file's text (name used in messages); the same rules as the file. */
rl_status rl_client_prompts_parse(const char *name, const char *text, size_t len,
                                  rl_client_prompts *p, rl_error *err);
/* Append the --prompt texts to p (ids custom-<k>); on error p is left as it was before. */
rl_status rl_client_prompts_add_inline(rl_client_prompts *p, const char *const *texts, size_t n,
                                       rl_error *err);
/* Append one prompt (copies id and text[0..len)); false when out of memory. */
bool rl_client_prompts_add(rl_client_prompts *p, const char *id, const char *text, size_t len,
                           int max_tokens);
/* True when some prompt of p has the id. */
bool rl_client_prompts_has_id(const rl_client_prompts *p, const char *id);
void rl_client_prompts_free(rl_client_prompts *p);

/* The bundle's "prompts" array: [{"id", "kind": "controlled", "chars", "text", "max_tokens"?}];
 * "chars" counts UTF-8 characters. NULL when out of memory. */
cJSON *rl_client_prompts_json(const rl_client_prompts *p);
/* Add the set's description to o (the bundle's settings.prompts): "source", "name", "n",
 * "requested" (an fm-bench name), "format" (a file's), "inline" (the --prompt count) when they
 * apply. False when out of memory. */
bool rl_client_prompts_settings(cJSON *o, const rl_client_prompts *p);

#endif
