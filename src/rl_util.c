/* rl_util.c: number parsing, progress lines, checked allocation, atomic file writes.
 * See rl_util.h for ownership. */
#include "rl_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool rl_parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end)
        return false;
    *out = (uint64_t)v;
    return true;
}

bool rl_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno || !end || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static int progress_showing;

void rl_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
    progress_showing = 1;
}

void rl_progress_done(void)
{
    if (progress_showing) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        progress_showing = 0;
    }
}

void *rl_calloc(size_t n, size_t size)
{
    if (n == 0 || size == 0)
        return calloc(1, 1);
    if (n > SIZE_MAX / size)
        return NULL;
    return calloc(n, size);
}

char *rl_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

char *rl_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = NULL;
    int n = vasprintf(&out, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : out;
}

rl_status rl_write_file(const char *path, const void *data, size_t len, rl_error *err)
{
    char *tmp = rl_asprintf("%s.tmp.%ld", path, (long)getpid());
    if (!tmp)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (choose a writable path)", path,
                strerror(errno));
        free(tmp);
        return RL_EOUTPUT;
    }
    size_t w = len ? fwrite(data, 1, len, f) : 0;
    int bad = (w != len) | (fflush(f) != 0);
    int saved = errno;
    bad |= (fclose(f) != 0);
    if (bad || rename(tmp, path) != 0) {
        if (!bad)
            saved = errno;
        unlink(tmp);
        free(tmp);
        return rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (choose a writable path)", path,
                       strerror(saved));
    }
    free(tmp);
    return RL_OK;
}

void rl_fmt_mib(char *buf, size_t len, uint64_t bytes)
{
    const uint64_t mib = 1024 * 1024;
    if (bytes % mib == 0)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes / mib));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (double)mib);
}

rl_status rl_check_writable(const char *path, rl_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return rl_fail(err, RL_EOUTPUT, "cannot write %s: it is a directory", path);
    char *dir = rl_strdup(path);
    if (!dir)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash == dir)
        d = "/";
    else if (slash) {
        *slash = '\0';
        d = dir;
    }
    rl_status st = RL_OK;
    if (access(d, W_OK) != 0)
        st = rl_fail(err, RL_EOUTPUT,
                     "cannot write %s: directory %s is not writable or does not exist (choose a "
                     "writable path)",
                     path, d);
    free(dir);
    return st;
}
