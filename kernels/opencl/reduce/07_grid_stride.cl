/*
 * Rung 07: many elements per work-item.
 *
 * Computes   y[g] = the reduction of every element i with i mod (G * WG)
 *            in work-group g's range, for G work-groups; the host runs it
 *            again over the G partial results (once, where G <= WG).
 * Geometry:  1-D, global size G * WG, local size WG, with
 *            G = min(GPC * compute units, div_up(n, WG)): as many groups
 *            as the device holds at once (GPC per compute unit), not one
 *            per 2 * WG elements.
 * Change:    each work-item walks the array with a stride of the whole
 *            launch (G * WG), combining what it loads in a register, and
 *            only then joins rung 06's tree. The tree's cost, its barriers
 *            and the write of a partial result are paid once per work-item
 *            and not once per two elements; the work-groups stay resident
 *            for the whole array instead of being launched by the million;
 *            and the second pass has G values, not n / 2WG. This is the
 *            seventh step of the textbook's ladder.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#if defined(KL_SUBGROUPS) && !defined(__CUDACC__)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "07_grid_stride: WG must be a power of two in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
       __global uint *count, const int n)
{
    const uint tid = get_local_id(0), stride = get_global_size(0);
    __local R s_x[WG];

    R acc = IDENTITY;
    for (uint i = get_global_id(0); i < (uint)n; i += stride)
        acc = OP(acc, x[i]);
#ifdef KL_SUBGROUPS
    const uint sg = get_sub_group_id(), lane = get_sub_group_local_id();
    const R v = SUB_GROUP_OP(acc);
    if (lane == 0)
        s_x[sg] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        acc = IDENTITY;
        for (uint k = lane; k < get_num_sub_groups(); k += get_max_sub_group_size())
            acc = OP(acc, s_x[k]);
        acc = SUB_GROUP_OP(acc);
    }
#else
    s_x[tid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_x[tid] = OP(s_x[tid], s_x[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc = s_x[0];
#endif
    if (tid == 0)
        y[get_group_id(0)] = acc;
}
