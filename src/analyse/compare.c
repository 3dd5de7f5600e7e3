/* compare.c: inputs, rows, matching, verdicts and the environment diff. See compare.h. */
#include "analyse/compare.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/bundle.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"
#include "base/stats.h"

/* The row producers: one per bundle section that has something to compare (compare.h). */
static const rl_cmp_rows_fn producers[] = {rl_cmp_rows_decode, rl_cmp_rows_advice,
                                           rl_cmp_rows_client};

void rl_cmp_init(rl_cmp *c)
{
    memset(c, 0, sizeof *c);
    c->alpha = RL_CMP_ALPHA;
    c->min_effect_pct = RL_CMP_MIN_EFFECT_PCT;
}

static void row_free(rl_cmp_row *r, size_t n_inputs)
{
    free(r->group);
    free(r->key);
    free(r->subject);
    free(r->metric);
    free(r->unit);
    free(r->kind);
    for (size_t k = 0; k < r->n_keys; k++) {
        free(r->key_names[k]);
        free(r->key_values[k]);
    }
    if (r->cells)
        for (size_t i = 0; i < n_inputs; i++)
            free(r->cells[i].samples);
    free(r->cells);
}

void rl_cmp_free(rl_cmp *c)
{
    for (size_t i = 0; i < c->n_rows; i++)
        row_free(&c->rows[i], c->n_inputs);
    free(c->rows);
    for (size_t i = 0; i < c->n_facts; i++) {
        for (size_t k = 0; k < c->n_inputs; k++)
            free(c->facts[i].values[k]);
        free(c->facts[i].values);
    }
    free(c->facts);
    for (size_t i = 0; i < c->n_inputs; i++) {
        free(c->inputs[i].path);
        free(c->inputs[i].label);
        cJSON_Delete(c->inputs[i].bundle);
    }
    free(c->inputs);
    rl_cmp_init(c);
}

/* ---- inputs ---------------------------------------------------------------------------- */

/* "DIR" for ".../DIR/bundle.json" or ".../DIR/report.html", else the file name without its
 * extension. */
static char *label_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash && slash > path &&
        (strcmp(base, "bundle.json") == 0 || strcmp(base, "report.html") == 0)) {
        const char *start = slash - 1;
        while (start > path && start[-1] != '/')
            start--;
        if (slash - start > 0 && !(slash - start == 1 && *start == '.'))
            return rl_asprintf("%.*s", (int)(slash - start), start);
    }
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    return rl_asprintf("%.*s", (int)n, base);
}

rl_status rl_cmp_add_bundle(rl_cmp *c, const char *path, cJSON *bundle, rl_error *err)
{
    if (c->n_inputs == RL_CMP_MAX_INPUTS) {
        cJSON_Delete(bundle);
        return rl_fail(err, RL_EINPUT, "more than %d inputs: compare fewer at once",
                       RL_CMP_MAX_INPUTS);
    }
    if (c->n_inputs == c->cap_inputs) {
        size_t cap = c->cap_inputs ? c->cap_inputs * 2 : 8;
        rl_cmp_input *p = realloc(c->inputs, cap * sizeof *p);
        if (!p) {
            cJSON_Delete(bundle);
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        }
        c->inputs = p;
        c->cap_inputs = cap;
    }
    rl_cmp_input *in = &c->inputs[c->n_inputs];
    in->path = rl_strdup(path);
    in->label = label_of(path);
    in->bundle = bundle;
    c->n_inputs++;
    if (!in->path || !in->label)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    /* labels stay unique: a repeated one gets " (2)", " (3)" ... */
    size_t same = 0;
    for (size_t i = 0; i + 1 < c->n_inputs; i++)
        if (strncmp(c->inputs[i].label, in->label, strlen(in->label)) == 0 &&
            (c->inputs[i].label[strlen(in->label)] == '\0' ||
             strncmp(c->inputs[i].label + strlen(in->label), " (", 2) == 0))
            same++;
    if (same) {
        char *l = rl_asprintf("%s (%zu)", in->label, same + 1);
        if (!l)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        free(in->label);
        in->label = l;
    }
    return RL_OK;
}

static rl_status add_file(rl_cmp *c, const char *path, rl_error *err)
{
    cJSON *b = NULL;
    rl_status st = rl_bundle_load(path, &b, err);
    if (st != RL_OK)
        return st;
    return rl_cmp_add_bundle(c, path, b, err);
}

static bool is_regular(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The file a directory stands for when it holds one: bundle.json, else report.html. */
static char *dir_main_file(const char *dir)
{
    static const char *const names[] = {"bundle.json", "report.html"};
    for (size_t i = 0; i < 2; i++) {
        char *p = rl_asprintf("%s/%s", dir, names[i]);
        if (!p || is_regular(p))
            return p;
        free(p);
    }
    return NULL;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static rl_status add_dir(rl_cmp *c, const char *dir, rl_error *err)
{
    char *main_file = dir_main_file(dir);
    if (main_file) {
        rl_status st = add_file(c, main_file, err);
        free(main_file);
        return st;
    }
    DIR *d = opendir(dir);
    if (!d)
        return rl_fail(err, RL_EINPUT, "cannot open directory %s: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    rl_status st = RL_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == 100000) {
            st = rl_fail(err, RL_EINPUT, "%s holds more than 100000 entries", dir);
            break;
        }
        if (n == cap) {
            char **p = rl_grow(names, &cap, sizeof *p, 64);
            if (!p) {
                st = rl_fail(err, RL_EINTERNAL, "out of memory");
                break;
            }
            names = p;
        }
        if (!(names[n++] = rl_strdup(e->d_name))) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
    }
    closedir(d);
    if (st == RL_OK && n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    size_t before = c->n_inputs;
    for (size_t i = 0; st == RL_OK && i < n; i++) {
        char *p = rl_asprintf("%s/%s", dir, names[i]);
        if (!p) {
            st = rl_fail(err, RL_EINTERNAL, "out of memory");
            break;
        }
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            char *f = dir_main_file(p);
            if (f)
                st = add_file(c, f, err);
            free(f);
        } else if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
                   (ends_with(names[i], ".json") || ends_with(names[i], ".html"))) {
            rl_error e2 = {RL_OK, ""};
            rl_status s2 = add_file(c, p, &e2);
            if (s2 == RL_EINPUT) {
                char safe[1200];
                fprintf(stderr, "llama-roofline compare: skipping %s\n",
                        rl_tty_escape(e2.msg, safe, sizeof safe));
            } else if (s2 != RL_OK) {
                *err = e2;
                st = s2;
            }
        }
        free(p);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (st == RL_OK && c->n_inputs == before)
        st = rl_fail(err, RL_EINPUT,
                     "%s holds no bundle or report (give bundle.json or report.html files, or "
                     "directories of them)",
                     dir);
    return st;
}

rl_status rl_cmp_add_operand(rl_cmp *c, const char *operand, rl_error *err)
{
    struct stat sb;
    if (stat(operand, &sb) != 0)
        return rl_fail(err, RL_EINPUT, "cannot read %s: %s", operand, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return add_dir(c, operand, err);
    return add_file(c, operand, err);
}

rl_status rl_cmp_set_baseline(rl_cmp *c, const char *which, rl_error *err)
{
    uint64_t n;
    if (rl_parse_u64(which, &n)) {
        if (n < 1 || n > c->n_inputs)
            return rl_fail(err, RL_EINPUT,
                           "--baseline: '%s' is out of range: give an input number from 1 to %zu "
                           "or an input's path",
                           which, c->n_inputs);
        c->baseline = (size_t)(n - 1);
        return RL_OK;
    }
    for (size_t i = 0; i < c->n_inputs; i++)
        if (strcmp(c->inputs[i].path, which) == 0) {
            c->baseline = i;
            return RL_OK;
        }
    char safe[512];
    return rl_fail(err, RL_EINPUT,
                   "--baseline: '%s' is neither an input number nor the path of an input",
                   rl_tty_escape(which, safe, sizeof safe));
}

/* ---- rows ------------------------------------------------------------------------------ */

static rl_cmp_row *find_row(rl_cmp *c, const rl_cmp_row_spec *s)
{
    for (size_t i = c->n_rows; i-- > 0;)
        if (strcmp(c->rows[i].key, s->key) == 0 && strcmp(c->rows[i].group, s->group) == 0)
            return &c->rows[i];
    return NULL;
}

static rl_status new_row(rl_cmp *c, const rl_cmp_row_spec *s, rl_cmp_row **out, rl_error *err)
{
    if (c->n_rows == RL_CMP_MAX_ROWS)
        return rl_fail(err, RL_EINPUT, "more than %d rows to compare: compare fewer inputs",
                       RL_CMP_MAX_ROWS);
    if (c->n_rows == c->cap_rows) {
        rl_cmp_row *p = rl_grow(c->rows, &c->cap_rows, sizeof *p, 64);
        if (!p)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        c->rows = p;
    }
    rl_cmp_row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    r->group = rl_strdup(s->group);
    r->key = rl_strdup(s->key);
    r->subject = rl_strdup(s->subject ? s->subject : "");
    r->metric = rl_strdup(s->metric);
    r->unit = rl_strdup(s->unit ? s->unit : "");
    r->kind = s->kind ? rl_strdup(s->kind) : NULL;
    r->higher_is_better = s->higher_is_better;
    r->single = s->single;
    r->cells = rl_calloc(c->n_inputs, sizeof *r->cells);
    bool ok = r->group && r->key && r->subject && r->metric && r->unit && r->cells &&
              (r->kind || !s->kind);
    for (size_t k = 0; k < s->n_keys && k < RL_CMP_MAX_KEYS; k++) {
        r->key_names[k] = rl_strdup(s->keys[k].name);
        r->key_values[k] = rl_strdup(s->keys[k].value ? s->keys[k].value : "");
        r->n_keys = k + 1;
        ok = ok && r->key_names[k] && r->key_values[k];
    }
    if (!ok)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    *out = r;
    return RL_OK;
}

rl_status rl_cmp_add_samples(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec,
                             const double *samples, size_t n, bool has_mean, double mean,
                             bool has_sd, double sd, rl_error *err)
{
    if (input >= c->n_inputs)
        return rl_fail(err, RL_EINTERNAL, "compare: no input %zu", input);
    rl_cmp_row *r = find_row(c, spec);
    if (!r) {
        rl_status st = new_row(c, spec, &r, err);
        if (st != RL_OK)
            return st;
    }
    rl_cmp_cell *cell = &r->cells[input];
    if (cell->present) /* the same row twice in one bundle: the first counts */
        return RL_OK;
    if (n > RL_CMP_MAX_SAMPLES)
        n = RL_CMP_MAX_SAMPLES;
    cell->point = spec->single;
    if (n > 0) {
        rl_stats_summary s;
        if (rl_stats_summarize(samples, n, &s, err) != RL_OK)
            return RL_OK; /* a non-finite sample: the row stays absent for this input */
        cell->samples = rl_calloc(n, sizeof *cell->samples);
        if (!cell->samples)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        memcpy(cell->samples, samples, n * sizeof *samples);
        cell->n = n;
        cell->has_mean = true;
        cell->mean = s.mean;
        cell->has_sd = s.has_sd;
        cell->sd = s.sd;
        cell->has_ci = s.has_ci95;
        cell->ci_low = s.ci95_low;
        cell->ci_high = s.ci95_high;
    } else {
        cell->has_mean = has_mean && isfinite(mean);
        cell->mean = mean;
        cell->has_sd = has_sd && isfinite(sd) && sd >= 0;
        cell->sd = sd;
    }
    cell->present = cell->has_mean;
    return RL_OK;
}

/* The finite numbers of a JSON array of len > 0 items (above 0, or from 0 with zero_ok; others
 * skipped) as one input's samples of a row; nothing when none is left. */
static rl_status add_array(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec, const cJSON *arr,
                           int len, bool zero_ok, rl_error *err)
{
    size_t n = (size_t)len > RL_CMP_MAX_SAMPLES ? RL_CMP_MAX_SAMPLES : (size_t)len;
    double *x = rl_calloc(n, sizeof *x);
    if (!x)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    size_t k = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, arr)
    {
        if (k == n)
            break;
        if (cJSON_IsNumber(s) && isfinite(s->valuedouble) &&
            (s->valuedouble > 0 || (zero_ok && s->valuedouble == 0)))
            x[k++] = s->valuedouble;
    }
    rl_status st =
        k > 0 ? rl_cmp_add_samples(c, input, spec, x, k, false, 0, false, 0, err) : RL_OK;
    free(x);
    return st;
}

rl_status rl_cmp_add_rate(rl_cmp *c, size_t input, const rl_cmp_row_spec *spec, const cJSON *rate,
                          rl_error *err)
{
    bool avail = true;
    if (!cJSON_IsObject(rate) || (rl_json_get_bool(rate, "available", &avail) && !avail))
        return RL_OK;
    const cJSON *arr = rl_json_get(rate, "samples");
    int len = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    if (len > 0)
        return add_array(c, input, spec, arr, len, false, err);
    double mean = 0, sd = 0;
    bool has_mean = rl_json_get_num(rate, "mean", &mean) && mean > 0;
    bool has_sd = rl_json_get_num(rate, "sd", &sd);
    if (!has_mean)
        return RL_OK;
    return rl_cmp_add_samples(c, input, spec, NULL, 0, true, mean, has_sd, sd, err);
}

/* FNV-1a, 64 bits: a short stable digest of the type map. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

typedef struct {
    char text[160];
} type_entry;

static int cmp_types(const void *a, const void *b)
{
    return strcmp(((const type_entry *)a)->text, ((const type_entry *)b)->text);
}

static bool json_u64(const cJSON *o, const char *key, uint64_t *out)
{
    if (rl_json_get_u64(o, key, out))
        return true;
    double v;
    if (rl_json_get_num(o, key, &v) && v >= 0 && v < 1.8e19) {
        *out = (uint64_t)v;
        return true;
    }
    return false;
}

void rl_cmp_model_identity(const cJSON *model, char *buf, size_t cap)
{
    const cJSON *g = rl_json_get(model, "gguf");
    const cJSON *types = rl_json_get(g, "types");
    uint64_t tensor_bytes = 0;
    int nt = cJSON_IsArray(types) ? cJSON_GetArraySize(types) : 0;
    if (nt > 0 && nt <= 64 && json_u64(g, "tensor_bytes", &tensor_bytes)) {
        type_entry e[64];
        size_t n = 0;
        const cJSON *t;
        cJSON_ArrayForEach(t, types)
        {
            uint64_t nten = 0, bytes = 0;
            json_u64(t, "n_tensors", &nten);
            json_u64(t, "bytes", &bytes);
            const char *name = rl_json_get_str(t, "type");
            rl_snprintf(e[n].text, sizeof e[n].text, "%.64s:%llu:%llu", name ? name : "?",
                        (unsigned long long)nten, (unsigned long long)bytes);
            n++;
        }
        qsort(e, n, sizeof e[0], cmp_types);
        uint64_t h = 14695981039346656037ull;
        for (size_t i = 0; i < n; i++) {
            h = fnv(h, e[i].text);
            h = fnv(h, ";");
        }
        rl_snprintf(buf, cap, "types:%016llx:%llu", (unsigned long long)h,
                    (unsigned long long)tensor_bytes);
        return;
    }
    const char *name = rl_json_get_str(model, "name");
    uint64_t bpt = 0;
    json_u64(rl_json_get(model, "bytes_per_token"), "value", &bpt);
    rl_snprintf(buf, cap, "name:%.200s:%llu", name ? name : "?", (unsigned long long)bpt);
}

/* Whether bundle.advice ranks model id's decode at th threads (its rows come from the depth-0
 * runs: rl_cmp_rows_advice lists them). */
static bool advice_covers(const cJSON *bundle, const char *id, double th)
{
    const cJSON *t;
    if (!id)
        return false;
    cJSON_ArrayForEach(t, rl_json_get(rl_json_get(bundle, "advice"), "tables"))
    {
        double tt;
        if (!rl_json_get_num(t, "threads", &tt) || tt != th)
            continue;
        const cJSON *row;
        cJSON_ArrayForEach(row, rl_json_get(t, "rows"))
        {
            const char *mid = rl_json_get_str(row, "model_id");
            if (mid && strcmp(mid, id) == 0)
                return true;
        }
    }
    return false;
}

rl_status rl_cmp_rows_decode(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *settings = rl_json_get(bundle, "settings");
    double np = NAN, ng = NAN;
    rl_json_get_num(settings, "n_prompt", &np);
    rl_json_get_num(settings, "n_gen", &ng);
    char s_np[32], s_ng[32];
    rl_snprintf(s_np, sizeof s_np, isfinite(np) ? "%.0f" : "?", np);
    rl_snprintf(s_ng, sizeof s_ng, isfinite(ng) ? "%.0f" : "?", ng);
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(bundle, "models"))
    {
        char ident[320];
        rl_cmp_model_identity(m, ident, sizeof ident);
        const char *name = rl_json_get_str(m, "name");
        const cJSON *r;
        cJSON_ArrayForEach(r, rl_json_get(m, "runs"))
        {
            const char *status = rl_json_get_str(r, "status");
            double th, dp;
            if (!status || strcmp(status, "ok") != 0 || !rl_json_get_num(r, "threads", &th) ||
                !rl_json_get_num(r, "depth", &dp) || !isfinite(th) || !isfinite(dp))
                continue;
            char s_th[32], s_dp[32];
            rl_snprintf(s_th, sizeof s_th, "%.0f", th);
            rl_snprintf(s_dp, sizeof s_dp, "%.0f", dp);
            static const char *const metrics[] = {"decode", "prefill"};
            bool advised = dp == 0 && advice_covers(bundle, rl_json_get_str(m, "id"), th);
            for (size_t k = advised ? 1 : 0; k < 2; k++) {
                char key[512];
                rl_snprintf(key, sizeof key, "%s|%s|t=%s|d=%s|p=%s|g=%s", metrics[k], ident, s_th,
                            s_dp, s_np, s_ng);
                rl_cmp_row_spec spec = {
                    .group = RL_CMP_GROUP_DECODE,
                    .key = key,
                    .subject = name ? name : "?",
                    .metric = metrics[k],
                    .unit = "tok/s",
                    .kind = "measured",
                    .higher_is_better = true,
                    .n_keys = 4,
                    .keys = {
                        {"threads", s_th}, {"depth", s_dp}, {"n_prompt", s_np}, {"n_gen", s_ng}}};
                rl_status st = rl_cmp_add_rate(c, input, &spec, rl_json_get(r, metrics[k]), err);
                if (st != RL_OK)
                    return st;
            }
        }
    }
    return RL_OK;
}

rl_status rl_cmp_rows_advice(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, rl_json_get(rl_json_get(bundle, "advice"), "tables"))
    {
        double th;
        if (!rl_json_get_num(t, "threads", &th) || !isfinite(th))
            continue;
        char s_th[32];
        rl_snprintf(s_th, sizeof s_th, "%.0f", th);
        const cJSON *row;
        cJSON_ArrayForEach(row, rl_json_get(t, "rows"))
        {
            const char *id = rl_json_get_str(row, "model_id");
            const char *format = rl_json_get_str(row, "format");
            const char *name = rl_json_get_str(row, "name");
            const cJSON *model = NULL, *m;
            cJSON_ArrayForEach(m, rl_json_get(bundle, "models"))
            {
                const char *mid = rl_json_get_str(m, "id");
                if (!model && id && mid && strcmp(id, mid) == 0)
                    model = m;
            }
            char ident[320], key[512];
            if (model)
                rl_cmp_model_identity(model, ident, sizeof ident);
            else
                rl_snprintf(ident, sizeof ident, "name:%.200s", name ? name : "?");
            rl_snprintf(key, sizeof key, "decode|%s|t=%s|f=%.100s", ident, s_th,
                        format ? format : "?");
            rl_cmp_row_spec spec = {.group = RL_CMP_GROUP_ADVICE,
                                    .key = key,
                                    .subject = name ? name : "?",
                                    .metric = "decode",
                                    .unit = "tok/s",
                                    .kind = "measured",
                                    .higher_is_better = true,
                                    .n_keys = 2,
                                    .keys = {{"threads", s_th}, {"format", format ? format : "?"}}};
            rl_status st = rl_cmp_add_rate(c, input, &spec, rl_json_get(row, "decode"), err);
            if (st != RL_OK)
                return st;
        }
    }
    return RL_OK;
}

/* ---- the streaming client ---------------------------------------------------------------- */

typedef struct {
    const char *name, *label, *unit, *kind; /* kind: the legend's, when the bundle gives none */
    bool higher_is_better, single;
} client_metric;

static const client_metric client_metrics[] = {
    {"ttft", "TTFT", "ms", "proxy", false, false},
    {"e2e", "E2E latency", "ms", "measured", false, false},
    {"tpot", "TPOT", "ms", "derived", false, false},
    {"chunk_gap", "chunk gap", "ms", "proxy", false, false},
    {"decode_tok_s", "decode rate per request", "tok/s", "derived", true, false},
    {"output_tok_s", "output rate per request", "tok/s", "derived", true, false},
    {"output_throughput", "output throughput", "tok/s", "derived", true, true},
    {"rps", "requests/s", "req/s", "measured", true, true},
    {"goodput.rps", "goodput", "req/s", "derived", true, true},
};

/* The kind a metric object states, when it is one of the four; else dflt. */
static const char *kind_of(const cJSON *o, const char *dflt)
{
    static const char *const kinds[] = {"measured", "proxy", "derived", "controlled"};
    const char *k = rl_json_get_str(o, "kind");
    for (size_t i = 0; k && i < 4; i++)
        if (strcmp(k, kinds[i]) == 0)
            return kinds[i];
    return dflt;
}

/* One client metric of one point: a distribution's samples (finite, >= 0; with its samples
 * unavailable, the summary's mean and sd: not tested), or a point metric's value. */
static rl_status client_add(rl_cmp *c, size_t input, rl_cmp_row_spec *spec, const cJSON *o,
                            rl_error *err)
{
    bool avail = true;
    if (!cJSON_IsObject(o) || (rl_json_get_bool(o, "available", &avail) && !avail))
        return RL_OK;
    double v;
    if (spec->single) {
        if (!rl_json_get_num(o, "value", &v) || !isfinite(v) || v < 0)
            return RL_OK;
        return rl_cmp_add_samples(c, input, spec, &v, 1, false, 0, false, 0, err);
    }
    const cJSON *arr = rl_json_get(o, "samples");
    int len = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
    if (len > 0)
        return add_array(c, input, spec, arr, len, true, err);
    const cJSON *sum = rl_json_get(o, "summary");
    double sd = 0;
    if (!rl_json_get_num(sum, "mean", &v) || !isfinite(v) || v < 0)
        return RL_OK;
    bool has_sd = rl_json_get_num(sum, "sd", &sd);
    return rl_cmp_add_samples(c, input, spec, NULL, 0, true, v, has_sd, sd, err);
}

rl_status rl_cmp_rows_client(rl_cmp *c, size_t input, const cJSON *bundle, rl_error *err)
{
    const cJSON *cl = rl_json_get(bundle, "client");
    if (!cJSON_IsObject(cl))
        return RL_OK;
    const cJSON *drv = rl_json_get(cl, "driver");
    const char *type = rl_json_get_str(drv, "type");
    const char *cmd = rl_json_get_str(drv, "command"), *url = rl_json_get_str(drv, "url");
    const char *model = rl_json_get_str(drv, "model");
    char ident[600], subject[300], where[300];
    if (type && strcmp(type, "command") == 0) {
        rl_snprintf(ident, sizeof ident, "cmd:%.500s", cmd ? cmd : "?");
        rl_snprintf(subject, sizeof subject, "%.280s", cmd ? cmd : "?");
        rl_snprintf(where, sizeof where, "command");
    } else {
        rl_snprintf(ident, sizeof ident, "http:%.400s|%.190s", url ? url : "?", model ? model : "");
        rl_snprintf(subject, sizeof subject, "%.280s", model ? model : (url ? url : "?"));
        rl_snprintf(where, sizeof where, "%.280s", url ? url : "?");
    }
    /* the prompt set: its name and size shown, its ids and texts hashed into the key */
    const cJSON *ps = rl_json_get(rl_json_get(cl, "settings"), "prompts");
    const char *psrc = rl_json_get_str(ps, "source"), *pname = rl_json_get_str(ps, "name");
    double pn = NAN;
    rl_json_get_num(ps, "n", &pn);
    char prompts[200];
    rl_snprintf(prompts, sizeof prompts, isfinite(pn) ? "%.80s:%.80s (%.0f)" : "%.80s:%.80s",
                psrc ? psrc : "?", pname ? pname : "?", pn);
    uint64_t h = 14695981039346656037ull;
    const cJSON *pr;
    cJSON_ArrayForEach(pr, rl_json_get(cl, "prompts"))
    {
        const char *pid = rl_json_get_str(pr, "id"), *text = rl_json_get_str(pr, "text");
        h = fnv(fnv(fnv(h, pid ? pid : ""), "\x1f"), text ? text : "");
        h = fnv(h, "\x1e");
    }
    const cJSON *pt;
    cJSON_ArrayForEach(pt, rl_json_get(cl, "points"))
    {
        double conc = NAN, rate = NAN;
        rl_json_get_num(pt, "concurrency", &conc);
        rl_json_get_num(pt, "request_rate", &rate);
        char s_conc[32], s_rate[32];
        rl_snprintf(s_conc, sizeof s_conc, isfinite(conc) ? "%.0f" : "?", conc);
        if (isfinite(rate))
            rl_snprintf(s_rate, sizeof s_rate, "%g", rate);
        else
            rl_snprintf(s_rate, sizeof s_rate, "closed loop");
        for (size_t k = 0; k < sizeof client_metrics / sizeof client_metrics[0]; k++) {
            const client_metric *cm = &client_metrics[k];
            const cJSON *o = strcmp(cm->name, "goodput.rps") == 0
                                 ? rl_json_get(rl_json_get(pt, "goodput"), "rps")
                                 : rl_json_get(rl_json_get(pt, "metrics"), cm->name);
            char key[1024];
            rl_snprintf(key, sizeof key, "%s|%s|c=%s|r=%s|p=%s|%016llx", cm->name, ident, s_conc,
                        s_rate, prompts, (unsigned long long)h);
            rl_cmp_row_spec spec = {.group = RL_CMP_GROUP_CLIENT,
                                    .key = key,
                                    .subject = subject,
                                    .metric = cm->label,
                                    .unit = cm->unit,
                                    .kind = kind_of(o, cm->kind),
                                    .higher_is_better = cm->higher_is_better,
                                    .single = cm->single,
                                    .n_keys = 4,
                                    .keys = {{"driver", where},
                                             {"concurrency", s_conc},
                                             {"request rate", s_rate},
                                             {"prompts", prompts}}};
            rl_status st = client_add(c, input, &spec, o, err);
            if (st != RL_OK)
                return st;
        }
    }
    return RL_OK;
}

void rl_cmp_sections(const cJSON *bundle, char *buf, size_t cap)
{
    rl_sbuf s = {0};
    bool runs = false;
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(bundle, "models")) runs =
        runs || cJSON_GetArraySize(rl_json_get(m, "runs")) > 0;
    if (runs)
        rl_sbuf_printf(&s, "llama-bench runs");
    if (cJSON_IsObject(rl_json_get(bundle, "advice")))
        rl_sbuf_printf(&s, "%squantization advice", s.len ? " + " : "");
    if (cJSON_IsObject(rl_json_get(bundle, "client")))
        rl_sbuf_printf(&s, "%sstreaming client", s.len ? " + " : "");
    char *t = rl_sbuf_take(&s);
    rl_snprintf(buf, cap, "%s", t && *t ? t : "nothing to compare");
    free(t);
}

const char *rl_cmp_group_note(const char *group)
{
    if (strcmp(group, RL_CMP_GROUP_CLIENT) == 0)
        return "Client-side latencies are lower-is-better: a rise beyond noise is \"slower\". "
               "TTFT is a proxy (send to the first streamed chunk, which may carry several "
               "tokens); chunk gaps are a proxy too (gaps between deliveries); TPOT and the "
               "per-request rates are derived. Throughput, requests/s and goodput are one value "
               "per operating point: ratio and delta, no test.";
    if (strcmp(group, RL_CMP_GROUP_ADVICE) == 0)
        return "The decode rates `advise --measure` ranked, per thread count and format (the "
               "same llama-bench runs, listed here and not again under llama-bench).";
    return NULL;
}

/* ---- verdicts -------------------------------------------------------------------------- */

bool rl_cmp_welch(double mean_a, double sd_a, size_t n_a, double mean_b, double sd_b, size_t n_b,
                  double *t, double *df)
{
    double va = sd_a * sd_a / (double)n_a, vb = sd_b * sd_b / (double)n_b;
    double se2 = va + vb;
    if (!(se2 > 0)) {
        *t = mean_b == mean_a ? 0 : (mean_b > mean_a ? INFINITY : -INFINITY);
        *df = NAN;
        return false;
    }
    *t = (mean_b - mean_a) / sqrt(se2);
    double den = 0;
    if (n_a > 1)
        den += va * va / (double)(n_a - 1);
    if (n_b > 1)
        den += vb * vb / (double)(n_b - 1);
    *df = den > 0 ? se2 * se2 / den : NAN;
    return true;
}

void rl_cmp_verdict_of(const rl_cmp_cell *b, rl_cmp_cell *x, bool higher_is_better, double alpha,
                       double min_effect_pct)
{
    x->tested = false;
    x->has_ratio = false;
    if (!b->present || !x->present) {
        x->verdict = RL_CMP_MISSING;
        return;
    }
    if (b->mean != 0) {
        x->has_ratio = true;
        x->ratio = x->mean / b->mean;
        x->delta = x->mean - b->mean;
        x->change_pct = 100.0 * x->delta / b->mean;
    }
    if (b->point || x->point) {
        x->verdict = RL_CMP_ONE_VALUE;
        return;
    }
    if (b->n == 0 || x->n == 0) {
        x->verdict = RL_CMP_NO_SAMPLES;
        return;
    }
    if (b->n < 2 || x->n < 2 || !x->has_ratio) {
        x->verdict = RL_CMP_ONE_SAMPLE;
        return;
    }
    double t, df;
    x->tested = true;
    if (rl_cmp_welch(b->mean, b->sd, b->n, x->mean, x->sd, x->n, &t, &df)) {
        x->t = t;
        x->df = df;
        x->p = isfinite(df) ? rl_stats_t_tail2(fabs(t), df) : 1;
    } else {
        x->t = t;
        x->df = NAN;
        x->p = t == 0 ? 1 : 0;
    }
    bool better = higher_is_better ? x->change_pct > 0 : x->change_pct < 0;
    if (x->p < alpha && fabs(x->change_pct) >= min_effect_pct)
        x->verdict = better ? RL_CMP_FASTER : RL_CMP_SLOWER;
    else
        x->verdict = RL_CMP_NOISE;
}

const char *rl_cmp_verdict_word(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_BASELINE: return "baseline";
    case RL_CMP_MISSING: return "missing";
    case RL_CMP_FASTER: return "faster";
    case RL_CMP_SLOWER: return "slower";
    case RL_CMP_NOISE: return "within noise";
    case RL_CMP_ONE_SAMPLE: return "one sample: not tested";
    case RL_CMP_NO_SAMPLES: return "no samples: not tested";
    case RL_CMP_ONE_VALUE: return "one value: not tested";
    }
    return "?";
}

const char *rl_cmp_verdict_arrow(rl_cmp_verdict v)
{
    switch (v) {
    case RL_CMP_FASTER: return "\xE2\x86\x91"; /* ↑ */
    case RL_CMP_SLOWER: return "\xE2\x86\x93"; /* ↓ */
    case RL_CMP_NOISE: return "=";
    case RL_CMP_ONE_SAMPLE:
    case RL_CMP_NO_SAMPLES:
    case RL_CMP_ONE_VALUE: return "?";
    case RL_CMP_MISSING: return "-";
    case RL_CMP_BASELINE: return "";
    }
    return "";
}

void rl_cmp_test_sentence(const rl_cmp *c, char *buf, size_t cap)
{
    rl_snprintf(buf, cap,
                "Verdicts: Welch's two-sided t-test on the per-repetition samples of each input "
                "against the baseline; faster or slower when p < %g and the change is at least "
                "%g%% of the baseline mean, otherwise within noise. Fewer than 2 samples on a "
                "side: not tested; imported data without samples: not tested; a point metric (one "
                "value per input, e.g. requests/s): not tested.",
                c->alpha, c->min_effect_pct);
}

rl_cmp_counts rl_cmp_count(const rl_cmp *c)
{
    rl_cmp_counts k = {0, 0, 0, 0, 0};
    for (size_t r = 0; r < c->n_rows; r++)
        for (size_t i = 0; i < c->n_inputs; i++) {
            if (i == c->baseline)
                continue;
            switch (c->rows[r].cells[i].verdict) {
            case RL_CMP_FASTER: k.faster++; break;
            case RL_CMP_SLOWER: k.slower++; break;
            case RL_CMP_NOISE: k.noise++; break;
            case RL_CMP_ONE_SAMPLE:
            case RL_CMP_NO_SAMPLES:
            case RL_CMP_ONE_VALUE: k.untested++; break;
            default: k.missing++; break;
            }
        }
    return k;
}

size_t rl_cmp_regressions(const rl_cmp *c, double pct)
{
    size_t n = 0;
    for (size_t r = 0; r < c->n_rows; r++)
        for (size_t i = 0; i < c->n_inputs; i++) {
            const rl_cmp_cell *x = &c->rows[r].cells[i];
            if (i != c->baseline && x->verdict == RL_CMP_SLOWER && x->has_ratio &&
                (c->rows[r].higher_is_better ? -x->change_pct : x->change_pct) > pct)
                n++;
        }
    return n;
}

const rl_cmp_row *rl_cmp_group_first(const rl_cmp *c, const char *group)
{
    for (size_t r = 0; r < c->n_rows; r++)
        if (strcmp(c->rows[r].group, group) == 0)
            return &c->rows[r];
    return NULL;
}

bool rl_cmp_group_starts(const rl_cmp *c, size_t r)
{
    return rl_cmp_group_first(c, c->rows[r].group) == &c->rows[r];
}

bool rl_cmp_listed(const rl_cmp *c, size_t r, size_t i, bool all, size_t *hidden)
{
    const rl_cmp_cell *x = &c->rows[r].cells[i], *b = &c->rows[r].cells[c->baseline];
    if (i == c->baseline || (!x->present && !b->present))
        return false;
    if (all || (x->present && b->present))
        return true;
    (*hidden)++;
    return false;
}

bool rl_cmp_key_varies(const rl_cmp *c, const char *group, const char *name)
{
    const char *first = NULL;
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        if (strcmp(row->group, group) != 0)
            continue;
        for (size_t k = 0; k < row->n_keys; k++) {
            if (strcmp(row->key_names[k], name) != 0)
                continue;
            if (!first)
                first = row->key_values[k];
            else if (strcmp(first, row->key_values[k]) != 0)
                return true;
        }
    }
    return false;
}

/* ---- environment and suite -------------------------------------------------------------- */

/* A fact is obj.key (obj.sub.key with sub); with needs, it applies only to the inputs whose
 * bundle holds the object needs (others show "n/a" and never make it differ). */
typedef struct {
    const char *section, *obj, *key, *label;
    bool suite;
    const char *sub, *needs;
} fact_def;

static const fact_def fact_defs[] = {
    {"environment", "environment", "cpu", "CPU", false, NULL, NULL},
    {"environment", "environment", "arch", "Architecture", false, NULL, NULL},
    {"environment", "environment", "logical_cores", "Logical cores", false, NULL, NULL},
    {"environment", "environment", "physical_cores", "Physical cores", false, NULL, NULL},
    {"environment", "environment", "ram_bytes", "RAM (bytes)", false, NULL, NULL},
    {"environment", "environment", "os", "OS", false, NULL, NULL},
    {"environment", "environment", "kernel", "Kernel", false, NULL, NULL},
    {"environment", "environment", "governor", "CPU governor", false, NULL, NULL},
    {"environment", "environment", "thp", "Transparent huge pages", false, NULL, NULL},
    {"environment", "environment", "vm", "Virtual machine", false, NULL, NULL},
    {"environment", "environment", "hypervisor", "Hypervisor", false, NULL, NULL},
    {"environment", "environment", "numa_nodes", "NUMA nodes", false, NULL, NULL},
    {"llama.cpp", "llama_cpp", "build_commit", "llama.cpp build commit", false, NULL, "models"},
    {"llama.cpp", "llama_cpp", "build_number", "llama.cpp build number", false, NULL, "models"},
    {"llama.cpp", "llama_cpp", "version", "llama.cpp version", false, NULL, "models"},
    {"settings", "settings", "threads", "Threads", true, NULL, "models"},
    {"settings", "settings", "depths", "KV depths", true, NULL, "models"},
    {"settings", "settings", "n_prompt", "Prompt tokens (n_prompt)", true, NULL, "models"},
    {"settings", "settings", "n_gen", "Generated tokens (n_gen)", true, NULL, "models"},
    {"settings", "settings", "n_gpu_layers", "GPU layers", true, NULL, "models"},
    {"settings", "settings", "bench_args", "Extra llama-bench arguments", true, NULL, "models"},
    {"settings", "settings", "bytes_convention", "Bytes convention", true, NULL, "models"},
    {"settings", "settings", "reps", "Repetitions", false, NULL, "models"},
    {"ceiling", "membw", "peak_read_GBs", "Memory ceiling (GB/s)", false, NULL, "models"},
    {"tool", "tool", "version", "llama-roofline version", false, NULL, NULL},
    {"source", "source", "kind", "Data source", false, NULL, NULL},
    {"client", "client", "type", "Client driver", false, "driver", "client"},
    {"client", "client", "url", "Client endpoint", false, "driver", "client"},
    {"client", "client", "model", "Client model", false, "driver", "client"},
    {"client", "client", "command", "Client command", false, "driver", "client"},
    {"client", "client", "max_tokens", "Client max output tokens", true, "settings", "client"},
    {"client", "client", "prompts", "Client prompt set", true, "settings", "client"},
    {"client", "client", "slo", "Client SLOs", true, "settings", "client"},
    {"client", "client", "runs", "Client runs per prompt", false, "settings", "client"},
    {"client", "client", "warmup", "Client warm-up requests", false, "settings", "client"},
    {"client", "client", "source", "Client token counts", false, "tokens", "client"},
};
#define N_FACT_DEFS (sizeof fact_defs / sizeof fact_defs[0])

static char *value_string(const cJSON *v)
{
    if (!v || cJSON_IsNull(v))
        return rl_strdup("unknown");
    if (cJSON_IsString(v))
        return rl_strdup(*v->valuestring ? v->valuestring : "(empty)");
    if (cJSON_IsBool(v))
        return rl_strdup(cJSON_IsTrue(v) ? "yes" : "no");
    if (cJSON_IsNumber(v))
        return rl_asprintf("%.15g", v->valuedouble);
    if (cJSON_IsRaw(v) && v->valuestring)
        return rl_strdup(v->valuestring);
    bool avail = true;
    if (cJSON_IsObject(v) && rl_json_get_bool(v, "available", &avail) && !avail)
        return rl_strdup("unavailable");
    char *t = cJSON_PrintUnformatted(v);
    if (!t)
        return NULL;
    char *s = rl_strdup(strlen(t) > 200 ? "(long value)" : t);
    cJSON_free(t);
    return s;
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The sorted model identities of a bundle as one string (names: their display names, in the
 * same order). */
static char *model_set(const cJSON *b, bool names)
{
    size_t n = (size_t)cJSON_GetArraySize(rl_json_get(b, "models"));
    if (n > 4096)
        n = 4096;
    char(*ids)[320] = rl_calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return NULL;
    size_t k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, rl_json_get(b, "models"))
    {
        if (k == n)
            break;
        /* identity first, so names sort in identity order; the name follows a tab */
        rl_cmp_model_identity(m, ids[k], sizeof ids[0]);
        const char *nm = rl_json_get_str(m, "name");
        size_t used = strlen(ids[k]);
        rl_snprintf(ids[k] + used, sizeof ids[0] - used, "\t%.80s", nm ? nm : "?");
        k++;
    }
    qsort(ids, k, sizeof ids[0], cmp_ids);
    rl_sbuf s = {0};
    if (names)
        rl_sbuf_printf(&s, "%zu model%s: ", k, k == 1 ? "" : "s");
    for (size_t i = 0; i < k; i++) {
        char *tab = strchr(ids[i], '\t');
        if (tab)
            *tab = '\0';
        rl_sbuf_printf(&s, "%s%s", i ? (names ? ", " : ",") : "", names && tab ? tab + 1 : ids[i]);
    }
    free(ids);
    if (k == 0)
        rl_sbuf_put(&s, "none", 4);
    return rl_sbuf_take(&s);
}

static rl_status facts(rl_cmp *c, rl_error *err)
{
    size_t n = N_FACT_DEFS + 1; /* + the model set */
    c->n_facts = 0;
    c->facts = rl_calloc(n, sizeof *c->facts);
    if (!c->facts)
        return rl_fail(err, RL_EINTERNAL, "out of memory");
    for (size_t f = 0; f < n; f++) {
        rl_cmp_fact *fa = &c->facts[c->n_facts++];
        fa->values = rl_calloc(c->n_inputs, sizeof *fa->values);
        if (!fa->values)
            return rl_fail(err, RL_EINTERNAL, "out of memory");
        if (f < N_FACT_DEFS) {
            fa->section = fact_defs[f].section;
            fa->label = fact_defs[f].label;
            fa->suite = fact_defs[f].suite;
        } else {
            fa->section = "suite";
            fa->label = "Models (identity: tensor types and sizes)";
            fa->suite = true;
        }
        char *first_set = NULL;
        const char *first_value = NULL;
        const char *needs = f < N_FACT_DEFS ? fact_defs[f].needs : "models";
        for (size_t i = 0; i < c->n_inputs; i++) {
            const cJSON *b = c->inputs[i].bundle;
            if (needs && !rl_json_get(b, needs)) {
                fa->values[i] = rl_strdup("n/a");
            } else if (f < N_FACT_DEFS) {
                const cJSON *o = rl_json_get(b, fact_defs[f].obj);
                if (fact_defs[f].sub)
                    o = rl_json_get(o, fact_defs[f].sub);
                fa->values[i] = value_string(rl_json_get(o, fact_defs[f].key));
                if (fa->values[i] && first_value && strcmp(fa->values[i], first_value) != 0)
                    fa->differs = true;
                if (!first_value)
                    first_value = fa->values[i];
            } else { /* shown by name, compared by identity */
                fa->values[i] = model_set(b, true);
                char *set = model_set(b, false);
                if (!set) {
                    free(first_set);
                    return rl_fail(err, RL_EINTERNAL, "out of memory");
                }
                if (!first_set)
                    first_set = set;
                else {
                    if (strcmp(set, first_set) != 0)
                        fa->differs = true;
                    free(set);
                }
            }
            if (!fa->values[i]) {
                free(first_set);
                return rl_fail(err, RL_EINTERNAL, "out of memory");
            }
        }
        free(first_set);
        if (fa->differs && fa->suite)
            c->suite_mismatch = true;
    }
    return RL_OK;
}

rl_status rl_cmp_run(rl_cmp *c, rl_error *err)
{
    if (c->n_inputs < 2)
        return rl_fail(err, RL_EINPUT,
                       "compare needs at least two inputs (bundles, reports or directories of "
                       "them); got %zu",
                       c->n_inputs);
    for (size_t i = 0; i < c->n_inputs; i++)
        for (size_t p = 0; p < sizeof producers / sizeof producers[0]; p++) {
            rl_status st = producers[p](c, i, c->inputs[i].bundle, err);
            if (st != RL_OK)
                return st;
        }
    c->rows_not_everywhere = 0;
    for (size_t r = 0; r < c->n_rows; r++) {
        rl_cmp_row *row = &c->rows[r];
        const rl_cmp_cell *b = &row->cells[c->baseline];
        bool everywhere = true;
        for (size_t i = 0; i < c->n_inputs; i++) {
            everywhere = everywhere && row->cells[i].present;
            if (i == c->baseline)
                row->cells[i].verdict = RL_CMP_BASELINE;
            else
                rl_cmp_verdict_of(b, &row->cells[i], row->higher_is_better, c->alpha,
                                  c->min_effect_pct);
        }
        if (!everywhere)
            c->rows_not_everywhere++;
    }
    for (size_t r = 0; r < c->n_rows; r++) {
        const rl_cmp_row *g = rl_cmp_group_first(c, c->rows[r].group);
        if (g && strcmp(g->unit, c->rows[r].unit) != 0)
            for (size_t q = 0; q < c->n_rows; q++)
                if (strcmp(c->rows[q].group, g->group) == 0)
                    c->rows[q].units_vary = true;
    }
    c->sections_differ = false;
    char first[128], other[128];
    rl_cmp_sections(c->inputs[0].bundle, first, sizeof first);
    for (size_t i = 1; i < c->n_inputs; i++) {
        rl_cmp_sections(c->inputs[i].bundle, other, sizeof other);
        if (strcmp(first, other) != 0)
            c->sections_differ = true;
    }
    return facts(c, err);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static cJSON *cell_json(const rl_cmp_cell *x, bool baseline)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    bool ok = true;
    if (!x->present) {
        ok = cJSON_AddFalseToObject(o, "present") != NULL;
        return ok ? o : (cJSON_Delete(o), NULL);
    }
    ok = ok && rl_json_add_num(o, "mean", x->mean);
    if (x->has_sd)
        ok = ok && rl_json_add_num(o, "sd", x->sd);
    ok = ok && rl_json_add_u64(o, "n", x->n);
    if (x->has_ci) {
        ok = ok && rl_json_add_num(o, "ci95_low", x->ci_low);
        ok = ok && rl_json_add_num(o, "ci95_high", x->ci_high);
    }
    if (x->n > 0) {
        cJSON *s = cJSON_CreateDoubleArray(x->samples, (int)x->n);
        ok = ok && rl_json_attach(o, "samples", s);
    }
    if (!baseline) {
        ok = ok && rl_json_add_str(o, "verdict", rl_cmp_verdict_word(x->verdict));
        if (x->has_ratio) {
            ok = ok && rl_json_add_num(o, "ratio", x->ratio);
            ok = ok && rl_json_add_num(o, "delta", x->delta);
            ok = ok && rl_json_add_num(o, "change_pct", x->change_pct);
        }
        if (x->tested) {
            ok = ok && rl_json_add_num(o, "t", x->t);
            ok = ok && rl_json_add_num(o, "df", x->df);
            ok = ok && rl_json_add_num(o, "p", x->p);
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *rl_cmp_to_json(const rl_cmp *c, bool with_bundles)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = o && rl_json_add_str(o, "schema", "llama-roofline-compare") &&
              rl_json_add_u64(o, "schema_version", 1);
    cJSON *test = cJSON_CreateObject();
    ok = ok && rl_json_attach(o, "test", test) &&
         rl_json_add_str(test, "name", "Welch two-sided t-test") &&
         rl_json_add_num(test, "alpha", c->alpha) &&
         rl_json_add_num(test, "min_effect_pct", c->min_effect_pct);
    ok = ok && rl_json_add_u64(o, "baseline", c->baseline + 1);
    cJSON *ins = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "inputs", ins);
    for (size_t i = 0; ok && i < c->n_inputs; i++) {
        cJSON *in = cJSON_CreateObject();
        if (!in) {
            ok = false;
            break;
        }
        cJSON_AddItemToArray(ins, in);
        ok = rl_json_add_str(in, "label", c->inputs[i].label) &&
             rl_json_add_str(in, "path", c->inputs[i].path);
        const cJSON *b = c->inputs[i].bundle;
        if (ok && with_bundles) {
            ok = rl_json_attach(in, "bundle", cJSON_Duplicate(b, 1));
        } else if (ok) { /* the facts and the analysis' summary; the rows hold the samples */
            static const char *const top[] = {"tool",        "command",  "created_utc", "source",
                                              "environment", "settings", "llama_cpp"};
            cJSON *sum = cJSON_CreateObject();
            ok = rl_json_attach(in, "summary", sum);
            for (size_t k = 0; ok && k < sizeof top / sizeof top[0]; k++)
                if (rl_json_get(b, top[k]))
                    ok = rl_json_attach(sum, top[k], cJSON_Duplicate(rl_json_get(b, top[k]), 1));
            static const char *const an[] = {"fit", "ceiling", "utilisation", "verdict"};
            cJSON *a = cJSON_CreateObject();
            ok = ok && rl_json_attach(sum, "analysis", a);
            for (size_t k = 0; ok && k < sizeof an / sizeof an[0]; k++)
                if (rl_json_get(rl_json_get(b, "analysis"), an[k]))
                    ok = rl_json_attach(
                        a, an[k],
                        cJSON_Duplicate(rl_json_get(rl_json_get(b, "analysis"), an[k]), 1));
        }
    }
    cJSON *rows = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "rows", rows);
    for (size_t r = 0; ok && r < c->n_rows; r++) {
        const rl_cmp_row *row = &c->rows[r];
        cJSON *ro = cJSON_CreateObject();
        if (!ro) {
            ok = false;
            break;
        }
        cJSON_AddItemToArray(rows, ro);
        ok = rl_json_add_str(ro, "group", row->group) &&
             rl_json_add_str(ro, "subject", row->subject) &&
             rl_json_add_str(ro, "metric", row->metric) && rl_json_add_str(ro, "unit", row->unit) &&
             (!row->kind || rl_json_add_str(ro, "kind", row->kind)) &&
             (!row->single || cJSON_AddTrueToObject(ro, "one_value"));
        cJSON *keys = cJSON_CreateObject();
        ok = ok && rl_json_attach(ro, "keys", keys);
        for (size_t k = 0; ok && k < row->n_keys; k++)
            ok = rl_json_add_str(keys, row->key_names[k], row->key_values[k]);
        cJSON *cells = cJSON_CreateArray();
        ok = ok && rl_json_attach(ro, "cells", cells);
        for (size_t i = 0; ok && i < c->n_inputs; i++) {
            cJSON *ce = cell_json(&row->cells[i], i == c->baseline);
            if (!ce)
                ok = false;
            else
                cJSON_AddItemToArray(cells, ce);
        }
    }
    cJSON *fs = cJSON_CreateArray();
    ok = ok && rl_json_attach(o, "facts", fs);
    for (size_t f = 0; ok && f < c->n_facts; f++) {
        const rl_cmp_fact *fa = &c->facts[f];
        cJSON *fo = cJSON_CreateObject();
        if (!fo) {
            ok = false;
            break;
        }
        cJSON_AddItemToArray(fs, fo);
        ok = rl_json_add_str(fo, "label", fa->label) &&
             rl_json_add_str(fo, "section", fa->section) &&
             cJSON_AddBoolToObject(fo, "suite", fa->suite) &&
             cJSON_AddBoolToObject(fo, "differs", fa->differs);
        cJSON *vals = cJSON_CreateArray();
        ok = ok && rl_json_attach(fo, "values", vals);
        for (size_t i = 0; ok && i < c->n_inputs; i++) {
            cJSON *s = rl_json_str(fa->values[i]);
            if (!s)
                ok = false;
            else
                cJSON_AddItemToArray(vals, s);
        }
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
