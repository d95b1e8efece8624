/*
 * Rung 01: naive GEMM, C = A * B, accumulating straight into global C.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "row" -- row-major K x N, element (k, c) at B[k * N + c].
 * Geometry:  2-D NDRange, one work-item per element of C.
 *            r = get_global_id(0) (row), c = get_global_id(1) (column);
 *            local size WG0 x WG1 chosen by the host (no macro here).
 *            This is the mapping the article measured, so it is kept even
 *            though dimension 0 (the fast one on GPUs) walks down a column.
 * Change:    starting point of the ladder. Like the article, the sum is
 *            accumulated with C[r*N+c] += ... in global memory (a global
 *            read-modify-write per k: rung 03 removes it). Unlike the
 *            article, C[r*N+c] is zeroed first, so the result does not
 *            depend on what C held before and repeated launches give the
 *            same answer.
 * Aliasing: no `restrict` here, as in the article: C might overlap A or
 *            B, so the compiler must really store C at every k. (With
 *            `restrict`, a compiler may keep the sum in a register and
 *            quietly turn this rung into rung 03.)
 * Sizes:     any M, N, K >= 1. The host rounds the global size up to a
 *            multiple of the local size; work-items with r >= M or c >= N
 *            do nothing (there is no barrier, so skipping them is safe).
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void gemm(const __global TA *A, const __global TA *B, __global T *C,
                   const int M, const int N, const int K)
{
    const int r = get_global_id(0);
    const int c = get_global_id(1);

    if (r < M && c < N) {
        C[r * N + c] = 0;
        for (int k = 0; k < K; k++)
            C[r * N + c] += LD(A, r * K + k) * LD(B, k * N + c);
    }
}
