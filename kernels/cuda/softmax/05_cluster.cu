/*
 * Rung 05: a cluster of blocks per row, its statistics merged over
 * distributed shared memory.
 *
 * Computes   y = op(x) row by row, as rung 01.
 * Geometry:  1-D: CL blocks of NT threads per row (a thread-block cluster:
 *            __cluster_dims__), nrows * CL blocks in all; VS * NT * 16
 *            bytes of dynamic shared memory a block.
 * Change:    rung 04 holds a row in one work-group's registers, at most
 *            4 * V * NT elements (32k floats at 1024 threads of 8 vectors):
 *            a longer row streams and is read twice, and a long row held
 *            whole fills an SM alone. Here a row is split among the CL
 *            blocks of a cluster, each on its own SM, each holding its
 *            share in registers as rung 04 holds a row. Each block merges
 *            its threads' statistics (kl_row_group) and leaves them in its
 *            shared memory; after a cluster barrier every block reads all
 *            CL of them from its peers' shared memory (mapa and
 *            ld.shared::cluster, the SMs' own network, no trip through
 *            L2 or DRAM), merges them in rank order (so every block gets
 *            the same bits) and writes its share. A second barrier keeps
 *            each block's shared memory alive until its peers have read
 *            it. A thread holds V vectors in registers and VS more in
 *            shared memory, so that two blocks (two rows' shares) fit an
 *            SM, one loading while the other waits at its cluster's
 *            barrier: a row of up to 4 * (V + VS) * NT * CL elements
 *            (256k floats with 8 blocks of 512 threads holding 8 + 8) is
 *            read once and written once; more streams as in rung 04.
 *            Sm_90a only.
 * Sizes:     any rows, cols >= 1.
 *
 * Backends:  CUDA (compute capability 9.0).
 */
#include "../prelude.cuh"
#include "../../opencl/prelude.cl"
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

/* Float i of the kl_row at the same place in the shared memory of the cluster's block rank. */
static __device__ __forceinline__ float peer_float(const kl_row *mine, int i, unsigned rank)
{
    unsigned remote;
    float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote)
                 : "r"(smem_addr(mine) + 4 * i), "r"(rank));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    return v;
}

extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(NT, NT <= 512 ? 2 : 1)
    softmax(const TA *__restrict__ x, TA *__restrict__ y, const int nrows, const int cols,
            const float gamma, const float beta, const float eps)
{
    extern __shared__ float4 stash[]; /* VS * NT vectors: the held ones past the registers' */
    __shared__ kl_row part[NT + 1];
    __shared__ kl_row block_row;
    const int lid = (int)threadIdx.x;
    const unsigned rank = cluster_rank();
    const size_t r = blockIdx.x / CL;
    const int nvec = cols / 4, tail = cols - 4 * nvec, aligned = tail == 0;
    const int share = (nvec + CL - 1) / CL; /* vectors per block */
    const int first = (int)rank * share, end = min(nvec, first + share);
    const TA *xr = x + r * cols;
    TA *yr = y + r * cols;
    (void)nrows; /* CL blocks per row: there are nrows * CL */

    /* This block's share, held as rung 04 holds a row: V vectors a thread in registers, VS in
       shared memory, the rest (if any) streamed. */
    float4 v[V];
    float c = KL_CENTER0, n = 0.0f;
#pragma unroll
    for (int j = 0; j < V + VS; j++) {
        const int k = first + j * NT + lid;
        const float4 w = k < end ? kl_load4(xr, k, aligned) : VEC4(float4, 0.0f, 0.0f, 0.0f, 0.0f);
        if (j < V)
            v[j] = w;
        else
            stash[(j - V) * NT + lid] = w;
    }
#pragma unroll
    for (int j = 0; j < V + VS; j++)
        if (first + j * NT + lid < end) {
            c = kl_center_add4(c, j < V ? v[j] : stash[(j - V) * NT + lid]);
            n += 4.0f;
        }
    c = kl_center_end(c, n);
    kl_row row = {c, 0.0f, n};
#pragma unroll
    for (int j = 0; j < V + VS; j++)
        if (first + j * NT + lid < end) {
            const float4 h = kl_hold4(j < V ? v[j] : stash[(j - V) * NT + lid], c);
            row.s += kl_held_spread4(h, c);
            if (j < V)
                v[j] = h;
            else
                stash[(j - V) * NT + lid] = h;
        }
    for (int k = first + (V + VS) * NT + lid; k < end; k += NT)
        row = kl_row_add4(row, kl_load4(xr, k, aligned));
    if (rank == CL - 1 && lid < tail)
        row = kl_row_add(row, LD(xr, 4 * nvec + lid));

    /* The block's statistics, then the cluster's: every block merges all CL in rank order. */
    row = kl_row_group(row, part);
    if (lid == 0)
        block_row = row;
    cluster_sync(); /* every block's statistics in its shared memory */
    for (unsigned k = 0; k < CL; k++) {
        kl_row b = {peer_float(&block_row, 0, k), peer_float(&block_row, 1, k),
                    peer_float(&block_row, 2, k)};
        row = k == 0 ? b : kl_row_merge(row, b);
    }
    cluster_sync(); /* no block leaves while a peer may still read its shared memory */

    const float2 f = kl_row_scale(row, gamma, beta, eps);
#pragma unroll
    for (int j = 0; j < V + VS; j++) {
        const int k = first + j * NT + lid;
        if (k < end)
            kl_store4(kl_held_y4(j < V ? v[j] : stash[(j - V) * NT + lid], c, row, f), yr, k,
                      aligned);
    }
    for (int k = first + (V + VS) * NT + lid; k < end; k += NT)
        kl_store4(kl_row_y4(kl_load4(xr, k, aligned), row.c, f), yr, k, aligned);
    if (rank == CL - 1 && lid < tail)
        ST(kl_row_y(LD(xr, 4 * nvec + lid), row.c, f), 4 * nvec + lid, yr);
}
