/* SPDX-License-Identifier: MIT */
/* client_fm.c: fm capability detection from help text (client_fm.h). */
#include "client/client_fm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

/* A copy of s without ANSI CSI sequences (caller frees); NULL when out of memory. */
static char *strip_ansi(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1), *q = o;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\x1b' && s[i + 1] == '[') {
            size_t j = i + 2;
            while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] <= 0x3f)
                j++;
            i = j < n ? j : n - 1; /* skip the final byte too */
            continue;
        }
        *q++ = s[i];
    }
    *q = '\0';
    return o;
}

static bool is_header(const char *a, const char *e)
{
    while (a < e && isspace((unsigned char)*a))
        a++;
    while (e > a && isspace((unsigned char)e[-1]))
        e--;
    if (a == e || !(*a >= 'A' && *a <= 'Z'))
        return false;
    for (const char *p = a; p < e; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == ' ' || *p == '/' ||
              *p == '-'))
            return false;
    return e - a >= 2;
}

static bool is_word(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static bool contains_flag(const char *text, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = strstr(text, flag); p; p = strstr(p + 1, flag))
        if (!is_word(p[n]) && (p == text || !is_word(p[-1]) || p[-1] == '-'))
            return true;
    return false;
}

bool rl_client_fm_documents(const char *help, const char *flag)
{
    if (!help)
        return false;
    if (contains_flag(help, flag))
        return true;
    if (strncmp(flag, "--no-", 5) == 0) {
        char alt[64];
        rl_snprintf(alt, sizeof alt, "[no-]%s", flag + 5);
        return strstr(help, alt) != NULL;
    }
    return false;
}

static bool has_command(const rl_client_fm_caps *c, const char *name)
{
    for (size_t i = 0; i < c->n_commands; i++)
        if (strcmp(c->commands[i], name) == 0)
            return true;
    return false;
}

void rl_client_fm_parse(const char *help_raw, const char *respond_raw, rl_client_fm_caps *c)
{
    memset(c, 0, sizeof *c);
    char *help = help_raw ? strip_ansi(help_raw) : NULL;
    char *resp = respond_raw ? strip_ansi(respond_raw) : NULL;
    bool in = false;
    for (const char *p = help; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        const char *a = p;
        while (a < e && isspace((unsigned char)*a))
            a++;
        const char *b = e;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        if (b - a == 8 && strncmp(a, "COMMANDS", 8) == 0) {
            in = true;
        } else if (in && is_header(p, e)) {
            in = false;
        } else if (in && a - p >= 2 && *a >= 'a' && *a <= 'z') {
            const char *q = a;
            while (q < e && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '-'))
                q++;
            const char *d = q;
            while (d < e && *d == ' ')
                d++;
            if (d - q >= 2 && d < e && (size_t)(q - a) < sizeof c->commands[0] &&
                c->n_commands < RL_CLIENT_FM_MAX_COMMANDS) {
                memcpy(c->commands[c->n_commands], a, (size_t)(q - a));
                c->commands[c->n_commands][q - a] = '\0';
                c->n_commands++;
            }
        }
        p = *e ? e + 1 : e;
    }
    c->ok = c->n_commands > 0;
    c->token_count_command = has_command(c, "count-tokens")  ? "count-tokens"
                             : has_command(c, "token-count") ? "token-count"
                                                             : NULL;
    c->model_list_command = has_command(c, "models")      ? "models"
                            : has_command(c, "available") ? "available"
                                                          : NULL;
    c->server = has_command(c, "serve");
    c->quota = has_command(c, "quota-usage");
    c->streaming =
        rl_client_fm_documents(resp, "--no-stream") || rl_client_fm_documents(resp, "--stream");
    c->model_selection = rl_client_fm_documents(resp, "--model");
    c->instructions = rl_client_fm_documents(resp, "--instructions");
    c->greedy = rl_client_fm_documents(resp, "--greedy");
    if (!c->ok)
        rl_snprintf(c->error, sizeof c->error, "could not read the command list from fm --help");
    free(help);
    free(resp);
}

bool rl_client_fm_detect(const char *command, char *bin, size_t cap)
{
    const char *a = command;
    while (*a == ' ' || *a == '\t')
        a++;
    const char *e = a;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != ';' && *e != '|' && *e != '&')
        e++;
    size_t n = (size_t)(e - a);
    if (n == 0 || n >= cap)
        return false;
    bool fm = (n == 2 && strncmp(a, "fm", 2) == 0) || (n > 3 && strncmp(e - 3, "/fm", 3) == 0);
    if (!fm)
        return false;
    memcpy(bin, a, n);
    bin[n] = '\0';
    return true;
}

/* stdout + stderr of `bin args`, NUL-terminated (caller frees); NULL with why filled. */
static char *run_help(const char *bin, const char *args, double timeout, bool *interrupted,
                      char *why, size_t cap)
{
    char *cmd = rl_asprintf("%s %s", bin, args);
    if (!cmd)
        return NULL;
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    rl_proc_opts o = {0};
    o.argv = argv;
    o.timeout = timeout;
    o.keep_head = 64 * 1024;
    o.keep_tail = 1;
    rl_proc_result pr;
    rl_error e;
    rl_status st = rl_proc_run(&o, &pr, &e);
    free(cmd);
    *interrupted = st == RL_EINTERRUPTED;
    if (st != RL_OK) {
        rl_snprintf(why, cap, "cannot run %s %s: %s", bin, args, e.msg);
        rl_proc_result_free(&pr);
        return NULL;
    }
    char *o1 = rl_proc_kept_text(&pr.out), *o2 = rl_proc_kept_text(&pr.err);
    char *all = o1 && o2 ? rl_asprintf("%s\n%s", o1, o2) : NULL;
    if (pr.timed_out)
        rl_snprintf(why, cap, "%s %s timed out after %g s", bin, args, timeout);
    free(o1);
    free(o2);
    rl_proc_result_free(&pr);
    return all;
}

rl_status rl_client_fm_probe(const char *bin, double timeout, rl_client_fm_caps *c, rl_error *err)
{
    char why[256] = "";
    bool intr = false;
    char *help = run_help(bin, "--help", timeout, &intr, why, sizeof why);
    if (intr) {
        free(help);
        return rl_fail(err, RL_EINTERRUPTED, "interrupted while reading fm's help");
    }
    char *resp = NULL;
    if (help)
        resp = run_help(bin, "respond --help", timeout, &intr, why, sizeof why);
    rl_client_fm_parse(help, resp, c);
    if (!c->ok && why[0])
        rl_snprintf(c->error, sizeof c->error, "%s", why);
    free(help);
    free(resp);
    return intr ? rl_fail(err, RL_EINTERRUPTED, "interrupted while reading fm's help") : RL_OK;
}

cJSON *rl_client_fm_json(const rl_client_fm_caps *c, const char *bin)
{
    cJSON *o = cJSON_CreateObject(), *cmds = cJSON_CreateArray(), *f = cJSON_CreateObject(),
          *w = cJSON_CreateArray();
    bool ok = o && cmds && f && w;
    for (size_t i = 0; ok && i < c->n_commands; i++)
        ok = cJSON_AddItemToArray(cmds, rl_json_str(c->commands[i]));
    ok = ok && rl_json_add_str_or_null(f, "token_count_command", c->token_count_command) &&
         rl_json_add_str_or_null(f, "model_list_command", c->model_list_command) &&
         cJSON_AddBoolToObject(f, "streaming", c->streaming) &&
         cJSON_AddBoolToObject(f, "model_selection", c->model_selection) &&
         cJSON_AddBoolToObject(f, "instructions", c->instructions) &&
         cJSON_AddBoolToObject(f, "greedy", c->greedy) &&
         cJSON_AddBoolToObject(f, "quota", c->quota) &&
         cJSON_AddBoolToObject(f, "server", c->server);
    if (ok && !c->ok)
        ok = cJSON_AddItemToArray(w, rl_json_str(c->error));
    if (ok && c->ok && !c->token_count_command)
        ok = cJSON_AddItemToArray(w, rl_json_str("fm lists no token-counting command, so token "
                                                 "counts are unavailable"));
    if (ok && c->ok && !c->streaming)
        ok = cJSON_AddItemToArray(w, rl_json_str("fm respond documents no streaming flag, so "
                                                 "TTFT may be the whole answer's time"));
    ok = ok && rl_json_add_str(o, "source", "help text") && rl_json_add_str(o, "program", bin) &&
         cJSON_AddBoolToObject(o, "ok", c->ok);
    if (ok) {
        cJSON_AddItemToObject(o, "commands", cmds);
        cJSON_AddItemToObject(o, "features", f);
        cJSON_AddItemToObject(o, "warnings", w);
        return o;
    }
    cJSON_Delete(o);
    cJSON_Delete(cmds);
    cJSON_Delete(f);
    cJSON_Delete(w);
    return NULL;
}

/* ---- the model listing ---------------------------------------------------------------- */

/* The mark a listing line starts with: 1 available, 0 unavailable, -1 none; *len its bytes. */
static int model_mark(const unsigned char *s, size_t *len)
{
    *len = 3;
    if (s[0] == 0xe2 && s[1] == 0x9c && (s[2] == 0x93 || s[2] == 0x94))
        return 1;
    if (s[0] == 0xe2 && s[1] == 0x9c && (s[2] == 0x97 || s[2] == 0x98))
        return 0;
    *len = 2;
    if (s[0] == 0xc3 && s[1] == 0x97)
        return 0;
    return -1;
}

static bool model_name_char(char c, bool first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (!first && (c == '.' || c == '_' || c == ':' || c == '/' || c == '-'));
}

/* One line (NUL-terminated, ANSI already dropped) into *m; false when it is no model line (a
 * "warning:" line never starts with a mark, so fm-bench's dropping of them is implied). */
static bool model_line(const char *line, rl_client_fm_model *m)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t ml;
    int mark = model_mark((const unsigned char *)p, &ml);
    if (mark < 0 || (p[ml] != ' ' && p[ml] != '\t'))
        return false;
    p += ml;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = 0;
    while (model_name_char(p[n], n == 0))
        n++;
    if (n == 0 || n >= sizeof m->name)
        return false;
    memset(m, 0, sizeof *m);
    memcpy(m->name, p, n);
    m->available = mark == 1;
    p += n;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t rest = strlen(p);
    while (rest > 0 && (p[rest - 1] == ' ' || p[rest - 1] == '\t' || p[rest - 1] == '\r'))
        rest--;
    if (rest == 0)
        return true;
    if (p[0] != '(' || p[rest - 1] != ')')
        return false;
    rl_snprintf(m->note, sizeof m->note, "%.*s", (int)(rest - 2), p + 1);
    return true;
}

size_t rl_client_fm_parse_models(const char *text, rl_client_fm_model *out, size_t cap)
{
    size_t n = 0, len = text ? strlen(text) : 0;
    char *clean = malloc(len + 1);
    if (!clean)
        return 0;
    rl_term_strip st = {0};
    clean[rl_term_strip_run(&st, text ? text : "", len, clean)] = '\0';
    for (char *line = clean; line && *line && n < cap;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (model_line(line, &out[n]))
            n++;
        line = nl ? nl + 1 : NULL;
    }
    free(clean);
    return n;
}

rl_status rl_client_fm_models(const char *bin, const char *list_command, double timeout,
                              rl_client_fm_model *out, size_t cap, size_t *n, char *why,
                              size_t why_cap, rl_error *err)
{
    bool intr = false;
    why[0] = '\0';
    char *text = run_help(bin, list_command, timeout, &intr, why, why_cap);
    *n = text ? rl_client_fm_parse_models(text, out, cap) : 0;
    free(text);
    if (intr)
        return rl_fail(err, RL_EINTERRUPTED, "interrupted while reading fm's model list");
    if (*n == 0 && !why[0])
        rl_snprintf(why, why_cap, "%s %s listed no model", bin, list_command);
    return RL_OK;
}
