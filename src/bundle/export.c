/* SPDX-License-Identifier: MIT */
/* export.c: llama-bench's JSONL, CSV and SQLite formats from a bundle's records. See export.h.
 * Everything allocated here is freed before each function returns. */
#include "bundle/export.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rl_json.h"
#include "base/rl_util.h"

bool rl_export_fmt_parse(const char *name, rl_export_fmt *fmt)
{
    if (strcmp(name, "jsonl") == 0)
        *fmt = RL_EXPORT_JSONL;
    else if (strcmp(name, "csv") == 0)
        *fmt = RL_EXPORT_CSV;
    else if (strcmp(name, "sqlite") == 0 || strcmp(name, "sql") == 0 || strcmp(name, "db") == 0)
        *fmt = RL_EXPORT_SQLITE;
    else
        return false;
    return true;
}

rl_status rl_export_collect(const cJSON *const *bundles, const char *const *names, size_t n,
                            const cJSON **recs, size_t max, size_t *n_recs, rl_error *err)
{
    *n_recs = 0;
    for (size_t b = 0; b < n; b++) {
        size_t before = *n_recs;
        const cJSON *m, *r, *rec;
        cJSON_ArrayForEach(m, rl_json_get(bundles[b], "models"))
        {
            cJSON_ArrayForEach(r, rl_json_get(m, "runs"))
            {
                cJSON_ArrayForEach(rec, rl_json_get(r, "records"))
                {
                    if (!cJSON_IsObject(rec))
                        continue;
                    if (*n_recs >= max)
                        return rl_fail(err, RL_EINPUT, "more than %zu llama-bench records", max);
                    recs[(*n_recs)++] = rec;
                }
            }
        }
        if (*n_recs == before)
            return rl_fail(err, RL_EINPUT,
                           "%s has no llama-bench records (an imported table, a client or a "
                           "calibration bundle): nothing to export",
                           names[b]);
    }
    return RL_OK;
}

/* A field of llama-bench's records: samples (arrays) are not columns. */
static bool is_column(const cJSON *f)
{
    return f->string && !rl_json_is_array(f) && !cJSON_IsObject(f);
}

/* llama-bench's REAL columns (get_field_type's FLOAT). */
static bool is_real(const char *name)
{
    return strcmp(name, "avg_ts") == 0 || strcmp(name, "stddev_ts") == 0;
}

/* A value as llama-bench's get_values() writes it: strings as they are, booleans 1/0, the rates
 * with six decimals (std::to_string of a double), whole numbers in digits. */
static void put_value(rl_sbuf *b, const char *name, const cJSON *v)
{
    if (cJSON_IsString(v))
        rl_sbuf_put(b, v->valuestring, strlen(v->valuestring));
    else if (cJSON_IsBool(v))
        rl_sbuf_put(b, cJSON_IsTrue(v) ? "1" : "0", 1);
    else if (cJSON_IsNumber(v) && is_real(name))
        rl_sbuf_printf(b, "%f", v->valuedouble);
    else if (cJSON_IsNumber(v) && fabs(v->valuedouble) < 9.007199254740992e15 &&
             v->valuedouble == floor(v->valuedouble))
        rl_sbuf_printf(b, "%.0f", v->valuedouble);
    else if (cJSON_IsNumber(v))
        rl_sbuf_printf(b, "%.17g", v->valuedouble);
}

/* One CSV cell: quoted, '"' doubled (llama-bench's escape_csv). */
static void put_cell(rl_sbuf *out, const char *name, const cJSON *v)
{
    rl_sbuf cell = {0};
    put_value(&cell, name, v);
    rl_sbuf_put(out, "\"", 1);
    for (size_t i = 0; cell.p && i < cell.len; i++)
        rl_sbuf_put(out, cell.p[i] == '"' ? "\"\"" : cell.p + i, cell.p[i] == '"' ? 2 : 1);
    rl_sbuf_put(out, "\"", 1);
    free(cell.p);
    out->oom |= cell.oom;
}

/* CSV: the first record's fields are the header (llama-bench prints one header per run; the
 * records of one build share it); a field a later record lacks is an empty cell. */
static void csv(const cJSON *const *recs, size_t n, rl_sbuf *out)
{
    const cJSON *f;
    bool first = true;
    cJSON_ArrayForEach(f, recs[0])
    {
        if (!is_column(f))
            continue;
        rl_sbuf_printf(out, "%s%s", first ? "" : ",", f->string);
        first = false;
    }
    rl_sbuf_put(out, "\n", 1);
    for (size_t i = 0; i < n; i++) {
        first = true;
        cJSON_ArrayForEach(f, recs[0])
        {
            if (!is_column(f))
                continue;
            if (!first)
                rl_sbuf_put(out, ",", 1);
            put_cell(out, f->string, cJSON_GetObjectItemCaseSensitive(recs[i], f->string));
            first = false;
        }
        rl_sbuf_put(out, "\n", 1);
    }
}

rl_status rl_export_text(const cJSON *const *recs, size_t n, rl_export_fmt fmt, rl_sbuf *out,
                         rl_error *err)
{
    if (fmt == RL_EXPORT_CSV && n > 0)
        csv(recs, n, out);
    for (size_t i = 0; fmt == RL_EXPORT_JSONL && i < n; i++) {
        char *line = cJSON_PrintUnformatted(recs[i]);
        if (!line)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        rl_sbuf_printf(out, "%s\n", line);
        free(line);
    }
    return out->oom ? rl_fail(err, RL_EINTERNAL, "out of memory") : RL_OK;
}

/* The column type llama-bench's sql printer gives a field (get_field_type: INT and BOOL are
 * INTEGER, FLOAT is REAL, the rest TEXT). */
static const char *sql_type(const char *name)
{
    static const char *const ints[] = {
        "build_number",  "n_batch",        "n_ubatch",     "n_threads",  "poll",
        "model_size",    "model_n_params", "n_gpu_layers", "main_gpu",   "n_prompt",
        "n_gen",         "n_depth",        "avg_ns",       "stddev_ns",  "no_op_offload",
        "n_cpu_moe",     "fit_target",     "fit_min_ctx",  "flash_attn", "f16_kv",
        "no_kv_offload", "cpu_strict",     "embeddings",   "no_host"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (strcmp(name, ints[i]) == 0)
            return "INTEGER";
    return is_real(name) ? "REAL" : "TEXT";
}

/* An identifier for SQL: double-quoted, '"' doubled (a hostile field name stays a name). */
static void put_ident(rl_sbuf *b, const char *name)
{
    rl_sbuf_put(b, "\"", 1);
    for (const char *p = name; *p; p++)
        rl_sbuf_put(b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    rl_sbuf_put(b, "\"", 1);
}

/* CREATE TABLE and the INSERT statement with one parameter per column of the first record. */
static void sql_text(const cJSON *first, rl_sbuf *create, rl_sbuf *insert, int *n_cols)
{
    const cJSON *f;
    *n_cols = 0;
    rl_sbuf_printf(create, "CREATE TABLE IF NOT EXISTS llama_bench (");
    rl_sbuf_printf(insert, "INSERT INTO llama_bench (");
    cJSON_ArrayForEach(f, first)
    {
        if (!is_column(f))
            continue;
        const char *sep = *n_cols ? ", " : "";
        rl_sbuf_printf(create, "%s", sep);
        put_ident(create, f->string);
        rl_sbuf_printf(create, " %s", sql_type(f->string));
        rl_sbuf_printf(insert, "%s", sep);
        put_ident(insert, f->string);
        (*n_cols)++;
    }
    rl_sbuf_printf(create, ");");
    rl_sbuf_printf(insert, ") VALUES (");
    for (int i = 0; i < *n_cols; i++)
        rl_sbuf_printf(insert, "%s?", i ? ", " : "");
    rl_sbuf_printf(insert, ");");
}

/* One row: each column of the first record bound from this record (NULL when it lacks it). */
static int sql_row(sqlite3_stmt *st, const cJSON *first, const cJSON *rec)
{
    const cJSON *f;
    int k = 0, rc = SQLITE_OK;
    sqlite3_reset(st);
    cJSON_ArrayForEach(f, first)
    {
        if (!is_column(f))
            continue;
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, f->string);
        k++;
        if (cJSON_IsString(v))
            rc = sqlite3_bind_text(st, k, v->valuestring, -1, SQLITE_TRANSIENT);
        else if (cJSON_IsBool(v))
            rc = sqlite3_bind_int(st, k, cJSON_IsTrue(v));
        else if (cJSON_IsNumber(v) && strcmp(sql_type(f->string), "INTEGER") == 0)
            rc = sqlite3_bind_int64(st, k, (sqlite3_int64)v->valuedouble);
        else if (cJSON_IsNumber(v))
            rc = sqlite3_bind_double(st, k, v->valuedouble);
        else
            rc = sqlite3_bind_null(st, k);
        if (rc != SQLITE_OK)
            return rc;
    }
    rc = sqlite3_step(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The table and its rows in db, in one transaction. */
static int sql_fill(sqlite3 *db, const cJSON *const *recs, size_t n)
{
    rl_sbuf create = {0}, insert = {0};
    int n_cols = 0;
    sql_text(recs[0], &create, &insert, &n_cols);
    int rc = create.oom || insert.oom ? SQLITE_NOMEM : SQLITE_OK;
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "BEGIN;", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, create.p, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, insert.p, -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
        rc = sql_row(st, recs[0], recs[i]);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL);
    free(create.p);
    free(insert.p);
    return rc;
}

rl_status rl_export_sqlite(const cJSON *const *recs, size_t n, const char *path, rl_error *err)
{
    if (n == 0)
        return rl_fail(err, RL_EINPUT, "no llama-bench records to export");
    char *tmp = rl_asprintf("%s.tmp.XXXXXX", path);
    int fd = tmp ? mkstemp(tmp) : -1;
    if (fd < 0) {
        free(tmp);
        return rl_fail(err, RL_EOUTPUT, "cannot write %s: the directory is not writable", path);
    }
    close(fd);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc == SQLITE_OK)
        rc = sql_fill(db, recs, n);
    char msg[256];
    rl_snprintf(msg, sizeof msg, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (sqlite3_close(db) != SQLITE_OK && rc == SQLITE_OK)
        rc = SQLITE_ERROR;
    if (rc == SQLITE_OK && rename(tmp, path) != 0)
        rc = SQLITE_CANTOPEN;
    if (rc != SQLITE_OK)
        unlink(tmp);
    free(tmp);
    return rc == SQLITE_OK ? RL_OK : rl_fail(err, RL_EOUTPUT, "cannot write %s: %s", path, msg);
}
