/*
 * Rung 02: as rung 01, with the 2-D weights in constant memory.
 *
 * Computes   dst(x, y) = sum_{j,i = -RAD..RAD} w2[(j+RAD)*(2RAD+1) + i+RAD]
 *                        * src(clamp(x+i, 0, W-1), clamp(y+j, 0, H-1))
 *            (src, dst row-major W x H, P/F/PIX_IN/PIX_OUT from the
 *            prelude, result rounded once).
 * Geometry:  2-D, x = get_global_id(0), y = get_global_id(1); global size
 *            W x H rounded up to the host's local size BX x BY (any local
 *            size works, no local memory).
 * Macro:     RAD (>= 0, no default: set by the host).
 *            The host must check that (2RAD+1)^2 floats fit
 *            CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (64 KiB minimum, i.e.
 *            RAD <= 63 is always safe).
 * Change:    w2 is declared __constant. All work-items of a wavefront read
 *            the same weight at the same time, which is exactly the case
 *            the constant cache (a broadcast to every lane) is built for;
 *            the weight loads leave the global-memory path, leaving only
 *            the (2RAD+1)^2 src loads per pixel. Same summation order as
 *            rung 01 (per-row partial sums).
 * Sizes:     every tap is clamped to the image, so any W, H >= 1 and any
 *            RAD (also > W or H) are safe; work-items outside the image
 *            return at once (no barriers).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "02_constant: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "02_constant: RAD (blur radius) must be >= 0"
#endif

__kernel void blur2d(const __global P *restrict src, __global P *restrict dst,
                     const int W, const int H, __constant float *w2)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= W || y >= H)
        return;

    F acc = (F)0;
    for (int j = 0; j <= 2 * RAD; j++) {
        const int sy = clamp(y - RAD + j, 0, H - 1);
        const __global P *srow = src + (size_t)sy * W;
        __constant float *wrow = w2 + j * (2 * RAD + 1);
        F racc = (F)0;
        for (int i = 0; i <= 2 * RAD; i++)
            racc += wrow[i] * PIX_IN(srow[clamp(x - RAD + i, 0, W - 1)]);
        acc += racc;
    }
    dst[(size_t)y * W + x] = PIX_OUT(acc);
}
