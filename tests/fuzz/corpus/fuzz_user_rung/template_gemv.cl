/*
 * A GEMV kernel of your own: y = alpha * A * x + beta * y.
 * Run it beside the ladder:  kladder gemv --kernel gemv.cl
 * The interface (docs/KERNELS.md): A is M x N, row-major here ("kladder:
 * layout col" gives it column-major, element (i, j) at A[i + j*M]); x has N
 * elements, y has M; T is float or double (--type), set by kladder. As in
 * BLAS, y is not read when beta is 0.
 *
 * kladder: workload gemv
 * kladder: summary template: one work-item per row of a row-major A
 * kladder: layout row
 * kladder: global round_up(M, WG)
 * kladder: local WG
 * kladder: param WG 64 1..1024 -- work-group size
 */
__kernel void gemv(const __global T *A, const __global T *x, __global T *y, const int M,
                   const int N, const T alpha, const T beta)
{
    const int i = get_global_id(0);
    if (i >= M) /* the global size is M rounded up to a whole work-group */
        return;
    T acc = 0;
    for (int j = 0; j < N; j++)
        acc += A[(size_t)i * N + j] * x[j];
    y[i] = beta != (T)0 ? alpha * acc + beta * y[i] : alpha * acc;
}
