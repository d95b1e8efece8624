/*
 * Rung 13: rung 12 with double-buffered tiles: the next K-slice is loaded
 * from global memory into registers while the current one is multiplied
 * from local memory, and there are two local buffers, so one barrier per
 * K-slice remains.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "row" -- row-major K x N, element (k, c) at B[k * N + c].
 * Geometry:  as rung 12: work-groups of WX x WY = (BN/TN) x (BM/TM), one per
 *            BM x BN block of C; reqd_work_group_size.
 * Macros:    BM, BN (default 128), BK (default 8), TM (default 16), TN
 *            (default 8), PAD (default 1), as rung 12; all multiples of 4,
 *            BM of TM and BN of TN. SPLITK (default 1): with more, the
 *            launch's third dimension splits K: work-group z multiplies
 *            slices z S / SPLITK .. (z + 1) S / SPLITK - 1 of the S slices
 *            and writes its partial product into C + z M N (kladder passes
 *            a workspace of SPLITK products there), which kernel
 *            reduce_splits (split_k.cl) then adds into C in order. Where
 *            the blocks of C are fewer than the device's compute units (M
 *            or N small, K long), the splits keep them all busy.
 *            Local memory 2 * BK * (BM + 4*PAD + BN) elements (two
 *            buffers): 33 KiB for the default doubles, so they fit a 48 KiB
 *            device; BK = 16 is faster for floats on an H100
 *            (docs/RESULTS.md), but needs 66 KiB for doubles.
 * Layout:    as rung 12 (A's tile transposed, rows packed BM/4 apart in a
 *            T4, padded by PAD T4s per row; B's tile as in B; 8 x 4
 *            work-items per warp), with a buffer index in front.
 * Change:    in rung 12 every K-slice went load -> barrier -> compute ->
 *            barrier, and a work-group's warps idled in the load while its
 *            global reads were in flight (hundreds of cycles); only other
 *            work-groups on the same compute unit could fill the gap, and
 *            the 128 accumulators per work-item leave room for only two
 *            groups of 128 work-items per NVIDIA SM.
 *            Here the loads of slice t+1 are issued before the
 *            multiply-adds of slice t and consumed after them, so their
 *            latency hides behind BK * TM * TN multiply-adds of the same
 *            work-item; the values wait in registers (a few T4 per
 *            work-item) and are stored to the other local buffer, which
 *            nobody reads during slice t. The barrier that protected the
 *            buffer being overwritten is gone: one barrier per slice.
 * Sizes:     any M, N, K >= 1, on rung 12's three paths: T4s for tiles
 *            wholly inside with aligned rows, unchecked scalars for tiles
 *            wholly inside with unaligned rows, guarded element-wise loads
 *            (zeros outside A and B) and stores for the rest. Every
 *            work-item reaches every barrier.
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD4A on the aligned path, LD elsewhere;
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
#ifndef PAD
#define PAD 1
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#if BM % 4 != 0 || BN % 4 != 0 || BK % 4 != 0 || TM % 4 != 0 || TN % 4 != 0
#error "13_double_buffer: BM, BN, BK, TM and TN must be multiples of 4"
#endif
#if BM % TM != 0 || BN % TN != 0
#error "13_double_buffer: BM must be a multiple of TM and BN of TN"
#endif

#define WX (BN / TN)
#define WY (BM / TM)
#define WG (WX * WY)
#define SA (BM / 4 + PAD)          /* T4 per row of As4, PAD of padding */
#define SB (BN / 4)                /* T4 per row of Bs4 */
#define NA ((BM / 4) * (BK / 4))   /* 4 x 4 blocks in A's tile */
#define LA ((NA + WG - 1) / WG)    /* ... per work-item */
#define NB (BK * (BN / 4))         /* T4 in B's tile */
#define LB ((NB + WG - 1) / WG)    /* ... per work-item */

#if defined(KL_SUM_INT)
#define MAC(acc, a, b) ((acc) += (a) * (b))
#else
#define MAC(acc, a, b) ((acc) = fma((a), (b), (acc)))
#endif
/* Component c (a constant once loops are unrolled) of a T4. */
#define COMP(v, c) ((c) == 0 ? (v).x : (c) == 1 ? (v).y : (c) == 2 ? (v).z : (v).w)

__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void
gemm(const __global TA *restrict A, const __global TA *restrict B,
     __global T *restrict C, const int M, const int N, const int K)
{
    __local T4 As4[2][BK][SA];
    __local T4 Bs4[2][BK][SB];
    T acc[TM][TN];
    T4 ra[LA][4], rb[LB], a4[TM / 4], b4[TN / 4];

    /* Unsigned, so that / and % by power-of-two constants are shifts and masks. */
    const uint tid = (uint)(get_local_id(1) * WX + get_local_id(0));
#if WX % 8 == 0 && WY % 4 == 0
    /* 8 x 4 work-items per warp: see Layout. */
    const int tx = (int)((tid / 32) % (WX / 8) * 8 + tid % 8);
    const int ty = (int)((tid / 32) / (WX / 8) * 4 + tid % 32 / 8);
#else
    const int tx = get_local_id(0), ty = get_local_id(1);
#endif
    const int bm0 = get_group_id(1) * BM, bn0 = get_group_id(0) * BN;
    /* Uniform over the work-group: which load path this block may take (see Sizes). */
    const bool rows_in = bm0 + BM <= M, cols_in = bn0 + BN <= N;
    const bool fast_a = rows_in && K % 4 == 0, fast_b = cols_in && N % 4 == 0;
    /* This work-group's slices of K, t0 .. t1 - 1 (all of them without SPLITK). */
    const int nslices = (K + BK - 1) / BK;
#if SPLITK > 1
    const int t0 = (int)((long)get_group_id(2) * nslices / SPLITK);
    const int t1 = (int)((long)(get_group_id(2) + 1) * nslices / SPLITK);
    C += get_group_id(2) * (size_t)M * N; /* its partial product in the workspace */
#else
    const int t0 = 0, t1 = nslices;
#endif

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0;

    /*
     * Iteration t loads slice t into registers, multiplies slice t - 1 from
     * local buffer (t - 1) & 1 while those loads are in flight, then stores
     * slice t into buffer t & 1. That buffer was last read in iteration
     * t - 1, before its barrier, so one barrier per iteration suffices.
     */
    for (int t = t0; t <= t1; t++) {
        const int k0 = t * BK;
        if (t < t1) {
            const bool k_in = k0 + BK <= K;
            /* A: work-item block ia is rows q + c*BM/4 (c < 4), columns k4..k4+3;
             * neighbouring work-items take neighbouring k4 of the same rows. */
#pragma unroll
            for (int l = 0; l < LA; l++) {
                const uint ia = tid + l * WG;
                const int q = (int)(ia / (BK / 4)), k4 = (int)(ia % (BK / 4) * 4);
                if (NA % WG == 0 || ia < NA) {
                    if (fast_a && k_in) {
#pragma unroll
                        for (int c = 0; c < 4; c++)
                            ra[l][c] = LD4A(A + (bm0 + q + c * (BM / 4)) * K + k0 + k4);
                    } else if (rows_in && k_in) { /* unaligned rows: scalars, unchecked */
#pragma unroll
                        for (int c = 0; c < 4; c++) {
                            const __global TA *a = A + (bm0 + q + c * (BM / 4)) * K + k0 + k4;
                            ra[l][c] = VEC4(T4, LD(a, 0), LD(a, 1), LD(a, 2), LD(a, 3));
                        }
                    } else {
#pragma unroll
                        for (int c = 0; c < 4; c++) {
                            const int r = bm0 + q + c * (BM / 4), k = k0 + k4;
                            const bool ok = r < M;
                            ra[l][c] = VEC4(T4, ok && k < K ? LD(A, r * K + k) : (T)0,
                                            ok && k + 1 < K ? LD(A, r * K + k + 1) : (T)0,
                                            ok && k + 2 < K ? LD(A, r * K + k + 2) : (T)0,
                                            ok && k + 3 < K ? LD(A, r * K + k + 3) : (T)0);
                        }
                    }
                }
            }
            /* B: T4 number ib is row ib / SB of the tile, columns 4*(ib % SB) + 0..3. */
#pragma unroll
            for (int l = 0; l < LB; l++) {
                const uint ib = tid + l * WG;
                const int k = k0 + (int)(ib / SB), c = bn0 + (int)(ib % SB) * 4;
                if (NB % WG == 0 || ib < NB) {
                    if (fast_b && k_in) {
                        rb[l] = LD4A(B + k * N + c);
                    } else if (cols_in && k_in) {
                        const __global TA *b = B + k * N + c;
                        rb[l] = VEC4(T4, LD(b, 0), LD(b, 1), LD(b, 2), LD(b, 3));
                    } else {
                        const bool ok = k < K;
                        rb[l] = VEC4(T4, ok && c < N ? LD(B, k * N + c) : (T)0,
                                     ok && c + 1 < N ? LD(B, k * N + c + 1) : (T)0,
                                     ok && c + 2 < N ? LD(B, k * N + c + 2) : (T)0,
                                     ok && c + 3 < N ? LD(B, k * N + c + 3) : (T)0);
                    }
                }
            }
        }

        if (t > t0) {
            const int cur = (t - 1) & 1;
#pragma unroll
            for (int k = 0; k < BK; k++) {
#pragma unroll
                for (int s = 0; s < TM / 4; s++)
                    a4[s] = As4[cur][k][ty + s * WY];
#pragma unroll
                for (int s = 0; s < TN / 4; s++)
                    b4[s] = Bs4[cur][k][tx + s * WX];
#pragma unroll
                for (int i = 0; i < TM; i++)
#pragma unroll
                    for (int j = 0; j < TN; j++)
                        MAC(acc[i][j], COMP(a4[i / 4], i % 4), COMP(b4[j / 4], j % 4));
            }
        }

        if (t < t1) {
            /* To local memory: A's 4 x 4 blocks transposed, B as loaded. */
#pragma unroll
            for (int l = 0; l < LA; l++) {
                const uint ia = tid + l * WG;
                const int q = (int)(ia / (BK / 4)), k4 = (int)(ia % (BK / 4) * 4);
                if (NA % WG == 0 || ia < NA) {
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        As4[t & 1][k4 + j][q] = VEC4(T4, COMP(ra[l][0], j), COMP(ra[l][1], j),
                                                     COMP(ra[l][2], j), COMP(ra[l][3], j));
                }
            }
#pragma unroll
            for (int l = 0; l < LB; l++) {
                const uint ib = tid + l * WG;
                if (NB % WG == 0 || ib < NB)
                    Bs4[t & 1][ib / SB][ib % SB] = rb[l];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* acc[s*4 + c][..] is row ty + s*WY + c*BM/4; acc[..][s*4 + j] column 4*(tx + s*WX) + j. */
    const bool fast_c = rows_in && fast_b;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = bm0 + ty + i / 4 * WY + i % 4 * (BM / 4);
#pragma unroll
        for (int s = 0; s < TN / 4; s++) {
            const int c = bn0 + 4 * (tx + s * WX);
            if (fast_c) {
                *(__global T4 *)(C + r * N + c) = VEC4(T4, acc[i][4 * s], acc[i][4 * s + 1],
                                                       acc[i][4 * s + 2], acc[i][4 * s + 3]);
            } else if (r < M) {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (c + j < N)
                        C[r * N + c + j] = acc[i][4 * s + j];
            }
        }
    }
}
