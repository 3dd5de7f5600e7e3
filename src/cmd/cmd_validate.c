/* SPDX-License-Identifier: MIT */
/* cmd_validate.c: `llama-roofline validate [--json] FILE...`: each file read with
 * rl_bundle_load (a bundle or a report) and checked by rl_validate, or, when it is none, read
 * as a membw result (membw --json, -o) and checked by rl_validate_membw, or as a comparison
 * (compare --json, or a compare page's embedded data) checked by rl_validate_compare
 * (validate.h); one line
 * per problem and a summary line per file on stdout, or with --json one JSON array of
 * {file, valid, problems: [{path, message}]}. Everything allocated here is freed before run()
 * returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "cmd/cmd.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "analyse/validate.h"

static const char usage[] =
    "usage: llama-roofline validate [--json] FILE...\n"
    "\n"
    "Check bundles (bundle.json), reports (report.html, which carry their bundle),\n"
    "membw results (membw --json, membw -o) and comparisons (compare --json, the\n"
    "pages of compare -o) beyond their JSON Schema: required keys\n"
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
    "  --json       print one JSON array instead: per file {file, valid, problems:\n"
    "               [{path, message}]}\n"
    "  -h, --help   show this text\n"
    "\n"
    "example:\n"
    "  llama-roofline validate run/bundle.json run/report.html\n"
    "\n"
    "exit codes: 0 every file is valid; 1 a file has problems; 2 a file cannot be\n"
    "read, is not JSON or not a llama-roofline bundle or report (checking stops\n"
    "there), a bad option; 5 out of memory.\n";

static const struct option longopts[] = {
    {"json", no_argument, NULL, 'j'},
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

/* The file's entry of --json's array: {file, valid, problems: [{path, message}]}; false when
 * out of memory. */
static bool json_entry(cJSON *arr, const char *path, const rl_validate_problems *p)
{
    cJSON *e = cJSON_CreateObject();
    if (!rl_json_push(arr, e)) /* the array owns e from here (rl_json_push frees it on failure) */
        return false;
    bool ok = rl_json_add_str(e, "file", path) && rl_json_add_bool(e, "valid", p->n == 0) &&
              rl_json_attach(e, "problems", cJSON_CreateArray());
    cJSON *probs = cJSON_GetObjectItemCaseSensitive(e, "problems");
    for (size_t i = 0; ok && i < p->n; i++) {
        cJSON *q = cJSON_CreateObject();
        ok = q && rl_json_push(probs, q) && rl_json_add_str(q, "path", p->items[i].path) &&
             rl_json_add_str(q, "message", p->items[i].msg);
    }
    return ok;
}

/* The problems as lines on stdout, then the file's summary line. */
static void print_problems(const char *path, const rl_validate_problems *p)
{
    char *file = rl_tty_escape_dup(path);
    for (size_t i = 0; i < p->n; i++) {
        char *where = rl_tty_escape_dup(p->items[i].path);
        char *msg = rl_tty_escape_dup(p->items[i].msg);
        rl_tty_printf(stdout, "%s: %s: %s\n", file ? file : "?",
                      where && *where ? where : "(top level)", msg ? msg : "?");
        free(where);
        free(msg);
    }
    if (p->n == 0)
        rl_tty_printf(stdout, "%s: valid\n", file ? file : "?");
    else
        rl_tty_printf(stdout, "%s: %zu problem%s\n", file ? file : "?", p->n, p->n == 1 ? "" : "s");
    free(file);
}

/* Validate one file: *n_problems set, the lines printed, or the entry added to json when it
 * is not NULL; RL_EINPUT when it cannot be read as a bundle, a report or a membw result (the
 * bundle reader's message). */
static rl_status validate_file(const char *path, cJSON *json, size_t *n_problems, rl_error *err)
{
    cJSON *b = NULL, *m = NULL, *c = NULL;
    rl_status st = rl_bundle_load(path, &b, err);
    rl_error me;
    if (st == RL_EINPUT && rl_json_read_file(path, RL_BUNDLE_MAX_BYTES, &m, &me) == RL_OK &&
        membw_result(m))
        st = RL_OK;
    if (st == RL_EINPUT &&
        rl_bundle_load_embedded(path, "compare", "llama-roofline-compare", &c, &me) == RL_OK)
        st = RL_OK;
    if (st != RL_OK) {
        cJSON_Delete(m);
        return st;
    }
    if (!b) /* read as a membw result or a comparison: the bundle reader's message is moot */
        *err = (rl_error){RL_OK, ""};
    rl_validate_problems p = {0};
    st = b ? rl_validate(b, &p) : c ? rl_validate_compare(c, &p) : rl_validate_membw(m, &p);
    cJSON_Delete(b);
    cJSON_Delete(m);
    cJSON_Delete(c);
    if (st != RL_OK) {
        rl_validate_problems_free(&p);
        return rl_fail(err, st, "out of memory validating %s", path);
    }
    if (json && !json_entry(json, path, &p))
        st = rl_fail(err, RL_EINTERNAL, "out of memory validating %s", path);
    if (!json)
        print_problems(path, &p);
    *n_problems = p.n;
    rl_validate_problems_free(&p);
    return st;
}

/* validate's one option but -h: --json. */
static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    (void)arg;
    if (c != 'j')
        return rl_fail(err, RL_EINTERNAL, "option table out of step");
    *(bool *)ctx = true;
    return RL_OK;
}

/* --json's array on stdout. */
static rl_status print_json(const cJSON *arr, rl_error *err)
{
    return rl_json_to_stdout(arr, err);
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    bool help = false, want_json = false;
    rl_status st = rl_opt_each(argc, argv, "h", longopts, on_opt, &want_json, &help, err);
    if (st == RL_OK && help)
        rl_tty_puts(stdout, usage);
    if (st != RL_OK || help)
        return st;
    if (optind >= argc)
        return rl_fail(err, RL_EINPUT,
                       "no input: give the bundles or reports to check (see validate --help)");
    size_t bad = 0;
    cJSON *json = want_json ? cJSON_CreateArray() : NULL;
    if (want_json && !json)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (int i = optind; st == RL_OK && i < argc; i++) {
        size_t n = 0;
        st = validate_file(argv[i], json, &n, err);
        bad += n > 0;
    }
    if (st == RL_OK && json)
        st = print_json(json, err);
    cJSON_Delete(json);
    fflush(stdout);
    if (st != RL_OK)
        return st;
    return bad ? RL_NOTHING : RL_OK;
}

const rl_command rl_cmd_validate = {
    "validate", "check bundles and reports: kinds, statistics, fit, units, counts", usage, run};
