/* SPDX-License-Identifier: MIT */
/* test_quiet.c: unit tests for the machine's state during a measurement (measure/quiet). A
 * fake /proc and /sys tree under RL_TMP is written before and after a made-up interval of
 * 10 s on 2 CPUs (the snapshots' clocks are set by hand, nothing is timed): a quiet interval
 * is not disturbed; 88% other CPU and steal over its limit are, with the exact "why"; missing
 * files give null fields; counters that go backwards or overflow give null, not nonsense; the
 * wait ends on a quiet interval and at once on Ctrl-C. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/quiet.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "rl_test.h"

static char root[512];
static long tck; /* clock ticks per second: the fake counters are written in them */

static void put(const char *rel, const char *text)
{
    rl_test_put(root, rel, text);
}

static void mkdirs(const char *rel)
{
    rl_test_mkdirs(root, rel);
}

static void remove_file(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    unlink(path);
}

/* The counters of one snapshot, in seconds of CPU time (written as ticks). */
typedef struct {
    double user, system, idle, steal; /* all CPUs */
    double ours, children;            /* this process, its waited-for children */
    unsigned long long psi_us;
    int procs;
    unsigned long long khz0, khz1, thr0, thr1;
} state;

static void write_state(const state *s)
{
    char buf[8192], intr[3000];
    /* an intr line longer than any line buffer: skipped, never misread */
    memset(intr, '0', sizeof intr - 1);
    intr[sizeof intr - 1] = '\0';
    for (size_t i = 1; i + 1 < sizeof intr; i += 2)
        intr[i] = ' ';
    snprintf(buf, sizeof buf,
             "cpu  %lld 0 %lld %lld 0 0 0 %lld 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\n"
             "cpu1 1 0 1 1 0 0 0 0 0 0\nintr %s\nctxt 5\nprocs_running %d\nprocs_blocked 0\n",
             llround(s->user * tck), llround(s->system * tck), llround(s->idle * tck),
             llround(s->steal * tck), intr, s->procs);
    put("proc/stat", buf);
    /* a command name with spaces and ')' in it; a negative field before utime */
    snprintf(buf, sizeof buf,
             "4242 (a b) c) R 1 4242 4242 0 -1 4194304 100 0 0 0 %lld 0 %lld 0 20 0 3 0 1 2 3\n",
             llround(s->ours * tck), llround(s->children * tck));
    put("proc/self/stat", buf);
    snprintf(buf, sizeof buf,
             "some avg10=1.00 avg60=0.50 avg300=0.10 total=%llu\n"
             "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
             s->psi_us);
    put("proc/pressure/cpu", buf);
    snprintf(buf, sizeof buf, "%llu\n", s->khz0);
    put("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", buf);
    snprintf(buf, sizeof buf, "%llu\n", s->khz1);
    put("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", buf);
    snprintf(buf, sizeof buf, "%llu\n", s->thr0);
    put("sys/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count", buf);
    snprintf(buf, sizeof buf, "%llu\n", s->thr1);
    put("sys/devices/system/cpu/cpu1/thermal_throttle/core_throttle_count", buf);
}

static int setup_tree(void **st)
{
    (void)st;
    tck = sysconf(_SC_CLK_TCK);
    const char *tmp = getenv("RL_TMP");
    snprintf(root, sizeof root, "%s/quiet-tree-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    mkdirs("");
    return 0;
}

static int teardown_tree(void **st)
{
    (void)st;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* The interval between states s0 and s1, 10 s apart. */
static void interval(const state *s0, const state *s1, rl_quiet_interval *q)
{
    rl_quiet_snap a, b;
    rl_error e;
    write_state(s0);
    assert_int_equal(rl_quiet_take(root, &a, &e), RL_OK);
    write_state(s1);
    assert_int_equal(rl_quiet_take(root, &b, &e), RL_OK);
    a.t_ns = 1000000000LL;
    b.t_ns = 11000000000LL;
    rl_quiet_between(&a, &b, NULL, q);
}

static const state base = {1000, 500, 5000, 10, 20, 30, 7000000, 2, 2400000, 3100000, 5, 1};

static void test_quiet_interval(void **st)
{
    (void)st;
    /* 2 s busy of 20 CPU-s, 1.5 s of them ours and our children's: others 0.5 s = 2.5% */
    state s1 = base;
    s1.user += 1.5;
    s1.system += 0.5;
    s1.idle += 18;
    s1.ours += 1.0;
    s1.children += 0.5;
    s1.psi_us += 1000000; /* 1 s of 10 stalled */
    s1.procs = 3;
    s1.khz0 = 2000000;
    s1.thr0 += 2;
    rl_quiet_interval q;
    interval(&base, &s1, &q);
    assert_near(q.interval_s, 10.0, 1e-9);
    assert_int_equal(q.cpus, 2);
    assert_near(q.other_cpu_pct, 2.5, 1e-9);
    assert_near(q.steal_pct, 0.0, 1e-9);
    assert_near(q.psi_cpu_some_pct, 10.0, 1e-9);
    assert_int_equal(q.procs_running_max, 3);
    assert_near(q.freq_mhz_min, 2000.0, 1e-9);
    assert_near(q.freq_mhz_max, 3100.0, 1e-9);
    assert_int_equal(q.throttle_events, 2);
    assert_false(q.disturbed);
    assert_string_equal(q.why, "");
}

static void test_busy_interval(void **st)
{
    (void)st;
    /* 19 s busy of 20 CPU-s, 1.4 s ours: others 17.6 s = 88% */
    state s1 = base;
    s1.user += 15;
    s1.system += 4;
    s1.idle += 1;
    s1.ours += 1.4;
    rl_quiet_interval q;
    interval(&base, &s1, &q);
    assert_near(q.other_cpu_pct, 88.0, 1e-9);
    assert_true(q.disturbed);
    assert_string_equal(q.why, "other processes used 88% of the CPUs");
    cJSON *j = rl_quiet_to_json(&q);
    char *txt = cJSON_PrintUnformatted(j);
    assert_string_equal(txt, "{\"kind\":\"measured\",\"interval_s\":10,\"cpus\":2,"
                             "\"other_cpu_pct\":88,\"steal_pct\":0,\"psi_cpu_some_pct\":0,"
                             "\"procs_running_max\":2,\"freq_mhz_min\":2400,\"freq_mhz_max\":3100,"
                             "\"throttle_events\":0,\"disturbed\":true,"
                             "\"why\":\"other processes used 88% of the CPUs\"}");
    free(txt);
    cJSON_Delete(j);
    /* the limit is a documented threshold: exactly 88 is not over a limit of 88 */
    rl_quiet_limits l = {88.0, 5.0};
    rl_quiet_snap a, b;
    write_state(&base);
    rl_quiet_take(root, &a, NULL);
    write_state(&s1);
    rl_quiet_take(root, &b, NULL);
    a.t_ns = 0;
    b.t_ns = 10000000000LL;
    rl_quiet_between(&a, &b, &l, &q);
    assert_false(q.disturbed);
}

static void test_steal_interval(void **st)
{
    (void)st;
    /* 2 s stolen of 20: 10% */
    state s1 = base;
    s1.idle += 18;
    s1.steal += 2;
    rl_quiet_interval q;
    interval(&base, &s1, &q);
    assert_near(q.steal_pct, 10.0, 1e-9);
    assert_near(q.other_cpu_pct, 0.0, 1e-9);
    assert_true(q.disturbed);
    assert_string_equal(q.why, "steal 10%");
}

static void test_missing_files_are_null(void **st)
{
    (void)st;
    rl_quiet_snap a, b;
    rl_error e;
    char none[600];
    snprintf(none, sizeof none, "%s/no-such-root", root);
    assert_int_equal(rl_quiet_take(none, &a, &e), RL_OK);
    assert_int_equal(rl_quiet_take(none, &b, &e), RL_OK);
    b.t_ns = a.t_ns + 1000000000LL;
    rl_quiet_interval q;
    rl_quiet_between(&a, &b, NULL, &q);
    assert_true(isnan(q.other_cpu_pct));
    assert_true(isnan(q.steal_pct));
    assert_true(isnan(q.psi_cpu_some_pct));
    assert_true(isnan(q.freq_mhz_min));
    assert_int_equal(q.procs_running_max, -1);
    assert_int_equal(q.throttle_events, -1);
    assert_false(q.disturbed);
    cJSON *j = rl_quiet_to_json(&q);
    assert_true(cJSON_IsNull(rl_json_get(j, "other_cpu_pct")));
    assert_true(cJSON_IsNull(rl_json_get(j, "throttle_events")));
    assert_true(cJSON_IsNull(rl_json_get(j, "cpus")));
    assert_true(cJSON_IsFalse(rl_json_get(j, "disturbed")));
    cJSON_Delete(j);
}

static void test_backwards_and_overflow(void **st)
{
    (void)st;
    /* a counter that went backwards (a reset, a CPU taken offline): unknown */
    state s1 = base;
    s1.user -= 100;
    s1.idle += 20;
    rl_quiet_interval q;
    interval(&base, &s1, &q);
    assert_true(isnan(q.other_cpu_pct));
    assert_true(isnan(q.steal_pct));
    assert_false(q.disturbed);
    /* our own time going backwards: other CPU unknown, steal still known */
    s1 = base;
    s1.idle += 20;
    s1.ours -= 10;
    interval(&base, &s1, &q);
    assert_true(isnan(q.other_cpu_pct));
    assert_near(q.steal_pct, 0.0, 1e-9);
    /* the throttle counter going backwards, pressure going backwards */
    s1 = base;
    s1.idle += 20;
    s1.thr0 = 0;
    s1.psi_us = 5;
    interval(&base, &s1, &q);
    assert_int_equal(q.throttle_events, -1);
    assert_true(isnan(q.psi_cpu_some_pct));
    /* a counter too large for 64 bits: the line is not read at all */
    rl_quiet_snap a, b;
    write_state(&base);
    rl_quiet_take(root, &a, NULL);
    put("proc/stat", "cpu  99999999999999999999999 0 0 0 0 0 0 0 0 0\ncpu0 1\ncpu1 1\n");
    rl_quiet_take(root, &b, NULL);
    assert_false(b.have_stat);
    b.t_ns = a.t_ns + 10000000000LL;
    rl_quiet_between(&a, &b, NULL, &q);
    assert_true(isnan(q.other_cpu_pct));
    assert_false(q.disturbed);
}

static void test_summary(void **st)
{
    (void)st;
    const char *text = "{\"models\":[{\"runs\":[{\"machine\":{\"kind\":\"measured\","
                       "\"other_cpu_pct\":91,\"steal_pct\":0,\"disturbed\":true}},"
                       "{\"machine\":{\"kind\":\"measured\",\"other_cpu_pct\":3,"
                       "\"steal_pct\":1.5,\"disturbed\":false}}]}],"
                       "\"membw\":{\"runs\":[{\"machine\":{\"kind\":\"measured\","
                       "\"other_cpu_pct\":null,\"steal_pct\":null,\"disturbed\":false}},{}]}}";
    cJSON *b = cJSON_Parse(text);
    assert_non_null(b);
    cJSON *s = rl_quiet_summary_json(b, NULL);
    char *txt = cJSON_PrintUnformatted(s);
    assert_string_equal(txt, "{\"kind\":\"measured\",\"measurements\":3,\"disturbed\":1,"
                             "\"other_cpu_pct_max\":91,\"steal_pct_max\":1.5,"
                             "\"limits\":{\"other_cpu_pct\":25,\"steal_pct\":5}}");
    free(txt);
    cJSON_Delete(s);
    cJSON_Delete(b);
    b = cJSON_Parse("{\"models\":[]}");
    s = rl_quiet_summary_json(b, NULL);
    assert_true(cJSON_IsFalse(rl_json_get(s, "available")));
    cJSON_Delete(s);
    cJSON_Delete(b);
}

/* ---- the measured server -------------------------------------------------------------- */

/* /proc/PID/stat of a server: CPU seconds (written as ticks) and its starttime. */
static void put_server_stat(int pid, double cpu_s, unsigned long long start)
{
    char rel[64], buf[512];
    snprintf(rel, sizeof rel, "proc/%d/stat", pid);
    snprintf(buf, sizeof buf,
             "%d (llama-server) S 1 %d %d 0 -1 4194560 100 0 0 0 %lld %lld 0 0 20 0 8 0 %llu "
             "1000 100 18446744073709551615\n",
             pid, pid, pid, llround(cpu_s * tck * 0.75), llround(cpu_s * tck * 0.25), start);
    put(rel, buf);
}

/* The interval from s0 to s1 (10 s apart) with the server's stat written before each. */
static void server_interval(const state *s0, const state *s1, const rl_quiet_server *srv,
                            double cpu0, unsigned long long start0, double cpu1,
                            unsigned long long start1, rl_quiet_interval *q)
{
    rl_quiet_snap a, b;
    write_state(s0);
    put_server_stat(4242, cpu0, start0);
    assert_int_equal(rl_quiet_take_server(root, srv, &a, NULL), RL_OK);
    write_state(s1);
    if (start1)
        put_server_stat(4242, cpu1, start1);
    else
        remove_file("proc/4242/stat");
    assert_int_equal(rl_quiet_take_server(root, srv, &b, NULL), RL_OK);
    a.t_ns = 0;
    b.t_ns = 10000000000LL;
    rl_quiet_between(&a, &b, NULL, q);
}

/* The server's CPU time is the measured work: 19 s busy of 20 CPU-s, 1.4 s ours and 15 s the
 * server's leave 2.6 s = 13% to others (not disturbed; 88% without the server). A server that
 * restarted (another starttime) or exited is not counted, and the point says why. */
static void test_server_subtracted(void **st)
{
    (void)st;
    state s1 = base;
    s1.user += 15;
    s1.system += 4;
    s1.idle += 1;
    s1.ours += 1.4;
    rl_quiet_server srv = {.recorded = true, .n = 1, .pid = {4242}};
    snprintf(srv.how, sizeof srv.how, "named by --server-pid");
    rl_quiet_interval q;
    server_interval(&base, &s1, &srv, 100, 777, 115, 777, &q);
    assert_near(q.other_cpu_pct, 13.0, 1e-9);
    assert_near(q.server_cpu_pct, 75.0, 1e-9);
    assert_false(q.disturbed);
    assert_int_equal(q.server.n, 1);
    assert_int_equal(q.server.pid[0], 4242);
    cJSON *j = rl_quiet_to_json(&q);
    char *txt = cJSON_PrintUnformatted(rl_json_get(j, "measured_server"));
    assert_string_equal(txt, "{\"pids\":[4242],\"found_by\":\"named by --server-pid\","
                             "\"cpu_pct\":75}");
    free(txt);
    cJSON_Delete(j);
    /* restarted: a new process under the same pid (its counter even grew: only the starttime
     * tells the ticks are another process's) */
    server_interval(&base, &s1, &srv, 100, 777, 130, 900, &q);
    assert_near(q.other_cpu_pct, 88.0, 1e-9);
    assert_true(q.disturbed);
    assert_int_equal(q.server.n, 0);
    assert_true(isnan(q.server_cpu_pct));
    j = rl_quiet_to_json(&q);
    txt = cJSON_PrintUnformatted(rl_json_get(j, "measured_server"));
    assert_string_equal(txt, "{\"pids\":[],\"reason\":\"the server's process (pid 4242) ended, "
                             "restarted or could not be read during the measurement: its CPU "
                             "time counts as other processes'\"}");
    free(txt);
    cJSON_Delete(j);
    /* exited */
    server_interval(&base, &s1, &srv, 100, 777, 0, 0, &q);
    assert_near(q.other_cpu_pct, 88.0, 1e-9);
    assert_int_equal(q.server.n, 0);
    /* no server recorded (llama-bench runs): no measured_server key */
    server_interval(&base, &s1, NULL, 100, 777, 115, 777, &q);
    assert_near(q.other_cpu_pct, 88.0, 1e-9);
    j = rl_quiet_to_json(&q);
    assert_null(rl_json_get(j, "measured_server"));
    cJSON_Delete(j);
    remove_file("proc/4242/stat");
    assert_false(rl_quiet_pid_alive(root, 4242));
    put_server_stat(4242, 1, 5);
    assert_true(rl_quiet_pid_alive(root, 4242));
    assert_false(rl_quiet_pid_alive(root, 4243));
    put("proc/4243/stat", "4243 (x) S 1 2 3\n"); /* too short: not a process's stat */
    assert_false(rl_quiet_pid_alive(root, 4243));
}

/* A /proc/net/tcp address as the kernel prints it: each 4 bytes as the host's u32 in hex. */
static void net_hex(const unsigned char *b, size_t n, char *out)
{
    for (size_t w = 0; w < n / 4; w++) {
        uint32_t u;
        memcpy(&u, b + 4 * w, 4);
        sprintf(out + 8 * w, "%08X", u);
    }
}

static void net_line(rl_sbuf *t, int sl, const unsigned char *addr, size_t n, unsigned port,
                     unsigned state_code, unsigned long long inode)
{
    char hex[33], zero[33];
    static const unsigned char z[16] = {0};
    net_hex(addr, n, hex);
    net_hex(z, n, zero);
    rl_sbuf_printf(t,
                   "%4d: %s:%04X %s:0000 %02X 00000000:00000000 00:00000000 00000000  1000 "
                   "       0 %llu 1 0000000000000000 100 0 0 10 0\n",
                   sl, hex, port, zero, state_code, inode);
}

static void put_link(const char *rel, const char *target)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *dir = strdup(rel);
    *strrchr(dir, '/') = '\0';
    mkdirs(dir);
    free(dir);
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
}

/* Who listens on a port: LISTEN lines on loopback or wildcard addresses of tcp and tcp6, their
 * inodes, the processes whose fd links name them (sorted, each once); an established
 * connection, a listener on another address or port and our own process are not the server. */
static void test_find_listener(void **st)
{
    (void)st;
    static const unsigned char lo4[4] = {127, 0, 0, 1}, lan4[4] = {10, 2, 0, 15};
    static const unsigned char any6[16] = {0};
    static const unsigned char lo6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    rl_sbuf t = {0};
    rl_sbuf_printf(&t, "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
                       "retrnsmt   uid  timeout inode\n");
    net_line(&t, 0, lo4, 4, 8080, 0x0A, 7001);
    net_line(&t, 1, lo4, 4, 8081, 0x0A, 7002);
    net_line(&t, 2, lo4, 4, 8080, 0x01, 7003); /* a connection to it, not a listener */
    net_line(&t, 3, lan4, 4, 8080, 0x0A, 7004);
    net_line(&t, 4, lo4, 4, 7000, 0x0A, 7010); /* nobody readable holds it */
    put("proc/net/tcp", t.p);
    free(rl_sbuf_take(&t));
    rl_sbuf_printf(&t, "  sl  local_address remote_address st ...\n");
    net_line(&t, 0, any6, 16, 8080, 0x0A, 7005);
    net_line(&t, 1, lo6, 16, 9090, 0x0A, 7006);
    put("proc/net/tcp6", t.p);
    free(rl_sbuf_take(&t));
    put_link("proc/5151/fd/7", "socket:[7005]"); /* a forked worker, on the v6 socket */
    put_link("proc/4242/fd/0", "/dev/null");
    put_link("proc/4242/fd/3", "socket:[7001]");
    put_link("proc/4242/fd/4", "socket:[7005]");
    put_link("proc/6000/fd/3", "socket:[7002]");
    put_link("proc/7000/fd/5", "socket:[7003]");
    put_link("proc/8000/fd/9", "socket:[7004]");
    put_link("proc/6100/fd/2", "socket:[7006]");
    char self[64];
    snprintf(self, sizeof self, "proc/%d/fd/3", (int)getpid());
    put_link(self, "socket:[7002]"); /* our own: never the server */
    rl_quiet_server srv;
    rl_quiet_find_listener(root, 8080, &srv);
    assert_true(srv.recorded);
    assert_int_equal(srv.n, 2);
    assert_int_equal(srv.pid[0], 4242);
    assert_int_equal(srv.pid[1], 5151);
    assert_string_equal(srv.how, "the processes listening on port 8080 (/proc/net/tcp, tcp6)");
    rl_quiet_find_listener(root, 8081, &srv);
    assert_int_equal(srv.n, 1);
    assert_int_equal(srv.pid[0], 6000);
    assert_string_equal(srv.how, "the process listening on port 8081 (/proc/net/tcp, tcp6)");
    rl_quiet_find_listener(root, 9090, &srv);
    assert_int_equal(srv.n, 1);
    assert_int_equal(srv.pid[0], 6100);
    rl_quiet_find_listener(root, 9999, &srv);
    assert_int_equal(srv.n, 0);
    assert_string_equal(srv.why, "no process of this machine listens on port 9999 (/proc/net/tcp, "
                                 "tcp6): the server runs elsewhere (another machine, container "
                                 "or network namespace)");
    rl_quiet_find_listener(root, 7000, &srv);
    assert_int_equal(srv.n, 0);
    assert_non_null(strstr(srv.why, "a socket listens on port 7000, but no process"));
    assert_non_null(strstr(srv.why, "--server-pid PID"));
    char none[600];
    snprintf(none, sizeof none, "%s/no-such-root", root);
    rl_quiet_find_listener(none, 8080, &srv);
    assert_int_equal(srv.n, 0);
    assert_string_equal(srv.why, "/proc/net/tcp and /proc/net/tcp6 are not readable: name the "
                                 "server with --server-pid PID");
}

static void test_wait(void **st)
{
    (void)st;
    /* counters that do not move: nothing else ran, quiet after one interval (about 1 s) */
    write_state(&base);
    rl_quiet_interval q;
    memset(&q, 0, sizeof q);
    q.other_cpu_pct = -1;
    assert_true(rl_quiet_wait(root, 60, NULL, &q));
    assert_near(q.other_cpu_pct, 0.0, 1e-9);
    assert_false(q.disturbed);
    /* Ctrl-C: no quiet seen, the caller finds rl_interrupted set (it stops with exit 130) */
    rl_interrupted = 1;
    assert_false(rl_quiet_wait(root, 60, NULL, NULL));
    rl_interrupted = 0;
}

static void test_running_system(void **st)
{
    (void)st;
    /* the real /proc: whatever it says, the fields are in range */
    rl_quiet_snap a, b;
    rl_quiet_take("", &a, NULL);
    rl_quiet_take("", &b, NULL);
    b.t_ns = a.t_ns + 1000000000LL;
    rl_quiet_interval q;
    rl_quiet_between(&a, &b, NULL, &q);
    assert_true(q.cpus >= 1);
    assert_true(isnan(q.other_cpu_pct) || (q.other_cpu_pct >= 0 && q.other_cpu_pct <= 100));
    /* no wait asked: quiet at once */
    assert_true(rl_quiet_wait("", 0, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_interval),
        cmocka_unit_test(test_busy_interval),
        cmocka_unit_test(test_steal_interval),
        cmocka_unit_test(test_missing_files_are_null),
        cmocka_unit_test(test_backwards_and_overflow),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_server_subtracted),
        cmocka_unit_test(test_find_listener),
        cmocka_unit_test(test_wait),
        cmocka_unit_test(test_running_system),
    };
    return cmocka_run_group_tests(tests, setup_tree, teardown_tree);
}
