/* SPDX-License-Identifier: MIT */
/* rl_csv.h: the one strict CSV reader (RFC 4180) for text held in memory, row by row.
 *
 * A field is either unquoted (no '"', CR or LF in it) or quoted: '"' ... '"' with a '"' inside
 * written twice, and commas, CR and LF inside kept as they are. Rows end at CRLF or LF; the
 * last row may lack its line end, and blank lines at the very end are ignored. Everything else
 * is RL_EINPUT with a phrase saying what was found and expected ("a quoted field is not closed
 * before the end of the text"); the line and field it happened in are in the reader (line,
 * field), so the caller's message names the file, the line and the column. The counts are
 * bounded: at most max_fields fields in a row, at most max_field_bytes bytes in a field. Rows
 * are not counted here: the caller bounds them. Bytes are not interpreted (UTF-8 is the
 * caller's check); a NUL byte is refused.
 *
 * Ownership: the text is borrowed and must outlive the reader; the reader owns the current
 * row's fields (valid until the next rl_csv_next or rl_csv_free). Nothing here prints. */
#ifndef RL_CSV_H
#define RL_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"

typedef struct {
    const char *text; /* borrowed */
    size_t len, pos;
    size_t max_fields, max_field_bytes;
    size_t line;  /* the line (from 1) the last row began on, or the error happened on */
    size_t field; /* the field (from 0) the error happened in */
    char *buf;    /* the row's fields, each NUL-terminated, one after the other */
    size_t buf_len, buf_cap;
    size_t *start; /* the offset of each field in buf */
    size_t n_fields, start_cap;
    size_t next_line; /* the line pos is on */
} rl_csv;

/* A reader of text[0..len). */
void rl_csv_init(rl_csv *c, const char *text, size_t len, size_t max_fields,
                 size_t max_field_bytes);
/* The next row: *got true and the fields in the reader; *got false at the end of the text.
 * RL_EINPUT with a phrase (no file, line or column in it) on malformed text, RL_EINTERNAL when
 * out of memory. */
rl_status rl_csv_next(rl_csv *c, bool *got, rl_error *err);
/* Field i (i < c->n_fields) of the current row, NUL-terminated; its length in *len (may be
 * NULL). */
const char *rl_csv_field(const rl_csv *c, size_t i, size_t *len);
void rl_csv_free(rl_csv *c);

#endif
