/* rl_ggml_types.h: the ggml tensor type table of the pinned llama.cpp (every id of its rl_ggml_type
 * enum) and llama's file_type labels. Static data only; nothing is allocated. */
#ifndef RL_GGML_TYPES_H
#define RL_GGML_TYPES_H

#include <stdbool.h>
#include <stdint.h>

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
