#include "core/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cold.h"
#include "core/stop.h"

/* The last measurement's samples in launch order, kept for kl_stats.samples. */
static _Thread_local double *kept;
static _Thread_local int kept_cap, kept_n;
static _Thread_local struct kl_machine kept_machine;

int kl_measure_last(const double **samples, struct kl_machine *machine)
{
    *samples = kept;
    if (machine)
        *machine = kept_machine;
    return kept_n;
}

void kl_measure_forget(void)
{
    kept_n = 0;
}

void kl_protocol_default(struct kl_protocol *p)
{
    p->warmup = 2;
    p->min_repeats = 5;
    p->min_time = 0.1;
    p->max_repeats = 100000;
    p->noise = 0;
    p->max_time = 0;
}

enum kl_status kl_protocol_check(const struct kl_protocol *p, struct kl_err *e)
{
    if (p->warmup < 0)
        return kl_fail(e, KL_ERR_ARG, "warm-up count must be >= 0 (got %d)", p->warmup);
    if (p->min_repeats < 1)
        return kl_fail(e, KL_ERR_ARG, "repeat count must be >= 1 (got %d)", p->min_repeats);
    if (!(p->min_time >= 0.0))
        return kl_fail(e, KL_ERR_ARG, "minimum time must be >= 0 (got %g)", p->min_time);
    if (p->max_repeats < p->min_repeats)
        return kl_fail(e, KL_ERR_ARG, "maximum repeats (%d) below minimum repeats (%d)",
                       p->max_repeats, p->min_repeats);
    if (!(p->noise >= 0 && p->noise <= 1))
        return kl_fail(e, KL_ERR_ARG, "noise target must be between 0 and 100 %% (got %g %%)",
                       p->noise * 100);
    if (!(p->max_time >= 0))
        return kl_fail(e, KL_ERR_ARG, "maximum time must be >= 0 (got %g)", p->max_time);
    return KL_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n >= 1 sorted values. */
static double sorted_median(const double *x, int n)
{
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* kl_median_noise of n >= 2 values already sorted: one more sort, of their deviations. */
static double sorted_noise(const double *x, int n)
{
    double median = sorted_median(x, n), *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return NAN;
    for (int i = 0; i < n; i++)
        d[i] = fabs(x[i] - median);
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    double mad = sorted_median(d, n);
    free(d);
    return median > 0 ? 1.2533 * 1.4826 * mad / (median * sqrt((double)n)) : NAN;
}

double kl_median_noise(const double *s, int n)
{
    double *x = n >= 2 ? malloc((size_t)n * sizeof *x) : NULL;
    if (!x)
        return NAN;
    memcpy(x, s, (size_t)n * sizeof *x);
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double noise = sorted_noise(x, n);
    free(x);
    return noise;
}

double kl_noise_max_time(const struct kl_protocol *p)
{
    return p->max_time > 0 ? p->max_time : KL_NOISE_MAX_TIME;
}

void kl_stats_compute(double *s, int n, struct kl_stats *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    out->machine.joules = -1;
    out->noise = NAN;
    out->noise_met = -1;
    if (n <= 0)
        return;
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    out->min = s[0];
    out->max = s[n - 1];
    out->mean = sum / n;
    out->median = sorted_median(s, n);
    if (n >= 2)
        out->noise = sorted_noise(s, n);
}

/* Keeps a copy of the n samples in launch order (none without memory). */
static void keep(const double *s, int n)
{
    kept_n = 0;
    if (n > kept_cap) {
        double *more = realloc(kept, (size_t)n * sizeof *more);
        if (!more)
            return;
        kept = more;
        kept_cap = n;
    }
    memcpy(kept, s, (size_t)n * sizeof *s);
    kept_n = n;
}

/*
 * Whether the protocol wants another launch after n of them and total seconds: below its
 * count or time; then, with a noise target, until the median's noise reaches it (checked
 * every quarter more launches, as it costs a sort) or the time limit passes. *met says
 * whether the target was reached.
 */
static int more(const struct kl_protocol *p, const double *s, int n, double total, int *next_check,
                int *met)
{
    if (n >= p->max_repeats)
        return 0;
    if (n < p->min_repeats || total < p->min_time)
        return 1;
    if (p->noise <= 0 || *met)
        return 0;
    if (total >= kl_noise_max_time(p))
        return 0;
    if (n < *next_check)
        return 1;
    *next_check = n + (n / 4 > 16 ? n / 4 : 16);
    *met = kl_median_noise(s, n) <= p->noise;
    return !*met;
}

/* One timed launch: unless a stop was asked for; with --cold after a flush of the cache. */
static enum kl_status timed_launch(struct kl_context *kl, const struct kl_protocol *p,
                                   kl_launch_fn fn, void *arg, double *t, struct kl_err *e)
{
    enum kl_status st;
    if (kl_stop_requested())
        return kl_stop_fail(e);
    if (p->cold && kl && (st = kl_cold_flush(kl, e)) != KL_OK)
        return st;
    return fn(arg, t, e);
}

enum kl_status kl_measure(struct kl_context *kl, const struct kl_protocol *p, kl_launch_fn fn,
                          void *arg, struct kl_stats *out, struct kl_err *e)
{
    enum kl_status st = kl_protocol_check(p, e);
    double t = 0.0, total = 0.0;
    int cap = p->min_repeats, n = 0, next_check = 0, met = 0;
    double *s = NULL;
    struct kl_machine_window *w = NULL;
    struct kl_machine machine;

    if (st != KL_OK)
        return st;
    kl_machine_begin(kl);
    for (int i = 0; i < p->warmup; i++)
        if ((st = fn(arg, &t, e)) != KL_OK)
            return st;
    s = malloc((size_t)cap * sizeof *s);
    if (!s)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    w = kl_machine_open(kl);
    while (more(p, s, n, total, &next_check, &met)) {
        if (n == cap) {
            int grown = cap * 2 < p->max_repeats ? cap * 2 : p->max_repeats;
            double *more = realloc(s, (size_t)grown * sizeof *s);
            if (!more) {
                st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
                goto free_samples;
            }
            s = more;
            cap = grown;
        }
        if ((st = timed_launch(kl, p, fn, arg, &t, e)) != KL_OK)
            goto free_samples;
        s[n++] = t;
        total += t;
    }
free_samples:
    kl_machine_close(kl, w, n, &machine);
    if (p->cold && kl && machine.joules >= 0) { /* the flushes drew on the same counter */
        machine.joules = -1;
        snprintf(machine.why, sizeof machine.why,
                 "no energy: with --cold the cache flushes between launches share the counter");
    }
    kept_n = 0;
    if (st == KL_OK) {
        keep(s, n);
        kept_machine = machine;
        kl_stats_compute(s, n, out);
        out->machine = machine;
        out->noise_met = p->noise > 0 ? out->noise <= p->noise : -1;
    }
    free(s);
    return st;
}
