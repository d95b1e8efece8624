/*
 * A reduction kernel of your own: y[0] = x[0] op x[1] op ... op x[n-1], in
 * one launch. Run it beside the ladder:  kladder reduce --kernel reduce.cl
 * The interface (docs/KERNELS.md): R is the values' type (float, double or
 * int from --type; uint for int sums, which wrap modulo 2^32), OP(a, b)
 * the operation and IDENTITY its neutral value (--op sum, min or max).
 * part (one value per work-group) and count (0 before the launch, and to be
 * left 0) are scratch for a kernel whose last work-group finishes the job.
 *
 * kladder: workload reduce
 * kladder: summary template: one work-group striding over x, then a tree in local memory
 * kladder: global WG
 * kladder: local WG
 * kladder: param WG 256 1..1024 pow2 -- work-group size
 */
__kernel void reduce(const __global R *x, __global R *y, __global R *part,
                     __global uint *count, const int n)
{
    const uint tid = get_local_id(0);
    __local R s_x[WG];
    R acc = IDENTITY;
    for (uint i = tid; i < (uint)n; i += WG)
        acc = OP(acc, x[i]);
    s_x[tid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (tid < s)
            s_x[tid] = OP(s_x[tid], s_x[tid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[0] = s_x[0];
}
