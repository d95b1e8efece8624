/*
 * Rung 04: a work-group per row with 4-wide loads and a tree reduction.
 *
 * Computes   r[y] = f * sum_k v[k] * M1[y*D + k] * M2[y*D + k]
 *            for y < Y, k < D (M1, M2 row-major Y x D, v has D elements).
 * Geometry:  1-D, global size G * WG, local size WG (enforced with
 *            reqd_work_group_size). G = number of work-groups, any G >= 1;
 *            group g computes rows g, g + G, ... (grid-stride).
 * Macro:     WG (default 256, a power of two in 1..1024): the work-group
 *            size; the host must pass the same value as the local size.
 *            Local memory: WG * sizeof(T) bytes (part[WG]).
 * Change:    as rung 03, with two changes.
 *            (1) Loads: work-item lid takes the 4-element pieces
 *            q = lid, lid + WG, ... of the row (elements 4q..4q+3) and
 *            reads them with vload4 from v, M1 and M2, so each group step
 *            moves 4 * WG consecutive elements per array with one wide
 *            load per work-item (16 or 32 bytes): fewer, wider memory
 *            transactions and 4 independent multiply chains in a T4
 *            accumulator.
 *            (2) Reduction: instead of work-item 0 adding WG partial sums
 *            one after the other (WG dependent steps, the rest of the
 *            group idle), the group halves the active range log2(WG)
 *            times (part[lid] += part[lid + s] for lid < s, with a barrier
 *            after each step), so the sum needs log2(WG) steps.
 *            Work-item 0 reads only part[0], which no other work-item
 *            writes when the next row starts, so unlike rung 03 no
 *            trailing barrier is needed before part is reused.
 * Sizes:     any Y, D >= 1, any G >= 1. vload4 only requires alignment
 *            to the element type, so it is used at element offsets
 *            y*D + 4q, which need not be multiples of 4. The D / 4 full
 *            pieces go through vload4; the D % 4 (<= 3) tail elements are
 *            added by work-items lid < D % 4, one each (WG >= 4) or in a
 *            loop (WG < 4). All work-items of a group run the same rows
 *            (the loop bound is uniform) and reach every barrier. The
 *            summation order differs from rung 01, so float results differ
 *            in the last bits.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024
#error "04_group_vec4: WG (work-group size) must be in 1..1024"
#endif
#if (WG & (WG - 1)) != 0
#error "04_group_vec4: WG (work-group size) must be a power of two"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
rowdot(const __global T *restrict v, const __global T *restrict M1,
       const __global T *restrict M2, __global T *restrict r, const int Y,
       const int D, const T f)
{
    const int lid = get_local_id(0);
    const int g = get_group_id(0);
    const int ng = get_num_groups(0);
    const int D4 = D / 4;     /* full 4-element pieces */
    const int tail = D4 * 4;  /* first element of the scalar tail */
    __local T part[WG];

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

        part[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            r[y] = f * part[0];
    }
}
