/*
 * Rung 11: 2-D register blocking. Each work-item computes a TM x TN block
 * of C from BM x BK and BK x BN tiles of A and B in local memory.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "row" -- row-major K x N, element (k, c) at B[k * N + c].
 * Geometry:  2-D, work-groups of WX x WY = (BN/TN) x (BM/TM) work-items,
 *            one work-group per BM x BN block of C: get_group_id(0) picks
 *            the block column, get_group_id(1) the block row. The host sets
 *            global = (ceil(N/BN) * WX, ceil(M/BM) * WY); the local size is
 *            enforced with reqd_work_group_size.
 * Macros:    BM, BN (default 128): rows and columns of C per work-group;
 *            BK (default 8): depth of the K-slice held in local memory;
 *            TM (default 16), TN (default 8): rows and columns of C per
 *            work-item, so (BN/TN) x (BM/TM) = 16 x 8 = 128 work-items.
 *            BM must be a multiple of TM and BN of TN (checked here and by
 *            the host); local memory (BM + BN) * BK elements.
 * Change:    rung 10 loaded two local values per multiply-add: each
 *            work-item owned one element of C, so every product needed a
 *            fresh A and B value from local memory, and local-memory
 *            bandwidth, not arithmetic, set the pace. Here a work-item owns
 *            a TM x TN block: per k it reads TM values of A's column and TN
 *            of B's row into registers and performs TM * TN multiply-adds
 *            on them (an outer product), so local traffic per multiply-add
 *            falls from 2 to (TM + TN) / (TM * TN) values (3/16 at 16 x 8),
 *            and the whole block's accumulators stay in registers. The
 *            tiles also grow (128 x 128 by default), so each element
 *            fetched from global memory is reused BN or BM times instead of
 *            TS, and one work-group of 128 work-items covers 64 times as
 *            much of C as rung 10's 16 x 16.
 *            Why 16 x 8: twice the multiply-adds of an 8 x 8 block per local
 *            load, per barrier and per work-item. The 128 accumulators
 *            and their operands take most of the 255 registers a work-item
 *            can have, so an NVIDIA SM holds two such groups (8 warps); on
 *            an H100 that is still 1.2-1.5x faster than 8 x 8, for this
 *            rung and the next two (docs/RESULTS.md).
 *            Left for the next rungs: loads are scalar, each work-item
 *            reads B's row at a stride of TN elements (neighbouring
 *            work-items hit the same local-memory banks), and loads from
 *            global memory wait behind barriers.
 * Sizes:     any M, N, K >= 1. Tile loads are guarded: elements outside A
 *            or B are stored as 0, so partial blocks and the last partial
 *            K-slice add nothing. Every work-item reaches every barrier;
 *            only the final stores check r < M and c < N.
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl). Local memory
 *            holds the values converted to T.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 16
#endif
#ifndef TN
#define TN 8
#endif
#if BM % TM != 0 || BN % TN != 0
#error "11_regblock: BM must be a multiple of TM and BN of TN"
#endif

#define WX (BN / TN) /* work-items per row of the work-group */
#define WY (BM / TM) /* work-items per column */
#define WG (WX * WY)

/* Multiply-add; fma is one rounding and one instruction where the hardware has it. */
#if defined(KL_SUM_INT)
#define MAC(acc, a, b) ((acc) += (a) * (b))
#else
#define MAC(acc, a, b) ((acc) = fma((a), (b), (acc)))
#endif

__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void
gemm(const __global TA *restrict A, const __global TA *restrict B,
     __global T *restrict C, const int M, const int N, const int K)
{
    __local T As[BM][BK];
    __local T Bs[BK][BN];
    T acc[TM][TN];
    T a[TM], b[TN];

    const int tx = get_local_id(0), ty = get_local_id(1);
    /* Unsigned, so that / and % by power-of-two constants are shifts and masks. */
    const uint tid = (uint)(ty * WX + tx);
    const int bm0 = get_group_id(1) * BM; /* first row of this block of C */
    const int bn0 = get_group_id(0) * BN; /* first column */

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0;

    for (int k0 = 0; k0 < K; k0 += BK) {
        /* Element e of the A tile is (e / BK, e % BK): neighbouring
         * work-items read neighbouring k of one row (coalesced). */
#pragma unroll
        for (int l = 0; l < (BM * BK + WG - 1) / WG; l++) {
            const uint e = tid + l * WG;
            if ((BM * BK) % WG != 0 && e >= BM * BK)
                break;
            const int m = (int)(e / BK), k = (int)(e % BK);
            const int r = bm0 + m, kk = k0 + k;
            As[m][k] = (r < M && kk < K) ? LD(A, r * K + kk) : (T)0;
        }
        /* Element e of the B tile is (e / BN, e % BN): a row of B. */
#pragma unroll
        for (int l = 0; l < (BK * BN + WG - 1) / WG; l++) {
            const uint e = tid + l * WG;
            if ((BK * BN) % WG != 0 && e >= BK * BN)
                break;
            const int k = (int)(e / BN), n = (int)(e % BN);
            const int kk = k0 + k, c = bn0 + n;
            Bs[k][n] = (kk < K && c < N) ? LD(B, kk * N + c) : (T)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    MAC(acc[i][j], a[i], b[j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = bm0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            const int c = bn0 + tx * TN + j;
            if (r < M && c < N)
                C[r * N + c] = acc[i][j];
        }
    }
}
