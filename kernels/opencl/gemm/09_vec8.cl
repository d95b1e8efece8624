/*
 * Rung 09: as rung 08 with 8-wide vectors (T8, vload8, DOT8).
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D, r = get_global_id(0) is the row of C; local size WG
 *            from the host.
 * Macro:     KC (default 256): private row chunk length in elements; must
 *            be a positive multiple of 8 (arow8 holds KC/8 T8 vectors).
 * Change:    twice as much work per loop iteration: one vload8 of B and
 *            one DOT8 (two DOT4s, see the prelude) per 8 elements, halving
 *            loop overhead again. It only helps if the hardware is wider
 *            than 4: the article's HD 4870 reports
 *            CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT = 4, so a float8 is
 *            split into two float4 operations, the row buffer doubles its
 *            register footprint (fewer work-items in flight), and the
 *            article measured this rung SLOWER than float4. On a CPU with
 *            256/512-bit SIMD (AVX, AVX-512) 8 floats fit one register and
 *            this can help.
 * Sizes:     K chunked as in rung 05 (kc = min(KC, K - k0); first chunk
 *            stores C, later chunks add). Only the last chunk can have
 *            kc % 8 != 0: its full vectors use vload8 and the 1-7 leftover
 *            elements are handled with scalars (A's in a small private
 *            array atail). Nothing past the end of A or B is read. Rows
 *            r >= M do nothing (no barriers).
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD8 (LD for the tails);
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl).
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef KC
#define KC 256
#endif
#if KC < 8 || KC % 8 != 0
#error "09_vec8: KC must be a positive multiple of 8 (T8 row buffer)"
#endif

__kernel void gemm(const __global TA *restrict A, const __global TA *restrict B,
                   __global T *restrict C, const int M, const int N,
                   const int K)
{
    const int r = get_global_id(0);
    T8 arow8[KC / 8];
    T atail[7];

    if (r >= M)
        return; /* safe: no barrier in this kernel */

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = min(KC, K - k0);
        const int nv = kc / 8;      /* full vectors in this chunk */
        const int nt = kc - 8 * nv; /* leftover scalars, 0..7 */
        const __global TA *a = A + r * K + k0;

        for (int i = 0; i < nv; i++)
            arow8[i] = LD8(i, a);
        for (int j = 0; j < nt; j++)
            atail[j] = LD(a, 8 * nv + j);

        for (int c = 0; c < N; c++) {
            const __global TA *b = B + c * K + k0;
            T sum = 0;
            for (int i = 0; i < nv; i++)
                sum += DOT8(arow8[i], LD8(i, b));
            for (int j = 0; j < nt; j++)
                sum += atail[j] * LD(b, 8 * nv + j);
            if (k0 == 0)
                C[r * N + c] = sum;
            else
                C[r * N + c] += sum;
        }
    }
}
