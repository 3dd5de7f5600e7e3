/* SPDX-License-Identifier: MIT */
/* membw.c: the read-bandwidth sweep (owner: membw): working-set rules, 2 MiB-aligned
 * allocation with fallback, pinned worker threads with per-thread first touch, barrier timing,
 * statistics and the JSON record. See membw.h for the method and ownership. */
#include "measure/membw.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* ------------------------------------------------------------ rules */

static uint64_t round_down(uint64_t v, uint64_t unit)
{
    return v / unit * unit;
}

uint64_t rl_membw_default_ws(uint64_t ram_bytes, uint64_t llc_bytes, bool quick)
{
    uint64_t ws = RL_MEMBW_BASE_BYTES;
    if (llc_bytes && llc_bytes <= UINT64_MAX / 4 && 4 * llc_bytes > ws)
        ws = 4 * llc_bytes;
    if (ram_bytes) {
        uint64_t cap = round_down(ram_bytes / 8, RL_MEMBW_PAGE_2M);
        if (ws > cap)
            ws = cap;
    }
    ws = round_down(ws, RL_MEMBW_PAGE_2M);
    if (ws < RL_MEMBW_FLOOR_BYTES)
        ws = RL_MEMBW_FLOOR_BYTES;
    if (quick) {
        uint64_t q = round_down(ws / 4, RL_MEMBW_PAGE_2M);
        if (q < RL_MEMBW_QUICK_MIN_BYTES)
            q = RL_MEMBW_QUICK_MIN_BYTES;
        if (q < ws)
            ws = q;
    }
    return ws;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int sort_unique(int *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_int);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

int rl_membw_default_threads(int logical, int physical, int *out, int max)
{
    if (logical < 1)
        logical = 1;
    if (physical < 1 || physical > logical)
        physical = logical;
    int half = physical / 2 < 1 ? 1 : physical / 2;
    int c[4] = {1, half, physical, logical};
    int n = sort_unique(c, 4);
    if (n > max)
        n = max;
    memcpy(out, c, (size_t)n * sizeof *out);
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rl_membw_stats(const double *x, int n, double *best, double *median)
{
    *best = 0;
    *median = 0;
    if (n <= 0)
        return;
    double s[RL_MEMBW_MAX_REPS];
    if (n > RL_MEMBW_MAX_REPS)
        n = RL_MEMBW_MAX_REPS;
    memcpy(s, x, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    *best = s[n - 1];
    *median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

bool rl_membw_is_unstable(double best, double median)
{
    return best > 0 && median < RL_MEMBW_UNSTABLE_RATIO * best;
}

rl_status rl_membw_parse_mb(const char *s, uint64_t ram_bytes, uint64_t *bytes, bool *raised,
                            rl_error *err)
{
    uint64_t mb;
    *raised = false;
    if (!rl_parse_u64(s, &mb))
        return rl_fail(err, RL_EINPUT,
                       "--membw-mb wants a whole number of MiB (for example 1024), got '%s'",
                       s ? s : "");
    if (mb == 0)
        return rl_fail(err, RL_EINPUT, "--membw-mb must be a positive number of MiB, got 0");
    uint64_t limit = ram_bytes ? ram_bytes : (16ULL << 40);
    if (mb > limit / RL_MEMBW_MIB)
        return rl_fail(err, RL_EINPUT,
                       "--membw-mb %llu MiB is more than %s (%.1f GiB); use a smaller set",
                       (unsigned long long)mb, ram_bytes ? "this machine's RAM" : "16 TiB",
                       (double)limit / (1024.0 * 1024 * 1024));
    *bytes = mb * RL_MEMBW_MIB;
    if (*bytes < RL_MEMBW_FLOOR_BYTES) {
        *bytes = RL_MEMBW_FLOOR_BYTES;
        *raised = true;
    }
    return RL_OK;
}

rl_status rl_membw_parse_threads(const char *s, int logical, int *out, int max, int *n,
                                 rl_error *err)
{
    return rl_opt_int_list("--threads", s, 1, logical, out,
                           max < RL_MEMBW_MAX_COUNTS ? max : RL_MEMBW_MAX_COUNTS, n, true, err);
}

rl_status rl_membw_parse_reps(const char *s, int *reps, rl_error *err)
{
    return rl_opt_int("--reps", s, 1, RL_MEMBW_MAX_REPS, reps, err);
}

rl_status rl_membw_parse_peak_bw(const char *s, double *gbs, rl_error *err)
{
    return rl_opt_double("--peak-bw", s, 0, true, RL_MEMBW_MAX_PEAK_GBS, gbs, err);
}

/* ------------------------------------------------------------ allocation */

/* One mapping of exactly `bytes` rounded up to 2 MiB, starting on a 2 MiB boundary. */
static void *map_aligned(uint64_t bytes, size_t *mapped, int *err_no)
{
    if (bytes > SIZE_MAX - 2 * RL_MEMBW_PAGE_2M) {
        *err_no = ENOMEM;
        return NULL;
    }
    size_t len = (size_t)((bytes + RL_MEMBW_PAGE_2M - 1) / RL_MEMBW_PAGE_2M * RL_MEMBW_PAGE_2M);
    size_t over = len + RL_MEMBW_PAGE_2M;
    char *raw = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        *err_no = errno;
        return NULL;
    }
    uintptr_t start = ((uintptr_t)raw + RL_MEMBW_PAGE_2M - 1) & ~(uintptr_t)(RL_MEMBW_PAGE_2M - 1);
    size_t head = start - (uintptr_t)raw, tail = over - head - len;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap((char *)start + len, tail);
    *mapped = len;
    return (void *)start;
}

rl_status rl_membw_alloc(uint64_t want, uint64_t floor, uint64_t limit, rl_membw_buf *buf,
                         char *note, size_t note_len, rl_error *err)
{
    memset(buf, 0, sizeof *buf);
    if (note_len)
        note[0] = '\0';
    if (floor < RL_MEMBW_PAGE_2M)
        floor = RL_MEMBW_PAGE_2M;
    uint64_t size = want < floor ? floor : want;
    char first_reason[160] = "";
    for (;;) {
        char reason[160] = "";
        void *p = NULL;
        size_t mapped = 0;
        char a[32], b[32];
        if (limit && size > limit) {
            rl_fmt_mib(a, sizeof a, limit);
            snprintf(reason, sizeof reason, "more than the %s of memory available", a);
        } else {
            int e = 0;
            p = map_aligned(size, &mapped, &e);
            if (!p)
                snprintf(reason, sizeof reason, "mmap failed: %s", strerror(e));
        }
        if (p) {
            buf->base = p;
            buf->bytes = (size_t)size;
            buf->mapped = mapped;
#ifdef MADV_HUGEPAGE
            buf->huge_advised = madvise(p, mapped, MADV_HUGEPAGE) == 0;
#endif
            if (size != want && want >= floor && note_len) {
                rl_fmt_mib(a, sizeof a, want);
                rl_fmt_mib(b, sizeof b, size);
                snprintf(note, note_len, "could not use a %s working set (%s); fell back to %s", a,
                         first_reason, b);
            }
            return RL_OK;
        }
        if (!first_reason[0])
            snprintf(first_reason, sizeof first_reason, "%s", reason);
        uint64_t next = round_down(size / 2, RL_MEMBW_PAGE_2M);
        if (size <= floor || next < floor) {
            if (size > floor) {
                next = floor;
            } else {
                rl_fmt_mib(a, sizeof a, size);
                return rl_fail(err, RL_EINTERNAL,
                               "cannot allocate even the %s minimum working set (%s); free "
                               "some memory or pass --peak-bw",
                               a, reason);
            }
        }
        size = next;
    }
}

void rl_membw_free(rl_membw_buf *buf)
{
    if (buf->base)
        munmap(buf->base, buf->mapped);
    memset(buf, 0, sizeof *buf);
}

/* ------------------------------------------------------------ workers */

enum { CMD_RUN, CMD_QUIT };

typedef struct {
    pthread_barrier_t start, stop;
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_cv;
    int gate;  /* 0 wait, 1 go, -1 exit without touching the barriers */
    int touch; /* first-touch the chunks before reporting ready */
    int cmd;
    rl_kernel kernel;
    rl_isa isa;
    int passes;
} shared_ctl;

typedef struct {
    pthread_t tid;
    shared_ctl *ctl;
    uint64_t *base; /* this thread's chunk */
    size_t n;       /* elements in it */
    int cpu;
    int pinned;
    volatile uint64_t sink; /* the kernel results land here so no pass can be elided */
    char pad[64];
} worker;

/* Non-zero data that is a normal double in every element (1.0 .. 8.0), good for all kernels.
 * Faulting in gigabytes takes seconds in a VM: Ctrl-C is looked for every 2 MiB. */
static void first_touch(uint64_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((i & 262143) == 0 && rl_interrupted)
            return;
        double d = (double)((i & 7) + 1);
        memcpy(&p[i], &d, sizeof d);
    }
}

static uint64_t run_kernel(const worker *w, rl_kernel k, rl_isa isa, int passes)
{
    uint64_t r = 0;
    size_t h = w->n / 2;
    for (int pass = 0; pass < passes; pass++) {
        switch (k) {
        case RL_KERNEL_SUM: r += rl_kernel_sum_u64(isa, w->base, w->n); break;
        case RL_KERNEL_XOR: r += rl_kernel_xor_u64(isa, w->base, w->n) + (uint64_t)pass; break;
        case RL_KERNEL_DOT: {
            double d = rl_kernel_dot_f64(isa, (const double *)(const void *)w->base,
                                         (const double *)(const void *)(w->base + h), h);
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            r += bits;
            break;
        }
        case RL_KERNEL_COPY:
            rl_kernel_copy_u64(isa, w->base + h, w->base, h);
            r += w->base[h + (size_t)pass % (h ? h : 1)];
            break;
        default: break;
        }
    }
    return r;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    shared_ctl *c = w->ctl;
    pthread_mutex_lock(&c->gate_mu);
    while (c->gate == 0)
        pthread_cond_wait(&c->gate_cv, &c->gate_mu);
    int go = c->gate;
    pthread_mutex_unlock(&c->gate_mu);
    if (go < 0)
        return NULL;

    cpu_set_t set;
    CPU_ZERO(&set);
    if (w->cpu >= 0 && w->cpu < CPU_SETSIZE) {
        CPU_SET(w->cpu, &set);
        w->pinned = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
    }
    if (c->touch)
        first_touch(w->base, w->n); /* after pinning: the pages land on this core's node */
    pthread_barrier_wait(&c->stop);
    for (;;) {
        pthread_barrier_wait(&c->start);
        if (c->cmd == CMD_QUIT)
            break;
        w->sink = run_kernel(w, c->kernel, c->isa, c->passes);
        pthread_barrier_wait(&c->stop);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    shared_ctl ctl;
    worker *w;
    int nt;
    int started;
} pool;

/* Split buf among nt threads: boundaries on 2 MiB when every thread gets at least 4 huge pages,
 * else on 4 KiB; the last thread takes the remainder. */
static void split(const rl_membw_buf *buf, int nt, worker *w)
{
    uint64_t gran = buf->bytes / (uint64_t)nt >= 4 * RL_MEMBW_PAGE_2M ? RL_MEMBW_PAGE_2M : 4096;
    uint64_t units = buf->bytes / gran;
    for (int i = 0; i < nt; i++) {
        uint64_t a = units * (uint64_t)i / (uint64_t)nt * gran;
        uint64_t b = i == nt - 1 ? buf->bytes : units * (uint64_t)(i + 1) / (uint64_t)nt * gran;
        w[i].base = (uint64_t *)((char *)buf->base + a);
        w[i].n = (size_t)((b - a) / sizeof(uint64_t));
    }
}

/* Join the first n workers (the ones running), then destroy the barriers, mutex and condition
 * and free the workers. True when every joined worker was pinned to its CPU. */
static bool pool_teardown(pool *p, int n)
{
    bool pinned = true;
    for (int i = 0; i < n; i++) {
        pthread_join(p->w[i].tid, NULL);
        pinned &= p->w[i].pinned != 0;
    }
    pthread_barrier_destroy(&p->ctl.start);
    pthread_barrier_destroy(&p->ctl.stop);
    pthread_mutex_destroy(&p->ctl.gate_mu);
    pthread_cond_destroy(&p->ctl.gate_cv);
    free(p->w);
    p->w = NULL;
    return pinned;
}

static rl_status pool_start(pool *p, int nt, const int *cpus, int ncpus, const rl_membw_buf *buf,
                            bool touch, rl_error *err)
{
    memset(p, 0, sizeof *p);
    p->nt = nt;
    p->ctl.touch = touch;
    p->w = calloc((size_t)nt, sizeof *p->w);
    if (!p->w)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    split(buf, nt, p->w);
    pthread_barrier_init(&p->ctl.start, NULL, (unsigned)nt + 1);
    pthread_barrier_init(&p->ctl.stop, NULL, (unsigned)nt + 1);
    pthread_mutex_init(&p->ctl.gate_mu, NULL);
    pthread_cond_init(&p->ctl.gate_cv, NULL);
    int rc = 0;
    for (int i = 0; i < nt; i++) {
        p->w[i].ctl = &p->ctl;
        p->w[i].cpu = i < ncpus ? cpus[i] : -1;
        rc = pthread_create(&p->w[i].tid, NULL, worker_main, &p->w[i]);
        if (rc)
            break;
        p->started++;
    }
    pthread_mutex_lock(&p->ctl.gate_mu);
    p->ctl.gate = rc ? -1 : 1;
    pthread_cond_broadcast(&p->ctl.gate_cv);
    pthread_mutex_unlock(&p->ctl.gate_mu);
    if (rc) {
        pool_teardown(p, p->started);
        return rl_fail(err, RL_EINTERNAL, "cannot start %d threads: %s", nt, strerror(rc));
    }
    pthread_barrier_wait(&p->ctl.stop); /* every thread pinned, every chunk first-touched */
    return RL_OK;
}

/* One timed sample: wall time from releasing the workers to the last one finishing. */
static double pool_sample(pool *p, rl_kernel k, rl_isa isa, int passes)
{
    p->ctl.cmd = CMD_RUN;
    p->ctl.kernel = k;
    p->ctl.isa = isa;
    p->ctl.passes = passes;
    double t0 = now_s();
    pthread_barrier_wait(&p->ctl.start);
    pthread_barrier_wait(&p->ctl.stop);
    return now_s() - t0;
}

static bool pool_stop(pool *p)
{
    if (!p->w)
        return true;
    p->ctl.cmd = CMD_QUIT;
    pthread_barrier_wait(&p->ctl.start);
    return pool_teardown(p, p->nt);
}

static uint64_t kernel_bytes(const pool *p, rl_kernel k)
{
    uint64_t total = 0;
    for (int i = 0; i < p->nt; i++) {
        uint64_t n = p->w[i].n;
        total += (k == RL_KERNEL_SUM || k == RL_KERNEL_XOR) ? n * 8 : (n / 2) * 16;
    }
    return total;
}

/* Time sum in each candidate variant, twice, interleaved, on the freshly touched set (each
 * trial sample about half a measurement sample) and return the fastest. The widest variant is not
 * always the fastest streamer: on one Sapphire-Rapids-class VM AVX2 read ~12% faster than AVX-512.
 * Candidates: the two widest supported variants (portable C only when fewer than two SIMD variants
 * exist). */
static rl_isa pick_isa(pool *p, rl_membw_result *res)
{
    static const rl_isa order[] = {RL_ISA_AVX512, RL_ISA_AVX2, RL_ISA_NEON, RL_ISA_SSE2, RL_ISA_C};
    rl_isa cand[2];
    int nc = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0] && nc < 2; i++)
        if (rl_isa_supported(order[i]))
            cand[nc++] = order[i];
    if (nc < 2)
        return cand[0];
    uint64_t bytes = kernel_bytes(p, RL_KERNEL_SUM);
    /* each trial sample lasts about half a measurement sample */
    double t1 = pool_sample(p, RL_KERNEL_SUM, cand[0], 1);
    double np = t1 > 0 ? floor(res->sample_s / 2 / t1 + 0.5) : 1;
    int passes = np < 1 ? 1 : np > 10000 ? 10000 : (int)np;
    for (int round = 0; round < 2; round++)
        for (int c = 0; c < nc; c++) {
            double t = pool_sample(p, RL_KERNEL_SUM, cand[c], passes);
            double g = t > 0 ? (double)bytes * passes / t / 1e9 : 0;
            if (g > res->isa_trial[cand[c]])
                res->isa_trial[cand[c]] = g;
        }
    rl_isa best = cand[0];
    for (int c = 1; c < nc; c++)
        if (res->isa_trial[cand[c]] > res->isa_trial[best])
            best = cand[c];
    return best;
}

/* ------------------------------------------------------------ results */

bool rl_membw_add_to(rl_membw_run **runs, size_t *n, size_t *cap, const rl_membw_run *run)
{
    if (*n == *cap) {
        void *r = rl_grow(*runs, cap, sizeof **runs, 16);
        if (!r)
            return false;
        *runs = r;
    }
    (*runs)[(*n)++] = *run;
    return true;
}

bool rl_membw_add_run(rl_membw_result *res, const rl_membw_run *run)
{
    return rl_membw_add_to(&res->runs, &res->n_runs, &res->cap_runs, run);
}

void rl_membw_result_free(rl_membw_result *res)
{
    free(res->runs);
    res->runs = NULL;
    res->n_runs = res->cap_runs = 0;
    free(res->attempts);
    res->attempts = NULL;
    res->n_attempts = res->cap_attempts = 0;
}

void rl_membw_summarize(rl_membw_result *res)
{
    res->peak_GBs = 0;
    res->median_GBs = res->stability = 0;
    res->unstable = false;
    res->single_thread_GBs = res->saturated_GBs = res->copy_GBs = -1;
    res->threads = res->saturated_threads = res->saturation_threads = res->copy_threads = 0;
    res->warning[0] = '\0';
    const rl_membw_run *win = NULL;
    int max_threads = 0;
    for (size_t i = 0; i < res->n_runs; i++) {
        rl_membw_run *r = &res->runs[i];
        rl_membw_stats(r->gbs, r->n, &r->best, &r->median);
        if (r->n > 0 && r->threads > max_threads && rl_kernel_read_only(r->kernel))
            max_threads = r->threads;
    }
    /* ceiling: ascending thread count, then kernel order; ties keep the first */
    for (size_t i = 0; i < res->n_runs; i++) {
        const rl_membw_run *r = &res->runs[i];
        if (r->n == 0)
            continue;
        if (r->kernel == RL_KERNEL_COPY) {
            if (r->best > res->copy_GBs ||
                (r->best == res->copy_GBs && r->threads < res->copy_threads)) {
                res->copy_GBs = r->best;
                res->copy_threads = r->threads;
            }
            continue;
        }
        if (!rl_kernel_read_only(r->kernel))
            continue;
        if (!win || r->best > win->best ||
            (r->best == win->best && (r->threads < win->threads ||
                                      (r->threads == win->threads && r->kernel < win->kernel))))
            win = r;
        if (r->threads == 1 && r->best > res->single_thread_GBs)
            res->single_thread_GBs = r->best;
        if (r->threads == max_threads && r->best > res->saturated_GBs) {
            res->saturated_GBs = r->best;
            res->saturated_threads = r->threads;
        }
    }
    if (!win)
        return;
    res->peak_GBs = win->best;
    res->kernel = win->kernel;
    res->isa = win->isa;
    res->threads = win->threads;
    res->median_GBs = win->median;
    res->stability = win->best > 0 ? win->median / win->best : 0;
    res->unstable = rl_membw_is_unstable(win->best, win->median);
    int sat = 0;
    for (size_t i = 0; i < res->n_runs; i++) {
        const rl_membw_run *r = &res->runs[i];
        if (r->n > 0 && rl_kernel_read_only(r->kernel) &&
            r->best >= RL_MEMBW_SATURATION * res->peak_GBs && (sat == 0 || r->threads < sat))
            sat = r->threads;
    }
    res->saturation_threads = sat;
    if (res->unstable)
        snprintf(res->warning, sizeof res->warning,
                 "unstable measurement: the repetitions at the ceiling varied by %.0f%% (median "
                 "%.2f GB/s, best %.2f GB/s), so something else was probably using the machine "
                 "and the ceiling is likely too low; close other programs and rerun, or pass "
                 "--peak-bw GBS",
                 100.0 * (1.0 - res->stability), win->median, win->best);
}

void rl_membw_controlled(double gbs, rl_membw_result *res)
{
    memset(res, 0, sizeof *res);
    res->controlled = true;
    res->complete = true;
    res->peak_GBs = gbs;
    res->single_thread_GBs = res->saturated_GBs = res->copy_GBs = -1;
}

/* ------------------------------------------------------------ the sweep */

/* The sweep's state, shared by its steps. */
typedef struct {
    const rl_membw_opts *opts;
    rl_membw_result *res;
    rl_isa isa;
    int cpus[RL_SYSINFO_MAX_CPUS], ncpus;
    uint64_t want;  /* bytes to map; a fallback sticks for the remaining counts */
    uint64_t limit; /* 80% of the available RAM, 0 when unknown */
    bool per_count; /* a fresh mapping per thread count (several NUMA nodes) */
    int max_nt;
    rl_membw_buf buf;
    bool trial_done;
} sweep;

/* Repetitions, sample length and ISA from the options; fails when the CPU cannot run the
 * forced ISA. */
static rl_status sweep_settings(sweep *w, rl_error *err)
{
    const rl_membw_opts *opts = w->opts;
    rl_membw_result *res = w->res;
    memset(res, 0, sizeof *res);
    res->single_thread_GBs = res->saturated_GBs = res->copy_GBs = -1;
    res->quick = opts->quick;
    res->reps =
        opts->reps > 0 ? opts->reps : (opts->quick ? RL_MEMBW_QUICK_REPS : RL_MEMBW_DEFAULT_REPS);
    if (res->reps > RL_MEMBW_MAX_REPS)
        res->reps = RL_MEMBW_MAX_REPS;
    res->sample_s = opts->sample_s > 0
                        ? opts->sample_s
                        : (opts->quick ? RL_MEMBW_QUICK_SAMPLE_S : RL_MEMBW_SAMPLE_S);
    w->isa = opts->isa >= 0 && opts->isa < RL_ISA_COUNT ? (rl_isa)opts->isa : rl_isa_best();
    res->isa_forced = opts->isa >= 0;
    if (!rl_isa_supported(w->isa))
        return rl_fail(err, RL_EINPUT, "this CPU cannot run the %s kernels", rl_isa_name(w->isa));
    return RL_OK;
}

/* The thread counts and the working set from the options and the machine. */
static void sweep_plan(sweep *w, const rl_sysinfo *si)
{
    const rl_membw_opts *opts = w->opts;
    rl_membw_result *res = w->res;
    int nphys = 0;
    int ncpus = rl_sysinfo_cpu_order(w->cpus, RL_SYSINFO_MAX_CPUS, &nphys);
    w->ncpus = ncpus;
    int logical = ncpus > 0 ? ncpus : (si && si->logical_cores > 0 ? si->logical_cores : 1);
    int physical =
        ncpus > 0 ? nphys : (si && si->physical_cores > 0 ? si->physical_cores : logical);
    if (opts->n_threads > 0) {
        res->n_counts =
            opts->n_threads < RL_MEMBW_MAX_COUNTS ? opts->n_threads : RL_MEMBW_MAX_COUNTS;
        memcpy(res->thread_counts, opts->threads, (size_t)res->n_counts * sizeof(int));
    } else {
        res->n_counts =
            rl_membw_default_threads(logical, physical, res->thread_counts, RL_MEMBW_MAX_COUNTS);
    }

    uint64_t ram = si ? si->ram_bytes : 0, llc = si ? si->llc_bytes : 0;
    res->requested_bytes = opts->working_set_bytes ? opts->working_set_bytes
                                                   : rl_membw_default_ws(ram, llc, opts->quick);
    w->want = res->requested_bytes;
    w->limit = si && si->ram_available_bytes ? si->ram_available_bytes / 10 * 8 : 0;
    res->pinned = true;
    res->huge_pages_advised = true;

    /* On one NUMA node the set is mapped once and first-touched in parallel by the largest
     * pool (fresh memory can be slow to fault in, notably in VMs); with several nodes every
     * thread count gets a fresh mapping that its own threads first-touch. */
    w->per_count = si && si->numa_nodes > 1;
    w->max_nt = 1;
    for (int ci = 0; ci < res->n_counts; ci++)
        if (res->thread_counts[ci] > w->max_nt)
            w->max_nt = res->thread_counts[ci];
}

/* Map the working set and first-touch it (with nt threads, or the largest pool on one NUMA
 * node); the first time, also pick the ISA when none was forced. */
static rl_status map_set(sweep *w, int nt, rl_error *err)
{
    rl_membw_result *res = w->res;
    char note[256];
    rl_progress("membw: mapping and first-touching %.0f MiB", (double)w->want / RL_MEMBW_MIB);
    rl_status st =
        rl_membw_alloc(w->want, w->opts->floor_bytes ? w->opts->floor_bytes : RL_MEMBW_FLOOR_BYTES,
                       w->limit, &w->buf, note, sizeof note, err);
    if (st != RL_OK)
        return st;
    if (note[0] && !res->fallback_note[0])
        snprintf(res->fallback_note, sizeof res->fallback_note, "%s", note);
    w->want = w->buf.bytes; /* a fallback sticks for the remaining counts */
    res->working_set_bytes = w->buf.bytes;
    res->huge_pages_advised &= w->buf.huge_advised;
    pool toucher;
    int tn = w->per_count ? nt : w->max_nt;
    st = pool_start(&toucher, tn, w->cpus, w->ncpus, &w->buf, true, err);
    if (st != RL_OK)
        return st;
    if (w->opts->isa < 0 && !w->trial_done && !rl_interrupted) /* once: one ISA for the sweep */
        w->isa = pick_isa(&toucher, res);
    w->trial_done = true;
    res->pinned &= pool_stop(&toucher);
    if (rl_interrupted)
        return RL_EINTERRUPTED;
    return RL_OK;
}

static const rl_kernel kernel_order[RL_KERNEL_COUNT] = {RL_KERNEL_SUM, RL_KERNEL_XOR, RL_KERNEL_DOT,
                                                        RL_KERNEL_COPY};

/* A discarded warm-up pass per kernel, which also sizes the samples. */
static void size_cell(sweep *w, pool *pl, int nt, rl_membw_run cell[RL_KERNEL_COUNT])
{
    for (int k = 0; k < RL_KERNEL_COUNT; k++) {
        rl_membw_run *r = &cell[k];
        memset(r, 0, sizeof *r);
        r->kernel = kernel_order[k];
        r->isa = w->isa;
        r->threads = nt;
        r->bytes_per_pass = kernel_bytes(pl, kernel_order[k]);
        double t = pool_sample(pl, kernel_order[k], w->isa, 1);
        double passes = t > 0 ? floor(w->res->sample_s / t + 0.5) : 1;
        r->passes = passes < 1 ? 1 : passes > 10000 ? 10000 : (int)passes;
    }
}

/* The timed repetitions of thread count ci. The read-only kernels' repetitions are
 * interleaved, so a disturbance spreads over all of them. copy runs after them: the dirty
 * lines it leaves in the cache are written back during whatever runs next, which would charge
 * a read kernel for copy's stores. One untimed read pass then flushes them before the next
 * count. */
static void sample_cell(sweep *w, pool *pl, int ci, int nt, rl_membw_run cell[RL_KERNEL_COUNT])
{
    rl_membw_result *res = w->res;
    for (int phase = 0; phase < 2; phase++) {
        for (int rep = 0; rep < res->reps && !rl_interrupted; rep++) {
            rl_progress("membw: %d thread%s (%d/%d): %s repetition %d/%d", nt, nt == 1 ? "" : "s",
                        ci + 1, res->n_counts, phase ? "copy" : "read", rep + 1, res->reps);
            for (int k = 0; k < RL_KERNEL_COUNT && !rl_interrupted; k++) {
                rl_membw_run *r = &cell[k];
                if (rl_kernel_read_only(r->kernel) == (phase == 1))
                    continue;
                double t = pool_sample(pl, r->kernel, w->isa, r->passes);
                double bytes = (double)r->bytes_per_pass * r->passes;
                r->gbs[r->n++] = t > 0 ? bytes / t / 1e9 : 0;
            }
        }
    }
    if (!rl_interrupted)
        pool_sample(pl, RL_KERNEL_SUM, w->isa, 1);
}

/* One try at thread count ci: the cell's samples with the machine's state around them. */
static rl_status measure_cell(sweep *w, int ci, int nt, rl_membw_run cell[RL_KERNEL_COUNT],
                              rl_error *err)
{
    const rl_membw_opts *o = w->opts;
    if (o->wait_quiet_s > 0 && !rl_quiet_wait(o->quiet_root, o->wait_quiet_s, o->quiet, NULL) &&
        rl_interrupted)
        return RL_EINTERRUPTED;
    pool pl;
    rl_status st = pool_start(&pl, nt, w->cpus, w->ncpus, &w->buf, false, err);
    if (st != RL_OK)
        return st;
    rl_quiet_snap q0, q1;
    rl_quiet_take(o->quiet_root, &q0, NULL);
    size_cell(w, &pl, nt, cell);
    sample_cell(w, &pl, ci, nt, cell);
    w->res->pinned &= pool_stop(&pl);
    rl_quiet_take(o->quiet_root, &q1, NULL);
    rl_quiet_interval q;
    rl_quiet_between(&q0, &q1, o->quiet, &q);
    for (int k = 0; k < RL_KERNEL_COUNT; k++) {
        cell[k].has_machine = true;
        cell[k].machine = q;
    }
    return RL_OK;
}

/* Measure thread count ci on the mapped set and add its runs to the result; a disturbed
 * cell is measured again up to opts->retry_disturbed times, the earlier tries kept in
 * res->attempts. */
static rl_status measure_count(sweep *w, int ci, rl_error *err)
{
    rl_membw_result *res = w->res;
    int nt = res->thread_counts[ci];
    rl_membw_run cell[RL_KERNEL_COUNT];
    rl_status st = RL_OK;
    for (int attempt = 0;; attempt++) {
        st = measure_cell(w, ci, nt, cell, err);
        if (st != RL_OK || rl_interrupted || !cell[0].machine.disturbed ||
            attempt >= w->opts->retry_disturbed)
            break;
        rl_progress("membw: %d thread%s disturbed (%s): measuring again (%d of %d)", nt,
                    nt == 1 ? "" : "s", cell[0].machine.why, attempt + 1, w->opts->retry_disturbed);
        for (int k = 0; k < RL_KERNEL_COUNT; k++)
            if (cell[k].n > 0 &&
                !rl_membw_add_to(&res->attempts, &res->n_attempts, &res->cap_attempts, &cell[k]))
                return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    if (st != RL_OK)
        return st;
    if (w->per_count)
        rl_membw_free(&w->buf);
    for (int k = 0; k < RL_KERNEL_COUNT; k++)
        if (cell[k].n > 0 && !rl_membw_add_run(res, &cell[k]))
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
    if (rl_interrupted && st == RL_OK)
        st = RL_EINTERRUPTED;
    return st;
}

rl_status rl_membw_measure(const rl_membw_opts *opts, const rl_sysinfo *si, rl_membw_result *res,
                           rl_error *err)
{
    double t_begin = now_s();
    sweep w = {0};
    w.opts = opts;
    w.res = res;
    rl_status st = sweep_settings(&w, err);
    if (st != RL_OK)
        return st;
    sweep_plan(&w, si);
    int done_counts = 0;
    for (int ci = 0; ci < res->n_counts && st == RL_OK; ci++) {
        if (rl_interrupted) {
            st = RL_EINTERRUPTED;
            break;
        }
        if (!w.buf.base)
            st = map_set(&w, res->thread_counts[ci], err);
        if (st == RL_OK)
            st = measure_count(&w, ci, err);
        if (st == RL_OK)
            done_counts++;
    }
    rl_membw_free(&w.buf);
    rl_progress_done();
    res->complete = st == RL_OK && done_counts == res->n_counts;
    rl_membw_summarize(res);
    res->elapsed_s = now_s() - t_begin;
    if (st == RL_EINTERRUPTED)
        rl_fail(err, st, "interrupted; %s",
                res->n_runs ? "the partial result was kept" : "nothing was measured");
    return st;
}

rl_status rl_membw_ceiling(const rl_membw_opts *opts, double peak_bw, const rl_sysinfo *si,
                           rl_membw_result *res, rl_error *err)
{
    if (peak_bw > 0) {
        rl_membw_controlled(peak_bw, res);
        return RL_OK;
    }
    return rl_membw_measure(opts, si, res, err);
}

/* ------------------------------------------------------------ JSON */

static double r3(double v)
{
    return round(v * 1000.0) / 1000.0;
}

static bool add_gbs(cJSON *o, const char *key, double v)
{
    return rl_json_add_num_or_null(o, key, r3(v), v >= 0);
}

static bool add_count(cJSON *o, const char *key, int v)
{
    return rl_json_add_u64_or_null(o, key, (uint64_t)(v > 0 ? v : 0), v > 0);
}

/* What only a measured ceiling has: how it was measured, its other rates and settings. */
static bool add_measured(cJSON *o, const rl_membw_result *res, bool measured)
{
    bool ok = true;
    ok &= rl_json_add_str(o, "source", "measured by llama-roofline membw");
    ok &= add_gbs(o, "median_GBs", measured ? res->median_GBs : -1);
    ok &= rl_json_add_num_or_null(o, "stability", round(res->stability * 1e4) / 1e4, measured);
    ok &= add_gbs(o, "single_thread_GBs", res->single_thread_GBs);
    ok &= add_gbs(o, "saturated_GBs", res->saturated_GBs);
    ok &= add_count(o, "saturated_threads", res->saturated_threads);
    ok &= add_count(o, "saturation_threads", res->saturation_threads);
    ok &= add_gbs(o, "copy_GBs", res->copy_GBs);
    ok &= add_count(o, "copy_threads", res->copy_threads);
    ok &= rl_json_add_num(o, "requested_working_set_bytes", (double)res->requested_bytes);
    ok &= rl_json_add_str_or_null(o, "working_set_fallback", res->fallback_note);
    ok &= rl_json_add_bool(o, "complete", res->complete);
    ok &= rl_json_add_bool(o, "quick", res->quick);
    ok &= rl_json_add_num(o, "reps", res->reps);
    ok &= rl_json_add_num(o, "sample_target_s", res->sample_s);
    ok &= rl_json_add_int_array(o, "thread_counts", res->thread_counts, res->n_counts);
    ok &= rl_json_add_bool(o, "pinned", res->pinned);
    ok &= rl_json_add_bool(o, "huge_pages_advised", res->huge_pages_advised);
    cJSON *trial = cJSON_AddObjectToObject(o, "isa_trial_GBs");
    ok &= trial != NULL;
    for (int i = 0; ok && i < RL_ISA_COUNT; i++)
        if (res->isa_trial[i] > 0)
            ok &= rl_json_add_num(trial, rl_isa_name((rl_isa)i), r3(res->isa_trial[i]));
    ok &= rl_json_add_str(o, "isa_selection",
                          res->isa_forced
                              ? "forced with --isa"
                              : "faster of the two widest variants in a trial after first touch");
    cJSON *av = cJSON_AddArrayToObject(o, "isa_available");
    ok &= av != NULL;
    for (int i = 0; ok && i < RL_ISA_COUNT; i++)
        if (rl_isa_supported((rl_isa)i))
            ok &= rl_json_push(av, cJSON_CreateString(rl_isa_name((rl_isa)i)));
    if (res->warning[0])
        ok &= rl_json_add_str(o, "warning", res->warning);
    ok &= rl_json_add_num(o, "elapsed_s", round(res->elapsed_s * 100) / 100);
    ok &= rl_json_add_str(
        o, "method",
        "read-only kernels (sum: uint64 add, 8 accumulators; xor: uint64 load/xor stream; "
        "dot: two-stream double FMA); of the two widest SIMD variants the CPU supports, the "
        "faster in a short trial is used; one thread "
        "per CPU, pinned physical cores first, each first-touching its own chunk of a 2 MiB-"
        "aligned MADV_HUGEPAGE mapping; one discarded warm-up pass, then best-of-N samples "
        "timed between barriers (slowest thread). copy is reported but excluded from the "
        "ceiling (write-allocate traffic).");
    return ok;
}

/* One entry of "runs": a kernel at a thread count and its samples; NULL when out of memory. */
static cJSON *run_json(const rl_membw_run *r)
{
    cJSON *e = cJSON_CreateObject();
    if (!e)
        return NULL;
    bool ok = rl_json_add_str(e, "kernel", rl_kernel_name(r->kernel));
    ok &= rl_json_add_str(e, "isa", rl_isa_name(r->isa));
    ok &= rl_json_add_num(e, "threads", r->threads);
    ok &= rl_json_add_bool(e, "read_only", rl_kernel_read_only(r->kernel));
    ok &= rl_json_add_num(e, "bytes_per_pass", (double)r->bytes_per_pass);
    ok &= rl_json_add_num(e, "passes_per_sample", r->passes);
    ok &= rl_json_add_num(e, "best_GBs", r3(r->best));
    ok &= rl_json_add_num(e, "median_GBs", r3(r->median));
    cJSON *s = cJSON_AddArrayToObject(e, "samples_GBs");
    ok &= s != NULL;
    for (int k = 0; ok && k < r->n; k++)
        ok &= rl_json_push(s, cJSON_CreateNumber(r3(r->gbs[k])));
    if (ok && r->has_machine)
        ok &= rl_json_attach(e, "machine", rl_quiet_to_json(&r->machine));
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

/* The earlier tries of run r (--retry-disturbed), each kind measured, as r's "attempts". */
static bool add_attempts(cJSON *e, const rl_membw_result *res, const rl_membw_run *r)
{
    cJSON *arr = NULL;
    for (size_t i = 0; i < res->n_attempts; i++) {
        const rl_membw_run *a = &res->attempts[i];
        if (a->kernel != r->kernel || a->threads != r->threads)
            continue;
        if (!arr && !(arr = cJSON_AddArrayToObject(e, "attempts")))
            return false;
        cJSON *aj = run_json(a);
        if (aj && !rl_json_add_str(aj, "kind", "measured")) {
            cJSON_Delete(aj);
            aj = NULL;
        }
        if (!rl_json_push(arr, aj)) /* frees aj */
            return false;
    }
    return true;
}

cJSON *rl_membw_to_json(const rl_membw_result *res, const rl_sysinfo *env)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool measured = !res->controlled && res->peak_GBs > 0;
    bool ok = true;
    ok &= rl_json_add_str(o, "kind", res->controlled ? "controlled" : "measured");
    ok &= rl_json_add_num_or_null(o, "peak_read_GBs",
                                  res->controlled ? res->peak_GBs : r3(res->peak_GBs),
                                  res->controlled || measured);
    ok &= measured ? rl_json_add_str(o, "kernel", rl_kernel_name(res->kernel))
                   : rl_json_add_null(o, "kernel");
    ok &= measured ? rl_json_add_str(o, "isa", rl_isa_name(res->isa)) : rl_json_add_null(o, "isa");
    ok &= rl_json_add_num_or_null(o, "threads", res->threads, measured);
    ok &= rl_json_add_num_or_null(o, "working_set_bytes", (double)res->working_set_bytes,
                                  !res->controlled && res->working_set_bytes);
    ok &= rl_json_add_bool(o, "unstable", res->unstable);
    if (res->controlled)
        ok &= rl_json_add_str(o, "source", "supplied by the user with --peak-bw, not measured");
    else
        ok &= add_measured(o, res, measured);
    cJSON *units = cJSON_AddObjectToObject(o, "units");
    ok &= units && rl_json_add_str(units, "GBs", "GB/s = 1e9 bytes per second") &&
          rl_json_add_str(units, "bytes", "bytes");
    cJSON *runs = cJSON_AddArrayToObject(o, "runs");
    ok &= runs != NULL;
    for (size_t i = 0; ok && i < res->n_runs; i++) {
        cJSON *e = run_json(&res->runs[i]);
        ok &= e && add_attempts(e, res, &res->runs[i]);
        ok &= rl_json_push(runs, e);
    }
    if (ok && env)
        ok &= rl_json_attach(o, "env", rl_sysinfo_to_json(env));
    return rl_json_kept(o, ok);
}
