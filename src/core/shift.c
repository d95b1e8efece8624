/*
 * The bootstrap interval of a ratio of medians (kl_shift_estimate) and its
 * verdict. Medians of resamples by quickselect, so a resample costs O(n).
 */
#include "core/shift.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* splitmix64: a small generator whose fixed seed makes every interval reproducible. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The k-th smallest of x[0..n) (x is reordered). */
static double select_kth(double *x, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = x[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                double t = x[i];
                x[i++] = x[j];
                x[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}

/* The median of x[0..n) (reordered), as kl_stats_compute takes it. */
static double median_of(double *x, int n)
{
    double upper = select_kth(x, n, n / 2);
    if (n % 2)
        return upper;
    double lower = x[0]; /* the largest of the n/2 below the upper middle */
    for (int i = 1; i < n / 2; i++)
        lower = x[i] > lower ? x[i] : lower;
    return 0.5 * (lower + upper);
}

/* The most samples a resampling of runs can draw: as many runs, each the largest. */
static long side_capacity(const struct kl_sample_set *s, int r)
{
    long most = 0;
    for (int i = 0; i < r; i++)
        most = s[i].n > most ? s[i].n : most;
    return most * r;
}

/* The median of the r runs pooled (into scratch). */
static double pooled_median(const struct kl_sample_set *s, int r, double *scratch)
{
    int m = 0;
    for (int i = 0; i < r; i++)
        for (int k = 0; k < s[i].n; k++)
            scratch[m++] = s[i].x[k];
    return median_of(scratch, m);
}

/* The median of r runs drawn with replacement, each run's times drawn with replacement. */
static double resampled_median(const struct kl_sample_set *s, int r, double *scratch,
                               uint64_t *state)
{
    int m = 0;
    for (int i = 0; i < r; i++) {
        const struct kl_sample_set *run = &s[r > 1 ? next_random(state) % (uint64_t)r : 0];
        for (int k = 0; k < run->n; k++)
            scratch[m++] = run->x[next_random(state) % (uint64_t)run->n];
    }
    return median_of(scratch, m);
}

static int valid(const double *x, int n)
{
    if (n < KL_SHIFT_MIN_SAMPLES)
        return 0;
    for (int i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return 0;
    return 1;
}

static int valid_runs(const struct kl_sample_set *s, int r)
{
    if (r < 1)
        return 0;
    for (int i = 0; i < r; i++)
        if (!valid(s[i].x, s[i].n))
            return 0;
    return 1;
}

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

int kl_shift_estimate_runs(const struct kl_sample_set *a, int ra, const struct kl_sample_set *b,
                           int rb, struct kl_shift *out)
{
    if (!valid_runs(a, ra) || !valid_runs(b, rb))
        return -1;
    long ca = side_capacity(a, ra), cb = side_capacity(b, rb), total = ca + cb;
    int resamples = total <= 20000 ? 2000 : (int)(2000 * 20000 / total);
    resamples = resamples < 200 ? 200 : resamples;
    double *scratch = malloc((size_t)(ca > cb ? ca : cb) * sizeof *scratch);
    double *ratios = malloc((size_t)resamples * sizeof *ratios);
    if (!scratch || !ratios) {
        free(scratch);
        free(ratios);
        return -1;
    }
    uint64_t state = 0x6b6c6164646572ull; /* "kladder" */
    out->median_a = pooled_median(a, ra, scratch);
    out->median_b = pooled_median(b, rb, scratch);
    out->ratio = out->median_b / out->median_a;
    for (int r = 0; r < resamples; r++) {
        double ra_median = resampled_median(a, ra, scratch, &state);
        ratios[r] = resampled_median(b, rb, scratch, &state) / ra_median;
    }
    qsort(ratios, (size_t)resamples, sizeof *ratios, cmp_double);
    out->lo = ratios[(int)(0.025 * resamples)];
    out->hi = ratios[(int)(0.975 * resamples) - 1];
    free(scratch);
    free(ratios);
    return 0;
}

int kl_shift_estimate(const double *a, int na, const double *b, int nb, struct kl_shift *out)
{
    const struct kl_sample_set sa = {a, na}, sb = {b, nb};
    return kl_shift_estimate_runs(&sa, 1, &sb, 1, out);
}

enum kl_shift_verdict kl_shift_judge(const struct kl_shift *s, double margin)
{
    if (s->lo >= 1 - margin && s->hi <= 1 + margin)
        return KL_SHIFT_SAME; /* whatever the difference is, it is under the margin */
    if (s->lo > 1)
        return KL_SHIFT_SLOWER;
    if (s->hi < 1)
        return KL_SHIFT_FASTER;
    return KL_SHIFT_UNDECIDED;
}

enum kl_shift_verdict kl_shift_judge_runs(const struct kl_shift *s, double margin, int runs_a,
                                          int runs_b, double spread_pct, char *why, size_t n)
{
    enum kl_shift_verdict v = kl_shift_judge(s, margin);
    double spread = spread_pct / 100;
    why[0] = '\0';
    if ((v != KL_SHIFT_SLOWER && v != KL_SHIFT_FASTER) || (runs_a > 1 && runs_b > 1))
        return v;
    if (!(spread_pct > 0)) {
        snprintf(why, n,
                 "a side of one run, and the device's run-to-run spread for such rows is not "
                 "measured (kladder peak measures it); --runs 5 on both sides decides");
        return KL_SHIFT_UNDECIDED;
    }
    if ((v == KL_SHIFT_SLOWER && s->lo > 1 + spread) || (v == KL_SHIFT_FASTER && s->hi < 1 - spread))
        return v;
    snprintf(why, n,
             "a side of one run, and the change is within the device's run-to-run spread of %.2g%% "
             "for such rows; --runs 5 on both sides decides",
             spread_pct);
    return KL_SHIFT_UNDECIDED;
}

int kl_shift_in_cycles(double mhz_a, double mhz_b)
{
    return mhz_a > 0 && mhz_b > 0 && fabs(mhz_b / mhz_a - 1) >= KL_SHIFT_CLOCK_MOVED - 1e-9;
}

const char *kl_shift_verdict_name(enum kl_shift_verdict v)
{
    switch (v) {
    case KL_SHIFT_SAME: return "same";
    case KL_SHIFT_SLOWER: return "slower";
    case KL_SHIFT_FASTER: return "faster";
    case KL_SHIFT_UNDECIDED: return "undecided";
    }
    return "?";
}
