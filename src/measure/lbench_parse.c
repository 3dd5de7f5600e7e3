/* SPDX-License-Identifier: MIT */
/* lbench_parse.c: llama-bench's -o json / -o jsonl output into checked records, whole or as a
 * stream. Every byte is untrusted: one record's text is bounded (RL_LBENCH_MAX_LINE) before
 * cJSON sees it, record and sample counts are bounded, and every field's type is checked.
 * Ownership is described in lbench.h: sets own records, records own everything they point to. */
#include "measure/lbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_util.h"

#define LB_HEAD_BYTES 400 /* kept for messages: 80 characters of up to 4 bytes, and margin */
#define LB_MAX_EXACT 9007199254740992.0 /* 2^53: larger doubles are not exact integers */

const char *rl_lbench_kind_name(rl_lbench_kind kind)
{
    switch (kind) {
    case RL_LBENCH_PREFILL: return "prefill";
    case RL_LBENCH_DECODE: return "decode";
    case RL_LBENCH_OTHER: return "other";
    }
    return "other";
}

/* ---- one record --------------------------------------------------------------------------- */

typedef enum { LB_ABSENT, LB_OK, LB_BAD } lb_field;

/* A whole number in [lo, hi]. */
static lb_field get_int(const cJSON *o, const char *key, double lo, double hi, int64_t *v)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it || cJSON_IsNull(it))
        return LB_ABSENT;
    if (!cJSON_IsNumber(it))
        return LB_BAD;
    double d = it->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi)
        return LB_BAD;
    *v = (int64_t)d;
    return LB_OK;
}

/* An optional whole number: 0 (or the default) when absent or malformed. */
static int64_t opt_int(const cJSON *o, const char *key, double lo, double hi, int64_t dflt)
{
    int64_t v = dflt;
    return get_int(o, key, lo, hi, &v) == LB_OK ? v : dflt;
}

/* A copy of a string field cut to RL_LBENCH_MAX_STR bytes on a character boundary; "" when
 * absent or not a string; NULL only when out of memory. */
static char *get_str(const cJSON *o, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *s = cJSON_IsString(it) && it->valuestring ? it->valuestring : "";
    size_t n = strnlen(s, RL_LBENCH_MAX_STR + 1);
    if (n > RL_LBENCH_MAX_STR) {
        n = RL_LBENCH_MAX_STR;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--; /* do not end inside a UTF-8 sequence */
    }
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* flash_attn: true/false (2024-2025), -1/0/1 (2026: auto/off/on), or a string. */
static void get_flash_attn(const cJSON *o, bool *on, bool *is_auto)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "flash_attn");
    *on = false;
    *is_auto = false;
    if (cJSON_IsBool(it)) {
        *on = cJSON_IsTrue(it);
    } else if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
        *on = it->valuedouble > 0;
        *is_auto = it->valuedouble < 0;
    } else if (cJSON_IsString(it) && it->valuestring) {
        const char *s = it->valuestring;
        *on = !strcasecmp(s, "on") || !strcasecmp(s, "true") || !strcasecmp(s, "1") ||
              !strcasecmp(s, "enabled") || !strcasecmp(s, "yes");
        *is_auto = !strcasecmp(s, "auto") || !strcasecmp(s, "-1");
    }
}

/* Builds from autumn 2024 and before printed one boolean per backend instead of "backends";
 * they named the first one set, in this order, and "CPU" when none was. */
static char *synth_backends(const cJSON *o, bool *made)
{
    static const char *const keys[] = {"cuda", "opencl", "vulkan",   "kompute", "metal",
                                       "sycl", "rpc",    "gpu_blas", "blas"};
    static const char *const names[] = {"CUDA", "OpenCL", "Vulkan",   "Kompute", "Metal",
                                        "SYCL", "RPC",    "GPU BLAS", "BLAS"};
    bool any = false;
    *made = false;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, keys[i]);
        if (!cJSON_IsBool(it))
            continue;
        any = true;
        if (cJSON_IsTrue(it)) {
            *made = true;
            return rl_strdup(names[i]);
        }
    }
    *made = any;
    return rl_strdup(any ? "CPU" : "");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rl_lbench_record_free(rl_lbench_record *r)
{
    if (!r)
        return;
    cJSON_Delete(r->raw);
    free(r->model_filename);
    free(r->model_type);
    free(r->build_commit);
    free(r->cpu_info);
    free(r->gpu_info);
    free(r->type_k);
    free(r->type_v);
    free(r->backends);
    free(r->samples_ns);
    free(r->samples_ts_recomputed);
    memset(r, 0, sizeof *r);
}

static rl_status bad(rl_lbench_record *r, rl_error *err, const char *why)
{
    rl_lbench_record_free(r);
    return rl_fail(err, RL_EINPUT, "%s", why);
}

rl_status rl_lbench_record_from_json(cJSON *obj, rl_lbench_record *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return rl_fail(err, RL_EINPUT, "not a JSON object");
    }
    rl_lbench_record *r = out;
    r->raw = obj;
    char why[128];
    lb_field fp = get_int(obj, "n_prompt", 0, RL_LBENCH_MAX_TOKENS, &r->n_prompt);
    lb_field fg = get_int(obj, "n_gen", 0, RL_LBENCH_MAX_TOKENS, &r->n_gen);
    if (fp != LB_OK || fg != LB_OK) {
        snprintf(why, sizeof why, "%s is %s", fp != LB_OK ? "n_prompt" : "n_gen",
                 (fp != LB_OK ? fp : fg) == LB_ABSENT ? "missing" : "not a whole number in range");
        return bad(r, err, why);
    }
    if (r->n_prompt == 0 && r->n_gen == 0)
        return bad(r, err, "n_prompt and n_gen are both 0");
    r->kind = r->n_gen == 0      ? RL_LBENCH_PREFILL
              : r->n_prompt == 0 ? RL_LBENCH_DECODE
                                 : RL_LBENCH_OTHER;
    if (get_int(obj, "n_depth", 0, RL_LBENCH_MAX_TOKENS, &r->n_depth) == LB_BAD)
        return bad(r, err, "n_depth is not a whole number in range");
    r->n_threads = opt_int(obj, "n_threads", 0, 1 << 20, 0);
    r->has_n_gpu_layers = get_int(obj, "n_gpu_layers", -1e9, 1e9, &r->n_gpu_layers) == LB_OK;
    get_flash_attn(obj, &r->flash_attn, &r->flash_attn_auto);
    r->model_size = opt_int(obj, "model_size", 0, LB_MAX_EXACT, 0);
    r->model_n_params = opt_int(obj, "model_n_params", 0, LB_MAX_EXACT, 0);
    r->build_number = opt_int(obj, "build_number", 0, LB_MAX_EXACT, 0);
    r->model_filename = get_str(obj, "model_filename");
    r->model_type = get_str(obj, "model_type");
    r->build_commit = get_str(obj, "build_commit");
    r->cpu_info = get_str(obj, "cpu_info");
    r->gpu_info = get_str(obj, "gpu_info");
    r->type_k = get_str(obj, "type_k");
    r->type_v = get_str(obj, "type_v");
    const cJSON *f16 = cJSON_GetObjectItemCaseSensitive(obj, "f16_kv"); /* before type_k/v */
    if (cJSON_IsBool(f16) && r->type_k && r->type_v && !*r->type_k && !*r->type_v) {
        free(r->type_k);
        free(r->type_v);
        r->type_k = rl_strdup(cJSON_IsTrue(f16) ? "f16" : "f32");
        r->type_v = rl_strdup(cJSON_IsTrue(f16) ? "f16" : "f32");
    }
    const cJSON *be = cJSON_GetObjectItemCaseSensitive(obj, "backends");
    if (cJSON_IsString(be))
        r->backends = get_str(obj, "backends");
    else
        r->backends = synth_backends(obj, &r->backends_synthesised);
    if (!r->model_filename || !r->model_type || !r->build_commit || !r->cpu_info || !r->gpu_info ||
        !r->type_k || !r->type_v || !r->backends) {
        rl_lbench_record_free(r);
        return rl_fail(err, RL_EINTERNAL, "out of memory reading a llama-bench record");
    }

    const cJSON *avg = cJSON_GetObjectItemCaseSensitive(obj, "avg_ts");
    if (cJSON_IsNumber(avg) && isfinite(avg->valuedouble) && avg->valuedouble >= 0) {
        r->has_avg_ts = true;
        r->avg_ts = avg->valuedouble;
        const cJSON *sd = cJSON_GetObjectItemCaseSensitive(obj, "stddev_ts");
        if (cJSON_IsNumber(sd) && isfinite(sd->valuedouble) && sd->valuedouble >= 0)
            r->stddev_ts = sd->valuedouble;
    }

    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(obj, "samples_ns");
    size_t n = 0;
    if (ns && !cJSON_IsNull(ns)) {
        if (!rl_json_is_array(ns)) /* either form: a bundle's records are compact (rl_json.h) */
            return bad(r, err, "samples_ns is not an array");
        n = rl_json_array_size(ns);
        if (n > RL_LBENCH_MAX_SAMPLES) {
            snprintf(why, sizeof why, "samples_ns has more than %d entries", RL_LBENCH_MAX_SAMPLES);
            return bad(r, err, why);
        }
    }
    if (n == 0) {
        if (!r->has_avg_ts || r->avg_ts <= 0)
            return bad(r, err, "neither samples_ns nor a positive avg_ts");
        r->from_average = true;
        r->rate_ts = r->median_ts = r->avg_ts;
        return RL_OK;
    }
    r->samples_ns = rl_calloc(n, sizeof *r->samples_ns);
    r->samples_ts_recomputed = rl_calloc(n, sizeof *r->samples_ts_recomputed);
    double *sorted = rl_calloc(n, sizeof *sorted), *v = NULL;
    size_t got = 0;
    rl_status vs = rl_json_values(ns, &v, &got);
    if (!r->samples_ns || !r->samples_ts_recomputed || !sorted || vs == RL_EINTERNAL) {
        free(sorted);
        rl_lbench_record_free(r);
        return rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench samples");
    }
    /* llama-bench's own rate: (n_prompt + n_gen) * 1e9 / ns; the depth prefill is untimed and
     * its tokens are not counted */
    double tokens = (double)(r->n_prompt + r->n_gen), sum = 0;
    for (size_t i = 0; i < n; i++) {
        double d = vs == RL_OK && i < got ? v[i] : NAN; /* NAN: not a number */
        if (!isfinite(d) || d != floor(d) || d < 1 || d > LB_MAX_EXACT) {
            free(sorted);
            free(v);
            snprintf(why, sizeof why, "samples_ns[%zu] is not a positive whole number", i);
            return bad(r, err, why);
        }
        r->samples_ns[i] = (int64_t)d;
        r->samples_ts_recomputed[i] = sorted[i] = tokens * 1e9 / d;
        sum += r->samples_ts_recomputed[i];
    }
    free(v);
    r->n_samples = n;
    r->rate_ts = sum / (double)n;
    qsort(sorted, n, sizeof *sorted, cmp_double);
    r->median_ts = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    r->avg_mismatch =
        r->has_avg_ts && fabs(r->avg_ts - r->rate_ts) > RL_LBENCH_MISMATCH * r->rate_ts;
    return RL_OK;
}

/* ---- sets --------------------------------------------------------------------------------- */

void rl_lbench_set_free(rl_lbench_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n_records; i++)
        rl_lbench_record_free(&set->records[i]);
    free(set->records);
    memset(set, 0, sizeof *set);
}

/* Parse text[0..n) (one object's text, n <= RL_LBENCH_MAX_LINE) into the set: a record, or one
 * more invalid object. *parsed says whether it was JSON at all. */
static rl_status add_object(rl_lbench_set *set, size_t *cap, const char *text, size_t n,
                            bool *parsed, rl_error *err)
{
    *parsed = false;
    char *buf = malloc(n + 1);
    if (!buf)
        return rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench output");
    memcpy(buf, text, n);
    buf[n] = '\0';
    const char *end = NULL;
    bool oom = false;
    cJSON *obj = rl_json_parse_raw(buf, n, &end, &oom);
    size_t at = obj && end ? (size_t)(end - buf) : 0;
    while (obj && at < n &&
           (buf[at] == ' ' || buf[at] == '\t' || buf[at] == '\r' || buf[at] == '\n'))
        at++;
    free(buf);
    if (oom)
        return rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench output");
    if (obj && at < n) { /* text after the object: not one record */
        cJSON_Delete(obj);
        obj = NULL;
    }
    if (!obj)
        return RL_OK;
    *parsed = true;
    if (set->n_records >= RL_LBENCH_MAX_RECORDS) {
        cJSON_Delete(obj);
        return rl_fail(err, RL_EINPUT,
                       "llama-bench printed more than %d records; run fewer tests per call",
                       RL_LBENCH_MAX_RECORDS);
    }
    if (set->n_records == *cap) {
        rl_lbench_record *nr = rl_grow(set->records, cap, sizeof *nr, 8);
        if (!nr) {
            cJSON_Delete(obj);
            return rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench output");
        }
        set->records = nr;
    }
    rl_error why = {RL_OK, ""};
    rl_status st = rl_lbench_record_from_json(obj, &set->records[set->n_records], &why);
    if (st == RL_OK) {
        set->n_records++;
    } else if (st == RL_EINPUT) {
        if (set->n_invalid++ == 0)
            snprintf(set->first_invalid, sizeof set->first_invalid, "%.*s",
                     (int)sizeof set->first_invalid - 1, why.msg);
    } else {
        return rl_fail(err, st, "%s", why.msg);
    }
    return RL_OK;
}

/* The error for output that held no usable record. head: the output's first bytes. */
static rl_status no_records(const rl_lbench_set *set, const char *head, size_t n, bool any,
                            rl_error *err)
{
    if (!any)
        return rl_fail(err, RL_EINPUT,
                       "llama-bench produced no output; run the same command by hand to see "
                       "what it prints on stderr");
    char quoted[LB_HEAD_BYTES + 1];
    rl_lbench_escape(head, n, 80, quoted, sizeof quoted);
    if (set->n_invalid)
        return rl_fail(err, RL_EINPUT,
                       "llama-bench printed no usable benchmark record (%s); its output began "
                       "\"%s\"; check that this llama-bench is a real llama.cpp build",
                       set->first_invalid, quoted);
    return rl_fail(err, RL_EINPUT,
                   "llama-bench printed no benchmark records; its output began \"%s\"; run "
                   "the same command by hand to see why",
                   quoted);
}

/* ---- streaming (JSONL) -------------------------------------------------------------------- */

struct rl_lbench_feeder {
    rl_lbench_set set;
    size_t cap; /* records allocated */
    char *line;
    size_t len, line_cap;
    bool dropping; /* the current line passed RL_LBENCH_MAX_LINE: discard it up to its end */
    char head[LB_HEAD_BYTES];
    size_t head_len;
    bool any; /* a non-whitespace byte was seen */
    rl_status failed;
    rl_error fail_err;
};

rl_lbench_feeder *rl_lbench_feeder_new(void)
{
    return calloc(1, sizeof(rl_lbench_feeder));
}

void rl_lbench_feeder_free(rl_lbench_feeder *f)
{
    if (!f)
        return;
    rl_lbench_set_free(&f->set);
    free(f->line);
    free(f);
}

const rl_lbench_set *rl_lbench_feeder_set(const rl_lbench_feeder *f)
{
    return &f->set;
}

void rl_lbench_feeder_take(rl_lbench_feeder *f, rl_lbench_set *out)
{
    *out = f->set;
    memset(&f->set, 0, sizeof f->set);
    f->cap = 0;
}

static bool ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* One complete line. last: it ended at the end of the stream, not at a newline. */
static rl_status feed_line(rl_lbench_feeder *f, const char *s, size_t n, bool last, rl_error *err)
{
    while (n && ws(*s)) {
        s++;
        n--;
    }
    while (n && ws(s[n - 1]))
        n--;
    if (n == 0)
        return RL_OK;
    if (s[0] != '{') {
        f->set.n_skipped_lines++;
        return RL_OK;
    }
    bool parsed;
    rl_status st = add_object(&f->set, &f->cap, s, n, &parsed, err);
    if (st != RL_OK || parsed)
        return st;
    if (last) {
        f->set.truncated = true; /* killed in the middle of printing a record */
    } else if (f->set.n_invalid++ == 0) {
        snprintf(f->set.first_invalid, sizeof f->set.first_invalid,
                 "a line starting with { is not valid JSON");
    }
    return RL_OK;
}

static void too_long(rl_lbench_set *set)
{
    if (set->n_invalid++ == 0)
        snprintf(set->first_invalid, sizeof set->first_invalid,
                 "a record is longer than %d bytes, more than llama-bench prints for one",
                 RL_LBENCH_MAX_LINE);
}

static void keep_head(rl_lbench_feeder *f, const char *b, size_t n)
{
    for (size_t i = 0; i < n && f->head_len < sizeof f->head; i++) {
        if (!f->any && ws(b[i]))
            continue;
        f->any = true;
        f->head[f->head_len++] = b[i];
    }
}

rl_status rl_lbench_feed(rl_lbench_feeder *f, const char *bytes, size_t n, size_t *n_new,
                         rl_error *err)
{
    size_t before = f->set.n_records;
    if (n_new)
        *n_new = 0;
    if (f->failed)
        return rl_fail(err, f->failed, "%s", f->fail_err.msg);
    if (!bytes)
        n = 0;
    keep_head(f, bytes, n);
    rl_status st = RL_OK;
    while (n > 0 && st == RL_OK) {
        const char *nl = memchr(bytes, '\n', n);
        size_t seg = nl ? (size_t)(nl - bytes) : n;
        if (!f->dropping && f->len + seg > RL_LBENCH_MAX_LINE) {
            f->dropping = true; /* too long to be a record: never buffer it */
            f->len = 0;
        }
        if (!f->dropping && seg > 0) {
            if (f->len + seg > f->line_cap) {
                size_t nc = f->line_cap ? f->line_cap : 256;
                while (nc < f->len + seg)
                    nc *= 2;
                char *nb = realloc(f->line, nc);
                if (!nb) {
                    st = rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench output");
                    break;
                }
                f->line = nb;
                f->line_cap = nc;
            }
            memcpy(f->line + f->len, bytes, seg);
            f->len += seg;
        }
        if (nl) {
            if (f->dropping)
                too_long(&f->set);
            else
                st = feed_line(f, f->line, f->len, false, err);
            f->dropping = false;
            f->len = 0;
            seg++;
        }
        bytes += seg;
        n -= seg;
    }
    if (st != RL_OK) {
        f->failed = st;
        rl_fail(&f->fail_err, st, "%s", err ? err->msg : "llama-bench output refused");
    }
    if (n_new)
        *n_new = f->set.n_records - before;
    return st;
}

rl_status rl_lbench_feed_finish(rl_lbench_feeder *f, size_t *n_new, rl_error *err)
{
    size_t before = f->set.n_records;
    if (n_new)
        *n_new = 0;
    if (f->failed)
        return rl_fail(err, f->failed, "%s", f->fail_err.msg);
    rl_status st = RL_OK;
    if (f->dropping) {
        too_long(&f->set);
        f->set.truncated = true;
    } else if (f->len > 0) {
        st = feed_line(f, f->line, f->len, true, err);
    }
    f->dropping = false;
    f->len = 0;
    if (n_new)
        *n_new = f->set.n_records - before;
    if (st != RL_OK)
        return st;
    if (f->set.n_records == 0)
        return no_records(&f->set, f->head, f->head_len, f->any, err);
    return RL_OK;
}

/* ---- whole output ------------------------------------------------------------------------- */

/* Where a -o json array starts: a line whose first non-blank byte is '[' followed (after
 * blanks) by '{', ']' or the end. Returns len when the first such line or JSONL object line
 * is a JSONL one (or there is neither). */
static size_t find_array(const char *t, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && t[j] != '\n' && ws(t[j]))
            j++;
        if (j < len && t[j] == '{')
            return len; /* JSONL */
        if (j < len && t[j] == '[') {
            size_t k = j + 1;
            while (k < len && ws(t[k]))
                k++;
            if (k == len || t[k] == '{' || t[k] == ']')
                return j;
        }
        while (j < len && t[j] != '\n')
            j++;
        i = j + 1;
    }
    return len;
}

static rl_status parse_array(const char *t, size_t len, rl_lbench_set *set, rl_error *err)
{
    size_t cap = 0, i = 1; /* past the '[' */
    for (;;) {
        while (i < len && (ws(t[i]) || t[i] == ','))
            i++;
        if (i >= len) {
            set->truncated = true; /* no closing ']': killed mid-array */
            return RL_OK;
        }
        if (t[i] == ']')
            return RL_OK;
        if (t[i] != '{') {
            /* not an object: the array is damaged from here on; keep what came before */
            set->truncated = true;
            if (set->n_invalid++ == 0)
                snprintf(set->first_invalid, sizeof set->first_invalid,
                         "an array element is not an object");
            return RL_OK;
        }
        size_t n = rl_json_extent(t + i, len - i, 0, NULL);
        if (n == 0) {
            set->truncated = true;
            return RL_OK;
        }
        if (n > RL_LBENCH_MAX_LINE) {
            too_long(set);
        } else {
            bool parsed;
            rl_status st = add_object(set, &cap, t + i, n, &parsed, err);
            if (st != RL_OK)
                return st;
            if (!parsed) {
                set->truncated = true;
                if (set->n_invalid++ == 0)
                    snprintf(set->first_invalid, sizeof set->first_invalid,
                             "an array element is not valid JSON");
                return RL_OK;
            }
        }
        i += n;
    }
}

rl_status rl_lbench_parse(const char *text, size_t len, rl_lbench_set *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        len = 0;
    if (len > RL_LBENCH_MAX_TEXT)
        return rl_fail(err, RL_EINPUT,
                       "llama-bench printed %zu bytes, more than the %u accepted; run fewer "
                       "tests per call",
                       len, RL_LBENCH_MAX_TEXT);
    size_t s = 0;
    while (s < len && ws(text[s]))
        s++;
    if (s == len)
        return no_records(out, NULL, 0, false, err);
    size_t a = find_array(text, len);
    if (a == len) {
        rl_lbench_feeder *f = rl_lbench_feeder_new();
        if (!f)
            return rl_fail(err, RL_EINTERNAL, "out of memory reading llama-bench output");
        rl_status st = rl_lbench_feed(f, text, len, NULL, err);
        if (st == RL_OK)
            st = rl_lbench_feed_finish(f, NULL, err);
        if (st == RL_OK)
            rl_lbench_feeder_take(f, out);
        rl_lbench_feeder_free(f);
        return st;
    }
    /* lines before the array are banners */
    for (size_t i = 0; i < a; i++)
        if (text[i] == '\n' && i > 0 && text[i - 1] != '\n')
            out->n_skipped_lines++;
    out->from_array = true;
    rl_status st = parse_array(text + a, len - a, out, err);
    if (st == RL_OK && out->n_records == 0)
        st = no_records(out, text + s, len - s, true, err);
    if (st != RL_OK)
        rl_lbench_set_free(out);
    return st;
}
