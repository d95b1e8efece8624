/*
 * The GEMM tuner: a rung's parameter space, built from its table and the
 * device's limits, and a search of it under a wall-time budget. Every
 * candidate is checked before it is built, built, verified and only then
 * timed (kl_gemm_bench_run); nothing here prints: the caller sees each
 * candidate through a callback.
 */
#ifndef KL_TUNE_H
#define KL_TUNE_H

#include <stdio.h>

#include "core/context.h"
#include "core/report.h"
#include "workloads/gemm.h"

#define KL_TUNE_MAX_VALUES 16

/*
 * The candidates of one rung at one size: for each parameter a list of
 * values (the powers of two in its range for a pow2 parameter, else its
 * multiple times powers of two, 0 where the range starts at 0, and its
 * default), then every combination that passes kl_gemm_check (ranges,
 * multiples, the relations between parameters, work-group size and shape,
 * local memory, a CPU's private arrays) and the sensible-space rules
 * (unless they would leave nothing): no value beyond the matrix extent it
 * tiles (rounded up to a power of two); register blocks (BM × BN) no more
 * than 4:1 from square; on a GPU no work-group below 32 work-items (where
 * the space has larger ones) and no work-item block (TM·TN + TM + TN
 * elements) above 640 bytes, 160 32-bit registers.
 */
struct kl_tune_space {
    const struct kl_gemm_rung *rung;
    int nparams;
    int nvalues[KL_MAX_PARAMS];
    int values[KL_MAX_PARAMS][KL_TUNE_MAX_VALUES]; /* ascending */
    long combinations;                             /* product of nvalues */
    long pruned;         /* combinations that break a constraint or a device limit */
    long pruned_rules;   /* ... or a sensible-space rule */
    int count;           /* candidates left */
    unsigned char *cand; /* count × nparams value indices, in lexicographic order */
    int default_index;   /* the candidate of the rung's defaults, -1 if not in the space */
};

enum kl_status kl_tune_space_build(struct kl_context *kl, const struct kl_gemm_rung *r,
                                   enum kl_type t, int M, int N, int K, struct kl_tune_space *s,
                                   struct kl_err *e);
void kl_tune_space_free(struct kl_tune_space *s);

/* Candidate i's values as "NAME=V" items (text holds them) and as "A=1,B=2"; returns nparams. */
int kl_tune_candidate(const struct kl_tune_space *s, int i, char text[][32], const char **items,
                      char *joined, size_t n);

/* What happened to one candidate. */
enum kl_tune_verdict {
    KL_TUNE_VERIFIED,    /* verified and timed */
    KL_TUNE_REJECTED,    /* built, but its result was wrong, or it did not compile */
    KL_TUNE_ABANDONED,   /* far slower than the best so far, or out of time */
    KL_TUNE_UNSUPPORTED, /* the compiled kernel cannot take the work-group */
};

struct kl_tune_state {
    int tried, verified, rejected, abandoned, unsupported;
    int best;           /* candidate index of the best so far, -1: none */
    double best_median; /* its median time */
    double elapsed_s;
    int confirming; /* the candidate was timed again with the full protocol */
};

struct kl_tune_request {
    enum kl_type type;
    int M, N, K;
    unsigned long long seed;    /* for sampling */
    double budget_s;            /* 0: none */
    int exhaustive;             /* every candidate, in order */
    struct kl_protocol search;  /* timing of every candidate */
    struct kl_protocol confirm; /* re-timing of the best few */
    int confirm_count;          /* how many (0: none) */
    double roof_gflops;         /* 95 % of it stops the search; 0: unknown */
    double start;               /* kl_now() at the start (the budget counts from it) */
    /* Called after every candidate; config is "A=1,B=2", res its result. */
    void (*on_candidate)(void *arg, const struct kl_tune_state *st, const char *config,
                         enum kl_tune_verdict v, const struct kl_result *res);
    void *arg;
};

struct kl_tune_outcome {
    struct kl_tune_state state;
    int exhaustive; /* every candidate was tried */
    int stopped_at_roof;
    int out_of_time;
    char strategy[32]; /* "exhaustive" or "search" */
    int have_best, have_default;
    struct kl_result best, dflt; /* verified results (confirmed where there was time) */
    char best_params[256], default_params[256];
};

/* The search: see the file comment above and docs/ARCHITECTURE.md. */
enum kl_status kl_tune_search(struct kl_context *kl, struct kl_gemm_bench *b,
                              const struct kl_tune_space *s, const struct kl_tune_request *req,
                              struct kl_tune_outcome *out);

/* A candidate this many times slower than the best so far is abandoned after one timed launch. */
#define KL_TUNE_SLOW_FACTOR 4.0
/* Spaces up to this many candidates are searched exhaustively. */
#define KL_TUNE_SMALL_SPACE 32

#endif /* KL_TUNE_H */
