/* SPDX-License-Identifier: MIT */
/* cmd_synth.c: `llama-roofline synth`: write a random-weight GGUF model with the exact tensor
 * table and metadata of a real model (or a tiny test model) that llama.cpp loads and runs.
 * Options (rl_opt), one plan (synth.h) written by rl_synth_write (synth_write.h), and the
 * printing: the planned size on stderr before writing, a one-line summary on stdout after.
 * Allocates nothing that outlives the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/synth.h"
#include "model/synth_write.h"

static const char usage[] =
    "usage: llama-roofline synth --preset NAME [options] -o OUT.gguf\n"
    "       llama-roofline synth --list\n"
    "\n"
    "Write a GGUF model with random weights and the exact tensor names, shapes and\n"
    "metadata of a real model, which llama.cpp loads and runs: benchmarks with no\n"
    "model download. Weights are uniform in [-0.02, 0.02], norms 1.0; the same seed\n"
    "gives the same bytes.\n"
    "\n"
    "options:\n"
    "  --preset NAME     tiny, tiny-moe, qwen2.5-0.5b, qwen2.5-1.5b, llama-3.2-1b\n"
    "  --list            print the presets with their shapes and sizes, then exit\n"
    "  -o, --output OUT  the GGUF file to write (a temporary .OUT.XXXXXX beside it,\n"
    "                    renamed into place when complete); a pipe or device is\n"
    "                    written directly\n"
    "  --type TYPE       type of the weight matrices and token_embd: F32, F16\n"
    "                    (default), BF16, Q8_0, Q4_0; norms, biases and the MoE\n"
    "                    router stay F32\n"
    "  --tied            no output.weight: the token embedding is the output head\n"
    "  --untied          a separate output.weight (the preset decides by default)\n"
    "  --seed N          PRNG seed, 0 to 18446744073709551615 (default 0)\n"
    "  --n-layer N (1-512)  --n-embd N  --n-ff N  --n-ctx N (1-4294967295)\n"
    "  --n-head N  --n-head-kv N (1-1024)  --n-vocab N (259-4194304)\n"
    "  --n-expert N (0 or 2-1024)  --n-expert-used N (0-1024)\n"
    "                    override one shape of the preset (--n-expert needs a llama\n"
    "                    preset; --n-expert-used defaults to 2, at most --n-expert)\n"
    "  -q, --quiet       no planned-size line, progress or summary (errors still\n"
    "                    print)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Numbers are plain decimal digits (no sign, spaces or hex). Before writing, the\n"
    "planned size is printed on stderr and checked against the free space of the\n"
    "target's file system; a model that does not fit is refused before any byte is\n"
    "written.\n"
    "\n"
    "examples:\n"
    "  llama-roofline synth --preset tiny -o /tmp/tiny.gguf\n"
    "  llama-roofline synth --preset qwen2.5-0.5b --type Q8_0 --seed 7 -o /tmp/q.gguf\n"
    "  llama-roofline synth --preset llama-3.2-1b --n-layer 2 --untied -o /tmp/l.gguf\n"
    "\n"
    "exit codes: 0 written, 2 bad input (unknown preset, type or option, a bad number\n"
    "or shape, sizes beyond 2^63 - 1 bytes, missing -o), 4 the output could not be\n"
    "written (not enough free space, a failed write; the partial file is removed), 5\n"
    "internal error, 130 interrupted (the partial file is removed)\n";

#define UNSET UINT64_MAX /* a shape option not given (no shape reaches it) */

typedef struct {
    const rl_synth_preset *preset;
    const char *out;
    int type, tied; /* -1: as the preset says */
    bool list, quiet, help, have_seed;
    uint64_t seed;
    rl_synth_config shape; /* the --n-* options given; UNSET elsewhere */
} synth_args;

enum { OPT_PRESET = 256, OPT_LIST, OPT_TYPE, OPT_TIED, OPT_UNTIED, OPT_SEED, OPT_N_LAYER };
enum { OPT_N_EMBD = OPT_N_LAYER + 1, OPT_N_FF, OPT_N_HEAD, OPT_N_HEAD_KV, OPT_N_VOCAB, OPT_N_CTX };
enum { OPT_N_EXPERT = OPT_N_CTX + 1, OPT_N_EXPERT_USED };

static const struct option longopts[] = {
    {"preset", required_argument, NULL, OPT_PRESET},
    {"list", no_argument, NULL, OPT_LIST},
    {"output", required_argument, NULL, 'o'},
    {"type", required_argument, NULL, OPT_TYPE},
    {"tied", no_argument, NULL, OPT_TIED},
    {"untied", no_argument, NULL, OPT_UNTIED},
    {"seed", required_argument, NULL, OPT_SEED},
    {"n-layer", required_argument, NULL, OPT_N_LAYER},
    {"n-embd", required_argument, NULL, OPT_N_EMBD},
    {"n-ff", required_argument, NULL, OPT_N_FF},
    {"n-head", required_argument, NULL, OPT_N_HEAD},
    {"n-head-kv", required_argument, NULL, OPT_N_HEAD_KV},
    {"n-vocab", required_argument, NULL, OPT_N_VOCAB},
    {"n-ctx", required_argument, NULL, OPT_N_CTX},
    {"n-expert", required_argument, NULL, OPT_N_EXPERT},
    {"n-expert-used", required_argument, NULL, OPT_N_EXPERT_USED},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* "--name" of a long option, for messages. */
static const char *long_name(int val, char *buf, size_t cap)
{
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == val)
            snprintf(buf, cap, "--%s", o->name);
    return buf;
}

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    synth_args *a = ctx;
    rl_synth_config *sh = &a->shape;
    rl_status st = RL_OK;
    uint64_t *num = NULL, lo = 1, hi = SYNTH_MAX_U32; /* a number option: its field, range */
    switch (c) {
    case 'q': a->quiet = true; break;
    case OPT_LIST: a->list = true; break;
    case OPT_TIED: a->tied = 1; break;
    case OPT_UNTIED: a->tied = 0; break;
    case 'o':
        if (!*arg)
            st = rl_fail(err, RL_EINPUT, "--output needs a file path");
        a->out = arg;
        if (st == RL_OK)
            st = rl_check_output_kind("synth", arg, RL_OUT_FILE, err);
        break;
    case OPT_PRESET:
        if (!(a->preset = rl_synth_preset_find(arg)))
            st = rl_fail(err, RL_EINPUT, "unknown preset '%s' (valid: %s)", arg,
                         rl_synth_preset_names());
        break;
    case OPT_TYPE:
        if ((a->type = rl_synth_type_by_name(arg)) < 0)
            st = rl_fail(err, RL_EINPUT, "unknown --type '%s' (valid: %s)", arg,
                         rl_synth_type_names());
        break;
    case OPT_SEED: num = &a->seed, lo = 0, hi = UINT64_MAX, a->have_seed = true; break;
    case OPT_N_LAYER: num = &sh->n_layer, hi = SYNTH_MAX_LAYER; break;
    case OPT_N_EMBD: num = &sh->n_embd; break;
    case OPT_N_FF: num = &sh->n_ff; break;
    case OPT_N_HEAD: num = &sh->n_head, hi = SYNTH_MAX_HEAD; break;
    case OPT_N_HEAD_KV: num = &sh->n_head_kv, hi = SYNTH_MAX_HEAD; break;
    case OPT_N_VOCAB: num = &sh->n_vocab, lo = SYNTH_MIN_VOCAB, hi = SYNTH_MAX_VOCAB; break;
    case OPT_N_CTX: num = &sh->n_ctx; break;
    case OPT_N_EXPERT: num = &sh->n_expert, lo = 0, hi = SYNTH_MAX_EXPERT; break;
    case OPT_N_EXPERT_USED: num = &sh->n_expert_used, lo = 0, hi = SYNTH_MAX_EXPERT; break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    char name[32];
    if (num) /* the number rule and the range: rl_opt_u64's one-line message */
        st = rl_opt_u64(long_name(c, name, sizeof name), arg, lo, hi, num, err);
    return st;
}

static rl_status parse_args(int argc, char **argv, synth_args *a, rl_error *err)
{
    memset(a, 0, sizeof *a);
    a->type = a->tied = -1;
    rl_synth_config *sh = &a->shape;
    sh->n_layer = sh->n_embd = sh->n_ff = sh->n_head = sh->n_head_kv = UNSET;
    sh->n_vocab = sh->n_ctx = sh->n_expert = sh->n_expert_used = UNSET;
    rl_status st = rl_opt_each(argc, argv, "o:qh", longopts, on_opt, a, &a->help, err);
    if (st != RL_OK || a->help)
        return st;
    if (optind < argc)
        return rl_fail(err, RL_EINPUT,
                       "synth takes no file or word '%s' (give the output with -o; see "
                       "llama-roofline synth --help)",
                       argv[optind]);
    return RL_OK;
}

/* The preset with the options applied. */
static rl_synth_config config_of(const synth_args *a)
{
    rl_synth_config c = a->preset->cfg;
    const rl_synth_config *sh = &a->shape;
#define APPLY(f) (sh->f != UNSET ? (void)(c.f = sh->f) : (void)0)
    APPLY(n_layer), APPLY(n_embd), APPLY(n_ff), APPLY(n_head), APPLY(n_head_kv), APPLY(n_vocab);
    APPLY(n_ctx), APPLY(n_expert), APPLY(n_expert_used);
#undef APPLY
    /* --n-expert alone: route to 2 experts (or all of them, when fewer), or none when 0 */
    if (sh->n_expert != UNSET && sh->n_expert_used == UNSET)
        c.n_expert_used = c.n_expert < 2 ? c.n_expert : 2;
    if (a->type >= 0)
        c.type = (uint32_t)a->type;
    if (a->tied >= 0)
        c.tied = a->tied == 1;
    if (a->have_seed)
        c.seed = a->seed;
    return c;
}

static rl_status list_presets(rl_error *err)
{
    rl_tty_printf(stdout, "%-13s %-6s %6s %6s %5s %4s %6s %7s %7s %-6s %9s %10s\n", "preset",
                  "arch", "layers", "n_embd", "heads", "kv", "n_ff", "vocab", "experts", "head",
                  "params", "F16 size");
    for (size_t i = 0; i < rl_synth_preset_count(); i++) {
        const rl_synth_preset *pr = rl_synth_preset_at(i);
        const rl_synth_config *c = &pr->cfg;
        rl_synth_plan *p = NULL;
        rl_status st = rl_synth_plan_build(c, &p, err);
        if (st)
            return st;
        char experts[48] = "-", params[32], size[32];
        if (c->n_expert)
            snprintf(experts, sizeof experts, "%llu/%llu", (unsigned long long)c->n_expert_used,
                     (unsigned long long)c->n_expert);
        rl_fmt_count(params, sizeof params, p->n_params);
        rl_fmt_size(size, sizeof size, p->file_size);
        rl_tty_printf(stdout, "%-13s %-6s %6llu %6llu %5llu %4llu %6llu %7llu %7s %-6s %9s %10s\n",
                      pr->name, c->arch == SYNTH_ARCH_QWEN2 ? "qwen2" : "llama",
                      (unsigned long long)c->n_layer, (unsigned long long)c->n_embd,
                      (unsigned long long)c->n_head, (unsigned long long)c->n_head_kv,
                      (unsigned long long)c->n_ff, (unsigned long long)c->n_vocab, experts,
                      c->tied ? "tied" : "untied", params, size);
        rl_synth_plan_free(p);
    }
    rl_tty_printf(
        stdout, "\nsizes are for --type F16; every preset also takes F32, BF16, Q8_0 and Q4_0.\n");
    return RL_OK;
}

/* stdout is the output itself (-o /dev/stdout): the summary goes to stderr instead. */
static bool stdout_is(const char *path)
{
    struct stat o, f;
    return fstat(STDOUT_FILENO, &o) == 0 && stat(path, &f) == 0 && o.st_dev == f.st_dev &&
           o.st_ino == f.st_ino;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    synth_args a;
    rl_status st = parse_args(argc, argv, &a, err);
    if (st != RL_OK)
        return st;
    if (a.help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (a.list)
        return list_presets(err);
    if (!a.preset)
        return rl_fail(err, RL_EINPUT, "--preset is required (one of %s; see synth --list)",
                       rl_synth_preset_names());
    if (!a.out)
        return rl_fail(err, RL_EINPUT, "-o OUT.gguf is required");

    rl_synth_config cfg = config_of(&a);
    rl_synth_plan *p = NULL;
    if ((st = rl_synth_plan_build(&cfg, &p, err)) != RL_OK)
        return st;
    FILE *summary = stdout_is(a.out) ? stderr : stdout;
    rl_synth_write_opts wo = {.progress = !a.quiet, .note = a.quiet ? NULL : stderr};
    st = rl_synth_write(p, a.out, &wo, err);
    if (st == RL_OK && !a.quiet) {
        char params[32], size[32];
        char *safe = rl_tty_escape_dup(a.out);
        rl_fmt_count(params, sizeof params, p->n_params);
        rl_fmt_size(size, sizeof size, p->file_size);
        rl_tty_printf(
            summary, "wrote %s: synth %s, %s, %zu tensors, %s params, %s (%llu bytes), seed %llu\n",
            safe ? safe : a.out, cfg.preset, rl_synth_type_name(cfg.type), p->n_tensors, params,
            size, (unsigned long long)p->file_size, (unsigned long long)cfg.seed);
        free(safe);
    }
    rl_synth_plan_free(p);
    return st;
}

const rl_command rl_cmd_synth = {
    "synth", "write a random-weight GGUF model of a real model's shape", usage, run};
