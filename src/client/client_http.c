/* SPDX-License-Identifier: MIT */
/* client_http.c: the HTTP streaming driver (client_driver.h, client_http.h): POST one streaming
 * request per job to an OpenAI-compatible endpoint through libcurl's multi interface, read the
 * Server-Sent Events answer (client_sse.h) and timestamp every piece of answer text.
 *
 * Requests: chat {"model"?, "messages": [{"role": "user", "content": PROMPT}], "stream": true,
 * "stream_options": {"include_usage": true}, "max_tokens"?}; completions the same with
 * "prompt": PROMPT instead of "messages". Headers: Content-Type: application/json, Accept:
 * text/event-stream, no "Expect: 100-continue" (it would stall large prompts), and
 * Authorization: Bearer KEY only with an API key. The key lives only in libcurl's header
 * list: no verbose mode, and no message here ever includes a header. Redirects are not
 * followed (a POST that is redirected is a failed request with its HTTP status). Proxies from
 * the environment (http_proxy, no_proxy) apply as libcurl reads them.
 *
 * Timing: the write callback reads CLOCK_MONOTONIC first, then parses. A chunk is the answer
 * text completed by one write callback (all the content deltas whose events ended in those
 * bytes), stamped with that callback's time; deltas with no text (role-only, keep-alives,
 * usage) record nothing. curl_multi_poll waits at most 100 ms so an interrupt is seen.
 *
 * Answer shapes read from each event's JSON: choices[0].delta.content (chat: OpenAI, vLLM,
 * llama-server, ollama's /v1) after choices[0].delta.reasoning_content or .reasoning (a
 * reasoning model's thinking, generated text that usage counts too), choices[0].text
 * (completions), and llama-server's native
 * /completion stream ({"content": ..., "stop": ...}, tokens_evaluated/tokens_predicted in the
 * last event). {"error": ...} in the stream fails the request with the server's message.
 *
 * Tokens: "usage" (prompt_tokens, completion_tokens) when the server sends it (asked for with
 * stream_options), token_source "usage"; otherwise one token per content delta with text
 * (token_source "per-delta"), a proxy: a server may put several tokens in one delta or hold a
 * partial UTF-8 character back. Chunks always carry their per-delta count.
 *
 * Outcome: ok when the status is 200, libcurl finished cleanly and the stream ended with
 * data: [DONE] or a finish_reason (stop). Otherwise a failed result with one line: "HTTP 500:
 * <first body line>", "malformed SSE event: ...", "timed out after N s", "interrupted", or what
 * went wrong before or under the answer, naming HOST (host[:port] only, never credentials):
 * "cannot resolve host NAME (DNS)...", "cannot connect to HOST: Connection refused", "cannot
 * connect to HOST within N s", "TLS with HOST failed: ...", "no response from HOST within N s",
 * "HOST closed the connection without a response", "not an HTTP response from HOST (no status
 * line): ...", "protocol error: HOST sent a malformed HTTP status line (...)", "protocol error:
 * HOST sent interim HTTP 100 responses and never a final status", "the stream from HOST broke
 * off: <libcurl's reason>" (transport_error).
 *
 * Ownership: every result goes to the scheduler's done(); jobs' strings are the scheduler's. */
#include "client/client_http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "client/client_sse.h"
#include "base/proc.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_url.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

#define BODY_KEEP 4096 /* first bytes of an answer kept for its error message */
#define SHOW_MAX 160   /* bytes of untrusted text shown in one error message */
#define POLL_MS 100    /* longest wait in curl_multi_poll */

typedef struct run run;

typedef struct {
    run *r;
    bool busy;
    CURL *easy;
    rl_client_result *res;
    rl_client_job job;
    char *body; /* the request JSON (cJSON allocation) */
    rl_sse sse;
    rl_sbuf text;        /* answer text completed by the current write callback */
    int32_t call_deltas; /* content deltas with text in the current write callback */
    int64_t deltas;      /* all of them */
    int64_t last_ns;     /* the last write callback */
    int status;          /* HTTP status once the first body bytes came, else 0 */
    bool done_seen, finish_seen, usage_seen, events_seen;
    char *fail; /* our reason to stop the transfer (malformed, oversize, server error) */
    char keep[BODY_KEEP];
    size_t keep_len;
    char errbuf[CURL_ERROR_SIZE];
} slot;

struct run {
    const rl_client_http_cfg *cfg;
    const rl_client_sched *s;
    CURLM *multi;
    struct curl_slist *headers;
    char *url;      /* the endpoint posted to */
    char *shown;    /* the same without credentials, query or fragment */
    char host[300]; /* host[:port] of the endpoint, for failure messages (escaped) */
    char name[300]; /* the host alone (escaped): the name DNS is asked for */
    slot *slots;
    size_t n_slots, inflight;
    bool oom; /* a response could not be parsed or kept for lack of memory: the run stops */
};

/* ---- URLs ---------------------------------------------------------------------------- */

rl_status rl_client_http_endpoint(const char *url, rl_client_api api, bool redact, char **out,
                                  rl_error *err)
{
    *out = NULL;
    char shown[256];
    rl_url_shown(url ? url : "", shown, sizeof shown); /* credentials redacted (rl_url.h) */
    CURLU *u = curl_url();
    if (!u)
        return rl_fail(err, RL_EINTERNAL, "out of memory parsing a URL");
    char *scheme = NULL, *path = NULL, *full = NULL;
    rl_status st = RL_OK;
    CURLUcode uc = url ? curl_url_set(u, CURLUPART_URL, url, 0) : CURLUE_MALFORMED_INPUT;
    if (uc != CURLUE_OK) {
        st = rl_fail(err, RL_EINPUT,
                     "URL '%s' is not a URL (%s): give one like http://127.0.0.1:8080", shown,
                     curl_url_strerror(uc));
        goto out;
    }
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
        st = rl_fail(err, RL_EINPUT,
                     "URL '%s' is not http or https: give one like http://127.0.0.1:8080", shown);
        goto out;
    }
    if (curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
        st = rl_fail(err, RL_EINTERNAL, "cannot read the path of URL '%s'", shown);
        goto out;
    }
    const char *tail = api == RL_CLIENT_API_CHAT ? "chat/completions" : "completions";
    /* the path without one trailing slash: empty, or ending in /v1, gets the API's tail */
    size_t core = strlen(path);
    if (core > 0 && path[core - 1] == '/')
        core--;
    char *np = NULL;
    if (core == 0)
        np = rl_asprintf("/v1/%s", tail);
    else if (core >= 3 && memcmp(path + core - 3, "/v1", 3) == 0)
        np = rl_asprintf("%.*s/%s", (int)core, path, tail);
    else
        np = rl_strdup(path);
    if (!np) {
        st = rl_fail(err, RL_EINTERNAL, "out of memory completing a URL");
        goto out;
    }
    uc = curl_url_set(u, CURLUPART_PATH, np, 0);
    free(np);
    if (uc != CURLUE_OK) {
        st = rl_fail(err, RL_EINTERNAL, "cannot complete the path of URL '%s'", shown);
        goto out;
    }
    if (redact) {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        curl_url_set(u, CURLUPART_QUERY, NULL, 0);
        curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0);
    }
    if (curl_url_get(u, CURLUPART_URL, &full, 0) != CURLUE_OK) {
        st = rl_fail(err, RL_EINTERNAL, "cannot rebuild URL '%s'", shown);
        goto out;
    }
    *out = rl_strdup(full);
    if (!*out)
        st = rl_fail(err, RL_EINTERNAL, "out of memory copying a URL");
out:
    curl_free(scheme);
    curl_free(path);
    curl_free(full);
    curl_url_cleanup(u);
    return st;
}

/* host[:port] of url (an endpoint rl_client_http_endpoint accepted) into buf and the host alone
 * into name, both terminal-safe; "the server" when they cannot be read. Never the user name,
 * password, path or query. */
static void endpoint_host(const char *url, char *buf, size_t cap, char *name, size_t name_cap)
{
    rl_snprintf(buf, cap, "the server");
    rl_snprintf(name, name_cap, "the server");
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
        char raw[600];
        curl_url_get(u, CURLUPART_PORT, &port, 0); /* NULL: the scheme's default */
        rl_snprintf(raw, sizeof raw, "%s%s%s", host, port ? ":" : "", port ? port : "");
        rl_tty_escape(raw, buf, cap);
        rl_tty_escape(host, name, name_cap);
    }
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

rl_status rl_client_http_host_port(const char *url, char *host, size_t cap, unsigned *port,
                                   rl_error *err)
{
    CURLU *u = curl_url();
    char *h = NULL, *p = NULL;
    rl_status st = RL_OK;
    if (!u)
        return rl_fail(err, RL_EINTERNAL, "out of memory parsing a URL");
    if (!url || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) != CURLUE_OK) {
        char shown[512];
        st = rl_fail(err, RL_EINPUT, "'%s' is not a URL with a host",
                     rl_url_shown(url ? url : "", shown, sizeof shown));
    } else {
        long v = strtol(p, NULL, 10);
        rl_snprintf(host, cap, "%s", h);
        *port = v > 0 && v < 65536 ? (unsigned)v : 0;
    }
    curl_free(h);
    curl_free(p);
    curl_url_cleanup(u);
    return st;
}

/* ---- one request ------------------------------------------------------------------------ */

/* Set the slot's failure reason once (the first reason wins). */
static void slot_fail(slot *sl, const char *msg)
{
    if (!sl->fail)
        sl->fail = rl_strdup(msg);
}

/* Untrusted bytes for a message: the first line, escaped, bounded, "..." when cut. */
static void show_line(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    while (k < n && s[k] != '\n' && s[k] != '\r')
        k++;
    bool cut = false;
    if (k > SHOW_MAX) {
        k = SHOW_MAX;
        cut = true;
    }
    rl_tty_escape_n(s, k, buf, cap);
    if (cut && strlen(buf) + 4 <= cap)
        strcat(buf, "...");
}

static const char *json_str(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? rl_json_get_str(o, key) : NULL;
}

/* One event's JSON: the content text, usage, the end of the answer, or a server error. */
static rl_status on_event(void *ud, const char *event, const char *data, size_t len, rl_error *err)
{
    (void)event;
    slot *sl = ud;
    sl->events_seen = true;
    if (sl->done_seen)
        return RL_OK;
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        sl->done_seen = true;
        return RL_OK;
    }
    char shown[SHOW_MAX * 4 + 8];
    bool oom = false;
    cJSON *j = rl_json_parse_raw(data, len, NULL, &oom);
    if (oom) { /* not the server's fault: the whole run stops (exit 5) */
        sl->r->oom = true;
        return rl_fail(err, RL_EINTERNAL, "out of memory parsing an SSE event");
    }
    if (!j) {
        show_line(data, len, shown, sizeof shown);
        return rl_fail(err, RL_EINPUT, "malformed SSE event: data is not JSON: %s", shown);
    }
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (e && !cJSON_IsNull(e)) {
        const char *m = cJSON_IsString(e) ? e->valuestring : json_str(e, "message");
        m = m ? m : "(no message)";
        show_line(m, strlen(m), shown, sizeof shown);
        cJSON_Delete(j);
        return rl_fail(err, RL_EINPUT, "the server reported an error in the stream: %s", shown);
    }
    const char *text = NULL, *thought = NULL;
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(j, "choices");
    if (cJSON_IsArray(choices)) {
        const cJSON *c0 = cJSON_GetArrayItem(choices, 0);
        if (cJSON_IsObject(c0)) {
            const cJSON *d = cJSON_GetObjectItemCaseSensitive(c0, "delta");
            text = json_str(d, "content");
            /* a reasoning model's thinking is generated text too (usage counts it) */
            thought = json_str(d, "reasoning_content");
            if (!thought)
                thought = json_str(d, "reasoning");
            if (!text)
                text = json_str(c0, "text");
            if (json_str(c0, "finish_reason"))
                sl->finish_seen = true;
        }
    } else {
        /* llama-server's native /completion stream */
        text = json_str(j, "content");
        bool stop = false;
        if (rl_json_get_bool(j, "stop", &stop) && stop)
            sl->finish_seen = true;
        int64_t p, c;
        if (rl_json_get_i64(j, "tokens_predicted", &c) && c >= 0) {
            sl->res->output_tokens = c;
            sl->usage_seen = true;
            if (rl_json_get_i64(j, "tokens_evaluated", &p) && p >= 0)
                sl->res->prompt_tokens = p;
        }
    }
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(j, "usage");
    int64_t p, c;
    if (cJSON_IsObject(u) && rl_json_get_i64(u, "completion_tokens", &c) && c >= 0) {
        sl->res->output_tokens = c;
        sl->usage_seen = true;
        if (rl_json_get_i64(u, "prompt_tokens", &p) && p >= 0)
            sl->res->prompt_tokens = p;
    }
    bool any = false;
    if (thought && thought[0]) {
        rl_sbuf_put(&sl->text, thought, strlen(thought));
        any = true;
    }
    if (text && text[0]) {
        rl_sbuf_put(&sl->text, text, strlen(text));
        any = true;
    }
    if (any) {
        sl->call_deltas++;
        sl->deltas++;
    }
    cJSON_Delete(j);
    if (sl->text.oom) {
        sl->r->oom = true;
        return rl_fail(err, RL_EINTERNAL, "out of memory keeping a response");
    }
    return RL_OK;
}

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    int64_t t = rl_proc_now_ns(); /* first: the time these bytes were read */
    slot *sl = ud;
    size_t n = size * nmemb;
    sl->last_ns = t;
    if (sl->status == 0) {
        long code = 0;
        curl_easy_getinfo(sl->easy, CURLINFO_RESPONSE_CODE, &code);
        sl->status = (int)code;
    }
    if (sl->keep_len < BODY_KEEP) {
        size_t k = BODY_KEEP - sl->keep_len < n ? BODY_KEEP - sl->keep_len : n;
        memcpy(sl->keep + sl->keep_len, ptr, k);
        sl->keep_len += k;
    }
    if (sl->status == 0) { /* body bytes with no status line before them (HTTP/0.9) */
        char shown[SHOW_MAX * 4 + 8], msg[SHOW_MAX * 4 + 400];
        show_line(sl->keep, sl->keep_len, shown, sizeof shown);
        rl_snprintf(msg, sizeof msg, "not an HTTP response from %s (no status line): %s",
                    sl->r->host, shown);
        slot_fail(sl, msg);
        return 0;
    }
    if (sl->status != 200)
        return n; /* kept for the message */
    sl->text.len = 0;
    sl->call_deltas = 0;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_sse_feed(&sl->sse, ptr, n, &e);
    if (sl->text.len > 0) {
        rl_error e2 = {RL_OK, ""};
        rl_client_result *res = sl->res;
        if (rl_client_result_add(res, t, sl->text.p, sl->text.len, sl->call_deltas, &e2) != RL_OK) {
            slot_fail(sl, e2.msg);
            return 0;
        }
        if (sl->r->s->progress)
            sl->r->s->progress(sl->r->s->ctx, sl->job.index, &res->chunks[res->n_chunks - 1]);
    }
    if (st != RL_OK) {
        slot_fail(sl, e.msg);
        return 0; /* stop this transfer */
    }
    return n;
}

static void slot_clear(slot *sl)
{
    if (sl->easy) {
        curl_multi_remove_handle(sl->r->multi, sl->easy);
        curl_easy_cleanup(sl->easy);
    }
    cJSON_free(sl->body);
    rl_sse_free(&sl->sse);
    free(rl_sbuf_take(&sl->text));
    free(sl->fail);
    rl_client_result_free(sl->res);
    run *r = sl->r;
    memset(sl, 0, sizeof *sl);
    sl->r = r;
}

/* Hand the slot's result to the scheduler and free the slot. */
static void slot_done(slot *sl)
{
    rl_client_result *res = sl->res;
    sl->res = NULL;
    if (sl->usage_seen) {
        res->token_source = "usage";
    } else if (res->ok || sl->deltas > 0) {
        res->output_tokens = sl->deltas;
        res->token_source = "per-delta";
    }
    slot_clear(sl);
    sl->r->inflight--;
    sl->r->s->done(sl->r->s->ctx, res);
}

static void set_error(rl_client_result *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(rl_client_result *res, const char *fmt, ...)
{
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(res->error);
    res->error = rl_url_redact(buf); /* a URL the server echoed keeps no credential (rl_url.h) */
    res->ok = false;
}

static bool tls_failure(CURLcode rc)
{
    switch (rc) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_USE_SSL_FAILED: return true;
    default: return false;
    }
}

/* The one-line reason for a transfer libcurl ended with rc (not CURLE_OK) and HTTP status code
 * (0: no status line was read; 200 otherwise): what failed, naming the host only. */
static void transport_error(slot *sl, CURLcode rc, long code)
{
    rl_client_result *res = sl->res;
    const char *host = sl->r->host;
    char why[CURL_ERROR_SIZE * 4 + 8];
    rl_tty_escape(sl->errbuf[0] ? sl->errbuf : curl_easy_strerror(rc), why, sizeof why);
    long os_errno = 0;
    curl_off_t pre = 0;
    curl_easy_getinfo(sl->easy, CURLINFO_OS_ERRNO, &os_errno);
    curl_easy_getinfo(sl->easy, CURLINFO_PRETRANSFER_TIME_T, &pre); /* > 0: request sent */
    double limit =
        sl->job.timeout + (sl->r->cfg->connect_timeout > 0 ? sl->r->cfg->connect_timeout : 0);
    if (code == 200) {
        set_error(res, "the stream from %s broke off: %s", host, why);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        res->timed_out = true;
        if (pre > 0)
            set_error(res, "no response from %s within %.3g s", host, limit);
        else
            set_error(res, "cannot connect to %s within %.3g s", host, limit);
    } else if (rc == CURLE_COULDNT_RESOLVE_HOST) {
        set_error(res, "cannot resolve host %s (DNS): check the host name in the URL", sl->r->name);
    } else if (rc == CURLE_COULDNT_RESOLVE_PROXY) {
        set_error(res, "cannot resolve the proxy for %s (DNS): check http_proxy and https_proxy",
                  host);
    } else if (rc == CURLE_COULDNT_CONNECT) {
        set_error(res, "cannot connect to %s: %s", host, os_errno ? strerror((int)os_errno) : why);
    } else if (tls_failure(rc)) {
        set_error(res, "TLS with %s failed: %s", host, why);
    } else if (rc == CURLE_GOT_NOTHING) {
        set_error(res, "%s closed the connection without a response", host);
    } else if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_WEIRD_SERVER_REPLY) {
        set_error(res, "protocol error: %s sent a malformed HTTP status line (%s)", host, why);
    } else if (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR) {
        set_error(res, "the connection to %s failed before a response: %s", host, why);
    } else {
        set_error(res, "the request to %s failed: %s", host, why);
    }
}

/* A transfer ended with rc: decide ok or why not, then report it. */
static void slot_finish(slot *sl, CURLcode rc)
{
    rl_client_result *res = sl->res;
    int64_t now = rl_proc_now_ns();
    long code = 0;
    curl_easy_getinfo(sl->easy, CURLINFO_RESPONSE_CODE, &code);
    res->http_status = (int)code;
    res->end_ns = now;
    char shown[SHOW_MAX * 4 + 8];
    if (code >= 100 && code < 200) {
        set_error(res,
                  "protocol error: %s sent interim HTTP %ld responses and never a final status",
                  sl->r->host, code);
    } else if (code != 0 && code != 200) {
        show_line(sl->keep, sl->keep_len, shown, sizeof shown);
        set_error(res, "HTTP %ld: %s", code, sl->keep_len ? shown : "(empty body)");
    } else if (sl->fail) {
        set_error(res, "%s", sl->fail);
    } else if (rc == CURLE_OPERATION_TIMEDOUT && code == 200) {
        res->timed_out = true;
        if (sl->r->cfg->connect_timeout > 0)
            set_error(res, "timed out after %.3g s (%.3g s + %.3g s to connect)",
                      sl->job.timeout + sl->r->cfg->connect_timeout, sl->job.timeout,
                      sl->r->cfg->connect_timeout);
        else
            set_error(res, "timed out after %.3g s", sl->job.timeout);
    } else if (rc != CURLE_OK) {
        transport_error(sl, rc, code);
    } else if (!sl->done_seen && !sl->finish_seen) {
        if (!sl->events_seen) {
            char *ct = NULL;
            curl_easy_getinfo(sl->easy, CURLINFO_CONTENT_TYPE, &ct);
            char ctbuf[128];
            rl_tty_escape(ct ? ct : "none", ctbuf, sizeof ctbuf);
            show_line(sl->keep, sl->keep_len, shown, sizeof shown);
            set_error(res, "the answer is not an SSE event stream (Content-Type: %s): %s", ctbuf,
                      shown);
        } else {
            set_error(res, "the stream ended without data: [DONE] or a finish_reason");
        }
    } else {
        res->ok = true;
        res->end_ns = sl->last_ns ? sl->last_ns : now;
    }
    slot_done(sl);
}

/* The request body for job (cJSON allocation; NULL when out of memory). */
static char *request_body(const rl_client_http_cfg *cfg, const rl_client_job *job)
{
    cJSON *o = cJSON_CreateObject();
    char *prompt = malloc(job->prompt_len + 1);
    char *out = NULL;
    if (!o || !prompt)
        goto done;
    memcpy(prompt, job->prompt, job->prompt_len);
    prompt[job->prompt_len] = '\0';
    if (cfg->model && !rl_json_add_str(o, "model", cfg->model))
        goto done;
    if (cfg->api == RL_CLIENT_API_CHAT) {
        cJSON *msgs = cJSON_AddArrayToObject(o, "messages");
        cJSON *m = cJSON_CreateObject();
        if (!msgs || !m || !cJSON_AddItemToArray(msgs, m)) {
            cJSON_Delete(m);
            goto done;
        }
        if (!rl_json_add_str(m, "role", "user") || !rl_json_add_str(m, "content", prompt))
            goto done;
    } else if (!rl_json_add_str(o, "prompt", prompt)) {
        goto done;
    }
    cJSON *so = cJSON_CreateObject();
    if (!cJSON_AddBoolToObject(o, "stream", 1) || !rl_json_attach(o, "stream_options", so) ||
        !cJSON_AddBoolToObject(so, "include_usage", 1))
        goto done;
    if (job->max_tokens > 0 && !rl_json_add_i64(o, "max_tokens", job->max_tokens))
        goto done;
    out = cJSON_PrintUnformatted(o);
done:
    free(prompt);
    cJSON_Delete(o);
    return out;
}

/* Start job in a free slot. RL_EINTERNAL (job reported failed through done()) when libcurl
 * or memory fails. */
static rl_status slot_start(run *r, slot *sl, const rl_client_job *job, rl_error *err)
{
    sl->busy = true;
    sl->job = *job;
    r->inflight++;
    sl->res = rl_client_result_new(job->index, 1);
    if (!sl->res) {
        r->inflight--;
        sl->busy = false;
        return rl_fail(err, RL_EINTERNAL, "out of memory starting a request");
    }
    rl_sse_init(&sl->sse, RL_SSE_MAX_DEFAULT, on_event, sl);
    sl->body = request_body(r->cfg, job);
    sl->easy = curl_easy_init();
    const rl_client_http_cfg *cfg = r->cfg;
    long connect_ms = cfg->connect_timeout > 0 ? (long)(cfg->connect_timeout * 1000.0 + 0.5) : 0;
    long total_ms = job->timeout > 0 ? (long)(job->timeout * 1000.0 + 0.5) + connect_ms : 0;
    CURL *h = sl->easy;
    bool ok = sl->body && h;
    ok = ok && curl_easy_setopt(h, CURLOPT_URL, r->url) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_HTTPHEADER, r->headers) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_POSTFIELDS, sl->body) == CURLE_OK;
    ok = ok &&
         curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(sl->body)) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_USERAGENT, "llama-roofline/" RL_VERSION) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L) == CURLE_OK;
    /* an answer with no status line reaches on_write, which names it (libcurl would say only
     * "Received HTTP/0.9 when not allowed") */
    ok = ok && curl_easy_setopt(h, CURLOPT_HTTP09_ALLOWED, 1L) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_WRITEDATA, sl) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_ERRORBUFFER, sl->errbuf) == CURLE_OK;
    ok = ok && curl_easy_setopt(h, CURLOPT_PRIVATE, sl) == CURLE_OK;
    if (ok && connect_ms)
        ok = curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms) == CURLE_OK;
    if (ok && total_ms)
        ok = curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms) == CURLE_OK;
    sl->res->send_ns = rl_proc_now_ns();
    if (ok)
        ok = curl_multi_add_handle(r->multi, h) == CURLM_OK;
    if (!ok) {
        set_error(sl->res, "libcurl could not set up the request (out of memory?)");
        sl->res->end_ns = rl_proc_now_ns();
        if (h) {
            curl_easy_cleanup(h); /* never added, or add failed */
            sl->easy = NULL;
        }
        slot_done(sl);
        return rl_fail(err, RL_EINTERNAL, "libcurl could not set up a request: out of memory?");
    }
    return RL_OK;
}

/* Stop every request in flight, each reported with reason (interrupted marks them so). */
static void stop_all(run *r, const char *reason, bool interrupted)
{
    for (size_t i = 0; i < r->n_slots; i++) {
        slot *sl = &r->slots[i];
        if (!sl->busy)
            continue;
        rl_client_result *res = sl->res;
        long code = 0;
        curl_easy_getinfo(sl->easy, CURLINFO_RESPONSE_CODE, &code);
        res->http_status = (int)code;
        res->interrupted = interrupted;
        res->end_ns = rl_proc_now_ns();
        set_error(res, "%s", reason);
        slot_done(sl);
    }
}

/* ---- the event loop ---------------------------------------------------------------------- */

static rl_status loop(run *r, rl_error *err)
{
    const rl_client_sched *s = r->s;
    bool exhausted = false;
    for (;;) {
        if (rl_interrupted) {
            stop_all(r, "interrupted", true);
            return rl_fail(err, RL_EINTERRUPTED, "interrupted");
        }
        int64_t now = rl_proc_now_ns();
        int64_t wake = now + (int64_t)POLL_MS * 1000000;
        while (!exhausted && r->inflight < r->n_slots) {
            rl_client_job job = {0};
            int64_t w = wake;
            int got = s->next(s->ctx, now, &job, &w);
            if (got < 0) {
                exhausted = true;
            } else if (got == 0) {
                if (w < wake)
                    wake = w;
                break;
            } else {
                slot *sl = NULL;
                for (size_t i = 0; i < r->n_slots && !sl; i++)
                    if (!r->slots[i].busy)
                        sl = &r->slots[i];
                rl_status st = slot_start(r, sl, &job, err);
                if (st != RL_OK) {
                    stop_all(r, "stopped: another request could not be set up", false);
                    return st;
                }
                now = rl_proc_now_ns();
            }
        }
        if (exhausted && r->inflight == 0)
            return RL_OK;
        int running = 0;
        CURLMcode mc = curl_multi_perform(r->multi, &running);
        if (mc != CURLM_OK) {
            stop_all(r, "stopped: libcurl failed", false);
            return rl_fail(err, RL_EINTERNAL, "libcurl failed: %s", curl_multi_strerror(mc));
        }
        bool ended = false;
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(r->multi, &left))) {
            if (m->msg != CURLMSG_DONE)
                continue;
            slot *sl = NULL;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&sl);
            CURLcode rc = m->data.result;
            if (sl && sl->busy) {
                slot_finish(sl, rc); /* m is invalid from here */
                ended = true;
            }
        }
        if (r->oom) {
            stop_all(r, "stopped: out of memory", false);
            return rl_fail(err, RL_EINTERNAL,
                           "out of memory reading the answers from %s: the run stopped", r->host);
        }
        if (ended)
            continue; /* free slots: ask the scheduler before waiting */
        now = rl_proc_now_ns();
        int64_t ms = wake > now ? (wake - now) / 1000000 : 1;
        if (ms > POLL_MS)
            ms = POLL_MS;
        mc = curl_multi_poll(r->multi, NULL, 0, (int)ms, NULL);
        if (mc != CURLM_OK) {
            stop_all(r, "stopped: libcurl failed", false);
            return rl_fail(err, RL_EINTERNAL, "libcurl failed waiting: %s",
                           curl_multi_strerror(mc));
        }
    }
}

rl_status rl_client_http_run(const rl_client_http_cfg *cfg, const rl_client_sched *s, rl_error *err)
{
    if (!cfg || !s || !s->next || !s->done || cfg->concurrency < 1)
        return rl_fail(err, RL_EINTERNAL,
                       "the HTTP driver was called without a scheduler or a concurrency");
    run r = {.cfg = cfg, .s = s, .n_slots = cfg->concurrency};
    rl_status st = rl_client_http_endpoint(cfg->url, cfg->api, false, &r.url, err);
    if (st == RL_OK)
        st = rl_client_http_endpoint(cfg->url, cfg->api, true, &r.shown, err);
    if (st != RL_OK)
        goto out;
    endpoint_host(r.shown, r.host, sizeof r.host, r.name, sizeof r.name);
    r.slots = rl_calloc(r.n_slots, sizeof *r.slots);
    r.multi = curl_multi_init();
    struct curl_slist *h = NULL, *h2;
    const char *fixed[] = {"Content-Type: application/json", "Accept: text/event-stream",
                           "Expect:"};
    bool ok = r.slots && r.multi;
    for (size_t i = 0; ok && i < sizeof fixed / sizeof *fixed; i++) {
        ok = (h2 = curl_slist_append(h, fixed[i])) != NULL;
        if (ok)
            h = h2;
    }
    if (ok && cfg->api_key) {
        char *auth = rl_asprintf("Authorization: Bearer %s", cfg->api_key);
        ok = auth && (h2 = curl_slist_append(h, auth)) != NULL;
        if (ok)
            h = h2;
        if (auth) {
            memset(auth, 0, strlen(auth)); /* the list holds its own copy */
            free(auth);
        }
    }
    r.headers = h;
    if (!ok) {
        st = rl_fail(err, RL_EINTERNAL, "out of memory setting up the HTTP driver");
        goto out;
    }
    for (size_t i = 0; i < r.n_slots; i++)
        r.slots[i].r = &r;
    rl_proc_prio prio; /* stamp chunks as they arrive, even on a busy machine (proc.h) */
    rl_proc_reader_priority_begin(&prio);
    st = loop(&r, err);
    rl_proc_reader_priority_end(&prio);
out:
    if (r.slots)
        for (size_t i = 0; i < r.n_slots; i++)
            if (r.slots[i].busy || r.slots[i].easy)
                slot_clear(&r.slots[i]);
    free(r.slots);
    if (r.multi)
        curl_multi_cleanup(r.multi);
    curl_slist_free_all(r.headers);
    free(r.url);
    free(r.shown);
    return st;
}
