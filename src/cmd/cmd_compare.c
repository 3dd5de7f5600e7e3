/* SPDX-License-Identifier: MIT */
/* cmd_compare.c: `llama-roofline compare`: options, the inputs (compare.h), the terminal table
 * or Markdown (compare_text.h) on stdout, the page (html_compare.h) with -o, and the exit code
 * rules of --strict and --fail-on-regression. Everything allocated is freed before run()
 * returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "analyse/compare.h"
#include "render/compare_text.h"
#include "render/html_compare.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline compare A B [C ...] [-o compare.html] [--markdown]\n"
    "                              [--baseline N|PATH] [--strict]\n"
    "                              [--fail-on-regression PCT] [--all-columns]\n"
    "\n"
    "Compare bundles: two machines, two llama.cpp builds, before and after a change.\n"
    "Inputs are bundle.json files, reports (report.html embeds its bundle) or\n"
    "directories of them; the first is the baseline. Rows are matched on model\n"
    "identity (the tensor-type map and size from the GGUF header, not the file name)\n"
    "and settings (threads, depth, n_prompt, n_gen). Each row shows every input's\n"
    "mean with its 95% CI, the ratio and delta to the baseline, and a verdict from\n"
    "the raw samples: Welch's two-sided t-test, faster or slower when p < 0.05 and\n"
    "the change is at least 2% of the baseline mean, else within noise; fewer than 2\n"
    "samples: not tested; imported data without samples: not tested. Differences of\n"
    "environment and settings are listed as warnings.\n"
    "\n"
    "Also compared, each in its own group: a `client` bundle's operating points\n"
    "(keyed by driver, concurrency, request rate and prompt set: TTFT, E2E, TPOT and\n"
    "chunk gap, lower is better; per-request decode and output tok/s; throughput,\n"
    "requests/s and goodput as one value: not tested) and an `advise --measure`\n"
    "bundle's advice rows (threads, format, model: decode). Inputs holding different\n"
    "sections get a note, not an error.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE          also write the comparison page (self-contained\n"
    "                             HTML; '-' for stdout, then the table is not\n"
    "                             printed)\n"
    "  --markdown                 print Markdown (for issue comments) instead of the\n"
    "                             table\n"
    "  --json                     print the comparison as one JSON object (inputs,\n"
    "                             rows, verdicts, warnings) instead of the table\n"
    "  --baseline N|PATH          the baseline: input number N (from 1) or an input's\n"
    "                             path\n"
    "  --strict                   exit 1 when the suites differ (settings or models)\n"
    "  --fail-on-regression PCT   exit 1 when a row is \"slower\" by more than PCT\n"
    "                             percent (decimal, 0 to 100); a row measured\n"
    "                             disturbed (either side over the quiet limits) is\n"
    "                             counted apart and said on stderr, never failing the\n"
    "                             run: re-measure it on a quiet machine\n"
    "  --all-columns              every key column, every fact, and rows on one side\n"
    "                             only\n"
    "  -h, --help                 show this text\n"
    "\n"
    "exit codes: 0 compared; 1 --strict and the suites differ, or\n"
    "--fail-on-regression and a row not measured disturbed regressed; 2 bad input (a\n"
    "missing, truncated or foreign file, a directory without bundles, fewer than two\n"
    "inputs, a bad option, -o naming an input); 4 the page cannot be written; 5\n"
    "internal error.\n";

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"markdown", no_argument, NULL, 'M'},
    {"json", no_argument, NULL, 'J'},
    {"baseline", required_argument, NULL, 'B'},
    {"strict", no_argument, NULL, 'S'},
    {"fail-on-regression", required_argument, NULL, 'F'},
    {"all-columns", no_argument, NULL, 'A'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *html, *baseline;
    bool markdown, json, strict, all, help, fail_set;
    double fail_pct;
} opts;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    opts *o = ctx;
    switch (c) {
    case 'o': o->html = arg; return rl_check_output_kind("compare", arg, RL_OUT_FILE, err);
    case 'M': o->markdown = true; break;
    case 'J': o->json = true; break;
    case 'B': o->baseline = arg; break;
    case 'S': o->strict = true; break;
    case 'A': o->all = true; break;
    case 'F': {
        rl_status st = rl_opt_double("--fail-on-regression", arg, 0, false, 100, &o->fail_pct, err);
        if (st != RL_OK)
            return st;
        o->fail_set = true;
        break;
    }
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return RL_OK;
}

static rl_status parse(int argc, char **argv, opts *o, rl_error *err)
{
    return rl_opt_each(argc, argv, "o:h", longopts, on_opt, o, &o->help, err);
}

/* The comparison on stdout: the table, its Markdown, or (--json) its JSON object. */
static rl_status print_result(const rl_cmp *c, const opts *o, rl_error *err)
{
    char *text = NULL;
    if (o->json) {
        cJSON *j = rl_cmp_to_json(c, RL_CMP_JSON_SUMMARY);
        text = j ? rl_json_print(j) : NULL;
        cJSON_Delete(j);
    } else {
        text = rl_cmp_text(c, o->markdown, o->all);
    }
    rl_status st =
        text ? rl_write_output("-", text, strlen(text), o->json ? RL_TTY_JSON : RL_TTY_TEXT, err)
             : rl_fail(err, RL_EINTERNAL, "out of memory");
    if (st == RL_OK && o->json)
        rl_tty_puts(stdout, "\n");
    free(text);
    return st;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    opts o = {0};
    rl_status st = parse(argc, argv, &o, err);
    if (st != RL_OK)
        return st;
    if (o.help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT,
                       "no input: give two or more bundles, reports or directories of them "
                       "(see compare --help)");
    bool page_stdout = o.html && strcmp(o.html, "-") == 0;
    if (page_stdout && (o.markdown || o.json))
        return rl_fail(err, RL_EINPUT, "the page and the %s cannot both go to stdout",
                       o.json ? "JSON" : "Markdown");
    if (o.markdown && o.json)
        return rl_fail(err, RL_EINPUT,
                       "--markdown and --json cannot both go to stdout: choose one");
    rl_cmp c;
    rl_cmp_init(&c);
    for (int i = optind; st == RL_OK && i < argc; i++)
        st = rl_cmp_add_operand(&c, argv[i], err);
    if (st == RL_OK && c.n_inputs < 2)
        st = rl_fail(err, RL_EINPUT,
                     "compare needs at least two inputs (bundles, reports or directories of "
                     "them); got %zu",
                     c.n_inputs);
    if (st == RL_OK && o.baseline)
        st = rl_cmp_set_baseline(&c, o.baseline, err);
    for (size_t i = 0; st == RL_OK && o.html && i < c.n_inputs; i++)
        st = rl_check_outputs(&(rl_path_arg){"input", c.inputs[i].path}, 1,
                              &(rl_path_arg){"-o", o.html}, 1, err);
    if (st == RL_OK && o.html && !page_stdout)
        st = rl_check_writable(o.html, err);
    if (st == RL_OK)
        st = rl_cmp_run(&c, err);
    char *page = NULL;
    size_t page_len = 0;
    if (st == RL_OK && o.html)
        st = rl_html_compare(&c, o.all, &page, &page_len, err);
    if (st == RL_OK && !page_stdout) {
        st = print_result(&c, &o, err);
    }
    if (st == RL_OK && o.html) {
        st = rl_write_output(o.html, page, page_len, RL_TTY_JSON, err);
        char safe[1024];
        if (st == RL_OK && !page_stdout)
            rl_tty_printf(stderr, "wrote %s\n", rl_tty_escape(o.html, safe, sizeof safe));
    }
    free(page);
    if (st == RL_OK) {
        size_t dreg = 0, reg = o.fail_set ? rl_cmp_regressions(&c, o.fail_pct, &dreg) : 0;
        if (dreg > 0) /* seen only in disturbed rows: said, not counted */
            rl_tty_printf(
                stderr,
                "llama-roofline compare: %zu %sregression%s beyond %g%% in a disturbed row, "
                "not counted: "
                "re-measure on a quiet machine\n",
                dreg, reg ? "more " : "", dreg == 1 ? "" : "s", o.fail_pct);
        if (reg > 0)
            st = rl_fail(err, RL_NOTHING,
                         "regression: %zu row%s slower than the baseline by more than %g%% "
                         "(--fail-on-regression)",
                         reg, reg == 1 ? "" : "s", o.fail_pct);
        else if (o.strict && (c.suite_mismatch || c.rows_not_everywhere))
            st = rl_fail(err, RL_NOTHING,
                         "suite mismatch: the inputs differ in settings or models (--strict; "
                         "the warnings say what differs)");
    }
    rl_cmp_free(&c);
    return st;
}

const rl_command rl_cmd_compare = {
    "compare", "what changed beyond noise between bundles (machines, builds)", usage, run};
