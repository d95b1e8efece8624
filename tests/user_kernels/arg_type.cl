// A user kernel whose Y is a float.
// kladder: workload rowdot
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 64 1..1024
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const float Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y < (int)Y)
        r[y] = 0;
}
