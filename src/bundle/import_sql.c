/* SPDX-License-Identifier: MIT */
/* import_sql.c: llama-bench's `-o sql` text and an SQLite database of its llama_bench table,
 * read through SQLite under an authorizer (import_lbench.h gives the rules). Each connection
 * is opened and closed within the function that reads it; the authorizer's state lives on
 * that function's stack. */
#include "bundle/import_lbench.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"
#include "bundle/import.h"

#define SQL_MAX_VALUE (1 << 20) /* longest string, blob or row (SQLITE_LIMIT_LENGTH) */
#define SQL_MAX_PAGES 32768     /* the SQL text's database: 128 MiB of 4 KiB pages */
#define SQL_MAX_STATEMENTS (2 * RL_LBENCH_MAX_RECORDS)

/* What the authorizer allows: the SQL text's statements, the schema's table list, the rows. */
typedef enum { AUTH_SQL, AUTH_SCHEMA, AUTH_ROWS } auth_phase;

typedef struct {
    auth_phase phase;
    bool schema_write; /* the statement being prepared inserts into sqlite_master */
    bool create;       /* ... and creates llama_bench (CREATE TABLE does both) */
    char denied[160];  /* the first action refused; "" when none */
} auth_ctx;

static const char *action_name(int action)
{
    switch (action) {
    case SQLITE_ATTACH: return "ATTACH";
    case SQLITE_DETACH: return "DETACH";
    case SQLITE_PRAGMA: return "PRAGMA";
    case SQLITE_TRANSACTION: return "a transaction:";
    case SQLITE_SAVEPOINT: return "a savepoint:";
    case SQLITE_SELECT: return "a SELECT";
    case SQLITE_READ: return "a read of the table";
    case SQLITE_INSERT: return "INSERT INTO";
    case SQLITE_UPDATE: return "UPDATE of";
    case SQLITE_DELETE: return "DELETE FROM";
    case SQLITE_FUNCTION: return "a call of the function";
    case SQLITE_CREATE_TABLE: return "CREATE TABLE";
    case SQLITE_CREATE_TEMP_TABLE: return "CREATE TEMP TABLE";
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_TEMP_INDEX: return "CREATE INDEX";
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TRIGGER";
    case SQLITE_CREATE_VIEW:
    case SQLITE_CREATE_TEMP_VIEW: return "CREATE VIEW";
    case SQLITE_CREATE_VTABLE: return "CREATE VIRTUAL TABLE";
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_TEMP_TABLE: return "DROP TABLE";
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_TEMP_INDEX: return "DROP INDEX";
    case SQLITE_DROP_TRIGGER:
    case SQLITE_DROP_TEMP_TRIGGER: return "DROP TRIGGER";
    case SQLITE_DROP_VIEW:
    case SQLITE_DROP_TEMP_VIEW: return "DROP VIEW";
    case SQLITE_DROP_VTABLE: return "DROP VIRTUAL TABLE";
    case SQLITE_ALTER_TABLE: return "ALTER TABLE";
    case SQLITE_REINDEX: return "REINDEX";
    case SQLITE_ANALYZE: return "ANALYZE";
    case SQLITE_RECURSIVE: return "a recursive query";
    default: return "an SQL operation";
    }
}

static bool named(const char *name, const char *want)
{
    return name && sqlite3_stricmp(name, want) == 0;
}

static bool in_main(const char *db)
{
    return db && strcmp(db, "main") == 0;
}

/* The authorizer: CREATE TABLE llama_bench (and the sqlite_master insert SQLite checks before
 * it) and INSERT INTO llama_bench for the SQL text; SELECT and reading sqlite_master, then
 * llama_bench, for the rows; nothing reached through a trigger or a view; nothing else. */
static int authorize(void *ctx, int action, const char *a1, const char *a2, const char *db,
                     const char *inner)
{
    auth_ctx *a = ctx;
    bool ok = false;
    if (!inner && in_main(db)) {
        if (a->phase == AUTH_SQL && action == SQLITE_CREATE_TABLE && named(a1, "llama_bench"))
            ok = a->create = true;
        else if (a->phase == AUTH_SQL && action == SQLITE_INSERT && named(a1, "llama_bench"))
            ok = true;
        else if (a->phase == AUTH_SQL && action == SQLITE_INSERT && named(a1, "sqlite_master") &&
                 !a->schema_write)
            ok = a->schema_write = true;
        else if (a->phase == AUTH_SQL && (action == SQLITE_UPDATE || action == SQLITE_READ))
            ok = a->create && named(a1, "sqlite_master"); /* CREATE TABLE's own schema row */
        else if (a->phase != AUTH_SQL && action == SQLITE_READ)
            ok = named(a1, a->phase == AUTH_SCHEMA ? "sqlite_master" : "llama_bench");
    }
    if (!inner && a->phase != AUTH_SQL && action == SQLITE_SELECT)
        ok = true;
    if (!ok && !a->denied[0]) {
        const char *what = action == SQLITE_FUNCTION ? a2 : a1;
        char esc[200] = "";
        size_t len = what ? strlen(what) : 0;
        bool cut = what && rl_lbench_escape(what, len, 48, esc, sizeof esc) < len;
        rl_snprintf(a->denied, sizeof a->denied, "%s%s%s%s%s", action_name(action), what ? " " : "",
                    esc, cut ? "..." : "", inner ? " (inside a trigger or view)" : "");
    }
    return ok ? SQLITE_OK : SQLITE_DENY;
}

/* Bounds on everything an SQL text or a database could make SQLite do, and its defensive
 * settings: no triggers, views, extensions, double-quoted strings or schema trust. */
static void harden(sqlite3 *db)
{
    static const int limits[][2] = {
        {SQLITE_LIMIT_LENGTH, SQL_MAX_VALUE},
        {SQLITE_LIMIT_SQL_LENGTH, (int)RL_IMPORT_MAX_BYTES},
        {SQLITE_LIMIT_COLUMN, RL_IMPORT_MAX_COLUMNS},
        {SQLITE_LIMIT_EXPR_DEPTH, 64},
        {SQLITE_LIMIT_COMPOUND_SELECT, 2},
        {SQLITE_LIMIT_VDBE_OP, 100000},
        {SQLITE_LIMIT_FUNCTION_ARG, 8},
        {SQLITE_LIMIT_ATTACHED, 0},
        {SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 64},
        {SQLITE_LIMIT_VARIABLE_NUMBER, 0},
        {SQLITE_LIMIT_TRIGGER_DEPTH, 1},
        {SQLITE_LIMIT_WORKER_THREADS, 0},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        sqlite3_limit(db, limits[i][0], limits[i][1]);
    static const int off[] = {SQLITE_DBCONFIG_ENABLE_TRIGGER,
                              SQLITE_DBCONFIG_ENABLE_VIEW,
                              SQLITE_DBCONFIG_TRUSTED_SCHEMA,
                              SQLITE_DBCONFIG_DQS_DDL,
                              SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
                              SQLITE_DBCONFIG_DQS_DML,
                              SQLITE_DBCONFIG_ENABLE_FKEY};
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        sqlite3_db_config(db, off[i], 0, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
}

/* RL_EINPUT "FILE: WHAT: SQLite's message" (RL_EINTERNAL when SQLite ran out of memory). */
static rl_status db_fail(sqlite3 *db, const char *file, const char *what, rl_error *err)
{
    const char *m = sqlite3_errmsg(db);
    char esc[400];
    rl_lbench_escape(m, strlen(m), 160, esc, sizeof esc);
    return rl_fail(err, (sqlite3_errcode(db) & 0xff) == SQLITE_NOMEM ? RL_EINTERNAL : RL_EINPUT,
                   "%s: %s: %s", file, what, esc);
}

/* ---- the SQL text ----------------------------------------------------------------------- */

/* RL_EINPUT for a statement that asked for what the authorizer refused. */
static rl_status refused(const char *file, const char *what, const char *denied, rl_error *err)
{
    return rl_fail(err, RL_EINPUT,
                   "%s: %s asks for %s, which import refuses: it runs only CREATE TABLE "
                   "llama_bench and INSERT INTO llama_bench, what llama-bench -o sql prints",
                   file, what, denied);
}

/* One statement prepared from p: RL_OK with *st NULL when only blanks and comments are left.
 * what names it for messages. */
static rl_status prepare_one(sqlite3 *db, auth_ctx *a, const char *p, const char *end,
                             sqlite3_stmt **st, const char **tail, const char *what,
                             const char *file, rl_error *err)
{
    a->schema_write = a->create = false;
    a->denied[0] = '\0';
    int rc = sqlite3_prepare_v2(db, p, (int)(end - p), st, tail);
    if (rc == SQLITE_OK && *st && a->schema_write && !a->create)
        snprintf(a->denied, sizeof a->denied, "INSERT INTO sqlite_master");
    else if (rc == SQLITE_OK && *st && sqlite3_column_count(*st) != 0)
        snprintf(a->denied, sizeof a->denied, "rows back (a SELECT or RETURNING)");
    else if (rc == SQLITE_OK)
        return RL_OK;
    sqlite3_finalize(*st);
    *st = NULL;
    return a->denied[0] ? refused(file, what, a->denied, err) : db_fail(db, file, what, err);
}

/* Run every statement of the text, each one authorized, within the bounds. */
static rl_status run_sql(sqlite3 *db, auth_ctx *a, const char *text, size_t len, const char *file,
                         rl_error *err)
{
    const char *p = text, *end = text + len, *counted = text;
    size_t n = 0, line = 1;
    while (p < end) {
        const char *s = p;
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
            s++;
        for (; counted < s; counted++)
            line += *counted == '\n';
        char start[200], what[256];
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        size_t shown = (size_t)((eol ? eol : end) - s);
        size_t used = rl_lbench_escape(s, shown, 40, start, sizeof start);
        rl_snprintf(what, sizeof what, "SQL statement %zu (line %zu: \"%s%s\")", n + 1, line, start,
                    used < shown ? "..." : "");
        if (n == SQL_MAX_STATEMENTS)
            return rl_fail(err, RL_EINPUT, "%s: more than %d SQL statements", file,
                           SQL_MAX_STATEMENTS);
        sqlite3_stmt *st = NULL;
        const char *tail = end;
        rl_status r = prepare_one(db, a, p, end, &st, &tail, what, file, err);
        if (r != RL_OK || !st)
            return r;
        n++;
        a->denied[0] = '\0';
        if (sqlite3_step(st) != SQLITE_DONE) /* VACUUM INTO, say, is authorized as it runs */
            r = a->denied[0] ? refused(file, what, a->denied, err) : db_fail(db, file, what, err);
        sqlite3_finalize(st);
        if (r == RL_OK && sqlite3_total_changes(db) > RL_LBENCH_MAX_RECORDS)
            r = rl_fail(err, RL_EINPUT,
                        "%s: more than %d rows; import at most %d llama-bench records at a time",
                        file, RL_LBENCH_MAX_RECORDS, RL_LBENCH_MAX_RECORDS);
        if (r != RL_OK)
            return r;
        p = tail;
    }
    return RL_OK;
}

/* ---- the table and its rows ------------------------------------------------------------- */

/* llama_bench exists and is an ordinary table (a view or a virtual table is refused); the
 * message for a database without it names up to four of its tables. */
static rl_status check_table(sqlite3 *db, auth_ctx *a, const char *file, rl_error *err)
{
    a->phase = AUTH_SCHEMA;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT type, name, rootpage FROM main.sqlite_master", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return db_fail(db, file, "not a usable SQLite database", err);
    char others[300] = "";
    size_t n_others = 0, len = 0;
    int found = 0; /* 1 a table, -1 something else */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        bool table = type && strcmp(type, "table") == 0;
        if (named(name, "llama_bench")) {
            found = table && sqlite3_column_int64(st, 2) > 0 ? 1 : -1;
        } else if (table && name && n_others < 4 && strncmp(name, "sqlite_", 7) != 0) {
            char esc[200];
            rl_lbench_escape(name, strlen(name), 40, esc, sizeof esc);
            len += (size_t)rl_snprintf(others + len, sizeof others - len, "%s%s",
                                       n_others++ ? ", " : "; its tables: ", esc);
        }
    }
    rl_status r =
        rc == SQLITE_DONE ? RL_OK : db_fail(db, file, "not a usable SQLite database", err);
    sqlite3_finalize(st);
    if (r == RL_OK && found == 0)
        r = rl_fail(err, RL_EINPUT,
                    "%s: an SQLite database without a llama_bench table, the one `llama-bench -o "
                    "sql | sqlite3 FILE` makes%s",
                    file, n_others ? others : "; it holds no table");
    if (r == RL_OK && found < 0)
        r = rl_fail(err, RL_EINPUT,
                    "%s: llama_bench in this SQLite database is not an ordinary table (a view or "
                    "a virtual table); expected the table llama-bench -o sql makes",
                    file);
    return r;
}

/* One row's cells; a blob is refused. */
static rl_status row_cells(sqlite3_stmt *st, const char *const *names, rl_import_cell *cells, int n,
                           const char *file, const char *where, rl_error *err)
{
    for (int i = 0; i < n; i++) {
        rl_import_cell *c = &cells[i];
        *c = (rl_import_cell){RL_CELL_NULL, NULL, 0, 0, 0};
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
            c->type = RL_CELL_INT;
            c->i = sqlite3_column_int64(st, i);
            break;
        case SQLITE_FLOAT:
            c->type = RL_CELL_REAL;
            c->d = sqlite3_column_double(st, i);
            break;
        case SQLITE_TEXT:
            c->type = RL_CELL_TEXT;
            c->text = (const char *)sqlite3_column_text(st, i);
            c->len = (size_t)sqlite3_column_bytes(st, i);
            if (!c->text)
                return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
            break;
        case SQLITE_NULL: break;
        default:
            return rl_fail(err, RL_EINPUT, "%s: %s, column %s is a blob; expected text or a number",
                           file, where, names[i]);
        }
    }
    return RL_OK;
}

/* The column names: llama-bench field names, n_prompt and n_gen among them. */
static rl_status row_names(sqlite3_stmt *st, const char **names, int n, const char *file,
                           rl_error *err)
{
    bool has_p = false, has_g = false;
    for (int i = 0; i < n; i++) {
        names[i] = sqlite3_column_name(st, i);
        if (!names[i])
            return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
        if (!rl_import_lbench_name_ok(names[i]))
            return rl_fail(err, RL_EINPUT,
                           "%s: the llama_bench table's column %d is not a llama-bench field name "
                           "(1 to 64 letters, digits and '_')",
                           file, i + 1);
        has_p |= strcmp(names[i], "n_prompt") == 0;
        has_g |= strcmp(names[i], "n_gen") == 0;
    }
    if (!has_p || !has_g)
        return rl_fail(err, RL_EINPUT,
                       "%s: the llama_bench table has no %s column; expected the table "
                       "llama-bench -o sql makes",
                       file, has_p ? "n_gen" : "n_prompt");
    return RL_OK;
}

static rl_status read_rows(sqlite3 *db, auth_ctx *a, const char *file, rl_lbench_set *set,
                           rl_error *err)
{
    a->phase = AUTH_ROWS;
    a->denied[0] = '\0';
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT * FROM main.llama_bench", -1, &st, NULL) != SQLITE_OK) {
        if (!a->denied[0])
            return db_fail(db, file, "reading the llama_bench table", err);
        return rl_fail(err, RL_EINPUT,
                       "%s: reading the llama_bench table asks for %s, which import refuses", file,
                       a->denied);
    }
    int n = sqlite3_column_count(st);
    const char **names = rl_calloc((size_t)n + 1, sizeof *names);
    rl_import_cell *cells = rl_calloc((size_t)n + 1, sizeof *cells);
    rl_status r = names && cells ? row_names(st, names, n, file, err)
                                 : rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    size_t row = 0;
    int rc = SQLITE_ROW;
    while (r == RL_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        char where[64];
        rl_snprintf(where, sizeof where, "llama_bench row %zu", ++row);
        r = row_cells(st, names, cells, n, file, where, err);
        if (r == RL_OK)
            r = rl_import_lbench_row(set, file, where, names, cells, (size_t)n, err);
    }
    if (r == RL_OK && rc != SQLITE_DONE) {
        char where[64];
        rl_snprintf(where, sizeof where, "llama_bench row %zu", row + 1);
        r = db_fail(db, file, where, err);
    }
    if (r == RL_OK && row == 0)
        r = rl_fail(err, RL_EINPUT, "%s: the llama_bench table holds no rows: nothing to import",
                    file);
    sqlite3_finalize(st);
    free(names);
    free(cells);
    return r;
}

/* ---- the two inputs ------------------------------------------------------------------------ */

rl_status rl_import_lbench_sql(const char *text, size_t len, const char *file, rl_lbench_set *set,
                               rl_error *err)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK) {
        harden(db);
        char pragmas[96];
        rl_snprintf(pragmas, sizeof pragmas, "PRAGMA mmap_size=0; PRAGMA max_page_count=%d;",
                    SQL_MAX_PAGES);
        rc = sqlite3_exec(db, pragmas, NULL, NULL, NULL);
    }
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return rl_fail(err, RL_EINTERNAL, "cannot make an in-memory SQLite database: %s",
                       sqlite3_errstr(rc));
    }
    auth_ctx a = {AUTH_SQL, false, false, ""};
    sqlite3_set_authorizer(db, authorize, &a);
    rl_status r = run_sql(db, &a, text, len, file, err);
    if (r == RL_OK)
        r = check_table(db, &a, file, err);
    if (r == RL_OK)
        r = read_rows(db, &a, file, set, err);
    sqlite3_close(db);
    return r;
}

static uint32_t be(const unsigned char *p, int n)
{
    uint32_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The image holds every page its header counts, and whole pages only: a file cut short is
 * refused before SQLite reads the missing pages as zeros. */
static rl_status check_image(const unsigned char *b, size_t len, const char *file, rl_error *err)
{
    if (len < 100)
        return rl_fail(err, RL_EINPUT,
                       "%s: an SQLite database cut short: %zu bytes, less than its 100-byte header",
                       file, len);
    uint32_t page = be(b + 16, 2) == 1 ? 65536 : be(b + 16, 2);
    if (page < 512 || page > 65536 || (page & (page - 1)) != 0)
        return rl_fail(err, RL_EINPUT,
                       "%s: not a usable SQLite database: its header gives a page size of %u "
                       "bytes; expected a power of two from 512 to 65536",
                       file, (unsigned)page);
    /* the header's page count counts when it was written with the change counter it has */
    uint32_t pages = be(b + 24, 4) == be(b + 92, 4) ? be(b + 28, 4) : 0;
    if (len % page != 0)
        return rl_fail(err, RL_EINPUT,
                       "%s: an SQLite database cut short: %zu bytes, not a whole number of "
                       "%u-byte pages",
                       file, len, (unsigned)page);
    if ((uint64_t)pages * page > len)
        return rl_fail(err, RL_EINPUT,
                       "%s: an SQLite database cut short: %zu bytes where its header counts %u "
                       "pages of %u bytes",
                       file, len, (unsigned)pages, (unsigned)page);
    return RL_OK;
}

rl_status rl_import_lbench_sqlite(const char *bytes, size_t len, const char *file,
                                  rl_lbench_set *set, rl_error *err)
{
    rl_status st = check_image((const unsigned char *)bytes, len, file, err);
    if (st != RL_OK)
        return st;
    unsigned char *img = sqlite3_malloc64(len ? len : 1);
    if (!img)
        return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", file);
    memcpy(img, bytes, len);
    /* a WAL-mode file (format bytes 2): its main file read as a rollback one, which is all an
     * immutable open reads of it too; the memory image has no -wal file */
    for (size_t i = 18; i < 20 && i < len; i++)
        if (img[i] == 2)
            img[i] = 1;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK) {
        harden(db);
        rc = sqlite3_deserialize(db, "main", img, (sqlite3_int64)len, (sqlite3_int64)len,
                                 SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE);
        img = NULL; /* SQLite's now, freed on failure too */
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA mmap_size=0; PRAGMA query_only=1;", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        rl_status r = db ? db_fail(db, file, "not a usable SQLite database", err)
                         : rl_fail(err, RL_EINTERNAL, "cannot open SQLite: %s", sqlite3_errstr(rc));
        sqlite3_free(img);
        sqlite3_close(db);
        return r;
    }
    auth_ctx a = {AUTH_SCHEMA, false, false, ""};
    sqlite3_set_authorizer(db, authorize, &a);
    rl_status r = check_table(db, &a, file, err);
    if (r == RL_OK)
        r = read_rows(db, &a, file, set, err);
    sqlite3_close(db);
    return r;
}
