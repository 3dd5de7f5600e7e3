/* SPDX-License-Identifier: MIT */
/* membw_kernels.c: SIMD variants of the membw streaming kernels and their run-time dispatch
 * (owner: membw). See membw_kernels.h for the contract. Each variant keeps eight independent
 * accumulators and issues 8 (AVX-512, SSE2, NEON, C) or 16 (AVX2) independent loads per
 * iteration so that enough cache-line misses are in flight to saturate memory; it uses
 * unaligned loads (aligned data costs nothing extra on AVX-class cores) and finishes with a
 * scalar tail. The loop shapes were chosen by measurement (see the AVX2 note); membw times the
 * two widest variants at run time rather than assuming the widest is fastest. Allocates
 * nothing. */
#include "measure/membw_kernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define RL_X86 1
#include <immintrin.h>
#endif
#if defined(__aarch64__)
#define RL_NEON 1
#include <arm_neon.h>
#endif

static const char *const isa_names[RL_ISA_COUNT] = {"c", "sse2", "avx2", "avx512", "neon"};
static const char *const kernel_names[RL_KERNEL_COUNT] = {"sum", "xor", "dot", "copy"};

const char *rl_isa_name(rl_isa isa)
{
    return (unsigned)isa < RL_ISA_COUNT ? isa_names[isa] : NULL;
}

bool rl_isa_parse(const char *name, rl_isa *out)
{
    for (int i = 0; name && i < RL_ISA_COUNT; i++)
        if (strcmp(name, isa_names[i]) == 0) {
            *out = (rl_isa)i;
            return true;
        }
    return false;
}

const char *rl_kernel_name(rl_kernel k)
{
    return (unsigned)k < RL_KERNEL_COUNT ? kernel_names[k] : NULL;
}

bool rl_kernel_read_only(rl_kernel k)
{
    return k == RL_KERNEL_SUM || k == RL_KERNEL_XOR || k == RL_KERNEL_DOT;
}

bool rl_isa_supported(rl_isa isa)
{
    switch (isa) {
    case RL_ISA_C: return true;
#if RL_X86
    case RL_ISA_SSE2: __builtin_cpu_init(); return __builtin_cpu_supports("sse2");
    case RL_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case RL_ISA_AVX512: __builtin_cpu_init(); return __builtin_cpu_supports("avx512f");
#endif
#if RL_NEON
    case RL_ISA_NEON: return true; /* Advanced SIMD is mandatory on AArch64 */
#endif
    default: return false;
    }
}

rl_isa rl_isa_best(void)
{
    static const rl_isa order[] = {RL_ISA_AVX512, RL_ISA_AVX2, RL_ISA_NEON, RL_ISA_SSE2};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (rl_isa_supported(order[i]))
            return order[i];
    return RL_ISA_C;
}

/* ---------------------------------------------------------------- portable C */

static uint64_t sum_c(const uint64_t *p, size_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 += p[i];
        s1 += p[i + 1];
        s2 += p[i + 2];
        s3 += p[i + 3];
        s4 += p[i + 4];
        s5 += p[i + 5];
        s6 += p[i + 6];
        s7 += p[i + 7];
    }
    for (; i < n; i++)
        s0 += p[i];
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

static uint64_t xor_c(const uint64_t *p, size_t n)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 ^= p[i];
        s1 ^= p[i + 1];
        s2 ^= p[i + 2];
        s3 ^= p[i + 3];
        s4 ^= p[i + 4];
        s5 ^= p[i + 5];
        s6 ^= p[i + 6];
        s7 ^= p[i + 7];
    }
    for (; i < n; i++)
        s0 ^= p[i];
    return s0 ^ s1 ^ s2 ^ s3 ^ s4 ^ s5 ^ s6 ^ s7;
}

static double dot_c(const double *a, const double *b, size_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
        s4 += a[i + 4] * b[i + 4];
        s5 += a[i + 5] * b[i + 5];
        s6 += a[i + 6] * b[i + 6];
        s7 += a[i + 7] * b[i + 7];
    }
    for (; i < n; i++)
        s0 += a[i] * b[i];
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

static void copy_c(uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        dst[i] = src[i];
        dst[i + 1] = src[i + 1];
        dst[i + 2] = src[i + 2];
        dst[i + 3] = src[i + 3];
        dst[i + 4] = src[i + 4];
        dst[i + 5] = src[i + 5];
        dst[i + 6] = src[i + 6];
        dst[i + 7] = src[i + 7];
    }
    for (; i < n; i++)
        dst[i] = src[i];
}

/* ---------------------------------------------------------------- x86 */
#if RL_X86

/* Eight accumulators of vector type V over W 8-byte lanes: the body expands LOAD and OP eight
 * times per iteration (8 x W x 8 bytes). */
#define RL_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

/* ---- SSE2: 8 x 16 B per iteration */
static uint64_t sum_sse2(const uint64_t *p, size_t n)
{
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i *v = (const __m128i *)(p + i);
#define X(k) a##k = _mm_add_epi64(a##k, _mm_loadu_si128(v + k));
        RL_8(X)
#undef X
    }
    a0 = _mm_add_epi64(_mm_add_epi64(_mm_add_epi64(a0, a1), _mm_add_epi64(a2, a3)),
                       _mm_add_epi64(_mm_add_epi64(a4, a5), _mm_add_epi64(a6, a7)));
    uint64_t lane[2];
    _mm_storeu_si128((__m128i *)lane, a0);
    return lane[0] + lane[1] + sum_c(p + i, n - i);
}

static uint64_t xor_sse2(const uint64_t *p, size_t n)
{
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i *v = (const __m128i *)(p + i);
#define X(k) a##k = _mm_xor_si128(a##k, _mm_loadu_si128(v + k));
        RL_8(X)
#undef X
    }
    a0 = _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(a0, a1), _mm_xor_si128(a2, a3)),
                       _mm_xor_si128(_mm_xor_si128(a4, a5), _mm_xor_si128(a6, a7)));
    uint64_t lane[2];
    _mm_storeu_si128((__m128i *)lane, a0);
    return lane[0] ^ lane[1] ^ xor_c(p + i, n - i);
}

static double dot_sse2(const double *a, const double *b, size_t n)
{
    __m128d a0 = _mm_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#define X(k)                                                                                       \
    a##k = _mm_add_pd(a##k, _mm_mul_pd(_mm_loadu_pd(a + i + 2 * k), _mm_loadu_pd(b + i + 2 * k)));
        RL_8(X)
#undef X
    }
    a0 = _mm_add_pd(_mm_add_pd(_mm_add_pd(a0, a1), _mm_add_pd(a2, a3)),
                    _mm_add_pd(_mm_add_pd(a4, a5), _mm_add_pd(a6, a7)));
    double lane[2];
    _mm_storeu_pd(lane, a0);
    return (lane[0] + lane[1]) + dot_c(a + i, b + i, n - i);
}

static void copy_sse2(uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i *s = (const __m128i *)(src + i);
        __m128i *d = (__m128i *)(dst + i);
#define X(k) __m128i v##k = _mm_loadu_si128(s + k);
        RL_8(X)
#undef X
#define X(k) _mm_storeu_si128(d + k, v##k);
        RL_8(X)
#undef X
    }
    copy_c(dst + i, src + i, n - i);
}

/* ---- AVX2: 16 x 32 B (512 B, eight cache lines) per iteration, two loads per accumulator.
 * Measured on a Sapphire-Rapids-class VM this shape streamed ~15% faster than 8 loads per
 * iteration and than any AVX-512 shape, which is why membw times the variants at run time. */
#define RL_16(X) RL_8(X) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

__attribute__((target("avx2"))) static uint64_t sum_avx2(const uint64_t *p, size_t n)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m256i *v = (const __m256i *)(p + i);
#define X(k) a##k = _mm256_add_epi64(a##k, _mm256_loadu_si256(v + k));
        RL_8(X)
#undef X
#define X(k) a##k = _mm256_add_epi64(a##k, _mm256_loadu_si256(v + 8 + k));
        RL_8(X)
#undef X
    }
    a0 = _mm256_add_epi64(_mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3)),
                          _mm256_add_epi64(_mm256_add_epi64(a4, a5), _mm256_add_epi64(a6, a7)));
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, a0);
    return lane[0] + lane[1] + lane[2] + lane[3] + sum_c(p + i, n - i);
}

__attribute__((target("avx2"))) static uint64_t xor_avx2(const uint64_t *p, size_t n)
{
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m256i *v = (const __m256i *)(p + i);
#define X(k) a##k = _mm256_xor_si256(a##k, _mm256_loadu_si256(v + k));
        RL_8(X)
#undef X
#define X(k) a##k = _mm256_xor_si256(a##k, _mm256_loadu_si256(v + 8 + k));
        RL_8(X)
#undef X
    }
    a0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3)),
                          _mm256_xor_si256(_mm256_xor_si256(a4, a5), _mm256_xor_si256(a6, a7)));
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, a0);
    return lane[0] ^ lane[1] ^ lane[2] ^ lane[3] ^ xor_c(p + i, n - i);
}

/* 16 x 32 B from each stream per iteration (1 KiB in all), two FMAs per accumulator. */
__attribute__((target("avx2,fma"))) static double dot_avx2(const double *a, const double *b,
                                                           size_t n)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
#define X(k)                                                                                       \
    a##k = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 4 * k), _mm256_loadu_pd(b + i + 4 * k), a##k);
        RL_8(X)
#undef X
#define X(k)                                                                                       \
    a##k = _mm256_fmadd_pd(_mm256_loadu_pd(a + i + 32 + 4 * k),                                    \
                           _mm256_loadu_pd(b + i + 32 + 4 * k), a##k);
        RL_8(X)
#undef X
    }
    a0 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                       _mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)));
    double lane[4];
    _mm256_storeu_pd(lane, a0);
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + dot_c(a + i, b + i, n - i);
}

__attribute__((target("avx2"))) static void copy_avx2(uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m256i *s = (const __m256i *)(src + i);
        __m256i *d = (__m256i *)(dst + i);
#define X(k) __m256i v##k = _mm256_loadu_si256(s + k);
        RL_16(X)
#undef X
#define X(k) _mm256_storeu_si256(d + k, v##k);
        RL_16(X)
#undef X
    }
    copy_c(dst + i, src + i, n - i);
}

/* ---- AVX-512: 8 x 64 B per iteration */
__attribute__((target("avx512f"))) static uint64_t sum_avx512(const uint64_t *p, size_t n)
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint64_t *v = p + i;
#define X(k) a##k = _mm512_add_epi64(a##k, _mm512_loadu_si512((const void *)(v + 8 * k)));
        RL_8(X)
#undef X
    }
    a0 = _mm512_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3)),
                          _mm512_add_epi64(_mm512_add_epi64(a4, a5), _mm512_add_epi64(a6, a7)));
    uint64_t lane[8];
    _mm512_storeu_si512((void *)lane, a0);
    uint64_t s = 0;
    for (int k = 0; k < 8; k++)
        s += lane[k];
    return s + sum_c(p + i, n - i);
}

__attribute__((target("avx512f"))) static uint64_t xor_avx512(const uint64_t *p, size_t n)
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint64_t *v = p + i;
#define X(k) a##k = _mm512_xor_si512(a##k, _mm512_loadu_si512((const void *)(v + 8 * k)));
        RL_8(X)
#undef X
    }
    a0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3)),
                          _mm512_xor_si512(_mm512_xor_si512(a4, a5), _mm512_xor_si512(a6, a7)));
    uint64_t lane[8];
    _mm512_storeu_si512((void *)lane, a0);
    uint64_t s = 0;
    for (int k = 0; k < 8; k++)
        s ^= lane[k];
    return s ^ xor_c(p + i, n - i);
}

__attribute__((target("avx512f"))) static double dot_avx512(const double *a, const double *b,
                                                            size_t n)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
#define X(k)                                                                                       \
    a##k = _mm512_fmadd_pd(_mm512_loadu_pd(a + i + 8 * k), _mm512_loadu_pd(b + i + 8 * k), a##k);
        RL_8(X)
#undef X
    }
    a0 = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)),
                       _mm512_add_pd(_mm512_add_pd(a4, a5), _mm512_add_pd(a6, a7)));
    double lane[8];
    _mm512_storeu_pd(lane, a0);
    double s =
        ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
    return s + dot_c(a + i, b + i, n - i);
}

__attribute__((target("avx512f"))) static void copy_avx512(uint64_t *dst, const uint64_t *src,
                                                           size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint64_t *s = src + i;
        uint64_t *d = dst + i;
#define X(k) __m512i v##k = _mm512_loadu_si512((const void *)(s + 8 * k));
        RL_8(X)
#undef X
#define X(k) _mm512_storeu_si512((void *)(d + 8 * k), v##k);
        RL_8(X)
#undef X
    }
    copy_c(dst + i, src + i, n - i);
}

#endif /* RL_X86 */

/* ---------------------------------------------------------------- AArch64 NEON */
#if RL_NEON

#define RL_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

static uint64_t sum_neon(const uint64_t *p, size_t n)
{
    uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#define X(k) a##k = vaddq_u64(a##k, vld1q_u64(p + i + 2 * k));
        RL_8(X)
#undef X
    }
    a0 = vaddq_u64(vaddq_u64(vaddq_u64(a0, a1), vaddq_u64(a2, a3)),
                   vaddq_u64(vaddq_u64(a4, a5), vaddq_u64(a6, a7)));
    return vgetq_lane_u64(a0, 0) + vgetq_lane_u64(a0, 1) + sum_c(p + i, n - i);
}

static uint64_t xor_neon(const uint64_t *p, size_t n)
{
    uint64x2_t a0 = vdupq_n_u64(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#define X(k) a##k = veorq_u64(a##k, vld1q_u64(p + i + 2 * k));
        RL_8(X)
#undef X
    }
    a0 = veorq_u64(veorq_u64(veorq_u64(a0, a1), veorq_u64(a2, a3)),
                   veorq_u64(veorq_u64(a4, a5), veorq_u64(a6, a7)));
    return vgetq_lane_u64(a0, 0) ^ vgetq_lane_u64(a0, 1) ^ xor_c(p + i, n - i);
}

static double dot_neon(const double *a, const double *b, size_t n)
{
    float64x2_t a0 = vdupq_n_f64(0), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#define X(k) a##k = vfmaq_f64(a##k, vld1q_f64(a + i + 2 * k), vld1q_f64(b + i + 2 * k));
        RL_8(X)
#undef X
    }
    a0 = vaddq_f64(vaddq_f64(vaddq_f64(a0, a1), vaddq_f64(a2, a3)),
                   vaddq_f64(vaddq_f64(a4, a5), vaddq_f64(a6, a7)));
    return (vgetq_lane_f64(a0, 0) + vgetq_lane_f64(a0, 1)) + dot_c(a + i, b + i, n - i);
}

static void copy_neon(uint64_t *dst, const uint64_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#define X(k) uint64x2_t v##k = vld1q_u64(src + i + 2 * k);
        RL_8(X)
#undef X
#define X(k) vst1q_u64(dst + i + 2 * k, v##k);
        RL_8(X)
#undef X
    }
    copy_c(dst + i, src + i, n - i);
}

#endif /* RL_NEON */

/* ---------------------------------------------------------------- dispatch */

static rl_isa usable(rl_isa isa)
{
    return rl_isa_supported(isa) ? isa : RL_ISA_C;
}

uint64_t rl_kernel_sum_u64(rl_isa isa, const uint64_t *p, size_t n)
{
    switch (usable(isa)) {
#if RL_X86
    case RL_ISA_SSE2: return sum_sse2(p, n);
    case RL_ISA_AVX2: return sum_avx2(p, n);
    case RL_ISA_AVX512: return sum_avx512(p, n);
#endif
#if RL_NEON
    case RL_ISA_NEON: return sum_neon(p, n);
#endif
    default: return sum_c(p, n);
    }
}

uint64_t rl_kernel_xor_u64(rl_isa isa, const uint64_t *p, size_t n)
{
    switch (usable(isa)) {
#if RL_X86
    case RL_ISA_SSE2: return xor_sse2(p, n);
    case RL_ISA_AVX2: return xor_avx2(p, n);
    case RL_ISA_AVX512: return xor_avx512(p, n);
#endif
#if RL_NEON
    case RL_ISA_NEON: return xor_neon(p, n);
#endif
    default: return xor_c(p, n);
    }
}

double rl_kernel_dot_f64(rl_isa isa, const double *a, const double *b, size_t n)
{
    switch (usable(isa)) {
#if RL_X86
    case RL_ISA_SSE2: return dot_sse2(a, b, n);
    case RL_ISA_AVX2: return dot_avx2(a, b, n);
    case RL_ISA_AVX512: return dot_avx512(a, b, n);
#endif
#if RL_NEON
    case RL_ISA_NEON: return dot_neon(a, b, n);
#endif
    default: return dot_c(a, b, n);
    }
}

void rl_kernel_copy_u64(rl_isa isa, uint64_t *dst, const uint64_t *src, size_t n)
{
    switch (usable(isa)) {
#if RL_X86
    case RL_ISA_SSE2: copy_sse2(dst, src, n); return;
    case RL_ISA_AVX2: copy_avx2(dst, src, n); return;
    case RL_ISA_AVX512: copy_avx512(dst, src, n); return;
#endif
#if RL_NEON
    case RL_ISA_NEON: copy_neon(dst, src, n); return;
#endif
    default: copy_c(dst, src, n); return;
    }
}
