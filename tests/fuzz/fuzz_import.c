/* SPDX-License-Identifier: MIT */
/* fuzz_import.c: libFuzzer target for the importer (import.h) and the analysis it runs over the
 * bundle. Any input must give RL_OK or a one-line RL_EINPUT message naming the file, never a
 * crash, a leak or undefined behaviour; an imported bundle must print and parse back. Seeds:
 * data/published/, tests/fixtures/lbench/ and tests/fixtures/fm-bench/ (fm-bench reports, made
 * by tests/lib/fm-bench-report.py; the importer tells every kind by content). Everything allocated
 * is freed before returning. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analyse/analysis_bundle.h"
#include "bundle/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[] = {"import", "fuzz.json", "-o", "bundle.json", NULL};
    rl_import_opts o = {"fuzz", 4, argv};
    rl_error e = {RL_OK, ""};
    cJSON *b = NULL;
    rl_status st = rl_import_text((const char *)data, size, "fuzz.json", &o, &b, &e);
    if (st == RL_OK) {
        st = rl_bundle_analyze_import(b, "fuzz.json", &e);
        if (st != RL_OK) {
            cJSON_Delete(b);
            b = NULL;
        }
    }
    if (st == RL_OK) {
        if (!b)
            abort();
        char *text = cJSON_PrintUnformatted(b);
        cJSON_Delete(b);
        if (text) {
            cJSON *back = cJSON_Parse(text);
            if (!back)
                abort();
            cJSON_Delete(back);
            free(text);
        }
        return 0;
    }
    if (b || (st == RL_EINPUT && (strncmp(e.msg, "fuzz.json", 9) != 0 || strchr(e.msg, '\n'))))
        abort();
    return 0;
}
