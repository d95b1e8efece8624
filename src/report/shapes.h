/*
 * A GEMM shape sweep across saved runs: for each run (one shape) and each
 * precision, kladder's fastest verified rung of that precision against the
 * fastest verified library (peer) whose results meet the same tolerance, as
 * the run's own summary pairs them (kl_run_fastest). The chart puts the
 * shapes in order of their work, one series of ratios per precision, with
 * the lines at 1× and at KL_SHAPES_GOOD; the summary counts the shapes where
 * kladder is at least that fast. Nothing here reads files or prints text.
 */
#ifndef KL_REPORT_SHAPES_H
#define KL_REPORT_SHAPES_H

#include <stdio.h>

#include "report/run.h"

#define KL_SHAPES_MAX 64    /* shapes (runs) in one sweep */
#define KL_SHAPES_GOOD 0.95 /* "at the library's speed": this fraction of it or more */
#define KL_SHAPES_SERIES 10 /* precisions: kl_run_precisions */

/* One shape of one precision: its run, and kladder's best against the library's. */
struct kl_shape_point {
    int run;                              /* index into the runs given */
    const struct kl_run_row *best, *peer; /* both verified */
    double ratio;                         /* best->gflops / peer->gflops */
};

struct kl_shape_series {
    const char *precision;
    int n, good;                             /* points, and those at KL_SHAPES_GOOD or more */
    double lo, hi;                           /* the lowest and highest ratio */
    struct kl_shape_point pt[KL_SHAPES_MAX]; /* in the sweep's order */
};

struct kl_shapes {
    int n;                    /* GEMM runs, the sweep's shapes */
    int order[KL_SHAPES_MAX]; /* run index of the k-th shape, by FLOPs per launch */
    int nseries;
    struct kl_shape_series s[KL_SHAPES_SERIES];
};

/*
 * The sweep of the GEMM runs among runs[0..n-1]. 0 when there are two or
 * more, of different shapes, and some precision has a rung and a peer in
 * one of them; else -1 and why (for one sentence after "no shape chart: ").
 */
int kl_shapes_collect(const struct kl_run *runs, int n, struct kl_shapes *sh, char *why,
                      size_t nwhy);

/* A ratio as the pages print it (two decimals): one under KL_SHAPES_GOOD rounded down, so
   that 0.9494 reads 0.94, not the 0.95 it is counted below. */
double kl_shapes_shown(double ratio);

/* "4096×4096×4096" (M×N×K) of a GEMM run. */
void kl_shape_name(const struct kl_run *run, char *out, size_t n);

/* The chart: shapes along x, the ratio on y, a series per precision. */
void kl_svg_shapes(FILE *out, const struct kl_run *runs, const struct kl_shapes *sh, int id,
                   int standalone);

#endif /* KL_REPORT_SHAPES_H */
