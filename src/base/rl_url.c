/* SPDX-License-Identifier: MIT */
/* rl_url.c: credentials out of URLs (user information, secret query parameters). See
 * rl_url.h for the rules. */
#include "base/rl_url.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {RL_URL_SECRET_WORDS};

/* Does s[0..n) hold a secret word (case-insensitive)? */
static bool has_secret_word(const char *s, size_t n)
{
    for (size_t w = 0; w < sizeof secret_words / sizeof secret_words[0]; w++) {
        size_t wl = strlen(secret_words[w]);
        for (size_t i = 0; i + wl <= n; i++)
            if (strncasecmp(s + i, secret_words[w], wl) == 0)
                return true;
    }
    return false;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Does the parameter name raw[0..rn) hold a secret word, as given or percent-decoded ("%73ig"
 * is "sig" to the server)? */
static bool secret_name(const char *raw, size_t rn)
{
    if (has_secret_word(raw, rn))
        return true;
    char s[256];
    size_t n = 0;
    for (size_t i = 0; i < rn && n < sizeof s; i++) {
        int hi = i + 2 < rn && raw[i] == '%' ? hex_digit(raw[i + 1]) : -1;
        int lo = hi >= 0 ? hex_digit(raw[i + 2]) : -1;
        if (lo >= 0) {
            s[n++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            s[n++] = raw[i];
        }
    }
    return has_secret_word(s, n) || (n == sizeof s && rn > n); /* too long to decode: hide */
}

/* Append the parameters p[0..n) ("a=1&b=2", ';' also separates) with secret values as ***;
 * with bare_secret, a piece without a value too (a fragment: never sent to a server, and where
 * a token stands alone, e.g. "#s3cr3t"). */
static void put_params(rl_sbuf *b, const char *p, size_t n, bool bare_secret)
{
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && p[e] != '&' && p[e] != ';')
            e++;
        const char *eq = memchr(p + i, '=', e - i);
        if (eq && secret_name(p + i, (size_t)(eq - (p + i)))) {
            rl_sbuf_put(b, p + i, (size_t)(eq + 1 - (p + i)));
            rl_sbuf_put(b, "***", 3);
        } else if (!eq && bare_secret && e > i) {
            rl_sbuf_put(b, "***", 3);
        } else {
            rl_sbuf_put(b, p + i, e - i);
        }
        if (e < n)
            rl_sbuf_put(b, p + e, 1);
        i = e + 1;
    }
}

/* Append one URL starting at its authority (just after "://"); returns the bytes used (the
 * URL ends at whitespace or the end of the string). */
static size_t put_one(rl_sbuf *b, const char *u)
{
    size_t end = strcspn(u, " \t\r\n");
    size_t auth = strcspn(u, "/?#");
    if (auth > end)
        auth = end;
    const char *at = NULL;
    for (size_t i = 0; i < auth; i++)
        if (u[i] == '@')
            at = u + i;
    if (at) {
        rl_sbuf_put(b, "***", 3);
        rl_sbuf_put(b, at, (size_t)(u + auth - at));
    } else {
        rl_sbuf_put(b, u, auth);
    }
    size_t q = auth;
    while (q < end && u[q] != '?' && u[q] != '#')
        q++;
    /* the path; its ";name=value" parameters (matrix URIs) as the query's */
    size_t semi = auth;
    while (semi < q && u[semi] != ';')
        semi++;
    rl_sbuf_put(b, u + auth, semi - auth);
    if (semi < q) {
        rl_sbuf_put(b, ";", 1);
        put_params(b, u + semi + 1, q - semi - 1, false);
    }
    while (q < end) { /* '?' query, then '#' fragment */
        size_t e = q + 1;
        while (e < end && !(u[q] == '?' && u[e] == '#'))
            e++;
        rl_sbuf_put(b, u + q, 1);
        put_params(b, u + q + 1, e - q - 1, u[q] == '#');
        q = e;
    }
    return end;
}

void rl_url_redact_to(rl_sbuf *b, const char *s)
{
    const char *p = s ? s : "";
    for (const char *m = strstr(p, "://"); m; m = strstr(p, "://")) {
        rl_sbuf_put(b, p, (size_t)(m + 3 - p));
        p = m + 3;
        p += put_one(b, p);
    }
    rl_sbuf_put(b, p, strlen(p));
}

char *rl_url_redact(const char *s)
{
    rl_sbuf b = {0};
    rl_sbuf_reserve(&b, 0);
    if (!b.oom)
        b.p[0] = '\0';
    rl_url_redact_to(&b, s);
    return rl_sbuf_take(&b);
}

const char *rl_url_shown(const char *s, char *buf, size_t cap)
{
    char *r = rl_url_redact(s);
    rl_tty_escape(r ? r : "(URL not shown: out of memory)", buf, cap);
    free(r);
    return buf;
}

bool rl_url_host_is_loopback(const char *host)
{
    char h[256];
    size_t n = host ? strlen(host) : 0;
    if (n == 0 || n >= sizeof h)
        return false;
    if (host[0] == '[' && host[n - 1] == ']') { /* [::1] */
        host++;
        n -= 2;
    }
    memcpy(h, host, n);
    h[n] = '\0';
    if (n > 1 && h[n - 1] == '.') /* "localhost." */
        h[--n] = '\0';
    const char *tail = n > 10 ? h + n - 10 : NULL;
    if (strcasecmp(h, "localhost") == 0 || (tail && strcasecmp(tail, ".localhost") == 0))
        return true;
    unsigned char a[16];
    if (inet_pton(AF_INET, h, a) == 1)
        return a[0] == 127;
    if (inet_pton(AF_INET6, h, a) != 1)
        return false;
    static const unsigned char zero[10] = {0};
    if (memcmp(a, zero, 10) != 0)
        return false;
    bool v6_one = a[10] == 0 && a[11] == 0 && a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] == 1;
    return v6_one || (a[10] == 0xff && a[11] == 0xff && a[12] == 127);
}
