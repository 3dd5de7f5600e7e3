/* SPDX-License-Identifier: MIT */
/* client_fm.h: capabilities of Apple's `fm` command line read from its help text (seed 001,
 * fm-bench's detection): the COMMANDS section of `fm --help` and the flags `fm respond --help`
 * documents. Used by `client --cmd 'fm respond ...'` (or --fm-help-cmd BIN) to record what the
 * build can report and to find its token counter (count-tokens, else token-count).
 *
 * Parsing (ANSI CSI sequences removed first): a section header is a line of capitals, digits,
 * spaces, '/' and '-' only; the COMMANDS section starts at a line that is exactly COMMANDS and
 * ends at the next header; a command line is two or more spaces, a name [a-z][a-z0-9-]*, two
 * or more spaces and a description. A flag is documented when the text holds it followed by a
 * non-word character (or the end); --no-X also when the text holds "[no-]X".
 *
 * Ownership: plain structs, no allocation except rl_client_fm_json's tree (caller frees). */
#ifndef RL_CLIENT_FM_H
#define RL_CLIENT_FM_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_CLIENT_FM_MAX_COMMANDS 32

typedef struct {
    bool ok; /* at least one command was read */
    char commands[RL_CLIENT_FM_MAX_COMMANDS][32];
    size_t n_commands;
    const char *token_count_command; /* "count-tokens", "token-count" or NULL (static) */
    const char *model_list_command;  /* "models", "available" or NULL (static) */
    bool streaming, model_selection, instructions, greedy, server, quota;
    char error[256]; /* why the probe failed, when it did */
} rl_client_fm_caps;

/* Parse the two help texts (respond_help may be NULL). */
void rl_client_fm_parse(const char *help, const char *respond_help, rl_client_fm_caps *c);
/* Does help text document flag ("--stream", "--no-stream", ...)? */
bool rl_client_fm_documents(const char *help, const char *flag);
/* When the first word of a shell command line is a program named fm (a path ending in /fm
 * too), copy that word into bin and return true. */
bool rl_client_fm_detect(const char *command, char *bin, size_t cap);
/* Run `BIN --help` and `BIN respond --help` (each bounded by timeout s) and parse them. A probe
 * that cannot run leaves ok false with the reason in error (RL_OK); RL_EINTERRUPTED on Ctrl-C. */
rl_status rl_client_fm_probe(const char *bin, double timeout, rl_client_fm_caps *c, rl_error *err);
/* One model of `fm models` (27.2+) or `fm available` (27.0), as fm-bench reads it: each line,
 * after ANSI sequences are dropped and lines starting "warning:" skipped, that is a mark
 * (available: U+2713 or U+2714; unavailable: U+2717, U+2718 or U+00D7), spaces, a name
 * [A-Za-z0-9][A-Za-z0-9._:/-]*, and optionally "(text)": the identity of an available model,
 * the reason of an unavailable one (kept whole). */
#define RL_CLIENT_FM_MAX_MODELS 64
typedef struct {
    char name[64];
    bool available;
    char note[256]; /* identity or reason, "" when none was given */
} rl_client_fm_model;
/* Parse a listing; returns how many models were read (at most cap). */
size_t rl_client_fm_parse_models(const char *text, rl_client_fm_model *out, size_t cap);
/* Run `BIN LIST_COMMAND` (bounded by timeout s) and parse it: RL_OK with *n models, or *n 0 and
 * why filled when it could not run or listed nothing; RL_EINTERRUPTED on Ctrl-C. */
rl_status rl_client_fm_models(const char *bin, const char *list_command, double timeout,
                              rl_client_fm_model *out, size_t cap, size_t *n, char *why,
                              size_t why_cap, rl_error *err);

/* {"source": "help text", "program": bin, "ok", "commands": [...], "features": {...},
 * "warnings": [...]}; NULL when out of memory. */
cJSON *rl_client_fm_json(const rl_client_fm_caps *c, const char *bin);

#endif
