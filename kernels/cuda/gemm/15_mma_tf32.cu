/*
 * Rung 15 (CUDA only): the multiply-adds on the tensor cores, mma.sync in TF32.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            B row-major K x N, C row-major M x N; float only).
 * Precision: tf32. Every value of A and B is rounded to TF32 (10 of
 *            float's 23 mantissa bits, to nearest: cvt.rn on compute
 *            capability 9.0, cvt.rna before) before it is multiplied;
 *            products are summed in fp32 by the tensor cores. Such a
 *            result is NOT float-accurate: kladder checks it against the
 *            TF32 tolerance and labels it tf32.
 *            Built with -DSPLIT=3 this file is rung 16 (16_mma_3xtf32.cu).
 * Geometry:  a block of NW = (BM/WM) * (BN/WN) warps per BM x BN block of
 *            C (kladder launches 32 * (BN/WN) x (BM/WM) threads); each
 *            warp a WM x WN tile of it made of (WM/16) x (WN/8) tiles of
 *            the instruction mma.m16n8k8, whose fragments are, for lane
 *            l = 4g + t: A (16 x 8) rows g and g + 8, columns t and t + 4;
 *            B (8 x 8) rows t and t + 4, column g; C rows g and g + 8,
 *            columns 2t and 2t + 1 (which columns of C, Layout says).
 *            Blocks are rastered in groups of GROUP
 *            block-rows, as in rung 14, so that running blocks share their
 *            panels of A and B in L2.
 * Macros:    BM (default 128), BN (128), BK (16), WM (64), WN (64),
 *            STAGES (4): the fastest of a sweep on an H100 at 4096^3
 *            (docs/RESULTS.md; rung 16 has its own); SPLIT (1, or 3 for
 *            3xTF32). Dynamic shared memory STAGES * (BM * (BK + 4) + BK *
 *            SB) floats, SB = BN rounded up to 8 more than a multiple of 32
 *            (74 KiB at the defaults).
 * Layout:    stage s holds A's slice as in A, As[s][m][k] with rows of
 *            BK + 4 floats, and B's as in B, Bs[s][k][n] with rows of SB
 *            floats. Both arrive by 16-byte cp.async (no transposition:
 *            the A fragment wants k contiguous, as A is). A's fragments are
 *            read by ldmatrix.x4: its four 8 x 8 matrices of 16-bit halves
 *            are four 8 x 4 pieces of float, exactly the m16k8 fragment,
 *            one instruction for four registers; the rows of a piece are
 *            (BK + 4) * 4 bytes apart, an odd number of 16-byte units when
 *            BK is a multiple of 8, so its eight rows fall in eight
 *            different groups of banks. An mma's column may be any column
 *            of C: column g of n8 tile j is column VB*g + j % VB of the
 *            group of tiles j / VB (VB = 4 where a warp has a multiple of 4
 *            tiles, else 2 or 1), so a lane's B values of a fragment row are
 *            one read of VB floats (four LDS.128 a step instead of sixteen
 *            LDS.32 at the defaults) and its C values 2*VB consecutive
 *            floats of a row. With SB = 8 (mod 32) the eight lanes of each
 *            phase of a 16-byte read hit eight different groups of banks.
 * Change:    rung 14 spent one FFMA instruction per multiply-add on the
 *            fp32 units (66 TFLOP/s on an H100 at best). One mma.m16n8k8
 *            does 1024 multiply-adds on a tensor core, and the tensor cores
 *            of an H100 multiply TF32 about five times faster than the FMA
 *            units (kladder peak: 325 against 66 TFLOP/s). Rung 14's pipeline
 *            (STAGES - 1 slices in flight by cp.async, one barrier per
 *            slice) feeds it, laid out as CUTLASS's multistage loop: the
 *            fragments of the next step are read while this step's products
 *            run, and the wait for the next slice comes before the last step
 *            of a slice, so its first fragments are read meanwhile. Rung 15
 *            rounds each fragment value once, as it is read (one F2FP
 *            instruction on 9.0), so no register holds it twice (ptxas
 *            for sm_90 at the defaults: 12 bytes spilled, from 56).
 * 3xTF32:    the tensor cores' fp32 sums truncate; added into a large
 *            accumulator they would lose about an ulp of it per step (on
 *            an H100 at 4096^3, 11x the error of cuBLAS SGEMM). So a slice's
 *            products are summed on the tensor cores in part[], and part is
 *            added to acc by the FMA units, which round to nearest (then
 *            0.2x cuBLAS SGEMM's error). And where K <= 8 (one step) the
 *            products of what the split drops are added too, so that a
 *            single product meets the fp32 tolerance (see multiply_dropped).
 * Sizes:     any M, N, K >= 1. Copies outside A or B have a source size of
 *            0 and fill zeros. Rows of A (B) are 16-byte aligned when K (N)
 *            is a multiple of 4; otherwise that matrix is copied in pieces
 *            of four floats by four 4-byte cp.async each. C is stored as
 *            float4 where N is a multiple of 4, float2 where N is even,
 *            element by element with guards elsewhere.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
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
#ifndef STAGES
#define STAGES 4
#endif
#ifndef SPLIT
#define SPLIT 1
#endif

#if defined(KL_T_DOUBLE) || defined(KL_T_INT)
#error "mma_tf32: the TF32 tensor cores multiply float inputs"
#endif

#define MT (WM / 16)                      /* mma tiles of a warp along m */
#define NT8 (WN / 8)                      /* ... along n */
#define NT ((BM / WM) * (BN / WN) * 32)   /* threads per block */
#define SA (BK + 4)                       /* floats per row of As */
#define SB (BN + (40 - BN % 32) % 32)     /* floats per row of Bs: 8 (mod 32) */
#define A_STAGE (BM * SA)                 /* floats per stage of As */
#define B_STAGE (BK * SB)                 /* floats per stage of Bs */
#define GROUP 8                           /* block-rows per group of the raster */
#define VB (NT8 % 4 == 0 ? 4 : NT8 % 2 == 0 ? 2 : 1) /* B's columns per lane and read (Layout) */

static_assert(WM % 16 == 0 && WN % 8 == 0, "mma_tf32: WM must be a multiple of 16, WN of 8");
static_assert(BM % WM == 0 && BN % WN == 0, "mma_tf32: BM % WM and BN % WN must be 0");
static_assert(BK % 8 == 0, "mma_tf32: BK must be a multiple of 8");
static_assert(STAGES >= 2, "mma_tf32: at least two stages");
static_assert(SPLIT == 1 || SPLIT == 3, "mma_tf32: SPLIT is 1 (TF32) or 3 (3xTF32)");
static_assert((BM * BK / 4) % NT == 0 && (BK * BN / 4) % NT == 0,
              "mma_tf32: the 16-byte pieces of a slice must divide evenly among the threads");

/*
 * Two blocks per multiprocessor where they fit: blocks of 128 threads (up to
 * 255 registers), or 256 threads whose 32 accumulators leave room for the
 * fragments, the 3xTF32 parts and the copies' addresses in 128 registers.
 */
#define MIN_BLOCKS (NT <= 128 || (WM * WN / 32 <= 32 && NT <= 256) ? 2 : 1)

/* ---- the instructions, each one line of PTX -------------------------------- */

static __device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* cp.async of 16 or 4 bytes, of which the first src_bytes are read and the rest zero. */
template <int BYTES>
static __device__ __forceinline__ void copy_async(unsigned dst, const float *src, int src_bytes)
{
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
                     "r"(src_bytes));
}
static __device__ __forceinline__ void commit_group() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> static __device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Four 8 x 4 pieces of float (rows from the lanes' addresses) into a[0..3]. */
static __device__ __forceinline__ void ldmatrix_x4(unsigned (&a)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(addr));
}

/*
 * x rounded to TF32, to nearest; the low 13 bits are zero. Compute capability
 * 9.0 has an instruction for it (cvt.rn: ties to even, one F2FP); 8.x has
 * only cvt.rna (ties away), which ptxas makes an add, a compare for infinity
 * and a select: three instructions per element, as many as the mma issue
 * slots of a step leave free.
 */
static __device__ __forceinline__ unsigned tf32(float x)
{
    unsigned r;
#if __CUDA_ARCH__ >= 900
    asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#else
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#endif
    return r;
}

/* d += a * b on the tensor cores: one 16 x 8 x 8 product, fp32 accumulation. */
static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4],
                                           const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * x as TF32 parts: big = tf32(x) and, for 3xTF32, small = tf32(x - big).
 * x - big is exact in float; big + small keeps 22 of x's 24 significant
 * bits, so small_a*big_b + big_a*small_b + big_a*big_b misses a*b by a few
 * units of float's rounding (u = 2^-24), about as much as float's own
 * rounding of a sum of a few terms.
 */
template <int N>
static __device__ __forceinline__ void split(const unsigned (&x)[N], unsigned (&big)[N],
                                             unsigned (&small)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++) {
        big[i] = tf32(__uint_as_float(x[i]));
        small[i] = tf32(__uint_as_float(x[i]) - __uint_as_float(big[i]));
    }
}

/* What the split drops: the last bits, x - big - small (exact in float, at most 2 bits). */
template <int N>
static __device__ __forceinline__ void last_bits(const unsigned (&x)[N], const unsigned (&big)[N],
                                                 const unsigned (&small)[N], unsigned (&low)[N])
{
#pragma unroll
    for (int i = 0; i < N; i++)
        low[i] = __float_as_uint(__uint_as_float(x[i]) - __uint_as_float(big[i]) -
                                 __uint_as_float(small[i]));
}

/*
 * The fragments of one step of 8 k: A's of the warp's MT m16 tiles, B's of
 * its NT8 n8 tiles. Rung 15 holds them rounded to TF32, once, as they are
 * read (no register keeps the float too); 3xTF32 holds the floats' bits and
 * splits them in multiply.
 */
struct frags {
    unsigned a[MT][4], b[NT8][2];
};

static __device__ __forceinline__ unsigned fragment(unsigned bits)
{
    return SPLIT == 1 ? tf32(__uint_as_float(bits)) : bits;
}

/* L floats read or written as one access: p must be 4 * L bytes aligned. */
template <int L> struct __align__(4 * L) run {
    float x[L];
};

/*
 * Lane's fragments of step k: A by ldmatrix at shared address as; B from bs,
 * the lane's first column of the group (see Layout): n8 tile j's column g is
 * VB*g + j % VB of the group of tiles j / VB, so one read of VB floats per
 * group and fragment row.
 */
static __device__ __forceinline__ void load_frags(frags &f, unsigned as, const float *bs, int k)
{
#pragma unroll
    for (int i = 0; i < MT; i++) {
        unsigned r[4];
        ldmatrix_x4(r, as + (i * 16 * SA + k) * 4);
#pragma unroll
        for (int x = 0; x < 4; x++)
            f.a[i][x] = fragment(r[x]);
    }
#pragma unroll
    for (int h = 0; h < NT8 / VB; h++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const run<VB> v = *reinterpret_cast<const run<VB> *>(bs + (k + 4 * r) * SB + h * 8 * VB);
#pragma unroll
            for (int e = 0; e < VB; e++)
                f.b[h * VB + e][r] = fragment(__float_as_uint(v.x[e]));
        }
}

/*
 * d += A*B for one step: big*big in TF32; for 3xTF32 the small products
 * first, while the sum is small.
 */
static __device__ __forceinline__ void multiply(float (&d)[MT][NT8][4], const frags &f)
{
    unsigned ab[MT][4], as[MT][4], bb[NT8][2], bs[NT8][2];
    if (SPLIT == 3) {
#pragma unroll
        for (int i = 0; i < MT; i++)
            split(f.a[i], ab[i], as[i]);
#pragma unroll
        for (int j = 0; j < NT8; j++)
            split(f.b[j], bb[j], bs[j]);
    }
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++) {
            if (SPLIT == 3) {
                mma(d[i][j], as[i], bb[j]);
                mma(d[i][j], ab[i], bs[j]);
                mma(d[i][j], ab[i], bb[j]);
            } else {
                mma(d[i][j], f.a[i], f.b[j]);
            }
        }
}

/*
 * 3xTF32 with K <= 8, a single step: d += what the split dropped,
 * small*small + low*big + big*low, so that even one product (K = 1) meets
 * the fp32 tolerance of 4u|ab|, which the split alone (up to 8u) does not.
 */
static __device__ __forceinline__ void multiply_dropped(float (&d)[MT][NT8][4], const frags &f)
{
    unsigned ab[MT][4], as[MT][4], al[MT][4], bb[NT8][2], bs[NT8][2], bl[NT8][2];
#pragma unroll
    for (int i = 0; i < MT; i++) {
        split(f.a[i], ab[i], as[i]);
        last_bits(f.a[i], ab[i], as[i], al[i]);
    }
#pragma unroll
    for (int j = 0; j < NT8; j++) {
        split(f.b[j], bb[j], bs[j]);
        last_bits(f.b[j], bb[j], bs[j], bl[j]);
    }
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++) {
            mma(d[i][j], as[i], bs[j]);
            mma(d[i][j], al[i], bb[j]);
            mma(d[i][j], ab[i], bl[j]);
        }
}

template <int M, int N>
static __device__ __forceinline__ void zero(float (&d)[M][N][4])
{
#pragma unroll
    for (int i = 0; i < M; i++)
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                d[i][j][r] = 0.0f;
}

/* acc += part, rounded to nearest by the FMA units (the tensor cores' sums truncate). */
template <int M, int N>
static __device__ __forceinline__ void add(float (&acc)[M][N][4], const float (&part)[M][N][4])
{
#pragma unroll
    for (int i = 0; i < M; i++)
#pragma unroll
        for (int j = 0; j < N; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] += part[i][j][r];
}

/* ---- copies of one K-slice into a stage ------------------------------------- */

struct tiles {
    int m0, n0, M, N, K;
    bool vec_a, vec_b; /* K (N) a multiple of 4: A's (B's) rows are 16-byte aligned */
    bool inside;       /* the block's rows and columns all inside C */
};

/*
 * The thread's first piece of 4 floats of A's and B's slices: row and column
 * in the tile (later pieces are NT / (BK/4) rows of A, NT / (BN/4) rows of B
 * further), and its offset in A (B) for k0 = 0, as 32-bit element counts
 * (kladder keeps matrices below 2^31 elements) so the copies' addresses
 * cost few registers.
 */
struct pieces {
    int ar, ak, br, bn;
    int a_off, b_off;
};

/*
 * Four floats of a row at src into shared memory at dst, of which the first
 * valid (0 .. 4) are read and the rest zero: one 16-byte copy where rows are
 * 16-byte aligned, else four 4-byte copies (any K or N).
 */
static __device__ __forceinline__ void copy_piece(unsigned dst, const float *src, int valid,
                                                  bool vec, const float *base)
{
    if (vec) {
        copy_async<16>(dst, valid > 0 ? src : base, valid * 4);
        return;
    }
#pragma unroll
    for (int e = 0; e < 4; e++)
        copy_async<4>(dst + 4 * e, e < valid ? src + e : base, e < valid ? 4 : 0);
}

/*
 * Issues the copies of K-slice k0 into the stage at shared addresses as,
 * bs; zeros outside A and B. Piece p of A's slice is row p / (BK/4),
 * columns 4 (p % (BK/4)) .. +3, so consecutive threads read consecutive
 * 16 bytes of a row; B's likewise along its rows. A slice wholly inside A
 * and B takes the first path: no guards, offsets that differ by constants
 * times K or N.
 */
static __device__ __forceinline__ void load_slice(const float *__restrict__ A,
                                                  const float *__restrict__ B, unsigned as,
                                                  unsigned bs, const tiles &t, const pieces &q,
                                                  int k0, int tid)
{
    if (t.inside && k0 + BK <= t.K) {
#pragma unroll
        for (int i = 0; i < BM * BK / 4 / NT; i++)
            copy_piece(as + ((q.ar + i * (NT / (BK / 4))) * SA + q.ak) * 4,
                       A + q.a_off + i * (NT / (BK / 4)) * t.K + k0, 4, t.vec_a, A);
#pragma unroll
        for (int i = 0; i < BK * BN / 4 / NT; i++)
            copy_piece(bs + ((q.br + i * (NT / (BN / 4))) * SB + q.bn) * 4,
                       B + q.b_off + (k0 + i * (NT / (BN / 4))) * t.N, 4, t.vec_b, B);
        return;
    }
#pragma unroll
    for (int i = 0; i < BM * BK / 4 / NT; i++) {
        const int p = tid + i * NT, r = p / (BK / 4), k = p % (BK / 4) * 4;
        const int gm = t.m0 + r, gk = k0 + k;
        const int valid = gm < t.M ? max(0, min(4, t.K - gk)) : 0;
        copy_piece(as + (r * SA + k) * 4, A + (size_t)(valid ? gm : 0) * t.K + gk, valid,
                   t.vec_a, A);
    }
#pragma unroll
    for (int i = 0; i < BK * BN / 4 / NT; i++) {
        const int p = tid + i * NT, k = p / (BN / 4), n = p % (BN / 4) * 4;
        const int gk = k0 + k, gn = t.n0 + n;
        const int valid = gk < t.K ? max(0, min(4, t.N - gn)) : 0;
        copy_piece(bs + (k * SB + n) * 4, B + (size_t)(valid ? gk : 0) * t.N + gn, valid,
                   t.vec_b, B);
    }
}

/*
 * C[r][c .. c + L - 1] = v where inside C: 16-byte stores where the run lies
 * inside and N is a multiple of 4 (c is then too), 8-byte ones where N is
 * even, else element by element.
 */
template <int L>
static __device__ __forceinline__ void store_run(float *C, int r, int c, int M, int N,
                                                 const float (&v)[L])
{
    if (r >= M)
        return;
    float *out = C + (size_t)r * N + c;
    if (L % 4 == 0 && N % 4 == 0 && c + L <= N) {
#pragma unroll
        for (int e = 0; e < L; e += 4)
            *reinterpret_cast<run<4> *>(out + e) = {v[e], v[e + 1], v[e + 2], v[e + 3]};
    } else if (N % 2 == 0 && c + L <= N) {
#pragma unroll
        for (int e = 0; e < L; e += 2)
            *reinterpret_cast<run<2> *>(out + e) = {v[e], v[e + 1]};
    } else {
#pragma unroll
        for (int e = 0; e < L; e++)
            if (c + e < N)
                out[e] = v[e];
    }
}

extern "C" __global__ void __launch_bounds__(NT, MIN_BLOCKS)
gemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
     const int M, const int N, const int K)
{
    extern __shared__ __align__(128) float smem[];
    const unsigned As = smem_addr(smem);                     /* STAGES x BM x SA */
    const unsigned Bs = As + STAGES * A_STAGE * 4;            /* STAGES x BK x SB */
    const float *const Bf = smem + STAGES * A_STAGE;

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

    const tiles t = {m0, n0, M, N, K, K % 4 == 0, N % 4 == 0, m0 + BM <= M && n0 + BN <= N};
    const pieces q = {tid / (BK / 4), tid % (BK / 4) * 4, tid / (BN / 4), tid % (BN / 4) * 4,
                      (m0 + tid / (BK / 4)) * K + tid % (BK / 4) * 4,
                      tid / (BN / 4) * N + n0 + tid % (BN / 4) * 4};
    const int nslices = (K + BK - 1) / BK;

    float acc[MT][NT8][4];
    zero(acc);

    /* The first STAGES - 1 slices in flight; one commit group per slice, empty or not. */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nslices)
            load_slice(A, B, As + s * A_STAGE * 4, Bs + s * B_STAGE * 4, t, q, s * BK, tid);
        commit_group();
    }

    /* Lane l's ldmatrix row: l % 16 of the m16 tile, columns 4 (l / 16) .. +3. */
    const unsigned a_lane = As + ((wm0 + lane % 16) * SA + lane / 16 * 4) * 4;
    /* Lane l's B elements: row t (and t + 4), columns VB*g .. +VB-1 of each group. */
    const float *const b_lane = Bf + tq * SB + wn0 + g * VB;

    /*
     * The main loop, as CUTLASS's multistage loop: the fragments of the next
     * step are read while this step's products run (two sets, f[0] and
     * f[1]), and the wait for the next slice, with its barrier, comes before
     * the last step of a slice, so the next slice's first fragments are read
     * while the last products of this one run. Slice s + STAGES - 1 is
     * issued at the first step of slice s, into the stage of slice s - 1,
     * whose last fragments every warp read before that barrier.
     */
    wait_group<STAGES - 2>();
    __syncthreads();
    frags f[2];
    load_frags(f[0], a_lane, b_lane, 0);
    float part[MT][NT8][4]; /* 3xTF32: one slice's products, added to acc by the FMA units */
    for (int s = 0; s < nslices; s++) {
        if (SPLIT == 3)
            zero(part);
#pragma unroll
        for (int kk = 0; kk < BK / 8; kk++) {
            if (kk == 0) {
                const int next = s + STAGES - 1;
                if (next < nslices)
                    load_slice(A, B, As + next % STAGES * A_STAGE * 4,
                               Bs + next % STAGES * B_STAGE * 4, t, q, next * BK, tid);
                commit_group();
            }
            if (kk == BK / 8 - 1) { /* slice s + 1 has arrived, for every thread */
                wait_group<STAGES - 2>();
                __syncthreads();
            }
            const int ns = kk + 1 < BK / 8 ? s : s + 1, nk = kk + 1 < BK / 8 ? kk + 1 : 0;
            if (ns < nslices)
                load_frags(f[(kk + 1) % 2], a_lane + ns % STAGES * A_STAGE * 4,
                           b_lane + ns % STAGES * B_STAGE, nk * 8);
            if (SPLIT == 3)
                multiply(part, f[kk % 2]);
            else
                multiply(acc, f[kk % 2]);
        }
        if (SPLIT == 3)
            add(acc, part);
    }
    if (SPLIT == 3 && K <= 8) { /* one step: slice 0 is still in stage 0 */
        load_frags(f[0], a_lane, b_lane, 0);
        zero(part);
        multiply_dropped(part, f[0]);
        add(acc, part);
    }
    wait_group<0>(); /* no copy may outlive the block (the trailing groups are empty) */

    /*
     * Lane (g, t) holds columns 2t and 2t + 1 of each n8 tile, which are
     * (Layout) columns VB * 2t + j % VB and VB * (2t + 1) + j % VB of the
     * group: 2 * VB consecutive columns per row and group.
     */
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < NT8 / VB; h++)
#pragma unroll
            for (int r8 = 0; r8 < 2; r8++) { /* rows g, g + 8 */
                float v[2 * VB];
#pragma unroll
                for (int e = 0; e < VB; e++) {
                    v[e] = acc[i][h * VB + e][2 * r8];
                    v[VB + e] = acc[i][h * VB + e][2 * r8 + 1];
                }
                store_run(C, m0 + wm0 + i * 16 + r8 * 8 + g, n0 + wn0 + h * 8 * VB + 2 * tq * VB,
                          M, N, v);
            }
}
