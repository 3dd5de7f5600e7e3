/* SPDX-License-Identifier: MIT */
/* membw_text.c: the membw result as text for people (owner: membw). Prints the per-thread
 * table of every kernel, the ceiling and what qualifies it. Numbers are formatted in the C
 * locale; nothing is allocated. */
#include <stdio.h>

#include "measure/membw.h"
#include "base/rl_text.h"

static const rl_membw_run *find_run(const rl_membw_result *r, int threads, rl_kernel k)
{
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].threads == threads && r->runs[i].kernel == k && r->runs[i].n > 0)
            return &r->runs[i];
    return NULL;
}

void rl_membw_print(FILE *out, const rl_membw_result *r, const rl_sysinfo *si, bool ws_from_option)
{
    char line[1024], ws[32];
    rl_sysinfo_describe(si, line, sizeof line);
    rl_tty_printf(out, "machine: %s\n", line);
    if (r->controlled) {
        rl_tty_printf(
            out,
            "\nread ceiling: %.2f GB/s (controlled: supplied with --peak-bw, not measured; "
            "GB/s = 1e9 bytes/s)\n",
            r->peak_GBs);
        return;
    }
    rl_fmt_mib(ws, sizeof ws, r->working_set_bytes);
    const char *isa = r->n_runs ? rl_isa_name(r->runs[0].isa) : "?";
    const char *rule = ws_from_option ? "--membw-mb"
                       : r->quick     ? "quick: a quarter of the default, at least 256 MiB"
                                      : "max(512 MiB, 4 x LLC), capped at RAM/8";
    rl_tty_printf(
        out,
        "working set: %s (%s); %d repetitions of ~%.0f ms per kernel and thread count; %s "
        "kernels (%s)\n",
        ws, rule, r->reps, r->sample_s * 1000, isa,
        r->isa_forced ? "forced with --isa" : "faster in a short trial");
    if (r->quick)
        rl_tty_printf(
            out,
            "quick run: smaller working set and %d short repetitions; run without --quick for "
            "the ceiling you quote\n",
            r->reps);
    if (r->fallback_note[0])
        rl_tty_printf(out, "note: %s\n", r->fallback_note);
    rl_tty_printf(out, "\nbest GB/s per kernel, median in brackets (GB/s = 1e9 bytes/s)\n");
    rl_tty_printf(out, "threads %16s %16s %16s %16s\n", "sum", "xor", "dot", "copy*");
    for (int c = 0; c < r->n_counts; c++) {
        int nt = r->thread_counts[c];
        if (!find_run(r, nt, RL_KERNEL_SUM))
            continue;
        rl_tty_printf(out, "%7d", nt);
        for (int k = 0; k < RL_KERNEL_COUNT; k++) {
            const rl_membw_run *run = find_run(r, nt, (rl_kernel)k);
            char cell[40];
            if (run)
                rl_snprintf(cell, sizeof cell, "%.2f (%.2f)", run->best, run->median);
            else
                rl_snprintf(cell, sizeof cell, "-");
            rl_tty_printf(out, " %16s", cell);
        }
        rl_tty_printf(out, "\n");
    }
    rl_tty_printf(
        out,
        "* copy is reported but not part of the ceiling: its write-allocate traffic moves more "
        "bytes than it counts\n");
    if (r->peak_GBs <= 0) {
        rl_tty_printf(out, "\nno complete measurement\n");
        return;
    }
    rl_tty_printf(out, "\nread ceiling: %.2f GB/s (%s kernel, %s, %d thread%s, %s working set)\n",
                  r->peak_GBs, rl_kernel_name(r->kernel), rl_isa_name(r->isa), r->threads,
                  r->threads == 1 ? "" : "s", ws);
    if (r->single_thread_GBs >= 0)
        rl_tty_printf(out, "single thread: %.2f GB/s; ", r->single_thread_GBs);
    rl_tty_printf(
        out, "saturated: %.2f GB/s at %d thread%s; within 5%% of the ceiling from %d thread%s\n",
        r->saturated_GBs, r->saturated_threads, r->saturated_threads == 1 ? "" : "s",
        r->saturation_threads, r->saturation_threads == 1 ? "" : "s");
    if (r->copy_GBs >= 0)
        rl_tty_printf(out, "copy: %.2f GB/s at %d thread%s (excluded from the ceiling)\n",
                      r->copy_GBs, r->copy_threads, r->copy_threads == 1 ? "" : "s");
    rl_tty_printf(out, "stability: median %.2f GB/s is %.0f%% of the best (%s)\n", r->median_GBs,
                  100 * r->stability, r->unstable ? "UNSTABLE" : "stable");
    if (!r->complete)
        rl_tty_printf(out,
                      "incomplete: interrupted; the figures above cover only what was measured\n");
    if (!r->huge_pages_advised)
        rl_tty_printf(out, "note: madvise(MADV_HUGEPAGE) failed; the figures may be TLB-limited\n");
    if (!r->pinned)
        rl_tty_printf(out, "note: some threads could not be pinned to their CPU\n");
    rl_tty_printf(out,
                  "this is a measured lower bound on the true peak; reuse it with --peak-bw %.2f\n",
                  r->peak_GBs);
    if (r->unstable)
        rl_tty_printf(stderr, "warning: %s\n", r->warning);
}
