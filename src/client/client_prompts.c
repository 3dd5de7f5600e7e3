/* SPDX-License-Identifier: MIT */
/* client_prompts.c: built-in prompt profiles and JSON Lines prompt files (client_prompts.h).
 * The profile texts are this project's own. Ownership as in the header. */
#include "client/client_prompts.h"

#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

typedef struct {
    const char *id;
    const char *text;
} builtin;

static const builtin short_chat[] = {
    {"short-chat-1", "In one sentence, what does a CPU cache do?"},
    {"short-chat-2", "Give me one reason to prefer a laptop with more memory. Keep it short."},
    {"short-chat-3", "What is a haiku? Answer in under twenty words."},
    {NULL, NULL},
};
static const builtin long_generation[] = {
    {"long-generation-1",
     "Write a friendly two-paragraph note to a new team member explaining how the team plans "
     "its week, how it reviews code, and where to ask for help."},
    {"long-generation-2",
     "Explain, as an eight-point list with one or two sentences per point, what happens between "
     "pressing a key on a keyboard and the letter appearing on the screen."},
    {NULL, NULL},
};
static const builtin extraction[] = {
    {"extraction-1",
     "Read this note and answer with JSON only, with the keys name, city, date and amount: "
     "\"Paid on 3 March: Lena Ortiz settled the Lisbon venue deposit of 1,250 euros.\""},
    {"extraction-2",
     "List every programming language mentioned in this sentence as a JSON array of strings and "
     "nothing else: \"Our backend moved from Ruby to Go, the scripts stay in Python, and the "
     "firmware is still C.\""},
    {NULL, NULL},
};
static const builtin summarisation[] = {
    {"summarisation-1",
     "Summarise in two bullet points: The library closed its east wing for three weeks to "
     "replace the heating. Books from that wing can be requested at the front desk and will be "
     "fetched within a day. Study rooms in the west wing stay open, and opening hours are "
     "unchanged. The reading cafe will serve only drinks during the works."},
    {"summarisation-2",
     "Give a one-sentence summary: A small bakery started delivering bread by bicycle to cut "
     "costs. Deliveries now arrive earlier, customers like the quieter mornings, and the owner "
     "plans to add a second bicycle in spring."},
    {NULL, NULL},
};
static const builtin code[] = {
    {"code-1",
     "This C function should return the largest element of an array but has a bug. Name the bug "
     "and show the fix: int max(const int *a, int n) { int m = 0; for (int i = 0; i < n; i++) if "
     "(a[i] > m) m = a[i]; return m; }"},
    {"code-2", "Write a short Python function that counts how often each word occurs in a string, "
               "ignoring case, and explain its running time in one sentence."},
    {NULL, NULL},
};

const char *const rl_client_profile_names[] = {
    "short-chat", "long-generation", "extraction", "summarisation", "code", "mixed", NULL,
};

static const builtin *const profile_sets[] = {short_chat, long_generation, extraction,
                                              summarisation, code};

void rl_client_prompts_free(rl_client_prompts *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->ids[i]);
        free(p->texts[i]);
    }
    free(p->ids);
    free(p->texts);
    free(p->lens);
    free(p->max_tokens);
    free(p->source);
    free(p->name);
    memset(p, 0, sizeof *p);
}

static bool alloc_arrays(rl_client_prompts *p, size_t cap)
{
    p->ids = rl_calloc(cap, sizeof *p->ids);
    p->texts = rl_calloc(cap, sizeof *p->texts);
    p->lens = rl_calloc(cap, sizeof *p->lens);
    p->max_tokens = rl_calloc(cap, sizeof *p->max_tokens);
    return p->ids && p->texts && p->lens && p->max_tokens;
}

static bool add(rl_client_prompts *p, const char *id, const char *text, size_t len, int max_tokens)
{
    char *t = malloc(len + 1);
    char *i = rl_strdup(id);
    if (!t || !i) {
        free(t);
        free(i);
        return false;
    }
    memcpy(t, text, len);
    t[len] = '\0';
    p->ids[p->n] = i;
    p->texts[p->n] = t;
    p->lens[p->n] = len;
    p->max_tokens[p->n] = max_tokens;
    p->n++;
    return true;
}

rl_status rl_client_prompts_profile(const char *name, rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    size_t k = 0;
    while (rl_client_profile_names[k] && strcmp(rl_client_profile_names[k], name) != 0)
        k++;
    if (!rl_client_profile_names[k]) {
        char safe[128];
        return rl_fail(err, RL_EINPUT,
                       "--profile: unknown profile '%s': give short-chat, long-generation, "
                       "extraction, summarisation, code or mixed",
                       rl_tty_escape(name, safe, sizeof safe));
    }
    bool mixed = strcmp(name, "mixed") == 0;
    bool ok = alloc_arrays(p, 16);
    for (size_t s = 0; ok && s < sizeof profile_sets / sizeof *profile_sets; s++) {
        if (!mixed && s != k)
            continue;
        for (const builtin *b = profile_sets[s]; ok && b->id; b++) {
            ok = add(p, b->id, b->text, strlen(b->text), 0);
            if (mixed)
                break;
        }
    }
    ok = ok && (p->source = rl_strdup("profile")) && (p->name = rl_strdup(name));
    if (!ok) {
        rl_client_prompts_free(p);
        return rl_fail(err, RL_EINTERNAL, "out of memory loading the prompt profile");
    }
    return RL_OK;
}

static bool blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

/* One line of a prompt file; line is NUL-terminated (n bytes, no newline). */
static rl_status parse_line(const char *name, size_t lineno, const char *line, size_t n,
                            rl_client_prompts *p, rl_error *err)
{
    char safe[256];
    rl_tty_escape(name, safe, sizeof safe);
    if (p->n >= RL_CLIENT_PROMPTS_MAX)
        return rl_fail(err, RL_EINPUT, "%s:%zu: more than %d prompts: split the file", safe, lineno,
                       RL_CLIENT_PROMPTS_MAX);
    bool oom = false;
    const char *end = NULL;
    cJSON *o = rl_json_parse_raw(line, n, &end, &oom);
    if (oom)
        return rl_fail(err, RL_EINTERNAL, "%s:%zu: out of memory reading the prompt", safe, lineno);
    if (o && end && (size_t)(end - line) <= n && !blank(end, n - (size_t)(end - line))) {
        cJSON_Delete(o); /* text after the object: a second object on the line is not dropped */
        o = NULL;
    }
    if (!o || !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return rl_fail(err, RL_EINPUT,
                       "%s:%zu: not a JSON object: give {\"id\": ..., \"prompt\": ...} per line",
                       safe, lineno);
    }
    rl_status st = RL_OK;
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "prompt");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(o, "max_tokens");
    char idbuf[32];
    int max_tokens = 0;
    size_t plen = cJSON_IsString(pr) ? strlen(pr->valuestring) : 0;
    if (!cJSON_IsString(pr))
        st = rl_fail(err, RL_EINPUT, "%s:%zu: \"prompt\" is missing or not a string", safe, lineno);
    else if (plen > RL_CLIENT_PROMPT_BYTES_MAX)
        st = rl_fail(err, RL_EINPUT, "%s:%zu: the prompt is longer than 1 MiB", safe, lineno);
    else if (blank(pr->valuestring, plen))
        st = rl_fail(err, RL_EINPUT, "%s:%zu: the prompt is empty", safe, lineno);
    else if (!rl_utf8_valid(pr->valuestring, plen))
        st = rl_fail(err, RL_EINPUT, "%s:%zu: the prompt is not valid UTF-8", safe, lineno);
    else if (id && (!cJSON_IsString(id) || !id->valuestring[0] || strlen(id->valuestring) > 128 ||
                    !rl_utf8_valid(id->valuestring, strlen(id->valuestring))))
        st = rl_fail(err, RL_EINPUT,
                     "%s:%zu: \"id\" must be a non-empty UTF-8 string of at most "
                     "128 bytes",
                     safe, lineno);
    else if (mt && (!cJSON_IsNumber(mt) || mt->valuedouble != (double)(int)mt->valuedouble ||
                    mt->valuedouble < 1 || mt->valuedouble > 1000000))
        st = rl_fail(err, RL_EINPUT,
                     "%s:%zu: \"max_tokens\" must be a whole number from 1 to "
                     "1000000",
                     safe, lineno);
    if (st == RL_OK) {
        if (mt)
            max_tokens = (int)mt->valuedouble;
        const char *ids = id ? id->valuestring : idbuf;
        if (!id)
            rl_snprintf(idbuf, sizeof idbuf, "line-%zu", lineno);
        for (size_t i = 0; i < p->n && st == RL_OK; i++)
            if (strcmp(p->ids[i], ids) == 0) {
                char sid[300];
                st = rl_fail(err, RL_EINPUT,
                             "%s:%zu: the id '%s' is used twice: ids must be "
                             "unique",
                             safe, lineno, rl_tty_escape(ids, sid, sizeof sid));
            }
        if (st == RL_OK && !add(p, ids, pr->valuestring, plen, max_tokens))
            st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    }
    cJSON_Delete(o);
    return st;
}

rl_status rl_client_prompts_parse(const char *name, const char *text, size_t len,
                                  rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    char safe[256];
    rl_tty_escape(name, safe, sizeof safe);
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    lines++;
    if (lines > RL_CLIENT_PROMPTS_MAX * 4)
        lines = RL_CLIENT_PROMPTS_MAX + 1;
    if (!alloc_arrays(p, lines < RL_CLIENT_PROMPTS_MAX ? lines : RL_CLIENT_PROMPTS_MAX))
        return rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    rl_status st = RL_OK;
    size_t lineno = 0;
    for (size_t a = 0; a < len && st == RL_OK;) {
        const char *nl = memchr(text + a, '\n', len - a);
        size_t e = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (!blank(text + a, e - a)) {
            char *line = malloc(e - a + 1);
            if (!line) {
                st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
                break;
            }
            memcpy(line, text + a, e - a);
            line[e - a] = '\0';
            st = parse_line(name, lineno, line, e - a, p, err);
            free(line);
        }
        a = e + 1;
    }
    if (st == RL_OK && p->n == 0)
        st = rl_fail(err, RL_EINPUT, "%s holds no prompt: give one JSON object per line", safe);
    if (st == RL_OK && (!(p->source = rl_strdup("file")) || !(p->name = rl_strdup(name))))
        st = rl_fail(err, RL_EINTERNAL, "out of memory reading %s", safe);
    if (st != RL_OK)
        rl_client_prompts_free(p);
    return st;
}

rl_status rl_client_prompts_file(const char *path, rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    char *data = NULL;
    size_t len = 0;
    rl_status st = rl_file_read_all(path, RL_CLIENT_PROMPT_FILE_MAX, &data, &len, err);
    if (st != RL_OK)
        return rl_prefix(err, "--prompts");
    st = rl_client_prompts_parse(path, data, len, p, err);
    free(data);
    return st;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

cJSON *rl_client_prompts_json(const rl_client_prompts *p)
{
    cJSON *a = cJSON_CreateArray();
    bool ok = a != NULL;
    for (size_t i = 0; ok && i < p->n; i++) {
        cJSON *o = cJSON_CreateObject();
        ok = o && rl_json_add_str(o, "id", p->ids[i]) && rl_json_add_str(o, "kind", "controlled") &&
             rl_json_add_u64(o, "chars", utf8_chars(p->texts[i], p->lens[i])) &&
             rl_json_add_str(o, "text", p->texts[i]) &&
             (p->max_tokens[i] == 0 || rl_json_add_i64(o, "max_tokens", p->max_tokens[i]));
        if (o && !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            ok = false;
        }
    }
    if (!ok) {
        cJSON_Delete(a);
        return NULL;
    }
    return a;
}
