/* SPDX-License-Identifier: MIT */
/* advise_text.c: the advice for people, as terminal text or Markdown (see advise.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyse/advise.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define WIDTH 72
#define GALLERY                                                                                    \
    "https://github.com/manunicholasjacob/llama-roofline/issues/new?template=results-gallery.md"

const char *const rl_advise_plan_formats[RL_ADV_PLAN_N] = {"Q4_0",   "IQ4_NL", "IQ4_XS", "Q3_K_M",
                                                           "Q4_K_M", "Q6_K",   "Q8_0"};

static void rule(rl_sbuf *b, char c)
{
    char line[WIDTH + 2];
    memset(line, c, WIDTH);
    line[WIDTH] = '\n';
    line[WIDTH + 1] = '\0';
    rl_sbuf_put(b, line, WIDTH + 1);
}

/* Word-wrap text at width: the first line after first_prefix, the others indented by indent
 * spaces. */
static void wrap_hanging(rl_sbuf *b, const char *first_prefix, const char *text, int indent,
                         int width)
{
    const char *p = text;
    bool first = true;
    while (*p) {
        int ind = first ? (int)strlen(first_prefix) : indent;
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t room = (size_t)(width - ind), n = strlen(p);
        size_t take = n;
        if (n > room) {
            take = room;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0) { /* one long word */
                take = room;
                while (p[take] && p[take] != ' ')
                    take++;
            }
        }
        if (first)
            rl_sbuf_printf(b, "%s%.*s\n", first_prefix, (int)take, p);
        else
            rl_sbuf_printf(b, "%*s%.*s\n", indent, "", (int)take, p);
        first = false;
        p += take;
    }
}

/* Word-wrap text at width, every line indented by indent spaces. */
static void wrap(rl_sbuf *b, const char *text, int indent, int width)
{
    char prefix[32];
    rl_snprintf(prefix, sizeof prefix, "%*s", indent, "");
    wrap_hanging(b, prefix, text, indent, width);
}

static void bullet(rl_sbuf *b, bool md, const char *text)
{
    if (md)
        rl_sbuf_printf(b, "- %s\n", text);
    else
        wrap_hanging(b, "    - ", text, 6, WIDTH);
}

static void upper(char *dst, size_t cap, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        dst[i] = (char)toupper((unsigned char)s[i]);
    dst[i] = '\0';
}

static void machine_line(rl_sbuf *b, const rl_cpu_info *c, bool md)
{
    char cpu[160], board[160], line[512];
    rl_tty_escape(c->cpu[0] ? c->cpu : "unknown CPU", cpu, sizeof cpu);
    rl_tty_escape(c->board, board, sizeof board);
    int w = rl_snprintf(line, sizeof line, "%s", cpu);
    if (c->board[0] && w > 0)
        w += rl_snprintf(line + w, sizeof line - (size_t)w, ", %s", board);
    if (c->logical > 0 && w > 0 && (size_t)w < sizeof line)
        rl_snprintf(line + w, sizeof line - (size_t)w, ", %d logical CPUs", c->logical);
    if (md) {
        rl_sbuf_printf(b, "- **Machine:** ");
        rl_md_escape(b, line);
        rl_sbuf_printf(b, "\n");
        if (c->detail[0] && strcmp(c->detail, c->cpu) != 0) {
            rl_sbuf_printf(b, "- **Note:** ");
            rl_md_escape(b, c->detail);
            rl_sbuf_printf(b, "\n");
        }
        return;
    }
    wrap_hanging(b, "  Machine : ", line, 12, WIDTH);
    if (c->detail[0] && strcmp(c->detail, c->cpu) != 0) {
        char d[600];
        rl_tty_escape(c->detail, d, sizeof d);
        wrap(b, d, 12, WIDTH);
    }
}

/* v with digits decimals, or "-" when not measured */
static void fmt_num(char *buf, size_t cap, double v, int digits)
{
    if (isnan(v))
        rl_snprintf(buf, cap, "-");
    else
        rl_snprintf(buf, cap, "%.*f", digits, v);
}

static void table(rl_sbuf *b, const rl_advice *a, bool md)
{
    bool energy = a->lowest_energy >= 0;
    if (md) {
        rl_sbuf_printf(b,
                       "| format | tok/s | vs best | MiB/token | GB/s streamed | below "
                       "envelope | on-label | bits/weight | perplexity* |%s\n",
                       energy ? " mJ/token |" : "");
        rl_sbuf_printf(b, "|---|--:|--:|--:|--:|--:|--:|--:|--:|%s\n", energy ? "--:|" : "");
    } else {
        rl_sbuf_printf(b, "    %-9s %7s %8s %8s %6s %8s %8s %5s %7s%s\n", "format", "tok/s",
                       "vs best", "MiB/tok", "GB/s", "off env", "on-label", "bpw", "ppl*",
                       energy ? "  mJ/tok" : "");
    }
    for (int i = 0; i < a->n; i++) {
        const rl_adv_entry *e = &a->e[i];
        const rl_mx_row *r = e->row;
        char vs[16], off[16], ppl[16], mj[16], onl[16];
        if (i == 0)
            rl_snprintf(vs, sizeof vs, "best");
        else
            rl_snprintf(vs, sizeof vs, "%s%.0f%%%s", fabs(e->vs_best_pct) < 0.5 ? "" : "-",
                        fabs(e->vs_best_pct), e->tied ? "=" : "");
        if (e->deficit_pct >= 1)
            rl_snprintf(off, sizeof off, "-%.0f%%", e->deficit_pct);
        else
            rl_snprintf(off, sizeof off, "-");
        fmt_num(ppl, sizeof ppl, r->perplexity, 2);
        fmt_num(mj, sizeof mj, r->mj_per_token, 0);
        if (isnan(r->on_label_pct))
            rl_snprintf(onl, sizeof onl, "-");
        else
            rl_snprintf(onl, sizeof onl, "%.0f%%", r->on_label_pct);
        char fmtname[64];
        rl_tty_escape(r->format, fmtname, sizeof fmtname);
        if (md) {
            rl_sbuf_printf(b, "| %s%s%s | %.1f | %s | %.1f | %.1f | %s | %s | %.2f | %s |",
                           e->pareto && !isnan(r->perplexity) ? "**" : "", fmtname,
                           e->pareto && !isnan(r->perplexity) ? "**" : "", r->tok_s, vs,
                           r->streamed_mib, r->streamed_gbs, off, onl, r->bits_per_weight, ppl);
            if (energy)
                rl_sbuf_printf(b, " %s |", mj);
            rl_sbuf_printf(b, "\n");
        } else {
            rl_sbuf_printf(b, "    %-9s %7.1f %8s %8.1f %6.1f %8s %8s %5.2f %7s", fmtname, r->tok_s,
                           vs, r->streamed_mib, r->streamed_gbs, off, onl, r->bits_per_weight, ppl);
            if (energy)
                rl_sbuf_printf(b, " %8s", mj);
            rl_sbuf_printf(b, "%s\n", e->pareto && !isnan(r->perplexity) ? "  <" : "");
        }
    }
    if (!md)
        rl_sbuf_printf(b, "\n");
    else
        rl_sbuf_printf(b, "\n");
}

/* block: one core's advice, in named steps in order (heading, evidence, threads, table, legend,
 * then the bullets). */
static void block_heading(rl_sbuf *b, const rl_advice *a, bool md)
{
    char label[80], up[80];
    rl_tty_escape(a->label, label, sizeof label);
    upper(up, sizeof up, label);
    if (md)
        rl_sbuf_printf(b, "\n## %s, %d threads, %gB class\n\n", label, a->threads, a->scale);
    else {
        rl_sbuf_printf(b, "\n  %s, %d THREADS, %gB CLASS\n", up, a->threads, a->scale);
        rl_sbuf_printf(b, "  ");
        for (int i = 0; i < WIDTH - 4; i++)
            rl_sbuf_put(b, "-", 1);
        rl_sbuf_printf(b, "\n");
    }
}

static void block_evidence(rl_sbuf *b, const rl_advice *a, bool md)
{
    char why[300], s[1024];
    rl_tty_escape(a->why, why, sizeof why);
    if (why[0])
        why[0] = (char)toupper((unsigned char)why[0]);
    rl_snprintf(s, sizeof s, "Evidence: %s.%s%s%s", rl_evidence_text(a->evidence),
                why[0] ? " " : "", why, why[0] ? "." : "");
    if (md)
        rl_sbuf_printf(b, "%s\n\n", s);
    else
        wrap(b, s, 4, WIDTH - 2);
}

static void block_threads(rl_sbuf *b, const rl_advice *a, bool md)
{
    char avail[128] = "", s[1024];
    size_t used = 0;
    for (int i = 0; i < a->n_avail; i++) {
        int w = rl_snprintf(avail + used, sizeof avail - used, "%s%d", i ? ", " : "",
                            a->threads_avail[i]);
        if (w > 0 && (size_t)w < sizeof avail - used)
            used += (size_t)w;
    }
    rl_snprintf(s, sizeof s, "Threads: %d (%s; measured at %s). Model: %s, the study's files.",
                a->threads, a->thread_choice, avail, a->model);
    if (md)
        rl_sbuf_printf(b, "%s\n\n", s);
    else {
        wrap(b, s, 4, WIDTH - 2);
        rl_sbuf_printf(b, "\n");
    }
}

static void block_legend(rl_sbuf *b, bool md)
{
    const char *legend =
        "vs best: = marks a format within 5% of the fastest (tied: formats that close are not "
        "reliably ordered). GB/s is over the bytes streamed per token, so \"off env\" (below "
        "the best GB/s of the table) is time spent unpacking, not moving bytes. * perplexity "
        "is the study's, measured on its own files, not on yours.";
    if (md)
        rl_sbuf_printf(b, "%s Bold: a format nothing else beats on both speed and perplexity.\n\n",
                       legend);
    else {
        char l2[700];
        rl_snprintf(l2, sizeof l2,
                    "%s < marks a format nothing else beats on both speed and "
                    "perplexity.",
                    legend);
        wrap(b, l2, 4, WIDTH - 2);
        rl_sbuf_printf(b, "\n");
    }
}

/* The fastest format, what it ties with, and the best quality inside that speed band. */
static void block_fastest(rl_sbuf *b, const rl_advice *a, bool md)
{
    const rl_mx_row *f = a->e[0].row;
    char tied[256] = "", s[1024];
    size_t used = 0;
    int nt = 0;
    for (int i = 1; i < a->n; i++)
        if (a->e[i].tied) {
            int w = rl_snprintf(tied + used, sizeof tied - used, "%s%s", nt++ ? ", " : "",
                                a->e[i].row->format);
            if (w > 0 && (size_t)w < sizeof tied - used)
                used += (size_t)w;
        }
    if (nt)
        rl_snprintf(s, sizeof s, "Fastest: %s at %.1f tok/s, tied with %s (within 5%%).", f->format,
                    f->tok_s, tied);
    else
        rl_snprintf(s, sizeof s, "Fastest: %s at %.1f tok/s; nothing else within 5%%.", f->format,
                    f->tok_s);
    bullet(b, md, s);
    if (a->best_quality > 0) {
        const rl_mx_row *q = a->e[a->best_quality].row;
        rl_snprintf(s, sizeof s,
                    "Best quality without giving up speed: %s, perplexity %.2f against %s's "
                    "%.2f, still within 5%% of the fastest.",
                    q->format, q->perplexity, f->format, f->perplexity);
        bullet(b, md, s);
    } else if (a->best_quality == 0) {
        rl_snprintf(s, sizeof s, "%s is also the best quality inside that speed band.", f->format);
        bullet(b, md, s);
    }
}

static void block_energy(rl_sbuf *b, const rl_advice *a, bool md)
{
    char s[1024];
    if (a->lowest_energy >= 0) {
        const rl_mx_row *q = a->e[a->lowest_energy].row;
        rl_snprintf(s, sizeof s, "Lowest energy per token: %s at %.0f mJ.", q->format,
                    q->mj_per_token);
    } else {
        rl_snprintf(s, sizeof s,
                    "Energy: not measured on this core. Package power needs a rail sensor the "
                    "study had only on the Raspberry Pi 5.");
    }
    bullet(b, md, s);
}

static void block_off_envelope(rl_sbuf *b, const rl_advice *a, bool md)
{
    if (a->off_envelope < 0)
        return;
    char s[1024];
    const rl_adv_entry *e = &a->e[a->off_envelope];
    rl_snprintf(s, sizeof s,
                "Worst value for its bytes: %s, %.0f%% below the streaming envelope on this "
                "core. It moves the bytes; it spends longer unpacking them.",
                e->row->format, e->deficit_pct);
    bullet(b, md, s);
}

static void block_thread_winner(rl_sbuf *b, const rl_advice *a, bool md)
{
    if (a->ranking_stable || a->n_per_thread <= 1)
        return;
    char s[1024];
    size_t used =
        (size_t)rl_snprintf(s, sizeof s, "The winner changes with thread count on this core (");
    for (int i = 0; i < a->n_per_thread && used < sizeof s; i++) {
        int w = rl_snprintf(s + used, sizeof s - used, "%s%d threads: %s", i ? ", " : "",
                            a->per_thread[i].threads, a->per_thread[i].ranking[0]);
        if (w > 0)
            used += (size_t)w;
    }
    if (used < sizeof s)
        rl_snprintf(s + used, sizeof s - used, "), so set -t deliberately.");
    bullet(b, md, s);
}

static void block_composition(rl_sbuf *b, const rl_advice *a, bool md)
{
    char warn[768];
    rl_advice_composition_warning(a, warn, sizeof warn);
    if (warn[0])
        bullet(b, md, warn);
}

/* What format choice alone is worth, among files that stream matched bytes. */
static void block_matched(rl_sbuf *b, const rl_advice *a, bool md)
{
    char s[1024];
    size_t used = 0;
    int nm = 0;
    const rl_adv_thread *g = NULL;
    s[0] = '\0';
    for (int i = 0; i < a->n_per_thread; i++) {
        const rl_adv_thread *t = &a->per_thread[i];
        if (!t->matched)
            continue;
        if (!g || t->threads == a->threads)
            g = t;
        int w = rl_snprintf(s + used, sizeof s - used, "%s%.0f%% at %d threads", nm++ ? ", " : "",
                            t->spread_pct, t->threads);
        if (w > 0 && (size_t)w < sizeof s - used)
            used += (size_t)w;
    }
    if (g) {
        char grp[256] = "", msg[1400];
        size_t gu = 0;
        for (int i = 0; i < g->n_group; i++) {
            int w = rl_snprintf(grp + gu, sizeof grp - gu, "%s%s", i ? ", " : "", g->group[i]);
            if (w > 0 && (size_t)w < sizeof grp - gu)
                gu += (size_t)w;
        }
        rl_snprintf(msg, sizeof msg,
                    "Holding bytes constant, format choice alone is worth %s here. That "
                    "comparison uses %s, all of which stream about %.0f MiB per token (within "
                    "3%%), so the difference is unpacking work, not memory traffic.",
                    s, grp, g->group_mean_mib);
        bullet(b, md, msg);
    } else {
        bullet(b, md,
               "No three formats stream within 3% of the same bytes at this scale, so this "
               "table compares sizes as much as formats.");
    }
}

static void block(rl_sbuf *b, const rl_advice *a, bool md)
{
    block_heading(b, a, md);
    block_evidence(b, a, md);
    block_threads(b, a, md);
    table(b, a, md);
    block_legend(b, md);
    block_fastest(b, a, md);
    block_energy(b, a, md);
    block_off_envelope(b, a, md);
    block_thread_winner(b, a, md);
    block_composition(b, a, md);
    block_matched(b, a, md);
}

static void recipe(rl_sbuf *b, bool md)
{
    const char *h1 = "NO MEASUREMENT FOR THIS SILICON";
    const char *p1 =
        "The study measured three core designs: Arm Cortex-A76, Intel Golden Cove (P-core) and "
        "Intel Gracemont (E-core). This machine has none of them, nor a close relative, so "
        "quoting their tables would be a guess. Absent is not zero: no table is printed.";
    const char *h2 = "MEASURE IT YOURSELF";
    const char *p2 =
        "With no download, from a synthetic model quantized by your own llama-quantize:";
    const char *c1 = "llama-roofline advise --measure --synth";
    const char *p3 = "Or with your own files of one model in several formats:";
    const char *c2 = "llama-roofline advise --measure -m model-Q4_0.gguf -m model-Q8_0.gguf ...";
    const char *p4 = "To build that set from an F16 or BF16 GGUF, print the commands with:";
    const char *c3 = "llama-roofline advise --plan model-f16.gguf";
    const char *p5 = "Then share the result: " GALLERY;
    if (md) {
        rl_sbuf_printf(b,
                       "\n## No measurement for this silicon\n\n%s\n\n## Measure it "
                       "yourself\n\n%s\n\n    %s\n\n%s\n\n    %s\n\n%s\n\n    %s\n\n%s\n",
                       p1, p2, c1, p3, c2, p4, c3, p5);
        return;
    }
    rl_sbuf_printf(b, "\n  %s\n", h1);
    wrap(b, p1, 4, WIDTH);
    rl_sbuf_printf(b, "\n  %s\n", h2);
    wrap(b, p2, 4, WIDTH);
    rl_sbuf_printf(b, "      %s\n", c1);
    wrap(b, p3, 4, WIDTH);
    rl_sbuf_printf(b, "      %s\n", c2);
    wrap(b, p4, 4, WIDTH);
    rl_sbuf_printf(b, "      %s\n", c3);
    wrap(b, p5, 4, WIDTH);
}

static void limits(rl_sbuf *b, bool md)
{
    const char *not_this =
        "One model family (Qwen2.5-Instruct) at two scales, three cores, energy on one board "
        "(uncalibrated, relative only), perplexity on about 51 thousand tokens of one corpus. "
        "Nothing here measured your files: `llama-roofline advise --measure` does.";
    const char *source =
        "Qwen2.5-0.5B- and 1.5B-Instruct quantized from the official FP16 GGUF, llama-bench -p "
        "128 -n 128 with 5 repetitions, one format after another; every row of the table keeps "
        "the study file it came from (data/format_matrix.csv, source column). Data: "
        "doi:10.5281/zenodo.21938812; llama-roofline v0.2.0 by M. N. Jacob (MIT).";
    if (md) {
        rl_sbuf_printf(b, "\n## What this is not\n\n%s\n\n## Where the numbers came from\n\n%s\n",
                       not_this, source);
        return;
    }
    rl_sbuf_printf(b, "\n  WHAT THIS IS NOT\n");
    wrap(b, not_this, 4, WIDTH);
    rl_sbuf_printf(b, "\n  WHERE THE NUMBERS CAME FROM\n");
    wrap(b, source, 4, WIDTH);
}

/* A list of names joined with ", " (and "and" before the last) into buf. */
static void join(char *buf, size_t cap, const char *const *v, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = rl_snprintf(buf + used, cap - used, "%s%s",
                            i == 0 ? "" : (i == n - 1 ? " and " : ", "), v[i]);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
    }
}

static void facts(rl_sbuf *b, const rl_matrix *m, bool md, const char *title)
{
    rl_adv_facts f;
    rl_advise_facts(m, &f);
    if (md)
        rl_sbuf_printf(b, "\n## %s\n\n", title);
    else
        rl_sbuf_printf(b, "\n  %s\n", title);
    char on[256], none[256], s[1024];
    join(on, sizeof on, f.on_label, f.n_on_label);
    join(none, sizeof none, f.none, f.n_none);
    rl_snprintf(s, sizeof s,
                "The label does not describe the file: of the %d formats at %gB only %d contain "
                "the type their name claims (%s hold 90%% or more of it); %s contain none of it.",
                f.n_formats, f.scale, f.n_on_label, on, none);
    bullet(b, md, s);
    size_t used = (size_t)rl_snprintf(s, sizeof s,
                                      "Q4_K_M falls below the streamed-byte envelope on every "
                                      "core, each at its fastest thread count:");
    for (int i = 0; i < f.n_cores && used < sizeof s; i++) {
        int w = isnan(f.core[i].q4km_deficit_pct)
                    ? rl_snprintf(s + used, sizeof s - used, "%s %s not measured", i ? ";" : "",
                                  f.core[i].label)
                    : rl_snprintf(s + used, sizeof s - used, "%s %s %.0f%%", i ? ";" : "",
                                  f.core[i].label, f.core[i].q4km_deficit_pct);
        if (w > 0)
            used += (size_t)w;
    }
    if (used < sizeof s)
        rl_snprintf(s + used, sizeof s - used, ".");
    bullet(b, md, s);
    used = (size_t)rl_snprintf(s, sizeof s, "The fastest choice differs by core:");
    for (int i = 0; i < f.n_cores && used < sizeof s; i++) {
        int w = rl_snprintf(s + used, sizeof s - used, "%s %s wants %s at %d threads", i ? ";" : "",
                            f.core[i].label, f.core[i].fastest, f.core[i].threads);
        if (w > 0)
            used += (size_t)w;
    }
    if (used < sizeof s)
        rl_snprintf(s + used, sizeof s - used, ". Nothing here is averaged across cores.");
    bullet(b, md, s);
}

char *rl_advise_text(const rl_matrix *m, const rl_cpu_info *cpu, const rl_advice *blocks, int n,
                     bool md)
{
    rl_sbuf b = {0};
    if (md) {
        rl_sbuf_printf(&b, "# Which quantization format to run\n\n");
    } else {
        rule(&b, '=');
        rl_sbuf_printf(&b, "  llama-roofline --  which quantization should you run?\n");
        rule(&b, '=');
    }
    machine_line(&b, cpu, md);
    if (n == 2) {
        const char *h = "Two kinds of core, and they may want different formats. The operating "
                        "system decides which runs llama.cpp unless you pin it (taskset); small "
                        "thread counts usually land on the P-cores.";
        if (md)
            rl_sbuf_printf(&b, "- **Hybrid:** %s\n", h);
        else {
            rl_sbuf_printf(&b, "\n  TWO KINDS OF CORE\n");
            wrap(&b, h, 4, WIDTH);
        }
    }
    for (int i = 0; i < n; i++)
        block(&b, &blocks[i], md);
    if (n == 0)
        recipe(&b, md);
    if (md)
        facts(&b, m, md,
              n == 0 ? "What is still worth knowing" : "What held on every core measured");
    else
        facts(&b, m, md,
              n == 0 ? "WHAT IS STILL WORTH KNOWING" : "WHAT HELD ON EVERY CORE MEASURED");
    limits(&b, md);
    return rl_sbuf_take(&b);
}

char *rl_advise_list_cores(const rl_matrix *m)
{
    rl_sbuf b = {0};
    const char *cores[32];
    size_t nc = rl_matrix_cores(m, cores, 32);
    rl_sbuf_printf(&b, "cores with measurements in this build:\n");
    for (size_t c = 0; c < nc; c++) {
        double scales[16];
        int threads[32], ns = 0, nt = 0, rows = 0;
        const char *label = "";
        for (size_t i = 0; i < m->n; i++) {
            const rl_mx_row *r = &m->rows[i];
            if (strcmp(r->core, cores[c]) != 0)
                continue;
            label = r->core_label;
            rows++;
            bool seen = false;
            for (int k = 0; k < ns; k++)
                seen |= scales[k] == r->params_b;
            if (!seen && ns < 16)
                scales[ns++] = r->params_b;
            seen = false;
            for (int k = 0; k < nt; k++)
                seen |= threads[k] == r->threads;
            if (!seen && nt < 32)
                threads[nt++] = r->threads;
        }
        for (int i = 1; i < nt; i++)
            for (int j = i; j > 0 && threads[j - 1] > threads[j]; j--) {
                int t = threads[j];
                threads[j] = threads[j - 1];
                threads[j - 1] = t;
            }
        for (int i = 1; i < ns; i++)
            for (int j = i; j > 0 && scales[j - 1] > scales[j]; j--) {
                double t = scales[j];
                scales[j] = scales[j - 1];
                scales[j - 1] = t;
            }
        rl_sbuf_printf(&b, "  %-14s%-30sscales [", cores[c], label);
        for (int i = 0; i < ns; i++)
            rl_sbuf_printf(&b, "%s%g", i ? ", " : "", scales[i]);
        rl_sbuf_printf(&b, "], threads [");
        for (int i = 0; i < nt; i++)
            rl_sbuf_printf(&b, "%s%d", i ? ", " : "", threads[i]);
        rl_sbuf_printf(&b, "], %d rows\n", rows);
    }
    return rl_sbuf_take(&b);
}

cJSON *rl_cpu_info_to_json(const rl_cpu_info *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    rl_json_add_str_or_null(o, "cpu", c->cpu);
    rl_json_add_str_or_null(o, "board", c->board);
    rl_json_add_str_or_null(o, "isa", c->isa);
    rl_json_add_str_or_null(o, "vendor", c->vendor);
    rl_json_add_num_or_null(o, "family", c->family, c->family >= 0);
    rl_json_add_num_or_null(o, "model", c->model, c->model >= 0);
    rl_json_add_num_or_null(o, "logical", c->logical, c->logical > 0);
    cJSON_AddBoolToObject(o, "hybrid", c->hybrid);
    rl_json_add_str(o, "detail", c->detail);
    cJSON *cores = cJSON_AddArrayToObject(o, "cores");
    for (int i = 0; cores && i < c->n_cores; i++) {
        cJSON *x = cJSON_CreateObject();
        rl_json_add_str(x, "core", c->cores[i].core);
        rl_json_add_str(x, "label", c->cores[i].label);
        rl_json_add_str(x, "evidence", rl_evidence_name(c->cores[i].evidence));
        rl_json_add_str(x, "confidence", rl_evidence_text(c->cores[i].evidence));
        rl_json_add_str(x, "why", c->cores[i].why);
        cJSON_AddItemToArray(cores, x);
    }
    return o;
}

/* ---- measured ---------------------------------------------------------------------------- */

/* rl_advise_measured_text in named steps: heading, one table per thread count (head, rows,
 * matched bytes, composition warning), the winner per thread count, the verdict, the caveat. */
/* advice.basis "predicted": advise --measure --predict */
static bool predicted(const cJSON *adv)
{
    const char *basis = rl_json_get_str(adv, "basis");
    return basis && strcmp(basis, "predicted") == 0;
}

static void measured_heading(rl_sbuf *b, const cJSON *adv, bool md)
{
    char safe[256];
    const char *what = predicted(adv) ? "predicted for this machine from its calibration"
                                      : "measured on this machine";
    if (md)
        rl_sbuf_printf(b, "# Which quantization format to run: %s\n\n", what);
    else {
        rule(b, '=');
        rl_sbuf_printf(b, "  %s\n", what);
        rule(b, '=');
    }
    rl_tty_escape(rl_json_get_str(adv, "machine") ? rl_json_get_str(adv, "machine") : "?", safe,
                  sizeof safe);
    if (md) {
        rl_sbuf_printf(b, "- **Machine:** ");
        rl_md_escape(b, safe);
        rl_sbuf_printf(b, "\n");
    } else {
        rl_sbuf_printf(b, "  Machine : %s\n", safe);
    }
}

static void measured_table_head(rl_sbuf *b, const cJSON *t, bool md)
{
    int64_t th = 0;
    rl_json_get_i64(t, "threads", &th);
    if (md) {
        rl_sbuf_printf(b, "\n## %lld thread%s\n\n", (long long)th, th == 1 ? "" : "s");
        rl_sbuf_printf(b, "| file | format | tok/s | vs best | MiB/token | GB/s | on-label "
                          "|\n|---|---|--:|--:|--:|--:|--:|\n");
    } else {
        rl_sbuf_printf(b, "\n  %lld THREAD%s\n", (long long)th, th == 1 ? "" : "S");
        rl_sbuf_printf(b, "    %-32s %-9s %7s %8s %8s %6s %8s\n", "file", "format", "tok/s",
                       "vs best", "MiB/tok", "GB/s", "on-label");
    }
}

static void measured_row(rl_sbuf *b, const cJSON *r, bool first, bool md)
{
    char name[128], fmt[64], vs[16], onl[16];
    rl_tty_escape(rl_json_get_str(r, "name") ? rl_json_get_str(r, "name") : "?", name, sizeof name);
    rl_tty_escape(rl_json_get_str(r, "format") ? rl_json_get_str(r, "format") : "?", fmt,
                  sizeof fmt);
    double tok = rl_json_num_or(r, "tok_s", NAN), v = rl_json_num_or(r, "vs_best_pct", 0);
    double mib = rl_json_num_or(r, "streamed_MiB", NAN);
    double gbs = rl_json_num_or(r, "streamed_GBs", NAN);
    double ol = rl_json_num_or(r, "on_label_pct", NAN);
    bool tied = cJSON_IsTrue(rl_json_get(r, "tied"));
    if (first)
        rl_snprintf(vs, sizeof vs, "best");
    else
        rl_snprintf(vs, sizeof vs, "%s%.0f%%%s", fabs(v) < 0.5 ? "" : "-", fabs(v),
                    tied ? "=" : "");
    if (isnan(ol))
        rl_snprintf(onl, sizeof onl, "-");
    else
        rl_snprintf(onl, sizeof onl, "%.0f%%", ol);
    if (md) {
        rl_sbuf_printf(b, "| ");
        rl_md_escape(b, name);
        rl_sbuf_printf(b, " | ");
        rl_md_escape(b, fmt);
        rl_sbuf_printf(b, " | %.2f | %s | %.1f | %.1f | %s |\n", tok, vs, mib, gbs, onl);
    } else {
        rl_sbuf_printf(b, "    %-32.32s %-9s %7.2f %8s %8.1f %6.1f %8s\n", name, fmt, tok, vs, mib,
                       gbs, onl);
    }
}

/* The matched-bytes sentence under one table; true when two files did stream matched bytes. */
static bool measured_matched(rl_sbuf *b, const cJSON *t, bool md)
{
    const cJSON *mb = rl_json_get(t, "matched_bytes");
    char s[1024];
    bool matched = false;
    if (cJSON_IsFalse(rl_json_get(mb, "available")) || !mb) {
        rl_snprintf(s, sizeof s,
                    "No two files stream within 3%% of the same bytes at this "
                    "thread count.");
    } else {
        matched = true;
        const char *fa = rl_json_get_str(mb, "fastest"), *sl = rl_json_get_str(mb, "slowest");
        char fa_s[64], sl_s[64];
        rl_tty_escape(fa ? fa : "?", fa_s, sizeof fa_s);
        rl_tty_escape(sl ? sl : "?", sl_s, sizeof sl_s);
        rl_snprintf(s, sizeof s,
                    "Same bytes: %s and %s stream within 3%% of %.0f MiB per token, and %s "
                    "is %.0f%% faster than %s anyway. That difference is unpacking work, not "
                    "memory traffic.",
                    fa_s, sl_s, rl_json_num_or(mb, "mean_streamed_MiB", 0), fa_s,
                    rl_json_num_or(mb, "spread_pct", 0), sl_s);
    }
    if (md)
        rl_sbuf_printf(b, "\n%s\n", s);
    else {
        rl_sbuf_printf(b, "\n");
        wrap(b, s, 4, WIDTH);
    }
    return matched;
}

/* One thread count's table; true when its files include a matched-bytes pair. */
static bool measured_table(rl_sbuf *b, const cJSON *t, bool md)
{
    measured_table_head(b, t, md);
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rl_json_get(t, "rows"))
    {
        measured_row(b, r, i++ == 0, md);
    }
    bool matched = measured_matched(b, t, md);
    const char *w = rl_json_get_str(t, "composition_warning");
    if (w) {
        if (md)
            rl_sbuf_printf(b, "\n%s\n", w);
        else
            wrap(b, w, 4, WIDTH);
    }
    return matched;
}

/* The winner per thread count, when it changes. */
static void measured_winners(rl_sbuf *b, const cJSON *tables, bool md)
{
    if (!cJSON_IsArray(tables) || cJSON_GetArraySize(tables) <= 1)
        return;
    char s[1024];
    size_t used = (size_t)rl_snprintf(s, sizeof s, "The winner changes with thread count here (");
    bool changes = false;
    const char *first = NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, tables)
    {
        const char *f = rl_json_get_str(t, "fastest");
        int64_t th = 0;
        rl_json_get_i64(t, "threads", &th);
        if (!f)
            continue;
        if (first && strcmp(first, f) != 0)
            changes = true;
        if (!first)
            first = f;
        char fs[64];
        rl_tty_escape(f, fs, sizeof fs);
        int w = rl_snprintf(s + used, sizeof s - used, "%s%lld thread%s: %s",
                            first == f ? "" : ", ", (long long)th, th == 1 ? "" : "s", fs);
        if (w > 0 && (size_t)w < sizeof s - used)
            used += (size_t)w;
    }
    if (used < sizeof s)
        rl_snprintf(s + used, sizeof s - used, "), so set -t deliberately.");
    if (changes) {
        if (md)
            rl_sbuf_printf(b, "\n%s\n", s);
        else {
            rl_sbuf_printf(b, "\n");
            wrap(b, s, 2, WIDTH);
        }
    }
}

/* Nothing ranked (the reason), or a size comparison rather than a format comparison. */
static void measured_verdict(rl_sbuf *b, const cJSON *tables, bool any_matched, bool md)
{
    if (!cJSON_IsArray(tables)) {
        char why[256];
        rl_tty_escape(rl_json_get_str(tables, "reason") ? rl_json_get_str(tables, "reason")
                                                        : "nothing decoded",
                      why, sizeof why);
        rl_sbuf_printf(b, md ? "\nNothing ranked: %s.\n" : "\n  Nothing ranked: %s.\n", why);
    } else if (!any_matched) {
        const char *h = "THIS IS A SIZE COMPARISON, NOT A FORMAT COMPARISON";
        const char *p = "No two of these files stream the same bytes per token, so their speeds "
                        "differ by size first. To compare formats, build a set from one F16 "
                        "source: llama-roofline advise --plan model-f16.gguf.";
        if (md)
            rl_sbuf_printf(b, "\n## %s\n\n%s\n", h, p);
        else {
            rl_sbuf_printf(b, "\n  %s\n", h);
            wrap(b, p, 4, WIDTH);
        }
    }
}

static void measured_caveat(rl_sbuf *b, const cJSON *adv, bool md)
{
    const char *caveat =
        predicted(adv)
            ? "Predicted, not measured: each file's bytes per ggml type (its tensor table) "
              "through the kernel rates calibrate measured here on single-type models (two "
              "roofs, docs/METHOD.md); no file was run. Throughput only: nothing here measures "
              "output quality. Before you quote a ranking, measure the leaders: advise "
              "--measure -m A.gguf -m B.gguf."
            : "These are your files on this machine, throughput only: nothing here "
              "measures output quality. Measure on an idle machine. Where to send it: " GALLERY;
    if (md)
        rl_sbuf_printf(b, "\n## Read this before quoting it\n\n%s\n", caveat);
    else {
        rl_sbuf_printf(b, "\n  READ THIS BEFORE QUOTING IT\n");
        wrap(b, caveat, 4, WIDTH);
    }
}

char *rl_advise_measured_text(const cJSON *bundle, bool md)
{
    const cJSON *adv = rl_json_get(bundle, "advice");
    rl_sbuf b = {0};
    measured_heading(&b, adv, md);
    const cJSON *tables = rl_json_get(adv, "tables");
    bool any_matched = false;
    const cJSON *t;
    const cJSON *tarr = cJSON_IsArray(tables) ? tables : NULL;
    cJSON_ArrayForEach(t, tarr)
    {
        if (measured_table(&b, t, md))
            any_matched = true;
    }
    measured_winners(&b, tables, md);
    measured_verdict(&b, tables, any_matched, md);
    measured_caveat(&b, adv, md);
    return rl_sbuf_take(&b);
}

/* ---- plan -------------------------------------------------------------------------------- */

rl_status rl_advise_plan(const char *path, const char *label, bool md, char **out, rl_error *err)
{
    *out = NULL;
    char safe[512], lab[64];
    rl_tty_escape(path, safe, sizeof safe);
    rl_tty_escape(label && *label ? label : "no label", lab, sizeof lab);
    if (!label ||
        (strcmp(label, "F16") != 0 && strcmp(label, "BF16") != 0 && strcmp(label, "F32") != 0))
        return rl_fail(err, RL_EINPUT,
                       "--plan %s: this file reports itself as %s, already quantized: the wrong "
                       "starting point (requantizing needs --allow-requantize and gives files "
                       "with the same labels but different per-tensor types, which decoded up to "
                       "38%% slower on the Cortex-A76); start from the F16 or BF16 GGUF "
                       "(convert_hf_to_gguf.py makes one)",
                       safe, lab);
    /* stem: the base name without .gguf and one precision suffix */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char stem[256];
    rl_snprintf(stem, sizeof stem, "%s", base);
    size_t n = strlen(stem);
    if (n > 5 && strcasecmp(stem + n - 5, ".gguf") == 0)
        stem[n -= 5] = '\0';
    static const char *const suffixes[] = {"-fp16", "-f16",  ".fp16", ".f16",  "-bf16",
                                           ".bf16", "-fp32", "-f32",  ".fp32", ".f32"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (n > sl && strcasecmp(stem + n - sl, suffixes[i]) == 0) {
            stem[n - sl] = '\0';
            break;
        }
    }
    char dir[512];
    size_t dl = base == path ? 0 : (size_t)(base - path - 1);
    rl_snprintf(dir, sizeof dir, "%.*s", (int)dl, path);
    if (base == path)
        rl_snprintf(dir, sizeof dir, ".");
    else if (dl == 0)
        rl_snprintf(dir, sizeof dir, "/");
    char sdir[512], sstem[256];
    rl_tty_escape(dir, sdir, sizeof sdir);
    rl_tty_escape(stem, sstem, sizeof sstem);
    rl_sbuf b = {0};
    if (!md) {
        rule(&b, '=');
        rl_sbuf_printf(&b, "  a format comparison you can actually run\n");
        rule(&b, '=');
    } else {
        rl_sbuf_printf(&b, "# A format comparison you can actually run\n\n");
    }
    rl_sbuf_printf(&b, "Source: %s, which reports itself as %s\n\n", safe, lab);
    rl_sbuf_printf(&b, "1. BUILD THE SET (the study's formats: Q4_0, IQ4_NL, IQ4_XS and Q3_K_M "
                       "stream within 3%% of the same bytes at 0.5B; Q4_K_M is the common "
                       "default; Q6_K and Q8_0 anchor the top)\n\n");
    /* the command lines quoted for sh (rl_sh_quote): a path with a space or a quote pastes */
    char outp[RL_ADV_PLAN_N][800];
    for (int i = 0; i < RL_ADV_PLAN_N; i++)
        rl_snprintf(outp[i], sizeof outp[i], "%s/%s-%s.gguf", sdir, sstem,
                    rl_advise_plan_formats[i]);
    for (int i = 0; i < RL_ADV_PLAN_N; i++) {
        rl_sbuf_printf(&b, "    llama-quantize ");
        rl_sh_quote(&b, safe);
        rl_sbuf_printf(&b, " ");
        rl_sh_quote(&b, outp[i]);
        rl_sbuf_printf(&b, " %s\n", rl_advise_plan_formats[i]);
    }
    rl_sbuf_printf(&b, "\n2. MEASURE THEM\n\n    llama-roofline advise --measure");
    for (int i = 0; i < RL_ADV_PLAN_N; i++) {
        rl_sbuf_printf(&b, " -m ");
        rl_sh_quote(&b, outp[i]);
    }
    rl_sbuf_printf(&b, "\n\n3. SEND IT\n\n    " GALLERY "\n");
    *out = rl_sbuf_take(&b);
    return *out ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
}
