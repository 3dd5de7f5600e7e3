/* cmd_synth.c: `llama-roofline synth`: write a random-weight GGUF model with the exact tensor
 * table and metadata of a real model (or a tiny test model) that llama.cpp loads and runs.
 * Parses flags, builds a rl_synth_plan (synth.h), writes it, prints a one-line summary to stdout.
 * Allocates nothing that outlives the call. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "rl_util.h"
#include "synth.h"
#include "synth_write.h"

static const char usage[] =
    "usage: llama-roofline synth --preset NAME [options] -o OUT.gguf\n"
    "       llama-roofline synth --list\n"
    "\n"
    "Write a GGUF model with random weights and the exact tensor names, shapes and metadata of\n"
    "a real model, which llama.cpp loads and runs: benchmarks with no model download. Weights\n"
    "are uniform in [-0.02, 0.02], norms 1.0; the same seed gives the same bytes.\n"
    "\n"
    "options:\n"
    "  --preset NAME     tiny, tiny-moe, qwen2.5-0.5b, qwen2.5-1.5b, llama-3.2-1b\n"
    "  --list            print the presets with their shapes and sizes, then exit\n"
    "  -o, --output OUT  the GGUF file to write (a temporary .OUT.XXXXXX beside it, renamed\n"
    "                    into place when complete); a pipe or device is written directly\n"
    "  --type TYPE       type of the weight matrices and token_embd: F32, F16 (default),\n"
    "                    BF16, Q8_0, Q4_0; norms, biases and the MoE router stay F32\n"
    "  --tied            no output.weight: the token embedding is the output head\n"
    "  --untied          a separate output.weight (the preset decides by default)\n"
    "  --seed N          PRNG seed (default 0)\n"
    "  --n-layer N  --n-embd N  --n-ff N  --n-head N  --n-head-kv N  --n-vocab N\n"
    "  --n-ctx N  --n-expert N  --n-expert-used N\n"
    "                    override one shape of the preset (--n-expert needs a llama preset;\n"
    "                    --n-expert-used defaults to 2, at most --n-expert)\n"
    "  -q, --quiet       no planned-size line, progress or summary (errors still print)\n"
    "\n"
    "examples:\n"
    "  llama-roofline synth --preset tiny -o /tmp/tiny.gguf\n"
    "  llama-roofline synth --preset qwen2.5-0.5b --type Q8_0 --seed 7 -o /tmp/q.gguf\n"
    "  llama-roofline synth --preset llama-3.2-1b --n-layer 2 --untied -o /tmp/l.gguf\n"
    "\n"
    "exit codes: 0 written, 2 bad input (unknown preset or type, bad shape, missing -o),\n"
    "4 the output could not be written (not enough free space, a failed write; the partial\n"
    "file is removed), 5 internal error, 130 interrupted (the partial file is removed)\n";

static const char *human_bytes(uint64_t b, char *buf, size_t cap)
{
    if (b >= 1000000000ull)
        snprintf(buf, cap, "%.2f GB", (double)b / 1e9);
    else if (b >= 1000000ull)
        snprintf(buf, cap, "%.1f MB", (double)b / 1e6);
    else
        snprintf(buf, cap, "%.1f kB", (double)b / 1e3);
    return buf;
}

static const char *human_count(uint64_t n, char *buf, size_t cap)
{
    if (n >= 1000000000ull)
        snprintf(buf, cap, "%.2fB", (double)n / 1e9);
    else if (n >= 1000000ull)
        snprintf(buf, cap, "%.1fM", (double)n / 1e6);
    else
        snprintf(buf, cap, "%.1fK", (double)n / 1e3);
    return buf;
}

static rl_status list_presets(rl_error *err)
{
    printf("%-13s %-6s %6s %6s %5s %4s %6s %7s %7s %-6s %8s %10s\n", "preset", "arch", "layers",
           "n_embd", "heads", "kv", "n_ff", "vocab", "experts", "head", "params", "F16 size");
    for (size_t i = 0; i < rl_synth_preset_count(); i++) {
        const rl_synth_preset *pr = rl_synth_preset_at(i);
        const rl_synth_config *c = &pr->cfg;
        rl_synth_plan *p = NULL;
        rl_status st = rl_synth_plan_build(c, &p, err);
        if (st)
            return st;
        char experts[32], params[32], size[32];
        if (c->n_expert)
            snprintf(experts, sizeof experts, "%llu/%llu", (unsigned long long)c->n_expert_used,
                     (unsigned long long)c->n_expert);
        else
            snprintf(experts, sizeof experts, "-");
        printf("%-13s %-6s %6llu %6llu %5llu %4llu %6llu %7llu %7s %-6s %8s %10s\n", pr->name,
               c->arch == SYNTH_ARCH_QWEN2 ? "qwen2" : "llama", (unsigned long long)c->n_layer,
               (unsigned long long)c->n_embd, (unsigned long long)c->n_head,
               (unsigned long long)c->n_head_kv, (unsigned long long)c->n_ff,
               (unsigned long long)c->n_vocab, experts, c->tied ? "tied" : "untied",
               human_count(p->n_params, params, sizeof params),
               human_bytes(p->file_size, size, sizeof size));
        rl_synth_plan_free(p);
    }
    printf("\nsizes are for --type F16; every preset also takes F32, BF16, Q8_0 and Q4_0.\n");
    return RL_OK;
}

/* Shape overrides: flag name and the config field it sets. */
typedef struct {
    const char *flag;
    size_t offset;
} shape_flag;

static const shape_flag shape_flags[] = {
    {"--n-layer", offsetof(rl_synth_config, n_layer)},
    {"--n-embd", offsetof(rl_synth_config, n_embd)},
    {"--n-ff", offsetof(rl_synth_config, n_ff)},
    {"--n-head", offsetof(rl_synth_config, n_head)},
    {"--n-head-kv", offsetof(rl_synth_config, n_head_kv)},
    {"--n-vocab", offsetof(rl_synth_config, n_vocab)},
    {"--n-ctx", offsetof(rl_synth_config, n_ctx)},
    {"--n-expert", offsetof(rl_synth_config, n_expert)},
    {"--n-expert-used", offsetof(rl_synth_config, n_expert_used)},
};
#define N_SHAPE_FLAGS (sizeof shape_flags / sizeof shape_flags[0])

static size_t shape_index(const char *flag)
{
    size_t k = 0;
    while (k < N_SHAPE_FLAGS && strcmp(shape_flags[k].flag, flag) != 0)
        k++;
    return k;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    const char *preset = NULL, *type = NULL, *out = NULL, *seed = NULL;
    const char *shape_val[N_SHAPE_FLAGS] = {0};
    int tied = -1; /* -1: as the preset says */
    bool list = false, quiet = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char flag[64];
        /* --flag=value or --flag value */
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof flag) {
            memcpy(flag, a, (size_t)(eq - a));
            flag[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", a);
        }
        if (strcmp(flag, "--list") == 0 && !val) {
            list = true;
            continue;
        }
        if (strcmp(flag, "--tied") == 0 && !val) {
            tied = 1;
            continue;
        }
        if (strcmp(flag, "--untied") == 0 && !val) {
            tied = 0;
            continue;
        }
        if ((strcmp(flag, "-q") == 0 || strcmp(flag, "--quiet") == 0) && !val) {
            quiet = true;
            continue;
        }
        const char **dst = NULL;
        if (strcmp(flag, "--preset") == 0)
            dst = &preset;
        else if (strcmp(flag, "--type") == 0)
            dst = &type;
        else if (strcmp(flag, "-o") == 0 || strcmp(flag, "--output") == 0)
            dst = &out;
        else if (strcmp(flag, "--seed") == 0)
            dst = &seed;
        for (size_t k = 0; !dst && k < N_SHAPE_FLAGS; k++)
            if (strcmp(flag, shape_flags[k].flag) == 0)
                dst = &shape_val[k];
        if (!dst)
            return rl_fail(err, RL_EINPUT, "unknown option '%s' (see llama-roofline synth --help)",
                           a);
        if (!val) {
            if (i + 1 >= argc)
                return rl_fail(err, RL_EINPUT, "%s needs a value", flag);
            val = argv[++i];
        }
        *dst = val;
    }

    if (list)
        return list_presets(err);
    if (!preset)
        return rl_fail(err, RL_EINPUT, "--preset is required (one of %s; see synth --list)",
                       rl_synth_preset_names());
    const rl_synth_preset *pr = rl_synth_preset_find(preset);
    if (!pr)
        return rl_fail(err, RL_EINPUT, "unknown preset '%s' (valid: %s)", preset,
                       rl_synth_preset_names());
    if (!out || !*out)
        return rl_fail(err, RL_EINPUT, "-o OUT.gguf is required");

    rl_synth_config cfg = pr->cfg;
    if (type) {
        int t = rl_synth_type_by_name(type);
        if (t < 0)
            return rl_fail(err, RL_EINPUT, "unknown --type '%s' (valid: %s)", type,
                           rl_synth_type_names());
        cfg.type = (uint32_t)t;
    }
    if (tied >= 0)
        cfg.tied = tied == 1;
    if (seed && !rl_parse_u64(seed, &cfg.seed))
        return rl_fail(err, RL_EINPUT, "--seed: expected a whole number, got '%s'", seed);
    for (size_t k = 0; k < N_SHAPE_FLAGS; k++) {
        if (!shape_val[k])
            continue;
        uint64_t v;
        if (!rl_parse_u64(shape_val[k], &v))
            return rl_fail(err, RL_EINPUT, "%s: expected a whole number, got '%s'",
                           shape_flags[k].flag, shape_val[k]);
        memcpy((char *)&cfg + shape_flags[k].offset, &v, sizeof v);
    }
    /* --n-expert alone: route to 2 experts (or all of them, when fewer), or none when 0 */
    if (shape_val[shape_index("--n-expert")] && !shape_val[shape_index("--n-expert-used")])
        cfg.n_expert_used = cfg.n_expert == 0 ? 0 : (cfg.n_expert < 2 ? cfg.n_expert : 2);

    rl_synth_plan *p = NULL;
    rl_status st = rl_synth_plan_build(&cfg, &p, err);
    if (st)
        return st;
    rl_synth_write_opts wo = {.progress = !quiet, .note = quiet ? NULL : stderr};
    st = rl_synth_write(p, out, &wo, err);
    if (st == RL_OK && !quiet) {
        char params[32], size[32];
        printf("wrote %s: synth %s, %s, %zu tensors, %s params, %s (%llu bytes), seed %llu\n", out,
               cfg.preset, rl_synth_type_name(cfg.type), p->n_tensors,
               human_count(p->n_params, params, sizeof params),
               human_bytes(p->file_size, size, sizeof size), (unsigned long long)p->file_size,
               (unsigned long long)cfg.seed);
    }
    rl_synth_plan_free(p);
    return st;
}

const rl_command rl_cmd_synth = {
    "synth", "write a random-weight GGUF model of a real model's shape", usage, run};
