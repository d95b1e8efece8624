/*
 * How much one set of launch times moved against another: the ratio of
 * their medians and its confidence interval by the bootstrap, and the
 * verdict kladder compare draws from it.
 */
#ifndef KL_SHIFT_H
#define KL_SHIFT_H

#include <stddef.h>

/* Samples each set needs before an interval is drawn from them. */
#define KL_SHIFT_MIN_SAMPLES 5

struct kl_shift {
    double ratio;  /* median(b) / median(a) */
    double lo, hi; /* its 95 % interval: the 2.5th and 97.5th percentiles of the resampled ratios */
    double median_a, median_b; /* the medians (of each side's runs pooled) */
};

/*
 * The ratio of b's median to a's and its 95 % percentile-bootstrap interval:
 * 2000 times (fewer for sets of over 20 000 samples between them, so a
 * resampling costs about as much, but never under 200), each set resampled
 * with replacement on its own and the ratio of the two medians taken. The
 * random numbers start from a fixed seed, so the same samples give the same
 * interval. 0, or -1 where a set has fewer than KL_SHIFT_MIN_SAMPLES
 * samples, a sample is not a positive finite number, or memory runs out.
 */
int kl_shift_estimate(const double *a, int na, const double *b, int nb, struct kl_shift *out);

/* One run's launch times of a rung. */
struct kl_sample_set {
    const double *x;
    int n;
};

/*
 * kl_shift_estimate over several runs a side (ra of a, rb of b): the
 * medians are of each side's runs pooled, and each resampling draws the
 * side's runs with replacement and then each drawn run's launch times, so
 * the interval holds how the runs differ from each other as well as how
 * their launches vary. With one run a side it is kl_shift_estimate. Every
 * run needs KL_SHIFT_MIN_SAMPLES valid samples.
 */
int kl_shift_estimate_runs(const struct kl_sample_set *a, int ra, const struct kl_sample_set *b,
                           int rb, struct kl_shift *out);

/* The margin of "same" that `kladder compare` and a fleet's stragglers use: 1 % either way. */
#define KL_SHIFT_SAME_MARGIN 0.01

enum kl_shift_verdict {
    KL_SHIFT_SAME,      /* the interval lies within ±margin of 1 */
    KL_SHIFT_SLOWER,    /* the whole interval above 1, reaching past 1 + margin: b takes longer */
    KL_SHIFT_FASTER,    /* the whole interval below 1, reaching past 1 - margin */
    KL_SHIFT_UNDECIDED, /* the interval holds 1 but reaches past the margin: too noisy to say */
};

/*
 * The verdict on an interval, for times (above 1: slower): same where it
 * lies within [1 - margin, 1 + margin] (a difference smaller than the margin
 * is none worth a verdict, however surely the launches show it: separate
 * runs of one build differ by a few tenths of a percent on a GPU), else
 * slower or faster where it excludes 1, undecided otherwise.
 */
enum kl_shift_verdict kl_shift_judge(const struct kl_shift *s, double margin);

/*
 * The verdict where a side may have had one run (runs_a, runs_b: each side's
 * runs). With several runs a side the interval holds how runs differ, and
 * kl_shift_judge stands. With one, it holds only how the launches of one
 * run differ, while a power cap or another process moves whole runs: then a
 * verdict of slower or faster needs the whole interval beyond the device's
 * run-to-run spread for rows of this kind (spread_pct, `kladder peak`'s
 * figure: above 1 + spread, or below 1 - spread); until that spread is
 * measured (spread_pct <= 0), or within it, the verdict is undecided, and why
 * (n bytes) says why and which --runs decides it ("" otherwise).
 */
enum kl_shift_verdict kl_shift_judge_runs(const struct kl_shift *s, double margin, int runs_a,
                                          int runs_b, double spread_pct, char *why, size_t n);

/*
 * Whether to judge in cycles rather than in time: where both sides' SM clocks
 * are known (MHz > 0) and their medians differ by KL_SHIFT_CLOCK_MOVED or
 * more, the clock moved between the runs, and the launches' cycles are what a
 * change of the kernel leaves.
 */
#define KL_SHIFT_CLOCK_MOVED 0.02
int kl_shift_in_cycles(double mhz_a, double mhz_b);

/* "same", "slower", "faster" or "undecided". */
const char *kl_shift_verdict_name(enum kl_shift_verdict v);

#endif /* KL_SHIFT_H */
