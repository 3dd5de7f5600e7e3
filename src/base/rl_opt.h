/* SPDX-License-Identifier: MIT */
/* rl_opt.h: the one way a command reads its options: libc's getopt_long, with the messages
 * and the conventions every command shares (docs/CLI.md):
 *   --name VALUE and --name=VALUE, -x VALUE and -xVALUE; options and operands may be mixed;
 *   "--" ends the options; -h/--help is an option like any other (a value that happens to be
 *   "-h" is a value); an unknown option or a missing value is RL_EINPUT with one line naming
 *   it and pointing at `llama-roofline VERB --help`, with the nearest long option as a
 *   did-you-mean, and an abbreviation that begins several options named as ambiguous;
 *   llama-bench's -ngl is the command's --n-gpu-layers.
 * Allocates nothing. */
#ifndef RL_OPT_H
#define RL_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/rl_error.h"

/* Returned by rl_getopt when it has filled err (unknown option or missing value). */
#define RL_OPT_ERROR (-2)

/* The command line as typed, for the record (bundles keep it): main saves the command's argv
 * before getopt_long reorders the copy the command parses. The array is main's; NULL and 0
 * before main saved one. */
void rl_opt_save_typed(int argc, char *const *argv);
char *const *rl_opt_typed(int *argc);

/* llama-bench's single-dash names (-ngl) rewritten in argv to the command's long option
 * (--n-gpu-layers) where the command has it; a word that is an option's value is left as it
 * is. argv is the command's copy (main's); the new words are static. rl_opt_each calls it. */
void rl_opt_dash_aliases(int argc, char **argv, const char *shortopts,
                         const struct option *longopts);

/* Start a new parse of argv (resets getopt's state). */
void rl_opt_begin(void);
/* One getopt_long step: the option's value (as getopt_long returns it), -1 at the end of the
 * options (operands start at optind), or RL_OPT_ERROR with err filled. argv[0] is the verb.
 * shortopts must not start with ':' or '+' (added here). */
int rl_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
              rl_error *err);

/* One option of a command: c is getopt_long's value, arg its value (optarg, NULL for a flag
 * or an absent optional value), ctx the command's. Returns RL_OK to go on, or fills err. */
typedef rl_status (*rl_opt_fn)(int c, const char *arg, void *ctx, rl_error *err);
/* The getopt loop of every command: rl_opt_begin, then rl_getopt until the end of the
 * options. An unknown option or a missing value is RL_EINPUT (err filled by rl_getopt);
 * -h/--help sets *help and stops there (RL_OK; later options are not read); every other
 * option goes to fn, and fn's failure stops the loop and is returned. On return optind is
 * the first operand (getopt_long has moved the operands to the end of argv). */
rl_status rl_opt_each(int argc, char **argv, const char *shortopts, const struct option *longopts,
                      rl_opt_fn fn, void *ctx, bool *help, rl_error *err);

/* The option tables, for the shell completions (main's hidden --list-options). After
 * rl_opt_capture_begin the next rl_opt_each reads no option: it keeps its shortopts and
 * longopts (a command's static tables) and returns RL_EINPUT with err saying so, which every
 * command hands back before doing anything; rl_opt_captured then gives the tables (false when
 * no rl_opt_each ran since, or it is not capturing any more) and ends the capture. */
void rl_opt_capture_begin(void);
bool rl_opt_captured(const char **shortopts, const struct option **longopts);
/* One line per spelling a command accepts, "option VERB SPELLING ARG" with ARG none, required
 * or optional: every long option (--name), every short one (-x) but the ':' flags, and the
 * llama-bench dash names (-ngl) rl_opt_dash_aliases rewrites for this command. */
void rl_opt_print_table(FILE *out, const char *verb, const char *shortopts,
                        const struct option *longopts);

#endif
