/* cmd_advise.c: `llama-roofline advise`: options, then one of --list-cores, --plan, --measure
 * (sweep.h, then the measured advice into the bundle and the report) or the ranking from the
 * study's matrix for the cores detected here (cpu_detect.h, advise.h). Everything allocated
 * here is freed before run() returns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "bundle.h"
#include "cmd.h"
#include "gguf_model.h"
#include "lbench.h"
#include "report.h"
#include "rl_file.h"
#include "rl_json.h"
#include "rl_opt.h"
#include "rl_text.h"
#include "rl_util.h"
#include "rl_version.h"
#include "sweep.h"

static const char usage[] =
    "usage: llama-roofline advise [--core NAME] [--threads N] [--scale B] [--json|--markdown]\n"
    "                             [-o FILE]\n"
    "       llama-roofline advise --list-cores\n"
    "       llama-roofline advise --plan F16.gguf\n"
    "       llama-roofline advise --measure (-m GGUF -m GGUF... | --synth) [options]\n"
    "\n"
    "Which quantization format to run on this CPU. Without --measure nothing is run: the\n"
    "answer comes from a published format study (data/format_matrix.csv, compiled in): one\n"
    "table per core x thread count x model scale, never averaged across cores, with the\n"
    "evidence level for this machine (the machine measured, the same core design, a close\n"
    "relative labelled EXTRAPOLATED, or nothing: then only the recipe for measuring here).\n"
    "Formats within 5% are tied; speed is compared at matched bytes (the spread inside the\n"
    "largest group of formats streaming within 3% of the same bytes).\n"
    "\n"
    "options:\n"
    "  --core NAME          use this matrix core instead of detecting (see --list-cores)\n"
    "  --list-cores         the cores the matrix holds, with scales and thread counts\n"
    "  --threads N          the table at N threads (nearest measured); with --measure a list\n"
    "                       of thread counts, e.g. 1,2,4 (default: run's default sweep)\n"
    "  --scale B            model size in billions of parameters (nearest measured; default\n"
    "                       the smallest)\n"
    "  --cpuinfo FILE       detect from a saved /proc/cpuinfo instead of this machine's\n"
    "  --plan GGUF          the formats worth comparing from this F16/BF16 source, as\n"
    "                       llama-quantize commands (an already-quantized source: exit 2)\n"
    "  --json               JSON on stdout: {detection, advice: [one block per core, ranking\n"
    "                       fastest first]}\n"
    "  --markdown           Markdown (for an issue comment) instead of text\n"
    "  -o, --output FILE    write the text, JSON or Markdown to FILE instead of stdout\n"
    "\n"
    "measuring here (--measure):\n"
    "  -m, --model GGUF     a file to measure (repeat; at least two)\n"
    "  --synth              build the set instead: a synthetic F16 of --preset quantized by\n"
    "                       the real llama-quantize into --formats, cached under\n"
    "                       ~/.cache/llama-roofline/quantized (no download)\n"
    "  --preset NAME        synth preset (default qwen2.5-0.5b; `synth --list`)\n"
    "  --formats LIST       formats for --synth, e.g. Q4_0,Q8_0,F16 (default: Q4_0, IQ4_NL,\n"
    "                       IQ4_XS, Q3_K_M, Q4_K_M, Q6_K, Q8_0)\n"
    "  --n-prompt N, --n-gen N, --reps N, --timeout SEC\n"
    "                       llama-bench settings (defaults 128, 128, 3, 3600)\n"
    "  --llama-bench PATH   the llama-bench binary or its directory\n"
    "  --llama-quantize PATH  the llama-quantize binary or its directory (default: beside\n"
    "                       llama-bench)\n"
    "  --dir DIR            where bundle.json and report.html go (default\n"
    "                       llama-roofline-advise); the bundle is written after every\n"
    "                       llama-bench record, so Ctrl-C keeps what was measured\n"
    "  -h, --help           show this text\n"
    "\n"
    "exit codes: 0 advice printed (also for unknown silicon: the recipe); 1 --measure decoded\n"
    "nothing; 2 bad input (an unknown --core, a bad number, fewer than two files, a quantized\n"
    "--plan source); 3 llama-bench or llama-quantize not found; 4 an output cannot be written;\n"
    "130 interrupted (the bundle keeps what was measured).\n";

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
    OPT_DIR
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
    {"reps", required_argument, NULL, OPT_REPS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"llama-bench", required_argument, NULL, OPT_LB},
    {"llama-quantize", required_argument, NULL, OPT_LQ},
    {"dir", required_argument, NULL, OPT_DIR},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define MAX_FORMATS 16

typedef struct {
    const char *core, *cpuinfo, *plan, *out, *preset, *llama_bench, *llama_quantize, *dir;
    bool list, json, md, measure, synth, help;
    int threads[RL_SWEEP_MAX_LIST], n_threads;
    double scale;
    const char *models[RL_SWEEP_MAX_MODELS];
    size_t n_models;
    char formats_buf[256];
    const char *formats[MAX_FORMATS];
    int n_formats;
    int n_prompt, n_gen, reps;
    double timeout;
} opts;

static rl_status parse_formats(opts *o, const char *s, rl_error *err)
{
    if (strlen(s) >= sizeof o->formats_buf)
        return rl_fail(err, RL_EINPUT, "--formats: too long");
    strcpy(o->formats_buf, s);
    o->n_formats = 0;
    char *save = NULL;
    for (char *t = strtok_r(o->formats_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->n_formats >= MAX_FORMATS)
            return rl_fail(err, RL_EINPUT, "--formats: at most %d formats", MAX_FORMATS);
        for (const char *c = t; *c; c++)
            if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                  (*c >= '0' && *c <= '9') || *c == '_'))
                return rl_fail(err, RL_EINPUT,
                               "--formats: '%s' is not a format name (letters, digits, _)", t);
        o->formats[o->n_formats++] = t;
    }
    if (o->n_formats < 2)
        return rl_fail(err, RL_EINPUT, "--formats: give at least two formats, e.g. Q4_0,Q8_0");
    return RL_OK;
}

static rl_status parse(int argc, char **argv, opts *o, rl_error *err)
{
    rl_opt_begin();
    int c;
    while ((c = rl_getopt(argc, argv, "t:o:m:h", longopts, err)) != -1) {
        rl_status st = RL_OK;
        switch (c) {
        case RL_OPT_ERROR: return RL_EINPUT;
        case 'h': o->help = true; return RL_OK;
        case OPT_CORE: o->core = optarg; break;
        case OPT_LIST: o->list = true; break;
        case 't':
            st = rl_opt_int_list("--threads", optarg, 1, 4096, o->threads, RL_SWEEP_MAX_LIST,
                                 &o->n_threads, true, err);
            break;
        case OPT_SCALE:
            st = rl_opt_double("--scale", optarg, 0, true, 10000, &o->scale, err);
            break;
        case OPT_CPUINFO: o->cpuinfo = optarg; break;
        case OPT_PLAN: o->plan = optarg; break;
        case OPT_JSON: o->json = true; break;
        case OPT_MD: o->md = true; break;
        case 'o': o->out = optarg; break;
        case OPT_MEASURE: o->measure = true; break;
        case 'm':
            if (o->n_models >= RL_SWEEP_MAX_MODELS)
                return rl_fail(err, RL_EINPUT, "at most %d models", RL_SWEEP_MAX_MODELS);
            o->models[o->n_models++] = optarg;
            break;
        case OPT_SYNTH: o->synth = true; break;
        case OPT_PRESET: o->preset = optarg; break;
        case OPT_FORMATS: st = parse_formats(o, optarg, err); break;
        case OPT_NP: st = rl_opt_int("--n-prompt", optarg, 1, 1 << 24, &o->n_prompt, err); break;
        case OPT_NG: st = rl_opt_int("--n-gen", optarg, 1, 1 << 24, &o->n_gen, err); break;
        case OPT_REPS: st = rl_opt_int("--reps", optarg, 1, 1000, &o->reps, err); break;
        case OPT_TIMEOUT:
            st = rl_opt_double("--timeout", optarg, 1, false, 86400, &o->timeout, err);
            break;
        case OPT_LB: o->llama_bench = optarg; break;
        case OPT_LQ: o->llama_quantize = optarg; break;
        case OPT_DIR: o->dir = optarg; break;
        default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
        }
        if (st != RL_OK)
            return st;
    }
    if (optind < argc)
        return rl_fail(err, RL_EINPUT,
                       "unexpected '%s': advise takes no operands (see advise --help)",
                       argv[optind]);
    if (o->json && o->md)
        return rl_fail(err, RL_EINPUT, "--json and --markdown exclude each other");
    if (o->list + (o->plan != NULL) + o->measure > 1)
        return rl_fail(err, RL_EINPUT, "--list-cores, --plan and --measure exclude each other");
    if (!o->measure && (o->n_models || o->synth))
        return rl_fail(err, RL_EINPUT, "-m and --synth go with --measure");
    if (o->measure && o->synth && o->n_models)
        return rl_fail(err, RL_EINPUT, "--synth builds the files itself: give no -m with it");
    if (!o->measure && o->n_threads > 1)
        return rl_fail(
            err, RL_EINPUT,
            "--threads: give one thread count for the table (a list goes with --measure)");
    if (o->measure && o->core)
        return rl_fail(err, RL_EINPUT, "--core names a matrix core: it does not go with --measure");
    return RL_OK;
}

/* Write text to -o FILE (atomically) or stdout. */
static rl_status emit(const opts *o, const char *text, rl_error *err)
{
    if (!text)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    if (o->out && strcmp(o->out, "-") != 0)
        return rl_write_file(o->out, text, strlen(text), err);
    fputs(text, stdout);
    return RL_OK;
}

static rl_status emit_json(const opts *o, cJSON *j, rl_error *err)
{
    char *text = j ? rl_json_print(j) : NULL;
    rl_sbuf b = {0};
    if (text) {
        rl_sbuf_printf(&b, "%s\n", text);
        free(text);
    }
    char *t = rl_sbuf_take(&b);
    rl_status st = emit(o, t, err);
    free(t);
    return st;
}

static rl_status do_plan(const opts *o, rl_error *err)
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

static rl_status do_rank(const opts *o, rl_error *err)
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

static rl_status do_measure(opts *o, rl_error *err)
{
    rl_advise_set set = {0};
    rl_status st = RL_OK;
    if (o->synth) {
        char *bench = NULL, *quant = NULL;
        st = rl_lbench_find(o->llama_bench, &bench, err);
        if (st == RL_OK)
            st = rl_advise_find_quantize(o->llama_quantize, bench, &quant, err);
        if (st == RL_OK) {
            const char *const *fm = o->n_formats ? o->formats : rl_advise_plan_formats;
            int nf = o->n_formats ? o->n_formats : RL_ADV_PLAN_N;
            st = rl_advise_synth_set(o->preset ? o->preset : RL_ADV_SYNTH_PRESET, fm, nf, quant,
                                     &set, err);
        }
        free(bench);
        free(quant);
        for (int i = 0; st == RL_OK && i < set.n; i++)
            o->models[o->n_models++] = set.paths[i];
    }
    if (st == RL_OK && o->n_models == 0)
        st = rl_fail(err, RL_EINPUT,
                     "--measure needs files: -m A.gguf -m B.gguf, or --synth to build them");
    else if (st == RL_OK && o->n_models < 2)
        st = rl_fail(err, RL_EINPUT,
                     "--measure needs at least two files to compare. One file has no ranking.");
    if (st != RL_OK) {
        rl_advise_set_free(&set);
        return st;
    }
    rl_sweep_opts so = {0};
    so.command = "advise";
    so.argv = rl_opt_typed(&so.argc);
    so.models = o->models;
    so.n_models = o->n_models;
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
    cJSON *bundle = NULL;
    st = rl_sweep_execute(&so, &bundle, err);
    rl_advise_set_free(&set);
    if (!bundle)
        return st;
    rl_cpu_info cpu;
    rl_error de;
    rl_cpu_detect_file(o->cpuinfo, &cpu, &de);
    rl_error ae = {RL_OK, ""};
    rl_status ast = rl_advise_bundle(bundle, cpu.cpu, &ae);
    char *path = rl_asprintf("%s/bundle.json", o->dir);
    char *rpath = rl_asprintf("%s/" RL_REPORT_FILE, o->dir);
    rl_error we = {RL_OK, ""};
    rl_status wst = path && rpath ? rl_bundle_write(bundle, path, &we)
                                  : rl_fail(&we, RL_EINTERNAL, "out of memory");
    if (wst == RL_OK)
        wst = rl_report_write_html(bundle, rpath, &we);
    rl_status ost = RL_OK;
    rl_error oe = {RL_OK, ""};
    if (o->json) {
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
        fprintf(o->json || (o->out && strcmp(o->out, "-")) ? stderr : stdout,
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
        *err = ae;
        return ast;
    }
    return RL_OK;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    opts o;
    memset(&o, 0, sizeof o);
    o.n_prompt = 128;
    o.n_gen = 128;
    o.reps = 3;
    o.timeout = 3600;
    o.dir = "llama-roofline-advise";
    rl_status st = parse(argc, argv, &o, err);
    if (st != RL_OK)
        return st;
    if (o.help) {
        fputs(usage, stdout);
        return RL_OK;
    }
    if (o.plan)
        return do_plan(&o, err);
    if (o.measure)
        return do_measure(&o, err);
    return do_rank(&o, err);
}

const rl_command rl_cmd_advise = {
    "advise", "which quantization format for this CPU: published evidence, or measured here", usage,
    run};
