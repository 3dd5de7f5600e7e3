/* SPDX-License-Identifier: MIT */
/* validate_compare.c: the checks of a comparison's JSON (compare --json, or the data a
 * comparison page embeds; compare.h's rl_cmp_to_json) beyond its shape: what `validate`
 * runs on a compare page, so that nothing the tool writes fails its own validate. See
 * validate.h (rl_validate_compare). */
#include "analyse/validate.h"

#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyse/compare.h"
#include "base/rl_json.h"
#include "base/rl_text.h"

#define CPATH 256
#define CMP_TOL 1e-9

typedef rl_validate_problems probs;

static bool close_rel(double a, double b)
{
    return fabs(a - b) <= CMP_TOL * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static bool whole_in(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
           v->valuedouble == floor(v->valuedouble) && v->valuedouble >= lo && v->valuedouble <= hi;
}

static bool verdict_known(const char *w)
{
    for (int v = RL_CMP_MISSING; v <= RL_CMP_ONE_VALUE; v++)
        if (strcmp(w, rl_cmp_verdict_word((rl_cmp_verdict)v)) == 0)
            return true;
    return false;
}

static void need_str(const cJSON *o, const char *key, const char *path, probs *p)
{
    if (!rl_json_get_str(o, key))
        rl_validate_add(p, path, "%s is missing or not a string", key);
}

/* ---- the top ---------------------------------------------------------------------------- */

/* The form, the test and the baseline (*baseline_ok false when it names no input: the cells,
 * judged against it, are not checked then); the number of inputs (0 when unusable). */
static size_t check_head(const cJSON *j, const char **form, bool *baseline_ok, probs *p)
{
    *baseline_ok = true;
    const cJSON *v = rl_json_get(j, "schema_version");
    if (!cJSON_IsNumber(v) || v->valuedouble != 1)
        rl_validate_add(p, "schema_version", "schema_version is not 1 (this validate reads 1)");
    *form = rl_json_get_str(j, "form");
    if (*form && strcmp(*form, "bundles") != 0 && strcmp(*form, "summary") != 0 &&
        strcmp(*form, "fleet") != 0)
        rl_validate_add(p, "form", "form '%s' is none of bundles, summary, fleet", *form);
    const cJSON *t = rl_json_get(j, "test");
    double alpha = rl_json_num_or(t, "alpha", NAN), eff = rl_json_num_or(t, "min_effect_pct", NAN);
    need_str(t, "name", "test", p);
    if (!(alpha > 0 && alpha < 1))
        rl_validate_add(p, "test.alpha", "alpha is not a number between 0 and 1");
    if (!(eff >= 0))
        rl_validate_add(p, "test.min_effect_pct", "min_effect_pct is not a number >= 0");
    const cJSON *ins = rl_json_get(j, "inputs");
    size_t n = cJSON_IsArray(ins) ? (size_t)cJSON_GetArraySize(ins) : 0;
    if (n < 2 || n > RL_CMP_MAX_INPUTS) {
        rl_validate_add(p, "inputs", "inputs is not an array of 2 to %d inputs", RL_CMP_MAX_INPUTS);
        return 0;
    }
    if (!whole_in(rl_json_get(j, "baseline"), 1, (double)n)) {
        rl_validate_add(p, "baseline", "baseline is not an input number from 1 to %zu", n);
        *baseline_ok = false;
    }
    return n;
}

static void check_inputs(const cJSON *j, const char *form, probs *p)
{
    size_t i = 0;
    const cJSON *in;
    cJSON_ArrayForEach(in, rl_json_get(j, "inputs"))
    {
        char path[CPATH];
        rl_snprintf(path, sizeof path, "inputs[%zu]", i++);
        need_str(in, "label", path, p);
        need_str(in, "path", path, p);
        if (!cJSON_IsBool(rl_json_get(in, "disturbed")))
            rl_validate_add(p, path, "disturbed is missing or not true/false");
        const cJSON *b = rl_json_get(in, "bundle");
        bool want_bundle = form && strcmp(form, "bundles") == 0;
        if (want_bundle && !cJSON_IsObject(b))
            rl_validate_add(p, path, "the bundles form has no bundle here");
        else if (!want_bundle && !cJSON_IsObject(rl_json_get(in, "summary")) && !b)
            rl_validate_add(p, path, "neither a bundle nor a summary");
    }
}

/* ---- rows ------------------------------------------------------------------------------- */

/* A present cell: its n and samples, its mean against them, its verdict, its ratio and change
 * against the baseline's mean (bmean, NAN when the baseline has none). */
static void check_cell(const cJSON *x, bool baseline, double bmean, const char *path, probs *p)
{
    double mean = rl_json_num_or(x, "mean", NAN);
    if (!isfinite(mean))
        rl_validate_add(p, path, "a present cell without a finite mean");
    const cJSON *n = rl_json_get(x, "n"), *s = rl_json_get(x, "samples");
    if (!whole_in(n, 0, RL_CMP_MAX_SAMPLES))
        rl_validate_add(p, path, "n is not a whole number from 0 to %d", RL_CMP_MAX_SAMPLES);
    else if (n->valuedouble > 0 &&
             (!rl_json_is_array(s) || (double)rl_json_array_size(s) != n->valuedouble))
        rl_validate_add(p, path, "samples does not hold n = %.0f values", n->valuedouble);
    else if (n->valuedouble > 0) {
        double sum = 0, *v = NULL;
        size_t k = 0;
        if (rl_json_values(s, &v, &k) != RL_OK)
            sum = NAN; /* out of memory */
        for (size_t i = 0; i < k; i++)
            sum += v[i];
        free(v);
        if (!close_rel(sum / n->valuedouble, mean))
            rl_validate_add(p, path, "mean %.17g is not the mean of its samples (%.17g)", mean,
                            sum / n->valuedouble);
    }
    const char *w = rl_json_get_str(x, "verdict");
    if (baseline) {
        if (w)
            rl_validate_add(p, path, "the baseline's own cell has a verdict");
        return;
    }
    if (!w || !verdict_known(w))
        rl_validate_add(p, path, "verdict is missing or not one compare gives");
    double ratio = rl_json_num_or(x, "ratio", NAN);
    if (rl_json_get(x, "ratio") && isfinite(bmean) && bmean != 0 && !close_rel(ratio, mean / bmean))
        rl_validate_add(p, path, "ratio %.17g is not mean / the baseline's mean (%.17g)", ratio,
                        mean / bmean);
    double pv = rl_json_num_or(x, "p", NAN);
    if (w && (strcmp(w, "faster") == 0 || strcmp(w, "slower") == 0) && !(pv >= 0 && pv <= 1))
        rl_validate_add(p, path, "a %s verdict without a p-value in [0, 1]", w);
}

static void check_cells(const cJSON *cells, size_t n_inputs, size_t baseline, const char *rp,
                        probs *p)
{
    if (!cJSON_IsArray(cells) || (size_t)cJSON_GetArraySize(cells) != n_inputs) {
        rl_validate_add(p, rp, "cells does not hold one cell per input (%zu)", n_inputs);
        return;
    }
    const cJSON *b = cJSON_GetArrayItem(cells, (int)baseline);
    bool bpresent = !rl_json_get(b, "present") || cJSON_IsTrue(rl_json_get(b, "present"));
    double bmean = bpresent ? rl_json_num_or(b, "mean", NAN) : NAN;
    size_t i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cells)
    {
        char path[CPATH];
        rl_snprintf(path, sizeof path, "%s.cells[%zu]", rp, i);
        if (!cJSON_IsObject(x))
            rl_validate_add(p, path, "a cell is not an object");
        else if (!cJSON_IsFalse(rl_json_get(x, "present")))
            check_cell(x, i == baseline, bmean, path, p);
        i++;
    }
}

/* A fleet row's summary: counts that add up to the other inputs, ratios in order, the best
 * and the worst an input. */
static void check_row_summary(const cJSON *s, size_t n_inputs, const char *rp, probs *p)
{
    static const char *const counts[] = {"faster", "slower", "noise", "untested", "missing"};
    double sum = 0;
    for (size_t k = 0; k < 5; k++) {
        const cJSON *v = rl_json_get(s, counts[k]);
        if (!whole_in(v, 0, (double)n_inputs))
            rl_validate_add(p, rp, "summary.%s is not a count from 0 to %zu", counts[k], n_inputs);
        else
            sum += v->valuedouble;
    }
    if (sum != (double)(n_inputs - 1))
        rl_validate_add(p, rp, "summary's verdict counts add up to %.0f, not the %zu other inputs",
                        sum, n_inputs - 1);
    if (!rl_json_get(s, "ratio_min"))
        return;
    double lo = rl_json_num_or(s, "ratio_min", NAN), md = rl_json_num_or(s, "ratio_median", NAN),
           hi = rl_json_num_or(s, "ratio_max", NAN);
    if (!(lo <= md && md <= hi))
        rl_validate_add(p, rp, "summary's ratios are not min <= median <= max");
    if (!whole_in(rl_json_get(s, "best_input"), 1, (double)n_inputs) ||
        !whole_in(rl_json_get(s, "worst_input"), 1, (double)n_inputs))
        rl_validate_add(p, rp, "summary's best_input or worst_input is not an input number");
}

static void check_rows(const cJSON *j, size_t n_inputs, const char *form, probs *p)
{
    size_t baseline = (size_t)rl_json_num_or(j, "baseline", 1) - 1;
    bool fleet = form && strcmp(form, "fleet") == 0;
    const cJSON *rows = rl_json_get(j, "rows");
    if (!cJSON_IsArray(rows)) {
        rl_validate_add(p, "rows", "rows is missing or not an array");
        return;
    }
    size_t r = 0;
    const cJSON *row;
    cJSON_ArrayForEach(row, rows)
    {
        char rp[CPATH];
        rl_snprintf(rp, sizeof rp, "rows[%zu]", r++);
        static const char *const strs[] = {"group", "subject", "metric", "unit"};
        for (size_t k = 0; k < 4; k++)
            need_str(row, strs[k], rp, p);
        const cJSON *kv;
        cJSON_ArrayForEach(kv, rl_json_get(row, "keys")) if (!cJSON_IsString(kv))
            rl_validate_add(p, rp, "key %s is not a string", kv->string ? kv->string : "?");
        if (fleet)
            check_row_summary(rl_json_get(row, "summary"), n_inputs, rp, p);
        else
            check_cells(rl_json_get(row, "cells"), n_inputs, baseline, rp, p);
    }
}

static void check_facts(const cJSON *j, size_t n_inputs, const char *form, probs *p)
{
    bool fleet = form && strcmp(form, "fleet") == 0;
    size_t f = 0;
    const cJSON *fa;
    cJSON_ArrayForEach(fa, rl_json_get(j, "facts"))
    {
        char fp[CPATH];
        rl_snprintf(fp, sizeof fp, "facts[%zu]", f++);
        need_str(fa, "label", fp, p);
        const cJSON *vals = rl_json_get(fa, fleet ? "values_top" : "values");
        if (!cJSON_IsArray(vals)) {
            rl_validate_add(p, fp, "%s is missing", fleet ? "values_top" : "values");
            continue;
        }
        size_t nv = (size_t)cJSON_GetArraySize(vals);
        if (!fleet && nv != n_inputs)
            rl_validate_add(p, fp, "values does not hold one value per input (%zu)", n_inputs);
        if (!fleet)
            continue;
        double total = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, vals) total += rl_json_num_or(v, "count", NAN);
        const cJSON *d = rl_json_get(fa, "distinct");
        if (!whole_in(d, (double)nv, (double)n_inputs) || !(total <= (double)n_inputs))
            rl_validate_add(p, fp, "distinct or the counts of values_top do not fit %zu inputs",
                            n_inputs);
    }
}

rl_status rl_validate_compare(const cJSON *j, rl_validate_problems *out)
{
    const char *form = NULL;
    bool baseline_ok;
    size_t n = check_head(j, &form, &baseline_ok, out);
    if (n) {
        check_inputs(j, form, out);
        if (baseline_ok)
            check_rows(j, n, form, out);
        check_facts(j, n, form, out);
    }
    return out->oom ? RL_EINTERNAL : RL_OK;
}
