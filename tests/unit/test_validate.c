/* SPDX-License-Identifier: MIT */
/* test_validate.c: unit tests for validate.c. Every shipped example bundle and report fixture
 * is valid; then each kind of broken bundle is made by mutating a valid one here (the measured
 * synth-amd-epyc example: samples, records, a fit, a ceiling; the imported rpi5 example for
 * rates without samples), and the test asserts the exact JSON path reported and that every
 * problem reported lies inside the mutated part. Files are read below $RL_SRC.
 *
 * Seen to fail with the code broken on purpose: with the stats.mean comparison removed
 * ("sample changed" fails: no problem at ...stats.mean), and with the fit's n_points check
 * comparing against n + 1 (every valid bundle fails). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"
#include "base/rl_json.h"

#include "bundle/bundle.h"
#include "analyse/analysis_bundle.h"
#include "analyse/validate.h"

static cJSON *load_src(const char *rel)
{
    char path[4096];
    rl_test_src_path(path, sizeof path, rel);
    cJSON *b = NULL;
    rl_error e = {RL_OK, ""};
    if (rl_bundle_load(path, &b, &e) != RL_OK)
        fail_msg("%s", e.msg);
    return b;
}

static void print_problems(const rl_validate_problems *p)
{
    for (size_t i = 0; i < p->n; i++)
        print_message("  %s: %s\n", p->items[i].path, p->items[i].msg);
}

/* ---- every shipped bundle and report is valid ---- */

static void test_valid(void **state)
{
    (void)state;
    static const char *const files[] = {
        "examples/synth-amd-epyc/bundle.json",     "examples/rpi5-cortex-a76/bundle.json",
        "examples/x86-i7-12700H/bundle.json",      "examples/synth-amd-epyc/report.html",
        "tests/fixtures/report/memory-bound.json", "tests/fixtures/report/one-model.json",
        "tests/fixtures/report/hostile.json",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        cJSON *b = load_src(files[i]);
        rl_validate_problems p = {0};
        assert_int_equal(rl_validate(b, &p), RL_OK);
        if (p.n) {
            print_message("%s:\n", files[i]);
            print_problems(&p);
        }
        assert_int_equal(p.n, 0);
        rl_validate_problems_free(&p);
        cJSON_Delete(b);
    }
}

/* ---- broken bundles ---- */

static cJSON *at(cJSON *o, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_non_null(v);
    return v;
}

static cJSON *idx(cJSON *a, int i)
{
    cJSON *v = cJSON_GetArrayItem(a, i);
    assert_non_null(v);
    return v;
}

static cJSON *run(cJSON *b, int m, int r)
{
    return idx(at(idx(at(b, "models"), m), "runs"), r);
}

static void set_num(cJSON *o, const char *key, double v)
{
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNumber(v)));
}

static void set_str(cJSON *o, const char *key, const char *v)
{
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(v)));
}

static void sample_changed(cJSON *b)
{
    cJSON *s = idx(at(at(run(b, 1, 0), "decode"), "samples"), 1);
    cJSON_SetNumberValue(s, s->valuedouble * 1.2);
}
static void n_wrong(cJSON *b)
{
    set_num(at(at(run(b, 0, 0), "decode"), "stats"), "n", 4);
}
static void sd_wrong(cJSON *b)
{
    cJSON *st = at(at(run(b, 2, 1), "prefill"), "stats");
    set_num(st, "sd", at(st, "sd")->valuedouble * 1.01);
}
/* the interval moved wholly above the mean, its width kept: only the "holds the mean" check
 * can see it (mutant val-ci-mean) */
static void ci_misses_mean(cJSON *b)
{
    cJSON *st = at(at(run(b, 0, 1), "decode"), "stats"), *ci = at(st, "ci95");
    double lo = at(ci, "low")->valuedouble, hi = at(ci, "high")->valuedouble;
    double shift = at(st, "mean")->valuedouble - lo + 1;
    set_num(ci, "low", lo + shift);
    set_num(ci, "high", hi + shift);
}
/* stats.max and stats.min 1% off the largest and smallest sample (mutants val-stats-max,
 * val-min in tests/mutants.txt: the check dropped) */
static void max_wrong(cJSON *b)
{
    cJSON *st = at(at(run(b, 1, 1), "decode"), "stats");
    set_num(st, "max", at(st, "max")->valuedouble * 1.01);
}
static void min_wrong(cJSON *b)
{
    cJSON *st = at(at(run(b, 2, 0), "prefill"), "stats");
    set_num(st, "min", at(st, "min")->valuedouble * 0.99);
}
static void sample_negative(cJSON *b)
{
    cJSON_SetNumberValue(idx(at(at(run(b, 0, 0), "decode"), "samples"), 2), -3.0);
}
/* a sample of exactly 0 (mutant val-sample-pos: only negatives refused) */
static void sample_zero(cJSON *b)
{
    cJSON_SetNumberValue(idx(at(at(run(b, 1, 1), "decode"), "samples"), 0), 0.0);
}
/* ci95 10% too narrow around its mean: it still holds the mean (mutant val-ci-width) */
static void ci_narrow(cJSON *b)
{
    cJSON *st = at(at(run(b, 2, 0), "decode"), "stats"), *ci = at(st, "ci95");
    double m = at(st, "mean")->valuedouble;
    double lo = at(ci, "low")->valuedouble, hi = at(ci, "high")->valuedouble;
    set_num(ci, "low", m - 0.9 * (m - lo));
    set_num(ci, "high", m + 0.9 * (hi - m));
}
static void kind_missing(cJSON *b)
{
    cJSON_DeleteItemFromObjectCaseSensitive(at(run(b, 0, 1), "decode"), "kind");
}
static void kind_unknown(cJSON *b)
{
    set_str(at(idx(at(b, "models"), 2), "bytes_per_token"), "kind", "guessed");
}
static void unavailable_no_reason(cJSON *b)
{
    cJSON *pre = cJSON_CreateObject();
    cJSON_AddFalseToObject(pre, "available");
    assert_true(cJSON_ReplaceItemInObjectCaseSensitive(run(b, 1, 1), "prefill", pre));
}
static void unit_wrong(cJSON *b)
{
    set_str(at(run(b, 0, 0), "decode"), "unit", "tok/min");
}
static void ok_without_decode(cJSON *b)
{
    cJSON_DeleteItemFromObjectCaseSensitive(run(b, 0, 1), "decode");
}
static void record_threads(cJSON *b)
{
    set_num(idx(at(run(b, 0, 1), "records"), 1), "n_threads", 1);
}
static void record_depth(cJSON *b)
{
    set_num(idx(at(run(b, 2, 0), "records"), 0), "n_depth", 512);
}
static void no_decode_record(cJSON *b)
{
    cJSON_DeleteItemFromArray(at(run(b, 1, 0), "records"), 1);
}
static void fit_bw(cJSON *b)
{
    cJSON *fit = at(at(b, "analysis"), "fit");
    set_num(fit, "bw_bytes_s", at(fit, "bw_bytes_s")->valuedouble * (1 + 1e-6));
}
/* bw_GBs so large that bw_GBs * 1e9 overflows: the tolerance arithmetic said "close" (inf <=
 * inf) before the fix, and no problem was found. */
static void fit_gbs_huge(cJSON *b)
{
    set_num(at(at(b, "analysis"), "fit"), "bw_GBs", 1e308);
}
/* The decode record's samples_ns slowed 25% under unchanged samples: before the fix only the
 * count of samples was checked, and no problem was found. */
static void samples_ns_slowed(cJSON *b)
{
    cJSON *recs = at(run(b, 0, 0), "records"), *rec, *v;
    cJSON_ArrayForEach(rec, recs)
    {
        if (at(rec, "n_gen")->valuedouble > 0)
            cJSON_ArrayForEach(v, at(rec, "samples_ns"))
                cJSON_SetNumberValue(v, floor(v->valuedouble * 1.25));
    }
}
static void fit_n_points(cJSON *b)
{
    set_num(at(at(b, "analysis"), "fit"), "n_points", 2);
}
static void fit_r2(cJSON *b)
{
    set_num(at(at(b, "analysis"), "fit"), "r2", 0.95);
}
static void util_wrong(cJSON *b)
{
    cJSON *u = at(idx(at(at(b, "analysis"), "models"), 1), "utilisation");
    set_num(u, "util_pct", at(u, "util_pct")->valuedouble + 0.5);
}
static void analysis_unknown_model(cJSON *b)
{
    set_str(idx(at(at(b, "analysis"), "models"), 0), "id", "m9");
}
static void duplicate_id(cJSON *b)
{
    set_str(idx(at(b, "models"), 2), "id", "m1");
    set_str(idx(at(at(b, "analysis"), "models"), 2), "id", "m1"); /* the analysis agrees */
}
static void warning_unknown_id(cJSON *b)
{
    cJSON *w = cJSON_CreateObject();
    cJSON_AddStringToObject(w, "code", "test_warning");
    cJSON_AddStringToObject(w, "text", "a warning about a model that is not there");
    cJSON *ap = cJSON_AddArrayToObject(w, "applies_to");
    cJSON_AddItemToArray(ap, cJSON_CreateString("m2"));
    cJSON_AddItemToArray(ap, cJSON_CreateString("m7"));
    cJSON_AddItemToArray(at(b, "warnings"), w);
}
static void missing_created(cJSON *b)
{
    cJSON_DeleteItemFromObjectCaseSensitive(b, "created_utc");
}
static void bad_utc(cJSON *b)
{
    set_str(b, "updated_utc", "2026-11-30 12:00:00");
}
static void newer_schema(cJSON *b)
{
    set_num(b, "schema_version", 99);
}
static void samples_ns_short(cJSON *b)
{
    cJSON_DeleteItemFromArray(at(idx(at(run(b, 0, 0), "records"), 1), "samples_ns"), 0);
}
static void samples_ns_average_only(cJSON *b)
{
    cJSON_DeleteItemFromObjectCaseSensitive(idx(at(run(b, 0, 0), "records"), 1), "samples_ns");
}
static void client_sample_not_number(cJSON *b)
{
    cJSON *e2e = at(at(idx(at(at(b, "client"), "points"), 0), "metrics"), "e2e");
    cJSON_ReplaceItemInArray(at(e2e, "samples"), 1, cJSON_CreateString("581"));
}
static void imported_no_mean(cJSON *b)
{
    cJSON_DeleteItemFromObjectCaseSensitive(at(run(b, 1, 2), "decode"), "mean");
}

typedef struct {
    const char *what;
    const char *file; /* below RL_SRC */
    void (*mutate)(cJSON *b);
    const char *path;  /* must be reported */
    const char *scope; /* every problem's path starts with this */
} broken_case;

#define SYNTH "examples/synth-amd-epyc/bundle.json"
#define RPI5 "examples/rpi5-cortex-a76/bundle.json"

static const broken_case cases[] = {
    {"a sample changed: the mean disagrees", SYNTH, sample_changed,
     "models[1].runs[0].decode.stats.mean", "models[1].runs[0].decode."},
    {"stats.n wrong", SYNTH, n_wrong, "models[0].runs[0].decode.stats.n",
     "models[0].runs[0].decode.stats.n"},
    {"stats.sd wrong", SYNTH, sd_wrong, "models[2].runs[1].prefill.stats.sd",
     "models[2].runs[1].prefill.stats.sd"},
    {"ci95 misses the mean", SYNTH, ci_misses_mean, "models[0].runs[1].decode.stats.ci95",
     "models[0].runs[1].decode.stats.ci95"},
    {"stats.max is not the largest sample", SYNTH, max_wrong, "models[1].runs[1].decode.stats.max",
     "models[1].runs[1].decode.stats.max"},
    {"stats.min is not the smallest sample", SYNTH, min_wrong,
     "models[2].runs[0].prefill.stats.min", "models[2].runs[0].prefill.stats.min"},
    {"a negative sample", SYNTH, sample_negative, "models[0].runs[0].decode.samples[2]",
     "models[0].runs[0].decode.samples[2]"},
    {"a sample of 0", SYNTH, sample_zero, "models[1].runs[1].decode.samples[0]",
     "models[1].runs[1].decode.samples[0]"},
    {"ci95 10% too narrow", SYNTH, ci_narrow, "models[2].runs[0].decode.stats.ci95",
     "models[2].runs[0].decode.stats.ci95"},
    {"kind missing", SYNTH, kind_missing, "models[0].runs[1].decode.kind",
     "models[0].runs[1].decode.kind"},
    {"unknown kind", SYNTH, kind_unknown, "models[2].bytes_per_token.kind",
     "models[2].bytes_per_token.kind"},
    {"unavailable without a reason", SYNTH, unavailable_no_reason,
     "models[1].runs[1].prefill.reason", "models[1].runs[1].prefill.reason"},
    {"a rate's unit wrong", SYNTH, unit_wrong, "models[0].runs[0].decode.unit",
     "models[0].runs[0].decode.unit"},
    {"an ok run without decode", SYNTH, ok_without_decode, "models[0].runs[1].decode",
     "models[0].runs[1].decode"},
    {"a record's n_threads is not the run's", SYNTH, record_threads,
     "models[0].runs[1].records[1].n_threads", "models[0].runs[1].records[1].n_threads"},
    {"a record's n_depth is not the run's", SYNTH, record_depth,
     "models[2].runs[0].records[0].n_depth", "models[2].runs[0].records[0].n_depth"},
    {"an ok run without a decode record", SYNTH, no_decode_record, "models[1].runs[0].records",
     "models[1].runs[0].records"},
    {"fit bw changed", SYNTH, fit_bw, "analysis.fit.bw_bytes_s", "analysis.fit.bw_"},
    {"fit n_points wrong", SYNTH, fit_n_points, "analysis.fit.n_points", "analysis.fit.n_points"},
    {"fit r2 changed", SYNTH, fit_r2, "analysis.fit.r2", "analysis.fit.r2"},
    {"utilisation disagrees with its ceiling", SYNTH, util_wrong,
     "analysis.models[1].utilisation.util_pct", "analysis.models[1].utilisation.util_pct"},
    {"an analysis model names no model", SYNTH, analysis_unknown_model, "analysis.models[0].id",
     "analysis.models[0].id"},
    {"duplicate model id", SYNTH, duplicate_id, "models[2].id", "models[2].id"},
    {"a warning applies to an unknown id", SYNTH, warning_unknown_id, "warnings[0].applies_to[1]",
     "warnings[0].applies_to[1]"},
    {"a required key missing", SYNTH, missing_created, "created_utc", "created_utc"},
    {"a timestamp not UTC", SYNTH, bad_utc, "updated_utc", "updated_utc"},
    {"a newer schema version", SYNTH, newer_schema, "schema", "schema"},
    {"bw_GBs 1e308", SYNTH, fit_gbs_huge, "analysis.fit.bw_GBs", "analysis.fit.bw_GBs"},
    {"samples_ns slowed 25%", SYNTH, samples_ns_slowed, "models[0].runs[0].decode.samples[0]",
     "models[0].runs[0].decode.samples[0]"},
    {"a rate's samples outnumber its records' samples_ns", SYNTH, samples_ns_short,
     "models[0].runs[0].decode.samples", "models[0].runs[0].decode.samples"},
    {"3 samples from a record of its average only (one sample)", SYNTH, samples_ns_average_only,
     "models[0].runs[0].decode.samples", "models[0].runs[0].decode.samples"},
    {"a client sample not a number", "tests/fixtures/client/bundle.json", client_sample_not_number,
     "client.points[0].metrics.e2e.samples", "client.points[0].metrics.e2e.samples"},
    {"an imported rate without its mean", RPI5, imported_no_mean, "models[1].runs[2].decode.mean",
     "models[1].runs[2].decode.mean"},
};

static void test_broken(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const broken_case *c = &cases[i];
        cJSON *b = load_src(c->file);
        assert_true(rl_json_expand(b)); /* the mutations edit samples entry by entry */
        c->mutate(b);
        rl_validate_problems p = {0};
        assert_int_equal(rl_validate(b, &p), RL_OK);
        /* written to a file and read back, with its samples compact (as a bundle is read) or
         * not: the same problems, word for word */
        char *text = cJSON_Print(b);
        assert_non_null(text);
        cJSON *plain = NULL, *compact = NULL;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_json_parse("back", text, strlen(text), &plain, &e), RL_OK);
        assert_int_equal(rl_json_parse_compact("back", text, strlen(text), &compact, &e), RL_OK);
        free(text);
        rl_validate_problems q = {0}, r = {0};
        assert_int_equal(rl_validate(plain, &q), RL_OK);
        assert_int_equal(rl_validate(compact, &r), RL_OK);
        assert_int_equal(q.n, r.n);
        for (size_t k = 0; k < q.n; k++) {
            assert_string_equal(q.items[k].path, r.items[k].path);
            assert_string_equal(q.items[k].msg, r.items[k].msg);
        }
        rl_validate_problems_free(&q);
        rl_validate_problems_free(&r);
        cJSON_Delete(plain);
        cJSON_Delete(compact);
        bool in_scope = true;
        for (size_t k = 0; k < p.n; k++)
            if (strncmp(p.items[k].path, c->scope, strlen(c->scope)) != 0)
                in_scope = false;
        if (!rl_validate_find(&p, c->path) || !in_scope) {
            print_message("%s: expected %s (all under %s), got:\n", c->what, c->path, c->scope);
            print_problems(&p);
            fail();
        }
        rl_validate_problems_free(&p);
        cJSON_Delete(b);
    }
}

/* Not an object, and a path longer than the path buffer: reported, cut, no overrun. */
static void test_odd(void **state)
{
    (void)state;
    rl_validate_problems p = {0};
    cJSON *a = cJSON_CreateArray();
    assert_int_equal(rl_validate(a, &p), RL_OK);
    assert_int_equal(p.n, 1);
    assert_string_equal(p.items[0].path, "");
    rl_validate_problems_free(&p);
    cJSON_Delete(a);

    cJSON *b = load_src(SYNTH);
    char key[2000];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    cJSON *o = cJSON_AddObjectToObject(at(b, "analysis"), key);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(o, "x"), "v", 1); /* inherits: fine */
    cJSON *bad = cJSON_AddObjectToObject(b, key);
    cJSON_AddNumberToObject(bad, "v", 1); /* no kind */
    assert_int_equal(rl_validate(b, &p), RL_OK);
    assert_int_equal(p.n, 1);
    assert_true(strlen(p.items[0].path) < 512);
    assert_int_equal(strncmp(p.items[0].path, "kkkk", 4), 0);
    rl_validate_problems_free(&p);
    cJSON_Delete(b);
}

/* A client bundle's analysis (the fixture's points given machine objects, the second
 * disturbed, analysed as `client` does) is valid; its counts, its provisional flag and a
 * point's measured_server are checked against the points. */
static cJSON *client_analysed(void)
{
    cJSON *b = load_src("tests/fixtures/client/bundle.json");
    cJSON *pt;
    int i = 0;
    cJSON_ArrayForEach(pt, at(at(b, "client"), "points"))
    {
        cJSON *m = cJSON_Parse(
            i++ ? "{\"kind\": \"measured\", \"interval_s\": 2, \"cpus\": 2, \"other_cpu_pct\": 70, "
                  "\"steal_pct\": 0, \"disturbed\": true, \"why\": \"other processes used 70% of "
                  "the CPUs\", \"measured_server\": {\"pids\": [4242], \"found_by\": \"named by "
                  "--server-pid\", \"cpu_pct\": 40}}"
                : "{\"kind\": \"measured\", \"interval_s\": 2, \"cpus\": 2, \"other_cpu_pct\": 3, "
                  "\"steal_pct\": 0, \"disturbed\": false, \"why\": \"\", \"measured_server\": "
                  "{\"pids\": [], \"reason\": \"the command driver\"}}");
        assert_non_null(m);
        cJSON_AddItemToObject(pt, "machine", m);
    }
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_bundle_analyze_client(b, &e), RL_OK);
    return b;
}

static void client_expect(cJSON *b, const char *path)
{
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate(b, &p), RL_OK);
    if (path ? p.n != 1 || !rl_validate_find(&p, path) : p.n != 0) {
        print_message("expected %s, got:\n", path ? path : "no problem");
        print_problems(&p);
        fail();
    }
    rl_validate_problems_free(&p);
    cJSON_Delete(b);
}

static void test_client_analysis(void **state)
{
    (void)state;
    client_expect(client_analysed(), NULL);
    cJSON *b = client_analysed();
    set_num(at(at(b, "analysis"), "disturbance"), "n_disturbed", 2);
    client_expect(b, "analysis.disturbance.n_disturbed");
    b = client_analysed();
    set_num(at(at(at(at(b, "analysis"), "disturbance"), "by_kind"), "client"), "n", 3);
    client_expect(b, "analysis.disturbance.by_kind.client.n");
    b = client_analysed();
    cJSON_ReplaceItemInObject(at(b, "analysis"), "provisional", cJSON_CreateFalse());
    client_expect(b, "analysis.provisional");
    b = client_analysed(); /* a disturbed point made quiet: the counts no longer hold */
    cJSON *m1 = at(idx(at(at(b, "client"), "points"), 1), "machine");
    cJSON_ReplaceItemInObject(m1, "disturbed", cJSON_CreateFalse());
    set_str(m1, "why", "");
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate(b, &p), RL_OK);
    assert_non_null(rl_validate_find(&p, "analysis.disturbance.n_disturbed"));
    assert_non_null(rl_validate_find(&p, "analysis.disturbance.disturbed"));
    assert_non_null(rl_validate_find(&p, "analysis.provisional"));
    rl_validate_problems_free(&p);
    cJSON_Delete(b);
    b = client_analysed();
    cJSON_DeleteItemFromObject(
        at(at(idx(at(at(b, "client"), "points"), 0), "machine"), "measured_server"), "reason");
    client_expect(b, "client.points[0].machine.measured_server.reason");
    b = client_analysed();
    cJSON *pids =
        at(at(at(idx(at(at(b, "client"), "points"), 1), "machine"), "measured_server"), "pids");
    cJSON_ReplaceItemInArray(pids, 0, cJSON_CreateNumber(0));
    client_expect(b, "client.points[1].machine.measured_server.pids");
    b = client_analysed(); /* a client analysis needs no fit, any other does */
    cJSON_DeleteItemFromObject(at(b, "analysis"), "scope");
    client_expect(b, "analysis.fit");
}

/* A membw result (membw --json, -o): valid as membw writes it; a sample of 0, a run without
 * threads, a machine_state that miscounts the runs and an unknown kind are each named. */
static cJSON *membw_result(void)
{
    cJSON *m = cJSON_Parse(
        "{\"kind\": \"measured\", \"peak_read_GBs\": 30.1, \"complete\": false, \"runs\": ["
        "{\"kernel\": \"sum\", \"threads\": 1, \"samples_GBs\": [29.5, 30.1], \"machine\": "
        "{\"kind\": \"measured\", \"interval_s\": 1, \"cpus\": 2, \"other_cpu_pct\": 60, "
        "\"steal_pct\": 0, \"disturbed\": true, \"why\": \"other processes used 60% of the "
        "CPUs\"}}, {\"kernel\": \"copy\", \"threads\": 1, \"samples_GBs\": [20]}], "
        "\"env\": {\"machine_state\": {\"kind\": \"measured\", \"measurements\": 1, "
        "\"disturbed\": 1, \"limits\": {\"other_cpu_pct\": 25, \"steal_pct\": 5}}}}");
    assert_non_null(m);
    return m;
}

static void membw_expect(cJSON *m, const char *path)
{
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate_membw(m, &p), RL_OK);
    if (path ? !rl_validate_find(&p, path) : p.n != 0) {
        print_message("expected %s, got:\n", path ? path : "no problem");
        print_problems(&p);
        fail();
    }
    rl_validate_problems_free(&p);
    cJSON_Delete(m);
}

static void test_membw_result(void **state)
{
    (void)state;
    membw_expect(membw_result(), NULL);
    membw_expect(cJSON_Parse("{\"kind\": \"controlled\", \"peak_read_GBs\": 40, \"runs\": []}"),
                 NULL);
    cJSON *m = membw_result();
    cJSON_ReplaceItemInArray(at(idx(at(m, "runs"), 1), "samples_GBs"), 0, cJSON_CreateNumber(0));
    membw_expect(m, "runs[1].samples_GBs[0]");
    m = membw_result();
    cJSON_DeleteItemFromObject(idx(at(m, "runs"), 0), "threads");
    membw_expect(m, "runs[0].threads");
    m = membw_result();
    set_num(at(at(m, "env"), "machine_state"), "disturbed", 0);
    membw_expect(m, "env.machine_state.disturbed");
    m = membw_result();
    set_str(m, "kind", "guessed");
    membw_expect(m, "kind");
    m = membw_result();
    cJSON_ReplaceItemInObject(m, "runs", cJSON_CreateArray());
    membw_expect(m, "runs");
}

/* An advice row (advise --measure) whose tok_s is exactly 95% of the fastest is tied (mutant
 * val-tied: only above 95%); one just below is not. The rows' decode are imported rates (a
 * mean, no samples) so that every row is valid as it stands. */
static cJSON *adv_row(const char *id, const char *fmt, double tok, double first, bool tied)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "model_id", id);
    cJSON_AddStringToObject(r, "format", fmt);
    cJSON *d = cJSON_AddObjectToObject(r, "decode");
    cJSON_AddStringToObject(d, "kind", "measured");
    cJSON_AddStringToObject(d, "unit", "tok/s");
    cJSON_AddNumberToObject(d, "mean", tok);
    cJSON *s = cJSON_AddObjectToObject(d, "samples");
    cJSON_AddFalseToObject(s, "available");
    cJSON_AddStringToObject(s, "reason", "imported: the source gives only the mean");
    cJSON_AddNumberToObject(r, "tok_s", tok);
    cJSON_AddNumberToObject(r, "vs_best_pct", 100.0 * (tok / first - 1.0));
    cJSON_AddBoolToObject(r, "tied", tied);
    return r;
}

static void check_tied(double ratio, bool tied, size_t want_problems)
{
    cJSON *b = load_src(RPI5);
    cJSON *adv = cJSON_AddObjectToObject(b, "advice");
    cJSON_AddStringToObject(adv, "kind", "derived");
    cJSON *t = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(adv, "tables"), t);
    cJSON_AddNumberToObject(t, "threads", 4);
    cJSON *rows = cJSON_AddArrayToObject(t, "rows");
    cJSON_AddItemToArray(rows, adv_row("m1", "Q8_0", 20.0, 20.0, true));
    cJSON_AddItemToArray(rows, adv_row("m2", "Q4_0", ratio * 20.0, 20.0, tied));
    cJSON *rk = cJSON_AddArrayToObject(t, "ranking");
    cJSON_AddItemToArray(rk, cJSON_CreateString("Q8_0"));
    cJSON_AddItemToArray(rk, cJSON_CreateString("Q4_0"));
    cJSON_AddStringToObject(t, "fastest", "Q8_0");
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate(b, &p), RL_OK);
    if (p.n != want_problems ||
        (want_problems && !rl_validate_find(&p, "advice.tables[0].rows[1].tied"))) {
        print_message("ratio %.17g tied %d: expected %zu problems, got:\n", ratio, tied,
                      want_problems);
        print_problems(&p);
        fail();
    }
    rl_validate_problems_free(&p);
    cJSON_Delete(b);
}

static void test_advice_tied(void **state)
{
    (void)state;
    check_tied(0.95, true, 0);
    check_tied(0.95, false, 1);
    check_tied(0.949, false, 0);
    check_tied(0.949, true, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),        cmocka_unit_test(test_broken),
        cmocka_unit_test(test_odd),          cmocka_unit_test(test_client_analysis),
        cmocka_unit_test(test_membw_result), cmocka_unit_test(test_advice_tied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
