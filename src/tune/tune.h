/*
 * The tuner: a rung's parameter space, built from its parameters' ranges
 * and the device's limits, and a search of it under a wall-time budget.
 * What is tuned is a target: a GEMM rung on its bench (tune/gemm.c) or any
 * rung of a ladder, the user's kernels included (tune/ladder.c). Every
 * candidate is checked before it is built, built, verified and only then
 * timed; nothing here prints: the caller sees each candidate through a
 * callback.
 */
#ifndef KL_TUNE_H
#define KL_TUNE_H

#include <stdio.h>

#include "core/context.h"
#include "core/measure.h"
#include "core/params.h"
#include "core/report.h"

#define KL_TUNE_MAX_VALUES 16

/*
 * What the search tunes: a rung's parameters (the space's axes) and how to
 * check and run one candidate, given as NAME=VALUE items for every
 * parameter.
 */
struct kl_tune_target {
    const char *name;                  /* the rung's, for messages */
    const struct kl_param_def *params; /* its parameters, KL_MAX_PARAMS at most */
    /* The values it runs with untuned where they are not its parameters' defaults (a
       workload's rule for the sizes: softmax's), one a parameter; NULL: the defaults. The
       search starts from them, and the best is measured against them ("the default"). */
    const int *start;
    void *self;
    /*
     * The problem extent a parameter tiles (values beyond it, rounded up to
     * a power of two, only waste work); 0: none; -1: the parameter is not
     * searched (its axis is its default, and the start's value where that
     * differs). NULL: no parameter does.
     */
    long (*extent)(void *self, const char *param);
    /*
     * Checks a candidate against the rung's rules and the device, building
     * nothing: KL_ERR_ARG or KL_ERR_UNSUPPORTED with the reason. *wg: its
     * work-group size (0: not known before the build).
     */
    enum kl_status (*check)(void *self, const char *const *items, int n, size_t *wg,
                            struct kl_err *e);
    /* 1 where a candidate's values (one per parameter) break a sensible-space rule; may be NULL. */
    int (*rules)(void *self, const int *values);
    /*
     * Builds, verifies and only then times a candidate by proto (within lim,
     * where the target honours it) into res: VERIFIED, FAILED with the
     * reason, or SKIPPED when lim abandoned it. Returns KL_ERR_ARG or
     * KL_ERR_UNSUPPORTED when it does not fit after all, KL_ERR_BUILD when it
     * does not compile, and device errors.
     */
    enum kl_status (*run)(void *self, const char *const *items, int n,
                          const struct kl_protocol *proto, struct kl_run_limits *lim,
                          struct kl_result *res);
    struct kl_err *err; /* where run and check leave their messages */
};

/*
 * The candidates of one rung at one size: for each parameter a list of
 * values (the powers of two in its range for a pow2 parameter, else its
 * multiple times powers of two, 0 where the range starts at 0, and its
 * default), then every combination that passes the target's check (for
 * GEMM: ranges, multiples, the relations between parameters, work-group
 * size and shape, local memory, a CPU's private arrays) and the
 * sensible-space rules (unless they would leave nothing): no value beyond
 * the extent it tiles (rounded up to a power of two); on a GPU no
 * work-group below 32 work-items (where the space has larger ones); the
 * target's own rules (tune/gemm.c).
 */
struct kl_tune_space {
    const struct kl_tune_target *target;
    int nparams;
    int nvalues[KL_MAX_PARAMS];
    int values[KL_MAX_PARAMS][KL_TUNE_MAX_VALUES]; /* ascending */
    long combinations;                             /* product of nvalues */
    long pruned;         /* combinations that break a constraint or a device limit */
    long pruned_rules;   /* ... or a sensible-space rule */
    int count;           /* candidates left */
    unsigned char *cand; /* count × nparams value indices, in lexicographic order */
    int default_index;   /* the candidate of its defaults (start), -1 if not in the space */
};

enum kl_status kl_tune_space_build(struct kl_context *kl, const struct kl_tune_target *t,
                                   struct kl_tune_space *s, struct kl_err *e);
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
    unsigned long long seed;    /* for sampling */
    double budget_s;            /* 0: none */
    int exhaustive;             /* every candidate, in order */
    struct kl_protocol search;  /* timing of every candidate */
    struct kl_protocol confirm; /* re-timing of the best few */
    int confirm_count;          /* how many (0: none) */
    double work;                /* per launch, in the roof's unit (FLOPs or bytes) */
    const char *unit;           /* work's rate in 1e9 per second, for messages: "GFLOP/s" */
    double roof;                /* work per second; 95 % of it stops the search; 0: unknown */
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
enum kl_status kl_tune_search(const struct kl_tune_space *s, const struct kl_tune_request *req,
                              struct kl_tune_outcome *out);

/* A candidate this many times slower than the best so far is abandoned after one timed launch. */
#define KL_TUNE_SLOW_FACTOR 4.0
/* The best few are timed again this many times each, taking turns (tune.c, confirm). */
#define KL_TUNE_CONFIRM_ROUNDS 3
/* Spaces up to this many candidates are searched exhaustively. */
#define KL_TUNE_SMALL_SPACE 32

#endif /* KL_TUNE_H */
