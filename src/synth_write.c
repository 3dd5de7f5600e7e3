/* rl_synth_write.c: the tensor data of a synthetic model (deterministic, counter-based splitmix64
 * values) and the streaming GGUF writer (see synth.h).
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

#include "rl_util.h"

/* ---- half / bfloat16 (the FP16 library's bit tricks, as ggml uses them) ------------------ */

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float f32_from(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t rl_synth_f32_to_f16(float f)
{
    const float scale_to_inf = 0x1.0p+112f;
    const float scale_to_zero = 0x1.0p-110f;
    float base = ((f < 0 ? -f : f) * scale_to_inf) * scale_to_zero;
    const uint32_t w = f32_bits(f);
    const uint32_t shl1_w = w + w;
    const uint32_t sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xFF000000u;
    if (bias < 0x71000000u)
        bias = 0x71000000u;
    base = f32_from((bias >> 1) + 0x07800000u) + base;
    const uint32_t bits = f32_bits(base);
    const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
    const uint32_t mantissa_bits = bits & 0x00000FFFu;
    const uint32_t nonsign = exp_bits + mantissa_bits;
    return (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

float rl_synth_f16_to_f32(uint16_t h)
{
    const uint32_t w = (uint32_t)h << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const uint32_t exp_offset = 0xE0u << 23;
    const float normalized = f32_from((two_w >> 4) + exp_offset) * 0x1.0p-112f;
    const float denormalized = f32_from((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t result =
        sign | (two_w < (1u << 27) ? f32_bits(denormalized) : f32_bits(normalized));
    return f32_from(result);
}

uint16_t rl_synth_f32_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 64); /* quiet NaN */
    return (uint16_t)((u + (0x7fffu + ((u >> 16) & 1))) >> 16);
}

float rl_synth_bf16_to_f32(uint16_t h)
{
    return f32_from((uint32_t)h << 16);
}

/* ---- values ------------------------------------------------------------------------------ */

/* Word k of a stream: splitmix64 evaluated at counter k, so any element can be found without
 * generating the ones before it. */
static inline uint64_t word(uint64_t stream, uint64_t k)
{
    uint64_t z = stream + (k + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Block scale: amp/qmax times one of 16 factors in [0.5, 1.0], picked by 4 random bits. */
static void scale_table(float amp, float qmax, uint16_t out[16])
{
    for (int i = 0; i < 16; i++)
        out[i] = rl_synth_f32_to_f16(amp / qmax * (0.5f + (float)i / 30.0f));
}

static void gen_f32(const rl_synth_plan *p, const rl_synth_tensor *t, uint64_t first,
                    uint64_t count, float *out)
{
    switch (t->init) {
    case SYNTH_INIT_ONES:
        for (uint64_t i = 0; i < count; i++)
            out[i] = 1.0f;
        break;
    case SYNTH_INIT_ROPE_FREQS:
        for (uint64_t i = 0; i < count; i++)
            out[i] = rl_synth_rope_factor(&p->cfg, first + i);
        break;
    case SYNTH_INIT_UNIFORM: {
        const float k = t->amp / 2147483648.0f;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t e = first + i;
            uint64_t w = word(t->stream, e >> 1);
            int32_t r = (int32_t)(uint32_t)(w >> (32 * (e & 1)));
            out[i] = (float)r * k;
        }
        break;
    }
    }
}

static void gen_half(const rl_synth_plan *p, const rl_synth_tensor *t, uint64_t first,
                     uint64_t count, uint16_t *out)
{
    const uint16_t *lut = p->lut;
    uint64_t i = 0;
    /* first is a multiple of 4: whole words, then the tail */
    for (; i + 4 <= count; i += 4) {
        uint64_t w = word(t->stream, (first + i) >> 2);
        out[i] = lut[w & 0xffff];
        out[i + 1] = lut[(w >> 16) & 0xffff];
        out[i + 2] = lut[(w >> 32) & 0xffff];
        out[i + 3] = lut[w >> 48];
    }
    for (; i < count; i++) {
        uint64_t e = first + i;
        out[i] = lut[(word(t->stream, e >> 2) >> (16 * (e & 3))) & 0xffff];
    }
}

static void gen_q8_0(const rl_synth_tensor *t, uint64_t first, uint64_t count, unsigned char *out)
{
    uint16_t d[16];
    scale_table(t->amp, 127.0f, d);
    for (uint64_t b = first / 32, end = (first + count) / 32; b < end; b++, out += 34) {
        uint64_t k = b * 5;
        uint16_t s = d[word(t->stream, k) & 15];
        memcpy(out, &s, 2);
        for (int j = 0; j < 4; j++) {
            uint64_t w = word(t->stream, k + 1 + (uint64_t)j);
            /* -128 would step outside [-amp, amp]: make every 0x80 byte 0x81 (-127). The
             * bytes of v are zero exactly where w has 0x80; m has 0x80 in those bytes. */
            const uint64_t lo7 = 0x7F7F7F7F7F7F7F7Full;
            uint64_t v = w ^ 0x8080808080808080ull;
            uint64_t m = ~(((v & lo7) + lo7) | v) & ~lo7;
            w += m >> 7;
            memcpy(out + 2 + 8 * j, &w, 8);
        }
    }
}

static void gen_q4_0(const rl_synth_tensor *t, uint64_t first, uint64_t count, unsigned char *out)
{
    uint16_t d[16];
    scale_table(t->amp, 8.0f, d);
    for (uint64_t b = first / 32, end = (first + count) / 32; b < end; b++, out += 18) {
        uint64_t k = b * 3;
        uint16_t s = d[word(t->stream, k) & 15];
        memcpy(out, &s, 2);
        uint64_t w1 = word(t->stream, k + 1), w2 = word(t->stream, k + 2);
        memcpy(out + 2, &w1, 8);
        memcpy(out + 10, &w2, 8);
    }
}

void rl_synth_generate(const rl_synth_plan *p, size_t tensor_index, uint64_t first, uint64_t count,
                       void *out)
{
    const rl_synth_tensor *t = &p->tensors[tensor_index];
    switch (t->type) {
    case SYNTH_GGML_F32: gen_f32(p, t, first, count, out); break;
    case SYNTH_GGML_F16:
    case SYNTH_GGML_BF16: gen_half(p, t, first, count, out); break;
    case SYNTH_GGML_Q8_0: gen_q8_0(t, first, count, out); break;
    case SYNTH_GGML_Q4_0: gen_q4_0(t, first, count, out); break;
    default: break;
    }
}

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
            uint64_t blck = t->type == SYNTH_GGML_Q8_0 || t->type == SYNTH_GGML_Q4_0 ? 32 : 1;
            uint64_t bytes_per_blck = t->n_bytes / (t->n_elements / blck);
            uint64_t per_chunk = CHUNK_BYTES / bytes_per_blck * blck; /* multiple of 32 */
            uint64_t n = t->n_elements - next < per_chunk ? t->n_elements - next : per_chunk;
            rl_synth_generate(p, ti, next, n, pc->data);
            pc->len = (size_t)(n / blck * bytes_per_blck);
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
