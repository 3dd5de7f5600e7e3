/* SPDX-License-Identifier: MIT */
/* test_cpu_detect.c: core detection from saved /proc/cpuinfo texts (tests/fixtures/cpuinfo,
 * written by hand from known facts): Raspberry Pi 5 (exact), an RK3588-style A55+A76 board
 * (same core design), an A720 (related: extrapolated), Neoverse-V2 and an AMD Zen 3 part
 * (nothing: recipe only), an Alder Lake laptop (two blocks, P and E), an Alder Lake desktop
 * without E-cores, Raptor Lake. Checked to fail: with the hybrid_cpu flag ignored (the Alder
 * Lake laptop gives one block) and with 0xd0b removed from the part table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/cpu_detect.h"

static void detect(const char *name, rl_cpu_info *out)
{
    const char *src = getenv("RL_SRC");
    assert_non_null(src);
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/cpuinfo/%s", src, name);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_cpu_detect_file(path, out, &e), RL_OK);
}

static void test_rpi5(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("rpi5.txt", &c);
    assert_string_equal(c.isa, "aarch64");
    assert_string_equal(c.cpu, "Cortex-A76");
    assert_string_equal(c.board, "Raspberry Pi 5 Model B Rev 1.0");
    assert_int_equal(c.logical, 4);
    assert_false(c.hybrid);
    assert_int_equal(c.n_cores, 1);
    assert_string_equal(c.cores[0].core, "cortex-a76");
    assert_int_equal(c.cores[0].evidence, RL_EV_EXACT);
    assert_string_equal(rl_evidence_text(c.cores[0].evidence), "measured on this machine");
}

static void test_rk3588(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("rk3588.txt", &c);
    assert_string_equal(c.cpu, "Cortex-A55, Cortex-A76");
    assert_true(c.hybrid);
    assert_int_equal(c.n_cores, 1);
    assert_string_equal(c.cores[0].core, "cortex-a76");
    assert_int_equal(c.cores[0].evidence, RL_EV_SAME);
}

static void test_a720_related(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("a720.txt", &c);
    assert_int_equal(c.n_cores, 1);
    assert_string_equal(c.cores[0].core, "cortex-a76");
    assert_string_equal(c.cores[0].label, "Cortex-A720");
    assert_int_equal(c.cores[0].evidence, RL_EV_RELATED);
    assert_non_null(strstr(rl_evidence_text(c.cores[0].evidence), "EXTRAPOLATED"));
}

static void test_unknown_arm(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("neoverse-v2.txt", &c);
    assert_string_equal(c.isa, "aarch64");
    assert_int_equal(c.n_cores, 0);
    assert_non_null(strstr(c.cpu, "part 0xd4f"));
    /* an A55-only text: the little core is deliberately not an A76 relative */
    const char *a55 = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\n";
    rl_cpu_detect_text(a55, strlen(a55), NULL, &c);
    assert_string_equal(c.cpu, "Cortex-A55");
    assert_int_equal(c.n_cores, 0);
}

static void test_alder_lake_laptop(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("i7-12700H.txt", &c);
    assert_string_equal(c.isa, "x86_64");
    assert_string_equal(c.cpu, "12th Gen Intel(R) Core(TM) i7-12700H");
    assert_int_equal(c.family, 6);
    assert_int_equal(c.model, 154);
    assert_int_equal(c.logical, 20);
    assert_true(c.hybrid);
    assert_int_equal(c.n_cores, 2);
    assert_string_equal(c.cores[0].core, "golden-cove");
    assert_string_equal(c.cores[1].core, "gracemont");
    assert_int_equal(c.cores[0].evidence, RL_EV_EXACT);
    assert_int_equal(c.cores[1].evidence, RL_EV_EXACT);
}

static void test_alder_lake_desktop(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("i5-12400.txt", &c);
    assert_false(c.hybrid);
    assert_int_equal(c.n_cores, 1);
    assert_string_equal(c.cores[0].core, "golden-cove");
    assert_int_equal(c.cores[0].evidence, RL_EV_SAME);
}

static void test_raptor_lake(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("i9-13900K.txt", &c);
    assert_int_equal(c.n_cores, 2);
    assert_string_equal(c.cores[0].core, "golden-cove");
    assert_string_equal(c.cores[0].label, "Intel Raptor Cove (P-core)");
    assert_int_equal(c.cores[0].evidence, RL_EV_RELATED);
    assert_string_equal(c.cores[1].core, "gracemont");
    assert_int_equal(c.cores[1].evidence, RL_EV_SAME);
}

static void test_amd_zen(void **state)
{
    (void)state;
    rl_cpu_info c;
    detect("ryzen-5800x.txt", &c);
    assert_string_equal(c.isa, "x86_64");
    assert_string_equal(c.vendor, "AuthenticAMD");
    assert_int_equal(c.family, 25);
    assert_int_equal(c.n_cores, 0);
    assert_non_null(strstr(c.detail, "Zen 3"));
}

/* Values and keys are trimmed of every kind of space (CRLF lines, tabs), not only ' '. */
static void test_trim_whitespace(void **state)
{
    (void)state;
    rl_cpu_info c;
    const char *t = "processor\t: 0\r\nvendor_id\t: GenuineIntel\t\r\n"
                    "model name\t: Foo CPU \t\r\n";
    rl_cpu_detect_text(t, strlen(t), NULL, &c);
    assert_int_equal(c.logical, 1);
    assert_string_equal(c.vendor, "GenuineIntel");
    assert_string_equal(c.cpu, "Foo CPU");
}

static void test_garbage_and_missing(void **state)
{
    (void)state;
    rl_cpu_info c;
    rl_cpu_detect_text("\x1b[31m:::\n\n: :\nmodel : 0x\n", 23, NULL, &c);
    assert_int_equal(c.n_cores, 0);
    assert_string_equal(c.isa, "");
    rl_cpu_detect_text(NULL, 0, NULL, &c);
    assert_int_equal(c.n_cores, 0);
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_cpu_detect_file("/nonexistent/cpuinfo", &c, &e), RL_EINPUT);
    assert_non_null(strstr(e.msg, "/nonexistent/cpuinfo"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rpi5),
        cmocka_unit_test(test_rk3588),
        cmocka_unit_test(test_a720_related),
        cmocka_unit_test(test_unknown_arm),
        cmocka_unit_test(test_alder_lake_laptop),
        cmocka_unit_test(test_alder_lake_desktop),
        cmocka_unit_test(test_trim_whitespace),
        cmocka_unit_test(test_raptor_lake),
        cmocka_unit_test(test_amd_zen),
        cmocka_unit_test(test_garbage_and_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
