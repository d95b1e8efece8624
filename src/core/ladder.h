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

/*
 * The accessors of a workload's rung array: kl_<workload>_rung_count(),
 * kl_<workload>_rung_at(i) and a static struct kl_rung_table `table`.
 */
#define KL_RUNG_TABLE(workload, type, array)                                                       \
    int kl_##workload##_rung_count(void)                                                           \
    {                                                                                              \
        return (int)(sizeof array / sizeof *array);                                                \
    }                                                                                              \
    const type *kl_##workload##_rung_at(int i)                                                     \
    {                                                                                              \
        return i >= 0 && i < kl_##workload##_rung_count() ? &array[i] : NULL;                      \
    }                                                                                              \
    static const char *rung_name(int i)                                                            \
    {                                                                                              \
        return array[i].name;                                                                      \
    }                                                                                              \
    static const struct kl_param_def *rung_params(int i)                                           \
    {                                                                                              \
        return array[i].params;                                                                    \
    }                                                                                              \
    static const struct kl_rung_table table = {#workload, (int)(sizeof array / sizeof *array),     \
                                               rung_name, rung_params}

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
