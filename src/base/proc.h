/* SPDX-License-Identifier: MIT */
/* proc.h: run child programs and collect their output with timestamps (owner: the llama-bench
 * driver; reused by the streaming-client benchmark).
 *
 * A child runs in its own process group with stdout and stderr on pipes and stdin from a
 * buffer (copied at start) or /dev/null. Output is read with poll() as it arrives; every chunk
 * is timestamped with CLOCK_MONOTONIC right after read() returns and can be handed to a
 * callback. Memory per stream is bounded: the first keep_head bytes and the last keep_tail
 * bytes are kept, total counts everything. A timeout sends SIGTERM to the whole group, then
 * SIGKILL after kill_grace. When the child (the group leader) exits, whatever it left running
 * in its group is killed, so nothing outlives a run. rl_interrupted (set by main's signal
 * handler) is noticed within 100 ms: SIGTERM goes to the group, SIGKILL 0.5 s later, and the
 * call returns RL_EINTERRUPTED with everything read so far kept (well within a second: once
 * interrupted, pipes an escaped grandchild holds open are waited for 0.2 s, not 2 s). A second
 * Ctrl-C does not wait for that: main's handler calls rl_proc_kill_all, which sends SIGKILL to
 * the group of every child not yet reaped, before the program ends.
 *
 * Statuses: a non-zero exit, a signal or a timeout is a result, not an error (the caller
 * decides); RL_EMISSING when the program cannot be executed (not found, not executable),
 * RL_EINTERRUPTED on interrupt, RL_EINTERNAL when a system call fails.
 *
 * SIGPIPE: writing stdin to a child that has exited raises SIGPIPE in the writing thread. The
 * module blocks SIGPIPE in that thread around each write() and consumes the one it caused with
 * sigtimedwait, so the process's signal dispositions are never changed.
 *
 * Memory: an rl_proc_result owns its buffers (free with rl_proc_result_free); an rl_proc is
 * owned by the caller from rl_proc_start until rl_proc_finish, which frees it; the string from
 * rl_proc_kept_text is malloc'd and owned by the caller. Not thread-safe per rl_proc; all
 * functions may be used from one thread while other threads spawn their own children. */
#ifndef RL_PROC_H
#define RL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/rl_error.h"

/* Stream numbers passed to on_output (the child's file descriptor numbers). */
enum { RL_PROC_STDOUT = 1, RL_PROC_STDERR = 2 };

/* keep_head and keep_tail used when both are 0 in the options. */
#define RL_PROC_KEEP_DEFAULT ((size_t)64 * 1024)

/* Receives each chunk as it is read: stream is RL_PROC_STDOUT or RL_PROC_STDERR, t is seconds
 * since spawn (the chunk's absolute CLOCK_MONOTONIC time is start_ns + t * 1e9, exact to the ns
 * for runs under 100 days). data is only valid during the call. Called from rl_proc_wait or
 * rl_proc_run; it must not call rl_proc_wait, rl_proc_run or rl_proc_finish. */
typedef void (*rl_proc_output_fn)(void *ud, int stream, const char *data, size_t n, double t);

typedef struct {
    const char *const *argv; /* NULL-terminated; argv[0] without '/' is looked up in PATH */
    const char *const *env;  /* extra "NAME=value" entries (NULL-terminated) or NULL; they
                                replace inherited variables of the same name */
    const char *stdin_data;  /* written to the child's stdin, then closed; NULL: /dev/null */
    size_t stdin_len;
    double timeout;              /* seconds from spawn; 0 = none */
    double kill_grace;           /* seconds from SIGTERM to SIGKILL on timeout; 0 = 1 s */
    size_t keep_head;            /* bytes kept from the start of each stream */
    size_t keep_tail;            /* bytes kept from the end of each stream (both 0: defaults) */
    rl_proc_output_fn on_output; /* optional */
    void *ud;                    /* passed to on_output */
    bool stamp_kernel;           /* stdout on a Unix SEQPACKET socket: each write of the child one
                                    message, stamped by the kernel when written (SO_TIMESTAMPNS),
                                    so a reader that runs late neither merges nor stamps late;
                                    else loopback TCP (receive time), else a pipe
                                    (rl_proc_stamp_note says which) */
    bool stamp_tcp;              /* with stamp_kernel: skip the SEQPACKET pair and take the
                                    loopback TCP fallback (how the fallback is tested) */
} rl_proc_opts;

typedef struct {
    char *head; /* first head_len bytes of the stream (malloc'd, not NUL-terminated, may be
                   NULL when empty) */
    size_t head_len;
    char *tail; /* the last tail_len bytes after the head, in order (same ownership) */
    size_t tail_len;
    uint64_t total; /* every byte the child wrote */
    bool truncated; /* total > head_len + tail_len: bytes in the middle were dropped */
} rl_proc_stream;

typedef struct {
    int exit_code;    /* 0..255 when the child exited; -1 when killed by a signal or unknown */
    int term_signal;  /* the signal that killed the child, else 0 */
    bool timed_out;   /* the timeout expired and the group was signalled */
    bool interrupted; /* rl_interrupted was seen and the group was signalled */
    bool held_open;   /* a stream was still open when the drain after the exit ended (held by a
                         process outside the group): closed by the tool, its later bytes lost */
    double elapsed;   /* seconds from spawn to the child's exit */
    int64_t start_ns; /* CLOCK_MONOTONIC at spawn, ns */
    rl_proc_stream out, err;
} rl_proc_result;

/* Blocking: start one child, wait for it, fill *res (always, except on spawn failure, when
 * *res is zeroed). RL_OK however the child ended; RL_EINTERRUPTED with res filled. */
rl_status rl_proc_run(const rl_proc_opts *opts, rl_proc_result *res, rl_error *err);

/* Free the buffers of a result and zero it; safe on a zeroed result. */
void rl_proc_result_free(rl_proc_result *res);

/* The kept bytes of a stream as one NUL-terminated string: head, then
 * "\n[... N bytes omitted ...]\n" when truncated, then tail. Caller frees; NULL if out of
 * memory. */
char *rl_proc_kept_text(const rl_proc_stream *s);

/* CLOCK_MONOTONIC now, ns (the clock every timestamp of this module uses). */
int64_t rl_proc_now_ns(void);

/* Asynchronous use: start several children, then call rl_proc_wait on all of them. */
typedef struct rl_proc rl_proc;

/* Spawn a child; on success *out is running and owned by the caller until rl_proc_finish.
 * Refuses (RL_EINTERRUPTED) when rl_interrupted is already set. */
rl_status rl_proc_start(const rl_proc_opts *opts, rl_proc **out, rl_error *err);

/* Serve all n children (NULL entries are skipped) in one poll loop: read output, feed stdin,
 * apply each child's timeout, reap. Returns RL_OK as soon as at least one of them is done
 * (rl_proc_done) or max_wait seconds have passed (max_wait < 0: no limit; 0: one
 * non-blocking pass), or immediately when none is running. On interrupt every child in the
 * set is stopped and reaped before it returns RL_EINTERRUPTED; RL_EINTERNAL if poll fails. */
rl_status rl_proc_wait(rl_proc *const *procs, size_t n, double max_wait, rl_error *err);

/* True once the child has been reaped and its output pipes are drained. */
bool rl_proc_done(const rl_proc *p);

/* The child's pid (also its process group id) and its spawn time (CLOCK_MONOTONIC ns). */
pid_t rl_proc_pid(const rl_proc *p);
int64_t rl_proc_start_ns(const rl_proc *p);

/* Move the outcome into *res (NULL: discard) and free p. A child that is not done yet is
 * killed first (SIGKILL to its group), drained and reaped. NULL p is a no-op. */
void rl_proc_finish(rl_proc *p, rl_proc_result *res);

/* SIGKILL to the process group of every child spawned by this module and not yet reaped, in
 * every thread's rl_proc. Async-signal-safe (lock-free atomics and kill(2) only): for main's
 * handler of a second SIGINT or SIGTERM, just before the program ends. Reaps nothing. */
void rl_proc_kill_all(void);

/* Stamping priority for a reading loop (the client drivers): ask the kernel to run the calling
 * thread ahead of ordinary work (SCHED_FIFO priority 1, reset on fork, so no child ever
 * inherits it), so a chunk is stamped when it arrives rather than when a busy machine next
 * gets round to the reader. The loop blocks in poll, so it never holds a CPU. Needs
 * CAP_SYS_NICE or an RLIMIT_RTPRIO above 0; without them nothing changes. begin saves the
 * thread's policy in *saved and returns true when raised; end restores it. The outcome of the
 * last begin, for the record ("SCHED_FIFO 1" or "normal (SCHED_FIFO refused: ...)"), is
 * rl_proc_reader_priority_note (a static string). */
typedef struct {
    int policy;
    int priority;
    bool raised;
} rl_proc_prio;
bool rl_proc_reader_priority_begin(rl_proc_prio *saved);
void rl_proc_reader_priority_end(const rl_proc_prio *saved);
const char *rl_proc_reader_priority_note(void);

/* How the last child started with stamp_kernel has its stdout stamped: "kernel send time
 * (SO_TIMESTAMPNS on a Unix SEQPACKET socket ...)", "kernel receive time (... loopback TCP
 * ...)", or "read time (pipe: <why>)"; "read time (pipe)" before any. When the kernel gave no
 * usable stamp for some reads (a sandbox without socket stamps) it says so, with the counts:
 * "read time (the kernel stamped none of N reads ...)" or "kernel time for K of N reads ...".
 * A static string, valid until the next call. */
const char *rl_proc_stamp_note(void);

/* Reads of kernel-stamped streams since the process began: with the kernel's stamp, with
 * none, with one outside the child's life (read time used for the last two). */
void rl_proc_stamp_counts(unsigned long *got, unsigned long *none, unsigned long *bad);
/* The note for a set-up note and those counts: setup itself when it is not kernel time or
 * every read was stamped, else the counted note in buf (returned). */
const char *rl_proc_stamp_note_of(const char *setup, unsigned long got, unsigned long none,
                                  unsigned long bad, char *buf, size_t cap);

#endif
