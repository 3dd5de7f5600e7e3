/* SPDX-License-Identifier: MIT */
/* analysis_quiet.c: noise (CV and hyperfine's outlier rule) and disturbance (from the machine
 * state recorded beside each measurement) for the analysis; rules and thresholds in
 * analysis.h, owned here. */
#include "analyse/analysis_quiet.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rl_text.h"
#include "base/rl_util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* hyperfine src/outlier_detection.rs: modified_zscores and num_outliers, the same rule. */
size_t rl_an_outliers(const double *x, size_t n)
{
    if (n < 1 || x == NULL)
        return 0;
    double *s = rl_calloc(n, sizeof *s);
    if (s == NULL)
        return SIZE_MAX;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double med = rl_stats_percentile_sorted(s, n, 50.0);
    for (size_t i = 0; i < n; i++)
        s[i] = fabs(x[i] - med);
    qsort(s, n, sizeof *s, cmp_double);
    double mad = rl_stats_percentile_sorted(s, n, 50.0);
    free(s);
    if (!(mad > 0.0))
        mad = DBL_EPSILON;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs((x[i] - med) / mad) > RL_AN_OUTLIER_SCORE)
            k++;
    return k;
}

rl_status rl_an_noise_of(const rl_an_rate *rate, rl_an_noise *out, rl_error *err)
{
    memset(out, 0, sizeof *out);
    if (rate->samples == NULL || rate->n < RL_AN_NOISE_MIN_N)
        return RL_OK;
    rl_stats_summary st;
    rl_status s = rl_stats_summarize(rate->samples, rate->n, &st, err);
    if (s != RL_OK)
        return s;
    size_t k = rl_an_outliers(rate->samples, rate->n);
    if (k == SIZE_MAX)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory counting outliers");
    out->available = true;
    out->n = rate->n;
    out->cv_pct = st.has_cv ? 100.0 * st.cv : NAN;
    out->outliers = k;
    out->noisy = st.has_cv && out->cv_pct > RL_AN_NOISY_CV_PCT;
    return RL_OK;
}

static const char *const KIND_ONE[RL_AN_MEAS_KINDS] = {"llama-bench run", "membw run",
                                                       "client point"};
static const char *const KIND_MANY[RL_AN_MEAS_KINDS] = {"llama-bench runs", "membw runs",
                                                        "client points"};

/* A limit from the bundle; unknown (0 or negative) counts any share above 0. */
static double limit_of(double v)
{
    return v > 0 ? v : 0.0;
}

/* "88% of the CPUs" style causes over the disturbed measurements. */
static void causes(rl_sbuf *b, const rl_an_input *in, const rl_an_disturbance *d)
{
    double lo = limit_of(in->limit_other_cpu_pct);
    double ls = limit_of(in->limit_steal_pct);
    bool any = false;
    if (isfinite(d->other_cpu_pct_max) && d->other_cpu_pct_max > lo) {
        rl_sbuf_printf(b, "other processes used %.0f%% of the CPUs", d->other_cpu_pct_max);
        any = true;
    }
    if (isfinite(d->steal_pct_max) && d->steal_pct_max > ls) {
        rl_sbuf_printf(b, "%sthe hypervisor took %.0f%% of the CPU time (steal)",
                       any ? " and " : "", d->steal_pct_max);
        any = true;
    }
    if (any)
        return;
    for (size_t i = 0; i < in->n_machine; i++)
        if (in->machine[i].disturbed && in->machine[i].why && *in->machine[i].why) {
            rl_sbuf_printf(b, "%s", in->machine[i].why);
            return;
        }
    rl_sbuf_printf(b, "the machine was busy");
}

/* "during 6 of 6 llama-bench runs" or "during 5 of 8 measurements (4 of 6 llama-bench runs,
 * 1 of 2 membw runs)": every kind with machine state is named. */
static void during(rl_sbuf *b, const rl_an_disturbance *d)
{
    size_t kinds = 0, only = 0;
    for (int k = 0; k < RL_AN_MEAS_KINDS; k++)
        if (d->n_kind[k] > 0) {
            kinds++;
            only = (size_t)k;
        }
    if (kinds == 1) {
        rl_sbuf_printf(b, " during %zu of %zu %s", d->n_disturbed, d->n,
                       d->n == 1 ? KIND_ONE[only] : KIND_MANY[only]);
        return;
    }
    rl_sbuf_printf(b, " during %zu of %zu measurements (", d->n_disturbed, d->n);
    bool first = true;
    for (int k = 0; k < RL_AN_MEAS_KINDS; k++) {
        if (d->n_kind[k] == 0)
            continue;
        rl_sbuf_printf(b, "%s%zu of %zu %s", first ? "" : ", ", d->n_kind_disturbed[k],
                       d->n_kind[k], d->n_kind[k] == 1 ? KIND_ONE[k] : KIND_MANY[k]);
        first = false;
    }
    rl_sbuf_printf(b, ")");
}

/* What to do: only steal (the host's load) is not cured by closing programs here; a client
 * session's operating points suffer in latency, not in a verdict. */
static const char *advice_of(const rl_an_disturbance *d)
{
    bool client_only = d->n_kind[RL_AN_MEAS_CLIENT] == d->n;
    if (d->n_steal > 0 && d->n_other_processes == 0)
        return client_only
                   ? "The host gave this virtual machine's CPUs to other guests (steal): nothing "
                     "on this machine can quiet that. Re-run later, with --wait-quiet 60 to wait "
                     "up to a minute for low steal before each operating point, or on dedicated "
                     "hardware; latencies measured under steal are high and scattered, and rates "
                     "low."
                   : "The host gave this virtual machine's CPUs to other guests (steal): nothing "
                     "on this machine can quiet that. Re-run later, with --wait-quiet 60 to wait "
                     "up to a minute for low steal before each measurement, or on dedicated "
                     "hardware; numbers measured under steal are low and scattered, and the "
                     "verdict can flip.";
    return client_only ? "Close other programs and re-run on a quiet machine, or re-run with "
                         "--wait-quiet 60 to wait up to a minute for one before each operating "
                         "point; latencies measured under load are high and scattered, and rates "
                         "low."
                       : "Close other programs and re-run on a quiet machine, or re-run with "
                         "--wait-quiet 60 to wait up to a minute for one before each "
                         "measurement; numbers measured under load are low and scattered, and "
                         "the verdict can flip.";
}

rl_status rl_an_disturbance_of(const rl_an_input *in, rl_an_disturbance *d, rl_error *err)
{
    memset(d, 0, sizeof *d);
    d->other_cpu_pct_max = d->steal_pct_max = NAN;
    if (in->machine == NULL || in->n_machine == 0) {
        d->reason = "no machine state recorded (older bundle)";
        return RL_OK;
    }
    d->available = true;
    for (size_t i = 0; i < in->n_machine; i++) {
        const rl_an_machine *m = &in->machine[i];
        int k = m->kind < RL_AN_MEAS_KINDS ? (int)m->kind : RL_AN_MEAS_LLAMA_BENCH;
        d->n++;
        d->n_kind[k]++;
        if (!m->disturbed)
            continue;
        d->n_disturbed++;
        d->n_kind_disturbed[k]++;
        if (isfinite(m->other_cpu_pct) && m->other_cpu_pct > limit_of(in->limit_other_cpu_pct))
            d->n_other_processes++;
        if (isfinite(m->steal_pct) && m->steal_pct > limit_of(in->limit_steal_pct))
            d->n_steal++;
        if (isfinite(m->other_cpu_pct) &&
            !(isfinite(d->other_cpu_pct_max) && d->other_cpu_pct_max >= m->other_cpu_pct))
            d->other_cpu_pct_max = m->other_cpu_pct;
        if (isfinite(m->steal_pct) &&
            !(isfinite(d->steal_pct_max) && d->steal_pct_max >= m->steal_pct))
            d->steal_pct_max = m->steal_pct;
    }
    d->disturbed = d->n_disturbed > 0;
    if (!d->disturbed)
        return RL_OK;
    rl_sbuf b = {0};
    causes(&b, in, d);
    during(&b, d);
    d->text = rl_sbuf_take(&b);
    d->advice = rl_strdup(advice_of(d));
    if (d->text == NULL || d->advice == NULL)
        return rl_fail(err, RL_EINTERNAL, "analysis: out of memory describing the disturbance");
    return RL_OK;
}
