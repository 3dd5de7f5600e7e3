/* SPDX-License-Identifier: MIT */
/* cmd_validate.c: `llama-roofline validate FILE...`: each file read with rl_bundle_load (a
 * bundle or a report) and checked by rl_validate, or, when it is none, read as a membw result
 * (membw --json, -o) and checked by rl_validate_membw (validate.h); one line per problem and a
 * summary line per file on stdout. Everything allocated here is freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>

#include "bundle/bundle.h"
#include "cmd/cmd.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "analyse/validate.h"

static const char usage[] =
    "usage: llama-roofline validate FILE...\n"
    "\n"
    "Check bundles (bundle.json), reports (report.html, which carry their bundle) and\n"
    "membw results (membw --json, membw -o) beyond their JSON Schema: required keys\n"
    "and types, the schema version, a kind (measured, proxy, derived, controlled) or\n"
    "an unavailable reason on every object that carries numbers, statistics that\n"
    "agree with their samples, runs that agree with their llama-bench records, a fit\n"
    "that agrees with its points, utilisation with its ceiling, machine states with\n"
    "their counts, units, counts, unique model ids and warnings that name existing\n"
    "models. docs/CLI.md lists every check.\n"
    "\n"
    "Prints one line per problem, FILE: PATH: message (PATH a JSON path such as\n"
    "models[1].runs[0].decode.stats.mean), then one summary line per file.\n"
    "\n"
    "options:\n"
    "  -h, --help   show this text\n"
    "\n"
    "example:\n"
    "  llama-roofline validate run/bundle.json run/report.html\n"
    "\n"
    "exit codes: 0 every file is valid; 1 a file has problems; 2 a file cannot be\n"
    "read, is not JSON or not a llama-roofline bundle or report (checking stops\n"
    "there), a bad option; 5 out of memory.\n";

static const struct option longopts[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A membw result (membw --json, membw -o): an object with peak_read_GBs and runs and no
 * "schema", the shape of a bundle's "membw". */
static bool membw_result(const cJSON *j)
{
    return cJSON_IsObject(j) && !rl_json_get(j, "schema") && rl_json_get(j, "peak_read_GBs") &&
           cJSON_IsArray(rl_json_get(j, "runs"));
}

/* Validate one file: *n_problems set; RL_EINPUT when it cannot be read as a bundle, a report
 * or a membw result (the bundle reader's message). */
static rl_status validate_file(const char *path, size_t *n_problems, rl_error *err)
{
    cJSON *b = NULL, *m = NULL;
    rl_status st = rl_bundle_load(path, &b, err);
    rl_error me;
    if (st == RL_EINPUT && rl_json_read_file(path, RL_BUNDLE_MAX_BYTES, &m, &me) == RL_OK &&
        membw_result(m))
        st = RL_OK;
    if (st != RL_OK) {
        cJSON_Delete(m);
        return st;
    }
    rl_validate_problems p = {0};
    st = b ? rl_validate(b, &p) : rl_validate_membw(m, &p);
    cJSON_Delete(b);
    cJSON_Delete(m);
    if (st != RL_OK) {
        rl_validate_problems_free(&p);
        return rl_fail(err, st, "out of memory validating %s", path);
    }
    char *file = rl_tty_escape_dup(path);
    for (size_t i = 0; i < p.n; i++) {
        char *where = rl_tty_escape_dup(p.items[i].path);
        char *msg = rl_tty_escape_dup(p.items[i].msg);
        rl_tty_printf(stdout, "%s: %s: %s\n", file ? file : "?",
                      where && *where ? where : "(top level)", msg ? msg : "?");
        free(where);
        free(msg);
    }
    if (p.n == 0)
        rl_tty_printf(stdout, "%s: valid\n", file ? file : "?");
    else
        rl_tty_printf(stdout, "%s: %zu problem%s\n", file ? file : "?", p.n, p.n == 1 ? "" : "s");
    free(file);
    *n_problems = p.n;
    rl_validate_problems_free(&p);
    return RL_OK;
}

/* validate has no option but -h. */
static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    (void)c, (void)arg, (void)ctx;
    return rl_fail(err, RL_EINTERNAL, "option table out of step");
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    bool help = false;
    rl_status st = rl_opt_each(argc, argv, "h", longopts, on_opt, NULL, &help, err);
    if (st == RL_OK && help)
        rl_tty_puts(stdout, usage);
    if (st != RL_OK || help)
        return st;
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT,
                       "no input: give the bundles or reports to check (see validate --help)");
    size_t bad = 0;
    for (int i = optind; i < argc; i++) {
        size_t n = 0;
        st = validate_file(argv[i], &n, err);
        if (st != RL_OK) {
            fflush(stdout);
            return st;
        }
        bad += n > 0;
    }
    fflush(stdout);
    return bad ? RL_NOTHING : RL_OK;
}

const rl_command rl_cmd_validate = {
    "validate", "check bundles and reports: kinds, statistics, fit, units, counts", usage, run};
