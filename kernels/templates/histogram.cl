/*
 * A histogram kernel of your own: bins[b] = the number of bytes x[i]
 * (i < n) with x[i] * BINS / 256 == b, for b < BINS (even bins over the
 * byte's 256 values; --bins sets BINS, 2 to 256). Run it beside the ladder:
 *   kladder histogram --kernel histogram.cl
 * The interface (docs/KERNELS.md): bins holds BINS counters, all 0 before
 * each launch (kladder clears them); add to them with atomics.
 *
 * kladder: workload histogram
 * kladder: summary template: a private histogram per work-group in local memory, merged once
 * kladder: global WG*64
 * kladder: local WG
 * kladder: param WG 256 1..1024 pow2 -- work-group size
 */
__kernel void histogram(const __global uchar *x, __global uint *bins, const int n)
{
    __local uint h[BINS];
    const uint tid = get_local_id(0);
    for (uint b = tid; b < BINS; b += WG)
        h[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < (uint)n; i += get_global_size(0))
        atomic_add(&h[(uint)x[i] * BINS / 256], 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = tid; b < BINS; b += WG)
        if (h[b])
            atomic_add(&bins[b], h[b]);
}
