/* client_cmd.c: the streaming client's command driver (rl_client_cmd_run, client_driver.h).
 * Each request is `/bin/sh -c COMMAND` started through proc.h's asynchronous API with the
 * prompt on its stdin; every read of its stdout is one chunk, stamped by proc.h right after
 * read() returned (absolute CLOCK_MONOTONIC = the child's spawn time + the offset proc.h
 * passes). Up to `concurrency` children run at once, all served by one poll loop.
 *
 * Bounded memory: the answer text keeps RL_CLIENT_OUTPUT_MAX bytes (client_driver.c), the chunk
 * array at most RL_CLIENT_CHUNKS_MAX entries (reads under RL_CLIENT_MERGE_NS apart and reads
 * past the cap are merged: rl_client_result_append), and proc.h keeps only a small head and
 * tail of each stream (stderr gives the error line).
 *
 * A request is ok when the child exits 0 before its timeout. Otherwise the result says why in
 * one line: "timed out after N s", "killed by signal N", "exit N: <first stderr line>",
 * "interrupted". A spawn failure (no /bin/sh, fork failing) is a failed request too.
 * Ownership: results are handed to the scheduler's done(), which takes them. */
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_driver.h"
#include "proc.h"
#include "rl_util.h"

#define KEEP_BYTES 4096 /* per stream kept by proc.h: stderr's head gives the error line */

typedef struct {
    rl_proc *proc;
    rl_client_result *res;
    int64_t start_ns;
    double timeout;
    bool oom;
    const rl_client_sched *s;
} slot;

static void on_output(void *ud, int stream, const char *data, size_t n, double t)
{
    slot *sl = ud;
    if (stream != RL_PROC_STDOUT || !sl->res)
        return;
    int64_t t_ns = sl->start_ns + (int64_t)llround(t * 1e9);
    size_t before = sl->res->n_chunks;
    rl_error e;
    if (rl_client_result_append(sl->res, t_ns, data, n, &e) != RL_OK)
        sl->oom = true;
    if (sl->s->progress && sl->res->n_chunks > before)
        sl->s->progress(sl->s->ctx, sl->res->job, &sl->res->chunks[sl->res->n_chunks - 1]);
}

/* The first non-blank line of the child's stderr, at most 200 bytes, or NULL. */
static char *first_line(const rl_proc_stream *err)
{
    if (!err->head || err->head_len == 0)
        return NULL;
    const char *p = err->head, *end = err->head + err->head_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        const char *a = p;
        while (a < e && (*a == ' ' || *a == '\t' || *a == '\r'))
            a++;
        const char *b = e;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
            b--;
        if (b > a) {
            size_t n = (size_t)(b - a) > 200 ? 200 : (size_t)(b - a);
            char *s = malloc(n + 1);
            if (s) {
                memcpy(s, a, n);
                s[n] = '\0';
            }
            return s;
        }
        p = e + 1;
    }
    return NULL;
}

/* Fill the outcome of a finished child into its result. */
static void settle(slot *sl, const rl_proc_result *pr)
{
    rl_client_result *res = sl->res;
    res->send_ns = pr->start_ns;
    res->end_ns = pr->start_ns + (int64_t)llround(pr->elapsed * 1e9);
    /* proc.h drains the pipes after reaping: the last read may come after the exit */
    if (res->n_chunks && res->chunks[res->n_chunks - 1].t_ns > res->end_ns)
        res->end_ns = res->chunks[res->n_chunks - 1].t_ns;
    res->exit_code = pr->exit_code;
    res->timed_out = pr->timed_out;
    res->interrupted = pr->interrupted;
    res->ok = !pr->timed_out && !pr->interrupted && pr->term_signal == 0 && pr->exit_code == 0 &&
              !sl->oom;
    if (res->ok)
        return;
    char *line = first_line(&pr->err);
    if (pr->interrupted)
        res->error = rl_strdup("interrupted");
    else if (pr->timed_out)
        res->error = rl_asprintf("timed out after %g s", sl->timeout);
    else if (sl->oom)
        res->error = rl_strdup("out of memory recording the answer");
    else if (pr->term_signal)
        res->error = line ? rl_asprintf("killed by signal %d: %s", pr->term_signal, line)
                          : rl_asprintf("killed by signal %d", pr->term_signal);
    else
        res->error = line ? rl_asprintf("exit %d: %s", pr->exit_code, line)
                          : rl_asprintf("exit %d", pr->exit_code);
    free(line);
}

/* Start job in sl. A spawn failure becomes a failed result handed to done() at once. */
static rl_status start(const rl_client_cmd_cfg *cfg, const rl_client_sched *s, slot *sl,
                       const rl_client_job *job, rl_error *err)
{
    memset(sl, 0, sizeof *sl);
    sl->s = s;
    sl->timeout = job->timeout;
    sl->res = rl_client_result_new(job->index, 1);
    if (!sl->res)
        return rl_fail(err, RL_EINTERNAL, "out of memory starting a request");
    const char *argv[] = {"/bin/sh", "-c", cfg->command, NULL};
    rl_proc_opts o = {0};
    o.argv = argv;
    o.stdin_data = job->prompt ? job->prompt : "";
    o.stdin_len = job->prompt ? job->prompt_len : 0;
    o.timeout = job->timeout;
    o.keep_head = KEEP_BYTES;
    o.keep_tail = KEEP_BYTES;
    o.on_output = on_output;
    o.ud = sl;
    rl_error e;
    int64_t t0 = rl_proc_now_ns();
    rl_status st = rl_proc_start(&o, &sl->proc, &e);
    if (st == RL_OK) {
        sl->start_ns = rl_proc_start_ns(sl->proc);
        return RL_OK;
    }
    if (st == RL_EINTERRUPTED) {
        rl_client_result_free(sl->res);
        sl->res = NULL;
        return rl_fail(err, RL_EINTERRUPTED, "interrupted");
    }
    sl->res->send_ns = sl->res->end_ns = t0;
    sl->res->error = rl_asprintf("cannot start /bin/sh: %s", e.msg);
    s->done(s->ctx, sl->res);
    sl->res = NULL;
    sl->proc = NULL;
    return RL_OK;
}

/* Finish sl's child and hand its result to done(). */
static void finish(const rl_client_sched *s, slot *sl, bool stopped)
{
    rl_proc_result pr;
    rl_proc_finish(sl->proc, &pr);
    sl->proc = NULL;
    pr.interrupted |= stopped;
    settle(sl, &pr);
    rl_proc_result_free(&pr);
    rl_client_result *res = sl->res;
    sl->res = NULL;
    s->done(s->ctx, res);
}

static void sleep_until(int64_t wake_ns)
{
    int64_t now = rl_proc_now_ns();
    int64_t d = wake_ns - now;
    if (d <= 0)
        return;
    if (d > 100000000LL)
        d = 100000000LL; /* wake for the interrupt flag at least every 100 ms */
    struct timespec ts = {(time_t)(d / 1000000000LL), (long)(d % 1000000000LL)};
    nanosleep(&ts, NULL);
}

rl_status rl_client_cmd_run(const rl_client_cmd_cfg *cfg, const rl_client_sched *s, rl_error *err)
{
    size_t n = cfg->concurrency ? cfg->concurrency : 1;
    slot *slots = rl_calloc(n, sizeof *slots);
    rl_proc **procs = rl_calloc(n, sizeof *procs);
    if (!slots || !procs) {
        free(slots);
        free(procs);
        return rl_fail(err, RL_EINTERNAL, "out of memory for %zu request slots", n);
    }
    rl_status st = RL_OK;
    bool over = false;
    for (;;) {
        if (rl_interrupted) {
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
            break;
        }
        int64_t wake = INT64_MAX;
        size_t running = 0;
        for (size_t i = 0; i < n; i++)
            running += slots[i].proc != NULL;
        while (!over && running < n) {
            rl_client_job job;
            int64_t w = INT64_MAX;
            int r = s->next(s->ctx, rl_proc_now_ns(), &job, &w);
            if (r < 0) {
                over = true;
                break;
            }
            if (r == 0) {
                wake = w;
                break;
            }
            size_t k = 0;
            while (slots[k].proc)
                k++;
            if ((st = start(cfg, s, &slots[k], &job, err)) != RL_OK)
                break;
            procs[k] = slots[k].proc;
            running += procs[k] != NULL;
        }
        if (st != RL_OK)
            break;
        if (running == 0) {
            if (over)
                break;
            sleep_until(wake == INT64_MAX ? rl_proc_now_ns() + 10000000LL : wake);
            continue;
        }
        double max_wait = 0.1;
        if (wake != INT64_MAX) {
            double d = (double)(wake - rl_proc_now_ns()) / 1e9;
            max_wait = d < 0 ? 0 : (d < 0.1 ? d : 0.1);
        }
        st = rl_proc_wait(procs, n, max_wait, err);
        for (size_t i = 0; i < n; i++) {
            if (slots[i].proc && (st != RL_OK || rl_proc_done(slots[i].proc))) {
                finish(s, &slots[i], st == RL_EINTERRUPTED);
                procs[i] = NULL;
            }
        }
        if (st != RL_OK)
            break;
    }
    /* on interrupt or a failure: every child still here is stopped and reported */
    for (size_t i = 0; i < n; i++) {
        if (slots[i].proc) {
            finish(s, &slots[i], true);
            procs[i] = NULL;
        }
    }
    free(slots);
    free(procs);
    return st;
}
