/* SPDX-License-Identifier: MIT */
/* rl_url.h: the one redaction of credentials in URLs, for everything that prints or stores one
 * (messages, the header cache's files, bundles, reports).
 *
 * rl_url_redact(s) copies s with, in every URL it holds (text before "://" is kept as is, so
 * "--url=https://..." works too):
 *   - the user information before the @ of the authority replaced by three stars
 *     ("user:pass@host" in the authority becomes "***@host");
 *   - the value of every query or fragment parameter whose name holds, ignoring case, one of
 *     RL_URL_SECRET_WORDS replaced by "***" ("?X-Amz-Signature=ab&x=1" ->
 *     "?X-Amz-Signature=***&x=1"); a query parameter without '=' stays as is, a fragment's
 *     piece without '=' is replaced ("#s3cr3t" -> "#***": a fragment is never sent to a
 *     server, and a token may stand there alone).
 * The words cover AWS/GCS/Azure signed URLs (X-Amz-Signature, X-Amz-Credential,
 * X-Amz-Security-Token, X-Goog-Signature, sig), bearer tokens (token, access_token, hf_token),
 * keys (key, api_key, apikey), passwords and auth= parameters; a name matches percent-decoded
 * too ("%73ig"). Over-redaction (a harmless
 * parameter whose name holds "key") is accepted; nothing with one of the words leaks.
 * A string without "://" is copied unchanged. Nothing else of the URL (host, port, path,
 * other parameters) changes, so the redacted URL still says which file was meant.
 *
 * Memory: rl_url_redact returns a malloc'd string (NULL when out of memory); rl_url_shown
 * writes into the caller's buffer, redacted and then escaped for a terminal (rl_tty_escape),
 * cut at a character boundary when it does not fit, and returns buf. */
#ifndef RL_URL_H
#define RL_URL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/rl_text.h"

/* Parameter names holding one of these words (case-insensitive substring) are secrets. */
#define RL_URL_SECRET_WORDS                                                                        \
    "sig", "token", "secret", "pass", "key", "auth", "credential", "session", "cookie"

/* Append s redacted to b. */
void rl_url_redact_to(rl_sbuf *b, const char *s);
/* s redacted (malloc'd; NULL when out of memory; NULL s gives ""). */
char *rl_url_redact(const char *s);
/* s redacted and terminal-escaped into buf; returns buf. */
const char *rl_url_shown(const char *s, char *buf, size_t cap);

/* True for a host name that is this machine's loopback: "localhost" and names under
 * ".localhost" (RFC 6761, any case, a final dot allowed), 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104
 * (IPv6 with or without brackets). Nothing is resolved: any other name is false. */
bool rl_url_host_is_loopback(const char *host);

#endif
