/* SPDX-License-Identifier: MIT */
/* client_http.h: helpers of the HTTP streaming driver (client_http.c) that its callers need
 * besides rl_client_http_run (declared in client_driver.h with the driver contract).
 *
 * URL rule: a URL whose path is empty or "/" (scheme://host[:port]) gets /v1/chat/completions
 * or /v1/completions appended; a path ending in /v1 (or /v1/) gets /chat/completions or
 * /completions appended; any other path is the endpoint as given. Only http and https.
 *
 * Memory: the string from rl_client_http_endpoint is malloc'd and owned by the caller. */
#ifndef RL_CLIENT_HTTP_H
#define RL_CLIENT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "client/client_driver.h"
#include "base/rl_error.h"

/* The endpoint the driver posts to for url and api (the rule above). With redact, the user
 * name, password, query and fragment are left out: the form to print or store in a bundle.
 * RL_EINPUT (one line naming the URL) when url is not an http(s) URL. */
rl_status rl_client_http_endpoint(const char *url, rl_client_api api, bool redact, char **out,
                                  rl_error *err);

/* The host (IPv6 in brackets, as libcurl gives it) and port of url (the scheme's default when
 * none is written: 80, 443) into host and *port (0 when out of range); RL_EINPUT when url is not
 * a URL with a host. */
rl_status rl_client_http_host_port(const char *url, char *host, size_t cap, unsigned *port,
                                   rl_error *err);

#endif
