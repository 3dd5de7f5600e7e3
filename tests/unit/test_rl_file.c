/* SPDX-License-Identifier: MIT */
/* test_rl_file.c: the output-safety helpers of base/rl_file.h: rl_same_file (device and inode,
 * hard links, symbolic links, other spellings, files not there yet, files in a directory not made
 * yet by spelling), rl_check_outputs (exact messages), rl_output_lock (taken, taken again, refused
 * while another descriptor holds it, with and without a process id, the lock file removed on
 * release), and no output through a symbolic link (rl_atomic_open, rl_check_writable, a link to a
 * device still written). Checked to fail before the fix: rl_atomic_open wrote through a link to a
 * file is the case that existed then (the others did not exist); with it replaced by the old stat()
 * the symlink tests fail. Commits: two fsyncs each, none once interrupted (test_commit_sync). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/rl_file.h"
#include "rl_test.h"

static char dir[4096];

static void make_dir(const char *name)
{
    const char *t = getenv("RL_TMP");
    snprintf(dir, sizeof dir, "%s/%s-%ld", t && *t ? t : "/tmp", name, (long)getpid());
    assert_int_equal(mkdir(dir, 0777), 0);
}

static const char *at(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    return buf;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect_text(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

static void test_same_file(void **state)
{
    (void)state;
    make_dir("samefile");
    char a[4200], h[4200], l[4200], other[4200], alt[4300], n1[4200], n2[4300];
    put(at(a, sizeof a, "a.json"), "{}");
    put(at(other, sizeof other, "b.json"), "{}");
    assert_int_equal(link(a, at(h, sizeof h, "hard.json")), 0);
    assert_int_equal(symlink("a.json", at(l, sizeof l, "link.json")), 0);
    snprintf(alt, sizeof alt, "%s/./a.json", dir);
    assert_true(rl_same_file(a, a));
    assert_true(rl_same_file(a, h));   /* a hard link */
    assert_true(rl_same_file(l, a));   /* a path through a symbolic link */
    assert_true(rl_same_file(alt, a)); /* another spelling */
    assert_false(rl_same_file(a, other));
    /* not there yet: the same directory and name */
    at(n1, sizeof n1, "new.csv");
    snprintf(n2, sizeof n2, "%s/../%s/new.csv", dir, strrchr(dir, '/') + 1);
    assert_true(rl_same_file(n1, n2));
    assert_false(rl_same_file(n1, at(n2, sizeof n2, "new2.csv")));
    assert_false(rl_same_file(n1, a)); /* one there, one not */
    /* in a directory not made yet: by spelling, repeated slashes and "." dropped */
    char m1[4300], m2[4300], m3[4300];
    snprintf(m1, sizeof m1, "%s/notyet/bundle.json", dir);
    snprintf(m2, sizeof m2, "%s//notyet/./bundle.json", dir);
    snprintf(m3, sizeof m3, "%s/notyet/report.html", dir);
    assert_true(rl_same_file(m1, m2));
    assert_false(rl_same_file(m1, m3));
    assert_true(rl_same_file("./nowhere-x/a", "nowhere-x//a"));
    assert_false(rl_same_file("nowhere-x/a", "nowhere-y/a"));
    assert_false(rl_same_file(m1, n1)); /* one directory there, one not */
    assert_false(rl_same_file("-", "-"));
    assert_false(rl_same_file(NULL, a));
    assert_false(rl_same_file("/dev/null", "/dev/null")); /* a device is never clobbered */
}

static void test_check_outputs(void **state)
{
    (void)state;
    char a[4200], l[4200], msg[9000];
    at(a, sizeof a, "a.json");
    at(l, sizeof l, "link.json");
    rl_error e = {0};
    rl_path_arg in[] = {{"--from", a}, {"--prompts", NULL}};
    rl_path_arg out[] = {{"--csv", l}};
    assert_int_equal(rl_check_outputs(in, 2, out, 1, &e), RL_EINPUT);
    snprintf(msg, sizeof msg, "--csv %s is the same file as the input %s: choose another --csv", l,
             a);
    assert_string_equal(e.msg, msg);
    char x[4200];
    rl_path_arg two[] = {{"--json", at(x, sizeof x, "x.json")}, {"--csv", "-"}, {"--chunks", x}};
    assert_int_equal(rl_check_outputs(NULL, 0, two, 2, &e), RL_OK); /* "-" is stdout */
    assert_int_equal(rl_check_outputs(NULL, 0, two, 3, &e), RL_EINPUT);
    snprintf(msg, sizeof msg,
             "--json %s and --chunks %s are the same file: choose another --chunks", x, x);
    assert_string_equal(e.msg, msg);
}

static void test_lock(void **state)
{
    (void)state;
    char b[4200], lk[4200], other[4200], olk[4200], msg[9000];
    at(b, sizeof b, "bundle.json");
    at(lk, sizeof lk, ".bundle.json.lock");
    rl_error e = {0};
    assert_int_equal(rl_output_lock(b, dir, "choose another -o", &e), RL_OK);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    expect_text(lk, pid);
    assert_int_equal(rl_output_lock(b, dir, "choose another -o", &e), RL_OK); /* ours already */
    /* another holder (a descriptor of its own), with a process id in the file, then without */
    at(other, sizeof other, "m.json");
    put(at(olk, sizeof olk, ".m.json.lock"), "4242\n");
    int fd = open(olk, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    assert_int_equal(rl_output_lock(other, "m.json", "choose another -o", &e), RL_EOUTPUT);
    assert_string_equal(e.msg, "m.json is being written by another llama-roofline (pid 4242); "
                               "wait for it or choose another -o");
    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(rl_output_lock(other, "m.json", "choose another --json", &e), RL_EOUTPUT);
    assert_string_equal(e.msg, "m.json is being written by another process; wait for it or choose "
                               "another --json");
    close(fd); /* released: a stale file is no obstacle */
    assert_int_equal(rl_output_lock(other, "m.json", "choose another -o", &e), RL_OK);
    rl_output_unlock_all();
    assert_int_equal(access(lk, F_OK), -1);
    assert_int_equal(access(olk, F_OK), -1);
    /* a lock file that is a symbolic link is not followed */
    char t[4200];
    put(at(t, sizeof t, "target"), "keep");
    assert_int_equal(symlink("target", lk), 0);
    assert_int_equal(rl_output_lock(b, dir, "choose another -o", &e), RL_EOUTPUT);
    snprintf(msg, sizeof msg, "cannot lock %s: ", lk);
    assert_memory_equal(e.msg, msg, strlen(msg));
    expect_text(t, "keep");
    unlink(lk);
}

static void test_no_symlink_output(void **state)
{
    (void)state;
    char t[4200], l[4200], d[4200], gone[4200], nul[4200], msg[9000];
    put(at(t, sizeof t, "target"), "precious");
    assert_int_equal(symlink("target", at(l, sizeof l, "out.json")), 0);
    assert_int_equal(symlink("gone", at(d, sizeof d, "dangling.json")), 0);
    assert_int_equal(symlink("/dev/null", at(nul, sizeof nul, "null")), 0);
    rl_error e = {0};
    rl_atomic a;
    assert_int_equal(rl_atomic_open(l, &a, &e), RL_EOUTPUT);
    snprintf(msg, sizeof msg,
             "cannot write %s: it is a symbolic link (remove it or choose another path)", l);
    assert_string_equal(e.msg, msg);
    assert_int_equal(rl_write_file(l, "x", 1, &e), RL_EOUTPUT);
    assert_int_equal(rl_check_writable(l, &e), RL_EOUTPUT);
    assert_string_equal(e.msg, msg);
    expect_text(t, "precious");
    assert_int_equal(rl_write_file(d, "x", 1, &e), RL_EOUTPUT);
    assert_int_equal(access(at(gone, sizeof gone, "gone"), F_OK), -1);
    /* a link to a device is written in place (-o /dev/stdout into a pipe) */
    assert_int_equal(rl_check_writable(nul, &e), RL_OK);
    assert_int_equal(rl_write_file(nul, "x", 1, &e), RL_OK);
    struct stat sb;
    assert_int_equal(lstat(nul, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
}

/* A commit syncs the file and its directory; once Ctrl-C was pressed it skips both (the
 * command must end within a second on a busy disk), and the file is still complete. */
static void test_commit_sync(void **state)
{
    (void)state;
    char p[4200], q[4200];
    rl_error e = {0};
    rl_atomic a;
    unsigned long n0 = rl_file_syncs();
    assert_int_equal(rl_atomic_open(at(p, sizeof p, "synced.json"), &a, &e), RL_OK);
    assert_int_equal(rl_atomic_write(&a, "{}", 2, &e), RL_OK);
    assert_int_equal(rl_atomic_commit(&a, &e), RL_OK);
    assert_int_equal(rl_file_syncs(), n0 + 2);
    expect_text(p, "{}");
    rl_interrupted = 1;
    assert_int_equal(rl_atomic_open(at(q, sizeof q, "late.json"), &a, &e), RL_OK);
    a.finish = true; /* the bundle's last write, after Ctrl-C */
    assert_int_equal(rl_atomic_write(&a, "[1]", 3, &e), RL_OK);
    assert_int_equal(rl_atomic_commit(&a, &e), RL_OK);
    rl_interrupted = 0;
    assert_int_equal(rl_file_syncs(), n0 + 2);
    expect_text(q, "[1]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_file),   cmocka_unit_test(test_check_outputs),
        cmocka_unit_test(test_lock),        cmocka_unit_test(test_no_symlink_output),
        cmocka_unit_test(test_commit_sync),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
