/* SPDX-License-Identifier: MIT */
/* client_sse.c: the incremental event-stream parser (client_sse.h). Ownership: the parser's
 * buffers are its own, freed by rl_sse_free. */
#include "client/client_sse.h"

#include <stdlib.h>
#include <string.h>

void rl_sse_init(rl_sse *p, size_t max, rl_sse_event_fn fn, void *ud)
{
    memset(p, 0, sizeof *p);
    p->max = max ? max : RL_SSE_MAX_DEFAULT;
    p->fn = fn;
    p->ud = ud;
}

void rl_sse_free(rl_sse *p)
{
    free(rl_sbuf_take(&p->line));
    free(rl_sbuf_take(&p->data));
    p->line = (rl_sbuf){0};
    p->data = (rl_sbuf){0};
}

bool rl_sse_pending(const rl_sse *p)
{
    return p->line.len > 0 || p->has_data;
}

static void sbuf_clear(rl_sbuf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

static rl_status fail(rl_sse *p, rl_error *err, rl_status st, const char *what)
{
    p->failed = true;
    return rl_fail(err, st, "%s", what);
}

static rl_status too_long(rl_sse *p, rl_error *err, const char *what)
{
    p->failed = true;
    return rl_fail(err, RL_EINPUT,
                   "SSE %s longer than %zu bytes: the stream is not a sane event stream", what,
                   p->max);
}

static rl_status dispatch(rl_sse *p, rl_error *err)
{
    rl_status st = RL_OK;
    if (p->has_data) {
        size_t len = p->data.len;
        char empty = '\0';
        char *d = p->data.p ? p->data.p : &empty;
        if (len > 0 && d[len - 1] == '\n')
            d[--len] = '\0';
        p->events++;
        st = p->fn(p->ud, p->event[0] ? p->event : "message", d, len, err);
        if (st != RL_OK)
            p->failed = true;
    }
    sbuf_clear(&p->data);
    p->has_data = false;
    p->event[0] = '\0';
    return st;
}

static rl_status line_done(rl_sse *p, const char *s, size_t n, rl_error *err)
{
    p->lines++;
    if (n == 0)
        return dispatch(p, err);
    if (s[0] == ':')
        return RL_OK;
    const char *colon = memchr(s, ':', n);
    size_t fn = colon ? (size_t)(colon - s) : n;
    const char *v = colon ? colon + 1 : s + n;
    size_t vn = (size_t)(s + n - v);
    if (vn > 0 && v[0] == ' ') {
        v++;
        vn--;
    }
    if (fn == 4 && memcmp(s, "data", 4) == 0) {
        if (p->data.len + vn + 1 > p->max)
            return too_long(p, err, "event data");
        rl_sbuf_put(&p->data, v, vn);
        rl_sbuf_put(&p->data, "\n", 1);
        if (p->data.oom)
            return fail(p, err, RL_EINTERNAL, "out of memory buffering an SSE event");
        p->has_data = true;
    } else if (fn == 5 && memcmp(s, "event", 5) == 0) {
        size_t k = vn < sizeof p->event - 1 ? vn : sizeof p->event - 1;
        memcpy(p->event, v, k);
        p->event[k] = '\0';
    }
    return RL_OK;
}

rl_status rl_sse_feed(rl_sse *p, const char *buf, size_t n, rl_error *err)
{
    if (p->failed)
        return rl_fail(err, RL_EINPUT, "the SSE stream already failed to parse");
    size_t i = 0;
    if (!p->started && n > 0) {
        /* A byte order mark can only be recognised once its three bytes are here. */
        static const char bom[3] = {'\xEF', '\xBB', '\xBF'};
        size_t have = p->line.len;
        size_t k = 0;
        while (have + k < 3 && k < n && buf[k] == bom[have + k])
            k++;
        if (have + k == 3) {
            sbuf_clear(&p->line);
            i = k;
            p->started = true;
        } else if (k == n) {
            rl_sbuf_put(&p->line, buf, n); /* a prefix of the mark so far */
            return p->line.oom ? fail(p, err, RL_EINTERNAL, "out of memory buffering an SSE line")
                               : RL_OK;
        } else {
            p->started = true; /* no mark: the held bytes are the start of a line */
        }
    }
    while (i < n) {
        if (p->after_cr) {
            p->after_cr = false;
            if (buf[i] == '\n') {
                i++;
                continue;
            }
        }
        size_t j = i;
        while (j < n && buf[j] != '\n' && buf[j] != '\r')
            j++;
        if (j == n) {
            if (p->line.len + (n - i) > p->max)
                return too_long(p, err, "line");
            rl_sbuf_put(&p->line, buf + i, n - i);
            if (p->line.oom)
                return fail(p, err, RL_EINTERNAL, "out of memory buffering an SSE line");
            break;
        }
        const char *s = buf + i;
        size_t len = j - i;
        if (p->line.len > 0) {
            if (p->line.len + len > p->max)
                return too_long(p, err, "line");
            rl_sbuf_put(&p->line, s, len);
            if (p->line.oom)
                return fail(p, err, RL_EINTERNAL, "out of memory buffering an SSE line");
            s = p->line.p;
            len = p->line.len;
        } else if (len > p->max) {
            return too_long(p, err, "line");
        }
        rl_status st = line_done(p, s, len, err);
        sbuf_clear(&p->line);
        if (st != RL_OK)
            return st;
        p->after_cr = buf[j] == '\r';
        i = j + 1;
    }
    return RL_OK;
}
