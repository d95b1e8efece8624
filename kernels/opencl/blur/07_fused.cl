/*
 * Rung 07: both passes fused in one kernel, through local memory.
 *
 * Computes   dst(x, y) = sum_j w[j+RAD] * h(x, clamp(y+j, 0, H-1)),
 *            h(x, y')  = sum_i w[i+RAD] * src(clamp(x+i, 0, W-1), y')
 *            (i, j = -RAD..RAD): the separable blur of rung 03, with the
 *            intermediate h kept in local memory as F (never rounded);
 *            dst rounded once with PIX_OUT.
 * Geometry:  2-D, x = get_global_id(0), y = get_global_id(1); local size
 *            must be BX x BY (reqd_work_group_size); global size W x H
 *            rounded up to BX x BY. One launch, no tmp buffer.
 * Macros:    RAD (>= 0, no default: set by the host);
 *            BX, BY (default 16 x 16, each >= 1): work-group size.
 *            Local memory: (BY+2RAD) * (BX+2RAD) * sizeof(F)   (tile)
 *                        + (BY+2RAD) * BX * sizeof(F)          (mid)
 *            bytes (sizeof(F) = 4 for float, 16 for uchar4); the host
 *            checks it before launching.
 * Change:    rungs 03-06 write the whole intermediate image to global
 *            memory and read it back (for float pixels that doubles the
 *            traffic of the ideal read-src-once, write-dst-once). Here a
 *            group loads its (BX+2RAD) x (BY+2RAD) input tile into local
 *            memory once (coalesced, as in rung 04), runs the horizontal
 *            pass for all BY+2RAD tile rows into mid (BX columns each:
 *            the vertical pass needs the RAD rows above and below), and
 *            after a second barrier the vertical pass reads mid. Global
 *            traffic: src read (1 + 2RAD/BX)(1 + 2RAD/BY) times, dst
 *            written once, nothing in between; 2RAD+1 multiply-adds per
 *            pass per pixel, plus the horizontal pass on the 2RAD halo
 *            rows that neighbouring groups redo (a factor 1 + 2RAD/BY).
 * Sizes:     tile element (tx, ty) holds src(clamp(x0-RAD+tx), clamp(y0-
 *            RAD+ty)), (x0, y0) the group's first pixel, so borders and a
 *            RAD larger than the image need no special case and nothing
 *            outside src is read; the clamp of h's row index in the
 *            formula is exactly the clamp of those tile rows. Groups that
 *            overhang the right/bottom edge still fill the whole tile and
 *            all of mid (from clamped data); every work-item runs both
 *            cooperative loops and reaches both barriers, and only the
 *            final sum and store are guarded by x < W && y < H.
 */
#ifndef RAD
#error "07_fused: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#if RAD < 0
#error "07_fused: RAD (blur radius) must be >= 0"
#endif
#ifndef BX
#define BX 16
#endif
#ifndef BY
#define BY 16
#endif
#if BX < 1 || BY < 1
#error "07_fused: BX and BY (work-group size) must be >= 1"
#endif

#define TILE_W (BX + 2 * RAD)
#define TILE_H (BY + 2 * RAD)

__kernel __attribute__((reqd_work_group_size(BX, BY, 1))) void
blur_fused(const __global P *restrict src, __global P *restrict dst,
           const int W, const int H, __constant float *w)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int l = ly * BX + lx;
    const int x0 = get_group_id(0) * BX;
    const int y0 = get_group_id(1) * BY;
    const int x = x0 + lx;
    const int y = y0 + ly;
    __local F tile[TILE_H][TILE_W];
    __local F mid[TILE_H][BX];

    for (int t = l; t < TILE_H * TILE_W; t += BX * BY) {
        const int ty = t / TILE_W;
        const int tx = t - ty * TILE_W;
        const int sx = clamp(x0 - RAD + tx, 0, W - 1);
        const int sy = clamp(y0 - RAD + ty, 0, H - 1);
        tile[ty][tx] = PIX_IN(src[(size_t)sy * W + sx]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Horizontal pass: all TILE_H rows, BX output columns each. */
    for (int t = l; t < TILE_H * BX; t += BX * BY) {
        const int r = t / BX;
        const int c = t - r * BX;
        F acc = (F)0;
        for (int i = 0; i <= 2 * RAD; i++)
            acc += w[i] * tile[r][c + i];
        mid[r][c] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (x < W && y < H) {
        F acc = (F)0;
        for (int j = 0; j <= 2 * RAD; j++)
            acc += w[j] * mid[ly + j][lx];
        dst[(size_t)y * W + x] = PIX_OUT(acc);
    }
}
