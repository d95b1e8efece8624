/*
 * Rung 04: one work-item per row of C.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D NDRange, r = get_global_id(0) is the row; the work-item
 *            loops over every column c of that row. Local size WG from the
 *            host (no macro here).
 * Change:    M work-items instead of M x N, each doing N dot products.
 *            This is the article's preparation for the next rungs: with a
 *            whole row of C per work-item, A's row r is reused N times by
 *            the same work-item and can be kept close (rung 05).
 *            GPU: on its own this exposes far less parallelism (M
 *            work-items) and is usually slower; it only pays off once the
 *            row is cached. CPU: fewer, longer work-items mean less
 *            scheduling overhead and A's row stays hot in L1 across the
 *            column loop.
 * Sizes:     any M, N, K >= 1; work-items with r >= M do nothing (no
 *            barriers in this kernel).
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void gemm(const __global TA *restrict A, const __global TA *restrict B,
                   __global T *restrict C, const int M, const int N,
                   const int K)
{
    const int r = get_global_id(0);

    if (r < M) {
        for (int c = 0; c < N; c++) {
            T sum = 0;
            for (int k = 0; k < K; k++)
                sum += LD(A, r * K + k) * LD(B, c * K + k);
            C[r * N + c] = sum;
        }
    }
}
