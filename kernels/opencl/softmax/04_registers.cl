/*
 * Rung 04: a work-group per row, held in registers, read with vector loads.
 *
 * Computes   y = op(x) row by row, as rung 01.
 * Geometry:  1-D: one work-group of NT work-items per row (kladder's rule
 *            sizes NT to the row: its vectors of four elements, V a
 *            work-item, in multiples of 32, at most 1024).
 * Change:    rung 03 reads each element twice, once for the statistics and
 *            once to write, and one element per load. Here each work-item
 *            loads its V vectors of four elements (j * NT + id for
 *            j < V) into registers, all of its loads in flight at once,
 *            and keeps them: the pass that writes reads registers, not
 *            memory, so each element is read from memory once and written
 *            once, as a copy is. The statistics of the held elements come
 *            from two sweeps over the registers (the center, then the
 *            spread about it), exact as rung 01's; softmax keeps
 *            exp(x - the work-item's max) in place of x, so that the
 *            output is a product, not a second exp. Where every row starts
 *            on a whole vector (cols a multiple of 4) each vector is one
 *            aligned access. A row longer than the work-group holds (more
 *            than 4 * V * NT elements) streams the rest, read twice; the
 *            last cols % 4 elements go one a work-item.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#if defined(KL_SUBGROUPS) && !defined(__CUDACC__)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#include "row.h"

#ifndef NT
#define NT 256
#endif
#ifndef V
#define V 4
#endif

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
softmax(const __global TA *restrict x, __global TA *restrict y, const int nrows, const int cols,
        const float gamma, const float beta, const float eps)
{
    __local kl_row part[NT + 1];
    const int lid = (int)get_local_id(0);
    const int nvec = cols / 4, tail = cols - 4 * nvec, aligned = tail == 0;
    const __global TA *xr = x + (size_t)get_group_id(0) * cols;
    __global TA *yr = y + (size_t)get_group_id(0) * cols;
    (void)nrows; /* one work-group per row: there are nrows */

    /* The held vectors: loaded at once, then their center and the spread about it. */
    float4 v[V];
    float c = KL_CENTER0, n = 0.0f;
    for (int j = 0; j < V; j++) {
        const int k = j * NT + lid;
        v[j] = k < nvec ? kl_load4(xr, k, aligned) : VEC4(float4, 0.0f, 0.0f, 0.0f, 0.0f);
    }
    for (int j = 0; j < V; j++)
        if (j * NT + lid < nvec) {
            c = kl_center_add4(c, v[j]);
            n += 4.0f;
        }
    c = kl_center_end(c, n);
    kl_row row = {c, 0.0f, n};
    for (int j = 0; j < V; j++)
        if (j * NT + lid < nvec) {
            v[j] = kl_hold4(v[j], c); /* softmax: exp(x - c), the norms: x */
            row.s += kl_held_spread4(v[j], c);
        }

    /* What the registers do not hold: the rest of a long row, and the tail. */
    for (int k = V * NT + lid; k < nvec; k += NT)
        row = kl_row_add4(row, kl_load4(xr, k, aligned));
    if (lid < tail)
        row = kl_row_add(row, LD(xr, 4 * nvec + lid));

    row = kl_row_group(row, part);
    const float2 f = kl_row_scale(row, gamma, beta, eps);
    for (int j = 0; j < V; j++) {
        const int k = j * NT + lid;
        if (k < nvec)
            kl_store4(kl_held_y4(v[j], c, row, f), yr, k, aligned);
    }
    for (int k = V * NT + lid; k < nvec; k += NT)
        kl_store4(kl_row_y4(kl_load4(xr, k, aligned), row.c, f), yr, k, aligned);
    if (lid < tail)
        ST(kl_row_y(LD(xr, 4 * nvec + lid), row.c, f), 4 * nvec + lid, yr);
}
