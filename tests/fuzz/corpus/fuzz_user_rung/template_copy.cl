/*
 * A copy kernel of your own: dst[i] = src[i] for i < N, 32-bit words.
 * Run it beside the ladder:  kladder copy --kernel copy.cl
 * The interface (docs/KERNELS.md): src and dst hold N words each (and a
 * guard band after dst that must stay untouched). The copy roof is what
 * `kladder peak` measured.
 *
 * kladder: workload copy
 * kladder: summary template: one word per work-item
 * kladder: global round_up(N, BS)
 * kladder: local BS
 * kladder: param BS 256 1..1024 -- work-group size
 */
__kernel void copy(const __global uint *src, __global uint *dst, const int N)
{
    const int i = get_global_id(0);
    if (i < N) /* the global size is N rounded up to a whole work-group */
        dst[i] = src[i];
}
