/*
 * Peak: copy bandwidth (BabelStream "Copy", clpeak "global memory
 * bandwidth"): dst[i] = src[i] for the n vector elements i < n.
 *
 * Element:   V = uint (VEC == 1) or uintVEC; n counts V elements, so the
 *            kernel moves n * VEC * 4 bytes read plus as many written.
 *            uint keeps the check bit-exact.
 * Geometry:  1-D, any local size WG (host), no global offset. Global size
 *            G = round_up(ceil(n / EPI), WG). Work-item gid copies the
 *            elements i = gid + j * G for j = 0 .. EPI - 1 with i < n
 *            (grid-stride). Needs n + EPI * WG < 2^31 (int indices).
 * Macros:    VEC (default 1; 1, 2, 4, 8 or 16): vector width of V.
 *            EPI (default 4; 1 .. 64): elements per work-item.
 * Why:       grid-stride rather than EPI consecutive elements per item:
 *            for each j, neighbouring work-items touch neighbouring
 *            elements, so every load and store is coalesced. The j loop is
 *            unrolled and split into a load phase (EPI independent loads
 *            into registers) and a store phase, so all EPI loads of a
 *            work-item are in flight at once instead of each store waiting
 *            for its load before the next load issues: more bytes in
 *            flight per work-item, which is what saturates DRAM (Little's
 *            law). The register array costs EPI * VEC uints per work-item;
 *            on GPUs keep EPI * VEC <= ~64 or it spills / cuts occupancy.
 *            Guards: an element i >= n is neither loaded nor stored. With
 *            G close to n / EPI only the last stripe (j = EPI - 1) has such
 *            elements; for small n, where G is rounded up to WG, earlier
 *            stripes do too.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef VEC
#define VEC 1
#endif
#ifndef EPI
#define EPI 4
#endif
#if EPI < 1 || EPI > 64
#error "bw_copy: EPI (elements per work-item) must be 1 .. 64"
#endif

#if VEC == 1
typedef uint V;
#elif VEC == 2
typedef uint2 V;
#elif VEC == 4
typedef uint4 V;
#elif VEC == 8
typedef uint8 V;
#elif VEC == 16
typedef uint16 V;
#else
#error "VEC must be 1, 2, 4, 8 or 16"
#endif

__kernel void bw_copy(const __global V *restrict src, __global V *restrict dst, const int n)
{
    const int gid = get_global_id(0);
    const int G = get_global_size(0);
    V r[EPI];

#pragma unroll
    for (int j = 0; j < EPI; j++) {
        const int i = gid + j * G;
        r[j] = (i < n) ? src[i] : (V)(0);
    }
#pragma unroll
    for (int j = 0; j < EPI; j++) {
        const int i = gid + j * G;
        if (i < n)
            dst[i] = r[j];
    }
}
