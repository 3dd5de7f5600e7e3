/* SPDX-License-Identifier: MIT */
/* ggml_types.c: the ggml tensor type table and llama's file_type labels, transcribed from the
 * pinned llama.cpp (ggml/include/ggml.h enum ggml_type, ggml/src/ggml.c type_traits,
 * ggml/src/ggml-common.h block structs, include/llama.h enum llama_ftype and
 * src/llama-quant.cpp llama_ftype_get_default_type). Ids that the enum has removed (their
 * type_traits entry has block size 0) are left empty and reported as unknown. Static data
 * only: every returned pointer refers to constant storage and is never freed. */
#include "model/ggml_types.h"

#include <stddef.h>
#include <strings.h>

static const rl_ggml_type_info type_table[RL_GGML_COUNT] = {
    [RL_GGML_F32] = {"F32", 1, 4},
    [RL_GGML_F16] = {"F16", 1, 2},
    [RL_GGML_Q4_0] = {"Q4_0", 32, 18},
    [RL_GGML_Q4_1] = {"Q4_1", 32, 20},
    /* 4 (Q4_2) and 5 (Q4_3) were removed */
    [RL_GGML_Q5_0] = {"Q5_0", 32, 22},
    [RL_GGML_Q5_1] = {"Q5_1", 32, 24},
    [RL_GGML_Q8_0] = {"Q8_0", 32, 34},
    [RL_GGML_Q8_1] = {"Q8_1", 32, 36},
    [RL_GGML_Q2_K] = {"Q2_K", 256, 84},
    [RL_GGML_Q3_K] = {"Q3_K", 256, 110},
    [RL_GGML_Q4_K] = {"Q4_K", 256, 144},
    [RL_GGML_Q5_K] = {"Q5_K", 256, 176},
    [RL_GGML_Q6_K] = {"Q6_K", 256, 210},
    [RL_GGML_Q8_K] = {"Q8_K", 256, 292},
    [RL_GGML_IQ2_XXS] = {"IQ2_XXS", 256, 66},
    [RL_GGML_IQ2_XS] = {"IQ2_XS", 256, 74},
    [RL_GGML_IQ3_XXS] = {"IQ3_XXS", 256, 98},
    [RL_GGML_IQ1_S] = {"IQ1_S", 256, 50},
    [RL_GGML_IQ4_NL] = {"IQ4_NL", 32, 18},
    [RL_GGML_IQ3_S] = {"IQ3_S", 256, 110},
    [RL_GGML_IQ2_S] = {"IQ2_S", 256, 82},
    [RL_GGML_IQ4_XS] = {"IQ4_XS", 256, 136},
    [RL_GGML_I8] = {"I8", 1, 1},
    [RL_GGML_I16] = {"I16", 1, 2},
    [RL_GGML_I32] = {"I32", 1, 4},
    [RL_GGML_I64] = {"I64", 1, 8},
    [RL_GGML_F64] = {"F64", 1, 8},
    [RL_GGML_IQ1_M] = {"IQ1_M", 256, 56},
    [RL_GGML_BF16] = {"BF16", 1, 2},
    /* 31..33 (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8) were removed from GGUF files */
    [RL_GGML_TQ1_0] = {"TQ1_0", 256, 54},
    [RL_GGML_TQ2_0] = {"TQ2_0", 256, 66},
    /* 36..38 (IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8) were removed */
    [RL_GGML_MXFP4] = {"MXFP4", 32, 17},
    [RL_GGML_NVFP4] = {"NVFP4", 64, 36},
    [RL_GGML_Q1_0] = {"Q1_0", 128, 18},
    [RL_GGML_Q2_0] = {"Q2_0", 64, 18},
};

const rl_ggml_type_info *rl_ggml_type_get(uint32_t id)
{
    if (id >= RL_GGML_COUNT || type_table[id].name == NULL || type_table[id].blck == 0)
        return NULL;
    return &type_table[id];
}

int rl_ggml_type_by_name(const char *name)
{
    if (!name)
        return -1;
    for (uint32_t id = 0; id < RL_GGML_COUNT; id++)
        if (type_table[id].name && strcasecmp(type_table[id].name, name) == 0)
            return (int)id;
    return -1;
}

uint32_t rl_ggml_type_count(void)
{
    return RL_GGML_COUNT;
}

double rl_ggml_type_bpw(uint32_t id)
{
    const rl_ggml_type_info *t = rl_ggml_type_get(id);
    return t ? 8.0 * (double)t->type_size / (double)t->blck : 0.0;
}

/* llama_ftype ids with a short label and the ggml type llama-quantize uses by default for
 * that recipe (-1 where none). Ids 4-6 and 33-35 were removed from the enum. */
typedef struct {
    const char *label;
    int default_type;
} ftype_entry;

#define RL_FTYPE_COUNT 42u

static const ftype_entry ftype_table[RL_FTYPE_COUNT] = {
    [0] = {"F32", 0},         [1] = {"F16", 1},      [2] = {"Q4_0", 2},     [3] = {"Q4_1", 3},
    [7] = {"Q8_0", 8},        [8] = {"Q5_0", 6},     [9] = {"Q5_1", 7},     [10] = {"Q2_K", 10},
    [11] = {"Q3_K_S", 11},    [12] = {"Q3_K_M", 11}, [13] = {"Q3_K_L", 11}, [14] = {"Q4_K_S", 12},
    [15] = {"Q4_K_M", 12},    [16] = {"Q5_K_S", 13}, [17] = {"Q5_K_M", 13}, [18] = {"Q6_K", 14},
    [19] = {"IQ2_XXS", 16},   [20] = {"IQ2_XS", 17}, [21] = {"Q2_K_S", 10}, [22] = {"IQ3_XS", 21},
    [23] = {"IQ3_XXS", 18},   [24] = {"IQ1_S", 19},  [25] = {"IQ4_NL", 20}, [26] = {"IQ3_S", 21},
    [27] = {"IQ3_M", 21},     [28] = {"IQ2_S", 17},  [29] = {"IQ2_M", 22},  [30] = {"IQ4_XS", 23},
    [31] = {"IQ1_M", 29},     [32] = {"BF16", 30},   [36] = {"TQ1_0", 34},  [37] = {"TQ2_0", 35},
    [38] = {"MXFP4_MOE", 39}, [39] = {"NVFP4", 40},  [40] = {"Q1_0", 41},   [41] = {"Q2_0", 42},
};

const char *rl_ftype_label(uint32_t ftype)
{
    return ftype < RL_FTYPE_COUNT ? ftype_table[ftype].label : NULL;
}

int rl_ftype_by_label(const char *label)
{
    if (!label)
        return -1;
    for (uint32_t i = 0; i < RL_FTYPE_COUNT; i++)
        if (ftype_table[i].label && strcasecmp(ftype_table[i].label, label) == 0)
            return (int)i;
    return -1;
}

int rl_ftype_default_type(uint32_t ftype)
{
    if (ftype >= RL_FTYPE_COUNT || !ftype_table[ftype].label)
        return -1;
    return ftype_table[ftype].default_type;
}
