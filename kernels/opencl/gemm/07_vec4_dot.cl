/*
 * Rung 07: private row (rung 05) with a 4-wide dot product built from
 * scalars.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D, r = get_global_id(0) is the row of C; local size WG
 *            from the host.
 * Macro:     KC (default 256, >= 1): private row chunk length.
 * Change:    based on rung 05 (not 06: the article vectorised the
 *            private-row kernel). The inner loop steps by 4 and computes
 *            DOT4 of two T4 vectors assembled from four scalars each, the
 *            article's first vectorisation. The hope is that the compiler
 *            maps DOT4 onto the hardware's vector ALUs (the HD 4870 is a
 *            VLIW5 machine, so 4 independent multiplies fill its slots;
 *            on a CPU, SIMD lanes) and that four partial products shorten
 *            the dependency chain on sum. Building vectors element by
 *            element costs extra moves, which rung 08 removes.
 * Sizes:     K chunked as in rung 05 (kc = min(KC, K - k0); first chunk
 *            stores C, later chunks add). Within a chunk, the 4-wide loop
 *            covers the largest multiple of 4 <= kc and a scalar loop
 *            handles the kc % 4 remaining elements, so KC and K need not
 *            be multiples of 4. Rows r >= M do nothing (no barriers).
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
#error "07_vec4_dot: KC (private row chunk length) must be >= 1"
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
            int i = 0;
            for (; i + 4 <= kc; i += 4)
                sum +=
                    DOT4(VEC4(T4, arow[i], arow[i + 1], arow[i + 2], arow[i + 3]),
                         VEC4(T4, LD(b, i), LD(b, i + 1), LD(b, i + 2), LD(b, i + 3)));
            for (; i < kc; i++)
                sum += arow[i] * LD(b, i);
            if (k0 == 0)
                C[r * N + c] = sum;
            else
                C[r * N + c] += sum;
        }
    }
}
