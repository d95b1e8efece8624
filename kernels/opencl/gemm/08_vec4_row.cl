/*
 * Rung 08: the private row itself is stored as T4 vectors.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D, r = get_global_id(0) is the row of C; local size WG
 *            from the host.
 * Macro:     KC (default 256): private row chunk length in elements; must
 *            be a positive multiple of 4 (arow4 holds KC/4 T4 vectors).
 * Change:    rung 07 rebuilt both T4 operands from scalars on every
 *            iteration. Here A's chunk is packed into T4 arow4[KC/4] once
 *            (with vload4), and B is read with vload4 straight into a
 *            vector, so the inner loop is one vector load and one DOT4 per
 *            4 elements. GPU: wide (128-bit for float) loads, fewer
 *            instructions, and the VLIW/vector slots are filled without
 *            shuffles. CPU: the loop maps directly onto SIMD loads and
 *            multiplies.
 * Sizes:     K chunked as in rung 05 (kc = min(KC, K - k0); first chunk
 *            stores C, later chunks add). Since KC is a multiple of 4, only
 *            the last chunk can have kc % 4 != 0: its kc/4 full vectors go
 *            through vload4, and the 1-3 leftover elements of A are kept
 *            in a small scalar array atail and multiplied with scalar reads
 *            of B. vload4 is only issued where all 4 elements are in range
 *            (and needs only scalar alignment), so nothing past the end of
 *            A or B is read. Rows r >= M do nothing (no barriers).
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD4 (LD for the tails);
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef KC
#define KC 256
#endif
#if KC < 4 || KC % 4 != 0
#error "08_vec4_row: KC must be a positive multiple of 4 (T4 row buffer)"
#endif

__kernel void gemm(const __global TA *restrict A, const __global TA *restrict B,
                   __global T *restrict C, const int M, const int N,
                   const int K)
{
    const int r = get_global_id(0);
    T4 arow4[KC / 4];
    T atail[3];

    if (r >= M)
        return; /* safe: no barrier in this kernel */

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = min(KC, K - k0);
        const int nv = kc / 4;      /* full vectors in this chunk */
        const int nt = kc - 4 * nv; /* leftover scalars, 0..3 */
        const __global TA *a = A + r * K + k0;

        for (int i = 0; i < nv; i++)
            arow4[i] = LD4(i, a);
        for (int j = 0; j < nt; j++)
            atail[j] = LD(a, 4 * nv + j);

        for (int c = 0; c < N; c++) {
            const __global TA *b = B + c * K + k0;
            T sum = 0;
            for (int i = 0; i < nv; i++)
                sum += DOT4(arow4[i], LD4(i, b));
            for (int j = 0; j < nt; j++)
                sum += atail[j] * LD(b, 4 * nv + j);
            if (k0 == 0)
                C[r * N + c] = sum;
            else
                C[r * N + c] += sum;
        }
    }
}
