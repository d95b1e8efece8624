// A user kernel whose speed its parameter decides: it computes each row's sum
// SPIN x SPIN times (each time over the terms rotated by one, so the compiler
// cannot keep one result for all), keeping the last. Every value is right;
// SPIN=1 does 1/64 of the work SPIN=8 does, so the tuner's best must be SPIN=1.
// kladder: workload rowdot
// kladder: name tune_slow_when
// kladder: global round_up(Y, 64)
// kladder: local 64
// kladder: param SPIN 8 1..8 pow2
__kernel void rowdot(const __global T *v, const __global T *M1, const __global T *M2,
                     __global T *r, const int Y, const int D, const T f)
{
    const int y = get_global_id(0);
    if (y >= Y)
        return;
    T sum = 0;
    for (int s = 0; s < SPIN * SPIN; s++) {
        sum = 0;
        for (int j = 0; j < D; j++) {
            const int k = (j + s) % D;
            sum += v[k] * M1[(size_t)y * D + k] * M2[(size_t)y * D + k];
        }
    }
    r[y] = f * sum;
}
