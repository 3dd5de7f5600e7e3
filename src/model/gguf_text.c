/* SPDX-License-Identifier: MIT */
/* gguf_text.c: the `inspect` report for people and its pieces. See gguf_text.h. Every line is
 * formatted with rl_snprintf (C locale) into a stack buffer and written with fputs; strings
 * from the file or its name are escaped with rl_tty_escape first. Allocates nothing. */
#include "model/gguf_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "model/ggml_types.h"
#include "base/rl_text.h"

#define RULE_W 72
#define WRAP_W 68
#define LINE_MAX_BYTES 4096 /* longer than any line below: escaped names are bounded */

/* One formatted piece of output, in the C locale. */
__attribute__((format(printf, 2, 3))) static void say(FILE *out, const char *fmt, ...)
{
    char line[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    rl_vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rl_tty_puts(out, line);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *rl_gguf_type_name(uint32_t type, char *buf, size_t cap)
{
    const rl_ggml_type_info *ti = rl_ggml_type_get(type);
    if (ti)
        return ti->name;
    rl_snprintf(buf, cap, "type%" PRIu32, type);
    return buf;
}

bool rl_gguf_type_bytes_known(const rl_gguf_model *m, const rl_gguf_type_bytes *t)
{
    return rl_ggml_type_get(t->type) && (m->sizes_known || t->bytes > 0 || t->elements == 0);
}

void rl_gguf_layer_mix(const rl_gguf_model *m, int skip, int max, char *buf, size_t cap)
{
    size_t o = 0;
    int shown = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    for (uint32_t i = 0; i < m->n_layer_types && shown < max; i++) {
        const rl_gguf_type_bytes *t = &m->layer_types[i];
        if (skip >= 0 && t->type == (uint32_t)skip)
            continue;
        char tn[RL_GGUF_TYPE_NAME_MAX];
        int w =
            rl_snprintf(buf + o, cap - o, "%s%s %.0f%%", shown ? ", " : "",
                        rl_gguf_type_name(t->type, tn, sizeof tn), pct(t->bytes, m->layer_bytes));
        if (w < 0 || (size_t)w >= cap - o) {
            buf[o] = '\0'; /* whole items only */
            break;
        }
        o += (size_t)w;
        shown++;
    }
}

void rl_gguf_fmt_dims(const rl_gguf_tensor *t, char *buf, size_t cap)
{
    size_t o = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    for (uint32_t d = 0; d < t->n_dims && d < GGUF_MAX_DIMS; d++) {
        int w = rl_snprintf(buf + o, cap - o, "%s%" PRIu64, d ? "x" : "", t->ne[d]);
        if (w < 0 || (size_t)w >= cap - o) {
            buf[o] = '\0'; /* whole dimensions only */
            break;
        }
        o += (size_t)w;
    }
}

bool rl_gguf_label_misleading(const rl_gguf_model *m)
{
    return m->has_composition && m->expected_type >= 0 && m->on_label_pct < 90.0;
}

/* Append to buf at *o; once the text no longer fits, later pieces are left out. */
__attribute__((format(printf, 4, 5))) static void append(char *buf, size_t cap, size_t *o,
                                                         const char *fmt, ...)
{
    if (*o >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = rl_vsnprintf(buf + *o, cap - *o, fmt, ap);
    va_end(ap);
    *o = w < 0 ? cap : *o + (size_t)w;
}

bool rl_gguf_label_explanation(const rl_gguf_model *m, char *buf, size_t cap)
{
    if (cap == 0)
        return false;
    buf[0] = '\0';
    if (!rl_gguf_label_misleading(m))
        return false;
    char want_b[RL_GGUF_TYPE_NAME_MAX], head_b[RL_GGUF_TYPE_NAME_MAX], mix[256];
    const char *want = rl_gguf_type_name((uint32_t)m->expected_type, want_b, sizeof want_b);
    rl_gguf_layer_mix(m, m->expected_type, 3, mix, sizeof mix);
    size_t o = 0;
    if (m->on_label_pct < 1.0)
        append(buf, cap, &o,
               "This file is called %s, yet its repeating layers hold no %s at all: they are %s.",
               m->label, want, mix);
    else
        append(buf, cap, &o,
               "Only %.0f%% of the repeating-layer bytes are %s, the type the label %s names; "
               "the rest is mostly %s.",
               m->on_label_pct, want, m->label, mix);
    if (m->head_type != UINT32_MAX)
        append(buf, cap, &o, " The output head is %s.",
               rl_gguf_type_name(m->head_type, head_b, sizeof head_b));
    append(buf, cap, &o,
           " On average the layers store %.2f bits per weight. A label such as %s names a "
           "quantization recipe, not the type of each tensor: when a tensor's row length does "
           "not divide by the block size of the named type (256 for the k-quants), "
           "llama-quantize stores that tensor in another type, and which one depends on whether "
           "it started from F16/BF16 or from an already quantized file. The file name cannot "
           "show this, and in small models the substitutes can outweigh the named type. Compare "
           "files by bits per weight and bytes read per token, not by their labels.",
           m->bits_per_weight, m->label);
    return true;
}

/* ---- the report ---------------------------------------------------------------------- */

static void rule(FILE *out, char c, int indent)
{
    char line[RULE_W + 2];
    memset(line, ' ', (size_t)indent);
    memset(line + indent, c, (size_t)(RULE_W - indent));
    line[RULE_W] = '\n';
    line[RULE_W + 1] = '\0';
    rl_tty_puts(out, line);
}

static void section(FILE *out, const char *title)
{
    say(out, "\n  %s\n", title);
    rule(out, '-', 2);
}

/* text wrapped at width columns, each line indented by two spaces */
static void wrap(FILE *out, const char *text, int width)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *brk = NULL;
        int col = 0;
        while (p[col] && col < width) {
            if (p[col] == ' ')
                brk = p + col;
            col++;
        }
        const char *end = !p[col] ? p + col : brk ? brk : p + col;
        say(out, "  %.*s\n", (int)(end - p), p);
        p = end;
    }
}

static void print_facts(FILE *out, const rl_gguf_model *m)
{
    char a[64], b[64], tn[RL_GGUF_TYPE_NAME_MAX], label[160], arch[300];
    rl_tty_escape(m->label[0] ? m->label : "unknown", label, sizeof label);
    say(out, "  label       : %s", label);
    if (m->architecture[0])
        say(out, "   architecture: %s", rl_tty_escape(m->architecture, arch, sizeof arch));
    rl_tty_puts(out, "\n");
    if (m->has_composition) {
        if (m->expected_type >= 0)
            say(out, "  actually    : %.0f%% %s in the repeating layers, %.2f bits per weight\n",
                m->on_label_pct, rl_gguf_type_name((uint32_t)m->expected_type, tn, sizeof tn),
                m->bits_per_weight);
        else
            say(out, "  actually    : %.2f bits per weight in the repeating layers\n",
                m->bits_per_weight);
        char mix[256];
        rl_gguf_layer_mix(m, -1, 6, mix, sizeof mix);
        say(out, "  layers hold : %s (share of repeating-layer bytes)\n", mix);
    }
    rl_fmt_mb(a, sizeof a, m->file_bytes);
    rl_fmt_mib(b, sizeof b, m->file_bytes);
    say(out, "  file        : %s (%s), %" PRIu64 " tensors", a, b, m->n_tensors);
    if (m->n_shards > 1)
        say(out, " in %" PRIu32 " parts", m->n_shards);
    say(out, ", GGUF v%" PRIu32 "\n", m->version);
    rl_fmt_count(a, sizeof a, m->n_params);
    say(out, "  parameters  : %s (%" PRIu64 ")\n", a, m->n_params);
    if (m->n_layer || m->n_embd) {
        say(out,
            "  shape       : n_layer %" PRIu64 ", n_embd %" PRIu64 ", n_head %" PRIu64
            ", n_head_kv %" PRIu64 "%s, head_dim %" PRIu64 ", n_ctx %" PRIu64,
            m->n_layer, m->n_embd, m->n_head, m->n_head_kv,
            m->head_count_kv_per_layer ? " (largest; varies by layer)" : "", m->head_dim,
            m->context_length);
        if (m->n_vocab)
            say(out, ", n_vocab %" PRIu64, m->n_vocab);
        rl_tty_puts(out, "\n");
    }
    if (m->kv_bytes_per_token) {
        say(out, "  KV cache    : %" PRIu64 " bytes per token of context (f16 K and V",
            m->kv_bytes_per_token);
        if (m->key_length != m->value_length)
            say(out, ", K %" PRIu64 " and V %" PRIu64 " wide", m->key_length, m->value_length);
        if (m->head_count_kv_per_layer)
            rl_tty_puts(out, ", KV heads summed over the layers");
        rl_tty_puts(out, ")\n");
    } else {
        rl_tty_puts(out, "  KV cache    : unknown (the metadata gives no attention shape)\n");
    }
    if (m->is_moe) {
        say(out, "  experts     : %" PRIu64 " of %" PRIu64 " used per token", m->expert_used_count,
            m->expert_count);
        if (m->sizes_known && m->expert_used_count > 0) {
            rl_fmt_mb(a, sizeof a, m->expert_bytes);
            say(out, "; expert tensors (%s) counted at %" PRIu64 "/%" PRIu64 " of their bytes", a,
                m->expert_used_count < m->expert_count ? m->expert_used_count : m->expert_count,
                m->expert_count);
        }
        rl_tty_puts(out, "\n");
    }
    if (!m->sizes_known) {
        rl_tty_puts(out, "  per token   : not computable, at least one tensor uses a ggml type "
                         "this build does not know\n");
        return;
    }
    rl_fmt_mb(a, sizeof a, m->streamed_bytes);
    rl_fmt_mib(b, sizeof b, m->streamed_bytes);
    say(out, "  per token   : %s read (%s), %.0f%% of the file\n", a, b,
        pct(m->streamed_bytes, m->file_bytes));
    if (m->head_type != UINT32_MAX) {
        rl_fmt_mb(b, sizeof b, m->head_bytes);
        say(out, "  output head : %s, %s, %.0f%% of what is read per token%s\n",
            rl_gguf_type_name(m->head_type, tn, sizeof tn), b,
            pct(m->head_bytes, m->streamed_bytes),
            m->tied_embeddings ? " (tied to the embedding)" : "");
    } else {
        rl_tty_puts(out,
                    "  output head : none found (no output.weight and no token_embd.weight)\n");
    }
}

static void print_types(FILE *out, const rl_gguf_model *m)
{
    section(out, "TENSOR TYPES");
    say(out, "    %-10s %9s %12s %8s\n", "type", "tensors", "MB", "share");
    for (uint32_t i = 0; i < m->n_types; i++) {
        const rl_gguf_type_bytes *t = &m->types[i];
        char tn[RL_GGUF_TYPE_NAME_MAX];
        const char *name = rl_gguf_type_name(t->type, tn, sizeof tn);
        if (!rl_gguf_type_bytes_known(m, t)) {
            say(out, "    %-10s %9" PRIu64 " %12s %8s\n", name, t->n_tensors, "?", "?");
            continue;
        }
        double mb = (double)t->bytes / 1e6;
        if (m->sizes_known)
            say(out, "    %-10s %9" PRIu64 " %12.*f %7.1f%%\n", name, t->n_tensors, mb < 10 ? 3 : 0,
                mb, pct(t->bytes, m->tensor_bytes));
        else
            say(out, "    %-10s %9" PRIu64 " %12.*f %8s\n", name, t->n_tensors, mb < 10 ? 3 : 0, mb,
                "?");
    }
}

static void print_tensors(FILE *out, const rl_gguf_model *m)
{
    section(out, "EVERY TENSOR");
    for (uint32_t s = 0; m->files && s < m->n_shards; s++) {
        const rl_gguf_file *f = m->files[s];
        for (uint64_t i = 0; i < f->n_tensors; i++) {
            const rl_gguf_tensor *t = &f->tensors[i];
            char dims[96], name[256], tn[RL_GGUF_TYPE_NAME_MAX];
            rl_gguf_fmt_dims(t, dims, sizeof dims);
            rl_tty_escape(t->name, name, sizeof name);
            const char *type = rl_gguf_type_name(t->type, tn, sizeof tn);
            if (t->sized)
                say(out, "  %-40s %-10s %-20s %10.3f MB\n", name, type, dims,
                    (double)t->n_bytes / 1e6);
            else
                say(out, "  %-40s %-10s %-20s %10s\n", name, type, dims, "? MB");
        }
    }
}

void rl_gguf_print_report(FILE *out, const rl_gguf_model *m, bool tensors)
{
    const char *path = m->path ? m->path : "";
    const char *base = strrchr(path, '/');
    char base_e[1100], name_e[600];
    rl_tty_escape(base ? base + 1 : path, base_e, sizeof base_e);
    rl_tty_escape(m->name, name_e, sizeof name_e);
    rule(out, '=', 0);
    say(out, "%s%s%s\n", base_e, m->name[0] ? "  -  " : "", name_e);
    rule(out, '=', 0);
    print_facts(out, m);
    print_types(out, m);
    char text[RL_GGUF_EXPLANATION_MAX], shown[2 * RL_GGUF_EXPLANATION_MAX];
    if (rl_gguf_label_explanation(m, text, sizeof text)) {
        section(out, "WHAT THE LABEL MEANS HERE");
        wrap(out, rl_tty_escape(text, shown, sizeof shown), WRAP_W);
    }
    if (tensors)
        print_tensors(out, m);
    rl_tty_puts(out, "\n");
}
