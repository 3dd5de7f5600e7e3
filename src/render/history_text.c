/* SPDX-License-Identifier: MIT */
/* history_text.c: the terminal text and the Markdown of a history. See history_text.h. */
#include "render/history_text.h"

#include <stdlib.h>
#include <string.h>

#include "render/compare_text.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

void rl_hist_fmt_when(const char *created, char *buf, size_t cap)
{
    size_t n = strlen(created);
    if (n >= 16 && created[10] == 'T')
        rl_snprintf(buf, cap, "%.10s %.5s", created, created + 11);
    else
        rl_snprintf(buf, cap, "%s", *created ? created : "unknown");
}

static void head(rl_sbuf *b, const rl_hist *h, bool md, bool fail_set, double fail_pct)
{
    char when0[64], when1[64], buf[1024];
    rl_hist_fmt_when(h->inputs[0].created, when0, sizeof when0);
    rl_hist_fmt_when(h->inputs[h->n_inputs - 1].created, when1, sizeof when1);
    rl_snprintf(buf, sizeof buf, "llama-roofline history: %zu bundles of %s, %s to %s", h->n_inputs,
                h->inputs[0].machine, when0, when1);
    rl_cmp_text_line(b, md, md ? "### " : "", buf);
    if (h->n_others) {
        rl_snprintf(buf, sizeof buf,
                    "Left out: %zu bundle%s of another machine (the history follows the newest "
                    "bundle's machine):",
                    h->n_others, h->n_others == 1 ? "" : "s");
        rl_cmp_text_line(b, md, md ? "\n" : "", buf);
        if (md)
            rl_sbuf_put(b, "\n", 1);
        for (size_t i = 0; i < h->n_others && i < RL_HIST_OTHERS_LISTED; i++) {
            rl_snprintf(buf, sizeof buf, "%s (%s)", h->others[i].path, h->others[i].machine);
            rl_cmp_text_line(b, md, md ? "- " : "  ", buf);
        }
        if (h->n_others > RL_HIST_OTHERS_LISTED) {
            rl_snprintf(buf, sizeof buf, "... and %zu more (--json lists every one)",
                        h->n_others - RL_HIST_OTHERS_LISTED);
            rl_cmp_text_line(b, md, md ? "- " : "  ", buf);
        }
    }
    if (md)
        rl_sbuf_put(b, "\n", 1);
    rl_hist_test_sentence(h, buf, sizeof buf);
    rl_cmp_text_line(b, md, "", buf);
    rl_hist_counts k = rl_hist_count(h);
    rl_snprintf(buf, sizeof buf,
                "Summary: %zu series; %zu steps faster, %zu slower, %zu within noise, %zu not "
                "tested; %zu measured disturbed (this bundle or the one before).",
                h->n_series, k.faster, k.slower, k.noise, k.untested, k.suspect);
    rl_cmp_text_line(b, md, md ? "\n" : "", buf);
    if (!fail_set)
        return;
    size_t dist = 0, reg = rl_hist_regressions(h, fail_pct, &dist);
    rl_snprintf(buf, sizeof buf, "Regressions beyond %g%%: %zu (and %zu in disturbed steps).",
                fail_pct, reg, dist);
    rl_cmp_text_line(b, md, md ? "\n" : "", buf);
    for (size_t s = 0; s < h->n_series; s++)
        for (size_t p = 1; p < h->series[s].n_pts; p++) {
            if (!rl_hist_is_regression(&h->series[s], p, fail_pct))
                continue;
            const rl_hist_point *pt = &h->series[s].pts[p];
            char title[700];
            rl_hist_series_title(&h->series[s], title, sizeof title);
            rl_snprintf(buf, sizeof buf, "%s at %s (llama.cpp %s): %+.1f%%%s", title,
                        h->inputs[pt->input].label, h->inputs[pt->input].build, pt->cell.change_pct,
                        pt->cell.suspect ? " [disturbed]" : "");
            rl_cmp_text_line(b, md, md ? "- " : "  ", buf);
        }
}

/* One series: its title line, then its table of listed points. */
static void series(rl_sbuf *b, const rl_hist *h, const rl_hist_series *s, bool md, bool all,
                   size_t *idx)
{
    char title[800], metric[200];
    rl_cmp_fmt_metric(&s->row, metric, sizeof metric);
    rl_hist_series_title(s, title, sizeof title);
    size_t n = rl_hist_listed(s, all, h->max_listed, idx);
    char buf[1200];
    rl_snprintf(buf, sizeof buf, "%s, %s (%s): %zu bundle%s", title + strlen(s->row.metric) + 1,
                metric, s->row.unit, s->n_pts, s->n_pts == 1 ? "" : "s");
    rl_cmp_text_line(b, md, md ? "\n#### " : "\n", buf);
    if (md)
        rl_sbuf_put(b, "\n", 1);
    rl_cmp_table t = {.n_cols = 7};
    static const char *const cols[] = {"when",   "bundle",  "llama.cpp",   "value",
                                       "change", "verdict", "what changed"};
    for (size_t c = 0; c < 7; c++)
        rl_cmp_table_cell(&t, cols[c]);
    for (size_t i = 0; i < n; i++) {
        const rl_hist_point *p = &s->pts[idx[i]];
        const rl_hist_input *in = &h->inputs[p->input];
        char when[64], v[96], d[96] = "", verdict[160] = "";
        rl_hist_fmt_when(in->created, when, sizeof when);
        rl_cmp_fmt_value(&p->cell, v, sizeof v);
        if (idx[i] > 0) {
            rl_cmp_fmt_delta(&p->cell, d, sizeof d);
            rl_cmp_fmt_verdict(&p->cell, verdict, sizeof verdict);
        }
        rl_cmp_table_cell(&t, when);
        rl_cmp_table_cell(&t, in->label);
        rl_cmp_table_cell(&t, in->build);
        rl_cmp_table_cell(&t, v);
        rl_cmp_table_cell(&t, d);
        rl_cmp_table_cell(&t, verdict);
        rl_cmp_table_cell(&t, p->changes ? p->changes : "");
    }
    if (t.oom)
        b->oom = true;
    else
        rl_cmp_table_render(b, &t, md, "  ");
    rl_cmp_table_free(&t);
    if (n < s->n_pts) {
        rl_snprintf(buf, sizeof buf,
                    "%zu more step%s not listed (within noise or not tested, nothing changed%s); "
                    "--all-steps lists every one",
                    s->n_pts - n, s->n_pts - n == 1 ? "" : "s",
                    n >= h->max_listed ? ", or past the listing's limit" : "");
        rl_cmp_text_line(b, md, md ? "" : "  ", buf);
    }
}

char *rl_hist_text(const rl_hist *h, bool markdown, bool all, bool fail_set, double fail_pct)
{
    rl_sbuf b = {0};
    size_t most = 1;
    for (size_t s = 0; s < h->n_series; s++)
        if (h->series[s].n_pts > most)
            most = h->series[s].n_pts;
    size_t *idx = rl_calloc(most, sizeof *idx);
    if (!idx)
        return NULL;
    head(&b, h, markdown, fail_set, fail_pct);
    for (size_t s = 0; s < h->n_series; s++) {
        const char *g = h->series[s].row.group;
        if (s == 0 || strcmp(g, h->series[s - 1].row.group) != 0)
            rl_cmp_text_line(&b, markdown, markdown ? "\n### " : "\n== ", g);
        series(&b, h, &h->series[s], markdown, all, idx);
    }
    free(idx);
    if (b.oom) {
        free(rl_sbuf_take(&b));
        return NULL;
    }
    return rl_sbuf_take(&b);
}
