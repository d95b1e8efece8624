/*
 * Rung 04: 2-D convolution from a tile staged in local memory.
 *
 * Computes   dst(x, y) = sum_{j,i = -RAD..RAD} w2[(j+RAD)*(2RAD+1) + i+RAD]
 *                        * src(clamp(x+i, 0, W-1), clamp(y+j, 0, H-1))
 *            as rungs 01/02 (result rounded once with PIX_OUT).
 * Geometry:  2-D, x = get_global_id(0), y = get_global_id(1); local size
 *            must be BX x BY (reqd_work_group_size: another local size
 *            fails to launch); global size W x H rounded up to BX x BY.
 * Macros:    RAD (>= 0, no default: set by the host);
 *            BX, BY (default 16 x 16, each >= 1): work-group size.
 *            Local memory: (BX+2RAD) * (BY+2RAD) * sizeof(F) bytes
 *            (sizeof(F) = 4 for float, 16 for uchar4 pixels); the host
 *            checks it against CL_DEVICE_LOCAL_MEM_SIZE (and
 *            CL_KERNEL_LOCAL_MEM_SIZE) before launching.
 * Change:    the (2RAD+1)^2 taps of neighbouring pixels overlap almost
 *            completely, yet rung 02 fetched each of them from global
 *            memory. Here the group first copies its input footprint, the
 *            (BX+2RAD) x (BY+2RAD) tile around its BX x BY outputs, into
 *            local memory: work-item l = ly*BX + lx loads tile elements l,
 *            l + BX*BY, ... (consecutive work-items, consecutive columns:
 *            coalesced, converted to F once). After one barrier, every tap
 *            is a local-memory read; global reads per output drop from
 *            (2RAD+1)^2 to (1 + 2RAD/BX)(1 + 2RAD/BY). Still (2RAD+1)^2
 *            multiply-adds per pixel (not separable yet).
 * Sizes:     tile element (tx, ty) holds src(clamp(x0-RAD+tx), clamp(y0-
 *            RAD+ty)) with (x0, y0) the group's first pixel, so the borders
 *            and a RAD larger than the image need no special case and
 *            nothing outside src is read. Groups that overhang the right or
 *            bottom edge (W, H not multiples of BX, BY) still load a whole
 *            (clamped) tile; every work-item takes part in the load and
 *            reaches the barrier, and only the arithmetic and the store
 *            are guarded by x < W && y < H.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef RAD
#error "04_tiled2d: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "04_tiled2d: RAD (blur radius) must be >= 0"
#endif
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#if BX < 1 || BY < 1
#error "04_tiled2d: BX and BY (work-group size) must be >= 1"
#endif

#define TILE_W (BX + 2 * RAD)
#define TILE_H (BY + 2 * RAD)

__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void
blur2d(const __global P *restrict src, __global P *restrict dst, const int W,
       const int H, __constant float *w2)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x0 = get_group_id(0) * BX;
    const int y0 = get_group_id(1) * BY;
    const int x = x0 + lx;
    const int y = y0 + ly;
    __local F tile[TILE_H][TILE_W];

    for (int t = ly * BX + lx; t < TILE_H * TILE_W; t += BX * BY) {
        const int ty = t / TILE_W;
        const int tx = t - ty * TILE_W;
        const int sx = clamp(x0 - RAD + tx, 0, W - 1);
        const int sy = clamp(y0 - RAD + ty, 0, H - 1);
        tile[ty][tx] = PIX_IN(src[(size_t)sy * W + sx]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < W && y < H) {
        F acc = (F)0;
        for (int j = 0; j <= 2 * RAD; j++) {
            __constant float *wrow = w2 + j * (2 * RAD + 1);
            F racc = (F)0;
            for (int i = 0; i <= 2 * RAD; i++)
                racc += wrow[i] * tile[ly + j][lx + i];
            acc += racc;
        }
        dst[(size_t)y * W + x] = PIX_OUT(acc);
    }
}
