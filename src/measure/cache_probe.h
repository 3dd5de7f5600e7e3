/* SPDX-License-Identifier: MIT */
/* cache_probe.h: how much of the last-level cache this machine really gets (owner: cache_probe;
 * used by the calibration plan, cmd/calib_run.c).
 *
 * The calibration sizes its cache-resident models from the LLC the kernel reports (mid = LLC/2
 * must stay in the cache). A VM can report its host's whole L3 (a 2-vCPU Xeon VM said 260 MiB)
 * while it gets a small share of it: its "cache-resident" models then stream from DRAM and
 * the compute roof comes out wrong. rl_cache_probe_run reads working sets of LLC/32 to LLC/2
 * and one of 8 x LLC (past any cache: the DRAM reference) with membw's read kernels at one
 * thread count (best read-only GB/s of a quick membw measurement each), and
 * rl_cache_probe_judge decides, by a rule validate can repeat:
 *   kept     the rate at LLC/2 is at least RL_CACHE_PROBE_GAIN x the DRAM reference: the
 *            reported cache holds mid, so the plan stays as reported;
 *   lowered  else the cache size becomes 2 x the largest probed set that still reads at least
 *            GAIN x the reference (so mid is that set; sets are at least 2 MiB, so 4 MiB
 *            at least);
 *   kept     (with that said) when no probed set reaches GAIN x: nothing measured is a cache.
 *
 * Ownership: everything is the caller's memory; rl_cache_probe_json returns a new object. */
#ifndef RL_CACHE_PROBE_H
#define RL_CACHE_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"
#include "measure/sysinfo.h"

#define RL_CACHE_PROBE_MAX 8
#define RL_CACHE_PROBE_GAIN 1.2     /* a cache reads at least 20% faster */
#define RL_CACHE_PROBE_REF_FACTOR 8 /* the DRAM reference: 8 x the LLC */

typedef struct {
    int threads;
    uint64_t reported;                  /* the LLC the plan would use */
    uint64_t bytes[RL_CACHE_PROBE_MAX]; /* increasing; the last is the DRAM reference */
    double gbs[RL_CACHE_PROBE_MAX];     /* best read-only GB/s at each */
    int n;
    uint64_t used; /* what the plan uses (rl_cache_probe_judge) */
    bool lowered;
    char why[200];
} rl_cache_probe;

/* The working sets to read for a reported LLC: LLC/32 .. LLC/2 by doubling, each rounded down
 * to 2 MiB and at least 2 MiB, repeats dropped, then RL_CACHE_PROBE_REF_FACTOR x LLC. Returns
 * the count (at most RL_CACHE_PROBE_MAX). */
int rl_cache_probe_sizes(uint64_t reported, uint64_t *bytes);

/* The rule above on p->bytes, p->gbs, p->n and p->reported: sets used, lowered and why. */
void rl_cache_probe_judge(rl_cache_probe *p);

/* The plan's cache size and its source after the probe: p->used and "probed" when it lowered
 * the size, else both left as they are. */
void rl_cache_probe_apply(const rl_cache_probe *p, uint64_t *llc, const char **source);

/* Measure (rl_membw_measure, quick, at threads) and judge. RL_EINTERRUPTED, RL_EINTERNAL
 * (no memory for the reference set). */
rl_status rl_cache_probe_run(uint64_t reported, int threads, const rl_sysinfo *si,
                             rl_cache_probe *p, rl_error *err);

/* {"kind": "measured", "threads", "reported_llc_bytes", "points": [{"bytes", "GBs"}], "gain",
 * "used_llc_bytes", "lowered", "why"}; NULL when out of memory. */
cJSON *rl_cache_probe_json(const rl_cache_probe *p);

#endif
