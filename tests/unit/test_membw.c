/* SPDX-License-Identifier: MIT */
/* test_membw.c: unit tests for the membw kernels and rules (owner: membw). Every kernel in every
 * ISA variant this CPU supports must return the exact known result on known buffers, for
 * lengths that are and are not multiples of the vector block and for misaligned starts; the
 * instability rule, working-set rule, thread sweep, flag parsing, allocation fallback, ceiling
 * selection and JSON shape are checked on synthetic inputs. No timing assertions. */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/membw.h"

static const size_t lengths[] = {0,   1,   2,   3,   7,   8,    9,    15,        16,  17,
                                 31,  32,  33,  63,  64,  65,   127,  128,       129, 255,
                                 256, 257, 511, 512, 513, 1000, 4099, 65536 + 13};
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])
#define MAX_LEN (65536 + 13)

static uint64_t xor_1_to_n(uint64_t n)
{
    switch (n % 4) {
    case 0: return n;
    case 1: return 1;
    case 2: return n + 1;
    default: return 0;
    }
}

static void test_kernels_known_sums(void **state)
{
    (void)state;
    /* one extra element so a start offset of 1 (misaligned for every vector width) fits */
    uint64_t *buf = malloc((MAX_LEN + 1) * sizeof *buf);
    assert_non_null(buf);
    int variants = 0;
    for (int isa = 0; isa < RL_ISA_COUNT; isa++) {
        if (!rl_isa_supported((rl_isa)isa))
            continue;
        variants++;
        for (int off = 0; off < 2; off++) {
            uint64_t *p = buf + off;
            for (size_t i = 0; i < MAX_LEN; i++)
                p[i] = i + 1;
            for (size_t li = 0; li < N_LENGTHS; li++) {
                uint64_t n = lengths[li];
                assert_int_equal(rl_kernel_sum_u64((rl_isa)isa, p, n), n * (n + 1) / 2);
                assert_int_equal(rl_kernel_xor_u64((rl_isa)isa, p, n), xor_1_to_n(n));
            }
        }
    }
    assert_true(variants >= 1);
    char names[64] = "";
    for (int isa = 0; isa < RL_ISA_COUNT; isa++)
        if (rl_isa_supported((rl_isa)isa)) {
            strcat(names, " ");
            strcat(names, rl_isa_name((rl_isa)isa));
        }
    print_message("kernel variants checked on this CPU:%s\n", names);
    free(buf);
}

static void test_kernels_wrap_and_pattern(void **state)
{
    (void)state;
    /* values near 2^64 make the sum wrap; a pseudo-random pattern checks the xor lanes */
    size_t n = (1u << 20) + 3;
    uint64_t *p = malloc(n * sizeof *p);
    assert_non_null(p);
    uint64_t want_sum = 0, want_xor = 0, x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (i % 3 == 0) ? UINT64_MAX - i : x;
        want_sum += p[i];
        want_xor ^= p[i];
    }
    for (int isa = 0; isa < RL_ISA_COUNT; isa++) {
        if (!rl_isa_supported((rl_isa)isa))
            continue;
        assert_int_equal(rl_kernel_sum_u64((rl_isa)isa, p, n), want_sum);
        assert_int_equal(rl_kernel_xor_u64((rl_isa)isa, p, n), want_xor);
    }
    free(p);
}

static void test_kernel_dot_exact(void **state)
{
    (void)state;
    double *a = malloc((MAX_LEN + 1) * sizeof *a), *b = malloc((MAX_LEN + 1) * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    for (int isa = 0; isa < RL_ISA_COUNT; isa++) {
        if (!rl_isa_supported((rl_isa)isa))
            continue;
        for (int off = 0; off < 2; off++) {
            double *pa = a + off, *pb = b + (1 - off);
            for (size_t i = 0; i < MAX_LEN; i++) {
                pa[i] = (double)(i % 7 + 1);
                pb[i] = (double)(i % 5 + 1);
            }
            for (size_t li = 0; li < N_LENGTHS; li++) {
                size_t n = lengths[li];
                uint64_t want = 0;
                for (size_t i = 0; i < n; i++)
                    want += (uint64_t)((i % 7 + 1) * (i % 5 + 1));
                double got = rl_kernel_dot_f64((rl_isa)isa, pa, pb, n);
                /* integer-valued terms, partial sums far below 2^53: exact in any order */
                assert_true(got == (double)want);
            }
        }
    }
    free(a);
    free(b);
}

static void test_kernel_copy_exact(void **state)
{
    (void)state;
    uint64_t *src = malloc((MAX_LEN + 1) * sizeof *src), *dst = malloc((MAX_LEN + 3) * sizeof *dst);
    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i <= MAX_LEN; i++)
        src[i] = i * 0x100000001ULL + 7;
    for (int isa = 0; isa < RL_ISA_COUNT; isa++) {
        if (!rl_isa_supported((rl_isa)isa))
            continue;
        for (size_t li = 0; li < N_LENGTHS; li++) {
            size_t n = lengths[li];
            for (size_t i = 0; i < MAX_LEN + 3; i++)
                dst[i] = 0xDEADBEEFULL;
            /* dst + 1: a misaligned destination, with a canary on both sides */
            rl_kernel_copy_u64((rl_isa)isa, dst + 1, src + 1, n);
            assert_int_equal(dst[0], 0xDEADBEEFULL);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(dst[1 + i], src[1 + i]);
            assert_int_equal(dst[1 + n], 0xDEADBEEFULL);
        }
    }
    free(src);
    free(dst);
}

static void test_isa_names(void **state)
{
    (void)state;
    assert_true(rl_isa_supported(RL_ISA_C));
    assert_true(rl_isa_supported(rl_isa_best()));
    for (int i = 0; i < RL_ISA_COUNT; i++) {
        rl_isa back;
        assert_true(rl_isa_parse(rl_isa_name((rl_isa)i), &back));
        assert_int_equal(back, i);
    }
    rl_isa dummy;
    assert_false(rl_isa_parse("avx1024", &dummy));
    assert_null(rl_isa_name(RL_ISA_COUNT));
    assert_string_equal(rl_kernel_name(RL_KERNEL_DOT), "dot");
    assert_true(rl_kernel_read_only(RL_KERNEL_SUM));
    assert_true(rl_kernel_read_only(RL_KERNEL_XOR));
    assert_true(rl_kernel_read_only(RL_KERNEL_DOT));
    assert_false(rl_kernel_read_only(RL_KERNEL_COPY));
#if defined(__x86_64__)
    assert_true(rl_isa_supported(RL_ISA_SSE2));
    assert_false(rl_isa_supported(RL_ISA_NEON));
#endif
}

/* ---------------------------------------------------------------- statistics */

static void test_instability_rule(void **state)
{
    (void)state;
    double best, med;
    const double a[] = {100, 10, 10, 10, 10};
    rl_membw_stats(a, 5, &best, &med);
    assert_true(best == 100 && med == 10);
    assert_true(rl_membw_is_unstable(best, med));

    const double b[] = {50, 49, 50.5, 49.5, 50};
    rl_membw_stats(b, 5, &best, &med);
    assert_true(best == 50.5 && med == 50);
    assert_false(rl_membw_is_unstable(best, med));

    /* exactly 25% apart is not "over 25%": stable; a hair further is unstable */
    const double c[] = {100, 75, 75, 75, 75};
    rl_membw_stats(c, 5, &best, &med);
    assert_true(med == 75);
    assert_false(rl_membw_is_unstable(best, med));
    assert_true(rl_membw_is_unstable(100, 74.999));
    assert_false(rl_membw_is_unstable(40, 30)); /* 30 = 0.75 x 40 */

    const double d[] = {4, 1, 3, 2};
    rl_membw_stats(d, 4, &best, &med);
    assert_true(best == 4 && med == 2.5);
    rl_membw_stats(d, 0, &best, &med);
    assert_true(best == 0 && med == 0);
    assert_false(rl_membw_is_unstable(0, 0));
}

static rl_membw_run mkrun(rl_kernel k, int threads, const double *s, int n)
{
    rl_membw_run r;
    memset(&r, 0, sizeof r);
    r.kernel = k;
    r.isa = RL_ISA_C;
    r.threads = threads;
    r.n = n;
    memcpy(r.gbs, s, (size_t)n * sizeof *s);
    return r;
}

static void test_summarize(void **state)
{
    (void)state;
    rl_membw_result res;
    memset(&res, 0, sizeof res);
    const double s1[] = {10, 11, 12}, x1[] = {12, 12, 11}, d1[] = {9, 9, 9}, c1[] = {30, 30, 30};
    const double s2[] = {20, 21, 19}, x2[] = {22, 21, 20}, d2[] = {22, 20, 21}, c2[] = {99, 1, 1};
    const double s4[] = {22.5, 22, 22}, x4[] = {20, 20, 20}, d4[] = {21, 21, 21};
    rl_membw_run runs[] = {mkrun(RL_KERNEL_SUM, 1, s1, 3), mkrun(RL_KERNEL_XOR, 1, x1, 3),
                           mkrun(RL_KERNEL_DOT, 1, d1, 3), mkrun(RL_KERNEL_COPY, 1, c1, 3),
                           mkrun(RL_KERNEL_SUM, 2, s2, 3), mkrun(RL_KERNEL_XOR, 2, x2, 3),
                           mkrun(RL_KERNEL_DOT, 2, d2, 3), mkrun(RL_KERNEL_COPY, 2, c2, 3),
                           mkrun(RL_KERNEL_SUM, 4, s4, 3), mkrun(RL_KERNEL_XOR, 4, x4, 3),
                           mkrun(RL_KERNEL_DOT, 4, d4, 3)};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        assert_true(rl_membw_add_run(&res, &runs[i]));
    rl_membw_summarize(&res);
    /* xor and dot tie at 22 with 2 threads; xor comes first. copy (99) never wins. */
    assert_true(res.peak_GBs == 22.5);
    assert_int_equal(res.kernel, RL_KERNEL_SUM);
    assert_int_equal(res.threads, 4);
    assert_true(res.median_GBs == 22);
    assert_false(res.unstable);
    assert_true(res.single_thread_GBs == 12);
    assert_true(res.saturated_GBs == 22.5);
    assert_int_equal(res.saturated_threads, 4);
    assert_int_equal(res.saturation_threads, 2); /* 22 >= 0.95 x 22.5 */
    assert_true(res.copy_GBs == 99);
    assert_int_equal(res.copy_threads, 2);
    assert_string_equal(res.warning, "");

    /* tie: without the 4-thread cell, xor@2 and dot@2 both reach 22 -> xor (first) */
    res.n_runs = 8;
    rl_membw_summarize(&res);
    assert_true(res.peak_GBs == 22);
    assert_int_equal(res.kernel, RL_KERNEL_XOR);
    assert_int_equal(res.threads, 2);

    /* an unstable winner */
    const double bad[] = {100, 10, 10, 10, 10};
    rl_membw_run u = mkrun(RL_KERNEL_DOT, 8, bad, 5);
    res.n_runs = 0;
    assert_true(rl_membw_add_run(&res, &u));
    rl_membw_summarize(&res);
    assert_true(res.unstable);
    assert_true(res.stability == 0.1);
    assert_non_null(strstr(res.warning, "unstable"));
    assert_non_null(strstr(res.warning, "--peak-bw"));
    assert_true(res.single_thread_GBs < 0); /* 1 thread not measured */
    assert_true(res.copy_GBs < 0);
    rl_membw_result_free(&res);
}

/* ---------------------------------------------------------------- rules */

#define MIB (1024ULL * 1024ULL)

static void test_working_set_rule(void **state)
{
    (void)state;
    /* RAM 2 GB: capped at RAM/8 = 250,000,000 B, rounded down to 2 MiB = 119 x 2 MiB */
    assert_int_equal(rl_membw_default_ws(2000000000ULL, 32 * MIB, false), 119 * 2 * MIB);
    assert_int_equal(rl_membw_default_ws(2000000000ULL, 32 * MIB, false), 249561088ULL);
    /* LLC 256 MiB on a big machine: 4 x LLC = 1 GiB */
    assert_int_equal(rl_membw_default_ws(64000000000ULL, 256 * MIB, false), 1024 * MIB);
    /* RAM 64 GB, small LLC or unknown LLC: 512 MiB */
    assert_int_equal(rl_membw_default_ws(64000000000ULL, 32 * MIB, false), 512 * MIB);
    assert_int_equal(rl_membw_default_ws(64000000000ULL, 0, false), 512 * MIB);
    /* this kind of VM: 480 MiB LLC, 24 GiB RAM -> 1920 MiB */
    assert_int_equal(rl_membw_default_ws(24ULL << 30, 480 * MIB, false), 1920 * MIB);
    /* RAM unknown: no cap */
    assert_int_equal(rl_membw_default_ws(0, 480 * MIB, false), 1920 * MIB);
    /* floor: 256 MB of RAM would give 32 MB */
    assert_int_equal(rl_membw_default_ws(256000000ULL, 0, false), 64 * MIB);
    /* 4 x LLC larger than RAM/8: the cap wins */
    assert_int_equal(rl_membw_default_ws(8ULL << 30, 512 * MIB, false), 1024 * MIB);
    /* quick: a quarter, at least 256 MiB, never more than the default */
    assert_int_equal(rl_membw_default_ws(24ULL << 30, 480 * MIB, true), 480 * MIB);
    assert_int_equal(rl_membw_default_ws(64000000000ULL, 32 * MIB, true), 256 * MIB);
    assert_int_equal(rl_membw_default_ws(2000000000ULL, 32 * MIB, true), 249561088ULL);
    assert_int_equal(rl_membw_default_ws(256000000ULL, 0, true), 64 * MIB);
}

static void check_threads(int logical, int physical, const int *want, int nwant)
{
    int out[RL_MEMBW_MAX_COUNTS];
    int n = rl_membw_default_threads(logical, physical, out, RL_MEMBW_MAX_COUNTS);
    assert_int_equal(n, nwant);
    for (int i = 0; i < n; i++)
        assert_int_equal(out[i], want[i]);
}

static void test_thread_sweep(void **state)
{
    (void)state;
    check_threads(2, 2, (const int[]){1, 2}, 2);
    check_threads(20, 10, (const int[]){1, 5, 10, 20}, 4);
    check_threads(20, 14, (const int[]){1, 7, 14, 20}, 4);
    check_threads(1, 1, (const int[]){1}, 1);
    check_threads(8, 4, (const int[]){1, 2, 4, 8}, 4);
    check_threads(16, 16, (const int[]){1, 8, 16}, 3);
    check_threads(4, -1, (const int[]){1, 2, 4}, 3); /* physical unknown */
    check_threads(4, 9, (const int[]){1, 2, 4}, 3);  /* physical > logical is clamped */
    check_threads(3, 3, (const int[]){1, 3}, 2);
}

static void assert_one_line(const rl_error *err, const char *needle)
{
    assert_int_equal(err->status, RL_EINPUT);
    assert_null(strchr(err->msg, '\n'));
    assert_true(strlen(err->msg) > 0);
    if (needle)
        assert_non_null(strstr(err->msg, needle));
}

static void test_parse_membw_mb(void **state)
{
    (void)state;
    const uint64_t ram = 24ULL << 30;
    uint64_t bytes = 0;
    bool raised = false;
    rl_error err = {RL_OK, ""};
    static const char *const bad[] = {"0",     "-5",  "abc", "",         "1.5",
                                      "12abc", " 64", "+64", "99999999", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(rl_membw_parse_mb(bad[i], ram, &bytes, &raised, &err), RL_EINPUT);
        assert_one_line(&err, "--membw-mb");
    }
    assert_int_equal(rl_membw_parse_mb(NULL, ram, &bytes, &raised, &err), RL_EINPUT);
    /* larger than RAM, and the 16 TiB bound when RAM is unknown */
    assert_int_equal(rl_membw_parse_mb("24577", ram, &bytes, &raised, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "RAM"));
    assert_int_equal(rl_membw_parse_mb("99999999", 0, &bytes, &raised, &err), RL_EINPUT);
    assert_int_equal(rl_membw_parse_mb("24576", ram, &bytes, &raised, &err), RL_OK);
    assert_int_equal(bytes, ram);
    assert_int_equal(rl_membw_parse_mb("1024", ram, &bytes, &raised, &err), RL_OK);
    assert_int_equal(bytes, 1024 * MIB);
    assert_false(raised);
    assert_int_equal(rl_membw_parse_mb("10", ram, &bytes, &raised, &err), RL_OK);
    assert_int_equal(bytes, 64 * MIB);
    assert_true(raised);
}

static void test_parse_other_flags(void **state)
{
    (void)state;
    rl_error err = {RL_OK, ""};
    int t[RL_MEMBW_MAX_COUNTS], n = 0;
    assert_int_equal(rl_membw_parse_threads("4,1,2,2,1", 4, t, RL_MEMBW_MAX_COUNTS, &n, &err),
                     RL_OK);
    assert_int_equal(n, 3);
    assert_true(t[0] == 1 && t[1] == 2 && t[2] == 4);
    static const char *const bad_threads[] = {"0", "5", "a", "", "1,-2", "1.5", ","};
    for (size_t i = 0; i < sizeof bad_threads / sizeof bad_threads[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(
            rl_membw_parse_threads(bad_threads[i], 4, t, RL_MEMBW_MAX_COUNTS, &n, &err), RL_EINPUT);
        assert_one_line(&err, "--threads");
    }
    int reps = 0;
    assert_int_equal(rl_membw_parse_reps("5", &reps, &err), RL_OK);
    assert_int_equal(reps, 5);
    assert_int_equal(rl_membw_parse_reps("0", &reps, &err), RL_EINPUT);
    assert_int_equal(rl_membw_parse_reps("-1", &reps, &err), RL_EINPUT);
    assert_int_equal(rl_membw_parse_reps("101", &reps, &err), RL_EINPUT);
    double gbs = 0;
    assert_int_equal(rl_membw_parse_peak_bw("40", &gbs, &err), RL_OK);
    assert_true(gbs == 40);
    assert_int_equal(rl_membw_parse_peak_bw("13.98", &gbs, &err), RL_OK);
    assert_true(gbs == 13.98);
    static const char *const bad_bw[] = {"0", "-1", "nan", "inf", "abc", "", "1e999"};
    for (size_t i = 0; i < sizeof bad_bw / sizeof bad_bw[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(rl_membw_parse_peak_bw(bad_bw[i], &gbs, &err), RL_EINPUT);
        assert_one_line(&err, "--peak-bw");
    }
}

/* ---------------------------------------------------------------- allocation */

static void test_alloc_fallback(void **state)
{
    (void)state;
    rl_membw_buf buf;
    char note[256];
    rl_error err = {RL_OK, ""};
    /* fits: no note, 2 MiB aligned */
    assert_int_equal(rl_membw_alloc(8 * MIB, 4 * MIB, 0, &buf, note, sizeof note, &err), RL_OK);
    assert_int_equal(buf.bytes, 8 * MIB);
    assert_int_equal((uintptr_t)buf.base % (2 * MIB), 0);
    assert_string_equal(note, "");
    memset(buf.base, 1, buf.bytes);
    rl_membw_free(&buf);
    /* our own limit forces halving: 64 -> 32 -> 16 MiB */
    assert_int_equal(rl_membw_alloc(64 * MIB, 4 * MIB, 20 * MIB, &buf, note, sizeof note, &err),
                     RL_OK);
    assert_int_equal(buf.bytes, 16 * MIB);
    assert_non_null(strstr(note, "fell back to 16 MiB"));
    assert_non_null(strstr(note, "64 MiB"));
    rl_membw_free(&buf);
    /* halving stops at the floor */
    assert_int_equal(rl_membw_alloc(64 * MIB, 12 * MIB, 13 * MIB, &buf, note, sizeof note, &err),
                     RL_OK);
    assert_int_equal(buf.bytes, 12 * MIB);
    rl_membw_free(&buf);
    /* not even the floor fits: an error, nothing mapped */
    assert_int_equal(rl_membw_alloc(64 * MIB, 8 * MIB, 4 * MIB, &buf, note, sizeof note, &err),
                     RL_EINTERNAL);
    assert_null(buf.base);
    assert_non_null(strstr(err.msg, "--peak-bw"));
    /* mmap itself failing (an impossible size) also halves */
    assert_int_equal(rl_membw_alloc(1ULL << 62, 8 * MIB, 0, &buf, note, sizeof note, &err), RL_OK);
    assert_true(buf.bytes < (1ULL << 62));
    assert_non_null(strstr(note, "fell back"));
    rl_membw_free(&buf);
}

/* ---------------------------------------------------------------- JSON */

static void test_json_controlled(void **state)
{
    (void)state;
    rl_membw_result res;
    rl_membw_controlled(40, &res);
    cJSON *j = rl_membw_to_json(&res, NULL);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "controlled");
    assert_true(cJSON_GetObjectItem(j, "peak_read_GBs")->valuedouble == 40);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "kernel")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "threads")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "working_set_bytes")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "unstable")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "runs")), 0);
    cJSON_Delete(j);
    rl_membw_result_free(&res);
}

/* Every field set (a fallback, a warning, a tried ISA, NaN and negative rates): the printed
 * text, key for key, as the unchecked cJSON calls wrote it before the checked helpers. The
 * "isa_available" list depends on this CPU and is checked apart. */
static void test_json_text(void **state)
{
    (void)state;
    rl_membw_result res;
    memset(&res, 0, sizeof res);
    const double s[] = {30.1234, 31.5, 29}, c[] = {40, 0.0 / 0.0, 39};
    rl_membw_run r1 = mkrun(RL_KERNEL_SUM, 2, s, 3), r2 = mkrun(RL_KERNEL_COPY, 4, c, 3);
    r1.bytes_per_pass = 3 * MIB;
    r1.passes = 7;
    assert_true(rl_membw_add_run(&res, &r1));
    assert_true(rl_membw_add_run(&res, &r2));
    rl_membw_summarize(&res);
    res.working_set_bytes = 256 * MIB;
    res.requested_bytes = 512 * MIB;
    snprintf(res.fallback_note, sizeof res.fallback_note, "fell back to 256 MiB");
    snprintf(res.warning, sizeof res.warning, "unstable: median 20%% below best");
    res.unstable = res.pinned = res.quick = res.isa_forced = true;
    res.reps = 3;
    res.sample_s = 0.25;
    res.thread_counts[0] = 2;
    res.thread_counts[1] = 4;
    res.n_counts = 2;
    res.isa_trial[RL_ISA_C] = 12.3456;
    res.elapsed_s = 1.23456;
    res.copy_GBs = -1;
    res.stability = 0.0 / 0.0;
    cJSON *j = rl_membw_to_json(&res, NULL);
    assert_non_null(j);
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(j, "isa_available")));
    cJSON_DeleteItemFromObject(j, "isa_available");
    cJSON_DeleteItemFromObject(j, "method");
    char *txt = cJSON_PrintUnformatted(j);
    assert_string_equal(
        txt, "{\"kind\":\"measured\",\"peak_read_GBs\":31.5,\"kernel\":\"sum\",\"isa\":\"c\","
             "\"threads\":2,\"working_set_bytes\":268435456,\"unstable\":true,"
             "\"source\":\"measured by llama-roofline membw\",\"median_GBs\":30.123,"
             "\"stability\":null,\"single_thread_GBs\":null,\"saturated_GBs\":31.5,"
             "\"saturated_threads\":2,\"saturation_threads\":2,\"copy_GBs\":null,"
             "\"copy_threads\":4,\"requested_working_set_bytes\":536870912,"
             "\"working_set_fallback\":\"fell back to 256 MiB\",\"complete\":false,"
             "\"quick\":true,\"reps\":3,\"sample_target_s\":0.25,\"thread_counts\":[2,4],"
             "\"pinned\":true,\"huge_pages_advised\":false,\"isa_trial_GBs\":{\"c\":12.346},"
             "\"isa_selection\":\"forced with --isa\","
             "\"warning\":\"unstable: median 20% below best\",\"elapsed_s\":1.23,"
             "\"units\":{\"GBs\":\"GB/s = 1e9 bytes per second\",\"bytes\":\"bytes\"},"
             "\"runs\":[{\"kernel\":\"sum\",\"isa\":\"c\",\"threads\":2,\"read_only\":true,"
             "\"bytes_per_pass\":3145728,\"passes_per_sample\":7,\"best_GBs\":31.5,"
             "\"median_GBs\":30.123,\"samples_GBs\":[30.123,31.5,29]},{\"kernel\":\"copy\","
             "\"isa\":\"c\",\"threads\":4,\"read_only\":false,\"bytes_per_pass\":0,"
             "\"passes_per_sample\":0,\"best_GBs\":39,\"median_GBs\":null,"
             "\"samples_GBs\":[40,null,39]}]}");
    free(txt);
    cJSON_Delete(j);
    rl_membw_result_free(&res);
    rl_membw_controlled(40.5, &res);
    j = rl_membw_to_json(&res, NULL);
    assert_non_null(j);
    txt = cJSON_PrintUnformatted(j);
    assert_string_equal(
        txt, "{\"kind\":\"controlled\",\"peak_read_GBs\":40.5,\"kernel\":null,\"isa\":null,"
             "\"threads\":null,\"working_set_bytes\":null,\"unstable\":false,"
             "\"source\":\"supplied by the user with --peak-bw, not measured\","
             "\"units\":{\"GBs\":\"GB/s = 1e9 bytes per second\",\"bytes\":\"bytes\"},"
             "\"runs\":[]}");
    free(txt);
    cJSON_Delete(j);
    rl_membw_result_free(&res);
}

static void test_json_measured(void **state)
{
    (void)state;
    rl_membw_result res;
    memset(&res, 0, sizeof res);
    res.working_set_bytes = res.requested_bytes = 512 * MIB;
    res.reps = 3;
    res.complete = true;
    const double s[] = {30.1234, 31.5, 29}, c[] = {40, 41, 39};
    rl_membw_run r1 = mkrun(RL_KERNEL_SUM, 2, s, 3), r2 = mkrun(RL_KERNEL_COPY, 2, c, 3);
    assert_true(rl_membw_add_run(&res, &r1));
    assert_true(rl_membw_add_run(&res, &r2));
    rl_membw_summarize(&res);
    rl_sysinfo si;
    rl_sysinfo_collect_at("/nonexistent-root", &si);
    cJSON *j = rl_membw_to_json(&res, &si);
    assert_non_null(j);
    static const char *const keys[] = {
        "peak_read_GBs", "kernel",     "threads",   "working_set_bytes",
        "unstable",      "runs",       "isa",       "single_thread_GBs",
        "copy_GBs",      "median_GBs", "stability", "env",
        "kind",          "units"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_non_null(cJSON_GetObjectItem(j, keys[i]));
    assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring, "measured");
    assert_true(cJSON_GetObjectItem(j, "peak_read_GBs")->valuedouble == 31.5);
    assert_string_equal(cJSON_GetObjectItem(j, "kernel")->valuestring, "sum");
    assert_true(cJSON_GetObjectItem(j, "copy_GBs")->valuedouble == 41);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "single_thread_GBs")));
    cJSON *runs = cJSON_GetObjectItem(j, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 2);
    cJSON *samples = cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0), "samples_GBs");
    assert_int_equal(cJSON_GetArraySize(samples), 3);
    assert_true(cJSON_GetArrayItem(samples, 0)->valuedouble == 30.123);
    /* numbers are printed with a '.' under a real comma-decimal locale (generated by
     * scripts/deps.sh), and the text parses back; checked to fail with "%.2f" formatting */
    if (!setlocale(LC_ALL, "de_DE.UTF-8"))
        fail_msg("locale de_DE.UTF-8 is missing: run scripts/deps.sh (it generates it)");
    char probe[8];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    assert_string_equal(probe, "1,5");
    char *txt = cJSON_PrintUnformatted(j);
    setlocale(LC_ALL, "C");
    assert_non_null(strstr(txt, "\"peak_read_GBs\":31.5"));
    cJSON *back = cJSON_Parse(txt);
    assert_non_null(back);
    cJSON_Delete(back);
    free(txt);
    cJSON_Delete(j);
    rl_membw_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kernels_known_sums), cmocka_unit_test(test_kernels_wrap_and_pattern),
        cmocka_unit_test(test_kernel_dot_exact),   cmocka_unit_test(test_kernel_copy_exact),
        cmocka_unit_test(test_isa_names),          cmocka_unit_test(test_instability_rule),
        cmocka_unit_test(test_summarize),          cmocka_unit_test(test_working_set_rule),
        cmocka_unit_test(test_thread_sweep),       cmocka_unit_test(test_parse_membw_mb),
        cmocka_unit_test(test_parse_other_flags),  cmocka_unit_test(test_alloc_fallback),
        cmocka_unit_test(test_json_controlled),    cmocka_unit_test(test_json_measured),
        cmocka_unit_test(test_json_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
