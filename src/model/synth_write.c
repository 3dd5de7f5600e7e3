/* SPDX-License-Identifier: MIT */
/* synth_write.c: the streaming GGUF writer of a synthetic model (see synth_write.h).
 *
 * The writer never holds the model in memory: a generator thread fills one of two fixed-size
 * chunk buffers (synth_gen.h) while the calling thread writes the other through rl_atomic_*,
 * so generation and the kernel's copy overlap on two cores. Ownership: nothing returned is
 * allocated; the buffers and the thread live for one call. */
#include "model/synth_write.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "model/ggml_types.h"
#include "model/gguf_model.h"
#include "base/rl_file.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "model/synth_gen.h"

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

/* Start the generator with SIGINT and SIGTERM blocked (it inherits the mask), so a signal is
 * delivered to this thread, the one that can be blocked in write(). */
static int start_generator(pthread_t *th, pipeline *pl)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(th, NULL, generator, pl);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static rl_status write_stream(const rl_synth_plan *p, rl_atomic *a, const char *path,
                              bool show_progress, rl_error *err)
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

    /* the header (large with a big vocabulary) in chunk-sized writes, so an interrupt is seen
     * between them */
    rl_status st = RL_OK;
    for (size_t off = 0; st == RL_OK && off < p->header_len; off += CHUNK_BYTES) {
        size_t n = p->header_len - off < CHUNK_BYTES ? p->header_len - off : CHUNK_BYTES;
        st = rl_atomic_write(a, p->header + off, n, err);
    }
    pthread_t th;
    bool started = false;
    if (st == RL_OK) {
        int rc = start_generator(&th, &pl);
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
        st = rl_atomic_write(a, pc->data, pc->len, err); /* checks rl_interrupted */
        if (st != RL_OK)
            break;
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
    if (st == RL_OK && done != p->file_size)
        return rl_fail(err, RL_EINTERNAL, "wrote %llu bytes to %s, expected %llu",
                       (unsigned long long)done, path, (unsigned long long)p->file_size);
    return st;
}

rl_status rl_synth_space_check(const char *path, uint64_t need, uint64_t avail, rl_error *err)
{
    if (need <= avail)
        return RL_OK;
    char n[32], f[32];
    rl_fmt_size(n, sizeof n, need);
    rl_fmt_size(f, sizeof f, avail);
    return rl_fail(err, RL_EOUTPUT,
                   "cannot write %s: the model needs %s (%llu bytes) but its file system has %s "
                   "(%llu bytes) free (free some space, choose another path or a smaller model)",
                   path, n, (unsigned long long)need, f, (unsigned long long)avail);
}

static void note_plan(FILE *note, const rl_synth_plan *p, const char *path, bool direct, bool known,
                      uint64_t avail)
{
    char size[32], free_text[64] = "";
    char *safe = rl_tty_escape_dup(path);
    rl_fmt_size(size, sizeof size, p->file_size);
    if (direct)
        snprintf(free_text, sizeof free_text, "; a pipe or device, no space check");
    else if (known) {
        char f[32];
        rl_fmt_size(f, sizeof f, avail);
        snprintf(free_text, sizeof free_text, "; %s free", f);
    }
    rl_tty_printf(note, "synth: writing %s: %s (%llu bytes) planned%s\n", safe ? safe : "?", size,
                  (unsigned long long)p->file_size, free_text);
    fflush(note);
    free(safe);
}

rl_status rl_synth_write(const rl_synth_plan *p, const char *path, const rl_synth_write_opts *opts,
                         rl_error *err)
{
    rl_atomic a;
    rl_status st = rl_atomic_open(path, &a, err);
    if (st != RL_OK) /* opening a FIFO blocks until a reader comes: a signal ends the wait */
        return rl_interrupted ? rl_fail(err, RL_EINTERRUPTED, "interrupted while opening %s", path)
                              : st;
    uint64_t avail = 0;
    bool known = !a.direct && rl_free_space(a.fd, &avail);
    if (known && (st = rl_synth_space_check(path, p->file_size, avail, err)) != RL_OK) {
        rl_atomic_abort(&a);
        return st;
    }
    if (opts && opts->note)
        note_plan(opts->note, p, path, a.direct, known, avail);
    st = write_stream(p, &a, path, opts && opts->progress, err);
    if (st == RL_OK && rl_interrupted) /* after the last write: not committed */
        st = rl_fail(err, RL_EINTERRUPTED, "interrupted while writing %s", path);
    if (st != RL_OK) {
        rl_atomic_abort(&a);
        return st;
    }
    return rl_atomic_commit(&a, err);
}

bool rl_synth_file_matches(const char *path, const rl_synth_plan *p)
{
    FILE *f = NULL;
    uint64_t size = 0;
    rl_error e;
    if (rl_file_open_regular(path, &f, &size, &e) != RL_OK)
        return false;
    bool same = size == p->file_size;
    unsigned char *buf = same ? malloc(p->header_len ? p->header_len : 1) : NULL;
    same = buf && fread(buf, 1, p->header_len, f) == p->header_len &&
           memcmp(buf, p->header, p->header_len) == 0;
    free(buf);
    fclose(f);
    if (!same)
        return false;
    rl_gguf_model m;
    bool ok = rl_gguf_model_load(path, &m, &e) == RL_OK;
    rl_gguf_model_free(&m);
    return ok;
}
