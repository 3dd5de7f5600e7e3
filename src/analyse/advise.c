/* SPDX-License-Identifier: MIT */
/* advise.c: the advice rules over the matrix and over formats measured here. See advise.h. */
#include "analyse/advise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static bool has(double v)
{
    return !isnan(v);
}

static void sort_ints(int *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Rows of core at scale and threads, fastest first (stable). */
static int cell_rows(const rl_matrix *m, const char *core, double scale, int threads,
                     const rl_mx_row **out)
{
    int n = 0;
    for (size_t i = 0; i < m->n && n < RL_ADV_MAX_ROWS; i++) {
        const rl_mx_row *r = &m->rows[i];
        if (strcmp(r->core, core) == 0 && r->params_b == scale && r->threads == threads)
            out[n++] = r;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && out[j - 1]->tok_s < out[j]->tok_s; j--) {
            const rl_mx_row *t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

static void matched_group(const rl_mx_row *const *rows, int n, int min_group, rl_adv_thread *t)
{
    const rl_mx_row *s[RL_ADV_MAX_ROWS];
    memcpy(s, rows, (size_t)n * sizeof *s);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && s[j - 1]->streamed_mib > s[j]->streamed_mib; j--) {
            const rl_mx_row *x = s[j];
            s[j] = s[j - 1];
            s[j - 1] = x;
        }
    int best_i = 0, best_n = 0;
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j + 1 < n && s[j + 1]->streamed_mib / s[i]->streamed_mib <= RL_ADV_MATCH_RATIO)
            j++;
        if (j - i + 1 > best_n) {
            best_n = j - i + 1;
            best_i = i;
        }
    }
    t->matched = best_n >= min_group && best_n >= 2;
    if (!t->matched)
        return;
    const rl_mx_row *fast = s[best_i], *slow = s[best_i];
    double sum = 0;
    for (int k = best_i; k < best_i + best_n; k++) {
        t->group[t->n_group++] = s[k]->format;
        sum += s[k]->streamed_mib;
        if (s[k]->tok_s > fast->tok_s)
            fast = s[k];
        if (s[k]->tok_s < slow->tok_s)
            slow = s[k];
    }
    t->group_mean_mib = sum / best_n;
    t->spread_pct = 100.0 * (fast->tok_s / slow->tok_s - 1.0);
    t->group_fastest = fast->format;
    t->group_slowest = slow->format;
}

/* rl_advise_core, step 1: the error for a core with no rows, listing the known ones. */
static rl_status unknown_core(const rl_matrix *m, const char *core, rl_error *err)
{
    const char *cores[16];
    size_t nc = rl_matrix_cores(m, cores, 16);
    char known[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < nc; i++) {
        int w = rl_snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", cores[i]);
        if (w > 0 && (size_t)w < sizeof known - used)
            used += (size_t)w;
    }
    char safe[64];
    return rl_fail(err, RL_EINPUT,
                   "no measurements for core '%s'. Known: %s (see advise --list-cores)",
                   rl_tty_escape(core, safe, sizeof safe), known);
}

/* Step 2: the scale, the nearest measured (ties to the smaller); by default the smallest. */
static double choose_scale(const rl_matrix *m, const char *core, double scale)
{
    double chosen = -1;
    for (size_t i = 0; i < m->n; i++) {
        const rl_mx_row *r = &m->rows[i];
        if (strcmp(r->core, core) != 0)
            continue;
        if (chosen < 0) {
            chosen = r->params_b;
            continue;
        }
        if (scale <= 0) {
            if (r->params_b < chosen)
                chosen = r->params_b;
            continue;
        }
        double d = fabs(r->params_b - scale), dc = fabs(chosen - scale);
        if (d < dc || (d == dc && r->params_b < chosen))
            chosen = r->params_b;
    }
    return chosen;
}

/* Step 3: the thread counts measured at out->scale, and the one chosen (the fastest row's, or
   the nearest to the one asked for). */
static void choose_threads(const rl_matrix *m, const char *core, int threads, rl_advice *out)
{
    const rl_mx_row *fastest_row = NULL;
    for (size_t i = 0; i < m->n; i++) {
        const rl_mx_row *r = &m->rows[i];
        if (strcmp(r->core, core) != 0 || r->params_b != out->scale)
            continue;
        if (!fastest_row || r->tok_s > fastest_row->tok_s)
            fastest_row = r;
        bool seen = false;
        for (int k = 0; k < out->n_avail; k++)
            seen |= out->threads_avail[k] == r->threads;
        if (!seen && out->n_avail < RL_ADV_MAX_THREADS)
            out->threads_avail[out->n_avail++] = r->threads;
    }
    sort_ints(out->threads_avail, out->n_avail);
    rl_snprintf(out->model, sizeof out->model, "%s", fastest_row->model);
    if (threads <= 0) {
        out->threads = fastest_row->threads;
        rl_snprintf(out->thread_choice, sizeof out->thread_choice, "fastest measured");
        return;
    }
    int best = out->threads_avail[0];
    for (int k = 1; k < out->n_avail; k++)
        if (abs(out->threads_avail[k] - threads) < abs(best - threads))
            best = out->threads_avail[k];
    out->threads = best;
    if (best == threads)
        rl_snprintf(out->thread_choice, sizeof out->thread_choice, "as requested");
    else
        rl_snprintf(out->thread_choice, sizeof out->thread_choice, "nearest measured to %d",
                    threads);
}

/* Step 4: the table at the chosen cell: speed against the fastest, deficit against the
   streaming envelope, ties, the Pareto front, lowest energy and the row off the envelope. */
static void fill_table(const rl_matrix *m, const char *core, rl_advice *out)
{
    const rl_mx_row *rows[RL_ADV_MAX_ROWS];
    out->n = cell_rows(m, core, out->scale, out->threads, rows);
    double fast = rows[0]->tok_s, max_gbs = 0;
    for (int i = 0; i < out->n; i++)
        if (rows[i]->streamed_gbs > max_gbs)
            max_gbs = rows[i]->streamed_gbs;
    int worst_i = -1;
    for (int i = 0; i < out->n; i++) {
        rl_adv_entry *e = &out->e[i];
        e->row = rows[i];
        e->vs_best_pct = 100.0 * (rows[i]->tok_s / fast - 1.0);
        e->deficit_pct = max_gbs > 0 ? 100.0 * (1.0 - rows[i]->streamed_gbs / max_gbs) : 0;
        e->tied = rows[i]->tok_s >= (1.0 - RL_ADV_TIE_PCT / 100.0) * fast;
        if (worst_i < 0 || e->deficit_pct > out->e[worst_i].deficit_pct)
            worst_i = i;
        e->pareto = true;
        if (has(rows[i]->perplexity))
            for (int j = 0; j < out->n && e->pareto; j++) {
                const rl_mx_row *o = rows[j];
                if (j == i || !has(o->perplexity))
                    continue;
                if (o->tok_s >= rows[i]->tok_s && o->perplexity <= rows[i]->perplexity &&
                    (o->tok_s > rows[i]->tok_s || o->perplexity < rows[i]->perplexity))
                    e->pareto = false;
            }
        if (has(rows[i]->mj_per_token) &&
            (out->lowest_energy < 0 ||
             rows[i]->mj_per_token < out->e[out->lowest_energy].row->mj_per_token))
            out->lowest_energy = i;
    }
    if (worst_i >= 0 && out->e[worst_i].deficit_pct >= RL_ADV_OFF_ENVELOPE_PCT)
        out->off_envelope = worst_i;
}

/* Step 5: the best quality without giving up speed (lowest energy, then fastest, among the
   tied rows within RL_ADV_PPL_TIE of the best perplexity). */
static void choose_best_quality(rl_advice *out)
{
    double best_ppl = INFINITY;
    for (int i = 0; i < out->n; i++) {
        const rl_mx_row *r = out->e[i].row;
        if (out->e[i].tied && has(r->perplexity) && r->perplexity < best_ppl)
            best_ppl = r->perplexity;
    }
    for (int i = 0; i < out->n && isfinite(best_ppl); i++) {
        const rl_mx_row *r = out->e[i].row;
        if (!out->e[i].tied || !has(r->perplexity) || r->perplexity > best_ppl + RL_ADV_PPL_TIE)
            continue;
        if (out->best_quality < 0) {
            out->best_quality = i;
            continue;
        }
        const rl_mx_row *b = out->e[out->best_quality].row;
        double ei = has(r->mj_per_token) ? r->mj_per_token : 0;
        double eb = has(b->mj_per_token) ? b->mj_per_token : 0;
        if (ei < eb || (ei == eb && r->tok_s > b->tok_s))
            out->best_quality = i;
    }
}

/* Step 6: the mislabelled rows, ascending by on-label share (stable). */
static void list_mislabelled(rl_advice *out)
{
    for (int i = 0; i < out->n; i++) {
        const rl_mx_row *r = out->e[i].row;
        if (has(r->on_label_pct) && r->on_label_pct < RL_ADV_ON_LABEL_CONFOUNDED)
            out->mislabelled[out->n_mislabelled++] = i;
    }
    int *ml = out->mislabelled;
    for (int i = 1; i < out->n_mislabelled; i++)
        for (int j = i;
             j > 0 && out->e[ml[j - 1]].row->on_label_pct > out->e[ml[j]].row->on_label_pct; j--) {
            int t = ml[j];
            ml[j] = ml[j - 1];
            ml[j - 1] = t;
        }
}

/* Step 7: every thread count's ranking and matched-byte spread, and whether the top three
   stay the same across thread counts. */
static void rank_per_thread(const rl_matrix *m, const char *core, int min_group, rl_advice *out)
{
    out->ranking_stable = true;
    for (int k = 0; k < out->n_avail; k++) {
        rl_adv_thread *t = &out->per_thread[out->n_per_thread++];
        t->threads = out->threads_avail[k];
        const rl_mx_row *tr[RL_ADV_MAX_ROWS];
        int n = cell_rows(m, core, out->scale, t->threads, tr);
        for (int i = 0; i < n; i++)
            t->ranking[t->n_ranking++] = tr[i]->format;
        matched_group(tr, n, min_group, t);
        if (k > 0) {
            const rl_adv_thread *t0 = &out->per_thread[0];
            for (int i = 0; i < 3; i++) {
                const char *a = i < t0->n_ranking ? t0->ranking[i] : "";
                const char *b = i < t->n_ranking ? t->ranking[i] : "";
                if (strcmp(a, b) != 0)
                    out->ranking_stable = false;
            }
        }
    }
}

rl_status rl_advise_core(const rl_matrix *m, const char *core, double scale, int threads,
                         int min_group, rl_advice *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    out->best_quality = out->lowest_energy = out->off_envelope = -1;
    const rl_mx_row *first = rl_matrix_core_row(m, core);
    if (!first)
        return unknown_core(m, core, err);
    rl_snprintf(out->core, sizeof out->core, "%s", first->core);
    rl_snprintf(out->core_label, sizeof out->core_label, "%s", first->core_label);
    rl_snprintf(out->label, sizeof out->label, "%s", first->core_label);
    out->evidence = RL_EV_FORCED;

    out->scale = choose_scale(m, core, scale);
    choose_threads(m, core, threads, out);
    fill_table(m, core, out);
    choose_best_quality(out);
    list_mislabelled(out);
    rank_per_thread(m, core, min_group, out);
    return RL_OK;
}

void rl_advice_composition_warning(const rl_advice *a, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (a->n_mislabelled == 0)
        return;
    size_t used = 0;
    int w = rl_snprintf(buf, cap,
                        "Read this table knowing what is in the files: at this model size "
                        "llama-quantize substitutes other types, so ");
    used = w > 0 && (size_t)w < cap ? (size_t)w : cap - 1;
    for (int i = 0; i < a->n_mislabelled && i < 4; i++) {
        const rl_mx_row *r = a->e[a->mislabelled[i]].row;
        w = rl_snprintf(buf + used, cap - used, "%s%s is %.0f%%", i ? ", " : "", r->format,
                        r->on_label_pct);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
    }
    rl_snprintf(buf + used, cap - used,
                " on-label by repeating-layer bytes; a comparison of formats here is partly a "
                "comparison of what the quantizer substituted.");
}

static cJSON *str_array(const char *const *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, rl_json_str(v[i]));
    return a;
}

static cJSON *thread_json(const rl_adv_thread *t, int min_group)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "threads", t->threads);
    cJSON_AddItemToObject(o, "ranking", str_array(t->ranking, t->n_ranking));
    if (t->matched) {
        cJSON *g = cJSON_AddObjectToObject(o, "matched_bytes");
        if (g) {
            cJSON_AddItemToObject(g, "formats", str_array(t->group, t->n_group));
            rl_json_add_num(g, "mean_streamed_MiB", t->group_mean_mib);
            rl_json_add_num(g, "spread_pct", t->spread_pct);
            rl_json_add_str(g, "fastest", t->group_fastest);
            rl_json_add_str(g, "slowest", t->group_slowest);
        }
    } else {
        char why[160];
        rl_snprintf(why, sizeof why,
                    "fewer than %d formats stream within 3%% of the same bytes at %d threads",
                    min_group, t->threads);
        rl_json_add_unavailable(o, "matched_bytes", why);
    }
    return o;
}

void rl_advice_entry_json(cJSON *x, const rl_adv_entry *e)
{
    rl_json_add_num(x, "tok_s", e->row->tok_s);
    rl_json_add_num(x, "vs_best_pct", e->vs_best_pct);
    cJSON_AddBoolToObject(x, "tied", e->tied);
    rl_json_add_num(x, "streamed_MiB", e->row->streamed_mib);
    rl_json_add_num(x, "streamed_GBs", e->row->streamed_gbs);
    rl_json_add_num(x, "envelope_deficit_pct", e->deficit_pct);
}

cJSON *rl_advice_to_json(const rl_advice *a)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    rl_json_add_str(o, "core", a->core);
    rl_json_add_str(o, "core_label", a->core_label);
    rl_json_add_str(o, "label", a->label);
    rl_json_add_str(o, "evidence", rl_evidence_name(a->evidence));
    rl_json_add_str(o, "confidence", rl_evidence_text(a->evidence));
    rl_json_add_str(o, "why", a->why);
    rl_json_add_str(o, "model", a->model);
    rl_json_add_num(o, "params_b", a->scale);
    cJSON_AddNumberToObject(o, "threads", a->threads);
    cJSON_AddItemToObject(o, "threads_available",
                          cJSON_CreateIntArray(a->threads_avail, a->n_avail));
    rl_json_add_str(o, "thread_choice", a->thread_choice);
    rl_json_add_str(o, "normalization", a->n ? a->e[0].row->normalization : "");
    rl_json_add_str(o, "perplexity_note",
                    "perplexity is the study's, measured on its own files (100 chunks x 512 "
                    "tokens of a public-domain corpus), not on yours");
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    const char *ranking[RL_ADV_MAX_ROWS], *tied[RL_ADV_MAX_ROWS];
    int nt = 0;
    for (int i = 0; rows && i < a->n; i++) {
        const rl_adv_entry *e = &a->e[i];
        const rl_mx_row *r = e->row;
        ranking[i] = r->format;
        if (e->tied)
            tied[nt++] = r->format;
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        rl_json_add_str(x, "format", r->format);
        rl_advice_entry_json(x, e);
        rl_json_add_num(x, "file_MiB", r->file_mib);
        rl_json_add_num(x, "on_label_pct", r->on_label_pct);
        rl_json_add_num(x, "bits_per_weight", r->bits_per_weight);
        rl_json_add_num_or_null(x, "perplexity", r->perplexity, has(r->perplexity));
        rl_json_add_num_or_null(x, "mJ_per_token", r->mj_per_token, has(r->mj_per_token));
        cJSON_AddBoolToObject(x, "pareto", e->pareto);
        rl_json_add_str(x, "source", r->source);
        cJSON_AddItemToArray(rows, x);
    }
    cJSON_AddItemToObject(o, "ranking", str_array(ranking, a->n));
    rl_json_add_str(o, "fastest", a->n ? a->e[0].row->format : "");
    cJSON_AddItemToObject(o, "tied_with_fastest", str_array(tied, nt));
    rl_json_add_str_or_null(o, "best_quality_at_speed",
                            a->best_quality >= 0 ? a->e[a->best_quality].row->format : NULL);
    rl_json_add_str_or_null(o, "lowest_energy",
                            a->lowest_energy >= 0 ? a->e[a->lowest_energy].row->format : NULL);
    cJSON_AddBoolToObject(o, "has_energy", a->lowest_energy >= 0);
    if (a->off_envelope >= 0) {
        cJSON *oe = cJSON_AddObjectToObject(o, "off_envelope");
        rl_json_add_str(oe, "format", a->e[a->off_envelope].row->format);
        rl_json_add_num(oe, "deficit_pct", a->e[a->off_envelope].deficit_pct);
    } else {
        cJSON_AddNullToObject(o, "off_envelope");
    }
    cJSON *mis = cJSON_AddArrayToObject(o, "mislabelled");
    for (int i = 0; mis && i < a->n_mislabelled; i++) {
        const rl_mx_row *r = a->e[a->mislabelled[i]].row;
        cJSON *x = cJSON_CreateObject();
        rl_json_add_str(x, "format", r->format);
        rl_json_add_num(x, "on_label_pct", r->on_label_pct);
        rl_json_add_num(x, "bits_per_weight", r->bits_per_weight);
        cJSON_AddItemToArray(mis, x);
    }
    cJSON *bt = cJSON_AddArrayToObject(o, "ranking_by_threads");
    for (int i = 0; bt && i < a->n_per_thread; i++)
        cJSON_AddItemToArray(bt, thread_json(&a->per_thread[i], RL_ADV_MIN_GROUP_MATRIX));
    cJSON_AddBoolToObject(o, "ranking_stable_across_threads", a->ranking_stable);
    char warn[768];
    rl_advice_composition_warning(a, warn, sizeof warn);
    rl_json_add_str_or_null(o, "composition_warning", warn[0] ? warn : NULL);
    return o;
}

static void sort_names(const char **v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

void rl_advise_facts(const rl_matrix *m, rl_adv_facts *out)
{
    memset(out, 0, sizeof *out);
    const char *cores[RL_ADV_MAX_CORES];
    size_t nc = rl_matrix_cores(m, cores, RL_ADV_MAX_CORES);
    out->scale = -1;
    for (size_t i = 0; i < m->n; i++)
        if (out->scale < 0 || m->rows[i].params_b < out->scale)
            out->scale = m->rows[i].params_b;
    /* formats at that scale, once each (on-label share is a property of the file) */
    for (size_t i = 0; i < m->n; i++) {
        const rl_mx_row *r = &m->rows[i];
        if (r->params_b != out->scale || out->n_formats >= RL_ADV_MAX_ROWS)
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = m->rows[j].params_b == out->scale && strcmp(m->rows[j].format, r->format) == 0;
        if (seen)
            continue;
        out->n_formats++;
        if (r->on_label_pct >= 90)
            out->on_label[out->n_on_label++] = r->format;
        else if (r->on_label_pct < 1)
            out->none[out->n_none++] = r->format;
    }
    sort_names(out->on_label, out->n_on_label);
    sort_names(out->none, out->n_none);
    rl_error e;
    for (size_t c = 0; c < nc; c++) {
        rl_advice a;
        if (rl_advise_core(m, cores[c], out->scale, 0, RL_ADV_MIN_GROUP_MATRIX, &a, &e) != RL_OK ||
            a.n == 0)
            continue;
        int k = out->n_cores++;
        out->core[k].label = a.e[0].row->core_label;
        out->core[k].fastest = a.e[0].row->format;
        out->core[k].threads = a.threads;
        out->core[k].q4km_deficit_pct = NAN;
        for (int i = 0; i < a.n; i++)
            if (strcmp(a.e[i].row->format, "Q4_K_M") == 0)
                out->core[k].q4km_deficit_pct = a.e[i].deficit_pct;
    }
}
