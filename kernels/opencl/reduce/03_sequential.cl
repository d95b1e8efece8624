/*
 * Rung 03: sequential addressing.
 *
 * Computes   y[g] = the reduction of work-group g's wg elements, as rung
 *            02; the host runs it again over the partial results until
 *            one is left.
 * Geometry:  1-D, global size div_up(n, wg) * wg, local size wg (a power
 *            of two up to WG).
 * Change:    the steps run the other way: first s = wg / 2, and work-item
 *            tid < s adds element tid + s into element tid. The work-items
 *            of a sub-group now touch consecutive elements, one bank each,
 *            so no step has a bank conflict, and the active work-items are
 *            still the first ones (no divergence). The other cost stays:
 *            half the work-items are idle from the first step on, after
 *            each loaded a single element.
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
    for (uint s = wg / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_x[tid] = OP(s_x[tid], s_x[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[get_group_id(0)] = s_x[0];
}
