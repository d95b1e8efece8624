/*
 * Rung 06: complete unroll.
 *
 * Computes   y[g] = the reduction of work-group g's 2 * WG elements, as
 *            rung 05; the host runs it again over the partial results
 *            until one is left.
 * Geometry:  1-D, global size div_up(n, 2 * WG) * WG, local size WG.
 * Change:    the work-group size is a constant of the build (WG; the host
 *            launches exactly WG work-items, as reqd_work_group_size
 *            promises the compiler), where rungs 01 to 05 read it at run
 *            time. Every loop's trip count is known when compiled, so the
 *            compiler unrolls them completely: no loop counter, no tests of
 *            it, no steps that a smaller group would skip (the textbook
 *            does this with a C++ template on the block size). Where the
 *            device has sub-groups (-DKL_SUBGROUPS, set by kladder) the
 *            last steps go by sub-group as in rung 05; elsewhere (PoCL,
 *            NVIDIA's OpenCL) the whole tree is rung 04's, unrolled.
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
#error "06_unrolled: WG must be a power of two in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
       __global uint *count, const int n)
{
    const uint tid = get_local_id(0);
    const uint i = get_group_id(0) * 2 * WG + tid;
    __local R s_x[WG];

    const R a = i < (uint)n ? x[i] : IDENTITY;
    const R b = i + WG < (uint)n ? x[i + WG] : IDENTITY;
    R acc = OP(a, b);
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
