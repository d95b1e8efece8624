// A user kernel whose parameter's default lies outside its own range.
// kladder: workload rowdot
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 2048 1..1024
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y < Y)
        r[y] = 0;
}
