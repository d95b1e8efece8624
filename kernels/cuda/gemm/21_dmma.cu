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
 *            power of two from 4 to 16 dividing BK), PREFETCH (1). The
 *            defaults were the fastest of a sweep on an H100 at 4096^3
 *            (docs/RESULTS.md) before PREFETCH=2; Hopper's presets by size
 *            (gemm/rungs.c) take PREFETCH=2 on 64 x 32 warp tiles. Dynamic
 *            shared memory STAGES * (BM * SA + BK * SB) doubles, SA = BK (16
 *            at least), SB = BN rounded up to a multiple of 16 (72 KiB at
 *            the defaults).
 *            PREFETCH=1: the next step's fragments read while this step's
 *            products run, into a second set of registers, all at the
 *            step's start. 0: one set, read just before its products (the
 *            scheduler's other warp hides the reads), which leaves 128 x 128
 *            blocks of 32 x 64 warp tiles room in the registers; measured
 *            on an H200, and refuted: 0.81x the defaults. 2: A's fragments
 *            in a ring of WM/16 + 1 sets of one m16 tile's each, B's in two
 *            sets; the next step's A fragments of tile i are read as this
 *            step's tile i's products issue, into the set tile i - 1 has
 *            just issued (cuBLAS's DGEMM feeds its 64 x 32 warp tiles so):
 *            64 x 32 warp tiles fit 255 registers, 1.5 fragment reads a
 *            product where 32 x 32 tiles take 2. On an H100, 128 x 128
 *            blocks of them ran 1.05x the defaults at 4096^3 and 8192^3
 *            (0.99x and 0.96x cuBLAS DGEMM), 1.22x at 4095 x 4097 x 4093,
 *            but 0.56x at 1024^3, where 64 of them leave half the SMs idle
 *            (docs/RESULTS.md).
 * Layout:    stage s holds A's slice as in A, As[s][m][k] with rows of SA
 *            doubles, and B's as in B, Bs[s][k][n] with rows of SB doubles:
 *            whole 128-byte lines. Both arrive by 16-byte cp.async, a
 *            warp's eight pieces of a row filling one line (padded rows,
 *            whose pieces straddled two lines, took 7 wavefronts of shared
 *            memory for 4). A lane reads its fragments one double at a time
 *            (ldmatrix moves 32-bit words and a double is two); for the 16
 *            lanes of a half-warp to meet sixteen different pairs of banks
 *            (A's rows g and columns t, B's rows t and columns g), each
 *            row's 16-byte pieces are permuted within their line by its
 *            index mod 4 (swizzled).
 * Change:    the FFMA rungs run double on the FP64 units (an H100: 34
 *            TFLOP/s at best). Its tensor cores multiply doubles at twice
 *            that (kladder peak: 67 TFLOP/s by DMMA m16n8k16), fed here by
 *            rung 15's pipeline: STAGES - 1 slices in flight by cp.async,
 *            one barrier per slice, the next step's fragments read while
 *            this step's products run.
 * Sizes:     any M, N, K >= 1. Where K and N are even, rows of A and B are
 *            16-byte aligned and every piece of two doubles lies wholly
 *            inside a matrix or outside it: 16-byte copies, zeros for those
 *            outside. Otherwise the pieces are copied by two 8-byte
 *            cp.async each, guarded one by one (load_slice). C is stored two
 *            doubles at a time where N is even, one by one with guards
 *            elsewhere.
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
#define SA (BK < 16 ? 16 : BK)          /* doubles per row of As: whole 128-byte lines */
#define SB ((BN + 15) / 16 * 16)        /* ... of Bs */
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

/*
 * The fragments' shared-memory layout: rows of S doubles (a multiple of 16:
 * whole 128-byte lines), each row's 16-byte pieces permuted within their
 * line by the row's index mod 4, so that a warp's 16-byte copies fill whole
 * lines and a half-warp's fragment reads (A: rows g, columns t; B: rows t,
 * columns g) meet sixteen different pairs of banks. Element (r, c)'s place:
 */
static __device__ __forceinline__ int swizzled(int r, int c, int S)
{
    return r * S + (((c >> 1) ^ ((r & 3) << 1)) << 1) + (c & 1);
}

/*
 * The lane's first elements in stage 0: A's at row g of the warp's tile and
 * columns 4v + t (v = 0 .. 3: the column's place in its line decides its
 * piece's permutation), B's at row t and columns 8w + g of n8 tiles w = 0, 1;
 * every other element of a step is one of these plus whole rows (of A: 8,
 * of B: 4) and whole lines, known when the kernel is built.
 */
#define AV (BK < 16 ? BK / 4 : 4)
#define BV (NT8 < 2 ? NT8 : 2)
struct lanes {
    const double *a[AV], *b[BV];
};

/* Lane's fragments of step k (its first k in the slice) in the stage at as, bs (element
   offsets): A's of m16 tile i, B's of every n8 tile. */
static __device__ __forceinline__ void load_a(double (&a)[KQ][2], const lanes &l, int as, int k,
                                              int i)
{
#pragma unroll
    for (int s = 0; s < KQ; s++)
#pragma unroll
        for (int h = 0; h < 2; h++)
            a[s][h] = l.a[(k + 4 * s) / 4 % 4][as + (i * 16 + h * 8) * SA + (k + 4 * s) / 16 * 16];
}

static __device__ __forceinline__ void load_b(double (&b)[NT8][KQ], const lanes &l, int bs, int k)
{
#pragma unroll
    for (int j = 0; j < NT8; j++)
#pragma unroll
        for (int s = 0; s < KQ; s++)
            b[j][s] = l.b[j % 2][bs + (k + 4 * s) * SB + j / 2 * 16];
}

/* The products of one m16 tile's A fragments a with every n8 tile's B fragments b. */
static __device__ __forceinline__ void multiply_tile(double (&d)[NT8][4],
                                                     const double (&a)[KQ][2],
                                                     const double (&b)[NT8][KQ])
{
#pragma unroll
    for (int j = 0; j < NT8; j++)
        mma(d[j], a, b[j]);
}

/* ---- copies of one K-slice into a stage ------------------------------------- */

struct tiles {
    int m0, n0, M, N, K;
    bool vec_a, vec_b; /* K (N) even: A's (B's) rows are 16-byte aligned */
    bool inside;       /* the block's rows and columns all inside C */
};

/*
 * The thread's first piece of 2 doubles of A's and B's slices: row and
 * column in the tile (later pieces are NT / PA rows of A, NT / PB rows of B
 * further, in the same column), its place in a stage (swizzled) and its
 * offset in A (B) for k0 = 0, as 32-bit element counts (kladder keeps
 * matrices below 2^31 elements).
 */
struct pieces {
    int ar, ak, br, bn;
    int a_at, b_at;
    int a_off, b_off;
};

/* The places of piece i in a stage of A and of B: where the rows between pieces are a multiple
   of 4, the first piece's permutation holds for all. */
static __device__ __forceinline__ int a_place(const pieces &q, int i)
{
    return (NT / PA) % 4 == 0 ? q.a_at + i * (NT / PA) * SA
                              : swizzled(q.ar + i * (NT / PA), q.ak, SA);
}

static __device__ __forceinline__ int b_place(const pieces &q, int i)
{
    return (NT / PB) % 4 == 0 ? q.b_at + i * (NT / PB) * SB
                              : swizzled(q.br + i * (NT / PB), q.bn, SB);
}

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
 * 2 (p % PA) .. +1; B's likewise along its rows. ALIGNED: both matrices'
 * rows 16-byte aligned (K and N even), so that each piece lies wholly inside
 * A (B) or wholly outside: 16-byte copies only, at offsets that differ by
 * constants times K or N, a piece outside read as zeros (cp.async's
 * ignore-src), and no guards at all in a block inside C before its last
 * slice. Otherwise every piece is guarded and copied by two 8-byte copies.
 * The kernel runs its main loop once for each (two copies of it), so that
 * the aligned product, the usual one, neither issues the other's copies nor
 * holds their registers.
 */
template <bool ALIGNED>
static __device__ __forceinline__ void load_slice(const double *__restrict__ A,
                                                  const double *__restrict__ B, unsigned as,
                                                  unsigned bs, const tiles &t, const pieces &q,
                                                  int k0, int tid)
{
    if constexpr (ALIGNED) {
        /* The rows between pieces, computed here each time: held from slice to slice, a
           pointer a piece would take two registers each from the fragments. */
        int ka = (NT / PA) * t.K, nb = (NT / PB) * t.N;
        asm volatile("" : "+r"(ka), "+r"(nb));
        const double *const a = A + q.a_off + k0, *const b = B + q.b_off + k0 * t.N;
        if (t.inside && k0 + BK <= t.K) {
#pragma unroll
            for (int i = 0; i < BM * PA / NT; i++)
                copy_async<16>(as + a_place(q, i) * 8, a + i * ka, 16);
#pragma unroll
            for (int i = 0; i < BK * PB / NT; i++)
                copy_async<16>(bs + b_place(q, i) * 8, b + i * nb, 16);
        } else { /* the last slice, or a block across C's edge */
            const bool k_a = k0 + q.ak < t.K, n_b = t.n0 + q.bn < t.N;
#pragma unroll
            for (int i = 0; i < BM * PA / NT; i++) {
                const bool in = k_a && t.m0 + q.ar + i * (NT / PA) < t.M;
                copy_async<16>(as + a_place(q, i) * 8, in ? a + i * ka : A, in ? 16 : 0);
            }
#pragma unroll
            for (int i = 0; i < BK * PB / NT; i++) {
                const bool in = n_b && k0 + q.br + i * (NT / PB) < t.K;
                copy_async<16>(bs + b_place(q, i) * 8, in ? b + i * nb : B, in ? 16 : 0);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < BM * PA / NT; i++) {
            const int p = tid + i * NT, r = p / PA, k = p % PA * 2;
            const int gm = t.m0 + r, gk = k0 + k;
            const int valid = gm < t.M ? max(0, min(2, t.K - gk)) : 0;
            copy_piece(as + swizzled(r, k, SA) * 8, A + (size_t)(valid ? gm : 0) * t.K + gk,
                       valid, t.vec_a, A);
        }
#pragma unroll
        for (int i = 0; i < BK * PB / NT; i++) {
            const int p = tid + i * NT, k = p / PB, n = p % PB * 2;
            const int gk = k0 + k, gn = t.n0 + n;
            const int valid = gk < t.K ? max(0, min(2, t.N - gn)) : 0;
            copy_piece(bs + swizzled(k, n, SB) * 8, B + (size_t)(valid ? gk : 0) * t.N + gn,
                       valid, t.vec_b, B);
        }
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

/*
 * The fragments' registers: A's in RING sets of one m16 tile's each, B's in
 * two sets of a step's. PREFETCH=1: two sets of every tile's A fragments,
 * set (p % 2) * MT + i multiplied by tile i of step p. PREFETCH=2: MT + 1
 * sets in a ring, step p's tile i multiplying set (i - p) mod RING, so that
 * the next step's tile i fills the set that this step's tile i - 1 has just
 * issued (tile 0's: the one set no product of this step reads). The sets'
 * roles repeat every PERIOD steps.
 */
#if PREFETCH == 2
#define RING (MT + 1)
#define PERIOD (RING % 2 ? 2 * RING : RING)
#else
#define RING (2 * MT)
#define PERIOD 2
#endif

#if PREFETCH
static __device__ __forceinline__ constexpr int aset(int p, int i)
{
#if PREFETCH == 2
    return ((i - p) % RING + RING) % RING;
#else
    return p % 2 * MT + i;
#endif
}
#endif

static __host__ __device__ constexpr int gcd_of(int a, int b)
{
    return b == 0 ? a : gcd_of(b, a % b);
}

/* Slices in one turn of the sets, whose first steps' phases differ. */
#define TURN (PERIOD / gcd_of(PERIOD, KSTEPS))

/* A step's phase (its index mod PERIOD) as a type: the sets a step names are known when the
   kernel is built, so that they stay in registers. */
template <int P> struct phase {
    static constexpr int value = P;
};

/* Which of load_slice's paths a main loop takes, as a type. */
template <bool ALIGNED> struct path {
    static constexpr bool value = ALIGNED;
};

/* f(phase<J>()) for J = 0 .. N - 1, in order. */
template <int J, int N> struct each_phase {
    template <class F> static __device__ __forceinline__ void run(F &&f)
    {
        f(phase<J>());
        each_phase<J + 1, N>::run(f);
    }
};
template <int N> struct each_phase<N, N> {
    template <class F> static __device__ __forceinline__ void run(F &&) {}
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
    const pieces q = {tid / PA,
                      tid % PA * 2,
                      tid / PB,
                      tid % PB * 2,
                      swizzled(tid / PA, tid % PA * 2, SA),
                      swizzled(tid / PB, tid % PB * 2, SB),
                      (m0 + tid / PA) * K + tid % PA * 2,
                      tid / PB * N + n0 + tid % PB * 2};
    const int nslices = (K + BK - 1) / BK;

    double acc[MT][NT8][4];
    zero(acc);

    /* Lane (g, t)'s first elements (struct lanes). */
    lanes l;
#pragma unroll
    for (int v = 0; v < AV; v++)
        l.a[v] = Af + swizzled(wm0 + g, 4 * v + tq, SA);
#pragma unroll
    for (int w = 0; w < BV; w++)
        l.b[w] = Bf + swizzled(tq, wn0 + 8 * w + g, SB);
    /* The product, with load_slice's ALIGNED path or the other: two copies of it in the kernel,
       one taken by the whole grid. */
    auto product = [&](auto aligned) {
        constexpr bool ALIGNED = decltype(aligned)::value;
        /* At slice s: the copies of slice s + STAGES - 1 into stage `into`, slice s - 1's,
           whose fragments every warp read before the barrier that precedes this; one commit
           group each time, empty or not (the first STAGES - 1 slices go before the loop). */
        auto refill = [&](const int s, const int into) {
            const int next = s + STAGES - 1;
            if (next < nslices)
                load_slice<ALIGNED>(A, B, As + into * A_STAGE * 8, Bs + into * B_STAGE * 8, t,
                                    q, next * BK, tid);
            commit_group();
        };
#pragma unroll
        for (int s = 0; s < STAGES - 1; s++)
            refill(s - STAGES + 1, s);
        int stage = 0; /* slice s's: s % STAGES, counted along rather than divided */
#if PREFETCH
        /*
         * The main loop, as rung 15's: the fragments of the next step are read while this
         * step's products run, into sets that no product in flight reads (aset). The wait for
         * the next slice, with its barrier, comes before the last step of a slice, whose reads
         * are the next slice's. Slice s + STAGES - 1 is issued at the first step of slice s,
         * into the stage of slice s - 1, whose last fragments every warp read before the
         * barrier of slice s - 1.
         */
        wait_group<STAGES - 2>();
        __syncthreads();
        double fa[RING][KQ][2], fb[2][NT8][KQ];
#pragma unroll
        for (int i = 0; i < MT; i++)
            load_a(fa[aset(0, i)], l, 0, 0, i);
        load_b(fb[0], l, 0, 0);
        /* Slice s, whose first step has phase P. */
        auto slice = [&](const int s, auto first) {
            constexpr int P = decltype(first)::value;
            const int after = stage + 1 == STAGES ? 0 : stage + 1;
#pragma unroll
            for (int kk = 0; kk < KSTEPS; kk++) {
                if (kk == 0)
                    refill(s, stage == 0 ? STAGES - 1 : stage - 1);
                if (kk == KSTEPS - 1) { /* slice s + 1 has arrived, for every thread */
                    wait_group<STAGES - 2>();
                    __syncthreads();
                }
                /* This step's phase p; the next step's k nk in the stage of slice ns. */
                const int p = (P + kk) % PERIOD;
                const bool last = kk == KSTEPS - 1, more = !last || s + 1 < nslices;
                const int nk = last ? 0 : (kk + 1) * MK, ns = last ? after : stage;
#if PREFETCH == 1
                /* Every read first (interleaved with the products, as PREFETCH=2's are, the
                   defaults ran 0.91x on an H100). */
                if (more) {
#pragma unroll
                    for (int i = 0; i < MT; i++)
                        load_a(fa[aset(p + 1, i)], l, ns * A_STAGE, nk, i);
                    load_b(fb[(p + 1) % 2], l, ns * B_STAGE, nk);
                }
#pragma unroll
                for (int i = 0; i < MT; i++)
                    multiply_tile(acc[i], fa[aset(p, i)], fb[p % 2]);
#else
                /* Tile i's products, then the next step's A of tile i (and after tile 0's, its
                   B) into the set the products of tile i - 1 read. */
#pragma unroll
                for (int i = 0; i < MT; i++) {
                    multiply_tile(acc[i], fa[aset(p, i)], fb[p % 2]);
                    if (more) {
                        load_a(fa[aset(p + 1, i)], l, ns * A_STAGE, nk, i);
                        if (i == 0)
                            load_b(fb[(p + 1) % 2], l, ns * B_STAGE, nk);
                    }
                }
#endif
            }
            stage = after;
        };
        /* One turn of the sets a time, each slice with its first step's phase. */
        for (int s = 0; s < nslices; s += TURN)
            each_phase<0, TURN>::run([&](auto j) {
                constexpr int J = decltype(j)::value;
                if (J == 0 || s + J < nslices)
                    slice(s + J, phase<J * KSTEPS % PERIOD>());
            });
#else
        /*
         * PREFETCH=0: one set of fragments, read just before its products (the other warps of
         * the scheduler hide the reads' latency), so that larger warp tiles keep their
         * accumulators in registers. One barrier per slice, at its start: slice s has landed
         * in every thread's view, and every warp has read slice s - 1, whose stage the copies
         * of slice s + STAGES - 1 then refill.
         */
        double fa[MT][KQ][2], fb[NT8][KQ];
        for (int s = 0; s < nslices; s++) {
            wait_group<STAGES - 2>();
            __syncthreads();
            refill(s, stage == 0 ? STAGES - 1 : stage - 1);
#pragma unroll
            for (int kk = 0; kk < KSTEPS; kk++) {
#pragma unroll
                for (int i = 0; i < MT; i++)
                    load_a(fa[i], l, stage * A_STAGE, kk * MK, i);
                load_b(fb, l, stage * B_STAGE, kk * MK);
#pragma unroll
                for (int i = 0; i < MT; i++)
                    multiply_tile(acc[i], fa[i], fb);
            }
            stage = stage + 1 == STAGES ? 0 : stage + 1;
        }
#endif
    };
    if (t.vec_a && t.vec_b)
        product(path<true>());
    else
        product(path<false>());
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
