/* SPDX-License-Identifier: MIT */
/* test_diagnose_models.c: the models `diagnose` measures when none is named. The search
 * (model_find.c) on a temporary tree under $RL_TMP that it removes: the default roots and
 * $LLAMA_MODELS, the depth limit (two levels below a root found, three and four not),
 * dot-directories and later parts of split models skipped, the 200-model cap, bytes over
 * split parts, the spread selection with the published tool's test values, and the pick that
 * replaces a model that does not load. The synth ladder (synth_ladder.c, with the tiny preset
 * as diagnose's test override does): written once with preset, type and seed in the names,
 * reused untouched, a damaged rung written again, an unknown preset and no cache refused.
 * Checked to fail: with halves rounded up in the spread (test_spread), and with the cap taken
 * out of model_paths.c and model_find.c (test_cap), and with the header comparison taken out of
 * the ladder's reuse check (test_ladder). */
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

#include "model/model_find.h"
#include "model/synth_ladder.h"

static char root[4096];

static void path_of(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", root, rel);
}

static void mkdirs(const char *rel)
{
    char p[8192], cmd[8300];
    path_of(p, sizeof p, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    assert_int_equal(system(cmd), 0);
}

static void write_size(const char *rel, size_t n)
{
    char p[8192];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fputc('x', f);
    assert_int_equal(fclose(f), 0);
}

static void copy_fixture(const char *fixture, const char *rel)
{
    const char *src = getenv("RL_SRC");
    char p[8192], cmd[16600];
    path_of(p, sizeof p, rel);
    snprintf(cmd, sizeof cmd, "cp '%s/tests/fixtures/gguf/%s' '%s'", src ? src : ".", fixture, p);
    assert_int_equal(system(cmd), 0);
}

/* The path relative to root, or the path when it is not under root. */
static const char *rel(const char *p)
{
    size_t n = strlen(root);
    return strncmp(p, root, n) == 0 && p[n] == '/' ? p + n + 1 : p;
}

static int setup(void **state)
{
    (void)state;
    const char *t = getenv("RL_TMP");
    snprintf(root, sizeof root, "%s/diagnose-models-%ld", t && *t ? t : "/tmp", (long)getpid());
    assert_int_equal(mkdir(root, 0755), 0);
    /* tree r1: depth and skipping */
    mkdirs("r1/one/two/three/four");
    mkdirs("r1/.hidden");
    mkdirs("r1/one/.dot");
    write_size("r1/top.gguf", 10);
    write_size("r1/one/l1.gguf", 20);
    write_size("r1/one/two/l2.gguf", 30);
    write_size("r1/one/two/three/l3.gguf", 40);
    write_size("r1/one/two/three/four/l4.gguf", 50);
    write_size("r1/.hidden/h.gguf", 60);
    write_size("r1/one/.dot/d.gguf", 70);
    write_size("r1/.h.gguf", 80);
    write_size("r1/s-00001-of-00003.gguf", 100);
    write_size("r1/s-00002-of-00003.gguf", 200);
    write_size("r1/s-00003-of-00003.gguf", 300);
    write_size("r1/t-00001-of-00002.gguf", 100); /* part 2 missing */
    /* a home with ~/models and ~/.cache/llama.cpp */
    mkdirs("home/models");
    mkdirs("home/.cache/llama.cpp/org/repo");
    write_size("home/models/m.gguf", 5);
    write_size("home/.cache/llama.cpp/org/repo/c.gguf", 6);
    /* many: 210 models */
    mkdirs("many");
    for (int i = 0; i < 210; i++) {
        char r[64];
        snprintf(r, sizeof r, "many/m%03d.gguf", i);
        write_size(r, 1);
    }
    /* pick: two files that are not GGUF among three that are */
    mkdirs("pick");
    copy_fixture("tiny-valid.gguf", "pick/a.gguf"); /* 8896 bytes */
    write_size("pick/mid.gguf", 9000);
    copy_fixture("tiny-tied.gguf", "pick/b.gguf"); /* 9536 */
    copy_fixture("tiny-moe.gguf", "pick/c.gguf");  /* 14208 */
    write_size("pick/z.gguf", 20000);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_roots(void **state)
{
    (void)state;
    rl_model_roots r;
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_roots_default("/a::~/b:", "/h", &r, &err), RL_OK);
    const char *want[] = {"/a",
                          "/h/b",
                          "./models",
                          "/h/models",
                          "/h/.cache/llama.cpp",
                          "/h/.cache/lm-studio/models",
                          "/h/.lmstudio/models",
                          "/usr/share/llama.cpp/models"};
    assert_int_equal(r.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < r.n; i++)
        assert_string_equal(r.dirs[i], want[i]);
    char *text = rl_model_roots_text(&r);
    assert_non_null(text);
    assert_non_null(strstr(text, "/a, /h/b, ./models, /h/models"));
    free(text);
    rl_model_roots_free(&r);
    rl_model_roots_free(&r); /* twice is safe */
    /* neither set: the two roots that need neither */
    assert_int_equal(rl_model_roots_default(NULL, NULL, &r, &err), RL_OK);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.dirs[0], "./models");
    assert_string_equal(r.dirs[1], "/usr/share/llama.cpp/models");
    rl_model_roots_free(&r);
}

static void test_depth_and_skips(void **state)
{
    (void)state;
    char r1[8192];
    path_of(r1, sizeof r1, "r1");
    char *dirs[] = {r1, r1}; /* a root given twice is searched once */
    rl_model_roots roots = {dirs, 2};
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_find(&roots, RL_MODEL_FIND_DEPTH, RL_MODEL_FIND_MAX, &l, &err),
                     RL_OK);
    const char *want[] = {"r1/one/l1.gguf", "r1/one/two/l2.gguf", "r1/s-00001-of-00003.gguf",
                          "r1/t-00001-of-00002.gguf", "r1/top.gguf"};
    assert_int_equal(l.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < l.n; i++)
        assert_string_equal(rel(l.paths[i]), want[i]);
    rl_model_paths_free(&l);
}

static void test_llama_models_and_home(void **state)
{
    (void)state;
    char lm[16600], home[8192];
    snprintf(lm, sizeof lm, "%s/nope:%s/r1/one/two", root, root);
    path_of(home, sizeof home, "home");
    rl_model_roots roots;
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_roots_default(lm, home, &roots, &err), RL_OK);
    rl_model_paths l = {0};
    assert_int_equal(rl_model_find(&roots, RL_MODEL_FIND_DEPTH, RL_MODEL_FIND_MAX, &l, &err),
                     RL_OK);
    /* $LLAMA_MODELS first (its missing entry skipped; two levels below it: l3 and l4), then
     * ~/models, then ~/.cache/llama.cpp two levels down */
    const char *want[] = {"r1/one/two/l2.gguf", "r1/one/two/three/four/l4.gguf",
                          "r1/one/two/three/l3.gguf", "home/models/m.gguf",
                          "home/.cache/llama.cpp/org/repo/c.gguf"};
    assert_int_equal(l.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < l.n; i++)
        assert_string_equal(rel(l.paths[i]), want[i]);
    rl_model_paths_free(&l);
    rl_model_roots_free(&roots);
}

static void test_cap(void **state)
{
    (void)state;
    char many[8192], r1[8192];
    path_of(many, sizeof many, "many");
    path_of(r1, sizeof r1, "r1");
    char *dirs[] = {many, r1};
    rl_model_roots roots = {dirs, 2};
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_find(&roots, RL_MODEL_FIND_DEPTH, RL_MODEL_FIND_MAX, &l, &err),
                     RL_OK);
    assert_int_equal(l.n, RL_MODEL_FIND_MAX);
    assert_int_equal(RL_MODEL_FIND_MAX, 200);
    assert_string_equal(rel(l.paths[199]), "many/m199.gguf");
    rl_model_paths_free(&l);
}

static void test_total_bytes(void **state)
{
    (void)state;
    char p[8192];
    path_of(p, sizeof p, "r1/s-00001-of-00003.gguf");
    assert_int_equal(rl_model_total_bytes(p), 600);
    path_of(p, sizeof p, "r1/s-00002-of-00003.gguf"); /* any part names the whole model */
    assert_int_equal(rl_model_total_bytes(p), 600);
    path_of(p, sizeof p, "r1/t-00001-of-00002.gguf"); /* incomplete */
    assert_int_equal(rl_model_total_bytes(p), 0);
    path_of(p, sizeof p, "r1/top.gguf");
    assert_int_equal(rl_model_total_bytes(p), 10);
    path_of(p, sizeof p, "r1/missing.gguf");
    assert_int_equal(rl_model_total_bytes(p), 0);
}

static void test_spread(void **state)
{
    (void)state;
    size_t out[3];
    /* the published tool's test values, given out of order */
    const uint64_t b5[] = {4000, 100, 50000, 300, 200};
    const char *p5[] = {"d", "a", "e", "c", "b"};
    assert_int_equal(rl_model_spread(b5, p5, 5, 3, out), 3);
    assert_int_equal(b5[out[0]], 100);
    assert_int_equal(b5[out[1]], 300);
    assert_int_equal(b5[out[2]], 50000);
    /* a single model passes through */
    const uint64_t b1[] = {7};
    const char *p1[] = {"x"};
    assert_int_equal(rl_model_spread(b1, p1, 1, 3, out), 1);
    assert_int_equal(out[0], 0);
    /* two or three: all of them, smallest first */
    const uint64_t b2[] = {9, 3};
    const char *p2[] = {"x", "y"};
    assert_int_equal(rl_model_spread(b2, p2, 2, 3, out), 2);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 0);
    /* four: the middle position 1.5 rounds to even (2) */
    const uint64_t b4[] = {1, 2, 3, 4};
    const char *p4[] = {"a", "b", "c", "d"};
    assert_int_equal(rl_model_spread(b4, p4, 4, 3, out), 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 2);
    assert_int_equal(out[2], 3);
    /* six: 2.5 rounds to 2; equal sizes are ordered by path */
    const uint64_t b6[] = {5, 5, 5, 5, 5, 5};
    const char *p6[] = {"f", "e", "d", "c", "b", "a"};
    assert_int_equal(rl_model_spread(b6, p6, 6, 3, out), 3);
    assert_string_equal(p6[out[0]], "a");
    assert_string_equal(p6[out[1]], "c");
    assert_string_equal(p6[out[2]], "f");
    /* none */
    assert_int_equal(rl_model_spread(b6, p6, 0, 3, out), 0);
}

static void test_pick(void **state)
{
    (void)state;
    char dir[8192];
    path_of(dir, sizeof dir, "pick");
    rl_model_paths l = {0};
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_model_paths_add_dir(&l, dir, 0, NULL, &err), RL_OK);
    assert_int_equal(l.n, 5);
    /* by size a, mid, b, c, z: the spread picks a, b, z; z does not load, so it is made again
     * over a, mid, b, c: a, b (position 1.5 -> 2), c */
    char notes[8192] = "";
    FILE *note = fmemopen(notes, sizeof notes - 1, "w");
    assert_non_null(note);
    size_t idx[RL_MODEL_PICK], n = 99;
    assert_int_equal(rl_model_pick(&l, RL_MODEL_PICK, note, idx, &n, &err), RL_OK);
    fclose(note);
    assert_int_equal(n, 3);
    assert_string_equal(rel(l.paths[idx[0]]), "pick/a.gguf");
    assert_string_equal(rel(l.paths[idx[1]]), "pick/b.gguf");
    assert_string_equal(rel(l.paths[idx[2]]), "pick/c.gguf");
    assert_non_null(strstr(notes, "skipping "));
    assert_non_null(strstr(notes, "z.gguf"));
    assert_null(strstr(notes, "mid.gguf")); /* never picked, never read */
    rl_model_paths_free(&l);
}

static void mtime_of(const char *p, struct timespec *t)
{
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    *t = sb.st_mtim;
}

static void test_ladder(void **state)
{
    (void)state;
    char cache[8192];
    path_of(cache, sizeof cache, "cache");
    rl_synth_ladder l;
    rl_error err = {RL_OK, ""};
    assert_int_equal(rl_synth_ladder_ensure(cache, "tiny", NULL, false, &l, &err), RL_OK);
    assert_string_equal(l.preset, "tiny");
    assert_string_equal(rel(l.paths[0]), "cache/synth/tiny-Q4_0-seed1.gguf");
    assert_string_equal(rel(l.paths[1]), "cache/synth/tiny-Q8_0-seed1.gguf");
    assert_string_equal(rel(l.paths[2]), "cache/synth/tiny-F16-seed1.gguf");
    struct timespec t[RL_LADDER_N];
    for (int i = 0; i < RL_LADDER_N; i++) {
        assert_true(l.written[i]);
        assert_int_equal(rl_model_total_bytes(l.paths[i]), l.file_bytes[i]);
        mtime_of(l.paths[i], &t[i]);
    }
    /* at least 3x in file bytes from the first rung to the last (streamed bytes: 3.5x) */
    assert_true(l.file_bytes[2] >= 3 * l.file_bytes[0]);
    rl_synth_ladder_free(&l);

    /* a second call reuses every rung and touches nothing */
    assert_int_equal(rl_synth_ladder_ensure(cache, "tiny", NULL, false, &l, &err), RL_OK);
    for (int i = 0; i < RL_LADDER_N; i++) {
        struct timespec now;
        assert_false(l.written[i]);
        mtime_of(l.paths[i], &now);
        assert_int_equal(now.tv_sec, t[i].tv_sec);
        assert_int_equal(now.tv_nsec, t[i].tv_nsec);
    }
    /* a truncated rung and one with a changed header byte are written again */
    assert_int_equal(truncate(l.paths[1], 1000), 0);
    FILE *f = fopen(l.paths[2], "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 40, SEEK_SET), 0);
    fputc('#', f);
    assert_int_equal(fclose(f), 0);
    char p0[8192];
    snprintf(p0, sizeof p0, "%s", l.paths[0]);
    rl_synth_ladder_free(&l);
    assert_int_equal(rl_synth_ladder_ensure(cache, "tiny", NULL, false, &l, &err), RL_OK);
    assert_false(l.written[0]);
    assert_true(l.written[1]);
    assert_true(l.written[2]);
    assert_string_equal(l.paths[0], p0);
    assert_int_equal(rl_model_total_bytes(l.paths[1]), l.file_bytes[1]);
    rl_synth_ladder_free(&l);
    rl_synth_ladder_free(&l); /* twice is safe */

    /* refusals */
    assert_int_equal(rl_synth_ladder_ensure(cache, "nope", NULL, false, &l, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "LLAMA_ROOFLINE_SYNTH_PRESET: unknown preset 'nope'"));
    assert_null(l.dir);
    assert_int_equal(rl_synth_ladder_ensure(NULL, NULL, NULL, false, &l, &err), RL_EOUTPUT);
    assert_non_null(strstr(err.msg, "LLAMA_ROOFLINE_CACHE"));
    char file[8192];
    path_of(file, sizeof file, "r1/top.gguf"); /* a file where the cache directory should be */
    assert_int_equal(rl_synth_ladder_ensure(file, "tiny", NULL, false, &l, &err), RL_EOUTPUT);
    assert_null(l.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roots),
        cmocka_unit_test(test_depth_and_skips),
        cmocka_unit_test(test_llama_models_and_home),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_total_bytes),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_pick),
        cmocka_unit_test(test_ladder),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
