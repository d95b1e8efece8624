/*
 * The public ladder API's parts the command line shares: the default
 * problem size of each workload on a device.
 */
#ifndef KL_API_LADDER_H
#define KL_API_LADDER_H

/*
 * Size i of a workload's problem when none is given (gemm M N K; copy N;
 * rowdot Y D; gemv M N; blur W H): one that finishes in well under a minute,
 * larger on a GPU than on a CPU. 0 for an unknown workload or i.
 */
long kl_default_size(const char *workload, int i, int is_gpu);

#endif /* KL_API_LADDER_H */
