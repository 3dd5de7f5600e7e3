/* SPDX-License-Identifier: MIT */
/* bundle_last.c: the last bundle diagnose wrote, recorded in rl_cache_root()/last-bundle
 * (bundle_last.h). */
#include "bundle/bundle_last.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_file.h"
#include "base/rl_util.h"

/* ---- the default bundle -------------------------------------------------------------- */

static char *last_bundle_file(void)
{
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *p = root ? rl_asprintf("%s/last-bundle", root) : NULL;
    free(root);
    return p;
}

rl_status rl_bundle_last(char **path, rl_error *err)
{
    *path = NULL;
    char *file = last_bundle_file();
    if (!file)
        return rl_fail(err, RL_EINPUT,
                       "no bundle given and no cache directory known ($HOME unset): pass "
                       "--bundle BUNDLE");
    char *text = NULL;
    size_t len = 0;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_file_read_all(file, 8192, &text, &len, &e);
    free(file);
    if (st == RL_OK) {
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            text[--len] = '\0';
        if (len == 0 || strlen(text) != len) {
            free(text);
            st = RL_EINPUT;
        }
    }
    if (st != RL_OK)
        return rl_fail(err, RL_EINPUT,
                       "no bundle to predict from: run `llama-roofline diagnose` on this machine "
                       "first, or pass --bundle BUNDLE");
    *path = text;
    return RL_OK;
}

rl_status rl_bundle_remember(const char *bundle_path, rl_error *err)
{
    char *abs = realpath(bundle_path, NULL);
    if (!abs)
        return rl_fail(err, RL_EOUTPUT, "%s: cannot resolve the bundle's path: %s", bundle_path,
                       strerror(errno));
    char *root = rl_cache_root(getenv("LLAMA_ROOFLINE_CACHE"), getenv("HOME"));
    char *file = last_bundle_file();
    rl_status st = root && file ? rl_mkdir_p(root, "set LLAMA_ROOFLINE_CACHE", err)
                                : rl_fail(err, RL_EOUTPUT, "no cache directory ($HOME unset)");
    char *line = st == RL_OK ? rl_asprintf("%s\n", abs) : NULL;
    if (st == RL_OK)
        st = line ? rl_write_file(file, line, strlen(line), err)
                  : rl_fail(err, RL_EINTERNAL, "out of memory");
    free(line);
    free(file);
    free(root);
    free(abs);
    return st;
}
