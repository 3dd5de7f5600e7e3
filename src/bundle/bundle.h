/* SPDX-License-Identifier: MIT */
/* bundle.h: the result bundle, the one JSON document every measurement writes and every later
 * part (report, compare, advice, the streaming client) reads. docs/BUNDLE.md describes it and
 * schema/bundle.schema.json checks it.
 *
 * The bundle is kept as a cJSON tree while a command runs and written with the atomic-write
 * helper after every change that holds a measurement, so an interrupt, a crash or a power cut
 * loses nothing measured. Conventions: every object that carries numbers has "kind"
 * (measured, proxy, derived, controlled); what could not be had is {"available": false,
 * "reason": ...}; raw llama-bench records are kept verbatim.
 *
 * Ownership: rl_bundle_new and rl_bundle_load return a tree the caller frees with
 * cJSON_Delete; every other function works on the caller's tree. */
#ifndef RL_BUNDLE_H
#define RL_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "measure/lbench.h"
#include "base/rl_error.h"

#define RL_BUNDLE_SCHEMA "llama-roofline-bundle"
/* 2: a client metric's statistics block is "stats", as a run's rate's is (1 called it
 * "summary"); rl_bundle_load reads version 1 and upgrades it in memory. */
#define RL_BUNDLE_SCHEMA_VERSION 2
#define RL_BUNDLE_MAX_BYTES ((size_t)256 << 20) /* largest bundle file read */

/* A new bundle: schema, tool, command, argv, created/updated UTC, status "running". */
cJSON *rl_bundle_new(const char *command, int argc, char *const *argv);
/* "YYYY-MM-DDTHH:MM:SSZ" of now into buf (at least 21 bytes). */
void rl_bundle_utc_now(char *buf, size_t cap);
/* Set updated_utc and write b to path atomically. */
rl_status rl_bundle_write(cJSON *b, const char *path, rl_error *err);
/* Read a bundle file and check it is one this version understands: RL_EINPUT naming the file
 * for unreadable, truncated or foreign JSON and for a newer schema version. A report
 * (report.html) is read too: a file whose first non-blank byte is '<' is parsed with libxml2's
 * HTML parser, and the text of its <script type="application/json" id="bundle"> is the bundle
 * (its "<\/" is JSON's escaped '/'); an HTML file without one is RL_EINPUT. */
rl_status rl_bundle_load(const char *path, cJSON **out, rl_error *err);
/* Another JSON document llama-roofline writes, from a file that is either that JSON or an
 * HTML page embedding it as <script type="application/json" id="script_id"> (a comparison
 * page: "compare", schema "llama-roofline-compare"); RL_EINPUT naming path when it is neither
 * or its "schema" is not schema. The tree is the caller's. */
rl_status rl_bundle_load_embedded(const char *path, const char *script_id, const char *schema,
                                  cJSON **out, rl_error *err);
/* A version 1 tree made version 2 in place: every client metric's "summary" renamed "stats",
 * schema_version set to 2. Other versions are left as they are. rl_bundle_load calls it, so
 * every reader sees version 2. */
void rl_bundle_upgrade(cJSON *b);
/* The same checks on a parsed tree (name is used in messages). */
rl_status rl_bundle_check(const cJSON *b, const char *name, rl_error *err);
/* Set "status": {"state": state, "reason": reason or absent}. */
void rl_bundle_set_status(cJSON *b, const char *state, const char *reason);
/* The bundle's models[] entry with this id, or NULL (id NULL too); *index (if not NULL) gets
 * its position (charts colour a model by it, so it looks the same in every chart). */
const cJSON *rl_bundle_model(const cJSON *b, const char *id, size_t *index);

/* A measured rate from per-repetition samples: {"kind": "measured", "unit", "samples": [...],
 * "stats": {...}} or {"available": false, "reason"} when n is 0. NULL when out of memory. */
cJSON *rl_bundle_rate(const double *samples, size_t n, const char *unit, const char *reason);

/* The rate of the records of one kind at one depth: every record's per-repetition rates
 * recomputed from samples_ns (a record without samples counts once, with its avg_ts), as
 * rl_bundle_rate; unavailable with the reason missing when there is none. NULL when out of
 * memory. */
cJSON *rl_bundle_lbench_rate(const rl_lbench_record *records, size_t n, rl_lbench_kind kind,
                             int64_t depth, const char *missing);

#endif
