/*
 * A copy kernel that never ends: every work-item spins on a word nobody
 * changes, read through a volatile pointer so that no compiler can prove
 * the loop ends or drop it. kladder's watchdog (--kernel-timeout) must
 * report it as a timeout and stop cleanly, never hang.
 *
 * kladder: workload copy
 * kladder: summary never ends: spins on a word it never changes
 * kladder: global round_up(N, BS)
 * kladder: local BS
 * kladder: param BS 64 1..1024 -- work-group size
 */
__kernel void copy(const __global uint *src, __global uint *dst, const int N)
{
    const int i = get_global_id(0);
    volatile const __global uint *word = src;
    uint spins = 0;
    while (word[0] == word[0])
        spins++;
    if (i < N)
        dst[i] = src[i] + spins;
}
