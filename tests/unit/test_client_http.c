/* SPDX-License-Identifier: MIT */
/* test_client_http.c: the HTTP streaming driver (client_http.c) against the scripted SSE
 * server tests/lib/sse-server, spawned once through proc.h (python3, stdlib only). A small
 * in-test scheduler hands out one job per prompt; each prompt is the server's script for that
 * request (client_http.c sees only text). The server logs the CLOCK_MONOTONIC time of every
 * write; the driver's chunk stamps are compared with those true emission times.
 *
 * Also a program for the benchmark and the end-to-end test (not run by ctest):
 *   test_client_http --bench            the timing error distribution at concurrency 1 and 32
 *   test_client_http --live URL [--completions] [--n N] [--concurrency C] [--max-tokens M]
 *                    [--model NAME] [--key-env VAR]
 *                                       prompts to a real server, one JSON line per result
 *                                       (exit 0 when every request succeeded)
 * Diagnosis: RL_DUMP_STAMPS=FILE appends "id chunk driver_ns server_send_ns request_start_ns"
 * per chunk of the accuracy runs; RL_KEEP_SSE_LOG=1 keeps the server's log after --bench.
 *
 * Checked (each break made the named tests fail, then the code was restored): taking the
 * stamp after a 2 ms busy wait in on_write fails test_accuracy_c1 and _c32 (their median
 * guard, which holds on a loaded machine); returning n instead of 0 from on_write after a
 * parse failure fails test_faults and test_api_key (malformed then ends 300 ms later);
 * leaving out the Authorization header fails test_api_key; counting content deltas with empty
 * text fails test_request_shape; accepting a stream without [DONE] or a finish_reason fails
 * test_faults (the json mode); removing the rl_interrupted check fails test_interrupt (the
 * requests end only by their 3 s timeout); keeping libcurl's "Expect: 100-continue" fails
 * test_large_prompt (1.2 s). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "client/client_driver.h"
#include "client/client_http.h"
#include "base/proc.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

/* ---- the scripted server -------------------------------------------------------------- */

static rl_proc *server;
static int server_port;
static char server_log[512];
static char port_buf[32];
static size_t port_len;

static void on_server_out(void *ud, int stream, const char *data, size_t n, double t)
{
    (void)ud;
    (void)t;
    if (stream != RL_PROC_STDOUT)
        return;
    for (size_t i = 0; i < n && port_len + 1 < sizeof port_buf; i++)
        port_buf[port_len++] = data[i];
    port_buf[port_len] = '\0';
}

static int server_start(void)
{
    const char *src = getenv("RL_SRC");
    const char *tmp = getenv("RL_TMP");
    char script[512];
    snprintf(script, sizeof script, "%s/tests/lib/sse-server", src ? src : ".");
    snprintf(server_log, sizeof server_log, "%s/sse-server.%d.log", tmp ? tmp : "/tmp",
             (int)getpid());
    remove(server_log);
    const char *argv[] = {"python3", script, "--log", server_log, NULL};
    rl_proc_opts o = {.argv = argv, .on_output = on_server_out};
    rl_error e = {RL_OK, ""};
    if (rl_proc_start(&o, &server, &e) != RL_OK) {
        fprintf(stderr, "cannot start %s: %s\n", script, e.msg);
        return -1;
    }
    for (int i = 0; i < 100 && !strchr(port_buf, '\n'); i++) {
        if (rl_proc_wait(&server, 1, 0.1, &e) != RL_OK || rl_proc_done(server))
            break;
    }
    server_port = atoi(port_buf);
    if (server_port <= 0) {
        fprintf(stderr, "sse-server gave no port (got '%s')\n", port_buf);
        rl_proc_finish(server, NULL);
        server = NULL;
        return -1;
    }
    return 0;
}

static int setup_server(void **state)
{
    (void)state;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return server_start();
}

static int teardown_server(void **state)
{
    (void)state;
    rl_proc_finish(server, NULL);
    server = NULL;
    remove(server_log);
    curl_global_cleanup();
    return 0;
}

/* The server's log as a JSON array (caller frees); waits up to 2 s for want_sends "send" lines
 * of ids starting with prefix to be written. */
static cJSON *read_log(const char *prefix, size_t want_sends)
{
    for (int tries = 0;; tries++) {
        FILE *f = fopen(server_log, "r");
        cJSON *arr = cJSON_CreateArray();
        size_t sends = 0;
        char *line = NULL;
        size_t cap = 0;
        while (f && getline(&line, &cap, f) > 0) {
            cJSON *j = cJSON_Parse(line);
            const char *id = j ? rl_json_get_str(j, "id") : NULL;
            if (!id || strncmp(id, prefix, strlen(prefix)) != 0) {
                cJSON_Delete(j);
                continue;
            }
            const char *ev = rl_json_get_str(j, "ev");
            if (ev && strcmp(ev, "send") == 0)
                sends++;
            cJSON_AddItemToArray(arr, j);
        }
        free(line);
        if (f)
            fclose(f);
        if (sends >= want_sends || tries >= 200)
            return arr;
        cJSON_Delete(arr);
        usleep(10000);
    }
}

/* The send times of request id (t[i] for chunk i; returns how many). */
static size_t log_sends(const cJSON *log, const char *id, int64_t *t, size_t cap)
{
    size_t n = 0;
    const cJSON *j;
    cJSON_ArrayForEach(j, log)
    {
        const char *jid = rl_json_get_str(j, "id");
        const char *ev = rl_json_get_str(j, "ev");
        int64_t i, ts;
        if (jid && ev && strcmp(jid, id) == 0 && strcmp(ev, "send") == 0 &&
            rl_json_get_i64(j, "i", &i) && rl_json_get_i64(j, "t_ns", &ts) && i >= 0 &&
            (size_t)i < cap) {
            t[i] = ts;
            if ((size_t)i + 1 > n)
                n = (size_t)i + 1;
        }
    }
    return n;
}

static const cJSON *log_arrival(const cJSON *log, const char *id)
{
    const cJSON *j;
    cJSON_ArrayForEach(j, log)
    {
        const char *jid = rl_json_get_str(j, "id");
        const char *ev = rl_json_get_str(j, "ev");
        if (jid && ev && strcmp(jid, id) == 0 && strcmp(ev, "arrive") == 0)
            return j;
    }
    return NULL;
}

/* ---- the in-test scheduler ------------------------------------------------------------ */

typedef struct {
    char **prompts;
    size_t n, next;
    rl_client_result **res;
    double timeout;
    int max_tokens;
    size_t progress_calls;
} tsched;

static int t_next(void *ctx, int64_t now_ns, rl_client_job *job, int64_t *wake_ns)
{
    (void)now_ns;
    (void)wake_ns;
    tsched *t = ctx;
    if (t->next >= t->n)
        return -1;
    size_t i = t->next++;
    *job = (rl_client_job){.index = i,
                           .prompt = t->prompts[i],
                           .prompt_len = strlen(t->prompts[i]),
                           .max_tokens = t->max_tokens,
                           .timeout = t->timeout};
    return 1;
}

static void t_done(void *ctx, rl_client_result *res)
{
    tsched *t = ctx;
    assert_true(res->job < t->n);
    assert_null(t->res[res->job]);
    t->res[res->job] = res;
}

static void t_progress(void *ctx, size_t job, const rl_client_chunk *c)
{
    tsched *t = ctx;
    assert_true(job < t->n);
    assert_true(c->bytes > 0);
    t->progress_calls++;
}

typedef struct {
    const char *url; /* NULL: the scripted server */
    const char *model;
    const char *key;
    rl_client_api api;
    size_t concurrency;
    double timeout;
    int max_tokens;
    double connect_timeout; /* 0: 5 s */
} run_opts;

/* Run the driver over prompts; results land in t->res (caller frees with free_run). */
static rl_status run_driver(const run_opts *o, char **prompts, size_t n, tsched *t, rl_error *err)
{
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", server_port);
    *t = (tsched){.prompts = prompts, .n = n, .timeout = o->timeout, .max_tokens = o->max_tokens};
    t->res = calloc(n, sizeof *t->res);
    assert_non_null(t->res);
    rl_client_http_cfg cfg = {.url = o->url ? o->url : url,
                              .model = o->model,
                              .api_key = o->key,
                              .api = o->api,
                              .concurrency = o->concurrency ? o->concurrency : 1,
                              .connect_timeout = o->connect_timeout ? o->connect_timeout : 5};
    rl_client_sched s = {.ctx = t, .next = t_next, .done = t_done, .progress = t_progress};
    *err = (rl_error){RL_OK, ""};
    return rl_client_http_run(&cfg, &s, err);
}

static void free_run(tsched *t)
{
    for (size_t i = 0; i < t->n; i++)
        rl_client_result_free(t->res[i]);
    free(t->res);
}

static char *script(const char *id, const char *mode, const char *chunks)
{
    char *s = rl_asprintf("{\"id\": \"%s\", \"mode\": \"%s\", \"chunks\": %s}", id, mode, chunks);
    assert_non_null(s);
    return s;
}

static void free_prompts(char **p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
    free(p);
}

/* ---- accuracy ------------------------------------------------------------------------- */

#define ACC_CHUNKS 12

typedef struct {
    double *ttft_err, *gap_err; /* ms, driver minus server */
    size_t n_ttft, n_gap;
    double min_err;       /* most negative raw stamp error (driver - server), ms */
    double cpu_s, wall_s; /* the driver's CPU time and wall time */
    double runq_s;        /* time the driver was ready to run but waited for a CPU */
    size_t failed;
} acc_result;

/* Time this thread spent runnable but waiting for a CPU (/proc/self/schedstat), ns; -1 when
 * unknown. */
static long long run_delay_ns(void)
{
    long long cpu = 0, wait = -1;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f) {
        if (fscanf(f, "%lld %lld", &cpu, &wait) != 2)
            wait = -1;
        fclose(f);
    }
    return wait;
}

/* n requests at concurrency c, each ACC_CHUNKS chunks at scripted, varied gaps. */
static void accuracy_run(const char *tag, size_t c, size_t n, acc_result *a)
{
    char **prompts = calloc(n, sizeof *prompts);
    assert_non_null(prompts);
    for (size_t r = 0; r < n; r++) {
        rl_sbuf b = {0};
        rl_sbuf_put(&b, "[", 1);
        double at = 15 + (double)(r % 7);
        for (int i = 0; i < ACC_CHUNKS; i++) {
            rl_sbuf_printf(&b, "%s[%.1f, \"tok%d \"]", i ? ", " : "", at, i);
            at += 3 + (double)((r * 5 + (size_t)i * 7) % 19); /* 3..21 ms gaps */
        }
        rl_sbuf_put(&b, "]", 1);
        char id[96];
        snprintf(id, sizeof id, "%s-%zu", tag, r);
        prompts[r] = script(id, "ok", b.p);
        free(rl_sbuf_take(&b));
    }
    tsched t;
    rl_error e;
    run_opts o = {.concurrency = c, .timeout = 30};
    struct timespec c0, c1;
    long long wait0 = run_delay_ns();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    int64_t w0 = rl_proc_now_ns();
    assert_int_equal(run_driver(&o, prompts, n, &t, &e), RL_OK);
    int64_t w1 = rl_proc_now_ns();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    a->cpu_s = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    a->wall_s = (double)(w1 - w0) / 1e9;
    a->runq_s = (double)(run_delay_ns() - wait0) / 1e9;
    cJSON *log = read_log(tag, n * ACC_CHUNKS);
    double cpu_s = a->cpu_s, wall_s = a->wall_s, runq_s = a->runq_s;
    *a = (acc_result){.ttft_err = calloc(n, sizeof(double)),
                      .gap_err = calloc(n * ACC_CHUNKS, sizeof(double)),
                      .min_err = INFINITY,
                      .cpu_s = cpu_s,
                      .wall_s = wall_s,
                      .runq_s = runq_s};
    assert_true(a->ttft_err && a->gap_err);
    size_t chunks = 0;
    FILE *dump = getenv("RL_DUMP_STAMPS") ? fopen(getenv("RL_DUMP_STAMPS"), "a") : NULL;
    for (size_t r = 0; r < n; r++) {
        rl_client_result *res = t.res[r];
        assert_non_null(res);
        if (!res->ok) {
            fprintf(stderr, "%s-%zu failed: %s\n", tag, r, res->error);
            a->failed++;
            continue;
        }
        char id[96];
        snprintf(id, sizeof id, "%s-%zu", tag, r);
        int64_t sent[ACC_CHUNKS];
        size_t ns = log_sends(log, id, sent, ACC_CHUNKS);
        assert_int_equal(ns, ACC_CHUNKS);
        /* one chunk per write: a chunk per scripted send, each "tokK " one delta */
        assert_int_equal(res->n_chunks, ACC_CHUNKS);
        chunks += res->n_chunks;
        if (dump)
            for (size_t i = 0; i < ACC_CHUNKS; i++)
                fprintf(dump, "%s %zu %lld %lld %lld\n", id, i, (long long)res->chunks[i].t_ns,
                        (long long)sent[i], (long long)res->send_ns);
        for (size_t i = 0; i < ACC_CHUNKS; i++) {
            assert_int_equal(res->chunks[i].tokens, 1);
            double err_ms = (double)(res->chunks[i].t_ns - sent[i]) / 1e6;
            if (err_ms < a->min_err)
                a->min_err = err_ms;
            if (i == 0)
                a->ttft_err[a->n_ttft++] = fabs(err_ms); /* send_ns is exact: TTFT error */
            else
                a->gap_err[a->n_gap++] =
                    fabs((double)((res->chunks[i].t_ns - res->chunks[i - 1].t_ns) -
                                  (sent[i] - sent[i - 1])) /
                         1e6);
        }
        assert_true(res->send_ns < res->chunks[0].t_ns);
        assert_string_equal(res->token_source, "usage");
        assert_int_equal(res->output_tokens, ACC_CHUNKS);
        assert_int_equal(res->http_status, 200);
    }
    if (dump)
        fclose(dump);
    assert_int_equal(t.progress_calls, chunks);
    cJSON_Delete(log);
    free_run(&t);
    free_prompts(prompts, n);
}

static void summary(const char *what, const double *x, size_t n, rl_stats_summary *s)
{
    rl_error e;
    assert_int_equal(rl_stats_summarize(x, n, s, &e), RL_OK);
    printf("  %-28s n=%-5zu p50=%.3f ms  p99=%.3f ms  max=%.3f ms\n", what, n, s->p50, s->p99,
           s->max);
}

static const char *load_average(void)
{
    static char la[64];
    strcpy(la, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (!fgets(la, sizeof la, f))
            strcpy(la, "?");
        fclose(f);
    }
    la[strcspn(la, "\n")] = '\0';
    return la;
}

/* Prints the distributions; returns true when both p99 are within limit_ms. *median: the
 * median TTFT error, ms. */
static bool accuracy_report(const char *label, size_t c, size_t n, double limit_ms, double *median)
{
    acc_result a;
    char tag[48];
    snprintf(tag, sizeof tag, "%s-c%zu-%d", label, c, (int)(rl_proc_now_ns() % 100000));
    accuracy_run(tag, c, n, &a);
    printf("HTTP driver, concurrency %zu, %zu requests x %d chunks (driver stamp - server "
           "send):\n",
           c, n, ACC_CHUNKS);
    rl_stats_summary st, sg;
    summary("TTFT error", a.ttft_err, a.n_ttft, &st);
    summary("chunk gap error", a.gap_err, a.n_gap, &sg);
    printf("  most negative stamp error: %.3f ms (a stamp before the send means the clocks "
           "differ)\n",
           a.min_err);
    printf("  driver CPU time: %.1f ms over %.1f ms (%.1f us per chunk)\n", a.cpu_s * 1e3,
           a.wall_s * 1e3, a.cpu_s * 1e6 / (double)(n * ACC_CHUNKS));
    printf("  driver waiting for a CPU while runnable: %.1f ms (the machine's load, not the "
           "driver)\n",
           a.runq_s * 1e3);
    bool ok = a.failed == 0 && st.p99 <= limit_ms && sg.p99 <= limit_ms && a.min_err > -0.05;
    *median = st.p50;
    free(a.ttft_err);
    free(a.gap_err);
    return ok;
}

/* The machine may be shared: another process can hold the CPU for milliseconds, which only
 * ever makes stamps later. So the target must be met in one of three attempts (a driver that
 * is slow by itself misses it every time). When all three miss, the best median TTFT error
 * must still be under median_max (load moves the tail, a driver that stamps late moves the
 * median: this holds on a busy machine and catches a stamp taken after slow work), and then,
 * the p99 target is skipped with that reason (bench/client-accuracy-http judges it) instead of
 * judging the driver by someone else's load. */
static void accuracy_attempts(size_t c, size_t n, double median_max)
{
#if defined(__SANITIZE_ADDRESS__)
    /* a sanitizer makes every step several times slower: the runs still check every result,
     * chunk and token count, but no timing verdict is given */
    double ignored;
    (void)median_max;
    accuracy_report("acc", c, n, 1.0, &ignored);
    printf("  SKIPPED: sanitizer build: timing accuracy not judged\n");
    skip();
#endif
    double best = INFINITY;
    for (int attempt = 1; attempt <= 3; attempt++) {
        double median;
        if (accuracy_report("acc", c, n, 1.0, &median))
            return;
        if (median < best)
            best = median;
        printf("  attempt %d missed the 1 ms target (load average: %s)\n", attempt, load_average());
    }
    if (best > median_max)
        fail_msg("the HTTP driver's median TTFT error is %.3f ms at concurrency %zu, over %.1f ms "
                 "in three attempts",
                 best, c, median_max);
    /* The p99 is the machine's as much as the driver's: on a shared VM the host takes the CPU
     * away for milliseconds (steal) with the load average near 0. Timings are not judged in
     * the unit suite: bench/client-accuracy-http judges the p99 target on a quiet machine. */
    printf("  SKIPPED: p99 over 1 ms in three attempts (load average %s), median %.3f ms within "
           "%.1f ms: the p99 target is bench/client-accuracy-http's to judge\n",
           load_average(), best, median_max);
    skip();
}

static void test_accuracy_c1(void **state)
{
    (void)state;
    accuracy_attempts(1, 8, 1.0);
}

static void test_accuracy_c32(void **state)
{
    (void)state;
    accuracy_attempts(32, 64, 20.0); /* a burst of 32 first chunks: loose, c=1 is the sharp one */
}

/* ---- request shape, answers, tokens ---------------------------------------------------- */

static void test_request_shape(void **state)
{
    (void)state;
    char **p = calloc(4, sizeof *p);
    assert_non_null(p);
    p[3] = script("shape-think", "reasoning", "[[1, [\"hm\", \"m\"]], [3, \" yes\"]]");
    p[0] = script("shape-chat", "ok", "[[1, \"Hel\"], [3, [\"lo\", \" w\\u00f6rld\"]]]");
    p[1] = script("shape-nousage", "no-usage", "[[1, \"a\"], [2, \"\"], [3, [\"b\", \"c\"]]]");
    p[2] = script("shape-drip", "drip", "[[5, \"drip\"], [10, \"ped\"]]");
    tsched t;
    rl_error e;
    run_opts o = {.model = "m\"odel", .max_tokens = 17, .timeout = 10};
    assert_int_equal(run_driver(&o, p, 4, &t, &e), RL_OK);

    rl_client_result *r = t.res[0];
    assert_true(r->ok);
    assert_null(r->error);
    assert_string_equal(r->output, "Hello w\xC3\xB6rld");
    assert_int_equal(r->output_len, 12);
    assert_int_equal(r->output_total, 12);
    assert_int_equal(r->n_chunks, 2); /* the role-only delta records nothing */
    assert_int_equal(r->chunks[0].bytes, 3);
    assert_int_equal(r->chunks[0].tokens, 1);
    assert_int_equal(r->chunks[1].bytes, 9);
    assert_int_equal(r->chunks[1].tokens, 2); /* two deltas in one write */
    assert_string_equal(r->token_source, "usage");
    assert_int_equal(r->output_tokens, 3);
    assert_int_equal(r->prompt_tokens, 11); /* the server counts the words of the script */
    assert_true(r->end_ns >= r->chunks[1].t_ns);

    r = t.res[1];
    assert_true(r->ok);
    assert_string_equal(r->output, "abc");
    assert_string_equal(r->token_source, "per-delta");
    assert_int_equal(r->output_tokens, 3); /* the empty delta is no token */
    assert_int_equal(r->prompt_tokens, -1);

    r = t.res[2];
    assert_true(r->ok);
    assert_string_equal(r->output, "dripped");
    assert_int_equal(r->n_chunks, 2);

    r = t.res[3]; /* reasoning text counts as generated text */
    assert_true(r->ok);
    assert_string_equal(r->output, "hmm yes");
    assert_int_equal(r->n_chunks, 2);
    assert_int_equal(r->chunks[0].tokens, 2);
    assert_int_equal(r->output_tokens, 3);

    cJSON *log = read_log("shape-", 0);
    const cJSON *a = log_arrival(log, "shape-chat");
    assert_non_null(a);
    assert_string_equal(rl_json_get_str(a, "path"), "/v1/chat/completions");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(a, "auth")));
    const cJSON *body = cJSON_GetObjectItem(a, "body");
    assert_string_equal(rl_json_get_str(body, "model"), "m\"odel");
    int64_t mt = 0;
    assert_true(rl_json_get_i64(body, "max_tokens", &mt));
    assert_int_equal(mt, 17);
    bool b = false;
    assert_true(rl_json_get_bool(body, "stream", &b) && b);
    b = false;
    assert_true(
        rl_json_get_bool(cJSON_GetObjectItem(body, "stream_options"), "include_usage", &b) && b);
    const cJSON *m0 = cJSON_GetArrayItem(cJSON_GetObjectItem(body, "messages"), 0);
    assert_string_equal(rl_json_get_str(m0, "role"), "user");
    assert_string_equal(rl_json_get_str(m0, "content"), p[0]);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(body, "messages")), 1);
    cJSON_Delete(log);
    free_run(&t);
    free_prompts(p, 4);
}

/* A 1.5 MB prompt goes out at once: no "Expect: 100-continue" wait for a server that never
 * answers it (libcurl would wait 1 s). */
static void test_large_prompt(void **state)
{
    (void)state;
    size_t pad = 1500000;
    rl_sbuf b = {0};
    rl_sbuf_printf(
        &b, "{\"id\": \"large-1\", \"mode\": \"ok\", \"chunks\": [[1, \"ok\"]], \"pad\": \"");
    for (size_t i = 0; i < pad; i++)
        rl_sbuf_put(&b, "x", 1);
    rl_sbuf_put(&b, "\"}", 2);
    char **p = calloc(1, sizeof *p);
    assert_non_null(p);
    p[0] = rl_sbuf_take(&b);
    assert_non_null(p[0]);
    tsched t;
    rl_error e;
    run_opts o = {.timeout = 10};
    assert_int_equal(run_driver(&o, p, 1, &t, &e), RL_OK);
    rl_client_result *r = t.res[0];
    assert_true(r->ok);
    assert_string_equal(r->output, "ok");
    double e2e_ms = (double)(r->end_ns - r->send_ns) / 1e6;
    if (e2e_ms >= 900)
        fprintf(stderr, "a large prompt took %.1f ms\n", e2e_ms);
    assert_true(e2e_ms < 900);
    free_run(&t);
    free_prompts(p, 1);
}

static void test_completions(void **state)
{
    (void)state;
    char **p = calloc(1, sizeof *p);
    assert_non_null(p);
    p[0] = script("compl-1", "ok", "[[1, \"one\"], [2, \" two\"]]");
    tsched t;
    rl_error e;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/", server_port);
    run_opts o = {.url = url, .api = RL_CLIENT_API_COMPLETIONS};
    assert_int_equal(run_driver(&o, p, 1, &t, &e), RL_OK);
    assert_true(t.res[0]->ok);
    assert_string_equal(t.res[0]->output, "one two");
    assert_int_equal(t.res[0]->n_chunks, 2);
    cJSON *log = read_log("compl-", 0);
    const cJSON *a = log_arrival(log, "compl-1");
    assert_non_null(a);
    assert_string_equal(rl_json_get_str(a, "path"), "/v1/completions");
    const cJSON *body = cJSON_GetObjectItem(a, "body");
    assert_string_equal(rl_json_get_str(body, "prompt"), p[0]);
    assert_null(cJSON_GetObjectItem(body, "messages"));
    assert_null(cJSON_GetObjectItem(body, "model"));
    assert_null(cJSON_GetObjectItem(body, "max_tokens"));
    cJSON_Delete(log);
    free_run(&t);
    free_prompts(p, 1);
}

/* ---- faults ------------------------------------------------------------------------------ */

static const char *const fault_modes[] = {"ok",    "http500", "malformed", "cut",     "ok",
                                          "error", "json",    "no-usage",  "oversize"};
#define N_FAULTS (sizeof fault_modes / sizeof *fault_modes)

static void check_faults(tsched *t, const char *key)
{
    for (size_t i = 0; i < N_FAULTS; i++) {
        rl_client_result *r = t->res[i];
        assert_non_null(r);
        const char *m = fault_modes[i];
        if (key) {
            assert_true(!r->error || !strstr(r->error, key));
            assert_true(!r->output || !strstr(r->output, key));
        }
        if (strcmp(m, "ok") == 0 || strcmp(m, "no-usage") == 0) {
            assert_true(r->ok);
            assert_string_equal(r->output, "first second third");
            assert_int_equal(r->n_chunks, 3);
            continue;
        }
        assert_false(r->ok);
        assert_non_null(r->error);
        assert_false(r->interrupted);
        assert_false(r->timed_out);
        assert_true(r->end_ns >= r->send_ns);
        if (strcmp(m, "http500") == 0) {
            assert_int_equal(r->http_status, 500);
            assert_string_equal(r->error, "HTTP 500: model exploded: \\e[31mout of memory");
            assert_int_equal(r->n_chunks, 0);
        } else if (strcmp(m, "malformed") == 0) {
            assert_string_equal(r->error, "malformed SSE event: data is not JSON: {not json");
            assert_int_equal(r->n_chunks, 1); /* the chunk before it survives */
            /* stopped at the bad event, not when the server ends the stream 300 ms later */
            assert_true(r->end_ns - r->chunks[0].t_ns < 150 * 1000000LL);
        } else if (strcmp(m, "cut") == 0) {
            assert_int_equal(strncmp(r->error, "the stream from 127.0.0.1:", 26), 0);
            assert_non_null(strstr(r->error, " broke off: "));
            assert_int_equal(r->n_chunks, 3);
        } else if (strcmp(m, "error") == 0) {
            assert_string_equal(
                r->error, "the server reported an error in the stream: context \\e] too long");
        } else if (strcmp(m, "oversize") == 0) {
            assert_string_equal(r->error, "SSE line longer than 1048576 bytes: the stream is not "
                                          "a sane event stream");
            assert_int_equal(r->n_chunks, 1);
            assert_true(r->end_ns - r->chunks[0].t_ns < 150 * 1000000LL);
        } else if (strcmp(m, "json") == 0) {
            assert_non_null(strstr(r->error, "the answer is not an SSE event stream "
                                             "(Content-Type: application/json): {\"choices\""));
        }
    }
}

static void run_faults(const char *tag, const char *key, size_t c)
{
    char **p = calloc(N_FAULTS, sizeof *p);
    assert_non_null(p);
    for (size_t i = 0; i < N_FAULTS; i++) {
        char id[96];
        snprintf(id, sizeof id, "%s-%zu", tag, i);
        p[i] = script(id, fault_modes[i], "[[2, \"first\"], [4, \" second\"], [6, \" third\"]]");
    }
    tsched t;
    rl_error e;
    run_opts o = {.key = key, .concurrency = c, .timeout = 10};
    assert_int_equal(run_driver(&o, p, N_FAULTS, &t, &e), RL_OK);
    check_faults(&t, key);
    if (key) {
        assert_null(strstr(e.msg, key));
        /* it did reach the server */
        cJSON *log = read_log(tag, 0);
        char want[128];
        snprintf(want, sizeof want, "Bearer %s", key);
        char id0[64];
        snprintf(id0, sizeof id0, "%s-0", tag);
        const cJSON *a = log_arrival(log, id0);
        assert_non_null(a);
        assert_string_equal(rl_json_get_str(a, "auth"), want);
        cJSON_Delete(log);
    }
    free_run(&t);
    free_prompts(p, N_FAULTS);
}

static void test_faults(void **state)
{
    (void)state;
    run_faults("fault", NULL, 1);
    run_faults("faultc4", NULL, 4); /* the same, all in flight together */
}

static void test_api_key(void **state)
{
    (void)state;
    run_faults("key", "sk-test-SECRET-4f1b", 3);
}

/* Out of memory while parsing the stream is not the server's fault: the run stops with an
 * internal error (exit 5), never "malformed SSE event: data is not JSON". cJSON's allocations
 * fail from the moment the scheduler has nothing more to hand out (the one request's body is
 * built by then), so only the event parsing meets the failure. */
static atomic_bool starve;

static void *starving_malloc(size_t n)
{
    return atomic_load(&starve) ? NULL : malloc(n);
}

static int t_next_then_starve(void *ctx, int64_t now_ns, rl_client_job *job, int64_t *wake_ns)
{
    int got = t_next(ctx, now_ns, job, wake_ns);
    if (got < 0)
        atomic_store(&starve, true);
    return got;
}

static void test_oom_in_stream(void **state)
{
    (void)state;
    char *p[1] = {script("oom-0", "ok", "[[5, \"a\"], [10, \"b\"], [15, \"c\"]]")};
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", server_port);
    tsched t = {.prompts = p, .n = 1, .timeout = 10};
    t.res = calloc(1, sizeof *t.res);
    assert_non_null(t.res);
    rl_client_http_cfg cfg = {.url = url, .concurrency = 2, .connect_timeout = 5};
    rl_client_sched s = {.ctx = &t, .next = t_next_then_starve, .done = t_done};
    rl_error e = {RL_OK, ""};
    atomic_store(&starve, false);
    rl_json_set_malloc(starving_malloc);
    rl_status st = rl_client_http_run(&cfg, &s, &e);
    rl_json_set_malloc(NULL);
    assert_true(atomic_load(&starve));
    assert_int_equal(st, RL_EINTERNAL);
    char want[200];
    snprintf(want, sizeof want,
             "out of memory reading the answers from 127.0.0.1:%d: the run stopped", server_port);
    assert_string_equal(e.msg, want);
    assert_non_null(t.res[0]);
    assert_false(t.res[0]->ok);
    assert_null(strstr(t.res[0]->error ? t.res[0]->error : "", "not JSON"));
    free_run(&t);
    free(p[0]);
}

/* A closed port: every request fails "cannot connect to HOST:PORT: Connection refused", and
 * neither the key nor the URL's password is in any message. */
static void test_unreachable(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    int port = ntohs(sa.sin_port);
    close(fd); /* nobody listens there now */
    char url[128], want[160];
    snprintf(url, sizeof url, "http://user:pw@127.0.0.1:%d/v1?k=sk-test-SECRET-4f1b", port);
    snprintf(want, sizeof want, "cannot connect to 127.0.0.1:%d: Connection refused", port);
    char **p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = strdup("hello");
    p[1] = strdup("again");
    tsched t;
    rl_error e;
    run_opts o = {.url = url, .key = "sk-test-SECRET-4f1b", .concurrency = 2, .timeout = 5};
    assert_int_equal(run_driver(&o, p, 2, &t, &e), RL_OK);
    for (int i = 0; i < 2; i++) {
        assert_false(t.res[i]->ok);
        assert_int_equal(t.res[i]->http_status, 0);
        assert_int_equal(t.res[i]->n_chunks, 0);
        assert_string_equal(t.res[i]->error, want);
        assert_null(strstr(t.res[i]->error, "SECRET"));
        assert_null(strstr(t.res[i]->error, "pw"));
    }
    free_run(&t);
    free_prompts(p, 2);
}

/* A request that exceeds its timeout fails timed_out; the one beside it is unharmed. */
static void test_timeout(void **state)
{
    (void)state;
    char **p = calloc(2, sizeof *p);
    assert_non_null(p);
    p[0] = script("tmo-0", "hang", "[]");
    p[1] = script("tmo-1", "ok", "[[5, \"fine\"]]");
    tsched t;
    rl_error e;
    run_opts o = {.concurrency = 2, .timeout = 0.3, .connect_timeout = 0.2};
    int64_t t0 = rl_proc_now_ns();
    assert_int_equal(run_driver(&o, p, 2, &t, &e), RL_OK);
    double took = (double)(rl_proc_now_ns() - t0) / 1e9;
    /* libcurl's timer may fire a millisecond early (seen: 0.499 s) */
    if (!(took >= 0.45 && took < 3))
        fprintf(stderr, "the run took %.3f s\n", took);
    assert_true(took >= 0.45 && took < 3);
    assert_false(t.res[0]->ok);
    assert_true(t.res[0]->timed_out);
    assert_string_equal(t.res[0]->error, "timed out after 0.5 s (0.3 s + 0.2 s to connect)");
    assert_true(t.res[1]->ok);
    assert_string_equal(t.res[1]->output, "fine");
    free_run(&t);
    free_prompts(p, 2);
}

static void *interrupt_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 400 * 1000000L};
    nanosleep(&ts, NULL);
    rl_interrupted = 1;
    return NULL;
}

/* Ctrl-C: within 100 ms (plus noise) every request in flight is reported interrupted, and a
 * request that ended before stays as it was. */
static void test_interrupt(void **state)
{
    (void)state;
    char **p = calloc(4, sizeof *p);
    assert_non_null(p);
    p[0] = script("int-0", "ok", "[[1, \"done\"]]");
    p[1] = script("int-1", "hang", "[]");
    p[2] = script("int-2", "hang", "[]");
    p[3] = script("int-3", "ok", "[[1, \"never sent\"]]");
    tsched t;
    rl_error e;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, interrupt_later, NULL), 0);
    run_opts o = {.concurrency = 2, .timeout = 3}; /* without interrupts: over in 3 s */
    int64_t t0 = rl_proc_now_ns();
    assert_int_equal(run_driver(&o, p, 4, &t, &e), RL_EINTERRUPTED);
    double took = (double)(rl_proc_now_ns() - t0) / 1e9;
    pthread_join(th, NULL);
    rl_interrupted = 0;
    /* Before the 3 s the requests would take: the interrupt ended them. The one-second bound
     * is judged only outside sanitizer builds (under ASan on 2 shared cores a run has been
     * seen to take longer; bench/ and cli.interrupt hold the one-second promise). */
#if defined(__SANITIZE_ADDRESS__)
    const double limit = 2.5;
#else
    const double limit = 1.0;
#endif
    assert_true(took >= 0.4 && took < limit);
    assert_true(t.res[0]->ok);
    assert_string_equal(t.res[0]->output, "done");
    for (int i = 1; i <= 2; i++) {
        assert_false(t.res[i]->ok);
        assert_true(t.res[i]->interrupted);
        assert_string_equal(t.res[i]->error, "interrupted");
        assert_int_equal(t.res[i]->http_status, 200);
    }
    assert_null(t.res[3]); /* never started: nothing to report */
    assert_int_equal(t.next, 3);
    free_run(&t);
    free_prompts(p, 4);
}

/* ---- URLs (no server needed) ------------------------------------------------------------ */

static void endpoint_is(const char *url, rl_client_api api, bool redact, const char *want)
{
    char *got = NULL;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_client_http_endpoint(url, api, redact, &got, &e);
    if (st != RL_OK)
        fprintf(stderr, "%s: %s\n", url, e.msg);
    assert_int_equal(st, RL_OK);
    assert_string_equal(got, want);
    free(got);
}

static void host_port_is(const char *url, const char *host, unsigned port)
{
    char h[256];
    unsigned p = 1;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_client_http_host_port(url, h, sizeof h, &p, &e), RL_OK);
    assert_string_equal(h, host);
    assert_int_equal(p, port);
}

static void test_endpoint(void **state)
{
    (void)state;
    /* the host and port the measured server is looked up by */
    host_port_is("http://127.0.0.1:8080/v1", "127.0.0.1", 8080);
    host_port_is("http://localhost/v1", "localhost", 80);
    host_port_is("https://u:pw@[::1]/x?key=1", "[::1]", 443);
    char h[64];
    unsigned port;
    rl_error pe = {RL_OK, ""};
    assert_int_equal(rl_client_http_host_port("not a url", h, sizeof h, &port, &pe), RL_EINPUT);
    const rl_client_api C = RL_CLIENT_API_CHAT, P = RL_CLIENT_API_COMPLETIONS;
    endpoint_is("http://127.0.0.1:8080", C, false, "http://127.0.0.1:8080/v1/chat/completions");
    endpoint_is("http://127.0.0.1:8080/", P, false, "http://127.0.0.1:8080/v1/completions");
    endpoint_is("https://api.example.com/v1", C, false,
                "https://api.example.com/v1/chat/completions");
    endpoint_is("http://h:1/openai/v1/", P, false, "http://h:1/openai/v1/completions");
    endpoint_is("http://h:1/v1/chat/completions", C, false, "http://h:1/v1/chat/completions");
    endpoint_is("http://h:1/completion", P, false, "http://h:1/completion");
    endpoint_is("http://u:pw@h:1/v1?key=abc#frag", C, false,
                "http://u:pw@h:1/v1/chat/completions?key=abc#frag");
    endpoint_is("http://u:pw@h:1/v1?key=abc#frag", C, true, "http://h:1/v1/chat/completions");

    const char *bad[] = {"ftp://h/v1", "not a url", "", "127.0.0.1:8080", "http://"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *got = (char *)1;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_client_http_endpoint(bad[i], C, false, &got, &e), RL_EINPUT);
        assert_null(got);
        assert_non_null(strstr(e.msg, "URL '"));
        assert_null(strchr(e.msg, '\n'));
    }
    /* a bad URL reaches the caller before any request starts */
    tsched t = {0};
    rl_client_http_cfg cfg = {.url = "gopher://x", .concurrency = 1};
    rl_client_sched s = {.ctx = &t, .next = t_next, .done = t_done};
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_client_http_run(&cfg, &s, &e), RL_EINPUT);
}

/* ---- programs for the benchmark and the end-to-end test --------------------------------- */

static int bench_main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (server_start() != 0)
        return 3;
    printf("load average before: %s (cpus: %ld)\n", load_average(), sysconf(_SC_NPROCESSORS_ONLN));
    double m1, m32;
    /* issue 20's target: at most 0.2 ms at concurrency 32 (and 1) on a quiet machine */
    const double limit = 0.2;
    bool ok1 = accuracy_report("bench", 1, 40, limit, &m1);
    bool ok32 = accuracy_report("bench", 32, 320, limit, &m32);
    printf("target: TTFT and chunk-gap error p99 <= %.1f ms: concurrency 1 %s, concurrency 32 "
           "%s (load average after: %s)\n",
           limit, ok1 ? "met" : "MISSED", ok32 ? "met" : "MISSED", load_average());
    rl_proc_finish(server, NULL);
    if (!getenv("RL_KEEP_SSE_LOG"))
        remove(server_log);
    curl_global_cleanup();
    return ok1 && ok32 ? 0 : 1;
}

static const char *const live_prompts[] = {
    "Write one sentence about the sea.",
    "Count from one to ten in words.",
    "Name three colours.",
    "Say hello in French and explain the greeting.",
};

static int live_main(int argc, char **argv)
{
    run_opts o = {.url = argv[2], .concurrency = 1, .timeout = 120, .max_tokens = 16};
    int n = 4;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--completions") == 0)
            o.api = RL_CLIENT_API_COMPLETIONS;
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--concurrency") == 0 && i + 1 < argc)
            o.concurrency = (size_t)atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-tokens") == 0 && i + 1 < argc)
            o.max_tokens = atoi(argv[++i]);
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            o.model = argv[++i];
        else if (strcmp(argv[i], "--key-env") == 0 && i + 1 < argc)
            o.key = getenv(argv[++i]);
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 1 || o.concurrency < 1)
        return 2;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    char **p = calloc((size_t)n, sizeof *p);
    for (int i = 0; p && i < n; i++)
        p[i] = strdup(live_prompts[(size_t)i % (sizeof live_prompts / sizeof *live_prompts)]);
    tsched t;
    rl_error e;
    rl_status st = run_driver(&o, p, (size_t)n, &t, &e);
    int bad = st != RL_OK;
    if (st != RL_OK)
        fprintf(stderr, "driver: %s\n", e.msg);
    for (int i = 0; i < n; i++) {
        rl_client_result *r = t.res[i];
        if (!r) {
            bad = 1;
            continue;
        }
        cJSON *j = cJSON_CreateObject();
        cJSON_AddBoolToObject(j, "ok", r->ok);
        rl_json_add_str_or_null(j, "error", r->error);
        rl_json_add_i64(j, "http_status", r->http_status);
        rl_json_add_num_or_null(j, "ttft_ms",
                                r->n_chunks ? (double)(r->chunks[0].t_ns - r->send_ns) / 1e6 : 0,
                                r->n_chunks > 0);
        rl_json_add_num(j, "e2e_ms", (double)(r->end_ns - r->send_ns) / 1e6);
        rl_json_add_u64(j, "chunks", r->n_chunks);
        rl_json_add_i64(j, "prompt_tokens", r->prompt_tokens);
        rl_json_add_i64(j, "output_tokens", r->output_tokens);
        rl_json_add_str_or_null(j, "token_source", r->token_source);
        rl_json_add_str_or_null(j, "output", r->output);
        char *s = cJSON_PrintUnformatted(j);
        printf("%s\n", s ? s : "{}");
        cJSON_free(s);
        cJSON_Delete(j);
        bad |= !r->ok;
    }
    free_run(&t);
    free_prompts(p, (size_t)n);
    curl_global_cleanup();
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--bench") == 0)
        return bench_main();
    if (argc >= 3 && strcmp(argv[1], "--live") == 0)
        return live_main(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint),      cmocka_unit_test(test_request_shape),
        cmocka_unit_test(test_completions),   cmocka_unit_test(test_large_prompt),
        cmocka_unit_test(test_faults),        cmocka_unit_test(test_api_key),
        cmocka_unit_test(test_oom_in_stream), cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_timeout),       cmocka_unit_test(test_interrupt),
        cmocka_unit_test(test_accuracy_c1),   cmocka_unit_test(test_accuracy_c32),
    };
    return cmocka_run_group_tests(tests, setup_server, teardown_server);
}
