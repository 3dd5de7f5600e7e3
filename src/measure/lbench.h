/* SPDX-License-Identifier: MIT */
/* lbench.h: everything the llama-bench driver needs except running the child (owner: lbench).
 *
 * - Discovery (rl_lbench_find): --llama-bench PATH, then $LLAMA_BENCH, then PATH, then the
 *   project's cached build of the pinned llama.cpp (scripts/llama-cpp.sh).
 * - The command line (rl_lbench_argv): `BIN -m MODEL -t T -p NP -n NG -r R -o jsonl [-d D]
 *   -ngl G [extra...]`. Never -c/--ctx, never llama-cli; -p 0 only for a decode-only run
 *   (calibrate: on the pinned build its tg record is the one -p 128 gives, docs/METHOD.md).
 * - The output parser (rl_lbench_parse, and the streaming rl_lbench_feeder for -o jsonl): every
 *   byte llama-bench prints is untrusted, so sizes and counts are bounded before anything is
 *   allocated and every field's type is checked. Each record keeps its JSON object verbatim
 *   and gets normalised fields and per-sample rates recomputed from samples_ns.
 * - A one-line summary of llama-bench's stderr for error messages (rl_lbench_stderr_summary).
 * - Build identification from a record or from `llama-bench --version` text (rl_lbench_build).
 *
 * Ownership: rl_lbench_find returns a malloc'd path (caller frees). rl_lbench_argv returns an
 * argv the caller releases with rl_lbench_argv_free. A rl_lbench_set owns its records, and each
 * record owns its strings, sample arrays and its cJSON object; release the set with
 * rl_lbench_set_free. A feeder owns its set until rl_lbench_feeder_take moves it out; free the
 * feeder with rl_lbench_feeder_free. Nothing here prints, and numbers are parsed independently
 * of the locale (cJSON). */
#ifndef RL_LBENCH_H
#define RL_LBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

#define RL_LBENCH_MAX_SAMPLES 10000     /* samples_ns entries per record */
#define RL_LBENCH_MAX_RECORDS 4096      /* records per output */
#define RL_LBENCH_MAX_LINE (512 * 1024) /* one record's text (10000 samples need ~250 KiB) */
#define RL_LBENCH_MAX_TEXT (64u << 20)  /* whole output handed to rl_lbench_parse */
#define RL_LBENCH_MAX_STR 4096          /* longest string field kept (longer is cut) */
#define RL_LBENCH_MAX_EXTRA 64          /* extra verbatim arguments */
#define RL_LBENCH_MAX_TOKENS (1 << 24)  /* n_prompt, n_gen, depth upper bound */
#define RL_LBENCH_MISMATCH 0.01         /* avg_ts vs recomputed mean: relative tolerance */

/* ---- discovery ---------------------------------------------------------------------------- */

/* The environment discovery reads, injectable for tests. NULL or "" means unset. */
typedef struct {
    const char *llama_bench;    /* $LLAMA_BENCH */
    const char *path;           /* $PATH */
    const char *roofline_cache; /* $LLAMA_ROOFLINE_CACHE */
    const char *home;           /* $HOME */
} rl_lbench_env;

/* Find llama-bench. explicit_path (--llama-bench; NULL or "" when not given) is a file or a
 * directory holding llama-bench directly, in bin/ or in build/bin/; a leading "~/" is expanded.
 * A wrong explicit path is an error naming it (RL_EINPUT), never a fall-through; so is a wrong
 * $LLAMA_BENCH. Otherwise: PATH, then ${LLAMA_ROOFLINE_CACHE:-$HOME/.cache/llama-roofline}/
 * llama.cpp-STAR/build-STAR/bin/llama-bench, builds with .built-ok first, then the newest binary.
 * Nothing found: RL_EMISSING saying how to get one. *path_out is malloc'd (caller frees). */
rl_status rl_lbench_find(const char *explicit_path, char **path_out, rl_error *err);
/* The same with the environment given (tests). */
rl_status rl_lbench_find_env(const char *explicit_path, const rl_lbench_env *env, char **path_out,
                             rl_error *err);

/* ---- command line ------------------------------------------------------------------------- */

typedef struct {
    const char *model;        /* -m */
    int threads;              /* -t, >= 1 */
    int n_prompt;             /* -p, >= 1: -p 0 is refused unless decode_only */
    int n_gen;                /* -n, >= 0 (0: prefill only) */
    int reps;                 /* -r, 1..RL_LBENCH_MAX_SAMPLES */
    int depth;                /* -d, passed only when > 0 (llama-bench's default is 0) */
    int n_gpu_layers;         /* -ngl, always passed, >= 0 */
    const char *const *extra; /* appended verbatim, last; -o/--output refused */
    size_t n_extra;
    bool decode_only; /* -p 0 (n_prompt must be 0, n_gen >= 1): the tg test alone */
} rl_lbench_params;

/* An extra llama-bench argument llama-roofline cannot pass (-o, --output, --output=...: it
 * chooses the output format, jsonl): RL_EINPUT naming it, else RL_OK. The one check, used by
 * rl_lbench_argv, run's --bench-arg and a resumed bundle's settings.bench_args. */
rl_status rl_lbench_check_extra(const char *a, rl_error *err);
/* Build `bin -m MODEL -t T -p NP -n NG -r R -o jsonl [-d D] -ngl G [extra...]` as a
 * NULL-terminated argv (caller frees with rl_lbench_argv_free). RL_EINPUT on bad values. */
rl_status rl_lbench_argv(const char *bin, const rl_lbench_params *p, char ***argv_out,
                         rl_error *err);
/* `bin --version` (prints "version: ..." on stderr in current builds; older builds print
 * their build on --help). Caller frees with rl_lbench_argv_free. NULL when out of memory. */
char **rl_lbench_version_argv(const char *bin);
void rl_lbench_argv_free(char **argv);

/* ---- records ------------------------------------------------------------------------------ */

typedef enum {
    RL_LBENCH_PREFILL, /* n_prompt > 0, n_gen == 0 */
    RL_LBENCH_DECODE,  /* n_gen > 0, n_prompt == 0 */
    RL_LBENCH_OTHER    /* both (-pg) */
} rl_lbench_kind;

typedef struct {
    cJSON *raw; /* the object exactly as printed, unknown keys included (owned) */
    rl_lbench_kind kind;
    int64_t n_prompt, n_gen;
    int64_t n_depth;      /* absent (builds before -d): 0 */
    int64_t n_threads;    /* 0 when absent */
    int64_t n_gpu_layers; /* meaningful when has_n_gpu_layers (-1 is "fit" in 2026 builds) */
    bool has_n_gpu_layers;
    bool flash_attn;        /* on; false for off, auto or absent */
    bool flash_attn_auto;   /* -1 / "auto" (2026 builds): the build decided */
    int64_t model_size;     /* bytes of tensors; 0 unknown */
    int64_t model_n_params; /* 0 unknown */
    int64_t build_number;   /* 0 unknown */
    /* Strings are never NULL ("" when absent), cut to RL_LBENCH_MAX_STR bytes, otherwise as
     * printed: escape them (rl_lbench_escape) before showing them on a terminal. */
    char *model_filename, *model_type, *build_commit, *cpu_info, *gpu_info, *type_k, *type_v;
    char *backends; /* as printed, or made from the old per-backend booleans */
    bool backends_synthesised;
    bool has_avg_ts;
    double avg_ts, stddev_ts; /* as reported (stddev_ts 0 when absent) */
    size_t n_samples;
    int64_t *samples_ns;           /* n_samples entries, each > 0 */
    double *samples_ts_recomputed; /* (n_prompt + n_gen) * 1e9 / ns: llama-bench's formula;
                                      depth tokens are not counted */
    double rate_ts;                /* mean of samples_ts_recomputed, or avg_ts when from_average */
    double median_ts;  /* median of samples_ts_recomputed, or avg_ts when from_average */
    bool from_average; /* no samples_ns: rate_ts is the reported avg_ts */
    bool avg_mismatch; /* avg_ts differs from the recomputed mean by more than 1% */
} rl_lbench_record;

typedef struct {
    rl_lbench_record *records;
    size_t n_records;
    size_t n_skipped_lines;  /* lines that were not JSON objects (banners, log lines) */
    size_t n_invalid;        /* JSON objects that were not usable records */
    char first_invalid[160]; /* why the first of those was refused; "" when none */
    bool truncated;          /* output cut short (llama-bench killed): complete records kept */
    bool from_array;         /* rl_lbench_parse read a -o json array (else JSONL) */
} rl_lbench_set;

void rl_lbench_set_free(rl_lbench_set *set);
const char *rl_lbench_kind_name(rl_lbench_kind kind); /* "prefill", "decode", "other" */

/* Build one record from a parsed object; takes ownership of obj (freed on failure).
 * RL_EINPUT with a reason when the object is not a usable benchmark record. */
rl_status rl_lbench_record_from_json(cJSON *obj, rl_lbench_record *out, rl_error *err);
void rl_lbench_record_free(rl_lbench_record *r);

/* Parse everything llama-bench printed on stdout: a JSON array (-o json; text before the `[`
 * is skipped; an unterminated array keeps every complete object and sets truncated) or JSONL
 * (-o jsonl; non-JSON lines are skipped and counted). RL_EINPUT when there is no usable record,
 * quoting the start of the text with control characters escaped. out is zeroed first and owns
 * the records on success (empty on failure). */
rl_status rl_lbench_parse(const char *text, size_t len, rl_lbench_set *out, rl_error *err);

/* ---- streaming (-o jsonl) ----------------------------------------------------------------- */

typedef struct rl_lbench_feeder rl_lbench_feeder;

/* NULL when out of memory. */
rl_lbench_feeder *rl_lbench_feeder_new(void);
/* Feed n bytes of stdout as they arrive. Every record completed by them is appended to the
 * feeder's set; *n_new (may be NULL) receives how many, so they are the last *n_new entries of
 * rl_lbench_feeder_set(). Lines longer than RL_LBENCH_MAX_LINE are dropped without being
 * buffered. RL_EINPUT past RL_LBENCH_MAX_RECORDS, RL_EINTERNAL when out of memory. */
rl_status rl_lbench_feed(rl_lbench_feeder *f, const char *bytes, size_t n, size_t *n_new,
                         rl_error *err);
/* End of stream: a last line without a newline is parsed (or, when it is not complete JSON,
 * marks the set truncated). RL_EINPUT when no usable record arrived at all, with the same
 * messages as rl_lbench_parse. Records are kept either way. */
rl_status rl_lbench_feed_finish(rl_lbench_feeder *f, size_t *n_new, rl_error *err);
/* The records so far. The records array may move on the next feed: re-read it after each. */
const rl_lbench_set *rl_lbench_feeder_set(const rl_lbench_feeder *f);
/* Move the records out into *out (the feeder is left empty). */
void rl_lbench_feeder_take(rl_lbench_feeder *f, rl_lbench_set *out);
void rl_lbench_feeder_free(rl_lbench_feeder *f);

/* ---- stderr and text helpers -------------------------------------------------------------- */

/* One line for an error message from llama-bench's stderr: blank lines and banner/noise lines
 * (load_backend:, load_tensors:, ggml_, build:, main:, register_backend, register_device, any
 * line containing "loaded ") dropped; lines containing "error" or "failed" (any case) preferred,
 * else the remaining lines, else all lines; the last two joined with " | "; control characters
 * and invalid UTF-8 escaped. "no error message on stderr" when nothing is left. Always
 * NUL-terminates buf (cap > 0). */
void rl_lbench_stderr_summary(const char *text, size_t len, char *buf, size_t cap);

/* Copy at most max_chars characters of s[0..len) into buf as printable text: \n \r \t as
 * those escapes, other control bytes, DEL, C1 controls and invalid UTF-8 as \xHH; valid UTF-8
 * kept. Never splits an escape or a character; always NUL-terminates (cap > 0). Returns the
 * number of input bytes consumed. */
size_t rl_lbench_escape(const char *s, size_t len, size_t max_chars, char *buf, size_t cap);

/* ---- build identification ----------------------------------------------------------------- */

typedef struct {
    int64_t number;   /* 0 unknown */
    char commit[48];  /* "" unknown; hex (or "unknown" as llama.cpp prints it) */
    char version[32]; /* "0.5.0-dev" style version when printed; "" otherwise */
} rl_lbench_build;

/* From a record's build_number and build_commit. Never fails (fields stay unknown). */
void rl_lbench_build_from_record(const rl_lbench_record *r, rl_lbench_build *out);
/* From `--version`/`--help` text or a log, the first line of these forms: "version: N (HASH)"
 * (2024-2025 builds), "version: V (build N, commit HASH)" (2026 builds, the pinned one among
 * them: "version: 0.5.0-dev (build 1, commit de3ff81)", on stderr), "build: N (HASH) ..." (the
 * common log line) or "build: HASH (N)" (the markdown footer). RL_EINPUT when none is there. */
rl_status rl_lbench_build_from_text(const char *text, size_t len, rl_lbench_build *out,
                                    rl_error *err);

#endif
