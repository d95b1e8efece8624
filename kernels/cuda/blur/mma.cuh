/*
 * What the tensor-core blur rungs (13_mma, 14_mma_split) share: the band's
 * geometry, its weights, and the FP16 mma.sync with its conversions.
 *
 * A pass over 16 outputs is a 16 x 16*NK band matrix times 16*NK inputs that
 * start RA8 (RAD rounded up to 8) before the first output: A[m][k] =
 * w[k - m - OFF], 0 off the band. kladder puts this file's text in place of
 * the #include line before NVRTC compiles a rung; nvcc finds it beside them.
 */
#ifndef KL_BLUR_MMA_CUH
#define KL_BLUR_MMA_CUH

#define RA8 ((RAD + 7) / 8 * 8)         /* input columns (rows) before the first output */
#define OFF (RA8 - RAD)                 /* the band's shift */
#define NK ((16 + RA8 + RAD + 15) / 16) /* blocks of 16 inputs per 16 outputs */

typedef unsigned h2; /* two halves, the first in the low 16 bits */

/* d += A B: A 16 x 16 halves (four h2 a lane), B 16 x 8 (two), d 16 x 8 floats. */
static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], h2 b0, h2 b1)
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* (lo, hi) rounded to halves, lo in the low 16 bits. */
static __device__ __forceinline__ h2 to_h2(float lo, float hi)
{
    h2 d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

/* f rounded to the nearest half, as cvt.rn.f16x2.f32 rounds the band. */
static __device__ __forceinline__ float to_half(float f)
{
    float r;
    asm("{ .reg .f16 h; cvt.rn.f16.f32 h, %1; cvt.f32.f16 %0, h; }" : "=f"(r) : "f"(f));
    return r;
}

/* Weight j of the band (0 off it). */
static __device__ __forceinline__ float band(const float *__restrict__ w, int j)
{
    return j >= 0 && j <= 2 * RAD ? w[j] : 0.0f;
}

#endif /* KL_BLUR_MMA_CUH */
