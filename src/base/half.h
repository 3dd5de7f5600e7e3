/* SPDX-License-Identifier: MIT */
/* half.h: IEEE 754 binary16 ("half", ggml's F16) and bfloat16 conversions, rounding to
 * nearest even, bit-exact with ggml's FP16 library tricks. Pure functions; nothing allocated. */
#ifndef RL_HALF_H
#define RL_HALF_H

#include <stdint.h>

uint16_t rl_half_from_f32(float f);
float rl_half_to_f32(uint16_t h);
uint16_t rl_half_bf16_from_f32(float f);
float rl_half_bf16_to_f32(uint16_t h);

#endif
