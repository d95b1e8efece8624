/*
 * A GEMM rung on its bench (random A and B, their reference, the device's
 * buffers, made once) as the tuner's target: candidates checked by
 * kl_gemm_check and run by kl_gemm_bench_run, values capped by the matrix
 * extent they tile, and the GEMM rules of a sensible space.
 */
#ifndef KL_TUNE_GEMM_H
#define KL_TUNE_GEMM_H

#include "tune/tune.h"
#include "workloads/gemm/gemm.h"

struct kl_tune_gemm {
    struct kl_context *kl;
    struct kl_gemm_bench *bench;
    const struct kl_gemm_rung *rung;
    enum kl_type type;
    int M, N, K;
    /* Where TM, TN, BM, BN, BK, WM, WN and SPLITK sit among the rung's parameters (-1:
       absent), for the rules. */
    int tm, tn, bm, bn, bk, wm, wn, splitk;
    /* What the rung runs untuned (target.start): its preset for this device, type and size and
       the schedule's rules on it (kl_gemm_untuned_values), and what it is ("" where the
       defaults stand). */
    int start[KL_MAX_PARAMS];
    char start_config[160];
    struct kl_tune_target target; /* self is this struct: keep it in place */
};

/*
 * Fills g and g->target for rung r at M×N×K in type t; an error with the
 * reason where r cannot be tuned here (a host loop, CUDA C++ on OpenCL, a
 * rung the device cannot run). Where the rung runs untuned at values other
 * than its defaults (its preset for this device, type and size, and the
 * schedule's rules: the tiles', stream-K's, ...), the search starts from
 * them and measures the best against them (what `kladder gemm` runs
 * untuned), so that the cache never holds values the search timed slower.
 */
enum kl_status kl_tune_gemm_target(struct kl_context *kl, struct kl_gemm_bench *b,
                                   const struct kl_gemm_rung *r, enum kl_type t, int M, int N,
                                   int K, struct kl_tune_gemm *g, struct kl_err *e);

#endif /* KL_TUNE_GEMM_H */
