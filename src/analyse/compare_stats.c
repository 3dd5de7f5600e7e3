/* SPDX-License-Identifier: MIT */
/* compare_stats.c: the statistics of a comparison (compare.h): the Welch test, the verdict rule
 * and the counts and queries over judged rows. No I/O. */
#include "analyse/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

/* ---- verdicts -------------------------------------------------------------------------- */

bool rl_cmp_welch(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b,
                  double *t, double *df)
{
    double va = sd_a * sd_a / (double)n_a, vb = sd_b * sd_b / (double)n_b;
    double se2 = va + vb;
    if (!(se2 > 0)) {
        *t = mean_b == mean_a ? 0 : (mean_b > mean_a ? INFINITY : -INFINITY);
        *df = NAN;
        return false;
    }
    *t = (mean_b - mean_a) / sqrt(se2);
    double den = 0;
    if (n_a > 1)
        den += va * va / (double)(n_a - 1);
    if (n_b > 1)
        den += vb * vb / (double)(n_b - 1);
    *df = den > 0 ? se2 * se2 / den : NAN;
    return true;
}

void rl_cmp_verdict_of(const rl_cmp_cell *b, rl_cmp_cell *x, bool higher_is_better, double alpha,
                       double min_effect_pct)
{
    x->tested = false;
    x->has_ratio = false;
    if (!b->present || !x->present) {
        x->verdict = RL_CMP_MISSING;
        return;
    }
    if (b->mean != 0) {
        x->has_ratio = true;
        x->ratio = x->mean / b->mean;
        x->delta = x->mean - b->mean;
        x->change_pct = 100.0 * x->delta / b->mean;
    }
    if (b->point || x->point) {
        x->verdict = RL_CMP_ONE_VALUE;
        return;
    }
    if (b->n == 0 || x->n == 0) {
        x->verdict = RL_CMP_NO_SAMPLES;
        return;
    }
    if (b->n < 2 || x->n < 2 || !x->has_ratio) {
        x->verdict = RL_CMP_ONE_SAMPLE;
        return;
    }
    double t, df;
    x->tested = true;
    if (rl_cmp_welch(b->mean, b->sd, b->n, x->mean, x->sd, x->n, &t, &df)) {
        x->t = t;
        x->df = df;
        x->p = isfinite(df) ? rl_stats_t_tail2(fabs(t), df) : 1;
    } else {
        x->t = t;
        x->df = NAN;
        x->p = t == 0 ? 1 : 0;
    }
    bool better = higher_is_better ? x->change_pct > 0 : x->change_pct < 0;
    if (x->p < alpha && fabs(x->change_pct) >= min_effect_pct)
        x->verdict = better ? RL_CMP_FASTER : RL_CMP_SLOWER;
    else
        x->verdict = RL_CMP_NOISE;
}

const char *rl_cmp_verdict_word(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_BASELINE: return "baseline";
    case RL_CMP_MISSING: return "missing";
    case RL_CMP_FASTER: return "faster";
    case RL_CMP_SLOWER: return "slower";
    case RL_CMP_NOISE: return "within noise";
    case RL_CMP_ONE_SAMPLE: return "one sample: not tested";
    case RL_CMP_NO_SAMPLES: return "no samples: not tested";
    case RL_CMP_ONE_VALUE: return "one value: not tested";
    }
    return "?";
}

const char *rl_cmp_verdict_arrow(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_FASTER: return "\xE2\x86\x91"; /* ↑ */
    case RL_CMP_SLOWER: return "\xE2\x86\x93"; /* ↓ */
    case RL_CMP_NOISE: return "=";
    case RL_CMP_ONE_SAMPLE:
    case RL_CMP_NO_SAMPLES:
    case RL_CMP_ONE_VALUE: return "?";
    case RL_CMP_MISSING: return "-";
    case RL_CMP_BASELINE: return "";
    }
    return "";
}

void rl_cmp_test_sentence(const rl_cmp *c, char *buf, size_t cap)
{
    rl_snprintf(buf, cap,
                "Verdicts: Welch's two-sided t-test on the per-repetition samples of each input "
                "against the baseline; faster or slower when p < %g and the change is at least "
                "%g%% of the baseline mean, otherwise within noise. Fewer than 2 samples on a "
                "side: not tested; imported data without samples: not tested; a point metric (one "
                "value per input, e.g. requests/s): not tested.",
                c->alpha, c->min_effect_pct);
}

rl_cmp_counts rl_cmp_count(const rl_cmp *c)
{
    rl_cmp_counts k = {0};
    for (size_t r = 0; r < c->n_rows; r++)
        for (size_t i = 0; i < c->n_inputs; i++) {
            if (i == c->baseline)
                continue;
            if (c->rows[r].cells[i].suspect && c->rows[r].cells[i].verdict != RL_CMP_MISSING)
                k.disturbed++;
            switch (c->rows[r].cells[i].verdict) {
            case RL_CMP_FASTER: k.faster++; break;
            case RL_CMP_SLOWER: k.slower++; break;
            case RL_CMP_NOISE: k.noise++; break;
            case RL_CMP_ONE_SAMPLE:
            case RL_CMP_NO_SAMPLES:
            case RL_CMP_ONE_VALUE: k.untested++; break;
            default: k.missing++; break;
            }
        }
    return k;
}

size_t rl_cmp_regressions(const rl_cmp *c, double pct, size_t *disturbed)
{
    size_t n = 0, d = 0;
    for (size_t r = 0; r < c->n_rows; r++)
        for (size_t i = 0; i < c->n_inputs; i++) {
            const rl_cmp_cell *x = &c->rows[r].cells[i];
            if (i != c->baseline && x->verdict == RL_CMP_SLOWER && x->has_ratio &&
                (c->rows[r].higher_is_better ? -x->change_pct : x->change_pct) > pct) {
                if (x->suspect)
                    d++;
                else
                    n++;
            }
        }
    if (disturbed)
        *disturbed = d;
    return n;
}

bool rl_cmp_group_disturbed(const rl_cmp *c, const char *group)
{
    for (size_t r = 0; r < c->n_rows; r++)
        if (strcmp(c->rows[r].group, group) == 0)
            for (size_t i = 0; i < c->n_inputs; i++)
                if (c->rows[r].cells[i].present && c->rows[r].cells[i].disturbed)
                    return true;
    return false;
}

const rl_cmp_row *rl_cmp_group_first(const rl_cmp *c, const char *group)
{
    for (size_t r = 0; r < c->n_rows; r++)
        if (strcmp(c->rows[r].group, group) == 0)
            return &c->rows[r];
    return NULL;
}

bool rl_cmp_group_starts(const rl_cmp *c, size_t r)
{
    return rl_cmp_group_first(c, c->rows[r].group) == &c->rows[r];
}

bool rl_cmp_listed(const rl_cmp *c, size_t r, size_t i, bool all, size_t *hidden)
{
    const rl_cmp_cell *x = &c->rows[r].cells[i], *b = &c->rows[r].cells[c->baseline];
    if (i == c->baseline || (!x->present && !b->present))
        return false;
    if (all || (x->present && b->present))
        return true;
    (*hidden)++;
    return false;
}

bool rl_cmp_key_varies(const rl_cmp *c, const char *group, const char *name)
{
    const char *first = NULL;
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        if (strcmp(row->group, group) != 0)
            continue;
        for (size_t k = 0; k < row->n_keys; k++) {
            if (strcmp(row->key_names[k], name) != 0)
                continue;
            if (!first)
                first = row->key_values[k];
            else if (strcmp(first, row->key_values[k]) != 0)
                return true;
        }
    }
    return false;
}
