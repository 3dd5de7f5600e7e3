/* SPDX-License-Identifier: MIT */
/* html_page.c: the HTML report, section by section, into the template. See html_page.h.
 * Every string reaches the page through html_doc.h's text nodes; the template's slots are
 * found by id. */
#include "render/html_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "bundle/bundle.h"
#include "render/chart/chart.h"
#include "render/html_client.h"
#include "render/html_advice.h"
#include "render/html_doc.h"
#include "render/html_facts.h"
#include "render/html_predict.h"
#include "render/html_svg.h"
#include "render/report_assets.h"
#include "render/report_text.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

typedef struct {
    rl_html h;
    const cJSON *orig;        /* the bundle as given */
    const cJSON *b;           /* the one shown: orig, or own when orig needed repair */
    cJSON *own;               /* orig's repaired copy (strings not UTF-8), else NULL */
    const rl_report_extra *x; /* computed beforehand (report.h), NULL when nothing was */
    xmlNodePtr root;
    rl_report_caveats cav;
    bool shown[RL_RP_N]; /* places whose caveats have been written */
} page;

static const char *str(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = rl_json_get_str(o, key);
    return s ? s : dflt;
}

static xmlNodePtr slot(page *p, const char *id)
{
    return rl_html_by_id(p->root, id);
}

/* Replace the children of n with text. */
static void set_text(page *p, xmlNodePtr n, const char *text)
{
    if (!n)
        return;
    xmlNodeSetContent(n, NULL);
    rl_html_text(&p->h, n, text);
}

static void fmt(double v, char *buf, size_t cap)
{
    rl_report_fmt_num(v, buf, cap);
}

/* The caveats of a place as <ul class="caveats">, once. */
static void caveats_at(page *p, xmlNodePtr parent, rl_report_place place)
{
    if (place >= RL_RP_N || p->shown[place])
        return;
    p->shown[place] = true;
    xmlNodePtr ul = NULL;
    for (size_t i = 0; i < p->cav.n; i++) {
        if (p->cav.v[i].place != place)
            continue;
        if (!ul)
            ul = rl_html_el(&p->h, parent, "ul", "caveats");
        xmlNodePtr li = rl_html_el_text(&p->h, ul, "li", "caveat", p->cav.v[i].text);
        rl_html_attr(&p->h, li, "data-caveat", p->cav.v[i].code);
    }
}

static void kind_badge(page *p, xmlNodePtr parent, const char *kind)
{
    char cls[64];
    rl_snprintf(cls, sizeof cls, "kind kind-%s", kind);
    rl_html_el_text(&p->h, parent, "span", cls, kind);
}

/* ---- the top --------------------------------------------------------------------------- */

/* A banner of text, class cls, put just above the headline (so it is read first); attr=val
 * names it for tests and styles, and an alert gets role="alert". Made only when needed, so a
 * page without it is the template's, byte for byte. */
static void banner_above_headline(page *p, const char *cls, const char *text, const char *attr,
                                  const char *val, bool alert)
{
    xmlNodePtr h = slot(p, "headline");
    if (!h || !h->parent)
        return;
    xmlNodePtr b = rl_html_el_text(&p->h, h->parent, "p", cls, text);
    if (!b)
        return;
    rl_html_attr(&p->h, b, attr, val);
    if (alert)
        rl_html_attr(&p->h, b, "role", "alert");
    xmlUnlinkNode(b);
    xmlAddPrevSibling(h, b);
}

/* An interrupted run's banner: the answer below it covers only the runs that finished
 * (docs/CLI.md, "Ctrl-C"). */
static void interrupted_banner(page *p)
{
    const char *state = rl_json_get_str(rl_json_get(p->b, "status"), "state");
    if (!state || strcmp(state, "interrupted") != 0)
        return;
    const char *cmd = str(p->b, "command", "run");
    bool resumable = strcmp(cmd, "run") == 0 || strcmp(cmd, "diagnose") == 0;
    char text[512];
    rl_snprintf(text, sizeof text,
                "Interrupted: this run was stopped before it finished, so the answer below comes "
                "only from what was measured until then%s%s%s",
                resumable ? "; llama-roofline " : ".", resumable ? cmd : "",
                resumable ? " --resume -o DIR measures the rest." : "");
    banner_above_headline(p, "caveat banner-interrupted", text, "data-banner", "interrupted",
                          false);
}

/* Measured while disturbed: styled as the warnings are, an alert. */
static void disturbed_banner(page *p)
{
    char text[1024];
    if (rl_report_disturbed(p->b, text, sizeof text))
        banner_above_headline(p, "warning disturbed", text, "id", "disturbed", true);
}

static void top(page *p)
{
    char headline[160], answer[2048];
    rl_report_headline(p->b, headline, sizeof headline);
    rl_report_answer(p->b, answer, sizeof answer);
    char title[256];
    rl_snprintf(title, sizeof title, "%s - llama-roofline report", headline);
    set_text(p, slot(p, "page-title"), title);
    set_text(p, slot(p, "headline"), headline);
    set_text(p, slot(p, "answer"), answer);
    disturbed_banner(p);

    const cJSON *env = rl_json_get(p->b, "environment");
    char kicker[512];
    rl_snprintf(kicker, sizeof kicker, "llama-roofline report \xC2\xB7 %s \xC2\xB7 %s%s%s",
                str(p->b, "command", "?"), str(p->b, "created_utc", "undated"),
                rl_json_get_str(env, "cpu") ? " \xC2\xB7 " : "", str(env, "cpu", ""));
    set_text(p, slot(p, "kicker"), kicker);

    const cJSON *v = rl_json_available(rl_json_get(p->b, "analysis"), "verdict");
    xmlNodePtr vt = slot(p, "verdict-text");
    if (v && rl_json_get_str(v, "text"))
        set_text(p, vt, rl_json_get_str(v, "text"));
    else if (vt) {
        xmlUnlinkNode(vt);
        xmlFreeNode(vt);
    }
    caveats_at(p, slot(p, "top-caveats"), RL_RP_TOP);
    interrupted_banner(p);
}

/* ---- key figures ----------------------------------------------------------------------- */

static void figures(page *p)
{
    xmlNodePtr box = slot(p, "figures");
    rl_report_figure f[RL_REPORT_MAX_FIGURES];
    size_t n = rl_report_figures(p->b, f);
    for (size_t i = 0; i < n; i++) {
        xmlNodePtr card = rl_html_el(&p->h, box, "div", "figure-card");
        rl_html_el_text(&p->h, card, "p", "label", f[i].label);
        xmlNodePtr val = rl_html_el_text(&p->h, card, "p", "value", f[i].value);
        if (*f[i].unit && strcmp(f[i].value, "n/a") != 0) {
            rl_html_text(&p->h, val, " ");
            rl_html_el_text(&p->h, val, "span", "unit", f[i].unit);
        }
        xmlNodePtr meta = rl_html_el(&p->h, card, "p", "meta");
        kind_badge(p, meta, f[i].kind);
        rl_html_el_text(&p->h, card, "p", "note", f[i].note);
        if (f[i].place >= 0)
            caveats_at(p, card, (rl_report_place)f[i].place);
    }
}

/* ---- charts ---------------------------------------------------------------------------- */

static rl_status charts(page *p, rl_error *err)
{
    static const struct {
        rl_html_chart_fn fn;
        const char *what;
        rl_report_place place;
    } list[] = {
        {rl_chart_roofline, "the roofline", RL_RP_ROOFLINE},
        {rl_chart_threads, "the thread sweep", RL_RP_THREADS},
        {rl_chart_long_context, "the long-context falloff", RL_RP_LONG_CONTEXT},
        {rl_chart_composition, "what each file holds", RL_RP_COMPOSITION},
        {rl_chart_membw, "the ceiling sweep", RL_RP_MEMBW},
    };
    xmlNodePtr host = slot(p, "chart-list");
    xmlNodePtr missing = NULL;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        xmlNodePtr fig;
        rl_status st = rl_html_chart_or_missing(&p->h, host, slot(p, "charts-missing"), &missing,
                                                list[i].fn, p->b, list[i].what, &fig, err);
        if (st == RL_NOTHING)
            continue;
        if (st != RL_OK)
            return st;
        caveats_at(p, fig, list[i].place);
    }
    return RL_OK;
}

/* ---- tables ---------------------------------------------------------------------------- */

static void td_num(page *p, xmlNodePtr tr, const char *text)
{
    rl_html_el_text(&p->h, tr, "td", "num", text);
}

static void models_table(page *p)
{
    const cJSON *an = rl_json_get(p->b, "analysis");
    xmlNodePtr host = slot(p, "model-table");
    const cJSON *ms = rl_json_get(an, "models");
    if (cJSON_GetArraySize(ms) == 0) {
        rl_html_el_text(&p->h, host, "p", "missing", "No model in this bundle.");
        return;
    }
    char bytes_h[64];
    rl_snprintf(bytes_h, sizeof bytes_h, "Bytes per token (MB, %s)",
                str(an, "bytes_convention", "resident"));
    const char *cols[] = {"Model",
                          "Label",
                          bytes_h,
                          "Decode (tok/s \xC2\xB1 95% CI)",
                          "Threads",
                          "Knee",
                          "GB/s",
                          "Share of ceiling",
                          "Prefill (tok/s @threads)",
                          "vs fit (tok/s)"};
    const bool numeric[] = {false, false, true, true, true, true, true, true, true, true};
    xmlNodePtr tb = rl_html_table(&p->h, host, NULL, cols, numeric, sizeof cols / sizeof cols[0]);
    const cJSON *m;
    cJSON_ArrayForEach(m, ms)
    {
        char a[48], c[48];
        const char *id = str(m, "id", "");
        const cJSON *bm = rl_bundle_model(p->b, id, NULL);
        xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
        xmlNodePtr name = rl_html_el(&p->h, tr, "td", NULL);
        rl_html_text(&p->h, name, str(m, "name", id));
        bool moe = false, gpu = false, in_fit = false, ok = false;
        rl_json_get_bool(m, "is_moe", &moe);
        rl_json_get_bool(m, "gpu_offload", &gpu);
        rl_json_get_bool(m, "in_fit", &in_fit);
        rl_json_get_bool(m, "ok", &ok);
        char flags[128] = "";
        rl_snprintf(flags, sizeof flags, "%s%s%s", moe ? " MoE" : "", gpu ? " GPU offload" : "",
                    ok && !in_fit ? " not in the fit" : "");
        if (*flags) {
            rl_html_el(&p->h, name, "br", NULL);
            rl_html_el_text(&p->h, name, "span", "flag", flags + 1);
        }
        const cJSON *g = rl_json_get(bm, "gguf");
        char label[160];
        char expl[8];
        bool misleads = rl_report_label_explanation(bm, expl, sizeof expl);
        rl_snprintf(label, sizeof label, "%s", str(g, "label", ""));
        xmlNodePtr ltd = rl_html_el_text(&p->h, tr, "td", NULL, label);
        if (misleads) {
            rl_html_el(&p->h, ltd, "br", NULL);
            rl_html_el_textf(&p->h, ltd, "span", "flag", "%.0f%% on label",
                             rl_json_num_or(rl_json_get(g, "composition"), "on_label_pct", NAN));
        }
        double bpt;
        if (rl_json_get_num(m, "bytes_per_token", &bpt)) {
            fmt(bpt / 1e6, a, sizeof a);
            td_num(p, tr, a);
        } else {
            td_num(p, tr, "n/a");
        }
        if (!ok) {
            xmlNodePtr td =
                rl_html_el_text(&p->h, tr, "td", "missing", "no short-context decode measurement");
            rl_html_attr(&p->h, td, "colspan", "7");
            continue;
        }
        const cJSON *op = rl_json_get(m, "operating_point");
        fmt(rl_json_num_or(op, "decode_tok_s", NAN), a, sizeof a);
        const cJSON *ci = rl_json_get(rl_json_available(op, "samples"), "ci95");
        double lo, hi;
        if (rl_json_get_num(ci, "low", &lo) && rl_json_get_num(ci, "high", &hi)) {
            fmt((hi - lo) / 2, c, sizeof c);
            rl_html_el_textf(&p->h, tr, "td", "num", "%s \xC2\xB1 %s", a, c);
        } else {
            td_num(p, tr, a);
        }
        rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(op, "threads", NAN));
        td_num(p, tr, a);
        const cJSON *knee = rl_json_available(m, "knee");
        rl_snprintf(a, sizeof a, knee ? "%.0f" : "n/a", rl_json_num_or(knee, "threads", NAN));
        td_num(p, tr, a);
        fmt(rl_json_num_or(m, "decode_bw_GBs", NAN), a, sizeof a);
        td_num(p, tr, a);
        const cJSON *u = rl_json_available(m, "utilisation");
        if (u) {
            rl_snprintf(a, sizeof a, "%.0f%%", rl_json_num_or(u, "util_pct", NAN));
            td_num(p, tr, a);
        } else {
            rl_html_el_textf(&p->h, tr, "td", "num", "n/a (%s)",
                             str(rl_json_get(m, "utilisation"), "reason", "unknown"));
        }
        const cJSON *pf = rl_json_available(m, "prefill");
        if (pf) {
            fmt(rl_json_num_or(pf, "tok_s", NAN), a, sizeof a);
            rl_snprintf(c, sizeof c, "%s @%.0f", a, rl_json_num_or(pf, "threads", NAN));
            td_num(p, tr, c);
        } else {
            td_num(p, tr, "n/a");
        }
        const cJSON *res = rl_json_available(m, "fit_residual");
        if (res) {
            fmt(rl_json_num_or(res, "tok_s", NAN), a, sizeof a);
            rl_snprintf(c, sizeof c, "%s%s", rl_json_num_or(res, "tok_s", 0) > 0 ? "+" : "", a);
            td_num(p, tr, c);
        } else {
            td_num(p, tr, "n/a");
        }
    }
}

static void warnings(page *p)
{
    xmlNodePtr host = slot(p, "warning-list");
    const cJSON *ws = rl_json_get(p->b, "warnings");
    if (cJSON_GetArraySize(ws) == 0) {
        rl_html_el_text(&p->h, host, "p", "missing", "No warnings.");
        return;
    }
    const cJSON *w;
    cJSON_ArrayForEach(w, ws)
    {
        xmlNodePtr d = rl_html_el(&p->h, host, "div", "warning");
        rl_html_el_text(&p->h, d, "span", "code", str(w, "code", "warning"));
        rl_html_text(&p->h, d, " ");
        rl_html_text(&p->h, d, str(w, "text", ""));
        const cJSON *ids = rl_json_get(w, "applies_to");
        if (cJSON_GetArraySize(ids) > 0) {
            xmlNodePtr ap = rl_html_el_text(&p->h, d, "span", "flag", " Applies to: ");
            int i = 0;
            const cJSON *id;
            cJSON_ArrayForEach(id, ids)
            {
                if (i++)
                    rl_html_text(&p->h, ap, ", ");
                rl_html_text(&p->h, ap,
                             cJSON_IsString(id) ? rl_report_model_name(p->b, id->valuestring)
                                                : "?");
            }
            rl_html_text(&p->h, ap, ".");
        }
    }
}

static void long_context(page *p)
{
    xmlNodePtr host = slot(p, "long-context-table");
    const cJSON *lc = rl_json_get(rl_json_get(p->b, "analysis"), "long_context");
    if (cJSON_GetArraySize(lc) == 0) {
        rl_html_el_text(&p->h, host, "p", "missing",
                        "Not measured: every decode rate here is at depth 0, an almost empty KV "
                        "cache. run --depth 0,4096,16384 measures how decode slows as the "
                        "cache fills.");
        return;
    }
    const char *cols[] = {"Model",          "Threads",          "Depth (tokens)",
                          "Decode (tok/s)", "% of empty cache", "Bytes-only prediction (%)",
                          "Gap (points)"};
    const bool numeric[] = {false, true, true, true, true, true, true};
    xmlNodePtr tb = rl_html_table(&p->h, host, NULL, cols, numeric, sizeof cols / sizeof cols[0]);
    const cJSON *r;
    cJSON_ArrayForEach(r, lc)
    {
        char a[48];
        xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
        rl_html_el_text(&p->h, tr, "td", NULL, rl_report_model_name(p->b, str(r, "model", "?")));
        rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(r, "threads", NAN));
        td_num(p, tr, a);
        rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(r, "depth", NAN));
        td_num(p, tr, a);
        fmt(rl_json_num_or(r, "decode_tok_s", NAN), a, sizeof a);
        td_num(p, tr, a);
        const cJSON *pe = rl_json_available(r, "pct_of_empty_cache");
        const cJSON *pr = rl_json_available(r, "bytes_only_prediction");
        rl_snprintf(a, sizeof a, pe ? "%.1f" : "n/a", rl_json_num_or(pe, "pct", NAN));
        td_num(p, tr, a);
        rl_snprintf(a, sizeof a, pr ? "%.1f" : "n/a", rl_json_num_or(pr, "pct", NAN));
        td_num(p, tr, a);
        if (pe && pr)
            rl_snprintf(a, sizeof a, "%+.1f",
                        rl_json_num_or(pe, "pct", NAN) - rl_json_num_or(pr, "pct", NAN));
        else
            rl_snprintf(a, sizeof a, "n/a");
        td_num(p, tr, a);
    }
    caveats_at(p, slot(p, "long-context"), RL_RP_LONG_CONTEXT);
}

/* ---- environment and provenance -------------------------------------------------------- */

static void environment(page *p)
{
    xmlNodePtr host = slot(p, "environment-list");
    const cJSON *env = rl_json_get(p->b, "environment");
    if (!cJSON_IsObject(env)) {
        rl_html_el_text(&p->h, host, "p", "missing", "The bundle does not describe the machine.");
        return;
    }
    rl_html_facts(&p->h, host, env, NULL);
}

static void provenance(page *p)
{
    xmlNodePtr host = slot(p, "provenance-list");
    xmlNodePtr dl = rl_html_el(&p->h, host, "dl", "facts");
    rl_html_el_text(&p->h, dl, "dt", NULL, "Command");
    char *line = rl_report_shell_line(rl_json_get(p->b, "argv"), "llama-roofline");
    if (!line) {
        p->h.oom = true;
        return;
    }
    rl_html_el_text(&p->h, rl_html_el(&p->h, dl, "dd", NULL), "code", "cmd", line);
    free(line);
    const cJSON *tool = rl_json_get(p->b, "tool");
    rl_html_el_text(&p->h, dl, "dt", NULL, "Measured with");
    rl_html_el_textf(&p->h, dl, "dd", NULL, "%s %s (bundle schema version %.0f)",
                     str(tool, "name", "?"), str(tool, "version", "?"),
                     rl_json_num_or(p->b, "schema_version", NAN));
    rl_html_el_text(&p->h, dl, "dt", NULL, "Started / last written (UTC)");
    rl_html_el_textf(&p->h, dl, "dd", NULL, "%s / %s", str(p->b, "created_utc", "?"),
                     str(p->b, "updated_utc", "?"));
    const cJSON *status = rl_json_get(p->b, "status");
    rl_html_el_text(&p->h, dl, "dt", NULL, "State");
    rl_html_el_textf(&p->h, dl, "dd", NULL, "%s%s%s%s", str(status, "state", "?"),
                     rl_json_get_str(status, "reason") ? " (" : "", str(status, "reason", ""),
                     rl_json_get_str(status, "reason") ? ")" : "");
    const cJSON *src = rl_json_get(p->b, "source");
    if (src) {
        rl_html_el_text(&p->h, dl, "dt", NULL, "Data");
        xmlNodePtr dd = rl_html_el(&p->h, dl, "dd", NULL);
        const char *k = str(src, "kind", "?");
        if (strcmp(k, "measured") == 0 && cJSON_GetArraySize(src) == 1)
            rl_html_text(&p->h, dd, "measured by llama-roofline on the machine described above");
        else
            rl_html_fact_value(&p->h, dd, "source", src);
    }

    const char *const skip_kind[] = {"kind", NULL};
    if (cJSON_IsObject(rl_json_get(p->b, "llama_cpp"))) {
        rl_html_el_text(&p->h, host, "h3", NULL, "llama.cpp build");
        rl_html_facts(&p->h, host, rl_json_get(p->b, "llama_cpp"), skip_kind);
    }
    if (cJSON_IsObject(rl_json_get(p->b, "settings"))) {
        rl_html_el_text(&p->h, host, "h3", NULL, "Settings");
        rl_html_facts(&p->h, host, rl_json_get(p->b, "settings"), skip_kind);
    }
    const cJSON *mb = rl_json_get(p->b, "membw");
    if (cJSON_IsObject(mb)) {
        rl_html_el_text(&p->h, host, "h3", NULL, "Memory ceiling");
        const char *const skip_mb[] = {"runs", "units", NULL};
        rl_html_facts(&p->h, host, mb, skip_mb);
    }
    caveats_at(p, host, RL_RP_MEMBW);

    /* every llama-bench invocation */
    xmlNodePtr runs_host = slot(p, "run-list");
    size_t n = 0;
    const cJSON *m, *r;
    cJSON_ArrayForEach(m, rl_json_get(p->b, "models")) n +=
        (size_t)cJSON_GetArraySize(rl_json_get(m, "runs"));
    if (n == 0)
        return;
    xmlNodePtr det = rl_html_el(&p->h, runs_host, "details", "data");
    rl_html_el_textf(&p->h, det, "summary", NULL, "Every llama-bench invocation (%zu)", n);
    const char *cols[] = {"Model",          "Threads",         "Depth",  "Status",
                          "Decode (tok/s)", "Prefill (tok/s)", "Command"};
    const bool numeric[] = {false, true, true, false, true, true, false};
    xmlNodePtr tb = rl_html_table(&p->h, det, NULL, cols, numeric, sizeof cols / sizeof cols[0]);
    cJSON_ArrayForEach(m, rl_json_get(p->b, "models"))
    {
        cJSON_ArrayForEach(r, rl_json_get(m, "runs"))
        {
            char a[48];
            xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
            rl_html_el_text(&p->h, tr, "td", NULL, str(m, "name", str(m, "id", "?")));
            rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(r, "threads", NAN));
            td_num(p, tr, a);
            rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(r, "depth", NAN));
            td_num(p, tr, a);
            xmlNodePtr st = rl_html_el_text(&p->h, tr, "td", NULL, str(r, "status", "?"));
            if (rl_json_get_str(r, "error")) {
                rl_html_text(&p->h, st, ": ");
                rl_html_text(&p->h, st, rl_json_get_str(r, "error"));
            }
            const cJSON *d = rl_json_get(rl_json_get(r, "decode"), "stats");
            const cJSON *pf = rl_json_get(rl_json_get(r, "prefill"), "stats");
            double v;
            if (d && rl_json_get_num(d, "mean", &v))
                fmt(v, a, sizeof a);
            else
                rl_snprintf(a, sizeof a, "n/a");
            td_num(p, tr, a);
            if (pf && rl_json_get_num(pf, "mean", &v))
                fmt(v, a, sizeof a);
            else
                rl_snprintf(a, sizeof a, "n/a");
            td_num(p, tr, a);
            char *cmd = rl_report_shell_line(rl_json_get(r, "argv"), NULL);
            if (!cmd) {
                p->h.oom = true;
                return;
            }
            rl_html_el_text(&p->h, rl_html_el(&p->h, tr, "td", NULL), "code", NULL, cmd);
            free(cmd);
        }
    }
}

/* ---- assembly -------------------------------------------------------------------------- */

static rl_status fill(page *p, rl_error *err)
{
    xmlNodePtr style = slot(p, "style");
    if (style)
        xmlNodeAddContent(style, (const xmlChar *)rl_asset_report_css);
    xmlNodePtr gen = slot(p, "generator");
    rl_html_attr(&p->h, gen, "content", "llama-roofline " RL_VERSION);

    top(p);
    rl_html_advice(&p->h, p->root, p->b);
    figures(p);
    rl_status st = rl_html_client(&p->h, p->root, p->b, err);
    if (st != RL_OK)
        return st;
    if (!rl_report_client_only(p->b)) { /* its roofline sections are gone */
        st = charts(p, err);
        if (st != RL_OK)
            return st;
        models_table(p);
        rl_html_predict(&p->h, p->root, p->orig, p->b, p->x ? p->x->expect : NULL);
        long_context(p);
    }
    /* caveats whose chart was not drawn go with the per-model table */
    for (int pl = 0; pl < RL_RP_N; pl++)
        caveats_at(p, slot(p, "model-notes"), (rl_report_place)pl);
    warnings(p);
    environment(p);
    provenance(p);

    const cJSON *tool = rl_json_get(p->b, "tool");
    char foot[256];
    rl_snprintf(foot, sizeof foot,
                "Made by llama-roofline %s from a bundle written by %s %s. The page runs no "
                "script and loads nothing from the network.",
                RL_VERSION, str(tool, "name", "?"), str(tool, "version", "?"));
    set_text(p, slot(p, "footer"), foot);

    return rl_html_embed_json(&p->h, slot(p, "bundle"), p->b, "report", err);
}

/* The page built (p.h.doc, its bundle deferred: written by rl_html_emit) into p; the tree is
 * repaired on a copy (p->own) only when a string of the bundle is not UTF-8. */
static rl_status build(page *p, const cJSON *bundle, const rl_report_extra *x, rl_error *err)
{
    memset(p, 0, sizeof *p);
    p->orig = bundle;
    p->x = x;
    p->h.defer = true;
    if (rl_html_json_is_utf8(bundle)) {
        p->b = bundle;
    } else {
        p->own = cJSON_Duplicate(bundle, 1);
        if (!p->own || !rl_html_repair_json(p->own))
            return rl_fail(err, RL_EINTERNAL, "report: out of memory");
        p->b = p->own;
    }
    rl_status st = rl_report_caveats_get(p->b, &p->cav, err);
    if (st != RL_OK)
        return st;
    st = rl_html_load_template(&p->h, rl_asset_report_xml, rl_asset_report_xml_len, "report.xml",
                               "report", &p->root, err);
    return st == RL_OK ? fill(p, err) : st;
}

static void page_free(page *p)
{
    xmlFreeDoc(p->h.doc);
    rl_report_caveats_free(&p->cav);
    cJSON_Delete(p->own);
}

rl_status rl_html_page(const cJSON *bundle, const rl_report_extra *x, char **out, size_t *len,
                       rl_error *err)
{
    *out = NULL;
    *len = 0;
    page p;
    rl_status st = build(&p, bundle, x, err);
    if (st == RL_OK)
        st = rl_html_to_text(&p.h, out, len, err);
    page_free(&p);
    return st;
}

rl_status rl_html_page_write(const cJSON *bundle, const rl_report_extra *x, const char *path,
                             rl_error *err)
{
    page p;
    rl_status st = build(&p, bundle, x, err);
    if (st == RL_OK)
        st = rl_html_write(&p.h, path, err);
    page_free(&p);
    return st;
}
