/* SPDX-License-Identifier: MIT */
/* membw.h: the memory read-bandwidth ceiling (owner: membw).
 *
 * rl_membw_measure sweeps thread counts; for each it maps a 2 MiB-aligned working set with
 * madvise(MADV_HUGEPAGE), starts one pinned thread per CPU (physical cores first, then SMT
 * siblings), lets each thread first-touch its own chunk, times one pass of each of the two
 * widest SIMD variants and keeps the faster, runs one discarded warm-up pass per kernel, then
 * takes best-of-N samples of every kernel (repetitions interleaved across kernels), each timed
 * between two barriers, so the slowest thread sets the time.
 * GB/s = bytes / seconds / 1e9. The ceiling is the best read-only (sum, xor, dot) sample; copy
 * is measured and reported but never sets it (write-allocate traffic).
 *
 * Ownership: an rl_membw_result owns its runs array; release it with rl_membw_result_free.
 * rl_membw_to_json returns a new cJSON object the caller owns. Everything else is pure
 * arithmetic on caller memory, exposed so the rules can be tested without timing. */
#ifndef RL_MEMBW_H
#define RL_MEMBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "measure/membw_kernels.h"
#include "measure/quiet.h"
#include "base/rl_error.h"
#include "measure/sysinfo.h"

#define RL_MEMBW_MIB (1024ULL * 1024ULL)
#define RL_MEMBW_FLOOR_BYTES (64ULL * RL_MEMBW_MIB) /* smallest working set */
#define RL_MEMBW_BASE_BYTES (512ULL * RL_MEMBW_MIB) /* default before the LLC and RAM rules */
#define RL_MEMBW_QUICK_MIN_BYTES (256ULL * RL_MEMBW_MIB)
#define RL_MEMBW_PAGE_2M (2ULL * RL_MEMBW_MIB)
#define RL_MEMBW_MAX_REPS 100
#define RL_MEMBW_MAX_PEAK_GBS 100000.0 /* --peak-bw upper bound (100 TB/s) */
#define RL_MEMBW_MAX_COUNTS 16
#define RL_MEMBW_DEFAULT_REPS 7
#define RL_MEMBW_QUICK_REPS 3
#define RL_MEMBW_SAMPLE_S 0.08 /* target duration of one sample */
#define RL_MEMBW_QUICK_SAMPLE_S 0.04
#define RL_MEMBW_UNSTABLE_RATIO 0.75 /* median below 75% of best (over 25% apart): unstable */
#define RL_MEMBW_SATURATION 0.95     /* "saturates at": first count within 5% of the ceiling */

typedef struct {
    uint64_t working_set_bytes; /* 0: the default rule (rl_membw_default_ws) */
    uint64_t floor_bytes;       /* smallest set a fallback may reach; 0: RL_MEMBW_FLOOR_BYTES
                                   (the cache probe reads sets far smaller) */
    int threads[RL_MEMBW_MAX_COUNTS];
    int n_threads;   /* 0: the default sweep (rl_membw_default_threads) */
    int reps;        /* 0: RL_MEMBW_DEFAULT_REPS, or RL_MEMBW_QUICK_REPS if quick */
    bool quick;      /* smaller set, fewer and shorter samples */
    int isa;         /* -1: the widest supported; else an rl_isa to force */
    double sample_s; /* 0: the default for the mode */
    /* the machine's state during each thread count (measure/quiet.h) */
    const rl_quiet_limits *quiet; /* NULL: the defaults */
    const char *quiet_root;       /* NULL or "": the real /proc and /sys */
    double wait_quiet_s;          /* > 0: wait this long at most for a quiet machine first */
    int retry_disturbed;          /* a disturbed thread count measured again, up to this often */
} rl_membw_opts;

/* Every repetition of one kernel at one thread count. */
typedef struct {
    rl_kernel kernel;
    rl_isa isa;
    int threads;
    uint64_t bytes_per_pass; /* bytes the kernel reads (copy: reads + writes) per pass */
    int passes;              /* passes per sample */
    int n;                   /* samples taken */
    double gbs[RL_MEMBW_MAX_REPS];
    double best, median;
    bool has_machine;          /* machine was recorded (one interval per thread count) */
    rl_quiet_interval machine; /* the machine's state while the samples were taken */
} rl_membw_run;

typedef struct {
    bool controlled; /* ceiling supplied by the user (--peak-bw), nothing measured */
    double peak_GBs; /* the ceiling; 0 if nothing was measured */
    /* the rest describes a measurement */
    rl_kernel kernel; /* kernel, ISA and thread count that set the ceiling */
    rl_isa isa;
    int threads;
    double median_GBs;        /* median of that cell's repetitions */
    double stability;         /* median / best of that cell */
    bool unstable;            /* median more than 25% below best */
    double single_thread_GBs; /* best read-only at 1 thread; < 0 if 1 was not in the sweep */
    double saturated_GBs;     /* best read-only at the largest thread count measured */
    int saturated_threads;
    int saturation_threads; /* smallest count whose best read-only is within 5% of the ceiling */
    double copy_GBs;        /* best copy; < 0 if none */
    int copy_threads;
    uint64_t requested_bytes;   /* the working set asked for (rule or --membw-mb) */
    uint64_t working_set_bytes; /* the working set used (smaller after a fallback) */
    char fallback_note[256];    /* why the set shrank, "" if it did not */
    bool huge_pages_advised;    /* madvise(MADV_HUGEPAGE) succeeded */
    bool pinned;                /* every thread got its CPU */
    bool complete;              /* false when interrupted */
    bool quick;
    int reps;
    double sample_s;
    int thread_counts[RL_MEMBW_MAX_COUNTS];
    int n_counts;
    char warning[512]; /* the instability warning, "" if stable */
    double elapsed_s;
    double isa_trial[RL_ISA_COUNT]; /* GB/s of the one-pass ISA trial; 0 = not tried */
    bool isa_forced;                /* --isa given: no trial */
    rl_membw_run *runs;             /* owned */
    size_t n_runs, cap_runs;
    rl_membw_run *attempts; /* owned: disturbed tries measured again (--retry-disturbed) */
    size_t n_attempts, cap_attempts;
} rl_membw_result;

/* ---- rules (pure) */

/* Default working set: max(512 MiB, 4 x LLC), capped at RAM/8 (rounded down to 2 MiB), never
 * below the 64 MiB floor; ram_bytes or llc_bytes 0 means unknown (that rule is skipped). Quick
 * mode uses a quarter of it, at least 256 MiB, never more than the default. */
uint64_t rl_membw_default_ws(uint64_t ram_bytes, uint64_t llc_bytes, bool quick);
/* Default sweep {1, physical/2, physical, logical}, sorted and deduplicated; returns the count
 * written to out (max entries). physical <= 0 means unknown (taken as logical). */
int rl_membw_default_threads(int logical, int physical, int *out, int max);
/* Best (max) and median (mean of the middle two for even n) of n samples; 0 for n == 0. */
void rl_membw_stats(const double *x, int n, double *best, double *median);
/* The instability rule: median < 0.75 x best. */
bool rl_membw_is_unstable(double best, double median);

/* --membw-mb: a whole number of MiB, > 0 and <= RAM (ram_bytes 0: unknown, then <= 16 TiB);
 * values under the floor are raised to it (*raised set). RL_EINPUT with a one-line message. */
rl_status rl_membw_parse_mb(const char *s, uint64_t ram_bytes, uint64_t *bytes, bool *raised,
                            rl_error *err);
/* --threads: comma-separated counts, each 1..logical; sorted, deduplicated into out. */
rl_status rl_membw_parse_threads(const char *s, int logical, int *out, int max, int *n,
                                 rl_error *err);
/* --reps: 1..RL_MEMBW_MAX_REPS. */
rl_status rl_membw_parse_reps(const char *s, int *reps, rl_error *err);
/* --peak-bw: a positive finite GB/s. Reusable by every command that needs a ceiling. */
rl_status rl_membw_parse_peak_bw(const char *s, double *gbs, rl_error *err);

/* ---- allocation */

typedef struct {
    void *base;    /* 2 MiB-aligned */
    size_t bytes;  /* usable bytes (the working set) */
    size_t mapped; /* bytes mapped at base */
    bool huge_advised;
} rl_membw_buf;

/* Map want bytes, 2 MiB-aligned, with MADV_HUGEPAGE. When want exceeds limit (0: no limit) or
 * mmap fails, halve (rounded down to 2 MiB) until it fits or would drop below floor; a
 * fallback is described in note. RL_EINTERNAL if not even floor bytes can be mapped. */
rl_status rl_membw_alloc(uint64_t want, uint64_t floor, uint64_t limit, rl_membw_buf *buf,
                         char *note, size_t note_len, rl_error *err);
void rl_membw_free(rl_membw_buf *buf);

/* ---- measurement */

/* Run the sweep. si supplies RAM, LLC and the CPU list fallback. On RL_EINTERRUPTED the
 * result holds what was measured (complete = false) and is summarised. Caller frees res. */
rl_status rl_membw_measure(const rl_membw_opts *opts, const rl_sysinfo *si, rl_membw_result *res,
                           rl_error *err);
/* A user-supplied ceiling: kind "controlled", nothing measured. */
void rl_membw_controlled(double gbs, rl_membw_result *res);
/* The ceiling wherever one is needed: peak_bw > 0 (from --peak-bw) is honoured as controlled,
 * otherwise measured. */
rl_status rl_membw_ceiling(const rl_membw_opts *opts, double peak_bw, const rl_sysinfo *si,
                           rl_membw_result *res, rl_error *err);

/* Append one run (copied); false when out of memory. */
bool rl_membw_add_run(rl_membw_result *res, const rl_membw_run *run);
/* Append one run (copied) to the array *runs of *n entries and *cap slots (grown). */
bool rl_membw_add_to(rl_membw_run **runs, size_t *n, size_t *cap, const rl_membw_run *run);
/* Recompute best/median of every run, then the ceiling, stability, single-thread, saturated
 * and copy figures and the warning. Pure; used by measure and by tests on synthetic runs. */
void rl_membw_summarize(rl_membw_result *res);
void rl_membw_result_free(rl_membw_result *res);

/* The result as text for people: machine line, per-thread table, ceiling and its notes; the
 * instability warning goes to stderr. ws_from_option: the set was given with --membw-mb. */
void rl_membw_print(FILE *out, const rl_membw_result *r, const rl_sysinfo *si, bool ws_from_option);

/* The result as the JSON object the bundle embeds (caller owns; NULL when out of memory).
 * env (may be NULL) is embedded as "env". Numbers are printed in the C locale. */
cJSON *rl_membw_to_json(const rl_membw_result *res, const rl_sysinfo *env);

#endif
