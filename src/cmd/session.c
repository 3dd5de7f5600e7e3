/* session.c: the end of a measuring session, one rule for every command. See session.h. */
#include "cmd/session.h"

#include <stdio.h>
#include <stdlib.h>

#include "analyse/analysis_bundle.h"
#include "analyse/predict_expect.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "render/report.h"

rl_status rl_session_sweep(const rl_sweep_opts *o, cJSON **bundle_out, rl_error *err)
{
    rl_sweep_state s;
    rl_status st = rl_sweep_measure(o, &s, err);
    if (s.bundle && (st == RL_OK || st == RL_EINTERRUPTED)) {
        rl_error ae;
        if (rl_bundle_analyze(s.bundle, o->bytes, &ae) != RL_OK && st == RL_OK) {
            *err = ae;
            st = ae.status;
        }
    }
    st = rl_sweep_close(&s, st, err);
    *bundle_out = s.bundle;
    rl_sweep_state_free(&s);
    return st;
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
    if (e->flags & RL_SESSION_SUMMARY)
        rl_report_print_summary(stdout, bundle, path);
    /* the finished bundle, rendered: measurement itself never renders */
    rl_error rerr = {RL_OK, ""};
    rl_status rst = rl_session_write_html(bundle, page, &rerr);
    char safe[4096];
    e->wrote_page = rst == RL_OK;
    if (rst == RL_OK) {
        if (e->flags & RL_SESSION_SUMMARY)
            printf("wrote %s\n", rl_tty_escape(page, safe, sizeof safe));
    } else if (st == RL_OK && (e->flags & RL_SESSION_PAGE_PLAIN)) {
        *err = rerr;
        st = rst;
    } else if (st == RL_OK && !(e->flags & RL_SESSION_PAGE_WARNS)) {
        st = rl_fail(err, rst, "%s (the bundle is kept: `llama-roofline report %s` renders it)",
                     rerr.msg, rl_tty_escape(path, safe, sizeof safe));
    } else {
        fprintf(stderr, "llama-roofline %s: warning: no report: %s\n", e->verb, rerr.msg);
    }
    free(path);
    free(page);
    return st;
}
