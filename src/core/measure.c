#define _POSIX_C_SOURCE 200809L
#include "core/measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cold.h"
#include "core/stop.h"

/* The last measurement's samples (and the clock after each) in launch order, for the JSON. */
static _Thread_local double *kept, *kept_clocks;
static _Thread_local int kept_cap, kept_n, kept_have_clocks;
static _Thread_local struct kl_machine kept_machine;

const double *kl_measure_last_clocks(void)
{
    return kept_n && kept_have_clocks ? kept_clocks : NULL;
}

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
    p->cold = 0;
    p->min_clock = 0;
    p->cooldown = 0;
    p->shuffle = 0;
    p->runs = 1;
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
    if (!(p->min_clock >= 0 && p->min_clock <= 1))
        return kl_fail(e, KL_ERR_ARG, "minimum clock must be between 0 and 100 %% (got %g %%)",
                       p->min_clock * 100);
    if (!(p->cooldown >= 0))
        return kl_fail(e, KL_ERR_ARG, "cool-down must be >= 0 s (got %g)", p->cooldown);
    if (p->runs < 0 || p->runs > KL_MAX_RUNS)
        return kl_fail(e, KL_ERR_ARG, "runs must be 1 to %d (got %d)", KL_MAX_RUNS, p->runs);
    if (p->runs > 1 && p->cold == KL_COLD_BOTH)
        return kl_fail(e, KL_ERR_ARG,
                       "--runs and --warm-cold: each makes rows of its own; choose one");
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

/* Keeps a copy of the n samples and their clocks in launch order (none without memory). */
static void keep(const double *s, const double *clocks, int n)
{
    kept_n = 0;
    if (n > kept_cap) {
        double *more = realloc(kept, (size_t)n * sizeof *more);
        if (more)
            kept = more;
        double *more_clocks = more ? realloc(kept_clocks, (size_t)n * sizeof *more) : NULL;
        if (!more_clocks)
            return;
        kept_clocks = more_clocks;
        kept_cap = n;
    }
    memcpy(kept, s, (size_t)n * sizeof *s);
    memcpy(kept_clocks, clocks, (size_t)n * sizeof *s);
    kept_have_clocks = 0;
    for (int i = 0; i < n; i++)
        kept_have_clocks |= clocks[i] > 0;
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

/* NVML's SM clock for kl_measure: the machine window's. */
static double window_clock(void *w)
{
    return kl_machine_sm_now(w);
}

/* A launch the protocol takes again: its clock under --min-clock, while re-takes remain. */
static int retake(const struct kl_protocol *p, const struct kl_clock_source *clock, double mhz,
                  int retaken)
{
    return p->min_clock > 0 && clock && clock->max_mhz > 0 && mhz >= 0 &&
           mhz < p->min_clock * clock->max_mhz && retaken < KL_RETAKE_MAX;
}

static void pause_s(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

/*
 * The median SM cycles of n launches: each launch's seconds by the clock (MHz) read after
 * it; 0 where any clock is unknown or memory is short.
 */
static double median_cycles(const double *s, const double *clocks, int n)
{
    double *c = n > 0 ? malloc((size_t)n * sizeof *c) : NULL, median = 0;
    for (int i = 0; c && i < n; i++)
        if ((c[i] = s[i] * clocks[i] * 1e6) <= 0) {
            free(c);
            return 0;
        }
    if (c) {
        qsort(c, (size_t)n, sizeof *c, cmp_double);
        median = sorted_median(c, n);
    }
    free(c);
    return median;
}

/* The timed launches of one measurement: their times and the clock after each. */
struct timed {
    double *s, *clocks;
    int n, cap;
    double total; /* kernel seconds */
    int retaken;  /* launches taken again for a low clock */
    int low_kept; /* launches kept under --min-clock once the re-takes ran out */
};

/* Grows the sample and clock arrays to hold another (up to max); 0 out of memory. */
static int grow(struct timed *r, int max)
{
    int grown = r->cap * 2 < max ? r->cap * 2 : max;
    double *more = realloc(r->s, (size_t)grown * sizeof *more);
    if (more)
        r->s = more;
    double *more_clocks = more ? realloc(r->clocks, (size_t)grown * sizeof *more) : NULL;
    if (!more_clocks)
        return 0;
    r->clocks = more_clocks;
    r->cap = grown;
    return 1;
}

/*
 * Timed launches until the protocol has enough, each followed by a read of the clock; a
 * launch under --min-clock is discarded and taken again after a pause while re-takes remain.
 */
static enum kl_status timed_launches(struct kl_context *kl, const struct kl_protocol *p,
                                     kl_launch_fn fn, void *arg,
                                     const struct kl_clock_source *clock, struct timed *r,
                                     struct kl_err *e)
{
    enum kl_status st;
    int next_check = 0, met = 0;
    double t = 0;
    while (more(p, r->s, r->n, r->total, &next_check, &met)) {
        if (r->n == r->cap && !grow(r, p->max_repeats))
            return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        if ((st = timed_launch(kl, p, fn, arg, &t, e)) != KL_OK)
            return st;
        double mhz = clock ? clock->now(clock->arg) : -1;
        if (retake(p, clock, mhz, r->retaken)) { /* throttled: let the GPU recover, then again */
            r->retaken++;
            pause_s(KL_RETAKE_PAUSE_S);
            continue;
        }
        r->low_kept += p->min_clock > 0 && clock && mhz >= 0 && mhz < p->min_clock * clock->max_mhz;
        r->clocks[r->n] = mhz;
        r->s[r->n++] = t;
        r->total += t;
    }
    return KL_OK;
}

/* What the protocol and the clocks did to a row's machine: cycles, re-takes, spoiled energy. */
static void outcome(const struct kl_protocol *p, const struct timed *r, struct kl_machine *m)
{
    const char *spoiled = NULL;
    char why[128];
    m->cycles = median_cycles(r->s, r->clocks, r->n);
    m->retaken = r->retaken;
    m->low_kept = r->low_kept;
    if (p->cold) {
        spoiled = "no energy: with --cold the cache flushes between launches share the counter";
    } else if (r->retaken) {
        snprintf(why, sizeof why,
                 "no energy: %d launches were taken again after pauses for a low clock",
                 r->retaken);
        spoiled = why;
    }
    if (spoiled && m->joules >= 0) { /* they drew on the same counter */
        m->joules = -1;
        m->energy_ratio = 0;
        snprintf(m->why, sizeof m->why, "%s", spoiled);
    }
}

enum kl_status kl_measure(struct kl_context *kl, const struct kl_protocol *p, kl_launch_fn fn,
                          void *arg, struct kl_stats *out, struct kl_err *e)
{
    return kl_measure_clocked(kl, p, fn, arg, NULL, out, e);
}

enum kl_status kl_measure_clocked(struct kl_context *kl, const struct kl_protocol *p,
                                  kl_launch_fn fn, void *arg, const struct kl_clock_source *clock,
                                  struct kl_stats *out, struct kl_err *e)
{
    enum kl_status st = kl_protocol_check(p, e);
    double t = 0.0;
    struct timed r = {.cap = p->min_repeats};
    struct kl_machine_window *w;
    struct kl_machine machine;
    struct kl_clock_source nvml_clock;

    if (st != KL_OK)
        return st;
    if (kl && p->cooldown > 0)
        kl_machine_cooldown(kl, p->cooldown);
    kl_machine_begin(kl);
    for (int i = 0; i < p->warmup; i++)
        if ((st = fn(arg, &t, e)) != KL_OK)
            return st;
    r.s = malloc((size_t)r.cap * sizeof *r.s);
    r.clocks = malloc((size_t)r.cap * sizeof *r.clocks);
    if (!r.s || !r.clocks) {
        free(r.s);
        free(r.clocks);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    w = kl_machine_open(kl);
    if (!clock && w) {
        nvml_clock = (struct kl_clock_source){window_clock, kl_machine_sm_max(w), w};
        clock = &nvml_clock;
    }
    st = timed_launches(kl, p, fn, arg, clock, &r, e);
    kl_machine_close(kl, w, r.n, &machine);
    outcome(p, &r, &machine);
    kept_n = 0;
    if (st == KL_OK) {
        keep(r.s, r.clocks, r.n);
        kept_machine = machine;
        kl_stats_compute(r.s, r.n, out);
        out->machine = machine;
        out->noise_met = p->noise > 0 ? out->noise <= p->noise : -1;
    }
    free(r.s);
    free(r.clocks);
    return st;
}
