/* SPDX-License-Identifier: MIT */
/* compare_json.c: a comparison as JSON (compare.h). */
#include "analyse/compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_util.h"

/* ---- JSON ------------------------------------------------------------------------------ */

/* item appended to the array arr; NULL (item deleted) when item is NULL or appending fails. */
static cJSON *append(cJSON *arr, cJSON *item)
{
    if (item && !cJSON_AddItemToArray(arr, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

/* The numbers (from 1) of the sides of a suspect cell that were measured disturbed: the
 * baseline's, this input's, or both. */
static cJSON *disturbed_inputs(const rl_cmp_cell *x, size_t i, const rl_cmp_cell *b,
                               size_t baseline)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    if (ok && b->disturbed)
        ok = rl_json_push(a, cJSON_CreateNumber((double)(baseline + 1)));
    if (ok && x->disturbed)
        ok = rl_json_push(a, cJSON_CreateNumber((double)(i + 1)));
    if (!ok) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

static cJSON *cell_json(const rl_cmp *c, const rl_cmp_row *row, size_t i)
{
    const rl_cmp_cell *x = &row->cells[i], *b = &row->cells[c->baseline];
    bool baseline = i == c->baseline;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = true;
    if (!x->present) {
        ok = cJSON_AddFalseToObject(o, "present") != NULL;
        return ok ? o : (cJSON_Delete(o), NULL);
    }
    ok = ok && rl_json_add_num(o, "mean", x->mean);
    if (x->has_sd)
        ok = ok && rl_json_add_num(o, "sd", x->sd);
    ok = ok && rl_json_add_u64(o, "n", x->n);
    if (x->has_ci) {
        ok = ok && rl_json_add_num(o, "ci95_low", x->ci_low);
        ok = ok && rl_json_add_num(o, "ci95_high", x->ci_high);
    }
    if (x->n > 0) {
        cJSON *s = cJSON_CreateDoubleArray(x->samples, (int)x->n);
        ok = ok && rl_json_attach(o, "samples", s);
    }
    if (x->disturbed)
        ok = ok && rl_json_add_bool(o, "disturbed", true);
    if (!baseline) {
        ok = ok && rl_json_add_str(o, "verdict", rl_cmp_verdict_word(x->verdict));
        if (x->suspect) {
            ok = ok && rl_json_add_str(o, "verdict_note",
                                       "measured while the machine was busy (this input or the "
                                       "baseline): the verdict may be wrong");
            ok =
                ok && rl_json_attach(o, "disturbed_inputs", disturbed_inputs(x, i, b, c->baseline));
        }
        if (x->has_ratio) {
            ok = ok && rl_json_add_num(o, "ratio", x->ratio);
            ok = ok && rl_json_add_num(o, "delta", x->delta);
            ok = ok && rl_json_add_num(o, "change_pct", x->change_pct);
        }
        if (x->tested) {
            ok = ok && rl_json_add_num(o, "t", x->t);
            ok = ok && rl_json_add_num(o, "df", x->df);
            ok = ok && rl_json_add_num(o, "p", x->p);
        }
    }
    return rl_json_kept(o, ok);
}

/* Input i's summary: the bundle's facts and its analysis' headline figures; in the fleet form
 * only what identifies it (tool, command, time, CPU) and the figures the fleet table ranks. */
static bool input_summary(cJSON *in, const cJSON *b, bool fleet)
{
    static const char *const top[] = {"tool",        "command",  "created_utc", "source",
                                      "environment", "settings", "llama_cpp"};
    static const size_t n_top_fleet = 3; /* tool, command, created_utc */
    cJSON *sum = cJSON_CreateObject();
    bool ok = rl_json_attach(in, "summary", sum);
    size_t n_top = fleet ? n_top_fleet : sizeof top / sizeof top[0];
    for (size_t k = 0; ok && k < n_top; k++)
        if (rl_json_get(b, top[k]))
            ok = rl_json_attach(sum, top[k], cJSON_Duplicate(rl_json_get(b, top[k]), 1));
    const char *cpu = rl_json_get_str(rl_json_get(b, "environment"), "cpu");
    if (ok && fleet && cpu)
        ok = rl_json_add_str(sum, "cpu", cpu);
    static const char *const an[] = {"fit", "ceiling", "verdict", "utilisation"};
    size_t n_an = fleet ? 3 : 4;
    cJSON *a = cJSON_CreateObject();
    ok = ok && rl_json_attach(sum, "analysis", a);
    for (size_t k = 0; ok && k < n_an; k++)
        if (rl_json_get(rl_json_get(b, "analysis"), an[k]))
            ok = rl_json_attach(a, an[k],
                                cJSON_Duplicate(rl_json_get(rl_json_get(b, "analysis"), an[k]), 1));
    return ok;
}

static bool inputs_json(cJSON *o, const rl_cmp *c, rl_cmp_json_form form)
{
    cJSON *ins = cJSON_CreateArray();
    bool ok = rl_json_attach(o, "inputs", ins);
    for (size_t i = 0; ok && i < c->n_inputs; i++) {
        cJSON *in = append(ins, cJSON_CreateObject());
        if (!in)
            return false;
        ok = rl_json_add_str(in, "label", c->inputs[i].label) &&
             rl_json_add_str(in, "path", c->inputs[i].path) &&
             rl_json_add_bool(in, "disturbed", c->inputs[i].disturbed) &&
             (!c->inputs[i].disturbance ||
              rl_json_add_str(in, "disturbance", c->inputs[i].disturbance));
        const cJSON *b = c->inputs[i].bundle;
        if (ok && form == RL_CMP_JSON_BUNDLES)
            ok = rl_json_attach(in, "bundle", cJSON_Duplicate(b, 1));
        else if (ok) /* the rows hold the samples */
            ok = input_summary(in, b, form == RL_CMP_JSON_FLEET);
    }
    return ok;
}

/* Row r read across the inputs (rl_cmp_row_summary), for the fleet form. */
static cJSON *row_summary_json(const rl_cmp *c, size_t r)
{
    rl_cmp_row_sum s;
    if (!rl_cmp_row_summary(c, r, &s))
        return NULL;
    cJSON *o = cJSON_CreateObject();
    bool ok =
        o && rl_json_add_u64(o, "faster", s.faster) && rl_json_add_u64(o, "slower", s.slower) &&
        rl_json_add_u64(o, "noise", s.noise) && rl_json_add_u64(o, "untested", s.untested) &&
        rl_json_add_u64(o, "missing", s.missing) && rl_json_add_u64(o, "suspect", s.suspect) &&
        rl_json_add_u64(o, "with_ratio", s.with_ratio);
    if (ok && s.with_ratio)
        ok = rl_json_add_num(o, "ratio_min", s.ratio_min) &&
             rl_json_add_num(o, "ratio_median", s.ratio_median) &&
             rl_json_add_num(o, "ratio_max", s.ratio_max) &&
             rl_json_add_u64(o, "best_input", s.best + 1) &&
             rl_json_add_u64(o, "worst_input", s.worst + 1);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool rows_json(cJSON *o, const rl_cmp *c, rl_cmp_json_form form)
{
    cJSON *rows = cJSON_CreateArray();
    bool ok = rl_json_attach(o, "rows", rows);
    for (size_t r = 0; ok && r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        cJSON *ro = append(rows, cJSON_CreateObject());
        if (!ro)
            return false;
        ok = rl_json_add_str(ro, "group", row->group) &&
             rl_json_add_str(ro, "subject", row->subject) &&
             rl_json_add_str(ro, "metric", row->metric) && rl_json_add_str(ro, "unit", row->unit) &&
             (!row->kind || rl_json_add_str(ro, "kind", row->kind)) &&
             (!row->single || cJSON_AddTrueToObject(ro, "one_value"));
        cJSON *keys = cJSON_CreateObject();
        ok = ok && rl_json_attach(ro, "keys", keys);
        for (size_t k = 0; ok && k < row->n_keys; k++)
            ok = rl_json_add_str(keys, row->key_names[k], row->key_values[k]);
        if (ok && form == RL_CMP_JSON_FLEET) {
            ok = rl_json_attach(ro, "summary", row_summary_json(c, r));
            continue;
        }
        cJSON *cells = cJSON_CreateArray();
        ok = ok && rl_json_attach(ro, "cells", cells);
        for (size_t i = 0; ok && i < c->n_inputs; i++)
            ok = append(cells, cell_json(c, row, i)) != NULL;
    }
    return ok;
}

/* Fact f's distinct values, the most common first (the fleet form's "values_top"). */
static cJSON *fact_top_json(const rl_cmp *c, size_t f, size_t *n_distinct)
{
    rl_cmp_value_count top[RL_CMP_FLEET_TOP_VALUES];
    size_t n;
    if (!rl_cmp_fact_values(c, f, top, RL_CMP_FLEET_TOP_VALUES, &n, n_distinct))
        return NULL;
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (size_t k = 0; ok && k < n; k++) {
        cJSON *v = append(a, cJSON_CreateObject());
        ok = v && rl_json_add_str(v, "value", top[k].value) &&
             rl_json_add_u64(v, "count", top[k].count) &&
             rl_json_add_u64(v, "first_input", top[k].first + 1);
    }
    if (!ok) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}

static bool facts_json(cJSON *o, const rl_cmp *c, rl_cmp_json_form form)
{
    cJSON *fs = cJSON_CreateArray();
    bool ok = rl_json_attach(o, "facts", fs);
    for (size_t f = 0; ok && f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        cJSON *fo = append(fs, cJSON_CreateObject());
        if (!fo)
            return false;
        ok = rl_json_add_str(fo, "label", fa->label) &&
             rl_json_add_str(fo, "section", fa->section) &&
             cJSON_AddBoolToObject(fo, "suite", fa->suite) &&
             cJSON_AddBoolToObject(fo, "differs", fa->differs);
        if (ok && form == RL_CMP_JSON_FLEET) {
            size_t d = 0;
            ok = rl_json_attach(fo, "values_top", fact_top_json(c, f, &d)) &&
                 rl_json_add_u64(fo, "distinct", d);
            continue;
        }
        cJSON *vals = cJSON_CreateArray();
        ok = ok && rl_json_attach(fo, "values", vals);
        for (size_t i = 0; ok && i < c->n_inputs; i++)
            ok = append(vals, rl_json_str(fa->values[i])) != NULL;
    }
    return ok;
}

const char *rl_cmp_json_form_name(rl_cmp_json_form form)
{
    return form == RL_CMP_JSON_BUNDLES ? "bundles"
           : form == RL_CMP_JSON_FLEET ? "fleet"
                                       : "summary";
}

cJSON *rl_cmp_to_json(const rl_cmp *c, rl_cmp_json_form form)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "schema", "llama-roofline-compare") &&
              rl_json_add_u64(o, "schema_version", 1) &&
              rl_json_add_str(o, "form", rl_cmp_json_form_name(form));
    if (ok && form == RL_CMP_JSON_FLEET)
        ok = rl_json_add_str(o, "omitted",
                             "each row's cells and each fact's value per input (a fleet page "
                             "summarises them): llama-roofline compare --json gives every one");
    cJSON *test = cJSON_CreateObject();
    ok = ok && rl_json_attach(o, "test", test) &&
         rl_json_add_str(test, "name", "Welch two-sided t-test") &&
         rl_json_add_num(test, "alpha", c->alpha) &&
         rl_json_add_num(test, "min_effect_pct", c->min_effect_pct);
    ok = ok && rl_json_add_u64(o, "baseline", c->baseline + 1);
    ok = ok && inputs_json(o, c, form) && rows_json(o, c, form) && facts_json(o, c, form);
    return rl_json_kept(o, ok);
}
