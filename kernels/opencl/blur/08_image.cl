/*
 * Rung 08: horizontal pass reading an image object (texture path), the
 * sampler doing the clamp-to-edge; vertical pass as rung 03.
 *
 * Requires   image support: images are an OPTIONAL device feature. The
 *            host must check CL_DEVICE_IMAGE_SUPPORT (and that the format
 *            below is supported, clGetSupportedImageFormats) and skip this
 *            rung where it is CL_FALSE; W and H must not exceed
 *            CL_DEVICE_IMAGE2D_MAX_WIDTH / _HEIGHT (8192 guaranteed).
 * Computes   tmp(x, y) = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y)   (blur_h)
 *            dst(x, y) = sum_j w[j+RAD] * tmp(x, clamp(y+j, 0, H-1))   (blur_v)
 *            as rung 03: tmp is F, never rounded; dst rounded once.
 *            src is a W x H image2d_t:
 *              KL_PIX_FLOAT:  CL_R / CL_FLOAT, read_imagef(...).x;
 *              KL_PIX_UCHAR4: CL_RGBA / CL_UNORM_INT8; read_imagef returns
 *                             the channels as c/255 in [0,1], multiplied
 *                             by 255.0f here so that F is 0..255, the
 *                             scale PIX_IN gives in the buffer rungs.
 * Geometry:  both entries 2-D, x = get_global_id(0), y = get_global_id(1);
 *            global size W x H rounded up to the host's local size BX x BY
 *            (no local memory, any local size works). blur_h then blur_v
 *            with a W*H-element F buffer tmp (a plain buffer) between them.
 * Macro:     RAD (>= 0, no default: set by the host).
 * Change:    blur_h reads src through the texture units: a 2-D cache
 *            organised for spatial locality and, with
 *            CLK_ADDRESS_CLAMP_TO_EDGE, the border handling in hardware
 *            (no clamp arithmetic in the kernel); for RGBA8 the unorm to
 *            float conversion is done by the sampler too. blur_v is
 *            unchanged from rung 03 (reads and writes plain buffers).
 * Sizes:     blur_h passes unclamped integer coordinates (x-RAD+i, y) and
 *            lets the sampler clamp them, so any W, H >= 1 and any RAD
 *            (also > W or H) are safe; blur_v clamps its rows. Work-items
 *            outside the image return at once (no barriers).
 * Checking:  oclgrind 21.10 --uninitialized flags values returned by
 *            read_imagef as uninitialised for some work-items (and so the
 *            tmp and dst stores that use them), even in a trivial kernel
 *            that reads pixel (0, 0) of a fully initialised image: its
 *            shadow for image reads is not taken from the pixels. Those
 *            reports on this rung are a tool artefact; --data-races and
 *            the default memory checks are clean.
 *
 * Backends:  OpenCL only: image objects and samplers have no CUDA mapping (the
 *            rung is skipped there).
 */
#ifndef RAD
#error "08_image: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "08_image: RAD (blur radius) must be >= 0"
#endif

__constant sampler_t blur_sampler = CLK_NORMALIZED_COORDS_FALSE |
                                    CLK_ADDRESS_CLAMP_TO_EDGE |
                                    CLK_FILTER_NEAREST;

__kernel void blur_h(read_only image2d_t src, __global F *restrict tmp,
                     const int W, const int H, __constant float *w)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= W || y >= H)
        return;

    F acc = (F)0;
    for (int i = 0; i <= 2 * RAD; i++) {
        const float4 c = read_imagef(src, blur_sampler, (int2)(x - RAD + i, y));
#if defined(KL_PIX_UCHAR4)
        acc += w[i] * (c * 255.0f);
#else
        acc += w[i] * c.x;
#endif
    }
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
