/*
 * Rung 03: a whole work-group per row (the seed article's optimisation
 * #2, with its bugs fixed).
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). G = number of work-groups, any G >= 1;
 *            group g computes rows g, g + G, g + 2G, ... (grid-stride, as
 *            in the article), so G = Y gives one row per group and a
 *            smaller G makes each group loop over several rows.
 * Macro:     WG (default 64, 1..1024): the work-group size; the host must
 *            pass the same value as the local size.
 *            Local memory: WG * sizeof(T) bytes (part[WG]).
 * Change:    rungs 01/02 give each work-item a whole row, so neighbouring
 *            work-items read addresses D apart. Here the WG work-items of
 *            a group share one row: work-item lid sums k = lid, lid + WG,
 *            ..., so at every step the group reads WG consecutive elements
 *            of M1 and of M2 (and of v): coalesced, and the row is spread
 *            over many work-items, which matters when D is large and Y
 *            small (the article's case, D ~ 100k). Each work-item keeps
 *            its partial sum in a private register (the article
 *            accumulated straight into an uninitialised __local sum[]),
 *            stores it once into part[lid], and after a BARRIER (the
 *            article used mem_fence, which orders only the calling
 *            work-item's own accesses and does not wait for the others)
 *            work-item 0 adds part[0..WG-1] in order and writes r[y]. A
 *            second barrier keeps the next row's stores into part from
 *            overtaking work-item 0's reads. v is read from global memory
 *            (coalesced and shared by all groups through the caches)
 *            rather than staged, so D is not limited by local memory.
 * Sizes:     any Y, D >= 1, any G >= 1. The row loop bound depends only on
 *            the group id, G and Y, so all work-items of a group run the
 *            same rows and reach every barrier; groups with g >= Y run no
 *            row at all. Work-items with lid >= D contribute 0.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 64
#endif
#if WG < 1 || WG > 1024
#error "03_group_row: WG (work-group size) must be in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
rowdot(const __global T *restrict v, const __global T *restrict M1,
       const __global T *restrict M2, __global T *restrict r, const int Y,
       const int D, const T f)
{
    const int lid = get_local_id(0);
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    __local T part[WG];

    for (int y = g; y < Y; y += ng) {
        const __global T *a = M1 + (size_t)y * D;
        const __global T *b = M2 + (size_t)y * D;
        T sum = 0;
        for (int k = lid; k < D; k += WG)
            sum += v[k] * a[k] * b[k];
        part[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);

        if (lid == 0) {
            T total = 0;
            for (int i = 0; i < WG; i++)
                total += part[i];
            r[y] = f * total;
        }
        /* part is rewritten for the next row only after work-item 0 has
           read it. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
