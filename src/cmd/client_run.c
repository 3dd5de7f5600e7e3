/* SPDX-License-Identifier: MIT */
/* client_run.c: the measuring session of `llama-roofline client` (seed 001), behind
 * cmd_client.c's options. Loads the prompts, probes fm and calibrates the token counter when
 * asked, then measures each operating point through the command driver (client_cmd.c) or the
 * HTTP driver (client_http.c) under the scheduler (client_sched.c). The bundle is rewritten
 * after every finished request by a writer thread (so a slow disk never delays the timestamps
 * of requests in flight), and once more, synchronously, after each point and at the end. Each
 * point records the machine's state (measure/quiet.h) with the measured server's CPU time
 * counted as the work, not as other processes' (find_server: --server-pid, else the process
 * listening on a loopback --url's port); at the end the points' disturbance is analysed
 * (analyse/analysis_bundle.h). Then -o DIR renders DIR/report.html, --csv and --chunks export,
 * and a text summary goes to stdout (first line DISTURBED when a point was disturbed).
 * Everything allocated here is freed before rl_client_run_session returns. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyse/analysis_bundle.h"
#include "bundle/bundle.h"
#include "client/client_count.h"
#include "client/client_csv.h"
#include "client/client_driver.h"
#include "client/client_fm.h"
#include "client/client_http.h"
#include "client/client_metrics.h"
#include "client/client_prompts.h"
#include "cmd/client_run.h"
#include "cmd/defaults.h"
#include "cmd/session.h"
#include "client/client_sched.h"
#include "base/proc.h"
#include "render/report.h"
#include "render/client_text.h"
#include "render/report_text.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_url.h"
#include "base/rl_util.h"
#include "measure/quiet.h"
#include "measure/sysinfo.h"

#define MAX_REQUESTS 100000        /* prompts x runs per operating point */
#define RL_CLIENT_EVERY_WRITE 1000 /* requests of a point rewritten one by one */

/* ---- the bundle writer thread ---------------------------------------------------------- */

typedef struct {
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char *pending; /* newest text not written yet */
    bool busy, quit;
    const char *path;
    rl_status st;
    rl_error err;
} writer;

static void *writer_main(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->pending && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->pending)
            break;
        char *text = w->pending;
        w->pending = NULL;
        w->busy = true;
        pthread_mutex_unlock(&w->mu);
        rl_error e;
        rl_status st = rl_write_output(w->path, text, strlen(text), RL_TTY_JSON, &e);
        free(text);
        pthread_mutex_lock(&w->mu);
        w->busy = false;
        if (st != RL_OK && w->st == RL_OK) {
            w->st = st;
            w->err = e;
        }
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void writer_post(writer *w, char *text)
{
    pthread_mutex_lock(&w->mu);
    free(w->pending);
    w->pending = text;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Wait until nothing is pending or being written. */
static void writer_drain(writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->pending || w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static void writer_stop(writer *w)
{
    if (!w->started)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    free(w->pending);
    w->pending = NULL;
    w->started = false;
}

/* ---- the measurement ------------------------------------------------------------------- */

typedef struct {
    rl_client_opts *a;
    cJSON *bundle;
    cJSON *points; /* the client section's array (owned by bundle) */
    writer w;
    rl_client_prompts prompts;
    rl_client_plan plan;
    size_t concurrency;
    size_t point; /* index in points */
    rl_client_run *run;
    int64_t point_start_ns;
    int64_t last_post_ns;
    size_t warmups;
    rl_client_counter counter;
    bool have_counter;
    bool http;
    rl_atomic chunks;          /* --chunks, open when chunks.path is set; committed at the end */
    bool have_machine;         /* machine holds the point's interval (set once measured) */
    rl_quiet_interval machine; /* the machine's state while the point's requests ran */
    cJSON *attempts;           /* --retry-disturbed: the point's earlier tries, or NULL */
    char *models[RL_CLIENT_MAX_MODELS]; /* --model A,B: one set of points each (0: none) */
    size_t n_models;
    const char *model_now; /* the model of the point being measured, NULL without --model */
    char *cmd_now;         /* --cmd with {model} replaced by model_now, shell-quoted */
    cJSON *fm_models;      /* fm's availability of the requested models, or NULL */
} client_ctx;

/* The JSON of the current point from the results so far; NULL when out of memory. */
static cJSON *point_json(client_ctx *c, rl_error *err)
{
    rl_client_run_sort(c->run);
    size_t n;
    rl_client_result *const *res = rl_client_run_results(c->run, &n);
    int64_t start = 0, end = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t from = rl_client_result_start_ns(res[i]);
        if (!start || from < start)
            start = from;
        if (res[i]->end_ns > end)
            end = res[i]->end_ns;
    }
    rl_client_point p = {0};
    p.concurrency = c->concurrency;
    p.request_rate = c->a->rate;
    p.ramp_up_ms = c->a->ramp;
    p.start_ns = start;
    p.end_ns = end;
    p.results = (const rl_client_result *const *)res;
    p.n_results = n;
    p.prompt_ids = (const char *const *)c->prompts.ids;
    p.n_prompts = c->prompts.n;
    p.warmup = (size_t)c->a->warmup;
    cJSON *j = rl_client_point_json(&p, &c->a->slo, err);
    /* how the reading thread ran while it stamped chunks (proc.h); the machine's state */
    if (j && c->model_now && !rl_json_add_str(j, "model", c->model_now)) {
        cJSON_Delete(j);
        return NULL;
    }
    const char *stamps = c->a->url ? "read time (libcurl's write callback)" : rl_proc_stamp_note();
    if (j && (!cJSON_AddStringToObject(j, "reader_priority", rl_proc_reader_priority_note()) ||
              !cJSON_AddStringToObject(j, "stamp_source", stamps) ||
              (c->have_machine && !rl_json_attach(j, "machine", rl_quiet_to_json(&c->machine))) ||
              (c->attempts && !rl_json_attach(j, "attempts", cJSON_Duplicate(c->attempts, 1))))) {
        cJSON_Delete(j);
        j = NULL;
        rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    if (!j || !c->a->capture)
        return j;
    /* --capture-output: each record gets its answer text (records follow the results) */
    cJSON *recs = cJSON_GetObjectItemCaseSensitive(j, "records");
    if (cJSON_GetArraySize(recs) == (int)n) {
        size_t i = 0;
        cJSON *r;
        cJSON_ArrayForEach(r, recs)
        {
            rl_json_add_str(r, "output", res[i]->output ? res[i]->output : "");
            i++;
        }
    }
    return j;
}

/* Put the current point into the bundle; with post, hand the printed bundle to the writer. */
static rl_status update_point(client_ctx *c, bool sync, rl_error *err)
{
    cJSON *j = point_json(c, err);
    if (!j)
        return err->status ? err->status : rl_fail(err, RL_EINTERNAL, "out of memory");
    if (cJSON_GetArraySize(c->points) > (int)c->point)
        cJSON_ReplaceItemInArray(c->points, (int)c->point, j);
    else
        cJSON_AddItemToArray(c->points, j);
    char now[32];
    rl_bundle_utc_now(now, sizeof now);
    cJSON_ReplaceItemInObject(c->bundle, "updated_utc", cJSON_CreateString(now));
    char *text = rl_json_print(c->bundle);
    if (!text)
        return rl_fail(err, RL_EINTERNAL, "out of memory printing the bundle");
    writer_post(&c->w, text);
    if (sync) {
        writer_drain(&c->w);
        if (c->w.st != RL_OK) {
            *err = c->w.err;
            return c->w.st;
        }
    }
    return RL_OK;
}

static const char *p50_text(const cJSON *point, const char *metric, const char *key, char *buf,
                            size_t cap)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(point, "metrics"), metric);
    const cJSON *s = key ? cJSON_GetObjectItemCaseSensitive(m, key) : m;
    double v;
    if (!rl_json_get_num(s, key ? "p50" : "value", &v))
        return "-";
    rl_snprintf(buf, cap, "%.1f", v);
    return buf;
}

/* One line for the point: live while it runs, final at the end. */
static void point_line(client_ctx *c, bool final)
{
    const cJSON *pt = cJSON_GetArrayItem(c->points, (int)c->point);
    size_t n;
    rl_client_run_results(c->run, &n);
    char t1[32], t2[32], t3[32];
    char line[256];
    rl_snprintf(line, sizeof line,
                "c=%zu  %zu/%zu done  %zu failed  TTFT p50 %s ms  TPOT p50 %s ms  decode %s "
                "tok/s%s",
                c->concurrency, n, rl_client_run_total(c->run), rl_client_run_failed(c->run),
                p50_text(pt, "ttft", "stats", t1, sizeof t1),
                p50_text(pt, "tpot", "stats", t2, sizeof t2),
                p50_text(pt, "decode_throughput", NULL, t3, sizeof t3),
                c->warmups < (size_t)c->a->warmup ? "  (warming up)" : "");
    if (final) {
        rl_progress_done();
        char safe[512];
        rl_tty_printf(stderr, "%s\n", rl_tty_escape(line, safe, sizeof safe));
    } else {
        rl_progress("%s", line);
    }
}

static void on_result(void *ud, const rl_client_run *run, const rl_client_result *res)
{
    client_ctx *c = ud;
    if (!res) {
        c->warmups++;
        point_line(c, false);
        return;
    }
    /* every finished request rewrites the bundle; past RL_CLIENT_EVERY_WRITE requests in a
     * point (each rewrite costs O(n)) at most once a second, and always at the point's end */
    size_t n;
    rl_client_run_results(run, &n);
    int64_t now = rl_proc_now_ns();
    if (n > RL_CLIENT_EVERY_WRITE && now - c->last_post_ns < 1000000000LL)
        return;
    c->last_post_ns = now;
    rl_error e;
    if (update_point(c, false, &e) == RL_OK)
        point_line(c, false);
}

/* --chunks: one JSON line per request of the point just measured. */
static rl_status write_chunks(client_ctx *c, rl_error *err)
{
    if (!c->chunks.path)
        return RL_OK;
    size_t n;
    rl_client_result *const *res = rl_client_run_results(c->run, &n);
    for (size_t i = 0; i < n; i++) {
        const rl_client_result *r = res[i];
        rl_sbuf b = {0};
        cJSON *id = rl_json_str(c->prompts.ids[r->prompt < c->prompts.n ? r->prompt : 0]);
        char *ids = id ? cJSON_PrintUnformatted(id) : NULL;
        cJSON_Delete(id);
        rl_sbuf_printf(&b,
                       "{\"concurrency\": %zu, \"prompt\": %s, \"run\": %u, \"attempts\": %u, "
                       "\"ok\": %s, \"send_ns\": %lld, \"end_ns\": %lld, \"merged\": %llu, "
                       "\"chunks\": [",
                       c->concurrency, ids ? ids : "null", rl_client_run_number(c->run, i),
                       r->attempt, r->ok ? "true" : "false", (long long)r->send_ns,
                       (long long)r->end_ns, (unsigned long long)r->chunks_merged);
        free(ids);
        for (size_t k = 0; k < r->n_chunks; k++)
            rl_sbuf_printf(&b, "%s[%lld, %u]", k ? ", " : "", (long long)r->chunks[k].t_ns,
                           r->chunks[k].bytes);
        rl_sbuf_put(&b, "]}\n", 3);
        char *text = rl_sbuf_take(&b);
        if (!text)
            return rl_fail(err, RL_EINTERNAL, "out of memory writing --chunks");
        rl_status st = rl_atomic_write(&c->chunks, text, strlen(text), err);
        free(text);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}

/* The endpoint posted to without user name, password, query or fragment (a key in the URL
 * never reaches the bundle, the report or the terminal); malloc'd, NULL when the URL does not
 * parse or memory is short. */
static char *shown_url(const rl_client_opts *a)
{
    char *shown = NULL;
    rl_error ue;
    rl_client_api api = a->api && strcmp(a->api, "completions") == 0 ? RL_CLIENT_API_COMPLETIONS
                                                                     : RL_CLIENT_API_CHAT;
    if (!a->url || rl_client_http_endpoint(a->url, api, true, &shown, &ue) != RL_OK)
        return NULL;
    return shown;
}

/* The bundle's argv as typed, with the --url value replaced by its shown form. */
static void scrub_argv(cJSON *bundle, const rl_client_opts *a)
{
    cJSON *argv = cJSON_GetObjectItemCaseSensitive(bundle, "argv"), *v;
    if (!a->url || !cJSON_IsArray(argv))
        return;
    char *shown = shown_url(a), *red = rl_url_redact(a->url); /* argv holds it redacted */
    const char *rep = shown ? shown : "(URL not shown)", *url = red ? red : a->url;
    size_t ul = strlen(url);
    cJSON_ArrayForEach(v, argv)
    {
        if (!cJSON_IsString(v))
            continue;
        const char *t = v->valuestring;
        const char *eq = strchr(t, '=');
        bool whole = strcmp(t, url) == 0;
        bool joined =
            strncmp(t, "--", 2) == 0 && eq && strlen(eq + 1) == ul && !strcmp(eq + 1, url);
        if (!whole && !joined)
            continue;
        char *nv = whole ? rl_asprintf("%s", rep) : rl_asprintf("%.*s=%s", (int)(eq - t), t, rep);
        if (nv) {
            cJSON_SetValuestring(v, nv);
            free(nv);
        }
    }
    free(shown);
    free(red);
}

/* The client section without points; NULL when out of memory. */
/* --tag and --note into the settings: "tags" (an array, empty without any), "note" (or null). */
static bool add_labels(cJSON *set, const rl_client_opts *a)
{
    cJSON *tags = cJSON_CreateArray();
    bool ok = rl_json_attach(set, "tags", tags);
    for (int i = 0; ok && i < a->n_tags; i++)
        ok = cJSON_AddItemToArray(tags, cJSON_CreateString(a->tags[i]));
    return ok && rl_json_add_str_or_null(set, "note", a->note);
}

static cJSON *client_section(client_ctx *c, const rl_client_fm_caps *caps, const char *fm_bin)
{
    rl_client_opts *a = c->a;
    cJSON *cl = cJSON_CreateObject(), *drv = cJSON_CreateObject(), *set = cJSON_CreateObject();
    cJSON *conc = cJSON_CreateArray(), *pr = cJSON_CreateObject(), *slo = cJSON_CreateObject();
    bool ok = cl && drv && set && conc && pr && slo;
    if (ok && !c->http) {
        char *cmd = rl_url_redact(a->cmd); /* a URL in the command keeps no credential */
        ok = cmd && rl_json_add_str(drv, "type", "command") && rl_json_add_str(drv, "command", cmd);
        free(cmd);
    } else if (ok) {
        char *shown = shown_url(a);
        ok = rl_json_add_str(drv, "type", "http") &&
             rl_json_add_str(drv, "url", shown ? shown : "(not a valid URL)") &&
             rl_json_add_str(drv, "api", a->api ? a->api : "chat") &&
             rl_json_add_str_or_null(drv, "model", c->n_models == 1 ? c->models[0] : NULL) &&
             (!a->key_env || rl_json_add_str(drv, "api_key_env", a->key_env));
        free(shown);
    }
    if (ok && c->n_models > 0) { /* --model A,B: each point names its own */
        cJSON *ms = cJSON_CreateArray();
        ok = rl_json_attach(drv, "models", ms);
        for (size_t i = 0; ok && i < c->n_models; i++)
            ok = cJSON_AddItemToArray(ms, cJSON_CreateString(c->models[i]));
    }
    for (int i = 0; ok && i < a->n_conc; i++)
        ok = cJSON_AddItemToArray(conc, cJSON_CreateNumber(a->conc[i]));
    ok = ok && rl_client_prompts_settings(pr, &c->prompts);
    ok = ok && rl_json_add_num_or_null(slo, "ttft_ms", a->slo.ttft_ms, a->slo.ttft_ms > 0) &&
         rl_json_add_num_or_null(slo, "tpot_ms", a->slo.tpot_ms, a->slo.tpot_ms > 0) &&
         rl_json_add_num_or_null(slo, "e2e_ms", a->slo.e2e_ms, a->slo.e2e_ms > 0);
    ok = ok && rl_json_add_str(set, "kind", "controlled") &&
         rl_json_add_i64(set, "warmup", a->warmup) && rl_json_add_i64(set, "runs", a->runs) &&
         rl_json_add_i64(set, "retry", a->retry) && rl_json_add_num(set, "timeout_s", a->timeout) &&
         rl_json_add_num_or_null(set, "max_tokens", a->max_tokens, a->max_tokens > 0);
    if (ok) {
        cJSON_AddItemToObject(set, "concurrency", conc);
        conc = NULL;
    }
    ok = ok && rl_json_add_num_or_null(set, "request_rate", a->rate, a->rate > 0) &&
         rl_json_add_num_or_null(set, "ramp_up_ms", a->ramp, a->ramp > 0) &&
         cJSON_AddBoolToObject(set, "fail_fast", a->fail_fast) &&
         cJSON_AddBoolToObject(set, "capture_output", a->capture) && add_labels(set, a);
    if (ok) {
        cJSON_AddItemToObject(set, "prompts", pr);
        cJSON_AddItemToObject(set, "slo", slo);
        pr = slo = NULL;
    }
    if (ok) {
        cJSON_AddItemToObject(cl, "driver", drv);
        drv = NULL;
    }
    ok = ok && rl_json_attach(cl, "tokens", rl_client_tokens_json(NULL, "none"));
    if (ok && c->fm_models) {
        ok = rl_json_attach(cl, "fm_models", c->fm_models);
        c->fm_models = NULL; /* the bundle's now */
    }
    if (ok && caps)
        ok = rl_json_attach(cl, "capabilities", rl_client_fm_json(caps, fm_bin));
    if (ok) {
        cJSON_AddItemToObject(cl, "settings", set);
        set = NULL;
    }
    ok = ok && rl_json_attach(cl, "prompts", rl_client_prompts_json(&c->prompts)) &&
         rl_json_attach(cl, "points", cJSON_CreateArray());
    cJSON_Delete(drv);
    cJSON_Delete(set);
    cJSON_Delete(conc);
    cJSON_Delete(pr);
    cJSON_Delete(slo);
    if (!ok) {
        cJSON_Delete(cl);
        return NULL;
    }
    return cl;
}

/* The tokens object at the end: the counter's, else what the transport gave. */
static void set_tokens(client_ctx *c)
{
    cJSON *cl = cJSON_GetObjectItemCaseSensitive(c->bundle, "client");
    const char *src = "none";
    if (c->http) {
        const cJSON *pt;
        cJSON_ArrayForEach(pt, c->points)
        {
            const cJSON *r;
            cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(pt, "records"))
            {
                const char *s = rl_json_get_str(r, "token_source");
                if (s && strcmp(src, "none") == 0)
                    src = strcmp(s, "usage") == 0 ? "usage" : "per-delta";
            }
        }
    }
    cJSON *t = rl_client_tokens_json(c->have_counter ? &c->counter : NULL, src);
    if (t)
        cJSON_ReplaceItemInObject(cl, "tokens", t);
}

/* The measured server of a point (measure/quiet.h): --server-pid, else for a loopback --url
 * the processes listening on its port, else none and why. Looked up before every point: a
 * server restarted between points is found again. */
static void find_server(const client_ctx *c, rl_quiet_server *srv)
{
    memset(srv, 0, sizeof *srv);
    srv->recorded = true;
    if (c->a->server_pid > 0) {
        srv->n = 1;
        srv->pid[0] = c->a->server_pid;
        rl_snprintf(srv->how, sizeof srv->how, "named by --server-pid");
        return;
    }
    if (!c->http) {
        rl_snprintf(srv->why, sizeof srv->why,
                    "the command driver: what the command runs counts as ours once it exits; a "
                    "server it talks to is another process unless named with --server-pid");
        return;
    }
    char host[256] = "", safe[300];
    unsigned port = 0;
    rl_error e;
    if (rl_client_http_host_port(c->a->url, host, sizeof host, &port, &e) != RL_OK || port == 0) {
        rl_snprintf(srv->why, sizeof srv->why, "the URL's host and port could not be read");
        return;
    }
    if (!rl_url_host_is_loopback(host)) {
        rl_snprintf(srv->why, sizeof srv->why,
                    "the server %s is not a loopback address of this machine: a local server "
                    "reached by another name is counted only when named with --server-pid",
                    rl_tty_escape(host, safe, sizeof safe));
        return;
    }
    rl_quiet_find_listener(NULL, port, srv);
}

/* Measure one operating point. */
static rl_status measure_point(client_ctx *c, const char *api_key, rl_error *err)
{
    c->run = rl_client_run_new(&c->plan, on_result, c);
    if (!c->run)
        return rl_fail(err, RL_EINTERNAL, "out of memory planning the requests");
    c->warmups = 0;
    c->have_machine = false;
    if (c->a->wait_quiet_s > 0 && !rl_quiet_wait(NULL, c->a->wait_quiet_s, c->a->quiet, NULL) &&
        rl_interrupted)
        return rl_fail(err, RL_EINTERRUPTED, "interrupted while waiting for a quiet machine");
    rl_quiet_snap q0, q1;
    rl_quiet_server srv;
    find_server(c, &srv);
    rl_quiet_take_server(NULL, &srv, &q0, NULL);
    c->point_start_ns = rl_proc_now_ns();
    rl_status st = update_point(c, true, err);
    if (st != RL_OK)
        return st;
    point_line(c, false);
    rl_client_sched s = rl_client_run_sched(c->run);
    if (!c->http) {
        rl_client_cmd_cfg cfg = {c->cmd_now ? c->cmd_now : c->a->cmd, c->concurrency};
        st = rl_client_cmd_run(&cfg, &s, err);
    } else {
        rl_client_http_cfg cfg = {0};
        cfg.url = c->a->url;
        cfg.model = c->model_now;
        cfg.api_key = api_key;
        cfg.api = c->a->api && strcmp(c->a->api, "completions") == 0 ? RL_CLIENT_API_COMPLETIONS
                                                                     : RL_CLIENT_API_CHAT;
        cfg.concurrency = c->concurrency;
        st = rl_client_http_run(&cfg, &s, err);
    }
    rl_quiet_take_server(NULL, &srv, &q1, NULL);
    rl_quiet_between(&q0, &q1, c->a->quiet, &c->machine);
    c->have_machine = true;
    writer_drain(&c->w);
    /* token counts: only now, so counting never delays requests in flight */
    if (st == RL_OK && c->have_counter) {
        size_t n;
        rl_client_result *const *res = rl_client_run_results(c->run, &n);
        st = rl_client_counter_settle(&c->counter, res, n, (const char *const *)c->prompts.texts,
                                      c->prompts.lens, err);
    }
    rl_error e2;
    rl_status wst = update_point(c, true, &e2);
    point_line(c, true);
    rl_error e3;
    rl_status cst = write_chunks(c, &e3);
    if (st == RL_OK && wst != RL_OK) {
        *err = e2;
        st = wst;
    }
    if (st == RL_OK && cst != RL_OK) {
        *err = e3;
        st = cst;
    }
    return st;
}

/* --json: the bundle on stdout; st, or an out-of-memory failure in saved. */
static rl_status print_bundle(const cJSON *bundle, rl_status st, rl_error *saved)
{
    rl_error e;
    if (rl_json_to_stdout(bundle, &e) != RL_OK && st == RL_OK) {
        *saved = e;
        return e.status;
    }
    return st;
}

/* The text summary: stdout, or stderr when stdout carries the CSV (--csv -). */
static void print_summary(FILE *out, client_ctx *c, const char *bundle_path, const char *page)
{
    char safe[1024], banner[1024];
    char *shown = c->http ? shown_url(c->a) : rl_url_redact(c->a->cmd); /* no credential */
    if (rl_report_disturbed(c->bundle, banner, sizeof banner)) /* first, as diagnose says it */
        rl_tty_printf(out, "\nDISTURBED: %s", banner);
    rl_tty_printf(out, "\nclient: %s\n",
                  shown     ? shown
                  : c->http ? "(URL not shown)"
                            : "(not shown)");
    free(shown);
    for (int i = 0; i < c->a->n_tags; i++)
        rl_tty_printf(out, "%s%s%s",
                      i ? ", " : "  tags: ", rl_tty_escape(c->a->tags[i], safe, sizeof safe),
                      i + 1 == c->a->n_tags ? "\n" : "");
    if (c->a->note)
        rl_tty_printf(out, "  note: %s\n", rl_tty_escape(c->a->note, safe, sizeof safe));
    rl_report_client_table(out, c->bundle);
    if (c->a->histogram)
        rl_report_client_histogram(out, c->bundle);
    const cJSON *pt;
    cJSON_ArrayForEach(pt, c->points)
    {
        uint64_t conc = 0;
        rl_json_get_u64(pt, "concurrency", &conc);
        /* the first failure's reason, escaped */
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(pt, "records"))
        {
            bool ok = true;
            if (rl_json_get_bool(r, "ok", &ok) && !ok) {
                const char *e = rl_json_get_str(r, "error");
                rl_tty_printf(out, "  concurrency %llu, first failure: %s\n",
                              (unsigned long long)conc,
                              rl_tty_escape(e ? e : "?", safe, sizeof safe));
                break;
            }
        }
    }
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(c->bundle, "client"), "tokens");
    const cJSON *cal = cJSON_GetObjectItemCaseSensitive(tok, "calibration");
    const char *why = rl_json_get_str(cal, "reason");
    if (why)
        rl_tty_printf(out, "  tokens: unavailable: %s\n", rl_tty_escape(why, safe, sizeof safe));
    rl_tty_printf(out, "wrote %s\n", rl_tty_escape(bundle_path, safe, sizeof safe));
    if (page)
        rl_tty_printf(out, "wrote %s\n", rl_tty_escape(page, safe, sizeof safe));
}

/* Did every measured request fail because the shell could not find or run the program? */
static bool all_missing(client_ctx *c)
{
    size_t total = 0, missing = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, c->points)
    {
        const cJSON *r;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(pt, "records"))
        {
            const char *e = rl_json_get_str(r, "error");
            total++;
            missing += e && (strncmp(e, "exit 127", 8) == 0 || strncmp(e, "exit 126", 8) == 0);
        }
    }
    return total > 0 && missing == total;
}

static size_t total_ok(client_ctx *c)
{
    size_t n = 0;
    const cJSON *pt;
    cJSON_ArrayForEach(pt, c->points)
    {
        uint64_t k = 0;
        rl_json_get_u64(cJSON_GetObjectItemCaseSensitive(pt, "requests"), "ok", &k);
        n += k;
    }
    return n;
}

static rl_status from_bundle(const rl_client_opts *a, rl_error *err)
{
    cJSON *b = NULL;
    rl_status st = rl_check_outputs(&(rl_path_arg){"--from", a->from}, 1,
                                    &(rl_path_arg){"--csv", a->csv}, 1, err);
    if (st == RL_OK)
        st = rl_bundle_load(a->from, &b, err);
    if (st == RL_OK)
        st = rl_client_csv_write(b, a->csv, err);
    cJSON_Delete(b);
    return st;
}
/* ---- the session ------------------------------------------------------------------------ */

/* What a session holds besides the measurement context; freed by free_session. */
typedef struct {
    client_ctx c;
    const char *api_key;
    char *bundle_path, *page;
    rl_client_fm_caps caps;
    bool have_caps;
    char fm_bin[512];
    char *fm_counter;
    bool stopped;
    char gate[1024]; /* why the --fail-on-slo / --ci gate failed, "" when it passed */
} session;

/* The gate's flag as the user gave it: "--fail-on-slo 95" or "--ci". */
static const char *gate_flag(const rl_client_opts *a, char *buf, size_t cap)
{
    if (a->fail_on_slo > 0)
        rl_snprintf(buf, cap, "--fail-on-slo %g", a->fail_on_slo);
    else
        rl_snprintf(buf, cap, "--ci");
    return buf;
}

/* --api-key-env: the key from the environment, which must be set. */
static rl_status read_api_key(session *s, rl_error *err)
{
    const rl_client_opts *a = s->c.a;
    if (!a->key_env)
        return RL_OK;
    s->api_key = getenv(a->key_env);
    if (!s->api_key || !*s->api_key) {
        char safe[128];
        return rl_fail(err, RL_EINPUT,
                       "--api-key-env: the environment variable %s is not set or empty",
                       rl_tty_escape(a->key_env, safe, sizeof safe));
    }
    return RL_OK;
}

/* --server-pid names a process of this machine, not this one (its time is ours already). */
static rl_status check_server_pid(const rl_client_opts *a, rl_error *err)
{
    if (a->server_pid <= 0)
        return RL_OK;
    if (a->server_pid == (int)getpid())
        return rl_fail(err, RL_EINPUT,
                       "--server-pid %d is this llama-roofline: give the pid of the server the "
                       "client talks to",
                       a->server_pid);
    if (!rl_quiet_pid_alive(NULL, a->server_pid))
        return rl_fail(err, RL_EINPUT,
                       "--server-pid %d: no such process on this machine (/proc/%d/stat): give "
                       "the pid of the server the client talks to",
                       a->server_pid, a->server_pid);
    return RL_OK;
}

/* The prompts, at most MAX_REQUESTS requests per point (freed here when too many). */
static rl_status load_prompts(session *s, rl_error *err)
{
    client_ctx *c = &s->c;
    const rl_client_opts *a = c->a;
    rl_client_prompt_spec spec = {a->prompts_file, a->prompt, (size_t)a->n_prompt, a->profile};
    rl_status st = rl_client_prompts_load(&spec, &c->prompts, err);
    if (st != RL_OK)
        return st;
    if (c->prompts.n * (size_t)a->runs > MAX_REQUESTS) {
        rl_client_prompts_free(&c->prompts);
        return rl_fail(err, RL_EINPUT,
                       "%zu prompts x --runs %d is more than %d requests per operating point: "
                       "lower --runs",
                       c->prompts.n, a->runs, MAX_REQUESTS);
    }
    return RL_OK;
}

/* Where the bundle goes; checked before anything is measured. */
static rl_status open_outputs(session *s, rl_error *err)
{
    rl_client_opts *a = s->c.a;
    rl_status st = RL_OK;
    if (!a->json && !a->out_dir)
        a->out_dir = "llama-roofline-out";
    if (a->out_dir) {
        st = rl_mkdir_p(a->out_dir, "choose a writable -o directory", err);
        s->bundle_path = rl_asprintf("%s/bundle.json", a->out_dir);
        s->page = rl_asprintf("%s/%s", a->out_dir, RL_REPORT_FILE);
    } else {
        s->bundle_path = rl_strdup(a->json);
    }
    if (st == RL_OK && (!s->bundle_path || (a->out_dir && !s->page)))
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    const char *flag = a->out_dir ? "-o" : "--bundle";
    rl_path_arg in[] = {{"--prompts", a->prompts_file}, {"--fm-help-cmd", a->fm_help}};
    rl_path_arg out[] = {
        {flag, s->bundle_path}, {flag, s->page}, {"--csv", a->csv}, {"--chunks", a->chunks}};
    if (st == RL_OK)
        st = rl_check_outputs(in, 2, out, 4, err);
    if (st == RL_OK)
        st = rl_check_writable(s->bundle_path, err);
    if (st == RL_OK)
        st = rl_output_lock(s->bundle_path, a->out_dir ? a->out_dir : a->json,
                            a->out_dir ? "choose another -o" : "choose another --bundle", err);
    if (st == RL_OK && a->csv && strcmp(a->csv, "-") != 0)
        st = rl_check_writable(a->csv, err);
    if (st == RL_OK && a->chunks && (st = rl_atomic_open(a->chunks, &s->c.chunks, err)) == RL_OK)
        s->c.chunks.finish = true; /* what was measured is kept after Ctrl-C */
    return st;
}

/* fm's capabilities and the token counter. */
/* fm's own view of the requested models (`fm models`, or `fm available` on 27.0): an
 * unavailable or unlisted one is skipped with fm's reason, kept in client.fm_models; none
 * usable is bad input. A listing that cannot be read skips nothing (the requests will tell). */
static rl_status fm_availability(session *s, rl_error *err)
{
    client_ctx *c = &s->c;
    rl_client_fm_model list[RL_CLIENT_FM_MAX_MODELS];
    size_t n = 0;
    char why[256];
    rl_status st = rl_client_fm_models(s->fm_bin, s->caps.model_list_command, 15, list,
                                       RL_CLIENT_FM_MAX_MODELS, &n, why, sizeof why, err);
    if (st != RL_OK)
        return st;
    c->fm_models = cJSON_CreateArray();
    if (!c->fm_models)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    char skipped[1024] = "";
    size_t kept = 0, slen = 0;
    for (size_t i = 0; i < c->n_models; i++) {
        const rl_client_fm_model *m = NULL;
        for (size_t k = 0; k < n && !m; k++)
            m = strcmp(list[k].name, c->models[i]) == 0 ? &list[k] : NULL;
        const char *reason = n == 0          ? NULL
                             : !m            ? "not listed by fm"
                             : !m->available ? (m->note[0] ? m->note : "unavailable")
                                             : NULL;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(c->fm_models, o);
        rl_json_add_str(o, "name", c->models[i]);
        cJSON_AddBoolToObject(o, "available", m ? m->available : n == 0);
        rl_json_add_str_or_null(o, m && m->available ? "identity" : "reason",
                                m && m->available ? (m->note[0] ? m->note : NULL)
                                : reason          ? reason
                                                  : why);
        cJSON_AddBoolToObject(o, "skipped", reason != NULL);
        if (!reason) {
            c->models[kept++] = c->models[i];
            continue;
        }
        char safe[300];
        slen += (size_t)rl_snprintf(
            skipped + slen, slen < sizeof skipped ? sizeof skipped - slen : 0, "%s%s: %s",
            slen ? "; " : "", c->models[i], rl_tty_escape(reason, safe, sizeof safe));
        if (slen >= sizeof skipped)
            slen = sizeof skipped - 1;
        free(c->models[i]);
    }
    c->n_models = kept;
    if (kept == 0)
        return rl_fail(err, RL_EINPUT, "no requested model is usable right now (%s): see `%s %s`",
                       skipped, s->fm_bin, s->caps.model_list_command);
    if (skipped[0])
        rl_tty_printf(stderr, "client: skipped, as fm reports them: %s\n", skipped);
    return RL_OK;
}

static rl_status probe_fm(session *s, rl_error *err)
{
    client_ctx *c = &s->c;
    rl_client_opts *a = c->a;
    rl_status st = RL_OK;
    if (!c->http && (a->fm_help ? (rl_snprintf(s->fm_bin, sizeof s->fm_bin, "%s", a->fm_help), true)
                                : rl_client_fm_detect(a->cmd, s->fm_bin, sizeof s->fm_bin))) {
        st = rl_client_fm_probe(s->fm_bin, a->timeout < 15 ? a->timeout : 15, &s->caps, err);
        s->have_caps = st == RL_OK;
        if (s->have_caps && !a->count_cmd && s->caps.token_count_command)
            a->count_cmd = s->fm_counter =
                rl_asprintf("%s %s --quiet", s->fm_bin, s->caps.token_count_command);
    }
    if (st == RL_OK && s->have_caps && s->caps.model_list_command && c->n_models > 0)
        st = fm_availability(s, err);
    if (st == RL_OK && a->count_cmd) {
        rl_progress("client: calibrating the token counter");
        st = rl_client_counter_init(&c->counter, a->count_cmd, a->timeout, c->prompts.n, err);
        c->have_counter = st == RL_OK;
        rl_progress_done();
    }
    return st;
}

/* The bundle: argv, environment and the client section without points. */
static rl_status build_bundle(session *s, rl_error *err)
{
    client_ctx *c = &s->c;
    int targc = 0;
    char *const *targv = rl_opt_typed(&targc);
    c->bundle = rl_bundle_new("client", targc, targv);
    if (c->bundle)
        scrub_argv(c->bundle, c->a);
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    cJSON *cl = c->bundle ? client_section(c, s->have_caps ? &s->caps : NULL, s->fm_bin) : NULL;
    if (!c->bundle || !rl_json_attach(c->bundle, "environment", rl_sysinfo_to_json(&si)) ||
        !rl_json_attach(c->bundle, "client", cl))
        return rl_fail(err, RL_EINTERNAL, "out of memory building the bundle");
    c->points = cJSON_GetObjectItemCaseSensitive(cl, "points");
    return RL_OK;
}

static rl_status start_writer(session *s, rl_error *err)
{
    writer *w = &s->c.w;
    w->path = s->bundle_path;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->th, NULL, writer_main, w) != 0)
        return rl_fail(err, RL_EINTERNAL, "cannot start the bundle writer thread");
    w->started = true;
    return RL_OK;
}

/* One point, measured again while it was disturbed and --retry-disturbed allows: each earlier
 * try is kept in the point's "attempts" (kind measured); the point itself is the last. */
static rl_status measure_point_retried(client_ctx *c, const char *api_key, rl_error *err)
{
    rl_status st = RL_OK;
    for (int attempt = 0;; attempt++) {
        st = measure_point(c, api_key, err);
        if (st != RL_OK || !c->machine.disturbed || attempt >= c->a->retry_disturbed ||
            rl_client_run_stopped(c->run))
            break;
        cJSON *prev = cJSON_Duplicate(cJSON_GetArrayItem(c->points, (int)c->point), 1);
        if (prev)
            cJSON_DeleteItemFromObjectCaseSensitive(prev, "attempts");
        if (!c->attempts)
            c->attempts = cJSON_CreateArray();
        if (!prev || !c->attempts || !rl_json_add_str(prev, "kind", "measured") ||
            !rl_json_push(c->attempts, prev)) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory keeping a disturbed point");
            break;
        }
        rl_progress_done();
        rl_tty_printf(
            stderr,
            "llama-roofline client: concurrency %zu was disturbed (%s): measuring it again "
            "(%d of %d)\n",
            c->concurrency, c->machine.why, attempt + 1, c->a->retry_disturbed);
        rl_client_run_free(c->run);
        c->run = NULL;
    }
    cJSON_Delete(c->attempts);
    c->attempts = NULL;
    return st;
}

/* The operating points, one per --concurrency value, until one fails or --fail-fast stops. */
/* --cmd for the current model: every {model} replaced by the model name, shell-quoted. */
static rl_status model_command(client_ctx *c, rl_error *err)
{
    free(c->cmd_now);
    c->cmd_now = NULL;
    if (c->http || !c->model_now)
        return RL_OK;
    rl_sbuf b = {0};
    const char *p = c->a->cmd, *hit;
    while ((hit = strstr(p, "{model}")) != NULL) {
        rl_sbuf_put(&b, p, (size_t)(hit - p));
        rl_sh_quote(&b, c->model_now);
        p = hit + strlen("{model}");
    }
    rl_sbuf_put(&b, p, strlen(p));
    c->cmd_now = rl_sbuf_take(&b);
    return c->cmd_now ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory building the command");
}

/* --model A,B,...: the names, each non-empty, at most RL_CLIENT_MAX_MODELS, no repeats. */
static rl_status split_models(client_ctx *c, rl_error *err)
{
    const char *p = c->a->model;
    if (!p)
        return RL_OK;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return rl_fail(err, RL_EINPUT, "--model: an empty name in '%s'", c->a->model);
        if (c->n_models == RL_CLIENT_MAX_MODELS)
            return rl_fail(err, RL_EINPUT, "--model: at most %d models", RL_CLIENT_MAX_MODELS);
        char *m = strndup(p, n);
        if (!m)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        for (size_t i = 0; i < c->n_models; i++)
            if (strcmp(c->models[i], m) == 0) {
                char safe[128];
                rl_fail(err, RL_EINPUT, "--model names '%s' twice",
                        rl_tty_escape(m, safe, sizeof safe));
                free(m);
                return RL_EINPUT;
            }
        c->models[c->n_models++] = m;
        if (p[n] == '\0')
            return RL_OK;
        p += n + 1;
    }
}

static rl_status measure_points(session *s, rl_error *err)
{
    client_ctx *c = &s->c;
    const rl_client_opts *a = c->a;
    c->plan.prompts = (const char *const *)c->prompts.texts;
    c->plan.prompt_lens = c->prompts.lens;
    c->plan.max_tokens = c->prompts.max_tokens;
    c->plan.n_prompts = c->prompts.n;
    c->plan.runs = (unsigned)a->runs;
    c->plan.warmup = (unsigned)a->warmup;
    c->plan.retry = (unsigned)a->retry;
    c->plan.timeout = a->timeout;
    c->plan.max_tokens_default = a->max_tokens;
    c->plan.request_rate = a->rate;
    c->plan.ramp_up_ms = a->ramp;
    c->plan.fail_fast = a->fail_fast;
    rl_status st = RL_OK;
    size_t nm = c->n_models ? c->n_models : 1;
    for (size_t m = 0; st == RL_OK && m < nm && !s->stopped; m++) {
        c->model_now = c->n_models ? c->models[m] : NULL;
        st = model_command(c, err);
        for (int i = 0; st == RL_OK && i < a->n_conc && !s->stopped; i++) {
            c->concurrency = (size_t)a->conc[i];
            c->plan.concurrency = c->concurrency;
            c->point = m * (size_t)a->n_conc + (size_t)i;
            st = measure_point_retried(c, s->api_key, err);
            s->stopped = rl_client_run_stopped(c->run);
            rl_client_run_free(c->run);
            c->run = NULL;
        }
    }
    return st;
}

/* The final bundle write: status set, writer thread drained and stopped, then written
 * synchronously; a failed write (or an earlier failed background write) replaces an OK or
 * interrupted st and its message in *saved. */
/* The gate of --fail-on-slo PCT / --ci over the final points (client_metrics.h): its reasons
 * into buf ("" when it passes) and client.gate. */
static void gate_eval(client_ctx *c, char *buf, size_t cap)
{
    const rl_client_opts *a = c->a;
    bool slo = a->slo.ttft_ms > 0 || a->slo.tpot_ms > 0 || a->slo.e2e_ms > 0;
    double pct = a->fail_on_slo > 0 ? a->fail_on_slo : slo ? 100 : 0;
    cJSON *gate = rl_client_gate_json(c->points, pct, buf, cap);
    if (!rl_json_attach(cJSON_GetObjectItemCaseSensitive(c->bundle, "client"), "gate", gate))
        rl_snprintf(buf, cap, "out of memory judging the gate");
}

static rl_status write_final_bundle(session *s, rl_status st, rl_error *err, rl_error *saved)
{
    client_ctx *c = &s->c;
    set_tokens(c);
    cJSON *env = cJSON_GetObjectItemCaseSensitive(c->bundle, "environment");
    if (cJSON_IsObject(env))
        rl_json_attach(env, "machine_state", rl_quiet_summary_json(c->bundle, c->a->quiet));
    /* the points' disturbance (analysis, warnings) before the status: a failure here is one */
    rl_error ae;
    if (rl_bundle_analyze_client(c->bundle, &ae) != RL_OK &&
        (st == RL_OK || st == RL_EINTERRUPTED)) {
        st = ae.status;
        *err = ae;
        *saved = ae;
    }
    if (c->a->fail_on_slo > 0 || c->a->ci)
        gate_eval(c, s->gate, sizeof s->gate);
    const char *state = st == RL_EINTERRUPTED ? "interrupted"
                        : st != RL_OK         ? "failed"
                        : s->stopped          ? "failed"
                                              : "complete";
    rl_bundle_set_status(c->bundle, state,
                         st != RL_OK  ? err->msg
                         : s->stopped ? "--fail-fast: stopped at the first failed request"
                                      : NULL);
    writer_drain(&c->w);
    writer_stop(&c->w);
    rl_error we;
    rl_status wst = rl_bundle_write(c->bundle, s->bundle_path, &we);
    if (wst == RL_OK && c->w.st != RL_OK) {
        wst = c->w.st;
        we = c->w.err;
    }
    if (wst != RL_OK && (st == RL_OK || st == RL_EINTERRUPTED)) {
        st = wst;
        *saved = we;
    }
    return st;
}

/* The end: final bundle, report, exports, summary, and the verdict on what was measured. */
static rl_status finish(session *s, rl_status st, rl_error *err)
{
    client_ctx *c = &s->c;
    const rl_client_opts *a = c->a;
    if (!c->bundle || !c->w.started)
        return st;
    rl_error saved = *err;
    st = write_final_bundle(s, st, err, &saved);
    bool measured = st == RL_OK || st == RL_EINTERRUPTED;
    bool have_page = false;
    if (measured && s->page) {
        rl_session_end_opts end = {"client", a->out_dir, RL_SESSION_OK_ONLY | RL_SESSION_PAGE_WARNS,
                                   false};
        rl_error re;
        rl_session_end(&end, c->bundle, st, &re);
        have_page = end.wrote_page;
    }
    if (measured && a->csv) {
        rl_error ce;
        rl_status cst = rl_client_csv_write(c->bundle, a->csv, &ce);
        if (cst != RL_OK && st == RL_OK) {
            st = cst;
            saved = ce;
        }
    }
    if (c->chunks.path) {
        rl_error ke;
        rl_status kst = rl_atomic_commit(&c->chunks, &ke);
        if (kst != RL_OK && st == RL_OK) {
            st = kst;
            saved = ke;
        }
    }
    if (measured && a->json_stdout)
        st = print_bundle(c->bundle, st, &saved);
    if (measured)
        print_summary((a->csv && strcmp(a->csv, "-") == 0) || a->json_stdout ? stderr : stdout, c,
                      s->bundle_path, have_page ? s->page : NULL);
    *err = saved;
    if (st == RL_EINTERRUPTED)
        st = rl_session_interrupted("client", a->out_dir, s->bundle_path, c->bundle, err);
    else if (st == RL_OK && all_missing(c))
        st = rl_fail(err, RL_EMISSING,
                     "every request failed because the shell could not run the command "
                     "(exit 127/126): check the program in --cmd");
    else if (st == RL_OK && s->stopped)
        st = rl_fail(err, RL_NOTHING,
                     "--fail-fast: stopped at the first failed request "
                     "(the bundle keeps what was measured)");
    else if (st == RL_OK && total_ok(c) == 0)
        st = rl_fail(err, RL_NOTHING,
                     "no request succeeded: see the errors in the summary and the bundle");
    else if (st == RL_OK && (a->fail_on_slo > 0 || a->ci)) {
        char flag[64];
        const cJSON *bar =
            rl_json_get(rl_json_get(rl_json_get(c->bundle, "client"), "gate"), "fail_below_pct");
        if (s->gate[0])
            st = rl_fail(err, RL_NOTHING, "SLO gate failed (%s): %s",
                         gate_flag(a, flag, sizeof flag), s->gate);
        else
            rl_tty_printf(stderr, "SLO gate passed (%s): no request failed%s\n",
                          gate_flag(a, flag, sizeof flag),
                          cJSON_IsNumber(bar) ? ", goodput at or above the bar at every point"
                                              : "");
    }
    return st;
}

static void free_session(session *s)
{
    client_ctx *c = &s->c;
    if (c->w.started)
        writer_stop(&c->w);
    if (c->chunks.path)
        rl_atomic_abort(&c->chunks); /* not measured: nothing kept */
    rl_client_run_free(c->run);
    if (c->have_counter || c->counter.command)
        rl_client_counter_free(&c->counter);
    free(s->fm_counter);
    cJSON_Delete(c->bundle);
    for (size_t i = 0; i < c->n_models; i++)
        free(c->models[i]);
    free(c->cmd_now);
    cJSON_Delete(c->fm_models);
    rl_client_prompts_free(&c->prompts);
    free(s->bundle_path);
    free(s->page);
}

rl_status rl_client_run_session(const rl_client_opts *o, rl_error *err)
{
    rl_client_opts a = *o; /* a copy: the defaults and fm's counter below fill it in */
    if (a.from)
        return from_bundle(&a, err);
    if (a.n_conc == 0) {
        a.conc[0] = rl_defaults.client_concurrency;
        a.n_conc = 1;
    }
    session s = {0};
    s.c.a = &a;
    s.c.http = a.url != NULL;
    rl_status st = read_api_key(&s, err);
    if (st == RL_OK)
        st = split_models(&s.c, err);
    if (st == RL_OK)
        st = check_server_pid(&a, err);
    if (st == RL_OK)
        st = load_prompts(&s, err);
    if (st != RL_OK) {
        free_session(&s);
        return st;
    }
    st = open_outputs(&s, err);
    if (st == RL_OK)
        st = probe_fm(&s, err);
    if (st == RL_OK)
        st = build_bundle(&s, err);
    if (st == RL_OK)
        st = start_writer(&s, err);
    if (st == RL_OK)
        st = measure_points(&s, err);
    st = finish(&s, st, err);
    free_session(&s);
    return st;
}
