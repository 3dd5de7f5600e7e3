/* SPDX-License-Identifier: MIT */
/* test_gguf_model.c: model facts from synthetic GGUF headers built in memory by a test-only
 * writer: streamed bytes (tied, untied, MoE), composition, KV-cache bytes per token, labels,
 * per-type totals and multi-part files. Buffers and models are freed by each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/ggml_types.h"
#include "model/gguf.h"
#include "model/gguf_model.h"

/* ---- test-only GGUF writer (gguf_testw.h: wbuf, mbuild) ------------------------------ */

#include "gguf_testw.h"

/* Read a built file under name and fill m; the buffer is freed. */
static void model_of(mbuild *b, const char *name, rl_gguf_model *m)
{
    wbuf w = mb_finish(b);
    rl_gguf_file *f = NULL;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_read_buffer(w.p, w.len, name, &f, &err);
    if (st != RL_OK)
        fprintf(stderr, "read failed: %s\n", err.msg);
    assert_int_equal(st, RL_OK);
    st = rl_gguf_model_adopt(f, m, &err); /* m owns f from here */
    if (st != RL_OK)
        fprintf(stderr, "model failed: %s\n", err.msg);
    assert_int_equal(st, RL_OK);
    assert_int_equal(m->file_bytes, w.len);
    assert_int_equal(m->resident_bytes, w.len);
    assert_int_equal(m->n_shards, 1);
    assert_ptr_equal(m->files[0], f);
    free(w.p);
}

static void write_file(const char *path, const wbuf *w)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(w->p, 1, w->len, fp), w->len);
    assert_int_equal(fclose(fp), 0);
}

static const char *tmpdir(void)
{
    const char *t = getenv("RL_TMP");
    return t && *t ? t : "/tmp";
}

/* ---- tests --------------------------------------------------------------------------- */

enum { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14 };

static void test_streamed_untied(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_str(&b, "general.architecture", "llama");
    mb_tensor(&b, "token_embd.weight", Q4_0, 32, 32000); /* 576000 bytes */
    mb_tensor(&b, "blk.0.attn_q.weight", Q4_0, 32, 32);  /* 576 */
    mb_tensor(&b, "output.weight", Q8_0, 32, 32000);     /* 1088000 */
    rl_gguf_model m;
    model_of(&b, "untied.gguf", &m);
    assert_true(m.sizes_known);
    assert_false(m.tied_embeddings);
    assert_int_equal(m.n_tensors, 3);
    assert_int_equal(m.tensor_bytes, 576000 + 576 + 1088000);
    assert_int_equal(m.streamed_bytes, 1088000 + 576);
    assert_int_equal(m.embedding_bytes, 576000);
    assert_int_equal(m.head_bytes, 1088000);
    assert_int_equal(m.head_type, Q8_0);
    assert_int_equal(m.n_params, 32 * 32000 * 2 + 32 * 32);
    assert_int_equal(m.n_vocab, 32000);
    assert_string_equal(m.architecture, "llama");
    assert_int_equal(m.n_shards, 1);
    assert_int_equal(m.file_type, -1);
    assert_false(m.is_moe);
    /* every type, bytes descending */
    assert_int_equal(m.n_types, 2);
    assert_int_equal(m.types[0].type, Q8_0);
    assert_int_equal(m.types[0].n_tensors, 1);
    assert_int_equal(m.types[0].bytes, 1088000);
    assert_int_equal(m.types[1].type, Q4_0);
    assert_int_equal(m.types[1].n_tensors, 2);
    assert_int_equal(m.types[1].bytes, 576576);
    assert_int_equal(m.types[1].elements, 32 * 32000 + 32 * 32);
    /* the matrices decode reads: the head; attn_q but not the untied embedding */
    assert_int_equal(m.types[0].n_matrices, 1);
    assert_int_equal(m.types[1].n_matrices, 1);
    assert_int_equal(m.layer_types[0].n_matrices, 0);
    /* and their rows: the head's 32000, attn_q's 32 */
    assert_int_equal(m.types[0].n_rows, 32000);
    assert_int_equal(m.types[1].n_rows, 32);
    assert_int_equal(m.layer_types[0].n_rows, 0);
    rl_gguf_model_free(&m);
}

static void test_streamed_tied(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_tensor(&b, "token_embd.weight", Q8_0, 32, 32000); /* 1088000 */
    mb_tensor(&b, "blk.0.attn_q.weight", Q4_0, 32, 32);  /* 576 */
    rl_gguf_model m;
    model_of(&b, "tied.gguf", &m);
    assert_true(m.tied_embeddings);
    assert_int_equal(m.tensor_bytes, 1088576);
    assert_int_equal(m.streamed_bytes, 1088576);
    assert_int_equal(m.head_bytes, 1088000);
    assert_int_equal(m.embedding_bytes, 1088000);
    assert_int_equal(m.head_type, Q8_0);
    assert_int_equal(m.types[0].type, Q8_0);
    assert_int_equal(m.types[0].n_matrices, 1); /* the tied embedding is the head */
    assert_int_equal(m.types[0].n_rows, 32000);
    assert_string_equal(m.architecture, "");
    assert_int_equal(m.kv_bytes_per_token, 0);
    rl_gguf_model_free(&m);

    /* neither embedding nor head: not tied, no head */
    b = (mbuild){0};
    mb_tensor(&b, "blk.0.attn_q.weight", Q4_0, 32, 32);
    model_of(&b, "nohead.gguf", &m);
    assert_false(m.tied_embeddings);
    assert_int_equal(m.head_type, UINT32_MAX);
    assert_int_equal(m.head_bytes, 0);
    assert_int_equal(m.streamed_bytes, 576);
    rl_gguf_model_free(&m);
}

static void test_moe(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_str(&b, "general.architecture", "qwen3moe");
    mb_u32(&b, "qwen3moe.expert_count", 8);
    mb_u32(&b, "qwen3moe.expert_used_count", 2);
    mb_tensor(&b, "token_embd.weight", Q8_0, 32, 100);             /* 3400 */
    mb_tensor3(&b, "blk.0.ffn_up_exps.weight", Q8_0, 32, 10, 8);   /* 2720 */
    mb_tensor3(&b, "blk.0.ffn_down_exps.weight", Q8_0, 32, 10, 8); /* 2720 */
    mb_tensor(&b, "blk.0.ffn_up_shexp.weight", Q8_0, 32, 10);      /* 340, not scaled */
    mb_tensor(&b, "blk.0.attn_q.weight", Q8_0, 32, 32);            /* 1088 */
    mb_tensor(&b, "output.weight", Q8_0, 32, 100);                 /* 3400 */
    rl_gguf_model m;
    model_of(&b, "moe.gguf", &m);
    assert_true(m.is_moe);
    assert_int_equal(m.expert_count, 8);
    assert_int_equal(m.expert_used_count, 2);
    assert_int_equal(m.expert_bytes, 5440);
    assert_int_equal(m.tensor_bytes, 3400 + 5440 + 340 + 1088 + 3400);
    assert_int_equal(m.streamed_bytes, 1360 + 340 + 1088 + 3400);
    /* the used 2 of each expert tensor, shexp, attn_q, the head; not the untied embedding */
    assert_int_equal(m.n_types, 1);
    assert_int_equal(m.types[0].n_matrices, 2 + 2 + 1 + 1 + 1);
    assert_int_equal(m.types[0].n_rows, 2 * 10 + 2 * 10 + 10 + 32 + 100);
    rl_gguf_model_free(&m);

    /* rounding to the nearest byte: 5440 * 2 / 3 = 3626.67 -> 3627 */
    b = (mbuild){0};
    mb_str(&b, "general.architecture", "x");
    mb_u32(&b, "x.expert_count", 3);
    mb_u32(&b, "x.expert_used_count", 2);
    mb_tensor3(&b, "blk.0.ffn_up_exps.weight", Q8_0, 32, 10, 8);
    mb_tensor3(&b, "blk.0.ffn_down_exps.weight", Q8_0, 32, 10, 8);
    model_of(&b, "moe3.gguf", &m);
    assert_true(m.tied_embeddings == false);
    assert_int_equal(m.streamed_bytes, 3627);
    assert_int_equal(m.types[0].n_matrices, 4);
    rl_gguf_model_free(&m);

    /* a vector is no matrix; an expert tensor without a used count: all its experts */
    b = (mbuild){0};
    mb_str(&b, "general.architecture", "x");
    mb_u32(&b, "x.expert_count", 8);
    mb_tensor(&b, "blk.0.attn_norm.weight", F32, 32, 1);
    mb_tensor3(&b, "blk.0.ffn_up_exps.weight", Q8_0, 32, 10, 8);
    model_of(&b, "moe8.gguf", &m);
    assert_int_equal(m.n_types, 2);
    assert_int_equal(m.types[0].type, Q8_0);
    assert_int_equal(m.types[0].n_matrices, 8);
    assert_int_equal(m.types[0].n_rows, 80);
    assert_int_equal(m.types[1].n_matrices, 0);
    assert_int_equal(m.types[1].n_rows, 0);
    rl_gguf_model_free(&m);
}

static void test_composition(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_u32(&b, "general.file_type", 2); /* Q4_0 */
    mb_tensor(&b, "blk.0.ffn.weight", Q4_0, 256, 1);
    mb_tensor(&b, "blk.0.attn_norm.weight", F32, 256, 1);
    mb_tensor(&b, "output.weight", Q6_K, 256, 1);
    rl_gguf_model m;
    model_of(&b, "c.gguf", &m);
    assert_string_equal(m.label, "Q4_0");
    assert_int_equal(m.file_type, 2);
    assert_true(m.has_composition);
    assert_int_equal(m.expected_type, Q4_0);
    assert_true(m.bits_per_weight == 4.5);
    assert_true(m.on_label_pct == 100.0);
    assert_int_equal(m.layer_bytes, 144);
    assert_int_equal(m.layer_elements, 256);
    assert_int_equal(m.n_layer_types, 1);
    rl_gguf_model_free(&m);

    /* + 256 Q8_0: 8 * (144 + 272) / 512 = 6.5 bpw, 144/416 on label */
    b = (mbuild){0};
    mb_u32(&b, "general.file_type", 2);
    mb_tensor(&b, "blk.0.a.weight", Q4_0, 256, 1);
    mb_tensor(&b, "blk.0.b.weight", Q8_0, 256, 1);
    mb_tensor(&b, "blk.0.norm.weight", F32, 256, 1);
    model_of(&b, "c.gguf", &m);
    assert_true(m.bits_per_weight == 6.5);
    assert_true(m.bits_per_weight > 6.0);
    assert_true(m.on_label_pct > 34.61 && m.on_label_pct < 34.62);
    assert_int_equal(m.n_layer_types, 2);
    assert_int_equal(m.layer_types[0].type, Q8_0);
    assert_int_equal(m.layer_types[0].bytes, 272);
    assert_int_equal(m.layer_types[1].type, Q4_0);
    rl_gguf_model_free(&m);

    /* label Q4_K_M with no Q4_K at all */
    b = (mbuild){0};
    mb_u32(&b, "general.file_type", 15);
    mb_tensor(&b, "blk.0.a.weight", Q4_0, 256, 1);
    mb_tensor(&b, "blk.1.a.weight", Q6_K, 256, 1);
    model_of(&b, "c.gguf", &m);
    assert_string_equal(m.label, "Q4_K_M");
    assert_int_equal(m.expected_type, Q4_K);
    assert_true(m.has_composition);
    assert_true(m.on_label_pct == 0.0);
    rl_gguf_model_free(&m);

    /* only F32/F16 in the layers: no composition */
    b = (mbuild){0};
    mb_tensor(&b, "blk.0.a.weight", F16, 256, 1);
    mb_tensor(&b, "token_embd.weight", Q4_0, 256, 1);
    model_of(&b, "x-F16.gguf", &m);
    assert_false(m.has_composition);
    assert_string_equal(m.label, "F16");
    rl_gguf_model_free(&m);
}

static void test_unknown_type(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_tensor(&b, "blk.0.a.weight", Q4_0, 256, 1);
    mb_tensor(&b, "blk.0.b.weight", 250, 256, 1);
    mb_tensor(&b, "output.weight", Q8_0, 256, 1);
    rl_gguf_model m;
    model_of(&b, "u.gguf", &m);
    assert_false(m.sizes_known);
    assert_false(m.has_composition);
    assert_int_equal(m.streamed_bytes, 0);
    assert_int_equal(m.tensor_bytes, 0);
    assert_int_equal(m.head_bytes, 0);
    assert_int_equal(m.n_params, 768);
    assert_int_equal(m.n_types, 3);
    rl_gguf_model_free(&m);
}

/* Totals saturate: two 2^63-element tensors of an unknown type (no bytes, so the file stays
 * tiny) give a parameter count of UINT64_MAX, not a wrapped 0. */
static void test_saturating_totals(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_tensor(&b, "blk.0.a.weight", 250, 1ull << 63, 1);
    mb_tensor(&b, "blk.0.b.weight", 250, 1ull << 63, 1);
    rl_gguf_model m;
    model_of(&b, "s.gguf", &m);
    assert_false(m.sizes_known);
    assert_true(m.n_params == UINT64_MAX);
    assert_int_equal(m.n_types, 1);
    assert_true(m.types[0].elements == UINT64_MAX);
    rl_gguf_model_free(&m);
}

static void test_kv_bytes(void **state)
{
    (void)state;
    /* Qwen2.5-0.5B-like: 24 layers, 14 heads, 2 kv heads, 896 wide -> head_dim 64 */
    mbuild b = {0};
    mb_str(&b, "general.architecture", "qwen2");
    mb_str(&b, "general.name", "Qwen2.5 0.5B \xff");
    mb_u32(&b, "qwen2.block_count", 24);
    mb_u32(&b, "qwen2.embedding_length", 896);
    mb_u32(&b, "qwen2.feed_forward_length", 4864);
    mb_u32(&b, "qwen2.attention.head_count", 14);
    mb_u32(&b, "qwen2.attention.head_count_kv", 2);
    mb_u32(&b, "qwen2.context_length", 32768);
    mb_tokens(&b, 1000);
    mb_tensor(&b, "blk.0.a.weight", Q8_0, 32, 1);
    rl_gguf_model m;
    model_of(&b, "qwen2.5-0.5b-instruct-q8_0.gguf", &m);
    assert_int_equal(m.n_layer, 24);
    assert_int_equal(m.n_embd, 896);
    assert_int_equal(m.n_ff, 4864);
    assert_int_equal(m.n_head, 14);
    assert_int_equal(m.n_head_kv, 2);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.key_length, 64);
    assert_int_equal(m.value_length, 64);
    assert_int_equal(m.context_length, 32768);
    assert_int_equal(m.kv_bytes_per_token, 12288);
    assert_false(m.head_count_kv_per_layer);
    assert_int_equal(m.n_vocab, 1000);
    assert_string_equal(m.name, "Qwen2.5 0.5B ?");
    assert_string_equal(m.label, "Q8_0");
    rl_gguf_model_free(&m);

    /* key and value lengths differ: n_layer * n_head_kv * (k + v) * 2 */
    b = (mbuild){0};
    mb_str(&b, "general.architecture", "deepseek2");
    mb_u32(&b, "deepseek2.block_count", 2);
    mb_u32(&b, "deepseek2.attention.head_count", 16);
    mb_u32(&b, "deepseek2.attention.key_length", 192);
    mb_u32(&b, "deepseek2.attention.value_length", 128);
    model_of(&b, "ds.gguf", &m);
    assert_int_equal(m.n_head_kv, 16); /* defaults to head_count */
    assert_int_equal(m.head_dim, 192);
    assert_int_equal(m.kv_bytes_per_token, 2 * 16 * (192 + 128) * 2);
    rl_gguf_model_free(&m);

    /* per-layer kv heads: max reported, layers summed */
    b = (mbuild){0};
    const uint32_t kvh[4] = {2, 0, 2, 4};
    mb_str(&b, "general.architecture", "hyb");
    mb_u32(&b, "hyb.block_count", 4);
    mb_u32(&b, "hyb.attention.head_count", 8);
    mb_u32(&b, "hyb.embedding_length", 512);
    mb_arr_u32(&b, "hyb.attention.head_count_kv", kvh, 4);
    model_of(&b, "hyb.gguf", &m);
    assert_true(m.head_count_kv_per_layer);
    assert_int_equal(m.n_head_kv, 4);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.kv_bytes_per_token, (2 + 0 + 2 + 4) * (64 + 64) * 2);
    rl_gguf_model_free(&m);
}

static void check_label(const char *filename, const char *want)
{
    mbuild b = {0};
    rl_gguf_model m;
    model_of(&b, filename, &m);
    if (strcmp(m.label, want) != 0)
        fprintf(stderr, "%s: label '%s', want '%s'\n", filename, m.label, want);
    assert_string_equal(m.label, want);
    rl_gguf_model_free(&m);
}

static void test_labels(void **state)
{
    (void)state;
    check_label("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "Q4_K_M");
    check_label("model.f16.gguf", "F16");
    check_label("tiny-IQ2_XXS.gguf", "IQ2_XXS");
    check_label("no-quant-here.gguf", "");
    check_label("dir.Q8_0/no-quant-here.gguf", "");
    check_label("qwen2.5-0.5b-instruct-q4_k_m.gguf", "Q4_K_M");
    check_label("gpt-oss-20b-mxfp4_moe.gguf", "MXFP4_MOE");
    check_label("gpt-oss-20b-MXFP4.gguf", "MXFP4");
    check_label("bitnet-TQ1_0.gguf", "TQ1_0");
    check_label("model-bf16.gguf", "BF16");
    check_label("model-F32.gguf", "F32");
    check_label("llama-2-7b.Q5_K_S.gguf", "Q5_K_S");
    check_label("m-00001-of-00002-Q6_K.gguf", "Q6_K");
    check_label("xQ4_0.gguf", "");

    /* file_type wins over the name; an unknown file_type falls back to the name */
    mbuild b = {0};
    rl_gguf_model m;
    mb_u32(&b, "general.file_type", 15);
    model_of(&b, "model-Q8_0.gguf", &m);
    assert_string_equal(m.label, "Q4_K_M");
    rl_gguf_model_free(&m);
    b = (mbuild){0};
    mb_u32(&b, "general.file_type", 199);
    model_of(&b, "model-Q5_K_M.gguf", &m);
    assert_string_equal(m.label, "Q5_K_M");
    assert_int_equal(m.file_type, 199);
    assert_int_equal(m.expected_type, 13);
    rl_gguf_model_free(&m);
    /* a recipe whose name is no type: IQ3_M -> IQ3_S by llama-quantize's default */
    b = (mbuild){0};
    mb_u32(&b, "general.file_type", 27);
    model_of(&b, "m.gguf", &m);
    assert_string_equal(m.label, "IQ3_M");
    assert_int_equal(m.expected_type, 21);
    rl_gguf_model_free(&m);
    b = (mbuild){0};
    model_of(&b, "m-IQ4_NL.gguf", &m);
    assert_int_equal(m.expected_type, 20);
    rl_gguf_model_free(&m);
    b = (mbuild){0};
    model_of(&b, "m.gguf", &m);
    assert_int_equal(m.expected_type, -1);
    rl_gguf_model_free(&m);
}

/* Write shard i of n into dir with the given tensors and split keys. */
static void write_shard(const char *dir, uint32_t i, uint32_t n, uint32_t split_count, mbuild *b)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shardtest-%05u-of-%05u.gguf", dir, i, n);
    mb_u32(b, "split.no", i - 1);
    if (i == 1)
        mb_u32(b, "split.count", split_count);
    wbuf w = mb_finish(b);
    write_file(path, &w);
    free(w.p);
}

static uint64_t write_three(const char *dir, uint32_t split_count, bool dup)
{
    mbuild b = {0};
    mb_str(&b, "general.architecture", "llama");
    mb_u32(&b, "llama.block_count", 1);
    mb_u32(&b, "general.file_type", 7);
    mb_tensor(&b, "token_embd.weight", Q4_0, 32, 1000); /* 18000 */
    write_shard(dir, 1, 3, split_count, &b);
    mb_tensor(&b, "blk.0.a.weight", Q8_0, 32, 10); /* 340 */
    write_shard(dir, 2, 3, split_count, &b);
    mb_tensor(&b, dup ? "blk.0.a.weight" : "output.weight", Q8_0, 32, 1000); /* 34000 */
    write_shard(dir, 3, 3, split_count, &b);
    return 0;
}

static void test_shards(void **state)
{
    (void)state;
    const char *dir = tmpdir();
    char p1[4096], p2[4096], p3[4096];
    snprintf(p1, sizeof p1, "%s/shardtest-00001-of-00003.gguf", dir);
    snprintf(p2, sizeof p2, "%s/shardtest-00002-of-00003.gguf", dir);
    snprintf(p3, sizeof p3, "%s/shardtest-00003-of-00003.gguf", dir);
    write_three(dir, 3, false);

    uint64_t sum = 0;
    const char *ps[3] = {p1, p2, p3};
    for (int i = 0; i < 3; i++) {
        rl_gguf_file *f;
        rl_error e = {RL_OK, ""};
        assert_int_equal(rl_gguf_read_file(ps[i], &f, &e), RL_OK);
        sum += f->file_size;
        rl_gguf_free(f);
    }

    rl_gguf_model m;
    rl_error err = {RL_OK, ""};
    rl_status st = rl_gguf_model_load(p2, &m, &err);
    if (st != RL_OK)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, RL_OK);
    assert_int_equal(m.n_shards, 3);
    assert_int_equal(m.n_tensors, 3);
    assert_int_equal(m.file_bytes, sum);
    assert_int_equal(m.resident_bytes, sum);
    assert_int_equal(m.tensor_bytes, 18000 + 340 + 34000);
    assert_int_equal(m.streamed_bytes, 340 + 34000);
    assert_false(m.tied_embeddings);
    assert_string_equal(m.architecture, "llama");
    assert_string_equal(m.label, "Q8_0");
    assert_int_equal(m.n_layer, 1);
    assert_string_equal(m.path, p2);
    /* the parsed shards are kept, in part order, for listing every tensor */
    assert_non_null(m.files);
    assert_string_equal(m.files[0]->path, p1);
    assert_string_equal(m.files[1]->path, p2);
    assert_string_equal(m.files[2]->path, p3);
    assert_string_equal(m.files[2]->tensors[0].name, "output.weight");
    rl_gguf_model_free(&m);
    assert_null(m.files);
    rl_gguf_model_free(&m); /* twice is safe */

    /* split.count disagrees with the name */
    write_three(dir, 4, false);
    assert_int_equal(rl_gguf_model_load(p1, &m, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "split.count is 4"));
    /* the same tensor in two shards */
    write_three(dir, 3, true);
    assert_int_equal(rl_gguf_model_load(p1, &m, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "more than one shard"));
    /* a missing shard */
    write_three(dir, 3, false);
    remove(p3);
    assert_int_equal(rl_gguf_model_load(p1, &m, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "missing shard 3 of 3"));
    assert_true(strncmp(err.msg, p1, strlen(p1)) == 0);
    remove(p1);
    remove(p2);

    /* -00001-of-00001 is a single file; a missing single file is a clear error */
    mbuild b = {0};
    mb_tensor(&b, "blk.0.a.weight", Q8_0, 32, 10);
    wbuf w = mb_finish(&b);
    snprintf(p1, sizeof p1, "%s/single-00001-of-00001.gguf", dir);
    write_file(p1, &w);
    free(w.p);
    assert_int_equal(rl_gguf_model_load(p1, &m, &err), RL_OK);
    assert_int_equal(m.n_shards, 1);
    rl_gguf_model_free(&m);
    remove(p1);
    assert_int_equal(rl_gguf_model_load(p1, &m, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "no such file"));
    rl_gguf_model_free(&m); /* safe on a failed load */
}

/* rl_gguf_model_adopt_read: a failed read frees what was read (the rest NULL) and returns the
 * read's status untouched; a good one adopts the parts. */
static void test_adopt_read(void **state)
{
    (void)state;
    mbuild b = {0};
    mb_tensor(&b, "blk.0.a.weight", Q8_0, 32, 10);
    wbuf w = mb_finish(&b);
    rl_error err = {RL_OK, ""};
    rl_gguf_file **files = calloc(2, sizeof *files);
    assert_non_null(files);
    assert_int_equal(rl_gguf_read_buffer(w.p, w.len, "a-00001-of-00002.gguf", &files[0], &err),
                     RL_OK);
    rl_gguf_model m;
    memset(&m, 0, sizeof m);
    snprintf(err.msg, sizeof err.msg, "the read's own message");
    assert_int_equal(rl_gguf_model_adopt_read(RL_EINPUT, files, 2, "a.gguf", &m, &err), RL_EINPUT);
    assert_string_equal(err.msg, "the read's own message");

    files = calloc(1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(rl_gguf_read_buffer(w.p, w.len, "b.gguf", &files[0], &err), RL_OK);
    assert_int_equal(rl_gguf_model_adopt_read(RL_OK, files, 1, "b.gguf", &m, &err), RL_OK);
    assert_int_equal(m.n_shards, 1);
    assert_int_equal(m.n_tensors, 1);
    assert_string_equal(m.path, "b.gguf");
    rl_gguf_model_free(&m);
    free(w.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamed_untied),
        cmocka_unit_test(test_streamed_tied),
        cmocka_unit_test(test_moe),
        cmocka_unit_test(test_composition),
        cmocka_unit_test(test_unknown_type),
        cmocka_unit_test(test_saturating_totals),
        cmocka_unit_test(test_kv_bytes),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_shards),
        cmocka_unit_test(test_adopt_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
