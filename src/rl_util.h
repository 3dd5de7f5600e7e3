/* rl_util.h: small helpers shared by every module: strict number parsing, terminal progress,
 * checked allocation, file writing. Strings returned by rl_strdup/rl_asprintf are malloc'd and
 * owned by the caller. Numbers are parsed and printed in the C locale (the program never calls
 * setlocale with ""). */
#ifndef RL_UTIL_H
#define RL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rl_error.h"

/* Parse a whole string as an unsigned decimal integer; false on empty, sign, junk or overflow. */
bool rl_parse_u64(const char *s, uint64_t *out);
/* Parse a whole string as a finite double (C locale); false on junk, inf or nan. */
bool rl_parse_double(const char *s, double *out);

/* Progress on stderr, only when stderr is a terminal: rewrites the current line. */
void rl_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* End a progress line (clears it) if one is showing. */
void rl_progress_done(void);

/* malloc/calloc that return NULL on size overflow as well as on failure. */
void *rl_calloc(size_t n, size_t size);
char *rl_strdup(const char *s);
char *rl_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "512 MiB" when bytes is a whole number of MiB, else "1.5 MiB" (C locale). */
void rl_fmt_mib(char *buf, size_t len, uint64_t bytes);

/* Fail early (RL_EOUTPUT naming path) when path is a directory or its directory is not
 * writable, so a long measurement is not lost at the end for want of a place to put it. */
rl_status rl_check_writable(const char *path, rl_error *err);

/* Write len bytes to path atomically (temp file + rename); RL_EOUTPUT with a message naming
 * path on failure. */
rl_status rl_write_file(const char *path, const void *data, size_t len, rl_error *err);

#endif
