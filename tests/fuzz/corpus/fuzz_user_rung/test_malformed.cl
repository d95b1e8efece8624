// A user kernel whose comment block is malformed (a parameter without a range).
// kladder: workload rowdot
// kladder: global Y
// kladder: local 1
// kladder: param WG 64
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
