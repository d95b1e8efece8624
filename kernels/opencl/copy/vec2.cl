/*
 * Copy ladder, rung "vec2": as rung "ilp", but every access moves a
 * uint2 (8 bytes: one 64-bit load / store instruction where the
 * hardware has one), as the article's reinterpret_cast<int2 *> kernel.
 *
 * Computes   dst[e] = src[e] for 0 <= e < n (uint elements).
 * Vectors:   nv = n / 2 full vectors; vector v holds elements 2*v .. 2*v+1.
 *            The n % 2 tail elements (2*nv .. n-1) are copied by exactly
 *            one work-item, global id 0, with scalar loads and stores.
 * Geometry:  1-D, local size BS (host), global size
 *            ceil(max(nv, 1) / (BS * ILP)) * BS: at least one group, so the
 *            tail is copied even when nv == 0 (n < 2). Work-item l of group
 *            g handles the ILP vectors tid + j * BS, j = 0 .. ILP-1, with
 *            tid = l + g * BS * ILP, each guarded (< nv).
 *            Needs nv + BS * ILP < 2^31.
 * Macro:     ILP (default 4; 1, 2, 4, 8 or 16): vectors per work-item.
 * Buffers:   src and dst must be 8-byte aligned, which buffers from
 *            clCreateBuffer are (pass them without offset, or a sub-buffer
 *            at CL_DEVICE_MEM_BASE_ADDR_ALIGN). The vectors are accessed
 *            through a uint2 pointer rather than vload2 / vstore2: vload
 *            only promises uint alignment, so a compiler that cannot prove
 *            8-byte alignment may split it into 2 scalar accesses,
 *            which would defeat the point of this rung.
 * Change:    rung ilp4 moves one 4-byte word per load and store; here each
 *            access moves a uint2, with ILP of them per work-item, and the
 *            n % 2 words past the last whole vector are copied by one
 *            work-item.
 * Why:       2 times fewer load/store instructions (and address computations)
 *            for the same bytes, so fewer instructions in flight are needed
 *            to cover the same bytes in flight; with ILP vectors per
 *            work-item each item has ILP * 8 bytes outstanding. Like ILP,
 *            this pays off mainly when occupancy cannot hide latency.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef ILP
#define ILP 4
#endif
#if ILP != 1 && ILP != 2 && ILP != 4 && ILP != 8 && ILP != 16
#error "copy/vec2: ILP must be 1, 2, 4, 8 or 16"
#endif

__kernel void copy(const __global uint *restrict src, __global uint *restrict dst, const int n)
{
    const __global uint2 *restrict src2 = (const __global uint2 *)src;
    __global uint2 *restrict dst2 = (__global uint2 *)dst;
    const int nv = n / 2;
    const int bs = get_local_size(0);
    const int tid = get_local_id(0) + get_group_id(0) * bs * ILP;
    uint2 r[ILP];

#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int v = tid + j * bs;
        r[j] = (v < nv) ? src2[v] : (uint2)(0);
    }
#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int v = tid + j * bs;
        if (v < nv)
            dst2[v] = r[j];
    }

    if (get_global_id(0) == 0) {
        for (int e = 2 * nv; e < n; e++)
            dst[e] = src[e];
    }
}
