/* SPDX-License-Identifier: MIT */
/* ggml_types.h: the ggml tensor type table of the pinned llama.cpp (every id of its ggml_type
 * enum) and llama's file_type labels. Static data only; nothing is allocated. */
#ifndef RL_GGML_TYPES_H
#define RL_GGML_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* ggml type ids of the pinned llama.cpp (ggml.h enum ggml_type); gaps are removed types. */
enum {
    RL_GGML_F32 = 0,
    RL_GGML_F16 = 1,
    RL_GGML_Q4_0 = 2,
    RL_GGML_Q4_1 = 3,
    RL_GGML_Q5_0 = 6,
    RL_GGML_Q5_1 = 7,
    RL_GGML_Q8_0 = 8,
    RL_GGML_Q8_1 = 9,
    RL_GGML_Q2_K = 10,
    RL_GGML_Q3_K = 11,
    RL_GGML_Q4_K = 12,
    RL_GGML_Q5_K = 13,
    RL_GGML_Q6_K = 14,
    RL_GGML_Q8_K = 15,
    RL_GGML_IQ2_XXS = 16,
    RL_GGML_IQ2_XS = 17,
    RL_GGML_IQ3_XXS = 18,
    RL_GGML_IQ1_S = 19,
    RL_GGML_IQ4_NL = 20,
    RL_GGML_IQ3_S = 21,
    RL_GGML_IQ2_S = 22,
    RL_GGML_IQ4_XS = 23,
    RL_GGML_I8 = 24,
    RL_GGML_I16 = 25,
    RL_GGML_I32 = 26,
    RL_GGML_I64 = 27,
    RL_GGML_F64 = 28,
    RL_GGML_IQ1_M = 29,
    RL_GGML_BF16 = 30,
    RL_GGML_TQ1_0 = 34,
    RL_GGML_TQ2_0 = 35,
    RL_GGML_MXFP4 = 39,
    RL_GGML_NVFP4 = 40,
    RL_GGML_Q1_0 = 41,
    RL_GGML_Q2_0 = 42,
    RL_GGML_COUNT = 43 /* GGML_TYPE_COUNT of the pinned source */
};

typedef struct {
    const char *name;   /* "Q4_K", upper case as llama.cpp's type_name, upper-cased */
    uint32_t blck;      /* elements per block */
    uint32_t type_size; /* bytes per block */
} rl_ggml_type_info;

/* NULL when id is unknown to the pinned llama.cpp or a removed type: never guessed. */
const rl_ggml_type_info *rl_ggml_type_get(uint32_t id);
/* Type id by name (case-insensitive), or -1. */
int rl_ggml_type_by_name(const char *name);
/* Number of ids in the enum (GGML_TYPE_COUNT of the pinned source). */
uint32_t rl_ggml_type_count(void);
/* Bits per weight of a type (8 * type_size / blck); 0 for unknown ids. */
double rl_ggml_type_bpw(uint32_t id);
/* llama file_type (general.file_type) label, e.g. 15 -> "Q4_K_M"; NULL when unknown. */
const char *rl_ftype_label(uint32_t ftype);
/* Inverse of rl_ftype_label (case-insensitive), or -1. */
int rl_ftype_by_label(const char *label);
/* The ggml type llama-quantize uses by default for a file_type (llama-quant.cpp
 * rl_ftype_get_default_type: 15 Q4_K_M -> Q4_K, 27 IQ3_M -> IQ3_S), or -1. */
int rl_ftype_default_type(uint32_t ftype);

#endif
