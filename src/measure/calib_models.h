/* SPDX-License-Identifier: MIT */
/* calib_models.h: the calibration's single-type models on disk (owner: calibrate).
 *
 * One model per (type, shape) of model/calib_plan.h, made once into a cache directory (the
 * caller's CACHE/calibration-models) and reused:
 *   - a type synth writes (F32, F16, BF16, Q8_0, Q4_0): DIR/<TYPE>-<shape>-seed1.gguf, reused
 *     when it is byte for byte the planned header at the planned size and parses
 *     (rl_synth_file_matches), else written again (rl_synth_write: atomic, the free space
 *     checked first);
 *   - a type llama-quantize makes: a synth F16 of the shape is written to a hidden temporary
 *     file beside the target, `llama-quantize --pure SRC TMP FTYPE` makes the model
 *     (rl_quantize_file), the F16 is removed. The name carries a key of the llama-quantize
 *     binary (rl_quantize_key: path, size, mtime), DIR/<TYPE>-<shape>-seed1-q<key>.gguf, so a
 *     new llama.cpp quantizes again. A cached file is reused when every tensor of it is the type
 *     or F32 (the norms) and it streams exactly the bytes the plan computes.
 *   - llama-quantize refusing (e.g. "this quantization requires an importance matrix"), or
 *     writing tensors of another type or size than planned: the type is not calibrated, with
 *     llama-quantize's own words (or that) as the reason; the reason is kept in
 *     DIR/<TYPE>-<shape>-seed1-q<key>.refused and read from there next time (the same
 *     llama-quantize is not asked again).
 * <shape> is L<layers>-e<n_embd>-f<n_ff>-kv<heads>-v<vocab>.
 *
 * Ownership: rl_cal_model holds a malloc'd path; rl_cal_model_free releases it. */
#ifndef RL_CALIB_MODELS_H
#define RL_CALIB_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rl_error.h"
#include "model/calib_plan.h"

typedef struct {
    char *path;        /* the model; NULL when the type is not calibrated (refused) */
    bool made;         /* written by this call (synth or llama-quantize), not reused */
    char refused[640]; /* not calibrated: llama-quantize's reason; "" otherwise */
    uint64_t bytes;    /* streamed bytes per token (the plan's, checked against the file) */
    double seconds;    /* wall time spent making it (0 when reused) */
} rl_cal_model;

/* The file name (no directory) of type t's model of shape s; quantize_key is
 * rl_quantize_key(llama-quantize) for a type llama-quantize makes (ignored otherwise). suffix
 * ".gguf" or ".refused". Written into buf (cap bytes, always terminated). */
void rl_cal_model_name(const rl_cal_type *t, const rl_cal_shape *s, uint64_t quantize_key,
                       const char *suffix, char *buf, size_t cap);

/* Make sure type t's model of shape s is in dir (created), writing or quantizing it when it is
 * missing or unusable. quantize_bin: llama-quantize, needed only for RL_CAL_QUANTIZE types
 * (RL_EMISSING when NULL for one). A refusal is RL_OK with out->refused set and out->path NULL.
 * RL_EOUTPUT when dir or a file cannot be written (too little space), RL_EINTERRUPTED (no
 * partial file is left), RL_EINPUT for a type nothing makes (RL_CAL_NONE). */
rl_status rl_cal_model_ensure(const char *dir, const rl_cal_type *t, const rl_cal_shape *s,
                              const char *quantize_bin, rl_cal_model *out, rl_error *err);
void rl_cal_model_free(rl_cal_model *m);

#endif
