/* SPDX-License-Identifier: MIT */
/* gguf_remote.c: GGUF headers over HTTP(S) range requests, with a header cache. See
 * gguf_remote.h for the rules (blocks, Range checks, limits, the cache).
 *
 * One rfile per remote file: a growing buffer holding the file's first `have` bytes, filled
 * by range requests on one curl handle, read by the GGUF parser through fopencookie (reads
 * past `have` fetch the next block, sized by the parser's estimate of the header's end:
 * ensure(); a read returns what is held, stdio loops). Everything is freed before the public
 * functions return; the parsed rl_gguf_file goes to the caller. */
#include "model/gguf_remote.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_url.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

#define ETAG_MAX 256
#define MAX_REDIRS 10L
#define GUESSES 2 /* requests sized by the parser's estimate, before the blocks double */

typedef enum { AB_NONE = 0, AB_NO_RANGE, AB_STATUS, AB_BAD_RANGE, AB_TOO_MUCH } abort_why;

typedef struct {
    CURL *h;
    const char *url;
    const rl_remote_opts *o;
    rl_remote_stats *stats;
    unsigned char *data; /* the file's bytes [0, have) */
    size_t have, cap;
    uint64_t size; /* the file's size (known after the first response) */
    uint64_t pos;  /* the parser's position */
    char etag[ETAG_MAX];
    bool from_cache;
    rl_gguf_ahead ahead; /* the parser's estimate of where the header ends */
    unsigned guesses;    /* requests sized by it so far */
    rl_error err;
    bool failed;
    /* the request in flight */
    uint64_t req_start, req_len, got;
    uint64_t received; /* body bytes of this response, kept or not */
    bool checked;      /* its response's status and range were checked */
    long code;
    abort_why why;
    char detail[160];
} rfile;

/* ---- small pieces --------------------------------------------------------------------- */

bool rl_is_url(const char *s)
{
    return s && (strncasecmp(s, "http://", 7) == 0 || strncasecmp(s, "https://", 8) == 0);
}

char *rl_remote_cache_key(const char *url)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a 64 offset basis */
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return rl_asprintf("%016" PRIx64, h);
}

void rl_remote_opts_default(rl_remote_opts *o)
{
    memset(o, 0, sizeof *o);
    o->first_block = RL_REMOTE_FIRST_BLOCK;
    o->max_bytes = RL_REMOTE_MAX_BYTES;
    o->readahead_max = RL_REMOTE_READAHEAD_MAX;
    o->timeout_s = RL_REMOTE_TIMEOUT_S;
    o->low_speed_bytes = RL_REMOTE_LOW_SPEED_BYTES;
    o->low_speed_s = RL_REMOTE_LOW_SPEED_S;
    const char *t = getenv("LLAMA_ROOFLINE_HTTP_TIMEOUT");
    uint64_t v;
    if (t && rl_parse_u64(t, &v) && v >= 1 && v <= 3600) {
        o->timeout_s = (long)v;
        if (o->low_speed_s > o->timeout_s)
            o->low_speed_s = o->timeout_s;
    }
}

rl_status rl_remote_refuse_url(const char *what, const char *operand, rl_error *err)
{
    if (!rl_is_url(operand))
        return RL_OK;
    char safe[512];
    return rl_fail(err, RL_EINPUT,
                   "%s%s%s: a model given by URL can only be inspected or predicted; download "
                   "it to run it",
                   what ? what : "", what ? ": " : "", rl_url_shown(operand, safe, sizeof safe));
}

/* The URL for messages: credentials redacted (rl_url.h), control characters escaped, long
 * ones cut. */
static const char *shown(const char *url, char *buf, size_t cap)
{
    return rl_url_shown(url, buf, cap);
}

static rl_status rfail(rfile *r, rl_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static rl_status rfail(rfile *r, rl_status st, const char *fmt, ...)
{
    char msg[768], u[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->failed = true;
    return rl_fail(&r->err, st, "%s: %s", shown(r->url, u, sizeof u), msg);
}

/* "bytes A-B/T" (T a number: the size must be known). */
static bool parse_content_range(const char *v, uint64_t *a, uint64_t *b, uint64_t *t)
{
    if (strncasecmp(v, "bytes", 5) != 0)
        return false;
    v += 5;
    while (*v == ' ')
        v++;
    char part[3][24];
    const char seps[3] = {'-', '/', '\0'};
    for (int i = 0; i < 3; i++) {
        size_t n = 0;
        while (v[n] && v[n] != seps[i] && !(i == 2 && isspace((unsigned char)v[n])))
            n++;
        if (n == 0 || n >= sizeof part[i] || (i < 2 && v[n] != seps[i]))
            return false;
        memcpy(part[i], v, n);
        part[i][n] = '\0';
        v += n + (i < 2);
    }
    while (isspace((unsigned char)*v))
        v++;
    return *v == '\0' && rl_parse_u64(part[0], a) && rl_parse_u64(part[1], b) &&
           rl_parse_u64(part[2], t) && *a <= *b && *b < *t;
}

static const char *header_value(CURL *h, const char *name)
{
    struct curl_header *hd = NULL;
    if (curl_easy_header(h, name, 0, CURLH_HEADER, -1, &hd) != CURLHE_OK || !hd)
        return NULL;
    return hd->value;
}

/* ---- one range request ---------------------------------------------------------------- */

/* The first body bytes of a response: is it the range asked for? */
static bool check_response(rfile *r)
{
    r->checked = true;
    curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &r->code);
    if (r->code == 206) {
        const char *cr = header_value(r->h, "Content-Range");
        uint64_t a, b, t;
        if (!cr || !parse_content_range(cr, &a, &b, &t)) {
            r->why = AB_NO_RANGE;
            snprintf(r->detail, sizeof r->detail, "206 without a usable Content-Range");
            return false;
        }
        if (a != r->req_start || b - a + 1 > r->req_len || (r->size && t != r->size)) {
            r->why = AB_BAD_RANGE;
            snprintf(r->detail, sizeof r->detail,
                     "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64 " for bytes %" PRIu64 "-%" PRIu64, a,
                     b, t, r->req_start, r->req_start + r->req_len - 1);
            return false;
        }
        r->size = t;
        return true;
    }
    if (r->code == 200) {
        curl_off_t cl = -1;
        curl_easy_getinfo(r->h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl);
        if (r->req_start == 0 && cl > 0 && (uint64_t)cl <= r->req_len) {
            r->size = (uint64_t)cl; /* the whole (small) file */
            return true;
        }
        r->why = AB_NO_RANGE;
        if (cl >= 0)
            snprintf(r->detail, sizeof r->detail, "200 with the whole %" PRIu64 "-byte file",
                     (uint64_t)cl);
        else
            snprintf(r->detail, sizeof r->detail, "200 with a body of unknown length");
        return false;
    }
    r->why = AB_STATUS;
    return false;
}

static size_t on_body(char *p, size_t sz, size_t nmemb, void *ud)
{
    rfile *r = ud;
    size_t n = sz * nmemb;
    r->received += n;
    r->stats->bytes_fetched += n;
    if (!r->checked && !check_response(r))
        return 0; /* abort the transfer now (CURLE_WRITE_ERROR) */
    if (n > r->req_len - r->got) {
        r->why = AB_TOO_MUCH;
        return 0;
    }
    memcpy(r->data + r->have + r->got, p, n);
    r->got += n;
    return n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)ud, (void)dt, (void)dn, (void)ut, (void)un;
    return rl_interrupted ? 1 : 0;
}

/* Fetch bytes [r->have, r->have + len) into the buffer; with inm (an ETag) as If-None-Match,
 * *not_modified tells a 304 (nothing received). */
static rl_status fetch(rfile *r, uint64_t len, const char *inm, bool *not_modified)
{
    if (not_modified)
        *not_modified = false;
    if (r->have + len > r->cap) {
        size_t ncap = (size_t)(r->have + len);
        unsigned char *nd = realloc(r->data, ncap);
        if (!nd)
            return rfail(r, RL_EINTERNAL, "out of memory for %" PRIu64 " bytes", r->have + len);
        r->data = nd;
        r->cap = ncap;
    }
    r->req_start = r->have;
    r->req_len = len;
    r->got = r->received = 0;
    r->checked = false;
    r->code = 0;
    r->why = AB_NONE;
    r->detail[0] = '\0';
    char range[64], ebuf[CURL_ERROR_SIZE] = "";
    snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, r->req_start, r->req_start + len - 1);
    struct curl_slist *hdrs = NULL;
    char *inm_line = inm ? rl_asprintf("If-None-Match: %s", inm) : NULL;
    if (inm && (!inm_line || !(hdrs = curl_slist_append(NULL, inm_line)))) {
        free(inm_line);
        return rfail(r, RL_EINTERNAL, "out of memory");
    }
    CURL *h = r->h;
    curl_easy_setopt(h, CURLOPT_RANGE, range);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
    r->stats->requests++;
    CURLcode rc = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    curl_slist_free_all(hdrs);
    free(inm_line);
    if (!r->checked)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->code);

    if (rc == CURLE_ABORTED_BY_CALLBACK || rl_interrupted)
        return rfail(r, RL_EINTERRUPTED, "interrupted");
    switch (r->why) {
    case AB_NO_RANGE:
        return rfail(r, RL_EINPUT,
                     "the server does not answer range requests (it sent %s); the transfer was "
                     "stopped at its first %" PRIu64 " bytes: download the file and give its path",
                     r->detail, r->received);
    case AB_BAD_RANGE:
        return rfail(r, RL_EINPUT,
                     "the server answered another range than asked (%s); the file may have "
                     "changed during the read: try again",
                     r->detail);
    case AB_TOO_MUCH:
        return rfail(r, RL_EINPUT,
                     "the server sent more than the %" PRIu64 " bytes asked for; the transfer "
                     "was stopped",
                     len);
    case AB_STATUS:
        return rfail(r, RL_EINPUT, "HTTP %ld from the server; check the address", r->code);
    case AB_NONE: break;
    }
    if (rc != CURLE_OK) {
        const char *why = ebuf[0] ? ebuf : curl_easy_strerror(rc);
        if (rc == CURLE_OPERATION_TIMEDOUT)
            return rfail(r, RL_EINPUT,
                         "no complete answer in time (limits: %ld s per request, at least %ld "
                         "bytes/s over %ld s): %s",
                         r->o->timeout_s, r->o->low_speed_bytes, r->o->low_speed_s, why);
        if (rc == CURLE_TOO_MANY_REDIRECTS)
            return rfail(r, RL_EINPUT, "more than %ld redirects: %s", MAX_REDIRS, why);
        return rfail(r, RL_EINPUT, "cannot fetch: %s", why);
    }
    if (inm && r->code == 304) {
        *not_modified = true;
        return RL_OK;
    }
    if (!r->checked) { /* no body at all */
        if (r->code == 206 || r->code == 200)
            return rfail(r, RL_EINPUT, "HTTP %ld with an empty body; the file is empty", r->code);
        return rfail(r, RL_EINPUT, "HTTP %ld from the server; check the address", r->code);
    }
    uint64_t expect = r->size - r->req_start < len ? r->size - r->req_start : len;
    if (r->got != expect)
        return rfail(r, RL_EINPUT,
                     "the answer ended after %" PRIu64 " of the %" PRIu64
                     " bytes asked for; try again",
                     r->got, expect);
    r->have += (size_t)r->got;
    if (!r->etag[0]) {
        const char *et = header_value(h, "ETag");
        if (et && strlen(et) < sizeof r->etag)
            snprintf(r->etag, sizeof r->etag, "%s", et);
    }
    return RL_OK;
}

/* Hold at least the first `need` bytes (need <= size). For the first GUESSES requests whose
 * need lies before the parser's estimate of the header's end (rl_gguf_ahead), the request
 * reaches its high mark, but not past the block the doubling would reach to cover the end
 * (o->first_block times a power of two): a guess that holds costs no more bytes than doubling
 * blocks; otherwise (no estimate, or the estimates fell short) it doubles what is held.
 * Either way it stops o->readahead_max past what is held, unless need itself lies further,
 * and never passes the file's size or o->max_bytes. */
static uint64_t guess_reach(const rfile *r)
{
    uint64_t block = r->o->first_block ? r->o->first_block : 1;
    while (block < r->ahead.end && block <= UINT64_MAX / 2)
        block *= 2;
    if (block < r->ahead.end)
        block = r->ahead.end;
    uint64_t high = r->ahead.high > r->ahead.end ? r->ahead.high : r->ahead.end;
    return high < block ? high : block;
}

static rl_status ensure(rfile *r, uint64_t need)
{
    if (need <= r->have)
        return RL_OK;
    uint64_t want = r->have ? 2 * (uint64_t)r->have : r->o->first_block;
    if (r->ahead.end > need && r->guesses < GUESSES) {
        want = guess_reach(r);
        r->guesses++;
    }
    if (want - r->have > r->o->readahead_max)
        want = r->have + r->o->readahead_max;
    if (want < need)
        want = need;
    if (want > r->size)
        want = r->size;
    if (want > r->o->max_bytes) {
        if (need > r->o->max_bytes)
            return rfail(r, RL_EINPUT,
                         "the GGUF header goes on past the %" PRIu64 " MiB this tool fetches of a "
                         "file; download the file and give its path",
                         r->o->max_bytes >> 20);
        want = r->o->max_bytes;
    }
    return fetch(r, want - r->have, NULL, NULL);
}

/* ---- the parser's view: fopencookie ------------------------------------------------- */

static ssize_t ck_read(void *c, char *buf, size_t n)
{
    rfile *r = c;
    if (r->pos >= r->size || n == 0)
        return 0;
    if (r->pos >= r->have && ensure(r, r->pos + 1) != RL_OK) {
        errno = EIO;
        return -1;
    }
    uint64_t k = r->have - r->pos;
    if (k > n)
        k = n;
    memcpy(buf, r->data + r->pos, (size_t)k);
    r->pos += k;
    return (ssize_t)k;
}

static int ck_seek(void *c, off64_t *off, int whence)
{
    rfile *r = c;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)r->pos : (int64_t)r->size;
    if (*off < 0 ? *off < -base : *off > INT64_MAX - base) {
        errno = EINVAL;
        return -1;
    }
    r->pos = (uint64_t)(base + *off);
    *off = (off64_t)r->pos;
    return 0;
}

/* ---- the header cache ---------------------------------------------------------------- */

static char *cache_path(const rl_remote_opts *o, const char *url)
{
    if (!o->cache_dir)
        return NULL;
    char *key = rl_remote_cache_key(url);
    char *p = key ? rl_asprintf("%s/%s.ggufh", o->cache_dir, key) : NULL;
    free(key);
    return p;
}

/* Load a cached entry for r->url into r (data, have, size, etag); *found false when there is
 * none usable (missing, unreadable, not this URL's, malformed: fetched again). Out of memory
 * is RL_EINTERNAL (through rfail), never a cache that merely looked malformed. */
static rl_status cache_load(rfile *r, const char *path, bool *found)
{
    char *text = NULL;
    size_t len = 0;
    rl_error e = {RL_OK, ""};
    *found = false;
    if (!path || rl_file_read_all(path, (size_t)r->o->max_bytes + 65536, &text, &len, &e) != RL_OK)
        return e.status == RL_EINTERNAL
                   ? rfail(r, RL_EINTERNAL, "out of memory reading its header cache entry")
                   : RL_OK;
    char *nl = memchr(text, '\n', len);
    cJSON *meta = NULL;
    rl_status st =
        nl ? rl_json_parse("the header cache", text, (size_t)(nl - text), &meta, &e) : RL_EINPUT;
    if (st == RL_EINTERNAL) {
        free(text);
        return rfail(r, RL_EINTERNAL, "out of memory reading its header cache entry");
    }
    const char *url = rl_json_get_str(meta, "url"), *etag = rl_json_get_str(meta, "etag");
    uint64_t size = 0, bytes = 0;
    char *mine = rl_url_redact(r->url); /* the file holds the URL redacted */
    bool ok = url && etag && mine && strcmp(url, mine) == 0 && etag[0] && strlen(etag) < ETAG_MAX &&
              rl_json_get_u64(meta, "size", &size) && rl_json_get_u64(meta, "bytes", &bytes) &&
              bytes > 0 && bytes <= size && bytes <= r->o->max_bytes &&
              bytes == len - (size_t)(nl + 1 - text);
    bool oom = meta && !mine;
    if (ok) {
        r->data = malloc((size_t)bytes);
        ok = r->data != NULL;
        oom = !ok;
    }
    if (ok) {
        memcpy(r->data, nl + 1, (size_t)bytes);
        r->have = r->cap = (size_t)bytes;
        r->size = size;
        snprintf(r->etag, sizeof r->etag, "%s", etag);
    }
    cJSON_Delete(meta);
    free(text);
    free(mine);
    if (oom)
        return rfail(r, RL_EINTERNAL, "out of memory reading its header cache entry");
    *found = ok;
    return RL_OK;
}

/* Keep what was fetched (only with an ETag); a failure to write is only noted. */
static void cache_store(rfile *r, const char *path)
{
    if (!path || !r->etag[0] || !r->have)
        return;
    rl_error e = {RL_OK, ""};
    if (rl_mkdir_p(r->o->cache_dir, "set LLAMA_ROOFLINE_CACHE to a writable directory", &e) !=
        RL_OK)
        return;
    cJSON *meta = cJSON_CreateObject();
    char *url = rl_url_redact(r->url); /* no credential is written (the key hashes them) */
    bool ok = meta && url && rl_json_add_str(meta, "url", url) &&
              rl_json_add_str(meta, "etag", r->etag) && rl_json_add_u64(meta, "size", r->size) &&
              rl_json_add_u64(meta, "bytes", r->have);
    char *line = ok ? cJSON_PrintUnformatted(meta) : NULL;
    cJSON_Delete(meta);
    free(url);
    if (!line)
        return;
    rl_atomic a;
    if (rl_atomic_open(path, &a, &e) == RL_OK) {
        a.finish = true;
        if (rl_atomic_write(&a, line, strlen(line), &e) == RL_OK &&
            rl_atomic_write(&a, "\n", 1, &e) == RL_OK &&
            rl_atomic_write(&a, r->data, r->have, &e) == RL_OK)
            rl_atomic_commit(&a, &e);
        rl_atomic_abort(&a);
    }
    free(line);
}

/* ---- one file ------------------------------------------------------------------------ */

static rl_status setup_handle(rfile *r)
{
    CURL *h = r->h = curl_easy_init();
    if (!h)
        return rfail(r, RL_EINTERNAL, "libcurl could not start a transfer");
    curl_easy_setopt(h, CURLOPT_URL, r->url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, MAX_REDIRS);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "llama-roofline/" RL_VERSION);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, r->o->timeout_s);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, r->o->timeout_s < 30 ? r->o->timeout_s : 30L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, r->o->low_speed_bytes);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, r->o->low_speed_s);
    return RL_OK;
}

rl_status rl_gguf_remote_read(const char *url, const rl_remote_opts *o, rl_remote_stats *stats,
                              rl_gguf_file **out, rl_error *err)
{
    *out = NULL;
    rl_remote_stats local = {0};
    rfile r = {.url = url, .o = o, .stats = stats ? stats : &local};
    char *cpath = cache_path(o, url);
    char cached_etag[ETAG_MAX] = "";
    rl_status st = setup_handle(&r);
    bool cached = false;
    if (st == RL_OK)
        st = cache_load(&r, cpath, &cached);
    if (st == RL_OK && cached) {
        snprintf(cached_etag, sizeof cached_etag, "%s", r.etag);
        size_t keep_have = r.have;
        r.have = 0; /* the revalidating request lands at the start if the file changed */
        bool nm = false;
        uint64_t cached_size = r.size;
        r.size = 0;
        uint64_t first = o->first_block < o->max_bytes ? o->first_block : o->max_bytes;
        st = fetch(&r, first, cached_etag, &nm);
        if (st == RL_OK && nm) {
            r.have = keep_have;
            r.size = cached_size;
            r.from_cache = true;
            r.stats->cache_hits++;
        } else if (st == RL_OK) {
            r.etag[0] = '\0'; /* changed: take the new ETag */
            const char *et = header_value(r.h, "ETag");
            if (et && strlen(et) < sizeof r.etag)
                snprintf(r.etag, sizeof r.etag, "%s", et);
        }
    } else if (st == RL_OK) {
        uint64_t first = o->first_block < o->max_bytes ? o->first_block : o->max_bytes;
        st = fetch(&r, first, NULL, NULL);
    }
    if (st == RL_OK) {
        r.stats->file_bytes += r.size;
        cookie_io_functions_t io = {ck_read, NULL, ck_seek, NULL};
        FILE *fp = fopencookie(&r, "rb", io);
        if (!fp) {
            st = rfail(&r, RL_EINTERNAL, "cannot open a stream: %s", strerror(errno));
        } else {
            rl_error perr = {RL_OK, ""};
            char *name = rl_url_redact(url); /* the file's name in messages and bundles */
            st = name ? rl_gguf_read_stream_ahead(fp, r.size, name, &r.ahead, out, &perr)
                      : rl_fail(&perr, RL_EINTERNAL, "out of memory");
            free(name);
            fclose(fp);
            if (st != RL_OK && !r.failed)
                r.err = perr;
            else if (st != RL_OK)
                st = r.err.status;
        }
    }
    if (st == RL_OK) {
        r.stats->header_bytes += (*out)->bytes_read;
        if (!r.from_cache)
            cache_store(&r, cpath);
    } else {
        rl_gguf_free(*out);
        *out = NULL;
        if (err)
            *err = r.err;
    }
    if (r.h)
        curl_easy_cleanup(r.h);
    free(r.data);
    free(cpath);
    return st;
}

rl_status rl_gguf_remote_model_load(const char *url, const rl_remote_opts *o,
                                    rl_remote_stats *stats, rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    /* the split naming is looked for in the path, before any query or fragment */
    size_t base_len = strcspn(url, "?#");
    char *base = rl_asprintf("%.*s", (int)base_len, url);
    if (!base)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t plen;
    uint32_t no, count;
    bool split = rl_gguf_split_name(base, &plen, &no, &count) && count > 1;
    free(base);
    if (!split) {
        rl_gguf_file *f;
        rl_status st = rl_gguf_remote_read(url, o, stats, &f, err);
        return st == RL_OK ? rl_gguf_model_adopt(f, m, err) : st;
    }
    char u[512];
    if (no == 0 || no > count || count > GGUF_MODEL_MAX_SHARDS)
        return rl_fail(err, RL_EINPUT,
                       "%s: the name says shard %" PRIu32 " of %" PRIu32
                       ", which this tool cannot read (at most %d shards)",
                       shown(url, u, sizeof u), no, count, GGUF_MODEL_MAX_SHARDS);
    rl_gguf_file **files = rl_calloc(count, sizeof *files);
    if (!files)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st = RL_OK;
    for (uint32_t i = 0; i < count && st == RL_OK; i++) {
        char *su = rl_asprintf("%.*s-%05" PRIu32 "-of-%05" PRIu32 ".gguf%s", (int)plen, url, i + 1,
                               count, url + base_len);
        st = su ? rl_gguf_remote_read(su, o, stats, &files[i], err)
                : rl_fail(err, RL_EINTERNAL, "out of memory");
        free(su);
    }
    char *name = rl_url_redact(url);
    if (!name && st == RL_OK)
        st = rl_fail(err, RL_EINTERNAL, "out of memory");
    st = rl_gguf_model_adopt_read(st, files, count, name ? name : "", m, err);
    free(name);
    return st;
}

rl_status rl_gguf_model_open(const char *path, FILE *log, rl_gguf_model *m, rl_error *err)
{
    if (!rl_is_url(path))
        return rl_gguf_model_load(path, m, err);
    rl_remote_opts o;
    rl_remote_opts_default(&o);
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *dir = root ? rl_asprintf("%s/headers", root) : NULL;
    o.cache_dir = dir;
    rl_remote_stats s = {0};
    rl_status st = rl_gguf_remote_model_load(path, &o, &s, m, err);
    if (st == RL_OK && log) {
        char u[512], pct[32];
        rl_snprintf(pct, sizeof pct, "%.3f",
                    s.file_bytes ? 100.0 * (double)s.bytes_fetched / (double)s.file_bytes : 0.0);
        rl_tty_printf(
            log, "remote: %s: fetched %" PRIu64 " of %" PRIu64 " bytes (%s%%) in %u request%s%s\n",
            shown(path, u, sizeof u), s.bytes_fetched, s.file_bytes, pct, s.requests,
            s.requests == 1 ? "" : "s", s.cache_hits ? ", header cache revalidated" : "");
    }
    free(dir);
    free(root);
    return st;
}
