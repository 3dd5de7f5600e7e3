/* SPDX-License-Identifier: MIT */
/* import_fm.c: an fm-bench JSON report made into a client bundle (import_fm.h states the rules;
 * docs/BUNDLE.md "Imported bundles" the result). The report is checked as it is read: every
 * value read is type- and range-checked and every message names the file and the field.
 *
 * Every tree built here is attached to the bundle (or to its parent) as soon as it exists, so
 * the caller's one cJSON_Delete of the bundle releases everything on any failure path. */
#include "bundle/import_fm.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "measure/sysinfo.h"

#define MAX_NUM 1e12
#define MAX_COUNT 1e9
#define MAX_CONC 4096
#define SAME_TOL 1e-10 /* samples reproduce a statistic (validate allows 1e-9) */

/* The report being read. */
typedef struct {
    const char *file;
    rl_error *err;
    bool v08;               /* 0.8.0 or later: its conventions */
    const char *version;    /* as the report gives it */
    const cJSON *results;   /* checked, or NULL when none */
    const cJSON *catalogue; /* report.metrics, or NULL */
    const cJSON *slo;       /* options.slo, or NULL */
    double rate, ramp;      /* options.requestRate, rampUpMs; NAN when not set */
    int64_t warmup;
} fm;

/* ---- reading typed values ------------------------------------------------------------- */

/* RL_EINPUT: "FILE: PATH.KEY is WHAT; expected EXPECT". */
static rl_status bad(fm *c, const char *path, const char *key, const cJSON *it, const char *expect)
{
    return rl_json_fail_at(c->err, c->file, path, key, it, expect);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return it && !cJSON_IsNull(it) ? it : NULL;
}

/* A number in [lo, hi] (whole when asked), or nothing: *has false. */
static rl_status num(fm *c, const cJSON *o, const char *path, const char *key, double lo, double hi,
                     bool whole, bool *has, double *v)
{
    const cJSON *it = get(o, key);
    *has = false;
    if (!it)
        return RL_OK;
    double d = cJSON_IsNumber(it) ? it->valuedouble : NAN;
    if (!(d >= lo && d <= hi) || (whole && d != floor(d))) {
        char e[96];
        if (whole)
            rl_snprintf(e, sizeof e, "a whole number from %.0f to %.0f", lo, hi);
        else
            rl_snprintf(e, sizeof e, "a number from %g to %g", lo, hi);
        return bad(c, path, key, it, e);
    }
    *has = true;
    *v = d;
    return RL_OK;
}

/* A string of at most max bytes, or nothing (*out NULL). */
static rl_status str(fm *c, const cJSON *o, const char *path, const char *key, size_t max,
                     const char **out)
{
    const cJSON *it = get(o, key);
    *out = NULL;
    if (!it)
        return RL_OK;
    if (!cJSON_IsString(it))
        return bad(c, path, key, it, "a string");
    size_t n = strlen(it->valuestring);
    if (n > max)
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %s%s%s is a string of %zu bytes; expected at most %zu", c->file, path,
                       *path ? "." : "", key, n, max);
    *out = it->valuestring;
    return RL_OK;
}

/* true, false or nothing (*v -1). */
static rl_status boolean(fm *c, const cJSON *o, const char *path, const char *key, int *v)
{
    const cJSON *it = get(o, key);
    *v = -1;
    if (it && !cJSON_IsBool(it))
        return bad(c, path, key, it, "true or false");
    if (it)
        *v = cJSON_IsTrue(it) ? 1 : 0;
    return RL_OK;
}

/* An object or nothing. */
static rl_status obj(fm *c, const cJSON *o, const char *path, const char *key, const cJSON **out)
{
    const cJSON *it = get(o, key);
    *out = NULL;
    if (it && !cJSON_IsObject(it))
        return bad(c, path, key, it, "an object");
    *out = it;
    return RL_OK;
}

/* An array of at most max entries or nothing. */
static rl_status arr(fm *c, const cJSON *o, const char *path, const char *key, int max,
                     const cJSON **out)
{
    const cJSON *it = get(o, key);
    *out = NULL;
    if (!it)
        return RL_OK;
    if (!cJSON_IsArray(it))
        return bad(c, path, key, it, "an array");
    if (cJSON_GetArraySize(it) > max)
        return rl_fail(c->err, RL_EINPUT, "%s: %s%s%s has %d entries; expected at most %d", c->file,
                       path, *path ? "." : "", key, cJSON_GetArraySize(it), max);
    *out = it;
    return RL_OK;
}

static rl_status oom(fm *c)
{
    return rl_fail(c->err, RL_EINTERNAL, "out of memory");
}

/* ---- the version and its conventions ------------------------------------------------ */

static rl_status check_version(fm *c, const cJSON *root)
{
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(root, "tool");
    if (tool && !(cJSON_IsString(tool) && strcmp(tool->valuestring, "fm-bench") == 0))
        return bad(c, "", "tool", tool, "\"fm-bench\"");
    const cJSON *sv = get(root, "schemaVersion");
    if (sv && !(cJSON_IsString(sv) && strcmp(sv->valuestring, "1") == 0)) {
        char shown[48], w[48];
        if (cJSON_IsString(sv))
            rl_snprintf(w, sizeof w, "\"%s\"", rl_tty_escape(sv->valuestring, shown, 32));
        return rl_fail(c->err, RL_EINPUT,
                       "%s: schemaVersion is %s; this import reads fm-bench's report schema \"1\" "
                       "(fm-bench 0.7 and 0.8) only",
                       c->file, cJSON_IsString(sv) ? w : rl_json_describe(sv, w, sizeof w));
    }
    rl_status st = str(c, root, "", "version", 32, &c->version);
    int major = -1, minor = -1;
    if (st == RL_OK &&
        (!c->version || sscanf(c->version, "%d.%d", &major, &minor) != 2 || major < 0 || minor < 0))
        st = bad(c, "", "version", get(root, "version"), "an fm-bench version such as \"0.8.0\"");
    c->v08 = major > 0 || minor >= 8;
    return st;
}

/* client.conventions and client.convention: how this version computed what differs. */
static cJSON *conventions_json(const fm *c)
{
    cJSON *o = cJSON_CreateObject();
    char src[64];
    rl_snprintf(src, sizeof src, "fm-bench %s", c->version);
    bool ok = o && rl_json_add_str(o, "source", src);
    ok = ok && rl_json_add_str(o, "tpot",
                               c->v08 ? "generation / (output tokens - first-chunk tokens)"
                                      : "generation / (output tokens - 1)");
    ok = ok &&
         rl_json_add_str(o, "generation",
                         c->v08 ? "last delivery - first delivery" : "process exit - first chunk");
    ok = ok && rl_json_add_str(o, "chunks",
                               c->v08 ? "deliveries: chunks less than 5 ms apart are one"
                                      : "raw stdout chunks");
    ok = ok && rl_json_add_str(o, "output_tokens",
                               c->v08 ? "fm's count minus the calibrated framing overhead"
                                      : "fm's count, framing overhead included");
    ok = ok && rl_json_add_i64(o, "warmup_default", c->v08 ? 1 : 0);
    ok = ok && rl_json_add_str(o, "output_hash",
                               "fm-bench's: SHA-256 of the whitespace-normalised output, first 16 "
                               "hex digits (client's is FNV-1a 64)");
    ok = ok &&
         rl_json_add_str(o, "source_of_cv",
                         c->v08 ? "stability_cv per prompt; pooled e2e cv" : "pooled e2e cv only");
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- results -------------------------------------------------------------------------- */

typedef struct {
    const char *key;
    bool whole;
} fm_field;

/* The numbers of a result (each >= 0 or null). */
static const fm_field result_nums[] = {
    {"durationMs", false},
    {"firstTokenMs", false},
    {"generationMs", false},
    {"tpotMs", false},
    {"promptTokens", true},
    {"outputTokens", true},
    {"firstChunkTokens", true},
    {"decodeTokens", true},
    {"chars", true},
    {"words", true},
    {"tokensPerSecond", false},
    {"decodeTokensPerSecond", false},
    {"prefillTokensPerSecond", false},
    {"charsPerSecond", false},
    {"startOffsetMs", false},
    {"endOffsetMs", false},
    {"stdoutChunks", true},
    {"secondChunkMs", false},
    {"chunkGapAvgMs", false},
    {"chunkGapMaxMs", false},
};

static rl_status check_result(fm *c, const cJSON *r, const char *rp)
{
    if (!cJSON_IsObject(r))
        return bad(c, rp, "", r, "an object");
    const char *s;
    bool has;
    double v;
    int b;
    rl_status st = str(c, r, rp, "model", RL_IMPORT_FM_MAX_NAME, &s);
    if (st == RL_OK && !s)
        st = bad(c, rp, "model", get(r, "model"), "the model's name (a string)");
    if (st == RL_OK)
        st = num(c, r, rp, "concurrency", 1, MAX_CONC, true, &has, &v);
    if (st == RL_OK)
        st = str(c, r, rp, "promptId", RL_IMPORT_FM_MAX_NAME, &s);
    if (st == RL_OK)
        st = num(c, r, rp, "run", 1, 1e6, true, &has, &v);
    if (st == RL_OK)
        st = num(c, r, rp, "attempts", 1, 1e6, true, &has, &v);
    if (st == RL_OK && (st = boolean(c, r, rp, "ok", &b)) == RL_OK && b < 0)
        st = bad(c, rp, "ok", get(r, "ok"), "true or false");
    for (size_t i = 0; st == RL_OK && i < sizeof result_nums / sizeof result_nums[0]; i++)
        st = num(c, r, rp, result_nums[i].key, 0, MAX_NUM, result_nums[i].whole, &has, &v);
    const cJSON *gaps = NULL;
    if (st == RL_OK)
        st = arr(c, r, rp, "chunkGapsMs", 1000000, &gaps);
    int i = 0;
    for (const cJSON *g = gaps ? gaps->child : NULL; st == RL_OK && g; g = g->next, i++)
        if (!cJSON_IsNumber(g) || !(g->valuedouble >= 0 && g->valuedouble <= MAX_NUM)) {
            char k[48];
            rl_snprintf(k, sizeof k, "chunkGapsMs[%d]", i);
            st = bad(c, rp, k, g, "a number from 0 to 1e+12");
        }
    if (st == RL_OK)
        st = str(c, r, rp, "outputHash", 128, &s);
    if (st == RL_OK)
        st = str(c, r, rp, "error", RL_IMPORT_FM_MAX_TEXT, &s);
    if (st == RL_OK)
        st = str(c, r, rp, "output", RL_IMPORT_FM_MAX_TEXT, &s);
    if (st == RL_OK)
        st = boolean(c, r, rp, "good", &b);
    if (st == RL_OK)
        st = boolean(c, r, rp, "streamed", &b);
    return st;
}

static rl_status check_results(fm *c, const cJSON *root)
{
    rl_status st = arr(c, root, "", "results", RL_IMPORT_FM_MAX_RESULTS, &c->results);
    int i = 0;
    for (const cJSON *r = c->results ? c->results->child : NULL; st == RL_OK && r;
         r = r->next, i++) {
        char rp[48];
        rl_snprintf(rp, sizeof rp, "results[%d]", i);
        st = check_result(c, r, rp);
    }
    if (c->results && !c->results->child)
        c->results = NULL;
    return st;
}

static double conc_of(const cJSON *o)
{
    const cJSON *it = get(o, "concurrency");
    return cJSON_IsNumber(it) ? it->valuedouble : 1;
}

/* Whether result r belongs to the row (model, concurrency). */
static bool of_row(const cJSON *r, const char *model, double conc)
{
    const char *m = rl_json_get_str(r, "model");
    return m && strcmp(m, model) == 0 && conc_of(r) == conc;
}

static bool is_ok(const cJSON *r)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok"));
}

/* ---- the statistics of one metric ---------------------------------------------------- */

/* fm-bench's two-sided 95% t (its table: three decimals to df 30, then 2.0 and 1.96). */
static double fm_t95(double df)
{
    static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                 2.262,  2.228, 2.201, 2.179, 2.16,  2.145, 2.131, 2.12,
                                 2.11,   2.101, 2.093, 2.086, 2.08,  2.074, 2.069, 2.064,
                                 2.06,   2.056, 2.052, 2.048, 2.045, 2.042};
    if (df < 1)
        df = 1;
    return df <= 30 ? t[(int)df - 1] : df <= 60 ? 2.0 : 1.96;
}

enum { S_MIN, S_MAX, S_AVG, S_SUM, S_SD, S_CV, S_LO, S_HI, S_P50, S_P90, S_P95, S_P99 };
static const char *const stat_keys[] = {"min",     "max",      "avg", "sum", "stddev", "cv",
                                        "ci95Low", "ci95High", "p50", "p90", "p95",    "p99"};

/* fm-bench's Stats block at path (an object of numbers or nulls). *present false: absent. */
static rl_status read_stats(fm *c, const cJSON *blk, const char *path, bool *present, double *n,
                            double *v, bool *has)
{
    *present = false;
    if (!blk)
        return RL_OK;
    if (!cJSON_IsObject(blk))
        return bad(c, path, "", blk, "an fm-bench statistics object");
    bool hn = false;
    rl_status st = num(c, blk, path, "count", 0, MAX_COUNT, true, &hn, n);
    if (!hn)
        *n = -1;
    for (size_t k = 0; st == RL_OK && k < sizeof stat_keys / sizeof stat_keys[0]; k++) {
        bool spread = k == S_SD || k == S_CV;
        st = num(c, blk, path, stat_keys[k], spread ? 0 : -MAX_NUM, MAX_NUM, false, &has[k], &v[k]);
    }
    *present = st == RL_OK;
    return st;
}

/* The stats object of the block as given (n, mean, median = p50, ...). */
static cJSON *stats_json(double n, const double *v, const bool *has)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cJSON_AddBoolToObject(o, "available", 1) &&
              rl_json_add_str(o, "kind", "derived") && rl_json_add_num(o, "n", n) &&
              rl_json_add_num(o, "mean", v[S_AVG]) && rl_json_add_num(o, "median", v[S_P50]) &&
              rl_json_add_num(o, "min", v[S_MIN]) && rl_json_add_num(o, "max", v[S_MAX]) &&
              rl_json_add_num(o, "p50", v[S_P50]) && rl_json_add_num(o, "p90", v[S_P90]);
    ok = ok && (!has[S_P95] || rl_json_add_num(o, "p95", v[S_P95]));
    ok = ok && rl_json_add_num(o, "p99", v[S_P99]);
    const char *why = n < 2 ? "one sample cannot show spread" : "not in the fm-bench report";
    ok = ok &&
         (has[S_SD] ? rl_json_add_num(o, "sd", v[S_SD]) : rl_json_add_unavailable(o, "sd", why));
    ok = ok && (has[S_CV] ? rl_json_add_num(o, "cv", v[S_CV])
                          : rl_json_add_unavailable(o, "cv", has[S_SD] ? "the mean is 0" : why));
    if (ok && has[S_LO] && has[S_HI] && n >= 2) {
        cJSON *ci = cJSON_CreateObject();
        ok = rl_json_attach(o, "ci95", ci) && rl_json_add_num(ci, "low", v[S_LO]) &&
             rl_json_add_num(ci, "high", v[S_HI]) && rl_json_add_num(ci, "t", fm_t95(n - 1)) &&
             rl_json_add_num(ci, "df", n - 1) && rl_json_add_num(ci, "level", 0.95) &&
             rl_json_add_str(ci, "t_source", "fm-bench's t table");
    } else {
        ok = ok && rl_json_add_unavailable(o, "ci95", why);
    }
    return rl_json_kept(o, ok);
}

/* The values of field over the row's successful results (chunkGapsMs pooled), at most max
 * kept; *n counts them all. NULL (with *n 0) when there are none; *fail on out of memory. */
static double *row_values(const fm *c, const char *model, double conc, const char *field,
                          size_t max, size_t *n, bool *fail)
{
    size_t cap = 0;
    double *x = NULL;
    *n = 0;
    *fail = false;
    for (const cJSON *r = c->results ? c->results->child : NULL; r; r = r->next) {
        if (!of_row(r, model, conc) || !is_ok(r))
            continue;
        const cJSON *f = get(r, field);
        const cJSON *e = cJSON_IsArray(f) ? f->child : f;
        for (; e; e = cJSON_IsArray(f) ? e->next : NULL) {
            if (!cJSON_IsNumber(e))
                continue;
            if (*n < max && *n == cap) {
                size_t nc = cap ? 2 * cap : 16;
                double *nx = realloc(x, nc * sizeof *nx);
                if (!nx) {
                    free(x);
                    *fail = true;
                    return NULL;
                }
                x = nx;
                cap = nc;
            }
            if (*n < max)
                x[*n] = e->valuedouble;
            (*n)++;
        }
    }
    return x;
}

static bool same(double a, double b)
{
    return fabs(a - b) <= SAME_TOL * fmax(1, fmax(fabs(a), fabs(b)));
}

/* The samples of a metric: its values from the results when they reproduce fm-bench's count,
 * mean, min and max; else unavailable with why. */
static cJSON *samples_json(const fm *c, const char *model, double conc, const char *field, double n,
                           const double *v, bool *fail)
{
    size_t got = 0;
    double *x = row_values(c, model, conc, field, RL_IMPORT_FM_MAX_GAPS, &got, fail);
    if (*fail)
        return NULL;
    char why[160];
    bool kept = false;
    if (!c->results) {
        rl_snprintf(why, sizeof why,
                    "the report keeps no per-run results: fm-bench's statistics "
                    "alone");
    } else if (got > RL_IMPORT_FM_MAX_GAPS) {
        rl_snprintf(why, sizeof why, "more than %d values: the statistics alone",
                    RL_IMPORT_FM_MAX_GAPS);
    } else if ((double)got != n) {
        rl_snprintf(why, sizeof why,
                    "the report's results hold %zu values where its summary counts %.0f: "
                    "fm-bench's statistics alone",
                    got, n);
    } else {
        double sum = 0, mn = INFINITY, mx = -INFINITY;
        for (size_t i = 0; i < got; i++) {
            sum += x[i];
            mn = fmin(mn, x[i]);
            mx = fmax(mx, x[i]);
        }
        kept = same(sum / (double)got, v[S_AVG]) && same(mn, v[S_MIN]) && same(mx, v[S_MAX]);
        rl_snprintf(why, sizeof why,
                    "the report's results do not reproduce its summary's mean, "
                    "min and max: fm-bench's statistics alone");
    }
    cJSON *s = kept ? cJSON_CreateArray() : rl_json_unavailable(why);
    for (size_t i = 0; s && kept && i < got; i++)
        if (!cJSON_AddItemToArray(s, cJSON_CreateNumber(x[i]))) {
            cJSON_Delete(s);
            s = NULL;
        }
    free(x);
    *fail = s == NULL;
    return s;
}

/* ---- one point per summary row -------------------------------------------------------- */

typedef struct {
    const char *ours, *summary, *result, *catalogue, *kind, *unit;
    bool since08;     /* fm-bench wrote it from 0.8.0 */
    const char *null; /* a point metric: why fm-bench gives null */
} fm_metric;

static const fm_metric dists[] = {
    {"ttft", "ttft", "firstTokenMs", "ttft", "proxy", "ms", false, NULL},
    {"e2e", "latency", "durationMs", "e2eLatency", "measured", "ms", false, NULL},
    {"generation", "generation", "generationMs", "generationMs", "derived", "ms", false, NULL},
    {"tpot", "tpot", "tpotMs", "tpot", "derived", "ms", false, NULL},
    {"second_chunk", "secondChunk", "secondChunkMs", "chunkGaps", "proxy", "ms", false, NULL},
    {"chunk_gap", "chunkGap", "chunkGapsMs", "chunkGaps", "proxy", "ms", false, NULL},
    {"prompt_tokens", "promptTokens", "promptTokens", "promptTokens", "measured", "tokens", false,
     NULL},
    {"output_tokens", "outputTokens", "outputTokens", "outputTokens", "measured", "tokens", false,
     NULL},
    {"first_delivery_tokens", "firstChunkTokens", "firstChunkTokens", "firstChunkTokens",
     "measured", "tokens", true, NULL},
    {"prefill_tok_s", "prefillTokensPerSecond", "prefillTokensPerSecond", "prefillTokensPerSecond",
     "proxy", "tok/s", false, NULL},
    {"output_tok_s", "tokensPerSecond", "tokensPerSecond", "tokensPerSecond", "derived", "tok/s",
     false, NULL},
    {"decode_tok_s", "decodeTokensPerSecond", "decodeTokensPerSecond", "decodeTokensPerSecond",
     "derived", "tok/s", false, NULL},
};

static const fm_metric singles[] = {
    {"decode_throughput", "decodeThroughput", NULL, "decodeTokensPerSecond", "derived", "tok/s",
     true, "no successful run has decode tokens and a generation time above 0 (fm-bench)"},
    {"output_throughput", "outputTokenThroughput", NULL, "outputTokenThroughput", "derived",
     "tok/s", false, "no output tokens or no measured window (fm-bench)"},
    {"total_throughput", "totalTokenThroughput", NULL, "outputTokenThroughput", "derived", "tok/s",
     false, "no token counts or no measured window (fm-bench)"},
    {"rps", "rps", NULL, "rps", "measured", "req/s", false,
     "no successful run or no measured window (fm-bench)"},
    {"repeatability", "repeatability", NULL, "repeatability", "derived", "1", false,
     "no prompt has two successful runs (fm-bench)"},
    {"stability_cv", "stabilityCv", NULL, "variability", "derived", "1", true,
     "no prompt has two successful runs (fm-bench)"},
};

/* The reason fm-bench's catalogue gives for a metric it marks unavailable, else NULL. */
static const char *catalogue_reason(const fm *c, const char *key, char *buf, size_t cap)
{
    const cJSON *m = get(c->catalogue, key);
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(m, "available")))
        return NULL;
    const char *r = rl_json_get_str(m, "unavailableReason");
    char safe[200];
    rl_snprintf(buf, cap, "fm-bench: %s",
                r && *r ? rl_tty_escape(r, safe, sizeof safe) : "not available with that build");
    return buf;
}

/* Why a metric the row lacks is unavailable; NULL when it has it. */
static const char *lacks(const fm *c, const fm_metric *d, char *buf, size_t cap)
{
    if (d->since08 && !c->v08) {
        rl_snprintf(buf, cap, "fm-bench %s does not report it (%s came with 0.8.0)", c->version,
                    d->summary);
        return buf;
    }
    return catalogue_reason(c, d->catalogue, buf, cap);
}

/* The row (at rp) as the point's metric d, attached to ms. */
static rl_status dist_metric(fm *c, const cJSON *row, const char *rp, const fm_metric *d,
                             const char *model, double conc, double ok, cJSON *ms)
{
    char why[300], path[96];
    double n = 0, v[12] = {0};
    bool has[12] = {false}, present = false;
    rl_snprintf(path, sizeof path, "%s.%s", rp, d->summary);
    rl_status st = read_stats(c, get(row, d->summary), path, &present, &n, v, has);
    if (st != RL_OK)
        return st;
    if (present && n > ok && strcmp(d->ours, "chunk_gap") != 0) /* gaps: several per run */
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %s.count is %.0f, more than the row's %.0f successful runs", c->file,
                       path, n, ok);
    const char *no = lacks(c, d, why, sizeof why);
    if (!no && !present) {
        rl_snprintf(why, sizeof why, "not in the fm-bench report (%s)", path);
        no = why;
    } else if (!no && n == 0) {
        rl_snprintf(why, sizeof why, "no successful run gave a value (fm-bench: count 0)");
        no = why;
    } else if (!no && (n < 0 || !has[S_AVG] || !has[S_MIN] || !has[S_MAX] || !has[S_P50] ||
                       !has[S_P90] || !has[S_P99])) {
        char given[160] = "";
        size_t at = 0;
        for (size_t k = 0; k < sizeof stat_keys / sizeof stat_keys[0]; k++)
            if (has[k])
                at += (size_t)rl_snprintf(given + at, sizeof given - at, "%s%s", at ? ", " : "",
                                          stat_keys[k]);
        rl_snprintf(why, sizeof why,
                    "fm-bench's block (%s) gives %s%s, not all of count, avg, min, max, p50, p90 "
                    "and p99: the statistics are under the point's imported row",
                    path, n >= 0 ? "count, " : "", at ? given : "nothing");
        no = why;
    }
    if (no)
        return rl_json_add_unavailable(ms, d->ours, no) ? RL_OK : oom(c);
    cJSON *m = cJSON_CreateObject();
    bool fail = false, done = rl_json_attach(ms, d->ours, m) &&
                              rl_json_add_str(m, "kind", d->kind) &&
                              rl_json_add_str(m, "unit", d->unit);
    done =
        done && rl_json_attach(m, "samples", samples_json(c, model, conc, d->result, n, v, &fail));
    done = done && rl_json_attach(m, "stats", stats_json(n, v, has));
    return done ? RL_OK : oom(c);
}

static rl_status single_metric(fm *c, const cJSON *row, const char *rp, const fm_metric *d,
                               cJSON *ms)
{
    char why[300];
    bool has = false;
    double v = 0;
    rl_status st = num(c, row, rp, d->summary, 0, MAX_NUM, false, &has, &v);
    if (st != RL_OK)
        return st;
    const char *no = lacks(c, d, why, sizeof why);
    if (!no && !has)
        no = d->null;
    if (no)
        return rl_json_add_unavailable(ms, d->ours, no) ? RL_OK : oom(c);
    cJSON *m = cJSON_CreateObject();
    bool ok = rl_json_attach(ms, d->ours, m) && rl_json_add_str(m, "kind", d->kind) &&
              rl_json_add_str(m, "unit", d->unit) && rl_json_add_num(m, "value", v);
    return ok ? RL_OK : oom(c);
}

/* The row's counts: measured (attempted), ok, failed, attempts; checked to add up. */
static rl_status row_counts(fm *c, const cJSON *row, const char *rp, double *cnt)
{
    bool h[4];
    static const char *const keys[] = {"attempted", "successes", "failures", "attempts"};
    rl_status st = RL_OK;
    for (int k = 0; st == RL_OK && k < 4; k++)
        st = num(c, row, rp, keys[k], 0, RL_IMPORT_FM_MAX_RESULTS * 1e3, true, &h[k], &cnt[k]);
    if (st == RL_OK && (!h[1] || !h[2]))
        st = bad(c, rp, h[1] ? "failures" : "successes", get(row, h[1] ? "failures" : "successes"),
                 "a whole number (the row's successful and failed runs)");
    if (st != RL_OK)
        return st;
    if (!h[0])
        cnt[0] = cnt[1] + cnt[2];
    if (!h[3])
        cnt[3] = cnt[0];
    if (cnt[1] + cnt[2] != cnt[0])
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %s.successes (%.0f) + failures (%.0f) is not attempted (%.0f)", c->file,
                       rp, cnt[1], cnt[2], cnt[0]);
    if (cnt[3] < cnt[0])
        return rl_fail(c->err, RL_EINPUT, "%s: %s.attempts (%.0f) is fewer than attempted (%.0f)",
                       c->file, rp, cnt[3], cnt[0]);
    return RL_OK;
}

/* requests, wall and window of the point. */
static bool add_requests(const fm *c, cJSON *pt, const cJSON *row, const double *cnt,
                         const char *model, double conc)
{
    cJSON *rq = cJSON_CreateObject();
    bool ok = rl_json_attach(pt, "requests", rq) && rl_json_add_str(rq, "kind", "measured") &&
              rl_json_add_num(rq, "measured", cnt[0]) && rl_json_add_num(rq, "ok", cnt[1]) &&
              rl_json_add_num(rq, "failed", cnt[2]) && rl_json_add_num(rq, "attempts", cnt[3]);
    const cJSON *sr = get(row, "successRate");
    if (ok && cJSON_IsNumber(sr) && sr->valuedouble >= 0 && sr->valuedouble <= 1) {
        cJSON *s = cJSON_CreateObject();
        ok = rl_json_attach(rq, "success_rate", s) && rl_json_add_str(s, "kind", "measured") &&
             rl_json_add_str(s, "unit", "1") && rl_json_add_num(s, "value", sr->valuedouble);
    } else if (ok) {
        ok = rl_json_add_unavailable(rq, "success_rate", "fm-bench gives none (no run)");
    }
    /* the spans from the runs' offsets (fm-bench: from the operating point's start) */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (const cJSON *r = c->results ? c->results->child : NULL; r; r = r->next) {
        const cJSON *s = get(r, "startOffsetMs"), *e = get(r, "endOffsetMs");
        if (!of_row(r, model, conc) || !cJSON_IsNumber(s) || !cJSON_IsNumber(e))
            continue;
        for (int k = is_ok(r) ? 0 : 1; k < 2; k++) {
            lo[k] = fmin(lo[k], s->valuedouble);
            hi[k] = fmax(hi[k], e->valuedouble);
        }
    }
    static const char *const keys[] = {"window", "wall"};
    static const char *const spans[] = {
        "first start to last end of the successful runs (fm-bench's startOffsetMs, endOffsetMs)",
        "first start to last end of every measured run (fm-bench's startOffsetMs, endOffsetMs)"};
    for (int k = 1; ok && k >= 0; k--) {
        if (!(hi[k] >= lo[k])) {
            ok = rl_json_add_unavailable(pt, keys[k],
                                         c->results ? "no run of this row has start and end times"
                                                    : "the report keeps no per-run results");
            continue;
        }
        cJSON *w = cJSON_CreateObject();
        ok = rl_json_attach(pt, keys[k], w) && rl_json_add_str(w, "kind", "measured") &&
             rl_json_add_str(w, "unit", "ms") && rl_json_add_num(w, "value", hi[k] - lo[k]) &&
             rl_json_add_str(w, "span", spans[k]);
    }
    return ok;
}

/* {ttft_ms, tpot_ms, e2e_ms} of options.slo; *any: one is set. */
static cJSON *slo_json(const fm *c, bool *any)
{
    static const char *const from[] = {"ttftMs", "tpotMs", "e2eMs"};
    static const char *const to[] = {"ttft_ms", "tpot_ms", "e2e_ms"};
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    *any = false;
    for (int k = 0; ok && k < 3; k++) {
        const cJSON *v = get(c->slo, from[k]);
        *any |= cJSON_IsNumber(v);
        ok = rl_json_add_num_or_null(o, to[k], v ? v->valuedouble : 0, cJSON_IsNumber(v));
    }
    return rl_json_kept(o, ok);
}

static rl_status add_goodput(fm *c, cJSON *pt, const cJSON *row, const char *rp, const double *cnt,
                             const char *model, double conc)
{
    bool any = false, has_rate = false, has_rps = false;
    double rate = 0, rps = 0;
    rl_status st = num(c, row, rp, "goodputRate", 0, 1, false, &has_rate, &rate);
    if (st == RL_OK)
        st = num(c, row, rp, "goodputRps", 0, MAX_NUM, false, &has_rps, &rps);
    cJSON *slo = slo_json(c, &any);
    if (st != RL_OK || !slo) {
        cJSON_Delete(slo);
        return st != RL_OK ? st : oom(c);
    }
    /* good requests: counted over the results when they hold the row, else rate x ok when
     * that is whole */
    double good = -1, seen = 0, g = 0;
    for (const cJSON *r = c->results ? c->results->child : NULL; r; r = r->next)
        if (of_row(r, model, conc)) {
            seen++;
            g += is_ok(r) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "good"));
        }
    if (seen == cnt[0])
        good = g;
    else if (has_rate && fabs(rate * cnt[1] - round(rate * cnt[1])) < 1e-6)
        good = round(rate * cnt[1]);
    const char *no = !any        ? "no SLO set in the fm-bench run (options.slo)"
                     : !has_rate ? "fm-bench gives no goodput rate (no successful run)"
                     : good < 0 || good > cnt[1] ? "the report's goodput rate is not a whole "
                                                   "number of good runs"
                                                 : NULL;
    if (no) {
        cJSON_Delete(slo);
        return rl_json_add_unavailable(pt, "goodput", no) ? RL_OK : oom(c);
    }
    cJSON *o = cJSON_CreateObject();
    bool ok = rl_json_attach(pt, "goodput", o);
    if (ok)
        ok = rl_json_add_str(o, "kind", "derived") && rl_json_attach(o, "slo", slo);
    else
        cJSON_Delete(slo);
    ok = ok && rl_json_add_num(o, "requests", cnt[0]) && rl_json_add_num(o, "good", good) &&
         rl_json_add_num_or_null(o, "fraction", cnt[0] ? good / cnt[0] : 0, cnt[0] > 0) &&
         rl_json_add_num(o, "ok", cnt[1]) && rl_json_add_num(o, "fraction_of_ok", rate) &&
         rl_json_add_unavailable(o, "not_good", "fm-bench does not say which SLO a run missed");
    cJSON *r = ok && has_rps ? cJSON_CreateObject() : NULL;
    if (ok && has_rps)
        ok = rl_json_attach(o, "rps", r) && rl_json_add_str(r, "kind", "derived") &&
             rl_json_add_str(r, "unit", "req/s") && rl_json_add_num(r, "value", rps);
    else if (ok)
        ok = rl_json_add_unavailable(o, "rps", "fm-bench gives no goodput rate per second");
    return ok ? RL_OK : oom(c);
}

/* A number of r as given, or null. */
static bool copy_num(cJSON *o, const char *key, const cJSON *r, const char *from)
{
    const cJSON *v = get(r, from);
    return rl_json_add_num_or_null(o, key, v ? v->valuedouble : 0, cJSON_IsNumber(v));
}

static cJSON *record_json(const fm *c, const cJSON *r)
{
    static const char *const nums[][2] = {
        {"first_send_ms", "startOffsetMs"},
        {"send_ms", "startOffsetMs"},
        {"elapsed_ms", "durationMs"},
        {"ttft_ms", "firstTokenMs"},
        {"generation_ms", "generationMs"},
        {"second_chunk_ms", "secondChunkMs"},
        {"chunks", "stdoutChunks"},
        {"prompt_tokens", "promptTokens"},
        {"output_tokens", "outputTokens"},
        {"first_delivery_tokens", "firstChunkTokens"},
        {"decode_tokens", "decodeTokens"},
        {"tpot_ms", "tpotMs"},
        {"decode_tok_s", "decodeTokensPerSecond"},
        {"output_tok_s", "tokensPerSecond"},
        {"prefill_tok_s", "prefillTokensPerSecond"},
        {"output_chars", "chars"},
    };
    cJSON *o = cJSON_CreateObject();
    bool ok_run = is_ok(r);
    const char *e = rl_json_get_str(r, "error");
    const cJSON *gaps = get(r, "chunkGapsMs"), *good = get(r, "good");
    bool ok = o && rl_json_add_str_or_null(o, "prompt", rl_json_get_str(r, "promptId")) &&
              copy_num(o, "run", r, "run") &&
              rl_json_add_num(o, "attempts", rl_json_num_or(r, "attempts", 1)) &&
              rl_json_add_bool(o, "ok", ok_run) &&
              rl_json_add_str_or_null(o, "error", ok_run || !e || !*e ? NULL : e);
    for (size_t k = 0; ok && k < sizeof nums / sizeof nums[0]; k++)
        ok = copy_num(o, nums[k][0], r, nums[k][1]);
    /* E2E only for a successful run, as client writes it */
    const cJSON *d = get(r, "durationMs");
    ok = ok && rl_json_add_num_or_null(o, "e2e_ms", d ? d->valuedouble : 0, ok_run && d);
    /* 0.8.0's gaps are between deliveries: one more delivery than gaps */
    bool dl = c->v08 && ok_run && get(r, "firstTokenMs") && cJSON_IsArray(gaps);
    ok = ok && rl_json_add_num_or_null(o, "deliveries", dl ? cJSON_GetArraySize(gaps) + 1 : 0, dl);
    ok = ok && rl_json_add_str(o, "token_source", "counter") &&
         (good ? rl_json_add_bool(o, "good", cJSON_IsTrue(good)) : rl_json_add_null(o, "good")) &&
         rl_json_add_str_or_null(o, "output_hash", rl_json_get_str(r, "outputHash"));
    const char *out = rl_json_get_str(r, "output");
    ok = ok && (!out || rl_json_add_str(o, "output", out));
    return rl_json_kept(o, ok);
}

/* One record per result of the row, when the results hold every measured run of it. */
static bool add_records(const fm *c, cJSON *pt, const double *cnt, const char *model, double conc)
{
    double seen = 0;
    for (const cJSON *r = c->results ? c->results->child : NULL; r; r = r->next)
        seen += of_row(r, model, conc);
    if (seen != cnt[0]) {
        char why[160];
        rl_snprintf(why, sizeof why,
                    c->results ? "the report's results hold %.0f runs of this row, its summary "
                                 "%.0f"
                               : "the report keeps no per-run results",
                    seen, cnt[0]);
        return rl_json_add_unavailable(pt, "records", why);
    }
    cJSON *recs = cJSON_CreateArray();
    bool ok = rl_json_attach(pt, "records", recs);
    for (const cJSON *r = c->results ? c->results->child : NULL; ok && r; r = r->next)
        if (of_row(r, model, conc))
            ok = cJSON_AddItemToArray(recs, record_json(c, r));
    return ok;
}

static rl_status add_point(fm *c, const cJSON *row, const char *rp, cJSON *points)
{
    const char *model = NULL;
    bool has = false;
    double conc = 1, cnt[4] = {0};
    rl_status st = str(c, row, rp, "model", RL_IMPORT_FM_MAX_NAME, &model);
    if (st == RL_OK && (!model || !*model))
        st = bad(c, rp, "model", get(row, "model"), "a non-empty string (the model's name)");
    if (st == RL_OK &&
        (st = num(c, row, rp, "concurrency", 1, MAX_CONC, true, &has, &conc)) == RL_OK && !has)
        conc = 1;
    if (st == RL_OK)
        st = row_counts(c, row, rp, cnt);
    if (st != RL_OK || cnt[0] == 0)
        return st; /* a skipped model: client.fm_models says why */
    cJSON *pt = cJSON_CreateObject(), *ms = NULL;
    bool ok = pt && cJSON_AddItemToArray(points, pt);
    if (!ok)
        cJSON_Delete(pt);
    ok = ok && rl_json_add_str(pt, "model", model) && rl_json_add_num(pt, "concurrency", conc) &&
         rl_json_add_num_or_null(pt, "request_rate", c->rate, isfinite(c->rate)) &&
         rl_json_add_num_or_null(pt, "ramp_up_ms", c->ramp, isfinite(c->ramp)) &&
         rl_json_add_i64(pt, "warmup", c->warmup) && add_requests(c, pt, row, cnt, model, conc);
    ok = ok && (ms = cJSON_AddObjectToObject(pt, "metrics")) != NULL;
    if (!ok)
        return oom(c);
    for (size_t k = 0; st == RL_OK && k < sizeof dists / sizeof dists[0]; k++) {
        if (strcmp(dists[k].ours, "generation") == 0 &&
            !rl_json_add_unavailable(ms, "deliveries", "fm-bench reports no delivery count"))
            return oom(c);
        st = dist_metric(c, row, rp, &dists[k], model, conc, cnt[1], ms);
    }
    for (size_t k = 0; st == RL_OK && k < sizeof singles / sizeof singles[0]; k++)
        st = single_metric(c, row, rp, &singles[k], ms);
    if (st == RL_OK)
        st = add_goodput(c, pt, row, rp, cnt, model, conc);
    if (st == RL_OK && (!add_records(c, pt, cnt, model, conc) ||
                        !rl_json_attach(pt, "imported", cJSON_Duplicate(row, 1))))
        st = oom(c);
    return st;
}

/* ---- settings, prompts, tokens, environment, source ------------------------------------ */

static rl_status add_settings(fm *c, const cJSON *opt, size_t n_prompts, cJSON *cl)
{
    const char *profile = NULL, *note = NULL;
    const cJSON *sweep = NULL, *tags = NULL;
    bool h_runs, h_warm, h_conc, h_to, h_retry, h_rate, h_ramp;
    double runs = 0, warm = 0, conc = 1, to = 0, retry = 0;
    int greedy, stream;
    c->rate = c->ramp = NAN;
    rl_status st = num(c, opt, "options", "runs", 1, 1e6, true, &h_runs, &runs);
    if (st == RL_OK)
        st = num(c, opt, "options", "warmup", 0, 1e6, true, &h_warm, &warm);
    if (st == RL_OK)
        st = num(c, opt, "options", "concurrency", 1, MAX_CONC, true, &h_conc, &conc);
    if (st == RL_OK)
        st = num(c, opt, "options", "timeoutMs", 0, MAX_NUM, false, &h_to, &to);
    if (st == RL_OK)
        st = num(c, opt, "options", "retry", 0, 1e6, true, &h_retry, &retry);
    if (st == RL_OK)
        st = num(c, opt, "options", "requestRate", 0, MAX_NUM, false, &h_rate, &c->rate);
    if (st == RL_OK)
        st = num(c, opt, "options", "rampUpMs", 0, MAX_NUM, false, &h_ramp, &c->ramp);
    if (st == RL_OK)
        st = str(c, opt, "options", "profile", RL_IMPORT_FM_MAX_NAME, &profile);
    if (st == RL_OK)
        st = str(c, opt, "options", "note", RL_IMPORT_FM_MAX_TEXT, &note);
    if (st == RL_OK)
        st = boolean(c, opt, "options", "greedy", &greedy);
    if (st == RL_OK)
        st = boolean(c, opt, "options", "stream", &stream);
    if (st == RL_OK)
        st = arr(c, opt, "options", "sweepConcurrency", MAX_CONC, &sweep);
    if (st == RL_OK)
        st = arr(c, opt, "options", "tags", 1024, &tags);
    if (st == RL_OK)
        st = obj(c, opt, "options", "slo", &c->slo);
    static const char *const slo_keys[] = {"ttftMs", "e2eMs", "tpotMs"};
    for (int k = 0; st == RL_OK && k < 3; k++) {
        bool h;
        double v;
        st = num(c, c->slo, "options.slo", slo_keys[k], 0, MAX_NUM, false, &h, &v);
    }
    int i = 0;
    for (const cJSON *t = sweep ? sweep->child : NULL; st == RL_OK && t; t = t->next, i++)
        if (!cJSON_IsNumber(t) || !(t->valuedouble >= 1 && t->valuedouble <= MAX_CONC) ||
            t->valuedouble != floor(t->valuedouble)) {
            char k[48];
            rl_snprintf(k, sizeof k, "sweepConcurrency[%d]", i);
            st = bad(c, "options", k, t, "a whole number from 1 to 4096");
        }
    i = 0;
    for (const cJSON *t = tags ? tags->child : NULL; st == RL_OK && t; t = t->next, i++)
        if (!cJSON_IsString(t) || strlen(t->valuestring) > RL_IMPORT_FM_MAX_NAME) {
            char k[48];
            rl_snprintf(k, sizeof k, "tags[%d]", i);
            st = bad(c, "options", k, t, "a string of at most 256 bytes");
        }
    if (st != RL_OK)
        return st;
    c->warmup = h_warm ? (int64_t)warm : (c->v08 ? 1 : 0);
    if (!h_rate || c->rate <= 0)
        c->rate = NAN;
    if (!h_ramp || c->ramp <= 0)
        c->ramp = NAN;
    cJSON *s = cJSON_CreateObject(), *cc = NULL, *tg = NULL;
    bool any = false, ok = rl_json_attach(cl, "settings", s) &&
                           rl_json_add_str(s, "kind", "controlled") &&
                           rl_json_add_i64(s, "warmup", c->warmup);
    char dflt[96];
    rl_snprintf(dflt, sizeof dflt, "fm-bench %s's default: the report does not state it",
                c->version);
    ok = ok && (h_warm || rl_json_add_str(s, "warmup_source", dflt));
    ok = ok && (!h_runs || rl_json_add_num(s, "runs", runs)) &&
         (!h_retry || rl_json_add_num(s, "retry", retry)) &&
         rl_json_add_num_or_null(s, "timeout_s", to / 1000, h_to) &&
         rl_json_add_null(s, "max_tokens") &&
         (cc = cJSON_AddArrayToObject(s, "concurrency")) != NULL;
    for (const cJSON *t = sweep ? sweep->child : NULL; ok && t; t = t->next, any = true)
        ok = cJSON_AddItemToArray(cc, cJSON_CreateNumber(t->valuedouble));
    ok = ok && (any || cJSON_AddItemToArray(cc, cJSON_CreateNumber(h_conc ? conc : 1)));
    ok = ok && rl_json_add_num_or_null(s, "request_rate", c->rate, isfinite(c->rate)) &&
         rl_json_add_num_or_null(s, "ramp_up_ms", c->ramp, isfinite(c->ramp)) &&
         (tg = cJSON_AddArrayToObject(s, "tags")) != NULL;
    for (const cJSON *t = tags ? tags->child : NULL; ok && t; t = t->next)
        ok = cJSON_AddItemToArray(tg, cJSON_CreateString(t->valuestring));
    ok = ok && rl_json_add_str_or_null(s, "note", note) &&
         (greedy < 0 || rl_json_add_bool(s, "greedy", greedy)) &&
         (stream < 0 || rl_json_add_bool(s, "stream", stream));
    cJSON *pr = ok && n_prompts ? cJSON_CreateObject() : NULL;
    if (ok && n_prompts)
        ok = rl_json_attach(s, "prompts", pr) && rl_json_add_str(pr, "source", "profile") &&
             rl_json_add_str(pr, "name", profile ? profile : "standard") &&
             rl_json_add_u64(pr, "n", n_prompts);
    ok = ok && rl_json_attach(s, "slo", slo_json(c, &any)) &&
         rl_json_add_str(s, "source", "imported: the fm-bench report's options") &&
         (!opt || rl_json_attach(s, "imported", cJSON_Duplicate(opt, 1)));
    return ok ? RL_OK : oom(c);
}

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static rl_status add_prompts(fm *c, const cJSON *root, cJSON *cl, size_t *n)
{
    const cJSON *ps = NULL;
    rl_status st = arr(c, root, "", "prompts", RL_IMPORT_FM_MAX_PROMPTS, &ps);
    cJSON *out = cJSON_CreateArray();
    if (!rl_json_attach(cl, "prompts", out))
        return oom(c);
    int i = 0;
    *n = 0;
    for (const cJSON *p = ps ? ps->child : NULL; st == RL_OK && p; p = p->next, i++) {
        char pp[48];
        const char *id = NULL, *text = NULL;
        bool has = false;
        double tok = 0;
        rl_snprintf(pp, sizeof pp, "prompts[%d]", i);
        if (!cJSON_IsObject(p))
            return bad(c, pp, "", p, "an object");
        st = str(c, p, pp, "id", RL_IMPORT_FM_MAX_NAME, &id);
        if (st == RL_OK && !id)
            st = bad(c, pp, "id", get(p, "id"), "a string (the prompt's id)");
        if (st == RL_OK)
            st = str(c, p, pp, "prompt", RL_IMPORT_FM_MAX_TEXT, &text);
        if (st == RL_OK)
            st = num(c, p, pp, "promptTokens", 0, MAX_COUNT, true, &has, &tok);
        if (st != RL_OK)
            return st;
        cJSON *o = cJSON_CreateObject();
        bool ok = cJSON_AddItemToArray(out, o) && rl_json_add_str(o, "id", id) &&
                  rl_json_add_str(o, "kind", "controlled");
        if (!ok)
            cJSON_Delete(o);
        ok = ok && (!text || (rl_json_add_u64(o, "chars", utf8_chars(text)) &&
                              rl_json_add_str(o, "text", text)));
        ok = ok && rl_json_add_num_or_null(o, "prompt_tokens", tok, has);
        if (!ok)
            return oom(c);
        (*n)++;
    }
    return st;
}

/* tokens: fm's counter, calibrated (0.8.0's tokenCounter) or not. */
static rl_status add_tokens(fm *c, const cJSON *root, bool counted, cJSON *cl)
{
    const cJSON *tc = NULL;
    const char *cmd = NULL;
    bool h = false;
    double over = 0;
    int cal = -1;
    rl_status st = obj(c, root, "", "tokenCounter", &tc);
    if (st == RL_OK)
        st = str(c, tc, "tokenCounter", "command", RL_IMPORT_FM_MAX_NAME, &cmd);
    if (st == RL_OK)
        st = num(c, tc, "tokenCounter", "overhead", -1e6, 1e6, true, &h, &over);
    if (st == RL_OK)
        st = boolean(c, tc, "tokenCounter", "calibrated", &cal);
    if (st != RL_OK)
        return st;
    cJSON *t = cJSON_CreateObject();
    bool ok = rl_json_attach(cl, "tokens", t) &&
              rl_json_add_str(t, "source", counted ? "counter" : "none") &&
              (!cmd || rl_json_add_str(t, "command", cmd));
    if (ok && cal == 1 && h) {
        cJSON *k = cJSON_CreateObject();
        ok = rl_json_attach(t, "calibration", k) && rl_json_add_str(k, "kind", "measured") &&
             rl_json_add_num(k, "overhead", over) && rl_json_add_bool(k, "subtracted", true) &&
             rl_json_add_unavailable(k, "counts", "fm-bench keeps only the overhead it found") &&
             rl_json_add_str(k, "source", "fm-bench's tokenCounter");
    } else if (ok) {
        ok = rl_json_add_unavailable(
            t, "calibration",
            tc ? "fm-bench could not calibrate its counter (tokenCounter.calibrated is not "
                 "true): output counts include fm's framing overhead"
               : "fm-bench before 0.8.0 did not calibrate its counter: output counts include "
                 "fm's framing overhead (about one token)");
    }
    return ok ? RL_OK : oom(c);
}

/* The macOS product version in sw_vers' text ("ProductVersion:\t27.0"), into buf. */
static const char *macos_version(const char *text, char *buf, size_t cap)
{
    const char *p = text ? strstr(text, "ProductVersion:") : NULL;
    if (!p)
        return NULL;
    p += strlen("ProductVersion:");
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, "\r\n \t");
    if (n == 0 || n > 24)
        return NULL;
    rl_snprintf(buf, cap, "macOS %.*s", (int)n, p);
    return buf;
}

static rl_status add_environment(fm *c, const cJSON *root, cJSON *b, const char **fm_bin)
{
    const cJSON *env = NULL;
    const char *plat = NULL, *arch = NULL, *cpu = NULL, *hw = NULL, *mac = NULL;
    rl_status st = obj(c, root, "", "environment", &env);
    static const char *const keys[] = {"platform", "arch", "cpuBrand", "hwModel", "macOS", "fmBin"};
    const char **dst[] = {&plat, &arch, &cpu, &hw, &mac, fm_bin};
    for (int k = 0; st == RL_OK && k < 6; k++)
        st = str(c, env, "environment", keys[k], k == 4 ? 4096 : RL_IMPORT_FM_MAX_NAME, dst[k]);
    bool has = false;
    double gb = 0;
    if (st == RL_OK)
        st = num(c, env, "environment", "memoryGb", 0, 1e9, true, &has, &gb);
    if (st != RL_OK)
        return st;
    rl_sysinfo si;
    memset(&si, 0, sizeof si);
    si.logical_cores = si.physical_cores = si.packages = -1;
    si.numa_nodes = si.threads_per_core = -1;
    si.smt_active = si.is_vm = -1;
    char os[32];
    const char *o = macos_version(mac, os, sizeof os);
    snprintf(si.os, sizeof si.os, "%s", o ? o : plat ? plat : "");
    snprintf(si.arch, sizeof si.arch, "%s", arch ? arch : "");
    snprintf(si.cpu_model, sizeof si.cpu_model, "%s", cpu ? cpu : "");
    snprintf(si.product_name, sizeof si.product_name, "%s", hw ? hw : "");
    cJSON *e = rl_sysinfo_to_json(&si);
    bool ok = rl_json_attach(b, "environment", e) &&
              rl_json_add_str(e, "source",
                              "imported: the fm-bench report's environment (macOS's product "
                              "version or platform as os, cpuBrand as cpu, hwModel as product "
                              "name); its memoryGb is rounded to GiB, so ram_bytes is null and it "
                              "is kept under imported");
    ok = ok && (!env || rl_json_attach(e, "imported", cJSON_Duplicate(env, 1)));
    return ok ? RL_OK : oom(c);
}

static rl_status add_source(fm *c, const cJSON *root, cJSON *b)
{
    const char *id = NULL, *t0 = NULL, *t1 = NULL;
    rl_status st = str(c, root, "", "reportId", 64, &id);
    if (st == RL_OK)
        st = str(c, root, "", "startedAt", 64, &t0);
    if (st == RL_OK)
        st = str(c, root, "", "finishedAt", 64, &t1);
    if (st == RL_OK && get(root, "metrics") && !cJSON_IsObject(get(root, "metrics")))
        st = bad(c, "", "metrics", get(root, "metrics"), "an object (fm-bench's metric catalogue)");
    if (st != RL_OK)
        return st;
    c->catalogue = get(root, "metrics");
    static const char *const drop[] = {"results", "scenarios", "summary",
                                       "prompts", "options",   "environment"};
    cJSON *keep = cJSON_Duplicate(root, 1);
    for (size_t k = 0; keep && k < sizeof drop / sizeof drop[0]; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(keep, drop[k]);
    cJSON *s = cJSON_CreateObject();
    bool ok =
        rl_json_attach(b, "source", s) && rl_json_add_str(s, "kind", "imported") &&
        rl_json_add_str(s, "format", RL_IMPORT_FORMAT_FM_BENCH) &&
        rl_json_add_str(s, "file", strrchr(c->file, '/') ? strrchr(c->file, '/') + 1 : c->file) &&
        rl_json_add_str(s, "tool", "fm-bench") && rl_json_add_str(s, "version", c->version) &&
        rl_json_add_str(s, "schema", get(root, "schemaVersion") ? "1" : "legacy") &&
        rl_json_add_str_or_null(s, "report_id", id) &&
        rl_json_add_str_or_null(s, "started_at", t0) &&
        rl_json_add_str_or_null(s, "finished_at", t1);
    if (ok)
        ok = rl_json_attach(s, "imported", keep);
    else
        cJSON_Delete(keep);
    return ok ? RL_OK : oom(c);
}

/* client.fm_models from report.models: which were skipped and why. */
static rl_status add_fm_models(fm *c, const cJSON *root, cJSON *cl)
{
    const cJSON *ms = NULL;
    rl_status st = arr(c, root, "", "models", 1024, &ms);
    if (st != RL_OK || !ms)
        return st;
    cJSON *out = cJSON_CreateArray();
    if (!rl_json_attach(cl, "fm_models", out))
        return oom(c);
    int i = 0;
    for (const cJSON *m = ms->child; m; m = m->next, i++) {
        char mp[48];
        const char *name = NULL, *ident = NULL, *reason = NULL;
        int avail = -1;
        rl_snprintf(mp, sizeof mp, "models[%d]", i);
        if (!cJSON_IsObject(m))
            return bad(c, mp, "", m, "an object");
        st = str(c, m, mp, "name", RL_IMPORT_FM_MAX_NAME, &name);
        if (st == RL_OK)
            st = str(c, m, mp, "identity", RL_IMPORT_FM_MAX_NAME, &ident);
        if (st == RL_OK)
            st = str(c, m, mp, "reason", 4096, &reason);
        if (st == RL_OK)
            st = boolean(c, m, mp, "available", &avail);
        if (st != RL_OK)
            return st;
        cJSON *o = cJSON_CreateObject();
        bool ok = cJSON_AddItemToArray(out, o);
        if (!ok)
            cJSON_Delete(o);
        ok = ok && rl_json_add_str(o, "name", name ? name : "?") &&
             rl_json_add_bool(o, "available", avail == 1) &&
             (avail == 1
                  ? rl_json_add_str_or_null(o, "identity", ident && *ident ? ident : NULL)
                  : rl_json_add_str(o, "reason", reason && *reason ? reason : "unavailable")) &&
             rl_json_add_bool(o, "skipped", avail != 1);
        if (!ok)
            return oom(c);
    }
    return RL_OK;
}

/* ---- the whole report ----------------------------------------------------------------- */

bool rl_import_fm_is(const cJSON *root)
{
    const char *tool = rl_json_get_str(root, "tool");
    if (tool)
        return strcmp(tool, "fm-bench") == 0;
    return cJSON_GetObjectItemCaseSensitive(root, "schemaVersion") &&
           cJSON_GetObjectItemCaseSensitive(root, "summary");
}

/* The client section: driver, tokens, settings, prompts, points. */
static rl_status add_client(fm *c, const cJSON *root, const char *fm_bin, cJSON *b)
{
    const cJSON *sum = NULL, *opt = NULL;
    rl_status st = arr(c, root, "", "summary", RL_IMPORT_FM_MAX_POINTS, &sum);
    if (st == RL_OK && !sum)
        st = bad(c, "", "summary", get(root, "summary"), "an array of fm-bench summary rows");
    if (st == RL_OK)
        st = obj(c, root, "", "options", &opt);
    if (st != RL_OK)
        return st;
    double pairs = (double)cJSON_GetArraySize(sum) * cJSON_GetArraySize(c->results);
    if (pairs > RL_IMPORT_FM_MAX_PAIRS)
        return rl_fail(c->err, RL_EINPUT,
                       "%s: %d summary rows and %d results are %.0f row x run pairs; import reads "
                       "at most %d",
                       c->file, cJSON_GetArraySize(sum), cJSON_GetArraySize(c->results), pairs,
                       RL_IMPORT_FM_MAX_PAIRS);
    cJSON *cl = cJSON_CreateObject(), *drv = cJSON_CreateObject();
    char via[64];
    rl_snprintf(via, sizeof via, "fm-bench %s", c->version);
    bool ok = rl_json_attach(b, "client", cl) && rl_json_attach(cl, "driver", drv) &&
              rl_json_add_str(drv, "type", "command") &&
              rl_json_add_str(drv, "command", fm_bin && *fm_bin ? fm_bin : "fm") &&
              rl_json_add_str(drv, "via", via) &&
              rl_json_add_str(cl, "convention",
                              c->v08 ? RL_IMPORT_FM_CONVENTION_08 : RL_IMPORT_FM_CONVENTION_07) &&
              rl_json_attach(cl, "conventions", conventions_json(c));
    if (!ok)
        return oom(c);
    size_t n_prompts = 0;
    st = add_prompts(c, root, cl, &n_prompts);
    if (st == RL_OK)
        st = add_settings(c, opt, n_prompts, cl);
    if (st == RL_OK)
        st = add_fm_models(c, root, cl);
    cJSON *pts = st == RL_OK ? cJSON_CreateArray() : NULL;
    if (st == RL_OK && !rl_json_attach(cl, "points", pts))
        st = oom(c);
    int i = 0;
    bool counted = false;
    for (const cJSON *row = sum ? sum->child : NULL; st == RL_OK && row; row = row->next, i++) {
        char rp[48];
        rl_snprintf(rp, sizeof rp, "summary[%d]", i);
        if (!cJSON_IsObject(row))
            return bad(c, rp, "", row, "an object");
        st = add_point(c, row, rp, pts);
        const cJSON *ot = get(get(row, "outputTokens"), "count");
        counted |= cJSON_IsNumber(ot) && ot->valuedouble > 0;
    }
    if (st == RL_OK)
        st = add_tokens(c, root, counted, cl);
    /* the models measured, in the order of the points */
    cJSON *names = st == RL_OK ? cJSON_AddArrayToObject(drv, "models") : NULL;
    const cJSON *p;
    cJSON_ArrayForEach(p, pts)
    {
        const char *m = rl_json_get_str(p, "model");
        bool seen = false;
        const cJSON *q;
        cJSON_ArrayForEach(q, names) seen = seen || strcmp(q->valuestring, m) == 0;
        if (names && !seen && !cJSON_AddItemToArray(names, cJSON_CreateString(m)))
            return oom(c);
    }
    return st == RL_OK && !names ? oom(c) : st;
}

rl_status rl_import_fm(const cJSON *root, const char *file, cJSON *b, rl_error *err)
{
    fm c = {.file = file, .err = err, .rate = NAN, .ramp = NAN};
    const char *fm_bin = NULL;
    rl_status st = check_version(&c, root);
    if (st == RL_OK)
        st = check_results(&c, root);
    if (st == RL_OK)
        st = add_source(&c, root, b);
    if (st == RL_OK)
        st = add_environment(&c, root, b, &fm_bin);
    if (st == RL_OK)
        st = add_client(&c, root, fm_bin, b);
    return st;
}
