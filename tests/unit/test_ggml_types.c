/* SPDX-License-Identifier: MIT */
/* test_ggml_types.c: the ggml type table and llama file_type labels against the pinned
 * llama.cpp (ggml.h, ggml-common.h block sizes, llama.h llama_ftype). Nothing is allocated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/ggml_types.h"

static void expect_type(uint32_t id, const char *name, uint32_t blck, uint32_t size)
{
    const rl_ggml_type_info *t = rl_ggml_type_get(id);
    assert_non_null(t);
    assert_string_equal(t->name, name);
    assert_int_equal(t->blck, blck);
    assert_int_equal(t->type_size, size);
    assert_int_equal(rl_ggml_type_by_name(name), (int)id);
}

static void test_known_types(void **state)
{
    (void)state;
    expect_type(0, "F32", 1, 4);
    expect_type(1, "F16", 1, 2);
    expect_type(2, "Q4_0", 32, 18);
    expect_type(3, "Q4_1", 32, 20);
    expect_type(6, "Q5_0", 32, 22);
    expect_type(7, "Q5_1", 32, 24);
    expect_type(8, "Q8_0", 32, 34);
    expect_type(9, "Q8_1", 32, 36);
    expect_type(10, "Q2_K", 256, 84);
    expect_type(11, "Q3_K", 256, 110);
    expect_type(12, "Q4_K", 256, 144);
    expect_type(13, "Q5_K", 256, 176);
    expect_type(14, "Q6_K", 256, 210);
    expect_type(15, "Q8_K", 256, 292);
    expect_type(16, "IQ2_XXS", 256, 66);
    expect_type(17, "IQ2_XS", 256, 74);
    expect_type(18, "IQ3_XXS", 256, 98);
    expect_type(19, "IQ1_S", 256, 50);
    expect_type(20, "IQ4_NL", 32, 18);
    expect_type(21, "IQ3_S", 256, 110);
    expect_type(22, "IQ2_S", 256, 82);
    expect_type(23, "IQ4_XS", 256, 136);
    expect_type(24, "I8", 1, 1);
    expect_type(25, "I16", 1, 2);
    expect_type(26, "I32", 1, 4);
    expect_type(27, "I64", 1, 8);
    expect_type(28, "F64", 1, 8);
    expect_type(29, "IQ1_M", 256, 56);
    expect_type(30, "BF16", 1, 2);
    expect_type(34, "TQ1_0", 256, 54);
    expect_type(35, "TQ2_0", 256, 66);
    expect_type(39, "MXFP4", 32, 17);
    expect_type(40, "NVFP4", 64, 36);
    expect_type(41, "Q1_0", 128, 18);
    expect_type(42, "Q2_0", 64, 18);
}

static void test_unknown_types(void **state)
{
    (void)state;
    const uint32_t removed[] = {4, 5, 31, 32, 33, 36, 37, 38};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        assert_null(rl_ggml_type_get(removed[i]));
        assert_true(rl_ggml_type_bpw(removed[i]) == 0.0);
    }
    assert_int_equal(rl_ggml_type_count(), 43);
    assert_null(rl_ggml_type_get(43));
    assert_null(rl_ggml_type_get(250));
    assert_null(rl_ggml_type_get(UINT32_MAX));
    assert_int_equal(rl_ggml_type_by_name("nope"), -1);
    assert_int_equal(rl_ggml_type_by_name(""), -1);
    assert_int_equal(rl_ggml_type_by_name(NULL), -1);
    assert_int_equal(rl_ggml_type_by_name("q4_k"), 12);
    assert_int_equal(rl_ggml_type_by_name("iq4_nl"), 20);
    assert_int_equal(rl_ggml_type_by_name("Q4_K_M"), -1);
}

static void test_bpw_range(void **state)
{
    (void)state;
    unsigned known = 0;
    for (uint32_t id = 0; id < rl_ggml_type_count(); id++) {
        const rl_ggml_type_info *t = rl_ggml_type_get(id);
        if (!t)
            continue;
        known++;
        double bpw = rl_ggml_type_bpw(id);
        assert_true(bpw >= 0.5 && bpw <= 64.0);
        assert_true(t->blck > 0 && t->type_size > 0);
    }
    assert_int_equal(known, 35); /* 43 ids minus 8 removed */
    assert_true(rl_ggml_type_bpw(2) == 4.5);
    assert_true(rl_ggml_type_bpw(12) == 4.5);
    assert_true(rl_ggml_type_bpw(14) == 6.5625);
    assert_true(rl_ggml_type_bpw(23) == 4.25);
    assert_true(rl_ggml_type_bpw(8) == 8.5);
    assert_true(rl_ggml_type_bpw(41) == 1.125);
}

static void test_ftype_labels(void **state)
{
    (void)state;
    assert_string_equal(rl_ftype_label(15), "Q4_K_M");
    assert_string_equal(rl_ftype_label(7), "Q8_0");
    assert_string_equal(rl_ftype_label(8), "Q5_0");
    assert_string_equal(rl_ftype_label(1), "F16");
    assert_string_equal(rl_ftype_label(0), "F32");
    assert_string_equal(rl_ftype_label(32), "BF16");
    assert_string_equal(rl_ftype_label(27), "IQ3_M");
    assert_string_equal(rl_ftype_label(38), "MXFP4_MOE");
    assert_string_equal(rl_ftype_label(41), "Q2_0");
    const uint32_t gone[] = {4, 5, 6, 33, 34, 35, 42, 199, 1024};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        assert_null(rl_ftype_label(gone[i]));
    for (uint32_t ft = 0; ft < 64; ft++) {
        const char *l = rl_ftype_label(ft);
        if (l) {
            assert_int_equal(rl_ftype_by_label(l), (int)ft);
            assert_true(rl_ftype_default_type(ft) >= 0);
            assert_non_null(rl_ggml_type_get((uint32_t)rl_ftype_default_type(ft)));
        } else {
            assert_int_equal(rl_ftype_default_type(ft), -1);
        }
    }
    assert_int_equal(rl_ftype_by_label("q4_k_m"), 15);
    assert_int_equal(rl_ftype_by_label("Q9_9"), -1);
    assert_int_equal(rl_ftype_default_type(15), 12);
    assert_int_equal(rl_ftype_default_type(27), 21);
    assert_int_equal(rl_ftype_default_type(28), 17); /* IQ2_S recipe defaults to IQ2_XS */
    assert_int_equal(rl_ftype_default_type(38), 39);
    assert_int_equal(rl_ftype_default_type(7), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_types),
        cmocka_unit_test(test_unknown_types),
        cmocka_unit_test(test_bpw_range),
        cmocka_unit_test(test_ftype_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
