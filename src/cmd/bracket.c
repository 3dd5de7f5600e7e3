/* SPDX-License-Identifier: MIT */
/* bracket.c: short membw probes around the sweep and the drift rule. See bracket.h. */
#include "cmd/bracket.h"

#include <math.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "bundle/bundle.h"
#include "measure/membw.h"

bool rl_bracket_drift(const double *gbs, int n, double limit_pct, double *spread_pct, char *text,
                      size_t cap)
{
    *spread_pct = 0;
    if (cap)
        text[0] = '\0';
    if (n < 2)
        return false;
    int lo = 0, hi = 0;
    for (int i = 1; i < n; i++) {
        if (gbs[i] < gbs[lo])
            lo = i;
        if (gbs[i] > gbs[hi])
            hi = i;
    }
    if (!(gbs[hi] > 0))
        return false;
    *spread_pct = (gbs[hi] - gbs[lo]) / gbs[hi] * 100.0;
    if (!(*spread_pct > limit_pct))
        return false;
    int first = lo < hi ? lo : hi, last = lo < hi ? hi : lo;
    rl_snprintf(text, cap,
                "the memory ceiling moved from %.1f to %.1f GB/s during the run (%.0f%%, over "
                "the %.0f%% limit): something else was using the memory bandwidth for part of "
                "it; the utilisation figures use the ceiling measured before the sweep. Re-run "
                "on a quiet machine, or give --peak-bw",
                gbs[first], gbs[last], *spread_pct, limit_pct);
    return true;
}

static cJSON *bracket_of(cJSON *membw, bool *oom)
{
    cJSON *br = cJSON_GetObjectItemCaseSensitive(membw, "bracket");
    if (br && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(br, "probes")))
        return br;
    cJSON_DeleteItemFromObjectCaseSensitive(membw, "bracket");
    br = cJSON_CreateObject();
    bool ok = br && rl_json_add_str(br, "kind", "measured");
    ok &= br && cJSON_AddArrayToObject(br, "probes") != NULL;
    if (!ok) {
        cJSON_Delete(br);
        br = NULL;
    }
    if (!rl_json_attach(membw, "bracket", br)) { /* frees br */
        *oom = true;
        return NULL;
    }
    return br;
}

rl_status rl_bracket_probe(cJSON *membw, const char *at, double t_s, const rl_sysinfo *si,
                           rl_error *err)
{
    rl_membw_opts mo = {0};
    mo.isa = -1;
    rl_isa isa;
    const char *isa_name = rl_json_get_str(membw, "isa");
    if (isa_name && rl_isa_parse(isa_name, &isa))
        mo.isa = (int)isa; /* the ISA that set the ceiling: no trial */
    int64_t t = 0;
    if (rl_json_get_i64(membw, "threads", &t) && t >= 1 && t <= 4096) {
        mo.threads[0] = (int)t;
        mo.n_threads = 1;
    }
    mo.quick = true;
    mo.reps = RL_MEMBW_QUICK_REPS;
    rl_membw_result res;
    rl_status st = rl_membw_measure(&mo, si, &res, err);
    bool oom = false;
    if (st == RL_OK && res.complete && res.peak_GBs > 0) {
        cJSON *br = bracket_of(membw, &oom);
        cJSON *p = br ? cJSON_CreateObject() : NULL;
        char utc[32];
        rl_bundle_utc_now(utc, sizeof utc);
        bool ok = p && rl_json_add_str(p, "at", at);
        ok &= p && rl_json_add_num(p, "t_s", t_s);
        ok &= p && rl_json_add_str(p, "utc", utc);
        ok &= p && rl_json_add_num(p, "GBs", res.peak_GBs);
        ok &= p && rl_json_add_num(p, "threads", res.threads);
        if (!ok) {
            cJSON_Delete(p);
            p = NULL;
        }
        oom |= !rl_json_push(cJSON_GetObjectItemCaseSensitive(br, "probes"), p);
    }
    rl_membw_result_free(&res);
    if (st == RL_OK && oom)
        st = rl_fail(err, RL_EINTERNAL, "out of memory recording a ceiling probe");
    return st;
}

/* Put item under key, replacing what is there; false when item is NULL or out of memory. */
static bool put(cJSON *o, const char *key, cJSON *item)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, key);
    return rl_json_attach(o, key, item);
}

bool rl_bracket_summarize(cJSON *membw, double limit_pct, char *text, size_t cap)
{
    if (cap)
        text[0] = '\0';
    cJSON *br = cJSON_GetObjectItemCaseSensitive(membw, "bracket");
    cJSON *probes = cJSON_GetObjectItemCaseSensitive(br, "probes");
    int n = cJSON_GetArraySize(probes);
    if (!cJSON_IsArray(probes) || n == 0)
        return true;
    double gbs[256] = {0};
    int k = 0;
    const cJSON *p, *last = NULL;
    cJSON_ArrayForEach(p, probes)
    {
        if (k < 256) {
            gbs[k++] = rl_json_num_or(p, "GBs", 0);
            last = p;
        }
    }
    const char *last_at = rl_json_get_str(last, "at");
    bool has_after = k > 1 && last_at && strcmp(last_at, "after") == 0;
    double spread;
    bool drift = rl_bracket_drift(gbs, k, limit_pct, &spread, text, cap);
    cJSON *between = cJSON_CreateArray();
    for (int i = 1; between && i < k - (has_after ? 1 : 0); i++)
        if (!rl_json_push(between, cJSON_CreateNumber(gbs[i]))) {
            cJSON_Delete(between);
            between = NULL;
        }
    bool ok = put(br, "before_GBs", cJSON_CreateNumber(gbs[0]));
    ok &= put(br, "after_GBs", has_after ? cJSON_CreateNumber(gbs[k - 1]) : cJSON_CreateNull());
    ok &= put(br, "between_GBs", between);
    ok &= put(br, "spread_pct", cJSON_CreateNumber(spread));
    ok &= put(br, "drift", cJSON_CreateBool(drift));
    ok &= put(br, "limit_pct", cJSON_CreateNumber(limit_pct));
    ok &= put(br, "ceiling_used", cJSON_CreateString("peak"));
    double peak = rl_json_num_or(membw, "peak_read_GBs", NAN);
    ok &= put(br, "ceiling_GBs", isfinite(peak) ? cJSON_CreateNumber(peak) : cJSON_CreateNull());
    return ok;
}

bool rl_bracket_start(cJSON *membw, bool no_bracket, bool *oom)
{
    *oom = false;
    const char *kind = rl_json_get_str(membw, "kind");
    if (!kind)
        return false; /* no ceiling (--skip-membw): its reason says there are no probes */
    const char *why = NULL;
    if (strcmp(kind, "measured") != 0)
        why = "the ceiling was given with --peak-bw: nothing measured, so no probes";
    else if (no_bracket)
        why = "not measured: --no-bracket";
    if (!why)
        return true;
    *oom = !put(membw, "bracket", rl_json_unavailable(why));
    return false;
}
