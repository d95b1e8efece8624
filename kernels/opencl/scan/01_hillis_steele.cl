/*
 * Rung 01: Hillis and Steele's scan, in one work-group.
 *
 * Computes   y[i] = x[0] + ... + x[i] (inclusive), or x[0] + ... + x[i - 1]
 *            (exclusive, -DKL_EXCLUSIVE: y[0] = 0), for i < n; the sums in R
 *            (float, or uint for int: wrapping modulo 2^32).
 * Geometry:  1-D, one work-group: global size WG, local size WG.
 *            state is not used.
 * Change:    the first rung. One work-group walks the array a tile of WG
 *            elements at a time. Each tile is scanned in local memory by
 *            Hillis and Steele's method: in step d every element adds the
 *            one d places before it (d = 1, 2, 4, ...), so after log2(WG)
 *            steps each holds the sum of itself and all before it in the
 *            tile. The steps read one buffer and write the other, in
 *            turn, so that no work-item reads a value that another is
 *            overwriting in the same step. The sum of the tiles before
 *            (the carry) is added to every element as it is written.
 *            Two costs to remove: WG*log2(WG) additions where a loop makes
 *            WG (not work-efficient), and one work-group, that is one
 *            compute unit, for the whole array while the rest of the
 *            device idles.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "01_hillis_steele: WG must be a power of two in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan(const __global R *restrict x, __global R *restrict y, __global uint *state, const int n)
{
    __local R s[2][WG];
    const uint tid = get_local_id(0);
    R carry = 0;
    for (uint base = 0; base < (uint)n; base += WG) {
        const uint i = base + tid;
        int in = 0;
        s[0][tid] = i < (uint)n ? x[i] : (R)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = 1; d < WG; d <<= 1) {
            const R v = s[in][tid];
            s[1 - in][tid] = tid >= d ? s[in][tid - d] + v : v;
            in = 1 - in;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#ifdef KL_EXCLUSIVE
        const R mine = tid > 0 ? s[in][tid - 1] : (R)0; /* the sum before this element */
#else
        const R mine = s[in][tid];
#endif
        if (i < (uint)n)
            y[i] = carry + mine;
        carry += s[in][WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE); /* every read of s done before the next tile's stores */
    }
}
