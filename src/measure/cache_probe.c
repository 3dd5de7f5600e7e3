/* SPDX-License-Identifier: MIT */
/* cache_probe.c: the read rate at working sets around the reported LLC, and the rule that
 * sizes the calibration plan from it. See cache_probe.h for the rule and ownership. */
#include "measure/cache_probe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "measure/membw.h"

#define PAGE (2ULL * 1024ULL * 1024ULL)

int rl_cache_probe_sizes(uint64_t reported, uint64_t *bytes)
{
    int n = 0;
    for (int shift = 5; shift >= 1 && n < RL_CACHE_PROBE_MAX - 1; shift--) {
        uint64_t b = reported >> shift;
        b = b < PAGE ? PAGE : b / PAGE * PAGE;
        if (n == 0 || b > bytes[n - 1])
            bytes[n++] = b;
    }
    uint64_t ref = reported * RL_CACHE_PROBE_REF_FACTOR;
    bytes[n++] = ref < PAGE ? PAGE : ref / PAGE * PAGE;
    return n;
}

void rl_cache_probe_judge(rl_cache_probe *p)
{
    p->used = p->reported;
    p->lowered = false;
    char a[32], b[32];
    rl_fmt_mib(a, sizeof a, p->reported);
    if (p->n < 2 || !(p->gbs[p->n - 1] > 0)) {
        rl_snprintf(p->why, sizeof p->why, "no DRAM reference was measured: the reported %s kept",
                    a);
        return;
    }
    double ref = p->gbs[p->n - 1], floor = RL_CACHE_PROBE_GAIN * ref;
    int mid = p->n - 2; /* the largest probed set: LLC/2 */
    if (p->gbs[mid] >= floor) {
        rl_fmt_mib(b, sizeof b, p->bytes[mid]);
        rl_snprintf(p->why, sizeof p->why,
                    "%s read at %.1f GB/s, at least %.1f x the %.1f GB/s from DRAM: the "
                    "reported %s holds it",
                    b, p->gbs[mid], RL_CACHE_PROBE_GAIN, ref, a);
        return;
    }
    int best = -1;
    for (int i = mid; i >= 0 && best < 0; i--)
        if (p->gbs[i] >= floor)
            best = i;
    if (best < 0) {
        rl_snprintf(p->why, sizeof p->why,
                    "no probed set read %.1f x faster than DRAM (%.1f GB/s): the reported %s "
                    "kept",
                    RL_CACHE_PROBE_GAIN, ref, a);
        return;
    }
    p->used = 2 * p->bytes[best];
    p->lowered = p->used < p->reported;
    if (!p->lowered) /* 2 MiB sets of a tiny cache: 2 x a rounded-up set is not less */
        p->used = p->reported;
    rl_fmt_mib(b, sizeof b, p->bytes[best]);
    char c[32];
    rl_fmt_mib(c, sizeof c, p->used);
    rl_snprintf(p->why, sizeof p->why,
                "the reported %s does not hold half of itself (%.1f GB/s, DRAM %.1f); %s is "
                "the largest set read from the cache (%.1f GB/s): planned for %s",
                a, p->gbs[mid], ref, b, p->gbs[best], c);
}

void rl_cache_probe_apply(const rl_cache_probe *p, uint64_t *llc, const char **source)
{
    if (!p->lowered)
        return;
    *llc = p->used;
    *source = "probed";
}

rl_status rl_cache_probe_run(uint64_t reported, int threads, const rl_sysinfo *si,
                             rl_cache_probe *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    p->reported = reported;
    p->threads = threads;
    uint64_t sizes[RL_CACHE_PROBE_MAX];
    int n = rl_cache_probe_sizes(reported, sizes);
    for (int i = 0; i < n; i++) {
        rl_membw_opts mo = {0};
        mo.isa = -1;
        mo.threads[0] = threads;
        mo.n_threads = 1;
        mo.quick = true;
        mo.reps = RL_MEMBW_QUICK_REPS;
        mo.working_set_bytes = sizes[i];
        mo.floor_bytes = sizes[i]; /* a smaller set would be another point */
        char m[32];
        rl_fmt_mib(m, sizeof m, sizes[i]);
        rl_progress("cache probe: reading %s at %d thread%s (%d of %d)", m, threads,
                    threads == 1 ? "" : "s", i + 1, n);
        rl_membw_result res;
        rl_error e = {0};
        rl_status st = rl_membw_measure(&mo, si, &res, &e);
        bool got =
            st == RL_OK && res.complete && res.peak_GBs > 0 && res.working_set_bytes == sizes[i];
        double gbs = round(res.peak_GBs * 1000.0) / 1000.0; /* as stored: the rule's input */
        rl_membw_result_free(&res);
        if (st == RL_EINTERRUPTED || rl_interrupted)
            return rl_fail(err, RL_EINTERRUPTED, "interrupted probing the cache");
        if (!got) { /* a set not read as asked ends the probe: no rule without the reference */
            p->n = 0;
            rl_cache_probe_judge(p);
            rl_snprintf(p->why, sizeof p->why,
                        "the probe could not read %s (%s): the reported "
                        "size kept",
                        m, st != RL_OK ? e.msg : "another size was mapped");
            return RL_OK;
        }
        p->bytes[p->n] = sizes[i];
        p->gbs[p->n++] = gbs;
    }
    rl_cache_probe_judge(p);
    return RL_OK;
}

cJSON *rl_cache_probe_json(const rl_cache_probe *p)
{
    cJSON *o = cJSON_CreateObject(), *pts = NULL;
    bool ok = o && rl_json_add_str(o, "kind", "measured");
    ok = ok && rl_json_add_num(o, "threads", p->threads);
    ok = ok && rl_json_add_u64(o, "reported_llc_bytes", p->reported);
    ok = ok && rl_json_add_num(o, "gain", RL_CACHE_PROBE_GAIN);
    ok = ok && (pts = cJSON_AddArrayToObject(o, "points")) != NULL;
    for (int i = 0; ok && i < p->n; i++) {
        cJSON *e = cJSON_CreateObject();
        bool k =
            e && rl_json_add_u64(e, "bytes", p->bytes[i]) && rl_json_add_num(e, "GBs", p->gbs[i]);
        ok = rl_json_push(pts, rl_json_kept(e, k));
    }
    ok = ok && rl_json_add_u64(o, "used_llc_bytes", p->used);
    ok = ok && rl_json_add_bool(o, "lowered", p->lowered);
    ok = ok && rl_json_add_str(o, "why", p->why);
    return rl_json_kept(o, ok);
}
