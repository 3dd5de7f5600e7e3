/* SPDX-License-Identifier: MIT */
/* advise_matrix.c: the strict reader of data/format_matrix.csv. See advise_matrix.h. */
#include "analyse/advise_matrix.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_util.h"

static const char *const columns[RL_MX_COLS] = {"core",
                                                "core_label",
                                                "isa",
                                                "model",
                                                "params_b",
                                                "threads",
                                                "format",
                                                "tok_s",
                                                "streamed_MiB",
                                                "file_MiB",
                                                "streamed_GBs",
                                                "mJ_per_token",
                                                "perplexity",
                                                "on_label_pct",
                                                "bits_per_weight",
                                                "repack_coverage_pct",
                                                "normalization",
                                                "basis",
                                                "source"};

typedef struct {
    const char *p;
    size_t n;
} field;

/* Split one line into exactly RL_MX_COLS fields; false on any other count. */
static bool split(const char *line, size_t len, field *f)
{
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || line[i] == ',') {
            if (k >= RL_MX_COLS)
                return false;
            f[k].p = line + start;
            f[k].n = i - start;
            k++;
            start = i + 1;
        }
    }
    return k == RL_MX_COLS;
}

static bool copy_str(const field *f, char *dst, size_t cap)
{
    if (f->n == 0 || f->n >= cap)
        return false;
    for (size_t i = 0; i < f->n; i++)
        if ((unsigned char)f->p[i] < 0x20 || f->p[i] == 0x7f)
            return false;
    memcpy(dst, f->p, f->n);
    dst[f->n] = '\0';
    return true;
}

/* A number by the number rule within [lo, hi]; empty gives NAN when optional. */
static bool num(const field *f, bool optional, double lo, double hi, double *out)
{
    char buf[48];
    if (f->n == 0) {
        *out = NAN;
        return optional;
    }
    if (f->n >= sizeof buf)
        return false;
    memcpy(buf, f->p, f->n);
    buf[f->n] = '\0';
    double v;
    if (!rl_parse_double(buf, &v) || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

static rl_status bad(rl_error *err, const char *name, size_t line, int col)
{
    return rl_fail(err, RL_EINPUT,
                   "%s: line %zu: column %s is missing or out of range (the format matrix is "
                   "damaged: rebuild llama-roofline from a clean checkout)",
                   name, line, col >= 0 ? columns[col] : "count");
}

/* How each column is read, in column order: a string into a char array of the row, or a
   number within [lo, hi] (optional: empty gives NAN), or a whole number (threads). */
typedef enum { COL_STR, COL_NUM, COL_WHOLE } col_kind;

typedef struct {
    col_kind kind;
    size_t off, cap; /* cap: COL_STR only */
    bool optional;
    double lo, hi;
} col_rule;

#define STR_COL(f)                                                                                 \
    {                                                                                              \
        COL_STR, offsetof(rl_mx_row, f), sizeof((rl_mx_row *)0)->f, false, 0, 0                    \
    }
#define NUM_COL(f, opt, lo, hi)                                                                    \
    {                                                                                              \
        COL_NUM, offsetof(rl_mx_row, f), 0, opt, lo, hi                                            \
    }

static const col_rule col_rules[RL_MX_COLS] = {
    STR_COL(core),
    STR_COL(core_label),
    STR_COL(isa),
    STR_COL(model),
    NUM_COL(params_b, false, 0.001, 10000),
    {COL_WHOLE, offsetof(rl_mx_row, threads), 0, false, 1, 4096},
    STR_COL(format),
    NUM_COL(tok_s, false, 1e-6, 1e6),
    NUM_COL(streamed_mib, false, 1e-6, 1e9),
    NUM_COL(file_mib, false, 1e-6, 1e9),
    NUM_COL(streamed_gbs, false, 0, 1e6),
    NUM_COL(mj_per_token, true, 0, 1e9),
    NUM_COL(perplexity, true, 0, 1e9),
    NUM_COL(on_label_pct, false, 0, 100),
    NUM_COL(bits_per_weight, false, 1, 33),
    NUM_COL(repack_pct, true, 0, 100),
    STR_COL(normalization),
    STR_COL(basis),
    STR_COL(source),
};

static rl_status parse_row(const char *name, size_t ln, const field *f, rl_mx_row *r, rl_error *err)
{
    for (int c = 0; c < RL_MX_COLS; c++) {
        const col_rule *cr = &col_rules[c];
        char *at = (char *)r + cr->off;
        double v;
        bool ok;
        switch (cr->kind) {
        case COL_STR: ok = copy_str(&f[c], at, cr->cap); break;
        case COL_NUM:
            ok = num(&f[c], cr->optional, cr->lo, cr->hi, &v);
            if (ok)
                memcpy(at, &v, sizeof v);
            break;
        default: /* COL_WHOLE */
            ok = num(&f[c], false, cr->lo, cr->hi, &v) && v == floor(v);
            if (ok) {
                int t = (int)v;
                memcpy(at, &t, sizeof t);
            }
            break;
        }
        if (!ok)
            return bad(err, name, ln, c);
    }
    return RL_OK;
}

rl_status rl_matrix_parse(const char *name, const char *text, size_t len, rl_matrix *out,
                          rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text || len == 0)
        return rl_fail(err, RL_EINPUT, "%s: the format matrix is empty", name);
    if (memchr(text, '"', len) || memchr(text, '\0', len) || memchr(text, '\r', len))
        return rl_fail(err, RL_EINPUT,
                       "%s: quotes, NUL bytes and carriage returns are not part of the format "
                       "matrix",
                       name);
    size_t n_lines = 0;
    for (size_t i = 0; i < len; i++)
        n_lines += text[i] == '\n';
    if (n_lines > RL_MX_MAX_ROWS + 1)
        return rl_fail(err, RL_EINPUT, "%s: more than %d rows", name, RL_MX_MAX_ROWS);
    out->rows = rl_calloc(n_lines + 1, sizeof *out->rows);
    if (!out->rows)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t pos = 0, ln = 0;
    rl_status st = RL_OK;
    while (pos < len && st == RL_OK) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        size_t n = end - pos;
        const char *line = text + pos;
        pos = end + 1;
        ln++;
        field f[RL_MX_COLS];
        if (n > RL_MX_MAX_LINE)
            st = rl_fail(err, RL_EINPUT, "%s: line %zu is longer than %d bytes", name, ln,
                         RL_MX_MAX_LINE);
        else if (!split(line, n, f))
            st = bad(err, name, ln, -1);
        else if (ln == 1) {
            for (int c = 0; c < RL_MX_COLS && st == RL_OK; c++)
                if (f[c].n != strlen(columns[c]) || memcmp(f[c].p, columns[c], f[c].n) != 0)
                    st = rl_fail(err, RL_EINPUT, "%s: header column %d is not '%s'", name, c + 1,
                                 columns[c]);
        } else {
            st = parse_row(name, ln, f, &out->rows[out->n], err);
            if (st == RL_OK)
                out->n++;
        }
    }
    if (st == RL_OK && out->n == 0)
        st = rl_fail(err, RL_EINPUT, "%s: the format matrix has no rows", name);
    if (st != RL_OK)
        rl_matrix_free(out);
    return st;
}

rl_status rl_matrix_builtin(rl_matrix *out, rl_error *err)
{
    return rl_matrix_parse("format_matrix.csv", (const char *)rl_asset_format_matrix_csv,
                           rl_asset_format_matrix_csv_len, out, err);
}

void rl_matrix_free(rl_matrix *m)
{
    if (!m)
        return;
    free(m->rows);
    memset(m, 0, sizeof *m);
}

size_t rl_matrix_cores(const rl_matrix *m, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = strcmp(out[j], m->rows[i].core) == 0;
        if (!seen && n < cap)
            out[n++] = m->rows[i].core;
    }
    return n;
}

const rl_mx_row *rl_matrix_core_row(const rl_matrix *m, const char *core)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->rows[i].core, core) == 0)
            return &m->rows[i];
    return NULL;
}
