/*
 * Rung 06: private row of A plus B's column shared in local memory.
 *
 * Computes   C[r][c] = sum_k A[r][k] * B[k][c]   (A row-major M x K,
 *            C row-major M x N).
 * B layout:  "col" -- element (k, c) at B[c * K + k].
 * Geometry:  1-D, r = get_global_id(0) is the row of C; the work-group has
 *            WG = get_local_size(0) work-items (set by the host), i.e. WG
 *            consecutive rows.
 * Macro:     KC (default 256, >= 1): chunk length, both of the private
 *            row arow[KC] and of the local column buffer bcol[KC].
 * Change:    as rung 05, but all WG work-items of a group need the same
 *            column c of B at the same time, so the group loads it once,
 *            cooperatively, into local memory (the article's "column in
 *            local memory"), and every work-item reads it from there.
 *            GPU: B's global traffic drops by a factor WG, and the
 *            cooperative load (work-item lid reads element lid, lid+WG,
 *            ...) is coalesced. Two barriers per column: one after the
 *            load, and one BEFORE it (the article forgot this one) so no
 *            work-item overwrites bcol while a slower one is still reading
 *            the previous column.
 *            CPU: local memory is ordinary cached memory and barriers cost
 *            work-item context switches, so expect no gain or a loss.
 * Sizes:     K is chunked as in rung 05 (kc = min(KC, K - k0); first chunk
 *            stores C, later chunks add). Rows r >= M (the rounded-up tail
 *            of the last group) still run every loop iteration, help load
 *            bcol and reach every barrier; they just compute and store
 *            nothing. N and K are uniform, so all work-items of a group
 *            run the same number of iterations: no barrier divergence.
 * Types:     A and B are TA, any input type (float, double, int, and the
 *            narrow half, bf16, fp8, fp8e5m2, int8), read as T
 *            by LD;
 *            products summed in T, C of T (float for the narrow floating
 *            types, int for int8; kernels/opencl/prelude.cl). Local memory
 *            holds the values converted to T.
 *
 * Backends:  OpenCL; CUDA from this same source through kernels/cuda/prelude.cuh.
 */
#ifndef KC
#define KC 256
#endif
#if KC < 1
#error "06_col_local: KC (chunk length) must be >= 1"
#endif

__kernel void gemm(const __global TA *restrict A, const __global TA *restrict B,
                   __global T *restrict C, const int M, const int N,
                   const int K)
{
    const int r = get_global_id(0);
    const int lid = get_local_id(0);
    const int wg = get_local_size(0);
    const bool valid = r < M;
    T arow[KC];
    __local T bcol[KC];

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = min(KC, K - k0);

        if (valid)
            for (int i = 0; i < kc; i++)
                arow[i] = LD(A, r * K + k0 + i);

        for (int c = 0; c < N; c++) {
            /* Nobody may still be reading the previous column. */
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int i = lid; i < kc; i += wg)
                bcol[i] = LD(B, c * K + k0 + i);
            barrier(CLK_LOCAL_MEM_FENCE);

            if (valid) {
                T sum = 0;
                for (int i = 0; i < kc; i++)
                    sum += arow[i] * bcol[i];
                if (k0 == 0)
                    C[r * N + c] = sum;
                else
                    C[r * N + c] += sum;
            }
        }
    }
}
