/* SPDX-License-Identifier: MIT */
/* rl_file.h: files the tool writes and reads, done safely.
 *
 * Atomic writes: the data goes to a unique temporary file created with O_EXCL in the target's
 * own directory (".<name>.XXXXXX", so a stranger's file is never clobbered and two runs never
 * collide), is fsync'd, renamed over the target, and the directory is fsync'd: after a crash
 * or power cut the target holds either the old or the new content. Once Ctrl-C was pressed
 * (rl_interrupted) commits skip both fsyncs, so the command ends within a second on a busy
 * disk: the file is complete and renamed atomically, but not yet durable against a power
 * cut. Writes check the
 * interrupt flag when a blocked write returns EINTR (Ctrl-C ends a write into a pipe nobody
 * reads). Temporary files are registered so the second-Ctrl-C path can unlink them
 * (rl_file_cleanup_signal, async-signal-safe) before the default action kills the process;
 * every other path removes them itself.
 *
 * No output follows a symbolic link: a link at an output path is refused (RL_EOUTPUT), unless
 * it leads to a pipe or a character device (-o /dev/stdout), which is written in place; what
 * a link leads to is never created, truncated or replaced.
 *
 * Output locks: a command that writes an output directory or a bundle locks it first
 * (rl_output_lock), so a second process writing the same output is refused instead of both
 * writing and one run's records vanishing. Outputs are checked against the inputs and against
 * each other by device and inode (rl_same_file, rl_check_outputs) before anything is written.
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
#include "base/rl_text.h"

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
 * is a character device or FIFO (e.g. /dev/null, a pipe, /dev/stdout into a pipe) is written
 * directly; a symbolic link leading anywhere else (or nowhere) is refused: "cannot write PATH:
 * it is a symbolic link (remove it or choose another path)". */
rl_status rl_atomic_open(const char *path, rl_atomic *a, rl_error *err);
/* Write all len bytes (retrying short writes). Unless a->finish is set, RL_EINTERRUPTED once
 * Ctrl-C was pressed (a blocked write returns at the signal); RL_EOUTPUT naming the target
 * otherwise. */
rl_status rl_atomic_write(rl_atomic *a, const void *data, size_t len, rl_error *err);
/* fsync, close, rename into place, fsync the directory (no fsyncs once interrupted: see above).
 * On failure the temp file is gone. */
rl_status rl_atomic_commit(rl_atomic *a, rl_error *err);

/* How many fsyncs commits have done in this process (two per commit, none once interrupted). */
unsigned long rl_file_syncs(void);
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
 * the text made terminal-safe as kind says, rl_tty_safe in base/rl_text.h, then rl_write_all,
 * not interruptible), anything else a file (rl_write_file). In a file RL_TTY_TEXT (Markdown,
 * CSV) keeps the bytes as given; RL_TTY_JSON (a JSON document, an HTML page with its embedded
 * bundle) is made safe as on stdout: DEL and C1 in a JSON string become the same string's
 * escapes, and in a page's text (chart labels, table cells) a visible \u009b, never a raw
 * control character a browser or an XML reader would choke on. */
rl_status rl_write_output(const char *path, const void *data, size_t len, rl_tty_kind kind,
                          rl_error *err);

/* Fail early (RL_EOUTPUT naming path) when path is a directory, a symbolic link
 * rl_atomic_open refuses, or its directory is not writable, so a long measurement is not lost at
 * the end for want of a place to put it. */
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
/* The file name of a path as written on any system: after the last '/' or '\\' (a bundle
 * imported from Windows holds "C:\\models\\x.gguf"); the path itself when it has neither. */
const char *rl_file_base_name(const char *path);

/* True when a and b name the same file: existing files by device and inode (so hard links,
 * symbolic links and different spellings of one file are caught), files not there yet by
 * their directory's device and inode and the same last name, and files in directories not
 * made yet by their spelling (repeated slashes and "./" dropped: "new/b.json" and
 * "new//./b.json"). NULL and "-" (standard output) match nothing. */
bool rl_same_file(const char *a, const char *b);

/* A path a command reads or writes and the option that named it (for messages). */
typedef struct {
    const char *flag; /* e.g. "-o", "--csv"; for an output given as a directory, its option */
    const char *path; /* NULL or "-": not a file, skipped */
} rl_path_arg;

/* Before anything is written: RL_EINPUT when an output is the same file as an input ("--csv B
 * is the same file as the input B: choose another --csv") or as an earlier output ("--json F
 * and --csv F are the same file: choose another --csv"). */
rl_status rl_check_outputs(const rl_path_arg *in, size_t n_in, const rl_path_arg *out, size_t n_out,
                           rl_error *err);

/* What a command's -o/--output names (docs/CLI.md states it per command). */
typedef enum { RL_OUT_FILE, RL_OUT_DIR } rl_out_kind;
/* An -o value checked before anything is measured or written: RL_EOUTPUT when it exists as
 * the other kind ("-o out.json is a file: run's -o names a directory"), RL_EINPUT when it is a
 * bare llama-bench output format name (csv, json, jsonl, md, sql) that does not exist yet
 * ("run -o md" would have made a directory md/: give ./md for that). NULL, "" (each command
 * says what an empty -o needs) and "-" (standard output, where the command takes it) pass.
 * verb names the command. */
rl_status rl_check_output_kind(const char *verb, const char *path, rl_out_kind kind, rl_error *err);

/* Lock the output whose bundle (or only file) is path, for the rest of the process: an
 * exclusive flock on ".<name>.lock" beside it, holding this process's id; the lock file is
 * removed at exit (a stale one left by a killed process is no obstacle: its flock is gone).
 * Taken before anything is measured. Taking the same lock again is a no-op. When another
 * process holds it: RL_EOUTPUT "<shown> is being written by another llama-roofline (pid N);
 * wait for it or <hint>" (shown: the -o directory or file as the user gave it; hint e.g.
 * "choose another -o"). RL_EOUTPUT naming the lock file when it cannot be created. */
rl_status rl_output_lock(const char *path, const char *shown, const char *hint, rl_error *err);
/* Release every lock this process holds, removing the lock files (also run at exit). */
void rl_output_unlock_all(void);

/* Unlink every registered temporary file and lock file. Async-signal-safe; for the signal
 * handler. */
void rl_file_cleanup_signal(void);

/* The names in dir sorted by strcmp, hidden ones (starting with '.') left out, then only those
 * keep(name, ctx) accepts (all when keep is NULL). *names (an array of *n malloc'd strings) is
 * the caller's, freed with rl_dir_names_free. RL_EINPUT naming dir when it cannot be opened
 * or holds more than max such names; RL_EINTERNAL when out of memory (nothing returned). */
rl_status rl_dir_list(const char *dir, bool (*keep)(const char *name, void *ctx), void *ctx,
                      size_t max, char ***names, size_t *n, rl_error *err);
void rl_dir_names_free(char **names, size_t n);

#endif
