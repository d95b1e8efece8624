/*
 * Rung 03 (row-major A): several rows per work-group, one team of
 * work-items per row (for small N / many rows).
 *
 * Computes   y[i] = alpha * sum_j A[i*N + j] * x[j] + beta * y[i]
 *            for i < M, j < N (A row-major M x N). As in BLAS, when
 *            beta == 0 y is not read (it may hold NaN or Inf).
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). The group is split into RPG teams of
 *            TEAM = WG / RPG consecutive work-items; team t of group g
 *            computes rows g*RPG + t, then (g + G)*RPG + t, ... (grid-
 *            stride over blocks of RPG rows). G = number of work-groups,
 *            any G >= 1; G = ceil(M / RPG) gives each group one block.
 * Macros:    WG (default 256, a power of two in 1..1024): the work-group
 *            size; the host must pass the same value as the local size.
 *            RPG (default 8, a power of two, 1 <= RPG <= WG): rows per
 *            group, i.e. teams per group.
 *            Local memory: WG * sizeof(T) bytes (part[WG]).
 * Change:    rung 02 gives a whole group to one row; when N is small
 *            (N < 4 * WG) most of the group idles and the log2(WG)-step
 *            reduction dominates. Here the group works on RPG rows at
 *            once: work-item tl of a team reads the 4-element pieces
 *            q = tl, tl + TEAM, ... of its row of A and of x with vload4
 *            (rows of a block are adjacent, so the group still reads
 *            RPG * N consecutive elements of A), and each team reduces its
 *            TEAM partial sums with a tree in its own slice
 *            part[t*TEAM .. t*TEAM + TEAM-1] in log2(TEAM) steps (all
 *            teams step together, separated by group barriers). The
 *            team's first work-item writes y[i]; it reads only its own
 *            slot part[lid], so no barrier is needed before part is
 *            reused.
 * Sizes:     any M, N >= 1, any G >= 1. vload4 at element offsets (only
 *            element alignment needed), N % 4 tail elements added by team
 *            members tl < N % 4 (in a loop when TEAM < 4). The block loop
 *            bound is uniform over the group, so every work-item reaches
 *            every barrier; in the last block, teams whose row i >= M load
 *            nothing (partial sum 0), take part in the reduction and store
 *            nothing.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024
#error "03_row_multirow: WG (work-group size) must be in 1..1024"
#endif
#if (WG & (WG - 1)) != 0
#error "03_row_multirow: WG (work-group size) must be a power of two"
#endif
#ifndef RPG
#define RPG 8
#endif
#if RPG < 1 || RPG > WG
#error "03_row_multirow: RPG (rows per group) must be in 1..WG"
#endif
#if (RPG & (RPG - 1)) != 0
#error "03_row_multirow: RPG (rows per group) must be a power of two"
#endif
#define TEAM (WG / RPG)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemv(const __global T *restrict A, const __global T *restrict x,
     __global T *restrict y, const int M, const int N, const T alpha,
     const T beta)
{
    const int lid = get_local_id(0);
    const int team = lid / TEAM;
    const int tl = lid % TEAM;
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    const int N4 = N / 4;     /* full 4-element pieces */
    const int tail = N4 * 4;  /* first element of the scalar tail */
    __local T part[WG];

    for (int i0 = g * RPG; i0 < M; i0 += ng * RPG) {
        const int i = i0 + team;
        T sum = 0;
        if (i < M) {
            const __global T *a = A + (size_t)i * N;
            T4 acc = 0;
            if ((N & 3) == 0) {
                /* Rows start 16-byte aligned: whole-vector loads. */
                const __global T4 *a4 = (const __global T4 *)a;
                const __global T4 *x4 = (const __global T4 *)x;
                for (int q = tl; q < N4; q += TEAM)
                    acc += a4[q] * x4[q];
            } else {
                for (int q = tl; q < N4; q += TEAM)
                    acc += vload4(0, a + 4 * q) * vload4(0, x + 4 * q);
            }
            sum = (acc.x + acc.y) + (acc.z + acc.w);
            for (int j = tail + tl; j < N; j += TEAM)
                sum += a[j] * x[j];
        }

        part[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = TEAM / 2; s > 0; s >>= 1) {
            if (tl < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tl == 0 && i < M) {
            T res = alpha * part[lid];
            if (beta != (T)0)
                res += beta * y[i];
            y[i] = res;
        }
    }
}
