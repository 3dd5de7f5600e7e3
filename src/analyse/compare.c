/* SPDX-License-Identifier: MIT */
/* compare.c: the comparison itself: init and free, the environment and suite diff and
 * rl_cmp_run over every input. See compare.h; compare_load.c reads the inputs, compare_match.c
 * makes and matches rows, compare_stats.c tests and judges them, compare_json.c writes JSON. */
#include "analyse/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* The row producers: one per bundle section that has something to compare (compare.h). */
static const rl_cmp_rows_fn producers[] = {rl_cmp_rows_decode, rl_cmp_rows_advice,
                                           rl_cmp_rows_client};
void rl_cmp_init(rl_cmp *c)
{
    memset(c, 0, sizeof *c);
    c->alpha = RL_CMP_ALPHA;
    c->min_effect_pct = RL_CMP_MIN_EFFECT_PCT;
}

void rl_cmp_row_free(rl_cmp_row *r, size_t n_inputs)
{
    free(r->group);
    free(r->key);
    free(r->subject);
    free(r->metric);
    free(r->unit);
    free(r->kind);
    for (size_t k = 0; k < r->n_keys; k++) {
        free(r->key_names[k]);
        free(r->key_values[k]);
    }
    if (r->cells)
        for (size_t i = 0; i < n_inputs; i++)
            free(r->cells[i].samples);
    free(r->cells);
}

void rl_cmp_free(rl_cmp *c)
{
    for (size_t i = 0; i < c->n_rows; i++)
        rl_cmp_row_free(&c->rows[i], c->n_inputs);
    free(c->rows);
    for (size_t i = 0; i < c->n_facts; i++) {
        for (size_t k = 0; k < c->n_inputs; k++)
            free(c->facts[i].values[k]);
        free(c->facts[i].values);
    }
    free(c->facts);
    for (size_t i = 0; i < c->n_inputs; i++) {
        free(c->inputs[i].path);
        free(c->inputs[i].label);
        cJSON_Delete(c->inputs[i].bundle);
    }
    free(c->inputs);
    rl_cmp_init(c);
}
/* ---- environment and suite -------------------------------------------------------------- */

/* A fact is obj.key (obj.sub.key with sub); with needs, it applies only to the inputs whose
 * bundle holds the object needs (others show "n/a" and never make it differ). Its format: as
 * the bundle holds it, or a number (3 significant digits) or a size in bytes (GiB, MiB: the
 * shared formatter), and numbers that differ by less than RL_CMP_FACT_TOLERANCE_PCT of the
 * larger are not a difference (a RAM total that moves by a page, a ceiling re-measured). */
typedef enum { FACT_TEXT, FACT_NUMBER, FACT_BYTES } fact_format;
typedef struct {
    const char *section, *obj, *key, *label;
    bool suite;
    const char *sub, *needs;
} fact_def;

static const fact_def fact_defs[] = {
    {"environment", "environment", "cpu", "CPU", false, NULL, NULL},
    {"environment", "environment", "arch", "Architecture", false, NULL, NULL},
    {"environment", "environment", "logical_cores", "Logical cores", false, NULL, NULL},
    {"environment", "environment", "physical_cores", "Physical cores", false, NULL, NULL},
    {"environment", "environment", "ram_bytes", "RAM", false, NULL, NULL},
    {"environment", "environment", "os", "OS", false, NULL, NULL},
    {"environment", "environment", "kernel", "Kernel", false, NULL, NULL},
    {"environment", "environment", "governor", "CPU governor", false, NULL, NULL},
    {"environment", "environment", "thp", "Transparent huge pages", false, NULL, NULL},
    {"environment", "environment", "vm", "Virtual machine", false, NULL, NULL},
    {"environment", "environment", "hypervisor", "Hypervisor", false, NULL, NULL},
    {"environment", "environment", "numa_nodes", "NUMA nodes", false, NULL, NULL},
    {"llama.cpp", "llama_cpp", "build_commit", "llama.cpp build commit", false, NULL, "models"},
    {"llama.cpp", "llama_cpp", "build_number", "llama.cpp build number", false, NULL, "models"},
    {"llama.cpp", "llama_cpp", "version", "llama.cpp version", false, NULL, "models"},
    {"settings", "settings", "threads", "Threads", true, NULL, "models"},
    {"settings", "settings", "depths", "KV depths", true, NULL, "models"},
    {"settings", "settings", "n_prompt", "Prompt tokens (n_prompt)", true, NULL, "models"},
    {"settings", "settings", "n_gen", "Generated tokens (n_gen)", true, NULL, "models"},
    {"settings", "settings", "n_gpu_layers", "GPU layers", true, NULL, "models"},
    {"settings", "settings", "bench_args", "Extra llama-bench arguments", true, NULL, "models"},
    {"settings", "settings", "bytes_convention", "Bytes convention", true, NULL, "models"},
    {"settings", "settings", "reps", "Repetitions", false, NULL, "models"},
    {"ceiling", "membw", "peak_read_GBs", "Memory ceiling (GB/s)", false, NULL, "models"},
    {"tool", "tool", "version", "llama-roofline version", false, NULL, NULL},
    {"source", "source", "kind", "Data source", false, NULL, NULL},
    {"client", "client", "type", "Client driver", false, "driver", "client"},
    {"client", "client", "url", "Client endpoint", false, "driver", "client"},
    {"client", "client", "model", "Client model", false, "driver", "client"},
    {"client", "client", "command", "Client command", false, "driver", "client"},
    {"client", "client", "max_tokens", "Client max output tokens", true, "settings", "client"},
    {"client", "client", "prompts", "Client prompt set", true, "settings", "client"},
    {"client", "client", "slo", "Client SLOs", true, "settings", "client"},
    {"client", "client", "runs", "Client runs per prompt", false, "settings", "client"},
    {"client", "client", "warmup", "Client warm-up requests", false, "settings", "client"},
    {"client", "client", "source", "Client token counts", false, "tokens", "client"},
    /* how TPOT, decode rates and chunk gaps were computed (an fm-bench 0.7 import differs) */
    {"client", "client", "convention", "Client metric convention", true, NULL, "client"},
};
#define N_FACT_DEFS (sizeof fact_defs / sizeof fact_defs[0])

static fact_format format_of(const fact_def *d)
{
    if (strcmp(d->key, "ram_bytes") == 0)
        return FACT_BYTES;
    return strcmp(d->key, "peak_read_GBs") == 0 ? FACT_NUMBER : FACT_TEXT;
}

static char *value_string(const cJSON *v, fact_format format)
{
    if (!v || cJSON_IsNull(v))
        return rl_strdup("unknown");
    if (cJSON_IsNumber(v) && format != FACT_TEXT) {
        char t[48];
        if (format == FACT_BYTES && v->valuedouble >= 0 && v->valuedouble < 1.8e19)
            rl_fmt_iec(t, sizeof t, (uint64_t)v->valuedouble);
        else
            rl_fmt_sig3(t, sizeof t, v->valuedouble);
        return rl_strdup(t);
    }
    if (cJSON_IsString(v))
        return rl_strdup(*v->valuestring ? v->valuestring : "(empty)");
    if (cJSON_IsBool(v))
        return rl_strdup(cJSON_IsTrue(v) ? "yes" : "no");
    if (cJSON_IsNumber(v))
        return rl_asprintf("%.15g", v->valuedouble);
    if (cJSON_IsRaw(v) && v->valuestring)
        return rl_strdup(v->valuestring);
    bool avail = true;
    if (cJSON_IsObject(v) && rl_json_get_bool(v, "available", &avail) && !avail)
        return rl_strdup("unavailable");
    char *t = cJSON_PrintUnformatted(v);
    if (!t)
        return NULL;
    char *s = rl_strdup(strlen(t) > 200 ? "(long value)" : t);
    cJSON_free(t);
    return s;
}

bool rl_cmp_fact_close(double lo, double hi)
{
    return !(hi > lo && hi - lo >= RL_CMP_FACT_TOLERANCE_PCT / 100 * fmax(fabs(lo), fabs(hi)));
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The sorted model identities of a bundle as one string (names: their display names, in the
 * same order). */
static char *model_set(const cJSON *b, bool names)
{
    size_t n = (size_t)cJSON_GetArraySize(rl_json_get(b, "models"));
    if (n > 4096)
        n = 4096;
    char(*ids)[320] = rl_calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return NULL;
    size_t k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(b, "models"))
    {
        if (k == n)
            break;
        /* identity first, so names sort in identity order; the name follows a tab */
        rl_cmp_model_identity(m, ids[k], sizeof ids[0]);
        /* by file name (what the user has on disk), else its name, never its id ("m5") */
        const char *nm = rl_json_get_str(m, "path");
        nm = nm && *rl_file_base_name(nm) ? rl_file_base_name(nm) : rl_json_get_str(m, "name");
        size_t used = strlen(ids[k]);
        rl_snprintf(ids[k] + used, sizeof ids[0] - used, "\t%.80s", nm ? nm : "?");
        k++;
    }
    qsort(ids, k, sizeof ids[0], cmp_ids);
    rl_sbuf s = {0};
    if (names)
        rl_sbuf_printf(&s, "%zu model%s: ", k, k == 1 ? "" : "s");
    for (size_t i = 0; i < k; i++) {
        char *tab = strchr(ids[i], '\t');
        if (tab)
            *tab = '\0';
        rl_sbuf_printf(&s, "%s%s", i ? (names ? ", " : ",") : "", names && tab ? tab + 1 : ids[i]);
    }
    free(ids);
    if (k == 0)
        rl_sbuf_put(&s, "none", 4);
    return rl_sbuf_take(&s);
}

static rl_status facts(rl_cmp *c, rl_error *err)
{
    size_t n = N_FACT_DEFS + 1; /* + the model set */
    c->n_facts = 0;
    c->facts = rl_calloc(n, sizeof *c->facts);
    if (!c->facts)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t f = 0; f < n; f++) {
        rl_cmp_fact *fa = &c->facts[c->n_facts++];
        fa->values = rl_calloc(c->n_inputs, sizeof *fa->values);
        if (!fa->values)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        if (f < N_FACT_DEFS) {
            fa->section = fact_defs[f].section;
            fa->label = fact_defs[f].label;
            fa->suite = fact_defs[f].suite;
        } else {
            fa->section = "suite";
            fa->label = "Models (identity: tensor types and sizes)";
            fa->suite = true;
        }
        char *first_set = NULL;
        const char *first_value = NULL;
        double lo = 0, hi = 0; /* a numeric fact's range over the inputs that hold it */
        size_t n_num = 0, n_held = 0;
        const char *needs = f < N_FACT_DEFS ? fact_defs[f].needs : "models";
        for (size_t i = 0; i < c->n_inputs; i++) {
            const cJSON *b = c->inputs[i].bundle;
            if (needs && !rl_json_get(b, needs)) {
                fa->values[i] = rl_strdup("n/a");
            } else if (f < N_FACT_DEFS) {
                const cJSON *o = rl_json_get(b, fact_defs[f].obj);
                if (fact_defs[f].sub)
                    o = rl_json_get(o, fact_defs[f].sub);
                const cJSON *v = rl_json_get(o, fact_defs[f].key);
                /* client's own convention, which its bundles do not state */
                fa->values[i] = !v && strcmp(fact_defs[f].key, "convention") == 0
                                    ? rl_strdup("deliveries")
                                    : value_string(v, format_of(&fact_defs[f]));
                n_held++;
                if (format_of(&fact_defs[f]) != FACT_TEXT && cJSON_IsNumber(v)) {
                    lo = n_num ? fmin(lo, v->valuedouble) : v->valuedouble;
                    hi = n_num ? fmax(hi, v->valuedouble) : v->valuedouble;
                    n_num++;
                } else {
                    if (fa->values[i] && first_value && strcmp(fa->values[i], first_value) != 0)
                        fa->differs = true;
                    if (!first_value)
                        first_value = fa->values[i];
                }
            } else { /* shown by name, compared by identity */
                fa->values[i] = model_set(b, true);
                char *set = model_set(b, false);
                if (!set) {
                    free(first_set);
                    return rl_fail(err, RL_EINTERNAL, "out of memory");
                }
                if (!first_set)
                    first_set = set;
                else {
                    if (strcmp(set, first_set) != 0)
                        fa->differs = true;
                    free(set);
                }
            }
            if (!fa->values[i]) {
                free(first_set);
                return rl_fail(err, RL_EINTERNAL, "out of memory");
            }
        }
        free(first_set);
        /* a number against an unknown differs; numbers only by the tolerance */
        if (n_num > 0 && (n_num < n_held || !rl_cmp_fact_close(lo, hi)))
            fa->differs = true;
        if (fa->differs && fa->suite)
            c->suite_mismatch = true;
    }
    return RL_OK;
}

rl_status rl_cmp_rows_of(rl_cmp *c, size_t input, rl_error *err)
{
    if (input >= c->n_inputs)
        return rl_fail(err, RL_EINTERNAL, "compare: no input %zu", input);
    for (size_t p = 0; p < sizeof producers / sizeof producers[0]; p++) {
        rl_status st = producers[p](c, input, c->inputs[input].bundle, err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

rl_status rl_cmp_run(rl_cmp *c, rl_error *err)
{
    if (c->n_inputs < 2)
        return rl_fail(err, RL_EINPUT,
                       "compare needs at least two inputs (bundles, reports or directories of "
                       "them); got %zu",
                       c->n_inputs);
    for (size_t i = 0; i < c->n_inputs; i++) {
        rl_status st = rl_cmp_rows_of(c, i, err);
        if (st != RL_OK)
            return st;
    }
    c->rows_not_everywhere = 0;
    for (size_t r = 0; r < c->n_rows; r++) {
        rl_cmp_row *row = &c->rows[r];
        const rl_cmp_cell *b = &row->cells[c->baseline];
        bool everywhere = true;
        for (size_t i = 0; i < c->n_inputs; i++) {
            everywhere = everywhere && row->cells[i].present;
            if (i == c->baseline)
                row->cells[i].verdict = RL_CMP_BASELINE;
            else
                rl_cmp_verdict_of(b, &row->cells[i], row->higher_is_better, c->alpha,
                                  c->min_effect_pct);
            row->cells[i].suspect = row->cells[i].disturbed || b->disturbed;
        }
        if (!everywhere)
            c->rows_not_everywhere++;
    }
    for (size_t i = 0; i < c->n_inputs; i++) {
        rl_cmp_input *in = &c->inputs[i];
        in->n_disturbed = 0;
        for (size_t r = 0; r < c->n_rows; r++)
            in->n_disturbed += c->rows[r].cells[i].present && c->rows[r].cells[i].disturbed;
        in->disturbed = in->n_disturbed > 0;
        in->disturbance =
            in->disturbed
                ? rl_json_get_str(rl_json_get(rl_json_get(in->bundle, "analysis"), "disturbance"),
                                  "text")
                : NULL;
    }
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *g = rl_cmp_group_first(c, c->rows[r].group);
        if (g && strcmp(g->unit, c->rows[r].unit) != 0)
            for (size_t q = 0; q < c->n_rows; q++)
                if (strcmp(c->rows[q].group, g->group) == 0)
                    c->rows[q].units_vary = true;
    }
    c->sections_differ = false;
    char first[128], other[128];
    rl_cmp_sections(c->inputs[0].bundle, first, sizeof first);
    for (size_t i = 1; i < c->n_inputs; i++) {
        rl_cmp_sections(c->inputs[i].bundle, other, sizeof other);
        if (strcmp(first, other) != 0)
            c->sections_differ = true;
    }
    return facts(c, err);
}
