// A GEMM kernel that is right but for one element of C, which it makes one too large: the
// fault a soak must catch in every iteration (tests/check_soak.sh).
// kladder: workload gemm
// kladder: name wrong_gemm
// kladder: global round_up(N, TX), round_up(M, TY)
// kladder: local TX, TY
// kladder: param TX 16 1..1024
// kladder: param TY 16 1..1024
__kernel void gemm(const __global T *A, const __global T *B, __global T *C, const int M,
                   const int N, const int K)
{
    const int col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N)
        return;
    T acc = 0;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = row == M / 2 && col == N / 3 ? acc + 1 : acc;
}
