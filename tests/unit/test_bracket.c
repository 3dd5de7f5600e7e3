/* SPDX-License-Identifier: MIT */
/* test_bracket.c: unit tests for cmd/bracket.c (the drift rule, the bracket's summary) and
 * validate's check of membw.bracket. No timing: the probes are written by hand.
 *
 * Seen to fail with the code broken on purpose: with the rule's comparison made ">=" (the
 * exactly-at-the-limit case is drift), with the spread taken against the lowest probe instead
 * of the highest (the 47% text reads 88%), and with validate's drift check removed (the
 * tampered drift is not reported). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rl_test.h"

#include "analyse/validate.h"
#include "cmd/bracket.h"
#include "cmd/defaults.h"

static void test_drift_rule(void **state)
{
    (void)state;
    char text[512];
    double spread;
    /* the brief's example: from 40.1 (first) to 21.3 (later), 47% */
    const double moved[] = {40.1, 33.0, 21.3};
    assert_true(rl_bracket_drift(moved, 3, RL_DEF_BRACKET_LIMIT_PCT, &spread, text, sizeof text));
    assert_near(spread, (40.1 - 21.3) / 40.1 * 100, 1e-12);
    assert_string_equal(text,
                        "the memory ceiling moved from 40.1 to 21.3 GB/s during the run (47%, over "
                        "the 15% limit): something else was using the memory bandwidth for part "
                        "of it; the utilisation figures use the ceiling measured before the "
                        "sweep. Re-run on a quiet machine, or give --peak-bw");
    /* a ceiling that rose: earlier extreme first */
    const double rose[] = {20.0, 30.0, 40.0};
    assert_true(rl_bracket_drift(rose, 3, 15, &spread, text, sizeof text));
    assert_non_null(strstr(text, "moved from 20.0 to 40.0 GB/s during the run (50%"));
    /* both sides of the limit: 14% is quiet, exactly 15% is not over it, 16% is drift */
    const double d14[] = {100, 86}, d15[] = {100, 85}, d16[] = {84, 100};
    assert_false(rl_bracket_drift(d14, 2, 15, &spread, text, sizeof text));
    assert_near(spread, 14, 1e-9);
    assert_string_equal(text, "");
    assert_false(rl_bracket_drift(d15, 2, 15, &spread, text, sizeof text));
    assert_true(rl_bracket_drift(d16, 2, 15, &spread, text, sizeof text));
    assert_non_null(
        strstr(text, "moved from 84.0 to 100.0 GB/s during the run (16%, over the 15%"));
    /* one probe: no spread */
    assert_false(rl_bracket_drift(d16, 1, 15, &spread, text, sizeof text));
    assert_near(spread, 0, 0);
}

/* A membw object with probes of the given GB/s ("before", "between"..., "after"). */
static cJSON *membw_with(const double *gbs, int n)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "kind", "measured");
    cJSON_AddNumberToObject(m, "peak_read_GBs", 41.0);
    cJSON *br = cJSON_AddObjectToObject(m, "bracket");
    cJSON_AddStringToObject(br, "kind", "measured");
    cJSON *probes = cJSON_AddArrayToObject(br, "probes");
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "at", i == 0 ? "before" : i == n - 1 ? "after" : "between");
        cJSON_AddNumberToObject(p, "t_s", i * 10.0);
        cJSON_AddNumberToObject(p, "GBs", gbs[i]);
        cJSON_AddItemToArray(probes, p);
    }
    return m;
}

static void test_summarize(void **state)
{
    (void)state;
    const double g[] = {40.1, 33.0, 21.3};
    cJSON *m = membw_with(g, 3);
    char text[512];
    assert_true(rl_bracket_summarize(m, 15, text, sizeof text));
    const cJSON *br = cJSON_GetObjectItem(m, "bracket");
    assert_near(cJSON_GetObjectItem(br, "before_GBs")->valuedouble, 40.1, 0);
    assert_near(cJSON_GetObjectItem(br, "after_GBs")->valuedouble, 21.3, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(br, "between_GBs")), 1);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(br, "drift")));
    assert_string_equal(cJSON_GetObjectItem(br, "ceiling_used")->valuestring, "peak");
    assert_near(cJSON_GetObjectItem(br, "ceiling_GBs")->valuedouble, 41.0, 0);
    assert_non_null(strstr(text, "from 40.1 to 21.3 GB/s"));
    cJSON_Delete(m);
}

/* validate: the summary as written is valid; a tampered drift or spread is reported there. */
static void test_validate(void **state)
{
    (void)state;
    const double g[] = {30.0, 29.0, 28.5};
    cJSON *b = cJSON_CreateObject();
    cJSON *m = membw_with(g, 3);
    cJSON_AddItemToObject(b, "membw", m);
    char text[512];
    assert_true(rl_bracket_summarize(m, 15, text, sizeof text));
    assert_string_equal(text, "");
    rl_validate_problems p = {0};
    assert_int_equal(rl_validate(b, &p), RL_OK);
    assert_null(rl_validate_find(&p, "membw.bracket.drift"));
    assert_null(rl_validate_find(&p, "membw.bracket.spread_pct"));
    rl_validate_problems_free(&p);
    cJSON *br = cJSON_GetObjectItem(m, "bracket");
    cJSON_ReplaceItemInObject(br, "drift", cJSON_CreateTrue());
    cJSON_ReplaceItemInObject(br, "spread_pct", cJSON_CreateNumber(1.0));
    rl_validate_problems q = {0};
    assert_int_equal(rl_validate(b, &q), RL_OK);
    assert_non_null(rl_validate_find(&q, "membw.bracket.drift"));
    assert_non_null(rl_validate_find(&q, "membw.bracket.spread_pct"));
    rl_validate_problems_free(&q);
    cJSON_Delete(b);
}

static void test_start(void **state)
{
    (void)state;
    bool oom;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "kind", "controlled");
    assert_false(rl_bracket_start(m, false, &oom));
    assert_false(oom);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(m, "bracket"), "reason")->valuestring,
        "the ceiling was given with --peak-bw: nothing measured, so no probes");
    cJSON_ReplaceItemInObject(m, "kind", cJSON_CreateString("measured"));
    assert_true(rl_bracket_start(m, false, &oom));
    assert_false(rl_bracket_start(m, true, &oom));
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(m, "bracket"), "reason")->valuestring,
        "not measured: --no-bracket");
    cJSON_Delete(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drift_rule),
        cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
