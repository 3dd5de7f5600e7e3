/* SPDX-License-Identifier: MIT */
/* fake-stream.c: a scripted streaming program for the `client` command's tests and the
 * command-driver accuracy bench. It stands in for `fm respond`, `ollama run` or any command
 * that reads a prompt on stdin and streams an answer to stdout.
 *
 *   fake-stream [options] [MS TEXT]...
 *
 * It reads its stdin to the end (at most 1 MiB kept), then writes each TEXT at MS milliseconds
 * after that moment (CLOCK_MONOTONIC when stdin reached its end, so a prompt that arrives late
 * cannot squeeze the schedule into one read): clock_nanosleep(TIMER_ABSTIME)
 * until about 0.3 ms before the target, then a busy-wait, then one write(). TEXT takes the
 * escapes \n, \t, \\ and \xHH. With FAKE_STREAM_LOG=FILE every write appends one line
 *   <key> <pid> <t_ns> <bytes> <t_after_ns>
 * (t_ns: CLOCK_MONOTONIC just before the write, t_after_ns just after it returned: the data
 * became readable between the two; key: the first word of the prompt, at most 63 bytes, "-"
 * when empty) with O_APPEND, so concurrent copies share one log. With FAKE_STREAM_FIFO=PRIO
 * (the accuracy bench, as root) each stamp-and-write runs at SCHED_FIFO PRIO, so a reader at a
 * lower real-time priority (the client's, 1) cannot preempt the fake between its stamp and
 * its write: the log's time stays the write's time on a 2-core machine with 8 copies. Refused
 * (not root): ignored, and the log's t_after_ns shows how wide each write's window was.
 *
 * Options (before the script):
 *   --exit N          exit with status N after the script (a line on stderr when N != 0)
 *   --hang            after the script, sleep forever with stdout open (a hung answer)
 *   --never-exit      as --hang, and ignore SIGTERM (only SIGKILL ends it)
 *   --flood MB        after the script, write MB MiB of 'x' as fast as the pipe takes it
 *   --garbage         after the script, write invalid UTF-8, control bytes and NULs
 *   --count           be a token counter: print the number of whitespace-separated words of
 *                     stdin plus 1 (a framing token, as `fm count-tokens`); fails on empty input
 *   --count-step K    with --count: K tokens per word (default 1)
 *   --count-fail      be a counter that always fails (stderr line, exit 64)
 *   --echo-prompt     write the prompt back as the first chunk (at MS 0)
 *   --fault-key K     apply --exit, --hang, --never-exit, --flood and --garbage only when the
 *                     prompt's first word is K (other prompts just get the script)
 * Invoked as `fm` (a symlink): `fm --help` and `fm respond --help` print a help text shaped
 * like Apple's fm, `fm count-tokens` counts as --count, `fm models` lists `system` available
 * and `pcc` unavailable with a reason (a warning line and colour codes around them, as fm 27.2
 * prints them), `fm respond` streams a default script (its options ignored).
 * Exit status 2 on a bad command line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROMPT_MAX ((size_t)1 << 20)

static int64_t start_ns;
static char key[64] = "-";
static int log_fd = -1;
static int fifo_prio; /* FAKE_STREAM_FIFO: 0 = off */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void wait_until(int64_t target)
{
    int64_t coarse = target - 300000; /* sleep until 0.3 ms before, then spin */
    if (coarse > now_ns()) {
        struct timespec ts = {(time_t)(coarse / 1000000000LL), (long)(coarse % 1000000000LL)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    while (now_ns() < target)
        ;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            exit(1); /* the reader went away */
        p += w;
        n -= (size_t)w;
    }
}

/* One timed write of the answer, logged. */
static void emit(const char *p, size_t n)
{
    struct sched_param fifo = {.sched_priority = fifo_prio}, normal = {.sched_priority = 0};
    bool raised = fifo_prio > 0 && sched_setscheduler(0, SCHED_FIFO, &fifo) == 0;
    int64_t t = now_ns();
    write_all(STDOUT_FILENO, p, n);
    int64_t t_after = now_ns();
    if (raised)
        sched_setscheduler(0, SCHED_OTHER, &normal);
    if (log_fd >= 0) {
        char line[192];
        int k = snprintf(line, sizeof line, "%s %ld %lld %zu %lld\n", key, (long)getpid(),
                         (long long)t, n, (long long)t_after);
        if (k > 0 && (size_t)k < sizeof line)
            write_all(log_fd, line, (size_t)k);
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode the escapes of TEXT in place; returns the length. */
static size_t unescape(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (*p != '\\' || !p[1]) {
            *o++ = *p;
            continue;
        }
        p++;
        if (*p == 'n')
            *o++ = '\n';
        else if (*p == 't')
            *o++ = '\t';
        else if (*p == 'x' && hexval(p[1]) >= 0 && hexval(p[2]) >= 0) {
            *o++ = (char)(hexval(p[1]) * 16 + hexval(p[2]));
            p += 2;
        } else
            *o++ = *p;
    }
    return (size_t)(o - s);
}

static char *kept_prompt; /* reachable until exit, so leak checkers stay quiet */

static char *read_stdin(size_t *len)
{
    char *buf = malloc(PROMPT_MAX + 1);
    size_t n = 0;
    if (!buf)
        exit(1);
    for (;;) {
        char tmp[65536];
        ssize_t r = read(STDIN_FILENO, tmp, sizeof tmp);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t take = (size_t)r;
        if (take > PROMPT_MAX - n)
            take = PROMPT_MAX - n;
        memcpy(buf + n, tmp, take);
        n += take;
    }
    buf[n] = '\0';
    *len = n;
    kept_prompt = buf;
    return buf;
}

static int count_words(const char *s)
{
    int n = 0;
    for (const char *p = s; *p;) {
        while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            break;
        n++;
        while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
            p++;
    }
    return n;
}

static int do_count(const char *prompt, int step)
{
    int words = count_words(prompt);
    if (words == 0) {
        fprintf(stderr, "Error: Missing prompt: pass text on stdin.\n");
        return 1;
    }
    printf("%d\n", words * step + 1);
    return 0;
}

static const char fm_help[] =
    "\n Foundation Models CLI\n\n  USAGE\n    % fm <command> [options]\n\n  COMMANDS\n"
    "    chat          Start an interactive chat\n"
    "    count-tokens  Count the tokens of a prompt\n"
    "    models        List models and their availability\n"
    "    respond       Respond to a prompt\n"
    "    serve         Serve an OpenAI-compatible endpoint\n"
    "\n  MODELS\n    system        The on-device model (default)\n\n"
    "  Run 'fm <command> --help' for more.\n";
static const char fm_respond_help[] =
    "  OPTIONS\n    -m, --model <model>   Model to use (system)\n"
    "    -i, --instructions <text>\n    --[no-]stream         Stream the answer (default: on)\n"
    "    -g, --greedy          Greedy sampling\n    -h, --help\n";

static void idle_forever(void)
{
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    start_ns = now_ns();
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *fifo = getenv("FAKE_STREAM_FIFO");
    if (fifo && *fifo)
        fifo_prio = atoi(fifo);
    const char *logp = getenv("FAKE_STREAM_LOG");
    if (logp && *logp)
        log_fd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

    if (strcmp(base, "fm") == 0) {
        if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
            fputs(fm_help, stdout);
            return 0;
        }
        if (argc >= 3 && strcmp(argv[1], "respond") == 0 && strcmp(argv[2], "--help") == 0) {
            fputs(fm_respond_help, stdout);
            return 0;
        }
        size_t n;
        char *prompt = read_stdin(&n);
        start_ns = now_ns();
        if (argc >= 2 && strcmp(argv[1], "count-tokens") == 0)
            return do_count(prompt, 1);
        if (argc >= 2 && strcmp(argv[1], "models") == 0) { /* as fm 27.2 lists them */
            fputs("warning: \xe2\x9c\x97 ignored (a warning line)\n"
                  "\xe2\x9c\x93 system (AFM 3 Core)\n"
                  "\x1b[31m\xe2\x9c\x97\x1b[0m pcc (Private Cloud Compute is not enabled. Please "
                  "use the Terminal app.)\n",
                  stdout);
            return 0;
        }
        if (argc >= 2 && strcmp(argv[1], "respond") == 0) {
            static const char *parts[] = {"The on-device model ", "replies ", "with a ",
                                          "deterministic ",       "answer.",  "\n"};
            for (int i = 0; i < 6; i++) {
                wait_until(start_ns + (i == 0 ? 0 : (i < 5 ? i * 20 : 80)) * 1000000LL);
                emit(parts[i], strlen(parts[i]));
            }
            return 0;
        }
        fprintf(stderr, "Error: Unknown command.\n");
        return 1;
    }

    int exit_code = 0, count_step = 1;
    long flood_mb = 0;
    int hang = 0, never_exit = 0, garbage = 0, count = 0, count_fail = 0, echo = 0;
    const char *fault_key = NULL;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--exit") == 0 && i + 1 < argc)
            exit_code = atoi(argv[++i]);
        else if (strcmp(o, "--flood") == 0 && i + 1 < argc)
            flood_mb = atol(argv[++i]);
        else if (strcmp(o, "--count-step") == 0 && i + 1 < argc)
            count_step = atoi(argv[++i]);
        else if (strcmp(o, "--hang") == 0)
            hang = 1;
        else if (strcmp(o, "--never-exit") == 0)
            hang = never_exit = 1;
        else if (strcmp(o, "--garbage") == 0)
            garbage = 1;
        else if (strcmp(o, "--count") == 0)
            count = 1;
        else if (strcmp(o, "--count-fail") == 0)
            count_fail = 1;
        else if (strcmp(o, "--echo-prompt") == 0)
            echo = 1;
        else if (strcmp(o, "--fault-key") == 0 && i + 1 < argc)
            fault_key = argv[++i];
        else {
            fprintf(stderr, "fake-stream: unknown option %s\n", o);
            return 2;
        }
    }
    if ((argc - i) % 2 != 0) {
        fprintf(stderr, "fake-stream: the script is pairs of MS TEXT\n");
        return 2;
    }
    size_t plen;
    char *prompt = read_stdin(&plen);
    start_ns = now_ns(); /* the schedule starts once the prompt is in */
    size_t k = 0;
    while (k < plen && (prompt[k] == ' ' || prompt[k] == '\n' || prompt[k] == '\t'))
        k++;
    size_t kl = 0;
    while (k + kl < plen && kl < sizeof key - 1 && prompt[k + kl] != ' ' &&
           prompt[k + kl] != '\n' && prompt[k + kl] != '\t' && prompt[k + kl] != '\r')
        kl++;
    if (kl > 0) {
        memcpy(key, prompt + k, kl);
        key[kl] = '\0';
    }

    if (fault_key && strcmp(fault_key, key) != 0)
        exit_code = hang = never_exit = garbage = 0, flood_mb = 0;
    if (never_exit)
        signal(SIGTERM, SIG_IGN);
    if (count_fail) {
        fprintf(stderr, "Error: The value is invalid for counting.\n");
        return 64;
    }
    if (count)
        return do_count(prompt, count_step);

    if (echo)
        emit(prompt, plen);
    for (; i + 1 < argc; i += 2) {
        long ms = atol(argv[i]);
        size_t n = unescape(argv[i + 1]);
        wait_until(start_ns + (int64_t)ms * 1000000LL);
        emit(argv[i + 1], n);
    }
    if (flood_mb > 0) {
        static char block[65536];
        memset(block, 'x', sizeof block);
        for (long b = 0; b < flood_mb * 16; b++)
            write_all(STDOUT_FILENO, block, sizeof block);
    }
    if (garbage) {
        static const char g[] = "\xff\xfe\x80 bad \x1b[31m red \x07 bell \0 nul \xc3\n";
        emit(g, sizeof g - 1);
    }
    if (hang)
        idle_forever();
    if (exit_code != 0)
        fprintf(stderr, "Error: The model failed to produce a response (exit %d).\n", exit_code);
    return exit_code;
}
