/*
 * Rung 02 (row-major A): a work-group per row, 4-wide loads, tree
 * reduction in local memory.
 *
 * Computes   y[i] = alpha * sum_j A[i*N + j] * x[j] + beta * y[i]
 *            for i < M, j < N (A row-major M x N). As in BLAS, when
 *            beta == 0 y is not read (it may hold NaN or Inf).
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). G = number of work-groups, any G >= 1;
 *            group g computes rows g, g + G, g + 2G, ... (grid-stride), so
 *            G = M gives one row per group.
 * Macro:     WG (default 256, a power of two in 1..1024): the work-group
 *            size; the host must pass the same value as the local size.
 *            Local memory: WG * sizeof(T) bytes (part[WG]).
 * Change:    rung 01 gives a whole row to one work-item, so a warp's loads
 *            are N elements apart. Here the WG work-items of a group share
 *            one row: work-item lid reads the 4-element pieces
 *            q = lid, lid + WG, ... (elements 4q..4q+3) of A's row and of
 *            x with vload4, so each group step reads 4 * WG consecutive
 *            elements of both: coalesced, wide loads, and the whole device
 *            can work on a single long row. The WG partial sums are added
 *            with a tree in local memory (log2(WG) halving steps, a
 *            barrier after each), and work-item 0 writes y[i]. It reads
 *            only part[0], which no other work-item writes when the next
 *            row starts, so no barrier is needed before part is reused.
 * Sizes:     any M, N >= 1, any G >= 1. vload4 needs only element
 *            alignment, so it is used at offsets i*N + 4q that need not be
 *            multiples of 4; the N / 4 full pieces go through vload4 and
 *            the N % 4 tail elements are added by work-items lid < N % 4
 *            (in a loop when WG < 4). The row loop bound is uniform over
 *            the group, so every work-item reaches every barrier; groups
 *            with g >= M run no row.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024
#error "02_row_group: WG (work-group size) must be in 1..1024"
#endif
#if (WG & (WG - 1)) != 0
#error "02_row_group: WG (work-group size) must be a power of two"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemv(const __global T *restrict A, const __global T *restrict x,
     __global T *restrict y, const int M, const int N, const T alpha,
     const T beta)
{
    const int lid = get_local_id(0);
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    const int N4 = N / 4;     /* full 4-element pieces */
    const int tail = N4 * 4;  /* first element of the scalar tail */
    __local T part[WG];

    for (int i = g; i < M; i += ng) {
        const __global T *a = A + (size_t)i * N;
        T4 acc = 0;
        if ((N & 3) == 0) {
            /* Rows start 16-byte aligned: whole-vector loads, one instruction each. */
            const __global T4 *a4 = (const __global T4 *)a;
            const __global T4 *x4 = (const __global T4 *)x;
            for (int q = lid; q < N4; q += WG)
                acc += a4[q] * x4[q];
        } else {
            for (int q = lid; q < N4; q += WG)
                acc += vload4(0, a + 4 * q) * vload4(0, x + 4 * q);
        }
        T sum = (acc.x + acc.y) + (acc.z + acc.w);
        for (int j = tail + lid; j < N; j += WG)
            sum += a[j] * x[j];

        part[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            T res = alpha * part[0];
            if (beta != (T)0)
                res += beta * y[i];
            y[i] = res;
        }
    }
}
