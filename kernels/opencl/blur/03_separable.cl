/*
 * Rung 03: separable filter, two passes through a float buffer.
 *
 * Computes   the Gaussian is a product w[j]*w[i], so the 2-D sum splits:
 *              tmp(x, y) = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y)
 *              dst(x, y) = sum_j w[j+RAD] * tmp(x, clamp(y+j, 0, H-1))
 *            (i, j = -RAD..RAD; w normalised, 2RAD+1 floats). tmp is F
 *            (float, or float4 for uchar4 pixels) and is never rounded:
 *            dst is rounded once, by PIX_OUT in blur_v.
 * Geometry:  both entries 2-D, x = get_global_id(0), y = get_global_id(1);
 *            global size W x H rounded up to the host's local size BX x BY
 *            (any local size works, no local memory). The host runs blur_h
 *            then blur_v (same queue, in order) with a W*H-element F
 *            buffer tmp between them.
 * Macro:     RAD (>= 0, no default: set by the host).
 * Change:    2*(2RAD+1) taps per pixel instead of (2RAD+1)^2 (14 instead
 *            of 49 for RAD 3, 82 instead of 1681 for RAD 20), at the price
 *            of writing and re-reading tmp once. blur_h reads along a row:
 *            neighbouring work-items read neighbouring addresses, taps of
 *            neighbours overlap and hit the cache. blur_v reads down a
 *            column, but for each tap neighbouring work-items (x, x+1)
 *            still read consecutive addresses, so its loads coalesce too.
 *            The weights are __constant (broadcast, as in rung 02).
 * Sizes:     every tap is clamped to the image, so any W, H >= 1 and any
 *            RAD (also > W or H) are safe; work-items outside the image
 *            return at once (no barriers).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "03_separable: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "03_separable: RAD (blur radius) must be >= 0"
#endif

__kernel void blur_h(const __global P *restrict src, __global F *restrict tmp,
                     const int W, const int H, __constant float *w)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= W || y >= H)
        return;

    const __global P *srow = src + (size_t)y * W;
    F acc = (F)0;
    for (int i = 0; i <= 2 * RAD; i++)
        acc += w[i] * PIX_IN(srow[clamp(x - RAD + i, 0, W - 1)]);
    tmp[(size_t)y * W + x] = acc;
}

__kernel void blur_v(const __global F *restrict tmp, __global P *restrict dst,
                     const int W, const int H, __constant float *w)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= W || y >= H)
        return;

    F acc = (F)0;
    for (int j = 0; j <= 2 * RAD; j++) {
        const int sy = clamp(y - RAD + j, 0, H - 1);
        acc += w[j] * tmp[(size_t)sy * W + x];
    }
    dst[(size_t)y * W + x] = PIX_OUT(acc);
}
