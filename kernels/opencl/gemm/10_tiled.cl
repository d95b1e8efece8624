/*
 * Rung 10: tiling in local memory (Cedric Nugteren's "myGEMM2", as used
 * by the second article), adapted to row-major A, B and C.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "row" -- row-major K x N, element (k, c) at B[k * N + c].
 * Geometry:  2-D, one work-item per element of C, work-groups of TS x TS.
 *            c = get_global_id(0) is the column, r = get_global_id(1) the
 *            row; the host sets the local size to TS x TS (enforced with
 *            reqd_work_group_size, so a wrong local size fails to launch).
 * Macro:     TS (default 16, >= 1): tile edge. TS * TS must not exceed the
 *            device's maximum work-group size (checked by the host/runtime,
 *            not here).
 * Change:    back to one element of C per work-item, but the group walks
 *            K in steps of TS: each work-item loads ONE element of the
 *            current A tile and ONE of the B tile into local memory, and
 *            then all TS x TS work-items compute TS multiply-adds each from
 *            local memory. Every global element is thus fetched once per
 *            tile and reused TS times, cutting global traffic by a factor
 *            TS. Dimension 0 is the fast one on GPUs, so with lc/c there,
 *            neighbouring work-items load consecutive addresses of A
 *            (A[r*K+t*TS+lc]) and of B (B[k*N+c]) and write consecutive C:
 *            all global accesses are coalesced.
 *            CPU: local memory is plain cache and each barrier is a
 *            work-item switch, so the gain is at best modest there.
 * Sizes:     the number of tiles is ceil(K / TS). Tile elements outside
 *            A (r >= M or k >= K) or outside B (k >= K or c >= N) are
 *            stored as 0, so they add nothing. Every work-item, including
 *            those with r >= M or c >= N from the rounded-up global size,
 *            runs every iteration and reaches both barriers; only the
 *            final store is guarded by r < M && c < N.
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl). Local memory
 *            holds the values converted to T.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef TS
#define TS 16
#endif
#if TS < 1
#error "10_tiled: TS (tile edge) must be >= 1"
#endif

__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
gemm(const __global TA *restrict A, const __global TA *restrict B,
     __global T *restrict C, const int M, const int N, const int K)
{
    const int lc = get_local_id(0);
    const int lr = get_local_id(1);
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    __local T Asub[TS][TS];
    __local T Bsub[TS][TS];
    T acc = 0;

    const int ntiles = (K + TS - 1) / TS;
    for (int t = 0; t < ntiles; t++) {
        const int ka = t * TS + lc; /* column of A loaded by this item */
        const int kb = t * TS + lr; /* row of B loaded by this item */
        Asub[lr][lc] = (r < M && ka < K) ? LD(A, r * K + ka) : (T)0;
        Bsub[lr][lc] = (kb < K && c < N) ? LD(B, kb * N + c) : (T)0;
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int k = 0; k < TS; k++)
            acc += Asub[lr][k] * Bsub[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    if (r < M && c < N)
        C[r * N + c] = acc;
}
