/* SPDX-License-Identifier: MIT */
/* import_lbench.c: which of llama-bench's tabular outputs an input is, the typing of a row's
 * cells into the record llama-bench's JSON printer would have written, and the CSV reader.
 * See import_lbench.h; the SQL text and the SQLite database are import_sql.c's. */
#include "bundle/import_lbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_csv.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define MAX_EXACT 9007199254740992.0 /* 2^53: larger whole numbers are not exact doubles */

/* ASCII classes (the <ctype.h> ones follow the locale). */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* ---- how llama-bench's JSON types each field ------------------------------------------ */

typedef enum { F_STR, F_INT, F_BOOL, F_REAL, F_NS, F_TS } field_kind;

/* test::get_field_type of the pinned build (INT, BOOL, FLOAT, the rest STRING), the booleans
 * of older builds (f16_kv, use_mmap, the per-backend flags) and the two sample arrays its
 * JSON printer adds. */
static field_kind kind_of(const char *name)
{
    static const char *const ints[] = {
        "build_number", "n_batch",        "n_ubatch",     "n_threads", "poll",
        "model_size",   "model_n_params", "n_gpu_layers", "main_gpu",  "n_prompt",
        "n_gen",        "n_depth",        "avg_ns",       "stddev_ns", "no_op_offload",
        "n_cpu_moe",    "fit_target",     "fit_min_ctx",  "flash_attn"};
    static const char *const bools[] = {"f16_kv",  "no_kv_offload", "cpu_strict", "embeddings",
                                        "no_host", "use_mmap",      "cuda",       "opencl",
                                        "vulkan",  "kompute",       "metal",      "sycl",
                                        "rpc",     "gpu_blas",      "blas"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(name, ints[i]) == 0)
            return F_INT;
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
        if (strcmp(name, bools[i]) == 0)
            return F_BOOL;
    if (strcmp(name, "avg_ts") == 0 || strcmp(name, "stddev_ts") == 0)
        return F_REAL;
    if (strcmp(name, "samples_ns") == 0)
        return F_NS;
    if (strcmp(name, "samples_ts") == 0)
        return F_TS;
    return F_STR;
}

bool rl_import_lbench_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(is_alpha(name[i]) || is_digit(name[i])) && name[i] != '_')
            return false;
    return true;
}

/* ---- numbers written as text ------------------------------------------------------------ */

/* A JSON number (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), finite, in the C locale. */
static bool real_text(const char *s, double *out)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (is_digit(*p))
            p++;
    else
        return false;
    if (*p == '.') {
        if (!is_digit(*++p))
            return false;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return false;
        while (is_digit(*p))
            p++;
    }
    if (*p)
        return false;
    locale_t c = rl_c_locale();
    double v = c ? strtod_l(s, NULL, c) : strtod(s, NULL);
    if (!isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A whole number written in digits (a leading '-' when negative), |v| <= 2^53. */
static bool whole_text(const char *s, int64_t *out)
{
    int64_t v;
    if (!rl_parse_i64(s, &v) || v > (int64_t)MAX_EXACT || v < -(int64_t)MAX_EXACT)
        return false;
    *out = v;
    return true;
}

/* samples_ns (whole numbers) or samples_ts (numbers) written as text: entries separated by
 * spaces or by commas (with spaces around them or not), at most RL_LBENCH_MAX_SAMPLES; an
 * empty entry (",," or a comma at either end) is refused. A new array in *out, NULL with
 * *oom false when the text is not such a list. */
static cJSON *samples_text(const char *s, bool whole, bool *oom)
{
    cJSON *a = cJSON_CreateArray();
    *oom = !a;
    size_t n = 0;
    bool need = true; /* an entry must come next: at the start and after a comma */
    const char *p = s;
    while (a) {
        while (*p == ' ')
            p++;
        if (!*p || *p == ',') {
            if (need || *p == ',')
                break; /* an empty entry */
            return a;
        }
        const char *q = p;
        while (*q && *q != ' ' && *q != ',')
            q++;
        char tok[64];
        double d;
        int64_t w;
        if ((size_t)(q - p) >= sizeof tok || ++n > RL_LBENCH_MAX_SAMPLES)
            break;
        memcpy(tok, p, (size_t)(q - p));
        tok[q - p] = '\0';
        if (whole ? !(tok[0] != '-' && whole_text(tok, &w)) : !real_text(tok, &d))
            break;
        cJSON *x = whole ? cJSON_CreateNumber((double)w) : cJSON_CreateNumber(d);
        if (!x || !cJSON_AddItemToArray(a, x)) {
            cJSON_Delete(x);
            *oom = true;
            break;
        }
        for (p = q; *p == ' ';)
            p++;
        need = *p == ',';
        p += need;
    }
    cJSON_Delete(a);
    return NULL;
}

/* ---- a cell as JSON --------------------------------------------------------------------- */

/* What a field of that kind must hold, for messages. */
static const char *expected(field_kind k)
{
    switch (k) {
    case F_INT: return "a whole number";
    case F_BOOL: return "0 or 1 (or true or false)";
    case F_REAL: return "a number";
    case F_NS: return "whole numbers separated by spaces or commas (at most 10000)";
    case F_TS: return "numbers separated by spaces or commas (at most 10000)";
    case F_STR: break;
    }
    return "UTF-8 text";
}

/* The cell as llama-bench's JSON has a field of kind k: *out the value, or NULL when the cell
 * is NULL or an empty non-text one (the field is then left out). false when the cell holds no
 * such value, or when out of memory (*oom). */
static bool cell_json(field_kind k, const rl_import_cell *v, cJSON **out, bool *oom)
{
    *out = NULL;
    *oom = false;
    bool text = v->type == RL_CELL_TEXT;
    if (text && (strlen(v->text) != v->len || !rl_utf8_valid(v->text, v->len)))
        return false; /* a NUL byte or invalid UTF-8 (an SQLite TEXT value) */
    if (v->type == RL_CELL_NULL || (text && v->len == 0 && k != F_STR))
        return true;
    int64_t w = v->i;
    double d = v->type == RL_CELL_INT ? (double)v->i : v->d;
    bool is_whole = v->type == RL_CELL_INT ||
                    (v->type == RL_CELL_REAL && d == floor(d) && fabs(d) <= MAX_EXACT);
    if (is_whole)
        w = v->type == RL_CELL_INT ? v->i : (int64_t)d;
    switch (k) {
    case F_STR: {
        char num[32] = "";
        if (v->type == RL_CELL_INT)
            rl_snprintf(num, sizeof num, "%lld", (long long)v->i);
        else if (!text)
            rl_snprintf(num, sizeof num, "%.17g", v->d);
        *out = cJSON_CreateString(text ? v->text : num);
        break;
    }
    case F_INT:
        if (text ? !whole_text(v->text, &w) : !is_whole || fabs((double)w) > MAX_EXACT)
            return false;
        *out = cJSON_CreateNumber((double)w);
        break;
    case F_BOOL:
        if (text && (strcmp(v->text, "1") == 0 || strcmp(v->text, "true") == 0))
            w = 1;
        else if (text && (strcmp(v->text, "0") == 0 || strcmp(v->text, "false") == 0))
            w = 0;
        else if (text || !is_whole || (w != 0 && w != 1))
            return false;
        *out = cJSON_CreateBool(w == 1);
        break;
    case F_REAL:
        if (text ? !real_text(v->text, &d) : !isfinite(d))
            return false;
        *out = cJSON_CreateNumber(d);
        break;
    case F_NS:
    case F_TS:
        if (text) {
            *out = samples_text(v->text, k == F_NS, oom);
            return *out != NULL;
        }
        if (k == F_NS ? !is_whole || w < 0 : !isfinite(d))
            return false;
        *out = cJSON_CreateArray();
        if (*out && !cJSON_AddItemToArray(*out, k == F_NS ? cJSON_CreateNumber((double)w)
                                                          : cJSON_CreateNumber(d)))
            *oom = true;
        break;
    }
    *oom = *oom || !*out;
    return !*oom;
}

/* A cell for a message: the text quoted and cut (control characters escaped), or the number. */
static const char *describe(const rl_import_cell *v, char *buf, size_t cap)
{
    if (v->type == RL_CELL_INT) {
        rl_snprintf(buf, cap, "%lld", (long long)v->i);
    } else if (v->type == RL_CELL_REAL) {
        rl_snprintf(buf, cap, "%.17g", v->d);
    } else {
        char esc[200];
        size_t used = rl_lbench_escape(v->text, v->len, 40, esc, sizeof esc);
        rl_snprintf(buf, cap, "\"%s%s\"", esc, used < v->len ? "..." : "");
    }
    return buf;
}

/* Room for one more record in set: the array doubles from 8 as it fills. */
static bool room(rl_lbench_set *set)
{
    size_t n = set->n_records;
    if (n != 0 && (n < 8 || (n & (n - 1)) != 0))
        return true;
    rl_lbench_record *r = realloc(set->records, (n < 8 ? 8 : 2 * n) * sizeof *r);
    if (r)
        set->records = r;
    return r != NULL;
}

rl_status rl_import_lbench_row(rl_lbench_set *set, const char *file, const char *where,
                               const char *const *names, const rl_import_cell *cells, size_t n,
                               rl_error *err)
{
    if (set->n_records >= RL_LBENCH_MAX_RECORDS)
        return rl_fail(err, RL_EINPUT,
                       "%s: more than %d rows; import at most %d llama-bench records at a time",
                       file, RL_LBENCH_MAX_RECORDS, RL_LBENCH_MAX_RECORDS);
    cJSON *o = cJSON_CreateObject();
    bool oom = !o || !room(set);
    for (size_t i = 0; !oom && i < n; i++) {
        field_kind k = kind_of(names[i]);
        cJSON *v;
        if (!cell_json(k, &cells[i], &v, &oom) && !oom) {
            char what[256];
            cJSON_Delete(o);
            return rl_fail(err, RL_EINPUT, "%s: %s, column %s is %s; expected %s", file, where,
                           names[i], describe(&cells[i], what, sizeof what), expected(k));
        }
        if (v && !cJSON_AddItemToObject(o, names[i], v)) {
            cJSON_Delete(v);
            oom = true;
        }
    }
    if (oom) {
        cJSON_Delete(o);
        return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    }
    rl_error why = {RL_OK, ""};
    rl_status st = rl_lbench_record_from_json(o, &set->records[set->n_records], &why);
    if (st == RL_EINPUT)
        return rl_fail(err, RL_EINPUT, "%s: %s is not a usable llama-bench record: %s", file, where,
                       why.msg);
    if (st != RL_OK)
        return rl_fail(err, st, "%s", why.msg);
    set->n_records++;
    return RL_OK;
}

/* ---- telling the three apart ------------------------------------------------------------ */

/* The first word of an SQL statement (comments and blanks before it skipped), followed by a
 * blank, '(', ';' or the end. */
static bool sql_start(const char *t, size_t len)
{
    static const char *const words[] = {
        "CREATE",  "INSERT",   "ATTACH",    "DETACH",  "PRAGMA",  "DROP",    "BEGIN",  "COMMIT",
        "END",     "ROLLBACK", "SAVEPOINT", "RELEASE", "SELECT",  "WITH",    "UPDATE", "DELETE",
        "REPLACE", "ALTER",    "VACUUM",    "ANALYZE", "REINDEX", "EXPLAIN", "VALUES"};
    size_t i = 0;
    for (;;) {
        while (i < len && is_blank(t[i]))
            i++;
        if (i + 1 < len && t[i] == '-' && t[i + 1] == '-') {
            while (i < len && t[i] != '\n')
                i++;
        } else if (i + 1 < len && t[i] == '/' && t[i + 1] == '*') {
            const char *e = memmem(t + i + 2, len - i - 2, "*/", 2);
            if (!e)
                return false;
            i = (size_t)(e - t) + 2;
        } else {
            break;
        }
    }
    size_t w = i;
    while (w < len && is_alpha(t[w]))
        w++;
    if (w < len && !is_blank(t[w]) && t[w] != '(' && t[w] != ';')
        return false;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (w - i == strlen(words[k]) && strncasecmp(t + i, words[k], w - i) == 0)
            return true;
    return false;
}

/* A first row of at least two field names (rl_import_lbench_name_ok), comma-separated; a
 * row of more than RL_IMPORT_MAX_COLUMNS names is one too (its reading then says so). */
static bool csv_start(const char *t, size_t len)
{
    const char *nl = memchr(t, '\n', len);
    rl_csv c;
    rl_csv_init(&c, t, nl ? (size_t)(nl - t) + 1 : len, RL_IMPORT_MAX_COLUMNS, 64);
    bool got = false;
    rl_error e;
    rl_status st = rl_csv_next(&c, &got, &e);
    bool wide = st == RL_EINPUT && c.field == RL_IMPORT_MAX_COLUMNS;
    bool ok = ((st == RL_OK && got) || wide) && c.n_fields >= 2;
    for (size_t i = 0; ok && i < c.n_fields; i++)
        ok = rl_import_lbench_name_ok(rl_csv_field(&c, i, NULL));
    rl_csv_free(&c);
    return ok;
}

rl_import_lb_kind rl_import_lbench_sniff(const char *text, size_t len)
{
    if (len >= 16 && memcmp(text, "SQLite format 3", 16) == 0)
        return RL_IMPORT_LB_SQLITE;
    if (sql_start(text, len))
        return RL_IMPORT_LB_SQL;
    if (csv_start(text, len))
        return RL_IMPORT_LB_CSV;
    return RL_IMPORT_LB_NONE;
}

/* ---- CSV -------------------------------------------------------------------------------- */

/* The header row: names that are llama-bench field names, each once, n_prompt and n_gen
 * among them. names[] are new strings (freed by the caller, also on failure). */
static rl_status csv_header(rl_csv *c, const char *file, char ***names, size_t *n, rl_error *err)
{
    bool got = false;
    rl_error e = {RL_OK, "missing"};
    rl_status st = rl_csv_next(c, &got, &e);
    if (st == RL_EINTERNAL)
        return rl_fail(err, st, "%s", e.msg);
    if (st != RL_OK || !got)
        return rl_fail(err, RL_EINPUT, "%s: line 1 (the header): %s", file, e.msg);
    *names = rl_calloc(c->n_fields, sizeof **names);
    if (!*names)
        return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    for (*n = 0; *n < c->n_fields; (*n)++)
        if (!((*names)[*n] = rl_strdup(rl_csv_field(c, *n, NULL))))
            return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    bool has_p = false, has_g = false;
    for (size_t i = 0; i < *n; i++) {
        const char *s = (*names)[i];
        if (!rl_import_lbench_name_ok(s))
            return rl_fail(err, RL_EINPUT,
                           "%s: line 1 (the header), field %zu is not a llama-bench field name "
                           "(1 to 64 letters, digits and '_')",
                           file, i + 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(s, (*names)[j]) == 0)
                return rl_fail(err, RL_EINPUT,
                               "%s: line 1 (the header) names column %s twice (fields %zu and "
                               "%zu)",
                               file, s, j + 1, i + 1);
        has_p |= strcmp(s, "n_prompt") == 0;
        has_g |= strcmp(s, "n_gen") == 0;
    }
    if (!has_p || !has_g)
        return rl_fail(err, RL_EINPUT,
                       "%s: not an importable file: a CSV whose header has no %s column; "
                       "expected llama-bench -o csv output (a header of its field names, "
                       "n_prompt and n_gen among them)",
                       file, has_p ? "n_gen" : "n_prompt");
    return RL_OK;
}

/* The current row is the header again (llama-bench prints one per run: outputs appended). */
static bool is_header(const rl_csv *c, char *const *names, size_t n)
{
    for (size_t i = 0; c->n_fields == n && i < n; i++)
        if (strcmp(rl_csv_field(c, i, NULL), names[i]) != 0)
            return false;
    return c->n_fields == n;
}

static rl_status read_csv(const char *text, size_t len, const char *file, rl_lbench_set *set,
                          rl_error *err)
{
    rl_csv c;
    rl_csv_init(&c, text, len, RL_IMPORT_MAX_COLUMNS, RL_LBENCH_MAX_LINE);
    char **names = NULL;
    size_t n = 0, row = 0;
    rl_status st = csv_header(&c, file, &names, &n, err);
    rl_import_cell *cells = st == RL_OK ? rl_calloc(n, sizeof *cells) : NULL;
    if (st == RL_OK && !cells)
        st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    while (st == RL_OK) {
        bool got;
        rl_error e;
        if ((st = rl_csv_next(&c, &got, &e)) != RL_OK) {
            char col[96] = "";
            if (c.field < n)
                rl_snprintf(col, sizeof col, ", column %s", names[c.field]);
            st = st == RL_EINPUT ? rl_fail(err, st, "%s: line %zu%s: %s", file, c.line, col, e.msg)
                                 : rl_fail(err, st, "%s", e.msg);
            break;
        }
        if (!got)
            break;
        if (is_header(&c, names, n)) {
            set->n_skipped_lines++;
            continue;
        }
        row++;
        if (c.n_fields != n) {
            st =
                rl_fail(err, RL_EINPUT, "%s: line %zu (row %zu) has %zu fields; the header has %zu",
                        file, c.line, row, c.n_fields, n);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            cells[i] = (rl_import_cell){RL_CELL_TEXT, NULL, 0, 0, 0};
            cells[i].text = rl_csv_field(&c, i, &cells[i].len);
        }
        char where[64];
        rl_snprintf(where, sizeof where, "line %zu (row %zu)", c.line, row);
        st = rl_import_lbench_row(set, file, where, (const char *const *)names, cells, n, err);
    }
    if (st == RL_OK && set->n_records == 0)
        st = rl_fail(err, RL_EINPUT, "%s: the CSV has a header and no rows: nothing to import",
                     file);
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
    free(cells);
    rl_csv_free(&c);
    return st;
}

rl_status rl_import_lbench_read(rl_import_lb_kind kind, const char *text, size_t len,
                                const char *file, rl_lbench_set *set, rl_error *err)
{
    memset(set, 0, sizeof *set);
    rl_status st = kind == RL_IMPORT_LB_CSV   ? read_csv(text, len, file, set, err)
                   : kind == RL_IMPORT_LB_SQL ? rl_import_lbench_sql(text, len, file, set, err)
                   : kind == RL_IMPORT_LB_SQLITE
                       ? rl_import_lbench_sqlite(text, len, file, set, err)
                       : rl_fail(err, RL_EINTERNAL, "no such input kind");
    if (st != RL_OK)
        rl_lbench_set_free(set);
    return st;
}
