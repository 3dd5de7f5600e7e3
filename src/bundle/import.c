/* SPDX-License-Identifier: MIT */
/* import.c: a roofline.json of the published llama-roofline, or raw llama-bench output, made
 * into a result bundle; llama-bench's csv, sql and SQLite tables are read into its records by
 * import_lbench.c and import_sql.c first. See import.h for the rules and docs/BUNDLE.md for
 * the result.
 *
 * Every tree built here is attached to the bundle as soon as it is complete, so one
 * cJSON_Delete of the bundle releases everything on any failure path. */
#include "bundle/import.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "bundle/import_fm.h"
#include "bundle/import_lbench.h"
#include "measure/lbench.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "measure/sysinfo.h"

#define MAX_VALUES 1000000 /* JSON values in one roofline.json, checked before parsing it */
#define MAX_TOKENS (1 << 24)
#define MAX_EXACT 9007199254740992.0 /* 2^53 */

#define EXPECTED                                                                                   \
    "expected a llama-roofline roofline.json (schema_version 1), an fm-bench JSON report "         \
    "(schemaVersion 1) or llama-bench output (-o json, jsonl, csv or sql, or an SQLite "           \
    "database of -o sql)"

/* The input being imported: its name for messages and the first error. */
typedef struct {
    const char *file;
    rl_error *err;
} imp;

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ---- building ------------------------------------------------------------------------- */

/* A copy of src without the listed keys (NULL-terminated); NULL when out of memory. */
static cJSON *copy_without(const cJSON *src, const char *const *drop)
{
    cJSON *c = cJSON_Duplicate(src, 1);
    for (size_t i = 0; c && drop[i]; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(c, drop[i]);
    return c;
}

/* Keep src (when it is an object) as "imported" in o. */
static bool keep_imported(cJSON *o, const cJSON *src)
{
    return !cJSON_IsObject(src) || rl_json_attach(o, "imported", cJSON_Duplicate(src, 1));
}

/* A sysinfo record with everything unknown (JSON null once written). */
static void unknown_sysinfo(rl_sysinfo *si)
{
    memset(si, 0, sizeof *si);
    si->logical_cores = si->physical_cores = si->packages = -1;
    si->numa_nodes = si->threads_per_core = -1;
    si->smt_active = si->is_vm = -1;
}

/* What the source says of a model in the shape of the GGUF object (gguf_json.h), with what
 * only a GGUF header could tell marked unavailable. NULL string or negative number: not
 * given. is_moe: 1, 0, or -1 not given. */
static cJSON *imported_gguf(const char *label, const char *arch, int64_t n_params,
                            int64_t file_bytes, int is_moe, int64_t expert_count)
{
    static const char *const header_only[] = {
        "tensor_bytes", "streamed_bytes", "kv_bytes_per_token", "n_layer", "context_length",
        "composition",  "types",
    };
    const char *missing = "not in the imported file";
    cJSON *g = cJSON_CreateObject();
    if (!g)
        return NULL;
    bool ok = rl_json_add_str(g, "source",
                              "imported: what the source file states of the model; "
                              "no GGUF header was read");
    ok = ok && (label ? rl_json_add_str(g, "label", label)
                      : rl_json_attach(g, "label", rl_json_unavailable(missing)));
    ok = ok && (arch ? rl_json_add_str(g, "architecture", arch)
                     : rl_json_attach(g, "architecture", rl_json_unavailable(missing)));
    ok = ok && (n_params >= 0 ? rl_json_add_i64(g, "n_params", n_params)
                              : rl_json_attach(g, "n_params", rl_json_unavailable(missing)));
    ok = ok && (file_bytes >= 0 ? rl_json_add_i64(g, "file_bytes", file_bytes)
                                : rl_json_attach(g, "file_bytes", rl_json_unavailable(missing)));
    ok = ok && (is_moe >= 0 ? cJSON_AddBoolToObject(g, "is_moe", is_moe) != NULL
                            : rl_json_attach(g, "is_moe", rl_json_unavailable(missing)));
    ok =
        ok && (expert_count >= 0 ? rl_json_add_i64(g, "expert_count", expert_count)
                                 : rl_json_attach(g, "expert_count", rl_json_unavailable(missing)));
    ok = ok && cJSON_AddFalseToObject(g, "sizes_known");
    for (size_t i = 0; ok && i < sizeof header_only / sizeof header_only[0]; i++)
        ok = rl_json_attach(g, header_only[i],
                            rl_json_unavailable("only a GGUF header gives it; none was read"));
    if (!ok) {
        cJSON_Delete(g);
        return NULL;
    }
    return g;
}

/* A new bundle model {id, path, name, gguf, runs: []} attached to models; NULL when out of
 * memory. */
static cJSON *new_model(cJSON *models, size_t index, const char *path, const char *name,
                        cJSON *gguf)
{
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddItemToArray(models, m)) {
        cJSON_Delete(m);
        cJSON_Delete(gguf);
        return NULL;
    }
    char id[32];
    snprintf(id, sizeof id, "m%zu", index + 1);
    bool ok = cJSON_AddStringToObject(m, "id", id) != NULL;
    ok = ok && (!path || rl_json_add_str(m, "path", path));
    ok = ok && rl_json_add_str(m, "name", name);
    if (ok)
        ok = rl_json_attach(m, "gguf", gguf);
    else
        cJSON_Delete(gguf);
    ok = ok && cJSON_AddArrayToObject(m, "runs") != NULL;
    return ok ? m : NULL;
}

/* ---- reading typed values -------------------------------------------------------------- */

/* RL_EINPUT: "FILE: PATH.KEY is WHAT; expected EXPECT". */
static rl_status bad_value(imp *c, const char *path, const char *key, const cJSON *it,
                           const char *expect)
{
    return rl_json_fail_at(c->err, c->file, path, key, it, expect);
}

static bool given(const cJSON *it)
{
    return it && !cJSON_IsNull(it);
}

/* The item at key when it is given and passes is (*out NULL when absent or null); the error
   names what was expected. The typed readers below build on it. */
static rl_status opt_item(imp *c, const cJSON *o, const char *path, const char *key,
                          cJSON_bool (*is)(const cJSON *), const char *expect, const cJSON **out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!given(it))
        return RL_OK;
    if (!is(it))
        return bad_value(c, path, key, it, expect);
    *out = it;
    return RL_OK;
}

/* A string or nothing (absent or null: *out NULL). */
static rl_status opt_str(imp *c, const cJSON *o, const char *path, const char *key,
                         const char **out)
{
    const cJSON *it;
    rl_status st = opt_item(c, o, path, key, cJSON_IsString, "a string", &it);
    *out = it ? it->valuestring : NULL;
    return st;
}

/* A whole number in [lo, hi] or nothing (*has false). */
static rl_status opt_int(imp *c, const cJSON *o, const char *path, const char *key, double lo,
                         double hi, bool *has, int64_t *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *has = false;
    if (!given(it))
        return RL_OK;
    double d = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(d >= lo && d <= hi) || d != floor(d)) {
        char expect[96];
        rl_snprintf(expect, sizeof expect, "a whole number from %.0f to %.0f", lo, hi);
        return bad_value(c, path, key, it, expect);
    }
    *has = true;
    *out = (int64_t)d;
    return RL_OK;
}

/* A finite number >= 0 or nothing. */
static rl_status opt_rate(imp *c, const cJSON *o, const char *path, const char *key, bool *has,
                          double *out)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *has = false;
    if (!given(it))
        return RL_OK;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble < 0 ||
        it->valuedouble > 1e12)
        return bad_value(c, path, key, it, "a number from 0 to 1e12");
    *has = true;
    *out = it->valuedouble;
    return RL_OK;
}

/* true, false, or nothing (*v -1). */
static rl_status opt_bool(imp *c, const cJSON *o, const char *path, const char *key, int *v)
{
    const cJSON *it;
    rl_status st = opt_item(c, o, path, key, cJSON_IsBool, "true or false", &it);
    *v = it ? (cJSON_IsTrue(it) ? 1 : 0) : -1;
    return st;
}

/* An object or nothing (*out NULL). */
static rl_status opt_object(imp *c, const cJSON *o, const char *path, const char *key,
                            const cJSON **out)
{
    return opt_item(c, o, path, key, cJSON_IsObject, "an object", out);
}

/* An array of at most max elements, or nothing (*out NULL). */
static rl_status opt_array(imp *c, const cJSON *o, const char *path, const char *key, int max,
                           const cJSON **out)
{
    const cJSON *it;
    rl_status st = opt_item(c, o, path, key, cJSON_IsArray, "an array", &it);
    *out = NULL;
    if (st != RL_OK || !it)
        return st;
    int n = 0;
    for (const cJSON *e = it->child; e; e = e->next)
        if (++n > max) {
            char what[160];
            rl_snprintf(what, sizeof what, "an array of at most %d entries (this one has more)",
                        max);
            return rl_fail(c->err, RL_EINPUT, "%s: %s%s%s must be %s", c->file, path,
                           *path ? "." : "", key, what);
        }
    *out = it;
    return RL_OK;
}

/* ---- (a) roofline.json ------------------------------------------------------------------ */

static rl_status roofline_environment(imp *c, const cJSON *root, cJSON *b)
{
    const cJSON *sys = NULL;
    rl_status st = opt_object(c, root, "", "system", &sys);
    rl_sysinfo si;
    unknown_sysinfo(&si);
    const char *os = NULL, *rel = NULL, *mach = NULL, *cpu = NULL;
    bool has;
    int64_t v;
    if (st == RL_OK)
        st = opt_str(c, sys, "system", "os", &os);
    if (st == RL_OK)
        st = opt_str(c, sys, "system", "os_release", &rel);
    if (st == RL_OK)
        st = opt_str(c, sys, "system", "machine", &mach);
    if (st == RL_OK)
        st = opt_str(c, sys, "system", "cpu", &cpu);
    if (st == RL_OK &&
        (st = opt_int(c, sys, "system", "logical_cores", 1, 1 << 20, &has, &v)) == RL_OK && has)
        si.logical_cores = (int)v;
    if (st == RL_OK &&
        (st = opt_int(c, sys, "system", "physical_cores", 1, 1 << 20, &has, &v)) == RL_OK && has)
        si.physical_cores = (int)v;
    if (st == RL_OK &&
        (st = opt_int(c, sys, "system", "ram_bytes", 1, MAX_EXACT, &has, &v)) == RL_OK && has)
        si.ram_bytes = (uint64_t)v;
    if (st != RL_OK)
        return st;
    snprintf(si.os, sizeof si.os, "%s", os ? os : "");
    snprintf(si.kernel, sizeof si.kernel, "%s", rel ? rel : "");
    snprintf(si.arch, sizeof si.arch, "%s", mach ? mach : "");
    snprintf(si.cpu_model, sizeof si.cpu_model, "%s", cpu ? cpu : "");
    cJSON *env = rl_sysinfo_to_json(&si);
    bool ok = rl_json_attach(b, "environment", env);
    ok = ok && rl_json_add_str(env, "source",
                               "imported: the source file's system record (os_release as kernel, "
                               "machine as arch); what it does not state is null");
    ok = ok && keep_imported(env, sys);
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

/* depth: the one the runs were measured at (settings.depth, else 0). */
static rl_status roofline_settings(imp *c, const cJSON *s, const char *conv, int64_t depth,
                                   int64_t models_ngl, cJSON *b)
{
    const cJSON *threads = NULL;
    rl_status st = RL_OK;
    bool has_np = false, has_ng = false, has_reps = false, has_ngl = false;
    int64_t np = 0, ng = 0, reps = 0, ngl = 0;
    if (st == RL_OK)
        st = opt_array(c, s, "settings", "threads", RL_IMPORT_MAX_THREADS, &threads);
    for (const cJSON *t = threads ? threads->child : NULL; st == RL_OK && t; t = t->next)
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 1) ||
            t->valuedouble > RL_IMPORT_MAX_THREADS || t->valuedouble != floor(t->valuedouble))
            st = bad_value(c, "settings", "threads[]", t, "whole numbers from 1 to 4096");
    if (st == RL_OK)
        st = opt_int(c, s, "settings", "n_prompt", 0, MAX_TOKENS, &has_np, &np);
    if (st == RL_OK)
        st = opt_int(c, s, "settings", "n_gen", 0, MAX_TOKENS, &has_ng, &ng);
    if (st == RL_OK)
        st = opt_int(c, s, "settings", "reps", 1, 1e6, &has_reps, &reps);
    if (st == RL_OK)
        st = opt_int(c, s, "settings", "gpu_layers", -1, 1e9, &has_ngl, &ngl);
    if (st != RL_OK)
        return st;
    cJSON *o = cJSON_CreateObject();
    bool ok = rl_json_attach(b, "settings", o);
    ok = ok && cJSON_AddStringToObject(o, "kind", "controlled");
    ok = ok && (!threads || rl_json_attach(o, "threads", cJSON_Duplicate(threads, 1)));
    cJSON *d = ok ? cJSON_AddArrayToObject(o, "depths") : NULL;
    ok = ok && d && cJSON_AddItemToArray(d, cJSON_CreateNumber((double)depth));
    ok = ok && (!has_np || np < 1 || rl_json_add_i64(o, "n_prompt", np));
    ok = ok && (!has_ng || ng < 1 || rl_json_add_i64(o, "n_gen", ng));
    ok = ok && (!has_reps || rl_json_add_i64(o, "reps", reps));
    /* gpu_layers null: -ngl was not passed; the models then say what llama-bench used */
    if (!has_ngl && models_ngl >= -1) {
        has_ngl = true;
        ngl = models_ngl;
    }
    ok = ok && (!has_ngl || rl_json_add_i64(o, "n_gpu_layers", ngl));
    ok = ok && cJSON_AddStringToObject(o, "bytes_convention", conv);
    ok = ok && rl_json_add_str(o, "source", "imported: the source file's settings");
    ok = ok && keep_imported(o, s);
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

static rl_status roofline_llama_cpp(imp *c, const cJSON *root, cJSON *b)
{
    const cJSON *l = NULL;
    const char *path = NULL, *commit = NULL;
    bool has_num = false;
    int64_t num = 0;
    rl_status st = opt_object(c, root, "", "llama_cpp", &l);
    if (st == RL_OK)
        st = opt_str(c, l, "llama_cpp", "path", &path);
    if (st == RL_OK)
        st = opt_str(c, l, "llama_cpp", "build_commit", &commit);
    if (st == RL_OK)
        st = opt_int(c, l, "llama_cpp", "build_number", 0, MAX_EXACT, &has_num, &num);
    if (st != RL_OK)
        return st;
    cJSON *o = cJSON_CreateObject();
    bool ok = rl_json_attach(b, "llama_cpp", o);
    ok = ok && cJSON_AddStringToObject(o, "kind", "measured");
    ok = ok && rl_json_add_str_or_null(o, "llama_bench", path);
    ok = ok && rl_json_add_str_or_null(o, "build_commit", commit);
    ok = ok && rl_json_add_u64_or_null(o, "build_number", (uint64_t)num, has_num);
    ok = ok && keep_imported(o, l);
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

/* The published tool calls a ceiling "supplied" whenever its source is not "measured". */
static rl_status roofline_membw(imp *c, const cJSON *root, cJSON *b)
{
    const cJSON *m = NULL;
    rl_status st = opt_object(c, root, "", "membw", &m);
    if (st != RL_OK)
        return st;
    const cJSON *peak_it = cJSON_GetObjectItemCaseSensitive(m, "peak_read_GBs");
    if (!m || !given(peak_it)) {
        cJSON *u = rl_json_unavailable("not measured: the imported file holds no ceiling");
        bool ok = rl_json_attach(b, "membw", u) && keep_imported(u, m);
        return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
    }
    if (!cJSON_IsNumber(peak_it) || !isfinite(peak_it->valuedouble) ||
        !(peak_it->valuedouble > 0) || peak_it->valuedouble > 1e6)
        return bad_value(c, "membw", "peak_read_GBs", peak_it, "a number above 0 (GB/s)");
    double peak = peak_it->valuedouble;
    const char *source = NULL, *kernel = NULL, *method = NULL;
    bool has_thr = false, has_mb = false, has_copy = false, has_stab = false, has_reps = false;
    int64_t thr = 0, mb = 0, reps = 0;
    double copy = 0, stab = 0;
    int unstable = -1;
    st = opt_str(c, m, "membw", "source", &source);
    if (st == RL_OK)
        st = opt_str(c, m, "membw", "best_kernel", &kernel);
    if (st == RL_OK)
        st = opt_str(c, m, "membw", "method", &method);
    if (st == RL_OK)
        st = opt_int(c, m, "membw", "best_threads", 1, 1 << 20, &has_thr, &thr);
    if (st == RL_OK)
        st = opt_int(c, m, "membw", "working_set_mb", 1, 1 << 24, &has_mb, &mb);
    if (st == RL_OK)
        st = opt_int(c, m, "membw", "reps", 1, 1e6, &has_reps, &reps);
    if (st == RL_OK)
        st = opt_rate(c, m, "membw", "copy_GBs", &has_copy, &copy);
    if (st == RL_OK)
        st = opt_rate(c, m, "membw", "stability", &has_stab, &stab);
    if (st == RL_OK)
        st = opt_bool(c, m, "membw", "unstable", &unstable);
    if (st != RL_OK)
        return st;
    bool measured = source && strcmp(source, "measured") == 0;
    cJSON *o = cJSON_CreateObject();
    bool ok = rl_json_attach(b, "membw", o);
    ok = ok && cJSON_AddStringToObject(o, "kind", measured ? "measured" : "controlled");
    ok = ok && cJSON_AddNumberToObject(o, "peak_read_GBs", peak);
    if (!measured) {
        char *s = rl_asprintf("imported: supplied to the source run, not measured there (%s)",
                              source ? source : "no source given");
        ok = ok && s && rl_json_add_str(o, "source", s);
        free(s);
    } else {
        const char *none = "not in the imported file";
        ok = ok && (kernel ? rl_json_add_str(o, "kernel", kernel)
                           : rl_json_attach(o, "kernel", rl_json_unavailable(none)));
        ok = ok && (has_thr ? rl_json_add_i64(o, "threads", thr)
                            : rl_json_attach(o, "threads", rl_json_unavailable(none)));
        ok = ok && (has_mb ? rl_json_add_i64(o, "working_set_bytes", mb * 1048576)
                           : rl_json_attach(o, "working_set_bytes", rl_json_unavailable(none)));
        ok = ok && (has_reps ? rl_json_add_i64(o, "reps", reps)
                             : rl_json_attach(o, "reps", rl_json_unavailable(none)));
        ok = ok && (has_copy ? cJSON_AddNumberToObject(o, "copy_GBs", copy) != NULL
                             : rl_json_attach(o, "copy_GBs", rl_json_unavailable(none)));
        ok = ok && (has_stab ? cJSON_AddNumberToObject(o, "stability", stab) != NULL
                             : rl_json_attach(o, "stability",
                                              rl_json_unavailable("the source predates the "
                                                                  "stability check")));
        if (unstable >= 0)
            ok = ok && cJSON_AddBoolToObject(o, "unstable", unstable);
        else if (has_stab)
            ok = ok && cJSON_AddFalseToObject(o, "unstable");
        else
            ok = ok &&
                 rl_json_attach(o, "unstable",
                                rl_json_unavailable("the source predates the stability check"));
        ok = ok && rl_json_attach(o, "runs",
                                  rl_json_unavailable(
                                      "imported: the source keeps only the best repetition of each "
                                      "kernel and thread count, not the repetitions"));
        ok = ok && rl_json_add_str(o, "source", "imported: measured by the source run");
        ok = ok && (!method || rl_json_add_str(o, "method", method));
    }
    ok = ok && keep_imported(o, m);
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

/* A rate with the source's mean and standard deviation and no samples, or unavailable. */
static cJSON *mean_rate(bool has_mean, double mean, bool has_sd, double sd, const char *missing)
{
    if (!has_mean || !(mean > 0))
        return rl_json_unavailable(missing);
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddStringToObject(o, "kind", "measured");
    ok = ok && cJSON_AddStringToObject(o, "unit", "tok/s");
    ok = ok && cJSON_AddNumberToObject(o, "mean", mean);
    ok = ok &&
         (has_sd ? cJSON_AddNumberToObject(o, "sd", sd) != NULL
                 : rl_json_attach(o, "sd",
                                  rl_json_unavailable("the source gives no standard deviation")));
    ok = ok && rl_json_attach(o, "samples",
                              rl_json_unavailable(
                                  has_sd ? "imported: the source gives only the mean and standard "
                                           "deviation"
                                         : "imported: the source gives only the mean"));
    return rl_json_kept(o, ok);
}

static rl_status roofline_run(imp *c, const cJSON *r, const char *path, int64_t depth, cJSON *runs)
{
    if (!cJSON_IsObject(r))
        return bad_value(c, path, "", r, "an object");
    bool has_t = false, has_d = false, has_dm = false, has_dsd = false, has_pm = false,
         has_psd = false;
    int64_t t = 0, d = 0;
    double dm = 0, dsd = 0, pm = 0, psd = 0;
    const cJSON *cmd = NULL;
    rl_status st = opt_int(c, r, path, "threads", 1, RL_IMPORT_MAX_THREADS, &has_t, &t);
    if (st == RL_OK && !has_t)
        st = bad_value(c, path, "threads", cJSON_GetObjectItemCaseSensitive(r, "threads"),
                       "a whole number from 1 to 4096");
    if (st == RL_OK)
        st = opt_int(c, r, path, "depth", 0, MAX_TOKENS, &has_d, &d);
    if (st == RL_OK)
        st = opt_rate(c, r, path, "decode_ts", &has_dm, &dm);
    if (st == RL_OK)
        st = opt_rate(c, r, path, "decode_stddev_ts", &has_dsd, &dsd);
    if (st == RL_OK)
        st = opt_rate(c, r, path, "prefill_ts", &has_pm, &pm);
    if (st == RL_OK)
        st = opt_rate(c, r, path, "prefill_stddev_ts", &has_psd, &psd);
    if (st == RL_OK)
        st = opt_array(c, r, path, "cmd", 4096, &cmd);
    for (const cJSON *a = cmd ? cmd->child : NULL; st == RL_OK && a; a = a->next)
        if (!cJSON_IsString(a))
            st = bad_value(c, path, "cmd[]", a, "strings (the command line)");
    if (st != RL_OK)
        return st;
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddItemToArray(runs, o);
    if (!ok)
        cJSON_Delete(o);
    ok = ok && rl_json_add_i64(o, "threads", t);
    ok = ok && rl_json_add_i64(o, "depth", has_d ? d : depth);
    /* a run without a decode rate is no "ok" run (validate.c) */
    ok = ok && cJSON_AddStringToObject(o, "status", has_dm ? "ok" : "failed");
    ok = ok && (has_dm || rl_json_add_str(o, "error", "the source gives no decode rate"));
    ok = ok && (!cmd || rl_json_attach(o, "argv", cJSON_Duplicate(cmd, 1)));
    ok = ok && cJSON_AddArrayToObject(o, "records") != NULL;
    ok = ok &&
         rl_json_attach(o, "decode",
                        mean_rate(has_dm, dm, has_dsd, dsd, "the source gives no decode rate"));
    ok = ok &&
         rl_json_attach(o, "prefill",
                        mean_rate(has_pm, pm, has_psd, psd, "the source gives no prefill rate"));
    ok = ok && keep_imported(o, r);
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

static rl_status roofline_model(imp *c, const cJSON *m, size_t i, int64_t depth, cJSON *models,
                                const char **conv)
{
    char path[64];
    snprintf(path, sizeof path, "analysis.models[%zu]", i);
    if (!cJSON_IsObject(m))
        return bad_value(c, path, "", m, "an object");
    const char *name, *mpath, *quant, *arch, *bsrc;
    bool has_fb = false, has_np = false, has_ne = false, has_bpt = false;
    int64_t fb = -1, np = -1, ne = -1, bpt = 0;
    int moe;
    const cJSON *runs = NULL;
    rl_status st = opt_str(c, m, path, "name", &name);
    if (st == RL_OK && !name)
        st = bad_value(c, path, "name", cJSON_GetObjectItemCaseSensitive(m, "name"), "a string");
    if (st == RL_OK)
        st = opt_str(c, m, path, "path", &mpath);
    if (st == RL_OK)
        st = opt_str(c, m, path, "quant", &quant);
    if (st == RL_OK)
        st = opt_str(c, m, path, "arch", &arch);
    if (st == RL_OK)
        st = opt_str(c, m, path, "bytes_source", &bsrc);
    if (st == RL_OK)
        st = opt_int(c, m, path, "file_bytes", 0, MAX_EXACT, &has_fb, &fb);
    if (st == RL_OK)
        st = opt_int(c, m, path, "n_params", 0, MAX_EXACT, &has_np, &np);
    if (st == RL_OK)
        st = opt_int(c, m, path, "n_expert", 0, 1 << 20, &has_ne, &ne);
    if (st == RL_OK)
        st = opt_bool(c, m, path, "is_moe", &moe);
    if (st == RL_OK)
        st = opt_int(c, m, path, "bytes_per_token", 1, MAX_EXACT, &has_bpt, &bpt);
    if (st == RL_OK && !has_bpt)
        st = bad_value(c, path, "bytes_per_token",
                       cJSON_GetObjectItemCaseSensitive(m, "bytes_per_token"),
                       "a whole number of bytes above 0");
    if (st == RL_OK)
        st = opt_array(c, m, path, "runs", RL_IMPORT_MAX_RUNS, &runs);
    if (st != RL_OK)
        return st;
    /* one byte convention for the whole file: the analysis fits with one */
    const char *mine = bsrc && strncmp(bsrc, "streamed", 8) == 0 ? "streamed" : "resident";
    if (**conv && strcmp(*conv, mine) != 0)
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %s.bytes_source is %s bytes but an earlier model's is %s; import "
                       "a file whose models share one byte convention",
                       c->file, path, mine, *conv);
    *conv = mine;

    cJSON *bm = new_model(
        models, i, mpath, name,
        imported_gguf(quant, arch, has_np ? np : -1, has_fb ? fb : -1, moe, has_ne ? ne : -1));
    if (!bm)
        return rl_fail(c->err, RL_EINTERNAL, "out of memory");
    cJSON *bo = cJSON_CreateObject();
    bool ok = rl_json_attach(bm, "bytes_per_token", bo);
    ok = ok && rl_json_add_i64(bo, "value", bpt);
    ok = ok && cJSON_AddStringToObject(bo, "unit", "bytes");
    ok = ok && cJSON_AddStringToObject(bo, "convention", mine);
    char *s = rl_asprintf("imported: %s", bsrc ? bsrc : "as the source file gives it");
    ok = ok && s && rl_json_add_str(bo, "source", s);
    free(s);
    ok = ok && cJSON_AddStringToObject(bo, "kind", "measured");
    ok = ok && cJSON_AddTrueToObject(bo, "imported");
    static const char *const drop[] = {"runs", NULL};
    ok = ok && (!cJSON_IsObject(m) || rl_json_attach(bm, "imported", copy_without(m, drop)));
    if (!ok)
        return rl_fail(c->err, RL_EINTERNAL, "out of memory");
    cJSON *bruns = cJSON_GetObjectItemCaseSensitive(bm, "runs");
    size_t j = 0;
    for (const cJSON *r = runs ? runs->child : NULL; r; r = r->next, j++) {
        char rpath[96];
        snprintf(rpath, sizeof rpath, "%s.runs[%zu]", path, j);
        st = roofline_run(c, r, rpath, depth, bruns);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

/* The n_gpu_layers llama-bench reported for the models (the largest), or -2 when none did. */
static rl_status models_gpu_layers(imp *c, const cJSON *models, int64_t *ngl)
{
    *ngl = -2;
    size_t i = 0;
    for (const cJSON *m = models->child; m; m = m->next, i++) {
        char path[64];
        bool has;
        int64_t v;
        snprintf(path, sizeof path, "analysis.models[%zu]", i);
        rl_status st = opt_int(c, m, path, "n_gpu_layers", -1, 1e9, &has, &v);
        if (st != RL_OK)
            return st;
        if (has && v > *ngl)
            *ngl = v;
    }
    return RL_OK;
}

static rl_status import_roofline(imp *c, const cJSON *root, cJSON *b, const char **conv_out)
{
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
    double v = cJSON_IsNumber(ver) ? ver->valuedouble : NAN;
    if (v > 1 && v <= 1e9 && v == floor(v))
        return rl_fail(c->err, RL_EINPUT,
                       "%s: roofline.json schema_version %.0f is newer than the 1 this "
                       "llama-roofline reads; update llama-roofline",
                       c->file, v);
    if (v != 1)
        return bad_value(c, "", "schema_version", ver, "1");
    rl_status st;
    const cJSON *an = NULL, *models = NULL;
    st = opt_object(c, root, "", "analysis", &an);
    if (st == RL_OK && !an)
        st = bad_value(c, "", "analysis", NULL, "an object holding the models");
    if (st == RL_OK)
        st = opt_array(c, an, "analysis", "models", RL_IMPORT_MAX_MODELS, &models);
    if (st == RL_OK && !models)
        st = bad_value(c, "analysis", "models", NULL, "an array of models");
    const cJSON *settings = NULL;
    bool has_depth = false;
    int64_t depth = 0, ngl = -2;
    if (st == RL_OK)
        st = opt_object(c, root, "", "settings", &settings);
    if (st == RL_OK)
        st = opt_int(c, settings, "settings", "depth", 0, MAX_TOKENS, &has_depth, &depth);
    if (st == RL_OK)
        st = models_gpu_layers(c, models, &ngl);
    if (st != RL_OK)
        return st;

    /* the source: the file's top level minus what the sections below keep */
    cJSON *src = cJSON_CreateObject();
    bool ok = rl_json_attach(b, "source", src);
    ok = ok && cJSON_AddStringToObject(src, "kind", "imported");
    ok = ok && cJSON_AddStringToObject(src, "format", RL_IMPORT_FORMAT_ROOFLINE);
    ok = ok && rl_json_add_str(src, "file", base_name(c->file));
    ok = ok && cJSON_AddStringToObject(src, "attribution", RL_IMPORT_ROOFLINE_ATTRIBUTION);
    static const char *const drop[] = {"system", "settings", "llama_cpp", "membw", NULL};
    cJSON *rest = ok ? copy_without(root, drop) : NULL;
    ok = ok && rl_json_attach(src, "imported", rest);
    if (ok)
        cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(rest, "analysis"),
                                                "models");
    if (!ok)
        return rl_fail(c->err, RL_EINTERNAL, "out of memory");

    st = roofline_environment(c, root, b);
    /* the models first (their byte convention goes into the settings), then the sections in
     * the bundle's order */
    cJSON *bmodels = cJSON_CreateArray();
    const char *conv = "";
    if (!bmodels)
        st = rl_fail(c->err, RL_EINTERNAL, "out of memory");
    size_t i = 0;
    for (const cJSON *m = models->child; st == RL_OK && m; m = m->next, i++)
        st = roofline_model(c, m, i, depth, bmodels, &conv);
    if (!*conv)
        conv = "resident";
    if (st == RL_OK)
        st = roofline_settings(c, settings, conv, depth, ngl, b);
    if (st == RL_OK)
        st = roofline_llama_cpp(c, root, b);
    if (st == RL_OK)
        st = roofline_membw(c, root, b);
    if (st != RL_OK || !rl_json_attach(b, "models", bmodels)) {
        cJSON_Delete(st == RL_OK ? NULL : bmodels);
        return st != RL_OK ? st : rl_fail(c->err, RL_EINTERNAL, "out of memory");
    }
    *conv_out = conv;
    return RL_OK;
}

/* ---- (b) llama-bench output ------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct values of v[0..n) ascending as a JSON array (v is sorted in place). */
static cJSON *distinct(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        if ((i == 0 || v[i] != v[i - 1]) && !cJSON_AddItemToArray(a, rl_json_u64((uint64_t)v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

/* The one value every record of the kind has for a field, or -1 when they disagree. */
static int64_t uniform(const rl_lbench_set *set, int kind, int field)
{
    int64_t v = -1;
    for (size_t i = 0; i < set->n_records; i++) {
        const rl_lbench_record *r = &set->records[i];
        if (kind >= 0 && r->kind != (rl_lbench_kind)kind)
            continue;
        int64_t x = field == 0 ? r->n_prompt : field == 1 ? r->n_gen : (int64_t)r->n_samples;
        if (field == 2 && r->from_average)
            continue;
        if (v >= 0 && x != v)
            return -1;
        v = x;
    }
    return v;
}

static rl_status lbench_sections(imp *c, const rl_lbench_set *set, cJSON *b)
{
    size_t n = set->n_records;
    const rl_lbench_record *first = &set->records[0];
    int64_t *v = rl_calloc(n, sizeof *v);
    if (!v)
        return rl_fail(c->err, RL_EINTERNAL, "out of memory");

    /* the machine: llama-bench tells only its CPU */
    rl_sysinfo si;
    unknown_sysinfo(&si);
    for (size_t i = 0; i < n && !si.cpu_model[0]; i++)
        snprintf(si.cpu_model, sizeof si.cpu_model, "%s", set->records[i].cpu_info);
    cJSON *env = rl_sysinfo_to_json(&si);
    bool ok = rl_json_attach(b, "environment", env);
    ok = ok && rl_json_add_str(env, "source",
                               "imported: llama-bench's cpu_info; its output says nothing else "
                               "about the machine");

    cJSON *s = cJSON_CreateObject();
    ok = ok && rl_json_attach(b, "settings", s);
    ok = ok && cJSON_AddStringToObject(s, "kind", "controlled");
    for (size_t i = 0; i < n; i++)
        v[i] = set->records[i].n_threads;
    ok = ok && rl_json_attach(s, "threads", distinct(v, n));
    for (size_t i = 0; i < n; i++)
        v[i] = set->records[i].n_depth;
    ok = ok && rl_json_attach(s, "depths", distinct(v, n));
    int64_t np = uniform(set, RL_LBENCH_PREFILL, 0), ng = uniform(set, RL_LBENCH_DECODE, 1);
    int64_t reps = uniform(set, -1, 2);
    ok = ok && (np < 1 || rl_json_add_i64(s, "n_prompt", np));
    ok = ok && (ng < 1 || rl_json_add_i64(s, "n_gen", ng));
    ok = ok && (reps < 1 || rl_json_add_i64(s, "reps", reps));
    bool has_ngl = false;
    int64_t ngl = 0;
    for (size_t i = 0; i < n; i++)
        if (set->records[i].has_n_gpu_layers && (!has_ngl || ngl == 0)) {
            has_ngl = true;
            ngl = set->records[i].n_gpu_layers;
        }
    ok = ok && (!has_ngl || rl_json_add_i64(s, "n_gpu_layers", ngl));
    ok = ok && cJSON_AddStringToObject(s, "bytes_convention", "resident");
    ok = ok && rl_json_add_str(s, "source",
                               "imported: from the llama-bench records (n_prompt, n_gen and reps "
                               "only when every record agrees)");
    free(v);

    rl_lbench_build build;
    rl_lbench_build_from_record(first, &build);
    cJSON *l = cJSON_CreateObject();
    ok = ok && rl_json_attach(b, "llama_cpp", l);
    ok = ok && cJSON_AddStringToObject(l, "kind", "measured");
    ok = ok && cJSON_AddNullToObject(l, "llama_bench");
    ok = ok && rl_json_add_str_or_null(l, "build_commit", build.commit);
    ok = ok && rl_json_add_u64_or_null(l, "build_number", (uint64_t)build.number, build.number > 0);
    ok = ok && rl_json_attach(b, "membw",
                              rl_json_unavailable("not measured: imported llama-bench output"));
    return ok ? RL_OK : rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

/* One model per model_filename, one run per (n_threads, n_depth), in the order they first
 * appear. */
static rl_status lbench_models(imp *c, const rl_lbench_set *set, cJSON *b)
{
    size_t n = set->n_records;
    size_t *model_of = rl_calloc(n, sizeof *model_of), *first = rl_calloc(n, sizeof *first);
    bool *done = rl_calloc(n, sizeof *done);
    rl_lbench_record *group = rl_calloc(n, sizeof *group); /* shallow copies, not owned */
    cJSON *models = cJSON_AddArrayToObject(b, "models");
    rl_status st = RL_OK;
    if (!model_of || !first || !done || !group || !models)
        st = rl_fail(c->err, RL_EINTERNAL, "out of memory");
    size_t nm = 0;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        size_t k = 0;
        while (k < nm &&
               strcmp(set->records[first[k]].model_filename, set->records[i].model_filename) != 0)
            k++;
        if (k == nm)
            first[nm++] = i;
        model_of[i] = k;
    }
    for (size_t k = 0; st == RL_OK && k < nm; k++) {
        const rl_lbench_record *r0 = &set->records[first[k]];
        int64_t params = -1;
        bool sized = false;
        for (size_t i = 0; i < n; i++)
            if (model_of[i] == k) {
                if (params < 0 && set->records[i].model_n_params > 0)
                    params = set->records[i].model_n_params;
                sized |= set->records[i].model_size > 0;
            }
        if (!sized) {
            char name[160];
            st = rl_fail(c->err, RL_EINPUT,
                         "%s: no record of %s gives model_size, so its bytes per token are "
                         "unknown; import the output of a llama-bench that prints it",
                         c->file, rl_tty_escape(r0->model_filename, name, sizeof name));
            break;
        }
        cJSON *m = new_model(models, k, r0->model_filename, base_name(r0->model_filename),
                             imported_gguf(NULL, NULL, params, -1, -1, -1));
        cJSON *runs = cJSON_GetObjectItemCaseSensitive(m, "runs");
        if (!m || !runs) {
            st = rl_fail(c->err, RL_EINTERNAL, "out of memory");
            break;
        }
        for (size_t i = 0; st == RL_OK && i < n; i++) {
            if (model_of[i] != k || done[i])
                continue;
            const rl_lbench_record *ri = &set->records[i];
            size_t g = 0;
            cJSON *run = cJSON_CreateObject(), *recs = NULL;
            bool ok = run && cJSON_AddItemToArray(runs, run);
            if (!ok)
                cJSON_Delete(run);
            ok = ok && rl_json_add_i64(run, "threads", ri->n_threads);
            ok = ok && rl_json_add_i64(run, "depth", ri->n_depth);
            cJSON *status = cJSON_AddStringToObject(run, "status", "ok");
            ok = ok && status && (recs = cJSON_AddArrayToObject(run, "records")) != NULL;
            bool decode = false;
            for (size_t j = i; ok && j < n; j++) {
                const rl_lbench_record *rj = &set->records[j];
                if (model_of[j] != k || rj->n_threads != ri->n_threads ||
                    rj->n_depth != ri->n_depth)
                    continue;
                done[j] = true;
                group[g++] = *rj;
                decode |= rj->kind == RL_LBENCH_DECODE;
                ok = cJSON_AddItemToArray(recs, cJSON_Duplicate(rj->raw, 1));
            }
            /* prefill only: no "ok" run without a decode rate (validate.c) */
            ok = ok && (decode || (cJSON_SetValuestring(status, "failed") &&
                                   rl_json_add_str(run, "error",
                                                   "the llama-bench output holds no decode "
                                                   "record for this run (prefill only)")));
            ok = ok && rl_json_attach(run, "decode",
                                      rl_bundle_lbench_rate(group, g, RL_LBENCH_DECODE, ri->n_depth,
                                                            "no decode record"));
            ok = ok && rl_json_attach(run, "prefill",
                                      rl_bundle_lbench_rate(group, g, RL_LBENCH_PREFILL,
                                                            ri->n_depth, "no prefill record"));
            if (!ok)
                st = rl_fail(c->err, RL_EINTERNAL, "out of memory");
        }
    }
    free(model_of);
    free(first);
    free(done);
    free(group);
    return st;
}

static rl_status import_lbench(imp *c, const rl_lbench_set *set, const char *format, cJSON *b)
{
    if (set->truncated)
        return rl_fail(c->err, RL_EINPUT,
                       "%s: the llama-bench output is cut short (its last record is "
                       "incomplete); import the complete output",
                       c->file);
    if (set->n_invalid)
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %zu JSON object%s in it %s (the first: %s); import llama-bench's "
                       "output as it printed it",
                       c->file, set->n_invalid, set->n_invalid == 1 ? "" : "s",
                       set->n_invalid == 1 ? "is not a usable llama-bench record"
                                           : "are not usable llama-bench records",
                       set->first_invalid);
    for (size_t i = 0; i < set->n_records; i++) {
        const rl_lbench_record *r = &set->records[i];
        if (!r->model_filename[0])
            return rl_fail(c->err, RL_EINPUT,
                           "%s: record %zu has no model_filename, so its model is unknown", c->file,
                           i + 1);
        if (r->n_threads < 1 || r->n_threads > RL_IMPORT_MAX_THREADS) {
            char has[64] = " (it is missing, negative or not a whole number)";
            if (r->n_threads != 0) /* the parser keeps a whole number it read, else 0 */
                rl_snprintf(has, sizeof has, " (it has %lld)", (long long)r->n_threads);
            return rl_fail(c->err, RL_EINPUT, "%s: record %zu has no n_threads from 1 to %d%s",
                           c->file, i + 1, RL_IMPORT_MAX_THREADS, has);
        }
    }
    cJSON *src = cJSON_CreateObject();
    bool ok = rl_json_attach(b, "source", src);
    ok = ok && cJSON_AddStringToObject(src, "kind", "imported");
    ok = ok && cJSON_AddStringToObject(src, "format", format);
    ok = ok && rl_json_add_str(src, "file", base_name(c->file));
    ok = ok && rl_json_add_u64(src, "records", set->n_records);
    ok = ok && rl_json_add_u64(src, "skipped_lines", set->n_skipped_lines);
    if (!ok)
        return rl_fail(c->err, RL_EINTERNAL, "out of memory");
    rl_status st = lbench_sections(c, set, b);
    return st == RL_OK ? lbench_models(c, set, b) : st;
}

/* ---- telling the inputs apart ------------------------------------------------------------ */

static bool is_ws(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static rl_status not_importable(imp *c, const char *why)
{
    return rl_fail(c->err, RL_EINPUT, "%s: not an importable file: " EXPECTED "; %s", c->file, why);
}

typedef enum { KIND_ROOFLINE, KIND_LBENCH, KIND_FM } input_kind;

/* Which input this is; *root receives the parsed document when it is one JSON value. */
static rl_status detect(imp *c, const char *text, size_t len, input_kind *kind, cJSON **root,
                        char *json_error, size_t cap)
{
    *root = NULL;
    *kind = KIND_LBENCH;
    json_error[0] = '\0';
    size_t s = 0;
    while (s < len && is_ws(text[s]))
        s++;
    if (s == len)
        return not_importable(c, "the file is empty");
    if (text[s] != '{')
        return RL_OK; /* an array, or JSONL after banner lines: llama-bench */
    /* the number of values (commas + 1) bounded before cJSON builds the tree */
    size_t commas;
    rl_json_extent(text + s, len - s, MAX_VALUES - 1, &commas);
    if (commas + 1 > MAX_VALUES) {
        char why[96];
        snprintf(why, sizeof why, "its first JSON document holds more than %d values", MAX_VALUES);
        return not_importable(c, why);
    }
    const char *end = NULL;
    bool oom = false;
    cJSON *doc = rl_json_parse_raw(text + s, len - s, &end, &oom);
    if (oom)
        return rl_fail(c->err, RL_EINTERNAL, "%s: out of memory reading the JSON", c->file);
    if (!doc) {
        size_t at = end && end >= text + s ? (size_t)(end - text) : s;
        snprintf(json_error, cap, "not valid JSON (syntax error near byte %zu: truncated?)", at);
        return RL_OK; /* perhaps JSONL with a damaged line: llama-bench decides */
    }
    size_t rest = (size_t)(end - text);
    while (rest < len && is_ws(text[rest]))
        rest++;
    if (rest < len) {
        cJSON_Delete(doc); /* more than one document: JSONL */
        return RL_OK;
    }
    const char *schema = rl_json_get_str(doc, "schema");
    if (schema && strcmp(schema, RL_BUNDLE_SCHEMA) == 0) {
        cJSON_Delete(doc);
        return rl_fail(c->err, RL_EINPUT,
                       "%s: already a llama-roofline bundle; nothing to import (use it as it is)",
                       c->file);
    }
    if (rl_import_fm_is(doc)) {
        *kind = KIND_FM;
        *root = doc;
        return RL_OK;
    }
    if (cJSON_GetObjectItemCaseSensitive(doc, "schema_version")) {
        *kind = KIND_ROOFLINE;
        *root = doc;
        return RL_OK;
    }
    bool record = cJSON_GetObjectItemCaseSensitive(doc, "n_prompt") ||
                  cJSON_GetObjectItemCaseSensitive(doc, "n_gen");
    cJSON_Delete(doc);
    if (!record)
        return not_importable(c, "it is a JSON object with neither \"schema_version\" (a "
                                 "roofline.json), \"tool\": \"fm-bench\" (an fm-bench report) "
                                 "nor \"n_prompt\"/\"n_gen\" (a llama-bench record)");
    return RL_OK;
}

/* Why rl_lbench_parse found no record: the reason it gives for the first object it refused,
 * when there was one. */
static const char *no_record_why(const rl_error *le, char *buf, size_t cap)
{
    const char *tag = "no usable benchmark record (";
    const char *why = strstr(le->msg, tag), *end = why ? strstr(why, ");") : NULL;
    if (!why || !end)
        return "it holds no llama-bench record";
    why += strlen(tag);
    snprintf(buf, cap, "it holds no usable llama-bench record (%.*s)", (int)(end - why), why);
    return buf;
}

/* llama-bench's records, from its JSON (lk RL_IMPORT_LB_NONE) or from one of its tables, into
 * the bundle. json_error: why the text was not one JSON document ("" when it was). */
static rl_status import_records(imp *c, rl_import_lb_kind lk, const char *text, size_t len,
                                char *json_error, size_t cap, cJSON *b)
{
    static const char *const formats[] = {
        [RL_IMPORT_LB_CSV] = RL_IMPORT_FORMAT_LBENCH_CSV,
        [RL_IMPORT_LB_SQL] = RL_IMPORT_FORMAT_LBENCH_SQL,
        [RL_IMPORT_LB_SQLITE] = RL_IMPORT_FORMAT_LBENCH_SQLITE,
    };
    rl_lbench_set set;
    rl_status st;
    if (lk != RL_IMPORT_LB_NONE) {
        st = rl_import_lbench_read(lk, text, len, c->file, &set, c->err);
        if (st == RL_OK)
            st = import_lbench(c, &set, formats[lk], b);
        rl_lbench_set_free(&set);
        return st;
    }
    rl_error le = {RL_OK, ""};
    st = rl_lbench_parse(text, len, &set, &le);
    /* RL_EINPUT: no record at all, or more than RL_LBENCH_MAX_RECORDS of them */
    if (st == RL_EINPUT && strstr(le.msg, "more than"))
        st = rl_fail(c->err, RL_EINPUT, "%s: %s", c->file, le.msg);
    else if (st == RL_EINPUT)
        st = not_importable(c, json_error[0] ? json_error : no_record_why(&le, json_error, cap));
    else if (st != RL_OK)
        *c->err = le;
    if (st == RL_OK)
        st = import_lbench(
            c, &set, set.from_array ? RL_IMPORT_FORMAT_LBENCH_JSON : RL_IMPORT_FORMAT_LBENCH_JSONL,
            b);
    rl_lbench_set_free(&set);
    return st;
}

rl_status rl_import_text(const char *text, size_t len, const char *file, const rl_import_opts *o,
                         cJSON **out, rl_error *err)
{
    *out = NULL;
    imp c = {file, err};
    if (len > RL_IMPORT_MAX_BYTES)
        return rl_fail(err, RL_EINPUT, "%s: %zu bytes is more than the %u import reads", file, len,
                       RL_IMPORT_MAX_BYTES);
    /* an SQLite database is binary; every other input is text */
    rl_import_lb_kind lk = rl_import_lbench_sniff(text, len);
    if (lk != RL_IMPORT_LB_SQLITE && len && memchr(text, '\0', len))
        return not_importable(&c, "it holds NUL bytes, so it is not text");
    if (lk != RL_IMPORT_LB_SQLITE && !rl_utf8_valid(text, len))
        return not_importable(&c, "it is not UTF-8 text");
    input_kind kind = KIND_LBENCH;
    cJSON *root = NULL;
    char json_error[128] = "";
    rl_status st = RL_OK;
    if (lk == RL_IMPORT_LB_NONE)
        st = detect(&c, text, len, &kind, &root, json_error, sizeof json_error);
    if (st != RL_OK)
        return st;

    cJSON *b = rl_bundle_new("import", o->argc, o->argv);
    if (!b) {
        cJSON_Delete(root);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    const char *conv = "resident";
    if (kind == KIND_ROOFLINE)
        st = import_roofline(&c, root, b, &conv);
    else if (kind == KIND_FM)
        st = rl_import_fm(root, file, b, err);
    else
        st = import_records(&c, lk, text, len, json_error, sizeof json_error, b);
    cJSON_Delete(root);
    cJSON *src = cJSON_GetObjectItemCaseSensitive(b, "source");
    if (st == RL_OK && o->name && !rl_json_add_str(src, "name", o->name))
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    if (st != RL_OK) {
        cJSON_Delete(b);
        return st;
    }
    *out = b;
    return RL_OK;
}

rl_status rl_import_file(const char *path, const rl_import_opts *o, cJSON **out, rl_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    rl_status st = rl_file_read_all(path, RL_IMPORT_MAX_BYTES, &text, &len, err);
    if (st == RL_OK)
        st = rl_import_text(text, len, path, o, out, err);
    free(text);
    return st;
}
