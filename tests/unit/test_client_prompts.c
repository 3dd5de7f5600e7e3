/* SPDX-License-Identifier: MIT */
/* test_client_prompts.c: unit tests for client_prompts.c and client_prompt_file.c (profiles and
 * fm-bench's names for them; prompt files told by their content: JSON documents, JSON Lines,
 * text by lines or paragraphs, with specific ids, texts and max_tokens; hostile files, each a
 * one-line error naming the line or item; --prompt texts after a file's; the bundle's view),
 * client_fm.c (capabilities from fm's help text) and client_csv.c (the per-request CSV:
 * columns, empty cells, quoting, the formula guard).
 * Checked to fail: with blank lines counted out of the line numbers, with `--[no-]stream` not
 * recognised, and with the formula guard removed; the detection, id and paragraph rules by the
 * mutants of tests/mutants.txt (prompt-*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "client/client_csv.h"
#include "client/client_fm.h"
#include "client/client_prompts.h"
#include "base/rl_json.h"

/* Parse text as the file name; it must succeed. */
static void parse_ok(const char *name, const char *text, size_t len, rl_client_prompts *p)
{
    rl_error err = {0};
    if (rl_client_prompts_parse(name, text, len, p, &err) != RL_OK)
        fail_msg("%s: %s", name, err.msg);
}

/* The ids of p, joined with spaces. */
static const char *ids_of(const rl_client_prompts *p, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? " " : "", p->ids[i]);
    return buf;
}

typedef struct {
    const char *name, *text;
    size_t len;      /* 0: strlen(text) */
    const char *msg; /* what the message starts with */
} bad_file;

static void expect_bad(const bad_file *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rl_client_prompts p;
        rl_error err = {0};
        size_t len = b[i].len ? b[i].len : strlen(b[i].text);
        rl_status st = rl_client_prompts_parse(b[i].name, b[i].text, len, &p, &err);
        if (st != RL_EINPUT || strncmp(err.msg, b[i].msg, strlen(b[i].msg)) != 0)
            fail_msg("case %zu (%s): status %d: %s", i, b[i].msg, (int)st, err.msg);
        assert_int_equal(p.n, 0);
        assert_null(p.ids);
    }
}

static void test_profiles(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    assert_int_equal(rl_client_prompts_profile("short-chat", &p, &err), RL_OK);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.ids[0], "short-chat-1");
    assert_string_equal(p.source, "profile");
    assert_null(p.requested);
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
    assert_string_equal(err.msg,
                        "--profile: unknown profile 'nope': give short-chat, long-generation, "
                        "extraction, summarisation, code or mixed, or one of fm-bench's quick, "
                        "standard, interactive, throughput, client, stress, reasoning, coding or "
                        "creative (mapped onto ours: docs/CLI.md)");
}

/* fm-bench's nine names: each loads the profile of the table, recorded as asked for. */
static void test_fm_bench_profiles(void **state)
{
    (void)state;
    static const struct {
        const char *name, *ours, *first_id;
        size_t n;
    } want[] = {
        {"quick", "short-chat", "short-chat-1", 1},
        {"standard", "mixed", "short-chat-1", 5},
        {"interactive", "short-chat", "short-chat-1", 3},
        {"throughput", "long-generation", "long-generation-1", 2},
        {"client", "mixed", "short-chat-1", 5},
        {"stress", "mixed", "short-chat-1", 5},
        {"reasoning", "long-generation", "long-generation-1", 2},
        {"coding", "code", "code-1", 2},
        {"creative", "long-generation", "long-generation-1", 2},
    };
    size_t n = 0;
    while (rl_client_fm_bench_profiles[n].name)
        n++;
    assert_int_equal(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++) {
        rl_client_prompts p;
        rl_error err;
        assert_string_equal(rl_client_fm_bench_profiles[i].name, want[i].name);
        assert_int_equal(rl_client_prompts_profile(want[i].name, &p, &err), RL_OK);
        assert_string_equal(p.name, want[i].ours);
        assert_string_equal(p.requested, want[i].name);
        assert_int_equal(p.n, want[i].n);
        assert_string_equal(p.ids[0], want[i].first_id);
        rl_client_prompts_free(&p);
    }
    rl_client_prompts p;
    rl_error err;
    assert_int_equal(rl_client_prompts_profile("interactive", &p, &err), RL_OK);
    cJSON *o = cJSON_CreateObject();
    assert_true(rl_client_prompts_settings(o, &p));
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(
        s,
        "{\"source\":\"profile\",\"name\":\"short-chat\",\"n\":3,\"requested\":\"interactive\"}");
    free(s);
    cJSON_Delete(o);
    rl_client_prompts_free(&p);
}

static void test_jsonl(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    const char *ok = "{\"id\": \"a\", \"prompt\": \"héllo\", \"max_tokens\": 9}\n"
                     "\n   \n"
                     "{\"prompt\": \"second\"}\n"
                     "{\"name\": \"by-name\", \"text\": \"third\"}\n";
    parse_ok("f.jsonl", ok, strlen(ok), &p);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.format, "jsonl");
    assert_string_equal(p.ids[1], "line-4");
    assert_string_equal(p.ids[2], "by-name");
    assert_string_equal(p.texts[2], "third");
    assert_int_equal(p.max_tokens[0], 9);
    assert_int_equal(p.max_tokens[1], 0);
    cJSON *j = rl_client_prompts_json(&p);
    char *s = cJSON_PrintUnformatted(j);
    assert_string_equal(
        s,
        "[{\"id\":\"a\",\"kind\":\"controlled\",\"chars\":5,\"text\":\"héllo\",\"max_tokens\":9},"
        "{\"id\":\"line-4\",\"kind\":\"controlled\",\"chars\":6,\"text\":\"second\"},"
        "{\"id\":\"by-name\",\"kind\":\"controlled\",\"chars\":5,\"text\":\"third\"}]");
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
    /* one line that is an object without "prompts": JSON Lines, not a document */
    const char *one = "{\"id\": \"solo\", \"prompt\": \"only\"}";
    parse_ok("f.jsonl", one, strlen(one), &p);
    assert_string_equal(p.format, "jsonl");
    assert_string_equal(p.ids[0], "solo");
    rl_client_prompts_free(&p);
    static const bad_file bad[] = {
        {"f.jsonl", "{\"prompt\": \"x\", \"max_tokens\": 1000001}\n", 0,
         "f.jsonl:1: \"max_tokens\" must be"},
        {"f.jsonl", "{\"prompt\": \"x\", \"max_tokens\": 0}\n", 0,
         "f.jsonl:1: \"max_tokens\" must be"},
        {"f.jsonl", "{\"prompt\": \"x\"}\n[1]\n", 0, "f.jsonl:2: not a JSON object"},
        {"f.jsonl", "{\"prompt\": \"x\"}\n\"a string\"\n", 0, "f.jsonl:2: not a JSON object"},
        {"f.jsonl", "{\"id\": \"x\"}\n", 0,
         "f.jsonl:1: \"prompt\" (or \"text\") is missing or not a string"},
        {"f.jsonl", "{\"prompt\": 3, \"text\": \"x\"}\n", 0,
         "f.jsonl:1: \"prompt\" (or \"text\") is missing or not a string"},
        {"f.jsonl", "{\"prompt\": \"  \"}\n", 0, "f.jsonl:1: the prompt is empty"},
        {"f.jsonl", "{\"prompt\": \"x\", \"max_tokens\": 1.5}\n", 0,
         "f.jsonl:1: \"max_tokens\" must be"},
        {"f.jsonl", "{\"prompt\": \"x\", \"id\": 3}\n", 0, "f.jsonl:1: \"id\" must be"},
        {"f.jsonl", "{\"prompt\": \"x\", \"name\": \"\"}\n", 0, "f.jsonl:1: \"name\" must be"},
        {"f.jsonl", "{\"prompt\": \"x\", \"id\": \"d\"}\n\n{\"prompt\": \"y\", \"id\": \"d\"}", 0,
         "f.jsonl:3: the id 'd' is used twice"},
        {"f.jsonl", "\n\n", 0, "f.jsonl holds no prompt"},
        {"f.jsonl", "{\"prompt\": \"\xff\"}\n", 0, "f.jsonl:1: the prompt is not valid UTF-8"},
        /* a second object after the first is not silently dropped */
        {"f.jsonl", "{\"prompt\": \"x\"} {\"prompt\": \"y\"}\n", 0, "f.jsonl:1: not a JSON object"},
        /* a later line cut short: that line, not the document */
        {"f.jsonl", "{\"prompt\": \"x\"}\n{\"prompt\": \"y\"\n", 0,
         "f.jsonl:2: not a JSON object: give"},
        /* the first line is no JSON and the whole file is no document: both said */
        {"f.json", "{\n\"prompts\": [\"x\",]\n}\n", 0,
         "f.json: neither JSON Lines (line 1 is not a JSON object) nor one JSON document: line 2: "
         "not valid JSON (syntax error"},
    };
    expect_bad(bad, sizeof bad / sizeof *bad);
}

static size_t n_allocs, alloc_limit;
static void *counted(size_t n)
{
    return n_allocs++ < alloc_limit ? malloc(n) : NULL;
}

/* Out of memory while reading a prompt file is an internal error (exit 5), at whichever
 * allocation it happens, never bad input; on a JSON Lines line it names the line. */
static void test_jsonl_oom(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    const char *text = "{\"prompt\": \"x\"}  \n{\"prompt\": \"y\"}\n";
    assert_int_equal(rl_client_prompts_parse("f.jsonl", text, strlen(text), &p, &err), RL_OK);
    assert_int_equal(p.n, 2);
    rl_client_prompts_free(&p);
    const char *docs[] = {text, "{\"prompts\": [\"a\", {\"prompt\": \"b\"}]}", "[\"a\", \"b\"]"};
    bool line_named = false;
    for (size_t d = 0; d < sizeof docs / sizeof *docs; d++) {
        bool ok_seen = false;
        for (alloc_limit = 0; alloc_limit < 200 && !ok_seen; alloc_limit++) {
            n_allocs = 0;
            rl_json_set_malloc(counted);
            rl_status st = rl_client_prompts_parse("f.jsonl", docs[d], strlen(docs[d]), &p, &err);
            rl_json_set_malloc(NULL);
            if (st == RL_OK) {
                ok_seen = true;
                rl_client_prompts_free(&p);
                continue;
            }
            if (st != RL_EINTERNAL)
                fail_msg("doc %zu, %zu allocations: status %d: %s", d, alloc_limit, (int)st,
                         err.msg);
            assert_int_equal(p.n, 0);
            line_named = line_named || strcmp(err.msg, "f.jsonl:1: out of memory reading the "
                                                       "prompt") == 0;
        }
        assert_true(ok_seen);
    }
    assert_true(line_named);
}

/* JSON documents: an array of strings and objects, an object with "prompts". */
static void test_json(void **state)
{
    (void)state;
    rl_client_prompts p;
    char ids[512];
    const char *arr =
        "  \n[\"alpha\",\n {\"name\": \"n2\", \"text\": \"beta\", \"max_tokens\": 5},\n"
        " {\"id\": \"i3\", \"name\": \"not-this\", \"prompt\": \"gamma\", \"text\": "
        "\"not this\"},\n {\"prompt\": \" delta \", \"other\": true}]\n";
    parse_ok("p.json", arr, strlen(arr), &p);
    assert_string_equal(p.format, "json");
    assert_string_equal(p.source, "file");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "file-1 n2 i3 file-4");
    assert_string_equal(p.texts[0], "alpha");
    assert_string_equal(p.texts[1], "beta");
    assert_string_equal(p.texts[2], "gamma");
    assert_string_equal(p.texts[3], " delta "); /* JSON texts as written */
    assert_int_equal(p.max_tokens[0], 0);
    assert_int_equal(p.max_tokens[1], 5);
    rl_client_prompts_free(&p);
    const char *obj = "{\n  \"version\": 1,\n  \"prompts\": [\n    \"x\",\n"
                      "    {\"prompt\": \"y\", \"max_tokens\": 7}\n  ]\n}\n";
    parse_ok("o.json", obj, strlen(obj), &p);
    assert_string_equal(p.format, "json");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "file-1 file-2");
    assert_string_equal(p.texts[1], "y");
    assert_int_equal(p.max_tokens[1], 7);
    rl_client_prompts_free(&p);
    const char *line = "{\"prompts\": [\"only\"]}";
    parse_ok("o.json", line, strlen(line), &p);
    assert_string_equal(p.format, "json");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "file-1");
    rl_client_prompts_free(&p);
    /* a byte order mark before the document */
    const char *bom = "\xEF\xBB\xBF[\"x\"]";
    parse_ok("b.json", bom, strlen(bom), &p);
    assert_string_equal(p.format, "json");
    assert_string_equal(p.texts[0], "x");
    rl_client_prompts_free(&p);
    static const bad_file bad[] = {
        {"p.json", "[\"a\", \"b\"", 0, "p.json:1: not valid JSON (syntax error"},
        {"p.json", "[\n\"a\",\n\"b\"\n\n", 0, "p.json:3: not valid JSON (syntax error"},
        {"p.json", "[\"a\"]\n junk", 0, "p.json:2: not valid JSON (more text after"},
        {"p.json", "[\"a\", 3]", 0, "p.json: item 2: not a string or an object"},
        {"p.json", "[\"a\", [\"b\"]]", 0, "p.json: item 2: not a string or an object"},
        {"p.json", "[\"a\", {\"id\": \"file-1\", \"prompt\": \"b\"}]", 0,
         "p.json: item 2: the id 'file-1' is used twice: ids must be unique"},
        {"p.json", "[\"a\", \"  \\n\"]", 0, "p.json: item 2: the prompt is empty"},
        {"p.json", "[\"\xc3\x28\"]", 0, "p.json: item 1: the prompt is not valid UTF-8"},
        {"p.json", "[{\"prompt\": \"a\", \"max_tokens\": -1}]", 0,
         "p.json: item 1: \"max_tokens\" must be"},
        {"p.json", "[{\"text\": \"a\", \"name\": 7}]", 0, "p.json: item 1: \"name\" must be"},
        {"p.json", "[{\"id\": \"a\"}]", 0, "p.json: item 1: \"prompt\" (or \"text\") is missing"},
        {"p.json", "[]", 0, "p.json holds no prompt"},
        {"p.json", "{\"prompts\": 3}", 0, "p.json: \"prompts\" must be an array of prompts"},
        {"p.json", "{\"prompts\": [\"a\"], \"prompts\": [\"b\"]}", 0,
         "p.json: not valid JSON for this tool (the key \"prompts\" twice"},
        {"p.json", "[\"a\",\n\"b\0\"]", 11, "p.json:2: a NUL byte: a prompt file is text"},
    };
    expect_bad(bad, sizeof bad / sizeof *bad);
}

/* Plain text: a prompt per line, or per paragraph when blank lines part multi-line blocks. */
static void test_text(void **state)
{
    (void)state;
    rl_client_prompts p;
    char ids[512];
    /* single-line blocks: lines, numbered by the file's lines, trimmed, CRLF read */
    const char *lines = "first\r\n\n  second  \n\n \t\nthird\n";
    parse_ok("p.txt", lines, strlen(lines), &p);
    assert_string_equal(p.format, "lines");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "line-1 line-3 line-6");
    assert_string_equal(p.texts[0], "first");
    assert_string_equal(p.texts[1], "second");
    assert_int_equal(p.lens[1], 6);
    assert_string_equal(p.texts[2], "third");
    assert_int_equal(p.max_tokens[2], 0);
    rl_client_prompts_free(&p);
    /* one block of several lines, no blank line between blocks: still one prompt a line */
    const char *block = "a b\nc d\ne f\n\n";
    parse_ok("p.txt", block, strlen(block), &p);
    assert_string_equal(p.format, "lines");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "line-1 line-2 line-3");
    rl_client_prompts_free(&p);
    /* two blocks, one of two lines: paragraphs, lines joined with LF, CRs before LF dropped */
    const char *paras = "\n  Para one\r\ncontinued here\r\n\r\n\nPara two\n\n\nthree\nx\ry";
    parse_ok("p.txt", paras, strlen(paras), &p);
    assert_string_equal(p.format, "paragraphs");
    assert_string_equal(ids_of(&p, ids, sizeof ids), "para-1 para-2 para-3");
    assert_string_equal(p.texts[0], "Para one\ncontinued here");
    assert_string_equal(p.texts[1], "Para two");
    assert_string_equal(p.texts[2], "three\nx\ry");
    rl_client_prompts_free(&p);
    /* what the first byte says: '[' and '{' only are JSON */
    const char *notjson = "x [1]\n(y)\n";
    parse_ok("p.json", notjson, strlen(notjson), &p);
    assert_string_equal(p.format, "lines");
    assert_string_equal(p.texts[0], "x [1]");
    rl_client_prompts_free(&p);
    const char *bom = "\xEF\xBB\xBFhello\n";
    parse_ok("b.txt", bom, strlen(bom), &p);
    assert_string_equal(p.texts[0], "hello");
    rl_client_prompts_free(&p);
    static const bad_file bad[] = {
        {"p.txt", "ok\nbad \xff here\n", 0, "p.txt:2: not valid UTF-8"},
        {"p.txt", "ok\nbad \0 here\n", 13, "p.txt:2: a NUL byte: a prompt file is text"},
        {"p.txt", " \n\t\r\n", 0, "p.txt holds no prompt"},
        {"p.txt", "", 0, "p.txt holds no prompt"},
    };
    expect_bad(bad, sizeof bad / sizeof *bad);
}

/* The bounds: 10000 prompts in each format, 1 MiB a prompt, 128 bytes an id. */
static void test_bounds(void **state)
{
    (void)state;
    size_t cap = 20 * 10002 + 64;
    char *buf = malloc(cap);
    assert_non_null(buf);
    rl_client_prompts p;
    for (int fmt = 0; fmt < 3; fmt++) {
        for (int n = 10000; n <= 10001; n++) {
            size_t at = 0;
            if (fmt == 1)
                buf[at++] = '[';
            for (int i = 0; i < n; i++) {
                if (fmt == 0)
                    at += (size_t)snprintf(buf + at, cap - at, "p%d\n", i);
                else if (fmt == 1)
                    at += (size_t)snprintf(buf + at, cap - at, "%s\"p%d\"", i ? "," : "", i);
                else
                    at += (size_t)snprintf(buf + at, cap - at, "{\"prompt\":\"p%d\"}\n", i);
            }
            if (fmt == 1)
                buf[at++] = ']';
            buf[at] = '\0';
            if (n == 10000) {
                parse_ok("big", buf, at, &p);
                assert_int_equal(p.n, 10000);
                assert_string_equal(p.texts[9999], "p9999");
                rl_client_prompts_free(&p);
            } else {
                bad_file b = {"big", buf, at,
                              fmt == 0   ? "big:10001: more than 10000 prompts: split the file"
                              : fmt == 1 ? "big: item 10001: more than 10000 prompts"
                                         : "big:10001: more than 10000 prompts"};
                expect_bad(&b, 1);
            }
        }
    }
    free(buf);
    size_t big = RL_CLIENT_PROMPT_BYTES_MAX + 1;
    buf = malloc(big + 16);
    assert_non_null(buf);
    memset(buf, 'x', big);
    buf[big] = '\n';
    bad_file b = {"p.txt", buf, big + 1, "p.txt:1: the prompt is longer than 1 MiB"};
    expect_bad(&b, 1);
    parse_ok("p.txt", buf, big - 1, &p); /* exactly 1 MiB */
    assert_int_equal(p.lens[0], RL_CLIENT_PROMPT_BYTES_MAX);
    rl_client_prompts_free(&p);
    free(buf);
    char id[300];
    snprintf(id, sizeof id, "[{\"id\": \"%0129d\", \"prompt\": \"x\"}]", 0);
    bad_file b2 = {"p.json", id, 0,
                   "p.json: item 1: \"id\" must be a non-empty UTF-8 string of "
                   "at most 128 bytes"};
    expect_bad(&b2, 1);
    snprintf(id, sizeof id, "[{\"id\": \"%0128d\", \"prompt\": \"x\"}]", 0);
    parse_ok("p.json", id, strlen(id), &p);
    assert_int_equal(strlen(p.ids[0]), 128);
    rl_client_prompts_free(&p);
}

/* A file's prompts first, then each --prompt as custom-<k>, k its place in the list; a
 * profile only when nothing else is given, and refused beside a prompt. */
static void test_inline(void **state)
{
    (void)state;
    rl_client_prompts p;
    rl_error err;
    char ids[512];
    const char *two[] = {"hi", "  two words \n"};
    rl_client_prompt_spec only = {NULL, two, 2, NULL};
    assert_int_equal(rl_client_prompts_load(&only, &p, &err), RL_OK);
    assert_string_equal(ids_of(&p, ids, sizeof ids), "custom-1 custom-2");
    assert_string_equal(p.texts[1], "two words");
    assert_string_equal(p.source, "inline");
    assert_string_equal(p.name, "--prompt");
    cJSON *o = cJSON_CreateObject();
    assert_true(rl_client_prompts_settings(o, &p));
    char *s = cJSON_PrintUnformatted(o);
    assert_string_equal(s, "{\"source\":\"inline\",\"name\":\"--prompt\",\"n\":2,\"inline\":2}");
    free(s);
    cJSON_Delete(o);
    rl_client_prompts_free(&p);
    /* with a file: after its prompts, numbered on */
    char path[512];
    snprintf(path, sizeof path, "%s/prompts-inline.%d.json",
             getenv("RL_TMP") ? getenv("RL_TMP") : ".", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[\"from the file\", {\"id\": \"named\", \"prompt\": \"second\"}]\n", f);
    fclose(f);
    rl_client_prompt_spec both = {path, two, 2, NULL};
    assert_int_equal(rl_client_prompts_load(&both, &p, &err), RL_OK);
    assert_string_equal(ids_of(&p, ids, sizeof ids), "file-1 named custom-3 custom-4");
    assert_string_equal(p.texts[2], "hi");
    assert_string_equal(p.source, "file+inline");
    assert_string_equal(p.name, path);
    assert_int_equal(p.n_inline, 2);
    o = cJSON_CreateObject();
    assert_true(rl_client_prompts_settings(o, &p));
    s = cJSON_PrintUnformatted(o);
    char want[1024];
    snprintf(want, sizeof want,
             "{\"source\":\"file+inline\",\"name\":\"%s\",\"n\":4,\"format\":\"json\","
             "\"inline\":2}",
             path);
    assert_string_equal(s, want);
    free(s);
    cJSON_Delete(o);
    rl_client_prompts_free(&p);
    rl_client_prompt_spec file_only = {path, NULL, 0, NULL};
    assert_int_equal(rl_client_prompts_load(&file_only, &p, &err), RL_OK);
    assert_string_equal(p.source, "file");
    assert_int_equal(p.n_inline, 0);
    rl_client_prompts_free(&p);
    remove(path);
    /* nothing given: the default profile */
    rl_client_prompt_spec none = {NULL, NULL, 0, NULL};
    assert_int_equal(rl_client_prompts_load(&none, &p, &err), RL_OK);
    assert_string_equal(p.name, "short-chat");
    assert_int_equal(p.n, 3);
    rl_client_prompts_free(&p);
    rl_client_prompt_spec prof = {NULL, two, 1, "interactive"};
    assert_int_equal(rl_client_prompts_load(&prof, &p, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--profile and --prompt exclude each other: a profile is used "
                                 "only when no prompt is given");
    prof.n_texts = 0;
    prof.file = "x.json";
    assert_int_equal(rl_client_prompts_load(&prof, &p, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--profile and --prompts exclude each other");
    rl_client_prompt_spec many = {NULL, two, RL_CLIENT_INLINE_MAX + 1, NULL};
    assert_int_equal(rl_client_prompts_load(&many, &p, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--prompt: more than 1000: put them in a file (--prompts)");
    /* appended texts: checked, and on error the list is as it was */
    const char *file = "{\"id\": \"custom-3\", \"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n";
    parse_ok("f.jsonl", file, strlen(file), &p);
    const char *clash[] = {"fine"};
    assert_int_equal(rl_client_prompts_add_inline(&p, clash, 1, &err), RL_EINPUT);
    assert_string_equal(
        err.msg, "--prompt 1: its id 'custom-3' is already a prompt file's: rename that one");
    assert_int_equal(p.n, 2);
    rl_client_prompts_free(&p);
    const char *one = "{\"prompt\": \"b\"}\n";
    parse_ok("f.jsonl", one, strlen(one), &p);
    const char *half[] = {"fine", "\xff"}; /* the first is taken back when the second fails */
    assert_int_equal(rl_client_prompts_add_inline(&p, half, 2, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--prompt 2: the prompt is not valid UTF-8");
    assert_int_equal(p.n, 1);
    assert_int_equal(p.n_inline, 0);
    assert_int_equal(rl_client_prompts_add_inline(&p, half, 1, &err), RL_OK);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.ids[1], "custom-2");
    const char *badtexts[][2] = {{"ok", " \t\n"}, {"ok", "\xff"}};
    const char *badmsg[] = {"--prompt 2: the prompt is empty",
                            "--prompt 2: the prompt is not valid UTF-8"};
    rl_client_prompts_free(&p);
    for (size_t i = 0; i < 2; i++) {
        rl_client_prompt_spec b = {NULL, badtexts[i], 2, NULL};
        assert_int_equal(rl_client_prompts_load(&b, &p, &err), RL_EINPUT);
        assert_string_equal(err.msg, badmsg[i]);
        assert_int_equal(p.n, 0);
    }
    char *huge = malloc(RL_CLIENT_PROMPT_BYTES_MAX + 2);
    assert_non_null(huge);
    memset(huge, 'x', RL_CLIENT_PROMPT_BYTES_MAX + 1);
    huge[RL_CLIENT_PROMPT_BYTES_MAX + 1] = '\0';
    const char *h[] = {huge};
    rl_client_prompt_spec hs = {NULL, h, 1, NULL};
    assert_int_equal(rl_client_prompts_load(&hs, &p, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--prompt 1: the prompt is longer than 1 MiB");
    free(huge);
    /* 10000 in all: a full file leaves no room */
    size_t cap = 12 * 10000 + 8, at = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (int i = 0; i < 10000; i++)
        at += (size_t)snprintf(buf + at, cap - at, "q%d\n", i);
    parse_ok("full.txt", buf, at, &p);
    free(buf);
    assert_int_equal(rl_client_prompts_add_inline(&p, two, 1, &err), RL_EINPUT);
    assert_string_equal(err.msg, "--prompt 1: more than 10000 prompts in all");
    rl_client_prompts_free(&p);
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
        cmocka_unit_test(test_profiles), cmocka_unit_test(test_fm_bench_profiles),
        cmocka_unit_test(test_jsonl),    cmocka_unit_test(test_jsonl_oom),
        cmocka_unit_test(test_json),     cmocka_unit_test(test_text),
        cmocka_unit_test(test_bounds),   cmocka_unit_test(test_inline),
        cmocka_unit_test(test_fm),       cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
