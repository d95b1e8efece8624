/*
 * Rung 04: the work-group's scans by sub-groups.
 *
 * Computes   y = the inclusive (or, -DKL_EXCLUSIVE, exclusive) prefix sums
 *            of x[0 .. n), as rung 01.
 * Geometry:  rung 03's three launches over tiles of TILE = WG*PER
 *            elements: tile_sums, scan_sums (one group), scan.
 *            Needs sub-groups (cl_khr_subgroups; warps on CUDA): built
 *            with -DKL_SUBGROUPS.
 * Change:    rung 03 scans in local memory: a tree whose every level is a
 *            barrier, and PER-way bank conflicts in the work-items' own
 *            runs. Sub-groups (a warp of 32 on NVIDIA) scan their values
 *            in registers, lane handing lane through shuffles, with no
 *            barrier at all. A work-group's scan becomes: each sub-group
 *            scans its work-items' values; its last lane leaves the
 *            sub-group's total in local memory; one barrier; the first
 *            sub-group scans those few totals; one barrier; each value
 *            adds the total of the sub-groups before its own. The tile
 *            is no longer staged in local memory: it is scanned in PER
 *            rounds of WG elements, each round the WG consecutive
 *            elements that one coalesced load brings, the rounds' totals
 *            carried from one to the next. The sums of phase 1 are
 *            sub-group reductions the same way, and phase 2, one group
 *            over all the tiles' sums, gives each work-item PER of them in
 *            a row (rung 03's serial runs, in registers): PER times fewer
 *            rounds of the group's scan. Still 3n words moved.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL with cl_khr_subgroups; CUDA from this same source through
 *            kernels/cuda/prelude.cuh.
 */
#if defined(KL_SUBGROUPS) && !defined(__CUDACC__)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "04_subgroup: WG must be a power of two in 1..1024"
#endif
#ifndef PER
#define PER 8
#endif
#if PER < 1 || PER > 32
#error "04_subgroup: PER (elements per work-item) must be in 1..32"
#endif
#define TILE (WG * PER)

/*
 * The work-group's exclusive scan of v (the sum of the values of the work-items before this
 * one), *total the sum of all; s holds WG + 1 values. Each sub-group scans its own; the
 * first then scans the sub-groups' totals, as many turns as it takes where there are more
 * sub-groups than it has work-items.
 */
R group_scan(const R v, KL_LOCAL_ARG R *s, R *total)
{
    const uint sg = get_sub_group_id(), lane = get_sub_group_local_id();
    const uint nsg = get_num_sub_groups(), size = get_sub_group_size();
    const R before = sub_group_scan_exclusive_add(v);
    if (lane == size - 1)
        s[sg] = before + v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        R carry = 0;
        for (uint k = 0; k < nsg; k += size) {
            const R t = k + lane < nsg ? s[k + lane] : (R)0;
            const R t_before = sub_group_scan_exclusive_add(t);
            if (k + lane < nsg)
                s[k + lane] = carry + t_before;
            carry += sub_group_reduce_add(t);
        }
        if (lane == 0)
            s[nsg] = carry;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = s[nsg];
    const R out = s[sg] + before;
    barrier(CLK_LOCAL_MEM_FENCE); /* s is free again for the next call */
    return out;
}

/* The work-group's sum of v (every work-item gets it): sub-group sums, then the first's. */
R group_sum(const R v, KL_LOCAL_ARG R *s)
{
    R total;
    (void)group_scan(v, s, &total);
    return total;
}

/* Phase 1: state[g] = the sum of tile g. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
tile_sums(const __global R *restrict x, __global uint *state, const int n)
{
    __local R s[WG + 1];
    const uint tid = get_local_id(0), base = get_group_id(0) * TILE;
    R acc = 0;
    for (uint k = 0; k < PER; k++) {
        const uint i = base + k * WG + tid;
        if (i < (uint)n)
            acc += x[i];
    }
    const R total = group_sum(acc, s);
    if (tid == 0)
        ((__global R *)state)[get_group_id(0)] = total;
}

/* Phase 2: one work-group scans the g sums in place (exclusive), TILE at a time: each
   work-item its PER consecutive sums in order, then the group's scan of their totals. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan_sums(__global uint *state, const int g)
{
    __local R s[WG + 1];
    __global R *part = (__global R *)state;
    const uint tid = get_local_id(0);
    R carry = 0, total;
    for (uint base = 0; base < (uint)g; base += TILE) {
        const uint mine = base + tid * PER;
        R v[PER], acc = 0;
        for (uint j = 0; j < PER; j++)
            v[j] = mine + j < (uint)g ? part[mine + j] : (R)0;
        for (uint j = 0; j < PER; j++) {
            const R t = v[j];
            v[j] = acc;
            acc += t;
        }
        const R before = carry + group_scan(acc, s, &total);
        for (uint j = 0; j < PER; j++)
            if (mine + j < (uint)g)
                part[mine + j] = before + v[j];
        carry += total;
    }
}

/* Phase 3: each tile scanned in PER rounds, the sum of the tiles before it (state[g]) added. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan(const __global R *restrict x, __global R *restrict y, __global uint *state, const int n)
{
    __local R s[WG + 1];
    const uint tid = get_local_id(0), base = get_group_id(0) * TILE;
    R carry = ((__global R *)state)[get_group_id(0)], total;
    for (uint k = 0; k < PER; k++) {
        const uint i = base + k * WG + tid;
        const R v = i < (uint)n ? x[i] : (R)0;
        const R before = group_scan(v, s, &total);
        if (i < (uint)n)
            y[i] = carry + KL_SCAN_OUT(before, v);
        carry += total;
    }
}
