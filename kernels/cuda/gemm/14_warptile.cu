/*
 * Rung 14 (CUDA only): warp tiling over a multi-stage cp.async pipeline.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            B row-major K x N, C row-major M x N).
 * Geometry:  a block of NT = (BM/WM) * (BN/WN) * 32 threads per BM x BN
 *            block of C (kladder launches (BN/TN) x (BM/TM) threads, the
 *            same number); each warp a WM x WN tile of it, each lane a
 *            TM x TN tile made of (TM/4) x (TN/4) pieces of 4 x 4. The
 *            lanes of a warp form LM x LN = (WM/TM) x (WN/TN) = 32; piece
 *            (i, j) of lane (lm, ln) is rows i*4*LM + 4*lm .. +3 and columns
 *            j*4*LN + 4*ln .. +3 of the warp's tile, so the lanes of a warp
 *            read 4*LM consecutive rows of A's tile and 4*LN consecutive
 *            columns of B's tile per 16-byte shared-memory read.
 *            Blocks are taken in groups of GROUP block-rows (block index ->
 *            (row, column) column-major within a group), so the blocks
 *            running at one time share their panels of A and B in L2.
 * Macros:    BM (default 128), BN (256), BK (16), WM (64), WN (64), TM (8),
 *            TN (16), STAGES (4); type KL_T_FLOAT (default), KL_T_DOUBLE
 *            or KL_T_INT. The defaults are the fastest of a sweep on an H100
 *            at 4096^3 (bench/warptile.sh; docs/RESULTS.md): 8 warps of
 *            64 x 64, 128 accumulators per thread, one block per SM.
 *            Dynamic shared memory STAGES * BK * (BM + 4 + BN) elements,
 *            passed at launch (97 KiB for the float defaults: above 48 KiB,
 *            so the kernel is opted in to more). SPLITK (1): with more,
 *            blockIdx.z splits K: block z multiplies slices z S / SPLITK ..
 *            (z + 1) S / SPLITK - 1 of the S slices and writes its partial
 *            product into C + z M N (kladder passes a workspace of SPLITK
 *            products there), which kernel reduce_splits
 *            (kernels/opencl/gemm/split_k.cl) then adds into C in order: C's
 *            blocks times SPLITK fill the SMs where C's blocks alone leave
 *            most of them idle (M or N small, K long). SK (0): with 1,
 *            stream-K (schedule.h, stream_k.cuh): a block per SM (kladder
 *            launches that many, one row of them, and a workspace), each
 *            taking whole blocks of C while they fill whole waves, then an
 *            equal share of the slices of the rest; a block of C shared by
 *            several is finished by the one holding its first slice, which
 *            adds the others' partial sums in their order. The last wave is
 *            then as full as the first (561 blocks of 128 x 256 on 132 SMs:
 *            4.25 waves' work in 4.25 waves' time, not 5).
 * Layout:    stage s holds A's slice transposed, As[s][k][m] with a row of
 *            BM + 4 elements, and B's slice as in B, Bs[s][k][n].
 *            A's rows are K-contiguous in memory but the inner loop wants m
 *            contiguous, so A goes through shared memory transposed, by
 *            element-sized cp.async: one per element, eight k of four rows
 *            per group of 32 threads, i.e. four whole 32-byte sectors per
 *            warp load, and 4*k + m distinct banks per warp store thanks to
 *            the 4-element pad (without it, every k of a warp's store lands
 *            in the same bank). B arrives by 16-byte cp.async.
 * Change:    rung 13 loaded the next slice into registers and stored it to
 *            shared memory itself: two buffers, the loads' latency hidden
 *            behind one slice of multiply-adds, registers spent on the
 *            staging values, and OpenCL's 48 KiB of local memory.
 *            Here cp.async copies global memory straight into shared
 *            memory, with no registers and no instructions of the thread's
 *            own between issue and arrival: STAGES - 1 slices are in flight
 *            while one is multiplied, and the shared memory they need
 *            (97 KiB at the defaults) is the CUDA opt-in, up to 227 KiB on
 *            Hopper. __launch_bounds__ caps the registers at 128 so that
 *            two blocks fit a multiprocessor where 64 accumulators allow it
 *            (OpenCL C cannot ask for that), and warp tiling keeps each
 *            warp's shared-memory reads to one or two 16-byte wavefronts
 *            per fragment.
 * Padding:   A's rows are padded rather than swizzled: with the pad, both
 *            the transposing 4-byte stores and the 16-byte fragment reads
 *            are free of bank conflicts, and the inner loop needs no index
 *            arithmetic. B needs neither: it is stored and read along rows.
 * Sizes:     any M, N, K >= 1. Loads outside A or B are cp.async with a
 *            source size of 0, which fills zeros. B's rows are ldb >= N
 *            elements apart, readable up to ldb (zeros after N). Its 16-byte
 *            copies need ldb a multiple of 16 / sizeof(T) (rows aligned):
 *            where N is not, kladder first copies B into rows of the next
 *            such pitch with pack_b below (a copy of B, ~2 % of the time at
 *            4096^3, where copying element by element cost ~30 %); with any
 *            other ldb, B is copied element by element. The stores of C
 *            are 16-byte vectors where a row's four columns lie inside C and
 *            N % 4 == 0; where N % 4 != 0 the block's sums go through the
 *            stages (store_staged, where they fit) and out a row at a time,
 *            else element-wise with guards.
 *
 * Backends:  CUDA only (NVRTC); fp32 by FFMA, never tensor cores.
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 16
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#ifndef SK
#define SK 0
#endif

#if defined(KL_T_DOUBLE)
typedef double T;
#elif defined(KL_T_INT)
typedef int T;
#else
typedef float T;
#endif

#define LM (WM / TM)                   /* lanes along m */
#define LN (WN / TN)                   /* lanes along n */
#define NT ((BM / WM) * (BN / WN) * 32) /* threads per block */
#define SA (BM + 4)                    /* elements per row of As */
#define GROUP 8                        /* block-rows per group of the raster */

#include "schedule.h" /* kl_tile_of: the raster */
#if SK
#define SK_BLOCK_THREADS NT /* one set of partial sums a block */
#include "stream_k.cuh"
#endif

static_assert(LM * LN == 32, "14_warptile: (WM/TM) * (WN/TN) must be 32 lanes");
static_assert(BM % WM == 0 && BN % WN == 0, "14_warptile: BM % WM and BN % WN must be 0");
static_assert(WM % TM == 0 && WN % TN == 0, "14_warptile: WM % TM and WN % TN must be 0");
static_assert(TM % 4 == 0 && TN % 4 == 0, "14_warptile: TM and TN must be multiples of 4");
static_assert(BK % 8 == 0, "14_warptile: BK must be a multiple of 8");
static_assert(STAGES >= 2, "14_warptile: at least two stages");
static_assert(!SK || SPLITK == 1, "14_warptile: stream-K or split-K, not both");

/* Elements per 16-byte copy, and what B's 16-byte copies of a slice need. */
#define EPC ((int)(16 / sizeof(T)))

/*
 * Two blocks of up to 256 threads per multiprocessor where 64 accumulator
 * registers leave room: that caps the registers at 128 (65536 per SM).
 */
#define MIN_BLOCKS (TM * TN * sizeof(T) <= 64 * 4 && NT <= 256 ? 2 : 1)

struct alignas(4 * sizeof(T)) T4 {
    T v[4];
};

static __device__ __forceinline__ void mac(float &acc, float a, float b) { acc = fmaf(a, b, acc); }
static __device__ __forceinline__ void mac(double &acc, double a, double b) { acc = fma(a, b, acc); }
static __device__ __forceinline__ void mac(int &acc, int a, int b) { acc += a * b; }

/* cp.async of BYTES (4, 8 or 16) bytes, of which the first src_bytes are read and the rest zero. */
template <int BYTES>
static __device__ __forceinline__ void copy_async(void *dst, const void *src, int src_bytes)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src),
                     "n"(BYTES), "r"(src_bytes));
}
static __device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/*
 * Where a thread's copies go. A: each group of 8 threads takes 8
 * consecutive k of one row, NT/8 rows per pass, BM/(NT/8) passes per 8 k
 * (so the thread's rows are a_row + p*NT/8, its k a_k + 8*kc). B: BN/EPC
 * threads per row of 16-byte pieces, NT/(BN/EPC) rows per pass; element by
 * element when N is not a multiple of EPC, BN threads per row.
 */
#define A_ROWS (NT / 8)                /* rows of A per pass */
#define B_ROWS (NT / (BN / EPC))       /* rows of B per pass, 16-byte pieces */
static_assert(BM % A_ROWS == 0, "14_warptile: BM must be a multiple of NT/8");
static_assert(NT % (BN / EPC) == 0 && BK % B_ROWS == 0,
              "14_warptile: B's 16-byte pieces of a slice must divide among the threads");

struct loader {
    int a_row, a_k, b_row, b_col; /* the thread's first element or piece, in the block */
    int m0, n0, M, N, K, ldb;
    bool vec_b;  /* ldb a multiple of EPC: B's rows in 16-byte pieces */
    bool inside; /* vec_b, and the block's rows inside A and columns inside B's rows */
};

/*
 * Issues the copies of K-slice k0 into one stage (as, bs); zeros outside A
 * and B. A slice wholly inside A and B takes the first path: no guards,
 * and addresses that differ by constants.
 */
static __device__ __forceinline__ void load_slice(const T *__restrict__ A,
                                                  const T *__restrict__ B, T *as, T *bs,
                                                  const loader &l, int k0, int tid)
{
    if (l.inside && k0 + BK <= l.K) {
        const T *a = A + (size_t)(l.m0 + l.a_row) * l.K + k0 + l.a_k;
#pragma unroll
        for (int p = 0; p < BM / A_ROWS; p++)
#pragma unroll
            for (int kc = 0; kc < BK / 8; kc++)
                copy_async<sizeof(T)>(as + (l.a_k + 8 * kc) * SA + l.a_row + p * A_ROWS,
                                      a + (size_t)(p * A_ROWS) * l.K + 8 * kc, (int)sizeof(T));
        const T *b = B + (size_t)(k0 + l.b_row) * l.ldb + l.n0 + l.b_col;
#pragma unroll
        for (int p = 0; p < BK / B_ROWS; p++)
            copy_async<16>(bs + (l.b_row + p * B_ROWS) * BN + l.b_col,
                           b + (size_t)(p * B_ROWS) * l.ldb, 16);
        return;
    }
#pragma unroll
    for (int kc = 0; kc < BK / 8; kc++) {
        const int k = l.a_k + 8 * kc, gk = k0 + k;
#pragma unroll
        for (int p = 0; p < BM / A_ROWS; p++) {
            const int m = l.a_row + p * A_ROWS, gm = l.m0 + m;
            const bool ok = gm < l.M && gk < l.K;
            copy_async<sizeof(T)>(as + k * SA + m, A + (ok ? gm * l.K + gk : 0),
                                  ok ? (int)sizeof(T) : 0);
        }
    }
    if (l.vec_b) {
        const int gn = l.n0 + l.b_col;
#pragma unroll
        for (int p = 0; p < BK / B_ROWS; p++) {
            const int k = l.b_row + p * B_ROWS, gk = k0 + k;
            /* ldb is a multiple of EPC here: a piece is wholly inside a row or wholly outside. */
            const bool ok = gk < l.K && gn < l.ldb;
            copy_async<16>(bs + k * BN + l.b_col, B + (ok ? (size_t)gk * l.ldb + gn : 0),
                           ok ? 16 : 0);
        }
    } else {
#pragma unroll
        for (int i = 0; i < (BK * BN + NT - 1) / NT; i++) {
            const int e = tid + i * NT;
            const int k = e / BN, n = e % BN;
            const int gk = k0 + k, gn = l.n0 + n;
            const bool ok = gk < l.K && gn < l.N;
            if ((BK * BN) % NT == 0 || e < BK * BN)
                copy_async<sizeof(T)>(bs + k * BN + n, B + (ok ? (size_t)gk * l.ldb + gn : 0),
                                      ok ? (int)sizeof(T) : 0);
        }
    }
}

/* One k of the warp's tile: the lane's TM rows of A and TN columns of B, 16 bytes at a time. */
static __device__ __forceinline__ void load_fragments(T4 *a, T4 *b, const T *as, const T *bs)
{
#pragma unroll
    for (int i = 0; i < TM / 4; i++)
        a[i] = *(const T4 *)(as + i * 4 * LM);
#pragma unroll
    for (int j = 0; j < TN / 4; j++)
        b[j] = *(const T4 *)(bs + j * 4 * LN);
}

/* The loader of the block whose C starts at row m0, column n0. */
static __device__ __forceinline__ loader loader_at(int tid, int m0, int n0, int M, int N, int K,
                                                   int ldb)
{
    return {tid / 8, tid % 8, tid / (BN / EPC), tid % (BN / EPC) * EPC, m0, n0, M, N, K, ldb,
            ldb % EPC == 0, ldb % EPC == 0 && m0 + BM <= M && n0 + BN <= ldb};
}

/*
 * Slices t0 .. t0 + nslices - 1 of K of l's block, multiplied into the
 * warp's tile of acc (acc[i * TN + j]: the lane's row i, column j) through
 * the stages As, Bs. Every thread of the block calls it; the stages are
 * free again once every thread has returned.
 */
static __device__ __forceinline__ void multiply(const T *__restrict__ A, const T *__restrict__ B,
                                                T *As, T *Bs, const loader &l, int t0,
                                                int nslices, int tid, int wm0, int wn0, int lm,
                                                int ln, T (&acc)[TM * TN])
{
    /* The first STAGES - 1 slices in flight; one commit group per slice, empty or not. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nslices)
            load_slice(A, B, As + s * BK * SA, Bs + s * BK * BN, l, (t0 + s) * BK, tid);
        commit_group();
    }

    for (int t = 0; t < nslices; t++) {
        /* Slice t has arrived (at most STAGES - 2 younger groups pending) for every thread. */
        wait_group<STAGES - 2>();
        __syncthreads();
        /* Its stage's previous slice, t - 1, was multiplied before that barrier: refill it,
           every copy at once (issued one a k step among the products instead, as CUTLASS's
           multistage loop does, they ran 0.82x at 4096^3 on an H100: docs/RESULTS.md). */
        const int next = t + STAGES - 1;
        if (next < nslices)
            load_slice(A, B, As + next % STAGES * BK * SA, Bs + next % STAGES * BK * BN, l,
                       (t0 + next) * BK, tid);
        commit_group();

        /*
         * Written double-buffered: the fragments of step k + 1 are read
         * while step k's multiply-adds run. ptxas keeps that order where
         * registers allow (8 x 8 thread tiles) and moves the reads next to
         * their use where they do not (8 x 16, at 249 registers).
         */
        const T *as = As + t % STAGES * BK * SA + wm0 + 4 * lm;
        const T *bs = Bs + t % STAGES * BK * BN + wn0 + 4 * ln;
        T4 a[2][TM / 4], b[2][TN / 4];
        load_fragments(a[0], b[0], as, bs);
#pragma unroll
        for (int k = 0; k < BK; k++) {
            if (k + 1 < BK)
                load_fragments(a[(k + 1) % 2], b[(k + 1) % 2], as + (k + 1) * SA,
                               bs + (k + 1) * BN);
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    mac(acc[i * TN + j], a[k % 2][i / 4].v[i % 4], b[k % 2][j / 4].v[j % 4]);
        }
    }
    wait_group<0>(); /* no copy may outlive the block (the trailing groups are empty) */
}

/* The warp's tile of acc into C at row r0, column c0: 16-byte stores where a row's four
   columns are inside an aligned C. */
static __device__ __forceinline__ void store_lanes(T *__restrict__ C, const T (&acc)[TM * TN],
                                                   int M, int N, int r0, int c0, int lm, int ln)
{
    const bool vec_c = N % 4 == 0;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int r = r0 + i / 4 * 4 * LM + 4 * lm + i % 4;
        if (r >= M)
            continue;
#pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            const int c = c0 + j * 4 * LN + 4 * ln;
            const T *sums = acc + i * TN + 4 * j;
            T *out = C + (size_t)r * N + c;
            if (vec_c && c + 3 < N) {
                T4 v = {{sums[0], sums[1], sums[2], sums[3]}};
                *(T4 *)out = v;
            } else {
#pragma unroll
                for (int jj = 0; jj < 4; jj++)
                    if (c + jj < N)
                        out[jj] = sums[jj];
            }
        }
    }
}

/*
 * Where C's rows are not whole 16-byte pieces (N % 4 != 0), a lane's four
 * columns go out as four stores, and a warp's store touches four pieces 16
 * bytes apart in each of 8 rows: 32 sectors for 128 bytes (at 12289 x 12301
 * x 509, a sixth of the kernel's time). There the block's sums go through
 * the stages instead (free once every warp has multiplied its last slice):
 * each lane writes its pieces into rows of SC = BN + 4 elements (the pad
 * puts the 8 lanes of a quarter-warp on distinct banks), then consecutive
 * threads store consecutive columns of a row, a warp 128 bytes of one row
 * a store. Only where that staging fits the stages (STAGED_C).
 */
#define SC (BN + 4)
#define STAGED_C (BM * SC <= STAGES * BK * (SA + BN))

static __device__ __forceinline__ void store_staged(T *__restrict__ C, const T (&acc)[TM * TN],
                                                    T *stage, int M, int N, int m0, int n0,
                                                    int wm0, int wn0, int lm, int ln, int tid)
{
    __syncthreads(); /* every warp done with the stages */
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            const T *sums = acc + i * TN + 4 * j;
            const T4 v = {{sums[0], sums[1], sums[2], sums[3]}};
            *(T4 *)(stage + (wm0 + i / 4 * 4 * LM + 4 * lm + i % 4) * SC + wn0 + j * 4 * LN +
                    4 * ln) = v;
        }
    __syncthreads();
#pragma unroll 4
    for (int e = tid; e < BM * BN; e += NT) {
        const int r = m0 + e / BN, c = n0 + e % BN;
        if (r < M && c < N)
            C[(size_t)r * N + c] = stage[e / BN * SC + e % BN];
    }
}

/* The block's sums into C, its block at row m0, column n0 (stage: the stages, for
   store_staged). */
static __device__ __forceinline__ void store(T *__restrict__ C, const T (&acc)[TM * TN], T *stage,
                                             int M, int N, int m0, int n0, int wm0, int wn0,
                                             int lm, int ln, int tid)
{
    if (STAGED_C && N % 4 != 0)
        store_staged(C, acc, stage, M, N, m0, n0, wm0, wn0, lm, ln, tid);
    else
        store_lanes(C, acc, M, N, m0 + wm0, n0 + wn0, lm, ln);
}

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS)
gemm(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C, const int M,
     const int N, const int K, const int ldb
#if SK
     ,
     unsigned *ws
#endif
)
{
    extern __shared__ __align__(32) unsigned char smem[];
    T *const As = (T *)smem;              /* STAGES x BK x SA */
    T *const Bs = As + STAGES * BK * SA; /* STAGES x BK x BN */

    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;
    const int lm = lane / LN, ln = lane % LN;
    /* C's blocks, GROUP block-rows at a time, column-major inside a group (kl_tile_of) */
    const int rows = (M + BM - 1) / BM, cols = (N + BN - 1) / BN;
    const int slices_k = (K + BK - 1) / BK;
    T acc[TM * TN];

#if SK
    /* This block's pieces: slices w.k0 .. w.k1 - 1 of block w.tile of C each. */
    const kl_sk<T> sk = sk_begin<T>(rows * cols, slices_k, gridDim.x, gridDim.x, ws);
    if ((int)blockIdx.x >= sk.plan.blocks)
        return; /* the plan runs fewer blocks than were launched: the whole block leaves */
    FOR_EACH_PIECE(w, sk.plan, blockIdx.x, 0, 0, 0)
    {
        int bm, bn;
        kl_tile_of(w.tile, rows, cols, GROUP, &bm, &bn);
        const int m0 = bm * BM, n0 = bn * BN;
#pragma unroll
        for (int i = 0; i < TM * TN; i++)
            acc[i] = 0;
        multiply(A, B, As, Bs, loader_at(tid, m0, n0, M, N, K, ldb), w.k0, w.k1 - w.k0, tid,
                 wm0, wn0, lm, ln, acc);
        if (sk_settle(sk, acc, w, blockIdx.x, 1, 0, 0))
            store(C, acc, As, M, N, m0, n0, wm0, wn0, lm, ln, tid);
        __syncthreads(); /* every thread done with the stages before the next piece fills them */
    }
#else
    /* This block's place, and its nslices slices of K from slice t0 (all of them without
       SPLITK). */
    int bm, bn;
    kl_tile_of(blockIdx.y * gridDim.x + blockIdx.x, rows, cols, GROUP, &bm, &bn);
    const int m0 = bm * BM, n0 = bn * BN;
#if SPLITK > 1
    const int t0 = (int)((long long)blockIdx.z * slices_k / SPLITK);
    const int nslices = (int)((long long)(blockIdx.z + 1) * slices_k / SPLITK) - t0;
    C += blockIdx.z * (size_t)M * N; /* its partial product in the workspace */
#else
    const int t0 = 0, nslices = slices_k;
#endif
#pragma unroll
    for (int i = 0; i < TM * TN; i++)
        acc[i] = 0;
    multiply(A, B, As, Bs, loader_at(tid, m0, n0, M, N, K, ldb), t0, nslices, tid, wm0, wn0, lm,
             ln, acc);
    store(C, acc, As, M, N, m0, n0, wm0, wn0, lm, ln, tid);
#endif
}

/*
 * B (K x N) into P (K x ldp, ldp >= N), zeros after N in each row: the
 * copy kladder makes where B's rows are not 16-byte aligned (ldp rounds N
 * up to whole 16-byte pieces), timed with the product. One thread per
 * element of P.
 */
extern "C" __global__ void pack_b(const T *__restrict__ B, T *__restrict__ P, const int K,
                                  const int N, const int ldp)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)K * ldp)
        return;
    const int k = (int)(i / ldp), n = (int)(i % ldp);
    P[i] = n < N ? B[(size_t)k * N + n] : (T)0;
}
