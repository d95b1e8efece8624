/*
 * Peak: the packed-half FMA rate, in fma.rn.f16x2 instructions (two lanes,
 * 2 * 2 = 4 operations each), issued through inline PTX.
 *
 * Computes   per work-item gid, CHAINS independent accumulators x_c, each a
 *            pair of halves (lanes lo, hi):
 *              start:  lo = (gid + 3c) % 13,  hi = (gid + 3c + 1) % 13;
 *              iters times, for c = 0 .. CHAINS-1:  x_c = fma(x_c, 1, 1)
 *                      (both lanes: x_c grows by one per step);
 *            then out[gid] = the float sum of the 2 * CHAINS lanes, chain by
 *            chain, lo before hi.
 * Exactness: every lane is an integer below 13 + iters <= 2048, exact in
 *            half; every partial sum is an integer below 2^24, exact in
 *            float. The host computes out[] exactly; a kernel that skipped
 *            steps, chains or lanes gets other numbers. Multiplying by one
 *            keeps the values exact; the FMA pipe's rate does not depend on
 *            the operands.
 * Geometry:  1-D, any local size; NO guard: the host launches exactly as
 *            many work-items as out has elements.
 * Macros:    CHAINS (default 8; 1 .. 16).
 * Arguments: out, iters (a multiple of 8, at most 2032: the host calibrates
 *            it without building again).
 * Where:     NVIDIA GPUs of compute capability 8.0 or more (PTX
 *            fma.rn.f16x2 and cvt.rn.f16x2.f32); kladder peak leaves the row
 *            out elsewhere (NVIDIA's OpenCL has no cl_khr_fp16, so PTX is the
 *            way to half arithmetic on both of its backends).
 *
 * Backends:  OpenCL on NVIDIA; CUDA from this same source through
 *            kernels/cuda/prelude.cuh.
 */
#ifndef CHAINS
#define CHAINS 8
#endif
#if CHAINS < 1 || CHAINS > 16
#error "hfma2: CHAINS in 1 .. 16"
#endif

__kernel void hfma2(__global float *out, const int iters)
{
    const int gid = (int)get_global_id(0);
    uint x[CHAINS], one;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(one) : "f"(1.0f), "f"(1.0f));
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;"
            : "=r"(x[c])
            : "f"((float)((gid + 3 * c + 1) % 13)), "f"((float)((gid + 3 * c) % 13)));
#pragma unroll 8
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            asm volatile("fma.rn.f16x2 %0, %0, %1, %1;" : "+r"(x[c]) : "r"(one));
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < CHAINS; c++) {
        float lo, hi;
        asm("{.reg .f16 l, h;\n\t"
            "mov.b32 {l, h}, %2;\n\t"
            "cvt.f32.f16 %0, l;\n\t"
            "cvt.f32.f16 %1, h;}"
            : "=f"(lo), "=f"(hi)
            : "r"(x[c]));
        s += lo;
        s += hi;
    }
    out[gid] = s;
}
