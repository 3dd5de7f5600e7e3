/* rl_file.h: files the tool writes and reads, done safely.
 *
 * Atomic writes: the data goes to a unique temporary file created with O_EXCL in the target's
 * own directory (".<name>.XXXXXX", so a stranger's file is never clobbered and two runs never
 * collide), is fsync'd, renamed over the target, and the directory is fsync'd: after a crash
 * or power cut the target holds either the old or the new content. Writes check the
 * interrupt flag when a blocked write returns EINTR (Ctrl-C ends a write into a pipe nobody
 * reads). Temporary files are registered so the second-Ctrl-C path can unlink them
 * (rl_file_cleanup_signal, async-signal-safe) before the default action kills the process;
 * every other path removes them itself.
 *
 * Reading: rl_file_open_regular refuses FIFOs, devices and directories before any blocking
 * open, so a FIFO never hangs the tool.
 *
 * Ownership: an rl_atomic owns its descriptor and temporary path until commit or abort. */
#ifndef RL_FILE_H
#define RL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rl_error.h"

typedef struct {
    int fd;      /* -1 when closed */
    char *path;  /* target */
    char *tmp;   /* temporary file, NULL after commit/abort */
    int slot;    /* cleanup registry slot, -1 if none */
    bool direct; /* the target is a pipe or device: written in place, nothing to rename */
    bool finish; /* false (default): writes stop once Ctrl-C was pressed (bulk output such as
                    synth); true: writes complete after it (results being saved) */
} rl_atomic;

/* Create the temporary file for path. A target that is a directory is refused; a target that
 * is a character device or FIFO (e.g. /dev/null, a pipe) is written directly. */
rl_status rl_atomic_open(const char *path, rl_atomic *a, rl_error *err);
/* Write all len bytes (retrying short writes). Unless a->finish is set, RL_EINTERRUPTED once
 * Ctrl-C was pressed (a blocked write returns at the signal); RL_EOUTPUT naming the target
 * otherwise. */
rl_status rl_atomic_write(rl_atomic *a, const void *data, size_t len, rl_error *err);
/* fsync, close, rename into place, fsync the directory. On failure the temp file is gone. */
rl_status rl_atomic_commit(rl_atomic *a, rl_error *err);
/* Close and remove the temporary file (safe to call twice, or after commit). */
void rl_atomic_abort(rl_atomic *a);

/* Write all of data to fd. interruptible: stop with RL_EINTERRUPTED once rl_interrupted is set
 * (checked before every write, so a write blocked on a pipe that returns EINTR or a partial
 * count ends there); otherwise complete the write whatever happens (results being saved).
 * name is used in messages. */
rl_status rl_write_all(int fd, const void *data, size_t len, const char *name, bool interruptible,
                       rl_error *err);

/* The whole of data to path through rl_atomic_*, completed even after Ctrl-C (results). */
rl_status rl_write_file(const char *path, const void *data, size_t len, rl_error *err);
/* An output a command was given: "-" is standard output (stdio's buffer flushed first, then
 * rl_write_all, not interruptible), anything else a file (rl_write_file). */
rl_status rl_write_output(const char *path, const void *data, size_t len, rl_error *err);

/* Fail early (RL_EOUTPUT naming path) when path is a directory or its directory is not
 * writable, so a long measurement is not lost at the end for want of a place to put it. */
rl_status rl_check_writable(const char *path, rl_error *err);

/* mkdir -p: create dir and its missing parents (mode 0777 less the umask). RL_EOUTPUT naming
 * the directory that could not be created, or dir when it is not a directory, with hint (what
 * to do, e.g. "choose a writable -o directory") appended in parentheses. */
rl_status rl_mkdir_p(const char *dir, const char *hint, rl_error *err);

/* Bytes an unprivileged writer may still use on fd's file system (fstatvfs: f_bavail *
 * f_frsize, saturating); false when that cannot be read. */
bool rl_free_space(int fd, uint64_t *avail);

/* The tool's cache directory: cache_env ($LLAMA_ROOFLINE_CACHE) when set and not empty, else
 * home/.cache/llama-roofline; NULL when neither is known or out of memory (caller frees). */
char *rl_cache_root(const char *cache_env, const char *home);

/* Open path for reading only if it is a regular file (checked with fstat on a non-blocking
 * descriptor before anything can block). RL_EINPUT naming the file otherwise. */
rl_status rl_file_open_regular(const char *path, FILE **out, uint64_t *size, rl_error *err);

/* Read a whole regular file of at most max bytes (plus a NUL terminator; caller frees). */
rl_status rl_file_read_all(const char *path, size_t max, char **data, size_t *len, rl_error *err);

/* Unlink every registered temporary file. Async-signal-safe; for the signal handler. */
void rl_file_cleanup_signal(void);

/* The names in dir sorted by strcmp, hidden ones (starting with '.') left out, then only those
 * keep(name, ctx) accepts (all when keep is NULL). *names (an array of *n malloc'd strings) is
 * the caller's, freed with rl_dir_names_free. RL_EINPUT naming dir when it cannot be opened
 * or holds more than max such names; RL_EINTERNAL when out of memory (nothing returned). */
rl_status rl_dir_list(const char *dir, bool (*keep)(const char *name, void *ctx), void *ctx,
                      size_t max, char ***names, size_t *n, rl_error *err);
void rl_dir_names_free(char **names, size_t n);

#endif
