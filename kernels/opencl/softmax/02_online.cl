/*
 * Rung 02: a work-item per row, two passes: statistics online, then the output.
 *
 * Computes   y = op(x) row by row, as rung 01.
 * Geometry:  1-D: one work-item per row, WG work-items a work-group.
 * Change:    rung 01 reads the row once for its center and once more for
 *            the spread about it. Here one pass keeps both as it goes
 *            (kl_row_add): softmax's running sum is rescaled by
 *            exp(old max - new max) whenever the max moves, and layer
 *            norm's mean and sum of squared deviations follow Welford's
 *            update, as stable as rung 01's two passes; a block of 64
 *            elements at a time, merged into the row's (kl_row_merge), as
 *            rung 01 sums by blocks. The row is read
 *            twice instead of three times; the accesses are still a row
 *            apart between neighbouring work-items.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#include "row.h"

#define BLOCK 64 /* elements taken apart before their statistics join the row's (rung 01) */

__kernel void softmax(const __global TA *restrict x, __global TA *restrict y, const int nrows,
                   const int cols, const float gamma, const float beta, const float eps)
{
    const int r = (int)get_global_id(0);
    if (r >= nrows)
        return;
    const __global TA *xr = x + (size_t)r * cols;
    __global TA *yr = y + (size_t)r * cols;

    kl_row row = kl_row_empty();
    for (int b = 0; b < cols; b += BLOCK) {
        kl_row rb = kl_row_empty();
        for (int i = b; i < b + BLOCK && i < cols; i++)
            rb = kl_row_add(rb, LD(xr, i));
        row = kl_row_merge(row, rb);
    }

    const float2 f = kl_row_scale(row, gamma, beta, eps);
    for (int i = 0; i < cols; i++)
        ST(kl_row_y(LD(xr, i), row.c, f), i, yr);
}
