/*
 * Rung 06: several rows per work-group, one team of work-items per row
 * (for small D).
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). The group is split into RPG teams of
 *            TEAM = WG / RPG consecutive work-items; team t of group g
 *            computes rows g*RPG + t, then (g + G)*RPG + t, ... (grid-
 *            stride over blocks of RPG rows). G = number of work-groups,
 *            any G >= 1; G = ceil(Y / RPG) gives each group one block.
 * Macros:    WG (default 256, a power of two in 1..1024): the work-group
 *            size; the host must pass the same value as the local size.
 *            RPG (default 8, a power of two, 1 <= RPG <= WG): rows per
 *            group, i.e. teams per group. RPG = 1 is rung 03/04's layout,
 *            RPG = WG one work-item per row with no reduction.
 *            Local memory: WG * sizeof(T) bytes (part[WG]).
 * Change:    rungs 03-05 give a whole group to one row; when D is small
 *            (say D < 4 * WG) most of the group idles in the row loop and
 *            the reduction dominates. Here a group works on RPG rows at
 *            once: work-item tl of a team sums k = tl, tl + TEAM, ... of
 *            its row, scalar loads (no vload4: with small D the vector
 *            tail would be a large fraction of the work). Rows of a block
 *            are adjacent in memory, so the group still reads RPG * D
 *            consecutive elements of M1 and M2: coalesced. Each team then
 *            reduces its TEAM partial sums with a tree in its own slice
 *            part[t*TEAM .. t*TEAM + TEAM-1] (log2(TEAM) steps; all teams
 *            step together, separated by group barriers), and its first
 *            work-item writes r[y]. That work-item reads only its own slot
 *            part[lid], so no barrier is needed before part is reused.
 * Sizes:     any Y, D >= 1, any G >= 1. The block loop bound depends only
 *            on the group id, G, RPG and Y, so all work-items of a group
 *            run the same iterations and reach every barrier; in the last
 *            block, teams whose row y >= Y load nothing (partial sum 0),
 *            take part in the reduction and store nothing.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024
#error "06_rows_per_group: WG (work-group size) must be in 1..1024"
#endif
#if (WG & (WG - 1)) != 0
#error "06_rows_per_group: WG (work-group size) must be a power of two"
#endif
#ifndef RPG
#define RPG 8
#endif
#if RPG < 1 || RPG > WG
#error "06_rows_per_group: RPG (rows per group) must be in 1..WG"
#endif
#if (RPG & (RPG - 1)) != 0
#error "06_rows_per_group: RPG (rows per group) must be a power of two"
#endif
#define TEAM (WG / RPG)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
rowdot(const __global T *restrict v, const __global T *restrict M1,
       const __global T *restrict M2, __global T *restrict r, const int Y,
       const int D, const T f)
{
    const int lid = get_local_id(0);
    const int team = lid / TEAM;
    const int tl = lid % TEAM;
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    __local T part[WG];

    for (int y0 = g * RPG; y0 < Y; y0 += ng * RPG) {
        const int y = y0 + team;
        T sum = 0;
        if (y < Y) {
            const __global T *a = M1 + (size_t)y * D;
            const __global T *b = M2 + (size_t)y * D;
            for (int k = tl; k < D; k += TEAM)
                sum += v[k] * a[k] * b[k];
        }

        part[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = TEAM / 2; s > 0; s >>= 1) {
            if (tl < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tl == 0 && y < Y)
            r[y] = f * part[lid];
    }
}
