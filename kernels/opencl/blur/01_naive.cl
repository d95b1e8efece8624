/*
 * Rung 01: naive 2-D convolution, everything from global memory (the
 * starting point of the seed article's Gaussian blur of a 16-Mpixel
 * image).
 *
 * Computes   dst(x, y) = sum_{j,i = -RAD..RAD} w2[(j+RAD)*(2RAD+1) + i+RAD]
 *                        * src(clamp(x+i, 0, W-1), clamp(y+j, 0, H-1))
 *            src, dst row-major W x H (pixel (x, y) at [y*W + x]), pixel
 *            type P from the prelude (float or uchar4), arithmetic in F,
 *            result written once with PIX_OUT (uchar4: rounded once).
 *            w2 holds the (2RAD+1)^2 products w[j]*w[i] of the normalised
 *            1-D Gaussian weights.
 * Geometry:  2-D, x = get_global_id(0), y = get_global_id(1); global size
 *            W x H rounded up to the local size BX x BY chosen by the host
 *            (this rung declares no local memory, any local size works).
 * Macro:     RAD (>= 0, no default: the host sets it to match the weight
 *            array it passes; any value, also larger than W or H).
 * Change:    none, this is the baseline: (2RAD+1)^2 global loads of src
 *            plus as many of w2 per output pixel, no reuse beyond what the
 *            caches happen to catch. Each kernel row j is summed into its
 *            own partial sum before it is added to the total, which keeps
 *            the float rounding error of long sums small.
 * Sizes:     any W, H >= 1: every tap coordinate is clamped to the image
 *            (clamp-to-edge), so nothing outside src is read even when RAD
 *            exceeds W or H; work-items with x >= W or y >= H (rounded-up
 *            global size) return at once (no barriers in this kernel).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "01_naive: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "01_naive: RAD (blur radius) must be >= 0"
#endif

__kernel void blur2d(const __global P *restrict src, __global P *restrict dst,
                     const int W, const int H,
                     const __global float *restrict w2)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= W || y >= H)
        return;

    F acc = (F)0;
    for (int j = 0; j <= 2 * RAD; j++) {
        const int sy = clamp(y - RAD + j, 0, H - 1);
        const __global P *srow = src + (size_t)sy * W;
        const __global float *wrow = w2 + j * (2 * RAD + 1);
        F racc = (F)0;
        for (int i = 0; i <= 2 * RAD; i++)
            racc += wrow[i] * PIX_IN(srow[clamp(x - RAD + i, 0, W - 1)]);
        acc += racc;
    }
    dst[(size_t)y * W + x] = PIX_OUT(acc);
}
