/* SPDX-License-Identifier: MIT */
/* html_facts.c: the report's lower half as words and small tables (html_facts.h). The table
 * of presentation rules below is the one place a bundle key gets its label, unit and format on
 * the page; a key without a rule reads as its words and its unit suffix. */
#include "render/html_facts.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_text.h"

/* FM_HIDE: a key that repeats another in other units (bw_eff_bytes_s beside bw_eff_GBs) */
typedef enum { FM_AUTO, FM_NUM, FM_BYTES, FM_HIDE } fact_fmt;

typedef struct {
    const char *key, *label, *unit;
    fact_fmt fmt;
} fact_rule;

/* key -> label, unit, format. Units are printed after the number and in the label. */
static const fact_rule rules[] = {
    /* the machine */
    {"os", "OS", NULL, FM_AUTO},
    {"os_release", "OS release", NULL, FM_AUTO},
    {"kernel", "Kernel", NULL, FM_AUTO},
    {"arch", "Architecture", NULL, FM_AUTO},
    {"machine", "Machine", NULL, FM_AUTO},
    {"cpu", "CPU", NULL, FM_AUTO},
    {"logical_cores", "Logical cores", NULL, FM_AUTO},
    {"physical_cores", "Physical cores", NULL, FM_AUTO},
    {"packages", "Sockets", NULL, FM_AUTO},
    {"numa_nodes", "NUMA nodes", NULL, FM_AUTO},
    {"threads_per_core", "Threads per core", NULL, FM_AUTO},
    {"smt_active", "SMT active", NULL, FM_AUTO},
    {"caches", "Caches", NULL, FM_AUTO},
    {"level", "Level", NULL, FM_AUTO},
    {"type", "Type", NULL, FM_AUTO},
    {"size_bytes", "Size", NULL, FM_BYTES},
    {"shared_cpus", "Shared by (CPUs)", NULL, FM_AUTO},
    {"llc_bytes", "Last-level cache", NULL, FM_BYTES},
    {"ram_bytes", "RAM", NULL, FM_BYTES},
    {"ram_available_bytes", "RAM available", NULL, FM_BYTES},
    {"governor", "CPU frequency governor", NULL, FM_AUTO},
    {"thp", "Transparent huge pages", NULL, FM_AUTO},
    {"vm", "Virtual machine", NULL, FM_AUTO},
    {"hypervisor", "Hypervisor", NULL, FM_AUTO},
    {"product_name", "Product", NULL, FM_AUTO},
    {"python", "Python", NULL, FM_AUTO},
    /* llama.cpp and the settings */
    {"build_commit", "Build commit", NULL, FM_AUTO},
    {"build_number", "Build number", NULL, FM_AUTO},
    {"version", "Version", NULL, FM_AUTO},
    {"llama_bench", "llama-bench", NULL, FM_AUTO},
    {"backends", "Backends", NULL, FM_AUTO},
    {"gpu_info", "GPU", NULL, FM_AUTO},
    {"cpu_info", "CPU (as llama.cpp names it)", NULL, FM_AUTO},
    {"threads", "Thread counts", NULL, FM_AUTO},
    {"depths", "KV depths", "tokens", FM_AUTO},
    {"n_prompt", "Prompt tokens", NULL, FM_AUTO},
    {"n_gen", "Generated tokens", NULL, FM_AUTO},
    {"reps", "Repetitions", NULL, FM_AUTO},
    {"n_gpu_layers", "GPU layers (-ngl)", NULL, FM_AUTO},
    {"gpu_layers", "GPU layers (-ngl)", NULL, FM_AUTO},
    {"bench_args", "Extra llama-bench arguments", NULL, FM_AUTO},
    {"extra_bench_args", "Extra llama-bench arguments", NULL, FM_AUTO},
    {"ctx", "Context size", "tokens", FM_AUTO},
    {"timeout_s", "Timeout per invocation", "s", FM_NUM},
    {"bytes_convention", "Bytes per token", NULL, FM_AUTO},
    {"target_ci_pct", "Target CI (share of the mean)", "%", FM_NUM},
    {"max_reps", "Most repetitions", NULL, FM_AUTO},
    /* the memory ceiling */
    {"kind", "Kind", NULL, FM_AUTO},
    {"peak_read_GBs", "Ceiling", "GB/s", FM_NUM},
    {"kernel_name", "Kernel", NULL, FM_AUTO},
    {"best_kernel", "Best kernel", NULL, FM_AUTO},
    {"best_threads", "Threads of the best kernel", NULL, FM_AUTO},
    {"isa", "Instruction set", NULL, FM_AUTO},
    {"isa_trial_GBs", "Trial of each instruction set", "GB/s", FM_NUM},
    {"isa_selection", "How the instruction set was chosen", NULL, FM_AUTO},
    {"isa_available", "Instruction sets available", NULL, FM_AUTO},
    {"working_set_bytes", "Working set", NULL, FM_BYTES},
    {"requested_working_set_bytes", "Working set asked for", NULL, FM_BYTES},
    {"working_set_fallback", "Working set fallback", NULL, FM_AUTO},
    {"working_set_mb", "Working set", "MiB", FM_NUM},
    {"median_GBs", "Median sample of the best kernel", "GB/s", FM_NUM},
    {"stability", "Stability (median over best)", NULL, FM_NUM},
    {"single_thread_GBs", "One thread", "GB/s", FM_NUM},
    {"saturated_GBs", "Saturated", "GB/s", FM_NUM},
    {"saturated_threads", "Threads when saturated", NULL, FM_AUTO},
    {"saturation_threads", "Fewest threads that saturate", NULL, FM_AUTO},
    {"copy_GBs", "Copy (not in the ceiling: write-allocate traffic)", "GB/s", FM_NUM},
    {"copy_threads", "Threads of the best copy", NULL, FM_AUTO},
    {"by_threads", "By thread count", "GB/s", FM_NUM},
    {"complete", "Complete", NULL, FM_AUTO},
    {"quick", "Quick sweep", NULL, FM_AUTO},
    {"sample_target_s", "Target time per sample", "s", FM_NUM},
    {"thread_counts", "Thread counts", NULL, FM_AUTO},
    {"pinned", "Threads pinned to cores", NULL, FM_AUTO},
    {"huge_pages_advised", "Huge pages advised", NULL, FM_AUTO},
    {"elapsed_s", "Elapsed", "s", FM_NUM},
    {"method", "Method", NULL, FM_AUTO},
    {"unstable", "Unstable", NULL, FM_AUTO},
    {"source", "Source", NULL, FM_AUTO},
    /* an imported source's own record */
    {"imported", "As the source file states it", NULL, FM_AUTO},
    {"format", "Format", NULL, FM_AUTO},
    {"file", "File", NULL, FM_AUTO},
    {"attribution", "Attribution", NULL, FM_AUTO},
    {"notes", "Notes", NULL, FM_AUTO},
    {"path", "Path", NULL, FM_AUTO},
    {"schema_version", "Schema version", NULL, FM_AUTO},
    {"tool_version", "Tool version", NULL, FM_AUTO},
    {"generated_utc", "Generated", "UTC", FM_AUTO},
    {"reanalyzed_utc", "Re-analysed", "UTC", FM_AUTO},
    {"analysis", "Its analysis", NULL, FM_AUTO},
    {"bw_eff_GBs", "Effective bandwidth", "GB/s", FM_NUM},
    {"bw_eff_bytes_s", NULL, NULL, FM_HIDE},
    {"bw_bytes_s", NULL, NULL, FM_HIDE},
    {"peak_read_bytes_s", NULL, NULL, FM_HIDE},
    {"r2", "R\xC2\xB2 of the fit", NULL, FM_NUM},
    {"n_points", "Points", NULL, FM_AUTO},
    {"n_models_ok", "Models measured", NULL, FM_AUTO},
    {"bytes", "Bytes per token", NULL, FM_BYTES},
    {"decode_ts", "Decode", "tok/s", FM_NUM},
    {"quant", "Quantization", NULL, FM_AUTO},
    {"name", "Name", NULL, FM_AUTO},
};

/* Unit suffixes of keys without a rule: "copy_GBs" is a rate, "foo_bytes" a size. */
static const fact_rule suffixes[] = {
    {"_GBs", NULL, "GB/s", FM_NUM},   {"_bytes_s", NULL, "bytes/s", FM_NUM},
    {"_bytes", NULL, NULL, FM_BYTES}, {"_pct", NULL, "%", FM_NUM},
    {"_ms", NULL, "ms", FM_NUM},      {"_s", NULL, "s", FM_NUM},
    {"_mb", NULL, "MB", FM_NUM},      {"_utc", NULL, "UTC", FM_AUTO},
};

/* The rule of key; for a key without one, its suffix's unit and format (label NULL) and in
 * *stem_len the length of the key without the suffix. */
static fact_rule rule_of(const char *key, size_t *stem_len)
{
    size_t n = key ? strlen(key) : 0;
    if (stem_len)
        *stem_len = n;
    for (size_t i = 0; key && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].key, key) == 0)
            return rules[i];
    for (size_t i = 0; key && i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i].key);
        if (n > k && strcmp(key + n - k, suffixes[i].key) == 0) {
            if (stem_len)
                *stem_len = n - k;
            return suffixes[i];
        }
    }
    return (fact_rule){key, NULL, NULL, FM_AUTO};
}

/* The label of key, with its unit when with_unit (lists and tables: their values go without). */
static void label_of(const char *key, bool with_unit, char *buf, size_t cap)
{
    size_t stem = 0;
    fact_rule r = rule_of(key, &stem);
    char words[128];
    if (r.label) {
        rl_snprintf(words, sizeof words, "%s", r.label);
    } else { /* its words: "saturation_threads" -> "Saturation threads" */
        size_t k = 0;
        for (; key && k < stem && k + 1 < sizeof words; k++)
            words[k] = key[k] == '_' ? ' ' : key[k];
        words[k] = '\0';
        words[0] = (char)toupper((unsigned char)words[0]);
    }
    if (r.unit && with_unit)
        rl_snprintf(buf, cap, "%s (%s)", words, r.unit);
    else
        rl_snprintf(buf, cap, "%s", words);
}

void rl_html_fact_label(const char *key, char *buf, size_t cap)
{
    label_of(key, true, buf, cap);
}

/* v by the rule r: sizes in IEC units, whole numbers whole, others to 3 digits, the unit. */
static void number_by(fact_rule r, double v, bool with_unit, char *buf, size_t cap)
{
    char n[48];
    if (r.fmt == FM_BYTES && v >= 0 && v < 1.8e19) {
        rl_fmt_iec(buf, cap, (uint64_t)v);
        return;
    }
    if (r.fmt == FM_AUTO && v == floor(v) && fabs(v) < 1e15)
        rl_snprintf(n, sizeof n, "%.0f", v);
    else
        rl_fmt_sig3(n, sizeof n, v);
    if (!with_unit)
        rl_snprintf(buf, cap, "%s", n);
    else if (r.unit && strcmp(r.unit, "%") == 0)
        rl_snprintf(buf, cap, "%s%%", n);
    else if (r.unit)
        rl_snprintf(buf, cap, "%s %s", n, r.unit);
    else
        rl_snprintf(buf, cap, "%s", n);
}

void rl_html_fact_number(const char *key, double v, char *buf, size_t cap)
{
    number_by(rule_of(key, NULL), v, true, buf, cap);
}

static void value_in(rl_html *h, xmlNodePtr dd, const char *key, const cJSON *v, fact_rule up,
                     int depth);
static void facts_at(rl_html *h, xmlNodePtr parent, const cJSON *o, const char *const *skip,
                     int depth);
static void words_line(rl_html *h, xmlNodePtr parent, const cJSON *o, fact_rule up, int depth);

/* A scalar as text; numbers by the key's rule, or by up's (the enclosing key's) when the key
 * has none of its own (by_threads' "sum": GB/s). */
static void scalar(rl_html *h, xmlNodePtr parent, const char *key, const cJSON *v, fact_rule up,
                   bool with_unit)
{
    char a[96];
    if (cJSON_IsString(v)) {
        rl_html_text(h, parent, *v->valuestring ? v->valuestring : "(empty)");
    } else if (cJSON_IsBool(v)) {
        rl_html_text(h, parent, cJSON_IsTrue(v) ? "yes" : "no");
    } else if (cJSON_IsNumber(v)) {
        fact_rule r = rule_of(key, NULL);
        if (!r.label && !r.unit && r.fmt == FM_AUTO)
            r = up;
        number_by(r, v->valuedouble, with_unit, a, sizeof a);
        rl_html_text(h, parent, a);
    } else {
        rl_html_el_text(h, parent, "span", "missing", "unknown");
    }
}

static bool all_of(const cJSON *v, cJSON_bool (*is)(const cJSON *))
{
    const cJSON *it;
    cJSON_ArrayForEach(it, v) if (!is(it)) return false;
    return true;
}

static cJSON_bool is_scalar(const cJSON *v)
{
    return !cJSON_IsArray(v) && !cJSON_IsObject(v);
}

/* Objects (an array's, or an object's members) as one small table: a column per key (in first
 * seen order, at most 12), a first column of member names when named. */
static void small_table(rl_html *h, xmlNodePtr parent, const cJSON *v, fact_rule up, bool named)
{
    const char *cols[12];
    size_t nc = 0;
    const cJSON *row, *c;
    cJSON_ArrayForEach(row, v) cJSON_ArrayForEach(c, row)
    {
        bool seen = false;
        for (size_t i = 0; i < nc; i++)
            seen |= strcmp(cols[i], c->string) == 0;
        if (!seen && nc < 12 && c->string && rule_of(c->string, NULL).fmt != FM_HIDE)
            cols[nc++] = c->string;
    }
    xmlNodePtr wrap = rl_html_el(h, parent, "div", "table-wrap");
    xmlNodePtr t = rl_html_el(h, wrap, "table", "facts-table");
    xmlNodePtr tr = rl_html_el(h, rl_html_el(h, t, "thead", NULL), "tr", NULL);
    char label[160];
    if (named)
        rl_html_el(h, tr, "th", NULL);
    for (size_t i = 0; i < nc; i++) {
        rl_html_fact_label(cols[i], label, sizeof label);
        rl_html_el_text(h, tr, "th", NULL, label);
    }
    xmlNodePtr tb = rl_html_el(h, t, "tbody", NULL);
    cJSON_ArrayForEach(row, v)
    {
        tr = rl_html_el(h, tb, "tr", NULL);
        if (named)
            rl_html_el_text(h, tr, "th", NULL, row->string ? row->string : "");
        for (size_t i = 0; i < nc; i++) {
            const cJSON *cell = rl_json_get(row, cols[i]);
            xmlNodePtr td = rl_html_el(h, tr, "td", cJSON_IsNumber(cell) ? "num" : NULL);
            if (is_scalar(cell))
                scalar(h, td, cols[i], cell, up, false);
            else if (cell)
                value_in(h, td, cols[i], cell, up, 3);
        }
    }
}

static void value_in(rl_html *h, xmlNodePtr dd, const char *key, const cJSON *v, fact_rule up,
                     int depth)
{
    fact_rule own = rule_of(key, NULL);
    if (own.label || own.unit || own.fmt != FM_AUTO)
        up = own;
    bool avl = true;
    if (is_scalar(v)) {
        scalar(h, dd, key, v, up, true);
    } else if (cJSON_IsObject(v) && rl_json_get_bool(v, "available", &avl) && !avl) {
        const char *why = rl_json_get_str(v, "reason");
        rl_html_el_textf(h, dd, "span", "missing", "unavailable: %s", why ? why : "unknown");
    } else if (cJSON_GetArraySize(v) == 0) {
        rl_html_el_text(h, dd, "span", "missing", "none");
    } else if (cJSON_IsArray(v) ? all_of(v, is_scalar) : all_of(v, cJSON_IsNumber)) {
        /* "1, 2, 4" or "avx2 42.7; avx512 60.3" (the unit in the label) */
        const cJSON *it;
        int i = 0;
        cJSON_ArrayForEach(it, v)
        {
            if (i++)
                rl_html_text(h, dd, cJSON_IsObject(v) ? "; " : ", ");
            if (cJSON_IsObject(v)) /* member names are data here ("avx2", "1") */
                rl_html_textf(h, dd, "%s ", it->string ? it->string : "?");
            scalar(h, dd, cJSON_IsObject(v) ? NULL : key, it, up, false);
        }
    } else if (depth > 6) { /* deeper than a page can show: the embedded bundle has it */
        rl_html_el_text(h, dd, "span", "missing", "(in the embedded bundle)");
    } else if (depth == 0 && all_of(v, cJSON_IsObject)) { /* caches; a sweep by threads */
        small_table(h, dd, v, up, cJSON_IsObject(v));
    } else if (cJSON_IsObject(v) && depth < 1) {
        facts_at(h, dd, v, NULL, depth + 1);
    } else if (cJSON_IsObject(v)) { /* deep inside a record: one line of words */
        words_line(h, dd, v, up, depth);
    } else if (depth >= 1) { /* an array inside a record: its items in parentheses */
        const cJSON *it;
        int i = 0;
        cJSON_ArrayForEach(it, v)
        {
            rl_html_text(h, dd, i++ ? "; (" : "(");
            value_in(h, dd, key, it, up, depth + 1);
            rl_html_text(h, dd, ")");
        }
    } else { /* a mixed array: one line each */
        xmlNodePtr ul = rl_html_el(h, dd, "ul", "fact-list");
        const cJSON *it;
        cJSON_ArrayForEach(it, v)
            value_in(h, rl_html_el(h, ul, "li", NULL), key, it, up, depth + 1);
    }
}

/* An object as "Label value; Label value" (nested ones the same, in parentheses). */
static void words_line(rl_html *h, xmlNodePtr parent, const cJSON *o, fact_rule up, int depth)
{
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, o)
    {
        if (!it->string || rule_of(it->string, NULL).fmt == FM_HIDE)
            continue;
        char label[160];
        label_of(it->string, !is_scalar(it), label, sizeof label);
        rl_html_textf(h, parent, "%s%s ", i++ ? "; " : "", label);
        if (is_scalar(it)) {
            scalar(h, parent, it->string, it, up, true);
        } else {
            rl_html_text(h, parent, "(");
            value_in(h, parent, it->string, it, up, depth + 1);
            rl_html_text(h, parent, ")");
        }
    }
}

void rl_html_fact_value(rl_html *h, xmlNodePtr dd, const char *key, const cJSON *v)
{
    value_in(h, dd, key, v, (fact_rule){NULL, NULL, NULL, FM_AUTO}, 0);
}

static void facts_at(rl_html *h, xmlNodePtr parent, const cJSON *o, const char *const *skip,
                     int depth)
{
    if (!cJSON_IsObject(o))
        return;
    xmlNodePtr dl = rl_html_el(h, parent, "dl", "facts");
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        if (!it->string)
            continue;
        bool skipped = false;
        for (const char *const *s = skip; s && *s; s++)
            skipped |= strcmp(*s, it->string) == 0;
        if (skipped || rule_of(it->string, NULL).fmt == FM_HIDE)
            continue;
        char label[160];
        label_of(it->string, !is_scalar(it), label, sizeof label);
        rl_html_el_text(h, dl, "dt", NULL, label);
        value_in(h, rl_html_el(h, dl, "dd", NULL), it->string, it,
                 (fact_rule){NULL, NULL, NULL, FM_AUTO}, depth);
    }
}

void rl_html_facts(rl_html *h, xmlNodePtr parent, const cJSON *o, const char *const *skip)
{
    facts_at(h, parent, o, skip, 0);
}
