/* SPDX-License-Identifier: MIT */
/* rl_file.c: atomic writes, interrupt-aware write loops, regular-file reads, output locks and
 * the same-file check. See rl_file.h. */
#include "base/rl_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

/* Registry of live temporary files for the second-Ctrl-C path. Each slot holds a pointer to a
 * string owned by an rl_atomic; the handler only reads them. */
#define N_SLOTS 8
static char *volatile slots[N_SLOTS];

static int slot_take(char *tmp)
{
    for (int i = 0; i < N_SLOTS; i++)
        if (!slots[i]) {
            slots[i] = tmp;
            return i;
        }
    return -1;
}

static void slot_release(int i)
{
    if (i >= 0 && i < N_SLOTS)
        slots[i] = NULL;
}

/* Output locks held by this process (rl_output_lock): descriptor, lock file, its identity. The
 * paths are also in lock_paths for the signal handler. */
#define N_LOCKS 4
typedef struct {
    int fd;
    char *path;
    dev_t dev;
    ino_t ino;
} lock_slot;
static lock_slot locks[N_LOCKS];
static char *volatile lock_paths[N_LOCKS];
static pid_t lock_owner; /* a forked child never removes its parent's lock files */

void rl_file_cleanup_signal(void)
{
    for (int i = 0; i < N_SLOTS; i++) {
        char *p = slots[i];
        if (p)
            unlink(p);
    }
    for (int i = 0; i < N_LOCKS && getpid() == lock_owner; i++) {
        char *p = lock_paths[i];
        if (p)
            unlink(p);
    }
}

const char *rl_file_base_name(const char *path)
{
    const char *base = path;
    for (const char *q = path; q && *q; q++)
        if (*q == '/' || *q == '\\')
            base = q + 1;
    return base;
}

/* Directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return rl_strdup(".");
    if (slash == path)
        return rl_strdup("/");
    return rl_asprintf("%.*s", (int)(slash - path), path);
}

static mode_t file_mode(void)
{
    /* The mode a plain open(O_CREAT, 0666) would give: read the umask without racing threads
     * (it is set back at once). */
    static mode_t mode;
    static int known;
    if (!known) {
        mode_t u = umask(022);
        umask(u);
        mode = 0666 & ~u;
        known = 1;
    }
    return mode;
}

static rl_status out_fail(rl_error *err, const char *path, int e, const char *hint)
{
    return rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (%s)", path, strerror(e), hint);
}

static bool is_stream(mode_t m)
{
    return S_ISCHR(m) || S_ISFIFO(m);
}

static rl_status link_fail(rl_error *err, const char *path)
{
    char safe[512];
    return rl_fail(err, RL_EOUTPUT,
                   "cannot write %s: it is a symbolic link (remove it or choose another path)",
                   rl_tty_escape(path, safe, sizeof safe));
}

/* An output path that names a directory, or nothing at all. */
static rl_status dir_fail(rl_error *err, const char *path)
{
    char safe[512];
    if (!*path)
        return rl_fail(err, RL_EOUTPUT, "cannot write an empty path: give a file name");
    return rl_fail(err, RL_EOUTPUT, "cannot write %s: it is a directory (give a file path in it)",
                   rl_tty_escape(path, safe, sizeof safe));
}

rl_status rl_atomic_open(const char *path, rl_atomic *a, rl_error *err)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->slot = -1;
    if (!*path)
        return dir_fail(err, path);
    struct stat sb;
    bool link = lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode);
    if (link && (stat(path, &sb) != 0 || !is_stream(sb.st_mode)))
        return link_fail(err, path); /* never written through: a pipe or device only */
    if (link || stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return dir_fail(err, path);
        if (is_stream(sb.st_mode)) {
            a->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | (link ? 0 : O_NOFOLLOW));
            if (a->fd < 0)
                return out_fail(err, path, errno, "choose a writable path");
            if (fstat(a->fd, &sb) != 0 || !is_stream(sb.st_mode)) { /* replaced since */
                close(a->fd);
                a->fd = -1;
                return link_fail(err, path);
            }
            a->direct = true;
            a->path = rl_strdup(path);
            if (!a->path) {
                rl_atomic_abort(a);
                return rl_fail(err, RL_EINTERNAL, "out of memory");
            }
            return RL_OK;
        }
    }
    char *dir = dir_of(path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    a->path = rl_strdup(path);
    a->tmp = dir ? rl_asprintf("%s/.%.64s.XXXXXX", dir, base) : NULL;
    free(dir);
    if (!a->path || !a->tmp) {
        rl_atomic_abort(a);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    a->fd = mkostemp(a->tmp, O_CLOEXEC); /* O_CREAT | O_EXCL with a unique name */
    if (a->fd < 0) {
        int e = errno;
        free(a->tmp);
        a->tmp = NULL;
        rl_atomic_abort(a);
        return out_fail(err, path, e, "choose a writable path");
    }
    a->slot = slot_take(a->tmp);
    if (fchmod(a->fd, file_mode()) != 0) {
        int e = errno;
        rl_atomic_abort(a);
        return out_fail(err, path, e, "choose a writable path");
    }
    return RL_OK;
}

rl_status rl_write_all(int fd, const void *data, size_t len, const char *name, bool interruptible,
                       rl_error *err)
{
    const char *p = data;
    while (len > 0) {
        if (interruptible && rl_interrupted)
            return rl_fail(err, RL_EINTERRUPTED, "interrupted while writing %s", name);
        ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
        if (w < 0) {
            if (errno == EINTR)
                continue; /* the loop head checks the flag when the write may stop */
            return out_fail(err, name, errno, "free some space or choose another path");
        }
        p += w;
        len -= (size_t)w;
    }
    return RL_OK;
}

rl_status rl_atomic_write(rl_atomic *a, const void *data, size_t len, rl_error *err)
{
    if (a->fd < 0)
        return rl_fail(err, RL_EINTERNAL, "write to a closed file");
    return rl_write_all(a->fd, data, len, a->path, !a->finish, err);
}

/* fsyncs done by commits (rl_file_syncs): the test that Ctrl-C skips them. */
static unsigned long n_syncs;

unsigned long rl_file_syncs(void)
{
    return n_syncs;
}

/* A commit syncs unless Ctrl-C was pressed: then the command must end within a second, and
 * on a disk busy with other writes each fsync can wait for all of them (ext4 flushes its
 * journal). The data is complete in the page cache and the rename is atomic; only a power cut
 * in the next seconds could lose it. */
static bool want_sync(void)
{
    return !rl_interrupted;
}

static void fsync_dir(const char *path)
{
    if (!want_sync())
        return;
    n_syncs++;
    char *dir = dir_of(path);
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* best effort: some file systems refuse fsync on directories */
        close(fd);
    }
    free(dir);
}

rl_status rl_atomic_commit(rl_atomic *a, rl_error *err)
{
    if (a->fd < 0 || !a->path) {
        rl_atomic_abort(a);
        return rl_fail(err, RL_EINTERNAL, "commit of a closed file");
    }
    rl_status st = RL_OK;
    if (a->direct) {
        if (close(a->fd) != 0 && errno != EINTR)
            st = out_fail(err, a->path, errno, "choose a writable path");
        a->fd = -1;
        rl_atomic_abort(a);
        return st;
    }
    if (want_sync()) {
        n_syncs++;
        if (fsync(a->fd) != 0 && errno != EINVAL)
            st = out_fail(err, a->path, errno, "free some space or choose another path");
    }
    int rc = close(a->fd);
    a->fd = -1;
    if (st == RL_OK && rc != 0 && errno != EINTR)
        st = out_fail(err, a->path, errno, "free some space or choose another path");
    if (st == RL_OK && rename(a->tmp, a->path) != 0)
        st = out_fail(err, a->path, errno, "choose a writable path");
    if (st != RL_OK) {
        rl_atomic_abort(a);
        return st;
    }
    slot_release(a->slot);
    a->slot = -1;
    free(a->tmp);
    a->tmp = NULL;
    fsync_dir(a->path);
    free(a->path);
    a->path = NULL;
    return RL_OK;
}

void rl_atomic_abort(rl_atomic *a)
{
    if (a->fd >= 0) {
        close(a->fd);
        a->fd = -1;
    }
    if (a->tmp) {
        unlink(a->tmp);
        slot_release(a->slot);
        a->slot = -1;
        free(a->tmp);
        a->tmp = NULL;
    }
    free(a->path);
    a->path = NULL;
}

rl_status rl_write_file(const char *path, const void *data, size_t len, rl_error *err)
{
    rl_atomic a;
    rl_status st = rl_atomic_open(path, &a, err);
    if (st != RL_OK)
        return st;
    a.finish = true; /* a result file is saved even after Ctrl-C */
    st = rl_atomic_write(&a, data, len, err);
    if (st != RL_OK) {
        rl_atomic_abort(&a);
        return st;
    }
    return rl_atomic_commit(&a, err);
}

rl_status rl_write_output(const char *path, const void *data, size_t len, rl_tty_kind kind,
                          rl_error *err)
{
    bool out = strcmp(path, "-") == 0;
    if (!out && kind == RL_TTY_TEXT)
        return rl_write_file(path, data, len, err);
    size_t n;
    char *safe = rl_tty_safe(data, len, kind, &n);
    if (!safe)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st;
    if (out) {
        fflush(stdout); /* what was printed with stdio before stays before */
        st = rl_write_all(STDOUT_FILENO, safe, n, "standard output", false, err);
    } else {
        st = rl_write_file(path, safe, n, err);
    }
    free(safe);
    return st;
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool stat_dir_of(const char *path, struct stat *sb)
{
    char *dir = dir_of(path);
    bool ok = dir && stat(dir, sb) == 0;
    free(dir);
    return ok;
}

/* path with repeated slashes and "." components dropped, into a new string ("./a//./b" is
 * "a/b", "/x/" is "/x"); NULL when out of memory. */
static char *spelling(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 2), *o = out;
    if (!out)
        return NULL;
    if (*path == '/')
        *o++ = '/';
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        const char *q = p;
        while (*q && *q != '/')
            q++;
        bool dot = q - p == 1 && *p == '.';
        if (q > p && !dot) {
            if (o > out && o[-1] != '/')
                *o++ = '/';
            memcpy(o, p, (size_t)(q - p));
            o += q - p;
        }
        p = q;
    }
    *o = '\0';
    return out;
}

static bool same_spelling(const char *a, const char *b)
{
    char *x = spelling(a), *y = spelling(b);
    bool same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

bool rl_same_file(const char *a, const char *b)
{
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return false;
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea || eb) /* a pipe or device (/dev/null twice) is never clobbered */
        return ea && eb && S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    bool da = stat_dir_of(a, &sa), db = stat_dir_of(b, &sb);
    if (!da && !db) /* both in a directory not made yet (-o NEW --csv NEW/bundle.json) */
        return same_spelling(a, b);
    return da && db && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
           strcmp(base_of(a), base_of(b)) == 0;
}

rl_status rl_check_outputs(const rl_path_arg *in, size_t n_in, const rl_path_arg *out, size_t n_out,
                           rl_error *err)
{
    char s1[512], s2[512];
    for (size_t i = 0; i < n_out; i++) {
        for (size_t k = 0; k < n_in; k++)
            if (rl_same_file(out[i].path, in[k].path))
                return rl_fail(err, RL_EINPUT,
                               "%s %s is the same file as the input %s: choose another %s",
                               out[i].flag, rl_tty_escape(out[i].path, s1, sizeof s1),
                               rl_tty_escape(in[k].path, s2, sizeof s2), out[i].flag);
        for (size_t k = 0; k < i; k++)
            if (rl_same_file(out[i].path, out[k].path))
                return rl_fail(err, RL_EINPUT,
                               "%s %s and %s %s are the same file: choose another %s", out[k].flag,
                               rl_tty_escape(out[k].path, s1, sizeof s1), out[i].flag,
                               rl_tty_escape(out[i].path, s2, sizeof s2), out[i].flag);
    }
    return RL_OK;
}

void rl_output_unlock_all(void)
{
    for (int i = 0; i < N_LOCKS; i++) {
        if (!locks[i].path)
            continue;
        lock_paths[i] = NULL;
        if (getpid() == lock_owner)
            unlink(locks[i].path); /* while still held: a waiter re-checks the inode */
        close(locks[i].fd);
        free(locks[i].path);
        locks[i].path = NULL;
    }
}

/* The process id written in a lock file; 0 when there is none. */
static long lock_holder(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long v = strtol(buf, &end, 10);
    return v > 0 && (*end == '\n' || *end == '\0') ? v : 0;
}

/* Lock the open lock file fd (identity fs) as lp: 1 taken, 0 it was replaced since it was
 * opened (try again), -1 failed (*st and err filled). */
static int lock_take(int fd, const struct stat *fs, char *lp, const char *shown, const char *hint,
                     rl_status *st, rl_error *err)
{
    char safe[512];
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK ? lock_holder(fd) : 0;
        rl_tty_escape(shown, safe, sizeof safe);
        if (e != EWOULDBLOCK)
            *st = rl_fail(err, RL_EOUTPUT, "cannot lock %s: %s (%s)", safe, strerror(e), hint);
        else if (pid)
            *st = rl_fail(
                err, RL_EOUTPUT,
                "%s is being written by another llama-roofline (pid %ld); wait for it or %s", safe,
                pid, hint);
        else
            *st = rl_fail(err, RL_EOUTPUT,
                          "%s is being written by another process; wait for it or %s", safe, hint);
        return -1;
    }
    struct stat ps;
    if (lstat(lp, &ps) != 0 || ps.st_dev != fs->st_dev || ps.st_ino != fs->st_ino)
        return 0; /* its holder removed it after we opened it */
    int i = 0;
    while (i < N_LOCKS && locks[i].path)
        i++;
    if (i == N_LOCKS) {
        *st = rl_fail(err, RL_EINTERNAL, "more than %d output locks", N_LOCKS);
        return -1;
    }
    if (!lock_owner) {
        lock_owner = getpid();
        atexit(rl_output_unlock_all);
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    bool noted = ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) == n;
    (void)noted; /* the id only makes the message to a second process more helpful */
    locks[i] = (lock_slot){fd, lp, fs->st_dev, fs->st_ino};
    lock_paths[i] = lp;
    return 1;
}

rl_status rl_output_lock(const char *path, const char *shown, const char *hint, rl_error *err)
{
    char *dir = dir_of(path);
    char *lp = dir ? rl_asprintf("%s/.%.200s.lock", dir, base_of(path)) : NULL;
    free(dir);
    if (!lp)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (int tries = 0; tries < 16; tries++) {
        int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);
        struct stat fs;
        if (fd < 0 || fstat(fd, &fs) != 0 || !S_ISREG(fs.st_mode)) {
            int e = fd < 0 ? errno : EINVAL;
            char safe[512];
            if (fd >= 0)
                close(fd);
            rl_fail(err, RL_EOUTPUT, "cannot lock %s: %s (%s)",
                    rl_tty_escape(lp, safe, sizeof safe), strerror(e), hint);
            free(lp);
            return RL_EOUTPUT;
        }
        for (int i = 0; i < N_LOCKS; i++)
            if (locks[i].path && locks[i].dev == fs.st_dev && locks[i].ino == fs.st_ino) {
                close(fd); /* ours already */
                free(lp);
                return RL_OK;
            }
        rl_status st = RL_OK;
        int got = lock_take(fd, &fs, lp, shown, hint, &st, err);
        if (got == 1)
            return RL_OK;
        close(fd);
        if (got < 0) {
            free(lp);
            return st;
        }
    }
    free(lp);
    return rl_fail(err, RL_EOUTPUT, "cannot lock %s: its lock file keeps changing (%s)", shown,
                   hint);
}

rl_status rl_check_writable(const char *path, rl_error *err)
{
    struct stat sb;
    if (!*path)
        return dir_fail(err, path);
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
        (stat(path, &sb) != 0 || !is_stream(sb.st_mode)))
        return link_fail(err, path);
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return dir_fail(err, path);
    char *dir = dir_of(path);
    if (!dir)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_status st = RL_OK;
    if (access(dir, W_OK) != 0)
        st = rl_fail(err, RL_EOUTPUT,
                     "cannot write %s: directory %s is not writable or does not exist (choose a "
                     "writable path)",
                     path, dir);
    free(dir);
    return st;
}

rl_status rl_mkdir_p(const char *dir, const char *hint, rl_error *err)
{
    if (!*dir)
        return rl_fail(err, RL_EOUTPUT, "cannot create a directory with an empty name (%s)", hint);
    char *p = rl_strdup(dir);
    if (!p)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                rl_fail(err, RL_EOUTPUT, "cannot create %s: %s (%s)", p, strerror(e), hint);
                free(p);
                return RL_EOUTPUT;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return rl_fail(err, RL_EOUTPUT, "cannot use %s: not a directory (%s)", dir, hint);
    return RL_OK;
}

bool rl_free_space(int fd, uint64_t *avail)
{
    struct statvfs vfs;
    if (fstatvfs(fd, &vfs) != 0)
        return false;
    uint64_t b;
    if (__builtin_mul_overflow((uint64_t)vfs.f_bavail, (uint64_t)vfs.f_frsize, &b))
        b = UINT64_MAX;
    *avail = b;
    return true;
}

char *rl_cache_root(const char *cache_env, const char *home)
{
    if (cache_env && *cache_env)
        return rl_strdup(cache_env);
    if (home && *home)
        return rl_asprintf("%s/.cache/llama-roofline", home);
    return NULL;
}

rl_status rl_file_open_regular(const char *path, FILE **out, uint64_t *size, rl_error *err)
{
    *out = NULL;
    int fd;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    while (fd < 0 && errno == EINTR && !rl_interrupted);
    if (fd < 0) {
        if (rl_interrupted)
            return rl_fail(err, RL_EINTERRUPTED, "interrupted while opening %s", path);
        if (errno == ENOENT)
            return rl_fail(err, RL_EINPUT, "%s: no such file", path);
        return rl_fail(err, RL_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return rl_fail(err, RL_EINPUT, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        const char *what = S_ISDIR(sb.st_mode)    ? "a directory"
                           : S_ISFIFO(sb.st_mode) ? "a pipe (FIFO)"
                           : S_ISSOCK(sb.st_mode) ? "a socket"
                                                  : "a device";
        return rl_fail(err, RL_EINPUT, "%s: is %s, not a regular file (give a file)", path, what);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    *out = f;
    if (size)
        *size = (uint64_t)sb.st_size;
    return RL_OK;
}

static rl_status read_to_end(const char *path, FILE *f, size_t max, char **data, size_t *len,
                             rl_error *err)
{
    size_t cap = 4096, got = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        got += fread(buf + got, 1, cap - got, f);
        if (got < cap || cap > max)
            break;
        char *nb = realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (!buf)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    if (bad || got > max) {
        free(buf);
        return bad ? rl_fail(err, RL_EINPUT, "%s: read failed", path)
                   : rl_fail(err, RL_EINPUT, "%s: more than the %zu bytes this reads", path, max);
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return RL_OK;
}

rl_status rl_file_read_all(const char *path, size_t max, char **data, size_t *len, rl_error *err)
{
    FILE *f;
    uint64_t size;
    *data = NULL;
    *len = 0;
    rl_status st = rl_file_open_regular(path, &f, &size, err);
    if (st != RL_OK)
        return st;
    if (size > max) {
        fclose(f);
        return rl_fail(err, RL_EINPUT, "%s: %llu bytes is more than the %zu this reads", path,
                       (unsigned long long)size, max);
    }
    if (size == 0) /* a kernel pseudo-file (/proc/cpuinfo) says 0 bytes: read it to its end */
        return read_to_end(path, f, max, data, len, err);
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    size_t got = fread(buf, 1, (size_t)size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != size) {
        free(buf);
        return rl_fail(err, RL_EINPUT, "%s: read failed or the file changed while read", path);
    }
    buf[got] = '\0';
    *data = buf;
    *len = got;
    return RL_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void rl_dir_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

rl_status rl_dir_list(const char *dir, bool (*keep)(const char *name, void *ctx), void *ctx,
                      size_t max, char ***names_out, size_t *n_out, rl_error *err)
{
    *names_out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d)
        return rl_fail(err, RL_EINPUT, "cannot open directory %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    rl_status st = RL_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || (keep && !keep(e->d_name, ctx)))
            continue;
        if (n == max) {
            st = rl_fail(err, RL_EINPUT, "%s holds more than %zu entries", dir, max);
            break;
        }
        if (n == cap) {
            char **p = rl_grow(names, &cap, sizeof *p, 64);
            if (!p) {
                st = rl_fail(err, RL_EINTERNAL, "out of memory");
                break;
            }
            names = p;
        }
        if (!(names[n] = rl_strdup(e->d_name))) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (st != RL_OK) {
        rl_dir_names_free(names, n);
        return st;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    *names_out = names;
    *n_out = n;
    return RL_OK;
}

rl_status rl_check_output_kind(const char *verb, const char *path, rl_out_kind kind, rl_error *err)
{
    static const char *const formats[] = {"csv", "json", "jsonl", "md", "sql"};
    const char *what = kind == RL_OUT_DIR ? "a directory" : "a file";
    if (!path || !*path || strcmp(path, "-") == 0)
        return RL_OK; /* an empty -o: each command's own message */
    char safe[256];
    rl_tty_escape(path, safe, sizeof safe);
    struct stat st;
    if (lstat(path, &st) == 0 || stat(path, &st) == 0) {
        bool is_dir = S_ISDIR(st.st_mode) ||
                      (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISDIR(st.st_mode));
        if (kind == RL_OUT_DIR && !is_dir)
            return rl_fail(err, RL_EOUTPUT,
                           "-o %s is a file: %s's -o names a directory (its bundle.json goes "
                           "there); give a directory",
                           safe, verb);
        if (kind == RL_OUT_FILE && is_dir)
            return rl_fail(err, RL_EOUTPUT,
                           "-o %s is a directory: %s's -o names a file; give a file name", safe,
                           verb);
        return RL_OK;
    }
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(path, formats[i]) == 0)
            return rl_fail(err, RL_EINPUT,
                           "-o %s: %s's -o names %s, not an output format as llama-bench's -o "
                           "does (csv, json, jsonl, md, sql: see llama-roofline export); give "
                           "./%s to mean %s of that name",
                           safe, verb, what, safe, what);
    return RL_OK;
}
