/*
 * Rung 06: separable filter, PX consecutive pixels per work-item, sliding
 * window in registers (blur_h) and vector loads (blur_v).
 *
 * Computes   tmp(x, y) = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y)   (blur_h)
 *            dst(x, y) = sum_j w[j+RAD] * tmp(x, clamp(y+j, 0, H-1))   (blur_v)
 *            as rung 03: tmp is F, never rounded; dst rounded once.
 * Geometry:  both entries 2-D; work-item (gx, gy) computes pixels
 *            x = gx*PX .. gx*PX+PX-1 of row y = gy. Global size
 *            ceil(W / PX) x H, rounded up to the local size BX x BY chosen
 *            by the host (no local memory: any local size works).
 * Macros:    RAD (>= 0, no default: set by the host);
 *            PX (default 4; 1, 2, 4 or 8): pixels per work-item along x.
 * Change:    more work per work-item, fewer work-items (ceil(W/PX) per
 *            row). blur_h: the PX outputs of a work-item share 2RAD of
 *            their 2RAD+1 inputs, so it loads its PX+2RAD inputs once into
 *            a private window win[] (fully unrolled loops, so win can live
 *            in registers; converted to F once) and computes the PX dot
 *            products from there: PX+2RAD loads for PX outputs instead of
 *            PX*(2RAD+1). blur_v: for every tap row the PX outputs need PX
 *            contiguous elements of tmp, fetched with one vloadPX (float
 *            pixels; one 8/16/32-byte transaction instead of PX scalar
 *            ones) and accumulated as a floatPX; the PX results are
 *            written with one vstorePX. For uchar4 pixels every pixel
 *            already is a vector (float4 in tmp, uchar4 in src/dst), so
 *            the loads are per pixel. Fewer, wider memory operations and
 *            more independent arithmetic per work-item (ILP); the cost is
 *            more registers (win holds PX+2RAD F values) and fewer
 *            work-items to hide latency.
 * Sizes:     W need not be a multiple of PX: work-items with gx*PX >= W or
 *            y >= H return at once (no barriers in this rung). blur_h reads
 *            every input with clamped coordinates and stores each of its PX
 *            outputs only if x < W (one vstore when all PX are inside).
 *            blur_v takes the vector path only when all PX columns are
 *            inside the image (x0+PX <= W, float pixels, PX > 1); the last
 *            work-item of a row otherwise takes the scalar path, which
 *            reads column min(x, W-1) and stores only x < W. Rows are
 *            clamped in both paths, so any RAD (also > W, H) is safe.
 *            vloadn/vstoren only need float alignment, which x0 = gx*PX
 *            offsets keep.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "06_vector: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "06_vector: RAD (blur radius) must be >= 0"
#endif
#ifndef PX
#define PX 4
#endif
#if PX != 1 && PX != 2 && PX != 4 && PX != 8
#error "06_vector: PX (pixels per work-item) must be 1, 2, 4 or 8"
#endif

/* floatPX vector type and its load/store, for the float-pixel fast paths. */
#if PX == 2
typedef float2 FPX;
#define VLOAD_PX vload2
#define VSTORE_PX vstore2
#elif PX == 4
typedef float4 FPX;
#define VLOAD_PX vload4
#define VSTORE_PX vstore4
#elif PX == 8
typedef float8 FPX;
#define VLOAD_PX vload8
#define VSTORE_PX vstore8
#endif
#if !defined(KL_PIX_UCHAR4) && PX > 1
#define VEC_PATH 1
#else
#define VEC_PATH 0
#endif

__kernel void blur_h(const __global P *restrict src, __global F *restrict tmp,
                     const int W, const int H, __constant float *w)
{
    const int x0 = get_global_id(0) * PX;
    const int y = get_global_id(1);
    if (x0 >= W || y >= H)
        return;

    const __global P *srow = src + (size_t)y * W;
    F win[PX + 2 * RAD];
#pragma unroll
    for (int k = 0; k < PX + 2 * RAD; k++)
        win[k] = PIX_IN(srow[clamp(x0 - RAD + k, 0, W - 1)]);

    F out[PX];
#pragma unroll
    for (int p = 0; p < PX; p++) {
        F acc = (F)0;
#pragma unroll
        for (int i = 0; i <= 2 * RAD; i++)
            acc += w[i] * win[p + i];
        out[p] = acc;
    }

    __global F *trow = tmp + (size_t)y * W + x0;
#if VEC_PATH
    if (x0 + PX <= W) {
        VSTORE_PX(VLOAD_PX(0, out), 0, trow);
        return;
    }
#endif
#pragma unroll
    for (int p = 0; p < PX; p++)
        if (x0 + p < W)
            trow[p] = out[p];
}

__kernel void blur_v(const __global F *restrict tmp, __global P *restrict dst,
                     const int W, const int H, __constant float *w)
{
    const int x0 = get_global_id(0) * PX;
    const int y = get_global_id(1);
    if (x0 >= W || y >= H)
        return;

    __global P *drow = dst + (size_t)y * W + x0;
#if VEC_PATH
    if (x0 + PX <= W) {
        FPX acc = (FPX)0;
        for (int j = 0; j <= 2 * RAD; j++) {
            const int sy = clamp(y - RAD + j, 0, H - 1);
            acc += w[j] * VLOAD_PX(0, tmp + (size_t)sy * W + x0);
        }
        VSTORE_PX(acc, 0, drow); /* float pixels: PIX_OUT is the identity */
        return;
    }
#endif
    /* uchar4 pixels, PX == 1, or the last, partial group of a row. */
    F acc[PX];
#pragma unroll
    for (int p = 0; p < PX; p++)
        acc[p] = (F)0;
    for (int j = 0; j <= 2 * RAD; j++) {
        const int sy = clamp(y - RAD + j, 0, H - 1);
        const __global F *trow = tmp + (size_t)sy * W;
        const float wj = w[j];
#pragma unroll
        for (int p = 0; p < PX; p++)
            acc[p] += wj * trow[min(x0 + p, W - 1)];
    }
#pragma unroll
    for (int p = 0; p < PX; p++)
        if (x0 + p < W)
            drow[p] = PIX_OUT(acc[p]);
}
