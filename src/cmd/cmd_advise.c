/* SPDX-License-Identifier: MIT */
/* cmd_advise.c: `llama-roofline advise`: the usage text and the options, then one call into
 * advise_run.h: --plan, --measure, or the ranking from the study's matrix (--list-cores too).
 * Nothing is allocated here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/advise_run.h"
#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "render/report.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline advise [--core NAME] [--threads N] [--scale B]\n"
    "                             [--json|--markdown] [-o FILE]\n"
    "       llama-roofline advise --list-cores\n"
    "       llama-roofline advise --plan F16.gguf\n"
    "       llama-roofline advise --measure (-m GGUF -m GGUF... | --synth) [options]\n"
    "       llama-roofline advise --measure --predict (-m GGUF... | --synth) ...\n"
    "\n"
    "Which quantization format to run on this CPU. Without --measure nothing is run:\n"
    "the answer comes from a published format study (data/format_matrix.csv, compiled\n"
    "in): one table per core x thread count x model scale, never averaged across\n"
    "cores, with the evidence level for this machine (the machine measured, the same\n"
    "core design, a close relative labelled EXTRAPOLATED, or nothing: then only the\n"
    "recipe for measuring here). Formats within 5% are tied; speed is compared at\n"
    "matched bytes (the spread inside the largest group of formats streaming within\n"
    "3% of the same bytes).\n"
    "\n"
    "options:\n"
    "  --core NAME          use this matrix core instead of detecting (see\n"
    "                       --list-cores)\n"
    "  --list-cores         the cores the matrix holds, with scales and thread counts\n"
    "  --threads N          the table at N threads (nearest measured); with --measure\n"
    "                       a list of thread counts, e.g. 1,2,4 (default: run's\n"
    "                       default sweep)\n"
    "  --scale B            model size in billions of parameters (nearest measured;\n"
    "                       default the smallest)\n"
    "  --cpuinfo FILE       detect from a saved /proc/cpuinfo instead of this\n"
    "                       machine's\n"
    "  --plan GGUF          the formats worth comparing from this F16/BF16 source, as\n"
    "                       llama-quantize commands (an already-quantized source:\n"
    "                       exit 2)\n"
    "  --json               JSON on stdout: {detection, advice: [one block per core,\n"
    "                       ranking fastest first]}\n"
    "  --markdown           Markdown (for an issue comment) instead of text\n"
    "  -o, --output FILE    write the text, JSON or Markdown to FILE instead of\n"
    "                       stdout\n"
    "\n"
    "measuring here (--measure):\n"
    "  -m, --model GGUF     a file to measure (repeat; at least two)\n"
    "  --synth              build the set instead: a synthetic F16 of --preset\n"
    "                       quantized by the real llama-quantize into --formats,\n"
    "                       cached under ~/.cache/llama-roofline/quantized (no\n"
    "                       download)\n"
    "  --preset NAME        synth preset (default qwen2.5-0.5b; `synth --list`)\n"
    "  --formats LIST       formats for --synth, e.g. Q4_0,Q8_0,F16 (default: Q4_0,\n"
    "                       IQ4_NL, IQ4_XS, Q3_K_M, Q4_K_M, Q6_K, Q8_0)\n"
    "  --predict            measure no file: calibrate the ggml types the files hold\n"
    "                       (see calibrate; cached and reused) and rank each file's\n"
    "                       two-roof prediction from its tensor table, by the same\n"
    "                       rules (docs/METHOD.md \"Two roofs\"); the -n and -r below\n"
    "                       are not used\n"
    "  -p N, -n N, -r N, --timeout SEC\n"
    "                       (--n-prompt, --n-gen, --repetitions or --reps)\n"
    "                       llama-bench settings (defaults " RL_DEF_STR(RL_DEF_N_PROMPT) ", " RL_DEF_STR(RL_DEF_N_GEN) ", " RL_DEF_STR(RL_DEF_REPS) ", " RL_DEF_STR(RL_DEF_TIMEOUT_S) ")\n"
    "  --llama-bench PATH   the llama-bench binary or its directory\n"
    "  --llama-quantize PATH\n"
    "                       the llama-quantize binary or its directory (default:\n"
    "                       beside llama-bench)\n"
    "  --dir DIR            where bundle.json and report.html go (default\n"
    "                       llama-roofline-advise); the bundle is written after every\n"
    "                       llama-bench record, so Ctrl-C keeps what was measured\n"
    RL_DEF_QUIET_HELP("     ", "  ", "                       ")
    "  -h, --help           show this text\n"
    "\n"
    "exit codes: 0 advice printed (also for unknown silicon: the recipe); 1 --measure\n"
    "decoded (or --predict predicted) nothing; 2 bad input (an unknown --core, a bad\n"
    "number, fewer than two files, a quantized --plan source, -o naming an input);\n"
    "3 llama-bench or llama-quantize not found; 4 an output cannot be written or\n"
    "another llama-roofline is writing --dir; 130 interrupted (the bundle keeps what\n"
    "was measured).\n";
// clang-format on

enum {
    OPT_CORE = 256,
    OPT_LIST,
    OPT_SCALE,
    OPT_CPUINFO,
    OPT_PLAN,
    OPT_JSON,
    OPT_MD,
    OPT_MEASURE,
    OPT_SYNTH,
    OPT_PRESET,
    OPT_FORMATS,
    OPT_NP,
    OPT_NG,
    OPT_REPS,
    OPT_TIMEOUT,
    OPT_LB,
    OPT_LQ,
    OPT_DIR,
    OPT_PREDICT
};

static const struct option longopts[] = {
    {"core", required_argument, NULL, OPT_CORE},
    {"list-cores", no_argument, NULL, OPT_LIST},
    {"threads", required_argument, NULL, 't'},
    {"scale", required_argument, NULL, OPT_SCALE},
    {"cpuinfo", required_argument, NULL, OPT_CPUINFO},
    {"plan", required_argument, NULL, OPT_PLAN},
    {"json", no_argument, NULL, OPT_JSON},
    {"markdown", no_argument, NULL, OPT_MD},
    {"output", required_argument, NULL, 'o'},
    {"measure", no_argument, NULL, OPT_MEASURE},
    {"model", required_argument, NULL, 'm'},
    {"synth", no_argument, NULL, OPT_SYNTH},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"formats", required_argument, NULL, OPT_FORMATS},
    {"n-prompt", required_argument, NULL, OPT_NP},
    {"n-gen", required_argument, NULL, OPT_NG},
    {"repetitions", required_argument, NULL, OPT_REPS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"llama-bench", required_argument, NULL, OPT_LB},
    {"llama-quantize", required_argument, NULL, OPT_LQ},
    {"dir", required_argument, NULL, OPT_DIR},
    {"predict", no_argument, NULL, OPT_PREDICT},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define MAX_FORMATS 16

typedef struct {
    rl_advise_opts r; /* what advise_run.h runs */
    bool measure, help, quiet_given;
    const char *models[RL_SWEEP_MAX_MODELS];
    char formats_buf[256];
    const char *formats[MAX_FORMATS];
} opts;

static rl_status parse_formats(opts *a, const char *s, rl_error *err)
{
    rl_advise_opts *o = &a->r;
    if (strlen(s) >= sizeof a->formats_buf)
        return rl_fail(err, RL_EINPUT, "--formats: too long");
    strcpy(a->formats_buf, s);
    o->n_formats = 0;
    char *save = NULL;
    for (char *t = strtok_r(a->formats_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->n_formats >= MAX_FORMATS)
            return rl_fail(err, RL_EINPUT, "--formats: at most %d formats", MAX_FORMATS);
        for (const char *c = t; *c; c++)
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                  (*c >= '0' && *c <= '9') || *c == '_'))
                return rl_fail(err, RL_EINPUT,
                               "--formats: '%s' is not a format name (letters, digits, _)", t);
        a->formats[o->n_formats++] = t;
    }
    o->formats = a->formats;
    if (o->n_formats < 2)
        return rl_fail(err, RL_EINPUT, "--formats: give at least two formats, e.g. Q4_0,Q8_0");
    return RL_OK;
}

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    opts *a = ctx;
    rl_advise_opts *o = &a->r;
    rl_status st = RL_OK;
    if (rl_defaults_quiet_opt(c, arg, &o->wait_quiet_s, &o->retry_disturbed, &st, err)) {
        a->quiet_given = true;
        return st;
    }
    switch (c) {
    case OPT_CORE: o->core = arg; break;
    case OPT_LIST: o->list = true; break;
    case 't':
        st = rl_opt_int_list("--threads", arg, 1, 4096, o->threads, RL_SWEEP_MAX_LIST,
                             &o->n_threads, true, err);
        break;
    case OPT_SCALE: st = rl_opt_double("--scale", arg, 0, true, 10000, &o->scale, err); break;
    case OPT_CPUINFO: o->cpuinfo = arg; break;
    case OPT_PLAN: o->plan = arg; break;
    case OPT_JSON: o->json = true; break;
    case OPT_MD: o->md = true; break;
    case 'o':
        o->out = arg;
        st = rl_check_output_kind("advise", arg, RL_OUT_FILE, err);
        break;
    case OPT_MEASURE: a->measure = true; break;
    case 'm':
        if (o->n_models >= RL_SWEEP_MAX_MODELS)
            return rl_fail(err, RL_EINPUT, "at most %d models", RL_SWEEP_MAX_MODELS);
        a->models[o->n_models++] = arg;
        break;
    case OPT_SYNTH: o->synth = true; break;
    case OPT_PRESET: o->preset = arg; break;
    case OPT_FORMATS: st = parse_formats(a, arg, err); break;
    case OPT_NP: st = rl_opt_int("--n-prompt", arg, 1, 1 << 24, &o->n_prompt, err); break;
    case OPT_NG: st = rl_opt_int("--n-gen", arg, 1, 1 << 24, &o->n_gen, err); break;
    case OPT_REPS: st = rl_opt_int("--reps", arg, 1, 1000, &o->reps, err); break;
    case OPT_TIMEOUT:
        st = rl_opt_double("--timeout", arg, 1, false, 86400, &o->timeout, err);
        break;
    case OPT_LB: o->llama_bench = arg; break;
    case OPT_LQ: o->llama_quantize = arg; break;
    case OPT_DIR: o->dir = arg; break;
    case OPT_PREDICT: o->predict = true; break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

/* No input (--cpuinfo, --plan, --llama-quantize, each -m) is an output (-o, and with --measure
 * --dir's bundle.json and report.html), and no two outputs are one file: checked before
 * anything is written or built. */
static rl_status inputs_not_outputs(const opts *a, rl_error *err)
{
    const rl_advise_opts *o = &a->r;
    rl_path_arg in[3 + RL_SWEEP_MAX_MODELS] = {
        {"--cpuinfo", o->cpuinfo}, {"--plan", o->plan}, {"--llama-quantize", o->llama_quantize}};
    size_t n_in = 3;
    for (size_t i = 0; i < o->n_models; i++)
        in[n_in++] = (rl_path_arg){"-m", o->models[i]};
    char *bundle = a->measure ? rl_asprintf("%s/bundle.json", o->dir) : NULL;
    char *page = a->measure ? rl_asprintf("%s/" RL_REPORT_FILE, o->dir) : NULL;
    rl_path_arg out[] = {{"--dir", bundle}, {"--dir", page}, {"-o", o->out}};
    rl_status st = a->measure && (!bundle || !page) ? rl_fail(err, RL_EINTERNAL, "out of memory")
                                                    : rl_check_outputs(in, n_in, out, 3, err);
    free(bundle);
    free(page);
    return st;
}

static rl_status parse(int argc, char **argv, opts *a, rl_error *err)
{
    rl_advise_opts *o = &a->r;
    rl_status st = rl_opt_each(argc, argv, "t:o:m:h", longopts, on_opt, a, &a->help, err);
    if (st != RL_OK || a->help)
        return st;
    if (optind < argc)
        return rl_fail(err, RL_EINPUT,
                       "unexpected '%s': advise takes no operands (see advise --help)",
                       argv[optind]);
    if (o->json && o->md)
        return rl_fail(err, RL_EINPUT, "--json and --markdown exclude each other");
    if (o->list + (o->plan != NULL) + a->measure > 1)
        return rl_fail(err, RL_EINPUT, "--list-cores, --plan and --measure exclude each other");
    if (!a->measure && (o->n_models || o->synth))
        return rl_fail(err, RL_EINPUT, "-m and --synth go with --measure");
    if (!a->measure && o->predict)
        return rl_fail(err, RL_EINPUT,
                       "--predict goes with --measure (advise --measure --predict "
                       "--synth)");
    if (!a->measure && a->quiet_given)
        return rl_fail(err, RL_EINPUT, "--wait-quiet and --retry-disturbed go with --measure");
    if (a->measure && o->synth && o->n_models)
        return rl_fail(err, RL_EINPUT, "--synth builds the files itself: give no -m with it");
    if (!a->measure && o->n_threads > 1)
        return rl_fail(
            err, RL_EINPUT,
            "--threads: give one thread count for the table (a list goes with --measure)");
    if (a->measure && o->core)
        return rl_fail(err, RL_EINPUT, "--core names a matrix core: it does not go with --measure");
    return inputs_not_outputs(a, err);
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    opts a;
    memset(&a, 0, sizeof a);
    rl_advise_opts *o = &a.r;
    o->n_prompt = rl_defaults.n_prompt;
    o->n_gen = rl_defaults.n_gen;
    o->reps = rl_defaults.reps;
    o->timeout = rl_defaults.timeout_s;
    o->quiet = &rl_defaults.quiet;
    o->wait_quiet_s = rl_defaults.wait_quiet_s;
    o->retry_disturbed = rl_defaults.retry_disturbed;
    o->dir = "llama-roofline-advise";
    o->models = a.models;
    rl_status st = parse(argc, argv, &a, err);
    if (st != RL_OK)
        return st;
    if (a.help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (o->plan)
        return rl_advise_run_plan(o, err);
    if (a.measure && o->predict)
        return rl_advise_run_predict(o, err);
    if (a.measure)
        return rl_advise_run_measure(o, err);
    return rl_advise_run_rank(o, err);
}

const rl_command rl_cmd_advise = {
    "advise", "which quantization format for this CPU: published, or measured here", usage, run};
