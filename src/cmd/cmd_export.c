/* SPDX-License-Identifier: MIT */
/* cmd_export.c: `llama-roofline export BUNDLE... -f jsonl|csv|sqlite [-o FILE]`: the bundles'
 * verbatim llama-bench records in llama-bench's own formats (export.h), for llama.cpp's
 * scripts/compare-llama-bench.py and anything else that reads llama-bench output. Everything
 * allocated here is freed before run() returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "bundle/export.h"
#include "cmd/cmd.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline export BUNDLE|REPORT.html... -f FORMAT [-o FILE]\n"
    "\n"
    "Write the llama-bench records the bundles keep verbatim (every run of every\n"
    "model) in one of llama-bench's own output formats, so llama.cpp's tools read\n"
    "them: scripts/compare-llama-bench.py -i FILE compares two builds.\n"
    "\n"
    "options:\n"
    "  -f, --format FORMAT  jsonl (llama-bench -o jsonl), csv (-o csv) or sqlite (a\n"
    "                       database with llama-bench's llama_bench table, as -o sql\n"
    "                       piped into sqlite3 makes)\n"
    "  -o, --output FILE    the file to write (default '-': stdout, for jsonl and\n"
    "                       csv; sqlite needs a file); never an input\n"
    "  -h, --help           show this text\n"
    "\n"
    "example:\n"
    "  llama-roofline export old/bundle.json new/bundle.json -f sqlite -o runs.db\n"
    "  python3 scripts/compare-llama-bench.py -i runs.db -b OLD_COMMIT -c NEW_COMMIT\n"
    "\n"
    "exit codes: 0 written; 2 bad input (an option, an unreadable bundle, a bundle\n"
    "with no llama-bench records, sqlite to stdout); 4 the output cannot be written;\n"
    "5 out of memory.\n";

#define MAX_INPUTS 1024
#define MAX_RECORDS 1000000

static const struct option longopts[] = {
    {"format", required_argument, NULL, 'f'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *format, *out;
} export_args;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    export_args *a = ctx;
    switch (c) {
    case 'f': a->format = arg; return RL_OK;
    case 'o': a->out = arg; return rl_check_output_kind("export", arg, RL_OUT_FILE, err);
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
}

/* The options and the operands checked: a format, inputs, an output that is none of them. */
static rl_status parse(int argc, char **argv, export_args *a, rl_export_fmt *fmt, bool *help,
                       rl_error *err)
{
    rl_status st = rl_opt_each(argc, argv, "f:o:h", longopts, on_opt, a, help, err);
    if (st != RL_OK || *help)
        return st;
    if (!a->format)
        return rl_fail(err, RL_EINPUT, "-f FORMAT is required: jsonl, csv or sqlite");
    if (!rl_export_fmt_parse(a->format, fmt))
        return rl_fail(err, RL_EINPUT, "-f %s: give jsonl, csv or sqlite", a->format);
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT, "no input: give one or more bundles (see export --help)");
    if (argc - optind > MAX_INPUTS)
        return rl_fail(err, RL_EINPUT, "at most %d inputs", MAX_INPUTS);
    if (!*a->out)
        return rl_fail(err, RL_EINPUT, "-o needs a file");
    if (*fmt == RL_EXPORT_SQLITE && strcmp(a->out, "-") == 0)
        return rl_fail(err, RL_EINPUT, "-f sqlite writes a database file: give -o FILE");
    for (int i = optind; st == RL_OK && i < argc; i++)
        st = rl_check_outputs(&(rl_path_arg){"input", argv[i]}, 1, &(rl_path_arg){"-o", a->out}, 1,
                              err);
    if (st == RL_OK && strcmp(a->out, "-") != 0)
        st = rl_check_writable(a->out, err);
    return st;
}

/* The records of the loaded bundles written as fmt. */
static rl_status write_out(const cJSON *const *bundles, const char *const *names, size_t n,
                           rl_export_fmt fmt, const char *out, rl_error *err)
{
    const cJSON **recs = rl_calloc(MAX_RECORDS, sizeof *recs);
    if (!recs)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t n_recs = 0;
    rl_status st = rl_export_collect(bundles, names, n, recs, MAX_RECORDS, &n_recs, err);
    rl_sbuf text = {0};
    if (st == RL_OK && fmt == RL_EXPORT_SQLITE)
        st = rl_export_sqlite(recs, n_recs, out, err);
    else if (st == RL_OK)
        st = rl_export_text(recs, n_recs, fmt, &text, err);
    if (st == RL_OK && fmt != RL_EXPORT_SQLITE)
        st = rl_write_output(out, text.p, text.len,
                             fmt == RL_EXPORT_JSONL ? RL_TTY_JSON : RL_TTY_TEXT, err);
    if (st == RL_OK && strcmp(out, "-") != 0) {
        char safe[1024];
        rl_tty_printf(stderr, "wrote %zu llama-bench records to %s\n", n_recs,
                      rl_tty_escape(out, safe, sizeof safe));
    }
    free(text.p);
    free(recs);
    return st;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    export_args a = {NULL, "-"};
    rl_export_fmt fmt = RL_EXPORT_JSONL;
    bool help = false;
    rl_status st = parse(argc, argv, &a, &fmt, &help, err);
    if (st != RL_OK || help) {
        if (help)
            rl_tty_puts(stdout, usage);
        return st;
    }
    size_t n = (size_t)(argc - optind);
    cJSON **bundles = rl_calloc(n, sizeof *bundles);
    if (!bundles)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t i = 0; st == RL_OK && i < n; i++)
        st = rl_bundle_load(argv[optind + (int)i], &bundles[i], err);
    if (st == RL_OK)
        st = write_out((const cJSON *const *)bundles, (const char *const *)(argv + optind), n, fmt,
                       a.out, err);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(bundles[i]);
    free(bundles);
    return st;
}

const rl_command rl_cmd_export = {"export", "llama-bench records as its own JSONL, CSV or SQLite",
                                  usage, run};
