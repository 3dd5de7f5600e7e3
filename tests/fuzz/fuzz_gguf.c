/* fuzz_gguf.c: libFuzzer target for the GGUF reader and the model facts built on it. Any
 * input must give RL_OK or a one-line RL_EINPUT message, never a crash, a leak or undefined
 * behaviour. Everything allocated is freed before returning. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"
#include "gguf_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rl_gguf_file *f = NULL;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_read_buffer(data, size, "fuzz.gguf", &f, &err);
    if (st != RL_OK) {
        /* failures are input errors (or memory), reported on one line naming the input */
        if ((st != RL_EINPUT && st != RL_EINTERNAL) || f != NULL ||
            strncmp(err.msg, "fuzz.gguf: ", 11) != 0 || strchr(err.msg, '\n'))
            abort();
        return 0;
    }
    /* touch what consumers read */
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const rl_gguf_kv *kv = &f->kv[i];
        if (rl_gguf_find(f, kv->key) != kv)
            abort();
        if (kv->type == GGUF_T_ARRAY && kv->v.arr.n_kept > GGUF_KEEP_STRINGS)
            abort();
    }
    uint64_t end = f->data_offset;
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const rl_gguf_tensor *t = &f->tensors[i];
        if (t->sized && (t->offset % f->alignment || end + t->offset + t->n_bytes > f->file_size))
            abort();
    }
    rl_gguf_model m;
    st = rl_gguf_model_adopt(f, &m, &err); /* m owns f now, or f is freed */
    if (st == RL_OK) {
        if (m.sizes_known && m.streamed_bytes > m.tensor_bytes)
            abort();
        if (m.has_composition && !(m.bits_per_weight > 0))
            abort();
        if (m.n_shards != 1 || m.files[0] != f)
            abort();
    }
    rl_gguf_model_free(&m);
    return 0;
}
