/*
 * Copy ladder, rung "vec4": as rung "ilp", but every access moves a
 * uint4 (16 bytes: one 128-bit load / store instruction where the
 * hardware has one), as the article's reinterpret_cast<int4 *> kernel.
 *
 * Computes   dst[e] = src[e] for 0 <= e < n (uint elements).
 * Vectors:   nv = n / 4 full vectors; vector v holds elements 4*v .. 4*v+3.
 *            The n % 4 tail elements (4*nv .. n-1) are copied by exactly
 *            one work-item, global id 0, with scalar loads and stores.
 * Geometry:  1-D, local size BS (host), global size
 *            ceil(max(nv, 1) / (BS * ILP)) * BS: at least one group, so the
 *            tail is copied even when nv == 0 (n < 4). Work-item l of group
 *            g handles the ILP vectors tid + j * BS, j = 0 .. ILP-1, with
 *            tid = l + g * BS * ILP, each guarded (< nv).
 *            Needs nv + BS * ILP < 2^31.
 * Macro:     ILP (default 4; 1, 2, 4, 8 or 16): vectors per work-item.
 * Buffers:   src and dst must be 16-byte aligned, which buffers from
 *            clCreateBuffer are (pass them without offset, or a sub-buffer
 *            at CL_DEVICE_MEM_BASE_ADDR_ALIGN). The vectors are accessed
 *            through a uint4 pointer rather than vload4 / vstore4: vload
 *            only promises uint alignment, so a compiler that cannot prove
 *            16-byte alignment may split it into 4 scalar accesses,
 *            which would defeat the point of this rung.
 * Change:    rung vec2 moves 8 bytes per access; here each moves a uint4,
 *            16 bytes, the widest load a GPU's load unit serves in one
 *            instruction, and the n % 4 tail words are copied by one
 *            work-item.
 * Why:       4 times fewer load/store instructions (and address computations)
 *            for the same bytes, so fewer instructions in flight are needed
 *            to cover the same bytes in flight; with ILP vectors per
 *            work-item each item has ILP * 16 bytes outstanding. Like ILP,
 *            this pays off mainly when occupancy cannot hide latency.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef ILP
#define ILP 4
#endif
#if ILP != 1 && ILP != 2 && ILP != 4 && ILP != 8 && ILP != 16
#error "copy/vec4: ILP must be 1, 2, 4, 8 or 16"
#endif

__kernel void copy(const __global uint *restrict src, __global uint *restrict dst, const int n)
{
    const __global uint4 *restrict src4 = (const __global uint4 *)src;
    __global uint4 *restrict dst4 = (__global uint4 *)dst;
    const int nv = n / 4;
    const int bs = get_local_size(0);
    const int tid = get_local_id(0) + get_group_id(0) * bs * ILP;
    uint4 r[ILP];

#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int v = tid + j * bs;
        r[j] = (v < nv) ? src4[v] : (uint4)(0);
    }
#pragma unroll
    for (int j = 0; j < ILP; j++) {
        const int v = tid + j * bs;
        if (v < nv)
            dst4[v] = r[j];
    }

    if (get_global_id(0) == 0) {
        for (int e = 4 * nv; e < n; e++)
            dst[e] = src[e];
    }
}
