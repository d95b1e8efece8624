// A user kernel with a space far larger than any budget the tests give (three parameters
// of 1..32, each candidate a build of its own): the tuner must stop when the budget runs
// out. A, B and C only decide whether the sum's first term is taken first, so every
// candidate is right.
// kladder: workload rowdot
// kladder: name tune_big_space
// kladder: global round_up(Y, 64)
// kladder: local 64
// kladder: param A 1 1..32
// kladder: param B 1 1..32
// kladder: param C 1 1..32
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y >= Y)
        return;
    T sum = 0;
    const int first = (A * B * C) % 2 < D ? (A * B * C) % 2 : 0; /* 0 or 1 terms taken first */
    for (int k = 0; k < first; k++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
    for (int k = first; k < D; k++)
        sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
    r[y] = f * sum;
}
