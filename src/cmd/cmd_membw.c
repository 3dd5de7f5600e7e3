/* SPDX-License-Identifier: MIT */
/* cmd_membw.c: `llama-roofline membw`, the memory read-bandwidth ceiling (owner: membw).
 * Parses the flags, runs rl_membw_measure (or records a --peak-bw ceiling), prints a per-thread
 * table or the JSON object, and optionally writes the JSON to a file. Allocations are local and
 * freed before returning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/session.h"
#include "cmd/defaults.h"
#include "measure/membw.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline membw [options]\n"
    "\n"
    "Measure the memory read-bandwidth ceiling: the fastest rate this machine streams\n"
    "bytes from RAM, which bounds token generation. Three read-only kernels (sum,\n"
    "xor, dot) run over a sweep of thread counts (1, half the physical cores, all\n"
    "physical, all logical), one pinned thread per core, in whichever of the two\n"
    "widest SIMD variants the CPU supports streams faster in a short trial. copy is\n"
    "measured but never sets the ceiling (write-allocate traffic). Run it on an idle\n"
    "machine. GB/s = 1e9 bytes/s.\n"
    "\n"
    "options:\n"
    "  --json             print the result as one JSON object instead of the table\n"
    "  --quick            short run: smaller working set, 3 shorter repetitions\n"
    "  --membw-mb MB      working set in MiB (default: max(512, 4 x last-level\n"
    "                     cache), capped at RAM/8; at least 64)\n"
    "  --reps N           repetitions per kernel and thread count (default 7, quick\n"
    "                     3)\n"
    "  --threads LIST     thread counts to sweep, e.g. 1,4,8\n"
    "  --peak-bw GBS      do not measure: record GBS as the ceiling (kind\n"
    "                     \"controlled\")\n"
    "  --isa NAME         force a kernel variant: avx512, avx2, sse2, neon or c\n"
    "  -o, --output PATH  also write the JSON object to PATH\n"
    RL_DEF_QUIET_HELP("   ", " ", "                     ")
    "  -h, --help         show this help\n"
    "\n"
    "A ceiling whose repetitions disagree by more than 25% (median vs best) is\n"
    "reported as unstable: rerun on a quiet machine or pass --peak-bw.\n"
    "\n"
    "exit codes: 0 measured; 2 bad input; 4 -o cannot be written or another\n"
    "llama-roofline is writing it; 5 internal error; 130 interrupted.\n";
// clang-format on

typedef struct {
    bool json, quick, have_peak;
    double peak;
    const char *output;
    rl_membw_opts mo;
    bool raised;
} membw_args;

enum { OPT_JSON = 256, OPT_QUICK, OPT_MB, OPT_REPS, OPT_THREADS, OPT_PEAK, OPT_ISA };

static const struct option longopts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"quick", no_argument, NULL, OPT_QUICK},
    {"membw-mb", required_argument, NULL, OPT_MB},
    {"reps", required_argument, NULL, OPT_REPS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"peak-bw", required_argument, NULL, OPT_PEAK},
    {"isa", required_argument, NULL, OPT_ISA},
    {"output", required_argument, NULL, 'o'},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* What the options fill, and what --mb and --threads are checked against. */
typedef struct {
    membw_args *a;
    const rl_sysinfo *si;
    int logical; /* logical CPUs */
} membw_parse;

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    membw_parse *m = ctx;
    membw_args *a = m->a;
    rl_status st = RL_OK;
    rl_isa isa;
    if (rl_defaults_quiet_opt(c, arg, &a->mo.wait_quiet_s, &a->mo.retry_disturbed, &st, err))
        return st;
    switch (c) {
    case OPT_JSON: a->json = true; break;
    case OPT_QUICK: a->quick = a->mo.quick = true; break;
    case OPT_MB:
        st = rl_membw_parse_mb(arg, m->si->ram_bytes, &a->mo.working_set_bytes, &a->raised, err);
        break;
    case OPT_REPS: st = rl_membw_parse_reps(arg, &a->mo.reps, err); break;
    case OPT_THREADS:
        st = rl_membw_parse_threads(arg, m->logical, a->mo.threads, RL_MEMBW_MAX_COUNTS,
                                    &a->mo.n_threads, err);
        break;
    case OPT_PEAK:
        st = rl_membw_parse_peak_bw(arg, &a->peak, err);
        a->have_peak = st == RL_OK;
        break;
    case OPT_ISA:
        if (!rl_isa_parse(arg, &isa))
            st =
                rl_fail(err, RL_EINPUT, "--isa wants avx512, avx2, sse2, neon or c, got '%s'", arg);
        else if (!rl_isa_supported(isa))
            st = rl_fail(err, RL_EINPUT, "--isa %s: this CPU or build cannot run it", arg);
        else
            a->mo.isa = (int)isa;
        break;
    case 'o':
        if (!*arg)
            st = rl_fail(err, RL_EINPUT, "--output needs a file path");
        a->output = arg;
        if (st == RL_OK)
            st = rl_check_output_kind("membw", arg, RL_OUT_FILE, err);
        break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

/* RL_OK with *help set when -h was given. */
static rl_status parse_args(int argc, char **argv, const rl_sysinfo *si, membw_args *a, bool *help,
                            rl_error *err)
{
    memset(a, 0, sizeof *a);
    a->mo.isa = -1;
    a->mo.quiet = &rl_defaults.quiet;
    a->mo.wait_quiet_s = rl_defaults.wait_quiet_s;
    a->mo.retry_disturbed = rl_defaults.retry_disturbed;
    int cpus[RL_SYSINFO_MAX_CPUS];
    int logical = rl_sysinfo_cpu_order(cpus, RL_SYSINFO_MAX_CPUS, NULL);
    if (logical <= 0)
        logical = si->logical_cores > 0 ? si->logical_cores : 1;
    membw_parse m = {a, si, logical};
    rl_status st = rl_opt_each(argc, argv, "o:h", longopts, on_opt, &m, help, err);
    if (st != RL_OK || *help)
        return st;
    if (optind < argc)
        return rl_fail(err, RL_EINPUT,
                       "membw takes no file or word '%s' (see llama-roofline membw --help)",
                       argv[optind]);
    return RL_OK;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    membw_args a;
    bool help = false;
    rl_status st = parse_args(argc, argv, &si, &a, &help, err);
    if (st != RL_OK)
        return st;
    if (help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    if (a.output && ((st = rl_check_writable(a.output, err)) != RL_OK ||
                     (st = rl_output_lock(a.output, a.output, "choose another -o", err)) != RL_OK))
        return st;
    if (a.raised)
        rl_tty_printf(stderr, "note: --membw-mb raised to the 64 MiB floor\n");

    rl_membw_result res;
    st = rl_membw_ceiling(&a.mo, a.have_peak ? a.peak : 0, &si, &res, err);
    if (st != RL_OK && st != RL_EINTERRUPTED) {
        rl_membw_result_free(&res);
        return st;
    }
    rl_error saved = *err;
    if (st == RL_EINTERRUPTED && res.n_runs == 0) {
        rl_membw_result_free(&res);
        return st;
    }

    char *text = NULL;
    if (a.json || a.output) {
        cJSON *j = rl_membw_to_json(&res, &si);
        /* the machine's state over the runs, beside the rest of the environment */
        cJSON *wrap = cJSON_CreateObject();
        if (j && wrap && cJSON_AddItemReferenceToObject(wrap, "membw", j) &&
            !rl_json_attach(cJSON_GetObjectItemCaseSensitive(j, "env"), "machine_state",
                            rl_quiet_summary_json(wrap, a.mo.quiet))) {
            cJSON_Delete(j);
            j = NULL;
        }
        cJSON_Delete(wrap);
        text = j ? rl_json_print(j) : NULL;
        cJSON_Delete(j);
        if (!text) {
            rl_membw_result_free(&res);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
    }
    if (a.json)
        rl_tty_write(stdout, text, strlen(text), RL_TTY_JSON);
    else
        rl_membw_print(stdout, &res, &si, a.mo.working_set_bytes != 0);
    if (a.json && res.fallback_note[0])
        rl_tty_printf(stderr, "note: %s\n", res.fallback_note);
    if (a.json && res.unstable)
        rl_tty_printf(stderr, "warning: %s\n", res.warning);
    if (a.json && !res.complete && !res.controlled)
        rl_tty_printf(stderr, "warning: incomplete result (interrupted)\n");
    fflush(stdout);
    rl_status wst = RL_OK;
    if (a.output) {
        wst = rl_write_output(a.output, text, strlen(text), RL_TTY_JSON, err);
        if (wst == RL_OK && !a.json)
            rl_tty_printf(stdout, "wrote %s\n", a.output);
    }
    free(text);
    /* the thread counts with samples, for the interrupted message */
    int res_counts = res.n_counts, counts_done = 0;
    for (int i = 0; i < res.n_counts; i++) {
        bool any = false;
        for (size_t r = 0; r < res.n_runs; r++)
            any |= res.runs[r].threads == res.thread_counts[i] && res.runs[r].n > 0;
        counts_done += any;
    }
    rl_membw_result_free(&res);
    if (wst != RL_OK)
        return wst;
    if (st == RL_EINTERRUPTED) {
        *err = saved;
        char safe[1024], line[1024];
        int targc = 0;
        char *const *targv = rl_opt_typed(&targc); /* the command as typed: the re-run */
        rl_session_command_line((const char *const *)targv, targc > 0 ? (size_t)targc : 0, line,
                                sizeof line);
        rl_fail(err, st,
                "interrupted: kept samples at %d of %d thread counts%s%s; membw has no --resume: "
                "run it again to measure the rest: %s",
                counts_done, res_counts, a.output ? " in " : "",
                a.output ? rl_tty_escape(a.output, safe, sizeof safe) : "", line);
    }
    return st;
}

const rl_command rl_cmd_membw = {"membw", "measure the memory read-bandwidth ceiling", usage, run};
