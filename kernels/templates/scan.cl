/*
 * A prefix-scan kernel of your own: y[i] = x[0] + ... + x[i] (inclusive),
 * or x[0] + ... + x[i - 1] (exclusive, where KL_EXCLUSIVE is defined: y[0]
 * = 0). Run it beside the ladder:  kladder scan --kernel scan.cl
 * The interface (docs/KERNELS.md): R is the values' type (float, or uint for
 * --type int, whose sums wrap modulo 2^32); KL_EXCLUSIVE is defined for
 * --mode exclusive, and KL_SCAN_OUT(before, x) gives an element's result
 * from the sum before it, as the mode asks. state holds
 * 2 + 2*G 32-bit words (G the launch's work-groups), all 0 before each
 * launch: scratch for a kernel whose work-groups hand sums to each other.
 *
 * kladder: workload scan
 * kladder: summary template: one work-group, a tile of WG at a time, Hillis and Steele in local memory
 * kladder: global WG
 * kladder: local WG
 * kladder: param WG 256 1..1024 pow2 -- work-group size
 */
__kernel void scan(const __global R *x, __global R *y, __global uint *state, const int n)
{
    __local R s[WG];
    const uint tid = get_local_id(0);
    R carry = 0;
    for (uint base = 0; base < (uint)n; base += WG) {
        const uint i = base + tid;
        s[tid] = i < (uint)n ? x[i] : (R)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint d = 1; d < WG; d <<= 1) { /* s[tid] becomes the sum through tid */
            const R t = tid >= d ? s[tid - d] : (R)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            s[tid] += t;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#ifdef KL_EXCLUSIVE
        const R mine = tid > 0 ? s[tid - 1] : (R)0;
#else
        const R mine = s[tid];
#endif
        if (i < (uint)n)
            y[i] = carry + mine;
        carry += s[WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
