/*
 * Rung 11 (CUDA only, 8-bit RGBA): both passes in packed half2 arithmetic,
 * two channels per FMA, the column pass first on exact integers.
 *
 * Computes   dst(x, y) = round(128 + sum_i w'[i] * v(clamp(x+i), y)),
 *            v(x', y)  = sum_j w'[j] * (src(x', clamp(y+j)) - 128)
 *            (i, j = -RAD..RAD, clamped into the image), per channel, every
 *            operation a half2 one: w' are the weights rounded to half.
 * Order:     each sum pairs the taps that share a weight and runs from the
 *            tails inwards:  a = 0;  for k = RAD..1: a = fma(w'[k], p_k, a),
 *            p_k = t(-k) + t(+k);  a = fma(w'[0], t(0), a).  The order is
 *            the error bound's (below); asm keeps the compiler to it.
 * Change:    rung 10 computes float RGBA: four FP32 multiply-adds per tap and
 *            pixel, and its row pass runs first. Here the column pass runs
 *            first, on the pixels' exact integers, and both passes in packed
 *            half2 (fma.rn.f16x2: two channels per instruction), the taps that
 *            share a weight added before they are multiplied (half the
 *            multiply-adds): a quarter of rung 10's FMA instructions. Half
 *            precision costs accuracy, so the host proves an error bound for
 *            the weights of the run and runs the rung only where every output
 *            stays within one level.
 * Why half2: 8-bit RGBA takes 4 * 2 * (2RAD+1) multiply-adds per pixel, 104
 *            at RAD = 6, more than the FP32 pipe issues in the time a copy
 *            of the picture takes on an H100. fma.rn.f16x2 does two per
 *            instruction. Bytes become halves with one byte permute (0x64 as
 *            the high byte makes the half 1024 + b) and one add of -1152,
 *            which leaves b - 128 exactly; the result goes back with one add
 *            of 1152 (in [1024, 2048) a half's unit is 1, so that add rounds
 *            to the nearest integer and leaves it in the low byte) and one
 *            byte permute per pixel.
 * Error:     inputs are integers in [-128, 127], exact in half, and so are
 *            the column pass's pair sums (|p| <= 256). Every other
 *            operation rounds once, by at most half a unit of the largest
 *            value it can hold: at most 128 * (the weights summed so far)
 *            plus the error so far, which is why sums run from the small
 *            tails inwards and why pixels are centred on 128 (half the
 *            magnitude, half the rounding). The row pass adds each input's
 *            error times its weight and rounds its pair sums. Rounding the
 *            weights to half moves the result by at most
 *            128 * sum_ij |w'_i w'_j - w_i w_j| + 128 * |1 - (sum w)^2|.
 *            The host adds these up for the weights of the run
 *            (kl_blur_half2_bound in src/workloads/blur/bound.c) and runs the rung only
 *            where the total is at most 0.5 level, so that the final
 *            rounding (0.5) leaves every output within one level of the
 *            exact blur: 0.33 at sigma = 2; above sigma of about 3.5 the
 *            bound passes 0.5 and the rung is skipped with the figure.
 * Geometry:  blocks of 32 x WY threads, one warp per row of threads. A block
 *            covers a tile of SPAN = 32*RX columns and TH = WY*RY rows; grid
 *            ceil(W/SPAN) x ceil(H/TH).
 * Phases:    1. Stage: cp.async copies of the tile's TH + 2RAD input rows,
 *               SPAN columns and RA on each side (stage_tile, as rung 10).
 *            2. Columns: warp ty computes column-pass rows ty*RY ..
 *               ty*RY + RY - 1 for all SPAN + 2RAD columns the row pass
 *               needs; each lane walks down its columns with a window of
 *               2RAD+1 unpacked rows in registers (every input unpacked
 *               once per column), results to shared memory, 8 bytes a pixel.
 *            3. Rows: after a __syncwarp (a warp reads only its own rows),
 *               each lane computes RX neighbouring pixels of each of those
 *               rows from RX + 2RAD column-pass results in registers.
 * Macros:    RAD (set by the host); WY (default 4), RY (8), RX (4; 1, 2, 4 or 8);
 *            KL_PIX_UCHAR4 (required). Dynamic shared memory
 *            (TH + 2RAD) * (SPAN + 2RA) * 4 + TH * (SPAN + 2RAD) * 8 bytes.
 * Sizes:     any W, H >= 1 and RAD >= 0 whose tile fits shared memory and
 *            whose error bound passes (the host checks both). Stores only
 *            for x < W, y < H. Above RAD = 12 the column window does not fit
 *            registers and each tap is read and unpacked from the staged
 *            tile: the same operations in the same order, slower.
 *
 * Backends:  CUDA only (NVRTC), compute capability 8.0 or more.
 */
#ifndef RAD
#error "11_half2: RAD (blur radius) must be set by the host (-DRAD=r)"
#endif
#ifndef KL_PIX_UCHAR4
#error "11_half2 computes 8-bit RGBA pixels: build it with -DKL_PIX_UCHAR4"
#endif
#ifndef WY
#define WY 4
#endif
#ifndef RY
#define RY 8
#endif
#ifndef RX
#define RX 4
#endif
static_assert(RAD >= 0 && WY >= 1 && WY <= 32 && RY >= 1, "11_half2: RAD >= 0, 1 <= WY <= 32, RY >= 1");
static_assert(RX == 1 || RX == 2 || RX == 4 || RX == 8, "11_half2: RX must be 1, 2, 4 or 8");

#include "pixels.cuh"

#define SPAN (32 * RX)         /* columns of a tile */
#define ROW (SPAN + 2 * RA)    /* staged pixels per row */
#define TH (WY * RY)           /* rows of a tile */
#define NS (TH + 2 * RAD)      /* input rows a tile reads */
#define VW (SPAN + 2 * RAD)    /* column-pass results per row */
#define HREG (NW <= 25)        /* the column window in registers */

typedef unsigned h2; /* two halves, channel pair (0, 1) or (2, 3) */

static __device__ __forceinline__ h2 hfma2(h2 a, h2 b, h2 c)
{
    h2 d;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
static __device__ __forceinline__ h2 hadd2(h2 a, h2 b)
{
    h2 d;
    asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}
static __device__ __forceinline__ h2 to_h2(float f)
{
    h2 d;
    asm("cvt.rn.f16x2.f32 %0, %1, %1;" : "=r"(d) : "f"(f));
    return d;
}

#define H_M1152 0xE480E480u /* half2(-1152, -1152) */
#define H_1152 0x64806480u  /* half2(1152, 1152) */

/* An RGBA8 pixel as two half2 of its channels minus 128: (c0, c1) and (c2, c3), exact. */
struct px2 {
    h2 lo, hi;
};
static __device__ __forceinline__ px2 unpack(unsigned p)
{
    return px2{hadd2(__byte_perm(p, 0x64646464u, 0x5140), H_M1152),
               hadd2(__byte_perm(p, 0x64646464u, 0x5342), H_M1152)};
}
/* Back to RGBA8: + 128 rounded to the nearest integer, which is then the low byte of 1024 + n. */
static __device__ __forceinline__ unsigned pack(px2 a)
{
    return __byte_perm(hadd2(a.lo, H_1152), hadd2(a.hi, H_1152), 0x6420);
}
static __device__ __forceinline__ px2 madd(h2 w, px2 t, px2 a)
{
    return px2{hfma2(w, t.lo, a.lo), hfma2(w, t.hi, a.hi)};
}
static __device__ __forceinline__ px2 add(px2 a, px2 b)
{
    return px2{hadd2(a.lo, b.lo), hadd2(a.hi, b.hi)};
}

/* The tails-inwards sum of taps T(-RAD) .. T(RAD) (a macro of the offset). */
#define SYMMETRIC_SUM(acc, T)                                                                      \
    do {                                                                                           \
        acc = px2{0u, 0u};                                                                         \
        _Pragma("unroll") for (int k = RAD; k >= 1; k--) acc = madd(wh[k], add(T(-k), T(k)), acc); \
        acc = madd(wh[0], T(0), acc);                                                              \
    } while (0)

extern "C" __global__ void __launch_bounds__(32 * WY)
blur_fused(const unsigned *__restrict__ src, unsigned *__restrict__ dst, const int W, const int H,
           const float *__restrict__ w)
{
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned *const staged = (unsigned *)smem;    /* NS x ROW input pixels */
    uint2 *const vres = (uint2 *)(staged + NS * ROW); /* TH x VW column-pass results */

    const int lane = threadIdx.x, ty = threadIdx.y;
    const int gx0 = blockIdx.x * SPAN, y0 = blockIdx.y * TH;

    /* 1. Stage the tile: row r holds source row y0 - RAD + r, from column gx0 - RA. */
    stage_tile(staged, ROW, src, W, H, gx0 - RA, y0 - RAD, NS, ROW, ty * 32 + lane, 32 * WY);
    asm volatile("cp.async.commit_group;\n" ::);
    h2 wh[RAD + 1]; /* w'[k] for k = 0..RAD (the weights are symmetric) */
#pragma unroll
    for (int k = 0; k <= RAD; k++)
        wh[k] = to_h2(w[RAD + k]);
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads();

    /* 2. Columns: results r0 .. r0 + RY - 1 from staged rows r0 .. r0 + RY + 2RAD - 1, for
     * the columns gx0 - RAD + c (staged column RA - RAD + c), c = 0 .. VW - 1. */
    const int r0 = ty * RY;
    for (int c = lane; c < VW; c += 32) {
        const unsigned *col = staged + r0 * ROW + RA - RAD + c;
        px2 acc;
#if HREG
        px2 win[NW]; /* unpacked staged row r0 + s in slot s % NW */
#pragma unroll
        for (int s = 0; s < RY + 2 * RAD; s++) {
            win[s % NW] = unpack(col[s * ROW]);
            if (s < 2 * RAD)
                continue;
#define TAP(j) win[(s - RAD + (j)) % NW]
            SYMMETRIC_SUM(acc, TAP);
#undef TAP
            vres[(r0 + s - 2 * RAD) * VW + c] = make_uint2(acc.lo, acc.hi);
        }
#else
#pragma unroll 1
        for (int r = 0; r < RY; r++) {
#define TAP(j) unpack(col[(r + RAD + (j)) * ROW])
            SYMMETRIC_SUM(acc, TAP);
#undef TAP
            vres[(r0 + r) * VW + c] = make_uint2(acc.lo, acc.hi);
        }
#endif
    }
    __syncwarp(); /* the row pass reads this warp's own rows only */

    /* 3. Rows: pixels x0 .. x0 + RX - 1 of rows r0 .. r0 + RY - 1 from results x0 - RAD on. */
    const int x0 = gx0 + lane * RX;
#pragma unroll 1
    for (int r = r0; r < r0 + RY; r++) {
        const int y = y0 + r;
        if (y >= H)
            break;
        px2 v[RX + 2 * RAD];
        const uint2 *in = vres + r * VW + lane * RX;
#pragma unroll
        for (int q = 0; q < RX + 2 * RAD; q++) {
            const uint2 e = in[q];
            v[q] = px2{e.x, e.y};
        }
        unsigned o[RX];
#pragma unroll
        for (int p = 0; p < RX; p++) {
            px2 acc;
#define TAP(i) v[p + RAD + (i)]
            SYMMETRIC_SUM(acc, TAP);
#undef TAP
            o[p] = pack(acc);
        }
        unsigned *out = dst + (size_t)y * W + x0;
#if RX % 4 == 0
        if (W % 4 == 0 && x0 + RX <= W) {
#pragma unroll
            for (int q = 0; q < RX / 4; q++)
                ((uint4 *)out)[q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
            continue;
        }
#elif RX == 2
        if (W % 2 == 0 && x0 + 2 <= W) {
            *(uint2 *)out = make_uint2(o[0], o[1]);
            continue;
        }
#endif
#pragma unroll
        for (int p = 0; p < RX; p++)
            if (x0 + p < W)
                out[p] = o[p];
    }
}
