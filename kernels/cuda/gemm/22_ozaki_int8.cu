/*
 * Rung 22 (CUDA, Hopper only): float GEMM at float accuracy from INT8
 * products, by the Ozaki scheme II (Ozaki, Uchino and Imamura, 2025).
 *
 * Computes   C = A * B for float A (M x K, row-major) and B (given
 *            transposed: Bt, N x K, row-major), C float, row-major.
 * Change:    rung 20 multiplies INT8 inputs on the tensor cores at twice the
 *            FP16 rate, but float inputs are not INT8. Here each float matrix
 *            is scaled by rows and columns to integers and reduced modulo
 *            NMOD small moduli into INT8 residues; rung 20's kernel multiplies
 *            the residues exactly (int32 sums), and the Chinese remainder
 *            theorem rebuilds every element of C from its NMOD products. The
 *            result is float-accurate (3xTF32's class) at INT8's rate: NMOD
 *            products against three TF32 ones, each four times as fast.
 * Method:    1. exponents: each row i of A is scaled by 2^ea[i] and each
 *               row j of Bt by 2^eb[j] so that its largest magnitude is
 *               below 2^BETA; rounded to integers, A' and B' are exact
 *               enough (BETA bits of the row's largest value) and
 *               |A' B'| <= K 2^(2 BETA) < P / 4, P the product of the
 *               moduli (kladder picks BETA from P and K).
 *            2. split: for each of the NMOD pairwise coprime moduli p_l
 *               (256, 255, 253, 251, 247, 241, ...), A' mod p_l and B' mod
 *               p_l as symmetric residues, each in [-128, 127]: INT8
 *               matrices, NMOD of each.
 *            3. NMOD INT8 GEMMs on the tensor cores (rung 20 built for
 *               int8 with RESIDUES): C_l = (A' mod p_l)(B' mod p_l), exact
 *               in int32, so C_l = A'B' (mod p_l), stored as that residue
 *               (a byte: a quarter of the int32 plane's traffic).
 *            4. crt: per element, the residues C_l mod p_l give A'B' by the
 *               Chinese remainder theorem: sum r_l w_l (mod P), reduced to
 *               the one value below P/4 in magnitude, in double (whose
 *               roundings are far below float's), scaled back by
 *               2^-(ea[i] + eb[j]) into C.
 * Precision: float-accurate when P is large enough (7 moduli, the
 *            default: BETA = 20 at K = 8192, and on an H100 at 8192^3 an
 *            error of 6.5e-8 against cuBLAS SGEMM's 3.8e-7): the only errors
 *            are A's and B's rounding to BETA bits of their rows' largest
 *            values, the reconstruction's in double and the final rounding
 *            to float. Checked against the fp32 tolerance; fewer moduli
 *            trade accuracy for speed (the error column shows it).
 * Cost:      NMOD INT8 products, each at the INT8 rate (twice FP16's, four
 *            times TF32's), the split (A and B read once, NMOD bytes written
 *            per element of each), and the reconstruction (NMOD bytes read
 *            per element of C).
 * Macros:    NMOD (number of moduli, 2 to 16; 7).
 *
 * Backends:  CUDA only (NVRTC for sm_90a, as rung 20 whose int8 kernel
 *            multiplies the slices).
 */
#ifndef NMOD
#define NMOD 7
#endif
static_assert(NMOD >= 2 && NMOD <= 16, "22_ozaki_int8: 2 to 16 moduli");

#include "residue.cuh"

/*
 * Modulus l: pairwise coprime, each at most 256, so that symmetric residues
 * fit int8. A constant wherever l is (every loop over them is unrolled), so
 * that each division by one is a multiplication.
 */
static __host__ __device__ constexpr int modulus(int l)
{
    constexpr int m[16] = {256, 255, 253, 251, 247, 241, 239, 233,
                           229, 227, 223, 217, 211, 199, 197, 193};
    return m[l];
}

/*
 * The exponent of each row of A (blocks 0 .. M-1) and of Bt (M .. M+N-1):
 * e such that the row's largest magnitude times 2^e is below 2^beta (0
 * for a row of zeros). 256 threads per block.
 */
extern "C" __global__ void __launch_bounds__(256)
    exponents(const float *__restrict__ A, const float *__restrict__ Bt, int *ea, int *eb, int M,
              int N, int K, int beta)
{
    __shared__ float most[8];
    const bool in_a = (int)blockIdx.x < M;
    const size_t row = in_a ? blockIdx.x : blockIdx.x - M;
    const float *x = (in_a ? A : Bt) + row * K;
    float m = 0.0f;
    for (int k = threadIdx.x; k < K; k += 256)
        m = fmaxf(m, fabsf(x[k]));
    for (int d = 16; d > 0; d /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    if (threadIdx.x % 32 == 0)
        most[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < 8; w++)
            m = fmaxf(m, most[w]);
        /* m < 2^(ilogb(m) + 1), so m 2^e < 2^beta with e = beta - ilogb(m) - 1 */
        const int e = m > 0.0f ? beta - ilogbf(m) - 1 : 0;
        (in_a ? ea : eb)[row] = e;
    }
}

/*
 * The residues of A' = rint(A 2^ea) and B' = rint(Bt 2^eb): element k of
 * row r of A (rows 0 .. M-1) or Bt (M .. M+N-1) into row r of plane l,
 * rows of ld bytes (zeros from K to ld). One buffer per side holds the
 * NMOD planes one after another: plane l of A starts l M ld bytes into pa,
 * of Bt l N ld bytes into pb.
 */
extern "C" __global__ void __launch_bounds__(256)
    split(const float *__restrict__ A, const float *__restrict__ Bt, const int *__restrict__ ea,
          const int *__restrict__ eb, signed char *pa, signed char *pb, int M, int N, int K, int ld)
{
    const size_t i = blockIdx.x * (size_t)256 + threadIdx.x;
    const size_t per_a = (size_t)M * ld, per_b = (size_t)N * ld;
    if (i >= per_a + per_b)
        return;
    const bool in_a = i < per_a;
    const size_t at = in_a ? i : i - per_a, row = at / ld;
    const int k = (int)(at % ld);
    const float x = k < K ? (in_a ? A : Bt)[row * K + k] : 0.0f;
    const double y = ldexp((double)x, (in_a ? ea : eb)[row]);
    signed char *plane = in_a ? pa : pb;
    const size_t stride = in_a ? per_a : per_b;
    if (fabs(y) < 2147483647.0) { /* 32-bit residues where A' fits (BETA <= 30: few moduli) */
        const int v = __double2int_rn(y);
#pragma unroll
        for (int l = 0; l < NMOD; l++)
            plane[l * stride + at] = (signed char)symmetric(v, modulus(l));
    } else {
        const long long v = llrint(y);
#pragma unroll
        for (int l = 0; l < NMOD; l++)
            plane[l * stride + at] = (signed char)symmetric(v, modulus(l));
    }
}

/*
 * C from the NMOD products' residues (planes of M x N bytes, `stride` apart
 * in cp, each product modulo its p_l as rung 20 stores it): S = sum r_l w_l
 * is A'B' (mod P) (w, kladder's constants: w_l = (P/p_l) ((P/p_l)^-1 mod
 * p_l), then P in two parts and 1/P), so A'B' = S - P rint(S/P), since
 * |A'B'| < P/4; in double, whose roundings stay below 2^-36 of the sum of
 * the products' magnitudes. Scaled back by 2^-(ea[i] + eb[j]).
 */
extern "C" __global__ void __launch_bounds__(256)
    crt(const signed char *__restrict__ cp, const int *__restrict__ ea,
        const int *__restrict__ eb, float *__restrict__ C, int M, int N,
        const double *__restrict__ w)
{
    const size_t i = blockIdx.x * (size_t)256 + threadIdx.x, stride = (size_t)M * N;
    if (i >= stride)
        return;
    double sum = 0.0;
#pragma unroll
    for (int l = 0; l < NMOD; l++)
        sum = fma((double)cp[l * stride + i], w[l], sum);
    const double k = rint(sum * w[NMOD + 2]);
    const double x = fma(-k, w[NMOD + 1], fma(-k, w[NMOD], sum));
    const size_t r = i / N, c = i % N;
    C[i] = (float)ldexp(x, -(ea[r] + eb[c]));
}
