/*
 * Rung 06: tiles copied by the tensor memory accelerator (TMA), both ways.
 *
 * Computes   b = the transpose of a (out of place): b[j * m + i] = a[i * n + j]
 *            for an m x n matrix a, row-major, of 2-, 4- or 8-byte elements.
 * Geometry:  1-D: NT threads a block, each block TILES square tiles of
 *            T = 128 / sizeof(element) elements (one 128-byte row of a box)
 *            down a column of tiles; rows of a and of b must be whole
 *            multiples of 16 bytes (TMA's rule for a row pitch).
 * Change:    rung 05 moves the tile with loads and stores that every
 *            work-item issues, 16 bytes each, and computes every address.
 *            Here one thread asks the TMA unit for TILES boxes of a (one
 *            instruction each, a tensor map describing a), and the unit
 *            writes them into shared memory in TMA's 128-byte swizzle,
 *            counting the bytes on an mbarrier the block waits on. The
 *            threads only transpose inside shared memory, from one
 *            swizzled box into another, and one thread hands those to
 *            the TMA unit to store into b. The edges cost nothing: TMA
 *            fills what lies outside a with zeros and leaves what lies
 *            outside b unwritten. Sm_90a only.
 * Sizes:     m, n >= 1 with m * size and n * size multiples of 16 bytes;
 *            out of place.
 *
 * Backends:  CUDA (compute capability 9.0).
 */
#include "../gemm/hopper.cuh"

#if defined(KL_T_DOUBLE)
typedef unsigned long long E;
#elif defined(KL_T_HALF) || defined(KL_T_BF16)
typedef unsigned short E;
#else
typedef unsigned E;
#endif
#ifndef TILES
#define TILES 4
#endif
#ifndef NT
#define NT 128
#endif
#define T ((int)(128 / sizeof(E))) /* a tile's side: one 128-byte row of a box */
#define BOX (T * 128)              /* a box's bytes */

/*
 * The byte of element (r, c) in a box of 128-byte rows as TMA's 128-byte
 * swizzle lays it out: the 16-byte chunk j of row r at chunk j ^ (r % 8).
 */
static __device__ __forceinline__ unsigned at(int r, int c)
{
    const unsigned byte = (unsigned)c * sizeof(E);
    return (unsigned)r * 128 + ((((byte >> 4) ^ (unsigned)r) & 7) << 4) + (byte & 15);
}

/* The box in shared memory at src into map's tensor at (x, y); a bulk group of its own. */
static __device__ __forceinline__ void tma_store(const tensor_map *map, unsigned src, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::
                     "l"(map),
                 "r"(src), "r"(x), "r"(y)
                 : "memory");
}

/* Waits until the bulk stores so far have read their shared memory. */
static __device__ __forceinline__ void tma_store_wait()
{
    asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/*
 * ta: a as rows of n * sizeof(E) bytes (boxes of T rows by 128 bytes); tb: b
 * likewise, n rows of m * sizeof(E) bytes. Dynamic shared memory: 2 * TILES
 * boxes and 1 KiB to align them (the swizzle repeats every 1024 bytes).
 */
extern "C" __global__ void __launch_bounds__(NT)
    transpose(const __grid_constant__ tensor_map ta, const __grid_constant__ tensor_map tb,
              const int m, const int n)
{
    extern __shared__ unsigned char dynamic[];
    __shared__ __align__(8) unsigned long long full;
    unsigned char *in = (unsigned char *)(((size_t)dynamic + 1023) & ~(size_t)1023);
    unsigned char *out = in + TILES * BOX;
    const int tiles_m = (m + T - 1) / T, stacks = (tiles_m + TILES - 1) / TILES;
    const int tc = (int)blockIdx.x / stacks, tr = (int)blockIdx.x % stacks * TILES;
    const int count = tiles_m - tr < TILES ? tiles_m - tr : TILES; /* tiles of this block */
    const unsigned bar = smem_addr(&full);
    (void)n;
    if (threadIdx.x == 0) {
        bar_init(bar, 1);
        bar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) { /* x counts bytes along a row, y rows */
        bar_arrive_tx(bar, (unsigned)(count * BOX));
        for (int t = 0; t < count; t++)
            tma_load(smem_addr(in + t * BOX), &ta, tc * 128, (tr + t) * T, bar);
    }
    bar_wait(bar, 0);
    /* row r of b's tile t is column r of a's: element (r, c) of it is a's (c, r) */
    for (int i = threadIdx.x; i < count * T * T; i += NT) {
        const int t = i / (T * T), r = i / T % T, c = i % T;
        *(E *)(out + t * BOX + at(r, c)) = *(const E *)(in + t * BOX + at(c, r));
    }
    fence_async_shared(); /* the writes above, before the TMA unit reads them */
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int t = 0; t < count; t++)
            tma_store(&tb, smem_addr(out + t * BOX), (tr + t) * 128, tc * T);
        tma_store_wait(); /* the block's shared memory must outlive the stores' reads */
    }
}
