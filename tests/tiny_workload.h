/* A tiny workload for the registry's test: tiny_workload.c. */
#ifndef KL_TEST_TINY_WORKLOAD_H
#define KL_TEST_TINY_WORKLOAD_H

#include "workloads/registry.h"

int kl_scale_rung_count(void);
const struct kl_rung_table *kl_scale_rungs(void);

/* "scale": y = 3·x of N 32-bit integers, two rungs, for the null device. */
extern const struct kl_workload_def kl_tiny_workload;

#endif /* KL_TEST_TINY_WORKLOAD_H */
