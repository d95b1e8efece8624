/*
 * Rung 01: a work-item per row, three passes over it.
 *
 * Computes   y = op(x) row by row, for rows rows of cols elements each,
 *            row-major: softmax, layer norm or RMS norm (row.h).
 * Geometry:  1-D: one work-item per row, WG work-items a work-group.
 * Change:    the textbook's loop, as a work-item runs it: one pass over
 *            the row for its center (softmax: the max, so that no exp
 *            overflows; layer norm: the mean), one for the spread about
 *            it (the sum of exp(x - max), or of (x - mean)^2, which keeps
 *            a tiny variance that E[x^2] - mean^2 would cancel away), and
 *            one that writes. The sums go by blocks of 64 elements, each
 *            block's sum then added to the row's: a float sum of 100k
 *            terms of one size added one at a time loses about 1e-4 of
 *            itself (every addition rounds the same way), blocks keep
 *            each chain of additions short. RMS norm needs no center: its first pass
 *            reads nothing that is used, and the compiler drops it. Each
 *            work-item walks its own row, so neighbouring work-items read
 *            addresses a row apart: no access is coalesced, and the row is
 *            read three times.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#include "row.h"

#define BLOCK 64 /* elements summed apart before their sum joins the row's */

__kernel void softmax(const __global TA *restrict x, __global TA *restrict y, const int nrows,
                   const int cols, const float gamma, const float beta, const float eps)
{
    const int r = (int)get_global_id(0);
    if (r >= nrows)
        return;
    const __global TA *xr = x + (size_t)r * cols;
    __global TA *yr = y + (size_t)r * cols;

    float c = KL_CENTER0;
    for (int b = 0; b < cols; b += BLOCK) {
        float cb = KL_CENTER0;
        for (int i = b; i < b + BLOCK && i < cols; i++)
            cb = kl_center_add(cb, LD(xr, i));
        c = b == 0 ? cb : kl_center_add(c, cb);
    }
    c = kl_center_end(c, (float)cols);

    kl_row row = {c, 0.0f, (float)cols};
    for (int b = 0; b < cols; b += BLOCK) {
        float sb = 0.0f;
        for (int i = b; i < b + BLOCK && i < cols; i++)
            sb += kl_spread(LD(xr, i), c);
        row.s += sb;
    }

    const float2 f = kl_row_scale(row, gamma, beta, eps);
    for (int i = 0; i < cols; i++)
        ST(kl_row_y(LD(xr, i), c, f), i, yr);
}
