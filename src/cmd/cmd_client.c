/* SPDX-License-Identifier: MIT */
/* cmd_client.c: `llama-roofline client`: what a user of a streaming model sees (seed 001).
 * Options, usage text and one call to the measuring session (client_run.h), which loads the
 * prompts, measures each operating point, keeps the bundle and writes the outputs.
 * Nothing is allocated here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_http.h"
#include "cmd/client_run.h"
#include "cmd/cmd.h"
#include "cmd/defaults.h"
#include "base/rl_file.h"
#include "base/rl_opt.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

// clang-format off
static const char usage[] =
    "usage: llama-roofline client (--cmd 'COMMAND' | --url URL) [options]\n"
    "\n"
    "Measure what a user of a streaming model sees: time to first token (TTFT, a\n"
    "proxy: the first chunk), end-to-end latency, time per output token, chunk gaps,\n"
    "throughput and goodput against SLOs, at one or more concurrency operating points\n"
    "(seed 001). Every metric carries its kind (measured, proxy, derived, controlled)\n"
    "or the reason it is unavailable. The bundle is rewritten after every finished\n"
    "request: Ctrl-C keeps what was measured.\n"
    "\n"
    "what to measure:\n"
    "  --cmd 'COMMAND'        a command that reads the prompt on stdin and streams\n"
    "                         the answer to stdout, run with /bin/sh -c\n"
    "                         (`fm respond`, `ollama run M`)\n"
    "  --url URL              an OpenAI-compatible streaming endpoint (SSE), e.g.\n"
    "                         http://127.0.0.1:8080/v1/chat/completions\n"
    "  --model NAME[,NAME...] \"model\" of the HTTP request (default: left out); with\n"
    "                         --cmd, what replaces {model} in COMMAND; several: one\n"
    "                         set of operating points per model, at most 16\n"
    "  --api chat|completions the HTTP API (default chat)\n"
    "  --api-key-env NAME     send the key in environment variable NAME as a Bearer\n"
    "                         token (never written anywhere)\n"
    "  --max-tokens N         answer length limit sent over HTTP, 1 to 1000000\n"
    "                         (default: the server's); a prompt file's max_tokens\n"
    "                         wins\n"
    "tokens (command driver):\n"
    "  --count-tokens-cmd 'C' a counter: reads text on stdin, prints one whole\n"
    "                         number; its framing overhead is calibrated on \"a\",\n"
    "                         \"a a\", \"a a a\" and subtracted only when the step is\n"
    "                         consistent\n"
    "  --fm-help-cmd BIN      read fm's capabilities from `BIN --help` and\n"
    "                         `BIN respond --help` (automatic when COMMAND starts\n"
    "                         with fm); its count-tokens is the counter unless\n"
    "                         --count-tokens-cmd is given\n"
    "prompts (a file's first, then each --prompt; a profile only when neither):\n"
    "  --profile NAME         short-chat (default), long-generation, extraction,\n"
    "                         summarisation, code, or mixed (one of each); fm-bench's\n"
    "                         quick, standard, interactive, throughput, client,\n"
    "                         stress, reasoning, coding, creative are mapped onto\n"
    "                         these (docs/CLI.md)\n"
    "  --prompts FILE         read by its content: a JSON array of strings or\n"
    "                         {\"id\", \"prompt\", \"max_tokens\"} (or {\"prompts\": [...]}),\n"
    "                         JSON Lines (one such object a line), or text: a prompt\n"
    "                         a line, or a paragraph when blank lines part\n"
    "                         multi-line blocks\n"
    "  --prompt TEXT          a prompt (id custom-K, K its place in the list);\n"
    "                         repeatable, at most " RL_DEF_STR(RL_CLIENT_INLINE_MAX) "\n"
    "operating points:\n"
    "  --concurrency N        requests in flight, 1 to 1024 (default " RL_DEF_STR(RL_DEF_CLIENT_CONCURRENCY) ")\n"
    "  --sweep-concurrency L  one operating point per value, e.g. 1,2,4 (sorted,\n"
    "                         de-duplicated)\n"
    "  --request-rate RPS     admit requests at fixed intervals of 1/RPS s (no\n"
    "                         randomness), 0.001 to 10000; still at most N in flight\n"
    "  --ramp-up-ms MS        with --request-rate: the first interval is 4/RPS,\n"
    "                         shrinking linearly to 1/RPS over MS ms, 1 to 3600000\n"
    "  --warmup N             unmeasured requests (first prompt, one at a time)\n"
    "                         before each point, 0 to 100 (default " RL_DEF_STR(RL_DEF_CLIENT_WARMUP) ")\n"
    "  --runs N               repeat the prompt set N times, 1 to 10000 (default " RL_DEF_STR(RL_DEF_CLIENT_RUNS) ")\n"
    "  --retry N              retry a failed request up to N times, 0 to 10 (default\n"
    "                         " RL_DEF_STR(RL_DEF_CLIENT_RETRY) "), after 500 ms, 1 s, 2 s, then 4 s; a retried\n"
    "                         success is one sample\n"
    "  --timeout SEC          per request attempt, 0.001 to 86400 (default " RL_DEF_STR(RL_DEF_CLIENT_TIMEOUT_S) ")\n"
    "  --fail-fast            stop at the first failed request (the bundle is still\n"
    "                         written)\n"
    "  --capture-output       keep each answer's text in the bundle's records\n"
    "  --slo-ttft-ms MS, --slo-tpot-ms MS, --slo-e2e-ms MS\n"
    "                         service-level objectives for goodput (a request missing\n"
    "                         the metric is not good)\n"
    "  --fail-on-slo PCT      a CI gate: exit 1 when any request failed or a point's\n"
    "                         goodput (good / all requests) is under PCT %, 0.001 to\n"
    "                         100; needs an SLO; the reasons on stderr and in the\n"
    "                         bundle (client.gate)\n"
    "  --ci                   fm-bench's gate: --fail-on-slo 100 with SLOs, else exit\n"
    "                         1 when any request failed\n"
    "labels:\n"
    "  --tag NAME             a label kept in the bundle and shown in reports and\n"
    "                         compare; repeatable, at most 32 of 64 bytes\n"
    "  --note TEXT            a free-text note kept and shown the same way (1024\n"
    "                         bytes at most)\n"
    RL_DEF_QUIET_HELP("       ", "    ", "                         ")
    RL_DEF_SERVER_PID_HELP("       ", "                         ")
    "output:\n"
    "  -o, --output DIR       write DIR/bundle.json and DIR/report.html (default\n"
    "                         llama-roofline-out unless --json is given)\n"
    "  --bundle FILE          write the bundle to FILE only (no report; the old\n"
    "                         spelling --json FILE still works)\n"
    "  --json                 print the bundle as JSON on stdout in place of the\n"
    "                         summary\n"
    "  --csv FILE             one row per request (\"-\": stdout)\n"
    "  --histogram            add an E2E latency histogram per point to the summary\n"
    "  --chunks FILE          every chunk's CLOCK_MONOTONIC time, one JSON line per\n"
    "                         request\n"
    "  --from BUNDLE          measure nothing: read a client bundle and write --csv\n"
    "                         from it\n"
    "  -h, --help             show this text\n"
    "\n"
    "A terminal shows a live line per operating point (done/failed, p50 TTFT, p50\n"
    "TPOT, tok/s); LLAMA_ROOFLINE_PROGRESS=lines prints plain lines instead, =off\n"
    "nothing.\n"
    "\n"
    "exit codes: 0 at least one request succeeded; 1 none did, --fail-fast stopped\n"
    "the run, or the --fail-on-slo / --ci gate failed; 2 bad input (also an output\n"
    "that is an input or another output); 3 the command's program was not found for\n"
    "any request (shell status 127/126) or the\n"
    "HTTP driver is not built; 4 an output cannot be written (a symbolic link is\n"
    "never followed) or another llama-roofline is writing it; 5 internal error; 130\n"
    "interrupted (the bundle keeps every finished request).\n";
// clang-format on

enum {
    OPT_CMD = 256,
    OPT_URL,
    OPT_MODEL,
    OPT_API,
    OPT_KEYENV,
    OPT_MAXTOK,
    OPT_COUNT,
    OPT_FMHELP,
    OPT_PROFILE,
    OPT_PROMPTS,
    OPT_CONC,
    OPT_SWEEP,
    OPT_RATE,
    OPT_RAMP,
    OPT_WARMUP,
    OPT_RUNS,
    OPT_RETRY,
    OPT_TIMEOUT,
    OPT_FAILFAST,
    OPT_CAPTURE,
    OPT_SLO_TTFT,
    OPT_SLO_TPOT,
    OPT_SLO_E2E,
    OPT_JSON,
    OPT_BUNDLE,
    OPT_CSV,
    OPT_CHUNKS,
    OPT_FROM,
    OPT_SERVER_PID,
    OPT_FAIL_SLO,
    OPT_CI,
    OPT_TAG,
    OPT_NOTE,
    OPT_HISTOGRAM,
    OPT_PROMPT
};

static const struct option longopts[] = {
    {"cmd", required_argument, NULL, OPT_CMD},
    {"url", required_argument, NULL, OPT_URL},
    {"model", required_argument, NULL, OPT_MODEL},
    {"api", required_argument, NULL, OPT_API},
    {"api-key-env", required_argument, NULL, OPT_KEYENV},
    {"max-tokens", required_argument, NULL, OPT_MAXTOK},
    {"count-tokens-cmd", required_argument, NULL, OPT_COUNT},
    {"fm-help-cmd", required_argument, NULL, OPT_FMHELP},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"prompts", required_argument, NULL, OPT_PROMPTS},
    {"concurrency", required_argument, NULL, OPT_CONC},
    {"sweep-concurrency", required_argument, NULL, OPT_SWEEP},
    {"request-rate", required_argument, NULL, OPT_RATE},
    {"ramp-up-ms", required_argument, NULL, OPT_RAMP},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"retry", required_argument, NULL, OPT_RETRY},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"fail-fast", no_argument, NULL, OPT_FAILFAST},
    {"capture-output", no_argument, NULL, OPT_CAPTURE},
    {"slo-ttft-ms", required_argument, NULL, OPT_SLO_TTFT},
    {"slo-tpot-ms", required_argument, NULL, OPT_SLO_TPOT},
    {"slo-e2e-ms", required_argument, NULL, OPT_SLO_E2E},
    {"output", required_argument, NULL, 'o'},
    {"json", optional_argument, NULL, OPT_JSON},
    {"bundle", required_argument, NULL, OPT_BUNDLE},
    {"csv", required_argument, NULL, OPT_CSV},
    {"chunks", required_argument, NULL, OPT_CHUNKS},
    {"from", required_argument, NULL, OPT_FROM},
    {"server-pid", required_argument, NULL, OPT_SERVER_PID},
    {"fail-on-slo", required_argument, NULL, OPT_FAIL_SLO},
    {"ci", no_argument, NULL, OPT_CI},
    {"tag", required_argument, NULL, OPT_TAG},
    {"note", required_argument, NULL, OPT_NOTE},
    {"histogram", no_argument, NULL, OPT_HISTOGRAM},
    RL_DEF_QUIET_LONGOPTS,
    {"help", no_argument, NULL, 'h'},
    {"prompt", required_argument, NULL, OPT_PROMPT},
    {NULL, 0, NULL, 0},
};

/* What the options fill; have_conc: --concurrency was given (not --sweep-concurrency). */
typedef struct {
    rl_client_opts *a;
    bool have_conc;
    bool json_bare; /* --json without =FILE: stdout, or the old --json FILE with its operand */
} client_parse;

/* A label (--tag, --note): not empty, at most max bytes, UTF-8 without control characters. */
static rl_status label_ok(const char *flag, const char *arg, size_t max, rl_error *err)
{
    size_t n = strlen(arg);
    if (n == 0 || n > max)
        return rl_fail(err, RL_EINPUT, "%s wants 1 to %zu bytes, got %zu", flag, max, n);
    if (!rl_utf8_valid(arg, n))
        return rl_fail(err, RL_EINPUT, "%s is not UTF-8 text", flag);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)arg[i] < 0x20 || arg[i] == 0x7f)
            return rl_fail(err, RL_EINPUT, "%s holds a control character (byte %zu)", flag, i + 1);
    return RL_OK;
}

/* The labels and the gate. */
static rl_status on_label_opt(int c, const char *arg, rl_client_opts *a, rl_error *err)
{
    rl_status st = RL_OK;
    switch (c) {
    case OPT_FAIL_SLO:
        st = rl_opt_double("--fail-on-slo", arg, 0.001, false, 100, &a->fail_on_slo, err);
        break;
    case OPT_CI: a->ci = true; break;
    case OPT_TAG:
        if (a->n_tags == RL_CLIENT_MAX_TAGS)
            return rl_fail(err, RL_EINPUT, "at most %d --tag labels", RL_CLIENT_MAX_TAGS);
        st = label_ok("--tag", arg, RL_CLIENT_TAG_MAX, err);
        if (st == RL_OK)
            a->tags[a->n_tags++] = arg;
        break;
    case OPT_NOTE:
        st = label_ok("--note", arg, RL_CLIENT_NOTE_MAX, err);
        a->note = arg;
        break;
    default: a->histogram = true; break;
    }
    return st;
}

static rl_status on_opt(int c, const char *arg, void *ctx, rl_error *err)
{
    client_parse *p = ctx;
    rl_client_opts *a = p->a;
    rl_status st = RL_OK;
    int one;
    if (rl_defaults_quiet_opt(c, arg, &a->wait_quiet_s, &a->retry_disturbed, &st, err))
        return st;
    switch (c) {
    case OPT_CMD: a->cmd = arg; break;
    case OPT_URL: a->url = arg; break;
    case OPT_MODEL: a->model = arg; break;
    case OPT_API:
        if (strcmp(arg, "chat") != 0 && strcmp(arg, "completions") != 0)
            st = rl_fail(err, RL_EINPUT, "--api wants chat or completions");
        a->api = arg;
        break;
    case OPT_KEYENV: a->key_env = arg; break;
    case OPT_MAXTOK: st = rl_opt_int("--max-tokens", arg, 1, 1000000, &a->max_tokens, err); break;
    case OPT_COUNT: a->count_cmd = arg; break;
    case OPT_FMHELP: a->fm_help = arg; break;
    case OPT_PROFILE: a->profile = arg; break;
    case OPT_PROMPTS: a->prompts_file = arg; break;
    case OPT_CONC:
        st = rl_opt_int("--concurrency", arg, 1, 1024, &one, err);
        if (st == RL_OK) {
            if (a->n_conc > 0 && !p->have_conc)
                return rl_fail(err, RL_EINPUT,
                               "--concurrency and --sweep-concurrency exclude each other");
            a->conc[0] = one;
            a->n_conc = 1;
            p->have_conc = true;
        }
        break;
    case OPT_SWEEP:
        if (p->have_conc)
            return rl_fail(err, RL_EINPUT,
                           "--concurrency and --sweep-concurrency exclude each other");
        st = rl_opt_int_list("--sweep-concurrency", arg, 1, 1024, a->conc, RL_CLIENT_MAX_POINTS,
                             &a->n_conc, true, err);
        break;
    case OPT_RATE:
        st = rl_opt_double("--request-rate", arg, 0.001, false, 10000, &a->rate, err);
        break;
    case OPT_RAMP: st = rl_opt_double("--ramp-up-ms", arg, 1, false, 3600000, &a->ramp, err); break;
    case OPT_WARMUP: st = rl_opt_int("--warmup", arg, 0, 100, &a->warmup, err); break;
    case OPT_RUNS: st = rl_opt_int("--runs", arg, 1, 10000, &a->runs, err); break;
    case OPT_RETRY: st = rl_opt_int("--retry", arg, 0, 10, &a->retry, err); break;
    case OPT_TIMEOUT:
        st = rl_opt_double("--timeout", arg, 0.001, false, 86400, &a->timeout, err);
        break;
    case OPT_FAILFAST: a->fail_fast = true; break;
    case OPT_CAPTURE: a->capture = true; break;
    case OPT_SLO_TTFT:
        st = rl_opt_double("--slo-ttft-ms", arg, 0, true, 1e9, &a->slo.ttft_ms, err);
        break;
    case OPT_SLO_TPOT:
        st = rl_opt_double("--slo-tpot-ms", arg, 0, true, 1e9, &a->slo.tpot_ms, err);
        break;
    case OPT_SLO_E2E:
        st = rl_opt_double("--slo-e2e-ms", arg, 0, true, 1e9, &a->slo.e2e_ms, err);
        break;
    case 'o':
        a->out_dir = arg;
        st = rl_check_output_kind("client", arg, RL_OUT_DIR, err);
        break;
    case OPT_JSON: /* --json=FILE: the old spelling of --bundle FILE */
        if (arg)
            a->json = arg;
        else
            p->json_bare = true;
        break;
    case OPT_BUNDLE: a->json = arg; break;
    case OPT_CSV: a->csv = arg; break;
    case OPT_CHUNKS: a->chunks = arg; break;
    case OPT_FROM: a->from = arg; break;
    case OPT_SERVER_PID:
        st = rl_opt_int("--server-pid", arg, 1, RL_DEF_MAX_SERVER_PID, &a->server_pid, err);
        break;
    case OPT_FAIL_SLO:
    case OPT_CI:
    case OPT_TAG:
    case OPT_NOTE:
    case OPT_HISTOGRAM: st = on_label_opt(c, arg, a, err); break;
    case OPT_PROMPT: /* the texts are checked where they are loaded (client_prompts.h) */
        if (a->n_prompt >= RL_CLIENT_INLINE_MAX)
            return rl_fail(err, RL_EINPUT, "--prompt: more than %d: put them in a file (--prompts)",
                           RL_CLIENT_INLINE_MAX);
        a->prompt[a->n_prompt++] = arg;
        break;
    default: st = rl_fail(err, RL_EINTERNAL, "option table out of step");
    }
    return st;
}

static rl_status parse(int argc, char **argv, rl_client_opts *a, bool *help, rl_error *err)
{
    client_parse p = {a, false, false};
    rl_status st = rl_opt_each(argc, argv, "o:h", longopts, on_opt, &p, help, err);
    if (st != RL_OK || *help)
        return st;
    if (p.json_bare && optind == argc - 1 && !a->json) /* --json FILE, as before --bundle */
        a->json = argv[optind++];
    else if (p.json_bare)
        a->json_stdout = true;
    if (a->json_stdout && a->csv && strcmp(a->csv, "-") == 0)
        return rl_fail(err, RL_EINPUT,
                       "--json and --csv - cannot both go to stdout: give --csv FILE");
    if (optind < argc) {
        char safe[128];
        return rl_fail(err, RL_EINPUT,
                       "client takes no operand '%s': give the command with --cmd 'COMMAND'",
                       rl_tty_escape(argv[optind], safe, sizeof safe));
    }
    const char *empty = a->cmd && !*a->cmd               ? "--cmd"
                        : a->url && !*a->url             ? "--url"
                        : a->out_dir && !*a->out_dir     ? "--output"
                        : a->json && !*a->json           ? "--bundle"
                        : a->csv && !*a->csv             ? "--csv"
                        : a->chunks && !*a->chunks       ? "--chunks"
                        : a->count_cmd && !*a->count_cmd ? "--count-tokens-cmd"
                                                         : NULL;
    if (empty)
        return rl_fail(err, RL_EINPUT, "%s needs a value", empty);
    if (a->from) {
        if (!a->csv)
            return rl_fail(err, RL_EINPUT, "--from BUNDLE needs --csv FILE (what to write)");
        if (a->cmd || a->url)
            return rl_fail(err, RL_EINPUT, "--from measures nothing: give no --cmd or --url");
        return RL_OK;
    }
    if (!a->cmd == !a->url)
        return rl_fail(err, RL_EINPUT,
                       a->cmd ? "--cmd and --url exclude each other: give one"
                              : "nothing to measure: give --cmd 'COMMAND' or --url URL");
    bool templ = a->cmd && strstr(a->cmd, "{model}") != NULL;
    if (a->cmd && (a->api || a->key_env || a->max_tokens))
        return rl_fail(err, RL_EINPUT, "--api, --api-key-env and --max-tokens are for --url only");
    if (a->cmd && a->model && !templ)
        return rl_fail(err, RL_EINPUT,
                       "--model with --cmd needs {model} in the command, where each name goes");
    if (templ && !a->model)
        return rl_fail(err, RL_EINPUT, "the command holds {model}: give --model NAME[,NAME...]");
    if (a->url && a->fm_help)
        return rl_fail(err, RL_EINPUT, "--fm-help-cmd is for --cmd only");
    if (a->url) { /* a bad URL is said before anything starts, the live line included */
        char *endpoint = NULL;
        rl_status ue = rl_client_http_endpoint(a->url, RL_CLIENT_API_CHAT, true, &endpoint, err);
        free(endpoint);
        if (ue != RL_OK)
            return ue;
    }
    if (a->fail_on_slo > 0 && a->slo.ttft_ms <= 0 && a->slo.tpot_ms <= 0 && a->slo.e2e_ms <= 0)
        return rl_fail(err, RL_EINPUT,
                       "--fail-on-slo gates goodput: give an SLO (--slo-ttft-ms, --slo-tpot-ms "
                       "or --slo-e2e-ms), or --ci to gate on failures alone");
    if (a->fail_on_slo > 0 && a->ci)
        return rl_fail(err, RL_EINPUT, "--fail-on-slo and --ci exclude each other: give one");
    if (a->ramp > 0 && a->rate <= 0)
        return rl_fail(err, RL_EINPUT, "--ramp-up-ms paces a request rate: give --request-rate");
    if (a->profile && a->prompts_file)
        return rl_fail(err, RL_EINPUT, "--profile and --prompts exclude each other");
    if (a->out_dir && a->json)
        return rl_fail(err, RL_EINPUT,
                       "-o DIR and --json FILE exclude each other (-o writes DIR/bundle.json)");
    return RL_OK;
}

static rl_status run(int argc, char **argv, rl_error *err)
{
    rl_client_opts a = {0};
    a.warmup = rl_defaults.client_warmup;
    a.runs = rl_defaults.client_runs;
    a.retry = rl_defaults.client_retry;
    a.timeout = rl_defaults.client_timeout_s;
    a.quiet = &rl_defaults.quiet;
    a.wait_quiet_s = rl_defaults.wait_quiet_s;
    a.retry_disturbed = rl_defaults.retry_disturbed;
    bool help = false;
    rl_status st = parse(argc, argv, &a, &help, err);
    if (st != RL_OK)
        return st;
    if (help) {
        rl_tty_puts(stdout, usage);
        return RL_OK;
    }
    return rl_client_run_session(&a, err);
}

const rl_command rl_cmd_client = {
    "client", "measure a streaming model as its users see it (TTFT, TPOT, goodput)", usage, run};
