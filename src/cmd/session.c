/* SPDX-License-Identifier: MIT */
/* session.c: the end of a measuring session, one rule for every command. See session.h. */
#include "cmd/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/analysis_bundle.h"
#include "analyse/predict_expect.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "render/report.h"

rl_status rl_session_sweep(const rl_sweep_opts *o, cJSON **bundle_out, rl_error *err)
{
    rl_sweep_state s;
    rl_status st = rl_sweep_measure(o, &s, err);
    if (s.bundle && (st == RL_OK || st == RL_EINTERRUPTED)) {
        rl_error ae;
        if (rl_bundle_analyze(s.bundle, s.bytes, &ae) != RL_OK && st == RL_OK) {
            *err = ae;
            st = ae.status;
        }
    }
    st = rl_sweep_close(&s, st, err);
    *bundle_out = s.bundle;
    rl_sweep_state_free(&s);
    return st;
}

/* s as one sh word (base's rl_sh_quote) into out; "" when out of memory. */
static void sh_word(const char *s, char *out, size_t cap)
{
    rl_sbuf b = {0};
    rl_sh_quote(&b, s);
    rl_snprintf(out, cap, "%s", b.p && !b.oom ? b.p : "");
    free(b.p);
}

void rl_session_command_line(const char *const *words, size_t n, char *out, size_t cap)
{
    rl_sbuf b = {0};
    rl_sbuf_printf(&b, "llama-roofline");
    for (size_t i = 0; i < n; i++) {
        rl_sbuf_printf(&b, " ");
        rl_sh_quote(&b, words[i] ? words[i] : "");
    }
    rl_tty_escape(b.p && !b.oom ? b.p : "", out, cap);
    free(b.p);
}

/* The bundle's argv (as typed; a URL in it already shown without its secrets, rl_bundle_new)
 * as a command line. */
static void bundle_command_line(const cJSON *bundle, char *out, size_t cap)
{
    const cJSON *argv = cJSON_GetObjectItemCaseSensitive(bundle, "argv"), *a;
    const char *words[256];
    size_t n = 0;
    if (!cJSON_IsArray(argv))
        argv = NULL;
    cJSON_ArrayForEach(a, argv)
    {
        if (cJSON_IsString(a) && n < sizeof words / sizeof *words)
            words[n++] = a->valuestring;
    }
    rl_session_command_line(words, n, out, cap);
}

/* calibrate: the runs kept, and the command again (without --recalibrate: the cache holds the
 * finished types, so the same command goes on from there). */
static rl_status calibrate_interrupted(const char *dir, const cJSON *bundle, rl_error *err)
{
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(bundle, "calibration"), *set, *t, *p;
    int ok = 0;
    cJSON_ArrayForEach(set, cJSON_GetObjectItemCaseSensitive(cal, "sets"))
    {
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(set, "types"))
        {
            const char *src = rl_json_get_str(t, "source");
            cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(t, "points"))
            {
                const char *rs = rl_json_get_str(rl_json_get(p, "run"), "status");
                ok += src && strcmp(src, "measured") == 0 && rs && strcmp(rs, "ok") == 0;
            }
        }
    }
    int total = (int)rl_json_num_or(rl_json_get(cal, "method"), "runs_planned", 0);
    rl_sbuf cmd = {0};
    rl_sbuf_printf(&cmd, "llama-roofline");
    const cJSON *a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(bundle, "argv"))
    {
        if (!cJSON_IsString(a) || strcmp(a->valuestring, "--recalibrate") == 0)
            continue;
        rl_sbuf_printf(&cmd, " ");
        rl_sh_quote(&cmd, a->valuestring);
    }
    char word[4096];
    rl_status st = rl_fail(
        err, RL_EINTERRUPTED,
        "interrupted: kept %d of %d calibration runs in %s (every finished type "
        "is cached); resume with: %s",
        ok, total, dir,
        rl_tty_escape(cmd.p && !cmd.oom ? cmd.p : "llama-roofline calibrate", word, sizeof word));
    free(cmd.p);
    return st;
}

rl_status rl_session_interrupted(const char *verb, const char *out_dir, const char *bundle_path,
                                 const cJSON *bundle, rl_error *err)
{
    char path[4096], dir[4096], word[4096];
    if (bundle_path)
        rl_snprintf(path, sizeof path, "%s", bundle_path);
    else
        rl_snprintf(path, sizeof path, "%s/bundle.json", out_dir);
    rl_tty_escape(path, dir, sizeof dir);
    if (strcmp(verb, "calibrate") == 0)
        return calibrate_interrupted(dir, bundle, err);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(bundle, "client");
    if (cl && !cJSON_GetObjectItemCaseSensitive(bundle, "models")) {
        int np = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cl, "points"));
        bundle_command_line(bundle, word, sizeof word);
        return rl_fail(err, RL_EINTERRUPTED,
                       "interrupted: kept %d operating point%s in %s; %s has no --resume: run it "
                       "again to measure the rest: %s",
                       np, np == 1 ? "" : "s", dir, verb, word);
    }
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(bundle, "settings");
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(bundle, "models");
    int nt = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(set, "threads"));
    int nd = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(set, "depths"));
    int total = cJSON_GetArraySize(models) * (nt ? nt : 1) * (nd ? nd : 1), ok = 0;
    const cJSON *m, *r;
    cJSON_ArrayForEach(m, models)
    {
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(m, "runs"))
        {
            const char *rs = rl_json_get_str(r, "status");
            ok += rs && strcmp(rs, "ok") == 0;
        }
    }
    if (strcmp(verb, "run") != 0 && strcmp(verb, "diagnose") != 0)
        return rl_fail(err, RL_EINTERRUPTED,
                       "interrupted: kept %d of %d runs in %s; %s has no --resume: run it again "
                       "to measure the rest",
                       ok, total, dir, verb);
    /* the resume finds llama-bench as the first session did: the path it resolved when one
     * was given with --llama-bench */
    char lb[4096] = "", lbq[4096];
    const char *bin =
        rl_json_get_str(cJSON_GetObjectItemCaseSensitive(bundle, "llama_cpp"), "llama_bench");
    const cJSON *a;
    bool cal = false; /* diagnose --calibrate: the resumed one calibrates too */
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(bundle, "argv"))
    {
        if (bin && cJSON_IsString(a) && strncmp(a->valuestring, "--llama-bench", 13) == 0) {
            sh_word(bin, lbq, sizeof lbq);
            rl_snprintf(lb, sizeof lb, " --llama-bench %s", lbq);
        }
        cal |= cJSON_IsString(a) && strcmp(a->valuestring, "--calibrate") == 0;
    }
    sh_word(out_dir, path, sizeof path);
    rl_snprintf(lbq, sizeof lbq, "%s --resume%s%s -o %s", verb, lb, cal ? " --calibrate" : "",
                path);
    return rl_fail(err, RL_EINTERRUPTED,
                   "interrupted: kept %d of %d runs in %s; resume with: llama-roofline %s", ok,
                   total, dir, rl_tty_escape(lbq, word, sizeof word));
}

rl_status rl_session_write_html(const cJSON *bundle, const char *path, rl_error *err)
{
    rl_pred_expect expect;
    rl_status st = rl_pred_expect_build(bundle, &expect, err);
    if (st == RL_OK) {
        rl_report_extra x = {.expect = &expect};
        st = rl_report_write_html(bundle, &x, path, err);
    }
    rl_pred_expect_free(&expect);
    return st;
}

/* The bundle as JSON on stdout (--json). */
static rl_status print_json(const cJSON *bundle)
{
    rl_error e;
    return rl_json_to_stdout(bundle, &e);
}

rl_status rl_session_end(rl_session_end_opts *e, const cJSON *bundle, rl_status st, rl_error *err)
{
    e->wrote_page = false;
    if (!bundle || !(st == RL_OK || st == RL_NOTHING || st == RL_EINTERRUPTED))
        return st;
    if ((e->flags & RL_SESSION_OK_ONLY) && st != RL_OK)
        return st;
    char *path = rl_asprintf("%s/bundle.json", e->out_dir);
    char *page = rl_asprintf("%s/%s", e->out_dir, RL_REPORT_FILE);
    if (!path || !page) {
        free(path);
        free(page);
        return st == RL_OK ? rl_fail(err, RL_EINTERNAL, "out of memory") : st;
    }
    bool json = e->flags & RL_SESSION_JSON;
    char safe[4096];
    if ((e->flags & RL_SESSION_SUMMARY) && st != RL_EINTERRUPTED && !json)
        rl_report_print_summary(stdout, bundle, path);
    else if ((e->flags & RL_SESSION_SUMMARY) && json)
        rl_tty_printf(stderr, "wrote %s\n", rl_tty_escape(path, safe, sizeof safe));
    /* the finished bundle, rendered: measurement itself never renders */
    rl_error rerr = {RL_OK, ""};
    rl_status rst = rl_session_write_html(bundle, page, &rerr);
    e->wrote_page = rst == RL_OK;
    if (rst == RL_OK) {
        if (e->flags & RL_SESSION_SUMMARY)
            rl_tty_printf(json ? stderr : stdout, "wrote %s\n",
                          rl_tty_escape(page, safe, sizeof safe));
    } else if (st == RL_OK && (e->flags & RL_SESSION_PAGE_PLAIN)) {
        *err = rerr;
        st = rst;
    } else if (st == RL_OK && !(e->flags & RL_SESSION_PAGE_WARNS)) {
        st = rl_fail(err, rst, "%s (the bundle is kept: `llama-roofline report %s` renders it)",
                     rerr.msg, rl_tty_escape(path, safe, sizeof safe));
    } else {
        rl_tty_printf(stderr, "llama-roofline %s: warning: no report: %s\n", e->verb, rerr.msg);
    }
    free(path);
    free(page);
    if (json && print_json(bundle) != RL_OK && st == RL_OK)
        st = rl_fail(err, RL_EINTERNAL, "out of memory printing the bundle");
    if (st == RL_EINTERRUPTED)
        st = rl_session_interrupted(e->verb, e->out_dir, NULL, bundle, err);
    return st;
}
