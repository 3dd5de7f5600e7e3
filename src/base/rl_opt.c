/* SPDX-License-Identifier: MIT */
/* rl_opt.c: getopt_long with shared messages. See rl_opt.h. */
#include "base/rl_opt.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/rl_text.h"

static char *const *typed_argv;
static int typed_argc;

void rl_opt_save_typed(int argc, char *const *argv)
{
    typed_argc = argc;
    typed_argv = argv;
}

char *const *rl_opt_typed(int *argc)
{
    *argc = typed_argc;
    return typed_argv;
}

void rl_opt_begin(void)
{
    optind = 0; /* glibc: 0 re-initialises the scanner, including its permutation state */
    opterr = 0;
}

/* The long option of longopts that name (up to '=' or its end, len bytes) names exactly, or
 * NULL. */
static const struct option *long_exact(const struct option *longopts, const char *name, size_t len)
{
    for (const struct option *o = longopts; o && o->name; o++)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

/* "--re" that begins several options of different meanings: their names, comma separated, in
 * buf; false when it is not ambiguous. */
static bool ambiguous(const struct option *longopts, const char *name, size_t len, char *buf,
                      size_t cap)
{
    const struct option *first = NULL;
    bool amb = false;
    size_t used = 0;
    buf[0] = '\0';
    for (const struct option *o = longopts; o && o->name; o++) {
        if (strncmp(o->name, name, len) != 0)
            continue;
        if (first &&
            (o->flag != first->flag || o->val != first->val || o->has_arg != first->has_arg))
            amb = true;
        first = first ? first : o;
        int k = rl_snprintf(buf + used, cap - used, "%s--%s", used ? ", " : "", o->name);
        used = k > 0 && (size_t)k < cap - used ? used + (size_t)k : used;
    }
    return amb;
}

/* "did you mean '--reps'? " for the long option nearest to name, or "". */
static void suggest(const struct option *longopts, const char *name, size_t len, char *buf,
                    size_t cap)
{
    const char *cands[128];
    size_t n = 0;
    for (const struct option *o = longopts; o && o->name && n < 128; o++)
        cands[n++] = o->name;
    char word[80];
    rl_snprintf(word, sizeof word, "%.*s", (int)(len < 79 ? len : 79), name);
    int at = rl_nearest_word(word, cands, n);
    buf[0] = '\0';
    if (at >= 0)
        rl_snprintf(buf, cap, "did you mean '--%s'? ", cands[at]);
}

/* The message of an unknown long option: ambiguous abbreviation, did-you-mean, or plain. */
static void fail_long(const char *word, const struct option *longopts, const char *verb,
                      rl_error *err)
{
    const char *name = word + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    char list[512], hint[128];
    if (ambiguous(longopts, name, len, list, sizeof list)) {
        rl_fail(err, RL_EINPUT,
                "option '--%.*s' is ambiguous: it begins %s (see llama-roofline %s --help)",
                (int)len, name, list, verb);
        return;
    }
    suggest(longopts, name, len, hint, sizeof hint);
    rl_fail(err, RL_EINPUT, "unknown option '--%.*s' (%ssee llama-roofline %s --help)", (int)len,
            name, hint, verb);
}

int rl_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
              rl_error *err)
{
    char spec[128];
    snprintf(spec, sizeof spec, ":%s", shortopts); /* ':' reports a missing value as ':' */
    opterr = 0;
    int prev = optind ? optind : 1;
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    /* The offending word: glibc has advanced optind past it (or past its missing value). */
    const char *word = optind - 1 >= prev && optind - 1 < argc ? argv[optind - 1] : NULL;
    char shortname[3] = {'-', (char)optopt, '\0'};
    bool is_long = word && word[0] == '-' && word[1] == '-';
    const char *name = is_long ? word : optopt ? shortname : word ? word : "?";
    if (c == '?' && is_long && strchr(word, '=') && optopt)
        rl_fail(err, RL_EINPUT, "option '%.*s' takes no value (see llama-roofline %s --help)",
                (int)(strchr(word, '=') - word), word, argv[0]);
    else if (c == ':')
        rl_fail(err, RL_EINPUT, "option '%s' needs a value (see llama-roofline %s --help)", name,
                argv[0]);
    else if (is_long)
        fail_long(word, longopts, argv[0], err);
    else
        rl_fail(err, RL_EINPUT, "unknown option '%s' (see llama-roofline %s --help)", name,
                argv[0]);
    return RL_OPT_ERROR;
}

/* llama-bench's single-dash names and the long option each is, rewritten only where the
 * command has that long option (and, for a letter, no short option of its own by that
 * letter): "-ngl 99", "-p 64" and "-p64" read as --n-gpu-layers 99, --n-prompt 64. */
static const struct {
    const char *dash, *lopt;
} dash_aliases[] = {
    {"-ngl", "n-gpu-layers"}, {"-p", "n-prompt"}, {"-n", "n-gen"},
    {"-r", "repetitions"},    {"-d", "n-depth"},
};
#define N_DASH (sizeof dash_aliases / sizeof dash_aliases[0])

/* Does the word w take the next word as its value (a long option without '=' whose value is
 * required, or a lone short option whose letter takes one)? */
static bool takes_next(const char *w, const char *shortopts, const struct option *longopts)
{
    if (w[0] != '-' || !w[1])
        return false;
    if (w[1] == '-') {
        if (strchr(w, '='))
            return false;
        const struct option *o = long_exact(longopts, w + 2, strlen(w + 2));
        return o && o->has_arg == required_argument;
    }
    const char *p = w[2] ? NULL : strchr(shortopts, w[1]);
    return p && p[1] == ':' && p[2] != ':';
}

/* The long spelling of w in buf when w is one of dash_aliases this command has: "--n-prompt"
 * for "-p", "--n-prompt=64" for "-p64"; NULL otherwise. */
static const char *dash_long(const char *w, const char *shortopts, const struct option *longopts,
                             char *buf, size_t cap)
{
    for (size_t k = 0; k < N_DASH; k++) {
        const char *d = dash_aliases[k].dash;
        size_t dl = strlen(d);
        const struct option *o =
            long_exact(longopts, dash_aliases[k].lopt, strlen(dash_aliases[k].lopt));
        if (!o || strncmp(w, d, dl) != 0 || (dl == 2 && strchr(shortopts, d[1])))
            continue;
        if (!w[dl])
            rl_snprintf(buf, cap, "--%s", o->name);
        else if (dl == 2 && o->has_arg == required_argument &&
                 (size_t)rl_snprintf(buf, cap, "--%s=%s", o->name, w + dl) < cap)
            ;
        else
            continue;
        return buf;
    }
    return NULL;
}

void rl_opt_dash_aliases(int argc, char **argv, const char *shortopts,
                         const struct option *longopts)
{
    static char words[32][160]; /* the rewritten words: at most 32 per command line */
    size_t used = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return;
        const char *w =
            used < 32 ? dash_long(argv[i], shortopts, longopts, words[used], sizeof words[used])
                      : NULL;
        if (w)
            argv[i] = words[used++];
        if (takes_next(argv[i], shortopts, longopts))
            i++; /* its value is a value, even when it reads "-ngl" */
    }
}

/* rl_opt_capture_begin's state: capturing, and the tables of the rl_opt_each that ran since */
static struct {
    bool on;
    const char *shortopts;
    const struct option *longopts;
} capture;

void rl_opt_capture_begin(void)
{
    capture.on = true;
    capture.shortopts = NULL;
    capture.longopts = NULL;
}

bool rl_opt_captured(const char **shortopts, const struct option **longopts)
{
    bool got = capture.on && capture.longopts;
    *shortopts = got ? capture.shortopts : NULL;
    *longopts = got ? capture.longopts : NULL;
    capture.on = false;
    return got;
}

static const char *arg_kind(int has_arg)
{
    return has_arg == required_argument   ? "required"
           : has_arg == optional_argument ? "optional"
                                          : "none";
}

void rl_opt_print_table(FILE *out, const char *verb, const char *shortopts,
                        const struct option *longopts)
{
    for (const struct option *o = longopts; o && o->name; o++)
        rl_tty_printf(out, "option %s --%s %s\n", verb, o->name, arg_kind(o->has_arg));
    for (const char *p = shortopts; p && *p; p++) {
        if (*p == ':')
            continue;
        int kind = p[1] != ':' ? no_argument : p[2] == ':' ? optional_argument : required_argument;
        rl_tty_printf(out, "option %s -%c %s\n", verb, *p, arg_kind(kind));
    }
    for (size_t k = 0; k < N_DASH; k++) { /* as dash_long finds them */
        const char *d = dash_aliases[k].dash, *l = dash_aliases[k].lopt;
        const struct option *o = long_exact(longopts, l, strlen(l));
        if (o && !(strlen(d) == 2 && strchr(shortopts, d[1])))
            rl_tty_printf(out, "option %s %s %s\n", verb, d, arg_kind(o->has_arg));
    }
}

rl_status rl_opt_each(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      rl_opt_fn fn, void *ctx, bool *help, rl_error *err)
{
    if (capture.on) { /* --list-options: the tables, nothing read */
        capture.shortopts = shortopts;
        capture.longopts = longopts;
        return rl_fail(err, RL_EINPUT, "options listed, none read");
    }
    rl_opt_dash_aliases(argc, argv, shortopts, longopts);
    rl_opt_begin();
    for (int c; (c = rl_getopt(argc, argv, shortopts, longopts, err)) != -1;) {
        if (c == RL_OPT_ERROR)
            return RL_EINPUT;
        if (c == 'h') {
            *help = true;
            return RL_OK;
        }
        rl_status st = fn(c, optarg, ctx, err);
        if (st != RL_OK)
            return st;
    }
    return RL_OK;
}
