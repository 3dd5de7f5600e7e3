/* SPDX-License-Identifier: MIT */
/* history_json.c: a history as JSON (history.h): the --json result and the page's embedded
 * data. */
#include "analyse/history.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_util.h"

/* item appended to arr; NULL (item deleted) when item is NULL or appending fails. */
static cJSON *append(cJSON *arr, cJSON *item)
{
    if (item && !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

static cJSON *point_json(const rl_hist_point *p, bool first, bool full)
{
    const rl_cmp_cell *x = &p->cell;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_u64(o, "input", p->input + 1) &&
              rl_json_add_num(o, "mean", x->mean) && rl_json_add_u64(o, "n", x->n);
    if (x->has_sd)
        ok = ok && rl_json_add_num(o, "sd", x->sd);
    if (full && x->has_ci)
        ok = ok && rl_json_add_num(o, "ci95_low", x->ci_low) &&
             rl_json_add_num(o, "ci95_high", x->ci_high);
    if (full && x->n > 0)
        ok = ok && rl_json_attach(o, "samples", cJSON_CreateDoubleArray(x->samples, (int)x->n));
    if (x->disturbed)
        ok = ok && rl_json_add_bool(o, "disturbed", true);
    if (!first) {
        ok = ok && rl_json_add_str(o, "verdict", rl_cmp_verdict_word(x->verdict));
        if (x->suspect && !full)
            ok = ok && rl_json_add_bool(o, "suspect", true);
        else if (x->suspect)
            ok = ok && rl_json_add_str(o, "verdict_note",
                                       "measured while the machine was busy (this bundle or the "
                                       "one before): the verdict may be wrong");
        if (x->has_ratio && full)
            ok = ok && rl_json_add_num(o, "ratio", x->ratio) &&
                 rl_json_add_num(o, "delta", x->delta);
        if (x->has_ratio)
            ok = ok && rl_json_add_num(o, "change_pct", x->change_pct);
        if (x->tested && full)
            ok = ok && rl_json_add_num(o, "t", x->t) && rl_json_add_num(o, "df", x->df);
        if (x->tested)
            ok = ok && rl_json_add_num(o, "p", x->p);
        if (p->changes)
            ok = ok && rl_json_add_str(o, "changes", p->changes);
    }
    return rl_json_kept(o, ok);
}

/* An input; kept: one of the machine's (facts when full), else one left out (its machine). */
static cJSON *input_json(const rl_hist_input *in, bool kept, bool full)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "label", in->label) && rl_json_add_str(o, "path", in->path) &&
              rl_json_add_str(o, "created_utc", in->created);
    if (!kept)
        return rl_json_kept(o, ok && rl_json_add_str(o, "machine", in->machine));
    ok = ok && rl_json_add_str(o, "build", in->build);
    cJSON *f = full ? cJSON_CreateObject() : NULL;
    ok = ok && (!full || rl_json_attach(o, "facts", f));
    for (size_t k = 0; ok && full && k < RL_HIST_N_FACTS; k++)
        ok = rl_json_add_str(f, rl_hist_fact_defs[k].label, in->facts[k]);
    ok = ok && rl_json_add_bool(o, "disturbed", in->disturbed);
    if (in->disturbance)
        ok = ok && rl_json_add_str(o, "disturbance", in->disturbance);
    return rl_json_kept(o, ok);
}

static cJSON *series_json(const rl_hist_series *s, bool full)
{
    const rl_cmp_row *row = &s->row;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "group", row->group) &&
              rl_json_add_str(o, "subject", row->subject) &&
              rl_json_add_str(o, "metric", row->metric) && rl_json_add_str(o, "unit", row->unit) &&
              (!row->kind || rl_json_add_str(o, "kind", row->kind)) &&
              rl_json_add_bool(o, "higher_is_better", row->higher_is_better) &&
              (!row->single || cJSON_AddTrueToObject(o, "one_value"));
    cJSON *keys = cJSON_CreateObject();
    ok = ok && rl_json_attach(o, "keys", keys);
    for (size_t k = 0; ok && k < row->n_keys; k++)
        ok = rl_json_add_str(keys, row->key_names[k], row->key_values[k]);
    cJSON *pts = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "points", pts);
    for (size_t k = 0; ok && k < s->n_pts; k++)
        ok = append(pts, point_json(&s->pts[k], k == 0, full)) != NULL;
    return rl_json_kept(o, ok);
}

cJSON *rl_hist_to_json(const rl_hist *h, bool full)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "schema", "llama-roofline-history") &&
              rl_json_add_u64(o, "schema_version", 1);
    cJSON *test = cJSON_CreateObject();
    ok =
        ok && rl_json_attach(o, "test", test) &&
        rl_json_add_str(test, "name", "Welch two-sided t-test, each step against the one before") &&
        rl_json_add_num(test, "alpha", h->alpha) &&
        rl_json_add_num(test, "min_effect_pct", h->min_effect_pct);
    ok = ok && rl_json_add_str(o, "machine", h->n_inputs ? h->inputs[0].machine : "unknown");
    cJSON *ins = cJSON_CreateArray(), *left = cJSON_CreateArray(), *ser = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "inputs", ins);
    ok = ok && rl_json_attach(o, "left_out", left);
    ok = ok && rl_json_attach(o, "series", ser);
    for (size_t i = 0; ok && i < h->n_inputs; i++)
        ok = append(ins, input_json(&h->inputs[i], true, full)) != NULL;
    for (size_t i = 0; ok && i < h->n_others; i++)
        ok = append(left, input_json(&h->others[i], false, full)) != NULL;
    for (size_t s = 0; ok && s < h->n_series; s++)
        ok = append(ser, series_json(&h->series[s], full)) != NULL;
    return rl_json_kept(o, ok);
}
