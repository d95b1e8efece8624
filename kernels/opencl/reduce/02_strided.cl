/*
 * Rung 02: interleaved addressing without divergence.
 *
 * Computes   y[g] = the reduction of work-group g's wg elements, as rung
 *            01; the host runs it again over the partial results until
 *            one is left.
 * Geometry:  1-D, global size div_up(n, wg) * wg, local size wg (a power
 *            of two up to WG).
 * Change:    step s gives its wg / 2s additions to the first wg / 2s
 *            work-items, which add element index + s into index = 2s*tid:
 *            whole sub-groups are busy or idle, so a step costs only the
 *            sub-groups that work, and the % is gone. The new cost: the
 *            addresses of one step are 2s elements apart, so in local
 *            memory's banks (32 of 4 bytes on NVIDIA GPUs) the work-items
 *            of a sub-group meet on the same banks, and their accesses are
 *            serialised (bank conflicts), more of them at every step.
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
        const uint index = 2 * s * tid;
        if (index < wg)
            s_x[index] = OP(s_x[index], s_x[index + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[get_group_id(0)] = s_x[0];
}
