/*
 * Rung 03: a small work-group per row, its work-items side by side along it.
 *
 * Computes   y = op(x) row by row, as rung 01.
 * Geometry:  1-D: one work-group of WG work-items per row.
 * Change:    rung 02 gives a row to one work-item, so neighbouring
 *            work-items read a row apart and a row of 100k elements is
 *            one work-item's long walk. Here a row is a work-group's
 *            (WG = 32 by default: one warp on NVIDIA GPUs), its work-items
 *            reading neighbouring elements, so every access is coalesced.
 *            Each keeps the online statistics of the elements it read;
 *            the work-group merges them (kl_row_group: by sub-group
 *            reductions where the device has them, a tree in local memory
 *            elsewhere), and every work-item writes its elements from the
 *            row's statistics. The row is still read twice: once for the
 *            statistics, once to write.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#if defined(KL_SUBGROUPS) && !defined(__CUDACC__)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#include "row.h"

#ifndef WG
#define WG 32
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
softmax(const __global TA *restrict x, __global TA *restrict y, const int nrows, const int cols,
     const float gamma, const float beta, const float eps)
{
    __local kl_row part[WG + 1];
    const int lid = (int)get_local_id(0);
    const __global TA *xr = x + (size_t)get_group_id(0) * cols;
    __global TA *yr = y + (size_t)get_group_id(0) * cols;
    (void)nrows; /* one work-group per row: there are nrows */

    kl_row row = kl_row_empty();
    for (int i = lid; i < cols; i += WG)
        row = kl_row_add(row, LD(xr, i));
    row = kl_row_group(row, part);

    const float2 f = kl_row_scale(row, gamma, beta, eps);
    for (int i = lid; i < cols; i += WG)
        ST(kl_row_y(LD(xr, i), row.c, f), i, yr);
}
