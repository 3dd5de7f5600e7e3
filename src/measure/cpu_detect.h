/* SPDX-License-Identifier: MIT */
/* cpu_detect.h: which CPU core designs this machine has, from /proc/cpuinfo text, mapped onto
 * the cores the format study measured (data/format_matrix.csv) with an evidence level each.
 *
 * Arm: "CPU implementer" / "CPU part" lines (implementer 0x41 = Arm Ltd: 0xd0b Cortex-A76,
 * 0xd0d A77, 0xd41 A78, 0xd0c Neoverse-N1, 0xd47 A710, 0xd4d A715, 0xd81 A720, ...), distinct
 * parts in kernel order; the board from a "Model" line (Raspberry Pi kernels print one) or,
 * when reading the real /proc/cpuinfo, /proc/device-tree/model.
 * x86: "vendor_id", "cpu family", "model", "model name" and the "hybrid_cpu" flag (set by
 * Linux on parts with more than one core type).
 *
 * Rules (llama-roofline.md section 2.7, made exact with the CPUID family/model):
 *   Raspberry Pi 5 board -> cortex-a76 exact; a Cortex-A76 part -> cortex-a76 same core design;
 *   A77, A78, Neoverse-N1, A710, A715, A720 -> cortex-a76 related (extrapolated); A53, A55,
 *   A510, A520 and anything else -> nothing.
 *   Intel family 6, Alder Lake (models 151, 154) -> Golden Cove P-core; with the hybrid flag
 *   also Gracemont E-core (one block per core type); "12700H" in the name -> exact, else same
 *   core design. Alder Lake-N (190): Gracemont only. Raptor Lake (183, 186, 191): Raptor Cove
 *   P-core related to Golden Cove, Gracemont same design. Sapphire Rapids (143): Golden Cove,
 *   same design. Core Ultra and every other Intel part, every AMD part (the Zen generation is
 *   named in the detail) and anything unknown -> nothing: the caller prints the recipe.
 *
 * Nothing here allocates; results are fixed-size and NUL-terminated. */
#ifndef RL_CPU_DETECT_H
#define RL_CPU_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_error.h"

#define RL_CPU_MAX_CORES 4
#define RL_CPUINFO_MAX_BYTES ((size_t)4 << 20)

typedef enum {
    RL_EV_EXACT,   /* the machine measured (or the same board) */
    RL_EV_SAME,    /* a different chip with the same core design */
    RL_EV_RELATED, /* a close relative: extrapolated */
    RL_EV_FORCED,  /* named with --core */
    RL_EV_NONE     /* nothing measured is close */
} rl_evidence;

typedef struct {
    char core[32];  /* a matrix core id: "cortex-a76", "golden-cove", "gracemont" */
    char label[64]; /* what this machine has: "Arm Cortex-A76 (Raspberry Pi 5)" */
    rl_evidence evidence;
    char why[256];
} rl_cpu_core;

typedef struct {
    char cpu[128];     /* model name, or the Arm part names joined; "" unknown */
    char board[128];   /* "" unknown */
    char isa[16];      /* "aarch64", "x86_64" or "" */
    char vendor[32];   /* "GenuineIntel", "AuthenticAMD", "Arm" ... */
    int family, model; /* x86 CPUID family/model; -1 unknown */
    int logical;       /* processor entries */
    bool hybrid;       /* more than one core type */
    rl_cpu_core cores[RL_CPU_MAX_CORES];
    int n_cores; /* 0: nothing measured is close */
    char detail[512];
} rl_cpu_info;

/* Detect from cpuinfo text (board: a device-tree model string or NULL). Never fails. */
void rl_cpu_detect_text(const char *text, size_t len, const char *board, rl_cpu_info *out);
/* Read path (NULL: /proc/cpuinfo and, for Arm, /proc/device-tree/model) and detect. RL_EINPUT
 * naming the file when it cannot be read (only for an explicit path; an unreadable
 * /proc/cpuinfo gives an unknown machine). */
rl_status rl_cpu_detect_file(const char *path, rl_cpu_info *out, rl_error *err);

/* "exact", "same-uarch", "related", "forced", "unknown" */
const char *rl_evidence_name(rl_evidence e);
/* The sentence for people: "measured on this machine", "measured on the same core design in
 * a different chip", "EXTRAPOLATED from a related core, not measured on yours", "you named
 * this core, so it may not be the one in this machine", "not measured, and not close to
 * anything measured". */
const char *rl_evidence_text(rl_evidence e);

#endif
