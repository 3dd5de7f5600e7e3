/* SPDX-License-Identifier: MIT */
/* cmd_legend.c: `llama-roofline legend [--json|--markdown]`: the metric legend (legend.h) as an
 * aligned text table, a JSON array of objects or a Markdown table (the one docs/BUNDLE.md
 * holds). The JSON tree and its text are freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "bundle/legend.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"

static const char usage[] =
    "usage: llama-roofline legend [--json | --markdown]\n"
    "\n"
    "Every metric a bundle can hold: its JSON path pattern (\"[]\" is every element of\n"
    "an array), name, unit, kind (measured, proxy, derived, controlled), whether\n"
    "every bundle has the key (always: present, though it may be {\"available\": false,\n"
    "\"reason\"}; optional: absent from some, e.g. imported data without samples,\n"
    "--peak-bw, no depth above 0) and a one-line definition. docs/BUNDLE.md's Metrics\n"
    "section is the --markdown output.\n"
    "\n"
    "options:\n"
    "  --json       a JSON array of {path, name, unit, kind, optional, definition}\n"
    "  --markdown   a Markdown table\n"
    "  -h, --help   show this text\n"
    "\n"
    "example:\n"
    "  llama-roofline legend --json\n"
    "\n"
    "exit codes: 0 printed; 2 a bad option or an operand; 5 out of memory.\n";

enum { OPT_JSON = 256, OPT_MARKDOWN };

static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char *presence(const rl_legend_row *r)
{
    return r->optional ? "optional" : "always";
}

static void print_text(void)
{
    int wp = (int)strlen("PATH"), wu = (int)strlen("UNIT"), wk = (int)strlen("KIND");
    int wo = (int)strlen("optional");
    for (size_t i = 0; i < rl_legend_count(); i++) {
        const rl_legend_row *r = rl_legend_at(i);
        int lp = (int)strlen(r->path), lu = (int)strlen(r->unit), lk = (int)strlen(r->kind);
        wp = lp > wp ? lp : wp;
        wu = lu > wu ? lu : wu;
        wk = lk > wk ? lk : wk;
    }
    rl_tty_printf(stdout, "%-*s  %-*s  %-*s  %-*s  %s\n", wp, "PATH", wu, "UNIT", wk, "KIND", wo,
                  "PRESENT", "DEFINITION");
    for (size_t i = 0; i < rl_legend_count(); i++) {
        const rl_legend_row *r = rl_legend_at(i);
        rl_tty_printf(stdout, "%-*s  %-*s  %-*s  %-*s  %s: %s\n", wp, r->path, wu, r->unit, wk,
                      r->kind, wo, presence(r), r->name, r->definition);
    }
}

static void print_markdown(void)
{
    rl_tty_printf(stdout, "| path | name | unit | kind | present | definition |\n"
                          "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < rl_legend_count(); i++) {
        const rl_legend_row *r = rl_legend_at(i);
        rl_tty_printf(stdout, "| `%s` | %s | %s | %s | %s | %s |\n", r->path, r->name, r->unit,
                      r->kind, presence(r), r->definition);
    }
}

static rl_status print_json(rl_error *err)
{
    cJSON *arr = cJSON_CreateArray();
    bool ok = arr != NULL;
    for (size_t i = 0; ok && i < rl_legend_count(); i++) {
        const rl_legend_row *r = rl_legend_at(i);
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            ok = false;
            break;
        }
        ok = rl_json_add_str(o, "path", r->path) && rl_json_add_str(o, "name", r->name) &&
             rl_json_add_str(o, "unit", r->unit) && rl_json_add_str(o, "kind", r->kind) &&
             cJSON_AddBoolToObject(o, "optional", r->optional) &&
             rl_json_add_str(o, "definition", r->definition);
    }
    rl_status st = ok ? rl_json_to_stdout(arr, err) : rl_fail(err, RL_EINTERNAL, "out of memory");
    cJSON_Delete(arr);
    return st;
}

/* ctx is the format: 0 (text), OPT_JSON or OPT_MARKDOWN. */
static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    (void)arg;
    int *format = ctx;
    switch (c) {
    case OPT_JSON:
    case OPT_MARKDOWN:
        if (*format && *format != c)
            return rl_fail(err, RL_EINPUT, "--json and --markdown exclude each other");
        *format = c;
        return RL_OK;
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    int format = 0;
    bool help = false;
    rl_status st = rl_opt_each(argc, argv, "h", longopts, on_opt, &format, &help, err);
    if (st == RL_OK && help)
        rl_tty_puts(stdout, usage);
    if (st != RL_OK || help)
        return st;
    if (optind < argc)
        return rl_fail(err, RL_EINPUT, "legend takes no operands (see legend --help)");
    if (format == OPT_JSON)
        st = print_json(err);
    else if (format == OPT_MARKDOWN)
        print_markdown();
    else
        print_text();
    fflush(stdout);
    return st;
}

const rl_command rl_cmd_legend = {
    "legend", "every metric a bundle can hold: path, unit, kind, definition", usage, run};
