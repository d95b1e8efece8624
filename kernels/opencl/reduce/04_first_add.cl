/*
 * Rung 04: the first operation during the load.
 *
 * Computes   y[g] = the reduction of work-group g's 2 * wg elements; the
 *            host runs it again over the partial results until one is left.
 * Geometry:  1-D, global size div_up(n, 2 * wg) * wg, local size wg (a
 *            power of two up to WG): half the work-groups of rung 03.
 * Change:    each work-item loads two elements, wg apart (so a sub-group's
 *            loads stay consecutive), and combines them before the tree:
 *            the first step of rung 03, where half the work-items only
 *            waited, is done in registers as the data arrives. Half as
 *            many work-groups, each doing twice the useful work.
 * Sizes:     any n >= 1 (the second element is the identity past n).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif

__kernel void reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
                     __global uint *count, const int n)
{
    const uint wg = get_local_size(0), tid = get_local_id(0);
    const uint i = get_group_id(0) * 2 * wg + tid;
    __local R s_x[WG];

    const R a = i < (uint)n ? x[i] : IDENTITY;
    const R b = i + wg < (uint)n ? x[i + wg] : IDENTITY;
    s_x[tid] = OP(a, b);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_x[tid] = OP(s_x[tid], s_x[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[get_group_id(0)] = s_x[0];
}
