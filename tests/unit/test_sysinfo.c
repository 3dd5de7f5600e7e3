/* SPDX-License-Identifier: MIT */
/* test_sysinfo.c: unit tests for the environment record (owner: membw). A synthetic /proc and
 * /sys tree under RL_TMP checks every parsed field; a missing root checks that everything
 * degrades to unknown/null; the running system must at least give a CPU count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/sysinfo.h"
#include "rl_test.h"

static char root[512];

static void put(const char *rel, const char *text)
{
    rl_test_put(root, rel, text);
}

static void mkdirs(const char *rel)
{
    rl_test_mkdirs(root, rel);
}

static int setup_tree(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    snprintf(root, sizeof root, "%s/sysinfo-tree-%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    mkdirs("");
    put("proc/cpuinfo",
        "processor\t: 0\nmodel name\t:\t Test CPU 9000 @ 3.00GHz\n" /* tab: trimmed too */
        "physical id\t: 0\ncore id\t\t: 0\n"
        "flags\t\t: fpu sse2 avx2 hypervisor avx512f\n\n"
        "processor\t: 1\nmodel name\t: Test CPU 9000 @ 3.00GHz\n"
        "physical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu sse2 avx2 hypervisor\n\n");
    put("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000 kB\n"
                        "MemAvailable:    8192000 kB\n");
    put("sys/devices/system/cpu/online", "0-3\n");
    static const int core_of[4] = {0, 0, 1, 1};
    for (int c = 0; c < 4; c++) {
        char rel[128], v[16];
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/core_id", c);
        snprintf(v, sizeof v, "%d\n", core_of[c]);
        put(rel, v);
        snprintf(rel, sizeof rel, "sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
        put(rel, "0\n");
    }
    put("sys/devices/system/cpu/cpu0/cache/index0/level", "1\n");
    put("sys/devices/system/cpu/cpu0/cache/index0/type", "Data\n");
    put("sys/devices/system/cpu/cpu0/cache/index0/size", "48K\n");
    put("sys/devices/system/cpu/cpu0/cache/index0/shared_cpu_list", "0-1\n");
    put("sys/devices/system/cpu/cpu0/cache/index1/level", "1\n");
    put("sys/devices/system/cpu/cpu0/cache/index1/type", "Instruction\n");
    put("sys/devices/system/cpu/cpu0/cache/index1/size", "32K\n");
    put("sys/devices/system/cpu/cpu0/cache/index2/level", "3\n");
    put("sys/devices/system/cpu/cpu0/cache/index2/type", "Unified\n");
    put("sys/devices/system/cpu/cpu0/cache/index2/size", "30720K\n");
    put("sys/devices/system/cpu/cpu0/cache/index2/shared_cpu_list", "0-3\n");
    put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put("sys/devices/system/cpu/smt/active", "1\n");
    put("sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
    put("sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
    mkdirs("sys/devices/system/node/node0");
    return 0;
}

static int teardown_tree(void **state)
{
    (void)state;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_synthetic_tree(void **state)
{
    (void)state;
    rl_sysinfo si;
    rl_sysinfo_collect_at(root, &si);
    assert_string_equal(si.cpu_model, "Test CPU 9000 @ 3.00GHz");
    assert_int_equal(si.logical_cores, 4);
    assert_int_equal(si.physical_cores, 2);
    assert_int_equal(si.threads_per_core, 2);
    assert_int_equal(si.packages, 1);
    assert_int_equal(si.numa_nodes, 1);
    assert_int_equal(si.n_caches, 3);
    assert_int_equal(si.caches[0].size_bytes, 48 * 1024);
    assert_int_equal(si.caches[0].shared_cpus, 2);
    assert_int_equal(si.llc_bytes, 30720ULL * 1024);
    assert_int_equal(si.ram_bytes, 16384000ULL * 1024);
    assert_int_equal(si.ram_available_bytes, 8192000ULL * 1024);
    assert_string_equal(si.governor, "performance");
    assert_string_equal(si.thp, "never");
    assert_int_equal(si.smt_active, 1);
    assert_int_equal(si.is_vm, 1);
    assert_string_equal(si.os, ""); /* uname is not consulted for a test root */
    /* the first flags line, as the kernel lists it (the calibration's key) */
    assert_string_equal(si.cpu_flags, "fpu sse2 avx2 hypervisor avx512f");

    cJSON *j = rl_sysinfo_to_json(&si);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "cpu")->valuestring, "Test CPU 9000 @ 3.00GHz");
    assert_int_equal(cJSON_GetObjectItem(j, "physical_cores")->valueint, 2);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "vm")));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "os")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "caches")), 3);
    assert_string_equal(cJSON_GetObjectItem(j, "cpu_flags")->valuestring,
                        "fpu sse2 avx2 hypervisor avx512f");
    cJSON_Delete(j);

    char line[512];
    rl_sysinfo_describe(&si, line, sizeof line);
    assert_non_null(strstr(line, "2 physical / 4 logical cores"));
    assert_non_null(strstr(line, "LLC 30 MiB"));
    assert_non_null(strstr(line, "THP never"));
}

static void test_missing_root_degrades(void **state)
{
    (void)state;
    rl_sysinfo si;
    rl_sysinfo_collect_at("/nonexistent/sysinfo-root", &si);
    assert_string_equal(si.cpu_model, "");
    assert_string_equal(si.cpu_flags, "");
    assert_int_equal(si.logical_cores, -1);
    assert_int_equal(si.physical_cores, -1);
    assert_int_equal(si.llc_bytes, 0);
    assert_int_equal(si.ram_bytes, 0);
    assert_int_equal(si.smt_active, -1);
    assert_int_equal(si.is_vm, -1);
    cJSON *j = rl_sysinfo_to_json(&si);
    assert_non_null(j);
    static const char *const nulls[] = {"cpu",       "logical_cores", "physical_cores",
                                        "llc_bytes", "ram_bytes",     "governor",
                                        "thp",       "smt_active",    "vm"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, nulls[i])));
    assert_null(cJSON_GetObjectItem(j, "cpu_flags")); /* absent when unknown */
    cJSON_Delete(j);
    char line[512];
    rl_sysinfo_describe(&si, line, sizeof line);
    assert_non_null(strstr(line, "unknown CPU"));
}

static void test_parse_size(void **state)
{
    (void)state;
    assert_int_equal(rl_sysinfo_parse_size("48K"), 49152);
    assert_int_equal(rl_sysinfo_parse_size("491520K"), 491520ULL * 1024);
    assert_int_equal(rl_sysinfo_parse_size("32M"), 32ULL << 20);
    assert_int_equal(rl_sysinfo_parse_size("1G"), 1ULL << 30);
    assert_int_equal(rl_sysinfo_parse_size("512"), 512);
    assert_int_equal(rl_sysinfo_parse_size("2 MiB"), 2ULL << 20);
    assert_int_equal(rl_sysinfo_parse_size("abc"), 0);
    assert_int_equal(rl_sysinfo_parse_size(""), 0);
    assert_int_equal(rl_sysinfo_parse_size("12Q"), 0);
    assert_int_equal(rl_sysinfo_parse_size(NULL), 0);
}

static void test_running_system(void **state)
{
    (void)state;
    rl_sysinfo si;
    rl_sysinfo_collect(&si);
    assert_true(si.logical_cores >= 1);
    assert_true(si.os[0] != '\0');
    cJSON *j = rl_sysinfo_to_json(&si);
    assert_non_null(j);
    char *txt = cJSON_PrintUnformatted(j);
    assert_non_null(txt);
    cJSON *back = cJSON_Parse(txt);
    assert_non_null(back);
    cJSON_Delete(back);
    free(txt);
    cJSON_Delete(j);
    int cpus[RL_SYSINFO_MAX_CPUS], phys = 0;
    int n = rl_sysinfo_cpu_order(cpus, RL_SYSINFO_MAX_CPUS, &phys);
    assert_true(n >= 1);
    assert_true(phys >= 1 && phys <= n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_synthetic_tree, setup_tree, teardown_tree),
        cmocka_unit_test(test_missing_root_degrades),
        cmocka_unit_test(test_parse_size),
        cmocka_unit_test(test_running_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
