/* SPDX-License-Identifier: MIT */
/* cmd_inspect.c: `llama-roofline inspect [--json] [--tensors] FILE|DIR...`: what a GGUF model
 * really holds, from its header alone. This file only reads the options, lists the models
 * (model_paths.h), loads each (gguf_model.h) and prints it (gguf_text.h, or gguf_json.h with
 * --json). Each model is reported on its own: one that cannot be read is reported on stderr
 * and the others still are. Everything allocated here is freed before run() returns. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd/cmd.h"
#include "model/gguf_json.h"
#include "model/gguf_model.h"
#include "model/gguf_remote.h"
#include "model/gguf_text.h"
#include "model/model_paths.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_url.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline inspect [--json] [--tensors] FILE|DIR|URL...\n"
    "\n"
    "Read the header of GGUF model files (never the weights) and report what they\n"
    "hold: the label against what the repeating layers really store, the shape, the\n"
    "KV-cache bytes per token, the bytes read per generated token, the output head\n"
    "and the tensor types.\n"
    "\n"
    "options:\n"
    "  --json      print one JSON array, an object per model, instead of text\n"
    "  --tensors   also list every tensor: name, type, dimensions, size\n"
    "  -h, --help  show this text\n"
    "Options and files may come in any order; after -- every word is a file.\n"
    "\n"
    "A multi-part model (name-00001-of-00003.gguf) is read as a whole: give any part.\n"
    "A directory stands for the *.gguf files in it, sorted, the first part only of a\n"
    "split model. A model named twice is reported once. MB means 10^6 bytes and MiB\n"
    "2^20 bytes. A URL (http:// or https://) is read with range requests, only the\n"
    "header's bytes (a line on stderr says how many); fetched headers are cached,\n"
    "revalidated by ETag, in ~/.cache/llama-roofline/headers (docs/CLI.md).\n"
    "\n"
    "example:\n"
    "  llama-roofline inspect models/qwen2.5-0.5b-instruct-q4_k_m.gguf\n"
    "  llama-roofline inspect --json --tensors models/\n"
    "  llama-roofline inspect \\\n"
    "      https://huggingface.co/ORG/REPO/resolve/main/model-Q4_K_M.gguf\n"
    "\n"
    "exit codes: 0 every model read; 2 a file is missing, unreadable or not a valid\n"
    "GGUF (the others are still reported and, with --json, still in the array), no\n"
    "file was given or a directory held none, or a bad option; 4 the report could not\n"
    "be written; 5 out of memory (wins over 2); 130 interrupted (what was reported is\n"
    "kept).\n";

enum { OPT_JSON = 256, OPT_TENSORS };

static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"tensors", no_argument, NULL, OPT_TENSORS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* Print the pending failure message, if any, and clear it. */
static void flush_pending(rl_error *pending)
{
    if (pending->msg[0])
        rl_tty_printf(stderr, "llama-roofline inspect: error: %s\n", pending->msg);
    pending->msg[0] = '\0';
}

/* A failure of one operand or model: the previous one is printed now, this one is kept for
 * main to print last (so every failure is one line on stderr, in order). */
static void note_failure(rl_error *pending, const rl_error *e)
{
    flush_pending(pending);
    *pending = *e;
}

/* The status of a run where some models failed: out of memory wins over bad input. */
static rl_status worse(rl_status worst, rl_status s)
{
    return worst == RL_EINTERNAL || s == RL_EINTERNAL ? RL_EINTERNAL : RL_EINPUT;
}

static rl_status nothing_to_inspect(int argc, char **argv, int first, rl_error *err)
{
    if (first >= argc)
        return rl_fail(err, RL_EINPUT,
                       "nothing to inspect: give one or more GGUF files or directories (see "
                       "llama-roofline inspect --help)");
    char given[512] = "", shown[1024];
    size_t o = 0;
    for (int i = first; i < argc && o < sizeof given; i++) {
        int w = snprintf(given + o, sizeof given - o, "%s%s", o ? ", " : "", argv[i]);
        o = w > 0 ? o + (size_t)w : o;
    }
    return rl_fail(err, RL_EINPUT,
                   "nothing to inspect: %s matched no .gguf files (give a model file or a "
                   "directory that holds some)",
                   rl_url_shown(given, shown, sizeof shown));
}

/* Load and report one model; the report goes to stdout, or into arr with --json. */
static rl_status one_model(const char *path, bool tensors, cJSON *arr, rl_error *e)
{
    rl_gguf_model m;
    rl_status s = rl_gguf_model_open(path, stderr, &m, e);
    if (s == RL_OK && arr) {
        cJSON *o = rl_gguf_model_to_json(&m, tensors);
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            s = rl_fail(e, RL_EINTERNAL, "%s: out of memory", path);
        }
    } else if (s == RL_OK) {
        rl_gguf_print_report(stdout, &m, tensors);
        fflush(stdout);
    }
    rl_gguf_model_free(&m);
    return s;
}

typedef struct {
    bool json, tensors;
} inspect_args;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    (void)arg;
    inspect_args *a = ctx;
    switch (c) {
    case OPT_JSON: a->json = true; return RL_OK;
    case OPT_TENSORS: a->tensors = true; return RL_OK;
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    inspect_args a = {false, false};
    bool help = false;
    rl_status st = rl_opt_each(argc, argv, "h", longopts, on_opt, &a, &help, err);
    if (st == RL_OK && help)
        rl_tty_puts(stdout, usage);
    if (st != RL_OK || help)
        return st;
    bool json = a.json, tensors = a.tensors;

    rl_model_paths paths = {0};
    rl_error pending = {RL_OK, ""};
    rl_status worst = RL_OK;
    for (int i = optind; i < argc; i++) {
        rl_error e = {RL_OK, ""};
        rl_status s = rl_model_paths_add(&paths, argv[i], &e);
        if (s == RL_EINTERNAL) {
            rl_model_paths_free(&paths);
            *err = e;
            return s;
        }
        if (s != RL_OK) {
            note_failure(&pending, &e);
            worst = RL_EINPUT;
        }
    }
    if (paths.n == 0) {
        rl_model_paths_free(&paths);
        if (worst != RL_OK) {
            *err = pending;
            return worst;
        }
        return nothing_to_inspect(argc, argv, optind, err);
    }

    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    if (json && !arr) {
        rl_model_paths_free(&paths);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    bool interrupted = false;
    for (size_t i = 0; i < paths.n && !interrupted; i++) {
        rl_error e = {RL_OK, ""};
        rl_status s =
            rl_interrupted ? RL_EINTERRUPTED : one_model(paths.paths[i], tensors, arr, &e);
        if (s == RL_EINTERRUPTED)
            interrupted = true;
        else if (s != RL_OK) {
            note_failure(&pending, &e);
            worst = worse(worst, s);
        }
    }
    rl_model_paths_free(&paths);

    if (json) {
        rl_error e = {RL_OK, ""};
        if (rl_json_to_stdout(arr, &e) != RL_OK) {
            worst = worse(worst, e.status);
            note_failure(&pending, &e);
        }
        cJSON_Delete(arr);
    }
    fflush(stdout); /* the reports before the failures; a failed write: main.c's one check */
    if (interrupted) {
        flush_pending(&pending);
        return rl_fail(err, RL_EINTERRUPTED, "interrupted");
    }
    if (worst != RL_OK) {
        *err = pending;
        err->status = worst;
    }
    return worst;
}

const rl_command rl_cmd_inspect = {
    "inspect",
    "what a GGUF model holds: label vs content, shapes, bytes per token",
    usage,
    run,
};
