/* SPDX-License-Identifier: MIT */
/* roofs.h: the decode model with both roofs (issue 22, part 2): a model's per-token time from
 * the calibration of each ggml type it holds (bundle/calib.h), not from one bandwidth.
 *
 *   tau = F + sum over types t of bytes_t x c_t(W, m_t)      (us; tok/s = 1e6 / tau)
 *
 *   bytes_t  the bytes of type t decode reads per token (the streamed convention: every tensor
 *            but an untied embedding; MoE experts scaled as gguf_model.h does, spread over the
 *            types in proportion);
 *   W        the model's streamed bytes: how much of it can sit in the cache;
 *   c_t(W)   type t's time per byte for a model of W bytes, from its calibration points
 *            (small, mid: cache-resident; stream: from DRAM), each c_p = (tau_p - F_p) / W_p
 *            with F_p the type's fixed cost at the point's own layers (F below; the 4-layer
 *            fixed cost when its layers are unknown, 0 when that is unavailable too), interpolated
 * linearly in ln W between the points and held at the ends: the kernel's compute roof where the
 * model fits the cache, its streaming rate where it does not, and the measured curve between; F the
 * fixed cost: base + per_layer x the model's layers of each type, weighted by the type's bytes,
 * with base = the 4-layer fixed cost - 4 x per_layer even when that is below 0 (the calibration's
 * noise; F is held at 0 or more), so a model of 24 layers pays its 24 layers whatever the base; the
 * type's 4-layer fixed cost when its per-layer cost is unavailable. When the calibration has
 * neither (its small-mid line failed: on a VM whose last-level cache share is smaller than the one
 * reported, the small model runs faster per byte than the mid one), the per-layer cost comes from
 * the mid and deep models, nearly equal bytes at 4 and 16 layers: tau = layers x per_layer + bytes
 * x c solved for both (no base; it is folded into the layers), and each point's c_p = (tau_p -
 * per_layer x its layers) / W_p. Otherwise 0. The stream point's value depends on the model:
 * with a wide point too (stream's bytes in a quarter as many matrices of about half as many
 * rows), the two points' times beyond F_p split into a time per byte c_inf and one per matrix
 * row r (rl_cal_matrix_split over rl_cal_shape_rows: each row is one dot product, with its own
 * start and sum), and the stream point's value for type t is c_inf + r x m_t, m_t = the rows of
 * type t decode reads per token over bytes_t (a model of fewer, longer rows streams faster per
 * byte: past the stream point bytes_t x c_t = bytes_t x c_inf + rows_t x r); without the
 * model's rows (a bundle before n_rows) the same split by matrices; the measured c_p when
 * neither is known (a calibration before the wide model, a bundle before n_matrices).
 * Every calibration point is reproduced exactly; when
 * every type runs at one rate BW at every size and costs nothing fixed, tau = W / BW: the one-roof
 * fit's form. The binding roof is the type with the largest share of the time; its rate is its
 * bytes over its time. A type holding more than RL_ROOF_UNCAL_PCT of the bytes without a
 * calibration makes the prediction unavailable (why names it); smaller ones take the time per byte
 * of the calibrated type holding the most bytes.
 *
 * Pure arithmetic: no I/O, no allocation; JSON read by rl_roof_type_from_json only. */
#ifndef RL_ROOFS_H
#define RL_ROOFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define RL_ROOF_MAX_TYPES 48
#define RL_ROOF_MAX_PTS 3
#define RL_ROOF_UNCAL_PCT 2.0

typedef struct {
    double bytes;       /* the calibration model's streamed bytes */
    double us_per_byte; /* (tau - F4) / bytes */
    bool stream;        /* the stream point (its value depends on the model's matrices) */
} rl_roof_pt;

typedef struct {
    char type[16];
    rl_roof_pt pts[RL_ROOF_MAX_PTS]; /* by bytes, ascending */
    size_t n_pts;
    bool has_fixed;
    double fixed_us; /* at RL_CAL_N_LAYER layers */
    bool has_layers;
    double base_us, per_layer_us;
    bool layers_from_deep; /* per_layer from the mid and deep points (no base): see below */
    bool has_matrix;       /* stream and wide split into the two below */
    double limit_us_per_byte, per_matrix_us;
    bool has_rows; /* stream and wide split by rows instead: the model's form when it knows */
    double row_limit_us_per_byte, per_row_us;
} rl_roof_type;

/* One calibration type entry (calibration.sets[].types[]) into out: its small, mid and stream
 * points with a rate, fixed, base and per_layer, and the stream and wide points' split. false
 * when no point has a rate. */
bool rl_roof_type_from_json(const cJSON *entry, rl_roof_type *out);

/* c_t(W, x): the type's time per byte (us) for a model of model_bytes bytes whose bytes of this
 * type hold rows_per_byte matrix rows per byte (the row split; < 0: unknown), else
 * matrices_per_byte matrices (the matrix split; < 0: unknown), else the stream point as
 * measured; NAN with no point. */
double rl_roof_us_per_byte(const rl_roof_type *t, double model_bytes, double matrices_per_byte,
                           double rows_per_byte);

typedef struct {
    char type[16];   /* ggml type name, e.g. "Q4_K" */
    double bytes;    /* streamed per token */
    double matrices; /* matrices of this type decode reads per token; < 0 unknown */
    double rows;     /* their rows (one dot product each); < 0 unknown */
} rl_roof_part;

typedef struct {
    char type[16];
    double bytes, us; /* bytes per token and the time they take */
    double matrices;  /* the part's; < 0 unknown */
    double rows;      /* the part's; < 0 unknown */
    bool calibrated;  /* false: the time per byte of the largest calibrated type */
} rl_roof_share;

typedef struct {
    bool ok;
    char why[200];
    double tau_us, tok_s, fixed_us;
    double GBs; /* the weights over their time, tau - fixed: the rate the kernels reach */
    rl_roof_share shares[RL_ROOF_MAX_TYPES];
    size_t n_shares;
    size_t binding; /* index into shares: the largest time */
} rl_roof_result;

/* The model of parts (its streamed bytes by type) and n_layer layers over the calibrated types.
 * out is zeroed first; parts past RL_ROOF_MAX_TYPES are not counted (ok false). */
void rl_roof_predict(const rl_roof_type *types, size_t n_types, const rl_roof_part *parts,
                     size_t n_parts, double n_layer, rl_roof_result *out);

/* The verdict: which roof binds and by how much, one phrase:
 *   "limited by the fixed per-token cost: 310 of 520 us per token, beyond the bytes" when the
 *     fixed cost is over half the time;
 *   else the types taking the most time, descending, until they cover RL_ROOF_VERDICT_PCT of
 *   the weights' time (at most RL_ROOF_VERDICT_MAX), at their bytes over their time, G:
 *   "limited by memory: the Q4_0 weights stream at 45.1 of 48.5 GB/s" when G is at least
 *     RL_ROOF_MEMORY_FRAC of the memory ceiling (ceiling_GBs; <= 0: unknown),
 *   "limited by the Q5_0 and Q4_K kernels: 27.0 of 48.5 GB/s" below it,
 *   "limited by the Q4_0 kernel: 27.0 GB/s (no memory ceiling measured)" without one;
 *   "no two-roof verdict: <why>" when !r->ok. */
#define RL_ROOF_VERDICT_PCT 75.0
#define RL_ROOF_VERDICT_MAX 3
#define RL_ROOF_MEMORY_FRAC 0.9
void rl_roof_verdict(const rl_roof_result *r, double ceiling_GBs, char *buf, size_t cap);

#endif
