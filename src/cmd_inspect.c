/* cmd_inspect.c: `llama-roofline inspect [--json] [--tensors] FILE|DIR...`: what a GGUF model
 * really holds, from its header alone: label against content, shapes, KV-cache and per-token
 * bytes, the output head, per-type totals and optionally every tensor. Each file is reported
 * on its own; a file that cannot be read is reported on stderr and the others still are (exit
 * 2 at the end). Everything allocated here is freed before run() returns. */
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "ggml_types.h"
#include "gguf.h"
#include "gguf_model.h"
#include "rl_text.h"
#include "rl_file.h"
#include "rl_util.h"

#define MB 1e6
#define MIB 1048576.0
#define RULE_W 72

static const char usage[] =
    "usage: llama-roofline inspect [--json] [--tensors] FILE|DIR...\n"
    "\n"
    "Read the header of GGUF model files (never the weights) and report what they hold:\n"
    "the label against what the repeating layers really store, the shape, the KV-cache bytes\n"
    "per token, the bytes read per generated token, the output head and the tensor types.\n"
    "\n"
    "options:\n"
    "  --json      print one JSON array, an object per model, instead of text\n"
    "  --tensors   also list every tensor: name, type, dimensions, size\n"
    "  -h, --help  show this text\n"
    "\n"
    "A multi-part model (name-00001-of-00003.gguf) is read as a whole: give any part.\n"
    "A directory stands for the *.gguf files in it, sorted, the first part only of a split\n"
    "model. MB means 10^6 bytes and MiB 2^20 bytes.\n"
    "\n"
    "example:\n"
    "  llama-roofline inspect models/qwen2.5-0.5b-instruct-q4_k_m.gguf\n"
    "  llama-roofline inspect --json --tensors models/\n"
    "\n"
    "exit codes: 0 every model read; 2 a file is missing, unreadable or not a valid GGUF (the\n"
    "others are still reported and, with --json, still in the array), no file was given or\n"
    "a directory held none, or an unknown option.\n";

/* ---- argument expansion -------------------------------------------------------------- */

typedef struct {
    char **v;
    size_t n, cap;
} strlist;

static bool sl_push(strlist *l, char *s)
{
    if (!s)
        return false;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return false;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return true;
}

static void sl_free(strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with_gguf(const char *s)
{
    size_t n = strlen(s);
    return n > 5 && strcasecmp(s + n - 5, ".gguf") == 0;
}

/* Append dir's *.gguf regular files (sorted; only part 1 of split models). */
static rl_status expand_dir(const char *dir, strlist *out, rl_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return rl_fail(err, RL_EINPUT, "%s: cannot open the directory", dir);
    strlist found = {0};
    size_t dl = strlen(dir);
    const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
    struct dirent *e;
    rl_status st = RL_OK;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !ends_with_gguf(e->d_name))
            continue;
        size_t plen;
        uint32_t no, count;
        if (rl_gguf_split_name(e->d_name, &plen, &no, &count) && no != 1)
            continue;
        char *p = rl_asprintf("%s%s%s", dir, sep, e->d_name);
        struct stat sb;
        if (p && (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))) {
            free(p);
            continue;
        }
        if (!sl_push(&found, p)) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
    }
    closedir(d);
    if (st == RL_OK) {
        if (found.n > 1)
            qsort(found.v, found.n, sizeof *found.v, str_cmp);
        for (size_t i = 0; i < found.n; i++) {
            if (!sl_push(out, found.v[i])) {
                found.v[i] = NULL;
                st = rl_fail(err, RL_EINTERNAL, "out of memory");
                for (size_t k = i + 1; k < found.n; k++)
                    free(found.v[k]);
                break;
            }
        }
        free(found.v);
        return st;
    }
    sl_free(&found);
    return st;
}

/* ---- helpers ------------------------------------------------------------------------- */

static const char *type_name(uint32_t t, char *buf, size_t cap)
{
    const rl_ggml_type_info *ti = rl_ggml_type_get(t);
    if (ti)
        return ti->name;
    snprintf(buf, cap, "type%" PRIu32, t);
    return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double round_to(double v, double unit)
{
    double r = v / unit;
    r = r < 0 ? (double)(int64_t)(r - 0.5) : (double)(int64_t)(r + 0.5);
    return r * unit;
}

/* "491 MB" style, with enough decimals for small files. */
static void fmt_mb(char *buf, size_t cap, uint64_t bytes)
{
    double mb = (double)bytes / MB;
    if (mb >= 10)
        snprintf(buf, cap, "%.0f MB", mb);
    else if (mb >= 1)
        snprintf(buf, cap, "%.1f MB", mb);
    else
        snprintf(buf, cap, "%.3f MB", mb);
}

/* The same in MiB (2^20 bytes). */
static void fmt_mib(char *buf, size_t cap, uint64_t bytes)
{
    double mib = (double)bytes / MIB;
    snprintf(buf, cap, mib >= 10 ? "%.1f MiB" : "%.3f MiB", mib);
}

static void fmt_count(char *buf, size_t cap, uint64_t n)
{
    if (n >= 1000000000ull)
        snprintf(buf, cap, "%.2f B", (double)n / 1e9);
    else if (n >= 1000000ull)
        snprintf(buf, cap, "%.2f M", (double)n / 1e6);
    else if (n >= 1000ull)
        snprintf(buf, cap, "%.2f K", (double)n / 1e3);
    else
        snprintf(buf, cap, "%" PRIu64, n);
}

static void rule(char c)
{
    for (int i = 0; i < RULE_W; i++)
        putchar(c);
    putchar('\n');
}

/* Print text wrapped at width columns, each line indented by two spaces. */
static void wrap(const char *text, int width)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *line = p, *brk = NULL;
        int col = 0;
        while (p[col] && col < width) {
            if (p[col] == ' ')
                brk = p + col;
            col++;
        }
        const char *end = !p[col] ? p + col : brk ? brk : p + col;
        printf("  %.*s\n", (int)(end - line), line);
        p = end;
    }
}

/* Up to max "TYPE pct%" items of the repeating layers other than skip, into buf. */
static void top_layer_types(const rl_gguf_model *m, int skip, int max, char *buf, size_t cap)
{
    size_t o = 0;
    int shown = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < m->n_layer_types && shown < max; i++) {
        const rl_gguf_type_bytes *t = &m->layer_types[i];
        if ((int64_t)t->type == skip)
            continue;
        char tn[24];
        int w = snprintf(buf + o, cap - o, "%s%s %.0f%%", shown ? ", " : "",
                         type_name(t->type, tn, sizeof tn), pct(t->bytes, m->layer_bytes));
        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
        shown++;
    }
}

static rl_status read_parts(const rl_gguf_model *m, rl_gguf_file ***files_out, rl_error *err)
{
    rl_gguf_file **files = rl_calloc(m->n_shards, sizeof *files);
    if (!files)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t plen;
    uint32_t no, count;
    bool split = m->n_shards > 1 && rl_gguf_split_name(m->path, &plen, &no, &count);
    rl_status st = RL_OK;
    for (uint32_t i = 0; i < m->n_shards && st == RL_OK; i++) {
        char *p = split ? rl_asprintf("%.*s-%05" PRIu32 "-of-%05" PRIu32 ".gguf", (int)plen,
                                      m->path, i + 1, count)
                        : rl_strdup(m->path);
        if (!p) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        st = rl_gguf_read_file(p, &files[i], err);
        free(p);
    }
    if (st != RL_OK) {
        for (uint32_t i = 0; i < m->n_shards; i++)
            rl_gguf_free(files[i]);
        free(files);
        return st;
    }
    *files_out = files;
    return RL_OK;
}

static void free_parts(rl_gguf_file **files, uint32_t n)
{
    if (!files)
        return;
    for (uint32_t i = 0; i < n; i++)
        rl_gguf_free(files[i]);
    free(files);
}

/* A name from the file made safe for a terminal: control characters become '?', and names
 * longer than the buffer are cut at a character boundary. */
static const char *safe_name(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; s[n] && n + 1 < cap; n++)
        buf[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
    if (s[n])
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    buf[n] = '\0';
    return buf;
}

static void fmt_dims(char *buf, size_t cap, const rl_gguf_tensor *t)
{
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t d = 0; d < t->n_dims; d++) {
        int w = snprintf(buf + o, cap - o, "%s%" PRIu64, d ? "x" : "", t->ne[d]);
        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
    }
}

/* ---- human output -------------------------------------------------------------------- */

static void print_human(const rl_gguf_model *m, rl_gguf_file **parts)
{
    char a[64], b[64], tn[24];
    const char *base = strrchr(m->path, '/');
    base = base ? base + 1 : m->path;
    rule('=');
    printf("%s%s%s\n", base, m->name[0] ? "  -  " : "", m->name);
    rule('=');
    printf("  label       : %s", m->label[0] ? m->label : "unknown");
    if (m->architecture[0])
        printf("   architecture: %s", m->architecture);
    putchar('\n');
    if (m->has_composition) {
        if (m->expected_type >= 0)
            printf("  actually    : %.0f%% %s in the repeating layers, %.2f bits per weight\n",
                   m->on_label_pct, type_name((uint32_t)m->expected_type, tn, sizeof tn),
                   m->bits_per_weight);
        else
            printf("  actually    : %.2f bits per weight in the repeating layers\n",
                   m->bits_per_weight);
        char top[256];
        top_layer_types(m, -2, 6, top, sizeof top);
        printf("  layers hold : %s (share of repeating-layer bytes)\n", top);
    }
    fmt_mb(a, sizeof a, m->file_bytes);
    fmt_mib(b, sizeof b, m->file_bytes);
    printf("  file        : %s (%s), %" PRIu64 " tensors", a, b, m->n_tensors);
    if (m->n_shards > 1)
        printf(" in %" PRIu32 " parts", m->n_shards);
    printf(", GGUF v%" PRIu32 "\n", m->version);
    fmt_count(a, sizeof a, m->n_params);
    printf("  parameters  : %s (%" PRIu64 ")\n", a, m->n_params);
    if (m->n_layer || m->n_embd) {
        printf("  shape       : n_layer %" PRIu64 ", n_embd %" PRIu64 ", n_head %" PRIu64
               ", n_head_kv %" PRIu64 "%s, head_dim %" PRIu64 ", n_ctx %" PRIu64,
               m->n_layer, m->n_embd, m->n_head, m->n_head_kv,
               m->head_count_kv_per_layer ? " (largest; varies by layer)" : "", m->head_dim,
               m->context_length);
        if (m->n_vocab)
            printf(", n_vocab %" PRIu64, m->n_vocab);
        putchar('\n');
    }
    if (m->kv_bytes_per_token) {
        printf("  KV cache    : %" PRIu64 " bytes per token of context (f16 K and V",
               m->kv_bytes_per_token);
        if (m->key_length != m->value_length)
            printf(", K %" PRIu64 " and V %" PRIu64 " wide", m->key_length, m->value_length);
        if (m->head_count_kv_per_layer)
            printf(", KV heads summed over the layers");
        printf(")\n");
    } else {
        printf("  KV cache    : unknown (the metadata gives no attention shape)\n");
    }
    if (m->is_moe) {
        printf("  experts     : %" PRIu64 " of %" PRIu64 " used per token", m->expert_used_count,
               m->expert_count);
        if (m->sizes_known && m->expert_used_count > 0) {
            fmt_mb(a, sizeof a, m->expert_bytes);
            printf("; expert tensors (%s) counted at %" PRIu64 "/%" PRIu64 " of their bytes", a,
                   m->expert_used_count < m->expert_count ? m->expert_used_count : m->expert_count,
                   m->expert_count);
        }
        putchar('\n');
    }
    if (!m->sizes_known) {
        printf("  per token   : not computable, at least one tensor uses a ggml type this build "
               "does not know\n");
    } else {
        fmt_mb(a, sizeof a, m->streamed_bytes);
        fmt_mib(b, sizeof b, m->streamed_bytes);
        printf("  per token   : %s read (%s), %.0f%% of the file\n", a, b,
               pct(m->streamed_bytes, m->file_bytes));
        if (m->head_type != UINT32_MAX) {
            fmt_mb(b, sizeof b, m->head_bytes);
            printf("  output head : %s, %s, %.0f%% of what is read per token%s\n",
                   type_name(m->head_type, tn, sizeof tn), b, pct(m->head_bytes, m->streamed_bytes),
                   m->tied_embeddings ? " (tied to the embedding)" : "");
        } else {
            printf("  output head : none found (no output.weight and no token_embd.weight)\n");
        }
    }

    printf("\n  TENSOR TYPES\n  ");
    for (int i = 0; i < RULE_W - 2; i++)
        putchar('-');
    printf("\n    %-10s %9s %12s %8s\n", "type", "tensors", "MB", "share");
    for (uint32_t i = 0; i < m->n_types; i++) {
        const rl_gguf_type_bytes *t = &m->types[i];
        const char *name = type_name(t->type, tn, sizeof tn);
        if (!rl_ggml_type_get(t->type) || (!m->sizes_known && t->bytes == 0 && t->elements > 0)) {
            printf("    %-10s %9" PRIu64 " %12s %8s\n", name, t->n_tensors, "?", "?");
            continue;
        }
        double mbv = (double)t->bytes / MB;
        if (m->sizes_known)
            printf("    %-10s %9" PRIu64 " %12.*f %7.1f%%\n", name, t->n_tensors, mbv < 10 ? 3 : 0,
                   mbv, pct(t->bytes, m->tensor_bytes));
        else
            printf("    %-10s %9" PRIu64 " %12.*f %8s\n", name, t->n_tensors, mbv < 10 ? 3 : 0, mbv,
                   "?");
    }

    if (m->has_composition && m->expected_type >= 0 && m->on_label_pct < 90.0) {
        char text[2048], top[256];
        const char *want = type_name((uint32_t)m->expected_type, tn, sizeof tn);
        top_layer_types(m, m->expected_type, 3, top, sizeof top);
        char headtn[24];
        const char *head =
            m->head_type != UINT32_MAX ? type_name(m->head_type, headtn, sizeof headtn) : NULL;
        int o;
        if (m->on_label_pct < 1.0)
            o = snprintf(text, sizeof text,
                         "This file is called %s, yet its repeating layers hold "
                         "no %s at all: they are %s.",
                         m->label, want, top);
        else
            o = snprintf(text, sizeof text,
                         "Only %.0f%% of the repeating-layer bytes are %s, the "
                         "type the label %s names; the rest is mostly %s.",
                         m->on_label_pct, want, m->label, top);
        if (o > 0 && (size_t)o < sizeof text && head)
            o += snprintf(text + o, sizeof text - (size_t)o, " The output head is %s.", head);
        if (o > 0 && (size_t)o < sizeof text)
            snprintf(text + o, sizeof text - (size_t)o,
                     " On average the layers store %.2f bits per weight. A label such as %s "
                     "names a quantization recipe, not the type of each tensor: when a tensor's "
                     "row length does not divide by the block size of the named type (256 for "
                     "the k-quants), llama-quantize stores that tensor in another type, and "
                     "which one depends on whether it started from F16/BF16 or from an already "
                     "quantized file. The file name cannot show this, and in small models the "
                     "substitutes can outweigh the named type. Compare files by bits per weight "
                     "and bytes read per token, not by their labels.",
                     m->bits_per_weight, m->label);
        printf("\n  WHAT THE LABEL MEANS HERE\n  ");
        for (int i = 0; i < RULE_W - 2; i++)
            putchar('-');
        putchar('\n');
        wrap(text, 68);
    }

    if (parts) {
        printf("\n  EVERY TENSOR\n  ");
        for (int i = 0; i < RULE_W - 2; i++)
            putchar('-');
        putchar('\n');
        for (uint32_t s = 0; s < m->n_shards; s++) {
            const rl_gguf_file *f = parts[s];
            for (uint64_t i = 0; i < f->n_tensors; i++) {
                const rl_gguf_tensor *t = &f->tensors[i];
                char dims[96], nm[256];
                fmt_dims(dims, sizeof dims, t);
                safe_name(t->name, nm, sizeof nm);
                if (t->sized)
                    printf("  %-40s %-10s %-20s %10.3f MB\n", nm, type_name(t->type, tn, sizeof tn),
                           dims, (double)t->n_bytes / MB);
                else
                    printf("  %-40s %-10s %-20s %10s\n", nm, type_name(t->type, tn, sizeof tn),
                           dims, "? MB");
            }
        }
    }
    putchar('\n');
}

/* ---- JSON output --------------------------------------------------------------------- */

static void add_u64(cJSON *o, const char *k, uint64_t v)
{
    cJSON_AddNumberToObject(o, k, (double)v);
}

static void add_bytes(cJSON *o, const char *k, const rl_gguf_model *m, uint64_t v)
{
    if (m->sizes_known)
        add_u64(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static void add_str_or_null(cJSON *o, const char *k, const char *s)
{
    if (s && *s)
        cJSON_AddStringToObject(o, k, s);
    else
        cJSON_AddNullToObject(o, k);
}

/* Add a file path as a JSON string: bytes that are not UTF-8 text become '?'. */
static void add_path(cJSON *o, const char *k, const char *path)
{
    size_t n = strlen(path);
    if (rl_utf8_valid(path, n)) {
        cJSON_AddStringToObject(o, k, path);
        return;
    }
    char *c = rl_strdup(path);
    if (!c)
        return;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)c[i] >= 0x80)
            c[i] = '?';
    cJSON_AddStringToObject(o, k, c);
    free(c);
}

static cJSON *model_json(const rl_gguf_model *m, rl_gguf_file **parts)
{
    char tn[24];
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_path(o, "path", m->path);
    add_str_or_null(o, "name", m->name);
    add_str_or_null(o, "label", m->label);
    add_str_or_null(o, "architecture", m->architecture);
    if (m->file_type >= 0)
        cJSON_AddNumberToObject(o, "file_type", (double)m->file_type);
    else
        cJSON_AddNullToObject(o, "file_type");
    add_u64(o, "gguf_version", m->version);
    add_u64(o, "n_shards", m->n_shards);
    add_u64(o, "n_tensors", m->n_tensors);
    add_u64(o, "n_params", m->n_params);
    add_u64(o, "file_bytes", m->file_bytes);
    add_u64(o, "resident_bytes", m->resident_bytes);
    cJSON_AddBoolToObject(o, "sizes_known", m->sizes_known);
    add_bytes(o, "tensor_bytes", m, m->tensor_bytes);
    add_bytes(o, "streamed_bytes", m, m->streamed_bytes);
    if (m->sizes_known)
        cJSON_AddNumberToObject(o, "streamed_MiB",
                                round_to((double)m->streamed_bytes / MIB, 0.001));
    else
        cJSON_AddNullToObject(o, "streamed_MiB");
    add_bytes(o, "embedding_bytes", m, m->embedding_bytes);
    add_bytes(o, "head_bytes", m, m->head_bytes);
    if (m->head_type != UINT32_MAX)
        cJSON_AddStringToObject(o, "head_type", type_name(m->head_type, tn, sizeof tn));
    else
        cJSON_AddNullToObject(o, "head_type");
    if (m->sizes_known && m->streamed_bytes)
        cJSON_AddNumberToObject(o, "head_share_pct",
                                round_to(pct(m->head_bytes, m->streamed_bytes), 0.01));
    else
        cJSON_AddNullToObject(o, "head_share_pct");
    cJSON_AddBoolToObject(o, "tied_embeddings", m->tied_embeddings);
    add_u64(o, "kv_bytes_per_token", m->kv_bytes_per_token);
    cJSON_AddBoolToObject(o, "is_moe", m->is_moe);
    add_u64(o, "expert_count", m->expert_count);
    add_u64(o, "expert_used_count", m->expert_used_count);
    add_bytes(o, "expert_bytes", m, m->expert_bytes);
    add_u64(o, "n_layer", m->n_layer);
    add_u64(o, "n_embd", m->n_embd);
    add_u64(o, "n_ff", m->n_ff);
    add_u64(o, "n_head", m->n_head);
    add_u64(o, "n_head_kv", m->n_head_kv);
    cJSON_AddBoolToObject(o, "head_count_kv_per_layer", m->head_count_kv_per_layer);
    add_u64(o, "head_dim", m->head_dim);
    add_u64(o, "key_length", m->key_length);
    add_u64(o, "value_length", m->value_length);
    add_u64(o, "context_length", m->context_length);
    add_u64(o, "n_vocab", m->n_vocab);

    if (m->has_composition) {
        cJSON *c = cJSON_AddObjectToObject(o, "composition");
        if (m->expected_type >= 0) {
            cJSON_AddNumberToObject(c, "on_label_pct", round_to(m->on_label_pct, 0.01));
            cJSON_AddStringToObject(c, "expected_type",
                                    type_name((uint32_t)m->expected_type, tn, sizeof tn));
        } else {
            cJSON_AddNullToObject(c, "on_label_pct");
            cJSON_AddNullToObject(c, "expected_type");
        }
        cJSON_AddNumberToObject(c, "bits_per_weight", round_to(m->bits_per_weight, 0.0001));
        add_u64(c, "repeating_bytes", m->layer_bytes);
        uint64_t nt = 0;
        for (uint32_t i = 0; i < m->n_layer_types; i++)
            nt += m->layer_types[i].n_tensors;
        add_u64(c, "repeating_tensors", nt);
        cJSON *ty = cJSON_AddObjectToObject(c, "types");
        for (uint32_t i = 0; ty && i < m->n_layer_types; i++)
            cJSON_AddNumberToObject(ty, type_name(m->layer_types[i].type, tn, sizeof tn),
                                    round_to(pct(m->layer_types[i].bytes, m->layer_bytes), 0.1));
    } else {
        cJSON_AddNullToObject(o, "composition");
    }

    cJSON *types = cJSON_AddArrayToObject(o, "types");
    for (uint32_t i = 0; types && i < m->n_types; i++) {
        const rl_gguf_type_bytes *t = &m->types[i];
        cJSON *e = cJSON_CreateObject();
        if (!e)
            break;
        cJSON_AddStringToObject(e, "type", type_name(t->type, tn, sizeof tn));
        add_u64(e, "n_tensors", t->n_tensors);
        if (rl_ggml_type_get(t->type) && (m->sizes_known || t->bytes > 0 || t->elements == 0))
            add_u64(e, "bytes", t->bytes);
        else
            cJSON_AddNullToObject(e, "bytes");
        add_u64(e, "elements", t->elements);
        cJSON_AddItemToArray(types, e);
    }

    if (parts) {
        cJSON *ts = cJSON_AddArrayToObject(o, "tensors");
        for (uint32_t s = 0; ts && s < m->n_shards; s++) {
            const rl_gguf_file *f = parts[s];
            for (uint64_t i = 0; i < f->n_tensors; i++) {
                const rl_gguf_tensor *t = &f->tensors[i];
                cJSON *e = cJSON_CreateObject();
                if (!e)
                    break;
                cJSON_AddStringToObject(e, "name", t->name);
                cJSON_AddStringToObject(e, "type", type_name(t->type, tn, sizeof tn));
                cJSON *dims = cJSON_AddArrayToObject(e, "dims");
                for (uint32_t d = 0; dims && d < t->n_dims; d++)
                    cJSON_AddItemToArray(dims, cJSON_CreateNumber((double)t->ne[d]));
                add_u64(e, "elements", t->n_elements);
                if (t->sized)
                    add_u64(e, "bytes", t->n_bytes);
                else
                    cJSON_AddNullToObject(e, "bytes");
                add_u64(e, "offset", t->offset);
                if (m->n_shards > 1)
                    add_u64(e, "shard", s + 1);
                cJSON_AddItemToArray(ts, e);
            }
        }
    }
    return o;
}

/* ---- the command --------------------------------------------------------------------- */

/* A failure of one file: the previous pending message is printed, this one kept for main. */
static void note_failure(rl_error *pending, bool *any, const rl_error *e)
{
    if (*any && pending->msg[0])
        fprintf(stderr, "llama-roofline inspect: error: %s\n", pending->msg);
    *pending = *e;
    *any = true;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    bool json = false, tensors = false, flags_done = false;
    strlist files = {0};
    char given[512] = "";
    size_t given_len = 0;
    rl_error pending = {RL_OK, ""};
    bool any_failed = false;
    rl_status worst = RL_OK;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!flags_done && strcmp(a, "--") == 0) {
            flags_done = true;
            continue;
        }
        if (!flags_done && strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (!flags_done && strcmp(a, "--tensors") == 0) {
            tensors = true;
            continue;
        }
        if (!flags_done && a[0] == '-' && a[1]) {
            sl_free(&files);
            return rl_fail(err, RL_EINPUT,
                           "unknown option '%s' (see llama-roofline inspect --help)", a);
        }
        if (given_len < sizeof given) {
            int w = snprintf(given + given_len, sizeof given - given_len, "%s%s",
                             given_len ? ", " : "", a);
            given_len = w > 0 ? given_len + (size_t)w : given_len;
        }
        struct stat sb;
        if (stat(a, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            rl_error e = {RL_OK, ""};
            rl_status s = expand_dir(a, &files, &e);
            if (s == RL_EINTERNAL) {
                sl_free(&files);
                *err = e;
                return s;
            }
            if (s != RL_OK) {
                note_failure(&pending, &any_failed, &e);
                worst = RL_EINPUT;
            }
        } else if (!sl_push(&files, rl_strdup(a))) {
            sl_free(&files);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
    }
    if (files.n == 0) {
        sl_free(&files);
        if (any_failed) {
            *err = pending;
            return RL_EINPUT;
        }
        if (!given[0])
            return rl_fail(err, RL_EINPUT,
                           "nothing to inspect: give one or more GGUF files or "
                           "directories (see llama-roofline inspect --help)");
        return rl_fail(err, RL_EINPUT,
                       "nothing to inspect: %s matched no .gguf files (give a "
                       "model file or a directory that holds some)",
                       given);
    }

    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    if (json && !arr) {
        sl_free(&files);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    for (size_t i = 0; i < files.n; i++) {
        if (rl_interrupted) {
            worst = RL_EINTERRUPTED;
            break;
        }
        rl_gguf_model m;
        rl_error e = {RL_OK, ""};
        rl_status s = rl_gguf_model_load(files.v[i], &m, &e);
        rl_gguf_file **parts = NULL;
        if (s == RL_OK && tensors)
            s = read_parts(&m, &parts, &e);
        if (s != RL_OK) {
            note_failure(&pending, &any_failed, &e);
            if (worst != RL_EINTERNAL)
                worst = s == RL_EINTERNAL ? RL_EINTERNAL : RL_EINPUT;
            rl_gguf_model_free(&m);
            continue;
        }
        if (json) {
            cJSON *o = model_json(&m, parts);
            if (o)
                cJSON_AddItemToArray(arr, o);
        } else {
            print_human(&m, parts);
            fflush(stdout);
        }
        free_parts(parts, m.n_shards);
        rl_gguf_model_free(&m);
    }
    sl_free(&files);

    if (json) {
        char *text = cJSON_Print(arr);
        cJSON_Delete(arr);
        if (!text) {
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        printf("%s\n", text);
        free(text);
    }
    fflush(stdout);
    if (worst == RL_EINTERRUPTED)
        return rl_fail(err, RL_EINTERRUPTED, "interrupted");
    if (any_failed) {
        *err = pending;
        err->status = worst;
        return worst;
    }
    return RL_OK;
}

const rl_command rl_cmd_inspect = {
    "inspect",
    "what a GGUF model really holds: label vs content, shapes, bytes read per token",
    usage,
    run,
};
