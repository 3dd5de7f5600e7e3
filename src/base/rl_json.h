/* SPDX-License-Identifier: MIT */
/* rl_json.h: the one set of cJSON helpers every module writes and reads JSON with.
 *
 * Writing: unknown values become JSON null or an explicit {"available": false, "reason": ...};
 * integers above 2^53 (file offsets, byte counts of huge files) are written exactly, as raw
 * decimal digits, never through a double; strings that are not UTF-8 (file names) are
 * repaired byte by byte with U+FFFD. cJSON prints numbers in the C locale.
 * Reading: typed look-ups that refuse the wrong type instead of guessing.
 *
 * Ownership: the add helpers attach new items to the caller's object (owned by it) and return
 * false when out of memory; rl_json_print returns a malloc'd string the caller frees;
 * rl_json_read_file returns a cJSON tree the caller frees with cJSON_Delete. */
#ifndef RL_JSON_H
#define RL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

/* Largest integer a double holds exactly. */
#define RL_JSON_MAX_EXACT 9007199254740992ull

cJSON *rl_json_u64(uint64_t v); /* a number, or raw digits above 2^53 */
bool rl_json_add_u64(cJSON *o, const char *key, uint64_t v);
bool rl_json_add_i64(cJSON *o, const char *key, int64_t v);
bool rl_json_add_num(cJSON *o, const char *key, double v); /* non-finite -> null */
/* v when known, else null. */
bool rl_json_add_u64_or_null(cJSON *o, const char *key, uint64_t v, bool known);
bool rl_json_add_num_or_null(cJSON *o, const char *key, double v, bool known);
/* true/false for 1/0, null for a negative (unknown) value. */
bool rl_json_add_tristate(cJSON *o, const char *key, int v);
/* The string, or null when s is NULL or empty. Invalid UTF-8 is repaired. */
bool rl_json_add_str_or_null(cJSON *o, const char *key, const char *s);
/* The string (empty allowed); invalid UTF-8 bytes each become U+FFFD. */
bool rl_json_add_str(cJSON *o, const char *key, const char *s);
cJSON *rl_json_str(const char *s);
/* Attach item under key; false (and item freed) when item is NULL or out of memory. */
bool rl_json_attach(cJSON *o, const char *key, cJSON *item);
/* Append item to the array arr; false (and item freed) when item is NULL or out of memory. */
bool rl_json_push(cJSON *arr, cJSON *item);
bool rl_json_add_bool(cJSON *o, const char *key, bool v);
bool rl_json_add_null(cJSON *o, const char *key);
/* An array of the n ints at v (empty when n is 0; v may then be NULL). */
bool rl_json_add_int_array(cJSON *o, const char *key, const int *v, int n);
/* A new {"available": false, "reason": reason} (caller owns); NULL when out of memory. */
/* o when everything was added to it (ok), else NULL with o deleted: the one ending of every
 * checked builder. */
cJSON *rl_json_kept(cJSON *o, bool ok);
cJSON *rl_json_unavailable(const char *reason);
/* {"available": false, "reason": reason} under key. */
bool rl_json_add_unavailable(cJSON *o, const char *key, const char *reason);

/* The item under key (case-sensitive), or NULL when o is NULL or has no such key. The one
 * untyped look-up; prefer a typed read below when the type is known. */
const cJSON *rl_json_get(const cJSON *o, const char *key);
/* Typed reads: false when the key is missing or of another type. rl_json_get_u64 accepts a
 * non-negative integral number (exact up to 2^53) or raw digits. */
bool rl_json_get_u64(const cJSON *o, const char *key, uint64_t *out);
bool rl_json_get_i64(const cJSON *o, const char *key, int64_t *out);
bool rl_json_get_num(const cJSON *o, const char *key, double *out);
bool rl_json_get_bool(const cJSON *o, const char *key, bool *out);
const char *rl_json_get_str(const cJSON *o, const char *key); /* NULL unless a string */
/* The number under key, or dflt when missing or not a finite number. */
double rl_json_num_or(const cJSON *o, const char *key, double dflt);
/* The object under key when it says {"available": true, ...}; NULL when absent or unavailable. */
const cJSON *rl_json_available(const cJSON *o, const char *key);
/* What a value is, for a message that must never quote a string from the input: its number
 * ("-3", as %.17g, into buf), "a string", "a boolean", "an array", "an object", "null";
 * "missing" for NULL. */
const char *rl_json_describe(const cJSON *it, char *buf, size_t cap);
/* RL_EINPUT "FILE: PATH.KEY is WHAT; expected EXPECT" (WHAT rl_json_describe's; no "." when
 * path or key is empty): the one message for a value of the wrong type or range. */
rl_status rl_json_fail_at(rl_error *err, const char *file, const char *path, const char *key,
                          const cJSON *it, const char *expect);

/* Length of the JSON value starting at t[0] (a '{' or '['), up to and including its closing
 * bracket, or 0 when the text ends first (unterminated). Strings and their escapes are
 * respected; brackets are only counted, not matched by kind (cJSON checks the structure).
 * When commas is not NULL it receives the number of commas outside strings, and the scan stops
 * (returning 0) as soon as that number exceeds max_commas: a bound checked before parsing. */
size_t rl_json_extent(const char *t, size_t len, size_t max_commas, size_t *commas);

/* Pretty-printed text with a final newline (caller frees); NULL when out of memory. */
char *rl_json_print(const cJSON *item);
/* The one way a command's --json result reaches stdout: rl_json_print's text (one trailing
 * newline) written as RL_TTY_JSON. RL_EINTERNAL naming the lack of memory when it cannot be
 * printed; a failed write is main.c's one stdout check. */
rl_status rl_json_to_stdout(const cJSON *item, rl_error *err);
/* Write item to path atomically (rl_file.h); RL_EOUTPUT naming path on failure. */
rl_status rl_json_write_file(const char *path, const cJSON *item, rl_error *err);
/* Parse len bytes of JSON text holding exactly one value (whitespace around it allowed);
 * RL_EINPUT naming name and the byte offset of a syntax error, of a NUL byte or of text after
 * the value; RL_EINTERNAL when out of memory. */
rl_status rl_json_parse(const char *name, const char *text, size_t len, cJSON **out, rl_error *err);
/* cJSON_ParseWithLengthOpts (no check after the value; end may be NULL) that also tells, in
 * *oom, whether a NULL result was for lack of memory rather than bad JSON; for readers of JSON
 * embedded in other text (SSE events, JSONL lines, a cache file's first line). Thread-safe: the
 * out-of-memory flag is the calling thread's own, and cJSON's allocator hook is installed once
 * before main runs. Every parse in the program goes through this, rl_json_parse or the compact
 * readers below. */
cJSON *rl_json_parse_raw(const char *text, size_t len, const char **end, bool *oom);
/* For tests: the allocator cJSON's allocations go through, in every thread (NULL: malloc
 * again). */
void rl_json_set_malloc(void *(*fn)(size_t));
/* Read and parse a JSON file of at most max_bytes; RL_EINPUT naming the file and the byte
 * offset of a syntax error. */
rl_status rl_json_read_file(const char *path, size_t max_bytes, cJSON **out, rl_error *err);

/* Why a JSON text is refused: the one wording of rl_json_parse and the compact readers. */
typedef enum {
    RL_JSON_EMPTY,     /* "NAME: empty file, not JSON" */
    RL_JSON_NUL,       /* a NUL byte at byte at */
    RL_JSON_SYNTAX,    /* a syntax error near byte at (what: a detail, or NULL) */
    RL_JSON_TRAILING,  /* more text after the value at byte at */
    RL_JSON_AMBIGUOUS, /* what (rl_json_ambiguous's) */
    RL_JSON_OOM        /* out of memory (RL_EINTERNAL); the others are RL_EINPUT */
} rl_json_refusal;
rl_status rl_json_refuse(rl_error *err, const char *name, rl_json_refusal why, size_t at,
                         const char *what);

/* What no JSON the tool writes holds and a reader would take two ways (a key twice in one
 * object, a number too large for a double): NULL when there is none, else what, in buf;
 * *oom when out of memory. */
const char *rl_json_ambiguous(const cJSON *root, char *buf, size_t cap, bool *oom);

/* Large documents (bundles): parsed by yajl's event parser into a cJSON tree a chunk at a time
 * (rl_json_stream.c), every array of numbers under the key "samples" or "samples_ns" kept as
 * one compact node (a cJSON_Raw of the array's numbers as the file wrote them, separated by
 * commas as cJSON_PrintUnformatted separates them: printed,
 * duplicated and freed as any cJSON value; its numbers through rl_json_values). The same
 * checks and messages as rl_json_parse. _parse_compact reads len bytes of text; _read_compact
 * head_len bytes already read from f (may be 0), then the rest of f, at most max bytes. */
rl_status rl_json_parse_compact(const char *name, const char *text, size_t len, cJSON **out,
                                rl_error *err);
rl_status rl_json_read_compact(const char *name, FILE *f, const char *head, size_t head_len,
                               size_t max, cJSON **out, rl_error *err);
/* An array of either form; a compact one; the entries of an array of either form (0 when x is
 * not an array). */
bool rl_json_is_array(const cJSON *x);
bool rl_json_is_compact(const cJSON *x);
size_t rl_json_array_size(const cJSON *x);
/* The entries of arr (either form) as numbers: *v a malloc'd copy (NULL when *n is 0), NAN
 * for an entry that is not a finite number (a compact array's are all finite), *n their
 * count. RL_EINPUT when arr is not an array; RL_EINTERNAL when out of memory. */
rl_status rl_json_values(const cJSON *arr, double **v, size_t *n);
/* Every compact array under root made an ordinary cJSON array in place (for code that edits
 * samples entry by entry); false when out of memory (the tree still whole and valid). */
bool rl_json_expand(cJSON *root);

#endif
