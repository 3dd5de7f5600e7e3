/* SPDX-License-Identifier: MIT */
/* cmd.h: the shape of a subcommand. Each cmd_<verb>.c defines one rl_command and main.c lists
 * them all in its single command table. A command parses its own flags (argv[0] is the verb),
 * writes its primary output to stdout and diagnostics to stderr, and returns a status with the
 * error buffer filled; main prints the message and picks the exit code. */
#ifndef RL_CMD_H
#define RL_CMD_H

#include "base/rl_error.h"

typedef struct {
    const char *name;
    const char *summary; /* one line for --help */
    const char *usage;   /* full text for `help <verb>` and `<verb> --help` */
    rl_status (*run)(int argc, char **argv, rl_error *err);
} rl_command;

extern const rl_command rl_cmd_inspect;
extern const rl_command rl_cmd_synth;
extern const rl_command rl_cmd_membw;
extern const rl_command rl_cmd_run;
extern const rl_command rl_cmd_import;
extern const rl_command rl_cmd_report;
extern const rl_command rl_cmd_diagnose;
extern const rl_command rl_cmd_validate;
extern const rl_command rl_cmd_legend;
extern const rl_command rl_cmd_compare;
extern const rl_command rl_cmd_history;
extern const rl_command rl_cmd_advise;
extern const rl_command rl_cmd_client;
extern const rl_command rl_cmd_predict;
extern const rl_command rl_cmd_calibrate;
extern const rl_command rl_cmd_export;

#endif
