/* SPDX-License-Identifier: MIT */
/* cmd_history.c: `llama-roofline history`: options, the bundles (analyse/history.h), the text
 * or Markdown (history_text.h) or JSON on stdout, the page (html_history.h) with -o, and the
 * exit code of --fail-on-regression. Everything allocated is freed before run() returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "analyse/history.h"
#include "render/history_text.h"
#include "render/html_history.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline history DIR|BUNDLE... [-o history.html] [--markdown]\n"
    "                              [--json] [--fail-on-regression PCT] [--all-steps]\n"
    "\n"
    "The bundles of one machine (run, diagnose, client, ...) in time order\n"
    "(created_utc). Series are matched as compare matches rows: model identity (the\n"
    "GGUF's tensor types and sizes) and settings (threads, depth, n_prompt, n_gen,\n"
    "GPU layers, bench args); client operating points; the memory ceiling. Each step\n"
    "between consecutive bundles of a series is judged with compare's rule (Welch's\n"
    "two-sided t-test, p < 0.05 and a change of at least 2%) and annotated with what\n"
    "changed: llama.cpp build, kernel, governor, THP, repetitions, a disturbed\n"
    "measurement. The machine is the newest bundle's (CPU, architecture, cores, NUMA\n"
    "nodes, RAM); bundles of other machines are listed and left out.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE          also write the history page (self-contained HTML,\n"
    "                             a trend chart per metric; '-' for stdout, then the\n"
    "                             text is not printed)\n"
    "  --markdown                 print Markdown instead of the text\n"
    "  --json                     print the history as one JSON object (every point\n"
    "                             with its samples) instead of the text\n"
    "  --fail-on-regression PCT   exit 1 when a step is \"slower\" by more than PCT\n"
    "                             percent (decimal, 0 to 100), naming each on stderr;\n"
    "                             a step measured disturbed is said, not counted\n"
    "  --all-steps                list every step; by default a series lists its\n"
    "                             first and last, the faster, slower, changed and\n"
    "                             disturbed steps, at most " RL_DEF_STR(
        RL_DEF_HISTORY_LISTED) "\n"
                               "  -h, --help                 show this text\n"
                               "\n"
                               "exit codes: 0 done; 1 --fail-on-regression and a step not measured "
                               "disturbed\n"
                               "regressed; 2 bad input (a missing, truncated or foreign file, a "
                               "directory\n"
                               "without bundles, fewer than two bundles of the machine, a bad "
                               "option, -o naming\n"
                               "an input); 4 the page cannot be written; 5 internal error.\n";

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"markdown", no_argument, NULL, 'M'},
    {"json", no_argument, NULL, 'J'},
    {"fail-on-regression", required_argument, NULL, 'F'},
    {"all-steps", no_argument, NULL, 'A'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *html;
    bool markdown, json, all, help, fail_set;
    double fail_pct;
} opts;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    opts *o = ctx;
    switch (c) {
    case 'o': o->html = arg; return rl_check_output_kind("history", arg, RL_OUT_FILE, err);
    case 'M': o->markdown = true; break;
    case 'J': o->json = true; break;
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

static rl_status print_result(const rl_hist *h, const opts *o, rl_error *err)
{
    if (o->json) {
        cJSON *j = rl_hist_to_json(h, true);
        rl_status st = j ? rl_json_to_stdout(j, err) : rl_fail(err, RL_EINTERNAL, "out of memory");
        cJSON_Delete(j);
        return st;
    }
    char *text = rl_hist_text(h, o->markdown, o->all, o->fail_set, o->fail_pct);
    rl_status st = text ? rl_write_output("-", text, strlen(text), RL_TTY_TEXT, err)
                        : rl_fail(err, RL_EINTERNAL, "out of memory");
    free(text);
    return st;
}

/* --fail-on-regression: each regression named on stderr, exit 1 when a clean one is there. */
static rl_status regressions(const rl_hist *h, const opts *o, rl_error *err)
{
    size_t dreg = 0, reg = rl_hist_regressions(h, o->fail_pct, &dreg);
    for (size_t s = 0; s < h->n_series; s++)
        for (size_t k = 1; k < h->series[s].n_pts; k++) {
            if (!rl_hist_is_regression(&h->series[s], k, o->fail_pct))
                continue;
            const rl_hist_point *p = &h->series[s].pts[k];
            char title[800], t1[2400], t2[600], t3[200];
            rl_hist_series_title(&h->series[s], title, sizeof title);
            rl_tty_printf(stderr, "llama-roofline history: %s %s at %s (llama.cpp %s): %+.1f%%\n",
                          p->cell.suspect ? "disturbed, not counted:" : "regression:",
                          rl_tty_escape(title, t1, sizeof t1),
                          rl_tty_escape(h->inputs[p->input].label, t2, sizeof t2),
                          rl_tty_escape(h->inputs[p->input].build, t3, sizeof t3),
                          p->cell.change_pct);
        }
    if (dreg > 0)
        rl_tty_printf(stderr,
                      "llama-roofline history: %zu %sregression%s beyond %g%% in a disturbed "
                      "step, not counted: re-measure on a quiet machine\n",
                      dreg, reg ? "more " : "", dreg == 1 ? "" : "s", o->fail_pct);
    if (reg > 0)
        return rl_fail(err, RL_NOTHING,
                       "regression: %zu step%s slower than the bundle before by more than %g%% "
                       "(--fail-on-regression)",
                       reg, reg == 1 ? "" : "s", o->fail_pct);
    return RL_OK;
}

static rl_status check_paths(const rl_hist *h, const opts *o, bool page_stdout, rl_error *err)
{
    rl_status st = RL_OK;
    for (size_t i = 0; st == RL_OK && o->html && i < h->n_inputs + h->n_others; i++) {
        const char *p = i < h->n_inputs ? h->inputs[i].path : h->others[i - h->n_inputs].path;
        st = rl_check_outputs(&(rl_path_arg){"input", p}, 1, &(rl_path_arg){"-o", o->html}, 1, err);
    }
    if (st == RL_OK && o->html && !page_stdout)
        st = rl_check_writable(o->html, err);
    return st;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    opts o = {0};
    rl_status st = rl_opt_each(argc, argv, "o:h", longopts, on_opt, &o, &o.help, err);
    if (st != RL_OK)
        return st;
    if (o.help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT,
                       "no input: give a directory of bundles or two or more bundles (see "
                       "history --help)");
    bool page_stdout = o.html && strcmp(o.html, "-") == 0;
    if (page_stdout && (o.markdown || o.json))
        return rl_fail(err, RL_EINPUT, "the page and the %s cannot both go to stdout",
                       o.json ? "JSON" : "Markdown");
    if (o.markdown && o.json)
        return rl_fail(err, RL_EINPUT,
                       "--markdown and --json cannot both go to stdout: choose one");
    rl_hist h;
    rl_hist_init(&h);
    h.max_listed = RL_DEF_HISTORY_LISTED;
    for (int i = optind; st == RL_OK && i < argc; i++)
        st = rl_hist_add_operand(&h, argv[i], err);
    if (st == RL_OK)
        st = rl_hist_run(&h, err);
    if (st == RL_OK)
        st = check_paths(&h, &o, page_stdout, err);
    char *page = NULL;
    size_t page_len = 0;
    if (st == RL_OK && o.html)
        st = rl_html_history(&h, o.all, &page, &page_len, err);
    if (st == RL_OK && !page_stdout)
        st = print_result(&h, &o, err);
    if (st == RL_OK && o.html) {
        st = rl_write_output(o.html, page, page_len, RL_TTY_JSON, err);
        char safe[1024];
        if (st == RL_OK && !page_stdout)
            rl_tty_printf(stderr, "wrote %s\n", rl_tty_escape(o.html, safe, sizeof safe));
    }
    free(page);
    if (st == RL_OK && o.fail_set)
        st = regressions(&h, &o, err);
    rl_hist_free(&h);
    return st;
}

const rl_command rl_cmd_history = {
    "history", "one machine's bundles over time: trends and regressions", usage, run};
