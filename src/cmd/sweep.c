/* SPDX-License-Identifier: MIT */
/* sweep.c: the ceiling and the llama-bench sweep, saved into a bundle as they happen; the
 * analysis is the command's next phase (cmd/session.h). See sweep.h. */
#include "cmd/sweep.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/bundle.h"
#include "cmd/bracket.h"
#include "cmd/defaults.h"
#include "model/gguf_json.h"
#include "model/gguf_model.h"
#include "measure/lbench.h"
#include "measure/membw.h"
#include "render/report.h"
#include "measure/quiet.h"
#include "base/proc.h"
#include "base/rl_file.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "measure/sysinfo.h"

/* Put item under key, replacing what is there; false (and item freed) when item is NULL or out
 * of memory. */
static bool set_item(cJSON *o, const char *key, cJSON *item)
{
    if (!item || !cJSON_GetObjectItemCaseSensitive(o, key))
        return rl_json_attach(o, key, item);
    if (!cJSON_ReplaceItemInObjectCaseSensitive(o, key, item)) {
        cJSON_Delete(item);
        return false;
    }
    return true;
}

static rl_status oom(rl_error *err, const char *what)
{
    return rl_fail(err, RL_EINTERNAL, "out of memory building %s", what);
}

static cJSON *settings_json(const rl_sweep_opts *o, const int *threads, int nt, const int *depths,
                            int nd)
{
    cJSON *s = cJSON_CreateObject();
    if (!s)
        return NULL;
    bool ok = rl_json_add_str(s, "kind", "controlled");
    ok &= rl_json_add_int_array(s, "threads", threads, nt);
    ok &= rl_json_add_int_array(s, "depths", depths, nd);
    ok &= rl_json_add_num(s, "n_prompt", o->n_prompt);
    ok &= rl_json_add_num(s, "n_gen", o->n_gen);
    ok &= rl_json_add_num(s, "reps", o->reps);
    ok &= rl_json_add_num(s, "n_gpu_layers", o->n_gpu_layers);
    cJSON *ba = cJSON_AddArrayToObject(s, "bench_args");
    ok &= ba != NULL;
    for (size_t i = 0; ok && i < o->n_bench_args; i++)
        ok &= rl_json_push(ba, rl_json_str(o->bench_args[i]));
    ok &= rl_json_add_num(s, "timeout_s", o->timeout_s);
    if (o->target_ci_pct > 0) {
        ok &= rl_json_add_num(s, "target_ci_pct", o->target_ci_pct);
        ok &= rl_json_add_num(s, "max_reps", o->max_reps);
    }
    ok &= rl_json_add_str(s, "bytes_convention", rl_an_bytes_name(o->bytes));
    if (!ok) {
        cJSON_Delete(s);
        return NULL;
    }
    return s;
}

/* The command line's ranges (cmd_run.c, cmd_diagnose.c), which a resumed bundle's settings
 * are held to as well. */
#define MAX_TOKENS (1 << 24)
#define MAX_THREADS 4096

/* A whole number under settings.key, kept in *out when present (the command line's value
 * otherwise); RL_EINPUT naming the field when it is not a whole number in [lo, hi]. */
static rl_status setting_int(const cJSON *s, const char *key, int64_t lo, int64_t hi, int *out,
                             const char *path, rl_error *err)
{
    int64_t v;
    if (!rl_json_get(s, key))
        return RL_OK;
    if (!rl_json_get_i64(s, key, &v) || v < lo || v > hi)
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.%s is not a whole number from %lld to %lld: not resumed "
                       "(the bundle is left as it is)",
                       path, key, (long long)lo, (long long)hi);
    *out = (int)v;
    return RL_OK;
}

/* settings.key, a non-empty list of at most RL_SWEEP_MAX_LIST whole numbers in [lo, hi]. */
static rl_status setting_list(const cJSON *s, const char *key, int lo, int hi, int *out, int *n,
                              const char *path, rl_error *err)
{
    const cJSON *arr = rl_json_get(s, key), *it;
    int size = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    *n = 0;
    if (size < 1 || size > RL_SWEEP_MAX_LIST)
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.%s is not a list of 1 to %d whole numbers: not resumed (the "
                       "bundle is left as it is)",
                       path, key, RL_SWEEP_MAX_LIST);
    cJSON_ArrayForEach(it, arr)
    {
        double d = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!(d >= lo && d <= hi) || d != (double)(int)d)
            return rl_fail(err, RL_EINPUT,
                           "%s: settings.%s[%d] is not a whole number from %d to %d: not "
                           "resumed (the bundle is left as it is)",
                           path, key, *n, lo, hi);
        out[(*n)++] = (int)d;
    }
    return RL_OK;
}

/* settings.bench_args (absent: none), at most 64 strings, into args (borrowed from s) and o. */
static rl_status setting_args(const cJSON *s, rl_sweep_opts *o, const char **args, const char *path,
                              rl_error *err)
{
    const cJSON *arr = rl_json_get(s, "bench_args"), *it;
    size_t n = 0;
    if (arr && (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > 64))
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.bench_args is not a list of at most 64 strings: not resumed "
                       "(the bundle is left as it is)",
                       path);
    cJSON_ArrayForEach(it, arr)
    {
        if (!cJSON_IsString(it))
            return rl_fail(err, RL_EINPUT,
                           "%s: settings.bench_args[%zu] is not a string: not resumed (the bundle "
                           "is left as it is)",
                           path, n);
        if (rl_lbench_check_extra(it->valuestring, err) != RL_OK)
            return rl_fail(err, RL_EINPUT,
                           "%s: settings.bench_args[%zu] %s is refused (llama-roofline chooses "
                           "the output format): not resumed (the bundle is left as it is)",
                           path, n, it->valuestring);
        args[n++] = it->valuestring;
    }
    o->bench_args = args;
    o->n_bench_args = n;
    return RL_OK;
}

/* settings.timeout_s and settings.bytes_convention, when present, into o. */
static rl_status setting_limits(const cJSON *s, rl_sweep_opts *o, const char *path, rl_error *err)
{
    double t;
    if (rl_json_get(s, "timeout_s") &&
        (!rl_json_get_num(s, "timeout_s", &t) || !(t >= 1 && t <= 86400)))
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.timeout_s is not a number from 1 to 86400: not resumed (the "
                       "bundle is left as it is)",
                       path);
    if (rl_json_get(s, "timeout_s"))
        o->timeout_s = t;
    const char *conv = rl_json_get_str(s, "bytes_convention");
    if (conv && strcmp(conv, rl_an_bytes_name(RL_AN_BYTES_STREAMED)) == 0)
        o->bytes = RL_AN_BYTES_STREAMED;
    else if (conv && strcmp(conv, rl_an_bytes_name(RL_AN_BYTES_RESIDENT)) == 0)
        o->bytes = RL_AN_BYTES_RESIDENT;
    else if (rl_json_get(s, "bytes_convention"))
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.bytes_convention is neither streamed nor resident: not "
                       "resumed (the bundle is left as it is)",
                       path);
    return RL_OK;
}

/* Read the settings back from a bundle being resumed, checked like the command line. */
static rl_status settings_from(const cJSON *s, const char *path, rl_sweep_opts *o, int *threads,
                               int *nt, int *depths, int *nd, const char **args, rl_error *err)
{
    if (!cJSON_IsObject(s))
        return rl_fail(err, RL_EINPUT, "%s: the bundle to resume has no settings", path);
    rl_status st = setting_list(s, "threads", 1, MAX_THREADS, threads, nt, path, err);
    if (st == RL_OK)
        st = setting_args(s, o, args, path, err);
    if (st == RL_OK)
        st = setting_limits(s, o, path, err);
    if (st == RL_OK)
        st = setting_list(s, "depths", 0, MAX_TOKENS, depths, nd, path, err);
    if (st == RL_OK)
        st = setting_int(s, "n_prompt", 1, MAX_TOKENS, &o->n_prompt, path, err);
    if (st == RL_OK)
        st = setting_int(s, "n_gen", 1, MAX_TOKENS, &o->n_gen, path, err);
    if (st == RL_OK)
        st = setting_int(s, "reps", 1, 1000, &o->reps, path, err);
    if (st == RL_OK)
        st = setting_int(s, "n_gpu_layers", 0, 100000, &o->n_gpu_layers, path, err);
    if (st != RL_OK || !rl_json_get(s, "target_ci_pct"))
        return st;
    double pct;
    if (!rl_json_get_num(s, "target_ci_pct", &pct) || !(pct >= 0.1 && pct <= 100))
        return rl_fail(err, RL_EINPUT,
                       "%s: settings.target_ci_pct is not a number from 0.1 to 100: not resumed "
                       "(the bundle is left as it is)",
                       path);
    o->target_ci_pct = pct;
    return setting_int(s, "max_reps", o->reps, 1000, &o->max_reps, path, err);
}

/* The file at a resumed model's path is the one the bundle measured, as far as its size tells
 * (one file: gguf.file_bytes; a split model's size is its shards' sum, not checked here). */
static rl_status same_model(const cJSON *m, const char *mp, const struct stat *sb, const char *path,
                            int i, rl_error *err)
{
    const cJSON *g = rl_json_get(m, "gguf");
    double fb = 0, shards = 1;
    rl_json_get_num(g, "n_shards", &shards);
    if (!rl_json_get_num(g, "file_bytes", &fb) || shards > 1 || fb == (double)sb->st_size)
        return RL_OK;
    char safe[512];
    return rl_fail(err, RL_EINPUT,
                   "%s: models[%d].path %s holds %lld bytes, not the %.0f of the model this bundle "
                   "measured: put that model back, or start a new bundle with another -o (the "
                   "bundle is left as it is)",
                   path, i, rl_tty_escape(mp, safe, sizeof safe), (long long)sb->st_size, fb);
}

/* Each model of a resumed bundle: a string id, a runs array and a path to a regular file with
 * no control bytes, checked before llama-bench is started on any of them. */
static rl_status models_from(const cJSON *models, const char *path, rl_error *err)
{
    int i = 0;
    const cJSON *m;
    if (!cJSON_IsArray(models) || cJSON_GetArraySize(models) == 0)
        return rl_fail(err, RL_EINPUT, "%s: the bundle to resume has no models", path);
    cJSON_ArrayForEach(m, models)
    {
        const char *mp = rl_json_get_str(m, "path");
        bool ctl = false;
        for (const unsigned char *q = (const unsigned char *)mp; q && *q; q++)
            ctl |= *q < 0x20 || *q == 0x7f;
        struct stat sb;
        if (!mp || !*mp || ctl || stat(mp, &sb) != 0 || !S_ISREG(sb.st_mode))
            return rl_fail(err, RL_EINPUT,
                           "%s: models[%d].path is %s: not resumed (the bundle is left as it is)",
                           path, i,
                           !mp || !*mp ? "missing"
                           : ctl       ? "a name with control characters"
                                       : "not a regular file that exists");
        if (!rl_json_get_str(m, "id") || !cJSON_IsArray(rl_json_get(m, "runs")))
            return rl_fail(err, RL_EINPUT,
                           "%s: models[%d] lacks its id or runs: not resumed (the bundle is left "
                           "as it is)",
                           path, i);
        for (const cJSON *o = models->child; o != m; o = o->next)
            if (!strcmp(rl_json_get_str(o, "id"), rl_json_get_str(m, "id")))
                return rl_fail(err, RL_EINPUT,
                               "%s: models[%d].id is also an earlier model's: not resumed (the "
                               "bundle is left as it is)",
                               path, i);
        rl_status st = same_model(m, mp, &sb, path, i, err);
        if (st != RL_OK)
            return st;
        i++;
    }
    return RL_OK;
}

/* ---- one llama-bench invocation ---------------------------------------------------------- */

typedef struct {
    rl_lbench_feeder *feeder;
    cJSON *records; /* the run's "records" array */
    cJSON *bundle;
    const char *path;
    rl_status write_st;
    rl_error write_err;
    rl_status feed_st;
    rl_error feed_err;
    bool built;         /* false once a record could not be kept (out of memory) */
    int threads, depth; /* what llama-bench was asked for */
    char mismatch[160]; /* set when a record says it measured something else (not kept) */
    bool has_decode;    /* a decode record was kept */
} run_ctx;

static void save_new_records(run_ctx *c, size_t n_new)
{
    const rl_lbench_set *set = rl_lbench_feeder_set(c->feeder);
    for (size_t i = set->n_records - n_new; i < set->n_records; i++) {
        const rl_lbench_record *r = &set->records[i];
        if ((r->n_threads && r->n_threads != c->threads) || r->n_depth != c->depth) {
            if (!c->mismatch[0])
                rl_snprintf(c->mismatch, sizeof c->mismatch,
                            "its records are at n_threads %lld, n_depth %lld, not the %d "
                            "threads and depth %d asked (not kept)",
                            (long long)r->n_threads, (long long)r->n_depth, c->threads, c->depth);
            continue;
        }
        c->has_decode |= r->kind == RL_LBENCH_DECODE;
        c->built &= rl_json_push(c->records, cJSON_Duplicate(r->raw, 1));
    }
    if (n_new && c->write_st == RL_OK)
        c->write_st = rl_bundle_write(c->bundle, c->path, &c->write_err);
}

static void on_output(void *ud, int stream, const char *data, size_t n, double t)
{
    (void)t;
    run_ctx *c = ud;
    if (stream != RL_PROC_STDOUT || c->feed_st != RL_OK)
        return;
    size_t n_new = 0;
    c->feed_st = rl_lbench_feed(c->feeder, data, n, &n_new, &c->feed_err);
    save_new_records(c, n_new);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGINT: return "SIGINT";
    default: return "a signal";
    }
}

/* The run's rates from every record it holds (all its invocations), recomputed; false when
 * out of memory. */
static bool set_rates(cJSON *run, int d)
{
    cJSON *records = cJSON_GetObjectItemCaseSensitive(run, "records");
    size_t n = (size_t)cJSON_GetArraySize(records);
    rl_lbench_set set = {0};
    set.records = rl_calloc(n ? n : 1, sizeof *set.records);
    bool ok = set.records != NULL;
    const cJSON *raw;
    cJSON_ArrayForEach(raw, records)
    {
        rl_error e;
        cJSON *dup = set.records ? cJSON_Duplicate(raw, 1) : NULL;
        ok &= dup != NULL;
        if (dup && rl_lbench_record_from_json(dup, &set.records[set.n_records], &e) == RL_OK)
            set.n_records++;
    }
    ok &= set_item(
        run, "decode",
        rl_bundle_lbench_rate(set.records, set.n_records, RL_LBENCH_DECODE, d, "no decode record"));
    ok &= set_item(run, "prefill",
                   rl_bundle_lbench_rate(set.records, set.n_records, RL_LBENCH_PREFILL, d,
                                         "no prefill record"));
    rl_lbench_set_free(&set);
    return ok;
}

/* Run llama-bench once with reps repetitions; appends its records to the run's and recomputes
 * the run's rates. The first invocation (!append) sets the run's status, error and process
 * fields; a later one (more repetitions for --target-ci) leaves them and reports its own
 * outcome in *ok and reason. RL_EINTERRUPTED when interrupted, RL_EOUTPUT when the bundle
 * cannot be written, else RL_OK however llama-bench ended. */
static rl_status bench_once(const char *bin, const rl_sweep_opts *o, const char *model, int t,
                            int d, int reps, bool append, cJSON *run, cJSON *bundle,
                            const char *path, bool *ok, char *reason, size_t reason_cap,
                            rl_error *err)
{
    rl_lbench_params p = {.model = model, .threads = t, .n_prompt = o->n_prompt, .n_gen = o->n_gen};
    p.reps = reps, p.depth = d, p.n_gpu_layers = o->n_gpu_layers, p.extra = o->bench_args;
    p.n_extra = o->n_bench_args, p.decode_only = o->decode_only;
    char **argv = NULL;
    rl_status st = rl_lbench_argv(bin, &p, &argv, err);
    if (st != RL_OK)
        return st;
    /* the first invocation's command line stands for the run */
    cJSON *records = append ? cJSON_GetObjectItemCaseSensitive(run, "records") : NULL;
    if (!append) {
        cJSON *av = cJSON_CreateArray();
        bool built = av != NULL;
        for (size_t i = 0; built && argv[i]; i++)
            built = rl_json_push(av, rl_json_str(argv[i]));
        if (!built)
            cJSON_Delete(av);
        records = built && set_item(run, "argv", av) ? cJSON_CreateArray() : NULL;
        if (records && !set_item(run, "records", records))
            records = NULL; /* freed by set_item */
    }
    run_ctx c = {.feeder = rl_lbench_feeder_new(),
                 .records = records,
                 .bundle = bundle,
                 .path = path,
                 .write_st = RL_OK,
                 .feed_st = RL_OK,
                 .built = true,
                 .threads = t,
                 .depth = d};
    if (!c.feeder || !records) {
        rl_lbench_argv_free(argv);
        rl_lbench_feeder_free(c.feeder);
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    }
    rl_proc_opts po = {0};
    po.argv = (const char *const *)argv;
    po.timeout = o->timeout_s;
    po.on_output = on_output;
    po.ud = &c;
    rl_proc_result pr;
    rl_status pst = rl_proc_run(&po, &pr, err);
    rl_lbench_argv_free(argv);
    if (pst != RL_OK && pst != RL_EINTERRUPTED) {
        rl_lbench_feeder_free(c.feeder);
        return pst; /* RL_EMISSING: the binary vanished */
    }
    size_t n_new = 0;
    rl_error fin = {RL_OK, ""};
    rl_status fst = c.feed_st == RL_OK ? rl_lbench_feed_finish(c.feeder, &n_new, &fin) : c.feed_st;
    if (c.feed_st == RL_OK)
        save_new_records(&c, n_new);
    rl_lbench_set set = {0};
    rl_lbench_feeder_take(c.feeder, &set);
    rl_lbench_feeder_free(c.feeder);

    char *errtext = rl_proc_kept_text(&pr.err);
    char summary[512];
    rl_lbench_stderr_summary(errtext ? errtext : "", errtext ? strlen(errtext) : 0, summary,
                             sizeof summary);
    free(errtext);

    const char *status = "ok";
    reason[0] = '\0';
    if (pst == RL_EINTERRUPTED || pr.interrupted) {
        status = "interrupted";
        rl_snprintf(reason, reason_cap, "interrupted after %.1f s", pr.elapsed);
    } else if (pr.timed_out) {
        status = "timeout";
        rl_snprintf(reason, reason_cap,
                    "llama-bench timed out after %.0f s and was stopped (raise --timeout)",
                    o->timeout_s);
    } else if (pr.term_signal) {
        status = "crashed";
        rl_snprintf(reason, reason_cap, "llama-bench was killed by %s: %s",
                    signal_name(pr.term_signal), summary);
    } else if (pr.exit_code != 0) {
        status = "failed";
        rl_snprintf(reason, reason_cap, "llama-bench exited %d: %s", pr.exit_code, summary);
    } else if (!c.has_decode) {
        status = "failed";
        rl_snprintf(reason, reason_cap, "llama-bench printed no decode record: %s",
                    fst != RL_OK    ? fin.msg
                    : c.mismatch[0] ? c.mismatch
                                    : "the output held prefill only");
    }
    *ok = strcmp(status, "ok") == 0;
    bool built = c.built;
    if (!append) {
        built &= set_item(run, "status", cJSON_CreateString(status));
        if (reason[0])
            built &= set_item(run, "error", rl_json_str(reason));
        built &=
            set_item(run, "exit_code",
                     pr.exit_code >= 0 ? cJSON_CreateNumber(pr.exit_code) : cJSON_CreateNull());
        if (pr.term_signal)
            built &= set_item(run, "signal", cJSON_CreateNumber(pr.term_signal));
        built &= set_item(run, "stderr_summary", rl_json_str(summary));
    }
    double before = 0, bytes_before = 0;
    rl_json_get_num(run, "elapsed_s", &before);
    rl_json_get_num(run, "stdout_bytes", &bytes_before);
    built &= set_item(run, "elapsed_s", cJSON_CreateNumber((append ? before : 0) + pr.elapsed));
    built &= set_item(run, "stdout_bytes",
                      rl_json_u64((append ? (uint64_t)bytes_before : 0) + pr.out.total));
    built &= set_rates(run, d);
    rl_proc_result_free(&pr);
    rl_lbench_set_free(&set);
    if (!built)
        return oom(err, "a run");
    if (c.write_st != RL_OK) {
        *err = c.write_err;
        return c.write_st;
    }
    return pst == RL_EINTERRUPTED ? rl_fail(err, RL_EINTERRUPTED, "interrupted") : RL_OK;
}

/* Half-width of the decode 95% CI as a percentage of its mean; < 0 when unavailable. */
static double decode_ci_pct(const cJSON *run)
{
    const cJSON *st =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(run, "decode"), "stats");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(st, "ci95");
    double mean, hi;
    if (!rl_json_get_num(st, "mean", &mean) || !rl_json_get_num(ci, "high", &hi) || mean <= 0)
        return -1;
    return 100.0 * (hi - mean) / mean;
}

/* One run: llama-bench with --reps; then, with --target-ci, more invocations in batches of
 * --reps until the decode CI half-width is under the target or --max-reps is reached, and a
 * "target_ci" object saying which happened. */
static rl_status measure_run(const char *bin, const rl_sweep_opts *o, const char *model, int t,
                             int d, cJSON *run, cJSON *bundle, const char *path, rl_error *err)
{
    bool ok = false;
    char reason[768];
    rl_status st = bench_once(bin, o, model, t, d, o->reps, false, run, bundle, path, &ok, reason,
                              sizeof reason, err);
    if (st != RL_OK || !ok || o->target_ci_pct <= 0)
        return st;
    int done = o->reps, invocations = 1;
    const char *stopped = NULL;
    char why[800] = "";
    double pct = decode_ci_pct(run);
    while (st == RL_OK) {
        pct = decode_ci_pct(run);
        if (pct >= 0 && pct <= o->target_ci_pct) {
            stopped = "reached";
            break;
        }
        if (done >= o->max_reps) {
            stopped = "max_reps";
            break;
        }
        int batch = o->reps < o->max_reps - done ? o->reps : o->max_reps - done;
        rl_progress("  t=%d depth %d: decode CI +/-%.1f%%, %d more repetitions", t, d, pct, batch);
        st = bench_once(bin, o, model, t, d, batch, true, run, bundle, path, &ok, reason,
                        sizeof reason, err);
        invocations++;
        if (st == RL_OK && !ok) {
            stopped = "batch_failed";
            rl_snprintf(why, sizeof why, "a batch of repetitions failed: %s", reason);
            break;
        }
        done += batch;
    }
    cJSON *tc = cJSON_CreateObject();
    if (!tc)
        return oom(err, "a run's target_ci");
    bool built = rl_json_add_str(tc, "kind", "controlled");
    built &= rl_json_add_num(tc, "target_pct", o->target_ci_pct);
    built &= rl_json_add_num(tc, "max_reps", o->max_reps);
    built &= rl_json_add_num(tc, "reps", done);
    built &= rl_json_add_num(tc, "invocations", invocations);
    pct = decode_ci_pct(run);
    built &= rl_json_add_num_or_null(tc, "half_width_pct", pct, pct >= 0);
    built &= rl_json_add_str(tc, "stopped", stopped ? stopped : "interrupted");
    built &= rl_json_add_bool(tc, "reached", stopped && strcmp(stopped, "reached") == 0);
    if (why[0])
        built &= rl_json_add_str(tc, "reason", why);
    if (!built)
        cJSON_Delete(tc);
    if (!built || !set_item(run, "target_ci", tc))
        return oom(err, "a run's target_ci");
    return st;
}

/* The run's measured fields moved into a new object (kind measured) appended to its
 * "attempts"; threads, depth, attempts and a calibration run's pass stay. false when out of
 * memory. */
static bool keep_attempt(cJSON *run)
{
    cJSON *att = cJSON_GetObjectItemCaseSensitive(run, "attempts");
    if (!att && !(att = cJSON_AddArrayToObject(run, "attempts")))
        return false;
    cJSON *a = cJSON_CreateObject();
    if (!a || !rl_json_add_str(a, "kind", "measured")) {
        cJSON_Delete(a);
        return false;
    }
    cJSON *c = run->child;
    while (c) {
        cJSON *next = c->next;
        if (strcmp(c->string, "threads") != 0 && strcmp(c->string, "depth") != 0 &&
            strcmp(c->string, "attempts") != 0 && strcmp(c->string, "pass") != 0)
            cJSON_AddItemToObject(a, c->string, cJSON_DetachItemViaPointer(run, c));
        c = next;
    }
    return rl_json_push(att, a);
}

/* One run with the machine's state around it: --wait-quiet first, the interval recorded as
 * the run's "machine", and with --retry-disturbed a disturbed run measured again (the earlier
 * tries kept in "attempts"; the analysis reads the run itself, the last try). */
rl_status rl_sweep_run_one(const char *bin, const rl_sweep_opts *o, const char *model, int t, int d,
                           cJSON *run, cJSON *bundle, const char *path, rl_error *err)
{
    for (int attempt = 0;; attempt++) {
        if (o->wait_quiet_s > 0 && !rl_quiet_wait(o->quiet_root, o->wait_quiet_s, o->quiet, NULL) &&
            rl_interrupted)
            return rl_fail(err, RL_EINTERRUPTED, "interrupted while waiting for a quiet machine");
        rl_quiet_snap q0, q1;
        rl_quiet_take(o->quiet_root, &q0, NULL);
        rl_status st = measure_run(bin, o, model, t, d, run, bundle, path, err);
        rl_quiet_take(o->quiet_root, &q1, NULL);
        rl_quiet_interval q;
        rl_quiet_between(&q0, &q1, o->quiet, &q);
        if (!set_item(run, "machine", rl_quiet_to_json(&q)))
            return oom(err, "a run's machine state");
        const char *rs = rl_json_get_str(run, "status");
        if (st != RL_OK || !q.disturbed || attempt >= o->retry_disturbed || !rs ||
            strcmp(rs, "ok") != 0)
            return st;
        rl_progress_done();
        rl_tty_printf(stderr,
                      "llama-roofline %s: t=%d depth %d was disturbed (%s): measuring it again "
                      "(%d of %d)\n",
                      o->command, t, d, q.why, attempt + 1, o->retry_disturbed);
        if (!keep_attempt(run) || !set_item(run, "status", cJSON_CreateString("running")))
            return oom(err, "a run's attempts");
    }
}

static cJSON *find_run(cJSON *runs, int t, int d)
{
    cJSON *r;
    cJSON_ArrayForEach(r, runs)
    {
        int64_t rt, rd;
        if (rl_json_get_i64(r, "threads", &rt) && rl_json_get_i64(r, "depth", &rd) && rt == t &&
            rd == d)
            return r;
    }
    return NULL;
}

cJSON *rl_sweep_build_json(const char *bin)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || !rl_json_add_str(o, "llama_bench", bin)) {
        cJSON_Delete(o);
        return NULL;
    }
    char **argv = rl_lbench_version_argv(bin);
    rl_proc_opts po = {0};
    po.argv = (const char *const *)argv;
    po.timeout = 30;
    rl_proc_result pr;
    rl_error e;
    rl_lbench_build b;
    bool ok = false;
    if (argv && rl_proc_run(&po, &pr, &e) == RL_OK) {
        char *text = rl_proc_kept_text(&pr.err);
        char *out = rl_proc_kept_text(&pr.out);
        ok = (text && rl_lbench_build_from_text(text, strlen(text), &b, &e) == RL_OK) ||
             (out && rl_lbench_build_from_text(out, strlen(out), &b, &e) == RL_OK);
        free(text);
        free(out);
        rl_proc_result_free(&pr);
    }
    rl_lbench_argv_free(argv);
    bool built = rl_json_add_str(o, "kind", "measured");
    if (ok) {
        built &= rl_json_add_str_or_null(o, "build_commit", b.commit);
        built &= rl_json_add_u64_or_null(o, "build_number", (uint64_t)(b.number > 0 ? b.number : 0),
                                         b.number > 0);
        built &= rl_json_add_str_or_null(o, "version", b.version);
    } else {
        built &= rl_json_add_unavailable(o, "build", "llama-bench --version printed no build line");
    }
    if (!built) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *rl_sweep_model_json(const char *path, size_t index, rl_error *err)
{
    rl_gguf_model m;
    if (rl_gguf_model_load(path, &m, err) != RL_OK) {
        rl_gguf_model_free(&m);
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    char id[32];
    snprintf(id, sizeof id, "m%zu", index + 1);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    bool built = o && rl_json_add_str(o, "id", id);
    built &= rl_json_add_str(o, "path", path);
    built &= rl_json_add_str(o, "name", base);
    built &= rl_json_attach(o, "gguf", rl_gguf_model_to_json(&m, false));
    built &= cJSON_AddArrayToObject(o, "runs") != NULL;
    rl_gguf_model_free(&m);
    if (!built) {
        cJSON_Delete(o);
        oom(err, "a model entry");
        return NULL;
    }
    return o;
}

/* false when out of memory */
static bool add_run_warning(cJSON *b, const char *code, const char *text, const char *model_id)
{
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, "run_warnings");
    if (!arr)
        arr = cJSON_AddArrayToObject(b, "run_warnings");
    cJSON *w = cJSON_CreateObject();
    if (!arr || !w) {
        cJSON_Delete(w);
        return false;
    }
    bool ok = rl_json_add_str(w, "code", code);
    ok &= rl_json_add_str(w, "text", text);
    cJSON *ap = cJSON_AddArrayToObject(w, "applies_to");
    ok &= ap != NULL;
    if (ok && model_id)
        ok &= rl_json_push(ap, cJSON_CreateString(model_id));
    if (!ok) {
        cJSON_Delete(w);
        return false;
    }
    return rl_json_push(arr, w);
}

/* CPU seconds this process has used (user + system, its own threads, not its children). */
static double self_cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* One sweep's working state: the options (a copy: --resume reads the settings back into it),
 * the llama-bench binary, the thread and depth lists, this machine. */
typedef struct {
    rl_sweep_opts o;
    const rl_sweep_opts *cli; /* the options as the command line gave them */
    rl_sweep_state *s;
    const char *bench_args[64]; /* a resumed bundle's settings.bench_args (borrowed) */
    char *bin;
    int threads[RL_SWEEP_MAX_LIST], depths[RL_SWEEP_MAX_LIST], nt, nd;
    rl_sysinfo si;
    bool bracketing; /* ceiling probes are taken (cmd/bracket.h) */
    bool ran;        /* a llama-bench invocation ran since the last probe */
} sweep_ctx;

/* ---- --resume: the options given against the bundle's plan ------------------------------ */

void rl_sweep_give(rl_sweep_given *given, size_t *n, const char *flag, const char *arg,
                   const char *key)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(given[i].flag, flag) == 0 && strcmp(given[i].key, key) == 0) {
            given[i].arg = arg;
            return;
        }
    if (*n < RL_SWEEP_MAX_GIVEN)
        given[(*n)++] = (rl_sweep_given){flag, arg, key};
}

/* The ceiling a bundle holds, or the options would measure, in words; "" when the bundle has
 * none yet (its ceiling is still to be measured, so any option is its plan). */
static void ceiling_words(const cJSON *membw, const rl_sweep_opts *o, char *buf, size_t cap)
{
    bool avail = true, quick = false;
    double peak = 0;
    const char *kind = rl_json_get_str(membw, "kind");
    if (!o && !membw)
        rl_snprintf(buf, cap, "%s", "");
    else if (o ? o->skip_membw : rl_json_get_bool(membw, "available", &avail) && !avail)
        rl_snprintf(buf, cap, "%s", "skipped (--skip-membw)");
    else if (o ? o->peak_bw > 0
               : kind && strcmp(kind, "controlled") == 0 &&
                     rl_json_get_num(membw, "peak_read_GBs", &peak))
        rl_snprintf(buf, cap, "--peak-bw %g", o ? o->peak_bw : peak);
    else if (o ? o->quick_membw : (rl_json_get_bool(membw, "quick", &quick), quick))
        rl_snprintf(buf, cap, "%s", "measured (quick)");
    else
        rl_snprintf(buf, cap, "%s", "measured");
}

/* Whether path is one of the files of paths (n of them, by device and inode). */
static bool one_of(const char *path, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rl_same_file(path, paths[i]))
            return true;
    return false;
}

/* Whether the -m files are the bundle's models: each of them one of the bundle's, and each of
 * the bundle's one of them (any order). */
static bool same_models(const rl_sweep_opts *cli, const cJSON *models)
{
    const char *have[RL_SWEEP_MAX_MODELS];
    size_t n = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        if (n == RL_SWEEP_MAX_MODELS)
            return false;
        have[n++] = rl_json_get_str(m, "path");
    }
    for (size_t i = 0; i < cli->n_models; i++)
        if (!one_of(cli->models[i], have, n))
            return false;
    for (size_t i = 0; i < n; i++)
        if (!one_of(have[i], cli->models, cli->n_models))
            return false;
    return true;
}

/* The bundle's model paths, joined, into out. */
static void model_words(const cJSON *models, rl_sbuf *out)
{
    const cJSON *m;
    size_t k = 0;
    cJSON_ArrayForEach(m, models)
    {
        const char *p = rl_json_get_str(m, "path");
        rl_sbuf_printf(out, "%s%s", k++ ? ", " : "", p ? p : "?");
    }
}

/* One given option against the resumed bundle's plan: RL_EINPUT naming it, its value and the
 * bundle's, and what to do, when they differ. */
static rl_status plan_check(sweep_ctx *c, const rl_sweep_given *g, rl_error *err)
{
    const cJSON *b = c->s->bundle;
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(b, "settings");
    rl_sbuf want = {0}, gave = {0}; /* the bundle's value; the option's, when it has no arg */
    bool same;
    if (strcmp(g->key, RL_SWEEP_KEY_MODELS) == 0) {
        same = same_models(c->cli, rl_json_get(b, "models"));
        model_words(rl_json_get(b, "models"), &want);
        for (size_t i = 0; i < c->cli->n_models; i++)
            rl_sbuf_printf(&gave, "%s%s", i ? ", " : " (", c->cli->models[i]);
        rl_sbuf_printf(&gave, ")");
    } else if (strcmp(g->key, RL_SWEEP_KEY_CEILING) == 0) {
        /* each option against what it decides: --peak-bw the value, --skip-membw none, a
         * quick one how a measured ceiling was measured; a bundle without one yet takes any */
        char have[64], wish[64];
        ceiling_words(rl_json_get(b, "membw"), NULL, have, sizeof have);
        ceiling_words(NULL, c->cli, wish, sizeof wish);
        bool peak = strcmp(g->flag, "--peak-bw") == 0, skip = strcmp(g->flag, "--skip-membw") == 0;
        same = !*have || (peak || skip ? strcmp(have, wish) == 0
                                       : strncmp(have, "measured", 8) != 0 ||
                                             strcmp(have, "measured (quick)") == 0);
        rl_sbuf_printf(&want, "%s", have);
    } else {
        rl_sweep_opts o = *c->cli;
        if (strcmp(g->key, "max_reps") == 0 && o.target_ci_pct <= 0)
            o.target_ci_pct = 1; /* settings hold max_reps only beside a target */
        cJSON *cli = settings_json(&o, o.threads, o.n_threads, o.depths, o.n_depths);
        const cJSON *x = rl_json_get(set, g->key), *y = rl_json_get(cli, g->key);
        same = (!x && !y) || (x && y && cJSON_Compare(x, y, true));
        char *tx = x ? cJSON_PrintUnformatted(x) : NULL, *ty = y ? cJSON_PrintUnformatted(y) : NULL;
        rl_sbuf_printf(&want, "%s", tx ? tx : "none");
        rl_sbuf_printf(&gave, " (%s %s)", g->key, ty ? ty : "none");
        cJSON_free(tx);
        cJSON_free(ty);
        cJSON_Delete(cli);
    }
    char *w = rl_sbuf_take(&want), *v = rl_sbuf_take(&gave);
    rl_status st = RL_OK;
    if (!same) {
        char sa[1024], sd[512], sw[1024];
        if (g->arg)
            rl_snprintf(sa, sizeof sa, " %s", g->arg);
        else
            rl_snprintf(sa, sizeof sa, "%s", v ? v : "");
        char *e = rl_tty_escape_dup(sa);
        st = rl_fail(err, RL_EINPUT,
                     "%s%s does not match the bundle in %s, planned with %s %s: drop %s to "
                     "resume it with its own plan, or start a new bundle with another -o",
                     g->flag, e ? e : "", rl_tty_escape(c->o.out_dir, sd, sizeof sd), g->key,
                     rl_tty_escape(w ? w : "?", sw, sizeof sw), g->flag);
        free(e);
    }
    free(w);
    free(v);
    return st;
}

/* --resume: the bundle in the output directory, its settings read back into the options. */
static rl_status sweep_resume(sweep_ctx *c, rl_error *err)
{
    rl_status st = rl_bundle_load(c->s->path, &c->s->bundle, err);
    cJSON *b = c->s->bundle;
    const char *cmd = b ? rl_json_get_str(b, "command") : NULL;
    if (st == RL_OK && (!cmd || strcmp(cmd, c->o.command) != 0))
        st = rl_fail(err, RL_EINPUT, "%s: a bundle of `%s`, not of `%s`: nothing to resume",
                     c->s->path, cmd ? cmd : "?", c->o.command);
    if (st == RL_OK)
        st = settings_from(cJSON_GetObjectItemCaseSensitive(b, "settings"), c->s->path, &c->o,
                           c->threads, &c->nt, c->depths, &c->nd, c->bench_args, err);
    if (st == RL_OK)
        st = models_from(rl_json_get(b, "models"), c->s->path, err);
    for (size_t i = 0; st == RL_OK && i < c->cli->n_given; i++)
        st = plan_check(c, &c->cli->given[i], err);
    if (st == RL_OK)
        c->s->bytes = c->o.bytes;
    if (st != RL_OK) {
        cJSON_Delete(b);
        c->s->bundle = NULL;
    }
    return st;
}

/* A new bundle: the thread and depth lists, the environment, the settings, the models. */
static rl_status sweep_new(sweep_ctx *c, rl_error *err)
{
    const rl_sweep_opts *o = &c->o;
    rl_status st = RL_OK;
    if (o->n_threads) {
        memcpy(c->threads, o->threads, sizeof c->threads);
        c->nt = o->n_threads;
    } else {
        c->nt = rl_membw_default_threads(c->si.logical_cores > 0 ? c->si.logical_cores : 1,
                                         c->si.physical_cores, c->threads, RL_SWEEP_MAX_LIST);
    }
    if (o->n_depths) {
        memcpy(c->depths, o->depths, sizeof c->depths);
        c->nd = o->n_depths;
    } else {
        c->depths[0] = 0;
        c->nd = 1;
    }
    cJSON *b = c->s->bundle = rl_bundle_new(o->command, o->argc, o->argv);
    if (!b)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    cJSON *src = cJSON_AddObjectToObject(b, "source");
    bool built = src && rl_json_add_str(src, "kind", "measured");
    built &= rl_json_attach(b, "environment", rl_sysinfo_to_json(&c->si));
    built &= rl_json_attach(b, "settings", settings_json(o, c->threads, c->nt, c->depths, c->nd));
    cJSON *models = cJSON_AddArrayToObject(b, "models");
    if (!built || !models)
        return oom(err, "the bundle");
    for (size_t i = 0; st == RL_OK && i < o->n_models; i++) {
        cJSON *m = rl_sweep_model_json(o->models[i], i, err);
        if (!m)
            st = err->status;
        else if (!rl_json_push(models, m))
            st = oom(err, "the bundle");
    }
    if (st == RL_OK)
        st = rl_bundle_write(b, c->s->path, err);
    return st;
}

/* The option that names the output directory. */
static const char *out_flag(const sweep_ctx *c)
{
    return strcmp(c->o.command, "advise") == 0 ? "--dir" : "-o";
}

/* The output directory locked for this process (before the bundle is read or anything is
 * measured). A --resume of a missing directory: left to sweep_resume to report. */
static rl_status sweep_lock(sweep_ctx *c, rl_error *err)
{
    if (c->o.resume && access(c->o.out_dir, F_OK) != 0)
        return RL_OK;
    char hint[32];
    rl_snprintf(hint, sizeof hint, "choose another %s", out_flag(c));
    return rl_output_lock(c->s->path, c->o.out_dir, hint, err);
}

/* No input is one of the outputs (bundle.json, report.html): the models (given, or the resumed
 * bundle's) and the llama-bench binary (sweep.h). */
static rl_status sweep_check_inputs(const sweep_ctx *c, rl_error *err)
{
    char *page = rl_asprintf("%s/" RL_REPORT_FILE, c->o.out_dir);
    if (!page)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_path_arg out[] = {{out_flag(c), c->s->path}, {out_flag(c), page}};
    rl_status st = rl_check_outputs(&(rl_path_arg){"--llama-bench", c->bin}, 1, out, 2, err);
    for (size_t i = 0; st == RL_OK && !c->o.resume && i < c->o.n_models; i++)
        st = rl_check_outputs(&(rl_path_arg){"-m", c->o.models[i]}, 1, out, 2, err);
    const cJSON *m, *models = rl_json_get(c->s->bundle, "models");
    cJSON_ArrayForEach(m, (c->o.resume ? models : NULL))
    {
        if (st == RL_OK)
            st = rl_check_outputs(&(rl_path_arg){"models[].path", rl_json_get_str(m, "path")}, 1,
                                  out, 2, err);
    }
    free(page);
    return st;
}

/* The bundle to record into: resumed or new, checked writable, llama-bench found. */
static rl_status sweep_open(sweep_ctx *c, rl_error *err)
{
    rl_status st = RL_OK;
    if (c->o.resume && (st = sweep_lock(c, err)) == RL_OK)
        st = sweep_resume(c, err);
    if (st == RL_OK)
        st = rl_lbench_find(c->o.llama_bench, &c->bin, err);
    if (st == RL_OK)
        st = sweep_check_inputs(c, err);
    if (st == RL_OK && !c->o.resume)
        st = rl_mkdir_p(c->o.out_dir, "choose a writable -o directory", err);
    if (st == RL_OK && !c->o.resume)
        st = sweep_lock(c, err);
    if (st == RL_OK)
        st = rl_check_writable(c->s->path, err);
    if (st == RL_OK && !c->o.resume)
        st = sweep_new(c, err);
    if (st == RL_OK && !set_item(c->s->bundle, "llama_cpp", rl_sweep_build_json(c->bin)))
        st = oom(err, "the llama_cpp entry");
    return st;
}

/* The memory ceiling, unless the bundle has one (resumed) or --skip-membw. */
static rl_status sweep_ceiling(sweep_ctx *c, rl_error *err)
{
    cJSON *b = c->s->bundle;
    rl_status st = RL_OK;
    if (cJSON_GetObjectItemCaseSensitive(b, "membw"))
        return RL_OK;
    if (c->o.skip_membw) {
        if (!set_item(
                b, "membw",
                rl_json_unavailable("skipped with --skip-membw (no ceiling, so no probes of it)")))
            return oom(err, "the membw entry");
    } else {
        rl_membw_opts mo = {0};
        mo.isa = -1;
        mo.quick = c->o.quick_membw;
        mo.quiet = c->o.quiet;
        mo.quiet_root = c->o.quiet_root;
        mo.wait_quiet_s = c->o.wait_quiet_s;
        rl_membw_result res;
        if (!(c->o.peak_bw > 0)) /* --peak-bw: given, not measured */
            rl_progress("measuring the memory read ceiling");
        double c0 = self_cpu_s();
        st = rl_membw_ceiling(&mo, c->o.peak_bw, &c->si, &res, err);
        c->s->membw_cpu = self_cpu_s() - c0;
        rl_progress_done();
        if ((st == RL_OK || st == RL_EINTERRUPTED) &&
            !set_item(b, "membw", rl_membw_to_json(&res, NULL)))
            st = oom(err, "the membw entry");
        rl_membw_result_free(&res);
        if (st == RL_EINTERRUPTED) {
            rl_bundle_set_status(b, "interrupted", "interrupted while measuring the ceiling");
            rl_error e2;
            rl_bundle_write(b, c->s->path, &e2);
        }
    }
    if (st == RL_OK)
        st = rl_bundle_write(b, c->s->path, err);
    return st;
}

/* Progress through the sweep: invocations counted, those measured in this session and the
 * time they took, for the ETA (none until one was measured: a resumed run's skipped ones took
 * no time here). */
typedef struct {
    size_t done, total, measured;
    double elapsed;
} sweep_progress;

/* The bytes per token of the sweep's convention for model m: the GGUF's streamed bytes, or
 * the resident ones (llama-bench's model_size in run's first record, else the GGUF's); 0 when
 * unknown. */
static double run_bytes(const sweep_ctx *c, const cJSON *m, const cJSON *run)
{
    const cJSON *g = rl_json_get(m, "gguf");
    double v = 0;
    if (c->o.bytes == RL_AN_BYTES_STREAMED)
        return rl_json_get_num(g, "streamed_bytes", &v) ? v : 0;
    const cJSON *rec = cJSON_GetArrayItem(rl_json_get(run, "records"), 0);
    if (rl_json_get_num(rec, "model_size", &v) && v > 0)
        return v;
    return rl_json_get_num(g, "resident_bytes", &v) ? v : 0;
}

/* The line a finished run leaves: its decode rate, the GB/s that is at its bytes per token,
 * the share of the ceiling, and the prefill rate. */
static void finished_line(const sweep_ctx *c, const cJSON *m, const cJSON *run, const char *name,
                          size_t done, size_t total, int t, int d)
{
    double tg = 0, pp = 0, ceil = 0, bytes = run_bytes(c, m, run);
    rl_json_get_num(rl_json_get(rl_json_get(run, "decode"), "stats"), "mean", &tg);
    rl_json_get_num(rl_json_get(rl_json_get(run, "prefill"), "stats"), "mean", &pp);
    rl_json_get_num(rl_json_get(c->s->bundle, "membw"), "peak_read_GBs", &ceil);
    char safe[256], bw[96] = "", pre[48] = "";
    double gbs = tg * bytes / 1e9;
    if (gbs > 0 && ceil > 0)
        rl_snprintf(bw, sizeof bw, ", %.1f GB/s (%.0f%% of the %.1f GB/s ceiling)", gbs,
                    100 * gbs / ceil, ceil);
    else if (gbs > 0)
        rl_snprintf(bw, sizeof bw, ", %.1f GB/s", gbs);
    if (pp > 0)
        rl_snprintf(pre, sizeof pre, "; prefill %.1f tok/s", pp);
    rl_progress_line("[%zu/%zu] %s t=%d depth %d: decode %.2f tok/s%s%s", done, total,
                     rl_tty_escape(name, safe, sizeof safe), t, d, tg, bw, pre);
}

/* One (model, threads, depth) run: skipped when already "ok", else measured, its failure
 * reported and recorded as a warning, and the bundle rewritten. */
static rl_status sweep_one(sweep_ctx *c, cJSON *m, cJSON *runs, int t, int d, sweep_progress *p,
                           rl_error *err)
{
    cJSON *b = c->s->bundle;
    const char *mpath = rl_json_get_str(m, "path");
    const char *mid = rl_json_get_str(m, "id");
    const char *mname = rl_json_get_str(m, "name");
    cJSON *run = find_run(runs, t, d);
    const char *state = run ? rl_json_get_str(run, "status") : NULL;
    p->done++;
    if (state && strcmp(state, "ok") == 0)
        return RL_OK; /* resumed: already measured */
    if (!run) {
        run = cJSON_CreateObject();
        bool built = run && rl_json_add_num(run, "threads", t) && rl_json_add_num(run, "depth", d);
        if (!built)
            cJSON_Delete(run);
        if (!built || !rl_json_push(runs, run))
            return oom(err, "a run");
    }
    if (!set_item(run, "status", cJSON_CreateString("running")))
        return oom(err, "a run");
    c->ran = true;
    size_t done = p->done, total = p->total;
    char left[48] = "";
    if (p->measured > 0) /* an estimate only from runs this session measured */
        rl_snprintf(left, sizeof left, "  about %.0f s left",
                    p->elapsed / (double)p->measured * (double)(total - done + 1));
    rl_progress("[%zu/%zu] %s  t=%d  depth %d%s", done, total, mname, t, d, left);
    int64_t t0 = rl_proc_now_ns();
    rl_status st = rl_sweep_run_one(c->bin, &c->o, mpath, t, d, run, b, c->s->path, err);
    p->elapsed += (double)(rl_proc_now_ns() - t0) / 1e9;
    p->measured++;
    const char *rs = rl_json_get_str(run, "status");
    const char *re = rl_json_get_str(run, "error");
    if (rs && strcmp(rs, "ok") == 0)
        finished_line(c, m, run, mname, done, total, t, d);
    if (rs && strcmp(rs, "ok") != 0 && strcmp(rs, "interrupted") != 0 && re) {
        rl_progress_done();
        rl_tty_printf(stderr, "llama-roofline %s: %s t=%d depth %d: %s\n", c->o.command, mname, t,
                      d, re); /* llama-bench's words: escaped (rl_text.h) */
        char wt[1024];
        rl_snprintf(wt, sizeof wt, "%s at %d threads, depth %d: %s", mname, t, d, re);
        if (!add_run_warning(b, "llama_bench_failed", wt, mid) && st == RL_OK)
            st = oom(err, "a run warning");
    }
    rl_error we;
    rl_status ws = rl_bundle_write(b, c->s->path, &we);
    if (st == RL_OK && ws != RL_OK) {
        *err = we;
        st = ws;
    }
    return st;
}

/* One bracketing probe of the ceiling ("before", "between" or "after" the sweep), kept in
 * membw.bracket and written. */
static rl_status sweep_probe(sweep_ctx *c, const char *at, rl_error *err)
{
    cJSON *membw = cJSON_GetObjectItemCaseSensitive(c->s->bundle, "membw");
    rl_progress("measuring the memory read ceiling again (a short probe %s the sweep)",
                strcmp(at, "between") == 0 ? "during" : at);
    double c0 = self_cpu_s();
    double t_s = (double)(rl_proc_now_ns() - c->s->t_start) / 1e9;
    rl_status st = rl_bracket_probe(membw, at, t_s, &c->si, err);
    c->s->membw_cpu += self_cpu_s() - c0;
    rl_progress_done();
    c->ran = false;
    if (st == RL_OK)
        st = rl_bundle_write(c->s->bundle, c->s->path, err);
    return st;
}

/* The bracket's summary and its drift warning (one "ceiling_drift" run warning, replacing an
 * earlier session's). */
static rl_status sweep_bracket_end(sweep_ctx *c, rl_error *err)
{
    cJSON *b = c->s->bundle;
    char text[512];
    if (!rl_bracket_summarize(cJSON_GetObjectItemCaseSensitive(b, "membw"),
                              rl_defaults.bracket_limit_pct, text, sizeof text))
        return oom(err, "the ceiling's bracket");
    cJSON *rw = cJSON_GetObjectItemCaseSensitive(b, "run_warnings");
    for (cJSON *w = rw ? rw->child : NULL, *next; w; w = next) {
        next = w->next;
        const char *code = rl_json_get_str(w, "code");
        if (code && strcmp(code, "ceiling_drift") == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(rw, w));
    }
    if (text[0] && !add_run_warning(b, "ceiling_drift", text, NULL))
        return oom(err, "a run warning");
    return RL_OK;
}

/* The sweep: every model x thread count x depth, in order. */
static rl_status sweep_models(sweep_ctx *c, rl_error *err)
{
    cJSON *models = cJSON_GetObjectItemCaseSensitive(c->s->bundle, "models");
    size_t n_models = (size_t)cJSON_GetArraySize(models);
    sweep_progress p = {0, n_models * (size_t)c->nt * (size_t)c->nd, 0, 0};
    rl_status st = RL_OK;
    cJSON *m;
    cJSON_ArrayForEach(m, models)
    {
        if (c->bracketing && c->ran && n_models >= 3)
            st = sweep_probe(c, "between", err);
        if (st != RL_OK)
            break;
        cJSON *runs = cJSON_GetObjectItemCaseSensitive(m, "runs");
        if (!runs || !rl_json_get_str(m, "path") || !rl_json_get_str(m, "id"))
            return rl_fail(err, RL_EINPUT, "%s: a model entry lacks its path or runs", c->s->path);
        for (int ti = 0; st == RL_OK && ti < c->nt; ti++)
            for (int di = 0; st == RL_OK && di < c->nd; di++)
                st = sweep_one(c, m, runs, c->threads[ti], c->depths[di], &p, err);
        if (st != RL_OK)
            break;
    }
    return st;
}

rl_status rl_sweep_measure(const rl_sweep_opts *opts, rl_sweep_state *s, rl_error *err)
{
    memset(s, 0, sizeof *s);
    s->t_start = rl_proc_now_ns();
    sweep_ctx c = {0};
    c.o = *opts;
    c.cli = opts;
    c.s = s;
    s->quiet = opts->quiet;
    s->bytes = opts->bytes;
    s->path = rl_asprintf("%s/bundle.json", c.o.out_dir);
    rl_status st = s->path ? RL_OK : rl_fail(err, RL_EINTERNAL, "out of memory");
    rl_sysinfo_collect(&c.si);
    if (st == RL_OK)
        st = sweep_open(&c, err);
    if (st != RL_OK && c.o.resume && s->bundle) { /* refused before measuring: left untouched */
        cJSON_Delete(s->bundle);
        s->bundle = NULL;
    }
    if (st == RL_OK)
        st = sweep_ceiling(&c, err);
    bool oom_b = false;
    if (st == RL_OK && s->bundle)
        c.bracketing = rl_bracket_start(cJSON_GetObjectItemCaseSensitive(s->bundle, "membw"),
                                        c.o.no_bracket, &oom_b);
    if (st == RL_OK && oom_b)
        st = oom(err, "the ceiling's bracket");
    if (st == RL_OK && c.bracketing)
        st = sweep_probe(&c, "before", err);
    if (st == RL_OK && s->bundle)
        st = sweep_models(&c, err);
    if (st == RL_OK && c.bracketing && c.ran)
        st = sweep_probe(&c, "after", err);
    rl_error be;
    if (c.bracketing && sweep_bracket_end(&c, &be) != RL_OK && st == RL_OK) {
        *err = be;
        st = be.status;
    }
    rl_progress_done();
    free(c.bin);
    /* the summary of the machine's state, before the analysis reads its limits */
    cJSON *env = s->bundle ? cJSON_GetObjectItemCaseSensitive(s->bundle, "environment") : NULL;
    if (cJSON_IsObject(env) &&
        !set_item(env, "machine_state", rl_quiet_summary_json(s->bundle, s->quiet)) && st == RL_OK)
        st = oom(err, "the machine state summary");
    return st;
}

rl_status rl_sweep_close(rl_sweep_state *s, rl_status st, rl_error *err)
{
    cJSON *b = s->bundle;
    if (!b)
        return st;
    /* what the tool itself cost, apart from the measurements (membw's threads and the
     * llama-bench children): parsing, bookkeeping, writing the bundle */
    cJSON *ov = cJSON_CreateObject();
    bool built = ov && rl_json_add_str(ov, "kind", "measured");
    built &= rl_json_add_num(ov, "wall_s", (double)(rl_proc_now_ns() - s->t_start) / 1e9);
    built &= rl_json_add_num(ov, "membw_cpu_s", s->membw_cpu);
    built &= rl_json_add_num(ov, "tool_cpu_s", self_cpu_s() - s->membw_cpu);
    if (!built)
        cJSON_Delete(ov);
    if ((!built || !set_item(b, "overhead", ov)) && st == RL_OK)
        st = oom(err, "the overhead entry");
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(b, "analysis");
    int64_t ok_models = 0;
    rl_json_get_i64(an, "n_models_ok", &ok_models);
    if (st == RL_EINTERRUPTED)
        rl_bundle_set_status(b, "interrupted", "interrupted; --resume continues it");
    else if (st != RL_OK)
        rl_bundle_set_status(b, "failed", err->msg);
    else if (ok_models == 0)
        rl_bundle_set_status(b, "complete", "no model produced a decode rate");
    else
        rl_bundle_set_status(b, "complete", NULL);
    rl_error we;
    rl_status ws = rl_bundle_write(b, s->path, &we);
    if (st == RL_OK && ws != RL_OK) {
        *err = we;
        st = ws;
    }
    if (st == RL_OK && ok_models == 0)
        st = rl_fail(err, RL_NOTHING,
                     "no model produced a decode measurement (see the errors above and %s); "
                     "check that the GGUF files load with this llama-bench",
                     s->path);
    return st;
}

void rl_sweep_state_free(rl_sweep_state *s)
{
    free(s->path);
    s->path = NULL;
}
