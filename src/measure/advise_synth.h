/* SPDX-License-Identifier: MIT */
/* advise_synth.h: the quantized format set `advise --measure --synth` measures.
 * A synthetic F16 of the preset (the synth ladder's F16 rung, CACHE/synth, reused when
 * unchanged), quantized by the real llama-quantize into each format, cached as
 * CACHE/quantized/<preset>-seed1-<key>-<FORMAT>.gguf, key = a hash of the llama-quantize binary
 * (path, size, mtime) and the F16 file (size, mtime), so a new llama.cpp or a rewritten F16
 * quantizes again. A cached file is reused when it parses and its label is the format. Each is
 * written to a temporary name and renamed into place (Ctrl-C removes the partial file).
 * "F16" among the formats is the F16 source itself.
 *
 * Ownership: rl_advise_set holds malloc'd paths, freed by rl_advise_set_free. */
#ifndef RL_ADVISE_SYNTH_H
#define RL_ADVISE_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rl_error.h"

#define RL_ADV_SYNTH_PRESET "qwen2.5-0.5b"
#define RL_ADV_SET_MAX 64

typedef struct {
    char *paths[RL_ADV_SET_MAX];
    int n;
} rl_advise_set;

/* llama-quantize: explicit (a file or a directory holding it), else beside llama-bench
 * (bench_path), else $PATH. RL_EMISSING saying how to get one; *out malloc'd. */
rl_status rl_advise_find_quantize(const char *explicit_path, const char *bench_path, char **out,
                                  rl_error *err);
rl_status rl_advise_synth_set(const char *preset, const char *const *formats, int n_formats,
                              const char *quantize_bin, rl_advise_set *out, rl_error *err);
void rl_advise_set_free(rl_advise_set *s);

/* The one llama-quantize call: `bin [--pure] src TMP fmt`, TMP a temporary name beside dst
 * renamed to dst when it succeeded (removed on any failure, Ctrl-C included). RL_EINPUT "llama-
 * quantize to FMT failed (exit N): <its stderr, summarised>" when it refused or failed,
 * RL_EINTERRUPTED, RL_EOUTPUT when the rename fails. Nothing is checked about the file written
 * (the callers do). */
rl_status rl_quantize_file(const char *bin, const char *src, const char *dst, const char *fmt,
                           bool pure, rl_error *err);
/* A key of the llama-quantize binary (path, size, mtime) and, when source is not NULL, of the
 * file quantized (path, size, mtime): a cached quantized file is named by it, so a new
 * llama.cpp or a rewritten source quantizes again. */
uint64_t rl_quantize_key(const char *quantize_bin, const char *source);

#endif
