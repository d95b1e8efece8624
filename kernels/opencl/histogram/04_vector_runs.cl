/*
 * Rung 04: 16 bytes a load, and runs of one bin counted once.
 *
 * Computes   bins = the histogram of x[0 .. n) in BINS even bins, as rung 01.
 * Geometry:  rung 02's: hist_clear, then G = min(GPC * compute units,
 *            div_up(n / 16, WG)) work-groups of WG striding over the
 *            array's 16-byte pieces.
 * Change:    rung 03 loads one byte per work-item per turn (32 bytes a
 *            sub-group: a quarter of a 128-byte line), so the memory
 *            system sees many small requests, and it makes one local
 *            atomic per byte however the bytes repeat. Here a work-item
 *            loads 16 bytes at once (a uint4) and keeps a pending run: the
 *            bin it last met and how many bytes in a row fell in it. A byte
 *            of the same bin only lengthens the run; a byte of another bin
 *            adds the run to its copy's counter with one atomic and starts
 *            a new one. The run is carried from one load to the next and
 *            added at the end: on constant data a work-item makes one
 *            atomic in all, on data skewed to one value about one per run,
 *            on uniform bytes still about one per byte (runs of one).
 *            The bytes left after the last whole 16 (n % 16) are counted
 *            one at a time by the first work-items of the launch.
 * Sizes:     any n >= 1, BINS 1..256. x must be 16-byte aligned, as
 *            kladder's buffers are.
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
#error "04_vector_runs: BINS must be in 1..256"
#endif
#define BIN(v) ((uint)(v) * BINS >> 8)
#define COPIES (WG < 32 ? 1 : WG / 32) /* one histogram per 32 work-items */
#define ROW (BINS + 1)                  /* a copy's counters, one spare to shift the banks */

__kernel void hist_clear(__global uint *bins)
{
    if (get_global_id(0) < BINS)
        bins[get_global_id(0)] = 0;
}

/* Counts byte value v into the pending run (bin, count), adding the run to h when v ends it. */
#define COUNT(v)                                                                   \
    do {                                                                           \
        const uint b_ = BIN(v);                                                    \
        if (b_ != bin) {                                                           \
            if (count)                                                             \
                atomic_add(&h[mine + bin], count);                                 \
            bin = b_;                                                              \
            count = 0;                                                             \
        }                                                                          \
        count++;                                                                   \
    } while (0)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
histogram(const __global uchar *restrict x, __global uint *bins, const int n)
{
    __local uint h[COPIES * ROW];
    const uint tid = get_local_id(0), gid = get_global_id(0), stride = get_global_size(0);
    const uint mine = (tid / 32) * ROW; /* this work-item's copy */
    const uint n16 = (uint)n / 16;
    uint bin = 0, count = 0;
    for (uint k = tid; k < COPIES * ROW; k += WG)
        h[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = gid; q < n16; q += stride) {
        const uint4 w = ((const __global uint4 *)x)[q];
        const uint words[4] = {w.x, w.y, w.z, w.w};
        for (int j = 0; j < 4; j++)
            for (int s = 0; s < 32; s += 8)
                COUNT((words[j] >> s) & 0xffu);
    }
    for (uint i = 16 * n16 + gid; i < (uint)n; i += stride)
        COUNT(x[i]);
    if (count)
        atomic_add(&h[mine + bin], count);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = tid; b < BINS; b += WG) {
        uint sum = 0;
        for (uint c = 0; c < COPIES; c++)
            sum += h[c * ROW + b];
        if (sum)
            atomic_add(&bins[b], sum);
    }
}
