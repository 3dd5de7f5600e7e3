/* client_http_stub.c: a placeholder for the HTTP driver until client_http.c (client-http's
 * part) is merged; the coordinator deletes this file then. It allocates nothing. */
#include "client_driver.h"

rl_status rl_client_http_run(const rl_client_http_cfg *cfg, const rl_client_sched *s, rl_error *err)
{
    (void)cfg;
    (void)s;
    return rl_fail(err, RL_EMISSING,
                   "the HTTP driver is not built into this llama-roofline: use --cmd");
}
