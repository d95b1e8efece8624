/*
 * Rung 12 (column-major A): one work-item per row, x staged in local
 * memory, inner loop unrolled by 4.
 *
 * Computes   y[i] = alpha * sum_j A[i + j*M] * x[j] + beta * y[i]
 *            for i < M, j < N (A column-major M x N). As in BLAS, when
 *            beta == 0 y is not read (it may hold NaN or Inf).
 * Geometry:  1-D, i = get_global_id(0) is the row; local size WG chosen
 *            by the host (any value), global size = M rounded up to a
 *            multiple of WG.
 * Macro:     XC (default 1024, >= 1): length of the local buffer xl[XC],
 *            i.e. how many elements of x are staged at a time.
 *            Local memory: XC * sizeof(T) bytes.
 * Change:    as rung 11, but every work-item of a group reads all of x in
 *            the same order, so the group copies x into local memory in
 *            chunks of XC (work-item lid loads elements lid, lid + WG, ...:
 *            coalesced) and reads it from there: global traffic for x
 *            drops by a factor WG, and the loads of A (coalesced, as in
 *            rung 11) are the only global reads left in the inner loop.
 *            Two barriers per chunk: after the load, and before it so no
 *            work-item overwrites xl while a slower one still reads the
 *            previous chunk. The inner loop is unrolled by 4 so that
 *            several independent loads of A are in flight per work-item.
 * Sizes:     any M, N >= 1 and any local size. The chunk loop bound
 *            depends only on N, so every work-item of a group runs the same
 *            iterations and reaches every barrier; work-items with i >= M
 *            still help load xl and only skip the arithmetic and the
 *            store. Offsets j*M are computed in size_t.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef XC
#define XC 1024
#endif
#if XC < 1
#error "12_col_local_x: XC (local chunk of x) must be >= 1"
#endif

__kernel void gemv(const __global T *restrict A, const __global T *restrict x,
                   __global T *restrict y, const int M, const int N,
                   const T alpha, const T beta)
{
    const int i = get_global_id(0);
    const int lid = get_local_id(0);
    const int ls = get_local_size(0);
    const bool valid = i < M;
    __local T xl[XC];
    T acc = 0;

    for (int j0 = 0; j0 < N; j0 += XC) {
        const int jc = min(XC, N - j0);

        /* Nobody may still be reading the previous chunk. */
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = lid; t < jc; t += ls)
            xl[t] = x[j0 + t];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (valid) {
            const __global T *a = A + (size_t)j0 * M + i;
#pragma unroll 4
            for (int j = 0; j < jc; j++)
                acc += a[(size_t)j * M] * xl[j];
        }
    }

    if (valid) {
        T res = alpha * acc;
        if (beta != (T)0)
            res += beta * y[i];
        y[i] = res;
    }
}
