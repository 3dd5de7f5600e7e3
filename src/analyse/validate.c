/* SPDX-License-Identifier: MIT */
/* validate.c: the semantic checks of a bundle (validate.h lists them). Paths are built in
 * fixed buffers on the stack (a longer path is cut, never overrun); every problem is copied
 * into the caller's list. Nothing here changes the bundle. */
#include "analyse/validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "bundle/calib.h"
#include "base/fit.h"
#include "bundle/legend.h"
#include "analyse/depth_fit.h"
#include "analyse/predict.h"
#include "analyse/roofs.h"
#include "base/rl_json.h"
#include "base/rl_util.h"
#include "base/stats.h"
#include "measure/cache_probe.h"
#include "model/calib_plan.h"

#define VPATH 512
#define REL_TOL 1e-9
#define R2_TOL 1e-9
/* A sample against its re-derivation from samples_ns: 1e-4 relative, the rounding of samples
 * written with 6 significant digits (hand-made fixtures); a slowed record is far outside it. */
#define RATE_TOL 1e-4

typedef rl_validate_problems probs;

static void add(probs *p, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add(probs *p, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->oom)
        return;
    if (p->n == p->cap) {
        rl_validate_problem *it = rl_grow(p->items, &p->cap, sizeof *it, 16);
        if (!it) {
            p->oom = true;
            return;
        }
        p->items = it;
    }
    char *ps = rl_strdup(path), *ms = rl_strdup(msg);
    if (!ps || !ms) {
        free(ps);
        free(ms);
        p->oom = true;
        return;
    }
    p->items[p->n].path = ps;
    p->items[p->n].msg = ms;
    p->n++;
}

void rl_validate_add(rl_validate_problems *out, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    add(out, path, "%s", msg);
}

void rl_validate_problems_free(rl_validate_problems *out)
{
    for (size_t i = 0; i < out->n; i++) {
        free(out->items[i].path);
        free(out->items[i].msg);
    }
    free(out->items);
    memset(out, 0, sizeof *out);
}

const rl_validate_problem *rl_validate_find(const rl_validate_problems *p, const char *path)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->items[i].path, path) == 0)
            return &p->items[i];
    return NULL;
}

/* Append s to buf (of VPATH bytes) at *len, cutting what does not fit. */
static void put(char *buf, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (n > VPATH - 1 - *len)
        n = VPATH - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

/* parent.key (key alone at the top level) and parent[i]; buf may not be parent. */
static const char *key_path(char *buf, const char *parent, const char *key)
{
    size_t len = 0;
    buf[0] = '\0';
    put(buf, &len, parent);
    if (*parent)
        put(buf, &len, ".");
    put(buf, &len, key);
    return buf;
}

static const char *idx_path(char *buf, const char *parent, size_t i)
{
    char ix[32];
    size_t len = 0;
    sprintf(ix, "[%zu]", i);
    buf[0] = '\0';
    put(buf, &len, parent);
    put(buf, &len, ix);
    return buf;
}

static bool is_finite_num(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

static bool is_int(const cJSON *v)
{
    return is_finite_num(v) && v->valuedouble == floor(v->valuedouble);
}

/* {"available": false, ...}. */
static bool unavailable(const cJSON *o)
{
    return cJSON_IsObject(o) && cJSON_IsFalse(rl_json_get(o, "available"));
}

/* Non-finite values (a product that overflowed) are never close: inf - x is not "within". */
static bool rel_close(double a, double b, double tol)
{
    if (!isfinite(a) || !isfinite(b))
        return false;
    double scale = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= tol * scale || a == b;
}

/* The four kinds: the legend's (legend.h), the one list the docs print. */
static bool known_kind(const char *k)
{
    return rl_legend_kind_known(k);
}

/* ---- kinds: a walk over the metric sections ---- */

/* Subtrees that are not metrics: kept verbatim or descriptive. */
static bool skipped_key(const char *key)
{
    static const char
        *const skip[] = {"environment", "llama_cpp", "tool",     "source", "status",
                         "gguf",        "records",   "imported", "argv",   "units",
                         "bench_args",  "client" /* check_client walks its metrics */};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(key, skip[i]) == 0)
            return true;
    return false;
}

/* exempt: this object itself need not have a kind (the top level, a model, a run). */
static void walk_kinds(const cJSON *o, const char *path, bool inherited, bool exempt, probs *p)
{
    char buf[VPATH];
    if (cJSON_IsArray(o)) {
        size_t i = 0;
        for (const cJSON *e = o->child; e; e = e->next, i++)
            walk_kinds(e, idx_path(buf, path, i), inherited, false, p);
        return;
    }
    if (!cJSON_IsObject(o))
        return;
    const cJSON *avail = rl_json_get(o, "available");
    if (cJSON_IsFalse(avail)) {
        const char *reason = rl_json_get_str(o, "reason");
        if (!reason || !*reason)
            add(p, key_path(buf, path, "reason"),
                "unavailable without a reason: {\"available\": false} needs a non-empty "
                "\"reason\"");
        return;
    }
    const cJSON *kind = rl_json_get(o, "kind");
    bool has_kind = false;
    if (kind) {
        if (!cJSON_IsString(kind))
            add(p, key_path(buf, path, "kind"), "\"kind\" is not a string");
        else if (!known_kind(kind->valuestring))
            add(p, key_path(buf, path, "kind"),
                "unknown kind \"%.80s\" (measured, proxy, derived or controlled)",
                kind->valuestring);
        else
            has_kind = true;
    }
    if (!kind && !inherited && !exempt) {
        for (const cJSON *c = o->child; c; c = c->next)
            if ((cJSON_IsNumber(c) || (cJSON_IsArray(c) && cJSON_IsNumber(c->child)) ||
                 rl_json_is_compact(c)) &&
                c->string && !skipped_key(c->string)) {
                add(p, key_path(buf, path, "kind"),
                    "carries numbers (\"%.60s\") but has no \"kind\" (measured, proxy, derived "
                    "or controlled) and is not {\"available\": false, \"reason\"}",
                    c->string);
                break;
            }
    }
    for (const cJSON *c = o->child; c; c = c->next) {
        if (!c->string || skipped_key(c->string))
            continue;
        walk_kinds(c, key_path(buf, path, c->string), inherited || has_kind, false, p);
    }
}

static void check_kinds(const cJSON *b, probs *p)
{
    char buf[VPATH], rb[VPATH];
    for (const cJSON *c = b->child; c; c = c->next) {
        if (!c->string || skipped_key(c->string))
            continue;
        if (strcmp(c->string, "models") == 0 && cJSON_IsArray(c)) {
            size_t i = 0;
            for (const cJSON *m = c->child; m; m = m->next, i++) {
                idx_path(buf, "models", i);
                if (!cJSON_IsObject(m))
                    continue;
                for (const cJSON *k = m->child; k; k = k->next) {
                    if (!k->string || skipped_key(k->string))
                        continue;
                    char kp[VPATH];
                    key_path(kp, buf, k->string);
                    if (strcmp(k->string, "runs") == 0 && cJSON_IsArray(k)) {
                        size_t j = 0;
                        for (const cJSON *r = k->child; r; r = r->next, j++)
                            walk_kinds(r, idx_path(rb, kp, j), false, true, p);
                    } else {
                        walk_kinds(k, kp, false, false, p);
                    }
                }
            }
            continue;
        }
        walk_kinds(c, c->string, false, false, p);
    }
}

/* ---- top level ---- */

static bool utc_ok(const char *s)
{
    static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof pat - 1)
        return false;
    for (size_t i = 0; pat[i]; i++)
        if (pat[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pat[i])
            return false;
    return true;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static void check_top(const cJSON *b, probs *p)
{
    rl_error err = {RL_OK, ""};
    if (rl_bundle_check(b, "bundle", &err) != RL_OK)
        add(p, "schema", "%s", err.msg + strlen("bundle: "));
    static const char *const strs[] = {"command", "created_utc", "updated_utc"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = rl_json_get(b, strs[i]);
        if (!v)
            add(p, strs[i], "required key missing");
        else if (!cJSON_IsString(v))
            add(p, strs[i], "not a string");
        else if (i > 0 && !utc_ok(v->valuestring))
            add(p, strs[i], "not a UTC time YYYY-MM-DDTHH:MM:SSZ");
    }
    const cJSON *tool = rl_json_get(b, "tool");
    if (!cJSON_IsObject(tool))
        add(p, "tool", tool ? "not an object" : "required key missing");
    else {
        if (!rl_json_get_str(tool, "name"))
            add(p, "tool.name", "missing or not a string");
        if (!rl_json_get_str(tool, "version"))
            add(p, "tool.version", "missing or not a string");
    }
    const cJSON *st = rl_json_get(b, "status");
    static const char *const states[] = {"running", "complete", "interrupted", "failed"};
    if (!cJSON_IsObject(st))
        add(p, "status", st ? "not an object" : "required key missing");
    else {
        const char *s = rl_json_get_str(st, "state");
        if (!s || !in_list(s, states, 4))
            add(p, "status.state", "missing or not one of running, complete, interrupted, failed");
    }
    const cJSON *argv = rl_json_get(b, "argv");
    if (argv) {
        if (!cJSON_IsArray(argv))
            add(p, "argv", "not an array");
        else {
            size_t i = 0;
            char buf[VPATH];
            for (const cJSON *a = argv->child; a; a = a->next, i++)
                if (!cJSON_IsString(a))
                    add(p, idx_path(buf, "argv", i), "not a string");
        }
    }
    static const char *const objs[] = {"source",    "environment", "settings",
                                       "llama_cpp", "membw",       "analysis"};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        const cJSON *v = rl_json_get(b, objs[i]);
        if (v && !cJSON_IsObject(v))
            add(p, objs[i], "not an object");
    }
    static const char *const arrs[] = {"models", "warnings", "run_warnings"};
    for (size_t i = 0; i < 3; i++) {
        const cJSON *v = rl_json_get(b, arrs[i]);
        if (v && !cJSON_IsArray(v))
            add(p, arrs[i], "not an array");
    }
}

/* ---- models and runs ---- */

/* A rate's stats.ci95 (stats.h): finite low and high holding stats.mean, and as wide as
 * 2 * t95(n - 1) * sd / sqrt(n) of the samples (sd their sample standard deviation), within
 * REL_TOL of the width or of the mean (the rounding of low and high near a large mean). */
static void check_ci95(const cJSON *ci, const char *stp, const cJSON *sm, size_t n, double sd,
                       double mean, probs *p)
{
    char buf[VPATH];
    if (!ci || unavailable(ci))
        return;
    const cJSON *lo = rl_json_get(ci, "low"), *hi = rl_json_get(ci, "high");
    if (!is_finite_num(lo) || !is_finite_num(hi)) {
        add(p, key_path(buf, stp, "ci95"), "ci95 needs finite low and high");
        return;
    }
    if (is_finite_num(sm) &&
        !(lo->valuedouble <= sm->valuedouble && sm->valuedouble <= hi->valuedouble))
        add(p, key_path(buf, stp, "ci95"), "ci95 [%.6g, %.6g] does not hold the mean %.6g",
            lo->valuedouble, hi->valuedouble, sm->valuedouble);
    if (n < 2)
        return;
    double want = 2 * rl_stats_t95(n - 1) * sd / sqrt((double)n);
    double width = hi->valuedouble - lo->valuedouble;
    if (!rel_close(width, want, REL_TOL) && fabs(width - want) > REL_TOL * fabs(mean))
        add(p, key_path(buf, stp, "ci95"),
            "ci95 is %.17g wide, not 2 * t95(%zu) * sd / sqrt(n) of the samples (%.17g)", width,
            n - 1, want);
}

static void check_rate(const cJSON *r, const char *path, probs *p)
{
    char buf[VPATH], sp[VPATH];
    if (!cJSON_IsObject(r)) {
        add(p, path, "not an object");
        return;
    }
    if (unavailable(r))
        return; /* its reason: check_kinds */
    const char *unit = rl_json_get_str(r, "unit");
    if (!unit || strcmp(unit, "tok/s") != 0)
        add(p, key_path(buf, path, "unit"), "a rate's unit must be \"tok/s\", not %s%.40s%s",
            unit ? "\"" : "", unit ? unit : "missing", unit ? "\"" : "");
    const cJSON *samples = rl_json_get(r, "samples");
    if (unavailable(samples)) { /* imported: the source's mean */
        const cJSON *mean = rl_json_get(r, "mean");
        if (!is_finite_num(mean) || mean->valuedouble <= 0)
            add(p, key_path(buf, path, "mean"),
                "a rate without samples needs a positive finite \"mean\"");
        const cJSON *sd = rl_json_get(r, "sd");
        if (sd && !unavailable(sd) && (!is_finite_num(sd) || sd->valuedouble < 0))
            add(p, key_path(buf, path, "sd"), "not a finite number >= 0 nor unavailable");
        return;
    }
    key_path(sp, path, "samples");
    double *x = NULL;
    size_t n = 0;
    if (rl_json_values(samples, &x, &n) == RL_EINTERNAL) {
        add(p, sp, "out of memory reading the samples");
        return;
    }
    if (n == 0) {
        add(p, sp,
            "a measured rate needs a non-empty array of samples (or samples unavailable "
            "with a mean)");
        return;
    }
    bool all_ok = true;
    double sum = 0, mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0)) { /* NAN: not a finite number */
            add(p, idx_path(buf, sp, i), "a sample must be a positive finite number");
            all_ok = false;
            continue;
        }
        sum += x[i];
        mn = fmin(mn, x[i]);
        mx = fmax(mx, x[i]);
    }
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; all_ok && i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    free(x);
    if (!all_ok)
        return;
    char stp[VPATH];
    key_path(stp, path, "stats");
    const cJSON *st = rl_json_get(r, "stats");
    if (!cJSON_IsObject(st) || unavailable(st)) {
        add(p, stp, "a rate with samples needs its available stats");
        return;
    }
    const cJSON *sn = rl_json_get(st, "n");
    if (!is_int(sn) || sn->valuedouble != (double)n)
        add(p, key_path(buf, stp, "n"), "stats.n is not the number of samples (%zu)", n);
    const cJSON *sm = rl_json_get(st, "mean");
    if (!is_finite_num(sm) || !rel_close(sm->valuedouble, mean, REL_TOL))
        add(p, key_path(buf, stp, "mean"), "stats.mean is not the mean of the samples (%.17g)",
            mean);
    const cJSON *smin = rl_json_get(st, "min"), *smax = rl_json_get(st, "max");
    if (smin && (!is_finite_num(smin) || !rel_close(smin->valuedouble, mn, REL_TOL)))
        add(p, key_path(buf, stp, "min"), "stats.min is not the smallest sample (%.17g)", mn);
    if (smax && (!is_finite_num(smax) || !rel_close(smax->valuedouble, mx, REL_TOL)))
        add(p, key_path(buf, stp, "max"), "stats.max is not the largest sample (%.17g)", mx);
    const cJSON *sd = rl_json_get(st, "sd");
    if (n >= 2) {
        double want = sqrt(ss / (double)(n - 1));
        if (!is_finite_num(sd) || (!rel_close(sd->valuedouble, want, REL_TOL) &&
                                   fabs(sd->valuedouble - want) > REL_TOL * fabs(mean)))
            add(p, key_path(buf, stp, "sd"),
                "stats.sd is not the sample standard deviation of the samples (%.17g)", want);
    } else if (sd && !unavailable(sd)) {
        add(p, key_path(buf, stp, "sd"),
            "one sample cannot show spread: stats.sd must be unavailable");
    }
    check_ci95(rl_json_get(st, "ci95"), stp, sm, n, n >= 2 ? sqrt(ss / (double)(n - 1)) : 0, mean,
               p);
}

/* The samples of one rate come from its records: one per samples_ns entry of every record of
 * that kind (decode: n_gen > 0 and n_prompt 0; prefill: n_prompt > 0 and n_gen 0) at the run's
 * depth, or one for a record that has only its average (rl_bundle_lbench_rate); each sample is
 * re-derived, (n_prompt + n_gen) * 1e9 / samples_ns (or the record's avg_ts), and must agree
 * with the rate's sample within RATE_TOL. */
static void check_sample_count(const cJSON *rate, const cJSON *recs, bool decode, double depth,
                               const char *path, probs *p)
{
    double *x = NULL, *ns_v = NULL;
    size_t have = 0, len = 0;
    if (rl_json_values(rl_json_get(rate, "samples"), &x, &have) != RL_OK)
        return; /* not an array: check_rate says so */
    size_t want = 0, k = 0, bad = 0, first_bad = 0;
    double bad_want = 0;
    for (const cJSON *rec = recs->child; rec; rec = rec->next) {
        const cJSON *np = rl_json_get(rec, "n_prompt"), *ng = rl_json_get(rec, "n_gen"),
                    *nd = rl_json_get(rec, "n_depth");
        double vp = is_finite_num(np) ? np->valuedouble : 0;
        double vg = is_finite_num(ng) ? ng->valuedouble : 0;
        double vd = is_finite_num(nd) ? nd->valuedouble : 0;
        bool kind = decode ? vg > 0 && vp == 0 : vp > 0 && vg == 0;
        if (!cJSON_IsObject(rec) || !kind || vd != depth)
            continue;
        free(ns_v);
        ns_v = NULL;
        len = 0;
        if (rl_json_values(rl_json_get(rec, "samples_ns"), &ns_v, &len) == RL_EINTERNAL)
            break;
        want += len > 0 ? len : 1;
        const cJSON *avg = rl_json_get(rec, "avg_ts");
        for (size_t j = 0; j < (len > 0 ? len : 1); j++, k++) {
            double v = len > 0 ? ns_v[j] : is_finite_num(avg) ? avg->valuedouble : 0;
            double rate_v = len > 0 ? (v > 0 ? (vp + vg) * 1e9 / v : 0) : v;
            if (k < have && isfinite(x[k]) && rate_v > 0 && !rel_close(x[k], rate_v, RATE_TOL)) {
                if (bad++ == 0) {
                    first_bad = k;
                    bad_want = rate_v;
                }
            }
        }
    }
    free(ns_v);
    free(x);
    char buf[VPATH], sp[VPATH];
    if (want > 0 && have != want)
        add(p, key_path(buf, path, "samples"),
            "%zu samples, but the run's %s records hold %zu samples_ns values", have,
            decode ? "decode" : "prefill", want);
    else if (bad > 0)
        add(p, idx_path(buf, key_path(sp, path, "samples"), first_bad),
            "%zu sample%s not re-derived from the %s records' samples_ns: (n_prompt + n_gen) "
            "* 1e9 / samples_ns gives %.17g here",
            bad, bad == 1 ? " is" : "s are", decode ? "decode" : "prefill", bad_want);
}

static void check_run(const cJSON *r, const char *path, probs *p)
{
    char buf[VPATH], rp[VPATH];
    if (!cJSON_IsObject(r)) {
        add(p, path, "not an object");
        return;
    }
    const cJSON *th = rl_json_get(r, "threads"), *dp = rl_json_get(r, "depth");
    bool th_ok = is_int(th) && th->valuedouble >= 1, dp_ok = is_int(dp) && dp->valuedouble >= 0;
    if (!th_ok)
        add(p, key_path(buf, path, "threads"), "missing or not an integer >= 1");
    if (!dp_ok)
        add(p, key_path(buf, path, "depth"), "missing or not an integer >= 0");
    static const char *const states[] = {"running", "ok",      "failed",
                                         "crashed", "timeout", "interrupted"};
    const char *status = rl_json_get_str(r, "status");
    if (!status || !in_list(status, states, 6))
        add(p, key_path(buf, path, "status"),
            "missing or not one of running, ok, failed, crashed, timeout, interrupted");
    bool ok = status && strcmp(status, "ok") == 0;
    const cJSON *dec = rl_json_get(r, "decode");
    if (ok && (!dec || unavailable(dec)))
        add(p, key_path(buf, path, "decode"), "a run with status ok has no decode rate");
    if (dec)
        check_rate(dec, key_path(buf, path, "decode"), p);
    const cJSON *pre = rl_json_get(r, "prefill");
    if (pre)
        check_rate(pre, key_path(buf, path, "prefill"), p);
    const cJSON *recs = rl_json_get(r, "records");
    key_path(rp, path, "records");
    if (!recs) {
        if (ok)
            add(p, rp, "a run with status ok has no records");
        return;
    }
    if (!cJSON_IsArray(recs)) {
        add(p, rp, "not an array");
        return;
    }
    size_t i = 0, n_decode = 0;
    for (const cJSON *rec = recs->child; rec; rec = rec->next, i++) {
        char ip[VPATH];
        idx_path(ip, rp, i);
        if (!cJSON_IsObject(rec)) {
            add(p, ip, "a llama-bench record is not an object");
            continue;
        }
        const cJSON *nt = rl_json_get(rec, "n_threads"), *nd = rl_json_get(rec, "n_depth");
        const cJSON *ng = rl_json_get(rec, "n_gen");
        if (is_finite_num(ng) && ng->valuedouble > 0)
            n_decode++;
        if (nt && th_ok && (!is_int(nt) || nt->valuedouble != th->valuedouble))
            add(p, key_path(buf, ip, "n_threads"),
                "the record's n_threads is not the run's threads (%.0f)", th->valuedouble);
        if (nd && dp_ok && (!is_int(nd) || nd->valuedouble != dp->valuedouble))
            add(p, key_path(buf, ip, "n_depth"),
                "the record's n_depth is not the run's depth (%.0f)", dp->valuedouble);
    }
    if (ok && i > 0 && n_decode == 0)
        add(p, rp, "a run with status ok has records but no decode record (n_gen > 0)");
    if (i > 0 && dp_ok) {
        check_sample_count(dec, recs, true, dp->valuedouble, key_path(buf, path, "decode"), p);
        check_sample_count(pre, recs, false, dp->valuedouble, key_path(buf, path, "prefill"), p);
    }
}

/* The model ids, for look-ups; NULL entries for models without a string id. */
typedef struct {
    const char **ids;
    size_t n;
} idset;

static bool has_id(const idset *s, const char *id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->ids[i] && strcmp(s->ids[i], id) == 0)
            return true;
    return false;
}

static void check_models(const cJSON *models, idset *ids, probs *p)
{
    char mp[VPATH], buf[VPATH], rp[VPATH];
    size_t i = 0;
    for (const cJSON *m = models->child; m; m = m->next, i++) {
        idx_path(mp, "models", i);
        if (!cJSON_IsObject(m)) {
            add(p, mp, "not an object");
            continue;
        }
        const char *id = rl_json_get_str(m, "id");
        if (!id || !*id)
            add(p, key_path(buf, mp, "id"), "missing, empty or not a string");
        else {
            for (size_t k = 0; k < i; k++)
                if (ids->ids[k] && strcmp(ids->ids[k], id) == 0) {
                    add(p, key_path(buf, mp, "id"),
                        "duplicate model id \"%.60s\" (also models[%zu])", id, k);
                    break;
                }
            ids->ids[i] = id;
        }
        if (!rl_json_get_str(m, "name"))
            add(p, key_path(buf, mp, "name"), "missing or not a string");
        const cJSON *bpt = rl_json_get(m, "bytes_per_token");
        if (bpt && !unavailable(bpt)) {
            const cJSON *v = rl_json_get(bpt, "value");
            const char *unit = rl_json_get_str(bpt, "unit");
            if (!is_finite_num(v) || v->valuedouble <= 0)
                add(p, key_path(buf, mp, "bytes_per_token.value"),
                    "missing or not a positive number");
            if (rl_json_get(bpt, "unit") && (!unit || strcmp(unit, "bytes") != 0))
                add(p, key_path(buf, mp, "bytes_per_token.unit"), "must be \"bytes\"");
        }
        const cJSON *runs = rl_json_get(m, "runs");
        key_path(rp, mp, "runs");
        if (!cJSON_IsArray(runs)) {
            add(p, rp, runs ? "not an array" : "required key missing");
            continue;
        }
        size_t j = 0;
        for (const cJSON *r = runs->child; r; r = r->next, j++)
            check_run(r, idx_path(buf, rp, j), p);
    }
    ids->n = i;
}

/* ---- warnings ---- */

static void check_warnings(const cJSON *ws, const char *path, const idset *ids, probs *p)
{
    if (!cJSON_IsArray(ws))
        return; /* reported by check_top / check_analysis */
    char wp[VPATH], buf[VPATH], ap[VPATH];
    size_t i = 0;
    for (const cJSON *w = ws->child; w; w = w->next, i++) {
        idx_path(wp, path, i);
        if (!cJSON_IsObject(w)) {
            add(p, wp, "a warning is not an object");
            continue;
        }
        const char *code = rl_json_get_str(w, "code");
        bool code_ok = code && *code;
        for (const char *c = code; code_ok && *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
                code_ok = false;
        if (!code_ok)
            add(p, key_path(buf, wp, "code"), "missing or not [a-z0-9_]+");
        const char *text = rl_json_get_str(w, "text");
        if (!text || !*text)
            add(p, key_path(buf, wp, "text"), "missing or empty");
        const cJSON *at = rl_json_get(w, "applies_to");
        key_path(ap, wp, "applies_to");
        if (!cJSON_IsArray(at)) {
            add(p, ap, "missing or not an array of model ids");
            continue;
        }
        size_t k = 0;
        for (const cJSON *a = at->child; a; a = a->next, k++) {
            if (!cJSON_IsString(a))
                add(p, idx_path(buf, ap, k), "not a string");
            else if (!has_id(ids, a->valuestring))
                add(p, idx_path(buf, ap, k), "no model has the id \"%.60s\"", a->valuestring);
        }
    }
}

/* ---- analysis ---- */

static void check_fit(const cJSON *an, probs *p)
{
    const cJSON *fit = rl_json_get(an, "fit");
    if (!fit || unavailable(fit) || !cJSON_IsObject(fit))
        return;
    const cJSON *ams = rl_json_get(an, "models");
    size_t cap = cJSON_IsArray(ams) ? (size_t)cJSON_GetArraySize(ams) : 0;
    double *x = rl_calloc(cap ? cap : 1, sizeof *x), *y = rl_calloc(cap ? cap : 1, sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        p->oom = true;
        return;
    }
    size_t n = 0, i = 0, n_fitted = 0;
    bool pts_ok = true;
    char buf[VPATH], mp[VPATH];
    for (const cJSON *m = cJSON_IsArray(ams) ? ams->child : NULL; m; m = m->next, i++) {
        if (!cJSON_IsTrue(rl_json_get(m, "in_fit")))
            continue;
        n_fitted++;
        idx_path(mp, "analysis.models", i);
        const cJSON *bpt = rl_json_get(m, "bytes_per_token");
        const cJSON *op = rl_json_get(m, "operating_point");
        const cJSON *tok = cJSON_IsObject(op) ? rl_json_get(op, "decode_tok_s") : NULL;
        if (!is_finite_num(bpt) || bpt->valuedouble <= 0) {
            add(p, key_path(buf, mp, "bytes_per_token"),
                "a fitted model needs a positive bytes_per_token");
            pts_ok = false;
        } else if (!is_finite_num(tok) || tok->valuedouble <= 0) {
            add(p, key_path(buf, mp, "operating_point.decode_tok_s"),
                "a fitted model needs a positive decode rate");
            pts_ok = false;
        } else {
            x[n] = bpt->valuedouble;
            y[n] = tok->valuedouble;
            n++;
        }
    }
    const cJSON *np = rl_json_get(fit, "n_points");
    if (!is_int(np) || np->valuedouble != (double)n_fitted)
        add(p, "analysis.fit.n_points",
            "n_points is not the number of fitted models (analysis.models[] with in_fit "
            "true: %zu)",
            n_fitted);
    const cJSON *bw = rl_json_get(fit, "bw_bytes_s"), *gbs = rl_json_get(fit, "bw_GBs"),
                *r2 = rl_json_get(fit, "r2");
    if (!is_finite_num(bw))
        add(p, "analysis.fit.bw_bytes_s", "missing or not a finite number");
    if (!is_finite_num(gbs))
        add(p, "analysis.fit.bw_GBs", "missing or not a finite number");
    else if (is_finite_num(bw) && !rel_close(gbs->valuedouble, bw->valuedouble / 1e9, REL_TOL))
        add(p, "analysis.fit.bw_GBs", "bw_GBs is not bw_bytes_s / 1e9 (%.17g)",
            bw->valuedouble / 1e9);
    rl_fit_result fr;
    rl_error err = {RL_OK, ""};
    if (pts_ok && n > 0 && rl_fit_roofline(x, y, n, NULL, &fr, &err) == RL_OK) {
        if (is_finite_num(bw) && !rel_close(bw->valuedouble, fr.bw_bytes_s, REL_TOL))
            add(p, "analysis.fit.bw_bytes_s",
                "bw_bytes_s is not the fit of the fitted models' operating points "
                "(sum(x y) / sum(x^2) = %.17g)",
                fr.bw_bytes_s);
        if (fr.has_r2) {
            if (!is_finite_num(r2) || fabs(r2->valuedouble - fr.r2) > R2_TOL)
                add(p, "analysis.fit.r2", "r2 is not that of the fit (%.17g)", fr.r2);
        } else if (r2 && !unavailable(r2)) {
            add(p, "analysis.fit.r2", "every point has the same rate: r2 must be unavailable");
        }
    }
    free(x);
    free(y);
}

/* The points analysis_depth.c fits for a model at a thread count: the depth-0 rate of its rows
 * (once) and each row's rate; the KV bytes per token its rows give (0: unknown). */
static size_t depth_points(const cJSON *an, const char *model, double threads, rl_depth_pt *pts,
                           double *kv)
{
    size_t n = 0;
    bool empty = false;
    *kv = 0;
    const cJSON *lc;
    cJSON_ArrayForEach(lc, rl_json_get(an, "long_context"))
    {
        const char *id = rl_json_get_str(lc, "model");
        double t, d, ts, e, kb;
        if (!id || strcmp(id, model) != 0 || !rl_json_get_num(lc, "threads", &t) || t != threads ||
            !rl_json_get_num(lc, "depth", &d) || !rl_json_get_num(lc, "decode_tok_s", &ts))
            continue;
        const cJSON *pe = rl_json_available(lc, "pct_of_empty_cache");
        if (!empty && n < RL_DEPTH_FIT_MAX_POINTS && rl_json_get_num(pe, "empty_cache_tok_s", &e)) {
            pts[n++] = (rl_depth_pt){0, e};
            empty = true;
        }
        if (n < RL_DEPTH_FIT_MAX_POINTS)
            pts[n++] = (rl_depth_pt){d, ts};
        const cJSON *bo = rl_json_available(lc, "bytes_only_prediction");
        if (d > 0 && rl_json_get_num(bo, "kv_bytes", &kb))
            *kv = kb / d;
    }
    return n;
}

/* analysis.depth_fits[]: each fit is the least squares of its model's long-context rows
 * (analyse/depth_fit.h), its KV cost the slope over the rows' KV bytes, its check's error the
 * one its own numbers give. */
static void check_depth_fits(const cJSON *an, probs *p)
{
    char dp[VPATH], buf[VPATH];
    size_t i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, rl_json_get(an, "depth_fits"))
    {
        idx_path(dp, "analysis.depth_fits", i++);
        const char *model = rl_json_get_str(d, "model");
        double threads, tau0, slope, c;
        if (unavailable(d) || !model || !rl_json_get_num(d, "threads", &threads))
            continue;
        rl_depth_pt pts[RL_DEPTH_FIT_MAX_POINTS];
        double kv;
        size_t n = depth_points(an, model, threads, pts, &kv);
        rl_depth_fit f;
        rl_depth_fit_make(pts, n, -1, &f);
        if (!f.ok) {
            add(p, dp, "not a fit of the model's long-context rows (%s)", f.why);
            continue;
        }
        if (!rl_json_get_num(d, "tau0_us", &tau0) || !rel_close(tau0, f.tau0_us, REL_TOL))
            add(p, key_path(buf, dp, "tau0_us"), "not what the long-context rows give (%.17g)",
                f.tau0_us);
        if (!rl_json_get_num(d, "slope_us_per_token", &slope) ||
            (!rel_close(slope, f.slope_us, REL_TOL) && fabs(slope - f.slope_us) > 1e-9 * f.tau0_us))
            add(p, key_path(buf, dp, "slope_us_per_token"),
                "not what the long-context rows give (%.17g)", f.slope_us);
        if (kv > 0 && rl_json_get_num(d, "us_per_kv_byte", &c) &&
            !rel_close(c, f.slope_us / kv, 1e-6) && fabs(c - f.slope_us / kv) > 1e-12)
            add(p, key_path(buf, dp, "us_per_kv_byte"), "not slope_us_per_token / %.17g KV bytes",
                kv);
        const cJSON *ck = rl_json_get(d, "check");
        ck = cJSON_IsObject(ck) && !unavailable(ck) ? ck : NULL;
        double pr, me, e;
        if (ck && rl_json_get_num(ck, "predicted_tok_s", &pr) &&
            rl_json_get_num(ck, "measured_tok_s", &me) && me > 0 &&
            (!rl_json_get_num(ck, "error_pct", &e) || !rel_close(e, 100 * (pr - me) / me, 1e-6)) &&
            fabs(e - 100 * (pr - me) / me) > 1e-9)
            add(p, key_path(buf, dp, "check.error_pct"),
                "not 100 x (predicted - measured) / measured (%.17g)", 100 * (pr - me) / me);
    }
}

static void check_analysis(const cJSON *an, const idset *ids, probs *p)
{
    char mp[VPATH], buf[VPATH];
    const char *kind = rl_json_get_str(an, "kind");
    if (!kind || strcmp(kind, "derived") != 0)
        add(p, "analysis.kind", "the analysis must be of kind \"derived\"");
    const char *scope = rl_json_get_str(an, "scope");
    if (scope && strcmp(scope, "client") != 0)
        add(p, "analysis.scope", "not \"client\" (the only scope besides none)");
    if (!scope && !rl_json_get(an, "fit"))
        add(p, "analysis.fit", "required key missing");
    check_fit(an, p);
    check_depth_fits(an, p);
    const cJSON *ceil = rl_json_get(an, "ceiling");
    const cJSON *ceil_gbs =
        cJSON_IsObject(ceil) && !unavailable(ceil) ? rl_json_get(ceil, "GBs") : NULL;
    const cJSON *ams = rl_json_get(an, "models");
    if (ams && !cJSON_IsArray(ams))
        add(p, "analysis.models", "not an array");
    size_t i = 0;
    for (const cJSON *m = cJSON_IsArray(ams) ? ams->child : NULL; m; m = m->next, i++) {
        idx_path(mp, "analysis.models", i);
        if (!cJSON_IsObject(m)) {
            add(p, mp, "not an object");
            continue;
        }
        const char *id = rl_json_get_str(m, "id");
        if (!id || !has_id(ids, id))
            add(p, key_path(buf, mp, "id"), "does not name a model of models[]");
        const cJSON *bpt = rl_json_get(m, "bytes_per_token"),
                    *op = rl_json_get(m, "operating_point");
        const cJSON *tok =
            cJSON_IsObject(op) && !unavailable(op) ? rl_json_get(op, "decode_tok_s") : NULL;
        const cJSON *dbw = rl_json_get(m, "decode_bw_GBs");
        if (is_finite_num(dbw) && is_finite_num(bpt) && is_finite_num(tok) &&
            !rel_close(dbw->valuedouble, bpt->valuedouble * tok->valuedouble / 1e9, REL_TOL))
            add(p, key_path(buf, mp, "decode_bw_GBs"),
                "decode_bw_GBs is not bytes_per_token * decode_tok_s / 1e9 (%.17g)",
                bpt->valuedouble * tok->valuedouble / 1e9);
        const cJSON *u = rl_json_get(m, "utilisation");
        if (!cJSON_IsObject(u) || unavailable(u))
            continue;
        const cJSON *pct = rl_json_get(u, "util_pct"), *cg = rl_json_get(u, "ceiling_GBs");
        char up[VPATH];
        key_path(up, mp, "utilisation");
        if (!is_finite_num(cg) || cg->valuedouble <= 0) {
            add(p, key_path(buf, up, "ceiling_GBs"), "missing or not a positive number");
            continue;
        }
        if (is_finite_num(ceil_gbs) && !rel_close(cg->valuedouble, ceil_gbs->valuedouble, REL_TOL))
            add(p, key_path(buf, up, "ceiling_GBs"), "not the analysis ceiling (%.17g GB/s)",
                ceil_gbs->valuedouble);
        if (!is_finite_num(dbw))
            add(p, key_path(buf, mp, "decode_bw_GBs"),
                "a utilisation needs the model's decode_bw_GBs");
        else if (!is_finite_num(pct) ||
                 !rel_close(pct->valuedouble, 100.0 * dbw->valuedouble / cg->valuedouble, REL_TOL))
            add(p, key_path(buf, up, "util_pct"),
                "util_pct is not 100 * decode_bw_GBs / ceiling_GBs (%.17g)",
                100.0 * dbw->valuedouble / cg->valuedouble);
    }
    const cJSON *ws = rl_json_get(an, "warnings");
    if (ws && !cJSON_IsArray(ws))
        add(p, "analysis.warnings", "not an array");
    check_warnings(ws, "analysis.warnings", ids, p);
}

/* ---- client: the streaming benchmark (docs/BUNDLE.md "client") ---- */

/* One metric m of a client point's metrics (path mp): kind and unit against the legend, and its
 * stats against its samples. counts: the point's request counts are whole, ok of them ok. */
static void check_client_metric(const cJSON *m, const char *mp, bool counts, double ok, probs *p)
{
    char buf[VPATH], sp[VPATH];
    key_path(sp, mp, m->string);
    const char *kind = rl_json_get_str(m, "kind"), *unit = rl_json_get_str(m, "unit");
    if (!kind)
        add(p, key_path(buf, sp, "kind"),
            "a client metric needs a kind or {\"available\": false, \"reason\"}");
    char lp[VPATH];
    key_path(lp, "client.points[].metrics", m->string);
    for (size_t r = 0; r < rl_legend_count(); r++) {
        const rl_legend_row *row = rl_legend_at(r);
        if (strcmp(row->path, lp) != 0)
            continue;
        if (!unit || strcmp(unit, row->unit) != 0)
            add(p, key_path(buf, sp, "unit"), "unit %s%.40s%s, the legend says \"%s\"",
                unit ? "\"" : "", unit ? unit : "missing", unit ? "\"" : "", row->unit);
        if (kind && strcmp(kind, row->kind) != 0)
            add(p, key_path(buf, sp, "kind"), "kind \"%.40s\", the legend says \"%s\"", kind,
                row->kind);
    }
    const cJSON *smp = rl_json_get(m, "samples"), *sum = rl_json_get(m, "stats");
    if (!smp && !sum) {
        if (!is_finite_num(rl_json_get(m, "value")))
            add(p, key_path(buf, sp, "value"), "neither samples nor a finite value");
        return;
    }
    const cJSON *sn = rl_json_get(sum, "n"), *smean = rl_json_get(sum, "mean");
    if (!is_int(sn) || !is_finite_num(smean)) {
        add(p, key_path(buf, sp, "stats"), "needs a whole n and a finite mean");
        return;
    }
    if (counts && sn->valuedouble > ok && strcmp(m->string, "chunk_gap") != 0)
        add(p, key_path(buf, sp, "stats.n"), "%.0f values from %.0f ok requests", sn->valuedouble,
            ok);
    if (unavailable(smp))
        return; /* too many to keep: the stats alone */
    double *x = NULL;
    size_t n = 0;
    rl_status vs = rl_json_values(smp, &x, &n);
    if (vs != RL_OK) {
        add(p, key_path(buf, sp, "samples"),
            vs == RL_EINPUT ? "not an array nor unavailable" : "out of memory reading it");
        return;
    }
    double total = 0, mn = INFINITY, mx = -INFINITY;
    bool finite = true;
    for (size_t i = 0; finite && i < n; i++) {
        finite = isfinite(x[i]);
        total += x[i];
        mn = fmin(mn, x[i]);
        mx = fmax(mx, x[i]);
    }
    free(x);
    if (!finite) {
        add(p, key_path(buf, sp, "samples"), "a sample is not a finite number");
        return;
    }
    if (sn->valuedouble != (double)n)
        add(p, key_path(buf, sp, "stats.n"), "stats.n is not the number of samples (%zu)", n);
    else if (n > 0 && !rel_close(smean->valuedouble, total / (double)n, REL_TOL))
        add(p, key_path(buf, sp, "stats.mean"), "stats.mean is not the mean of the samples (%.17g)",
            total / (double)n);
    const cJSON *smin = rl_json_get(sum, "min"), *smax = rl_json_get(sum, "max");
    if (n > 0 && (!is_finite_num(smin) || !rel_close(smin->valuedouble, mn, REL_TOL)))
        add(p, key_path(buf, sp, "stats.min"), "stats.min is not the smallest sample");
    if (n > 0 && (!is_finite_num(smax) || !rel_close(smax->valuedouble, mx, REL_TOL)))
        add(p, key_path(buf, sp, "stats.max"), "stats.max is not the largest sample");
}

/* Every point: requests add up, each metric has a kind and the legend's unit or a reason,
 * every stats block agrees with its samples, no distribution has more values than ok requests,
 * goodput counts fit; records one per measured request. The kinds of the settings, the token
 * calibration and every point's metrics are walked as everywhere else. */
static void check_client(const cJSON *c, probs *p)
{
    char buf[VPATH], pp[VPATH], mp[VPATH];
    if (!cJSON_IsObject(c)) {
        add(p, "client", "not an object");
        return;
    }
    walk_kinds(rl_json_get(c, "settings"), "client.settings", false, false, p);
    walk_kinds(rl_json_get(rl_json_get(c, "tokens"), "calibration"), "client.tokens.calibration",
               false, false, p);
    const cJSON *pts = rl_json_get(c, "points");
    if (!cJSON_IsArray(pts)) {
        add(p, "client.points", pts ? "not an array" : "required key missing");
        return;
    }
    size_t i = 0;
    for (const cJSON *pt = pts->child; pt; pt = pt->next, i++) {
        idx_path(pp, "client.points", i);
        if (!cJSON_IsObject(pt)) {
            add(p, pp, "not an object");
            continue;
        }
        for (const cJSON *k = pt->child; k; k = k->next)
            if (k->string && strcmp(k->string, "records") != 0 &&
                strcmp(k->string, "metrics") != 0 && strcmp(k->string, "imported") != 0 &&
                cJSON_IsObject(k))
                walk_kinds(k, key_path(buf, pp, k->string), false, false, p);
        const cJSON *rq = rl_json_get(pt, "requests");
        static const char *const cnt[] = {"measured", "ok", "failed", "attempts"};
        double v[4] = {0};
        bool counts = true;
        for (size_t j = 0; j < 4; j++) {
            const cJSON *x = rl_json_get(rq, cnt[j]);
            char rp[VPATH];
            key_path(rp, pp, "requests");
            if (!is_int(x) || x->valuedouble < 0) {
                add(p, key_path(buf, rp, cnt[j]), "missing or not a whole number >= 0");
                counts = false;
            } else {
                v[j] = x->valuedouble;
            }
        }
        if (counts && v[1] + v[2] != v[0])
            add(p, key_path(buf, pp, "requests"),
                "ok (%.0f) + failed (%.0f) is not measured (%.0f)", v[1], v[2], v[0]);
        if (counts && v[3] < v[0])
            add(p, key_path(buf, pp, "requests.attempts"),
                "fewer attempts (%.0f) than measured requests (%.0f)", v[3], v[0]);
        const cJSON *recs = rl_json_get(pt, "records");
        if (unavailable(recs)) /* an import whose source keeps no per-request records */
            walk_kinds(recs, key_path(buf, pp, "records"), false, false, p);
        else if (!cJSON_IsArray(recs))
            add(p, key_path(buf, pp, "records"), recs ? "not an array" : "required key missing");
        else if (counts && (double)cJSON_GetArraySize(recs) != v[0])
            add(p, key_path(buf, pp, "records"), "%d records for %.0f measured requests",
                cJSON_GetArraySize(recs), v[0]);
        const cJSON *g = rl_json_get(pt, "goodput");
        const cJSON *good = rl_json_get(g, "good");
        if (counts && is_finite_num(good) && good->valuedouble > v[1])
            add(p, key_path(buf, pp, "goodput.good"), "more good requests (%.0f) than ok (%.0f)",
                good->valuedouble, v[1]);
        const cJSON *ms = rl_json_get(pt, "metrics");
        key_path(mp, pp, "metrics");
        if (!cJSON_IsObject(ms)) {
            add(p, mp, ms ? "not an object" : "required key missing");
            continue;
        }
        walk_kinds(ms, mp, false, true, p);
        for (const cJSON *m = ms->child; m; m = m->next) {
            if (!m->string || !cJSON_IsObject(m) || unavailable(m))
                continue; /* an unavailable one's reason: walk_kinds */
            check_client_metric(m, mp, counts, v[1], p);
        }
    }
}

/* A prediction's two_roof (roofs.h), recomputed as far as it carries its inputs: its types'
 * times add up with the fixed cost to tau_us, tok_s is 1e6 / tau_us, kernels_GBs the bytes over
 * their time, the binding type the one taking the most time; and each type's time is its bytes
 * x the bundle's calibration's time per byte at its threads for a model of all those bytes and
 * its matrices (a type without a calibration: the calibrated type holding the most bytes). The
 * fixed cost depends on the model's layers, which a prediction does not keep: only its sum is
 * checked. */
static const rl_roof_type *roof_type_named(const rl_pred_fit *f, const char *type)
{
    for (size_t i = 0; type && i < f->n_roof_types; i++)
        if (strcmp(f->roof_types[i].type, type) == 0)
            return &f->roof_types[i];
    return NULL;
}

static void check_two_roof(const cJSON *b, const cJSON *two, const char *mp, probs *p)
{
    char tp[VPATH], buf[VPATH];
    key_path(tp, mp, "two_roof");
    double tau, tok, fixed, gbs, threads;
    const cJSON *types = rl_json_get(two, "types");
    if (!rl_json_get_num(two, "tau_us", &tau) || !rl_json_get_num(two, "tok_s", &tok) ||
        !rl_json_get_num(two, "fixed_us", &fixed) || !rl_json_get_num(two, "kernels_GBs", &gbs) ||
        !rl_json_get_num(two, "threads", &threads) || !cJSON_IsArray(types)) {
        add(p, tp, "needs tau_us, tok_s, fixed_us, kernels_GBs, threads and types");
        return;
    }
    double sum_us = 0, sum_bytes = 0, top = -1, largest = 0;
    const char *binding = NULL, *big = NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, types)
    {
        double by = rl_json_num_or(t, "bytes", NAN), us = rl_json_num_or(t, "us", NAN);
        sum_us += us;
        sum_bytes += by > 0 ? by : 0;
        if (us > top) {
            top = us;
            binding = rl_json_get_str(t, "type");
        }
        if (cJSON_IsTrue(rl_json_get(t, "calibrated")) && by > largest) {
            largest = by;
            big = rl_json_get_str(t, "type");
        }
    }
    if (!rel_close(tau, fixed + sum_us, 1e-9))
        add(p, key_path(buf, tp, "tau_us"), "is not fixed_us + the types' us (%.17g)",
            fixed + sum_us);
    if (!(tau > 0) || !rel_close(tok, 1e6 / tau, 1e-9))
        add(p, key_path(buf, tp, "tok_s"), "is not 1e6 / tau_us");
    if (sum_us > 0 && !rel_close(gbs, 1e-3 * sum_bytes / sum_us, 1e-9))
        add(p, key_path(buf, tp, "kernels_GBs"), "is not the bytes over their time (%.17g)",
            1e-3 * sum_bytes / sum_us);
    const char *bind = rl_json_get_str(two, "binding");
    if (!bind || !binding || strcmp(bind, binding) != 0)
        add(p, key_path(buf, tp, "binding"), "is not the type taking the most time (%s)",
            binding ? binding : "none");
    static rl_pred_fit f; /* large */
    memset(&f, 0, sizeof f);
    f.threads[0] = (int)threads;
    f.n_threads = 1;
    rl_pred_roofs_from_bundle(b, &f);
    if (f.roof_threads != (int)threads || f.n_roof_types == 0) {
        add(p, tp, "the bundle has no calibration at %.0f threads to have made it", threads);
        return;
    }
    size_t i = 0;
    cJSON_ArrayForEach(t, types)
    {
        const char *name = rl_json_get_str(t, "type");
        const rl_roof_type *rt = roof_type_named(&f, name);
        bool cal = cJSON_IsTrue(rl_json_get(t, "calibrated"));
        if (cal != (rt != NULL))
            add(p, key_path(buf, tp, "types"), "%s is %scalibrated in the bundle",
                name ? name : "?", rt ? "" : "not ");
        const rl_roof_type *use = rt ? rt : roof_type_named(&f, big);
        double by = rl_json_num_or(t, "bytes", NAN), mats = rl_json_num_or(t, "matrices", -1);
        double rows = rl_json_num_or(t, "rows", -1);
        double want = use ? by * rl_roof_us_per_byte(use, sum_bytes, mats >= 0 ? mats / by : -1,
                                                     rows >= 0 ? rows / by : -1)
                          : NAN;
        if (use && !rel_close(rl_json_num_or(t, "us", NAN), want, 1e-9))
            add(p, key_path(buf, tp, "types"),
                "[%zu] (%s): us is not its bytes x the calibration's time per byte (%.17g)", i,
                name ? name : "?", want);
        i++;
    }
}

/* bundle.predictions (diagnose --predict, predict.h): its fit is the analysis's; each model's
 * rate is the fit's (source "fit") or its own (source "format", from the fitted models of its
 * label), recomputed from the analysis as predict does (rl_pred_rate_for), with
 * bw_low <= bw <= bw_high; every point's tok_s is the rate's bw / bytes_per_token
 * (bundles from before the rate: the fit's) with tok_s_low <= tok_s <= tok_s_high. */
static void check_predictions(const cJSON *b, probs *p)
{
    const cJSON *pr = rl_json_get(b, "predictions");
    if (!pr || unavailable(pr))
        return;
    const cJSON *fit = rl_json_get(pr, "fit"), *bw = rl_json_get(fit, "bw_GBs");
    const cJSON *abw = rl_json_get(rl_json_get(rl_json_get(b, "analysis"), "fit"), "bw_GBs");
    if (!cJSON_IsObject(pr) || !cJSON_IsArray(rl_json_get(pr, "models")) || !is_finite_num(bw)) {
        add(p, "predictions", "needs a fit with bw_GBs and a models array");
        return;
    }
    if (is_finite_num(abw) && !rel_close(bw->valuedouble, abw->valuedouble, REL_TOL))
        add(p, "predictions.fit.bw_GBs", "is not analysis.fit.bw_GBs (%.17g)", abw->valuedouble);
    rl_pred_fit pf; /* what predict would divide by, from the bundle's own analysis */
    rl_error pe = {RL_OK, ""};
    bool have_fit = rl_pred_fit_from_bundle(b, "bundle", &pf, &pe) == RL_OK;
    char mp[VPATH], pp[VPATH], buf[VPATH];
    size_t i = 0;
    for (const cJSON *m = rl_json_get(pr, "models")->child; m; m = m->next, i++) {
        idx_path(mp, "predictions.models", i);
        double rate = bw->valuedouble;
        const cJSON *r = rl_json_get(m, "rate");
        if (r) {
            const cJSON *src = rl_json_get(r, "source"), *rb = rl_json_get(r, "bw_GBs");
            const cJSON *rl = rl_json_get(r, "bw_low_GBs"), *rh = rl_json_get(r, "bw_high_GBs");
            bool fit_src = cJSON_IsString(src) && strcmp(src->valuestring, "fit") == 0;
            bool fmt_src = cJSON_IsString(src) && strcmp(src->valuestring, "format") == 0;
            if (!(fit_src || fmt_src) || !is_finite_num(rb) || !(rb->valuedouble > 0) ||
                !is_finite_num(rl) || !is_finite_num(rh)) {
                add(p, key_path(buf, mp, "rate"),
                    "needs source \"fit\" or \"format\", bw_GBs > 0, bw_low_GBs and bw_high_GBs");
                continue;
            }
            if (fit_src && !rel_close(rb->valuedouble, bw->valuedouble, REL_TOL))
                add(p, key_path(buf, mp, "rate.bw_GBs"),
                    "has source \"fit\" but is not predictions.fit.bw_GBs (%.17g)",
                    bw->valuedouble);
            if (!(rl->valuedouble <= rb->valuedouble * (1 + REL_TOL) &&
                  rb->valuedouble <= rh->valuedouble * (1 + REL_TOL)))
                add(p, key_path(buf, mp, "rate"), "bw_GBs is not within [bw_low_GBs, bw_high_GBs]");
            rl_pred_rate want;
            const cJSON *lab = rl_json_get(m, "label");
            if (have_fit) {
                rl_pred_rate_for(&pf, cJSON_IsString(lab) ? lab->valuestring : "", &want);
                if (strcmp(want.source, src->valuestring) != 0)
                    add(p, key_path(buf, mp, "rate.source"),
                        "is \"%s\", but the analysis's fitted models make it \"%s\"",
                        src->valuestring, want.source);
                else if (!rel_close(rb->valuedouble, want.bw / 1e9, REL_TOL))
                    add(p, key_path(buf, mp, "rate.bw_GBs"),
                        "is not the through-origin fit over the fitted models of its %s (%.17g)",
                        fmt_src ? "format" : "bundle", want.bw / 1e9);
            }
            rate = rb->valuedouble;
        }
        const cJSON *two = rl_json_get(m, "two_roof");
        if (cJSON_IsObject(two) && !unavailable(two))
            check_two_roof(b, two, mp, p);
        size_t k = 0;
        const cJSON *pts = rl_json_get(m, "points");
        for (const cJSON *pt = cJSON_IsArray(pts) ? pts->child : NULL; pt; pt = pt->next, k++) {
            if (unavailable(pt))
                continue;
            idx_path(pp, key_path(buf, mp, "points"), k);
            const cJSON *by = rl_json_get(pt, "bytes_per_token"), *t = rl_json_get(pt, "tok_s");
            const cJSON *lo = rl_json_get(pt, "tok_s_low"), *hi = rl_json_get(pt, "tok_s_high");
            if (!is_finite_num(by) || by->valuedouble <= 0 || !is_finite_num(t) ||
                !is_finite_num(lo) || !is_finite_num(hi)) {
                add(p, pp, "needs bytes_per_token > 0, tok_s, tok_s_low and tok_s_high");
                continue;
            }
            double want = rate * 1e9 / by->valuedouble;
            if (!rel_close(t->valuedouble, want, REL_TOL))
                add(p, key_path(buf, pp, "tok_s"),
                    "is not the rate's bw_GBs * 1e9 / bytes_per_token (%.17g)", want);
            if (!(lo->valuedouble <= t->valuedouble * (1 + REL_TOL) &&
                  t->valuedouble <= hi->valuedouble * (1 + REL_TOL)))
                add(p, pp, "tok_s is not within [tok_s_low, tok_s_high]");
        }
    }
}

/* ---- advice (advise --measure) ---- */

/* The measured advice: kind derived; each table's rows fastest first, each row's model an
 * existing model, its decode a valid rate whose stats.mean is tok_s, streamed_GBs = tok_s x
 * streamed_MiB x 2^20 / 1e9, vs_best_pct = 100 x (tok_s / fastest - 1), tied = within 5% of
 * the fastest; ranking and fastest name the rows in order. */
/* A predicted row (advice.basis "predicted"): its two_roof's tok_s is the row's, and both are
 * what the bundle's calibration gives the row's model at the table's threads. */
static void check_advice_two_roof(const cJSON *b, const cJSON *r, int threads, double tok,
                                  const char *rp, probs *p)
{
    char buf[VPATH];
    const cJSON *two = rl_json_get(r, "two_roof");
    double t2;
    if (!two || !rl_json_get_num(two, "tok_s", &t2)) {
        add(p, key_path(buf, rp, "two_roof"), "a predicted row without a two-roof tok_s");
        return;
    }
    if (!rel_close(t2, tok, REL_TOL))
        add(p, key_path(buf, rp, "tok_s"), "is not two_roof.tok_s (%.17g)", t2);
    static rl_pred_fit f; /* large */
    memset(&f, 0, sizeof f);
    f.threads[0] = threads;
    f.n_threads = 1;
    rl_pred_roofs_from_bundle(b, &f);
    const cJSON *m = rl_bundle_model(b, rl_json_get_str(r, "model_id"), NULL);
    rl_roof_result rr;
    rl_pred_roofs_for_json(&f, rl_json_get(m, "gguf"), &rr);
    if (!m || f.roof_threads != threads || !rr.ok)
        add(p, key_path(buf, rp, "two_roof"),
            "the bundle's calibration at %d threads gives this model no prediction", threads);
    else if (!rel_close(rr.tok_s, t2, REL_TOL))
        add(p, key_path(buf, rp, "two_roof.tok_s"),
            "is not what the calibration gives the model (%.17g)", rr.tok_s);
}

static void check_advice(const cJSON *b, const cJSON *adv, const idset *ids, probs *p)
{
    char tp[VPATH], rp[VPATH], buf[VPATH];
    if (!cJSON_IsObject(adv)) {
        add(p, "advice", "not an object");
        return;
    }
    const char *kind = rl_json_get_str(adv, "kind");
    if (!kind || strcmp(kind, "derived") != 0)
        add(p, "advice.kind", "not \"derived\"");
    const char *basis = rl_json_get_str(adv, "basis");
    bool pred = basis && strcmp(basis, "predicted") == 0;
    if (basis && !pred && strcmp(basis, "measured") != 0)
        add(p, "advice.basis", "neither \"measured\" nor \"predicted\"");
    const cJSON *tables = rl_json_get(adv, "tables");
    if (unavailable(tables))
        return;
    if (!cJSON_IsArray(tables)) {
        add(p, "advice.tables", "neither an array nor unavailable");
        return;
    }
    size_t ti = 0;
    for (const cJSON *t = tables->child; t; t = t->next, ti++) {
        idx_path(tp, "advice.tables", ti);
        if (!is_int(rl_json_get(t, "threads")) || rl_json_get(t, "threads")->valuedouble < 1)
            add(p, key_path(buf, tp, "threads"), "not a whole number >= 1");
        const cJSON *rows = rl_json_get(t, "rows"), *ranking = rl_json_get(t, "ranking");
        if (!cJSON_IsArray(rows) || !cJSON_GetArraySize(rows)) {
            add(p, key_path(buf, tp, "rows"), "not a non-empty array");
            continue;
        }
        double first = rl_json_num_or(rows->child, "tok_s", NAN), prev = INFINITY;
        size_t ri = 0;
        for (const cJSON *r = rows->child; r; r = r->next, ri++) {
            idx_path(rp, key_path(buf, tp, "rows"), ri);
            const char *id = rl_json_get_str(r, "model_id");
            if (!id || !has_id(ids, id))
                add(p, key_path(buf, rp, "model_id"), "names no model of this bundle");
            const cJSON *dec = rl_json_get(r, "decode");
            if (dec)
                check_rate(dec, key_path(buf, rp, "decode"), p);
            else if (!pred)
                add(p, key_path(buf, rp, "decode"), "required key missing");
            double tok, mean, mib, gbs, vs;
            if (!rl_json_get_num(r, "tok_s", &tok) || !(tok > 0)) {
                add(p, key_path(buf, rp, "tok_s"), "not a positive number");
                continue;
            }
            if (pred)
                check_advice_two_roof(b, r, (int)rl_json_num_or(t, "threads", 0), tok, rp, p);
            if (tok > prev)
                add(p, key_path(buf, rp, "tok_s"), "rows are not sorted fastest first");
            prev = tok;
            if (rl_json_get_num(rl_json_get(dec, "stats"), "mean", &mean) &&
                !rel_close(tok, mean, REL_TOL))
                add(p, key_path(buf, rp, "tok_s"), "is not decode.stats.mean (%.17g)", mean);
            if (rl_json_get_num(r, "streamed_MiB", &mib) &&
                (!rl_json_get_num(r, "streamed_GBs", &gbs) ||
                 !rel_close(gbs, tok * mib * 1048576.0 / 1e9, REL_TOL)))
                add(p, key_path(buf, rp, "streamed_GBs"),
                    "is not tok_s x streamed_MiB x 2^20 / 1e9 (%.17g)",
                    tok * mib * 1048576.0 / 1e9);
            if (!rl_json_get_num(r, "vs_best_pct", &vs) ||
                fabs(vs - 100.0 * (tok / first - 1.0)) > 1e-9 * (1 + fabs(vs)))
                add(p, key_path(buf, rp, "vs_best_pct"), "is not 100 x (tok_s / fastest - 1)");
            bool tied = tok >= 0.95 * first;
            if (!cJSON_IsBool(rl_json_get(r, "tied")) ||
                cJSON_IsTrue(rl_json_get(r, "tied")) != tied)
                add(p, key_path(buf, rp, "tied"), "is not (tok_s >= 0.95 x fastest)");
            const cJSON *rk = cJSON_GetArrayItem(ranking, (int)ri);
            const char *fmt = rl_json_get_str(r, "format");
            if (!fmt || !cJSON_IsString(rk) || strcmp(rk->valuestring, fmt) != 0)
                add(p, key_path(buf, tp, "ranking"), "does not list the rows' formats in order");
        }
        const char *fastest = rl_json_get_str(t, "fastest");
        const char *f0 = rl_json_get_str(rows->child, "format");
        if (!fastest || !f0 || strcmp(fastest, f0) != 0)
            add(p, key_path(buf, tp, "fastest"), "is not the first row's format");
    }
}

/* membw.bracket (validate.h): the probes and the drift rule recomputed from them. */
static void check_bracket(const cJSON *br, probs *p)
{
    const char *bp = "membw.bracket";
    char buf[VPATH];
    if (!br || unavailable(br))
        return;
    const char *kind = rl_json_get_str(br, "kind");
    if (!kind || strcmp(kind, "measured") != 0)
        add(p, key_path(buf, bp, "kind"), "is not \"measured\"");
    const cJSON *probes = rl_json_get(br, "probes");
    if (!cJSON_IsArray(probes) || !probes->child) {
        add(p, key_path(buf, bp, "probes"), "is not a non-empty array of probes");
        return;
    }
    double lo = INFINITY, hi = 0, first = NAN;
    size_t i = 0;
    static const char *const ats[] = {"before", "between", "after"};
    for (const cJSON *e = probes->child; e; e = e->next, i++) {
        char ep[VPATH];
        idx_path(ep, key_path(buf, bp, "probes"), i);
        const cJSON *g = rl_json_get(e, "GBs"), *t = rl_json_get(e, "t_s");
        const char *at = rl_json_get_str(e, "at");
        if (!at || !in_list(at, ats, 3))
            add(p, key_path(buf, ep, "at"), "is not before, between or after");
        if (!is_finite_num(t) || t->valuedouble < 0)
            add(p, key_path(buf, ep, "t_s"), "is not a time in seconds >= 0");
        if (!is_finite_num(g) || !(g->valuedouble > 0)) {
            add(p, key_path(buf, ep, "GBs"), "is not a bandwidth above 0");
            return;
        }
        first = i == 0 ? g->valuedouble : first;
        lo = fmin(lo, g->valuedouble);
        hi = fmax(hi, g->valuedouble);
    }
    double spread = i > 1 ? (hi - lo) / hi * 100.0 : 0, v, limit;
    bool drift;
    if (!rl_json_get_num(br, "before_GBs", &v) || v != first)
        add(p, key_path(buf, bp, "before_GBs"), "is not the first probe's GBs");
    if (!rl_json_get_num(br, "spread_pct", &v) ||
        !(rel_close(v, spread, REL_TOL) || fabs(v - spread) < 1e-9))
        add(p, key_path(buf, bp, "spread_pct"),
            "is not (highest - lowest) / highest x 100 of the probes (%.6g)", spread);
    if (!rl_json_get_num(br, "limit_pct", &limit) || !(limit > 0 && limit <= 100)) {
        add(p, key_path(buf, bp, "limit_pct"), "is not a percentage in (0, 100]");
        return;
    }
    if (!rl_json_get_bool(br, "drift", &drift) || drift != (spread > limit))
        add(p, key_path(buf, bp, "drift"), "does not say whether spread_pct is over limit_pct");
}

/* ---- the machine's state (measure/quiet.h, docs/BUNDLE.md "machine") ---- */

/* A share of the CPUs: a number in [0, 100], or null when unreadable. */
static void check_pct(const cJSON *o, const char *key, const char *path, probs *p)
{
    char buf[VPATH];
    const cJSON *v = rl_json_get(o, key);
    if (v && !cJSON_IsNull(v) && (!is_finite_num(v) || v->valuedouble < 0 || v->valuedouble > 100))
        add(p, key_path(buf, path, key), "not null or a percentage from 0 to 100");
}

/* A count: null or an integer >= min. */
static void check_count(const cJSON *o, const char *key, double min, const char *path, probs *p)
{
    char buf[VPATH];
    const cJSON *v = rl_json_get(o, key);
    if (v && !cJSON_IsNull(v) && (!is_int(v) || v->valuedouble < min))
        add(p, key_path(buf, path, key), "not null or an integer >= %.0f", min);
}

/* A client point's measured_server: pids (integers >= 1) with found_by, or no pid and the
 * reason; cpu_pct a percentage. */
static void check_server(const cJSON *s, const char *path, probs *p)
{
    char buf[VPATH];
    if (!cJSON_IsObject(s)) {
        add(p, path, "not an object");
        return;
    }
    const cJSON *pids = rl_json_get(s, "pids"), *e;
    if (!cJSON_IsArray(pids)) {
        add(p, key_path(buf, path, "pids"), "missing or not an array");
        return;
    }
    cJSON_ArrayForEach(e, pids)
    {
        if (!is_int(e) || e->valuedouble < 1) {
            add(p, key_path(buf, path, "pids"), "holds a value that is not a pid (integer >= 1)");
            break;
        }
    }
    const char *key = cJSON_GetArraySize(pids) > 0 ? "found_by" : "reason";
    const char *t = rl_json_get_str(s, key);
    if (!t || !*t)
        add(p, key_path(buf, path, key),
            cJSON_GetArraySize(pids) > 0 ? "counted pids need found_by: how they were found"
                                         : "no pid counted: the reason is missing");
    check_pct(s, "cpu_pct", path, p);
}

static void check_machine(const cJSON *m, const char *path, probs *p)
{
    char buf[VPATH];
    if (!cJSON_IsObject(m)) {
        add(p, path, "not an object");
        return;
    }
    const cJSON *iv = rl_json_get(m, "interval_s");
    if (!is_finite_num(iv) || iv->valuedouble < 0)
        add(p, key_path(buf, path, "interval_s"), "missing or not a number >= 0");
    static const char *const pcts[] = {"other_cpu_pct", "steal_pct", "psi_cpu_some_pct"};
    for (size_t i = 0; i < 3; i++)
        check_pct(m, pcts[i], path, p);
    check_count(m, "cpus", 1, path, p);
    check_count(m, "procs_running_max", 0, path, p);
    check_count(m, "throttle_events", 0, path, p);
    static const char *const freqs[] = {"freq_mhz_min", "freq_mhz_max"};
    for (size_t i = 0; i < 2; i++) {
        const cJSON *v = rl_json_get(m, freqs[i]);
        if (v && !cJSON_IsNull(v) && (!is_finite_num(v) || v->valuedouble <= 0))
            add(p, key_path(buf, path, freqs[i]), "not null or a frequency above 0 MHz");
    }
    bool d;
    if (!rl_json_get_bool(m, "disturbed", &d))
        add(p, key_path(buf, path, "disturbed"), "missing or not true/false");
    const char *why = rl_json_get_str(m, "why");
    if (!why)
        add(p, key_path(buf, path, "why"), "missing or not a string");
    else if (rl_json_get_bool(m, "disturbed", &d) && d != (why[0] != '\0'))
        add(p, key_path(buf, path, "why"),
            d ? "a disturbed measurement says nothing about why" : "a quiet measurement has a why");
    const cJSON *srv = rl_json_get(m, "measured_server");
    if (srv)
        check_server(srv, key_path(buf, path, "measured_server"), p);
}

/* The "machine" of every element of arr (path names arr) and of each one's "attempts". */
static void check_machines_of(const cJSON *arr, const char *path, probs *p)
{
    char ep[VPATH], mp[VPATH], ap[VPATH];
    size_t i = 0;
    for (const cJSON *e = cJSON_IsArray(arr) ? arr->child : NULL; e; e = e->next, i++) {
        idx_path(ep, path, i);
        const cJSON *m = rl_json_get(e, "machine");
        if (m)
            check_machine(m, key_path(mp, ep, "machine"), p);
        const cJSON *att = rl_json_get(e, "attempts");
        if (att && cJSON_IsArray(att))
            check_machines_of(att, key_path(ap, ep, "attempts"), p);
        else if (att)
            add(p, key_path(ap, ep, "attempts"), "not an array");
    }
}

static void check_machine_state(const cJSON *b, probs *p)
{
    char buf[VPATH], mb[VPATH];
    const cJSON *models = rl_json_get(b, "models");
    size_t i = 0;
    for (const cJSON *m = cJSON_IsArray(models) ? models->child : NULL; m; m = m->next, i++)
        check_machines_of(rl_json_get(m, "runs"), key_path(buf, idx_path(mb, "models", i), "runs"),
                          p);
    check_machines_of(rl_json_get(rl_json_get(b, "membw"), "runs"), "membw.runs", p);
    check_machines_of(rl_json_get(rl_json_get(b, "client"), "points"), "client.points", p);
    const cJSON *s = rl_json_get(rl_json_get(b, "environment"), "machine_state");
    if (!s || unavailable(s))
        return;
    const char *sp = "environment.machine_state";
    const cJSON *n = rl_json_get(s, "measurements"), *d = rl_json_get(s, "disturbed");
    if (!is_int(n) || n->valuedouble < 1)
        add(p, key_path(buf, sp, "measurements"), "missing or not an integer >= 1");
    if (!is_int(d) || d->valuedouble < 0 || (is_int(n) && d->valuedouble > n->valuedouble))
        add(p, key_path(buf, sp, "disturbed"),
            "missing or not an integer from 0 to the number of measurements");
    check_pct(s, "other_cpu_pct_max", sp, p);
    check_pct(s, "steal_pct_max", sp, p);
    const cJSON *l = rl_json_get(s, "limits");
    char lp[VPATH];
    key_path(lp, sp, "limits");
    if (!cJSON_IsObject(l))
        add(p, lp, "missing or not an object");
    for (int k = 0; k < 2 && cJSON_IsObject(l); k++) {
        const char *key = k ? "steal_pct" : "other_cpu_pct";
        if (!rl_json_get(l, key))
            add(p, key_path(buf, lp, key), "missing");
        check_pct(l, key, lp, p);
    }
}

/* ---- analysis.disturbance: recounted from the machine objects ---- */

static const char *const MEAS_KEYS[3] = {"llama_bench", "membw", "client"};

/* The measured "machine" objects of the array arr's elements (attempts not counted). */
static void count_machines(const cJSON *arr, size_t *n, size_t *d)
{
    const cJSON *e;
    if (!cJSON_IsArray(arr))
        return;
    cJSON_ArrayForEach(e, arr)
    {
        const cJSON *m = rl_json_get(e, "machine");
        const char *k = rl_json_get_str(m, "kind");
        bool dist = false;
        if (!k || strcmp(k, "measured") != 0)
            continue;
        (*n)++;
        *d += rl_json_get_bool(m, "disturbed", &dist) && dist;
    }
}

/* A count under key of o (path) equal to want. */
static void count_is(const cJSON *o, const char *key, size_t want, const char *path, probs *p)
{
    char buf[VPATH];
    const cJSON *v = rl_json_get(o, key);
    if (!is_int(v) || v->valuedouble != (double)want)
        add(p, key_path(buf, path, key),
            "is not the count of the measurements' machine states "
            "(%zu)",
            want);
}

/* analysis.disturbance against the machine objects beside the measurements (llama-bench runs,
 * membw runs, client points): n_measurements, n_disturbed, by_kind and disturbed recounted; no
 * machine state at all is unavailable; a client analysis is provisional exactly when
 * disturbed. Not for a bundle still running (its analysis, if any, is an earlier session's). */
static void check_disturbance(const cJSON *b, const cJSON *an, probs *p)
{
    const cJSON *d = rl_json_get(an, "disturbance");
    const char *state = rl_json_get_str(rl_json_get(b, "status"), "state");
    if (!d || (state && strcmp(state, "running") == 0))
        return; /* a bundle still being written may hold runs newer than its analysis */
    const char *dp = "analysis.disturbance";
    size_t n[3] = {0}, k[3] = {0};
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(b, "models"))
        count_machines(rl_json_get(m, "runs"), &n[0], &k[0]);
    count_machines(rl_json_get(rl_json_get(b, "membw"), "runs"), &n[1], &k[1]);
    count_machines(rl_json_get(rl_json_get(b, "client"), "points"), &n[2], &k[2]);
    size_t total = n[0] + n[1] + n[2], dist = k[0] + k[1] + k[2];
    bool disturbed = false, prov = false;
    char buf[VPATH], kp[VPATH];
    if (unavailable(d)) {
        if (total > 0)
            add(p, dp, "unavailable, but %zu measurements recorded their machine state", total);
    } else if (!cJSON_IsObject(d)) {
        add(p, dp, "not an object");
        return;
    } else {
        count_is(d, "n_measurements", total, dp, p);
        count_is(d, "n_disturbed", dist, dp, p);
        if (!rl_json_get_bool(d, "disturbed", &disturbed) || disturbed != (dist > 0))
            add(p, key_path(buf, dp, "disturbed"),
                "is not whether a measurement was disturbed "
                "(%zu of %zu)",
                dist, total);
        const cJSON *bk = rl_json_get(d, "by_kind");
        key_path(kp, dp, "by_kind");
        for (int i = 0; i < 3; i++) {
            const cJSON *e = rl_json_get(bk, MEAS_KEYS[i]);
            char ep[VPATH];
            key_path(ep, kp, MEAS_KEYS[i]);
            if (!e && n[i] > 0)
                add(p, ep, "missing: %zu measurements of this kind recorded their state", n[i]);
            if (!e)
                continue;
            count_is(e, "n", n[i], ep, p);
            count_is(e, "disturbed", k[i], ep, p);
        }
    }
    const char *scope = rl_json_get_str(an, "scope");
    if (scope && strcmp(scope, "client") == 0 &&
        (!rl_json_get_bool(an, "provisional", &prov) || prov != (dist > 0)))
        add(p, "analysis.provisional",
            "is not whether an operating point was disturbed (%zu of "
            "%zu)",
            dist, total);
}

/* ---- a standalone membw result (membw --json, -o) ---- */

/* One membw run: kernel, threads, its samples (positive, finite), its machine. */
static void check_membw_run(const cJSON *r, const char *rp, probs *p)
{
    char buf[VPATH];
    const char *k = rl_json_get_str(r, "kernel");
    if (!k || !*k)
        add(p, key_path(buf, rp, "kernel"), "missing or not a kernel name");
    const cJSON *t = rl_json_get(r, "threads");
    if (!is_int(t) || t->valuedouble < 1)
        add(p, key_path(buf, rp, "threads"), "missing or not a whole number >= 1");
    const cJSON *sm = rl_json_get(r, "samples_GBs"), *v;
    if (!cJSON_IsArray(sm) || cJSON_GetArraySize(sm) < 1)
        add(p, key_path(buf, rp, "samples_GBs"), "missing or empty: a run keeps its samples");
    size_t i = 0;
    const cJSON *samples = cJSON_IsArray(sm) ? sm : NULL;
    cJSON_ArrayForEach(v, samples)
    {
        char ip[VPATH];
        if (!is_finite_num(v) || v->valuedouble <= 0)
            add(p, idx_path(ip, key_path(buf, rp, "samples_GBs"), i), "not a rate above 0 GB/s");
        i++;
    }
    const cJSON *m = rl_json_get(r, "machine");
    if (m)
        check_machine(m, key_path(buf, rp, "machine"), p);
}

rl_status rl_validate_membw(const cJSON *m, rl_validate_problems *out)
{
    if (!cJSON_IsObject(m)) {
        add(out, "", "the membw result is not a JSON object");
        return out->oom ? RL_EINTERNAL : RL_OK;
    }
    const char *kind = rl_json_get_str(m, "kind");
    bool measured = kind && strcmp(kind, "measured") == 0;
    if (!measured && !(kind && strcmp(kind, "controlled") == 0))
        add(out, "kind", "missing or not \"measured\" or \"controlled\"");
    const cJSON *peak = rl_json_get(m, "peak_read_GBs");
    if (!is_finite_num(peak) || peak->valuedouble <= 0)
        add(out, "peak_read_GBs", "missing or not a rate above 0 GB/s");
    bool b;
    if (measured && !rl_json_get_bool(m, "complete", &b))
        add(out, "complete", "missing or not true/false");
    const cJSON *runs = rl_json_get(m, "runs"), *r;
    if (!cJSON_IsArray(runs))
        add(out, "runs", "missing or not an array");
    size_t i = 0, n = 0, d = 0;
    const cJSON *arr = cJSON_IsArray(runs) ? runs : NULL;
    cJSON_ArrayForEach(r, arr)
    {
        char rp[VPATH];
        check_membw_run(r, idx_path(rp, "runs", i++), out);
    }
    if (measured && cJSON_IsArray(runs) && cJSON_GetArraySize(runs) == 0)
        add(out, "runs", "a measured ceiling without a run");
    count_machines(runs, &n, &d);
    const cJSON *s = rl_json_get(rl_json_get(m, "env"), "machine_state");
    if (n > 0 && (!s || unavailable(s)))
        add(out, "env.machine_state", "missing, but %zu runs recorded their machine state", n);
    else if (s && !unavailable(s)) {
        count_is(s, "measurements", n, "env.machine_state", out);
        count_is(s, "disturbed", d, "env.machine_state", out);
    }
    return out->oom ? RL_EINTERNAL : RL_OK;
}

/* ---- calibration (bundle/calib.h) ---- */

/* got[key][name] against the re-derivation want[key][name]: both there and equal, or both
 * unavailable. */
static void check_cal_value(const cJSON *got, const cJSON *want, const char *key, const char *name,
                            const char *path, probs *p)
{
    char buf[VPATH], vp[VPATH];
    const cJSON *g = rl_json_get(got, key), *w = rl_json_get(want, key);
    double gv, wv;
    bool has_g = rl_json_get_num(g, name, &gv), has_w = rl_json_get_num(w, name, &wv);
    key_path(buf, path, key);
    if (!g)
        add(p, buf, "missing");
    else if (has_w && !has_g)
        add(p, key_path(vp, buf, name), "missing: its points give %.6g", wv);
    else if (!has_w && has_g)
        add(p, key_path(vp, buf, name), "%.6g, but its points give none (%.160s)", gv,
            rl_json_get_str(w, "reason") ? rl_json_get_str(w, "reason") : "");
    else if (has_w && !rel_close(gv, wv, REL_TOL))
        add(p, key_path(vp, buf, name), "%.10g is not what its points give (%.10g)", gv, wv);
}

/* One calibration run: a run, at the set's thread count, with its pass when it has one. */
static void check_cal_run(const cJSON *run, const char *rp, double threads, probs *p)
{
    char buf[VPATH];
    check_run(run, rp, p);
    if (rl_json_get(run, "machine"))
        check_machine(rl_json_get(run, "machine"), key_path(buf, rp, "machine"), p);
    if (rl_json_num_or(run, "threads", threads) != threads)
        add(p, key_path(buf, rp, "threads"), "not the set's thread count (%.0f)", threads);
    const cJSON *pass = rl_json_get(run, "pass");
    if (pass && (!is_int(pass) || pass->valuedouble < 1 || pass->valuedouble > 1000))
        add(p, key_path(buf, rp, "pass"), "not an integer from 1 to 1000");
}

/* A point's run and other_runs (bundle/calib.h "passes"): each a run, and the one used the
 * faster: no other run has a higher decode rate. */
static void check_cal_runs(const cJSON *pt, const char *pp, double threads, probs *p)
{
    char buf[VPATH], rp[VPATH];
    const cJSON *run = rl_json_get(pt, "run"), *others = rl_json_get(pt, "other_runs"), *o;
    check_cal_run(run, key_path(rp, pp, "run"), threads, p);
    if (!others)
        return;
    if (!cJSON_IsArray(others)) {
        add(p, key_path(buf, pp, "other_runs"), "not an array");
        return;
    }
    double used = 0, v = 0;
    rl_cal_run_rate(run, &used);
    size_t k = 0;
    for (o = others->child; o; o = o->next, k++) {
        idx_path(rp, key_path(buf, pp, "other_runs"), k);
        check_cal_run(o, rp, threads, p);
        if (rl_cal_run_faster(o, run) && rl_cal_run_rate(o, &v))
            add(p, key_path(buf, pp, "run"),
                "not the faster run: other_runs[%zu] has %.6g tok/s against its %.6g (the "
                "faster is used)",
                k, v, used);
    }
}

/* One type of a set: its points (each run checked as a run, at the set's thread count), and
 * every derived value recomputed from them. */
static void check_cal_type(const cJSON *t, const char *path, double threads, probs *p)
{
    char buf[VPATH], pp[VPATH];
    const char *name = rl_json_get_str(t, "type"), *src = rl_json_get_str(t, "source");
    if (!name || !rl_cal_type_measurable(rl_cal_type_by_name(name)))
        add(p, key_path(buf, path, "type"), "missing or not a type the calibration measures");
    if (!src || (strcmp(src, "measured") != 0 && strcmp(src, "cache") != 0))
        add(p, key_path(buf, path, "source"), "missing or not measured or cache");
    const cJSON *pts = rl_json_get(t, "points"), *pt;
    if (!cJSON_IsArray(pts)) {
        add(p, key_path(buf, path, "points"), "missing or not an array");
        return;
    }
    bool seen[RL_CAL_N_ROLES] = {false};
    size_t i = 0;
    for (pt = pts->child; pt; pt = pt->next, i++) {
        idx_path(pp, key_path(buf, path, "points"), i);
        int role = rl_cal_role_by_name(rl_json_get_str(pt, "role"));
        if (role < 0 || seen[role])
            add(p, key_path(buf, pp, "role"),
                "missing, unknown or repeated (small, mid, deep, stream, wide)");
        else
            seen[role] = true;
        const cJSON *bv = rl_json_get(rl_json_get(pt, "bytes_per_token"), "value");
        if (!is_int(bv) || bv->valuedouble < 1)
            add(p, key_path(buf, pp, "bytes_per_token.value"), "missing or not an integer >= 1");
        check_cal_runs(pt, pp, threads, p);
    }
    cJSON *copy = cJSON_Duplicate(t, 1);
    if (!copy || !rl_cal_type_finish(copy)) {
        p->oom = true;
        cJSON_Delete(copy);
        return;
    }
    static const char *const vals[][2] = {{"compute_roof", "GBs"},
                                          {"fixed", "us"},
                                          {"per_layer", "us"},
                                          {"base", "us"},
                                          {"stream", "GBs"}};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
        check_cal_value(t, copy, vals[k][0], vals[k][1], path, p);
    /* per_matrix came with the wide model: a calibration written before it has neither */
    if (seen[RL_CAL_WIDE] || rl_json_get(t, "per_matrix")) {
        check_cal_value(t, copy, "per_matrix", "us", path, p);
        check_cal_value(t, copy, "per_matrix", "stream_limit_GBs", path, p);
    }
    /* per_row came later still: checked where it is written */
    if (rl_json_get(t, "per_row")) {
        check_cal_value(t, copy, "per_row", "ns", path, p);
        check_cal_value(t, copy, "per_row", "stream_limit_GBs", path, p);
    }
    const cJSON *cp = rl_json_get(copy, "points")->child;
    i = 0;
    for (pt = pts->child; pt && cp; pt = pt->next, cp = cp->next, i++) {
        idx_path(pp, key_path(buf, path, "points"), i);
        check_cal_value(pt, cp, "rate", "us_per_token", pp, p);
        check_cal_value(pt, cp, "rate", "GBs", pp, p);
    }
    cJSON_Delete(copy);
}

/* The cache probe (measure/cache_probe.h): its rule repeated on its own points gives its
 * used size, and a "probed" plan is sized from that. */
static void check_cache_probe(const cJSON *method, probs *p)
{
    const cJSON *cp = rl_json_get(method, "cache_probe");
    if (!cp)
        return;
    rl_cache_probe pr;
    memset(&pr, 0, sizeof pr);
    int64_t v = 0;
    if (!rl_json_get_i64(cp, "reported_llc_bytes", &v) || v < 1) {
        add(p, "calibration.method.cache_probe.reported_llc_bytes", "missing or not >= 1");
        return;
    }
    pr.reported = (uint64_t)v;
    const cJSON *pts = rl_json_get(cp, "points"), *e;
    cJSON_ArrayForEach(e, pts)
    {
        double g = 0;
        if (pr.n >= RL_CACHE_PROBE_MAX || !rl_json_get_i64(e, "bytes", &v) || v < 1 ||
            !rl_json_get_num(e, "GBs", &g) || !(g > 0) ||
            (pr.n && (uint64_t)v <= pr.bytes[pr.n - 1])) {
            add(p, "calibration.method.cache_probe.points",
                "more than 8, or a point without increasing bytes and GBs > 0");
            return;
        }
        pr.bytes[pr.n] = (uint64_t)v;
        pr.gbs[pr.n++] = g;
    }
    rl_cache_probe_judge(&pr);
    if (!rl_json_get_i64(cp, "used_llc_bytes", &v) || (uint64_t)v != pr.used ||
        cJSON_IsTrue(rl_json_get(cp, "lowered")) != pr.lowered)
        add(p, "calibration.method.cache_probe.used_llc_bytes",
            "not what the probe's rule gives its points (%llu)", (unsigned long long)pr.used);
    const char *src = rl_json_get_str(method, "llc_source");
    bool probed = src && strcmp(src, "probed") == 0;
    if (probed != pr.lowered ||
        (rl_json_get_i64(method, "llc_bytes", &v) && (uint64_t)v != pr.used))
        add(p, "calibration.method.llc_bytes",
            "not the probe's size %llu with llc_source \"probed\" exactly when it lowered it",
            (unsigned long long)pr.used);
}

static void check_calibration(const cJSON *cal, probs *p)
{
    char buf[VPATH], sp[VPATH], tp[VPATH];
    if (unavailable(cal))
        return;
    const char *kind = rl_json_get_str(cal, "kind");
    if (!kind || strcmp(kind, "derived") != 0)
        add(p, "calibration.kind", "missing or not derived");
    check_cache_probe(rl_json_get(cal, "method"), p);
    const cJSON *key = rl_json_get(cal, "key");
    static const char *const kf[] = {"cpu", "cpu_flags_fnv1a64", "llama_cpp_build", "id"};
    for (size_t k = 0; k < 4; k++)
        if (!rl_json_get_str(key, kf[k]))
            add(p, key_path(buf, "calibration.key", kf[k]), "missing or not a string");
    const cJSON *nc = rl_json_get(cal, "not_calibrated"), *e;
    size_t i = 0;
    cJSON_ArrayForEach(e, nc)
    {
        idx_path(sp, "calibration.not_calibrated", i++);
        if (!rl_cal_type_by_name(rl_json_get_str(e, "type")))
            add(p, key_path(buf, sp, "type"), "missing or not a ggml type");
        const char *why = rl_json_get_str(e, "reason");
        if (!why || !*why)
            add(p, key_path(buf, sp, "reason"), "missing or empty");
    }
    const cJSON *sets = rl_json_get(cal, "sets");
    if (!cJSON_IsArray(sets)) {
        add(p, "calibration.sets", "missing or not an array");
        return;
    }
    i = 0;
    double last = 0;
    for (const cJSON *set = sets->child; set; set = set->next, i++) {
        idx_path(sp, "calibration.sets", i);
        const cJSON *th = rl_json_get(set, "threads");
        if (!is_int(th) || th->valuedouble < 1 || th->valuedouble <= last)
            add(p, key_path(buf, sp, "threads"), "missing, not an integer >= 1, or not ascending");
        last = is_finite_num(th) ? th->valuedouble : last;
        const cJSON *types = rl_json_get(set, "types");
        size_t j = 0;
        for (const cJSON *t = cJSON_IsArray(types) ? types->child : NULL; t; t = t->next, j++) {
            idx_path(tp, key_path(buf, sp, "types"), j);
            check_cal_type(t, tp, is_finite_num(th) ? th->valuedouble : 0, p);
            for (const cJSON *u = types->child; u != t; u = u->next) {
                const char *a = rl_json_get_str(t, "type"), *b = rl_json_get_str(u, "type");
                if (a && b && strcmp(a, b) == 0)
                    add(p, key_path(buf, tp, "type"), "%s is in the set twice", a);
            }
        }
        if (!cJSON_IsArray(types))
            add(p, key_path(buf, sp, "types"), "missing or not an array");
    }
}

rl_status rl_validate(const cJSON *b, rl_validate_problems *out)
{
    if (!cJSON_IsObject(b)) {
        add(out, "", "the bundle is not a JSON object");
        return out->oom ? RL_EINTERNAL : RL_OK;
    }
    check_top(b, out);
    check_kinds(b, out);
    const cJSON *models = rl_json_get(b, "models");
    size_t nm = cJSON_IsArray(models) ? (size_t)cJSON_GetArraySize(models) : 0;
    idset ids = {rl_calloc(nm ? nm : 1, sizeof(const char *)), 0};
    if (!ids.ids)
        return RL_EINTERNAL;
    if (cJSON_IsArray(models))
        check_models(models, &ids, out);
    const cJSON *an = rl_json_get(b, "analysis");
    if (cJSON_IsObject(an)) {
        check_analysis(an, &ids, out);
        check_disturbance(b, an, out);
    }
    check_warnings(rl_json_get(b, "warnings"), "warnings", &ids, out);
    check_warnings(rl_json_get(b, "run_warnings"), "run_warnings", &ids, out);
    if (rl_json_get(b, "client"))
        check_client(rl_json_get(b, "client"), out);
    if (rl_json_get(b, "advice"))
        check_advice(b, rl_json_get(b, "advice"), &ids, out);
    check_predictions(b, out);
    if (rl_json_get(b, "calibration"))
        check_calibration(rl_json_get(b, "calibration"), out);
    check_bracket(rl_json_get(rl_json_get(b, "membw"), "bracket"), out);
    check_machine_state(b, out);
    free(ids.ids);
    return out->oom ? RL_EINTERNAL : RL_OK;
}
