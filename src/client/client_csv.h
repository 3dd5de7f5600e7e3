/* SPDX-License-Identifier: MIT */
/* client_csv.h: the streaming client's per-request CSV, made from a bundle's client section
 * (so it works on a fresh run and on any saved bundle alike): one row per record of every
 * operating point, columns
 *   concurrency,request_rate,prompt,run,attempts,ok,error,ttft_ms,e2e_ms,chunks,deliveries,
 *   prompt_tokens,output_tokens,tpot_ms,decode_tok_s,output_hash
 * Numbers as the bundle has them (C locale, up to 17 significant digits, trailing zeros
 * dropped); null or absent -> empty; booleans true/false. Text cells are guarded against
 * spreadsheet formulas (a cell starting with = + @ TAB CR, or '-' without being a number, gets
 * a leading ') and then quoted with "" doubling when they hold " or , . Control characters in
 * a text cell (ESC, BEL, CR, LF, TAB, the other C0, DEL, C1) and bytes that are not UTF-8 are
 * written as visible escapes (\e \x07 \r \n \t \u009b \x9b: rl_tty_escape), so `--csv -`
 * never sends a raw control byte to a terminal and a cell never spans lines. Rows end in LF.
 *
 * Ownership: rl_client_csv returns a malloc'd text the caller frees. */
#ifndef RL_CLIENT_CSV_H
#define RL_CLIENT_CSV_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/rl_error.h"

/* The CSV text of bundle b; RL_EINPUT when b has no client section with points. */
rl_status rl_client_csv(const cJSON *b, char **out, size_t *len, rl_error *err);
/* The same, written atomically to path ("-": stdout). */
rl_status rl_client_csv_write(const cJSON *b, const char *path, rl_error *err);

#endif
