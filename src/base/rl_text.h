/* SPDX-License-Identifier: MIT */
/* rl_text.h: the one place numbers and untrusted strings become text for people.
 *
 * Numbers: every formatter here prints in the C locale whatever the process locale is (a
 * private C locale_t is selected around each call), so "13.98" never becomes "13,98".
 * rl_locale_init() is called once by main: it honours the environment's locale for the
 * libraries that consult it and then pins the main thread's own formatting to C.
 *
 * Strings: anything that came from a file, a file name or a child process may hold escape
 * sequences; rl_tty_escape() turns control characters (C0, DEL, C1) and bytes that are not
 * UTF-8 into visible escapes (\e, \n, \x9b ...), so nothing reaches a terminal raw; the
 * rl_tty_* writers below are the one path for everything printed to stdout and stderr.
 *
 * Nothing here allocates except rl_tty_escape_dup and rl_tty_safe (caller frees). Buffers are
 * the caller's; output is always NUL-terminated and cut at a character boundary when it does
 * not fit. */
#ifndef RL_TEXT_H
#define RL_TEXT_H

#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Honour the environment's locale (setlocale(LC_ALL, "")) and pin this thread's number
 * formatting to the C locale. Call once at start-up, before other threads exist. */
void rl_locale_init(void);
/* A C locale object for strtod_l and friends; (locale_t)0 only if newlocale failed. */
locale_t rl_c_locale(void);

/* snprintf in the C locale; returns what snprintf returns. */
int rl_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rl_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Sizes and counts for people (SI units are 10^3 steps, IEC units 2^10):
 *   rl_fmt_size  "512 bytes", "1.5 kB", "491.5 MB", "1.23 GB", "1.10 TB" (unit chosen)
 *   rl_fmt_mb    always MB: "491 MB" from 10 MB, "9.5 MB" from 1 MB, "0.123 MB" below
 *   rl_fmt_mib   always MiB: "512 MiB" when whole, "330.2 MiB" from 10 MiB, "9.500 MiB" below
 *   rl_fmt_count "999", "1.50 K", "494.03 M", "1.54 B"
 *   rl_fmt_iec   3 significant digits in the IEC unit that fits: "512 bytes", "2.00 KiB",
 *                "31.7 GiB", "1.86 GiB", "512 MiB", "1.00 TiB"
 *   rl_fmt_sig3  a number to 3 significant digits, never an exponent, whole numbers of 1000
 *                and more as integers: "53.9", "0.0123", "14.0", "1234", "-2.50"; "n/a" when
 *                not finite */
void rl_fmt_size(char *buf, size_t cap, uint64_t bytes);
void rl_fmt_iec(char *buf, size_t cap, uint64_t bytes);
void rl_fmt_sig3(char *buf, size_t cap, double v);
void rl_fmt_mb(char *buf, size_t cap, uint64_t bytes);
void rl_fmt_mib(char *buf, size_t cap, uint64_t bytes);
void rl_fmt_count(char *buf, size_t cap, uint64_t n);

/* True when s[0..n) is well-formed UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF). */
bool rl_utf8_valid(const char *s, size_t n);
/* Length of the valid UTF-8 sequence at s (1..4, at most n), or 0 when the bytes there are
 * not one. */
size_t rl_utf8_seq(const unsigned char *s, size_t n);

/* Copy s into buf with control characters and invalid bytes escaped: \n \r \t \e and \xNN
 * (C1 controls, encoded in UTF-8 as C2 80..C2 9F, become \u0080..\u009f). Returns buf. */
const char *rl_tty_escape(const char *s, char *buf, size_t cap);
/* The same for n bytes that may hold NULs. */
const char *rl_tty_escape_n(const char *s, size_t n, char *buf, size_t cap);
/* The same into a new string (caller frees); NULL when out of memory. */
char *rl_tty_escape_dup(const char *s);

/* The one path to standard output and standard error. Every line the tool prints (tables,
 * help, messages, errors, progress) and every document it writes there (JSON, CSV, Markdown,
 * an HTML page) goes through one of the rl_tty_* functions below; no other file calls stdio's
 * printf/fputs/fwrite family (scripts/check-tty.py, run by the test cli.tty_guard). Two kinds
 * of text, both free of every control character but layout:
 *   RL_TTY_TEXT  lines for people, Markdown, CSV: each control character (C0, DEL, C1) and
 *                each byte that is not UTF-8 as rl_tty_escape writes it (\e, \x07, \u009b,
 *                \x9b); '\n' stays a line break.
 *   RL_TTY_JSON  JSON, and HTML (which embeds its bundle as JSON): C0 but '\n' and '\t', DEL
 *                and C1 as the JSON escapes \u001b, \u007f, \u009b (the same string to a JSON
 *                reader: such bytes only occur inside strings), each byte that is not UTF-8 as
 *                \ufffd; '\n' and '\t' stay (the layout cJSON and the page use). */
typedef enum { RL_TTY_TEXT, RL_TTY_JSON } rl_tty_kind;

/* fmt and its arguments formatted in the C locale, then written as RL_TTY_TEXT: every control
 * character but '\n' (and bytes that are not UTF-8) escaped; newlines stay line breaks.
 * Out of memory prints nothing. */
void rl_tty_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Pre-built text (help, a table line) as RL_TTY_TEXT. */
void rl_tty_puts(FILE *out, const char *s);
/* n bytes of pre-built text or a document (may hold NULs) as kind. */
void rl_tty_write(FILE *out, const char *s, size_t n, rl_tty_kind kind);
/* s[0..n) as rl_tty_write writes it, into a new string (*len its length, without the NUL the
 * string ends with; caller frees); NULL when out of memory. */
char *rl_tty_safe(const char *s, size_t n, rl_tty_kind kind, size_t *len);
/* A program's terminal output as the text a reader sees: a streaming filter that drops
 * ECMA-48 control sequences (CSI: ESC [ params intermediates final, e.g. colours and cursor
 * moves; OSC: ESC ] ... ended by BEL or ESC \, e.g. titles and hyperlinks; DCS, SOS, PM and
 * APC: ESC P / X / ^ / _ ... ended by ESC \; nF escapes such as ESC ( B;
 * every other ESC x pair) and lone BEL bytes; all
 * other bytes pass unchanged. A sequence split across calls is carried in the state (zeroed
 * to start). A string sequence (OSC, DCS...) still open after RL_TERM_STRING_MAX bytes is
 * given up: those bytes are dropped and the filter returns to text, so an unterminated
 * sequence cannot swallow a whole answer. Writes at most n bytes to out (out may be in). */
#define RL_TERM_STRING_MAX 4096
typedef struct {
    unsigned char state;
    uint32_t len; /* bytes inside the current string sequence */
} rl_term_strip;
size_t rl_term_strip_run(rl_term_strip *st, const char *in, size_t n, char *out);

/* The progress line on a terminal, rewritten in place: "\r", text escaped as RL_TTY_TEXT
 * (its newlines too), then erase-to-end-of-line (ESC [ K), the only control characters the
 * tool sends on purpose; rl_tty_status_clear erases it ("\r" ESC [ K). */
void rl_tty_status(FILE *out, const char *text);
void rl_tty_status_clear(FILE *out);

/* A growing string, for text built piece by piece (Markdown, JSON escapes, messages). Zero it
 * to start ({0}); after out-of-memory every call is a no-op and oom stays set. The buffer is
 * always NUL-terminated once anything was added; rl_sbuf_take hands it over (caller frees;
 * NULL after out-of-memory, when the buffer is freed instead). */
typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} rl_sbuf;

void rl_sbuf_reserve(rl_sbuf *b, size_t extra);
void rl_sbuf_put(rl_sbuf *b, const char *s, size_t n);
/* printf in the C locale. */
void rl_sbuf_printf(rl_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *rl_sbuf_take(rl_sbuf *b);

/* The Markdown characters rl_md_escape backslash-escapes: the union of the characters the
 * report, compare, predict and advise Markdown escaped before there was one escaper. */
#define RL_MD_ACTIVE "\\`*_[]<>|~&#"
/* Append s (NULL as "") as Markdown text: each character of RL_MD_ACTIVE backslash-escaped;
 * newlines, other C0 controls, DEL and C1 controls (U+0080..U+009F) as one space each; bytes
 * that are not UTF-8 as U+FFFD. Safe inside a table cell and on one line. */
void rl_md_escape(rl_sbuf *b, const char *s);

/* Shell words. A word made only of letters, digits and -_./=,:+@% is appended as is, any other
 * (empty, spaces, quotes, $, ...) in single quotes with each ' written '\'' ("my model.gguf"
 * -> 'my model.gguf', "it's" -> 'it'\''s'): the line pasted into sh gives the same word.
 * The callers (the report's command lines, advise --plan) escape control characters for the
 * terminal first. */
void rl_sh_quote(rl_sbuf *b, const char *word);

/* Did-you-mean: the edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours, each 1; ASCII case ignored) between a and b, capped at 255 for words longer than
 * 64 bytes; and which of cands[0..n) is nearest to word, when within max(1, strlen(word) / 3)
 * edits and nearer than every other candidate: its index, or -1 (none near, or a tie). */
unsigned rl_edit_distance(const char *a, const char *b);
int rl_nearest_word(const char *word, const char *const *cands, size_t n);

#endif
