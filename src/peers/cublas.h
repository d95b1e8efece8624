/*
 * cuBLAS on device memory and a stream its caller owns, for work queued
 * without waiting (the multi-GPU GEMM's cuBLAS row, multi/summa.c).
 * Loaded with dlopen as the cuBLAS peer is (peers/cublas.c).
 */
#ifndef KL_PEERS_CUBLAS_H
#define KL_PEERS_CUBLAS_H

#include "core/error.h"

/*
 * A cuBLAS handle on CUDA device `device` (made current), default math (no
 * TF32), queuing on stream (a CUstream; NULL: the default stream).
 * KL_ERR_UNSUPPORTED with the reason where cuBLAS cannot be loaded.
 */
enum kl_status kl_cublas_handle_open(int device, void *stream, void **handle, struct kl_err *e);
void kl_cublas_handle_close(void *handle);

/*
 * Queues fp32 C = A·B for row-major A (M×K), B (K×N) and C (M×N) at
 * device addresses A, B and C, with cublasSgemm on the handle's stream.
 * The handle's device must be current.
 */
enum kl_status kl_cublas_sgemm_on(void *handle, int M, int N, int K, unsigned long long A,
                                  unsigned long long B, unsigned long long C, struct kl_err *e);
/* The same in fp64 with cublasDgemm (the multi-GPU GEMM's reference on a device). */
enum kl_status kl_cublas_dgemm_on(void *handle, int M, int N, int K, unsigned long long A,
                                  unsigned long long B, unsigned long long C, struct kl_err *e);

#endif /* KL_PEERS_CUBLAS_H */
