/* SPDX-License-Identifier: MIT */
/* test_model_paths.c: expanding files and directories into model paths (model_paths.c):
 * sorted directory listings, only part 1 of a split model, hidden and non-regular entries
 * skipped, de-duplication by file identity and by split model, the depth of a directory
 * search, the cap on the number of models, and the error for a directory that cannot be
 * read. Works in a fresh directory under $RL_TMP that it removes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/model_paths.h"

static char root[4096];

static void touch(const char *rel)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("x", f);
    assert_int_equal(fclose(f), 0);
}

static void mkdir_rel(const char *rel)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static const char *rel(const rl_model_paths *l, size_t i)
{
    size_t n = strlen(root);
    assert_true(i < l->n);
    assert_memory_equal(l->paths[i], root, n);
    return l->paths[i] + n + 1;
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("RL_TMP");
    snprintf(root, sizeof root, "%s/model-paths-%ld", t && *t ? t : "/tmp", (long)getpid());
    assert_int_equal(mkdir(root, 0755), 0);
    touch("b.gguf");
    touch("a.gguf");
    touch("Z.GGUF");  /* the extension in any case; sorts first */
    touch(".h.gguf"); /* hidden */
    touch("notes.txt");
    touch("x-00001-of-00002.gguf");
    touch("x-00002-of-00002.gguf"); /* a later part: listed through part 1 */
    mkdir_rel("e.gguf");            /* a directory named like a model */
    mkdir_rel("sub");
    touch("sub/c.gguf");
    mkdir_rel("sub/deeper");
    touch("sub/deeper/d.gguf");
    char fifo[8192];
    snprintf(fifo, sizeof fifo, "%s/f.gguf", root);
    assert_int_equal(mkfifo(fifo, 0600), 0); /* not a regular file: skipped in a listing */
    char link[8192];
    snprintf(link, sizeof link, "%s/sub/link.gguf", root);
    assert_int_equal(symlink("../a.gguf", link), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_dir_listing(void **state)
{
    (void)state;
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_paths_add(&l, root, &err), RL_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(rel(&l, 0), "Z.GGUF");
    assert_string_equal(rel(&l, 1), "a.gguf");
    assert_string_equal(rel(&l, 2), "b.gguf");
    assert_string_equal(rel(&l, 3), "x-00001-of-00002.gguf");
    rl_model_paths_free(&l);
    assert_int_equal(l.n, 0);
    rl_model_paths_free(&l); /* twice is safe */

    /* a trailing slash gives the same paths, no double slash */
    char slash[8192];
    snprintf(slash, sizeof slash, "%s/", root);
    assert_int_equal(rl_model_paths_add(&l, slash, &err), RL_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(rel(&l, 1), "a.gguf");
    rl_model_paths_free(&l);
}

static void test_dedup(void **state)
{
    (void)state;
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    char p[8192];
    snprintf(p, sizeof p, "%s/b.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 1);
    /* the directory adds the others after it, not b.gguf again */
    assert_int_equal(rl_model_paths_add(&l, root, &err), RL_OK);
    assert_int_equal(l.n, 4);
    assert_string_equal(rel(&l, 0), "b.gguf");
    assert_string_equal(rel(&l, 1), "Z.GGUF");
    /* another name for a listed file, a symlink to one, a later part of a listed model */
    snprintf(p, sizeof p, "%s/./a.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    snprintf(p, sizeof p, "%s/sub/link.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    snprintf(p, sizeof p, "%s/x-00002-of-00002.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 4);
    /* a path that does not exist is kept as given (the reader reports it), once */
    snprintf(p, sizeof p, "%s/nope.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 5);
    assert_string_equal(rel(&l, 4), "nope.gguf");
    /* so is a FIFO named on its own */
    snprintf(p, sizeof p, "%s/f.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 6);
    rl_model_paths_free(&l);

    /* part 2 of a split model given first stands for the model; part 1 is then a repeat */
    snprintf(p, sizeof p, "%s/x-00002-of-00002.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    snprintf(p, sizeof p, "%s/x-00001-of-00002.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 1);
    assert_string_equal(rel(&l, 0), "x-00002-of-00002.gguf");
    rl_model_paths_free(&l);
}

static void test_depth(void **state)
{
    (void)state;
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    size_t added = 99;
    assert_int_equal(rl_model_paths_add_dir(&l, root, 1, &added, &err), RL_OK);
    assert_int_equal(added, 5); /* sub/link.gguf is a.gguf again */
    assert_int_equal(l.n, 5);
    assert_string_equal(rel(&l, 3), "sub/c.gguf");
    assert_string_equal(rel(&l, 4), "x-00001-of-00002.gguf");
    assert_int_equal(rl_model_paths_add_dir(&l, root, 2, &added, &err), RL_OK);
    assert_int_equal(added, 1);
    assert_int_equal(l.n, 6);
    assert_string_equal(rel(&l, 5), "sub/deeper/d.gguf");
    rl_model_paths_free(&l);
}

static void test_cap(void **state)
{
    (void)state;
    rl_model_paths l = {0};
    l.max = 2;
    rl_error err = {RL_OK, ""};
    size_t added = 99;
    assert_int_equal(rl_model_paths_add_dir(&l, root, 2, &added, &err), RL_OK);
    assert_int_equal(added, 2);
    assert_int_equal(l.n, 2);
    assert_string_equal(rel(&l, 0), "Z.GGUF");
    assert_string_equal(rel(&l, 1), "a.gguf");
    /* full: a file is not added, and that is no error */
    char p[8192];
    snprintf(p, sizeof p, "%s/b.gguf", root);
    assert_int_equal(rl_model_paths_add(&l, p, &err), RL_OK);
    assert_int_equal(l.n, 2);
    rl_model_paths_free(&l);
}

static void test_errors(void **state)
{
    (void)state;
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    char p[8192];
    snprintf(p, sizeof p, "%s/no-such-dir", root);
    size_t added = 99;
    assert_int_equal(rl_model_paths_add_dir(&l, p, 0, &added, &err), RL_EINPUT);
    assert_int_equal(added, 0);
    assert_int_equal(l.n, 0);
    assert_non_null(strstr(err.msg, "no-such-dir: cannot open the directory"));
    /* a directory without models adds nothing and is no error */
    snprintf(p, sizeof p, "%s/e.gguf", root);
    assert_int_equal(rl_model_paths_add_dir(&l, p, 0, &added, &err), RL_OK);
    assert_int_equal(added, 0);
    rl_model_paths_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dir_listing), cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_depth),       cmocka_unit_test(test_cap),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
