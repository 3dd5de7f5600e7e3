/* SPDX-License-Identifier: MIT */
/* cpu_detect.c: /proc/cpuinfo text to core designs and evidence levels. See cpu_detect.h. */
#include "measure/cpu_detect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    unsigned part;
    const char *name;
} arm_part;

/* implementer 0x41 (Arm Ltd) */
static const arm_part arm_parts[] = {
    {0xd03, "Cortex-A53"},  {0xd04, "Cortex-A35"},  {0xd05, "Cortex-A55"},  {0xd07, "Cortex-A57"},
    {0xd08, "Cortex-A72"},  {0xd09, "Cortex-A73"},  {0xd0a, "Cortex-A75"},  {0xd0b, "Cortex-A76"},
    {0xd0c, "Neoverse-N1"}, {0xd0d, "Cortex-A77"},  {0xd40, "Neoverse-V1"}, {0xd41, "Cortex-A78"},
    {0xd44, "Cortex-X1"},   {0xd46, "Cortex-A510"}, {0xd47, "Cortex-A710"}, {0xd48, "Cortex-X2"},
    {0xd49, "Neoverse-N2"}, {0xd4d, "Cortex-A715"}, {0xd4e, "Cortex-X3"},   {0xd80, "Cortex-A520"},
    {0xd81, "Cortex-A720"}, {0xd82, "Cortex-X4"},
};

/* Cortex-A76 relatives: extrapolation, labelled so. A53/A55/A510/A520 are deliberately not
 * here: in-order little cores say nothing about an out-of-order A76. */
static const struct {
    unsigned part;
    const char *why;
} a76_relatives[] = {
    {0xd0d, "the Cortex-A77 is the A76's direct successor"},
    {0xd41, "the Cortex-A78 is two generations on from the A76"},
    {0xd0c, "the Neoverse-N1 is the A76's server sibling"},
    {0xd47, "the Cortex-A710 continues the A76 line (Armv9)"},
    {0xd4d, "the Cortex-A715 continues the A76 line (Armv9)"},
    {0xd81, "the Cortex-A720 continues the A76 line (Armv9)"},
};

#define MAX_PARTS 8

typedef struct {
    char vendor[32], model_name[128], board[128], hardware[64];
    int family, model;
    bool hybrid_flag;
    unsigned implementer;
    unsigned parts[MAX_PARTS];
    int n_parts;
    int processors;
} raw_info;

static void copy_trim(char *dst, size_t cap, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static bool parse_uint(const char *s, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 0);
    if (end == s || *end != '\0' || v > 0xffffffUL)
        return false;
    *out = (unsigned)v;
    return true;
}

static bool has_word(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl) {
        bool start = p == list || p[-1] == ' ' || p[-1] == '\t';
        bool end = p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\t';
        if (start && end)
            return true;
    }
    return false;
}

static void read_lines(const char *text, size_t len, raw_info *r)
{
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *line = text + pos;
        size_t n = end - pos;
        pos = end + 1;
        const char *colon = memchr(line, ':', n);
        if (!colon)
            continue;
        char key[64], val[1024];
        copy_trim(key, sizeof key, line, (size_t)(colon - line));
        copy_trim(val, sizeof val, colon + 1, n - (size_t)(colon - line) - 1);
        unsigned u;
        if (strcmp(key, "processor") == 0)
            r->processors++;
        else if (strcmp(key, "vendor_id") == 0)
            copy_trim(r->vendor, sizeof r->vendor, val, strlen(val));
        else if (strcmp(key, "model name") == 0 && !r->model_name[0])
            copy_trim(r->model_name, sizeof r->model_name, val, strlen(val));
        else if (strcmp(key, "cpu family") == 0 && r->family < 0 && parse_uint(val, &u))
            r->family = (int)u;
        else if (strcmp(key, "model") == 0 && r->model < 0 && parse_uint(val, &u))
            r->model = (int)u;
        else if (strcmp(key, "flags") == 0 && has_word(val, "hybrid_cpu"))
            r->hybrid_flag = true;
        else if (strcmp(key, "CPU implementer") == 0 && parse_uint(val, &u))
            r->implementer = u;
        else if (strcmp(key, "CPU part") == 0 && parse_uint(val, &u)) {
            bool seen = false;
            for (int i = 0; i < r->n_parts; i++)
                seen |= r->parts[i] == u;
            if (!seen && r->n_parts < MAX_PARTS)
                r->parts[r->n_parts++] = u;
        } else if (strcmp(key, "Model") == 0 && !r->board[0])
            copy_trim(r->board, sizeof r->board, val, strlen(val));
        else if (strcmp(key, "Hardware") == 0)
            copy_trim(r->hardware, sizeof r->hardware, val, strlen(val));
    }
}

static const char *arm_name(unsigned part)
{
    for (size_t i = 0; i < sizeof arm_parts / sizeof arm_parts[0]; i++)
        if (arm_parts[i].part == part)
            return arm_parts[i].name;
    return NULL;
}

static void add_core(rl_cpu_info *o, const char *core, const char *label, rl_evidence ev,
                     const char *why)
{
    if (o->n_cores >= RL_CPU_MAX_CORES)
        return;
    rl_cpu_core *c = &o->cores[o->n_cores++];
    rl_snprintf(c->core, sizeof c->core, "%s", core);
    rl_snprintf(c->label, sizeof c->label, "%s", label);
    rl_snprintf(c->why, sizeof c->why, "%s", why);
    c->evidence = ev;
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (strncasecmp(p, needle, n) == 0)
            return true;
    return false;
}

static void detect_arm(const raw_info *r, rl_cpu_info *o)
{
    rl_snprintf(o->isa, sizeof o->isa, "aarch64");
    size_t used = 0;
    o->cpu[0] = '\0';
    for (int i = 0; i < r->n_parts; i++) {
        char nm[32];
        const char *name = r->implementer == 0x41 ? arm_name(r->parts[i]) : NULL;
        if (!name) {
            rl_snprintf(nm, sizeof nm, "part 0x%03x (implementer 0x%02x)", r->parts[i],
                        r->implementer);
            name = nm;
        }
        int w = rl_snprintf(o->cpu + used, sizeof o->cpu - used, "%s%s", i ? ", " : "", name);
        if (w > 0 && (size_t)w < sizeof o->cpu - used)
            used += (size_t)w;
    }
    rl_snprintf(o->vendor, sizeof o->vendor, "%s",
                r->implementer == 0x41 ? "Arm" : (r->implementer ? "other Arm licensee" : ""));
    o->hybrid = r->n_parts > 1;
    bool a76 = false;
    for (int i = 0; i < r->n_parts; i++)
        a76 |= r->implementer == 0x41 && r->parts[i] == 0xd0b;
    if (contains_ci(o->board, "raspberry pi 5")) {
        add_core(o, "cortex-a76", "Arm Cortex-A76 (Raspberry Pi 5)", RL_EV_EXACT,
                 "this is the board the study measured (Raspberry Pi 5, four Cortex-A76 cores)");
    } else if (a76) {
        add_core(o, "cortex-a76", "Arm Cortex-A76", RL_EV_SAME,
                 "the study measured Cortex-A76 cores in a Raspberry Pi 5; this chip has the same "
                 "core with its own memory system");
    } else {
        for (int i = 0; i < r->n_parts && o->n_cores == 0; i++)
            for (size_t k = 0; k < sizeof a76_relatives / sizeof a76_relatives[0]; k++)
                if (r->implementer == 0x41 && a76_relatives[k].part == r->parts[i]) {
                    add_core(o, "cortex-a76", arm_name(r->parts[i]), RL_EV_RELATED,
                             a76_relatives[k].why);
                    break;
                }
    }
    if (o->hybrid)
        rl_snprintf(o->detail, sizeof o->detail,
                    "%s. Only the core types named above have data; the others get no table.",
                    o->cpu);
    else
        rl_snprintf(o->detail, sizeof o->detail, "%s", o->cpu);
}

static void detect_intel(const raw_info *r, rl_cpu_info *o)
{
    char squash[128];
    size_t k = 0;
    for (const char *p = r->model_name; *p && k + 1 < sizeof squash; p++)
        if (*p != ' ' && *p != '-')
            squash[k++] = (char)tolower((unsigned char)*p);
    squash[k] = '\0';
    bool i12700h = strstr(squash, "12700h") != NULL;
    const char *shared = " P- and E-cores share one memory system; the operating system decides "
                         "which runs llama.cpp unless you pin it (taskset).";
    if (r->family != 6) {
        rl_snprintf(o->detail, sizeof o->detail,
                    "Intel family %d model %d: no core design the study measured", r->family,
                    r->model);
        return;
    }
    switch (r->model) {
    case 151: /* Alder Lake-S */
    case 154: /* Alder Lake-P/H/U */
        add_core(o, "golden-cove", "Intel Golden Cove (P-core)", i12700h ? RL_EV_EXACT : RL_EV_SAME,
                 i12700h ? "the study measured the P-cores of an i7-12700H"
                         : "Alder Lake P-cores are Golden Cove, the core the study measured in "
                           "an i7-12700H");
        if (r->hybrid_flag)
            add_core(o, "gracemont", "Intel Gracemont (E-core)", i12700h ? RL_EV_EXACT : RL_EV_SAME,
                     i12700h ? "the study measured the E-cores of an i7-12700H"
                             : "Alder Lake E-cores are Gracemont, the core the study measured in "
                               "an i7-12700H");
        o->hybrid = r->hybrid_flag;
        rl_snprintf(o->detail, sizeof o->detail, "Alder Lake (family 6 model %d)%s%s", r->model,
                    r->hybrid_flag ? ", hybrid:" : ", no E-cores reported (no hybrid_cpu flag)",
                    r->hybrid_flag ? shared : "");
        break;
    case 190: /* Alder Lake-N: E-cores only */
        add_core(o, "gracemont", "Intel Gracemont (E-core)", RL_EV_SAME,
                 "Alder Lake-N has only Gracemont E-cores, the E-core the study measured in an "
                 "i7-12700H");
        rl_snprintf(o->detail, sizeof o->detail, "Alder Lake-N (family 6 model 190), E-cores only");
        break;
    case 183: /* Raptor Lake-S */
    case 186: /* Raptor Lake-P */
    case 191: /* Raptor Lake-S refresh */
        add_core(o, "golden-cove", "Intel Raptor Cove (P-core)", RL_EV_RELATED,
                 "Raptor Cove is a Golden Cove derivative with more cache");
        if (r->hybrid_flag)
            add_core(o, "gracemont", "Intel Gracemont (E-core)", RL_EV_SAME,
                     "Raptor Lake E-cores are Gracemont, the E-core the study measured");
        o->hybrid = r->hybrid_flag;
        rl_snprintf(o->detail, sizeof o->detail, "Raptor Lake (family 6 model %d)%s%s", r->model,
                    r->hybrid_flag ? ", hybrid:" : "", r->hybrid_flag ? shared : "");
        break;
    case 143: /* Sapphire Rapids */
        add_core(o, "golden-cove", "Intel Golden Cove (server)", RL_EV_SAME,
                 "Sapphire Rapids cores are Golden Cove; its memory system (DDR5, many channels) "
                 "is not the laptop's the study measured");
        rl_snprintf(o->detail, sizeof o->detail, "Sapphire Rapids (family 6 model 143)");
        break;
    case 170: /* Meteor Lake */
    case 172:
    case 189: /* Lunar Lake */
    case 197: /* Arrow Lake */
    case 198:
        o->hybrid = r->hybrid_flag;
        rl_snprintf(o->detail, sizeof o->detail,
                    "Core Ultra (family 6 model %d): Redwood Cove / Lion Cove P-cores with "
                    "Crestmont / Skymont E-cores, none of which the study measured",
                    r->model);
        break;
    default:
        o->hybrid = r->hybrid_flag;
        rl_snprintf(o->detail, sizeof o->detail,
                    "Intel family 6 model %d: no core design the study measured", r->model);
    }
}

static const char *zen_name(int family, int model)
{
    if (family == 0x17)
        return model >= 0x30 ? "Zen 2" : "Zen or Zen+";
    if (family == 0x19)
        return (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
                       (model >= 0xa0 && model <= 0xaf)
                   ? "Zen 4"
                   : "Zen 3";
    if (family == 0x1a)
        return "Zen 5";
    return NULL;
}

void rl_cpu_detect_text(const char *text, size_t len, const char *board, rl_cpu_info *out)
{
    memset(out, 0, sizeof *out);
    raw_info r;
    memset(&r, 0, sizeof r);
    r.family = r.model = -1;
    if (text)
        read_lines(text, len, &r);
    out->family = r.family;
    out->model = r.model;
    out->logical = r.processors;
    if (board && *board)
        copy_trim(out->board, sizeof out->board, board, strlen(board));
    else
        rl_snprintf(out->board, sizeof out->board, "%s", r.board);
    if (r.n_parts > 0 && r.implementer) {
        detect_arm(&r, out);
        return;
    }
    rl_snprintf(out->cpu, sizeof out->cpu, "%s", r.model_name);
    rl_snprintf(out->vendor, sizeof out->vendor, "%s", r.vendor);
    if (strcmp(r.vendor, "GenuineIntel") == 0) {
        rl_snprintf(out->isa, sizeof out->isa, "x86_64");
        detect_intel(&r, out);
    } else if (strcmp(r.vendor, "AuthenticAMD") == 0 || strcmp(r.vendor, "HygonGenuine") == 0) {
        rl_snprintf(out->isa, sizeof out->isa, "x86_64");
        const char *zen = zen_name(r.family, r.model);
        rl_snprintf(out->detail, sizeof out->detail,
                    "AMD %s (family 0x%x model 0x%x): the study measured no AMD core",
                    zen ? zen : "", (unsigned)(r.family < 0 ? 0 : r.family),
                    (unsigned)(r.model < 0 ? 0 : r.model));
    } else {
        rl_snprintf(out->detail, sizeof out->detail,
                    "the CPU could not be identified from its cpuinfo");
    }
}

/* Read a /proc or sysfs text (its size reads as 0, so it is read until EOF), at most max
 * bytes; NULL when it cannot be opened or is longer. Caller frees. */
static char *read_proc(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    size_t cap = 64 * 1024, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap >= max) {
                free(buf);
                buf = NULL;
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

rl_status rl_cpu_detect_file(const char *path, rl_cpu_info *out, rl_error *err)
{
    char *text = NULL, *board = NULL;
    size_t len = 0, blen = 0;
    rl_error e;
    if (path) {
        if (rl_file_read_all(path, RL_CPUINFO_MAX_BYTES, &text, &len, &e) != RL_OK)
            return rl_fail(err, RL_EINPUT,
                           "--cpuinfo %s: cannot be read (%s): give a saved /proc/cpuinfo text",
                           path, e.msg);
        size_t i = 0;
        while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
            i++;
        if (i == len) {
            free(text);
            return rl_fail(err, RL_EINPUT,
                           "--cpuinfo %s: the file is empty: give a saved /proc/cpuinfo text",
                           path);
        }
    } else {
        text = read_proc("/proc/cpuinfo", RL_CPUINFO_MAX_BYTES, &len);
        board = read_proc("/proc/device-tree/model", 4096, &blen);
        for (size_t i = 0; board && i < blen; i++)
            if (board[i] == '\0')
                board[i] = ' ';
    }
    rl_cpu_detect_text(text, text ? len : 0, board, out);
    free(text);
    free(board);
    if (path && out->logical == 0) /* every /proc/cpuinfo has a processor entry per CPU */
        return rl_fail(err, RL_EINPUT,
                       "--cpuinfo %s: no \"processor\" entry in it, so it is not a /proc/cpuinfo "
                       "text: give a saved /proc/cpuinfo",
                       path);
    return RL_OK;
}

const char *rl_evidence_name(rl_evidence e)
{
    switch (e) {
    case RL_EV_EXACT: return "exact";
    case RL_EV_SAME: return "same-uarch";
    case RL_EV_RELATED: return "related";
    case RL_EV_FORCED: return "forced";
    default: return "unknown";
    }
}

const char *rl_evidence_text(rl_evidence e)
{
    switch (e) {
    case RL_EV_EXACT: return "measured on this machine";
    case RL_EV_SAME: return "measured on the same core design in a different chip";
    case RL_EV_RELATED: return "EXTRAPOLATED from a related core, not measured on yours";
    case RL_EV_FORCED: return "you named this core, so it may not be the one in this machine";
    default: return "not measured, and not close to anything measured";
    }
}
