/* SPDX-License-Identifier: MIT */
/* html_history.c: the history page, section by section, into templates/history.xml. See
 * html_history.h. Every string reaches the page as a text node or an attribute set through
 * libxml2 (html_doc.h). */
#include "render/html_history.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "render/chart/history_chart.h"
#include "render/compare_text.h"
#include "render/history_text.h"
#include "render/html_doc.h"
#include "render/html_svg.h"
#include "render/report_assets.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

typedef struct {
    rl_html h;
    const rl_hist *hi;
    xmlNodePtr root;
    bool all;
    size_t *idx; /* scratch: a series' listed points */
} hpage;

static xmlNodePtr slot(hpage *p, const char *id)
{
    return rl_html_by_id(p->root, id);
}

static void set_text(hpage *p, const char *id, const char *text)
{
    xmlNodePtr n = slot(p, id);
    if (!n)
        return;
    xmlNodeSetContent(n, NULL);
    rl_html_text(&p->h, n, text);
}

static xmlNodePtr thead(hpage *p, xmlNodePtr parent, const char *const *cols, size_t n)
{
    xmlNodePtr wrap = rl_html_el(&p->h, parent, "div", "table-wrap");
    xmlNodePtr t = rl_html_el(&p->h, wrap, "table", NULL);
    xmlNodePtr tr = rl_html_el(&p->h, rl_html_el(&p->h, t, "thead", NULL), "tr", NULL);
    for (size_t i = 0; i < n; i++)
        rl_html_attr(&p->h, rl_html_el_text(&p->h, tr, "th", NULL, cols[i]), "scope", "col");
    return rl_html_el(&p->h, t, "tbody", NULL);
}

static const char *verdict_class(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_FASTER: return "verdict verdict-faster";
    case RL_CMP_SLOWER: return "verdict verdict-slower";
    case RL_CMP_NOISE: return "verdict verdict-noise";
    default: return "verdict verdict-untested";
    }
}

static void input_link(hpage *p, xmlNodePtr parent, size_t i)
{
    char href[32];
    rl_snprintf(href, sizeof href, "#bundle-%zu", i + 1);
    xmlNodePtr a = rl_html_el(&p->h, parent, "a", NULL);
    rl_html_attr(&p->h, a, "href", href);
    rl_html_textf(&p->h, a, "[%zu] ", i + 1);
    rl_html_text(&p->h, a, p->hi->inputs[i].label);
}

static void top(hpage *p)
{
    const rl_hist *h = p->hi;
    rl_hist_counts k = rl_hist_count(h);
    char head[512], a[2048], w0[64], w1[64];
    rl_hist_fmt_when(h->inputs[0].created, w0, sizeof w0);
    rl_hist_fmt_when(h->inputs[h->n_inputs - 1].created, w1, sizeof w1);
    rl_snprintf(head, sizeof head, "%zu bundles over time: %zu steps slower, %zu faster",
                h->n_inputs, k.slower, k.faster);
    set_text(p, "headline", head);
    rl_snprintf(a, sizeof a, "%s - llama-roofline history", head);
    set_text(p, "page-title", a);
    rl_snprintf(a, sizeof a,
                "Machine: %s. From %s to %s; %zu series, %zu steps within noise, %zu not tested, "
                "%zu measured disturbed (this bundle or the one before).%s",
                h->inputs[0].machine, w0, w1, h->n_series, k.noise, k.untested, k.suspect,
                h->n_others ? " Bundles of other machines are left out: see below." : "");
    set_text(p, "answer", a);
    rl_hist_test_sentence(h, a, sizeof a);
    set_text(p, "test", a);
}

static void left_out(hpage *p)
{
    const rl_hist *h = p->hi;
    xmlNodePtr sec = slot(p, "left-out");
    if (h->n_others == 0) {
        if (sec) {
            xmlUnlinkNode(sec);
            xmlFreeNode(sec);
        }
        return;
    }
    xmlNodePtr ul = rl_html_el(&p->h, slot(p, "left-out-list"), "ul", NULL);
    for (size_t i = 0; i < h->n_others && i < RL_HIST_OTHERS_LISTED; i++) {
        xmlNodePtr li = rl_html_el(&p->h, ul, "li", NULL);
        rl_html_attr(&p->h, li, "data-left-out", h->others[i].path);
        rl_html_textf(&p->h, li, "%s (%s)", h->others[i].path, h->others[i].machine);
    }
    if (h->n_others > RL_HIST_OTHERS_LISTED)
        rl_html_el_textf(&p->h, ul, "li", NULL,
                         "... and %zu more (the embedded JSON lists every one)",
                         h->n_others - RL_HIST_OTHERS_LISTED);
}

/* One point's row: when, bundle, build, value, change, verdict, what changed. */
static void point_row(hpage *p, xmlNodePtr tb, const rl_hist_series *s, size_t k, bool title)
{
    const rl_hist_point *pt = &s->pts[k];
    const rl_hist_input *in = &p->hi->inputs[pt->input];
    char a[900];
    xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
    rl_html_attr(&p->h, tr, "data-verdict", k ? rl_cmp_verdict_word(pt->cell.verdict) : "first");
    if (pt->cell.suspect)
        rl_html_attr(&p->h, tr, "data-disturbed", "true");
    if (title) {
        rl_hist_series_title(s, a, sizeof a);
        rl_html_el_text(&p->h, tr, "td", NULL, a);
    }
    rl_hist_fmt_when(in->created, a, sizeof a);
    rl_html_el_text(&p->h, tr, "td", NULL, a);
    input_link(p, rl_html_el(&p->h, tr, "td", NULL), pt->input);
    rl_html_el_text(&p->h, tr, "td", NULL, in->build);
    rl_cmp_fmt_value(&pt->cell, a, sizeof a);
    rl_html_el_text(&p->h, tr, "td", "num", a);
    a[0] = '\0';
    if (k)
        rl_cmp_fmt_delta(&pt->cell, a, sizeof a);
    rl_html_el_text(&p->h, tr, "td", "num", a);
    a[0] = '\0';
    if (k)
        rl_cmp_fmt_verdict(&pt->cell, a, sizeof a);
    rl_html_el_text(&p->h, tr, "td", k ? verdict_class(pt->cell.verdict) : NULL, a);
    rl_html_el_text(&p->h, tr, "td", NULL, pt->changes ? pt->changes : "");
}

static void steps(hpage *p)
{
    const rl_hist *h = p->hi;
    static const char *const cols[] = {"series", "when",   "bundle",  "llama.cpp",
                                       "value",  "change", "verdict", "what changed"};
    xmlNodePtr tb = NULL;
    size_t n = 0;
    for (size_t s = 0; s < h->n_series; s++)
        for (size_t k = 1; k < h->series[s].n_pts; k++) {
            rl_cmp_verdict v = h->series[s].pts[k].cell.verdict;
            if (v != RL_CMP_FASTER && v != RL_CMP_SLOWER)
                continue;
            if (n++ == h->max_listed && !p->all)
                continue;
            if (!tb)
                tb = thead(p, slot(p, "step-table"), cols, 8);
            point_row(p, tb, &h->series[s], k, true);
        }
    if (n == 0)
        rl_html_el_text(&p->h, slot(p, "step-table"), "p", "missing",
                        "None: every step is within noise or not tested.");
    else if (n > h->max_listed && !p->all)
        rl_html_el_textf(&p->h, slot(p, "step-table"), "p", "lead",
                         "%zu more not listed (--all-steps lists every one).", n - h->max_listed);
}

static rl_status chart(hpage *p, xmlNodePtr host, const size_t *ser, size_t n, size_t num,
                       rl_error *err)
{
    const rl_hist_series *s = &p->hi->series[ser[0]];
    char id[32], title[700];
    rl_snprintf(id, sizeof id, "trend-%zu", num);
    rl_snprintf(title, sizeof title, "%s of %s (%s)", s->row.metric, s->row.subject, s->row.unit);
    rl_hist_chart_src src = {p->hi, ser, n, id, title, p->all};
    rl_chart ch;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_chart_history(&src, &ch, &e);
    if (st == RL_NOTHING) {
        rl_html_el_textf(&p->h, host, "p", "missing", "No chart: %s.", e.msg);
        return RL_OK;
    }
    if (st != RL_OK) {
        *err = e;
        return st;
    }
    xmlNodePtr fig = NULL;
    st = rl_html_add_chart(&p->h, host, &ch, &fig, err);
    rl_chart_free(&ch);
    return st;
}

static void series_table(hpage *p, xmlNodePtr host, const rl_hist_series *s)
{
    static const char *const cols[] = {"when",   "bundle",  "llama.cpp",   "value",
                                       "change", "verdict", "what changed"};
    char t[800];
    rl_hist_series_title(s, t, sizeof t);
    rl_html_el_textf(&p->h, host, "h4", NULL, "%s (%s): %zu bundle%s", t, s->row.unit, s->n_pts,
                     s->n_pts == 1 ? "" : "s");
    size_t n = rl_hist_listed(s, p->all, p->hi->max_listed, p->idx);
    xmlNodePtr tb = thead(p, host, cols, 7);
    for (size_t i = 0; i < n; i++)
        point_row(p, tb, s, p->idx[i], false);
    if (n < s->n_pts)
        rl_html_el_textf(&p->h, host, "p", "lead",
                         "%zu more step%s not listed: within noise or not tested, nothing "
                         "changed%s (--all-steps lists every one; the embedded JSON holds them).",
                         s->n_pts - n, s->n_pts - n == 1 ? "" : "s",
                         n >= p->hi->max_listed ? ", or past the listing's limit" : "");
}

/* Per group, per subject and metric (series in a row with the same group, subject, metric):
 * a heading, a chart, a table per series. */
static rl_status series_all(hpage *p, rl_error *err)
{
    const rl_hist *h = p->hi;
    xmlNodePtr host = slot(p, "series-list");
    size_t *ser = rl_calloc(h->n_series ? h->n_series : 1, sizeof *ser);
    if (!ser)
        return rl_fail(err, RL_EINTERNAL, "history: out of memory");
    rl_status st = RL_OK;
    size_t num = 0;
    bool *done = rl_calloc(h->n_series ? h->n_series : 1, sizeof *done);
    if (!done) {
        free(ser);
        return rl_fail(err, RL_EINTERNAL, "history: out of memory");
    }
    for (size_t s = 0; st == RL_OK && s < h->n_series; s++) {
        if (done[s])
            continue;
        const rl_cmp_row *r = &h->series[s].row;
        if (s == 0 || strcmp(r->group, h->series[s - 1].row.group) != 0)
            rl_html_el_text(&p->h, host, "h3", NULL, r->group);
        size_t n = 0;
        for (size_t q = s; q < h->n_series; q++) {
            const rl_cmp_row *o = &h->series[q].row;
            if (!done[q] && strcmp(o->group, r->group) == 0 &&
                strcmp(o->subject, r->subject) == 0 && strcmp(o->metric, r->metric) == 0) {
                ser[n++] = q;
                done[q] = true;
            }
        }
        xmlNodePtr sec = rl_html_el(&p->h, host, "section", "series");
        st = chart(p, sec, ser, n, ++num, err);
        for (size_t i = 0; st == RL_OK && i < n; i++)
            series_table(p, sec, &h->series[ser[i]]);
    }
    free(done);
    free(ser);
    return st;
}

static void inputs(hpage *p)
{
    const rl_hist *h = p->hi;
    static const char *const cols[] = {"#",      "when",     "bundle",   "llama.cpp",
                                       "kernel", "governor", "disturbed"};
    xmlNodePtr tb = thead(p, slot(p, "input-table"), cols, 7);
    for (size_t i = 0; i < h->n_inputs; i++) {
        const rl_hist_input *in = &h->inputs[i];
        char a[64], id[32];
        xmlNodePtr tr = rl_html_el(&p->h, tb, "tr", NULL);
        rl_snprintf(id, sizeof id, "bundle-%zu", i + 1);
        rl_html_attr(&p->h, tr, "id", id);
        rl_html_el_textf(&p->h, tr, "td", "num", "%zu", i + 1);
        rl_hist_fmt_when(in->created, a, sizeof a);
        rl_html_el_text(&p->h, tr, "td", NULL, a);
        rl_html_el_text(&p->h, tr, "td", NULL, in->path);
        rl_html_el_text(&p->h, tr, "td", NULL, in->build);
        rl_html_el_text(&p->h, tr, "td", NULL, in->facts[RL_HIST_FACT_KERNEL]);
        rl_html_el_text(&p->h, tr, "td", NULL, in->facts[RL_HIST_FACT_GOVERNOR]);
        rl_html_el_text(&p->h, tr, "td", in->disturbed ? "disturbed" : NULL,
                        in->disturbed ? (in->disturbance ? in->disturbance : "yes") : "");
    }
}

static rl_status fill(hpage *p, rl_error *err)
{
    xmlNodePtr style = slot(p, "style");
    if (style) {
        xmlNodeAddContent(style, (const xmlChar *)rl_asset_report_css);
        xmlNodeAddContent(style, (const xmlChar *)rl_asset_compare_css);
    }
    rl_html_attr(&p->h, slot(p, "generator"), "content", "llama-roofline " RL_VERSION);
    top(p);
    left_out(p);
    steps(p);
    rl_status st = series_all(p, err);
    if (st != RL_OK)
        return st;
    inputs(p);
    set_text(p, "footer",
             "Made by llama-roofline " RL_VERSION ". The page runs no script and loads nothing "
             "from the network.");
    return rl_html_embed_owned(&p->h, slot(p, "history"), rl_hist_to_json(p->hi, false), true,
                               "history", err);
}

rl_status rl_html_history(const rl_hist *h, bool all, char **out, size_t *len, rl_error *err)
{
    *out = NULL;
    *len = 0;
    hpage p;
    memset(&p, 0, sizeof p);
    p.hi = h;
    p.all = all;
    size_t most = 1;
    for (size_t s = 0; s < h->n_series; s++)
        if (h->series[s].n_pts > most)
            most = h->series[s].n_pts;
    p.idx = rl_calloc(most, sizeof *p.idx);
    if (!p.idx)
        return rl_fail(err, RL_EINTERNAL, "history: out of memory");
    rl_status st = rl_html_load_template(&p.h, rl_asset_history_xml, rl_asset_history_xml_len,
                                         "history.xml", "history", &p.root, err);
    if (st == RL_OK)
        st = fill(&p, err);
    if (st == RL_OK)
        st = rl_html_serialize(p.h.doc, out, len, err);
    xmlFreeDoc(p.h.doc);
    free(p.idx);
    return st;
}
