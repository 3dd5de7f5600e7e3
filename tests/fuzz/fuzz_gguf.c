/* SPDX-License-Identifier: MIT */
/* fuzz_gguf.c: libFuzzer target for the GGUF reader, the model facts built on it and the two
 * printers of `inspect` (gguf_json, gguf_text). Any input must give RL_OK or a one-line
 * RL_EINPUT message, never a crash, a leak or undefined behaviour; for an input that parses,
 * the JSON (with every tensor) must parse back and the text report (with every tensor) must
 * hold no control character but '\n' and no C1 control, whatever the file's strings hold.
 * Everything allocated is freed before returning. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/gguf.h"
#include "model/gguf_json.h"
#include "model/gguf_model.h"
#include "model/gguf_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The JSON object, with every tensor, prints and parses back (NULL only if memory ran out). */
static void check_json(const rl_gguf_model *m)
{
    cJSON *o = rl_gguf_model_to_json(m, true);
    if (!o)
        return;
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        return;
    cJSON *back = cJSON_Parse(text);
    if (!back || !cJSON_IsObject(back))
        abort();
    cJSON_Delete(back);
    free(text);
}

/* The text report, with every tensor, reaches a terminal with nothing raw in it. */
static void check_text(const rl_gguf_model *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return;
    rl_gguf_print_report(out, m, true);
    if (fclose(out) != 0) {
        free(text);
        return;
    }
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < len; i++) {
        if ((p[i] < 0x20 && p[i] != '\n') || p[i] == 0x7f)
            abort();
        if (p[i] == 0xC2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] < 0xA0)
            abort();
    }
    free(text);
}

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
        check_json(&m);
        check_text(&m);
    }
    rl_gguf_model_free(&m);
    return 0;
}
