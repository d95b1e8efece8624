/*
 * Memory copy with instruction-level parallelism (seed 003): each work-item
 * copies ILP elements, element tid + j·blocksize, then vector loads. The
 * bandwidth is the seed's, 2·4·N bytes (read and written) per launch.
 */
#ifndef KL_COPY_H
#define KL_COPY_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

struct kl_copy_rung {
    const char *name;
    const char *summary;
    const char *file;
    int vec; /* elements per load: 1, 2 or 4 */
    int ilp; /* elements (vectors) per work-item; 0: the ILP parameter */
    struct kl_param_def params[KL_MAX_PARAMS];
    /*
     * The article's CUDA kernel as written (CUDA backend only): entry
     * ILPKernel(a, b, ILP, N), iDivUp(N / ILP, BS) blocks, and N must be a
     * multiple of BS·ILP, since the kernel has no bounds check past tid.
     */
    int seed_cuda;
};

int kl_copy_rung_count(void);
const struct kl_copy_rung *kl_copy_rung_at(int i);
const struct kl_rung_table *kl_copy_rungs(void); /* the registry's view */

struct kl_ladder_tuner;

struct kl_copy_request {
    long n; /* elements (4 bytes each) */
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const struct kl_ladder_tuner
        *tuner; /* NULL; else the chosen rung is tuned (tune/ladder.c) */
    int sweep;  /* N = 512, 1024, ... max_n for every chosen ILP rung */
    long max_n; /* largest N of the sweep */
};

/* Runs the ladder (or the sweep) and fills report; every copy is verified. */
enum kl_status kl_copy_ladder(struct kl_context *kl, const struct kl_copy_request *req,
                              struct kl_report *report);

#endif /* KL_COPY_H */
