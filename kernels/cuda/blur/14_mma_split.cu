/*
 * Rung 14 (CUDA only, float pixels, compute capability 8.0 or more): rung
 * 13's two passes on the tensor cores for float pictures, every value and
 * weight split into two halves, three products each, so the result keeps
 * the float tolerance.
 *
 * Computes   dst(x, y) = sum_j w[j] * h(x, clamp(y+j))
 *            h(x, y')  = sum_i w[i] * src(clamp(x+i), y')
 *            (i, j = -RAD..RAD, clamped into the image) as products of a
 *            banded weight matrix with tiles of values (mma.cuh, 13_mma.cu).
 * Change:    rung 13 blurs 8-bit pictures, whose values and sums half
 *            precision holds closely enough. Float pictures need more: each
 *            value and weight is split into a high and a low half, and each
 *            product is taken three times (high by high, high by low, low by
 *            high), so rung 13's banded products keep the float tolerance:
 *            three times the tensor-core work, still far below rung 12's FMA
 *            time at large radii.
 * Split:     a float v is vh + vl with vh = half(v) and vl = half(v - vh)
 *            (v - vh is exact in float): v to 2^-22 of itself, or to 2^-25
 *            where vl is subnormal. The band is 2^10 w, split the same way
 *            (the scale keeps the low halves of small weights normal; each
 *            pass's sums are scaled back by 2^-10, exactly). A product w v is
 *            taken as wh vh + wh vl + wl vh, each exact in the FP32 sums; wl vl,
 *            about 2^-22 of it, is left out.
 * Sums:      per block of 16 inputs, wh vh is one instruction whose
 *            accumulator starts at 0, added to the output's sum by an FP32
 *            add; the small products wl vh and wh vl of all the blocks go to
 *            SA accumulators of their own (SA = 2: two chains of NK
 *            instructions rather than one of 2NK, faster where no registers
 *            spill), added to each other and then to the sum. So each
 *            tensor-core instruction rounds relative to the taps it holds,
 *            not to the running sum.
 * Row pass:  mma.m16n8k16 with A the band and B 16 input columns of 8 image
 *            rows: a thread's B is two pairs of neighbouring values of one
 *            row, 8 bytes each, split into a high and a low half2 each. C holds
 *            16 output columns of those rows.
 * Column pass: the row pass's C (column g, rows 2t and 2t+1), split, is the
 *            column pass's B (k 2t and 2t+1, n g), as in rung 13: the row
 *            results never leave registers.
 * Geometry:  rung 13's with one channel: a warp owns a strip of 16 columns
 *            and walks down SH rows of it, 16 output rows per step, through a
 *            ring of NK pairs of row results; the next step's values are
 *            loaded before this step's products. WX strips side by side per
 *            block (32 * WX threads); grid ceil(W / 16WX) x ceil(H / SH).
 * Error:     kl_blur_split_bound (src/workloads/blur/bound.c) adds up, for
 *            the run's weights and inputs of magnitude up to M: what the
 *            splits miss (vh + vl and wh + wl against v and w, and the dropped
 *            wl vl); each tensor-core instruction within 18 * 2^-23 of the
 *            largest magnitude it holds (13_mma.cu's model), which for an
 *            instruction that starts at 0 is at most the sum of its terms'
 *            magnitudes, so over a pass at most 18 * 2^-23 * M * sum |wh|;
 *            each of a pass's NK + 1 FP32 adds, 2^-24 of the sum; and the row
 *            pass's error carried through the column pass's weights. 5.0e-6
 *            to 6.2e-6 for a picture in [0, 1] from radius 0 to 64, where the
 *            measured error is near 2e-7; the host runs the rung where the
 *            bound is within the float tolerance, 1e-5.
 * Macros:    RAD (set by the host, at most 64); WX (default 4), SH (128; a
 *            last step of a strip whose SH is no multiple of 16 stores only
 *            the strip's rows), MB (1), the blocks per multiprocessor ptxas
 *            keeps registers for; SA (2), 1 or 2. Float pixels only.
 * Sizes:     any W, H >= 1. Loads are clamped into the image (8-byte loads
 *            where a strip's columns lie inside even rows, 4-byte ones
 *            otherwise); stores only for x < W, y < H.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#ifndef RAD
#error "14_mma_split: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifdef KL_PIX_UCHAR4
#error "14_mma_split computes float pixels: build it without -DKL_PIX_UCHAR4"
#endif
#ifndef WX
#define WX 4
#endif
#ifndef SH
#define SH 128
#endif
#ifndef MB
#define MB 1
#endif
#ifndef SA
#define SA 2
#endif
static_assert(RAD >= 0 && RAD <= 64, "14_mma_split: 0 <= RAD <= 64");
static_assert(SA == 1 || SA == 2, "14_mma_split: SA must be 1 or 2");
static_assert(WX >= 1 && WX <= 32, "14_mma_split: 1 <= WX <= 32");
static_assert(SH >= 1, "14_mma_split: SH >= 1");

#include "mma.cuh" /* RA8, OFF, NK: the band's geometry; mma, to_h2, band */

#define SCALE 1024.0f /* 2^10: the band's low halves stay normal */

/* a and b as halves (hi) and what they miss, as halves (lo); a in the low 16 bits of each. */
static __device__ __forceinline__ void split(float a, float b, h2 &hi, h2 &lo)
{
    float ah, bh;
    hi = to_h2(a, b);
    asm("{ .reg .f16 l, h; mov.b32 {l, h}, %2; cvt.f32.f16 %0, l; cvt.f32.f16 %1, h; }"
        : "=f"(ah), "=f"(bh)
        : "r"(hi));
    lo = to_h2(a - ah, b - bh);
}

/*
 * acc (+)= the three products of one block of 16 inputs: wh vh by an instruction of its own,
 * added in FP32 (first: acc = it); wl vh and wh vl into the small accumulators dl[0] and
 * dl[SA - 1] (dl[1] stays 0 where SA = 1).
 */
static __device__ __forceinline__ void products(float (&acc)[4], float (&dl)[2][4], int first,
                                                const unsigned (&ah)[4], const unsigned (&al)[4],
                                                h2 bh0, h2 bh1, h2 bl0, h2 bl1)
{
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    mma(dl[0], al, bh0, bh1);
    mma(dl[SA - 1], ah, bl0, bl1);
    mma(d, ah, bh0, bh1);
#pragma unroll
    for (int r = 0; r < 4; r++)
        acc[r] = first ? d[r] : acc[r] + d[r];
}

/* The 4 values of input row y a thread's B fragments take in each k-block (8 bytes twice). */
struct group {
    float2 p[NK][2];
};

static __device__ __forceinline__ void load_group(group &gr, const float *__restrict__ src, int W,
                                                  int H, int y, int x0, int inside)
{
    const float *row = src + (size_t)min(max(y, 0), H - 1) * W;
#pragma unroll
    for (int i = 0; i < NK; i++) {
        const int x = x0 + 16 * i;
        if (inside) {
            gr.p[i][0] = __ldg((const float2 *)(row + x));
            gr.p[i][1] = __ldg((const float2 *)(row + x + 8));
        } else {
#pragma unroll
            for (int j = 0; j < 2; j++) {
                gr.p[i][j].x = __ldg(row + min(max(x + 8 * j, 0), W - 1));
                gr.p[i][j].y = __ldg(row + min(max(x + 8 * j + 1, 0), W - 1));
            }
        }
    }
}

/* The row pass of one group into the ring: out[n] = {hi, lo} of column g + 8n, rows 2t, 2t+1. */
static __device__ __forceinline__ void row_pass(const group &gr, const unsigned (&ah)[NK][4],
                                                const unsigned (&al)[NK][4], h2 (&out)[2][2])
{
    float acc[4], dl[2][4] = {};
#pragma unroll
    for (int i = 0; i < NK; i++) {
        h2 bh0, bl0, bh1, bl1;
        split(gr.p[i][0].x, gr.p[i][0].y, bh0, bl0);
        split(gr.p[i][1].x, gr.p[i][1].y, bh1, bl1);
        products(acc, dl, i == 0, ah[i], al[i], bh0, bh1, bl0, bl1);
    }
    float h[4];
#pragma unroll
    for (int r = 0; r < 4; r++)
        h[r] = (acc[r] + (dl[0][r] + dl[1][r])) * (1.0f / SCALE);
    split(h[0], h[1], out[0][0], out[0][1]); /* column g, rows 2t and 2t+1 */
    split(h[2], h[3], out[1][0], out[1][1]); /* column g + 8 */
}

extern "C" __global__ void __launch_bounds__(32 * WX, MB)
blur_fused(const float *__restrict__ src, float *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int c0 = (blockIdx.x * WX + warp) * 16, y0 = blockIdx.y * SH;
    if (c0 >= W)
        return; /* the whole warp: no barrier follows */

    /* The band's fragments, 2^10 w split: A[m][k] at (g + 8(r&1), 2t + 8(r>>1) + {0, 1}). */
    unsigned ah[NK][4], al[NK][4];
#pragma unroll
    for (int i = 0; i < NK; i++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int j = 16 * i + 2 * t + 8 * (r >> 1) - (g + 8 * (r & 1)) - OFF;
            split(SCALE * band(w, j), SCALE * band(w, j + 1), ah[i][r], al[i][r]);
        }

    /* Group q: input rows y0 - RA8 + 8q ..; this thread's row g of it, columns from x0. */
    const int x0 = c0 - RA8 + 2 * t, yq = y0 - RA8 + g;
    const int inside = W % 2 == 0 && c0 - RA8 >= 0 && c0 - RA8 + 16 * NK <= W;
    const int yend = min(H, y0 + SH), steps = (yend - y0 + 15) / 16;

    /* The ring: slot p holds groups 2p' and 2p'+1 for the k-block p' = p mod NK. */
    h2 ring[NK][2][2][2];
    group cur, nxt;
#pragma unroll
    for (int q = 0; q < 2 * NK - 2; q++) {
        load_group(cur, src, W, H, yq + 8 * q, x0, inside);
        row_pass(cur, ah, al, ring[q / 2][q % 2]);
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
        row_pass(cur, ah, al, ring[(u + NK - 1) % NK][0]);
        row_pass(cu2, ah, al, ring[(u + NK - 1) % NK][1]);
        const int y = y0 + 16 * s + g;
#pragma unroll
        for (int n = 0; n < 2; n++) {
            float acc[4], dl[2][4] = {};
#pragma unroll
            for (int i = 0; i < NK; i++) {
                const h2(&b0)[2] = ring[(u + i) % NK][0][n], (&b1)[2] = ring[(u + i) % NK][1][n];
                products(acc, dl, i == 0, ah[i], al[i], b0[0], b1[0], b0[1], b1[1]);
            }
            const int x = c0 + 8 * n + 2 * t;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                if (y + 8 * h >= yend)
                    continue;
                const int e = 2 * h; /* d[e], d[e + 1]: row g + 8h, columns x and x + 1 */
                const float v0 = (acc[e] + (dl[0][e] + dl[1][e])) * (1.0f / SCALE),
                            v1 = (acc[e + 1] + (dl[0][e + 1] + dl[1][e + 1])) * (1.0f / SCALE);
                float *out = dst + (size_t)(y + 8 * h) * W + x;
                if (W % 2 == 0 && x + 1 < W) {
                    *(float2 *)out = make_float2(v0, v1);
                } else {
                    if (x < W)
                        out[0] = v0;
                    if (x + 1 < W)
                        out[1] = v1;
                }
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
