/* SPDX-License-Identifier: MIT */
/* proc.c: spawn children in their own process group, serve their pipes in one poll loop,
 * enforce timeouts and interrupts, reap. See proc.h for the contract and memory ownership.
 *
 * Design notes:
 * - posix_spawnp (glibc: CLONE_VM | CLONE_VFORK, no page-table copy, so the parent's other
 *   threads take no copy-on-write faults): an exec failure is its return value, so the parent
 *   reports RL_EMISSING instead of seeing a silent exit 127.
 * - Every parent-side fd is O_CLOEXEC from creation (pipe2, open, pidfd), so children spawned
 *   by other threads or by the other concurrent children never hold our pipes open.
 * - Exit is noticed through a pidfd (Linux >= 5.3); without one the loop polls at most every
 *   20 ms. waitid(WNOWAIT) first sees the exit while the zombie still holds the group id, so
 *   SIGKILL to the group can clean up leftovers before waitpid frees the pid: no pid-reuse race.
 * - Poll never sleeps longer than 100 ms, so rl_interrupted is seen within 100 ms even when
 *   the signal arrives on another thread and poll is not interrupted. */
#include "base/proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

extern char **environ;

#define NS 1000000000LL
#define MS 1000000LL
#define POLL_MAX_NS (100 * MS)        /* backstop for noticing rl_interrupted */
#define POLL_NO_PIDFD_NS (20 * MS)    /* exit detection without a pidfd */
#define INTERRUPT_GRACE_NS (500 * MS) /* SIGTERM to SIGKILL on interrupt */
#define DRAIN_NS (2 * NS)             /* leader gone: wait this long for pipes to close */
#define INTERRUPT_DRAIN_NS (200 * MS) /* the same once interrupted: the second is promised */
#define LIVE_MAX 1024                 /* process groups rl_proc_kill_all can reach */
#define CHUNK 65536
#define SEQ_SNDBUF (4 << 20) /* a stamped stdout's largest write (SO_SNDBUF asked, or less) */
#define SEQ_EMPTY_MAX 16     /* empty messages looked past at the end of a SEQPACKET stream */

typedef struct {
    int fd;         /* read end, -1 once closed */
    bool kstamp;    /* a socket with SO_TIMESTAMPNS: reads are stamped by the kernel */
    bool seq;       /* a SOCK_SEQPACKET socket: one message a write, stamped when written */
    unsigned zeros; /* reads of 0 bytes in a row on it (empty messages, or the end) */
    char *head;
    size_t head_len, head_cap, keep_head;
    char *ring; /* last bytes: ring_len valid, oldest at ring_pos once full */
    size_t ring_len, ring_pos, ring_cap, keep_tail;
    uint64_t total;
} pstream;

struct rl_proc {
    pid_t pid;
    int pidfd, fd_in; /* -1 when absent or closed */
    char *in;         /* copy of stdin_data */
    size_t in_len, in_off;
    pstream s[2]; /* stdout, stderr */
    rl_proc_output_fn cb;
    void *ud;
    int64_t start_ns, end_ns, deadline_ns, kill_at_ns, drain_until_ns, grace_ns; /* 0 = unset */
    bool reaped, done, timed_out, interrupted, killed, held_open;
    int wstatus;
    bool status_known;
    int live_slot; /* index in live[], -1 when not listed */
    char name[160];
};

int64_t rl_proc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd); /* not retried on EINTR: on Linux the fd is gone either way */
        *fd = -1;
    }
}

/* ---- the live groups, for rl_proc_kill_all (a second Ctrl-C) ---- */

/* The process group ids of children spawned and not yet reaped; 0 marks a free slot. A slot is
 * claimed right after posix_spawn returns (with SIGINT and SIGTERM blocked in the spawning
 * thread) and freed while the exited leader is still a zombie, so its id cannot have been
 * reused while it is listed. Lock-free atomics: read from a signal handler. */
static atomic_int live[LIVE_MAX];

static void live_add(rl_proc *p)
{
    for (int i = 0; i < LIVE_MAX; i++) {
        int zero = 0;
        if (atomic_compare_exchange_strong(&live[i], &zero, (int)p->pid)) {
            p->live_slot = i;
            return;
        }
    }
    p->live_slot = -1; /* full: this child is stopped by its own loop only */
}

static void live_remove(rl_proc *p)
{
    if (p->live_slot >= 0)
        atomic_store(&live[p->live_slot], 0);
    p->live_slot = -1;
}

void rl_proc_kill_all(void)
{
    for (int i = 0; i < LIVE_MAX; i++) {
        int pg = atomic_load(&live[i]);
        if (pg > 0)
            kill(-pg, SIGKILL);
    }
}

static void signal_group(rl_proc *p, int sig)
{
    if (!p->reaped) /* after reaping, the group id could belong to someone else */
        kill(-p->pid, sig);
}

/* ---- output keeping: bounded head + ring tail ---- */

static void ring_put(pstream *s, const char *d, size_t n)
{
    size_t cap = s->ring_cap;
    if (n >= cap) {
        memcpy(s->ring, d + n - cap, cap);
        s->ring_pos = 0;
        s->ring_len = cap;
        return;
    }
    size_t first = cap - s->ring_pos < n ? cap - s->ring_pos : n;
    memcpy(s->ring + s->ring_pos, d, first);
    memcpy(s->ring, d + first, n - first);
    s->ring_pos = (s->ring_pos + n) % cap;
    s->ring_len = s->ring_len + n < cap ? s->ring_len + n : cap;
}

/* Out of memory only shortens what is kept; total stays exact and truncated says so. */
static void keep(pstream *s, const char *d, size_t n)
{
    s->total += n;
    if (s->head_len < s->keep_head) {
        size_t take = s->keep_head - s->head_len < n ? s->keep_head - s->head_len : n;
        if (s->head_len + take > s->head_cap) {
            size_t cap = s->head_cap ? s->head_cap * 2 : 4096;
            if (cap < s->head_len + take)
                cap = s->head_len + take;
            if (cap > s->keep_head)
                cap = s->keep_head;
            char *h = realloc(s->head, cap);
            if (h) {
                s->head = h;
                s->head_cap = cap;
            } else {
                s->keep_head = s->head_len; /* stop growing the head */
                take = 0;
            }
        }
        memcpy(s->head + s->head_len, d, take);
        s->head_len += take;
        d += take;
        n -= take;
    }
    if (n == 0 || s->keep_tail == 0)
        return;
    if (!s->ring) {
        s->ring = malloc(s->keep_tail);
        if (!s->ring) {
            s->keep_tail = 0;
            return;
        }
        s->ring_cap = s->keep_tail;
    }
    ring_put(s, d, n);
}

static void reverse(char *a, size_t lo, size_t hi)
{
    while (lo + 1 < hi) {
        char c = a[lo];
        a[lo++] = a[--hi];
        a[hi] = c;
    }
}

static void stream_move(pstream *s, rl_proc_stream *o)
{
    if (s->ring_len == s->ring_cap && s->ring_pos) { /* unroll the ring in place */
        reverse(s->ring, 0, s->ring_pos);
        reverse(s->ring, s->ring_pos, s->ring_cap);
        reverse(s->ring, 0, s->ring_cap);
    }
    o->head = s->head;
    o->head_len = s->head_len;
    o->tail = s->ring;
    o->tail_len = s->ring_len;
    o->total = s->total;
    o->truncated = s->total > (uint64_t)s->head_len + s->ring_len;
    s->head = s->ring = NULL;
}

char *rl_proc_kept_text(const rl_proc_stream *s)
{
    char mid[80] = "";
    if (s->truncated)
        snprintf(mid, sizeof mid, "\n[... %llu bytes omitted ...]\n",
                 (unsigned long long)(s->total - s->head_len - s->tail_len));
    size_t m = strlen(mid);
    char *t = malloc(s->head_len + m + s->tail_len + 1);
    if (!t)
        return NULL;
    if (s->head_len)
        memcpy(t, s->head, s->head_len);
    memcpy(t + s->head_len, mid, m);
    if (s->tail_len)
        memcpy(t + s->head_len + m, s->tail, s->tail_len);
    t[s->head_len + m + s->tail_len] = '\0';
    return t;
}

void rl_proc_result_free(rl_proc_result *res)
{
    if (!res)
        return;
    free(res->out.head);
    free(res->out.tail);
    free(res->err.head);
    free(res->err.tail);
    memset(res, 0, sizeof *res);
}

/* ---- spawning ---- */

/* Start argv with fds[0..2] as its standard streams, in a process group of its own, SIGPIPE,
 * SIGINT and SIGTERM at their defaults (an inherited "ignore" would defeat the forwarding) and
 * no signal blocked. posix_spawnp: glibc starts the child with CLONE_VM | CLONE_VFORK, so no
 * page table is copied; after a fork() every page the parent's other threads touch takes a
 * copy-on-write fault and a TLB shootdown until the child execs, which on a small VM delayed
 * the reading thread (and so its chunk timestamps) by milliseconds. An exec failure comes back
 * as the return value. Returns 0 or an errno value. */
static int spawn_child(const char *const *argv, char *const *envp, const int fds[3], pid_t *pid)
{
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    int rc = posix_spawnattr_init(&at);
    if (rc)
        return rc;
    rc = posix_spawn_file_actions_init(&fa);
    if (rc) {
        posix_spawnattr_destroy(&at);
        return rc;
    }
    sigset_t dflt, none;
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    sigemptyset(&none);
    rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                           POSIX_SPAWN_SETSIGMASK);
    if (!rc)
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&at, &dflt);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&at, &none);
    for (int i = 0; !rc && i < 3; i++) /* the fds are all >= 3, so no dup2 clobbers another */
        rc = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
    if (!rc)
        rc = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

/* Move fd above the standard three (the parent may run with 0, 1 or 2 closed); keeps
 * CLOEXEC. Returns the fd, or -1 with the original closed. */
static int lift(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int n = fcntl(fd, F_DUPFD_CLOEXEC, 3), e = errno;
    close(fd);
    errno = e;
    return n;
}

static bool same_name(const char *a, const char *b)
{
    while (*a && *a == *b && *a != '=')
        a++, b++;
    return (*a == '=' || !*a) && (*b == '=' || !*b);
}

/* environ without the names in extra, then extra. The array is malloc'd; strings are not. */
static char **build_env(const char *const *extra)
{
    size_t ne = 0, nx = 0;
    while (environ && environ[ne])
        ne++;
    while (extra[nx])
        nx++;
    char **env = calloc(ne + nx + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < ne; i++) {
        bool replaced = false;
        for (size_t j = 0; j < nx && !replaced; j++)
            replaced = same_name(environ[i], extra[j]);
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < nx; j++)
        env[k++] = (char *)extra[j];
    return env;
}

static rl_status exec_error(int e, const char *name, rl_error *err)
{
    if (e == ENOENT || e == EACCES || e == ENOTDIR || e == ENOEXEC || e == ELOOP || e == EPERM)
        return rl_fail(err, RL_EMISSING,
                       "cannot run %s: %s (install it, put it on PATH, or make it executable)",
                       name, strerror(e));
    return rl_fail(err, RL_EINTERNAL, "cannot run %s: %s", name, strerror(e));
}

static void free_proc(rl_proc *p)
{
    live_remove(p);
    close_fd(&p->pidfd);
    close_fd(&p->fd_in);
    for (int k = 0; k < 2; k++) {
        close_fd(&p->s[k].fd);
        free(p->s[k].head);
        free(p->s[k].ring);
    }
    free(p->in);
    free(p);
}

/* ---- kernel-stamped stdout ---- */

static char stamp_note[160] = "read time (pipe)";
/* reads of kernel-stamped streams since the process began: stamped by the kernel, given no
 * stamp (a network stack without SO_TIMESTAMPNS), given one outside the child's life */
static _Atomic unsigned long kstamp_got, kstamp_none, kstamp_bad;

void rl_proc_stamp_counts(unsigned long *got, unsigned long *none, unsigned long *bad)
{
    *got = kstamp_got;
    *none = kstamp_none;
    *bad = kstamp_bad;
}

const char *rl_proc_stamp_note_of(const char *setup, unsigned long got, unsigned long none,
                                  unsigned long bad, char *buf, size_t cap)
{
    if (strncmp(setup, "kernel", 6) != 0 || (none == 0 && bad == 0))
        return setup;
    if (got == 0)
        rl_snprintf(buf, cap,
                    "read time (the kernel stamped none of %lu reads: %lu without a stamp, %lu "
                    "outside the child's life)",
                    none + bad, none, bad);
    else
        rl_snprintf(buf, cap,
                    "kernel time for %lu of %lu reads (SO_TIMESTAMPNS), read time for %lu "
                    "without a stamp and %lu outside the child's life",
                    got, got + none + bad, none, bad);
    return buf;
}

const char *rl_proc_stamp_note(void)
{
    static char note[320];
    unsigned long got, none, bad;
    rl_proc_stamp_counts(&got, &none, &bad);
    return rl_proc_stamp_note_of(stamp_note, got, none, bad, note, sizeof note);
}

#define STAMP_CONNECT_MS 1000 /* loopback answers at once; a filtered lo must not hang a spawn */

/* fd ready for ev within ms (errno ETIMEDOUT when not). */
static bool wait_fd(int fd, short ev, int ms)
{
    struct pollfd pf = {.fd = fd, .events = ev};
    int r;
    while ((r = poll(&pf, 1, ms)) < 0 && errno == EINTR)
        ;
    if (r == 0)
        errno = ETIMEDOUT;
    return r > 0;
}

/* A non-blocking connect finished within STAMP_CONNECT_MS, then made blocking again (it
 * becomes the child's stdout). */
static bool connect_bounded(int c, const struct sockaddr_in *sa)
{
    if (connect(c, (const struct sockaddr *)sa, sizeof *sa) != 0) {
        int se = 0;
        socklen_t len = sizeof se;
        if (errno != EINPROGRESS || !wait_fd(c, POLLOUT, STAMP_CONNECT_MS) ||
            getsockopt(c, SOL_SOCKET, SO_ERROR, &se, &len) != 0)
            return false;
        if (se) {
            errno = se;
            return false;
        }
    }
    int fl = fcntl(c, F_GETFL);
    return fl >= 0 && fcntl(c, F_SETFL, fl & ~O_NONBLOCK) == 0;
}

/* A loopback TCP connection for a child's stdout: fd[0] the parent's end, receive times on
 * (SO_TIMESTAMPNS), fd[1] the child's (blocking; TCP_NODELAY: each write goes out at once).
 * Only the connection made here is taken: a foreign one accepted first fails it, and neither
 * the connect nor the accept waits over STAMP_CONNECT_MS. false with errno set (nothing left
 * open): the caller uses a pipe. */
static bool stamped_pair(int fd[2])
{
    fd[0] = fd[1] = -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr_in me, peer;
    socklen_t sl = sizeof sa, ml = sizeof me, pl = sizeof peer;
    int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), c = -1, a = -1;
    bool ok = l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 1) == 0 &&
              getsockname(l, (struct sockaddr *)&sa, &sl) == 0;
    ok = ok && (c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) >= 0 &&
         connect_bounded(c, &sa) && getsockname(c, (struct sockaddr *)&me, &ml) == 0;
    ok = ok && wait_fd(l, POLLIN, STAMP_CONNECT_MS) &&
         (a = accept4(l, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC)) >= 0;
    ok = ok && peer.sin_port == me.sin_port && peer.sin_addr.s_addr == me.sin_addr.s_addr;
    ok = ok && setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0 &&
         setsockopt(a, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
    int e = errno;
    if (l >= 0)
        close(l);
    if (!ok) {
        if (c >= 0)
            close(c);
        if (a >= 0)
            close(a);
        errno = e ? e : EPROTO;
        return false;
    }
    fd[0] = a;
    fd[1] = c;
    return true;
}

/* A Unix SOCK_SEQPACKET pair for a child's stdout: every write() of the child is one message,
 * stamped by the kernel as it is written (SO_TIMESTAMPNS on fd[0], the parent's end), so a
 * reader that runs late neither merges writes nor stamps them late. fd[1], the child's end, has
 * the largest send buffer allowed (SEQ_SNDBUF; a single write above it fails with EMSGSIZE,
 * docs/CLI.md). false with errno set (nothing left open). */
static bool seq_pair(int fd[2])
{
    int one = 1, big = SEQ_SNDBUF;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fd) != 0)
        return false;
    if (setsockopt(fd[1], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big) != 0)
        (void)setsockopt(fd[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big); /* capped by wmem_max */
    if (setsockopt(fd[0], SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0)
        return true;
    int e = errno;
    close(fd[0]);
    close(fd[1]);
    fd[0] = fd[1] = -1;
    errno = e;
    return false;
}

/* The child's stdout: kernel-stamped when asked and possible (the note says which): a
 * SEQPACKET pair, else loopback TCP, else a pipe. fd[0] the parent's end. */
static bool stdout_pair(bool kstamp, bool tcp, int fd[2], bool *stamped, bool *seq)
{
    *stamped = *seq = false;
    if (kstamp) {
        if (!tcp && seq_pair(fd)) {
            *stamped = *seq = true;
            rl_snprintf(stamp_note, sizeof stamp_note,
                        "kernel send time (SO_TIMESTAMPNS on a Unix SEQPACKET socket: each write "
                        "one message)");
            return true;
        }
        int seq_errno = tcp ? 0 : errno;
        if (stamped_pair(fd)) {
            *stamped = true;
            rl_snprintf(stamp_note, sizeof stamp_note,
                        "kernel receive time (SO_TIMESTAMPNS on a loopback TCP connection; "
                        "SEQPACKET %s%s)",
                        tcp ? "not asked for" : "refused: ", tcp ? "" : strerror(seq_errno));
            return true;
        }
        rl_snprintf(stamp_note, sizeof stamp_note, "read time (pipe: loopback TCP refused: %s)",
                    strerror(errno));
    }
    return pipe2(fd, O_CLOEXEC) == 0;
}

rl_status rl_proc_start(const rl_proc_opts *o, rl_proc **out, rl_error *err)
{
    *out = NULL;
    if (!o || !o->argv || !o->argv[0])
        return rl_fail(err, RL_EINTERNAL, "rl_proc_start: no program given (empty argv)");
    const char *prog = o->argv[0];
    if (rl_interrupted)
        return rl_fail(err, RL_EINTERRUPTED, "interrupted before starting %s", prog);
    rl_proc *p = calloc(1, sizeof *p);
    char **envp = o->env && o->env[0] ? build_env(o->env) : environ;
    if (!p || !envp || (o->stdin_data && o->stdin_len && !(p->in = malloc(o->stdin_len)))) {
        if (envp != environ)
            free(envp);
        free(p);
        return rl_fail(err, RL_EINTERNAL, "out of memory starting %s", prog);
    }
    snprintf(p->name, sizeof p->name, "%s", prog);
    p->pidfd = p->fd_in = p->s[0].fd = p->s[1].fd = -1;
    if (p->in) {
        memcpy(p->in, o->stdin_data, o->stdin_len);
        p->in_len = o->stdin_len;
    }
    bool dflt = o->keep_head == 0 && o->keep_tail == 0;
    for (int k = 0; k < 2; k++) {
        p->s[k].keep_head = dflt ? RL_PROC_KEEP_DEFAULT : o->keep_head;
        p->s[k].keep_tail = dflt ? RL_PROC_KEEP_DEFAULT : o->keep_tail;
    }
    p->cb = o->on_output;
    p->ud = o->ud;
    p->grace_ns = (int64_t)((o->kill_grace > 0 ? o->kill_grace : 1.0) * NS);

    /* fds: 0,1 stdin (read, write), 2,3 stdout, 4,5 stderr */
    int fd[6] = {-1, -1, -1, -1, -1, -1};
    const char *what = "pipe";
    bool ok = true;
    if (p->in)
        ok = pipe2(fd, O_CLOEXEC) == 0;
    else if ((fd[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        ok = false, what = "/dev/null";
    bool stamped = false, seq = false;
    ok = ok && stdout_pair(o->stamp_kernel, o->stamp_tcp, fd + 2, &stamped, &seq) &&
         pipe2(fd + 4, O_CLOEXEC) == 0;
    for (int i = 0; ok && i < 6; i++)
        if (fd[i] >= 0 && (fd[i] = lift(fd[i])) < 0)
            ok = false;
    int e = ok ? 0 : errno;
    pid_t pid = -1;
    p->live_slot = -1;
    if (ok) {
        /* no Ctrl-C handler in this thread between the spawn and the listing of its group */
        sigset_t stop, old;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &stop, &old);
        const int child_fds[3] = {fd[0], fd[3], fd[5]};
        p->start_ns = rl_proc_now_ns();
        e = spawn_child(o->argv, envp, child_fds, &pid);
        what = "spawn";
        if (!e) {
            p->pid = pid;
            live_add(p);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (envp != environ)
        free(envp);
    close_fd(&fd[0]); /* the child's ends */
    close_fd(&fd[3]);
    close_fd(&fd[5]);
    if (!ok || e) {
        for (int i = 0; i < 6; i++)
            close_fd(&fd[i]);
        free_proc(p);
        if (ok && e != EAGAIN && e != ENOMEM)
            return exec_error(e, prog, err);
        return rl_fail(err, RL_EINTERNAL, "cannot start %s: %s: %s (too many processes or files?)",
                       prog, what, strerror(e));
    }
    p->pid = pid;
    p->fd_in = fd[1];
    p->s[0].fd = fd[2];
    p->s[0].kstamp = stamped;
    p->s[0].seq = seq;
    p->s[1].fd = fd[4];
    for (int i = 1; i <= 4; i++)
        if (fd[i] >= 0)
            fcntl(fd[i], F_SETFL, fcntl(fd[i], F_GETFL) | O_NONBLOCK);
#ifdef SYS_pidfd_open
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* CLOEXEC by definition; -1: fallback */
#endif
    if (o->timeout > 0)
        p->deadline_ns = p->start_ns + (int64_t)(o->timeout * NS);
    *out = p;
    return RL_OK;
}

/* ---- serving: stdin, output, timers, reaping ---- */

/* write() with SIGPIPE blocked in this thread; a SIGPIPE it raised is consumed, one that was
 * already pending before is left alone. Returns write's result with errno preserved. */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t n)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigemptyset(&pending);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w;
    do
        w = write(fd, buf, n);
    while (w < 0 && errno == EINTR);
    int e = errno;
    if (w < 0 && e == EPIPE && !was_pending) {
        const struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w;
}

static void feed_stdin(rl_proc *p)
{
    size_t n = p->in_len - p->in_off < CHUNK ? p->in_len - p->in_off : CHUNK;
    ssize_t w = write_nosigpipe(p->fd_in, p->in + p->in_off, n);
    if (w > 0)
        p->in_off += (size_t)w;
    if ((w < 0 && errno != EAGAIN) || p->in_off == p->in_len)
        close_fd(&p->fd_in); /* done, or the child stopped reading (EPIPE): not an error */
}

/* The kernel's stamp of a read's data (send time on a SEQPACKET socket, receive time on TCP;
 * CLOCK_REALTIME) on the monotonic clock, from both
 * clocks read now; now itself when there is none or it is not between the child's start and
 * now (a clock step), each counted for the note. With several segments in one read it is the
 * last one's. */
static int64_t kernel_stamp(const struct msghdr *m, int64_t start_ns, int64_t now)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR((struct msghdr *)m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS ||
            c->cmsg_len < CMSG_LEN(sizeof(struct timespec)))
            continue;
        struct timespec ts, real;
        memcpy(&ts, CMSG_DATA(c), sizeof ts);
        clock_gettime(CLOCK_REALTIME, &real);
        int64_t ago = ((int64_t)real.tv_sec - ts.tv_sec) * NS + (real.tv_nsec - ts.tv_nsec);
        int64_t t = now - ago;
        bool in_life = ago >= 0 && t >= start_ns;
        ++*(in_life ? &kstamp_got : &kstamp_bad);
        return in_life ? t : now;
    }
    kstamp_none++;
    return now;
}

/* What was read: kept, and handed to the callback with the time of its read. */
static void deliver(rl_proc *p, int k, const char *buf, size_t n, int64_t now)
{
    keep(&p->s[k], buf, n);
    if (p->cb)
        p->cb(p->ud, k == 0 ? RL_PROC_STDOUT : RL_PROC_STDERR, buf, n,
              (double)(now - p->start_ns) / (double)NS);
}

/* recvmsg gave 0 on a SEQPACKET stream: an empty message (a write of 0 bytes) or the end. The
 * end once the child's end is closed (a hang-up) and only empty messages are left
 * (SEQ_EMPTY_MAX looked past: at the end recv gives 0 every time); or, where no hang-up is
 * ever reported, after SEQ_EMPTY_MAX reads of 0 in a row. */
static bool seq_ended(pstream *st)
{
    int fd = st->fd;
    if (++st->zeros >= SEQ_EMPTY_MAX)
        return true;
    for (int i = 0; i < SEQ_EMPTY_MAX; i++) {
        struct pollfd q = {.fd = fd, .events = POLLIN};
        if (poll(&q, 1, 0) < 0 || !(q.revents & (POLLHUP | POLLERR)))
            return false; /* the child's end still open: that was an empty message */
        char c;
        ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (r != 0)
            return r < 0 && errno != EAGAIN && errno != EINTR; /* > 0: a message is left */
        (void)recv(fd, &c, 1, MSG_DONTWAIT); /* an empty message, or nothing at the end */
    }
    return true;
}

/* One message of a SEQPACKET stream larger than CHUNK (a write up to SEQ_SNDBUF): read whole
 * (a shorter read would cut it), delivered in CHUNK pieces with its one stamp. Out of memory
 * leaves it for the next poll. */
static void read_big(rl_proc *p, int k, size_t len, struct msghdr *m)
{
    pstream *s = &p->s[k];
    char *big = malloc(len);
    if (!big)
        return;
    struct iovec iov = {big, len};
    m->msg_iov = &iov;
    ssize_t r = recvmsg(s->fd, m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    int64_t now = rl_proc_now_ns();
    if (r > 0) {
        now = kernel_stamp(m, p->start_ns, now);
        for (size_t at = 0; at < (size_t)r; at += CHUNK)
            deliver(p, k, big + at, (size_t)r - at < CHUNK ? (size_t)r - at : CHUNK, now);
    }
    free(big);
}

/* One read of stream k of p into buf (CHUNK bytes): its length, stamped *now right after
 * read() returned (a kernel-stamped stream: with its data's kernel time, kernel_stamp); 0
 * when there was nothing (EINTR, EAGAIN, an empty message, a larger message delivered here
 * by read_big) or the stream ended (closed). */
static size_t read_into(rl_proc *p, int k, char *buf, int64_t *now)
{
    pstream *s = &p->s[k];
    union {
        char b[CMSG_SPACE(sizeof(struct timespec)) * 2];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {buf, CHUNK};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (s->kstamp) {
        m.msg_control = ctl.b;
        m.msg_controllen = sizeof ctl.b;
    }
    if (s->seq) { /* a message longer than buf would be cut: its length first */
        ssize_t len = recv(s->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (len > CHUNK) {
            read_big(p, k, (size_t)len, &m);
            return 0;
        }
    }
    ssize_t r = s->kstamp ? recvmsg(s->fd, &m, MSG_CMSG_CLOEXEC) : read(s->fd, buf, CHUNK);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (r == 0 && s->seq && !seq_ended(s))
        return 0;
    s->zeros = 0;
    if (r <= 0) {
        close_fd(&s->fd); /* EOF (or a read error, treated as EOF) */
        return 0;
    }
    *now = rl_proc_now_ns();
    if (s->kstamp)
        *now = kernel_stamp(&m, p->start_ns, *now);
    return (size_t)r;
}

/* The streams poll found readable: all read first, each stamped right after its read(), then
 * delivered; so when many children write at once (the client's concurrency), a stamp is not
 * late by the callbacks of the reads before it. Without memory for that, one by one. */
typedef struct {
    rl_proc *p;
    int k;
    size_t n;
    int64_t now;
} ready_read;

static void read_ready(rl_proc *const *procs, const struct pollfd *pfd, const int *map, nfds_t np)
{
    size_t want = 0;
    for (nfds_t j = 0; j < np; j++)
        want += pfd[j].revents && map[j] % 4 < 2;
    ready_read *rr = want > 1 ? calloc(want, sizeof *rr) : NULL;
    char *pool = rr ? malloc(want * CHUNK) : NULL;
    size_t got = 0;
    for (nfds_t j = 0; j < np; j++) {
        rl_proc *p = procs[map[j] / 4];
        int k = map[j] % 4;
        if (!pfd[j].revents || k >= 2 || p->s[k].fd < 0)
            continue;
        if (!pool) { /* one at a time */
            char buf[CHUNK];
            int64_t now;
            size_t n = read_into(p, k, buf, &now);
            if (n)
                deliver(p, k, buf, n, now);
            continue;
        }
        rr[got] = (ready_read){p, k, 0, 0};
        rr[got].n = read_into(p, k, pool + got * CHUNK, &rr[got].now);
        got++;
    }
    for (size_t i = 0; i < got; i++)
        if (rr[i].n)
            deliver(rr[i].p, rr[i].k, pool + i * CHUNK, rr[i].n, rr[i].now);
    free(pool);
    free(rr);
}

static void try_reap(rl_proc *p, int64_t now)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
        if (si.si_pid == 0)
            return;             /* still running */
        kill(-p->pid, SIGKILL); /* leftovers in the group; the zombie still holds its id */
        live_remove(p);
        int st = 0;
        pid_t w;
        while ((w = waitpid(p->pid, &st, 0)) < 0 && errno == EINTR)
            ;
        p->status_known = w == p->pid;
        p->wstatus = st;
    } else if (errno != ECHILD) { /* ECHILD: someone else reaped it (SIGCHLD ignored?) */
        return;
    }
    live_remove(p);
    p->reaped = true;
    p->end_ns = now;
    p->drain_until_ns = now + (p->interrupted ? INTERRUPT_DRAIN_NS : DRAIN_NS);
    close_fd(&p->pidfd);
}

static void tick(rl_proc *p, int64_t now, bool honor_interrupt)
{
    if (p->done)
        return;
    if (honor_interrupt && rl_interrupted && !p->interrupted && !p->reaped) {
        p->interrupted = true;
        signal_group(p, SIGTERM);
        if (!p->kill_at_ns || p->kill_at_ns > now + INTERRUPT_GRACE_NS)
            p->kill_at_ns = now + INTERRUPT_GRACE_NS;
        close_fd(&p->fd_in);
    }
    if (honor_interrupt && rl_interrupted && p->reaped &&
        p->drain_until_ns > now + INTERRUPT_DRAIN_NS)
        p->drain_until_ns = now + INTERRUPT_DRAIN_NS; /* interrupted while draining */
    if (p->deadline_ns && now >= p->deadline_ns && !p->timed_out && !p->interrupted && !p->reaped) {
        p->timed_out = true;
        signal_group(p, SIGTERM);
        p->kill_at_ns = now + p->grace_ns;
        close_fd(&p->fd_in);
    }
    if (p->kill_at_ns && now >= p->kill_at_ns && !p->killed) {
        p->killed = true;
        signal_group(p, SIGKILL);
    }
    if (!p->reaped)
        try_reap(p, now);
    if (p->reaped && ((p->s[0].fd < 0 && p->s[1].fd < 0) || now >= p->drain_until_ns)) {
        p->held_open = p->s[0].fd >= 0 || p->s[1].fd >= 0;
        close_fd(&p->s[0].fd); /* past the drain bound: held open by an escaped process */
        close_fd(&p->s[1].fd);
        close_fd(&p->fd_in);
        p->done = true;
    }
}

static void timer_min(int64_t *t, int64_t at)
{
    if (at && at < *t)
        *t = at;
}

/* The loop behind rl_proc_wait and rl_proc_finish. until: absolute ns, or -1 for no limit. */
static rl_status serve(rl_proc *const *procs, size_t n, int64_t until, bool honor_interrupt,
                       rl_error *err)
{
    struct pollfd *pfd = calloc(n * 4 + 1, sizeof *pfd);
    int *map = calloc(n * 4 + 1, sizeof *map); /* proc index * 4 + kind */
    if (!pfd || !map) {
        free(pfd);
        free(map);
        return rl_fail(err, RL_EINTERNAL, "out of memory waiting for child processes");
    }
    rl_status st = RL_OK;
    bool polled = false;
    for (;;) {
        int64_t now = rl_proc_now_ns();
        bool any_done = false, all_done = true, any = false;
        const rl_proc *stopped = NULL;
        for (size_t i = 0; i < n; i++) {
            if (!procs[i])
                continue;
            tick(procs[i], now, honor_interrupt);
            any = true;
            any_done |= procs[i]->done;
            all_done &= procs[i]->done;
            if (procs[i]->interrupted && !stopped)
                stopped = procs[i];
        }
        if (stopped && honor_interrupt) {
            if (all_done) {
                st = rl_fail(err, RL_EINTERRUPTED, "interrupted while running %s", stopped->name);
                break;
            }
        } else if (!any || any_done || (until >= 0 && now >= until && polled)) {
            break;
        }
        int64_t wake = now + POLL_MAX_NS;
        if (until >= 0 && !stopped)
            timer_min(&wake, until > now ? until : now);
        nfds_t np = 0;
        for (size_t i = 0; i < n; i++) {
            rl_proc *p = procs[i];
            if (!p || p->done)
                continue;
            int fds[4] = {p->s[0].fd, p->s[1].fd, p->fd_in, p->pidfd};
            for (int k = 0; k < 4; k++) {
                if (fds[k] < 0)
                    continue;
                pfd[np].fd = fds[k];
                pfd[np].events = k == 2 ? POLLOUT : POLLIN;
                pfd[np].revents = 0;
                map[np++] = (int)i * 4 + k;
            }
            if (!p->timed_out)
                timer_min(&wake, p->deadline_ns);
            if (!p->killed)
                timer_min(&wake, p->kill_at_ns);
            if (p->reaped)
                timer_min(&wake, p->drain_until_ns);
            else if (p->pidfd < 0)
                timer_min(&wake, now + POLL_NO_PIDFD_NS);
        }
        int ms = wake > now ? (int)((wake - now + MS - 1) / MS) : 0;
        int r = poll(pfd, np, ms);
        polled = true;
        if (r < 0) {
            if (errno == EINTR)
                continue; /* the loop top checks rl_interrupted */
            st = rl_fail(err, RL_EINTERNAL, "poll on child processes failed: %s", strerror(errno));
            break;
        }
        read_ready(procs, pfd, map, (nfds_t)np);
        for (nfds_t j = 0; j < np; j++) {
            rl_proc *p = procs[map[j] / 4];
            if (pfd[j].revents && map[j] % 4 == 2 && p->fd_in >= 0)
                feed_stdin(p);
            /* k == 3: the pidfd became readable; the next tick reaps */
        }
    }
    free(pfd);
    free(map);
    return st;
}

rl_status rl_proc_wait(rl_proc *const *procs, size_t n, double max_wait, rl_error *err)
{
    int64_t until = max_wait < 0 ? -1 : rl_proc_now_ns() + (int64_t)(max_wait * NS);
    return serve(procs, n, until, true, err);
}

bool rl_proc_done(const rl_proc *p)
{
    return p && p->done;
}

pid_t rl_proc_pid(const rl_proc *p)
{
    return p->pid;
}

int64_t rl_proc_start_ns(const rl_proc *p)
{
    return p->start_ns;
}

void rl_proc_finish(rl_proc *p, rl_proc_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
    if (!p)
        return;
    if (!p->done) {
        signal_group(p, SIGKILL);
        p->killed = true;
        rl_proc *one[1] = {p};
        if (serve(one, 1, -1, false, NULL) != RL_OK) { /* no memory for poll: reap blindly */
            close_fd(&p->s[0].fd);
            close_fd(&p->s[1].fd);
            while (!p->reaped) {
                try_reap(p, rl_proc_now_ns());
                if (!p->reaped)
                    nanosleep(&(struct timespec){0, 10 * MS}, NULL);
            }
        }
    }
    if (res) {
        if (p->status_known && WIFEXITED(p->wstatus)) {
            res->exit_code = WEXITSTATUS(p->wstatus);
        } else {
            res->exit_code = -1;
            res->term_signal =
                p->status_known && WIFSIGNALED(p->wstatus) ? WTERMSIG(p->wstatus) : 0;
        }
        res->timed_out = p->timed_out;
        res->interrupted = p->interrupted;
        res->held_open = p->held_open;
        res->start_ns = p->start_ns;
        res->elapsed = (double)(p->end_ns - p->start_ns) / (double)NS;
        stream_move(&p->s[0], &res->out);
        stream_move(&p->s[1], &res->err);
    }
    free_proc(p);
}

rl_status rl_proc_run(const rl_proc_opts *opts, rl_proc_result *res, rl_error *err)
{
    memset(res, 0, sizeof *res);
    rl_proc *p = NULL;
    rl_status st = rl_proc_start(opts, &p, err);
    if (st != RL_OK)
        return st;
    while (st == RL_OK && !p->done) {
        st = rl_proc_wait(&p, 1, 1.0, err); /* a second at a time: the progress line's clock */
        rl_progress_tick();
    }
    rl_proc_finish(p, res);
    return st;
}

/* ---- stamping priority for reading loops ---- */

static char prio_note[160] = "normal (not asked)";

bool rl_proc_reader_priority_begin(rl_proc_prio *saved)
{
    saved->raised = false;
    saved->policy = sched_getscheduler(0);
    struct sched_param sp = {0};
    sched_getparam(0, &sp);
    saved->priority = sp.sched_priority;
    if (saved->policy < 0)
        saved->policy = SCHED_OTHER;
    saved->policy &= ~SCHED_RESET_ON_FORK;
    struct sched_param fifo = {.sched_priority = 1};
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &fifo) == 0) {
        saved->raised = true;
        rl_snprintf(prio_note, sizeof prio_note, "SCHED_FIFO 1");
    } else {
        rl_snprintf(prio_note, sizeof prio_note, "normal (SCHED_FIFO refused: %s)",
                    strerror(errno));
    }
    return saved->raised;
}

void rl_proc_reader_priority_end(const rl_proc_prio *saved)
{
    if (!saved->raised)
        return;
    struct sched_param sp = {.sched_priority = saved->priority};
    sched_setscheduler(0, saved->policy, &sp);
}

const char *rl_proc_reader_priority_note(void)
{
    return prio_note;
}
