/* SPDX-License-Identifier: MIT */
/* calib_plan.h: what `calibrate` measures, as data and pure arithmetic (owner: calibrate).
 *
 * The types: every ggml type of the pinned llama.cpp (ggml_types.h), in the order the
 * calibration reports them, each with how a single-type model of it is made: synth writes it
 * (F32, F16, BF16, Q8_0, Q4_0), llama-quantize --pure writes it from a synth F16 (the file type
 * named here; one whose llama-quantize refuses, e.g. without an importance matrix, is not
 * calibrated with llama-quantize's own reason, found when it is tried), or nothing does (not
 * calibrated, with the reason here: an activation-only or integer type, a type llama-quantize
 * lists no file type for).
 *
 * The models: one shape family, a llama-architecture transformer with a separate output head,
 * head size 128, one KV head, a 512-token vocabulary, whose every matrix row is n_embd or n_ff
 * long, both multiples of 256 (the K and IQ block size), so every type quantizes every matrix
 * without substitution. Four roles per type, sized in bytes streamed per token (gguf_model.h's
 * streamed convention) from the last-level cache:
 *   small  RL_CAL_N_LAYER layers, LLC / 8: cache-resident, above the L2 of the cores
 *   mid    RL_CAL_N_LAYER layers, LLC / 2: cache-resident
 *   deep   small's width at RL_CAL_DEEP_LAYERS layers: cache-resident, what a layer costs
 *          beyond its bytes
 *   stream RL_CAL_STREAM_LAYERS layers, 8 x LLC: streamed from DRAM, its matrices of the
 *          sizes real models hold (a few MB each at a 32 MiB LLC): a model of a few big
 *          matrices streams faster per byte than one of many, and decode reads many
 *          (measured: docs/METHOD.md "Two roofs")
 *   wide   RL_CAL_WIDE_LAYERS layers, stream's bytes (8 x LLC): the same bytes from DRAM in a
 *          quarter as many, four times larger matrices, so stream and wide together split the
 *          streaming time into a time per byte and a time per matrix (rl_cal_matrix_split)
 * small, mid and stream each at least twice the bytes of the one before (a tiny LLC still gives
 * three sizes).
 * The shape for a target is solved in closed form (rl_cal_shape_for) and its bytes computed
 * exactly (rl_cal_shape_bytes, the same sum gguf_model.c makes of the file synth writes).
 *
 * Nothing here allocates or does I/O; every pointer returned is to static storage. */
#ifndef RL_CALIB_PLAN_H
#define RL_CALIB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/synth.h"

#define RL_CAL_N_LAYER 4        /* layers of the small and mid models */
#define RL_CAL_STREAM_LAYERS 16 /* layers of the stream model */
#define RL_CAL_DEEP_LAYERS 16   /* layers of the deep model */
#define RL_CAL_WIDE_LAYERS 4    /* layers of the wide model */
#define RL_CAL_VOCAB 512        /* tokens: the output head stays small */
#define RL_CAL_HEAD_DIM 128     /* n_head = n_embd / 128 */
#define RL_CAL_N_HEAD_KV 1      /* one KV head: the KV cache stays negligible */
#define RL_CAL_ROW_QUANTUM 256  /* n_embd and n_ff are multiples of this */
#define RL_CAL_SEED 1
#define RL_CAL_LLC_DEFAULT (32ull << 20) /* when the last-level cache is unknown */

typedef enum {
    RL_CAL_SYNTH,    /* synth writes it */
    RL_CAL_QUANTIZE, /* llama-quantize --pure <ftype> from a synth F16 */
    RL_CAL_NONE      /* not calibrated: reason */
} rl_cal_make;

typedef struct {
    uint32_t type;    /* ggml id (RL_GGML_*) */
    const char *name; /* "Q4_K" */
    rl_cal_make make;
    const char *ftype;  /* RL_CAL_QUANTIZE: llama-quantize's type argument, e.g. "Q4_K_S" */
    const char *reason; /* RL_CAL_NONE: why it is not calibrated (one line) */
} rl_cal_type;

/* The types in report order; rl_cal_type_at(i) for i < rl_cal_type_count(). */
size_t rl_cal_type_count(void);
const rl_cal_type *rl_cal_type_at(size_t i);
/* By ggml id, or by name (case-insensitive); NULL when not in the table. */
const rl_cal_type *rl_cal_type_find(uint32_t type);
const rl_cal_type *rl_cal_type_by_name(const char *name);
/* True for the types a calibration measures by default (make is not RL_CAL_NONE). */
bool rl_cal_type_measurable(const rl_cal_type *t);

typedef enum {
    RL_CAL_SMALL,
    RL_CAL_MID,
    RL_CAL_DEEP,
    RL_CAL_STREAM,
    RL_CAL_WIDE,
    RL_CAL_N_ROLES
} rl_cal_role;
/* "small", "mid", "deep", "stream", "wide"; NULL past the end. */
const char *rl_cal_role_name(int role);
/* The role by name, or -1. */
int rl_cal_role_by_name(const char *name);

typedef struct {
    uint64_t n_layer, n_embd, n_ff, n_head, n_head_kv, n_vocab;
} rl_cal_shape;

/* The target bytes of each role for a last-level cache of llc bytes (0: RL_CAL_LLC_DEFAULT),
 * before the twice-the-previous rule (applied by rl_cal_plan_shapes); deep's is mid's (its
 * shape is small's, deeper), wide's stream's. */
void rl_cal_targets(uint64_t llc, uint64_t targets[RL_CAL_N_ROLES]);
/* Bytes decode streams per token for a model of shape s whose matrices are all of type (F32
 * norms): the layers, the final norm and the output head. 0 for an unknown type. */
uint64_t rl_cal_shape_bytes(const rl_cal_shape *s, uint32_t type);
/* The shape of the family at n_layer layers whose streamed bytes are nearest target (from
 * below or above) for this type; the smallest shape (n_embd = n_ff = 256) when target is below
 * it. false for an unknown type. */
bool rl_cal_shape_for(uint32_t type, uint64_t target, uint64_t n_layer, rl_cal_shape *out);
/* The shapes of one type for a cache of llc bytes: small, mid and stream each the target's and
 * at least twice the bytes of the one before (n_ff up to 4 n_embd, then n_embd, grown until it
 * is), wide the shape at RL_CAL_WIDE_LAYERS layers nearest stream's bytes (grown the same way to
 * at least twice mid's), deep small's at RL_CAL_DEEP_LAYERS layers. false for an unknown
 * type. */
bool rl_cal_plan_shapes(uint32_t type, uint64_t llc, rl_cal_shape shapes[RL_CAL_N_ROLES]);
/* The matrices decode reads per token in a model of shape s: seven per layer (q, k, v, o, gate,
 * up, down) and the output head. */
uint64_t rl_cal_shape_matrices(const rl_cal_shape *s);
/* The rows of those matrices, one dot product each per token: per layer n_embd (q, o and down),
 * n_head_kv x RL_CAL_HEAD_DIM (k and v) and n_ff (gate and up), and n_vocab for the head. */
uint64_t rl_cal_shape_rows(const rl_cal_shape *s);
/* Two streamed models of one type, a (bytes wa, na counted items: matrices or rows, us_a of time
 * beyond the fixed cost) and b, split into us per byte and us per item: us = bytes x *per_byte +
 * items x *per_matrix, solved exactly. A per-item time within rounding of 0 (under 1e-6 of a's
 * time per item) is 0. false (nothing written) when the two have the same items per byte or
 * either value comes out below 0 or not finite. */
bool rl_cal_matrix_split(double wa, double na, double us_a, double wb, double nb, double us_b,
                         double *per_byte, double *per_matrix);
/* The synth configuration of shape s at weight type (F16 for a type llama-quantize makes). */
void rl_cal_synth_config(const rl_cal_shape *s, uint32_t type, rl_synth_config *out);

#endif
