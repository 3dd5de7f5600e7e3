/* SPDX-License-Identifier: MIT */
/* calib_run.c: a calibration measured (or reused from the cache) into a bundle's calibration
 * section: the models made, llama-bench run on each, the values derived, the cache updated.
 * See calib_run.h. Everything allocated here is freed before each function returns. */
#include "cmd/calib_run.h"

#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "bundle/bundle.h"
#include "cmd/defaults.h"
#include "measure/advise_synth.h"
#include "measure/cache_probe.h"
#include "measure/calib_models.h"
#include "measure/sysinfo.h"

/* One type of the calibration: its shapes and models, and which thread counts measure it. */
typedef struct {
    const rl_cal_type *t;
    rl_cal_shape shapes[RL_CAL_N_ROLES];
    char *paths[RL_CAL_N_ROLES];
    uint64_t bytes[RL_CAL_N_ROLES];
    bool need[RL_SWEEP_MAX_LIST];                /* measured (not reused) at threads[i] */
    int held[RL_SWEEP_MAX_LIST][RL_CAL_N_ROLES]; /* runs the cache's entry holds, per point */
    bool counted[RL_SWEEP_MAX_LIST];             /* in stats->measured already */
    bool refused;
} cal_item;

/* The working state of one calibration. */
typedef struct {
    const rl_calib_opts *o;
    const rl_cal_key *key;
    cJSON *bundle, *section, *method;
    const char *path;
    cal_item items[RL_CAL_MAX_TYPES];
    cJSON *cache_sets[RL_SWEEP_MAX_LIST]; /* what the cache holds (and will) per thread count */
    rl_calib_stats *stats;
    double role_s[RL_CAL_N_ROLES]; /* llama-bench seconds per role so far, for the ETA */
    int role_n[RL_CAL_N_ROLES];
    size_t run_k, run_total;
} cal_ctx;

static rl_status oom(rl_error *err)
{
    return rl_fail(err, RL_EINTERNAL, "out of memory building the calibration");
}

static double now_s(void)
{
    return (double)rl_proc_now_ns() / 1e9;
}

/* calibration.not_calibrated gets {type, reason} unless the type is there already. */
static bool add_not_calibrated(cJSON *section, const char *type, const char *reason)
{
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(section, "not_calibrated"), *e;
    cJSON_ArrayForEach(e, arr)
    {
        const char *n = rl_json_get_str(e, "type");
        if (n && strcmp(n, type) == 0)
            return true;
    }
    cJSON *o = cJSON_CreateObject();
    if (!o || !rl_json_add_str(o, "type", type) || !rl_json_add_str(o, "reason", reason)) {
        cJSON_Delete(o);
        return false;
    }
    return rl_json_push(arr, o);
}

/* A new section in the bundle: kind, method, key, the types not calibrated, no sets yet. */
static rl_status section_new(cal_ctx *c, rl_error *err)
{
    const rl_calib_opts *o = c->o;
    cJSON *s = cJSON_CreateObject();
    c->method = rl_cal_method_json(o->llc, o->llc_source, o->n_gen, o->reps, o->run_s, o->passes);
    bool ok = s && c->method && rl_json_add_str(s, "kind", "derived");
    ok = ok && rl_json_attach(s, "method", c->method);
    if (!ok)
        c->method = NULL;
    ok = ok && rl_json_attach(s, "key", rl_cal_key_json(c->key));
    ok = ok && cJSON_AddArrayToObject(s, "not_calibrated") && cJSON_AddArrayToObject(s, "sets");
    for (size_t i = 0; ok && i < o->n_skipped; i++)
        ok = add_not_calibrated(s, o->skipped[i]->name, o->skipped_why[i]);
    if (!ok) {
        cJSON_Delete(s);
        return oom(err);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(c->bundle, "calibration");
    if (!rl_json_attach(c->bundle, "calibration", s))
        return oom(err);
    c->section = s;
    return RL_OK;
}

static size_t type_index(const char *name)
{
    const rl_cal_type *t = rl_cal_type_by_name(name);
    for (size_t i = 0; t && i < rl_cal_type_count(); i++)
        if (rl_cal_type_at(i) == t)
            return i;
    return rl_cal_type_count();
}

/* The set's types in report order (the calib_plan table's): detached, ordered, put back. */
static void sort_types(cJSON *set)
{
    cJSON *types = cJSON_GetObjectItemCaseSensitive(set, "types");
    cJSON *items[RL_CAL_MAX_TYPES];
    size_t n = 0;
    while (types && types->child && n < RL_CAL_MAX_TYPES)
        items[n++] = cJSON_DetachItemViaPointer(types, types->child);
    for (size_t i = 1; i < n; i++) /* insertion sort on a short list */
        for (size_t j = i; j > 0 && type_index(rl_json_get_str(items[j - 1], "type")) >
                                        type_index(rl_json_get_str(items[j], "type"));
             j--) {
            cJSON *x = items[j];
            items[j] = items[j - 1];
            items[j - 1] = x;
        }
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(types, items[i]);
}

/* Phase 1, per thread count: the set in the bundle, the cache's types reused into it. */
static rl_status plan_reuse(cal_ctx *c, int ti, rl_error *err)
{
    const rl_calib_opts *o = c->o;
    int t = o->threads[ti];
    char note[1024];
    cJSON *cached = NULL;
    rl_status st = rl_cal_cache_load(o->cache_root, c->key, t, &cached, note, sizeof note, err);
    if (st != RL_OK)
        return st;
    if (note[0])
        rl_tty_printf(stderr, "llama-roofline %s: %s\n", o->verb, note);
    if (!cached) {
        cached = cJSON_CreateObject();
        if (!cached || !rl_json_add_num(cached, "threads", t) ||
            !cJSON_AddArrayToObject(cached, "types")) {
            cJSON_Delete(cached);
            return oom(err);
        }
    }
    c->cache_sets[ti] = cached;
    cJSON *set = cJSON_CreateObject(), *types = NULL;
    bool ok =
        set && rl_json_add_num(set, "threads", t) && rl_json_add_str(set, "key_id", c->key->id);
    ok = ok && (types = cJSON_AddArrayToObject(set, "types")) != NULL;
    ok = ok && rl_json_push(cJSON_GetObjectItemCaseSensitive(c->section, "sets"), set);
    if (!ok)
        return oom(err);
    rl_sbuf names = {0};
    const char *when = NULL;
    for (size_t i = 0; i < o->n_types; i++) {
        cal_item *it = &c->items[i];
        cJSON *ce = rl_cal_set_type(cached, it->t->name);
        int have = o->recalibrate || !ce ? 0 : rl_cal_type_passes(ce, it->shapes);
        it->need[ti] = have < o->passes;
        if (have == 0)
            continue;
        cJSON *dup = cJSON_Duplicate(ce, 1);
        if (!dup || !rl_json_push(types, dup)) {
            free(names.p);
            return oom(err);
        }
        for (int r = 0; r < RL_CAL_N_ROLES; r++)
            it->held[ti][r] = rl_cal_point_runs(rl_cal_point_of(dup, r));
        cJSON_DeleteItemFromObjectCaseSensitive(dup, "source");
        /* the cache is a file: its values are derived again from its points, by this build */
        if (!rl_json_add_str(dup, "source", "cache") || !rl_cal_type_finish(dup)) {
            free(names.p);
            return oom(err);
        }
        when = when ? when : rl_json_get_str(dup, "measured_utc");
        rl_sbuf_printf(&names, "%s%s%s", names.len ? ", " : "", it->t->name,
                       it->need[ti] ? " (its later passes measured now)" : "");
        c->stats->reused += !it->need[ti];
    }
    if (names.len)
        rl_tty_printf(stderr,
                      "llama-roofline %s: reusing the calibration of %s at %d thread%s (this CPU "
                      "and llama.cpp %s): %s (--recalibrate measures them again)\n",
                      o->verb, when ? when : "an earlier run", t, t == 1 ? "" : "s", c->key->build,
                      names.p ? names.p : "");
    free(names.p);
    return RL_OK;
}

static bool needed_anywhere(const cal_item *it, int n_threads)
{
    for (int i = 0; i < n_threads; i++)
        if (it->need[i])
            return true;
    return false;
}

/* Phase 2: every model a measured type needs, made before the first llama-bench. A type that
 * llama-quantize refuses is not calibrated (and measured nowhere). */
static rl_status make_models(cal_ctx *c, rl_error *err)
{
    const rl_calib_opts *o = c->o;
    char *dir = rl_asprintf("%s/calibration-models", o->cache_root);
    if (!dir)
        return oom(err);
    rl_status st = RL_OK;
    double t0 = now_s();
    for (size_t i = 0; st == RL_OK && i < o->n_types; i++) {
        cal_item *it = &c->items[i];
        if (!needed_anywhere(it, o->n_threads))
            continue;
        for (int r = 0; st == RL_OK && r < RL_CAL_N_ROLES && !it->refused; r++) {
            rl_progress("%s: the %s calibration models: %s %s model (made once, cached)", o->verb,
                        it->t->name,
                        it->t->make == RL_CAL_QUANTIZE ? "quantizing the" : "writing the",
                        rl_cal_role_name(r));
            rl_cal_model m;
            st = rl_cal_model_ensure(dir, it->t, &it->shapes[r], o->llama_quantize, &m, err);
            rl_progress_done();
            c->stats->models_made += m.made;
            if (st == RL_OK && m.refused[0]) {
                it->refused = true;
                if (!add_not_calibrated(c->section, it->t->name, m.refused))
                    st = oom(err);
            } else if (st == RL_OK) {
                it->paths[r] = m.path;
                it->bytes[r] = m.bytes;
                m.path = NULL;
            }
            rl_cal_model_free(&m);
        }
        if (st == RL_OK && rl_interrupted)
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
    }
    c->stats->make_s += now_s() - t0;
    free(dir);
    return st;
}

/* Seconds the runs not yet made should take, from what each role took so far. */
static double eta_s(const cal_ctx *c, size_t remaining_per_role)
{
    double sum = 0, all = 0;
    int n = 0;
    for (int r = 0; r < RL_CAL_N_ROLES; r++) {
        all += c->role_s[r];
        n += c->role_n[r];
    }
    for (int r = 0; r < RL_CAL_N_ROLES; r++) {
        double avg = c->role_n[r] ? c->role_s[r] / c->role_n[r] : (n ? all / n : 0);
        sum += avg * (double)remaining_per_role;
    }
    return sum;
}

/* The previous point's time per token over its bytes (us per byte), 0 when there is none. */
static double last_us_per_byte(const cJSON *entry)
{
    const cJSON *pts = rl_json_get(entry, "points"), *p = pts ? pts->child : NULL;
    while (p && p->next)
        p = p->next;
    double tok_s = 0, bytes = 0;
    rl_json_get_num(rl_json_get(rl_json_get(rl_json_get(p, "run"), "decode"), "stats"), "mean",
                    &tok_s);
    rl_json_get_num(rl_json_get(p, "bytes_per_token"), "value", &bytes);
    return tok_s > 0 && bytes > 0 ? 1e6 / tok_s / bytes : 0;
}

/* The run a point's pass fills: the first pass's in a new point (its tokens from the previous
 * point's rate), a later pass's appended to the point's other_runs (as many tokens as the
 * first). NULL when out of memory. */
static cJSON *pass_run(cal_ctx *c, cal_item *it, int r, int t, int pass, cJSON *entry, int *n_gen)
{
    const rl_calib_opts *o = c->o;
    cJSON *pt = rl_cal_point_of(entry, r);
    if (pt) {
        int first = rl_cal_point_n_gen(pt);
        *n_gen = first ? first : o->n_gen;
        return rl_cal_point_add_run(pt, pass + 1, t);
    }
    *n_gen = rl_cal_tokens(last_us_per_byte(entry), it->bytes[r], o->reps, o->n_gen, o->run_s);
    pt = rl_cal_point_new(r, &it->shapes[r], it->paths[r], it->bytes[r], t);
    if (!pt || !rl_json_push(cJSON_GetObjectItemCaseSensitive(entry, "points"), pt))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(pt, "run");
}

/* "[k/N] pass P/N TYPE ROLE model (SIZE) at T threads, about S s left" */
static void point_progress(cal_ctx *c, const cal_item *it, int r, int t, int pass)
{
    c->run_k++;
    size_t left = c->run_total - c->run_k + 1;
    char size[32], left_s[48] = "", pass_s[32] = "";
    rl_fmt_mib(size, sizeof size, it->bytes[r]);
    double eta = eta_s(c, left / RL_CAL_N_ROLES + (left % RL_CAL_N_ROLES != 0));
    if (eta > 0)
        rl_snprintf(left_s, sizeof left_s, ", about %.0f s left", eta);
    if (c->o->passes > 1)
        rl_snprintf(pass_s, sizeof pass_s, " pass %d/%d", pass + 1, c->o->passes);
    rl_progress("[%zu/%zu]%s %s %s model (%s) at %d thread%s%s", c->run_k, c->run_total, pass_s,
                it->t->name, rl_cal_role_name(r), size, t, t == 1 ? "" : "s", left_s);
}

/* One point's pass: its run measured by the sweep's machinery, the faster run kept. */
static rl_status measure_point(cal_ctx *c, cal_item *it, int r, int t, int pass, cJSON *entry,
                               rl_error *err)
{
    const rl_calib_opts *o = c->o;
    int n_gen = o->n_gen;
    cJSON *run = pass_run(c, it, r, t, pass, entry, &n_gen);
    if (!run)
        return oom(err);
    point_progress(c, it, r, t, pass);
    rl_sweep_opts so = {0};
    so.command = o->verb;
    so.n_prompt = 0;
    so.decode_only = true;
    so.n_gen = n_gen;
    so.reps = o->reps;
    so.max_reps = o->reps;
    so.timeout_s = o->timeout_s;
    so.quiet = o->quiet;
    so.quiet_root = o->quiet_root;
    so.wait_quiet_s = o->wait_quiet_s;
    so.retry_disturbed = o->retry_disturbed;
    double t0 = now_s();
    rl_status st =
        rl_sweep_run_one(o->llama_bench, &so, it->paths[r], t, 0, run, c->bundle, c->path, err);
    c->role_s[r] += now_s() - t0;
    c->role_n[r]++;
    c->stats->measure_s += now_s() - t0;
    c->stats->runs_total++;
    const char *rs = rl_json_get_str(run, "status"), *re = rl_json_get_str(run, "error");
    if (rs && strcmp(rs, "ok") == 0)
        c->stats->runs_ok++;
    else if (rs && strcmp(rs, "interrupted") != 0 && re) {
        rl_progress_done();
        rl_tty_printf(stderr, "llama-roofline %s: %s %s model at %d threads: %s\n", o->verb,
                      it->t->name, rl_cal_role_name(r), t, re);
    }
    if (st == RL_OK && pass > 0 && !rl_cal_point_choose(rl_cal_point_of(entry, r)))
        return oom(err);
    return st;
}

/* The cache's set for thread count ti with the entry in place of the type's earlier one,
 * stored. A failed store is a warning: the bundle holds the measurement. */
static void cache_put(cal_ctx *c, int ti, const cJSON *entry)
{
    cJSON *set = c->cache_sets[ti];
    cJSON *types = cJSON_GetObjectItemCaseSensitive(set, "types");
    cJSON *old = rl_cal_set_type(set, rl_json_get_str(entry, "type"));
    if (old)
        cJSON_Delete(cJSON_DetachItemViaPointer(types, old));
    cJSON *dup = cJSON_Duplicate(entry, 1);
    rl_error e;
    if (!dup || !rl_json_push(types, dup) ||
        rl_cal_cache_store(c->o->cache_root, c->key, c->method, set, &e) != RL_OK) {
        rl_progress_done();
        rl_tty_printf(stderr, "llama-roofline %s: warning: the calibration is not cached: %s\n",
                      c->o->verb, dup ? e.msg : "out of memory");
    }
}

/* The set's entry of the item, a new one (source measured) when it has none yet. NULL when out
 * of memory. */
static cJSON *set_entry(cJSON *set, const cal_item *it)
{
    cJSON *entry = rl_cal_set_type(set, it->t->name);
    if (entry) {
        cJSON_DeleteItemFromObjectCaseSensitive(entry, "source"); /* a cached one goes on */
        return rl_json_add_str(entry, "source", "measured") ? entry : NULL;
    }
    entry = rl_cal_type_new(it->t->name);
    if (entry && !rl_json_push(cJSON_GetObjectItemCaseSensitive(set, "types"), entry))
        return NULL;
    return entry;
}

/* Phase 3, per pass and thread count: every type needed there, measured role by role (a point
 * that holds this pass already, from the cache, is not measured again). */
static rl_status measure_set(cal_ctx *c, int ti, cJSON *set, int pass, rl_error *err)
{
    const rl_calib_opts *o = c->o;
    rl_status st = RL_OK;
    for (size_t i = 0; st == RL_OK && i < o->n_types; i++) {
        cal_item *it = &c->items[i];
        bool due = false;
        for (int r = 0; r < RL_CAL_N_ROLES; r++)
            due |= it->held[ti][r] <= pass;
        if (!it->need[ti] || it->refused || !due)
            continue;
        cJSON *entry = set_entry(set, it);
        if (!entry)
            return oom(err);
        for (int r = 0; st == RL_OK && r < RL_CAL_N_ROLES; r++)
            if (it->held[ti][r] <= pass)
                st = measure_point(c, it, r, o->threads[ti], pass, entry, err);
        if (!rl_cal_type_finish(entry))
            return oom(err);
        c->stats->measured += !it->counted[ti]; /* once, in the first pass it is measured */
        it->counted[ti] = true;
        sort_types(set);
        rl_error we;
        rl_status ws = rl_bundle_write(c->bundle, c->path, &we);
        if (st == RL_OK && ws != RL_OK) {
            *err = we;
            st = ws;
        }
        cache_put(c, ti, entry);
    }
    sort_types(set);
    return st;
}

/* method.runs_planned: each pass of each point the cache does not hold, per type and thread
 * count to measure; false when out of memory. */
static bool set_runs_planned(cal_ctx *c)
{
    c->run_total = 0;
    for (size_t i = 0; i < c->o->n_types; i++)
        for (int ti = 0; ti < c->o->n_threads; ti++)
            for (int r = 0; r < RL_CAL_N_ROLES; r++) {
                const cal_item *it = &c->items[i];
                int left = c->o->passes - it->held[ti][r];
                c->run_total += it->need[ti] && !it->refused && left > 0 ? (size_t)left : 0;
            }
    cJSON_DeleteItemFromObjectCaseSensitive(c->method, "runs_planned");
    return rl_json_add_num(c->method, "runs_planned", (double)c->run_total);
}

static void ctx_free(cal_ctx *c)
{
    for (size_t i = 0; i < RL_CAL_MAX_TYPES; i++)
        for (int r = 0; r < RL_CAL_N_ROLES; r++)
            free(c->items[i].paths[r]);
    for (int i = 0; i < RL_SWEEP_MAX_LIST; i++)
        cJSON_Delete(c->cache_sets[i]);
}

/* A detected LLC is checked against what this machine reads from it (measure/cache_probe.h)
 * at the largest thread count; *po is o with the cache size the plan uses. *probed: a probe
 * ran and *pr holds it. */
static rl_status probe_llc(const rl_calib_opts *o, rl_calib_opts *po, rl_cache_probe *pr,
                           bool *probed, rl_error *err)
{
    *po = *o;
    *probed = false;
    if (!o->llc_source || strcmp(o->llc_source, "detected") != 0 || o->n_types == 0)
        return RL_OK;
    int t = 1;
    for (int i = 0; i < o->n_threads; i++)
        t = o->threads[i] > t ? o->threads[i] : t;
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    rl_status st = rl_cache_probe_run(o->llc, t, &si, pr, err);
    rl_progress_done();
    if (st != RL_OK)
        return st;
    *probed = true;
    char safe[256];
    rl_tty_printf(stderr, "%s: cache probe: %s\n", o->verb ? o->verb : "calibrate",
                  rl_tty_escape(pr->why, safe, sizeof safe));
    rl_cache_probe_apply(pr, &po->llc, &po->llc_source);
    return RL_OK;
}

rl_status rl_calib_measure(const rl_calib_opts *o_in, const rl_cal_key *key, cJSON *bundle,
                           const char *path, rl_calib_stats *stats, rl_error *err)
{
    memset(stats, 0, sizeof *stats);
    cal_ctx *c = rl_calloc(1, sizeof *c);
    if (!c)
        return oom(err);
    rl_calib_opts po;
    rl_cache_probe pr;
    bool probed = false;
    rl_status st = probe_llc(o_in, &po, &pr, &probed, err);
    const rl_calib_opts *o = &po;
    *c = (cal_ctx){.o = o, .key = key, .bundle = bundle, .path = path, .stats = stats};
    if (st == RL_OK)
        st = o->n_types > RL_CAL_MAX_TYPES || o->n_threads > RL_SWEEP_MAX_LIST
                 ? rl_fail(err, RL_EINPUT, "too many types or thread counts")
                 : section_new(c, err);
    if (st == RL_OK && probed &&
        !rl_json_attach(c->method, "cache_probe", rl_cache_probe_json(&pr)))
        st = oom(err);
    for (size_t i = 0; st == RL_OK && i < o->n_types; i++) {
        c->items[i].t = o->types[i];
        if (!rl_cal_plan_shapes(o->types[i]->type, o->llc, c->items[i].shapes))
            st = rl_fail(err, RL_EINTERNAL, "no calibration shapes for %s", o->types[i]->name);
    }
    for (int ti = 0; st == RL_OK && ti < o->n_threads; ti++)
        st = plan_reuse(c, ti, err);
    if (st == RL_OK && !set_runs_planned(c)) /* before the models: an interruption says it */
        st = oom(err);
    if (st == RL_OK)
        st = make_models(c, err);
    if (st == RL_OK && !set_runs_planned(c)) /* less the types llama-quantize refused */
        st = oom(err);
    if (st == RL_OK)
        st = rl_bundle_write(bundle, path, err);
    cJSON *sets = c->section ? cJSON_GetObjectItemCaseSensitive(c->section, "sets") : NULL;
    for (int pass = 0; pass < o->passes; pass++) /* each pass over the whole set, then again */
        for (int ti = 0; st == RL_OK && ti < o->n_threads; ti++)
            st = measure_set(c, ti, cJSON_GetArrayItem(sets, ti), pass, err);
    rl_progress_done();
    stats->not_calibrated = (size_t)cJSON_GetArraySize(
        c->section ? cJSON_GetObjectItemCaseSensitive(c->section, "not_calibrated") : NULL);
    ctx_free(c);
    free(c);
    return st;
}

rl_status rl_calib_attach_cached(const char *cache_root, const rl_cal_key *key, const int *threads,
                                 int n_threads, cJSON *bundle, size_t *n_types, rl_error *err)
{
    *n_types = 0;
    cJSON *sets = cJSON_CreateArray();
    cJSON *method = NULL;
    rl_status st = sets ? RL_OK : oom(err);
    for (int i = 0; st == RL_OK && i < n_threads; i++) {
        cJSON *set = NULL;
        st = rl_cal_cache_load(cache_root, key, threads[i], &set, NULL, 0, err);
        cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(set, "types"))
        {
            cJSON_DeleteItemFromObjectCaseSensitive(t, "source");
            /* derived again from the cached points, as a reused type is (plan_reuse) */
            if (!rl_json_add_str(t, "source", "cache") || !rl_cal_type_finish(t))
                st = oom(err);
            (*n_types)++;
        }
        if (set && !method) {
            char *p = rl_cal_cache_path(cache_root, key, threads[i]);
            cJSON *doc = NULL;
            rl_error e;
            if (p && rl_json_read_file(p, RL_BUNDLE_MAX_BYTES, &doc, &e) == RL_OK)
                method = cJSON_DetachItemFromObjectCaseSensitive(doc, "method");
            cJSON_Delete(doc);
            free(p);
        }
        if (set && !rl_json_push(sets, set))
            st = oom(err);
    }
    if (st == RL_OK && *n_types) {
        cJSON *s = cJSON_CreateObject();
        bool ok = s && rl_json_add_str(s, "kind", "derived");
        ok = ok && rl_json_attach(s, "method", method ? method : rl_json_unavailable("not cached"));
        method = NULL;
        ok = ok && rl_json_attach(s, "key", rl_cal_key_json(key));
        ok = ok && cJSON_AddArrayToObject(s, "not_calibrated");
        ok = ok && rl_json_attach(s, "sets", sets);
        sets = NULL;
        cJSON_DeleteItemFromObjectCaseSensitive(bundle, "calibration");
        if (!ok || !rl_json_attach(bundle, "calibration", s))
            st = oom(err);
        if (!ok)
            cJSON_Delete(s);
    }
    cJSON_Delete(method);
    cJSON_Delete(sets);
    return st;
}

/* o[key] when it is a string, else dflt. */
static const char *str_or(const cJSON *o, const char *key, const char *dflt)
{
    const char *s = rl_json_get_str(o, key);
    return s ? s : dflt;
}

/* t[key][name] as a column of width w (unit included), prec decimals; n/a when unavailable. */
static void print_value(FILE *out, const cJSON *t, const char *key, const char *name, int w,
                        int prec, const char *unit)
{
    double v;
    char cell[48];
    if (rl_json_get_num(rl_json_get(t, key), name, &v))
        rl_snprintf(cell, sizeof cell, "%.*f %s", prec, v, unit);
    else
        rl_snprintf(cell, sizeof cell, "n/a");
    rl_tty_printf(out, " %*s", w, cell);
}

void rl_calib_print(FILE *out, const cJSON *section)
{
    const cJSON *key = rl_json_get(section, "key"), *set, *t;
    cJSON_ArrayForEach(set, rl_json_get(section, "sets"))
    {
        int threads = (int)rl_json_num_or(set, "threads", 0);
        rl_tty_printf(out, "\ncalibration at %d thread%s (%s, llama.cpp %s)\n", threads,
                      threads == 1 ? "" : "s", str_or(key, "cpu", "?"),
                      str_or(key, "llama_cpp_build", "?"));
        rl_tty_printf(out, "  %-8s %13s %11s %10s %10s %10s  %s\n", "type", "compute roof",
                      "stream", "fixed", "per layer", "per row", "source");
        cJSON_ArrayForEach(t, rl_json_get(set, "types"))
        {
            rl_tty_printf(out, "  %-8s", str_or(t, "type", "?"));
            print_value(out, t, "compute_roof", "GBs", 13, 1, "GB/s");
            print_value(out, t, "stream", "GBs", 11, 1, "GB/s");
            print_value(out, t, "fixed", "us", 10, 1, "us");
            print_value(out, t, "per_layer", "us", 10, 2, "us");
            print_value(out, t, "per_row", "ns", 10, 2, "ns");
            rl_tty_printf(out, "  %s\n", str_or(t, "source", "?"));
        }
    }
    const cJSON *nc = rl_json_get(section, "not_calibrated");
    if (cJSON_GetArraySize(nc) > 0)
        rl_tty_printf(out, "\nnot calibrated:\n");
    cJSON_ArrayForEach(t, nc)
        rl_tty_printf(out, "  %-8s %s\n", str_or(t, "type", "?"), str_or(t, "reason", ""));
}

void rl_calib_add_type(rl_calib_opts *o, const rl_cal_type *t)
{
    bool m = rl_cal_type_measurable(t);
    const rl_cal_type **list = m ? o->types : o->skipped;
    size_t *n = m ? &o->n_types : &o->n_skipped;
    for (size_t i = 0; t && i < *n; i++)
        if (list[i] == t)
            return;
    if (!t || *n >= RL_CAL_MAX_TYPES)
        return;
    if (!m)
        o->skipped_why[*n] = t->reason;
    list[(*n)++] = t;
}

void rl_calib_add_types_of(rl_calib_opts *o, const cJSON *gguf)
{
    double total = rl_json_num_or(gguf, "tensor_bytes", 0);
    const cJSON *e;
    cJSON_ArrayForEach(e, rl_json_get(gguf, "types"))
    {
        double bytes = rl_json_num_or(e, "bytes", 0);
        const rl_cal_type *t = rl_cal_type_by_name(rl_json_get_str(e, "type"));
        if (t && total > 0 && 100.0 * bytes / total >= 1.0)
            rl_calib_add_type(o, t);
    }
}

void rl_calib_order_types(rl_calib_opts *o)
{
    size_t n = 0;
    const rl_cal_type *out[RL_CAL_MAX_TYPES];
    for (size_t i = 0; i < rl_cal_type_count(); i++)
        for (size_t k = 0; k < o->n_types; k++)
            if (o->types[k] == rl_cal_type_at(i) && n < RL_CAL_MAX_TYPES)
                out[n++] = o->types[k];
    memcpy(o->types, out, n * sizeof out[0]);
    o->n_types = n;
}

void rl_calib_llc(rl_calib_opts *o, const rl_sysinfo *si, const char *verb)
{
    o->llc = si->llc_bytes ? si->llc_bytes : RL_CAL_LLC_DEFAULT;
    o->llc_source = si->llc_bytes ? "detected" : "default";
    uint64_t mib; /* calibrate's --llc-mib for diagnose and advise (docs/CLI.md) */
    const char *env = getenv("LLAMA_ROOFLINE_CALIB_LLC_MIB");
    if (env && *env && rl_parse_u64(env, &mib) && mib >= 1 && mib <= 65536) {
        o->llc = mib << 20;
        o->llc_source = "--llc-mib";
    } else if (env && *env) {
        rl_tty_printf(stderr,
                      "%s: warning: LLAMA_ROOFLINE_CALIB_LLC_MIB is not a whole number "
                      "from 1 to 65536: ignored\n",
                      verb);
    }
}

/* The options of diagnose's calibration from its bundle: its thread counts, its models' types,
 * its llama-bench, llama-quantize beside it (without one, those types are not calibrated). */
static void diagnose_opts(const cJSON *b, bool quick, rl_calib_opts *o, char *noq, size_t noq_cap)
{
    const cJSON *set = rl_json_get(b, "settings"), *m, *t;
    cJSON_ArrayForEach(t, rl_json_get(set, "threads"))
    {
        if (cJSON_IsNumber(t) && o->n_threads < RL_SWEEP_MAX_LIST)
            o->threads[o->n_threads++] = (int)t->valuedouble;
    }
    cJSON_ArrayForEach(m, rl_json_get(b, "models"))
        rl_calib_add_types_of(o, rl_json_get(m, "gguf"));
    rl_calib_order_types(o);
    o->n_gen = quick ? rl_defaults.cal_quick_n_gen : rl_defaults.cal_n_gen;
    o->reps = quick ? rl_defaults.cal_quick_reps : rl_defaults.cal_reps;
    o->run_s = rl_defaults.cal_run_s;
    o->passes = rl_defaults.cal_passes;
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    rl_calib_llc(o, &si, "diagnose");
    o->llama_bench = rl_json_get_str(rl_json_get(b, "llama_cpp"), "llama_bench");
    bool needs = false;
    for (size_t i = 0; i < o->n_types; i++)
        needs |= o->types[i]->make == RL_CAL_QUANTIZE;
    char *q = NULL;
    rl_error qe;
    if (needs && rl_advise_find_quantize(NULL, o->llama_bench, &q, &qe) != RL_OK) {
        rl_snprintf(noq, noq_cap, "%s", qe.msg);
        size_t k = 0;
        for (size_t i = 0; i < o->n_types; i++) {
            if (o->types[i]->make != RL_CAL_QUANTIZE)
                o->types[k++] = o->types[i];
            else if (o->n_skipped < RL_CAL_MAX_TYPES) {
                o->skipped_why[o->n_skipped] = noq;
                o->skipped[o->n_skipped++] = o->types[i];
            }
        }
        o->n_types = k;
    }
    o->llama_quantize = q; /* freed by the caller */
}

rl_status rl_calib_after_diagnose(cJSON *bundle, const char *out_dir, bool calibrate, bool quick,
                                  double wait_quiet_s, int retry_disturbed, rl_status st,
                                  rl_error *err)
{
    if (!bundle || (st != RL_OK && st != RL_NOTHING))
        return st;
    calibrate = calibrate && st == RL_OK; /* no decode rate at all: llama-bench does not run */
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *path = rl_asprintf("%s/bundle.json", out_dir);
    rl_cal_key key;
    rl_cal_key_of_bundle(bundle, &key);
    rl_calib_opts o = {0};
    char noq[600] = "";
    diagnose_opts(bundle, quick, &o, noq, sizeof noq);
    rl_error ce = {RL_OK, ""};
    rl_status cst = root && path ? RL_OK : rl_fail(&ce, RL_EINTERNAL, "out of memory");
    if (cst == RL_OK && !calibrate) {
        size_t n = 0;
        cst = rl_calib_attach_cached(root, &key, o.threads, o.n_threads, bundle, &n, &ce);
        if (cst == RL_OK && n)
            rl_tty_printf(
                stderr,
                "diagnose: attached the cached calibration of this CPU and llama.cpp build (%zu "
                "type%s x thread counts; calibrate --recalibrate measures it again)\n",
                n, n == 1 ? "" : "s");
    } else if (cst == RL_OK) {
        o.verb = "diagnose";
        o.timeout_s =
            rl_json_num_or(rl_json_get(bundle, "settings"), "timeout_s", rl_defaults.timeout_s);
        o.cache_root = root;
        o.quiet = &rl_defaults.quiet;
        o.wait_quiet_s = wait_quiet_s;
        o.retry_disturbed = retry_disturbed;
        rl_calib_stats stats;
        rl_tty_printf(stderr, "diagnose: calibrating %zu type%s at %d thread count%s\n", o.n_types,
                      o.n_types == 1 ? "" : "s", o.n_threads, o.n_threads == 1 ? "" : "s");
        cst = rl_calib_measure(&o, &key, bundle, path, &stats, &ce);
        cJSON *env = cJSON_GetObjectItemCaseSensitive(bundle, "environment");
        if (cJSON_IsObject(env)) {
            cJSON_DeleteItemFromObjectCaseSensitive(env, "machine_state");
            rl_json_attach(env, "machine_state", rl_quiet_summary_json(bundle, o.quiet));
        }
        if (cst == RL_EINTERRUPTED)
            rl_bundle_set_status(bundle, "interrupted", "interrupted while calibrating");
    }
    rl_error we;
    rl_status wst = path ? rl_bundle_write(bundle, path, &we) : RL_OK;
    if (cst == RL_OK && wst != RL_OK) {
        ce = we;
        cst = wst;
    }
    free((char *)o.llama_quantize);
    free(root);
    free(path);
    if (st == RL_OK && cst != RL_OK) {
        *err = ce;
        return cst;
    }
    if (cst != RL_OK && cst != RL_EINTERRUPTED)
        rl_tty_printf(stderr, "diagnose: warning: no calibration: %s\n", ce.msg);
    return st;
}

cJSON *rl_calib_bundle_new(const char *command, const rl_calib_opts *o, const rl_sysinfo *si)
{
    int argc = 0;
    char *const *argv = rl_opt_typed(&argc);
    cJSON *b = rl_bundle_new(command, argc, argv), *src = NULL, *set = NULL;
    int depth0 = 0;
    bool ok = b && (src = cJSON_AddObjectToObject(b, "source")) != NULL;
    ok = ok && rl_json_add_str(src, "kind", "measured");
    ok = ok && rl_json_attach(b, "environment", rl_sysinfo_to_json(si));
    ok = ok && rl_json_attach(b, "llama_cpp", rl_sweep_build_json(o->llama_bench));
    ok = ok && (set = cJSON_AddObjectToObject(b, "settings")) != NULL;
    ok = ok && rl_json_add_str(set, "kind", "controlled");
    ok = ok && rl_json_add_int_array(set, "threads", o->threads, o->n_threads);
    ok = ok && rl_json_add_int_array(set, "depths", &depth0, 1);
    ok = ok && rl_json_add_num(set, "n_gen", o->n_gen) && rl_json_add_num(set, "reps", o->reps);
    ok = ok && rl_json_add_num(set, "n_gpu_layers", 0);
    ok = ok && rl_json_add_num(set, "timeout_s", o->timeout_s);
    if (!ok) {
        cJSON_Delete(b);
        return NULL;
    }
    return b;
}
