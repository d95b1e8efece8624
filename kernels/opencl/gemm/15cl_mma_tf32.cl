/*
 * Rung 15cl: rung 15 in OpenCL C. The multiply-adds go to the tensor
 * cores through inline PTX (mma.sync TF32), fed by rung 13's double buffer.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            B row-major K x N, C row-major M x N; float only).
 * Precision: tf32: every value of A and B is rounded to TF32 (cvt.rna, 10
 *            mantissa bits) before it is multiplied; products are summed
 *            in fp32 by the tensor cores. Not float-accurate: kladder checks
 *            it against the TF32 tolerance and labels it tf32. With
 *            -DSPLIT=3 this file is rung 16cl (16cl_mma_3xtf32.cl).
 * Where:     only NVIDIA GPUs of compute capability 8.0 or more run PTX's
 *            mma.sync; kladder skips the rung, with the reason, on every
 *            other device, before anything is built (no other OpenCL
 *            compiler knows NVIDIA's asm). Through the CUDA backend the same
 *            source runs behind kernels/cuda/prelude.cuh.
 * Geometry:  work-groups of 32 * (BN/WN) x (BM/WM): (BM/WM) * (BN/WN)
 *            warps per BM x BN block of C, each a WM x WN tile made of
 *            (WM/16) x (WN/8) tiles of mma.m16n8k8. Fragments, for lane
 *            l = 4g + t: A (16 x 8) rows g and g + 8, columns t and t + 4;
 *            B (8 x 8) rows t and t + 4, column g; C rows g and g + 8,
 *            columns 2t and 2t + 1. Blocks are rastered in groups of GROUP
 *            block-rows, so running work-groups share panels in L2.
 * Macros:    BM (default 128), BN (128), BK (8), WM (64), WN (64): the
 *            fastest on an H100 (16cl has its own); SPLIT (1; 3 for
 *            3xTF32). Local memory 2 * (BM * (BK + 4) + BK * SB) floats,
 *            SB = BN rounded up to 8 more than a multiple of 32 (21 KiB at
 *            the defaults; OpenCL allows 48 KiB).
 * Layout:    As[buffer][m][k] with rows of BK + 4 floats: a warp's
 *            fragment reads (rows g, columns t) fall in 32 different
 *            banks. Bs[buffer][k][n] with rows of SB = 8 (mod 32) floats:
 *            the reads (rows t, columns g) do too.
 * Change:    rung 13 spent one FMA instruction per multiply-add. One
 *            mma.m16n8k8 does 1024 on a tensor core. OpenCL C has no word
 *            for it, but NVIDIA's OpenCL compiler takes PTX in asm
 *            statements: mma.sync for the products and cvt.rna.tf32 for
 *            the rounding. The rest is rung 13: the next K-slice loaded
 *            into registers (float4) while this one is multiplied, two
 *            local buffers, one barrier per slice. OpenCL cannot ask for
 *            cp.async, ldmatrix or more than 48 KiB; rung 15 (CUDA C++)
 *            can (a __local pointer cast to an integer is no shared-memory
 *            address in NVIDIA's OpenCL: ldmatrix through it crashed).
 * 3xTF32:    as rung 16: a slice's products summed on the tensor cores in
 *            part, added to acc by the FMA units (the tensor cores' sums
 *            truncate); where K <= 8, what the split drops is multiplied too.
 * Sizes:     any M, N, K >= 1: float4 loads for slices wholly inside A (B)
 *            when K (N) is a multiple of 4, guarded element loads (zeros
 *            outside) otherwise; C stored as float2 where N is even,
 *            element by element with guards elsewhere. Every work-item
 *            reaches every barrier.
 *
 * Backends:  OpenCL on NVIDIA (compute capability 8.0+); CUDA from this same
 *            source through kernels/cuda/prelude.cuh.
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
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef SPLIT
#define SPLIT 1
#endif

#if defined(KL_T_DOUBLE) || defined(KL_T_INT)
#error "15cl_mma_tf32: the TF32 tensor cores multiply float inputs"
#endif
#if WM % 16 != 0 || WN % 8 != 0 || BM % WM != 0 || BN % WN != 0 || BK % 8 != 0
#error "15cl_mma_tf32: WM a multiple of 16, WN of 8, BM of WM, BN of WN, BK of 8"
#endif
#if SPLIT != 1 && SPLIT != 3
#error "15cl_mma_tf32: SPLIT is 1 (TF32) or 3 (3xTF32)"
#endif

#define MT (WM / 16)                 /* mma tiles of a warp along m */
#define NT8 (WN / 8)                 /* ... along n */
#define WX (32 * (BN / WN))          /* work-group width */
#define NTH (WX * (BM / WM))         /* work-items per group */
#define SA (BK + 4)                  /* floats per row of As */
#define SB (BN + (40 - BN % 32) % 32) /* floats per row of Bs: 8 (mod 32) */
#define LA (BM * BK / 4 / NTH)       /* float4 of A's slice per work-item */
#define LB (BK * BN / 4 / NTH)       /* float4 of B's slice per work-item */
#define GROUP 8                      /* block-rows per group of the raster */

#if (BM * BK / 4) % NTH != 0 || (BK * BN / 4) % NTH != 0
#error "15cl_mma_tf32: the float4 of a slice must divide evenly among the work-items"
#endif

/*
 * A float4 store into local memory, and a pointer to local floats: in CUDA
 * (the prelude maps __local to __shared__) shared memory has generic addresses.
 */
#ifdef __CUDACC__
#define LOCAL_F4(p) (*(float4 *)(p))
#define LOCAL_PTR const float *
#else
#define LOCAL_F4(p) (*(__local float4 *)(p))
#define LOCAL_PTR const __local float *
#endif

/* x rounded to TF32: to nearest, ties away from zero; the low 13 bits are zero. */
inline uint tf32(const float x)
{
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* d += a * b on the tensor cores: one 16 x 8 x 8 product, fp32 accumulation. */
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "          \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                               \
                 : "=f"((d)[0]), "=f"((d)[1]), "=f"((d)[2]), "=f"((d)[3])                          \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]),   \
                   "f"((d)[0]), "f"((d)[1]), "f"((d)[2]), "f"((d)[3]))

/* Four floats of a row from global memory; zeros outside the matrix. */
inline float4 load4(const __global float *restrict X, const int rows, const int cols, const int r,
                    const int c, const bool whole)
{
    if (whole)
        return *(const __global float4 *)(X + (size_t)r * cols + c);
    float v[4];
    for (int i = 0; i < 4; i++)
        v[i] = r < rows && c + i < cols ? X[(size_t)r * cols + c + i] : 0.0f;
    return VEC4(float4, v[0], v[1], v[2], v[3]);
}

/*
 * d += A*B for one step of 8 k at column k of the local tiles (as and bs at
 * the lane's first element): big*big in TF32, and for 3xTF32 the small
 * products first, while the sum is small. With dropped (3xTF32 when K <= 8,
 * one step), what the split drops instead: small*small + low*big + big*low,
 * the low part x - big - small being exact in float (rung 15's comment says
 * why a single product needs them).
 */
inline void step(float d[MT][NT8][4], LOCAL_PTR as, LOCAL_PTR bs, const int k, const bool dropped)
{
    uint ab[MT][4], as_[MT][4], al[MT][4], bb[NT8][2], bs_[NT8][2], bl[NT8][2];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            /* r: rows g, g + 8, g, g + 8 at columns t, t, t + 4, t + 4 */
            const float x = as[(i * 16 + r % 2 * 8) * SA + k + r / 2 * 4];
            ab[i][r] = tf32(x);
            as_[i][r] = tf32(x - as_float(ab[i][r]));
            al[i][r] = as_uint(x - as_float(ab[i][r]) - as_float(as_[i][r]));
        }
#pragma unroll
    for (int j = 0; j < NT8; j++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const float x = bs[(k + r * 4) * SB + j * 8];
            bb[j][r] = tf32(x);
            bs_[j][r] = tf32(x - as_float(bb[j][r]));
            bl[j][r] = as_uint(x - as_float(bb[j][r]) - as_float(bs_[j][r]));
        }
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++) {
            if (dropped) {
                MMA(d[i][j], as_[i], bs_[j]);
                MMA(d[i][j], al[i], bb[j]);
                MMA(d[i][j], ab[i], bl[j]);
                continue;
            }
#if SPLIT == 3
            MMA(d[i][j], as_[i], bb[j]);
            MMA(d[i][j], ab[i], bs_[j]);
#endif
            MMA(d[i][j], ab[i], bb[j]);
        }
}

/* acc = 0, or acc += part rounded to nearest by the FMA units (the tensor cores' sums truncate). */
inline void zero(float d[MT][NT8][4])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                d[i][j][r] = 0.0f;
}
inline void add(float acc[MT][NT8][4], float part[MT][NT8][4])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] += part[i][j][r];
}

__kernel __attribute__((reqd_work_group_size(WX, BM / WM, 1))) void
gemm(const __global float *restrict A, const __global float *restrict B,
     __global float *restrict C, const int M, const int N, const int K)
{
    __local float As[2][BM * SA];
    __local float Bs[2][BK * SB];

    const int tid = (int)(get_local_id(1) * WX + get_local_id(0));
    const int warp = tid / 32, lane = tid % 32, g = lane / 4, tq = lane % 4;
    const int wm0 = warp / (BN / WN) * WM, wn0 = warp % (BN / WN) * WN;

    /* This block's place: GROUP block-rows at a time, column-major inside the group. */
    const int rows = (int)get_num_groups(1), cols = (int)get_num_groups(0);
    const int bid = (int)(get_group_id(1) * cols + get_group_id(0));
    const int first = bid / (GROUP * cols) * GROUP;
    const int height = min(rows - first, GROUP);
    const int m0 = (first + bid % (GROUP * cols) % height) * BM;
    const int n0 = bid % (GROUP * cols) / height * BN;

    /* Uniform over the work-group: whether whole float4 rows of a slice may be read. */
    const bool rows_a = m0 + BM <= M && K % 4 == 0, cols_b = n0 + BN <= N && N % 4 == 0;
    const int nslices = (K + BK - 1) / BK;

    float acc[MT][NT8][4], part[MT][NT8][4];
    zero(acc);

    /* Slice s into registers: piece p of A is row p / (BK/4), columns 4 (p % (BK/4)) .. +3. */
    float4 ra[LA], rb[LB];
#define LOAD_SLICE(s)                                                                              \
    do {                                                                                           \
        const int k0 = (s) * BK;                                                                   \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < LA; i++) {                                                             \
            const int p = tid + i * NTH;                                                           \
            ra[i] = load4(A, M, K, m0 + p / (BK / 4), k0 + p % (BK / 4) * 4,                       \
                          rows_a && k0 + BK <= K);                                                 \
        }                                                                                          \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < LB; i++) {                                                             \
            const int p = tid + i * NTH;                                                           \
            rb[i] = load4(B, K, N, k0 + p / (BN / 4), n0 + p % (BN / 4) * 4,                       \
                          cols_b && k0 + BK <= K);                                                 \
        }                                                                                          \
    } while (0)
#define STORE_SLICE(buf)                                                                           \
    do {                                                                                           \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < LA; i++) {                                                             \
            const int p = tid + i * NTH;                                                           \
            LOCAL_F4(&As[buf][p / (BK / 4) * SA + p % (BK / 4) * 4]) = ra[i];                      \
        }                                                                                          \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < LB; i++) {                                                             \
            const int p = tid + i * NTH;                                                           \
            LOCAL_F4(&Bs[buf][p / (BN / 4) * SB + p % (BN / 4) * 4]) = rb[i];                      \
        }                                                                                          \
    } while (0)

    LOAD_SLICE(0);
    STORE_SLICE(0);
    barrier(CLK_LOCAL_MEM_FENCE);

    /*
     * Iteration s loads slice s + 1 into registers, multiplies slice s from
     * buffer s & 1 while those loads are in flight, then stores slice s + 1
     * into the other buffer, last read in iteration s - 1, before its
     * barrier: one barrier per iteration. 3xTF32 sums a slice's products in
     * part on the tensor cores and adds part to acc on the FMA units, which
     * round to nearest: added into a large accumulator, the tensor cores'
     * truncating sums would lose about an ulp of it per step.
     */
    for (int s = 0; s < nslices; s++) {
        const int buf = s & 1;
        if (s + 1 < nslices)
            LOAD_SLICE(s + 1);
        LOCAL_PTR as = &As[buf][(wm0 + g) * SA + tq];
        LOCAL_PTR bs = &Bs[buf][tq * SB + wn0 + g];
#if SPLIT == 3
        zero(part);
#endif
#pragma unroll
        for (int k = 0; k < BK; k += 8)
            step(SPLIT == 3 ? part : acc, as, bs, k, false);
#if SPLIT == 3
        add(acc, part);
#endif
        if (s + 1 < nslices)
            STORE_SLICE(buf ^ 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if SPLIT == 3
    if (K <= 8) { /* one step, still in buffer 0 */
        zero(part);
        step(part, &As[0][(wm0 + g) * SA + tq], &Bs[0][tq * SB + wn0 + g], 0, true);
        add(acc, part);
    }
#endif

#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT8; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int r = m0 + wm0 + i * 16 + g + 8 * h, c = n0 + wn0 + j * 8 + 2 * tq;
                const float x = acc[i][j][2 * h], y = acc[i][j][2 * h + 1];
                if (r >= M)
                    continue;
                __global float *out = C + (size_t)r * N + c;
                if (N % 2 == 0 && c + 1 < N) {
                    *(__global float2 *)out = VEC2(float2, x, y);
                } else {
                    if (c < N)
                        out[0] = x;
                    if (c + 1 < N)
                        out[1] = y;
                }
            }
}
