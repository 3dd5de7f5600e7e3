/* SPDX-License-Identifier: MIT */
/* test_proc.c: unit tests for proc.c with small /bin/sh children.
 *
 * Every test was seen failing once against a deliberately broken proc.c (the break is named
 * in a "Checked:" comment above each test), then the code was restored. Time bounds are loose
 * (machines are noisy); the lower bounds they check are exact (a sleep cannot end early).
 * The fallback without a pidfd (pidfd forced to -1) was also run through the whole file once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"

/* Run `sh -c script` with opts (argv replaced); asserts the status. */
static void run_sh(const char *script, rl_proc_opts *o, rl_proc_result *res, rl_status want)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    o->argv = argv;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_proc_run(o, res, &e);
    if (st != want)
        fprintf(stderr, "status %d (%s) for: %s\n", st, e.msg, script);
    assert_int_equal(st, want);
}

static void assert_bytes(const char *got, size_t n, const char *want)
{
    assert_int_equal(n, strlen(want));
    assert_memory_equal(got ? got : "", want, n);
}

static double now_s(void)
{
    return (double)rl_proc_now_ns() / 1e9;
}

/* Checked: swapping the stdout/stderr pipes in child_exec fails the exact-bytes asserts. */
static void test_both_streams(void **state)
{
    (void)state;
    rl_proc_opts o = {0};
    rl_proc_result r;
    run_sh("printf 'out 1\\n'; printf 'err 1\\n' >&2; printf 'out 2'", &o, &r, RL_OK);
    assert_bytes(r.out.head, r.out.head_len, "out 1\nout 2");
    assert_bytes(r.err.head, r.err.head_len, "err 1\n");
    assert_int_equal(r.out.total, 11);
    assert_false(r.out.truncated);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.term_signal, 0);
    assert_false(r.timed_out);
    assert_false(r.interrupted);
    assert_true(r.elapsed >= 0 && r.elapsed < 5);
    rl_proc_result_free(&r);
    assert_null(r.out.head);
}

/* Checked: not writing stdin (closing it at once) fails the content compare. */
static void test_stdin_passthrough(void **state)
{
    (void)state;
    size_t n = 300000; /* several pipe buffers: reading and writing must interleave */
    char *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + i % 23);
    const char *argv[] = {"cat", NULL}; /* bare name: found through PATH */
    rl_proc_opts o = {.argv = argv, .stdin_data = data, .stdin_len = n, .keep_head = n};
    rl_proc_result r;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_proc_run(&o, &r, &e), RL_OK);
    assert_int_equal(r.out.total, n);
    assert_int_equal(r.out.head_len, n);
    assert_memory_equal(r.out.head, data, n);
    assert_int_equal(r.exit_code, 0);
    rl_proc_result_free(&r);
    /* no stdin given: /dev/null, so cat ends at once */
    o.stdin_data = NULL;
    assert_int_equal(rl_proc_run(&o, &r, &e), RL_OK);
    assert_int_equal(r.out.total, 0);
    rl_proc_result_free(&r);
    free(data);
}

/* Checked: removing the SIGPIPE block in write_nosigpipe kills this test binary. */
static void test_stdin_to_exited_child(void **state)
{
    (void)state;
    size_t n = 4 << 20;
    char *data = calloc(1, n);
    assert_non_null(data);
    rl_proc_opts o = {.stdin_data = data, .stdin_len = n};
    rl_proc_result r;
    run_sh("exit 0", &o, &r, RL_OK);
    assert_int_equal(r.exit_code, 0);
    sigset_t pending;
    sigpending(&pending);
    assert_false(sigismember(&pending, SIGPIPE));
    rl_proc_result_free(&r);
    free(data);
}

/* Checked: reporting WEXITSTATUS as 0 / not decoding WTERMSIG fails these. */
static void test_exit_code_and_signal(void **state)
{
    (void)state;
    rl_proc_opts o = {0};
    rl_proc_result r;
    run_sh("echo bye; exit 3", &o, &r, RL_OK); /* non-zero exit is not an error status */
    assert_int_equal(r.exit_code, 3);
    assert_int_equal(r.term_signal, 0);
    assert_bytes(r.out.head, r.out.head_len, "bye\n");
    rl_proc_result_free(&r);
    run_sh("kill -9 $$", &o, &r, RL_OK);
    assert_int_equal(r.exit_code, -1);
    assert_int_equal(r.term_signal, SIGKILL);
    rl_proc_result_free(&r);
}

/* Checked: dropping the exec-error pipe read (treating every fork as success) makes both
 * cases RL_OK with exit 127. */
static void test_missing_program(void **state)
{
    (void)state;
    const char *argv[] = {"rl-no-such-program-7f3a", "--x", NULL};
    rl_proc_opts o = {.argv = argv};
    rl_proc_result r;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_proc_run(&o, &r, &e), RL_EMISSING);
    assert_non_null(strstr(e.msg, "rl-no-such-program-7f3a"));
    assert_null(strchr(e.msg, '\n'));
    rl_proc_result_free(&r);

    /* a file that is not executable: EACCES */
    const char *tmp = getenv("RL_TMP");
    char path[4096];
    snprintf(path, sizeof path, "%s/test_proc_noexec.sh", tmp ? tmp : "/tmp");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\necho hi\n", f);
    fclose(f);
    chmod(path, 0644);
    argv[0] = path;
    assert_int_equal(rl_proc_run(&o, &r, &e), RL_EMISSING);
    assert_non_null(strstr(e.msg, path));
    rl_proc_result_free(&r);
    remove(path);
}

/* Checked: dropping the extra entries from build_env prints an empty value. */
static void test_extra_env(void **state)
{
    (void)state;
    const char *env[] = {"RL_PROC_TEST=hello world", "HOME=/rl-home", NULL};
    rl_proc_opts o = {.env = env};
    rl_proc_result r;
    run_sh("printf '%s|%s|%s' \"$RL_PROC_TEST\" \"$HOME\" \"${PATH:+path}\"", &o, &r, RL_OK);
    assert_bytes(r.out.head, r.out.head_len, "hello world|/rl-home|path");
    rl_proc_result_free(&r);
}

/* 1 if pid is gone (no such process, or a zombie waiting for init). */
static int pid_gone(long pid)
{
    char p[64], buf[256];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* Checked: without the SIGKILL escalation in tick() the TERM-ignoring child runs its full 30 s
 * and the elapsed bound fails. */
static void test_timeout_term_ignored(void **state)
{
    (void)state;
    rl_proc_opts o = {.timeout = 1.0};
    rl_proc_result r;
    double t0 = now_s();
    run_sh("trap '' TERM; echo started; sleep 30", &o, &r, RL_OK);
    double dt = now_s() - t0;
    assert_true(r.timed_out);
    assert_true(r.elapsed >= 1.0);
    assert_true(dt < 1.0 + 3.0); /* timeout + 1 s grace + noise */
    assert_int_equal(r.term_signal, SIGKILL);
    assert_bytes(r.out.head, r.out.head_len, "started\n"); /* partial output kept */
    rl_proc_result_free(&r);
}

/* Checked: signalling the pid instead of the group (kill(p->pid, sig) in signal_group, and no
 * leftover kill in try_reap) leaves the grandchild alive and fails both bounds. */
static void test_timeout_kills_grandchild(void **state)
{
    (void)state;
    rl_proc_opts o = {.timeout = 1.0};
    rl_proc_result r;
    double t0 = now_s();
    run_sh("sleep 30 & echo $!; sleep 30", &o, &r, RL_OK);
    double dt = now_s() - t0;
    assert_true(r.timed_out);
    assert_non_null(r.out.head);
    char pidtxt[32] = "";
    memcpy(pidtxt, r.out.head, r.out.head_len < 31 ? r.out.head_len : 31);
    long gpid = strtol(pidtxt, NULL, 10);
    assert_true(gpid > 1);
    for (int i = 0; i < 50 && !pid_gone(gpid); i++) /* let the kernel finish the kill */
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    assert_true(pid_gone(gpid));
    assert_true(dt < 1.0 + 3.0);
    rl_proc_result_free(&r);
}

/* Checked: removing the leftover kill in try_reap makes this wait the 2 s drain bound and
 * leaves the background sleep alive. */
static void test_leftovers_killed_on_exit(void **state)
{
    (void)state;
    rl_proc_opts o = {0};
    rl_proc_result r;
    double t0 = now_s();
    run_sh("sleep 30 & echo $!", &o, &r, RL_OK);
    assert_true(now_s() - t0 < 1.5);
    assert_int_equal(r.exit_code, 0);
    long gpid = strtol(r.out.head, NULL, 10);
    for (int i = 0; i < 50 && !pid_gone(gpid); i++)
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    assert_true(pid_gone(gpid));
    rl_proc_result_free(&r);
}

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void count_bytes(void *ud, int stream, const char *data, size_t n, double t)
{
    (void)stream, (void)data, (void)t;
    *(uint64_t *)ud += n;
}

/* Checked: making keep() ignore keep_head (the head grows without bound) fails the RSS bound,
 * which is asserted before the size bounds for that reason. */
static void test_flood_is_bounded(void **state)
{
    (void)state;
    uint64_t seen = 0;
    rl_proc_opts o = {.keep_head = 4096, .keep_tail = 8192, .on_output = count_bytes, .ud = &seen};
    rl_proc_result r;
    long rss0 = max_rss_kb();
    run_sh("head -c 100000000 /dev/zero; echo tail-end", &o, &r, RL_OK);
    assert_true(max_rss_kb() - rss0 < 30 * 1024); /* 100 MB kept would be > 97000 KiB */
    assert_int_equal(r.out.total, 100000009);
    assert_int_equal(seen, 100000009);
    assert_true(r.out.truncated);
    assert_int_equal(r.out.head_len, 4096);
    assert_int_equal(r.out.tail_len, 8192);
    assert_memory_equal(r.out.tail + 8192 - 9, "tail-end\n", 9);
    char *kept = rl_proc_kept_text(&r.out);
    assert_non_null(kept);
    const char *mid = "\n[... 99987721 bytes omitted ...]\n"; /* kept starts with NULs */
    assert_memory_equal(kept + 4096, mid, strlen(mid));
    free(kept);
    rl_proc_result_free(&r);
}

/* Checked: an off-by-one in ring_put's write position ((pos + n + 1) % cap) fails the tail
 * compare; the 1000 lines arrive in many chunks of varying size, so the ring wraps often. */
static void test_head_and_tail_exact(void **state)
{
    (void)state;
    char want[16000];
    size_t n = 0;
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "line%d\n", i);
    rl_proc_opts o = {.keep_head = 100, .keep_tail = 333};
    rl_proc_result r;
    run_sh("i=0; while [ $i -lt 1000 ]; do echo line$i; i=$((i+1)); done", &o, &r, RL_OK);
    assert_int_equal(r.out.total, n);
    assert_int_equal(r.out.head_len, 100);
    assert_memory_equal(r.out.head, want, 100);
    assert_int_equal(r.out.tail_len, 333);
    assert_memory_equal(r.out.tail, want + n - 333, 333);
    assert_true(r.out.truncated);
    char *kept = rl_proc_kept_text(&r.out);
    char mid[64];
    snprintf(mid, sizeof mid, "\n[... %zu bytes omitted ...]\n", n - 433);
    assert_int_equal(strlen(kept), 433 + strlen(mid));
    assert_memory_equal(kept + 100, mid, strlen(mid));
    free(kept);
    rl_proc_result_free(&r);

    run_sh("printf abc", &o, &r, RL_OK); /* not truncated: head only, no marker */
    kept = rl_proc_kept_text(&r.out);
    assert_string_equal(kept, "abc");
    free(kept);
    rl_proc_result_free(&r);
}

static void *set_interrupt_later(void *arg)
{
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    *(double *)arg = now_s();
    rl_interrupted = 1;
    return NULL;
}

/* Checked: with the rl_interrupted test removed from tick the child runs its 30 s and the
 * status/elapsed asserts fail. The flag is set from a thread, so poll is not interrupted and
 * the 100 ms poll backstop is what notices it. */
static void test_interrupt_from_thread(void **state)
{
    (void)state;
    double set_at = 0;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, set_interrupt_later, &set_at), 0);
    rl_proc_opts o = {0};
    rl_proc_result r;
    run_sh("echo started; sleep 30", &o, &r, RL_EINTERRUPTED);
    double back = now_s();
    pthread_join(th, NULL);
    assert_true(back - set_at < 1.5); /* 100 ms to notice + 500 ms grace + noise */
    assert_true(r.interrupted);
    assert_bytes(r.out.head, r.out.head_len, "started\n");
    rl_proc_result_free(&r);
    /* while the flag is set nothing new starts (o.argv pointed into run_sh's frame: set anew) */
    static const char *const again[] = {"sh", "-c", "echo started", NULL};
    o.argv = again;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_proc_run(&o, &r, &e), RL_EINTERRUPTED);
    assert_non_null(strstr(e.msg, "interrupted before starting sh"));
    rl_interrupted = 0;
}

static void on_alarm(int sig)
{
    (void)sig;
    rl_interrupted = 1;
}

/* Checked: same break as above; here the handler (no SA_RESTART, like main.c) makes poll
 * return EINTR. A child ignoring SIGTERM and SIGINT is still gone after the SIGKILL grace. */
static void test_interrupt_by_signal(void **state)
{
    (void)state;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    struct itimerval it = {{0, 0}, {0, 300000}};
    setitimer(ITIMER_REAL, &it, NULL);
    rl_proc_opts o = {0};
    rl_proc_result r;
    double t0 = now_s();
    run_sh("trap '' TERM INT; echo started; echo warn >&2; sleep 30", &o, &r, RL_EINTERRUPTED);
    assert_true(now_s() - t0 < 0.3 + 1.5);
    assert_true(r.interrupted);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_bytes(r.out.head, r.out.head_len, "started\n");
    assert_bytes(r.err.head, r.err.head_len, "warn\n");
    rl_proc_result_free(&r);
    sigaction(SIGALRM, &old, NULL);
    rl_interrupted = 0;
}

typedef struct {
    char out[256], err[256];
    size_t n_out, n_err;
    double t[64];
    int nt;
    int bad; /* a chunk arrived out of order in time */
} chunks;

static void collect(void *ud, int stream, const char *data, size_t n, double t)
{
    chunks *c = ud;
    char *dst = stream == RL_PROC_STDOUT ? c->out : c->err;
    size_t *len = stream == RL_PROC_STDOUT ? &c->n_out : &c->n_err;
    if (*len + n < 256) {
        memcpy(dst + *len, data, n);
        *len += n;
    }
    if (c->nt > 0 && t < c->t[c->nt - 1])
        c->bad = 1;
    if (t < 0)
        c->bad = 1;
    if (c->nt < 64)
        c->t[c->nt++] = t;
}

/* Checked: passing a constant t = 0 fails the timing bound; calling the callback with the
 * streams swapped fails the per-stream compare. */
static void test_callback_order_and_timing(void **state)
{
    (void)state;
    chunks c;
    memset(&c, 0, sizeof c);
    rl_proc_opts o = {.on_output = collect, .ud = &c};
    rl_proc_result r;
    run_sh("for i in 1 2 3 4; do echo o$i; echo e$i >&2; sleep 0.02; done", &o, &r, RL_OK);
    assert_bytes(c.out, c.n_out, "o1\no2\no3\no4\n");
    assert_bytes(c.err, c.n_err, "e1\ne2\ne3\ne4\n");
    assert_false(c.bad);
    assert_true(c.nt >= 2);
    assert_true(c.t[c.nt - 1] <= r.elapsed);
    rl_proc_result_free(&r);

    memset(&c, 0, sizeof c);
    run_sh("printf a; sleep 0.2; printf b", &o, &r, RL_OK);
    assert_int_equal(c.nt, 2);
    assert_bytes(c.out, c.n_out, "ab");
    assert_true(c.t[1] - c.t[0] >= 0.15);
    assert_true(c.t[1] - c.t[0] < 1.5);
    rl_proc_result_free(&r);
}

/* Checked: building the poll set from procs[0] only fails the per-child outputs (the other
 * children are never read); ignoring the caller's deadline (until) in serve() makes the 0.2 s
 * wait block until the 30 s child ends and fails the bound. */
static void test_async_concurrent(void **state)
{
    (void)state;
    enum { JOBS = 6, SLOTS = 4 };
    rl_proc *slot[SLOTS] = {0};
    int job_of[SLOTS];
    rl_proc_result res[JOBS];
    memset(res, 0, sizeof res);
    char script[JOBS][96];
    int next = 0, done = 0;
    rl_error e = {RL_OK, ""};
    double t0 = now_s();
    while (done < JOBS) {
        for (int s = 0; s < SLOTS; s++) {
            if (slot[s] || next >= JOBS)
                continue;
            snprintf(script[next], sizeof script[next],
                     "echo child %d; sleep 0.4; echo done %d >&2", next, next);
            const char *argv[] = {"sh", "-c", script[next], NULL};
            rl_proc_opts o = {.argv = argv, .timeout = 20};
            assert_int_equal(rl_proc_start(&o, &slot[s], &e), RL_OK);
            assert_true(rl_proc_pid(slot[s]) > 0);
            job_of[s] = next++;
        }
        assert_int_equal(rl_proc_wait(slot, SLOTS, -1, &e), RL_OK);
        for (int s = 0; s < SLOTS; s++) {
            if (slot[s] && rl_proc_done(slot[s])) {
                rl_proc_finish(slot[s], &res[job_of[s]]);
                slot[s] = NULL;
                done++;
            }
        }
    }
    double wall = now_s() - t0;
    assert_true(wall >= 0.8); /* two waves of 0.4 s */
    assert_true(wall < 2.0);  /* serially it would be >= 2.4 s */
    for (int j = 0; j < JOBS; j++) {
        char want[32];
        snprintf(want, sizeof want, "child %d\n", j);
        assert_bytes(res[j].out.head, res[j].out.head_len, want);
        snprintf(want, sizeof want, "done %d\n", j);
        assert_bytes(res[j].err.head, res[j].err.head_len, want);
        assert_int_equal(res[j].exit_code, 0);
        rl_proc_result_free(&res[j]);
    }

    /* the caller's deadline: wait returns while the child still runs; finish kills it */
    const char *argv[] = {"sh", "-c", "echo hi; sleep 30", NULL};
    rl_proc_opts o = {.argv = argv};
    rl_proc *p = NULL;
    assert_int_equal(rl_proc_start(&o, &p, &e), RL_OK);
    t0 = now_s();
    assert_int_equal(rl_proc_wait(&p, 1, 0.2, &e), RL_OK);
    assert_false(rl_proc_done(p));
    assert_true(now_s() - t0 >= 0.19);
    assert_true(now_s() - t0 < 1.5);
    rl_proc_result r;
    rl_proc_finish(p, &r);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_bytes(r.out.head, r.out.head_len, "hi\n");
    rl_proc_result_free(&r);
}

static int count_fds(void);

/* path exists within limit_s seconds */
static bool wait_file(const char *path, double limit_s)
{
    struct stat st;
    double t0 = now_s();
    struct timespec nap = {0, 5000000L};
    while (stat(path, &st) != 0) {
        if (now_s() - t0 > limit_s)
            return false;
        nanosleep(&nap, NULL);
    }
    return true;
}

/* No wall-clock bound on the child: it writes 'a', then makes a marker file and waits for a
 * go file; the parent reads nothing until 0.4 s after the marker, then makes the go file, and
 * the child writes 'b'. A kernel stamp puts 'a' at or before the marker and 'b' after the go,
 * so they are at least 0.4 s apart however slow the machine is; stamped at read time both
 * are read after the go, moments apart. Where the kernel gives no stamps (a network stack
 * without SO_TIMESTAMPNS) the note must say read time, with the counts.
 * Checked: kernel_stamp returning now (the read time) fails the gap assert. */
static void test_kernel_stamp(void **state)
{
    (void)state;
    int fds = count_fds();
    chunks c;
    memset(&c, 0, sizeof c);
    char dir[] = "/tmp/rl-stamp-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char script[512], marker[64], go[64];
    snprintf(marker, sizeof marker, "%s/marker", dir);
    snprintf(go, sizeof go, "%s/go", dir);
    snprintf(script, sizeof script,
             "printf a; : > %s; i=0; while [ ! -e %s ] && [ $i -lt 4000 ]; do sleep 0.005; "
             "i=$((i+1)); done; printf b",
             marker, go);
    const char *argv[] = {"sh", "-c", script, NULL};
    rl_proc_opts o = {
        .argv = argv, .timeout = 60, .on_output = collect, .ud = &c, .stamp_kernel = true};
    rl_proc *p = NULL;
    rl_error e = {RL_OK, ""};
    unsigned long got0, none0, bad0;
    rl_proc_stamp_counts(&got0, &none0, &bad0);
    assert_int_equal(rl_proc_start(&o, &p, &e), RL_OK);
    assert_int_equal(strncmp(rl_proc_stamp_note(), "kernel ", 7), 0);
    assert_true(wait_file(marker, 30));
    struct timespec nap = {0, 400000000L};
    nanosleep(&nap, NULL);
    FILE *f = fopen(go, "w");
    assert_non_null(f);
    fclose(f);
    while (!rl_proc_done(p))
        assert_int_equal(rl_proc_wait(&p, 1, -1, &e), RL_OK);
    rl_proc_result r;
    rl_proc_finish(p, &r);
    assert_int_equal(r.exit_code, 0);
    assert_bytes(c.out, c.n_out, "ab");
    assert_int_equal(c.nt, 2);
    unsigned long got, none, bad;
    rl_proc_stamp_counts(&got, &none, &bad);
    if (got - got0 == 2) { /* both stamped by the kernel */
        assert_true(c.t[1] - c.t[0] >= 0.4);
        assert_non_null(strstr(rl_proc_stamp_note(), "kernel send time (SO_TIMESTAMPNS on a Unix "
                                                     "SEQPACKET socket"));
    } else { /* a network stack without receive stamps: the note must not claim them */
        print_message("no kernel stamps here (%lu of 2; %lu none, %lu outside): %s\n", got - got0,
                      none - none0, bad - bad0, rl_proc_stamp_note());
        assert_int_equal(got - got0 + none - none0 + bad - bad0, 2);
        if (got == got0) /* read time: both read after the go, moments apart */
            assert_true(c.t[1] - c.t[0] < 0.4);
        const char *want = got == got0 ? "read time (the kernel stamped none" : "kernel time for ";
        assert_ptr_equal(strstr(rl_proc_stamp_note(), want), rl_proc_stamp_note());
    }
    assert_true(c.t[0] >= 0);
    assert_false(c.bad);
    rl_proc_result_free(&r);
    assert_int_equal(unlink(marker), 0);
    assert_int_equal(unlink(go), 0);
    assert_int_equal(rmdir(dir), 0);
    assert_int_equal(count_fds(), fds);

    /* the child's stdout is a blocking socket, SEQPACKET or (stamp_tcp) the loopback TCP
     * fallback: its fd 1 flags (octal) lack O_NONBLOCK */
    for (int tcp = 0; tcp < 2; tcp++) {
        rl_proc_opts o2 = {.timeout = 20, .stamp_kernel = true, .stamp_tcp = tcp};
        run_sh("grep '^flags' /proc/self/fdinfo/1", &o2, &r, RL_OK);
        assert_non_null(r.out.head);
        char line[64] = "";
        memcpy(line, r.out.head,
               r.out.head_len < sizeof line - 1 ? r.out.head_len : sizeof line - 1);
        unsigned long flags = 0;
        assert_int_equal(sscanf(line, "flags: %lo", &flags), 1);
        assert_int_equal(flags & O_NONBLOCK, 0);
        assert_int_equal(flags & O_ACCMODE, O_RDWR); /* a socket, not a pipe's write end */
        assert_non_null(
            strstr(rl_proc_stamp_note(), tcp ? "loopback TCP connection; SEQPACKET not asked for)"
                                             : "Unix SEQPACKET socket"));
        rl_proc_result_free(&r);
    }
}

/* A stamped stdout keeps every write whole and in order: empty writes (an empty message on
 * the SEQPACKET socket: not the end), a 200,000-byte write (longer than one read's 64 KiB:
 * read whole, delivered in pieces), and what follows them; the end is still seen. */
static void test_stamped_writes_whole(void **state)
{
    (void)state;
    rl_proc_opts o = {.timeout = 30, .stamp_kernel = true, .keep_head = 300000, .keep_tail = 1};
    rl_proc_result r;
    run_sh("python3 -c \"import os\nos.write(1, b'')\nos.write(1, b'a' * 200000)\n"
           "os.write(1, b'')\nos.write(1, b'end')\nos.write(1, b'')\"",
           &o, &r, RL_OK);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out.total, 200003);
    assert_int_equal(r.out.head_len, 200003);
    for (size_t i = 0; i < 200000; i++)
        if (r.out.head[i] != 'a')
            fail_msg("byte %zu is not 'a'", i);
    assert_memory_equal(r.out.head + 200000, "end", 3);
    assert_false(r.held_open); /* the end was seen, not waited out */
    rl_proc_result_free(&r);

    /* a process outside the child's group holding the stamped stdout: the drain ends it */
    rl_proc_opts o2 = {.timeout = 30, .stamp_kernel = true};
    char script[256], mark[] = "/tmp/rl-held-XXXXXX";
    int mfd = mkstemp(mark);
    assert_true(mfd >= 0);
    close(mfd);
    assert_int_equal(unlink(mark), 0);
    snprintf(script, sizeof script,
             "setsid sh -c ': > %s; exec sleep 4' & i=0; while [ ! -e %s ] && [ $i -lt 3000 ]; "
             "do sleep 0.01; i=$((i+1)); done; echo x",
             mark, mark);
    run_sh(script, &o2, &r, RL_OK);
    unlink(mark);
    assert_int_equal(r.exit_code, 0);
    assert_true(r.held_open);
    assert_bytes(r.out.head, r.out.head_len, "x\n");
    rl_proc_result_free(&r);
}

/* The stamp note from its counts: the set-up note while every read was stamped, else what
 * was not, with the counts. */
static void test_stamp_note_counts(void **state)
{
    (void)state;
    const char *k = "kernel receive time (SO_TIMESTAMPNS on a loopback TCP connection)";
    char buf[320];
    assert_ptr_equal(rl_proc_stamp_note_of(k, 5, 0, 0, buf, sizeof buf), k);
    assert_ptr_equal(rl_proc_stamp_note_of("read time (pipe)", 0, 3, 0, buf, sizeof buf),
                     (const char *)"read time (pipe)");
    assert_string_equal(rl_proc_stamp_note_of(k, 0, 2, 1, buf, sizeof buf),
                        "read time (the kernel stamped none of 3 reads: 2 without a stamp, 1 "
                        "outside the child's life)");
    assert_string_equal(rl_proc_stamp_note_of(k, 4, 1, 0, buf, sizeof buf),
                        "kernel time for 4 of 5 reads (SO_TIMESTAMPNS), read time for 1 without a "
                        "stamp and 0 outside the child's life");
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Checked: leaving the exec-error pipe's read end open fails the fd count; skipping the
 * waitpid after a failed exec leaves a zombie and fails the ECHILD check. */
static void test_no_fd_leaks_no_zombies(void **state)
{
    (void)state;
    int before = count_fds();
    rl_proc_opts o = {.stdin_data = "x\n", .stdin_len = 2, .timeout = 0.3};
    rl_proc_result r;
    for (int i = 0; i < 3; i++) {
        run_sh("cat; echo e >&2", &o, &r, RL_OK);
        rl_proc_result_free(&r);
        run_sh("sleep 5", &o, &r, RL_OK);
        assert_true(r.timed_out);
        rl_proc_result_free(&r);
        const char *argv[] = {"rl-no-such-program-7f3a", NULL};
        rl_proc_opts m = {.argv = argv};
        rl_error e;
        assert_int_equal(rl_proc_run(&m, &r, &e), RL_EMISSING);
        rl_proc_result_free(&r);
        rl_proc *p = NULL;
        const char *sl[] = {"sleep", "5", NULL};
        m.argv = sl;
        assert_int_equal(rl_proc_start(&m, &p, &e), RL_OK);
        rl_proc_finish(p, NULL); /* abandon a running child */
    }
    assert_int_equal(count_fds(), before);
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* Each test starts clean even when the one before failed half-way. */
static int reset(void **state)
{
    (void)state;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_DFL);
    rl_interrupted = 0;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_both_streams, reset),
        cmocka_unit_test_setup(test_stdin_passthrough, reset),
        cmocka_unit_test_setup(test_stdin_to_exited_child, reset),
        cmocka_unit_test_setup(test_exit_code_and_signal, reset),
        cmocka_unit_test_setup(test_missing_program, reset),
        cmocka_unit_test_setup(test_extra_env, reset),
        cmocka_unit_test_setup(test_timeout_term_ignored, reset),
        cmocka_unit_test_setup(test_timeout_kills_grandchild, reset),
        cmocka_unit_test_setup(test_leftovers_killed_on_exit, reset),
        cmocka_unit_test_setup(test_flood_is_bounded, reset),
        cmocka_unit_test_setup(test_head_and_tail_exact, reset),
        cmocka_unit_test_setup(test_interrupt_from_thread, reset),
        cmocka_unit_test_setup(test_interrupt_by_signal, reset),
        cmocka_unit_test_setup(test_callback_order_and_timing, reset),
        cmocka_unit_test_setup(test_async_concurrent, reset),
        cmocka_unit_test_setup(test_kernel_stamp, reset),
        cmocka_unit_test(test_stamp_note_counts),
        cmocka_unit_test_setup(test_stamped_writes_whole, reset),
        cmocka_unit_test_setup(test_no_fd_leaks_no_zombies, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
