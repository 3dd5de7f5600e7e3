/* SPDX-License-Identifier: MIT */
/* rl_error.h: the status codes and error buffer every module returns through.
 *
 * A function that can fail returns an rl_status and, on failure, fills the caller's rl_error
 * with a one-line message (no trailing newline) that names the thing and what to do. Only
 * main.c turns a status into an exit code (rl_exit_code). No memory is allocated here. */
#ifndef RL_ERROR_H
#define RL_ERROR_H

#include <signal.h>
#include <stddef.h>

typedef enum {
    RL_OK = 0,
    RL_NOTHING,     /* ran, but nothing was measured or decoded: exit 1 */
    RL_EINPUT,      /* bad input: a file, a flag, a value: exit 2 */
    RL_EMISSING,    /* a program the command needs is missing: exit 3 */
    RL_EOUTPUT,     /* an output path could not be written: exit 4 */
    RL_EINTERNAL,   /* out of memory, a system call failing unexpectedly: exit 5 */
    RL_EINTERRUPTED /* SIGINT or SIGTERM: exit 130 */
} rl_status;

typedef struct {
    rl_status status;
    char msg[1024];
} rl_error;

/* Fill err (if not NULL) with status and a printf-style message; returns status. */
rl_status rl_fail(rl_error *err, rl_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix an existing message: "<prefix>: <old message>". Returns err->status. */
rl_status rl_prefix(rl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Set by main's SIGINT/SIGTERM handler; long loops poll it and return RL_EINTERRUPTED,
 * keeping what they have already measured. */
extern volatile sig_atomic_t rl_interrupted;

/* The documented exit code for a status (docs/CLI.md). */
int rl_exit_code(rl_status status);

#endif
