/* SPDX-License-Identifier: MIT */
/* html_client.c: the report's streaming-client section (html_client.h); the client bundle's
 * words are in client_text.c. Reads client.points[] as src/client_metrics.c writes it; a hostile
 * bundle gives "n/a" cells, never a crash: every look-up is typed and every count capped. */
#include "render/html_client.h"

#include <math.h>
#include <string.h>

#include <libxml/tree.h>

#include "render/chart/chart.h"
#include "render/chart/chart_int.h"
#include "render/html_svg.h"
#include "base/rl_json.h"
#include "base/rl_util.h"

#define MAX_POINTS RL_REPORT_CLIENT_MAX_POINTS
#define MAX_RECORDS 2000 /* requests listed per point */

static const char *str(const cJSON *o, const char *k, const char *dflt)
{
    const char *s = rl_json_get_str(o, k);
    return s ? s : dflt;
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

/* "p50 / p95 / p99" of a distribution, or "n/a". */
static void cell_stats(rl_html *h, xmlNodePtr tr, const cJSON *m, const char *const *keys,
                       size_t nk)
{
    if (!rl_report_client_available(m)) {
        td(h, tr, "n/a");
        return;
    }
    char buf[128] = "", x[32];
    size_t len = 0;
    for (size_t i = 0; i < nk; i++) {
        rl_report_client_num(rl_report_client_stat(m, keys[i]), x, sizeof x);
        len += (size_t)rl_snprintf(buf + len, sizeof buf - len, "%s%s", i ? " / " : "", x);
        if (len >= sizeof buf)
            break;
    }
    td(h, tr, buf);
}

static void cell_value(rl_html *h, xmlNodePtr tr, const cJSON *m)
{
    char x[32];
    rl_report_client_num(rl_report_client_value(m), x, sizeof x);
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
                          "TTFT p50 / p95 / p99 (ms)",
                          "TPOT p50 / p95 (ms)",
                          "E2E p50 / p95 / p99 (ms)",
                          "Requests/s",
                          ("Goodput (req/s; good / all requests; good / successful, fm-bench's "
                           "goodputRate)"),
                          "Output tok/s",
                          "Decode tok/s (token-weighted)",
                          "Stability CV"};
    const char *kinds[] = {"controlled", "measured", "proxy",   "derived", "measured",
                           "measured",   "derived",  "derived", "derived", "derived"};
    xmlNodePtr tb = table(h, body, cols, kinds, sizeof cols / sizeof cols[0]);
    const char *p3[] = {"p50", "p95", "p99"}, *p2[] = {"p50", "p95"}, *e2[] = {"p50", "p95", "p99"};
    const cJSON *pt;
    size_t k = 0;
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
    {
        if (k++ == MAX_POINTS)
            break;
        const cJSON *m = rl_json_get(pt, "metrics"), *rq = rl_json_get(pt, "requests"),
                    *g = rl_json_get(pt, "goodput");
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        char a[96];
        const char *mn = rl_json_get_str(pt, "model"); /* client --model A,B */
        rl_snprintf(a, sizeof a, "%s%s%.0f", mn ? mn : "", mn ? ", " : "",
                    rl_report_client_conc(pt));
        rl_html_el_text(h, tr, "td", NULL, a);
        rl_snprintf(a, sizeof a, "%.0f / %.0f (%.0f)", rl_json_num_or(rq, "ok", NAN),
                    rl_json_num_or(rq, "measured", NAN), rl_json_num_or(rq, "attempts", NAN));
        td(h, tr, a);
        cell_stats(h, tr, rl_json_get(m, "ttft"), p3, 3);
        cell_stats(h, tr, rl_json_get(m, "tpot"), p2, 2);
        cell_stats(h, tr, rl_json_get(m, "e2e"), e2, 3);
        cell_value(h, tr, rl_json_get(m, "rps"));
        if (rl_report_client_available(g)) {
            char x[32];
            rl_report_client_num(rl_report_client_value(rl_json_get(g, "rps")), x, sizeof x);
            double ok_n = rl_json_num_or(g, "ok", NAN);
            if (isfinite(ok_n))
                rl_snprintf(a, sizeof a, "%s (%.0f / %.0f all; %.0f / %.0f ok)", x,
                            rl_json_num_or(g, "good", NAN), rl_json_num_or(g, "requests", NAN),
                            rl_json_num_or(g, "good", NAN), ok_n);
            else /* a bundle from before fraction_of_ok */
                rl_snprintf(a, sizeof a, "%s (%.0f / %.0f all)", x, rl_json_num_or(g, "good", NAN),
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
            if (!rl_report_client_available(x) && rl_json_get_str(x, "reason"))
                rl_html_el_textf(h, notes, "li", NULL, "Concurrency %.0f, %s: %s",
                                 rl_report_client_conc(pt), shown[i], str(x, "reason", "?"));
        }
        if (!rl_report_client_available(g) && k == 1 && rl_json_get_str(g, "reason"))
            rl_html_el_textf(h, notes, "li", NULL, "Goodput: %s", str(g, "reason", "?"));
    }
}

/* Every metric of one point: kind, unit, n, p50/p90/p95/p99, mean +- CI, or value, or reason. */
static void point_metrics(rl_html *h, xmlNodePtr parent, const cJSON *pt)
{
    xmlNodePtr det = rl_html_el(h, parent, "details", "data");
    rl_html_el_textf(h, det, "summary", NULL, "Every metric at concurrency %.0f",
                     rl_report_client_conc(pt));
    const char *cols[] = {
        "Metric", "Kind",   "Unit", "n", "p50", "p90", "p95", "p99", "Mean \xC2\xB1 95% CI",
        "Value",  "Missing"};
    xmlNodePtr tb = table(h, det, cols, NULL, sizeof cols / sizeof cols[0]);
    const cJSON *ms = rl_json_get(pt, "metrics");
    for (size_t i = 0; i < sizeof metric_list / sizeof metric_list[0]; i++) {
        const cJSON *m = rl_json_get(ms, metric_list[i].key);
        if (!m)
            continue;
        xmlNodePtr tr = rl_html_el(h, tb, "tr", NULL);
        rl_html_el_text(h, tr, "td", NULL, metric_list[i].label);
        if (!rl_report_client_available(m)) {
            xmlNodePtr k = rl_html_el(h, tr, "td", NULL);
            badge(h, k, "unavailable");
            xmlNodePtr r = rl_html_el_text(h, tr, "td", "missing", str(m, "reason", "?"));
            rl_html_attr(h, r, "colspan", "9");
            continue;
        }
        badge(h, rl_html_el(h, tr, "td", NULL), str(m, "kind", "?"));
        rl_html_el_text(h, tr, "td", NULL, str(m, "unit", ""));
        const cJSON *s = rl_json_get(m, "stats");
        char x[64], y[32];
        if (s) {
            rl_snprintf(x, sizeof x, "%.0f", rl_json_num_or(s, "n", NAN));
            td(h, tr, x);
            const char *ps[] = {"p50", "p90", "p95", "p99"};
            for (int j = 0; j < 4; j++) {
                rl_report_client_num(rl_json_num_or(s, ps[j], NAN), x, sizeof x);
                td(h, tr, x);
            }
            const cJSON *ci = rl_json_get(s, "ci95");
            rl_report_client_num(rl_json_num_or(s, "mean", NAN), y, sizeof y);
            if (rl_report_client_available(ci) && isfinite(rl_json_num_or(ci, "low", NAN))) {
                char half[32];
                rl_report_client_num(
                    (rl_json_num_or(ci, "high", NAN) - rl_json_num_or(ci, "low", NAN)) / 2, half,
                    sizeof half);
                rl_snprintf(x, sizeof x, "%s \xC2\xB1 %s", y, half);
            } else {
                rl_snprintf(x, sizeof x, "%s (no CI: one sample)", y);
            }
            td(h, tr, x);
            td(h, tr, "");
        } else {
            for (int j = 0; j < 6; j++)
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
    int n = cJSON_IsArray(recs) ? cJSON_GetArraySize(recs) : 0; /* unavailable: an import */
    if (n <= 0)
        return;
    xmlNodePtr det = rl_html_el(h, parent, "details", "data");
    rl_html_el_textf(h, det, "summary", NULL, "Every request at concurrency %.0f (%d)",
                     rl_report_client_conc(pt), n);
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
            rl_report_client_num(rl_json_num_or(r, ks[j], NAN), x, sizeof x);
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

/* --tag and --note of the run (client.settings.tags, .note), when it had any. */
void rl_html_client_labels(rl_html *h, xmlNodePtr dl, const cJSON *st)
{
    const cJSON *tags = rl_json_get(st, "tags"), *t;
    if (cJSON_GetArraySize(tags) > 0) {
        rl_html_el_text(h, dl, "dt", NULL, "Tags");
        xmlNodePtr dd = rl_html_el(h, dl, "dd", NULL);
        size_t k = 0;
        cJSON_ArrayForEach(t, tags)
        {
            if (cJSON_IsString(t))
                rl_html_textf(h, dd, "%s%s", k++ ? ", " : "", t->valuestring);
        }
    }
    const char *note = rl_json_get_str(st, "note");
    if (note) {
        rl_html_el_text(h, dl, "dt", NULL, "Note");
        rl_html_el_text(h, dl, "dd", NULL, note);
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
    const cJSON *cv = rl_json_get(c, "conventions"); /* an fm-bench import states its own */
    if (cJSON_IsObject(cv)) {
        rl_html_el_text(h, dl, "dt", NULL, "Metric conventions");
        rl_html_el_textf(h, dl, "dd", NULL,
                         "as %s computed them: TPOT = %s; generation = %s; chunks: %s; output "
                         "tokens: %s",
                         str(cv, "source", "?"), str(cv, "tpot", "?"), str(cv, "generation", "?"),
                         str(cv, "chunks", "?"), str(cv, "output_tokens", "?"));
    }
    char step[48] = ""; /* an fm-bench import keeps the overhead only */
    if (isfinite(rl_json_num_or(cal, "step", NAN)))
        rl_snprintf(step, sizeof step, "step %.0f, ", rl_json_num_or(cal, "step", NAN));
    if (rl_report_client_available(cal))
        rl_html_el_textf(h, dl, "dd", NULL, "%s; counter calibrated: %sframing overhead %.0f (%s)",
                         str(tk, "source", "?"), step, rl_json_num_or(cal, "overhead", NAN),
                         cJSON_IsTrue(rl_json_get(cal, "subtracted")) ? "subtracted"
                                                                      : "not subtracted");
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
    const char *req = rl_json_get_str(pr, "requested"), *fmt = rl_json_get_str(pr, "format");
    double n_inline = rl_json_num_or(pr, "inline", NAN);
    xmlNodePtr pdd = rl_html_el(h, dl, "dd", NULL);
    rl_html_textf(h, pdd, "%.0f from %s %s", rl_json_num_or(pr, "n", NAN), str(pr, "source", "?"),
                  str(pr, "name", ""));
    if (fmt) /* the file's format, read from its content */
        rl_html_textf(h, pdd, " (%s)", fmt);
    if (req)
        rl_html_textf(h, pdd, ", for fm-bench's profile %s", req);
    if (isfinite(n_inline) && fmt)
        rl_html_textf(h, pdd, ", then %.0f from --prompt", n_inline);
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
        rl_report_client_num(v, x, sizeof x);
        rl_html_textf(h, dd, "%s%s at most %s ms", any ? ", " : "", names[i], x);
        any = true;
    }
    if (!any)
        rl_html_text(h, dd, "none set, so no goodput");
    rl_html_client_labels(h, dl, st);
    const cJSON *gate = rl_json_get(c, "gate");
    if (cJSON_IsObject(gate)) {
        rl_html_el_text(h, dl, "dt", NULL, "CI gate");
        xmlNodePtr gd = rl_html_el(h, dl, "dd", NULL);
        if (cJSON_IsTrue(rl_json_get(gate, "passed")))
            rl_html_text(h, gd, "passed");
        else
            rl_html_text(h, gd, "failed:");
        const cJSON *r;
        size_t k = 0;
        cJSON_ArrayForEach(r, rl_json_get(gate, "reasons"))
        {
            if (cJSON_IsString(r))
                rl_html_textf(h, gd, "%s %s", k++ ? ";" : "", r->valuestring);
        }
    }
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
    cJSON_ArrayForEach(pt, rl_report_client_points(b))
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
