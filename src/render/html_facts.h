/* SPDX-License-Identifier: MIT */
/* html_facts.h: the report's lower half (environment, llama.cpp build, settings, memory
 * ceiling, the imported source's own record) as words and small tables, never a JSON dump.
 * One table of presentation rules (html_facts.c: key -> label, unit, format, in the manner of
 * rrdtool's data-source definitions) says how each bundle key reads; a key without a rule reads
 * as its words with its unit suffix turned into a unit ("copy_GBs" -> "Copy (GB/s)"). Nested
 * objects become nested lists, arrays of objects (caches) and objects of objects (a sweep by
 * thread count) small tables, arrays of scalars lists. The full bundle stays embedded in the
 * page as the machine-readable copy. Owned by the render stage. */
#ifndef RL_HTML_FACTS_H
#define RL_HTML_FACTS_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <libxml/tree.h>

#include "render/html_doc.h"

/* Every member of o as a <dl class="facts">, skipping the keys in skip (NULL-terminated, or
 * NULL). Nothing when o is not an object. */
void rl_html_facts(rl_html *h, xmlNodePtr parent, const cJSON *o, const char *const *skip);
/* One value under key as text, lists or a small table in dd. */
void rl_html_fact_value(rl_html *h, xmlNodePtr dd, const char *key, const cJSON *v);
/* The label of key for people, with its unit: "Trial of each instruction set (GB/s)",
 * "RAM", "Copy (GB/s)" (no rule: words and unit from the key). */
void rl_html_fact_label(const char *key, char *buf, size_t cap);
/* A number under key as text: sizes in IEC units, rates and times to 3 significant digits
 * with their unit ("60.3 GB/s", "5.34 s", "512 MiB"), counts whole. */
void rl_html_fact_number(const char *key, double v, char *buf, size_t cap);

#endif
