/* SPDX-License-Identifier: MIT */
/* calib_plan.c: the calibration's type table and the shapes of its models (calib_plan.h). */
#include "model/calib_plan.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "model/ggml_types.h"

#define S(id, name)                                                                                \
    {                                                                                              \
        RL_GGML_##id, name, RL_CAL_SYNTH, NULL, NULL                                               \
    }
#define Q(id, name, ftype)                                                                         \
    {                                                                                              \
        RL_GGML_##id, name, RL_CAL_QUANTIZE, ftype, NULL                                           \
    }
#define N(id, name, why)                                                                           \
    {                                                                                              \
        RL_GGML_##id, name, RL_CAL_NONE, NULL, why                                                 \
    }

#define WHY_ACT                                                                                    \
    "an activation type of ggml's dot products, not a weight format: no model file holds it and "  \
    "llama-quantize writes none"
#define WHY_INT "an integer or F64 tensor type, not a weight format: llama-quantize writes none"

static const rl_cal_type types[] = {
    S(F32, "F32"),
    S(F16, "F16"),
    S(BF16, "BF16"),
    S(Q8_0, "Q8_0"),
    S(Q4_0, "Q4_0"),
    Q(Q4_1, "Q4_1", "Q4_1"),
    Q(Q5_0, "Q5_0", "Q5_0"),
    Q(Q5_1, "Q5_1", "Q5_1"),
    Q(Q2_K, "Q2_K", "Q2_K"),
    Q(Q3_K, "Q3_K", "Q3_K_S"),
    Q(Q4_K, "Q4_K", "Q4_K_S"),
    Q(Q5_K, "Q5_K", "Q5_K_S"),
    Q(Q6_K, "Q6_K", "Q6_K"),
    Q(IQ4_NL, "IQ4_NL", "IQ4_NL"),
    Q(IQ4_XS, "IQ4_XS", "IQ4_XS"),
    Q(IQ3_S, "IQ3_S", "IQ3_S"),
    Q(IQ3_XXS, "IQ3_XXS", "IQ3_XXS"),
    Q(IQ2_S, "IQ2_S", "IQ2_S"),
    Q(IQ2_XS, "IQ2_XS", "IQ2_XS"),
    Q(IQ2_XXS, "IQ2_XXS", "IQ2_XXS"),
    Q(IQ1_M, "IQ1_M", "IQ1_M"),
    Q(IQ1_S, "IQ1_S", "IQ1_S"),
    Q(TQ2_0, "TQ2_0", "TQ2_0"),
    Q(TQ1_0, "TQ1_0", "TQ1_0"),
    Q(MXFP4, "MXFP4", "MXFP4_MOE"),
    Q(Q2_0, "Q2_0", "Q2_0"),
    Q(Q1_0, "Q1_0", "Q1_0"),
    N(NVFP4, "NVFP4", "llama-quantize of the pinned build lists no file type that writes it"),
    N(Q8_1, "Q8_1", WHY_ACT),
    N(Q8_K, "Q8_K", WHY_ACT),
    N(I8, "I8", WHY_INT),
    N(I16, "I16", WHY_INT),
    N(I32, "I32", WHY_INT),
    N(I64, "I64", WHY_INT),
    N(F64, "F64", WHY_INT),
};
#define N_TYPES (sizeof types / sizeof types[0])

size_t rl_cal_type_count(void)
{
    return N_TYPES;
}

const rl_cal_type *rl_cal_type_at(size_t i)
{
    return i < N_TYPES ? &types[i] : NULL;
}

const rl_cal_type *rl_cal_type_find(uint32_t type)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (types[i].type == type)
            return &types[i];
    return NULL;
}

const rl_cal_type *rl_cal_type_by_name(const char *name)
{
    for (size_t i = 0; name && i < N_TYPES; i++)
        if (strcasecmp(types[i].name, name) == 0)
            return &types[i];
    return NULL;
}

bool rl_cal_type_measurable(const rl_cal_type *t)
{
    return t && t->make != RL_CAL_NONE;
}

static const char *const role_names[RL_CAL_N_ROLES] = {"small", "mid", "deep", "stream", "wide"};

const char *rl_cal_role_name(int role)
{
    return role >= 0 && role < RL_CAL_N_ROLES ? role_names[role] : NULL;
}

int rl_cal_role_by_name(const char *name)
{
    for (int r = 0; name && r < RL_CAL_N_ROLES; r++)
        if (strcmp(role_names[r], name) == 0)
            return r;
    return -1;
}

void rl_cal_targets(uint64_t llc, uint64_t targets[RL_CAL_N_ROLES])
{
    if (llc == 0)
        llc = RL_CAL_LLC_DEFAULT;
    targets[RL_CAL_SMALL] = llc / 8;
    targets[RL_CAL_MID] = llc / 2;
    targets[RL_CAL_DEEP] = llc / 2;
    targets[RL_CAL_STREAM] = llc * 8;
    targets[RL_CAL_WIDE] = llc * 8;
}

/* Elements of one layer's matrices: q and o (n_embd x n_embd), k and v (n_embd x the KV
 * width), gate, up and down (n_embd x n_ff). */
static uint64_t layer_elements(const rl_cal_shape *s)
{
    uint64_t kv = s->n_head_kv * RL_CAL_HEAD_DIM;
    return 2 * s->n_embd * s->n_embd + 2 * s->n_embd * kv + 3 * s->n_embd * s->n_ff;
}

uint64_t rl_cal_shape_bytes(const rl_cal_shape *s, uint32_t type)
{
    const rl_ggml_type_info *t = rl_ggml_type_get(type);
    if (!t)
        return 0;
    uint64_t per_layer = layer_elements(s) / t->blck * t->type_size + 2 * s->n_embd * 4;
    uint64_t head = s->n_vocab * s->n_embd / t->blck * t->type_size + s->n_embd * 4;
    return s->n_layer * per_layer + head;
}

static void base_shape(rl_cal_shape *s, uint64_t e, uint64_t f, uint64_t n_layer)
{
    s->n_layer = n_layer;
    s->n_embd = e;
    s->n_ff = f;
    s->n_head = e / RL_CAL_HEAD_DIM;
    s->n_head_kv = RL_CAL_N_HEAD_KV;
    s->n_vocab = RL_CAL_VOCAB;
}

static uint64_t round_quantum(double v)
{
    double q = floor(v / RL_CAL_ROW_QUANTUM + 0.5);
    return q < 1 ? RL_CAL_ROW_QUANTUM : (uint64_t)q * RL_CAL_ROW_QUANTUM;
}

bool rl_cal_shape_for(uint32_t type, uint64_t target, uint64_t n_layer, rl_cal_shape *out)
{
    const rl_ggml_type_info *t = rl_ggml_type_get(type);
    if (!t)
        return false;
    double bpe = (double)t->type_size / (double)t->blck; /* bytes per element */
    double elements = (double)target / bpe;
    /* with n_ff = 3 n_embd a layer holds about 11 n_embd^2 elements */
    double nl = (double)n_layer;
    uint64_t e = round_quantum(sqrt(elements / (11.0 * nl)));
    /* n_ff from what is left once the attention matrices and the head are counted */
    double attn =
        2.0 * (double)e * (double)e + 2.0 * (double)e * RL_CAL_N_HEAD_KV * RL_CAL_HEAD_DIM;
    double rest = elements - nl * attn - (double)RL_CAL_VOCAB * (double)e;
    uint64_t f = round_quantum(rest / (3.0 * nl * (double)e));
    base_shape(out, e, f, n_layer);
    return true;
}

/* The shape at layers layers nearest target, grown until it holds at least least bytes. */
static bool sized_shape(uint32_t type, uint64_t target, uint64_t least, uint64_t layers,
                        rl_cal_shape *s)
{
    if (!rl_cal_shape_for(type, target > least ? target : least, layers, s))
        return false;
    while (rl_cal_shape_bytes(s, type) < least) {
        if (s->n_ff < 4 * s->n_embd)
            s->n_ff += RL_CAL_ROW_QUANTUM;
        else
            base_shape(s, s->n_embd + RL_CAL_ROW_QUANTUM, s->n_ff, layers);
    }
    return true;
}

bool rl_cal_plan_shapes(uint32_t type, uint64_t llc, rl_cal_shape shapes[RL_CAL_N_ROLES])
{
    uint64_t targets[RL_CAL_N_ROLES];
    rl_cal_targets(llc, targets);
    uint64_t prev = 0;
    static const int sized[] = {RL_CAL_SMALL, RL_CAL_MID, RL_CAL_STREAM};
    for (size_t i = 0; i < sizeof sized / sizeof sized[0]; i++) {
        int r = sized[i];
        uint64_t layers = r == RL_CAL_STREAM ? RL_CAL_STREAM_LAYERS : RL_CAL_N_LAYER;
        if (!sized_shape(type, targets[r], 2 * prev, layers, &shapes[r]))
            return false;
        prev = rl_cal_shape_bytes(&shapes[r], type);
    }
    uint64_t mid = rl_cal_shape_bytes(&shapes[RL_CAL_MID], type);
    if (!sized_shape(type, prev, 2 * mid, RL_CAL_WIDE_LAYERS, &shapes[RL_CAL_WIDE]))
        return false;
    shapes[RL_CAL_DEEP] = shapes[RL_CAL_SMALL];
    shapes[RL_CAL_DEEP].n_layer = RL_CAL_DEEP_LAYERS;
    return true;
}

uint64_t rl_cal_shape_matrices(const rl_cal_shape *s)
{
    return 7 * s->n_layer + 1;
}

uint64_t rl_cal_shape_rows(const rl_cal_shape *s)
{
    uint64_t kv = s->n_head_kv * RL_CAL_HEAD_DIM;
    return s->n_layer * (3 * s->n_embd + 2 * kv + 2 * s->n_ff) + s->n_vocab;
}

bool rl_cal_matrix_split(double wa, double na, double us_a, double wb, double nb, double us_b,
                         double *per_byte, double *per_matrix)
{
    double det = wa * nb - wb * na;
    if (!(det != 0) || !isfinite(det) || !(na > 0))
        return false;
    double c = (us_a * nb - us_b * na) / det, r = (wa * us_b - wb * us_a) / det;
    if (fabs(r) <= 1e-6 * us_a / na)
        r = 0;
    if (!(c > 0) || !(r >= 0) || !isfinite(c) || !isfinite(r))
        return false;
    *per_byte = c;
    *per_matrix = r;
    return true;
}

void rl_cal_synth_config(const rl_cal_shape *s, uint32_t type, rl_synth_config *out)
{
    const rl_synth_preset *p = rl_synth_preset_find("tiny");
    *out = p->cfg; /* the llama architecture, an untied head */
    out->n_layer = s->n_layer;
    out->n_embd = s->n_embd;
    out->n_ff = s->n_ff;
    out->n_head = s->n_head;
    out->n_head_kv = s->n_head_kv;
    out->n_vocab = s->n_vocab;
    out->tied = false;
    out->type = rl_synth_type_name(type) ? type : RL_GGML_F16;
    out->seed = RL_CAL_SEED;
}
