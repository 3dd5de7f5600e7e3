/* SPDX-License-Identifier: MIT */
/* compare_text.c: the terminal table and the Markdown of a comparison. See compare_text.h. */
#include "render/compare_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_text.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

void rl_cmp_fmt_value(const rl_cmp_cell *x, char *buf, size_t cap)
{
    char m[48], h[48];
    if (!x->present) {
        rl_snprintf(buf, cap, "-");
        return;
    }
    rl_report_fmt_num(x->mean, m, sizeof m);
    if (x->has_ci) {
        rl_report_fmt_num((x->ci_high - x->ci_low) / 2, h, sizeof h);
        rl_snprintf(buf, cap, "%s \xC2\xB1 %s", m, h);
    } else if (x->n == 0 && x->has_sd) {
        rl_report_fmt_num(x->sd, h, sizeof h);
        rl_snprintf(buf, cap, "%s (sd %s)", m, h);
    } else if (x->n == 0) {
        rl_snprintf(buf, cap, "%s (mean only)", m);
    } else if (x->point) {
        rl_snprintf(buf, cap, "%s", m);
    } else {
        rl_snprintf(buf, cap, "%s (1 sample)", m);
    }
}

void rl_cmp_fmt_ratio(const rl_cmp_cell *x, char *buf, size_t cap)
{
    if (!x->has_ratio)
        rl_snprintf(buf, cap, "%s", "");
    else
        rl_snprintf(buf, cap, "x%.3f", x->ratio);
}

void rl_cmp_fmt_delta(const rl_cmp_cell *x, char *buf, size_t cap)
{
    char d[48];
    if (!x->has_ratio) {
        rl_snprintf(buf, cap, "%s", "");
        return;
    }
    rl_report_fmt_num(x->delta, d, sizeof d);
    rl_snprintf(buf, cap, "%s%s (%+.1f%%)", x->delta > 0 ? "+" : "", d, x->change_pct);
}

void rl_cmp_fmt_metric(const rl_cmp_row *row, char *buf, size_t cap)
{
    if (row->units_vary)
        rl_snprintf(buf, cap, "%s (%s%s%s)", row->metric, row->kind ? row->kind : "",
                    row->kind ? ", " : "", row->unit);
    else if (row->kind)
        rl_snprintf(buf, cap, "%s (%s)", row->metric, row->kind);
    else
        rl_snprintf(buf, cap, "%s", row->metric);
}

void rl_cmp_disturbed_sentence(const rl_cmp *c, const rl_cmp_counts *k, char *buf, size_t cap)
{
    rl_sbuf s = {0};
    rl_sbuf_printf(&s,
                   "Disturbed: %zu of these were measured while the machine was busy (this input "
                   "or the baseline; marked \"? [disturbed]\", the disturbed column names the "
                   "side): ",
                   k->disturbed);
    size_t named = 0;
    for (size_t i = 0; i < c->n_inputs; i++) {
        const rl_cmp_input *in = &c->inputs[i];
        if (!in->disturbed)
            continue;
        if (named++ == 6) {
            rl_sbuf_printf(&s, "; ...");
            break;
        }
        rl_sbuf_printf(&s, "%s[%zu] %.80s%s, ", named > 1 ? "; " : "", i + 1, in->label,
                       i == c->baseline ? " (the baseline)" : "");
        if (in->disturbance)
            rl_sbuf_printf(&s, "%.200s", in->disturbance);
        else
            rl_sbuf_printf(&s, "%zu of its measurements compared", in->n_disturbed);
    }
    rl_sbuf_printf(&s, ". Their verdicts may be wrong. Re-run on a quiet machine or with "
                       "--wait-quiet 60.");
    char *t = rl_sbuf_take(&s);
    rl_snprintf(buf, cap, "%s",
                t ? t
                  : "Disturbed: some rows were measured while the machine "
                    "was busy; their verdicts may be wrong.");
    free(t);
}

void rl_cmp_fmt_disturbed(const rl_cmp *c, size_t r, size_t i, char *buf, size_t cap)
{
    const rl_cmp_cell *x = &c->rows[r].cells[i], *b = &c->rows[r].cells[c->baseline];
    if (!x->suspect)
        rl_snprintf(buf, cap, "%s", "");
    else if (b->disturbed && x->disturbed)
        rl_snprintf(buf, cap, "[%zu] and [%zu]", c->baseline + 1, i + 1);
    else if (b->disturbed)
        rl_snprintf(buf, cap, "[%zu] (baseline)", c->baseline + 1);
    else
        rl_snprintf(buf, cap, "[%zu]", i + 1);
}

void rl_cmp_fmt_verdict(const rl_cmp_cell *x, char *buf, size_t cap)
{
    const char *arrow = rl_cmp_verdict_arrow(x->verdict);
    const char *word = rl_cmp_verdict_word(x->verdict);
    /* measured while disturbed: never a plain verdict (compare.h) */
    bool sus = x->suspect && x->verdict != RL_CMP_BASELINE && x->verdict != RL_CMP_MISSING;
    const char *flag = sus ? "? [disturbed]" : "";
    if (x->tested)
        rl_snprintf(buf, cap, "%s %s%s (p = %.2g)", arrow, word, flag, x->p);
    else
        rl_snprintf(buf, cap, "%s%s%s%s", arrow, *arrow ? " " : "", word, flag);
}

/* ---- a small table: cells of text, rendered aligned or as Markdown ---------------------- */

void rl_cmp_table_cell(rl_cmp_table *t, const char *s)
{
    if (t->oom)
        return;
    if (t->n == t->cap) {
        char **p = rl_grow(t->cells, &t->cap, sizeof *p, 64);
        if (!p) {
            t->oom = true;
            return;
        }
        t->cells = p;
    }
    char *d = rl_strdup(s ? s : "");
    if (!d) {
        t->oom = true;
        return;
    }
    t->cells[t->n++] = d;
}

void rl_cmp_table_free(rl_cmp_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* Columns a string takes on a terminal: its UTF-8 characters. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

void rl_cmp_table_render(rl_sbuf *b, const rl_cmp_table *t, bool markdown, const char *indent)
{
    size_t nc = t->n_cols, nr = nc ? t->n / nc : 0;
    if (nr == 0)
        return;
    if (markdown) {
        for (size_t r = 0; r < nr; r++) {
            rl_sbuf_put(b, "|", 1);
            for (size_t k = 0; k < nc; k++) {
                rl_sbuf_put(b, " ", 1);
                rl_md_escape(b, t->cells[r * nc + k]);
                rl_sbuf_put(b, " |", 2);
            }
            rl_sbuf_put(b, "\n", 1);
            if (r == 0) {
                rl_sbuf_put(b, "|", 1);
                for (size_t k = 0; k < nc; k++)
                    rl_sbuf_put(b, "---|", 4);
                rl_sbuf_put(b, "\n", 1);
            }
        }
        rl_sbuf_put(b, "\n", 1);
        return;
    }
    size_t w[32] = {0};
    char **esc = rl_calloc(t->n, sizeof *esc);
    if (!esc) {
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < t->n; i++) {
        esc[i] = rl_tty_escape_dup(t->cells[i]);
        if (!esc[i]) {
            b->oom = true;
            goto out;
        }
        size_t k = i % nc;
        if (k < 32 && width(esc[i]) > w[k])
            w[k] = width(esc[i]);
    }
    for (size_t r = 0; r < nr; r++) {
        rl_sbuf_printf(b, "%s", indent);
        size_t last = nc; /* the row ends at its last non-empty cell: no trailing blanks */
        while (last > 1 && !*esc[r * nc + last - 1])
            last--;
        for (size_t k = 0; k < last; k++) {
            const char *s = esc[r * nc + k];
            rl_sbuf_printf(b, "%s", s);
            if (k + 1 < last)
                for (size_t pad = width(s); pad < (k < 32 ? w[k] : 0) + 2; pad++)
                    rl_sbuf_put(b, " ", 1);
        }
        rl_sbuf_put(b, "\n", 1);
    }
out:
    for (size_t i = 0; i < t->n; i++)
        free(esc[i]);
    free(esc);
}

/* ---- the text ---------------------------------------------------------------------------- */

void rl_cmp_text_line(rl_sbuf *b, bool markdown, const char *prefix, const char *s)
{
    if (markdown) {
        rl_sbuf_printf(b, "%s", prefix);
        rl_md_escape(b, s);
        rl_sbuf_put(b, "\n", 1);
    } else {
        char *e = rl_tty_escape_dup(s);
        if (!e) {
            b->oom = true;
            return;
        }
        rl_sbuf_printf(b, "%s%s\n", prefix, e);
        free(e);
    }
}

/* One warning from s (taken) as a list item. */
static void warn_line(rl_sbuf *b, bool markdown, rl_sbuf *s)
{
    char *t = rl_sbuf_take(s);
    if (!t) {
        b->oom = true;
        return;
    }
    rl_cmp_text_line(b, markdown, markdown ? "- " : "  ", t);
    free(t);
}

static void warnings(rl_sbuf *b, const rl_cmp *c, bool markdown)
{
    bool any = false;
    for (size_t f = 0; f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        if (!fa->differs)
            continue;
        if (!any)
            rl_sbuf_printf(b, markdown ? "\n**Warnings**\n\n" : "\nwarnings:\n");
        any = true;
        rl_sbuf s = {0};
        rl_sbuf_printf(&s, "%s %s differs: ", fa->suite ? "suite:" : "environment:", fa->label);
        if (c->n_inputs <= 6) {
            for (size_t i = 0; i < c->n_inputs; i++)
                rl_sbuf_printf(&s, "%s[%zu] %s", i ? "; " : "", i + 1, fa->values[i]);
        } else {
            size_t distinct = 0;
            for (size_t i = 0; i < c->n_inputs; i++) {
                bool seen = false;
                for (size_t k = 0; k < i && !seen; k++)
                    seen = strcmp(fa->values[k], fa->values[i]) == 0;
                distinct += !seen;
            }
            rl_sbuf_printf(&s, "%zu different values over %zu inputs", distinct, c->n_inputs);
        }
        warn_line(b, markdown, &s);
    }
    if (c->sections_differ) {
        if (!any)
            rl_sbuf_printf(b, markdown ? "\n**Warnings**\n\n" : "\nwarnings:\n");
        any = true;
        rl_sbuf s = {0};
        rl_sbuf_printf(&s, "note: the inputs hold different sections (");
        for (size_t i = 0; i < c->n_inputs && i < 6; i++) {
            char sec[128];
            rl_cmp_sections(c->inputs[i].bundle, sec, sizeof sec);
            rl_sbuf_printf(&s, "%s[%zu] %s", i ? "; " : "", i + 1, sec);
        }
        rl_sbuf_printf(&s, "%s): a section's rows compare only between inputs that hold it",
                       c->n_inputs > 6 ? "; ..." : "");
        warn_line(b, markdown, &s);
    }
    if (c->rows_not_everywhere) {
        if (!any)
            rl_sbuf_printf(b, markdown ? "\n**Warnings**\n\n" : "\nwarnings:\n");
        any = true;
        char t[200];
        rl_snprintf(t, sizeof t,
                    "suite: %zu of %zu rows are not in every input (other models or settings)",
                    c->rows_not_everywhere, c->n_rows);
        rl_cmp_text_line(b, markdown, markdown ? "- " : "  ", t);
    }
}

static void group_table(rl_sbuf *b, const rl_cmp *c, const char *group, bool markdown, bool all,
                        size_t *hidden)
{
    /* key columns of the group, in the order of its first row */
    const rl_cmp_row *first = rl_cmp_group_first(c, group);
    if (!first)
        return;
    bool keyshow[RL_CMP_MAX_KEYS];
    rl_sbuf same = {0};
    for (size_t k = 0; k < first->n_keys; k++) {
        keyshow[k] = all || rl_cmp_key_varies(c, group, first->key_names[k]);
        if (!keyshow[k])
            rl_sbuf_printf(&same, "%s%s %s", same.len ? ", " : "", first->key_names[k],
                           first->key_values[k]);
    }
    bool many = c->n_inputs > 2;
    bool dcol = rl_cmp_group_disturbed(c, group);
    rl_cmp_table t = {0};
    rl_cmp_table_cell(&t, "metric");
    rl_cmp_table_cell(&t, strcmp(group, RL_CMP_GROUP_CLIENT) == 0 ? "model or command" : "model");
    for (size_t k = 0; k < first->n_keys; k++)
        if (keyshow[k])
            rl_cmp_table_cell(&t, first->key_names[k]);
    if (many)
        rl_cmp_table_cell(&t, "input");
    char h[160];
    if (first->units_vary)
        rl_snprintf(h, sizeof h, "baseline [%zu]", c->baseline + 1);
    else
        rl_snprintf(h, sizeof h, "baseline [%zu] (%s)", c->baseline + 1, first->unit);
    rl_cmp_table_cell(&t, h);
    rl_cmp_table_cell(&t, many ? "value" : "value [2]");
    rl_cmp_table_cell(&t, "ratio");
    rl_cmp_table_cell(&t, "delta");
    rl_cmp_table_cell(&t, "verdict");
    if (dcol)
        rl_cmp_table_cell(&t, "disturbed");
    t.n_cols = t.n;
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        if (strcmp(row->group, group) != 0)
            continue;
        for (size_t i = 0; i < c->n_inputs; i++) {
            if (!rl_cmp_listed(c, r, i, all, hidden))
                continue;
            char a[160];
            rl_cmp_fmt_metric(row, a, sizeof a);
            rl_cmp_table_cell(&t, a);
            rl_cmp_table_cell(&t, row->subject);
            for (size_t k = 0; k < first->n_keys; k++)
                if (keyshow[k])
                    rl_cmp_table_cell(&t, k < row->n_keys ? row->key_values[k] : "");
            if (many) {
                rl_snprintf(a, sizeof a, "[%zu]", i + 1);
                rl_cmp_table_cell(&t, a);
            }
            rl_cmp_fmt_value(&row->cells[c->baseline], a, sizeof a);
            rl_cmp_table_cell(&t, a);
            rl_cmp_fmt_value(&row->cells[i], a, sizeof a);
            rl_cmp_table_cell(&t, a);
            rl_cmp_fmt_ratio(&row->cells[i], a, sizeof a);
            rl_cmp_table_cell(&t, a);
            rl_cmp_fmt_delta(&row->cells[i], a, sizeof a);
            rl_cmp_table_cell(&t, a);
            rl_cmp_fmt_verdict(&row->cells[i], a, sizeof a);
            rl_cmp_table_cell(&t, a);
            if (dcol) {
                rl_cmp_fmt_disturbed(c, r, i, a, sizeof a);
                rl_cmp_table_cell(&t, a);
            }
        }
    }
    if (t.oom) {
        b->oom = true;
    } else {
        rl_sbuf_printf(b, markdown ? "\n**%s**\n\n" : "\n%s:\n", group);
        char *s = rl_sbuf_take(&same);
        same = (rl_sbuf){0};
        if (s && *s) {
            rl_cmp_text_line(b, markdown,
                             markdown ? "Same in every row: " : "  same in every row: ", s);
            if (markdown)
                rl_sbuf_put(b, "\n", 1);
        }
        free(s);
        const char *note = rl_cmp_group_note(group);
        if (note) {
            rl_cmp_text_line(b, markdown, markdown ? "" : "  ", note);
            if (markdown)
                rl_sbuf_put(b, "\n", 1);
        }
        if (t.n > t.n_cols)
            rl_cmp_table_render(b, &t, markdown, "  ");
        else
            rl_sbuf_printf(b, markdown ? "No row is in both the baseline and another input.\n\n"
                                       : "  no row is in both the baseline and another input\n");
    }
    free(rl_sbuf_take(&same));
    rl_cmp_table_free(&t);
}

/* ---- fleets: one line per row across the inputs ----------------------------------------- */

static void ratio_cell(rl_cmp_table *t, double v)
{
    char a[32] = "";
    if (isfinite(v))
        rl_snprintf(a, sizeof a, "x%.3f", v);
    rl_cmp_table_cell(t, a);
}

static void count_cell(rl_cmp_table *t, size_t n)
{
    char a[32];
    rl_snprintf(a, sizeof a, "%zu", n);
    rl_cmp_table_cell(t, a);
}

static void input_cell(rl_cmp_table *t, size_t i)
{
    char a[32] = "";
    if (i != SIZE_MAX)
        rl_snprintf(a, sizeof a, "[%zu]", i + 1);
    rl_cmp_table_cell(t, a);
}

static void summary_row(rl_cmp_table *t, const rl_cmp *c, size_t r, const bool *keyshow)
{
    const rl_cmp_row *row = &c->rows[r];
    rl_cmp_row_sum s;
    if (!rl_cmp_row_summary(c, r, &s)) {
        t->oom = true;
        return;
    }
    char a[160];
    rl_cmp_fmt_metric(row, a, sizeof a);
    rl_cmp_table_cell(t, a);
    rl_cmp_table_cell(t, row->subject);
    for (size_t k = 0; k < row->n_keys; k++)
        if (keyshow[k])
            rl_cmp_table_cell(t, row->key_values[k]);
    count_cell(t, s.faster);
    count_cell(t, s.slower);
    count_cell(t, s.noise);
    count_cell(t, s.untested + s.missing);
    count_cell(t, s.suspect);
    ratio_cell(t, s.ratio_min);
    ratio_cell(t, s.ratio_median);
    ratio_cell(t, s.ratio_max);
    input_cell(t, s.best);
    input_cell(t, s.worst);
}

/* A group's rows summarised across the inputs (RL_CMP_SUMMARY_MIN inputs or more). */
static void group_summary(rl_sbuf *b, const rl_cmp *c, const char *group, bool markdown, bool all)
{
    const rl_cmp_row *first = rl_cmp_group_first(c, group);
    if (!first)
        return;
    bool keyshow[RL_CMP_MAX_KEYS];
    rl_cmp_table t = {0};
    rl_cmp_table_cell(&t, "metric");
    rl_cmp_table_cell(&t, strcmp(group, RL_CMP_GROUP_CLIENT) == 0 ? "model or command" : "model");
    for (size_t k = 0; k < first->n_keys; k++) {
        keyshow[k] = all || rl_cmp_key_varies(c, group, first->key_names[k]);
        if (keyshow[k])
            rl_cmp_table_cell(&t, first->key_names[k]);
    }
    static const char *const heads[] = {"faster",    "slower",    "noise",     "untested",
                                        "disturbed", "ratio min", "ratio med", "ratio max",
                                        "best",      "worst"};
    for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++)
        rl_cmp_table_cell(&t, heads[k]);
    t.n_cols = t.n;
    for (size_t r = 0; r < c->n_rows && !t.oom; r++)
        if (strcmp(c->rows[r].group, group) == 0)
            summary_row(&t, c, r, keyshow);
    if (t.oom)
        b->oom = true;
    else {
        rl_sbuf_printf(b, markdown ? "\n**%s**\n\n" : "\n%s:\n", group);
        rl_cmp_table_render(b, &t, markdown, "  ");
    }
    rl_cmp_table_free(&t);
}

char *rl_cmp_text(const rl_cmp *c, bool markdown, bool all_columns)
{
    rl_sbuf b = {0};
    char buf[1024];
    rl_snprintf(buf, sizeof buf, "llama-roofline compare: %zu inputs, baseline [%zu] %s",
                c->n_inputs, c->baseline + 1, c->inputs[c->baseline].label);
    rl_cmp_text_line(&b, markdown, markdown ? "### " : "", buf);
    if (markdown)
        rl_sbuf_put(&b, "\n", 1);
    bool summary = c->n_inputs >= RL_CMP_SUMMARY_MIN;
    size_t listed = summary ? RL_CMP_TEXT_INPUTS_LISTED : c->n_inputs;
    for (size_t i = 0; i < c->n_inputs && i < listed; i++) {
        const char *cpu = NULL;
        const cJSON *env = cJSON_GetObjectItemCaseSensitive(c->inputs[i].bundle, "environment");
        const cJSON *cv = cJSON_GetObjectItemCaseSensitive(env, "cpu");
        if (cJSON_IsString(cv))
            cpu = cv->valuestring;
        rl_snprintf(buf, sizeof buf, "[%zu] %s: %s%s%s%s", i + 1, c->inputs[i].label,
                    c->inputs[i].path, cpu ? " (" : "", cpu ? cpu : "", cpu ? ")" : "");
        rl_cmp_text_line(&b, markdown, markdown ? "- " : "  ", buf);
    }
    if (summary) {
        rl_snprintf(buf, sizeof buf,
                    "... and %zu more inputs. From %d inputs each row is summarised across "
                    "them (the baseline left out): verdict counts, the ratio to the baseline "
                    "(smallest, median, largest), the best and worst input; compare --json lists "
                    "every input and cell.",
                    c->n_inputs - listed, RL_CMP_SUMMARY_MIN);
        rl_cmp_text_line(&b, markdown, markdown ? "\n" : "  ", buf);
    }
    rl_cmp_test_sentence(c, buf, sizeof buf);
    rl_sbuf_put(&b, "\n", 1);
    rl_cmp_text_line(&b, markdown, "", buf);
    rl_cmp_counts k = rl_cmp_count(c);
    rl_snprintf(buf, sizeof buf,
                "Summary: %zu faster, %zu slower, %zu within noise, %zu not tested, %zu not in "
                "both the input and the baseline.",
                k.faster, k.slower, k.noise, k.untested, k.missing);
    if (markdown)
        rl_sbuf_put(&b, "\n", 1);
    rl_cmp_text_line(&b, markdown, "", buf);
    if (k.disturbed) {
        rl_cmp_disturbed_sentence(c, &k, buf, sizeof buf);
        if (markdown)
            rl_sbuf_put(&b, "\n", 1);
        rl_cmp_text_line(&b, markdown, "", buf);
    }
    warnings(&b, c, markdown);
    /* one table per group, in order of first appearance */
    size_t hidden = 0;
    for (size_t r = 0; r < c->n_rows; r++)
        if (rl_cmp_group_starts(c, r) && summary)
            group_summary(&b, c, c->rows[r].group, markdown, all_columns);
        else if (rl_cmp_group_starts(c, r))
            group_table(&b, c, c->rows[r].group, markdown, all_columns, &hidden);
    if (c->n_rows == 0)
        rl_sbuf_printf(&b, "\nNo rows: no input has a measured rate.\n");
    if (hidden) {
        rl_snprintf(buf, sizeof buf,
                    "%zu rows present on one side only are not listed (--all-columns lists them).",
                    hidden);
        rl_sbuf_put(&b, "\n", 1);
        rl_cmp_text_line(&b, markdown, "", buf);
    }
    return rl_sbuf_take(&b);
}
