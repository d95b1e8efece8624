/*
 * Rung 12: register blocking (rung 11) with vector (T4) global loads and
 * stores, and local tiles laid out so that every local read is a
 * conflict-free T4: A's tile stored transposed and padded.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "row" -- row-major K x N, element (k, c) at B[k * N + c].
 * Geometry:  as rung 11: work-groups of WX x WY = (BN/TN) x (BM/TM), one per
 *            BM x BN block of C (get_group_id(0) the block column,
 *            get_group_id(1) the block row); reqd_work_group_size.
 * Macros:    BM, BN (default 128), BK (default 8), TM (default 16), TN
 *            (default 8), as rung 11; all multiples of 4, BM of TM and BN
 *            of TN. PAD (default 1, or 0): T4s of padding per row of A's
 *            local tile. Local memory BK * (BM + 4*PAD + BN) elements.
 * Layout:    both tiles are arrays of T4, so a local read is one 16-byte
 *            access (LDS.128 for float) instead of four:
 *            Bs4[k][n4]    = B[k0+k][bn0 + 4*n4 .. +3]           (as in B)
 *            As4[k][q].c   = A[bm0 + q + c*BM/4][k0+k], c = x,y,z,w
 *            A's tile is transposed (k is the row), so a work-item's rows
 *            for one k are contiguous; the four rows packed in one T4 are
 *            BM/4 apart, so a work-item owns the rows
 *            ty + s*WY + c*BM/4 (s < TM/4, c < 4) and the columns
 *            4*(tx + s*WX) + 0..3 (s < TN/4). Each As4 row is padded by PAD
 *            T4 so that the stores of A's transposed 4 x 4 blocks from
 *            neighbouring work-items fall in different banks (without it,
 *            the two work-items that store rows k and k+4 of a pair of
 *            blocks hit the same banks; PAD=0 saves local memory for that,
 *            and at BK = 16 one T4 of padding leaves a 2-way conflict).
 *            When WX is a multiple of 8 and WY of 4 (the defaults: 16 x 8),
 *            each 32-wide warp is arranged as 8 x 4 work-items, so per k a
 *            warp reads 4 distinct T4 of A (64 contiguous bytes, a
 *            broadcast to the rest) and 8 of B (128 contiguous bytes):
 *            no bank conflicts, the fewest possible local-memory passes.
 * Change:    rung 11 read B's row at a stride of TN scalars (neighbouring
 *            work-items in the same banks: a 4-way conflict at TN = 8) and
 *            issued TM + TN scalar local loads per k. Here the TM + TN
 *            values come in (TM + TN) / 4 conflict-free T4 loads, so the
 *            multiply-adds, not local-memory instructions, fill the issue
 *            slots. Global loads of both tiles are T4 (one 16-byte load
 *            instead of four), C is written as T4, and whole tiles inside
 *            the matrices are loaded without bounds checks: the checks run
 *            once per tile (uniform branches), not once per element.
 * Sizes:     any M, N, K >= 1, on three paths per tile, chosen by
 *            branches uniform over the work-group: a tile wholly inside
 *            the matrix with 16-byte aligned rows (A's when K % 4 == 0, B's
 *            and C's when N % 4 == 0) moves T4s with no checks; a tile
 *            wholly inside but with unaligned rows loads four scalars per
 *            T4, still unchecked; any other tile (the edges, the last
 *            partial K-slice) loads element by element with guards,
 *            elements outside A or B stored as 0. C is stored as T4s on the
 *            first path, else element by element where r < M and c < N.
 *            The local layout and the inner loop are the same on every
 *            path. Every work-item reaches every barrier.
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
#if BM % 4 != 0 || BN % 4 != 0 || BK % 4 != 0 || TM % 4 != 0 || TN % 4 != 0
#error "12_vec_local: BM, BN, BK, TM and TN must be multiples of 4"
#endif
#if BM % TM != 0 || BN % TN != 0
#error "12_vec_local: BM must be a multiple of TM and BN of TN"
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
    __local T4 As4[BK][SA];
    __local T4 Bs4[BK][SB];
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

#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0;

    for (int k0 = 0; k0 < K; k0 += BK) {
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
        /* To local memory: A's 4 x 4 blocks transposed, B as loaded. */
#pragma unroll
        for (int l = 0; l < LA; l++) {
            const uint ia = tid + l * WG;
            const int q = (int)(ia / (BK / 4)), k4 = (int)(ia % (BK / 4) * 4);
            if (NA % WG == 0 || ia < NA) {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    As4[k4 + j][q] = VEC4(T4, COMP(ra[l][0], j), COMP(ra[l][1], j),
                                          COMP(ra[l][2], j), COMP(ra[l][3], j));
            }
        }
#pragma unroll
        for (int l = 0; l < LB; l++) {
            const uint ib = tid + l * WG;
            if (NB % WG == 0 || ib < NB)
                Bs4[ib / SB][ib % SB] = rb[l];
        }
        barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int s = 0; s < TM / 4; s++)
                a4[s] = As4[k][ty + s * WY];
#pragma unroll
            for (int s = 0; s < TN / 4; s++)
                b4[s] = Bs4[k][tx + s * WX];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    MAC(acc[i][j], COMP(a4[i / 4], i % 4), COMP(b4[j / 4], j % 4));
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
