/*
 * Rung 19 (CUDA only): mma.sync in the input's own type: half, bf16, fp8
 * (e4m3, e5m2) or int8 products on the tensor cores, summed in fp32 (int32).
 *
 * Computes   C[r][c] = sum_k A[r][k] * Bt[c][k]   (A row-major M x K; Bt is
 *            B transposed, row-major N x K, which kladder makes on the host
 *            for a rung with b_col_major; C row-major M x N of float, of int
 *            for int8). The type is -DKL_T_HALF, KL_T_BF16, KL_T_FP8 (e4m3),
 *            KL_T_FP8E5M2 or KL_T_INT8; the arrays hold its bits.
 * Precision: the type's own: the tensor cores multiply the inputs as they
 *            are (a product of two of them is exact in fp32) and sum the
 *            products in fp32, truncating (int32 for int8: exact while
 *            |C| < 2^31). kladder checks the result against the type's
 *            tolerance (kl_narrow_tolerance; 0 for int8).
 * Geometry:  a block of NW = (BM/WM) * (BN/WN) warps per BM x BN block of
 *            C (kladder launches 32 * (BN/WN) x (BM/WM) threads); each warp
 *            a WM x WN tile of it made of (WM/16) x (WN/8) tiles of one
 *            instruction, m16n8k16 for 16-bit types and m16n8k32 for 8-bit
 *            ones: 32 bytes of K each. In 32-bit words of K (two 16-bit or
 *            four 8-bit values, the lower k in the lower bits) every type's
 *            fragments are laid out alike, as TF32's of rung 15 in floats:
 *            for lane l = 4g + t, A (16 x 8 words) rows g and g + 8, words
 *            t and t + 4; B (8 words x 8) words t and t + 4 of column g;
 *            C rows g and g + 8, columns 2t and 2t + 1. Blocks are rastered
 *            in groups of GROUP block-rows, as in rungs 14 and 15.
 * Macros:    BM (default 128), BN (128), BK (32: ELEMENTS of K per slice, a
 *            power of two whose bytes are a multiple of 32, so 32 or more for
 *            8-bit types), WM (64), WN (64), STAGES (4). Dynamic shared
 *            memory STAGES * (BM + BN) * (BK * E + 16) bytes for E-byte
 *            elements (80 KiB for 16-bit types at the defaults, 48 KiB for
 *            8-bit ones: room for two blocks per SM on an A100 or H100, one
 *            on compute capability 8.6 and 8.9).
 * Layout:    stage s holds A's slice as in A, As[s][m][BK*E + 16 bytes], and
 *            B's as in Bt, Bs[s][n][BK*E + 16 bytes]: both K-major, as the
 *            row.col instruction wants them, so both arrive by 16-byte
 *            cp.async and both are read by ldmatrix.x4, whose 8 x 8 matrices
 *            of 16-bit halves are 8 rows by 4 words: A's four are exactly an
 *            m16 fragment, B's two n8 fragments. 16 bytes of padding make a
 *            row an odd number of 16-byte units (BK * E is a multiple of
 *            32), so the eight rows of a matrix fall in eight different
 *            groups of banks. No conversion: the fragments are the inputs'
 *            bits.
 * Change:    rung 15 multiplies floats rounded to TF32 (an H100's tensor
 *            cores: 330 TFLOP/s through mma.sync); 16-bit inputs go twice as
 *            fast per byte of shared memory and per instruction (m16n8k16,
 *            kladder peak 659 TFLOP/s) and 8-bit ones four times (m16n8k32,
 *            1313 TOPS for int8). The pipeline is rung 15's: STAGES - 1
 *            slices in flight by cp.async, one barrier per slice, the next
 *            step's fragments read while this step's products run.
 * Sizes:     any M, N, K >= 1. Where K * E is a multiple of 16, rows of A
 *            and Bt are 16-byte aligned: pieces outside A or Bt have a
 *            source size of 0 (cp.async fills zeros). Otherwise no row past
 *            the first is aligned even for a 4-byte cp.async, and every
 *            piece is read element by element (zeros outside) and stored to
 *            shared memory by the thread. C is stored two values at a time
 *            where N is even, one by one with guards elsewhere.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more (8.9 for
 *            FP8).
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 4
#endif

#if defined(KL_T_HALF) || defined(KL_T_BF16)
#define ELEM 2 /* bytes per element */
typedef unsigned short elem;
#elif defined(KL_T_FP8) || defined(KL_T_FP8E5M2) || defined(KL_T_INT8)
#define ELEM 1
typedef unsigned char elem;
#else
#error "mma: rung 19 multiplies half, bf16, fp8, fp8e5m2 or int8 inputs"
#endif
#if (defined(KL_T_FP8) || defined(KL_T_FP8E5M2)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
#error "mma: FP8 tensor cores need compute capability 8.9 or more"
#endif
#ifdef KL_T_INT8
typedef int acc_t; /* C's type: int32 sums of int8 products */
#else
typedef float acc_t;
#endif

#define MT (WM / 16)                    /* mma tiles of a warp along m */
#define NT8 (WN / 8)                    /* ... along n */
#define NT ((BM / WM) * (BN / WN) * 32) /* threads per block */
#define BKB (BK * ELEM)                 /* bytes of K per slice */
#define KSTEPS (BKB / 32)               /* mma steps per slice (32 bytes of K each) */
#define PITCH (BKB + 16)                /* bytes per row of As and Bs */
#define A_STAGE (BM * PITCH)            /* bytes per stage of As */
#define B_STAGE (BN * PITCH)            /* bytes per stage of Bs */
#define PR (BKB / 16)                   /* 16-byte pieces per row of a slice */
#define PER16 (16 / ELEM)               /* elements per piece */
#define RS (NT / PR)                    /* rows between a thread's pieces */
#define GROUP 8                         /* block-rows per group of the raster */

static_assert(WM % 16 == 0 && WN % 8 == 0, "mma: WM must be a multiple of 16, WN of 8");
static_assert(BM % WM == 0 && BN % WN == 0, "mma: BM % WM and BN % WN must be 0");
static_assert(BKB % 32 == 0 && (BK & (BK - 1)) == 0,
              "mma: BK must be a power of two of whole 32-byte mma steps");
static_assert(STAGES >= 2, "mma: at least two stages");
static_assert(NT % PR == 0 && (BM * PR) % NT == 0 && (BN * PR) % NT == 0,
              "mma: the 16-byte pieces of a slice must divide evenly among the threads, "
              "each thread's in one column");

/* Two blocks per multiprocessor where they fit, as rung 15. */
#define MIN_BLOCKS (NT <= 128 || (WM * WN / 32 <= 32 && NT <= 256) ? 2 : 1)

/* ---- the instructions, each one line of PTX -------------------------------- */

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* cp.async of 16 bytes, of which the first src_bytes (0 or 16) are read and the rest zero. */
static __device__ __forceinline__ void copy16(unsigned dst, const elem *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes));
}
static __device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Four 8 x 8 matrices of 16-bit halves (8 rows of 4 words; rows from the lanes' addresses). */
static __device__ __forceinline__ void ldmatrix_x4(unsigned (&a)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(addr));
}

/* Two of them (rows from lanes 0-15's addresses). */
static __device__ __forceinline__ void ldmatrix_x2(unsigned (&a)[2], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(a[0]), "=r"(a[1])
                 : "r"(addr));
}

#if defined(KL_T_HALF)
#define MMA_F32 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
#elif defined(KL_T_BF16)
#define MMA_F32 "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
#elif defined(KL_T_FP8)
#define MMA_F32 "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
#elif defined(KL_T_FP8E5M2)
#define MMA_F32 "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
#endif

/* d += a * b on the tensor cores: one 16 x 8 x (32 bytes) product, summed in acc_t. */
static __device__ __forceinline__ void mma(acc_t (&d)[4], const unsigned (&a)[4],
                                           const unsigned (&b)[2])
{
#ifdef KL_T_INT8
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    asm volatile(MMA_F32 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* The fragments of one step of 32 bytes of K: A's of the warp's m16 tiles, B's of its n8 tiles. */
struct frags {
    unsigned a[MT][4], b[NT8][2];
};

/*
 * Lane's fragments of the step at byte kb of the slice: A's at shared
 * address as (this lane's ldmatrix row of the warp's first m16 tile), B's at
 * bs (its row of the first pair of n8 tiles); an odd last n8 tile by x2.
 */
static __device__ __forceinline__ void load_frags(frags &f, unsigned as, unsigned bs, int kb)
{
#pragma unroll
    for (int i = 0; i < MT; i++)
        ldmatrix_x4(f.a[i], as + i * 16 * PITCH + kb);
#pragma unroll
    for (int h = 0; h < NT8 / 2; h++) {
        unsigned r[4];
        ldmatrix_x4(r, bs + h * 16 * PITCH + kb);
        f.b[2 * h][0] = r[0], f.b[2 * h][1] = r[1];
        f.b[2 * h + 1][0] = r[2], f.b[2 * h + 1][1] = r[3];
    }
    if (NT8 % 2)
        ldmatrix_x2(f.b[NT8 - 1], bs + (NT8 - 1) * 8 * PITCH + kb);
}

static __device__ __forceinline__ void multiply(acc_t (&d)[MT][NT8][4], const frags &f)
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
            mma(d[i][j], f.a[i], f.b[j]);
}

/* ---- copies of one K-slice into a stage ------------------------------------- */

struct tiles {
    int m0, n0, M, N, K;
    bool vec;    /* K * E a multiple of 16: rows of A and Bt are 16-byte aligned */
    bool inside; /* the block's rows and columns all inside C */
};

/*
 * The thread's first 16-byte piece of A's and Bt's slices: its row in the
 * tile and its piece in the row (later pieces are RS rows further, in the
 * same column), and its offsets in A and Bt for k0 = 0 as 32-bit element
 * counts (kladder keeps matrices below 2^31 elements).
 */
struct pieces {
    int r, c;
    int a_off, b_off;
};

/*
 * The 16 bytes of row (a pointer to its element gk) holding its first valid
 * elements (0 .. PER16) and zeros after, read element by element and stored
 * at shared address dst: for rows that are not 16-byte aligned.
 */
static __device__ __forceinline__ void copy_elements(unsigned dst, const elem *src, int valid)
{
    unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < PER16; e++)
        if (e < valid)
            w[e * ELEM / 4] |= (unsigned)src[e] << (8 * (e * ELEM % 4));
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w[0]), "r"(w[1]),
                 "r"(w[2]), "r"(w[3]));
}

/*
 * One piece of rows (A or Bt, rows of K elements): tile row r of the block
 * whose first row is row0 (rows up to nrows exist), piece c, at K-slice k0,
 * into shared address dst; zeros outside the matrix.
 */
static __device__ __forceinline__ void copy_guarded(unsigned dst, const elem *X, const tiles &t,
                                                    int row0, int nrows, int r, int c, int k0)
{
    const int gr = row0 + r, gk = k0 + c * PER16;
    const int valid = gr < nrows ? max(0, min(PER16, t.K - gk)) : 0;
    const elem *src = X + (size_t)(valid ? gr : 0) * t.K + (valid ? gk : 0);
    if (t.vec)
        copy16(dst, src, valid * ELEM); /* valid is 0 or PER16 here */
    else
        copy_elements(dst, src, valid);
}

/*
 * Issues the copies of K-slice k0 into the stage at shared addresses as, bs.
 * A slice wholly inside A and Bt with aligned rows takes the first path: no
 * guards, offsets that differ by constants times K.
 */
static __device__ __forceinline__ void load_slice(const elem *__restrict__ A,
                                                  const elem *__restrict__ Bt, unsigned as,
                                                  unsigned bs, const tiles &t, const pieces &q,
                                                  int k0)
{
    if (t.vec && t.inside && k0 + BK <= t.K) {
#pragma unroll
        for (int i = 0; i < BM * PR / NT; i++)
            copy16(as + (q.r + i * RS) * PITCH + q.c * 16, A + q.a_off + i * RS * t.K + k0, 16);
#pragma unroll
        for (int i = 0; i < BN * PR / NT; i++)
            copy16(bs + (q.r + i * RS) * PITCH + q.c * 16, Bt + q.b_off + i * RS * t.K + k0, 16);
        return;
    }
#pragma unroll
    for (int i = 0; i < BM * PR / NT; i++)
        copy_guarded(as + (q.r + i * RS) * PITCH + q.c * 16, A, t, t.m0, t.M, q.r + i * RS, q.c,
                     k0);
#pragma unroll
    for (int i = 0; i < BN * PR / NT; i++)
        copy_guarded(bs + (q.r + i * RS) * PITCH + q.c * 16, Bt, t, t.n0, t.N, q.r + i * RS, q.c,
                     k0);
}

/* Two values of acc_t written as one 8-byte access. */
struct __align__(8) pair {
    acc_t x, y;
};

/* C[r][c], C[r][c + 1] = v0, v1 where inside C (c is even): one 8-byte store where N is even. */
static __device__ __forceinline__ void store_pair(acc_t *C, int r, int c, int M, int N, acc_t v0,
                                                  acc_t v1)
{
    if (r >= M || c >= N)
        return;
    acc_t *out = C + (size_t)r * N + c;
    if (N % 2 == 0) {
        *reinterpret_cast<pair *>(out) = {v0, v1};
    } else {
        out[0] = v0;
        if (c + 1 < N)
            out[1] = v1;
    }
}

template <int M_, int N_>
static __device__ __forceinline__ void zero(acc_t (&d)[M_][N_][4])
{
#pragma unroll
    for (int i = 0; i < M_; i++)
#pragma unroll
        for (int j = 0; j < N_; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                d[i][j][r] = 0;
}

/* Which of the two fragment sets a slice's first step multiplies, as a type. */
template <int P> struct step_parity {
    static constexpr int value = P;
};

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS)
gemm(const elem *__restrict__ A, const elem *__restrict__ Bt, acc_t *__restrict__ C, const int M,
     const int N, const int K)
{
    extern __shared__ __align__(128) unsigned char smem[];
    const unsigned As = smem_addr(smem);       /* STAGES x BM x PITCH bytes */
    const unsigned Bs = As + STAGES * A_STAGE; /* STAGES x BN x PITCH bytes */

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

    const tiles t = {m0, n0, M, N, K, K % PER16 == 0, m0 + BM <= M && n0 + BN <= N};
    const pieces q = {tid / PR, tid % PR, (m0 + tid / PR) * K + tid % PR * PER16,
                      (n0 + tid / PR) * K + tid % PR * PER16};
    const int nslices = (K + BK - 1) / BK;

    acc_t acc[MT][NT8][4];
    zero(acc);

    /* The first STAGES - 1 slices in flight; one commit group per slice, empty or not. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nslices)
            load_slice(A, Bt, As + s * A_STAGE, Bs + s * B_STAGE, t, q, s * BK);
        commit_group();
    }

    /* Lane l's ldmatrix row: A's l % 16 of the m16 tile, bytes 16 (l / 16) .. +15;
       Bt's l % 8 of n8 tile l / 16 of the pair, bytes 16 (l / 8 % 2) .. +15. */
    const unsigned a_lane = As + (wm0 + lane % 16) * PITCH + lane / 16 * 16;
    const unsigned b_lane = Bs + (wn0 + lane % 8 + lane / 16 * 8) * PITCH + lane / 8 % 2 * 16;

    /*
     * The main loop, as rung 15's: the fragments of the next step are read while this step's
     * products run, from two sets, f[0] and f[1], alternating step by step from the product's first
     * step (with one step per slice, as 8-bit types at BK = 32 and rung 21 at BK = MK have, a
     * slice's first set alternates too, where f[kk % 2] would multiply the same set again). The
     * wait for the next slice, with its barrier, comes before the last step of a slice. Slice s +
     * STAGES - 1 is issued at the first step of slice s, into the stage of slice s - 1, whose last
     * fragments every warp read before the barrier of slice s - 1. Stores of copy_elements, like
     * the copies, are read only after a later barrier.
     */
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
            if (kk == 0) {
                const int next = s + STAGES - 1;
                if (next < nslices)
                    load_slice(A, Bt, As + next % STAGES * A_STAGE, Bs + next % STAGES * B_STAGE,
                               t, q, next * BK);
                commit_group();
            }
            if (kk == KSTEPS - 1) { /* slice s + 1 has arrived, for every thread */
                wait_group<STAGES - 2>();
                __syncthreads();
            }
            const int ns = kk + 1 < KSTEPS ? s : s + 1, nk = kk + 1 < KSTEPS ? kk + 1 : 0;
            if (ns < nslices)
                load_frags(f[(P + kk + 1) % 2], a_lane + ns % STAGES * A_STAGE,
                           b_lane + ns % STAGES * B_STAGE, nk * 32);
            multiply(acc, f[(P + kk) % 2]);
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
