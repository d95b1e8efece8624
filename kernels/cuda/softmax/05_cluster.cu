/*
 * Rung 05: a cluster of blocks per row, its statistics merged over
 * distributed shared memory.
 *
 * Computes   y = op(x) row by row, as rung 01.
 * Geometry:  1-D: CL blocks of NT threads per row (a thread-block cluster:
 *            __cluster_dims__), nrows * CL blocks in all; VS * NT vectors
 *            of 4 stored elements (16 bytes of floats, 8 of halfs or bf16s)
 *            of dynamic shared memory a block.
 * Change:    rung 04 holds a row in one work-group's registers, at most
 *            4 * V * NT elements (32k floats at 1024 threads of 8 vectors):
 *            a longer row streams and is read twice, and a long row held
 *            whole fills an SM alone. Here a row is split among the CL
 *            blocks of a cluster, each on its own SM, each holding its
 *            share as it is stored: V vectors a thread in registers (halfs
 *            and bf16s as their 16 bits packed two a word: 16 vectors
 *            take the 32 registers 8 vectors of floats take) and, where
 *            the registers of 8 blocks are not enough, VS more in shared
 *            memory, copied there by cp.async without passing through
 *            registers. Each pass widens what it reads to float; softmax
 *            takes exp(x - max) again as it writes, in place of holding
 *            it. So two blocks (two rows' shares) fit an SM, one loading
 *            while the other merges, and a row of up to
 *            4 * (V + VS) * NT * CL elements is read once and written once
 *            (256k halfs on 8 blocks of 512 threads holding 16 + 0, 256k
 *            floats on 8 holding 8 + 8); more streams as in rung 04. Each
 *            block merges its threads' statistics (kl_row_group) and sends
 *            them to every block of the cluster, itself included (st.async
 *            into the peer's shared memory, completing on the peer's
 *            mbarrier: the SMs' own network, no trip through L2 or DRAM);
 *            each block waits on its own mbarrier, merges the CL in rank
 *            order (so every block gets the same bits) and writes its
 *            share. No cluster-wide barrier stands between loading and
 *            writing: the one there is, arrived at on entry, is waited on
 *            before the first send, so that every peer's mbarrier is
 *            initialised. Sm_90a only.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  CUDA (compute capability 9.0).
 */
#include "../prelude.cuh"
#include "../../opencl/prelude.cl"

/* a / b (b > 0, finite) as the reciprocal's approximation and one correction: within an ulp
   of the quotient, and without IEEE division's slow path, a call around which ptxas spilled
   held vectors (float layer norm on 8 blocks of 8 + 8: 124 bytes of spill stores, 52 so;
   1.15x as fast on an H100). */
static __device__ __forceinline__ float row_div(const float a, const float b)
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
    const float q = a * r;
    return fmaf(fmaf(-b, q, a), r, q);
}
#define KL_ROW_DIV(a, b) row_div(a, b)
#include "../../opencl/softmax/row.h"
#include "../gemm/hopper.cuh"

#ifndef NT
#define NT 512
#endif
#ifndef V
#define V 8
#endif
#ifndef VS
#define VS 0
#endif
#ifndef CL
#define CL 8
#endif
#if CL < 1 || CL > 8
#error "05_cluster: CL must be in 1..8 (a portable cluster)"
#endif

/* Four elements as they are stored: floats, or the bits of halfs or bf16s packed two a
   32-bit word (element 0 in the low half of x), so that a register holds two. */
#if defined(KL_T_HALF) || defined(KL_T_BF16)
#define KL_PACKED 1
typedef uint2 raw4;
#else
#define KL_PACKED 0
typedef float4 raw4;
#endif

#if defined(KL_T_HALF)
/* Two halfs of a word as floats (its low half first). */
static __device__ __forceinline__ float2 widen2(const uint w)
{
    float lo, hi;
    asm("{\n.reg .f16 l, h;\nmov.b32 {l, h}, %2;\ncvt.f32.f16 %0, l;\ncvt.f32.f16 %1, h;\n}"
        : "=f"(lo), "=f"(hi)
        : "r"(w));
    return float2(lo, hi);
}
#elif defined(KL_T_BF16)
/* Two bf16s of a word as floats: each is its float's upper half (one instruction each). */
static __device__ __forceinline__ float2 widen2(const uint w)
{
    return float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}
#endif

static __device__ __forceinline__ float4 widen(const raw4 w)
{
#if KL_PACKED
    const float2 a = widen2(w.x), b = widen2(w.y);
    return float4(a.x, a.y, b.x, b.y);
#else
    return w;
#endif
}

/* Vector k of a row as stored: one access where every row starts on a whole vector. */
static __device__ __forceinline__ raw4 load_raw(const TA *row, int k, int aligned)
{
    if (aligned)
        return ((const raw4 *)row)[k];
#if KL_PACKED
    const ushort *e = (const ushort *)row + 4 * (size_t)k;
    return raw4(e[0] | (uint)e[1] << 16, e[2] | (uint)e[3] << 16);
#else
    const float *e = (const float *)row + 4 * (size_t)k;
    return raw4(e[0], e[1], e[2], e[3]);
#endif
}

/* Vector k of an aligned row into shared memory at dst by cp.async (no register holds it). */
static __device__ __forceinline__ void stash_async(raw4 *dst, const TA *row, int k)
{
#if KL_PACKED
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_addr(dst)),
                 "l"((const raw4 *)row + k)
                 : "memory");
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)),
                 "l"((const raw4 *)row + k)
                 : "memory");
#endif
}

/* Every cp.async of this thread landed, and seen by it. */
static __device__ __forceinline__ void stash_wait()
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

/* The block's statistics (c, s, n) into slot `rank` of block `to`'s shared memory,
   completing bytes on its barrier at the same offset. */
static __device__ __forceinline__ void send_row(const float4 *slot, unsigned bar, unsigned to,
                                                kl_row r)
{
    asm volatile("{\n.reg .b32 at, b;\n"
                 "mapa.shared::cluster.u32 at, %0, %1;\n"
                 "mapa.shared::cluster.u32 b, %2, %1;\n"
                 "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [at], "
                 "{%3, %4, %5, %6}, [b];\n}\n" ::"r"(smem_addr(slot)),
                 "r"(to), "r"(bar), "f"(r.c), "f"(r.s), "f"(r.n), "f"(0.0f)
                 : "memory");
}

/* The merge of the cluster's statistics: softmax's rolled (unrolled, ptxas loaded all CL at
   once, 4 registers each beside the held vectors, and spilled held vectors for them: float, 8
   blocks of 8 + 8, 7 % slower on an H100); the norms', without an exp, as the compiler unrolls
   them (rolled, RMS norm's floats spilled instead). */
#if defined(OP_SOFTMAX)
#define MERGE_LOOP _Pragma("unroll 1")
#else
#define MERGE_LOOP
#endif

/* The block's share of row r, held, merged with its cluster's and written: ALIGNED where
   every row starts on a whole vector (cols a multiple of 4), so that each of the two has
   registers of its own. */
template <int ALIGNED>
static __device__ __forceinline__ void block_row(const TA *__restrict__ xr, TA *__restrict__ yr,
                                                 const int cols, const float gamma,
                                                 const float beta, const float eps, raw4 *stash,
                                                 kl_row *part, float4 *stats, u64 *got)
{
    const int lid = (int)threadIdx.x;
    const unsigned rank = cluster_rank();
    const int nvec = cols / 4, tail = cols - 4 * nvec;
    const int share = (nvec + CL - 1) / CL; /* vectors per block */
    const int first = (int)rank * share, end = min(nvec, first + share);
    /* the thread's held vectors: j < held holds vector first + j * NT + lid */
    const int held = end - first - lid > 0 ? min(V + VS, (end - first - lid + NT - 1) / NT) : 0;

    /* This block's share as stored: V vectors a thread in registers, VS in shared memory,
       the rest (if any) streamed. */
    raw4 v[V];
#pragma unroll
    for (int j = 0; j < VS; j++)
        if (V + j < held) {
            const int k = first + (V + j) * NT + lid;
            if (ALIGNED)
                stash_async(&stash[j * NT + lid], xr, k);
            else
                stash[j * NT + lid] = load_raw(xr, k, 0);
        }
#pragma unroll
    for (int j = 0; j < V; j++)
        v[j] = j < held ? load_raw(xr, first + j * NT + lid, ALIGNED) : raw4(0);
    stash_wait();
#define HELD(j) widen((j) < V ? v[(j) < V ? (j) : 0] : stash[((j) - V) * NT + lid])

    float c = KL_CENTER0;
#pragma unroll
    for (int j = 0; j < V + VS; j++)
        if (j < held)
            c = kl_center_add4(c, HELD(j));
    const float n = 4.0f * (float)held;
    c = kl_center_end(c, n);
    kl_row row = {c, 0.0f, n};
#pragma unroll
    for (int j = 0; j < V + VS; j++)
        if (j < held)
            row.s += kl_held_spread4(kl_hold4(HELD(j), c), c);
    for (int k = first + (V + VS) * NT + lid; k < end; k += NT)
        row = kl_row_add4(row, kl_load4(xr, k, ALIGNED));
    if (rank == CL - 1 && lid < tail)
        row = kl_row_add(row, LD(xr, 4 * nvec + lid));

    /* The block's statistics to every block, then the cluster's: all CL merged in rank order. */
    row = kl_row_group(row, part);
    cluster_wait();
    if (lid == 0)
        bar_arrive_tx(smem_addr(got), CL * (unsigned)sizeof(float4));
    if (lid < CL)
        send_row(&stats[rank], smem_addr(got), (unsigned)lid, row);
    bar_wait(smem_addr(got), 0);
    MERGE_LOOP
    for (int k = 0; k < CL; k++) {
        const kl_row b = {stats[k].x, stats[k].y, stats[k].z};
        row = k == 0 ? b : kl_row_merge(row, b);
    }

    const float2 f = kl_row_scale(row, gamma, beta, eps);
#pragma unroll
    for (int j = 0; j < V + VS; j++)
        if (j < held)
            kl_store4(kl_row_y4(HELD(j), row.c, f), yr, first + j * NT + lid, ALIGNED);
#undef HELD
    for (int k = first + (V + VS) * NT + lid; k < end; k += NT)
        kl_store4(kl_row_y4(kl_load4(xr, k, ALIGNED), row.c, f), yr, k, ALIGNED);
    if (rank == CL - 1 && lid < tail)
        ST(kl_row_y(LD(xr, 4 * nvec + lid), row.c, f), 4 * nvec + lid, yr);
}

extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(NT, NT <= 512 ? 2 : 1)
    softmax(const TA *__restrict__ x, TA *__restrict__ y, const int nrows, const int cols,
            const float gamma, const float beta, const float eps)
{
    extern __shared__ raw4 stash[]; /* VS * NT vectors: the held ones past the registers' */
    __shared__ kl_row part[NT + 1];
    __shared__ float4 stats[CL]; /* every block's statistics (c, s, n), sent by each */
    __shared__ __align__(8) u64 got; /* completes when all CL have arrived */
    const size_t r = blockIdx.x / CL;
    (void)nrows; /* CL blocks per row: there are nrows * CL */

    if (threadIdx.x == 0) {
        bar_init(smem_addr(&got), 1);
        bar_init_fence();
    }
    cluster_arrive_relaxed(); /* waited on before the first send: every barrier initialised */
    if (cols % 4 == 0)
        block_row<1>(x + r * cols, y + r * cols, cols, gamma, beta, eps, stash, part, stats, &got);
    else
        block_row<0>(x + r * cols, y + r * cols, cols, gamma, beta, eps, stash, part, stats, &got);
}
