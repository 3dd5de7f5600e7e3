/* html_client.c: the report's streaming-client section and the client bundle's words
 * (html_client.h). Reads client.points[] as src/client_metrics.c writes it; a hostile bundle
 * gives "n/a" cells, never a crash: every look-up is typed and every count capped. */
#include "render/html_client.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "render/chart/chart.h"
#include "render/chart/chart_int.h"
#include "render/html_svg.h"
#include "base/rl_json.h"
#include "base/rl_util.h"

#define MAX_POINTS 64       /* operating points shown in tables */
#define MAX_RECORDS 2000    /* requests listed per point */
#define MAX_ANSWER_POINTS 3 /* operating points named in the answer sentence */

static const char *str(const cJSON *o, const char *k, const char *dflt)
{
    const char *s = rl_json_get_str(o, k);
    return s ? s : dflt;
}

static const cJSON *points(const cJSON *b)
{
    const cJSON *p = rl_json_get(rl_json_get(b, "client"), "points");
    return cJSON_IsArray(p) ? p : NULL;
}

bool rl_report_client_only(const cJSON *b)
{
    return cJSON_IsObject(rl_json_get(b, "client")) &&
           cJSON_GetArraySize(rl_json_get(b, "models")) == 0;
}

static bool available(const cJSON *m)
{
    return cJSON_IsObject(m) && !cJSON_IsFalse(rl_json_get(m, "available"));
}

/* A summary statistic of a distribution metric, NAN when unavailable. */
static double stat(const cJSON *m, const char *k)
{
    if (!available(m))
        return NAN;
    return rl_json_num_or(rl_json_get(m, "stats"), k, NAN);
}

/* A point metric's value, NAN when unavailable. */
static double value(const cJSON *m)
{
    return available(m) ? rl_json_num_or(m, "value", NAN) : NAN;
}

static void num(double v, char *buf, size_t cap)
{
    if (isfinite(v))
        rl_report_fmt_num(v, buf, cap);
    else
        rl_snprintf(buf, cap, "n/a");
}

static double conc_of(const cJSON *pt)
{
    return rl_json_num_or(pt, "concurrency", NAN);
}

/* The point with the lowest (first) or highest concurrency. */
static const cJSON *point_at(const cJSON *b, bool highest)
{
    const cJSON *best = NULL, *pt;
    cJSON_ArrayForEach(pt, points(b))
    {
        double c = conc_of(pt);
        if (!isfinite(c))
            continue;
        if (!best || (highest ? c > conc_of(best) : c < conc_of(best)))
            best = pt;
    }
    return best;
}

static double total_ok(const cJSON *b, double *measured)
{
    double ok = 0, n = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points(b))
    {
        ok += rl_json_num_or(rl_json_get(pt, "requests"), "ok", 0);
        n += rl_json_num_or(rl_json_get(pt, "requests"), "measured", 0);
    }
    *measured = n;
    return ok;
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
    double ttft = stat(rl_json_get(rl_json_get(lo, "metrics"), "ttft"), "p50");
    char x[32];
    if (total_ok(b, &measured) < 1)
        rl_snprintf(buf, cap, "Streaming client: nothing measured");
    else if (isfinite(ttft)) {
        num(ttft, x, sizeof x);
        rl_snprintf(buf, cap, "Streaming client: first chunk in %s ms", x);
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
        rl_sbuf_printf(&s, "Streaming from %s: ", drv);
        size_t k = 0;
        const cJSON *pt;
        cJSON_ArrayForEach(pt, points(b))
        {
            if (k == MAX_ANSWER_POINTS) {
                rl_sbuf_printf(&s, "; and %d more operating points",
                               cJSON_GetArraySize(points(b)) - MAX_ANSWER_POINTS);
                break;
            }
            const cJSON *m = rl_json_get(pt, "metrics");
            double ttft = stat(rl_json_get(m, "ttft"), "p50"),
                   tpot = stat(rl_json_get(m, "tpot"), "p50");
            double rps = value(rl_json_get(m, "rps"));
            rl_sbuf_printf(&s, "%sat concurrency %.0f ", k ? "; " : "", conc_of(pt));
            if (isfinite(ttft)) {
                num(ttft, a, sizeof a);
                rl_sbuf_printf(&s,
                               "the median request saw its first chunk after %s ms (a proxy "
                               "for the first token)",
                               a);
            } else {
                rl_sbuf_printf(&s, "no request succeeded");
            }
            if (isfinite(tpot)) {
                num(tpot, c, sizeof c);
                rl_sbuf_printf(&s, ", then %s ms per token", c);
            }
            if (isfinite(rps)) {
                num(rps, d, sizeof d);
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
                conc_of(lo));
    figure(&out[n++], "TTFT (median)", stat(rl_json_get(ml, "ttft"), "p50"), "ms", "proxy", note,
           rl_json_get(ml, "ttft"));
    rl_snprintf(note, sizeof note,
                "Median time per token after the first delivery at concurrency %.0f.", conc_of(lo));
    figure(&out[n++], "TPOT (median)", stat(rl_json_get(ml, "tpot"), "p50"), "ms", "derived", note,
           rl_json_get(ml, "tpot"));
    rl_snprintf(note, sizeof note, "Median send to end of answer at concurrency %.0f.",
                conc_of(lo));
    figure(&out[n++], "E2E latency (median)", stat(rl_json_get(ml, "e2e"), "p50"), "ms", "measured",
           note, rl_json_get(ml, "e2e"));
    rl_snprintf(note, sizeof note,
                "Successful requests per second over the measured window at concurrency %.0f.",
                conc_of(hi));
    figure(&out[n++], "Requests per second", value(rl_json_get(mh, "rps")), "req/s", "measured",
           note, rl_json_get(mh, "rps"));
    const cJSON *g = rl_json_get(hi, "goodput");
    rl_snprintf(note, sizeof note,
                "Requests meeting every SLO per second at concurrency %.0f (%.0f of %.0f good).",
                conc_of(hi), rl_json_num_or(g, "good", NAN), rl_json_num_or(g, "requests", NAN));
    figure(&out[n++], "Goodput", available(g) ? value(rl_json_get(g, "rps")) : NAN, "req/s",
           "derived", note, available(g) ? rl_json_get(g, "rps") : g);
    double measured, ok = total_ok(b, &measured);
    rl_snprintf(note, sizeof note, "%.0f of %.0f measured requests, every operating point.", ok,
                measured);
    figure(&out[n++], "Success rate", measured > 0 ? 100.0 * ok / measured : NAN, "%", "measured",
           note, NULL);
    return n;
}

/* TTFT, TPOT and E2E medians, requests/s and goodput/s of a point, as text ("n/a"). */
static void summary_cells(const cJSON *pt, char c[5][32])
{
    const cJSON *m = rl_json_get(pt, "metrics"), *g = rl_json_get(pt, "goodput");
    num(stat(rl_json_get(m, "ttft"), "p50"), c[0], 32);
    num(stat(rl_json_get(m, "tpot"), "p50"), c[1], 32);
    num(stat(rl_json_get(m, "e2e"), "p50"), c[2], 32);
    num(value(rl_json_get(m, "rps")), c[3], 32);
    num(available(g) ? value(rl_json_get(g, "rps")) : NAN, c[4], 32);
}

void rl_report_client_markdown(rl_sbuf *s, const cJSON *b, void (*esc)(rl_sbuf *, const char *))
{
    rl_sbuf_printf(s, "\n| Concurrency | OK / requests | TTFT p50 (ms, proxy) | TPOT p50 (ms) | "
                      "E2E p50 (ms) | Requests/s | Goodput (req/s) |\n"
                      "|---:|---:|---:|---:|---:|---:|---:|\n");
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        char c[5][32];
        summary_cells(pt, c);
        rl_sbuf_printf(s, "| %.0f | %.0f / %.0f | ", conc_of(pt),
                       rl_json_num_or(rl_json_get(pt, "requests"), "ok", NAN),
                       rl_json_num_or(rl_json_get(pt, "requests"), "measured", NAN));
        for (int i = 0; i < 5; i++) {
            esc(s, c[i]);
            rl_sbuf_printf(s, " |%s", i < 4 ? " " : "\n");
        }
    }
}

void rl_report_client_print(FILE *out, const cJSON *b)
{
    char line[1024], safe[1024];
    rl_report_client_answer(b, line, sizeof line);
    fprintf(out, "\nanswer: %s\n", rl_tty_escape(line, safe, sizeof safe));
    fprintf(out, "\n  %11s %9s %12s %10s %10s %10s %10s\n", "concurrency", "ok/total",
            "TTFT p50 ms", "TPOT ms", "E2E ms", "req/s", "goodput/s");
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        char c[5][32], okn[48];
        summary_cells(pt, c);
        rl_snprintf(okn, sizeof okn, "%.0f/%.0f",
                    rl_json_num_or(rl_json_get(pt, "requests"), "ok", NAN),
                    rl_json_num_or(rl_json_get(pt, "requests"), "measured", NAN));
        fprintf(out, "  %11.0f %9s %12s %10s %10s %10s %10s\n", conc_of(pt), okn, c[0], c[1], c[2],
                c[3], c[4]);
    }
}

/* ---- the HTML section ---------------------------------------------------------------------- */

static void badge(rl_html *h, xmlNodePtr parent, const char *kind)
{
    char cls[64];
    rl_snprintf(cls, sizeof cls, "kind kind-%s", kind);
    rl_html_el_text(h, parent, "span", cls, kind);
}

static void drop(xmlNodePtr root, const char *id)
{
    xmlNodePtr n = rl_html_by_id(root, id);
    if (n) {
        xmlUnlinkNode(n);
        xmlFreeNode(n);
    }
}

static xmlNodePtr table(rl_html *h, xmlNodePtr parent, const char *const *cols,
                        const char *const *kinds, size_t n)
{
    xmlNodePtr wrap = rl_html_el(h, parent, "div", "table-wrap");
    xmlNodePtr t = rl_html_el(h, wrap, "table", NULL);
    xmlNodePtr tr = rl_html_el(h, rl_html_el(h, t, "thead", NULL), "tr", NULL);
    for (size_t i = 0; i < n; i++) {
        xmlNodePtr th = rl_html_el_text(h, tr, "th", i ? "num" : NULL, cols[i]);
        rl_html_attr(h, th, "scope", "col");
        if (kinds && kinds[i]) {
            rl_html_el(h, th, "br", NULL);
            badge(h, th, kinds[i]);
        }
    }
    return rl_html_el(h, t, "tbody", NULL);
}

static void td(rl_html *h, xmlNodePtr tr, const char *text)
{
    rl_html_el_text(h, tr, "td", "num", text);
}

/* "p50 / p90 / p99" of a distribution, or "n/a". */
static void cell_stats(rl_html *h, xmlNodePtr tr, const cJSON *m, const char *const *keys,
                       size_t nk)
{
    if (!available(m)) {
        td(h, tr, "n/a");
        return;
    }
    char buf[128] = "", x[32];
    size_t len = 0;
    for (size_t i = 0; i < nk; i++) {
        num(stat(m, keys[i]), x, sizeof x);
        len += (size_t)rl_snprintf(buf + len, sizeof buf - len, "%s%s", i ? " / " : "", x);
        if (len >= sizeof buf)
            break;
    }
    td(h, tr, buf);
}

static void cell_value(rl_html *h, xmlNodePtr tr, const cJSON *m)
{
    char x[32];
    num(value(m), x, sizeof x);
    td(h, tr, x);
}

/* The metrics shown per point, in reading order. */
static const struct {
    const char *key, *label;
} metric_list[] = {
    {"ttft", "TTFT"},
    {"e2e", "E2E latency"},
    {"tpot", "TPOT"},
    {"generation", "generation time"},
    {"second_chunk", "second-chunk time"},
    {"chunk_gap", "chunk gaps"},
    {"deliveries", "deliveries per answer"},
    {"prompt_tokens", "prompt tokens"},
    {"output_tokens", "output tokens"},
    {"first_delivery_tokens", "first-delivery tokens"},
    {"prefill_tok_s", "prefill rate (proxy)"},
    {"output_tok_s", "per-request output rate"},
    {"decode_tok_s", "per-request decode rate"},
    {"decode_throughput", "decode rate, token-weighted"},
    {"output_throughput", "output token throughput"},
    {"total_throughput", "total token throughput"},
    {"rps", "requests per second"},
    {"repeatability", "repeatability"},
    {"stability_cv", "stability CV"},
};

static void overview(rl_html *h, xmlNodePtr body, const cJSON *b, xmlNodePtr notes)
{
    const char *cols[] = {"Concurrency",
                          "Requests ok / measured (attempts)",
                          "TTFT p50 / p90 / p99 (ms)",
                          "TPOT p50 / p90 (ms)",
                          "E2E p50 / p99 (ms)",
                          "Requests/s",
                          "Goodput (req/s, good / requests)",
                          "Output tok/s",
                          "Decode tok/s (token-weighted)",
                          "Stability CV"};
    const char *kinds[] = {"controlled", "measured", "proxy",   "derived", "measured",
                           "measured",   "derived",  "derived", "derived", "derived"};
    xmlNodePtr tb = table(h, body, cols, kinds, sizeof cols / sizeof cols[0]);
    const char *p3[] = {"p50", "p90", "p99"}, *p2[] = {"p50", "p90"}, *e2[] = {"p50", "p99"};
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        const cJSON *m = rl_json_get(pt, "metrics"), *rq = rl_json_get(pt, "requests"),
                    *g = rl_json_get(pt, "goodput");
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        char a[96];
        rl_snprintf(a, sizeof a, "%.0f", conc_of(pt));
        rl_html_el_text(h, tr, "td", NULL, a);
        rl_snprintf(a, sizeof a, "%.0f / %.0f (%.0f)", rl_json_num_or(rq, "ok", NAN),
                    rl_json_num_or(rq, "measured", NAN), rl_json_num_or(rq, "attempts", NAN));
        td(h, tr, a);
        cell_stats(h, tr, rl_json_get(m, "ttft"), p3, 3);
        cell_stats(h, tr, rl_json_get(m, "tpot"), p2, 2);
        cell_stats(h, tr, rl_json_get(m, "e2e"), e2, 2);
        cell_value(h, tr, rl_json_get(m, "rps"));
        if (available(g)) {
            char x[32];
            num(value(rl_json_get(g, "rps")), x, sizeof x);
            rl_snprintf(a, sizeof a, "%s (%.0f / %.0f)", x, rl_json_num_or(g, "good", NAN),
                        rl_json_num_or(g, "requests", NAN));
            td(h, tr, a);
        } else {
            td(h, tr, "n/a");
        }
        cell_value(h, tr, rl_json_get(m, "output_throughput"));
        cell_value(h, tr, rl_json_get(m, "decode_throughput"));
        cell_value(h, tr, rl_json_get(m, "stability_cv"));
        /* why the n/a cells are n/a */
        const char *shown[] = {
            "ttft", "tpot", "e2e", "rps", "output_throughput", "decode_throughput", "stability_cv"};
        for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
            const cJSON *x = rl_json_get(m, shown[i]);
            if (!available(x) && rl_json_get_str(x, "reason"))
                rl_html_el_textf(h, notes, "li", NULL, "Concurrency %.0f, %s: %s", conc_of(pt),
                                 shown[i], str(x, "reason", "?"));
        }
        if (!available(g) && k == 1 && rl_json_get_str(g, "reason"))
            rl_html_el_textf(h, notes, "li", NULL, "Goodput: %s", str(g, "reason", "?"));
    }
}

/* Every metric of one point: kind, unit, n, p50/p90/p99, mean +- CI, or value, or reason. */
static void point_metrics(rl_html *h, xmlNodePtr parent, const cJSON *pt)
{
    xmlNodePtr det = rl_html_el(h, parent, "details", "data");
    rl_html_el_textf(h, det, "summary", NULL, "Every metric at concurrency %.0f", conc_of(pt));
    const char *cols[] = {"Metric", "Kind",   "Unit", "n",
                          "p50",    "p90",    "p99",  "Mean \xC2\xB1 95% CI",
                          "Value",  "Missing"};
    xmlNodePtr tb = table(h, det, cols, NULL, sizeof cols / sizeof cols[0]);
    const cJSON *ms = rl_json_get(pt, "metrics");
    for (size_t i = 0; i < sizeof metric_list / sizeof metric_list[0]; i++) {
        const cJSON *m = rl_json_get(ms, metric_list[i].key);
        if (!m)
            continue;
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        rl_html_el_text(h, tr, "td", NULL, metric_list[i].label);
        if (!available(m)) {
            xmlNodePtr k = rl_html_el(h, tr, "td", NULL);
            badge(h, k, "unavailable");
            xmlNodePtr r = rl_html_el_text(h, tr, "td", "missing", str(m, "reason", "?"));
            rl_html_attr(h, r, "colspan", "8");
            continue;
        }
        badge(h, rl_html_el(h, tr, "td", NULL), str(m, "kind", "?"));
        rl_html_el_text(h, tr, "td", NULL, str(m, "unit", ""));
        const cJSON *s = rl_json_get(m, "stats");
        char x[64], y[32];
        if (s) {
            rl_snprintf(x, sizeof x, "%.0f", rl_json_num_or(s, "n", NAN));
            td(h, tr, x);
            const char *ps[] = {"p50", "p90", "p99"};
            for (int j = 0; j < 3; j++) {
                num(rl_json_num_or(s, ps[j], NAN), x, sizeof x);
                td(h, tr, x);
            }
            const cJSON *ci = rl_json_get(s, "ci95");
            num(rl_json_num_or(s, "mean", NAN), y, sizeof y);
            if (available(ci) && isfinite(rl_json_num_or(ci, "low", NAN))) {
                char half[32];
                num((rl_json_num_or(ci, "high", NAN) - rl_json_num_or(ci, "low", NAN)) / 2, half,
                    sizeof half);
                rl_snprintf(x, sizeof x, "%s \xC2\xB1 %s", y, half);
            } else {
                rl_snprintf(x, sizeof x, "%s (no CI: one sample)", y);
            }
            td(h, tr, x);
            td(h, tr, "");
        } else {
            for (int j = 0; j < 5; j++)
                td(h, tr, "");
            cell_value(h, tr, m);
        }
        const cJSON *ex = rl_json_get(m, "excluded");
        if (ex)
            rl_html_el_textf(h, tr, "td", NULL, "%.0f: %s", rl_json_num_or(ex, "n", NAN),
                             str(ex, "reason", "?"));
        else
            rl_html_el_text(h, tr, "td", NULL, "");
    }
}

static void point_records(rl_html *h, xmlNodePtr parent, const cJSON *pt)
{
    const cJSON *recs = rl_json_get(pt, "records");
    int n = cJSON_GetArraySize(recs);
    if (n <= 0)
        return;
    xmlNodePtr det = rl_html_el(h, parent, "details", "data");
    rl_html_el_textf(h, det, "summary", NULL, "Every request at concurrency %.0f (%d)", conc_of(pt),
                     n);
    const char *cols[] = {"Prompt",        "Run",      "Attempts",  "Result",
                          "TTFT (ms)",     "E2E (ms)", "TPOT (ms)", "Chunks / deliveries",
                          "Output tokens", "Good"};
    xmlNodePtr tb = table(h, det, cols, NULL, sizeof cols / sizeof cols[0]);
    const cJSON *r;
    int k = 0;
    cJSON_ArrayForEach(r, recs)
    {
        if (k++ == MAX_RECORDS) {
            rl_html_el_textf(h, det, "p", "missing", "%d more requests are in the bundle.",
                             n - MAX_RECORDS);
            break;
        }
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        char x[64];
        rl_html_el_text(h, tr, "td", NULL, str(r, "prompt", "?"));
        rl_snprintf(x, sizeof x, "%.0f", rl_json_num_or(r, "run", NAN));
        td(h, tr, x);
        rl_snprintf(x, sizeof x, "%.0f", rl_json_num_or(r, "attempts", NAN));
        td(h, tr, x);
        bool ok = false;
        rl_json_get_bool(r, "ok", &ok);
        if (ok)
            rl_html_el_text(h, tr, "td", NULL, "ok");
        else
            rl_html_el_textf(h, tr, "td", "missing", "failed: %s", str(r, "error", "?"));
        const char *ks[] = {"ttft_ms", "e2e_ms", "tpot_ms"};
        for (int j = 0; j < 3; j++) {
            num(rl_json_num_or(r, ks[j], NAN), x, sizeof x);
            td(h, tr, x);
        }
        rl_snprintf(x, sizeof x, "%.0f / %.0f", rl_json_num_or(r, "chunks", NAN),
                    rl_json_num_or(r, "deliveries", NAN));
        td(h, tr, x);
        double ot = rl_json_num_or(r, "output_tokens", NAN);
        if (isfinite(ot))
            rl_snprintf(x, sizeof x, "%.0f", ot);
        else
            rl_snprintf(x, sizeof x, "n/a");
        td(h, tr, x);
        bool good = false;
        const cJSON *gv = rl_json_get(r, "good");
        rl_html_el_text(h, tr, "td", NULL,
                        cJSON_IsBool(gv)
                            ? (rl_json_get_bool(r, "good", &good) && good ? "yes" : "no")
                            : "no SLO");
    }
}

static void setup(rl_html *h, xmlNodePtr body, const cJSON *c)
{
    xmlNodePtr dl = rl_html_el(h, body, "dl", "facts");
    const cJSON *d = rl_json_get(c, "driver"), *tk = rl_json_get(c, "tokens"),
                *st = rl_json_get(c, "settings");
    rl_html_el_text(h, dl, "dt", NULL, "Driver");
    if (strcmp(str(d, "type", ""), "http") == 0)
        rl_html_el_textf(h, dl, "dd", NULL, "HTTP %s API at %s%s%s", str(d, "api", "?"),
                         str(d, "url", "?"), rl_json_get_str(d, "model") ? ", model " : "",
                         str(d, "model", ""));
    else
        rl_html_el_textf(h, dl, "dd", NULL, "command: %s", str(d, "command", "?"));
    rl_html_el_text(h, dl, "dt", NULL, "Token counts");
    const cJSON *cal = rl_json_get(tk, "calibration");
    if (available(cal))
        rl_html_el_textf(
            h, dl, "dd", NULL, "%s; counter calibrated: step %.0f, framing overhead %.0f (%s)",
            str(tk, "source", "?"), rl_json_num_or(cal, "step", NAN),
            rl_json_num_or(cal, "overhead", NAN),
            cJSON_IsTrue(rl_json_get(cal, "subtracted")) ? "subtracted" : "not subtracted");
    else
        rl_html_el_textf(h, dl, "dd", NULL, "%s%s%s", str(tk, "source", "?"),
                         rl_json_get_str(cal, "reason") ? "; " : "", str(cal, "reason", ""));
    rl_html_el_text(h, dl, "dt", NULL, "Runs");
    rl_html_el_textf(h, dl, "dd", NULL,
                     "%.0f per prompt after %.0f warm-up request(s) per operating point; retry "
                     "%.0f; timeout %.0f s",
                     rl_json_num_or(st, "runs", NAN), rl_json_num_or(st, "warmup", NAN),
                     rl_json_num_or(st, "retry", NAN), rl_json_num_or(st, "timeout_s", NAN));
    const cJSON *pr = rl_json_get(st, "prompts");
    rl_html_el_text(h, dl, "dt", NULL, "Prompts");
    rl_html_el_textf(h, dl, "dd", NULL, "%.0f from %s %s", rl_json_num_or(pr, "n", NAN),
                     str(pr, "source", "?"), str(pr, "name", ""));
    const cJSON *slo = rl_json_get(st, "slo");
    rl_html_el_text(h, dl, "dt", NULL, "SLOs (goodput)");
    xmlNodePtr dd = rl_html_el(h, dl, "dd", NULL);
    static const char *const keys[] = {"ttft_ms", "tpot_ms", "e2e_ms"};
    static const char *const names[] = {"TTFT", "TPOT", "E2E"};
    bool any = false;
    for (int i = 0; i < 3; i++) {
        double v = rl_json_num_or(slo, keys[i], NAN);
        if (!isfinite(v))
            continue;
        char x[32];
        num(v, x, sizeof x);
        rl_html_textf(h, dd, "%s%s at most %s ms", any ? ", " : "", names[i], x);
        any = true;
    }
    if (!any)
        rl_html_text(h, dd, "none set, so no goodput");
}

static rl_status charts(rl_html *h, xmlNodePtr body, const cJSON *b, rl_error *err)
{
    static const struct {
        rl_html_chart_fn fn;
        const char *what;
    } list[] = {
        {rl_chart_client_ttft, "the TTFT distribution"},
        {rl_chart_client_tpot, "the TPOT distribution"},
        {rl_chart_client_throughput, "throughput and goodput"},
    };
    xmlNodePtr missing = NULL;
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        xmlNodePtr fig;
        rl_status st = rl_html_chart_or_missing(h, body, body, &missing, list[i].fn, b,
                                                list[i].what, &fig, err);
        if (st != RL_OK && st != RL_NOTHING)
            return st;
    }
    return RL_OK;
}

rl_status rl_html_client(rl_html *h, xmlNodePtr root, const cJSON *b, rl_error *err)
{
    const cJSON *c = rl_json_get(b, "client");
    if (!cJSON_IsObject(c)) {
        drop(root, "client");
        return RL_OK;
    }
    if (rl_report_client_only(b)) {
        static const char *const roofline[] = {"charts", "models", "long-context", "not-measured"};
        for (size_t i = 0; i < sizeof roofline / sizeof roofline[0]; i++)
            drop(root, roofline[i]);
    }
    xmlNodePtr body = rl_html_by_id(root, "client-body");
    if (!body)
        return rl_fail(err, RL_EINTERNAL, "report: the template has no client-body");
    rl_html_el_text(h, body, "p", "lead",
                    "What a user of the streaming model saw, measured from the client side: "
                    "each request's send, every chunk of its answer as it arrived, and its "
                    "end. Each figure says how it was obtained: measured (observed here), "
                    "proxy (observed at a coarser grain than the ideal), derived (computed "
                    "from measured values) or controlled (a setting). Distributions are over "
                    "the successful requests of an operating point; a failed request counts "
                    "only in the request counts and goodput.");
    xmlNodePtr cav = rl_html_el(h, body, "ul", "caveats");
    rl_html_el_text(h, cav, "li", "caveat",
                    "TTFT, second-chunk time and chunk gaps are proxies: they time chunks of "
                    "the answer as the client read them, and a chunk can hold several tokens "
                    "(chunks less than 5 ms apart count as one delivery). TTFT includes "
                    "start-up, queueing and transport, so the prefill rate from it understates "
                    "the model's.");
    setup(h, body, c);
    xmlNodePtr notes = rl_html_el(h, NULL, "ul", "missing");
    overview(h, body, b, notes);
    if (notes && notes->children)
        xmlAddChild(body, notes);
    else if (notes)
        xmlFreeNode(notes);
    rl_status st = charts(h, body, b, err);
    if (st != RL_OK)
        return st;
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        point_metrics(h, body, pt);
        point_records(h, body, pt);
    }
    if (h->oom)
        return rl_fail(err, RL_EINTERNAL, "report: out of memory");
    return RL_OK;
}
