/* SPDX-License-Identifier: MIT */
/* cmd_report.c: `llama-roofline report`: options, one bundle (or report) read with
 * rl_bundle_load, the outputs written through report.h. Everything allocated here is freed
 * before run() returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bundle/bundle.h"
#include "render/chart/chart.h"
#include "cmd/cmd.h"
#include "cmd/session.h"
#include "render/report.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline report BUNDLE|REPORT.html [-o report.html]\n"
    "                             [--markdown[=FILE]] [--png FILE]\n"
    "\n"
    "Render a bundle (bundle.json, or a report.html, which embeds its bundle) as one\n"
    "self-contained HTML page: the answer first, key figures, charts with their data\n"
    "tables and caveats, the per-model table, warnings, long context, environment and\n"
    "provenance. The page has no JavaScript and loads nothing; the same bundle always\n"
    "gives the same bytes.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the HTML page (default: report.html beside the input; '-'\n"
    "                      for stdout)\n"
    "  --markdown[=FILE]   a short Markdown summary (answer, tables, caveats) to\n"
    "                      FILE, or to stdout without one; `--markdown FILE` works\n"
    "                      too\n"
    "  --png FILE          the roofline chart as a PNG\n"
    "  -h, --help          show this text\n"
    "With --markdown or --png the HTML page is written only when -o is given.\n"
    "\n"
    "exit codes: 0 written; 2 bad input (unreadable, truncated or foreign JSON, an\n"
    "HTML file without an embedded bundle, a newer bundle version, a bad option, an\n"
    "output that is the input or another output); 4 an output cannot be written; 5\n"
    "internal error.\n";

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"markdown", optional_argument, NULL, 'M'},
    {"png", required_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *input, *html, *markdown, *png;
    bool want_markdown, help;
    bool md_bare; /* the last --markdown had no =FILE: an operand may be its file */
} opts;

#define MAX_ARGS 64

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    opts *o = ctx;
    switch (c) {
    case 'o': o->html = arg; return rl_check_output_kind("report", arg, RL_OUT_FILE, err);
    case 'M':
        o->want_markdown = true;
        o->markdown = arg;
        o->md_bare = arg == NULL;
        break;
    case 'P': o->png = arg; break;
    default: return rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return RL_OK;
}

static rl_status parse(int argc, char **argv, opts *o, rl_error *err)
{
    if (argc > MAX_ARGS)
        return rl_fail(err, RL_EINPUT, "too many arguments (see llama-roofline report --help)");
    char *orig[MAX_ARGS]; /* getopt permutes argv: keep the order as given */
    memcpy(orig, argv, (size_t)argc * sizeof *argv);
    rl_status st = rl_opt_each(argc, argv, "o:h", longopts, on_opt, o, &o->help, err);
    if (st != RL_OK || o->help)
        return st;
    int n = argc - optind;
    if (n == 2 && o->md_bare) {
        /* `--markdown FILE`: the operand that directly followed --markdown is its file */
        for (int i = 1; i + 1 < argc; i++) {
            if (strncmp(orig[i], "--markdown", 10) != 0 || orig[i][10] != '\0')
                continue;
            for (int k = optind; k < argc; k++)
                if (argv[k] == orig[i + 1]) {
                    o->markdown = argv[k];
                    o->input = argv[k == optind ? optind + 1 : optind];
                }
        }
        if (!o->markdown)
            return rl_fail(err, RL_EINPUT,
                           "give one bundle or report (got '%s' and '%s'; see report --help)",
                           argv[optind], argv[optind + 1]);
        return RL_OK;
    }
    if (n == 0)
        return rl_fail(err, RL_EINPUT,
                       "no input: give a bundle.json or a report.html (see report --help)");
    if (n > 1) {
        char safe[256];
        return rl_fail(err, RL_EINPUT, "unexpected '%s': give one bundle or report",
                       rl_tty_escape(argv[optind + 1], safe, sizeof safe));
    }
    o->input = argv[optind];
    return RL_OK;
}

static bool html_name(const char *path)
{
    size_t n = strlen(path);
    return (n >= 5 && strcasecmp(path + n - 5, ".html") == 0) ||
           (n >= 4 && strcasecmp(path + n - 4, ".htm") == 0);
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
    char *beside = NULL;
    const char *html = o.html;
    if (!html && !o.want_markdown && !o.png) {
        beside = rl_report_path_beside(o.input);
        if (!beside)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        html = beside;
    }
    bool md_stdout = o.want_markdown && (!o.markdown || strcmp(o.markdown, "-") == 0);
    if (html && strcmp(html, "-") == 0 && md_stdout) {
        free(beside);
        return rl_fail(err, RL_EINPUT, "the page and the Markdown cannot both go to stdout");
    }
    cJSON *b = NULL;
    st = rl_bundle_load(o.input, &b, err);
    /* a report re-rendered in place is allowed; no other output may be the input or another */
    rl_path_arg in[] = {{"input", o.input}};
    rl_path_arg out[] = {
        {"--markdown", md_stdout ? NULL : o.markdown}, {"--png", o.png}, {"-o", html}};
    if (st == RL_OK)
        st = rl_check_outputs(in, 1, out, html_name(o.input) ? 2 : 3, err);
    if (st == RL_OK)
        st = rl_check_outputs(NULL, 0, out, 3, err);
    /* what is said about the files written goes to stdout, unless stdout carries a page */
    FILE *say = (md_stdout || (html && strcmp(html, "-") == 0)) ? stderr : stdout;
    char safe[1024];
    if (st == RL_OK && html) {
        st = rl_session_write_html(b, html, err);
        if (st == RL_OK && strcmp(html, "-") != 0)
            rl_tty_printf(say, "wrote %s\n", rl_tty_escape(html, safe, sizeof safe));
    }
    if (st == RL_OK && o.want_markdown) {
        st = rl_report_write_markdown(b, md_stdout ? "-" : o.markdown, err);
        if (st == RL_OK && !md_stdout)
            rl_tty_printf(say, "wrote %s\n", rl_tty_escape(o.markdown, safe, sizeof safe));
    }
    if (st == RL_OK && o.png) {
        st = rl_chart_roofline_png(b, o.png, err);
        if (st == RL_NOTHING)
            st = rl_prefix(err, "no roofline chart for --png");
        if (st == RL_OK)
            rl_tty_printf(say, "wrote %s\n", rl_tty_escape(o.png, safe, sizeof safe));
    }
    cJSON_Delete(b);
    free(beside);
    return st;
}

const rl_command rl_cmd_report = {
    "report", "a bundle (or report) as one self-contained HTML page, Markdown, PNG", usage, run};
