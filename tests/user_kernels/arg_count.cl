// A user kernel with one argument too few (no f).
// kladder: workload rowdot
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 64 1..1024
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D)
{
    const int y = get_global_id(0);
    if (y < Y)
        r[y] = 0;
}
