/*
 * Rung 11 (column-major A): one work-item per row.
 *
 * Computes   y[i] = alpha * sum_j A[i + j*M] * x[j] + beta * y[i]
 *            for i < M, j < N (A column-major M x N: column j is
 *            contiguous). As in BLAS, when beta == 0 y is not read (it
 *            may hold NaN or Inf).
 * Geometry:  1-D, i = get_global_id(0) is the row; local size WG chosen
 *            by the host, global size = M rounded up to a multiple of WG.
 * Macros:    none.
 * Change:    same loop as row-major rung 01, but with A stored by
 *            columns: at every step j, neighbouring work-items i, i+1, ...
 *            read A[i + j*M], A[i+1 + j*M], ...: consecutive addresses,
 *            so a warp's loads coalesce into few transactions, and x[j]
 *            is one address for the whole warp (a broadcast). This layout
 *            is the easy case for one work-item per row.
 * Sizes:     any M, N >= 1. Work-items with i >= M do nothing (no barrier
 *            in this kernel). Offsets j*M are computed in size_t, so
 *            M * N may exceed INT_MAX.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */

__kernel void gemv(const __global T *restrict A, const __global T *restrict x,
                   __global T *restrict y, const int M, const int N,
                   const T alpha, const T beta)
{
    const int i = get_global_id(0);

    if (i < M) {
        const __global T *a = A + i;
        T acc = 0;
        for (int j = 0; j < N; j++)
            acc += a[(size_t)j * M] * x[j];
        T res = alpha * acc;
        if (beta != (T)0)
            res += beta * y[i];
        y[i] = res;
    }
}
