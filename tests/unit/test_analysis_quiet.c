/* SPDX-License-Identifier: MIT */
/* test_analysis_quiet.c: unit tests for analysis_quiet.c through the bundle analysis: the
 * noise rules (CV and hyperfine's outlier rule) and the disturbance summary read from
 * hand-made bundles whose measurements carry "machine" objects (docs/BUNDLE.md), each
 * threshold from both sides. New feature: every test here failed before it (no noise, no
 * disturbance, a plain verdict). */
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

#include "analyse/analysis.h"
#include "analyse/analysis_bundle.h"
#include "base/rl_json.h"

/* ---------- hyperfine's outlier rule ---------- */

static void outliers_hyperfine_cases(void **state)
{
    (void)state;
    /* hyperfine's own test vectors (src/outlier_detection.rs) */
    assert_int_equal(rl_an_outliers(NULL, 0), 0);
    assert_int_equal(rl_an_outliers((double[]){50.0}, 1), 0);
    assert_int_equal(rl_an_outliers((double[]){1000.0, 0.0}, 2), 0);
    assert_int_equal(rl_an_outliers((double[]){-0.2, 0.0, 0.2}, 3), 0);
    assert_int_equal(rl_an_outliers((double[]){-0.2, 0.0, 0.2, 4.0}, 4), 1);
    assert_int_equal(rl_an_outliers((double[]){0.5, 0.30, 0.29, 0.31, 0.30}, 5), 1);
    assert_int_equal(rl_an_outliers((double[]){10, 10, 10, 10, 10, 10, 10, 100}, 8), 1);
    assert_int_equal(rl_an_outliers((double[]){10, 10, 10, 10, 10, 10, 10, 100, 100}, 9), 2);
}

static void outliers_threshold_both_sides(void **state)
{
    (void)state;
    /* median 10, MAD 1: a score of 14.8 is inside the 14.826 threshold, 14.9 beyond it */
    assert_int_equal(rl_an_outliers((double[]){9, 10, 10, 11, 24.8}, 5), 0);
    assert_int_equal(rl_an_outliers((double[]){9, 10, 10, 11, 24.9}, 5), 1);
    assert_int_equal(rl_an_outliers((double[]){9, 10, 10, 11, 10 - 14.9}, 5), 1);
}

/* ---------- bundles ---------- */

/* Two dense models at one thread count, 1e9 and 2e9 bytes, a 40 GB/s ceiling: decode 30 and 15
 * tok/s make both 30 GB/s, 75%: memory-bound. Each run's decode samples and machine object
 * (RUN_A, RUN_B), and the membw runs (MEMBW) are spliced in. */
static cJSON *bundle(const char *samples_a, const char *machine_a, const char *machine_b,
                     const char *membw_runs, const char *limits)
{
    char text[8192];
    snprintf(text, sizeof text,
             "{\"models\": ["
             "{\"id\": \"a\", \"name\": \"A\", \"gguf\": {\"file_bytes\": 1000000000},"
             " \"runs\": [{\"status\": \"ok\", \"threads\": 2, \"depth\": 0,"
             " \"decode\": {\"samples\": %s}%s%s}]},"
             "{\"id\": \"b\", \"name\": \"B\", \"gguf\": {\"file_bytes\": 2000000000},"
             " \"runs\": [{\"status\": \"ok\", \"threads\": 2, \"depth\": 0,"
             " \"decode\": {\"samples\": [15, 15, 15]}%s%s}]}],"
             " \"membw\": {\"kind\": \"measured\", \"peak_read_GBs\": 40, \"runs\": [%s]},"
             " \"environment\": {%s}}",
             samples_a, *machine_a ? ", \"machine\": " : "", machine_a,
             *machine_b ? ", \"machine\": " : "", machine_b, membw_runs, limits);
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    rl_error err = {0};
    assert_int_equal(rl_bundle_analyze(b, RL_AN_BYTES_RESIDENT, &err), RL_OK);
    return b;
}

#define QUIET                                                                                      \
    "{\"kind\": \"measured\", \"interval_s\": 3, \"cpus\": 2, \"other_cpu_pct\": 3.0, "            \
    "\"steal_pct\": 0.0, \"disturbed\": false, \"why\": \"\"}"
#define LOADED(pct)                                                                                \
    "{\"kind\": \"measured\", \"interval_s\": 3, \"cpus\": 2, \"other_cpu_pct\": " #pct ", "       \
    "\"steal_pct\": 0.0, \"disturbed\": true, \"why\": \"other processes used " #pct               \
    "% of the CPUs\"}"
#define LIMITS "\"machine_state\": {\"limits\": {\"other_cpu_pct\": 25, \"steal_pct\": 5}}"

static const cJSON *an(const cJSON *b, const char *key)
{
    return rl_json_get(rl_json_get(b, "analysis"), key);
}

static const cJSON *warning(const cJSON *b, const char *code)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, rl_json_get(b, "warnings"))
    {
        const char *c = rl_json_get_str(w, "code");
        if (c && strcmp(c, code) == 0)
            return w;
    }
    return NULL;
}

static const cJSON *noise_of(const cJSON *b, int model)
{
    return rl_json_get(cJSON_GetArrayItem(an(b, "models"), model), "noise");
}

static void noise_cv_threshold_both_sides(void **state)
{
    (void)state;
    /* two samples 30 -/+ h: CV = 2h / (sqrt 2 * 30); h = 1.05 gives 4.95%, 1.07 gives 5.04% */
    cJSON *q = bundle("[28.95, 31.05]", QUIET, QUIET, "", LIMITS);
    const cJSON *nz = noise_of(q, 0);
    assert_near(rl_json_num_or(nz, "cv_pct", NAN), 100.0 * 2.1 / (sqrt(2.0) * 30.0), 1e-9);
    assert_int_equal((int)rl_json_num_or(nz, "n", 0), 2);
    assert_int_equal((int)rl_json_num_or(nz, "outliers", -1), 0);
    assert_true(cJSON_IsFalse(rl_json_get(nz, "noisy")));
    assert_null(warning(q, "noisy"));
    assert_null(warning(q, "outliers"));
    cJSON_Delete(q);

    cJSON *n = bundle("[28.93, 31.07]", QUIET, QUIET, "", LIMITS);
    assert_true(cJSON_IsTrue(rl_json_get(noise_of(n, 0), "noisy")));
    const cJSON *w = warning(n, "noisy");
    assert_non_null(w);
    assert_string_equal(rl_json_get_str(w, "text"),
                        "Noisy decode rates: the repetitions at the operating point vary by more "
                        "than 5% (coefficient of variation): A 5.0%. Consider re-running on a "
                        "quiet system without interference from other programs.");
    assert_int_equal(cJSON_GetArraySize(rl_json_get(w, "applies_to")), 1);
    /* named by the model's name (A), not its id (a); the steady model b is not marked */
    assert_true(cJSON_IsFalse(rl_json_get(noise_of(n, 1), "noisy")));
    cJSON_Delete(n);
}

static void noise_outlier_warning(void **state)
{
    (void)state;
    cJSON *b = bundle("[30, 30.1, 29.9, 30, 12]", QUIET, QUIET, "", LIMITS);
    assert_int_equal((int)rl_json_num_or(noise_of(b, 0), "outliers", -1), 1);
    const cJSON *w = warning(b, "outliers");
    assert_non_null(w);
    assert_string_equal(rl_json_get_str(w, "text"),
                        "Statistical outliers were detected in the decode repetitions (modified "
                        "Z-score above 14.8, hyperfine's rule): A 1 of 5. Consider re-running on "
                        "a quiet system without interference from other programs.");
    cJSON_Delete(b);
}

static void noise_one_sample_unavailable(void **state)
{
    (void)state;
    cJSON *b = bundle("[30]", "", "", "", "");
    assert_true(cJSON_IsFalse(rl_json_get(noise_of(b, 0), "available")));
    cJSON_Delete(b);
}

/* Samples that are not rates (0, below 0, not a number) are left out of the operating point:
 * 30 and 30 remain, not (0 - 3 + 30 + 30) / 4. */
static void samples_not_rates_left_out(void **state)
{
    (void)state;
    cJSON *b = bundle("[0, -3, 30, \"x\", 30]", "", "", "", "");
    const cJSON *m = cJSON_GetArrayItem(an(b, "models"), 0);
    const cJSON *op = rl_json_get(m, "operating_point");
    assert_true(rl_json_num_or(op, "decode_tok_s", 0) == 30);
    assert_int_equal((int)rl_json_num_or(rl_json_get(op, "samples"), "n", 0), 2);
    cJSON_Delete(b);
}

static void quiet_is_not_marked(void **state)
{
    (void)state;
    cJSON *b = bundle("[30, 30, 30]", QUIET, QUIET, "{\"machine\": " QUIET "}", LIMITS);
    const cJSON *d = an(b, "disturbance");
    assert_true(cJSON_IsTrue(rl_json_get(d, "available")));
    assert_true(cJSON_IsFalse(rl_json_get(d, "disturbed")));
    assert_int_equal((int)rl_json_num_or(d, "n_measurements", 0), 3);
    assert_int_equal((int)rl_json_num_or(d, "n_disturbed", -1), 0);
    assert_null(rl_json_get(d, "text"));
    assert_null(warning(b, "disturbed"));
    const cJSON *v = an(b, "verdict");
    assert_true(cJSON_IsFalse(rl_json_get(v, "provisional")));
    assert_string_equal(rl_json_get_str(v, "text"),
                        "Decode is memory-bound: the median model reaches 75% of the 40.0 GB/s "
                        "ceiling (short context, each model at its own best thread count).");
    cJSON_Delete(b);
}

static void loaded_is_marked(void **state)
{
    (void)state;
    cJSON *b = bundle("[30, 30, 30]", LOADED(88), LOADED(60), "", LIMITS);
    const cJSON *d = an(b, "disturbance");
    assert_true(cJSON_IsTrue(rl_json_get(d, "disturbed")));
    assert_int_equal((int)rl_json_num_or(d, "n_disturbed", 0), 2);
    assert_near(rl_json_num_or(d, "other_cpu_pct_max", 0), 88.0, 0);
    assert_int_equal((int)rl_json_num_or(d, "n_other_processes", -1), 2);
    assert_int_equal((int)rl_json_num_or(d, "n_steal", -1), 0);
    assert_string_equal(rl_json_get_str(d, "text"),
                        "other processes used 88% of the CPUs during 2 of 2 llama-bench runs");
    assert_non_null(strstr(rl_json_get_str(d, "advice"), "--wait-quiet 60"));
    const cJSON *v = an(b, "verdict");
    assert_true(cJSON_IsTrue(rl_json_get(v, "provisional")));
    assert_string_equal(rl_json_get_str(v, "label"), "memory-bound");
    assert_string_equal(rl_json_get_str(v, "text"),
                        "Decode looks memory-bound, but other processes used 88% of the CPUs "
                        "during 2 of 2 llama-bench runs, so this may be wrong: the median model "
                        "reaches 75% of the 40.0 GB/s ceiling (short context, each model at its "
                        "own best thread count).");
    const cJSON *w = warning(b, "disturbed");
    assert_non_null(w);
    assert_non_null(strstr(rl_json_get_str(w, "text"),
                           "Measured while the machine was busy: other processes used 88% of the "
                           "CPUs during 2 of 2 llama-bench runs, so the rates, the fit and the "
                           "verdict may be wrong. Close other programs"));
    cJSON_Delete(b);
}

static void mixed_kinds_are_named(void **state)
{
    (void)state;
    cJSON *b = bundle("[30, 30, 30]", QUIET, LOADED(40),
                      "{\"machine\": " QUIET "}, {\"machine\": " LOADED(91) "}", LIMITS);
    assert_string_equal(rl_json_get_str(an(b, "disturbance"), "text"),
                        "other processes used 91% of the CPUs during 2 of 4 measurements (1 of 2 "
                        "llama-bench runs, 1 of 2 membw runs)");
    cJSON_Delete(b);
}

static void steal_is_named(void **state)
{
    (void)state;
    const char *stolen = "{\"kind\": \"measured\", \"other_cpu_pct\": 10.0, \"steal_pct\": 12.0, "
                         "\"disturbed\": true, \"why\": \"steal 12%\"}";
    cJSON *b = bundle("[30, 30, 30]", stolen, QUIET, "", LIMITS);
    /* other processes' 10% is under the 25% limit: not named, not counted as load here */
    const cJSON *d = an(b, "disturbance");
    assert_string_equal(rl_json_get_str(d, "text"),
                        "the hypervisor took 12% of the CPU time (steal) during 1 of 2 "
                        "llama-bench runs");
    assert_int_equal((int)rl_json_num_or(d, "n_disturbed", -1), 1);
    assert_int_equal((int)rl_json_num_or(d, "n_other_processes", -1), 0);
    assert_int_equal((int)rl_json_num_or(d, "n_steal", -1), 1);
    /* only the host's load: the advice says closing programs will not help */
    assert_non_null(strstr(rl_json_get_str(d, "advice"), "nothing on this machine can quiet"));
    cJSON_Delete(b);
}

/* Steal exactly at its limit is not over it; load and steal together count in both and the
 * advice is the one for load here (closing programs is the part the user can do). */
static void steal_and_load_are_both_counted(void **state)
{
    (void)state;
    const char *at_limit = "{\"kind\": \"measured\", \"other_cpu_pct\": 26.0, "
                           "\"steal_pct\": 5.0, \"disturbed\": true, \"why\": \"x\"}";
    const char *both = "{\"kind\": \"measured\", \"other_cpu_pct\": 40.0, \"steal_pct\": 7.0, "
                       "\"disturbed\": true, \"why\": \"y\"}";
    cJSON *b = bundle("[30, 30, 30]", at_limit, both, "", LIMITS);
    const cJSON *d = an(b, "disturbance");
    assert_int_equal((int)rl_json_num_or(d, "n_disturbed", -1), 2);
    assert_int_equal((int)rl_json_num_or(d, "n_other_processes", -1), 2);
    assert_int_equal((int)rl_json_num_or(d, "n_steal", -1), 1);
    assert_non_null(strstr(rl_json_get_str(d, "advice"), "Close other programs"));
    cJSON_Delete(b);
}

static void no_machine_state_is_unavailable(void **state)
{
    (void)state;
    cJSON *b = bundle("[30, 30, 30]", "", "", "", "");
    const cJSON *d = an(b, "disturbance");
    assert_true(cJSON_IsFalse(rl_json_get(d, "available")));
    assert_string_equal(rl_json_get_str(d, "reason"), "no machine state recorded (older bundle)");
    assert_null(warning(b, "disturbed"));
    assert_true(cJSON_IsFalse(rl_json_get(an(b, "verdict"), "provisional")));
    cJSON_Delete(b);
}

/* ---------- client-only bundles ---------- */

/* A client bundle with one point per machine object given (NULL: a point without one, an
 * older bundle's); the points' earlier tries (attempts) are never counted. */
static cJSON *client_bundle(const char *const *machines, size_t n)
{
    char text[8192];
    size_t at =
        (size_t)snprintf(text, sizeof text, "{\"command\": \"client\", \"client\": {\"points\": [");
    for (size_t i = 0; i < n; i++)
        at +=
            (size_t)snprintf(text + at, sizeof text - at,
                             "%s{\"concurrency\": %zu, \"attempts\": [{\"kind\": \"measured\", "
                             "\"machine\": %s}]%s%s}",
                             i ? ", " : "", i + 1, LOADED(99), machines[i] ? ", \"machine\": " : "",
                             machines[i] ? machines[i] : "");
    snprintf(text + at, sizeof text - at, "]}, \"environment\": {" LIMITS "}}");
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    rl_error err = {0};
    assert_int_equal(rl_bundle_analyze_client(b, &err), RL_OK);
    return b;
}

/* Two of three points disturbed: counted, named by the highest share, provisional, the
 * warning "disturbed" with the client's advice; nothing of a run's analysis (no fit). */
static void client_points_are_counted(void **state)
{
    (void)state;
    const char *m[] = {LOADED(88), QUIET, LOADED(61)};
    cJSON *b = client_bundle(m, 3);
    const cJSON *d = an(b, "disturbance");
    assert_string_equal(rl_json_get_str(rl_json_get(b, "analysis"), "kind"), "derived");
    assert_string_equal(rl_json_get_str(rl_json_get(b, "analysis"), "scope"), "client");
    assert_null(an(b, "fit"));
    assert_true(cJSON_IsTrue(an(b, "provisional")));
    assert_true(cJSON_IsTrue(rl_json_get(d, "disturbed")));
    assert_int_equal((int)rl_json_num_or(d, "n_measurements", 0), 3);
    assert_int_equal((int)rl_json_num_or(d, "n_disturbed", 0), 2);
    char *bk = cJSON_PrintUnformatted(rl_json_get(d, "by_kind"));
    assert_string_equal(bk, "{\"client\":{\"n\":3,\"disturbed\":2}}");
    free(bk);
    assert_near(rl_json_num_or(d, "other_cpu_pct_max", NAN), 88.0, 1e-12);
    assert_string_equal(rl_json_get_str(d, "text"),
                        "other processes used 88% of the CPUs during 2 of 3 client points");
    const cJSON *w = warning(b, "disturbed");
    assert_non_null(w);
    assert_string_equal(rl_json_get_str(w, "text"),
                        "Measured while the machine was busy: other processes used 88% of the "
                        "CPUs during 2 of 3 client points, so the latencies and rates may be "
                        "off. Close other programs and re-run on a quiet machine, or re-run with "
                        "--wait-quiet 60 to wait up to a minute for one before each operating "
                        "point; latencies measured under load are high and scattered, and rates "
                        "low.");
    assert_int_equal(cJSON_GetArraySize(rl_json_get(w, "applies_to")), 0);
    cJSON_Delete(b);
}

/* Quiet points: counted, not provisional, no warning; points without machine state (an older
 * client bundle): unavailable, not provisional. */
static void client_quiet_and_unrecorded(void **state)
{
    (void)state;
    const char *m[] = {QUIET, QUIET};
    cJSON *b = client_bundle(m, 2);
    const cJSON *d = an(b, "disturbance");
    assert_true(cJSON_IsFalse(rl_json_get(d, "disturbed")));
    assert_int_equal((int)rl_json_num_or(d, "n_measurements", 0), 2);
    assert_null(rl_json_get(d, "text"));
    assert_true(cJSON_IsFalse(an(b, "provisional")));
    assert_null(warning(b, "disturbed"));
    assert_int_equal(cJSON_GetArraySize(rl_json_get(b, "warnings")), 0);
    cJSON_Delete(b);
    const char *none[] = {NULL, NULL};
    b = client_bundle(none, 2);
    d = an(b, "disturbance");
    assert_true(cJSON_IsFalse(rl_json_get(d, "available")));
    assert_true(cJSON_IsFalse(an(b, "provisional")));
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outliers_hyperfine_cases),
        cmocka_unit_test(outliers_threshold_both_sides),
        cmocka_unit_test(noise_cv_threshold_both_sides),
        cmocka_unit_test(noise_outlier_warning),
        cmocka_unit_test(noise_one_sample_unavailable),
        cmocka_unit_test(samples_not_rates_left_out),
        cmocka_unit_test(quiet_is_not_marked),
        cmocka_unit_test(loaded_is_marked),
        cmocka_unit_test(mixed_kinds_are_named),
        cmocka_unit_test(steal_is_named),
        cmocka_unit_test(steal_and_load_are_both_counted),
        cmocka_unit_test(no_machine_state_is_unavailable),
        cmocka_unit_test(client_points_are_counted),
        cmocka_unit_test(client_quiet_and_unrecorded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
