/*
 * The multi-GPU GEMM's reference on a device: every element of A·B and of
 * its scale |A|·|B| in double by cuBLAS DGEMM on the ladder's first device,
 * each checked on KL_GEMM_SPOT_CHECKS elements against direct double sums
 * on the host before it is trusted (workloads/gemm/gemm.h). At 32768³ the host's
 * BLAS took minutes for what the device does in seconds. Internal to
 * src/multi; CUDA only.
 */
#ifndef KL_MREF_H
#define KL_MREF_H

#include "multi/summa.h"
#include "workloads/gemm/gemm.h"

/* From this many multiply-adds (4096³) mgemm asks the device for its reference first. */
#define KL_MREF_WORK 68719476736.0

/*
 * The reference of env's problem (env->A, env->B, M×N×K) on env->dev[0]
 * (CUDA device `device`). KL_ERR_NO_MEMORY or KL_ERR_UNSUPPORTED where the
 * device or cuBLAS cannot take it, KL_ERR_VERIFY where the spot check
 * fails; e says why, and the caller falls back to the host.
 */
enum kl_status kl_mref_open(const struct kl_menv *env, int device, unsigned long long seed,
                            struct kl_gemm_reference **out, struct kl_err *e);

#endif /* KL_MREF_H */
