/* SPDX-License-Identifier: MIT */
/* stats.c: sample summaries, percentiles and the Student t critical value (see stats.h).
 *
 * Memory: rl_stats_summarize allocates one sorted copy of the sample and frees it before
 * returning; rl_stats_to_json hands the caller a new cJSON tree. */
#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_json.h"
#include "base/rl_util.h"

/* t such that P(|T| > t) = 0.05, df = 1..30, to 1e-12. */
static const double t95_table[30] = {
    12.706204736175, 4.302652729749, 3.182446305284, 2.776445105198, 2.570581835636, 2.446911851145,
    2.364624251593,  2.306004135204, 2.262157162798, 2.228138851986, 2.200985160092, 2.178812829667,
    2.160368656463,  2.144786687918, 2.131449545560, 2.119905299221, 2.109815577833, 2.100922040241,
    2.093024054408,  2.085963447266, 2.079613844728, 2.073873067904, 2.068657610419, 2.063898561628,
    2.059538552753,  2.055529438643, 2.051830516480, 2.048407141795, 2.045229642133, 2.042272456301,
};

#define Z975 1.959963984540054 /* standard normal 0.975 quantile */
#define CF_MAX_ITER 20000
#define CF_EPS 1e-15
#define CF_TINY 1e-300

/* Continued fraction part of the regularized incomplete beta I_x(a, b), valid and quickly
 * convergent for x < (a + 1) / (a + b + 2) (modified Lentz evaluation). y = 1 - x is passed
 * separately so a caller that knows it exactly loses no digits. */
static double incbeta_cf(double a, double b, double x, double y)
{
    int sign; /* lgamma_r: no write to the global signgam, so callers may run in threads */
    double lbeta = lgamma_r(a, &sign) + lgamma_r(b, &sign) - lgamma_r(a + b, &sign);
    double log_front = a * log(x) + b * log(y) - lbeta;
    double f = 1.0, c = 1.0, d = 0.0;
    for (int i = 0; i <= CF_MAX_ITER; i++) {
        double num;
        if (i == 0) {
            num = 1.0;
        } else {
            double m = (double)(i / 2);
            if (i % 2 == 0)
                num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
            else
                num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        }
        d = 1.0 + num * d;
        if (fabs(d) < CF_TINY)
            d = CF_TINY;
        d = 1.0 / d;
        c = 1.0 + num / c;
        if (fabs(c) < CF_TINY)
            c = CF_TINY;
        double cd = c * d;
        f *= cd;
        if (fabs(1.0 - cd) < CF_EPS)
            break;
    }
    return exp(log_front) / a * (f - 1.0);
}

/* Regularized incomplete beta I_x(a, b) with y = 1 - x. */
static double incbeta(double a, double b, double x, double y)
{
    if (x <= 0.0)
        return 0.0;
    if (y <= 0.0)
        return 1.0;
    if (x < (a + 1.0) / (a + b + 2.0))
        return incbeta_cf(a, b, x, y);
    return 1.0 - incbeta_cf(b, a, y, x);
}

double rl_stats_t_tail2(double t, double df)
{
    if (!(df > 0.0) || !isfinite(df) || !isfinite(t))
        return NAN;
    double t2 = t * t;
    if (t2 == 0.0)
        return 1.0;
    double x = df / (df + t2), y = t2 / (df + t2);
    return incbeta(df / 2.0, 0.5, x, y);
}

/* Cornish-Fisher expansion of the t quantile about the normal one (Abramowitz and Stegun
 * 26.7.5), four terms: its error at df > 1e6 is far below double precision. */
static double t95_expansion(double v)
{
    double z = Z975, z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    double g1 = (z3 + z) / 4.0;
    double g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
    double g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
    double g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
    return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

double rl_stats_t95(size_t df)
{
    if (df == 0)
        return NAN;
    if (df <= 30)
        return t95_table[df - 1];
    double v = (double)df;
    if (v > 1e6)
        return t95_expansion(v);
    /* tail2 falls as t grows; t95(31) = 2.03951 and every larger df lies between Z975 and it */
    double lo = Z975, hi = 2.0396;
    for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
        double mid = 0.5 * (lo + hi);
        if (rl_stats_t_tail2(mid, v) > 0.05)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double rl_stats_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0 || sorted == NULL || !(p >= 0.0 && p <= 100.0))
        return NAN;
    double h = (double)(n - 1) * p / 100.0;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    double frac = h - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

rl_status rl_stats_summarize(const double *x, size_t n, rl_stats_summary *out, rl_error *err)
{
    if (out == NULL)
        return rl_fail(err, RL_EINTERNAL, "stats: no output summary given");
    memset(out, 0, sizeof *out);
    if (n == 0)
        return RL_OK;
    if (x == NULL)
        return rl_fail(err, RL_EINPUT, "stats: %zu samples announced but none given", n);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return rl_fail(err, RL_EINPUT, "stats: sample %zu is not a finite number", i + 1);
    double *s = rl_calloc(n, sizeof *s);
    if (s == NULL)
        return rl_fail(err, RL_EINTERNAL, "stats: out of memory sorting %zu samples", n);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);

    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    out->n = n;
    out->has_center = true;
    out->mean = sum / (double)n;
    out->min = s[0];
    out->max = s[n - 1];
    out->p50 = rl_stats_percentile_sorted(s, n, 50.0);
    out->median = out->p50;
    out->p90 = rl_stats_percentile_sorted(s, n, 90.0);
    out->p95 = rl_stats_percentile_sorted(s, n, 95.0);
    out->p99 = rl_stats_percentile_sorted(s, n, 99.0);
    free(s);

    if (n >= 2) {
        double ss = 0.0;
        for (size_t i = 0; i < n; i++) {
            double dlt = x[i] - out->mean;
            ss += dlt * dlt;
        }
        out->has_sd = true;
        out->sd = sqrt(ss / (double)(n - 1));
        if (out->mean != 0.0) {
            out->has_cv = true;
            out->cv = out->sd / out->mean;
        }
        out->has_ci95 = true;
        out->ci95_t = rl_stats_t95(n - 1);
        double half = out->ci95_t * out->sd / sqrt((double)n);
        out->ci95_low = out->mean - half;
        out->ci95_high = out->mean + half;
    }
    return RL_OK;
}

cJSON *rl_stats_to_json(const rl_stats_summary *s)
{
    if (s == NULL || !s->has_center) {
        cJSON *o = rl_json_unavailable("no samples");
        if (o != NULL && !cJSON_AddNumberToObject(o, "n", 0)) {
            cJSON_Delete(o);
            return NULL;
        }
        return o;
    }
    cJSON *o = cJSON_CreateObject();
    if (o == NULL)
        return NULL;
    bool ok =
        cJSON_AddBoolToObject(o, "available", 1) && cJSON_AddStringToObject(o, "kind", "derived") &&
        cJSON_AddNumberToObject(o, "n", (double)s->n) &&
        cJSON_AddNumberToObject(o, "mean", s->mean) &&
        cJSON_AddNumberToObject(o, "median", s->median) &&
        cJSON_AddNumberToObject(o, "min", s->min) && cJSON_AddNumberToObject(o, "max", s->max) &&
        cJSON_AddNumberToObject(o, "p50", s->p50) && cJSON_AddNumberToObject(o, "p90", s->p90) &&
        cJSON_AddNumberToObject(o, "p95", s->p95) && cJSON_AddNumberToObject(o, "p99", s->p99);
    const char *one = "one sample cannot show spread";
    if (ok) {
        if (s->has_sd)
            ok = cJSON_AddNumberToObject(o, "sd", s->sd) != NULL;
        else
            ok = rl_json_attach(o, "sd", rl_json_unavailable(one));
    }
    if (ok) {
        if (s->has_cv)
            ok = cJSON_AddNumberToObject(o, "cv", s->cv) != NULL;
        else
            ok = rl_json_attach(o, "cv", rl_json_unavailable(s->has_sd ? "the mean is 0" : one));
    }
    if (ok) {
        cJSON *ci = NULL;
        if (s->has_ci95) {
            ci = cJSON_CreateObject();
            if (ci != NULL && !(cJSON_AddNumberToObject(ci, "low", s->ci95_low) &&
                                cJSON_AddNumberToObject(ci, "high", s->ci95_high) &&
                                cJSON_AddNumberToObject(ci, "t", s->ci95_t) &&
                                cJSON_AddNumberToObject(ci, "df", (double)(s->n - 1)) &&
                                cJSON_AddNumberToObject(ci, "level", 0.95))) {
                cJSON_Delete(ci);
                ci = NULL;
            }
        } else {
            ci = rl_json_unavailable(one);
        }
        ok = rl_json_attach(o, "ci95", ci);
    }
    return rl_json_kept(o, ok);
}
