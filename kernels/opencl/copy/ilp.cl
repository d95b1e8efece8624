/*
 * Copy ladder, rung "ilp": the article's CUDA copy kernel with ILP
 * elements per thread, in OpenCL, with the bounds fixed.
 *
 * Computes   dst[e] = src[e] for 0 <= e < n (uint elements).
 * Geometry:  1-D, local size BS (host; the article used BS = 512 / ILP,
 *            so each work-group moves 512 elements), global size
 *            ceil(n / (BS * ILP)) * BS. Work-item l of group g handles the
 *            ILP elements tid + j * BS, j = 0 .. ILP-1, with
 *            tid = l + g * BS * ILP: per j, the group's work-items touch
 *            BS consecutive elements (coalesced), and the group covers the
 *            BS * ILP elements from g * BS * ILP. Needs n + BS * ILP < 2^31.
 * Macro:     ILP (default 1; 1, 2, 4, 8 or 16): independent elements per
 *            work-item.
 * Sizes:     the article's kernel returned only if tid >= N and then read
 *            and wrote tid + j * blockDim.x unchecked, i.e. past the end
 *            unless n was a multiple of blockDim * ILP; here each element
 *            is guarded (< n) individually, so any n >= 1 is fine.
 * Change:    the ladder's first rung: seed 003's copy kernel, each element's
 *            bound checked on its own. The rungs after it (ilp2 ... ilp16)
 *            are this file with another ILP and block size: their change is
 *            in the options alone, and the rung table says what each does.
 * Why:       the ILP loads are issued first (unrolled load phase into
 *            registers), then the stores, so a work-item has ILP loads in
 *            flight at once. The article found that for large n this
 *            changes nothing on Kepler/Maxwell: enough warps are resident
 *            to hide DRAM latency by switching warps (thread-level
 *            parallelism), and bytes in flight per SM are already enough.
 *            ILP matters when occupancy is low (few work-items: small n,
 *            big register or local memory use, small groups), where each
 *            work-item must keep several requests outstanding itself.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef ILP
#define ILP 1
#endif
#if ILP != 1 && ILP != 2 && ILP != 4 && ILP != 8 && ILP != 16
#error "copy/ilp: ILP must be 1, 2, 4, 8 or 16"
#endif

__kernel void copy(const __global uint *restrict src, __global uint *restrict dst, const int n)
{
    const int bs = get_local_size(0);
    const int tid = get_local_id(0) + get_group_id(0) * bs * ILP;
    uint r[ILP];

#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int e = tid + j * bs;
        r[j] = (e < n) ? src[e] : 0u;
    }
#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int e = tid + j * bs;
        if (e < n)
            dst[e] = r[j];
    }
}
