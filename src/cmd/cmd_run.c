/* SPDX-License-Identifier: MIT */
/* cmd_run.c: `llama-roofline run`: options, one call to the sweep (sweep.h), the summary.
 * Everything allocated here is freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "cmd/session.h"
#include "model/gguf_remote.h"
#include "measure/membw.h"
#include "measure/lbench.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "cmd/sweep.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline run -m GGUF [GGUF...] [options]\n"
    "\n"
    "Measure decode and prefill with llama.cpp's llama-bench over a thread sweep (and\n"
    "KV-cache depths), measure the memory read ceiling, fit decode tok/s = BW_eff /\n"
    "bytes_per_token through the origin, and keep everything in DIR/bundle.json,\n"
    "written after every llama-bench record (Ctrl-C keeps what was measured; --resume\n"
    "continues), then render it as DIR/report.html (see `llama-roofline report`).\n"
    "Bytes per token are the resident bytes: llama-bench's model_size, else the file\n"
    "size.\n"
    "\n"
    "options:\n"
    "  -m, --model GGUF       a model to measure: repeat -m, give several files after\n"
    "                         it, or a comma-separated list (at least two models for\n"
    "                         a fit)\n"
    "  -t, --threads LIST     thread counts, e.g. 1,2,4 (default: 1, half the\n"
    "                         physical cores, all physical, all logical)\n"
    "  -d, --n-depth LIST     KV-cache depths for decode, e.g. 0,512,2048 (default 0;\n"
    "                         alias --depth)\n"
    "  -p, --n-prompt N       prompt tokens, 1 to 16777216 (default " RL_DEF_STR(RL_DEF_N_PROMPT) "; 0 is\n"
    "                         refused: some builds report a spuriously low\n"
    "                         generation rate with -p 0)\n"
    "  -n, --n-gen N          generated tokens, 1 to 16777216 (default " RL_DEF_STR(RL_DEF_N_GEN) ")\n"
    "  -r, --repetitions N    repetitions per llama-bench test, 1 to 1000 (default " RL_DEF_STR(RL_DEF_REPS) ";\n"
    "                         alias --reps)\n"
    "  --target-ci PCT        repeat in batches of --reps until the decode 95% CI\n"
    "                         half-width is under PCT % of the mean (0.1 to 100), or\n"
    "                         --max-reps is hit\n"
    "  --max-reps N           at most N repetitions per run with --target-ci\n"
    "                         (default " RL_DEF_STR(RL_DEF_MAX_REPS) ")\n"
    "  -ngl, --n-gpu-layers N  layers offloaded by llama-bench, 0 to 100000 (default\n"
    "                         0: the RAM ceiling does not apply to offloaded layers;\n"
    "                         alias --gpu-layers)\n"
    "  --bench-arg ARG        appended verbatim to llama-bench's command line\n"
    "                         (repeatable)\n"
    "  --timeout SEC          per llama-bench invocation, 1 to 86400 (default " RL_DEF_STR(RL_DEF_TIMEOUT_S) ")\n"
    "  --peak-bw GBS          do not measure the ceiling: use GBS (kind \"controlled\")\n"
    "  --skip-membw           no ceiling (no utilisation and no verdict)\n"
    "  --quick-membw          a short ceiling measurement\n"
    "  --no-bracket           no short ceiling probes before, between (3 or more\n"
    "                         models) and after the sweep (default: probed; probes\n"
    "                         more than " RL_DEF_STR(RL_DEF_BRACKET_LIMIT_PCT) "% apart are a ceiling_drift warning)\n"
    "  --llama-bench PATH     the llama-bench binary or its directory (default:\n"
    "                         $LLAMA_BENCH, PATH, then the build of\n"
    "                         scripts/llama-cpp.sh)\n"
    "  -o, --output DIR       where bundle.json and report.html go (default\n"
    "                         llama-roofline-out)\n"
    "  --json                 print the bundle as JSON on stdout in place of the\n"
    "                         summary (the \"wrote\" lines go to stderr)\n"
    "  --resume               continue the interrupted run in DIR: its settings and\n"
    "                         models, skipping what is done; a setting option given\n"
    "                         with it (-m, -t, -d, -p, -n, -r, -ngl, --bench-arg,\n"
    "                         --timeout, --target-ci,\n"
    "                         --max-reps, --peak-bw, --skip-membw, --quick-membw)\n"
    "                         must equal the bundle's, or exit 2\n"
    RL_DEF_QUIET_HELP("       ", "    ", "                         ")
    "  -h, --help             show this text\n"
    "\n"
    "exit codes: 0 measured; 1 no model produced a decode rate; 2 bad input (an\n"
    "option, an unreadable GGUF, a model that is one of the outputs, a foreign or\n"
    "corrupt bundle to resume or an option that differs from its plan, left\n"
    "untouched); 3 llama-bench not found; 4 the output directory cannot be written or\n"
    "another llama-roofline is writing it; 5 internal error; 130 interrupted (the\n"
    "bundle keeps every completed record).\n";
// clang-format on

enum {
    OPT_DEPTH = 256,
    OPT_NP,
    OPT_NG,
    OPT_REPS,
    OPT_NGL,
    OPT_BARG,
    OPT_TIMEOUT,
    OPT_PEAK,
    OPT_SKIP,
    OPT_QUICK,
    OPT_LB,
    OPT_RESUME,
    OPT_TCI,
    OPT_MAXR,
    OPT_NOBR,
    OPT_JSON
};

static const struct option longopts[] = {
    {"model", required_argument, NULL, 'm'},
    {"threads", required_argument, NULL, 't'},
    {"n-depth", required_argument, NULL, OPT_DEPTH},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"n-prompt", required_argument, NULL, OPT_NP},
    {"n-gen", required_argument, NULL, OPT_NG},
    {"repetitions", required_argument, NULL, OPT_REPS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"n-gpu-layers", required_argument, NULL, OPT_NGL},
    {"gpu-layers", required_argument, NULL, OPT_NGL},
    {"bench-arg", required_argument, NULL, OPT_BARG},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"peak-bw", required_argument, NULL, OPT_PEAK},
    {"skip-membw", no_argument, NULL, OPT_SKIP},
    {"quick-membw", no_argument, NULL, OPT_QUICK},
    {"llama-bench", required_argument, NULL, OPT_LB},
    {"output", required_argument, NULL, 'o'},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"target-ci", required_argument, NULL, OPT_TCI},
    {"max-reps", required_argument, NULL, OPT_MAXR},
    {"no-bracket", no_argument, NULL, OPT_NOBR},
    {"json", no_argument, NULL, OPT_JSON},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define MAX_TOKENS (1 << 24)

/* What the options fill: the sweep's options, the -m and --bench-arg arrays, and the setting
 * options given (checked against the plan of a bundle to --resume). */
typedef struct {
    rl_sweep_opts *o;
    const char **models, **bargs;
    rl_sweep_given *given;
    bool json; /* --json: the bundle on stdout */
} run_parse;

/* The setting options of run and the key of the plan each sets. */
static const struct {
    int opt;
    const char *flag, *key;
} plan_opts[] = {
    {'m', "-m", RL_SWEEP_KEY_MODELS},
    {'t', "--threads", "threads"},
    {OPT_DEPTH, "--depth", "depths"},
    {OPT_NP, "--n-prompt", "n_prompt"},
    {OPT_NG, "--n-gen", "n_gen"},
    {OPT_REPS, "--reps", "reps"},
    {OPT_NGL, "--gpu-layers", "n_gpu_layers"},
    {OPT_BARG, "--bench-arg", "bench_args"},
    {OPT_TIMEOUT, "--timeout", "timeout_s"},
    {OPT_TCI, "--target-ci", "target_ci_pct"},
    {OPT_MAXR, "--max-reps", "max_reps"},
    {OPT_PEAK, "--peak-bw", RL_SWEEP_KEY_CEILING},
    {OPT_SKIP, "--skip-membw", RL_SWEEP_KEY_CEILING},
    {OPT_QUICK, "--quick-membw", RL_SWEEP_KEY_CEILING},
};

/* One model word: a path, or (when no file has that name) a comma-separated list of them,
 * split in place (main gives the command its own copy of every word). */
static rl_status add_models(run_parse *r, char *arg, rl_error *err)
{
    rl_sweep_opts *o = r->o;
    bool list = strchr(arg, ',') && access(arg, F_OK) != 0;
    for (char *p = arg, *next; p; p = next) {
        next = list ? strchr(p, ',') : NULL;
        if (next)
            *next++ = '\0';
        if (!*p)
            continue;
        if (o->n_models >= RL_SWEEP_MAX_MODELS)
            return rl_fail(err, RL_EINPUT, "at most %d models", RL_SWEEP_MAX_MODELS);
        r->models[o->n_models++] = p;
        rl_status st = rl_remote_refuse_url("-m", p, err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    run_parse *r = ctx;
    rl_sweep_opts *o = r->o;
    rl_status st = RL_OK;
    if (rl_defaults_quiet_opt(c, arg, &o->wait_quiet_s, &o->retry_disturbed, &st, err))
        return st;
    for (size_t i = 0; i < sizeof plan_opts / sizeof plan_opts[0]; i++)
        if (plan_opts[i].opt == c)
            rl_sweep_give(r->given, &o->n_given, plan_opts[i].flag,
                          c == 'm' || c == OPT_BARG ? NULL : arg, plan_opts[i].key);
    switch (c) {
    case 'm': st = add_models(r, (char *)arg, err); break;
    case 't':
        st = rl_opt_int_list("--threads", arg, 1, 4096, o->threads, RL_SWEEP_MAX_LIST,
                             &o->n_threads, true, err);
        break;
    case OPT_DEPTH:
        st = rl_opt_int_list("--depth", arg, 0, MAX_TOKENS, o->depths, RL_SWEEP_MAX_LIST,
                             &o->n_depths, true, err);
        break;
    case OPT_NP:
        if (strcmp(arg, "0") == 0)
            return rl_fail(err, RL_EINPUT,
                           "--n-prompt 0 is refused: some llama.cpp builds report a "
                           "spuriously low generation rate with -p 0; give 1 or more");
        st = rl_opt_int("--n-prompt", arg, 1, MAX_TOKENS, &o->n_prompt, err);
        break;
    case OPT_NG: st = rl_opt_int("--n-gen", arg, 1, MAX_TOKENS, &o->n_gen, err); break;
    case OPT_REPS: st = rl_opt_int("--reps", arg, 1, 1000, &o->reps, err); break;
    case OPT_NGL: st = rl_opt_int("--gpu-layers", arg, 0, 100000, &o->n_gpu_layers, err); break;
    case OPT_BARG:
        if (o->n_bench_args >= 64)
            return rl_fail(err, RL_EINPUT, "at most 64 --bench-arg values");
        if ((st = rl_lbench_check_extra(arg, err)) != RL_OK)
            return st;
        r->bargs[o->n_bench_args++] = arg;
        break;
    case OPT_TIMEOUT:
        st = rl_opt_double("--timeout", arg, 1, false, 86400, &o->timeout_s, err);
        break;
    case OPT_PEAK: st = rl_membw_parse_peak_bw(arg, &o->peak_bw, err); break;
    case OPT_SKIP: o->skip_membw = true; break;
    case OPT_QUICK: o->quick_membw = true; break;
    case OPT_NOBR: o->no_bracket = true; break;
    case OPT_JSON: r->json = true; break;
    case OPT_LB: o->llama_bench = arg; break;
    case 'o':
        o->out_dir = arg;
        st = rl_check_output_kind("run", arg, RL_OUT_DIR, err);
        break;
    case OPT_RESUME: o->resume = true; break;
    case OPT_TCI:
        st = rl_opt_double("--target-ci", arg, 0.1, false, 100, &o->target_ci_pct, err);
        break;
    case OPT_MAXR: st = rl_opt_int("--max-reps", arg, 1, 1000, &o->max_reps, err); break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

static rl_status parse(int argc, char **argv, rl_sweep_opts *o, const char **models,
                       const char **bargs, rl_sweep_given *given, bool *help, bool *json,
                       rl_error *err)
{
    run_parse r = {o, models, bargs, given, false};
    rl_status st = rl_opt_each(argc, argv, "m:t:o:h", longopts, on_opt, &r, help, err);
    if (st != RL_OK || *help)
        return st;
    for (int i = optind; st == RL_OK && i < argc; i++) { /* run -m a b c: the shell's glob */
        rl_sweep_give(r.given, &o->n_given, "-m", NULL, RL_SWEEP_KEY_MODELS);
        st = add_models(&r, argv[i], err);
    }
    *json = r.json;
    if (st != RL_OK)
        return st;
    if (o->target_ci_pct > 0 && o->max_reps < o->reps)
        return rl_fail(err, RL_EINPUT, "--max-reps %d is below --reps %d", o->max_reps, o->reps);
    if (o->peak_bw > 0 && o->skip_membw)
        return rl_fail(err, RL_EINPUT, "--peak-bw and --skip-membw contradict each other");
    if (!*o->out_dir)
        return rl_fail(err, RL_EINPUT, "--output needs a directory");
    if (!o->resume && o->n_models == 0)
        return rl_fail(err, RL_EINPUT, "no model: give one or more -m GGUF (see run --help)");
    return RL_OK;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    const char *models[RL_SWEEP_MAX_MODELS], *bargs[64];
    rl_sweep_given given[RL_SWEEP_MAX_GIVEN];
    rl_sweep_opts o = {0};
    o.given = given;
    o.command = "run";
    o.n_prompt = rl_defaults.n_prompt;
    o.n_gen = rl_defaults.n_gen;
    o.reps = rl_defaults.reps;
    o.max_reps = rl_defaults.max_reps;
    o.timeout_s = rl_defaults.timeout_s;
    o.out_dir = "llama-roofline-out";
    o.bytes = RL_AN_BYTES_RESIDENT;
    o.quiet = &rl_defaults.quiet;
    o.wait_quiet_s = rl_defaults.wait_quiet_s;
    o.retry_disturbed = rl_defaults.retry_disturbed;
    bool help = false, json = false;
    rl_status st = parse(argc, argv, &o, models, bargs, given, &help, &json, err);
    if (st != RL_OK)
        return st;
    if (help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    o.models = models;
    o.bench_args = bargs;
    o.argv = rl_opt_typed(&o.argc);
    cJSON *bundle = NULL;
    st = rl_session_sweep(&o, &bundle, err);
    rl_session_end_opts end = {"run", o.out_dir, RL_SESSION_SUMMARY | (json ? RL_SESSION_JSON : 0u),
                               false};
    st = rl_session_end(&end, bundle, st, err);
    cJSON_Delete(bundle);
    return st;
}

const rl_command rl_cmd_run = {
    "run", "llama-bench over threads and depths, the roofline fit, a bundle", usage, run};
