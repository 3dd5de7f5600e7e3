/* SPDX-License-Identifier: MIT */
/* cmd_predict.c: `llama-roofline predict MODEL... [--bundle B]`: the decode rate a model would
 * reach on the machine a bundle measured, from the bundle's fit and the model's header (local,
 * by URL, or a synth preset planned in memory). This file reads the options, lists the
 * models, and hands each to predict.h; everything allocated is freed before run() returns. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "bundle/bundle.h"
#include "bundle/bundle_last.h"
#include "cmd/cmd.h"
#include "model/model_paths.h"
#include "model/model_spec.h"
#include "analyse/predict.h"
#include "render/predict_text.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char usage[] =
    "usage: llama-roofline predict [options] MODEL...\n"
    "\n"
    "The decode rate (tok/s) MODEL would reach on the machine of a bundle, before\n"
    "running or even downloading it: the bundle's fitted bandwidth over the model's\n"
    "bytes per token (counted as the fit counted them: streamed or resident), plus\n"
    "the KV cache's bytes at each depth. A prediction (kind: derived), with an\n"
    "interval and the caveats that apply. Same format first: a model whose GGUF label\n"
    "some fitted models share is divided into those models' own bandwidth (on few\n"
    "cores each format's kernel sets its own rate); any other into the fit over all\n"
    "models, with the other_format caveat.\n"
    "\n"
    "With a calibration in the bundle (calibrate, diagnose --calibrate), each model\n"
    "is also predicted with both roofs: its bytes per ggml type (its tensor table)\n"
    "through each type's kernel rate measured here, plus the fixed per-token cost,\n"
    "with a verdict naming the roof that binds (docs/METHOD.md \"Two roofs\").\n"
    "\n"
    "MODEL: a GGUF file or a directory of them, a URL (only its header is fetched,\n"
    "with range requests), or synth:PRESET:TYPE (a synth preset's exact shapes at\n"
    "TYPE, nothing written).\n"
    "\n"
    "options:\n"
    "  --bundle B       the bundle (bundle.json or report.html) of the machine\n"
    "                   (default: the last one `diagnose` wrote, recorded in\n"
    "                   ~/.cache/llama-roofline/last-bundle)\n"
    "  -d, --n-depth LIST\n"
    "                   context depths in tokens, 0 to 16777216, at most 16 (default\n"
    "                   0; alias --depth)\n"
    "  --preset NAME    a synth preset (repeatable; see synth --list), with --type\n"
    "  --type LIST      synth weight types for every --preset (F32, F16, BF16, Q8_0,\n"
    "                   Q4_0)\n"
    "  -t, --threads N  the thread count you will run at: a caveat when the fit's\n"
    "                   models ran best at others (1 to 4096); both roofs from the\n"
    "                   calibration at N threads when the bundle has it\n"
    "  --json           one JSON object: the fit and a prediction per model\n"
    "  --markdown       a Markdown table\n"
    "  -h, --help       show this text\n"
    "\n"
    "Interval: the model's bytes over the smallest and the largest effective\n"
    "bandwidth among the fitted models themselves, or of its format's when two or\n"
    "more share it (not a statistical confidence interval).\n"
    "\n"
    "examples:\n"
    "  llama-roofline predict --preset qwen2.5-1.5b --type Q8_0,Q4_0 --depth 0,4096\n"
    "  llama-roofline predict \\\n"
    "      https://huggingface.co/ORG/REPO/resolve/main/model-Q4_K_M.gguf\n"
    "  llama-roofline predict --bundle out/bundle.json models/ --json\n"
    "\n"
    "exit codes: 0 every model predicted; 2 bad input (no bundle or no fit in it, a\n"
    "model that cannot be read: the others are still predicted); 4 the output could\n"
    "not be written; 5 internal error; 130 interrupted.\n";

enum { OPT_BUNDLE = 256, OPT_DEPTH, OPT_PRESET, OPT_TYPE, OPT_JSON, OPT_MD };

static const struct option longopts[] = {
    {"bundle", required_argument, NULL, OPT_BUNDLE},
    {"n-depth", required_argument, NULL, OPT_DEPTH},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"type", required_argument, NULL, OPT_TYPE},
    {"threads", required_argument, NULL, 't'},
    {"json", no_argument, NULL, OPT_JSON},
    {"markdown", no_argument, NULL, OPT_MD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *bundle;
    uint64_t depths[RL_PRED_MAX_DEPTHS];
    size_t n_depths;
    const char *presets[RL_PRED_MAX_MODELS];
    size_t n_presets;
    const char *types;
    int threads;
    bool json, markdown, help;
} pred_args;

/* What the options fill: the arguments and the --depth list, read into ints. */
typedef struct {
    pred_args *a;
    int depths[RL_PRED_MAX_DEPTHS], nd;
} pred_parse;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    pred_parse *p = ctx;
    pred_args *a = p->a;
    rl_status st = RL_OK;
    switch (c) {
    case OPT_BUNDLE: a->bundle = arg; break;
    case OPT_DEPTH:
        st = rl_opt_int_list("--depth", arg, 0, RL_PRED_MAX_DEPTH, p->depths, RL_PRED_MAX_DEPTHS,
                             &p->nd, true, err);
        break;
    case OPT_PRESET:
        if (a->n_presets >= RL_PRED_MAX_MODELS)
            return rl_fail(err, RL_EINPUT, "--preset: at most %d", RL_PRED_MAX_MODELS);
        a->presets[a->n_presets++] = arg;
        break;
    case OPT_TYPE: a->types = arg; break;
    case 't': st = rl_opt_int("--threads", arg, 1, 4096, &a->threads, err); break;
    case OPT_JSON: a->json = true; break;
    case OPT_MD: a->markdown = true; break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

static rl_status parse(int argc, char **argv, pred_args *a, rl_error *err)
{
    pred_parse p = {a, {0}, 0};
    rl_status st = rl_opt_each(argc, argv, "t:h", longopts, on_opt, &p, &a->help, err);
    if (st != RL_OK || a->help)
        return st;
    if (a->json && a->markdown)
        return rl_fail(err, RL_EINPUT, "--json and --markdown: choose one");
    if (a->n_presets && !a->types)
        return rl_fail(err, RL_EINPUT, "--preset needs --type (one or more of %s, comma-separated)",
                       "F32, F16, BF16, Q8_0, Q4_0");
    if (a->types && !a->n_presets)
        return rl_fail(err, RL_EINPUT, "--type applies to --preset: give a --preset");
    if (p.nd == 0)
        p.depths[p.nd++] = 0;
    for (int i = 0; i < p.nd; i++)
        a->depths[i] = (uint64_t)p.depths[i];
    a->n_depths = (size_t)p.nd;
    if (optind >= argc && !a->n_presets)
        return rl_fail(err, RL_EINPUT,
                       "nothing to predict: give a GGUF file, a URL, synth:PRESET:TYPE or "
                       "--preset with --type (see llama-roofline predict --help)");
    return RL_OK;
}

/* Every model named: operands (directories expanded), then each preset at each type. */
static rl_status list_models(int argc, char **argv, const pred_args *a, rl_model_paths *l,
                             rl_error *pending, rl_status *worst, rl_error *err)
{
    for (int i = optind; i < argc; i++) {
        rl_error e = {RL_OK, ""};
        size_t before = l->n;
        rl_status s = strncmp(argv[i], "synth:", 6) == 0 ? rl_model_paths_add_file(l, argv[i], &e)
                                                         : rl_model_paths_add(l, argv[i], &e);
        struct stat sb;
        if (s == RL_OK && l->n == before && stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            s = rl_fail(&e, RL_EINPUT,
                        "%s: a directory with no .gguf files in it (give a model file or a "
                        "directory that holds some)",
                        argv[i]);
        if (s == RL_EINTERNAL) {
            *err = e;
            return s;
        }
        if (s != RL_OK) {
            if (pending->msg[0])
                rl_tty_printf(stderr, "llama-roofline predict: error: %s\n", pending->msg);
            *pending = e;
            *worst = RL_EINPUT;
        }
    }
    for (size_t i = 0; i < a->n_presets; i++) {
        const char *t = a->types;
        while (*t) {
            size_t n = strcspn(t, ",");
            char *spec = rl_asprintf("synth:%s:%.*s", a->presets[i], (int)n, t);
            rl_status s = spec ? rl_model_paths_add_file(l, spec, err)
                               : rl_fail(err, RL_EINTERNAL, "out of memory");
            free(spec);
            if (s != RL_OK)
                return s;
            t += n + (t[n] == ',');
        }
    }
    if (l->n > RL_PRED_MAX_MODELS)
        return rl_fail(err, RL_EINPUT, "%zu models: give at most %d", l->n, RL_PRED_MAX_MODELS);
    return RL_OK;
}

static rl_status output(const pred_args *a, const rl_pred_fit *f, const char *bundle,
                        const rl_prediction *p, size_t n, rl_error *err)
{
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        bool ok = o && rl_json_add_str(o, "kind", "derived") &&
                  rl_json_add_str(o, "bundle", bundle) &&
                  rl_json_attach(o, "fit", rl_pred_fit_to_json(f));
        cJSON *arr = ok ? cJSON_AddArrayToObject(o, "predictions") : NULL;
        ok = ok && arr;
        for (size_t i = 0; ok && i < n; i++) {
            cJSON *x = rl_prediction_to_json(&p[i]);
            ok = x && cJSON_AddItemToArray(arr, x);
            if (!ok)
                cJSON_Delete(x);
        }
        rl_status st = ok ? rl_json_to_stdout(o, err) : rl_fail(err, RL_EINTERNAL, "out of memory");
        cJSON_Delete(o);
        if (st != RL_OK)
            return st;
    } else if (a->markdown) {
        rl_prediction_markdown(stdout, f, bundle, p, n);
    } else {
        rl_prediction_print(stdout, f, bundle, p, n);
    }
    return RL_OK; /* a failed write to stdout: main.c's one check */
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    pred_args a = {0};
    rl_status st = parse(argc, argv, &a, err);
    if (st != RL_OK || a.help) {
        if (st == RL_OK)
            rl_tty_puts(stdout, usage);
        return st;
    }
    char *dflt = NULL;
    if (!a.bundle && (st = rl_bundle_last(&dflt, err)) != RL_OK)
        return st;
    const char *bpath = a.bundle ? a.bundle : dflt;
    cJSON *b = NULL;
    rl_pred_fit f;
    st = rl_bundle_load(bpath, &b, err);
    if (st != RL_OK && dflt && access(dflt, F_OK) != 0)
        st = rl_fail(err, RL_EINPUT,
                     "the last bundle diagnose wrote here, %s, is gone: run `llama-roofline "
                     "diagnose` again, or pass --bundle BUNDLE",
                     dflt);
    if (st == RL_OK)
        st = rl_pred_fit_from_bundle(b, bpath, &f, err);
    if (st == RL_OK && a.threads) /* both roofs at the thread count asked for, when calibrated */
        rl_pred_roofs_at(b, &f, a.threads);
    cJSON_Delete(b);
    rl_model_paths l = {0};
    rl_error pending = {RL_OK, ""};
    rl_status worst = RL_OK;
    if (st == RL_OK)
        st = list_models(argc, argv, &a, &l, &pending, &worst, err);
    rl_prediction *p = st == RL_OK && l.n ? rl_calloc(l.n, sizeof *p) : NULL;
    if (st == RL_OK && l.n && !p)
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t n = 0;
    for (size_t i = 0; st == RL_OK && i < l.n; i++) {
        if (rl_interrupted) {
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
            break;
        }
        rl_gguf_model m;
        rl_error e = {RL_OK, ""};
        rl_status s = rl_model_spec_load(l.paths[i], stderr, &m, &e);
        if (s == RL_OK)
            s = rl_predict(&f, &m, l.paths[i], a.depths, a.n_depths, a.threads, &p[n], &e);
        rl_gguf_model_free(&m);
        if (s == RL_OK) {
            n++;
        } else if (s == RL_EINTERNAL || s == RL_EINTERRUPTED) {
            *err = e;
            st = s;
        } else {
            if (pending.msg[0])
                rl_tty_printf(stderr, "llama-roofline predict: error: %s\n", pending.msg);
            pending = e;
            worst = RL_EINPUT;
        }
    }
    if (st == RL_OK && n > 0)
        st = output(&a, &f, bpath, p, n, err);
    if (st == RL_OK && worst != RL_OK) {
        *err = pending;
        st = worst;
    } else if (pending.msg[0]) {
        rl_tty_printf(stderr, "llama-roofline predict: error: %s\n", pending.msg);
    }
    for (size_t i = 0; i < n; i++)
        rl_prediction_free(&p[i]);
    free(p);
    rl_model_paths_free(&l);
    free(dflt);
    return st;
}

const rl_command rl_cmd_predict = {
    "predict",
    "a model's decode tok/s on a measured machine (file, URL or synth)",
    usage,
    run,
};
