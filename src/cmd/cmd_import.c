/* SPDX-License-Identifier: MIT */
/* cmd_import.c: `llama-roofline import FILE -o BUNDLE`: options, one call to the importer
 * (import.h), the atomic write of the bundle and the summary. Everything allocated here is
 * freed before run() returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/analysis_bundle.h"
#include "bundle/bundle.h"
#include "cmd/cmd.h"
#include "bundle/import.h"
#include "render/report.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline import FILE -o BUNDLE [--name NAME]\n"
    "\n"
    "Turn results measured elsewhere into a llama-roofline bundle and analyse them: a\n"
    "roofline.json of the published llama-roofline (schema_version 1),\n"
    "llama-bench's own output (-o json, jsonl, csv or sql, or an SQLite database of\n"
    "-o sql; any number of models, thread counts and depths), or an fm-bench JSON\n"
    "report (schemaVersion 1, fm-bench 0.7 and 0.8: a client bundle, one operating\n"
    "point per model and concurrency, its conventions stated). The kind is told by\n"
    "the content, not by the file name; SQL runs only its CREATE TABLE llama_bench\n"
    "and INSERT INTO llama_bench statements, anything else is refused. What the input\n"
    "does not hold is marked unavailable, never made up: a roofline.json keeps only\n"
    "each run's mean rate and standard deviation, so its rates have no samples;\n"
    "llama-bench's csv and sql keep only each test's mean (one sample); llama-bench\n"
    "output has no memory ceiling, so utilisation and the verdict are unavailable;\n"
    "an fm-bench report has no delivery count and no machine state.\n"
    "\n"
    "options:\n"
    "  -o, --output BUNDLE   where the bundle goes (required; written atomically)\n"
    "  --name NAME           a label for these results, kept as source.name\n"
    "  -h, --help            show this text\n"
    "\n"
    "example:\n"
    "  llama-roofline import roofline.json -o pi5/bundle.json --name 'Raspberry Pi 5'\n"
    "  llama-bench -m a.gguf -m b.gguf -t 1,4 -o jsonl >runs.jsonl\n"
    "  llama-roofline import runs.jsonl -o bundle.json\n"
    "  llama-bench -m a.gguf -o sql | sqlite3 runs.db\n"
    "  llama-roofline import runs.db -o bundle.json\n"
    "  llama-roofline import fm-bench_2026.json -o fm.json\n"
    "\n"
    "exit codes: 0 imported; 2 bad input (none of these kinds, truncated, a value of\n"
    "the wrong type or out of range, SQL that is refused, too large; the message\n"
    "names the file and the key, or the line, row and column), a bad option; 4 the\n"
    "bundle cannot be written; 5 out of memory.\n";

enum { OPT_NAME = 256 };

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"name", required_argument, NULL, OPT_NAME},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* What the options fill: the import's options and the bundle's path. */
typedef struct {
    rl_import_opts *o;
    const char **output;
} import_args;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    import_args *a = ctx;
    switch (c) {
    case 'o': *a->output = arg; return rl_check_output_kind("import", arg, RL_OUT_FILE, err);
    case OPT_NAME: a->o->name = arg; break;
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return RL_OK;
}

/* The options; *input stays NULL after -h (the usage is printed). */
static rl_status parse(int argc, char **argv, rl_import_opts *o, const char **input,
                       const char **output, rl_error *err)
{
    import_args a = {o, output};
    bool help = false;
    rl_status st = rl_opt_each(argc, argv, "o:h", longopts, on_opt, &a, &help, err);
    if (st == RL_OK && help)
        rl_tty_puts(stdout, usage);
    if (st != RL_OK || help)
        return st;
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT, "no input: give the file to import (see import --help)");
    if (optind + 1 < argc) {
        char safe[256];
        return rl_fail(err, RL_EINPUT, "one input file at a time: '%s' is a second one",
                       rl_tty_escape(argv[optind + 1], safe, sizeof safe));
    }
    if (!*output || !**output)
        return rl_fail(err, RL_EINPUT, "-o BUNDLE is required: where to write the bundle");
    *input = argv[optind];
    return rl_check_outputs(&(rl_path_arg){"input", *input}, 1, &(rl_path_arg){"-o", *output}, 1,
                            err);
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    const char *output = NULL, *input = NULL;
    rl_import_opts o = {NULL, 0, NULL};
    o.argv = rl_opt_typed(&o.argc); /* the command line as typed */
    rl_status st = parse(argc, argv, &o, &input, &output, err);
    if (st == RL_OK && input) {
        cJSON *b = NULL;
        st = rl_import_file(input, &o, &b, err);
        if (st == RL_OK)
            st = rl_bundle_analyze_import(b, input, err);
        if (st == RL_OK)
            st = rl_bundle_write(b, output, err);
        if (st == RL_OK)
            rl_report_print_summary(stdout, b, output);
        cJSON_Delete(b);
    }
    return st;
}

const rl_command rl_cmd_import = {
    "import", "turn a roofline.json, llama-bench or fm-bench output into a bundle", usage, run};
