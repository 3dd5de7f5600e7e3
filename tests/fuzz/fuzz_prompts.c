/* SPDX-License-Identifier: MIT */
/* fuzz_prompts.c: libFuzzer target for prompt files (client_prompts.h): any input, in whatever
 * format its first byte makes it, must give RL_OK or a one-line RL_EINPUT message naming the
 * file, never a crash, a leak or undefined behaviour. A list read must keep the header's
 * promises: 1..10000 prompts, unique non-empty ids of at most 128 bytes, texts of the recorded
 * length that are valid UTF-8 and not blank, a format; a --prompt appended after it is
 * custom-<n+1>. Everything allocated is freed before returning. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client_prompts.h"
#include "base/rl_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const rl_client_prompts *p)
{
    if (p->n == 0 || p->n > RL_CLIENT_PROMPTS_MAX || !p->format || !p->source || !p->name)
        abort();
    for (size_t i = 0; i < p->n; i++) {
        size_t idn = strlen(p->ids[i]);
        if (idn == 0 || idn > RL_CLIENT_PROMPT_ID_MAX || strlen(p->texts[i]) != p->lens[i] ||
            p->lens[i] == 0 || p->lens[i] > RL_CLIENT_PROMPT_BYTES_MAX ||
            !rl_utf8_valid(p->texts[i], p->lens[i]))
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(p->ids[i], p->ids[j]) == 0)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rl_client_prompts p;
    rl_error e = {RL_OK, ""};
    rl_status st = rl_client_prompts_parse("fuzz.txt", (const char *)data, size, &p, &e);
    if (st == RL_OK) {
        check_list(&p);
        cJSON *j = rl_client_prompts_json(&p);
        cJSON_Delete(j);
        const char *more[] = {"one more"};
        size_t n = p.n;
        if (rl_client_prompts_add_inline(&p, more, 1, &e) == RL_OK) {
            char want[32];
            rl_snprintf(want, sizeof want, "custom-%zu", n + 1);
            if (p.n != n + 1 || strcmp(p.ids[n], want) != 0)
                abort();
        } else if (p.n != n) {
            abort();
        }
        rl_client_prompts_free(&p);
    } else if (st != RL_EINTERNAL && (st != RL_EINPUT || strchr(e.msg, '\n') ||
                                      strncmp(e.msg, "fuzz.txt", 8) != 0 || p.n != 0)) {
        abort();
    }
    return 0;
}
