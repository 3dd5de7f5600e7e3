/* SPDX-License-Identifier: MIT */
/* history.c: the history's inputs (history.h): reading each bundle once into its facts and
 * rows (compare's producers over a one-input comparison), the machine fingerprint, the time
 * order, and rl_hist_run choosing the machine. history_series.c builds and judges the series. */
#include "analyse/history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

const rl_hist_fact_def rl_hist_fact_defs[RL_HIST_N_FACTS] = {
    {"llama_cpp", "build_commit", "llama.cpp build"}, /* shown as the build: commit (number) */
    {"llama_cpp", "version", "llama.cpp version"},
    {"environment", "kernel", "kernel"},
    {"environment", "governor", "governor"},
    {"environment", "thp", "transparent huge pages"},
    {"settings", "reps", "repetitions"},
    {"tool", "version", "llama-roofline"},
};

void rl_hist_init(rl_hist *h)
{
    memset(h, 0, sizeof *h);
    h->alpha = RL_CMP_ALPHA;
    h->min_effect_pct = RL_CMP_MIN_EFFECT_PCT;
    h->max_listed = RL_HIST_MAX_LISTED;
}

static void input_free(rl_hist_input *in)
{
    free(in->path);
    free(in->label);
    free(in->created);
    free(in->machine);
    free(in->machine_key);
    free(in->build);
    for (size_t f = 0; f < RL_HIST_N_FACTS; f++)
        free(in->facts[f]);
    free(in->disturbance);
    for (size_t r = 0; r < in->n_rows; r++)
        rl_cmp_row_free(&in->rows[r], 1);
    free(in->rows);
    memset(in, 0, sizeof *in);
}

void rl_hist_free(rl_hist *h)
{
    for (size_t i = 0; i < h->n_inputs; i++)
        input_free(&h->inputs[i]);
    free(h->inputs);
    for (size_t i = 0; i < h->n_others; i++)
        input_free(&h->others[i]);
    free(h->others);
    for (size_t s = 0; s < h->n_series; s++) {
        rl_hist_series *se = &h->series[s];
        rl_cmp_row_free(&se->row, 0);
        for (size_t k = 0; k < se->n_pts; k++) {
            free(se->pts[k].cell.samples);
            free(se->pts[k].changes);
        }
        free(se->pts);
    }
    free(h->series);
    free(h->slots);
    rl_hist_init(h);
}

/* ---- the machine ------------------------------------------------------------------------- */

static void field(rl_sbuf *b, const cJSON *env, const char *key, bool sep)
{
    const cJSON *v = rl_json_get(env, key);
    if (sep)
        rl_sbuf_put(b, "|", 1);
    if (cJSON_IsString(v))
        rl_sbuf_printf(b, "%.200s", v->valuestring);
    else if (cJSON_IsNumber(v))
        rl_sbuf_printf(b, "%.0f", v->valuedouble);
    else
        rl_sbuf_put(b, "?", 1);
}

void rl_hist_machine_key(const cJSON *bundle, char *buf, size_t cap)
{
    static const char *const keys[] = {"cpu", "arch", "logical_cores", "physical_cores",
                                       "numa_nodes"};
    const cJSON *env = rl_json_get(bundle, "environment");
    rl_sbuf b = {0};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        field(&b, env, keys[k], k > 0);
    char *t = rl_sbuf_take(&b);
    rl_snprintf(buf, cap, "%s", t ? t : "?");
    free(t);
}

bool rl_hist_same_machine(const rl_hist_input *a, const rl_hist_input *b)
{
    if (strcmp(a->machine_key, b->machine_key) != 0)
        return false;
    if (isnan(a->ram) || isnan(b->ram))
        return isnan(a->ram) && isnan(b->ram);
    return rl_cmp_fact_close(fmin(a->ram, b->ram), fmax(a->ram, b->ram));
}

static char *machine_words(const cJSON *bundle, double ram)
{
    const cJSON *env = rl_json_get(bundle, "environment");
    const char *cpu = rl_json_get_str(env, "cpu"), *arch = rl_json_get_str(env, "arch");
    double cores = NAN;
    rl_json_get_num(env, "logical_cores", &cores);
    char r[48] = "unknown";
    if (isfinite(ram) && ram >= 0 && ram < 1.8e19)
        rl_fmt_iec(r, sizeof r, (uint64_t)ram);
    char c[32] = "? cores";
    if (isfinite(cores))
        rl_snprintf(c, sizeof c, "%.0f core%s", cores, cores == 1 ? "" : "s");
    return rl_asprintf("%.200s, %.40s, %s, %s RAM", cpu ? cpu : "unknown CPU",
                       arch ? arch : "unknown architecture", c, r);
}

int rl_hist_cmp_time(const rl_hist_input *a, const rl_hist_input *b)
{
    int c = strcmp(a->created, b->created);
    return c ? c : strcmp(a->path, b->path);
}

static int cmp_inputs(const void *a, const void *b)
{
    return rl_hist_cmp_time(a, b);
}

/* ---- reading one bundle ------------------------------------------------------------------ */

static char *fact_value(const cJSON *bundle, const rl_hist_fact_def *d)
{
    const cJSON *v = rl_json_get(rl_json_get(bundle, d->obj), d->key);
    if (cJSON_IsString(v))
        return rl_strdup(*v->valuestring ? v->valuestring : "(empty)");
    if (cJSON_IsNumber(v))
        return rl_asprintf("%.15g", v->valuedouble);
    if (cJSON_IsBool(v))
        return rl_strdup(cJSON_IsTrue(v) ? "yes" : "no");
    return rl_strdup("unknown");
}

/* The memory ceiling as a row: the samples of the membw run of the ceiling's kernel and
 * thread count (a measured ceiling only). */
static rl_status ceiling_row(rl_cmp *c, const cJSON *bundle, rl_error *err)
{
    const cJSON *mb = rl_json_get(bundle, "membw");
    const char *kind = rl_json_get_str(mb, "kind"), *kernel = rl_json_get_str(mb, "kernel");
    double th = NAN;
    if (!kind || strcmp(kind, "measured") != 0 || !kernel || !rl_json_get_num(mb, "threads", &th))
        return RL_OK;
    const cJSON *run;
    cJSON_ArrayForEach(run, rl_json_get(mb, "runs"))
    {
        const char *k = rl_json_get_str(run, "kernel");
        double t;
        if (!k || strcmp(k, kernel) != 0 || !rl_json_get_num(run, "threads", &t) || t != th)
            continue;
        const cJSON *arr = rl_json_get(run, "samples_GBs");
        size_t n = 0;
        double x[256];
        const cJSON *v;
        cJSON_ArrayForEach(v, arr) if (n < 256 && cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
                                       v->valuedouble > 0) x[n++] = v->valuedouble;
        if (n == 0)
            return RL_OK;
        char s_th[32];
        rl_snprintf(s_th, sizeof s_th, "%.0f", th);
        rl_cmp_row_spec spec = {.group = RL_HIST_GROUP_CEILING,
                                .key = "membw|ceiling",
                                .subject = "membw",
                                .metric = "ceiling",
                                .unit = "GB/s",
                                .kind = "measured",
                                .higher_is_better = true,
                                .n_keys = 2,
                                .keys = {{"kernel", kernel}, {"threads", s_th}}};
        return rl_cmp_add_samples(c, 0, &spec, x, n, false, 0, false, 0, err);
    }
    return RL_OK;
}

/* The settings that change what llama-bench measured and that compare's row key leaves out,
 * appended to the key of a model's row. */
static rl_status settings_key(rl_cmp_row *r, const cJSON *bundle)
{
    if (strcmp(r->group, RL_CMP_GROUP_DECODE) != 0 && strcmp(r->group, RL_CMP_GROUP_ADVICE) != 0)
        return RL_OK;
    const cJSON *s = rl_json_get(bundle, "settings");
    double ngl = NAN;
    rl_json_get_num(s, "n_gpu_layers", &ngl);
    char *args = cJSON_PrintUnformatted(rl_json_get(s, "bench_args"));
    char *k = rl_asprintf("%s|ngl=%g|args=%.400s", r->key, ngl, args ? args : "none");
    cJSON_free(args);
    if (!k)
        return RL_EINTERNAL;
    free(r->key);
    r->key = k;
    return RL_OK;
}

/* The rows of bundle (taken by c at input 0) moved into in. */
static rl_status take_rows(rl_cmp *c, rl_hist_input *in, rl_error *err)
{
    rl_status st = rl_cmp_rows_of(c, 0, err);
    if (st == RL_OK)
        st = ceiling_row(c, c->inputs[0].bundle, err);
    if (st != RL_OK)
        return st;
    for (size_t r = 0; r < c->n_rows; r++) {
        if (settings_key(&c->rows[r], c->inputs[0].bundle) != RL_OK)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        if (c->rows[r].cells[0].present && c->rows[r].cells[0].disturbed)
            in->disturbed = true;
    }
    in->rows = c->rows;
    in->n_rows = c->n_rows;
    c->rows = NULL;
    c->n_rows = c->cap_rows = 0;
    return RL_OK;
}

static rl_status read_facts(rl_hist_input *in, const cJSON *b, rl_error *err)
{
    const char *t = rl_json_get_str(b, "created_utc");
    if (!t)
        t = rl_json_get_str(b, "updated_utc");
    in->created = rl_strdup(t ? t : "");
    char key[1200];
    rl_hist_machine_key(b, key, sizeof key);
    in->machine_key = rl_strdup(key);
    in->ram = NAN;
    rl_json_get_num(rl_json_get(b, "environment"), "ram_bytes", &in->ram);
    in->machine = machine_words(b, in->ram);
    bool ok = in->created && in->machine_key && in->machine;
    for (size_t f = 1; f < RL_HIST_N_FACTS; f++)
        ok = ok && (in->facts[f] = fact_value(b, &rl_hist_fact_defs[f])) != NULL;
    if (!ok)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    const cJSON *lc = rl_json_get(b, "llama_cpp");
    const char *commit = rl_json_get_str(lc, "build_commit");
    double num = NAN;
    rl_json_get_num(lc, "build_number", &num);
    if (commit && isfinite(num))
        in->build = rl_asprintf("%.60s (build %.0f)", commit, num);
    else
        in->build = rl_strdup(commit ? commit : "unknown");
    const char *dt =
        rl_json_get_str(rl_json_get(rl_json_get(b, "analysis"), "disturbance"), "text");
    if (dt)
        in->disturbance = rl_strdup(dt);
    in->facts[0] = in->build ? rl_strdup(in->build) : NULL;
    if (!in->build || !in->facts[0] || (dt && !in->disturbance))
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    return RL_OK;
}

rl_status rl_hist_add_bundle(rl_hist *h, const char *path, cJSON *bundle, rl_error *err)
{
    if (h->n_inputs == RL_HIST_MAX_INPUTS) {
        cJSON_Delete(bundle);
        return rl_fail(err, RL_EINPUT, "more than %d bundles: give fewer at once",
                       RL_HIST_MAX_INPUTS);
    }
    if (h->n_inputs == h->cap_inputs) {
        rl_hist_input *p = rl_grow(h->inputs, &h->cap_inputs, sizeof *p, 64);
        if (!p) {
            cJSON_Delete(bundle);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        h->inputs = p;
    }
    rl_hist_input *in = &h->inputs[h->n_inputs++];
    memset(in, 0, sizeof *in);
    rl_cmp c;
    rl_cmp_init(&c);
    rl_status st = rl_cmp_add_bundle(&c, path, bundle, err); /* c takes the bundle */
    if (st == RL_OK) {
        in->path = rl_strdup(c.inputs[0].path);
        in->label = rl_strdup(c.inputs[0].label);
        if (!in->path || !in->label)
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    if (st == RL_OK)
        st = read_facts(in, bundle, err);
    if (st == RL_OK)
        st = take_rows(&c, in, err);
    rl_cmp_free(&c);
    return st;
}

static rl_status take(void *ctx, const char *path, cJSON *bundle, rl_error *err)
{
    return rl_hist_add_bundle(ctx, path, bundle, err);
}

rl_status rl_hist_add_operand(rl_hist *h, const char *operand, rl_error *err)
{
    return rl_cmp_each_bundle(operand, "history", take, h, err);
}

/* ---- the run ------------------------------------------------------------------------------- */

/* Keep the inputs of the newest one's machine; the others move to h->others. */
static rl_status split_machines(rl_hist *h, rl_error *err)
{
    size_t newest = 0;
    for (size_t i = 1; i < h->n_inputs; i++)
        if (rl_hist_cmp_time(&h->inputs[i], &h->inputs[newest]) > 0)
            newest = i;
    rl_hist_input ref = h->inputs[newest];
    size_t n_other = 0;
    for (size_t i = 0; i < h->n_inputs; i++)
        n_other += !rl_hist_same_machine(&h->inputs[i], &ref);
    if (n_other == 0)
        return RL_OK;
    h->others = rl_calloc(n_other, sizeof *h->others);
    if (!h->others)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t kept = 0;
    for (size_t i = 0; i < h->n_inputs; i++) {
        if (rl_hist_same_machine(&h->inputs[i], &ref))
            h->inputs[kept++] = h->inputs[i];
        else
            h->others[h->n_others++] = h->inputs[i];
    }
    h->n_inputs = kept;
    qsort(h->others, h->n_others, sizeof *h->others, cmp_inputs);
    return RL_OK;
}

rl_status rl_hist_run(rl_hist *h, rl_error *err)
{
    size_t read = h->n_inputs;
    if (read < 2)
        return rl_fail(err, RL_EINPUT,
                       "history needs at least two bundles of one machine; got %zu (give a "
                       "directory of bundles or several bundle files)",
                       read);
    rl_status st = split_machines(h, err);
    if (st != RL_OK)
        return st;
    if (h->n_inputs < 2) {
        char safe[600];
        return rl_fail(err, RL_EINPUT,
                       "history needs at least two bundles of one machine; of %zu read, %zu %s "
                       "of the newest one's machine (%s): give more bundles of it",
                       read, h->n_inputs, h->n_inputs == 1 ? "is" : "are",
                       rl_tty_escape(h->inputs[0].machine, safe, sizeof safe));
    }
    qsort(h->inputs, h->n_inputs, sizeof *h->inputs, cmp_inputs);
    return rl_hist_build_series(h, err);
}
