/* SPDX-License-Identifier: MIT */
/* cmd_diagnose.c: `llama-roofline diagnose [GGUF|DIR...]`: the zero-configuration answer.
 * The usage text and the options (rl_opt); the models (diagnose_models.h); then one sweep
 * (sweep.h) with the streamed bytes convention, the predictions asked for (predict.h) and the
 * report. Everything allocated here is freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/calib_run.h"
#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "cmd/session.h"
#include "cmd/diagnose_models.h"
#include "measure/membw.h"
#include "model/gguf_remote.h"
#include "render/report.h"
#include "analyse/predict.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "cmd/sweep.h"
#include "measure/sysinfo.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline diagnose [options] [GGUF|DIR...]\n"
    "\n"
    "What limits token generation here, with nothing to set up: the memory read\n"
    "ceiling, llama-bench over a thread sweep on a few models, the fit decode tok/s =\n"
    "BW_eff / bytes_per_token (bytes: the tensors decode streams) and the verdict, in\n"
    "DIR/bundle.json.\n"
    "\n"
    "Models: the GGUF files named and the *.gguf files in each DIR named. With none,\n"
    "three spanning the size range found two levels below $LLAMA_MODELS\n"
    "(':'-separated), ./models, ~/models, ~/.cache/llama.cpp,\n"
    "~/.cache/lm-studio/models, ~/.lmstudio/models or /usr/share/llama.cpp/models; if\n"
    "none, or with --synth, Qwen2.5-0.5B-shaped synthetic models at Q4_0, Q8_0 and\n"
    "F16 (2.3 GB, kept in ~/.cache/llama-roofline/synth).\n"
    "\n"
    "options:\n"
    "  --synth             measure the synthetic ladder (then give no models)\n"
    "  --quick             the first two default thread counts, -n 64, one\n"
    "                      repetition, a short ceiling measurement\n"
    "  -t, --threads LIST  thread counts, each 1 to 4096 (default: 1, half the\n"
    "                      physical cores, all physical, all logical)\n"
    "  -r, --repetitions N repetitions per test, 1 to 1000 (default " RL_DEF_STR(RL_DEF_REPS) "; 1 with\n"
    "                      --quick; alias --reps)\n"
    "  --peak-bw GBS       use GBS (above 0, at most 100000) as the ceiling, no\n"
    "                      measurement\n"
    "  --skip-membw        no ceiling (then no utilisation and no verdict)\n"
    "  --no-bracket        no short ceiling probes before, between (3 or more models)\n"
    "                      and after the sweep (default: probed; probes more than\n"
    "                      " RL_DEF_STR(RL_DEF_BRACKET_LIMIT_PCT) "% apart are a ceiling_drift warning)\n"
    "  --file-bytes        count resident bytes (llama-bench model_size, else the\n"
    "                      file size)\n"
    "  -ngl, --n-gpu-layers N\n"
    "                      layers offloaded, 0 to 100000 (default 0; alias\n"
    "                      --gpu-layers)\n"
    "  --timeout SEC       per llama-bench invocation, 1 to 86400 (default " RL_DEF_STR(RL_DEF_TIMEOUT_S) ")\n"
    "  --llama-bench PATH  llama-bench or its directory (default: $LLAMA_BENCH, PATH,\n"
    "                      then the build of scripts/llama-cpp.sh)\n"
    "  -o, --output DIR    where bundle.json goes (default llama-roofline-out)\n"
    "  --predict MODEL     also predict MODEL (a GGUF, a URL or synth:PRESET:TYPE)\n"
    "                      from the fit: the report's \"what to expect\" table\n"
    "                      (repeatable)\n"
    "  --json              print the bundle as JSON on stdout in place of the\n"
    "                      summary (the \"wrote\" lines go to stderr)\n"
    "  --calibrate         also calibrate the types of the models measured at the\n"
    "                      sweep's thread counts (see calibrate; cached and reused);\n"
    "                      without it a cached calibration of this CPU and llama.cpp\n"
    "                      build is attached\n"
    "  --resume            continue the interrupted diagnose in DIR (give no models);\n"
    "                      a setting option given with it (-t, --reps, --quick,\n"
    "                      --gpu-layers, --timeout, --file-bytes, --peak-bw,\n"
    "                      --skip-membw) must equal the bundle's plan, or exit 2\n"
    RL_DEF_QUIET_HELP("    ", " ", "                      ")
    "  -h, --help          show this text\n"
    "\n"
    "exit codes: 0 measured; 1 no decode rate from any model; 2 bad input (an option,\n"
    "a missing or corrupt GGUF, no model among those named, an option that differs\n"
    "from the plan of the bundle to --resume); 3 llama-bench not found; 4 the output\n"
    "or the synth cache cannot be written, or another llama-roofline is writing the\n"
    "output; 5 internal error; 130 interrupted (the bundle keeps what was measured;\n"
    "--resume continues).\n";
// clang-format on

enum { OPT_SYNTH = 256, OPT_QUICK, OPT_REPS, OPT_PEAK, OPT_SKIP, OPT_FILE_BYTES, OPT_NGL };
enum { OPT_TIMEOUT = OPT_NGL + 1, OPT_LB, OPT_RESUME, OPT_PREDICT, OPT_NOBR, OPT_CALIB, OPT_JSON };

static const struct option longopts[] = {
    {"synth", no_argument, NULL, OPT_SYNTH},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"threads", required_argument, NULL, 't'},
    {"repetitions", required_argument, NULL, OPT_REPS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"peak-bw", required_argument, NULL, OPT_PEAK},
    {"skip-membw", no_argument, NULL, OPT_SKIP},
    {"file-bytes", no_argument, NULL, OPT_FILE_BYTES},
    {"n-gpu-layers", required_argument, NULL, OPT_NGL},
    {"gpu-layers", required_argument, NULL, OPT_NGL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"llama-bench", required_argument, NULL, OPT_LB},
    {"output", required_argument, NULL, 'o'},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"predict", required_argument, NULL, OPT_PREDICT},
    {"no-bracket", no_argument, NULL, OPT_NOBR},
    {"calibrate", no_argument, NULL, OPT_CALIB},
    {"json", no_argument, NULL, OPT_JSON},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    rl_sweep_opts o;
    bool synth, quick, help, reps_given, calibrate, json;
    const char *predict[RL_PRED_MAX_MODELS];
    size_t n_predict;
    rl_sweep_given given[RL_SWEEP_MAX_GIVEN]; /* checked against a bundle to --resume */
} diag_args;

/* The setting options of diagnose and the key of the plan each sets (--quick: in run()). */
static const struct {
    int opt;
    const char *flag, *key;
} plan_opts[] = {
    {'t', "--threads", "threads"},
    {OPT_REPS, "--reps", "reps"},
    {OPT_NGL, "--gpu-layers", "n_gpu_layers"},
    {OPT_TIMEOUT, "--timeout", "timeout_s"},
    {OPT_FILE_BYTES, "--file-bytes", "bytes_convention"},
    {OPT_PEAK, "--peak-bw", RL_SWEEP_KEY_CEILING},
    {OPT_SKIP, "--skip-membw", RL_SWEEP_KEY_CEILING},
};

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    diag_args *a = ctx;
    rl_sweep_opts *o = &a->o;
    rl_status st = RL_OK;
    if (rl_defaults_quiet_opt(c, arg, &o->wait_quiet_s, &o->retry_disturbed, &st, err))
        return st;
    for (size_t i = 0; i < sizeof plan_opts / sizeof plan_opts[0]; i++)
        if (plan_opts[i].opt == c)
            rl_sweep_give(a->given, &o->n_given, plan_opts[i].flag, arg, plan_opts[i].key);
    switch (c) {
    case OPT_SYNTH: a->synth = true; break;
    case OPT_QUICK: a->quick = true; break;
    case 't':
        st = rl_opt_int_list("--threads", arg, 1, 4096, o->threads, RL_SWEEP_MAX_LIST,
                             &o->n_threads, true, err);
        break;
    case OPT_REPS:
        a->reps_given = true;
        st = rl_opt_int("--reps", arg, 1, 1000, &o->reps, err);
        break;
    case OPT_PEAK: st = rl_membw_parse_peak_bw(arg, &o->peak_bw, err); break;
    case OPT_SKIP: o->skip_membw = true; break;
    case OPT_NOBR: o->no_bracket = true; break;
    case OPT_CALIB: a->calibrate = true; break;
    case OPT_JSON: a->json = true; break;
    case OPT_FILE_BYTES: o->bytes = RL_AN_BYTES_RESIDENT; break;
    case OPT_NGL: st = rl_opt_int("--gpu-layers", arg, 0, 100000, &o->n_gpu_layers, err); break;
    case OPT_TIMEOUT:
        st = rl_opt_double("--timeout", arg, 1, false, 86400, &o->timeout_s, err);
        break;
    case OPT_LB: o->llama_bench = arg; break;
    case 'o':
        o->out_dir = arg;
        st = rl_check_output_kind("diagnose", arg, RL_OUT_DIR, err);
        break;
    case OPT_RESUME: o->resume = true; break;
    case OPT_PREDICT:
        if (a->n_predict >= RL_PRED_MAX_MODELS)
            return rl_fail(err, RL_EINPUT, "--predict: at most %d models", RL_PRED_MAX_MODELS);
        a->predict[a->n_predict++] = arg;
        break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

static rl_status parse(int argc, char **argv, diag_args *a, rl_error *err)
{
    rl_sweep_opts *o = &a->o;
    rl_status st = rl_opt_each(argc, argv, "t:o:h", longopts, on_opt, a, &a->help, err);
    if (st != RL_OK || a->help)
        return st;
    bool operands = optind < argc;
    if (o->peak_bw > 0 && o->skip_membw)
        return rl_fail(err, RL_EINPUT, "--peak-bw and --skip-membw contradict each other");
    if (!*o->out_dir)
        return rl_fail(err, RL_EINPUT, "--output needs a directory");
    if (o->resume && (operands || a->synth))
        return rl_fail(err, RL_EINPUT,
                       "--resume takes the models from the bundle in %s: give no models or --synth",
                       o->out_dir);
    if (a->synth && operands)
        return rl_fail(err, RL_EINPUT, "--synth measures the synthetic ladder: give no models");
    return RL_OK;
}

/* No --predict file is an output (DIR/bundle.json, DIR/report.html), checked before anything
 * is written (the synthetic ladder included); URLs and synth: models are no files. */
static rl_status predict_not_outputs(const diag_args *a, rl_error *err)
{
    char *bundle = rl_asprintf("%s/bundle.json", a->o.out_dir);
    char *page = rl_asprintf("%s/" RL_REPORT_FILE, a->o.out_dir);
    rl_path_arg out[] = {{"-o", bundle}, {"-o", page}};
    rl_status st = bundle && page ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t i = 0; st == RL_OK && i < a->n_predict; i++)
        if (!rl_is_url(a->predict[i]) && strncmp(a->predict[i], "synth:", 6) != 0)
            st = rl_check_outputs(&(rl_path_arg){"--predict", a->predict[i]}, 1, out, 2, err);
    free(bundle);
    free(page);
    return st;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    diag_args a = {0};
    rl_sweep_opts *o = &a.o;
    o->given = a.given;
    o->command = "diagnose";
    o->n_prompt = rl_defaults.n_prompt;
    o->n_gen = rl_defaults.n_gen;
    o->reps = rl_defaults.reps;
    o->timeout_s = rl_defaults.timeout_s;
    o->out_dir = "llama-roofline-out";
    o->bytes = RL_AN_BYTES_STREAMED;
    o->quiet = &rl_defaults.quiet;
    o->wait_quiet_s = rl_defaults.wait_quiet_s;
    o->retry_disturbed = rl_defaults.retry_disturbed;
    rl_status st = parse(argc, argv, &a, err);
    if (st != RL_OK || a.help) {
        if (st == RL_OK)
            rl_tty_puts(stdout, usage);
        return st;
    }
    if (a.quick) {
        o->n_gen = 64;
        o->quick_membw = true;
        o->reps = a.reps_given ? o->reps : 1;
        rl_sweep_give(a.given, &o->n_given, "--quick", NULL, "n_gen");
        if (!a.reps_given)
            rl_sweep_give(a.given, &o->n_given, "--quick", NULL, "reps");
        rl_sweep_give(a.given, &o->n_given, "--quick", NULL, RL_SWEEP_KEY_CEILING);
    }
    if (!o->resume && !o->n_threads) {
        rl_sysinfo si;
        rl_sysinfo_collect(&si);
        o->n_threads = rl_membw_default_threads(si.logical_cores > 0 ? si.logical_cores : 1,
                                                si.physical_cores, o->threads, RL_SWEEP_MAX_LIST);
        if (a.quick && o->n_threads > 2)
            o->n_threads = 2;
    }
    rl_model_paths models = {0};
    st = predict_not_outputs(&a, err);
    if (st == RL_OK && (st = rl_pred_check_models(a.predict, a.n_predict, err)) == RL_OK &&
        !o->resume &&
        (st = rl_diagnose_models(argc - optind, argv + optind, a.synth, o->llama_bench, o->out_dir,
                                 &models, err)) == RL_OK)
        rl_tty_printf(
            stderr,
            "diagnose: plan: %zu models x %d thread counts, %d repetition%s of -p %d -n %d\n",
            models.n, o->n_threads, o->reps, o->reps == 1 ? "" : "s", o->n_prompt, o->n_gen);
    cJSON *bundle = NULL;
    if (st == RL_OK) {
        o->models = (const char *const *)models.paths;
        o->n_models = models.n;
        o->argv = rl_opt_typed(&o->argc);
        st = rl_session_sweep(o, &bundle, err);
    }
    if (bundle)
        st = rl_calib_after_diagnose(bundle, o->out_dir, a.calibrate, a.quick, o->wait_quiet_s,
                                     o->retry_disturbed, st, err);
    if (bundle)
        st = rl_pred_after_diagnose(bundle, o->out_dir, a.predict, a.n_predict, st, err);
    rl_session_end_opts end = {"diagnose", o->out_dir,
                               RL_SESSION_SUMMARY | (a.json ? RL_SESSION_JSON : 0u), false};
    st = rl_session_end(&end, bundle, st, err);
    cJSON_Delete(bundle);
    rl_model_paths_free(&models);
    return st;
}

const rl_command rl_cmd_diagnose = {
    "diagnose", "start here: find or make models, measure, fit, say what limits it", usage, run};
