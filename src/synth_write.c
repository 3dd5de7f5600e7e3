/* synth_write.c: the streaming GGUF writer of a synthetic model (see synth.h); the values come
 * from synth_gen.c.
 *
 * The writer never holds the model in memory: a generator thread fills one of two fixed-size
 * chunk buffers while the calling thread write()s the other, so generation and the kernel's
 * copy overlap on two cores. Output goes to "<path>.tmp", renamed into place when complete
 * and removed on any failure. Ownership: nothing returned is allocated. */
#include "synth.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ggml_types.h"
#include "rl_util.h"
#include "synth_gen.h"

/* ---- writer ------------------------------------------------------------------------------ */

#define CHUNK_BYTES (8u << 20)

/* One piece of the file: bytes to write, made by the generator thread. */
typedef struct {
    unsigned char *data;
    size_t len;
    bool last;
} piece;

typedef struct {
    const rl_synth_plan *p;
    piece slot[2];
    int full[2]; /* slot holds a piece not yet written */
    bool stop;   /* writer failed: generator should quit */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pipeline;

/* Generator: header + padding, then every tensor chunk by chunk, each tensor padded. Pieces
 * never mix header and tensor data, which keeps the code simple; padding is appended to the
 * piece that ends a tensor (a chunk is at most CHUNK_BYTES + SYNTH_ALIGNMENT). */
static void *generator(void *arg)
{
    pipeline *pl = arg;
    const rl_synth_plan *p = pl->p;
    int s = 0;
    size_t ti = 0;
    uint64_t next = 0; /* next element of tensor ti */
    bool header_done = false;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        while (pl->full[s] && !pl->stop)
            pthread_cond_wait(&pl->cv, &pl->mu);
        bool stop = pl->stop;
        pthread_mutex_unlock(&pl->mu);
        if (stop)
            return NULL;

        piece *pc = &pl->slot[s];
        pc->last = false;
        if (!header_done) {
            /* the header may exceed one chunk (large vocabularies): the writer writes it
             * directly from p->header; this piece carries only its padding */
            pc->len = (size_t)(p->data_offset - p->header_len);
            memset(pc->data, 0, pc->len);
            header_done = true;
            pc->last = p->n_tensors == 0;
        } else {
            const rl_synth_tensor *t = &p->tensors[ti];
            const rl_ggml_type_info *tt = rl_ggml_type_get(t->type);
            /* whole blocks, a multiple of SYNTH_CHUNK_ALIGN elements (F32 2 Mi, F16 4 Mi,
             * Q8_0/Q4_0 whole 32-element blocks) */
            uint64_t per_chunk = CHUNK_BYTES / tt->type_size * tt->blck;
            uint64_t n = t->n_elements - next < per_chunk ? t->n_elements - next : per_chunk;
            rl_synth_generate(p, ti, next, n, pc->data);
            pc->len = (size_t)(n / tt->blck * tt->type_size);
            next += n;
            if (next == t->n_elements) {
                size_t pad =
                    (size_t)((SYNTH_ALIGNMENT - t->n_bytes % SYNTH_ALIGNMENT) % SYNTH_ALIGNMENT);
                memset(pc->data + pc->len, 0, pad);
                pc->len += pad;
                ti++;
                next = 0;
                pc->last = ti == p->n_tensors;
            }
        }
        pthread_mutex_lock(&pl->mu);
        pl->full[s] = 1;
        pthread_cond_broadcast(&pl->cv);
        pthread_mutex_unlock(&pl->mu);
        if (pc->last)
            return NULL;
        s ^= 1;
    }
}

/* write() all of buf, retrying short writes and EINTR; errno set on failure. */
static bool write_all(int fd, const void *data, size_t len)
{
    const unsigned char *b = data;
    while (len > 0) {
        ssize_t w = write(fd, b, len > (1u << 30) ? (1u << 30) : len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (w == 0) {
            errno = ENOSPC;
            return false;
        }
        b += w;
        len -= (size_t)w;
    }
    return true;
}

static rl_status write_stream(const rl_synth_plan *p, int fd, const char *path, bool show_progress,
                              rl_error *err)
{
    pipeline pl;
    memset(&pl, 0, sizeof pl);
    pl.p = p;
    for (int i = 0; i < 2; i++) {
        pl.slot[i].data = malloc(CHUNK_BYTES + SYNTH_ALIGNMENT);
        if (!pl.slot[i].data) {
            free(pl.slot[0].data);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
    }
    pthread_mutex_init(&pl.mu, NULL);
    pthread_cond_init(&pl.cv, NULL);

    rl_status st = RL_OK;
    int saved = 0;
    if (!write_all(fd, p->header, p->header_len)) {
        saved = errno;
        st = RL_EOUTPUT;
    }
    pthread_t th;
    bool started = false;
    if (st == RL_OK) {
        int rc = pthread_create(&th, NULL, generator, &pl);
        if (rc != 0)
            st = rl_fail(err, RL_EINTERNAL, "cannot start a thread: %s", strerror(rc));
        else
            started = true;
    }
    uint64_t done = p->header_len, shown = 0;
    const double gb = 1e9;
    for (int s = 0; st == RL_OK;) {
        pthread_mutex_lock(&pl.mu);
        while (!pl.full[s])
            pthread_cond_wait(&pl.cv, &pl.mu);
        pthread_mutex_unlock(&pl.mu);
        piece *pc = &pl.slot[s];
        if (rl_interrupted) {
            st = RL_EINTERRUPTED;
            rl_fail(err, st, "interrupted; %s not written", path);
            break;
        }
        if (!write_all(fd, pc->data, pc->len)) {
            saved = errno;
            st = RL_EOUTPUT;
            break;
        }
        done += pc->len;
        bool last = pc->last;
        pthread_mutex_lock(&pl.mu);
        pl.full[s] = 0;
        pthread_cond_broadcast(&pl.cv);
        pthread_mutex_unlock(&pl.mu);
        if (show_progress && (done - shown >= (64u << 20) || last)) {
            shown = done;
            rl_progress("synth: writing %s  %.2f / %.2f GB  %3.0f%%", path, (double)done / gb,
                        (double)p->file_size / gb, 100.0 * (double)done / (double)p->file_size);
        }
        if (last)
            break;
        s ^= 1;
    }
    if (started) {
        pthread_mutex_lock(&pl.mu);
        pl.stop = true;
        pthread_cond_broadcast(&pl.cv);
        pthread_mutex_unlock(&pl.mu);
        pthread_join(th, NULL);
    }
    if (show_progress)
        rl_progress_done();
    pthread_cond_destroy(&pl.cv);
    pthread_mutex_destroy(&pl.mu);
    free(pl.slot[0].data);
    free(pl.slot[1].data);
    if (st == RL_EOUTPUT)
        return rl_fail(err, RL_EOUTPUT,
                       "cannot write %s: %s (free some space or choose another path)", path,
                       strerror(saved));
    if (st == RL_OK && done != p->file_size)
        return rl_fail(err, RL_EINTERNAL, "wrote %llu bytes to %s, expected %llu",
                       (unsigned long long)done, path, (unsigned long long)p->file_size);
    return st;
}

rl_status rl_synth_write(const rl_synth_plan *p, const char *path, bool show_progress,
                         rl_error *err)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode))
            return rl_fail(err, RL_EOUTPUT, "cannot write %s: it is a directory", path);
        /* a device or a pipe (e.g. /dev/null): write straight to it */
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return rl_fail(err, RL_EOUTPUT, "cannot write %s: %s", path, strerror(errno));
        rl_status st = write_stream(p, fd, path, show_progress, err);
        if (close(fd) != 0 && st == RL_OK)
            st = rl_fail(err, RL_EOUTPUT, "cannot write %s: %s", path, strerror(errno));
        return st;
    }

    char *tmp = rl_asprintf("%s.tmp", path);
    if (!tmp)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (choose a writable path)", path,
                       strerror(e));
    }
    rl_status st = write_stream(p, fd, path, show_progress, err);
    if (close(fd) != 0 && st == RL_OK)
        st =
            rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (free some space or choose another path)",
                    path, strerror(errno));
    if (st == RL_OK && rename(tmp, path) != 0)
        st = rl_fail(err, RL_EOUTPUT, "cannot write %s: %s (choose a writable path)", path,
                     strerror(errno));
    if (st != RL_OK)
        unlink(tmp);
    free(tmp);
    return st;
}
