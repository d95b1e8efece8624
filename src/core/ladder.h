/*
 * Choosing rungs from a workload's table: by exact name or unique prefix,
 * in ladder order, with every --param name checked against the chosen
 * rungs. Workloads describe their table through two accessors.
 */
#ifndef KL_LADDER_H
#define KL_LADDER_H

#include "core/params.h"

struct kl_rung_table {
    const char *workload; /* for messages: "gemm" */
    int count;
    const char *(*name)(int i);
    const struct kl_param_def *(*params)(int i);
};

/* The rung whose name is name or starts with it (unique), or -1. */
int kl_rung_lookup(const struct kl_rung_table *t, const char *name);

/*
 * Fills chosen[] (t->count entries at most) with the indices of the named
 * rungs in ladder order, or of every rung when nnames is 0, and checks that
 * each NAME=VALUE in params names a parameter of a chosen rung.
 */
enum kl_status kl_rungs_choose(const struct kl_rung_table *t, const char *const *names, int nnames,
                               const char *const *params, int nparams, int *chosen, int *nchosen,
                               struct kl_err *e);

#endif /* KL_LADDER_H */
