/*
 * Rung 03: three phases over many work-groups: reduce, scan the sums, scan
 * and add.
 *
 * Computes   y = the inclusive (or, -DKL_EXCLUSIVE, exclusive) prefix sums
 *            of x[0 .. n), as rung 01.
 * Geometry:  three launches, 1-D, local size WG, over tiles of
 *            TILE = WG*PER elements, G = div_up(n, TILE) of them:
 *            tile_sums (G groups) writes each tile's sum to state[g];
 *            scan_sums (one group) scans state[0 .. G) in place
 *            (exclusive); scan (G groups) scans each tile and adds
 *            state[g]. state holds G values of R.
 * Change:    rungs 01 and 02 run on one compute unit. Here every tile is
 *            a work-group of its own, all at once, in three launches: the
 *            first sums each tile, the second scans those G sums (one
 *            group: they are few), the third scans each tile again and
 *            adds the sum of the tiles before it. The input is read twice
 *            and the output written once: 3n words moved where a scan
 *            needs 2n. Each work-item now takes PER consecutive elements
 *            of its tile, staged through local memory so that the loads
 *            from global memory stay coalesced: it scans its own PER in
 *            order (PER - 1 additions, no barrier), and only the WG
 *            work-items' totals go through rung 02's tree, which so has
 *            PER times fewer levels of idle work-items per element. Left
 *            for later: reading a work-item's PER consecutive values from
 *            local memory is a PER-way bank conflict.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "03_three_phase: WG must be a power of two in 1..1024"
#endif
#ifndef PER
#define PER 8
#endif
#if PER < 1 || PER > 32
#error "03_three_phase: PER (elements per work-item) must be in 1..32"
#endif
#define TILE (WG * PER)

/* Scans t[0 .. TILE) in place (exclusive) and returns its total: each work-item its PER
   values in order, then Blelloch's tree over the WG totals in sums[]. */
R tile_scan(KL_LOCAL_ARG R *t, KL_LOCAL_ARG R *sums)
{
    const uint tid = get_local_id(0);
    R acc = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < PER; j++) {
        const R v = t[tid * PER + j];
        t[tid * PER + j] = acc;
        acc += v;
    }
    sums[tid] = acc;
    uint span = 1;
    for (uint d = WG / 2; d > 0; d >>= 1, span <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d)
            sums[span * (2 * tid + 2) - 1] += sums[span * (2 * tid + 1) - 1];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const R total = sums[WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid == 0)
        sums[WG - 1] = 0;
    for (uint d = 1; d < WG; d <<= 1) {
        span >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < d) {
            const uint left = span * (2 * tid + 1) - 1, right = span * (2 * tid + 2) - 1;
            const R v = sums[left];
            sums[left] = sums[right];
            sums[right] += v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const R before = sums[tid];
    for (uint j = 0; j < PER; j++)
        t[tid * PER + j] += before;
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Phase 1: state[g] = the sum of tile g (a tree in local memory). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
tile_sums(const __global R *restrict x, __global uint *state, const int n)
{
    __local R s[WG];
    const uint tid = get_local_id(0), base = get_group_id(0) * TILE;
    R acc = 0;
    for (uint k = 0; k < PER; k++) {
        const uint i = base + k * WG + tid;
        if (i < (uint)n)
            acc += x[i];
    }
    s[tid] = acc;
    for (uint h = WG / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < h)
            s[tid] += s[tid + h];
    }
    if (tid == 0)
        ((__global R *)state)[get_group_id(0)] = s[0];
}

/* Phase 2: one work-group scans the g sums in place (exclusive), TILE at a time. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan_sums(__global uint *state, const int g)
{
    __local R t[TILE], sums[WG];
    __global R *part = (__global R *)state;
    const uint tid = get_local_id(0);
    R carry = 0;
    for (uint base = 0; base < (uint)g; base += TILE) {
        for (uint k = 0; k < PER; k++) {
            const uint i = base + k * WG + tid;
            t[k * WG + tid] = i < (uint)g ? part[i] : (R)0;
        }
        const R total = tile_scan(t, sums);
        for (uint k = 0; k < PER; k++) {
            const uint i = base + k * WG + tid;
            if (i < (uint)g)
                part[i] = carry + t[k * WG + tid];
        }
        carry += total;
    }
}

/* Phase 3: each tile scanned, the sum of the tiles before it (state[g]) added. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan(const __global R *restrict x, __global R *restrict y, __global uint *state, const int n)
{
    __local R t[TILE], sums[WG];
    const uint tid = get_local_id(0), base = get_group_id(0) * TILE;
    const R before = ((__global R *)state)[get_group_id(0)];
    R v[PER];
    for (uint k = 0; k < PER; k++) {
        const uint i = base + k * WG + tid;
        v[k] = i < (uint)n ? x[i] : (R)0;
        t[k * WG + tid] = v[k];
    }
    tile_scan(t, sums);
    for (uint k = 0; k < PER; k++) {
        const uint i = base + k * WG + tid;
        if (i < (uint)n)
            y[i] = before + KL_SCAN_OUT(t[k * WG + tid], v[k]);
    }
}
