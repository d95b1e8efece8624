/*
 * Rung 02: naive GEMM with B transposed ("coalesced" in the article).
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N), still accumulating into global C.
 * B layout:  "col" -- column-major, i.e. B^T row-major N x K,
 *            element (k, c) at B[c * K + k].
 * Geometry:  as rung 01: 2-D, r = get_global_id(0), c = get_global_id(1),
 *            local size WG0 x WG1 from the host.
 * Change:    B is read as B[c*K+k] instead of B[k*N+c], so each work-item
 *            walks both A's row and B's column with unit stride.
 *            CPU: one work-item's loop now streams through contiguous
 *            memory for both operands instead of striding N elements
 *            through B, so every cache line fetched is fully used and the
 *            hardware prefetcher follows it: this is where the article
 *            saw the gain.
 *            GPU: little or no gain (the article saw none). Coalescing is
 *            about what NEIGHBOURING work-items read at the same k. With r
 *            in dimension 0, neighbours differ in r and share c, so they
 *            already read the very same B element (a broadcast) in both
 *            layouts, while their A reads A[r*K+k] stay K elements apart
 *            (uncoalesced) in both rungs. The transposition does not touch
 *            the access that actually hurts.
 * Aliasing: no `restrict` here, as in the article: C might overlap A or
 *            B, so the compiler must really store C at every k. (With
 *            `restrict`, a compiler may keep the sum in a register and
 *            quietly turn this rung into rung 03.)
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
__kernel void gemm(const __global TA *A, const __global TA *B, __global T *C,
                   const int M, const int N, const int K)
{
    const int r = get_global_id(0);
    const int c = get_global_id(1);

    if (r < M && c < N) {
        C[r * N + c] = 0;
        for (int k = 0; k < K; k++)
            C[r * N + c] += LD(A, r * K + k) * LD(B, c * K + k);
    }
}
