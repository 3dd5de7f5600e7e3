/* SPDX-License-Identifier: MIT */
/* history_series.c: the history's series (history.h): the inputs' rows put into one series per
 * row key (a hash table of keys), each step judged against the point before with compare's
 * rule and annotated with what changed; the listing, the counts and the regressions. No I/O. */
#include "analyse/history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

/* ---- the series table ---------------------------------------------------------------------- */

static uint64_t hash2(const char *a, const char *b)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *s = a; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ 0x1f) * 1099511628211ull;
    for (const char *s = b; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static bool grow_slots(rl_hist *h)
{
    size_t n = h->n_slots ? h->n_slots * 2 : 256;
    size_t *t = rl_calloc(n, sizeof *t);
    if (!t)
        return false;
    for (size_t s = 0; s < h->n_series; s++) {
        size_t at = hash2(h->series[s].row.group, h->series[s].row.key) & (n - 1);
        while (t[at])
            at = (at + 1) & (n - 1);
        t[at] = s + 1;
    }
    free(h->slots);
    h->slots = t;
    h->n_slots = n;
    return true;
}

/* The series of row r, made from it (r's strings moved, its cells freed) when new; NULL when
 * out of memory. *fresh says which. */
static rl_hist_series *series_of(rl_hist *h, rl_cmp_row *r, bool *fresh)
{
    *fresh = false;
    if ((h->n_series + 1) * 2 > h->n_slots && !grow_slots(h))
        return NULL;
    size_t at = hash2(r->group, r->key) & (h->n_slots - 1);
    while (h->slots[at]) {
        rl_hist_series *s = &h->series[h->slots[at] - 1];
        if (strcmp(s->row.key, r->key) == 0 && strcmp(s->row.group, r->group) == 0)
            return s;
        at = (at + 1) & (h->n_slots - 1);
    }
    if (h->n_series == h->cap_series) {
        rl_hist_series *p = rl_grow(h->series, &h->cap_series, sizeof *p, 16);
        if (!p)
            return NULL;
        h->series = p;
    }
    rl_hist_series *s = &h->series[h->n_series];
    memset(s, 0, sizeof *s);
    s->row = *r;
    s->row.cells = NULL;
    memset(r, 0, sizeof *r); /* moved: its cells stay with the caller */
    h->slots[at] = ++h->n_series;
    *fresh = true;
    return s;
}

static bool add_point(rl_hist_series *s, size_t input, rl_cmp_cell *cell)
{
    if (s->n_pts == s->cap_pts) {
        rl_hist_point *p = rl_grow(s->pts, &s->cap_pts, sizeof *p, 8);
        if (!p)
            return false;
        s->pts = p;
    }
    rl_hist_point *pt = &s->pts[s->n_pts++];
    memset(pt, 0, sizeof *pt);
    pt->input = input;
    pt->cell = *cell;
    cell->samples = NULL; /* moved */
    cell->n = 0;
    return true;
}

/* ---- annotations --------------------------------------------------------------------------- */

char *rl_hist_changes(const rl_hist *h, size_t a, size_t b, bool *oom)
{
    const rl_hist_input *x = &h->inputs[a], *y = &h->inputs[b];
    rl_sbuf s = {0};
    for (size_t f = 0; f < RL_HIST_N_FACTS; f++)
        if (strcmp(x->facts[f], y->facts[f]) != 0)
            rl_sbuf_printf(&s, "%s%s: %.120s -> %.120s", s.len ? "; " : "",
                           rl_hist_fact_defs[f].label, x->facts[f], y->facts[f]);
    if (y->disturbed)
        rl_sbuf_printf(&s, "%smeasured disturbed%s%.300s", s.len ? "; " : "",
                       y->disturbance ? ": " : "", y->disturbance ? y->disturbance : "");
    *oom = false;
    if (s.len == 0) {
        free(rl_sbuf_take(&s));
        return NULL;
    }
    char *t = rl_sbuf_take(&s);
    *oom = t == NULL;
    return t;
}

/* ---- building ------------------------------------------------------------------------------ */

static rl_status judge(rl_hist *h, rl_hist_series *s, rl_error *err)
{
    for (size_t k = 0; k < s->n_pts; k++) {
        rl_hist_point *p = &s->pts[k];
        if (k == 0) {
            p->cell.verdict = RL_CMP_BASELINE;
            p->cell.suspect = p->cell.disturbed;
            continue;
        }
        const rl_hist_point *q = &s->pts[k - 1];
        rl_cmp_verdict_of(&q->cell, &p->cell, s->row.higher_is_better, h->alpha, h->min_effect_pct);
        p->cell.suspect = p->cell.disturbed || q->cell.disturbed;
        bool oom;
        p->changes = rl_hist_changes(h, q->input, p->input, &oom);
        if (oom)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    return RL_OK;
}

/* The series grouped as compare shows its groups (llama-bench, advice, client, then the
 * ceiling and anything else), each group in order of first appearance. The key table is
 * dropped: nothing is looked up after this. */
static rl_status order_groups(rl_hist *h, rl_error *err)
{
    static const char *const order[] = {RL_CMP_GROUP_DECODE, RL_CMP_GROUP_ADVICE,
                                        RL_CMP_GROUP_CLIENT, RL_HIST_GROUP_CEILING};
    size_t n_order = sizeof order / sizeof order[0];
    rl_hist_series *out = rl_calloc(h->n_series ? h->n_series : 1, sizeof *out);
    if (!out)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t n = 0;
    for (size_t g = 0; g <= n_order; g++)
        for (size_t s = 0; s < h->n_series; s++) {
            size_t rank = 0;
            while (rank < n_order && strcmp(h->series[s].row.group, order[rank]) != 0)
                rank++;
            if (rank == g)
                out[n++] = h->series[s];
        }
    free(h->series);
    h->series = out;
    h->cap_series = h->n_series ? h->n_series : 1;
    free(h->slots);
    h->slots = NULL;
    h->n_slots = 0;
    return RL_OK;
}

rl_status rl_hist_build_series(rl_hist *h, rl_error *err)
{
    rl_status st = RL_OK;
    for (size_t i = 0; i < h->n_inputs; i++) {
        rl_hist_input *in = &h->inputs[i];
        for (size_t r = 0; st == RL_OK && r < in->n_rows; r++) {
            rl_cmp_row *row = &in->rows[r];
            rl_cmp_cell *cell = row->cells;
            if (!cell || !cell->present)
                continue;
            bool fresh;
            rl_hist_series *s = series_of(h, row, &fresh);
            if (!s || !add_point(s, i, cell))
                st = rl_fail(err, RL_EINTERNAL, "out of memory");
            if (fresh) { /* the row's strings went to the series; its cell is still ours */
                free(cell->samples);
                free(cell);
            }
        }
        for (size_t r = 0; r < in->n_rows; r++)
            rl_cmp_row_free(&in->rows[r], 1);
        free(in->rows);
        in->rows = NULL;
        in->n_rows = 0;
        if (st != RL_OK)
            return st;
    }
    st = order_groups(h, err);
    for (size_t s = 0; st == RL_OK && s < h->n_series; s++)
        st = judge(h, &h->series[s], err);
    return st;
}

/* ---- queries ------------------------------------------------------------------------------- */

bool rl_hist_wanted(const rl_hist_series *s, size_t k, bool all)
{
    const rl_hist_point *p = &s->pts[k];
    return all || k == 0 || k + 1 == s->n_pts || p->cell.verdict == RL_CMP_FASTER ||
           p->cell.verdict == RL_CMP_SLOWER || p->changes != NULL || p->cell.disturbed;
}

size_t rl_hist_listed(const rl_hist_series *s, bool all, size_t max, size_t *idx)
{
    size_t n = 0;
    if (max < 2)
        max = 2;
    for (size_t k = 0; k < s->n_pts; k++) {
        if (!rl_hist_wanted(s, k, all))
            continue;
        if (!all && n >= max - 1 && k + 1 < s->n_pts)
            continue; /* keep the last place for the last point */
        idx[n++] = k;
    }
    return n;
}

rl_hist_counts rl_hist_count(const rl_hist *h)
{
    rl_hist_counts c = {0};
    for (size_t s = 0; s < h->n_series; s++)
        for (size_t k = 1; k < h->series[s].n_pts; k++) {
            const rl_cmp_cell *x = &h->series[s].pts[k].cell;
            c.suspect += x->suspect;
            switch (x->verdict) {
            case RL_CMP_FASTER: c.faster++; break;
            case RL_CMP_SLOWER: c.slower++; break;
            case RL_CMP_NOISE: c.noise++; break;
            default: c.untested++; break;
            }
        }
    return c;
}

bool rl_hist_is_regression(const rl_hist_series *s, size_t k, double pct)
{
    const rl_cmp_cell *x = &s->pts[k].cell;
    return k > 0 && x->verdict == RL_CMP_SLOWER && x->has_ratio &&
           (s->row.higher_is_better ? -x->change_pct : x->change_pct) > pct;
}

size_t rl_hist_regressions(const rl_hist *h, double pct, size_t *disturbed)
{
    size_t n = 0, d = 0;
    for (size_t s = 0; s < h->n_series; s++)
        for (size_t k = 1; k < h->series[s].n_pts; k++)
            if (rl_hist_is_regression(&h->series[s], k, pct)) {
                if (h->series[s].pts[k].cell.suspect)
                    d++;
                else
                    n++;
            }
    if (disturbed)
        *disturbed = d;
    return n;
}

void rl_hist_series_title(const rl_hist_series *s, char *buf, size_t cap)
{
    rl_sbuf b = {0};
    rl_sbuf_printf(&b, "%.200s %.300s", s->row.metric, s->row.subject);
    for (size_t k = 0; k < s->row.n_keys; k++)
        if (*s->row.key_values[k] && strcmp(s->row.key_names[k], "model") != 0)
            rl_sbuf_printf(&b, " %.60s=%.200s", s->row.key_names[k], s->row.key_values[k]);
    char *t = rl_sbuf_take(&b);
    rl_snprintf(buf, cap, "%s", t ? t : "?");
    free(t);
}

void rl_hist_test_sentence(const rl_hist *h, char *buf, size_t cap)
{
    rl_snprintf(buf, cap,
                "Steps: each bundle against the one before it in the same series, with "
                "compare's rule: Welch's two-sided t-test on the per-repetition samples; faster "
                "or slower when p < %g and the change is at least %g%% of the earlier mean, "
                "otherwise within noise. Fewer than 2 samples on a side, imported data without "
                "samples, or a point metric (one value per bundle): not tested.",
                h->alpha, h->min_effect_pct);
}
