/* SPDX-License-Identifier: MIT */
/* rl_csv.c: the strict RFC 4180 reader of rl_csv.h. The row being read grows one buffer and
 * one offset array, both owned by the reader and reused for every row. */
#include "base/rl_csv.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_util.h"

void rl_csv_init(rl_csv *c, const char *text, size_t len, size_t max_fields, size_t max_field_bytes)
{
    memset(c, 0, sizeof *c);
    c->text = text;
    c->len = text ? len : 0;
    c->max_fields = max_fields;
    c->max_field_bytes = max_field_bytes;
    c->line = c->next_line = 1;
}

void rl_csv_free(rl_csv *c)
{
    free(c->buf);
    free(c->start);
    c->buf = NULL;
    c->start = NULL;
    c->buf_cap = c->start_cap = c->n_fields = c->buf_len = 0;
}

const char *rl_csv_field(const rl_csv *c, size_t i, size_t *len)
{
    size_t end = i + 1 < c->n_fields ? c->start[i + 1] : c->buf_len;
    if (len)
        *len = end - c->start[i] - 1;
    return c->buf + c->start[i];
}

/* One byte onto the current field; false when out of memory. */
static bool put(rl_csv *c, char ch)
{
    if (c->buf_len == c->buf_cap) {
        char *nb = rl_grow(c->buf, &c->buf_cap, 1, 256);
        if (!nb)
            return false;
        c->buf = nb;
    }
    c->buf[c->buf_len++] = ch;
    return true;
}

static const char too_long[] = "a field longer than the limit";

/* How a field ended. */
typedef enum { END_FIELD, END_ROW, END_BAD } field_end;

/* After a field: a comma (another field follows), a line end or the end of the text (the row
 * is complete), or anything else (*why says what). */
static field_end after_field(rl_csv *c, const char **why)
{
    if (c->pos == c->len)
        return END_ROW;
    char ch = c->text[c->pos];
    if (ch == ',') {
        c->pos++;
        return END_FIELD;
    }
    if (ch == '\n' || (ch == '\r' && c->pos + 1 < c->len && c->text[c->pos + 1] == '\n')) {
        c->pos += ch == '\r' ? 2 : 1;
        c->next_line++;
        return END_ROW;
    }
    *why = ch == '\r' ? "a carriage return not followed by a line feed"
                      : "a character after the closing '\"' of a field; expected a comma or the "
                        "end of the line";
    return END_BAD;
}

/* One field from c->pos into the buffer; *why set on END_BAD (NULL: out of memory). */
static field_end read_field(rl_csv *c, const char **why)
{
    *why = NULL;
    bool quoted = c->pos < c->len && c->text[c->pos] == '"';
    size_t n = 0;
    if (quoted)
        c->pos++;
    for (;;) {
        if (c->pos == c->len) {
            if (!quoted)
                return END_ROW;
            *why = "a quoted field is not closed before the end of the text";
            return END_BAD;
        }
        char ch = c->text[c->pos];
        if (ch == '\0') {
            *why = "a NUL byte";
            return END_BAD;
        }
        if (quoted && ch == '"') {
            if (c->pos + 1 < c->len && c->text[c->pos + 1] == '"') {
                c->pos++; /* a doubled '"' is one '"' */
            } else {
                c->pos++;
                return after_field(c, why);
            }
        } else if (!quoted && (ch == ',' || ch == '\n' || ch == '\r')) {
            return after_field(c, why);
        } else if (!quoted && ch == '"') {
            *why = "a '\"' inside an unquoted field (a field holding '\"' is quoted and its "
                   "'\"' doubled)";
            return END_BAD;
        } else if (ch == '\n') {
            c->next_line++;
        }
        if (n++ == c->max_field_bytes) {
            *why = too_long;
            return END_BAD;
        }
        if (!put(c, ch))
            return END_BAD;
        c->pos++;
    }
}

rl_status rl_csv_next(rl_csv *c, bool *got, rl_error *err)
{
    *got = false;
    c->n_fields = c->buf_len = 0;
    size_t rest = c->pos;
    while (rest < c->len && (c->text[rest] == '\n' || c->text[rest] == '\r'))
        rest++;
    if (rest == c->len) { /* only line ends left: the end */
        c->pos = c->len;
        return RL_OK;
    }
    c->line = c->next_line;
    for (;;) {
        c->field = c->n_fields;
        if (c->n_fields == c->max_fields)
            return rl_fail(err, RL_EINPUT, "more fields in a row than the limit of %zu",
                           c->max_fields);
        if (c->n_fields == c->start_cap) {
            size_t *ns = rl_grow(c->start, &c->start_cap, sizeof *ns, 16);
            if (!ns)
                return rl_fail(err, RL_EINTERNAL, "out of memory reading CSV");
            c->start = ns;
        }
        c->start[c->n_fields++] = c->buf_len;
        size_t field_line = c->next_line;
        const char *why;
        field_end e = read_field(c, &why);
        if (e != END_BAD && !put(c, '\0'))
            e = END_BAD;
        if (e == END_BAD) {
            c->line = field_line;
            if (why == too_long)
                return rl_fail(err, RL_EINPUT, "a field longer than the limit of %zu bytes",
                               c->max_field_bytes);
            return why ? rl_fail(err, RL_EINPUT, "%s", why)
                       : rl_fail(err, RL_EINTERNAL, "out of memory reading CSV");
        }
        if (e == END_ROW)
            break;
    }
    *got = true;
    return RL_OK;
}
