/* client_metrics_stub.c: a minimal stand-in for client_metrics.c (client-metrics' part) so
 * the client command links and can be tested before that part is merged; the coordinator
 * deletes this file then. It writes only the keys the real implementation also writes
 * (requests counts, records with ttft_ms/e2e_ms, ok/error, attempts, tokens), computed
 * simply. The returned tree is the caller's. */
#include "client_metrics.h"

#include <stdio.h>
#include <stdlib.h>

#include "rl_json.h"
#include "stats.h"

size_t rl_client_first_delivery(const rl_client_result *r, uint64_t *bytes)
{
    uint64_t b = 0;
    size_t n = 0;
    for (; r && n < r->n_chunks; n++) {
        if (n > 0 && r->chunks[n].t_ns - r->chunks[n - 1].t_ns >= RL_CLIENT_DELIVERY_GAP_NS)
            break;
        b += r->chunks[n].bytes;
    }
    if (bytes)
        *bytes = b;
    return n;
}

void rl_client_output_hash(const char *text, size_t len, uint64_t total, char hex[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    h ^= total;
    snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

static cJSON *metric(const double *x, size_t n, const char *kind)
{
    cJSON *m = cJSON_CreateObject(), *s = cJSON_CreateArray();
    rl_stats_summary sum;
    rl_error e;
    for (size_t i = 0; s && i < n; i++)
        cJSON_AddItemToArray(s, cJSON_CreateNumber(x[i]));
    if (!m || !s || rl_stats_summarize(x, n, &sum, &e) != RL_OK) {
        cJSON_Delete(m);
        cJSON_Delete(s);
        return NULL;
    }
    cJSON_AddStringToObject(m, "kind", kind);
    cJSON_AddStringToObject(m, "unit", "ms");
    cJSON_AddItemToObject(m, "samples", s);
    cJSON_AddItemToObject(m, "summary", rl_stats_to_json(&sum));
    return m;
}

cJSON *rl_client_point_json(const rl_client_point *p, const rl_client_slo *slo, rl_error *err)
{
    (void)slo;
    cJSON *o = cJSON_CreateObject(), *req = cJSON_CreateObject(), *recs = cJSON_CreateArray(),
          *mets = cJSON_CreateObject();
    double *ttft = calloc(p->n_results + 1, sizeof *ttft);
    double *e2e = calloc(p->n_results + 1, sizeof *e2e);
    if (!o || !req || !recs || !mets || !ttft || !e2e) {
        cJSON_Delete(o);
        cJSON_Delete(req);
        cJSON_Delete(recs);
        cJSON_Delete(mets);
        free(ttft);
        free(e2e);
        return rl_fail(err, RL_EINTERNAL, "out of memory"), NULL;
    }
    size_t ok = 0, attempts = 0, nt = 0, *runs = calloc(p->n_prompts + 1, sizeof *runs);
    for (size_t i = 0; i < p->n_results; i++) {
        const rl_client_result *r = p->results[i];
        cJSON *x = cJSON_CreateObject();
        size_t q = r->prompt < p->n_prompts ? r->prompt : p->n_prompts;
        attempts += r->attempt;
        rl_json_add_str_or_null(x, "prompt", q < p->n_prompts ? p->prompt_ids[q] : NULL);
        rl_json_add_u64(x, "run", runs ? ++runs[q] : 0);
        rl_json_add_u64(x, "attempts", r->attempt);
        cJSON_AddBoolToObject(x, "ok", r->ok);
        rl_json_add_str_or_null(x, "error", r->ok ? NULL : r->error);
        bool has_first = r->ok && r->n_chunks > 0;
        double t1 = has_first ? (double)(r->chunks[0].t_ns - r->send_ns) / 1e6 : 0;
        double te = (double)(r->end_ns - r->send_ns) / 1e6;
        rl_json_add_num_or_null(x, "ttft_ms", t1, has_first);
        rl_json_add_num_or_null(x, "e2e_ms", te, r->ok);
        rl_json_add_u64(x, "chunks", r->n_chunks);
        size_t d = 0;
        for (size_t k = 0; k < r->n_chunks; k++)
            d += k == 0 || r->chunks[k].t_ns - r->chunks[k - 1].t_ns >= RL_CLIENT_DELIVERY_GAP_NS;
        rl_json_add_u64(x, "deliveries", d);
        rl_json_add_num_or_null(x, "prompt_tokens", (double)r->prompt_tokens,
                                r->prompt_tokens >= 0);
        rl_json_add_num_or_null(x, "output_tokens", (double)r->output_tokens,
                                r->ok && r->output_tokens >= 0);
        cJSON_AddNullToObject(x, "tpot_ms");
        cJSON_AddNullToObject(x, "decode_tok_s");
        char hex[17];
        rl_client_output_hash(r->output ? r->output : "", r->output_len, r->output_total, hex);
        rl_json_add_str_or_null(x, "output_hash", r->ok ? hex : NULL);
        cJSON_AddItemToArray(recs, x);
        if (r->ok) {
            ok++;
            e2e[ok - 1] = te;
            if (has_first)
                ttft[nt++] = t1;
        }
    }
    free(runs);
    rl_json_add_u64(o, "concurrency", p->concurrency);
    rl_json_add_num_or_null(o, "request_rate", p->request_rate, p->request_rate > 0);
    rl_json_add_num_or_null(o, "ramp_up_ms", p->ramp_up_ms, p->ramp_up_ms > 0);
    rl_json_add_u64(req, "measured", p->n_results);
    rl_json_add_u64(req, "ok", ok);
    rl_json_add_u64(req, "failed", p->n_results - ok);
    rl_json_add_u64(req, "attempts", attempts);
    cJSON_AddItemToObject(o, "requests", req);
    rl_json_attach(mets, "ttft", metric(ttft, nt, "proxy"));
    rl_json_attach(mets, "e2e", metric(e2e, ok, "measured"));
    cJSON_AddItemToObject(o, "metrics", mets);
    cJSON_AddItemToObject(o, "records", recs);
    free(ttft);
    free(e2e);
    return o;
}
