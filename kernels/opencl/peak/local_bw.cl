/*
 * Peak: local (shared) memory bandwidth. Each work-group fills a __local
 * array from a hash, then every work-item reads it over and over at
 * addresses that move with the loop, and sums what it read.
 *
 * Computes   for work-item lid of group g (global id gid, WG work-items a
 *            group), with NV = LWORDS / VEC vectors of VEC uints:
 *              buf[e] component c = lw_hash(g * LWORDS + e * VEC + c, seed)
 *              out[gid] = sum over r = 0 .. 4 * iters - 1 of the VEC
 *                         components of buf[(lid + r * WG) mod NV]
 *            in uint arithmetic (mod 2^32: any order of the additions
 *            gives the same sum). Indices are uint and wrap mod 2^32, which
 *            NV (a power of two) divides, so the wrap changes nothing.
 * Exactness: integers only. The host recomputes out[] for sampled
 *            work-items (first, last and some between) bit for bit; a
 *            kernel that skipped loads, filled the array wrong or read it
 *            before the barrier gets other numbers.
 * Why:       each loop trip makes four independent loads into four
 *            accumulators (no add chain limits the loads). At trip r the
 *            work-items of a warp read consecutive vectors: conflict-free
 *            for 4-, 8- and 16-byte words alike. The address moves with r,
 *            so no load repeats its predecessor's and none can be hoisted.
 *            16 KiB a group fits NVIDIA's OpenCL (48 KiB) and CUDA's
 *            static shared memory, and eight groups fit an H100 SM.
 * Geometry:  1-D, any local size WG (a power of two at most NV keeps the
 *            reads conflict-free; any size is correct); global size a
 *            multiple of WG; out holds one uint per work-item.
 * Macros:    VEC (default 4; 1, 2 or 4): the width of one read.
 *            LWORDS (default 4096; a power of two, 64 .. 8192): the array,
 *            in uints.
 * Arguments: out, iters (trips of four reads; the host calibrates it without
 *            building again), seed.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef VEC
#define VEC 4
#endif
#ifndef LWORDS
#define LWORDS 4096
#endif
#if LWORDS < 64 || LWORDS > 8192 || (LWORDS & (LWORDS - 1)) != 0
#error "local_bw: LWORDS must be a power of two, 64 .. 8192"
#endif
#define NV (LWORDS / VEC)

/* The array's words: a cheap integer hash of the word's number and the seed. */
inline uint lw_hash(uint x, uint seed)
{
    x = (x * 0x9E3779B1u) ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    return x;
}

#if VEC == 1
typedef uint V;
#define LW_MAKE(w, s) lw_hash((w), (s))
#define LW_SUM(v) (v)
#elif VEC == 2
typedef uint2 V;
#define LW_MAKE(w, s) VEC2(uint2, lw_hash((w), (s)), lw_hash((w) + 1u, (s)))
#define LW_SUM(v) ((v).s0 + (v).s1)
#elif VEC == 4
typedef uint4 V;
#define LW_MAKE(w, s)                                                                              \
    VEC4(uint4, lw_hash((w), (s)), lw_hash((w) + 1u, (s)), lw_hash((w) + 2u, (s)),                 \
         lw_hash((w) + 3u, (s)))
#define LW_SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#else
#error "local_bw: VEC must be 1, 2 or 4"
#endif

__kernel void local_bw(__global uint *restrict out, const int iters, const uint seed)
{
    __local V buf[NV];
    const uint lid = (uint)get_local_id(0), wg = (uint)get_local_size(0);
    const uint base = (uint)get_group_id(0) * (uint)LWORDS;

    for (uint e = lid; e < (uint)NV; e += wg)
        buf[e] = LW_MAKE(base + e * (uint)VEC, seed);
    barrier(CLK_LOCAL_MEM_FENCE);

    V a0 = (V)(0), a1 = (V)(0), a2 = (V)(0), a3 = (V)(0);
    uint r = lid; /* lid + (reads so far) * WG */
    for (int it = 0; it < iters; it++) {
        /* Copies first, then the sums: each read is one load of the whole vector on
         * CUDA too (an operator reading through a reference loads element by element). */
        const V v0 = buf[r & (uint)(NV - 1)];
        const V v1 = buf[(r + wg) & (uint)(NV - 1)];
        const V v2 = buf[(r + 2u * wg) & (uint)(NV - 1)];
        const V v3 = buf[(r + 3u * wg) & (uint)(NV - 1)];
        a0 += v0;
        a1 += v1;
        a2 += v2;
        a3 += v3;
        r += 4u * wg;
    }
    const V s = a0 + a1 + a2 + a3;
    out[get_global_id(0)] = LW_SUM(s);
}
