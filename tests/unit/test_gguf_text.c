/* SPDX-License-Identifier: MIT */
/* test_gguf_text.c: the `inspect` report for people (gguf_text.c), printed into a memory
 * stream for a tiny model built in memory: the whole report compared line by line with
 * values worked out by hand (also under a locale with a decimal comma), the label
 * explanation for a low and a zero on-label share and its absence when the label holds, the
 * pieces (type names, dimensions, the layer mix), and a hostile model whose name, tensor
 * names and path hold escape sequences and C1 controls: nothing reaches the stream raw.
 * Every model and stream is freed by its test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include <cmocka.h>

#include "model/gguf_model.h"
#include "model/gguf_text.h"

#include "gguf_testw.h"

/* The model of test_gguf_json.c: Q4_K_M by its file_type, 17% Q4_K in its layers (144 of 848
 * bytes), the rest Q5_0; 5.30 bits per weight; file 2176 bytes, 1248 streamed per token (57%),
 * the Q8_0 head 272 bytes (22% of that). Layer types are given by the caller. */
static void tiny(const char *name, uint32_t q_type, uint32_t down_type, rl_gguf_model *m)
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
    mb_tensor(&b, "blk.0.attn_q.weight", q_type, q_type == RL_GGML_Q4_K ? 256 : 32, 32);
    mb_tensor(&b, "blk.0.ffn_down.weight", down_type, 256, 1);
    mb_tensor(&b, "output.weight", RL_GGML_Q8_0, 32, 8);
    mb_load(&b, name, m);
}

/* The report of m, as a malloc'd string. */
static char *report(const rl_gguf_model *m, bool tensors)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    rl_gguf_print_report(f, m, tensors);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(strlen(text), len);
    return text;
}

static const char tiny_report[] =
    "========================================================================\n"
    "tiny-Q4_K_M.gguf  -  tiny\n"
    "========================================================================\n"
    "  label       : Q4_K_M   architecture: llama\n"
    "  actually    : 17% Q4_K in the repeating layers, 5.30 bits per weight\n"
    "  layers hold : Q5_0 83%, Q4_K 17% (share of repeating-layer bytes)\n"
    "  file        : 0.002 MB (0.002 MiB), 5 tensors, GGUF v3\n"
    "  parameters  : 1.82 K (1824)\n"
    "  shape       : n_layer 1, n_embd 32, n_head 4, n_head_kv 2, head_dim 8, n_ctx 128, "
    "n_vocab 8\n"
    "  KV cache    : 64 bytes per token of context (f16 K and V)\n"
    "  per token   : 0.001 MB read (0.001 MiB), 57% of the file\n"
    "  output head : Q8_0, 0.000 MB, 22% of what is read per token\n"
    "\n"
    "  TENSOR TYPES\n"
    "  ----------------------------------------------------------------------\n"
    "    type         tensors           MB    share\n"
    "    Q5_0               1        0.001    46.3%\n"
    "    Q8_0               2        0.001    35.8%\n"
    "    Q4_K               1        0.000     9.5%\n"
    "    F32                1        0.000     8.4%\n"
    "\n"
    "  WHAT THE LABEL MEANS HERE\n"
    "  ----------------------------------------------------------------------\n"
    "  Only 17% of the repeating-layer bytes are Q4_K, the type the label\n"
    "  Q4_K_M names; the rest is mostly Q5_0 83%. The output head is Q8_0.\n"
    "  On average the layers store 5.30 bits per weight. A label such as\n"
    "  Q4_K_M names a quantization recipe, not the type of each tensor:\n"
    "  when a tensor's row length does not divide by the block size of the\n"
    "  named type (256 for the k-quants), llama-quantize stores that\n"
    "  tensor in another type, and which one depends on whether it started\n"
    "  from F16/BF16 or from an already quantized file. The file name\n"
    "  cannot show this, and in small models the substitutes can outweigh\n"
    "  the named type. Compare files by bits per weight and bytes read per\n"
    "  token, not by their labels.\n";

static const char tiny_tensors[] =
    "\n"
    "  EVERY TENSOR\n"
    "  ----------------------------------------------------------------------\n"
    "  token_embd.weight                        Q8_0       32x8                      0.000 MB\n"
    "  blk.0.attn_norm.weight                   F32        32                        0.000 MB\n"
    "  blk.0.attn_q.weight                      Q5_0       32x32                     0.001 MB\n"
    "  blk.0.ffn_down.weight                    Q4_K       256                       0.000 MB\n"
    "  output.weight                            Q8_0       32x8                      0.000 MB\n";

static void test_report(void **state)
{
    (void)state;
    rl_gguf_model m;
    tiny("models/tiny-Q4_K_M.gguf", RL_GGML_Q5_0, RL_GGML_Q4_K, &m);
    assert_int_equal(m.file_bytes, 2176);
    char want[8192];
    char *got = report(&m, false);
    snprintf(want, sizeof want, "%s\n", tiny_report);
    assert_string_equal(got, want);
    free(got);
    got = report(&m, true);
    snprintf(want, sizeof want, "%s%s\n", tiny_report, tiny_tensors);
    assert_string_equal(got, want);
    free(got);

    /* a decimal-comma locale changes nothing (when the system has one) */
    if (setlocale(LC_ALL, "de_DE.UTF-8") || setlocale(LC_ALL, "de_DE.utf8")) {
        got = report(&m, true);
        assert_string_equal(got, want);
        free(got);
    }
    rl_gguf_model_free(&m);
}

static int c_locale(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C"); /* even when test_report failed under the other locale */
    return 0;
}

static void test_label_explanation(void **state)
{
    (void)state;
    rl_gguf_model m;
    char text[RL_GGUF_EXPLANATION_MAX];
    static const char rest[] =
        " On average the layers store %.2f bits per weight. A label such as Q4_K_M names a "
        "quantization recipe, not the type of each tensor: when a tensor's row length does not "
        "divide by the block size of the named type (256 for the k-quants), llama-quantize "
        "stores that tensor in another type, and which one depends on whether it started from "
        "F16/BF16 or from an already quantized file. The file name cannot show this, and in "
        "small models the substitutes can outweigh the named type. Compare files by bits per "
        "weight and bytes read per token, not by their labels.";
    char want[RL_GGUF_EXPLANATION_MAX];

    /* a low on-label share: 17% */
    tiny("tiny.gguf", RL_GGML_Q5_0, RL_GGML_Q4_K, &m);
    assert_true(rl_gguf_label_misleading(&m));
    assert_true(rl_gguf_label_explanation(&m, text, sizeof text));
    size_t o = (size_t)snprintf(want, sizeof want,
                                "Only 17%% of the repeating-layer bytes are Q4_K, the type the "
                                "label Q4_K_M names; the rest is mostly Q5_0 83%%. The output "
                                "head is Q8_0.");
    snprintf(want + o, sizeof want - o, rest, 5.30);
    assert_string_equal(text, want);
    /* cut short when the buffer is small, still terminated */
    assert_true(rl_gguf_label_explanation(&m, text, 40));
    assert_string_equal(text, "Only 17% of the repeating-layer bytes a");
    rl_gguf_model_free(&m);

    /* none of the named type: Q5_0 704 bytes and Q8_0 144 bytes (256x1: 8 blocks of 34 = 272;
     * shares 72% and 28%), 1280 elements in 976 bytes = 6.10 bits per weight */
    tiny("tiny.gguf", RL_GGML_Q5_0, RL_GGML_Q8_0, &m);
    assert_true(rl_gguf_label_explanation(&m, text, sizeof text));
    o = (size_t)snprintf(want, sizeof want,
                         "This file is called Q4_K_M, yet its repeating layers hold no Q4_K at "
                         "all: they are Q5_0 72%%, Q8_0 28%%. The output head is Q8_0.");
    snprintf(want + o, sizeof want - o, rest, 6.10);
    assert_string_equal(text, want);
    rl_gguf_model_free(&m);

    /* the label holds: no explanation, and none in the report */
    tiny("tiny.gguf", RL_GGML_Q4_K, RL_GGML_Q4_K, &m);
    assert_false(rl_gguf_label_misleading(&m));
    assert_false(rl_gguf_label_explanation(&m, text, sizeof text));
    assert_string_equal(text, "");
    char *got = report(&m, false);
    assert_null(strstr(got, "WHAT THE LABEL MEANS"));
    assert_non_null(strstr(got, "  actually    : 100% Q4_K in the repeating layers, 4.50 bits"));
    free(got);
    rl_gguf_model_free(&m);
}

static void test_pieces(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(rl_gguf_type_name(RL_GGML_Q4_K, buf, sizeof buf), "Q4_K");
    assert_string_equal(rl_gguf_type_name(250, buf, sizeof buf), "type250");
    rl_gguf_tensor t = {.n_dims = 3, .ne = {4096, 11008, 8, 1}};
    rl_gguf_fmt_dims(&t, buf, sizeof buf);
    assert_string_equal(buf, "4096x11008x8");
    rl_gguf_fmt_dims(&t, buf, 8);
    assert_string_equal(buf, "4096");

    rl_gguf_model m;
    tiny("tiny.gguf", RL_GGML_Q5_0, RL_GGML_Q4_K, &m);
    rl_gguf_layer_mix(&m, -1, 6, buf, sizeof buf);
    assert_string_equal(buf, "Q5_0 83%, Q4_K 17%");
    rl_gguf_layer_mix(&m, RL_GGML_Q5_0, 6, buf, sizeof buf);
    assert_string_equal(buf, "Q4_K 17%");
    rl_gguf_layer_mix(&m, -1, 1, buf, sizeof buf);
    assert_string_equal(buf, "Q5_0 83%");
    rl_gguf_layer_mix(&m, -1, 6, buf, 12); /* whole items only */
    assert_string_equal(buf, "Q5_0 83%");
    rl_gguf_type_bytes unknown = {250, 1, 0, 32, 0, 0};
    assert_false(rl_gguf_type_bytes_known(&m, &unknown));
    assert_true(rl_gguf_type_bytes_known(&m, &m.types[0]));
    rl_gguf_model_free(&m);
}

/* No byte of s is a control character other than '\n', DEL or a C1 control (C2 80..C2 9F). */
static void assert_terminal_safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f ||
            (p[0] == 0xC2 && p[1] >= 0x80 && p[1] < 0xA0))
            fail_msg("raw control byte 0x%02x at offset %td", *p, (const char *)p - s);
    }
}

static void test_hostile(void **state)
{
    (void)state;
    rl_gguf_model m;
    mbuild b = {0};
    /* ESC ]0; ... BEL sets a terminal's title; C2 9B is the one-character CSI (U+009B) */
    mb_str(&b, "general.architecture",
           "llama\xc2\x9b"
           "2J");
    mb_str(&b, "general.name",
           "evil\x1b]0;pwned\x07 \xc2\x9b"
           "31mred\x7f");
    mb_u32(&b, "general.file_type", 15);
    mb_tensor(&b, "blk.0.\x1b[2J\xc2\x85.weight", RL_GGML_Q5_0, 32, 1);
    mb_load(&b, "dir/bad\x1b]0;pwned\x07\xff.gguf", &m);

    char *got = report(&m, true);
    assert_terminal_safe(got);
    /* the path's base name, the name, the architecture and the tensor name, escaped */
    assert_non_null(strstr(got, "\nbad\\e]0;pwned\\x07\\xff.gguf  -  evil"));
    assert_non_null(strstr(got, "\\u009b31mred"));
    assert_non_null(strstr(got, "architecture: llama\\u009b2J\n"));
    assert_non_null(strstr(got, "\n  blk.0.\\e[2J\\u0085.weight "));
    free(got);
    rl_gguf_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_report, c_locale),
        cmocka_unit_test(test_label_explanation),
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
