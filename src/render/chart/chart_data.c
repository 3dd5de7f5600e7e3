/* SPDX-License-Identifier: MIT */
/* chart_data.c: what the charts read from a bundle, and the rl_chart they fill (owner: chart).
 *
 * A bundle may be hostile: every number is checked before it is scaled or printed
 * (rl_chart_sane), every string is made safe for an XML text node and bounded in length
 * before it reaches a label or a table cell (rl_chart_clean). Rates are read the way the
 * analysis reads them (the mean of the samples, as stats.mean records it), or from "mean" for
 * imported runs whose samples are unavailable.
 *
 * Ownership: rl_chart_clean and rl_chart_model_label return malloc'd strings (caller frees);
 * every string an rl_chart holds is its own, released by rl_chart_free. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/bundle.h"
#include "render/chart/chart_int.h"
#include "base/rl_json.h"
#include "base/rl_text.h"
#include "base/rl_util.h"

uint32_t rl_chart_series_color(size_t i)
{
    static const uint32_t pal[] = {RL_CHART_BLUE,   RL_CHART_ORANGE, RL_CHART_GREEN,
                                   RL_CHART_PURPLE, RL_CHART_SKY,    RL_CHART_GREY};
    return pal[i % (sizeof pal / sizeof pal[0])];
}

rl_chart_shape rl_chart_series_shape(size_t i)
{
    static const rl_chart_shape sh[] = {RL_CHART_CIRCLE, RL_CHART_SQUARE, RL_CHART_TRIANGLE,
                                        RL_CHART_DIAMOND};
    return sh[i % 4];
}

rl_chart_key rl_chart_series_key(const char *text, size_t i, bool dashed)
{
    return (rl_chart_key){
        text, RL_CHART_KEY_LINE, rl_chart_series_color(i), rl_chart_series_shape(i), dashed, true};
}

bool rl_chart_sane(double v)
{
    return isfinite(v) && v > 0 && v < 1e15;
}

bool rl_chart_rate(const cJSON *rate, double *out)
{
    double v;
    const cJSON *stats = cJSON_GetObjectItemCaseSensitive(rate, "stats");
    if (rl_json_get_num(stats, "mean", &v) && rl_chart_sane(v)) {
        *out = v;
        return true;
    }
    if (rl_json_get_num(rate, "mean", &v) && rl_chart_sane(v)) {
        *out = v;
        return true;
    }
    double *x = NULL, sum = 0;
    size_t n = 0, k = 0;
    if (rl_json_values(cJSON_GetObjectItemCaseSensitive(rate, "samples"), &x, &n) != RL_OK)
        return false;
    for (size_t i = 0; i < n; i++)
        if (rl_chart_sane(x[i])) { /* NAN: not a number */
            sum += x[i];
            k++;
        }
    free(x);
    if (k == 0 || !rl_chart_sane(sum / (double)k))
        return false;
    *out = sum / (double)k;
    return true;
}

bool rl_chart_analysis_point(const cJSON *bundle, const cJSON *am, size_t *index,
                             const cJSON **model, double *tps, double *bytes, int64_t *threads)
{
    const char *id = rl_json_get_str(am, "id");
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(am, "operating_point");
    *model = rl_bundle_model(bundle, id, index);
    *tps = 0;
    *bytes = 0;
    if (!rl_json_get_num(op, "decode_tok_s", tps) || !rl_chart_sane(*tps))
        return false;
    const cJSON *bpt = cJSON_GetObjectItemCaseSensitive(*model, "bytes_per_token");
    uint64_t u;
    if (!rl_json_get_num(bpt, "value", bytes)) {
        if (rl_json_get_u64(bpt, "value", &u))
            *bytes = (double)u;
        else if (!rl_json_get_num(am, "bytes_per_token", bytes))
            *bytes = 0;
    }
    if (!rl_chart_sane(*bytes))
        return false;
    if (!rl_json_get_i64(op, "threads", threads) || *threads < 0)
        *threads = 0;
    return true;
}

/* Is the code point at p (k bytes, valid UTF-8) one XML 1.0 allows in text? */
static bool xml_char_ok(const unsigned char *p, size_t k)
{
    if (k == 1)
        return p[0] >= 0x20 || p[0] == '\t' || p[0] == '\n' || p[0] == '\r';
    if (k == 3 && p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF))
        return false; /* U+FFFE, U+FFFF */
    return true;
}

char *rl_chart_clean(const char *s, size_t max_chars)
{
    if (!s)
        s = "";
    size_t n = strnlen(s, max_chars * 4 + 4); /* enough bytes for max_chars characters */
    char *o = malloc(n * 3 + 4);              /* a bad byte becomes 3 bytes; "…" is 3 */
    if (!o)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, len = 0, chars = 0;
    while (i < n) {
        if (chars == max_chars) {
            memcpy(o + len, "\xE2\x80\xA6", 3);
            len += 3;
            break;
        }
        size_t k = rl_utf8_seq(p + i, n - i);
        if (k == 0 || !xml_char_ok(p + i, k)) {
            if (k == 1 && (p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) {
                o[len++] = ' ';
            } else {
                memcpy(o + len, "\xEF\xBF\xBD", 3);
                len += 3;
            }
            i += k ? k : 1;
        } else {
            memcpy(o + len, p + i, k);
            len += k;
            i += k;
        }
        chars++;
    }
    o[len] = '\0';
    return o;
}

void rl_chart_clean_line(const char *s, char *buf, size_t cap, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strnlen((const char *)p, max_chars * 4 + 4), i = 0, len = 0, chars = 0;
    bool space = true; /* drop leading blanks */
    if (cap == 0)
        return;
    while (i < n && len + 4 < cap) {
        size_t k = rl_utf8_seq(p + i, n - i);
        bool ctl = (k == 1 && (p[i] < 0x20 || p[i] == 0x7F)) ||
                   (k == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0); /* C0, DEL, C1 */
        if (k == 1 && p[i] == ' ')
            ctl = true;
        if (ctl) {
            if (!space && chars < max_chars)
                buf[len++] = ' ', chars++;
            space = true;
            i += k;
            continue;
        }
        if (chars == max_chars) {
            memcpy(buf + len, "\xE2\x80\xA6", 3);
            len += 3;
            break;
        }
        if (k == 0 || !xml_char_ok(p + i, k)) { /* not UTF-8, U+FFFE, U+FFFF */
            memcpy(buf + len, "\xEF\xBF\xBD", 3);
            len += 3;
            i += k ? k : 1;
        } else {
            memcpy(buf + len, p + i, k);
            len += k;
            i += k;
        }
        chars++;
        space = false;
    }
    while (len > 0 && buf[len - 1] == ' ')
        len--;
    buf[len] = '\0';
}

char *rl_chart_model_label(const cJSON *model, const char *fallback)
{
    const char *name = rl_json_get_str(model, "name");
    if (!name || !*name)
        name = fallback ? fallback : "?";
    size_t n = strnlen(name, 4096);
    char *tmp = malloc(n + 1);
    if (!tmp)
        return NULL;
    memcpy(tmp, name, n);
    tmp[n] = '\0';
    if (n > 5 && strcmp(tmp + n - 5, ".gguf") == 0)
        tmp[n - 5] = '\0';
    char *out = rl_chart_clean(tmp, RL_CHART_LABEL_CHARS);
    free(tmp);
    return out;
}

void rl_chart_fmt_num(char *buf, size_t cap, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        rl_snprintf(buf, cap, "%.0f", v);
    else
        rl_snprintf(buf, cap, "%.10g", v);
}

void rl_chart_fmt_gbs(char *buf, size_t cap, double gbs)
{
    rl_snprintf(buf, cap, gbs >= 100 ? "%.1f GB/s" : "%.2f GB/s", gbs);
}

rl_status rl_chart_set_text(rl_chart *c, const char *id, const char *title, const char *desc,
                            rl_error *err)
{
    c->id = rl_strdup(id);
    c->title = rl_chart_clean(title, 4096);
    c->desc = rl_chart_clean(desc, 8192);
    if (!c->id || !c->title || !c->desc)
        return rl_fail(err, RL_EINTERNAL, "chart %s: out of memory", id);
    return RL_OK;
}

rl_status rl_chart_table_cols(rl_chart *c, size_t n, const char *const *cols, rl_error *err)
{
    c->cols = rl_calloc(n, sizeof *c->cols);
    if (!c->cols)
        return rl_fail(err, RL_EINTERNAL, "chart table: out of memory");
    c->n_cols = n;
    for (size_t i = 0; i < n; i++)
        if (!(c->cols[i] = rl_strdup(cols[i])))
            return rl_fail(err, RL_EINTERNAL, "chart table: out of memory");
    return RL_OK;
}

rl_status rl_chart_table_row(rl_chart *c, const char *const *cells, rl_error *err)
{
    size_t base = c->n_rows * c->n_cols;
    char **v = realloc(c->cells, (base + c->n_cols) * sizeof *v);
    if (!v)
        return rl_fail(err, RL_EINTERNAL, "chart table: out of memory");
    c->cells = v;
    for (size_t i = 0; i < c->n_cols; i++)
        v[base + i] = NULL;
    c->n_rows++; /* counted now so rl_chart_free releases a half-filled row */
    for (size_t i = 0; i < c->n_cols; i++)
        if (!(v[base + i] = rl_chart_clean(cells[i] ? cells[i] : "", RL_CHART_CELL_CHARS)))
            return rl_fail(err, RL_EINTERNAL, "chart table: out of memory");
    return RL_OK;
}

void rl_chart_free(rl_chart *c)
{
    if (!c)
        return;
    free(c->id);
    free(c->title);
    free(c->desc);
    free(c->svg);
    for (size_t i = 0; c->cols && i < c->n_cols; i++)
        free(c->cols[i]);
    free(c->cols);
    for (size_t i = 0; c->cells && i < c->n_rows * c->n_cols; i++)
        free(c->cells[i]);
    free(c->cells);
    memset(c, 0, sizeof *c);
}
