/*
 * Rung 02: a histogram per work-group in local memory.
 *
 * Computes   bins = the histogram of x[0 .. n) in BINS even bins, as rung 01.
 * Geometry:  two launches: hist_clear, then histogram, 1-D, local size WG,
 *            G = min(GPC * compute units, div_up(n, WG)) work-groups
 *            striding over the bytes.
 * Change:    rung 01 sends every byte to global memory. Here each
 *            work-group keeps a private histogram of BINS counters in local
 *            memory (on chip), counts its bytes there with local atomics
 *            (a few cycles, where a global atomic is a round trip to the
 *            L2), and adds each non-zero counter to the global histogram
 *            once at the end: BINS global atomics per work-group instead of
 *            one per byte. A work-group no longer takes one byte per
 *            work-item but strides over the array (the resident groups,
 *            GPC per compute unit), so that the private histogram, cleared
 *            and merged once, counts many bytes.
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
#error "02_local: BINS must be in 1..256"
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
    __local uint h[BINS];
    const uint tid = get_local_id(0);
    for (uint b = tid; b < BINS; b += WG)
        h[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < (uint)n; i += get_global_size(0))
        atomic_add(&h[BIN(x[i])], 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = tid; b < BINS; b += WG)
        if (h[b])
            atomic_add(&bins[b], h[b]);
}
