/* SPDX-License-Identifier: MIT */
/* client_sse.h: an incremental parser for Server-Sent Events (text/event-stream), the framing
 * OpenAI-compatible servers stream their answers in. Bytes are fed as they arrive, split
 * anywhere; every complete event is handed to a callback.
 *
 * The rules followed (the WHATWG event-stream format): a line ends at CR, LF or CRLF (a CRLF
 * split across two feeds counts once); a UTF-8 byte order mark at the very start is skipped; a
 * line starting with ':' is a comment; "field:value" drops one space after the colon; a line
 * without a colon is a field with an empty value; "data" lines append their value and a LF to
 * the event's data; "event" sets the event type; other fields (id, retry, unknown) are
 * ignored; a blank line dispatches the event when it has data (the final LF removed), and
 * always resets it. An event still open when the stream ends is not dispatched (the caller
 * sees it through rl_sse_pending).
 *
 * Bounds: a line, or an event's data, longer than max bytes fails the feed with RL_EINPUT
 * ("SSE line longer than ... bytes"), and the parser stays failed.
 *
 * Memory: the parser owns two growing buffers (free with rl_sse_free); the data and event
 * strings passed to the callback are valid only during the call (NUL-terminated). */
#ifndef RL_CLIENT_SSE_H
#define RL_CLIENT_SSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"
#include "base/rl_text.h"

/* The default bound on a line and on one event's data. */
#define RL_SSE_MAX_DEFAULT ((size_t)1 << 20)

/* One event: its type ("message" when the stream gave none) and its data (len bytes, LF
 * between data lines). Return RL_OK to go on; any other status (with err filled) stops the
 * feed, which returns it. */
typedef rl_status (*rl_sse_event_fn)(void *ud, const char *event, const char *data, size_t len,
                                     rl_error *err);

typedef struct {
    rl_sbuf line;         /* bytes of a line not ended yet */
    rl_sbuf data;         /* data of the event being built */
    char event[64];       /* its type, truncated to fit */
    bool has_data;        /* a data field was seen since the last dispatch */
    bool after_cr;        /* the previous byte ended a line with CR: skip one LF */
    bool started;         /* past the byte order mark check */
    bool failed;          /* a bound or the callback stopped the parser */
    size_t max;           /* bound on a line and on an event's data */
    unsigned long lines;  /* lines seen (for messages and tests) */
    unsigned long events; /* events dispatched */
    rl_sse_event_fn fn;
    void *ud;
} rl_sse;

/* Set up p; max 0 means RL_SSE_MAX_DEFAULT. */
void rl_sse_init(rl_sse *p, size_t max, rl_sse_event_fn fn, void *ud);
/* Parse n more bytes. RL_EINPUT past a bound (or once failed), RL_EINTERNAL when out of
 * memory, or the callback's status. */
rl_status rl_sse_feed(rl_sse *p, const char *buf, size_t n, rl_error *err);
/* True when bytes of an unfinished line or event are waiting (the stream stopped mid-event). */
bool rl_sse_pending(const rl_sse *p);
/* Free the buffers; p can be initialised again. */
void rl_sse_free(rl_sse *p);

#endif
