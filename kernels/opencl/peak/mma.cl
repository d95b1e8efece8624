/*
 * Peak: the tensor cores' rate through mma.sync (one warp per product), in
 * one precision per build, issued through inline PTX:
 *
 *   -DTC_TF32     m16n8k8   TF32 inputs, FP32 sums   (2*16*8*8  operations)
 *   -DTC_F16      m16n8k16  FP16 inputs, FP32 sums   (2*16*8*16)
 *   -DTC_F16ACC   m16n8k16  FP16 inputs, FP16 sums
 *   -DTC_BF16     m16n8k16  BF16 inputs, FP32 sums
 *   -DTC_I8       m16n8k32  INT8 inputs, INT32 sums  (2*16*8*32)
 *   -DTC_F64      m8n8k4    FP64                     (2*8*8*4)
 *   -DTC_F64K16   m16n8k16  FP64 (compute capability 9.0)
 *
 * Computes   per warp u (32 consecutive work-items; lane 4g + t), with small
 *            integers that every format holds exactly:
 *              A[m][k] = (131u + 3m + 5k) % 7 - 3,
 *              B[k][n] = (7u + 13k + 3n) % 5 - 2,
 *              D[k][n] = (n + u) % 3 - 1 where k == (5n + u) % K, else 0,
 *              E = D - B,
 *              C_c[m][n] = (u + 5c + 3m + n) % 64 - 32   (chain c),
 *            CHAINS independent accumulators, iters / 2 times each:
 *              C_c += A*B;  C_c += A*E      (so C_c += A*D per pair),
 *            then out[gid] = the sum of the work-item's accumulator values.
 * Fragments  (PTX ISA, mma.sync): in 32-bit words of K (one TF32, two
 *            halves, four bytes; one double), register i of A holds row
 *            g + 8 (i % 2) (g alone for M = 8), word t + 4 (i / 2); register
 *            j of B word t + 4j, column g; accumulator i row g + 8 (i / 2),
 *            column 2t + i % 2 (FP16 sums: register j row g + 8j, columns
 *            2t and 2t + 1). The lower bits of a word hold the lower k.
 * Exactness: |A*B| <= 6K, |A*D| <= 3 per step, so |C_c| stays below
 *            32 + 6K + 3 iters / 2: integers that FP32 and INT32 hold for any
 *            iters kladder runs and FP16 for iters <= 1024. The host
 *            computes out[] exactly: C_c + (iters / 2) (A*D) over the
 *            work-item's elements. A kernel that skipped products, chains or
 *            iterations, or mixed up fragments, gets other numbers.
 * Geometry:  1-D, local size a multiple of 32; NO guard: the host launches
 *            exactly as many work-items as out has elements.
 * Macros:    the precision above; CHAINS (default 4; 1 .. 8).
 * Arguments: out (float; int for TC_I8; double for FP64), iters (even, > 0).
 * Where:     NVIDIA GPUs of compute capability 8.0 or more (9.0 for
 *            TC_F64K16); kladder peak leaves the row out elsewhere.
 *
 * Backends:  OpenCL on NVIDIA; CUDA from this same source through
 *            kernels/cuda/prelude.cuh.
 */
#ifndef CHAINS
#define CHAINS 4
#endif
#if CHAINS < 1 || CHAINS > 8
#error "mma: CHAINS in 1 .. 8"
#endif

#if defined(TC_TF32)
#define K 8
#define M 16
#define AREGS 4
#define BREGS 2
#define CREGS 4
#define PER_WORD 1
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "          \
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"                                   \
                 : "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3])                          \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]))
#elif defined(TC_F16) || defined(TC_BF16)
#define K 16
#define M 16
#define AREGS 4
#define BREGS 2
#define CREGS 4
#define PER_WORD 2
#ifdef TC_F16
#define MMA_TYPE "f16"
#else
#define MMA_TYPE "bf16"
#endif
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." MMA_TYPE "." MMA_TYPE                    \
                 ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"            \
                 : "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3])                          \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]))
#elif defined(TC_F16ACC)
#define K 16
#define M 16
#define AREGS 4
#define BREGS 2
#define CREGS 2
#define PER_WORD 2
#define ACC_HALF2
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, "                    \
                 "{%2, %3, %4, %5}, {%6, %7}, {%0, %1};"                                           \
                 : "+r"((d)[0]), "+r"((d)[1])                                                      \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]))
#elif defined(TC_I8)
#define K 32
#define M 16
#define AREGS 4
#define BREGS 2
#define CREGS 4
#define PER_WORD 4
#define ACC_INT
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "              \
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"                                   \
                 : "+r"((d)[0]), "+r"((d)[1]), "+r"((d)[2]), "+r"((d)[3])                          \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]))
#elif defined(TC_F64)
#define K 4
#define M 8
#define AREGS 1
#define BREGS 1
#define CREGS 2
#define ACC_DOUBLE
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "          \
                 "{%0, %1};"                                                                       \
                 : "+d"((d)[0]), "+d"((d)[1])                                                      \
                 : "d"((a)[0]), "d"((b)[0]))
#elif defined(TC_F64K16)
#define K 16
#define M 16
#define AREGS 8
#define BREGS 4
#define CREGS 4
#define ACC_DOUBLE
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "            \
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"     \
                 : "+d"((d)[0]), "+d"((d)[1]), "+d"((d)[2]), "+d"((d)[3])                          \
                 : "d"((a)[0]), "d"((a)[1]), "d"((a)[2]), "d"((a)[3]), "d"((a)[4]), "d"((a)[5]),   \
                   "d"((a)[6]), "d"((a)[7]), "d"((b)[0]), "d"((b)[1]), "d"((b)[2]), "d"((b)[3]))
#else
#error "mma: define one of TC_TF32, TC_F16, TC_F16ACC, TC_BF16, TC_I8, TC_F64, TC_F64K16"
#endif

#ifdef ACC_DOUBLE
#ifndef __CUDACC__
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double operand; /* one element per register */
typedef double acc_t;
typedef double out_t;
#else
typedef uint operand; /* PER_WORD elements per 32-bit register */
#if defined(ACC_INT)
typedef int acc_t;
typedef int out_t;
#elif defined(ACC_HALF2)
typedef uint acc_t;
typedef float out_t;
#else
typedef float acc_t;
typedef float out_t;
#endif
#endif

inline int a_val(int u, int m, int k) { return (131 * u + 3 * m + 5 * k) % 7 - 3; }
inline int b_val(int u, int k, int n) { return (7 * u + 13 * k + 3 * n) % 5 - 2; }
inline int d_val(int u, int k, int n) { return k == (5 * n + u) % K ? (n + u) % 3 - 1 : 0; }

#ifndef ACC_DOUBLE
/* The bits of the integer v (|v| <= 3) in the input format. */
inline uint bits(int v)
{
#if defined(TC_TF32)
    return as_uint((float)v);
#elif defined(TC_F16)
    const uint mag[4] = {0, 0x3C00, 0x4000, 0x4200};
    return v < 0 ? 0x8000 | mag[-v] : mag[v];
#elif defined(TC_F16ACC)
    const uint mag[4] = {0, 0x3C00, 0x4000, 0x4200};
    return v < 0 ? 0x8000 | mag[-v] : mag[v];
#elif defined(TC_BF16)
    const uint mag[4] = {0, 0x3F80, 0x4000, 0x4040};
    return v < 0 ? 0x8000 | mag[-v] : mag[v];
#else
    return (uint)v & 0xFF;
#endif
}
#endif

/* The register holding word w of K (PER_WORD elements) of A's row m, or of B's column n. */
#ifdef ACC_DOUBLE
#define A_WORD(u, m, w) ((double)a_val(u, m, w))
#define B_WORD(u, w, n) ((double)b_val(u, w, n))
#define E_WORD(u, w, n) ((double)(d_val(u, w, n) - b_val(u, w, n)))
#else
inline uint a_word(int u, int m, int w)
{
    uint r = 0;
    for (int e = 0; e < PER_WORD; e++)
        r |= bits(a_val(u, m, w * PER_WORD + e)) << (32 / PER_WORD * e);
    return r;
}
inline uint bd_word(int u, int w, int n, int e_not_b)
{
    uint r = 0;
    for (int e = 0; e < PER_WORD; e++) {
        const int k = w * PER_WORD + e, b = b_val(u, k, n);
        r |= bits(e_not_b ? d_val(u, k, n) - b : b) << (32 / PER_WORD * e);
    }
    return r;
}
#define A_WORD(u, m, w) a_word(u, m, w)
#define B_WORD(u, w, n) bd_word(u, w, n, 0)
#define E_WORD(u, w, n) bd_word(u, w, n, 1)
#endif

__kernel void mma(__global out_t *out, const int iters)
{
    const int gid = (int)get_global_id(0), u = gid / 32, lane = gid % 32;
    const int g = lane / 4, t = lane % 4;
    operand a[AREGS], b[BREGS], e[BREGS];
    acc_t c[CHAINS][CREGS];
#pragma unroll
    for (int i = 0; i < AREGS; i++)
        a[i] = M == 16 ? A_WORD(u, g + 8 * (i % 2), t + 4 * (i / 2)) : A_WORD(u, g, t + 4 * i);
#pragma unroll
    for (int j = 0; j < BREGS; j++) {
        b[j] = B_WORD(u, t + 4 * j, g);
        e[j] = E_WORD(u, t + 4 * j, g);
    }
#pragma unroll
    for (int ch = 0; ch < CHAINS; ch++)
#pragma unroll
        for (int i = 0; i < CREGS; i++) {
#ifdef ACC_HALF2
            const int m = g + 8 * i; /* columns 2t (low half) and 2t + 1 */
            const float lo = (float)((u + 5 * ch + 3 * m + 2 * t) % 64 - 32),
                        hi = (float)((u + 5 * ch + 3 * m + 2 * t + 1) % 64 - 32);
            asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(c[ch][i]) : "f"(hi), "f"(lo));
#else
            const int m = g + 8 * (i / 2), n = 2 * t + i % 2;
            c[ch][i] = (acc_t)((u + 5 * ch + 3 * m + n) % 64 - 32);
#endif
        }
    for (int i = 0; i < iters / 2; i++) {
#pragma unroll
        for (int ch = 0; ch < CHAINS; ch++)
            MMA(c[ch], a, b);
#pragma unroll
        for (int ch = 0; ch < CHAINS; ch++)
            MMA(c[ch], a, e);
    }
    out_t s = 0;
#pragma unroll
    for (int ch = 0; ch < CHAINS; ch++)
#pragma unroll
        for (int i = 0; i < CREGS; i++) {
#ifdef ACC_HALF2
            float lo, hi;
            asm("{.reg .f16 l, h;\n\t"
                "mov.b32 {l, h}, %2;\n\t"
                "cvt.f32.f16 %0, l;\n\t"
                "cvt.f32.f16 %1, h;}"
                : "=f"(lo), "=f"(hi)
                : "r"(c[ch][i]));
            s += lo;
            s += hi;
#else
            s += c[ch][i];
#endif
        }
    out[gid] = s;
}
