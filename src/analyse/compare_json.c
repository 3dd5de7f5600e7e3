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

cJSON *rl_cmp_to_json(const rl_cmp *c, bool with_bundles)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "schema", "llama-roofline-compare") &&
              rl_json_add_u64(o, "schema_version", 1);
    cJSON *test = cJSON_CreateObject();
    ok = ok && rl_json_attach(o, "test", test) &&
         rl_json_add_str(test, "name", "Welch two-sided t-test") &&
         rl_json_add_num(test, "alpha", c->alpha) &&
         rl_json_add_num(test, "min_effect_pct", c->min_effect_pct);
    ok = ok && rl_json_add_u64(o, "baseline", c->baseline + 1);
    cJSON *ins = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "inputs", ins);
    for (size_t i = 0; ok && i < c->n_inputs; i++) {
        cJSON *in = append(ins, cJSON_CreateObject());
        if (!in) {
            ok = false;
            break;
        }
        ok = rl_json_add_str(in, "label", c->inputs[i].label) &&
             rl_json_add_str(in, "path", c->inputs[i].path) &&
             rl_json_add_bool(in, "disturbed", c->inputs[i].disturbed) &&
             (!c->inputs[i].disturbance ||
              rl_json_add_str(in, "disturbance", c->inputs[i].disturbance));
        const cJSON *b = c->inputs[i].bundle;
        if (ok && with_bundles) {
            ok = rl_json_attach(in, "bundle", cJSON_Duplicate(b, 1));
        } else if (ok) { /* the facts and the analysis' summary; the rows hold the samples */
            static const char *const top[] = {"tool",        "command",  "created_utc", "source",
                                              "environment", "settings", "llama_cpp"};
            cJSON *sum = cJSON_CreateObject();
            ok = rl_json_attach(in, "summary", sum);
            for (size_t k = 0; ok && k < sizeof top / sizeof top[0]; k++)
                if (rl_json_get(b, top[k]))
                    ok = rl_json_attach(sum, top[k], cJSON_Duplicate(rl_json_get(b, top[k]), 1));
            static const char *const an[] = {"fit", "ceiling", "utilisation", "verdict"};
            cJSON *a = cJSON_CreateObject();
            ok = ok && rl_json_attach(sum, "analysis", a);
            for (size_t k = 0; ok && k < sizeof an / sizeof an[0]; k++)
                if (rl_json_get(rl_json_get(b, "analysis"), an[k]))
                    ok = rl_json_attach(
                        a, an[k],
                        cJSON_Duplicate(rl_json_get(rl_json_get(b, "analysis"), an[k]), 1));
        }
    }
    cJSON *rows = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "rows", rows);
    for (size_t r = 0; ok && r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        cJSON *ro = append(rows, cJSON_CreateObject());
        if (!ro) {
            ok = false;
            break;
        }
        ok = rl_json_add_str(ro, "group", row->group) &&
             rl_json_add_str(ro, "subject", row->subject) &&
             rl_json_add_str(ro, "metric", row->metric) && rl_json_add_str(ro, "unit", row->unit) &&
             (!row->kind || rl_json_add_str(ro, "kind", row->kind)) &&
             (!row->single || cJSON_AddTrueToObject(ro, "one_value"));
        cJSON *keys = cJSON_CreateObject();
        ok = ok && rl_json_attach(ro, "keys", keys);
        for (size_t k = 0; ok && k < row->n_keys; k++)
            ok = rl_json_add_str(keys, row->key_names[k], row->key_values[k]);
        cJSON *cells = cJSON_CreateArray();
        ok = ok && rl_json_attach(ro, "cells", cells);
        for (size_t i = 0; ok && i < c->n_inputs; i++) {
            ok = append(cells, cell_json(c, row, i)) != NULL;
        }
    }
    cJSON *fs = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "facts", fs);
    for (size_t f = 0; ok && f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        cJSON *fo = append(fs, cJSON_CreateObject());
        if (!fo) {
            ok = false;
            break;
        }
        ok = rl_json_add_str(fo, "label", fa->label) &&
             rl_json_add_str(fo, "section", fa->section) &&
             cJSON_AddBoolToObject(fo, "suite", fa->suite) &&
             cJSON_AddBoolToObject(fo, "differs", fa->differs);
        cJSON *vals = cJSON_CreateArray();
        ok = ok && rl_json_attach(fo, "values", vals);
        for (size_t i = 0; ok && i < c->n_inputs; i++) {
            ok = append(vals, rl_json_str(fa->values[i])) != NULL;
        }
    }
    return rl_json_kept(o, ok);
}
