/*
 * Rung 01: one global atomic per byte.
 *
 * Computes   bins[b] = the number of bytes x[i] (i < n) with
 *            x[i] * BINS / 256 == b, for b < BINS (BINS even bins over
 *            the byte's 256 values, as CUB's HistogramEven makes them).
 * Geometry:  two launches: hist_clear sets bins[0 .. BINS) to 0 (global size
 *            BINS rounded up to WG), then histogram, 1-D, local size WG,
 *            one work-item per byte: div_up(n, WG) work-groups.
 * Change:    the first rung. Each work-item reads its byte and adds one to
 *            its bin in global memory with atomic_add. The additions to
 *            one bin are serialized where they meet, in the memory system
 *            (the L2 cache on a GPU): with 256 bins and uniform bytes few
 *            work-items meet at once, but skewed data sends most of them
 *            to one address, and every byte costs a round trip to the L2.
 * Sizes:     any n >= 1, BINS 1..256.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#ifndef BINS
#define BINS 256
#endif
#if BINS < 1 || BINS > 256
#error "01_global_atomics: BINS must be in 1..256"
#endif
#define BIN(v) ((uint)(v) * BINS >> 8)

__kernel void hist_clear(__global uint *bins)
{
    if (get_global_id(0) < BINS)
        bins[get_global_id(0)] = 0;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
histogram(const __global uchar *restrict x, __global uint *bins, const int n)
{
    const uint i = get_global_id(0);
    if (i < (uint)n)
        atomic_add(&bins[BIN(x[i])], 1u);
}
