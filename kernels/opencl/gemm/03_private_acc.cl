/*
 * Rung 03: accumulate in a private variable, write C once.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  as rung 02: 2-D, r = get_global_id(0), c = get_global_id(1),
 *            local size WG0 x WG1 from the host.
 * Change:    the running sum lives in a private variable (a register)
 *            instead of C[r*N+c]. Rungs 01-02 did a global load and a
 *            global store per multiply-add, which the compiler may not
 *            keep in a register (it cannot prove C does not alias A or B
 *            unless it trusts restrict). Now each k costs two loads and
 *            one FMA, and C is written exactly once.
 *            GPU: removes K global read-modify-writes per work-item, a
 *            large share of the memory traffic. CPU: the load/store chain
 *            through C[r*N+c] serialised every iteration; a register
 *            accumulator lets the loop pipeline (and vectorise).
 * Sizes:     any M, N, K >= 1; work-items with r >= M or c >= N do nothing
 *            (no barriers in this kernel).
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
    const int c = get_global_id(1);

    if (r < M && c < N) {
        T sum = 0;
        for (int k = 0; k < K; k++)
            sum += LD(A, r * K + k) * LD(B, c * K + k);
        C[r * N + c] = sum;
    }
}
