/*
 * Rung 13 (CUDA only, 8-bit RGBA, compute capability 8.0 or more): both
 * passes on the tensor cores, as products of pixel tiles with a banded
 * (Toeplitz) weight matrix, every intermediate kept in registers.
 *
 * Computes   dst(x, y) = round(128 + sum_j w'[j] * h'(x, clamp(y+j)))
 *            h(x, y')  = sum_i w'[i] * (src(clamp(x+i), y') - 128)
 *            (i, j = -RAD..RAD, clamped into the image), per channel: w' are
 *            the weights rounded to half, the products exact, the sums in
 *            the tensor cores' FP32, h' is h rounded to half.
 * Change:    rung 12 does every multiply-add on the FMA pipe, register-blocked.
 *            Here both passes become matrix products on the tensor cores: a
 *            strip of 16 outputs is a banded 16 x 16*NK weight matrix times
 *            16*NK inputs, with the row pass's results kept in registers as
 *            the next product's operand, so no pass writes shared memory. The
 *            band wastes products off its diagonals, but the tensor cores
 *            multiply so much faster than the FMA pipe that the large radii,
 *            where rung 12 is bound by arithmetic, come down towards the
 *            memory floor.
 * The band:  one pass over 16 outputs is a 16 x 16*NK matrix times 16*NK
 *            inputs: A[m][k] = w'[k - m - OFF] (0 off the band), the inputs
 *            starting RA8 = RAD rounded up to 8 before the first output, so
 *            OFF = RA8 - RAD and NK = ceil((16 + RA8 + RAD) / 16) blocks of
 *            16. A is the same for every tile and for both passes: each
 *            thread keeps its NK fragments in registers for the kernel's
 *            life. Of the 16*NK products per output, 2RAD+1 are taps: 13 of
 *            32 at RAD = 6, 49 of 64 at RAD = 24. The tensor cores have the
 *            FLOPs to spare; the FMA units, which rung 12 fills, do not.
 * Row pass:  mma.m16n8k16 with A the band and B 16 input columns of 8 image
 *            rows (one channel): C holds 16 output columns of those rows.
 *            A thread's B is two pairs of neighbouring pixels of one row,
 *            loaded as 8 bytes each. One byte permute gathers two channels
 *            of the pair, one more per channel puts 0x64 above each byte:
 *            the half 1024 + b, exact. The accumulator starts at -1152 sum w'
 *            (every band row holds all the taps), so the pass leaves
 *            sum w' (b - 128): pixels centred on 128 halve what the half
 *            rounding of the results can lose.
 * Column pass: the row pass's C, rounded to half2 in place, is already the
 *            B fragment of the column pass (columns for n, rows for k): C's
 *            (column g, rows 2t, 2t+1) is B's (k 2t, 2t+1; n g). The same
 *            band as A turns 16 + RA8 + RAD rows of it into 16 output rows.
 *            No shared memory, no barrier.
 * Geometry:  a warp owns a strip of 16 columns and CW channels (1, 2 or 4)
 *            and walks down SH rows of it, 16 output rows per step: a step
 *            row-passes two new groups of 8 input rows into a ring of NK
 *            pairs and column-passes the ring. The ring's slots are fixed at
 *            compile time by unrolling the steps NK at a time. The next
 *            step's pixels are loaded before this step's products. A block
 *            has WX strips side by side times 4/CW channel groups
 *            (32 * WX * 4/CW threads); grid ceil(W / 16WX) x ceil(H / SH).
 *            A strip reads 16 * NK columns and SH + 16(NK - 1) rows (SH
 *            rounded up to 16) for its 16 x SH outputs; the overlap with its
 *            neighbours' is read from L1 and L2.
 * Error:     inputs 1024 + b are integers, exact in half, the products of
 *            halves are exact, and -1152 sum w' is rounded once to float (its
 *            sum in double is exact). The host's bound
 *            (kl_blur_mma_bound, src/workloads/blur/bound.c) adds up, for
 *            the run's weights: rounding the weights to half, 128 *
 *            sum_ij |w'_i w'_j - w_i w_j| + 128 |1 - (sum w)^2|; rounding h
 *            to half, half a unit at the largest |h| (sum w' * 128), times
 *            sum w'; and the tensor cores' FP32 sums, which NVIDIA does not
 *            specify: per instruction each of its 17 terms aligned to the
 *            largest and cut to 24 bits, then the result cut again, so at
 *            most 18 * 2^-23 times the largest magnitude it holds, for each
 *            of the NK instructions of each pass (a model that measured
 *            tensor cores of Volta to Hopper stay within). 0.11 level at
 *            sigma = 2, 0.12 at sigma = 8, at most 0.15 from radius 0 to 64;
 *            the host runs the rung where the total is at most 0.5, so the
 *            final rounding leaves every output within one level of the
 *            exact blur.
 * Macros:    RAD (set by the host, at most 64); WX (default 4), CW (4), SH
 *            (128; a last step of a strip whose SH is no multiple of 16
 *            stores only the strip's rows); MB (1), the blocks per
 *            multiprocessor ptxas keeps registers for; KL_PIX_UCHAR4
 *            (required).
 * Sizes:     any W, H >= 1. Loads are clamped into the image (8-byte loads
 *            where a strip's columns lie inside even rows, 4-byte ones
 *            otherwise); stores only for x < W, y < H.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#ifndef RAD
#error "13_mma: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef KL_PIX_UCHAR4
#error "13_mma computes 8-bit RGBA pixels: build it with -DKL_PIX_UCHAR4"
#endif
#ifndef WX
#define WX 4
#endif
#ifndef CW
#define CW 4
#endif
#ifndef SH
#define SH 128
#endif
#ifndef MB
#define MB 1
#endif
static_assert(RAD >= 0 && RAD <= 64, "13_mma: 0 <= RAD <= 64");
static_assert(CW == 1 || CW == 2 || CW == 4, "13_mma: CW must be 1, 2 or 4");
static_assert(WX >= 1 && WX * (4 / CW) <= 32, "13_mma: 1 <= WX, WX * 4/CW warps <= 32");
static_assert(SH >= 1, "13_mma: SH >= 1");

#define NG (4 / CW) /* channel groups per strip */

#include "mma.cuh" /* RA8, OFF, NK: the band's geometry; mma, to_h2, to_half, band */

/* Channels 2p and 2p + 1 of two RGBA8 pixels: bytes (lo.2p, hi.2p, lo.2p+1, hi.2p+1). */
static __device__ __forceinline__ unsigned gather(unsigned lo, unsigned hi, int p)
{
    return __byte_perm(lo, hi, p ? 0x7362 : 0x5140);
}
/* Channel c of gathered pixels (gather(lo, hi, c / 2)) as a half2, 1024 + b each: exact. */
static __device__ __forceinline__ h2 pair_of(unsigned v, int c)
{
    return __byte_perm(v, 0x64646464u, c & 1 ? 0x4342 : 0x4140);
}

/*
 * A result rounded to the nearest level, in the low byte. No clamp: the exact blur lies in
 * [0, 255 (sum w)^2], sum w within 2^-20 of 1, and for weights that sum to 1 the bound stays
 * under 0.25 (the half weights 0.125 at most, the half rounding of h 0.0625, the sums less than
 * 0.05), so the result lies in [-0.25, 255.25] and rounds to a level.
 */
static __device__ __forceinline__ unsigned level(float v)
{
    return __float_as_uint(v + 12582912.0f); /* 1.5 * 2^23: a unit of 1 in the low bits */
}

/* The 4 pixels of input row y a thread's B fragments take in each k-block (8 bytes twice). */
struct group {
    unsigned p[NK][4];
};

static __device__ __forceinline__ void load_group(group &gr, const unsigned *__restrict__ src, int W,
                                                  int H, int y, int x0, int inside)
{
    const unsigned *row = src + (size_t)min(max(y, 0), H - 1) * W;
#pragma unroll
    for (int i = 0; i < NK; i++) {
        const int x = x0 + 16 * i;
        if (inside) {
            const uint2 u = __ldg((const uint2 *)(row + x)), v = __ldg((const uint2 *)(row + x + 8));
            gr.p[i][0] = u.x, gr.p[i][1] = u.y, gr.p[i][2] = v.x, gr.p[i][3] = v.y;
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                gr.p[i][j] = __ldg(row + min(max(x + (j & 1) + (j >> 1) * 8, 0), W - 1));
        }
    }
}

/*
 * The row pass of one group, channels ch0 .. ch0 + CW - 1, into the ring's half2 pairs; c0 is
 * -1152 sum w', which takes 1024 + 128 off every input.
 */
static __device__ __forceinline__ void row_pass(const group &gr, const unsigned (&a)[NK][4], int ch0,
                                                float c0, h2 (&out)[CW][2])
{
    unsigned v[NK][2][(CW + 1) / 2];
#pragma unroll
    for (int i = 0; i < NK; i++)
#pragma unroll
        for (int p = 0; p < (CW + 1) / 2; p++) {
            v[i][0][p] = gather(gr.p[i][0], gr.p[i][1], ch0 / 2 + p);
            v[i][1][p] = gather(gr.p[i][2], gr.p[i][3], ch0 / 2 + p);
        }
#pragma unroll
    for (int c = 0; c < CW; c++) {
        float d[4] = {c0, c0, c0, c0};
#pragma unroll
        for (int i = 0; i < NK; i++)
            mma(d, a[i], pair_of(v[i][0][c / 2], ch0 + c), pair_of(v[i][1][c / 2], ch0 + c));
        out[c][0] = to_h2(d[0], d[1]); /* column g, rows 2t and 2t+1 */
        out[c][1] = to_h2(d[2], d[3]); /* column g + 8 */
    }
}

extern "C" __global__ void __launch_bounds__(32 * WX * NG, MB)
blur_fused(const unsigned *__restrict__ src, unsigned *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int c0 = (blockIdx.x * WX + warp % WX) * 16, ch0 = warp / WX * CW;
    const int y0 = blockIdx.y * SH;
    if (c0 >= W)
        return; /* the whole warp: no barrier follows */

    /* The band's fragments: A[m][k] at (m, k) = (g + 8(r&1), 2t + 8(r>>1) + {0, 1}). */
    unsigned a[NK][4];
#pragma unroll
    for (int i = 0; i < NK; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int j = 16 * i + 2 * t + 8 * (r >> 1) - (g + 8 * (r & 1)) - OFF;
            a[i][r] = to_h2(band(w, j), band(w, j + 1));
        }
    double sum_h = 0; /* sum w', exact: halves of exponents -24 to 0 */
    for (int j = 0; j <= 2 * RAD; j++)
        sum_h += to_half(w[j]);
    const float cr = (float)(-1152.0 * sum_h); /* the row pass's first accumulator */

    /* Group q: input rows y0 - RA8 + 8q ..; this thread's row g of it, columns from x0. */
    const int x0 = c0 - RA8 + 2 * t, yq = y0 - RA8 + g;
    const int inside = W % 2 == 0 && c0 - RA8 >= 0 && c0 - RA8 + 16 * NK <= W;
    const int yend = min(H, y0 + SH), steps = (yend - y0 + 15) / 16;

    /* The ring: slot p holds groups 2p' and 2p'+1 for the k-block p' = p mod NK. */
    h2 ring[NK][2][CW][2];
    group cur, nxt;
#pragma unroll
    for (int q = 0; q < 2 * NK - 2; q++) {
        load_group(cur, src, W, H, yq + 8 * q, x0, inside);
        row_pass(cur, a, ch0, cr, ring[q / 2][q % 2]);
    }
    group nx2;
    load_group(nxt, src, W, H, yq + 8 * (2 * NK - 2), x0, inside);
    load_group(nx2, src, W, H, yq + 8 * (2 * NK - 1), x0, inside);

    /*
     * Step s (u = s mod NK): groups 2s + 2NK - 2 and 2s + 2NK - 1 complete the window, the next
     * step's two load (past the strip's end too: clamped rows, never used), and output rows
     * y0 + 16s + g (+ 8), columns c0 + 8n + 2t (+ 1), are stored.
     */
    auto step = [&](const int u, const int s) {
        cur = nxt;
        const group cu2 = nx2;
        load_group(nxt, src, W, H, yq + 8 * (2 * s + 2 * NK), x0, inside);
        load_group(nx2, src, W, H, yq + 8 * (2 * s + 2 * NK + 1), x0, inside);
        row_pass(cur, a, ch0, cr, ring[(u + NK - 1) % NK][0]);
        row_pass(cu2, a, ch0, cr, ring[(u + NK - 1) % NK][1]);
        const int y = y0 + 16 * s + g;
#pragma unroll
        for (int n = 0; n < 2; n++) {
            float d[CW][4];
#pragma unroll
            for (int c = 0; c < CW; c++) {
                d[c][0] = d[c][1] = d[c][2] = d[c][3] = 128.0f;
#pragma unroll
                for (int i = 0; i < NK; i++)
                    mma(d[c], a[i], ring[(u + i) % NK][0][c][n], ring[(u + i) % NK][1][c][n]);
            }
            const int x = c0 + 8 * n + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                if (y + 8 * h >= yend)
                    continue;
                unsigned *out = dst + (size_t)(y + 8 * h) * W + x;
#if CW == 4
                unsigned px[2];
#pragma unroll
                for (int e = 0; e < 2; e++)
                    px[e] = __byte_perm(__byte_perm(level(d[0][2 * h + e]), level(d[1][2 * h + e]), 0x0040),
                                        __byte_perm(level(d[2][2 * h + e]), level(d[3][2 * h + e]), 0x0040),
                                        0x5410);
                if (W % 2 == 0 && x + 1 < W) {
                    *(uint2 *)out = make_uint2(px[0], px[1]);
                } else {
                    if (x < W)
                        out[0] = px[0];
                    if (x + 1 < W)
                        out[1] = px[1];
                }
#else
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    if (x + e >= W)
                        continue;
                    unsigned char *o = (unsigned char *)(out + e) + ch0;
#pragma unroll
                    for (int c = 0; c < CW; c++)
                        o[c] = (unsigned char)level(d[c][2 * h + e]);
                }
#endif
            }
        }
    };
    /* Whole rounds of NK steps with no branch between them, so their work can overlap. */
    int s = 0;
    for (; s + NK <= steps; s += NK)
#pragma unroll
        for (int u = 0; u < NK; u++)
            step(u, s + u);
#pragma unroll
    for (int u = 0; u < NK; u++)
        if (s + u < steps)
            step(u, s + u);
}
