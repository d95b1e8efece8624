/*
 * Rung 21 (CUDA only): FP64 on the tensor cores (DMMA), mma.sync in double.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            B row-major K x N, C row-major M x N; double only).
 * Precision: fp64: the tensor cores multiply and add doubles with fp64's
 *            rounding, as the FMA units would; kladder checks the result
 *            against the fp64 tolerance.
 * Geometry:  a block of NW = (BM/WM) * (BN/WN) warps per BM x BN block of
 *            C (kladder launches 32 * (BN/WN) x (BM/WM) threads); each warp
 *            a WM x WN tile of it made of (WM/16) x (WN/8) tiles of
 *            m16n8kMK. Compute capability 9.0 has that instruction for MK =
 *            4, 8 and 16 (PTX ISA 7.8); before, each k4 of it is two
 *            m8n8k4 (rows g, then g + 8). For lane l = 4g + t, k4 piece s of
 *            the fragments holds A rows g and g + 8, column 4s + t; B row
 *            4s + t, column g; C rows g and g + 8, columns 2t and 2t + 1.
 *            Blocks are rastered in groups of GROUP block-rows, as in rungs
 *            14 and 15.
 * Macros:    BM (default 64), BN (128), BK (16, a power of two), WM (32),
 *            WN (32), STAGES (3), MK (8: the instruction's k on 9.0; a
 *            power of two from 4 to 16 dividing BK; the fragments of a step
 *            take 6 * MK registers per lane for 64 x 32 warp tiles, which
 *            spill at MK = 8 and 16, and 3 * MK for 32 x 32 ones: ptxas for
 *            sm_90 fits the defaults in 202 registers). The defaults were the
 *            fastest of a sweep on an H100 at 4096^3 (docs/RESULTS.md):
 *            55.6 TFLOP/s, where 128-row blocks of 64 x 32 warp tiles at
 *            MK = 4 made 45.7. Dynamic shared memory STAGES * (BM * (BK +
 *            4) + BK * SB) doubles, SB = BN rounded up to 4 more than a
 *            multiple of 16 (80 KiB at the defaults). PREFETCH (1): the next
 *            step's fragments read while this step's products run, from a
 *            second set of registers; 0: one set, read just before its
 *            products (the scheduler's other warp hides the reads), which
 *            leaves 128 x 128 blocks of 32 x 64 warp tiles at MK = 8 in 238
 *            registers, no spills (with two sets they spill): twice the
 *            products per byte a block brings in from L2 as the defaults'
 *            64 x 128 blocks. Measured on an H200, and refuted: one set
 *            runs 0.81x the defaults, 0.91x on those 128 x 128 blocks
 *            (docs/RESULTS.md): the prefetched reads are worth more. 2: one
 *            set of A's fragments, m16 tile i's read for the next step as
 *            soon as this step's products of tile i are issued, and B's two
 *            sets (cuBLAS's DGEMM feeds its 64 x 32 warp tiles so, in 246
 *            registers): 64 x 32 warp tiles of 128 x 128 blocks fit 255
 *            registers without spills (of 128 x 64 blocks, 24 bytes
 *            spilled), 1.5 fragment reads a product where 32 x 32 tiles
 *            take 2. Not yet measured.
 * Layout:    stage s holds A's slice as in A, As[s][m][k] with rows of
 *            BK + 4 doubles, and B's as in B, Bs[s][k][n] with rows of SB
 *            doubles. Both arrive by 16-byte cp.async. A lane reads its
 *            fragments one double at a time (ldmatrix moves 32-bit words
 *            and a double is two): A's 16 lanes of a half-warp read rows g
 *            (4 of them) and columns t (4) at 4g + t (mod 16) doubles from
 *            a common base, B's rows t and columns g at 4t + g (mod 16):
 *            sixteen different pairs of banks.
 * Change:    the FFMA rungs run double on the FP64 units (an H100: 34
 *            TFLOP/s at best). Its tensor cores multiply doubles at twice
 *            that (kladder peak: 67 TFLOP/s by DMMA m16n8k16), fed here by
 *            rung 15's pipeline: STAGES - 1 slices in flight by cp.async,
 *            one barrier per slice, the next step's fragments read while
 *            this step's products run.
 * Sizes:     any M, N, K >= 1. Copies outside A or B have a source size of
 *            0 and fill zeros. Rows of A (B) are 16-byte aligned when K (N)
 *            is even; otherwise that matrix is copied in pieces of two
 *            doubles by two 8-byte cp.async each. C is stored two doubles
 *            at a time where N is even, one by one with guards elsewhere.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 32
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef MK
#define MK 8
#endif
#ifndef PREFETCH
#define PREFETCH 1
#endif

#ifndef KL_T_DOUBLE
#error "dmma: rung 21 multiplies double inputs (--type double)"
#endif

#define MT (WM / 16)                    /* mma tiles of a warp along m */
#define NT8 (WN / 8)                    /* ... along n */
#define NT ((BM / WM) * (BN / WN) * 32) /* threads per block */
#define KQ (MK / 4)                     /* k4 pieces per mma */
#define KSTEPS (BK / MK)                /* mma steps per slice */
#define SA (BK + 4)                     /* doubles per row of As */
#define SB (BN + (20 - BN % 16) % 16)   /* doubles per row of Bs: 4 (mod 16) */
#define A_STAGE (BM * SA)               /* doubles per stage of As */
#define B_STAGE (BK * SB)               /* doubles per stage of Bs */
#define PA (BK / 2)                     /* 16-byte pieces per row of A's slice */
#define PB (BN / 2)                     /* ... of B's slice */
#define GROUP 8                         /* block-rows per group of the raster */

static_assert(WM % 16 == 0 && WN % 8 == 0, "dmma: WM must be a multiple of 16, WN of 8");
static_assert(BM % WM == 0 && BN % WN == 0, "dmma: BM % WM and BN % WN must be 0");
static_assert(MK == 4 || MK == 8 || MK == 16, "dmma: MK is 4, 8 or 16");
static_assert(BK % MK == 0 && (BK & (BK - 1)) == 0,
              "dmma: BK must be a power of two and a multiple of MK");
static_assert(STAGES >= 2, "dmma: at least two stages");
static_assert(NT % PA == 0 && (BM * PA) % NT == 0 && NT % PB == 0 && (BK * PB) % NT == 0,
              "dmma: the 16-byte pieces of a slice must divide evenly among the threads, "
              "each thread's in one column");

/* Two blocks per multiprocessor for blocks of up to 128 threads (up to 255 registers each). */
#define MIN_BLOCKS (NT <= 128 ? 2 : 1)

/* ---- the instructions, each one line of PTX -------------------------------- */

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* cp.async of 16 or 8 bytes, of which the first src_bytes are read and the rest zero. */
template <int BYTES>
static __device__ __forceinline__ void copy_async(unsigned dst, const double *src, int src_bytes)
{
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
}
static __device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/*
 * d += a * b on the tensor cores: one 16 x 8 x MK product in fp64. a[s][h]
 * is k4 piece s of rows g + 8h, b[s] of column g (Geometry).
 */
static __device__ __forceinline__ void mma(double (&d)[4], const double (&a)[KQ][2],
                                           const double (&b)[KQ])
{
#if __CUDA_ARCH__ >= 900 && MK == 16
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0][0]), "d"(a[0][1]), "d"(a[1][0]), "d"(a[1][1]), "d"(a[2][0]),
                   "d"(a[2][1]), "d"(a[3][0]), "d"(a[3][1]), "d"(b[0]), "d"(b[1]), "d"(b[2]),
                   "d"(b[3]));
#elif __CUDA_ARCH__ >= 900 && MK == 8
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0][0]), "d"(a[0][1]), "d"(a[1][0]), "d"(a[1][1]), "d"(b[0]), "d"(b[1]));
#elif __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5}, {%6}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0][0]), "d"(a[0][1]), "d"(b[0]));
#else
#pragma unroll
    for (int s = 0; s < KQ; s++)
#pragma unroll
        for (int h = 0; h < 2; h++) /* rows g (C's d[0], d[1]), then g + 8 (d[2], d[3]) */
            asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                         "{%0, %1};\n"
                         : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                         : "d"(a[s][h]), "d"(b[s]));
#endif
}

/* The fragments of one step of MK k: A's of the warp's MT m16 tiles, B's of its NT8 n8 tiles. */
struct frags {
    double a[MT][KQ][2], b[NT8][KQ];
};

/*
 * Lane's fragments of step k (its first k in the slice): A's of m16 tile i
 * from as, the lane's element (row g, column t) of the warp's first m16
 * tile; B's from bs, its element (row t, column g) of the first n8 tile.
 */
static __device__ __forceinline__ void load_a(double (&a)[KQ][2], const double *as, int k, int i)
{
#pragma unroll
    for (int s = 0; s < KQ; s++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            a[s][h] = as[(i * 16 + h * 8) * SA + k + 4 * s];
}

static __device__ __forceinline__ void load_b(double (&b)[NT8][KQ], const double *bs, int k)
{
#pragma unroll
    for (int j = 0; j < NT8; j++)
#pragma unroll
        for (int s = 0; s < KQ; s++)
            b[j][s] = bs[(k + 4 * s) * SB + j * 8];
}

static __device__ __forceinline__ void load_frags(frags &f, const double *as, const double *bs,
                                                  int k)
{
#pragma unroll
    for (int i = 0; i < MT; i++)
        load_a(f.a[i], as, k, i);
    load_b(f.b, bs, k);
}

#if PREFETCH == 2
/* The products of one m16 tile's A fragments a with every n8 tile's B fragments b. */
static __device__ __forceinline__ void multiply_tile(double (&d)[NT8][4],
                                                     const double (&a)[KQ][2],
                                                     const double (&b)[NT8][KQ])
{
#pragma unroll
    for (int j = 0; j < NT8; j++)
        mma(d[j], a, b[j]);
}
#else
static __device__ __forceinline__ void multiply(double (&d)[MT][NT8][4], const frags &f)
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
            mma(d[i][j], f.a[i], f.b[j]);
}
#endif

/* ---- copies of one K-slice into a stage ------------------------------------- */

struct tiles {
    int m0, n0, M, N, K;
    bool vec_a, vec_b; /* K (N) even: A's (B's) rows are 16-byte aligned */
    bool inside;       /* the block's rows and columns all inside C */
};

/*
 * The thread's first piece of 2 doubles of A's and B's slices: row and
 * column in the tile (later pieces are NT / PA rows of A, NT / PB rows of B
 * further, in the same column), and its offset in A (B) for k0 = 0, as
 * 32-bit element counts (kladder keeps matrices below 2^31 elements).
 */
struct pieces {
    int ar, ak, br, bn;
    int a_off, b_off;
};

/*
 * Two doubles of a row at src into shared memory at dst, of which the first
 * valid (0 .. 2) are read and the rest zero: one 16-byte copy where rows are
 * 16-byte aligned, else two 8-byte copies (any K or N).
 */
static __device__ __forceinline__ void copy_piece(unsigned dst, const double *src, int valid,
                                                  bool vec, const double *base)
{
    if (vec) {
        copy_async<16>(dst, valid > 0 ? src : base, valid * 8);
        return;
    }
#pragma unroll
    for (int e = 0; e < 2; e++)
        copy_async<8>(dst + 8 * e, e < valid ? src + e : base, e < valid ? 8 : 0);
}

/*
 * Issues the copies of K-slice k0 into the stage at shared addresses as,
 * bs; zeros outside A and B. Piece p of A's slice is row p / PA, columns
 * 2 (p % PA) .. +1; B's likewise along its rows. A slice wholly inside A
 * and B takes the first path: no guards, offsets that differ by constants
 * times K or N.
 */
static __device__ __forceinline__ void load_slice(const double *__restrict__ A,
                                                  const double *__restrict__ B, unsigned as,
                                                  unsigned bs, const tiles &t, const pieces &q,
                                                  int k0, int tid)
{
    if (t.inside && k0 + BK <= t.K) {
#pragma unroll
        for (int i = 0; i < BM * PA / NT; i++)
            copy_piece(as + ((q.ar + i * (NT / PA)) * SA + q.ak) * 8,
                       A + q.a_off + i * (NT / PA) * t.K + k0, 2, t.vec_a, A);
#pragma unroll
        for (int i = 0; i < BK * PB / NT; i++)
            copy_piece(bs + ((q.br + i * (NT / PB)) * SB + q.bn) * 8,
                       B + q.b_off + (k0 + i * (NT / PB)) * t.N, 2, t.vec_b, B);
        return;
    }
#pragma unroll
    for (int i = 0; i < BM * PA / NT; i++) {
        const int p = tid + i * NT, r = p / PA, k = p % PA * 2;
        const int gm = t.m0 + r, gk = k0 + k;
        const int valid = gm < t.M ? max(0, min(2, t.K - gk)) : 0;
        copy_piece(as + (r * SA + k) * 8, A + (size_t)(valid ? gm : 0) * t.K + gk, valid, t.vec_a,
                   A);
    }
#pragma unroll
    for (int i = 0; i < BK * PB / NT; i++) {
        const int p = tid + i * NT, k = p / PB, n = p % PB * 2;
        const int gk = k0 + k, gn = t.n0 + n;
        const int valid = gk < t.K ? max(0, min(2, t.N - gn)) : 0;
        copy_piece(bs + (k * SB + n) * 8, B + (size_t)(valid ? gk : 0) * t.N + gn, valid, t.vec_b,
                   B);
    }
}

/* Two doubles written as one 16-byte access. */
struct __align__(16) pair {
    double x, y;
};

/* C[r][c], C[r][c + 1] = v0, v1 where inside C (c is even): one 16-byte store where N is even. */
static __device__ __forceinline__ void store_pair(double *C, int r, int c, int M, int N, double v0,
                                                  double v1)
{
    if (r >= M || c >= N)
        return;
    double *out = C + (size_t)r * N + c;
    if (N % 2 == 0) {
        *reinterpret_cast<pair *>(out) = {v0, v1};
    } else {
        out[0] = v0;
        if (c + 1 < N)
            out[1] = v1;
    }
}

template <int M_, int N_>
static __device__ __forceinline__ void zero(double (&d)[M_][N_][4])
{
#pragma unroll
    for (int i = 0; i < M_; i++)
#pragma unroll
        for (int j = 0; j < N_; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                d[i][j][r] = 0.0;
}

/* Which of the two fragment sets a slice's first step multiplies, as a type. */
template <int P> struct step_parity {
    static constexpr int value = P;
};

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS)
gemm(const double *__restrict__ A, const double *__restrict__ B, double *__restrict__ C,
     const int M, const int N, const int K)
{
    extern __shared__ __align__(128) double smem[];
    const unsigned As = smem_addr(smem);           /* STAGES x BM x SA */
    const unsigned Bs = As + STAGES * A_STAGE * 8; /* STAGES x BK x SB */
    const double *const Af = smem, *const Bf = smem + STAGES * A_STAGE;

    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;
    const int g = lane / 4, tq = lane % 4;

    /* This block's place: GROUP block-rows at a time, column-major inside the group. */
    const int rows = gridDim.y, cols = gridDim.x;
    const int bid = blockIdx.y * cols + blockIdx.x;
    const int first = bid / (GROUP * cols) * GROUP;
    const int height = min(rows - first, GROUP);
    const int m0 = (first + bid % (GROUP * cols) % height) * BM;
    const int n0 = bid % (GROUP * cols) / height * BN;

    const tiles t = {m0, n0, M, N, K, K % 2 == 0, N % 2 == 0, m0 + BM <= M && n0 + BN <= N};
    const pieces q = {tid / PA, tid % PA * 2, tid / PB, tid % PB * 2,
                      (m0 + tid / PA) * K + tid % PA * 2, tid / PB * N + n0 + tid % PB * 2};
    const int nslices = (K + BK - 1) / BK;

    double acc[MT][NT8][4];
    zero(acc);

    /* The first STAGES - 1 slices in flight; one commit group per slice, empty or not. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nslices)
            load_slice(A, B, As + s * A_STAGE * 8, Bs + s * B_STAGE * 8, t, q, s * BK, tid);
        commit_group();
    }

    /* Lane (g, t)'s first elements: A's row g, column t; B's row t, column g. */
    const double *const a_lane = Af + (wm0 + g) * SA + tq;
    const double *const b_lane = Bf + tq * SB + wn0 + g;
    /* At slice s: the copies of slice s + STAGES - 1 into the stage of slice s - 1, whose
       fragments every warp read before the barrier that precedes this; one commit group
       each time, empty or not. */
    auto refill = [&](const int s) {
        const int next = s + STAGES - 1;
        if (next < nslices)
            load_slice(A, B, As + next % STAGES * A_STAGE * 8, Bs + next % STAGES * B_STAGE * 8,
                       t, q, next * BK, tid);
        commit_group();
    };

    /*
     * The main loop, as rung 15's: the fragments of the next step are read while this step's
     * products run, from two sets, f[0] and f[1], alternating step by step from the product's first
     * step (with one step per slice, as 8-bit types at BK = 32 and rung 21 at BK = MK have, a
     * slice's first set alternates too, where f[kk % 2] would multiply the same set again). The
     * wait for the next slice, with its barrier, comes before the last step of a slice. Slice s +
     * STAGES - 1 is issued at the first step of slice s, into the stage of slice s - 1, whose last
     * fragments every warp read before the barrier of slice s - 1.
     */
#if PREFETCH
    wait_group<STAGES - 2>();
    __syncthreads();
    frags f[2];
    load_frags(f[0], a_lane, b_lane, 0);
    /* Slice s, whose first step multiplies f[P]: P is known at compile time, so that f stays
       in registers, and alternates from slice to slice where KSTEPS is odd. */
    auto slice = [&](const int s, auto parity) {
        constexpr int P = decltype(parity)::value;
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++) {
            if (kk == 0)
                refill(s);
            if (kk == KSTEPS - 1) { /* slice s + 1 has arrived, for every thread */
                wait_group<STAGES - 2>();
                __syncthreads();
            }
            const int ns = kk + 1 < KSTEPS ? s : s + 1, nk = kk + 1 < KSTEPS ? kk + 1 : 0;
#if PREFETCH == 2
            /* One set of A's fragments (f[0].a): m16 tile i's are read for the next step as
               soon as this step's products of it are issued; B's alternate in two sets. */
            const double *const an = a_lane + ns % STAGES * A_STAGE;
            if (ns < nslices)
                load_b(f[(P + kk + 1) % 2].b, b_lane + ns % STAGES * B_STAGE, nk * MK);
#pragma unroll
            for (int i = 0; i < MT; i++) {
                multiply_tile(acc[i], f[0].a[i], f[(P + kk) % 2].b);
                if (ns < nslices)
                    load_a(f[0].a[i], an, nk * MK, i);
            }
#else
            if (ns < nslices)
                load_frags(f[(P + kk + 1) % 2], a_lane + ns % STAGES * A_STAGE,
                           b_lane + ns % STAGES * B_STAGE, nk * MK);
            multiply(acc, f[(P + kk) % 2]);
#endif
        }
    };
    if constexpr (KSTEPS % 2 == 0) {
        for (int s = 0; s < nslices; s++)
            slice(s, step_parity<0>());
    } else {
        for (int s = 0; s < nslices; s += 2) {
            slice(s, step_parity<0>());
            if (s + 1 < nslices)
                slice(s + 1, step_parity<1>());
        }
    }
#else
    /*
     * PREFETCH=0: one set of fragments, read just before its products (the other warps of
     * the scheduler hide the reads' latency), so that larger warp tiles keep their
     * accumulators in registers. One barrier per slice, at its start: slice s has landed in
     * every thread's view, and every warp has read slice s - 1, whose stage the copies of
     * slice s + STAGES - 1 then refill.
     */
    frags f;
    for (int s = 0; s < nslices; s++) {
        wait_group<STAGES - 2>();
        __syncthreads();
        refill(s);
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++) {
            load_frags(f, a_lane + s % STAGES * A_STAGE, b_lane + s % STAGES * B_STAGE, kk * MK);
            multiply(acc, f);
        }
    }
#endif
    wait_group<0>(); /* no copy may outlive the block (the trailing groups are empty) */

    /* Lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each m16 x n8 tile. */
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
#pragma unroll
            for (int r8 = 0; r8 < 2; r8++)
                store_pair(C, m0 + wm0 + i * 16 + r8 * 8 + g, n0 + wn0 + j * 8 + 2 * tq, M, N,
                           acc[i][j][2 * r8], acc[i][j][2 * r8 + 1]);
}
