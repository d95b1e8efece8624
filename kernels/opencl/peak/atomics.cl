/*
 * Peak: atomic-add throughput, three ways: every work-item to one global
 * counter (atomic_one), each work-item to a global counter of its own
 * (atomic_spread), each work-group to one local counter (atomic_local).
 *
 * Computes   with v(gid) = gid % 7 + 1, iters times per work-item:
 *              atomic_one:     counter[0]   += v(gid)
 *              atomic_spread:  counters[gid] += v(gid)
 *              atomic_local:   c (the group's __local counter, zeroed
 *                              first) += v(gid); then out[group] = c.
 *            in uint arithmetic (mod 2^32).
 * Exactness: integer atomics: the totals do not depend on the order. The
 *            global counters accumulate over launches; the host counts
 *            the iterations of every launch it made and checks counter[0]
 *            = (sum of iters) * (sum of v over the grid) and every
 *            counters[gid] = (sum of iters) * v(gid), mod 2^32. out[] of
 *            atomic_local is each group's sum of iters * v, written anew by
 *            every launch. A lost or repeated add changes a total. Adding a
 *            value that varies with gid keeps a compiler or the hardware
 *            from replacing the adds by a count.
 * Why:       one address serialises every add in one place (the L2's atomic
 *            unit on a GPU, one cache line bouncing between cores on a CPU);
 *            distinct addresses spread them; local memory keeps them on the
 *            compute unit. A warp's adds to one address may be combined
 *            before they leave it, as compilers do: the rate counts the adds
 *            the source asked for.
 * Geometry:  1-D, any local size; counters holds one uint per work-item of
 *            the grid, out one per work-group.
 * Arguments: the counter(s) or out, iters (the host calibrates it without
 *            building again).
 *
 * Backends:  OpenCL (OpenCL 1.1's atomic_add on 32-bit integers); CUDA from
 *            this same source through kernels/cuda/prelude.cuh.
 */
__kernel void atomic_one(__global uint *counter, const int iters)
{
    const uint v = (uint)get_global_id(0) % 7u + 1u;
    for (int i = 0; i < iters; i++)
        atomic_add(counter, v);
}

__kernel void atomic_spread(__global uint *counters, const int iters)
{
    const uint gid = (uint)get_global_id(0);
    const uint v = gid % 7u + 1u;
    for (int i = 0; i < iters; i++)
        atomic_add(&counters[gid], v);
}

__kernel void atomic_local(__global uint *out, const int iters)
{
    __local uint c;
    const uint v = (uint)get_global_id(0) % 7u + 1u;
    if (get_local_id(0) == 0)
        c = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < iters; i++)
        atomic_add(&c, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        out[get_group_id(0)] = c;
}
