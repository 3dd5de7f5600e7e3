/* SPDX-License-Identifier: MIT */
/* test_cache_probe.c: unit tests for the cache probe's sizes and rule (owner: cache_probe), on
 * hand-made rates: kept when half the reported LLC reads 1.2 x faster than DRAM (the boundary
 * included), lowered to twice the largest set that does (the smallest set: 4 MiB), no faster
 * set, no reference, and the JSON. No timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/rl_json.h"
#include "measure/cache_probe.h"

#define MIB (1024ULL * 1024ULL)

static void test_sizes(void **state)
{
    (void)state;
    uint64_t b[RL_CACHE_PROBE_MAX];
    int n = rl_cache_probe_sizes(32 * MIB, b);
    assert_int_equal(n, 5); /* 1 MiB rounds up to 2, 2 MiB is a repeat */
    const uint64_t want32[] = {2 * MIB, 4 * MIB, 8 * MIB, 16 * MIB, 256 * MIB};
    for (int i = 0; i < n; i++)
        assert_int_equal(b[i], want32[i]);
    n = rl_cache_probe_sizes(260 * MIB, b); /* 8.125 -> 8, 16.25 -> 16, 32.5 -> 32, 65 -> 64 */
    assert_int_equal(n, 6);
    const uint64_t want260[] = {8 * MIB, 16 * MIB, 32 * MIB, 64 * MIB, 130 * MIB, 2080 * MIB};
    for (int i = 0; i < n; i++)
        assert_int_equal(b[i], want260[i]);
    n = rl_cache_probe_sizes(1 * MIB, b);
    assert_int_equal(n, 2);
    assert_int_equal(b[0], 2 * MIB);
    assert_int_equal(b[1], 8 * MIB);
}

static rl_cache_probe probe_of(uint64_t reported, const double *gbs, int n)
{
    rl_cache_probe p;
    memset(&p, 0, sizeof p);
    p.reported = reported;
    p.threads = 2;
    p.n = rl_cache_probe_sizes(reported, p.bytes);
    assert_int_equal(p.n, n);
    memcpy(p.gbs, gbs, (size_t)n * sizeof *gbs);
    rl_cache_probe_judge(&p);
    return p;
}

static void test_kept(void **state)
{
    (void)state;
    const double g[] = {120, 110, 100, 90, 45}; /* 90 >= 54 */
    rl_cache_probe p = probe_of(32 * MIB, g, 5);
    assert_int_equal(p.used, 32 * MIB);
    assert_false(p.lowered);
    assert_non_null(strstr(p.why, "holds it"));
    /* exactly GAIN x the reference is still a cache */
    double g2[] = {120, 110, 100, 0, 45};
    g2[3] = RL_CACHE_PROBE_GAIN * 45;
    p = probe_of(32 * MIB, g2, 5);
    assert_false(p.lowered);
    assert_int_equal(p.used, 32 * MIB);
    assert_non_null(strstr(p.why, "holds it")); /* kept by the first rule, not the search */
}

static void test_lowered(void **state)
{
    (void)state;
    /* a VM told 260 MiB: 130 MiB reads at DRAM speed, 64 MiB still from the cache */
    const double g[] = {90, 80, 50, 40, 30, 28}; /* floor 33.6 */
    rl_cache_probe p = probe_of(260 * MIB, g, 6);
    assert_true(p.lowered);
    assert_int_equal(p.used, 128 * MIB);
    assert_non_null(strstr(p.why, "planned for 128 MiB"));
    /* only the smallest set is a cache: 2 x 8 MiB */
    const double g2[] = {40, 30, 30, 29, 28, 28};
    p = probe_of(260 * MIB, g2, 6);
    assert_true(p.lowered);
    assert_int_equal(p.used, 16 * MIB);
    /* the floor: a 6 MiB LLC whose 2 MiB set is the only cache plans for 4 MiB */
    const double g3[] = {60, 30}; /* sizes 2 MiB (6/32 .. 6/2 = 3 -> 2), 48 MiB */
    p = probe_of(6 * MIB, g3, 2);
    assert_int_equal(p.bytes[0], 2 * MIB);
    assert_int_equal(p.bytes[1], 48 * MIB);
    /* the 2 MiB set is LLC/2 rounded: it holds, kept */
    assert_false(p.lowered);
    const double g4[] = {80, 70, 40, 40, 40, 38};
    p = probe_of(260 * MIB, g4, 6); /* 16 MiB the largest over 45.6 */
    assert_int_equal(p.used, 32 * MIB);
}

static void test_apply(void **state)
{
    (void)state;
    const double g[] = {90, 80, 50, 40, 30, 28};
    rl_cache_probe p = probe_of(260 * MIB, g, 6);
    uint64_t llc = 260 * MIB;
    const char *src = "detected";
    rl_cache_probe_apply(&p, &llc, &src);
    assert_int_equal(llc, 128 * MIB);
    assert_string_equal(src, "probed");
    const double k[] = {120, 110, 100, 90, 45};
    p = probe_of(32 * MIB, k, 5);
    llc = 32 * MIB;
    src = "detected";
    rl_cache_probe_apply(&p, &llc, &src);
    assert_int_equal(llc, 32 * MIB);
    assert_string_equal(src, "detected");
}

static void test_smallest(void **state)
{
    (void)state;
    /* 12 MiB: 0.375 .. 3 MiB all round to 2 MiB (one set), then 6, then the 96 MiB reference */
    uint64_t b[RL_CACHE_PROBE_MAX];
    int n = rl_cache_probe_sizes(12 * MIB, b);
    assert_int_equal(n, 3);
    assert_int_equal(b[0], 2 * MIB);
    assert_int_equal(b[1], 6 * MIB);
    assert_int_equal(b[2], 96 * MIB);
    const double g[] = {60, 30, 30}; /* only 2 MiB is a cache: planned for 4 MiB */
    rl_cache_probe p = probe_of(12 * MIB, g, 3);
    assert_true(p.lowered);
    assert_int_equal(p.used, 4 * MIB);
}

static void test_no_cache_no_reference(void **state)
{
    (void)state;
    const double g[] = {46, 45, 45, 45, 45}; /* nothing reads 54 */
    rl_cache_probe p = probe_of(32 * MIB, g, 5);
    assert_false(p.lowered);
    assert_int_equal(p.used, 32 * MIB);
    assert_non_null(strstr(p.why, "no probed set"));
    rl_cache_probe q;
    memset(&q, 0, sizeof q);
    q.reported = 32 * MIB;
    rl_cache_probe_judge(&q);
    assert_false(q.lowered);
    assert_int_equal(q.used, 32 * MIB);
    assert_non_null(strstr(q.why, "no DRAM reference"));
    q.n = 2; /* a reference of 0 GB/s is none */
    q.bytes[0] = 16 * MIB;
    q.bytes[1] = 256 * MIB;
    q.gbs[0] = 90;
    rl_cache_probe_judge(&q);
    assert_non_null(strstr(q.why, "no DRAM reference"));
}

static void test_json(void **state)
{
    (void)state;
    const double g[] = {90, 80, 50, 40, 30, 28};
    rl_cache_probe p = probe_of(260 * MIB, g, 6);
    cJSON *o = rl_cache_probe_json(&p);
    assert_non_null(o);
    assert_string_equal(rl_json_get_str(o, "kind"), "measured");
    int64_t v = 0;
    assert_true(rl_json_get_i64(o, "used_llc_bytes", &v));
    assert_int_equal(v, 128 * MIB);
    assert_true(rl_json_get_i64(o, "reported_llc_bytes", &v));
    assert_int_equal(v, 260 * MIB);
    assert_true(rl_json_get_i64(o, "threads", &v));
    assert_int_equal(v, 2);
    assert_true(cJSON_IsTrue(rl_json_get(o, "lowered")));
    const cJSON *pts = rl_json_get(o, "points");
    assert_int_equal(cJSON_GetArraySize(pts), 6);
    assert_true(rl_json_get_i64(cJSON_GetArrayItem(pts, 5), "bytes", &v));
    assert_int_equal(v, 2080 * MIB);
    double d = 0;
    assert_true(rl_json_get_num(cJSON_GetArrayItem(pts, 3), "GBs", &d));
    assert_true(d == 40.0);
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),   cmocka_unit_test(test_kept),
        cmocka_unit_test(test_lowered), cmocka_unit_test(test_smallest),
        cmocka_unit_test(test_apply),   cmocka_unit_test(test_no_cache_no_reference),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
