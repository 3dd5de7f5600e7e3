/* SPDX-License-Identifier: MIT */
/* advise_run.c: the three things `llama-roofline advise` does once its options are parsed:
 * --plan (llama-quantize commands for an F16/BF16 source), the ranking from the built-in
 * matrix for the cores detected here (or --list-cores), and --measure (a sweep over the given
 * or synth-built files, the measured advice into the bundle and the report). See
 * advise_run.h. Everything allocated here is freed before each function returns. */
#include "cmd/advise_run.h"
#include "cmd/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/advise.h"
#include "measure/advise_synth.h"
#include "bundle/bundle.h"
#include "model/gguf_model.h"
#include "measure/lbench.h"
#include "render/report.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"
#include "cmd/calib_run.h"
#include "cmd/defaults.h"
#include "cmd/sweep.h"
#include "measure/membw.h"
#include "measure/sysinfo.h"

/* Write text to -o FILE (atomically) or stdout (made terminal-safe as kind says). */
static rl_status emit_as(const rl_advise_opts *o, const char *text, rl_tty_kind kind, rl_error *err)
{
    if (!text)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    return rl_write_output(o->out ? o->out : "-", text, strlen(text), kind, err);
}

static rl_status emit(const rl_advise_opts *o, const char *text, rl_error *err)
{
    return emit_as(o, text, RL_TTY_TEXT, err);
}

static rl_status emit_json(const rl_advise_opts *o, cJSON *j, rl_error *err)
{
    char *text = j ? rl_json_print(j) : NULL;
    rl_sbuf b = {0};
    if (text) {
        rl_sbuf_printf(&b, "%s\n", text);
        free(text);
    }
    char *t = rl_sbuf_take(&b);
    rl_status st = emit_as(o, t, RL_TTY_JSON, err);
    free(t);
    return st;
}

rl_status rl_advise_run_plan(const rl_advise_opts *o, rl_error *err)
{
    rl_gguf_model m;
    rl_status st = rl_gguf_model_load(o->plan, &m, err);
    if (st != RL_OK) {
        rl_gguf_model_free(&m);
        return rl_prefix(err, "--plan: point it at the F16 or BF16 GGUF of the model to compare");
    }
    char *text = NULL;
    st = rl_advise_plan(o->plan, m.label, o->md, &text, err);
    rl_gguf_model_free(&m);
    if (st == RL_OK)
        st = emit(o, text, err);
    free(text);
    return st;
}

rl_status rl_advise_run_rank(const rl_advise_opts *o, rl_error *err)
{
    rl_matrix mx;
    rl_status st = rl_matrix_builtin(&mx, err);
    if (st != RL_OK)
        return st;
    if (o->list) {
        char *t = rl_advise_list_cores(&mx);
        st = emit(o, t, err);
        free(t);
        rl_matrix_free(&mx);
        return st;
    }
    rl_cpu_info cpu;
    st = rl_cpu_detect_file(o->cpuinfo, &cpu, err);
    rl_advice blocks[RL_CPU_MAX_CORES];
    int n = 0;
    int threads = o->n_threads ? o->threads[0] : 0;
    if (st == RL_OK && o->core) {
        st = rl_advise_core(&mx, o->core, o->scale, threads, RL_ADV_MIN_GROUP_MATRIX, &blocks[0],
                            err);
        if (st == RL_OK) {
            rl_snprintf(blocks[0].why, sizeof blocks[0].why, "named with --core");
            n = 1;
        }
    } else if (st == RL_OK) {
        for (int i = 0; i < cpu.n_cores && st == RL_OK; i++) {
            st = rl_advise_core(&mx, cpu.cores[i].core, o->scale, threads, RL_ADV_MIN_GROUP_MATRIX,
                                &blocks[n], err);
            if (st != RL_OK)
                break;
            rl_snprintf(blocks[n].label, sizeof blocks[n].label, "%s", cpu.cores[i].label);
            rl_snprintf(blocks[n].why, sizeof blocks[n].why, "%s", cpu.cores[i].why);
            blocks[n].evidence = cpu.cores[i].evidence;
            n++;
        }
    }
    if (st == RL_OK && o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON *tool = cJSON_AddObjectToObject(j, "tool");
        cJSON_AddStringToObject(tool, "name", "llama-roofline");
        cJSON_AddStringToObject(tool, "version", RL_VERSION);
        cJSON_AddItemToObject(j, "detection", rl_cpu_info_to_json(&cpu));
        cJSON *arr = cJSON_AddArrayToObject(j, "advice");
        for (int i = 0; arr && i < n; i++)
            cJSON_AddItemToArray(arr, rl_advice_to_json(&blocks[i]));
        if (n == 0) {
            cJSON *r = cJSON_AddObjectToObject(j, "recipe");
            rl_json_add_str(r, "reason",
                            "not measured, and not close to anything measured: no table");
            cJSON *cmds = cJSON_AddArrayToObject(r, "commands");
            cJSON_AddItemToArray(cmds,
                                 cJSON_CreateString("llama-roofline advise --measure --synth"));
            cJSON_AddItemToArray(
                cmds, cJSON_CreateString("llama-roofline advise --measure -m A.gguf -m B.gguf"));
            cJSON_AddItemToArray(cmds,
                                 cJSON_CreateString("llama-roofline advise --plan model-f16.gguf"));
        } else {
            cJSON_AddNullToObject(j, "recipe");
        }
        st = emit_json(o, j, err);
        cJSON_Delete(j);
    } else if (st == RL_OK) {
        char *t = rl_advise_text(&mx, &cpu, blocks, n, o->md);
        st = emit(o, t, err);
        free(t);
    }
    rl_matrix_free(&mx);
    return st;
}

/* --synth: the synthetic F16 quantized into the formats (set, cached), appended to models. */
static rl_status synth_models(const rl_advise_opts *o, rl_advise_set *set, const char **models,
                              size_t *n_models, rl_error *err)
{
    char *bench = NULL, *quant = NULL;
    rl_status st = rl_lbench_find(o->llama_bench, &bench, err);
    if (st == RL_OK)
        st = rl_advise_find_quantize(o->llama_quantize, bench, &quant, err);
    if (st == RL_OK) {
        const char *const *fm = o->n_formats ? o->formats : rl_advise_plan_formats;
        int nf = o->n_formats ? o->n_formats : RL_ADV_PLAN_N;
        st = rl_advise_synth_set(o->preset ? o->preset : RL_ADV_SYNTH_PRESET, fm, nf, quant, set,
                                 err);
    }
    /* the files built and the quantizer found are inputs too: none may be -o (the sweep
     * checks the files against --dir's; cmd_advise.c checked the options given) */
    for (int i = 0; st == RL_OK && i < set->n; i++)
        st = rl_check_outputs(&(rl_path_arg){"--synth", set->paths[i]}, 1,
                              &(rl_path_arg){"-o", o->out}, 1, err);
    if (st == RL_OK)
        st = rl_check_outputs(&(rl_path_arg){"--llama-quantize", quant}, 1,
                              &(rl_path_arg){"-o", o->out}, 1, err);
    free(bench);
    free(quant);
    for (int i = 0; st == RL_OK && i < set->n && *n_models < RL_SWEEP_MAX_MODELS; i++)
        models[(*n_models)++] = set->paths[i];
    return st;
}

/* The files to compare: -m, then --synth's; at least two. */
static rl_status gather_files(const rl_advise_opts *o, rl_advise_set *set, const char **models,
                              size_t *n_models, rl_error *err)
{
    rl_status st = RL_OK;
    *n_models = 0;
    for (size_t i = 0; i < o->n_models && *n_models < RL_SWEEP_MAX_MODELS; i++)
        models[(*n_models)++] = o->models[i];
    if (o->synth)
        st = synth_models(o, set, models, n_models, err);
    if (st == RL_OK && *n_models == 0)
        st = rl_fail(err, RL_EINPUT,
                     "--measure needs files: -m A.gguf -m B.gguf, or --synth to build them");
    else if (st == RL_OK && *n_models < 2)
        st = rl_fail(err, RL_EINPUT,
                     "--measure needs at least two files to compare. One file has no ranking.");
    return st;
}

static rl_status finish(const rl_advise_opts *o, cJSON *bundle, rl_status st, rl_status ast,
                        const rl_error *ae, rl_error *err);

rl_status rl_advise_run_measure(const rl_advise_opts *o, rl_error *err)
{
    rl_advise_set set = {0};
    const char *models[RL_SWEEP_MAX_MODELS];
    size_t n_models = 0;
    rl_status st = gather_files(o, &set, models, &n_models, err);
    if (st != RL_OK) {
        rl_advise_set_free(&set);
        return st;
    }
    rl_sweep_opts so = {0};
    so.command = "advise";
    so.argv = rl_opt_typed(&so.argc);
    so.models = models;
    so.n_models = n_models;
    memcpy(so.threads, o->threads, sizeof so.threads);
    so.n_threads = o->n_threads;
    so.n_prompt = o->n_prompt;
    so.n_gen = o->n_gen;
    so.reps = o->reps;
    so.max_reps = o->reps;
    so.timeout_s = o->timeout;
    so.skip_membw = true; /* the advice compares formats; the ceiling is `run`'s business */
    so.llama_bench = o->llama_bench;
    so.out_dir = o->dir;
    so.bytes = RL_AN_BYTES_STREAMED;
    so.quiet = o->quiet;
    so.wait_quiet_s = o->wait_quiet_s;
    so.retry_disturbed = o->retry_disturbed;
    cJSON *bundle = NULL;
    st = rl_session_sweep(&so, &bundle, err);
    rl_advise_set_free(&set);
    if (!bundle)
        return st;
    rl_cpu_info cpu;
    rl_error de;
    rl_cpu_detect_file(o->cpuinfo, &cpu, &de);
    rl_error ae = {RL_OK, ""};
    rl_status ast = rl_advise_bundle(bundle, cpu.cpu, &ae);
    return finish(o, bundle, st, ast, &ae, err);
}

/* The bundle and report written into --dir, the advice printed (text, Markdown or JSON), the
 * bundle freed. st: the measurement's status (its failure or interruption comes first), ast
 * and ae the advice's. */
static rl_status finish(const rl_advise_opts *o, cJSON *bundle, rl_status st, rl_status ast,
                        const rl_error *ae, rl_error *err)
{
    char *path = rl_asprintf("%s/bundle.json", o->dir);
    char *rpath = rl_asprintf("%s/" RL_REPORT_FILE, o->dir);
    rl_error we = {RL_OK, ""};
    rl_status wst = path && rpath ? rl_bundle_write(bundle, path, &we)
                                  : rl_fail(&we, RL_EINTERNAL, "out of memory");
    rl_session_end_opts end = {"advise", o->dir, RL_SESSION_PAGE_PLAIN, false};
    if (wst == RL_OK)
        wst = rl_session_end(&end, bundle, RL_OK, &we);
    rl_status ost = RL_OK;
    rl_error oe = {RL_OK, ""};
    if (st == RL_EINTERRUPTED) {
        /* no advice printed as if the measurement were complete */
        rl_session_interrupted("advise", o->dir, NULL, bundle, err);
    } else if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON *tool = cJSON_AddObjectToObject(j, "tool");
        cJSON_AddStringToObject(tool, "name", "llama-roofline");
        cJSON_AddStringToObject(tool, "version", RL_VERSION);
        rl_json_add_str(j, "bundle", path ? path : "");
        cJSON *arr = cJSON_AddArrayToObject(j, "advice");
        const cJSON *adv = cJSON_GetObjectItemCaseSensitive(bundle, "advice");
        if (arr && adv)
            cJSON_AddItemToArray(arr, cJSON_Duplicate(adv, 1));
        ost = emit_json(o, j, &oe);
        cJSON_Delete(j);
    } else {
        char *t = rl_advise_measured_text(bundle, o->md);
        ost = emit(o, t, &oe);
        free(t);
    }
    if (wst == RL_OK) {
        char sp[512], sr[512];
        rl_tty_printf(o->json || (o->out && strcmp(o->out, "-")) ? stderr : stdout,
                      "\n  bundle: %s\n  report: %s\n", rl_tty_escape(path, sp, sizeof sp),
                      rl_tty_escape(rpath, sr, sizeof sr));
    }
    free(path);
    free(rpath);
    cJSON_Delete(bundle);
    if (st != RL_OK)
        return st; /* the sweep's own failure or interruption comes first */
    if (wst != RL_OK) {
        *err = we;
        return wst;
    }
    if (ost != RL_OK) {
        *err = oe;
        return ost;
    }
    if (ast != RL_OK) {
        *err = *ae;
        return ast;
    }
    return RL_OK;
}

/* --predict's calibration options: advise's thread counts (else calibrate's default), the full
 * calibration's -n and -r (cached: a second run reuses it), this machine's cache size. */
static void predict_calib_opts(const rl_advise_opts *o, const rl_sysinfo *si, rl_calib_opts *c)
{
    memset(c, 0, sizeof *c);
    c->verb = "advise";
    memcpy(c->threads, o->threads, sizeof c->threads);
    c->n_threads = o->n_threads;
    if (!c->n_threads)
        c->n_threads = rl_membw_default_threads(si->logical_cores > 0 ? si->logical_cores : 1,
                                                si->physical_cores, c->threads, RL_SWEEP_MAX_LIST);
    c->n_gen = rl_defaults.cal_n_gen;
    c->reps = rl_defaults.cal_reps;
    c->run_s = rl_defaults.cal_run_s;
    c->passes = rl_defaults.cal_passes;
    c->timeout_s = o->timeout;
    c->quiet = o->quiet;
    c->wait_quiet_s = o->wait_quiet_s;
    c->retry_disturbed = o->retry_disturbed;
    rl_calib_llc(c, si, "advise");
}

/* The calibration bundle with the files as its models (gguf only, no run), their types. */
static rl_status predict_bundle(const rl_advise_opts *o, rl_calib_opts *c, const rl_sysinfo *si,
                                const char **models, size_t n, cJSON **out, rl_error *err)
{
    cJSON *b = rl_calib_bundle_new("advise", c, si), *arr = NULL;
    if (!b || !(arr = cJSON_AddArrayToObject(b, "models"))) {
        cJSON_Delete(b);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    rl_status st = RL_OK;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        cJSON *m = rl_sweep_model_json(models[i], i, err);
        if (!m)
            st = err->status != RL_OK ? err->status : RL_EINTERNAL;
        else if (!rl_json_push(arr, m))
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
        else
            rl_calib_add_types_of(c, rl_json_get(m, "gguf"));
    }
    rl_calib_order_types(c);
    (void)o;
    if (st != RL_OK) {
        cJSON_Delete(b);
        return st;
    }
    *out = b;
    return RL_OK;
}

rl_status rl_advise_run_predict(const rl_advise_opts *o, rl_error *err)
{
    rl_advise_set set = {0};
    const char *models[RL_SWEEP_MAX_MODELS];
    size_t n_models = 0;
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    rl_calib_opts c;
    predict_calib_opts(o, &si, &c);
    char *bench = NULL, *quant = NULL, *root = NULL, *path = NULL;
    cJSON *b = NULL;
    rl_status st = gather_files(o, &set, models, &n_models, err);
    if (st == RL_OK)
        st = rl_lbench_find(o->llama_bench, &bench, err);
    if (st == RL_OK) /* only types llama-quantize writes need it; missing: those not calibrated */
        rl_advise_find_quantize(o->llama_quantize, bench, &quant, &(rl_error){RL_OK, ""});
    c.llama_bench = bench;
    c.llama_quantize = quant;
    if (st == RL_OK && !(root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"))))
        st = rl_fail(err, RL_EOUTPUT,
                     "no place for the calibration cache: set HOME or LLAMA_ROOFLINE_CACHE to "
                     "a writable directory");
    c.cache_root = root;
    if (st == RL_OK)
        st = predict_bundle(o, &c, &si, models, n_models, &b, err);
    if (st == RL_OK && !(path = rl_asprintf("%s/bundle.json", o->dir)))
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    if (st == RL_OK)
        st = rl_mkdir_p(o->dir, "choose a writable --dir", err);
    if (st == RL_OK)
        st = rl_output_lock(path, o->dir, "choose another --dir", err);
    if (st == RL_OK)
        st = rl_bundle_write(b, path, err);
    rl_calib_stats stats = {0};
    rl_cal_key key;
    if (st == RL_OK) {
        rl_cal_key_of_bundle(b, &key);
        rl_tty_printf(stderr,
                      "advise: predicting %zu files from a calibration of the %zu types they "
                      "hold at %d thread count%s (cached types reused); no file is measured\n",
                      n_models, c.n_types, c.n_threads, c.n_threads == 1 ? "" : "s");
        st = rl_calib_measure(&c, &key, b, path, &stats, err);
        rl_tty_printf(stderr,
                      "advise: calibration: %zu measured, %zu reused from the cache (types x "
                      "thread counts), %zu not calibrated\n",
                      stats.measured, stats.reused, stats.not_calibrated);
    }
    rl_advise_set_free(&set);
    free(bench);
    free(quant);
    free(root);
    free(path);
    if (!b)
        return st;
    rl_cpu_info cpu;
    rl_error de, ae = {RL_OK, ""};
    rl_cpu_detect_file(o->cpuinfo, &cpu, &de);
    rl_status ast = st == RL_OK ? rl_advise_bundle_predicted(b, cpu.cpu, &ae) : RL_OK;
    rl_bundle_set_status(b,
                         st == RL_EINTERRUPTED ? "interrupted"
                         : st == RL_OK         ? "complete"
                                               : "failed",
                         st == RL_OK ? NULL : err->msg);
    return finish(o, b, st, ast, &ae, err);
}
