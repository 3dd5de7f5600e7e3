/* SPDX-License-Identifier: MIT */
/* test_gguf_json.c: the JSON object of `inspect --json` (gguf_json.c) for a tiny model built
 * in memory, compared as whole text with values worked out by hand; exact integers above
 * 2^53; a path that is not UTF-8 repaired with U+FFFD; unknown sizes as null. Every tree and
 * model is freed by its test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/gguf_json.h"
#include "model/gguf_model.h"

#include "gguf_testw.h"

/* A one-layer llama labelled Q4_K_M whose layers are mostly Q5_0:
 *   token_embd.weight      Q8_0 32x8    256 el  272 B  offset    0
 *   blk.0.attn_norm.weight F32  32       32 el  128 B  offset  288
 *   blk.0.attn_q.weight    Q5_0 32x32  1024 el  704 B  offset  416
 *   blk.0.ffn_down.weight  Q4_K 256x1   256 el  144 B  offset 1120
 *   output.weight          Q8_0 32x8    256 el  272 B  offset 1280
 * tensor bytes 1520; streamed (untied: all but the embedding) 1248; head share 272/1248 =
 * 21.79%; repeating layers (blk.*, not float) 704 + 144 = 848 bytes over 1280 elements =
 * 5.3 bits per weight, 144/848 = 16.98% Q4_K (on label), Q5_0 83.0% and Q4_K 17.0%;
 * KV bytes per token 1 layer x 2 heads x (8 + 8) x 2 = 64; n_vocab from the embedding: 8. */
static size_t tiny(const char *name, rl_gguf_model *m)
{
    mbuild b = {0};
    mb_str(&b, "general.architecture", "llama");
    mb_str(&b, "general.name", "tiny");
    mb_u32(&b, "general.file_type", 15);
    mb_u32(&b, "llama.block_count", 1);
    mb_u32(&b, "llama.context_length", 128);
    mb_u32(&b, "llama.embedding_length", 32);
    mb_u32(&b, "llama.attention.head_count", 4);
    mb_u32(&b, "llama.attention.head_count_kv", 2);
    mb_tensor(&b, "token_embd.weight", RL_GGML_Q8_0, 32, 8);
    mb_tensor(&b, "blk.0.attn_norm.weight", RL_GGML_F32, 32, 1);
    mb_tensor(&b, "blk.0.attn_q.weight", RL_GGML_Q5_0, 32, 32);
    mb_tensor(&b, "blk.0.ffn_down.weight", RL_GGML_Q4_K, 256, 1);
    mb_tensor(&b, "output.weight", RL_GGML_Q8_0, 32, 8);
    return mb_load(&b, name, m);
}

static char *print(const rl_gguf_model *m, bool tensors)
{
    cJSON *o = rl_gguf_model_to_json(m, tensors);
    assert_non_null(o);
    char *s = cJSON_PrintUnformatted(o);
    assert_non_null(s);
    cJSON_Delete(o);
    return s;
}

static const char tiny_json[] =
    "{\"path\":\"models/tiny-Q4_K_M.gguf\",\"name\":\"tiny\",\"label\":\"Q4_K_M\","
    "\"architecture\":\"llama\",\"file_type\":15,\"gguf_version\":3,\"n_shards\":1,"
    "\"n_tensors\":5,\"n_params\":1824,\"file_bytes\":%zu,\"resident_bytes\":%zu,"
    "\"sizes_known\":true,\"tensor_bytes\":1520,\"streamed_bytes\":1248,\"streamed_MiB\":0.001,"
    "\"embedding_bytes\":272,\"head_bytes\":272,\"head_type\":\"Q8_0\",\"embedding_type\":\"Q8_0\","
    "\"head_share_pct\":21.79,"
    "\"tied_embeddings\":false,\"kv_bytes_per_token\":64,\"is_moe\":false,\"expert_count\":0,"
    "\"expert_used_count\":0,\"expert_bytes\":0,\"n_layer\":1,\"n_embd\":32,\"n_ff\":0,"
    "\"n_head\":4,\"n_head_kv\":2,\"head_count_kv_per_layer\":false,\"head_dim\":8,"
    "\"key_length\":8,\"value_length\":8,\"context_length\":128,\"n_vocab\":8,"
    "\"composition\":{\"on_label_pct\":16.98,\"expected_type\":\"Q4_K\",\"bits_per_weight\":5.3,"
    "\"repeating_bytes\":848,\"repeating_tensors\":2,\"types\":{\"Q5_0\":83,\"Q4_K\":17}},"
    "\"types\":[{\"type\":\"Q5_0\",\"n_tensors\":1,\"bytes\":704,\"elements\":1024,"
    "\"n_matrices\":1,\"n_rows\":32},"
    "{\"type\":\"Q8_0\",\"n_tensors\":2,\"bytes\":544,\"elements\":512,\"n_matrices\":1,"
    "\"n_rows\":8},"
    "{\"type\":\"Q4_K\",\"n_tensors\":1,\"bytes\":144,\"elements\":256,\"n_matrices\":0,"
    "\"n_rows\":0},"
    "{\"type\":\"F32\",\"n_tensors\":1,\"bytes\":128,\"elements\":32,\"n_matrices\":0,"
    "\"n_rows\":0}]";

static const char tiny_tensors[] =
    ",\"tensors\":["
    "{\"name\":\"token_embd.weight\",\"type\":\"Q8_0\",\"dims\":[32,8],\"elements\":256,"
    "\"bytes\":272,\"offset\":0},"
    "{\"name\":\"blk.0.attn_norm.weight\",\"type\":\"F32\",\"dims\":[32],\"elements\":32,"
    "\"bytes\":128,\"offset\":288},"
    "{\"name\":\"blk.0.attn_q.weight\",\"type\":\"Q5_0\",\"dims\":[32,32],\"elements\":1024,"
    "\"bytes\":704,\"offset\":416},"
    "{\"name\":\"blk.0.ffn_down.weight\",\"type\":\"Q4_K\",\"dims\":[256],\"elements\":256,"
    "\"bytes\":144,\"offset\":1120},"
    "{\"name\":\"output.weight\",\"type\":\"Q8_0\",\"dims\":[32,8],\"elements\":256,"
    "\"bytes\":272,\"offset\":%s}]";

static void test_tiny_model(void **state)
{
    (void)state;
    rl_gguf_model m;
    size_t len = tiny("models/tiny-Q4_K_M.gguf", &m);
    char want[8192];

    char *got = print(&m, false);
    snprintf(want, sizeof want, tiny_json, len, len);
    strcat(want, "}");
    assert_string_equal(got, want);
    free(got);

    got = print(&m, true);
    size_t o = (size_t)snprintf(want, sizeof want, tiny_json, len, len);
    snprintf(want + o, sizeof want - o, tiny_tensors, "1280");
    strcat(want, "}");
    assert_string_equal(got, want);
    free(got);

    /* an offset above 2^53 is written exactly, not through a double (which gives ...992) */
    m.files[0]->tensors[4].offset = 9007199254740993ull;
    got = print(&m, true);
    o = (size_t)snprintf(want, sizeof want, tiny_json, len, len);
    snprintf(want + o, sizeof want - o, tiny_tensors, "9007199254740993");
    strcat(want, "}");
    assert_string_equal(got, want);
    free(got);
    rl_gguf_model_free(&m);
}

static void test_path_not_utf8(void **state)
{
    (void)state;
    rl_gguf_model m;
    tiny("dir/tiny-\xff\xfe.gguf", &m);
    cJSON *o = rl_gguf_model_to_json(&m, false);
    assert_non_null(o);
    /* each byte that is not UTF-8 becomes U+FFFD, the rest is kept */
    assert_string_equal(cJSON_GetObjectItem(o, "path")->valuestring,
                        "dir/tiny-\xef\xbf\xbd\xef\xbf\xbd.gguf");
    cJSON_Delete(o);
    rl_gguf_model_free(&m);
}

static void test_unknown_sizes(void **state)
{
    (void)state;
    rl_gguf_model m;
    mbuild b = {0};
    mb_str(&b, "general.architecture", "llama");
    mb_tensor(&b, "blk.0.ffn_up.weight", 250, 32, 1); /* no such ggml type */
    mb_tensor(&b, "output.weight", RL_GGML_Q8_0, 32, 1);
    mb_load(&b, "unknown.gguf", &m);
    cJSON *o = rl_gguf_model_to_json(&m, true);
    assert_non_null(o);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(o, "sizes_known")));
    const char *nulls[] = {"name",           "label",        "file_type",       "tensor_bytes",
                           "streamed_bytes", "streamed_MiB", "embedding_bytes", "head_bytes",
                           "head_share_pct", "expert_bytes", "composition"};
    for (size_t i = 0; i < sizeof nulls / sizeof *nulls; i++) {
        if (!cJSON_IsNull(cJSON_GetObjectItem(o, nulls[i])))
            fail_msg("%s is not null", nulls[i]);
    }
    const cJSON *types = cJSON_GetObjectItem(o, "types");
    assert_int_equal(cJSON_GetArraySize(types), 2);
    const cJSON *t0 = cJSON_GetArrayItem(types, 0), *t1 = cJSON_GetArrayItem(types, 1);
    assert_string_equal(cJSON_GetObjectItem(t0, "type")->valuestring, "Q8_0");
    assert_int_equal(cJSON_GetObjectItem(t0, "bytes")->valuedouble, 34);
    assert_string_equal(cJSON_GetObjectItem(t1, "type")->valuestring, "type250");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(t1, "bytes")));
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "tensors"), 0);
    assert_string_equal(cJSON_GetObjectItem(t, "type")->valuestring, "type250");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(t, "bytes")));
    cJSON_Delete(o);
    rl_gguf_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_model),
        cmocka_unit_test(test_path_not_utf8),
        cmocka_unit_test(test_unknown_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
