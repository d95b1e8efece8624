/*
 * A GEMM kernel of your own: C = A * B.
 * Run it beside the ladder:  kladder gemm --kernel gemm.cl
 * The interface (docs/KERNELS.md): A is M x K, B is K x N, C is M x N, all
 * row-major and densely packed; T is float, double or int (--type), set by
 * kladder. Every element of C must be written; nothing past it.
 *
 * kladder: workload gemm
 * kladder: summary template: one work-item per element of C
 * kladder: global round_up(N, TX), round_up(M, TY)
 * kladder: local TX, TY
 * kladder: param TX 16 1..1024 -- work-group width (columns of C)
 * kladder: param TY 16 1..1024 -- work-group height (rows of C)
 */
__kernel void gemm(const __global T *A, const __global T *B, __global T *C, const int M,
                   const int N, const int K)
{
    const int col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N) /* the global size is rounded up to whole work-groups */
        return;
    T acc = 0;
    for (int k = 0; k < K; k++)
        acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}
