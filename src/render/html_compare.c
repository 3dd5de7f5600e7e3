/* SPDX-License-Identifier: MIT */
/* html_compare.c: the comparison page, section by section, into templates/compare.xml. See
 * html_compare.h. Every string reaches the page as a text node or an attribute set through
 * libxml2 (html_doc.h). */
#include "render/html_client.h"
#include "render/html_compare.h"
#include "render/html_compare_fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "render/chart/chart.h"
#include "render/chart/chart_int.h"
#include "render/chart/compare_chart.h"
#include "render/compare_text.h"
#include "render/html_doc.h"
#include "render/html_svg.h"
#include "render/report_assets.h"
#include "render/report_text.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

typedef struct {
    rl_html h;
    const rl_cmp *c;
    xmlNodePtr root;
    bool all;
} cpage;

static xmlNodePtr slot(cpage *p, const char *id)
{
    return rl_html_by_id(p->root, id);
}

static void set_text(cpage *p, const char *id, const char *text)
{
    xmlNodePtr n = slot(p, id);
    if (!n)
        return;
    xmlNodeSetContent(n, NULL);
    rl_html_text(&p->h, n, text);
}

static void drop(xmlNodePtr n)
{
    if (n) {
        xmlUnlinkNode(n);
        xmlFreeNode(n);
    }
}

/* ---- top --------------------------------------------------------------------------------- */

static void top(cpage *p)
{
    const rl_cmp *c = p->c;
    rl_cmp_counts k = rl_cmp_count(c);
    char h[256], a[2048], t[1024];
    if (k.faster + k.slower + k.noise + k.untested == 0)
        rl_snprintf(h, sizeof h, "%zu inputs compared: no measurement in common with the baseline",
                    c->n_inputs);
    else
        rl_snprintf(h, sizeof h, "%zu inputs compared: %zu faster, %zu slower, %zu within noise",
                    c->n_inputs, k.faster, k.slower, k.noise);
    set_text(p, "headline", h);
    rl_snprintf(t, sizeof t, "%s - llama-roofline comparison", h);
    set_text(p, "page-title", t);
    rl_snprintf(a, sizeof a,
                "Baseline: [%zu] %s. %zu rows compared; %zu cells not tested (no or one sample), "
                "%zu not in both an input and the baseline.%s",
                c->baseline + 1, c->inputs[c->baseline].label, c->n_rows, k.untested, k.missing,
                c->suite_mismatch || c->rows_not_everywhere
                    ? " The suites differ: see what differs below."
                    : "");
    if (k.disturbed) { /* measured while disturbed: said above the tables, never plain */
        char d[1536];
        rl_cmp_disturbed_sentence(c, &k, d, sizeof d);
        size_t n = strlen(a);
        rl_snprintf(a + n, sizeof a - n, " %s", d);
    }
    set_text(p, "answer", a);
    rl_cmp_test_sentence(c, t, sizeof t);
    set_text(p, "test", t);
}

/* ---- fleet ------------------------------------------------------------------------------- */

typedef struct {
    size_t i;
    double bw, ceil, pct;
} fleet_row;

static int cmp_fleet(const void *a, const void *b)
{
    const fleet_row *x = a, *y = b;
    bool hx = isfinite(x->bw), hy = isfinite(y->bw);
    if (hx != hy)
        return hx ? -1 : 1;
    if (hx && x->bw != y->bw)
        return x->bw > y->bw ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void fleet(cpage *p)
{
    const rl_cmp *c = p->c;
    if (c->n_inputs < RL_CMP_FLEET_MIN) {
        drop(slot(p, "fleet"));
        return;
    }
    fleet_row *rows = rl_calloc(c->n_inputs, sizeof *rows);
    if (!rows) {
        p->h.oom = true;
        return;
    }
    for (size_t i = 0; i < c->n_inputs; i++) {
        rows[i].i = i;
        rl_html_cmp_input_figures(c->inputs[i].bundle, &rows[i].bw, &rows[i].ceil);
        rows[i].pct = 100 * rows[i].bw / rows[i].ceil;
    }
    qsort(rows, c->n_inputs, sizeof *rows, cmp_fleet);
    size_t no_fit = 0;
    for (size_t i = 0; i < c->n_inputs; i++)
        no_fit += !isfinite(rows[i].bw);
    if (no_fit)
        rl_html_el_textf(&p->h, slot(p, "fleet-table"), "p", "lead",
                         "%zu of %zu inputs have no roofline fit (client bundles, or too few "
                         "models measured): they rank last with n/a.",
                         no_fit, c->n_inputs);
    const char *cols[] = {"Rank",           "Input",          "CPU",
                          "Effective GB/s", "Ceiling (GB/s)", "Share of ceiling"};
    xmlNodePtr tb = rl_html_cmp_table(&p->h, slot(p, "fleet-table"), cols, 6, 3);
    for (size_t r = 0; r < c->n_inputs; r++) {
        const cJSON *b = c->inputs[rows[r].i].bundle;
        char a[48];
        xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
        rl_html_el_textf(&p->h, tr, "td", NULL, "%zu", r + 1);
        rl_html_cmp_input_link(&p->h, rl_html_el(&p->h, tr, "td", NULL), p->c, rows[r].i);
        const char *cpu = rl_json_get_str(rl_json_get(b, "environment"), "cpu");
        rl_html_el_text(&p->h, tr, "td", NULL, cpu ? cpu : "unknown");
        rl_report_fmt_num(rows[r].bw, a, sizeof a);
        rl_html_el_text(&p->h, tr, "td", "num", a);
        rl_report_fmt_num(rows[r].ceil, a, sizeof a);
        rl_html_el_text(&p->h, tr, "td", "num", a);
        if (isfinite(rows[r].pct))
            rl_html_el_textf(&p->h, tr, "td", "num", "%.0f%%", rows[r].pct);
        else
            rl_html_el_text(&p->h, tr, "td", "num", "n/a");
    }
    free(rows);
}

/* ---- warnings ---------------------------------------------------------------------------- */

static void warnings(cpage *p)
{
    const rl_cmp *c = p->c;
    xmlNodePtr host = slot(p, "warning-list");
    bool any = false;
    for (size_t f = 0; f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        if (!fa->differs)
            continue;
        any = true;
        xmlNodePtr d = rl_html_el(&p->h, host, "div", "warning");
        rl_html_attr(&p->h, d, "data-fact", fa->label);
        rl_html_el_text(&p->h, d, "span", "code", fa->suite ? "suite" : "environment");
        rl_html_textf(&p->h, d, " %s differs", fa->label);
        if (c->n_inputs <= 6) {
            rl_html_text(&p->h, d, ": ");
            for (size_t i = 0; i < c->n_inputs; i++)
                rl_html_textf(&p->h, d, "%s[%zu] %s", i ? "; " : "", i + 1, fa->values[i]);
        } else {
            rl_html_text(&p->h, d, " between the inputs (the environment table lists each).");
        }
    }
    if (c->sections_differ) {
        any = true;
        xmlNodePtr d = rl_html_el(&p->h, host, "div", "warning");
        rl_html_attr(&p->h, d, "data-note", "sections");
        rl_html_el_text(&p->h, d, "span", "code", "note");
        rl_html_text(&p->h, d, " The inputs hold different sections (");
        for (size_t i = 0; i < c->n_inputs && i < 6; i++) {
            char sec[128];
            rl_cmp_sections(c->inputs[i].bundle, sec, sizeof sec);
            rl_html_textf(&p->h, d, "%s[%zu] %s", i ? "; " : "", i + 1, sec);
        }
        rl_html_textf(&p->h, d, "%s): a section's rows compare only between inputs that hold it.",
                      c->n_inputs > 6 ? "; ..." : "");
    }
    if (c->rows_not_everywhere) {
        any = true;
        xmlNodePtr d = rl_html_el(&p->h, host, "div", "warning");
        rl_html_el_text(&p->h, d, "span", "code", "suite");
        rl_html_textf(&p->h, d,
                      " %zu of %zu rows are not in every input (other models or settings).",
                      c->rows_not_everywhere, c->n_rows);
    }
    if (!any)
        rl_html_el_text(&p->h, host, "p", "missing",
                        "Nothing: the same machine facts, settings and models in every input.");
}

/* ---- charts ------------------------------------------------------------------------------ */

static rl_status add_chart(cpage *p, xmlNodePtr host, rl_chart *ch, rl_error *err)
{
    xmlNodePtr fig = NULL;
    rl_status st = rl_html_add_chart(&p->h, host, ch, &fig, err);
    rl_chart_free(ch);
    return st;
}

/* Input i's own chart made by fn (nothing when it has none: *added false), its id made unique
 * between the inputs ("<prefix or its id>-<i+1>") and its caption naming the input. */
static rl_status input_chart(cpage *p, xmlNodePtr host, size_t i,
                             rl_status (*fn)(const cJSON *, rl_chart *, rl_error *),
                             const char *prefix, bool *added, rl_error *err)
{
    rl_chart ch;
    memset(&ch, 0, sizeof ch);
    rl_error e = {RL_OK, ""};
    *added = false;
    rl_status st = fn(p->c->inputs[i].bundle, &ch, &e);
    if (st == RL_NOTHING)
        return RL_OK;
    if (st != RL_OK) {
        *err = e;
        return st;
    }
    char *id = rl_asprintf("%s-%zu", prefix ? prefix : (ch.id ? ch.id : "chart"), i + 1);
    char *title =
        rl_asprintf("[%zu] %s: %s", i + 1, p->c->inputs[i].label, ch.title ? ch.title : "");
    if (!id || !title) {
        free(id);
        free(title);
        rl_chart_free(&ch);
        return rl_fail(err, RL_EINTERNAL, "compare: out of memory");
    }
    free(ch.id);
    ch.id = id;
    free(ch.title);
    ch.title = title;
    *added = true;
    return add_chart(p, host, &ch, err);
}

static rl_status charts(cpage *p, rl_error *err)
{
    rl_chart ch;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_chart_compare_roofline(p->c, &ch, &e);
    size_t with_runs = 0;
    for (size_t i = 0; i < p->c->n_inputs; i++)
        with_runs += cJSON_IsArray(rl_json_get(p->c->inputs[i].bundle, "models")) &&
                     cJSON_GetArraySize(rl_json_get(p->c->inputs[i].bundle, "models")) > 0;
    if (st == RL_NOTHING && with_runs == 0) {
        rl_html_el_text(&p->h, slot(p, "chart-list"), "p", "missing",
                        "No roofline: no input holds llama-bench runs (a client bundle measures "
                        "a served model from outside: it has no models, fit or ceiling).");
    } else if (st == RL_NOTHING) {
        rl_html_el_textf(&p->h, slot(p, "chart-list"), "p", "missing", "No roofline: %s.", e.msg);
    } else if (st != RL_OK) {
        *err = e;
        return st;
    } else {
        st = add_chart(p, slot(p, "chart-list"), &ch, err);
        if (st != RL_OK)
            return st;
    }
    /* long context: each input's own chart, side by side */
    xmlNodePtr lc = slot(p, "long-context-list");
    size_t shown = 0;
    for (size_t i = 0; i < p->c->n_inputs && shown < 48; i++) {
        bool added = false;
        st = input_chart(p, lc, i, rl_chart_long_context, "long-context", &added, err);
        if (st != RL_OK)
            return st;
        shown += added;
    }
    /* the streaming client: each input's TTFT and throughput charts, side by side */
    xmlNodePtr cl = slot(p, "client-list");
    size_t with_client = 0;
    static rl_status (*const client_charts[])(const cJSON *, rl_chart *, rl_error *) = {
        rl_chart_client_ttft, rl_chart_client_throughput};
    for (size_t i = 0; i < p->c->n_inputs && with_client < 24; i++) {
        if (!cJSON_IsObject(rl_json_get(p->c->inputs[i].bundle, "client")))
            continue;
        with_client++;
        for (size_t k = 0; k < 2; k++) {
            bool added = false;
            st = input_chart(p, cl, i, client_charts[k], NULL, &added, err);
            if (st != RL_OK)
                return st;
        }
    }
    if (with_client == 0)
        drop(slot(p, "client"));
    if (shown == 0 && with_runs == 0)
        rl_html_el_text(&p->h, lc, "p", "missing",
                        "No long-context curves: no input holds llama-bench runs.");
    else if (shown == 0)
        rl_html_el_text(&p->h, lc, "p", "missing",
                        "No input measured decode with a filled KV cache (run --depth).");
    return RL_OK;
}

/* ---- verdicts ---------------------------------------------------------------------------- */

static const char *verdict_class(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_FASTER: return "verdict verdict-faster";
    case RL_CMP_SLOWER: return "verdict verdict-slower";
    case RL_CMP_NOISE: return "verdict verdict-noise";
    default: return "verdict verdict-untested";
    }
}

static void group_table(cpage *p, xmlNodePtr host, const char *group, size_t *hidden)
{
    const rl_cmp *c = p->c;
    const rl_cmp_row *first = rl_cmp_group_first(c, group);
    if (!first)
        return;
    xmlNodePtr h3 = rl_html_el_text(&p->h, host, "h3", NULL, group);
    rl_html_attr(&p->h, h3, "data-group", group);
    bool show[RL_CMP_MAX_KEYS];
    const char *cols[RL_CMP_MAX_KEYS + 9];
    size_t nc = 0;
    cols[nc++] = "Metric (kind)";
    cols[nc++] = strcmp(group, RL_CMP_GROUP_CLIENT) == 0 ? "Model or command" : "Model";
    rl_sbuf same = {0};
    for (size_t k = 0; k < first->n_keys; k++) {
        show[k] = p->all || rl_cmp_key_varies(c, group, first->key_names[k]);
        if (show[k])
            cols[nc++] = first->key_names[k];
        else
            rl_sbuf_printf(&same, "%s%s %s", same.len ? ", " : "", first->key_names[k],
                           first->key_values[k]);
    }
    size_t num_from = nc;
    char base_h[128], val_h[64];
    if (first->units_vary) {
        rl_snprintf(base_h, sizeof base_h, "Baseline [%zu] (\xC2\xB1 95%% CI)", c->baseline + 1);
        rl_snprintf(val_h, sizeof val_h, "Value");
    } else {
        rl_snprintf(base_h, sizeof base_h, "Baseline [%zu] (%s \xC2\xB1 95%% CI)", c->baseline + 1,
                    first->unit);
        rl_snprintf(val_h, sizeof val_h, "Value (%s)", first->unit);
    }
    /* the verdict where the eye goes first: right after what the row is; then what it rests
     * on (the page must fit 1280 px and paper: styles/compare.css wraps the rest) */
    cols[nc++] = "Input";
    cols[nc++] = "Verdict";
    cols[nc++] = "Ratio";
    cols[nc++] = "Delta";
    cols[nc++] = base_h;
    cols[nc++] = val_h;
    bool dcol = rl_cmp_group_disturbed(c, group);
    if (dcol)
        cols[nc++] = "Disturbed";
    char *s = rl_sbuf_take(&same);
    if (s && *s)
        rl_html_el_textf(&p->h, host, "p", "lead", "Same in every row: %s.", s);
    free(s);
    const char *note = rl_cmp_group_note(group);
    if (note)
        rl_html_el_text(&p->h, host, "p", "lead", note);
    xmlNodePtr tb = NULL;
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        if (strcmp(row->group, group) != 0)
            continue;
        for (size_t i = 0; i < c->n_inputs; i++) {
            if (!rl_cmp_listed(c, r, i, p->all, hidden))
                continue;
            const rl_cmp_cell *x = &row->cells[i], *b = &row->cells[c->baseline];
            char a[160];
            if (!tb)
                tb = rl_html_cmp_table(&p->h, host, cols, nc, num_from + 2);
            xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
            rl_html_attr(&p->h, tr, "data-verdict", rl_cmp_verdict_word(x->verdict));
            if (x->suspect)
                rl_html_attr(&p->h, tr, "data-disturbed", "true");
            if (row->kind)
                rl_html_attr(&p->h, tr, "data-kind", row->kind);
            rl_cmp_fmt_metric(row, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", NULL, a);
            rl_html_el_text(&p->h, tr, "td", NULL, row->subject);
            for (size_t k = 0; k < first->n_keys; k++)
                if (show[k])
                    rl_html_el_text(&p->h, tr, "td", "num",
                                    k < row->n_keys ? row->key_values[k] : "");
            rl_html_cmp_input_link(&p->h, rl_html_el(&p->h, tr, "td", NULL), p->c, i);
            rl_cmp_fmt_verdict(x, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", verdict_class(x->verdict), a);
            rl_cmp_fmt_ratio(x, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
            rl_cmp_fmt_delta(x, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
            rl_cmp_fmt_value(b, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
            rl_cmp_fmt_value(x, a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
            if (dcol) {
                rl_cmp_fmt_disturbed(c, r, i, a, sizeof a);
                rl_html_el_text(&p->h, tr, "td", x->suspect ? "disturbed" : NULL, a);
            }
        }
    }
    if (!tb)
        rl_html_el_text(&p->h, host, "p", "missing",
                        "No row of this group is in both the baseline and another input.");
}

static void verdicts(cpage *p)
{
    const rl_cmp *c = p->c;
    xmlNodePtr host = slot(p, "verdict-tables");
    if (c->n_inputs >= RL_CMP_SUMMARY_MIN) {
        rl_html_cmp_fleet_verdicts(&p->h, host, c, p->all);
        return;
    }
    size_t hidden = 0;
    for (size_t r = 0; r < c->n_rows; r++)
        if (rl_cmp_group_starts(c, r))
            group_table(p, host, c->rows[r].group, &hidden);
    if (c->n_rows == 0)
        rl_html_el_text(&p->h, host, "p", "missing", "No input has a measured rate.");
    if (hidden)
        rl_html_el_textf(&p->h, host, "p", "missing",
                         "%zu rows present on one side only are not listed (compare "
                         "--all-columns lists them).",
                         hidden);
}

/* ---- environment and inputs -------------------------------------------------------------- */

static void environment(cpage *p)
{
    const rl_cmp *c = p->c;
    xmlNodePtr host = slot(p, "environment-table");
    if (c->n_inputs >= RL_CMP_SUMMARY_MIN) {
        rl_html_cmp_fleet_environment(&p->h, host, c, p->all);
        return;
    }
    size_t nc = c->n_inputs + 1;
    const char **cols = rl_calloc(nc, sizeof *cols);
    char **heads = rl_calloc(nc, sizeof *heads);
    if (!cols || !heads) {
        free(cols);
        free(heads);
        p->h.oom = true;
        return;
    }
    cols[0] = "Fact";
    for (size_t i = 0; i < c->n_inputs; i++) {
        heads[i] = rl_asprintf("[%zu] %s%s", i + 1, c->inputs[i].label,
                               i == c->baseline ? " (baseline)" : "");
        cols[i + 1] = heads[i] ? heads[i] : "?";
    }
    size_t shown = 0;
    xmlNodePtr tb = NULL;
    for (size_t f = 0; f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        if (!fa->differs && !p->all)
            continue;
        if (!tb)
            tb = rl_html_cmp_table(&p->h, host, cols, nc, nc);
        xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", fa->differs ? "differs" : NULL);
        xmlNodePtr th = rl_html_el_text(&p->h, tr, "th", NULL, fa->label);
        rl_html_attr(&p->h, th, "scope", "row");
        if (fa->differs)
            rl_html_el_text(&p->h, th, "span", "flag",
                            fa->suite ? " (suite: differs)" : " (differs)");
        for (size_t i = 0; i < c->n_inputs; i++)
            rl_html_el_text(&p->h, tr, "td", NULL, fa->values[i]);
        shown++;
    }
    if (!p->all)
        rl_html_el_textf(&p->h, host, "p", "lead",
                         "%zu facts differ between the inputs and are listed; %zu more are the "
                         "same everywhere (compare --all-columns lists every fact).",
                         shown, c->n_facts - shown);
    for (size_t i = 0; i < c->n_inputs; i++)
        free(heads[i]);
    free(heads);
    free(cols);
}

static void inputs(cpage *p)
{
    const rl_cmp *c = p->c;
    xmlNodePtr host = slot(p, "input-list");
    if (c->n_inputs >= RL_CMP_SUMMARY_MIN) {
        rl_html_cmp_fleet_inputs(&p->h, host, c);
        return;
    }
    for (size_t i = 0; i < c->n_inputs; i++) {
        const cJSON *b = c->inputs[i].bundle;
        char id[32], a[64], g[64];
        rl_snprintf(id, sizeof id, "input-%zu", i + 1);
        xmlNodePtr sec = rl_html_el(&p->h, host, "section", "input");
        rl_html_attr(&p->h, sec, "id", id);
        rl_html_el_textf(&p->h, sec, "h3", NULL, "[%zu] %s%s", i + 1, c->inputs[i].label,
                         i == c->baseline ? " (baseline)" : "");
        xmlNodePtr dl = rl_html_el(&p->h, sec, "dl", "facts");
        rl_html_el_text(&p->h, dl, "dt", NULL, "File");
        rl_html_el_text(&p->h, rl_html_el(&p->h, dl, "dd", NULL), "code", NULL, c->inputs[i].path);
        const cJSON *env = rl_json_get(b, "environment");
        rl_html_el_text(&p->h, dl, "dt", NULL, "CPU");
        const char *cpu = rl_json_get_str(env, "cpu");
        rl_html_el_text(&p->h, dl, "dd", NULL, cpu ? cpu : "unknown");
        rl_html_el_text(&p->h, dl, "dt", NULL, "Command, written");
        const char *cmd = rl_json_get_str(b, "command"), *utc = rl_json_get_str(b, "updated_utc");
        rl_html_el_textf(&p->h, dl, "dd", NULL, "%s, %s", cmd ? cmd : "?", utc ? utc : "?");
        char holds[128];
        rl_cmp_sections(b, holds, sizeof holds);
        rl_html_el_text(&p->h, dl, "dt", NULL, "Holds");
        rl_html_el_text(&p->h, dl, "dd", NULL, holds);
        const cJSON *drv = rl_json_get(rl_json_get(b, "client"), "driver");
        if (drv) {
            const char *type = rl_json_get_str(drv, "type");
            const char *what =
                rl_json_get_str(drv, type && strcmp(type, "command") == 0 ? "command" : "url");
            const char *model = rl_json_get_str(drv, "model");
            rl_html_el_text(&p->h, dl, "dt", NULL, "Streaming client");
            rl_html_el_textf(&p->h, dl, "dd", NULL, "%s %s%s%s, %d operating points",
                             type ? type : "?", what ? what : "?", model ? ", model " : "",
                             model ? model : "",
                             cJSON_GetArraySize(rl_json_get(rl_json_get(b, "client"), "points")));
            rl_html_client_labels(&p->h, dl, rl_json_get(rl_json_get(b, "client"), "settings"));
        }
        if (!rl_json_get(b, "models"))
            continue;
        double bw, ceil;
        rl_html_cmp_input_figures(b, &bw, &ceil);
        rl_report_fmt_num(bw, a, sizeof a);
        rl_report_fmt_num(ceil, g, sizeof g);
        rl_html_el_text(&p->h, dl, "dt", NULL, "Effective bandwidth (fit) / ceiling");
        rl_html_el_textf(&p->h, dl, "dd", NULL, "%s GB/s / %s GB/s", a, g);
        const cJSON *v = rl_json_available(rl_json_get(b, "analysis"), "verdict");
        const char *label = rl_json_get_str(v, "label");
        rl_html_el_text(&p->h, dl, "dt", NULL, "Verdict");
        rl_html_el_text(&p->h, dl, "dd", NULL, label ? label : "none");
        const char *cols[] = {"Model", "Label", "Operating point (tok/s)", "Threads", "GB/s"};
        xmlNodePtr tb = NULL;
        const cJSON *am;
        cJSON_ArrayForEach(am, rl_json_get(rl_json_get(b, "analysis"), "models"))
        {
            const cJSON *op = rl_json_available(am, "operating_point");
            if (!op)
                continue;
            if (!tb)
                tb = rl_html_cmp_table(&p->h, sec, cols, 5, 2);
            xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
            const char *nm = rl_json_get_str(am, "name"), *mid0 = rl_json_get_str(am, "id");
            rl_html_el_text(&p->h, tr, "td", NULL, nm ? nm : "?");
            const cJSON *model = NULL, *m;
            cJSON_ArrayForEach(m, rl_json_get(b, "models"))
            {
                const char *mid = rl_json_get_str(m, "id");
                if (!model && mid0 && mid && strcmp(mid0, mid) == 0)
                    model = m;
            }
            const char *lab = rl_json_get_str(rl_json_get(model, "gguf"), "label");
            rl_html_el_text(&p->h, tr, "td", NULL, lab ? lab : "");
            rl_report_fmt_num(rl_json_num_or(op, "decode_tok_s", NAN), a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
            rl_snprintf(a, sizeof a, "%.0f", rl_json_num_or(op, "threads", NAN));
            rl_html_el_text(&p->h, tr, "td", "num", a);
            rl_report_fmt_num(rl_json_num_or(am, "decode_bw_GBs", NAN), a, sizeof a);
            rl_html_el_text(&p->h, tr, "td", "num", a);
        }
    }
}

/* ---- assembly ---------------------------------------------------------------------------- */

static rl_status fill(cpage *p, rl_error *err)
{
    xmlNodePtr style = slot(p, "style");
    if (style) {
        xmlNodeAddContent(style, (const xmlChar *)rl_asset_report_css);
        xmlNodeAddContent(style, (const xmlChar *)rl_asset_compare_css);
    }
    rl_html_attr(&p->h, slot(p, "generator"), "content", "llama-roofline " RL_VERSION);
    top(p);
    fleet(p);
    warnings(p);
    rl_status st = charts(p, err);
    if (st != RL_OK)
        return st;
    verdicts(p);
    environment(p);
    inputs(p);
    set_text(p, "footer",
             "Made by llama-roofline " RL_VERSION ". The page runs no script and loads nothing "
             "from the network.");
    size_t n = p->c->n_inputs;
    rl_cmp_json_form form = n < RL_CMP_FLEET_MIN     ? RL_CMP_JSON_BUNDLES
                            : n < RL_CMP_SUMMARY_MIN ? RL_CMP_JSON_SUMMARY
                                                     : RL_CMP_JSON_FLEET;
    return rl_html_embed_owned(&p->h, slot(p, "compare"), rl_cmp_to_json(p->c, form), false,
                               "compare", err);
}

rl_status rl_html_compare(const rl_cmp *c, bool all_columns, char **out, size_t *len, rl_error *err)
{
    *out = NULL;
    *len = 0;
    cpage p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.all = all_columns;
    rl_status st = rl_html_load_template(&p.h, rl_asset_compare_xml, rl_asset_compare_xml_len,
                                         "compare.xml", "compare", &p.root, err);
    if (st == RL_OK)
        st = fill(&p, err);
    if (st == RL_OK)
        st = rl_html_serialize(p.h.doc, out, len, err);
    xmlFreeDoc(p.h.doc);
    return st;
}
