/* SPDX-License-Identifier: MIT */
/* membw_kernels.h: the streaming kernels behind `membw` (owner: membw).
 *
 * Three read-only reductions (sum, xor, dot) and one copy, each in several instruction-set
 * variants picked at run time: AVX-512 (avx512f), AVX2 (+FMA for dot), SSE2 on x86-64, NEON on
 * AArch64, and portable C everywhere. Every kernel accepts any length and any 8-byte alignment:
 * the vector loop handles whole blocks and a scalar tail finishes the rest, so the result does
 * not depend on the variant (integer kernels wrap modulo 2^64; dot is exact whenever the inputs
 * are integer-valued doubles whose partial sums stay below 2^53). Nothing here allocates;
 * callers own every buffer. The file is always compiled at -O3 (CMakeLists.txt). */
#ifndef RL_MEMBW_KERNELS_H
#define RL_MEMBW_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    RL_ISA_C = 0, /* portable C, 8 scalar accumulators (the compiler may vectorise it) */
    RL_ISA_SSE2,
    RL_ISA_AVX2,
    RL_ISA_AVX512,
    RL_ISA_NEON,
    RL_ISA_COUNT
} rl_isa;

typedef enum {
    RL_KERNEL_SUM = 0, /* uint64 sum, 8 independent accumulators */
    RL_KERNEL_XOR,     /* uint64 xor: a pure load stream */
    RL_KERNEL_DOT,     /* double dot product of two streams, 8 accumulators */
    RL_KERNEL_COPY,    /* dst = src; reported, never part of the read ceiling */
    RL_KERNEL_COUNT
} rl_kernel;

/* "c", "sse2", "avx2", "avx512", "neon"; NULL for an out-of-range value. */
const char *rl_isa_name(rl_isa isa);
/* Parse a name given by rl_isa_name; false if unknown. */
bool rl_isa_parse(const char *name, rl_isa *out);
/* "sum", "xor", "dot", "copy". */
const char *rl_kernel_name(rl_kernel k);
/* True for the kernels that may set the read ceiling (everything but copy). */
bool rl_kernel_read_only(rl_kernel k);

/* Whether this build has the variant and this CPU (and OS) can run it. RL_ISA_C is always true. */
bool rl_isa_supported(rl_isa isa);
/* The widest supported variant. */
rl_isa rl_isa_best(void);

/* The kernels. isa must be supported (an unsupported one falls back to RL_ISA_C). n counts
 * 8-byte elements; n == 0 is allowed. */
uint64_t rl_kernel_sum_u64(rl_isa isa, const uint64_t *p, size_t n);
uint64_t rl_kernel_xor_u64(rl_isa isa, const uint64_t *p, size_t n);
double rl_kernel_dot_f64(rl_isa isa, const double *a, const double *b, size_t n);
void rl_kernel_copy_u64(rl_isa isa, uint64_t *dst, const uint64_t *src, size_t n);

#endif
