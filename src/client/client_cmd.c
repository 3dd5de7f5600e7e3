/* SPDX-License-Identifier: MIT */
/* client_cmd.c: the streaming client's command driver (rl_client_cmd_run, client_driver.h).
 * Each request is `/bin/sh -c COMMAND` started through proc.h's asynchronous API with the
 * prompt on its stdin; every write of it to stdout is one chunk, stamped by proc.h with the
 * kernel's time of that write (stdout is a Unix SEQPACKET socket with SO_TIMESTAMPNS; loopback
 * TCP's receive time, or right after read() returned, where refused; absolute CLOCK_MONOTONIC = the
 * child's spawn time + the offset proc.h passes). Up to `concurrency` children run at once, all
 * served by one poll loop.
 *
 * Children are spawned by a helper thread (fork and the wait for exec take milliseconds on a
 * loaded machine), so the poll loop keeps reading the other children meanwhile; a new child is
 * taken into the poll set within 1 ms of its start, and its stdin (the prompt) is fed from then.
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
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_driver.h"
#include "base/rl_url.h"
#include "base/proc.h"
#include "base/rl_util.h"

#define KEEP_BYTES 4096 /* per stream kept by proc.h: stderr's head gives the error line */

enum { SLOT_FREE = 0, SLOT_QUEUED, SLOT_SPAWNING, SLOT_SPAWNED, SLOT_RUNNING };

typedef struct {
    int state;     /* SLOT_*; QUEUED..SPAWNED change under the spawner's mutex */
    rl_proc *proc; /* when RUNNING */
    rl_client_result *res;
    int64_t start_ns;
    double timeout;
    bool oom;
    char *vis; /* a read without its terminal control sequences (rl_term_strip_run) */
    size_t vis_cap;
    const rl_client_sched *s;
    const char *argv[4];
    rl_proc_opts opts;
    /* the spawner's answer */
    rl_proc *started;
    rl_status spawn_st;
    char spawn_msg[256];
    int64_t spawn_t0;
} slot;

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    slot *slots;
    size_t n;
    bool quit;
} spawner;

static void on_output(void *ud, int stream, const char *data, size_t n, double t)
{
    slot *sl = ud;
    if (stream != RL_PROC_STDOUT || !sl->res)
        return;
    int64_t t_ns = sl->start_ns + (int64_t)llround(t * 1e9);
    size_t before = sl->res->n_chunks;
    rl_error e;
    if (n > sl->vis_cap) {
        char *v = realloc(sl->vis, n);
        if (v == NULL) {
            sl->oom = true;
            return;
        }
        sl->vis = v;
        sl->vis_cap = n;
    }
    sl->res->raw_total += n;
    size_t vis = rl_term_strip_run(&sl->res->term, data, n, sl->vis);
    if (rl_client_result_append(sl->res, t_ns, sl->vis, vis, &e) != RL_OK)
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
    /* a URL in the child's message keeps no credential (rl_url.h) */
    char *red = res->error ? rl_url_redact(res->error) : NULL;
    if (red) {
        free(res->error);
        res->error = red;
    }
}

/* Prepare sl for job; the child is started by the spawner thread (spawn_main). */
static rl_status prepare(const rl_client_cmd_cfg *cfg, const rl_client_sched *s, slot *sl,
                         const rl_client_job *job, rl_error *err)
{
    char *vis = sl->vis; /* the read buffer outlives the request: kept for the next one */
    size_t vis_cap = sl->vis_cap;
    memset(sl, 0, sizeof *sl);
    sl->vis = vis;
    sl->vis_cap = vis_cap;
    sl->s = s;
    sl->timeout = job->timeout;
    sl->res = rl_client_result_new(job->index, 1);
    if (!sl->res)
        return rl_fail(err, RL_EINTERNAL, "out of memory starting a request");
    sl->argv[0] = "/bin/sh";
    sl->argv[1] = "-c";
    sl->argv[2] = cfg->command;
    sl->argv[3] = NULL;
    rl_proc_opts *o = &sl->opts;
    o->argv = sl->argv;
    o->stdin_data = job->prompt ? job->prompt : "";
    o->stdin_len = job->prompt ? job->prompt_len : 0;
    o->timeout = job->timeout;
    o->keep_head = KEEP_BYTES;
    o->keep_tail = KEEP_BYTES;
    o->on_output = on_output;
    o->ud = sl;
    o->stamp_kernel = true; /* chunks stamped when written, not when read (proc.h) */
    sl->state = SLOT_QUEUED;
    return RL_OK;
}

/* The spawner thread: fork and exec wait for the child to run, which under load takes
 * milliseconds; done here, the poll loop keeps reading (and timestamping) the other children
 * meanwhile. It starts every queued slot and marks it started. */
static void *spawn_main(void *arg)
{
    spawner *sp = arg;
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        slot *sl = NULL;
        for (size_t i = 0; i < sp->n && !sl; i++)
            if (sp->slots[i].state == SLOT_QUEUED)
                sl = &sp->slots[i];
        if (!sl) {
            if (sp->quit)
                break;
            pthread_cond_wait(&sp->cv, &sp->mu);
            continue;
        }
        sl->state = SLOT_SPAWNING;
        pthread_mutex_unlock(&sp->mu);
        rl_proc *p = NULL;
        rl_error e;
        sl->spawn_t0 = rl_proc_now_ns();
        sl->spawn_st = rl_proc_start(&sl->opts, &p, &e);
        if (sl->spawn_st != RL_OK)
            memcpy(sl->spawn_msg, e.msg, sizeof sl->spawn_msg);
        pthread_mutex_lock(&sp->mu);
        sl->started = p;
        sl->state = SLOT_SPAWNED;
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

/* Take the children the spawner started into the poll set; spawn failures become failed
 * results handed to done() at once. Returns RL_EINTERRUPTED when a spawn was refused for
 * Ctrl-C. Called with the mutex not held. */
static rl_status adopt(spawner *sp, rl_proc **procs, size_t *pending)
{
    rl_status st = RL_OK;
    pthread_mutex_lock(&sp->mu);
    for (size_t i = 0; i < sp->n; i++) {
        slot *sl = &sp->slots[i];
        if (sl->state != SLOT_SPAWNED)
            continue;
        (*pending)--;
        if (sl->spawn_st == RL_OK) {
            sl->proc = sl->started;
            sl->start_ns = rl_proc_start_ns(sl->proc);
            sl->state = SLOT_RUNNING;
            procs[i] = sl->proc;
            continue;
        }
        sl->state = SLOT_FREE;
        if (sl->spawn_st == RL_EINTERRUPTED) {
            rl_client_result_free(sl->res);
            sl->res = NULL;
            st = RL_EINTERRUPTED;
            continue;
        }
        sl->res->send_ns = sl->res->end_ns = sl->spawn_t0;
        sl->res->error = rl_asprintf("cannot start /bin/sh: %s", sl->spawn_msg);
        rl_client_result *res = sl->res;
        sl->res = NULL;
        pthread_mutex_unlock(&sp->mu);
        sl->s->done(sl->s->ctx, res);
        pthread_mutex_lock(&sp->mu);
    }
    pthread_mutex_unlock(&sp->mu);
    return st;
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
    sl->state = SLOT_FREE;
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

/* Stop the spawner (it finishes the spawn in hand), then every child still here is stopped
 * and reported; queued slots are dropped. */
static void stop_all(const rl_client_sched *s, spawner *sp, rl_proc **procs, pthread_t th,
                     size_t *pending, rl_proc_prio *prio)
{
    pthread_mutex_lock(&sp->mu);
    sp->quit = true;
    for (size_t i = 0; i < sp->n; i++)
        if (sp->slots[i].state == SLOT_QUEUED) {
            sp->slots[i].state = SLOT_FREE;
            rl_client_result_free(sp->slots[i].res);
            sp->slots[i].res = NULL;
            (*pending)--;
        }
    pthread_cond_signal(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
    pthread_join(th, NULL);
    rl_proc_reader_priority_end(prio);
    if (*pending)
        adopt(sp, procs, pending);
    for (size_t i = 0; i < sp->n; i++) {
        if (sp->slots[i].state == SLOT_RUNNING) {
            finish(s, &sp->slots[i], true);
            procs[i] = NULL;
        }
    }
}

rl_status rl_client_cmd_run(const rl_client_cmd_cfg *cfg, const rl_client_sched *s, rl_error *err)
{
    size_t n = cfg->concurrency ? cfg->concurrency : 1;
    spawner sp = {0};
    sp.n = n;
    sp.slots = rl_calloc(n, sizeof *sp.slots);
    rl_proc **procs = rl_calloc(n, sizeof *procs);
    pthread_t th;
    if (!sp.slots || !procs) {
        free(sp.slots);
        free(procs);
        return rl_fail(err, RL_EINTERNAL, "out of memory for %zu request slots", n);
    }
    pthread_mutex_init(&sp.mu, NULL);
    pthread_cond_init(&sp.cv, NULL);
    if (pthread_create(&th, NULL, spawn_main, &sp) != 0) {
        pthread_mutex_destroy(&sp.mu);
        pthread_cond_destroy(&sp.cv);
        free(sp.slots);
        free(procs);
        return rl_fail(err, RL_EINTERNAL, "cannot start the process-spawning thread");
    }
    /* only this reading thread is raised (the spawner started before; children reset) */
    rl_proc_prio prio;
    rl_proc_reader_priority_begin(&prio);
    rl_status st = RL_OK;
    bool over = false;
    size_t pending = 0; /* slots queued or being spawned */
    for (;;) {
        if (rl_interrupted) {
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
            break;
        }
        if (pending && adopt(&sp, procs, &pending) == RL_EINTERRUPTED) {
            st = rl_fail(err, RL_EINTERRUPTED, "interrupted");
            break;
        }
        int64_t wake = INT64_MAX;
        size_t busy = 0, running = 0;
        pthread_mutex_lock(&sp.mu);
        for (size_t i = 0; i < n; i++) {
            busy += sp.slots[i].state != SLOT_FREE;
            running += sp.slots[i].state == SLOT_RUNNING;
        }
        pthread_mutex_unlock(&sp.mu);
        while (!over && busy < n) {
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
            pthread_mutex_lock(&sp.mu);
            size_t k = 0;
            while (sp.slots[k].state != SLOT_FREE)
                k++;
            st = prepare(cfg, s, &sp.slots[k], &job, err);
            pthread_cond_signal(&sp.cv);
            pthread_mutex_unlock(&sp.mu);
            if (st != RL_OK)
                break;
            busy++;
            pending++;
        }
        if (st != RL_OK)
            break;
        if (busy == 0) {
            if (over)
                break;
            sleep_until(wake == INT64_MAX ? rl_proc_now_ns() + 10000000LL : wake);
            continue;
        }
        double max_wait = pending ? 0.001 : 0.1; /* adopt new children within 1 ms */
        if (wake != INT64_MAX) {
            double d = (double)(wake - rl_proc_now_ns()) / 1e9;
            if (d < max_wait)
                max_wait = d < 0 ? 0 : d;
        }
        if (running == 0) {
            sleep_until(rl_proc_now_ns() + (int64_t)(max_wait * 1e9));
            continue;
        }
        st = rl_proc_wait(procs, n, max_wait, err);
        for (size_t i = 0; i < n; i++) {
            if (sp.slots[i].state == SLOT_RUNNING &&
                (st != RL_OK || rl_proc_done(sp.slots[i].proc))) {
                finish(s, &sp.slots[i], st == RL_EINTERRUPTED);
                procs[i] = NULL;
            }
        }
        if (st != RL_OK)
            break;
    }
    stop_all(s, &sp, procs, th, &pending, &prio);
    pthread_mutex_destroy(&sp.mu);
    pthread_cond_destroy(&sp.cv);
    for (size_t i = 0; i < n; i++)
        free(sp.slots[i].vis);
    free(sp.slots);
    free(procs);
    return st;
}
