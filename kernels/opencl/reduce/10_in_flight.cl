/*
 * Rung 10: at the read ceiling: U loads in flight per work-item.
 *
 * Computes   y[0] = the reduction of x[0 .. n), in one launch, as rung 09.
 * Geometry:  1-D, global size G * WG, local size WG,
 *            G = min(GPC * compute units, div_up(n, 4 * WG)). part holds
 *            G values; count is 0 before the launch and after it.
 * Change:    rung 09's loop issues one vector load and waits for it before
 *            the next, so a work-item has 16 bytes (32 of double) in
 *            flight, and the groups the device holds at once may not keep
 *            enough requests in the memory system to cover its latency
 *            (Little's law: bandwidth times latency, some 4 TB/s x 1 us =
 *            4 MB on a large GPU). Here each turn of the loop first issues
 *            U independent loads, a whole launch's stride apart (so each
 *            one stays coalesced), and only then combines them: U times
 *            the bytes in flight with the same work-items. The loads left
 *            over after the last whole turn (fewer than U per work-item)
 *            go one at a time, as in rung 09.
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
#error "10_in_flight: WG must be a power of two in 1..1024"
#endif
#ifndef U
#define U 4
#endif
#if U < 1 || U > 16
#error "10_in_flight: U (loads in flight per work-item) must be in 1..16"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce(const __global R *restrict x, __global R *restrict y, __global R *part,
       __global uint *count, const int n)
{
    const uint tid = get_local_id(0), gid = get_global_id(0), stride = get_global_size(0);
    const uint n4 = (uint)n / 4;
    const __global R4 *x4 = (const __global R4 *)x;
    __local R s_x[WG];
    __local int s_last;

    R a0 = IDENTITY, a1 = IDENTITY, a2 = IDENTITY, a3 = IDENTITY;
    uint q = gid;
    for (; q + (U - 1) * stride < n4; q += U * stride) {
        R4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = x4[q + u * stride];
#pragma unroll
        for (int u = 0; u < U; u++) {
            a0 = OP(a0, v[u].x);
            a1 = OP(a1, v[u].y);
            a2 = OP(a2, v[u].z);
            a3 = OP(a3, v[u].w);
        }
    }
    for (; q < n4; q += stride) {
        const R4 v = x4[q];
        a0 = OP(a0, v.x);
        a1 = OP(a1, v.y);
        a2 = OP(a2, v.z);
        a3 = OP(a3, v.w);
    }
    for (uint i = 4 * n4 + gid; i < (uint)n; i += stride)
        a0 = OP(a0, x[i]);
    R acc = OP(OP(a0, a1), OP(a2, a3));
    for (int turn = 0;; turn++) {
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
        if (turn == 1)
            break;
        if (tid == 0) {
            kl_part_store(part, get_group_id(0), acc);
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            s_last = atomic_add(count, 1u) == get_num_groups(0) - 1;
            mem_fence(CLK_GLOBAL_MEM_FENCE);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!s_last)
            return;
        acc = IDENTITY;
        for (uint k = tid; k < get_num_groups(0); k += WG)
            acc = OP(acc, kl_part_load(part, k));
    }
    if (tid == 0) {
        y[0] = acc;
        atomic_xchg(count, 0u);
    }
}
