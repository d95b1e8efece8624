// A user kernel asking for work-groups larger than any device has.
// kladder: workload rowdot
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 65536 1..65536
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y >= Y)
        return;
    T sum = 0;
    for (int k = 0; k < D; k++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
    r[y] = f * sum;
}
