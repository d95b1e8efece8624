/*
 * Peak: read bandwidth (clpeak "global memory bandwidth", read-only):
 * sums the n vector elements of src and writes one partial sum per
 * work-item.
 *
 * Computes   partial[gid] = sum over the elements i = gid + j * G
 *            (j = 0 .. chunks * EPI - 1, i < n) of all VEC components of src[i],
 *            in uint arithmetic (wraps mod 2^32, so any order is exact).
 *            Work-items with no element write 0. The host checks
 *            sum(partial[0 .. G-1]) == sum(src) mod 2^32, so the loads
 *            cannot be optimised away.
 * Element:   V = uint (VEC == 1) or uintVEC; n counts V elements (n * VEC
 *            * 4 bytes read; the G * 4 bytes of partials are negligible
 *            when EPI * VEC is not tiny).
 * Geometry:  1-D, any local size WG (host), no global offset. Either one
 *            pass (chunks = 1, G = round_up(ceil(n / EPI), WG)) or a
 *            persistent grid (G the work-items the device holds at once,
 *            chunks = ceil(n / (G * EPI)): each work-item loops, EPI loads in
 *            flight per chunk, with no work-group started after the first
 *            wave). partial holds G uints (every work-item writes exactly its
 *            own partial[gid]). Needs n + EPI * G < 2^31 (int indices).
 * Macros:    VEC (default 1; 1, 2, 4, 8 or 16): vector width of V.
 *            EPI (default 4; 1 .. 64): elements per work-item and chunk.
 *            NV_LOAD (NVIDIA, VEC 4): loads by PTX through the read-only
 *            path with L1::no_allocate and an L2::256B prefetch hint.
 * Arguments: src, partial, n, chunks (>= 1).
 * Why:       same grid-stride pattern as bw_copy (coalesced loads, EPI
 *            independent loads in flight per work-item: all loads are
 *            issued before the additions that depend on them). A
 *            reduction to a single value would need atomics or a second
 *            pass; one uint per work-item is cheap and race-free. The
 *            vector components are then added one by one (uint arithmetic:
 *            any order gives the same result; the compiler may reassociate
 *            it into a tree). Written with .sN rather than lo + hi halves:
 *            Oclgrind 21.10's --uninitialized check reports a false
 *            positive on the chained lo/hi halving of a uint16.
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
#error "bw_read: EPI (elements per work-item) must be 1 .. 64"
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

/* Element i of src, or zeros past n. */
#if defined(NV_LOAD) && VEC == 4
/* Through the read-only path, not kept in L1, asking L2 for 256-byte sectors (PTX). */
inline uint4 load(const __global uint4 *restrict src, const int i, const int n)
{
    uint x = 0, y = 0, z = 0, w = 0;
    if (i < n)
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "l"(src + i));
    return VEC4(uint4, x, y, z, w);
}
#else
#define load(src, i, n) ((i) < (n) ? (src)[i] : (V)(0))
#endif

__kernel void bw_read(const __global V *restrict src, __global uint *restrict partial, const int n,
                      const int chunks)
{
    const int gid = get_global_id(0);
    const int G = get_global_size(0);
    V acc = (V)(0), r[EPI];
#pragma unroll
    for (int j = 0; j < EPI; j++)
        r[j] = load(src, gid + j * G, n);
    /* The next chunk's loads go out before this chunk's additions wait for theirs. */
    for (int c = 1; c <= chunks; c++) {
        V next[EPI];
#pragma unroll
        for (int j = 0; j < EPI; j++)
            next[j] = c < chunks ? load(src, gid + (c * EPI + j) * G, n) : (V)(0);
#pragma unroll
        for (int j = 0; j < EPI; j++) {
            acc += r[j];
            r[j] = next[j];
        }
    }

#if VEC == 16
    const uint s = acc.s0 + acc.s1 + acc.s2 + acc.s3 + acc.s4 + acc.s5 + acc.s6 + acc.s7 + acc.s8 +
                   acc.s9 + acc.sa + acc.sb + acc.sc + acc.sd + acc.se + acc.sf;
#elif VEC == 8
    const uint s = acc.s0 + acc.s1 + acc.s2 + acc.s3 + acc.s4 + acc.s5 + acc.s6 + acc.s7;
#elif VEC == 4
    const uint s = acc.s0 + acc.s1 + acc.s2 + acc.s3;
#elif VEC == 2
    const uint s = acc.s0 + acc.s1;
#else
    const uint s = acc;
#endif
    partial[gid] = s;
}
