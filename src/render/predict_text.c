/* SPDX-License-Identifier: MIT */
/* predict_text.c: a prediction for people, as a terminal table or Markdown (predict_text.h).
 * It only reads the fit and the predictions. */
#include "render/predict_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

/* ---- for people ---------------------------------------------------------------------- */

static void fmt_rate(char *buf, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(buf, cap, "n/a");
    else
        rl_snprintf(buf, cap, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
}

static void fit_line(const rl_pred_fit *f, char *buf, size_t cap)
{
    char thr[64];
    rl_pred_threads_list(f, thr, sizeof thr);
    rl_snprintf(buf, cap,
                "fit %.2f GB/s over %zu models (%s bytes, best threads: %s); interval %.2f to "
                "%.2f GB/s, %s",
                f->bw_bytes_s / 1e9, f->n_points,
                f->conv == RL_AN_BYTES_STREAMED ? "streamed" : "resident", thr[0] ? thr : "?",
                f->bw_lo_bytes_s / 1e9, f->bw_hi_bytes_s / 1e9, RL_PRED_INTERVAL);
}

/* Where a prediction's bandwidth came from. */
static void rate_line(const rl_prediction *q, char *buf, size_t cap)
{
    const rl_pred_rate *r = &q->rate;
    if (strcmp(r->source, "format") == 0)
        rl_snprintf(buf, cap,
                    "at %.2f GB/s: the fitted %s model%s alone (same format), interval %.2f to "
                    "%.2f GB/s",
                    r->bw / 1e9, q->label, r->n_models == 1 ? "" : "s", r->lo / 1e9, r->hi / 1e9);
    else
        rl_snprintf(buf, cap, "at %.2f GB/s: the fit over all %zu models (no fitted model is %s)",
                    r->bw / 1e9, r->n_models, q->label[0] ? q->label : "of its format");
}

/* The two-roof prediction beside the one-roof one (analyse/roofs.h). */
static void roof_line(const rl_prediction *q, char *buf, size_t cap)
{
    const rl_roof_result *r = &q->roof;
    if (!r->ok) {
        rl_snprintf(buf, cap, "two roofs: n/a (%s)", r->why);
        return;
    }
    char rate[32];
    fmt_rate(rate, sizeof rate, r->tok_s);
    const rl_roof_share *b = &r->shares[r->binding];
    rl_snprintf(buf, cap,
                "two roofs (calibration at %d thread%s): %s tok/s at depth 0; the %s kernel "
                "takes %.0f%% of the time (%.1f GB/s of weights; all: %.1f GB/s, fixed %.0f us); "
                "%s",
                q->roof_threads, q->roof_threads == 1 ? "" : "s", rate, b->type,
                100.0 * b->us / r->tau_us, b->us > 0 ? 1e-3 * b->bytes / b->us : 0, r->GBs,
                r->fixed_us, q->roof_verdict);
}

/* A predicted point's bytes per token, tok/s and interval ends as text. */
typedef struct {
    char bytes[32], rate[32], low[32], high[32], depth_fit[32];
} pt_text;

static void point_text(const rl_pred_point *pt, pt_text *t)
{
    rl_fmt_mb(t->bytes, sizeof t->bytes, pt->bytes_per_token);
    fmt_rate(t->rate, sizeof t->rate, pt->tok_s);
    fmt_rate(t->low, sizeof t->low, pt->tok_s_low);
    fmt_rate(t->high, sizeof t->high, pt->tok_s_high);
    t->depth_fit[0] = '\0';
    if (pt->has_depth_fit)
        fmt_rate(t->depth_fit, sizeof t->depth_fit, pt->depth_fit_tok_s);
}

/* Every line through rl_tty_printf: the verdict, labels and caveats come from a bundle or a
 * GGUF file and may hold escape sequences. */
void rl_prediction_print(FILE *out, const rl_pred_fit *f, const char *bundle,
                         const rl_prediction *p, size_t n)
{
    char line[512], safe[1024];
    fit_line(f, line, sizeof line);
    rl_tty_printf(out, "Predicted decode (kind: derived) on the machine of %s\n  %s\n",
                  rl_tty_escape(bundle, safe, sizeof safe), line);
    if (f->verdict[0])
        rl_tty_printf(out, "  verdict there: %s\n", f->verdict);
    for (size_t i = 0; i < n; i++) {
        const rl_prediction *q = &p[i];
        char wb[32];
        rl_fmt_mb(wb, sizeof wb, q->weights_bytes);
        rl_tty_printf(out, "\n%s\n  %s, %s per token (%s)\n",
                      rl_tty_escape(q->name, safe, sizeof safe), rl_tty_escape(q->model, line, 256),
                      wb, q->bytes_key);
        rate_line(q, line, sizeof line);
        rl_tty_printf(out, "  %s\n", line);
        roof_line(q, line, sizeof line);
        rl_tty_printf(out, "  %s\n", line);
        rl_tty_printf(out, "  %8s  %14s  %10s  %s\n", "depth", "bytes/token", "tok/s", "interval");
        for (size_t k = 0; k < q->n_points; k++) {
            const rl_pred_point *pt = &q->points[k];
            if (!pt->available) {
                rl_tty_printf(out, "  %8" PRIu64 "  %14s  %10s  %s\n", pt->depth, "?", "n/a",
                              "KV size unknown");
                continue;
            }
            pt_text t;
            point_text(pt, &t);
            rl_tty_printf(out, "  %8" PRIu64 "  %14s  %10s  %s to %s%s%s%s\n", pt->depth, t.bytes,
                          t.rate, t.low, t.high, pt->has_depth_fit ? "  (depth fit: " : "",
                          pt->has_depth_fit ? t.depth_fit : "", pt->has_depth_fit ? ")" : "");
        }
        for (size_t k = 0; k < q->n_caveats; k++)
            rl_tty_printf(out, "  caveat (%s): %s\n", q->caveats[k].code, q->caveats[k].text);
    }
}

/* Markdown-safe text (base/rl_text.h: rl_md_escape) */
static void md_text(FILE *out, const char *s)
{
    rl_sbuf t = {0};
    rl_md_escape(&t, s);
    if (t.p)
        rl_tty_puts(out, t.p);
    free(t.p);
}

void rl_prediction_markdown(FILE *out, const rl_pred_fit *f, const char *bundle,
                            const rl_prediction *p, size_t n)
{
    char line[512];
    fit_line(f, line, sizeof line);
    rl_tty_puts(out, "## Predicted decode (derived)\n\nOn the machine of `");
    md_text(out, bundle);
    rl_tty_printf(out, "`: %s.\n\n", line);
    rl_tty_puts(out,
                "| model | depth | bytes/token | predicted tok/s | interval | bandwidth from |\n"
                "|---|--:|--:|--:|--:|---|\n");
    for (size_t i = 0; i < n; i++) {
        char from[256];
        rate_line(&p[i], from, sizeof from);
        for (size_t k = 0; k < p[i].n_points; k++) {
            const rl_pred_point *pt = &p[i].points[k];
            rl_tty_puts(out, "| ");
            md_text(out, p[i].name);
            if (!pt->available) {
                rl_tty_printf(out, " | %" PRIu64 " | unknown | n/a | n/a | ", pt->depth);
            } else {
                pt_text t;
                point_text(pt, &t);
                rl_tty_printf(out, " | %" PRIu64 " | %s | %s%s%s%s | %s to %s | ", pt->depth,
                              t.bytes, t.rate, pt->has_depth_fit ? " (depth fit: " : "",
                              pt->has_depth_fit ? t.depth_fit : "", pt->has_depth_fit ? ")" : "",
                              t.low, t.high);
            }
            md_text(out, from);
            rl_tty_puts(out, " |\n");
        }
    }
    bool any = false;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].n_caveats; k++) {
            if (!any)
                rl_tty_puts(out, "\nCaveats:\n\n");
            any = true;
            rl_tty_puts(out, "- ");
            md_text(out, p[i].name);
            rl_tty_printf(out, " (%s): ", p[i].caveats[k].code);
            md_text(out, p[i].caveats[k].text);
            rl_tty_puts(out, "\n");
        }
}
