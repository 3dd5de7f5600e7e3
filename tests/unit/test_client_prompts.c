/* SPDX-License-Identifier: MIT */
/* test_client_prompts.c: unit tests for client_prompts.c (profiles, JSON Lines prompt files and
 * their one-line errors naming the line) and client_fm.c (capabilities from fm's help text) and
 * client_csv.c (the per-request CSV: columns, empty cells, quoting, the formula guard).
 * Checked to fail: with blank lines counted out of the line numbers, with `--[no-]stream` not
 * recognised, and with the formula guard removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/client_csv.h"
#include "client/client_fm.h"
#include "client/client_prompts.h"
#include "base/rl_json.h"

static void test_profiles(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    assert_int_equal(rl_client_prompts_profile("short-chat", &p, &err), RL_OK);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.ids[0], "short-chat-1");
    assert_string_equal(p.source, "profile");
    rl_client_prompts_free(&p);
    assert_int_equal(rl_client_prompts_profile("mixed", &p, &err), RL_OK);
    assert_int_equal(p.n, 5);
    assert_string_equal(p.ids[4], "code-1");
    rl_client_prompts_free(&p);
    for (int i = 0; rl_client_profile_names[i]; i++) {
        assert_int_equal(rl_client_prompts_profile(rl_client_profile_names[i], &p, &err), RL_OK);
        assert_true(p.n >= 2);
        rl_client_prompts_free(&p);
    }
    assert_int_equal(rl_client_prompts_profile("nope", &p, &err), RL_EINPUT);
    assert_non_null(strstr(err.msg, "unknown profile 'nope'"));
}

static void test_jsonl(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    const char *ok = "{\"id\": \"a\", \"prompt\": \"héllo\", \"max_tokens\": 9}\n"
                     "\n   \n"
                     "{\"prompt\": \"second\"}\n";
    assert_int_equal(rl_client_prompts_parse("f.jsonl", ok, strlen(ok), &p, &err), RL_OK);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.ids[1], "line-4");
    assert_int_equal(p.max_tokens[0], 9);
    assert_int_equal(p.max_tokens[1], 0);
    cJSON *j = rl_client_prompts_json(&p);
    char *s = cJSON_PrintUnformatted(j);
    assert_string_equal(
        s,
        "[{\"id\":\"a\",\"kind\":\"controlled\",\"chars\":5,\"text\":\"héllo\",\"max_tokens\":9},"
        "{\"id\":\"line-4\",\"kind\":\"controlled\",\"chars\":6,\"text\":\"second\"}]");
    free(s);
    cJSON_Delete(j);
    rl_client_prompts_free(&p);
    /* max_tokens at both ends of 1..1000000 */
    const char *edges = "{\"prompt\": \"x\", \"max_tokens\": 1000000}\n"
                        "{\"prompt\": \"y\", \"max_tokens\": 1}\n";
    assert_int_equal(rl_client_prompts_parse("f.jsonl", edges, strlen(edges), &p, &err), RL_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.max_tokens[0], 1000000);
    assert_int_equal(p.max_tokens[1], 1);
    rl_client_prompts_free(&p);
    struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"prompt\": \"x\", \"max_tokens\": 1000001}\n", "f.jsonl:1: \"max_tokens\" must be"},
        {"{\"prompt\": \"x\", \"max_tokens\": 0}\n", "f.jsonl:1: \"max_tokens\" must be"},
        {"{\"prompt\": \"x\"}\n[1]\n", "f.jsonl:2: not a JSON object"},
        {"{\"id\": \"x\"}\n", "f.jsonl:1: \"prompt\" is missing or not a string"},
        {"{\"prompt\": \"  \"}\n", "f.jsonl:1: the prompt is empty"},
        {"{\"prompt\": \"x\", \"max_tokens\": 1.5}\n", "f.jsonl:1: \"max_tokens\" must be"},
        {"{\"prompt\": \"x\", \"id\": 3}\n", "f.jsonl:1: \"id\" must be"},
        {"{\"prompt\": \"x\", \"id\": \"d\"}\n\n{\"prompt\": \"y\", \"id\": \"d\"}",
         "f.jsonl:3: the id 'd' is used twice"},
        {"\n\n", "f.jsonl holds no prompt"},
        {"{\"prompt\": \"\xff\"}\n", "f.jsonl:1: the prompt is not valid UTF-8"},
        /* a second object after the first is not silently dropped */
        {"{\"prompt\": \"x\"} {\"prompt\": \"y\"}\n", "f.jsonl:1: not a JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(
            rl_client_prompts_parse("f.jsonl", bad[i].text, strlen(bad[i].text), &p, &err),
            RL_EINPUT);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: %s", i, err.msg);
        assert_int_equal(p.n, 0);
    }
}

static void *no_memory(size_t n)
{
    (void)n;
    return NULL;
}

/* Out of memory while parsing a prompt line is an internal error (exit 5) naming the line,
 * never "not a JSON object" (bad input); whitespace after the object is fine. */
static void test_jsonl_oom(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    const char *text = "{\"prompt\": \"x\"}  \n{\"prompt\": \"y\"}\n";
    assert_int_equal(rl_client_prompts_parse("f.jsonl", text, strlen(text), &p, &err), RL_OK);
    assert_int_equal(p.n, 2);
    rl_client_prompts_free(&p);
    rl_json_set_malloc(no_memory);
    rl_status st = rl_client_prompts_parse("f.jsonl", text, strlen(text), &p, &err);
    rl_json_set_malloc(NULL);
    assert_int_equal(st, RL_EINTERNAL);
    assert_string_equal(err.msg, "f.jsonl:1: out of memory reading the prompt");
    assert_int_equal(p.n, 0);
}

static const char help[] =
    "\n \x1b[1mFoundation Models CLI\x1b[0m\n\n  USAGE\n    % fm <command>\n\n"
    "  COMMANDS\n    chat          Start a chat\n"
    "    count-tokens  Count tokens\n    respond       Respond\n"
    "    serve         Serve\n\n  MODELS\n    system        The model\n";
static const char respond_help[] = "  OPTIONS\n    -m, --model <model>  (system)\n"
                                   "    --[no-]stream   Stream (default: on)\n";

static void test_fm(void **state)
{
    (void)state;
    rl_client_fm_caps c;
    rl_client_fm_parse(help, respond_help, &c);
    assert_true(c.ok);
    assert_int_equal(c.n_commands, 4);
    assert_string_equal(c.commands[1], "count-tokens");
    assert_string_equal(c.token_count_command, "count-tokens");
    assert_null(c.model_list_command);
    assert_true(c.streaming && c.model_selection && c.server);
    assert_false(c.greedy || c.instructions || c.quota);
    rl_client_fm_parse("not a cli\n", NULL, &c);
    assert_false(c.ok);
    assert_string_equal(c.error, "could not read the command list from fm --help");
    assert_true(rl_client_fm_documents("  --greedy  x", "--greedy"));
    assert_false(rl_client_fm_documents("  --greedy-ish", "--greedy"));
    assert_true(rl_client_fm_documents("--[no-]stream", "--no-stream"));
    char bin[64];
    assert_true(rl_client_fm_detect("fm respond --greedy", bin, sizeof bin));
    assert_string_equal(bin, "fm");
    assert_true(rl_client_fm_detect("  /opt/x/fm respond", bin, sizeof bin));
    assert_string_equal(bin, "/opt/x/fm");
    assert_false(rl_client_fm_detect("ffm respond", bin, sizeof bin));
    assert_false(rl_client_fm_detect("fmt x", bin, sizeof bin));
    assert_false(rl_client_fm_detect("ollama run m", bin, sizeof bin));
}

static void test_csv(void **state)
{
    (void)state;
    const char *bundle =
        "{\"client\": {\"points\": [{\"concurrency\": 2, \"request_rate\": null, \"records\": ["
        "{\"prompt\": \"p,1\", \"run\": 1, \"attempts\": 2, \"ok\": false, \"error\": "
        "\"=HYPERLINK(\\\"x\\\")\", \"ttft_ms\": null, \"e2e_ms\": 12.5, \"output_tokens\": 7},"
        "{\"prompt\": \"-flag\", \"run\": 2, \"attempts\": 1, \"ok\": true, \"error\": null, "
        "\"ttft_ms\": 0.1, \"e2e_ms\": -3, \"output_hash\": \"ab\"}]}]}}";
    cJSON *b = cJSON_Parse(bundle);
    char *out;
    size_t len;
    rl_error err;
    assert_int_equal(rl_client_csv(b, &out, &len, &err), RL_OK);
    const char *want =
        "concurrency,request_rate,prompt,run,attempts,ok,error,ttft_ms,e2e_ms,chunks,deliveries,"
        "prompt_tokens,output_tokens,tpot_ms,decode_tok_s,output_hash\n"
        "2,,\"p,1\",1,2,false,\"'=HYPERLINK(\"\"x\"\")\",,12.5,,,,7,,,\n"
        "2,,'-flag,2,1,true,,0.1,-3,,,,,,,ab\n";
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
    free(out);
    cJSON_Delete(b);
    b = cJSON_Parse("{\"command\": \"run\"}");
    assert_int_equal(rl_client_csv(b, &out, &len, &err), RL_EINPUT);
    cJSON_Delete(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles),  cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_jsonl_oom), cmocka_unit_test(test_fm),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
