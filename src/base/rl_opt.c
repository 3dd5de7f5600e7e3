/* SPDX-License-Identifier: MIT */
/* rl_opt.c: getopt_long with shared messages. See rl_opt.h. */
#include "base/rl_opt.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
    if (c == '?' && word && word[0] == '-' && word[1] == '-' && strchr(word, '=') && optopt)
        rl_fail(err, RL_EINPUT, "option '%.*s' takes no value (see llama-roofline %s --help)",
                (int)(strchr(word, '=') - word), word, argv[0]);
    else if (c == ':')
        rl_fail(err, RL_EINPUT, "option '%s' needs a value (see llama-roofline %s --help)", name,
                argv[0]);
    else
        rl_fail(err, RL_EINPUT, "unknown option '%s' (see llama-roofline %s --help)", name,
                argv[0]);
    return RL_OPT_ERROR;
}

rl_status rl_opt_each(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      rl_opt_fn fn, void *ctx, bool *help, rl_error *err)
{
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
