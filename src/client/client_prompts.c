/* SPDX-License-Identifier: MIT */
/* client_prompts.c: the prompt list (client_prompts.h): built-in profiles and fm-bench's names
 * for them, the --prompt texts, the order of file, inline and profile prompts, and the bundle's
 * view of the list. The files' formats are read in client_prompt_file.c. The profile texts are
 * this project's own. Ownership as in the header. */
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

/* fm-bench's names, by what each measures: quick is a one-prompt smoke test; interactive asks
 * tiny chat questions (TTFT); throughput, reasoning and creative ask for the longest answers
 * (decode rate); coding is code; standard (its default: a short answer, a JSON extraction, a
 * medium generation), client (MLPerf Client's chat, content generation, extraction,
 * summarisation and code) and stress (five varied short tasks) are mixes. */
const rl_client_profile_alias rl_client_fm_bench_profiles[] = {
    {"quick", "short-chat", 1},
    {"standard", "mixed", 0},
    {"interactive", "short-chat", 0},
    {"throughput", "long-generation", 0},
    {"client", "mixed", 0},
    {"stress", "mixed", 0},
    {"reasoning", "long-generation", 0},
    {"coding", "code", 0},
    {"creative", "long-generation", 0},
    {NULL, NULL, 0},
};

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
    free(p->requested);
    memset(p, 0, sizeof *p);
}

/* Room for at least one more prompt. */
static bool reserve(rl_client_prompts *p)
{
    if (p->n < p->cap)
        return true;
    size_t cap = p->cap ? p->cap * 2 : 16;
    char **ids = realloc(p->ids, cap * sizeof *ids);
    if (ids)
        p->ids = ids;
    char **texts = realloc(p->texts, cap * sizeof *texts);
    if (texts)
        p->texts = texts;
    size_t *lens = realloc(p->lens, cap * sizeof *lens);
    if (lens)
        p->lens = lens;
    int *mt = realloc(p->max_tokens, cap * sizeof *mt);
    if (mt)
        p->max_tokens = mt;
    if (!ids || !texts || !lens || !mt)
        return false;
    p->cap = cap;
    return true;
}

bool rl_client_prompts_add(rl_client_prompts *p, const char *id, const char *text, size_t len,
                           int max_tokens)
{
    if (!reserve(p))
        return false;
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

bool rl_client_prompts_has_id(const rl_client_prompts *p, const char *id)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->ids[i], id) == 0)
            return true;
    return false;
}

/* "a, b or c" from a NULL-terminated list (or the names of the aliases) into buf. */
static const char *join_names(const char *const *names, const rl_client_profile_alias *al,
                              char *buf, size_t cap)
{
    size_t n = 0;
    while (names ? names[n] != NULL : al[n].name != NULL)
        n++;
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < cap; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = rl_snprintf(buf + at, cap - at, "%s%s", sep, names ? names[i] : al[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* The built-in profile a name means: its index in profile_sets (or the count: mixed), how
 * many of its prompts (0: all) and the fm-bench name asked for (NULL: ours). false when
 * unknown. */
static bool resolve_profile(const char *name, size_t *set, size_t *first, const char **requested)
{
    *first = 0;
    *requested = NULL;
    for (const rl_client_profile_alias *a = rl_client_fm_bench_profiles; a->name; a++)
        if (strcmp(a->name, name) == 0) {
            *requested = a->name;
            *first = a->first;
            name = a->profile;
            break;
        }
    for (*set = 0; rl_client_profile_names[*set]; (*set)++)
        if (strcmp(rl_client_profile_names[*set], name) == 0)
            return true;
    return false;
}

rl_status rl_client_prompts_profile(const char *name, rl_client_prompts *p, rl_error *err)
{
    memset(p, 0, sizeof *p);
    size_t k, first;
    const char *requested;
    if (!resolve_profile(name, &k, &first, &requested)) {
        char safe[128], ours[256], theirs[256];
        return rl_fail(err, RL_EINPUT,
                       "--profile: unknown profile '%s': give %s, or one of fm-bench's %s "
                       "(mapped onto ours: docs/CLI.md)",
                       rl_tty_escape(name, safe, sizeof safe),
                       join_names(rl_client_profile_names, NULL, ours, sizeof ours),
                       join_names(NULL, rl_client_fm_bench_profiles, theirs, sizeof theirs));
    }
    size_t n_sets = sizeof profile_sets / sizeof *profile_sets;
    bool mixed = k == n_sets; /* the last name, after the sets */
    bool ok = true;
    for (size_t s = 0; ok && s < n_sets; s++) {
        if (!mixed && s != k)
            continue;
        for (const builtin *b = profile_sets[s]; ok && b->id; b++) {
            if (first && p->n >= first)
                break;
            ok = rl_client_prompts_add(p, b->id, b->text, strlen(b->text), 0);
            if (mixed)
                break;
        }
    }
    ok = ok && (p->source = rl_strdup("profile")) &&
         (p->name = rl_strdup(rl_client_profile_names[k])) &&
         (!requested || (p->requested = rl_strdup(requested)));
    if (!ok) {
        rl_client_prompts_free(p);
        return rl_fail(err, RL_EINTERNAL, "out of memory loading the prompt profile");
    }
    return RL_OK;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

rl_status rl_client_prompts_add_inline(rl_client_prompts *p, const char *const *texts, size_t n,
                                       rl_error *err)
{
    size_t n0 = p->n;
    rl_status st = RL_OK;
    for (size_t j = 0; j < n && st == RL_OK; j++) {
        const char *t = texts[j];
        size_t len = strlen(t);
        while (len > 0 && is_space(*t)) {
            t++;
            len--;
        }
        while (len > 0 && is_space(t[len - 1]))
            len--;
        char id[32];
        rl_snprintf(id, sizeof id, "custom-%zu", p->n + 1);
        if (p->n >= RL_CLIENT_PROMPTS_MAX)
            st = rl_fail(err, RL_EINPUT, "--prompt %zu: more than %d prompts in all", j + 1,
                         RL_CLIENT_PROMPTS_MAX);
        else if (len == 0)
            st = rl_fail(err, RL_EINPUT, "--prompt %zu: the prompt is empty", j + 1);
        else if (len > RL_CLIENT_PROMPT_BYTES_MAX)
            st = rl_fail(err, RL_EINPUT, "--prompt %zu: the prompt is longer than 1 MiB", j + 1);
        else if (!rl_utf8_valid(t, len))
            st = rl_fail(err, RL_EINPUT, "--prompt %zu: the prompt is not valid UTF-8", j + 1);
        else if (rl_client_prompts_has_id(p, id))
            st = rl_fail(err, RL_EINPUT,
                         "--prompt %zu: its id '%s' is already a prompt file's: rename that one",
                         j + 1, id);
        else if (!rl_client_prompts_add(p, id, t, len, 0))
            st = rl_fail(err, RL_EINTERNAL, "out of memory keeping the --prompt texts");
    }
    if (st != RL_OK)
        while (p->n > n0) {
            p->n--;
            free(p->ids[p->n]);
            free(p->texts[p->n]);
        }
    else
        p->n_inline += n;
    return st;
}

/* source and name of a list of file and inline prompts; false when out of memory. */
static bool name_list(rl_client_prompts *p, const char *file)
{
    const char *source = !file ? "inline" : p->n_inline ? "file+inline" : "file";
    free(p->source);
    p->source = rl_strdup(source);
    if (!file) {
        free(p->name);
        p->name = rl_strdup("--prompt");
    }
    return p->source && p->name;
}

rl_status rl_client_prompts_load(const rl_client_prompt_spec *s, rl_client_prompts *p,
                                 rl_error *err)
{
    memset(p, 0, sizeof *p);
    if (s->profile && s->file)
        return rl_fail(err, RL_EINPUT, "--profile and --prompts exclude each other");
    if (s->profile && s->n_texts)
        return rl_fail(err, RL_EINPUT,
                       "--profile and --prompt exclude each other: a profile is used only when "
                       "no prompt is given");
    if (s->n_texts > RL_CLIENT_INLINE_MAX)
        return rl_fail(err, RL_EINPUT, "--prompt: more than %d: put them in a file (--prompts)",
                       RL_CLIENT_INLINE_MAX);
    if (!s->file && s->n_texts == 0)
        return rl_client_prompts_profile(s->profile ? s->profile : "short-chat", p, err);
    rl_status st = s->file ? rl_client_prompts_file(s->file, p, err) : RL_OK;
    if (st == RL_OK)
        st = rl_client_prompts_add_inline(p, s->texts, s->n_texts, err);
    if (st == RL_OK && !name_list(p, s->file))
        st = rl_fail(err, RL_EINTERNAL, "out of memory keeping the prompts");
    if (st != RL_OK)
        rl_client_prompts_free(p);
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

bool rl_client_prompts_settings(cJSON *o, const rl_client_prompts *p)
{
    return rl_json_add_str(o, "source", p->source) && rl_json_add_str(o, "name", p->name) &&
           rl_json_add_u64(o, "n", p->n) &&
           (!p->requested || rl_json_add_str(o, "requested", p->requested)) &&
           (!p->format || rl_json_add_str(o, "format", p->format)) &&
           (!p->n_inline || rl_json_add_u64(o, "inline", p->n_inline));
}
