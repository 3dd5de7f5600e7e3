/* SPDX-License-Identifier: MIT */
/* rl_util.c: the number rule, option values, progress lines, checked allocation.
 * See rl_util.h for the rule and ownership. */
#include "base/rl_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/rl_text.h"

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

bool rl_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !all_digits(s, strlen(s)))
        return false;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool rl_parse_i64(const char *s, int64_t *out)
{
    if (!s)
        return false;
    bool neg = *s == '-';
    uint64_t u;
    if (!rl_parse_u64(s + neg, &u) || (neg && u == 0)) /* "-0" is not a negative number */
        return false;
    if (neg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return true;
}

bool rl_parse_double(const char *s, double *out)
{
    if (!s)
        return false;
    const char *dot = strchr(s, '.');
    size_t n = strlen(s);
    if (dot) {
        size_t ip = (size_t)(dot - s);
        if (!all_digits(s, ip) || !all_digits(dot + 1, n - ip - 1))
            return false;
    } else if (!all_digits(s, n)) {
        return false;
    }
    errno = 0;
    char *end = NULL;
    locale_t c = rl_c_locale();
    double v = c ? strtod_l(s, &end, c) : strtod(s, &end);
    if (errno || !end || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

rl_status rl_opt_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                     rl_error *err)
{
    uint64_t v;
    if (!rl_parse_u64(s, &v) || v < min || v > max)
        return rl_fail(err, RL_EINPUT,
                       "%s: '%s' is not valid: give a whole number from %llu to %llu", opt,
                       s ? s : "", (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return RL_OK;
}

rl_status rl_opt_int(const char *opt, const char *s, int min, int max, int *out, rl_error *err)
{
    int64_t v;
    if (!rl_parse_i64(s, &v) || v < min || v > max)
        return rl_fail(err, RL_EINPUT, "%s: '%s' is not valid: give a whole number from %d to %d",
                       opt, s ? s : "", min, max);
    *out = (int)v;
    return RL_OK;
}

rl_status rl_opt_double(const char *opt, const char *s, double min, bool min_exclusive, double max,
                        double *out, rl_error *err)
{
    double v;
    if (!rl_parse_double(s, &v) || (min_exclusive ? v <= min : v < min) || v > max) {
        char lo[32], hi[32];
        rl_snprintf(lo, sizeof lo, "%g", min);
        rl_snprintf(hi, sizeof hi, "%g", max);
        return rl_fail(err, RL_EINPUT,
                       "%s: '%s' is not valid: give a decimal number %s %s and at most %s "
                       "(digits and an optional '.', e.g. 13.5)",
                       opt, s ? s : "", min_exclusive ? "above" : "from", lo, hi);
    }
    *out = v;
    return RL_OK;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

rl_status rl_opt_int_list(const char *opt, const char *s, int min, int max, int *out, int max_n,
                          int *n, bool sort_unique, rl_error *err)
{
    *n = 0;
    if (!s || !*s)
        return rl_fail(err, RL_EINPUT, "%s: give a comma-separated list of whole numbers", opt);
    const char *p = s;
    int count = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[24];
        if (len == 0 || len >= sizeof item)
            return rl_fail(err, RL_EINPUT,
                           "%s: '%s' is not a list of whole numbers (one comma between numbers, "
                           "no empty or signed entries)",
                           opt, s);
        memcpy(item, p, len);
        item[len] = '\0';
        int v = 0;
        if (rl_opt_int(opt, item, min, max, &v, err) != RL_OK)
            return RL_EINPUT;
        if (count >= max_n)
            return rl_fail(err, RL_EINPUT, "%s: at most %d values", opt, max_n);
        out[count++] = v;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (sort_unique && count > 1) {
        qsort(out, (size_t)count, sizeof *out, int_cmp);
        int k = 1;
        for (int i = 1; i < count; i++)
            if (out[i] != out[k - 1])
                out[k++] = out[i];
        count = k;
    }
    *n = count;
    return RL_OK;
}

static int progress_showing;
static int progress_mode = -1;    /* 0 off, 1 terminal line, 2 every update a line, 3 paced lines */
static char progress_text[256];   /* the status showing, for the elapsed-time tick */
static double progress_since;     /* when it was set (monotonic seconds) */
static double progress_last_line; /* mode 3: when the last line was printed, -1 before any */
static double progress_last_tick;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int mode(void)
{
    if (progress_mode < 0) {
        const char *m = getenv("LLAMA_ROOFLINE_PROGRESS"), *term = getenv("TERM");
        bool dumb = !term || !*term || strcmp(term, "dumb") == 0;
        if (m && strcmp(m, "lines") == 0)
            progress_mode = 2;
        else if (m && strcmp(m, "off") == 0)
            progress_mode = 0;
        else
            progress_mode = isatty(STDERR_FILENO) && !dumb ? 1 : 3;
        progress_last_line = -1;
    }
    return progress_mode;
}

/* The terminal's width in columns: TIOCGWINSZ on stderr, else $COLUMNS, else 80. */
static size_t columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    long n = c ? strtol(c, NULL, 10) : 0;
    return n > 0 && n < 10000 ? (size_t)n : 80;
}

size_t rl_progress_fit(char *text, size_t width)
{
    size_t cols = 0, i = 0;
    for (; text[i]; i++) {
        if (((unsigned char)text[i] & 0xC0) == 0x80)
            continue; /* a continuation byte: same column */
        if (cols == width)
            break;
        cols++;
    }
    text[i] = '\0';
    return cols;
}

/* The status line on the terminal, cut to one row (a wrapped line cannot be rewritten in
 * place: the rows would pile up), with the elapsed time when it has shown for 2 s or more. */
static void show_status(void)
{
    char safe[600], tail[32] = "", line[640];
    double el = mono_s() - progress_since;
    if (el >= 2)
        rl_snprintf(tail, sizeof tail, "  (%.0f s)", el);
    rl_tty_escape(progress_text, safe, sizeof safe);
    size_t w = columns(), room = w > 1 ? w - 1 : 1, tl = strlen(tail);
    rl_progress_fit(safe, room > tl + 8 ? room - tl : room); /* the clock stays in sight */
    rl_snprintf(line, sizeof line, "%s%s", safe, room > tl + 8 ? tail : "");
    rl_tty_status(stderr, line);
    progress_showing = 1;
    fflush(stderr);
}

void rl_progress(const char *fmt, ...)
{
    int m = mode();
    if (m == 0)
        return;
    char line[256], safe[512];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    double now = mono_s();
    if (m == 1) {
        rl_snprintf(progress_text, sizeof progress_text, "%s", line);
        progress_since = progress_last_tick = now;
        show_status();
        return;
    }
    if (m == 3 && progress_last_line >= 0 && now - progress_last_line < RL_PROGRESS_PACE_S)
        return; /* not a terminal: a line now and then, not one per update */
    progress_last_line = now;
    rl_tty_printf(stderr, "%s\n", rl_tty_escape(line, safe, sizeof safe));
    fflush(stderr);
}

void rl_progress_line(const char *fmt, ...)
{
    int m = mode();
    if (m == 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    bool was = progress_showing;
    if (was)
        rl_tty_status_clear(stderr);
    rl_tty_printf(stderr, "%s\n", line);
    progress_showing = 0;
    if (was && m == 1)
        show_status(); /* the status comes back below the finished line */
    fflush(stderr);
}

void rl_progress_tick(void)
{
    if (mode() != 1 || !progress_showing)
        return;
    double now = mono_s();
    if (now - progress_last_tick < 1)
        return;
    progress_last_tick = now;
    show_status();
}

void rl_progress_done(void)
{
    if (progress_showing) {
        rl_tty_status_clear(stderr);
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

void *rl_grow(void *p, size_t *cap, size_t elem, size_t first)
{
    if (*cap > SIZE_MAX / 2)
        return NULL;
    size_t n = *cap ? *cap * 2 : first;
    if (n == 0 || elem == 0 || n > SIZE_MAX / elem)
        return NULL;
    void *q = realloc(p, n * elem);
    if (q)
        *cap = n;
    return q;
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
