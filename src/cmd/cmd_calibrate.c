/* SPDX-License-Identifier: MIT */
/* cmd_calibrate.c: `llama-roofline calibrate [GGUF|DIR...]`: each ggml type's kernel measured
 * on this machine (compute roof, streaming rate, fixed cost per token), cached and reused
 * (cmd/calib_run.h). The usage text, the options (rl_opt), the types asked for, the bundle
 * (DIR/bundle.json, command "calibrate") and the table on stdout. Everything allocated here is
 * freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "bundle/bundle.h"
#include "cmd/calib_run.h"
#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "cmd/session.h"
#include "measure/advise_synth.h"
#include "measure/lbench.h"
#include "measure/membw.h"
#include "measure/quiet.h"
#include "measure/sysinfo.h"
#include "model/calib_plan.h"
#include "model/ggml_types.h"
#include "model/gguf_json.h"
#include "model/gguf_model.h"
#include "model/model_find.h"
#include "model/model_paths.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline calibrate [options] [GGUF|DIR...]\n"
    "\n"
    "What each ggml type's kernel does on this machine, measured with llama-bench on\n"
    "single-type synthetic models (synth's own types, the others from llama-quantize\n"
    "--pure; made once, kept in ~/.cache/llama-roofline/calibration-models): its\n"
    "compute roof (GB/s of weights consumed when they sit in the cache), its\n"
    "streaming rate (from DRAM) and the fixed cost per token that does not scale with\n"
    "bytes. Kept per CPU, llama.cpp build and thread count in\n"
    "~/.cache/llama-roofline/calibration and reused by later runs; the bundle\n"
    "DIR/bundle.json holds the calibration section with every llama-bench run.\n"
    "\n"
    "Types: every type llama.cpp's CPU backend runs (--list-types); with GGUF files\n"
    "or directories, the types those models hold (1% of their bytes or more); --types\n"
    "LIST names them.\n"
    "\n"
    "options:\n"
    "  --types LIST        ggml types, e.g. Q4_0,Q4_K,F16 (see --list-types)\n"
    "  --list-types        every type, how its models are made or why it is not\n"
    "                      calibrated\n"
    "  --quick             the types of the models given (or found, as diagnose finds\n"
    "                      them; else Q4_0, Q8_0, F16), -n " RL_DEF_STR(RL_DEF_CAL_QUICK_N_GEN) ", " RL_DEF_STR(RL_DEF_CAL_QUICK_REPS) "\n"
    "                      repetitions\n"
    "  -t, --threads LIST  thread counts, each 1 to 4096 (default: 1, half the\n"
    "                      physical cores, all physical, all logical)\n"
    "  -n, --n-gen N       tokens generated per repetition, 1 to 4096 (default " RL_DEF_STR(RL_DEF_CAL_N_GEN) ";\n"
    "                      fewer, at least 8, where a run would generate for\n"
    "                      over " RL_DEF_STR(RL_DEF_CAL_RUN_S) " s)\n"
    "  -r, --repetitions N repetitions per run, 1 to 1000 (default " RL_DEF_STR(RL_DEF_CAL_REPS) "; alias\n"
    "                      --reps)\n"
    "  --passes N          passes over the whole set, 1 to " RL_DEF_STR(RL_CAL_MAX_PASSES) " (default " RL_DEF_STR(RL_DEF_CAL_PASSES) "):\n"
    "                      each model is measured once per pass and its faster\n"
    "                      run is used (the others are kept in the bundle); a\n"
    "                      cached type with fewer passes gets the ones it lacks\n"
    "  --json              print the bundle's calibration section as JSON on stdout\n"
    "                      in place of the table\n"
    "  --recalibrate       measure every type asked for again, whatever the cache\n"
    "                      holds\n"
    "  --llc-mib N         size the models for a last-level cache of N MiB, 1 to\n"
    "                      65536 (default: the one detected, lowered when a probe\n"
    "                      reads it no faster than DRAM; 32 when unknown)\n"
    "  --timeout SEC       per llama-bench invocation, 1 to 86400 (default " RL_DEF_STR(RL_DEF_TIMEOUT_S) ")\n"
    "  --llama-bench PATH  llama-bench or its directory (default: $LLAMA_BENCH, PATH,\n"
    "                      then the build of scripts/llama-cpp.sh)\n"
    "  --llama-quantize PATH  llama-quantize or its directory (default: beside\n"
    "                         llama-bench, then PATH; without one only F32, F16,\n"
    "                         BF16, Q8_0, Q4_0)\n"
    "  -o, --output DIR    where bundle.json goes (default llama-roofline-calibrate)\n"
    RL_DEF_QUIET_HELP("    ", " ", "                      ")
    "  -h, --help          show this text\n"
    "\n"
    "exit codes: 0 calibrated (or reused); 1 no type could be calibrated; 2 bad input\n"
    "(an option, a type, a missing or corrupt GGUF); 3 llama-bench not found, or\n"
    "llama-quantize for a type named with --types; 4 the output or the cache cannot\n"
    "be written, or another llama-roofline is writing the output; 5 internal error;\n"
    "130 interrupted (the bundle keeps what was measured, the cache every finished\n"
    "type: run the same command to go on).\n";
// clang-format on

enum { OPT_TYPES = 256, OPT_LIST, OPT_QUICK, OPT_NGEN, OPT_REPS, OPT_RECAL, OPT_LLC };
enum { OPT_TIMEOUT = OPT_LLC + 1, OPT_LB, OPT_LQ, OPT_JSON, OPT_PASSES };

static const struct option longopts[] = {
    {"types", required_argument, NULL, OPT_TYPES},
    {"list-types", no_argument, NULL, OPT_LIST},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"threads", required_argument, NULL, 't'},
    {"n-gen", required_argument, NULL, OPT_NGEN},
    {"repetitions", required_argument, NULL, OPT_REPS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"passes", required_argument, NULL, OPT_PASSES},
    {"recalibrate", no_argument, NULL, OPT_RECAL},
    {"json", no_argument, NULL, OPT_JSON},
    {"llc-mib", required_argument, NULL, OPT_LLC},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"llama-bench", required_argument, NULL, OPT_LB},
    {"llama-quantize", required_argument, NULL, OPT_LQ},
    {"output", required_argument, NULL, 'o'},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    rl_calib_opts c;
    const char *types_arg, *out_dir, *lb, *lq;
    bool list, quick, help, n_gen_given, reps_given, json;
    int llc_mib;
    char no_quantize[600]; /* why the llama-quantize types are not calibrated, when none found */
} cal_args;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    cal_args *a = ctx;
    rl_calib_opts *o = &a->c;
    rl_status st = RL_OK;
    if (rl_defaults_quiet_opt(c, arg, &o->wait_quiet_s, &o->retry_disturbed, &st, err))
        return st;
    switch (c) {
    case OPT_TYPES: a->types_arg = arg; break;
    case OPT_LIST: a->list = true; break;
    case OPT_QUICK: a->quick = true; break;
    case 't':
        st = rl_opt_int_list("--threads", arg, 1, 4096, o->threads, RL_SWEEP_MAX_LIST,
                             &o->n_threads, true, err);
        break;
    case OPT_NGEN:
        a->n_gen_given = true;
        st = rl_opt_int("--n-gen", arg, 1, 4096, &o->n_gen, err);
        break;
    case OPT_REPS:
        a->reps_given = true;
        st = rl_opt_int("--reps", arg, 1, 1000, &o->reps, err);
        break;
    case OPT_PASSES: st = rl_opt_int("--passes", arg, 1, RL_CAL_MAX_PASSES, &o->passes, err); break;
    case OPT_RECAL: o->recalibrate = true; break;
    case OPT_JSON: a->json = true; break;
    case OPT_LLC: st = rl_opt_int("--llc-mib", arg, 1, 65536, &a->llc_mib, err); break;
    case OPT_TIMEOUT:
        st = rl_opt_double("--timeout", arg, 1, false, 86400, &o->timeout_s, err);
        break;
    case OPT_LB: a->lb = arg; break;
    case OPT_LQ: a->lq = arg; break;
    case 'o':
        a->out_dir = arg;
        st = rl_check_output_kind("calibrate", arg, RL_OUT_DIR, err);
        break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

/* --types LIST: each a type of the table; one that is never calibrated is bad input. */
static rl_status types_from_list(rl_calib_opts *o, const char *list, rl_error *err)
{
    char buf[512];
    if (strlen(list) >= sizeof buf || !*list)
        return rl_fail(err, RL_EINPUT, "--types: give a comma-separated list, e.g. Q4_0,Q8_0");
    strcpy(buf, list);
    char *save = NULL;
    for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        const rl_cal_type *t = rl_cal_type_by_name(w);
        char safe[64];
        if (!t)
            return rl_fail(err, RL_EINPUT, "--types: '%s' is not a ggml type (see --list-types)",
                           rl_tty_escape(w, safe, sizeof safe));
        if (!rl_cal_type_measurable(t))
            return rl_fail(err, RL_EINPUT, "--types: %s is not calibrated: %s", t->name, t->reason);
        rl_calib_add_type(o, t);
    }
    return RL_OK;
}

/* The types the models hold (rl_calib_add_types_of). */
static rl_status types_from_models(rl_calib_opts *o, const rl_model_paths *l, rl_error *err)
{
    for (size_t i = 0; i < l->n; i++) {
        rl_gguf_model m;
        rl_status st = rl_gguf_model_load(l->paths[i], &m, err);
        cJSON *g = st == RL_OK ? rl_gguf_model_to_json(&m, false) : NULL;
        if (st == RL_OK && !g)
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
        rl_calib_add_types_of(o, g);
        cJSON_Delete(g);
        rl_gguf_model_free(&m);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

/* Which types: --types, else the operands', else with --quick the models diagnose would find
 * (else the synth ladder's), else all of them. */
static rl_status choose_types(cal_args *a, int n_ops, char **ops, rl_error *err)
{
    rl_calib_opts *o = &a->c;
    rl_model_paths l = {0};
    rl_status st = RL_OK;
    if (a->types_arg)
        st = types_from_list(o, a->types_arg, err);
    for (int i = 0; st == RL_OK && i < n_ops; i++)
        st = rl_model_paths_add(&l, ops[i], err);
    if (st == RL_OK && !a->types_arg && n_ops == 0 && a->quick) {
        size_t found = 0;
        char *where = NULL;
        st = rl_model_search(getenv("LLAMA_MODELS"), getenv("HOME"), NULL, &l, &found, &where, err);
        free(where);
    }
    if (st == RL_OK)
        st = types_from_models(o, &l, err);
    if (st == RL_OK && !a->types_arg && n_ops == 0 && (!a->quick || o->n_types == 0)) {
        for (size_t i = 0; i < rl_cal_type_count(); i++) {
            const rl_cal_type *t = rl_cal_type_at(i);
            bool ladder =
                t->type == RL_GGML_Q4_0 || t->type == RL_GGML_Q8_0 || t->type == RL_GGML_F16;
            if (!a->quick || ladder)
                rl_calib_add_type(o, t);
        }
    }
    if (st == RL_OK && n_ops > 0 && o->n_types == 0 && !a->types_arg)
        st = rl_fail(err, RL_EINPUT, "the models given hold no type that can be calibrated");
    rl_model_paths_free(&l);
    rl_calib_order_types(o);
    return st;
}

static rl_status parse(int argc, char **argv, cal_args *a, rl_error *err)
{
    rl_status st = rl_opt_each(argc, argv, "t:o:h", longopts, on_opt, a, &a->help, err);
    if (st != RL_OK || a->help)
        return st;
    if (a->list && (optind < argc || a->types_arg || a->quick))
        return rl_fail(err, RL_EINPUT,
                       "--list-types lists every type: give no models, --types "
                       "or --quick with it");
    if (!*a->out_dir)
        return rl_fail(err, RL_EINPUT, "--output needs a directory");
    return RL_OK;
}

/* --list-types: every type, how its models are made, or why it is not calibrated. */
static void list_types(FILE *out)
{
    rl_tty_printf(out, "%-8s %s\n", "type", "calibration models");
    for (size_t i = 0; i < rl_cal_type_count(); i++) {
        const rl_cal_type *t = rl_cal_type_at(i);
        if (t->make == RL_CAL_SYNTH)
            rl_tty_printf(out, "%-8s synth writes it\n", t->name);
        else if (t->make == RL_CAL_QUANTIZE)
            rl_tty_printf(out,
                          "%-8s llama-quantize --pure %s from a synth F16 (not calibrated when "
                          "it refuses, with its reason)\n",
                          t->name, t->ftype);
        else
            rl_tty_printf(out, "%-8s not calibrated: %s\n", t->name, t->reason);
    }
}

/* The bundle: environment, the llama.cpp build, the settings. */
/* llama-bench, then llama-quantize when a type needs it (missing: an error when the types
 * were named, else those types are not calibrated). */
static rl_status find_tools(cal_args *a, char **bench, char **quant, rl_error *err)
{
    rl_calib_opts *o = &a->c;
    rl_status st = rl_lbench_find(a->lb, bench, err);
    bool needs = false;
    for (size_t i = 0; i < o->n_types; i++)
        needs |= o->types[i]->make == RL_CAL_QUANTIZE;
    if (st != RL_OK || !needs)
        return st;
    rl_error qe = {RL_OK, ""};
    st = rl_advise_find_quantize(a->lq, *bench, quant, &qe);
    if (st == RL_OK || a->types_arg || a->lq) {
        if (st != RL_OK)
            *err = qe;
        return st;
    }
    rl_tty_printf(stderr,
                  "llama-roofline calibrate: warning: %s; calibrating only the types synth "
                  "writes\n",
                  qe.msg);
    rl_snprintf(a->no_quantize, sizeof a->no_quantize, "%s", qe.msg);
    size_t k = 0;
    for (size_t i = 0; i < o->n_types; i++) {
        if (o->types[i]->make != RL_CAL_QUANTIZE) {
            o->types[k++] = o->types[i];
        } else if (o->n_skipped < RL_CAL_MAX_TYPES) {
            o->skipped_why[o->n_skipped] = a->no_quantize;
            o->skipped[o->n_skipped++] = o->types[i];
        }
    }
    o->n_types = k;
    return RL_OK;
}

/* The bundle's last state: the machine state summary, the status, the final write. */
static rl_status close_bundle(cJSON *b, const char *path, rl_status st, const rl_calib_stats *s,
                              rl_error *err)
{
    cJSON *env = cJSON_GetObjectItemCaseSensitive(b, "environment");
    if (cJSON_IsObject(env))
        rl_json_attach(env, "machine_state", rl_quiet_summary_json(b, &rl_defaults.quiet));
    if (st == RL_EINTERRUPTED)
        rl_bundle_set_status(b, "interrupted", "interrupted; the same command goes on");
    else if (st != RL_OK)
        rl_bundle_set_status(b, "failed", err->msg);
    else
        rl_bundle_set_status(b, "complete", s->runs_ok || s->reused ? NULL : "nothing calibrated");
    rl_error we;
    rl_status ws = rl_bundle_write(b, path, &we);
    if (st == RL_OK && ws != RL_OK) {
        *err = we;
        st = ws;
    }
    if (st == RL_OK && s->runs_ok == 0 && s->reused == 0)
        st = rl_fail(err, RL_NOTHING,
                     "no type was calibrated (see the errors above and %s): check that "
                     "llama-bench runs the models",
                     path);
    return st;
}

/* The options' defaults, the thread counts, the cache size. */
static void settle(cal_args *a, const rl_sysinfo *si)
{
    rl_calib_opts *o = &a->c;
    if (a->quick) {
        o->n_gen = a->n_gen_given ? o->n_gen : rl_defaults.cal_quick_n_gen;
        o->reps = a->reps_given ? o->reps : rl_defaults.cal_quick_reps;
    }
    if (!o->n_threads)
        o->n_threads = rl_membw_default_threads(si->logical_cores > 0 ? si->logical_cores : 1,
                                                si->physical_cores, o->threads, RL_SWEEP_MAX_LIST);
    o->llc = a->llc_mib ? (uint64_t)a->llc_mib << 20 : si->llc_bytes;
    o->llc_source = a->llc_mib ? "--llc-mib" : si->llc_bytes ? "detected" : "default";
    if (!o->llc)
        o->llc = RL_CAL_LLC_DEFAULT;
}

/* The output directory made, locked and writable; its bundle's path in *path. */
static rl_status open_output(const char *dir, char **path, rl_error *err)
{
    *path = rl_asprintf("%s/bundle.json", dir);
    if (!*path)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st = rl_mkdir_p(dir, "choose a writable -o directory", err);
    if (st == RL_OK)
        st = rl_output_lock(*path, dir, "choose another -o", err);
    if (st == RL_OK)
        st = rl_check_writable(*path, err);
    return st;
}

static void report(const cal_args *a, const cJSON *b, const char *path, const rl_calib_stats *s)
{
    const cJSON *cal = rl_json_get(b, "calibration");
    rl_error e;
    if (!a->json || !cal || rl_json_to_stdout(cal, &e) != RL_OK)
        rl_calib_print(stdout, cal);
    char safe[4096];
    rl_tty_printf(
        stderr,
        "\ncalibrate: %zu measured, %zu reused from the cache (types x thread counts), %zu "
        "type%s not calibrated; models: %zu made in %.1f s; llama-bench: %zu of %zu runs ok "
        "in %.1f s\n",
        s->measured, s->reused, s->not_calibrated, s->not_calibrated == 1 ? "" : "s",
        s->models_made, s->make_s, s->runs_ok, s->runs_total, s->measure_s);
    rl_tty_printf(stderr, "  bundle: %s\n", rl_tty_escape(path, safe, sizeof safe));
}

static rl_status calibrate(cal_args *a, int n_ops, char **ops, rl_error *err)
{
    rl_calib_opts *o = &a->c;
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    settle(a, &si);
    char *bench = NULL, *quant = NULL, *path = NULL, *root = NULL;
    cJSON *b = NULL;
    rl_status st = choose_types(a, n_ops, ops, err);
    if (st == RL_OK)
        st = find_tools(a, &bench, &quant, err);
    if (st == RL_OK)
        st = open_output(a->out_dir, &path, err);
    for (int i = 0; st == RL_OK && i < n_ops; i++) /* no operand is the bundle written */
        st = rl_check_outputs(&(rl_path_arg){"a model", ops[i]}, 1, &(rl_path_arg){"-o", path}, 1,
                              err);
    if (st == RL_OK && !(root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"))))
        st = rl_fail(err, RL_EOUTPUT,
                     "no place for the calibration cache: set HOME or "
                     "LLAMA_ROOFLINE_CACHE to a writable directory");
    o->llama_bench = bench;
    o->llama_quantize = quant;
    o->cache_root = root;
    if (st == RL_OK && !(b = rl_calib_bundle_new("calibrate", o, &si)))
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_cal_key key;
    if (st == RL_OK) {
        rl_cal_key_of_bundle(b, &key);
        rl_tty_printf(
            stderr,
            "calibrate: plan: %zu types x %d thread counts, %d models each, llama-bench -p 0 "
            "-n %d -r %d in %d pass%s, the faster kept (%zu not calibrated)\n",
            o->n_types, o->n_threads, (int)RL_CAL_N_ROLES, o->n_gen, o->reps, o->passes,
            o->passes == 1 ? "" : "es", o->n_skipped);
        st = rl_bundle_write(b, path, err);
    }
    rl_calib_stats stats = {0};
    if (st == RL_OK)
        st = rl_calib_measure(o, &key, b, path, &stats, err);
    if (b)
        st = close_bundle(b, path, st, &stats, err);
    if (b && (st == RL_OK || st == RL_NOTHING))
        report(a, b, path, &stats);
    if (b && st == RL_EINTERRUPTED)
        st = rl_session_interrupted("calibrate", a->out_dir, path, b, err);
    cJSON_Delete(b);
    free(bench);
    free(quant);
    free(path);
    free(root);
    return st;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    cal_args a = {0};
    rl_calib_opts *o = &a.c;
    o->verb = "calibrate";
    o->n_gen = rl_defaults.cal_n_gen;
    o->reps = rl_defaults.cal_reps;
    o->run_s = rl_defaults.cal_run_s;
    o->passes = rl_defaults.cal_passes;
    o->timeout_s = rl_defaults.timeout_s;
    o->quiet = &rl_defaults.quiet;
    o->wait_quiet_s = rl_defaults.wait_quiet_s;
    o->retry_disturbed = rl_defaults.retry_disturbed;
    a.out_dir = "llama-roofline-calibrate";
    rl_status st = parse(argc, argv, &a, err);
    if (st != RL_OK)
        return st;
    if (a.help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (a.list) {
        list_types(stdout);
        return RL_OK;
    }
    return calibrate(&a, argc - optind, argv + optind, err);
}

const rl_command rl_cmd_calibrate = {
    "calibrate", "each ggml type's kernel here: compute and stream roofs, fixed cost", usage, run};
