/*
 * Rung 05: the last steps by sub-group.
 *
 * Computes   y[g] = the reduction of work-group g's 2 * wg elements, as
 *            rung 04; the host runs it again over the partial results
 *            until one is left.
 * Geometry:  1-D, global size div_up(n, 2 * wg) * wg, local size wg (a
 *            power of two up to WG). Needs cl_khr_subgroups (on CUDA a
 *            sub-group is a warp); the rung is skipped on a device without.
 * Change:    the tree's steps below one sub-group's width no longer pass
 *            through local memory with a barrier each: SUB_GROUP_OP
 *            (sub_group_reduce_add/min/max; on CUDA __shfl_xor_sync over
 *            the warp) combines the values of a sub-group's work-items in
 *            registers. Each sub-group reduces its own values, its first
 *            work-item writes one value to local memory, and after one
 *            barrier the first sub-group reduces those (a loop first where
 *            there are more of them than it has work-items). Without
 *            sub-group functions this needs the old warp-synchronous trick
 *            (volatile local memory, no barrier), which races on GPUs
 *            whose warps no longer run in lockstep; rung 05 does not use it.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL with cl_khr_subgroups; CUDA from this same source
 *            through kernels/cuda/prelude.cuh.
 */
#ifndef __CUDACC__
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#ifndef WG
#define WG 256
#endif

__kernel void reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
                     __global uint *count, const int n)
{
    const uint wg = get_local_size(0), tid = get_local_id(0);
    const uint i = get_group_id(0) * 2 * wg + tid;
    const uint sg = get_sub_group_id(), nsg = get_num_sub_groups();
    const uint lane = get_sub_group_local_id(), width = get_max_sub_group_size();
    __local R s_x[WG];

    const R a = i < (uint)n ? x[i] : IDENTITY;
    const R b = i + wg < (uint)n ? x[i + wg] : IDENTITY;
    const R v = SUB_GROUP_OP(OP(a, b));
    if (lane == 0)
        s_x[sg] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        R w = IDENTITY;
        for (uint k = lane; k < nsg; k += width)
            w = OP(w, s_x[k]);
        w = SUB_GROUP_OP(w);
        if (tid == 0)
            y[get_group_id(0)] = w;
    }
}
