/* SPDX-License-Identifier: MIT */
/* rl_test.h: helpers shared by the cmocka unit tests in tests/unit (owned by the tests).
 * Include after <cmocka.h>. */
#ifndef RL_TEST_H
#define RL_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* |a - b| <= tol */
#define assert_near(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* $RL_SRC/rel into buf (the tests run with RL_SRC set to the source tree) */
static inline const char *rl_test_src_path(char *buf, size_t cap, const char *rel)
{
    const char *src = getenv("RL_SRC");
    assert_non_null(src);
    snprintf(buf, cap, "%s/%s", src, rel);
    return buf;
}

/* Every folder of root/rel made (mkdir -p). */
static inline void rl_test_mkdirs(const char *root, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    mkdir(path, 0755);
}

/* root/rel written with text, its folders made first (a fake /proc or /sys file). */
static inline void rl_test_put(const char *root, const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    char *dir = strdup(rel), *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        rl_test_mkdirs(root, dir);
    }
    free(dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#ifdef RL_TEST_JSON /* cJSON lookups that fail the test on a missing key or a wrong type */
#include <cjson/cJSON.h>
static inline const cJSON *rl_test_key(const cJSON *o, const char *k)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!it)
        fail_msg("no key %s", k);
    return it;
}

static inline double rl_test_num(const cJSON *o, const char *k)
{
    const cJSON *it = rl_test_key(o, k);
    assert_true(cJSON_IsNumber(it));
    return it->valuedouble;
}

static inline const char *rl_test_str(const cJSON *o, const char *k)
{
    const cJSON *it = rl_test_key(o, k);
    assert_true(cJSON_IsString(it));
    return it->valuestring;
}
#endif

#endif
