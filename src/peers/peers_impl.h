/* The peers' entry points behind kl_peer_gemv (peers.c dispatches by name). */
#ifndef KL_PEERS_IMPL_H
#define KL_PEERS_IMPL_H

#include "peers/peers.h"

enum kl_status kl_clblast_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                               const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                               char *what, size_t n, struct kl_err *e);
enum kl_status kl_cublas_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                              const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e);

enum kl_status kl_clblast_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                               const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                               char *what, size_t n, struct kl_err *e);
enum kl_status kl_cublas_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                              const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e);
/* cuBLASLt for the narrow types (cublaslt.c): p->Bt is B transposed, C of kl_type_output. */
enum kl_status kl_cublaslt_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                                const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e);
enum kl_status kl_npp_blur(struct kl_context *kl, const struct kl_blur_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
enum kl_status kl_clblast_reduce(struct kl_context *kl, const struct kl_reduce_problem *p,
                                 const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                 char *what, size_t n, struct kl_err *e);
/* CUB's DeviceReduce through kladder's shim library (cub.c). */
enum kl_status kl_cub_reduce(struct kl_context *kl, const struct kl_reduce_problem *p,
                             const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                             char *what, size_t n, struct kl_err *e);
/* CUB's DeviceScan (InclusiveSum, ExclusiveSum) and DeviceHistogram (HistogramEven). */
enum kl_status kl_cub_scan(struct kl_context *kl, const struct kl_scan_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e);
enum kl_status kl_cub_histogram(struct kl_context *kl, const struct kl_histogram_problem *p,
                                const struct kl_protocol *proto, void *out,
                                struct kl_stats *stats, char *what, size_t n, struct kl_err *e);
/* cuBLAS's geam (cublas.c) and CLBlast's omatcopy (clblast.c): B = Aᵀ out of place. */
enum kl_status kl_cublas_transpose(struct kl_context *kl, const struct kl_transpose_problem *p,
                                   const struct kl_protocol *proto, void *out,
                                   struct kl_stats *stats, char *what, size_t n, struct kl_err *e);
enum kl_status kl_clblast_transpose(struct kl_context *kl, const struct kl_transpose_problem *p,
                                    const struct kl_protocol *proto, void *out,
                                    struct kl_stats *stats, char *what, size_t n, struct kl_err *e);
/* cuDNN's cudnnSoftmaxForward, and its graph API's layer and RMS norms (cudnn.c). */
enum kl_status kl_cudnn_softmax(struct kl_context *kl, const struct kl_softmax_problem *p,
                                const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e);
/*
 * The norm's operation (p->op 1 or 2) as the peer builds it before it needs a GPU, made,
 * finalized by cuDNN and freed: unsupported where libcudnn or its graph API is missing, a
 * failure where cuDNN refuses the descriptors. For the tests, which check kladder's
 * descriptors against the library wherever it is installed, GPU or not.
 */
enum kl_status kl_cudnn_norm_operation(const struct kl_softmax_problem *p, struct kl_err *e);
enum kl_status kl_openblas_gemm(const struct kl_gemm_problem *p, const struct kl_protocol *proto,
                                void *C, struct kl_stats *stats, char *what, size_t n,
                                struct kl_err *e);

#endif
