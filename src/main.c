/* SPDX-License-Identifier: MIT */
/* main.c: program entry. Holds the single command table, handles --version, --help and
 * `help <verb>` (each command handles its own -h/--help) and the hidden --list-options (the
 * command and option tables the shell completions are generated from), pins number
 * formatting to the C locale, installs the interrupt handler, and is the only place a status
 * becomes an exit code (docs/CLI.md). It alone checks standard output after a command
 * (finish_stdout): a write that failed there is exit 4 for every command, --help and --version
 * included.
 *
 * Signals: the first SIGINT or SIGTERM only sets rl_interrupted (no SA_RESTART, so a blocked
 * read, write, poll or open returns EINTR and the loop around it checks the flag); commands
 * then stop within a second, keep what they measured and exit 130. A second one kills the
 * process group of every child still running (rl_proc_kill_all), removes the temporary files
 * still open, restores the default action and re-raises it. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cmd/cmd.h"
#include "base/proc.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/rl_version.h"

/* The command table, in the order --help lists them: one line per command. */
// clang-format off
static const rl_command *const commands[] = {
    &rl_cmd_diagnose,
    &rl_cmd_inspect,
    &rl_cmd_synth,
    &rl_cmd_membw,
    &rl_cmd_run,
    &rl_cmd_import,
    &rl_cmd_report,
    &rl_cmd_validate,
    &rl_cmd_legend,
    &rl_cmd_compare,
    &rl_cmd_history,
    &rl_cmd_advise,
    &rl_cmd_client,
    &rl_cmd_predict,
    &rl_cmd_calibrate,
    &rl_cmd_export,
};
// clang-format on
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const rl_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* "no command 'rn' (did you mean 'run'? see llama-roofline --help)": RL_EINPUT. */
static rl_status no_command(const char *name, rl_error *err)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i]->name;
    int at = rl_nearest_word(name, names, N_COMMANDS);
    char safe[256], hint[64] = "";
    if (at >= 0)
        rl_snprintf(hint, sizeof hint, "did you mean '%s'? ", names[at]);
    return rl_fail(err, RL_EINPUT, "no command '%s' (%ssee llama-roofline --help)",
                   rl_tty_escape(name, safe, sizeof safe), hint);
}

static void print_help(FILE *out)
{
    rl_tty_printf(out, "usage: llama-roofline <command> [options]\n\n"
                       "What limits LLM token generation on this machine, measured.\n\n"
                       "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        rl_tty_printf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    rl_tty_printf(
        out, "\n  llama-roofline help <command>   more about one command\n"
             "  llama-roofline --version        print the version\n\n"
             "exit codes: 0 ok, 1 ran but measured nothing, 2 bad input, 3 a needed program\n"
             "is missing, 4 an output could not be written, 5 internal error, 130 interrupted\n");
}

static void on_signal(int sig)
{
    if (rl_interrupted) {
        rl_proc_kill_all(); /* no child (nor its children) outlives us */
        rl_file_cleanup_signal();
        static const char said[] = "llama-roofline: interrupted again: stopped at once, every "
                                   "child killed; files already written are kept\n";
        ssize_t w = write(STDERR_FILENO, said, sizeof said - 1);
        (void)w;
        if (sig == SIGTERM) /* exit 130 (docs/CLI.md) for SIGTERM too, not death by signal */
            _exit(130);
        signal(sig, SIG_DFL); /* SIGINT: die by it, so a calling shell stops too (status 130) */
        raise(sig);
        return;
    }
    rl_interrupted = 1;
}

/* git's run_builtin habit: after every command, --help and --version included, flush
 * standard output, check it for a write error and close it. A failed write is RL_EOUTPUT
 * (exit 4) for a command that otherwise succeeded (or measured nothing); an earlier failure
 * keeps its own status. The one check of standard output in the program. */
static rl_status finish_stdout(const char *verb, rl_status st, rl_error *err)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int saved = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (!bad || st == RL_EOUTPUT) /* an output failure the command named already */
        return st;
    const char *why = saved ? strerror(saved) : "write error";
    if (st == RL_OK || st == RL_NOTHING)
        return rl_fail(err, RL_EOUTPUT, "standard output could not be written: %s", why);
    rl_tty_printf(stderr, "llama-roofline %s: error: standard output could not be written: %s\n",
                  verb, why);
    return st;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The hidden --list-options: every command with its summary, then every spelling of every
 * option each accepts (rl_opt_print_table), from the tables the commands parse with: the
 * build generates the shell completions from it (cmake/completions.sh), so they cannot drift
 * from the real options. Lines "command NAME SUMMARY" and "option VERB SPELLING ARG"; the
 * top level's own are VERB llama-roofline, and `help` is a command that takes a command. */
static rl_status list_options(rl_error *err)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        rl_tty_printf(stdout, "command %s %s\n", commands[i]->name, commands[i]->summary);
    rl_tty_printf(stdout, "command help more about one command\n");
    static const char *const top[] = {"--help", "-h", "--version", "-V"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
        rl_tty_printf(stdout, "option llama-roofline %s none\n", top[i]);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char name[64], help[] = "--help";
        rl_snprintf(name, sizeof name, "%s", commands[i]->name);
        char *args[] = {name, help, NULL}; /* --help: a command that would not stop does nothing */
        rl_error ignored = {RL_OK, ""};
        rl_opt_capture_begin(); /* the command stops at its rl_opt_each, having read nothing */
        (void)commands[i]->run(2, args, &ignored);
        const char *shortopts;
        const struct option *longopts;
        if (!rl_opt_captured(&shortopts, &longopts))
            return rl_fail(err, RL_EINTERNAL, "command %s read no option table", name);
        rl_opt_print_table(stdout, name, shortopts, longopts);
    }
    return RL_OK;
}

/* The verbs that are not commands: --version, --help, help [COMMAND] and the hidden
 * --list-options. true when argv[1] is one of them, with *st its status. */
static bool builtin_verb(int argc, char **argv, rl_status *st, rl_error *err)
{
    const char *verb = argv[1];
    *st = RL_OK;
    if (strcmp(verb, "--version") == 0 || strcmp(verb, "-V") == 0) {
        rl_tty_printf(stdout, "llama-roofline %s\n", RL_VERSION);
        return true;
    }
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 ||
        (strcmp(verb, "help") == 0 && argc < 3)) {
        print_help(stdout);
        return true;
    }
    if (strcmp(verb, "--list-options") == 0) {
        *st = list_options(err);
        return true;
    }
    if (strcmp(verb, "help") != 0)
        return false;
    const rl_command *c = find_command(argv[2]);
    if (!c) {
        *st = no_command(argv[2], err);
        return true;
    }
    rl_tty_puts(stdout, c->usage);
    return true;
}

/* Run the command: signals, libcurl, a copy of argv for getopt, the run, the progress line. */
static rl_status run_command(const rl_command *c, int argc, char **argv, rl_error *err)
{
    install_signals();
    /* libcurl (the HTTP client and remote GGUF headers) is set up once, before any thread */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return rl_fail(err, RL_EINTERNAL, "libcurl could not be initialised");
    /* the command parses a copy (getopt_long reorders it); argv stays as typed, for the record,
     * and its words are the command's to change (run -m a,b splits its word in place) */
    char **args = rl_calloc((size_t)argc, sizeof *args),
         **own = rl_calloc((size_t)argc, sizeof *own);
    bool ok = args && own;
    for (int i = 1; ok && i < argc; i++)
        ok = (own[i - 1] = args[i - 1] = rl_strdup(argv[i])) != NULL;
    rl_opt_save_typed(argc - 1, argv + 1);
    rl_status st = ok ? c->run(argc - 1, args, err) : rl_fail(err, RL_EINTERNAL, "out of memory");
    for (int i = 0; own && i < argc - 1; i++)
        free(own[i]);
    free(own);
    free(args);
    rl_progress_done();
    return st;
}

int main(int argc, char **argv)
{
    rl_locale_init();
    if (argc < 2) {
        print_help(stderr);
        rl_tty_printf(stderr, "llama-roofline: error: a command is required\n");
        return rl_exit_code(RL_EINPUT);
    }
    const char *verb = argv[1];
    rl_error err = {RL_OK, ""};
    rl_status st;
    bool named = false; /* messages of a command name it: "llama-roofline VERB: ..." */
    if (!builtin_verb(argc, argv, &st, &err)) {
        const rl_command *c = find_command(verb);
        if (!c) {
            st = no_command(verb, &err);
        } else {
            named = true;
            st = run_command(c, argc, argv, &err);
        }
    }
    st = finish_stdout(named ? verb : "", st, &err);
    if (st == RL_OK)
        return 0;
    if (st == RL_EINTERRUPTED && !err.msg[0])
        rl_fail(&err, st, "interrupted");
    if (err.msg[0])
        rl_tty_printf(stderr, "llama-roofline%s%s: %s%s\n", named ? " " : "", named ? verb : "",
                      st == RL_NOTHING ? "" : "error: ", err.msg);
    return rl_exit_code(st);
}
