/*
 * Rung 13 (column-major A): split the columns over S work-items per row,
 * then reduce (for few rows and many columns). Two kernels, run one after
 * the other on the same queue.
 *
 * Computes   y[i] = alpha * sum_j A[i + j*M] * x[j] + beta * y[i]
 *            for i < M, j < N (A column-major M x N). As in BLAS, when
 *            beta == 0 y is not read (it may hold NaN or Inf).
 *
 * gemv_partial(A, x, work, M, N, S)
 *   Geometry: 2-D. Dimension 0 over rows: i = get_global_id(0), global
 *             size M rounded up to a multiple of WG0, local size WG0
 *             (enforced with reqd_work_group_size). Dimension 1 over the
 *             S column splits: s = get_global_id(1), global size exactly
 *             S, local size 1.
 *   Work:     with CS = ceil(N / S) columns per split, work-item (i, s)
 *             computes work[s*M + i] = sum of A[i + j*M] * x[j] over
 *             j in [s*CS, min(N, (s+1)*CS)) (0 if that range is empty,
 *             which happens when S > N). work holds S * M elements; every
 *             one of them is written.
 * gemv_reduce(work, y, M, S, alpha, beta)
 *   Geometry: 1-D, i = get_global_id(0), any local size, global size M
 *             rounded up to a multiple of it.
 *   Work:     y[i] = alpha * (work[i] + work[M + i] + ... +
 *             work[(S-1)*M + i]) + beta * y[i] (splits added in order).
 *
 * Macro:      WG0 (default 64, 1..1024): local size of gemv_partial in
 *             dimension 0; the host must pass the same value.
 *             Local memory: none.
 * Change:     rungs 11/12 have only M work-items; with M small (tens of
 *             rows) and N large that is far too few to fill a GPU, and
 *             each of them walks N columns serially. Splitting the columns
 *             S ways gives M * S work-items, each doing N / S steps, while
 *             dimension 0 still maps consecutive work-items to consecutive
 *             rows of a column (coalesced A loads, broadcast x). The price
 *             is the S * M workspace (written once, read once) and a second
 *             launch; gemv_reduce is cheap (S loads per row, coalesced).
 *             No atomics and no local memory, so it is deterministic.
 * Sizes:      any M, N, S >= 1. Work-items with i >= M (from rounding the
 *             global size up) do nothing; neither kernel has a barrier.
 *             Offsets j*M and s*M are computed in size_t; s*CS < N + S
 *             must fit in int.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG0
#define WG0 64
#endif
#if WG0 < 1 || WG0 > 1024
#error "13_col_split: WG0 (local size of gemv_partial) must be in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG0, 1, 1))) void
gemv_partial(const __global T *restrict A, const __global T *restrict x,
             __global T *restrict work, const int M, const int N,
             const int S)
{
    const int i = get_global_id(0);
    const int s = get_global_id(1);

    if (i < M && s < S) {
        const int cs = (N + S - 1) / S;
        const int j0 = s * cs;
        const int j1 = min(N, j0 + cs);
        const __global T *a = A + i;
        T acc = 0;
        for (int j = j0; j < j1; j++)
            acc += a[(size_t)j * M] * x[j];
        work[(size_t)s * M + i] = acc;
    }
}

__kernel void gemv_reduce(const __global T *restrict work,
                          __global T *restrict y, const int M, const int S,
                          const T alpha, const T beta)
{
    const int i = get_global_id(0);

    if (i < M) {
        T sum = 0;
        for (int s = 0; s < S; s++)
            sum += work[(size_t)s * M + i];
        T res = alpha * sum;
        if (beta != (T)0)
            res += beta * y[i];
        y[i] = res;
    }
}
