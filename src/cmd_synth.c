/* cmd_synth.c: placeholder replaced by the real command. */
#include "cmd.h"
static rl_status run(int argc, char **argv, rl_error *err) { (void)argc; (void)argv; return rl_fail(err, RL_EINTERNAL, "not built yet"); }
const rl_command rl_cmd_synth = {"synth", "(in progress)", "usage: llama-roofline synth\n", run};
