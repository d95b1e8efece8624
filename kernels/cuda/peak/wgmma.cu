/*
 * Peak: the tensor cores' rate through Hopper's wgmma.mma_async (a
 * warpgroup of 128 threads per product, m64n256, the accumulators in
 * registers), one precision per build:
 *
 *   -DTC_TF32     m64n256k8   TF32 inputs, FP32 sums   (2*64*256*8 operations)
 *   -DTC_F16      m64n256k16  FP16 inputs, FP32 sums   (2*64*256*16)
 *   -DTC_F16ACC   m64n256k16  FP16 inputs, FP16 sums
 *   -DTC_BF16     m64n256k16  BF16 inputs, FP32 sums
 *   -DTC_E4M3     m64n256k32  FP8 e4m3 inputs, FP32 sums (2*64*256*32)
 *   -DTC_E5M2     m64n256k32  FP8 e5m2 inputs, FP32 sums
 *   -DTC_I8       m64n256k32  INT8 inputs, INT32 sums
 *
 * Computes   per block u, each of its WGS warpgroups v = u WGS + (its index)
 *            with an accumulator C (64 x 256) of its own; A (64 x KT) and B,
 *            E (KT x 256) shared by the block, KT the K of four products
 *            (128 bytes of inputs), as small integers every format holds:
 *              A[m][k] = (131u + 3m + 5k) % 7 - 3,
 *              B[k][n] = (7u + 13k + 3n) % 5 - 2,
 *              D[k][n] = (n + u) % 3 - 1 where k == (5n + u) % KT, else 0,
 *              E = D - B,  C[m][n] = (v + 3m + n) % 64 - 32 at the start;
 *            iters / 2 pairs C += A_s*B_s; C += A_s*E_s, the K slice s
 *            (K products wide) taking turns 0, 1, 2, 3, so every four pairs
 *            add A*D; then out[thread] = the sum of its accumulator values.
 * Operands:  B and E in shared memory as wgmma reads them by descriptor:
 *            K-major rows of 128 bytes, 128-byte swizzled (16-byte chunk j of
 *            row r at j ^ (r % 8)), 8-row groups 1024 bytes apart (as TMA
 *            writes them for rung 17); slice s starts 32 s bytes along.
 *            A the same way (A_SMEM), or in registers: for lane 4g + t
 *            of warp w of the warpgroup, register i of slice s holds row
 *            16w + g + 8 (i % 2), 32-bit word t + 4 (i / 2) of the slice.
 *            Accumulator i: row 16w + g + 8 ((i / 2) % 2), column
 *            8 (i / 4) + 2t + i % 2 (FP16 sums: register j the pair of
 *            accumulators 2j and 2j + 1, the lower column in the low half).
 * Exactness: |A_s*B_s| <= 6K and |A*D| <= 3, so |C| stays below
 *            32 + 6K + 3 iters / 8: integers that FP32 and INT32 hold for
 *            any iters kladder runs, FP16 for iters <= 4096. The host
 *            computes out[] exactly: C + (iters / 8) (A*D) over the thread's
 *            elements. A kernel that skipped products or iterations, or read
 *            an operand out of place, gets other numbers.
 * Geometry:  1-D, blocks of WGS * 128 threads (WGS warpgroups, 1 or 2); NO
 *            guard: out has one element per thread launched.
 * Macros:    the precision above; A_SMEM (default 0): A from shared memory
 *            (1) or from registers (0).
 * Arguments: out (float; int for TC_I8), iters (a multiple of 8); the
 *            launch's local memory of WGMMA_SMEM bytes (B, E and A, 1 KiB
 *            aligned).
 * Where:     compute capability 9.0, built for sm_90a; CUDA only.
 */
#include "../gemm/hopper.cuh"

#if defined(TC_TF32)
#define PER_WORD 1
#define SHAPE "m64n256k8.f32.tf32.tf32"
#define TAIL ", p, 1, 1;"
#elif defined(TC_F16) || defined(TC_BF16) || defined(TC_F16ACC)
#define PER_WORD 2
#if defined(TC_F16)
#define SHAPE "m64n256k16.f32.f16.f16"
#elif defined(TC_BF16)
#define SHAPE "m64n256k16.f32.bf16.bf16"
#else
#define SHAPE "m64n256k16.f16.f16.f16"
#define ACC_HALF2
#endif
#define TAIL_SS ", p, 1, 1, 0, 0;" /* scale-d, scales of A and B, neither transposed */
#define TAIL_RS ", p, 1, 1, 0;"
#elif defined(TC_E4M3) || defined(TC_E5M2)
#define PER_WORD 4
#ifdef TC_E4M3
#define SHAPE "m64n256k32.f32.e4m3.e4m3"
#else
#define SHAPE "m64n256k32.f32.e5m2.e5m2"
#endif
#define TAIL ", p, 1, 1;"
#elif defined(TC_I8)
#define PER_WORD 4
#define SHAPE "m64n256k32.s32.s8.s8"
#define TAIL ", p;"
#define ACC_INT
#else
#error "wgmma: define one of TC_TF32, TC_F16, TC_F16ACC, TC_BF16, TC_E4M3, TC_E5M2, TC_I8"
#endif
#ifdef TAIL
#define TAIL_SS TAIL
#define TAIL_RS TAIL
#endif

#ifndef A_SMEM
#define A_SMEM 0
#endif

#define KT (32 * PER_WORD) /* four products' K: 128 bytes of inputs */
#define KS (KT / 4)        /* one product's K */
#define A_BYTES (64 * 128)
#define B_BYTES (256 * 128)
#define WGMMA_SMEM (A_BYTES + 2 * B_BYTES + 1024)

#if defined(ACC_HALF2)
#define NACC 64
typedef unsigned acc_t;
typedef float out_t;
#elif defined(ACC_INT)
#define NACC 128
typedef unsigned acc_t;
typedef int out_t;
#else
#define NACC 128
typedef float acc_t;
typedef float out_t;
#endif

static __device__ __forceinline__ int a_val(int u, int m, int k)
{
    return (131 * u + 3 * m + 5 * k) % 7 - 3;
}
static __device__ __forceinline__ int b_val(int u, int k, int n)
{
    return (7 * u + 13 * k + 3 * n) % 5 - 2;
}
static __device__ __forceinline__ int d_val(int u, int k, int n)
{
    return k == (5 * n + u) % KT ? (n + u) % 3 - 1 : 0;
}

/* The bits of the integer v (|v| <= 3) in the input format. */
static __device__ __forceinline__ unsigned bits(int v)
{
#if defined(TC_TF32)
    return __float_as_uint((float)v);
#elif defined(TC_F16) || defined(TC_F16ACC)
    const unsigned mag[4] = {0, 0x3C00, 0x4000, 0x4200};
    return v < 0 ? 0x8000 | mag[-v] : mag[v];
#elif defined(TC_BF16)
    const unsigned mag[4] = {0, 0x3F80, 0x4000, 0x4040};
    return v < 0 ? 0x8000 | mag[-v] : mag[v];
#elif defined(TC_E4M3)
    const unsigned mag[4] = {0, 0x38, 0x40, 0x44};
    return v < 0 ? 0x80 | mag[-v] : mag[v];
#elif defined(TC_E5M2)
    const unsigned mag[4] = {0, 0x3C, 0x40, 0x42};
    return v < 0 ? 0x80 | mag[-v] : mag[v];
#else
    return (unsigned)v & 0xFF;
#endif
}

/* Word w (PER_WORD elements of K, lowest k in the low bits) of A's row m, or B's or E's row n. */
static __device__ unsigned word(int which, int u, int r, int w)
{
    unsigned x = 0;
    for (int e = 0; e < PER_WORD; e++) {
        const int k = w * PER_WORD + e;
        const int v = which == 0 ? a_val(u, r, k)
                      : which == 1 ? b_val(u, k, r)
                                   : d_val(u, k, r) - b_val(u, k, r);
        x |= bits(v) << (32 / PER_WORD * e);
    }
    return x;
}

/* Byte offset of word w (of 32) of row r in a 128-byte-swizzled tile. */
static __device__ __forceinline__ unsigned swizzled(int r, int w)
{
    return (r / 8) * 1024 + (r % 8) * 128 + (((w / 4) ^ (r % 8)) * 16) + (w % 4) * 4;
}

#define ACC128F(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), \
    "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), \
    "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), \
    "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), \
    "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
    "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
    "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), \
    "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
    "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), \
    "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), \
    "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
    "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), \
    "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), \
    "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), \
    "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), \
    "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), \
    "+f"(d[126]), "+f"(d[127])
#define ACC128R(d) \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), \
    "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), \
    "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), \
    "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
    "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), \
    "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), \
    "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), \
    "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
    "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), \
    "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), \
    "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]), "+r"(d[64]), "+r"(d[65]), \
    "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]), \
    "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), \
    "+r"(d[78]), "+r"(d[79]), "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), \
    "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]), "+r"(d[88]), "+r"(d[89]), \
    "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]), \
    "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), \
    "+r"(d[102]), "+r"(d[103]), "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), \
    "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]), "+r"(d[112]), "+r"(d[113]), \
    "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]), \
    "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), \
    "+r"(d[126]), "+r"(d[127])
#define ACC64R(d) \
    "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), \
    "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), \
    "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), \
    "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), \
    "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), \
    "+r"(d[30]), "+r"(d[31]), "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), \
    "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]), "+r"(d[40]), "+r"(d[41]), \
    "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]), \
    "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), \
    "+r"(d[54]), "+r"(d[55]), "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), \
    "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63])
#define PCT128 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, " \
    "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
    "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, " \
    "%60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, " \
    "%72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, " \
    "%84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, " \
    "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, " \
    "%120, %121, %122, %123, %124, %125, %126, %127"
#define PCT64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, " \
    "%12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, " \
    "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, " \
    "%60, %61, %62, %63"

#if NACC == 128
#define PCT PCT128
#if defined(ACC_INT)
#define ACC(d) ACC128R(d)
#else
#define ACC(d) ACC128F(d)
#endif
#define RS_OPERANDS "{%128, %129, %130, %131}, %132"
#define RS_PRED "%133"
#define SS_OPERANDS "%128, %129"
#define SS_PRED "%130"
#else
#define PCT PCT64
#define ACC(d) ACC64R(d)
#define RS_OPERANDS "{%64, %65, %66, %67}, %68"
#define RS_PRED "%69"
#define SS_OPERANDS "%64, %65"
#define SS_PRED "%66"
#endif

#if A_SMEM
/* d += A * B, A by descriptor. */
static __device__ __forceinline__ void mma_ss(acc_t (&d)[NACC], u64 a, u64 b)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " SS_PRED ", 0;\n"
                 "wgmma.mma_async.sync.aligned." SHAPE " {" PCT "}, " SS_OPERANDS TAIL_SS "\n}\n"
                 : ACC(d)
                 : "l"(a), "l"(b), "r"(1));
}

#else
/* d += A * B, A from four registers. */
static __device__ __forceinline__ void mma_rs(acc_t (&d)[NACC], const unsigned (&a)[4], u64 b)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " RS_PRED ", 0;\n"
                 "wgmma.mma_async.sync.aligned." SHAPE " {" PCT "}, " RS_OPERANDS TAIL_RS "\n}\n"
                 : ACC(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
}
#endif

extern "C" __global__ void __launch_bounds__(256, 1) wgmma_peak(out_t *out, int iters)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    /* The tiles 1024-byte aligned, as the swizzle needs: B, E, then A. */
    const unsigned base = (smem_addr(smem_raw) + 1023) & ~1023u;
    unsigned char *tiles = smem_raw + (base - smem_addr(smem_raw));
    const int u = blockIdx.x, tid = threadIdx.x;
    const int wg = tid / 128, w = tid % 128 / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int v = u * (blockDim.x / 128) + wg;

    /* B (256 rows), E (256 rows), A (64 rows): 32 words of K each. */
    for (int q = tid; q < (2 * 256 + 64) * 32; q += blockDim.x) {
        const int row = q / 32, wd = q % 32;
        const int which = row < 256 ? 1 : row < 512 ? 2 : 0, r = row % 256;
        const unsigned at = (which == 1 ? 0 : which == 2 ? B_BYTES : 2 * B_BYTES) + swizzled(r, wd);
        *(unsigned *)(tiles + at) = word(which, u, r, wd);
    }
    fence_async_shared();
    __syncthreads();

    /* Slice s of a tile starts 32 s bytes along its rows: 2 s in the descriptor's address. */
    const u64 db = sw128_desc(base), de = sw128_desc(base + B_BYTES),
              da = sw128_desc(base + 2 * B_BYTES);
#if !A_SMEM
    unsigned a[4][4];
#pragma unroll
    for (int s = 0; s < 4; s++)
#pragma unroll
        for (int i = 0; i < 4; i++)
            a[s][i] = word(0, u, 16 * w + g + 8 * (i % 2), 8 * s + t + 4 * (i / 2));
#endif
    acc_t d[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++) {
#ifdef ACC_HALF2
        const int m = 16 * w + g + 8 * (i % 2), n = 8 * (i / 2) + 2 * t;
        const float lo = (float)((v + 3 * m + n) % 64 - 32),
                    hi = (float)((v + 3 * m + n + 1) % 64 - 32);
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d[i]) : "f"(hi), "f"(lo));
#else
        const int m = 16 * w + g + 8 * ((i / 2) % 2), n = 8 * (i / 4) + 2 * t + i % 2;
#ifdef ACC_INT
        d[i] = (unsigned)((v + 3 * m + n) % 64 - 32);
#else
        d[i] = (float)((v + 3 * m + n) % 64 - 32);
#endif
#endif
    }
    wgmma_fence();
    for (int it = 0; it < iters / 8; it++) {
#pragma unroll
        for (int s = 0; s < 4; s++) {
#if A_SMEM
            mma_ss(d, da + 2 * s, db + 2 * s);
            mma_ss(d, da + 2 * s, de + 2 * s);
#else
            mma_rs(d, a[s], db + 2 * s);
            mma_rs(d, a[s], de + 2 * s);
#endif
        }
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < NACC; i++)
        hold(d[i]); /* no read of d moves above the wait */
    out_t sum = 0;
#pragma unroll
    for (int i = 0; i < NACC; i++) {
#ifdef ACC_HALF2
        float lo, hi;
        asm("{.reg .f16 l, h;\n\tmov.b32 {l, h}, %2;\n\tcvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, h;}"
            : "=f"(lo), "=f"(hi)
            : "r"(d[i]));
        sum += lo + hi;
#elif defined(ACC_INT)
        sum += (int)d[i];
#else
        sum += d[i];
#endif
    }
    out[blockIdx.x * blockDim.x + tid] = sum;
}
