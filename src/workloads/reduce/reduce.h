/*
 * The reduction ladder: the sum, minimum or maximum of n elements (float,
 * double or int; int sums wrap modulo 2^32), from the textbook's first tree
 * in local memory to one pass at the read ceiling. A memory-bound ladder:
 * each element is read once and combined once.
 *
 * The folder, read in this order: rungs.c (the table and each rung's
 * launches), data.c (the inputs, the reference and the verdict), ladder.c
 * (one rung's run, the peers, the entry).
 */
#ifndef KL_REDUCE_H
#define KL_REDUCE_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

enum kl_reduce_op { KL_REDUCE_SUM, KL_REDUCE_MIN, KL_REDUCE_MAX };
/* random: uniform values (every 32-bit int); skewed: magnitudes over 2^±20 (ints mostly
   small, one in 1024 near ±2^30), the extremes in the last two elements */
enum kl_reduce_data { KL_REDUCE_RANDOM, KL_REDUCE_SKEWED };

/* How a rung covers its m input values with work-groups. */
enum kl_reduce_geometry {
    KL_RED_HOST,     /* a loop on the host */
    KL_RED_PER_ITEM, /* PER elements per work-item: div_up(m, PER·WG) groups, pass after pass */
    KL_RED_RESIDENT  /* min(GPC·compute units, div_up(m, VEC·WG)) groups striding over all */
};

/* Values measured best for a rung on one kind of device (cc 0: none). */
struct kl_reduce_preset {
    int cc;             /* compute capability × 10 (90: Hopper) */
    const char *params; /* "NAME=VALUE,NAME=VALUE" */
};

struct kl_reduce_rung {
    const char *name;
    const char *summary;
    const char *file; /* NULL: the host rung */
    enum kl_reduce_geometry geometry;
    int per;             /* KL_RED_PER_ITEM: elements per work-item; KL_RED_RESIDENT: per load */
    int one_pass;        /* the last group finishes: one launch, part[] and the counter */
    int needs_subgroups; /* built only where the device has sub-groups */
    struct kl_param_def params[KL_MAX_PARAMS];
    struct kl_reduce_preset preset; /* where --param sets none of its own */
};

int kl_reduce_rung_count(void);
const struct kl_reduce_rung *kl_reduce_rung_at(int i);
const struct kl_rung_table *kl_reduce_rungs(void); /* the registry's view */

/* Work-groups of rung r (values v) for m inputs on a device of cus compute units. */
long kl_reduce_groups(const struct kl_reduce_rung *r, const int *v, long m, unsigned cus);

/* The operation's name ("sum"), and the operation of a name (-1: none). */
const char *kl_reduce_op_name(enum kl_reduce_op op);
int kl_reduce_op_parse(const char *name);

struct kl_ladder_tuner;

struct kl_reduce_request {
    int n;
    enum kl_type type; /* float, double or int */
    enum kl_reduce_op op;
    enum kl_reduce_data data;
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const char *const *peers; /* "cub" */
    int npeers;
    const struct kl_ladder_tuner *tuner; /* NULL; else the chosen rung is tuned */
};

enum kl_status kl_reduce_ladder(struct kl_context *kl, const struct kl_reduce_request *req,
                                struct kl_report *report);

#endif /* KL_REDUCE_H */
