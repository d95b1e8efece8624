/*
 * Peak: the TF32 rate of the tensor cores, in mma.sync.m16n8k8 products
 * (2 * 16 * 8 * 8 = 2048 operations each), issued through inline PTX.
 *
 * Computes   per warp w (32 consecutive work-items; lane l = 4g + t holds
 *            the fragments of mma.m16n8k8: A rows g and g + 8, columns t
 *            and t + 4; B rows t and t + 4, column g; C rows g and g + 8,
 *            columns 2t and 2t + 1), with
 *              A[m][k] = ((131w + 3m + 5k) % 17 - 8) / 8,
 *              B[k][n] = ((7w + 13k + 3n) % 17 - 8) / 8,
 *              D[k][n] = ((w + k + 2n) % 3 - 1) / 8,   E = D - B,
 *              C_c[m][n] = ((w + 5c + 3m + n) % 64 - 32) / 8   (chain c),
 *            CHAINS independent accumulators, ITERS / 2 times each:
 *              C_c += A*B;  C_c += A*E      (so C_c += A*D per pair),
 *            then out[gid] = the sum of the work-item's 4 * CHAINS
 *            accumulator values (chain by chain, registers in order).
 * Exactness: every value is a multiple of 1/8 of at most 4 significant
 *            bits (exact in TF32, no rounding on the way in); products
 *            are multiples of 1/64; |A*D| <= 1, so |C_c| stays below
 *            4 + ITERS / 2 + 9 and every sum, in any order and with any
 *            rounding, is exact in float for ITERS <= 4096. The host
 *            computes out[] exactly: sum of C_c + (ITERS/2)*(A*D) over the
 *            work-item's elements. A kernel that skipped products, chains
 *            or iterations, or mixed up fragments, gets other numbers.
 *            The data are simple numbers; the tensor cores' rate does not
 *            depend on the values as far as kladder has seen, but the
 *            power drawn may (the roof is then an upper bound).
 * Geometry:  1-D, local size a multiple of 32; NO guard: the host launches
 *            exactly as many work-items as out has elements.
 * Macros:    CHAINS (default 4; 1 .. 8): independent accumulators per warp,
 *            so that the tensor pipe has products ready while earlier ones
 *            are in flight. ITERS (default 256; even, <= 4096).
 * Where:     NVIDIA GPUs of compute capability 8.0 or more (PTX mma.sync
 *            with TF32); kladder peak leaves the row out elsewhere.
 *
 * Backends:  OpenCL on NVIDIA; CUDA from this same source through
 *            kernels/cuda/prelude.cuh.
 */
#ifndef CHAINS
#define CHAINS 4
#endif
#ifndef ITERS
#define ITERS 256
#endif
#if CHAINS < 1 || CHAINS > 8 || ITERS % 2 != 0 || ITERS > 4096
#error "mma_tf32: CHAINS in 1 .. 8, ITERS even and at most 4096"
#endif

/* d += a * b on the tensor cores: one 16 x 8 x 8 product, fp32 accumulation. */
#define MMA(d, a, b)                                                                               \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "          \
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"                               \
                 : "=f"((d)[0]), "=f"((d)[1]), "=f"((d)[2]), "=f"((d)[3])                          \
                 : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]), "r"((b)[1]),   \
                   "f"((d)[0]), "f"((d)[1]), "f"((d)[2]), "f"((d)[3]))

#define EIGHTHS(x) ((float)((x) % 17 - 8) * 0.125f)

__kernel void mma_tf32(__global float *out)
{
    const int gid = (int)get_global_id(0), w = gid / 32, lane = gid % 32;
    const int g = lane / 4, t = lane % 4;
    uint a[4], b[2], e[2];
    float c[CHAINS][4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
        const int m = g + r % 2 * 8, k = t + r / 2 * 4; /* a0..a3: (g, t) (g+8, t) (g, t+4) (g+8, t+4) */
        a[r] = as_uint(EIGHTHS(131 * w + 3 * m + 5 * k));
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const int k = t + 4 * r; /* b0, b1: (t, g) (t+4, g) */
        const float bv = EIGHTHS(7 * w + 13 * k + 3 * g);
        const float dv = (float)((w + k + 2 * g) % 3 - 1) * 0.125f;
        b[r] = as_uint(bv);
        e[r] = as_uint(dv - bv);
    }
#pragma unroll
    for (int ch = 0; ch < CHAINS; ch++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int m = g + r / 2 * 8, n = 2 * t + r % 2; /* c0..c3: (g, 2t) (g, 2t+1) (g+8, ...) */
            c[ch][r] = (float)((w + 5 * ch + 3 * m + n) % 64 - 32) * 0.125f;
        }
    for (int i = 0; i < ITERS / 2; i++) {
#pragma unroll
        for (int ch = 0; ch < CHAINS; ch++)
            MMA(c[ch], a, b);
#pragma unroll
        for (int ch = 0; ch < CHAINS; ch++)
            MMA(c[ch], a, e);
    }
    float s = 0.0f;
#pragma unroll
    for (int ch = 0; ch < CHAINS; ch++)
#pragma unroll
        for (int r = 0; r < 4; r++)
            s += c[ch][r];
    out[gid] = s;
}
