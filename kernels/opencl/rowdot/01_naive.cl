/*
 * Rung 01: one work-item per row (the seed article's first kernel).
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Geometry:  1-D, y = get_global_id(0) is the row; local size WG chosen
 *            by the host, global size = Y rounded up to a multiple of WG.
 * Macros:    none.
 * Change:    the baseline. Each work-item walks its own row sequentially,
 *            so on a GPU neighbouring work-items read addresses D elements
 *            apart (uncoalesced M1/M2 traffic), and every work-item reads
 *            all of v again from global memory: the article measured an
 *            ALU:fetch ratio of 0.08, i.e. the kernel waits on memory.
 * Sizes:     any Y, D >= 1. Work-items with y >= Y (from the rounded-up
 *            global size) do nothing; there is no barrier, so the guard
 *            may skip the whole body. Row offsets are computed in size_t
 *            so Y * D may exceed INT_MAX.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */

__kernel void rowdot(const __global T *restrict v,
                     const __global T *restrict M1,
                     const __global T *restrict M2, __global T *restrict r,
                     const int Y, const int D, const T f)
{
    const int y = get_global_id(0);

    if (y < Y) {
        const __global T *a = M1 + (size_t)y * D;
        const __global T *b = M2 + (size_t)y * D;
        T sum = 0;
        for (int k = 0; k < D; k++)
            sum += v[k] * a[k] * b[k];
        r[y] = f * sum;
    }
}
