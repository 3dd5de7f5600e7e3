/* SPDX-License-Identifier: MIT */
/* test_history.c: history.h's ordering, machine, grouping, steps and annotations, on bundles
 * built here as JSON text, with hand-computed values:
 *   - order: created_utc, then the path (test_order);
 *   - machine: the newest bundle's; another CPU, or RAM 2% apart, is another machine; RAM
 *     0.5% apart is the same (test_machine); the newest alone of its machine is RL_EINPUT;
 *   - grouping: the same tensor-type map and size under another name is one series; another
 *     tensor size, other threads or other GPU layers another (test_grouping);
 *   - steps (test_steps): A = 10..14 (mean 12, variance 2.5) then B = 12..20 step 2 (mean 16,
 *     variance 10): t = 4 / sqrt(2.5) = 2.5298221281, df = 6.25 / 1.0625 = 5.8823529412, p =
 *     0.0454646: faster (+33.3%); then B * 0.8: -20% but within noise (values beside the test);
 *     then tight samples 20% lower: slower; the same again: within noise, p = 1; one sample:
 *     not tested. --fail-on-regression 10 counts 1, 25 counts 0; a disturbed side makes the
 *     step suspect and counted apart;
 *   - annotations (test_changes): the build "a (build 1) -> b (build 2)", the kernel, a
 *     disturbed bundle with its text; nothing changed: NULL;
 *   - listing (test_listed): 200 quiet points list the first and last; a cap of 5 keeps the
 *     last;
 *   - JSON (test_json): the schema, the points' inputs numbered from 1 in time order.
 * The mutants of tests/mutants.txt (hist-*) say what each check catches. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyse/history.h"

typedef struct {
    const char *created, *cpu, *build, *kernel, *name, *samples;
    double ram, build_number, tensor_bytes, threads, ngl;
    bool disturbed;
    const char *disturbance;
} spec;

static cJSON *bundle(const spec *s)
{
    char text[4096];
    snprintf(
        text, sizeof text,
        "{\"schema\": \"llama-roofline-bundle\", \"schema_version\": 2,"
        " \"created_utc\": \"%s\","
        " \"environment\": {\"cpu\": \"%s\", \"arch\": \"x86_64\", \"logical_cores\": 2,"
        "   \"physical_cores\": 2, \"numa_nodes\": 1, \"ram_bytes\": %.0f,"
        "   \"kernel\": \"%s\", \"governor\": null},"
        " \"settings\": {\"n_prompt\": 128, \"n_gen\": 128, \"n_gpu_layers\": %.0f,"
        "   \"bench_args\": [], \"reps\": 3},"
        " \"llama_cpp\": {\"build_commit\": \"%s\", \"build_number\": %.0f},"
        " \"analysis\": {\"disturbance\": {\"text\": \"%s\"}},"
        " \"models\": [{\"id\": \"m1\", \"name\": \"%s\","
        "   \"gguf\": {\"tensor_bytes\": %.0f, \"types\": [{\"type\": \"Q4_0\","
        "     \"n_tensors\": 10, \"bytes\": %.0f}]},"
        "   \"runs\": [{\"threads\": %.0f, \"depth\": 0, \"status\": \"ok\","
        "     \"machine\": {\"disturbed\": %s},"
        "     \"decode\": {\"kind\": \"measured\", \"unit\": \"tok/s\", \"samples\": [%s]}}]}]}",
        s->created, s->cpu ? s->cpu : "CPU A", s->ram ? s->ram : 16e9,
        s->kernel ? s->kernel : "6.1", s->ngl, s->build ? s->build : "abc",
        s->build_number ? s->build_number : 1,
        s->disturbance ? s->disturbance : "other processes used 80% of the CPUs",
        s->name ? s->name : "m.gguf", s->tensor_bytes ? s->tensor_bytes : 1e9,
        s->tensor_bytes ? s->tensor_bytes : 1e9, s->threads ? s->threads : 2,
        s->disturbed ? "true" : "false", s->samples ? s->samples : "10, 11, 12, 13, 14");
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    return b;
}

static void add(rl_hist *h, const char *path, const spec *s)
{
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_hist_add_bundle(h, path, bundle(s), &err), RL_OK);
}

static void run_ok(rl_hist *h)
{
    rl_error err = {RL_OK, ""};
    rl_status st = rl_hist_run(h, &err);
    if (st != RL_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, RL_OK);
}

static const rl_hist_series *decode_series(const rl_hist *h, size_t which)
{
    size_t n = 0;
    for (size_t s = 0; s < h->n_series; s++)
        if (strcmp(h->series[s].row.metric, "decode") == 0 && n++ == which)
            return &h->series[s];
    fail_msg("no decode series %zu", which);
    return NULL;
}

static void test_order(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    add(&h, "c.json", &(spec){.created = "2026-11-03T00:00:00Z"});
    add(&h, "b2.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    add(&h, "a.json", &(spec){.created = "2026-11-02T00:00:00Z"});
    add(&h, "b1.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    run_ok(&h);
    assert_int_equal(h.n_inputs, 4);
    assert_string_equal(h.inputs[0].path, "b1.json");
    assert_string_equal(h.inputs[1].path, "b2.json");
    assert_string_equal(h.inputs[2].path, "a.json");
    assert_string_equal(h.inputs[3].path, "c.json");
    rl_hist_free(&h);
}

static void test_machine(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    add(&h, "a.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    add(&h, "b.json", &(spec){.created = "2026-11-02T00:00:00Z", .ram = 16e9 * 1.005});
    add(&h, "x.json", &(spec){.created = "2026-11-03T00:00:00Z", .cpu = "CPU B"});
    add(&h, "r.json", &(spec){.created = "2026-11-04T00:00:00Z", .ram = 16e9 * 1.02});
    add(&h, "c.json", &(spec){.created = "2026-11-05T00:00:00Z"});
    run_ok(&h);
    assert_int_equal(h.n_inputs, 3);
    assert_string_equal(h.inputs[1].path, "b.json");
    assert_int_equal(h.n_others, 2);
    assert_string_equal(h.others[0].path, "x.json");
    assert_string_equal(h.others[1].path, "r.json");
    assert_non_null(strstr(h.others[0].machine, "CPU B, x86_64, 2 cores"));
    assert_int_equal(decode_series(&h, 0)->n_pts, 3);
    rl_hist_free(&h);

    /* the newest alone of its machine */
    rl_hist_init(&h);
    add(&h, "a.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    add(&h, "b.json", &(spec){.created = "2026-11-02T00:00:00Z"});
    add(&h, "x.json", &(spec){.created = "2026-11-03T00:00:00Z", .cpu = "CPU B"});
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_hist_run(&h, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "of 3 read, 1 is of the newest one's machine (CPU B"));
    rl_hist_free(&h);

    rl_hist_init(&h);
    add(&h, "a.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    assert_int_equal(rl_hist_run(&h, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "got 1"));
    rl_hist_free(&h);
}

static void test_grouping(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    add(&h, "1.json", &(spec){.created = "2026-11-01T00:00:00Z", .name = "one.gguf"});
    add(&h, "2.json", &(spec){.created = "2026-11-02T00:00:00Z", .name = "renamed.gguf"});
    add(&h, "3.json", &(spec){.created = "2026-11-03T00:00:00Z", .tensor_bytes = 2e9});
    add(&h, "4.json", &(spec){.created = "2026-11-04T00:00:00Z", .threads = 1});
    add(&h, "5.json", &(spec){.created = "2026-11-05T00:00:00Z", .ngl = 99});
    run_ok(&h);
    size_t n_decode = 0;
    for (size_t s = 0; s < h.n_series; s++)
        n_decode += strcmp(h.series[s].row.metric, "decode") == 0;
    assert_int_equal(n_decode, 4);
    const rl_hist_series *s0 = decode_series(&h, 0);
    assert_int_equal(s0->n_pts, 2);
    assert_string_equal(s0->row.subject, "one.gguf");
    assert_int_equal(s0->pts[1].input, 1);
    assert_int_equal(decode_series(&h, 1)->n_pts, 1);
    assert_int_equal(decode_series(&h, 1)->pts[0].input, 2);
    assert_int_equal(decode_series(&h, 3)->pts[0].input, 4);
    rl_hist_free(&h);
}

static void test_steps(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    static const char *const samples[] = {"10,11,12,13,14",
                                          "12,14,16,18,20",
                                          "9.6,11.2,12.8,14.4,16",
                                          "12.7,12.8,12.9",
                                          "10.16,10.24,10.32",
                                          "10.16,10.24,10.32",
                                          "13"};
    for (int i = 0; i < 7; i++) {
        char created[32], path[32];
        snprintf(created, sizeof created, "2026-11-%02dT00:00:00Z", i + 1);
        snprintf(path, sizeof path, "%d.json", i + 1);
        add(&h, path, &(spec){.created = created, .samples = samples[i]});
    }
    run_ok(&h);
    const rl_hist_series *s = decode_series(&h, 0);
    assert_int_equal(s->n_pts, 7);
    assert_int_equal(s->pts[0].cell.verdict, RL_CMP_BASELINE);
    const rl_cmp_cell *b = &s->pts[1].cell;
    assert_int_equal(b->verdict, RL_CMP_FASTER);
    assert_float_equal(b->t, 2.5298221281347035, 1e-9);
    assert_float_equal(b->df, 5.882352941176471, 1e-9);
    assert_float_equal(b->p, 0.0454646, 1e-5);
    assert_float_equal(b->change_pct, 100.0 / 3, 1e-9);
    /* 0.8 x B: -20%, but t = -3.2 / sqrt(2 + 1.28) = -1.7669044, df = 3.28^2 / (2^2/4 +
     * 1.28^2/4) = 7.6322361: not significant, within noise */
    const rl_cmp_cell *c = &s->pts[2].cell;
    assert_int_equal(c->verdict, RL_CMP_NOISE);
    assert_float_equal(c->change_pct, -20, 1e-9);
    assert_float_equal(c->t, -1.7669044171975443, 1e-9);
    assert_float_equal(c->df, 7.632236095346197, 1e-9);
    assert_int_equal(s->pts[3].cell.verdict, RL_CMP_NOISE);
    assert_float_equal(s->pts[3].cell.change_pct, 0, 1e-9);
    /* tight samples, -20%: t = -2.56 / sqrt(0.01/3 + 0.0064/3) = -34.624114, df = 3.8161180 */
    const rl_cmp_cell *e = &s->pts[4].cell;
    assert_int_equal(e->verdict, RL_CMP_SLOWER);
    assert_float_equal(e->change_pct, -20, 1e-9);
    assert_float_equal(e->t, -34.62411397122928, 1e-6);
    assert_float_equal(e->df, 3.8161180476730925, 1e-6);
    assert_int_equal(s->pts[5].cell.verdict, RL_CMP_NOISE);
    assert_float_equal(s->pts[5].cell.p, 1, 0);
    assert_int_equal(s->pts[6].cell.verdict, RL_CMP_ONE_SAMPLE);
    assert_int_equal(rl_hist_regressions(&h, 10, NULL), 1);
    assert_int_equal(rl_hist_regressions(&h, 25, NULL), 0);
    assert_true(rl_hist_is_regression(s, 4, 19.9));
    assert_false(rl_hist_is_regression(s, 4, 20.0));
    assert_false(rl_hist_is_regression(s, 2, 10)); /* -20% within noise is no regression */
    rl_hist_counts k = rl_hist_count(&h);
    assert_int_equal(k.faster, 1);
    assert_int_equal(k.slower, 1);
    assert_int_equal(k.noise, 3);
    assert_int_equal(k.untested, 1);
    /* nothing changed between these bundles: the faster and slower steps are listed anyway */
    size_t idx[7];
    assert_int_equal(rl_hist_listed(s, false, 120, idx), 4);
    assert_int_equal(idx[1], 1);
    assert_int_equal(idx[2], 4);
    rl_hist_free(&h);

    /* exactly -25% (means 16 and 12, exact in binary): beyond 24.9, not beyond 25 */
    rl_hist_init(&h);
    add(&h, "1.json", &(spec){.created = "2026-11-01T00:00:00Z", .samples = "16,16.5,15.5"});
    add(&h, "2.json", &(spec){.created = "2026-11-02T00:00:00Z", .samples = "12,12.5,11.5"});
    run_ok(&h);
    s = decode_series(&h, 0);
    assert_float_equal(s->pts[1].cell.change_pct, -25, 0);
    assert_int_equal(s->pts[1].cell.verdict, RL_CMP_SLOWER);
    assert_true(rl_hist_is_regression(s, 1, 24.9));
    assert_false(rl_hist_is_regression(s, 1, 25));
    assert_int_equal(rl_hist_regressions(&h, 25, NULL), 0);
    rl_hist_free(&h);

    /* the slower bundle measured disturbed: suspect, counted apart */
    rl_hist_init(&h);
    add(&h, "1.json", &(spec){.created = "2026-11-01T00:00:00Z", .samples = "12.7,12.8,12.9"});
    add(&h, "2.json",
        &(spec){
            .created = "2026-11-02T00:00:00Z", .samples = "10.16,10.24,10.32", .disturbed = true});
    add(&h, "3.json", &(spec){.created = "2026-11-03T00:00:00Z", .samples = "10.16,10.24,10.32"});
    run_ok(&h);
    s = decode_series(&h, 0);
    assert_true(s->pts[1].cell.suspect);
    assert_true(s->pts[2].cell.suspect); /* the one before was disturbed */
    size_t dist = 0;
    assert_int_equal(rl_hist_regressions(&h, 10, &dist), 0);
    assert_int_equal(dist, 1);
    assert_int_equal(rl_hist_count(&h).suspect, 2);
    rl_hist_free(&h);
}

static void test_changes(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    add(&h, "1.json", &(spec){.created = "2026-11-01T00:00:00Z", .build = "a"});
    add(&h, "2.json", &(spec){.created = "2026-11-02T00:00:00Z", .build = "a"});
    add(&h, "3.json", &(spec){.created = "2026-11-03T00:00:00Z", .build = "b", .build_number = 2});
    add(&h, "4.json",
        &(spec){.created = "2026-11-04T00:00:00Z",
                .build = "b",
                .build_number = 2,
                .kernel = "6.2",
                .disturbed = true,
                .disturbance = "loaded"});
    run_ok(&h);
    const rl_hist_series *s = decode_series(&h, 0);
    assert_null(s->pts[0].changes);
    assert_null(s->pts[1].changes);
    assert_string_equal(s->pts[2].changes, "llama.cpp build: a (build 1) -> b (build 2)");
    assert_string_equal(s->pts[3].changes, "kernel: 6.1 -> 6.2; measured disturbed: loaded");
    bool oom = true;
    char *t = rl_hist_changes(&h, 0, 2, &oom);
    assert_false(oom);
    assert_string_equal(t, "llama.cpp build: a (build 1) -> b (build 2)");
    free(t);
    assert_string_equal(h.inputs[2].build, "b (build 2)");
    rl_hist_free(&h);
}

static void test_listed(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    char created[32], path[32];
    for (int i = 0; i < 200; i++) {
        snprintf(created, sizeof created, "2026-11-01T%02d:%02d:00Z", i / 60, i % 60);
        snprintf(path, sizeof path, "%03d.json", i);
        add(&h, path,
            &(spec){.created = created, .build = i >= 100 && i % 10 == 0 ? "new" : "old"});
    }
    run_ok(&h);
    const rl_hist_series *s = decode_series(&h, 0);
    assert_int_equal(s->n_pts, 200);
    size_t idx[200];
    /* changed at 100 (old -> new) and 101 (new -> old), 110, 111, ...: 20 changes */
    size_t n = rl_hist_listed(s, false, 120, idx);
    assert_int_equal(n, 22);
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 100);
    assert_int_equal(idx[2], 101);
    assert_int_equal(idx[21], 199);
    n = rl_hist_listed(s, false, 5, idx);
    assert_int_equal(n, 5);
    assert_int_equal(idx[3], 110);
    assert_int_equal(idx[4], 199);
    assert_int_equal(rl_hist_listed(s, true, 5, idx), 200);
    assert_false(rl_hist_wanted(s, 50, false));
    assert_true(rl_hist_wanted(s, 50, true));
    rl_hist_free(&h);
}

static void test_json(void **state)
{
    (void)state;
    rl_hist h;
    rl_hist_init(&h);
    add(&h, "2.json", &(spec){.created = "2026-11-02T00:00:00Z", .samples = "12,14,16,18,20"});
    add(&h, "1.json", &(spec){.created = "2026-11-01T00:00:00Z"});
    add(&h, "x.json", &(spec){.created = "2026-11-01T05:00:00Z", .cpu = "CPU B"});
    run_ok(&h);
    cJSON *j = rl_hist_to_json(&h, false);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "schema")->valuestring, "llama-roofline-history");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "inputs")), 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "left_out")), 1);
    const cJSON *pts =
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "series"), 0), "points");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(pts, 0), "input")->valueint, 1);
    const cJSON *p2 = cJSON_GetArrayItem(pts, 1);
    assert_int_equal(cJSON_GetObjectItem(p2, "input")->valueint, 2);
    assert_string_equal(cJSON_GetObjectItem(p2, "verdict")->valuestring, "faster");
    assert_null(cJSON_GetObjectItem(p2, "samples"));
    cJSON_Delete(j);
    j = rl_hist_to_json(&h, true);
    pts = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "series"), 0), "points");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(pts, 1), "samples")),
                     5);
    cJSON_Delete(j);
    rl_hist_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),    cmocka_unit_test(test_machine),
        cmocka_unit_test(test_grouping), cmocka_unit_test(test_steps),
        cmocka_unit_test(test_changes),  cmocka_unit_test(test_listed),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
