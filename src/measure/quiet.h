/* SPDX-License-Identifier: MIT */
/* quiet.h: the machine's state during a measurement (owner: measure/quiet).
 *
 * A snapshot (rl_quiet_take) reads the counters the kernel keeps: the "cpu" line of /proc/stat
 * (user nice system idle iowait irq softirq steal, in clock ticks) and its procs_running,
 * this process's CPU time and that of its waited-for children (/proc/self/stat: utime stime
 * cutime cstime), the CPU pressure stall total (/proc/pressure/cpu, "some ... total=" in
 * microseconds), each CPU's cpufreq scaling_cur_freq and thermal_throttle/core_throttle_count
 * under /sys/devices/system/cpu. Two snapshots make an interval (rl_quiet_between):
 *   other_cpu_pct = (busy ticks of all CPUs - ours and our children's) / (wall x cpus), [0,100]
 *   steal_pct     = steal ticks / all ticks of all CPUs
 * and the interval is disturbed when either exceeds its limit (rl_quiet_limits). Every read is
 * bounded and checked: a file that is missing, unreadable or malformed, and a counter that goes
 * backwards or overflows, is an unknown field (NAN / -1, JSON null), never a failure.
 * The llama-bench children count as ours only once waited for: take the second snapshot after
 * the child has been reaped.
 *
 * The measured server (client): a server the client talks to on this machine does the work
 * being measured, so its CPU time is not disturbance. rl_quiet_find_listener finds the
 * processes holding a listening TCP socket on a port: the LISTEN lines (state 0A) of
 * /proc/net/tcp and /proc/net/tcp6 whose local address is loopback (127.0.0.0/8, ::1,
 * ::ffff:127.0.0.0/104) or a wildcard (0.0.0.0, ::) give socket inodes, and every
 * /proc/PID/fd/N link reading "socket:[INODE]" names a process holding one (this process
 * excluded; another user's processes are not readable unless we are root). The caller may also
 * name the server itself (--server-pid). A snapshot taken with a server (rl_quiet_take_server)
 * reads each of its processes' utime stime cutime cstime and starttime from /proc/PID/stat;
 * the interval subtracts their growth like ours:
 *   other_cpu_pct = (busy - ours - the server's) / (wall x cpus)
 * counting only processes read at both ends with the same starttime (one that exited or whose
 * pid was reused is not counted), and records which pids were counted or why none was.
 *
 * Ownership: snapshots and intervals are plain values; rl_quiet_to_json and
 * rl_quiet_summary_json return new cJSON objects the caller owns (NULL when out of memory).
 * rl_quiet_wait prints progress on stderr (rl_progress) and nothing else. */
#ifndef RL_QUIET_H
#define RL_QUIET_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

/* The documented default limits, written once: cmd/defaults.h spells them for --help. */
#define RL_QUIET_OTHER_CPU_PCT 25 /* % of all CPUs used by other processes */
#define RL_QUIET_STEAL_PCT 5      /* % of all CPU time taken by the hypervisor */
#define RL_QUIET_MAX_CPUS 4096    /* cpufreq and throttle files read per snapshot, at most */
#define RL_QUIET_WAIT_STEP_S 1.0  /* rl_quiet_wait: the length of one interval looked at */

#define RL_QUIET_MAX_SERVER_PIDS 16 /* processes counted as the measured server, at most */

/* The measured server: which processes' CPU time is the measured work (client points). */
typedef struct {
    bool recorded; /* the measurement says which server was counted (client points do) */
    int n;         /* processes counted; 0: none, and why says why */
    int pid[RL_QUIET_MAX_SERVER_PIDS];
    char how[160]; /* n > 0: how they were found ("listening on port 8080 (/proc/net/tcp)") */
    char why[256]; /* n == 0: why no server was counted */
} rl_quiet_server;

/* One reading of the machine's counters. */
typedef struct {
    int64_t t_ns;                  /* CLOCK_MONOTONIC when taken */
    bool have_stat;                /* the cpu line of /proc/stat */
    unsigned long long cpu[8];     /* user nice system idle iowait irq softirq steal */
    int cpus;                      /* cpuN lines in /proc/stat; 0 unknown */
    int procs_running;             /* -1 unknown */
    bool have_self;                /* /proc/self/stat */
    unsigned long long self_ticks; /* utime + stime + cutime + cstime */
    long clk_tck;                  /* sysconf(_SC_CLK_TCK) */
    bool have_psi;
    unsigned long long psi_some_us;    /* /proc/pressure/cpu "some ... total=" */
    double freq_mhz_min, freq_mhz_max; /* NAN unknown */
    long long throttle;                /* sum of core_throttle_count; -1 unknown */
    rl_quiet_server server;            /* the server whose processes were read (n 0: none) */
    bool server_have[RL_QUIET_MAX_SERVER_PIDS];                /* its /proc/PID/stat read */
    unsigned long long server_ticks[RL_QUIET_MAX_SERVER_PIDS]; /* utime..cstime */
    unsigned long long server_start[RL_QUIET_MAX_SERVER_PIDS]; /* starttime (pid reuse) */
} rl_quiet_snap;

/* The documented thresholds (in cmd/defaults too). */
typedef struct {
    double other_cpu_pct; /* default 25: other processes used more than this share of all CPUs */
    double steal_pct;     /* default 5: the hypervisor took more than this share */
} rl_quiet_limits;

void rl_quiet_limits_default(rl_quiet_limits *l);

/* root: "" (or NULL) for the real /proc and /sys, else a directory holding proc/ and sys/
 * (tests). Never fails for a missing or malformed file (that field is unknown); RL_OK always
 * for now, the status kept for the contract. */
rl_status rl_quiet_take(const char *root, rl_quiet_snap *s, rl_error *err);
/* The same, also reading the processes of server (NULL: none, as rl_quiet_take); both
 * snapshots of an interval take the same server. */
rl_status rl_quiet_take_server(const char *root, const rl_quiet_server *server, rl_quiet_snap *s,
                               rl_error *err);

/* The processes listening on TCP port (1..65535) on a loopback or wildcard address, into *out
 * (recorded, and n > 0 with how, or n == 0 with why: no such socket, /proc/net unreadable,
 * no readable process holding it). Never fails. */
void rl_quiet_find_listener(const char *root, unsigned port, rl_quiet_server *out);

/* True when /proc/PID/stat of pid exists and reads as a process (--server-pid's check). */
bool rl_quiet_pid_alive(const char *root, int pid);

typedef struct {
    double interval_s;
    int cpus;
    double other_cpu_pct, steal_pct, psi_cpu_some_pct; /* NAN when unreadable */
    int procs_running_max;                             /* -1 when unreadable */
    double freq_mhz_min, freq_mhz_max;                 /* NAN when unreadable */
    long long throttle_events;                         /* -1 when unreadable */
    bool disturbed;
    char why[160]; /* "other processes used 88% of the CPUs" / "steal 12%", "" when quiet */
    rl_quiet_server server; /* the server's processes counted as the measured work (those read
                               at both ends, not restarted), or why none was */
    double server_cpu_pct;  /* their CPU time over wall x cpus; NAN when none was counted */
} rl_quiet_interval;

/* The interval from a to b (b taken later). l NULL: the defaults. */
void rl_quiet_between(const rl_quiet_snap *a, const rl_quiet_snap *b, const rl_quiet_limits *l,
                      rl_quiet_interval *out);

/* The "machine" object of docs/BUNDLE.md (kind measured; unknown fields null); with a
 * recorded server, its "measured_server": {"pids": [...], "found_by", "cpu_pct"} or
 * {"pids": [], "reason"}. */
cJSON *rl_quiet_to_json(const rl_quiet_interval *q);

/* environment.machine_state: every "machine" object kept in the bundle (models[].runs[],
 * membw.runs[], client.points[], the runs of the calibration's types measured by this command,
 * calibration.sets[].types[].points[].run and .other_runs[]; earlier "attempts" are not
 * counted) summarised
 * with the limits; {"available": false, ...} when none was recorded. */
cJSON *rl_quiet_summary_json(const cJSON *bundle, const rl_quiet_limits *l);

/* Wait until one interval of about RL_QUIET_WAIT_STEP_S is quiet, at most max_s seconds
 * (<= 0: no wait, true at once); true when quiet was seen. Progress on stderr ("waiting for a
 * quiet machine: other processes use 70% of the CPUs (12 s of 60)"). Returns false within
 * 0.1 s of rl_interrupted being set (the caller checks it). last (may be NULL) receives the
 * last interval looked at. */
bool rl_quiet_wait(const char *root, double max_s, const rl_quiet_limits *l,
                   rl_quiet_interval *last);

#endif
