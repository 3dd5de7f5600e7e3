/* SPDX-License-Identifier: MIT */
/* synth_gen.h: the values of a synthetic model's tensors (see synth.h for the plan).
 *
 * Values are a pure function of (seed, tensor name, element index): a counter-based splitmix64
 * stream per tensor, so any chunking gives the same bytes and chunks can be made in any
 * order. Matrices and biases are uniform in [-amp, amp] (F16/BF16 through the plan's lookup
 * table; Q8_0/Q4_0 as random quants with a random scale per block, never outside the range),
 * norms are 1.0, rope_freqs the Llama 3 factors. Nothing is allocated. */
#ifndef RL_SYNTH_GEN_H
#define RL_SYNTH_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "model/synth.h"

/* Generate the bytes of tensor tensor_index, elements [first, first + count), into out (which
 * must hold their bytes). first must be a multiple of SYNTH_CHUNK_ALIGN; count too unless the
 * range ends at the tensor's end. Used by the writer, the tests and bench/synth-speed. */
#define SYNTH_CHUNK_ALIGN 32
void rl_synth_generate(const rl_synth_plan *p, size_t tensor_index, uint64_t first, uint64_t count,
                       void *out);

#endif
