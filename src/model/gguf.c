/* SPDX-License-Identifier: MIT */
/* gguf.c: a defensive reader for the header, metadata and tensor table of GGUF v2/v3 files.
 *
 * The reader walks a FILE* (a real file with a large stdio buffer, a memory buffer through
 * fmemopen, or any other source the caller opens: gguf_remote.c's HTTP block cache through
 * fopencookie, synth's in-memory header) and tracks its own position against the known size, so
 * every count and length is checked against the bytes that remain before anything is read or
 * allocated. Scalar arrays are skipped with a seek (small integer arrays are scanned for their max
 * and sum); string arrays keep at most GGUF_KEEP_STRINGS elements. Tensor data is never read.
 *
 * Ownership: the rl_gguf_file returned by rl_gguf_read_file/rl_gguf_read_buffer and everything it
 * points to belong to the caller, who releases them with rl_gguf_free. On failure nothing is
 * returned (*out is NULL) and err holds one line "<path>: <problem>" with status RL_EINPUT
 * (RL_EINTERNAL only when memory runs out). */
#include "model/gguf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/ggml_types.h"
#include "model/gguf_vocab.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* stdio buffer for real files: large enough for few syscalls, small enough that seeks over
 * scalar arrays and the read-ahead past the tensor table stay cheap */
#define GGUF_FILE_BUFFER (64u << 10)
#define GGUF_SEEK_MIN 4096 /* skips shorter than this are read, longer ones seek */
/* Smallest possible encodings, used to bound counts by the bytes that remain. */
#define GGUF_MIN_KV_BYTES 13u     /* key length (8) + empty key + type (4) + a u8 value */
#define GGUF_MIN_TENSOR_BYTES 32u /* name length (8) + n_dims (4) + one dim (8) + type + offset */

#if defined(__GLIBC__)
#define RL_FREAD fread_unlocked
#else
#define RL_FREAD fread
#endif

typedef enum { SEC_HEADER, SEC_KV, SEC_TENSORS } section;

/* The read-ahead estimate's state (rl_gguf_ahead; see "read-ahead estimate" below). */
typedef struct {
    rl_gguf_ahead *out; /* NULL: no estimate kept (local files, buffers) */
    uint64_t n_tensors;
    uint64_t vocab;             /* tokenizer.ggml.tokens' announced count, 0 until met */
    double tok_elem;            /* bytes per token string (length and text) as last estimated */
    bool no_scores;             /* tokenizer.ggml.model "gpt2": no scores follow */
    bool merges;                /* "gpt2" or "gemma4": merges follow */
    const char *model, *pre;    /* tokenizer.ggml.model and .pre (the file's strings), or NULL */
    const rl_gguf_vocab *known; /* the known vocabulary of model, pre and vocab, or NULL */
    bool seen_types, seen_scores, seen_merges, seen_charsmap;
    bool in_tokens; /* the array being read is tokenizer.ggml.tokens */
    /* the sequence being read (a top-level string array or the tensor table) */
    uint64_t start;          /* position of its first element */
    uint64_t win_i, win_pos; /* the previous window's first element and its position */
    uint64_t cur_i, cur_pos; /* the current window's */
} ahead_state;

typedef struct {
    FILE *fp;
    const char *path;
    uint64_t size; /* bytes in the file */
    uint64_t pos;  /* bytes consumed so far */
    section sec;
    uint64_t idx, count; /* item being read within the section (0-based) and how many */
    rl_error *err;
    ahead_state ah;
} reader;

static rl_status failv(reader *r, rl_status st, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static rl_status failv(reader *r, rl_status st, const char *fmt, va_list ap)
{
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    for (char *p = msg; *p; p++) /* keys and names come from the file: keep one clean line */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return rl_fail(r->err, st, "%s: %s", r->path, msg);
}

static rl_status fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static rl_status fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    failv(r, RL_EINPUT, fmt, ap);
    va_end(ap);
    return RL_EINPUT;
}

static rl_status oom(reader *r)
{
    return rl_fail(r->err, RL_EINTERNAL, "%s: out of memory while reading the GGUF header",
                   r->path);
}

static rl_status truncated(reader *r)
{
    switch (r->sec) {
    case SEC_KV:
        return fail(r,
                    "truncated in the metadata (key %" PRIu64 " of %" PRIu64 ") at byte %" PRIu64
                    "; the file is incomplete, re-download it",
                    r->idx + 1, r->count, r->size);
    case SEC_TENSORS:
        return fail(r,
                    "truncated in the tensor table (tensor %" PRIu64 " of %" PRIu64
                    ") at byte %" PRIu64 "; the file is incomplete, re-download it",
                    r->idx + 1, r->count, r->size);
    case SEC_HEADER: break;
    }
    return fail(r,
                "truncated in the header (%" PRIu64 " bytes); the file is incomplete, "
                "re-download it",
                r->size);
}

static uint64_t remaining(const reader *r)
{
    return r->size - r->pos;
}

static rl_status rd(reader *r, void *buf, size_t n)
{
    if (n > remaining(r))
        return truncated(r);
    if (n && RL_FREAD(buf, 1, n, r->fp) != n) {
        if (ferror(r->fp))
            return fail(r, "read error at byte %" PRIu64 ": %s", r->pos, strerror(errno));
        return truncated(r);
    }
    r->pos += n;
    return RL_OK;
}

static rl_status skip(reader *r, uint64_t n)
{
    if (n > remaining(r))
        return truncated(r);
    if (n < GGUF_SEEK_MIN) {
        char scratch[GGUF_SEEK_MIN];
        return rd(r, scratch, (size_t)n);
    }
    if (fseeko(r->fp, (off_t)(r->pos + n), SEEK_SET) != 0)
        return fail(r, "cannot seek to byte %" PRIu64 ": %s", r->pos + n, strerror(errno));
    r->pos += n;
    return RL_OK;
}

/* Little-endian decoding, whatever the host. */
static rl_status rd_u32(reader *r, uint32_t *v)
{
    unsigned char b[4];
    rl_status st = rd(r, b, 4);
    if (st == RL_OK)
        *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return st;
}

static rl_status rd_u64(reader *r, uint64_t *v)
{
    unsigned char b[8];
    rl_status st = rd(r, b, 8);
    if (st == RL_OK) {
        uint64_t x = 0;
        for (int i = 7; i >= 0; i--)
            x = x << 8 | b[i];
        *v = x;
    }
    return st;
}

static bool utf8_valid(const unsigned char *s, uint64_t n)
{
    return rl_utf8_valid((const char *)s, (size_t)n);
}

/* A key or tensor name as shown in a message: at most CLIP bytes, cut at a character
 * boundary, with "..." when cut. */
#define CLIP 96
static const char *clip(const char *s, char buf[CLIP + 4])
{
    size_t n = strnlen(s, CLIP + 1);
    if (n <= CLIP)
        return s;
    n = CLIP;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    memcpy(buf, s, n);
    memcpy(buf + n, "...", 4);
    return buf;
}

/* Read a length-prefixed string of at most max bytes into a malloc'd NUL-terminated copy.
 * what names the string in messages ("key", "tensor name", "string value"). */
static rl_status rd_string(reader *r, uint64_t max, const char *what, char **out, uint64_t *len_out)
{
    uint64_t len;
    rl_status st = rd_u64(r, &len);
    if (st != RL_OK)
        return st;
    if (len > max) {
        return fail(r,
                    "implausible %s length %" PRIu64 " bytes (limit %" PRIu64 ") in %s %" PRIu64
                    " of %" PRIu64 "; the file is corrupt",
                    what, len, max, r->sec == SEC_TENSORS ? "tensor" : "metadata pair", r->idx + 1,
                    r->count);
    }
    if (len > remaining(r))
        return truncated(r);
    char *s = malloc((size_t)len + 1);
    if (!s)
        return oom(r);
    st = rd(r, s, (size_t)len);
    if (st != RL_OK) {
        free(s);
        return st;
    }
    s[len] = '\0';
    *out = s;
    if (len_out)
        *len_out = len;
    return RL_OK;
}

static rl_status skip_string(reader *r, uint64_t max, const char *what)
{
    uint64_t len;
    rl_status st = rd_u64(r, &len);
    if (st != RL_OK)
        return st;
    if (len > max)
        return fail(r,
                    "implausible %s length %" PRIu64 " bytes (limit %" PRIu64
                    ") in metadata pair %" PRIu64 " of %" PRIu64 "; the file is corrupt",
                    what, len, max, r->idx + 1, r->count);
    return skip(r, len);
}

/* Bytes of one scalar of type t; 0 for STRING, ARRAY and unknown types. */
static unsigned scalar_size(uint32_t t)
{
    switch (t) {
    case GGUF_T_UINT8:
    case GGUF_T_INT8:
    case GGUF_T_BOOL: return 1;
    case GGUF_T_UINT16:
    case GGUF_T_INT16: return 2;
    case GGUF_T_UINT32:
    case GGUF_T_INT32:
    case GGUF_T_FLOAT32: return 4;
    case GGUF_T_UINT64:
    case GGUF_T_INT64:
    case GGUF_T_FLOAT64: return 8;
    default: return 0;
    }
}

static bool is_signed_int(uint32_t t)
{
    return t == GGUF_T_INT8 || t == GGUF_T_INT16 || t == GGUF_T_INT32 || t == GGUF_T_INT64;
}

static bool is_unsigned_int(uint32_t t)
{
    return t == GGUF_T_UINT8 || t == GGUF_T_UINT16 || t == GGUF_T_UINT32 || t == GGUF_T_UINT64;
}

/* Decode a little-endian scalar of type t from b into kv's value. */
static void decode_scalar(uint32_t t, const unsigned char *b, rl_gguf_kv *kv)
{
    uint64_t x = 0;
    unsigned n = scalar_size(t);
    for (unsigned i = n; i-- > 0;)
        x = x << 8 | b[i];
    switch (t) {
    case GGUF_T_UINT8:
    case GGUF_T_UINT16:
    case GGUF_T_UINT32:
    case GGUF_T_UINT64: kv->v.u = x; break;
    case GGUF_T_BOOL: kv->v.u = x != 0; break;
    case GGUF_T_INT8: kv->v.i = (int8_t)(uint8_t)x; break;
    case GGUF_T_INT16: kv->v.i = (int16_t)(uint16_t)x; break;
    case GGUF_T_INT32: kv->v.i = (int32_t)(uint32_t)x; break;
    case GGUF_T_INT64: kv->v.i = (int64_t)x; break;
    case GGUF_T_FLOAT32: {
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, sizeof f);
        kv->v.f = f;
        break;
    }
    case GGUF_T_FLOAT64: {
        double d;
        memcpy(&d, &x, sizeof d);
        kv->v.f = d;
        break;
    }
    default: break;
    }
}

static rl_status bad_type(reader *r, uint32_t t, const char *key)
{
    char cb[CLIP + 4];
    return fail(r,
                "unknown value type %" PRIu32 " for key '%s' (metadata pair %" PRIu64 " of %" PRIu64
                "); the file is corrupt or from a newer GGUF version",
                t, clip(key, cb), r->idx + 1, r->count);
}

/* ---- read-ahead estimate ------------------------------------------------------------------
 * Where the header and tensor table will end, for a source that fetches in requests: the
 * position now, plus the rest of the item being read, plus what is expected after the current
 * metadata pair, plus AHEAD_SLACK; never past the file. After tokenizer.ggml.tokens announces
 * its count N, the per-token arrays not yet met are expected.
 *   - A known vocabulary (gguf_vocab.h: tokenizer.ggml.model and .pre as met before the tokens,
 *     N within 1/64 of the measured count) brings its measurements: the tokens still to come
 *     are the whole array's mean times N less the bytes seen (never less per token than the
 *     seen ones' mean), token_type (4N), scores (4N) if it has them, its merges per token times
 *     its mean merge string, its precompiled_charsmap.
 *   - Otherwise: token_type (4N), scores (4N) unless tokenizer.ggml.model is "gpt2" (BPE),
 *     merges (N strings, each a token split by a space: one byte longer) if it is "gpt2" or
 *     "gemma4". String elements and tensor infos are estimated from those seen: the larger
 *     of the whole average and the last window's, plus a quarter of it times the share of the
 *     array still to come (a vocabulary's later tokens are the longer ones: llama.cpp's
 *     models/ggml-vocab-qwen2.gguf averages 6.0 bytes of text in its first eighth of tokens,
 *     9.0 over all). This guess may fall short by a few percent (a gpt2 vocabulary with
 *     scores, a t5 one with its charsmap: aquila's and nomic-bert-moe's come 4.0 and 3.2%
 *     short), so high adds AHEAD_OVER of what it expects past the position (the source caps
 *     it at its next doubling block, gguf_remote.c); a known vocabulary's high is its end.
 * Counts are untrusted: the arithmetic saturates and the caller caps what it fetches. */
#define AHEAD_STR_ELEM 16u      /* bytes per string element before one is seen */
#define AHEAD_ARR_HDR 64u       /* a per-token array's key, type and count */
#define AHEAD_KV 64u            /* each metadata pair left, beyond the per-token arrays */
#define AHEAD_TENSOR 96u        /* each tensor info before one is seen (a typical one: ~62) */
#define AHEAD_SLACK (64u << 10) /* chat templates, quantization notes */
#define AHEAD_WINDOW 4096u      /* elements of a window of the recent average */
#define AHEAD_OVER 16u          /* high: 1/16 more than a guess expects past the position */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* n elements of e bytes each, saturated (e is an estimate: a double; none for e <= 0) */
static uint64_t elems(uint64_t n, double e)
{
    double b = (double)n * e;
    return !(b > 0) ? 0 : b < 0x1p63 ? (uint64_t)b : UINT64_MAX;
}

/* Bytes expected after the current metadata pair. */
static uint64_t ahead_tail(const reader *r)
{
    const ahead_state *a = &r->ah;
    if (r->sec != SEC_KV)
        return 0;
    const rl_gguf_vocab *k = a->known;
    uint64_t t = 0, n = a->vocab;
    if (n && !a->seen_types)
        t = sat_add(t, sat_add(AHEAD_ARR_HDR, sat_mul(n, 4)));
    if (n && (k ? k->scores : !a->no_scores) && !a->seen_scores)
        t = sat_add(t, sat_add(AHEAD_ARR_HDR, sat_mul(n, 4)));
    if (n && (k ? k->merges > 0 : a->merges) && !a->seen_merges)
        t = sat_add(t, sat_add(AHEAD_ARR_HDR,
                               k ? elems(n, k->merges * k->merge) : elems(n, a->tok_elem + 1)));
    if (n && k && k->charsmap && !a->seen_charsmap)
        t = sat_add(t, AHEAD_ARR_HDR + (uint64_t)k->charsmap);
    t = sat_add(t, sat_mul(r->count - r->idx - 1, AHEAD_KV));
    return sat_add(t, sat_mul(a->n_tensors, AHEAD_TENSOR));
}

/* The estimate when rest bytes of the current item are still to come. */
static void ahead_set(reader *r, uint64_t rest)
{
    if (!r->ah.out)
        return;
    uint64_t end = sat_add(sat_add(r->pos, rest), sat_add(ahead_tail(r), AHEAD_SLACK));
    uint64_t high = r->ah.known ? end : sat_add(end, (end - r->pos) / AHEAD_OVER);
    r->ah.out->end = end < r->size ? end : r->size;
    r->ah.out->high = high < r->size ? high : r->size;
}

/* A sequence of elements starts at the current position. */
static void ahead_begin(reader *r)
{
    ahead_state *a = &r->ah;
    a->start = a->win_pos = a->cur_pos = r->pos;
    a->win_i = a->cur_i = 0;
}

/* Bytes per element of the sequence of len, i of its elements read; dflt before any. */
static double ahead_elem(reader *r, uint64_t i, uint64_t len, double dflt)
{
    ahead_state *a = &r->ah;
    if (i == 0)
        return dflt;
    if (i - a->cur_i >= AHEAD_WINDOW) {
        a->win_i = a->cur_i;
        a->win_pos = a->cur_pos;
        a->cur_i = i;
        a->cur_pos = r->pos;
    }
    double avg = (double)(r->pos - a->start) / (double)i;
    double recent = i > a->win_i ? (double)(r->pos - a->win_pos) / (double)(i - a->win_i) : 0;
    double e = avg > recent ? avg : recent;
    return e * (1.0 + 0.25 * (double)(len - i) / (double)len);
}

/* Bytes per token still to come of a known vocabulary's len, i read: what its measured mean
 * leaves, at least the mean of those seen. */
static double ahead_known_tok(const reader *r, uint64_t i, uint64_t len)
{
    const ahead_state *a = &r->ah;
    double seen = (double)(r->pos - a->start);
    double e = (a->known->tok * (double)len - seen) / (double)(len - i);
    double avg = i ? seen / (double)i : 0;
    return e > avg ? e : avg;
}

/* A top-level string value: tokenizer.ggml.model names the per-token arrays to expect; it and
 * tokenizer.ggml.pre pick a known vocabulary. */
static void ahead_str(reader *r, const char *key, const char *s)
{
    if (strcmp(key, "tokenizer.ggml.model") == 0) {
        r->ah.model = s;
        r->ah.no_scores = strcmp(s, "gpt2") == 0;
        r->ah.merges = r->ah.no_scores || strcmp(s, "gemma4") == 0;
    } else if (strcmp(key, "tokenizer.ggml.pre") == 0) {
        r->ah.pre = s;
    }
}

/* A top-level array of len elements of type et starts (its count checked): note the
 * per-token arrays, estimate its bytes. Returns the default bytes of a string element. */
static double ahead_array(reader *r, const char *key, uint32_t et, uint64_t len)
{
    ahead_state *a = &r->ah;
    if (!a->out)
        return 0;
    double dflt = AHEAD_STR_ELEM;
    a->in_tokens = strcmp(key, "tokenizer.ggml.tokens") == 0 && et == GGUF_T_STRING;
    if (a->in_tokens) {
        a->vocab = len;
        a->known = a->model ? rl_gguf_vocab_find(a->model, a->pre, len) : NULL;
        if (a->known)
            dflt = a->known->tok;
    } else if (strcmp(key, "tokenizer.ggml.token_type") == 0) {
        a->seen_types = true;
    } else if (strcmp(key, "tokenizer.ggml.scores") == 0) {
        a->seen_scores = true;
    } else if (strcmp(key, "tokenizer.ggml.precompiled_charsmap") == 0) {
        a->seen_charsmap = true;
    } else if (strcmp(key, "tokenizer.ggml.merges") == 0) {
        a->seen_merges = true;
        if (a->known && a->known->merges > 0)
            dflt = a->known->merge;
        else if (a->tok_elem)
            dflt = a->tok_elem + 1;
    }
    double es = et == GGUF_T_STRING ? dflt : et == GGUF_T_ARRAY ? 12 : scalar_size(et);
    ahead_begin(r);
    ahead_set(r, elems(len, es));
    return dflt;
}

/* Element i of len of a top-level string array is next. */
static void ahead_string(reader *r, uint64_t i, uint64_t len, double dflt)
{
    if (!r->ah.out)
        return;
    double e = ahead_elem(r, i, len, dflt);
    if (r->ah.in_tokens) {
        if (r->ah.known)
            e = ahead_known_tok(r, i, len);
        r->ah.tok_elem = e;
    }
    ahead_set(r, elems(len - i, e));
}

/* Read an array body (element type and length onwards). kv receives what is kept when not
 * NULL (top level); nested arrays are walked with kv NULL. depth counts array levels. */
static rl_status read_array(reader *r, const char *key, int depth, rl_gguf_kv *kv)
{
    uint32_t et;
    uint64_t len;
    rl_status st = rd_u32(r, &et);
    if (st == RL_OK)
        st = rd_u64(r, &len);
    if (st != RL_OK)
        return st;
    if (et >= GGUF_T_COUNT)
        return bad_type(r, et, key);
    char cb[CLIP + 4];
    if (et == GGUF_T_ARRAY && depth >= GGUF_MAX_NESTING)
        return fail(r,
                    "nested arrays too deep in key '%s' (more than %d levels of arrays); "
                    "the file is corrupt",
                    clip(key, cb), GGUF_MAX_NESTING);
    if (len > GGUF_MAX_ARRAY)
        return fail(r,
                    "implausible array length %" PRIu64 " in key '%s' (limit %" PRIu64
                    "); the file is corrupt",
                    len, clip(key, cb), (uint64_t)GGUF_MAX_ARRAY);
    uint64_t min_elem = et == GGUF_T_STRING ? 8 : et == GGUF_T_ARRAY ? 12 : scalar_size(et);
    if (len > remaining(r) / min_elem)
        return fail(r,
                    "array of %" PRIu64 " elements in key '%s' cannot fit in the %" PRIu64
                    " bytes left in the file; it is truncated or corrupt (re-download it)",
                    len, clip(key, cb), remaining(r));
    double dflt = 0;
    if (kv) {
        kv->v.arr.elem = (rl_gguf_vtype)et;
        kv->v.arr.len = len;
        dflt = ahead_array(r, key, et, len);
    }

    if (et == GGUF_T_STRING) {
        uint64_t keep = kv ? (len < GGUF_KEEP_STRINGS ? len : GGUF_KEEP_STRINGS) : 0;
        if (keep) {
            kv->v.arr.strs = rl_calloc((size_t)keep, sizeof(char *));
            if (!kv->v.arr.strs)
                return oom(r);
        }
        for (uint64_t i = 0; i < len; i++) {
            if (kv)
                ahead_string(r, i, len, dflt);
            if (i < keep) {
                st = rd_string(r, GGUF_MAX_STRING, "string", &kv->v.arr.strs[i], NULL);
                if (st == RL_OK)
                    kv->v.arr.n_kept++;
            } else {
                st = skip_string(r, GGUF_MAX_STRING, "string");
            }
            if (st != RL_OK)
                return st;
        }
        return RL_OK;
    }
    if (et == GGUF_T_ARRAY) {
        for (uint64_t i = 0; i < len; i++) {
            st = read_array(r, key, depth + 1, NULL);
            if (st != RL_OK)
                return st;
        }
        return RL_OK;
    }

    unsigned es = scalar_size(et);
    if (kv && len <= GGUF_SCAN_INTS && (is_signed_int(et) || is_unsigned_int(et))) {
        /* Small integer arrays (per-layer head counts, ...) are read for their max and sum. */
        bool ok = true;
        uint64_t mx = 0, sum = 0;
        for (uint64_t i = 0; i < len; i++) {
            unsigned char b[8];
            rl_gguf_kv tmp;
            st = rd(r, b, es);
            if (st != RL_OK)
                return st;
            decode_scalar(et, b, &tmp);
            uint64_t v;
            if (is_signed_int(et)) {
                if (tmp.v.i < 0) {
                    ok = false;
                    continue;
                }
                v = (uint64_t)tmp.v.i;
            } else {
                v = tmp.v.u;
            }
            if (v > mx)
                mx = v;
            if (sum > UINT64_MAX - v)
                ok = false;
            else
                sum += v;
        }
        kv->v.arr.int_scanned = ok;
        kv->v.arr.int_max = ok ? mx : 0;
        kv->v.arr.int_sum = ok ? sum : 0;
        return RL_OK;
    }
    return skip(r, len * es);
}

/* A set of strings (keys, tensor names) for duplicate detection: open addressing, FNV-1a. */
typedef struct {
    const char **slot;
    size_t mask;
} strset;

static bool strset_init(strset *s, uint64_t n)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap <<= 1;
    s->slot = rl_calloc(cap, sizeof *s->slot);
    s->mask = cap - 1;
    return s->slot != NULL;
}

/* Insert str; returns the already-present equal string, or NULL when it was new. */
static const char *strset_add(strset *s, const char *str)
{
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)str; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    for (size_t i = (size_t)h & s->mask;; i = (i + 1) & s->mask) {
        if (!s->slot[i]) {
            s->slot[i] = str;
            return NULL;
        }
        if (strcmp(s->slot[i], str) == 0)
            return s->slot[i];
    }
}

static rl_status read_kvs(reader *r, rl_gguf_file *f)
{
    strset keys;
    if (!strset_init(&keys, f->n_kv))
        return oom(r);
    rl_status st = RL_OK;
    r->sec = SEC_KV;
    r->count = f->n_kv;
    for (uint64_t i = 0; i < f->n_kv && st == RL_OK; i++) {
        rl_gguf_kv *kv = &f->kv[i];
        r->idx = i;
        ahead_set(r, 0);
        uint64_t klen;
        st = rd_string(r, GGUF_MAX_KEY, "key", &kv->key, &klen);
        if (st != RL_OK)
            break;
        if (klen == 0) {
            st = fail(
                r, "metadata pair %" PRIu64 " of %" PRIu64 " has an empty key; the file is corrupt",
                i + 1, f->n_kv);
            break;
        }
        if (strlen(kv->key) != klen || !utf8_valid((const unsigned char *)kv->key, klen)) {
            st = fail(r,
                      "metadata key %" PRIu64 " of %" PRIu64 " is not valid UTF-8 text; the "
                      "file is corrupt",
                      i + 1, f->n_kv);
            break;
        }
        if (strset_add(&keys, kv->key)) {
            char cb[CLIP + 4];
            st = fail(r,
                      "duplicate metadata key '%s' (pair %" PRIu64 " of %" PRIu64 "); the file "
                      "is corrupt",
                      clip(kv->key, cb), i + 1, f->n_kv);
            break;
        }
        uint32_t t;
        st = rd_u32(r, &t);
        if (st != RL_OK)
            break;
        if (t >= GGUF_T_COUNT) {
            st = bad_type(r, t, kv->key);
            break;
        }
        kv->type = (rl_gguf_vtype)t;
        if (t == GGUF_T_STRING) {
            st = rd_string(r, GGUF_MAX_STRING, "string", &kv->v.str.s, &kv->v.str.len);
            if (st == RL_OK && r->ah.out)
                ahead_str(r, kv->key, kv->v.str.s);
        } else if (t == GGUF_T_ARRAY) {
            st = read_array(r, kv->key, 1, kv);
        } else {
            unsigned char b[8];
            st = rd(r, b, scalar_size(t));
            if (st == RL_OK)
                decode_scalar(t, b, kv);
        }
    }
    free(keys.slot);
    return st;
}

static rl_status read_tensor(reader *r, const rl_gguf_file *f, rl_gguf_tensor *t)
{
    uint64_t nlen;
    rl_status st = rd_string(r, GGUF_MAX_KEY, "tensor name", &t->name, &nlen);
    if (st != RL_OK)
        return st;
    if (strlen(t->name) != nlen || !utf8_valid((const unsigned char *)t->name, nlen))
        return fail(r,
                    "the name of tensor %" PRIu64 " of %" PRIu64 " is not valid UTF-8 text; "
                    "the file is corrupt",
                    r->idx + 1, f->n_tensors);
    st = rd_u32(r, &t->n_dims);
    if (st != RL_OK)
        return st;
    char cb[CLIP + 4];
    if (t->n_dims < 1 || t->n_dims > GGUF_MAX_DIMS)
        return fail(r,
                    "tensor '%s' has %" PRIu32 " dimensions (GGUF allows 1 to %d); the file "
                    "is corrupt",
                    clip(t->name, cb), t->n_dims, GGUF_MAX_DIMS);
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++)
        t->ne[d] = 1;
    bool zero = false, overflow = false;
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        st = rd_u64(r, &t->ne[d]);
        if (st != RL_OK)
            return st;
        if (t->ne[d] == 0)
            zero = true;
        else if (n > UINT64_MAX / t->ne[d])
            overflow = true;
        else
            n *= t->ne[d];
    }
    if (overflow && !zero)
        return fail(r,
                    "tensor '%s' has more elements than a 64-bit count can hold "
                    "(%" PRIu64 " x %" PRIu64 " x %" PRIu64 " x %" PRIu64 "); the file is corrupt",
                    clip(t->name, cb), t->ne[0], t->ne[1], t->ne[2], t->ne[3]);
    t->n_elements = zero ? 0 : n;
    st = rd_u32(r, &t->type);
    if (st == RL_OK)
        st = rd_u64(r, &t->offset);
    if (st != RL_OK)
        return st;
    const rl_ggml_type_info *ti = rl_ggml_type_get(t->type);
    if (ti && t->ne[0] % ti->blck == 0) {
        uint64_t blocks = t->n_elements / ti->blck;
        if (blocks > UINT64_MAX / ti->type_size)
            return fail(r,
                        "tensor '%s' is larger than a 64-bit byte count can hold; the file "
                        "is corrupt",
                        clip(t->name, cb));
        t->n_bytes = blocks * ti->type_size;
        t->sized = true;
    }
    return RL_OK;
}

typedef struct {
    uint64_t start, end;
    uint64_t idx;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Offsets against alignment and file size, duplicate names, overlaps. */
static rl_status check_tensors(reader *r, rl_gguf_file *f)
{
    uint64_t room = f->file_size - f->data_offset; /* caller ensured data_offset <= size */
    char cb[CLIP + 4], cb2[CLIP + 4];
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const rl_gguf_tensor *t = &f->tensors[i];
        if (t->offset % f->alignment != 0)
            return fail(r,
                        "tensor '%s' starts at data offset %" PRIu64 ", not a multiple of the "
                        "alignment %" PRIu64 "; the file is corrupt",
                        clip(t->name, cb), t->offset, f->alignment);
        if (t->offset > room || (t->sized && t->n_bytes > room - t->offset))
            return fail(r,
                        "tensor '%s' (data offset %" PRIu64 ", %" PRIu64 " bytes) extends past "
                        "the end of the file (%" PRIu64 " bytes); the file is truncated or "
                        "corrupt, re-download it",
                        clip(t->name, cb), t->offset, t->n_bytes, f->file_size);
    }

    strset names;
    if (!strset_init(&names, f->n_tensors))
        return oom(r);
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        if (strset_add(&names, f->tensors[i].name)) {
            free(names.slot);
            return fail(r,
                        "duplicate tensor name '%s' (tensor %" PRIu64 " of %" PRIu64 "); the "
                        "file is corrupt",
                        clip(f->tensors[i].name, cb), i + 1, f->n_tensors);
        }
    }
    free(names.slot);

    span *sp = rl_calloc((size_t)f->n_tensors, sizeof *sp);
    if (!sp)
        return oom(r);
    size_t n = 0;
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const rl_gguf_tensor *t = &f->tensors[i];
        if (t->sized && t->n_bytes > 0)
            sp[n++] = (span){t->offset, t->offset + t->n_bytes, i};
    }
    qsort(sp, n, sizeof *sp, span_cmp);
    uint64_t max_end = 0, max_idx = 0;
    for (size_t k = 0; k < n; k++) {
        if (k > 0 && sp[k].start < max_end) {
            const char *a = clip(f->tensors[max_idx].name, cb);
            const char *b = clip(f->tensors[sp[k].idx].name, cb2);
            rl_status st = fail(r,
                                "tensors '%s' and '%s' overlap in the data section; the file "
                                "is corrupt",
                                a, b);
            free(sp);
            return st;
        }
        if (sp[k].end > max_end) {
            max_end = sp[k].end;
            max_idx = sp[k].idx;
        }
    }
    free(sp);
    return RL_OK;
}

static rl_status parse(reader *r, rl_gguf_file *f)
{
    r->sec = SEC_HEADER;
    if (r->size == 0)
        return fail(r, "empty file (0 bytes), not a GGUF model; re-download it");
    unsigned char magic[4];
    if (r->size < 4) {
        return fail(r, "not a GGUF file (only %" PRIu64 " bytes, too short for the magic)",
                    r->size);
    }
    rl_status st = rd(r, magic, 4);
    if (st != RL_OK)
        return st;
    if (memcmp(magic, "GGUF", 4) != 0) {
        char shown[5];
        for (int i = 0; i < 4; i++)
            shown[i] = magic[i] >= 0x20 && magic[i] < 0x7f ? (char)magic[i] : '?';
        shown[4] = '\0';
        return fail(r, "not a GGUF file (bad magic '%s', expected 'GGUF')", shown);
    }
    st = rd_u32(r, &f->version);
    if (st != RL_OK)
        return st;
    if (f->version != 2 && f->version != 3) {
        if (f->version != 0 && (f->version & 0xFFFFu) == 0)
            return fail(r,
                        "big-endian GGUF (version field reads 0x%08" PRIx32 "); only "
                        "little-endian files are supported, use a little-endian conversion",
                        f->version);
        if (f->version == 1)
            return fail(r, "GGUF version 1 is no longer supported (only 2 and 3 are); convert "
                           "the model again with a current llama.cpp");
        return fail(r, "unsupported GGUF version %" PRIu32 " (only 2 and 3 are supported)",
                    f->version);
    }
    st = rd_u64(r, &f->n_tensors);
    if (st == RL_OK)
        st = rd_u64(r, &f->n_kv);
    if (st != RL_OK)
        return st;
    if (f->n_kv > GGUF_MAX_KV)
        return fail(r, "implausible metadata count %" PRIu64 " (limit %d); the file is corrupt",
                    f->n_kv, GGUF_MAX_KV);
    if (f->n_tensors > GGUF_MAX_TENSORS)
        return fail(r, "implausible tensor count %" PRIu64 " (limit %d); the file is corrupt",
                    f->n_tensors, GGUF_MAX_TENSORS);
    if (f->n_kv * GGUF_MIN_KV_BYTES + f->n_tensors * GGUF_MIN_TENSOR_BYTES > remaining(r))
        return fail(r,
                    "the header announces %" PRIu64 " metadata pairs and %" PRIu64
                    " tensors, more than the %" PRIu64 " bytes left can hold; the file is "
                    "truncated or corrupt (re-download it)",
                    f->n_kv, f->n_tensors, remaining(r));

    r->ah.n_tensors = f->n_tensors;
    f->kv = rl_calloc((size_t)f->n_kv, sizeof *f->kv);
    f->tensors = rl_calloc((size_t)f->n_tensors, sizeof *f->tensors);
    if (!f->kv || !f->tensors)
        return oom(r);
    st = read_kvs(r, f);
    if (st != RL_OK)
        return st;

    f->alignment = GGUF_DEFAULT_ALIGNMENT;
    const rl_gguf_kv *al = rl_gguf_find(f, "general.alignment");
    if (al) {
        if (al->type != GGUF_T_UINT32)
            return fail(r, "general.alignment has type %s, expected uint32; the file is corrupt",
                        rl_gguf_vtype_name(al->type));
        if (al->v.u == 0 || (al->v.u & (al->v.u - 1)) != 0)
            return fail(r,
                        "general.alignment is %" PRIu64 ", not a power of two; the file is "
                        "corrupt",
                        al->v.u);
        f->alignment = al->v.u;
    }

    r->sec = SEC_TENSORS;
    r->count = f->n_tensors;
    ahead_begin(r);
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        r->idx = i;
        if (r->ah.out)
            ahead_set(r, elems(f->n_tensors - i, ahead_elem(r, i, f->n_tensors, AHEAD_TENSOR)));
        st = read_tensor(r, f, &f->tensors[i]);
        if (st != RL_OK)
            return st;
    }
    f->bytes_read = r->pos;
    f->data_offset = (r->pos + f->alignment - 1) / f->alignment * f->alignment;
    if (f->n_tensors == 0)
        return RL_OK;
    if (f->data_offset > f->file_size)
        return fail(r,
                    "the tensor data would start at byte %" PRIu64 ", past the end of the file "
                    "(%" PRIu64 " bytes); the file is truncated, re-download it",
                    f->data_offset, f->file_size);
    return check_tensors(r, f);
}

rl_status rl_gguf_read_stream(FILE *fp, uint64_t size, const char *name, rl_gguf_file **out,
                              rl_error *err)
{
    return rl_gguf_read_stream_ahead(fp, size, name, NULL, out, err);
}

rl_status rl_gguf_read_stream_ahead(FILE *fp, uint64_t size, const char *name, rl_gguf_ahead *ahead,
                                    rl_gguf_file **out, rl_error *err)
{
    *out = NULL;
    rl_gguf_file *f = calloc(1, sizeof *f);
    if (!f)
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", name);
    f->path = rl_strdup(name);
    if (!f->path) {
        free(f);
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", name);
    }
    f->file_size = size;
    reader r = {fp, name, size, 0, SEC_HEADER, 0, 0, err, {.out = ahead}};
    if (ahead)
        ahead->end = ahead->high = 0;
    rl_status st = parse(&r, f);
    if (st != RL_OK) {
        rl_gguf_free(f);
        return st;
    }
    *out = f;
    return RL_OK;
}

rl_status rl_gguf_read_file(const char *path, rl_gguf_file **out, rl_error *err)
{
    *out = NULL;
    FILE *fp;
    uint64_t size;
    /* refuses FIFOs and devices before anything can block */
    rl_status ost = rl_file_open_regular(path, &fp, &size, err);
    if (ost != RL_OK)
        return ost;
    size_t bufsize = size < GGUF_FILE_BUFFER ? (size_t)size + 1 : GGUF_FILE_BUFFER;
    char *buf = malloc(bufsize);
    if (buf)
        setvbuf(fp, buf, _IOFBF, bufsize);
    rl_status st = rl_gguf_read_stream(fp, size, path, out, err);
    fclose(fp);
    free(buf);
    return st;
}

rl_status rl_gguf_read_buffer(const void *data, size_t len, const char *name, rl_gguf_file **out,
                              rl_error *err)
{
    *out = NULL;
    if (len == 0) {
        reader r = {.path = name, .sec = SEC_HEADER, .err = err};
        return fail(&r, "empty file (0 bytes), not a GGUF model; re-download it");
    }
    FILE *fp = fmemopen((void *)(uintptr_t)data, len, "rb");
    if (!fp)
        return rl_fail(err, RL_EINTERNAL, "%s: cannot open the buffer: %s", name, strerror(errno));
    rl_status st = rl_gguf_read_stream(fp, len, name, out, err);
    fclose(fp);
    return st;
}

void rl_gguf_free(rl_gguf_file *f)
{
    if (!f)
        return;
    if (f->kv) {
        for (uint64_t i = 0; i < f->n_kv; i++) {
            rl_gguf_kv *kv = &f->kv[i];
            free(kv->key);
            if (kv->type == GGUF_T_STRING) {
                free(kv->v.str.s);
            } else if (kv->type == GGUF_T_ARRAY && kv->v.arr.strs) {
                for (uint32_t k = 0; k < kv->v.arr.n_kept; k++)
                    free(kv->v.arr.strs[k]);
                free(kv->v.arr.strs);
            }
        }
        free(f->kv);
    }
    if (f->tensors) {
        for (uint64_t i = 0; i < f->n_tensors; i++)
            free(f->tensors[i].name);
        free(f->tensors);
    }
    free(f->path);
    free(f);
}

const rl_gguf_kv *rl_gguf_find(const rl_gguf_file *f, const char *key)
{
    if (!f || !key || !f->kv)
        return NULL;
    for (uint64_t i = 0; i < f->n_kv; i++)
        if (f->kv[i].key && strcmp(f->kv[i].key, key) == 0)
            return &f->kv[i];
    return NULL;
}

bool rl_gguf_get_u64(const rl_gguf_file *f, const char *key, uint64_t *out)
{
    const rl_gguf_kv *kv = rl_gguf_find(f, key);
    if (!kv)
        return false;
    if (is_unsigned_int(kv->type)) {
        *out = kv->v.u;
        return true;
    }
    if (is_signed_int(kv->type) && kv->v.i >= 0) {
        *out = (uint64_t)kv->v.i;
        return true;
    }
    return false;
}

bool rl_gguf_get_f64(const rl_gguf_file *f, const char *key, double *out)
{
    const rl_gguf_kv *kv = rl_gguf_find(f, key);
    if (!kv)
        return false;
    if (is_unsigned_int(kv->type)) {
        *out = (double)kv->v.u;
        return true;
    }
    if (is_signed_int(kv->type)) {
        *out = (double)kv->v.i;
        return true;
    }
    if (kv->type == GGUF_T_FLOAT32 || kv->type == GGUF_T_FLOAT64) {
        *out = kv->v.f;
        return true;
    }
    return false;
}

const char *rl_gguf_get_str(const rl_gguf_file *f, const char *key)
{
    const rl_gguf_kv *kv = rl_gguf_find(f, key);
    return kv && kv->type == GGUF_T_STRING ? kv->v.str.s : NULL;
}

const char *rl_gguf_vtype_name(rl_gguf_vtype t)
{
    static const char *const names[GGUF_T_COUNT] = {
        "uint8", "int8",   "uint16", "int16",  "uint32", "int32",   "float32",
        "bool",  "string", "array",  "uint64", "int64",  "float64",
    };
    return (unsigned)t < GGUF_T_COUNT ? names[t] : "unknown";
}
