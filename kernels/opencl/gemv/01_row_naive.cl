/*
 * Rung 01 (row-major A): one work-item per row.
 *
 * Computes   y[i] = alpha * sum_j A[i*N + j] * x[j] + beta * y[i]
 *            for i < M, j < N (A row-major M x N). As in BLAS, when
 *            beta == 0 y is not read (it may hold NaN or Inf) and
 *            y[i] = alpha * dot is written.
 * Geometry:  1-D, i = get_global_id(0) is the row; local size WG chosen
 *            by the host, global size = M rounded up to a multiple of WG.
 * Macros:    none.
 * Change:    the baseline. Each work-item walks its own row sequentially,
 *            so on a GPU neighbouring work-items read addresses N elements
 *            apart (uncoalesced: each load instruction of a warp touches
 *            up to 32 different cache lines), while x[j] is the same
 *            address for all of them (a broadcast).
 * Sizes:     any M, N >= 1. Work-items with i >= M do nothing (no barrier
 *            in this kernel). Row offsets are computed in size_t, so
 *            M * N may exceed INT_MAX. Each y[i] is read at most once and
 *            written once, by one work-item.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */

__kernel void gemv(const __global T *restrict A, const __global T *restrict x,
                   __global T *restrict y, const int M, const int N,
                   const T alpha, const T beta)
{
    const int i = get_global_id(0);

    if (i < M) {
        const __global T *a = A + (size_t)i * N;
        T acc = 0;
        for (int j = 0; j < N; j++)
            acc += a[j] * x[j];
        T res = alpha * acc;
        if (beta != (T)0)
            res += beta * y[i];
        y[i] = res;
    }
}
