/*
 * Peak: write bandwidth (BabelStream "Init"-like, write-only): fills the
 * n vector elements of dst with pseudo-random data.
 *
 * Computes   component c (0 .. VEC-1) of dst[i], i < n, is
 *            kl_hash((uint)i * VEC + c, seed), i.e. uint element
 *            e = i * VEC + c of the buffer gets kl_hash(e, seed), with
 *            (all uint arithmetic, wrapping mod 2^32; the same in C):
 *
 *                static uint kl_hash(uint x, uint seed)
 *                {
 *                    x = (x * 0x9E3779B1u) ^ seed;
 *                    x ^= x >> 16;
 *                    x *= 0x7FEB352Du;
 *                    x ^= x >> 15;
 *                    return x;
 *                }
 *
 *            Every step is a bijection of uint, so distinct elements get
 *            distinct values (the data is not compressible), and it costs
 *            7 integer ops per uint: memory-bound even at several TB/s.
 * Element:   V = uint (VEC == 1) or uintVEC; n counts V elements (n * VEC
 *            * 4 bytes written, nothing read).
 * Geometry:  1-D, any local size WG (host), no global offset. Global size
 *            G = round_up(ceil(n / EPI), WG). Work-item gid writes the
 *            elements i = gid + j * G for j = 0 .. EPI - 1 with i < n.
 *            Needs n + EPI * WG < 2^31 (int indices).
 * Macros:    VEC (default 1; 1, 2, 4, 8 or 16): vector width of V.
 *            EPI (default 4; 1 .. 64): elements per work-item.
 * Why:       grid-stride for coalesced stores, as in bw_copy. A constant
 *            fill could be served by compressing memory controllers or
 *            turned into a memset; hashing the index prevents both and is
 *            still cheap. The hash is computed on the whole vector at once
 *            (the operations are component-wise), index lane c = base + c.
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
#error "bw_fill: EPI (elements per work-item) must be 1 .. 64"
#endif

#if VEC == 1
typedef uint V;
#define KL_LANES 0u
#elif VEC == 2
typedef uint2 V;
#define KL_LANES VEC2(uint2, 0, 1)
#elif VEC == 4
typedef uint4 V;
#define KL_LANES VEC4(uint4, 0, 1, 2, 3)
#elif VEC == 8
typedef uint8 V;
#define KL_LANES VEC8(uint8, 0, 1, 2, 3, 4, 5, 6, 7)
#elif VEC == 16
typedef uint16 V;
#define KL_LANES VEC16(uint16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#else
#error "VEC must be 1, 2, 4, 8 or 16"
#endif

__kernel void bw_fill(__global V *restrict dst, const int n, const uint seed)
{
    const int gid = get_global_id(0);
    const int G = get_global_size(0);

#pragma unroll
    for (int j = 0; j < EPI; j++) {
        const int i = gid + j * G;
        if (i < n) {
            V x = (V)((uint)i * VEC) + KL_LANES; /* uint element indices */
            x = (x * 0x9E3779B1u) ^ seed;        /* kl_hash, component-wise */
            x ^= x >> 16;
            x *= 0x7FEB352Du;
            x ^= x >> 15;
            dst[i] = x;
        }
    }
}
