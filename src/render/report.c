/* SPDX-License-Identifier: MIT */
/* report.c: the report's entry points and the Markdown summary. See report.h. */
#include "render/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/html_client.h"
#include "render/html_page.h"
#include "render/report_text.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

rl_status rl_report_html(const cJSON *bundle, const rl_report_extra *x, char **out, size_t *len,
                         rl_error *err)
{
    return rl_html_page(bundle, x, out, len, err);
}

/* ---- Markdown -------------------------------------------------------------------------- */

/* "What to expect": bundle.predictions (diagnose --predict), as the HTML report's table. */
static void md_predictions(rl_sbuf *b, const cJSON *bundle)
{
    const cJSON *pr = rl_json_get(bundle, "predictions");
    if (!cJSON_IsObject(pr) || cJSON_IsFalse(rl_json_get(pr, "available")) ||
        cJSON_GetArraySize(rl_json_get(pr, "models")) == 0)
        return;
    rl_sbuf_printf(b, "\n**What to expect** (predicted, kind derived: bandwidth / bytes per "
                      "token)\n\n| Model | Bytes/token (MB) | Predicted tok/s | Interval | "
                      "Bandwidth from |\n|---|---:|---:|---:|---|\n");
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(pr, "models"))
    {
        const cJSON *pt = cJSON_GetArrayItem(rl_json_get(m, "points"), 0),
                    *r = rl_json_get(m, "rate");
        char by[48], v[48], lo[48], hi[48], bw[48];
        rl_report_fmt_num(rl_json_num_or(pt, "bytes_per_token", NAN) / 1e6, by, sizeof by);
        rl_report_fmt_num(rl_json_num_or(pt, "tok_s", NAN), v, sizeof v);
        rl_report_fmt_num(rl_json_num_or(pt, "tok_s_low", NAN), lo, sizeof lo);
        rl_report_fmt_num(rl_json_num_or(pt, "tok_s_high", NAN), hi, sizeof hi);
        rl_report_fmt_num(
            rl_json_num_or(r, "bw_GBs", rl_json_num_or(rl_json_get(pr, "fit"), "bw_GBs", NAN)), bw,
            sizeof bw);
        const char *src = rl_json_get_str(r, "source");
        rl_sbuf_printf(b, "| ");
        rl_md_escape(b, rl_json_get_str(m, "name") ? rl_json_get_str(m, "name") : "?");
        rl_sbuf_printf(b, " | %s | %s | %s to %s | %s GB/s, %s |\n", by, v, lo, hi, bw,
                       src && strcmp(src, "format") == 0 ? "the fitted models of its format"
                                                         : "the fit over all models");
    }
    bool first = true;
    cJSON_ArrayForEach(m, rl_json_get(pr, "models"))
    {
        const cJSON *c;
        cJSON_ArrayForEach(c, rl_json_get(m, "caveats"))
        {
            rl_sbuf_printf(b, "%s- ", first ? "\n" : "");
            first = false;
            rl_md_escape(b, rl_json_get_str(m, "name") ? rl_json_get_str(m, "name") : "?");
            rl_sbuf_printf(b, ": ");
            rl_md_escape(b, rl_json_get_str(c, "text") ? rl_json_get_str(c, "text") : "");
            rl_sbuf_printf(b, "\n");
        }
    }
}

/* The headline, the answer and the key-figures table. */
static void md_figures(rl_sbuf *b, const cJSON *bundle)
{
    char line[2048];
    if (rl_report_disturbed(bundle, line, sizeof line)) {
        rl_sbuf_printf(b, "> **Disturbed:** ");
        rl_md_escape(b, line);
        rl_sbuf_printf(b, "\n\n");
    }
    rl_report_headline(bundle, line, sizeof line);
    rl_sbuf_printf(b, "## llama-roofline: ");
    rl_md_escape(b, line);
    rl_report_answer(bundle, line, sizeof line);
    rl_sbuf_printf(b, "\n\n");
    rl_md_escape(b, line);
    rl_sbuf_printf(b, "\n\n| Key figure | Value | Kind |\n|---|---:|---|\n");
    rl_report_figure f[RL_REPORT_MAX_FIGURES];
    size_t nf = rl_report_figures(bundle, f);
    for (size_t i = 0; i < nf; i++) {
        rl_sbuf_printf(b, "| %s | ", f[i].label);
        rl_md_escape(b, f[i].value);
        if (*f[i].unit && strcmp(f[i].value, "n/a") != 0)
            rl_sbuf_printf(b, " %s", f[i].unit);
        rl_sbuf_printf(b, " | %s |\n", f[i].kind);
    }
}

/* One row per analysed model. */
static void md_models(rl_sbuf *b, const cJSON *bundle)
{
    const cJSON *an = rl_json_get(bundle, "analysis");
    if (cJSON_GetArraySize(rl_json_get(an, "models")) > 0) {
        const char *conv = rl_json_get_str(an, "bytes_convention");
        rl_sbuf_printf(
            b,
            "\n| Model | Bytes/token (MB, %s) | Decode (tok/s) | Threads | Knee | GB/s | "
            "Share of ceiling |\n|---|---:|---:|---:|---:|---:|---:|\n",
            conv ? conv : "resident");
        const cJSON *m;
        cJSON_ArrayForEach(m, rl_json_get(an, "models"))
        {
            char a[48], c[48];
            bool ok = false;
            rl_json_get_bool(m, "ok", &ok);
            rl_sbuf_printf(b, "| ");
            rl_md_escape(b, rl_json_get_str(m, "name") ? rl_json_get_str(m, "name") : "?");
            rl_report_fmt_num(rl_json_num_or(m, "bytes_per_token", NAN) / 1e6, a, sizeof a);
            rl_sbuf_printf(b, " | %s | ", a);
            if (!ok) {
                rl_sbuf_printf(b, "no short-context decode | | | | |\n");
                continue;
            }
            const cJSON *op = rl_json_get(m, "operating_point");
            rl_report_fmt_num(rl_json_num_or(op, "decode_tok_s", NAN), a, sizeof a);
            rl_report_fmt_num(rl_json_num_or(m, "decode_bw_GBs", NAN), c, sizeof c);
            const cJSON *knee = rl_json_available(m, "knee");
            const cJSON *u = rl_json_available(m, "utilisation");
            char k[32] = "n/a", us[32] = "n/a";
            if (knee)
                rl_snprintf(k, sizeof k, "%.0f", rl_json_num_or(knee, "threads", NAN));
            if (u)
                rl_snprintf(us, sizeof us, "%.0f%%", rl_json_num_or(u, "util_pct", NAN));
            rl_sbuf_printf(b, "%s | %.0f | %s | %s | %s |\n", a, rl_json_num_or(op, "threads", NAN),
                           k, c, us);
        }
    }
}

static void md_caveats(rl_sbuf *b, const rl_report_caveats *cav)
{
    if (cav->n) {
        rl_sbuf_printf(b, "\n**Caveats that apply**\n\n");
        for (size_t i = 0; i < cav->n; i++) {
            rl_sbuf_printf(b, "- ");
            rl_md_escape(b, cav->v[i].text);
            rl_sbuf_printf(b, "\n");
        }
    }
}

static void md_warnings(rl_sbuf *b, const cJSON *bundle)
{
    const cJSON *ws = rl_json_get(bundle, "warnings");
    if (cJSON_GetArraySize(ws) > 0) {
        rl_sbuf_printf(b, "\n**Warnings**\n\n");
        const cJSON *w;
        cJSON_ArrayForEach(w, ws)
        {
            rl_sbuf_printf(b, "- ");
            rl_md_escape(b, rl_json_get_str(w, "text") ? rl_json_get_str(w, "text") : "?");
            rl_sbuf_printf(b, "\n");
        }
    }
}

/* When, with what, on what. */
static void md_footer(rl_sbuf *b, const cJSON *bundle)
{
    const cJSON *tool = rl_json_get(bundle, "tool");
    const cJSON *lc = rl_json_get(bundle, "llama_cpp");
    rl_sbuf_printf(b, "\n_Measured ");
    rl_md_escape(b, rl_json_get_str(bundle, "created_utc") ? rl_json_get_str(bundle, "created_utc")
                                                           : "(undated)");
    rl_sbuf_printf(b, " with ");
    rl_md_escape(b, rl_json_get_str(tool, "name") ? rl_json_get_str(tool, "name") : "?");
    rl_sbuf_printf(b, " ");
    rl_md_escape(b, rl_json_get_str(tool, "version") ? rl_json_get_str(tool, "version") : "?");
    if (rl_json_get_str(lc, "build_commit")) {
        rl_sbuf_printf(b, " and llama.cpp ");
        rl_md_escape(b, rl_json_get_str(lc, "build_commit"));
    }
    const char *cpu = rl_json_get_str(rl_json_get(bundle, "environment"), "cpu");
    if (cpu) {
        rl_sbuf_printf(b, " on ");
        rl_md_escape(b, cpu);
    }
    rl_sbuf_printf(b, "; summary by llama-roofline %s._\n", RL_VERSION);
}

rl_status rl_report_markdown(const cJSON *bundle, char **out, size_t *len, rl_error *err)
{
    *out = NULL;
    *len = 0;
    rl_report_caveats cav;
    rl_status st = rl_report_caveats_get(bundle, &cav, err);
    if (st != RL_OK)
        return st;
    rl_sbuf b = {0};
    md_figures(&b, bundle);
    if (cJSON_IsObject(rl_json_get(bundle, "client")))
        rl_report_client_markdown(&b, bundle, rl_md_escape);
    md_models(&b, bundle);
    md_predictions(&b, bundle);
    md_caveats(&b, &cav);
    md_warnings(&b, bundle);
    md_footer(&b, bundle);
    rl_report_caveats_free(&cav);
    if (b.oom || !b.p) {
        free(b.p);
        return rl_fail(err, RL_EINTERNAL, "report: out of memory");
    }
    *out = b.p;
    *len = b.len;
    return RL_OK;
}

/* ---- files ----------------------------------------------------------------------------- */

rl_status rl_report_write_html(const cJSON *bundle, const rl_report_extra *x, const char *path,
                               rl_error *err)
{
    return rl_html_page_write(bundle, x, path, err);
}

rl_status rl_report_write_markdown(const cJSON *bundle, const char *path, rl_error *err)
{
    char *text;
    size_t len;
    rl_status st = rl_report_markdown(bundle, &text, &len, err);
    if (st != RL_OK)
        return st;
    st = rl_write_output(path, text, len, RL_TTY_TEXT, err);
    free(text);
    return st;
}

char *rl_report_path_beside(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return rl_strdup(RL_REPORT_FILE);
    return rl_asprintf("%.*s/%s", (int)(slash - file), file, RL_REPORT_FILE);
}

/* ---- summary -------------------------------------------------------------------------- */

void rl_report_print_summary(FILE *out, const cJSON *b, const char *bundle_path)
{
    if (rl_report_client_only(b)) {
        char safe[1024], banner[1024];
        if (rl_report_disturbed(b, banner, sizeof banner))
            rl_tty_printf(out, "\nDISTURBED: %s\n", banner);
        rl_report_client_print(out, b);
        rl_tty_printf(out, "\nwrote %s\n", rl_tty_escape(bundle_path, safe, sizeof safe));
        return;
    }
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(b, "analysis");
    const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(an, "verdict");
    const cJSON *fit = cJSON_GetObjectItemCaseSensitive(an, "fit");
    const cJSON *ceil = cJSON_GetObjectItemCaseSensitive(an, "ceiling");
    char safe[1024];
    const char *vt = rl_json_get_str(verdict, "text");
    const char *vl = rl_json_get_str(verdict, "label");
    rl_tty_printf(out, "\n");
    char banner[1024];
    if (rl_report_disturbed(b, banner, sizeof banner))
        rl_tty_printf(out, "DISTURBED: %s\n", rl_tty_escape(banner, safe, sizeof safe));
    bool prov = false;
    rl_json_get_bool(verdict, "provisional", &prov);
    if (vl)
        rl_tty_printf(out, "answer: %s%s\n", prov ? "looks " : "",
                      rl_tty_escape(vl, safe, sizeof safe));
    if (vt)
        rl_tty_printf(out, "  %s\n", rl_tty_escape(vt, safe, sizeof safe));
    else
        rl_tty_printf(out, "answer: no verdict (%s)\n",
                      rl_tty_escape(rl_json_get_str(verdict, "reason")
                                        ? rl_json_get_str(verdict, "reason")
                                        : "see the warnings",
                                    safe, sizeof safe));
    bool avail = true;
    if (rl_json_get_bool(fit, "available", &avail) && avail)
        rl_tty_printf(
            out,
            "effective bandwidth: %.2f GB/s (fit through the origin, R^2 %.4f, %d models, "
            "each at its own best thread count)\n",
            rl_json_num_or(fit, "bw_GBs", 0), rl_json_num_or(fit, "r2", 0),
            (int)rl_json_num_or(fit, "n_points", 0));
    else
        rl_tty_printf(
            out, "effective bandwidth: no fit (%s)\n",
            rl_tty_escape(rl_json_get_str(fit, "reason") ? rl_json_get_str(fit, "reason") : "",
                          safe, sizeof safe));
    if (rl_json_get_bool(ceil, "available", &avail) && avail)
        rl_tty_printf(out, "memory ceiling: %.2f GB/s (%s; a lower bound)\n",
                      rl_json_num_or(ceil, "GBs", 0),
                      rl_json_get_str(ceil, "kind") ? rl_json_get_str(ceil, "kind") : "?");
    const cJSON *knee = cJSON_GetObjectItemCaseSensitive(an, "knee");
    if (rl_json_get_bool(knee, "available", &avail) && avail)
        rl_tty_printf(out, "best thread count: %d (smallest within 2%% of the best decode)\n",
                      (int)rl_json_num_or(knee, "threads", 0));
    rl_tty_printf(out, "\n  %-36s %10s %8s %10s %8s\n", "model", "decode", "threads", "GB/s",
                  "ceiling");
    const cJSON *mm;
    cJSON_ArrayForEach(mm, cJSON_GetObjectItemCaseSensitive(an, "models"))
    {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(mm, "operating_point");
        const cJSON *ut = cJSON_GetObjectItemCaseSensitive(mm, "utilisation");
        const char *name = rl_json_get_str(mm, "name");
        rl_tty_escape(name ? name : "?", safe, 37);
        bool ok = false;
        rl_json_get_bool(mm, "ok", &ok);
        if (!ok) {
            rl_tty_printf(out, "  %-36s %10s\n", safe, "no decode");
            continue;
        }
        char util[32] = "-";
        if (rl_json_get_bool(ut, "available", &avail) && avail)
            rl_snprintf(util, sizeof util, "%.0f%%", rl_json_num_or(ut, "util_pct", 0));
        rl_tty_printf(out, "  %-36s %6.2f t/s %8d %10.2f %8s\n", safe,
                      rl_json_num_or(op, "decode_tok_s", 0), (int)rl_json_num_or(op, "threads", 0),
                      rl_json_num_or(mm, "decode_bw_GBs", 0), util);
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(b, "warnings"))
    {
        const char *t = rl_json_get_str(w, "text");
        if (t)
            rl_tty_printf(out, "warning: %s\n", rl_tty_escape(t, safe, sizeof safe));
    }
    rl_tty_printf(out, "\nwrote %s\n", rl_tty_escape(bundle_path, safe, sizeof safe));
}
