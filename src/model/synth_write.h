/* SPDX-License-Identifier: MIT */
/* synth_write.h: write a planned synthetic model (synth.h) to a file, a pipe or a device.
 *
 * The file is streamed chunk by chunk (bounded memory: two 8 MiB buffers) through rl_atomic_*
 * (rl_file.h): a unique ".NAME.XXXXXX" temporary file in the target's directory, fsync'd and
 * renamed into place when complete, removed on any failure or interrupt. A pipe or character
 * device (/dev/null, -o /dev/stdout into a pipe) is written directly.
 *
 * Before a byte is written the planned size is checked against the free space of the file
 * system that will hold the file (fstatvfs of the new temporary file, which lives in the
 * target's directory): a model that cannot fit is refused with RL_EOUTPUT. When the free
 * space cannot be read the check is skipped (a failing write is still RL_EOUTPUT); a pipe or
 * device gets none. Opening a FIFO waits for its reader; a signal ends that wait too.
 *
 * Interrupts: the generator thread blocks SIGINT and SIGTERM, so the signal reaches the
 * calling thread, whose blocked write() returns EINTR; the write loop then sees rl_interrupted
 * and the call returns RL_EINTERRUPTED with the temporary file removed. Nothing returned is
 * allocated. */
#ifndef RL_SYNTH_WRITE_H
#define RL_SYNTH_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rl_error.h"
#include "model/synth.h"

typedef struct {
    bool progress; /* progress on stderr (rl_progress: a terminal or LLAMA_ROOFLINE_PROGRESS) */
    FILE *note;    /* gets one line with the planned size (and the free space) once the space
                      check has passed, before any byte is written; NULL: none */
} rl_synth_write_opts;

/* Write the plan's file to path. RL_EOUTPUT naming path when it cannot be written (a
 * directory, an unwritable place, too little free space, a failed write); RL_EINTERRUPTED when
 * rl_interrupted is set; the temporary file is gone after every failure. opts may be NULL. */
rl_status rl_synth_write(const rl_synth_plan *p, const char *path, const rl_synth_write_opts *opts,
                         rl_error *err);

/* The free-space rule: RL_OK when need <= avail, else RL_EOUTPUT with one line naming path,
 * the planned size and the free space. */
rl_status rl_synth_space_check(const char *path, uint64_t need, uint64_t avail, rl_error *err);

/* True when path holds exactly what plan p would write, as far as can be seen without reading
 * the tensor data: a regular file of the planned size, the planned header bytes, a clean parse
 * (rl_gguf_model_load). The synth ladder and the calibration models reuse a cached file by it. */
bool rl_synth_file_matches(const char *path, const rl_synth_plan *p);

#endif
