/* SPDX-License-Identifier: MIT */
/* test_import.c: unit tests for import.c (and the parts of bundle.c it relies on): the two
 * published roofline.json files imported and their fits reproduced from the bundle, the
 * shipped example bundles equal to what import makes now, llama-bench json/jsonl grouped into
 * models and runs, every bundle holding the keys the schema requires, and hostile inputs
 * refused with one line naming the file. Files are read below $RL_SRC.
 *
 * Each test was seen to fail once with the code broken on purpose; how is noted above it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RL_TEST_JSON
#include "rl_test.h"

#include "analyse/analysis_bundle.h"
#include "bundle/bundle.h"
#include "bundle/import.h"
#include "bundle/legend.h"
#include "base/rl_file.h"
#include "base/rl_json.h"

/* import then analyse, as `llama-roofline import` does */
static rl_status import_text(const char *text, size_t len, const char *file,
                             const rl_import_opts *o, cJSON **out, rl_error *err)
{
    rl_status st = rl_import_text(text, len, file, o, out, err);
    if (st == RL_OK && (st = rl_bundle_analyze_import(*out, file, err)) != RL_OK) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}

static rl_status import_file(const char *path, const rl_import_opts *o, cJSON **out, rl_error *err)
{
    rl_status st = rl_import_file(path, o, out, err);
    if (st == RL_OK && (st = rl_bundle_analyze_import(*out, path, err)) != RL_OK) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static char *src_path(const char *rel)
{
    const char *src = getenv("RL_SRC");
    assert_non_null(src);
    size_t n = strlen(src) + strlen(rel) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", src, rel);
    return p;
}

static char *read_src(const char *rel, size_t *len)
{
    char *p = src_path(rel), *text = NULL;
    rl_error e = {RL_OK, ""};
    if (rl_file_read_all(p, 64u << 20, &text, len, &e) != RL_OK)
        fail_msg("%s", e.msg);
    free(p);
    return text;
}

/* import a file below RL_SRC, recording argv as given */
static cJSON *import_src(const char *rel, const char *name, int argc, char *const *argv)
{
    char *p = src_path(rel);
    rl_import_opts o = {name, argc, argv};
    rl_error e = {RL_OK, ""};
    cJSON *b = NULL;
    rl_status st = import_file(p, &o, &b, &e);
    free(p);
    if (st != RL_OK)
        fail_msg("import %s: %s", rel, e.msg);
    assert_non_null(b);
    return b;
}

static cJSON *import_plain(const char *rel)
{
    char *argv[] = {"import", (char *)rel, "-o", "bundle.json", NULL};
    return import_src(rel, NULL, 4, argv);
}

/* rl_import_text on a string that must be refused: RL_EINPUT, one line naming the file,
 * matching every fragment given (NULL-terminated). */
static void refused(const char *text, size_t len, const char *fragment)
{
    rl_import_opts o = {NULL, 0, NULL};
    rl_error e = {RL_OK, ""};
    cJSON *b = (cJSON *)1;
    rl_status st = import_text(text, len, "in/put.json", &o, &b, &e);
    if (st != RL_EINPUT)
        fail_msg("accepted (status %d) what should be refused for '%s'", (int)st, fragment);
    assert_null(b);
    assert_int_equal(strncmp(e.msg, "in/put.json: ", 13), 0);
    assert_null(strchr(e.msg, '\n'));
    if (!strstr(e.msg, fragment))
        fail_msg("message '%s' lacks '%s'", e.msg, fragment);
}

static void refused_str(const char *text, const char *fragment)
{
    refused(text, strlen(text), fragment);
}

static bool is_unavailable(const cJSON *o)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "available");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "reason");
    return cJSON_IsFalse(a) && cJSON_IsString(r) && r->valuestring[0];
}

/* ---- the keys schema/bundle.schema.json requires ---------------------------------------- */

static void check_rate(const cJSON *r)
{
    assert_true(cJSON_IsObject(r));
    if (is_unavailable(r))
        return;
    assert_string_equal(rl_test_str(r, "kind"), "measured");
    assert_string_equal(rl_test_str(r, "unit"), "tok/s");
    const cJSON *s = rl_test_key(r, "samples");
    if (cJSON_IsArray(s)) {
        assert_true(cJSON_GetArraySize(s) >= 1);
        const cJSON *x;
        cJSON_ArrayForEach(x, s) assert_true(cJSON_IsNumber(x) && x->valuedouble > 0);
        assert_true(cJSON_IsObject(rl_test_key(r, "stats")));
    } else {
        /* imported: the mean without samples */
        assert_true(is_unavailable(s));
        assert_true(rl_test_num(r, "mean") > 0);
        const cJSON *sd = rl_test_key(r, "sd");
        assert_true((cJSON_IsNumber(sd) && sd->valuedouble >= 0) || is_unavailable(sd));
    }
}

static void check_structure(const cJSON *b)
{
    static const char *const top[] = {"schema",      "schema_version", "tool",  "command",
                                      "created_utc", "updated_utc",    "status"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        rl_test_key(b, top[i]);
    assert_string_equal(rl_test_str(b, "schema"), "llama-roofline-bundle");
    assert_int_equal((int)rl_test_num(b, "schema_version"), 2);
    assert_string_equal(rl_test_str(b, "command"), "import");
    assert_string_equal(rl_test_str(rl_test_key(b, "tool"), "name"), "llama-roofline");
    assert_string_equal(rl_test_str(rl_test_key(b, "status"), "state"), "complete");
    const cJSON *src = rl_test_key(b, "source");
    assert_string_equal(rl_test_str(src, "kind"), "imported");
    rl_test_str(src, "format");
    rl_test_str(src, "file");
    const cJSON *mb = rl_test_key(b, "membw");
    assert_true(is_unavailable(mb) || (cJSON_IsString(rl_test_key(mb, "kind")) &&
                                       cJSON_IsNumber(rl_test_key(mb, "peak_read_GBs"))));
    assert_string_equal(rl_test_str(rl_test_key(b, "settings"), "kind"), "controlled");
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_test_key(b, "models"))
    {
        rl_test_str(m, "id");
        rl_test_str(m, "name");
        const cJSON *bpt = rl_test_key(m, "bytes_per_token");
        assert_true(rl_test_num(bpt, "value") > 0);
        rl_test_str(bpt, "convention");
        rl_test_str(bpt, "source");
        rl_test_str(bpt, "kind");
        const cJSON *r;
        cJSON_ArrayForEach(r, rl_test_key(m, "runs"))
        {
            assert_true(rl_test_num(r, "threads") >= 1);
            assert_true(rl_test_num(r, "depth") >= 0);
            assert_string_equal(rl_test_str(r, "status"), "ok");
            assert_true(cJSON_IsArray(rl_test_key(r, "records")));
            check_rate(rl_test_key(r, "decode"));
            check_rate(rl_test_key(r, "prefill"));
        }
    }
    const cJSON *an = rl_test_key(b, "analysis");
    assert_string_equal(rl_test_str(an, "kind"), "derived");
    rl_test_key(an, "fit");
    assert_true(cJSON_IsArray(rl_test_key(b, "warnings")));
}

/* ---- the published results -------------------------------------------------------------- */

static void assert_fit(const cJSON *b, double bw, double r2, int n)
{
    const cJSON *fit = rl_test_key(rl_test_key(b, "analysis"), "fit");
    assert_true(cJSON_IsTrue(rl_test_key(fit, "available")));
    assert_int_equal((int)rl_test_num(fit, "n_points"), n);
    assert_near(rl_test_num(fit, "bw_GBs"), bw, 0.005);
    assert_near(rl_test_num(fit, "r2"), r2, 0.00005);
}

/* Seen failing: with bundle.c's samples_of not falling back to the rate's mean (no decode
 * anywhere, so the fit is unavailable). */
static void test_published_rpi5(void **state)
{
    (void)state;
    cJSON *b = import_plain("data/published/rpi5-cortex-a76/roofline.json");
    check_structure(b);
    assert_fit(b, 10.69, 0.9800, 7);
    const cJSON *src = rl_test_key(b, "source");
    assert_string_equal(rl_test_str(src, "format"), RL_IMPORT_FORMAT_ROOFLINE);
    assert_string_equal(rl_test_str(src, "file"), "roofline.json");
    assert_non_null(strstr(rl_test_str(src, "attribution"), "doi:10.5281/zenodo.21842493"));
    assert_non_null(strstr(rl_test_str(src, "attribution"), "MIT"));
    /* the ceiling was supplied: controlled, and the analysis uses it */
    assert_string_equal(rl_test_str(rl_test_key(b, "membw"), "kind"), "controlled");
    assert_near(rl_test_num(rl_test_key(b, "membw"), "peak_read_GBs"), 13.98, 0);
    const cJSON *an = rl_test_key(b, "analysis");
    assert_string_equal(rl_test_str(rl_test_key(an, "verdict"), "label"), "memory-bound");
    /* bytes as the file used them (the file size) and no invented samples */
    const cJSON *m0 = cJSON_GetArrayItem(rl_test_key(b, "models"), 0);
    assert_near(rl_test_num(rl_test_key(m0, "bytes_per_token"), "value"), 397808192, 0);
    assert_string_equal(rl_test_str(rl_test_key(m0, "bytes_per_token"), "convention"), "resident");
    const cJSON *r0 = cJSON_GetArrayItem(rl_test_key(m0, "runs"), 0);
    const cJSON *dec = rl_test_key(r0, "decode");
    assert_near(rl_test_num(dec, "mean"), 16.90055, 0);
    assert_true(is_unavailable(rl_test_key(dec, "samples")));
    assert_true(is_unavailable(rl_test_key(dec, "sd"))); /* this file has no standard deviations */
    assert_int_equal(cJSON_GetArraySize(rl_test_key(r0, "records")), 0);
    assert_near(rl_test_num(rl_test_key(r0, "imported"), "decode_ts"), 16.90055, 0);
    /* what the file does not state is unavailable, what it states is kept */
    assert_true(is_unavailable(rl_test_key(rl_test_key(m0, "gguf"), "architecture")));
    assert_true(is_unavailable(rl_test_key(rl_test_key(m0, "gguf"), "kv_bytes_per_token")));
    assert_string_equal(rl_test_str(rl_test_key(m0, "gguf"), "label"), "Q4_K_M");
    assert_string_equal(rl_test_str(rl_test_key(b, "environment"), "arch"), "aarch64");
    assert_true(cJSON_IsNull(rl_test_key(rl_test_key(b, "environment"), "governor")));
    assert_non_null(strstr(
        rl_test_str(rl_test_key(rl_test_key(src, "imported"), "analysis"), "verdict"), "memory"));
    cJSON_Delete(b);
}

/* Seen failing: with the importer taking bytes_per_token from file_bytes (fit 38.21 GB/s). */
static void test_published_x86(void **state)
{
    (void)state;
    cJSON *b = import_plain("data/published/x86-i7-12700H/roofline.json");
    check_structure(b);
    assert_fit(b, 37.65, 0.9874, 7);
    const cJSON *fit = rl_test_key(rl_test_key(b, "analysis"), "fit");
    assert_near(rl_test_num(fit, "bw_GBs"), 37.650056492450815, 1e-12);
    const cJSON *mb = rl_test_key(b, "membw");
    assert_string_equal(rl_test_str(mb, "kind"), "measured");
    assert_near(rl_test_num(mb, "peak_read_GBs"), 53.94467702067344, 0);
    assert_near(rl_test_num(mb, "working_set_bytes"), 512.0 * 1048576, 0);
    assert_true(is_unavailable(rl_test_key(mb, "runs"))); /* only best values: no repetitions */
    const cJSON *m0 = cJSON_GetArrayItem(rl_test_key(b, "models"), 0);
    assert_string_equal(rl_test_str(m0, "name"), "llama1b-q4km");
    assert_near(rl_test_num(rl_test_key(m0, "bytes_per_token"), "value"), 799862912,
                0); /* model_size */
    assert_near(rl_test_num(rl_test_key(m0, "gguf"), "file_bytes"), 807694464, 0);
    const cJSON *r2 = cJSON_GetArrayItem(rl_test_key(m0, "runs"), 2);
    assert_near(rl_test_num(r2, "threads"), 8, 0);
    assert_near(rl_test_num(rl_test_key(r2, "decode"), "mean"), 47.369745, 0);
    assert_near(rl_test_num(rl_test_key(r2, "decode"), "sd"), 0.466564, 0);
    assert_string_equal(cJSON_GetArrayItem(rl_test_key(r2, "argv"), 0)->valuestring,
                        "C:\\llmpc\\bin\\llama-bench.exe");
    const cJSON *am;
    cJSON_ArrayForEach(am, rl_test_key(rl_test_key(b, "analysis"), "models"))
    {
        if (strcmp(rl_test_str(am, "name"), "qwen7b-q4km") == 0)
            assert_near(rl_test_num(rl_test_key(am, "operating_point"), "threads"), 20, 0);
    }
    assert_string_equal(rl_test_str(rl_test_key(b, "llama_cpp"), "build_commit"), "0e4a03622");
    cJSON_Delete(b);
}

/* 35.73 GB/s. The reference quotes it for "the same seven x86 models at a fixed thread
 * count". No fixed thread count of the runs stored in the x86 roofline.json gives it: with
 * model_size 8.22, 30.56, 36.92, 34.21, 19.84 GB/s at 1/4/8/14/20 threads, with the file
 * sizes 8.34, 31.01, 37.46, 34.73, 20.15; the median or mean over the thread counts gives
 * 30.65 or 25.95 (file sizes 31.11, 26.34); nor does dropping models, except by accident for
 * one pair. It comes from another campaign on the same laptop: the seven records of
 * manunicholasjacob/ml-systems-lab, results/paper12/laptop-i7-12700h/ (commit
 * 622bf706; MIT, doi:10.5281/zenodo.21867055), whose report lists the i7-12700H roofline as
 * 35.73 GB/s, R^2 0.98, 7 points. Those runs are at 8 threads for the three 0.5B models and
 * 14 for the others (not one fixed count either), bytes per token being the GGUF file size.
 * Imported as a roofline.json, they fit 35.7264 GB/s, R^2 0.9801.
 * Seen failing: with the importer reading a run's decode rate from prefill_ts (no decode
 * rate, no fit). */
static void test_fit_35_73(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double bytes, decode;
        int threads;
    } runs[] = {
        {"qwen0.5b-q2k", 338607520, 100.853271, 8},  {"qwen0.5b-q4km", 397808192, 85.644086, 8},
        {"qwen0.5b-q8", 531068480, 76.079361, 8},    {"llama1b-q4km", 807694464, 48.125991, 14},
        {"qwen1.5b-q4km", 986048768, 37.651154, 14}, {"qwen3b-q4km", 1929903264, 20.350671, 14},
        {"qwen7b-q4km", 4683074240, 9.618147, 14},
    };
    char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "{\"schema_version\": 1, \"membw\": {\"peak_read_GBs\": 42.1, "
                                "\"source\": \"dram_peak_GBs of the device\"}, "
                                "\"analysis\": {\"models\": [");
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%s{\"name\": \"%s\", \"bytes_per_token\": %.0f, \"bytes_source\": "
                              "\"GGUF file size\", \"runs\": [{\"threads\": %d, \"decode_ts\": "
                              "%.6f}]}",
                              i ? ", " : "", runs[i].name, runs[i].bytes, runs[i].threads,
                              runs[i].decode);
    n += (size_t)snprintf(text + n, sizeof text - n, "]}}");
    assert_true(n < sizeof text);
    rl_import_opts o = {NULL, 0, NULL};
    rl_error e = {RL_OK, ""};
    cJSON *b = NULL;
    if (import_text(text, n, "paper12.json", &o, &b, &e) != RL_OK)
        fail_msg("%s", e.msg);
    assert_fit(b, 35.73, 0.9801, 7);
    assert_near(rl_test_num(rl_test_key(rl_test_key(b, "analysis"), "fit"), "bw_GBs"),
                35.726443236517696, 1e-9);
    cJSON_Delete(b);
}

/* The examples are what scripts/make-examples.sh writes; compared with what import makes now,
 * everything but the two timestamps. Seen failing: with an extra key added to the bundle's
 * source by the importer ("at $.source: key count differs"). */
static const char *tree_diff(const cJSON *a, const cJSON *b, char *path, size_t cap)
{
    if (cJSON_Compare(a, b, true))
        return NULL;
    if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return "key count differs";
        const cJSON *x;
        cJSON_ArrayForEach(x, a)
        {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            size_t l = strlen(path);
            snprintf(path + l, cap - l, ".%s", x->string);
            if (!y)
                return "missing in the shipped bundle";
            const char *why = tree_diff(x, y, path, cap);
            if (why)
                return why;
            path[l] = '\0';
        }
    }
    if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return "array length differs";
        for (int i = 0; i < cJSON_GetArraySize(a); i++) {
            size_t l = strlen(path);
            snprintf(path + l, cap - l, "[%d]", i);
            const char *why =
                tree_diff(cJSON_GetArrayItem(a, i), cJSON_GetArrayItem(b, i), path, cap);
            if (why)
                return why;
            path[l] = '\0';
        }
    }
    return "values differ";
}

static void golden(const char *dir, const char *name)
{
    char in[256], out[256], rel[256];
    snprintf(in, sizeof in, "data/published/%s/roofline.json", dir);
    snprintf(out, sizeof out, "examples/%s/bundle.json", dir);
    char *argv[] = {"import", in, "-o", out, "--name", (char *)name, NULL};
    cJSON *now = import_src(in, name, 6, argv);
    snprintf(rel, sizeof rel, "examples/%s/bundle.json", dir);
    size_t len;
    char *text = read_src(rel, &len);
    assert_true(len < 1000000);
    cJSON *shipped = cJSON_Parse(text);
    free(text);
    assert_non_null(shipped);
    check_structure(shipped);
    static const char *const stamps[] = {"created_utc", "updated_utc"};
    for (size_t i = 0; i < 2; i++) {
        cJSON_DeleteItemFromObjectCaseSensitive(now, stamps[i]);
        cJSON_DeleteItemFromObjectCaseSensitive(shipped, stamps[i]);
    }
    char path[1024] = "$";
    const char *why = tree_diff(now, shipped, path, sizeof path);
    if (why)
        fail_msg("%s differs from what import makes now (at %s: %s); run "
                 "scripts/make-examples.sh",
                 rel, path, why);
    cJSON_Delete(now);
    cJSON_Delete(shipped);
}

static void test_examples_golden(void **state)
{
    (void)state;
    golden("rpi5-cortex-a76", "Raspberry Pi 5");
    golden("x86-i7-12700H", "Intel i7-12700H");
}

/* ---- llama-bench output ----------------------------------------------------------------- */

/* Seen failing: with lbench_parse.c not setting from_array (format "llama-bench jsonl" for
 * the -o json array). */
static void test_lbench_outputs(void **state)
{
    (void)state;
    cJSON *b = import_plain("tests/fixtures/lbench/real-jsonl.txt");
    check_structure(b);
    assert_string_equal(rl_test_str(rl_test_key(b, "source"), "format"),
                        RL_IMPORT_FORMAT_LBENCH_JSONL);
    assert_true(is_unavailable(rl_test_key(b, "membw")));
    assert_non_null(
        strstr(rl_test_str(rl_test_key(b, "membw"), "reason"), "imported llama-bench output"));
    const cJSON *models = rl_test_key(b, "models");
    assert_int_equal(cJSON_GetArraySize(models), 1);
    const cJSON *m = cJSON_GetArrayItem(models, 0);
    assert_string_equal(rl_test_str(m, "path"), "/tmp/lb-tiny.gguf");
    assert_string_equal(rl_test_str(m, "name"), "lb-tiny.gguf");
    assert_string_equal(rl_test_str(rl_test_key(m, "bytes_per_token"), "source"),
                        "llama-bench model_size");
    assert_near(rl_test_num(rl_test_key(m, "bytes_per_token"), "value"), 3073024, 0);
    const cJSON *r = cJSON_GetArrayItem(rl_test_key(m, "runs"), 0);
    assert_int_equal(cJSON_GetArraySize(rl_test_key(m, "runs")), 1);
    assert_int_equal(cJSON_GetArraySize(rl_test_key(r, "records")), 2);
    /* samples recomputed from samples_ns: (n_prompt + n_gen) * 1e9 / ns */
    const cJSON *rec = cJSON_GetArrayItem(rl_test_key(r, "records"), 1);
    double ns = cJSON_GetArrayItem(rl_test_key(rec, "samples_ns"), 0)->valuedouble;
    double tokens = rl_test_num(rec, "n_prompt") + rl_test_num(rec, "n_gen");
    assert_near(
        cJSON_GetArrayItem(rl_test_key(rl_test_key(r, "decode"), "samples"), 0)->valuedouble,
        tokens * 1e9 / ns, 1e-9);
    cJSON_Delete(b);

    b = import_plain("tests/fixtures/lbench/real-json.txt");
    check_structure(b);
    assert_string_equal(rl_test_str(rl_test_key(b, "source"), "format"),
                        RL_IMPORT_FORMAT_LBENCH_JSON);
    cJSON_Delete(b);

    /* several models, thread counts and depths in one JSONL: one model per file, one run
     * per (threads, depth), the records of each run verbatim */
    size_t l1, l2;
    char *a = read_src("tests/fixtures/lbench/real-jsonl.txt", &l1);
    char *d = read_src("tests/fixtures/lbench/real-jsonl-depth32.txt", &l2);
    cJSON *recs[4];
    size_t nr = 0;
    for (char *t = a; t; t = t == a ? d : NULL)
        for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n"))
            if (line[0] == '{' && nr < 4)
                recs[nr++] = cJSON_Parse(line);
    assert_int_equal(nr, 4);
    size_t cap = 64 << 10, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    static const char *const files[] = {"/m/small.gguf", "/m/big.gguf"};
    for (int f = 0; f < 2; f++)
        for (int th = 1; th <= 4; th *= 4)
            for (size_t i = 0; i < nr; i++) {
                cJSON *c = cJSON_Duplicate(recs[i], 1);
                cJSON_ReplaceItemInObject(c, "model_filename", cJSON_CreateString(files[f]));
                cJSON_ReplaceItemInObject(c, "model_size", cJSON_CreateNumber(f ? 8e8 : 4e8));
                cJSON_ReplaceItemInObject(c, "n_threads", cJSON_CreateNumber(th));
                char *line = cJSON_PrintUnformatted(c);
                n += (size_t)snprintf(text + n, cap - n, "%s\n", line);
                free(line);
                cJSON_Delete(c);
            }
    assert_true(n < cap);
    rl_import_opts o = {"mixed", 0, NULL};
    rl_error e = {RL_OK, ""};
    if (import_text(text, n, "mixed.jsonl", &o, &b, &e) != RL_OK)
        fail_msg("%s", e.msg);
    check_structure(b);
    assert_string_equal(rl_test_str(rl_test_key(b, "source"), "name"), "mixed");
    models = rl_test_key(b, "models");
    assert_int_equal(cJSON_GetArraySize(models), 2);
    cJSON_ArrayForEach(m, models)
    {
        assert_int_equal(cJSON_GetArraySize(rl_test_key(m, "runs")), 4);
        cJSON_ArrayForEach(r, rl_test_key(m, "runs"))
        {
            assert_int_equal(cJSON_GetArraySize(rl_test_key(r, "records")), 2);
            const cJSON *x;
            cJSON_ArrayForEach(x, rl_test_key(r, "records"))
            {
                assert_near(rl_test_num(x, "n_threads"), rl_test_num(r, "threads"), 0);
                assert_near(rl_test_num(x, "n_depth"), rl_test_num(r, "depth"), 0);
                assert_string_equal(rl_test_str(x, "model_filename"), rl_test_str(m, "path"));
            }
        }
    }
    const cJSON *s = rl_test_key(b, "settings");
    assert_int_equal(cJSON_GetArraySize(rl_test_key(s, "threads")), 2);
    assert_int_equal(cJSON_GetArraySize(rl_test_key(s, "depths")), 2);
    assert_true(
        cJSON_IsTrue(rl_test_key(rl_test_key(rl_test_key(b, "analysis"), "fit"), "available")));
    cJSON_Delete(b);
    for (size_t i = 0; i < nr; i++)
        cJSON_Delete(recs[i]);
    free(text);
    free(a);
    free(d);
}

/* ---- byte conventions ------------------------------------------------------------------- */

/* Seen failing: with bundle.c's model_bytes ignoring an imported value (the models then have
 * no bytes: "bytes per token is 0"). */
static void test_conventions(void **state)
{
    (void)state;
    const char *streamed =
        "{\"schema_version\": 1, \"analysis\": {\"models\": ["
        "{\"name\": \"a\", \"bytes_per_token\": 400000000, \"bytes_source\": \"streamed tensors "
        "(GGUF tensor map)\", \"runs\": [{\"threads\": 4, \"decode_ts\": 30}]},"
        "{\"name\": \"b\", \"bytes_per_token\": 800000000, \"bytes_source\": \"streamed tensors "
        "(GGUF tensor map)\", \"runs\": [{\"threads\": 4, \"decode_ts\": 15}]}]}}";
    rl_import_opts o = {NULL, 0, NULL};
    rl_error e = {RL_OK, ""};
    cJSON *b = NULL;
    if (import_text(streamed, strlen(streamed), "d.json", &o, &b, &e) != RL_OK)
        fail_msg("%s", e.msg);
    const cJSON *an = rl_test_key(b, "analysis");
    assert_string_equal(rl_test_str(an, "bytes_convention"), "streamed");
    assert_near(rl_test_num(rl_test_key(an, "fit"), "bw_GBs"), 12.0, 1e-9);
    assert_true(is_unavailable(rl_test_key(b, "membw")));
    cJSON_Delete(b);
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": ["
                "{\"name\": \"a\", \"bytes_per_token\": 4, \"bytes_source\": \"streamed\"},"
                "{\"name\": \"b\", \"bytes_per_token\": 8, \"bytes_source\": \"file size\"}]}}",
                "analysis.models[1].bytes_source is resident bytes");
}

/* ---- hostile input ---------------------------------------------------------------------- */

/* Seen failing: with the models' bound raised to 200000 (the 100k models then reach the
 * analysis, whose message does not name the key). */
static void test_hostile(void **state)
{
    (void)state;
    size_t len;
    char *x86 = read_src("data/published/x86-i7-12700H/roofline.json", &len);
    refused(x86, len / 2, "not valid JSON");
    refused(x86, 1, "not valid JSON");
    free(x86);
    refused_str("", "the file is empty");
    refused_str(" \n\t", "the file is empty");
    refused_str("{\"hello\": 1}", "expected a llama-roofline roofline.json");
    refused_str("[1, 2, 3]", "no llama-bench record");
    refused_str("[{\"a\": 1}]", "no usable llama-bench record (n_prompt is missing)");
    refused_str("just text\nmore text\n", "no llama-bench record");
    refused_str("42", "no llama-bench record");
    refused("{\"a\": \"x\0y\"}", 13, "NUL bytes");
    refused_str("{\"a\": \"\xff\"}", "not UTF-8");
    refused_str("{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 1}",
                "already a llama-roofline bundle");
    refused_str("{\"schema_version\": 2, \"analysis\": {\"models\": []}}",
                "schema_version 2 is newer");
    refused_str("{\"schema_version\": \"1\", \"analysis\": {\"models\": []}}",
                "schema_version is a string; expected 1");
    refused_str("{\"schema_version\": 1}", "analysis is missing");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": {}}}",
                "analysis.models is an object; expected an array");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [7]}}",
                "analysis.models[0] is 7; expected an object");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\"}]}}",
                "analysis.models[0].bytes_per_token is missing");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": -5}]}}",
                "bytes_per_token is -5");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": \"8\"}]}]}}",
                "analysis.models[0].runs[0].threads is a string");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": 0}]}]}}",
                "runs[0].threads is 0; expected a whole number from 1 to 4096");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": 2.5}]}]}}",
                "threads is 2.5");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": 1, \"decode_ts\": -1}]}]}}",
                "runs[0].decode_ts is -1; expected a number from 0");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": 1, \"decode_ts\": \"fast\"}]}]}}",
                "decode_ts is a string");
    refused_str("{\"schema_version\": 1, \"analysis\": {\"models\": [{\"name\": \"a\", "
                "\"bytes_per_token\": 5, \"runs\": [{\"threads\": 1, \"decode_ts\": 1}, "
                "{\"threads\": 1, \"decode_ts\": 2}]}]}}",
                "two runs at 1 threads");
    refused_str("{\"schema_version\": 1, \"membw\": {\"peak_read_GBs\": \"fast\"}, "
                "\"analysis\": {\"models\": []}}",
                "membw.peak_read_GBs is a string");
    refused_str("{\"schema_version\": 1, \"system\": [], \"analysis\": {\"models\": []}}",
                "system is an array; expected an object");
    refused_str("{\"schema_version\": 1, \"settings\": {\"threads\": [1, \"2\"]}, "
                "\"analysis\": {\"models\": []}}",
                "settings.threads[] is a string");

    /* 100k models: refused by count, with bounded work */
    size_t cap = 100000 * 48 + 256, n = 0;
    char *big = malloc(cap);
    assert_non_null(big);
    n += (size_t)snprintf(big, cap, "{\"schema_version\": 1, \"analysis\": {\"models\": [");
    for (int i = 0; i < 100000; i++)
        n += (size_t)snprintf(big + n, cap - n, "%s{\"name\": \"m%d\", \"bytes_per_token\": 9}",
                              i ? "," : "", i);
    n += (size_t)snprintf(big + n, cap - n, "]}}");
    assert_true(n < cap);
    refused(big, n, "analysis.models must be an array of at most 1024 entries");
    /* more JSON values than a roofline.json could hold: refused before building the tree */
    n = (size_t)snprintf(big, cap, "{\"schema_version\": 1, \"x\": [");
    while (n < 2100000 * 2)
        n += (size_t)snprintf(big + n, cap - n, "0,");
    n += (size_t)snprintf(big + n, cap - n, "0]}");
    refused(big, n, "more than 1000000 values");
    free(big);

    /* llama-bench output that is damaged or not usable */
    size_t l;
    char *j = read_src("tests/fixtures/lbench/real-json-killed.txt", &l);
    refused(j, l, "cut short");
    free(j);
    char *jl = read_src("tests/fixtures/lbench/real-jsonl.txt", &l);
    refused(jl, l - 40, "cut short");
    char *nofile = malloc(l + 64);
    assert_non_null(nofile);
    char *cut = strstr(jl, "\"model_filename\": \"/tmp/lb-tiny.gguf\"");
    assert_non_null(cut);
    size_t at = (size_t)(cut - jl);
    memcpy(nofile, jl, at);
    size_t m = at + (size_t)sprintf(nofile + at, "\"model_filename\": \"\"");
    size_t rest = strlen(cut) - strlen("\"model_filename\": \"/tmp/lb-tiny.gguf\"");
    memcpy(nofile + m, cut + strlen("\"model_filename\": \"/tmp/lb-tiny.gguf\""), rest);
    refused(nofile, m + rest, "record 1 has no model_filename");
    free(nofile);
    free(jl);
    refused_str("{\"n_prompt\": \"x\", \"n_gen\": 1}\n",
                "no usable llama-bench record (n_prompt is not a whole number");
    refused_str("{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 5, \"model_size\": 9, "
                "\"n_threads\": 1, \"model_filename\": \"a\"}\n{\"n_prompt\": \"x\", "
                "\"n_gen\": 1}\n",
                "1 JSON object in it is not a usable llama-bench record (the first: n_prompt");
    /* more records than llama-bench prints in one call */
    const char *rec = "{\"model_filename\": \"a\", \"n_threads\": 1, \"n_prompt\": 0, "
                      "\"n_gen\": 1, \"avg_ts\": 5, \"model_size\": 9}\n";
    size_t rl = strlen(rec);
    char *many = malloc(rl * 4100);
    assert_non_null(many);
    for (int i = 0; i < 4100; i++)
        memcpy(many + (size_t)i * rl, rec, rl);
    refused(many, rl * 4100, "more than 4096 records");
    free(many);
}

/* Bundle edges: schema_version 0 refused (versions start at 1); a report whose only prefix is
 * a byte-order mark is still taken for HTML; the legend table ends at rl_legend_count(). */
static void test_bundle_edges(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    cJSON *b = cJSON_Parse("{\"schema\": \"" RL_BUNDLE_SCHEMA "\", \"schema_version\": 0}");
    assert_non_null(b);
    assert_int_equal(rl_bundle_check(b, "v0.json", &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "v0.json: the bundle has no valid schema_version"));
    cJSON_Delete(b);

    const char *t = getenv("RL_TMP");
    char path[512];
    snprintf(path, sizeof path, "%s/bom-report-%ld.html", t && *t ? t : "/tmp", (long)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("\xEF\xBB\xBF<html><body><p>no bundle</p></body></html>\n", f);
    assert_int_equal(fclose(f), 0);
    cJSON *out = NULL;
    assert_int_equal(rl_bundle_load(path, &out, &e), RL_EINPUT);
    assert_null(out);
    if (!strstr(e.msg, "an HTML file without an embedded bundle"))
        fail_msg("BOM report not taken for HTML: %s", e.msg);
    remove(path);

    size_t n = rl_legend_count();
    assert_true(n > 0);
    assert_non_null(rl_legend_at(n - 1));
    assert_null(rl_legend_at(n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_published_rpi5), cmocka_unit_test(test_published_x86),
        cmocka_unit_test(test_fit_35_73),      cmocka_unit_test(test_examples_golden),
        cmocka_unit_test(test_lbench_outputs), cmocka_unit_test(test_conventions),
        cmocka_unit_test(test_hostile),        cmocka_unit_test(test_bundle_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
