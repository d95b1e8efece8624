/*
 * Rung 05: separable filter, each pass staging its input in local memory.
 *
 * Computes   tmp(x, y) = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y)   (blur_h)
 *            dst(x, y) = sum_j w[j+RAD] * tmp(x, clamp(y+j, 0, H-1))   (blur_v)
 *            as rung 03: tmp is F, never rounded; dst rounded once.
 * Geometry:  both entries 2-D, x = get_global_id(0), y = get_global_id(1);
 *            local size must be BX x BY (reqd_work_group_size); global
 *            size W x H rounded up to BX x BY. blur_h then blur_v, with a
 *            W*H-element F buffer tmp between them.
 * Macros:    RAD (>= 0, no default: set by the host);
 *            BX, BY (default 16 x 16, each >= 1): work-group size.
 *            Local memory: blur_h BY * (BX+2RAD) * sizeof(F) bytes,
 *            blur_v (BY+2RAD) * BX * sizeof(F) bytes (sizeof(F) = 4 for
 *            float, 16 for uchar4); the host checks them before launching.
 * Change:    in rung 03 each input pixel is fetched 2RAD+1 times per pass
 *            (once by every output whose window covers it), relying on the
 *            cache. Here each row of the group (blur_h) first copies its
 *            BX+2RAD input pixels into row[ly][] (work-item lx loads
 *            elements lx, lx+BX, ...: coalesced, converted to F once), and
 *            each column of the group (blur_v) copies its BY+2RAD inputs
 *            into col[][lx] (work-items lx = 0..BX-1 of one step read one
 *            contiguous row segment of tmp: coalesced). After a barrier
 *            all 2RAD+1 taps come from local memory: global reads per
 *            output fall to 1 + 2RAD/BX (blur_h) and 1 + 2RAD/BY (blur_v).
 *            Neighbouring work-items read neighbouring local words (row
 *            [ly][lx+i], col[ly+j][lx]), so there are no bank conflicts.
 * Sizes:     staged elements hold clamped coordinates, so borders and a
 *            RAD larger than the image need no special case and nothing
 *            outside src/tmp is read. Rows with y >= H (blur_h) and columns
 *            with x >= W (blur_v) of an overhanging group load nothing:
 *            only the work-items of that same row/column would read them,
 *            and those store nothing. Every work-item reaches the barrier
 *            (it is outside all guards); the arithmetic and the store are
 *            guarded by x < W && y < H.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "05_tiled_sep: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "05_tiled_sep: RAD (blur radius) must be >= 0"
#endif
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#if BX < 1 || BY < 1
#error "05_tiled_sep: BX and BY (work-group size) must be >= 1"
#endif

__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void
blur_h(const __global P *restrict src, __global F *restrict tmp, const int W,
       const int H, __constant float *w)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x0 = get_group_id(0) * BX;
    const int x = x0 + lx;
    const int y = get_group_id(1) * BY + ly;
    __local F row[BY][BX + 2 * RAD];

    if (y < H) {
        const __global P *srow = src + (size_t)y * W;
        for (int t = lx; t < BX + 2 * RAD; t += BX)
            row[ly][t] = PIX_IN(srow[clamp(x0 - RAD + t, 0, W - 1)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < W && y < H) {
        F acc = (F)0;
        for (int i = 0; i <= 2 * RAD; i++)
            acc += w[i] * row[ly][lx + i];
        tmp[(size_t)y * W + x] = acc;
    }
}

__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void
blur_v(const __global F *restrict tmp, __global P *restrict dst, const int W,
       const int H, __constant float *w)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int y0 = get_group_id(1) * BY;
    const int x = get_group_id(0) * BX + lx;
    const int y = y0 + ly;
    __local F col[BY + 2 * RAD][BX];

    if (x < W) {
        for (int t = ly; t < BY + 2 * RAD; t += BY) {
            const int sy = clamp(y0 - RAD + t, 0, H - 1);
            col[t][lx] = tmp[(size_t)sy * W + x];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < W && y < H) {
        F acc = (F)0;
        for (int j = 0; j <= 2 * RAD; j++)
            acc += w[j] * col[ly + j][lx];
        dst[(size_t)y * W + x] = PIX_OUT(acc);
    }
}
