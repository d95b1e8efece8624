/*
 * Peak: cache bandwidth against the working set. Every work-group reads the
 * whole working set of n uint4 vectors (W = 16 n bytes), passes times, in an
 * order of its own; one sum per work-item.
 *
 * Computes   for work-item lid of group g (global id gid, WG work-items a
 *            group), the working set cut into C = n / WG chunks of WG
 *            vectors, and in pass p = 0 .. passes-1, for j = 0 .. C-1:
 *              chunk c = (g + j * (2g + 1)) mod C,
 *              the vector src[(c * WG + lid + 8p) mod n],
 *            out[gid] = the sum of all components of every vector it read,
 *            in uint arithmetic (mod 2^32: any order gives the same sum).
 *            Indices are uint and wrap mod 2^32, which n divides.
 * Exactness: integers only; the host recomputes out[] for sampled work-items
 *            from its copy of src, bit for bit. Each pass reads one 128-byte
 *            line further on, so a work-item reads other vectors in each
 *            pass: a compiler cannot fold the passes into one.
 * Why:       per pass a group reads every vector of the working set once, the
 *            work-items of a warp consecutive vectors (whole lines), in the
 *            same order each pass: the distance between two reads of a line
 *            is W. With one group a compute unit (the host's grid where the
 *            kernel takes 1024 work-items a group), the unit's working set is
 *            W: below its first cache's size the loads hit there, just above
 *            it they miss (a cycle longer than an LRU cache always misses),
 *            and likewise for the next level; groups sharing a unit, each in
 *            its own order, still hit in part a little past it. The step 2g + 1
 *            is odd, so each group visits every chunk, in an order of its own:
 *            no group rides in the wake of another, reading lines the other
 *            just fetched, as groups sweeping the same way do once they bunch
 *            up (on an H100 that read a working set five times the L2 at
 *            twice device memory's rate). Each vector is copied before it is
 *            added, so CUDA makes one 16-byte load of it too; eight loads of a
 *            work-item are in flight at once.
 * Geometry:  1-D, local size WG a power of two at most n, and a multiple of 8;
 *            n a power of two; out holds one uint per work-item of the grid;
 *            best one group per compute unit (any grid is correct).
 * Arguments: src, out, n (vectors), passes (the host calibrates it without
 *            building again).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
__kernel void cache_bw(const __global uint4 *restrict src, __global uint *restrict out,
                       const uint n, const int passes)
{
    const uint lid = (uint)get_local_id(0), wg = (uint)get_local_size(0);
    const uint g = (uint)get_group_id(0), mask = n - 1u, chunks = n / wg;
    const uint step = 2u * g + 1u;
    uint4 acc = (uint4)(0);

    for (int p = 0; p < passes; p++) {
        const uint at = lid + 8u * (uint)p;
        uint c = g;
#pragma unroll 8
        for (uint j = 0; j < chunks; j++, c += step) {
            const uint4 v = src[((c & (chunks - 1u)) * wg + at) & mask];
            acc += v;
        }
    }
    out[get_global_id(0)] = acc.s0 + acc.s1 + acc.s2 + acc.s3;
}
