/* SPDX-License-Identifier: MIT */
/* gguf_remote.h: a GGUF model's header and tensor table read over HTTP(S) with range requests,
 * without downloading the model, and the one entry point (rl_gguf_model_open) for commands
 * that only need a model's header: a local path or a URL.
 *
 * Fetching (libcurl): bytes are fetched from the start of the file, only when the GGUF parser
 * (gguf.h, through fopencookie) reads past what is held: first o->first_block bytes (the fixed
 * header, the early metadata and the start of the vocabulary), then up to the parser's
 * estimate of where the header and tensor table end (rl_gguf_ahead: from the counts the
 * header announces, the tokenizer's above all, a known vocabulary's measurements
 * (gguf_vocab.h) and the bytes seen), reaching on to its high mark (1/16 more for a guess
 * from the tokens seen) but never past the block the doubling would reach for that end, so a
 * typical header costs two requests and no more bytes than doubling blocks. Only the first
 * two estimates are followed; after that, or without an estimate, the next block is as large
 * as what is held (doubling). No request asks for more
 * than o->readahead_max (16 MiB) past what is held unless the parser skipped further, so an
 * absurd announced count costs no absurd request. Every request is a GET with
 * "Range: bytes=A-B"; redirects are followed (http and https only, at most 10: Hugging Face
 * "resolve" links redirect to a CDN).
 *   - A response must be 206 with Content-Range "bytes A-B/TOTAL" for the range asked. A 200
 *     (a server that ignores Range) or any other status is detected at its first body byte
 *     and the transfer aborted there from the write callback: a multi-GB file is never
 *     downloaded by accident. One exception: a 200 whose Content-Length fits in the block
 *     asked for is the whole (small) file and is used.
 *   - A body longer than the range asked for is aborted at once.
 *   - Time: each request is bounded by o->timeout_s overall and by the low-speed rule (fewer
 *     than o->low_speed_bytes per second for o->low_speed_s seconds), so a server that drips
 *     or never ends its headers gives an error in bounded time; libcurl bounds the size of a
 *     response's headers itself. Memory: at most o->max_bytes of the file are fetched
 *     (64 MiB by default), else a one-line error.
 *   - Errors are one line naming the URL: "HTTP 404", the server ignoring ranges, a timeout,
 *     the header over the limit. RL_EINPUT (exit 2), RL_EINTERRUPTED on Ctrl-C (polled by
 *     libcurl's progress callback), RL_EINTERNAL when out of memory.
 * Multi-part models: a URL whose path ends in -NNNNN-of-MMMMM.gguf (rl_gguf_split_name; any
 * query string is kept on every part) is read part by part, each part's header fetched.
 *
 * Header cache: the bytes fetched for a URL are kept in o->cache_dir (by default
 * rl_cache_root()/headers) as <key>.ggufh, key = rl_remote_cache_key(url) (FNV-1a 64 of the
 * URL, 16 hex digits), a JSON line {"url", "etag", "size", "bytes"} followed by the bytes,
 * written atomically (rl_file.h). Only responses with an ETag are cached. Rule: a cached
 * entry whose URL matches is revalidated by sending its ETag as If-None-Match on the first
 * range request; 304 Not Modified: the cached bytes are used (no body transferred); a 206:
 * the file changed, the new bytes are used and the entry is replaced. An unreadable or
 * foreign entry is ignored and rewritten.
 *
 * Ownership: rl_gguf_remote_read returns an rl_gguf_file the caller frees (rl_gguf_free);
 * rl_gguf_remote_model_load / rl_gguf_model_open fill a caller rl_gguf_model (free with
 * rl_gguf_model_free); rl_remote_cache_key returns a malloc'd string. Nothing else is kept
 * between calls (each read uses its own curl handle, cleaned up before returning). libcurl
 * must have been initialised (main does, curl_global_init). */
#ifndef RL_GGUF_REMOTE_H
#define RL_GGUF_REMOTE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/gguf.h"
#include "model/gguf_model.h"
#include "base/rl_error.h"

#define RL_REMOTE_FIRST_BLOCK (256u << 10)  /* first range: 256 KiB */
#define RL_REMOTE_MAX_BYTES (64u << 20)     /* at most 64 MiB of a file are fetched */
#define RL_REMOTE_READAHEAD_MAX (16u << 20) /* at most 16 MiB more per request */
#define RL_REMOTE_TIMEOUT_S 120L            /* per request, overall */
#define RL_REMOTE_LOW_SPEED_BYTES 1024L     /* below 1 KiB/s ... */
#define RL_REMOTE_LOW_SPEED_S 20L           /* ... for 20 s: timed out */

typedef struct {
    const char *cache_dir;  /* header cache directory; NULL: no cache */
    uint64_t first_block;   /* bytes of the first range request */
    uint64_t max_bytes;     /* cap on the bytes fetched of one file */
    uint64_t readahead_max; /* cap on one request's bytes past those held (need aside) */
    long timeout_s;         /* overall limit of one request */
    long low_speed_bytes;   /* the low-speed rule (CURLOPT_LOW_SPEED_LIMIT/TIME) */
    long low_speed_s;
} rl_remote_opts;

typedef struct {
    uint64_t bytes_fetched; /* body bytes received over the network, every part */
    uint64_t file_bytes;    /* size of the remote file(s) */
    uint64_t header_bytes;  /* bytes the parser used (the header and tensor table) */
    unsigned requests;      /* HTTP requests made (redirects not counted) */
    unsigned cache_hits;    /* parts whose cached bytes were revalidated and used */
} rl_remote_stats;

/* The defaults above; cache_dir NULL. LLAMA_ROOFLINE_HTTP_TIMEOUT (whole seconds, 1 to 3600)
 * replaces timeout_s and caps low_speed_s (tests of slow servers use it). */
void rl_remote_opts_default(rl_remote_opts *o);

/* True when s starts with http:// or https:// (case-insensitive scheme). */
bool rl_is_url(const char *s);

/* The cache key of url: 16 lowercase hex digits (FNV-1a 64). NULL when out of memory. */
char *rl_remote_cache_key(const char *url);

/* One file's header over HTTP; stats (may be NULL) accumulates. */
rl_status rl_gguf_remote_read(const char *url, const rl_remote_opts *o, rl_remote_stats *stats,
                              rl_gguf_file **out, rl_error *err);

/* A model by URL, every part of a split model; stats (may be NULL) accumulates. */
rl_status rl_gguf_remote_model_load(const char *url, const rl_remote_opts *o,
                                    rl_remote_stats *stats, rl_gguf_model *m, rl_error *err);

/* A model's header from a local path (rl_gguf_model_load) or a URL (default options, the
 * cache under rl_cache_root($LLAMA_ROOFLINE_CACHE, $HOME)/headers). For a URL, when log is
 * not NULL, one line says what was transferred:
 *   "remote: URL: fetched N of M bytes (P%) in R request(s)[, header cache revalidated]" */
rl_status rl_gguf_model_open(const char *path, FILE *log, rl_gguf_model *m, rl_error *err);

/* RL_EINPUT "[what: ]URL: a model given by URL can only be inspected or predicted; download it
 * to run it" when operand is a URL; RL_OK otherwise. For commands that run models. */
rl_status rl_remote_refuse_url(const char *what, const char *operand, rl_error *err);

#endif
