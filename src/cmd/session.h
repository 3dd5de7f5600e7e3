/* SPDX-License-Identifier: MIT */
/* session.h: how a measuring command's session ends, in one place, in order: measure ->
 * analyse -> write the bundle -> report. `run`, `diagnose`, `client` and `advise --measure`
 * all finish through rl_session_end; the sweep's commands measure through rl_session_sweep.
 *
 * Ownership: the bundle is the caller's throughout (rl_session_sweep hands it over in
 * *bundle_out, also after a failure when one was started); the options are borrowed. */
#ifndef RL_SESSION_H
#define RL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"
#include "cmd/sweep.h"

/* The sweep's phases: measure and record (sweep.h), then the analysis of the bundle with the
 * bytes convention of o or of the resumed bundle (after a complete or interrupted measurement),
 * then the bundle's last record and write. The result is the first failure. */
rl_status rl_session_sweep(const rl_sweep_opts *o, cJSON **bundle_out, rl_error *err);

/* Where the commands differ at the end (each keeps its own output). */
enum {
    /* print the text summary first and "wrote PAGE" after (run, diagnose) */
    RL_SESSION_SUMMARY = 1u << 0,
    /* render only after a measurement that succeeded, not after an interrupted one (client) */
    RL_SESSION_OK_ONLY = 1u << 1,
    /* a failed page is a warning on stderr, never the session's status (client) */
    RL_SESSION_PAGE_WARNS = 1u << 2,
    /* a failed page after a good measurement fails with the renderer's own message, without
     * the hint that the bundle is kept (advise, which ranks that failure itself) */
    RL_SESSION_PAGE_PLAIN = 1u << 3,
    /* --json: the bundle as JSON on stdout in place of the summary, "wrote" lines on stderr
     * (run, diagnose; with RL_SESSION_SUMMARY) */
    RL_SESSION_JSON = 1u << 4,
};

typedef struct {
    const char *verb;    /* the command, in messages */
    const char *out_dir; /* DIR: the bundle is DIR/bundle.json, the page DIR/report.html */
    unsigned flags;      /* RL_SESSION_* */
    bool wrote_page;     /* out: DIR/report.html was written */
} rl_session_end_opts;

/* The end of a measurement whose bundle is complete or interrupted (its analysis already
 * stored, the bundle written): the summary where the command has one, DIR/report.html rendered
 * from the bundle, the paths printed. st is the measurement's status; nothing is done unless it
 * is RL_OK, RL_NOTHING or RL_EINTERRUPTED. The result is st, or the page's failure when the
 * measurement itself succeeded (a failed page after a failed measurement is a warning on
 * stderr). An interrupted measurement prints no summary (no "answer" block as if complete):
 * its status is rl_session_interrupted's. */
rl_status rl_session_end(rl_session_end_opts *e, const cJSON *bundle, rl_status st, rl_error *err);

/* "llama-roofline WORD..." with every word quoted for sh (base's rl_sh_quote) and the line
 * terminal-safe (rl_tty_escape), into out; cut at cap. The re-run command of an interrupted
 * command that has no --resume (client from its bundle's argv, membw from the typed argv). */
void rl_session_command_line(const char *const *words, size_t n, char *out, size_t cap);

/* The interruption, said once for every measuring command: err is set to RL_EINTERRUPTED with
 * "interrupted: kept N of M runs in DIR/bundle.json; resume with: llama-roofline VERB --resume
 * -o DIR" (run and diagnose, the commands with --resume; DIR quoted for sh), or "...; VERB has
 * no --resume: run it again to measure the rest" (advise --measure), or "kept N operating
 * points in PATH; client has no --resume: run it again to measure the rest: llama-roofline
 * client ..." (client: the command as the bundle's argv has it, a URL without its user name,
 * password, query or fragment). N: the runs whose status is "ok"; M: models x threads x depths from
 * the settings. bundle_path: where the bundle is, NULL for DIR/bundle.json. Nothing is printed
 * here: main prints err. */
rl_status rl_session_interrupted(const char *verb, const char *out_dir, const char *bundle_path,
                                 const cJSON *bundle, rl_error *err);

/* The bundle's HTML page written to path ("-" = stdout), the one place a report is made: what the
 * page shows beyond the bundle is computed first (the "what to expect" rows,
 * analyse/predict_expect.h), then rendered (rl_report_write_html). Its failures. */
rl_status rl_session_write_html(const cJSON *bundle, const char *path, rl_error *err);

#endif
