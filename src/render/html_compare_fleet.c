/* SPDX-License-Identifier: MIT */
/* html_compare_fleet.c: the comparison page's summarised sections for a fleet of inputs and
 * the pieces every comparison page shares. See html_compare_fleet.h. */
#include "render/html_compare_fleet.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render/compare_text.h"
#include "render/report_text.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

void rl_html_cmp_input_link(rl_html *h, xmlNodePtr parent, const rl_cmp *c, size_t i)
{
    char href[32], text[32];
    rl_snprintf(href, sizeof href, "#input-%zu", i + 1);
    rl_snprintf(text, sizeof text, "[%zu] ", i + 1);
    xmlNodePtr a = rl_html_el(h, parent, "a", NULL);
    rl_html_attr(h, a, "href", href);
    rl_html_text(h, a, text);
    rl_html_text(h, a, c->inputs[i].label);
}

xmlNodePtr rl_html_cmp_table(rl_html *h, xmlNodePtr parent, const char *const *cols, size_t n,
                             size_t n_num_from)
{
    bool numeric[RL_CMP_MAX_KEYS + 16];
    if (n > sizeof numeric / sizeof numeric[0])
        n = sizeof numeric / sizeof numeric[0];
    for (size_t i = 0; i < n; i++)
        numeric[i] = i >= n_num_from;
    return rl_html_table(h, parent, NULL, cols, numeric, n);
}

void rl_html_cmp_input_figures(const cJSON *b, double *bw, double *ceil)
{
    const cJSON *an = rl_json_get(b, "analysis");
    const cJSON *fit = rl_json_available(an, "fit");
    *bw = fit ? rl_json_num_or(fit, "bw_GBs", NAN) : NAN;
    *ceil = rl_json_num_or(rl_json_get(an, "ceiling"), "GBs", NAN);
}

/* ---- verdicts ---------------------------------------------------------------------------- */

static void td_count(rl_html *h, xmlNodePtr tr, size_t n)
{
    rl_html_el_textf(h, tr, "td", "num", "%zu", n);
}

static void td_ratio(rl_html *h, xmlNodePtr tr, double v)
{
    if (isfinite(v))
        rl_html_el_textf(h, tr, "td", "num", "x%.3f", v);
    else
        rl_html_el_text(h, tr, "td", "num", "");
}

static void td_input(rl_html *h, xmlNodePtr tr, const rl_cmp *c, size_t i)
{
    xmlNodePtr td = rl_html_el(h, tr, "td", NULL);
    if (i != SIZE_MAX)
        rl_html_cmp_input_link(h, td, c, i);
}

/* One summarised row; false when out of memory. */
static bool summary_row(rl_html *h, xmlNodePtr tb, const rl_cmp *c, size_t r, const bool *show)
{
    const rl_cmp_row *row = &c->rows[r];
    rl_cmp_row_sum s;
    if (!rl_cmp_row_summary(c, r, &s))
        return false;
    char a[160];
    xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
    if (row->kind)
        rl_html_attr(h, tr, "data-kind", row->kind);
    rl_cmp_fmt_metric(row, a, sizeof a);
    rl_html_el_text(h, tr, "td", NULL, a);
    rl_html_el_text(h, tr, "td", NULL, row->subject);
    for (size_t k = 0; k < row->n_keys; k++)
        if (show[k])
            rl_html_el_text(h, tr, "td", "num", row->key_values[k]);
    td_count(h, tr, s.faster);
    td_count(h, tr, s.slower);
    td_count(h, tr, s.noise);
    td_count(h, tr, s.untested + s.missing);
    td_count(h, tr, s.suspect);
    td_ratio(h, tr, s.ratio_min);
    td_ratio(h, tr, s.ratio_median);
    td_ratio(h, tr, s.ratio_max);
    td_input(h, tr, c, s.best);
    td_input(h, tr, c, s.worst);
    return true;
}

static void summary_group(rl_html *h, xmlNodePtr host, const rl_cmp *c, const char *group, bool all)
{
    const rl_cmp_row *first = rl_cmp_group_first(c, group);
    if (!first)
        return;
    xmlNodePtr h3 = rl_html_el_text(h, host, "h3", NULL, group);
    rl_html_attr(h, h3, "data-group", group);
    bool show[RL_CMP_MAX_KEYS];
    const char *cols[RL_CMP_MAX_KEYS + 12];
    size_t nc = 0;
    cols[nc++] = "Metric (kind)";
    cols[nc++] = strcmp(group, RL_CMP_GROUP_CLIENT) == 0 ? "Model or command" : "Model";
    for (size_t k = 0; k < first->n_keys; k++) {
        show[k] = all || rl_cmp_key_varies(c, group, first->key_names[k]);
        if (show[k])
            cols[nc++] = first->key_names[k];
    }
    size_t num_from = nc;
    static const char *const tail[] = {
        "Faster",     "Slower",     "Within noise", "Not tested or missing",
        "Disturbed",  "Ratio min",  "Ratio median", "Ratio max",
        "Best input", "Worst input"};
    for (size_t k = 0; k < sizeof tail / sizeof tail[0]; k++)
        cols[nc++] = tail[k];
    xmlNodePtr tb = rl_html_cmp_table(h, host, cols, nc, num_from);
    for (size_t r = 0; r < c->n_rows && !h->oom; r++)
        if (strcmp(c->rows[r].group, group) == 0 && !summary_row(h, tb, c, r, show))
            h->oom = true;
}

void rl_html_cmp_fleet_verdicts(rl_html *h, xmlNodePtr host, const rl_cmp *c, bool all)
{
    rl_html_el_textf(h, host, "p", "lead",
                     "%zu inputs: each row is summarised across them (the baseline [%zu] "
                     "left out): how many cells are faster, slower or within noise, the ratio "
                     "to the baseline (smallest, median, largest) and the inputs with the best "
                     "and the worst. llama-roofline compare --json lists every cell.",
                     c->n_inputs, c->baseline + 1);
    for (size_t r = 0; r < c->n_rows; r++)
        if (rl_cmp_group_starts(c, r))
            summary_group(h, host, c, c->rows[r].group, all);
    if (c->n_rows == 0)
        rl_html_el_text(h, host, "p", "missing", "No input has a measured rate.");
}

/* ---- environment ------------------------------------------------------------------------- */

void rl_html_cmp_fleet_environment(rl_html *h, xmlNodePtr host, const rl_cmp *c, bool all)
{
    const char *cols[] = {"Fact", "Distinct values", "Most common (inputs with it)"};
    xmlNodePtr tb = NULL;
    size_t shown = 0;
    for (size_t f = 0; f < c->n_facts && !h->oom; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        if (!fa->differs && !all)
            continue;
        rl_cmp_value_count top[RL_CMP_FLEET_TOP_VALUES];
        size_t n, distinct;
        if (!rl_cmp_fact_values(c, f, top, RL_CMP_FLEET_TOP_VALUES, &n, &distinct)) {
            h->oom = true;
            return;
        }
        if (!tb)
            tb = rl_html_cmp_table(h, host, cols, 3, 1);
        xmlNodePtr tr = rl_html_el(h, tb, "tr", fa->differs ? "differs" : NULL);
        xmlNodePtr th = rl_html_el_text(h, tr, "th", NULL, fa->label);
        rl_html_attr(h, th, "scope", "row");
        if (fa->differs)
            rl_html_el_text(h, th, "span", "flag", fa->suite ? " (suite: differs)" : " (differs)");
        rl_html_el_textf(h, tr, "td", "num", "%zu", distinct);
        xmlNodePtr td = rl_html_el(h, tr, "td", NULL);
        for (size_t k = 0; k < n; k++)
            rl_html_textf(h, td, "%s%s (%zu)", k ? "; " : "", top[k].value, top[k].count);
        if (distinct > n)
            rl_html_textf(h, td, "; %zu more", distinct - n);
        shown++;
    }
    if (!all)
        rl_html_el_textf(h, host, "p", "lead",
                         "%zu facts differ between the inputs and are listed with their most "
                         "common values; %zu more are the same everywhere (compare "
                         "--all-columns lists every fact, compare --json each input's value).",
                         shown, c->n_facts - shown);
}

/* ---- inputs ------------------------------------------------------------------------------ */

static void input_row(rl_html *h, xmlNodePtr tb, const rl_cmp *c, size_t i)
{
    const cJSON *b = c->inputs[i].bundle;
    char id[32], a[64], g[64], holds[128];
    xmlNodePtr tr = rl_html_el(h, tb, "tr", i == c->baseline ? "baseline" : NULL);
    rl_snprintf(id, sizeof id, "input-%zu", i + 1);
    rl_html_attr(h, tr, "id", id);
    rl_html_el_textf(h, tr, "td", NULL, "[%zu] %s%s", i + 1, c->inputs[i].label,
                     i == c->baseline ? " (baseline)" : "");
    rl_html_el_text(h, rl_html_el(h, tr, "td", NULL), "code", NULL, c->inputs[i].path);
    const char *cpu = rl_json_get_str(rl_json_get(b, "environment"), "cpu");
    rl_html_el_text(h, tr, "td", NULL, cpu ? cpu : "unknown");
    const char *cmd = rl_json_get_str(b, "command"), *utc = rl_json_get_str(b, "updated_utc");
    rl_html_el_textf(h, tr, "td", NULL, "%s, %s", cmd ? cmd : "?", utc ? utc : "?");
    rl_cmp_sections(b, holds, sizeof holds);
    rl_html_el_text(h, tr, "td", NULL, holds);
    const char *label =
        rl_json_get_str(rl_json_available(rl_json_get(b, "analysis"), "verdict"), "label");
    rl_html_el_text(h, tr, "td", NULL, label ? label : "none");
    rl_html_el_text(h, tr, "td", NULL,
                    c->inputs[i].disturbed
                        ? (c->inputs[i].disturbance ? c->inputs[i].disturbance : "disturbed")
                        : "");
    double bw, ceil;
    rl_html_cmp_input_figures(b, &bw, &ceil);
    rl_report_fmt_num(bw, a, sizeof a);
    rl_report_fmt_num(ceil, g, sizeof g);
    rl_html_el_text(h, tr, "td", "num", a);
    rl_html_el_text(h, tr, "td", "num", g);
}

void rl_html_cmp_fleet_inputs(rl_html *h, xmlNodePtr host, const rl_cmp *c)
{
    rl_html_el_textf(h, host, "p", "lead",
                     "%zu inputs, one line each (a page of fewer than %d inputs gives each its "
                     "own section with its models' operating points).",
                     c->n_inputs, RL_CMP_SUMMARY_MIN);
    const char *cols[] = {"Input",         "File",    "CPU",       "Command, written",
                          "Holds",         "Verdict", "Disturbed", "Effective GB/s",
                          "Ceiling (GB/s)"};
    xmlNodePtr tb = rl_html_cmp_table(h, host, cols, 9, 7);
    for (size_t i = 0; i < c->n_inputs; i++)
        input_row(h, tb, c, i);
}
