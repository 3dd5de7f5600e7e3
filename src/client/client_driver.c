/* SPDX-License-Identifier: MIT */
/* client_driver.c: the result type the streaming-client drivers share (client_driver.h).
 * Ownership: rl_client_result_new returns a result the caller frees with
 * rl_client_result_free; rl_client_result_add grows buffers the result owns. */
#include "client/client_driver.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_util.h"

rl_client_result *rl_client_result_new(size_t job, unsigned attempt)
{
    rl_client_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->job = job;
    r->attempt = attempt;
    r->prompt_tokens = -1;
    r->output_tokens = -1;
    r->exit_code = -1;
    return r;
}

int64_t rl_client_result_start_ns(const rl_client_result *r)
{
    return r->first_send_ns > 0 && r->first_send_ns < r->send_ns ? r->first_send_ns : r->send_ns;
}

void rl_client_result_free(rl_client_result *res)
{
    if (!res)
        return;
    free(res->error);
    free(res->chunks);
    free(res->output);
    free(res);
}

rl_status rl_client_result_add(rl_client_result *res, int64_t t_ns, const char *text, size_t len,
                               int32_t tokens, rl_error *err)
{
    if (len == 0)
        return RL_OK;
    if (res->n_chunks == res->chunks_cap) {
        rl_client_chunk *c = rl_grow(res->chunks, &res->chunks_cap, sizeof *c, 64);
        if (!c)
            return rl_fail(err, RL_EINTERNAL, "out of memory recording a response chunk");
        res->chunks = c;
    }
    res->chunks[res->n_chunks++] =
        (rl_client_chunk){t_ns, len > UINT32_MAX ? UINT32_MAX : (uint32_t)len, tokens};
    res->output_total += len;
    if (text && res->output_len < RL_CLIENT_OUTPUT_MAX) {
        size_t take = RL_CLIENT_OUTPUT_MAX - res->output_len;
        if (take > len)
            take = len;
        char *o = realloc(res->output, res->output_len + take + 1);
        if (!o)
            return rl_fail(err, RL_EINTERNAL, "out of memory keeping a response");
        memcpy(o + res->output_len, text, take);
        res->output_len += take;
        o[res->output_len] = '\0';
        res->output = o;
    }
    return RL_OK;
}

rl_status rl_client_result_append(rl_client_result *res, int64_t t_ns, const char *text, size_t len,
                                  rl_error *err)
{
    if (len == 0)
        return RL_OK;
    if (res->n_chunks == 0 || (t_ns - res->chunks[res->n_chunks - 1].t_ns >= RL_CLIENT_MERGE_NS &&
                               res->n_chunks < RL_CLIENT_CHUNKS_MAX - 1))
        return rl_client_result_add(res, t_ns, text, len, -1, err);
    /* fold into the last chunk: its bytes grow (saturating), the text is kept as usual */
    rl_client_chunk *last = &res->chunks[res->n_chunks - 1];
    uint64_t b = (uint64_t)last->bytes + len;
    last->bytes = b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
    res->chunks_merged++;
    size_t n = res->n_chunks; /* < the capacity: the temporary slot needs no realloc */
    rl_status st = rl_client_result_add(res, t_ns, text, len, -1, err);
    if (st == RL_OK)
        res->n_chunks = n; /* the chunk slot add wrote is dropped again */
    return st;
}
