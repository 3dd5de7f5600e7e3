/* SPDX-License-Identifier: MIT */
/* import_lbench.h: llama-bench's tabular outputs read into the records import.c groups into
 * runs (import.h, input (c)): `-o csv`, `-o sql` (the SQL text) and an SQLite database holding
 * its llama_bench table (`llama-bench -o sql | sqlite3 FILE`, what llama.cpp's
 * scripts/compare-llama-bench.py reads). Each row becomes the object llama-bench's `-o json`
 * prints for it, typed as that printer types each field (test::get_field_type): whole numbers
 * and avg_ts/stddev_ts as numbers, the booleans (0/1) as true/false, the rest strings; a
 * samples_ns or samples_ts column (space- or comma-separated numbers) as an array. That object
 * then goes through rl_lbench_record_from_json like a JSON record, so everything after this
 * (grouping, rates, analysis) is the JSON path's.
 *
 * Every byte is untrusted. CSV: the strict reader of base/rl_csv.h, at most
 * RL_IMPORT_MAX_COLUMNS columns, fields of at most RL_LBENCH_MAX_LINE bytes, column names of
 * letters, digits and '_'. SQL text: run in a private in-memory database under an authorizer
 * that allows CREATE TABLE llama_bench and INSERT INTO llama_bench and nothing else (no
 * ATTACH, PRAGMA, DROP, other tables, transactions, SELECT, functions, triggers or views),
 * with sqlite3_limit bounds on lengths, columns and expressions and a bounded database size.
 * SQLite database: the bytes already read are opened as a read-only in-memory image
 * (sqlite3_deserialize on a SQLITE_OPEN_READONLY connection: no file is opened again, nothing
 * is locked, written or mapped), defensive, with an authorizer that allows reading
 * sqlite_master and llama_bench only. Rows are at most RL_LBENCH_MAX_RECORDS. A bad row or
 * value is RL_EINPUT with one line naming the file, the line or row, the column and what was
 * expected.
 *
 * Ownership: text is borrowed; *set is zeroed first and owns its records on success (empty on
 * failure; release it with rl_lbench_set_free either way). Nothing here prints or writes a
 * file. */
#ifndef RL_IMPORT_LBENCH_H
#define RL_IMPORT_LBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rl_error.h"
#include "measure/lbench.h"

#define RL_IMPORT_MAX_COLUMNS 256 /* columns of a CSV or of the llama_bench table */

typedef enum {
    RL_IMPORT_LB_NONE,  /* none of the three: JSON, or not importable */
    RL_IMPORT_LB_CSV,   /* a first row of field names (letters, digits, '_'), comma-separated */
    RL_IMPORT_LB_SQL,   /* text whose first word is an SQL statement's */
    RL_IMPORT_LB_SQLITE /* the 16-byte SQLite header, "SQLite format 3" and a NUL */
} rl_import_lb_kind;

/* Which of the three text[0..len) is, by its content alone. */
rl_import_lb_kind rl_import_lbench_sniff(const char *text, size_t len);

/* Read the input of that kind (not RL_IMPORT_LB_NONE) into *set. file names the input in
 * messages. */
rl_status rl_import_lbench_read(rl_import_lb_kind kind, const char *text, size_t len,
                                const char *file, rl_lbench_set *set, rl_error *err);

/* ---- shared by import_lbench.c (CSV) and import_sql.c (SQL text, SQLite) ---------------- */

/* One cell of a row: text (CSV, and SQLite TEXT), a whole number or a real (SQLite INTEGER,
 * REAL), or nothing (an SQL NULL). An empty CSV cell is text of length 0. */
typedef enum { RL_CELL_NULL, RL_CELL_TEXT, RL_CELL_INT, RL_CELL_REAL } rl_cell_type;
typedef struct {
    rl_cell_type type;
    const char *text; /* RL_CELL_TEXT: NUL-terminated, len bytes */
    size_t len;
    int64_t i;
    double d;
} rl_import_cell;

/* A column name llama-bench could have printed: 1 to 64 letters, digits and '_'. */
bool rl_import_lbench_name_ok(const char *name);

/* The row of n cells under the column names, made into a record appended to set (at most
 * RL_LBENCH_MAX_RECORDS). where names the row in messages ("line 4 (row 3)"). */
rl_status rl_import_lbench_row(rl_lbench_set *set, const char *file, const char *where,
                               const char *const *names, const rl_import_cell *cells, size_t n,
                               rl_error *err);

/* The SQL text, and the SQLite database image, read into *set (import_sql.c). */
rl_status rl_import_lbench_sql(const char *text, size_t len, const char *file, rl_lbench_set *set,
                               rl_error *err);
rl_status rl_import_lbench_sqlite(const char *bytes, size_t len, const char *file,
                                  rl_lbench_set *set, rl_error *err);

#endif
