// A user kernel right for some of its parameter values only: with UNROLL=1
// it skips the last element of every row. The tuner must reject those
// candidates and report only verified ones.
// kladder: workload rowdot
// kladder: name tune_wrong_when
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 64 32..128 pow2
// kladder: param UNROLL 2 1..4 pow2
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y >= Y)
        return;
    T sum = 0;
    const int end = UNROLL == 1 ? D - 1 : D;
    for (int k = 0; k < end; k++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
    r[y] = f * sum;
}
