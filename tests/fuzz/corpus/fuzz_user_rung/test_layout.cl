// A rowdot kernel that says it has a layout (only gemv has two).
// kladder: workload rowdot
// kladder: layout col
// kladder: global Y
// kladder: local 1
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
}
