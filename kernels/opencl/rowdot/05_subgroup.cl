/*
 * Rung 05: a work-group per row, 4-wide loads, sub-group reduction.
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Requires:  sub-groups: the cl_khr_subgroups extension (or the OpenCL C
 *            3.0 feature __opencl_c_subgroups); without them the build
 *            stops with #error, so the host must only build this rung on
 *            devices that report cl_khr_subgroups.
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). G = number of work-groups, any G >= 1;
 *            group g computes rows g, g + G, ... (grid-stride).
 * Macros:    WG (default 256, a power of two in 1..1024): the work-group
 *            size; the host must pass the same value as the local size.
 *            SGMIN (default 8, >= 1): the smallest sub-group size expected
 *            on the device; it only sizes the local buffer,
 *            NPART = max(1, WG / SGMIN) slots. If the device actually uses
 *            smaller sub-groups (more than NPART of them per group), the
 *            kernel stays correct: it combines the sub-group sums in
 *            several rounds of NPART (one extra barrier per round).
 *            Local memory: 2 * NPART * sizeof(T) bytes (part[2][NPART]).
 * Change:    as rung 04 (vload4 loads with a scalar tail), but the
 *            reduction no longer goes through local memory log2(WG) times.
 *            sub_group_reduce_add sums the partial sums of a sub-group
 *            (a warp / wavefront / SIMD thread on a GPU) in registers,
 *            without local memory and without barriers; then the first
 *            work-item of each sub-group stores its sub-group's sum into
 *            part, one barrier, and work-item 0 adds the
 *            get_num_sub_groups() values (e.g. 2 for WG = 64 on a 32-wide
 *            GPU) and writes r[y]. So one barrier per row instead of
 *            1 + log2(WG). part is double-buffered (rounds alternate
 *            between part[0] and part[1]): a store into a buffer happens
 *            after the barrier of the following round, which work-item 0
 *            reaches only after reading that buffer, so no second barrier
 *            is needed before part is reused.
 * Sizes:     any Y, D >= 1, any G >= 1, any sub-group size (including
 *            non-uniform last sub-groups). Loads and tail as in rung 04.
 *            sub_group_reduce_add is called by every work-item (sub-group
 *            uniform control flow), and the row and round loop bounds are
 *            uniform over the work-group (get_num_sub_groups() is), so
 *            every work-item reaches every barrier.
 *
 * Backends:  OpenCL with cl_khr_subgroups; CUDA from this same source through
 *            kernels/cuda/prelude.cuh, where a sub-group is a warp of 32.
 */
#if !defined(cl_khr_subgroups) && !defined(__opencl_c_subgroups)
#error "05_subgroup: needs cl_khr_subgroups or __opencl_c_subgroups"
#endif
#if defined(cl_khr_subgroups)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024
#error "05_subgroup: WG (work-group size) must be in 1..1024"
#endif
#if (WG & (WG - 1)) != 0
#error "05_subgroup: WG (work-group size) must be a power of two"
#endif
#ifndef SGMIN
#define SGMIN 8
#endif
#if SGMIN < 1
#error "05_subgroup: SGMIN (smallest sub-group size) must be >= 1"
#endif
#if WG / SGMIN >= 1
#define NPART (WG / SGMIN)
#else
#define NPART 1
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
rowdot(const __global T *restrict v, const __global T *restrict M1,
       const __global T *restrict M2, __global T *restrict r, const int Y,
       const int D, const T f)
{
    const int lid = get_local_id(0);
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    const int nsg = (int)get_num_sub_groups();
    const int sg = (int)get_sub_group_id();
    const bool leader = get_sub_group_local_id() == 0;
    const int D4 = D / 4;     /* full 4-element pieces */
    const int tail = D4 * 4;  /* first element of the scalar tail */
    __local T part[2][NPART];
    int pp = 0;               /* buffer of the current round */

    for (int y = g; y < Y; y += ng) {
        const __global T *a = M1 + (size_t)y * D;
        const __global T *b = M2 + (size_t)y * D;
        T4 acc = 0;
        if ((D & 3) == 0) {
            /* Rows start 16-byte aligned: whole-vector loads, one instruction each. */
            const __global T4 *v4 = (const __global T4 *)v;
            const __global T4 *a4 = (const __global T4 *)a;
            const __global T4 *b4 = (const __global T4 *)b;
            for (int q = lid; q < D4; q += WG)
                acc += v4[q] * a4[q] * b4[q];
        } else {
            for (int q = lid; q < D4; q += WG) {
                const T4 vv = vload4(0, v + 4 * q);
                const T4 aa = vload4(0, a + 4 * q);
                const T4 bb = vload4(0, b + 4 * q);
                acc += vv * aa * bb;
            }
        }
        T sum = (acc.x + acc.y) + (acc.z + acc.w);
        for (int k = tail + lid; k < D; k += WG)
            sum += v[k] * a[k] * b[k];

        const T sgsum = sub_group_reduce_add(sum);

        T total = 0; /* meaningful in work-item 0 only */
        for (int s0 = 0; s0 < nsg; s0 += NPART) {
            if (leader && sg >= s0 && sg < s0 + NPART)
                part[pp][sg - s0] = sgsum;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid == 0) {
                const int n = min(NPART, nsg - s0);
                for (int i = 0; i < n; i++)
                    total += part[pp][i];
            }
            pp ^= 1;
        }
        if (lid == 0)
            r[y] = f * total;
    }
}
