/* SPDX-License-Identifier: MIT */
/* rl_text.c: locale-proof number formatting and terminal-safe strings. See rl_text.h. */
#include "base/rl_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_loc;

locale_t rl_c_locale(void)
{
    /* Created once; races are harmless because main calls rl_locale_init before any thread
     * starts, and a second newlocale would only leak one object. */
    if (!c_loc)
        c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    return c_loc;
}

void rl_locale_init(void)
{
    setlocale(LC_ALL, "");
    locale_t c = rl_c_locale();
    if (c)
        uselocale(c);
}

int rl_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
    locale_t c = rl_c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int n = vsnprintf(buf, cap, fmt, ap);
    if (old)
        uselocale(old);
    return n;
}

int rl_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = rl_vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}

void rl_fmt_size(char *buf, size_t cap, uint64_t bytes)
{
    double b = (double)bytes;
    if (bytes < 1000)
        rl_snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
    else if (b < 1e6)
        rl_snprintf(buf, cap, "%.1f kB", b / 1e3);
    else if (b < 1e9)
        rl_snprintf(buf, cap, "%.1f MB", b / 1e6);
    else if (b < 1e12)
        rl_snprintf(buf, cap, "%.2f GB", b / 1e9);
    else
        rl_snprintf(buf, cap, "%.2f TB", b / 1e12);
}

void rl_fmt_mb(char *buf, size_t cap, uint64_t bytes)
{
    double mb = (double)bytes / 1e6;
    rl_snprintf(buf, cap, "%.*f MB", mb >= 10 ? 0 : mb >= 1 ? 1 : 3, mb);
}

void rl_fmt_mib(char *buf, size_t cap, uint64_t bytes)
{
    const uint64_t mib = 1024 * 1024;
    double v = (double)bytes / (double)mib;
    if (bytes % mib == 0)
        rl_snprintf(buf, cap, "%llu MiB", (unsigned long long)(bytes / mib));
    else
        rl_snprintf(buf, cap, "%.*f MiB", v >= 10 ? 1 : 3, v);
}

void rl_fmt_sig3(char *buf, size_t cap, double v)
{
    if (!isfinite(v)) {
        rl_snprintf(buf, cap, "n/a");
        return;
    }
    double a = fabs(v);
    int decimals = 0;
    if (a > 0 && a < 1000) {
        /* the digits after the point that leave 3 significant ones, after rounding (9.996
         * rounds to "10.0", not "10.00") */
        decimals = 2 - (int)floor(log10(a));
        double scale = pow(10, decimals);
        if (round(a * scale) / scale >= pow(10, 3 - decimals))
            decimals--;
        if (decimals < 0)
            decimals = 0;
    }
    rl_snprintf(buf, cap, "%.*f", decimals, v);
}

void rl_fmt_iec(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        rl_snprintf(buf, cap, "%llu bytes", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes;
    size_t u = 0;
    v /= 1024;
    while (v >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1024;
        u++;
    }
    char n[32];
    rl_fmt_sig3(n, sizeof n, v);
    rl_snprintf(buf, cap, "%s %s", n, unit[u]);
}

void rl_fmt_count(char *buf, size_t cap, uint64_t n)
{
    double v = (double)n;
    if (n >= 1000000000ull)
        rl_snprintf(buf, cap, "%.2f B", v / 1e9);
    else if (n >= 1000000ull)
        rl_snprintf(buf, cap, "%.2f M", v / 1e6);
    else if (n >= 1000ull)
        rl_snprintf(buf, cap, "%.2f K", v / 1e3);
    else
        rl_snprintf(buf, cap, "%llu", (unsigned long long)n);
}

size_t rl_utf8_seq(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t need;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0)
        need = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        need = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        need = 3, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n <= need)
        return 0;
    for (size_t k = 1; k <= need; k++) {
        unsigned cc = s[k];
        if ((cc & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need + 1;
}

bool rl_utf8_valid(const char *s, size_t n)
{
    if (!s)
        return false;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = rl_utf8_seq(p + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

/* The text one character of s[0..n) is written as, for a terminal: *plen bytes at the
 * returned pointer (esc holds it when it is an escape), *k the bytes of s consumed. keep_tab
 * and keep_nl leave those characters as they are (layout); RL_TTY_JSON writes JSON escapes. */
static const char *tty_piece(const unsigned char *p, size_t n, rl_tty_kind kind, bool keep_tab,
                             bool keep_nl, char esc[8], size_t *plen, size_t *k)
{
    size_t len = rl_utf8_seq(p, n);
    unsigned c = p[0];
    bool c1 = len == 2 && c == 0xC2 && p[1] < 0xA0; /* C1 control U+0080..U+009F */
    bool ctl = len == 1 && (c < 0x20 || c == 0x7f);
    *k = len ? len : 1;
    if ((len && !c1 && !ctl) || (c == '\t' && keep_tab) || (c == '\n' && keep_nl)) {
        *plen = *k;
        return (const char *)p;
    }
    static const char named[] = "\n\r\t\x1b", letter[] = "nrte";
    const char *nm = c ? strchr(named, (int)c) : NULL;
    if (c1)
        snprintf(esc, 8, "\\u%04x", p[1]);
    else if (kind == RL_TTY_JSON)
        snprintf(esc, 8, "\\u%04x", len ? c : 0xfffdu);
    else if (nm)
        snprintf(esc, 8, "\\%c", letter[nm - named]);
    else
        snprintf(esc, 8, "\\x%02x", c);
    *plen = strlen(esc);
    return esc;
}

const char *rl_tty_escape_n(const char *s, size_t n, char *buf, size_t cap)
{
    if (cap == 0)
        return buf;
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (!s)
        n = 0;
    for (size_t i = 0; i < n;) {
        char esc[8];
        size_t plen, k;
        const char *piece = tty_piece(p + i, n - i, RL_TTY_TEXT, false, false, esc, &plen, &k);
        if (o + plen >= cap)
            break;
        memcpy(buf + o, piece, plen);
        o += plen;
        i += k;
    }
    buf[o] = '\0';
    return buf;
}

const char *rl_tty_escape(const char *s, char *buf, size_t cap)
{
    return rl_tty_escape_n(s, s ? strlen(s) : 0, buf, cap);
}

char *rl_tty_escape_dup(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > (SIZE_MAX - 1) / 6)
        return NULL;
    size_t cap = n * 6 + 1; /* "\u009f" is the longest escape of one byte pair: 6 per byte */
    char *buf = malloc(cap);
    if (buf)
        rl_tty_escape_n(s, n, buf, cap);
    return buf;
}

void rl_sbuf_reserve(rl_sbuf *b, size_t extra)
{
    if (b->oom || b->len + extra + 1 <= b->cap)
        return;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return;
    }
    b->p = p;
    b->cap = cap;
}

void rl_sbuf_put(rl_sbuf *b, const char *s, size_t n)
{
    rl_sbuf_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void rl_sbuf_printf(rl_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = rl_vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = true;
        return;
    }
    rl_sbuf_reserve(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    rl_vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *rl_sbuf_take(rl_sbuf *b)
{
    char *p = b->oom ? NULL : b->p;
    if (b->oom)
        free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void rl_md_escape(rl_sbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        size_t k = rl_utf8_seq(p + i, n - i);
        if (k == 0) {
            rl_sbuf_put(b, "\xEF\xBF\xBD", 3);
            i++;
        } else if (k > 1) {
            if (k == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0)
                rl_sbuf_put(b, " ", 1); /* C1 control */
            else
                rl_sbuf_put(b, (const char *)p + i, k);
            i += k;
        } else {
            char c = (char)p[i++];
            if ((unsigned char)c < 0x20 || c == 0x7f) {
                rl_sbuf_put(b, " ", 1);
            } else {
                if (strchr(RL_MD_ACTIVE, c))
                    rl_sbuf_put(b, "\\", 1);
                rl_sbuf_put(b, &c, 1);
            }
        }
    }
}

char *rl_tty_safe(const char *s, size_t n, rl_tty_kind kind, size_t *len)
{
    rl_sbuf b = {0};
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    if (!s)
        n = 0;
    rl_sbuf_reserve(&b, n);
    for (size_t i = 0; i < n && !b.oom;) {
        char esc[8];
        size_t plen, k;
        const char *piece =
            tty_piece(p + i, n - i, kind, kind == RL_TTY_JSON, true, esc, &plen, &k);
        rl_sbuf_put(&b, piece, plen);
        i += k;
    }
    if (b.oom)
        return rl_sbuf_take(&b); /* frees, NULL */
    b.p[b.len] = '\0';           /* reserved above, also when nothing was put */
    if (len)
        *len = b.len;
    return b.p;
}

void rl_tty_write(FILE *out, const char *s, size_t n, rl_tty_kind kind)
{
    size_t len;
    char *safe = rl_tty_safe(s, n, kind, &len);
    if (safe && len)
        fwrite(safe, 1, len, out);
    free(safe);
}

void rl_tty_puts(FILE *out, const char *s)
{
    rl_tty_write(out, s, s ? strlen(s) : 0, RL_TTY_TEXT);
}

void rl_tty_printf(FILE *out, const char *fmt, ...)
{
    rl_sbuf t = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = rl_vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    rl_sbuf_reserve(&t, (size_t)n);
    if (t.oom)
        return;
    va_start(ap, fmt);
    rl_vsnprintf(t.p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    rl_tty_write(out, t.p, (size_t)n, RL_TTY_TEXT);
    free(t.p);
}

void rl_tty_status(FILE *out, const char *text)
{
    char *esc = rl_tty_escape_dup(text);
    if (esc)
        fprintf(out, "\r%s\033[K", esc);
    free(esc);
}

void rl_tty_status_clear(FILE *out)
{
    fputs("\r\033[K", out);
}

static bool sh_plain(const char *a)
{
    if (!*a)
        return false;
    for (const char *p = a; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("-_./=,:+@%", *p)))
            return false;
    return true;
}

void rl_sh_quote(rl_sbuf *b, const char *word)
{
    const char *w = word ? word : "";
    if (sh_plain(w)) {
        rl_sbuf_put(b, w, strlen(w));
        return;
    }
    rl_sbuf_put(b, "'", 1);
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            rl_sbuf_put(b, "'\\''", 4);
        else
            rl_sbuf_put(b, p, 1);
    }
    rl_sbuf_put(b, "'", 1);
}

static unsigned char low(char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

unsigned rl_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 64 || m > 64)
        return 255;
    unsigned d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            unsigned sub = d[i - 1][j - 1] + (low(a[i - 1]) != low(b[j - 1]));
            unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            unsigned best = sub < del ? sub : del;
            best = ins < best ? ins : best;
            if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) &&
                low(a[i - 2]) == low(b[j - 1]) && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

int rl_nearest_word(const char *word, const char *const *cands, size_t n)
{
    size_t len = strlen(word);
    unsigned limit = len / 3 > 1 ? (unsigned)(len / 3) : 1, best = 256;
    int at = -1;
    bool tie = false;
    for (size_t i = 0; i < n; i++) {
        unsigned d = cands[i] ? rl_edit_distance(word, cands[i]) : 256;
        if (d < best) {
            best = d;
            at = (int)i;
            tie = false;
        } else if (d == best && cands[i] && strcmp(cands[i], cands[at]) != 0)
            tie = true;
    }
    return at >= 0 && best <= limit && !tie ? at : -1;
}

/* ---- terminal control sequences out of program output (rl_term_strip_run) ----------- */

enum { TS_TEXT = 0, TS_ESC, TS_NF, TS_CSI, TS_STRING, TS_STRING_ESC };

/* One byte inside an OSC/DCS/SOS/PM/APC string: BEL or ESC \ end it; bounded. */
static void term_string(rl_term_strip *st, unsigned char c)
{
    if (st->state == TS_STRING_ESC) {
        st->state = c == '\\' ? TS_TEXT : TS_STRING;
        if (st->state == TS_TEXT)
            return;
    }
    if (c == 0x07)
        st->state = TS_TEXT;
    else if (c == 0x1b)
        st->state = TS_STRING_ESC;
    else if (++st->len > RL_TERM_STRING_MAX)
        st->state = TS_TEXT;
}

size_t rl_term_strip_run(rl_term_strip *st, const char *in, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        switch (st->state) {
        case TS_ESC:
            st->len = 0;
            st->state = c == '['                                                     ? TS_CSI
                        : (c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_') ? TS_STRING
                        : c == 0x1b                                                  ? TS_ESC
                        : (c >= 0x20 && c <= 0x2f)                                   ? TS_NF
                                                                                     : TS_TEXT;
            continue;
        case TS_NF: /* ESC, intermediates (charset designations such as ESC ( B), a final */
            if (c >= 0x20 && c <= 0x2f)
                continue;
            st->state = TS_TEXT;
            if (c >= 0x30 && c <= 0x7e)
                continue;
            break;
        case TS_CSI: /* parameters and intermediates go on; a final byte ends it; any other
                        byte ends it too and is read as text again */
            if (c >= 0x20 && c <= 0x3f)
                continue;
            st->state = TS_TEXT;
            if (c >= 0x40 && c <= 0x7e)
                continue;
            break;
        case TS_STRING:
        case TS_STRING_ESC: term_string(st, c); continue;
        default: break;
        }
        if (c == 0x1b)
            st->state = TS_ESC;
        else if (c != 0x07)
            out[o++] = (char)c;
    }
    return o;
}
