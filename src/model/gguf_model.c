/* SPDX-License-Identifier: MIT */
/* rl_gguf_model.c: model facts from GGUF headers: shapes, KV-cache bytes per token, resident and
 * streamed bytes, per-type totals and the composition of the repeating layers. Multi-part
 * files (-NNNNN-of-MMMMM.gguf) are read shard by shard and summed; metadata comes from the
 * first shard.
 *
 * Ownership: rl_gguf_model_load / rl_gguf_model_adopt fill a caller-provided rl_gguf_model; the
 * strings and arrays they allocate inside it, and the parsed files it keeps (m->files), are
 * released by rl_gguf_model_free (safe on a zeroed or failed model). Errors are one line
 * "<path>: <problem>" with RL_EINPUT (RL_EINTERNAL when memory runs out). */
#include "model/gguf_model.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "model/ggml_types.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* ---- small helpers ------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Copy src into dst (size cap) keeping valid UTF-8 and no control characters; bytes of an
 * invalid sequence become '?'. The copy is cut at a character boundary. */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    if (!src) {
        dst[0] = '\0';
        return;
    }
    for (size_t i = 0; src[i] && o + 1 < cap;) {
        unsigned char c = (unsigned char)src[i];
        size_t n = c < 0x80             ? 1
                   : (c & 0xE0) == 0xC0 ? 2
                   : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4
                                        : 0;
        size_t avail = strnlen(src + i, 4);
        if (n == 0 || n > avail || !rl_utf8_valid(src + i, n)) {
            dst[o++] = '?';
            i++;
            continue;
        }
        if (o + n >= cap)
            break;
        if (n == 1 && (c < 0x20 || c == 0x7f))
            dst[o++] = ' ';
        else
            memcpy(dst + o, src + i, n), o += n;
        i += n;
    }
    dst[o] = '\0';
}

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return false;
    *out = a * b;
    return true;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* An unsigned integer from "<arch>.<suffix>"; a per-layer integer array gives its max (and
 * sum when sum is not NULL). Returns false when absent or unusable. */
static bool arch_u64(const rl_gguf_file *f, const char *arch, const char *suffix, uint64_t *val,
                     uint64_t *sum, bool *is_array)
{
    char key[160];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    if (is_array)
        *is_array = false;
    if (rl_gguf_get_u64(f, key, val))
        return true;
    const rl_gguf_kv *kv = rl_gguf_find(f, key);
    if (kv && kv->type == GGUF_T_ARRAY && kv->v.arr.int_scanned && kv->v.arr.len > 0) {
        *val = kv->v.arr.int_max;
        if (sum)
            *sum = kv->v.arr.int_sum;
        if (is_array)
            *is_array = true;
        return true;
    }
    return false;
}

/* The quantization label in a file name: I?Q<d>(_X)*, F16, BF16, F32, MXFP4(_MOE)?, TQ<d>_<d>,
 * case-insensitive, as a standalone token (not inside a longer word). Upper-cased into out. */
static bool is_alnum(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static size_t match_quant_token(const char *s)
{
    size_t n = 0;
    if (strncasecmp(s, "MXFP4", 5) == 0) {
        n = 5;
        if (strncasecmp(s + 5, "_MOE", 4) == 0 && !is_alnum(s[9]) && s[9] != '_')
            n = 9;
    } else if (strncasecmp(s, "BF16", 4) == 0) {
        n = 4;
    } else if (strncasecmp(s, "F16", 3) == 0 || strncasecmp(s, "F32", 3) == 0) {
        n = 3;
    } else if ((s[0] == 'T' || s[0] == 't') && (s[1] == 'Q' || s[1] == 'q') &&
               isdigit((unsigned char)s[2]) && s[3] == '_' && isdigit((unsigned char)s[4])) {
        n = 5;
    } else {
        size_t i = 0;
        if (s[0] == 'I' || s[0] == 'i')
            i = 1;
        if ((s[i] != 'Q' && s[i] != 'q') || !isdigit((unsigned char)s[i + 1]))
            return 0;
        n = i + 2;
        while (s[n] == '_' && is_alnum(s[n + 1])) {
            size_t k = n + 1;
            while (is_alnum(s[k]))
                k++;
            n = k;
        }
    }
    if (is_alnum(s[n]) || s[n] == '_')
        return 0;
    return n;
}

static bool label_from_name(const char *path, char *out, size_t cap)
{
    const char *b = base_name(path);
    for (size_t i = 0; b[i]; i++) {
        if (i > 0 && is_alnum(b[i - 1]))
            continue;
        size_t n = match_quant_token(b + i);
        if (n == 0)
            continue;
        if (n >= cap)
            n = cap - 1;
        for (size_t k = 0; k < n; k++)
            out[k] = (char)toupper((unsigned char)b[i + k]);
        out[n] = '\0';
        return true;
    }
    return false;
}

/* Expected ggml type of a label: itself if a type name, else without its last _suffix, else
 * the default type of the llama file_type it names; -1 when none. */
static int expected_type_of(const char *label)
{
    if (!label[0])
        return -1;
    int t = rl_ggml_type_by_name(label);
    if (t >= 0)
        return t;
    const char *us = strrchr(label, '_');
    if (us) {
        char head[32];
        size_t n = (size_t)(us - label);
        if (n < sizeof head) {
            memcpy(head, label, n);
            head[n] = '\0';
            t = rl_ggml_type_by_name(head);
            if (t >= 0)
                return t;
        }
    }
    int ft = rl_ftype_by_label(label);
    return ft >= 0 ? rl_ftype_default_type((uint32_t)ft) : -1;
}

/* ---- per-type totals ----------------------------------------------------------------- */

static int tb_by_type(const void *a, const void *b)
{
    const rl_gguf_type_bytes *x = a, *y = b;
    return x->type < y->type ? -1 : x->type > y->type;
}

static int tb_by_bytes(const void *a, const void *b)
{
    const rl_gguf_type_bytes *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->n_tensors != y->n_tensors)
        return x->n_tensors > y->n_tensors ? -1 : 1;
    return x->type < y->type ? -1 : x->type > y->type;
}

/* Collapse n per-tensor rows into one per type (sorted by bytes, descending). */
static uint32_t merge_types(rl_gguf_type_bytes *rows, size_t n)
{
    if (n == 0)
        return 0;
    qsort(rows, n, sizeof *rows, tb_by_type);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out > 0 && rows[out - 1].type == rows[i].type) {
            rows[out - 1].n_tensors += rows[i].n_tensors;
            rows[out - 1].bytes = add_sat(rows[out - 1].bytes, rows[i].bytes);
            rows[out - 1].elements = add_sat(rows[out - 1].elements, rows[i].elements);
            rows[out - 1].n_matrices = add_sat(rows[out - 1].n_matrices, rows[i].n_matrices);
            rows[out - 1].n_rows = add_sat(rows[out - 1].n_rows, rows[i].n_rows);
        } else {
            rows[out++] = rows[i];
        }
    }
    qsort(rows, out, sizeof *rows, tb_by_bytes);
    return (uint32_t)out;
}

static bool is_float_type(uint32_t t)
{
    return t == RL_GGML_F32 || t == RL_GGML_F16 || t == RL_GGML_BF16 || t == RL_GGML_F64;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- the model ----------------------------------------------------------------------- */

/* fill, step 1: the general.* metadata and the label (from the file type, else the name). */
static void fill_general(const rl_gguf_file *meta, const char *path, rl_gguf_model *m)
{
    copy_text(m->architecture, sizeof m->architecture,
              rl_gguf_get_str(meta, "general.architecture"));
    copy_text(m->name, sizeof m->name, rl_gguf_get_str(meta, "general.name"));
    uint64_t ft;
    if (rl_gguf_get_u64(meta, "general.file_type", &ft) && ft <= INT64_MAX)
        m->file_type = (int64_t)ft;
    const char *lbl = NULL;
    if (m->file_type >= 0 && m->file_type < 2048)
        lbl = rl_ftype_label((uint32_t)(m->file_type & ~1024)); /* drop LLAMA_FTYPE_GUESSED */
    if (lbl)
        snprintf(m->label, sizeof m->label, "%s", lbl);
    else if (!label_from_name(path, m->label, sizeof m->label))
        m->label[0] = '\0';
}

/* fill, step 2: the <arch>.* shape keys and the KV-cache bytes per token. */
static void fill_shape(const rl_gguf_file *meta, rl_gguf_model *m)
{
    const char *arch = m->architecture;
    if (!arch[0])
        return;
    uint64_t sum_kv = 0, v;
    bool arr = false;
    arch_u64(meta, arch, "block_count", &m->n_layer, NULL, NULL);
    arch_u64(meta, arch, "embedding_length", &m->n_embd, NULL, NULL);
    arch_u64(meta, arch, "feed_forward_length", &m->n_ff, NULL, NULL);
    arch_u64(meta, arch, "attention.head_count", &m->n_head, NULL, NULL);
    arch_u64(meta, arch, "context_length", &m->context_length, NULL, NULL);
    arch_u64(meta, arch, "expert_count", &m->expert_count, NULL, NULL);
    arch_u64(meta, arch, "expert_used_count", &m->expert_used_count, NULL, NULL);
    if (arch_u64(meta, arch, "attention.head_count_kv", &v, &sum_kv, &arr)) {
        m->n_head_kv = v;
        m->head_count_kv_per_layer = arr;
    } else {
        m->n_head_kv = m->n_head;
    }
    if (!arr && !mul_ok(m->n_layer, m->n_head_kv, &sum_kv))
        sum_kv = 0;
    bool has_k = arch_u64(meta, arch, "attention.key_length", &m->key_length, NULL, NULL);
    bool has_v = arch_u64(meta, arch, "attention.value_length", &m->value_length, NULL, NULL);
    m->head_dim = has_k ? m->key_length : m->n_head ? m->n_embd / m->n_head : 0;
    if (!has_k)
        m->key_length = m->head_dim;
    if (!has_v)
        m->value_length = m->key_length;
    uint64_t kv;
    if (m->key_length <= UINT64_MAX - m->value_length &&
        mul_ok(sum_kv, m->key_length + m->value_length, &kv) && mul_ok(kv, 2, &kv))
        m->kv_bytes_per_token = kv;
}

/* What the tensor scan collects besides the model's own fields. */
typedef struct {
    rl_gguf_type_bytes *rows;  /* one per tensor */
    rl_gguf_type_bytes *lrows; /* one per quantised blk.* tensor */
    const char **names;        /* every tensor's name, only with more than one shard */
    size_t nl;                 /* rows in lrows */
    bool have_head, have_embd;
    uint32_t embd_type;
    size_t embd_row; /* rows[] index of token_embd.weight, when have_embd */
} tensor_scan;

/* The matrices a tensor of the model is per token: none for a vector, the used experts for an
 * expert tensor (all of them when the count used is unknown), else one. */
static uint64_t tensor_matrices(const rl_gguf_model *m, const rl_gguf_tensor *t)
{
    if (t->n_dims < 2)
        return 0;
    if (!strstr(t->name, "_exps"))
        return 1;
    uint64_t n = t->n_dims >= 3 ? t->ne[2] : 1;
    return m->expert_used_count > 0 && m->expert_used_count < n ? m->expert_used_count : n;
}

/* The rows of t decode reads per token: ne[1] of each matrix tensor_matrices counts. */
static uint64_t tensor_rows(const rl_gguf_model *m, const rl_gguf_tensor *t)
{
    uint64_t n = tensor_matrices(m, t);
    return n > 0 && t->ne[1] <= UINT64_MAX / n ? t->ne[1] * n : n > 0 ? UINT64_MAX : 0;
}

/* fill, step 3: one pass over every shard's tensors (sizes, parameters, head and embedding). */
static void scan_tensors(const rl_gguf_file *const *files, uint32_t n_files, rl_gguf_model *m,
                         tensor_scan *ts)
{
    size_t k = 0;
    m->sizes_known = true;
    for (uint32_t s = 0; s < n_files; s++) {
        const rl_gguf_file *f = files[s];
        m->file_bytes = add_sat(m->file_bytes, f->file_size);
        for (uint64_t i = 0; i < f->n_tensors; i++, k++) {
            const rl_gguf_tensor *t = &f->tensors[i];
            if (ts->names)
                ts->names[k] = t->name;
            m->n_params = add_sat(m->n_params, t->n_elements);
            if (!t->sized)
                m->sizes_known = false;
            uint64_t b = t->sized ? t->n_bytes : 0;
            ts->rows[k] = (rl_gguf_type_bytes){t->type, 1, b, t->n_elements, 0, 0};
            ts->rows[k].n_matrices = tensor_matrices(m, t);
            ts->rows[k].n_rows = tensor_rows(m, t);
            m->tensor_bytes = add_sat(m->tensor_bytes, b);
            if (strncmp(t->name, "blk.", 4) == 0 && !is_float_type(t->type)) {
                ts->lrows[ts->nl] = ts->rows[k];
                ts->lrows[ts->nl].n_rows = 0;
                ts->lrows[ts->nl++].n_matrices = 0;
                m->layer_bytes = add_sat(m->layer_bytes, b);
                m->layer_elements = add_sat(m->layer_elements, t->n_elements);
            }
            if (strstr(t->name, "_exps"))
                m->expert_bytes = add_sat(m->expert_bytes, b);
            if (strcmp(t->name, "token_embd.weight") == 0) {
                ts->have_embd = true;
                ts->embd_row = k;
                m->embedding_bytes = b;
                ts->embd_type = t->type;
                if (m->n_vocab == 0 && t->n_dims >= 2)
                    m->n_vocab = t->ne[1];
            } else if (strcmp(t->name, "output.weight") == 0) {
                ts->have_head = true;
                m->head_bytes = b;
                m->head_type = t->type;
            }
        }
    }
}

/* fill, step 4: with several shards, no tensor name may appear twice (sorts names). */
static rl_status check_shard_names(const char **names, uint64_t total, const char *path,
                                   rl_error *err)
{
    qsort(names, (size_t)total, sizeof *names, name_cmp);
    for (size_t i = 1; i < total; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            return rl_fail(err, RL_EINPUT,
                           "%s: tensor '%s' appears in more than one "
                           "shard; the parts do not belong together",
                           path, names[i]);
    return RL_OK;
}

/* fill, step 5: the bytes streamed per token (embedding left out unless tied; only the used
   share of the experts), or all sizes zeroed when some tensor's size is unknown. */
static void fill_streamed(rl_gguf_model *m, size_t nl)
{
    if (!m->sizes_known) {
        m->tensor_bytes = m->streamed_bytes = m->embedding_bytes = m->head_bytes = 0;
        m->expert_bytes = m->layer_bytes = 0;
        m->has_composition = false;
        return;
    }
    uint64_t streamed = m->tied_embeddings ? m->tensor_bytes : m->tensor_bytes - m->embedding_bytes;
    if (m->is_moe && m->expert_used_count > 0 && m->expert_bytes > 0) {
        uint64_t used =
            m->expert_used_count < m->expert_count ? m->expert_used_count : m->expert_count;
        unsigned __int128 scaled =
            ((unsigned __int128)m->expert_bytes * used + m->expert_count / 2) / m->expert_count;
        streamed = streamed - m->expert_bytes + (uint64_t)scaled;
    }
    m->streamed_bytes = streamed;
    m->has_composition = nl > 0 && m->layer_elements > 0;
}

/* fill, step 6: how much of the layers is in the label's type, and bits per weight. */
static void fill_composition(rl_gguf_model *m)
{
    m->expected_type = expected_type_of(m->label);
    if (!m->has_composition)
        return;
    uint64_t on = 0;
    for (uint32_t i = 0; i < m->n_layer_types; i++)
        if ((int64_t)m->layer_types[i].type == m->expected_type)
            on = m->layer_types[i].bytes;
    m->on_label_pct = m->layer_bytes ? 100.0 * (double)on / (double)m->layer_bytes : 0.0;
    m->bits_per_weight = 8.0 * (double)m->layer_bytes / (double)m->layer_elements;
}

static rl_status fill(const rl_gguf_file *meta, const rl_gguf_file *const *files, uint32_t n_files,
                      const char *path, rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    m->path = rl_strdup(path);
    if (!m->path)
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", path);
    m->n_shards = n_files;
    m->version = meta->version;
    m->file_type = -1;
    m->head_type = m->embedding_type = UINT32_MAX;
    m->expected_type = -1;

    fill_general(meta, path, m);
    fill_shape(meta, m);
    m->is_moe = m->expert_count > 0;

    uint64_t total = 0;
    for (uint32_t s = 0; s < n_files; s++)
        total += files[s]->n_tensors;
    m->n_tensors = total;
    tensor_scan ts = {.embd_type = UINT32_MAX};
    ts.rows = rl_calloc((size_t)total, sizeof *ts.rows);
    ts.lrows = rl_calloc((size_t)total, sizeof *ts.lrows);
    ts.names = n_files > 1 ? rl_calloc((size_t)total, sizeof *ts.names) : NULL;
    if (!ts.rows || !ts.lrows || (n_files > 1 && !ts.names)) {
        free(ts.rows), free(ts.lrows), free(ts.names);
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", path);
    }
    scan_tensors(files, n_files, m, &ts);
    if (ts.names) {
        rl_status st = check_shard_names(ts.names, total, path, err);
        free(ts.names);
        if (st != RL_OK) {
            free(ts.rows), free(ts.lrows);
            return st;
        }
    }
    if (m->n_vocab == 0) {
        const rl_gguf_kv *tok = rl_gguf_find(meta, "tokenizer.ggml.tokens");
        if (tok && tok->type == GGUF_T_ARRAY)
            m->n_vocab = tok->v.arr.len;
    }
    m->tied_embeddings = !ts.have_head && ts.have_embd;
    if (ts.have_embd && !m->tied_embeddings) /* decode reads one row of it */
        ts.rows[ts.embd_row].n_matrices = ts.rows[ts.embd_row].n_rows = 0;
    m->embedding_type = ts.embd_type;
    if (m->tied_embeddings) {
        m->head_bytes = m->embedding_bytes;
        m->head_type = ts.embd_type;
    }

    m->n_types = merge_types(ts.rows, (size_t)total);
    m->types = ts.rows;
    m->n_layer_types = merge_types(ts.lrows, ts.nl);
    m->layer_types = ts.lrows;

    fill_streamed(m, ts.nl);
    m->resident_bytes = m->file_bytes;
    fill_composition(m);
    return RL_OK;
}

rl_status rl_gguf_model_adopt(rl_gguf_file *f, rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    const char *path = f->path ? f->path : "";
    rl_gguf_file **files = rl_calloc(1, sizeof *files);
    rl_status st = files ? fill(f, (const rl_gguf_file *const *)&f, 1, path, m, err)
                         : rl_fail(err, RL_EINTERNAL, "%s: out of memory", path);
    if (st != RL_OK) {
        free(files);
        rl_gguf_free(f);
        rl_gguf_model_free(m);
        return st;
    }
    files[0] = f;
    m->files = files;
    return RL_OK;
}

bool rl_gguf_split_name(const char *path, size_t *prefix_len, uint32_t *no, uint32_t *count)
{
    static const char tail[] = "-00000-of-00000.gguf";
    size_t n = strlen(path), t = sizeof tail - 1;
    if (n < t || base_name(path) > path + n - t)
        return false;
    const char *p = path + n - t;
    uint32_t a = 0, b = 0;
    for (size_t i = 0; i < t; i++) {
        if (tail[i] == '0') {
            if (!isdigit((unsigned char)p[i]))
                return false;
            if (i < 6)
                a = a * 10 + (uint32_t)(p[i] - '0');
            else
                b = b * 10 + (uint32_t)(p[i] - '0');
        } else if (p[i] != tail[i]) {
            return false;
        }
    }
    *prefix_len = n - t;
    *no = a;
    *count = b;
    return true;
}

static bool file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

rl_status rl_gguf_model_load(const char *path, rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    size_t plen;
    uint32_t no, count;
    if (!rl_gguf_split_name(path, &plen, &no, &count) || count == 1) {
        rl_gguf_file *f;
        rl_status st = rl_gguf_read_file(path, &f, err);
        return st == RL_OK ? rl_gguf_model_adopt(f, m, err) : st;
    }
    if (no == 0 || count == 0 || no > count)
        return rl_fail(err, RL_EINPUT,
                       "%s: the name says shard %" PRIu32 " of %" PRIu32
                       ", which cannot be; rename the file as llama.cpp wrote it",
                       path, no, count);
    if (count > GGUF_MODEL_MAX_SHARDS)
        return rl_fail(err, RL_EINPUT,
                       "%s: the name says %" PRIu32 " shards, more than the %d "
                       "this tool reads",
                       path, count, GGUF_MODEL_MAX_SHARDS);
    rl_gguf_file **files = rl_calloc(count, sizeof *files);
    if (!files)
        return rl_fail(err, RL_EINTERNAL, "%s: out of memory", path);
    rl_status st = RL_OK;
    for (uint32_t i = 0; i < count && st == RL_OK; i++) {
        char *sp =
            rl_asprintf("%.*s-%05" PRIu32 "-of-%05" PRIu32 ".gguf", (int)plen, path, i + 1, count);
        if (!sp) {
            st = rl_fail(err, RL_EINTERNAL, "%s: out of memory", path);
            break;
        }
        if (!file_exists(sp))
            st = rl_fail(err, RL_EINPUT,
                         "%s: missing shard %" PRIu32 " of %" PRIu32 " (%s); "
                         "download every part of the model into the same directory",
                         path, i + 1, count, sp);
        else
            st = rl_gguf_read_file(sp, &files[i], err);
        free(sp);
    }
    return rl_gguf_model_adopt_read(st, files, count, path, m, err);
}

rl_status rl_gguf_model_adopt_read(rl_status read_st, rl_gguf_file **files, uint32_t count,
                                   const char *path, rl_gguf_model *m, rl_error *err)
{
    if (read_st != RL_OK) {
        for (uint32_t i = 0; i < count; i++)
            rl_gguf_free(files[i]);
        free(files);
        return read_st;
    }
    return rl_gguf_model_adopt_parts(files, count, path, m, err);
}

rl_status rl_gguf_model_adopt_parts(rl_gguf_file **files, uint32_t count, const char *path,
                                    rl_gguf_model *m, rl_error *err)
{
    memset(m, 0, sizeof *m);
    rl_status st = RL_OK;
    for (uint32_t i = 0; i < count && st == RL_OK; i++) {
        uint64_t v;
        const char *sp = files[i]->path;
        if (rl_gguf_get_u64(files[i], "split.no", &v) && v != i)
            st = rl_fail(err, RL_EINPUT,
                         "%s: split.no is %" PRIu64 " but the name says "
                         "shard %" PRIu32 "; the parts are mixed up",
                         sp, v + 1, i + 1);
        if (st == RL_OK && i == 0 && rl_gguf_get_u64(files[0], "split.count", &v) && v != count)
            st = rl_fail(err, RL_EINPUT,
                         "%s: split.count is %" PRIu64 " but the name says "
                         "%" PRIu32 " shards; the parts are mixed up or renamed",
                         sp, v, count);
    }
    if (st == RL_OK)
        st = fill(files[0], (const rl_gguf_file *const *)files, count, path, m, err);
    if (st != RL_OK) {
        for (uint32_t i = 0; i < count; i++)
            rl_gguf_free(files[i]);
        free(files);
        rl_gguf_model_free(m);
        return st;
    }
    m->files = files; /* fill set n_shards = count */
    return RL_OK;
}

void rl_gguf_model_free(rl_gguf_model *m)
{
    if (!m)
        return;
    if (m->files) {
        for (uint32_t i = 0; i < m->n_shards; i++)
            rl_gguf_free(m->files[i]);
        free(m->files);
    }
    free(m->path);
    free(m->types);
    free(m->layer_types);
    m->path = NULL;
    m->files = NULL;
    m->types = m->layer_types = NULL;
    m->n_types = m->n_layer_types = 0;
}
