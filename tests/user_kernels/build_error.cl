// A user kernel that does not compile (line 8).
// kladder: workload rowdot
// kladder: global round_up(Y, WG)
// kladder: local WG
// kladder: param WG 64 1..1024
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    this is not C;
}
