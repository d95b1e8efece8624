/*
 * Rung 03: a histogram per sub-group.
 *
 * Computes   bins = the histogram of x[0 .. n) in BINS even bins, as rung 01.
 * Geometry:  rung 02's: hist_clear, then G = min(GPC * compute units,
 *            div_up(n, WG)) work-groups of WG striding over the bytes.
 * Change:    in rung 02 all WG work-items of a group count into one
 *            histogram, so where the data is skewed the whole group meets
 *            at one counter and its atomics are served one after the
 *            other. Here the group keeps a histogram per 32 work-items (a
 *            sub-group: a warp on NVIDIA GPUs), WG / 32 copies in local
 *            memory, each a row of BINS + 1 counters (the extra one moves
 *            each copy's counters to other banks, so copies counting the
 *            same bin do not meet in one bank either). At most 32
 *            work-items now contend for a counter, not WG; at the end each
 *            bin's copies are added up and sent to global memory once.
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
#error "03_subgroup: BINS must be in 1..256"
#endif
#define BIN(v) ((uint)(v) * BINS >> 8)
#define COPIES (WG < 32 ? 1 : WG / 32) /* one histogram per 32 work-items */
#define ROW (BINS + 1)                  /* a copy's counters, one spare to shift the banks */

__kernel void hist_clear(__global uint *bins)
{
    if (get_global_id(0) < BINS)
        bins[get_global_id(0)] = 0;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
histogram(const __global uchar *restrict x, __global uint *bins, const int n)
{
    __local uint h[COPIES * ROW];
    const uint tid = get_local_id(0);
    const uint mine = (tid / 32) * ROW; /* this work-item's copy */
    for (uint k = tid; k < COPIES * ROW; k += WG)
        h[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < (uint)n; i += get_global_size(0))
        atomic_add(&h[mine + BIN(x[i])], 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = tid; b < BINS; b += WG) {
        uint sum = 0;
        for (uint c = 0; c < COPIES; c++)
            sum += h[c * ROW + b];
        if (sum)
            atomic_add(&bins[b], sum);
    }
}
