/*
 * Rung 08: vector loads.
 *
 * Computes   y[g] = the reduction of work-group g's share of x, as rung 07
 *            (G work-groups; the host reduces their G results in a second
 *            launch).
 * Geometry:  1-D, global size G * WG, local size WG,
 *            G = min(GPC * compute units, div_up(n, 4 * WG)).
 * Change:    each load takes four consecutive elements (an R4: 16 bytes
 *            of float or int, 32 of double) instead of one, so a sub-group
 *            moves 512 bytes per load instruction and the memory system
 *            sees a quarter of the requests. The four lanes of a vector
 *            go to four accumulators, four independent chains of
 *            operations instead of one.
 * Sizes:     any n >= 1: the n / 4 whole vectors, then the n % 4 last
 *            elements, one each for the first work-items of the launch
 *            (in turn where the launch has fewer than three).
 *            x must be 16-byte aligned (32 for double), as kladder's
 *            buffers are.
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
#error "08_vector: WG must be a power of two in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
       __global uint *count, const int n)
{
    const uint tid = get_local_id(0), gid = get_global_id(0), stride = get_global_size(0);
    const uint n4 = (uint)n / 4;
    const __global R4 *x4 = (const __global R4 *)x;
    __local R s_x[WG];

    R a0 = IDENTITY, a1 = IDENTITY, a2 = IDENTITY, a3 = IDENTITY;
    for (uint q = gid; q < n4; q += stride) {
        const R4 v = x4[q];
        a0 = OP(a0, v.x);
        a1 = OP(a1, v.y);
        a2 = OP(a2, v.z);
        a3 = OP(a3, v.w);
    }
    for (uint i = 4 * n4 + gid; i < (uint)n; i += stride)
        a0 = OP(a0, x[i]);
    R acc = OP(OP(a0, a1), OP(a2, a3));
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
