/* SPDX-License-Identifier: MIT */
/* client_text.c: the words every medium says about a client bundle (headline, answer, key
 * figures, Markdown rows, terminal lines) and the bundle readers the HTML section shares
 * (client_text.h). Owner: render. Reads client.points[] as client/client_metrics.c writes it;
 * a hostile bundle gives "n/a", never a crash: every look-up is typed and every count capped. */
#include "render/client_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define MAX_POINTS RL_REPORT_CLIENT_MAX_POINTS
#define MAX_ANSWER_POINTS 3 /* operating points named in the answer sentence */

/* ---- bundle readers (shared with html_client.c) ------------------------------------ */

static const char *str(const cJSON *o, const char *k, const char *dflt)
{
    const char *s = rl_json_get_str(o, k);
    return s ? s : dflt;
}

const cJSON *rl_report_client_points(const cJSON *b)
{
    const cJSON *p = rl_json_get(rl_json_get(b, "client"), "points");
    return cJSON_IsArray(p) ? p : NULL;
}

bool rl_report_client_only(const cJSON *b)
{
    return cJSON_IsObject(rl_json_get(b, "client")) &&
           cJSON_GetArraySize(rl_json_get(b, "models")) == 0;
}

bool rl_report_client_available(const cJSON *m)
{
    return cJSON_IsObject(m) && !cJSON_IsFalse(rl_json_get(m, "available"));
}

/* A summary statistic of a distribution metric, NAN when unavailable. */
double rl_report_client_stat(const cJSON *m, const char *k)
{
    if (!rl_report_client_available(m))
        return NAN;
    return rl_json_num_or(rl_json_get(m, "stats"), k, NAN);
}

/* A point metric's value, NAN when unavailable. */
double rl_report_client_value(const cJSON *m)
{
    return rl_report_client_available(m) ? rl_json_num_or(m, "value", NAN) : NAN;
}

void rl_report_client_num(double v, char *buf, size_t cap)
{
    if (isfinite(v))
        rl_report_fmt_num(v, buf, cap);
    else
        rl_snprintf(buf, cap, "n/a");
}

double rl_report_client_conc(const cJSON *pt)
{
    return rl_json_num_or(pt, "concurrency", NAN);
}

/* The point with the lowest (first) or highest concurrency. */
static const cJSON *point_at(const cJSON *b, bool highest)
{
    const cJSON *best = NULL, *pt;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        double c = rl_report_client_conc(pt);
        if (!isfinite(c))
            continue;
        if (!best || (highest ? c > rl_report_client_conc(best) : c < rl_report_client_conc(best)))
            best = pt;
    }
    return best;
}

static double total_ok(const cJSON *b, double *measured)
{
    double ok = 0, n = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        ok += rl_json_num_or(rl_json_get(pt, "requests"), "ok", 0);
        n += rl_json_num_or(rl_json_get(pt, "requests"), "measured", 0);
    }
    *measured = n;
    return ok;
}

bool rl_report_client_provisional(const cJSON *b, char *buf, size_t cap)
{
    const cJSON *an = rl_json_get(b, "analysis");
    const cJSON *d = rl_json_available(an, "disturbance");
    bool p = false;
    if (!rl_json_get_bool(an, "provisional", &p) || !p)
        return false;
    rl_snprintf(buf, cap, "%.0f of %.0f operating points were measured while the machine was busy",
                rl_json_num_or(d, "n_disturbed", NAN), rl_json_num_or(d, "n_measurements", NAN));
    return true;
}

static void driver_text(const cJSON *b, char *buf, size_t cap)
{
    const cJSON *d = rl_json_get(rl_json_get(b, "client"), "driver");
    const char *type = str(d, "type", "?");
    if (strcmp(type, "http") == 0)
        rl_snprintf(buf, cap, "%s%s%s", str(d, "url", "an HTTP endpoint"),
                    rl_json_get_str(d, "model") ? ", model " : "", str(d, "model", ""));
    else
        rl_snprintf(buf, cap, "the command %s", str(d, "command", "?"));
}

/* ---- words ----------------------------------------------------------------------------- */

void rl_report_client_headline(const cJSON *b, char *buf, size_t cap)
{
    double measured;
    const cJSON *lo = point_at(b, false);
    double ttft = rl_report_client_stat(rl_json_get(rl_json_get(lo, "metrics"), "ttft"), "p50");
    char x[32];
    if (total_ok(b, &measured) < 1)
        rl_snprintf(buf, cap, "Streaming client: nothing measured");
    else if (isfinite(ttft)) {
        rl_report_client_num(ttft, x, sizeof x);
        rl_snprintf(buf, cap, "Streaming client: first chunk in %s ms%s", x,
                    rl_report_client_provisional(b, NULL, 0) ? " (provisional: a busy machine)"
                                                             : "");
    } else {
        rl_snprintf(buf, cap, "Streaming client measured");
    }
}

void rl_report_client_answer(const cJSON *b, char *buf, size_t cap)
{
    rl_sbuf s = {0};
    char drv[512], a[32], c[32], d[32];
    driver_text(b, drv, sizeof drv);
    double measured, ok = total_ok(b, &measured);
    if (ok < 1) {
        rl_sbuf_printf(&s,
                       "No request to %s succeeded (%.0f measured), so there is no latency or "
                       "throughput to report: see every request's error below.",
                       drv, measured);
    } else {
        char why[160];
        if (rl_report_client_provisional(b, why, sizeof why))
            rl_sbuf_printf(&s, "Provisional, %s, so these numbers may be off. ", why);
        rl_sbuf_printf(&s, "Streaming from %s: ", drv);
        size_t k = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, rl_report_client_points(b))
        {
            if (k == MAX_ANSWER_POINTS) {
                rl_sbuf_printf(&s, "; and %d more operating points",
                               cJSON_GetArraySize(rl_report_client_points(b)) - MAX_ANSWER_POINTS);
                break;
            }
            const cJSON *m = rl_json_get(pt, "metrics");
            double ttft = rl_report_client_stat(rl_json_get(m, "ttft"), "p50"),
                   tpot = rl_report_client_stat(rl_json_get(m, "tpot"), "p50");
            double rps = rl_report_client_value(rl_json_get(m, "rps"));
            rl_sbuf_printf(&s, "%sat concurrency %.0f ", k ? "; " : "", rl_report_client_conc(pt));
            if (isfinite(ttft)) {
                rl_report_client_num(ttft, a, sizeof a);
                rl_sbuf_printf(&s,
                               "the median request saw its first chunk after %s ms (a proxy "
                               "for the first token)",
                               a);
            } else {
                rl_sbuf_printf(&s, "no request succeeded");
            }
            if (isfinite(tpot)) {
                rl_report_client_num(tpot, c, sizeof c);
                rl_sbuf_printf(&s, ", then %s ms per token", c);
            }
            if (isfinite(rps)) {
                rl_report_client_num(rps, d, sizeof d);
                rl_sbuf_printf(&s, ", at %s requests/s", d);
            }
            k++;
        }
        rl_sbuf_printf(&s, ".");
        if (ok < measured)
            rl_sbuf_printf(&s, " %.0f of %.0f requests failed.", measured - ok, measured);
    }
    rl_snprintf(buf, cap, "%s", s.p && !s.oom ? s.p : "");
    free(s.p);
}

static void figure(rl_report_figure *f, const char *label, double v, const char *unit,
                   const char *kind, const char *note, const cJSON *why)
{
    memset(f, 0, sizeof *f);
    f->label = label;
    f->unit = unit;
    f->place = -1;
    if (isfinite(v)) {
        rl_report_fmt_num(v, f->value, sizeof f->value);
        f->kind = kind;
        rl_snprintf(f->note, sizeof f->note, "%s", note);
    } else {
        rl_snprintf(f->value, sizeof f->value, "n/a");
        f->kind = "unavailable";
        rl_snprintf(f->note, sizeof f->note, "%s", str(why, "reason", "not in the bundle"));
    }
}

size_t rl_report_client_figures(const cJSON *b, rl_report_figure *out)
{
    const cJSON *lo = point_at(b, false), *hi = point_at(b, true);
    const cJSON *ml = rl_json_get(lo, "metrics"), *mh = rl_json_get(hi, "metrics");
    char note[256];
    size_t n = 0;
    rl_snprintf(note, sizeof note,
                "Median send to first chunk at concurrency %.0f; a chunk may hold several "
                "tokens, so this is a proxy for time to first token.",
                rl_report_client_conc(lo));
    figure(&out[n++], "TTFT (median)", rl_report_client_stat(rl_json_get(ml, "ttft"), "p50"), "ms",
           "proxy", note, rl_json_get(ml, "ttft"));
    rl_snprintf(note, sizeof note,
                "Median time per token after the first delivery at concurrency %.0f.",
                rl_report_client_conc(lo));
    figure(&out[n++], "TPOT (median)", rl_report_client_stat(rl_json_get(ml, "tpot"), "p50"), "ms",
           "derived", note, rl_json_get(ml, "tpot"));
    rl_snprintf(note, sizeof note, "Median send to end of answer at concurrency %.0f.",
                rl_report_client_conc(lo));
    figure(&out[n++], "E2E latency (median)", rl_report_client_stat(rl_json_get(ml, "e2e"), "p50"),
           "ms", "measured", note, rl_json_get(ml, "e2e"));
    rl_snprintf(note, sizeof note,
                "Successful requests per second over the measured window at concurrency %.0f.",
                rl_report_client_conc(hi));
    figure(&out[n++], "Requests per second", rl_report_client_value(rl_json_get(mh, "rps")),
           "req/s", "measured", note, rl_json_get(mh, "rps"));
    const cJSON *g = rl_json_get(hi, "goodput");
    rl_snprintf(note, sizeof note,
                "Requests meeting every SLO per second at concurrency %.0f (%.0f of %.0f good).",
                rl_report_client_conc(hi), rl_json_num_or(g, "good", NAN),
                rl_json_num_or(g, "requests", NAN));
    figure(&out[n++], "Goodput",
           rl_report_client_available(g) ? rl_report_client_value(rl_json_get(g, "rps")) : NAN,
           "req/s", "derived", note, rl_report_client_available(g) ? rl_json_get(g, "rps") : g);
    double measured, ok = total_ok(b, &measured);
    rl_snprintf(note, sizeof note, "%.0f of %.0f measured requests, every operating point.", ok,
                measured);
    figure(&out[n++], "Success rate", measured > 0 ? 100.0 * ok / measured : NAN, "%", "measured",
           note, NULL);
    for (size_t i = 0; rl_report_client_provisional(b, NULL, 0) && i < n; i++)
        if (strcmp(out[i].value, "n/a") != 0) { /* a number: say it may be off */
            size_t len = strlen(out[i].note);
            rl_snprintf(out[i].note + len, sizeof out[i].note - len,
                        " Provisional: measured on a busy machine.");
        }
    return n;
}

/* TTFT, TPOT and E2E medians, requests/s and goodput/s of a point, as text ("n/a"). */
static void summary_cells(const cJSON *pt, char c[5][32])
{
    const cJSON *m = rl_json_get(pt, "metrics"), *g = rl_json_get(pt, "goodput");
    rl_report_client_num(rl_report_client_stat(rl_json_get(m, "ttft"), "p50"), c[0], 32);
    rl_report_client_num(rl_report_client_stat(rl_json_get(m, "tpot"), "p50"), c[1], 32);
    rl_report_client_num(rl_report_client_stat(rl_json_get(m, "e2e"), "p50"), c[2], 32);
    rl_report_client_num(rl_report_client_value(rl_json_get(m, "rps")), c[3], 32);
    rl_report_client_num(
        rl_report_client_available(g) ? rl_report_client_value(rl_json_get(g, "rps")) : NAN, c[4],
        32);
}

void rl_report_client_markdown(rl_sbuf *s, const cJSON *b, void (*esc)(rl_sbuf *, const char *))
{
    rl_sbuf_printf(s, "\n| Concurrency | OK / requests | TTFT p50 (ms, proxy) | TPOT p50 (ms) | "
                      "E2E p50 (ms) | Requests/s | Goodput (req/s) |\n"
                      "|---:|---:|---:|---:|---:|---:|---:|\n");
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        char c[5][32];
        summary_cells(pt, c);
        rl_sbuf_printf(s, "| %.0f | %.0f / %.0f | ", rl_report_client_conc(pt),
                       rl_json_num_or(rl_json_get(pt, "requests"), "ok", NAN),
                       rl_json_num_or(rl_json_get(pt, "requests"), "measured", NAN));
        for (int i = 0; i < 5; i++) {
            esc(s, c[i]);
            rl_sbuf_printf(s, " |%s", i < 4 ? " " : "\n");
        }
    }
}

/* The goodput cell: "75%" of all requests at the SLOs, "n/a" without SLOs. */
static void goodput_cell(const cJSON *pt, char *buf, size_t cap)
{
    const cJSON *g = rl_json_get(pt, "goodput");
    double f = rl_report_client_available(g) ? rl_json_num_or(g, "fraction", NAN) : NAN;
    if (isfinite(f))
        rl_snprintf(buf, cap, "%.0f%%", f * 100);
    else
        rl_snprintf(buf, cap, "n/a");
}

void rl_report_client_table(FILE *out, const cJSON *b)
{
    const cJSON *pt;
    bool models = false; /* client --model A,B: a model column first */
    cJSON_ArrayForEach(pt, rl_report_client_points(b)) models =
        models || rl_json_get_str(pt, "model") != NULL;
    if (models)
        rl_tty_printf(out, "\n  %-16s", "model");
    rl_tty_printf(out, "%s  %5s %9s %5s %9s %9s %9s %9s %9s %10s %7s %8s\n", models ? "" : "\n",
                  "conc", "ok/all", "fail", "TTFT p50", "TTFT p95", "E2E p50", "E2E p95",
                  "TPOT p50", "decode t/s", "req/s", "goodput");
    size_t k = 0;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        const cJSON *m = rl_json_get(pt, "metrics"), *rq = rl_json_get(pt, "requests");
        char c[8][32], okn[48], gp[16];
        const char *dist[][2] = {
            {"ttft", "p50"}, {"ttft", "p95"}, {"e2e", "p50"}, {"e2e", "p95"}, {"tpot", "p50"}};
        for (int i = 0; i < 5; i++)
            rl_report_client_num(rl_report_client_stat(rl_json_get(m, dist[i][0]), dist[i][1]),
                                 c[i], 32);
        rl_report_client_num(rl_report_client_value(rl_json_get(m, "decode_throughput")), c[5], 32);
        rl_report_client_num(rl_report_client_value(rl_json_get(m, "rps")), c[6], 32);
        rl_snprintf(okn, sizeof okn, "%.0f/%.0f", rl_json_num_or(rq, "ok", NAN),
                    rl_json_num_or(rq, "measured", NAN));
        goodput_cell(pt, gp, sizeof gp);
        if (models) {
            char safe[64];
            const char *mn = rl_json_get_str(pt, "model");
            rl_tty_printf(out, "  %-16.16s", rl_tty_escape(mn ? mn : "-", safe, sizeof safe));
        }
        rl_tty_printf(out, "  %5.0f %9s %5.0f %9s %9s %9s %9s %9s %10s %7s %8s\n",
                      rl_report_client_conc(pt), okn, rl_json_num_or(rq, "failed", NAN), c[0], c[1],
                      c[2], c[3], c[4], c[5], c[6], gp);
    }
    rl_tty_printf(out, "  (times in ms; TTFT is a proxy: the first chunk; goodput: good / all "
                       "requests at the SLOs)\n");
}

/* One point's E2E samples as text: up to 20 equal-width buckets from min to max. */
static void histogram_point(FILE *out, const cJSON *pt)
{
    const cJSON *smp = rl_json_get(rl_json_get(rl_json_get(pt, "metrics"), "e2e"), "samples");
    double *x = NULL;
    size_t all = 0, n = 0;
    rl_json_values(smp, &x, &all); /* out of memory: as no samples */
    for (size_t i = 0; i < all; i++)
        if (isfinite(x[i])) /* validate: every sample finite */
            x[n++] = x[i];
    rl_tty_printf(out, "\n  E2E latency at concurrency %.0f", rl_report_client_conc(pt));
    if (n == 0) {
        free(x);
        rl_tty_printf(out, ": no successful request\n");
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
    }
    size_t nb = (size_t)ceil(sqrt((double)n));
    nb = hi > lo ? (nb < 1 ? 1 : nb > 20 ? 20 : nb) : 1;
    size_t cnt[20] = {0}, top = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = hi > lo ? (size_t)((x[k] - lo) / (hi - lo) * (double)nb) : 0;
        cnt[i >= nb ? nb - 1 : i]++;
    }
    free(x);
    for (size_t i = 0; i < nb; i++)
        top = cnt[i] > top ? cnt[i] : top;
    rl_tty_printf(out, " (ms, %zu request%s):\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < nb; i++) {
        char a[32], z[32], bar[41];
        double w = (hi - lo) / (double)nb;
        rl_report_client_num(lo + w * (double)i, a, sizeof a);
        rl_report_client_num(i + 1 == nb ? hi : lo + w * (double)(i + 1), z, sizeof z);
        size_t len = top ? (cnt[i] * 40 + top - 1) / top : 0;
        memset(bar, '#', len);
        bar[len] = '\0';
        rl_tty_printf(out, "  %9s - %-9s %-40s %zu\n", a, z, bar, cnt[i]);
    }
}

void rl_report_client_histogram(FILE *out, const cJSON *b)
{
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        histogram_point(out, pt);
    }
}

void rl_report_client_print(FILE *out, const cJSON *b)
{
    char line[1024], safe[1024];
    rl_report_client_answer(b, line, sizeof line);
    rl_tty_printf(out, "\nanswer: %s\n", rl_tty_escape(line, safe, sizeof safe));
    rl_report_client_table(out, b);
}
