/*
 * Rung 02: Blelloch's work-efficient scan, still in one work-group.
 *
 * Computes   y = the inclusive (or, -DKL_EXCLUSIVE, exclusive) prefix sums
 *            of x[0 .. n), as rung 01.
 * Geometry:  1-D, one work-group: global size WG, local size WG.
 *            state is not used.
 * Change:    rung 01 makes WG*log2(WG) additions per tile of WG. Blelloch's
 *            scan makes about 2*TILE for a tile of TILE = 2*WG elements
 *            (two per work-item), in two sweeps over a balanced tree in
 *            local memory. The up-sweep adds pairs, then pairs of pairs, so
 *            that each node holds the sum of its subtree and the root the
 *            tile's total; the down-sweep clears the root and walks back
 *            down, each node handing its left child its own value and its
 *            right child its value plus the left child's old sum. Each
 *            element then holds the sum of all before it: the exclusive
 *            scan, in place, with no second buffer. Each level halves the
 *            work-items that work, so the last levels leave most of them
 *            idle, and it is still one work-group for the whole array.
 * Sizes:     any n >= 1.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef WG
#define WG 256
#endif
#if WG < 1 || WG > 1024 || (WG & (WG - 1)) != 0
#error "02_blelloch: WG must be a power of two in 1..1024"
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
scan(const __global R *restrict x, __global R *restrict y, __global uint *state, const int n)
{
    __local R s[2 * WG];
    const uint tid = get_local_id(0);
    R carry = 0;
    for (uint base = 0; base < (uint)n; base += 2 * WG) {
        const uint a = base + tid, b = base + WG + tid;
        const R xa = a < (uint)n ? x[a] : (R)0, xb = b < (uint)n ? x[b] : (R)0;
        s[tid] = xa;
        s[WG + tid] = xb;
        uint span = 1; /* the distance between a node's two children */
        for (uint d = WG; d > 0; d >>= 1, span <<= 1) {
            barrier(CLK_LOCAL_MEM_FENCE);
            if (tid < d)
                s[span * (2 * tid + 2) - 1] += s[span * (2 * tid + 1) - 1];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const R total = s[2 * WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has the total before the root clears */
        if (tid == 0)
            s[2 * WG - 1] = 0;
        for (uint d = 1; d <= WG; d <<= 1) {
            span >>= 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (tid < d) {
                const uint left = span * (2 * tid + 1) - 1, right = span * (2 * tid + 2) - 1;
                const R t = s[left];
                s[left] = s[right];
                s[right] += t;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (a < (uint)n)
            y[a] = carry + KL_SCAN_OUT(s[tid], xa);
        if (b < (uint)n)
            y[b] = carry + KL_SCAN_OUT(s[WG + tid], xb);
        carry += total;
        /* the next tile's stores touch s[tid] and s[WG + tid] only: this work-item's own */
    }
}
