/* SPDX-License-Identifier: MIT */
/* sysinfo.c: collect the machine description recorded next to every measurement (owner:
 * membw). Reads /proc and /sys (optionally below a test root), uname, sysconf and, on x86, the
 * hypervisor cpuid leaf. Every probe is optional; see sysinfo.h for ownership. */
#include "measure/sysinfo.h"

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define RL_SYSINFO_X86 1
#endif

/* ------------------------------------------------------------ small file helpers */

static void copy_str(char *dst, size_t len, const char *src)
{
    if (len == 0)
        return;
    size_t n = src ? strlen(src) : 0;
    if (n >= len)
        n = len - 1; /* truncation is fine: these are descriptive strings */
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t lead = 0;
    while (s[lead] && isspace((unsigned char)s[lead]))
        lead++;
    if (lead)
        memmove(s, s + lead, n - lead + 1);
}

/* Read the first len-1 bytes of root/path into buf (NUL bytes become spaces), trimmed. */
static bool read_text(const char *root, const char *path, char *buf, size_t len)
{
    char full[1024];
    snprintf(full, sizeof full, "%s%s", root, path);
    FILE *f = fopen(full, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
    trim(buf);
    return n > 0;
}

static bool read_long(const char *root, const char *path, long *out)
{
    char buf[64];
    if (!read_text(root, path, buf, sizeof buf))
        return false;
    char *end = NULL;
    long v = strtol(buf, &end, 10);
    if (end == buf)
        return false;
    *out = v;
    return true;
}

/* Parse a sysfs CPU list ("0-3,8,10-11") into a bitmap; returns the number of CPUs, -1 on junk. */
static int parse_cpulist(const char *s, unsigned char *map, int max)
{
    int count = 0;
    if (map)
        memset(map, 0, (size_t)max);
    while (*s) {
        while (*s == ',' || isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (!isdigit((unsigned char)*s))
            return -1;
        char *end = NULL;
        long a = strtol(s, &end, 10), b = a;
        s = end;
        if (*s == '-') {
            s++;
            if (!isdigit((unsigned char)*s))
                return -1;
            b = strtol(s, &end, 10);
            s = end;
        }
        if (a < 0 || b < a)
            return -1;
        for (long c = a; c <= b; c++) {
            if (c < max && map && !map[c]) {
                map[c] = 1;
                count++;
            } else if (!map) {
                count++;
            }
        }
    }
    return count;
}

uint64_t rl_sysinfo_parse_size(const char *s)
{
    if (!s)
        return 0;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    uint64_t mult = 1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': mult = 1024ULL; break;
    case 'M': mult = 1024ULL * 1024; break;
    case 'G': mult = 1024ULL * 1024 * 1024; break;
    default: return 0;
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' || end[1] == 'i'))
        return 0;
    if (v > UINT64_MAX / mult)
        return 0;
    return (uint64_t)v * mult;
}

/* ------------------------------------------------------------ /proc/cpuinfo */

typedef struct {
    char model[256];
    char flags[RL_SYSINFO_FLAGS_CAP]; /* the first "flags" (x86) or "Features" (Arm) line */
    bool has_flags;                   /* saw an x86 "flags" line */
    bool hypervisor;                  /* ... containing the hypervisor bit */
    int pairs;                        /* distinct (physical id, core id) pairs, -1 if none seen */
    int packages;
} cpuinfo_scan;

static bool has_word(const char *list, const char *word)
{
    size_t w = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += w) {
        bool start = p == list || isspace((unsigned char)p[-1]);
        bool stop = p[w] == '\0' || isspace((unsigned char)p[w]);
        if (start && stop)
            return true;
    }
    return false;
}

static void scan_cpuinfo(const char *root, cpuinfo_scan *c)
{
    memset(c, 0, sizeof *c);
    c->pairs = -1;
    c->packages = -1;
    char full[1024];
    snprintf(full, sizeof full, "%s/proc/cpuinfo", root);
    FILE *f = fopen(full, "r");
    if (!f)
        return;
    static const char *const model_keys[] = {"model name", "Model name", "Hardware", "Model"};
    int model_rank = 99;
    enum { MAXP = 4096 };
    long *pkg = calloc(MAXP, sizeof *pkg), *core = calloc(MAXP, sizeof *core);
    int npairs = 0;
    long cur_pkg = -1;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *key = line, *val = colon + 1;
        trim(key);
        trim(val);
        for (int k = 0; k < 4; k++)
            if (k < model_rank && strcmp(key, model_keys[k]) == 0 && *val) {
                copy_str(c->model, sizeof c->model, val);
                model_rank = k;
            }
        if ((strcmp(key, "flags") == 0 || strcmp(key, "Features") == 0) && !c->flags[0])
            copy_str(c->flags, sizeof c->flags, val);
        if (strcmp(key, "flags") == 0) {
            c->has_flags = true;
            if (has_word(val, "hypervisor"))
                c->hypervisor = true;
        } else if (strcmp(key, "physical id") == 0) {
            cur_pkg = strtol(val, NULL, 10);
        } else if (strcmp(key, "core id") == 0 && pkg && core) {
            long cid = strtol(val, NULL, 10);
            bool seen = false;
            for (int i = 0; i < npairs && !seen; i++)
                seen = pkg[i] == cur_pkg && core[i] == cid;
            if (!seen && npairs < MAXP) {
                pkg[npairs] = cur_pkg;
                core[npairs] = cid;
                npairs++;
            }
        }
    }
    fclose(f);
    if (npairs > 0 && pkg) {
        c->pairs = npairs;
        int np = 0;
        for (int i = 0; i < npairs; i++) {
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = pkg[j] == pkg[i];
            np += !seen;
        }
        c->packages = np;
    }
    free(pkg);
    free(core);
}

/* ------------------------------------------------------------ topology */

/* Package and core id of one CPU from sysfs; false if unreadable. */
static bool cpu_topology(const char *root, int cpu, long *pkg, long *core)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
    if (!read_long(root, path, core))
        return false;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    if (!read_long(root, path, pkg))
        *pkg = 0;
    return true;
}

/* "nodeN": one NUMA node's directory under /sys/devices/system/node. */
static bool is_node_name(const char *name, void *ctx)
{
    (void)ctx;
    return strncmp(name, "node", 4) == 0 && isdigit((unsigned char)name[4]);
}

static void collect_topology(const char *root, bool real, rl_sysinfo *si, const cpuinfo_scan *ci)
{
    unsigned char *online = calloc(RL_SYSINFO_MAX_CPUS, 1);
    char buf[4096];
    int n = -1;
    if (online && read_text(root, "/sys/devices/system/cpu/online", buf, sizeof buf))
        n = parse_cpulist(buf, online, RL_SYSINFO_MAX_CPUS);
    if (n <= 0 && real) {
        long v = sysconf(_SC_NPROCESSORS_ONLN);
        n = v > 0 ? (int)v : -1;
        if (online)
            for (int c = 0; c < n && c < RL_SYSINFO_MAX_CPUS; c++)
                online[c] = 1;
    }
    si->logical_cores = n > 0 ? n : -1;

    /* physical cores: distinct (package, core) over online CPUs */
    long *pk = calloc(RL_SYSINFO_MAX_CPUS, sizeof *pk),
         *co = calloc(RL_SYSINFO_MAX_CPUS, sizeof *co);
    int pairs = 0, pkgs = 0;
    bool ok = online && pk && co && n > 0;
    for (int c = 0; ok && c < RL_SYSINFO_MAX_CPUS; c++) {
        if (!online[c])
            continue;
        long p, k;
        if (!cpu_topology(root, c, &p, &k)) {
            ok = false;
            break;
        }
        bool seen = false, seen_pkg = false;
        for (int i = 0; i < pairs; i++) {
            seen |= pk[i] == p && co[i] == k;
            seen_pkg |= pk[i] == p;
        }
        if (!seen) {
            pkgs += !seen_pkg;
            pk[pairs] = p;
            co[pairs] = k;
            pairs++;
        }
    }
    if (ok && pairs > 0) {
        si->physical_cores = pairs;
        si->packages = pkgs;
    } else if (ci->pairs > 0) {
        si->physical_cores = ci->pairs;
        si->packages = ci->packages;
    }
    if (si->physical_cores > 0 && si->logical_cores > 0 && si->physical_cores > si->logical_cores)
        si->physical_cores = si->logical_cores;
    if (si->physical_cores > 0 && si->logical_cores > 0)
        si->threads_per_core = (si->logical_cores + si->physical_cores - 1) / si->physical_cores;
    free(pk);
    free(co);
    free(online);

    char full[1024];
    snprintf(full, sizeof full, "%s/sys/devices/system/node", root);
    char **names;
    size_t nodes;
    rl_error e;
    if (rl_dir_list(full, is_node_name, NULL, SIZE_MAX, &names, &nodes, &e) == RL_OK) {
        rl_dir_names_free(names, nodes);
        si->numa_nodes = nodes > 0 ? (int)nodes : -1;
    }
}

static void collect_caches(const char *root, rl_sysinfo *si)
{
    for (int i = 0; i < 16 && si->n_caches < RL_SYSINFO_MAX_CACHES; i++) {
        char path[160], buf[256];
        long level;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_long(root, path, &level))
            continue;
        rl_cache_info *c = &si->caches[si->n_caches];
        memset(c, 0, sizeof *c);
        c->level = (int)level;
        c->shared_cpus = -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_text(root, path, buf, sizeof buf))
            copy_str(c->type, sizeof c->type, buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_text(root, path, buf, sizeof buf))
            c->size_bytes = rl_sysinfo_parse_size(buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list",
                 i);
        if (read_text(root, path, buf, sizeof buf)) {
            int k = parse_cpulist(buf, NULL, 0);
            c->shared_cpus = k > 0 ? k : -1;
        }
        si->n_caches++;
    }
    int best_level = 0;
    for (int i = 0; i < si->n_caches; i++) {
        const rl_cache_info *c = &si->caches[i];
        if (strcmp(c->type, "Instruction") == 0 || c->size_bytes == 0)
            continue;
        if (c->level > best_level || (c->level == best_level && c->size_bytes > si->llc_bytes)) {
            best_level = c->level;
            si->llc_bytes = c->size_bytes;
        }
    }
}

static void collect_memory(const char *root, bool real, rl_sysinfo *si)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/proc/meminfo", root);
    FILE *f = fopen(full, "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
                si->ram_bytes = (uint64_t)kb * 1024;
            else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                si->ram_available_bytes = (uint64_t)kb * 1024;
        }
        fclose(f);
    }
    if (si->ram_bytes == 0 && real) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            si->ram_bytes = (uint64_t)pages * (uint64_t)page;
    }
}

/* The word in brackets, e.g. "always [madvise] never" -> "madvise". */
static void bracketed(const char *s, char *out, size_t len)
{
    const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;
    if (a && b && b > a + 1) {
        size_t n = (size_t)(b - a - 1);
        if (n >= len)
            n = len - 1;
        memcpy(out, a + 1, n);
        out[n] = '\0';
    } else {
        copy_str(out, len, s);
    }
}

static void cpuid_hypervisor(char *out, size_t len)
{
#if RL_SYSINFO_X86
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
        return;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    static const struct {
        const char *sig, *name;
    } known[] = {
        {"KVMKVMKVM", "KVM"},          {"Microsoft Hv", "Hyper-V"}, {"VMwareVMware", "VMware"},
        {"XenVMMXenVMM", "Xen"},       {"TCGTCGTCGTCG", "QEMU"},    {"bhyve bhyve ", "bhyve"},
        {" lrpepyh  vr", "Parallels"}, {"ACRNACRNACRN", "ACRN"},    {"VBoxVBoxVBox", "VirtualBox"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strncmp(sig, known[i].sig, strlen(known[i].sig)) == 0) {
            copy_str(out, len, known[i].name);
            return;
        }
    for (int i = 0; i < 12; i++)
        if (!isprint((unsigned char)sig[i]))
            sig[i] = ' ';
    trim(sig);
    copy_str(out, len, sig);
#else
    (void)out;
    (void)len;
#endif
}

static bool looks_virtual(const char *s)
{
    static const char *const needles[] = {
        "KVM",       "QEMU",  "VMware",         "VirtualBox", "Virtual Machine",
        "Xen",       "Bochs", "Google Compute", "Amazon EC2", "OpenStack",
        "Parallels", "BHYVE", "Standard PC"};
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++)
        if (strstr(s, needles[i]))
            return true;
    return false;
}

static void collect_vm(const char *root, bool real, rl_sysinfo *si, const cpuinfo_scan *ci)
{
    char product[128] = "", vendor[128] = "", hyp[64] = "";
    read_text(root, "/sys/class/dmi/id/product_name", product, sizeof product);
    read_text(root, "/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    read_text(root, "/sys/hypervisor/type", hyp, sizeof hyp);
    copy_str(si->product_name, sizeof si->product_name, product);
    if (real)
        cpuid_hypervisor(si->hypervisor, sizeof si->hypervisor);
    if (ci->hypervisor || looks_virtual(product) || looks_virtual(vendor) || hyp[0]) {
        si->is_vm = 1;
        if (!si->hypervisor[0])
            copy_str(si->hypervisor, sizeof si->hypervisor,
                     hyp[0]                  ? hyp
                     : looks_virtual(vendor) ? vendor
                     : product[0]            ? product
                                             : "");
    } else if (ci->has_flags || product[0]) {
        si->is_vm = 0; /* x86 without the hypervisor bit, or DMI that names real hardware */
    }
}

void rl_sysinfo_collect_at(const char *root, rl_sysinfo *si)
{
    memset(si, 0, sizeof *si);
    si->logical_cores = si->physical_cores = si->packages = si->numa_nodes = -1;
    si->threads_per_core = si->smt_active = si->is_vm = -1;
    bool real = !root || !*root;
    if (real)
        root = "";

    if (real) {
        struct utsname u;
        if (uname(&u) == 0) {
            copy_str(si->os, sizeof si->os, u.sysname);
            copy_str(si->kernel, sizeof si->kernel, u.release);
            copy_str(si->arch, sizeof si->arch, u.machine);
        }
    }
    cpuinfo_scan ci;
    scan_cpuinfo(root, &ci);
    copy_str(si->cpu_model, sizeof si->cpu_model, ci.model);
    copy_str(si->cpu_flags, sizeof si->cpu_flags, ci.flags);
    if (!si->cpu_model[0]) {
        char buf[256];
        if (read_text(root, "/proc/device-tree/model", buf, sizeof buf) ||
            read_text(root, "/sys/firmware/devicetree/base/model", buf, sizeof buf))
            copy_str(si->cpu_model, sizeof si->cpu_model, buf);
    }
    collect_topology(root, real, si, &ci);
    collect_caches(root, si);
    collect_memory(root, real, si);

    char buf[256];
    if (read_text(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf, sizeof buf))
        copy_str(si->governor, sizeof si->governor, buf);
    if (read_text(root, "/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof buf))
        bracketed(buf, si->thp, sizeof si->thp);
    long smt;
    if (read_long(root, "/sys/devices/system/cpu/smt/active", &smt))
        si->smt_active = smt != 0;
    collect_vm(root, real, si, &ci);
}

void rl_sysinfo_collect(rl_sysinfo *si)
{
    rl_sysinfo_collect_at(NULL, si);
}

/* ------------------------------------------------------------ output */

static void add_int(cJSON *o, const char *key, long long v, bool known)
{
    if (known && v < 0)
        rl_json_add_i64(o, key, v);
    else
        rl_json_add_u64_or_null(o, key, (uint64_t)(known ? v : 0), known);
}

cJSON *rl_sysinfo_to_json(const rl_sysinfo *si)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    rl_json_add_str_or_null(o, "os", si->os);
    rl_json_add_str_or_null(o, "kernel", si->kernel);
    rl_json_add_str_or_null(o, "arch", si->arch);
    rl_json_add_str_or_null(o, "cpu", si->cpu_model);
    if (si->cpu_flags[0]) /* present when read (the calibration's key, bundle/calib.h) */
        rl_json_add_str(o, "cpu_flags", si->cpu_flags);
    add_int(o, "logical_cores", si->logical_cores, si->logical_cores > 0);
    add_int(o, "physical_cores", si->physical_cores, si->physical_cores > 0);
    add_int(o, "packages", si->packages, si->packages > 0);
    add_int(o, "numa_nodes", si->numa_nodes, si->numa_nodes > 0);
    add_int(o, "threads_per_core", si->threads_per_core, si->threads_per_core > 0);
    rl_json_add_tristate(o, "smt_active", si->smt_active);
    cJSON *caches = cJSON_AddArrayToObject(o, "caches");
    for (int i = 0; caches && i < si->n_caches; i++) {
        const rl_cache_info *c = &si->caches[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddNumberToObject(e, "level", c->level);
        rl_json_add_str_or_null(e, "type", c->type);
        add_int(e, "size_bytes", (long long)c->size_bytes, c->size_bytes > 0);
        add_int(e, "shared_cpus", c->shared_cpus, c->shared_cpus > 0);
        cJSON_AddItemToArray(caches, e);
    }
    add_int(o, "llc_bytes", (long long)si->llc_bytes, si->llc_bytes > 0);
    add_int(o, "ram_bytes", (long long)si->ram_bytes, si->ram_bytes > 0);
    add_int(o, "ram_available_bytes", (long long)si->ram_available_bytes,
            si->ram_available_bytes > 0);
    rl_json_add_str_or_null(o, "governor", si->governor);
    rl_json_add_str_or_null(o, "thp", si->thp);
    rl_json_add_tristate(o, "vm", si->is_vm);
    rl_json_add_str_or_null(o, "hypervisor", si->hypervisor);
    rl_json_add_str_or_null(o, "product_name", si->product_name);
    return o;
}

void rl_sysinfo_describe(const rl_sysinfo *si, char *buf, size_t len)
{
    char cores[64], ram[32], llc[32], vm[96];
    if (si->physical_cores > 0)
        snprintf(cores, sizeof cores, "%d physical / %d logical cores", si->physical_cores,
                 si->logical_cores);
    else if (si->logical_cores > 0)
        snprintf(cores, sizeof cores, "%d logical cores", si->logical_cores);
    else
        snprintf(cores, sizeof cores, "cores unknown");
    if (si->ram_bytes)
        rl_snprintf(ram, sizeof ram, "%.1f GiB RAM",
                    (double)si->ram_bytes / (1024.0 * 1024 * 1024));
    else
        snprintf(ram, sizeof ram, "RAM unknown");
    if (si->llc_bytes)
        rl_snprintf(llc, sizeof llc, "LLC %.0f MiB", (double)si->llc_bytes / (1024.0 * 1024));
    else
        snprintf(llc, sizeof llc, "LLC unknown");
    if (si->is_vm == 1)
        snprintf(vm, sizeof vm, "VM%s%s%s", si->hypervisor[0] ? " (" : "", si->hypervisor,
                 si->hypervisor[0] ? ")" : "");
    else
        snprintf(vm, sizeof vm, "%s", si->is_vm == 0 ? "bare metal" : "VM unknown");
    snprintf(buf, len, "%s, %s, %s, %s, THP %s, governor %s, SMT %s, %s",
             si->cpu_model[0] ? si->cpu_model : "unknown CPU", cores, ram, llc,
             si->thp[0] ? si->thp : "unknown", si->governor[0] ? si->governor : "unknown",
             si->smt_active < 0 ? "unknown"
             : si->smt_active   ? "on"
                                : "off",
             vm);
}

/* ------------------------------------------------------------ pinning order */

int rl_sysinfo_cpu_order(int *cpus, int max, int *n_physical)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (n_physical)
        *n_physical = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || max <= 0)
        return 0;
    int allowed[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            allowed[n++] = c;
    long pk[CPU_SETSIZE], co[CPU_SETSIZE];
    bool known[CPU_SETSIZE];
    for (int i = 0; i < n; i++)
        known[i] = cpu_topology("", allowed[i], &pk[i], &co[i]);
    bool first[CPU_SETSIZE];
    int out = 0, phys = 0;
    for (int i = 0; i < n; i++) {
        first[i] = true;
        for (int j = 0; j < i && first[i]; j++)
            if (known[i] && known[j] && pk[i] == pk[j] && co[i] == co[j])
                first[i] = false;
        if (first[i]) {
            phys++;
            if (out < max)
                cpus[out++] = allowed[i];
        }
    }
    for (int i = 0; i < n; i++)
        if (!first[i] && out < max)
            cpus[out++] = allowed[i];
    if (n_physical)
        *n_physical = phys < max ? phys : max;
    return out;
}
