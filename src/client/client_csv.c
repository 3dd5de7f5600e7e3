/* SPDX-License-Identifier: MIT */
/* client_csv.c: per-request CSV from a bundle's client section (client_csv.h). */
#include "client/client_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

static const char *const columns[] = {
    "concurrency",   "request_rate", "prompt",       "run",         "attempts",   "ok",
    "error",         "ttft_ms",      "e2e_ms",       "chunks",      "deliveries", "prompt_tokens",
    "output_tokens", "tpot_ms",      "decode_tok_s", "output_hash", NULL,
};

static bool numeric(const char *s)
{
    double d;
    return rl_parse_double(s[0] == '-' ? s + 1 : s, &d);
}

static void put_text(rl_sbuf *b, const char *raw)
{
    /* control characters (C0 with CR, LF and TAB, DEL, C1) and invalid bytes as visible
     * escapes (rl_tty_escape): a cell never moves a terminal's cursor or spans lines */
    char *esc = rl_tty_escape_dup(raw);
    if (!esc) {
        b->oom = true;
        return;
    }
    const char *s = esc;
    bool guard = s[0] == '=' || s[0] == '+' || s[0] == '@' || s[0] == '\t' || s[0] == '\r' ||
                 (s[0] == '-' && !numeric(s));
    bool quote = strpbrk(s, "\",\r\n") != NULL;
    if (quote)
        rl_sbuf_put(b, "\"", 1);
    if (guard)
        rl_sbuf_put(b, "'", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            rl_sbuf_put(b, "\"", 1);
        rl_sbuf_put(b, p, 1);
    }
    if (quote)
        rl_sbuf_put(b, "\"", 1);
    free(esc);
}

static void put_value(rl_sbuf *b, const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return;
    if (cJSON_IsBool(v)) {
        rl_sbuf_printf(b, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNumber(v)) {
        /* cJSON's own text for the number, as the bundle file holds it, so the CSV written
         * during a run and one made later from the bundle (--from) are the same bytes */
        char *num = cJSON_PrintUnformatted(v);
        if (num)
            rl_sbuf_printf(b, "%s", num);
        free(num);
    } else if (cJSON_IsString(v)) {
        put_text(b, v->valuestring);
    } else if (cJSON_IsRaw(v) && v->valuestring) {
        rl_sbuf_printf(b, "%s", v->valuestring);
    }
}

rl_status rl_client_csv(const cJSON *b, char **out, size_t *len, rl_error *err)
{
    const cJSON *client = cJSON_GetObjectItemCaseSensitive(b, "client");
    const cJSON *points = cJSON_GetObjectItemCaseSensitive(client, "points");
    if (!cJSON_IsArray(points))
        return rl_fail(err, RL_EINPUT,
                       "the bundle has no client section with points: give one `client` wrote");
    rl_sbuf s = {0};
    for (int i = 0; columns[i]; i++)
        rl_sbuf_printf(&s, "%s%s", i ? "," : "", columns[i]);
    rl_sbuf_put(&s, "\n", 1);
    const cJSON *pt;
    cJSON_ArrayForEach(pt, points)
    {
        const cJSON *recs = cJSON_GetObjectItemCaseSensitive(pt, "records"), *r;
        cJSON_ArrayForEach(r, recs)
        {
            for (int i = 0; columns[i]; i++) {
                if (i)
                    rl_sbuf_put(&s, ",", 1);
                const cJSON *src = i < 2 ? pt : r;
                put_value(&s, cJSON_GetObjectItemCaseSensitive(src, columns[i]));
            }
            rl_sbuf_put(&s, "\n", 1);
        }
    }
    *len = s.len;
    *out = rl_sbuf_take(&s);
    if (!*out)
        return rl_fail(err, RL_EINTERNAL, "out of memory making the CSV");
    return RL_OK;
}

rl_status rl_client_csv_write(const cJSON *b, const char *path, rl_error *err)
{
    char *text;
    size_t len;
    rl_status st = rl_client_csv(b, &text, &len, err);
    if (st != RL_OK)
        return st;
    st = rl_write_output(path, text, len, RL_TTY_TEXT, err);
    free(text);
    return st;
}
