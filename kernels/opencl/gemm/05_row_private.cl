/*
 * Rung 05: one row per work-item, A's row copied into private memory.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D, r = get_global_id(0) is the row of C; local size WG
 *            from the host.
 * Macro:     KC (default 256, >= 1): length of the private row buffer.
 * Change:    as rung 04, but A's row is first copied into a private array
 *            arow (the article's "row in private memory"), so the N dot
 *            products read it from registers / private memory instead of
 *            re-reading global memory N times.
 *            GPU: cuts A's global traffic by a factor N; the price is
 *            private-memory pressure (a large arow spills to off-chip
 *            "private" memory, and fewer work-items fit per compute unit).
 *            CPU: arow sits in L1 / the stack; the gain is small since A's
 *            row was already cache-resident in rung 04.
 * Sizes:     the article used a K-long array; here K is cut into chunks of
 *            KC: for each k0 (step KC), kc = min(KC, K - k0) elements of
 *            A's row are copied, then every column gets the partial dot
 *            product over that chunk. The first chunk stores C[r*N+c], the
 *            later ones add to it. If K <= KC this is exactly the article's
 *            kernel. Any M, N, K >= 1 work; rows r >= M do nothing (no
 *            barriers in this kernel).
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef KC
#define KC 256
#endif
#if KC < 1
#error "05_row_private: KC (private row chunk length) must be >= 1"
#endif

__kernel void gemm(const __global TA *restrict A, const __global TA *restrict B,
                   __global T *restrict C, const int M, const int N,
                   const int K)
{
    const int r = get_global_id(0);
    T arow[KC];

    if (r >= M)
        return; /* safe: no barrier in this kernel */

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = min(KC, K - k0);

        for (int i = 0; i < kc; i++)
            arow[i] = LD(A, r * K + k0 + i);

        for (int c = 0; c < N; c++) {
            const __global TA *b = B + c * K + k0;
            T sum = 0;
            for (int i = 0; i < kc; i++)
                sum += arow[i] * LD(b, i);
            if (k0 == 0)
                C[r * N + c] = sum;
            else
                C[r * N + c] += sum;
        }
    }
}
