/* SPDX-License-Identifier: MIT */
/* compare_summary.c: a comparison read row by row and fact by fact instead of cell by cell
 * (compare.h): what a fleet of hundreds of inputs shows in place of one line per input. No
 * I/O; nothing here allocates that outlives the call. */
#include "analyse/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* How much better x's ratio is than y's for a row: > 0 when x is better. */
static double better_by(const rl_cmp_row *row, double x, double y)
{
    return row->higher_is_better ? x - y : y - x;
}

static void count_verdict(rl_cmp_row_sum *s, rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_FASTER: s->faster++; break;
    case RL_CMP_SLOWER: s->slower++; break;
    case RL_CMP_NOISE: s->noise++; break;
    case RL_CMP_ONE_SAMPLE:
    case RL_CMP_NO_SAMPLES:
    case RL_CMP_ONE_VALUE: s->untested++; break;
    default: s->missing++; break;
    }
}

bool rl_cmp_row_summary(const rl_cmp *c, size_t r, rl_cmp_row_sum *s)
{
    memset(s, 0, sizeof *s);
    s->best = s->worst = SIZE_MAX;
    s->ratio_min = s->ratio_median = s->ratio_max = NAN;
    const rl_cmp_row *row = &c->rows[r];
    double *ratios = rl_calloc(c->n_inputs ? c->n_inputs : 1, sizeof *ratios);
    if (!ratios)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < c->n_inputs; i++) {
        if (i == c->baseline)
            continue;
        const rl_cmp_cell *x = &row->cells[i];
        count_verdict(s, x->verdict);
        s->suspect += x->suspect && x->verdict != RL_CMP_MISSING;
        if (x->verdict == RL_CMP_MISSING || !x->has_ratio || !isfinite(x->ratio))
            continue;
        ratios[n++] = x->ratio;
        if (s->best == SIZE_MAX || better_by(row, x->ratio, row->cells[s->best].ratio) > 0)
            s->best = i;
        if (s->worst == SIZE_MAX || better_by(row, x->ratio, row->cells[s->worst].ratio) < 0)
            s->worst = i;
    }
    s->with_ratio = n;
    if (n) {
        qsort(ratios, n, sizeof *ratios, cmp_double);
        s->ratio_min = ratios[0];
        s->ratio_max = ratios[n - 1];
        s->ratio_median = rl_stats_percentile_sorted(ratios, n, 50);
    }
    free(ratios);
    return true;
}

/* ---- facts ------------------------------------------------------------------------------ */

typedef struct {
    const char *value;
    size_t first;
} value_at;

static int cmp_value(const void *a, const void *b)
{
    const value_at *x = a, *y = b;
    int d = strcmp(x->value, y->value);
    return d ? d : (x->first < y->first ? -1 : x->first > y->first);
}

static int cmp_count(const void *a, const void *b)
{
    const rl_cmp_value_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

bool rl_cmp_fact_values(const rl_cmp *c, size_t f, rl_cmp_value_count *out, size_t cap,
                        size_t *n_out, size_t *n_distinct)
{
    *n_out = *n_distinct = 0;
    size_t n = c->n_inputs;
    value_at *v = rl_calloc(n ? n : 1, sizeof *v);
    rl_cmp_value_count *all = rl_calloc(n ? n : 1, sizeof *all);
    if (!v || !all) {
        free(v);
        free(all);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        v[i].value = c->facts[f].values[i] ? c->facts[f].values[i] : "unknown";
        v[i].first = i;
    }
    qsort(v, n, sizeof *v, cmp_value);
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        if (d && strcmp(all[d - 1].value, v[i].value) == 0) {
            all[d - 1].count++;
            continue;
        }
        all[d].value = v[i].value;
        all[d].first = v[i].first; /* the sort put the earliest input first */
        all[d].count = 1;
        d++;
    }
    qsort(all, d, sizeof *all, cmp_count);
    *n_distinct = d;
    *n_out = d < cap ? d : cap;
    memcpy(out, all, *n_out * sizeof *out);
    free(v);
    free(all);
    return true;
}
