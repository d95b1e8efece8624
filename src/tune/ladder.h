/*
 * Tuning a user's kernel on its workload's ladder (`kladder tune WORKLOAD
 * --kernel FILE`), or one of the ladder's own rungs (`--rung R`, every
 * ladder but gemm, which has tune/gemm.c): the engine hands the rung to
 * kl_tune_ladder in place of its one row, with the workload's data and
 * reference made once; the rung's parameters are searched by tune.c, every candidate
 * checked (its geometry against the device) and run (built, verified,
 * timed) through the engine. The defaults and the best are then rows of
 * the ladder's report, timed by the confirmation protocol.
 */
#ifndef KL_TUNE_LADDER_H
#define KL_TUNE_LADDER_H

#include "core/ladder.h"
#include "tune/tune.h"

struct kl_tune_ladder {
    /* in: the search (seed, budget, protocols, callback); work and roof are set here */
    struct kl_tune_request req;
    /* out, for the caller's summary */
    char rung[64];
    struct kl_tune_space space;
    struct kl_tune_outcome out;
    int tuned; /* 1 once the search ran */
    /* the hook to put in the request (kl_tune_ladder_init sets it) */
    struct kl_ladder_tuner tuner;
    /* the rung searched, as the space's target (w and a only while the ladder runs) */
    struct kl_tune_target target;
    const struct kl_workload *w;
    const struct kl_ladder_args *a;
    int i;
    /* the rung's values untuned where the workload chooses them (target.start), and the name
       of that choice ("" where the defaults stand) */
    int start[KL_MAX_PARAMS];
    char start_config[128];
};

/* Sets t->tuner to call kl_tune_ladder with t; fill t->req before the ladder runs. */
void kl_tune_ladder_init(struct kl_tune_ladder *t);
/* Frees what the search kept for the summary. */
void kl_tune_ladder_free(struct kl_tune_ladder *t);

#endif /* KL_TUNE_LADDER_H */
