/* SPDX-License-Identifier: MIT */
/* html_advice.c: the measured-advice section of the report. See html_advice.h. */
#include "render/html_advice.h"

#include <math.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"

static void td(rl_html *h, xmlNodePtr tr, bool num, const char *text)
{
    rl_html_el_text(h, tr, "td", num ? "num" : NULL, text);
}

static void td_num(rl_html *h, xmlNodePtr tr, const cJSON *o, const char *key, int digits,
                   const char *suffix)
{
    double v;
    char buf[64];
    if (rl_json_get_num(o, key, &v) && isfinite(v))
        rl_snprintf(buf, sizeof buf, "%.*f%s", digits, v, suffix);
    else
        rl_snprintf(buf, sizeof buf, "n/a");
    td(h, tr, true, buf);
}

static void one_table(rl_html *h, xmlNodePtr sec, const cJSON *t, bool pred)
{
    int64_t th = 0;
    rl_json_get_i64(t, "threads", &th);
    rl_html_el_textf(h, sec, "h3", NULL, "%lld thread%s", (long long)th, th == 1 ? "" : "s");
    static const char *const cols[] = {
        "format",        "file",          "decode tok/s",   "95% interval", "vs best",
        "MiB per token", "GB/s streamed", "below envelope", "on-label",     "bits/weight"};
    static const bool numeric[] = {false, false, true, true, true, true, true, true, true, true};
    const char *names[sizeof cols / sizeof cols[0]];
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        names[i] = !pred ? cols[i] : i == 2 ? "predicted tok/s" : i == 3 ? "binding roof" : cols[i];
    xmlNodePtr body = rl_html_table(h, sec, NULL, names, numeric, sizeof cols / sizeof cols[0]);
    const cJSON *r;
    int i = 0;
    cJSON_ArrayForEach(r, rl_json_get(t, "rows"))
    {
        bool tied = cJSON_IsTrue(rl_json_get(r, "tied"));
        xmlNodePtr row = rl_html_el(h, body, "tr", NULL);
        const char *fmt = rl_json_get_str(r, "format");
        const char *name = rl_json_get_str(r, "name");
        if (i == 0) /* the fastest, in bold */
            rl_html_el_text(h, rl_html_el(h, row, "td", NULL), "strong", NULL, fmt ? fmt : "?");
        else
            td(h, row, false, fmt ? fmt : "?");
        td(h, row, false, name ? name : "?");
        td_num(h, row, r, "tok_s", 2, "");
        const cJSON *ci = rl_json_get(rl_json_get(rl_json_get(r, "decode"), "stats"), "ci95");
        double lo, hi;
        char buf[64];
        const char *bind = rl_json_get_str(rl_json_get(r, "two_roof"), "binding");
        if (pred)
            rl_snprintf(buf, sizeof buf, "%s kernel", bind ? bind : "?");
        else if (rl_json_get_num(ci, "low", &lo) && rl_json_get_num(ci, "high", &hi))
            rl_snprintf(buf, sizeof buf, "%.2f to %.2f", lo, hi);
        else
            rl_snprintf(buf, sizeof buf, "n/a (one sample)");
        td(h, row, true, buf);
        double v = rl_json_num_or(r, "vs_best_pct", 0);
        if (i == 0)
            rl_snprintf(buf, sizeof buf, "fastest");
        else
            rl_snprintf(buf, sizeof buf, "%.0f%%%s", fabs(v) < 0.5 ? 0.0 : v,
                        tied ? " (tied)" : "");
        td(h, row, true, buf);
        td_num(h, row, r, "streamed_MiB", 1, "");
        td_num(h, row, r, "streamed_GBs", 2, "");
        td_num(h, row, r, "envelope_deficit_pct", 0, "%");
        td_num(h, row, r, "on_label_pct", 0, "%");
        td_num(h, row, r, "bits_per_weight", 2, "");
        i++;
    }
    const cJSON *mb = rl_json_get(t, "matched_bytes");
    if (mb && !cJSON_IsFalse(rl_json_get(mb, "available"))) {
        const char *fa = rl_json_get_str(mb, "fastest"), *sl = rl_json_get_str(mb, "slowest");
        rl_html_el_textf(h, sec, "p", "lead",
                         "Same bytes: %s and %s stream within 3%% of %.0f MiB per token, and %s "
                         "is %.0f%% faster anyway. That difference is unpacking work, not memory "
                         "traffic.",
                         fa ? fa : "?", sl ? sl : "?", rl_json_num_or(mb, "mean_streamed_MiB", 0),
                         fa ? fa : "?", rl_json_num_or(mb, "spread_pct", 0));
    } else {
        rl_html_el_text(h, sec, "p", "lead",
                        "No two files stream within 3% of the same bytes at this thread count: "
                        "here speed differs by size first, so this is a size comparison, not a "
                        "format comparison.");
    }
    const char *w = rl_json_get_str(t, "composition_warning");
    if (w) {
        xmlNodePtr ul = rl_html_el(h, sec, "ul", "caveats");
        rl_html_el_text(h, ul, "li", "caveat", w);
    }
}

void rl_html_advice(rl_html *h, xmlNodePtr root, const cJSON *bundle)
{
    xmlNodePtr ph = rl_html_by_id(root, "advice");
    if (!ph)
        return;
    const cJSON *adv = rl_json_get(bundle, "advice");
    if (!cJSON_IsObject(adv)) {
        xmlUnlinkNode(ph);
        xmlFreeNode(ph);
        return;
    }
    xmlNodePtr sec = rl_html_el(h, NULL, "section", "advice");
    if (!sec)
        return;
    rl_html_attr(h, sec, "id", "advice");
    rl_html_attr(h, sec, "aria-labelledby", "h-advice");
    const char *basis = rl_json_get_str(adv, "basis");
    bool pred = basis && strcmp(basis, "predicted") == 0;
    xmlNodePtr h2 = rl_html_el_text(h, sec, "h2", NULL,
                                    pred ? "Which quantization format, predicted from the "
                                           "calibration"
                                         : "Which quantization format, measured here");
    rl_html_attr(h, h2, "id", "h-advice");
    const char *machine = rl_json_get_str(adv, "machine");
    const char *fastest = rl_json_get_str(adv, "fastest");
    int64_t bt = 0;
    if (fastest && rl_json_get_i64(adv, "best_threads", &bt))
        rl_html_el_textf(h, sec, "p", "answer", "Fastest on %s: %s, at %lld thread%s.",
                         machine ? machine : "this machine", fastest, (long long)bt,
                         bt == 1 ? "" : "s");
    if (pred)
        rl_html_el_text(h, sec, "p", "lead",
                        "No file was run: each file's bytes per ggml type, from its tensor "
                        "table, through the kernel rates calibrated on this machine with "
                        "single-type models (two roofs; the calibration is in this bundle). "
                        "Predicted rates are derived; measure the leaders before quoting them.");
    rl_html_el_textf(
        h, sec, "p", "lead",
        "%s, one table per thread count and "
        "nothing averaged across them. Formats within 5%% of the fastest are tied (not reliably "
        "ordered). GB/s is the decode rate times the bytes streamed per token; below envelope "
        "is how far a format's GB/s falls under the best of its table, time spent unpacking "
        "rather than moving bytes. On-label is the share of the repeating layers' bytes in the "
        "type the label names. Throughput only: nothing here measures output quality.",
        pred ? "Each file predicted" : "Each file measured with llama-bench on this machine");
    const cJSON *tables = rl_json_get(adv, "tables");
    if (!cJSON_IsArray(tables)) {
        const char *why = rl_json_get_str(tables, "reason");
        rl_html_el_textf(h, sec, "p", "missing", "No table: %s.", why ? why : "nothing decoded");
    } else {
        const cJSON *t;
        cJSON_ArrayForEach(t, tables)
        {
            one_table(h, sec, t, pred);
        }
    }
    const cJSON *s;
    cJSON_ArrayForEach(s, rl_json_get(adv, "skipped"))
    {
        const char *id = rl_json_get_str(s, "model_id"), *why = rl_json_get_str(s, "reason");
        rl_html_el_textf(h, sec, "p", "missing", "Model %s left out: %s.", id ? id : "?",
                         why ? why : "?");
    }
    xmlReplaceNode(ph, sec);
    xmlFreeNode(ph);
}
