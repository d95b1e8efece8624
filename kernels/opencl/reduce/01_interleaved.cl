/*
 * Rung 01: the textbook's first reduction, a tree in local memory with
 * interleaved addressing and a divergent test.
 *
 * Computes   y[g] = x[g*wg] op x[g*wg + 1] op ... over the work-group's
 *            slice of wg elements (op: +, min or max; R, OP and IDENTITY
 *            come from the prelude), for every work-group g. The host runs
 *            the kernel again over the partial results until one is left
 *            (n, then n/wg, n/wg^2 ... values), so a sum of 2^30 elements
 *            takes four launches with wg = 256.
 * Geometry:  1-D, global size div_up(n, wg) * wg, local size wg (a power
 *            of two up to WG; WG is the local array's capacity).
 * Kernel:    reduce(x, y, part, count, n); part and count serve the
 *            one-pass rungs (09, 10) and are not used here.
 * Change:    the first rung. Each work-item loads one element (the
 *            identity past n) into local memory; then log2(wg) steps, in
 *            step s the work-items whose id is a multiple of 2s add in the
 *            element s to their right. Half the work-items of each step
 *            fail the test tid % (2s) == 0, but they sit inside every
 *            sub-group (warp), so every sub-group runs the step's code for
 *            its few active work-items: divergence. The % is slow too.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif

__kernel void reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
                     __global uint *count, const int n)
{
    const uint wg = get_local_size(0), tid = get_local_id(0), i = get_global_id(0);
    __local R s_x[WG];

    s_x[tid] = i < (uint)n ? x[i] : IDENTITY;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < wg; s *= 2) {
        if (tid % (2 * s) == 0)
            s_x[tid] = OP(s_x[tid], s_x[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[get_group_id(0)] = s_x[0];
}
