/* rl_gguf_testw.h: a test-only byte writer for building GGUF files in memory (little-endian
 * integers, length-prefixed strings). Included by the GGUF unit tests after <cmocka.h>; the
 * buffer in a wbuf is malloc'd and owned by the test, which frees w.p. */
#ifndef RL_GGUF_TESTW_H
#define RL_GGUF_TESTW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *p;
    size_t len, cap;
} wbuf;

__attribute__((unused)) static void w_bytes(wbuf *w, const void *d, size_t n)
{
    if (w->len + n > w->cap) {
        w->cap = (w->len + n) * 2 + 64;
        w->p = realloc(w->p, w->cap);
        assert_non_null(w->p);
    }
    if (n)
        memcpy(w->p + w->len, d, n);
    w->len += n;
}

__attribute__((unused)) static void w_le(wbuf *w, uint64_t v, unsigned n)
{
    unsigned char b[8];
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    w_bytes(w, b, n);
}
#define w_u8(w, v) w_le(w, (uint64_t)(v), 1)
#define w_u16(w, v) w_le(w, (uint64_t)(v), 2)
#define w_u32(w, v) w_le(w, (uint64_t)(v), 4)
#define w_u64(w, v) w_le(w, (uint64_t)(v), 8)

__attribute__((unused)) static void w_strn(wbuf *w, const char *s, size_t n)
{
    w_u64(w, n);
    w_bytes(w, s, n);
}

__attribute__((unused)) static void w_str(wbuf *w, const char *s)
{
    w_strn(w, s, strlen(s));
}

#endif
