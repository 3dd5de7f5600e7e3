/* SPDX-License-Identifier: MIT */
/* synth_ladder.h: the synthetic models `diagnose` measures when there is no model to measure
 * (--synth, or nothing found anywhere): one model shape at three weight types, so the fit
 * spans a range of bytes per token, written once into the cache and reused by every later run.
 *
 * The ladder: the qwen2.5-0.5b preset (Qwen2.5-0.5B's shapes, with a separate output head) at
 * Q4_0, Q8_0 and F16, seed 1. Decode streams 278, 525 and 988 MB per token (3.55x from the
 * smallest to the largest; files 358, 673 and 1264 MB, 2.3 GB together), written in about 1, 2
 * and 4 s on a 2-core VM. Why this one:
 *   - Every rung must stream from RAM, not from a cache: 278 MB is well past the last-level
 *     cache of any CPU core cluster (32-96 MB per CCD on EPYC, 36 MB on a desktop part; this
 *     2-core VM even reports 508 MiB of L3). A ladder of a few MB (the tiny preset) would
 *     measure cache bandwidth and give a confident, wrong answer.
 *   - It is quick where it has to be: on this 2-core EPYC VM llama-bench -p 128 -n 64 -r 1
 *     takes about 6, 6 and 9 s per thread count for the three rungs (measured alone), and
 *     `diagnose --synth --quick` with a warm cache answered in 72 s with other jobs loading
 *     the machine (bench/diagnose-time: ceiling 2 s, models 25 + 11 + 35 s, the tool 0.2 s);
 *     the cold first run, writing the 2.3 GB, in 129 s. The full default (-n 128, 3
 *     repetitions, the full ceiling) took 5.8 minutes there, most of it the 2-thread runs
 *     competing with the other jobs for the 2 cores; the fit had R^2 0.987.
 *   - The bigger presets (qwen2.5-1.5b: 3.6 GB at F16, llama-3.2-1b: 2.5 GB) double the disk
 *     and the time for no better fit; three types of one shape keep everything but the bytes
 *     equal, which is what the fit is about.
 *   - --quick uses the same ladder: what --quick saves is llama-bench time (fewer threads,
 *     tokens and repetitions), and one set of files serves both.
 *
 * Files: CACHE/synth/<preset>-<TYPE>-seed<seed>.gguf, CACHE = ${LLAMA_ROOFLINE_CACHE:-$HOME/
 * .cache/llama-roofline} (rl_cache_root). A cached file is reused when it is a regular file of
 * exactly the planned size whose header (metadata and tensor table) is byte for byte the
 * planned one and which parses (rl_gguf_model_load); otherwise it is written again. Before
 * anything is written, the bytes of every rung to write are checked against the free space of
 * the cache's file system (nothing is written when they do not all fit); each file is written
 * by rl_synth_write (atomic: a temporary file renamed into place).
 *
 * For tests only, a preset_override (diagnose passes $LLAMA_ROOFLINE_SYNTH_PRESET) replaces the
 * preset; such a ladder may fit in the caches, and diagnose says so.
 *
 * Ownership: rl_synth_ladder owns its strings; free with rl_synth_ladder_free (safe on a zeroed
 * or freed value). */
#ifndef RL_SYNTH_LADDER_H
#define RL_SYNTH_LADDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rl_error.h"

#define RL_LADDER_N 3
#define RL_LADDER_PRESET "qwen2.5-0.5b"
#define RL_LADDER_SEED 1

typedef struct {
    char *dir;                /* CACHE/synth */
    char *paths[RL_LADDER_N]; /* smallest first */
    uint64_t file_bytes[RL_LADDER_N];
    bool written[RL_LADDER_N]; /* written by this call; false: reused from the cache */
    const char *preset;        /* static */
} rl_synth_ladder;

/* Make sure the ladder is in cache_root/synth, writing what is missing or unusable. note (may
 * be NULL) gets rl_synth_write's planned-size line per file written; progress shows the
 * writes (rl_progress). RL_EINPUT for an unknown preset_override; RL_EOUTPUT when the cache
 * cannot be created or written or lacks the free space (nothing written then); RL_EINTERRUPTED
 * (the file being written is removed, finished ones are kept). cache_root NULL: RL_EOUTPUT
 * asking for HOME or LLAMA_ROOFLINE_CACHE. */
rl_status rl_synth_ladder_ensure(const char *cache_root, const char *preset_override, FILE *note,
                                 bool progress, rl_synth_ladder *out, rl_error *err);
void rl_synth_ladder_free(rl_synth_ladder *l);

#endif
