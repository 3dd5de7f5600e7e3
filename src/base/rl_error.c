/* SPDX-License-Identifier: MIT */
/* rl_error.c: fill error buffers and map statuses to exit codes. Allocates nothing. */
#include "base/rl_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/rl_text.h"

volatile sig_atomic_t rl_interrupted = 0;

rl_status rl_fail(rl_error *err, rl_status status, const char *fmt, ...)
{
    if (err) {
        char raw[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        rl_vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* one line, and nothing from a file name or a child reaches the terminal raw */
        rl_tty_escape(raw, err->msg, sizeof err->msg);
        err->status = status;
    }
    return status;
}

rl_status rl_prefix(rl_error *err, const char *fmt, ...)
{
    if (!err)
        return RL_EINTERNAL;
    char raw[512], head[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    rl_tty_escape(raw, head, sizeof head);
    memcpy(old, err->msg, sizeof old);
    size_t h = strlen(head);
    if (h > sizeof err->msg - 3)
        h = sizeof err->msg - 3;
    memcpy(err->msg, head, h);
    memcpy(err->msg + h, ": ", 2);
    size_t room = sizeof err->msg - h - 3, o = strnlen(old, room);
    memcpy(err->msg + h + 2, old, o);
    err->msg[h + 2 + o] = '\0';
    return err->status;
}

int rl_exit_code(rl_status status)
{
    switch (status) {
    case RL_OK: return 0;
    case RL_NOTHING: return 1;
    case RL_EINPUT: return 2;
    case RL_EMISSING: return 3;
    case RL_EOUTPUT: return 4;
    case RL_EINTERNAL: return 5;
    case RL_EINTERRUPTED: return 130;
    }
    return 5;
}
