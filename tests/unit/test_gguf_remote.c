/* test_gguf_remote.c: unit tests for gguf_remote.c that need no server: URL recognition, the
 * header cache key (FNV-1a 64 reference values), the options and the refusal of URLs by
 * commands that run models, and rl_gguf_read_stream (the reader source) on a stream that
 * delivers one byte per read, as the HTTP block cache may. tests/e2e/remote_headers.sh covers
 * the transfers against a real web server.
 * Broken on purpose once: the FNV prime changed in rl_remote_cache_key made test_cache_key
 * fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <cmocka.h>

#include "model/gguf_remote.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_util.h"
#include "rl_test.h"

static void test_is_url(void **state)
{
    (void)state;
    assert_true(rl_is_url("http://127.0.0.1:8080/m.gguf"));
    assert_true(rl_is_url("HTTPS://huggingface.co/a/b/resolve/main/c.gguf"));
    assert_false(rl_is_url("ftp://x/y.gguf"));
    assert_false(rl_is_url("models/http://x.gguf"));
    assert_false(rl_is_url("http:/x"));
    assert_false(rl_is_url(NULL));
}

static void test_cache_key(void **state)
{
    (void)state;
    /* FNV-1a 64 reference values: "" = cbf29ce484222325, "a" = af63dc4c8601ec8c,
     * "foobar" = 85944171f73967e8 */
    char *k = rl_remote_cache_key("");
    assert_string_equal(k, "cbf29ce484222325");
    free(k);
    k = rl_remote_cache_key("a");
    assert_string_equal(k, "af63dc4c8601ec8c");
    free(k);
    k = rl_remote_cache_key("foobar");
    assert_string_equal(k, "85944171f73967e8");
    free(k);
    char *a = rl_remote_cache_key("http://h/m.gguf"), *b = rl_remote_cache_key("http://h/m.gguf?x");
    assert_int_equal(strlen(a), 16);
    assert_string_not_equal(a, b);
    free(a);
    free(b);
}

static void test_opts(void **state)
{
    (void)state;
    rl_remote_opts o;
    unsetenv("LLAMA_ROOFLINE_HTTP_TIMEOUT");
    rl_remote_opts_default(&o);
    assert_int_equal(o.first_block, 256 * 1024);
    assert_int_equal(o.max_bytes, 64 * 1024 * 1024);
    assert_int_equal(o.timeout_s, 120);
    assert_int_equal(o.low_speed_s, 20);
    assert_null(o.cache_dir);
    setenv("LLAMA_ROOFLINE_HTTP_TIMEOUT", "5", 1);
    rl_remote_opts_default(&o);
    assert_int_equal(o.timeout_s, 5);
    assert_int_equal(o.low_speed_s, 5);
    setenv("LLAMA_ROOFLINE_HTTP_TIMEOUT", "0x10", 1); /* not a number: ignored */
    rl_remote_opts_default(&o);
    assert_int_equal(o.timeout_s, 120);
    unsetenv("LLAMA_ROOFLINE_HTTP_TIMEOUT");
}

static void test_refuse_url(void **state)
{
    (void)state;
    rl_error e = {RL_OK, ""};
    assert_int_equal(rl_remote_refuse_url("-m", "model.gguf", &e), RL_OK);
    assert_int_equal(rl_remote_refuse_url("-m", "https://h/m.gguf", &e), RL_EINPUT);
    assert_string_equal(e.msg, "-m: https://h/m.gguf: a model given by URL can only be "
                               "inspected or predicted; download it to run it");
    assert_int_equal(rl_remote_refuse_url(NULL, "http://h/\x1b[2Jm.gguf", &e), RL_EINPUT);
    assert_null(strchr(e.msg, '\x1b'));
}

/* One byte per read: the reader must loop over short reads. */
typedef struct {
    const unsigned char *p;
    size_t n, pos;
} drip;

static ssize_t drip_read(void *c, char *buf, size_t n)
{
    drip *d = c;
    if (d->pos >= d->n || n == 0)
        return 0;
    buf[0] = (char)d->p[d->pos++];
    return 1;
}

static int drip_seek(void *c, off64_t *off, int whence)
{
    drip *d = c;
    if (whence != SEEK_SET)
        return -1;
    d->pos = (size_t)*off;
    return 0;
}

static void test_stream_short_reads(void **state)
{
    (void)state;
    const char *src = getenv("RL_SRC");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/gguf/tiny-valid.gguf", src ? src : ".");
    char *data = NULL;
    size_t len = 0;
    rl_error e = {RL_OK, ""};
    if (rl_file_read_all(path, 1 << 20, &data, &len, &e) != RL_OK)
        skip();
    rl_gguf_file *a = NULL, *b = NULL;
    assert_int_equal(rl_gguf_read_buffer(data, len, "buf", &a, &e), RL_OK);
    drip d = {(const unsigned char *)data, len, 0};
    cookie_io_functions_t io = {drip_read, NULL, drip_seek, NULL};
    FILE *fp = fopencookie(&d, "rb", io);
    assert_non_null(fp);
    setvbuf(fp, NULL, _IONBF, 0);
    assert_int_equal(rl_gguf_read_stream(fp, len, "drip", &b, &e), RL_OK);
    fclose(fp);
    assert_int_equal(a->n_tensors, b->n_tensors);
    assert_int_equal(a->n_kv, b->n_kv);
    assert_int_equal(a->data_offset, b->data_offset);
    assert_int_equal(a->bytes_read, b->bytes_read);
    for (uint64_t i = 0; i < a->n_tensors; i++) {
        assert_string_equal(a->tensors[i].name, b->tensors[i].name);
        assert_int_equal(a->tensors[i].offset, b->tensors[i].offset);
    }
    rl_gguf_free(a);
    rl_gguf_free(b);
    free(data);
}

static void *no_memory(size_t n)
{
    (void)n;
    return NULL;
}

/* A header cache entry read while memory runs out is an internal error (exit 5) naming the
 * URL, never a cache entry that merely looked malformed and is fetched again. With memory the
 * same entry is used and revalidated: port 9 of 127.0.0.1 refuses, a network error. */
static void test_cache_oom(void **state)
{
    (void)state;
    const char *tmp = getenv("RL_TMP");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/remote-cache-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    const char *url = "http://127.0.0.1:9/m.gguf";
    char *key = rl_remote_cache_key(url);
    char rel[64], entry[256];
    snprintf(rel, sizeof rel, "%s.ggufh", key);
    free(key);
    snprintf(entry, sizeof entry,
             "{\"url\": \"%s\", \"etag\": \"\\\"e1\\\"\", \"size\": 100, \"bytes\": 4}\nGGUF", url);
    rl_test_mkdirs(dir, "");
    rl_test_put(dir, rel, entry);
    rl_remote_opts o;
    rl_remote_opts_default(&o);
    o.cache_dir = dir;
    o.timeout_s = 5;
    rl_gguf_file *f = NULL;
    rl_error e = {RL_OK, ""};
    rl_json_set_malloc(no_memory);
    rl_status st = rl_gguf_remote_read(url, &o, NULL, &f, &e);
    rl_json_set_malloc(NULL);
    assert_int_equal(st, RL_EINTERNAL);
    assert_null(f);
    assert_string_equal(e.msg, "http://127.0.0.1:9/m.gguf: out of memory reading its header "
                               "cache entry");
    st = rl_gguf_remote_read(url, &o, NULL, &f, &e);
    assert_int_not_equal(st, RL_OK);
    assert_int_not_equal(st, RL_EINTERNAL);
    assert_null(strstr(e.msg, "out of memory"));
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_is_url),     cmocka_unit_test(test_cache_key),
        cmocka_unit_test(test_opts),       cmocka_unit_test(test_cache_oom),
        cmocka_unit_test(test_refuse_url), cmocka_unit_test(test_stream_short_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
