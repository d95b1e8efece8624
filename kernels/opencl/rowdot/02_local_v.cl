/*
 * Rung 02: one work-item per row, v staged in local memory (the seed
 * article's optimisation #1, without its fixed D).
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Geometry:  1-D, y = get_global_id(0) is the row; local size WG chosen
 *            by the host (any value), global size = Y rounded up to a
 *            multiple of WG.
 * Macro:     VC (default 1024, >= 1): length of the local buffer vl[VC],
 *            i.e. how many elements of v are staged at a time.
 *            Local memory: VC * sizeof(T) bytes.
 * Change:    every work-item of a group needs all of v, in the same
 *            order, so the group copies v into local memory once per
 *            chunk (work-item lid loads elements lid, lid + WG, ...: a
 *            coalesced load) and all rows read it from there. Global
 *            traffic for v drops by a factor WG; only M1 and M2 remain,
 *            which the article saw raise ALU:fetch from 0.08 to 0.20.
 *            The article's version assumed D <= local capacity and a
 *            multiple of the local size, and used mem_fence where a
 *            barrier is required; here v is processed in chunks of
 *            min(VC, D - c0) elements with two barriers per chunk: one
 *            after the load (all of the chunk is visible before anyone
 *            reads it) and one before it (nobody overwrites vl while a
 *            slower work-item still reads the previous chunk).
 * Sizes:     any Y, D >= 1 and any local size. The chunk loop bound
 *            depends only on D, so every work-item of a group runs the
 *            same iterations and reaches every barrier; work-items with
 *            y >= Y still help load vl and only skip the arithmetic and
 *            the store. The sum runs in k order, as in rung 01.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef VC
#define VC 1024
#endif
#if VC < 1
#error "02_local_v: VC (local chunk of v) must be >= 1"
#endif

__kernel void rowdot(const __global T *restrict v,
                     const __global T *restrict M1,
                     const __global T *restrict M2, __global T *restrict r,
                     const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    const int lid = get_local_id(0);
    const int ls = get_local_size(0);
    const bool valid = y < Y;
    /* Row pointers are only dereferenced when valid. */
    const __global T *a = M1 + (size_t)(valid ? y : 0) * D;
    const __global T *b = M2 + (size_t)(valid ? y : 0) * D;
    __local T vl[VC];
    T sum = 0;

    for (int c0 = 0; c0 < D; c0 += VC) {
        const int chunk = min(VC, D - c0);

        /* Nobody may still be reading the previous chunk. */
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int i = lid; i < chunk; i += ls)
            vl[i] = v[c0 + i];
        barrier(CLK_LOCAL_MEM_FENCE);

        if (valid)
            for (int k = 0; k < chunk; k++)
                sum += vl[k] * a[c0 + k] * b[c0 + k];
    }

    if (valid)
        r[y] = f * sum;
}
