/* SPDX-License-Identifier: MIT */
/* chart_composition.c: what each file holds, share of bytes by ggml type (owner: chart).
 *
 * One horizontal stacked bar per model (gguf.types[]: type and bytes), 0-100% of its tensor
 * bytes, sorted by bytes per token (smallest at the top, as the roofline's x axis runs), the
 * model's name at the left and its bytes per token (MB) at the right. A type keeps one colour
 * across bars (ranked by total share; past the eighth, grey "other types"), named in a legend
 * below. The type the file's label names (gguf.composition.expected_type) is marked with a
 * triangle under its segment.
 *
 * Table: model, bytes per token, type, bytes, share (%), whether it is the label's type.
 * Ownership: the comp struct owns its strings (comp_free). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

#define COMP_TYPE_CHARS 16
#define COMP_COLOURS 8

typedef struct {
    char *label, *name, *expected;
    double bpt; /* bytes per token, 0 unknown */
    size_t order, n;
    char *type[RL_CHART_MAX_TYPES];
    double bytes[RL_CHART_MAX_TYPES], total;
    size_t key[RL_CHART_MAX_TYPES]; /* index into comp.types */
} comp_bar;

typedef struct {
    comp_bar b[RL_CHART_MAX_SERIES];
    size_t n, skipped;
    char *types[RL_CHART_MAX_SERIES * RL_CHART_MAX_TYPES]; /* distinct, by total share */
    double share[RL_CHART_MAX_SERIES * RL_CHART_MAX_TYPES];
    size_t n_types;
    bool any_expected;
} comp;

static void comp_free(void *data)
{
    comp *d = data;
    for (size_t i = 0; i < d->n; i++) {
        free(d->b[i].label);
        free(d->b[i].name);
        free(d->b[i].expected);
        for (size_t k = 0; k < d->b[i].n; k++)
            free(d->b[i].type[k]);
    }
}

static uint32_t type_color(size_t rank)
{
    static const uint32_t pal[COMP_COLOURS] = {
        RL_CHART_BLUE,   RL_CHART_ORANGE, RL_CHART_SKY,        RL_CHART_GREEN,
        RL_CHART_PURPLE, RL_CHART_YELLOW, RL_CHART_VERMILLION, 0x5D6D7Eu};
    return rank < COMP_COLOURS ? pal[rank] : 0xBBBBBBu;
}

static int cmp_bar(const void *a, const void *b)
{
    const comp_bar *x = a, *y = b;
    double bx = x->bpt > 0 ? x->bpt : 1e300, by = y->bpt > 0 ? y->bpt : 1e300;
    if (bx != by)
        return bx < by ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static rl_status comp_read(const rl_chart_kind *kind, const void *src, void *data, rl_error *err)
{
    const cJSON *bundle = src;
    comp *d = data;
    (void)kind;
    const cJSON *m;
    size_t idx = 0;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(bundle, "models"))
    {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(m, "gguf");
        comp_bar tmp;
        const char *names[RL_CHART_MAX_TYPES];
        memset(&tmp, 0, sizeof tmp);
        tmp.order = idx++;
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(g, "types"))
        {
            double bytes;
            uint64_t u;
            const char *ty = rl_json_get_str(t, "type");
            if (!rl_json_get_num(t, "bytes", &bytes))
                bytes = rl_json_get_u64(t, "bytes", &u) ? (double)u : 0;
            if (!ty || !rl_chart_sane(bytes) || tmp.n == RL_CHART_MAX_TYPES)
                continue;
            tmp.bytes[tmp.n] = bytes;
            tmp.total += bytes;
            names[tmp.n] = ty;
            tmp.n++;
        }
        if (tmp.n == 0 || !rl_chart_sane(tmp.total))
            continue;
        if (d->n == RL_CHART_MAX_SERIES) {
            d->skipped++;
            continue;
        }
        comp_bar *b = &d->b[d->n++];
        *b = tmp;
        bool oom = false;
        for (size_t k = 0; k < b->n; k++)
            oom |= !(b->type[k] = rl_chart_clean(names[k], COMP_TYPE_CHARS));
        const cJSON *bpt = cJSON_GetObjectItemCaseSensitive(m, "bytes_per_token");
        if (!rl_json_get_num(bpt, "value", &b->bpt) || !rl_chart_sane(b->bpt))
            b->bpt = 0;
        const char *id = rl_json_get_str(m, "id"), *nm = rl_json_get_str(m, "name");
        const char *ex =
            rl_json_get_str(cJSON_GetObjectItemCaseSensitive(g, "composition"), "expected_type");
        b->label = rl_chart_model_label(m, id ? id : "?");
        b->name = rl_chart_clean(nm ? nm : id, RL_CHART_CELL_CHARS);
        b->expected = ex ? rl_chart_clean(ex, COMP_TYPE_CHARS) : NULL;
        if (oom || !b->label || !b->name || (ex && !b->expected))
            return rl_fail(err, RL_EINTERNAL, "composition chart: out of memory");
    }
    if (d->n == 0)
        return rl_fail(err, RL_NOTHING, "composition chart: no model lists its tensor types");
    qsort(d->b, d->n, sizeof d->b[0], cmp_bar);
    /* distinct types, ranked by total share over the bars (ties: first seen) */
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->b[i].n; k++) {
            size_t j = 0;
            while (j < d->n_types && strcmp(d->types[j], d->b[i].type[k]) != 0)
                j++;
            if (j == d->n_types)
                d->types[d->n_types++] = d->b[i].type[k];
            d->share[j] += d->b[i].bytes[k] / d->b[i].total;
        }
    for (size_t i = 1; i < d->n_types; i++) /* stable insertion sort, descending share */
        for (size_t j = i; j > 0 && d->share[j] > d->share[j - 1]; j--) {
            char *t = d->types[j];
            d->types[j] = d->types[j - 1];
            d->types[j - 1] = t;
            double s = d->share[j];
            d->share[j] = d->share[j - 1];
            d->share[j - 1] = s;
        }
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->b[i].n; k++)
            for (size_t j = 0; j < d->n_types; j++)
                if (strcmp(d->types[j], d->b[i].type[k]) == 0) {
                    d->b[i].key[k] = j;
                    break;
                }
    for (size_t i = 0; i < d->n; i++)
        d->any_expected |= d->b[i].expected != NULL;
    return RL_OK;
}

static size_t comp_keys(const comp *d, rl_chart_key *keys)
{
    size_t n = 0;
    for (size_t j = 0; j < d->n_types && j < COMP_COLOURS; j++)
        keys[n++] = (rl_chart_key){
            d->types[j], RL_CHART_KEY_SWATCH, type_color(j), RL_CHART_CIRCLE, false, true};
    if (d->n_types > COMP_COLOURS)
        keys[n++] = (rl_chart_key){
            "other types", RL_CHART_KEY_SWATCH, type_color(COMP_COLOURS), RL_CHART_CIRCLE, false,
            true};
    if (d->any_expected)
        keys[n++] = (rl_chart_key){"the type the file's label names",
                                   RL_CHART_KEY_MARKER,
                                   RL_CHART_GREY,
                                   RL_CHART_TRIANGLE,
                                   false,
                                   true};
    return n;
}

static double comp_legend_h(rl_chart_canvas *cv, void *ctx)
{
    rl_chart_key keys[COMP_COLOURS + 2];
    size_t n = comp_keys(ctx, keys);
    return rl_chart_legend(cv, keys, n, 16, 0, RL_CHART_W - 32, false);
}

#define COMP_TOP 12.0
#define COMP_ROW 30.0
#define COMP_BAR 16.0

static void comp_draw(rl_chart_canvas *cv, void *ctx)
{
    const comp *d = ctx;
    double lw = 0, rw = 0;
    char mb[32];
    for (size_t i = 0; i < d->n; i++) {
        lw = fmax(lw, rl_chart_text_width(cv, d->b[i].label, RL_CHART_FS_LABEL, false));
        if (d->b[i].bpt > 0) {
            rl_fmt_mb(mb, sizeof mb, (uint64_t)d->b[i].bpt);
            rw = fmax(rw, rl_chart_text_width(cv, mb, RL_CHART_FS_LABEL, false));
        }
    }
    lw = fmin(lw, 230);
    rl_chart_rect plot = {12 + lw + 10, COMP_TOP, 0, d->n * COMP_ROW};
    plot.w = cv->w - plot.x - 12 - rw - 10;
    rl_chart_scale xs;
    rl_chart_scale_lin(&xs, 0, 100, true, plot.x, plot.x + plot.w);
    rl_chart_ticks xt;
    rl_chart_ticks_nice(&xs, &xt);
    rl_chart_axis_x(cv, &xs, &xt, &plot, "share of the file's tensor bytes (%)");
    for (size_t i = 0; i < d->n; i++) {
        const comp_bar *b = &d->b[i];
        double y = plot.y + i * COMP_ROW + (COMP_ROW - COMP_BAR) / 2 - 3, acc = 0;
        double mid = y + COMP_BAR / 2 + 0.35 * RL_CHART_FS_LABEL;
        rl_chart_text(cv, b->label, plot.x - 8, mid, RL_CHART_FS_LABEL, false, RL_CHART_END, 0,
                      "label");
        if (b->bpt > 0) {
            rl_fmt_mb(mb, sizeof mb, (uint64_t)b->bpt);
            rl_chart_text(cv, mb, plot.x + plot.w + 8, mid, RL_CHART_FS_LABEL, false,
                          RL_CHART_START, 0, "label");
        }
        for (size_t k = 0; k < b->n; k++) {
            double x0 = rl_chart_map(&xs, 100 * acc / b->total);
            acc += b->bytes[k];
            double x1 = rl_chart_map(&xs, 100 * acc / b->total);
            rl_chart_bar(cv, x0, y, x1 - x0, COMP_BAR, type_color(b->key[k]));
            if (b->expected && strcmp(b->expected, b->type[k]) == 0)
                rl_chart_marker(cv, RL_CHART_TRIANGLE, (x0 + x1) / 2, y + COMP_BAR + 5, 3.5,
                                RL_CHART_GREY, true);
        }
    }
    rl_chart_key keys[COMP_COLOURS + 2];
    size_t n = comp_keys(d, keys);
    rl_chart_legend(cv, keys, n, 16, plot.y + plot.h + 46, cv->w - 32, true);
}

static rl_status comp_table(rl_chart *c, const void *data, rl_error *err)
{
    const comp *d = data;
    static const char *const cols[] = {"model", "bytes per token", "type",
                                       "bytes", "share (%)",       "label's type"};
    rl_status st = rl_chart_table_cols(c, 6, cols, err);
    for (size_t i = 0; st == RL_OK && i < d->n; i++)
        for (size_t k = 0; st == RL_OK && k < d->b[i].n; k++) {
            const comp_bar *b = &d->b[i];
            char bpt[48] = "", bytes[48], share[48];
            if (b->bpt > 0)
                rl_chart_fmt_num(bpt, sizeof bpt, b->bpt);
            rl_chart_fmt_num(bytes, sizeof bytes, b->bytes[k]);
            rl_chart_fmt_num(share, sizeof share, 100 * b->bytes[k] / b->total);
            bool ex = b->expected && strcmp(b->expected, b->type[k]) == 0;
            const char *row[] = {b->name, bpt, b->type[k], bytes, share, ex ? "yes" : ""};
            st = rl_chart_table_row(c, row, err);
        }
    return st;
}

static char *comp_desc(const rl_chart_kind *kind, const void *data)
{
    const comp *d = data;
    char more[64] = "";
    (void)kind;
    if (d->skipped)
        rl_snprintf(more, sizeof more, " (%zu more not drawn)", d->skipped);
    return rl_asprintf("Share of each file's tensor bytes by ggml type, one bar per model%s, "
                       "sorted by bytes per token (MB, 10^6 bytes, at the right)%s.",
                       more,
                       d->any_expected ? "; a triangle marks the type the file's label names" : "");
}

static double comp_height(void *data)
{
    const comp *d = data;
    return ceil(COMP_TOP + d->n * COMP_ROW + 46 + rl_chart_measure(comp_legend_h, data) + 8);
}

static const rl_chart_kind comp_kind = {
    .id = "composition",
    .title = "What the file holds: bytes by tensor type",
    .what = "composition chart",
    .size = sizeof(comp),
    .read = comp_read,
    .desc = comp_desc,
    .table = comp_table,
    .height = comp_height,
    .draw = comp_draw,
    .free = comp_free,
};

rl_status rl_chart_composition(const cJSON *bundle, rl_chart *out, rl_error *err)
{
    return rl_chart_run(&comp_kind, bundle, out, err);
}
