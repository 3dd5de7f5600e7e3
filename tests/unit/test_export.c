/* SPDX-License-Identifier: MIT */
/* test_export.c: unit tests for export.c: the CSV of hand-made records exactly as llama-bench's
 * csv printer writes it (quotes doubled, booleans 1/0, rates %f, whole numbers in digits, a
 * missing field an empty cell, sample arrays left out), the JSONL lines, the SQLite table and
 * its column types, a field name with a '"' kept a name, and a bundle with no records refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "bundle/export.h"
#include "base/rl_json.h"

static const char *rec_a = "{\"build_commit\":\"de3ff81\",\"cpu_info\":\"Intel \\\"i7\\\"\","
                           "\"cpu_strict\":false,\"n_threads\":4,\"avg_ns\":1571716,"
                           "\"avg_ts\":10273.8866101,\"samples_ns\":[1,2],\"samples_ts\":[3.5]}";
static const char *rec_b = "{\"build_commit\":\"abc1234\",\"cpu_info\":\"x\",\"cpu_strict\":true,"
                           "\"avg_ns\":2,\"avg_ts\":2.5}";

static void test_csv_jsonl(void **state)
{
    (void)state;
    cJSON *a = cJSON_Parse(rec_a), *b = cJSON_Parse(rec_b);
    const cJSON *recs[] = {a, b};
    rl_sbuf out = {0};
    rl_error e;
    assert_int_equal(rl_export_text(recs, 2, RL_EXPORT_CSV, &out, &e), RL_OK);
    assert_string_equal(out.p, "build_commit,cpu_info,cpu_strict,n_threads,avg_ns,avg_ts\n"
                               "\"de3ff81\",\"Intel \"\"i7\"\"\",\"0\",\"4\",\"1571716\","
                               "\"10273.886610\"\n"
                               "\"abc1234\",\"x\",\"1\",\"\",\"2\",\"2.500000\"\n");
    free(out.p);
    rl_sbuf j = {0};
    assert_int_equal(rl_export_text(recs, 2, RL_EXPORT_JSONL, &j, &e), RL_OK);
    assert_non_null(strstr(j.p, "\"samples_ts\":[3.5]}\n{\"build_commit\":\"abc1234\""));
    assert_int_equal(j.p[j.len - 1], '\n');
    free(j.p);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_sqlite(void **state)
{
    (void)state;
    cJSON *a = cJSON_Parse(rec_a), *b = cJSON_Parse(rec_b);
    cJSON_AddStringToObject(a, "odd\"name", "v"); /* a hostile field name: still a column */
    const cJSON *recs[] = {a, b};
    char path[4096]; /* scratch under $RL_TMP (build/tmp), as every test's */
    const char *tmp = getenv("RL_TMP");
    snprintf(path, sizeof path, "%s/rl-test-export-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    rl_error e;
    assert_int_equal(rl_export_sqlite(recs, 2, path, &e), RL_OK);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT count(*), typeof(avg_ts), typeof(n_threads), "
                           "typeof(cpu_strict), typeof(cpu_info), max(\"odd\"\"name\") "
                           "FROM llama_bench",
                           -1, &st, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 2);
    assert_string_equal((const char *)sqlite3_column_text(st, 1), "real");
    assert_string_equal((const char *)sqlite3_column_text(st, 2), "integer");
    assert_string_equal((const char *)sqlite3_column_text(st, 3), "integer");
    assert_string_equal((const char *)sqlite3_column_text(st, 4), "text");
    assert_string_equal((const char *)sqlite3_column_text(st, 5), "v");
    sqlite3_finalize(st);
    sqlite3_close(db);
    unlink(path);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void test_collect(void **state)
{
    (void)state;
    cJSON *with = cJSON_Parse("{\"models\":[{\"runs\":[{\"records\":[{\"a\":1},{\"a\":2}]},"
                              "{\"records\":[{\"a\":3}]}]}]}");
    cJSON *none = cJSON_Parse("{\"models\":[{\"runs\":[{\"decode\":{}}]}]}");
    const cJSON *bs[] = {with, none}, *recs[8];
    const char *names[] = {"with.json", "none.json"};
    size_t n = 0;
    rl_error e;
    assert_int_equal(rl_export_collect(bs, names, 1, recs, 8, &n, &e), RL_OK);
    assert_int_equal(n, 3);
    assert_int_equal(rl_export_collect(bs, names, 1, recs, 2, &n, &e), RL_EINPUT);
    assert_int_equal(rl_export_collect(bs, names, 2, recs, 8, &n, &e), RL_EINPUT);
    assert_string_equal(e.msg, "none.json has no llama-bench records (an imported table, a client "
                               "or a calibration bundle): nothing to export");
    rl_export_fmt f;
    assert_true(rl_export_fmt_parse("sqlite", &f) && f == RL_EXPORT_SQLITE);
    assert_true(rl_export_fmt_parse("csv", &f) && f == RL_EXPORT_CSV);
    assert_false(rl_export_fmt_parse("md", &f));
    cJSON_Delete(with);
    cJSON_Delete(none);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_jsonl),
        cmocka_unit_test(test_sqlite),
        cmocka_unit_test(test_collect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
