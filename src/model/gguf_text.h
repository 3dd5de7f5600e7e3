/* SPDX-License-Identifier: MIT */
/* gguf_text.h: a model's facts for people: the `inspect` report and the pieces it is made of,
 * which other reports (HTML) reuse.
 *
 * Everything that came from a file or a file name (the path, general.name, the architecture,
 * the label, tensor names) is passed through rl_tty_escape before it reaches the FILE*, so a
 * hostile model cannot drive the terminal. Numbers are formatted in the C locale (rl_text.h).
 * The string helpers below return plain text, unescaped: the caller escapes it for its medium
 * (rl_tty_escape for a terminal, HTML escaping for a page).
 *
 * Nothing here allocates; buffers are the caller's and are always NUL-terminated. */
#ifndef RL_GGUF_TEXT_H
#define RL_GGUF_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/gguf_model.h"

#define RL_GGUF_TYPE_NAME_MAX 24     /* buffer for rl_gguf_type_name */
#define RL_GGUF_EXPLANATION_MAX 2048 /* buffer that always holds rl_gguf_label_explanation */

/* The ggml type's name ("Q4_K"), or "type<id>" for an id this build does not know. Returns
 * the table's string or buf. */
const char *rl_gguf_type_name(uint32_t type, char *buf, size_t cap);

/* Whether the byte count of a per-type row of m is known (false for an unknown type, or a
 * row of a model whose sizes are unknown that counted no bytes): report it as unavailable. */
bool rl_gguf_type_bytes_known(const rl_gguf_model *m, const rl_gguf_type_bytes *t);

/* Up to max "TYPE pct%" items of the repeating layers' types, largest first, separated by
 * ", " and leaving out the type skip (give -1 to leave out none): "Q5_0 66%, Q8_0 34%". */
void rl_gguf_layer_mix(const rl_gguf_model *m, int skip, int max, char *buf, size_t cap);

/* "32x32": the tensor's dimensions, innermost first (whole numbers only when cut short). */
void rl_gguf_fmt_dims(const rl_gguf_tensor *t, char *buf, size_t cap);

/* True when the label misleads: the repeating layers hold less than 90% of the type it names.
 * Then rl_gguf_label_explanation says what the label means for this file, in one paragraph
 * (no line breaks); otherwise it writes "" and returns false. */
bool rl_gguf_label_misleading(const rl_gguf_model *m);
bool rl_gguf_label_explanation(const rl_gguf_model *m, char *buf, size_t cap);

/* The whole report of `inspect`: header, label against content, file, parameters, shape,
 * KV cache, experts, bytes per token, output head, the tensor-type table, the label
 * explanation when the label misleads, and with tensors every tensor of every shard. */
void rl_gguf_print_report(FILE *out, const rl_gguf_model *m, bool tensors);

#endif
