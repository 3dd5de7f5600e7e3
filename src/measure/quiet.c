/* SPDX-License-Identifier: MIT */
/* quiet.c: snapshots of the machine's counters, the interval between two, its JSON, the
 * bundle's summary and the wait for a quiet machine. See quiet.h. */
#include "measure/quiet.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define LINE_CAP 512    /* a longer line (the intr line) is skipped, never buffered */
#define MAX_LINES 65536 /* lines of /proc/stat read, at most */
#define SELF_CAP 4096   /* /proc/self/stat is one line of a few hundred bytes */

void rl_quiet_limits_default(rl_quiet_limits *l)
{
    l->other_cpu_pct = RL_QUIET_OTHER_CPU_PCT;
    l->steal_pct = RL_QUIET_STEAL_PCT;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Skip spaces, then one run of decimal digits into *v; false when there is none or it
 * overflows. */
static bool next_u64(const char **p, unsigned long long *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long x = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (~0ULL - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    *p = s;
    return true;
}

/* The file rel under root; with no root, under $LLAMA_ROOFLINE_PROC_ROOT when it is set (the
 * test suite's hook: a directory of fixed proc/ and sys/ files reads as a quiet machine, so
 * output that depends on it does not depend on the load of the machine running the tests),
 * else the real /proc and /sys. */
static void path_of(char *buf, size_t cap, const char *root, const char *rel)
{
    if (!root || !root[0])
        root = getenv("LLAMA_ROOFLINE_PROC_ROOT");
    rl_snprintf(buf, cap, "%s/%s", root && root[0] ? root : "", rel);
}

/* The file rel under root (path_of), opened for reading; NULL when it cannot be. */
static FILE *open_under(const char *root, const char *rel)
{
    char path[4096];
    path_of(path, sizeof path, root, rel);
    return fopen(path, "r");
}

/* Read one line of f into buf; false at the end. A line longer than the buffer is reported
 * as an empty line (its rest is skipped). */
static bool read_line(FILE *f, char *buf, size_t cap)
{
    if (!fgets(buf, (int)cap, f))
        return false;
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '\n') {
        buf[n - 1] = '\0';
        return true;
    }
    if (n + 1 < cap)
        return true; /* the last line, without a newline */
    int ch;
    while ((ch = fgetc(f)) != EOF && ch != '\n')
        ;
    buf[0] = '\0';
    return true;
}

/* The cpu line, the cpuN lines and procs_running of /proc/stat. */
static void read_stat(const char *root, rl_quiet_snap *s)
{
    char line[LINE_CAP];
    FILE *f = open_under(root, "proc/stat");
    if (!f)
        return;
    for (int n = 0; n < MAX_LINES && read_line(f, line, sizeof line); n++) {
        if (strncmp(line, "cpu ", 4) == 0) {
            const char *p = line + 4;
            bool ok = true;
            for (int i = 0; i < 8 && ok; i++)
                ok = next_u64(&p, &s->cpu[i]);
            s->have_stat = ok;
        } else if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9') {
            s->cpus++;
        } else if (strncmp(line, "procs_running ", 14) == 0) {
            const char *p = line + 14;
            unsigned long long v;
            if (next_u64(&p, &v) && v < 1000000000ULL)
                s->procs_running = (int)v;
        }
    }
    fclose(f);
}

/* Skip n space-separated words at *p; false when the text ends first. */
static bool skip_words(const char **p, int n)
{
    for (int k = 0; k < n; k++) {
        while (**p == ' ')
            (*p)++;
        if (!**p)
            return false;
        while (**p && **p != ' ')
            (*p)++;
    }
    return true;
}

/* utime stime cutime cstime (fields 14-17) and starttime (field 22) of a /proc/PID/stat (rel
 * under root); the command name (field 2) is in parentheses and may hold spaces and ')', so
 * the fields are counted from its last ')'. false when missing or malformed. */
static bool read_pid_stat(const char *root, const char *rel, unsigned long long *ticks,
                          unsigned long long *start)
{
    char buf[SELF_CAP];
    FILE *f = open_under(root, rel);
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    /* fields 3..13: state, then ten numbers (some may be negative: skip them as words) */
    if (!skip_words(&p, 14 - 3))
        return false;
    unsigned long long t[4], sum = 0;
    for (int i = 0; i < 4; i++) {
        if (!next_u64(&p, &t[i]) || t[i] > ~0ULL - sum)
            return false;
        sum += t[i];
    }
    /* fields 18..21 (priority, nice, num_threads, itrealvalue), then starttime */
    if (start && !skip_words(&p, 22 - 18))
        return false;
    if (start && !next_u64(&p, start))
        return false;
    *ticks = sum;
    return true;
}

static void read_self(const char *root, rl_quiet_snap *s)
{
    s->have_self = read_pid_stat(root, "proc/self/stat", &s->self_ticks, NULL);
}

/* The server's processes: ticks and starttime of each. */
static void read_server(const char *root, rl_quiet_snap *s)
{
    for (int i = 0; i < s->server.n && i < RL_QUIET_MAX_SERVER_PIDS; i++) {
        char rel[64];
        rl_snprintf(rel, sizeof rel, "proc/%d/stat", s->server.pid[i]);
        s->server_have[i] = s->server.pid[i] > 0 &&
                            read_pid_stat(root, rel, &s->server_ticks[i], &s->server_start[i]);
    }
}

bool rl_quiet_pid_alive(const char *root, int pid)
{
    char rel[64];
    unsigned long long t, st;
    rl_snprintf(rel, sizeof rel, "proc/%d/stat", pid);
    return pid > 0 && read_pid_stat(root, rel, &t, &st);
}

static void read_psi(const char *root, rl_quiet_snap *s)
{
    char line[LINE_CAP];
    FILE *f = open_under(root, "proc/pressure/cpu");
    if (!f)
        return;
    for (int n = 0; n < 16 && read_line(f, line, sizeof line); n++) {
        const char *t = strncmp(line, "some ", 5) == 0 ? strstr(line, " total=") : NULL;
        if (t) {
            t += 7;
            s->have_psi = next_u64(&t, &s->psi_some_us) && (*t == '\0' || *t == ' ');
            break;
        }
    }
    fclose(f);
}

/* One whole number from a small sysfs file; false when missing or malformed. */
static bool read_sys_u64(const char *path, unsigned long long *v)
{
    char buf[64];
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    const char *p = buf;
    return ok && next_u64(&p, v) && (*p == '\0' || *p == '\n');
}

/* Every CPU's current frequency (kHz -> MHz) and the sum of their throttle counters. */
static void read_cpus(const char *root, rl_quiet_snap *s)
{
    int n = s->cpus > 0 ? s->cpus : 1;
    if (n > RL_QUIET_MAX_CPUS)
        n = RL_QUIET_MAX_CPUS;
    long long thr = 0;
    bool thr_all = true;
    for (int i = 0; i < n; i++) {
        char rel[128], path[4096];
        unsigned long long v;
        rl_snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", i);
        path_of(path, sizeof path, root, rel);
        if (read_sys_u64(path, &v) && v > 0 && v < 100000000ULL) {
            double mhz = (double)v / 1000.0;
            if (isnan(s->freq_mhz_min) || mhz < s->freq_mhz_min)
                s->freq_mhz_min = mhz;
            if (isnan(s->freq_mhz_max) || mhz > s->freq_mhz_max)
                s->freq_mhz_max = mhz;
        }
        rl_snprintf(rel, sizeof rel,
                    "sys/devices/system/cpu/cpu%d/thermal_throttle/"
                    "core_throttle_count",
                    i);
        path_of(path, sizeof path, root, rel);
        if (thr_all && read_sys_u64(path, &v) && v < (1ULL << 62) && thr < (1LL << 62))
            thr += (long long)v;
        else
            thr_all = false;
    }
    s->throttle = thr_all ? thr : -1;
}

rl_status rl_quiet_take(const char *root, rl_quiet_snap *s, rl_error *err)
{
    return rl_quiet_take_server(root, NULL, s, err);
}

rl_status rl_quiet_take_server(const char *root, const rl_quiet_server *server, rl_quiet_snap *s,
                               rl_error *err)
{
    (void)err;
    memset(s, 0, sizeof *s);
    if (server) {
        s->server = *server;
        if (s->server.n < 0 || s->server.n > RL_QUIET_MAX_SERVER_PIDS)
            s->server.n = 0;
    }
    s->procs_running = -1;
    s->freq_mhz_min = s->freq_mhz_max = NAN;
    s->throttle = -1;
    s->clk_tck = sysconf(_SC_CLK_TCK);
    read_stat(root, s);
    read_self(root, s);
    read_psi(root, s);
    read_cpus(root, s);
    read_server(root, s);
    s->t_ns = rl_proc_now_ns();
    return RL_OK;
}

/* ---- the measured server: who listens on a port ------------------------------------------ */

#define MAX_INODES 16           /* listening sockets on one port (v4, v6, SO_REUSEPORT) */
#define MAX_NET_LINES (1 << 20) /* lines of /proc/net/tcp read, at most */
#define MAX_PROCS (1 << 16)     /* /proc entries looked at, at most */
#define MAX_FDS (1 << 16)       /* fd links of one process looked at, at most */

/* The 4-byte groups of a /proc/net address (each printed as the host's u32, so its bytes in
 * memory are the address's bytes in network order) into bytes; false unless hex of 8 or 32
 * digits. */
static bool net_addr(const char *hex, size_t len, unsigned char *bytes, size_t *n)
{
    if (len != 8 && len != 32)
        return false;
    for (size_t w = 0; w < len / 8; w++) {
        char word[9];
        memcpy(word, hex + 8 * w, 8);
        word[8] = '\0';
        char *end;
        unsigned long v = strtoul(word, &end, 16);
        if (*end != '\0')
            return false;
        uint32_t u = (uint32_t)v;
        memcpy(bytes + 4 * w, &u, 4);
    }
    *n = len / 2;
    return true;
}

/* A local address a connection to a loopback URL reaches: 127.0.0.0/8 or 0.0.0.0; ::1, ::,
 * or an IPv4-mapped one of those. */
static bool reaches_loopback(const unsigned char *b, size_t n)
{
    static const unsigned char zero[16] = {0};
    if (n == 4)
        return b[0] == 127 || memcmp(b, zero, 4) == 0;
    if (memcmp(b, zero, 15) == 0 && (b[15] == 0 || b[15] == 1))
        return true;
    bool mapped = memcmp(b, zero, 10) == 0 && b[10] == 0xff && b[11] == 0xff;
    return mapped && reaches_loopback(b + 12, 4);
}

/* The inodes of the LISTEN sockets on port in one /proc/net file; false when unreadable. */
static bool listen_inodes(const char *root, const char *rel, unsigned port,
                          unsigned long long *inodes, int *n)
{
    FILE *f = open_under(root, rel);
    if (!f)
        return false;
    char line[LINE_CAP];
    for (int k = 0; k < MAX_NET_LINES && read_line(f, line, sizeof line); k++) {
        char addr[40];
        unsigned lport, st;
        unsigned long long inode;
        unsigned char bytes[16];
        size_t nb;
        if (sscanf(line, " %*[0-9]: %39[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*u %*u %llu", addr,
                   &lport, &st, &inode) != 4)
            continue; /* the header line, or malformed */
        if (st != 0x0A || lport != port || inode == 0 ||
            !net_addr(addr, strlen(addr), bytes, &nb) || !reaches_loopback(bytes, nb))
            continue;
        if (*n < MAX_INODES)
            inodes[(*n)++] = inode;
    }
    fclose(f);
    return true;
}

/* Does any fd of process pid link to one of the sockets? *readable: its fd directory opened. */
static bool holds_socket(const char *root, const char *pid, const unsigned long long *inodes, int n,
                         bool *readable)
{
    char rel[64], path[4096];
    rl_snprintf(rel, sizeof rel, "proc/%s/fd", pid);
    path_of(path, sizeof path, root, rel);
    DIR *d = opendir(path);
    *readable = d != NULL;
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    for (int k = 0; !found && k < MAX_FDS && (e = readdir(d)); k++) {
        char link[4096], target[64];
        if (e->d_name[0] == '.')
            continue;
        rl_snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        unsigned long long ino;
        char close;
        if (sscanf(target, "socket:[%llu%c", &ino, &close) != 2 || close != ']')
            continue;
        for (int i = 0; i < n && !found; i++)
            found = inodes[i] == ino;
    }
    closedir(d);
    return found;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

void rl_quiet_find_listener(const char *root, unsigned port, rl_quiet_server *out)
{
    memset(out, 0, sizeof *out);
    out->recorded = true;
    unsigned long long inodes[MAX_INODES];
    int n = 0;
    bool v4 = listen_inodes(root, "proc/net/tcp", port, inodes, &n);
    bool v6 = listen_inodes(root, "proc/net/tcp6", port, inodes, &n);
    if (!v4 && !v6) {
        rl_snprintf(out->why, sizeof out->why,
                    "/proc/net/tcp and /proc/net/tcp6 are not readable: name the server with "
                    "--server-pid PID");
        return;
    }
    if (n == 0) {
        rl_snprintf(out->why, sizeof out->why,
                    "no process of this machine listens on port %u (/proc/net/tcp, tcp6): the "
                    "server runs elsewhere (another machine, container or network namespace)",
                    port);
        return;
    }
    char path[4096], self[32];
    path_of(path, sizeof path, root, "proc");
    rl_snprintf(self, sizeof self, "%d", (int)getpid());
    DIR *d = opendir(path);
    int unreadable = 0;
    struct dirent *e;
    for (int k = 0; d && k < MAX_PROCS && (e = readdir(d)); k++) {
        bool readable = false;
        if (!all_digits(e->d_name) || strcmp(e->d_name, self) == 0)
            continue;
        long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0 || pid > 0x7fffffffL)
            continue;
        if (holds_socket(root, e->d_name, inodes, n, &readable) &&
            out->n < RL_QUIET_MAX_SERVER_PIDS)
            out->pid[out->n++] = (int)pid;
        unreadable += !readable;
    }
    if (d)
        closedir(d);
    qsort(out->pid, (size_t)out->n, sizeof *out->pid, cmp_int); /* readdir's order is none */
    if (out->n > 0)
        rl_snprintf(out->how, sizeof out->how,
                    "the process%s listening on port %u (/proc/net/tcp, tcp6)",
                    out->n > 1 ? "es" : "", port);
    else
        rl_snprintf(out->why, sizeof out->why,
                    "a socket listens on port %u, but no process whose /proc/PID/fd is readable "
                    "holds it (%d not readable: another user's?): name the server with "
                    "--server-pid PID",
                    port, unreadable);
}

/* ---- the interval ------------------------------------------------------------------------- */

static double clamp_pct(double v)
{
    return v < 0 ? 0 : v > 100 ? 100 : v;
}

/* b - a into *d; false when the counter went backwards. */
static bool delta(unsigned long long a, unsigned long long b, unsigned long long *d)
{
    if (b < a)
        return false;
    *d = b - a;
    return true;
}

/* The growth of the server's CPU ticks: its processes read at both ends with the same
 * starttime (not exited, not a reused pid) are counted, and q->server lists them (or says why
 * none was). */
static unsigned long long server_growth(const rl_quiet_snap *a, const rl_quiet_snap *b,
                                        rl_quiet_interval *q)
{
    q->server = b->server;
    q->server.n = 0;
    int n = a->server.n < b->server.n ? a->server.n : b->server.n;
    unsigned long long sum = 0;
    for (int i = 0; i < n && i < RL_QUIET_MAX_SERVER_PIDS; i++) {
        unsigned long long d;
        if (a->server.pid[i] != b->server.pid[i] || !a->server_have[i] || !b->server_have[i] ||
            a->server_start[i] != b->server_start[i] ||
            !delta(a->server_ticks[i], b->server_ticks[i], &d) || d > ~0ULL / 16 - sum)
            continue;
        sum += d;
        q->server.pid[q->server.n++] = b->server.pid[i];
    }
    if (n > 0 && q->server.n == 0)
        rl_snprintf(q->server.why, sizeof q->server.why,
                    "the server's process (pid %d%s) ended, restarted or could not be read "
                    "during the measurement: its CPU time counts as other processes'",
                    b->server.pid[0], n > 1 ? " and others" : "");
    return sum;
}

/* other_cpu_pct and steal_pct from the two /proc/stat and /proc/self/stat readings; srv: the
 * measured server's ticks, subtracted like ours. */
static void cpu_shares(const rl_quiet_snap *a, const rl_quiet_snap *b, double wall,
                       unsigned long long srv, rl_quiet_interval *q)
{
    if (!a->have_stat || !b->have_stat || a->cpus != b->cpus || b->cpus <= 0 || wall <= 0 ||
        b->clk_tck <= 0)
        return;
    unsigned long long d[8], busy = 0, total = 0;
    for (int i = 0; i < 8; i++) {
        if (!delta(a->cpu[i], b->cpu[i], &d[i]) || d[i] > ~0ULL / 16)
            return; /* backwards, or so large the sums below could wrap */
        total += d[i];
    }
    busy = d[0] + d[1] + d[2] + d[5] + d[6]; /* user nice system irq softirq */
    if (total > 0)
        q->steal_pct = clamp_pct(100.0 * (double)d[7] / (double)total);
    unsigned long long ours;
    if (!a->have_self || !b->have_self || !delta(a->self_ticks, b->self_ticks, &ours))
        return;
    double capacity = wall * (double)b->cpus * (double)b->clk_tck;
    q->other_cpu_pct = clamp_pct(100.0 * ((double)busy - (double)ours - (double)srv) / capacity);
    if (q->server.n > 0)
        q->server_cpu_pct = clamp_pct(100.0 * (double)srv / capacity);
}

void rl_quiet_between(const rl_quiet_snap *a, const rl_quiet_snap *b, const rl_quiet_limits *l,
                      rl_quiet_interval *q)
{
    rl_quiet_limits dl;
    if (!l) {
        rl_quiet_limits_default(&dl);
        l = &dl;
    }
    memset(q, 0, sizeof *q);
    q->other_cpu_pct = q->steal_pct = q->psi_cpu_some_pct = q->server_cpu_pct = NAN;
    q->freq_mhz_min = q->freq_mhz_max = NAN;
    q->throttle_events = -1;
    double wall = (double)(b->t_ns - a->t_ns) / 1e9;
    q->interval_s = wall > 0 ? wall : 0;
    q->cpus = b->cpus;
    unsigned long long srv = server_growth(a, b, q);
    cpu_shares(a, b, wall, srv, q);
    unsigned long long d;
    if (a->have_psi && b->have_psi && wall > 0 && delta(a->psi_some_us, b->psi_some_us, &d))
        q->psi_cpu_some_pct = clamp_pct(100.0 * (double)d / (wall * 1e6));
    q->procs_running_max =
        a->procs_running > b->procs_running ? a->procs_running : b->procs_running;
    q->freq_mhz_min = fmin(a->freq_mhz_min, b->freq_mhz_min); /* fmin ignores one NAN */
    q->freq_mhz_max = fmax(a->freq_mhz_max, b->freq_mhz_max);
    if (a->throttle >= 0 && b->throttle >= a->throttle)
        q->throttle_events = b->throttle - a->throttle;
    bool busy = !isnan(q->other_cpu_pct) && q->other_cpu_pct > l->other_cpu_pct;
    bool steal = !isnan(q->steal_pct) && q->steal_pct > l->steal_pct;
    q->disturbed = busy || steal;
    if (busy && steal)
        rl_snprintf(q->why, sizeof q->why, "other processes used %.0f%% of the CPUs; steal %.0f%%",
                    q->other_cpu_pct, q->steal_pct);
    else if (busy)
        rl_snprintf(q->why, sizeof q->why, "other processes used %.0f%% of the CPUs",
                    q->other_cpu_pct);
    else if (steal)
        rl_snprintf(q->why, sizeof q->why, "steal %.0f%%", q->steal_pct);
}

/* ---- JSON --------------------------------------------------------------------------------- */

static double r1(double v)
{
    return round(v * 10.0) / 10.0;
}

static bool add_num(cJSON *o, const char *key, double v)
{
    return rl_json_add_num_or_null(o, key, r1(v), !isnan(v));
}

/* {"pids": [...], "found_by", "cpu_pct"} or {"pids": [], "reason"}; NULL when out of memory. */
static cJSON *server_json(const rl_quiet_interval *q)
{
    cJSON *o = cJSON_CreateObject();
    int n = q->server.n > 0 && q->server.n <= RL_QUIET_MAX_SERVER_PIDS ? q->server.n : 0;
    bool ok = o && rl_json_add_int_array(o, "pids", q->server.pid, n);
    if (n > 0)
        ok = ok && rl_json_add_str(o, "found_by", q->server.how) &&
             add_num(o, "cpu_pct", q->server_cpu_pct);
    else
        ok = ok &&
             rl_json_add_str(o, "reason", q->server.why[0] ? q->server.why : "no server was named");
    return rl_json_kept(o, ok);
}

cJSON *rl_quiet_to_json(const rl_quiet_interval *q)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = rl_json_add_str(o, "kind", "measured");
    ok &= rl_json_add_num(o, "interval_s", round(q->interval_s * 100.0) / 100.0);
    ok &= rl_json_add_num_or_null(o, "cpus", q->cpus, q->cpus > 0);
    ok &= add_num(o, "other_cpu_pct", q->other_cpu_pct);
    ok &= add_num(o, "steal_pct", q->steal_pct);
    ok &= add_num(o, "psi_cpu_some_pct", q->psi_cpu_some_pct);
    ok &= rl_json_add_num_or_null(o, "procs_running_max", q->procs_running_max,
                                  q->procs_running_max >= 0);
    ok &= add_num(o, "freq_mhz_min", q->freq_mhz_min);
    ok &= add_num(o, "freq_mhz_max", q->freq_mhz_max);
    ok &= q->throttle_events >= 0 ? rl_json_add_i64(o, "throttle_events", q->throttle_events)
                                  : rl_json_add_null(o, "throttle_events");
    ok &= rl_json_add_bool(o, "disturbed", q->disturbed);
    ok &= rl_json_add_str(o, "why", q->why);
    if (ok && q->server.recorded)
        ok = rl_json_attach(o, "measured_server", server_json(q));
    return rl_json_kept(o, ok);
}

typedef struct {
    int n, disturbed;
    double other_max, steal_max; /* NAN until one is known */
} summary;

static void summary_add(summary *s, const cJSON *m)
{
    const char *kind = rl_json_get_str(m, "kind");
    if (!kind || strcmp(kind, "measured") != 0)
        return;
    s->n++;
    bool d = false;
    if (rl_json_get_bool(m, "disturbed", &d) && d)
        s->disturbed++;
    double v;
    if (rl_json_get_num(m, "other_cpu_pct", &v))
        s->other_max = fmax(s->other_max, v);
    if (rl_json_get_num(m, "steal_pct", &v))
        s->steal_max = fmax(s->steal_max, v);
}

/* Every element's "machine" of the array under key of o. */
static void summary_array(summary *s, const cJSON *o, const char *key)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, rl_json_get(o, key)) summary_add(s, rl_json_get(e, "machine"));
}

cJSON *rl_quiet_summary_json(const cJSON *bundle, const rl_quiet_limits *l)
{
    rl_quiet_limits dl;
    if (!l) {
        rl_quiet_limits_default(&dl);
        l = &dl;
    }
    summary s = {0, 0, NAN, NAN};
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(bundle, "models")) summary_array(&s, m, "runs");
    summary_array(&s, rl_json_get(bundle, "membw"), "runs");
    summary_array(&s, rl_json_get(bundle, "client"), "points");
    const cJSON *set, *type, *pt; /* the calibration's runs (bundle/calib.h) */
    cJSON_ArrayForEach(set, rl_json_get(rl_json_get(bundle, "calibration"), "sets"))
    {
        cJSON_ArrayForEach(type, rl_json_get(set, "types"))
        {
            const char *src = rl_json_get_str(type, "source");
            if (src && strcmp(src, "measured") == 0) { /* a reused type was measured before */
                cJSON_ArrayForEach(pt, rl_json_get(type, "points"))
                {
                    summary_add(&s, rl_json_get(rl_json_get(pt, "run"), "machine"));
                    summary_array(&s, pt, "other_runs"); /* every pass's run */
                }
            }
        }
    }
    if (s.n == 0)
        return rl_json_unavailable("no machine state was recorded beside any measurement");
    cJSON *o = cJSON_CreateObject();
    cJSON *lim = cJSON_CreateObject();
    bool ok = o && lim && rl_json_add_str(o, "kind", "measured");
    ok &= rl_json_add_num(o, "measurements", s.n);
    ok &= rl_json_add_num(o, "disturbed", s.disturbed);
    ok &= add_num(o, "other_cpu_pct_max", s.other_max);
    ok &= add_num(o, "steal_pct_max", s.steal_max);
    ok &= lim && rl_json_add_num(lim, "other_cpu_pct", l->other_cpu_pct) &&
          rl_json_add_num(lim, "steal_pct", l->steal_pct);
    ok &= o && rl_json_attach(o, "limits", lim);
    return rl_json_kept(o, ok);
}

/* ---- waiting ------------------------------------------------------------------------------ */

/* Sleep about s seconds in steps of 0.1 s; false as soon as rl_interrupted is set. */
static bool nap(double s)
{
    for (double done = 0; done < s; done += 0.1) {
        if (rl_interrupted)
            return false;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return !rl_interrupted;
}

bool rl_quiet_wait(const char *root, double max_s, const rl_quiet_limits *l,
                   rl_quiet_interval *last)
{
    if (max_s <= 0)
        return true;
    int64_t t0 = rl_proc_now_ns();
    rl_quiet_snap a, b;
    rl_quiet_interval q;
    rl_quiet_take(root, &a, NULL);
    bool quiet = false;
    while (!quiet) {
        if (!nap(RL_QUIET_WAIT_STEP_S))
            break;
        rl_quiet_take(root, &b, NULL);
        rl_quiet_between(&a, &b, l, &q);
        if (last)
            *last = q;
        quiet = !q.disturbed;
        double waited = (double)(b.t_ns - t0) / 1e9;
        if (quiet || waited >= max_s)
            break;
        if (!isnan(q.other_cpu_pct) &&
            q.other_cpu_pct > (l ? l->other_cpu_pct : RL_QUIET_OTHER_CPU_PCT))
            rl_progress("waiting for a quiet machine: other processes use %.0f%% of the CPUs "
                        "(%.0f s of %.0f)",
                        q.other_cpu_pct, waited, max_s);
        else
            rl_progress("waiting for a quiet machine: steal %.0f%% (%.0f s of %.0f)", q.steal_pct,
                        waited, max_s);
        a = b;
    }
    rl_progress_done();
    return quiet;
}
