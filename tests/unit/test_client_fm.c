/* SPDX-License-Identifier: MIT */
/* test_client_fm.c: fm's model listing as fm-bench reads it (client_fm.h): the available and
 * unavailable marks, identities and reasons, warning lines and colour codes dropped, lines that
 * are not model lines ignored, the bound on models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "client/client_fm.h"

static void test_models(void **state)
{
    (void)state;
    rl_client_fm_model m[8];
    const char *text =
        "Models on this Mac:\n"
        "warning: \xe2\x9c\x97 shadow (a warning is no model)\n"
        "  \xe2\x9c\x93 system (AFM 3 Core Advanced)\n"
        "\x1b[31m\xe2\x9c\x98\x1b[0m pcc (Not enabled. Please use the Terminal app.)\n"
        "\xc3\x97 legacy.v2:b/c\n"
        "\xe2\x9c\x94 bare\r\n"
        "\xe2\x9c\x93 (no name)\n"
        "\xe2\x9c\x93 trailing junk here\n";
    size_t n = rl_client_fm_parse_models(text, m, 8);
    assert_int_equal(n, 4);
    assert_string_equal(m[0].name, "system");
    assert_true(m[0].available);
    assert_string_equal(m[0].note, "AFM 3 Core Advanced");
    assert_string_equal(m[1].name, "pcc");
    assert_false(m[1].available);
    assert_string_equal(m[1].note, "Not enabled. Please use the Terminal app.");
    assert_string_equal(m[2].name, "legacy.v2:b/c");
    assert_false(m[2].available);
    assert_string_equal(m[2].note, "");
    assert_string_equal(m[3].name, "bare");
    assert_true(m[3].available);
    /* the bound: two slots, two models */
    assert_int_equal(rl_client_fm_parse_models(text, m, 2), 2);
    assert_int_equal(rl_client_fm_parse_models("", m, 8), 0);
    assert_int_equal(rl_client_fm_parse_models(NULL, m, 8), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_models)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
