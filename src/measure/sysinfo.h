/* SPDX-License-Identifier: MIT */
/* sysinfo.h: what machine a measurement was taken on (owner: membw; reused by the bundle).
 *
 * rl_sysinfo_collect fills a plain struct from /proc, /sys, uname and sysconf and never fails:
 * every field it cannot read stays "unknown" (empty string, -1, or 0 for byte counts) and comes
 * out as JSON null. rl_sysinfo_collect_at reads the same files below another root directory, so
 * tests can feed it a synthetic tree (uname, sysconf and cpuid are then not consulted).
 * rl_sysinfo_to_json returns a new cJSON object that the caller owns (cJSON_Delete); NULL only
 * when out of memory. Nothing else allocates. Linux-first; other systems degrade to unknown. */
#ifndef RL_SYSINFO_H
#define RL_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define RL_SYSINFO_MAX_CACHES 8
#define RL_SYSINFO_MAX_CPUS 1024
#define RL_SYSINFO_FLAGS_CAP 4096 /* the CPU's feature flags line, cut there */

typedef struct {
    int level;           /* 1, 2, 3, ... */
    char type[16];       /* "Data", "Instruction", "Unified" */
    uint64_t size_bytes; /* 0 unknown */
    int shared_cpus;     /* logical CPUs sharing one instance; -1 unknown */
} rl_cache_info;

typedef struct {
    char os[32];         /* uname sysname, e.g. "Linux" */
    char kernel[128];    /* uname release */
    char arch[32];       /* uname machine, e.g. "x86_64" */
    char cpu_model[256]; /* /proc/cpuinfo model name (or Hardware / Model / device-tree model) */
    char cpu_flags[RL_SYSINFO_FLAGS_CAP]; /* its first "flags" (x86) or "Features" (Arm) line, as
                                             the kernel lists them; "" unknown */
    int logical_cores;                    /* online logical CPUs; -1 unknown */
    int physical_cores;   /* distinct (package, core) pairs among them; -1 unknown */
    int packages;         /* sockets; -1 unknown */
    int numa_nodes;       /* -1 unknown */
    int threads_per_core; /* logical / physical, -1 unknown */
    rl_cache_info caches[RL_SYSINFO_MAX_CACHES];
    int n_caches;
    uint64_t llc_bytes;           /* largest data/unified cache level on cpu0; 0 unknown */
    uint64_t ram_bytes;           /* MemTotal; 0 unknown */
    uint64_t ram_available_bytes; /* MemAvailable at collection time; 0 unknown */
    char governor[32];      /* cpufreq scaling_governor of cpu0; "" unknown (e.g. in most VMs) */
    char thp[32];           /* transparent_hugepage/enabled selection: always, madvise, never */
    int smt_active;         /* /sys/devices/system/cpu/smt/active: 1, 0, -1 unknown */
    int is_vm;              /* 1 virtual machine, 0 bare metal, -1 unknown */
    char hypervisor[64];    /* "KVM", "VMware", "Xen", ... when known */
    char product_name[128]; /* DMI product name */
} rl_sysinfo;

/* Collect from the running system. Never fails. */
void rl_sysinfo_collect(rl_sysinfo *si);
/* Collect from files below root (e.g. a test tree holding proc/ and sys/). root NULL or "" is
 * the running system. Never fails. */
void rl_sysinfo_collect_at(const char *root, rl_sysinfo *si);

/* The record as a new JSON object (caller owns); unknown fields are null, but for cpu_flags,
 * which is absent when unknown (imported bundles). */
cJSON *rl_sysinfo_to_json(const rl_sysinfo *si);

/* One line for humans: "<cpu>, P physical / L logical cores, X GiB RAM, LLC Y MiB, ...". */
void rl_sysinfo_describe(const rl_sysinfo *si, char *buf, size_t len);

/* Logical CPUs this process may run on, ordered for pinning: one CPU per physical core first
 * (lowest-numbered sibling, cores in CPU-number order), then the remaining SMT siblings.
 * Writes at most max entries; returns how many, 0 if the affinity mask cannot be read.
 * *n_physical (if not NULL) receives how many of them are first-round (distinct cores). */
int rl_sysinfo_cpu_order(int *cpus, int max, int *n_physical);

/* Parse a sysfs cache size ("48K", "2048K", "32M", "1G", "512"); 0 on junk. */
uint64_t rl_sysinfo_parse_size(const char *s);

#endif
